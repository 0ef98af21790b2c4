/*
 * rc6/avx2: RC6-32/20/b on 8 blocks per ymm register, two groups of 8
 * interleaved (natural batch 16), with fused CTR and CBC-decryption paths.
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
#include "rc6.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx2")

/* Below this many blocks the scalar code is faster than one padded group
 * (measured: 4 blocks 600 TSC ticks scalar, 625 for a ymm group of 8). */
#define RC6_AVX2_MIN_BLOCKS 5

/* 4x4 transpose of dwords inside each 128-bit lane (its own inverse). */
#define TRANSPOSE4(a, b, c, d)                                   \
	do {                                                     \
		__m256i t0_ = _mm256_unpacklo_epi32(a, b);       \
		__m256i t1_ = _mm256_unpackhi_epi32(a, b);       \
		__m256i t2_ = _mm256_unpacklo_epi32(c, d);       \
		__m256i t3_ = _mm256_unpackhi_epi32(c, d);       \
		a = _mm256_unpacklo_epi64(t0_, t2_);             \
		b = _mm256_unpackhi_epi64(t0_, t2_);             \
		c = _mm256_unpacklo_epi64(t1_, t3_);             \
		d = _mm256_unpackhi_epi64(t1_, t3_);             \
	} while (0)

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

#define KEY(i) _mm256_set1_epi32((int)s[i])

#define ENC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F8(b##g, t_, tc_);                                                        \
		F8(d##g, u_, uc_);                                                        \
		a##g = _mm256_add_epi32(rolv8(_mm256_xor_si256(a##g, t_), uc_), KEY(2 * (i))); \
		c##g = _mm256_add_epi32(rolv8(_mm256_xor_si256(c##g, u_), tc_), KEY(2 * (i) + 1)); \
	}
#define DEC_HALF(g, a, b, c, d, i)                                                        \
	{                                                                                 \
		__m256i t_, tc_, u_, uc_;                                                 \
		F8(b##g, t_, tc_);                                                        \
		F8(d##g, u_, uc_);                                                        \
		c##g = _mm256_xor_si256(rorv8(_mm256_sub_epi32(c##g, KEY(2 * (i) + 1)), tc_), u_); \
		a##g = _mm256_xor_si256(rorv8(_mm256_sub_epi32(a##g, KEY(2 * (i))), uc_), t_); \
	}
#define ADDK(g, x, i) x##g = _mm256_add_epi32(x##g, KEY(i));
#define SUBK(g, x, i) x##g = _mm256_sub_epi32(x##g, KEY(i));

/* ---- input and output of one group g (blocks 16g .. 16g + 15) --------- */

#define DECL(g) __m256i a##g, b##g, c##g, d##g;
#define VEC(p, g, v) ((p) + 128 * (g) + 32 * (v))
#define LOAD(g)                                                       \
	a##g = _mm256_loadu_si256((const __m256i *)VEC(in, g, 0));       \
	b##g = _mm256_loadu_si256((const __m256i *)VEC(in, g, 1));       \
	c##g = _mm256_loadu_si256((const __m256i *)VEC(in, g, 2));       \
	d##g = _mm256_loadu_si256((const __m256i *)VEC(in, g, 3));       \
	TRANSPOSE4(a##g, b##g, c##g, d##g);
#define STORE(g)                                                      \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                           \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 0), a##g);            \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 1), b##g);            \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 2), c##g);            \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 3), d##g);

/* CTR: words 0-2 of the counter block are the same for all blocks; word 3
 * (little-endian) is the byte swap of the big-endian counter + block. */
#define CTR_SETUP                                                                      \
	const __m256i cw0_ = _mm256_set1_epi32((int)fb_rc6_load32(iv));                \
	const __m256i cw1_ = _mm256_set1_epi32((int)fb_rc6_load32(iv + 4));            \
	const __m256i cw2_ = _mm256_set1_epi32((int)fb_rc6_load32(iv + 8));            \
	const __m256i cnt_ = _mm256_add_epi32(                                         \
		_mm256_set1_epi32((int)fb_load32_be(iv + 12)),                         \
		_mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0));                             \
	const __m256i bswap_ = _mm256_set_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203, \
						0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
#define LOAD_CTR(g)                                                                    \
	a##g = cw0_;                                                                   \
	b##g = cw1_;                                                                   \
	c##g = cw2_;                                                                   \
	d##g = _mm256_shuffle_epi8(_mm256_add_epi32(cnt_, _mm256_set1_epi32(8 * (g))), bswap_);
#define STORE_XOR(g)                                                                   \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                                            \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 0),                                    \
			    _mm256_xor_si256(a##g, _mm256_loadu_si256((const __m256i *)VEC(in, g, 0)))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 1),                                    \
			    _mm256_xor_si256(b##g, _mm256_loadu_si256((const __m256i *)VEC(in, g, 1)))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 2),                                    \
			    _mm256_xor_si256(c##g, _mm256_loadu_si256((const __m256i *)VEC(in, g, 2)))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 3),                                    \
			    _mm256_xor_si256(d##g, _mm256_loadu_si256((const __m256i *)VEC(in, g, 3))));

/* CBC decryption: the previous ciphertext of the four blocks of vector v
 * starts 16 bytes earlier; for the very first block it is iv (assembled
 * from iv and block 0, never touching the 16 bytes before the buffer). Stored from the last
 * vector down: each store only overwrites ciphertext no later load needs. */
#define CBC_SETUP                                                                      \
	const __m256i prev0_ = _mm256_inserti128_si256(                                \
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)iv)),          \
		_mm_loadu_si128((const __m128i *)in), 1);                              \
	memcpy(iv, in + 16 * (RC6_BATCH(G) - 1), 16);
#define PREV(g, v)                                                                     \
	((g) == 0 && (v) == 0 ? prev0_ : _mm256_loadu_si256((const __m256i *)(VEC(in, g, v) - 16)))
#define STORE_CBC(g)                                                                   \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                                            \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 3), _mm256_xor_si256(d##g, PREV(g, 3))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 2), _mm256_xor_si256(c##g, PREV(g, 2))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 1), _mm256_xor_si256(b##g, PREV(g, 1))); \
	_mm256_storeu_si256((__m256i *)VEC(out, g, 0), _mm256_xor_si256(a##g, PREV(g, 0)));

#define NO_SETUP

#define EACH1(M, ...) M(0, __VA_ARGS__)
#define EACH2(M, ...) M(0, __VA_ARGS__) M(1, __VA_ARGS__)
#define EACH1_(M) M(0)
#define EACH2_(M) M(0) M(1)
#define EACH2R_(M) M(1) M(0)
#define RC6_BATCH(g) (8 * (g))

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

DEFINE_ENC(rc6_enc8, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_ENC(rc6_enc16, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_ENC(rc6_ctr16, EACH2, EACH2_, 2, CTR_SETUP, LOAD_CTR, STORE_XOR)
DEFINE_DEC(rc6_dec8, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_DEC(rc6_dec16, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_DEC(rc6_cbc16, EACH2, EACH2R_, 2, CBC_SETUP, LOAD, STORE_CBC)

typedef void (*rc6_fn)(const uint32_t *, uint8_t *, const uint8_t *, uint8_t *);

/* Full batches of 16, then the tail through a stack buffer (never reading
 * or writing past the caller's blocks), or scalar code if it is tiny. */
static void rc6_avx2_run(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			   rc6_fn f16, rc6_fn f8, int enc)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(32) uint8_t buf[256];

	for (; n >= 16; n -= 16, in += 256, out += 256)
		f16(s, out, in, NULL);
	if (n == 0)
		return;
	if (n < RC6_AVX2_MIN_BLOCKS) {
		(enc ? fb_rc6_encrypt_portable : fb_rc6_decrypt_portable)(ks, out, in, n);
		return;
	}
	memcpy(buf, in, 16 * n);
	(n > 8 ? f16 : f8)(s, buf, buf, NULL);
	memcpy(out, buf, 16 * n);
	fb_wipe(buf, 16 * n);
}

static void rc6_encrypt_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rc6_avx2_run(ks, out, in, n, rc6_enc16, rc6_enc8, 1);
}

static void rc6_decrypt_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rc6_avx2_run(ks, out, in, n, rc6_dec16, rc6_dec8, 0);
}

static void rc6_ctr32_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			     uint8_t *ctr)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(32) uint8_t buf[256];

	for (; n >= 16; n -= 16, in += 256, out += 256) {
		rc6_ctr16(s, out, in, ctr);
		fb_rc6_ctr_advance(ctr, 16);
	}
	if (n == 0)
		return;
	fb_rc6_ctr_fill(buf, ctr, n);
	rc6_encrypt_avx2(ks, buf, buf, n);
	fb_rc6_xor(out, in, buf, 16 * n);
	fb_rc6_ctr_advance(ctr, n);
	fb_wipe(buf, 16 * n);
}

static void rc6_cbc_dec_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			       uint8_t *iv)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;
	_Alignas(32) uint8_t buf[256];

	for (; n >= 16; n -= 16, in += 256, out += 256)
		rc6_cbc16(s, out, in, iv);
	if (n == 0)
		return;
	rc6_decrypt_avx2(ks, buf, in, n);
	fb_rc6_cbc_finish(out, buf, in, n, iv);
	fb_wipe(buf, 16 * n);
}

const fb_kernel fb_rc6_avx2 = {
	.name = "rc6/avx2",
	.family = "rc6",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 1,
	.batch = 16,
	.ks_size = sizeof(fb_rc6_ks),
	.note = "RC6 on 2x8 blocks in ymm: vpmulld, vpsllvd/vpsrlvd rotates (constant-time)",
	.setkey = fb_rc6_setkey,
	.encrypt = rc6_encrypt_avx2,
	.decrypt = rc6_decrypt_avx2,
	.ctr32 = rc6_ctr32_avx2,
	.cbc_dec = rc6_cbc_dec_avx2,
};

#endif /* FB_X86 */
