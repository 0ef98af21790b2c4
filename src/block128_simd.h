/*
 * Helpers for kernels of 128-bit block ciphers whose block is four
 * little-endian 32-bit words (rc6, mars): word loads and stores, the CTR and
 * CBC-decryption tails, and - for the SIMD kernels - everything except the
 * cipher itself: the 4x4 word transpose, loads and stores of groups of
 * vectors, counter blocks built in registers, CBC chaining, and the drivers
 * (full batches, tails through a stack buffer, short inputs handed to a
 * narrower kernel).
 *
 * A SIMD kernel file defines FB_B128_VBITS (256: AVX2 ymm, 8 blocks per
 * vector; 512: AVX-512 zmm, 16 blocks) before including its family header,
 * which includes this one. A group g is four vectors a##g, b##g, c##g, d##g
 * holding word 0, 1, 2, 3 of FB_B128_LANES blocks; the cipher's round
 * sequence is a macro BODY(EACH) applying step macros M(g, ...) to every
 * group with EACH(M, ...), so that the groups interleave.
 */
#ifndef FB_BLOCK128_SIMD_H
#define FB_BLOCK128_SIMD_H

#include "internal.h"

/* 4x4 transpose of 32-bit words inside each 128-bit lane of the vectors
 * a, b, c, d of type T, for the intrinsics prefix pfx (_mm256, _mm512): four
 * vectors of whole blocks <-> four vectors of one word each. Its own
 * inverse. */
#define FB_TRANSPOSE4_IN_LANES(T, pfx, a, b, c, d)                                   \
	do {                                                                         \
		T t0_ = pfx##_unpacklo_epi32(a, b), t1_ = pfx##_unpackhi_epi32(a, b); \
		T t2_ = pfx##_unpacklo_epi32(c, d), t3_ = pfx##_unpackhi_epi32(c, d); \
		a = pfx##_unpacklo_epi64(t0_, t2_);                                  \
		b = pfx##_unpackhi_epi64(t0_, t2_);                                  \
		c = pfx##_unpacklo_epi64(t1_, t3_);                                  \
		d = pfx##_unpackhi_epi64(t1_, t3_);                                  \
	} while (0)

/* Little-endian word loads and stores. internal.h's fb_load32_le/
 * fb_store32_le work byte by byte, and GCC 12 assembles the stores of a
 * whole block from bytes (about 30 instructions and a failed store
 * forwarding when the next block reads them back, as in CBC encryption);
 * on little-endian hosts a memcpy is one mov. */
static inline uint32_t fb_b128_load32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
#else
	return fb_load32_le(p);
#endif
}
static inline void fb_b128_store32(uint8_t *p, uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	fb_store32_le(p, v);
#endif
}

/* ---- Helpers for the fused CTR and CBC-decryption paths (contract in
 * internal.h: ctr32 increments only the last 32 bits, big-endian; cbc_dec
 * leaves the last ciphertext block in iv). ---- */

/* n counter blocks ctr, ctr + 1, ... (low 32 bits only) into buf. */
static inline void fb_b128_ctr_fill(uint8_t *buf, const uint8_t *ctr, size_t n)
{
	uint32_t c = fb_load32_be(ctr + 12);
	for (size_t i = 0; i < n; i++, buf += 16) {
		memcpy(buf, ctr, 12);
		fb_store32_be(buf + 12, c + (uint32_t)i);
	}
}

static inline void fb_b128_ctr_advance(uint8_t *ctr, size_t n)
{
	fb_store32_be(ctr + 12, fb_load32_be(ctr + 12) + (uint32_t)n);
}

/* out = a ^ b over n bytes (any of them may be the same buffer). */
static inline void fb_b128_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* CBC decryption of n blocks whose raw decryptions are in d[]: out[i] =
 * d[i] ^ in[i-1] (iv for i = 0), from the last block down so that in place
 * every ciphertext is read before it is overwritten; iv becomes in[n-1]. */
static inline void fb_b128_cbc_finish(uint8_t *out, const uint8_t *d, const uint8_t *in, size_t n,
				      uint8_t *iv)
{
	uint8_t last[16];
	memcpy(last, in + 16 * (n - 1), 16);
	for (size_t i = n - 1; i > 0; i--)
		fb_b128_xor(out + 16 * i, d + 16 * i, in + 16 * (i - 1), 16);
	fb_b128_xor(out, d, iv, 16);
	memcpy(iv, last, 16);
}

/* CBC encryption over a kernel's one-block function, defined in the
 * kernel's own file so that the block function is inlined: the chain pays
 * no indirect call and no key-schedule reload per block, which is what a
 * serial kernel's cbc_enc step is for (CFB and OFB encryption run through
 * it too, src/modes/block_modes.c). sched is the schedule block() takes,
 * as an expression of ksp; block(sched, out, in) encrypts one block, and
 * out == in works. attrs: the function's attributes (a target, or none). */
#define FB_B128_CBC_ENC(name, attrs, sched, block)                                            \
	static attrs void name(const void *ksp, uint8_t *out, const uint8_t *in, size_t n,   \
			       uint8_t *iv)                                                   \
	{                                                                                     \
		__typeof__(&*(sched)) k_ = sched;                                               \
		const uint8_t *prev_ = iv;                                                    \
		uint8_t x_[16];                                                               \
		for (; n; n--, in += 16, out += 16) {                                         \
			fb_b128_xor(x_, in, prev_, 16);                                       \
			block(k_, out, x_);                                                   \
			prev_ = out;                                                          \
		}                                                                             \
		if (prev_ != iv)                                                              \
			memcpy(iv, prev_, 16);                                                \
		fb_wipe(x_, sizeof x_);                                                       \
	}

/* The chained modes over a kernel's word function: enc(sched, w)
 * encrypts in place the block held as four little-endian words in w[].
 * mode 0: CBC encryption (the input XORed in before the rounds); 1: OFB,
 * either direction (the keystream alone is encrypted, the output is the
 * input XOR it); 2: CFB encryption (the output, input XOR the encrypted
 * register, is the next register). The chaining value never leaves
 * registers: the byte form above stores each ciphertext and loads it back
 * for the next block, and on Zen 4 and Zen 5 those two store forwardings
 * and the word packing cost RC6 about 25 of its 215 core cycles per block.
 * Without the OFB and CFB forms the mode layer runs those modes through
 * cbc_enc and a pass over a buffer (serpent-128-ofb on Zen 4: 1.03-1.04x
 * fused). In CBC and CFB w_ only ever holds ciphertext between blocks, so
 * it is not wiped (taking its address would put it in memory); in OFB it
 * holds keystream and is. */
#define FB_B128_CHAIN_WORDS(name, sched, enc, mode)                                          \
	static void name(const void *ksp, uint8_t *out, const uint8_t *in, size_t n,         \
			 uint8_t *iv)                                                         \
	{                                                                                     \
		__typeof__(&*(sched)) k_ = sched;                                               \
		uint32_t w_[4];                                                               \
		int j_;                                                                       \
		for (j_ = 0; j_ < 4; j_++)                                                    \
			w_[j_] = fb_b128_load32(iv + 4 * j_);                                 \
		for (; n; n--, in += 16, out += 16) {                                         \
			for (j_ = 0; j_ < 4 && (mode) == 0; j_++)                             \
				w_[j_] ^= fb_b128_load32(in + 4 * j_);                        \
			enc(k_, w_);                                                          \
			for (j_ = 0; j_ < 4 && (mode) == 2; j_++)                             \
				w_[j_] ^= fb_b128_load32(in + 4 * j_);                        \
			for (j_ = 0; j_ < 4; j_++)                                            \
				fb_b128_store32(out + 4 * j_,                                 \
						w_[j_] ^ ((mode) == 1 ? fb_b128_load32(in + 4 * j_) : 0)); \
		}                                                                             \
		for (j_ = 0; j_ < 4; j_++)                                                    \
			fb_b128_store32(iv + 4 * j_, w_[j_]);                                 \
		if ((mode) == 1)                                                              \
			fb_wipe(w_, sizeof w_);                                               \
	}
#define FB_B128_CBC_ENC_WORDS(name, sched, enc) FB_B128_CHAIN_WORDS(name, sched, enc, 0)
#define FB_B128_OFB_WORDS(name, sched, enc) FB_B128_CHAIN_WORDS(name, sched, enc, 1)
#define FB_B128_CFB_ENC_WORDS(name, sched, enc) FB_B128_CHAIN_WORDS(name, sched, enc, 2)

/* CFB8 encryption over the word function: the shift register stays in
 * four words, shifted one byte a step, where the mode layer's generic path
 * calls the block function through a pointer and moves the register
 * through memory for every byte (serpent-256-cfb8 on Zen 4: ~40 TSC ticks
 * a byte of ~410). t_ holds keystream, so it is wiped. */
#define FB_B128_CFB8_ENC_WORDS(name, sched, enc)                                              \
	static void name(const void *ksp, uint8_t *out, const uint8_t *in, size_t len,       \
			 uint8_t *iv)                                                         \
	{                                                                                     \
		__typeof__(&*(sched)) k_ = sched;                                               \
		uint32_t r_[4], t_[4];                                                        \
		int j_;                                                                       \
		for (j_ = 0; j_ < 4; j_++)                                                    \
			r_[j_] = fb_b128_load32(iv + 4 * j_);                                 \
		for (size_t i_ = 0; i_ < len; i_++) {                                         \
			for (j_ = 0; j_ < 4; j_++)                                            \
				t_[j_] = r_[j_];                                              \
			enc(k_, t_);                                                          \
			uint32_t c_ = (uint8_t)(in[i_] ^ t_[0]);                              \
			out[i_] = (uint8_t)c_;                                                \
			for (j_ = 0; j_ < 3; j_++)                                            \
				r_[j_] = r_[j_] >> 8 | r_[j_ + 1] << 24;                      \
			r_[3] = r_[3] >> 8 | c_ << 24;                                        \
		}                                                                             \
		for (j_ = 0; j_ < 4; j_++)                                                    \
			fb_b128_store32(iv + 4 * j_, r_[j_]);                                 \
		fb_wipe(t_, sizeof t_);                                                       \
	}

/* The matching CBC decryption for a scalar kernel whose decrypt(ks, out,
 * in, n) is dec: up to 16 blocks at a time into a small buffer, then
 * fb_b128_cbc_finish. The fused step that short runs of the SIMD kernels'
 * ladders reach: it spares them the drive layer's 8 KB generic buffer. */
#define FB_B128_CBC_DEC(name, dec)                                                            \
	static void name(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                     \
		uint8_t d_[16 * 16];                                                          \
		size_t used_ = 16 * (n < 16 ? n : 16);                                        \
		while (n) {                                                                   \
			size_t m_ = n < 16 ? n : 16;                                          \
			dec(ksp, d_, in, m_);                                                 \
			fb_b128_cbc_finish(out, d_, in, m_, iv);                              \
			in += 16 * m_, out += 16 * m_, n -= m_;                               \
		}                                                                             \
		fb_wipe(d_, used_);                                                           \
	}

/* CBC decryption over dec_m(sched, out, in, m, prev): m = 1-4 blocks (a
 * constant once inlined) decrypted, each XORed as it is stored with the
 * ciphertext block before it (prev's 16 bytes for the first), every input
 * read before the first store. Groups of four, then the rest as one;
 * carry keeps a group's last ciphertext, which in place the group
 * overwrites (it is public: no wipe). The fused step that short runs of
 * the SIMD kernels' ladders reach. No buffer: the form above cost a
 * one-block RC6 or MARS update ~14-16 TSC ticks more than ECB (Sapphire
 * Rapids class). */
#define FB_B128_CBC_DEC_M(name, sched, dec_m)                                                 \
	static void name(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                     \
		__typeof__(&*(sched)) k_ = sched;                                               \
		uint8_t carry_[16], next_[16];                                                \
		memcpy(carry_, iv, 16);                                                       \
		while (n) {                                                                   \
			size_t m_ = n >= 4 ? 4 : n;                                           \
			memcpy(next_, in + 16 * (m_ - 1), 16);                                \
			switch (m_) {                                                         \
			case 4: dec_m(k_, out, in, 4, carry_); break;                         \
			case 3: dec_m(k_, out, in, 3, carry_); break;                         \
			case 2: dec_m(k_, out, in, 2, carry_); break;                         \
			default: dec_m(k_, out, in, 1, carry_); break;                        \
			}                                                                     \
			memcpy(carry_, next_, 16);                                            \
			in += 16 * m_, out += 16 * m_, n -= m_;                               \
		}                                                                             \
		memcpy(iv, carry_, 16);                                                       \
	}

#endif /* FB_BLOCK128_SIMD_H */

/* ======================= SIMD part (x86 only) ========================== */
#if FB_X86 && defined(FB_B128_VBITS) && !defined(FB_BLOCK128_SIMD_VEC)
#define FB_BLOCK128_SIMD_VEC
#include <immintrin.h>

/* The vector primitives of the chosen width. After the in-lane transpose,
 * dword 4L + q of a vector belongs to block (LANES / 4) q + L, which is what
 * FB_B128_CTR_OFFSETS encodes. */
#if FB_B128_VBITS == 256
typedef __m256i fb_b128_v;
#define FB_B128_TGT FB_TARGET("avx2")
#define FB_B128_LANES 8
#define FB_B128_ALIGN 32
#define FB_B128_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define FB_B128_STOREU(p, x) _mm256_storeu_si256((__m256i *)(void *)(p), x)
#define FB_B128_XOR(x, y) _mm256_xor_si256(x, y)
#define FB_B128_AND(x, y) _mm256_and_si256(x, y)
#define FB_B128_ADD(x, y) _mm256_add_epi32(x, y)
#define FB_B128_SUB(x, y) _mm256_sub_epi32(x, y)
#define FB_B128_SET1(x) _mm256_set1_epi32((int)(x))
#define FB_B128_PFX _mm256
#define FB_B128_BSWAP32(x)                                                                \
	_mm256_shuffle_epi8(x, _mm256_set_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203, \
						0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203))
#define FB_B128_CTR_OFFSETS _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0)
/* XTS: a vector of the tweaks T, T*alpha (one per 128-bit lane, qwords
 * low then high), its lanes times alpha^k, and the first lane back to
 * bytes. */
static inline FB_B128_TGT fb_b128_v fb_b128_xts_first(const uint8_t *t)
{
	uint64_t lo = fb_load64_le(t), hi = fb_load64_le(t + 8), l1 = lo, h1 = hi;
	fb_xts_double(&l1, &h1);
	return _mm256_set_epi64x((long long)h1, (long long)l1, (long long)hi, (long long)lo);
}
/* k <= 56, a constant: both qwords shift by k, the low qword's top k bits
 * carry into the high one, and the high one's come back reduced, times
 * 0x87 carry-less (c ^ c << 1 ^ c << 2 ^ c << 7); xts_avx512.h's form
 * with two-input operations. */
static inline FB_B128_TGT fb_b128_v fb_b128_xts_step256(fb_b128_v t, const int k)
{
	fb_b128_v c = _mm256_shuffle_epi32(_mm256_srli_epi64(t, 64 - k), 0x4E);
	fb_b128_v r = _mm256_xor_si256(_mm256_xor_si256(c, _mm256_slli_epi64(c, 1)),
				       _mm256_xor_si256(_mm256_slli_epi64(c, 2), _mm256_slli_epi64(c, 7)));
	return _mm256_xor_si256(_mm256_slli_epi64(t, k), _mm256_blend_epi32(r, c, 0xCC));
}
#define FB_B128_XTS_STEP(t, k) fb_b128_xts_step256(t, k)
#define FB_B128_XTS_SAVE(t, v) _mm_storeu_si128((__m128i *)(void *)(t), _mm256_castsi256_si128(v))
/* The vector before block 0 (iv, then blocks 0, 2, 4 of the low lane...):
 * assembled from iv and block 0, never touching the 16 bytes before the
 * buffer. */
#define FB_B128_CBC_PREV0_SETUP                                                 \
	const __m256i prev0_ = _mm256_inserti128_si256(                         \
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)iv)),   \
		_mm_loadu_si128((const __m128i *)in), 1);
#define FB_B128_CBC_PREV0 prev0_
/* A vector of 2 blocks from the blocks first.. of a run of n: whole, its
 * first block alone (a 16-byte access), or nothing (zero). */
static inline FB_B128_TGT fb_b128_v fb_b128_loadn(const uint8_t *p, size_t first, size_t n)
{
	if (n >= first + 2)
		return FB_B128_LOADU(p);
	if (n > first)
		return _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)p));
	return _mm256_setzero_si256();
}
static inline FB_B128_TGT void fb_b128_storen(uint8_t *p, fb_b128_v x, size_t first, size_t n)
{
	if (n >= first + 2)
		FB_B128_STOREU(p, x);
	else if (n > first)
		_mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(x));
}
/* Up to LANES / 2 blocks with each word in both halves of a qword (x:x),
 * for ciphers that rotate: a rotation is then a vpshufd that copies the
 * valid dword into both halves and one 64-bit shift (variable: vpsllvq or
 * vpsrlvq), where eight dwords take two shifts and an or. A kernel keeps
 * its words valid in the high dwords (DUPHI: rotations left) or the low
 * ones (DUPLO: right); per-dword operations leave the valid half right
 * whatever the other holds. After the transpose blocks 0-3 are dwords 0
 * and 1 of each 128-bit lane. */
#define FB_B128_DUP_IN(x) x = _mm256_shuffle_epi32(x, 0x50)
#define FB_B128_SETUP_DUPHI
#define FB_B128_SETUP_DUPLO
#define FB_B128_IN_DUPHI(g)                                                   \
	FB_B128_LOAD(g)                                                       \
	FB_B128_DUP_IN(a##g); FB_B128_DUP_IN(b##g); FB_B128_DUP_IN(c##g); FB_B128_DUP_IN(d##g);
#define FB_B128_IN_DUPLO FB_B128_IN_DUPHI
#define FB_B128_DUP_OUT(g, sel)                                               \
	a##g = _mm256_shuffle_epi32(a##g, sel);                               \
	b##g = _mm256_shuffle_epi32(b##g, sel);                               \
	c##g = _mm256_shuffle_epi32(c##g, sel);                               \
	d##g = _mm256_shuffle_epi32(d##g, sel);                               \
	FB_B128_STORE(g)
#define FB_B128_OUTS_DUPHI(GN) FB_B128_DUP_OUT(0, 0x0D)
#define FB_B128_OUTS_DUPLO(GN) FB_B128_DUP_OUT(0, 0x08)
/* x's valid dword (hi: the high one) in both halves of each qword. */
#define FB_B128_DUP_HI(x) _mm256_shuffle_epi32(x, 0xF5)
#define FB_B128_DUP_LO(x) _mm256_shuffle_epi32(x, 0xA0)
#elif FB_B128_VBITS == 512
typedef __m512i fb_b128_v;
#define FB_B128_TGT FB_TARGET("avx512f,avx512vl,avx512bw,avx512dq")
#define FB_B128_LANES 16
#define FB_B128_ALIGN 64
#define FB_B128_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define FB_B128_STOREU(p, x) _mm512_storeu_si512((void *)(p), x)
#define FB_B128_XOR(x, y) _mm512_xor_si512(x, y)
#define FB_B128_AND(x, y) _mm512_and_si512(x, y)
#define FB_B128_ADD(x, y) _mm512_add_epi32(x, y)
#define FB_B128_SUB(x, y) _mm512_sub_epi32(x, y)
#define FB_B128_SET1(x) _mm512_set1_epi32((int)(x))
#define FB_B128_PFX _mm512
#define FB_B128_BSWAP32(x) \
	_mm512_shuffle_epi8(x, _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203))
#define FB_B128_CTR_OFFSETS \
	_mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0)
/* XTS: T, T*alpha, T*alpha^2, T*alpha^3, and steps (xts_avx512.h). */
#include "xts_avx512.h"
#define fb_b128_xts_first fb_xts512_first
#define FB_B128_XTS_STEP(t, k) fb_xts512_mul_alpha(t, k)
#define FB_B128_XTS_SAVE(t, v) _mm_storeu_si128((__m128i *)(void *)(t), _mm512_castsi512_si128(v))
/* The vector before block 0: a masked load of blocks 0-2 over iv, which
 * never touches the 16 bytes before the buffer. */
#define FB_B128_CBC_PREV0_SETUP \
	const __m512i iv_ = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)iv));
#define FB_B128_CBC_PREV0 _mm512_mask_loadu_epi32(iv_, 0xfff0, in - 16)
/* A vector of 4 blocks from the blocks first.. of a run of n: whole, or
 * masked to the blocks there (masked-off words are neither read nor
 * written, so nothing past the run is touched). */
static inline FB_B128_TGT __mmask16 fb_b128_maskn(size_t first, size_t n)
{
	size_t c = n > first ? n - first : 0;
	return (__mmask16)((1u << (4 * c)) - 1);
}
static inline FB_B128_TGT fb_b128_v fb_b128_loadn(const uint8_t *p, size_t first, size_t n)
{
	if (n >= first + 4)
		return FB_B128_LOADU(p);
	return _mm512_maskz_loadu_epi32(fb_b128_maskn(first, n), p);
}
static inline FB_B128_TGT void fb_b128_storen(uint8_t *p, fb_b128_v x, size_t first, size_t n)
{
	if (n >= first + 4)
		FB_B128_STOREU(p, x);
	else if (n > first)
		_mm512_mask_storeu_epi32(p, fb_b128_maskn(first, n), x);
}
#else
#error "FB_B128_VBITS must be 256 or 512"
#endif

/* 4x4 transpose of dwords inside each 128-bit lane (its own inverse). */
#define FB_B128_TRANSPOSE4(a, b, c, d) FB_B128_TRANSPOSE4_(FB_B128_PFX, a, b, c, d)
#define FB_B128_TRANSPOSE4_(pfx, a, b, c, d) FB_TRANSPOSE4_IN_LANES(fb_b128_v, pfx, a, b, c, d)

/* ---- input and output of one group g (blocks LANES g .. LANES g + LANES-1) */

#define FB_B128_GROUP_BYTES (16 * FB_B128_LANES)
#define FB_B128_VEC(p, g, v) ((p) + FB_B128_GROUP_BYTES * (g) + (FB_B128_VBITS / 8) * (v))
#define FB_B128_DECL(g) fb_b128_v a##g, b##g, c##g, d##g;
/* Loads and stores of the first n_ blocks only (the function's count): a
 * short run needs no copy through a buffer. A run that fills the groups
 * takes the first branch of each helper. The first block of vector v of
 * group g is FB_B128_FIRST(g, v). */
#define FB_B128_FIRST(g, v) ((size_t)FB_B128_LANES * (g) + (size_t)(FB_B128_LANES / 4) * (v))
#define FB_B128_LOADN(g, v) fb_b128_loadn(FB_B128_VEC(in, g, v), FB_B128_FIRST(g, v), n_)
#define FB_B128_STOREN(g, v, x) fb_b128_storen(FB_B128_VEC(out, g, v), x, FB_B128_FIRST(g, v), n_)
#define FB_B128_LOAD(g)                                   \
	a##g = FB_B128_LOADN(g, 0);                       \
	b##g = FB_B128_LOADN(g, 1);                       \
	c##g = FB_B128_LOADN(g, 2);                       \
	d##g = FB_B128_LOADN(g, 3);                       \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);
#define FB_B128_STORE(g)                                  \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);       \
	FB_B128_STOREN(g, 0, a##g);                       \
	FB_B128_STOREN(g, 1, b##g);                       \
	FB_B128_STOREN(g, 2, c##g);                       \
	FB_B128_STOREN(g, 3, d##g);

/* CTR: words 0-2 of the counter block are the same for all blocks; word 3
 * (little-endian) is the byte swap of the big-endian counter + block. */
#define FB_B128_SETUP_CTR                                                             \
	const fb_b128_v cw0_ = FB_B128_SET1(fb_b128_load32(iv));                      \
	const fb_b128_v cw1_ = FB_B128_SET1(fb_b128_load32(iv + 4));                  \
	const fb_b128_v cw2_ = FB_B128_SET1(fb_b128_load32(iv + 8));                  \
	const fb_b128_v cnt_ = FB_B128_ADD(FB_B128_SET1(fb_load32_be(iv + 12)), FB_B128_CTR_OFFSETS);
#define FB_B128_IN_CTR(g)                                                             \
	a##g = cw0_;                                                                  \
	b##g = cw1_;                                                                  \
	c##g = cw2_;                                                                  \
	d##g = FB_B128_BSWAP32(FB_B128_ADD(cnt_, FB_B128_SET1(FB_B128_LANES * (g))));
#define FB_B128_XOR_IN(g, v, x) FB_B128_XOR(x, FB_B128_LOADU(FB_B128_VEC(in, g, v)))
#define FB_B128_OUT_CTR(g)                                                            \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);                                   \
	FB_B128_STOREU(FB_B128_VEC(out, g, 0), FB_B128_XOR_IN(g, 0, a##g));           \
	FB_B128_STOREU(FB_B128_VEC(out, g, 1), FB_B128_XOR_IN(g, 1, b##g));           \
	FB_B128_STOREU(FB_B128_VEC(out, g, 2), FB_B128_XOR_IN(g, 2, c##g));           \
	FB_B128_STOREU(FB_B128_VEC(out, g, 3), FB_B128_XOR_IN(g, 3, d##g));

/* CBC decryption: the previous ciphertext of the blocks of vector v starts
 * 16 bytes earlier; for the very first block it is iv. Stored from the last
 * vector (and group) down: each store only overwrites ciphertext no later
 * load needs. */
#define FB_B128_SETUP_CBC          \
	FB_B128_CBC_PREV0_SETUP    \
	memcpy(iv, in + 16 * (FB_B128_LANES * G - 1), 16);
#define FB_B128_PREV(g, v) \
	((g) == 0 && (v) == 0 ? FB_B128_CBC_PREV0 : FB_B128_LOADU(FB_B128_VEC(in, g, v) - 16))
#define FB_B128_OUT_CBC(g)                                                            \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);                                   \
	FB_B128_STOREU(FB_B128_VEC(out, g, 3), FB_B128_XOR(d##g, FB_B128_PREV(g, 3)));  \
	FB_B128_STOREU(FB_B128_VEC(out, g, 2), FB_B128_XOR(c##g, FB_B128_PREV(g, 2)));  \
	FB_B128_STOREU(FB_B128_VEC(out, g, 1), FB_B128_XOR(b##g, FB_B128_PREV(g, 1)));  \
	FB_B128_STOREU(FB_B128_VEC(out, g, 0), FB_B128_XOR(a##g, FB_B128_PREV(g, 0)));

/* CFB decryption (BODY encrypts): the cipher's input is the ciphertext
 * shifted one block (iv first), loaded for every group before any store;
 * the output is that encryption XORed with the ciphertext, as CTR's. A
 * group's stores overwrite only the ciphertext it has just read, so out ==
 * in works. iv becomes the last ciphertext block, as in CBC. */
#define FB_B128_SETUP_CFB FB_B128_SETUP_CBC
#define FB_B128_IN_CFB(g)                                 \
	a##g = FB_B128_PREV(g, 0);                        \
	b##g = FB_B128_PREV(g, 1);                        \
	c##g = FB_B128_PREV(g, 2);                        \
	d##g = FB_B128_PREV(g, 3);                        \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);
#define FB_B128_OUTS_CFB(GN) FB_B128_EACH_##GN(FB_B128_OUT_CTR)

/* XTS (BODY encrypts or decrypts): a vector of LANES / 4 consecutive
 * blocks is XORed with its tweaks before the transpose and after the one
 * back. The tweaks of the vectors at one place (a, b, c or d) of each
 * group are a chain of steps by alpha^LANES, four chains side by side:
 * one chain through all the vectors (steps of alpha^(LANES / 4)) sat on
 * the way into the rounds, and XTS ran 0.83-0.89x ECB's speed. iv is the
 * first block's tweak and becomes the one after the last. Each group reads
 * and writes only its own blocks, so out == in works. */
#define FB_B128_SETUP_XTS                                                             \
	fb_b128_v tw_[4 * G], tq_[4];                                                 \
	tq_[0] = fb_b128_xts_first(iv);                                               \
	for (int v_ = 1; v_ < 4; v_++)                                                \
		tq_[v_] = FB_B128_XTS_STEP(tq_[v_ - 1], FB_B128_LANES / 4);
#define FB_B128_XTS_IN1(g, v, x)                                                      \
	tw_[4 * (g) + (v)] = tq_[v];                                                  \
	x = FB_B128_XOR(FB_B128_LOADU(FB_B128_VEC(in, g, v)), tq_[v]);                \
	tq_[v] = FB_B128_XTS_STEP(tq_[v], FB_B128_LANES);
#define FB_B128_IN_XTS(g)                                 \
	FB_B128_XTS_IN1(g, 0, a##g)                       \
	FB_B128_XTS_IN1(g, 1, b##g)                       \
	FB_B128_XTS_IN1(g, 2, c##g)                       \
	FB_B128_XTS_IN1(g, 3, d##g)                       \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);
#define FB_B128_OUT_XTS(g)                                                            \
	FB_B128_TRANSPOSE4(a##g, b##g, c##g, d##g);                                   \
	FB_B128_STOREU(FB_B128_VEC(out, g, 0), FB_B128_XOR(a##g, tw_[4 * (g)]));      \
	FB_B128_STOREU(FB_B128_VEC(out, g, 1), FB_B128_XOR(b##g, tw_[4 * (g) + 1]));  \
	FB_B128_STOREU(FB_B128_VEC(out, g, 2), FB_B128_XOR(c##g, tw_[4 * (g) + 2]));  \
	FB_B128_STOREU(FB_B128_VEC(out, g, 3), FB_B128_XOR(d##g, tw_[4 * (g) + 3]));
#define FB_B128_OUTS_XTS(GN) FB_B128_EACH_##GN(FB_B128_OUT_XTS) FB_B128_XTS_SAVE(iv, tq_[0]);

/* Plain encryption or decryption: no setup, loads and stores. */
#define FB_B128_SETUP_PLAIN
#define FB_B128_IN_PLAIN FB_B128_LOAD
#define FB_B128_IN_CBC FB_B128_LOAD
#define FB_B128_OUT_PLAIN FB_B128_STORE

/* Apply M to groups 0 .. n-1 (with extra arguments: EACHA), and for CBC
 * stores in reverse. */
#define FB_B128_EACH_1(M) M(0)
#define FB_B128_EACH_2(M) M(0) M(1)
#define FB_B128_EACH_4(M) M(0) M(1) M(2) M(3)
#define FB_B128_EACHA_1(M, ...) M(0, __VA_ARGS__)
#define FB_B128_EACHA_2(M, ...) M(0, __VA_ARGS__) M(1, __VA_ARGS__)
#define FB_B128_EACHA_4(M, ...) M(0, __VA_ARGS__) M(1, __VA_ARGS__) M(2, __VA_ARGS__) M(3, __VA_ARGS__)
#define FB_B128_OUTS_PLAIN(GN) FB_B128_EACH_##GN(FB_B128_OUT_PLAIN)
#define FB_B128_OUTS_CTR(GN) FB_B128_EACH_##GN(FB_B128_OUT_CTR)
#define FB_B128_OUTS_CBC(GN) FB_B128_EACHR_##GN(FB_B128_OUT_CBC)
#define FB_B128_EACHR_1(M) M(0)
#define FB_B128_EACHR_2(M) M(1) M(0)
#define FB_B128_EACHR_4(M) M(3) M(2) M(1) M(0)

/* One kernel function on GN (1, 2 or 4) interleaved groups: KIND PLAIN
 * (in -> out, may alias; the first n_ blocks, 1 <= n_ <= the groups'),
 * CTR (iv is the counter block: out = in ^ E(ctr..)), CBC (decryption
 * with the chaining value iv, updated) or CFB (decryption, BODY the
 * encryption; iv updated); CTR, CBC and CFB take whole groups (n_ is
 * their size). k is the key schedule's words, as BODY expects them. */
#define FB_B128_DEFINE(name, BODY, GN, KIND)                                          \
	static FB_B128_TGT void name(const uint32_t *k, uint8_t *out, const uint8_t *in, \
				     uint8_t *iv, size_t n_)                          \
	{                                                                             \
		enum { G = GN };                                                      \
		FB_B128_SETUP_##KIND                                                  \
		FB_B128_EACH_##GN(FB_B128_DECL)                                       \
		(void)iv;                                                             \
		(void)G;                                                              \
		(void)n_;                                                             \
		FB_B128_EACH_##GN(FB_B128_IN_##KIND)                                  \
		BODY(FB_B128_EACHA_##GN)                                              \
		FB_B128_OUTS_##KIND(GN)                                               \
	}

/* Round-key word i of k, broadcast. */
#define FB_B128_KEY(i) FB_B128_SET1(k[i])

/* ---- drivers ---------------------------------------------------------- */

typedef void (*fb_b128_fn)(const uint32_t *k, uint8_t *out, const uint8_t *in, uint8_t *iv, size_t n);

/* The kernel functions of one SIMD kernel: enc[i] and dec[i] handle
 * up to LANES << i blocks (i < nf; the last is the full batch), ctr, cbc
 * and cfb a full batch. Short runs, where scalar code beats one group, are
 * the ladder's (the family's *_impls.c). */
typedef struct fb_b128_kernel {
	unsigned nf;
	fb_b128_fn enc[3], dec[3];
	fb_b128_fn ctr, cbc, cfb, xts_enc, xts_dec;
} fb_b128_kernel;

#define FB_B128_BATCH(K) ((size_t)FB_B128_LANES << ((K)->nf - 1))
#define FB_B128_BUF_BYTES (16 * 4 * FB_B128_LANES) /* more than a batch tail */

/* Whole batches of a kernel function f (ctr: advancing the counter iv by
 * each); returns the blocks left, with in and out moved past the rest. */
static inline size_t fb_b128_batches(const fb_b128_kernel *K, fb_b128_fn f, const void *ks, uint8_t **out,
				     const uint8_t **in, size_t n, uint8_t *iv, int ctr)
{
	const size_t batch = FB_B128_BATCH(K);
	for (; n >= batch; n -= batch, *in += 16 * batch, *out += 16 * batch) {
		f((const uint32_t *)ks, *out, *in, iv, batch);
		if (ctr)
			fb_b128_ctr_advance(iv, batch);
	}
	return n;
}

/* Full batches, then the tail on the fewest groups that cover it, whose
 * loads and stores stop at the caller's last block. Not through a stack
 * buffer: on the Sapphire Rapids class, copying 4 RC6 blocks in and out of
 * one made the call 1.45x as long as a whole group of 8 (417 against 290
 * TSC ticks). The key schedules (fb_rc6_ks, fb_mars_ks) are structures that
 * begin with their round-key words. */
static inline void fb_b128_run(const fb_b128_kernel *K, int enc, const void *ks, uint8_t *out,
			       const uint8_t *in, size_t n)
{
	const fb_b128_fn *f = enc ? K->enc : K->dec;
	unsigned i = 0;

	n = fb_b128_batches(K, f[K->nf - 1], ks, &out, &in, n, NULL, 0);
	if (n == 0)
		return;
	while (((size_t)FB_B128_LANES << i) < n)
		i++;
	f[i]((const uint32_t *)ks, out, in, NULL, n);
}

/* The fused CTR, CBC-decryption and CFB-decryption steps take whole
 * batches; a tail goes through buf and fb_b128_run. */
static inline void fb_b128_ctr32(const fb_b128_kernel *K, const void *ks, uint8_t *out,
				 const uint8_t *in, size_t n, uint8_t *ctr)
{
	_Alignas(FB_B128_ALIGN) uint8_t buf[FB_B128_BUF_BYTES];

	n = fb_b128_batches(K, K->ctr, ks, &out, &in, n, ctr, 1);
	if (n == 0)
		return;
	fb_b128_ctr_fill(buf, ctr, n);
	fb_b128_run(K, 1, ks, buf, buf, n);
	fb_b128_xor(out, in, buf, 16 * n);
	fb_b128_ctr_advance(ctr, n);
	fb_wipe(buf, 16 * n);
}

static inline void fb_b128_cbc_dec(const fb_b128_kernel *K, const void *ks, uint8_t *out,
				   const uint8_t *in, size_t n, uint8_t *iv)
{
	_Alignas(FB_B128_ALIGN) uint8_t buf[FB_B128_BUF_BYTES];

	n = fb_b128_batches(K, K->cbc, ks, &out, &in, n, iv, 0);
	if (n == 0)
		return;
	fb_b128_run(K, 0, ks, buf, in, n);
	fb_b128_cbc_finish(out, buf, in, n, iv);
	fb_wipe(buf, 16 * n);
}

/* A CFB tail's cipher input is iv, then its ciphertext but the last block. */
static inline void fb_b128_cfb_dec(const fb_b128_kernel *K, const void *ks, uint8_t *out,
				   const uint8_t *in, size_t n, uint8_t *iv)
{
	_Alignas(FB_B128_ALIGN) uint8_t buf[FB_B128_BUF_BYTES];

	n = fb_b128_batches(K, K->cfb, ks, &out, &in, n, iv, 0);
	if (n == 0)
		return;
	memcpy(buf, iv, 16);
	memcpy(buf + 16, in, 16 * (n - 1));
	memcpy(iv, in + 16 * (n - 1), 16);
	fb_b128_run(K, 1, ks, buf, buf, n);
	fb_b128_xor(out, in, buf, 16 * n);
	fb_wipe(buf, 16 * n);
}

/* XTS: whole batches fused; a tail's tweaks made here (fb_xts_first_xor,
 * kept as 16-byte stores for the second XOR's loads), XORed around a run
 * through buf. tw is the first block's tweak and becomes the next one. */
static inline void fb_b128_xts(const fb_b128_kernel *K, int enc, const void *ks, uint8_t *out,
			       const uint8_t *in, size_t n, uint8_t *tw)
{
	_Alignas(FB_B128_ALIGN) uint8_t buf[FB_B128_BUF_BYTES], t[FB_B128_BUF_BYTES];

	n = fb_b128_batches(K, enc ? K->xts_enc : K->xts_dec, ks, &out, &in, n, tw, 0);
	if (n == 0)
		return;
	uint64_t lo = fb_load64_le(tw), hi = fb_load64_le(tw + 8);
	fb_xts_first_xor(t, buf, in, n, &lo, &hi);
	fb_b128_run(K, enc, ks, buf, buf, n);
	fb_b128_xor(out, buf, t, 16 * n);
	fb_store64_le(tw, lo);
	fb_store64_le(tw + 8, hi);
	fb_wipe(buf, 16 * n);
	fb_wipe(t, 16 * n);
}

/* The descriptor functions pfx_encrypt, pfx_decrypt, pfx_ctr32,
 * pfx_cbc_dec, pfx_cfb_dec, pfx_xts_enc and pfx_xts_dec of the kernel
 * whose fb_b128_kernel is K. */
#define FB_B128_DEFINE_MODES(pfx, K)                                                      \
	static void pfx##_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{                                                                                 \
		fb_b128_run(&(K), 1, ks, out, in, n);                                     \
	}                                                                                 \
	static void pfx##_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{                                                                                 \
		fb_b128_run(&(K), 0, ks, out, in, n);                                     \
	}                                                                                 \
	static void pfx##_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n,  \
				uint8_t *ctr)                                             \
	{                                                                                 \
		fb_b128_ctr32(&(K), ks, out, in, n, ctr);                                 \
	}                                                                                 \
	static void pfx##_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, \
				  uint8_t *iv)                                            \
	{                                                                                 \
		fb_b128_cbc_dec(&(K), ks, out, in, n, iv);                                \
	}                                                                                 \
	static void pfx##_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, \
				  uint8_t *iv)                                            \
	{                                                                                 \
		fb_b128_cfb_dec(&(K), ks, out, in, n, iv);                                \
	}                                                                                 \
	static void pfx##_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n, \
				  uint8_t *tw)                                            \
	{                                                                                 \
		fb_b128_xts(&(K), 1, ks, out, in, n, tw);                                 \
	}                                                                                 \
	static void pfx##_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, \
				  uint8_t *tw)                                            \
	{                                                                                 \
		fb_b128_xts(&(K), 0, ks, out, in, n, tw);                                 \
	}

#endif /* SIMD part */
