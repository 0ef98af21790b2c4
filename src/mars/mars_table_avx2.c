/*
 * mars/table-avx2: mars/avx2 with each eight-lane S-box lookup made of
 * eight ordinary loads, for CPUs whose vpgatherdd is microcoded (AMD Zen 1
 * and 2: one element every few cycles, ~20 TSC ticks for eight, five
 * times a scalar load; Intel's cores under the GDS microcode). Each lane's
 * index is extracted (vpextrd), its entry loaded and broadcast
 * (vpbroadcastd from memory: a load, no vector operation), and a tree of
 * seven vpblendd puts the eight in place: eight loads and 16 simple vector
 * instructions (six vpextrd, two vmovd, one vextracti128, seven vpblendd)
 * where the gather was one microcoded one. Through memory instead (the
 * index vector stored, the indices loaded back) the loads waited on the
 * store: half the speed.
 * On a core with fast gathers (Zen 4, Sapphire Rapids) mars/avx2 stays
 * ahead.
 *
 * NOT constant-time: the loads are at secret indices.
 */
#define MARS_AVX2_KERNEL fb_mars_table_avx2
#define MARS_AVX2_NAME "mars/table-avx2"
#define MARS_AVX2_NOTE "MARS on 4x8 blocks in ymm, S-box by scalar-indexed loads (not constant-time)"
#define MARS_AVX2_AVOID 0
#define GATHER(idx, base) mars_lookup8(base, idx)

#include <stdint.h>
#include "../internal.h"

#if FB_X86
#include <immintrin.h>

static inline FB_TARGET("avx2") __m256i mars_lookup8(const void *base, __m256i idx)
{
	const uint32_t *t = base;
	__m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
#define ENTRY(v, j) _mm256_set1_epi32((int)t[(uint32_t)_mm_extract_epi32(v, j)])
	__m256i b01 = _mm256_blend_epi32(ENTRY(lo, 0), ENTRY(lo, 1), 0x02);
	__m256i b23 = _mm256_blend_epi32(ENTRY(lo, 2), ENTRY(lo, 3), 0x08);
	__m256i b45 = _mm256_blend_epi32(ENTRY(hi, 0), ENTRY(hi, 1), 0x20);
	__m256i b67 = _mm256_blend_epi32(ENTRY(hi, 2), ENTRY(hi, 3), 0x80);
#undef ENTRY
	return _mm256_blend_epi32(_mm256_blend_epi32(b01, b23, 0x0c), _mm256_blend_epi32(b45, b67, 0xc0), 0xf0);
}
#endif

#include "mars_avx2.c"
