/*
 * MARS internals shared by the mars kernels (see mars_portable.c).
 * IBM's AES submission, round-2 version with the August 1999 key-setup
 * tweak (as implemented by Crypto++): Burwick et al., "MARS - a candidate
 * cipher for AES", revised September 22, 1999.
 */
#ifndef FB_MARS_H
#define FB_MARS_H

#include "../block128_simd.h"
#include "mars_tables.h"

#define FB_MARS_SUBKEYS 40 /* K[0..3] pre-whitening, K[4..35] core, K[36..39] post-whitening */

typedef struct fb_mars_ks {
	uint32_t k[FB_MARS_SUBKEYS];
} fb_mars_ks;

/* S[i] for i < 512. */
typedef uint32_t fb_mars_sbox_fn(uint32_t i);

/* Fixes a multiplication key w = K[i] (i = 5, 7, ..., 35): forces its two
 * low bits to 1 and breaks every run of 10 or more equal bits by xoring in
 * one of the patterns B[] = S[265..268], rotated by the low five bits of
 * r = K[i-1], at the bits inside the run (the run's two end bits, and bits
 * 0, 1 and 31, are never changed). */
static inline __attribute__((always_inline)) uint32_t fb_mars_fix_key(uint32_t w, uint32_t r,
								      fb_mars_sbox_fn *sbox)
{
	uint32_t pat = sbox(265 + (w & 3)), m, e;

	w |= 3;
	/* e_l = 1 iff bits l-1, l, l+1 of w are equal (1 <= l <= 30). */
	e = ~(w ^ (w << 1)) & ~(w ^ (w >> 1)) & 0x7ffffffe;
	/* Runs of >= 10 equal bits are runs of >= 8 consecutive ones in e:
	 * keep the top of each 8-run, then smear it down over 8 bits. */
	m = e & (e >> 1);
	m &= m >> 2;
	m &= m >> 4;
	m |= m << 1;
	m |= m << 2;
	m |= m << 4;
	m &= 0x7ffffffc;
	return w ^ (fb_rotl32(pat, r) & m);
}

/* The key expansion, reading the S-box through sbox (always inlined, so
 * that each setkey gets its own reader: a table load or a constant-time one). */
static inline __attribute__((always_inline)) int fb_mars_expand(void *ks, const uint8_t *key, size_t keylen,
								 fb_mars_sbox_fn *sbox)
{
	uint32_t *k = ((fb_mars_ks *)ks)->k;
	uint32_t t[15] = { 0 };
	size_t n = keylen / 4, i, j, r;

	if (keylen < 16 || keylen > 56 || keylen % 4)
		return FB_ERR_KEY_LENGTH;
	for (i = 0; i < n; i++)
		t[i] = fb_b128_load32(key + 4 * i);
	t[n] = (uint32_t)n;

	for (j = 0; j < 4; j++) {
		/* Linear transformation: T[i] ^= rotl(T[i-7] ^ T[i-2], 3) ^ (4i + j). */
		for (i = 0; i < 15; i++)
			t[i] ^= fb_rotl32(t[(i + 8) % 15] ^ t[(i + 13) % 15], 3) ^ (uint32_t)(4 * i + j);
		/* Four stirring rounds: T[i] = rotl(T[i] + S[T[i-1] mod 512], 9). */
		for (r = 0; r < 4; r++) {
			t[0] = fb_rotl32(t[0] + sbox(t[14] & 511), 9);
			for (i = 1; i < 15; i++)
				t[i] = fb_rotl32(t[i] + sbox(t[i - 1] & 511), 9);
		}
		/* Ten subkeys, taken from T[] in the order 0, 4, 8, ... mod 15. */
		for (i = 0; i < 10; i++)
			k[10 * j + i] = t[(4 * i) % 15];
	}
	for (i = 5; i <= 35; i += 2)
		k[i] = fb_mars_fix_key(k[i], k[i - 1], sbox);
	fb_wipe(t, sizeof t);
	return FB_OK;
}

/* Keys of 16..56 bytes in steps of 4 (n = 4..14 words). */
int fb_mars_setkey(void *ks, const uint8_t *key, size_t keylen);
void fb_mars_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_mars_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

extern const fb_kernel fb_mars_portable, fb_mars_avx2, fb_mars_table_avx2, fb_mars_avx512, fb_mars_permute_avx512;

/* ---- The SIMD kernels (mars_avx2.c, mars_avx512.c) on interleaved groups
 * of vectors a##g..d##g (see ../block128_simd.h). The kernel defines
 * ROL(x, n) (constant count), GATHER(idx, base) (32-bit S-box entries at
 * dword indices), BYTE0..BYTE3(x) (byte i of each dword as an index) and
 * E_FN (the E-function); the rest is here. ---- */
#define FB_MARS_SB0 ((const void *)fb_mars_sbox)
#define FB_MARS_SB1 ((const void *)(fb_mars_sbox + 256))
#define FB_MARS_S0(x) GATHER(x, FB_MARS_SB0)
#define FB_MARS_S1(x) GATHER(x, FB_MARS_SB1)

/* Mixing rounds of one group g; the names a, b, c, d are the rotating roles. */
#define FB_MARS_FWD_MIX(g, a, b, c, d)                                                        \
	b##g = FB_B128_ADD(FB_B128_XOR(b##g, FB_MARS_S0(BYTE0(a##g))), FB_MARS_S1(BYTE1(a##g))); \
	c##g = FB_B128_ADD(c##g, FB_MARS_S0(BYTE2(a##g)));                                     \
	d##g = FB_B128_XOR(d##g, FB_MARS_S1(BYTE3(a##g)));                                     \
	a##g = ROL(a##g, 8);
#define FB_MARS_BWD_MIX(g, a, b, c, d)                                                        \
	b##g = FB_B128_XOR(b##g, FB_MARS_S1(BYTE0(a##g)));                                     \
	c##g = FB_B128_SUB(c##g, FB_MARS_S0(BYTE3(a##g)));                                     \
	d##g = FB_B128_XOR(FB_B128_SUB(d##g, FB_MARS_S1(BYTE2(a##g))), FB_MARS_S0(BYTE1(a##g))); \
	a##g = ROL(a##g, 24);
#define FB_MARS_FWD_UNMIX(g, a, b, c, d)                                                      \
	a##g = ROL(a##g, 24);                                                                  \
	d##g = FB_B128_XOR(d##g, FB_MARS_S1(BYTE3(a##g)));                                     \
	c##g = FB_B128_SUB(c##g, FB_MARS_S0(BYTE2(a##g)));                                     \
	b##g = FB_B128_XOR(FB_B128_SUB(b##g, FB_MARS_S1(BYTE1(a##g))), FB_MARS_S0(BYTE0(a##g)));
#define FB_MARS_BWD_UNMIX(g, a, b, c, d)                                                      \
	a##g = ROL(a##g, 8);                                                                   \
	d##g = FB_B128_ADD(FB_B128_XOR(d##g, FB_MARS_S0(BYTE1(a##g))), FB_MARS_S1(BYTE2(a##g))); \
	c##g = FB_B128_ADD(c##g, FB_MARS_S0(BYTE3(a##g)));                                     \
	b##g = FB_B128_XOR(b##g, FB_MARS_S1(BYTE0(a##g)));

#define FB_MARS_ADD(g, x, y) x##g = FB_B128_ADD(x##g, y##g);
#define FB_MARS_SUB(g, x, y) x##g = FB_B128_SUB(x##g, y##g);
#define FB_MARS_WHITEN(g, op, k0)                    \
	a##g = op(a##g, FB_B128_KEY(k0));            \
	b##g = op(b##g, FB_B128_KEY((k0) + 1));      \
	c##g = op(c##g, FB_B128_KEY((k0) + 2));      \
	d##g = op(d##g, FB_B128_KEY((k0) + 3));

/* Core round with subkeys K[i], K[i+1]: out1/out2 are the words that get
 * l and r (forward kind: b, d; backward kind: d, b); ar is a <<< 13. */
#define FB_MARS_CORE(g, a, b, c, d, i, out1, out2)            \
	{                                                     \
		fb_b128_v ar_ = ROL(a##g, 13);                \
		E_FN(a##g, ar_, i, l_, m_, r_)                \
		a##g = ar_;                                   \
		c##g = FB_B128_ADD(c##g, m_);                 \
		out1##g = FB_B128_ADD(out1##g, l_);           \
		out2##g = FB_B128_XOR(out2##g, r_);           \
	}
#define FB_MARS_CORE_INV(g, a, b, c, d, i, out1, out2)        \
	{                                                     \
		fb_b128_v ar_ = a##g;                         \
		a##g = ROL(a##g, 19);                         \
		E_FN(a##g, ar_, i, l_, m_, r_)                \
		c##g = FB_B128_SUB(c##g, m_);                 \
		out1##g = FB_B128_SUB(out1##g, l_);           \
		out2##g = FB_B128_XOR(out2##g, r_);           \
	}
#define FB_MARS_CORE_F(g, a, b, c, d, i) FB_MARS_CORE(g, a, b, c, d, i, b, d)
#define FB_MARS_CORE_B(g, a, b, c, d, i) FB_MARS_CORE(g, a, b, c, d, i, d, b)
#define FB_MARS_CORE_F_INV(g, a, b, c, d, i) FB_MARS_CORE_INV(g, a, b, c, d, i, b, d)
#define FB_MARS_CORE_B_INV(g, a, b, c, d, i) FB_MARS_CORE_INV(g, a, b, c, d, i, d, b)

/* The whole cipher: 8 forward mixing, 16 core, 8 backward mixing rounds. */
#define FB_MARS_SIMD_ENC(EACH)                                              \
	EACH(FB_MARS_WHITEN, FB_B128_ADD, 0)                                \
	for (int i_ = 0; i_ < 2; i_++) {                                    \
		EACH(FB_MARS_FWD_MIX, a, b, c, d)                           \
		EACH(FB_MARS_ADD, a, d)                                     \
		EACH(FB_MARS_FWD_MIX, b, c, d, a)                           \
		EACH(FB_MARS_ADD, b, c)                                     \
		EACH(FB_MARS_FWD_MIX, c, d, a, b)                           \
		EACH(FB_MARS_FWD_MIX, d, a, b, c)                           \
	}                                                                   \
	for (int i_ = 0; i_ < 2; i_++) {                                    \
		EACH(FB_MARS_CORE_F, a, b, c, d, 4 + 8 * i_)                \
		EACH(FB_MARS_CORE_F, b, c, d, a, 6 + 8 * i_)                \
		EACH(FB_MARS_CORE_F, c, d, a, b, 8 + 8 * i_)                \
		EACH(FB_MARS_CORE_F, d, a, b, c, 10 + 8 * i_)               \
	}                                                                   \
	for (int i_ = 0; i_ < 2; i_++) {                                    \
		EACH(FB_MARS_CORE_B, a, b, c, d, 20 + 8 * i_)               \
		EACH(FB_MARS_CORE_B, b, c, d, a, 22 + 8 * i_)               \
		EACH(FB_MARS_CORE_B, c, d, a, b, 24 + 8 * i_)               \
		EACH(FB_MARS_CORE_B, d, a, b, c, 26 + 8 * i_)               \
	}                                                                   \
	for (int i_ = 0; i_ < 2; i_++) {                                    \
		EACH(FB_MARS_BWD_MIX, a, b, c, d)                           \
		EACH(FB_MARS_BWD_MIX, b, c, d, a)                           \
		EACH(FB_MARS_SUB, c, b)                                     \
		EACH(FB_MARS_BWD_MIX, c, d, a, b)                           \
		EACH(FB_MARS_SUB, d, a)                                     \
		EACH(FB_MARS_BWD_MIX, d, a, b, c)                           \
	}                                                                   \
	EACH(FB_MARS_WHITEN, FB_B128_SUB, 36)

#define FB_MARS_SIMD_DEC(EACH)                                              \
	EACH(FB_MARS_WHITEN, FB_B128_ADD, 36)                               \
	for (int i_ = 1; i_ >= 0; i_--) {                                   \
		EACH(FB_MARS_BWD_UNMIX, d, a, b, c)                         \
		EACH(FB_MARS_ADD, d, a)                                     \
		EACH(FB_MARS_BWD_UNMIX, c, d, a, b)                         \
		EACH(FB_MARS_ADD, c, b)                                     \
		EACH(FB_MARS_BWD_UNMIX, b, c, d, a)                         \
		EACH(FB_MARS_BWD_UNMIX, a, b, c, d)                         \
	}                                                                   \
	for (int i_ = 1; i_ >= 0; i_--) {                                   \
		EACH(FB_MARS_CORE_B_INV, d, a, b, c, 26 + 8 * i_)           \
		EACH(FB_MARS_CORE_B_INV, c, d, a, b, 24 + 8 * i_)           \
		EACH(FB_MARS_CORE_B_INV, b, c, d, a, 22 + 8 * i_)           \
		EACH(FB_MARS_CORE_B_INV, a, b, c, d, 20 + 8 * i_)           \
	}                                                                   \
	for (int i_ = 1; i_ >= 0; i_--) {                                   \
		EACH(FB_MARS_CORE_F_INV, d, a, b, c, 10 + 8 * i_)           \
		EACH(FB_MARS_CORE_F_INV, c, d, a, b, 8 + 8 * i_)            \
		EACH(FB_MARS_CORE_F_INV, b, c, d, a, 6 + 8 * i_)            \
		EACH(FB_MARS_CORE_F_INV, a, b, c, d, 4 + 8 * i_)            \
	}                                                                   \
	for (int i_ = 1; i_ >= 0; i_--) {                                   \
		EACH(FB_MARS_FWD_UNMIX, d, a, b, c)                         \
		EACH(FB_MARS_FWD_UNMIX, c, d, a, b)                         \
		EACH(FB_MARS_SUB, b, c)                                     \
		EACH(FB_MARS_FWD_UNMIX, b, c, d, a)                         \
		EACH(FB_MARS_SUB, a, d)                                     \
		EACH(FB_MARS_FWD_UNMIX, a, b, c, d)                         \
	}                                                                   \
	EACH(FB_MARS_WHITEN, FB_B128_SUB, 0)

#endif
