/*
 * rc6/avx2: RC6-32/20/b on 8 blocks per ymm register, four groups of 8
 * interleaved (natural batch 32), with fused CTR and CBC-decryption paths.
 * A round's chain (vpmulld, then the variable rotation) is longer than
 * two groups' work: on Zen 5 under the AVX2 mask four groups take 0.72 of
 * two groups' time at 8 KB, spilling some temporaries (llvm-mca for Zen 2
 * expects 43 cycles a group against 45, its one multiplier pipe busier).
 * Same layout as rc6/avx512 (4x4 dword transpose inside each 128-bit lane;
 * dword 4L + q of a register belongs to block 2q + L); CTR and CBC as there.
 * AVX2 has no rotate instructions: the fixed rotation by 5 is two shifts and an or, and the data-dependent
 * one uses vpsllvd/vpsrlvd, whose counts above 31 give 0. The count t & 31
 * of t = (x * (2x + 1)) <<< 5 is the top five bits of the product, which
 * the shift right by 27 inside the rotation already computed.
 *
 * Constant-time: no tables, no secret-dependent branches or addresses;
 * vpmulld and the variable shifts take the same time for all operands.
 */
#define FB_B128_VBITS 256
#include "rc6.h"

#if FB_X86

#define TGT FB_B128_TGT

/* t = (x * (2x + 1)) <<< 5 and its low five bits tc = t & 31. */
#define F8(x, t, tc)                                                                  \
	do {                                                                          \
		__m256i p_ = _mm256_mullo_epi32(                                      \
			x, _mm256_or_si256(_mm256_add_epi32(x, x), _mm256_set1_epi32(1))); \
		tc = _mm256_srli_epi32(p_, 27);                                       \
		t = _mm256_or_si256(_mm256_slli_epi32(p_, 5), tc);                    \
	} while (0)

/* x <<< n and x >>> n for counts n in 0..31 */
static inline TGT __m256i rolv8(__m256i x, __m256i n)
{
	return _mm256_or_si256(_mm256_sllv_epi32(x, n),
			       _mm256_srlv_epi32(x, _mm256_sub_epi32(_mm256_set1_epi32(32), n)));
}
static inline TGT __m256i rorv8(__m256i x, __m256i n)
{
	return _mm256_or_si256(_mm256_srlv_epi32(x, n),
			       _mm256_sllv_epi32(x, _mm256_sub_epi32(_mm256_set1_epi32(32), n)));
}

#define ENC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F8(b##g, t_, tc_);                                                        \
		F8(d##g, u_, uc_);                                                        \
		a##g = _mm256_add_epi32(rolv8(_mm256_xor_si256(a##g, t_), uc_), FB_B128_KEY(2 * (i))); \
		c##g = _mm256_add_epi32(rolv8(_mm256_xor_si256(c##g, u_), tc_), FB_B128_KEY(2 * (i) + 1)); \
	}
#define DEC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F8(b##g, t_, tc_);                                                        \
		F8(d##g, u_, uc_);                                                        \
		c##g = _mm256_xor_si256(rorv8(_mm256_sub_epi32(c##g, FB_B128_KEY(2 * (i) + 1)), tc_), u_); \
		a##g = _mm256_xor_si256(rorv8(_mm256_sub_epi32(a##g, FB_B128_KEY(2 * (i))), uc_), t_); \
	}

/*
 * Up to 4 blocks, each word in both halves of a qword (block128_simd.h's
 * DUP kinds): a data-dependent rotation is a vpshufd and one vpsllvq or
 * vpsrlvq instead of two variable shifts, a subtraction and an or, and the
 * rotation by 5 a vpshufd and a shift. Of the product p = x(2x + 1), pd =
 * (p:p); the count p >> 27 is pd's top five bits, a clean 64-bit count.
 * Encryption keeps the words valid in the high dwords: pd << 5 has
 * p <<< 5 there, and (y:y) << n has y <<< n. Decryption keeps the low
 * ones: pd >> 27 has p <<< 5 there, and (y:y) >> n has y >>> n.
 */
#define F4(x, t, tc, DUP, sh5)                                                        \
	do {                                                                          \
		__m256i pd_ = DUP(_mm256_mullo_epi32(                                 \
			x, _mm256_or_si256(_mm256_add_epi32(x, x), _mm256_set1_epi32(1)))); \
		t = sh5(pd_);                                                         \
		tc = _mm256_srli_epi64(pd_, 59);                                      \
	} while (0)
#define SHL5(x) _mm256_slli_epi64(x, 5)
#define SHR27(x) _mm256_srli_epi64(x, 27)
#define ENC_HALF4(g, a, b, c, d, i)                                                       \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F4(b##g, t_, tc_, FB_B128_DUP_HI, SHL5);                                  \
		F4(d##g, u_, uc_, FB_B128_DUP_HI, SHL5);                                  \
		a##g = _mm256_add_epi32(_mm256_sllv_epi64(FB_B128_DUP_HI(_mm256_xor_si256(a##g, t_)), uc_), \
					FB_B128_KEY(2 * (i)));                            \
		c##g = _mm256_add_epi32(_mm256_sllv_epi64(FB_B128_DUP_HI(_mm256_xor_si256(c##g, u_)), tc_), \
					FB_B128_KEY(2 * (i) + 1));                        \
	}
#define DEC_HALF4(g, a, b, c, d, i)                                                       \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F4(b##g, t_, tc_, FB_B128_DUP_LO, SHR27);                                 \
		F4(d##g, u_, uc_, FB_B128_DUP_LO, SHR27);                                 \
		c##g = _mm256_xor_si256(_mm256_srlv_epi64(FB_B128_DUP_LO(_mm256_sub_epi32( \
						c##g, FB_B128_KEY(2 * (i) + 1))), tc_), u_); \
		a##g = _mm256_xor_si256(_mm256_srlv_epi64(FB_B128_DUP_LO(_mm256_sub_epi32( \
						a##g, FB_B128_KEY(2 * (i)))), uc_), t_);     \
	}
#define RC6_ENC4(EACH) FB_RC6_SIMD_ENC_BY(EACH, ENC_HALF4)
#define RC6_DEC4(EACH) FB_RC6_SIMD_DEC_BY(EACH, DEC_HALF4)
FB_B128_DEFINE(rc6_enc4, RC6_ENC4, 1, DUPHI)
FB_B128_DEFINE(rc6_dec4, RC6_DEC4, 1, DUPLO)

/* The kernel functions: up to 4 blocks, one, two and four groups of 8
 * blocks, fused CTR and CBC. */
FB_B128_DEFINE(rc6_enc8g, FB_RC6_SIMD_ENC, 1, PLAIN)
FB_B128_DEFINE(rc6_enc16, FB_RC6_SIMD_ENC, 2, PLAIN)
FB_B128_DEFINE(rc6_enc32, FB_RC6_SIMD_ENC, 4, PLAIN)
FB_B128_DEFINE(rc6_ctr32, FB_RC6_SIMD_ENC, 4, CTR)
FB_B128_DEFINE(rc6_dec8g, FB_RC6_SIMD_DEC, 1, PLAIN)
FB_B128_DEFINE(rc6_dec16, FB_RC6_SIMD_DEC, 2, PLAIN)
FB_B128_DEFINE(rc6_dec32, FB_RC6_SIMD_DEC, 4, PLAIN)
FB_B128_DEFINE(rc6_cbc32, FB_RC6_SIMD_DEC, 4, CBC)
FB_B128_DEFINE(rc6_cfb32, FB_RC6_SIMD_ENC, 4, CFB)
FB_B128_DEFINE(rc6_xts_enc32, FB_RC6_SIMD_ENC, 4, XTS)
FB_B128_DEFINE(rc6_xts_dec32, FB_RC6_SIMD_DEC, 4, XTS)

static TGT void rc6_enc8(const uint32_t *k, uint8_t *out, const uint8_t *in, uint8_t *iv, size_t n)
{
	(n <= 4 ? rc6_enc4 : rc6_enc8g)(k, out, in, iv, n);
}

static TGT void rc6_dec8(const uint32_t *k, uint8_t *out, const uint8_t *in, uint8_t *iv, size_t n)
{
	(n <= 4 ? rc6_dec4 : rc6_dec8g)(k, out, in, iv, n);
}

static const fb_b128_kernel rc6_avx2_k = {
	.nf = 3,
	.enc = { rc6_enc8, rc6_enc16, rc6_enc32 },
	.dec = { rc6_dec8, rc6_dec16, rc6_dec32 },
	.ctr = rc6_ctr32,
	.cbc = rc6_cbc32,
	.cfb = rc6_cfb32,
	.xts_enc = rc6_xts_enc32,
	.xts_dec = rc6_xts_dec32,
};
FB_B128_DEFINE_MODES(rc6_avx2, rc6_avx2_k)

const fb_kernel fb_rc6_avx2 = {
	.name = "rc6/avx2",
	.family = "rc6",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 1,
	.batch = 32,
	.ks_size = sizeof(fb_rc6_ks),
	.note = "RC6 on 4x8 blocks in ymm: vpmulld, vpsllvd/vpsrlvd rotates (constant-time)",
	.setkey = fb_rc6_setkey,
	.encrypt = rc6_avx2_encrypt,
	.decrypt = rc6_avx2_decrypt,
	.ctr32 = rc6_avx2_ctr32,
	.cbc_dec = rc6_avx2_cbc_dec,
	.cfb_dec = rc6_avx2_cfb_dec,
	.xts_enc = rc6_avx2_xts_enc,
	.xts_dec = rc6_avx2_xts_dec,
};

#endif /* FB_X86 */
