/*
 * aes/vaes-avx512 for the valgrind constant-time check (test_ct_valgrind.c).
 *
 * The AVX-512 intrinsics come from the C model (ct_model_avx512.h); this
 * file adds what the kernel uses beyond it: the four AES rounds on each
 * 128-bit lane, with the S-box computed (inversion in GF(2^8) as x^254,
 * multiplications by shifts and masks: no table, so no secret address),
 * the same rounds on one 16-byte block (the XTS tweak's encryption),
 * the carry-less multiply of its XTS tweak updates, and 64-bit variable
 * shifts, byte shifts and a few SSE helpers. src/aes/aes_vaes_avx512.c is
 * then compiled unchanged; its tails and CBC encryption call the library's
 * AES-NI code, which valgrind runs natively. Separate from
 * ct_model_avx512.c because the kernels' file-level macros would clash.
 */
#include "ct_model_avx512.h"

/* ---- GF(2^8) and the AES round, per 16-byte lane ------------------------------------------- */

static inline uint8_t gf_xtime(uint8_t a)
{
	return (uint8_t)(a << 1 ^ (0x1b & (0u - (unsigned)(a >> 7))));
}
static inline uint8_t gf_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;
	for (int i = 0; i < 8; i++) {
		r ^= a & (uint8_t)(0u - (unsigned)(b >> i & 1));
		a = gf_xtime(a);
	}
	return r;
}
static inline uint8_t gf_inv(uint8_t x) /* x^254; 0 -> 0 */
{
	uint8_t x2 = gf_mul(x, x), x3 = gf_mul(x2, x), x6 = gf_mul(x3, x3), x12 = gf_mul(x6, x6);
	uint8_t x15 = gf_mul(x12, x3), x30 = gf_mul(x15, x15), x60 = gf_mul(x30, x30);
	uint8_t x120 = gf_mul(x60, x60), x126 = gf_mul(x120, x6), x127 = gf_mul(x126, x);
	return gf_mul(x127, x127);
}
static inline uint8_t rotl8(uint8_t x, int n)
{
	return (uint8_t)(x << n | x >> (8 - n));
}
static inline uint8_t aes_sbox(uint8_t x)
{
	uint8_t b = gf_inv(x);
	return (uint8_t)(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63);
}
static inline uint8_t aes_inv_sbox(uint8_t x)
{
	return gf_inv((uint8_t)(rotl8(x, 1) ^ rotl8(x, 3) ^ rotl8(x, 6) ^ 0x05));
}

/* One round on the 16 bytes s (FIPS 197 order: byte r + 4c is row r,
 * column c), as AESENC / AESENCLAST / AESDEC / AESDECLAST do it. */
static void aes_lane(uint8_t *s, const uint8_t *rk, int dec, int last)
{
	uint8_t t[16];
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			uint8_t x = s[r + 4 * ((dec ? c - r + 4 : c + r) % 4)]; /* (Inv)ShiftRows */
			t[r + 4 * c] = dec ? aes_inv_sbox(x) : aes_sbox(x);
		}
	if (!last)
		for (int c = 0; c < 4; c++) {
			uint8_t a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];
			if (dec) {
				t[4 * c] = gf_mul(a0, 14) ^ gf_mul(a1, 11) ^ gf_mul(a2, 13) ^ gf_mul(a3, 9);
				t[4 * c + 1] = gf_mul(a0, 9) ^ gf_mul(a1, 14) ^ gf_mul(a2, 11) ^ gf_mul(a3, 13);
				t[4 * c + 2] = gf_mul(a0, 13) ^ gf_mul(a1, 9) ^ gf_mul(a2, 14) ^ gf_mul(a3, 11);
				t[4 * c + 3] = gf_mul(a0, 11) ^ gf_mul(a1, 13) ^ gf_mul(a2, 9) ^ gf_mul(a3, 14);
			} else {
				t[4 * c] = gf_mul(a0, 2) ^ gf_mul(a1, 3) ^ a2 ^ a3;
				t[4 * c + 1] = a0 ^ gf_mul(a1, 2) ^ gf_mul(a2, 3) ^ a3;
				t[4 * c + 2] = a0 ^ a1 ^ gf_mul(a2, 2) ^ gf_mul(a3, 3);
				t[4 * c + 3] = gf_mul(a0, 3) ^ a1 ^ a2 ^ gf_mul(a3, 2);
			}
		}
	for (int i = 0; i < 16; i++)
		s[i] = t[i] ^ rk[i];
}

#define CT_MODEL_AES512(name, dec, last)                  \
	static inline __m512i name(__m512i x, __m512i k)  \
	{                                                 \
		for (int l = 0; l < 4; l++)               \
			aes_lane(x.b + 16 * l, k.b + 16 * l, dec, last); \
		return x;                                 \
	}
CT_MODEL_AES512(_mm512_aesenc_epi128, 0, 0)
CT_MODEL_AES512(_mm512_aesenclast_epi128, 0, 1)
CT_MODEL_AES512(_mm512_aesdec_epi128, 1, 0)
CT_MODEL_AES512(_mm512_aesdeclast_epi128, 1, 1)

/* The AES-NI rounds of the one-block helpers in src/aes/aes_x86.h (the
 * XTS tweak's encryption). */
#define CT_MODEL_AES128(name, dec, last)                  \
	static inline __m128i name(__m128i x, __m128i k)  \
	{                                                 \
		aes_lane(x.b, k.b, dec, last);            \
		return x;                                 \
	}
CT_MODEL_AES128(_mm_aesenc_si128, 0, 0)
CT_MODEL_AES128(_mm_aesenclast_si128, 0, 1)
CT_MODEL_AES128(_mm_aesdec_si128, 1, 0)
CT_MODEL_AES128(_mm_aesdeclast_si128, 1, 1)

/* ---- the rest of what the kernel uses --------------------------------------------------------- */

/* vpclmulqdq: per lane, qword imm bit 0 of a times qword imm bit 4 of b */
static inline __m512i _mm512_clmulepi64_epi128(__m512i a, __m512i b, int imm)
{
	__m512i r;
	for (int l = 0; l < 4; l++) {
		uint64_t x = a.q[2 * l + (imm & 1)], y = b.q[2 * l + (imm >> 4 & 1)], lo = 0, hi = 0;
		for (int i = 0; i < 64; i++) {
			uint64_t m = 0 - (y >> i & 1);
			lo ^= (x << i) & m;
			hi ^= (i ? x >> (64 - i) : 0) & m;
		}
		r.q[2 * l] = lo, r.q[2 * l + 1] = hi;
	}
	return r;
}
/* variable 64-bit shifts: counts of 64 or more give 0 (selected by a mask) */
static inline __m512i _mm512_sllv_epi64(__m512i a, __m512i c)
{
	for (int i = 0; i < 8; i++)
		a.q[i] = (a.q[i] << (c.q[i] & 63)) & (0 - (uint64_t)(c.q[i] < 64));
	return a;
}
static inline __m512i _mm512_srlv_epi64(__m512i a, __m512i c)
{
	for (int i = 0; i < 8; i++)
		a.q[i] = (a.q[i] >> (c.q[i] & 63)) & (0 - (uint64_t)(c.q[i] < 64));
	return a;
}
/* byte shifts within each 128-bit lane by a constant */
static inline __m512i _mm512_bslli_epi128(__m512i a, int n)
{
	__m512i r = _mm512_setzero_si512();
	for (int l = 0; l < 4; l++)
		for (int i = n; i < 16; i++)
			r.b[16 * l + i] = a.b[16 * l + i - n];
	return r;
}
static inline __m512i _mm512_bsrli_epi128(__m512i a, int n)
{
	__m512i r = _mm512_setzero_si512();
	for (int l = 0; l < 4; l++)
		for (int i = 0; i + n < 16; i++)
			r.b[16 * l + i] = a.b[16 * l + i + n];
	return r;
}
static inline __m512i _mm512_sub_epi64(__m512i a, __m512i b)
{
	for (int i = 0; i < 8; i++)
		a.q[i] -= b.q[i];
	return a;
}
/* the tails' 128- and 256-bit moves and lane inserts (load_part, store_part) */
static inline __m256i _mm256_loadu_si256(const __m256i *p)
{
	__m256i r;
	memcpy(&r, p, 32);
	return r;
}
static inline void _mm256_storeu_si256(__m256i *p, __m256i a)
{
	memcpy(p, &a, 32);
}
static inline __m512i _mm512_zextsi128_si512(__m128i a)
{
	__m512i r = _mm512_setzero_si512();
	memcpy(r.b, a.b, 16);
	return r;
}
static inline __m512i _mm512_zextsi256_si512(__m256i a)
{
	__m512i r = _mm512_setzero_si512();
	memcpy(r.b, a.b, 32);
	return r;
}
static inline __m512i _mm512_inserti32x4(__m512i a, __m128i b, int i)
{
	memcpy(a.b + 16 * (i & 3), b.b, 16);
	return a;
}
static inline __m128i _mm512_extracti32x4_epi32(__m512i a, int i)
{
	__m128i r;
	memcpy(r.b, a.b + 16 * (i & 3), 16);
	return r;
}
#define _mm_load_si128 _mm_loadu_si128
static inline __m128i _mm_set_epi32(int e3, int e2, int e1, int e0)
{
	__m128i r = { .d = { (uint32_t)e0, (uint32_t)e1, (uint32_t)e2, (uint32_t)e3 } };
	return r;
}
static inline __m128i _mm_set_epi8(char e15, char e14, char e13, char e12, char e11, char e10, char e9,
				   char e8, char e7, char e6, char e5, char e4, char e3, char e2, char e1,
				   char e0)
{
	__m128i r = { .b = { (uint8_t)e0, (uint8_t)e1, (uint8_t)e2, (uint8_t)e3, (uint8_t)e4, (uint8_t)e5,
			     (uint8_t)e6, (uint8_t)e7, (uint8_t)e8, (uint8_t)e9, (uint8_t)e10, (uint8_t)e11,
			     (uint8_t)e12, (uint8_t)e13, (uint8_t)e14, (uint8_t)e15 } };
	return r;
}
static inline __m128i _mm_insert_epi32(__m128i a, int v, int i)
{
	a.d[i & 3] = (uint32_t)v;
	return a;
}

/* ---- the modelled kernel ------------------------------------------------------------------------ */

#include "../src/internal.h"

#if FB_X86
#undef FB_TARGET
#define FB_TARGET(x)
#define fb_aes_vaes_avx512 ct_model_aes_vaes_avx512
#define fb_aes_vaes512_xts_enc ct_model_aes_vaes512_xts_enc
#define fb_aes_vaes512_xts_dec ct_model_aes_vaes512_xts_dec
#include "../src/aes/aes_vaes_avx512.c"

/* The modelled kernel, or NULL when the CPU valgrind presents lacks
 * AES-NI (key setup, tails and CBC encryption run the AES-NI code). */
const fb_kernel *ct_model_vaes_avx512_kernel(void);
const fb_kernel *ct_model_vaes_avx512_kernel(void)
{
	uint32_t need = FB_CPU_AESNI | FB_CPU_SSSE3;
	return (fb_cpu_features() & need) == need ? &ct_model_aes_vaes_avx512 : NULL;
}
#else
const fb_kernel *ct_model_vaes_avx512_kernel(void);
const fb_kernel *ct_model_vaes_avx512_kernel(void)
{
	return NULL;
}
#endif
