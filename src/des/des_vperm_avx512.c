/*
 * des/vperm-avx512: DES and Triple-DES with the S-boxes looked up in
 * registers (vpermb), one block per 64-bit lane, 8 blocks per zmm, two
 * zmm interleaved: the non-bitsliced SIMD route (cf. Intel ipsec-mb's
 * vpermw lookups), and the short-run path of des/bs-avx512.
 *
 * The halves live in the "T layout" of gen/des_vperm_tables.py: byte j of
 * a half holds, in bits 0..5, output bits of S-box j arranged so that bit i
 * of every index byte p of the next round is bit i of byte A[p][i]. A round
 * is then:
 *   x = R ^ K                    (round key in T layout, one vpxorq)
 *   d_i = vpermb(x, A[.][i])     (i = 0..5)
 *   idx = bit-select of d_0..d_5 (5 vpternlogq)
 *   f = 8 masked vpermb          (S-box j's 64-byte table for byte j)
 *   L ^= f                       (the tables answer in T layout: P and E
 *                                 cost nothing)
 * Entry and exit convert each block's qword with a Benes network of delta
 * swaps (IP, P and FP folded in) and a vpermi2b that expands 4-bit nibbles
 * to T bytes. Every lookup is a register permute: constant-time.
 * 14 shuffles per round per 8 blocks; three groups of 8 blocks interleave
 * to cover the round latency. Measured (TSC ticks, this machine): DES about
 * 390 per call of 1-8 blocks, 31 per block in bulk; Triple-DES 1010 and 82.
 */
#include "des_bs_common.h"

#if FB_X86
#ifdef FB_DES_AVX512_EMULATED
/* tests/test_ct_valgrind.c compiles this file with a portable model of the
 * intrinsics, so that valgrind (which has no AVX-512) can check it */
#define TGT
#else
#include <immintrin.h>
#define TGT FB_TARGET("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")
#endif
#include "des_vperm_tables.h"
#include "des_bs_sboxes.h"
#include "des_table.h"

typedef __m512i V;

/* Groups of 8 blocks interleaved to hide the ~25-cycle round latency. */
#define VPG DES_VP_GROUPS

typedef struct {
	V perm[6], sb[8], exp[2];
} vp_consts;

TGT static inline void vp_load_consts(vp_consts *c)
{
	static const uint8_t *const perms[6] = {
		des_vp_perm0, des_vp_perm1, des_vp_perm2, des_vp_perm3, des_vp_perm4, des_vp_perm5,
	};
	static const uint8_t *const sbs[4] = { des_vp_sbox0, des_vp_sbox1, des_vp_sbox2, des_vp_sbox3 };
	for (int i = 0; i < 6; i++)
		c->perm[i] = _mm512_load_si512(perms[i]);
	for (int m = 0; m < 4; m++) {
		c->sb[2 * m] = _mm512_load_si512(sbs[m]);
		c->sb[2 * m + 1] = _mm512_load_si512(sbs[m] + 64);
	}
	c->exp[0] = _mm512_load_si512(des_vp_expand);
	c->exp[1] = _mm512_load_si512(des_vp_expand + 64);
}

#define SEL(a, b, m) _mm512_ternarylogic_epi64((a), (b), _mm512_set1_epi8((char)(m)), 0xE4) /* m ? a : b */
#define SBOX(j) ((__mmask64)(0x0101010101010101ull << (j)))

/* One round: l ^ f(r) in T layout, with the round keys k (T layout, one
 * qword per lane). */
TGT static inline V vp_round(V l, V r, V k, const vp_consts *c)
{
	V x = _mm512_xor_si512(r, k);
	V d0 = _mm512_permutexvar_epi8(c->perm[0], x), d1 = _mm512_permutexvar_epi8(c->perm[1], x);
	V d2 = _mm512_permutexvar_epi8(c->perm[2], x), d3 = _mm512_permutexvar_epi8(c->perm[3], x);
	V d4 = _mm512_permutexvar_epi8(c->perm[4], x), d5 = _mm512_permutexvar_epi8(c->perm[5], x);
	V a = SEL(d1, d0, 0x02), b = SEL(d3, d2, 0x08), e = SEL(d5, d4, 0x20);
	V idx = SEL(e, SEL(b, a, 0x0C), 0x30);
	/* S-box j's table for byte j of every qword (vpermb reads index bits
	 * 0..5), in four chains of two merged by XOR into l: shorter latency
	 * than vpermi2b pairs, measured */
	V s0 = _mm512_maskz_permutexvar_epi8(SBOX(0), idx, c->sb[0]);
	V s1 = _mm512_maskz_permutexvar_epi8(SBOX(2), idx, c->sb[2]);
	V s2 = _mm512_maskz_permutexvar_epi8(SBOX(4), idx, c->sb[4]);
	V s3 = _mm512_maskz_permutexvar_epi8(SBOX(6), idx, c->sb[6]);
	s0 = _mm512_mask_permutexvar_epi8(s0, SBOX(1), idx, c->sb[1]);
	s1 = _mm512_mask_permutexvar_epi8(s1, SBOX(3), idx, c->sb[3]);
	s2 = _mm512_mask_permutexvar_epi8(s2, SBOX(5), idx, c->sb[5]);
	s3 = _mm512_mask_permutexvar_epi8(s3, SBOX(7), idx, c->sb[7]);
	return _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(l, s0, s1, 0x96), s2, s3, 0x96);
}

/* The round key of round i for group j: one key broadcast to all lanes
 * (lanes == 0: k[i]), or one per lane (k[i][8 * VPG], group j's 8 qwords). */
#define VP_KEY(k, lanes, i, j) \
	((lanes) ? _mm512_loadu_si512((k) + 8 * VPG * (i) + 8 * (j)) : _mm512_set1_epi64((long long)(k)[i]))

/* One DES pass over g (1..VPG) groups of 8 blocks; forwards or backwards
 * through the 16 round keys. */
__attribute__((always_inline)) TGT static inline void vp_pass(V *l, V *r, const int g, const uint64_t *k,
							     const int lanes, int dec, const vp_consts *c)
{
	int i = dec ? 15 : 0, step = dec ? -1 : 1;
	for (int n = 0; n < 8; n++, i += 2 * step) {
		_Pragma("GCC unroll 4")
		for (int j = 0; j < VPG; j++)
			if (j < g)
				l[j] = vp_round(l[j], r[j], VP_KEY(k, lanes, i, j), c);
		_Pragma("GCC unroll 4")
		for (int j = 0; j < VPG; j++)
			if (j < g)
				r[j] = vp_round(r[j], l[j], VP_KEY(k, lanes, i + step, j), c);
	}
}

/* Delta swap: bits x & m <-> bits (x >> s) & m. */
#define DSWAP(x, s, m) do { \
	V t_ = _mm512_ternarylogic_epi64(_mm512_srli_epi64((x), (s)), (x), \
					 _mm512_set1_epi64((long long)(m)), 0x28); /* (a ^ b) & c */ \
	(x) = _mm512_ternarylogic_epi64((x), t_, _mm512_slli_epi64(t_, (s)), 0x96); \
} while (0)

TGT static inline void vp_enter(V x, V *l, V *r, const vp_consts *c)
{
	_Pragma("GCC unroll 16")
	for (int i = 0; i < DES_VP_BENES_IN_STAGES; i++)
		DSWAP(x, des_vp_benes_in[i][0], des_vp_benes_in[i][1]);
	const V j4 = _mm512_set1_epi64(0x7060504030201000ll), lo = _mm512_set1_epi8(0x0F);
	/* (nibble | j << 4) indexes the expansion tables */
	V il = _mm512_ternarylogic_epi64(x, lo, j4, 0xEA);                       /* a & b | c */
	V ir = _mm512_ternarylogic_epi64(_mm512_srli_epi16(x, 4), lo, j4, 0xEA);
	*l = _mm512_permutex2var_epi8(c->exp[0], il, c->exp[1]);
	*r = _mm512_permutex2var_epi8(c->exp[0], ir, c->exp[1]);
}

/* Preoutput R16 || L16 -> block qwords (FP folded in). */
TGT static inline V vp_leave(V l, V r)
{
	V x = SEL(r, _mm512_slli_epi16(l, 4), 0x0F);
	_Pragma("GCC unroll 16")
	for (int i = 0; i < DES_VP_BENES_OUT_STAGES; i++)
		DSWAP(x, des_vp_benes_out[i][0], des_vp_benes_out[i][1]);
	return x;
}

/* Whole cipher (DES or EDE, either direction) on g groups in place; k[p]
 * are the round keys of the three passes (k[0] only for DES). */
__attribute__((always_inline)) TGT static inline void vp_crypt_g(const uint64_t *const k[3], unsigned nkeys,
								 V *x, const int g, const int lanes, int dec,
								 const vp_consts *c)
{
	V l[VPG], r[VPG];
	for (int i = 0; i < g; i++)
		vp_enter(x[i], &l[i], &r[i], c);
	if (nkeys == 1) {
		vp_pass(l, r, g, k[0], lanes, dec, c);
	} else if (!dec) {
		vp_pass(l, r, g, k[0], lanes, 0, c);
		vp_pass(r, l, g, k[1], lanes, 1, c);
		vp_pass(l, r, g, k[2], lanes, 0, c);
	} else {
		vp_pass(l, r, g, k[2], lanes, 1, c);
		vp_pass(r, l, g, k[1], lanes, 0, c);
		vp_pass(l, r, g, k[0], lanes, 1, c);
	}
	for (int i = 0; i < g; i++)
		x[i] = vp_leave(l[i], r[i]);
}

/* One function per group count, so that g is a constant inside. */
#define VP_CRYPT_FN(name, g, lanes) \
	TGT static void name(const uint64_t *const k[3], unsigned nkeys, V *x, int dec, const vp_consts *c) \
	{ \
		vp_crypt_g(k, nkeys, x, g, lanes, dec, c); \
	}
VP_CRYPT_FN(vp_crypt1, 1, 0)
VP_CRYPT_FN(vp_crypt2, 2, 0)
VP_CRYPT_FN(vp_crypt3, 3, 0)
VP_CRYPT_FN(vp_crypt_lanes1, 1, 1)
VP_CRYPT_FN(vp_crypt_lanes2, 2, 1)
VP_CRYPT_FN(vp_crypt_lanes3, 3, 1)

TGT static void vp_crypt(const des_bs_ks *ks, V *x, int g, int dec, const vp_consts *c)
{
	const uint64_t *const k[3] = { ks->vk[0], ks->vk[1], ks->vk[2] };
	if (g == 1)
		vp_crypt1(k, ks->nkeys, x, dec, c);
	else if (g == 2)
		vp_crypt2(k, ks->nkeys, x, dec, c);
	else
		vp_crypt3(k, ks->nkeys, x, dec, c);
}

static inline __mmask8 vp_mask(size_t n)
{
	return n >= 8 ? 0xFF : (__mmask8)((1u << n) - 1);
}

/* Up to 8 * VPG blocks: load, crypt, then XOR (how 1: with *src; how 2:
 * with the previous ciphertext, iv first) and store. */
TGT static inline void vp_run(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec,
			      int how, const uint8_t *src, uint64_t iv, const vp_consts *c)
{
	V x[VPG], s[VPG];
	int g = (int)((n + 7) / 8);
	__mmask8 m[VPG];
	for (int i = 0; i < g; i++) {
		m[i] = vp_mask(n - 8 * (size_t)i);
		x[i] = _mm512_maskz_loadu_epi64(m[i], in + 64 * i);
		if (how)
			s[i] = _mm512_maskz_loadu_epi64(m[i], src + 64 * i);
	}
	vp_crypt(ks, x, g, dec, c);
	if (how == 2) /* previous ciphertext: shift the blocks up one lane */
		for (int i = g - 1; i >= 0; i--)
			s[i] = _mm512_alignr_epi64(s[i], i ? s[i - 1] : _mm512_set1_epi64((long long)iv), 7);
	for (int i = 0; i < g; i++) {
		if (how)
			x[i] = _mm512_xor_si512(x[i], s[i]);
		_mm512_mask_storeu_epi64(out + 64 * i, m[i], x[i]);
	}
}

TGT void fb_des_vperm_ecb(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	vp_consts c;
	vp_load_consts(&c);
	while (n) {
		size_t m = n < 8 * VPG ? n : 8 * VPG;
		vp_run(ks, out, in, m, dec, 0, NULL, 0, &c);
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
}

TGT void fb_des_vperm_ctr(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	vp_consts c;
	vp_load_consts(&c);
	_Alignas(64) uint8_t blk[64 * VPG];
	uint32_t lo = fb_load32_be(ctr + 4);
	while (n) {
		size_t m = n < 8 * VPG ? n : 8 * VPG;
		for (size_t i = 0; i < m; i++) {
			memcpy(blk + 8 * i, ctr, 4);
			fb_store32_be(blk + 8 * i + 4, lo + (uint32_t)i);
		}
		vp_run(ks, out, blk, m, 0, 1, in, 0, &c);
		lo += (uint32_t)m;
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	fb_store32_be(ctr + 4, lo);
}

TGT void fb_des_vperm_cbc_dec(const des_bs_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	vp_consts c;
	vp_load_consts(&c);
	uint64_t chain;
	memcpy(&chain, iv, 8);
	while (n) {
		size_t m = n < 8 * VPG ? n : 8 * VPG;
		uint64_t next;
		memcpy(&next, in + 8 * (m - 1), 8); /* before an in-place overwrite */
		vp_run(ks, out, in, m, 1, 2, in, chain, &c);
		chain = next;
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	memcpy(iv, &chain, 8);
}

TGT void fb_des_vperm_lanes(const uint64_t *lk, unsigned nkeys, uint8_t *y, const uint8_t *x, size_t nl, int dec)
{
	vp_consts c;
	vp_load_consts(&c);
	const uint64_t *const k[3] = { lk, lk + 16 * DES_VP_LANES, lk + 32 * DES_VP_LANES };
	V v[VPG];
	int g = nl <= 8 ? 1 : nl <= 16 ? 2 : 3;
	for (int i = 0; i < g; i++)
		v[i] = _mm512_loadu_si512(x + 64 * i);
	if (g == 1)
		vp_crypt_lanes1(k, nkeys, v, dec, &c);
	else if (g == 2)
		vp_crypt_lanes2(k, nkeys, v, dec, &c);
	else
		vp_crypt_lanes3(k, nkeys, v, dec, &c);
	for (int i = 0; i < g; i++)
		_mm512_storeu_si512(y + 64 * i, v[i]);
}

/* ---- key setup -------------------------------------------------------------------
 *
 * The same schedule as fb_des_bs_setkey (des_bs_keys.c), sixteen words at a
 * time: each round-key word is a variable shift of one 32-bit half of the
 * key, masked and negated; des/vperm-avx512's T-layout round key is the
 * round's 48 words narrowed to bytes, gathered by vpermb and collected by
 * vpmovb2m. Constant-time (shift counts and indices are public), and about
 * twenty times faster than the portable loop. */
TGT static void vp_schedule(uint32_t *rk, uint64_t *vk, const uint8_t key[8])
{
	uint64_t k = fb_load64_be(key);
	const V hi = _mm512_set1_epi32((int)(uint32_t)(k >> 32)), lo = _mm512_set1_epi32((int)(uint32_t)k);
	const V one = _mm512_set1_epi32(1), gather = _mm512_load_si512(des_vp_key_gather);
	for (int r = 0; r < 16; r++) {
		V w[3];
		for (int h = 0; h < 3; h++) {
			int i = 48 * r + 16 * h;
			V sh = _mm512_cvtepu8_epi32(_mm_loadu_si128((const void *)(des_bs_key_shift + i)));
			V x = _mm512_mask_blend_epi32(des_bs_key_hi[i / 16], lo, hi);
			x = _mm512_and_si512(_mm512_srlv_epi32(x, sh), one);
			w[h] = _mm512_sub_epi32(_mm512_setzero_si512(), x);
			_mm512_storeu_si512(rk + i, w[h]);
		}
		V b = _mm512_castsi128_si512(_mm512_cvtepi32_epi8(w[0]));
		b = _mm512_inserti32x4(b, _mm512_cvtepi32_epi8(w[1]), 1);
		b = _mm512_inserti32x4(b, _mm512_cvtepi32_epi8(w[2]), 2);
		b = _mm512_inserti32x4(b, _mm_setzero_si128(), 3);
		vk[r] = (uint64_t)_mm512_movepi8_mask(_mm512_permutexvar_epi8(gather, b)) | DES_VP_KEY_SEL;
	}
}

/* Bitsliced round keys plus, for short runs, des/gfni-avx512's round keys
 * where the CPU has it (gfni_ok) or else vperm's. */
TGT static int bs512_setkey(des_bs_ks *ks, const uint8_t *key, size_t keylen, int gfni_ok)
{
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	ks->use_table = 0;
	int vk = !gfni_ok || !fb_kernel_supported(&fb_des_gfni_avx512);
	if (vk)
		ks->gf.nkeys = 0;
	else
		fb_des_gfni_avx512.setkey(&ks->gf, key, keylen);
	for (unsigned p = 0; p < ks->nkeys; p++) {
		const uint8_t *kp = key + (8 * p) % keylen; /* K1 K2 K3, or K1 K2 K1 */
		if (vk)
			vp_schedule(ks->rk[p], ks->vk[p], kp);
		else
			fb_des_bs_words_gfni(ks->rk[p], kp);
	}
	return FB_OK;
}

int fb_des_bs512_setkey(void *ks, const uint8_t *key, size_t keylen)
{
	return bs512_setkey(ks, key, keylen, 1);
}

static int vp_setkey(void *ks, const uint8_t *key, size_t keylen)
{
	return bs512_setkey(ks, key, keylen, 0);
}

int fb_des_bs512_setkey_table(void *ksp, const uint8_t *key, size_t keylen)
{
	des_bs_ks *ks = ksp;
	int err = fb_des_bs512_setkey(ksp, key, keylen);
	if (err != FB_OK)
		return err;
	ks->use_table = 1;
	return fb_des_table.setkey(ks->table_ks, key, keylen);
}

static void vp_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_des_vperm_ecb(ks, out, in, n, 0);
}

static void vp_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_des_vperm_ecb(ks, out, in, n, 1);
}

static void vp_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	fb_des_vperm_ctr(ks, out, in, n, ctr);
}

static void vp_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	fb_des_vperm_cbc_dec(ks, out, in, n, iv);
}

const fb_kernel fb_des_vperm_avx512 = {
	.name = "des/vperm-avx512",
	.family = "des",
	.block_size = 8,
	.cpu_needs = FB_CPU_AVX512 | FB_CPU_AVX512VBMI,
	.constant_time = 1,
	.batch = 8 * VPG,
	.ks_size = sizeof(des_bs_ks),
	.note = "S-boxes by vpermb in registers, 8 blocks per zmm, Benes-network IP/FP",
	.setkey = vp_setkey,
	.encrypt = vp_encrypt,
	.decrypt = vp_decrypt,
	.ctr32 = vp_ctr32,
	.cbc_dec = vp_cbc_dec,
};

#endif /* FB_X86 */
