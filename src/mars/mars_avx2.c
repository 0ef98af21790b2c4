/*
 * mars/avx2: MARS on 8 blocks per ymm register; up to four groups of 8
 * interleaved (natural batch 32), with fused CTR and CBC-decryption paths.
 * S-box lookups are vpgatherdd; the code is
 * mars/avx512's with rotations built from shifts (AVX2 has no vprold/vprolvd).
 *
 * AVX2 has no two-source permutes wider than 8 dwords, so a permute-chain
 * S-box (32 vpermd for one 256-entry lookup) is far slower than a gather.
 *
 * NOT constant-time: the gathers load S-box entries at secret indices.
 */
#define FB_B128_VBITS 256
#include "mars.h"

#if FB_X86

#define TGT FB_B128_TGT

/* mars/table-avx2 (mars_table_avx2.c) compiles this file again with its
 * own GATHER and kernel name. */
#ifndef MARS_AVX2_KERNEL
#define GATHER(idx, base) _mm256_i32gather_epi32((const int *)(base), idx, 4)
#define MARS_AVX2_KERNEL fb_mars_avx2
#define MARS_AVX2_NAME "mars/avx2"
#define MARS_AVX2_NOTE "MARS on 4x8 blocks in ymm, S-box by vpgatherdd (not constant-time)"
#define MARS_AVX2_AVOID FB_CPU_SLOW_GATHER
#endif

/* Byte 0..3 of each dword as a dword index 0..255 (vpshufb for the middle
 * two bytes: one uop instead of a shift and an and). */
#define BYTE0(x) _mm256_and_si256(x, _mm256_set1_epi32(0xff))
#define BYTE1(x) _mm256_shuffle_epi8(x, _mm256_set_epi32((int)0x8080800d, (int)0x80808009, \
							 (int)0x80808005, (int)0x80808001, \
							 (int)0x8080800d, (int)0x80808009, \
							 (int)0x80808005, (int)0x80808001))
#define BYTE2(x) _mm256_shuffle_epi8(x, _mm256_set_epi32((int)0x8080800e, (int)0x8080800a, \
							 (int)0x80808006, (int)0x80808002, \
							 (int)0x8080800e, (int)0x8080800a, \
							 (int)0x80808006, (int)0x80808002))

/* AVX2 has no rotates: shifts and or; variable counts are masked to 0..31
 * (vpsllvd/vpsrlvd give 0 for counts above 31, which makes count 0 work). */
#define ROL(x, n) _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - (n)))
static inline TGT __m256i rolv8(__m256i x, __m256i n)
{
	n = _mm256_and_si256(n, _mm256_set1_epi32(31));
	return _mm256_or_si256(_mm256_sllv_epi32(x, n),
			       _mm256_srlv_epi32(x, _mm256_sub_epi32(_mm256_set1_epi32(32), n)));
}
#define BYTE3(x) _mm256_srli_epi32(x, 24)

/* E-function: l, m, r from a (already rotated left by 13 in ar) and the
 * subkeys k1 = K[i], k2 = K[i+1]. r1 = r >>> 5 is the first rotation count
 * and xor term, r the second. */
#define E_FN(a, ar, i, l, m, r)                                                     \
	__m256i m = _mm256_add_epi32(a, FB_B128_KEY(i));                                    \
	__m256i r = ROL(_mm256_mullo_epi32(ar, FB_B128_KEY((i) + 1)), 10);     \
	__m256i l = GATHER(_mm256_and_si256(m, _mm256_set1_epi32(511)), FB_MARS_SB0);       \
	__m256i r1_ = ROL(r, 27);                                       \
	l = _mm256_xor_si256(_mm256_xor_si256(l, r1_), r);                             \
	m = rolv8(m, r1_);                                              \
	l = rolv8(l, r);

/* The kernel functions: one, two and four groups of 8 blocks, fused CTR
 * and CBC. */
FB_B128_DEFINE(mars_enc8, FB_MARS_SIMD_ENC, 1, PLAIN)
FB_B128_DEFINE(mars_enc16, FB_MARS_SIMD_ENC, 2, PLAIN)
FB_B128_DEFINE(mars_enc32, FB_MARS_SIMD_ENC, 4, PLAIN)
FB_B128_DEFINE(mars_ctr32, FB_MARS_SIMD_ENC, 4, CTR)
FB_B128_DEFINE(mars_dec8, FB_MARS_SIMD_DEC, 1, PLAIN)
FB_B128_DEFINE(mars_dec16, FB_MARS_SIMD_DEC, 2, PLAIN)
FB_B128_DEFINE(mars_dec32, FB_MARS_SIMD_DEC, 4, PLAIN)
FB_B128_DEFINE(mars_cbc32, FB_MARS_SIMD_DEC, 4, CBC)
FB_B128_DEFINE(mars_cfb32, FB_MARS_SIMD_ENC, 4, CFB)
FB_B128_DEFINE(mars_xts_enc32, FB_MARS_SIMD_ENC, 4, XTS)
FB_B128_DEFINE(mars_xts_dec32, FB_MARS_SIMD_DEC, 4, XTS)

static const fb_b128_kernel mars_avx2_k = {
	.nf = 3,
	.enc = { mars_enc8, mars_enc16, mars_enc32 },
	.dec = { mars_dec8, mars_dec16, mars_dec32 },
	.ctr = mars_ctr32,
	.cbc = mars_cbc32,
	.cfb = mars_cfb32,
	.xts_enc = mars_xts_enc32,
	.xts_dec = mars_xts_dec32,
};
FB_B128_DEFINE_MODES(mars_avx2, mars_avx2_k)

const fb_kernel MARS_AVX2_KERNEL = {
	.name = MARS_AVX2_NAME,
	.family = "mars",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 0,
	.batch = 32,
	.ks_size = sizeof(fb_mars_ks),
	.avoid_on = MARS_AVX2_AVOID,
	.note = MARS_AVX2_NOTE,
	.setkey = fb_mars_setkey,
	.encrypt = mars_avx2_encrypt,
	.decrypt = mars_avx2_decrypt,
	.ctr32 = mars_avx2_ctr32,
	.cbc_dec = mars_avx2_cbc_dec,
	.cfb_dec = mars_avx2_cfb_dec,
	.xts_enc = mars_avx2_xts_enc,
	.xts_dec = mars_avx2_xts_dec,
};

#endif /* FB_X86 */
