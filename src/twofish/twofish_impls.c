/* The Twofish implementations, in order of preference (see fb_family in src/internal.h). */
#include "twofish_impl.h"

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_twofish_avx512_gfni,
	&fb_twofish_avx512_gfni_ct, /* chosen when constant time is required */
	&fb_twofish_avx2,
#endif
	&fb_twofish_table,
	NULL,
};

/* twofish/avx512-gfni runs fewer than 7 blocks, and so every single block,
 * with the code of twofish/table on its own copy of the tables: the same
 * latency, and one key setup serves both the parallel and the serial path. */
static const fb_kernel *const serial[] = {
#if FB_X86
	&fb_twofish_avx512_gfni,
#endif
	&fb_twofish_table,
	NULL,
};

static int key_ok(size_t len)
{
	return len == 16 || len == 24 || len == 32;
}

const fb_family fb_family_twofish = {
	.name = "twofish", .block_size = 16, .parallel = parallel, .serial = serial, .key_ok = key_ok,
};
