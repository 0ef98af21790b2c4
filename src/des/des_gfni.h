/*
 * des/gfni-avx512 (des_gfni_avx512.c): DES/Triple-DES with vpermb S-boxes
 * and GF(2) affine E/P, 8 blocks per zmm; constant-time. Its paths are
 * shared with des/bs-avx512 (short runs) and fb_multi_crypt (few streams).
 */
#ifndef FB_DES_GFNI_H
#define FB_DES_GFNI_H
#include "../internal.h"

/* zmm groups interleaved to cover the round latency (~14 cycles against
 * 8 cycles of port-5 work per group) */
#define DES_GF_GROUPS 4
#define DES_GF_LANES (8 * DES_GF_GROUPS)

/* Round keys in row form (gen/des_gfni_tables.py), 16 per DES key; EDE
 * keeps K1 K2 K3 (K3 = K1 for two keys). */
typedef struct des_gfni_ks {
	uint64_t k[3][16];
	uint32_t nkeys; /* 1 (DES) or 3 (EDE) */
} des_gfni_ks;

extern const fb_kernel fb_des_gfni_avx512;

/* The 16 round keys of one 8-byte key. */
void fb_des_gfni_keys(uint64_t rk[16], const uint8_t key[8]);
/* des_bs_ks.rk's 768 round-key words of one 8-byte key (BITALG). */
void fb_des_bs_words_gfni(uint32_t rk[16 * 48], const uint8_t key[8]);

/* n blocks, any n; CBC updates iv, CTR advances ctr. */
void fb_des_gfni_ecb(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec);
void fb_des_gfni_ctr(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr);
void fb_des_gfni_cbc_dec(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv);

/* Multi-stream engine: up to DES_GF_LANES lanes of one block each, every
 * lane its own key. lk[(16 * pass + round) * DES_GF_LANES + lane] holds
 * round keys (fb_des_gfni_keys), pass 0..2 (only 0 for DES); x and y hold
 * one 8-byte block per lane; lanes from nl up to the next multiple of 8 are
 * computed too (and ignored). */
void fb_des_gfni_lanes(const uint64_t *lk, unsigned nkeys, uint8_t *y, const uint8_t *x, size_t nl, int dec);

#endif
