/*
 * bench_timing.h - the measuring method of seed 002, brought up to date
 * (see ../../shared/DESIGN.md "Measuring" and docs/benchmarks.md):
 * a serialized time-stamp counter around one call, the same measurement
 * of an empty function subtracted, minimum and median over many
 * repetitions, pinned to one core.
 *
 * All "cycles" here are TSC ticks: the TSC runs at a fixed rate that need
 * not be the core clock. bench_core_per_tick() estimates the ratio.
 */
#ifndef FB_BENCH_TIMING_H
#define FB_BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* The timed unit: one call of fn(arg). */
typedef void (*bench_fn)(void *arg);

typedef struct bench_stats {
	double min;       /* ticks, empty-function overhead subtracted */
	double median;    /* ticks, overhead subtracted */
	size_t samples;   /* repetitions timed */
	size_t calls;     /* calls of fn per repetition (min and median are per call) */
	size_t min_reps;  /* repetitions asked for */
	int capped;       /* 1: stopped at the hard time cap before min_reps */
} bench_stats;

typedef struct bench_clock {
	double tsc_hz;         /* TSC ticks per second, measured against CLOCK_MONOTONIC */
	double overhead;       /* ticks of the empty function, minimum */
	double core_per_tick;  /* estimated core cycles per TSC tick (0 if unknown) */
	int cpu;               /* the core we are pinned to (-1 if pinning failed) */
} bench_clock;

/* Pins the calling thread to the core it runs on, measures the TSC rate,
 * the empty-function overhead and the core/TSC ratio. Returns 0 on success,
 * -1 when this machine has no usable TSC (the harness then refuses to run). */
int bench_clock_init(bench_clock *clk);

/* Times fn(arg): a few untimed warm-up calls, then repetitions until
 * `seconds` of TSC time have passed and at least min_reps were taken (or
 * max_reps reached). prep(arg), if not NULL, runs untimed before each
 * repetition (to refresh state such as a stream that grew too long). */
void bench_measure(const bench_clock *clk, bench_fn fn, bench_fn prep, void *arg,
		   double seconds, size_t min_reps, size_t max_reps, bench_stats *st);

/* The same with `calls` calls of fn per timed repetition (prep once before
 * them), figures per call. Short messages are timed this way: a library
 * that buffers keystream or defers work pays for it inside the batch, and
 * the result is not quantized to a few counter steps.
 * Whatever min_reps says, timing stops once BENCH_CAP_FACTOR x `seconds`
 * have passed (st->capped tells when that cut it short): a pathological
 * implementation is reported as such, not waited for. */
#define BENCH_CAP_FACTOR 8
void bench_measure_calls(const bench_clock *clk, bench_fn fn, bench_fn prep, void *arg,
			 double seconds, size_t min_reps, size_t max_reps, size_t calls,
			 bench_stats *st);

/* `fastblock speed --cache` (cache.c): the table DES kernels with warm,
 * cold and contended caches, printed; 0 ok, 1 an implementation could
 * not run, 2 out of memory. */
int fb_bench_cache(const bench_clock *clk, double seconds);

/* `fastblock speed --mac-batch` (batch_mac.c, built with OpenSSL): KCVs,
 * retail MACs and CMACs of n keys through the batch calls against an
 * OpenSSL EVP loop, outputs compared first; 0 ok, 1 mismatch, 2 no memory. */
int fb_bench_mac_batch(const bench_clock *clk, size_t n, uint64_t seed);

/* `fastblock speed --threads N` (threads.c): one fb_update of len bytes
 * on 1 and on `threads` threads for each name (the defaults when n_names
 * is 0), outputs compared first; 0 ok, 1 a mismatch or error, 2 no memory. */
int fb_bench_threads(unsigned threads, const char *const *names, size_t n_names, size_t len);

#endif
