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
 * Two key-schedule layouts, one for each kind of S-box circuit; each key
 * setup fills the arrays its kernel uses (see below):
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
/* The ternlog kernels' schedule (serpent/avx512, serpent/bitslice-exact). */
typedef struct serpent_ks_exact {
	uint32_t k[33][4];
	uint32_t kl[33][4];
} serpent_ks_exact;

/* The two-input kernels' schedule, the encryption forms first: a context
 * that only encrypts writes the first two thirds. No kernel reads both
 * structures, so each area is the size of its own (a re-key wipes a built
 * lazy area whole: 1,584 bytes here, not the 2,640 of all five forms). */
typedef struct serpent_ks {
	uint32_t ke[33][4];
	uint32_t ks[33][4];
	uint32_t kd[33][4];
} serpent_ks;

/* Key setup for the two-input-circuit kernels (fills ke, ks and kd; the
 * _enc one ke and ks, the _dec one kd) and for the ternlog kernel (fills
 * k, kl). */
int fb_serpent_setkey(void *ks, const uint8_t *key, size_t keylen);
int fb_serpent_setkey_enc(void *ks, const uint8_t *key, size_t keylen);
int fb_serpent_setkey_dec(void *ks, const uint8_t *key, size_t keylen);
int fb_serpent_setkey_exact(void *ks, const uint8_t *key, size_t keylen);

/* The portable one-block functions (serpent_bitslice.c), used by the SIMD
 * kernels for single blocks. */
void fb_serpent_bitslice_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_serpent_bitslice_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

/*
 * The linear transformation and its inverse, for any word type: ROL(x, n)
 * rotates each 32-bit lane left, SHL(x, n) shifts left, XOR3(a, b, c) is a
 * three-way XOR (one vpternlogd on AVX-512, a ^ (b ^ c) on AVX2) whose
 * first operand is the one that arrives last: vpternlogd's result waits 1
 * cycle on its first (destination) operand and ~2 on the others on AMD
 * Zen 4, and b ^ c can start before a is ready. In LT that is a shifted or
 * rotated word (an encryption round 1.03x on Zen 4); in ILT the word just
 * rotated (the other orders measured 0.99x in decryption).
 */
#define FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3) do { \
	x0 = ROL(x0, 13);                                  \
	x2 = ROL(x2, 3);                                   \
	x1 = XOR3(x0, x2, x1);                             \
	x3 = XOR3(SHL(x0, 3), x2, x3);                     \
	x1 = ROL(x1, 1);                                   \
	x3 = ROL(x3, 7);                                   \
	x0 = XOR3(x3, x1, x0);                             \
	x2 = XOR3(SHL(x1, 7), x3, x2);                     \
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
	x1 = XOR3(x0, x2, x1);                                             \
	x3 = XOR3(SHL(x0, 3), x2, x3);                                     \
	x0 = XOR(x0, KEY(0));                                              \
	x2 = XOR(x2, KEY(2));                                              \
	x1 = ROL(x1, 1);                                                   \
	x3 = ROL(x3, 7);                                                   \
	x0 = XOR3(x3, x1, x0);                                             \
	x2 = XOR3(SHL(x1, 7), x3, x2);                                     \
	x0 = ROL(x0, 5);                                                   \
	x2 = ROL(x2, 22);                                                  \
} while (0)

/*
 * Round drivers of the SIMD kernels: G groups of bitsliced state (a, b, c,
 * d, four words each) through the 32 rounds, each step on every group in
 * turn, so that the groups' dependency chains overlap: a round's chain
 * (key, S-box, the rotations of LT) is longer than one group's work on
 * the vector pipes. The including file defines the one-group steps
 * KX(k, x0..x3), SB(S, x0..x3), LT1(_, x0..x3) and ILT1(_, x0..x3), the
 * vector type V and its target attribute; G is a constant in each
 * instance, so absent groups vanish. Encryption uses the keys ke (or k),
 * decryption kd (or k), as the circuits need (see serpent_ks).
 */
#define FB_SERPENT_EACH_G(step, p) do { \
	step(p, a0, a1, a2, a3); \
	if (G > 1) \
		step(p, b0, b1, b2, b3); \
	if (G > 2) \
		step(p, c0, c1, c2, c3); \
	if (G > 3) \
		step(p, d0, d1, d2, d3); \
} while (0)
#define FB_SERPENT_ERG(S, k) do { \
	FB_SERPENT_EACH_G(KX, k); FB_SERPENT_EACH_G(SB, S); FB_SERPENT_EACH_G(LT1, 0); \
} while (0)
#define FB_SERPENT_DRG(S, k) do { \
	FB_SERPENT_EACH_G(ILT1, 0); FB_SERPENT_EACH_G(SB, S); FB_SERPENT_EACH_G(KX, k); \
} while (0)
#define FB_SERPENT_STATE_IN(s) \
	V a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3]; \
	V b0 = s[G > 1 ? 4 : 0], b1 = s[G > 1 ? 5 : 0], b2 = s[G > 1 ? 6 : 0], b3 = s[G > 1 ? 7 : 0]; \
	V c0 = s[G > 2 ? 8 : 0], c1 = s[G > 2 ? 9 : 0], c2 = s[G > 2 ? 10 : 0], c3 = s[G > 2 ? 11 : 0]; \
	V d0 = s[G > 3 ? 12 : 0], d1 = s[G > 3 ? 13 : 0], d2 = s[G > 3 ? 14 : 0], d3 = s[G > 3 ? 15 : 0]
#define FB_SERPENT_ONE_OUT(s, i, x0, x1, x2, x3) do { \
	s[4 * (i)] = x0; s[4 * (i) + 1] = x1; s[4 * (i) + 2] = x2; s[4 * (i) + 3] = x3; \
} while (0)
#define FB_SERPENT_STATE_OUT(s) do { \
	FB_SERPENT_ONE_OUT(s, 0, a0, a1, a2, a3); \
	if (G > 1) \
		FB_SERPENT_ONE_OUT(s, 1, b0, b1, b2, b3); \
	if (G > 2) \
		FB_SERPENT_ONE_OUT(s, 2, c0, c1, c2, c3); \
	if (G > 3) \
		FB_SERPENT_ONE_OUT(s, 3, d0, d1, d2, d3); \
} while (0)

#define FB_SERPENT_ENC_GROUPS(name, G_, TGT) \
static __attribute__((noinline)) TGT void name(const uint32_t (*k)[4], V *s) \
{ \
	enum { G = G_ }; \
	FB_SERPENT_STATE_IN(s); \
	for (int r = 0; r < 32; r += 8) { \
		FB_SERPENT_ERG(S0, k[r]); FB_SERPENT_ERG(S1, k[r + 1]); \
		FB_SERPENT_ERG(S2, k[r + 2]); FB_SERPENT_ERG(S3, k[r + 3]); \
		FB_SERPENT_ERG(S4, k[r + 4]); FB_SERPENT_ERG(S5, k[r + 5]); \
		FB_SERPENT_ERG(S6, k[r + 6]); \
		FB_SERPENT_EACH_G(KX, k[r + 7]); \
		FB_SERPENT_EACH_G(SB, S7); \
		if (r == 24) \
			break; \
		FB_SERPENT_EACH_G(LT1, 0); \
	} \
	FB_SERPENT_EACH_G(KX, k[32]); \
	FB_SERPENT_STATE_OUT(s); \
}

#define FB_SERPENT_DEC_GROUPS(name, G_, TGT) \
static __attribute__((noinline)) TGT void name(const uint32_t (*k)[4], V *s) \
{ \
	enum { G = G_ }; \
	FB_SERPENT_STATE_IN(s); \
	FB_SERPENT_EACH_G(KX, k[32]); \
	FB_SERPENT_EACH_G(SB, SI7); \
	FB_SERPENT_EACH_G(KX, k[31]); \
	for (int r = 24; r >= 0; r -= 8) { \
		FB_SERPENT_DRG(SI6, k[r + 6]); FB_SERPENT_DRG(SI5, k[r + 5]); \
		FB_SERPENT_DRG(SI4, k[r + 4]); FB_SERPENT_DRG(SI3, k[r + 3]); \
		FB_SERPENT_DRG(SI2, k[r + 2]); FB_SERPENT_DRG(SI1, k[r + 1]); \
		FB_SERPENT_DRG(SI0, k[r]); \
		if (r == 0) \
			break; \
		FB_SERPENT_DRG(SI7, k[r - 1]); \
	} \
	FB_SERPENT_STATE_OUT(s); \
}

/*
 * The rounds of a latency-bound encryption (one block, or one group of
 * them) on the shallow circuits with the round keys folded into the linear
 * transformation: SBD(S) applies S-box S, LTK(kr) the keyed LT with the
 * folded key kr (kl[r], FB_SERPENT_LT_KEYED). The caller XORs the first
 * key before and the last after.
 */
#define FB_SERPENT_KEYED_ROUNDS(SBD, LTK, kl) do { \
	for (int r_ = 0; r_ < 32; r_ += 8) { \
		SBD(S0); LTK((kl)[r_ + 1]); SBD(S1); LTK((kl)[r_ + 2]); \
		SBD(S2); LTK((kl)[r_ + 3]); SBD(S3); LTK((kl)[r_ + 4]); \
		SBD(S4); LTK((kl)[r_ + 5]); SBD(S5); LTK((kl)[r_ + 6]); \
		SBD(S6); LTK((kl)[r_ + 7]); SBD(S7); \
		if (r_ == 24) \
			break; \
		LTK((kl)[r_ + 8]); \
	} \
} while (0)

/*
 * The rounds of a latency-bound decryption (one block, or one group of
 * them) on the shallow inverse circuits (L2D, depth 4-5 against the L2
 * circuits' 6-11): SBID(S) applies inverse S-box S, KXR(kr) XORs the
 * round key kr, ILT is the inverse linear transformation. The keys are kd:
 * both inverse families complement the same outputs (checked below). The
 * caller XORs kd[32] before.
 */
#define FB_SERPENT_SHALLOW_DEC_ROUNDS(SBID, KXR, ILT, k) do { \
	SBID(SI7); KXR((k)[31]); \
	for (int r_ = 24; r_ >= 0; r_ -= 8) { \
		ILT; SBID(SI6); KXR((k)[r_ + 6]); ILT; SBID(SI5); KXR((k)[r_ + 5]); \
		ILT; SBID(SI4); KXR((k)[r_ + 4]); ILT; SBID(SI3); KXR((k)[r_ + 3]); \
		ILT; SBID(SI2); KXR((k)[r_ + 2]); ILT; SBID(SI1); KXR((k)[r_ + 1]); \
		ILT; SBID(SI0); KXR((k)[r_]); \
		if (r_ == 0) \
			break; \
		ILT; SBID(SI7); KXR((k)[r_ - 1]); \
	} \
} while (0)
_Static_assert(FB_SERPENT_SI0_L2D_FLIP == FB_SERPENT_SI0_L2_FLIP && FB_SERPENT_SI1_L2D_FLIP == FB_SERPENT_SI1_L2_FLIP &&
		       FB_SERPENT_SI2_L2D_FLIP == FB_SERPENT_SI2_L2_FLIP && FB_SERPENT_SI3_L2D_FLIP == FB_SERPENT_SI3_L2_FLIP &&
		       FB_SERPENT_SI4_L2D_FLIP == FB_SERPENT_SI4_L2_FLIP && FB_SERPENT_SI5_L2D_FLIP == FB_SERPENT_SI5_L2_FLIP &&
		       FB_SERPENT_SI6_L2D_FLIP == FB_SERPENT_SI6_L2_FLIP && FB_SERPENT_SI7_L2D_FLIP == FB_SERPENT_SI7_L2_FLIP,
	       "kd undoes the complements of both inverse circuit families");

extern const fb_kernel fb_serpent_bitslice, fb_serpent_bitslice_exact;
#if FB_X86
extern const fb_kernel fb_serpent_avx2, fb_serpent_avx512, fb_serpent_bitslice_bmi2, fb_serpent_bs_avx2,
	fb_serpent_bs_avx2_km;
#endif

#endif
