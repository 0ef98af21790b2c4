/*
 * MARS internals shared by the mars kernels (see mars_portable.c).
 * IBM's AES submission, round-2 version with the August 1999 key-setup
 * tweak (as implemented by Crypto++): Burwick et al., "MARS - a candidate
 * cipher for AES", revised September 22, 1999.
 */
#ifndef FB_MARS_H
#define FB_MARS_H

#include "../internal.h"
#include "mars_tables.h"

#define FB_MARS_SUBKEYS 40 /* K[0..3] pre-whitening, K[4..35] core, K[36..39] post-whitening */

typedef struct fb_mars_ks {
	uint32_t k[FB_MARS_SUBKEYS];
} fb_mars_ks;

/* Keys of 16..56 bytes in steps of 4 (n = 4..14 words). */
/* Little-endian word loads and stores. internal.h's fb_load32_le/
 * fb_store32_le work byte by byte, and GCC 12 assembles the stores of a
 * whole block from bytes (about 30 instructions and a failed store
 * forwarding when the next block reads them back, as in CBC encryption);
 * on little-endian hosts a memcpy is one mov. */
static inline uint32_t fb_mars_load32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
#else
	return fb_load32_le(p);
#endif
}
static inline void fb_mars_store32(uint8_t *p, uint32_t v)
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
static inline void fb_mars_ctr_fill(uint8_t *buf, const uint8_t *ctr, size_t n)
{
	uint32_t c = fb_load32_be(ctr + 12);
	for (size_t i = 0; i < n; i++, buf += 16) {
		memcpy(buf, ctr, 12);
		fb_store32_be(buf + 12, c + (uint32_t)i);
	}
}

static inline void fb_mars_ctr_advance(uint8_t *ctr, size_t n)
{
	fb_store32_be(ctr + 12, fb_load32_be(ctr + 12) + (uint32_t)n);
}

/* out = a ^ b over n bytes (any of them may be the same buffer). */
static inline void fb_mars_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* CBC decryption of n blocks whose raw decryptions are in d[]: out[i] =
 * d[i] ^ in[i-1] (iv for i = 0), from the last block down so that in place
 * every ciphertext is read before it is overwritten; iv becomes in[n-1]. */
static inline void fb_mars_cbc_finish(uint8_t *out, const uint8_t *d, const uint8_t *in, size_t n,
				      uint8_t *iv)
{
	uint8_t last[16];
	memcpy(last, in + 16 * (n - 1), 16);
	for (size_t i = n - 1; i > 0; i--)
		fb_mars_xor(out + 16 * i, d + 16 * i, in + 16 * (i - 1), 16);
	fb_mars_xor(out, d, iv, 16);
	memcpy(iv, last, 16);
}

int fb_mars_setkey(void *ks, const uint8_t *key, size_t keylen);
void fb_mars_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_mars_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

extern const fb_kernel fb_mars_portable, fb_mars_avx2, fb_mars_avx512;

#endif
