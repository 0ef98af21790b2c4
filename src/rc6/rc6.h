/*
 * RC6-32/20/b internals shared by the rc6 kernels (see rc6_portable.c).
 * Rivest, Robshaw, Sidney, Yin: "The RC6 Block Cipher", v1.1, August 1998.
 */
#ifndef FB_RC6_H
#define FB_RC6_H

#include "../block128_simd.h"

#define FB_RC6_ROUNDS 20
#define FB_RC6_SUBKEYS (2 * FB_RC6_ROUNDS + 4) /* 44 round-key words S[0..43] */
#define FB_RC6_MAX_KEY 255                      /* b = 0..255 bytes */

/* The key schedule every rc6 kernel uses: S[0..43]. */
typedef struct fb_rc6_ks {
	uint32_t s[FB_RC6_SUBKEYS];
} fb_rc6_ks;

int fb_rc6_setkey(void *ks, const uint8_t *key, size_t keylen);
void fb_rc6_encrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_rc6_decrypt_portable(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);

extern const fb_kernel fb_rc6_portable, fb_rc6_avx2, fb_rc6_avx512;

/* ---- The round sequence of the SIMD kernels (rc6_avx2.c, rc6_avx512.c)
 * on interleaved groups of vectors a##g..d##g (see ../block128_simd.h): EACH
 * applies a step to every group; the kernel defines the half-rounds
 * ENC_HALF(g, a, b, c, d, i) and DEC_HALF (round i of RC6 on the rotating
 * roles a, b, c, d); the _BY forms take other half-rounds. ---- */
#define FB_RC6_ADDK(g, x, i) x##g = FB_B128_ADD(x##g, FB_B128_KEY(i));
#define FB_RC6_SUBK(g, x, i) x##g = FB_B128_SUB(x##g, FB_B128_KEY(i));

#define FB_RC6_SIMD_ENC_BY(EACH, HALF)                                   \
	EACH(FB_RC6_ADDK, b, 0)                                          \
	EACH(FB_RC6_ADDK, d, 1)                                          \
	for (int r_ = 1; r_ <= FB_RC6_ROUNDS; r_ += 4) {                 \
		EACH(HALF, a, b, c, d, r_)                               \
		EACH(HALF, b, c, d, a, r_ + 1)                           \
		EACH(HALF, c, d, a, b, r_ + 2)                           \
		EACH(HALF, d, a, b, c, r_ + 3)                           \
	}                                                                \
	EACH(FB_RC6_ADDK, a, 42)                                         \
	EACH(FB_RC6_ADDK, c, 43)

#define FB_RC6_SIMD_DEC_BY(EACH, HALF)                                   \
	EACH(FB_RC6_SUBK, c, 43)                                         \
	EACH(FB_RC6_SUBK, a, 42)                                         \
	for (int r_ = FB_RC6_ROUNDS; r_ >= 1; r_ -= 4) {                 \
		EACH(HALF, d, a, b, c, r_)                               \
		EACH(HALF, c, d, a, b, r_ - 1)                           \
		EACH(HALF, b, c, d, a, r_ - 2)                           \
		EACH(HALF, a, b, c, d, r_ - 3)                           \
	}                                                                \
	EACH(FB_RC6_SUBK, d, 1)                                          \
	EACH(FB_RC6_SUBK, b, 0)

#define FB_RC6_SIMD_ENC(EACH) FB_RC6_SIMD_ENC_BY(EACH, ENC_HALF)
#define FB_RC6_SIMD_DEC(EACH) FB_RC6_SIMD_DEC_BY(EACH, DEC_HALF)

#endif
