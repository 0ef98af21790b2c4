/* The DES/3DES implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"
#include "des_table.h"
#include "des_bs_common.h" /* des/bs-* kernels */
#include "des_gfni.h"

extern const fb_kernel fb_des_table64;

static const fb_kernel *const parallel[] = {
#if FB_X86
	&fb_des_bs_avx512_table,
	&fb_des_bs_avx512,
	&fb_des_gfni_avx512,
	&fb_des_bs_avx2_table,
	&fb_des_bs_avx2,
#endif
	&fb_des_table,
	&fb_des_table64,
	NULL,
};

/* des/table and des/table64 measure equal within noise for CBC encryption
 * here (about 12 TSC ticks per round, see the issue 4 note); table first. */
static const fb_kernel *const serial[] = {
	&fb_des_table,
	&fb_des_table64,
	NULL,
};

/* One-shot DES/3DES messages up to 32 bytes: des/table alone (its key
 * setup ~260/540 ticks against ~700/1,300 for des/bs-avx512+table's three
 * schedules, which speed up only runs of three blocks and more). */
const fb_family fb_family_des = { "des", 8, parallel, serial, 32 };
