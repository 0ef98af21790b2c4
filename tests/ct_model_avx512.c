/*
 * rc6/avx512 for the valgrind constant-time check (test_ct_valgrind.c).
 *
 * Valgrind decodes no AVX-512. This file stands in for <immintrin.h>: it
 * defines the vector types and the intrinsics rc6_avx512.c (with
 * block128_simd.h) uses, in plain C, then compiles that file unchanged.
 * The model has no branch and no memory address that depends on vector
 * contents (byte shuffles select with masks, rotations shift by the
 * count), as the instructions have none; so memcheck, run on the model,
 * checks the kernel's own code: its control flow, its tails and the
 * addresses of its loads and stores. Masks are public here (lengths and
 * constants), as they are in the kernel. The kernel's short runs go to
 * rc6/avx2, which valgrind runs natively.
 *
 * The target attributes are dropped (FB_TARGET defined empty) so that the
 * compiler emits no AVX-512 instruction for the model; the real header is
 * kept out by its include guards.
 */
#include <stdint.h>
#include <string.h>

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

/* ---- the modelled kernel ---------------------------------------------------------- */

#include "../src/internal.h"

#if FB_X86
#undef FB_TARGET
#define FB_TARGET(x)

#define fb_rc6_avx512 ct_model_rc6_avx512
#include "../src/rc6/rc6_avx512.c"

/* The modelled kernel, or NULL when the CPU valgrind presents lacks AVX2
 * (the kernel's short runs go to rc6/avx2). */
const fb_kernel *ct_model_rc6_avx512_kernel(void);
const fb_kernel *ct_model_rc6_avx512_kernel(void)
{
	return (fb_cpu_features() & FB_CPU_AVX2) ? &ct_model_rc6_avx512 : NULL;
}
#else
const fb_kernel *ct_model_rc6_avx512_kernel(void);
const fb_kernel *ct_model_rc6_avx512_kernel(void)
{
	return NULL;
}
#endif
