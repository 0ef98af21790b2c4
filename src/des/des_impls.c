/* The DES/3DES implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"
#include "des_table.h"

static const fb_kernel *const parallel[] = {
	&fb_des_table,
	NULL,
};

static const fb_kernel *const serial[] = {
	&fb_des_table,
	NULL,
};

const fb_family fb_family_des = { "des", 8, parallel, serial };
