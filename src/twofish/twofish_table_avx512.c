/*
 * twofish/table-avx512: twofish/table's code (full keying, one block at a
 * time) on the schedule that twofish/avx512-gfni's key setup builds with
 * AVX-512 and GFNI, about a fifth of the portable key setup's time. It is
 * twofish/avx512-gfni's narrow rung for short runs and the serial kernel
 * where that runs; with the same setkey, a context keeps one schedule for
 * both. Not constant-time: table indices depend on key and data.
 *
 * twofish/table-avx512-t0 is the same but for its serial chains (CBC, CFB
 * and OFB encryption), which add the subkeys to the round's first g term
 * (fb_twofish_table_cbc_enc_t0): faster on Zen 4, slower on Zen 5, where
 * the family's serial list passes it over. twofish/table-avx512-tree
 * also XORs each g's four table words as a balanced tree
 * (fb_twofish_table_cbc_enc_tree): faster on Intel, not timed on AMD,
 * where the serial list passes it over. It is Intel's rung too, so its
 * interleaved blocks take bytes 1 and 2 by RORX and MOVZX: BEXTR, which
 * the other two use (one uop on AMD Zen), is two uops on Intel, and four
 * blocks by tables ran 1.15-1.22x slower with it than without on the
 * Sapphire Rapids class (bench/limits.md).
 */
#include "twofish_impl.h"

#if FB_X86

/* The parallel paths on the table part of the schedule, with BEXTR (_bmi,
 * AMD) or RORX (_rorx, Intel, where BEXTR is two uops: see -tree). */
#define TFTAB_PAR(sfx)                                                                                 \
	static void tftab_encrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n)       \
	{                                                                                              \
		fb_twofish_table_encrypt##sfx(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n);     \
	}                                                                                              \
	static void tftab_decrypt##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n)       \
	{                                                                                              \
		fb_twofish_table_decrypt##sfx(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n);     \
	}                                                                                              \
	static void tftab_cbc_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                              \
		fb_twofish_table_cbc_dec##sfx(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n, iv); \
	}                                                                                              \
	static void tftab_cfb_dec##sfx(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                              \
		fb_twofish_table_cfb_dec##sfx(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n, iv); \
	}
TFTAB_PAR(_bmi)
TFTAB_PAR(_rorx)

/* The serial chains on the table part of the schedule. */
#define TFTAB_CHAIN(fn)                                                                             \
	static void tftab_##fn(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                           \
		fb_twofish_table_##fn(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n, iv);      \
	}
#define TFTAB_CHAINS(suffix) \
	TFTAB_CHAIN(cbc_enc##suffix) TFTAB_CHAIN(ofb##suffix) TFTAB_CHAIN(cfb_enc##suffix) TFTAB_CHAIN(cfb8_enc##suffix)
TFTAB_CHAINS()
TFTAB_CHAINS(_t0)
TFTAB_CHAINS(_tree)

/* What the three kernels share: all but the serial chains and the form of
 * the parallel paths. */
#define TFTAB512_COMMON                                                           \
	.family = "twofish", .block_size = 16, .cpu_needs = TWOFISH_AVX512_NEEDS | FB_CPU_BMI2,     \
	.constant_time = 0, .batch = 1, .ks_size = sizeof(twofish_vperm_tab_ks),       \
	.fills_schedule = 1, .setkey = fb_twofish_avx512_setkey_tables
#define TFTAB512_PAR(sfx) .encrypt = tftab_encrypt##sfx, .decrypt = tftab_decrypt##sfx, .cbc_dec = tftab_cbc_dec##sfx, \
	.cfb_dec = tftab_cfb_dec##sfx

const fb_kernel fb_twofish_table_avx512 = {
	.name = "twofish/table-avx512",
	.note = "full-keying tables, one block at a time; key setup by AVX-512 and GFNI",
	TFTAB512_COMMON, TFTAB512_PAR(_bmi),
	.cbc_enc = tftab_cbc_enc, .ofb = tftab_ofb, .cfb_enc = tftab_cfb_enc,
	.cfb8_enc = tftab_cfb8_enc,
};

const fb_kernel fb_twofish_table_avx512_t0 = {
	.name = "twofish/table-avx512-t0",
	.note = "twofish/table-avx512 with the serial chains' PHT on the first g",
	TFTAB512_COMMON, TFTAB512_PAR(_bmi),
	.cbc_enc = tftab_cbc_enc_t0, .ofb = tftab_ofb_t0, .cfb_enc = tftab_cfb_enc_t0,
	.cfb8_enc = tftab_cfb8_enc_t0,
	/* Zen 5: serial CBC/CFB/OFB encryption with the subkeys on t1 took
	 * 0.97 of the plain sum's time (bench/limits.md) */
	.serial_avoid_on = FB_CPU_SLOW_VEC_CHAIN,
};

const fb_kernel fb_twofish_table_avx512_tree = {
	.name = "twofish/table-avx512-tree",
	.note = "twofish/table-avx512-t0 with each g's XORs as a balanced tree, and RORX for BEXTR (Intel)",
	TFTAB512_COMMON, TFTAB512_PAR(_rorx),
	.cbc_enc = tftab_cbc_enc_tree, .ofb = tftab_ofb_tree, .cfb_enc = tftab_cfb_enc_tree,
	.cfb8_enc = tftab_cfb8_enc_tree,
	/* Sapphire Rapids class: serial CBC/CFB/OFB encryption 1.02x -t0's
	 * speed (bench/limits.md); on Zen 4 the ordered chain measured faster
	 * than the compiler's order and this one was not timed there */
	.serial_avoid_on = FB_CPU_AMD_ZEN,
};

#endif /* FB_X86 */
