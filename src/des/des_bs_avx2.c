/*
 * des/bs-avx2: bitsliced DES and Triple-DES with AVX2, 256 blocks per batch.
 *
 * The same scheme as des/bs-avx512 (see des_bs_common.h) on ymm planes,
 * with the 2-input gate circuits of des_bs_sboxes.h (AND, OR, XOR, ANDN,
 * NOT: AVX2 has no vpternlog) and a transposition by shifts, masks and
 * unpacks: ymm row i holds blocks 4i..4i+3 (little-endian qwords), and
 * each of the four 64-bit lanes is transposed as a 64x64 bit matrix (three
 * stages of masked swaps of bits, one 8x8 byte transpose), so plane
 * register c lane l bit i = bit c of the qword of block 4i+l. No GFNI or
 * AVX-512 needed (Haswell, Zen 1-3). des/bs-avx2-gfni, in this file too,
 * transposes the bits inside each qword with vgf2p8affineqb instead of the
 * three stages of swaps (AVX2 with GFNI: Intel's client cores from Alder
 * Lake).
 *
 * Constant-time for every length. A partial batch costs a whole one, so
 * short runs are the ladder's (src/des/des_impls.c).
 */
#include "des_bs_common.h"
#include "des_keys.h"

#if FB_X86
#include <immintrin.h>
#include "des_bs_sboxes.h"

#define TGT FB_TARGET("avx2")
#define TGT_GF FB_TARGET("avx2,gfni")

typedef __m256i V;

#define BS_T V
#define BS_AND(a, b) _mm256_and_si256((a), (b))
#define BS_OR(a, b) _mm256_or_si256((a), (b))
#define BS_XOR(a, b) _mm256_xor_si256((a), (b))
#define BS_ANDN(a, b) _mm256_andnot_si256((a), (b))
#define BS_NOT(a) _mm256_xor_si256((a), _mm256_set1_epi32(-1))
#define KX(p, j) _mm256_xor_si256((p), _mm256_set1_epi32((int)k[j]))

/* The rounds take the circuits without NOT gates (DES_BS_GATEP_*, 379
 * gates a round against 407): the outputs they leave complemented are
 * undone by round keys flipped at des_bs_gatep_flip's positions in the
 * second and third round of every four. schedule256 flips the single-key
 * round keys; the lane engine keeps the complement of every key plane and
 * takes it at those places (round256_lanes). */
TGT static __attribute__((noinline)) void round256(V *restrict a, const V *restrict b, const uint32_t *k)
{
	DES_BS_GATEP_ROUND(a, b, KX);
}

/* One DES pass (16 rounds) over st with the 16x48 key words rk, forwards
 * (encryption) or backwards; swap exchanges the halves' roles (the second
 * pass of EDE). With a second batch su (else NULL) the two batches' rounds
 * alternate, as in des/bs-avx512: a round's S-boxes read the planes the
 * round before stored, and the other batch's round fills that wait. */
TGT static void pass256(V *st, V *su, const uint32_t *rk, int dec, int swap)
{
	V *a = swap ? st + 32 : st, *b = swap ? st : st + 32;
	V *c = su && swap ? su + 32 : su, *d = su && !swap ? su + 32 : su;
	const uint32_t *k = dec ? rk + 15 * 48 : rk;
	ptrdiff_t step = dec ? -48 : 48;
	for (int r = 0; r < 8; r++) {
		round256(a, b, k);
		if (su)
			round256(c, d, k);
		k += step;
		round256(b, a, k);
		if (su)
			round256(d, c, k);
		k += step;
	}
}

/* The rounds of one batch st, or of two (su, else NULL). */
TGT static void crypt256(V *st, V *su, const des_bs_ks *ks, int dec)
{
	DES_BS_CRYPT(pass256, st, su, ks, dec);
}

/* ---- transposition ------------------------------------------------------------ */

/* One swap stage on rows a (bit j of the row index clear) and b (set):
 * bit c of a with c & s set <-> bit c - s of b. */
#define SWAP_STAGE(a, b, s, mk) do { \
	V t_ = _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi64((a), (s)), (b)), (mk)); \
	(b) = _mm256_xor_si256((b), t_); \
	(a) = _mm256_xor_si256((a), _mm256_slli_epi64(t_, (s))); \
} while (0)

/* The transposition's two halves, each on 8 rows in registers:
 * swap_bits8 exchanges bits 1, 2, 4 apart between rows 1, 2, 4 apart
 * (rows 8g..8g+7) by three stages of masked swaps; swap_bytes8 transposes
 * the 8x8 byte matrix in each 64-bit lane of rows g, g+8, ..., g+56 by four
 * stages of unpacks: bytes, words and dwords of row pairs interleave
 * within 128-bit halves, which leaves two columns of lanes 0 and 2 (or 1
 * and 3) in a register, and the qword unpack pairs lane 0 with lane 1 and
 * 2 with 3. 32 unpacks where the three stages of shifts and blends took
 * 48-56 operations (llvm-mca's Zen 2 model: 13 cycles a group against
 * 21). The callers load and store the rows, so that the permutations
 * around the transposition (IP, FP) and the block loads cost no pass of
 * their own. */
TGT static inline void swap_bits8(V r[8], const V mk[3])
{
	_Pragma("GCC unroll 3")
	for (int j = 0; j < 3; j++)
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			if (!(i >> j & 1))
				SWAP_STAGE(r[i], r[i | 1 << j], 1 << j, mk[j]);
}

/* One pair of an unpack stage at width w: o[2i] and o[2i+1] interleave
 * the low and the high halves of each 128-bit lane of a and b. */
#define UNPACK_PAIR(w, o, i, a, b) do { \
	(o)[2 * (i)] = _mm256_unpacklo_epi##w(a, b); \
	(o)[2 * (i) + 1] = _mm256_unpackhi_epi##w(a, b); \
} while (0)

TGT static inline void swap_bytes8(V r[8])
{
	V a[8], b[8], c[8];
	/* a[2i], a[2i+1]: rows 2i and 2i+1 byte by byte, lanes 0 and 2 / 1 and 3 */
	for (int i = 0; i < 4; i++)
		UNPACK_PAIR(8, a, i, r[2 * i], r[2 * i + 1]);
	/* b: bytes 0-3 (even) and 4-7 (odd) of rows 0-3 (b0-b1 lanes 0 and 2,
	 * b4-b5 lanes 1 and 3) and of rows 4-7 (b2-b3, b6-b7) */
	UNPACK_PAIR(16, b, 0, a[0], a[2]);
	UNPACK_PAIR(16, b, 1, a[4], a[6]);
	UNPACK_PAIR(16, b, 2, a[1], a[3]);
	UNPACK_PAIR(16, b, 3, a[5], a[7]);
	/* c[i] (i < 4): columns 2i, 2i+1 of lanes 0 and 2; c[4 + i]: of lanes 1 and 3 */
	UNPACK_PAIR(32, c, 0, b[0], b[2]);
	UNPACK_PAIR(32, c, 1, b[1], b[3]);
	UNPACK_PAIR(32, c, 2, b[4], b[6]);
	UNPACK_PAIR(32, c, 3, b[5], b[7]);
	for (int i = 0; i < 4; i++)
		UNPACK_PAIR(64, r, i, c[i], c[4 + i]);
}

#define BIT_MASKS { _mm256_set1_epi64x(0x5555555555555555ll), _mm256_set1_epi64x(0x3333333333333333ll), \
		    _mm256_set1_epi64x(0x0F0F0F0F0F0F0F0Fll) }

/* The first half on group g, rows r (8g..8g+7) to m. */
TGT static inline void tr_half1(V *m, V r[8], int g, const V mk[3])
{
	swap_bits8(r, mk);
	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		m[8 * g + i] = r[i];
}

/* The second half on group g, rows g + 8i of m to r. */
TGT static inline void tr_half2(V r[8], const V *m, int g)
{
	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		r[i] = m[g + 8 * i];
	swap_bytes8(r);
}

/* The first half by GFNI (des/bs-avx2-gfni): rows 8g..8g+7 go to
 * swap_bytes8 last first, so that each qword's byte 7 - i is row 8g + i's,
 * and vgf2p8affineqb with the data as matrix transposes each qword's 8x8
 * bits (result byte j bit i = data byte 7 - i bit j): m[8g + c] lane l
 * byte b bit i = bit b of byte c of row 8g + i's lane l. Five operations
 * a row where swap_bits8 takes nine; the second half then pairs rows of
 * one byte c, and its register i is FIPS plane 8c + 7 - i. */
TGT_GF static inline void tr_half1_gf(V *m, const V r[8], int g)
{
	const V gf = _mm256_set1_epi64x((long long)0x8040201008040201ull);
	V t[8];
	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		t[i] = r[7 - i];
	swap_bytes8(t);
	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		m[8 * g + i] = _mm256_gf2p8affine_epi64_epi8(gf, t[i], 0);
}

TGT static inline __m256i lanes(size_t b0, size_t n)
{
	/* all-ones in each 64-bit lane l with b0 + l < n */
	long long m[4];
	for (int l = 0; l < 4; l++)
		m[l] = b0 + (size_t)l < n ? -1 : 0;
	return _mm256_setr_epi64x(m[0], m[1], m[2], m[3]);
}

/* Row i of a batch of n blocks: blocks 4i..4i+3 from in, or with prev
 * (CFB decryption's input, a block behind) blocks 4i-1..4i+2, *prev before
 * the first; blocks at n and after read as zeros. */
TGT static inline V in256_row(const uint8_t *in, size_t i, size_t n, const uint64_t *prev)
{
	size_t b0 = 4 * i;
	if (prev && i == 0) {
		V c = n >= 5 ? _mm256_loadu_si256((const void *)in)
			     : _mm256_maskload_epi64((const long long *)(const void *)in, lanes(0, n - 1));
		c = _mm256_permute4x64_epi64(c, 0x93); /* c3 c0 c1 c2 */
		return _mm256_blend_epi32(c, _mm256_set1_epi64x((long long)*prev), 0x03);
	}
	if (prev) { /* one block back: block b of the batch is in's block b - 1 */
		b0 -= 1;
		n -= 1;
	}
	if (b0 + 4 <= n)
		return _mm256_loadu_si256((const void *)(in + 8 * b0));
	if (b0 < n)
		return _mm256_maskload_epi64((const long long *)(const void *)(in + 8 * b0), lanes(b0, n));
	return _mm256_setzero_si256();
}

/* Data plane d (FIPS bit d+1) is bit 8(d/8) + 7 - d%8 of the little-endian
 * qword, so transposed row g + 8i of swap_bytes8's group g is plane
 * 8i + 7 - g (after tr_half1_gf: 8g + 7 - i), stored straight to the plane
 * IP makes of it. */
TGT static inline __attribute__((always_inline)) void in256_body(V *st, const uint8_t *in, size_t n,
								   const uint64_t *prev, int gf)
{
	const V mk[3] = BIT_MASKS;
	V m[64], r[8];
	for (int g = 0; g < 8; g++) {
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			r[i] = in256_row(in, (size_t)(8 * g + i), n, prev);
		if (gf)
			tr_half1_gf(m, r, g);
		else
			tr_half1(m, r, g, mk);
	}
	for (int g = 0; g < 8; g++) {
		tr_half2(r, m, g);
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			st[des_bs_ip[gf ? 8 * g + 7 - i : 8 * i + 7 - g]] = r[i];
	}
}

TGT static void in256(V *st, const uint8_t *in, size_t n, const uint64_t *prev)
{
	in256_body(st, in, n, prev, 0);
}

TGT_GF static void in256_gf(V *st, const uint8_t *in, size_t n, const uint64_t *prev)
{
	in256_body(st, in, n, prev, 1);
}

enum { OUT_PLAIN, OUT_XOR, OUT_CBC };

/* Row i of the output (blocks 4i..4i+3, those below n): x as is, XORed
 * with the same blocks of src (OUT_XOR), or with src's blocks a block
 * before (OUT_CBC); *back, if given, is the block before the row, kept
 * because an earlier row's store may have overwritten it. */
TGT static inline void out256_row(uint8_t *out, size_t i, V x, size_t n, int how, const uint8_t *src,
				  const uint64_t *back)
{
	size_t b0 = 4 * i;
	int full = b0 + 4 <= n;
	V mk = full ? _mm256_set1_epi32(-1) : lanes(b0, n);
	if (how == OUT_XOR) {
		V c = full ? _mm256_loadu_si256((const void *)(src + 8 * b0))
			   : _mm256_maskload_epi64((const long long *)(const void *)(src + 8 * b0), mk);
		x = _mm256_xor_si256(x, c);
	} else if (how == OUT_CBC) {
		V prev;
		if (!back) {
			const uint8_t *p = src + 8 * b0 - 8;
			prev = full ? _mm256_loadu_si256((const void *)p)
				    : _mm256_maskload_epi64((const long long *)(const void *)p, mk);
		} else {
			const uint8_t *p = src + 8 * b0;
			V c = full ? _mm256_loadu_si256((const void *)p)
				   : _mm256_maskload_epi64((const long long *)(const void *)p, mk);
			prev = _mm256_permute4x64_epi64(c, 0x93); /* c3 c0 c1 c2 */
			prev = _mm256_blend_epi32(prev, _mm256_set1_epi64x((long long)*back), 0x03);
		}
		x = _mm256_xor_si256(x, prev);
	}
	if (full)
		_mm256_storeu_si256((void *)(out + 8 * b0), x);
	else
		_mm256_maskstore_epi64((long long *)(void *)(out + 8 * b0), mk, x);
}

/* The batch st's n blocks to out (see out256_row; iv is the block before
 * the first for OUT_CBC). swap_bytes8's groups store their rows g + 8i
 * straight to out, last group first: with out == src, a CBC row reads
 * the block before it from the row before, which a later group writes,
 * except in group 0, whose blocks before (32i - 1) are kept first. After
 * tr_half1_gf group g's registers are rows 8g..8g+7, stored last first,
 * so every row's block before is read before it is written. */
TGT static inline __attribute__((always_inline)) void out256_body(uint8_t *out, const V *st, size_t n, int how,
								    const uint8_t *src, uint64_t iv, int gf)
{
	const V mk[3] = BIT_MASKS;
	V m[64], r[8];
	uint64_t keep[8] = { iv };
	for (int g = 0; g < 8; g++) { /* row 8g + i is data plane 8g + 7 - i */
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			r[i] = st[des_bs_fp[8 * g + 7 - i]];
		if (gf)
			tr_half1_gf(m, r, g);
		else
			tr_half1(m, r, g, mk);
	}
	if (how == OUT_CBC && !gf)
		for (size_t i = 1; i < 8 && 32 * i <= n; i++)
			memcpy(&keep[i], src + 8 * (32 * i - 1), 8);
	for (int g = 7; g >= 0; g--) {
		tr_half2(r, m, g);
		if (gf) { /* register i is row 8g + i: rows last first */
			_Pragma("GCC unroll 8")
			for (int i = 7; i >= 0; i--)
				if (4 * (size_t)(8 * g + i) < n)
					out256_row(out, (size_t)(8 * g + i), r[i], n, how, src,
						   g || i ? NULL : &keep[0]);
			continue;
		}
		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++)
			if (4 * (size_t)(g + 8 * i) < n)
				out256_row(out, (size_t)(g + 8 * i), r[i], n, how, src,
					   g ? NULL : &keep[i]);
	}
}

TGT static void out256(uint8_t *out, const V *st, size_t n, int how, const uint8_t *src, uint64_t iv)
{
	out256_body(out, st, n, how, src, iv, 0);
}

TGT_GF static void out256_gf(uint8_t *out, const V *st, size_t n, int how, const uint8_t *src, uint64_t iv)
{
	out256_body(out, st, n, how, src, iv, 1);
}

/* Bit j of the block index b = 4i + l of each lane (lane l, bit i). */
TGT static inline V lane_index_plane(int j)
{
	static const uint64_t pat[6] = {
		0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull, 0xF0F0F0F0F0F0F0F0ull,
		0xFF00FF00FF00FF00ull, 0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull,
	};
	if (j == 0)
		return _mm256_setr_epi64x(0, -1, 0, -1);
	if (j == 1)
		return _mm256_setr_epi64x(0, 0, -1, -1);
	return _mm256_set1_epi64x((long long)pat[j - 2]);
}

TGT static void ctr_planes256(V *st, uint32_t hi, uint32_t lo)
{
	const V ones = _mm256_set1_epi32(-1), zero = _mm256_setzero_si256();
	for (int d = 0; d < 32; d++)
		st[des_bs_ip[d]] = (hi >> (31 - d) & 1) ? ones : zero;
	V carry = zero;
	for (int j = 0; j < 32; j++) {
		V c = (lo >> j & 1) ? ones : zero;
		V x = j < 8 ? lane_index_plane(j) : zero;
		V xc = _mm256_xor_si256(x, c);
		st[des_bs_ip[63 - j]] = _mm256_xor_si256(xc, carry);
		carry = _mm256_or_si256(_mm256_and_si256(x, c), _mm256_and_si256(xc, carry));
	}
}

/* ---- kernel entry points ---------------------------------------------------------- */

/* gf (a constant after inlining) picks the GFNI transposition. */
#define IN256(gf) ((gf) ? in256_gf : in256)
#define OUT256(gf) ((gf) ? out256_gf : out256)

TGT static inline __attribute__((always_inline)) void ecb256(const des_bs_ks *ks, uint8_t *out, const uint8_t *in,
							     size_t n, int dec, int gf)
{
	_Alignas(32) V st[2][64];
	while (n) {
		size_t m[2];
		int nb = fb_des_bs_batches(n, 256, m);
		for (int i = 0; i < nb; i++)
			IN256(gf)(st[i], in + 2048 * i, m[i], NULL);
		crypt256(st[0], nb == 2 ? st[1] : NULL, ks, dec);
		for (int i = 0; i < nb; i++)
			OUT256(gf)(out + 2048 * i, st[i], m[i], OUT_PLAIN, NULL, 0);
		in += 8 * (m[0] + m[1]);
		out += 8 * (m[0] + m[1]);
		n -= m[0] + m[1];
	}
}

TGT static inline __attribute__((always_inline)) void ctr256(const des_bs_ks *ks, uint8_t *out, const uint8_t *in,
							     size_t n, uint8_t *ctr, int gf)
{
	_Alignas(32) V st[2][64];
	uint32_t hi = fb_load32_be(ctr), lo = fb_load32_be(ctr + 4);
	while (n) {
		size_t m[2];
		int nb = fb_des_bs_batches(n, 256, m);
		for (int i = 0; i < nb; i++)
			ctr_planes256(st[i], hi, lo + (uint32_t)(256 * i));
		crypt256(st[0], nb == 2 ? st[1] : NULL, ks, 0);
		for (int i = 0; i < nb; i++)
			OUT256(gf)(out + 2048 * i, st[i], m[i], OUT_XOR, in + 2048 * i, 0);
		lo += (uint32_t)(m[0] + m[1]);
		in += 8 * (m[0] + m[1]);
		out += 8 * (m[0] + m[1]);
		n -= m[0] + m[1];
	}
	fb_store32_be(ctr + 4, lo);
}

/* CBC decryption (cfb 0, P_i = D(C_i) ^ C_i-1) or CFB decryption (cfb 1,
 * P_i = E(C_i-1) ^ C_i) of n blocks, with C_-1 = iv. CFB's input
 * transposition reads C_i-1 from in itself, a block behind. The output
 * goes last block first (in-place safe). */
TGT static inline __attribute__((always_inline)) void chain_dec256(const des_bs_ks *ks, uint8_t *out,
								   const uint8_t *in, size_t n, uint8_t *iv,
								   int cfb, int gf)
{
	_Alignas(32) V st[2][64];
	uint64_t chain;
	memcpy(&chain, iv, 8);
	while (n) {
		size_t m[2];
		int nb = fb_des_bs_batches(n, 256, m);
		uint64_t mid, next; /* the blocks before the second batch and after the step */
		memcpy(&mid, in + 8 * (m[0] - 1), 8); /* before an in-place overwrite */
		memcpy(&next, in + 8 * (m[0] + m[1] - 1), 8);
		for (int i = 0; i < nb; i++)
			IN256(gf)(st[i], in + 2048 * i, m[i], cfb ? (i ? &mid : &chain) : NULL);
		crypt256(st[0], nb == 2 ? st[1] : NULL, ks, !cfb);
		for (int i = 0; i < nb; i++)
			OUT256(gf)(out + 2048 * i, st[i], m[i], cfb ? OUT_XOR : OUT_CBC, in + 2048 * i,
				   i ? mid : chain);
		chain = next;
		in += 8 * (m[0] + m[1]);
		out += 8 * (m[0] + m[1]);
		n -= m[0] + m[1];
	}
	memcpy(iv, &chain, 8);
}

/* The kernel steps of one transposition (suffix sfx). */
#define BS256_STEPS(sfx, gf) \
	TGT static void bs256_encrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		ecb256(ks, out, in, n, 0, gf); \
	} \
	TGT static void bs256_decrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n) \
	{ \
		ecb256(ks, out, in, n, 1, gf); \
	} \
	TGT static void bs256_ctr32##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr) \
	{ \
		ctr256(ks, out, in, n, ctr, gf); \
	} \
	TGT static void bs256_cbc_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		chain_dec256(ks, out, in, n, iv, 0, gf); \
	} \
	TGT static void bs256_cfb_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{ \
		chain_dec256(ks, out, in, n, iv, 1, gf); \
	}

BS256_STEPS(, 0)
BS256_STEPS(_gf, 1)

/* ---- lane engine: every lane its own key (des_bs_lanes.c) ----------------------- */

/* Up to 512 lanes as two batches of 256 (lanes 256h..256h+255 in batch h,
 * bytes 2048h.. of a row), whose rounds alternate as pass256's do. Lane
 * keys in plane form, laid out as des/bs-avx512's (see des_bs_avx512.c):
 * each lane's key transposed like a data block, then the halves C0 and D0
 * after PC1 twice over in 112 planes, so that round r's key bit j is plane
 * des_bs_lk_rot[r] + des_bs_lk_off[j], a constant displacement from one
 * base pointer a round (indexing by a table of key bits cost a load of the
 * index beside each plane's). Planes LK_PLANES.. are their complements,
 * for the rounds whose inputs DES_BS_GATEP's complemented outputs reach.
 * 7 KB per DES key and batch, in L1. */
#define LK_PLANES 112
_Static_assert(sizeof(V[2][3][2 * LK_PLANES]) == DES_BS256_LANE_KEYS, "key plane room");
_Static_assert(2 * 64 * sizeof(V) <= DES_BS_STATE_SIZE, "state room");

TGT static void lane_keys256(void *kpv, const uint8_t *kbuf, size_t nl, unsigned nkeys)
{
	_Alignas(32) uint8_t tmp[8 * 256];
	_Alignas(32) V t[64];
	V(*kp)[3][2 * LK_PLANES] = kpv;
	size_t n[2]; /* lanes in use of each batch */
	fb_des_bs_batches(nl, 256, n);
	for (int h = 0; h < 2 && n[h]; h++) {
		for (unsigned p = 0; p < nkeys; p++) {
			for (size_t l = 0; l < n[h]; l++)
				memcpy(tmp + 8 * l, kbuf + 24 * (256 * (size_t)h + l) + 8 * p, 8);
			in256(t, tmp, n[h], NULL);
			for (int k = 0; k < LK_PLANES; k++) {
				kp[h][p][k] = t[des_bs_lk_src[k]];
				kp[h][p][LK_PLANES + k] = _mm256_xor_si256(t[des_bs_lk_src[k]],
									   _mm256_set1_epi32(-1));
			}
		}
	}
	fb_wipe(tmp, sizeof tmp);
	fb_wipe(t, sizeof t);
}

TGT static void load256(void *planes, const uint8_t *blocks, size_t nl)
{
	V(*s)[64] = planes;
	size_t n[2];
	fb_des_bs_batches(nl, 256, n);
	for (int h = 0; h < 2 && n[h]; h++)
		in256(s[h], blocks + 2048 * h, n[h], NULL);
}

/* Lane group j of a batch (blocks 8j..8j+7) is bits 2j and 2j + 1 of every
 * qword of a plane. */
TGT static void load_groups256(void *planes, const uint8_t *blocks, size_t nl, const uint8_t sel[64])
{
	_Alignas(32) V t[64];
	V(*s)[64] = planes;
	size_t n[2];
	fb_des_bs_batches(nl, 256, n);
	for (int h = 0; h < 2 && n[h]; h++) {
		uint64_t m = 0;
		for (int j = 0; j < 32; j++)
			m |= (uint64_t)(sel[32 * h + j] & 3) << 2 * j;
		V msk = _mm256_set1_epi64x((long long)m);
		in256(t, blocks + 2048 * h, n[h], NULL);
		for (int p = 0; p < 64; p++)
			s[h][p] = _mm256_or_si256(_mm256_and_si256(msk, t[p]), _mm256_andnot_si256(msk, s[h][p]));
	}
	fb_wipe(t, sizeof t);
}

/* ---- gathers and scatters of lane groups (des_bs_common.h) */

/* Transposes the 4x4 qword matrix of rows *a..*d in place. */
TGT static inline void tr4q(V *a, V *b, V *c, V *d)
{
	V t0 = _mm256_unpacklo_epi64(*a, *b), t1 = _mm256_unpackhi_epi64(*a, *b);
	V t2 = _mm256_unpacklo_epi64(*c, *d), t3 = _mm256_unpackhi_epi64(*c, *d);
	*a = _mm256_permute2x128_si256(t0, t2, 0x20);
	*b = _mm256_permute2x128_si256(t1, t3, 0x20);
	*c = _mm256_permute2x128_si256(t0, t2, 0x31);
	*d = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* Transposes the 8x8 qword matrix whose row m is z[2m] (qwords 0-3) and
 * z[2m + 1] (4-7): the diagonal 4x4 blocks in place, the other two
 * transposed and exchanged. */
TGT static inline void tr8x8q(V z[16])
{
	tr4q(&z[0], &z[2], &z[4], &z[6]);
	tr4q(&z[9], &z[11], &z[13], &z[15]);
	tr4q(&z[1], &z[3], &z[5], &z[7]);
	tr4q(&z[8], &z[10], &z[12], &z[14]);
	for (int i = 0; i < 4; i++) {
		V x = z[2 * i + 1];
		z[2 * i + 1] = z[2 * i + 8];
		z[2 * i + 8] = x;
	}
}

/* Eight rows (block steps) of lane group j from the cache line at offset
 * off of each of its eight inputs; missing blocks read as zeros. Whole
 * lines go through the transpose; a group with a lane short of its line
 * (its stream's last or only line) goes qword by qword, which for streams
 * of a block or two costs less than the transpose and vpmaskmovq (slow on
 * AMD). */
TGT static void gather_group(uint8_t *rows, const des_bs_lanes *ln, size_t off, size_t j)
{
	size_t o = fb_des_bs_group_off(ln, j, off);
	if (o != SIZE_MAX && o + 64 <= ln->full[j]) { /* every lane has the whole line */
		V z[16];
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++) {
			const uint8_t *p = ln->in[8 * j + (size_t)m] + o;
			z[2 * m] = _mm256_loadu_si256((const void *)p);
			z[2 * m + 1] = _mm256_loadu_si256((const void *)(p + 32));
		}
		tr8x8q(z);
		_Pragma("GCC unroll 8")
		for (int t = 0; t < 8; t++) {
			uint8_t *row = rows + DES_BS_ROW * (size_t)t + 64 * j;
			_mm256_storeu_si256((void *)row, z[2 * t]);
			_mm256_storeu_si256((void *)(row + 32), z[2 * t + 1]);
		}
		return;
	}
	for (int t = 0; t < 8; t++) {
		uint8_t *row = rows + DES_BS_ROW * (size_t)t + 64 * j;
		_mm256_storeu_si256((void *)row, _mm256_setzero_si256());
		_mm256_storeu_si256((void *)(row + 32), _mm256_setzero_si256());
	}
	for (size_t m = 0; m < 8; m++) {
		size_t b = 8 * j + m, r = fb_des_bs_lane_bytes(ln, b, o);
		for (size_t t = 0; t < 8 && 8 * t + 8 <= r; t++)
			memcpy(rows + DES_BS_ROW * t + 64 * j + 8 * m, ln->in[b] + o + 8 * t, 8);
	}
}

/* The mirror image: eight row pieces back to the lines at offset off of
 * lane group j's outputs, whole blocks only. */
TGT static void scatter_group(const des_bs_lanes *ln, size_t off, const uint8_t *rows, size_t j)
{
	size_t o = fb_des_bs_group_off(ln, j, off);
	if (o != SIZE_MAX && o + 64 <= ln->full[j]) {
		V z[16];
		_Pragma("GCC unroll 8")
		for (int t = 0; t < 8; t++) {
			const uint8_t *row = rows + DES_BS_ROW * (size_t)t + 64 * j;
			z[2 * t] = _mm256_loadu_si256((const void *)row);
			z[2 * t + 1] = _mm256_loadu_si256((const void *)(row + 32));
		}
		tr8x8q(z);
		_Pragma("GCC unroll 8")
		for (int m = 0; m < 8; m++) {
			uint8_t *p = ln->out[8 * j + (size_t)m] + o;
			_mm256_storeu_si256((void *)p, z[2 * m]);
			_mm256_storeu_si256((void *)(p + 32), z[2 * m + 1]);
		}
		return;
	}
	for (size_t m = 0; m < 8; m++) {
		size_t b = 8 * j + m, r = fb_des_bs_lane_bytes(ln, b, o);
		for (size_t t = 0; t < 8 && 8 * t + 8 <= r; t++)
			memcpy(ln->out[b] + o + 8 * t, rows + DES_BS_ROW * t + 64 * j + 8 * m, 8);
	}
}

TGT static void bg_some(des_bs_bg_queue *q)
{
	DES_BS_BG_SOME(q, scatter_group);
}

/* ---- lane rounds and steps */

/* Key bit j of the round: from rf (rk, or its complements in the rounds
 * that undo DES_BS_GATEP's complemented outputs) where des_bs_gatep_flip[j]
 * is set, a constant known where the macro expands. */
#define KXL(p, j) _mm256_xor_si256((p), (des_bs_gatep_flip[j] ? rf : rk)[des_bs_lk_off[j]])

TGT static inline void round256_lanes(V *restrict a, const V *restrict b, const V *rk, const V *rf)
{
	DES_BS_GATEP_ROUND(a, b, KXL);
}

/* Round r's key planes; step s of a pass (0-15, in the order the rounds
 * run) takes the complements where des_bs_gatep_flip says in steps 1, 2,
 * 5, 6, ... (the pass's even steps with i odd, its odd steps with i even:
 * a complemented output reaches the round after and, through L, the round
 * after that). */
#define LROUND(a, b, k, r, flip) \
	round256_lanes(a, b, (k) + des_bs_lk_rot[r], (k) + des_bs_lk_rot[r] + ((flip) ? LK_PLANES : 0))

/* 16 rounds on batch st with the key planes k0, and on su (else NULL)
 * with k1, the two batches' rounds alternating. */
TGT static void pass256l(V *st, V *su, const V *k0, const V *k1, int dec, int swap, des_bs_bg_queue *q)
{
	V *a = swap ? st + 32 : st, *b = swap ? st : st + 32;
	V *c = su && swap ? su + 32 : su, *d = su && !swap ? su + 32 : su;
	for (int i = 0; i < 8; i++) {
		int r0 = dec ? 15 - 2 * i : 2 * i, r1 = dec ? 14 - 2 * i : 2 * i + 1;
		LROUND(a, b, k0, r0, i & 1);
		if (su)
			LROUND(c, d, k1, r0, i & 1);
		LROUND(b, a, k0, r1, !(i & 1));
		if (su)
			LROUND(d, c, k1, r1, !(i & 1));
		bg_some(q);
	}
}

TGT static void crypt256l(V (*st)[64], int nb, const V (*kp)[3][2 * LK_PLANES], unsigned nkeys, int dec,
			  des_bs_bg_queue *q)
{
	V *su = nb == 2 ? st[1] : NULL;
	if (nkeys == 1) {
		pass256l(st[0], su, kp[0][0], kp[1][0], dec, 0, q);
	} else if (!dec) {
		pass256l(st[0], su, kp[0][0], kp[1][0], 0, 0, q);
		pass256l(st[0], su, kp[0][1], kp[1][1], 1, 1, q);
		pass256l(st[0], su, kp[0][2], kp[1][2], 0, 0, q);
	} else {
		pass256l(st[0], su, kp[0][2], kp[1][2], 1, 0, q);
		pass256l(st[0], su, kp[0][1], kp[1][1], 0, 1, q);
		pass256l(st[0], su, kp[0][0], kp[1][0], 1, 0, q);
	}
}

/* multi_steps256's scratch (the caller's, wiped by it at the end). */
typedef struct ms_work {
	V st[2][2][64];
} ms_work;
_Static_assert(sizeof(ms_work) <= DES_BS_WORK_SIZE, "DES_BS_WORK_SIZE");

/* The batches' output rows: each batch's planes to its lanes of out, XORed
 * with the same lanes of src (OUT_XOR) or as they are (src NULL); gf picks
 * the GFNI transposition, as in the kernel entry points. */
TGT static inline void out_rows(uint8_t *out, V (*st)[64], const size_t n[2], const uint8_t *src, int gf)
{
	for (int h = 0; h < 2 && n[h]; h++)
		OUT256(gf)(out + 2048 * h, st[h], n[h], src ? OUT_XOR : OUT_PLAIN, src ? src + 2048 * h : NULL, 0);
}

TGT static inline void in_rows(V (*st)[64], const uint8_t *in, const size_t n[2], int gf)
{
	for (int h = 0; h < 2 && n[h]; h++)
		IN256(gf)(st[h], in + 2048 * h, n[h], NULL);
}

TGT static inline __attribute__((always_inline)) void
multi_steps_body(const void *kpv, unsigned nkeys, int mode, int enc, void *sv, const uint8_t *prev,
		 const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl, const des_bs_bg *bg, void *work, int gf)
{
	ms_work *mw = work;
	const V(*kp)[3][2 * LK_PLANES] = kpv;
	V(*s)[64] = sv;
	size_t n[2]; /* lanes in use of each batch */
	int nb = fb_des_bs_batches(nl, 256, n);
	des_bs_bg_queue q = { bg, 0, 0, bg ? bg->ln->ng : 0, 0 };
	size_t slots = nsteps * nkeys * 8;
	q.per = slots ? (q.ng + slots - 1) / slots : 0;
	for (size_t t = 0; t < nsteps; t++, in += DES_BS_ROW, out += DES_BS_ROW) {
		const uint8_t *pr = t ? in - DES_BS_ROW : prev; /* the row before this one */
		V(*cur)[64] = mw->st[t & 1];
		if (mode == FB_CBC && enc) { /* C = E(P ^ C') */
			in_rows(cur, in, n, gf);
			for (int h = 0; h < nb; h++) {
				const V *c = t ? mw->st[(t - 1) & 1][h] : s[h];
				unsigned cs = t ? 32 : 0; /* C' as preoutput planes: halves swapped */
				for (unsigned p = 0; p < 64; p++)
					cur[h][p] = _mm256_xor_si256(cur[h][p], c[p ^ cs]);
			}
			crypt256l(cur, nb, kp, nkeys, 0, &q);
			out_rows(out, cur, n, NULL, gf);
			if (t + 1 == nsteps)
				for (int h = 0; h < nb; h++)
					fb_des_bs_chain_from(s[h], cur[h], sizeof(V));
		} else if (mode == FB_CBC) { /* P = D(C) ^ C' */
			in_rows(cur, in, n, gf);
			crypt256l(cur, nb, kp, nkeys, 1, &q);
			out_rows(out, cur, n, pr, gf);
		} else if (mode == FB_CFB && enc) { /* C = P ^ E(C') */
			crypt256l(s, nb, kp, nkeys, 0, &q);
			out_rows(out, s, n, in, gf);
			in_rows(s, out, n, gf);
		} else if (mode == FB_CFB) { /* P = C ^ E(C') */
			in_rows(cur, pr, n, gf);
			crypt256l(cur, nb, kp, nkeys, 0, &q);
			out_rows(out, cur, n, in, gf);
		} else { /* OFB: O = E(O'), C = P ^ O */
			for (int h = 0; h < nb; h++)
				memcpy(cur[h], s[h], sizeof cur[h]);
			crypt256l(cur, nb, kp, nkeys, 0, &q);
			out_rows(out, cur, n, in, gf);
			for (int h = 0; h < nb; h++)
				fb_des_bs_chain_from(s[h], cur[h], sizeof(V));
		}
	}
	q.per = q.ng; /* what the rounds did not take */
	bg_some(&q);
}

TGT static void multi_steps256(const void *kp, unsigned nkeys, int mode, int enc, void *state, const uint8_t *prev,
			       const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl, const des_bs_bg *bg,
			       void *work)
{
	multi_steps_body(kp, nkeys, mode, enc, state, prev, in, out, nsteps, nl, bg, work, 0);
}

TGT static void multi_steps256_gf(const void *kp, unsigned nkeys, int mode, int enc, void *state,
				  const uint8_t *prev, const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl,
				  const des_bs_bg *bg, void *work)
{
	multi_steps_body(kp, nkeys, mode, enc, state, prev, in, out, nsteps, nl, bg, work, 1);
}

/* Both transpositions make the same planes, so the setup steps are shared;
 * des/bs-avx2-gfni's engine transposes its block steps by GFNI. */
#define BS256_LANE_OPS(steps) \
	.lane_keys = lane_keys256, .load = load256, .load_groups = load_groups256, \
	.gather_group = gather_group, .scatter_group = scatter_group, .multi_steps = steps
const des_bs_lane_ops fb_des_bs256_ops = { BS256_LANE_OPS(multi_steps256) };
const des_bs_lane_ops fb_des_bs256_gf_ops = { BS256_LANE_OPS(multi_steps256_gf) };

/* Key setup: the round-key words of des_bs_ks.rk, eight at a time
 * (variable shifts of the key's halves). Constant-time. */
TGT static void schedule256(uint32_t *rk, const uint8_t key[8])
{
	uint64_t k = fb_load64_be(key);
	const V hi = _mm256_set1_epi32((int)(uint32_t)(k >> 32)), lo = _mm256_set1_epi32((int)(uint32_t)k);
	const V one = _mm256_set1_epi32(1), bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	for (int i = 0; i < 16 * 48; i += 8) {
		V sh = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)(des_bs_key_shift + i)));
		int m = des_bs_key_hi[i / 16] >> (i % 16) & 0xFF;
		V use_hi = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(m), bits), bits);
		V x = _mm256_blendv_epi8(_mm256_srlv_epi32(lo, sh), _mm256_srlv_epi32(hi, sh), use_hi);
		x = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(x, one));
		_mm256_storeu_si256((void *)(rk + i), x);
	}
	/* public positions: DES_BS_GATEP_ROUND's complemented outputs */
	for (int r = 1; r < 16; r += (r & 1) ? 1 : 3) /* 1, 2, 5, 6, ... 13, 14 */
		for (int j = 0; j < 48; j++)
			rk[48 * r + j] ^= 0u - des_bs_gatep_flip[j];
}

TGT static int setkey256(void *ksp, const uint8_t *key, size_t keylen)
{
	des_bs_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	FB_DES_SCHEDULES(schedule256, ks->rk, key, keylen);
	return FB_OK;
}


/* Two kernels, one per transposition; des/bs-avx2-gfni, for the AVX2
 * CPUs with GFNI (Intel's client cores from Alder Lake), transposes each
 * qword's bits with vgf2p8affineqb (tr_half1_gf), in its multi-stream
 * engine's block steps too. Both share the schedule. */
#define BS256_KERNEL(sfx) \
	.family = "des", .block_size = 8, .constant_time = 1, .batch = 256, .ks_size = DES_BS_KS_MAX, \
	.ks_bytes = fb_des_bs_ks_bytes, .setkey = setkey256, .fills_schedule = 1, \
	.encrypt = bs256_encrypt##sfx, .decrypt = bs256_decrypt##sfx, .ctr32 = bs256_ctr32##sfx, \
	.cbc_dec = bs256_cbc_dec##sfx, .cfb_dec = bs256_cfb_dec##sfx, .lanes = &fb_des_bs256##sfx##_lanes

const fb_kernel fb_des_bs_avx2 = {
	.name = "des/bs-avx2",
	.cpu_needs = FB_CPU_AVX2,
	.note = "bitsliced, 256 blocks per batch, and/or/xor/andn S-box circuits",
	BS256_KERNEL(),
};

const fb_kernel fb_des_bs_avx2_gfni = {
	.name = "des/bs-avx2-gfni",
	.cpu_needs = FB_CPU_AVX2 | FB_CPU_GFNI,
	.note = "des/bs-avx2 with each qword's 8x8 bits transposed by GFNI (5 operations a row each way, not 9)",
	BS256_KERNEL(_gf),
};

#endif /* FB_X86 */
