/* The mars implementations, in order of preference (see fb_family in src/internal.h). */
#include "mars.h"

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_mars_avx512,
	&fb_mars_avx2,
#endif
	&fb_mars_portable,
	NULL,
};

static const fb_kernel *const serial[] = {
	&fb_mars_portable,
	NULL,
};

static int key_ok(size_t len)
{
	return len >= 16 && len <= 56 && len % 4 == 0;
}

const fb_family fb_family_mars = {
	.name = "mars", .block_size = 16, .parallel = parallel, .serial = serial, .key_ok = key_ok,
};
