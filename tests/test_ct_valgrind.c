/*
 * Constant-time check of the kernels that claim it, under valgrind:
 *
 *   valgrind --error-exitcode=1 --track-origins=yes test_ct_valgrind [KERNEL...]
 *
 * The key and the data are marked undefined (VALGRIND_MAKE_MEM_UNDEFINED)
 * before setkey, encrypt, decrypt, ctr32, cbc_dec and cfb_dec run, for DES, two-key
 * and three-key EDE and run lengths that reach every path (short runs,
 * partial and full batches, several batches). Memcheck then reports any
 * conditional jump or memory address that depends on them: the kernel is
 * not constant-time. Outputs are marked defined again afterwards and checked
 * against des/table.
 *
 * Valgrind has no AVX-512, so the AVX-512 kernels (des_bs_avx512.c,
 * des_gfni_avx512.c) are compiled a second time into this program against
 * a portable model of the intrinsics they use (below): the model is written
 * without branches or addresses that depend on vector contents, as the
 * instructions are, so what memcheck checks is the kernels' own code - its
 * control flow, table indices and loads and stores. AVX2 kernels run
 * natively.
 *
 * Valgrind has no VAES either: aes/vaes-avx2 is compiled a second time
 * (ct_model_vaes.c) with each 256-bit VAES round as two AES-NI rounds, one
 * per 128-bit lane, which is what the instruction does. Likewise
 * rc6/avx512 and serpent/avx512 (ct_model_avx512.c), aes/vaes-avx512
 * (ct_model_vaes512.c) and twofish/avx512-gfni-ct (ct_model_twofish512.c,
 * vpermt2b and gf2p8affineqb modelled too). Nor GFNI: des/bs-avx2-gfni
 * runs with its gf2p8affineqb in C (ct_model_des_avx2.c).
 *
 * Without arguments: every constant-time DES kernel this CPU (as valgrind
 * presents it) runs, plus the two modelled AVX-512 kernels and the
 * multi-stream API (fb_multi_crypt, src/modes/multi.c) over both modelled engines.
 * family:NAME: every constant-time kernel of that family valgrind runs, and
 * the family's models (other families: setkey and every step - encrypt,
 * decrypt and the fused CTR, CBC, CFB and XTS steps - against the family's
 * portable kernel, every run length from one block to a batch and one
 * more, then two batches less one and three and five blocks). With
 * kernel names: those (a kernel that is not constant-time, such as
 * des/table, must make valgrind fail). The negative self-checks, one
 * secret-dependent step added to a constant-time kernel (or model):
 * leaky:NAME (a branch after encrypt), leaky-load:NAME (a table load at a
 * secret index after decrypt), leaky-setkey:NAME (a branch on the key in
 * setkey); each must be reported. Exit 77 (skip) when not under valgrind,
 * or when nothing of the request runs on this CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>
#include "ct_model_tern.h"
#include "../src/internal.h"
#include "../src/des/des_table.h"

/* ---- a portable model of the AVX-512 intrinsics des/bs-avx512 and
 *      des/gfni-avx512 use ------------------------------------------------------- */

typedef union {
	uint64_t q[8];
	uint32_t d[16];
	uint16_t w[32];
	uint8_t b[64];
} __m512i;
typedef uint16_t __mmask16;
typedef uint8_t __mmask8;
typedef uint64_t __mmask64;

static inline __m512i _mm512_setzero_si512(void)
{
	__m512i r;
	memset(&r, 0, sizeof r);
	return r;
}
static inline __m512i _mm512_set1_epi64(long long v)
{
	__m512i r;
	for (int i = 0; i < 8; i++)
		r.q[i] = (uint64_t)v;
	return r;
}
static inline __m512i _mm512_set1_epi32(int v)
{
	return _mm512_set1_epi64((long long)((uint64_t)(uint32_t)v * 0x100000001ull));
}
static inline __m512i _mm512_set1_epi8(char v)
{
	return _mm512_set1_epi64((long long)((uint64_t)(uint8_t)v * 0x0101010101010101ull));
}
static inline __m512i _mm512_setr_epi64(long long a, long long b, long long c, long long d, long long e,
					long long f, long long g, long long h)
{
	__m512i r = { { (uint64_t)a, (uint64_t)b, (uint64_t)c, (uint64_t)d, (uint64_t)e, (uint64_t)f,
			(uint64_t)g, (uint64_t)h } };
	return r;
}
static inline __m512i _mm512_loadu_si512(const void *p)
{
	__m512i r;
	memcpy(&r, p, sizeof r);
	return r;
}
#define _mm512_load_si512 _mm512_loadu_si512
static inline void _mm512_storeu_si512(void *p, __m512i a)
{
	memcpy(p, &a, sizeof a);
}
static inline __m512i _mm512_maskz_loadu_epi64(__mmask8 k, const void *p)
{
	__m512i r = _mm512_setzero_si512();
	for (int i = 0; i < 8; i++)
		if (k >> i & 1)
			memcpy(&r.q[i], (const uint8_t *)p + 8 * i, 8);
	return r;
}
static inline void _mm512_mask_storeu_epi64(void *p, __mmask8 k, __m512i a)
{
	for (int i = 0; i < 8; i++)
		if (k >> i & 1)
			memcpy((uint8_t *)p + 8 * i, &a.q[i], 8);
}
static inline __m512i _mm512_xor_si512(__m512i a, __m512i b)
{
	for (int i = 0; i < 8; i++)
		a.q[i] ^= b.q[i];
	return a;
}
static inline __m512i _mm512_ternarylogic_epi64(__m512i a, __m512i b, __m512i c, int imm)
{
	for (int i = 0; i < 8; i++)
		a.q[i] = ct_model_tern(a.q[i], b.q[i], c.q[i], imm);
	return a;
}

/* The 256-bit forms des/bs-avx512 runs on blocks or lanes 0-255 (round256, round256l). */
typedef union {
	uint64_t q[4];
} __m256i;
static inline __m256i _mm256_set1_epi32(int v)
{
	uint64_t q = (uint64_t)(uint32_t)v * 0x100000001ull;
	__m256i r = { { q, q, q, q } };
	return r;
}
static inline __m256i _mm256_xor_si256(__m256i a, __m256i b)
{
	for (int i = 0; i < 4; i++)
		a.q[i] ^= b.q[i];
	return a;
}
static inline __m256i _mm256_ternarylogic_epi64(__m256i a, __m256i b, __m256i c, int imm)
{
	for (int i = 0; i < 4; i++)
		a.q[i] = ct_model_tern(a.q[i], b.q[i], c.q[i], imm);
	return a;
}

/* Byte t of a table of n bytes, chosen without a data-dependent address
 * (a register permute reads no memory at an index). */
static inline uint8_t pick(const uint8_t *tab, unsigned n, unsigned t)
{
	uint8_t v = 0;
	for (unsigned j = 0; j < n; j++) {
		uint32_t eq = ((uint32_t)(j ^ t) - 1u) >> 31; /* 1 iff j == t */
		v |= tab[j] & (uint8_t)(0u - eq);
	}
	return v;
}
static inline __m512i _mm512_permutexvar_epi8(__m512i idx, __m512i a)
{
	__m512i r;
	for (int i = 0; i < 64; i++)
		r.b[i] = pick(a.b, 64, idx.b[i] & 63u);
	return r;
}
static inline __m512i _mm512_maskz_permutexvar_epi8(__mmask64 k, __m512i idx, __m512i a)
{
	__m512i r = _mm512_permutexvar_epi8(idx, a);
	for (int i = 0; i < 64; i++)
		if (!(k >> i & 1))
			r.b[i] = 0;
	return r;
}
static inline __m512i _mm512_permutex2var_epi64(__m512i a, __m512i idx, __m512i b)
{
	__m512i r; /* indices are constants in the kernels */
	for (int i = 0; i < 8; i++)
		r.q[i] = idx.q[i] & 8 ? b.q[idx.q[i] & 7] : a.q[idx.q[i] & 7];
	return r;
}
static inline __m512i _mm512_permutex2var_epi8(__m512i a, __m512i idx, __m512i b)
{
	__m512i r; /* indices are constants in the kernels */
	for (int i = 0; i < 64; i++)
		r.b[i] = idx.b[i] & 64 ? b.b[idx.b[i] & 63] : a.b[idx.b[i] & 63];
	return r;
}
static inline __m512i _mm512_alignr_epi64(__m512i a, __m512i b, int n)
{
	__m512i r;
	for (int i = 0; i < 8; i++)
		r.q[i] = i + n < 8 ? b.q[i + n] : a.q[i + n - 8];
	return r;
}
static inline __m512i _mm512_gf2p8affine_epi64_epi8(__m512i x, __m512i a, int c)
{
	__m512i r;
	for (int q = 0; q < 8; q++)
		for (int i = 0; i < 8; i++) {
			unsigned v = 0;
			for (int k = 0; k < 8; k++) {
				unsigned p = a.b[8 * q + 7 - k] & x.b[8 * q + i];
				p ^= p >> 4;
				p ^= p >> 2;
				p ^= p >> 1;
				v |= (p & 1u) << k;
			}
			r.b[8 * q + i] = (uint8_t)(v ^ (unsigned)c);
		}
	return r;
}

static inline __m512i _mm512_or_si512(__m512i a, __m512i b)
{
	for (int i = 0; i < 8; i++)
		a.q[i] |= b.q[i];
	return a;
}
static inline __m512i _mm512_mask_add_epi8(__m512i src, __mmask64 k, __m512i a, __m512i b)
{
	for (int i = 0; i < 64; i++) { /* k is data (a vpshufbitqmb result): no branch */
		uint8_t m = (uint8_t)(0u - (unsigned)(k >> i & 1));
		src.b[i] = (uint8_t)((src.b[i] & ~m) | ((a.b[i] + b.b[i]) & m));
	}
	return src;
}
/* vpshufbitqmb: bit i of the result = bit (c byte i) of qword i / 8 of b; the
 * bit positions are public (tables), the bits are data */
static inline __mmask64 _mm512_mask_bitshuffle_epi64_mask(__mmask64 k, __m512i b, __m512i c)
{
	__mmask64 r = 0;
	for (int i = 0; i < 64; i++)
		r |= (b.q[i / 8] >> (c.b[i] & 63u) & 1u) << i;
	return r & k;
}

static inline __m512i _mm512_maskz_loadu_epi8(__mmask64 k, const void *p)
{
	__m512i r = _mm512_setzero_si512();
	for (int i = 0; i < 64; i++) /* k is public (a length) */
		if (k >> i & 1)
			r.b[i] = ((const uint8_t *)p)[i];
	return r;
}
static inline __m512i _mm512_movm_epi32(__mmask16 k)
{
	__m512i r;
	for (int i = 0; i < 16; i++) /* k is data (key bits): no branch */
		r.d[i] = 0u - (uint32_t)(k >> i & 1);
	return r;
}

/* The modelled kernels, renamed so as not to clash with the library's. */
#define FB_DES_AVX512_EMULATED 1
#define fb_des_bs_avx512 ct_model_des_bs_avx512
#define fb_des_bs_avx512_t2b ct_model_des_bs_avx512_t2b
#define fb_des_bs_avx512_table ct_model_des_bs_avx512_table
#define fb_des_bs512_ops ct_model_bs512_ops
#define fb_multi_crypt ct_model_multi_crypt
#define fb_des_bs512_lanes ct_model_bs512_lanes
#define fb_des_bs256_lanes ct_model_bs256_lanes /* on the library's des/bs-avx2 */
#define fb_des_bs256_gf_lanes ct_model_bs256_gf_lanes
#define fb_des_gfni_avx512 ct_model_des_gfni_avx512
#define fb_des_gfni_ecb ct_model_gfni_ecb
#define fb_des_gfni_ctr ct_model_gfni_ctr
#define fb_des_gfni_cbc_dec ct_model_gfni_cbc_dec
#define fb_des_gfni_lanes ct_model_gfni_lanes
#define fb_des_gfni_keys ct_model_gfni_keys
#define fb_des_bs_words_gfni ct_model_bs_words_gfni
#include "../src/des/des_gfni_avx512.c"
#include "../src/des/des_bs_avx512.c"
#define fb_select_lanes ct_model_select_lanes
#include "../src/des/des_bs_lanes.c"
#include "../src/modes/multi.c"

/* The multi-stream drive layer above asks for its engine here: the
 * modelled kernel named in the options, which runs on any CPU; any other
 * name (the reference, des/table) as the library would choose. */
#undef fb_select_lanes
int fb_select_lanes(const fb_selection_query *q, size_t streams, size_t blocks, int one_key,
		    fb_lane_choice *out);
int ct_model_select_lanes(const fb_selection_query *q, size_t streams, size_t blocks, int one_key,
			  fb_lane_choice *out)
{
	const fb_kernel *k = NULL;
	if (q->forced && !strcmp(q->forced, "des/bs-avx512"))
		k = &ct_model_des_bs_avx512;
	else if (q->forced && !strcmp(q->forced, "des/gfni-avx512"))
		k = &ct_model_des_gfni_avx512;
	if (!k)
		return fb_select_lanes(q, streams, blocks, one_key, out);
	out->kernel = k;
	out->lanes = k->lanes;
	out->whole = 0;
	return FB_OK;
}

/* ---- the check ---------------------------------------------------------------------------- */

static unsigned long long rs = 0x853c49e6748fea9bull;
static uint8_t rnd8(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint8_t)(rs >> 24);
}

/* The reference for each family: its portable kernel, run on defined
 * copies of the key and the data. */
static const fb_kernel *reference_of(const char *family)
{
	static const char *const refs[][2] = {
		{ "des", "des/table" }, { "aes", "aes/ct64" }, { "rc6", "rc6/portable" },
		{ "serpent", "serpent/bitslice" }, { "twofish", "twofish/table" }, { "mars", "mars/portable" },
	};
	for (size_t i = 0; i < sizeof refs / sizeof *refs; i++)
		if (!strcmp(family, refs[i][0]))
			return fb_kernel_by_name(refs[i][1]);
	return NULL;
}

#define MAXN 800 /* run_lengths: 3 x 256 + 5 blocks for a 256-block batch */
#define MAXB (16 * MAXN)
enum { OP_ENC, OP_DEC, OP_CTR, OP_CBC_DEC, OP_CBC_ENC, OP_CFB_DEC, OP_CFB_ENC, OP_OFB, OP_XTS_ENC, OP_XTS_DEC,
       OP_XTS_UNIT_ENC, OP_XTS_UNIT_DEC, NOPS };
static const char *const op_names[NOPS] = { "encrypt", "decrypt", "ctr32", "cbc_dec", "cbc_enc", "cfb_dec",
					    "cfb_enc", "ofb", "xts_enc", "xts_dec", "xts_unit_enc", "xts_unit_dec" };

/* Run lengths that reach every path of a kernel of this batch: for the
 * 128-bit families every count from one block to a full batch and one
 * more (so every tail of every width ladder: 8, 4, 2, 1 registers, an odd
 * last block), then two batches less one and several with a remainder;
 * kernels of one block at a time get a few counts. DES: the kernels'
 * short-run paths and 512-block batches. */
#define MAXLENS 24
static size_t run_lengths(const fb_kernel *k, size_t out[MAXLENS])
{
	if (!strcmp(k->family, "des")) {
		out[0] = 1, out[1] = 9, out[2] = 100, out[3] = 600;
		return 4;
	}
	size_t b = k->batch, n = 0;
	if (b <= 1) {
		out[0] = 1, out[1] = 2, out[2] = 3, out[3] = 9;
		return 4;
	}
	for (size_t i = 1; i <= b + 1 && n < MAXLENS - 2; i++)
		out[n++] = i;
	out[n++] = 2 * b - 1;
	out[n++] = 3 * b + 5;
	return n;
}

/* x * alpha in GF(2^128), XTS's little-endian convention. */
static void xts_double(uint8_t t[16])
{
	unsigned carry = t[15] >> 7;
	for (int i = 15; i > 0; i--)
		t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
	t[0] = (uint8_t)(t[0] << 1 ^ (0x87 & (0u - carry)));
}

/* The reference result of op on n blocks of in, by the reference kernel
 * r with schedule kr (krt: of the XTS tweak key), from the public
 * (defined) copies. */
static void reference(const fb_kernel *r, const void *kr, const void *krt, int op, uint8_t *ref,
		      const uint8_t *in, size_t n, const uint8_t *iv)
{
	unsigned bs = r->block_size;
	uint8_t ch[16], blk[16];
	memcpy(ch, iv, bs);
	if (op == OP_XTS_UNIT_ENC || op == OP_XTS_UNIT_DEC) {
		r->encrypt(krt, ch, ch, 1); /* the unit's first tweak */
		op = op == OP_XTS_UNIT_ENC ? OP_XTS_ENC : OP_XTS_DEC;
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *x = in + bs * i;
		uint8_t *y = ref + bs * i;
		switch (op) {
		case OP_ENC: r->encrypt(kr, y, x, 1); break;
		case OP_DEC: r->decrypt(kr, y, x, 1); break;
		case OP_CTR:
			memcpy(blk, ch, bs);
			fb_store32_be(blk + bs - 4, fb_load32_be(ch + bs - 4) + (uint32_t)i);
			r->encrypt(kr, blk, blk, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = blk[j] ^ x[j];
			break;
		case OP_CBC_DEC:
			r->decrypt(kr, blk, x, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = blk[j] ^ ch[j];
			memcpy(ch, x, bs);
			break;
		case OP_CBC_ENC:
			for (unsigned j = 0; j < bs; j++) blk[j] = x[j] ^ ch[j];
			r->encrypt(kr, y, blk, 1);
			memcpy(ch, y, bs);
			break;
		case OP_CFB_DEC:
			r->encrypt(kr, blk, ch, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = blk[j] ^ x[j];
			memcpy(ch, x, bs);
			break;
		case OP_CFB_ENC:
			r->encrypt(kr, blk, ch, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = blk[j] ^ x[j];
			memcpy(ch, y, bs);
			break;
		case OP_OFB:
			r->encrypt(kr, ch, ch, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = ch[j] ^ x[j];
			break;
		default: /* XTS: the tweak is given already encrypted */
			for (unsigned j = 0; j < bs; j++) blk[j] = x[j] ^ ch[j];
			if (op == OP_XTS_ENC) r->encrypt(kr, blk, blk, 1); else r->decrypt(kr, blk, blk, 1);
			for (unsigned j = 0; j < bs; j++) y[j] = blk[j] ^ ch[j];
			xts_double(ch);
		}
	}
}

/* Runs op of kernel k on the secret (undefined) copies (tks: the XTS
 * tweak key's schedule); 0 if k lacks it. */
static int run_op(const fb_kernel *k, const void *ks, const void *tks, int op, uint8_t *out, const uint8_t *sec,
		  size_t n, uint8_t *siv)
{
	switch (op) {
	case OP_CFB_ENC: if (!k->cfb_enc) return 0; k->cfb_enc(ks, out, sec, n, siv); return 1;
	case OP_OFB: if (!k->ofb) return 0; k->ofb(ks, out, sec, n, siv); return 1;
	case OP_XTS_UNIT_ENC: if (!k->xts_unit_enc) return 0; k->xts_unit_enc(ks, tks, out, sec, n, siv); return 1;
	case OP_XTS_UNIT_DEC: if (!k->xts_unit_dec) return 0; k->xts_unit_dec(ks, tks, out, sec, n, siv); return 1;
	case OP_ENC: k->encrypt(ks, out, sec, n); return 1;
	case OP_DEC: k->decrypt(ks, out, sec, n); return 1;
	case OP_CTR: if (!k->ctr32) return 0; k->ctr32(ks, out, sec, n, siv); return 1;
	case OP_CBC_DEC: if (!k->cbc_dec) return 0; k->cbc_dec(ks, out, sec, n, siv); return 1;
	case OP_CBC_ENC: if (!k->cbc_enc) return 0; k->cbc_enc(ks, out, sec, n, siv); return 1;
	case OP_CFB_DEC: if (!k->cfb_dec) return 0; k->cfb_dec(ks, out, sec, n, siv); return 1;
	case OP_XTS_ENC: if (!k->xts_enc) return 0; k->xts_enc(ks, out, sec, n, siv); return 1;
	default: if (!k->xts_dec) return 0; k->xts_dec(ks, out, sec, n, siv); return 1;
	}
}

/* Runs one kernel over every key length, operation and run length with
 * the key and the data undefined; returns the number of wrong results. */
static int check_kernel(const fb_kernel *k, const char *label)
{
	static _Alignas(64) uint8_t ks[FB_KS_MAX], kt[FB_KS_MAX], ks2[FB_KS_MAX], kt2[FB_KS_MAX];
	static uint8_t in[MAXB], sec[MAXB], out[MAXB], ref[MAXB];
	const fb_kernel *r = reference_of(k->family);
	static const size_t des_keys[] = { 8, 16, 24 }, other_keys[] = { 16, 24, 32 };
	const size_t *klens = strcmp(k->family, "des") ? other_keys : des_keys;
	size_t lens[MAXLENS], nlen = run_lengths(k, lens);
	unsigned bs = k->block_size;
	int bad = 0;
	long before = VALGRIND_COUNT_ERRORS;
	if (!r) {
		printf("%s: no reference kernel for family %s\n", label, k->family);
		return 1;
	}
	for (int ki = 0; ki < 3; ki++) {
		size_t kl = klens[ki];
		uint8_t key[32], skey[32];
		for (size_t i = 0; i < kl; i++)
			key[i] = rnd8();
		for (size_t i = 0; i < sizeof in; i++)
			in[i] = rnd8();
		memset(kt, 0, sizeof kt);
		r->setkey(kt, key, kl);
		memcpy(skey, key, kl);
		VALGRIND_MAKE_MEM_UNDEFINED(skey, kl);
		memset(ks, 0, sizeof ks);
		if (k->setkey(ks, skey, kl) != FB_OK) {
			printf("%s: setkey refused %zu bytes\n", label, kl);
			return 1;
		}
		/* A second key of the same length: the XTS units' tweak key. */
		for (size_t i = 0; i < kl; i++)
			key[i] = rnd8();
		memset(kt2, 0, sizeof kt2);
		r->setkey(kt2, key, kl);
		memcpy(skey, key, kl);
		VALGRIND_MAKE_MEM_UNDEFINED(skey, kl);
		memset(ks2, 0, sizeof ks2);
		k->setkey(ks2, skey, kl);
		for (size_t li = 0; li < nlen; li++) {
			size_t n = lens[li];
			for (int op = 0; op < NOPS; op++) {
				uint8_t iv[16], siv[16];
				for (unsigned i = 0; i < bs; i++)
					iv[i] = rnd8();
				iv[bs - 4] = 0; /* no 32-bit counter wrap */
				memcpy(siv, iv, bs);
				memcpy(sec, in, bs * n);
				VALGRIND_MAKE_MEM_UNDEFINED(sec, bs * n);
				if (op != OP_CTR) /* the counter is public; chaining values and tweaks are not */
					VALGRIND_MAKE_MEM_UNDEFINED(siv, bs);
				if (!run_op(k, ks, ks2, op, out, sec, n, siv))
					continue;
				reference(r, kt, kt2, op, ref, in, n, iv);
				VALGRIND_MAKE_MEM_DEFINED(out, bs * n);
				if (memcmp(out, ref, bs * n)) {
					printf("%s: wrong result, key %zu bytes, %s, %zu blocks\n", label, kl,
					       op_names[op], n);
					bad++;
				}
			}
		}
	}
	long errs = (long)VALGRIND_COUNT_ERRORS - before;
	printf("%-30s %s (%ld memcheck errors)\n", label, errs ? "NOT constant-time" : "ok", errs);
	return bad;
}

/* The negative self-checks: a copy of a constant-time kernel with one
 * secret-dependent step added, which changes no result, only timing (or
 * the cache lines touched). The check must report each:
 *   leaky:K         encrypt also branches on its output (so on key and data);
 *   leaky-load:K    decrypt also loads from a table at an address taken
 *                   from its output;
 *   leaky-setkey:K  setkey also branches on the key. */
static const fb_kernel *leak_base;
static volatile unsigned leak_sink;
static const uint8_t leak_table[256];
static void leaky_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	leak_base->encrypt(ks, out, in, n);
	if (out[0] & 1)
		leak_sink++;
}
static void leaky_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	leak_base->decrypt(ks, out, in, n);
	leak_sink += ((const volatile uint8_t *)leak_table)[out[0]];
}
static int leaky_setkey(void *ks, const uint8_t *key, size_t len)
{
	int rc = leak_base->setkey(ks, key, len);
	if (key[len - 1] & 0x80)
		leak_sink++;
	return rc;
}

static const fb_kernel *model_by_name(const char *name);

static int check_leaky(const char *how, const char *name)
{
	static fb_kernel leaky;
	const char *what;
	leak_base = model_by_name(name);
	if (!leak_base)
		leak_base = fb_kernel_by_name(name);
	if (!leak_base || (!model_by_name(name) && !fb_kernel_supported(leak_base))) {
		printf("%s: unknown or not runnable here\n", name);
		return 2;
	}
	leaky = *leak_base;
	if (!strcmp(how, "load")) {
		leaky.decrypt = leaky_decrypt;
		what = "a secret load";
	} else if (!strcmp(how, "setkey")) {
		leaky.setkey = leaky_setkey;
		what = "a secret branch in setkey";
	} else if (!strcmp(how, "branch")) {
		leaky.encrypt = leaky_encrypt;
		what = "a secret branch";
	} else {
		printf("leaky-%s: no such variant (leaky, leaky-load, leaky-setkey)\n", how);
		return 2;
	}
	char label[96];
	snprintf(label, sizeof label, "%s with %s", name, what);
	return check_kernel(&leaky, label);
}

/* fb_multi_crypt through the modelled engines, every mode and direction,
 * with keys, IVs and data undefined; outputs against the library's own
 * fb_multi_crypt through des/table on defined copies. */
#define MS 20
static int check_multi(const char *engine)
{
	static uint8_t key[MS][24], skey[MS][24], iv[MS][8], siv[MS][8], riv[MS][8];
	static uint8_t data[MS][200], sdata[MS][200], out[MS][200], ref[MS][200];
	const uint8_t *kp[MS], *skp[MS], *ip[MS], *sip[MS];
	uint8_t *ivp[MS], *sivp[MS], *op[MS], *rp[MS];
	size_t len[MS];
	static const char *const names[3] = { "des-cbc", "des-ede-cfb", "des-ede3-ofb" };
	static const enum fb_mode modes[3] = { FB_CBC, FB_CFB, FB_OFB };
	int bad = 0;
	long before = VALGRIND_COUNT_ERRORS;
	for (int m = 0; m < 3; m++)
		for (int d = 0; d < 2; d++) {
			const fb_cipher *c = fb_cipher_by_name(names[m]);
			for (int i = 0; i < MS; i++) {
				len[i] = modes[m] == FB_CBC ? 8 * (size_t)(rnd8() % 25) : rnd8() % 200;
				for (int b = 0; b < 24; b++)
					key[i][b] = rnd8();
				for (int b = 0; b < 8; b++)
					iv[i][b] = riv[i][b] = rnd8();
				for (size_t b = 0; b < len[i]; b++)
					data[i][b] = rnd8();
				memcpy(skey[i], key[i], 24);
				memcpy(siv[i], iv[i], 8);
				memcpy(sdata[i], data[i], len[i]);
				VALGRIND_MAKE_MEM_UNDEFINED(skey[i], 24);
				VALGRIND_MAKE_MEM_UNDEFINED(siv[i], 8);
				VALGRIND_MAKE_MEM_UNDEFINED(sdata[i], len[i]);
				kp[i] = key[i], skp[i] = skey[i], ip[i] = data[i], sip[i] = sdata[i];
				ivp[i] = riv[i], sivp[i] = siv[i], op[i] = out[i], rp[i] = ref[i];
			}
			fb_options ro = { FB_PAD_NONE, 0, "des/table" }, mo = { FB_PAD_NONE, 0, engine };
			enum fb_direction dir = d ? FB_DECRYPT : FB_ENCRYPT;
			int e1 = fb_multi_crypt(c, modes[m], dir, MS, kp, ivp, ip, rp, len, &ro);
			int e2 = ct_model_multi_crypt(c, modes[m], dir, MS, skp, sivp, sip, op, len, &mo);
			for (int i = 0; i < MS; i++) {
				VALGRIND_MAKE_MEM_DEFINED(out[i], len[i]);
				VALGRIND_MAKE_MEM_DEFINED(siv[i], 8);
				if (e1 || e2 || memcmp(out[i], ref[i], len[i]) ||
				    (len[i] % 8 == 0 && memcmp(siv[i], riv[i], 8))) {
					printf("multi %s %s: stream %d differs (%d %d)\n", engine, names[m], i, e1, e2);
					bad++;
					break;
				}
			}
		}
	long errs = (long)VALGRIND_COUNT_ERRORS - before;
	printf("fb_multi_crypt via %-17s %s (%ld memcheck errors)\n", engine, errs ? "NOT constant-time" : "ok",
	       errs);
	return bad;
}

/* Long streams through a bitsliced lane engine: lane groups start a cache
 * line or more apart there (des_bs_lanes.c, skews), which the short
 * streams above do not reach. CBC both ways and OFB, keys, IVs and data
 * undefined, against des/table on defined copies. */
#define ML 12
#define ML_LEN 1200
static int check_multi_long(const char *engine)
{
	static uint8_t key[ML][24], skey[ML][24], iv[ML][8], siv[ML][8], riv[ML][8];
	static uint8_t data[ML][ML_LEN], sdata[ML][ML_LEN], out[ML][ML_LEN], ref[ML][ML_LEN];
	const uint8_t *kp[ML], *skp[ML], *ip[ML], *sip[ML];
	uint8_t *ivp[ML], *sivp[ML], *op[ML], *rp[ML];
	size_t len[ML];
	static const enum fb_mode modes[3] = { FB_CBC, FB_CBC, FB_OFB };
	static const enum fb_direction dirs[3] = { FB_ENCRYPT, FB_DECRYPT, FB_ENCRYPT };
	int bad = 0;
	long before = VALGRIND_COUNT_ERRORS;
	for (int m = 0; m < 3; m++) {
		const fb_cipher *c = fb_cipher_by_name(modes[m] == FB_CBC ? "des-ede3-cbc" : "des-ofb");
		for (int i = 0; i < ML; i++) {
			len[i] = i ? 8 * (size_t)(rnd8() % (ML_LEN / 8 + 1)) : ML_LEN;
			for (int b = 0; b < 24; b++)
				key[i][b] = rnd8();
			for (int b = 0; b < 8; b++)
				iv[i][b] = riv[i][b] = rnd8();
			for (size_t b = 0; b < len[i]; b++)
				data[i][b] = rnd8();
			memcpy(skey[i], key[i], 24);
			memcpy(siv[i], iv[i], 8);
			memcpy(sdata[i], data[i], len[i]);
			VALGRIND_MAKE_MEM_UNDEFINED(skey[i], 24);
			VALGRIND_MAKE_MEM_UNDEFINED(siv[i], 8);
			VALGRIND_MAKE_MEM_UNDEFINED(sdata[i], len[i]);
			kp[i] = key[i], skp[i] = skey[i], ip[i] = data[i], sip[i] = sdata[i];
			ivp[i] = riv[i], sivp[i] = siv[i], op[i] = out[i], rp[i] = ref[i];
		}
		fb_options ro = { FB_PAD_NONE, 0, "des/table" }, mo = { FB_PAD_NONE, 0, engine };
		int e1 = fb_multi_crypt(c, modes[m], dirs[m], ML, kp, ivp, ip, rp, len, &ro);
		int e2 = ct_model_multi_crypt(c, modes[m], dirs[m], ML, skp, sivp, sip, op, len, &mo);
		for (int i = 0; i < ML; i++) {
			VALGRIND_MAKE_MEM_DEFINED(out[i], len[i]);
			VALGRIND_MAKE_MEM_DEFINED(siv[i], 8);
			if (e1 || e2 || memcmp(out[i], ref[i], len[i]) || memcmp(siv[i], riv[i], 8)) {
				printf("multi (long streams) mode %d: stream %d differs (%d %d)\n", m, i, e1, e2);
				bad++;
				break;
			}
		}
	}
	long errs = (long)VALGRIND_COUNT_ERRORS - before;
	printf("fb_multi_crypt via %s, long %s (%ld memcheck errors)\n", engine,
	       errs ? "NOT constant-time" : "ok", errs);
	return bad;
}

/* The modelled kernels: the DES AVX-512 ones (above), aes/vaes-avx2
 * (ct_model_vaes.c: VAES as AES-NI on each lane), rc6/avx512 and
 * serpent/avx512 (ct_model_avx512.c: the AVX-512 intrinsics in C),
 * aes/vaes-avx512 (ct_model_vaes512.c: also the AES rounds in C) and
 * twofish/avx512-gfni-ct (ct_model_twofish512.c: also vpermt2b and
 * gf2p8affineqb) and des/bs-avx2-gfni (ct_model_des_avx2.c: its
 * gf2p8affineqb), when valgrind's CPU runs what the model runs on. */
const fb_kernel *ct_model_vaes_avx2(void);
const fb_kernel *ct_model_rc6_avx512_kernel(void);
const fb_kernel *ct_model_serpent_avx512_kernel(void);
const fb_kernel *ct_model_vaes_avx512_kernel(void);
const fb_kernel *ct_model_twofish512_ct_kernel(void);
const fb_kernel *ct_model_twofish512_tab_kernel(void);
const fb_kernel *ct_model_mars_permute_kernel(void);
const fb_kernel *ct_model_mars_gather_kernel(void);
const fb_kernel *ct_model_des_bs_avx2_gfni_kernel(void);
#define MAXMODELS 12
static const fb_kernel *models[MAXMODELS];
static size_t nmodels;

/* Modelled kernels that do not claim constant time, run only by name: a
 * model of a table-based sibling must be reported, as des/table is natively
 * (twofish/avx512-gfni: its short runs use the full-keying tables). */
static const fb_kernel *contrast_models[3];

static void models_init(void)
{
	models[nmodels++] = &ct_model_des_bs_avx512;
	models[nmodels++] = &ct_model_des_bs_avx512_t2b;
	models[nmodels++] = &ct_model_des_gfni_avx512;
	if (ct_model_des_bs_avx2_gfni_kernel())
		models[nmodels++] = ct_model_des_bs_avx2_gfni_kernel();
	if (ct_model_vaes_avx2())
		models[nmodels++] = ct_model_vaes_avx2();
	if (ct_model_rc6_avx512_kernel())
		models[nmodels++] = ct_model_rc6_avx512_kernel();
	if (ct_model_serpent_avx512_kernel())
		models[nmodels++] = ct_model_serpent_avx512_kernel();
	if (ct_model_vaes_avx512_kernel())
		models[nmodels++] = ct_model_vaes_avx512_kernel();
	if (ct_model_twofish512_ct_kernel())
		models[nmodels++] = ct_model_twofish512_ct_kernel();
	if (ct_model_mars_permute_kernel())
		models[nmodels++] = ct_model_mars_permute_kernel();
	contrast_models[0] = ct_model_twofish512_tab_kernel();
	contrast_models[1] = ct_model_mars_gather_kernel();
}

static const fb_kernel *model_by_name(const char *name)
{
	for (size_t m = 0; m < nmodels; m++)
		if (!strcmp(name, models[m]->name))
			return models[m];
	for (size_t m = 0; m < sizeof contrast_models / sizeof *contrast_models; m++)
		if (contrast_models[m] && !strcmp(name, contrast_models[m]->name))
			return contrast_models[m];
	return NULL;
}

/* Every constant-time kernel of family that valgrind's CPU runs; DES adds
 * the modelled AVX-512 kernels and the multi-stream engines. */
static int check_family(const char *family, int *ran)
{
	fb_impl_info info;
	int bad = 0;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		if (strcmp(info.family, family) || !info.constant_time)
			continue;
		const fb_kernel *k = fb_kernel_by_name(info.name);
		/* properties say where a kernel pays, not what it executes */
		uint32_t needs = k->cpu_needs & ~(uint32_t)FB_CPU_PROPERTIES;
		if ((fb_cpu_features() & needs) != needs) {
			printf("%-30s skipped: not run natively (valgrind's CPU lacks %s)\n", info.name,
			       info.cpu_needs);
			continue;
		}
		bad += check_kernel(k, info.name);
		++*ran;
	}
	for (size_t m = 0; m < nmodels; m++) {
		char label[64];
		if (strcmp(models[m]->family, family))
			continue;
		snprintf(label, sizeof label, "%s (model)", models[m]->name);
		bad += check_kernel(models[m], label);
		++*ran;
	}
	if (strcmp(family, "des"))
		return bad;
	bad += check_multi("des/bs-avx512");
	bad += check_multi("des/gfni-avx512");
	bad += check_multi_long("des/bs-avx512");
	*ran += 3;
	/* des/bs-avx2's lane engine, natively (valgrind decodes AVX2) */
	if (fb_kernel_supported(fb_kernel_by_name("des/bs-avx2"))) {
		bad += check_multi("des/bs-avx2");
		bad += check_multi_long("des/bs-avx2");
		*ran += 2;
	}
	return bad;
}

/* Arguments: KERNEL (one kernel; a non-constant-time one must fail),
 * family:NAME (all of a family), leaky[-load|-setkey]:KERNEL (the negative
 * self-checks);
 * none: family:des. */
int main(int argc, char **argv)
{
	if (!RUNNING_ON_VALGRIND) {
		printf("SKIP: run me under valgrind --error-exitcode=1\n");
		return 77;
	}
	int bad = 0, ran = 0;
	models_init();
	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "family:", 7)) {
			bad += check_family(argv[a] + 7, &ran);
			continue;
		}
		if (!strncmp(argv[a], "leaky", 5) && strchr(argv[a], ':')) {
			const char *colon = strchr(argv[a], ':');
			char how[16] = "branch";
			if (argv[a][5] == '-' && colon - argv[a] - 6 < (long)sizeof how) {
				memcpy(how, argv[a] + 6, (size_t)(colon - argv[a] - 6));
				how[colon - argv[a] - 6] = 0;
			}
			int r = check_leaky(how, colon + 1);
			if (r == 2)
				return 2;
			bad += r;
			ran++;
			continue;
		}
		const fb_kernel *k = model_by_name(argv[a]);
		if (!k) {
			k = fb_kernel_by_name(argv[a]);
			if (!k || !fb_kernel_supported(k)) {
				printf("%s: unknown or not runnable here\n", argv[a]);
				return 2;
			}
		}
		bad += check_kernel(k, argv[a]);
		ran++;
	}
	if (argc == 1)
		bad += check_family("des", &ran);
	printf("%d kernels checked, %d wrong results, %u memcheck errors in all\n", ran, bad,
	       (unsigned)VALGRIND_COUNT_ERRORS);
	if (!ran && !bad) {
		printf("SKIP: no constant-time kernel of these runs under valgrind on this CPU\n");
		return 77;
	}
	return bad ? 1 : 0;
}
