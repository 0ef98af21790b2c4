/*
 * serpent/bs-avx2: Serpent bitsliced across 256 blocks on AVX2. Plane
 * p[32w + j] holds bit j of word w of every block of the batch, so the
 * linear transformation's rotations and shifts are only a choice of
 * planes: a round is 32 S-box circuits (the two-input circuits of
 * serpent/avx2, ~15.5 gates), the 246 XORs of the linear transformation
 * and the round key, ~33 vector operations a slice of 256 blocks, against
 * ~49 a round for 8 blocks in serpent/avx2, where a rotation costs three
 * operations and Zen 1/2 shift on one pipe of four. The planes live in
 * memory (4 KB a buffer); a slice loads ~13 planes and stores 6, so a
 * round is bound by the vector pipes and the loads together (~11 core
 * cycles a slice on Zen 4 under the AVX2 mask, ~8.4 by the four pipes).
 * Carrying planes between slices in registers to save loads spilled or
 * measured no faster. The price is the transposition in and out (~15% of
 * a batch) and a batch of 256 blocks: shorter runs and tails go to
 * serpent/avx2, with which it shares its key schedule (ke, kd).
 *
 * Two kernels differ in where a slice's round-key masks come from (KX_R,
 * KX_M below): serpent/bs-avx2 derives them from the round key in a
 * register, serpent/bs-avx2-km loads them from masks expanded once a call
 * (Intel; AMD Zen measured the register form faster). Nothing key-derived
 * outlives a call: the work area (the rounds' states, the masks) is wiped.
 * No table lookups, no secret-dependent branches or addresses:
 * constant-time.
 */
#include "serpent.h"
#include "../block128_simd.h"

#if FB_X86
#include <immintrin.h>

#define T256 FB_TARGET("avx2")
#define INL static inline __attribute__((always_inline)) T256

typedef __m256i V;

#define AND(a, b) _mm256_and_si256((a), (b))
#define OR(a, b) _mm256_or_si256((a), (b))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ANDN(a, b) _mm256_andnot_si256((a), (b))

#define BATCH 256
#define BATCH_BYTES (16 * BATCH)

typedef struct work {
	V p[128], q[128]; /* the state and the next round's, as planes */
	V t[64];          /* the linear transformation's middle planes */
} work;

/*
 * A 32x32 bit transposition in each dword lane of r[0..31]: afterwards bit
 * g of r[j] is bit j of the old r[g]. Swaps of blocks of 16, 8, 4, 2 and 1
 * bits between rows; the first by blends (four operations a pair, not six).
 */
INL void swap16(V *a, V *b)
{
	V x = *a, y = *b;
	*a = _mm256_blend_epi16(x, _mm256_slli_epi32(y, 16), 0xAA);
	*b = _mm256_blend_epi16(_mm256_srli_epi32(x, 16), y, 0xAA);
}

#define SWAPMOVE(a, b, s, m) do { \
	V t_ = AND(XOR(_mm256_srli_epi32((a), (s)), (b)), (m)); \
	(b) = XOR((b), t_); \
	(a) = XOR((a), _mm256_slli_epi32(t_, (s))); \
} while (0)

static T256 void transpose32(V *r)
{
	for (int i = 0; i < 16; i++)
		swap16(&r[i], &r[i + 16]);
	const V m8 = _mm256_set1_epi32(0x00FF00FF), m4 = _mm256_set1_epi32(0x0F0F0F0F);
	const V m2 = _mm256_set1_epi32(0x33333333), m1 = _mm256_set1_epi32(0x55555555);
	for (int h = 0; h < 32; h += 16) {
		V *x = r + h;
		for (int i = 0; i < 8; i++)
			SWAPMOVE(x[i], x[i + 8], 8, m8);
		for (int i = 0; i < 16; i++)
			if (!(i & 4))
				SWAPMOVE(x[i], x[i + 4], 4, m4);
		for (int i = 0; i < 16; i++)
			if (!(i & 2))
				SWAPMOVE(x[i], x[i + 2], 2, m2);
		for (int i = 0; i < 16; i += 2)
			SWAPMOVE(x[i], x[i + 1], 1, m1);
	}
}

/*
 * Blocks to planes: group g (blocks 8g..8g+7, two to a register) goes by a
 * 4x4 transposition of dwords in each 128-bit lane to word w of its 8
 * blocks in p[32w + g] (dword 4L + e is block 8g + 2e + L), then each
 * word's 32 rows are bit-transposed: bit g of dword d of p[32w + j] is bit
 * j of word w of block 8g + block_of(d). The way back is the same steps
 * in reverse, each its own inverse.
 */
INL void group_in(V *p, int g, V a, V b, V c, V d)
{
	FB_TRANSPOSE4_IN_LANES(V, _mm256, a, b, c, d);
	p[g] = a; p[32 + g] = b; p[64 + g] = c; p[96 + g] = d;
}

static T256 void planes_in(V *p, const uint8_t *in)
{
	for (int g = 0; g < 32; g++) {
		const V *s = (const V *)(in + 128 * g);
		group_in(p, g, _mm256_loadu_si256(s), _mm256_loadu_si256(s + 1), _mm256_loadu_si256(s + 2),
			 _mm256_loadu_si256(s + 3));
	}
	for (int w = 0; w < 4; w++)
		transpose32(p + 32 * w);
}

/* Register i of group g shifted back one block: [c[8g+2i-1], c[8g+2i]],
 * an unaligned load but for the first, whose block before is prev. */
INL V shifted_pair(const uint8_t *in, int g, int i, __m128i prev)
{
	const uint8_t *q = in + 128 * g + 32 * i;
	if (g == 0 && i == 0)
		return _mm256_inserti128_si256(_mm256_castsi128_si256(prev), _mm_loadu_si128((const __m128i *)q), 1);
	return _mm256_loadu_si256((const V *)(q - 16));
}

/* CFB decryption's cipher inputs: block i's is in's block i - 1, block 0's
 * prev. */
static T256 void planes_in_prev(V *p, const uint8_t *in, __m128i prev)
{
	for (int g = 0; g < 32; g++)
		group_in(p, g, shifted_pair(in, g, 0, prev), shifted_pair(in, g, 1, prev),
			 shifted_pair(in, g, 2, prev), shifted_pair(in, g, 3, prev));
	for (int w = 0; w < 4; w++)
		transpose32(p + 32 * w);
}

/* CTR input: words 0-2 are the same in every block (a plane is all ones
 * or zero), word 3 is the big-endian counter c + block. */
static T256 void planes_ctr(V *p, const uint8_t *ctr, uint32_t c)
{
	const V order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
	const V bswap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
					 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	for (int w = 0; w < 3; w++) {
		uint32_t x = fb_load32_le(ctr + 4 * w);
		for (int j = 0; j < 32; j++)
			p[32 * w + j] = _mm256_set1_epi32(-(int)((x >> j) & 1));
	}
	for (int g = 0; g < 32; g++)
		p[96 + g] = _mm256_shuffle_epi8(_mm256_add_epi32(_mm256_set1_epi32((int)(c + 8 * (uint32_t)g)), order),
						bswap);
	transpose32(p + 96);
}

/* Planes back to group g's four registers (the rows already transposed). */
INL void group_out(const V *p, int g, V *x)
{
	x[0] = p[g]; x[1] = p[32 + g]; x[2] = p[64 + g]; x[3] = p[96 + g];
	FB_TRANSPOSE4_IN_LANES(V, _mm256, x[0], x[1], x[2], x[3]);
}

/* out = the planes' blocks, or with xin (else NULL) those XORed with
 * xin's; p is clobbered. xin == out works: each group reads its own
 * 128 bytes before writing them. */
static T256 void planes_out(uint8_t *out, const uint8_t *xin, V *p)
{
	for (int w = 0; w < 4; w++)
		transpose32(p + 32 * w);
	for (int g = 0; g < 32; g++) {
		V x[4];
		group_out(p, g, x);
		for (int i = 0; i < 4; i++) {
			if (xin)
				x[i] = XOR(x[i], _mm256_loadu_si256((const V *)(xin + 128 * g) + i));
			_mm256_storeu_si256((V *)(out + 128 * g) + i, x[i]);
		}
	}
}

/* CBC decryption's output: block i XORed with in's block i - 1 (block 0
 * with prev). The last group first: each needs the block before it, which
 * the group before overwrites when out == in. */
static T256 void planes_out_cbc(uint8_t *out, const uint8_t *in, V *p, __m128i prev)
{
	for (int w = 0; w < 4; w++)
		transpose32(p + 32 * w);
	for (int g = 31; g >= 0; g--) {
		V x[4], c[4];
		for (int i = 0; i < 4; i++) /* all before the group's stores */
			c[i] = shifted_pair(in, g, i, prev);
		group_out(p, g, x);
		for (int i = 0; i < 4; i++)
			_mm256_storeu_si256((V *)(out + 128 * g) + i, XOR(x[i], c[i]));
	}
}

/*
 * The rounds. With the S-box outputs y0..y3 of round r - 1 (y[32w + i]),
 * the linear transformation's outputs bit by bit (indices mod 32):
 *   b1[i] = y1[i] ^ y0[i-13] ^ y2[i-3]
 *   b3[i] = y3[i] ^ y2[i-3] ^ (i >= 3 ? y0[i-16] : 0)
 *   x0[j] = y0[j-18] ^ b1[j-6] ^ b3[j-12]      x1[j] = b1[j-1]
 *   x2[j] = y2[j-25] ^ b3[j-29] ^ (j-22 >= 7 ? b1[j-30] : 0)
 *   x3[j] = b3[j-7]
 * b1 and b3 (the rotated x1 and x3 of FB_SERPENT_LT) are stored; each slice
 * j then takes its round key and S-box and stores its outputs. Decryption
 * likewise with the inverse (z the key-XORed outputs of the round before):
 *   f2[i] = z2[i-10] ^ z3[i] ^ (i >= 7 ? z1[i-7] : 0)
 *   f0[i] = z0[i+5] ^ z1[i] ^ z3[i]
 *   x0[j] = f0[j+13]   x2[j] = f2[j+3]   x1[j] = z1[j+1] ^ f0[j] ^ f2[j]
 *   x3[j] = z3[j+7] ^ f2[j] ^ (j >= 3 ? f0[j-3] : 0)
 * Keys are ke and kd (serpent.h): they undo the circuits' complements.
 */
#define SB(S, x0, x1, x2, x3) FB_SERPENT_##S##_L2(V, AND, OR, XOR, ANDN, x0, x1, x2, x3)
/*
 * A slice's round-key masks, two forms; the slices run from 31 down.
 * R (serpent/bs-avx2): kr holds the round key's four words in each 128-bit
 * lane, shifted left by 31 - j at slice j, so its sign bits are slice j's
 * key bits: a shift, an add and four in-lane broadcasts. On AMD Zen 4 the
 * loads and stores, not the logic, bound a round, and this beat M there.
 * M (serpent/bs-avx2-km): kr points at slice j's four masks (dwords of 0
 * or ~0, expand_masks), broadcast by loads. Intel's cores run 256-bit
 * logic on three ports, so the six operations a slice saved pay there.
 */
#define KT_R V
#define KEY_R(k) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(k)))
#define KX_R(kr, x0, x1, x2, x3) do { \
	V m_ = _mm256_srai_epi32(kr, 31); \
	x0 = XOR(x0, _mm256_shuffle_epi32(m_, 0x00)); x1 = XOR(x1, _mm256_shuffle_epi32(m_, 0x55)); \
	x2 = XOR(x2, _mm256_shuffle_epi32(m_, 0xAA)); x3 = XOR(x3, _mm256_shuffle_epi32(m_, 0xFF)); \
	kr = _mm256_add_epi32(kr, kr); \
} while (0)
typedef const uint32_t *mask_ptr;
#define KT_M mask_ptr
#define KEY_M(k) ((k) + 4 * 31)
#define KX_M(kr, x0, x1, x2, x3) do { \
	x0 = XOR(x0, _mm256_set1_epi32((int)(kr)[0])); x1 = XOR(x1, _mm256_set1_epi32((int)(kr)[1])); \
	x2 = XOR(x2, _mm256_set1_epi32((int)(kr)[2])); x3 = XOR(x3, _mm256_set1_epi32((int)(kr)[3])); \
	kr -= 4; \
} while (0)
/* uint32_t words a round key takes in each form */
#define KSTEP_R 4
#define RESTRICT_R /* see ENC_ROUND */
#define RESTRICT_M restrict
#define KSTEP_M 128
#define STORE4(o, j, x0, x1, x2, x3) do { \
	(o)[j] = x0; (o)[32 + (j)] = x1; (o)[64 + (j)] = x2; (o)[96 + (j)] = x3; \
} while (0)

typedef void round_fn(const V *y, V *o, V *t, const uint32_t *k);

/*
 * Each loop below runs over a segment of slices in which no index wraps
 * around 32, so every plane sits at a constant offset from the slice and
 * the loop needs one induction variable: WL(lo, c) is the wrap of index
 * j - c, WH(lo, c) that of j + c, for the segment starting at lo. (With
 * the indices masked each slice took ~30 integer operations beside its ~30
 * vector ones: 0.8x serpent/avx2's speed on Zen 4 under the AVX2 mask;
 * with one pointer a term the compiler stepped each, 0.75x.) The loops stay
 * rolled: the eight rounds' code must stay in the op cache (the slices
 * unrolled by 2 or 4 ran 0.85-0.88x, fully unrolled 0.9x).
 */
#define NO_UNROLL _Pragma("GCC unroll 1")
#define WL(lo, c) ((lo) < (c) ? 32 : 0)
#define WH(lo, c) ((lo) + (c) >= 32 ? -32 : 0)

#define LT_SEG(lo, hi, B3Y0) \
	NO_UNROLL \
	for (int i = lo; i < hi; i++) { \
		V a2 = y[64 + i - 3 + WL(lo, 3)]; \
		t[i] = XOR(y[32 + i], XOR(y[i - 13 + WL(lo, 13)], a2)); \
		V u = XOR(y[96 + i], a2); \
		t[32 + i] = B3Y0 ? XOR(u, y[i - 16 + WL(lo, 16)]) : u; \
	}

static __attribute__((noinline)) T256 void lt_middle(const V *y, V *t)
{
	LT_SEG(0, 3, 0) LT_SEG(3, 13, 1) LT_SEG(13, 16, 1) LT_SEG(16, 32, 1)
}

#define ENC_SEG(S, F, lo, hi, X2B1) \
	NO_UNROLL \
	for (int j = hi - 1; j >= lo; j--) { \
		V x0 = XOR(y[j - 18 + WL(lo, 18)], XOR(b1[j - 6 + WL(lo, 6)], b3[j - 12 + WL(lo, 12)])); \
		V x1 = b1[j - 1 + WL(lo, 1)], x3 = b3[j - 7 + WL(lo, 7)]; \
		V x2 = XOR(y[64 + j - 25 + WL(lo, 25)], b3[j - 29 + WL(lo, 29)]); \
		if (X2B1) \
			x2 = XOR(x2, b1[j - 30 + WL(lo, 30)]); \
		KX_##F(kr, x0, x1, x2, x3); \
		SB(S, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	}

/* o is restrict in the M form only: the masks' loads may then follow the
 * slice's stores (else GCC loads them early into integer registers and
 * broadcasts from there, two shuffles each). The R form loads no masks,
 * and GCC's schedule of its slices under restrict ran CTR at 0.91x and
 * ECB and CBC decryption at 0.97x on AMD Zen 4 (bench/limits.md). */
#define ENC_ROUND(S, F) \
static __attribute__((noinline)) T256 void enc_##S##_##F(const V *y, V *RESTRICT_##F o, V *t, const uint32_t *k) \
{ \
	const V *b1 = t, *b3 = t + 32; \
	KT_##F kr = KEY_##F(k); \
	lt_middle(y, t); \
	ENC_SEG(S, F, 30, 32, 1) ENC_SEG(S, F, 29, 30, 1) ENC_SEG(S, F, 25, 29, 0) ENC_SEG(S, F, 22, 25, 0) \
	ENC_SEG(S, F, 18, 22, 1) ENC_SEG(S, F, 12, 18, 1) ENC_SEG(S, F, 7, 12, 1) ENC_SEG(S, F, 6, 7, 1) \
	ENC_SEG(S, F, 1, 6, 1) ENC_SEG(S, F, 0, 1, 1) \
}

#define ILT_SEG(lo, hi, F2Z1) \
	NO_UNROLL \
	for (int i = lo; i < hi; i++) { \
		V f2 = XOR(z[64 + i - 10 + WL(lo, 10)], z[96 + i]); \
		t[32 + i] = F2Z1 ? XOR(f2, z[32 + i - 7]) : f2; \
		t[i] = XOR(z[i + 5 + WH(lo, 5)], XOR(z[32 + i], z[96 + i])); \
	}

static __attribute__((noinline)) T256 void ilt_middle(const V *z, V *t)
{
	ILT_SEG(0, 7, 0) ILT_SEG(7, 10, 1) ILT_SEG(10, 27, 1) ILT_SEG(27, 32, 1)
}

#define DEC_SEG(S, F, lo, hi, X3F0) \
	NO_UNROLL \
	for (int j = hi - 1; j >= lo; j--) { \
		V x0 = f0[j + 13 + WH(lo, 13)], x2 = f2[j + 3 + WH(lo, 3)]; \
		V x1 = XOR(z[32 + j + 1 + WH(lo, 1)], XOR(f0[j], f2[j])); \
		V x3 = XOR(z[96 + j + 7 + WH(lo, 7)], f2[j]); \
		if (X3F0) \
			x3 = XOR(x3, f0[j - 3]); \
		SB(S, x0, x1, x2, x3); \
		KX_##F(kr, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	}

#define DEC_ROUND(S, F) \
static __attribute__((noinline)) T256 void dec_##S##_##F(const V *z, V *RESTRICT_##F o, V *t, const uint32_t *k) \
{ \
	const V *f0 = t, *f2 = t + 32; \
	KT_##F kr = KEY_##F(k); \
	ilt_middle(z, t); \
	DEC_SEG(S, F, 31, 32, 1) DEC_SEG(S, F, 29, 31, 1) DEC_SEG(S, F, 25, 29, 1) DEC_SEG(S, F, 19, 25, 1) \
	DEC_SEG(S, F, 3, 19, 1) DEC_SEG(S, F, 0, 3, 0) \
}

/* The rounds of a key form; the first round of each direction has no
 * linear transformation before its S-box, and decryption XORs kd[32]
 * before SI7 and kd[31] after. 32 rounds on w->p (the result in w->p) with
 * the keys k (ke or kd, KSTEP words a round); the rounds alternate between
 * p and q. */
#define KEY_FORM(F) \
ENC_ROUND(S0, F) ENC_ROUND(S1, F) ENC_ROUND(S2, F) ENC_ROUND(S3, F) \
ENC_ROUND(S4, F) ENC_ROUND(S5, F) ENC_ROUND(S6, F) ENC_ROUND(S7, F) \
DEC_ROUND(SI0, F) DEC_ROUND(SI1, F) DEC_ROUND(SI2, F) DEC_ROUND(SI3, F) \
DEC_ROUND(SI4, F) DEC_ROUND(SI5, F) DEC_ROUND(SI6, F) DEC_ROUND(SI7, F) \
static round_fn *const enc_rounds_##F[8] = { enc_S0_##F, enc_S1_##F, enc_S2_##F, enc_S3_##F, \
					     enc_S4_##F, enc_S5_##F, enc_S6_##F, enc_S7_##F }; \
static round_fn *const dec_rounds_##F[8] = { dec_SI0_##F, dec_SI1_##F, dec_SI2_##F, dec_SI3_##F, \
					     dec_SI4_##F, dec_SI5_##F, dec_SI6_##F, dec_SI7_##F }; \
static T256 void enc_first_##F(const V *p, V *o, const uint32_t *k) \
{ \
	KT_##F kr = KEY_##F(k); \
	for (int j = 31; j >= 0; j--) { \
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j]; \
		KX_##F(kr, x0, x1, x2, x3); \
		SB(S0, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	} \
} \
static T256 void dec_first_##F(const V *p, V *o, const uint32_t *kin, const uint32_t *kout) \
{ \
	KT_##F ki = KEY_##F(kin), ko = KEY_##F(kout); \
	for (int j = 31; j >= 0; j--) { \
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j]; \
		KX_##F(ki, x0, x1, x2, x3); \
		SB(SI7, x0, x1, x2, x3); \
		KX_##F(ko, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	} \
} \
static T256 void xor_key_##F(V *p, const uint32_t *k) \
{ \
	KT_##F kr = KEY_##F(k); \
	for (int j = 31; j >= 0; j--) { \
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j]; \
		KX_##F(kr, x0, x1, x2, x3); \
		STORE4(p, j, x0, x1, x2, x3); \
	} \
} \
static T256 void encrypt_planes_##F(work *w, const uint32_t *k) \
{ \
	V *a = w->p, *b = w->q; \
	enc_first_##F(a, b, k); \
	for (int r = 1; r < 32; r++) { \
		enc_rounds_##F[r & 7](b, a, w->t, k + KSTEP_##F * r); \
		V *s = a; a = b; b = s; \
	} \
	xor_key_##F(w->p, k + KSTEP_##F * 32); \
} \
static T256 void decrypt_planes_##F(work *w, const uint32_t *k) \
{ \
	V *a = w->p, *b = w->q; \
	dec_first_##F(a, b, k + KSTEP_##F * 32, k + KSTEP_##F * 31); \
	for (int r = 30; r >= 0; r--) { \
		dec_rounds_##F[r & 7](b, a, w->t, k + KSTEP_##F * r); \
		V *s = a; a = b; b = s; \
	} \
}

KEY_FORM(R)
KEY_FORM(M)

/* The M form's masks for the 33 round keys k: km[128 r + 4 j + w] is ~0
 * where bit j of word w of round key r is set. */
static T256 void expand_masks(uint32_t *km, const uint32_t (*k)[4])
{
	const V one = _mm256_set1_epi32(1), two = _mm256_set1_epi32(2);
	for (int r = 0; r < 33; r++) {
		V kw = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)k[r]));
		V sh = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
		for (int j = 0; j < 32; j += 2, sh = _mm256_add_epi32(sh, two)) {
			V b = _mm256_and_si256(_mm256_srlv_epi32(kw, sh), one);
			_mm256_storeu_si256((V *)(km + 128 * r + 4 * j), _mm256_sub_epi32(_mm256_setzero_si256(), b));
		}
	}
}

enum op { ENC, DEC, CTR, CBC_DEC, CFB_DEC };

typedef void planes_fn(work *w, const uint32_t *k);

/* One batch of 256 blocks through crypt with the keys k; iv is the counter
 * block (CTR) or the block before in (CBC and CFB decryption), updated for
 * the next batch, NULL in ECB. The last input block is read before any
 * output is written (out == in). */
static T256 void batch(work *w, uint8_t *out, const uint8_t *in, uint8_t *iv, enum op op, planes_fn *crypt,
		       const uint32_t *k)
{
	__m128i prev = iv ? _mm_loadu_si128((const __m128i *)iv) : _mm_setzero_si128();
	__m128i last = _mm_loadu_si128((const __m128i *)(in + BATCH_BYTES - 16));
	if (op == CTR)
		planes_ctr(w->p, iv, fb_load32_be(iv + 12));
	else if (op == CFB_DEC)
		planes_in_prev(w->p, in, prev);
	else
		planes_in(w->p, in);
	crypt(w, k);
	if (op == CBC_DEC)
		planes_out_cbc(out, in, w->p, prev);
	else
		planes_out(out, op == CTR || op == CFB_DEC ? in : NULL, w->p);
	if (op == CTR)
		fb_store32_be(iv + 12, fb_load32_be(iv + 12) + BATCH);
	else if (op != ENC && op != DEC)
		_mm_storeu_si128((__m128i *)iv, last);
}

/* The whole batches of n >= 256 blocks; returns how many blocks. The work
 * area (the rounds' states and, in CTR, the last keystream) is wiped: ~1%
 * of an 8 KB call. */
static T256 size_t batches(uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, enum op op, planes_fn *crypt,
			   const uint32_t *k)
{
	work w;
	size_t done = 0;
	for (; n - done >= BATCH; done += BATCH)
		batch(&w, out + 16 * done, in + 16 * done, iv, op, crypt, k);
	fb_wipe(&w, sizeof w);
	return done;
}

/* The tail (fewer than 256 blocks) on serpent/avx2, which shares the schedule. */
static T256 void tail(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, enum op op)
{
	if (!n)
		return;
	switch (op) {
	case ENC: fb_serpent_avx2.encrypt(ks, out, in, n); break;
	case DEC: fb_serpent_avx2.decrypt(ks, out, in, n); break;
	case CTR: fb_serpent_avx2.ctr32(ks, out, in, n, iv); break;
	case CBC_DEC: fb_serpent_avx2.cbc_dec(ks, out, in, n, iv); break;
	default: fb_serpent_avx2.cfb_dec(ks, out, in, n, iv); break;
	}
}

static int decrypts(enum op op)
{
	return op == DEC || op == CBC_DEC;
}

static T256 void run_R(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, enum op op)
{
	const serpent_ks *s = ks;
	size_t d = 0;
	if (n >= BATCH)
		d = decrypts(op) ? batches(out, in, n, iv, op, decrypt_planes_R, s->kd[0])
				 : batches(out, in, n, iv, op, encrypt_planes_R, s->ke[0]);
	tail(ks, out + 16 * d, in + 16 * d, n - d, iv, op);
}

/* The M form: the masks once a call (528 stores of 32 bytes, 16.5 KB on the
 * stack), wiped with it. */
static T256 void run_M(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, enum op op)
{
	const serpent_ks *s = ks;
	size_t d = 0;
	if (n >= BATCH) {
		_Alignas(32) uint32_t km[33 * 128];
		expand_masks(km, decrypts(op) ? s->kd : s->ke);
		d = batches(out, in, n, iv, op, decrypts(op) ? decrypt_planes_M : encrypt_planes_M, km);
		fb_wipe(km, sizeof km);
	}
	tail(ks, out + 16 * d, in + 16 * d, n - d, iv, op);
}

/* The five entry points of form F. */
#define ENTRY(F, fn, op) \
static T256 void fn##_##F(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
{ \
	run_##F(ks, out, in, n, NULL, op); \
}
#define ENTRY_IV(F, fn, op) \
static T256 void fn##_##F(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
{ \
	run_##F(ks, out, in, n, iv, op); \
}
#define ENTRIES(F) \
	ENTRY(F, encrypt, ENC) ENTRY(F, decrypt, DEC) \
	ENTRY_IV(F, ctr32, CTR) ENTRY_IV(F, cbc_dec, CBC_DEC) ENTRY_IV(F, cfb_dec, CFB_DEC)

ENTRIES(R)
ENTRIES(M)

#define BS_KERNEL(F, nm, nt, avoid) { \
	.name = nm, .family = "serpent", .block_size = 16, .cpu_needs = FB_CPU_AVX2, \
	.constant_time = 1, .batch = BATCH, .ks_size = sizeof(serpent_ks), .note = nt, \
	.avoid_on = avoid, .fills_schedule = 1, .setkey = fb_serpent_setkey, \
	.setkey_enc = fb_serpent_setkey_enc, .setkey_dec = fb_serpent_setkey_dec, \
	.encrypt = encrypt_##F, .decrypt = decrypt_##F, .ctr32 = ctr32_##F, \
	.cbc_dec = cbc_dec_##F, .cfb_dec = cfb_dec_##F, \
}

const fb_kernel fb_serpent_bs_avx2 = BS_KERNEL(R, "serpent/bs-avx2",
	"bitsliced across 256 blocks (a plane a bit), rotations free, two-input S-box circuits", 0);

/* Intel's three 256-bit logic ports: the M form (KX_M); AMD Zen 4 ran the
 * R form faster (avoid_on). */
const fb_kernel fb_serpent_bs_avx2_km = BS_KERNEL(M, "serpent/bs-avx2-km",
	"serpent/bs-avx2 with the round-key masks expanded once a call and broadcast by loads", FB_CPU_AMD_ZEN);

#endif
