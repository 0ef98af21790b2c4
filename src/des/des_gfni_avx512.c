/*
 * des/gfni-avx512: DES and Triple-DES, one block per 64-bit lane, 8 blocks
 * per zmm, up to DES_GF_GROUPS zmm interleaved. Constant-time: every lookup
 * is a register permute and every address is public.
 *
 * Each half lives in the "row form" of gen/des_gfni_tables.py: byte d holds
 * the six bits S-box d reads next round, bit c of every byte comes from
 * S-box 7-c of the last round. A round is then
 *     idx = gf2p8affineqb(R ^ K, COMPACT)        E: six cells -> 6-bit index
 *     D   = 8 masked vpermb (S-box d's table for byte d)
 *     L  ^= gf2p8affineqb(TRANSPOSE, D)          P: the answer, in row form
 * 8 shuffles (port 5) and 2 affine transforms per 8 blocks per round, about
 * about half the shuffles of a vpermb-only round. IP, FP and the key schedule are
 * bit gathers (vpshufbitqmb), so a key costs about 40 vector operations.
 */
#include <string.h>
#include "des_keys.h"
#include "des_gfni.h"

#if FB_X86
#ifdef FB_DES_AVX512_EMULATED
#define TGT
#else
#include <immintrin.h>
#define TGT FB_TARGET("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512bitalg,gfni")
#endif
#include "des_gfni_tables.h"
#include "des_bs_sboxes.h"

typedef __m512i V;
#define GFG DES_GF_GROUPS

typedef struct {
	V sb[8], compact, transpose;
} gf_consts;

TGT static inline void gf_load_consts(gf_consts *c)
{
	for (int i = 0; i < 8; i++)
		c->sb[i] = _mm512_load_si512(des_gfni_sbox[i]);
	c->compact = _mm512_set1_epi64((long long)DES_GFNI_COMPACT);
	c->transpose = _mm512_set1_epi64((long long)DES_GFNI_TRANSPOSE);
}

/* Byte b, bit m of each result qword = bit (idx[m] byte b) of the source
 * qword, or 0 where wm[m] is 0: a general bit permutation in 8 gathers. */
TGT static inline V gf_gather(V src, const uint64_t idx[8], const uint64_t wm[8])
{
	V acc = _mm512_setzero_si512();
	for (int m = 0; m < 8; m++) {
		__mmask64 k = _mm512_mask_bitshuffle_epi64_mask(wm[m], src, _mm512_set1_epi64((long long)idx[m]));
		acc = _mm512_mask_add_epi8(acc, k, acc, _mm512_set1_epi8((char)(1 << m)));
	}
	return acc;
}

/* Block qwords -> row forms of L0 and R0 (IP folded in). */
TGT static inline void gf_enter(V x, V *l, V *r)
{
	*l = gf_gather(x, des_gfni_in_l, des_gfni_cells);
	*r = gf_gather(x, des_gfni_in_r, des_gfni_cells);
}

/* Row forms of L16, R16 -> block qwords FP(R16 L16). */
TGT static inline V gf_leave(V l, V r)
{
	V acc = _mm512_setzero_si512();
	for (int m = 0; m < 8; m++) {
		uint64_t lm = des_gfni_out_lmask[m];
		__mmask64 k = _mm512_mask_bitshuffle_epi64_mask(lm, l, _mm512_set1_epi64((long long)des_gfni_out_l[m])) |
			      _mm512_mask_bitshuffle_epi64_mask(~lm, r, _mm512_set1_epi64((long long)des_gfni_out_r[m]));
		acc = _mm512_mask_add_epi8(acc, k, acc, _mm512_set1_epi8((char)(1 << m)));
	}
	return acc;
}

/* f(R) in row form from x = R ^ K. */
TGT static inline V gf_f(V x, const gf_consts *c)
{
	V idx = _mm512_gf2p8affine_epi64_epi8(x, c->compact, 0);
#define LOOK(s) _mm512_maskz_permutexvar_epi8(0x0101010101010101ull << (s), idx, c->sb[s])
	V a = _mm512_ternarylogic_epi64(LOOK(0), LOOK(1), LOOK(2), 0xFE);
	V b = _mm512_ternarylogic_epi64(LOOK(3), LOOK(4), LOOK(5), 0xFE);
	V d = _mm512_ternarylogic_epi64(a, LOOK(6), LOOK(7), 0xFE);
#undef LOOK
	return _mm512_gf2p8affine_epi64_epi8(c->transpose, _mm512_or_si512(b, d), 0);
}

/* Round key i of group j: broadcast (lanes == 0: k[i]) or per lane
 * (k[i * 8 * GFG + 8 * j ...]). */
#define GF_KEY(k, lanes, i, j) \
	((lanes) ? _mm512_loadu_si512((k) + 8 * GFG * (i) + 8 * (j)) : _mm512_set1_epi64((long long)(k)[i]))

/* One DES pass over g groups, forwards or backwards through 16 round keys.
 * x holds R ^ (first round key) on entry; the 16th round skips it. */
__attribute__((always_inline)) TGT static inline void gf_pass(V *l, V *r, V *x, const int g, const uint64_t *k,
							     const int lanes, int dec, const gf_consts *c)
{
	int i = dec ? 15 : 0, step = dec ? -1 : 1;
	for (int n = 0; n < 16; n++, i += step) {
		_Pragma("GCC unroll 4")
		for (int j = 0; j < GFG; j++) {
			if (j >= g)
				continue;
			V o = gf_f(x[j], c), t = l[j];
			l[j] = r[j];
			r[j] = _mm512_xor_si512(t, o);
			if (n < 15)
				x[j] = _mm512_ternarylogic_epi64(t, o, GF_KEY(k, lanes, i + step, j), 0x96);
		}
	}
}

/* Between passes: the halves swap (FP then IP cancel), and the next pass
 * starts from its first round key. */
__attribute__((always_inline)) TGT static inline void gf_turn(V *l, V *r, V *x, const int g, const uint64_t *k,
							     const int lanes, int dec)
{
	for (int j = 0; j < g; j++) {
		V t = l[j];
		l[j] = r[j];
		r[j] = t;
		x[j] = _mm512_xor_si512(t, GF_KEY(k, lanes, dec ? 15 : 0, j));
	}
}

/* The whole cipher (DES or EDE, either direction) on g groups in place;
 * k[p] are the round keys of pass p (k[0] only for DES). */
__attribute__((always_inline)) TGT static inline void gf_crypt_g(const uint64_t *const k[3], unsigned nkeys,
								 V *v, const int g, const int lanes, int dec,
								 const gf_consts *c)
{
	V l[GFG], r[GFG], x[GFG];
	const uint64_t *k0 = k[nkeys == 1 || !dec ? 0 : 2], *k2 = k[nkeys == 1 || !dec ? 2 : 0];
	for (int j = 0; j < g; j++) {
		gf_enter(v[j], &l[j], &r[j]);
		x[j] = _mm512_xor_si512(r[j], GF_KEY(k0, lanes, dec ? 15 : 0, j));
	}
	gf_pass(l, r, x, g, k0, lanes, dec, c);
	if (nkeys > 1) {
		gf_turn(l, r, x, g, k[1], lanes, !dec);
		gf_pass(l, r, x, g, k[1], lanes, !dec, c);
		gf_turn(l, r, x, g, k2, lanes, dec);
		gf_pass(l, r, x, g, k2, lanes, dec, c);
	}
	for (int j = 0; j < g; j++)
		v[j] = gf_leave(l[j], r[j]);
}

#define GF_CRYPT_FN(name, g, lanes) \
	TGT static void name(const uint64_t *const k[3], unsigned nkeys, V *v, int dec, const gf_consts *c) \
	{ \
		gf_crypt_g(k, nkeys, v, g, lanes, dec, c); \
	}
GF_CRYPT_FN(gf_crypt1, 1, 0)
GF_CRYPT_FN(gf_crypt2, 2, 0)
GF_CRYPT_FN(gf_crypt3, 3, 0)
GF_CRYPT_FN(gf_crypt4, 4, 0)
GF_CRYPT_FN(gf_crypt_lanes1, 1, 1)
GF_CRYPT_FN(gf_crypt_lanes2, 2, 1)
GF_CRYPT_FN(gf_crypt_lanes3, 3, 1)
GF_CRYPT_FN(gf_crypt_lanes4, 4, 1)

typedef void gf_crypt_fn(const uint64_t *const k[3], unsigned nkeys, V *v, int dec, const gf_consts *c);
static gf_crypt_fn *const gf_bcast[GFG] = { gf_crypt1, gf_crypt2, gf_crypt3, gf_crypt4 };
static gf_crypt_fn *const gf_lanes[GFG] = { gf_crypt_lanes1, gf_crypt_lanes2, gf_crypt_lanes3, gf_crypt_lanes4 };

static inline __mmask8 gf_mask(size_t n)
{
	return n >= 8 ? 0xFF : (__mmask8)((1u << n) - 1);
}

/* Up to 8 * GFG blocks: load, crypt, then XOR (how 1: with *src; how 2:
 * with the previous ciphertext, iv first: CBC decryption) and store; how 3
 * (CFB decryption) crypts the previous ciphertext (iv first) and XORs the
 * ciphertext in. Every load comes before any store: out == in works. */
TGT static inline void gf_run(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec,
			      int how, const uint8_t *src, uint64_t iv, const gf_consts *c)
{
	V x[GFG], s[GFG];
	int g = (int)((n + 7) / 8);
	__mmask8 m[GFG];
	const uint64_t *const k[3] = { ks->k[0], ks->k[1], ks->k[2] };
	for (int i = 0; i < g; i++) {
		m[i] = gf_mask(n - 8 * (size_t)i);
		x[i] = _mm512_maskz_loadu_epi64(m[i], in + 64 * i);
		if (how)
			s[i] = _mm512_maskz_loadu_epi64(m[i], src + 64 * i);
	}
	if (how == 3) /* the cipher's input: the ciphertext a lane up */
		for (int i = g - 1; i >= 0; i--)
			x[i] = _mm512_alignr_epi64(s[i], i ? s[i - 1] : _mm512_set1_epi64((long long)iv), 7);
	gf_bcast[g - 1](k, ks->nkeys, x, dec, c);
	if (how == 2) /* previous ciphertext: shift the blocks up one lane */
		for (int i = g - 1; i >= 0; i--)
			s[i] = _mm512_alignr_epi64(s[i], i ? s[i - 1] : _mm512_set1_epi64((long long)iv), 7);
	for (int i = 0; i < g; i++) {
		if (how)
			x[i] = _mm512_xor_si512(x[i], s[i]);
		_mm512_mask_storeu_epi64(out + 64 * i, m[i], x[i]);
	}
}

TGT void fb_des_gfni_ecb(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	gf_consts c;
	gf_load_consts(&c);
	while (n) {
		size_t m = n < 8 * GFG ? n : 8 * GFG;
		gf_run(ks, out, in, m, dec, 0, NULL, 0, &c);
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
}

TGT void fb_des_gfni_ctr(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	gf_consts c;
	gf_load_consts(&c);
	_Alignas(64) uint8_t blk[64 * GFG];
	uint32_t lo = fb_load32_be(ctr + 4);
	while (n) {
		size_t m = n < 8 * GFG ? n : 8 * GFG;
		for (size_t i = 0; i < m; i++) {
			memcpy(blk + 8 * i, ctr, 4);
			fb_store32_be(blk + 8 * i + 4, lo + (uint32_t)i);
		}
		gf_run(ks, out, blk, m, 0, 1, in, 0, &c);
		lo += (uint32_t)m;
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	fb_store32_be(ctr + 4, lo);
}

/* CBC decryption (cfb 0) or CFB decryption (cfb 1) of n blocks; iv
 * becomes the last ciphertext block. */
TGT static inline __attribute__((always_inline)) void gf_chain_dec(const des_gfni_ks *ks, uint8_t *out,
								  const uint8_t *in, size_t n, uint8_t *iv,
								  int cfb)
{
	gf_consts c;
	gf_load_consts(&c);
	uint64_t chain;
	memcpy(&chain, iv, 8);
	while (n) {
		size_t m = n < 8 * GFG ? n : 8 * GFG;
		uint64_t next;
		memcpy(&next, in + 8 * (m - 1), 8); /* before an in-place overwrite */
		gf_run(ks, out, in, m, !cfb, cfb ? 3 : 2, in, chain, &c);
		chain = next;
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	memcpy(iv, &chain, 8);
}

TGT void fb_des_gfni_cbc_dec(const des_gfni_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	gf_chain_dec(ks, out, in, n, iv, 0);
}

/* Through the mode layer's copy-and-encrypt, CFB decryption of 64 bytes ran
 * at 0.96 of CBC decryption's speed (DES, Sapphire Rapids class). */
TGT static void gf_cfb_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	gf_chain_dec(ks, out, in, n, iv, 1);
}

TGT void fb_des_gfni_lanes(const uint64_t *lk, unsigned nkeys, uint8_t *y, const uint8_t *x, size_t nl, int dec)
{
	gf_consts c;
	gf_load_consts(&c);
	const uint64_t *const k[3] = { lk, lk + 16 * DES_GF_LANES, lk + 32 * DES_GF_LANES };
	V v[GFG];
	int g = (int)((nl + 7) / 8);
	for (int i = 0; i < g; i++)
		v[i] = _mm512_loadu_si512(x + 64 * i);
	gf_lanes[g - 1](k, nkeys, v, dec, &c);
	for (int i = 0; i < g; i++)
		_mm512_storeu_si512(y + 64 * i, v[i]);
}

/* ---- key setup: round key i (row form) gathered straight from the key ------------- */

TGT void fb_des_gfni_keys(uint64_t rk[16], const uint8_t key[8])
{
	uint64_t kq;
	memcpy(&kq, key, 8); /* little-endian qword, as the tables expect */
	V k = _mm512_set1_epi64((long long)kq);
	for (int h = 0; h < 2; h++) {
		V acc = _mm512_setzero_si512();
		for (int m = 0; m < 8; m++) {
			__mmask64 b = _mm512_mask_bitshuffle_epi64_mask(des_gfni_cells[m], k,
									 _mm512_load_si512(des_gfni_key[m] + 8 * h));
			acc = _mm512_mask_add_epi8(acc, b, acc, _mm512_set1_epi8((char)(1 << m)));
		}
		_mm512_storeu_si512(rk + 8 * h, acc);
	}
}

/* The bitsliced kernels' round-key words (des_bs_ks.rk, see
 * the single-key bitsliced kernels' setkey) by the same bit gathers: round r's 48 key bits in one
 * vpshufbitqmb, widened to all-zero/all-one words by vpmovm2d. FIPS key bit
 * b is bit b ^ 7 of the little-endian qword. Constant-time. */
TGT void fb_des_bs_words_gfni(uint32_t rk[16 * 48], const uint8_t key[8])
{
	uint64_t kq;
	memcpy(&kq, key, 8);
	const V k = _mm512_set1_epi64((long long)kq), seven = _mm512_set1_epi8(7);
	const __mmask64 m48 = (1ull << 48) - 1;
	for (int r = 0; r < 16; r++) {
		V idx = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m48, des_bs_key_bit + 48 * r), seven);
		__mmask64 b = _mm512_mask_bitshuffle_epi64_mask(m48, k, idx);
		for (int h = 0; h < 3; h++)
			_mm512_storeu_si512(rk + 48 * r + 16 * h, _mm512_movm_epi32((__mmask16)(b >> (16 * h))));
	}
}

TGT static int gf_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	des_gfni_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	FB_DES_SCHEDULES(fb_des_gfni_keys, ks->k, key, keylen);
	return FB_OK;
}

static void gf_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_des_gfni_ecb(ks, out, in, n, 0);
}

static void gf_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_des_gfni_ecb(ks, out, in, n, 1);
}

static void gf_ctr32(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	fb_des_gfni_ctr(ks, out, in, n, ctr);
}

static void gf_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	fb_des_gfni_cbc_dec(ks, out, in, n, iv);
}

/* ---- lane engine: every lane its own key (fb_multi_crypt) ------------------------ */

typedef struct {
	uint64_t gk[3 * 16 * DES_GF_LANES]; /* fb_des_gfni_lanes' layout */
	unsigned nkeys;
} gf_lane_keys;

static void gf_lane_setkeys(void *ksp, const uint8_t *const *keys, size_t keylen, size_t nl)
{
	gf_lane_keys *ks = ksp;
	uint64_t rk[16];
	ks->nkeys = keylen == 8 ? 1 : 3;
	/* Lanes nl .. the next multiple of 8 are computed too: zero keys there
	 * (the rest of the 12 KB is written below or never read). */
	size_t end = (nl + 7) / 8 * 8;
	for (unsigned p = 0; p < ks->nkeys && end > nl; p++)
		for (int r = 0; r < 16; r++)
			memset(&ks->gk[(16 * p + r) * DES_GF_LANES + nl], 0, (end - nl) * sizeof(uint64_t));
	for (size_t l = 0; l < nl; l++) {
		const size_t off[3] = { 0, keylen > 8 ? 8 : 0, keylen == 24 ? 16 : 0 };
		for (unsigned p = 0; p < ks->nkeys; p++) {
			fb_des_gfni_keys(rk, keys[l] + off[p]);
			for (int r = 0; r < 16; r++)
				ks->gk[(16 * p + r) * DES_GF_LANES + l] = rk[r];
		}
	}
	fb_wipe(rk, sizeof rk);
}

static void gf_lane_step(const void *ksp, uint8_t *out, const uint8_t *in, size_t nl, int dec)
{
	const gf_lane_keys *ks = ksp;
	fb_des_gfni_lanes(ks->gk, ks->nkeys, out, in, nl, dec);
}

static const fb_lanes gf_lanes_engine = {
	.max_lanes = DES_GF_LANES,
	.constant_time = 1,
	.min = { { { 1, 1 }, 0 } },
	.keys_size = sizeof(gf_lane_keys),
	.setkeys = gf_lane_setkeys,
	.step = gf_lane_step,
};

const fb_kernel fb_des_gfni_avx512 = {
	.name = "des/gfni-avx512",
	.family = "des",
	.block_size = 8,
	.cpu_needs = FB_CPU_AVX512 | FB_CPU_AVX512VBMI | FB_CPU_AVX512BITALG | FB_CPU_GFNI,
	.constant_time = 1,
	.batch = 8 * GFG,
	.ks_size = sizeof(des_gfni_ks),
	.note = "S-boxes by vpermb, E and P by GF(2) affine transforms, 8 blocks per zmm",
	.setkey = gf_setkey,
	.encrypt = gf_encrypt,
	.decrypt = gf_decrypt,
	.ctr32 = gf_ctr32,
	.cbc_dec = gf_cbc_dec,
	.cfb_dec = gf_cfb_dec,
	.lanes = &gf_lanes_engine,
};

#endif /* FB_X86 */
