/*
 * threads.c - `fastblock speed --threads N`: large messages in the
 * parallel modes on one thread and on N (fb_ctx_set_threads), in the same
 * run, interleaved, outputs compared first. The figure is wall time of
 * one fb_update over the whole buffer (the threads' work is not on one
 * core's counter), median of the repetitions, and the ratio N / 1.
 *
 * The harness pins itself to one core for single-thread timing; threads
 * inherit that, so this run first widens its affinity back to every CPU
 * the process was started with.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fastblock.h"
#include "bench_timing.h"

#define REPS 7

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Seconds for one fb_update of len bytes on threads threads, re-keyed first. */
static double one_run(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, unsigned threads,
		      uint8_t *out, const uint8_t *in, size_t len, int *err)
{
	static const uint8_t key[64] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
					 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33 };
	static const uint8_t iv[16] = { 0xfe, 0xdc };
	fb_options o = { .padding = FB_PAD_NONE };
	size_t got;
	*err = fb_init(ctx, c, dir, key, fb_cipher_key_len(c), iv, fb_cipher_iv_len(c), &o);
	if (!*err)
		*err = fb_ctx_set_threads(ctx, threads);
	double t0 = wall();
	if (!*err)
		*err = fb_update(ctx, out, len + 64, &got, in, len);
	return wall() - t0;
}

static int one_cipher(const char *name, unsigned threads, size_t len, uint8_t *in, uint8_t *out1,
		      uint8_t *outn)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	enum fb_mode m = c ? fb_cipher_mode(c) : FB_ECB;
	enum fb_direction dir = m == FB_CBC || m == FB_CFB ? FB_DECRYPT : FB_ENCRYPT;
	fb_ctx *ctx = fb_ctx_new();
	double t1[REPS], tn[REPS];
	int err = c && ctx ? 0 : FB_ERR_UNKNOWN_CIPHER;
	if (!err)
		one_run(ctx, c, dir, 1, out1, in, len, &err);
	if (!err)
		one_run(ctx, c, dir, threads, outn, in, len, &err);
	if (!err && memcmp(out1, outn, len)) {
		printf("%-18s MISMATCH between 1 and %u threads\n", name, threads);
		fb_ctx_free(ctx);
		return 1;
	}
	for (int r = 0; r < REPS && !err; r++) {
		t1[r] = one_run(ctx, c, dir, 1, out1, in, len, &err);
		tn[r] = one_run(ctx, c, dir, threads, outn, in, len, &err);
	}
	fb_ctx_free(ctx);
	if (err) {
		printf("%-18s %s\n", name, fb_strerror(err));
		return 1;
	}
	qsort(t1, REPS, sizeof *t1, cmp_double);
	qsort(tn, REPS, sizeof *tn, cmp_double);
	double a = t1[REPS / 2], b = tn[REPS / 2];
	printf("%-18s %-4s %9.0f %9.0f   %5.2fx\n", name, dir == FB_ENCRYPT ? "enc" : "dec", len / a / 1e6,
	       len / b / 1e6, a / b);
	return 0;
}

int fb_bench_threads(unsigned threads, const char *const *names, size_t n_names, size_t len)
{
	static const char *const def[] = {
		"des-ede3-ctr", "des-ede3-ecb", "des-ede3-cbc", "aes-128-ctr", "aes-128-xts", "aes-256-xts",
		"aes-128-cbc", "serpent-128-ctr", "twofish-256-xts", "rc6-128-ctr", "mars-128-ctr",
	};
	cpu_set_t all;
	CPU_ZERO(&all);
	for (int i = 0; i < CPU_SETSIZE && i < 1024; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof all, &all); /* the kernel keeps only CPUs that exist */
	if (!n_names)
		names = def, n_names = sizeof def / sizeof *def;
	uint8_t *in = malloc(len + 64), *o1 = malloc(len + 64), *on = malloc(len + 64);
	if (!in || !o1 || !on) {
		free(in), free(o1), free(on);
		return 2;
	}
	for (size_t i = 0; i < len; i++)
		in[i] = (uint8_t)(i * 131 + (i >> 9));
	memset(o1, 0, len + 64); /* touch the pages before timing */
	memset(on, 0, len + 64);
	printf("fastblock speed --threads %u: one fb_update of %zu MB, wall time, median of %d, MB/s\n",
	       threads, len >> 20, REPS);
	printf("%-18s %-4s %9s %9s   %s\n", "cipher", "dir", "1 thread", "threads", "ratio");
	int rc = 0;
	for (size_t i = 0; i < n_names; i++)
		rc |= one_cipher(names[i], threads, len, in, o1, on);
	free(in), free(o1), free(on);
	return rc;
}
