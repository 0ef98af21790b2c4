/* The rc6 implementations, in order of preference (see fb_family in src/internal.h). */
#include "rc6.h"

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_rc6_avx512,
	&fb_rc6_avx2,
#endif
	&fb_rc6_portable,
	NULL,
};

static const fb_kernel *const serial[] = {
	&fb_rc6_portable,
	NULL,
};

/* Short runs and tails go to the scalar code. The figures are in
 * docs/benchmarks.md (ladder). */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	{ &fb_rc6_avx512, &fb_rc6_avx2, 9, 1, 0,
	  "AMD Zen 4: 1-8 blocks 191-195 TSC ticks in one ymm group of 8, 215-230 in one zmm group of 16 "
	  "(a 512-bit vpmulld is two 256-bit halves); 9-16 blocks 262 against 220-230", FB_CPU_AMD_ZEN },
	{ &fb_rc6_avx512, &fb_rc6_portable, 3, 1, 0,
	  "Sapphire Rapids class: one zmm group of 16 is 290-320 TSC ticks for 1-16 blocks, one ymm group "
	  "of 8 320; scalar 126 for one block, 210 for two, 312 for three", 0 },
	{ &fb_rc6_avx2, &fb_rc6_portable, 2, 1, 0,
	  "AMD Zen 4: one block 130 TSC ticks scalar, 191 in one ymm group of 8; two 239 against 192", FB_CPU_AMD_ZEN },
	{ &fb_rc6_avx2, &fb_rc6_portable, 3, 1, 0,
	  "Sapphire Rapids class: two 210-232 TSC ticks scalar against 321-338 in one ymm group of 8, three "
	  "312-337 against 320-329", 0 },
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len >= 1 && len <= 255; /* an empty key is a key everyone knows */
}

const fb_family fb_family_rc6 = {
	.name = "rc6", .block_size = 16, .parallel = parallel, .serial = serial, .ladder = ladder,
	.key_ok = key_ok,
};
