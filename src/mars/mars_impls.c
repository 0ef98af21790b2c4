/* The mars implementations, in order of preference (see fb_family in src/internal.h). */
#include "mars.h"

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_mars_avx512,
	&fb_mars_avx2,       /* passed over where gathers are microcoded (avoid_on) */
	&fb_mars_table_avx2, /* there: the same code with eight loads a lookup */
	&fb_mars_permute_avx512, /* constant time: for FB_FLAG_CONSTANT_TIME */
#endif
	&fb_mars_portable,
	NULL,
};

static const fb_kernel *const serial[] = {
	&fb_mars_portable,
	NULL,
};

/* Short runs and tails go to the scalar code. The figures are in
 * docs/benchmarks.md (ladder). */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	{ &fb_mars_avx512, &fb_mars_avx2, 9, 1, 0,
	  "AMD Zen 4: 1-8 blocks 690 TSC ticks in one ymm group of 8 (8-lane gathers), 1,180 in one zmm group "
	  "of 16; 9-16 blocks 1,150 for two ymm groups against 1,180", FB_CPU_AMD_ZEN },
	{ &fb_mars_avx512, &fb_mars_avx2, 9, 1, 0,
	  "Sapphire Rapids class: up to 8 blocks one ymm group of 8 (8-lane gathers) 640-690 TSC ticks, one zmm "
	  "group of 16 730-780", 0 },
	{ &fb_mars_table_avx2, &fb_mars_portable, 13, 1, 0,
	  "Zen 1 and 2 (a gather there is one element every few cycles; mars/table-avx2 looks up by loads): "
	  "the threshold mars/avx2 had there, kept; not yet measured on such a CPU",
	  FB_CPU_AMD_ZEN | FB_CPU_SLOW_GATHER },
	{ &fb_mars_table_avx2, &fb_mars_portable, 7, 1, 0,
	  "Intel under the GDS microcode (slow gathers): mars/avx2's Intel threshold; on Zen 4, where the "
	  "lone group of 8 costs 664 TSC ticks by loads and 689 by gathers, the two kernels cross mars/portable "
	  "at the same length; not yet measured on such a CPU", FB_CPU_SLOW_GATHER },
	{ &fb_mars_avx2, &fb_mars_portable, 6, 1, 0,
	  "AMD Zen 4: 5 blocks 638 TSC ticks scalar (four blocks interleaved), 688 for one ymm group of 8; 6 "
	  "blocks 759 against 689", FB_CPU_AMD_ZEN },
	{ &fb_mars_avx2, &fb_mars_portable, 7, 1, 0,
	  "Sapphire Rapids class: 6 blocks 630-650 TSC ticks scalar, 690-710 for one ymm group of 8; 7 blocks 720-730 "
	  "against 640-710, 12 blocks 1,230 against 750-830", 0 },
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len >= 16 && len <= 56 && len % 4 == 0;
}

const fb_family fb_family_mars = {
	.name = "mars", .block_size = 16, .parallel = parallel, .serial = serial, .ladder = ladder,
	.key_ok = key_ok,
};
