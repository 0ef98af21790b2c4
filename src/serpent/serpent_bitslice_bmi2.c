/*
 * serpent/bitslice-bmi2: serpent/bitslice's block code (serpent_scalar_blocks.h)
 * compiled for BMI1 and BMI2, for the serial chains (CBC, CFB, CFB8 and OFB
 * encryption) on machines where the scalar rounds beat the vector ones on
 * one block: AMD Zen, and AVX2 without AVX-512. A round is a dependency
 * chain of about 12 gates and rotations; ANDN takes the NOT off the S-box
 * circuits' and-not gates and RORX spares the copy before each rotation
 * (two-operand x86 destroys its source), so the chain and the instruction
 * stream are both shorter. The same key schedule and forms as
 * serpent/bitslice (its setkey functions). No table lookups, no
 * secret-dependent branches: constant-time.
 */
#include "../internal.h"

#if FB_X86
#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
#include "serpent_scalar_blocks.h"

const fb_kernel fb_serpent_bitslice_bmi2 = {
	.name = "serpent/bitslice-bmi2",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = FB_CPU_BMI2,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(serpent_ks),
	.note = "serpent/bitslice compiled for BMI1/BMI2 (ANDN, RORX): the serial chains",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey,
	.setkey_enc = fb_serpent_setkey_enc,
	.setkey_dec = fb_serpent_setkey_dec,
	.encrypt = serpent_encrypt,
	.decrypt = serpent_decrypt,
	.cbc_enc = serpent_cbc_enc,
	.ofb = serpent_ofb,
	.cfb_enc = serpent_cfb_enc,
	.cfb8_enc = serpent_cfb8_enc,
};

#pragma GCC pop_options
#endif
