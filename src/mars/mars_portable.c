/*
 * mars/portable: MARS (tweaked, round 2) in plain C with the 512-word S-box.
 *
 * NOT constant-time: every round looks the S-box up at indices derived from
 * secret data, so the cache lines touched depend on key and plaintext.
 */
#define FB_MARS_TABLES_DEFINE /* the one file that defines fb_mars_sbox[] */
#include "mars.h"

#define S0(x) fb_mars_sbox[(x) & 0xff]
#define S1(x) fb_mars_sbox[256 + ((x) & 0xff)]

/* Fixes a multiplication key w = K[i] (i = 5, 7, ..., 35): forces its two
 * low bits to 1 and breaks every run of 10 or more equal bits by xoring in
 * one of the patterns B[] = S[265..268], rotated by the low five bits of
 * r = K[i-1], at the bits inside the run (the run's two end bits, and bits
 * 0, 1 and 31, are never changed). */
static uint32_t mars_fix_key(uint32_t w, uint32_t r)
{
	const uint32_t *bpat = &fb_mars_sbox[265];
	uint32_t pat = bpat[w & 3], m, e;

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

int fb_mars_setkey(void *ks, const uint8_t *key, size_t keylen)
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
			t[0] = fb_rotl32(t[0] + fb_mars_sbox[t[14] & 511], 9);
			for (i = 1; i < 15; i++)
				t[i] = fb_rotl32(t[i] + fb_mars_sbox[t[i - 1] & 511], 9);
		}
		/* Ten subkeys, taken from T[] in the order 0, 4, 8, ... mod 15. */
		for (i = 0; i < 10; i++)
			k[10 * j + i] = t[(4 * i) % 15];
	}
	for (i = 5; i <= 35; i += 2)
		k[i] = mars_fix_key(k[i], k[i - 1]);
	fb_wipe(t, sizeof t);
	return FB_OK;
}

/* Forward mixing round: a's four bytes modify b, c, d; a rotates right 24. */
#define FWD_MIX(a, b, c, d)                  \
	do {                                 \
		b = (b ^ S0(a)) + S1(a >> 8); \
		c += S0(a >> 16);             \
		d ^= S1(a >> 24);             \
		a = fb_rotr32(a, 24);         \
	} while (0)

/* Backward mixing round. */
#define BWD_MIX(a, b, c, d)                       \
	do {                                      \
		b ^= S1(a);                       \
		c -= S0(a >> 24);                 \
		d = (d - S1(a >> 16)) ^ S0(a >> 8); \
		a = fb_rotl32(a, 24);             \
	} while (0)

/* The E-function of the core rounds: from a and subkeys k1 (additive) and
 * k2 (multiplicative) to l, m, r. */
#define MARS_E(a, k1, k2, l, m, r)                       \
	do {                                             \
		m = (a) + (k1);                          \
		r = fb_rotl32(fb_rotl32(a, 13) * (k2), 10); \
		l = fb_mars_sbox[m & 511] ^ fb_rotr32(r, 5) ^ r; \
		m = fb_rotl32(m, fb_rotr32(r, 5));       \
		l = fb_rotl32(l, r);                     \
	} while (0)

/* Core round, first half (forward mode) and second half (backward mode). */
#define CORE_F(a, b, c, d, kp)                         \
	do {                                           \
		uint32_t l_, m_, r_;                   \
		MARS_E(a, (kp)[0], (kp)[1], l_, m_, r_); \
		a = fb_rotl32(a, 13);                  \
		c += m_;                               \
		b += l_;                               \
		d ^= r_;                               \
	} while (0)
#define CORE_B(a, b, c, d, kp)                         \
	do {                                           \
		uint32_t l_, m_, r_;                   \
		MARS_E(a, (kp)[0], (kp)[1], l_, m_, r_); \
		a = fb_rotl32(a, 13);                  \
		c += m_;                               \
		d += l_;                               \
		b ^= r_;                               \
	} while (0)

static void mars_encrypt_block(const uint32_t *k, uint8_t *out, const uint8_t *in)
{
	uint32_t a = fb_b128_load32(in) + k[0], b = fb_b128_load32(in + 4) + k[1];
	uint32_t c = fb_b128_load32(in + 8) + k[2], d = fb_b128_load32(in + 12) + k[3];
	int i;

	for (i = 0; i < 2; i++) {
		FWD_MIX(a, b, c, d);
		a += d;
		FWD_MIX(b, c, d, a);
		b += c;
		FWD_MIX(c, d, a, b);
		FWD_MIX(d, a, b, c);
	}
	for (i = 0; i < 2; i++) {
		CORE_F(a, b, c, d, k + 4 + 8 * i);
		CORE_F(b, c, d, a, k + 6 + 8 * i);
		CORE_F(c, d, a, b, k + 8 + 8 * i);
		CORE_F(d, a, b, c, k + 10 + 8 * i);
	}
	for (i = 0; i < 2; i++) {
		CORE_B(a, b, c, d, k + 20 + 8 * i);
		CORE_B(b, c, d, a, k + 22 + 8 * i);
		CORE_B(c, d, a, b, k + 24 + 8 * i);
		CORE_B(d, a, b, c, k + 26 + 8 * i);
	}
	for (i = 0; i < 2; i++) {
		BWD_MIX(a, b, c, d);
		BWD_MIX(b, c, d, a);
		c -= b;
		BWD_MIX(c, d, a, b);
		d -= a;
		BWD_MIX(d, a, b, c);
	}
	fb_b128_store32(out, a - k[36]);
	fb_b128_store32(out + 4, b - k[37]);
	fb_b128_store32(out + 8, c - k[38]);
	fb_b128_store32(out + 12, d - k[39]);
}

/* Inverses of the rounds above, applied in reverse order. */
#define FWD_UNMIX(a, b, c, d)                \
	do {                                 \
		a = fb_rotl32(a, 24);         \
		d ^= S1(a >> 24);             \
		c -= S0(a >> 16);             \
		b = (b - S1(a >> 8)) ^ S0(a); \
	} while (0)
#define BWD_UNMIX(a, b, c, d)                     \
	do {                                      \
		a = fb_rotr32(a, 24);             \
		d = (d ^ S0(a >> 8)) + S1(a >> 16); \
		c += S0(a >> 24);                 \
		b ^= S1(a);                       \
	} while (0)
#define CORE_F_INV(a, b, c, d, kp)                     \
	do {                                           \
		uint32_t l_, m_, r_;                   \
		a = fb_rotr32(a, 13);                  \
		MARS_E(a, (kp)[0], (kp)[1], l_, m_, r_); \
		c -= m_;                               \
		b -= l_;                               \
		d ^= r_;                               \
	} while (0)
#define CORE_B_INV(a, b, c, d, kp)                     \
	do {                                           \
		uint32_t l_, m_, r_;                   \
		a = fb_rotr32(a, 13);                  \
		MARS_E(a, (kp)[0], (kp)[1], l_, m_, r_); \
		c -= m_;                               \
		d -= l_;                               \
		b ^= r_;                               \
	} while (0)

static void mars_decrypt_block(const uint32_t *k, uint8_t *out, const uint8_t *in)
{
	uint32_t a = fb_b128_load32(in) + k[36], b = fb_b128_load32(in + 4) + k[37];
	uint32_t c = fb_b128_load32(in + 8) + k[38], d = fb_b128_load32(in + 12) + k[39];
	int i;

	for (i = 1; i >= 0; i--) {
		BWD_UNMIX(d, a, b, c);
		d += a;
		BWD_UNMIX(c, d, a, b);
		c += b;
		BWD_UNMIX(b, c, d, a);
		BWD_UNMIX(a, b, c, d);
	}
	for (i = 1; i >= 0; i--) {
		CORE_B_INV(d, a, b, c, k + 26 + 8 * i);
		CORE_B_INV(c, d, a, b, k + 24 + 8 * i);
		CORE_B_INV(b, c, d, a, k + 22 + 8 * i);
		CORE_B_INV(a, b, c, d, k + 20 + 8 * i);
	}
	for (i = 1; i >= 0; i--) {
		CORE_F_INV(d, a, b, c, k + 10 + 8 * i);
		CORE_F_INV(c, d, a, b, k + 8 + 8 * i);
		CORE_F_INV(b, c, d, a, k + 6 + 8 * i);
		CORE_F_INV(a, b, c, d, k + 4 + 8 * i);
	}
	for (i = 1; i >= 0; i--) {
		FWD_UNMIX(d, a, b, c);
		FWD_UNMIX(c, d, a, b);
		b -= c;
		FWD_UNMIX(b, c, d, a);
		a -= d;
		FWD_UNMIX(a, b, c, d);
	}
	fb_b128_store32(out, a - k[0]);
	fb_b128_store32(out + 4, b - k[1]);
	fb_b128_store32(out + 8, c - k[2]);
	fb_b128_store32(out + 12, d - k[3]);
}

void fb_mars_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;

	for (; nblocks; nblocks--, in += 16, out += 16)
		mars_encrypt_block(k, out, in);
}

void fb_mars_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;

	for (; nblocks; nblocks--, in += 16, out += 16)
		mars_decrypt_block(k, out, in);
}

FB_B128_CBC_ENC(mars_cbc_enc, , ((const fb_mars_ks *)ksp)->k, mars_encrypt_block)
FB_B128_CBC_DEC(mars_cbc_dec, fb_mars_decrypt_portable)

const fb_kernel fb_mars_portable = {
	.name = "mars/portable",
	.family = "mars",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(fb_mars_ks),
	.note = "MARS in C, 512-word S-box table (not constant-time: secret-indexed lookups)",
	.setkey = fb_mars_setkey,
	.encrypt = fb_mars_encrypt_portable,
	.decrypt = fb_mars_decrypt_portable,
	.ctr32 = NULL,
	.cbc_dec = mars_cbc_dec,
	.cbc_enc = mars_cbc_enc,
};
