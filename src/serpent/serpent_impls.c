/* The serpent implementations, in order of preference (see fb_family in src/internal.h). */
#include "serpent.h"

/* Parallel work: up to 64 blocks in zmm; without AVX-512, batches of 256
 * bitsliced a plane a bit (the round-key masks from memory on Intel, from a
 * register on AMD Zen: avoid_on), then 24 in ymm; then the portable code. */
static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_serpent_avx512,
	&fb_serpent_bs_avx2_km,
	&fb_serpent_bs_avx2,
	&fb_serpent_avx2,
#endif
	&fb_serpent_bitslice,
	NULL,
};

/* Serial chains: serpent/avx512 runs a lone block on xmm registers with the
 * ternlog circuits, about 1.35x faster than the scalar code (CBC encryption,
 * 8 KB) on Intel; on AMD Zen (serial_avoid_on) and with the AVX2 kernel
 * lone blocks go to the scalar code, built for BMI1/BMI2 where the CPU has
 * them (Zen 4, CBC encryption: ~0.96 of serpent/bitslice's time).
 * serpent/bitslice-exact is that code on serpent/avx512's schedule; it
 * serves only the ladder below. */
static const fb_kernel *const serial[] = {
#if FB_X86
	&fb_serpent_avx512,
	&fb_serpent_bitslice_bmi2,
#endif
	&fb_serpent_bitslice,
	&fb_serpent_bitslice_exact,
	NULL,
};

/* The figures are in docs/benchmarks.md (ladder). */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	{ &fb_serpent_avx512, &fb_serpent_bitslice_exact, 2, 0, 0,
	  "on Zen 5 (the narrow kernel's cpu_needs) a lone block costs 368-407 ticks on xmm, 263-313 on the scalar code, which shares this schedule", 0 },
	{ &fb_serpent_bs_avx2_km, &fb_serpent_avx2, 256, 1, 0,
	  "a batch is 256 blocks: shorter runs and tails on the word-sliced groups", 0 },
	{ &fb_serpent_bs_avx2, &fb_serpent_avx2, 256, 1, 0,
	  "a batch is 256 blocks: shorter runs and tails on the word-sliced groups", 0 },
	{ &fb_serpent_avx2, &fb_serpent_bitslice, 2, 1, 0,
	  "a lone block: one group of 8 (shallow circuits) costs about as much as two blocks of the portable "
	  "code and less than three (same schedule)", 0 },
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len >= 1 && len <= 32; /* the specification pads short keys */
}

const fb_family fb_family_serpent = {
	.name = "serpent", .block_size = 16, .parallel = parallel, .serial = serial, .ladder = ladder,
	.key_ok = key_ok,
};
