/*
 * serpent/avx2: bitsliced Serpent on AVX2, 8 blocks per group of four ymm
 * registers (register j holds word j of 8 blocks), up to three groups
 * interleaved (24 blocks, 384 bytes). A round's chain (S-box depth 8, the
 * linear transformation's rotations 2 deep each) is longer than two
 * groups' work on four vector pipes: on Zen 5 under the AVX2 mask one
 * group of 8 blocks costs 913 TSC ticks, two 971, three 1,179. Twelve
 * state registers leave four for the circuits, so three groups spill
 * some temporaries; four (all sixteen registers) spill the state too and
 * would be throughput-bound on Zen 2 (llvm-mca: 119 cycles a group
 * against 110 for three).
 *
 * S-boxes are the two-input circuits of gen/serpent_tables.py (14-18
 * and/or/xor/andnot each; complemented outputs are undone by the keys ke/kd,
 * see serpent.h); a rotation costs three instructions (shift, shift, or;
 * by 1 an add for the first shift).
 * Partial groups use vpmaskmovd loads and stores; one block goes to the
 * portable code.  No table lookups, no secret-dependent branches:
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
#define XOR3(a, b, c) XOR((a), XOR((b), (c))) /* a arrives last (serpent.h) */
#define SHL(x, n) _mm256_slli_epi32((x), (n))
#define ROLS(x, n) OR(SHL((x), (n)), _mm256_srli_epi32((x), 32 - (n)))
/* x <<< 1 as (x + x) | (x >> 31): one shift, not two. Zen 1 and Zen 2 shift
 * on one of their four vector pipes (FP2), so LT's 14 shifts, not the
 * round's ~49 operations on four pipes, would bound a round there. */
#define ROL1(x) OR(_mm256_add_epi32((x), (x)), _mm256_srli_epi32((x), 31))
#define ROL(x, n) ((n) == 1 ? ROL1(x) : ROLS(x, n))
#define KEY(k, j) _mm256_set1_epi32((int)(k)[j])

#define KX(k, x0, x1, x2, x3) do { \
	x0 = XOR(x0, KEY(k, 0)); x1 = XOR(x1, KEY(k, 1)); \
	x2 = XOR(x2, KEY(k, 2)); x3 = XOR(x3, KEY(k, 3)); \
} while (0)
#define SB(S, x0, x1, x2, x3) FB_SERPENT_##S##_L2(V, AND, OR, XOR, ANDN, x0, x1, x2, x3)

#define LT1(_, x0, x1, x2, x3) FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define ILT1(_, x0, x1, x2, x3) FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3)

/* One group is latency-bound: the shallow circuits and the keys folded
 * into the linear transformation, as the scalar one-block code (keys ks). */
#define SBD(S) FB_SERPENT_##S##_L2D(V, AND, OR, XOR, ANDN, a0, a1, a2, a3)
#define KW(j) _mm256_set1_epi32((int)kw_[j])
#define LTK(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROL, SHL, XOR, XOR3, KW, a0, a1, a2, a3); \
} while (0)

static __attribute__((noinline)) T256 void enc_1x8(const uint32_t (*k)[4], V *s)
{
	V a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
	KX(k[0], a0, a1, a2, a3);
	FB_SERPENT_KEYED_ROUNDS(SBD, LTK, k);
	KX(k[32], a0, a1, a2, a3);
	s[0] = a0; s[1] = a1; s[2] = a2; s[3] = a3;
}

/* One group of decryption, latency-bound too: the shallow inverse
 * circuits (FB_SERPENT_SHALLOW_DEC_ROUNDS). */
#define SBID(S) FB_SERPENT_##S##_L2D(V, AND, OR, XOR, ANDN, a0, a1, a2, a3)
#define KXA(kr) KX(kr, a0, a1, a2, a3)

static __attribute__((noinline)) T256 void dec_1x8(const uint32_t (*k)[4], V *s)
{
	V a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
	KX(k[32], a0, a1, a2, a3);
	FB_SERPENT_SHALLOW_DEC_ROUNDS(SBID, KXA, ILT1(_, a0, a1, a2, a3), k);
	s[0] = a0; s[1] = a1; s[2] = a2; s[3] = a3;
}

/*
 * Up to 4 blocks (64 bytes and less): each word in both halves of a qword,
 * (x:x), so that a rotation is a 64-bit shift of the pair, whose low dword
 * is x <<< n, after a vpshufd that duplicates the low dword again: two
 * operations instead of three (shift, shift, or), six fewer of a round's
 * ~55 and six fewer shifts. The S-boxes and LT's XORs and plain shifts act
 * on each dword alone, so the low dwords stay right whatever the high ones
 * hold. A lone group is bound by the vector ports on Intel (three logic
 * ports, two of which shift): 4 blocks 0.90-0.92x the time, decryption
 * 0.87x (Sapphire Rapids class under the AVX2 mask).
 */
#define ROLD(x, n) _mm256_srli_epi64(_mm256_shuffle_epi32((x), 0xA0), 32 - (n))
#define LTKD(kr) do { \
	const uint32_t *kw_ = (kr); \
	FB_SERPENT_LT_KEYED(ROLD, SHL, XOR, XOR3, KW, a0, a1, a2, a3); \
} while (0)
#define ILTD(_, x0, x1, x2, x3) FB_SERPENT_ILT(ROLD, SHL, XOR3, x0, x1, x2, x3)

/* After load8's transpose blocks 0-3 are dwords 0 and 1 of each 128-bit
 * lane; DUP_IN spreads them to (x:x) pairs, DUP_OUT gathers the low dwords. */
#define DUP_IN(x) _mm256_shuffle_epi32((x), 0x50)
#define DUP_OUT(x) _mm256_shuffle_epi32((x), 0x08)
#define STATE_DUP_IN(s) V a0 = DUP_IN(s[0]), a1 = DUP_IN(s[1]), a2 = DUP_IN(s[2]), a3 = DUP_IN(s[3])
#define STATE_DUP_OUT(s) do { \
	s[0] = DUP_OUT(a0); s[1] = DUP_OUT(a1); s[2] = DUP_OUT(a2); s[3] = DUP_OUT(a3); \
} while (0)

static __attribute__((noinline)) T256 void enc_1x4(const uint32_t (*k)[4], V *s)
{
	STATE_DUP_IN(s);
	KX(k[0], a0, a1, a2, a3);
	FB_SERPENT_KEYED_ROUNDS(SBD, LTKD, k);
	KX(k[32], a0, a1, a2, a3);
	STATE_DUP_OUT(s);
}

static __attribute__((noinline)) T256 void dec_1x4(const uint32_t (*k)[4], V *s)
{
	STATE_DUP_IN(s);
	KX(k[32], a0, a1, a2, a3);
	FB_SERPENT_SHALLOW_DEC_ROUNDS(SBID, KXA, ILTD(_, a0, a1, a2, a3), k);
	STATE_DUP_OUT(s);
}

/* More groups: encryption with the keys ke, decryption with kd (see
 * serpent.h), of G groups held in s[0 .. 4G). */
FB_SERPENT_ENC_GROUPS(enc_2x8, 2, T256)
FB_SERPENT_ENC_GROUPS(enc_3x8, 3, T256)
FB_SERPENT_DEC_GROUPS(dec_2x8, 2, T256)
FB_SERPENT_DEC_GROUPS(dec_3x8, 3, T256)

/* Blocks a step takes at most, and the groups of 8 that m of them fill. */
#define STEP_MAX 24
static inline size_t groups_of(size_t m)
{
	return (m + 7) / 8;
}

/* The rounds on the groups of m blocks (1 to 3 groups): one on its shallow
 * circuits (keys ks; up to 4 blocks in pairs), more on the two-input
 * circuits (ke, kd). */
static T256 void enc_groups(const serpent_ks *ks, V *s, size_t m)
{
	switch (groups_of(m)) {
	case 1: (m <= 4 ? enc_1x4 : enc_1x8)(ks->ks, s); break;
	case 2: enc_2x8(ks->ke, s); break;
	default: enc_3x8(ks->ke, s); break;
	}
}

static T256 void dec_groups(const serpent_ks *ks, V *s, size_t m)
{
	switch (groups_of(m)) {
	case 1: (m <= 4 ? dec_1x4 : dec_1x8)(ks->kd, s); break;
	case 2: dec_2x8(ks->kd, s); break;
	default: dec_3x8(ks->kd, s); break;
	}
}

/*
 * 8 blocks <-> bitsliced: register i holds blocks 2i, 2i+1 (one per 128-bit
 * lane); a 4x4 transpose of 32-bit words inside each lane leaves word j of
 * all 8 blocks in register j (lane L, element e = block 2e + L).  The
 * transpose is its own inverse.
 */
INL void transpose(V *x)
{
	FB_TRANSPOSE4_IN_LANES(V, _mm256, x[0], x[1], x[2], x[3]);
}

/* Element mask of register i (blocks 2i, 2i+1) when n <= 8 blocks are
 * present: all ones (full), all zeros (absent) or a vpmaskmovd mask. */
INL V reg_mask(size_t n, unsigned i)
{
	int words = (int)(4 * n) - 8 * (int)i;
	return _mm256_cmpgt_epi32(_mm256_set1_epi32(words), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

INL V load_reg(const uint8_t *p, size_t n, unsigned i)
{
	if (4 * n >= 8 * (size_t)i + 8)
		return _mm256_loadu_si256((const __m256i *)(p + 32 * i));
	if (4 * n <= 8 * (size_t)i)
		return _mm256_setzero_si256();
	return _mm256_maskload_epi32((const int *)(p + 32 * i), reg_mask(n, i));
}

INL void store_reg(uint8_t *p, size_t n, unsigned i, V v)
{
	if (4 * n >= 8 * (size_t)i + 8)
		_mm256_storeu_si256((__m256i *)(p + 32 * i), v);
	else if (4 * n > 8 * (size_t)i)
		_mm256_maskstore_epi32((int *)(p + 32 * i), reg_mask(n, i), v);
}

/* Load n <= 8 blocks into x[0..3], bitsliced. */
INL void load8(V *x, const uint8_t *in, size_t n)
{
	for (unsigned i = 0; i < 4; i++)
		x[i] = load_reg(in, n, i);
	transpose(x);
}

/* Store n <= 8 blocks from bitsliced x[0..3] (x is clobbered). */
INL void store8(uint8_t *out, V *x, size_t n)
{
	transpose(x);
	for (unsigned i = 0; i < 4; i++)
		store_reg(out, n, i, x[i]);
}

/* Blocks of group i among m blocks (m > 8i). */
static inline size_t in_group(size_t m, size_t i)
{
	return m - 8 * i < 8 ? m - 8 * i : 8;
}

/* ECB in steps of up to STEP_MAX blocks; a lone block by the portable
 * code (one group costs about three of its blocks). */
static T256 void ecb(const serpent_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	V s[4 * (STEP_MAX / 8)];
	while (n > 1) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < g; i++)
			load8(s + 4 * i, in + 128 * i, in_group(m, i));
		(dec ? dec_groups : enc_groups)(ks, s, m);
		for (size_t i = 0; i < g; i++)
			store8(out + 128 * i, s + 4 * i, in_group(m, i));
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	if (n == 1)
		(dec ? fb_serpent_bitslice_decrypt : fb_serpent_bitslice_encrypt)(ks, out, in, 1);
}

static T256 void serpent_avx2_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	ecb(ks, out, in, n, 0);
}

static T256 void serpent_avx2_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	ecb(ks, out, in, n, 1);
}

/* CTR input, bitsliced directly (see serpent_avx512.c): only word 3
 * differs between the 8 counter blocks; position 4L + e is block 2e + L. */
INL void ctr_group(V *x, const uint8_t *ctr, uint32_t c)
{
	const V order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
	const V bswap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
					 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
	x[0] = _mm256_set1_epi32((int)fb_load32_le(ctr));
	x[1] = _mm256_set1_epi32((int)fb_load32_le(ctr + 4));
	x[2] = _mm256_set1_epi32((int)fb_load32_le(ctr + 8));
	x[3] = _mm256_shuffle_epi8(_mm256_add_epi32(_mm256_set1_epi32((int)c), order), bswap);
}

/* out = in ^ keystream for n <= 8 blocks; x is clobbered. */
INL void xor_store8(uint8_t *out, const uint8_t *in, V *x, size_t n)
{
	transpose(x);
	for (unsigned i = 0; i < 4; i++)
		store_reg(out, n, i, XOR(load_reg(in, n, i), x[i]));
}

static T256 void serpent_avx2_ctr32(const void *ksv, uint8_t *out, const uint8_t *in, size_t n,
				    uint8_t *ctr)
{
	const serpent_ks *ks = ksv;
	uint32_t c = fb_load32_be(ctr + 12);
	V s[4 * (STEP_MAX / 8)];
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < g; i++)
			ctr_group(s + 4 * i, ctr, c + 8 * (uint32_t)i);
		enc_groups(ks, s, m);
		for (size_t i = 0; i < g; i++)
			xor_store8(out + 128 * i, in + 128 * i, s + 4 * i, in_group(m, i));
		c += (uint32_t)m;
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	fb_store32_be(ctr + 12, c);
}

/* CBC decryption of n <= 8 blocks held bitsliced in x: out[i] = D(c[i]) ^
 * c[i-1], c[-1] = *prev; all ciphertext is loaded before any store, so
 * out == in works.  *prev becomes the last ciphertext block. */
INL void cbc_xor_store8(uint8_t *out, const uint8_t *in, V *x, size_t n, __m128i *prev)
{
	V c[4];
	for (unsigned i = 0; i < 4; i++)
		c[i] = load_reg(in, n, i);
	V last = _mm256_broadcastsi128_si256(*prev);
	__m128i newprev = _mm_loadu_si128((const __m128i *)(in + 16 * (n - 1)));
	transpose(x);
	for (unsigned i = 0; i < 4; i++) {
		V sh = _mm256_permute2x128_si256(c[i], last, 0x03); /* [c[2i-1], c[2i]] */
		last = c[i];
		store_reg(out, n, i, XOR(x[i], sh));
	}
	*prev = newprev;
}

static T256 void serpent_avx2_cbc_dec(const void *ksv, uint8_t *out, const uint8_t *in, size_t n,
				      uint8_t *iv)
{
	const serpent_ks *ks = ksv;
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
	V s[4 * (STEP_MAX / 8)];
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < g; i++)
			load8(s + 4 * i, in + 128 * i, in_group(m, i));
		dec_groups(ks, s, m);
		__m128i next = _mm_loadu_si128((const __m128i *)(in + 16 * (m - 1)));
		/* The last group first: each group needs the block before it,
		 * which the group before overwrites in place. */
		for (size_t i = g; i-- > 0;) {
			__m128i p = i ? _mm_loadu_si128((const __m128i *)(in + 128 * i - 16)) : prev;
			cbc_xor_store8(out + 128 * i, in + 128 * i, s + 4 * i, in_group(m, i), &p);
		}
		prev = next;
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	_mm_storeu_si128((__m128i *)iv, prev);
}

/* CFB decryption: the cipher input of block j is c[j-1] (c[-1] = prev), the
 * output c[j] ^ E(c[j-1]). Loads n <= 8 blocks' inputs into x, bitsliced. */
INL void load8_prev(V *x, const uint8_t *in, size_t n, __m128i prev)
{
	V last = _mm256_broadcastsi128_si256(prev);
	for (unsigned i = 0; i < 4; i++) {
		V c = load_reg(in, n, i);
		x[i] = _mm256_permute2x128_si256(c, last, 0x03); /* [c[2i-1], c[2i]] */
		last = c;
	}
	transpose(x);
}

/* Every group's input is loaded before any store, and a group's store
 * overwrites only its own ciphertext, read again just before: out == in
 * works. Through the mode layer's copy-and-encrypt this ran at 0.90 of CTR's
 * speed (8 KB, Sapphire Rapids class under the AVX2 mask). */
static T256 void serpent_avx2_cfb_dec(const void *ksv, uint8_t *out, const uint8_t *in, size_t n,
				      uint8_t *iv)
{
	const serpent_ks *ks = ksv;
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
	V s[4 * (STEP_MAX / 8)];
	while (n > 0) {
		size_t m = n < STEP_MAX ? n : STEP_MAX, g = groups_of(m);
		for (size_t i = 0; i < g; i++) {
			__m128i p = i ? _mm_loadu_si128((const __m128i *)(in + 128 * i - 16)) : prev;
			load8_prev(s + 4 * i, in + 128 * i, in_group(m, i), p);
		}
		prev = _mm_loadu_si128((const __m128i *)(in + 16 * (m - 1)));
		enc_groups(ks, s, m);
		for (size_t i = 0; i < g; i++)
			xor_store8(out + 128 * i, in + 128 * i, s + 4 * i, in_group(m, i));
		n -= m;
		in += 16 * m;
		out += 16 * m;
	}
	_mm_storeu_si128((__m128i *)iv, prev);
}

const fb_kernel fb_serpent_avx2 = {
	.name = "serpent/avx2",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2,
	.constant_time = 1,
	.batch = STEP_MAX,
	.ks_size = sizeof(serpent_ks),
	.note = "bitsliced, 3 x 8 blocks in ymm, S-boxes as two-input gate circuits",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey,
	.setkey_enc = fb_serpent_setkey_enc,
	.setkey_dec = fb_serpent_setkey_dec,
	.encrypt = serpent_avx2_encrypt,
	.decrypt = serpent_avx2_decrypt,
	.ctr32 = serpent_avx2_ctr32,
	.cbc_dec = serpent_avx2_cbc_dec,
	.cfb_dec = serpent_avx2_cfb_dec,
};

#endif
