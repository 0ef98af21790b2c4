/*
 * cache.c - `fastblock speed --cache`: the table DES kernels with their
 * tables warm and cold (issue 21; seed 001 keeps its tables on chip, seed
 * 003 found 64 KB of merged tables slower for leaving L1).
 *
 * For des/table, des/table64 and des/table12, one DES-CBC encryption of a
 * message (a serial chain: every block waits for its table lookups):
 *   warm       the same message again and again;
 *   cold       after a sweep of twice the last-level cache before each
 *              message, so tables, schedule and data come from memory;
 *   contended  warm, while a child process on another core sweeps the
 *              same size without pause (only shared levels can suffer).
 * Figures are TSC ticks per 8-byte block, medians.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fastblock.h"
#include "bench_timing.h"

typedef struct cache_run {
	fb_ctx *ctx;
	uint8_t *buf;
	size_t len;
	volatile uint8_t *sweep;
	size_t sweep_len;
} cache_run;

static void one_message(void *arg)
{
	cache_run *r = arg;
	size_t n;
	fb_update(r->ctx, r->buf, r->len, &n, r->buf, r->len);
}

/* Reads one byte per cache line of a buffer twice the last-level cache. */
static void sweep(void *arg)
{
	cache_run *r = arg;
	unsigned s = 0;
	for (size_t i = 0; i < r->sweep_len; i += 64)
		s += r->sweep[i];
	r->sweep[0] = (uint8_t)s;
}

/* A child on another core sweeping until killed; -1 if none could start. */
static pid_t start_sweeper(cache_run *r)
{
	/* The harness pinned this process to one core: any other online one. */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int self = sched_getcpu(), other = self == 0 ? 1 : 0;
	if (ncpu < 2 || other >= ncpu || other >= CPU_SETSIZE)
		return -1;
	pid_t p = fork();
	if (p == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(other, &one);
		sched_setaffinity(0, sizeof one, &one);
		for (;;)
			sweep(r);
	}
	return p;
}

static double per_block(const bench_stats *st, size_t len)
{
	return st->median / (double)(len / 8);
}

int fb_bench_cache(const bench_clock *clk, double seconds)
{
	static const char *const impls[] = { "des/table", "des/table64", "des/table12" };
	static const uint8_t key[8] = { 0x13, 0x34, 0x57, 0x79, 0x9b, 0xbc, 0xdf, 0xf1 };
	static const uint8_t iv[8];
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (llc <= 0)
		llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
	cache_run r = { .len = 1024, .sweep_len = 2 * (size_t)(llc > 0 ? llc : 32 << 20) };
	r.buf = calloc(1, r.len);
	r.sweep = calloc(1, r.sweep_len);
	const fb_cipher *c = fb_cipher_by_name("des-cbc");
	if (!r.buf || !r.sweep || !c)
		return 2;
	printf("# des-cbc encryption of %zu-byte messages; TSC ticks per block, medians\n"
	       "# cold: after reading %zu MB (twice the last-level cache); contended: another core sweeps it\n"
	       "%-12s %8s %8s %10s %8s\n", r.len, r.sweep_len >> 20, "impl", "warm", "cold",
	       "contended", "cold/warm");
	int rc = 0;
	for (size_t i = 0; i < sizeof impls / sizeof *impls; i++) {
		fb_options opt = { FB_PAD_NONE, 0, impls[i] };
		r.ctx = fb_ctx_new_for(c, FB_ENCRYPT, &opt);
		if (!r.ctx || fb_init(r.ctx, c, FB_ENCRYPT, key, 8, iv, 8, &opt)) {
			fb_ctx_free(r.ctx);
			rc = 1;
			continue;
		}
		bench_stats warm, cold, busy;
		bench_measure(clk, one_message, NULL, &r, seconds, 50, 100000, &warm);
		bench_measure(clk, one_message, sweep, &r, seconds, 15, 60, &cold);
		pid_t p = start_sweeper(&r);
		bench_measure(clk, one_message, NULL, &r, seconds, 50, 100000, &busy);
		if (p > 0) {
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
		}
		char busy_s[24] = "-"; /* no other core to sweep from */
		if (p > 0)
			snprintf(busy_s, sizeof busy_s, "%.1f", per_block(&busy, r.len));
		printf("%-12s %8.1f %8.1f %10s %8.2f\n", impls[i], per_block(&warm, r.len),
		       per_block(&cold, r.len), busy_s, per_block(&cold, r.len) / per_block(&warm, r.len));
		fb_ctx_free(r.ctx);
	}
	free(r.buf);
	free((void *)r.sweep);
	return rc;
}
