/*
 * A portable C model of the AVX-512 (and SSE) intrinsics that rc6/avx512,
 * serpent/avx512 and aes/vaes-avx512 use, for the valgrind constant-time
 * check (test_ct_valgrind.c): included in place of <immintrin.h> by
 * ct_model_avx512.c and ct_model_vaes512.c, which then compile those
 * kernels unchanged. See ct_model_avx512.c.
 *
 * Rules of the model: no branch and no memory address depends on vector
 * contents, as the instructions have none (byte shuffles select with
 * masks, rotations and shifts shift by the count, S-boxes are computed).
 * Masks, immediates and shift counts are public in the kernels, and the
 * model may branch on them.
 */
#ifndef CT_MODEL_AVX512_H
#define CT_MODEL_AVX512_H
#include <stdint.h>
#include <string.h>
#include "ct_model_tern.h"

#define _IMMINTRIN_H_INCLUDED 1 /* GCC's guard: the real header is not wanted here */
#define __IMMINTRIN_H 1         /* clang's */

typedef union {
	uint64_t q[8];
	uint32_t d[16];
	uint8_t b[64];
} __m512i;
typedef union {
	uint64_t q[2];
	uint32_t d[4];
	uint8_t b[16];
} __m128i;
typedef uint16_t __mmask16;
typedef uint8_t __mmask8;

static inline __m128i _mm_loadu_si128(const __m128i *p)
{
	__m128i r;
	memcpy(&r, p, sizeof r);
	return r;
}
static inline __m512i _mm512_loadu_si512(const void *p)
{
	__m512i r;
	memcpy(&r, p, sizeof r);
	return r;
}
static inline void _mm512_storeu_si512(void *p, __m512i a)
{
	memcpy(p, &a, sizeof a);
}
/* k is public (a constant in the kernel) */
static inline __m512i _mm512_mask_loadu_epi32(__m512i src, __mmask16 k, const void *p)
{
	for (int i = 0; i < 16; i++)
		if (k >> i & 1)
			memcpy(&src.d[i], (const uint8_t *)p + 4 * i, 4);
	return src;
}
static inline __m512i _mm512_set1_epi32(int v)
{
	__m512i r;
	for (int i = 0; i < 16; i++)
		r.d[i] = (uint32_t)v;
	return r;
}
static inline __m512i _mm512_set_epi32(int e15, int e14, int e13, int e12, int e11, int e10, int e9,
				       int e8, int e7, int e6, int e5, int e4, int e3, int e2, int e1,
				       int e0)
{
	__m512i r = { .d = { (uint32_t)e0, (uint32_t)e1, (uint32_t)e2, (uint32_t)e3, (uint32_t)e4,
			     (uint32_t)e5, (uint32_t)e6, (uint32_t)e7, (uint32_t)e8, (uint32_t)e9,
			     (uint32_t)e10, (uint32_t)e11, (uint32_t)e12, (uint32_t)e13, (uint32_t)e14,
			     (uint32_t)e15 } };
	return r;
}
static inline __m512i _mm512_set4_epi32(int d, int c, int b, int a)
{
	return _mm512_set_epi32(d, c, b, a, d, c, b, a, d, c, b, a, d, c, b, a);
}
static inline __m512i _mm512_broadcast_i32x4(__m128i a)
{
	__m512i r;
	for (int i = 0; i < 16; i++)
		r.d[i] = a.d[i & 3];
	return r;
}

#define CT_MODEL_LANEWISE(name, expr)                   \
	static inline __m512i name(__m512i a, __m512i b) \
	{                                                \
		__m512i r;                               \
		for (int i = 0; i < 16; i++)             \
			r.d[i] = (expr);                 \
		return r;                                \
	}
static inline uint32_t ct_model_rol(uint32_t x, uint32_t c)
{
	c &= 31u; /* a shift by a count: no branch, no address */
	return x << c | x >> ((32u - c) & 31u);
}
CT_MODEL_LANEWISE(_mm512_xor_si512, a.d[i] ^ b.d[i])
CT_MODEL_LANEWISE(_mm512_and_si512, a.d[i] & b.d[i])
CT_MODEL_LANEWISE(_mm512_or_si512, a.d[i] | b.d[i])
CT_MODEL_LANEWISE(_mm512_add_epi32, a.d[i] + b.d[i])
CT_MODEL_LANEWISE(_mm512_sub_epi32, a.d[i] - b.d[i])
CT_MODEL_LANEWISE(_mm512_mullo_epi32, a.d[i] * b.d[i])
CT_MODEL_LANEWISE(_mm512_rolv_epi32, ct_model_rol(a.d[i], b.d[i]))
CT_MODEL_LANEWISE(_mm512_rorv_epi32, ct_model_rol(a.d[i], 32u - (b.d[i] & 31u)))

static inline __m512i _mm512_rol_epi32(__m512i a, int n)
{
	for (int i = 0; i < 16; i++)
		a.d[i] = ct_model_rol(a.d[i], (uint32_t)n);
	return a;
}

/* vpunpck[lh]{dq,qdq}: within each 128-bit lane, interleave the low (or
 * high) halves of a and b. */
static inline __m512i ct_model_unpack32(__m512i a, __m512i b, int hi)
{
	__m512i r;
	for (int l = 0; l < 4; l++)
		for (int j = 0; j < 2; j++) {
			r.d[4 * l + 2 * j] = a.d[4 * l + 2 * hi + j];
			r.d[4 * l + 2 * j + 1] = b.d[4 * l + 2 * hi + j];
		}
	return r;
}
static inline __m512i ct_model_unpack64(__m512i a, __m512i b, int hi)
{
	__m512i r;
	for (int l = 0; l < 4; l++) {
		r.q[2 * l] = a.q[2 * l + hi];
		r.q[2 * l + 1] = b.q[2 * l + hi];
	}
	return r;
}
#define _mm512_unpacklo_epi32(a, b) ct_model_unpack32(a, b, 0)
#define _mm512_unpackhi_epi32(a, b) ct_model_unpack32(a, b, 1)
#define _mm512_unpacklo_epi64(a, b) ct_model_unpack64(a, b, 0)
#define _mm512_unpackhi_epi64(a, b) ct_model_unpack64(a, b, 1)

/* vpshufb: byte i of each 128-bit lane takes byte (b & 15) of the lane, or
 * zero when bit 7 of the index is set; selected without an address that
 * depends on the index (a register shuffle reads no memory). */
static inline __m512i _mm512_shuffle_epi8(__m512i a, __m512i idx)
{
	__m512i r;
	for (int i = 0; i < 64; i++) {
		unsigned t = idx.b[i] & 15u, v = 0;
		for (unsigned j = 0; j < 16; j++) {
			unsigned eq = ((j ^ t) - 1u) >> 31; /* 1 iff j == t */
			v |= a.b[(i & ~15) + (int)j] & (0u - eq);
		}
		r.b[i] = (uint8_t)(v & ((idx.b[i] >> 7) - 1u));
	}
	return r;
}

/* ---- what serpent/avx512 adds ---- */

static inline __m512i _mm512_setzero_si512(void)
{
	__m512i r;
	memset(&r, 0, sizeof r);
	return r;
}
static inline __m512i _mm512_setr_epi32(int e0, int e1, int e2, int e3, int e4, int e5, int e6, int e7,
					int e8, int e9, int e10, int e11, int e12, int e13, int e14,
					int e15)
{
	return _mm512_set_epi32(e15, e14, e13, e12, e11, e10, e9, e8, e7, e6, e5, e4, e3, e2, e1, e0);
}
/* k is public (a length): only the selected words are read or written */
static inline __m512i _mm512_maskz_loadu_epi32(__mmask16 k, const void *p)
{
	return _mm512_mask_loadu_epi32(_mm512_setzero_si512(), k, p);
}
static inline void _mm512_mask_storeu_epi32(void *p, __mmask16 k, __m512i a)
{
	for (int i = 0; i < 16; i++)
		if (k >> i & 1)
			memcpy((uint8_t *)p + 4 * i, &a.d[i], 4);
}
static inline __m512i _mm512_slli_epi32(__m512i a, unsigned n)
{
	for (int i = 0; i < 16; i++)
		a.d[i] = n > 31 ? 0 : a.d[i] << n; /* n is a constant */
	return a;
}
/* vpalignr on dwords: (a:b) >> 32n, the low 16 words */
static inline __m512i _mm512_alignr_epi32(__m512i a, __m512i b, int n)
{
	__m512i r;
	for (int i = 0; i < 16; i++)
		r.d[i] = i + n < 16 ? b.d[i + n] : a.d[i + n - 16];
	return r;
}
static inline __m512i _mm512_ternarylogic_epi32(__m512i a, __m512i b, __m512i c, int imm)
{
	for (int i = 0; i < 16; i++)
		a.d[i] = (uint32_t)ct_model_tern(a.d[i], b.d[i], c.d[i], imm);
	return a;
}

static inline void _mm_storeu_si128(__m128i *p, __m128i a)
{
	memcpy(p, &a, sizeof a);
}
static inline __m128i _mm_cvtsi32_si128(int v)
{
	__m128i r = { .d = { (uint32_t)v, 0, 0, 0 } };
	return r;
}
static inline int _mm_cvtsi128_si32(__m128i a)
{
	return (int)a.d[0];
}
static inline __m128i _mm_set1_epi32(int v)
{
	__m128i r = { .d = { (uint32_t)v, (uint32_t)v, (uint32_t)v, (uint32_t)v } };
	return r;
}
static inline __m128i _mm_xor_si128(__m128i a, __m128i b)
{
	for (int i = 0; i < 4; i++)
		a.d[i] ^= b.d[i];
	return a;
}
static inline __m128i _mm_rol_epi32(__m128i a, int n)
{
	for (int i = 0; i < 4; i++)
		a.d[i] = ct_model_rol(a.d[i], (uint32_t)n);
	return a;
}
static inline __m128i _mm_slli_epi32(__m128i a, int n)
{
	for (int i = 0; i < 4; i++)
		a.d[i] = n > 31 ? 0 : a.d[i] << n;
	return a;
}
static inline __m128i _mm_ternarylogic_epi32(__m128i a, __m128i b, __m128i c, int imm)
{
	for (int i = 0; i < 4; i++)
		a.d[i] = (uint32_t)ct_model_tern(a.d[i], b.d[i], c.d[i], imm);
	return a;
}

/* ---- ymm, for serpent/avx512's groups of up to 8 blocks ---- */

typedef union {
	uint64_t q[4];
	uint32_t d[8];
	uint8_t b[32];
} __m256i;

static inline __m256i _mm256_setzero_si256(void)
{
	__m256i r;
	memset(&r, 0, sizeof r);
	return r;
}
static inline __m256i _mm256_set1_epi32(int v)
{
	__m256i r;
	for (int i = 0; i < 8; i++)
		r.d[i] = (uint32_t)v;
	return r;
}
static inline __m256i _mm256_broadcastsi128_si256(__m128i a)
{
	__m256i r;
	memcpy(r.b, a.b, 16);
	memcpy(r.b + 16, a.b, 16);
	return r;
}
static inline __m256i _mm256_xor_si256(__m256i a, __m256i b)
{
	for (int i = 0; i < 8; i++)
		a.d[i] ^= b.d[i];
	return a;
}
static inline __m256i _mm256_rol_epi32(__m256i a, int n)
{
	for (int i = 0; i < 8; i++)
		a.d[i] = ct_model_rol(a.d[i], (uint32_t)n);
	return a;
}
static inline __m256i _mm256_slli_epi32(__m256i a, int n)
{
	for (int i = 0; i < 8; i++)
		a.d[i] = n > 31 ? 0 : a.d[i] << n;
	return a;
}
static inline __m256i _mm256_ternarylogic_epi32(__m256i a, __m256i b, __m256i c, int imm)
{
	for (int i = 0; i < 8; i++)
		a.d[i] = (uint32_t)ct_model_tern(a.d[i], b.d[i], c.d[i], imm);
	return a;
}
/* the 128-bit-lane unpacks, as for zmm */
static inline __m256i ct_model_unpack32y(__m256i a, __m256i b, int hi)
{
	__m256i r;
	for (int l = 0; l < 2; l++)
		for (int j = 0; j < 2; j++) {
			r.d[4 * l + 2 * j] = a.d[4 * l + 2 * hi + j];
			r.d[4 * l + 2 * j + 1] = b.d[4 * l + 2 * hi + j];
		}
	return r;
}
static inline __m256i ct_model_unpack64y(__m256i a, __m256i b, int hi)
{
	__m256i r;
	for (int l = 0; l < 2; l++) {
		r.q[2 * l] = a.q[2 * l + hi];
		r.q[2 * l + 1] = b.q[2 * l + hi];
	}
	return r;
}
#define _mm256_unpacklo_epi32(a, b) ct_model_unpack32y(a, b, 0)
#define _mm256_unpackhi_epi32(a, b) ct_model_unpack32y(a, b, 1)
#define _mm256_unpacklo_epi64(a, b) ct_model_unpack64y(a, b, 0)
#define _mm256_unpackhi_epi64(a, b) ct_model_unpack64y(a, b, 1)
/* k is public (a length): only the selected words are read or written */
static inline __m256i _mm256_maskz_loadu_epi32(__mmask8 k, const void *p)
{
	__m256i r = _mm256_setzero_si256();
	for (int i = 0; i < 8; i++)
		if (k >> i & 1)
			memcpy(&r.d[i], (const uint8_t *)p + 4 * i, 4);
	return r;
}
static inline void _mm256_mask_storeu_epi32(void *p, __mmask8 k, __m256i a)
{
	for (int i = 0; i < 8; i++)
		if (k >> i & 1)
			memcpy((uint8_t *)p + 4 * i, &a.d[i], 4);
}
/* valignd: (a:b) >> 32n, the low 8 words */
static inline __m256i _mm256_alignr_epi32(__m256i a, __m256i b, int n)
{
	__m256i r;
	for (int i = 0; i < 8; i++)
		r.d[i] = i + n < 8 ? b.d[i + n] : a.d[i + n - 8];
	return r;
}

static inline __m256i _mm512_castsi512_si256(__m512i a)
{
	__m256i r;
	memcpy(&r, &a, sizeof r);
	return r;
}
static inline __m256i _mm512_extracti64x4_epi64(__m512i a, int i)
{
	__m256i r;
	memcpy(&r, &a.q[4 * (i & 1)], sizeof r);
	return r;
}

/* ---- 64-bit lanes, shared by aes/vaes-avx512 and twofish/avx512-gfni-ct ---- */

static inline __m512i _mm512_set1_epi64(long long v)
{
	__m512i r;
	for (int i = 0; i < 8; i++)
		r.q[i] = (uint64_t)v;
	return r;
}
static inline __m512i _mm512_set_epi64(long long e7, long long e6, long long e5, long long e4,
				       long long e3, long long e2, long long e1, long long e0)
{
	__m512i r = { .q = { (uint64_t)e0, (uint64_t)e1, (uint64_t)e2, (uint64_t)e3, (uint64_t)e4,
			     (uint64_t)e5, (uint64_t)e6, (uint64_t)e7 } };
	return r;
}
static inline __m512i _mm512_ternarylogic_epi64(__m512i a, __m512i b, __m512i c, int imm)
{
	return _mm512_ternarylogic_epi32(a, b, c, imm); /* bitwise: the lane width does not matter */
}
static inline __m512i _mm512_alignr_epi64(__m512i a, __m512i b, int n)
{
	return _mm512_alignr_epi32(a, b, 2 * n);
}
static inline __m128i _mm512_castsi512_si128(__m512i a)
{
	__m128i r;
	memcpy(&r, &a, sizeof r);
	return r;
}

/* For mars/permute-avx512. Indices and masks here come from secret data,
 * so lanes are chosen by masks over every candidate, never by an address
 * or a branch. */
static inline uint32_t ct_model_eq(uint32_t a, uint32_t b) /* all ones iff a == b */
{
	uint32_t x = a ^ b;
	return 0u - (((x | (0u - x)) >> 31) ^ 1u);
}
/* vpermi2d: lane i gets entry idx & 31 of a (0-15) followed by b (16-31). */
static inline __m512i _mm512_permutex2var_epi32(__m512i a, __m512i idx, __m512i b)
{
	__m512i r;
	for (int i = 0; i < 16; i++) {
		uint32_t v = 0, t = idx.d[i] & 31u;
		for (uint32_t j = 0; j < 16; j++)
			v |= (a.d[j] & ct_model_eq(j, t)) | (b.d[j] & ct_model_eq(j + 16, t));
		r.d[i] = v;
	}
	return r;
}
static inline __m512i _mm512_mask_blend_epi32(__mmask16 k, __m512i a, __m512i b)
{
	for (int i = 0; i < 16; i++) {
		uint32_t m = 0u - (uint32_t)(k >> i & 1);
		a.d[i] = (a.d[i] & ~m) | (b.d[i] & m);
	}
	return a;
}
static inline __mmask16 _mm512_test_epi32_mask(__m512i a, __m512i b)
{
	uint32_t k = 0;
	for (int i = 0; i < 16; i++) {
		uint32_t x = a.d[i] & b.d[i];
		k |= ((x | (0u - x)) >> 31) << i;
	}
	return (__mmask16)k;
}
/* shifts and rotations by constants */
static inline __m512i _mm512_srli_epi32(__m512i a, unsigned n)
{
	for (int i = 0; i < 16; i++)
		a.d[i] = n > 31 ? 0 : a.d[i] >> n;
	return a;
}
static inline __m512i _mm512_slli_epi64(__m512i a, unsigned n)
{
	for (int i = 0; i < 8; i++)
		a.q[i] = n > 63 ? 0 : a.q[i] << n;
	return a;
}
static inline __m512i _mm512_srli_epi64(__m512i a, unsigned n)
{
	for (int i = 0; i < 8; i++)
		a.q[i] = n > 63 ? 0 : a.q[i] >> n;
	return a;
}
/* vpshufd with a constant selector, and with a zeroing mask (public) */
#define _MM_PERM_BADC 0x4e
static inline __m512i _mm512_shuffle_epi32(__m512i a, int imm)
{
	__m512i r;
	for (int i = 0; i < 16; i++)
		r.d[i] = a.d[(i & ~3) + (imm >> (2 * (i & 3)) & 3)];
	return r;
}
static inline __m512i _mm512_maskz_shuffle_epi32(__mmask16 k, __m512i a, int imm)
{
	__m512i r = _mm512_shuffle_epi32(a, imm);
	for (int i = 0; i < 16; i++)
		if (!(k >> i & 1))
			r.d[i] = 0;
	return r;
}
static inline __m512i _mm512_ror_epi32(__m512i a, int n)
{
	return _mm512_rol_epi32(a, (32 - n) & 31);
}
/* vpgatherdd, as the hardware does it: a load per lane at base + 4 * idx
 * (secret for mars/avx512, whose model must be reported). */
static inline __m512i _mm512_i32gather_epi32(__m512i idx, const void *base, int scale)
{
	__m512i r;
	for (int i = 0; i < 16; i++)
		memcpy(&r.d[i], (const uint8_t *)base + (size_t)scale * idx.d[i], 4);
	return r;
}

#endif
