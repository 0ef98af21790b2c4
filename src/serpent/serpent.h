/*
 * Serpent internals shared by the kernels of src/serpent/: the key-schedule
 * layout, the linear transformation as a macro over any word type, and the
 * kernel descriptors.
 *
 * Byte order is NESSIE's (Crypto++, Botan, Nettle, Linux "serpent"): a block
 * is four little-endian 32-bit words x0..x3, the key is little-endian words.
 */
#ifndef FB_SERPENT_H
#define FB_SERPENT_H

#include "../internal.h"
#include "serpent_tables.h"

/*
 * One key-schedule layout serves every kernel; each key setup fills the
 * arrays its kernel uses (see below):
 *   k  - the 33 round keys of the specification; the three-input (ternlog)
 *        circuits produce exact outputs and use these.
 *   ke - encryption keys for the two-input circuits: some of their S-box
 *        outputs come out complemented (FB_SERPENT_Sn_L2_FLIP), and the
 *        linear transformation is linear, so ke[r+1] = k[r+1] ^ LT(flip of
 *        S_r) undoes that for free; ke[32] = k[32] ^ flip of S7.
 *   kd - decryption keys for the two-input inverse circuits: after the
 *        inverse S-box of round r comes the XOR with k[r], so
 *        kd[r] = k[r] ^ flip of SI_(r mod 8); kd[32] = k[32].
 *   kl - round keys folded into the linear transformation for latency-bound
 *        code, see FB_SERPENT_LT_KEYED: kl[r] for r = 1..31 replaces
 *        "LT, then XOR k[r]" (kl[0] and kl[32] are unused).
 *   ks - the same for the scalar one-block encryption with the shallow
 *        two-input circuits (L2D): kl of k[r] ^ LT(flip of S_(r-1)) for
 *        r = 1..31, ks[0] = k[0], ks[32] = k[32] ^ flip of S7.
 */
typedef struct serpent_ks {
	uint32_t k[33][4];
	uint32_t kl[33][4];
	/* serpent/avx512 stops here (its ks_size), the others use all */
	uint32_t ke[33][4];
	uint32_t kd[33][4];
	uint32_t ks[33][4];
} serpent_ks;

/* Bytes of serpent_ks that serpent/avx512 uses (k and kl). */
#define FB_SERPENT_KS_EXACT_SIZE offsetof(serpent_ks, ke)

/* Key setup for the two-input-circuit kernels (fills k, ke, kd, ks) and
 * for the ternlog kernel (fills k, kl). */
int fb_serpent_setkey(void *ks, const uint8_t *key, size_t keylen);
int fb_serpent_setkey_exact(void *ks, const uint8_t *key, size_t keylen);

/* The portable one-block functions (serpent_bitslice.c), used by the SIMD
 * kernels for single blocks. */
void fb_serpent_bitslice_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_serpent_bitslice_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

/*
 * The linear transformation and its inverse, for any word type: ROL(x, n)
 * rotates each 32-bit lane left, SHL(x, n) shifts left, XOR3(a, b, c) is a
 * three-way XOR (one vpternlogd on AVX-512).
 */
#define FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3) do { \
	x0 = ROL(x0, 13);                                  \
	x2 = ROL(x2, 3);                                   \
	x1 = XOR3(x1, x0, x2);                             \
	x3 = XOR3(x3, x2, SHL(x0, 3));                     \
	x1 = ROL(x1, 1);                                   \
	x3 = ROL(x3, 7);                                   \
	x0 = XOR3(x0, x1, x3);                             \
	x2 = XOR3(x2, x3, SHL(x1, 7));                     \
	x0 = ROL(x0, 5);                                   \
	x2 = ROL(x2, 22);                                  \
} while (0)

#define FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3) do { \
	x2 = ROL(x2, 10);                                   \
	x0 = ROL(x0, 27);                                   \
	x2 = XOR3(x2, x3, SHL(x1, 7));                      \
	x0 = XOR3(x0, x1, x3);                              \
	x3 = ROL(x3, 25);                                   \
	x1 = ROL(x1, 31);                                   \
	x3 = XOR3(x3, x2, SHL(x0, 3));                      \
	x1 = XOR3(x1, x0, x2);                              \
	x2 = ROL(x2, 29);                                   \
	x0 = ROL(x0, 19);                                   \
} while (0)

/*
 * LT(x) ^ k[r] with the key XORs moved off the critical path: they are
 * applied to values that are ready early (an S-box output while the other
 * words rotate, a rotated word while x1 and x3 are computed), with the key
 * words adjusted for the rotations and XORs that follow (kl in serpent_ks):
 *   kl0 = ror(k0, 5) ^ k1 ^ k3    kl1 = ror(k1, 1)
 *   kl2 = ror(k2, 22) ^ k3 ^ (k1 << 7)    kl3 = ror(k3, 7)
 * Same instruction count, one step less latency per round.  KEY(j) is word
 * j of kl[r] (broadcast), XOR a two-way XOR.
 */
#define FB_SERPENT_LT_KEYED(ROL, SHL, XOR, XOR3, KEY, x0, x1, x2, x3) do { \
	x0 = ROL(x0, 13);                                                  \
	x2 = ROL(x2, 3);                                                   \
	x1 = XOR(x1, KEY(1));                                              \
	x3 = XOR(x3, KEY(3));                                              \
	x1 = XOR3(x1, x0, x2);                                             \
	x3 = XOR3(x3, x2, SHL(x0, 3));                                     \
	x0 = XOR(x0, KEY(0));                                              \
	x2 = XOR(x2, KEY(2));                                              \
	x1 = ROL(x1, 1);                                                   \
	x3 = ROL(x3, 7);                                                   \
	x0 = XOR3(x0, x1, x3);                                             \
	x2 = XOR3(x2, x3, SHL(x1, 7));                                     \
	x0 = ROL(x0, 5);                                                   \
	x2 = ROL(x2, 22);                                                  \
} while (0)

extern const fb_kernel fb_serpent_bitslice;
#if FB_X86
extern const fb_kernel fb_serpent_avx2, fb_serpent_avx512;
#endif

#endif
