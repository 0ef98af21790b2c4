/*
 * des/bs-avx512 and des/bs-avx512-t2b: bitsliced DES and Triple-DES, 512
 * blocks per batch.
 *
 * - Plane j of the state is one zmm register: bit lane i holds bit j of
 *   block i of the batch. 64 planes = 4 KB of state in memory; each S-box
 *   loads its six input planes, XORs the round-key bits in with embedded
 *   broadcasts of all-zero/all-one words, runs its vpternlog circuit
 *   (des_bs_sboxes.h, found by gen/des_sbox_search.c) and XORs the four
 *   outputs into the other half. E, P, IP and FP are plane renaming.
 * - Transposition in: vpermb (8x8 byte transpose inside a zmm),
 *   vgf2p8affineqb (8x8 bit transpose inside each qword), then two 8x8 qword
 *   transposes across registers (vpermt2q) around one more vpermb; the last
 *   stage stores each plane straight into its place after IP. Out is the
 *   mirror image, reading the planes in FP order. About 9 shuffles per 8
 *   blocks each way, against ~4,700 logic operations per 512 blocks per
 *   DES pass. des/bs-avx512-t2b does the same with vpermt2b exchanges, 7
 *   shuffles (IN512_BODY).
 * - Triple-DES runs its three passes between one transposition in and one
 *   out. CTR builds the counter planes directly (a bitsliced add of the lane
 *   index), so only the output is transposed; CBC decryption XORs the
 *   previous ciphertext while storing, last block first (in-place safe).
 * - Partial batches use masked loads and stores. A batch of at most 256
 *   blocks runs its rounds in ymm on the planes' low halves (round256) and
 *   costs about half a full one; any fill costs the same otherwise, so
 *   short runs and tails are the ladder's (src/des/des_impls.c).
 */
#include "des_bs_common.h"

#if FB_X86
#ifdef FB_DES_AVX512_EMULATED
/* tests/test_ct_valgrind.c compiles this file with a portable model of the
 * intrinsics, so that valgrind (which has no AVX-512) can check it */
#define TGT
#else
#include <immintrin.h>
#define TGT FB_TARGET("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512bitalg,gfni")
#endif
#include "des_bs_sboxes.h"

typedef __m512i V;

#define BS_T V
#define BS_LUT(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))
#define BS_XOR(a, b) _mm512_xor_si512((a), (b))
/* R plane p XOR round-key bit j (k points at the round's 48 words). */
#define KX(p, j) _mm512_xor_si512((p), _mm512_set1_epi32((int)k[j]))

TGT static __attribute__((noinline)) void round512(V *restrict a, const V *restrict b, const uint32_t *k)
{
	DES_BS_LUT_ROUND(a, b, KX);
}

/* The same round on blocks 0-255 of a batch only: the low 256 bits of
 * every plane (qwords 0-3, see the transposition). On AMD Zen 4 a zmm
 * operation takes a 256-bit pipe twice, and on Intel ymm operations have
 * three ports against zmm's two, so a batch of at most 256 blocks runs
 * its rounds in ymm registers. */
typedef __m256i H;
#define AT_LO(P, i) (*(H *)&(P)[i])
#undef BS_T
#undef BS_LUT
#undef BS_XOR
#define BS_T H
#define BS_LUT(a, b, c, imm) _mm256_ternarylogic_epi64((a), (b), (c), (imm))
#define BS_XOR(a, b) _mm256_xor_si256((a), (b))
#define KX_LO(p, j) _mm256_xor_si256((p), _mm256_set1_epi32((int)k[j]))
TGT static __attribute__((noinline)) void round256(V *restrict a, const V *restrict b, const uint32_t *k)
{
	DES_BS_LUT_ROUND_AT(AT_LO, a, b, KX_LO);
}
/* lane engine: per-lane round keys, rk the round's key planes */
#define KXL_LO(p, j) _mm256_xor_si256((p), AT_LO(rk, des_bs_lk_off[j]))
TGT static inline void round256l(V *restrict a, const V *restrict b, const V *rk)
{
	DES_BS_LUT_ROUND_AT(AT_LO, a, b, KXL_LO);
}
#undef BS_T
#undef BS_LUT
#undef BS_XOR
#define BS_T V
#define BS_LUT(a, b, c, imm) _mm512_ternarylogic_epi64((a), (b), (c), (imm))
#define BS_XOR(a, b) _mm512_xor_si512((a), (b))

/* A round of a batch of at most 256 blocks (half) or more. */
TGT static inline void round_of(V *restrict a, const V *restrict b, const uint32_t *k, int half)
{
	if (half)
		round256(a, b, k);
	else
		round512(a, b, k);
}

/* One DES pass (16 rounds) over st with the 16x48 key words rk, forwards
 * (encryption) or backwards. swap exchanges the roles of the halves, which
 * is how the second pass of EDE continues from the first. With a second
 * batch su (else NULL) the two batches' rounds alternate: a round's
 * S-boxes read the planes the round before stored, and the other batch's
 * round, independent, fills that wait (Zen 4, 8 KB: ECB 0.93-0.97 of the
 * time of one batch after the other, CBC and CFB decryption 0.94-0.99;
 * CTR, whose input needs no transposition, gained nothing and runs one
 * batch at a time). */
TGT static void pass512(V *st, V *su, const uint32_t *rk, int dec, int swap, int hs, int hu)
{
	V *a = swap ? st + 32 : st, *b = swap ? st : st + 32;
	V *c = su && swap ? su + 32 : su, *d = su && !swap ? su + 32 : su;
	const uint32_t *k = dec ? rk + 15 * 48 : rk;
	ptrdiff_t step = dec ? -48 : 48;
	for (int r = 0; r < 8; r++) {
		round_of(a, b, k, hs);
		if (su)
			round_of(c, d, k, hu);
		k += step;
		round_of(b, a, k, hs);
		if (su)
			round_of(d, c, k, hu);
		k += step;
	}
}

/* The rounds of one batch st of ns blocks, or of two (su of nu blocks,
 * else NULL); a batch of at most 256 blocks on its low halves only. */
TGT static void crypt512(V *st, size_t ns, V *su, size_t nu, const des_bs_ks *ks, int dec)
{
	int hs = ns <= 256, hu = nu <= 256;
#define PASS_H(st_, su_, rk_, dec_, swap_) pass512(st_, su_, rk_, dec_, swap_, hs, hu)
	DES_BS_CRYPT(PASS_H, st, su, ks, dec);
#undef PASS_H
}

/* ---- transposition ---------------------------------------------------------
 *
 * Block b of a batch (b = 64g + 8s + q) lives in bit 7-q of byte s of qword
 * g of every plane. In memory, zmm r = 8g + s holds blocks 8r..8r+7.
 */

/* One exchange of index bit j of z[0..7] with qword-index bit j: z[a]
 * qword q <-> z[a ^ 1 << j] qword q ^ 1 << j, where bit j of a is 0 and of
 * q is 1 (vpermt2q). */
TGT static inline __attribute__((always_inline)) void xchg8q(V z[8], int j)
{
	const V lo[3] = {
		_mm512_setr_epi64(0, 8, 2, 10, 4, 12, 6, 14),
		_mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13),
		_mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11),
	};
	const V hi[3] = {
		_mm512_setr_epi64(1, 9, 3, 11, 5, 13, 7, 15),
		_mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15),
		_mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15),
	};
	_Pragma("GCC unroll 8")
	for (int a = 0; a < 8; a++)
		if (!(a >> j & 1)) {
			V x = z[a], y = z[a | 1 << j];
			z[a] = _mm512_permutex2var_epi64(x, lo[j], y);
			z[a | 1 << j] = _mm512_permutex2var_epi64(x, hi[j], y);
		}
}

/* 8x8 transpose of qwords across z[0..7]: z[i] qword j <-> z[j] qword i. */
TGT static inline void tr8x8q(V z[8])
{
	xchg8q(z, 0);
	xchg8q(z, 1);
	xchg8q(z, 2);
}

/* One exchange of index bit j of z[0..7] with a byte-index bit, by the
 * vpermt2b index vectors ix[0] and ix[1] of the outputs whose bit j is 0
 * and 1 (bit 6 of an index picks z[a | 1 << j]). */
TGT static inline __attribute__((always_inline)) void xchg8b(V z[8], int j, const V ix[2])
{
	_Pragma("GCC unroll 8")
	for (int a = 0; a < 8; a++)
		if (!(a >> j & 1)) {
			V x = z[a], y = z[a | 1 << j];
			z[a] = _mm512_permutex2var_epi8(x, ix[0], y);
			z[a | 1 << j] = _mm512_permutex2var_epi8(x, ix[1], y);
		}
}

/* vpermb index: byte 8i+j <- byte 8j+i (8x8 byte transpose in a zmm). */
static const uint8_t bt_idx[64] = {
	0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57,
	2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59,
	4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61,
	6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63,
};
/* The same with the bytes of each qword reversed (byte 8i+7-j <- 8j+i),
 * which lets the bit transpose on the way out be the inverse of the one
 * on the way in. */
static const uint8_t bt_rev_idx[64] = {
	56, 48, 40, 32, 24, 16, 8, 0, 57, 49, 41, 33, 25, 17, 9, 1,
	58, 50, 42, 34, 26, 18, 10, 2, 59, 51, 43, 35, 27, 19, 11, 3,
	60, 52, 44, 36, 28, 20, 12, 4, 61, 53, 45, 37, 29, 21, 13, 5,
	62, 54, 46, 38, 30, 22, 14, 6, 63, 55, 47, 39, 31, 23, 15, 7,
};

/* vgf2p8affineqb with the data as matrix: result byte p bit i = data byte
 * 7-i bit p (in), or data byte i bit 7-p after the byte reversal (out). */
#define GF_IN 0x8040201008040201ull
#define GF_OUT 0x0102040810204080ull

/* Index vectors for vpermt2b exchanges (bit 6 of an index picks the second
 * table). B(b, k) is bit k of byte position b. */
#define B_(b, k) (((b) >> (k)) & 1)
#define X8_(F, x, b) F(x, b), F(x, b + 1), F(x, b + 2), F(x, b + 3), F(x, b + 4), F(x, b + 5), F(x, b + 6), F(x, b + 7)
#define X64_(F, x) X8_(F, x, 0), X8_(F, x, 8), X8_(F, x, 16), X8_(F, x, 24), X8_(F, x, 32), X8_(F, x, 40), \
		   X8_(F, x, 48), X8_(F, x, 56)
/* In, first exchange: block s0 <-> byte c0, and the block-in-register q
 * from the qword index down to the byte index: [q | c] -> [c2 c1 s0 | q]. */
#define IX_IN1(x, b) (B_(b, 3) << 6 | ((b) & 7) << 3 | B_(b, 5) << 2 | B_(b, 4) << 1 | (x))
/* In, last three exchanges: the top byte-index bit from the other
 * register, the rest shifted up one, the new register bit at the bottom. */
#define IX_INS(x, b) (B_(b, 5) << 6 | ((b) & 31) << 1 | (x))
/* Out: the inverses. */
#define IX_OUTS(x, b) (B_(b, 0) << 6 | (x) << 5 | (b) >> 1)
#define IX_OUT1(x, b) (B_(b, 0) << 6 | B_(b, 2) << 5 | B_(b, 1) << 4 | (x) << 3 | (b) >> 3)
static const uint8_t ix_in1[2][64] = { { X64_(IX_IN1, 0) }, { X64_(IX_IN1, 1) } };
static const uint8_t ix_ins[2][64] = { { X64_(IX_INS, 0) }, { X64_(IX_INS, 1) } };
static const uint8_t ix_outs[2][64] = { { X64_(IX_OUTS, 0) }, { X64_(IX_OUTS, 1) } };
static const uint8_t ix_out1[2][64] = { { X64_(IX_OUT1, 0) }, { X64_(IX_OUT1, 1) } };

/* Qword mask of blocks b0..b0+7 that lie inside the first n. */
static inline __mmask8 batch_mask(size_t b0, size_t n)
{
	return b0 + 8 <= n ? 0xFF : b0 < n ? (__mmask8)((1u << (n - b0)) - 1) : 0;
}

/* Blocks b0..b0+7 of a batch of n: from in, or with prev (CBC's previous
 * ciphertexts, CFB decryption's keystream inputs) each from the block
 * before it, *prev (every qword the same) before the first. */
TGT static inline __attribute__((always_inline)) V in512_load(const uint8_t *in, size_t b0, size_t n, const V *prev)
{
	__mmask8 m = batch_mask(b0, n);
	if (!prev)
		return _mm512_maskz_loadu_epi64(m, in + 8 * b0);
	if (b0)
		return _mm512_maskz_loadu_epi64(m, in + 8 * b0 - 8);
	return _mm512_alignr_epi64(_mm512_maskz_loadu_epi64(m, in), *prev, 7);
}

/* n (1..512) blocks from in -> planes st (after IP), as in512_load reads
 * them; with chain, each plane XORed with chain[its slot ^ cswap] on the
 * way (multi-stream CBC). t2b (a constant) picks the vpermt2b exchanges:
 *  - 0: vpermb (8x8 bytes), bit transpose, 8x8 qwords across registers,
 *    vpermb, 8x8 qwords: 9 shuffles per register;
 *  - 1: one vpermt2b exchange that also moves the block index to the low
 *    byte bits, bit transpose, two qword exchanges, three vpermt2b
 *    exchanges (ix_in1, ix_ins): 7. */
#define IN512_BODY(st, in, n, prev, chain, cswap, t2b) do { \
	V tmp[64]; \
	const V bt = _mm512_loadu_si512(bt_idx), gf = _mm512_set1_epi64((long long)GF_IN); \
	const V i1[2] = { _mm512_loadu_si512(ix_in1[0]), _mm512_loadu_si512(ix_in1[1]) }; \
	const V is[2] = { _mm512_loadu_si512(ix_ins[0]), _mm512_loadu_si512(ix_ins[1]) }; \
	_Pragma("GCC unroll 8") \
	for (int g = 0; g < 8; g++) { \
		V z[8]; \
		_Pragma("GCC unroll 8") \
		for (int s = 0; s < 8; s++) \
			z[s] = in512_load(in, 64 * (size_t)g + 8 * (size_t)s, n, prev); \
		if (t2b) \
			xchg8b(z, 0, i1); \
		_Pragma("GCC unroll 8") \
		for (int s = 0; s < 8; s++) \
			z[s] = _mm512_gf2p8affine_epi64_epi8(gf, t2b ? z[s] : _mm512_permutexvar_epi8(bt, z[s]), 0); \
		xchg8q(z, 2); \
		xchg8q(z, 1); \
		if (!t2b) { \
			xchg8q(z, 0); \
			_Pragma("GCC unroll 8") \
			for (int c = 0; c < 8; c++) \
				z[c] = _mm512_permutexvar_epi8(bt, z[c]); \
		} \
		_Pragma("GCC unroll 8") \
		for (int c = 0; c < 8; c++) \
			tmp[8 * g + c] = z[c]; \
	} \
	_Pragma("GCC unroll 8") \
	for (int c = 0; c < 8; c++) { \
		V z[8]; \
		_Pragma("GCC unroll 8") \
		for (int g = 0; g < 8; g++) \
			z[g] = tmp[8 * g + c]; \
		if (t2b) { \
			xchg8b(z, 0, is); \
			xchg8b(z, 1, is); \
			xchg8b(z, 2, is); \
		} else { \
			tr8x8q(z); \
		} \
		_Pragma("GCC unroll 8") \
		for (int p = 0; p < 8; p++) { \
			int k_ = des_bs_ip[8 * c + 7 - p]; \
			st[k_] = (chain) ? _mm512_xor_si512(z[p], (chain)[k_ ^ (cswap)]) : z[p]; \
		} \
	} \
} while (0)

TGT static void in512p(V *st, const uint8_t *in, size_t n, const V *prev)
{
	IN512_BODY(st, in, n, prev, (const V *)NULL, 0, 0);
}

TGT static void in512p_b(V *st, const uint8_t *in, size_t n, const V *prev)
{
	IN512_BODY(st, in, n, prev, (const V *)NULL, 0, 1);
}

TGT static inline void in512(V *st, const uint8_t *in, size_t n)
{
	in512p(st, in, n, NULL);
}

enum { OUT_PLAIN, OUT_XOR, OUT_CBC };

/* Planes st (before FP) -> n (1..512) blocks at out, the mirror image of
 * IN512_BODY. OUT_XOR XORs the blocks at src in (CTR); OUT_CBC XORs the
 * block before each one (iv for the first). Stores go last block first, so
 * out == src is safe. */
TGT static inline __attribute__((always_inline)) void out512_body(uint8_t *out, const V *st, size_t n, int how,
								   const uint8_t *src, V iv, int t2b)
{
	V tmp[64];
	const V bt = _mm512_loadu_si512(bt_idx), btr = _mm512_loadu_si512(bt_rev_idx);
	const V gf = _mm512_set1_epi64((long long)GF_OUT);
	const size_t back = how == OUT_CBC ? 8 : 0; /* CBC XORs the block before; how is not a constant here */
	const V os[2] = { _mm512_loadu_si512(ix_outs[0]), _mm512_loadu_si512(ix_outs[1]) };
	const V o1[2] = { _mm512_loadu_si512(ix_out1[0]), _mm512_loadu_si512(ix_out1[1]) };
	_Pragma("GCC unroll 8")
	for (int c = 0; c < 8; c++) {
		V z[8];
		_Pragma("GCC unroll 8")
		for (int p = 0; p < 8; p++) /* t2b: the bit order reversal is in this load */
			z[p] = st[des_bs_fp[8 * c + (t2b ? p : 7 - p)]];
		if (t2b) {
			xchg8b(z, 2, os);
			xchg8b(z, 1, os);
			xchg8b(z, 0, os);
		} else {
			tr8x8q(z);
		}
		_Pragma("GCC unroll 8")
		for (int g = 0; g < 8; g++)
			tmp[8 * g + c] = z[g];
	}
	_Pragma("GCC unroll 8")
	for (int g = 7; g >= 0; g--) {
		if (64 * (size_t)g >= n)
			continue;
		V z[8];
		_Pragma("GCC unroll 8")
		for (int c = 0; c < 8; c++)
			z[c] = t2b ? tmp[8 * g + c] : _mm512_permutexvar_epi8(btr, tmp[8 * g + c]);
		if (!t2b)
			xchg8q(z, 0);
		xchg8q(z, 1);
		xchg8q(z, 2);
		_Pragma("GCC unroll 8")
		for (int s = 0; s < 8; s++) {
			z[s] = _mm512_gf2p8affine_epi64_epi8(gf, z[s], 0);
			if (!t2b)
				z[s] = _mm512_permutexvar_epi8(bt, z[s]);
		}
		if (t2b)
			xchg8b(z, 0, o1);
		_Pragma("GCC unroll 8")
		for (int s = 7; s >= 0; s--) {
			size_t b0 = 64 * (size_t)g + 8 * (size_t)s;
			__mmask8 m = batch_mask(b0, n);
			if (!m)
				continue;
			V x = z[s];
			if (how != OUT_PLAIN) { /* CBC: the block before (iv before the first) */
				V y;
				if (b0 == 0 && how == OUT_CBC)
					y = _mm512_alignr_epi64(_mm512_maskz_loadu_epi64(m, src), iv, 7);
				else
					y = _mm512_maskz_loadu_epi64(m, src + 8 * b0 - back);
				x = _mm512_xor_si512(x, y);
			}
			_mm512_mask_storeu_epi64(out + 8 * b0, m, x);
		}
	}
}

/* One out-of-line copy per transposition, how chosen inside: ~1,000
 * instructions unrolled each, which inlined at every call took minutes to
 * compile under clang's sanitizers. */
TGT static __attribute__((noinline)) void out512_q(uint8_t *out, const V *st, size_t n, int how,
						    const uint8_t *src, V iv)
{
	out512_body(out, st, n, how, src, iv, 0);
}

TGT static __attribute__((noinline)) void out512_b(uint8_t *out, const V *st, size_t n, int how,
						    const uint8_t *src, V iv)
{
	out512_body(out, st, n, how, src, iv, 1);
}

/* t2b is a constant at every call. */
TGT static inline __attribute__((always_inline)) void out512(uint8_t *out, const V *st, size_t n, int how,
							      const uint8_t *src, V iv, int t2b)
{
	(t2b ? out512_b : out512_q)(out, st, n, how, src, iv);
}

/* ---- counter planes -----------------------------------------------------------
 *
 * Counter block i of a batch is ctr + i on the last 32 bits (the caller
 * guarantees no 32-bit wrap inside a call). The first 32 bits are the same
 * for all lanes; the last 32 are a bitsliced add of the lane's index
 * (planes of constants) to the starting value. */

/* lane_bit[j]: bit j of the block index of every lane (b = 64g + 8s + q at
 * qword g, byte s, bit 7-q). */
TGT static inline V lane_index_plane(int j)
{
	if (j < 3) { /* q: bit position 7-q in every byte */
		uint8_t m = 0;
		_Pragma("GCC unroll 8")
		for (int q = 0; q < 8; q++)
			if (q >> j & 1)
				m |= (uint8_t)(0x80 >> q);
		return _mm512_set1_epi8((char)m);
	}
	if (j < 6) { /* s: whole bytes of every qword */
		uint64_t m = 0;
		_Pragma("GCC unroll 8")
		for (int s = 0; s < 8; s++)
			if (s >> (j - 3) & 1)
				m |= 0xFFull << (8 * s);
		return _mm512_set1_epi64((long long)m);
	}
	/* g: whole qwords */
	const int sh = j - 6;
	return _mm512_setr_epi64(0 >> sh & 1 ? -1 : 0, 1 >> sh & 1 ? -1 : 0, 2 >> sh & 1 ? -1 : 0,
				 3 >> sh & 1 ? -1 : 0, 4 >> sh & 1 ? -1 : 0, 5 >> sh & 1 ? -1 : 0,
				 6 >> sh & 1 ? -1 : 0, 7 >> sh & 1 ? -1 : 0);
}

TGT static void ctr_planes512(V *st, uint32_t hi, uint32_t lo)
{
	const V ones = _mm512_set1_epi32(-1);
	_Pragma("GCC unroll 8")
	for (int d = 0; d < 32; d++) /* data bit d+1 = bit 31-d of hi */
		st[des_bs_ip[d]] = (hi >> (31 - d) & 1) ? ones : _mm512_setzero_si512();
	V carry = _mm512_setzero_si512();
	_Pragma("GCC unroll 8")
	for (int j = 0; j < 32; j++) { /* bit j of the sum = data plane 63-j */
		V c = (lo >> j & 1) ? ones : _mm512_setzero_si512();
		V x = j < 9 ? lane_index_plane(j) : _mm512_setzero_si512();
		st[des_bs_ip[63 - j]] = _mm512_ternarylogic_epi64(x, c, carry, 0x96);
		carry = _mm512_ternarylogic_epi64(x, c, carry, 0xE8); /* majority */
	}
}

/* ---- many streams, every lane its own key (fb_multi_crypt) -------------------------
 *
 * The engine of fb_multi_crypt's 512-lane sets (des_bs_lanes.c). */

/* Per-lane keys: each lane's key transposed like a data block (key bit d in
 * plane des_bs_ip[d]), then laid out as the halves C0 and D0 of the key
 * after PC1, each twice over: plane k (k < 56) is bit k mod 28 of C0, plane
 * 56 + k bit k mod 28 of D0 (copied from plane des_bs_lk_src[k]). Round r
 * has rotated both halves left by des_bs_lk_rot[r] in all, so its round-key
 * bit j is plane des_bs_lk_rot[r] + des_bs_lk_off[j]: one base pointer per
 * round and constant displacements. Tables: gen/des_sbox_circuits.py. */
#define DES_BS512_LK_PLANES 112
_Static_assert(DES_BS512_LANE_KEYS == 3 * DES_BS512_LK_PLANES * 64, "key plane room");


/* The multi-stream engine transposes with in512 (IN512_BODY, with the CBC
 * chain XOR folded in) and out512: lane 8j+m of a row is block 8j+m of a
 * batch, so lane group j (lanes 8j..8j+7) is byte j of every plane. */
TGT static void in512c(V *st, const uint8_t *in, size_t n, const V *chain, unsigned cswap)
{
	IN512_BODY(st, in, n, (const V *)NULL, chain, cswap, 0);
}

/* ---- gathers, scatters, prefetches (lane groups: des_bs_common.h) ------------- */

static inline __mmask8 blocks_mask(size_t r)
{
	return r >= 64 ? 0xFF : (__mmask8)((1u << (r / 8)) - 1);
}

/* Eight rows (block steps) of lane group j from the cache line at offset
 * off of each of its eight inputs: one 8x8 qword transpose. Missing blocks
 * read as zeros. */
TGT static void gather_group(uint8_t *rows, const des_bs_lanes *ln, size_t off, size_t j)
{
	V z[8];
	size_t o = fb_des_bs_group_off(ln, j, off);
	if (o != SIZE_MAX && o + 64 <= ln->full[j]) { /* every lane has the whole line */
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++)
			z[m] = _mm512_loadu_si512(ln->in[8 * j + (size_t)m] + o);
	} else {
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++) {
			size_t b = 8 * j + (size_t)m, r = fb_des_bs_lane_bytes(ln, b, o);
			z[m] = _mm512_maskz_loadu_epi64(blocks_mask(r), ln->in[b] + (r ? o : 0));
		}
	}
	tr8x8q(z);
	_Pragma("GCC unroll 8")
	for (int t = 0; t < 8; t++)
		_mm512_storeu_si512(rows + DES_BS_ROW * (size_t)t + 64 * j, z[t]);
}

/* The mirror image: eight row pieces back to the lines at offset off of
 * lane group j's outputs, whole blocks only. */
TGT static void scatter_group(const des_bs_lanes *ln, size_t off, const uint8_t *rows, size_t j)
{
	V z[8];
	_Pragma("GCC unroll 8")
	for (int t = 0; t < 8; t++)
		z[t] = _mm512_loadu_si512(rows + DES_BS_ROW * (size_t)t + 64 * j);
	tr8x8q(z);
	size_t o = fb_des_bs_group_off(ln, j, off);
	if (o != SIZE_MAX && o + 64 <= ln->full[j]) {
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++)
			_mm512_storeu_si512(ln->out[8 * j + (size_t)m] + o, z[m]);
	} else {
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++) {
			size_t b = 8 * j + (size_t)m, r = fb_des_bs_lane_bytes(ln, b, o);
			_mm512_mask_storeu_epi64(ln->out[b] + (r ? o : 0), blocks_mask(r), z[m]);
		}
	}
}

TGT static void bg_some(des_bs_bg_queue *q)
{
	DES_BS_BG_SOME(q, scatter_group);
}

/* ---- rounds ----------------------------------------------------------------------- */

#define KXL(p, j) _mm512_xor_si512((p), rk[des_bs_lk_off[j]])

TGT static inline void round512l(V *restrict a, const V *restrict b, const V *rk)
{
	DES_BS_LUT_ROUND(a, b, KXL);
}

/* A lane round on lanes 0-255 only (half) or on all 512. */
TGT static inline void round_of_l(V *restrict a, const V *restrict b, const V *rk, int half)
{
	if (half)
		round256l(a, b, rk);
	else
		round512l(a, b, rk);
}

/* 16 rounds; half: lanes 0-255 only. */
TGT static void pass512l(V *st, const V *kp, int dec, int swap, int half, des_bs_bg_queue *q)
{
	V *a = swap ? st + 32 : st, *b = swap ? st : st + 32;
	for (int i = 0; i < 8; i++) {
		round_of_l(a, b, kp + des_bs_lk_rot[dec ? 15 - 2 * i : 2 * i], half);
		round_of_l(b, a, kp + des_bs_lk_rot[dec ? 14 - 2 * i : 2 * i + 1], half);
		bg_some(q);
	}
}

TGT static void crypt512l(V *st, const V *kp, unsigned nkeys, int dec, int half, des_bs_bg_queue *q)
{
	const V *k1 = kp, *k2 = kp + DES_BS512_LK_PLANES, *k3 = kp + 2 * DES_BS512_LK_PLANES;
	if (nkeys == 1) {
		pass512l(st, k1, dec, 0, half, q);
	} else if (!dec) {
		pass512l(st, k1, 0, 0, half, q);
		pass512l(st, k2, 1, 1, half, q);
		pass512l(st, k3, 0, 0, half, q);
	} else {
		pass512l(st, k3, 1, 0, half, q);
		pass512l(st, k2, 0, 1, half, q);
		pass512l(st, k1, 1, 0, half, q);
	}
}

/* ---- entry points (des_bs_common.h) -------------------------------------------------- */

TGT static void lane_keys512(void *kpv, const uint8_t *kbuf, size_t nl, unsigned nkeys)
{
	_Alignas(64) uint8_t tmp[8 * 512];
	_Alignas(64) V t[64];
	V *kp = kpv;
	memset(tmp, 0, sizeof tmp);
	for (unsigned p = 0; p < nkeys; p++) {
		for (size_t l = 0; l < nl; l++)
			memcpy(tmp + 8 * l, kbuf + 24 * l + 8 * p, 8);
		in512(t, tmp, nl);
		for (int k = 0; k < DES_BS512_LK_PLANES; k++)
			kp[DES_BS512_LK_PLANES * p + k] = t[des_bs_lk_src[k]];
	}
	fb_wipe(tmp, sizeof tmp);
	fb_wipe(t, sizeof t);
}

TGT static void load512(void *planes, const uint8_t *blocks, size_t nl)
{
	in512(planes, blocks, nl);
}

TGT static void load_groups512(void *planes, const uint8_t *blocks, size_t nl, const uint8_t sel[64])
{
	_Alignas(64) V t[64];
	V *s = planes;
	const V msk = _mm512_loadu_si512(sel); /* lane group j is byte j of a plane */
	in512(t, blocks, nl);
	for (int p = 0; p < 64; p++)
		s[p] = _mm512_ternarylogic_epi64(msk, t[p], s[p], 0xCA); /* msk ? t : s */
	fb_wipe(t, sizeof t);
}

/* multi_steps512's scratch (the caller's, wiped by it at the end). */
typedef struct ms_work {
	V st[2][64];
} ms_work;
_Static_assert(sizeof(ms_work) <= DES_BS_WORK_SIZE, "DES_BS_WORK_SIZE");

TGT static void multi_steps512(const void *kpv, unsigned nkeys, int mode, int enc, void *sv,
				  const uint8_t *prev, const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl,
				  const des_bs_bg *bg, void *work)
{
	ms_work *mw = work;
	V(*st)[64] = mw->st;
	const V *kp = kpv;
	V *s = sv;
	des_bs_bg_queue q = { bg, 0, 0, bg ? bg->ln->ng : 0, 0 };
	int half = nl <= 256; /* lanes 0-255 only: round256l */
	size_t slots = nsteps * nkeys * 8;
	q.per = slots ? (q.ng + slots - 1) / slots : 0;
	if (mode == FB_CBC && enc) { /* C = E(P ^ C'): the chain XOR folded into the transposition */
		const V *chain = s;
		unsigned cswap = 0;
		for (size_t t = 0; t < nsteps; t++, in += DES_BS_ROW, out += DES_BS_ROW) {
			V *cur = st[t & 1];
			in512c(cur, in, nl, chain, cswap);
			crypt512l(cur, kp, nkeys, 0, half, &q);
			out512(out, cur, nl, OUT_PLAIN, NULL, _mm512_setzero_si512(), 0);
			chain = cur;
			cswap = 32;
		}
		if (nsteps)
			fb_des_bs_chain_from(s, chain, sizeof(V));
	} else if (mode == FB_CBC) { /* P = D(C) ^ C' */
		for (size_t t = 0; t < nsteps; t++, in += DES_BS_ROW, out += DES_BS_ROW) {
			in512(st[0], in, nl);
			crypt512l(st[0], kp, nkeys, 1, half, &q);
			out512(out, st[0], nl, OUT_XOR, t ? in - DES_BS_ROW : prev, _mm512_setzero_si512(), 0);
		}
	} else {
		for (size_t t = 0; t < nsteps; t++, in += DES_BS_ROW, out += DES_BS_ROW) {
			const uint8_t *pr = t ? in - DES_BS_ROW : prev; /* the row before this one */
			if (mode == FB_CFB && enc) { /* C = P ^ E(C') */
				crypt512l(s, kp, nkeys, 0, half, &q);
				out512(out, s, nl, OUT_XOR, in, _mm512_setzero_si512(), 0);
				in512(s, out, nl);
			} else if (mode == FB_CFB) { /* P = C ^ E(C') */
				in512(st[0], pr, nl);
				crypt512l(st[0], kp, nkeys, 0, half, &q);
				out512(out, st[0], nl, OUT_XOR, in, _mm512_setzero_si512(), 0);
			} else { /* OFB: O = E(O'), C = P ^ O */
				for (int j = 0; j < 64; j++)
					st[0][j] = s[j];
				crypt512l(st[0], kp, nkeys, 0, half, &q);
				out512(out, st[0], nl, OUT_XOR, in, _mm512_setzero_si512(), 0);
				fb_des_bs_chain_from(s, st[0], sizeof(V));
			}
		}
	}
	q.per = q.ng; /* what the rounds did not take */
	bg_some(&q);
}

const des_bs_lane_ops fb_des_bs512_ops = {
	.lane_keys = lane_keys512,
	.load = load512,
	.load_groups = load_groups512,
	.gather_group = gather_group,
	.scatter_group = scatter_group,
	.multi_steps = multi_steps512,
};

/* ---- kernel entry points --------------------------------------------------------- */

/* t2b (a constant after inlining) picks the vpermt2b transposition. */
#define IN512P(t2b) ((t2b) ? in512p_b : in512p)

TGT static inline __attribute__((always_inline)) void bs512_ecb(const des_bs_ks *ks, uint8_t *out,
								 const uint8_t *in, size_t n, int dec, int t2b)
{
	_Alignas(64) V st[2][64];
	while (n) {
		size_t m[2];
		int nb = fb_des_bs_batches(n, 512, m);
		for (int i = 0; i < nb; i++)
			IN512P(t2b)(st[i], in + 4096 * i, m[i], NULL);
		crypt512(st[0], m[0], nb == 2 ? st[1] : NULL, m[1], ks, dec);
		for (int i = 0; i < nb; i++)
			out512(out + 4096 * i, st[i], m[i], OUT_PLAIN, NULL, _mm512_setzero_si512(), t2b);
		in += 8 * (m[0] + m[1]);
		out += 8 * (m[0] + m[1]);
		n -= m[0] + m[1];
	}
}

TGT static inline __attribute__((always_inline)) void bs512_ctr(const des_bs_ks *ks, uint8_t *out,
								 const uint8_t *in, size_t n, uint8_t *ctr, int t2b)
{
	_Alignas(64) V st[64];
	uint32_t hi = fb_load32_be(ctr), lo = fb_load32_be(ctr + 4);
	while (n) {
		size_t m = n < 512 ? n : 512;
		ctr_planes512(st, hi, lo);
		crypt512(st, m, NULL, 0, ks, 0);
		out512(out, st, m, OUT_XOR, in, _mm512_setzero_si512(), t2b);
		lo += (uint32_t)m;
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	fb_store32_be(ctr + 4, lo);
}

/* CBC decryption (cfb 0) or CFB decryption (cfb 1) of n blocks: both XOR
 * each output with the ciphertext block before it (iv before the first),
 * CBC after decrypting the block, CFB after encrypting that previous block,
 * which the input transposition reads straight from in (one block behind)
 * instead of a copy. The output goes last block first (in-place safe). */
TGT static inline __attribute__((always_inline)) void bs512_chain_dec(const des_bs_ks *ks, uint8_t *out,
								       const uint8_t *in, size_t n, uint8_t *iv,
								       int cfb, int t2b)
{
	_Alignas(64) V st[2][64];
	uint64_t chain;
	memcpy(&chain, iv, 8);
	while (n) {
		size_t m[2];
		int nb = fb_des_bs_batches(n, 512, m);
		uint64_t mid, next; /* the blocks before the second batch and after the step */
		memcpy(&mid, in + 8 * (m[0] - 1), 8); /* before an in-place overwrite */
		memcpy(&next, in + 8 * (m[0] + m[1] - 1), 8);
		const V prev[2] = { _mm512_set1_epi64((long long)chain), _mm512_set1_epi64((long long)mid) };
		for (int i = 0; i < nb; i++)
			IN512P(t2b)(st[i], in + 4096 * i, m[i], cfb ? &prev[i] : NULL);
		crypt512(st[0], m[0], nb == 2 ? st[1] : NULL, m[1], ks, !cfb);
		for (int i = 0; i < nb; i++)
			out512(out + 4096 * i, st[i], m[i], cfb ? OUT_XOR : OUT_CBC, in + 4096 * i, prev[i], t2b);
		chain = next;
		in += 8 * (m[0] + m[1]);
		out += 8 * (m[0] + m[1]);
		n -= m[0] + m[1];
	}
	memcpy(iv, &chain, 8);
}

/* The kernel steps of one variant (suffix sfx). */
#define BS512_STEPS(sfx, t2b) \
	TGT static void bs512_encrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		bs512_ecb(ks, out, in, n, 0, t2b); \
	} \
	TGT static void bs512_decrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		bs512_ecb(ks, out, in, n, 1, t2b); \
	} \
	TGT static void bs512_ctr32##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr) \
	{ \
		bs512_ctr(ks, out, in, n, ctr, t2b); \
	} \
	TGT static void bs512_cbc_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		bs512_chain_dec(ks, out, in, n, iv, 0, t2b); \
	} \
	TGT static void bs512_cfb_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		bs512_chain_dec(ks, out, in, n, iv, 1, t2b); \
	}

BS512_STEPS(, 0)
BS512_STEPS(_t2b, 1)

/* ---- key setup: the bitsliced round-key words, by bit gathers
 * (des_gfni_avx512.c) */
static int bs512_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	des_bs_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	for (unsigned p = 0; p < ks->nkeys; p++) /* K1 K2 K3, or K1 K2 K1 */
		fb_des_bs_words_gfni(ks->rk[p], key + (8 * p) % keylen);
	return FB_OK;
}


/* Two kernels, one per transposition. A vpermt2b is one shuffle on AMD
 * Zen 4 but three micro-ops on Intel (two on the shuffle port), where
 * vpermb and vpermt2q are one each: des/bs-avx512-t2b transposes with 7
 * shuffles per 8 blocks each way against 9 (Zen 4, 8 KB: DES ECB 1.04x,
 * CBC/CFB decryption 1.03-1.07x), and the selection passes over
 * des/bs-avx512 on AMD (avoid_on) and never reaches des/bs-avx512-t2b
 * elsewhere. Both share the schedule and the multi-stream engine. */
#define BS512_KERNEL(sfx) \
	.family = "des", .block_size = 8, \
	.cpu_needs = FB_CPU_AVX512 | FB_CPU_AVX512VBMI | FB_CPU_GFNI | FB_CPU_AVX512BITALG, \
	.constant_time = 1, .batch = 512, .ks_size = DES_BS_KS_MAX, .ks_bytes = fb_des_bs_ks_bytes, \
	.setkey = bs512_setkey, .fills_schedule = 1, \
	.encrypt = bs512_encrypt##sfx, .decrypt = bs512_decrypt##sfx, .ctr32 = bs512_ctr32##sfx, \
	.cbc_dec = bs512_cbc_dec##sfx, .cfb_dec = bs512_cfb_dec##sfx, .lanes = &fb_des_bs512_lanes

const fb_kernel fb_des_bs_avx512 = {
	.name = "des/bs-avx512",
	.note = "bitsliced, 512 blocks per batch, vpternlog S-box circuits, GFNI/vpermb/vpermt2q transposition",
	.avoid_on = FB_CPU_AMD_ZEN,
	BS512_KERNEL(),
};

const fb_kernel fb_des_bs_avx512_t2b = {
	.name = "des/bs-avx512-t2b",
	.note = "des/bs-avx512 transposing by vpermt2b exchanges (7 shuffles per 8 blocks, not 9; for AMD Zen)",
	BS512_KERNEL(_t2b),
};

#endif /* FB_X86 */
