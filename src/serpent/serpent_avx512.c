/*
 * serpent/avx512: bitsliced Serpent on AVX-512, 16 blocks per group of four
 * zmm registers (register j holds word j of 16 blocks), up to four groups
 * interleaved (64 blocks, 1 KB) so that the groups' dependency chains
 * overlap: on Zen 5, ECB encryption of 8 KB costs 19 TSC ticks a block on
 * two groups, 14.5 on three, 12.1 on four.
 *
 * Each S-box is a circuit of 7 or 8 vpternlogd (gen/serpent_tables.py), the
 * linear transformation is 6 vprold, 2 vpslld and 4 three-way XORs (one
 * vpternlogd each), the round key 4 vpxord with an embedded broadcast:
 * about 24 vector instructions per round for 16 blocks, ~1.5 instructions
 * per byte over 32 rounds.  Register budget: four groups are 16 state
 * registers of 32 zmm, and the S-box temporaries fit beside them: no spills.
 *
 * Partial groups (tails) use masked loads and stores, so a call handles any
 * count; runs of 2-8 blocks (ECB, CBC decryption, XTS) take one group of 8
 * on ymm registers, and a single block the xmm path.
 * No table lookups, no secret-dependent branches: constant-time.
 */
#include "serpent.h"
#include "../block128_simd.h"
#include "../xts_avx512.h"

#if FB_X86
#include <immintrin.h>

#define T512 FB_TARGET("avx512f,avx512vl")
#define INL static inline __attribute__((always_inline)) T512

typedef __m512i V;

#define TERN(a, b, c, imm) _mm512_ternarylogic_epi32((a), (b), (c), (imm))
#define XOR3(a, b, c) TERN((a), (b), (c), 0x96)
#define ROL(x, n) _mm512_rol_epi32((x), (n))
#define SHL(x, n) _mm512_slli_epi32((x), (n))
#define KEY(k, j) _mm512_set1_epi32((int)(k)[j])

/* One group: words x0..x3 */
#define KX(k, x0, x1, x2, x3) do { \
	x0 = _mm512_xor_si512(x0, KEY(k, 0)); x1 = _mm512_xor_si512(x1, KEY(k, 1)); \
	x2 = _mm512_xor_si512(x2, KEY(k, 2)); x3 = _mm512_xor_si512(x3, KEY(k, 3)); \
} while (0)

#define SB(S, x0, x1, x2, x3) FB_SERPENT_##S##_T3(V, TERN, x0, x1, x2, x3)
#define LT1(_, x0, x1, x2, x3) FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define ILT1(_, x0, x1, x2, x3) FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3)

#define KXZ(k) KX(k, a0, a1, a2, a3)
#define SBZ(S) FB_SERPENT_##S##_D2(V, TERN, a0, a1, a2, a3)

/* The 32 rounds of 2 to 4 groups with the exact keys k (serpent.h); the
 * cores take the bitsliced state in s[] (4 words per group). Kept out of
 * line: every mode shares them. */
FB_SERPENT_ENC_GROUPS(enc_2x16, 2, T512)
FB_SERPENT_ENC_GROUPS(enc_3x16, 3, T512)
FB_SERPENT_ENC_GROUPS(enc_4x16, 4, T512)
FB_SERPENT_DEC_GROUPS(dec_2x16, 2, T512)
FB_SERPENT_DEC_GROUPS(dec_3x16, 3, T512)
FB_SERPENT_DEC_GROUPS(dec_4x16, 4, T512)

/* One group, latency-bound: depth-two S-boxes, keys folded into the LT. */
#define XOR2(a, b) _mm512_xor_si512((a), (b))
#define LTKZ(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROL, SHL, XOR2, XOR3, KWZ, a0, a1, a2, a3); \
} while (0)
#define KWZ(j) _mm512_set1_epi32((int)kw_[j])

/*
 * One group's rounds at any width: enc and dec over the state s[0..3] of
 * type T, with the width's steps KX<sfx>(k), SB<sfx>(S), LTK<sfx>(kl[r])
 * and ILT<sfx> (on a0..a3).
 */
#define ONE_GROUP(enc, dec, T, TGT, SFX, ATTR) \
ATTR TGT void enc(const serpent_ks_exact *ks, T *s) \
{ \
	const uint32_t(*kl)[4] = ks->kl; \
	T a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3]; \
	KX##SFX(ks->k[0]); \
	FB_SERPENT_KEYED_ROUNDS(SB##SFX, LTK##SFX, kl); \
	KX##SFX(ks->k[32]); \
	s[0] = a0; s[1] = a1; s[2] = a2; s[3] = a3; \
} \
ATTR TGT void dec(const uint32_t (*k)[4], T *s) \
{ \
	T a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3]; \
	KX##SFX(k[32]); \
	FB_SERPENT_SHALLOW_DEC_ROUNDS(SB##SFX, KX##SFX, ILT##SFX, k); \
	s[0] = a0; s[1] = a1; s[2] = a2; s[3] = a3; \
}
#define ONE_GROUP_OUT_OF_LINE static __attribute__((noinline))
#define ILTZ FB_SERPENT_ILT(ROL, SHL, XOR3, a0, a1, a2, a3)
ONE_GROUP(enc_16, dec_16, V, T512, Z, ONE_GROUP_OUT_OF_LINE)

/*
 * Up to 8 blocks, latency-bound, on ymm registers: the same rounds as
 * enc_16/dec_16 at half the width. On Zen 4 a zmm operation takes two
 * 256-bit pipe slots, so one group of 16 lanes is bound by throughput
 * (about 23 core cycles a round against 12-13 for the chain), and a
 * message of 2-8 blocks runs faster in 8 lanes. Register i holds blocks
 * 2i and 2i+1 (one per 128-bit lane); the 4x4 transposes inside each lane
 * leave word j of all 8 blocks in register j (lane L, element e = block
 * 2e + L).
 */
#define T256 FB_TARGET("avx512f,avx512vl")
typedef __m256i Y;
#define TERNY(a, b, c, imm) _mm256_ternarylogic_epi32((a), (b), (c), (imm))
#define XOR3Y(a, b, c) TERNY((a), (b), (c), 0x96)
#define XOR2Y(a, b) _mm256_xor_si256((a), (b))
#define ROLY(x, n) _mm256_rol_epi32((x), (n))
#define SHLY(x, n) _mm256_slli_epi32((x), (n))
#define KXY(k) do { \
	a0 = XOR2Y(a0, _mm256_set1_epi32((int)(k)[0])); a1 = XOR2Y(a1, _mm256_set1_epi32((int)(k)[1])); \
	a2 = XOR2Y(a2, _mm256_set1_epi32((int)(k)[2])); a3 = XOR2Y(a3, _mm256_set1_epi32((int)(k)[3])); \
} while (0)
#define SBY(S) FB_SERPENT_##S##_D2(Y, TERNY, a0, a1, a2, a3)
#define ILTY FB_SERPENT_ILT(ROLY, SHLY, XOR3Y, a0, a1, a2, a3)
#define KWY(j) _mm256_set1_epi32((int)kw_[j])
#define LTKY(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROLY, SHLY, XOR2Y, XOR3Y, KWY, a0, a1, a2, a3); \
} while (0)

ONE_GROUP(enc_8, dec_8, Y, T256, Y, ONE_GROUP_OUT_OF_LINE)

/*
 * One block, for serial modes: the same circuits on xmm registers (lane 0
 * carries the block), where a round's dependency chain is about 10
 * single-cycle instructions deep (key, 3-4 ternlog levels, LT); the scalar
 * code needs about twice that.  Needs AVX512VL for the xmm forms.
 */
#define T128 FB_TARGET("avx512f,avx512vl")
#define TERNX(a, b, c, imm) _mm_ternarylogic_epi32((a), (b), (c), (imm))
#define XOR3X(a, b, c) TERNX((a), (b), (c), 0x96)
#define ROLX(x, n) _mm_rol_epi32((x), (n))
#define SHLX(x, n) _mm_slli_epi32((x), (n))
#define KXX(k) do { \
	a0 = _mm_xor_si128(a0, _mm_set1_epi32((int)(k)[0])); \
	a1 = _mm_xor_si128(a1, _mm_set1_epi32((int)(k)[1])); \
	a2 = _mm_xor_si128(a2, _mm_set1_epi32((int)(k)[2])); \
	a3 = _mm_xor_si128(a3, _mm_set1_epi32((int)(k)[3])); \
} while (0)
#define SBX(S) FB_SERPENT_##S##_D2(__m128i, TERNX, a0, a1, a2, a3)
#define ILTX FB_SERPENT_ILT(ROLX, SHLX, XOR3X, a0, a1, a2, a3)

#define XOR2X(a, b) _mm_xor_si128((a), (b))
#define KWX(j) _mm_set1_epi32((int)kw_[j])
#define LTKX(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROLX, SHLX, XOR2X, XOR3X, KWX, a0, a1, a2, a3); \
} while (0)

ONE_GROUP(enc_x, dec_x, __m128i, T128, X, static inline __attribute__((always_inline)))

/* lane 0 of a0..a3 carries the block */
INL void load_x(__m128i *s, const uint8_t *in)
{
	for (int j = 0; j < 4; j++)
		s[j] = _mm_cvtsi32_si128((int)fb_load32_le(in + 4 * j));
}

INL void store_x(uint8_t *out, const __m128i *s)
{
	for (int j = 0; j < 4; j++)
		fb_store32_le(out + 4 * j, (uint32_t)_mm_cvtsi128_si32(s[j]));
}

static __attribute__((noinline)) T128 void enc_1(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in)
{
	__m128i s[4];
	load_x(s, in);
	enc_x(ks, s);
	store_x(out, s);
}

static __attribute__((noinline)) T128 void dec_1(const uint32_t (*k)[4], uint8_t *out, const uint8_t *in)
{
	__m128i s[4];
	load_x(s, in);
	dec_x(k, s);
	store_x(out, s);
}

/*
 * 16 blocks <-> bitsliced: register i holds blocks 4i..4i+3, one per 128-bit
 * lane; a 4x4 transpose of 32-bit words inside each lane leaves word j of
 * all 16 blocks in register j (lane L, element e = block 4e + L).  The
 * transpose is its own inverse.
 */
INL void transpose(V *x)
{
	FB_TRANSPOSE4_IN_LANES(V, _mm512, x[0], x[1], x[2], x[3]);
}

/* Word mask of register i (blocks 4i..4i+3) when n blocks are present. */
INL __mmask16 reg_mask(size_t n, unsigned i)
{
	size_t words = 4 * n, lo = 16 * (size_t)i;
	if (words <= lo)
		return 0;
	return words - lo >= 16 ? 0xffff : (__mmask16)((1u << (words - lo)) - 1);
}

/* Load n <= 16 blocks into x[0..3] (zero-filled), bitsliced. */
INL void load16(V *x, const uint8_t *in, size_t n)
{
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		x[i] = m ? _mm512_maskz_loadu_epi32(m, in + 64 * i) : _mm512_setzero_si512();
	}
	transpose(x);
}

/* Store n <= 16 blocks from bitsliced x[0..3] (x is clobbered). */
INL void store16(uint8_t *out, V *x, size_t n)
{
	transpose(x);
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		if (m)
			_mm512_mask_storeu_epi32(out + 64 * i, m, x[i]);
	}
}

INL void transpose8(Y *x)
{
	FB_TRANSPOSE4_IN_LANES(Y, _mm256, x[0], x[1], x[2], x[3]);
}

/* Word mask of ymm register i (blocks 2i, 2i+1) when n <= 8 blocks are present. */
INL __mmask8 reg_mask8(size_t n, unsigned i)
{
	size_t words = 4 * n, lo = 8 * (size_t)i;
	if (words <= lo)
		return 0;
	return words - lo >= 8 ? 0xff : (__mmask8)((1u << (words - lo)) - 1);
}

/* Load n <= 8 blocks into ymm x[0..3] (zero-filled), XORed with xo[0..3]
 * if given, bitsliced. */
INL void load8(Y *x, const uint8_t *in, size_t n, const Y *xo)
{
	for (unsigned i = 0; i < 4; i++) {
		x[i] = _mm256_maskz_loadu_epi32(reg_mask8(n, i), in + 32 * i);
		if (xo)
			x[i] = _mm256_xor_si256(x[i], xo[i]);
	}
	transpose8(x);
}

/* Store n <= 8 blocks from bitsliced ymm x[0..3] (x is clobbered), XORed
 * with xo[0..3] if given. */
INL void store8(uint8_t *out, Y *x, size_t n, const Y *xo)
{
	transpose8(x);
	for (unsigned i = 0; i < 4; i++) {
		__mmask8 m = reg_mask8(n, i);
		if (m)
			_mm256_mask_storeu_epi32(out + 32 * i, m, xo ? _mm256_xor_si256(x[i], xo[i]) : x[i]);
	}
}

/* Blocks a step takes at most (four groups), the groups of 16 that m of
 * them fill, and the blocks of group i (m > 16i). */
#define STEP_MAX 64
static inline size_t groups_of(size_t m)
{
	return (m + 15) / 16;
}

static inline size_t in_group(size_t m, size_t i)
{
	return m - 16 * i < 16 ? m - 16 * i : 16;
}

/* The rounds on g groups: one group, latency-bound, on the depth-two
 * circuits and folded keys; more on the three-input circuits. */
static T512 void enc_groups(const serpent_ks_exact *ks, V *s, size_t g)
{
	switch (g) {
	case 1: enc_16(ks, s); break;
	case 2: enc_2x16(ks->k, s); break;
	case 3: enc_3x16(ks->k, s); break;
	default: enc_4x16(ks->k, s); break;
	}
}

static T512 void dec_groups(const serpent_ks_exact *ks, V *s, size_t g)
{
	switch (g) {
	case 1: dec_16(ks->k, s); break;
	case 2: dec_2x16(ks->k, s); break;
	case 3: dec_3x16(ks->k, s); break;
	default: dec_4x16(ks->k, s); break;
	}
}

/* 2-8 blocks on the ymm path. */
static T512 void ecb8(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	Y s[4];
	load8(s, in, n, NULL);
	if (dec)
		dec_8(ks->k, s);
	else
		enc_8(ks, s);
	store8(out, s, n, NULL);
}

static T512 void ecb(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	V s[4 * (STEP_MAX / 16)];
	while (n > 1) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		if (m <= 8) {
			ecb8(ks, out, in, m, dec);
			return;
		}
		for (size_t i = 0; i < g; i++)
			load16(s + 4 * i, in + 256 * i, in_group(m, i));
		(dec ? dec_groups : enc_groups)(ks, s, g);
		for (size_t i = 0; i < g; i++)
			store16(out + 256 * i, s + 4 * i, in_group(m, i));
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	if (n == 1) {
		if (dec)
			dec_1(ks->k, out, in);
		else
			enc_1(ks, out, in);
	}
}

static T512 void serpent_avx512_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	ecb(ks, out, in, n, 0);
}

static T512 void serpent_avx512_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	ecb(ks, out, in, n, 1);
}

/* Byte swap of each 32-bit lane, without AVX512BW's vpshufb. */
INL V bswap32(V x)
{
	return TERN(_mm512_set1_epi32(0x00ff00ff), ROL(x, 8), ROL(x, 24), 0xca);
}

/*
 * CTR: the 16 counter blocks of a group differ only in word 3 (the last
 * four bytes, a big-endian count), so the bitsliced input is three
 * broadcasts and one vector of byte-swapped counts in the transposed lane
 * order (position 4L + e holds block 4e + L): no input transpose.
 */
INL void ctr_group(V *x, const uint8_t *ctr, uint32_t c)
{
	const V order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	x[0] = _mm512_set1_epi32((int)fb_load32_le(ctr));
	x[1] = _mm512_set1_epi32((int)fb_load32_le(ctr + 4));
	x[2] = _mm512_set1_epi32((int)fb_load32_le(ctr + 8));
	x[3] = bswap32(_mm512_add_epi32(_mm512_set1_epi32((int)c), order));
}

/* out = in ^ keystream for n <= 16 blocks; x is clobbered. */
INL void xor_store16(uint8_t *out, const uint8_t *in, V *x, size_t n)
{
	transpose(x);
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		if (!m)
			continue;
		V d = _mm512_maskz_loadu_epi32(m, in + 64 * i);
		_mm512_mask_storeu_epi32(out + 64 * i, m, _mm512_xor_si512(d, x[i]));
	}
}

static T512 void serpent_avx512_ctr32(const void *ksv, uint8_t *out, const uint8_t *in, size_t n,
				      uint8_t *ctr)
{
	const serpent_ks_exact *ks = ksv;
	uint32_t c = fb_load32_be(ctr + 12);
	V s[4 * (STEP_MAX / 16)];
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < g; i++)
			ctr_group(s + 4 * i, ctr, c + 16 * (uint32_t)i);
		enc_groups(ks, s, g);
		for (size_t i = 0; i < g; i++)
			xor_store16(out + 256 * i, in + 256 * i, s + 4 * i, in_group(m, i));
		c += (uint32_t)m;
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	fb_store32_be(ctr + 12, c);
}

/*
 * CBC decryption of n <= 16 blocks held bitsliced in x: out[i] = D(c[i]) ^
 * c[i-1], with c[-1] = *prev.  The shifted ciphertext comes from registers
 * loaded before any store (valignd joins neighbours), so out == in works.
 * On return *prev holds the last ciphertext block.
 */
INL void cbc_xor_store16(uint8_t *out, const uint8_t *in, V *x, size_t n, __m128i *prev)
{
	V c[4];
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		c[i] = m ? _mm512_maskz_loadu_epi32(m, in + 64 * i) : _mm512_setzero_si512();
	}
	V last = _mm512_broadcast_i32x4(*prev);
	__m128i newprev = _mm_loadu_si128((const __m128i *)(in + 16 * (n - 1)));
	transpose(x);
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		V sh = _mm512_alignr_epi32(c[i], last, 12);
		last = c[i];
		if (m)
			_mm512_mask_storeu_epi32(out + 64 * i, m, _mm512_xor_si512(x[i], sh));
	}
	*prev = newprev;
}

/* CBC (cfb 0) or CFB (cfb 1) decryption of n <= 8 blocks: one on the xmm
 * path, more on ymm. The ciphertext shifted by a block (CBC's XOR, CFB's
 * cipher input) comes from registers loaded before any store, so out ==
 * in works. */
static T512 void chain_dec8(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, __m128i *prev,
			    int cfb)
{
	__m128i next = _mm_loadu_si128((const __m128i *)(in + 16 * (n - 1)));
	if (n == 1) {
		uint8_t x[16];
		__m128i other = next;
		if (cfb) {
			_mm_storeu_si128((__m128i *)x, *prev);
			enc_1(ks, x, x);
		} else {
			dec_1(ks->k, x, in);
			other = *prev;
		}
		_mm_storeu_si128((__m128i *)out, _mm_xor_si128(_mm_loadu_si128((const __m128i *)x), other));
		fb_wipe(x, sizeof x);
	} else {
		Y s[4], c[4], sh[4], last = _mm256_broadcastsi128_si256(*prev);
		for (unsigned i = 0; i < 4; i++) {
			c[i] = _mm256_maskz_loadu_epi32(reg_mask8(n, i), in + 32 * i);
			sh[i] = _mm256_alignr_epi32(c[i], last, 4);
			s[i] = cfb ? sh[i] : c[i];
			last = c[i];
		}
		transpose8(s);
		if (cfb)
			enc_8(ks, s);
		else
			dec_8(ks->k, s);
		store8(out, s, n, cfb ? c : sh);
	}
	*prev = next;
}

/* One step of m > 8 blocks (g groups) of CBC decryption after the block
 * prev. */
INL void cbc_dec_step(const serpent_ks_exact *ks, V *s, uint8_t *out, const uint8_t *in, size_t m, size_t g,
		      __m128i prev)
{
	for (size_t i = 0; i < g; i++)
		load16(s + 4 * i, in + 256 * i, in_group(m, i));
	dec_groups(ks, s, g);
	/* The last group first: each group needs the block before it, which
	 * the group before overwrites in place. */
	for (size_t i = g; i-- > 0;) {
		__m128i p = i ? _mm_loadu_si128((const __m128i *)(in + 256 * i - 16)) : prev;
		cbc_xor_store16(out + 256 * i, in + 256 * i, s + 4 * i, in_group(m, i), &p);
	}
}

/*
 * CFB decryption: out[i] = E(c[i-1]) ^ c[i], c[-1] = prev. The cipher's
 * input is the ciphertext shifted by a block, joined from registers loaded
 * before any store (valignd, as in CBC decryption); the ciphertext for the
 * XOR is loaded again just before each group's store, and no group's store
 * reaches another's input, so out == in works. Through the generic path
 * (a copy of the shifted ciphertext, then ECB) it ran 0.92-0.94x CBC
 * decryption's speed at 8 KB and 0.83x at 64 B (Sapphire Rapids class).
 */
INL void load16_shifted(V *x, const uint8_t *in, size_t n, V *last)
{
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		V c = m ? _mm512_maskz_loadu_epi32(m, in + 64 * i) : _mm512_setzero_si512();
		x[i] = _mm512_alignr_epi32(c, *last, 12);
		*last = c;
	}
	transpose(x);
}

INL void cfb_dec_step(const serpent_ks_exact *ks, V *s, uint8_t *out, const uint8_t *in, size_t m, size_t g,
		      __m128i prev)
{
	V last = _mm512_broadcast_i32x4(prev);
	for (size_t i = 0; i < g; i++)
		load16_shifted(s + 4 * i, in + 256 * i, in_group(m, i), &last);
	enc_groups(ks, s, g);
	for (size_t i = 0; i < g; i++)
		xor_store16(out + 256 * i, in + 256 * i, s + 4 * i, in_group(m, i));
}

/* CBC (cfb 0) or CFB (cfb 1) decryption in steps of up to STEP_MAX blocks. */
static T512 void chain_dec(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv,
			   int cfb)
{
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
	V s[4 * (STEP_MAX / 16)];
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		if (m <= 8) {
			chain_dec8(ks, out, in, m, &prev, cfb);
			break;
		}
		__m128i next = _mm_loadu_si128((const __m128i *)(in + 16 * (m - 1)));
		if (cfb)
			cfb_dec_step(ks, s, out, in, m, g, prev);
		else
			cbc_dec_step(ks, s, out, in, m, g, prev);
		prev = next;
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	_mm_storeu_si128((__m128i *)iv, prev);
}

static T512 void serpent_avx512_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	chain_dec(ks, out, in, n, iv, 0);
}

static T512 void serpent_avx512_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	chain_dec(ks, out, in, n, iv, 1);
}

/*
 * XTS: the tweaks in the untransposed order (register i of a group holds
 * blocks 4i..4i+3, one per 128-bit lane, so block b's tweak is at byte 16 b
 * of tw), XORed in before the transpose and after the one back. A register
 * of tweaks steps by alpha^4 (fb_xts512_mul_alpha, xts_avx512.h).
 */
/* load16 and xor_store16 with the tweaks tw[0..3] of the group. */
INL void xts_load16(V *x, const uint8_t *in, size_t n, const V *tw)
{
	for (unsigned i = 0; i < 4; i++)
		x[i] = _mm512_xor_si512(_mm512_maskz_loadu_epi32(reg_mask(n, i), in + 64 * i), tw[i]);
	transpose(x);
}

INL void xts_store16(uint8_t *out, V *x, size_t n, const V *tw)
{
	transpose(x);
	for (unsigned i = 0; i < 4; i++) {
		__mmask16 m = reg_mask(n, i);
		if (m)
			_mm512_mask_storeu_epi32(out + 64 * i, m, _mm512_xor_si512(x[i], tw[i]));
	}
}

/* One block on the xmm path (a group would run 16 lanes for it). */
static T512 void xts_block(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, uint8_t *tweak, int dec)
{
	uint8_t x[16];
	uint64_t lo = fb_load64_le(tweak), hi = fb_load64_le(tweak + 8);
	fb_xts_xor(x, in, lo, hi);
	if (dec)
		dec_1(ks->k, x, x);
	else
		enc_1(ks, x, x);
	fb_xts_xor(out, x, lo, hi);
	fb_xts_double(&lo, &hi);
	fb_store64_le(tweak, lo);
	fb_store64_le(tweak + 8, hi);
	fb_wipe(x, sizeof x);
}

/* n <= 8 blocks on the ymm path, with the tweaks of zmm registers tw[0..1]. */
static T512 void xts8(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, const V *tw, int dec)
{
	Y s[4], t[4];
	for (unsigned i = 0; i < 4; i++)
		t[i] = i & 1 ? _mm512_extracti64x4_epi64(tw[i / 2], 1) : _mm512_castsi512_si256(tw[i / 2]);
	load8(s, in, n, t);
	if (dec)
		dec_8(ks->k, s);
	else
		enc_8(ks, s);
	store8(out, s, n, t);
	fb_wipe(t, sizeof t);
}

static T512 void xts_steps(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak,
		     int dec)
{
	if (n == 1) {
		xts_block(ks, out, in, tweak, dec);
		return;
	}
	V s[4 * (STEP_MAX / 16)], tw[4 * (STEP_MAX / 16) + 1];
	V t = fb_xts512_first(tweak);
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < 4 * g; i++, t = fb_xts512_mul_alpha(t, 4))
			tw[i] = t;
		tw[4 * g] = t; /* the next step's first: block 16 g's tweak is at byte 256 g */
		if (m <= 8) {
			xts8(ks, out, in, m, tw, dec);
			memcpy(tweak, (const uint8_t *)tw + 16 * m, 16);
			break;
		}
		for (size_t i = 0; i < g; i++)
			xts_load16(s + 4 * i, in + 256 * i, in_group(m, i), tw + 4 * i);
		(dec ? dec_groups : enc_groups)(ks, s, g);
		for (size_t i = 0; i < g; i++)
			xts_store16(out + 256 * i, s + 4 * i, in_group(m, i), tw + 4 * i);
		n -= m;
		in += 16 * m;
		out += 16 * m;
		if (!n)
			memcpy(tweak, (const uint8_t *)tw + 16 * m, 16);
	}
	fb_wipe(tw, sizeof tw);
}

static T512 void serpent_avx512_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
					uint8_t *tweak)
{
	xts_steps(ks, out, in, n, tweak, 0);
}

static T512 void serpent_avx512_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
					uint8_t *tweak)
{
	xts_steps(ks, out, in, n, tweak, 1);
}

/* Serial chains on the one-block xmm path, with no mode-layer call per block. */
FB_B128_CBC_ENC(serpent_avx512_cbc_enc, T128, (const serpent_ks_exact *)ksp, enc_1)

const fb_kernel fb_serpent_avx512 = {
	.name = "serpent/avx512",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512F | FB_CPU_AVX512VL,
	.constant_time = 1,
	.batch = STEP_MAX,
	.ks_size = sizeof(serpent_ks_exact),
	.note = "bitsliced, 4 x 16 blocks in zmm, S-boxes as 7-8 vpternlogd",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey_exact,
	.encrypt = serpent_avx512_encrypt,
	.decrypt = serpent_avx512_decrypt,
	.ctr32 = serpent_avx512_ctr32,
	.cbc_dec = serpent_avx512_cbc_dec,
	.cfb_dec = serpent_avx512_cfb_dec,
	.cbc_enc = serpent_avx512_cbc_enc,
	.xts_enc = serpent_avx512_xts_enc,
	.xts_dec = serpent_avx512_xts_dec,
	/* One block at a time, serpent/bitslice's scalar rounds run 144 MB/s
	 * on Zen 4 against 95 here (CBC encryption); on Sapphire Rapids this
	 * kernel leads (docs/benchmarks.md). */
	.serial_avoid_on = FB_CPU_AMD_ZEN,
};

#endif
