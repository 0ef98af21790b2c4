/*
 * des/table64: DES and Triple-DES in seed 003's 64-bit expanded form
 * (Biham's trick as Corella used it on PA-RISC).
 *
 * Each half is kept as E(half): 48 bits, S-box j's six input bits in byte
 * j-1. The tables return E(P(S_j(x))) as 64-bit words, so a round's output
 * is already in the next round's input form: the round is one XOR with the
 * key, eight byte-indexed lookups and an XOR tree, with no rotation or
 * expansion on the latency chain. Meant for the serial modes (CBC, CFB,
 * OFB encryption), where one block's latency is all that matters.
 *
 * Not constant-time: table indices depend on key and data.
 */
#include "des_table64_blocks.h"

DES_TABLE64_ENTRIES(, 0)
DES_TABLE64_ENTRIES(_shift, 1)

const fb_kernel fb_des_table64 = {
	.name = "des/table64",
	.family = "des",
	.block_size = 8,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(des_table64_ks),
	.note = "64-bit expanded form, tables return E(P(S(x))) (Corella)",
	.setkey = des_table64_setkey,
	.encrypt = des_table64_encrypt,
	.decrypt = des_table64_decrypt,
	.cbc_enc = des_table64_cbc_enc,
	.cfb_enc = des_table64_cfb_enc,
	.ofb = des_table64_ofb,
	.cfb8_enc = des_table64_cfb8_enc,
};

/* The same with f64_shift on the serial chains (CBC, CFB, OFB, CFB8):
 * Sapphire Rapids class, DES and 3DES CBC encryption 1.09-1.10x
 * des/table64's speed (bench/limits.md). On AMD the high byte registers
 * cost no more than a shift, and the serial list passes this over. */
const fb_kernel fb_des_table64_shift = {
	.name = "des/table64-shift",
	.family = "des",
	.block_size = 8,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(des_table64_ks),
	.note = "des/table64 with its chains' table indices by shifts only",
	.setkey = des_table64_setkey,
	.encrypt = des_table64_encrypt_shift,
	.decrypt = des_table64_decrypt_shift,
	.cbc_enc = des_table64_cbc_enc_shift,
	.cfb_enc = des_table64_cfb_enc_shift,
	.ofb = des_table64_ofb_shift,
	.cfb8_enc = des_table64_cfb8_enc_shift,
	.serial_avoid_on = FB_CPU_AMD_ZEN,
};
