/*
 * rc6/avx512: RC6-32/20/b on 16 blocks per zmm register, four groups of 16
 * interleaved (natural batch 64), with fused CTR and CBC-decryption paths.
 *
 * Layout: four 64-byte loads hold blocks 0-3, 4-7, 8-11, 12-15; a 4x4
 * dword transpose inside each 128-bit lane gives registers A, B, C, D with
 * one word of 16 blocks each (dword 4L + q of a register belongs to block
 * 4q + L; the same transpose puts the blocks back in order). Per round and
 * group: vpmulld for B * (2B + 1), vprold by 5, vprolvd for the
 * data-dependent rotation (it uses the low five bits of the count, as RC6
 * wants). On Intel vpmulld has a latency of 10 cycles, so one group alone
 * leaves the two vector ports idle half the time; two groups fill them (8
 * uops per half-round and group, all on ports 0 and 5: the port limit).
 * AMD Zen 4 and 5 have four vector pipes, which two groups leave half idle:
 * four groups run 8 KB in 0.63-0.65 of two groups' time on Zen 5.
 *
 * CTR builds the counter blocks in registers (A, B, C broadcast, D the
 * byte-swapped 32-bit counter plus each block's offset); CBC decryption
 * xors each block with the previous ciphertext before storing, storing
 * from the last vector down so that in place nothing is overwritten before
 * it is read.
 *
 * Constant-time: no tables, no secret-dependent branches or addresses;
 * vpmulld/vprolvd take the same time for all operands.
 */
#define FB_B128_VBITS 512
#include "rc6.h"

#if FB_X86

#define TGT FB_B128_TGT

/* f(x) = (x * (2x + 1)) <<< 5 */
static inline TGT __m512i f16(__m512i x)
{
	__m512i y = _mm512_or_si512(_mm512_add_epi32(x, x), _mm512_set1_epi32(1));
	return _mm512_rol_epi32(_mm512_mullo_epi32(x, y), 5);
}

#define ENC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m512i t_ = f16(b##g), u_ = f16(d##g);                                   \
		a##g = _mm512_add_epi32(_mm512_rolv_epi32(_mm512_xor_si512(a##g, t_), u_), \
					FB_B128_KEY(2 * (i)));                                    \
		c##g = _mm512_add_epi32(_mm512_rolv_epi32(_mm512_xor_si512(c##g, u_), t_), \
					FB_B128_KEY(2 * (i) + 1));                                \
	}
#define DEC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m512i t_ = f16(b##g), u_ = f16(d##g);                                   \
		c##g = _mm512_xor_si512(                                                  \
			_mm512_rorv_epi32(_mm512_sub_epi32(c##g, FB_B128_KEY(2 * (i) + 1)), t_), u_); \
		a##g = _mm512_xor_si512(                                                  \
			_mm512_rorv_epi32(_mm512_sub_epi32(a##g, FB_B128_KEY(2 * (i))), u_), t_); \
	}

/* The kernel functions: one, two and four groups of 16 blocks (16 state
 * registers of 32: no spills), fused CTR and CBC. */
FB_B128_DEFINE(rc6_enc16, FB_RC6_SIMD_ENC, 1, PLAIN)
FB_B128_DEFINE(rc6_enc32, FB_RC6_SIMD_ENC, 2, PLAIN)
FB_B128_DEFINE(rc6_enc64, FB_RC6_SIMD_ENC, 4, PLAIN)
FB_B128_DEFINE(rc6_ctr64, FB_RC6_SIMD_ENC, 4, CTR)
FB_B128_DEFINE(rc6_dec16, FB_RC6_SIMD_DEC, 1, PLAIN)
FB_B128_DEFINE(rc6_dec32, FB_RC6_SIMD_DEC, 2, PLAIN)
FB_B128_DEFINE(rc6_dec64, FB_RC6_SIMD_DEC, 4, PLAIN)
FB_B128_DEFINE(rc6_cbc64, FB_RC6_SIMD_DEC, 4, CBC)
FB_B128_DEFINE(rc6_cfb64, FB_RC6_SIMD_ENC, 4, CFB)
FB_B128_DEFINE(rc6_xts_enc64, FB_RC6_SIMD_ENC, 4, XTS)
FB_B128_DEFINE(rc6_xts_dec64, FB_RC6_SIMD_DEC, 4, XTS)

static const fb_b128_kernel rc6_avx512_k = {
	.nf = 3,
	.enc = { rc6_enc16, rc6_enc32, rc6_enc64 },
	.dec = { rc6_dec16, rc6_dec32, rc6_dec64 },
	.ctr = rc6_ctr64,
	.cbc = rc6_cbc64,
	.cfb = rc6_cfb64,
	.xts_enc = rc6_xts_enc64,
	.xts_dec = rc6_xts_dec64,
};
FB_B128_DEFINE_MODES(rc6_avx512, rc6_avx512_k)

const fb_kernel fb_rc6_avx512 = {
	.name = "rc6/avx512",
	.family = "rc6",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512 | FB_CPU_AVX2, /* AVX2 for short tails */
	.constant_time = 1,
	.batch = 64,
	.ks_size = sizeof(fb_rc6_ks),
	.note = "RC6 on 4x16 blocks in zmm: vpmulld, vprold, vprolvd (constant-time)",
	.setkey = fb_rc6_setkey,
	.encrypt = rc6_avx512_encrypt,
	.decrypt = rc6_avx512_decrypt,
	.ctr32 = rc6_avx512_ctr32,
	.cbc_dec = rc6_avx512_cbc_dec,
	.cfb_dec = rc6_avx512_cfb_dec,
	.xts_enc = rc6_avx512_xts_enc,
	.xts_dec = rc6_avx512_xts_dec,
};

#endif /* FB_X86 */
