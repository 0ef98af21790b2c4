/*
 * The key schedule shared by the x86 AES kernels (aes/aesni,
 * aes/vaes-avx2, aes/vaes-avx512), and the AES-NI functions that the VAES
 * kernels use for their tails. See src/aes/aes_aesni.c.
 */
#ifndef FB_AES_X86_H
#define FB_AES_X86_H

#include "../internal.h"

#if FB_X86
#include <immintrin.h>

/* Encryption round keys ek[0..rounds] in FIPS 197 byte order, and the
 * decryption round keys of the equivalent inverse cipher: dk[0] = ek[nr],
 * dk[i] = InvMixColumns(ek[nr - i]), dk[nr] = ek[0]. Unused slots stay zero. */
typedef struct {
	uint8_t ek[15][16];
	uint8_t dk[15][16];
	uint32_t rounds; /* 10, 12 or 14 */
} fb_aes_x86_ks;

/* One block through the rounds of rk (nr of them), AES-NI only, inlined
 * into any kernel whose target includes AES. Rounds 10..13 only for the
 * longer keys; the branches depend on the key length alone. */
#define FB_AES_NI_TGT FB_TARGET("aes,sse2")
static inline __attribute__((always_inline)) FB_AES_NI_TGT __m128i fb_aes_ni_enc1(const __m128i *rk, unsigned nr,
										 __m128i x)
{
	x = _mm_xor_si128(x, rk[0]);
	for (unsigned i = 1; i < 10; i++)
		x = _mm_aesenc_si128(x, rk[i]);
	if (nr > 10) {
		x = _mm_aesenc_si128(x, rk[10]);
		x = _mm_aesenc_si128(x, rk[11]);
		if (nr > 12) {
			x = _mm_aesenc_si128(x, rk[12]);
			x = _mm_aesenc_si128(x, rk[13]);
		}
	}
	return _mm_aesenclast_si128(x, rk[nr]);
}

static inline __attribute__((always_inline)) FB_AES_NI_TGT __m128i fb_aes_ni_dec1(const __m128i *rk, unsigned nr,
										 __m128i x)
{
	x = _mm_xor_si128(x, rk[0]);
	for (unsigned i = 1; i < 10; i++)
		x = _mm_aesdec_si128(x, rk[i]);
	if (nr > 10) {
		x = _mm_aesdec_si128(x, rk[10]);
		x = _mm_aesdec_si128(x, rk[11]);
		if (nr > 12) {
			x = _mm_aesdec_si128(x, rk[12]);
			x = _mm_aesdec_si128(x, rk[13]);
		}
	}
	return _mm_aesdeclast_si128(x, rk[nr]);
}

/* An XTS unit's tweak as given (iv), encrypted with the tweak key's
 * schedule tks: the first block's tweak. */
static inline __attribute__((always_inline)) FB_AES_NI_TGT __m128i fb_aes_ni_tweak(const void *tks,
										  const uint8_t *iv)
{
	const fb_aes_x86_ks *k = tks;
	return fb_aes_ni_enc1((const __m128i *)k->ek, k->rounds, _mm_loadu_si128((const __m128i *)iv));
}

int fb_aes_ni_setkey(void *ks, const uint8_t *key, size_t keylen);
int fb_aes_ni_setkey_enc(void *ks, const uint8_t *key, size_t keylen);
int fb_aes_ni_setkey_dec(void *ks, const uint8_t *key, size_t keylen);
void fb_aes_ni_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_aes_ni_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
void fb_aes_ni_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		     uint8_t *ctr);
void fb_aes_ni_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		       uint8_t *iv);
/* CFB decryption of whole blocks: the cfb_dec hook (and short runs of
 * the VAES kernels). */
void fb_aes_ni_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		       uint8_t *iv);
/* Serial CBC encryption: the cbc_enc hook of the x86 kernels. */
void fb_aes_ni_cbc_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		       uint8_t *iv);
/* Runs body(..., nr) with nr a constant in each case, so that a kernel's
 * inlined loops over the rounds unroll and keep the keys in registers. */
#define BY_ROUNDS(ks, body, ...)                                   \
	do {                                                       \
		switch ((ks)->rounds) {                            \
		case 10: body(__VA_ARGS__, 10); break;             \
		case 12: body(__VA_ARGS__, 12); break;             \
		default: body(__VA_ARGS__, 14); break;             \
		}                                                  \
	} while (0)

/* The xts_unit hook xts_unit_<dir> of a wide kernel whose inline
 * xts_unit_wide(ks, tks, out, in, n, iv, dir) takes units of min blocks or
 * more: a shorter unit goes straight on to AES-NI's fused unit, tested
 * before the wide code's frame (stack realignment, register saves) is set
 * up; the wide code, out of line, is told n >= min. */
#define FB_AES_XTS_UNIT_HOOK(tgt, min, dir, d)                                                          \
	static __attribute__((noinline)) tgt void xts_unit_wide_##dir(                                   \
		const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t n, const uint8_t *iv) \
	{                                                                                               \
		if (n < (min))                                                                          \
			__builtin_unreachable();                                                        \
		xts_unit_wide(ks, tks, out, in, n, iv, d);                                              \
	}                                                                                               \
	static tgt void xts_unit_##dir(const void *ks, const void *tks, uint8_t *out, const uint8_t *in,  \
				       size_t n, const uint8_t *iv)                                       \
	{                                                                                               \
		if (__builtin_expect(n < (min), 0))                                                     \
			fb_aes_ni_xts_unit_##dir(ks, tks, out, in, n, iv);                              \
		else                                                                                    \
			xts_unit_wide_##dir(ks, tks, out, in, n, iv);                                   \
	}

/* Writes back a CTR block whose low 32-bit counter is now lo: blk is the
 * block as loaded. All 16 bytes are stored, because the next update loads
 * all 16, and a load that a narrower store only partly covers cannot take
 * its data from the store queue: it waits until the store retires, behind
 * this call's last round, so a stream of short updates ran one at a time
 * (Zen 4, aes/vaes-avx512, 512-byte and 1 KB AES-128-CTR updates: 1.25x
 * and 1.15x the speed of a 4-byte store of the counter). A macro, to take
 * the target of the kernel it is in. */
#define FB_AES_CTR_PUT(ctr, blk, lo) \
	_mm_storeu_si128((__m128i *)(ctr), _mm_insert_epi32((blk), (int)__builtin_bswap32(lo), 3))

/* Serial CFB encryption of whole blocks and CFB8 encryption of bytes:
 * the cfb_enc and cfb8_enc hooks of the x86 kernels. */
void fb_aes_ni_cfb_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		       uint8_t *iv);
void fb_aes_ni_cfb8_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t len, uint8_t *iv);
/* Serial OFB of whole blocks, either direction: the ofb hook. */
void fb_aes_ni_ofb(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *iv);
/* XTS over whole blocks with AES-NI; tweak[] is advanced (the xts hooks). */
void fb_aes_ni_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *tweak);
void fb_aes_ni_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *tweak);
/* One XTS data unit of whole blocks from its tweak as given, encrypted
 * with the tweak key's schedule tks (the xts_unit hooks). */
void fb_aes_ni_xts_unit_enc(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
			    const uint8_t *iv);
void fb_aes_ni_xts_unit_dec(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
			    const uint8_t *iv);
/* XTS over whole blocks with the 512-bit VAES kernel (needs its CPU
 * features plus VPCLMULQDQ); tweak[] is advanced (the xts hooks). */
void fb_aes_vaes512_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			    uint8_t *tweak);
void fb_aes_vaes512_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			    uint8_t *tweak);

#endif
#endif
