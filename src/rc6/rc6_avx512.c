/*
 * rc6/avx512: RC6-32/20/b on 16 blocks per zmm register, two groups of 16
 * interleaved (natural batch 32), with fused CTR and CBC-decryption paths.
 *
 * Layout: four 64-byte loads hold blocks 0-3, 4-7, 8-11, 12-15; a 4x4
 * dword transpose inside each 128-bit lane gives registers A, B, C, D with
 * one word of 16 blocks each (dword 4L + q of a register belongs to block
 * 4q + L; the same transpose puts the blocks back in order). Per round and
 * group: vpmulld for B * (2B + 1), vprold by 5, vprolvd for the
 * data-dependent rotation (it uses the low five bits of the count, as RC6
 * wants). vpmulld has a latency of 10 cycles, so one group alone leaves the
 * two vector ports idle half the time; two groups fill them (8 uops per
 * half-round and group, all on ports 0 and 5: the rounds run at the port
 * limit).
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
#include "rc6.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx512f,avx512vl,avx512bw,avx512dq")

/* Tails: below 5 blocks the scalar code is faster than one padded group
 * (measured: 4 blocks 600 TSC ticks scalar, 800 for a zmm group of 16), and
 * up to 8 blocks the 8-lane ymm group of rc6/avx2 is (630 ticks). */
#define RC6_AVX512_MIN_BLOCKS 5
#define RC6_AVX512_YMM_BLOCKS 8

/* 4x4 transpose of dwords inside each 128-bit lane (its own inverse). */
#define TRANSPOSE4(a, b, c, d)                                   \
	do {                                                     \
		__m512i t0_ = _mm512_unpacklo_epi32(a, b);       \
		__m512i t1_ = _mm512_unpackhi_epi32(a, b);       \
		__m512i t2_ = _mm512_unpacklo_epi32(c, d);       \
		__m512i t3_ = _mm512_unpackhi_epi32(c, d);       \
		a = _mm512_unpacklo_epi64(t0_, t2_);             \
		b = _mm512_unpackhi_epi64(t0_, t2_);             \
		c = _mm512_unpacklo_epi64(t1_, t3_);             \
		d = _mm512_unpackhi_epi64(t1_, t3_);             \
	} while (0)

/* f(x) = (x * (2x + 1)) <<< 5 */
static inline TGT __m512i f16(__m512i x)
{
	__m512i y = _mm512_or_si512(_mm512_add_epi32(x, x), _mm512_set1_epi32(1));
	return _mm512_rol_epi32(_mm512_mullo_epi32(x, y), 5);
}

#define KEY(i) _mm512_set1_epi32((int)s[i])

#define ENC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m512i t_ = f16(b##g), u_ = f16(d##g);                                   \
		a##g = _mm512_add_epi32(_mm512_rolv_epi32(_mm512_xor_si512(a##g, t_), u_), \
					KEY(2 * (i)));                                    \
		c##g = _mm512_add_epi32(_mm512_rolv_epi32(_mm512_xor_si512(c##g, u_), t_), \
					KEY(2 * (i) + 1));                                \
	}
#define DEC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m512i t_ = f16(b##g), u_ = f16(d##g);                                   \
		c##g = _mm512_xor_si512(                                                  \
			_mm512_rorv_epi32(_mm512_sub_epi32(c##g, KEY(2 * (i) + 1)), t_), u_); \
		a##g = _mm512_xor_si512(                                                  \
			_mm512_rorv_epi32(_mm512_sub_epi32(a##g, KEY(2 * (i))), u_), t_); \
	}
#define ADDK(g, x, i) x##g = _mm512_add_epi32(x##g, KEY(i));
#define SUBK(g, x, i) x##g = _mm512_sub_epi32(x##g, KEY(i));

/* ---- input and output of one group g (blocks 16g .. 16g + 15) --------- */

#define DECL(g) __m512i a##g, b##g, c##g, d##g;
#define VEC(p, g, v) ((p) + 256 * (g) + 64 * (v))
#define LOAD(g)                                                       \
	a##g = _mm512_loadu_si512((const void *)VEC(in, g, 0));       \
	b##g = _mm512_loadu_si512((const void *)VEC(in, g, 1));       \
	c##g = _mm512_loadu_si512((const void *)VEC(in, g, 2));       \
	d##g = _mm512_loadu_si512((const void *)VEC(in, g, 3));       \
	TRANSPOSE4(a##g, b##g, c##g, d##g);
#define STORE(g)                                                      \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                           \
	_mm512_storeu_si512((void *)VEC(out, g, 0), a##g);            \
	_mm512_storeu_si512((void *)VEC(out, g, 1), b##g);            \
	_mm512_storeu_si512((void *)VEC(out, g, 2), c##g);            \
	_mm512_storeu_si512((void *)VEC(out, g, 3), d##g);

/* CTR: words 0-2 of the counter block are the same for all blocks; word 3
 * (little-endian) is the byte swap of the big-endian counter + block. */
#define CTR_SETUP                                                                      \
	const __m512i cw0_ = _mm512_set1_epi32((int)fb_rc6_load32(iv));                \
	const __m512i cw1_ = _mm512_set1_epi32((int)fb_rc6_load32(iv + 4));            \
	const __m512i cw2_ = _mm512_set1_epi32((int)fb_rc6_load32(iv + 8));            \
	const __m512i cnt_ = _mm512_add_epi32(                                         \
		_mm512_set1_epi32((int)fb_load32_be(iv + 12)),                         \
		_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0)); \
	const __m512i bswap_ = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
#define LOAD_CTR(g)                                                                    \
	a##g = cw0_;                                                                   \
	b##g = cw1_;                                                                   \
	c##g = cw2_;                                                                   \
	d##g = _mm512_shuffle_epi8(_mm512_add_epi32(cnt_, _mm512_set1_epi32(16 * (g))), bswap_);
#define STORE_XOR(g)                                                                   \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                                            \
	_mm512_storeu_si512((void *)VEC(out, g, 0),                                    \
			    _mm512_xor_si512(a##g, _mm512_loadu_si512((const void *)VEC(in, g, 0)))); \
	_mm512_storeu_si512((void *)VEC(out, g, 1),                                    \
			    _mm512_xor_si512(b##g, _mm512_loadu_si512((const void *)VEC(in, g, 1)))); \
	_mm512_storeu_si512((void *)VEC(out, g, 2),                                    \
			    _mm512_xor_si512(c##g, _mm512_loadu_si512((const void *)VEC(in, g, 2)))); \
	_mm512_storeu_si512((void *)VEC(out, g, 3),                                    \
			    _mm512_xor_si512(d##g, _mm512_loadu_si512((const void *)VEC(in, g, 3))));

/* CBC decryption: the previous ciphertext of the four blocks of vector v
 * starts 16 bytes earlier; for the very first block it is iv (a masked load
 * that never touches the 16 bytes before the buffer). Stored from the last
 * vector down: each store only overwrites ciphertext no later load needs. */
#define CBC_SETUP                                                                      \
	const __m512i iv_ = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)iv)); \
	memcpy(iv, in + 16 * (RC6_BATCH(G) - 1), 16);
#define PREV(g, v)                                                                     \
	((g) == 0 && (v) == 0 ? _mm512_mask_loadu_epi32(iv_, 0xfff0, in - 16)          \
			      : _mm512_loadu_si512((const void *)(VEC(in, g, v) - 16)))
#define STORE_CBC(g)                                                                   \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                                            \
	_mm512_storeu_si512((void *)VEC(out, g, 3), _mm512_xor_si512(d##g, PREV(g, 3))); \
	_mm512_storeu_si512((void *)VEC(out, g, 2), _mm512_xor_si512(c##g, PREV(g, 2))); \
	_mm512_storeu_si512((void *)VEC(out, g, 1), _mm512_xor_si512(b##g, PREV(g, 1))); \
	_mm512_storeu_si512((void *)VEC(out, g, 0), _mm512_xor_si512(a##g, PREV(g, 0)));

#define NO_SETUP

#define EACH1(M, ...) M(0, __VA_ARGS__)
#define EACH2(M, ...) M(0, __VA_ARGS__) M(1, __VA_ARGS__)
#define EACH1_(M) M(0)
#define EACH2_(M) M(0) M(1)
#define EACH2R_(M) M(1) M(0)
#define RC6_BATCH(g) (16 * (g))

/* One function per (group count, input, output); iv is the counter block
 * for CTR, the chaining value for CBC, unused otherwise. */
#define DEFINE_ENC(name, EACH, EACH_, GN, SETUP, IN, OUT)                           \
	static TGT void name(const uint32_t *s, uint8_t *out, const uint8_t *in,     \
			     uint8_t *iv)                                            \
	{                                                                            \
		enum { G = GN };                                                     \
		SETUP                                                                \
		EACH_(DECL)                                                          \
		int r;                                                               \
		(void)iv;                                                            \
		EACH_(IN)                                                            \
		EACH(ADDK, b, 0)                                                     \
		EACH(ADDK, d, 1)                                                     \
		for (r = 1; r <= FB_RC6_ROUNDS; r += 4) {                            \
			EACH(ENC_HALF, a, b, c, d, r)                                \
			EACH(ENC_HALF, b, c, d, a, r + 1)                            \
			EACH(ENC_HALF, c, d, a, b, r + 2)                            \
			EACH(ENC_HALF, d, a, b, c, r + 3)                            \
		}                                                                    \
		EACH(ADDK, a, 42)                                                    \
		EACH(ADDK, c, 43)                                                    \
		EACH_(OUT)                                                           \
	}

#define DEFINE_DEC(name, EACH, EACH_, GN, SETUP, IN, OUT)                           \
	static TGT void name(const uint32_t *s, uint8_t *out, const uint8_t *in,     \
			     uint8_t *iv)                                            \
	{                                                                            \
		enum { G = GN };                                                     \
		SETUP                                                                \
		EACH_(DECL)                                                          \
		int r;                                                               \
		(void)iv;                                                            \
		EACH_(IN)                                                            \
		EACH(SUBK, c, 43)                                                    \
		EACH(SUBK, a, 42)                                                    \
		for (r = FB_RC6_ROUNDS; r >= 1; r -= 4) {                            \
			EACH(DEC_HALF, d, a, b, c, r)                                \
			EACH(DEC_HALF, c, d, a, b, r - 1)                            \
			EACH(DEC_HALF, b, c, d, a, r - 2)                            \
			EACH(DEC_HALF, a, b, c, d, r - 3)                            \
		}                                                                    \
		EACH(SUBK, d, 1)                                                     \
		EACH(SUBK, b, 0)                                                     \
		EACH_(OUT)                                                           \
	}

DEFINE_ENC(rc6_enc16, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_ENC(rc6_enc32, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_ENC(rc6_ctr32, EACH2, EACH2_, 2, CTR_SETUP, LOAD_CTR, STORE_XOR)
DEFINE_DEC(rc6_dec16, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_DEC(rc6_dec32, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_DEC(rc6_cbc32, EACH2, EACH2R_, 2, CBC_SETUP, LOAD, STORE_CBC)

typedef void (*rc6_fn)(const uint32_t *, uint8_t *, const uint8_t *, uint8_t *);

/* Full batches of 32, then the tail through a stack buffer (never reading
 * or writing past the caller's blocks), or narrower code if it is short. */
static void rc6_avx512_run(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			   rc6_fn f32, rc6_fn f16, int enc)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(64) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512)
		f32(s, out, in, NULL);
	if (n == 0)
		return;
	if (n < RC6_AVX512_MIN_BLOCKS) {
		(enc ? fb_rc6_encrypt_portable : fb_rc6_decrypt_portable)(ks, out, in, n);
		return;
	}
	if (n <= RC6_AVX512_YMM_BLOCKS) {
		(enc ? fb_rc6_avx2.encrypt : fb_rc6_avx2.decrypt)(ks, out, in, n);
		return;
	}
	memcpy(buf, in, 16 * n);
	(n > 16 ? f32 : f16)(s, buf, buf, NULL);
	memcpy(out, buf, 16 * n);
	fb_wipe(buf, 16 * n);
}

static void rc6_encrypt_avx512(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rc6_avx512_run(ks, out, in, n, rc6_enc32, rc6_enc16, 1);
}

static void rc6_decrypt_avx512(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rc6_avx512_run(ks, out, in, n, rc6_dec32, rc6_dec16, 0);
}

static void rc6_ctr32_avx512(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			     uint8_t *ctr)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(64) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512) {
		rc6_ctr32(s, out, in, ctr);
		fb_rc6_ctr_advance(ctr, 32);
	}
	if (n == 0)
		return;
	fb_rc6_ctr_fill(buf, ctr, n);
	rc6_encrypt_avx512(ks, buf, buf, n);
	fb_rc6_xor(out, in, buf, 16 * n);
	fb_rc6_ctr_advance(ctr, n);
	fb_wipe(buf, 16 * n);
}

static void rc6_cbc_dec_avx512(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			       uint8_t *iv)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(64) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512)
		rc6_cbc32(s, out, in, iv);
	if (n == 0)
		return;
	rc6_decrypt_avx512(ks, buf, in, n);
	fb_rc6_cbc_finish(out, buf, in, n, iv);
	fb_wipe(buf, 16 * n);
}

const fb_kernel fb_rc6_avx512 = {
	.name = "rc6/avx512",
	.family = "rc6",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512 | FB_CPU_AVX2, /* AVX2 for short tails */
	.constant_time = 1,
	.batch = 32,
	.ks_size = sizeof(fb_rc6_ks),
	.note = "RC6 on 2x16 blocks in zmm: vpmulld, vprold, vprolvd (constant-time)",
	.setkey = fb_rc6_setkey,
	.encrypt = rc6_encrypt_avx512,
	.decrypt = rc6_decrypt_avx512,
	.ctr32 = rc6_ctr32_avx512,
	.cbc_dec = rc6_cbc_dec_avx512,
};

#endif /* FB_X86 */
