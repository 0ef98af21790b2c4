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

const fb_family fb_family_mars = { "mars", 16, parallel, serial, NULL, 0 };
