/*
 * RC6-32/20/b internals shared by the rc6 kernels (see rc6_portable.c).
 * Rivest, Robshaw, Sidney, Yin: "The RC6 Block Cipher", v1.1, August 1998.
 */
#ifndef FB_RC6_H
#define FB_RC6_H

#include "../internal.h"

#define FB_RC6_ROUNDS 20
#define FB_RC6_SUBKEYS (2 * FB_RC6_ROUNDS + 4) /* 44 round-key words S[0..43] */
#define FB_RC6_MAX_KEY 255                      /* b = 0..255 bytes */

/* The key schedule every rc6 kernel uses: S[0..43]. */
typedef struct fb_rc6_ks {
	uint32_t s[FB_RC6_SUBKEYS];
} fb_rc6_ks;

/* Little-endian word loads and stores. internal.h's fb_load32_le/
 * fb_store32_le work byte by byte, and GCC 12 assembles the stores of a
 * whole block from bytes (about 30 instructions and a failed store
 * forwarding when the next block reads them back, as in CBC encryption);
 * on little-endian hosts a memcpy is one mov. */
static inline uint32_t fb_rc6_load32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
#else
	return fb_load32_le(p);
#endif
}
static inline void fb_rc6_store32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	fb_store32_le(p, v);
#endif
}

/* ---- Helpers for the fused CTR and CBC-decryption paths of the SIMD
 * kernels (contract in internal.h: ctr32 increments only the last 32 bits,
 * big-endian; cbc_dec leaves the last ciphertext block in iv). ---- */

/* n counter blocks ctr, ctr + 1, ... (low 32 bits only) into buf. */
static inline void fb_rc6_ctr_fill(uint8_t *buf, const uint8_t *ctr, size_t n)
{
	uint32_t c = fb_load32_be(ctr + 12);
	for (size_t i = 0; i < n; i++, buf += 16) {
		memcpy(buf, ctr, 12);
		fb_store32_be(buf + 12, c + (uint32_t)i);
	}
}

static inline void fb_rc6_ctr_advance(uint8_t *ctr, size_t n)
{
	fb_store32_be(ctr + 12, fb_load32_be(ctr + 12) + (uint32_t)n);
}

/* out = a ^ b over n bytes (any of them may be the same buffer). */
static inline void fb_rc6_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* CBC decryption of n blocks whose raw decryptions are in d[]: out[i] =
 * d[i] ^ in[i-1] (iv for i = 0), from the last block down so that in place
 * every ciphertext is read before it is overwritten; iv becomes in[n-1]. */
static inline void fb_rc6_cbc_finish(uint8_t *out, const uint8_t *d, const uint8_t *in, size_t n,
				      uint8_t *iv)
{
	uint8_t last[16];
	memcpy(last, in + 16 * (n - 1), 16);
	for (size_t i = n - 1; i > 0; i--)
		fb_rc6_xor(out + 16 * i, d + 16 * i, in + 16 * (i - 1), 16);
	fb_rc6_xor(out, d, iv, 16);
	memcpy(iv, last, 16);
}

int fb_rc6_setkey(void *ks, const uint8_t *key, size_t keylen);
void fb_rc6_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_rc6_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

extern const fb_kernel fb_rc6_portable, fb_rc6_avx2, fb_rc6_avx512;

#endif
