/* The aes implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"
#include "aes_kernels.h"

/* Widest first; all are constant-time. aesni and ct64 end the list so
 * that every x86-64 CPU with AES-NI, and every other CPU, has a kernel. */
static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_aes_vaes_avx512,
	&fb_aes_vaes_avx2,
	&fb_aes_aesni,
#endif
	&fb_aes_ct64,
	NULL,
};

/* One block at a time: AES-NI has the lowest latency (one AESENC chain). */
static const fb_kernel *const serial[] = {
#if FB_X86
	&fb_aes_aesni,
#endif
	&fb_aes_ct64,
	NULL,
};

/* The figures behind the rows are in bench/limits.md (the ladders). The
 * 512-bit kernel finishes its own tails well, so no row hands them down.
 * Where the 512-bit kernel hands over depends on the core: Zen 4 splits a
 * 512-bit VAESENC into two 256-bit halves, Intel's cores do not. One to
 * three blocks go to AES-NI as one group: aes/vaes-avx2 would run two of
 * them as a 256-bit pass and hand the odd one to AES-NI by a second call. */
static const struct fb_ladder_row ladder[] = {
#if FB_X86
	{ &fb_aes_vaes_avx512, &fb_aes_vaes_avx2, 16, 0, 0,
	  "AMD Zen: 2-15 blocks start faster on 256-bit VAES; from 16 they are level", FB_CPU_AMD_ZEN },
	{ &fb_aes_vaes_avx512, &fb_aes_aesni, 4, 0, 0,
	  "Intel: from 4 blocks a 512-bit pass is as fast or faster (a 512-bit VAESENC costs what a 256-bit one does)", 0 },
	{ &fb_aes_vaes_avx2, &fb_aes_aesni, 4, 0, 0,
	  "1-3 blocks: AES-NI as one group, not a 256-bit pass plus a hand-off to it", 0 },
#endif
	{ NULL, NULL, 0, 0, 0, NULL, 0 },
};

static int key_ok(size_t len)
{
	return len == 16 || len == 24 || len == 32;
}

const fb_family fb_family_aes = {
	.name = "aes", .block_size = 16, .parallel = parallel, .serial = serial, .ladder = ladder,
	.key_ok = key_ok,
};
