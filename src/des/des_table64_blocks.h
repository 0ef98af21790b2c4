/*
 * The code of des/table64 (des_table64.c), des/table64-shift (the same
 * file) and des/table64-bmi2 (des_table64_bmi2.c, compiled for BMI2 with
 * DES_TABLE64_PEXT): the expanded form, its rounds and the modes' chains.
 * Each includer makes its entry points with DES_TABLE64_ENTRIES.
 */
#ifndef FB_DES_TABLE64_BLOCKS_H
#define FB_DES_TABLE64_BLOCKS_H
#include "des_table.h"
#include "des_keys.h"
#include "des_tables.h"
#if DES_TABLE64_PEXT
#include <immintrin.h>
#endif
/* The includer's target attribute for every function here (none for
 * des_table64.c): GCC and clang inline the BMI2 forms only into
 * functions built for BMI2. */
#ifndef T64_TGT
#define T64_TGT
#endif

typedef struct {
	uint64_t rk[3][16]; /* per DES key: 16 round keys in the byte layout */
	unsigned nkeys;
} des_table64_ks;

T64_TGT static void schedule64(uint64_t rk[16], const uint8_t key[8])
{
	/* des/table's (KX, KY) hold the fields of S-boxes 7,5,3,1 and 8,6,4,2 in
	 * bytes 0..3; move each to byte j-1 of the expanded layout. */
	static const uint8_t from_x[4] = { 7, 5, 3, 1 }, from_y[4] = { 8, 6, 4, 2 };
	uint32_t kxy[32];
	fb_des_table_schedule(kxy, key);
	for (int r = 0; r < 16; r++) {
		uint64_t k = 0;
		for (int m = 0; m < 4; m++) {
			k |= (uint64_t)((kxy[2 * r] >> (8 * m)) & 63) << (8 * (from_x[m] - 1));
			k |= (uint64_t)((kxy[2 * r + 1] >> (8 * m)) & 63) << (8 * (from_y[m] - 1));
		}
		rk[r] = k;
	}
	fb_wipe(kxy, sizeof kxy);
}

T64_TGT static int des_table64_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	des_table64_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	FB_DES_SCHEDULES(schedule64, ks->rk, key, keylen);
	return FB_OK;
}

#if DES_TABLE64_PEXT
/* expand and compress by PDEP/PEXT. In the byte-reversed E-form (one
 * BSWAP from this one) the four odd windows of E (S-boxes 7, 5, 3, 1 at
 * bits 3, 11, 19, 27 of the half, S1's wrapping to bit 0) and the four
 * even ones (8, 6, 4, 2 at 0, 8, 16, 24 of the half rotated left one bit)
 * lie in the order of their bytes, and the bytes' middle four bits are
 * the half's nibbles in order: a block's entry and exit take ~20
 * operations instead of ~130. */
T64_TGT static inline uint64_t expand(uint32_t w)
{
	uint64_t ww = (uint64_t)w | (uint64_t)w << 32;
	uint64_t r = (uint32_t)(w << 1 | w >> 31);
	uint64_t odd = _pdep_u64(_pext_u64(ww, 0x1F9F9F9F8ull), 0x3F003F003F003F00ull);
	uint64_t even = _pdep_u64(_pext_u64(r, 0x3F3F3F3Full), 0x003F003F003F003Full);
	return __builtin_bswap64(odd | even);
}

T64_TGT static inline uint32_t compress(uint64_t e)
{
	return (uint32_t)_pext_u64(__builtin_bswap64(e), 0x1E1E1E1E1E1E1E1Eull);
}
#else
T64_TGT static inline uint64_t expand(uint32_t w)
{
	uint64_t e = 0;
	for (int j = 1; j <= 8; j++)
		e |= (uint64_t)(fb_rotr32(w, (unsigned)(31 - 4 * j) & 31) & 63) << (8 * (j - 1));
	return e;
}

T64_TGT static inline uint32_t compress(uint64_t e)
{
	uint32_t w = 0;
	for (int j = 1; j <= 8; j++)
		w |= (uint32_t)((e >> (8 * (j - 1) + 1)) & 15) << (32 - 4 * j);
	return w;
}
#endif

/* f64 with every index by a shift (fb_byte_index): seven shifts a round
 * where f64 takes four, and no high byte register (des/table64-shift). */
T64_TGT static inline uint64_t f64_shift(uint64_t x, uint64_t lk)
{
	FB_KEEP(lk);
	uint64_t a = des_sp64[0][fb_byte_index(x, 0)] ^ des_sp64[1][fb_byte_index(x, 1)];
	uint64_t b = des_sp64[2][fb_byte_index(x, 2)] ^ des_sp64[3][fb_byte_index(x, 3)];
	uint64_t c = des_sp64[4][fb_byte_index(x, 4)] ^ des_sp64[5][fb_byte_index(x, 5)];
	uint64_t d = des_sp64[6][fb_byte_index(x, 6)] ^ des_sp64[7][(x >> 56)];
	a ^= lk;
	FB_KEEP(a); FB_KEEP(b); FB_KEEP(c); FB_KEEP(d);
	a ^= b;
	c ^= d;
	FB_KEEP(a); FB_KEEP(c);
	return a ^ c;
}

/* lk ^ f, f = the round function's output (E-form) for x = r ^ k. lk is
 * known early (the other half with the next round key already XORed in):
 * the result is the next round's input, so no key XOR and only a balanced
 * XOR tree sit on the latency chain after the loads. sh (a constant
 * after inlining) picks f64_shift. */
T64_TGT static inline uint64_t f64(uint64_t x, uint64_t lk, const int sh)
{
	if (sh)
		return f64_shift(x, lk);
#if DES_TABLE64_PEXT
	/* bytes 2-6 by BEXTR: every index one instruction from x, the eight
	 * loads issue a cycle earlier (AMD Zen 4: a 3DES-CBC block 1.03x) */
	uint64_t a = des_sp64[0][x & 0xFF] ^ des_sp64[1][fb_byte1_high(x)];
	a ^= lk;
	uint64_t b = des_sp64[2][_bextr_u64(x, 16, 8)] ^ des_sp64[3][_bextr_u64(x, 24, 8)];
	uint64_t c = des_sp64[4][_bextr_u64(x, 32, 8)] ^ des_sp64[5][_bextr_u64(x, 40, 8)];
	uint64_t d = des_sp64[6][_bextr_u64(x, 48, 8)] ^ des_sp64[7][x >> 56];
#else
	/* bytes 1, 3, 5 as the high byte of x, x >> 16, x >> 32: four shifts,
	 * not seven (shifts have only two ports on AMD Zen); byte 7 by its own
	 * shift, one step shorter than the high byte of x >> 48 */
	uint64_t x2 = x >> 16, x4 = x >> 32, x6 = x >> 48, x7 = x >> 56;
	FB_KEEP(lk);
	FB_KEEP(x2); FB_KEEP(x4); FB_KEEP(x6); FB_KEEP(x7);
	uint64_t a = des_sp64[0][x & 0xFF] ^ des_sp64[1][fb_byte1_high(x)];
	a ^= lk; /* the first two loads need no shift: lk joins them early */
	uint64_t b = des_sp64[2][x2 & 0xFF] ^ des_sp64[3][fb_byte1_high(x2)];
	uint64_t c = des_sp64[4][x4 & 0xFF] ^ des_sp64[5][fb_byte1_high(x4)];
	uint64_t d = des_sp64[6][x6 & 0xFF] ^ des_sp64[7][x7];
#endif
	FB_KEEP(a); FB_KEEP(b); FB_KEEP(c); FB_KEEP(d);
	a ^= b;
	c ^= d;
	FB_KEEP(a); FB_KEEP(c);
	return a ^ c;
}

/* A block -> E-form halves after IP, and back (FP(R16 L16)). */
T64_TGT static inline void enter64(const uint8_t *in, uint64_t *l, uint64_t *r)
{
	uint32_t l32 = fb_load32_be(in), r32 = fb_load32_be(in + 4), t;
	DES_IP(l32, r32);
	*l = expand(l32);
	*r = expand(r32);
}

T64_TGT static inline void leave64(uint8_t *out, uint64_t l, uint64_t r)
{
	uint32_t a = compress(r), b = compress(l), t;
	DES_FP(a, b);
	fb_store32_be(out, a);
	fb_store32_be(out + 4, b);
}

/* Work beside a block's rounds (des_table64_cbc_enc): the next block's
 * entry after round SIDE_IN and the previous block's exit after round
 * SIDE_OUT. Where exactly matters little (Zen 5: 134-138 TSC ticks a
 * DES block for any of (1, 7), (2, 12), (3, 6), (5, 11)), as long as it
 * is inside the rounds; see des_table64_cbc_enc. */
enum { SIDE_IN = 4, SIDE_OUT = 10 };

typedef struct {
	const uint8_t *next_in; /* NULL: no next block */
	uint64_t nl, nr;
	uint8_t *prev_out;      /* NULL: no previous block */
	uint64_t pl, pr;
} side64;

/* 16 rounds forwards or backwards through the key; a ends as L16, b as R16.
 * x carries R ^ (this round's key) from round to round. */
T64_TGT static inline __attribute__((always_inline)) void rounds64(uint64_t *a, uint64_t *b,
							    const uint64_t *k, int fwd, side64 *side, const int sh)
{
	uint64_t l = *a, r = *b;
	int j = fwd ? 0 : 15, d = fwd ? 1 : -1;
	uint64_t x = r ^ k[j];
#pragma GCC unroll 15
	for (int i = 0; i < 15; i++, j += d) {
		uint64_t kn = k[j + d], xn = f64(x, l ^ kn, sh);
		l = r;
		r = xn ^ kn;
		x = xn;
		if (side && i == SIDE_IN && side->next_in)
			enter64(side->next_in, &side->nl, &side->nr);
		if (side && i == SIDE_OUT && side->prev_out)
			leave64(side->prev_out, side->pl, side->pr);
	}
	*a = r;
	*b = f64(x, l, sh);
}

/* The three passes (or one) on E-form halves after IP; side work goes
 * beside the first. */
T64_TGT static inline __attribute__((always_inline)) void passes64(const des_table64_ks *ks, uint64_t *l, uint64_t *r,
							    int enc, side64 *side, const int sh)
{
	if (ks->nkeys == 1) {
		rounds64(l, r, ks->rk[0], enc, side, sh);
	} else {
		rounds64(l, r, ks->rk[enc ? 0 : 2], enc, side, sh);
		rounds64(r, l, ks->rk[1], !enc, NULL, sh);
		rounds64(l, r, ks->rk[enc ? 2 : 0], enc, NULL, sh);
	}
}

T64_TGT static inline __attribute__((always_inline)) void crypt64(const des_table64_ks *ks, uint8_t *out,
							   const uint8_t *in, int enc, const int sh)
{
	uint64_t l, r;
	enter64(in, &l, &r);
	passes64(ks, &l, &r, enc, NULL, sh);
	leave64(out, l, r);
}

/* The serial chains without IP, FP, expansion or compression on them.
 * IP and E are linear, so IP(P ^ C) = IP(P) ^ IP(C), and IP of a block's
 * output is its (R16, L16), already in E-form:
 *  - CBC: block i runs on IP(P_i) ^ IP(C_i-1), and its output is C_i;
 *  - CFB: block i runs on IP(C_i-1), and IP(C_i) = its output ^ IP(P_i);
 *  - OFB: block i runs on block i-1's output, and IP(out_i) = that ^ IP(P_i).
 * The chain per block is the rounds and (CBC, CFB) one XOR.
 *
 * The loop is software-pipelined: plaintext enters (IP, expansion) and
 * block i-1 leaves (compression, FP, store) inside block i's rounds; CBC
 * enters P_i+1 there, the others P_i. A block's rounds are ~430 uops that
 * wait on the chain, more than the schedulers hold, so uops after them in
 * program order are not seen until the rounds drain. Entering and leaving
 * between the blocks put their own chains (~40 TSC ticks on Zen 5) between
 * one block's rounds and the next; inside the rounds they fill issue slots
 * the chain leaves idle, and a block costs its 16 rounds alone. */
enum { CHAIN_CBC, CHAIN_CFB, CHAIN_OFB };

T64_TGT static inline __attribute__((always_inline)) void chain_enc64(const void *ksp, uint8_t *out, const uint8_t *in,
							       size_t n, uint8_t *iv, const int sh, const int mode)
{
	const des_table64_ks *ks = ksp;
	const int ahead = mode == CHAIN_CBC; /* P_i enters before block i */
	uint64_t cl, cr, outl = 0, outr = 0; /* the chain; the last output */
	side64 side = { in, 0, 0, NULL, 0, 0 };
	if (!n)
		return;
	enter64(iv, &cl, &cr);
	if (ahead)
		enter64(in, &side.nl, &side.nr);
	for (size_t i = 0; i < n; i++) {
		uint64_t l = cl, r = cr;
		if (ahead)
			l ^= side.nl, r ^= side.nr;
		side.next_in = i + ahead < n ? in + 8 * (i + ahead) : NULL;
		side.prev_out = i ? out + 8 * (i - 1) : NULL;
		side.pl = outr, side.pr = outl;
		passes64(ks, &l, &r, 1, &side, sh);
		outl = r, outr = l; /* IP(output) = (R16, L16) */
		if (!ahead)
			outl ^= side.nl, outr ^= side.nr;
		if (mode == CHAIN_OFB)
			cl = r, cr = l;
		else
			cl = outl, cr = outr;
	}
	leave64(out + 8 * (n - 1), outr, outl);
	if (mode == CHAIN_OFB)
		leave64(iv, cr, cl);
	else
		memcpy(iv, out + 8 * (n - 1), 8);
}

/* CFB8 encryption with the shift register kept after IP. IP sends bit m
 * of input byte j to bit m' of every output byte at one position per j, so
 * shifting the register a byte (drop byte 0, append c) shifts every byte
 * of IP(register) right one bit and puts c's bits at the byte tops:
 * IP(R << 8 | c) = (IP(R) >> 1 & 0x7f..7f) | spread(c). Only byte 0 of
 * the output is used, which is eight bits of the final E-form halves.
 * The chain per byte is then the rounds, a few shifts and one multiply,
 * against FP, a store and reload, and IP (3DES ~506 TSC ticks a byte
 * through the one-block call on Zen 4). */

/* Bit 7 of byte j of the IP word (L << 32 | R) for c: c's bit 2j+1 for
 * j < 4, bit 2(j-4) above. Each byte keeps its own bit of c (the mask),
 * and adding 0x80 minus that bit carries it to the byte's top, never
 * beyond the byte. */
#define CFB8_SEL 0x4010040180200802ull
#define CFB8_ADD 0x40707c7f0060787eull
T64_TGT static inline uint64_t cfb8_spread(uint8_t c)
{
	uint64_t t = (c * 0x0101010101010101ull) & CFB8_SEL;
	return (t + CFB8_ADD) & 0x8080808080808080ull;
}

/* Byte 0 of leave64(l, r): its bits 2i and 2i+1 are one bit of r's and
 * of l's E-form, at 5, 41, 25, 9 for i = 0..3. */
T64_TGT static inline uint8_t cfb8_first_byte(uint64_t l, uint64_t r)
{
	const uint64_t at = 1ull << 5 | 1ull << 41 | 1ull << 25 | 1ull << 9;
	uint64_t m = (r & at) | (l & at) << 1;
	return (uint8_t)((m >> 5 & 0x03) | (m >> 39 & 0x0c) | (m >> 21 & 0x30) | (m >> 3 & 0xc0));
}

T64_TGT static inline __attribute__((always_inline)) void cfb8_enc64(const void *ksp, uint8_t *out, const uint8_t *in,
							      size_t len, uint8_t *iv, const int sh)
{
	const des_table64_ks *ks = ksp;
	uint32_t hl = fb_load32_be(iv), hr = fb_load32_be(iv + 4), t;
	DES_IP(hl, hr);
	uint64_t w = (uint64_t)hl << 32 | hr;
	for (size_t i = 0; i < len; i++) {
		uint64_t l = expand((uint32_t)(w >> 32)), r = expand((uint32_t)w);
		passes64(ks, &l, &r, 1, NULL, sh);
		uint8_t c = (uint8_t)(in[i] ^ cfb8_first_byte(l, r));
		out[i] = c;
		w = (w >> 1 & 0x7f7f7f7f7f7f7f7full) | cfb8_spread(c);
	}
	hl = (uint32_t)(w >> 32);
	hr = (uint32_t)w;
	DES_FP(hl, hr);
	fb_store32_be(iv, hl);
	fb_store32_be(iv + 4, hr);
}

/* A kernel's entry points, suffix sfx, sh picking f64_shift. */
#define DES_TABLE64_ENTRIES(sfx, sh) \
	T64_TGT static void des_table64_cbc_enc##sfx(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		chain_enc64(ksp, out, in, n, iv, sh, CHAIN_CBC); \
	} \
	T64_TGT static void des_table64_cfb_enc##sfx(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		chain_enc64(ksp, out, in, n, iv, sh, CHAIN_CFB); \
	} \
	T64_TGT static void des_table64_ofb##sfx(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		chain_enc64(ksp, out, in, n, iv, sh, CHAIN_OFB); \
	} \
	T64_TGT static void des_table64_cfb8_enc##sfx(const void *ksp, uint8_t *out, const uint8_t *in, size_t len, \
					      uint8_t *iv) \
	{ \
		cfb8_enc64(ksp, out, in, len, iv, sh); \
	} \
	T64_TGT static void des_table64_encrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		for (size_t i = 0; i < n; i++) \
			crypt64(ks, out + 8 * i, in + 8 * i, 1, sh); \
	} \
	T64_TGT static void des_table64_decrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		for (size_t i = 0; i < n; i++) \
			crypt64(ks, out + 8 * i, in + 8 * i, 0, sh); \
	}

#endif
