/*
 * The scalar Serpent kernels' block code on the two-input-circuit forms
 * (ke, ks, kd of serpent_ks): one block (shallow circuits, keys folded
 * into LT) and two interleaved, in ECB and in the serial chains. Included
 * by serpent/bitslice and by serpent/bitslice-bmi2, which compiles the
 * same code for BMI1/BMI2 (ANDN, RORX): each file gets its own static
 * copies, so each kernel's functions carry its own instruction set.
 */
#ifndef FB_SERPENT_SCALAR_BLOCKS_H
#define FB_SERPENT_SCALAR_BLOCKS_H

#include "serpent_scalar.h"
#include "../block128_simd.h"

#ifndef ALWAYS_INLINE
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif
#endif

/* Rounds on the words x0..x3 of one block (named by the caller). */
#define KX(k, x0, x1, x2, x3) do { x0 ^= (k)[0]; x1 ^= (k)[1]; x2 ^= (k)[2]; x3 ^= (k)[3]; } while (0)
#define SB(S, x0, x1, x2, x3) FB_SERPENT_##S##_L2(uint32_t, AND, OR, XOR, ANDN, x0, x1, x2, x3)
#define LT(x0, x1, x2, x3) FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define ILT(x0, x1, x2, x3) FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define LOAD(x0, x1, x2, x3, p) do { \
	x0 = fb_b128_load32(p); x1 = fb_b128_load32((p) + 4); \
	x2 = fb_b128_load32((p) + 8); x3 = fb_b128_load32((p) + 12); \
} while (0)
#define STORE(p, x0, x1, x2, x3) do { \
	fb_b128_store32(p, x0); fb_b128_store32((p) + 4, x1); \
	fb_b128_store32((p) + 8, x2); fb_b128_store32((p) + 12, x3); \
} while (0)

/* One block, for serial modes: latency matters, so the shallow circuits and
 * the key folded into the linear transformation (keys ks). */
#define SBD(S) FB_SERPENT_##S##_L2D(uint32_t, AND, OR, XOR, ANDN, a0, a1, a2, a3)
#define KW(j) kw_[j]
#define LTK(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROL, SHL, XOR, XOR3, KW, a0, a1, a2, a3); \
} while (0)

/* Encrypts the block held as four words in w[] (the form the CBC chain
 * keeps in registers, block128_simd.h). */
static ALWAYS_INLINE void encrypt1_words(const serpent_ks *ks, uint32_t w[4])
{
	const uint32_t(*k)[4] = ks->ks;
	uint32_t a0 = w[0], a1 = w[1], a2 = w[2], a3 = w[3];

	KX(k[0], a0, a1, a2, a3);
	FB_SERPENT_KEYED_ROUNDS(SBD, LTK, k);
	KX(k[32], a0, a1, a2, a3);
	w[0] = a0, w[1] = a1, w[2] = a2, w[3] = a3;
}

static void encrypt1(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	uint32_t w[4];

	LOAD(w[0], w[1], w[2], w[3], in);
	encrypt1_words(ks, w);
	STORE(out, w[0], w[1], w[2], w[3]);
}

/* One block on the shallow inverse circuits (FB_SERPENT_SHALLOW_DEC_ROUNDS). */
#define SBID(S) FB_SERPENT_##S##_L2D(uint32_t, AND, OR, XOR, ANDN, a0, a1, a2, a3)
#define KXA(kr) KX(kr, a0, a1, a2, a3)

static void decrypt1(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	uint32_t a0, a1, a2, a3;

	LOAD(a0, a1, a2, a3, in);
	KX(k[32], a0, a1, a2, a3);
	FB_SERPENT_SHALLOW_DEC_ROUNDS(SBID, KXA, ILT(a0, a1, a2, a3), k);
	STORE(out, a0, a1, a2, a3);
}

/* The 31 keyed rounds before the last S-box of encryption, and those
 * after the first of decryption, for a round macro R(S, k) of any width. */
#define ENC_ROUNDS(R, k) do { \
	for (int r_ = 0; r_ < 24; r_ += 8) { \
		R(S0, (k)[r_]); R(S1, (k)[r_ + 1]); R(S2, (k)[r_ + 2]); R(S3, (k)[r_ + 3]); \
		R(S4, (k)[r_ + 4]); R(S5, (k)[r_ + 5]); R(S6, (k)[r_ + 6]); R(S7, (k)[r_ + 7]); \
	} \
	R(S0, (k)[24]); R(S1, (k)[25]); R(S2, (k)[26]); R(S3, (k)[27]); \
	R(S4, (k)[28]); R(S5, (k)[29]); R(S6, (k)[30]); \
} while (0)
#define DEC_ROUNDS(R, k) do { \
	R(SI6, (k)[30]); R(SI5, (k)[29]); R(SI4, (k)[28]); R(SI3, (k)[27]); \
	R(SI2, (k)[26]); R(SI1, (k)[25]); R(SI0, (k)[24]); \
	for (int r_ = 16; r_ >= 0; r_ -= 8) { \
		R(SI7, (k)[r_ + 7]); R(SI6, (k)[r_ + 6]); R(SI5, (k)[r_ + 5]); R(SI4, (k)[r_ + 4]); \
		R(SI3, (k)[r_ + 3]); R(SI2, (k)[r_ + 2]); R(SI1, (k)[r_ + 1]); R(SI0, (k)[r_]); \
	} \
} while (0)

/* Two blocks interleaved: one block's round is a dependency chain that
 * leaves most of a superscalar core idle; two fill it (about 1.7x). */
#define ER2(S, k) do { \
	KX(k, a0, a1, a2, a3); KX(k, b0, b1, b2, b3); \
	SB(S, a0, a1, a2, a3); SB(S, b0, b1, b2, b3); \
	LT(a0, a1, a2, a3); LT(b0, b1, b2, b3); \
} while (0)

static void encrypt2(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->ke;
	uint32_t a0, a1, a2, a3, b0, b1, b2, b3;

	LOAD(a0, a1, a2, a3, in);
	LOAD(b0, b1, b2, b3, in + 16);
	ENC_ROUNDS(ER2, k);
	KX(k[31], a0, a1, a2, a3); KX(k[31], b0, b1, b2, b3);
	SB(S7, a0, a1, a2, a3); SB(S7, b0, b1, b2, b3);
	KX(k[32], a0, a1, a2, a3); KX(k[32], b0, b1, b2, b3);
	STORE(out, a0, a1, a2, a3);
	STORE(out + 16, b0, b1, b2, b3);
}

/* Two blocks interleaved: the two-input circuits (L2); the shallow ones
 * have more gates, and two chains fill the core (two blocks 1.16x the
 * time on them). */
#define DR2(S, k) do { \
	ILT(a0, a1, a2, a3); ILT(b0, b1, b2, b3); \
	SB(S, a0, a1, a2, a3); SB(S, b0, b1, b2, b3); \
	KX(k, a0, a1, a2, a3); KX(k, b0, b1, b2, b3); \
} while (0)

static void decrypt2(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	uint32_t a0, a1, a2, a3, b0, b1, b2, b3;

	LOAD(a0, a1, a2, a3, in);
	LOAD(b0, b1, b2, b3, in + 16);
	KX(k[32], a0, a1, a2, a3); KX(k[32], b0, b1, b2, b3);
	SB(SI7, a0, a1, a2, a3); SB(SI7, b0, b1, b2, b3);
	KX(k[31], a0, a1, a2, a3); KX(k[31], b0, b1, b2, b3);
	DEC_ROUNDS(DR2, k);
	STORE(out, a0, a1, a2, a3);
	STORE(out + 16, b0, b1, b2, b3);
}

/* Four blocks in word vectors (GCC vector extensions: SSE2 on x86-64,
 * the compiler's choice elsewhere): lane j of vector i is word i of block
 * j, so the same circuits and LT run on four blocks at once; eight as two
 * such chains side by side, which one chain's latency leaves room for
 * (Zen 4, ECB encryption 1.45x four at a time). */
typedef uint32_t blk4 __attribute__((vector_size(16)));
#define ROLV(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define SB4(S, x0, x1, x2, x3) FB_SERPENT_##S##_L2(blk4, AND, OR, XOR, ANDN, x0, x1, x2, x3)
#define LT4(x0, x1, x2, x3) FB_SERPENT_LT(ROLV, SHL, XOR3, x0, x1, x2, x3)
#define ILT4(x0, x1, x2, x3) FB_SERPENT_ILT(ROLV, SHL, XOR3, x0, x1, x2, x3)

/* Blocks (or a key's four words) <-> word vectors: a 4x4 transpose of
 * 32-bit words. */
static ALWAYS_INLINE void blk4_tr(blk4 v[4])
{
	blk4 t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
	blk4 t1 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
	blk4 t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
	blk4 t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);
	v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
	v[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
	v[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
	v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

static ALWAYS_INLINE void blk4_load(blk4 v[4], const uint8_t *in)
{
	for (int j = 0; j < 4; j++) {
		const uint8_t *p = in + 16 * j;
		v[j] = (blk4){ fb_b128_load32(p), fb_b128_load32(p + 4), fb_b128_load32(p + 8),
			       fb_b128_load32(p + 12) };
	}
	blk4_tr(v);
}

static ALWAYS_INLINE void blk4_store(uint8_t *out, blk4 v[4])
{
	blk4_tr(v);
	for (int j = 0; j < 4; j++)
		for (int i = 0; i < 4; i++)
			fb_b128_store32(out + 16 * j + 4 * i, v[j][i]);
}

#define ER4(S, k) do { KX(k, v[0], v[1], v[2], v[3]); SB4(S, v[0], v[1], v[2], v[3]); \
	LT4(v[0], v[1], v[2], v[3]); } while (0)
#define DR4(S, k) do { ILT4(v[0], v[1], v[2], v[3]); SB4(S, v[0], v[1], v[2], v[3]); \
	KX(k, v[0], v[1], v[2], v[3]); } while (0)

static void encrypt4(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->ke;
	blk4 v[4];

	blk4_load(v, in);
	ENC_ROUNDS(ER4, k);
	KX(k[31], v[0], v[1], v[2], v[3]);
	SB4(S7, v[0], v[1], v[2], v[3]);
	KX(k[32], v[0], v[1], v[2], v[3]);
	blk4_store(out, v);
}

static void decrypt4(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	blk4 v[4];

	blk4_load(v, in);
	KX(k[32], v[0], v[1], v[2], v[3]);
	SB4(SI7, v[0], v[1], v[2], v[3]);
	KX(k[31], v[0], v[1], v[2], v[3]);
	DEC_ROUNDS(DR4, k);
	blk4_store(out, v);
}

#define ER8(S, k) do { KX(k, v[0], v[1], v[2], v[3]); KX(k, w[0], w[1], w[2], w[3]); \
	SB4(S, v[0], v[1], v[2], v[3]); SB4(S, w[0], w[1], w[2], w[3]); \
	LT4(v[0], v[1], v[2], v[3]); LT4(w[0], w[1], w[2], w[3]); } while (0)

static void encrypt8(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->ke;
	blk4 v[4], w[4];

	blk4_load(v, in);
	blk4_load(w, in + 64);
	ENC_ROUNDS(ER8, k);
	KX(k[31], v[0], v[1], v[2], v[3]); KX(k[31], w[0], w[1], w[2], w[3]);
	SB4(S7, v[0], v[1], v[2], v[3]); SB4(S7, w[0], w[1], w[2], w[3]);
	KX(k[32], v[0], v[1], v[2], v[3]); KX(k[32], w[0], w[1], w[2], w[3]);
	blk4_store(out, v);
	blk4_store(out + 64, w);
}

typedef void serpent_blocks_fn(const serpent_ks *ks, uint8_t *out, const uint8_t *in);

/* ECB of n blocks by the 8-, 4-, 2- and 1-block paths (f[0..3]). A rest
 * of 3 or 5-7 blocks runs as one padded group of 4 or 8 through a stack
 * buffer: 2+1 blocks took 1.6x the time of a group of four (AMD Zen 4,
 * 874 against 523 TSC ticks), 4+2 1.4x the time of eight. */
static ALWAYS_INLINE void serpent_blocks(const serpent_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
					 serpent_blocks_fn *const f[4])
{
	for (; n >= 8; n -= 8, in += 128, out += 128)
		f[0](ks, out, in);
	if (n == 3 || n > 4) {
		uint8_t buf[128] = { 0 };
		for (size_t i = 0; i < n; i++) /* whole blocks: no library call */
			memcpy(buf + 16 * i, in + 16 * i, 16);
		f[n > 4 ? 0 : 1](ks, buf, buf);
		for (size_t i = 0; i < n; i++)
			memcpy(out + 16 * i, buf + 16 * i, 16);
		fb_wipe(buf, sizeof buf);
		return;
	}
	if (n == 4)
		f[1](ks, out, in);
	else if (n == 2)
		f[2](ks, out, in);
	else if (n)
		f[3](ks, out, in);
}

static void serpent_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	static serpent_blocks_fn *const f[4] = { encrypt8, encrypt4, encrypt2, encrypt1 };
	serpent_blocks(ks, out, in, nblocks, f);
}

#define DR8(S, k) do { ILT4(v[0], v[1], v[2], v[3]); ILT4(w[0], w[1], w[2], w[3]); \
	SB4(S, v[0], v[1], v[2], v[3]); SB4(S, w[0], w[1], w[2], w[3]); \
	KX(k, v[0], v[1], v[2], v[3]); KX(k, w[0], w[1], w[2], w[3]); } while (0)

static void decrypt8(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	blk4 v[4], w[4];

	blk4_load(v, in);
	blk4_load(w, in + 64);
	KX(k[32], v[0], v[1], v[2], v[3]); KX(k[32], w[0], w[1], w[2], w[3]);
	SB4(SI7, v[0], v[1], v[2], v[3]); SB4(SI7, w[0], w[1], w[2], w[3]);
	KX(k[31], v[0], v[1], v[2], v[3]); KX(k[31], w[0], w[1], w[2], w[3]);
	DEC_ROUNDS(DR8, k);
	blk4_store(out, v);
	blk4_store(out + 64, w);
}

static void serpent_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	static serpent_blocks_fn *const f[4] = { decrypt8, decrypt4, decrypt2, decrypt1 };
	serpent_blocks(ks, out, in, nblocks, f);
}

FB_B128_CBC_ENC_WORDS(serpent_cbc_enc, (const serpent_ks *)ksp, encrypt1_words)
FB_B128_OFB_WORDS(serpent_ofb, (const serpent_ks *)ksp, encrypt1_words)
FB_B128_CFB_ENC_WORDS(serpent_cfb_enc, (const serpent_ks *)ksp, encrypt1_words)
FB_B128_CFB8_ENC_WORDS(serpent_cfb8_enc, (const serpent_ks *)ksp, encrypt1_words)

#endif
