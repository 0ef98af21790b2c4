/* des/table: the portable DES/3DES kernel (see des_table.c). */
#ifndef FB_DES_TABLE_H
#define FB_DES_TABLE_H
#include "../internal.h"
#include "des_tables.h" /* DES_IP, DES_FP */

extern const fb_kernel fb_des_table, fb_des_table_bmi2;
/* des/table's steps (ECB, and the kernel contract's fused ctr32, cbc_dec
 * and cfb_dec); _bmi: des/table-bmi2's, the round's indices by BEXTR (x86,
 * for CPUs with FB_CPU_BMI2). */
#define DES_TABLE_STEP_DECLS(suffix)                                                                       \
	void fb_des_table_encrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n);        \
	void fb_des_table_decrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n);        \
	void fb_des_table_ctr32##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr); \
	void fb_des_table_cbc_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv); \
	void fb_des_table_cfb_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv);
DES_TABLE_STEP_DECLS()
DES_TABLE_STEP_DECLS(_bmi)
/* Their lane engines: up to four streams side by side (fb_multi_crypt). */
extern const fb_lanes fb_des_table_lanes, fb_des_table_lanes_bmi;

/* The round keys of one DES key in des/table's form: 16 pairs (KX, KY). */
void fb_des_table_schedule(uint32_t rk[32], const uint8_t key[8]);

/* des/table's key schedule, shared by the variants with the same round
 * keys (des/table12): DES or EDE, setkey by fb_des_table_setkey. */
typedef struct {
	uint32_t rk[3][32]; /* per DES key: 16 rounds x (KX, KY) */
	unsigned nkeys;     /* 1 (DES) or 3 (EDE) */
} fb_des_table_ks;

int fb_des_table_setkey(void *ks, const uint8_t *key, size_t keylen);

/* IP, then both halves rotated right by 3 (des/table's round form). */
static inline void fb_des_block_in(const uint8_t *in, uint32_t *l, uint32_t *r)
{
	uint32_t t, a = fb_load32_be(in), b = fb_load32_be(in + 4);
	DES_IP(a, b);
	*l = fb_rotr32(a, 3);
	*r = fb_rotr32(b, 3);
}

/* Writes the pre-output R16||L16 through FP. */
static inline void fb_des_block_out(uint8_t *out, uint32_t l, uint32_t r)
{
	uint32_t t, a = fb_rotl32(r, 3), b = fb_rotl32(l, 3);
	DES_FP(a, b);
	fb_store32_be(out, a);
	fb_store32_be(out + 4, b);
}

/* l ^ a ^ b ^ c ^ d, where a..d are a round's looked-up terms: a balanced
 * tree (with l at its bottom) keeps three XORs after the last load. */
static inline __attribute__((always_inline)) uint32_t fb_des_xor_tree(uint32_t l, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	FB_KEEP(a);
	FB_KEEP(b);
	FB_KEEP(c);
	FB_KEEP(d);
	a ^= l;
	b ^= c;
	FB_KEEP(a);
	FB_KEEP(b);
	return (a ^ b) ^ d;
}

/* A round l ^ f(r) with round key pair k[0..1]. */
typedef uint32_t fb_des_round_fn(uint32_t l, uint32_t r, const uint32_t *k);

/* 16 rounds, forwards (fwd = 1) or backwards through the round keys; on
 * return a holds L16 and b holds R16 (no final swap). Always inlined, so
 * the round is a constant and is inlined too. */
static inline __attribute__((always_inline)) void fb_des_table_rounds(uint32_t *a, uint32_t *b,
								      const uint32_t *k, int fwd,
								      fb_des_round_fn *round)
{
#pragma GCC unroll 8
	for (int i = 0; i < 32; i += 4) {
		int j = fwd ? i : 30 - i, d = fwd ? 2 : -2;
		*a = round(*a, *b, k + j);
		*b = round(*b, *a, k + j + d);
	}
}

/* One block through DES or EDE (the three passes between one IP and one
 * FP); encrypt (enc = 1) or decrypt. */
static inline __attribute__((always_inline)) void fb_des_table_block(const fb_des_table_ks *ks,
								     uint8_t *out, const uint8_t *in,
								     int enc, fb_des_round_fn *round)
{
	uint32_t l, r;
	fb_des_block_in(in, &l, &r);
	if (ks->nkeys == 1) {
		fb_des_table_rounds(&l, &r, ks->rk[0], enc, round);
	} else {
		fb_des_table_rounds(&l, &r, ks->rk[enc ? 0 : 2], enc, round);
		fb_des_table_rounds(&r, &l, ks->rk[1], !enc, round);
		fb_des_table_rounds(&l, &r, ks->rk[enc ? 2 : 0], enc, round);
	}
	fb_des_block_out(out, l, r);
}

#endif
