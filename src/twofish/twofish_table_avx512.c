/*
 * twofish/table-avx512: twofish/table's code (full keying, one block at a
 * time) on the schedule that twofish/avx512-gfni's key setup builds with
 * AVX-512 and GFNI, about a fifth of the portable key setup's time. It is
 * twofish/avx512-gfni's narrow rung for short runs and the serial kernel
 * where that runs; with the same setkey, a context keeps one schedule for
 * both. Not constant-time: table indices depend on key and data.
 */
#include "twofish_impl.h"

#if FB_X86

static void tftab_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_twofish_table_encrypt(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n);
}

static void tftab_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	fb_twofish_table_decrypt(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n);
}

static void tftab_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	fb_twofish_table_cbc_dec(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n, iv);
}

static void tftab_cbc_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	fb_twofish_table_cbc_enc(&((const twofish_vperm_tab_ks *)ks)->t, out, in, n, iv);
}

const fb_kernel fb_twofish_table_avx512 = {
	.name = "twofish/table-avx512",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = TWOFISH_AVX512_NEEDS,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(twofish_vperm_tab_ks),
	.note = "full-keying tables, one block at a time; key setup by AVX-512 and GFNI",
	.fills_schedule = 1,
	.setkey = fb_twofish_avx512_setkey_tables,
	.encrypt = tftab_encrypt,
	.decrypt = tftab_decrypt,
	.cbc_enc = tftab_cbc_enc,
	.cbc_dec = tftab_cbc_dec,
};

#endif /* FB_X86 */
