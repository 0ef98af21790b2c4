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

static inline __attribute__((always_inline)) uint32_t sbox_table(uint32_t i)
{
	return fb_mars_sbox[i];
}

int fb_mars_setkey(void *ks, const uint8_t *key, size_t keylen)
{
	return fb_mars_expand(ks, key, keylen, sbox_table);
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
 * k2 (multiplicative) to l, m, r. MARS_E_AT starts from m = a + k1. */
#define MARS_E_AT(a, k2, l, m, r)                        \
	do {                                             \
		r = fb_rotl32(fb_rotl32(a, 13) * (k2), 10); \
		l = fb_mars_sbox[m & 511] ^ fb_rotr32(r, 5) ^ r; \
		m = fb_rotl32(m, fb_rotr32(r, 5));       \
		l = fb_rotl32(l, r);                     \
	} while (0)
#define MARS_E(a, k1, k2, l, m, r)          \
	do {                                \
		m = (a) + (k1);             \
		MARS_E_AT(a, k2, l, m, r);  \
	} while (0)

/* Keeps the compiler from folding x back into a longer chain. */
static inline uint32_t opaque(uint32_t x)
{
#if defined(__GNUC__)
	__asm__("" : "+r"(x));
#endif
	return x;
}

/* Core round, first half (forward mode) and second half (backward mode).
 * In the forward half the next round's source is b + l, and its m is that
 * plus the next k1: CORE_F takes m in am and leaves the next round's as
 * (b + k1') + l, one add after l instead of two, on the chain that the
 * S-box lookup lengthens (9 -> 8 cycles a round). */
#define CORE_F(a, b, c, d, am, kp)                       \
	do {                                             \
		uint32_t l_, m_ = am, r_;                \
		MARS_E_AT(a, (kp)[1], l_, m_, r_);       \
		a = fb_rotl32(a, 13);                    \
		c += m_;                                 \
		am = opaque(b + (kp)[2]) + l_;           \
		b += l_;                                 \
		d ^= r_;                                 \
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

/* Each step of the rounds below on every block j < m (m a constant after
 * inlining, so the blocks' rounds interleave). */
#define EACH_J(step) do { for (j = 0; j < m; j++) step; } while (0)

/* Encrypts the m <= 4 blocks held as four words each in w[] (words in,
 * words out; the CBC chain keeps one there, in registers). */
static inline __attribute__((always_inline)) void mars_encrypt_words_m(const uint32_t *k, uint32_t w[][4],
								       const int m)
{
	uint32_t a[4], b[4], c[4], d[4], am[4];
	int i, j;

	EACH_J((a[j] = w[j][0] + k[0], b[j] = w[j][1] + k[1], c[j] = w[j][2] + k[2], d[j] = w[j][3] + k[3]));
	for (i = 0; i < 2; i++) {
		EACH_J(FWD_MIX(a[j], b[j], c[j], d[j]));
		EACH_J(a[j] += d[j]);
		EACH_J(FWD_MIX(b[j], c[j], d[j], a[j]));
		EACH_J(b[j] += c[j]);
		EACH_J(FWD_MIX(c[j], d[j], a[j], b[j]));
		EACH_J(FWD_MIX(d[j], a[j], b[j], c[j]));
	}
	EACH_J(am[j] = a[j] + k[4]);
	for (i = 0; i < 2; i++) {
		EACH_J(CORE_F(a[j], b[j], c[j], d[j], am[j], k + 4 + 8 * i));
		EACH_J(CORE_F(b[j], c[j], d[j], a[j], am[j], k + 6 + 8 * i));
		EACH_J(CORE_F(c[j], d[j], a[j], b[j], am[j], k + 8 + 8 * i));
		EACH_J(CORE_F(d[j], a[j], b[j], c[j], am[j], k + 10 + 8 * i));
	}
	for (i = 0; i < 2; i++) {
		EACH_J(CORE_B(a[j], b[j], c[j], d[j], k + 20 + 8 * i));
		EACH_J(CORE_B(b[j], c[j], d[j], a[j], k + 22 + 8 * i));
		EACH_J(CORE_B(c[j], d[j], a[j], b[j], k + 24 + 8 * i));
		EACH_J(CORE_B(d[j], a[j], b[j], c[j], k + 26 + 8 * i));
	}
	for (i = 0; i < 2; i++) {
		EACH_J(BWD_MIX(a[j], b[j], c[j], d[j]));
		EACH_J(BWD_MIX(b[j], c[j], d[j], a[j]));
		EACH_J(c[j] -= b[j]);
		EACH_J(BWD_MIX(c[j], d[j], a[j], b[j]));
		EACH_J(d[j] -= a[j]);
		EACH_J(BWD_MIX(d[j], a[j], b[j], c[j]));
	}
	EACH_J((w[j][0] = a[j] - k[36], w[j][1] = b[j] - k[37], w[j][2] = c[j] - k[38], w[j][3] = d[j] - k[39]));
}

/* One block's words (the form FB_B128_CBC_ENC_WORDS chains). */
static inline __attribute__((always_inline)) void mars_encrypt_words(const uint32_t *k, uint32_t w[4])
{
	mars_encrypt_words_m(k, (uint32_t(*)[4])w, 1);
}

/* Encrypts m blocks (m = 1 to 4, a constant after inlining), their rounds
 * interleaved as in mars_decrypt_m. */
static inline __attribute__((always_inline)) void mars_encrypt_m(const uint32_t *k, uint8_t *out,
								 const uint8_t *in, const int m)
{
	uint32_t w[4][4];
	int i, j;

	EACH_J(for (i = 0; i < 4; i++) w[j][i] = fb_b128_load32(in + 16 * j + 4 * i));
	mars_encrypt_words_m(k, w, m);
	EACH_J(for (i = 0; i < 4; i++) fb_b128_store32(out + 16 * j + 4 * i, w[j][i]));
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

/* Decrypts m blocks (m = 1 to 4, a constant after inlining), their rounds
 * interleaved: one block's chain of lookups and multiplies leaves most
 * of the core idle, and a whole block is more than the reorder window
 * overlaps with the next. With prev (CBC), each output is XORed with the
 * ciphertext block before it, prev's 16 bytes for the first, loaded after
 * the rounds, where they hold no registers, and before the first store. */
static inline __attribute__((always_inline)) void mars_decrypt_m(const uint32_t *k, uint8_t *out,
								 const uint8_t *in, const int m, const uint8_t *prev)
{
	uint32_t a[4], b[4], c[4], d[4], p[4][4] = { { 0 } };
	int i, j;

	EACH_J((a[j] = fb_b128_load32(in + 16 * j) + k[36], b[j] = fb_b128_load32(in + 16 * j + 4) + k[37],
		c[j] = fb_b128_load32(in + 16 * j + 8) + k[38], d[j] = fb_b128_load32(in + 16 * j + 12) + k[39]));
	for (i = 1; i >= 0; i--) {
		EACH_J(BWD_UNMIX(d[j], a[j], b[j], c[j]));
		EACH_J(d[j] += a[j]);
		EACH_J(BWD_UNMIX(c[j], d[j], a[j], b[j]));
		EACH_J(c[j] += b[j]);
		EACH_J(BWD_UNMIX(b[j], c[j], d[j], a[j]));
		EACH_J(BWD_UNMIX(a[j], b[j], c[j], d[j]));
	}
	for (i = 1; i >= 0; i--) {
		EACH_J(CORE_B_INV(d[j], a[j], b[j], c[j], k + 26 + 8 * i));
		EACH_J(CORE_B_INV(c[j], d[j], a[j], b[j], k + 24 + 8 * i));
		EACH_J(CORE_B_INV(b[j], c[j], d[j], a[j], k + 22 + 8 * i));
		EACH_J(CORE_B_INV(a[j], b[j], c[j], d[j], k + 20 + 8 * i));
	}
	for (i = 1; i >= 0; i--) {
		EACH_J(CORE_F_INV(d[j], a[j], b[j], c[j], k + 10 + 8 * i));
		EACH_J(CORE_F_INV(c[j], d[j], a[j], b[j], k + 8 + 8 * i));
		EACH_J(CORE_F_INV(b[j], c[j], d[j], a[j], k + 6 + 8 * i));
		EACH_J(CORE_F_INV(a[j], b[j], c[j], d[j], k + 4 + 8 * i));
	}
	for (i = 1; i >= 0; i--) {
		EACH_J(FWD_UNMIX(d[j], a[j], b[j], c[j]));
		EACH_J(FWD_UNMIX(c[j], d[j], a[j], b[j]));
		EACH_J(b[j] -= c[j]);
		EACH_J(FWD_UNMIX(b[j], c[j], d[j], a[j]));
		EACH_J(a[j] -= d[j]);
		EACH_J(FWD_UNMIX(a[j], b[j], c[j], d[j]));
	}
	EACH_J(for (i = 0; i < 4 && prev; i++) p[j][i] = fb_b128_load32((j ? in + 16 * (j - 1) : prev) + 4 * i));
	EACH_J((fb_b128_store32(out + 16 * j, (a[j] - k[0]) ^ p[j][0]),
		fb_b128_store32(out + 16 * j + 4, (b[j] - k[1]) ^ p[j][1]),
		fb_b128_store32(out + 16 * j + 8, (c[j] - k[2]) ^ p[j][2]),
		fb_b128_store32(out + 16 * j + 12, (d[j] - k[3]) ^ p[j][3])));
}

void fb_mars_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;

	for (; nblocks >= 4; nblocks -= 4, in += 64, out += 64)
		mars_encrypt_m(k, out, in, 4);
	if (nblocks == 3)
		mars_encrypt_m(k, out, in, 3);
	else if (nblocks == 2)
		mars_encrypt_m(k, out, in, 2);
	else if (nblocks)
		mars_encrypt_m(k, out, in, 1);
}

void fb_mars_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *k = ((const fb_mars_ks *)ks)->k;

	for (; nblocks >= 4; nblocks -= 4, in += 64, out += 64)
		mars_decrypt_m(k, out, in, 4, NULL);
	if (nblocks == 3)
		mars_decrypt_m(k, out, in, 3, NULL);
	else if (nblocks == 2)
		mars_decrypt_m(k, out, in, 2, NULL);
	else if (nblocks)
		mars_decrypt_m(k, out, in, 1, NULL);
}

FB_B128_CBC_ENC_WORDS(mars_cbc_enc, ((const fb_mars_ks *)ksp)->k, mars_encrypt_words)
FB_B128_OFB_WORDS(mars_ofb, ((const fb_mars_ks *)ksp)->k, mars_encrypt_words)
FB_B128_CFB_ENC_WORDS(mars_cfb_enc, ((const fb_mars_ks *)ksp)->k, mars_encrypt_words)
FB_B128_CFB8_ENC_WORDS(mars_cfb8_enc, ((const fb_mars_ks *)ksp)->k, mars_encrypt_words)
FB_B128_CBC_DEC_M(mars_cbc_dec_short, ((const fb_mars_ks *)ksp)->k, mars_decrypt_m)
FB_B128_CBC_DEC(mars_cbc_dec_long, fb_mars_decrypt_portable)

/* 1-3 blocks by words, no buffer; from 4 the groups decrypt into the
 * buffer and an XOR pass follows: with the XOR in the group's stores four
 * interleaved blocks ran slower (Sapphire Rapids class, 64-byte updates
 * 0.92-0.95 of the speed, 8 KB under FASTBLOCK_CPU_MASK=0 0.88). */
static void mars_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	if (n < 4)
		mars_cbc_dec_short(ks, out, in, n, iv);
	else
		mars_cbc_dec_long(ks, out, in, n, iv);
}

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
	.cfb_enc = mars_cfb_enc,
	.ofb = mars_ofb,
	.cfb8_enc = mars_cfb8_enc,
};
