/*
 * rc6/portable: RC6-32/20/b in plain C, one block at a time (the CPU
 * overlaps consecutive blocks by itself). Keys of 0..255 bytes, as the RC6
 * definition allows (the family accepts every length 0..255).
 *
 * Constant-time: there are no tables and no secret-dependent branches; the
 * data-dependent rotations compile to ROL/ROR by CL, which take the same
 * time for every count on x86 (and on the other 64-bit targets GCC
 * supports: ARM64 RORV, POWER rotlw, RISC-V Zbb ror/rol, or shifts).
 */
#include "rc6.h"

/* The "magic constants" of RC6 (and RC5), w = 32:
 *   P32 = Odd((e - 2) * 2^32)    = 0xb7e15163   (e = 2.71828...)
 *   Q32 = Odd((phi - 1) * 2^32)  = 0x9e3779b9   (phi = 1.61803..., golden ratio)
 * where Odd(x) is the odd integer nearest to x. */
#define RC6_P32 0xb7e15163u
#define RC6_Q32 0x9e3779b9u

int fb_rc6_setkey(void *ks, const uint8_t *key, size_t keylen)
{
	fb_rc6_ks *k = ks;
	uint32_t l[(FB_RC6_MAX_KEY + 3) / 4] = { 0 };
	size_t c, i, j, s, v;
	uint32_t a = 0, b = 0;

	if (keylen > FB_RC6_MAX_KEY)
		return FB_ERR_KEY_LENGTH;
	/* L[] = the key bytes as little-endian words; c >= 1 even for b = 0. */
	for (i = 0; i < keylen; i++)
		l[i / 4] |= (uint32_t)key[i] << (8 * (i % 4));
	c = keylen ? (keylen + 3) / 4 : 1;

	k->s[0] = RC6_P32;
	for (i = 1; i < FB_RC6_SUBKEYS; i++)
		k->s[i] = k->s[i - 1] + RC6_Q32;

	v = 3 * (c > FB_RC6_SUBKEYS ? c : FB_RC6_SUBKEYS);
	for (s = 0, i = 0, j = 0; s < v; s++) {
		a = k->s[i] = fb_rotl32(k->s[i] + a + b, 3);
		b = l[j] = fb_rotl32(l[j] + a + b, a + b);
		if (++i == FB_RC6_SUBKEYS)
			i = 0;
		if (++j == c)
			j = 0;
	}
	fb_wipe(l, sizeof l);
	return FB_OK;
}

/* f(x) = x * (2x + 1) rotated left by lg w = 5. */
static inline uint32_t rc6_f(uint32_t x)
{
	return fb_rotl32(x * (2 * x + 1), 5);
}

/* Keeps the compiler from folding x back into a longer chain. */
static inline uint32_t rc6_opaque(uint32_t x)
{
#if defined(__GNUC__)
	__asm__("" : "+r"(x));
#endif
	return x;
}

/* One encryption round on (a, b, c, d) with round keys s[0], s[1]; the
 * caller renames the words (a, b, c, d) <- (b, c, d, a). b2 and d2 hold
 * 2b + 1 and 2d + 1, and the round leaves 2a + 1 and 2c + 1 in a2 and c2.
 * A new word is x + s, and its 2x + (2s + 1) is one lea that runs beside
 * that add instead of after it: the chain from a round's variable rotate
 * to the next round's multiply loses a cycle, 8 -> 7 per round (the
 * compiler would undo this if it could see through 2s + 1). */
#define RC6_ENC_ROUND(a, b, c, d, a2, b2, c2, d2, s)                   \
	do {                                                           \
		uint32_t t_ = fb_rotl32(b * b2, 5);                    \
		uint32_t u_ = fb_rotl32(d * d2, 5);                    \
		uint32_t x_ = fb_rotl32(a ^ t_, u_);                   \
		uint32_t y_ = fb_rotl32(c ^ u_, t_);                   \
		a = x_ + (s)[0];                                       \
		c = y_ + (s)[1];                                       \
		a2 = 2 * x_ + rc6_opaque(2 * (s)[0] + 1);              \
		c2 = 2 * y_ + rc6_opaque(2 * (s)[1] + 1);              \
	} while (0)

#define RC6_DEC_ROUND(a, b, c, d, s)                   \
	do {                                           \
		uint32_t t_ = rc6_f(b), u_ = rc6_f(d); \
		c = fb_rotr32(c - (s)[1], t_) ^ u_;    \
		a = fb_rotr32(a - (s)[0], u_) ^ t_;    \
	} while (0)

/* Encrypts the block held as four words in w[] (the form the CBC chain
 * keeps in registers, block128_simd.h). */
static inline __attribute__((always_inline)) void rc6_encrypt_words(const uint32_t *s, uint32_t w[4])
{
	uint32_t a = w[0], b = w[1] + s[0], c = w[2], d = w[3] + s[1];
	uint32_t a2 = 0, b2 = 2 * b + 1, c2 = 0, d2 = 2 * d + 1;
	int r;

	for (r = 1; r <= FB_RC6_ROUNDS; r += 4) {
		RC6_ENC_ROUND(a, b, c, d, a2, b2, c2, d2, s + 2 * r);
		RC6_ENC_ROUND(b, c, d, a, b2, c2, d2, a2, s + 2 * r + 2);
		RC6_ENC_ROUND(c, d, a, b, c2, d2, a2, b2, s + 2 * r + 4);
		RC6_ENC_ROUND(d, a, b, c, d2, a2, b2, c2, s + 2 * r + 6);
	}
	w[0] = a + s[42];
	w[1] = b;
	w[2] = c + s[43];
	w[3] = d;
}

static void rc6_encrypt_block(const uint32_t *s, uint8_t *out, const uint8_t *in)
{
	uint32_t w[4];
	int j;

	for (j = 0; j < 4; j++)
		w[j] = fb_b128_load32(in + 4 * j);
	rc6_encrypt_words(s, w);
	for (j = 0; j < 4; j++)
		fb_b128_store32(out + 4 * j, w[j]);
}

/* Decrypts the block held as four words in w[]. */
static inline __attribute__((always_inline)) void rc6_decrypt_words(const uint32_t *s, uint32_t w[4])
{
	uint32_t a = w[0] - s[42], b = w[1], c = w[2] - s[43], d = w[3];
	int r;

	for (r = FB_RC6_ROUNDS; r >= 1; r -= 4) {
		RC6_DEC_ROUND(d, a, b, c, s + 2 * r);
		RC6_DEC_ROUND(c, d, a, b, s + 2 * r - 2);
		RC6_DEC_ROUND(b, c, d, a, s + 2 * r - 4);
		RC6_DEC_ROUND(a, b, c, d, s + 2 * r - 6);
	}
	w[0] = a;
	w[1] = b - s[0];
	w[2] = c;
	w[3] = d - s[1];
}

/* Decrypts m blocks (a constant once inlined); with prev (CBC), each
 * output XORed with the ciphertext block before it, prev's 16 bytes for
 * the first. Every input is read before the first store. */
static inline __attribute__((always_inline)) void rc6_decrypt_m(const uint32_t *s, uint8_t *out, const uint8_t *in,
								const int m, const uint8_t *prev)
{
	uint32_t w[4][4], p[4][4] = { { 0 } };
	int i, j;

	for (j = 0; j < m; j++)
		for (i = 0; i < 4; i++) {
			w[j][i] = fb_b128_load32(in + 16 * j + 4 * i);
			if (prev)
				p[j][i] = fb_b128_load32((j ? in + 16 * (j - 1) : prev) + 4 * i);
		}
	for (j = 0; j < m; j++)
		rc6_decrypt_words(s, w[j]);
	for (j = 0; j < m; j++)
		for (i = 0; i < 4; i++)
			fb_b128_store32(out + 16 * j + 4 * i, w[j][i] ^ p[j][i]);
}

static void rc6_decrypt_block(const uint32_t *s, uint8_t *out, const uint8_t *in)
{
	rc6_decrypt_m(s, out, in, 1, NULL);
}

void fb_rc6_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;

	for (; nblocks; nblocks--, in += 16, out += 16)
		rc6_encrypt_block(s, out, in);
}

void fb_rc6_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const uint32_t *s = ((const fb_rc6_ks *)ks)->s;

	for (; nblocks; nblocks--, in += 16, out += 16)
		rc6_decrypt_block(s, out, in);
}

FB_B128_CBC_ENC_WORDS(rc6_cbc_enc, ((const fb_rc6_ks *)ksp)->s, rc6_encrypt_words)
FB_B128_OFB_WORDS(rc6_ofb, ((const fb_rc6_ks *)ksp)->s, rc6_encrypt_words)
FB_B128_CFB_ENC_WORDS(rc6_cfb_enc, ((const fb_rc6_ks *)ksp)->s, rc6_encrypt_words)
FB_B128_CFB8_ENC_WORDS(rc6_cfb8_enc, ((const fb_rc6_ks *)ksp)->s, rc6_encrypt_words)
FB_B128_CBC_DEC_M(rc6_cbc_dec, ((const fb_rc6_ks *)ksp)->s, rc6_decrypt_m)

const fb_kernel fb_rc6_portable = {
	.name = "rc6/portable",
	.family = "rc6",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(fb_rc6_ks),
	.note = "RC6-32/20/b in C: mul, data-dependent rotates (constant-time on x86)",
	.setkey = fb_rc6_setkey,
	.encrypt = fb_rc6_encrypt_portable,
	.decrypt = fb_rc6_decrypt_portable,
	.ctr32 = NULL,
	.cbc_dec = rc6_cbc_dec,
	.cbc_enc = rc6_cbc_enc,
	.cfb_enc = rc6_cfb_enc,
	.ofb = rc6_ofb,
	.cfb8_enc = rc6_cfb8_enc,
};
