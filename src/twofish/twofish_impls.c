/* The Twofish implementations, in order of preference (see fb_family in src/internal.h). */
#include "twofish_impl.h"

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_twofish_avx512_gfni,
	&fb_twofish_avx512_gfni_ct, /* chosen when constant time is required */
#endif
	/* Intel's gathers are fast: under the AVX2 mask on the Sapphire
	 * Rapids class, twofish/avx2 is 1.36x twofish/table-avx2 (8 KB CTR).
	 * On AMD (avoid_on), four blocks interleaved on the tables beat the
	 * gathers on every machine measured (bench/limits.md). */
#if FB_X86
	&fb_twofish_avx2,
	&fb_twofish_table_avx2,
#endif
	&fb_twofish_table,
	NULL,
};

/* twofish/table-avx512 and twofish/table-avx2 run twofish/table's code;
 * their key setups, by AVX-512 (a fifth of the portable one's time, and
 * also twofish/avx512-gfni's) and by AVX2, are cheaper. The -tree
 * variant's chains measured 1.02x -t0's on Intel, which AMD passes over;
 * -t0's measured 1.03x on Zen 4, which Zen 5 passes over. */
static const fb_kernel *const serial[] = {
#if FB_X86
	&fb_twofish_table_avx512_tree,
	&fb_twofish_table_avx512_t0,
	&fb_twofish_table_avx512,
	&fb_twofish_table_avx2_tree,
	&fb_twofish_table_avx2_t0,
	&fb_twofish_table_avx2,
#endif
	&fb_twofish_table,
	NULL,
};

/* The figures are in docs/benchmarks.md (ladder). */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	{ &fb_twofish_avx512_gfni, &fb_twofish_table_avx512, 10, 1, 0,
	  "AMD Zen 4: one 64-lane SIMD step costs about as much as nine blocks by tables (four interleaved, BEXTR)",
	  FB_CPU_AMD_ZEN },
	/* Intel: the -tree rung, whose interleaved blocks take RORX where
	 * the others take BEXTR (two uops there) */
	{ &fb_twofish_avx512_gfni, &fb_twofish_table_avx512_tree, 9, 1, 0,
	  "one 64-lane SIMD step costs about as much as eight or nine blocks by tables", 0 },
	{ &fb_twofish_avx2, &fb_twofish_table_avx2_tree, 8, 1, 0,
	  "twofish/avx2 works in groups of 8 blocks; shorter runs and tails go by tables (same schedule)", 0 },
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len == 16 || len == 24 || len == 32;
}

const fb_family fb_family_twofish = {
	.name = "twofish", .block_size = 16, .parallel = parallel, .serial = serial, .ladder = ladder,
	.key_ok = key_ok,
};
