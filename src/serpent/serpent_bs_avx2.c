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
 * Round keys come from a register (KX), nothing key-derived is stored
 * but the rounds' states, which a call wipes with its work area. No table
 * lookups, no secret-dependent branches or addresses: constant-time.
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
 * Round-key masks from a register: kr holds the round key's four words in
 * each 128-bit lane, shifted left by 31 - j at slice j (the slices run from
 * 31 down), so its sign bits are slice j's key bits: a shift, an add and
 * four in-lane broadcasts, against four loads of masks expanded ahead (the
 * loads and stores, not the logic, bound a round).
 */
#define KEY_REG(k) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(k)))
#define KX(kr, x0, x1, x2, x3) do { \
	V m_ = _mm256_srai_epi32(kr, 31); \
	x0 = XOR(x0, _mm256_shuffle_epi32(m_, 0x00)); x1 = XOR(x1, _mm256_shuffle_epi32(m_, 0x55)); \
	x2 = XOR(x2, _mm256_shuffle_epi32(m_, 0xAA)); x3 = XOR(x3, _mm256_shuffle_epi32(m_, 0xFF)); \
	kr = _mm256_add_epi32(kr, kr); \
} while (0)
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

#define ENC_SEG(S, lo, hi, X2B1) \
	NO_UNROLL \
	for (int j = hi - 1; j >= lo; j--) { \
		V x0 = XOR(y[j - 18 + WL(lo, 18)], XOR(b1[j - 6 + WL(lo, 6)], b3[j - 12 + WL(lo, 12)])); \
		V x1 = b1[j - 1 + WL(lo, 1)], x3 = b3[j - 7 + WL(lo, 7)]; \
		V x2 = XOR(y[64 + j - 25 + WL(lo, 25)], b3[j - 29 + WL(lo, 29)]); \
		if (X2B1) \
			x2 = XOR(x2, b1[j - 30 + WL(lo, 30)]); \
		KX(kr, x0, x1, x2, x3); \
		SB(S, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	}

#define ENC_ROUND(S) \
static __attribute__((noinline)) T256 void enc_##S(const V *y, V *o, V *t, const uint32_t *k) \
{ \
	const V *b1 = t, *b3 = t + 32; \
	V kr = KEY_REG(k); \
	lt_middle(y, t); \
	ENC_SEG(S, 30, 32, 1) ENC_SEG(S, 29, 30, 1) ENC_SEG(S, 25, 29, 0) ENC_SEG(S, 22, 25, 0) \
	ENC_SEG(S, 18, 22, 1) ENC_SEG(S, 12, 18, 1) ENC_SEG(S, 7, 12, 1) ENC_SEG(S, 6, 7, 1) \
	ENC_SEG(S, 1, 6, 1) ENC_SEG(S, 0, 1, 1) \
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

#define DEC_SEG(S, lo, hi, X3F0) \
	NO_UNROLL \
	for (int j = hi - 1; j >= lo; j--) { \
		V x0 = f0[j + 13 + WH(lo, 13)], x2 = f2[j + 3 + WH(lo, 3)]; \
		V x1 = XOR(z[32 + j + 1 + WH(lo, 1)], XOR(f0[j], f2[j])); \
		V x3 = XOR(z[96 + j + 7 + WH(lo, 7)], f2[j]); \
		if (X3F0) \
			x3 = XOR(x3, f0[j - 3]); \
		SB(S, x0, x1, x2, x3); \
		KX(kr, x0, x1, x2, x3); \
		STORE4(o, j, x0, x1, x2, x3); \
	}

#define DEC_ROUND(S) \
static __attribute__((noinline)) T256 void dec_##S(const V *z, V *o, V *t, const uint32_t *k) \
{ \
	const V *f0 = t, *f2 = t + 32; \
	V kr = KEY_REG(k); \
	ilt_middle(z, t); \
	DEC_SEG(S, 31, 32, 1) DEC_SEG(S, 29, 31, 1) DEC_SEG(S, 25, 29, 1) DEC_SEG(S, 19, 25, 1) \
	DEC_SEG(S, 3, 19, 1) DEC_SEG(S, 0, 3, 0) \
}

ENC_ROUND(S0) ENC_ROUND(S1) ENC_ROUND(S2) ENC_ROUND(S3)
ENC_ROUND(S4) ENC_ROUND(S5) ENC_ROUND(S6) ENC_ROUND(S7)
DEC_ROUND(SI0) DEC_ROUND(SI1) DEC_ROUND(SI2) DEC_ROUND(SI3)
DEC_ROUND(SI4) DEC_ROUND(SI5) DEC_ROUND(SI6) DEC_ROUND(SI7)

static round_fn *const enc_rounds[8] = { enc_S0, enc_S1, enc_S2, enc_S3, enc_S4, enc_S5, enc_S6, enc_S7 };
static round_fn *const dec_rounds[8] = { dec_SI0, dec_SI1, dec_SI2, dec_SI3,
					 dec_SI4, dec_SI5, dec_SI6, dec_SI7 };

/* The first round of each direction: no linear transformation before its
 * S-box; decryption XORs kd[32] before SI7 and kd[31] after. */
static T256 void enc_first(const V *p, V *o, const uint32_t *k)
{
	V kr = KEY_REG(k);
	for (int j = 31; j >= 0; j--) {
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j];
		KX(kr, x0, x1, x2, x3);
		SB(S0, x0, x1, x2, x3);
		STORE4(o, j, x0, x1, x2, x3);
	}
}

static T256 void dec_first(const V *p, V *o, const uint32_t *kin, const uint32_t *kout)
{
	V ki = KEY_REG(kin), ko = KEY_REG(kout);
	for (int j = 31; j >= 0; j--) {
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j];
		KX(ki, x0, x1, x2, x3);
		SB(SI7, x0, x1, x2, x3);
		KX(ko, x0, x1, x2, x3);
		STORE4(o, j, x0, x1, x2, x3);
	}
}

static T256 void xor_key(V *p, const uint32_t *k)
{
	V kr = KEY_REG(k);
	for (int j = 31; j >= 0; j--) {
		V x0 = p[j], x1 = p[32 + j], x2 = p[64 + j], x3 = p[96 + j];
		KX(kr, x0, x1, x2, x3);
		STORE4(p, j, x0, x1, x2, x3);
	}
}

/* 32 rounds on w->p (the result in w->p) with the keys k (ke or kd); the
 * rounds alternate between p and q. */
static T256 void encrypt_planes(work *w, const uint32_t (*k)[4])
{
	V *a = w->p, *b = w->q;
	enc_first(a, b, k[0]);
	for (int r = 1; r < 32; r++) {
		enc_rounds[r & 7](b, a, w->t, k[r]);
		V *s = a; a = b; b = s;
	}
	xor_key(w->p, k[32]);
}

static T256 void decrypt_planes(work *w, const uint32_t (*k)[4])
{
	V *a = w->p, *b = w->q;
	dec_first(a, b, k[32], k[31]);
	for (int r = 30; r >= 0; r--) {
		dec_rounds[r & 7](b, a, w->t, k[r]);
		V *s = a; a = b; b = s;
	}
}

enum op { ENC, DEC, CTR, CBC_DEC, CFB_DEC };

/* One batch of 256 blocks; iv is the counter block (CTR) or the block
 * before in (CBC and CFB decryption), updated for the next batch, NULL in
 * ECB. The last input block is read before any output is written (out ==
 * in). */
static T256 void batch(const serpent_ks *ks, work *w, uint8_t *out, const uint8_t *in, uint8_t *iv,
		       enum op op)
{
	__m128i prev = iv ? _mm_loadu_si128((const __m128i *)iv) : _mm_setzero_si128();
	__m128i last = _mm_loadu_si128((const __m128i *)(in + BATCH_BYTES - 16));
	if (op == CTR)
		planes_ctr(w->p, iv, fb_load32_be(iv + 12));
	else if (op == CFB_DEC)
		planes_in_prev(w->p, in, prev);
	else
		planes_in(w->p, in);
	if (op == DEC || op == CBC_DEC)
		decrypt_planes(w, ks->kd);
	else
		encrypt_planes(w, ks->ke);
	if (op == CBC_DEC)
		planes_out_cbc(out, in, w->p, prev);
	else
		planes_out(out, op == CTR || op == CFB_DEC ? in : NULL, w->p);
	if (op == CTR)
		fb_store32_be(iv + 12, fb_load32_be(iv + 12) + BATCH);
	else if (op != ENC && op != DEC)
		_mm_storeu_si128((__m128i *)iv, last);
}

/* Whole batches here, the tail (fewer than 256 blocks) on serpent/avx2. */
static T256 void run(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, enum op op)
{
	work w;
	if (n >= BATCH) {
		for (; n >= BATCH; n -= BATCH, in += BATCH_BYTES, out += BATCH_BYTES)
			batch(ks, &w, out, in, iv, op);
		/* the rounds' states and, in CTR, the last keystream: ~1% of an
		 * 8 KB call */
		fb_wipe(&w, sizeof w);
	}
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

static T256 void serpent_bs_avx2_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	run(ks, out, in, n, NULL, ENC);
}

static T256 void serpent_bs_avx2_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	run(ks, out, in, n, NULL, DEC);
}

static T256 void serpent_bs_avx2_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				       uint8_t *ctr)
{
	run(ks, out, in, n, ctr, CTR);
}

static T256 void serpent_bs_avx2_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
					 uint8_t *iv)
{
	run(ks, out, in, n, iv, CBC_DEC);
}

static T256 void serpent_bs_avx2_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
					 uint8_t *iv)
{
	run(ks, out, in, n, iv, CFB_DEC);
}

const fb_kernel fb_serpent_bs_avx2 = {
	.name = "serpent/bs-avx2",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 1,
	.batch = BATCH,
	.ks_size = sizeof(serpent_ks),
	.note = "bitsliced across 256 blocks (a plane a bit), rotations free, two-input S-box circuits",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey,
	.setkey_enc = fb_serpent_setkey_enc,
	.setkey_dec = fb_serpent_setkey_dec,
	.encrypt = serpent_bs_avx2_encrypt,
	.decrypt = serpent_bs_avx2_decrypt,
	.ctr32 = serpent_bs_avx2_ctr32,
	.cbc_dec = serpent_bs_avx2_cbc_dec,
	.cfb_dec = serpent_bs_avx2_cfb_dec,
};

#endif
