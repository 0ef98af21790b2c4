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

static int key_ok(size_t len)
{
	return len >= 1 && len <= 255; /* an empty key is a key everyone knows */
}

const fb_family fb_family_rc6 = {
	.name = "rc6", .block_size = 16, .parallel = parallel, .serial = serial, .key_ok = key_ok,
};
