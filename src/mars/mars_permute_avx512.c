/*
 * mars/permute-avx512: constant-time MARS on 16 blocks per zmm register, up
 * to four groups of 16 interleaved, with fused CTR and CBC-decryption paths.
 * mars/avx512's code (mars.h) with its gathers replaced:
 *
 * - An S-box lookup reads every entry at a public address. vpermi2d picks,
 *   per lane, entry idx & 31 from a pair of 16-entry rows; a vpblendmd tree
 *   on index bits 5-7 keeps the row pair the index names: 8 permutes, 3
 *   bit tests and 7 blends for a 256-entry S0/S1 lookup, twice that and one
 *   more test and blend (bit 8) for the core's 512-entry one. The rows come
 *   from L1 as memory operands: 80 lookups per block do not fit the 32 zmm
 *   registers beside four groups' state.
 * - The key schedule is MARS's (fb_mars_expand) with each of its 240
 *   S-box reads done the same way, on one lane.
 * - The data-dependent rotations are vprolvd, whose timing does not depend
 *   on the count.
 *
 * About 1,750 vector instructions per 16 blocks go to the S-box against
 * ~500 for the rest, so it runs well below mars/avx512 (docs/security.md
 * gives the cost); it exists for FB_FLAG_CONSTANT_TIME.
 */
#define FB_B128_VBITS 512
#include "mars.h"

#if FB_X86

#define TGT FB_B128_TGT

/* Entry idx (bits 0-7) of the 256-entry table t, for 16 lanes; b5..b7: the
 * lanes whose index has bit 5, 6, 7 set. */
static inline TGT __attribute__((always_inline)) __m512i lut256(const uint32_t *t, __m512i idx,
								  __mmask16 b5, __mmask16 b6, __mmask16 b7)
{
	__m512i r[8];
	for (int q = 0; q < 8; q++)
		r[q] = _mm512_permutex2var_epi32(_mm512_loadu_si512((const void *)(t + 32 * q)), idx,
						 _mm512_loadu_si512((const void *)(t + 32 * q + 16)));
	for (int q = 0; q < 4; q++)
		r[q] = _mm512_mask_blend_epi32(b5, r[2 * q], r[2 * q + 1]);
	r[0] = _mm512_mask_blend_epi32(b6, r[0], r[1]);
	r[1] = _mm512_mask_blend_epi32(b6, r[2], r[3]);
	return _mm512_mask_blend_epi32(b7, r[0], r[1]);
}

static inline TGT __attribute__((always_inline)) __mmask16 bit_set(__m512i idx, int bit)
{
	return _mm512_test_epi32_mask(idx, _mm512_set1_epi32(1 << bit));
}

/* S0 or S1 (t = its first entry) at byte indices 0..255. */
static inline TGT __attribute__((always_inline)) __m512i lookup256(__m512i idx, const uint32_t *t)
{
	return lut256(t, idx, bit_set(idx, 5), bit_set(idx, 6), bit_set(idx, 7));
}

/* S at indices 0..511. */
static inline TGT __attribute__((always_inline)) __m512i lookup512(__m512i idx)
{
	__mmask16 b5 = bit_set(idx, 5), b6 = bit_set(idx, 6), b7 = bit_set(idx, 7);
	__m512i lo = lut256(fb_mars_sbox, idx, b5, b6, b7);
	__m512i hi = lut256(fb_mars_sbox + 256, idx, b5, b6, b7);
	return _mm512_mask_blend_epi32(bit_set(idx, 8), lo, hi);
}

/* S[i] for the key schedule. */
static inline TGT __attribute__((always_inline)) uint32_t sbox_lane(uint32_t i)
{
	return (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(lookup512(_mm512_set1_epi32((int)i))));
}

static TGT int mars_pm_setkey(void *ks, const uint8_t *key, size_t keylen)
{
	return fb_mars_expand(ks, key, keylen, sbox_lane);
}

#define GATHER(idx, base) lookup256(idx, (const uint32_t *)(base))

/* As mars/avx512 (see there). */
#define BYTE0(x) _mm512_and_si512(x, _mm512_set1_epi32(0xff))
#define BYTE1(x) _mm512_shuffle_epi8(x, _mm512_set4_epi32((int)0x8080800d, (int)0x80808009, \
							  (int)0x80808005, (int)0x80808001))
#define BYTE2(x) _mm512_shuffle_epi8(x, _mm512_set4_epi32((int)0x8080800e, (int)0x8080800a, \
							  (int)0x80808006, (int)0x80808002))
#define BYTE3(x) _mm512_srli_epi32(x, 24)
#define ROL(x, n) _mm512_rol_epi32(x, n)

#define E_FN(a, ar, i, l, m, r)                                                     \
	__m512i m = _mm512_add_epi32(a, FB_B128_KEY(i));                                    \
	__m512i r = _mm512_rol_epi32(_mm512_mullo_epi32(ar, FB_B128_KEY((i) + 1)), 10);     \
	__m512i l = lookup512(_mm512_and_si512(m, _mm512_set1_epi32(511)));                 \
	__m512i r1_ = _mm512_ror_epi32(r, 5);                                       \
	l = _mm512_ternarylogic_epi32(l, r1_, r, 0x96);                             \
	m = _mm512_rolv_epi32(m, r1_);                                              \
	l = _mm512_rolv_epi32(l, r);

FB_B128_DEFINE(mars_pm_enc16, FB_MARS_SIMD_ENC, 1, PLAIN)
FB_B128_DEFINE(mars_pm_enc32, FB_MARS_SIMD_ENC, 2, PLAIN)
FB_B128_DEFINE(mars_pm_enc64, FB_MARS_SIMD_ENC, 4, PLAIN)
FB_B128_DEFINE(mars_pm_ctr64, FB_MARS_SIMD_ENC, 4, CTR)
FB_B128_DEFINE(mars_pm_dec16, FB_MARS_SIMD_DEC, 1, PLAIN)
FB_B128_DEFINE(mars_pm_dec32, FB_MARS_SIMD_DEC, 2, PLAIN)
FB_B128_DEFINE(mars_pm_dec64, FB_MARS_SIMD_DEC, 4, PLAIN)
FB_B128_DEFINE(mars_pm_cbc64, FB_MARS_SIMD_DEC, 4, CBC)
FB_B128_DEFINE(mars_pm_cfb64, FB_MARS_SIMD_ENC, 4, CFB)
FB_B128_DEFINE(mars_pm_xts_enc64, FB_MARS_SIMD_ENC, 4, XTS)
FB_B128_DEFINE(mars_pm_xts_dec64, FB_MARS_SIMD_DEC, 4, XTS)

static const fb_b128_kernel mars_pm_k = {
	.nf = 3,
	.enc = { mars_pm_enc16, mars_pm_enc32, mars_pm_enc64 },
	.dec = { mars_pm_dec16, mars_pm_dec32, mars_pm_dec64 },
	.ctr = mars_pm_ctr64,
	.cbc = mars_pm_cbc64,
	.cfb = mars_pm_cfb64,
	.xts_enc = mars_pm_xts_enc64,
	.xts_dec = mars_pm_xts_dec64,
};
FB_B128_DEFINE_MODES(mars_pm, mars_pm_k)

const fb_kernel fb_mars_permute_avx512 = {
	.name = "mars/permute-avx512",
	.family = "mars",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512,
	.constant_time = 1,
	.batch = 64,
	.ks_size = sizeof(fb_mars_ks),
	.note = "MARS on 4x16 blocks in zmm, S-box by vpermi2d rows and a blend tree (constant-time)",
	.setkey = mars_pm_setkey,
	.encrypt = mars_pm_encrypt,
	.decrypt = mars_pm_decrypt,
	.ctr32 = mars_pm_ctr32,
	.cbc_dec = mars_pm_cbc_dec,
	.cfb_dec = mars_pm_cfb_dec,
	.xts_enc = mars_pm_xts_enc,
	.xts_dec = mars_pm_xts_dec,
};

#endif /* FB_X86 */
