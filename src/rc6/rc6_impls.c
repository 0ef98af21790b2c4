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

const fb_family fb_family_rc6 = { "rc6", 16, parallel, serial, NULL, 0 };
