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
#include "mars.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx2")

/* Below this many blocks the scalar code is faster than one padded group
 * (measured: 4 blocks 820 TSC ticks scalar, 830 for a ymm group of 8). */
#define MARS_AVX2_MIN_BLOCKS 5

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

#define SB0 ((const void *)fb_mars_sbox)
#define SB1 ((const void *)(fb_mars_sbox + 256))
#define GATHER(idx, base) _mm256_i32gather_epi32((const int *)(base), idx, 4)
#define KEY(i) _mm256_set1_epi32((int)k[i])

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

/* ---- one group g; the names a, b, c, d are the rotating roles ---------- */

#define FWD_MIX(g, a, b, c, d)                                                      \
	b##g = _mm256_add_epi32(_mm256_xor_si256(b##g, GATHER(BYTE0(a##g), SB0)),   \
				GATHER(BYTE1(a##g), SB1));                          \
	c##g = _mm256_add_epi32(c##g, GATHER(BYTE2(a##g), SB0));                    \
	d##g = _mm256_xor_si256(d##g, GATHER(BYTE3(a##g), SB1));                    \
	a##g = ROL(a##g, 8);

#define BWD_MIX(g, a, b, c, d)                                                      \
	b##g = _mm256_xor_si256(b##g, GATHER(BYTE0(a##g), SB1));                    \
	c##g = _mm256_sub_epi32(c##g, GATHER(BYTE3(a##g), SB0));                    \
	d##g = _mm256_xor_si256(_mm256_sub_epi32(d##g, GATHER(BYTE2(a##g), SB1)),   \
				GATHER(BYTE1(a##g), SB0));                          \
	a##g = ROL(a##g, 24);

#define FWD_UNMIX(g, a, b, c, d)                                                    \
	a##g = ROL(a##g, 24);                                          \
	d##g = _mm256_xor_si256(d##g, GATHER(BYTE3(a##g), SB1));                    \
	c##g = _mm256_sub_epi32(c##g, GATHER(BYTE2(a##g), SB0));                    \
	b##g = _mm256_xor_si256(_mm256_sub_epi32(b##g, GATHER(BYTE1(a##g), SB1)),   \
				GATHER(BYTE0(a##g), SB0));

#define BWD_UNMIX(g, a, b, c, d)                                                    \
	a##g = ROL(a##g, 8);                                          \
	d##g = _mm256_add_epi32(_mm256_xor_si256(d##g, GATHER(BYTE1(a##g), SB0)),   \
				GATHER(BYTE2(a##g), SB1));                          \
	c##g = _mm256_add_epi32(c##g, GATHER(BYTE3(a##g), SB0));                    \
	b##g = _mm256_xor_si256(b##g, GATHER(BYTE0(a##g), SB1));

#define ADD(g, x, y) x##g = _mm256_add_epi32(x##g, y##g);
#define SUB(g, x, y) x##g = _mm256_sub_epi32(x##g, y##g);

/* E-function: l, m, r from a (already rotated left by 13 in ar) and the
 * subkeys k1 = K[i], k2 = K[i+1]. r1 = r >>> 5 is the first rotation count
 * and xor term, r the second. */
#define E_FN(a, ar, i, l, m, r)                                                     \
	__m256i m = _mm256_add_epi32(a, KEY(i));                                    \
	__m256i r = ROL(_mm256_mullo_epi32(ar, KEY((i) + 1)), 10);     \
	__m256i l = GATHER(_mm256_and_si256(m, _mm256_set1_epi32(511)), SB0);       \
	__m256i r1_ = ROL(r, 27);                                       \
	l = _mm256_xor_si256(_mm256_xor_si256(l, r1_), r);                             \
	m = rolv8(m, r1_);                                              \
	l = rolv8(l, r);

/* Core round, forward (first 8) and backward (last 8) kind. */
#define CORE_F(g, a, b, c, d, i)                                                    \
	{                                                                           \
		__m256i ar_ = ROL(a##g, 13);                           \
		E_FN(a##g, ar_, i, l_, m_, r_)                                      \
		a##g = ar_;                                                         \
		c##g = _mm256_add_epi32(c##g, m_);                                  \
		b##g = _mm256_add_epi32(b##g, l_);                                  \
		d##g = _mm256_xor_si256(d##g, r_);                                  \
	}
#define CORE_B(g, a, b, c, d, i)                                                    \
	{                                                                           \
		__m256i ar_ = ROL(a##g, 13);                           \
		E_FN(a##g, ar_, i, l_, m_, r_)                                      \
		a##g = ar_;                                                         \
		c##g = _mm256_add_epi32(c##g, m_);                                  \
		d##g = _mm256_add_epi32(d##g, l_);                                  \
		b##g = _mm256_xor_si256(b##g, r_);                                  \
	}
#define CORE_F_INV(g, a, b, c, d, i)                                                \
	{                                                                           \
		__m256i ar_ = a##g;                                                 \
		a##g = ROL(a##g, 19);                                  \
		E_FN(a##g, ar_, i, l_, m_, r_)                                      \
		c##g = _mm256_sub_epi32(c##g, m_);                                  \
		b##g = _mm256_sub_epi32(b##g, l_);                                  \
		d##g = _mm256_xor_si256(d##g, r_);                                  \
	}
#define CORE_B_INV(g, a, b, c, d, i)                                                \
	{                                                                           \
		__m256i ar_ = a##g;                                                 \
		a##g = ROL(a##g, 19);                                  \
		E_FN(a##g, ar_, i, l_, m_, r_)                                      \
		c##g = _mm256_sub_epi32(c##g, m_);                                  \
		d##g = _mm256_sub_epi32(d##g, l_);                                  \
		b##g = _mm256_xor_si256(b##g, r_);                                  \
	}

/* ---- input and output of one group g ---- */

#define VEC(p, g, v) ((p) + 128 * (g) + 32 * (v))
#define MARS_BATCH(g) (8 * (g))
#define DECL(g) __m256i a##g, b##g, c##g, d##g;
#define LOAD(g)                                                                     \
	a##g = _mm256_loadu_si256((const __m256i *)(in + 128 * (g)));                  \
	b##g = _mm256_loadu_si256((const __m256i *)(in + 128 * (g) + 32));             \
	c##g = _mm256_loadu_si256((const __m256i *)(in + 128 * (g) + 64));            \
	d##g = _mm256_loadu_si256((const __m256i *)(in + 128 * (g) + 96));            \
	TRANSPOSE4(a##g, b##g, c##g, d##g);
#define STORE(g)                                                                    \
	TRANSPOSE4(a##g, b##g, c##g, d##g);                                         \
	_mm256_storeu_si256((__m256i *)(out + 128 * (g)), a##g);                       \
	_mm256_storeu_si256((__m256i *)(out + 128 * (g) + 32), b##g);                  \
	_mm256_storeu_si256((__m256i *)(out + 128 * (g) + 64), c##g);                 \
	_mm256_storeu_si256((__m256i *)(out + 128 * (g) + 96), d##g);
#define WHITEN(g, op, k0)                                                           \
	a##g = op(a##g, KEY(k0));                                                   \
	b##g = op(b##g, KEY((k0) + 1));                                             \
	c##g = op(c##g, KEY((k0) + 2));                                             \
	d##g = op(d##g, KEY((k0) + 3));

/* CTR: words 0-2 of the counter block are the same for all blocks; word 3
 * (little-endian) is the byte swap of the big-endian counter + block. */
#define CTR_SETUP                                                                      \
	const __m256i cw0_ = _mm256_set1_epi32((int)fb_mars_load32(iv));                \
	const __m256i cw1_ = _mm256_set1_epi32((int)fb_mars_load32(iv + 4));            \
	const __m256i cw2_ = _mm256_set1_epi32((int)fb_mars_load32(iv + 8));            \
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
	memcpy(iv, in + 16 * (MARS_BATCH(G) - 1), 16);
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
#define EACH4(M, ...) M(0, __VA_ARGS__) M(1, __VA_ARGS__) M(2, __VA_ARGS__) M(3, __VA_ARGS__)
#define EACH1_(M) M(0)
#define EACH2_(M) M(0) M(1)
#define EACH4_(M) M(0) M(1) M(2) M(3)
#define EACH4R_(M) M(3) M(2) M(1) M(0)

/* Encryption of 16 * G blocks, in -> out (may alias). */
#define DEFINE_ENC(name, EACH, EACH_, GN, SETUP, IN, OUT)                           \
	static TGT void name(const uint32_t *k, uint8_t *out, const uint8_t *in,    \
			     uint8_t *iv)                                           \
	{                                                                           \
		enum { G = GN };                                                    \
		SETUP                                                               \
		EACH_(DECL)                                                         \
		int i;                                                              \
		(void)iv;                                                           \
		EACH_(IN)                                                           \
		EACH(WHITEN, _mm256_add_epi32, 0)                                   \
		for (i = 0; i < 2; i++) {                                           \
			EACH(FWD_MIX, a, b, c, d)                                   \
			EACH(ADD, a, d)                                             \
			EACH(FWD_MIX, b, c, d, a)                                   \
			EACH(ADD, b, c)                                             \
			EACH(FWD_MIX, c, d, a, b)                                   \
			EACH(FWD_MIX, d, a, b, c)                                   \
		}                                                                   \
		for (i = 0; i < 2; i++) {                                           \
			EACH(CORE_F, a, b, c, d, 4 + 8 * i)                         \
			EACH(CORE_F, b, c, d, a, 6 + 8 * i)                         \
			EACH(CORE_F, c, d, a, b, 8 + 8 * i)                         \
			EACH(CORE_F, d, a, b, c, 10 + 8 * i)                        \
		}                                                                   \
		for (i = 0; i < 2; i++) {                                           \
			EACH(CORE_B, a, b, c, d, 20 + 8 * i)                        \
			EACH(CORE_B, b, c, d, a, 22 + 8 * i)                        \
			EACH(CORE_B, c, d, a, b, 24 + 8 * i)                        \
			EACH(CORE_B, d, a, b, c, 26 + 8 * i)                        \
		}                                                                   \
		for (i = 0; i < 2; i++) {                                           \
			EACH(BWD_MIX, a, b, c, d)                                   \
			EACH(BWD_MIX, b, c, d, a)                                   \
			EACH(SUB, c, b)                                             \
			EACH(BWD_MIX, c, d, a, b)                                   \
			EACH(SUB, d, a)                                             \
			EACH(BWD_MIX, d, a, b, c)                                   \
		}                                                                   \
		EACH(WHITEN, _mm256_sub_epi32, 36)                                  \
		EACH_(OUT)                                                          \
	}

#define DEFINE_DEC(name, EACH, EACH_, GN, SETUP, IN, OUT)                           \
	static TGT void name(const uint32_t *k, uint8_t *out, const uint8_t *in,    \
			     uint8_t *iv)                                           \
	{                                                                           \
		enum { G = GN };                                                    \
		SETUP                                                               \
		EACH_(DECL)                                                         \
		int i;                                                              \
		(void)iv;                                                           \
		EACH_(IN)                                                           \
		EACH(WHITEN, _mm256_add_epi32, 36)                                  \
		for (i = 1; i >= 0; i--) {                                          \
			EACH(BWD_UNMIX, d, a, b, c)                                 \
			EACH(ADD, d, a)                                             \
			EACH(BWD_UNMIX, c, d, a, b)                                 \
			EACH(ADD, c, b)                                             \
			EACH(BWD_UNMIX, b, c, d, a)                                 \
			EACH(BWD_UNMIX, a, b, c, d)                                 \
		}                                                                   \
		for (i = 1; i >= 0; i--) {                                          \
			EACH(CORE_B_INV, d, a, b, c, 26 + 8 * i)                    \
			EACH(CORE_B_INV, c, d, a, b, 24 + 8 * i)                    \
			EACH(CORE_B_INV, b, c, d, a, 22 + 8 * i)                    \
			EACH(CORE_B_INV, a, b, c, d, 20 + 8 * i)                    \
		}                                                                   \
		for (i = 1; i >= 0; i--) {                                          \
			EACH(CORE_F_INV, d, a, b, c, 10 + 8 * i)                    \
			EACH(CORE_F_INV, c, d, a, b, 8 + 8 * i)                     \
			EACH(CORE_F_INV, b, c, d, a, 6 + 8 * i)                     \
			EACH(CORE_F_INV, a, b, c, d, 4 + 8 * i)                     \
		}                                                                   \
		for (i = 1; i >= 0; i--) {                                          \
			EACH(FWD_UNMIX, d, a, b, c)                                 \
			EACH(FWD_UNMIX, c, d, a, b)                                 \
			EACH(SUB, b, c)                                             \
			EACH(FWD_UNMIX, b, c, d, a)                                 \
			EACH(SUB, a, d)                                             \
			EACH(FWD_UNMIX, a, b, c, d)                                 \
		}                                                                   \
		EACH(WHITEN, _mm256_sub_epi32, 0)                                   \
		EACH_(OUT)                                                          \
	}

DEFINE_ENC(mars_enc8, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_ENC(mars_enc16, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_ENC(mars_enc32, EACH4, EACH4_, 4, NO_SETUP, LOAD, STORE)
DEFINE_ENC(mars_ctr32, EACH4, EACH4_, 4, CTR_SETUP, LOAD_CTR, STORE_XOR)
DEFINE_DEC(mars_dec8, EACH1, EACH1_, 1, NO_SETUP, LOAD, STORE)
DEFINE_DEC(mars_dec16, EACH2, EACH2_, 2, NO_SETUP, LOAD, STORE)
DEFINE_DEC(mars_dec32, EACH4, EACH4_, 4, NO_SETUP, LOAD, STORE)
DEFINE_DEC(mars_cbc32, EACH4, EACH4R_, 4, CBC_SETUP, LOAD, STORE_CBC)

typedef void (*mars_fn)(const uint32_t *, uint8_t *, const uint8_t *, uint8_t *);

/* Full batches of 32, then the tail through a stack buffer with as few
 * groups as cover it (never reading or writing past the caller's blocks),
 * or scalar code if it is tiny. */
static void mars_avx2_run(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			    const mars_fn f[3], int enc)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;
	_Alignas(32) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512)
		f[2](k, out, in, NULL);
	if (n == 0)
		return;
	if (n < MARS_AVX2_MIN_BLOCKS) {
		(enc ? fb_mars_encrypt_portable : fb_mars_decrypt_portable)(ks, out, in, n);
		return;
	}
	memcpy(buf, in, 16 * n);
	f[n <= 8 ? 0 : n <= 16 ? 1 : 2](k, buf, buf, NULL);
	memcpy(out, buf, 16 * n);
	fb_wipe(buf, 16 * n);
}

static void mars_encrypt_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	static const mars_fn f[3] = { mars_enc8, mars_enc16, mars_enc32 };
	mars_avx2_run(ks, out, in, n, f, 1);
}

static void mars_decrypt_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	static const mars_fn f[3] = { mars_dec8, mars_dec16, mars_dec32 };
	mars_avx2_run(ks, out, in, n, f, 0);
}

static void mars_ctr32_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
			      uint8_t *ctr)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;
	_Alignas(32) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512) {
		mars_ctr32(k, out, in, ctr);
		fb_mars_ctr_advance(ctr, 32);
	}
	if (n == 0)
		return;
	fb_mars_ctr_fill(buf, ctr, n);
	mars_encrypt_avx2(ks, buf, buf, n);
	fb_mars_xor(out, in, buf, 16 * n);
	fb_mars_ctr_advance(ctr, n);
	fb_wipe(buf, 16 * n);
}

static void mars_cbc_dec_avx2(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				uint8_t *iv)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;
	_Alignas(32) uint8_t buf[512];

	for (; n >= 32; n -= 32, in += 512, out += 512)
		mars_cbc32(k, out, in, iv);
	if (n == 0)
		return;
	mars_decrypt_avx2(ks, buf, in, n);
	fb_mars_cbc_finish(out, buf, in, n, iv);
	fb_wipe(buf, 16 * n);
}

const fb_kernel fb_mars_avx2 = {
	.name = "mars/avx2",
	.family = "mars",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 0,
	.batch = 32,
	.ks_size = sizeof(fb_mars_ks),
	.note = "MARS on 4x8 blocks in ymm, S-box by vpgatherdd (not constant-time)",
	.setkey = fb_mars_setkey,
	.encrypt = mars_encrypt_avx2,
	.decrypt = mars_decrypt_avx2,
	.ctr32 = mars_ctr32_avx2,
	.cbc_dec = mars_cbc_dec_avx2,
};

#endif /* FB_X86 */
