/* The mars implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"

static const fb_kernel *const parallel[] = {
	NULL,
};

static const fb_kernel *const serial[] = {
	NULL,
};

const fb_family fb_family_mars = { "mars", 16, parallel, serial };
