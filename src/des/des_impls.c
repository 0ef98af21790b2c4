/* The DES/3DES implementations, in order of preference (see fb_family in src/internal.h). */
#include "../internal.h"
#include "des_table.h"
#include "des_bs_common.h" /* des/bs-* kernels */
#include "des_gfni.h"
#include "des_keys.h"

extern const fb_kernel fb_des_table64;
extern const fb_kernel fb_des_table12;

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

/* For one stream's chain (CBC, CFB, OFB encryption): des/table64 chains
 * CBC in its own form and keeps the key XOR off the latency chain, so it
 * has the shortest round; des/table12's 64 KB of tables overflow L1 (the
 * figures are in docs/benchmarks.md). */
static const fb_kernel *const serial[] = {
	&fb_des_table64,
	&fb_des_table,
	&fb_des_table12,
	NULL,
};

/* One-shot DES/3DES messages up to 32 bytes: des/table alone. Its key setup
 * (~260/540 ticks) against ~700/1,300 for des/bs-avx512+table's schedules,
 * which pay off from three blocks on (measured break-even 32-48 bytes);
 * and at one or two blocks it beats des/table64 (2 blocks interleaved). */
static int key_ok(size_t len)
{
	return len == 8 || len == 16 || len == 24; /* DES, 2-key and 3-key EDE */
}

const fb_family fb_family_des = {
	.name = "des", .block_size = 8, .parallel = parallel, .serial = serial,
	.small = &fb_des_table, .small_max = 32,
	.key_ok = key_ok, .strict_check = fb_des_strict_check,
};
