/*
 * twofish/avx512-gfni-ct for the valgrind constant-time check
 * (test_ct_valgrind.c).
 *
 * Valgrind decodes neither AVX-512 nor GFNI. The AVX-512 intrinsics come
 * from the C model (ct_model_avx512.h); this file adds what the Twofish
 * kernel uses beyond it - above all the two instructions its constant-time
 * claim rests on: vpermt2b (the key-dependent S-boxes, looked up in
 * registers) and gf2p8affineqb (the MDS products) - and then compiles
 * src/twofish/twofish_avx512_gfni.c unchanged.
 *
 * Both are modelled bitsliced, so that no address depends on an index or a
 * byte: the 64 bytes of a vector become eight 64-bit bit planes (plane p,
 * bit i = bit p of byte i). A 128-entry lookup then decodes the seven index
 * planes into one match mask per table entry (bit i set where index byte i
 * equals the entry), and ORs each entry's bits under its mask; every entry
 * is read, at its own (public) position. An affine transform XORs the
 * planes its matrix selects. A byte-by-byte model (one compare per entry
 * and output byte) is as valid but about ten times slower under valgrind,
 * where the check runs the kernel a few thousand times.
 *
 * The same file also holds twofish/table-avx512, the table code that
 * twofish/avx512-gfni's ladder sends short runs to, on tables its key setup
 * builds with the same intrinsics: compiled alike, it is the model's own
 * negative check - valgrind must report it.
 */
#include "ct_model_avx512.h"

typedef uint64_t __mmask64;

/* ---- bit planes --------------------------------------------------------------------------- */

/* Transposes the 8x8 bit matrix in x (byte r, bit c) to (byte c, bit r). */
static inline uint64_t ct_model_t8x8(uint64_t x)
{
	uint64_t t;
	t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
	x ^= t ^ (t << 7);
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
	x ^= t ^ (t << 14);
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
	x ^= t ^ (t << 28);
	return x;
}
/* pl[p] bit i = bit p of byte i of a */
static inline void ct_model_to_planes(uint64_t pl[8], __m512i a)
{
	for (int p = 0; p < 8; p++)
		pl[p] = 0;
	for (int q = 0; q < 8; q++) {
		uint64_t t = ct_model_t8x8(a.q[q]);
		for (int p = 0; p < 8; p++)
			pl[p] |= (t >> (8 * p) & 0xFF) << (8 * q);
	}
}
static inline __m512i ct_model_from_planes(const uint64_t pl[8])
{
	__m512i r;
	for (int q = 0; q < 8; q++) {
		uint64_t t = 0;
		for (int p = 0; p < 8; p++)
			t |= (pl[p] >> (8 * q) & 0xFF) << (8 * p);
		r.q[q] = ct_model_t8x8(t);
	}
	return r;
}

/* vpermt2b: byte i = byte (idx_i & 127) of the 128 bytes a:b, the index
 * and the table both data. */
static inline __m512i _mm512_permutex2var_epi8(__m512i a, __m512i idx, __m512i b)
{
	uint64_t x[8], m[128], r[8] = { 0 };
	ct_model_to_planes(x, idx);
	m[0] = ~0ull;
	for (int bit = 0, n = 1; bit < 7; bit++, n *= 2) /* m[j]: index bits 0..bit-1 equal j */
		for (int j = 0; j < n; j++) {
			m[j + n] = m[j] & x[bit];
			m[j] &= ~x[bit];
		}
	for (int j = 0; j < 128; j++) {
		unsigned v = j < 64 ? a.b[j] : b.b[j - 64];
		for (int p = 0; p < 8; p++)
			r[p] |= m[j] & (0 - (uint64_t)(v >> p & 1));
	}
	return ct_model_from_planes(r);
}

/* gf2p8affineqb: bit k of byte i of qword q = parity(byte 7-k of A_q AND
 * x_i) ^ bit k of c. The matrix is public (a constant) but is used without
 * a branch all the same. */
static inline __m512i _mm512_gf2p8affine_epi64_epi8(__m512i x, __m512i a, int c)
{
	uint64_t in[8], out[8];
	ct_model_to_planes(in, x);
	for (int k = 0; k < 8; k++) {
		uint64_t acc = 0 - (uint64_t)((unsigned)c >> k & 1);
		for (int q = 0; q < 8; q++) {
			unsigned row = (unsigned)(a.q[q] >> (8 * (7 - k))) & 0xFF;
			for (int m = 0; m < 8; m++)
				acc ^= in[m] & ((0 - (uint64_t)(row >> m & 1)) & (0xFFull << (8 * q)));
		}
		out[k] = acc;
	}
	return ct_model_from_planes(out);
}

/* ---- masks: bit i of a mask selects byte or word i; here the masks are
 *      data (the top bits of bytes, key bits), so they select by AND --------------------- */

static inline __mmask64 _mm512_movepi8_mask(__m512i a)
{
	__mmask64 k = 0;
	for (int i = 0; i < 64; i++)
		k |= (uint64_t)(a.b[i] >> 7) << i;
	return k;
}
static inline __m512i _mm512_mask_blend_epi8(__mmask64 k, __m512i a, __m512i b)
{
	for (int i = 0; i < 64; i++) {
		uint8_t m = (uint8_t)(0u - (unsigned)(k >> i & 1));
		a.b[i] = (uint8_t)((a.b[i] & ~m) | (b.b[i] & m));
	}
	return a;
}
static inline __m512i _mm512_mask_xor_epi32(__m512i src, __mmask16 k, __m512i a, __m512i b)
{
	for (int i = 0; i < 16; i++) {
		uint32_t m = 0u - (uint32_t)(k >> i & 1);
		src.d[i] = (src.d[i] & ~m) | ((a.d[i] ^ b.d[i]) & m);
	}
	return src;
}
static inline __m512i _mm512_mask_xor_epi64(__m512i src, __mmask8 k, __m512i a, __m512i b)
{
	for (int i = 0; i < 8; i++) {
		uint64_t m = 0 - (uint64_t)(k >> i & 1);
		src.q[i] = (src.q[i] & ~m) | ((a.q[i] ^ b.q[i]) & m);
	}
	return src;
}
static inline __m512i _mm512_maskz_set1_epi8(__mmask64 k, char v)
{
	__m512i r;
	for (int i = 0; i < 64; i++)
		r.b[i] = (uint8_t)v & (uint8_t)(0u - (unsigned)(k >> i & 1));
	return r;
}

/* ---- the rest of what the kernel uses ------------------------------------------------------ */

#define _mm512_load_si512 _mm512_loadu_si512
#define _mm512_store_si512 _mm512_storeu_si512

static inline __m512i _mm512_set1_epi8(char v)
{
	__m512i r;
	memset(&r, (uint8_t)v, sizeof r);
	return r;
}
/* byte i = argument e_i; the arguments are listed from e63 down to e0 */
#define CT_MODEL_E8(n) char e##n
static inline __m512i _mm512_set_epi8(
	CT_MODEL_E8(63), CT_MODEL_E8(62), CT_MODEL_E8(61), CT_MODEL_E8(60), CT_MODEL_E8(59), CT_MODEL_E8(58),
	CT_MODEL_E8(57), CT_MODEL_E8(56), CT_MODEL_E8(55), CT_MODEL_E8(54), CT_MODEL_E8(53), CT_MODEL_E8(52),
	CT_MODEL_E8(51), CT_MODEL_E8(50), CT_MODEL_E8(49), CT_MODEL_E8(48), CT_MODEL_E8(47), CT_MODEL_E8(46),
	CT_MODEL_E8(45), CT_MODEL_E8(44), CT_MODEL_E8(43), CT_MODEL_E8(42), CT_MODEL_E8(41), CT_MODEL_E8(40),
	CT_MODEL_E8(39), CT_MODEL_E8(38), CT_MODEL_E8(37), CT_MODEL_E8(36), CT_MODEL_E8(35), CT_MODEL_E8(34),
	CT_MODEL_E8(33), CT_MODEL_E8(32), CT_MODEL_E8(31), CT_MODEL_E8(30), CT_MODEL_E8(29), CT_MODEL_E8(28),
	CT_MODEL_E8(27), CT_MODEL_E8(26), CT_MODEL_E8(25), CT_MODEL_E8(24), CT_MODEL_E8(23), CT_MODEL_E8(22),
	CT_MODEL_E8(21), CT_MODEL_E8(20), CT_MODEL_E8(19), CT_MODEL_E8(18), CT_MODEL_E8(17), CT_MODEL_E8(16),
	CT_MODEL_E8(15), CT_MODEL_E8(14), CT_MODEL_E8(13), CT_MODEL_E8(12), CT_MODEL_E8(11), CT_MODEL_E8(10),
	CT_MODEL_E8(9), CT_MODEL_E8(8), CT_MODEL_E8(7), CT_MODEL_E8(6), CT_MODEL_E8(5), CT_MODEL_E8(4),
	CT_MODEL_E8(3), CT_MODEL_E8(2), CT_MODEL_E8(1), CT_MODEL_E8(0))
{
	const char e[64] = { e0,  e1,  e2,  e3,  e4,  e5,  e6,  e7,  e8,  e9,  e10, e11, e12,
			     e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24, e25,
			     e26, e27, e28, e29, e30, e31, e32, e33, e34, e35, e36, e37, e38,
			     e39, e40, e41, e42, e43, e44, e45, e46, e47, e48, e49, e50, e51,
			     e52, e53, e54, e55, e56, e57, e58, e59, e60, e61, e62, e63 };
	__m512i r;
	memcpy(&r, e, sizeof r);
	return r;
}
#undef CT_MODEL_E8
static inline __m512i _mm512_add_epi8(__m512i a, __m512i b)
{
	for (int i = 0; i < 64; i++)
		a.b[i] = (uint8_t)(a.b[i] + b.b[i]);
	return a;
}
/* shifts by constants and _mm512_shuffle_epi32: ct_model_avx512.h */
static inline __m128i _mm_shuffle_epi32(__m128i a, int imm)
{
	__m128i r;
	for (int i = 0; i < 4; i++)
		r.d[i] = a.d[imm >> (2 * i) & 3];
	return r;
}
static inline __m512i _mm512_shuffle_i64x2(__m512i a, __m512i b, int imm)
{
	__m512i r;
	for (int l = 0; l < 4; l++) {
		int s = imm >> (2 * l) & 3;
		memcpy(&r.q[2 * l], l < 2 ? &a.q[2 * s] : &b.q[2 * s], 16);
	}
	return r;
}
static inline __m512i _mm512_permutex2var_epi64(__m512i a, __m512i idx, __m512i b)
{
	__m512i r;
	for (int i = 0; i < 8; i++)
		r.q[i] = idx.q[i] & 8 ? b.q[idx.q[i] & 7] : a.q[idx.q[i] & 7];
	return r;
}
/* 256- and 128-bit parts */
static inline __m128i _mm256_castsi256_si128(__m256i a)
{
	__m128i r;
	memcpy(&r, &a, sizeof r);
	return r;
}
static inline __m128i _mm256_extracti128_si256(__m256i a, int i)
{
	__m128i r;
	memcpy(&r, &a.q[2 * (i & 1)], sizeof r);
	return r;
}
static inline void _mm256_storeu_si256(__m256i *p, __m256i a)
{
	memcpy(p, &a, sizeof a);
}

/* ---- the modelled kernels ----------------------------------------------------------------- */

#include "../src/internal.h"

#if FB_X86
#undef FB_TARGET
#define FB_TARGET(x)
#define fb_twofish_avx512_gfni_ct ct_model_twofish_avx512_gfni_ct
#define fb_twofish_avx512_gfni ct_model_twofish_avx512_gfni
#define fb_twofish_table_avx512 ct_model_twofish_table_avx512
#define fb_twofish_table_avx512_t0 ct_model_twofish_table_avx512_t0
#define fb_twofish_table_avx512_tree ct_model_twofish_table_avx512_tree
#define fb_twofish_avx512_setkey_tables ct_model_twofish_avx512_setkey_tables
#include "../src/twofish/twofish_avx512_gfni.c"
#include "../src/twofish/twofish_table_avx512.c"

/* Both need nothing natively beyond the model (the table kernel's code is
 * the portable twofish/table's). */
const fb_kernel *ct_model_twofish512_ct_kernel(void);
const fb_kernel *ct_model_twofish512_ct_kernel(void)
{
	return &ct_model_twofish_avx512_gfni_ct;
}
const fb_kernel *ct_model_twofish512_tab_kernel(void);
const fb_kernel *ct_model_twofish512_tab_kernel(void)
{
	return &ct_model_twofish_table_avx512;
}
#else
const fb_kernel *ct_model_twofish512_ct_kernel(void);
const fb_kernel *ct_model_twofish512_ct_kernel(void)
{
	return NULL;
}
const fb_kernel *ct_model_twofish512_tab_kernel(void);
const fb_kernel *ct_model_twofish512_tab_kernel(void)
{
	return NULL;
}
#endif
