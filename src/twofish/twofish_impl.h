/*
 * Twofish kernels: key-schedule layouts and the helpers they share.
 *
 * Twofish (Schneier et al., AES submission 1998) in brief: 16 rounds on
 * four little-endian 32-bit words; each round computes T0 = g(R0),
 * T1 = g(R1 <<< 8), where g is four key-dependent 8-bit S-boxes followed
 * by the MDS matrix, then the PHT with two round subkeys.
 */
#ifndef FB_TWOFISH_IMPL_H
#define FB_TWOFISH_IMPL_H
#include "../internal.h"

/* twofish/table and twofish/avx2: "full keying" (paper, 4.3.1): the four
 * S-boxes composed with their MDS columns, so that
 * g(x) = s[0][x0] ^ s[1][x1] ^ s[2][x2] ^ s[3][x3]. */
typedef struct twofish_table_ks {
	_Alignas(64) uint32_t s[4][256];
	uint32_t k[40]; /* K0..K7 whitening, K8..K39 round subkeys */
} twofish_table_ks;

/* twofish/avx512-gfni: the key-dependent S-boxes as byte tables
 * (sb[i][x] = s_i(x), before MDS), and the subkeys. */
typedef struct twofish_vperm_ks {
	_Alignas(64) uint8_t sb[4][256];
	uint32_t k[40];
} twofish_vperm_ks;

/* The key material of 4.3.2 for a 16/24/32-byte key: k = keylen/8 words
 * each of Me (even key words), Mo (odd key words) and the S vector in the
 * order h() consumes it (sv[0] = S_{k-1}, ..., sv[k-1] = S_0).
 * Returns k, or 0 for a bad length. (Looks tables up by key nibbles.) */
unsigned fb_twofish_key_words(const uint8_t *key, size_t keylen, uint32_t me[4], uint32_t mo[4],
			      uint32_t sv[4]);

/* The subkeys and the four full-keying tables of ks from the key words of
 * fb_twofish_key_words (k of each). */
typedef void (*fb_twofish_keys_fn)(struct twofish_table_ks *ks, const uint32_t *me, const uint32_t *mo,
				   const uint32_t *sv, unsigned k);

/* Key setup into the table layout by `keys`. */
int fb_twofish_table_setkey_by(void *ks, const uint8_t *key, size_t keylen, fb_twofish_keys_fn keys);

/* Key setup into the table layout: portable, and by AVX2 (twofish/table-avx2,
 * also used by twofish/avx2). */
int fb_twofish_table_setkey(void *ks, const uint8_t *key, size_t keylen);
int fb_twofish_table_setkey_avx2(void *ks, const uint8_t *key, size_t keylen);

/* The parallel paths on the table layout (four blocks interleaved, then
 * two, then one): ECB, CBC decryption and CTR; _bmi: with BMI1's BEXTR
 * (AMD), _rorx: with BMI2's RORX (Intel), both x86, for kernels needing
 * FB_CPU_BMI2; CFB decryption too. */
#define TF_PARALLEL_DECLS(suffix)                                                                           \
	void fb_twofish_table_encrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n);    \
	void fb_twofish_table_decrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n);    \
	void fb_twofish_table_cbc_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv);                                                \
	void fb_twofish_table_cfb_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv);                                                \
	void fb_twofish_table_ctr32##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,       \
					    uint8_t *ctr);
TF_PARALLEL_DECLS()
TF_PARALLEL_DECLS(_bmi)
TF_PARALLEL_DECLS(_rorx)
/* The serial chains (CBC encryption, OFB, CFB and CFB8 encryption), keys and data
 * in registers; _t0: the chain's other PHT order (twofish/table-avx512-t0);
 * _tree: -t0's order with each g's XORs as a balanced tree
 * (twofish/table-avx512-tree). */
#define TF_CHAIN_DECLS(suffix)                                                                              \
	void fb_twofish_table_cbc_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv);                                                \
	void fb_twofish_table_ofb##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv); \
	void fb_twofish_table_cfb_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv);                                                \
	void fb_twofish_table_cfb8_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,    \
					       uint8_t *iv);
TF_CHAIN_DECLS()
TF_CHAIN_DECLS(_t0)
TF_CHAIN_DECLS(_tree)

extern const fb_kernel fb_twofish_table;

#if FB_X86
/* twofish/avx512-gfni and twofish/table-avx512: one schedule, the byte
 * tables of the SIMD code and the full-keying tables made from them. */
typedef struct twofish_vperm_tab_ks {
	twofish_vperm_ks v; /* first: the SIMD entry points read it at ks */
	twofish_table_ks t;
} twofish_vperm_tab_ks;
int fb_twofish_avx512_setkey_tables(void *ks, const uint8_t *key, size_t keylen);

/* x86 only: the SIMD kernels. */
extern const fb_kernel fb_twofish_avx2, fb_twofish_avx512_gfni, fb_twofish_avx512_gfni_ct,
	fb_twofish_table_avx512, fb_twofish_table_avx512_t0, fb_twofish_table_avx512_tree,
	fb_twofish_table_avx2, fb_twofish_table_avx2_t0, fb_twofish_table_avx2_tree;
#define TWOFISH_AVX512_NEEDS (FB_CPU_AVX512F | FB_CPU_AVX512BW | FB_CPU_AVX512VL | \
			      FB_CPU_AVX512VBMI | FB_CPU_GFNI)
#endif

#endif
