/*
 * twofish/avx512-gfni and twofish/avx512-gfni-ct: 64 blocks per step as two
 * independent sets of two groups of 16 (one block per 32-bit lane, one zmm
 * per state word and group).
 *
 * Per half-round the four g() inputs of a set (R0 and R1 <<< 8 of each
 * group) are regrouped by byte position with shifts and bit-selects (a
 * 4x4 byte transpose inside every 32-bit lane, the <<< 8 folded in): four
 * zmm each holding only byte i of 64 words. Each goes through its
 * key-dependent S-box s_i, a 256-byte table: two vpermt2b over 128 entries
 * and a blend on the top bit. The MDS multiply works on the byte-sliced
 * values: products by 0x5B and 0xEF are vgf2p8affineqb (multiplication by
 * a constant is GF(2)-linear), sums are XORs. The same transpose puts the
 * bytes back into words for the PHT (vpaddd) and the rotations (vprold).
 *
 * Budget per set and half-round (32 block-rounds): 88 vector-port slots
 * (Intel zmm: ports 0 and 5 only): lookups 24 (vpermt2b takes two port-5
 * cycles), regroup and ungroup 16 each, MDS 16, PHT/whitening/rotations 16,
 * i.e. about 44 cycles, 1.4 cycles per byte. Regrouping with byte permutes
 * instead (vpermt2b + vshufi64x2, 12 slots each way, all on port 5) measured
 * the same; the shifts leave port 5 to the lookups. Two sets, because one
 * set's half-round is a ~30-cycle dependency chain that the other set's work
 * hides; the S-box tables stay in memory (loads are cheap, registers not).
 *
 * twofish/avx512-gfni-ct is constant-time: no memory address and no branch
 * depends on key or data (the S-boxes are looked up by register permutes,
 * short inputs run the same 32-lane code with masked loads and stores), and
 * its key setup is constant-time too (q by permutes, RS by masked XORs).
 * twofish/avx512-gfni is the same code on a schedule that also holds
 * full-keying tables for twofish/table-avx512, its ladder's narrow rung
 * (faster for short runs, not constant-time).
 */
#include "twofish_impl.h"
#include "../block128_simd.h"
#include "../xts_avx512.h"
#include "twofish_tables.h"

#if FB_X86
#include <immintrin.h>

#define TF_AVX512 FB_TARGET("avx512f,avx512bw,avx512vl,avx512vbmi,gfni")
#define TF_INLINE static inline __attribute__((always_inline))

/* ---- byte-regrouping permutes ------------------------------------------- */

/* Index vectors for tf_ungroup's second level: word lane l, byte p of the
 * result for source word vector r (0 or 1) comes from byte 32(p mod 2) +
 * 16r + l of the first (p < 2) or second (p >= 2) operand. */
struct tf_idx {
	uint8_t t0[64], t1[64];
};

static const struct tf_idx tf_idx __attribute__((aligned(64))) = {
#define TF_T(q, r) (64 * (((q) & 3) >> 1) + 32 * ((q) & 1) + 16 * (r) + ((q) >> 2))
#define TF_ROW(F, a) F(a), F(a + 1), F(a + 2), F(a + 3), F(a + 4), F(a + 5), F(a + 6), F(a + 7)
#define TF_ALL(F) TF_ROW(F, 0), TF_ROW(F, 8), TF_ROW(F, 16), TF_ROW(F, 24), \
		  TF_ROW(F, 32), TF_ROW(F, 40), TF_ROW(F, 48), TF_ROW(F, 56)
#define TF_T0(q) TF_T(q, 0)
#define TF_T1(q) TF_T(q, 1)
	{ TF_ALL(TF_T0) },
	{ TF_ALL(TF_T1) },
#undef TF_T
#undef TF_T0
#undef TF_T1
#undef TF_ROW
#undef TF_ALL
};

/* y = t[x] for a 256-byte table t: two 128-entry permutes and a blend on
 * the top bit of x. (vpermt2b costs two port-5 cycles on Intel; four
 * 64-entry vpermb with three blends would cost more.) */
TF_AVX512 TF_INLINE __m512i tf_lookup(__m512i x, const uint8_t *t)
{
	__mmask64 top = _mm512_movepi8_mask(x);
	__m512i lo = _mm512_permutex2var_epi8(_mm512_load_si512(t), x, _mm512_load_si512(t + 64));
	__m512i hi = _mm512_permutex2var_epi8(_mm512_load_si512(t + 128), x, _mm512_load_si512(t + 192));
	return _mm512_mask_blend_epi8(top, lo, hi);
}

/* a ^ b ^ c ^ d as (a ^ d) ^ b ^ c: the vpxord waits 1 cycle on either input,
 * and its result goes to the vpternlogd's first operand (see tf_sel), so the
 * sum is ready 2 cycles after the last of the MDS products, not 3. */
TF_AVX512 TF_INLINE __m512i tf_xor4(__m512i a, __m512i b, __m512i c, __m512i d)
{
	return _mm512_ternarylogic_epi32(_mm512_xor_si512(a, d), b, c, 0x96);
}

/* z = MDS * y on byte-sliced values (y[i] = all bytes of position i). */
TF_AVX512 TF_INLINE void tf_mds(__m512i z[4], const __m512i y[4])
{
	const __m512i m5b = _mm512_set1_epi64((long long)TWOFISH_AFFINE_MUL5B);
	const __m512i mef = _mm512_set1_epi64((long long)TWOFISH_AFFINE_MULEF);
	__m512i b0 = _mm512_gf2p8affine_epi64_epi8(y[0], m5b, 0);
	__m512i b1 = _mm512_gf2p8affine_epi64_epi8(y[1], m5b, 0);
	__m512i b2 = _mm512_gf2p8affine_epi64_epi8(y[2], m5b, 0);
	__m512i b3 = _mm512_gf2p8affine_epi64_epi8(y[3], m5b, 0);
	__m512i c0 = _mm512_gf2p8affine_epi64_epi8(y[0], mef, 0);
	__m512i c1 = _mm512_gf2p8affine_epi64_epi8(y[1], mef, 0);
	__m512i c2 = _mm512_gf2p8affine_epi64_epi8(y[2], mef, 0);
	__m512i c3 = _mm512_gf2p8affine_epi64_epi8(y[3], mef, 0);
	/* rows of MDS: 01 EF 5B 5B / 5B EF EF 01 / EF 5B 01 EF / EF 01 EF 5B */
	z[0] = tf_xor4(y[0], c1, b2, b3);
	z[1] = tf_xor4(b0, c1, c2, y[3]);
	z[2] = tf_xor4(c0, b1, y[2], c3);
	z[3] = tf_xor4(c0, y[1], c2, b3);
}

/* Byte-sliced z[0..3] (64 bytes each) to four word vectors (key setup):
 * w[r] lane l = bytes z[0..3][16r + l]. */
TF_AVX512 TF_INLINE void tf_ungroup(__m512i w[4], const __m512i z[4])
{
	const __m512i t0 = _mm512_load_si512(tf_idx.t0), t1 = _mm512_load_si512(tf_idx.t1);
	__m512i ae = _mm512_shuffle_i64x2(z[0], z[1], 0x44), ao = _mm512_shuffle_i64x2(z[2], z[3], 0x44);
	__m512i be = _mm512_shuffle_i64x2(z[0], z[1], 0xEE), bo = _mm512_shuffle_i64x2(z[2], z[3], 0xEE);
	w[0] = _mm512_permutex2var_epi8(ae, t0, ao);
	w[1] = _mm512_permutex2var_epi8(ae, t1, ao);
	w[2] = _mm512_permutex2var_epi8(be, t0, bo);
	w[3] = _mm512_permutex2var_epi8(be, t1, bo);
}

/* (m & x) | (~m & y), bitwise. On AMD Zen 4 vpternlogd's result waits 1
 * cycle on its first (destination) operand and ~2 on the others, so the
 * input that arrives last goes first: tf_sel_x when x does (a rotation),
 * tf_sel_y when y does. */
TF_AVX512 TF_INLINE __m512i tf_sel(__m512i m, __m512i x, __m512i y)
{
	return _mm512_ternarylogic_epi32(m, x, y, 0xCA);
}

TF_AVX512 TF_INLINE __m512i tf_sel_x(__m512i m, __m512i x, __m512i y)
{
	return _mm512_ternarylogic_epi32(x, m, y, 0xE2);
}

TF_AVX512 TF_INLINE __m512i tf_sel_y(__m512i m, __m512i x, __m512i y)
{
	return _mm512_ternarylogic_epi32(y, m, x, 0xB8);
}

/* For each set s < ns: t[s][0] = g(x[s][0]), t[s][1] = g(x[s][1] <<< 8) of
 * group a, t[s][2], t[s][3] likewise of group b.
 *
 * Regrouping by shifts and bit-selects inside each 32-bit lane (a 4x4 byte
 * transpose across the four registers): y[j] lane l holds byte j of x0,
 * x1 <<< 8, x2, x3 <<< 8 (lane l) in its bytes 0..3. The ungrouping is the
 * same transpose. Port 5 is left to the lookups.
 *
 * The sets are processed stage by stage, interleaved, so that the
 * scheduler always holds independent work of the other set. */
TF_AVX512 TF_INLINE void tf_g(const uint8_t (*sb)[256], __m512i x[][4], __m512i t[][4], int ns)
{
	const __m512i hi16 = _mm512_set1_epi32((int)0xFFFF0000u), odd = _mm512_set1_epi32((int)0xFF00FF00u);
	__m512i y[2][4], z[2][4];
	#pragma GCC unroll 2
	for (int s = 0; s < ns; s++) {
		/* level 1: 16-bit halves between x0/x2 and x1/x3 */
		__m512i a = tf_sel_x(hi16, _mm512_rol_epi32(x[s][2], 16), x[s][0]); /* a0 a1 c0 c1 */
		__m512i c = tf_sel_y(hi16, x[s][2], _mm512_ror_epi32(x[s][0], 16)); /* a2 a3 c2 c3 */
		__m512i b = tf_sel_x(hi16, _mm512_rol_epi32(x[s][3], 16), x[s][1]); /* b0 b1 d0 d1 */
		__m512i d = tf_sel_y(hi16, x[s][3], _mm512_ror_epi32(x[s][1], 16)); /* b2 b3 d2 d3 */
		/* level 2: bytes; x1 and x3 enter rotated by 8 (byte j-1 at j) */
		y[s][0] = tf_sel(odd, d, a);
		y[s][1] = tf_sel(odd, _mm512_slli_epi32(b, 8), _mm512_srli_epi32(a, 8));
		y[s][2] = tf_sel(odd, b, c);
		y[s][3] = tf_sel(odd, _mm512_slli_epi32(d, 8), _mm512_srli_epi32(c, 8));
	}
	#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		#pragma GCC unroll 2
		for (int s = 0; s < ns; s++)
			y[s][j] = tf_lookup(y[s][j], sb[j]);
	}
	#pragma GCC unroll 2
	for (int s = 0; s < ns; s++)
		tf_mds(z[s], y[s]);
	#pragma GCC unroll 2
	for (int s = 0; s < ns; s++) {
		/* z[j] byte r = byte j of the result for input r: transpose back */
		__m512i z0 = tf_sel(hi16, _mm512_rol_epi32(z[s][2], 16), z[s][0]);
		__m512i z2 = tf_sel(hi16, z[s][2], _mm512_ror_epi32(z[s][0], 16));
		__m512i z1 = tf_sel(hi16, _mm512_rol_epi32(z[s][3], 16), z[s][1]);
		__m512i z3 = tf_sel(hi16, z[s][3], _mm512_ror_epi32(z[s][1], 16));
		t[s][0] = tf_sel(odd, _mm512_slli_epi32(z1, 8), z0);
		t[s][1] = tf_sel(odd, z1, _mm512_srli_epi32(z0, 8));
		t[s][2] = tf_sel(odd, _mm512_slli_epi32(z3, 8), z2);
		t[s][3] = tf_sel(odd, z3, _mm512_srli_epi32(z2, 8));
	}
}

/* ---- rounds ----------------------------------------------------------------- */

/* State: up to two independent sets of two groups; set s holds words 0..3
 * of group a in v[8s..8s+3] and of group b in v[8s+4..8s+7]. The sets
 * share nothing, so one set's shuffles fill the other's latency: a
 * half-round of one set is a ~35-cycle chain but only ~40 cycles of port
 * work, and the two groups of a set are fused in the same byte-sliced
 * registers, so a set alone cannot hide its own latency. */
TF_AVX512 TF_INLINE void tf_half(const uint8_t (*sb)[256], __m512i *v, int ns, int dec, int a, int b,
				 int c, int d, const uint32_t *k)
{
	const __m512i k0 = _mm512_set1_epi32((int)k[0]), k1 = _mm512_set1_epi32((int)k[1]);
	__m512i x[2][4], t[2][4];
	#pragma GCC unroll 2
	for (int st = 0; st < ns; st++) {
		x[st][0] = v[8 * st + a];
		x[st][1] = v[8 * st + b];
		x[st][2] = v[8 * st + 4 + a];
		x[st][3] = v[8 * st + 4 + b];
	}
	tf_g(sb, x, t, ns);
	#pragma GCC unroll 2
	for (int st = 0; st < ns; st++) {
		__m512i *w = v + 8 * st;
		#pragma GCC unroll 2
		for (int g = 0; g < 8; g += 4) {
			__m512i s = _mm512_add_epi32(t[st][g / 2], t[st][g / 2 + 1]);
			__m512i f0 = _mm512_add_epi32(s, k0);
			__m512i f1 = _mm512_add_epi32(_mm512_add_epi32(s, t[st][g / 2 + 1]), k1);
			if (dec) {
				w[g + c] = _mm512_xor_si512(_mm512_rol_epi32(w[g + c], 1), f0);
				w[g + d] = _mm512_ror_epi32(_mm512_xor_si512(w[g + d], f1), 1);
			} else {
				w[g + c] = _mm512_ror_epi32(_mm512_xor_si512(w[g + c], f0), 1);
				w[g + d] = _mm512_xor_si512(_mm512_rol_epi32(w[g + d], 1), f1);
			}
		}
	}
}

/* Whitening with k[i..i+3] on words in order (w0, w1, w2, w3) of every group. */
TF_AVX512 TF_INLINE void tf_whiten(__m512i *v, int ns, const uint32_t *k)
{
	#pragma GCC unroll 16
	for (int i = 0; i < 8 * ns; i++)
		v[i] = _mm512_xor_si512(v[i], _mm512_set1_epi32((int)k[i & 3]));
}

/* Swaps word pairs (0,1) <-> (2,3) of every group. */
TF_AVX512 TF_INLINE void tf_swap_halves(__m512i *v, int ns)
{
	#pragma GCC unroll 4
	for (int g = 0; g < 8 * ns; g += 4) {
		__m512i x = v[g], y = v[g + 1];
		v[g] = v[g + 2];
		v[g + 1] = v[g + 3];
		v[g + 2] = x;
		v[g + 3] = y;
	}
}

/* Rounds r .. r + 3 (r even; decryption: r + 2 down to r), four halves. */
TF_AVX512 TF_INLINE void tf_rounds4(const twofish_vperm_ks *ks, __m512i *v, int ns, int dec, int r)
{
	const uint32_t *k = ks->k;
	if (!dec) {
		tf_half(ks->sb, v, ns, 0, 0, 1, 2, 3, k + 8 + 2 * r);
		tf_half(ks->sb, v, ns, 0, 2, 3, 0, 1, k + 10 + 2 * r);
		tf_half(ks->sb, v, ns, 0, 0, 1, 2, 3, k + 12 + 2 * r);
		tf_half(ks->sb, v, ns, 0, 2, 3, 0, 1, k + 14 + 2 * r);
	} else {
		tf_half(ks->sb, v, ns, 1, 2, 3, 0, 1, k + 14 + 2 * r);
		tf_half(ks->sb, v, ns, 1, 0, 1, 2, 3, k + 12 + 2 * r);
		tf_half(ks->sb, v, ns, 1, 2, 3, 0, 1, k + 10 + 2 * r);
		tf_half(ks->sb, v, ns, 1, 0, 1, 2, 3, k + 8 + 2 * r);
	}
}

/* 16 rounds with whitening: plaintext words in, ciphertext words out (in
 * order), or the reverse for dec. A step of one set unrolls all rounds
 * (~17 KB of code); a step of two would be ~35 KB, more than the L1
 * instruction cache, so it loops over four rounds at a time (Zen 5, two
 * sets: 8 KB 0.98 of the time, 2 KB 0.72; one set unrolled: 256 B-1 KB
 * 0.89-0.96 of the looped code's time). */
TF_AVX512 TF_INLINE void tf_crypt_words(const twofish_vperm_ks *ks, __m512i *v, int ns, int dec)
{
	const uint32_t *k = ks->k;
	tf_whiten(v, ns, dec ? k + 4 : k);
	if (dec)
		tf_swap_halves(v, ns);
	if (ns == 1) {
		#pragma GCC unroll 4
		for (int i = 0; i < 4; i++)
			tf_rounds4(ks, v, ns, dec, dec ? 12 - 4 * i : 4 * i);
	} else {
		#pragma GCC unroll 1
		for (int i = 0; i < 4; i++)
			tf_rounds4(ks, v, ns, dec, dec ? 12 - 4 * i : 4 * i);
	}
	if (!dec)
		tf_swap_halves(v, ns);
	tf_whiten(v, ns, dec ? k : k + 4);
}

/* 4x4 transpose of 32-bit words inside each 128-bit lane: four zmm of four
 * blocks each <-> four zmm of one word each (self-inverse). Word lane 4L+j
 * belongs to block 4j+L of the 16. */
TF_AVX512 TF_INLINE void tf_transpose(__m512i *v)
{
	FB_TRANSPOSE4_IN_LANES(__m512i, _mm512, v[0], v[1], v[2], v[3]);
}

TF_AVX512 TF_INLINE void tf_transpose_all(__m512i *v, int ns)
{
	#pragma GCC unroll 4
	for (int g = 0; g < 8 * ns; g += 4)
		tf_transpose(v + g);
}

/* Mask of the 32-bit elements of zmm j (blocks 4j..4j+3) when only n
 * blocks exist. */
TF_INLINE __mmask16 tf_tail_mask(size_t n, int j)
{
	size_t have = n > 4u * (size_t)j ? n - 4u * (size_t)j : 0;
	return have >= 4 ? (__mmask16)0xFFFF : (__mmask16)((1u << (4 * have)) - 1);
}

/* Loads m <= 32 ns blocks (missing ones read as zero, never touched). */
TF_AVX512 TF_INLINE void tf_load(__m512i *x, const uint8_t *in, size_t m, int ns)
{
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++)
		x[j] = m == 32u * (size_t)ns ? _mm512_loadu_si512(in + 64 * j)
					     : _mm512_maskz_loadu_epi32(tf_tail_mask(m, j), in + 64 * j);
}

TF_AVX512 TF_INLINE void tf_store(uint8_t *out, const __m512i *x, size_t m, int ns)
{
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++) {
		if (m == 32u * (size_t)ns)
			_mm512_storeu_si512(out + 64 * j, x[j]);
		else
			_mm512_mask_storeu_epi32(out + 64 * j, tf_tail_mask(m, j), x[j]);
	}
}

/* One ECB step of m <= 32 ns blocks. */
TF_AVX512 TF_INLINE void tf_ecb_step(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in,
				     size_t m, int ns, int dec)
{
	__m512i v[16];
	tf_load(v, in, m, ns);
	tf_transpose_all(v, ns);
	tf_crypt_words(ks, v, ns, dec);
	tf_transpose_all(v, ns);
	tf_store(out, v, m, ns);
}

/* Steps of 64 blocks (two sets), then the tail with one or two sets. */
TF_AVX512 TF_INLINE void tf_ecb(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in,
				size_t n, int dec)
{
	for (; n >= 64; n -= 64, in += 1024, out += 1024)
		tf_ecb_step(ks, out, in, 64, 2, dec);
	if (n > 32)
		tf_ecb_step(ks, out, in, n, 2, dec);
	else if (n)
		tf_ecb_step(ks, out, in, n, 1, dec);
}

/* CTR: the counter blocks are built in transposed form (words 0..2 are the
 * same in every block; word 3 is the byte-swapped big-endian counter plus
 * the block's index), so only the keystream is transposed. */
TF_AVX512 TF_INLINE void tf_ctr_step(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in,
				     size_t m, int ns, const uint8_t *ctr, uint32_t c)
{
	/* block index of word lane 4L+j is 4j+L (see tf_transpose) */
	const __m512i lane_idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
	const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203);
	__m512i base = _mm512_add_epi32(_mm512_set1_epi32((int)c), lane_idx), v[16], x[16];
	#pragma GCC unroll 4
	for (int g = 0; g < 8 * ns; g += 4) {
		v[g] = _mm512_set1_epi32((int)fb_load32_le(ctr));
		v[g + 1] = _mm512_set1_epi32((int)fb_load32_le(ctr + 4));
		v[g + 2] = _mm512_set1_epi32((int)fb_load32_le(ctr + 8));
		v[g + 3] = _mm512_shuffle_epi8(_mm512_add_epi32(base, _mm512_set1_epi32(4 * g)), bswap);
	}
	tf_crypt_words(ks, v, ns, 0);
	tf_transpose_all(v, ns);
	tf_load(x, in, m, ns);
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++)
		x[j] = _mm512_xor_si512(x[j], v[j]);
	tf_store(out, x, m, ns);
}

TF_AVX512 static void tf512_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				  uint8_t *ctr)
{
	uint32_t c = fb_load32_be(ctr + 12);
	for (; n >= 64; n -= 64, in += 1024, out += 1024, c += 64)
		tf_ctr_step(ks, out, in, 64, 2, ctr, c);
	if (n > 32)
		tf_ctr_step(ks, out, in, n, 2, ctr, c);
	else if (n)
		tf_ctr_step(ks, out, in, n, 1, ctr, c);
	fb_store32_be(ctr + 12, c + (uint32_t)n);
}

/* CBC decryption (cfb 0), plaintext i = D(C_i) ^ C_{i-1}, or CFB
 * decryption (cfb 1), plaintext i = E(C_{i-1}) ^ C_i. The ciphertext
 * shifted by a block (CBC's XOR, CFB's cipher input) is joined from
 * registers loaded before any store, so out == in works; prev carries the
 * block before (in its top 128 bits) between steps. CFB through the
 * generic path (a copy of the shifted ciphertext, then ECB) ran at 0.92x
 * CBC's speed at 8 KB (Sapphire Rapids class). */
TF_AVX512 TF_INLINE __m512i tf_chain_step(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in,
					  size_t m, int ns, __m512i prev, const int cfb)
{
	__m512i v[16], x[16], sh[16];
	tf_load(x, in, m, ns);
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++) {
		sh[j] = _mm512_alignr_epi64(x[j], j ? x[j - 1] : prev, 6);
		v[j] = cfb ? sh[j] : x[j];
	}
	__m512i last = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(in + 16 * (m - 1))));
	tf_transpose_all(v, ns);
	tf_crypt_words(ks, v, ns, !cfb);
	tf_transpose_all(v, ns);
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++)
		v[j] = _mm512_xor_si512(v[j], cfb ? x[j] : sh[j]);
	tf_store(out, v, m, ns);
	return last;
}

TF_AVX512 TF_INLINE void tf_chain_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv,
				      const int cfb)
{
	__m512i prev = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)iv));
	for (; n >= 64; n -= 64, in += 1024, out += 1024)
		prev = tf_chain_step(ks, out, in, 64, 2, prev, cfb);
	if (n > 32)
		prev = tf_chain_step(ks, out, in, n, 2, prev, cfb);
	else if (n)
		prev = tf_chain_step(ks, out, in, n, 1, prev, cfb);
	_mm_storeu_si128((__m128i *)iv, _mm512_castsi512_si128(prev));
}

TF_AVX512 static void tf512_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				    uint8_t *iv)
{
	tf_chain_dec(ks, out, in, n, iv, 0);
}

TF_AVX512 static void tf512_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				    uint8_t *iv)
{
	tf_chain_dec(ks, out, in, n, iv, 1);
}

/* XTS (IEEE 1619): block i is E(P_i ^ T_i) ^ T_i with T_i = T * alpha^i in
 * GF(2^128), little-endian. Tweaks are made four at a time (one per 128-bit
 * lane) and advanced by alpha^4 (fb_xts512_mul_alpha, xts_avx512.h). */
/* One XTS step of m <= 32 ns blocks with tweaks t4 (blocks 0..3) onwards;
 * returns the tweaks of the 32 ns blocks that follow. */
TF_AVX512 TF_INLINE __m512i tf_xts_step(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in,
					size_t m, int ns, int dec, __m512i t4)
{
	__m512i v[16], x[16];
	tf_load(v, in, m, ns);
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++) {
		x[j] = t4;
		v[j] = _mm512_xor_si512(v[j], t4);
		t4 = fb_xts512_mul_alpha(t4, 4);
	}
	tf_transpose_all(v, ns);
	tf_crypt_words(ks, v, ns, dec);
	tf_transpose_all(v, ns);
	#pragma GCC unroll 16
	for (int j = 0; j < 8 * ns; j++)
		v[j] = _mm512_xor_si512(v[j], x[j]);
	tf_store(out, v, m, ns);
	return t4;
}

TF_AVX512 TF_INLINE void tf_xts(const twofish_vperm_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
				uint8_t *tweak, int dec)
{
	uint64_t lo, hi;
	__m512i t4 = fb_xts512_first(tweak);
	for (; n >= 64; n -= 64, in += 1024, out += 1024)
		t4 = tf_xts_step(ks, out, in, 64, 2, dec, t4);
	_mm_storeu_si128((__m128i *)tweak, _mm512_castsi512_si128(t4));
	if (n) {
		if (n > 32)
			tf_xts_step(ks, out, in, n, 2, dec, t4);
		else
			tf_xts_step(ks, out, in, n, 1, dec, t4);
		lo = fb_load64_le(tweak), hi = fb_load64_le(tweak + 8);
		for (size_t i = 0; i < n; i++)
			fb_xts_double(&lo, &hi);
		fb_store64_le(tweak, lo);
		fb_store64_le(tweak + 8, hi);
	}
}

TF_AVX512 static void tf512_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				    uint8_t *tweak)
{
	tf_xts(ks, out, in, n, tweak, 0);
}

TF_AVX512 static void tf512_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n,
				    uint8_t *tweak)
{
	tf_xts(ks, out, in, n, tweak, 1);
}

/* ---- key setup ------------------------------------------------------------ */


/* q permutation of each byte position (rows) at each stage: the 256-bit-key
 * stage, the 192-bit one, q_in, q_mid and q_out (paper, figure 2). */
static const uint8_t tf_qsel[4][5] = {
	{ 1, 1, 0, 0, 1 },
	{ 0, 1, 1, 0, 0 },
	{ 0, 0, 0, 1, 1 },
	{ 1, 0, 1, 1, 0 },
};

/* The key-dependent S-box chain of byte position p on every byte of x:
 * stages 4-k..4, key vector lk[j] XORed after stage j (j < 4). */
TF_AVX512 TF_INLINE __m512i tf_chain(int p, unsigned k, __m512i x,
				     const __m512i lk[4])
{
	for (unsigned j = 4 - k; j < 4; j++)
		x = _mm512_xor_si512(tf_lookup(x, twofish_q[tf_qsel[p][j]]), lk[j]);
	return tf_lookup(x, twofish_q[tf_qsel[p][4]]);
}

/* S = RS * key chunk for each of the k 8-byte chunks, as masked XORs of the
 * RS bit-columns (the key bits are mask bits, never addresses). */
TF_AVX512 static uint32_t tf_rs(uint64_t chunk)
{
	__m512i acc = _mm512_setzero_si512();
	#pragma GCC unroll 16
	for (int q = 0; q < 4; q++) {
		__m512i col = _mm512_load_si512(twofish_rs_col + 16 * q);
		acc = _mm512_mask_xor_epi32(acc, (__mmask16)(chunk >> (16 * q)), acc, col);
	}
	__m256i x8 = _mm256_xor_si256(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
	__m128i x4 = _mm_xor_si128(_mm256_castsi256_si128(x8), _mm256_extracti128_si256(x8, 1));
	x4 = _mm_xor_si128(x4, _mm_shuffle_epi32(x4, 0x4E));
	x4 = _mm_xor_si128(x4, _mm_shuffle_epi32(x4, 0xB1));
	return (uint32_t)_mm_cvtsi128_si32(x4);
}

/* Fills sb[4][256] (the byte S-boxes) and k[40]. */
TF_AVX512 static int tf512_schedule(uint8_t sbo[4][256], uint32_t kk[40], const uint8_t *key,
				    size_t keylen)
{
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return FB_ERR_KEY_LENGTH;
	unsigned k = (unsigned)keylen / 8;
	uint32_t me[4], mo[4], sv[4];
	#pragma GCC unroll 16
	for (unsigned i = 0; i < k; i++) {
		me[i] = fb_load32_le(key + 8 * i);
		mo[i] = fb_load32_le(key + 8 * i + 4);
		sv[k - 1 - i] = tf_rs((uint64_t)me[i] | (uint64_t)mo[i] << 32);
	}
	const __m512i iota = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49,
					     48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34,
					     33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19,
					     18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
					     1, 0);

	/* S-boxes: stage j XORs byte p of L_{3-j} (L = the S vector). */
	#pragma GCC unroll 16
	for (int p = 0; p < 4; p++) {
		__m512i lk[4];
		for (unsigned j = 4 - k; j < 4; j++)
			lk[j] = _mm512_set1_epi8((char)(sv[3 - j] >> (8 * p)));
		#pragma GCC unroll 16
		for (int c = 0; c < 4; c++) {
			__m512i x = _mm512_add_epi8(iota, _mm512_set1_epi8((char)(64 * c)));
			_mm512_store_si512(sbo[p] + 64 * c, tf_chain(p, k, x, lk));
		}
	}

	/* Subkeys: byte lanes 0..19 compute h(2i rho, Me), lanes 32..51
	 * h((2i+1) rho, Mo); then MDS, regroup to words, PHT. */
	const __mmask64 odd = 0xFFFFFFFF00000000ull;
	__m512i x = _mm512_add_epi8(_mm512_add_epi8(iota, iota),
				    _mm512_maskz_set1_epi8(odd, (char)-63)); /* 2i, 2i+1 */
	__m512i y[4], z[4], w[4];
	#pragma GCC unroll 16
	for (int p = 0; p < 4; p++) {
		__m512i lk[4];
		for (unsigned j = 4 - k; j < 4; j++)
			lk[j] = _mm512_mask_blend_epi8(odd, _mm512_set1_epi8((char)(me[3 - j] >> (8 * p))),
						       _mm512_set1_epi8((char)(mo[3 - j] >> (8 * p))));
		y[p] = tf_chain(p, k, x, lk);
	}
	tf_mds(z, y);
	tf_ungroup(w, z); /* w[0], w[1]: A_0..15, A_16..19; w[2], w[3]: the B's */
	#pragma GCC unroll 16
	for (int h = 0; h < 2; h++) {
		__m512i a = w[h], b = _mm512_rol_epi32(w[2 + h], 8);
		__m512i ke = _mm512_add_epi32(a, b);
		__m512i ko = _mm512_rol_epi32(_mm512_add_epi32(ke, b), 9);
		__m512i lo = _mm512_unpacklo_epi32(ke, ko), hi = _mm512_unpackhi_epi32(ke, ko);
		__m512i r0 = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), hi);
		if (h == 0) {
			__m512i r1 = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4),
							       hi);
			_mm512_storeu_si512(kk, r0);
			_mm512_storeu_si512(kk + 16, r1);
		} else {
			_mm256_storeu_si256((__m256i *)(kk + 32), _mm512_castsi512_si256(r0));
		}
	}
	fb_wipe(me, sizeof me);
	fb_wipe(mo, sizeof mo);
	fb_wipe(sv, sizeof sv);
	return FB_OK;
}

/* Entry x of full-keying table p = column p of MDS times s_p(x): the
 * products by affine transforms, the bytes regrouped into words (column p
 * as bytes 0..3: 01 5B EF EF / EF EF 5B 01 / 5B EF 01 EF / 5B 01 EF 5B). */
TF_AVX512 static void tf512_expand_tables(uint32_t s[4][256], const uint8_t sbo[4][256])
{
	const __m512i m5b = _mm512_set1_epi64((long long)TWOFISH_AFFINE_MUL5B);
	const __m512i mef = _mm512_set1_epi64((long long)TWOFISH_AFFINE_MULEF);
	for (int p = 0; p < 4; p++) {
		for (int c = 0; c < 4; c++) {
			__m512i y = _mm512_load_si512(sbo[p] + 64 * c), z[4], w[4];
			__m512i b = _mm512_gf2p8affine_epi64_epi8(y, m5b, 0);
			__m512i e = _mm512_gf2p8affine_epi64_epi8(y, mef, 0);
			switch (p) {
			case 0: z[0] = y; z[1] = b; z[2] = e; z[3] = e; break;
			case 1: z[0] = e; z[1] = e; z[2] = b; z[3] = y; break;
			case 2: z[0] = b; z[1] = e; z[2] = y; z[3] = e; break;
			default: z[0] = b; z[1] = y; z[2] = e; z[3] = b; break;
			}
			tf_ungroup(w, z);
			#pragma GCC unroll 4
			for (int j = 0; j < 4; j++)
				_mm512_store_si512(s[p] + 64 * c + 16 * j, w[j]);
		}
	}
}

/* ---- twofish/avx512-gfni-ct ------------------------------------------------ */

TF_AVX512 static int tf512ct_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	twofish_vperm_ks *ks = ksp;
	return tf512_schedule(ks->sb, ks->k, key, keylen);
}

TF_AVX512 static void tf512ct_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	tf_ecb(ks, out, in, n, 0);
}

TF_AVX512 static void tf512ct_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	tf_ecb(ks, out, in, n, 1);
}

const fb_kernel fb_twofish_avx512_gfni_ct = {
	.name = "twofish/avx512-gfni-ct",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = TWOFISH_AVX512_NEEDS,
	.constant_time = 1,
	.batch = 64,
	.ks_size = sizeof(twofish_vperm_ks),
	.note = "64 blocks: S-boxes by vpermt2b on byte tables, MDS by gf2p8affineqb; constant-time",
	.fills_schedule = 1,
	.setkey = tf512ct_setkey,
	.encrypt = tf512ct_encrypt,
	.decrypt = tf512ct_decrypt,
	.ctr32 = tf512_ctr32,
	.cbc_dec = tf512_cbc_dec,
	.cfb_dec = tf512_cfb_dec,
	.xts_enc = tf512_xts_enc,
	.xts_dec = tf512_xts_dec,
};

/* ---- twofish/avx512-gfni and twofish/table-avx512 -------------------------------
 *
 * One key setup for both: the byte tables of the SIMD code, and from them
 * (by GF(2) affine transforms) the full-keying tables of twofish/table.
 * twofish/avx512-gfni runs the SIMD code above on the first part; its
 * ladder row (src/twofish/twofish_impls.c) sends short runs and single
 * blocks to twofish/table-avx512 (twofish_table_avx512.c), which runs
 * twofish/table's code on the second part. Sharing the setkey, they share
 * one schedule in a context. */

TF_AVX512 int fb_twofish_avx512_setkey_tables(void *ksp, const uint8_t *key, size_t keylen)
{
	twofish_vperm_tab_ks *ks = ksp;
	int r = tf512_schedule(ks->v.sb, ks->v.k, key, keylen);
	if (r == FB_OK) {
		tf512_expand_tables(ks->t.s, ks->v.sb);
		memcpy(ks->t.k, ks->v.k, sizeof ks->t.k);
	}
	return r;
}

const fb_kernel fb_twofish_avx512_gfni = {
	.name = "twofish/avx512-gfni",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = TWOFISH_AVX512_NEEDS,
	.constant_time = 0, /* its schedule holds twofish/table-avx512's tables */
	.batch = 64,
	.ks_size = sizeof(twofish_vperm_tab_ks),
	.note = "twofish/avx512-gfni-ct's code, keyed with tables for its ladder's short runs",
	.fills_schedule = 1,
	.setkey = fb_twofish_avx512_setkey_tables,
	.encrypt = tf512ct_encrypt,
	.decrypt = tf512ct_decrypt,
	.ctr32 = tf512_ctr32,
	.cbc_dec = tf512_cbc_dec,
	.cfb_dec = tf512_cfb_dec,
	.xts_enc = tf512_xts_enc,
	.xts_dec = tf512_xts_dec,
};

#endif /* FB_X86 */
