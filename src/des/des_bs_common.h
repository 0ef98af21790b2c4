/*
 * Shared pieces of the bitsliced DES/3DES kernels (des_bs_keys.c,
 * des_bs_avx512.c, des_bs_avx2.c) and the multi-stream API (des_multi.c).
 *
 * Bitslicing: plane j of a batch holds state bit j of every block in the
 * batch, one block per bit lane, so E, P, IP and FP are free (they only
 * rename planes) and an S-box is a Boolean circuit run on whole registers
 * (see des_bs_sboxes.h). No table is indexed by key or data: the kernels
 * are constant-time.
 */
#ifndef FB_DES_BS_COMMON_H
#define FB_DES_BS_COMMON_H
#include "../internal.h"

/* Key schedule of the single-key kernels: every round-key bit as a 32-bit
 * word of all zeros or all ones, which the kernels XOR in with an embedded
 * broadcast. Decryption walks the 16 rounds of a key backwards. */
typedef struct des_bs_ks {
	uint32_t rk[3][16 * 48];
	uint64_t vk[3][16]; /* des/vperm-avx512's round keys (T layout, see des_vperm_avx512.c) */
	uint32_t nkeys;     /* 1 (DES) or 3 (EDE) */
	uint32_t use_table; /* the "+table" kernels: short runs go to des/table */
	_Alignas(64) unsigned char table_ks[1024];
} des_bs_ks;

/* Constant-time key setup for the bitsliced kernels. */
int fb_des_bs_setkey(void *ks, const uint8_t *key, size_t keylen);
/* The same plus des/table's schedule for short runs (not constant-time). */
int fb_des_bs_setkey_table(void *ks, const uint8_t *key, size_t keylen);

/* The same, sixteen words at a time (AVX-512 BW/VBMI; des_vperm_avx512.c). */
int fb_des_bs512_setkey(void *ks, const uint8_t *key, size_t keylen);
int fb_des_bs512_setkey_table(void *ks, const uint8_t *key, size_t keylen);

/* des/vperm-avx512's 16 round keys (T layout) of one 8-byte key. */
void fb_des_bs_vperm_keys(uint64_t vk[16], const uint8_t key[8]);

extern const fb_kernel fb_des_bs_avx512, fb_des_bs_avx512_table;
extern const fb_kernel fb_des_bs_avx2, fb_des_bs_avx2_table;
extern const fb_kernel fb_des_vperm_avx512;

/* des/vperm-avx512's paths, which des/bs-avx512 also uses for short runs
 * (constant-time). n any; CBC updates iv, CTR advances ctr. */
void fb_des_vperm_ecb(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec);
void fb_des_vperm_ctr(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr);
void fb_des_vperm_cbc_dec(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv);

/* ---- multi-stream engines (des_multi.c): every lane its own key ------------ */

/* des/vperm-avx512: DES_VP_LANES lanes of one block each. lk holds the
 * round keys (fb_des_bs_vperm_keys) as lk[pass][round][lane], pass 0..2
 * (only 0 for DES): lk[(16 * pass + round) * DES_VP_LANES + lane]. x and y
 * hold one 8-byte block per lane; lanes from nl up to the next multiple of 8
 * are computed too (and ignored). */
#define DES_VP_GROUPS 3
#define DES_VP_LANES (8 * DES_VP_GROUPS)
void fb_des_vperm_lanes(const uint64_t *lk, unsigned nkeys, uint8_t *y, const uint8_t *x, size_t nl, int dec);

/* des/bs-avx512: up to 512 lanes. fb_des_bs512_lane_keys transposes the
 * keys kbuf (24 bytes per lane: K1 K2 K3) into key planes kp (nkeys * 4 KB,
 * 64-byte aligned). fb_des_bs512_multi_steps runs nsteps block steps of
 * mode (FB_CBC, FB_CFB, FB_OFB): in and out hold one row of 512 blocks per
 * step (lane l at 8 l), prev the row before the first (CBC and CFB
 * decryption chain from it), and the 4 KB of planes at state the chaining
 * value of CBC/CFB encryption and OFB between calls (fb_des_bs512_load sets
 * them from a row of IVs). */
#define DES_BS512_LANE_KEYS_SIZE (3 * 64 * 64)
#define DES_BS512_STATE_SIZE (64 * 64)
void fb_des_bs512_lane_keys(void *kp, const uint8_t *kbuf, size_t nl, unsigned nkeys);
void fb_des_bs512_load(void *state, const uint8_t *blocks, size_t nl);
void fb_des_bs512_multi_steps(const void *kp, unsigned nkeys, int mode, int enc, void *state,
			      const uint8_t *prev, const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl);

#endif
