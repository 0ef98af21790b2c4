/*
 * mars/avx512: MARS on 16 blocks per zmm register; up to four groups of 16
 * interleaved (natural batch 64), with fused CTR and CBC-decryption paths
 * (as in rc6/avx512). S-box lookups are vpgatherdd.
 *
 * Why gathers: a 16-lane gather from the 2 KB S-box costs about 5 TSC ticks
 * here (Sapphire Rapids) and runs mostly on the load ports, leaving the two
 * vector ALU ports for the arithmetic. The constant-time alternative, a
 * permute chain over the S-box rows (one vpermi2d per pair of 16-entry rows
 * on index bits 0-4, then a vpblendmd tree on bits 5-7, and bit 8 for the
 * 512-entry core lookup: 18 uops per 256-entry lookup, 35 per 512-entry
 * one, all on ports 0 and 5), was measured at 3.9 TSC ticks/byte against
 * 1.6-1.8 for this code, so the gathers stay. The 80 lookups per block are
 * the bound: without them (gathers replaced by an add) the rest runs at
 * 0.78 ticks/byte. vpermi2b byte lookups do not help: on this core they
 * take 2 cycles each and the four byte planes must be re-transposed.
 *
 * Why four groups: a core round is one dependent chain through a gather
 * (about 25 cycles), so one group would leave the machine idle; four
 * interleaved groups keep enough gathers in flight.
 *
 * Layout: as rc6/avx512, a 4x4 dword transpose inside each 128-bit lane turns
 * four 64-byte loads (16 blocks) into registers A, B, C, D with one word of
 * each block.
 *
 * NOT constant-time: the gathers load S-box entries at secret indices.
 */
#define FB_B128_VBITS 512
#include "mars.h"

#if FB_X86

#define TGT FB_B128_TGT

#define GATHER(idx, base) _mm512_i32gather_epi32(idx, base, 4)

/* Byte 0..3 of each dword as a dword index 0..255 (vpshufb for the middle
 * two bytes: one uop instead of a shift and an and). */
#define BYTE0(x) _mm512_and_si512(x, _mm512_set1_epi32(0xff))
#define BYTE1(x) _mm512_shuffle_epi8(x, _mm512_set4_epi32((int)0x8080800d, (int)0x80808009, \
							  (int)0x80808005, (int)0x80808001))
#define BYTE2(x) _mm512_shuffle_epi8(x, _mm512_set4_epi32((int)0x8080800e, (int)0x8080800a, \
							  (int)0x80808006, (int)0x80808002))
#define BYTE3(x) _mm512_srli_epi32(x, 24)
#define ROL(x, n) _mm512_rol_epi32(x, n)

/* E-function: l, m, r from a (already rotated left by 13 in ar) and the
 * subkeys k1 = K[i], k2 = K[i+1]. r1 = r >>> 5 is the first rotation count
 * and xor term, r the second. */
#define E_FN(a, ar, i, l, m, r)                                                     \
	__m512i m = _mm512_add_epi32(a, FB_B128_KEY(i));                                    \
	__m512i r = _mm512_rol_epi32(_mm512_mullo_epi32(ar, FB_B128_KEY((i) + 1)), 10);     \
	__m512i l = GATHER(_mm512_and_si512(m, _mm512_set1_epi32(511)), FB_MARS_SB0);       \
	__m512i r1_ = _mm512_ror_epi32(r, 5);                                       \
	l = _mm512_ternarylogic_epi32(l, r1_, r, 0x96);                             \
	m = _mm512_rolv_epi32(m, r1_);                                              \
	l = _mm512_rolv_epi32(l, r);

/* The kernel functions: one, two and four groups of 16 blocks, fused CTR
 * and CBC. */
FB_B128_DEFINE(mars_enc16, FB_MARS_SIMD_ENC, 1, PLAIN)
FB_B128_DEFINE(mars_enc32, FB_MARS_SIMD_ENC, 2, PLAIN)
FB_B128_DEFINE(mars_enc64, FB_MARS_SIMD_ENC, 4, PLAIN)
FB_B128_DEFINE(mars_ctr64, FB_MARS_SIMD_ENC, 4, CTR)
FB_B128_DEFINE(mars_dec16, FB_MARS_SIMD_DEC, 1, PLAIN)
FB_B128_DEFINE(mars_dec32, FB_MARS_SIMD_DEC, 2, PLAIN)
FB_B128_DEFINE(mars_dec64, FB_MARS_SIMD_DEC, 4, PLAIN)
FB_B128_DEFINE(mars_cbc64, FB_MARS_SIMD_DEC, 4, CBC)
FB_B128_DEFINE(mars_cfb64, FB_MARS_SIMD_ENC, 4, CFB)
FB_B128_DEFINE(mars_xts_enc64, FB_MARS_SIMD_ENC, 4, XTS)
FB_B128_DEFINE(mars_xts_dec64, FB_MARS_SIMD_DEC, 4, XTS)

static const fb_b128_kernel mars_avx512_k = {
	.nf = 3,
	.enc = { mars_enc16, mars_enc32, mars_enc64 },
	.dec = { mars_dec16, mars_dec32, mars_dec64 },
	.ctr = mars_ctr64,
	.cbc = mars_cbc64,
	.cfb = mars_cfb64,
	.xts_enc = mars_xts_enc64,
	.xts_dec = mars_xts_dec64,
};
FB_B128_DEFINE_MODES(mars_avx512, mars_avx512_k)

const fb_kernel fb_mars_avx512 = {
	.name = "mars/avx512",
	.family = "mars",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512,
	.constant_time = 0,
	.batch = 64,
	.ks_size = sizeof(fb_mars_ks),
	.note = "MARS on 4x16 blocks in zmm, S-box by vpgatherdd (not constant-time)",
	.setkey = fb_mars_setkey,
	.encrypt = mars_avx512_encrypt,
	.decrypt = mars_avx512_decrypt,
	.ctr32 = mars_avx512_ctr32,
	.cbc_dec = mars_avx512_cbc_dec,
	.cfb_dec = mars_avx512_cfb_dec,
	.xts_enc = mars_avx512_xts_enc,
	.xts_dec = mars_avx512_xts_dec,
};

#endif /* FB_X86 */
