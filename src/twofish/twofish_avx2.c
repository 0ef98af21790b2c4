/*
 * twofish/avx2: 16 blocks per step as two interleaved groups of 8 (one
 * block per 32-bit lane of a ymm, one ymm per state word and group), on the
 * full-keying tables of twofish/table: g() is four vpgatherdd (one per
 * table, indexed by one byte of each lane) and three XORs; the PHT and the
 * rotations are vpaddd and shifts.
 *
 * Why gathers: without AVX-512 VBMI there is no 256-entry byte permute, and
 * a 256-entry lookup built from 16-entry vpshufb costs about 48 operations
 * per 32 bytes, against one 8-lane gather of 32-bit words that also applies
 * the MDS column. On the Sapphire Rapids this was measured on, an 8-lane
 * gather issues every ~3.4 TSC ticks; CPUs with the "Downfall" (GDS)
 * microcode mitigation gather several times slower, and the selection
 * passes this kernel over there (avoid_on).
 *
 * Two groups, because a gather's latency (~20+ cycles) would otherwise stall
 * each round. Fewer than 8 blocks go to the table code, in its RORX form:
 * the selection takes this kernel on Intel only, where BEXTR is two uops
 * (twofish/table-avx2-tree).
 *
 * Not constant-time: the gathers' addresses depend on key and data.
 */
#include "twofish_impl.h"
#include "../block128_simd.h"

#if FB_X86
#include <immintrin.h>

#define TF_AVX2 FB_TARGET("avx2")
#define TF_INLINE static inline __attribute__((always_inline))

/* Byte j of every 32-bit lane, zero-extended. */
TF_AVX2 TF_INLINE __m256i tf2_byte(__m256i x, int j)
{
	switch (j) {
	case 0:
		return _mm256_and_si256(x, _mm256_set1_epi32(255));
	case 3:
		return _mm256_srli_epi32(x, 24);
	default: {
		/* byte 4d+j of each 128-bit lane to dword d, zero-extended */
		const int m = (int)(0xFFFFFF00u | (unsigned)j);
		return _mm256_shuffle_epi8(x, _mm256_set_epi32(m + 12, m + 8, m + 4, m, m + 12, m + 8, m + 4, m));
	}
	}
}

TF_AVX2 TF_INLINE __m256i tf2_gather(const uint32_t *t, __m256i idx)
{
	return _mm256_i32gather_epi32((const int *)t, idx, 4);
}

/* g(x) if rot == 0, g(x <<< 8) if rot == 1 (byte j of x <<< 8 is byte j-1
 * of x, so only the table each byte indexes changes). */
TF_AVX2 TF_INLINE __m256i tf2_g(const uint32_t (*s)[256], __m256i x, int rot)
{
	__m256i r = tf2_gather(s[rot], tf2_byte(x, 0));
	r = _mm256_xor_si256(r, tf2_gather(s[(1 + rot) & 3], tf2_byte(x, 1)));
	r = _mm256_xor_si256(r, tf2_gather(s[(2 + rot) & 3], tf2_byte(x, 2)));
	return _mm256_xor_si256(r, tf2_gather(s[(3 + rot) & 3], tf2_byte(x, 3)));
}

TF_AVX2 TF_INLINE __m256i tf2_rol(__m256i x, int n)
{
	return _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - n));
}

/* One half-round on ng groups: (a, b) -> (c, d), words of group g in
 * v[4g..4g+3]. */
TF_AVX2 TF_INLINE void tf2_half(const twofish_table_ks *ks, __m256i *v, int ng, int dec, int a, int b,
				int c, int d, const uint32_t *k)
{
	const __m256i k0 = _mm256_set1_epi32((int)k[0]), k1 = _mm256_set1_epi32((int)k[1]);
	__m256i t0[2], t1[2];
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++) {
		t0[g] = tf2_g(ks->s, v[4 * g + a], 0);
		t1[g] = tf2_g(ks->s, v[4 * g + b], 1);
	}
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++) {
		__m256i *w = v + 4 * g;
		__m256i s = _mm256_add_epi32(t0[g], t1[g]);
		__m256i f0 = _mm256_add_epi32(s, k0);
		__m256i f1 = _mm256_add_epi32(_mm256_add_epi32(s, t1[g]), k1);
		if (dec) {
			w[c] = _mm256_xor_si256(tf2_rol(w[c], 1), f0);
			w[d] = tf2_rol(_mm256_xor_si256(w[d], f1), 31);
		} else {
			w[c] = tf2_rol(_mm256_xor_si256(w[c], f0), 31);
			w[d] = _mm256_xor_si256(tf2_rol(w[d], 1), f1);
		}
	}
}

TF_AVX2 TF_INLINE void tf2_whiten(__m256i *v, int ng, const uint32_t *k)
{
	#pragma GCC unroll 8
	for (int i = 0; i < 4 * ng; i++)
		v[i] = _mm256_xor_si256(v[i], _mm256_set1_epi32((int)k[i & 3]));
}

TF_AVX2 TF_INLINE void tf2_swap_halves(__m256i *v, int ng)
{
	#pragma GCC unroll 2
	for (int g = 0; g < 4 * ng; g += 4) {
		__m256i x = v[g], y = v[g + 1];
		v[g] = v[g + 2];
		v[g + 1] = v[g + 3];
		v[g + 2] = x;
		v[g + 3] = y;
	}
}

TF_AVX2 TF_INLINE void tf2_crypt_words(const twofish_table_ks *ks, __m256i *v, int ng, int dec)
{
	const uint32_t *k = ks->k;
	if (!dec) {
		tf2_whiten(v, ng, k);
		#pragma GCC unroll 16
		for (int r = 0; r < 16; r += 2) {
			tf2_half(ks, v, ng, 0, 0, 1, 2, 3, k + 8 + 2 * r);
			tf2_half(ks, v, ng, 0, 2, 3, 0, 1, k + 10 + 2 * r);
		}
		tf2_swap_halves(v, ng);
		tf2_whiten(v, ng, k + 4);
	} else {
		tf2_whiten(v, ng, k + 4);
		tf2_swap_halves(v, ng);
		#pragma GCC unroll 16
		for (int r = 14; r >= 0; r -= 2) {
			tf2_half(ks, v, ng, 1, 2, 3, 0, 1, k + 10 + 2 * r);
			tf2_half(ks, v, ng, 1, 0, 1, 2, 3, k + 8 + 2 * r);
		}
		tf2_whiten(v, ng, k);
	}
}

/* 4x4 transpose of 32-bit words inside each 128-bit lane (self-inverse):
 * four ymm of two blocks each <-> four ymm of one word each; word lane
 * 4L+j belongs to block 2j+L of the 8. */
TF_AVX2 TF_INLINE void tf2_transpose(__m256i *v)
{
	FB_TRANSPOSE4_IN_LANES(__m256i, _mm256, v[0], v[1], v[2], v[3]);
}

TF_AVX2 TF_INLINE void tf2_load(__m256i *x, const uint8_t *in, int ng)
{
	#pragma GCC unroll 8
	for (int j = 0; j < 4 * ng; j++)
		x[j] = _mm256_loadu_si256((const __m256i *)(in + 32 * j));
}

TF_AVX2 TF_INLINE void tf2_store(uint8_t *out, const __m256i *x, int ng)
{
	#pragma GCC unroll 8
	for (int j = 0; j < 4 * ng; j++)
		_mm256_storeu_si256((__m256i *)(out + 32 * j), x[j]);
}

TF_AVX2 TF_INLINE void tf2_ecb_step(const twofish_table_ks *ks, uint8_t *out, const uint8_t *in, int ng,
				    int dec)
{
	__m256i v[8];
	tf2_load(v, in, ng);
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++)
		tf2_transpose(v + 4 * g);
	tf2_crypt_words(ks, v, ng, dec);
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++)
		tf2_transpose(v + 4 * g);
	tf2_store(out, v, ng);
}

TF_AVX2 static void tf2_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	for (; n >= 16; n -= 16, in += 256, out += 256)
		tf2_ecb_step(ks, out, in, 2, 0);
	if (n >= 8) {
		tf2_ecb_step(ks, out, in, 1, 0);
		n -= 8, in += 128, out += 128;
	}
	fb_twofish_table_encrypt_rorx(ks, out, in, n);
}

TF_AVX2 static void tf2_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	for (; n >= 16; n -= 16, in += 256, out += 256)
		tf2_ecb_step(ks, out, in, 2, 1);
	if (n >= 8) {
		tf2_ecb_step(ks, out, in, 1, 1);
		n -= 8, in += 128, out += 128;
	}
	fb_twofish_table_decrypt_rorx(ks, out, in, n);
}

/* CTR: counter blocks built in transposed form, only the keystream is
 * transposed (see twofish_avx512_gfni.c). */
TF_AVX2 TF_INLINE void tf2_ctr_step(const twofish_table_ks *ks, uint8_t *out, const uint8_t *in, int ng,
				    const uint8_t *ctr, uint32_t c)
{
	const __m256i lane_idx = _mm256_set_epi32(7, 5, 3, 1, 6, 4, 2, 0);
	const __m256i bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
					      12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
	__m256i base = _mm256_add_epi32(_mm256_set1_epi32((int)c), lane_idx), v[8], x[8];
	#pragma GCC unroll 2
	for (int g = 0; g < 4 * ng; g += 4) {
		v[g] = _mm256_set1_epi32((int)fb_load32_le(ctr));
		v[g + 1] = _mm256_set1_epi32((int)fb_load32_le(ctr + 4));
		v[g + 2] = _mm256_set1_epi32((int)fb_load32_le(ctr + 8));
		v[g + 3] = _mm256_shuffle_epi8(_mm256_add_epi32(base, _mm256_set1_epi32(2 * g)), bswap);
	}
	tf2_crypt_words(ks, v, ng, 0);
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++)
		tf2_transpose(v + 4 * g);
	tf2_load(x, in, ng);
	#pragma GCC unroll 8
	for (int j = 0; j < 4 * ng; j++)
		x[j] = _mm256_xor_si256(x[j], v[j]);
	tf2_store(out, x, ng);
}

TF_AVX2 static void tf2_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	uint32_t c = fb_load32_be(ctr + 12);
	for (; n >= 16; n -= 16, in += 256, out += 256, c += 16)
		tf2_ctr_step(ks, out, in, 2, ctr, c);
	if (n >= 8) {
		tf2_ctr_step(ks, out, in, 1, ctr, c);
		n -= 8, in += 128, out += 128, c += 8;
	}
	for (; n; n--, in += 16, out += 16, c++) {
		uint8_t blk[16];
		memcpy(blk, ctr, 12);
		fb_store32_be(blk + 12, c);
		fb_twofish_table_encrypt(ks, blk, blk, 1);
		for (int j = 0; j < 16; j++)
			out[j] = in[j] ^ blk[j];
	}
	fb_store32_be(ctr + 12, c);
}

/* CBC decryption (cfb 0), P_i = D(C_i) ^ C_{i-1}, or CFB decryption (cfb
 * 1), P_i = E(C_{i-1}) ^ C_i. Every C_{i-1} of a step is loaded before its
 * output is stored, so out == in works. Returns the last ciphertext block
 * (in the high 128 bits). */
TF_AVX2 TF_INLINE __m256i tf2_chain_step(const twofish_table_ks *ks, uint8_t *out, const uint8_t *in,
					 int ng, __m256i prev, const int cfb)
{
	__m256i v[8], x[8], sh[8];
	tf2_load(x, in, ng);
	#pragma GCC unroll 8
	for (int j = 0; j < 4 * ng; j++) {
		sh[j] = _mm256_permute2x128_si256(j ? x[j - 1] : prev, x[j], 0x21);
		v[j] = cfb ? sh[j] : x[j];
	}
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++)
		tf2_transpose(v + 4 * g);
	tf2_crypt_words(ks, v, ng, !cfb);
	#pragma GCC unroll 2
	for (int g = 0; g < ng; g++)
		tf2_transpose(v + 4 * g);
	#pragma GCC unroll 8
	for (int j = 0; j < 4 * ng; j++)
		v[j] = _mm256_xor_si256(v[j], cfb ? x[j] : sh[j]);
	tf2_store(out, v, ng);
	return x[4 * ng - 1];
}

/* Whole groups of 8 and 16 blocks, the rest one at a time by the tables. */
TF_AVX2 TF_INLINE void tf2_chain_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv,
				     const int cfb)
{
	__m256i prev = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)iv));
	for (; n >= 16; n -= 16, in += 256, out += 256)
		prev = tf2_chain_step(ks, out, in, 2, prev, cfb);
	if (n >= 8) {
		prev = tf2_chain_step(ks, out, in, 1, prev, cfb);
		n -= 8, in += 128, out += 128;
	}
	uint8_t c[16], p[16];
	_mm_storeu_si128((__m128i *)c, _mm256_extracti128_si256(prev, 1));
	for (; n; n--, in += 16, out += 16) {
		if (cfb)
			fb_twofish_table_encrypt(ks, p, c, 1);
		else
			fb_twofish_table_decrypt(ks, p, in, 1);
		for (int j = 0; j < 16; j++)
			p[j] ^= cfb ? in[j] : c[j];
		memcpy(c, in, 16);
		memcpy(out, p, 16);
	}
	memcpy(iv, c, 16);
	fb_wipe(p, sizeof p);
}

TF_AVX2 static void tf2_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	tf2_chain_dec(ks, out, in, n, iv, 0);
}

/* CFB decryption without the generic path's copy of the shifted
 * ciphertext. */
TF_AVX2 static void tf2_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	tf2_chain_dec(ks, out, in, n, iv, 1);
}

const fb_kernel fb_twofish_avx2 = {
	.name = "twofish/avx2",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2 | FB_CPU_BMI2, /* the tables' tails: RORX */
	.constant_time = 0,
	.batch = 16,
	.ks_size = sizeof(twofish_table_ks),
	.note = "16 blocks: full-keying tables looked up by vpgatherdd",
	.fills_schedule = 1,
	.setkey = fb_twofish_table_setkey_avx2,
	.encrypt = tf2_encrypt,
	.decrypt = tf2_decrypt,
	.ctr32 = tf2_ctr32,
	.cbc_dec = tf2_cbc_dec,
	.cfb_dec = tf2_cfb_dec,
	/* 16 gathers per block step: on Zen 2 it loses to twofish/table
	 * (docs/benchmarks.md), and on Zen 3-5 to twofish/table-avx2's four
	 * interleaved blocks; under Intel's GDS microcode a gather costs
	 * what it does on Zen 2 or more (FB_CPU_SLOW_GATHER) */
	.avoid_on = FB_CPU_AMD_ZEN | FB_CPU_SLOW_GATHER,
};

#endif /* FB_X86 */
