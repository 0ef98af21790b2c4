/*
 * XTS tweaks four to a 512-bit register (one per 128-bit lane, qword low
 * then high), for the AVX-512 kernels that fuse XTS: serpent/avx512,
 * twofish/avx512-gfni and block128_simd.h's kernels.
 */
#ifndef FB_XTS_AVX512_H
#define FB_XTS_AVX512_H
#include "internal.h"

#if FB_X86
#include <immintrin.h>

#define FB_XTS512_TGT FB_TARGET("avx512f")

/* t, t alpha, t alpha^2, t alpha^3 from the tweak's bytes, built from
 * registers: one 64-byte load of eight qword stores would miss store
 * forwarding (serpent/avx512's 64-byte XTS units took 1.04x the time). */
static inline __attribute__((always_inline)) FB_XTS512_TGT __m512i fb_xts512_first(const uint8_t *tweak)
{
	uint64_t q[8];
	fb_xts_tweaks4(q, tweak);
	return _mm512_set_epi64((long long)q[7], (long long)q[6], (long long)q[5], (long long)q[4],
				(long long)q[3], (long long)q[2], (long long)q[1], (long long)q[0]);
}

/* Each lane's tweak times alpha^k (k <= 56, a constant): both qwords shift
 * by k, the low qword's top k bits carry into the high one, and the high
 * one's come back reduced, times 0x87 carry-less (c ^ c << 1 ^ c << 2 ^
 * c << 7). The bits change qwords by vpshufd under a zeroing mask
 * (AVX512F alone). */
static inline __attribute__((always_inline)) FB_XTS512_TGT __m512i fb_xts512_mul_alpha(__m512i t, const int k)
{
	__m512i top = _mm512_srli_epi64(t, 64 - k);
	__m512i up = _mm512_maskz_shuffle_epi32(0xcccc, top, _MM_PERM_BADC);
	__m512i c = _mm512_maskz_shuffle_epi32(0x3333, top, _MM_PERM_BADC);
	__m512i red = _mm512_ternarylogic_epi64(c, _mm512_slli_epi64(c, 1), _mm512_slli_epi64(c, 2), 0x96);
	return _mm512_ternarylogic_epi64(_mm512_slli_epi64(t, k), up,
					 _mm512_xor_si512(red, _mm512_slli_epi64(c, 7)), 0x96);
}

#endif /* FB_X86 */
#endif
