/*
 * des/table-bmi2: des/table (des_table.c) with six of a round's eight
 * S-box indices by BMI1's BEXTR, one instruction where a shift and a mask
 * are two. Four interleaved blocks are bound by the ALUs, not by the
 * tables' loads, and the indices take 8 operations a round instead of 14:
 * on AMD Zen 4 under the AVX2 mask, 8 KB ECB, DES 98 -> 89 TSC ticks a
 * block, 3DES 265 -> 237. It takes des/table's place on x86 CPUs with
 * BMI2: the AVX2 class's short runs and tails of des/bs-avx2, the AVX-512
 * class's one- and two-block runs, and one-shot messages up to 32 bytes
 * (des_impls.c). The same schedule as des/table. Not constant-time: the
 * tables are looked up by data.
 */
#include "des_table.h"

#if FB_X86

const fb_kernel fb_des_table_bmi2 = {
	.name = "des/table-bmi2",
	.family = "des",
	.block_size = 8,
	.cpu_needs = FB_CPU_BMI2,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(fb_des_table_ks),
	.note = "des/table with the S-box indices by BEXTR",
	.setkey = fb_des_table_setkey,
	.encrypt = fb_des_table_encrypt_bmi,
	.decrypt = fb_des_table_decrypt_bmi,
	.ctr32 = fb_des_table_ctr32_bmi,
	.cbc_dec = fb_des_table_cbc_dec_bmi,
	.cfb_dec = fb_des_table_cfb_dec_bmi,
	.lanes = &fb_des_table_lanes_bmi,
};

#endif
