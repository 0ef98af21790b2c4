/*
 * des/table64-bmi2: des/table64 (des_table64_blocks.h) with a block's
 * entry into the expanded form and its exit by PDEP and PEXT. In the
 * serial chains (CBC, CFB, OFB and CFB8 encryption) that entry and exit
 * run beside the rounds; by shifts and masks they were ~130 of the ~190
 * operations each block adds there, and they slowed the rounds' chain (AMD
 * Zen 4: DES-CBC 163 -> 152 TSC ticks a block, 3DES 445 -> 439). Its
 * rounds take bytes 2-6 of the index word by BEXTR, one instruction each:
 * the eight loads issue a cycle sooner (DES-CBC 1.025x, 3DES 1.02x). PDEP
 * and PEXT are microcoded on AMD family 17h (Zen 1, Zen 2), so the
 * selection passes it over there (FB_CPU_SLOW_PDEP); on Intel
 * des/table64-shift stays first (not measured with PDEP there). Not
 * constant-time, as des/table64.
 */
#include "../internal.h"

#if FB_X86
#define DES_TABLE64_PEXT 1
#define T64_TGT FB_TARGET("bmi,bmi2")
#include "des_table64_blocks.h"

DES_TABLE64_ENTRIES(, 0)

const fb_kernel fb_des_table64_bmi2 = {
	.name = "des/table64-bmi2",
	.family = "des",
	.block_size = 8,
	.cpu_needs = FB_CPU_BMI2,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(des_table64_ks),
	.note = "des/table64 entering and leaving the expanded form by PDEP/PEXT: the serial chains",
	.setkey = des_table64_setkey,
	.encrypt = des_table64_encrypt,
	.decrypt = des_table64_decrypt,
	.cbc_enc = des_table64_cbc_enc,
	.cfb_enc = des_table64_cfb_enc,
	.ofb = des_table64_ofb,
	.cfb8_enc = des_table64_cfb8_enc,
	.serial_avoid_on = FB_CPU_SLOW_PDEP,
};

#endif
