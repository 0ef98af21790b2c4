/*
 * twofish/table-avx2: twofish/table's code (full keying, four blocks
 * interleaved) on a schedule built with AVX2. The portable fill makes each
 * of the 1,024 table entries by a chain of k-1 byte loads and one word
 * load (k = key bytes / 8): about 4,600 dependent loads for a 256-bit key.
 * Here q0 and q1 run on 32 bytes at a time from their 4-bit t-tables
 * (paper, 4.3.5) with vpshufb, and the MDS column by nibble products, so a
 * fill is ~3,000 vector operations and no table walk; the 40 subkeys' h
 * runs the same way on 20 lanes each of Me and Mo. twofish/avx2 uses
 * this key setup too (one schedule for its ladder). Not constant-time:
 * the tables are looked up by data.
 */
#include "twofish_impl.h"
#include "twofish_tables.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx2")
typedef __m256i V;

/* The nibble tables of q0 and q1 and the maps between their stages, in
 * registers: 11 of the 16 ymm. */
typedef struct q_regs {
	V t[2][4], a, r, lo;
} q_regs;

static inline TGT V bcast16(const uint8_t *p)
{
	return _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)(const void *)p));
}

static inline TGT V sh(V table, V idx)
{
	return _mm256_shuffle_epi8(table, idx);
}

/* q (0: q0, 1: q1) of 32 bytes, stage by stage as 4.3.5 defines it, up to
 * the nibbles of the result: y = 16 hi + lo. */
static inline __attribute__((always_inline)) TGT void q32n(const q_regs *q, int which, V x, V *lo, V *hi)
{
	V a0 = _mm256_and_si256(_mm256_srli_epi16(x, 4), q->lo), b0 = _mm256_and_si256(x, q->lo);
	V a1 = _mm256_xor_si256(a0, b0);
	V b1 = _mm256_xor_si256(sh(q->a, a0), sh(q->r, b0));
	V a2 = sh(q->t[which][0], a1), b2 = sh(q->t[which][1], b1);
	V a3 = _mm256_xor_si256(a2, b2);
	V b3 = _mm256_xor_si256(sh(q->a, a2), sh(q->r, b2));
	*lo = sh(q->t[which][2], a3);
	*hi = sh(q->t[which][3], b3);
}

static inline __attribute__((always_inline)) TGT V q32(const q_regs *q, int which, V x)
{
	V lo, hi;
	q32n(q, which, x, &lo, &hi);
	/* hi < 16: the 16-bit shift moves no bit into the next byte */
	return _mm256_or_si256(_mm256_slli_epi16(hi, 4), lo);
}

/* The q of each stage for byte position i (4.3.2, figure 2): stage 0 for
 * 256-bit keys only, stage 1 for keys of 192 bits or more, then the three
 * every key goes through. Bit i of each mask: q1 (set) or q0. */
static const unsigned char stage_q1[5] = { 0x9, 0x3, 0xa, 0xc, 0x5 };

/* Byte position i of h (4.3.2) on 32 bytes, from y, the first stage's
 * output: the key bytes kb[k-1] .. kb[0] between the stages, then the last
 * q, whose nibbles are returned for the products by 0x5B and 0xEF. */
static inline __attribute__((always_inline)) TGT void h_stages(const q_regs *q, int i, unsigned k,
							      const uint8_t *kb, V y, V *lo, V *hi)
{
	unsigned st = 4 - k, j = k - 1;
	y = _mm256_xor_si256(y, _mm256_set1_epi8((char)kb[j]));
	_Pragma("GCC unroll 4") while (j-- > 0) /* the other keyed stages */
		y = _mm256_xor_si256(q32(q, (stage_q1[++st] >> i) & 1, y), _mm256_set1_epi8((char)kb[j]));
	q32n(q, (stage_q1[4] >> i) & 1, y, lo, hi);
}

/* Column i of MDS times the 32 bytes y = 16 hi + lo, as 32 little-endian
 * words at o (32-byte aligned). */
static inline __attribute__((always_inline)) TGT void mds_words(uint32_t *o, const V mul[4], int i, V lo, V hi)
{
	V y = _mm256_or_si256(_mm256_slli_epi16(hi, 4), lo);
	V y5 = _mm256_xor_si256(sh(mul[0], lo), sh(mul[1], hi));
	V ye = _mm256_xor_si256(sh(mul[2], lo), sh(mul[3], hi));
	/* bytes 0..3 of each word (gen/twofish_tables.py, MDS) */
	V b0, b1, b2, b3;
	switch (i) {
	case 0: b0 = y, b1 = y5, b2 = ye, b3 = ye; break;
	case 1: b0 = ye, b1 = ye, b2 = y5, b3 = y; break;
	case 2: b0 = y5, b1 = ye, b2 = y, b3 = ye; break;
	default: b0 = y5, b1 = y, b2 = ye, b3 = y5; break;
	}
	/* bytes to words; unpacks work per 128-bit lane, so the halves
	 * come out as x 0-3 | 16-19, 4-7 | 20-23, ... */
	V pl = _mm256_unpacklo_epi8(b0, b1), ph = _mm256_unpackhi_epi8(b0, b1);
	V ql = _mm256_unpacklo_epi8(b2, b3), qh = _mm256_unpackhi_epi8(b2, b3);
	V d0 = _mm256_unpacklo_epi16(pl, ql), d1 = _mm256_unpackhi_epi16(pl, ql);
	V d2 = _mm256_unpacklo_epi16(ph, qh), d3 = _mm256_unpackhi_epi16(ph, qh);
	V *w = (V *)(void *)o;
	_mm256_store_si256(w, _mm256_permute2x128_si256(d0, d1, 0x20));
	_mm256_store_si256(w + 1, _mm256_permute2x128_si256(d2, d3, 0x20));
	_mm256_store_si256(w + 2, _mm256_permute2x128_si256(d0, d1, 0x31));
	_mm256_store_si256(w + 3, _mm256_permute2x128_si256(d2, d3, 0x31));
}

/* Entries x = 32v .. 32v+31 of S-box position i (key bytes kb). The first
 * stage's q takes x alone: twofish_q's entries. */
static inline __attribute__((always_inline)) TGT void fill32(uint32_t *s, const q_regs *q, const V mul[4],
							    int i, unsigned k, const uint8_t *kb, int v)
{
	V lo, hi;
	V y = _mm256_load_si256((const V *)(const void *)(twofish_q[(stage_q1[4 - k] >> i) & 1] + 32 * v));
	h_stages(q, i, k, kb, y, &lo, &hi);
	mds_words(s + 32 * v, mul, i, lo, hi);
}

static inline __attribute__((always_inline)) TGT void q_regs_load(q_regs *q, V mul[4])
{
	for (int w = 0; w < 2; w++)
		for (int j = 0; j < 4; j++)
			q->t[w][j] = bcast16(twofish_qt[w][j]);
	q->a = bcast16(twofish_qab[0]);
	q->r = bcast16(twofish_qab[1]);
	q->lo = _mm256_set1_epi8(15);
	mul[0] = bcast16(twofish_mul_nib[0][0]);
	mul[1] = bcast16(twofish_mul_nib[0][1]);
	mul[2] = bcast16(twofish_mul_nib[1][0]);
	mul[3] = bcast16(twofish_mul_nib[1][1]);
}

/* Byte i of each of the k words w[]. */
static inline void key_bytes(uint8_t kb[4], const uint32_t *w, unsigned k, int i)
{
	for (unsigned j = 0; j < k; j++)
		kb[j] = (uint8_t)(w[j] >> (8 * i));
}

/* The 40 subkeys (4.3.2): A_i = h(2i rho, Me), B_i = h((2i+1) rho, Mo)
 * <<< 8 for i < 20, as 32-byte lanes of x = 2i and 2i+1 (the 12 lanes
 * past 19 are computed and dropped), then K_2i = A_i + B_i and
 * K_2i+1 = (A_i + 2 B_i) <<< 9. */
static inline __attribute__((always_inline)) TGT void subkeys(uint32_t *kk, const q_regs *q, const V mul[4],
							     const uint32_t *me, const uint32_t *mo, const unsigned k)
{
	_Alignas(32) uint32_t h[2][4][32];
	const V even = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36,
					38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62);
	_Pragma("GCC unroll 4") for (int i = 0; i < 4; i++)
		for (int odd = 0; odd < 2; odd++) {
			uint8_t kb[4];
			key_bytes(kb, odd ? mo : me, k, i);
			V x = odd ? _mm256_add_epi8(even, _mm256_set1_epi8(1)) : even, lo, hi;
			h_stages(q, i, k, kb, q32(q, (stage_q1[4 - k] >> i) & 1, x), &lo, &hi);
			mds_words(h[odd][i], mul, i, lo, hi);
			fb_wipe(kb, sizeof kb);
		}
	for (int i = 0; i < 20; i++) {
		uint32_t a = h[0][0][i] ^ h[0][1][i] ^ h[0][2][i] ^ h[0][3][i];
		uint32_t b = fb_rotl32(h[1][0][i] ^ h[1][1][i] ^ h[1][2][i] ^ h[1][3][i], 8);
		kk[2 * i] = a + b;
		kk[2 * i + 1] = fb_rotl32(a + 2 * b, 9);
	}
	fb_wipe(h, sizeof h);
}

/* The subkeys and the four full-keying tables, for a constant k: every
 * stage's q is then known where it is compiled. */
static inline __attribute__((always_inline)) TGT void keys_k(twofish_table_ks *ks, const uint32_t *me,
							    const uint32_t *mo, const uint32_t *sv, const unsigned k)
{
	q_regs q;
	V mul[4];
	q_regs_load(&q, mul);
	subkeys(ks->k, &q, mul, me, mo, k);
	_Pragma("GCC unroll 4") for (int i = 0; i < 4; i++) {
		uint8_t kb[4];
		key_bytes(kb, sv, k, i);
		for (int v = 0; v < 8; v++)
			fill32(ks->s[i], &q, mul, i, k, kb, v);
		fb_wipe(kb, sizeof kb);
	}
}

static TGT void keys_avx2(twofish_table_ks *ks, const uint32_t *me, const uint32_t *mo, const uint32_t *sv,
			  unsigned k)
{
	if (k == 2)
		keys_k(ks, me, mo, sv, 2);
	else if (k == 3)
		keys_k(ks, me, mo, sv, 3);
	else
		keys_k(ks, me, mo, sv, 4);
}

int fb_twofish_table_setkey_avx2(void *ksp, const uint8_t *key, size_t keylen)
{
	return fb_twofish_table_setkey_by(ksp, key, keylen, keys_avx2);
}

/* What the three kernels share: all but the serial chains and the form of
 * the parallel paths (with BEXTR, _bmi, or RORX, _rorx: see -tree). */
#define TFTAB2_COMMON                                                                  \
	.family = "twofish", .block_size = 16, .cpu_needs = FB_CPU_AVX2 | FB_CPU_BMI2,         \
	.constant_time = 0, .batch = 1, .ks_size = sizeof(twofish_table_ks), .fills_schedule = 1, \
	.setkey = fb_twofish_table_setkey_avx2
#define TFTAB2_PAR(sfx)                                                                       \
	.encrypt = fb_twofish_table_encrypt##sfx, .decrypt = fb_twofish_table_decrypt##sfx,   \
	.cbc_dec = fb_twofish_table_cbc_dec##sfx, .cfb_dec = fb_twofish_table_cfb_dec##sfx,   \
	.ctr32 = fb_twofish_table_ctr32##sfx

const fb_kernel fb_twofish_table_avx2 = {
	.name = "twofish/table-avx2",
	.note = "full-keying tables, four blocks interleaved; key setup by AVX2 (vpshufb q)",
	TFTAB2_COMMON, TFTAB2_PAR(_bmi),
	.cbc_enc = fb_twofish_table_cbc_enc,
	.ofb = fb_twofish_table_ofb,
	.cfb_enc = fb_twofish_table_cfb_enc,
	.cfb8_enc = fb_twofish_table_cfb8_enc,
};

/* The same with twofish/table-avx512-t0's serial chains: the AVX2 class on
 * AMD but Zen 5 (serial_avoid_on, as for -t0). */
const fb_kernel fb_twofish_table_avx2_t0 = {
	.name = "twofish/table-avx2-t0",
	.note = "twofish/table-avx2 with the serial chains' PHT on the first g",
	TFTAB2_COMMON, TFTAB2_PAR(_bmi),
	.cbc_enc = fb_twofish_table_cbc_enc_t0,
	.ofb = fb_twofish_table_ofb_t0,
	.cfb_enc = fb_twofish_table_cfb_enc_t0,
	.cfb8_enc = fb_twofish_table_cfb8_enc_t0,
	.serial_avoid_on = FB_CPU_SLOW_VEC_CHAIN,
};

/* The same with twofish/table-avx512-tree's serial chains and, as there,
 * RORX for BEXTR in the interleaved blocks (two uops on Intel): the AVX2 class
 * on Intel, as the serial kernel (under the AVX2 mask on the Sapphire
 * Rapids class, CBC/CFB/OFB encryption 1.04x twofish/table-avx2's speed)
 * and as twofish/avx2's rung; AMD passes it over. */
const fb_kernel fb_twofish_table_avx2_tree = {
	.name = "twofish/table-avx2-tree",
	.note = "twofish/table-avx2 with -t0's chains, each g's XORs as a balanced tree, and RORX for BEXTR (Intel)",
	TFTAB2_COMMON, TFTAB2_PAR(_rorx),
	.cbc_enc = fb_twofish_table_cbc_enc_tree,
	.ofb = fb_twofish_table_ofb_tree,
	.cfb_enc = fb_twofish_table_cfb_enc_tree,
	.cfb8_enc = fb_twofish_table_cfb8_enc_tree,
	.serial_avoid_on = FB_CPU_AMD_ZEN,
};

#endif /* FB_X86 */
