/* The DES/3DES implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"
#include "des_table.h"
#include "des_bs_common.h" /* des/bs-* kernels */
#include "des_gfni.h"
#include "des_keys.h"

extern const fb_kernel fb_des_table64, fb_des_table64_shift, fb_des_table64_bmi2;
extern const fb_kernel fb_des_table12;
extern const fb_kernel fb_des_rotate;

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_des_bs_avx512, /* not on AMD Zen: des/bs-avx512-t2b there */
	&fb_des_bs_avx512_t2b,
	&fb_des_gfni_avx512,
	&fb_des_bs_avx2_gfni, /* AVX2 with GFNI: Intel's client cores from Alder Lake */
	&fb_des_bs_avx2,
	&fb_des_table_bmi2,
#endif
	&fb_des_table,
	&fb_des_table64,
	&fb_des_rotate, /* constant time on a CPU without AVX2 */
	NULL,
};

/* For one stream's chain (CBC, CFB, OFB encryption): des/table64 chains
 * CBC in its own form and keeps the key XOR off the latency chain, so it
 * has the shortest round; des/table12's 64 KB of tables overflow L1 (the
 * figures are in docs/benchmarks.md). Under FB_FLAG_CONSTANT_TIME the
 * table kernels drop out and des/gfni-avx512 takes the chain: one block
 * costs one 8-block vpermb group, against a whole 512-lane batch on
 * des/bs-avx512 (3DES-CBC encryption ~15x slower there). On Intel
 * des/table64-shift's indices by shifts beat the high byte registers; on
 * AMD Zen from Zen 3 des/table64-bmi2 enters and leaves the form by
 * PDEP/PEXT beside the rounds. */
static const fb_kernel *const serial[] = {
	&fb_des_table64_shift, /* not on AMD Zen: des/table64-bmi2 or des/table64 there */
#if FB_X86
	&fb_des_table64_bmi2, /* not on AMD family 17h, whose PDEP/PEXT are microcoded */
#endif
	&fb_des_table64,
	&fb_des_table,
	&fb_des_table12,
#if FB_X86
	&fb_des_gfni_avx512,
#endif
	&fb_des_rotate,
	NULL,
};

/* One-shot DES/3DES messages (TSC ticks):
 *  - in parallel modes, up to 640 bytes on AMD Zen (Zen 4) and 800
 *    elsewhere (Intel, Sapphire Rapids class): des/gfni-avx512 alone.
 *    Its key setup is ~1,100 ticks against ~2,100 for des/bs-avx512+table,
 *    and a bitsliced batch costs the same at any fill up to 256 blocks.
 *    Zen 4: 3DES-CBC decryption 512 bytes 3,506 against ~4,650, 768 bytes
 *    5,240 against ~4,650; DES 768 bytes 2,143 against ~2,100. Intel,
 *    where vpermb lookups cost less against the rounds (minimum of 4,000
 *    calls): 3DES 768 bytes 5,000 against 5,290-5,470, 832 bytes 5,950
 *    against 5,460; DES 768 bytes 2,130-2,270 against 2,440-3,060, 832
 *    level, 896 bytes 2,530-2,790 against 2,450.
 *  - up to 32 bytes otherwise: des/table(-bmi2) alone, its key setup
 *    (~260/540 ticks) against the wide schedules (measured break-even
 *    32-48 bytes on AVX2), and at one or two blocks it beats des/table64.
 *    Where BEXTR is two uops (Intel), des/table up to 24 bytes, as the
 *    ladder's last row below: 8-16-byte 3DES one-shots 0.93-0.96 of the
 *    time on the Sapphire Rapids class under FASTBLOCK_CPU_MASK=4000ff. */
static const struct fb_small_row small[] = {
	{ &fb_des_gfni_avx512, 640, 1, FB_CPU_AMD_ZEN },
	{ &fb_des_gfni_avx512, 800, 1, 0 },
#if FB_X86
	{ &fb_des_table, 24, 0, FB_CPU_SLOW_BEXTR | FB_CPU_BMI2 },
	{ &fb_des_table_bmi2, 32, 0, 0 },
#endif
	{ &fb_des_table, 32, 0, 0 },
	{ NULL, 0, 0, 0 },
};

/* The AVX2 kernels' rungs, for either transposition. Intel's client class
 * (Sapphire Rapids class under FASTBLOCK_CPU_MASK=41c0ff, forced, TSC
 * ticks a call of 20-30 blocks): a batch ~2,500 (DES) and ~6,700 (3DES) on
 * des/bs-avx2-gfni, ~2,590 and ~6,720 on des/bs-avx2, des/table-bmi2 ~96
 * and ~265 a block: the tables' side ends at 26 and 25 blocks. */
#define BS256_RUNGS(k) \
	{ k, &fb_des_table_bmi2, 25, 1, 8, \
	  "DES: tables win below 25 blocks against a 256-block AVX2 batch (Zen 4 under the AVX2 mask: " \
	  "2,190-2,210 TSC ticks at any fill, des/table-bmi2 ~89 a block; not constant-time)", 0 }, \
	{ k, &fb_des_table_bmi2, 25, 1, 24, \
	  "3DES: tables win below 25 blocks (5,780-5,800 a batch, des/table-bmi2 ~235 a block; not constant-time)", \
	  0 }, \
	{ k, &fb_des_table, 22, 1, 8, "DES without BMI2: des/table ~100 a block", 0 }, \
	{ k, &fb_des_table, 21, 1, 24, "3DES without BMI2: des/table ~270 a block", 0 },
#define BS256_CT_RUNG(k) \
	{ k, &fb_des_rotate, 6, 1, 0, \
	  "constant time: a 256-block batch ~5,800 ticks (3DES) at any fill, des/rotate ~1,180 a block", 0 },

/* Short runs and tails of the bitsliced kernels, whose partial batch costs
 * a whole one. The figures are in docs/benchmarks.md (ladder). Each row
 * to des/table-bmi2 has one to des/table after it for a CPU without BMI2
 * (none has AVX2 without it; a feature mask can hide it). */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	/* des/bs-avx512 is the Intel kernel (-t2b is AMD Zen's, avoid_on):
	 * vpermb lookups ~19 TSC ticks a DES block, ~48 a 3DES block; a
	 * bitsliced batch of up to 256 blocks (ymm rounds) ~1,950 and ~4,200
	 * at any fill (Sapphire Rapids class, CBC decryption and ECB) */
	{ &fb_des_bs_avx512, &fb_des_gfni_avx512, 96, 1, 8,
	  "DES on Intel: vpermb S-box lookups ~19 TSC ticks a block; a bitsliced batch of up to 256 blocks "
	  "~1,950 at any fill", 0 },
	{ &fb_des_bs_avx512, &fb_des_gfni_avx512, 88, 1, 24,
	  "3DES on Intel: vpermb lookups ~48 a block; a batch of up to 256 blocks ~4,200", 0 },
	{ &fb_des_bs_avx512_t2b, &fb_des_gfni_avx512, 72, 1, 8,
	  "DES on AMD Zen 4: vpermb lookups ~23 a block; a batch of up to 256 blocks ~1,700 at any fill, "
	  "257-512 ~3,000", 0 },
	{ &fb_des_bs_avx512_t2b, &fb_des_gfni_avx512, 65, 1, 24,
	  "3DES on AMD Zen 4: vpermb lookups ~61 a block; a batch of up to 256 blocks ~3,800, 257-512 ~6,300", 0 },
	{ &fb_des_gfni_avx512, &fb_des_table_bmi2, 3, 0, 0,
	  "AMD Zen: one or two blocks: table lookups start faster than a vpermb group (not constant-time)",
	  FB_CPU_AMD_ZEN },
	/* Intel, and without BMI2: BEXTR is two uops on Intel's cores, and a
	 * short chain pays for it (Sapphire Rapids class, 3DES ECB, TSC ticks
	 * a block: 2 blocks 236 by des/table against 286, one 409 against
	 * 429; from 4 blocks des/table-bmi2 leads by 2-7%). A vpermb group
	 * costs ~702 ticks (3DES) and ~282 (DES) for 1-8 blocks, des/table
	 * 3 blocks 568 and 223, 4 blocks 725 and 276. */
	{ &fb_des_gfni_avx512, &fb_des_table, 4, 0, 0,
	  "one to three blocks: table lookups start faster than a vpermb group (not constant-time)", 0 },
	BS256_RUNGS(&fb_des_bs_avx2_gfni)
	BS256_RUNGS(&fb_des_bs_avx2)
	/* Intel's AVX2 class (client cores): BEXTR is two uops there, and
	 * 1-3 blocks are a short chain (Sapphire Rapids class under
	 * FASTBLOCK_CPU_MASK=4000ff, 3DES ECB, TSC ticks a call: 2 blocks 472
	 * by des/table against 573, 3 blocks 568 against 625; from 4 blocks
	 * des/table-bmi2 leads by 2-7%) */
	{ &fb_des_table_bmi2, &fb_des_table, 4, 0, 0,
	  "Intel: 1-3 blocks by shifts, not BEXTR (two uops there)", FB_CPU_SLOW_BEXTR },
	/* Reached only under FB_FLAG_CONSTANT_TIME, which drops the rows above. */
	BS256_CT_RUNG(&fb_des_bs_avx2_gfni)
	BS256_CT_RUNG(&fb_des_bs_avx2)
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len == 8 || len == 16 || len == 24; /* DES, 2-key and 3-key EDE */
}

const fb_family fb_family_des = {
	.name = "des", .block_size = 8, .parallel = parallel, .serial = serial,
	.small = small, .ladder = ladder,
	.key_ok = key_ok, .strict_check = fb_des_strict_check,
};
