/*
 * timing.c - serialized time-stamp counter, pinning, calibration.
 * See bench_timing.h for the method.
 */
#define _GNU_SOURCE
#include "bench_timing.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define BENCH_X86 1
#else
#define BENCH_X86 0
#endif

/* ---- reading the counter ------------------------------------------------ */

#if BENCH_X86
/* lfence before rdtsc waits for earlier instructions to finish; the one
 * after keeps later ones from starting before the read (Intel SDM on
 * RDTSC; the same role cpuid played in seed 002). */
static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* rdtscp waits for the timed code to retire; lfence stops what follows
 * from being pulled above the read. */
static inline uint64_t tsc_end_rdtscp(void)
{
	uint32_t lo, hi, aux;
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static int has_rdtscp(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000001u, &a, &b, &c, &d))
		return 0;
	return (d >> 27) & 1;
}

static int has_tsc(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	return (d >> 4) & 1;
}
#else
/* Other architectures: nanoseconds stand in for ticks. */
static inline uint64_t tsc_begin(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static inline uint64_t tsc_end_rdtscp(void) { return tsc_begin(); }
static int has_rdtscp(void) { return 1; }
static int has_tsc(void) { return 1; }
#endif

/* The measurement below is written once; this picks the end read. */
static int use_rdtscp = 1;

static inline uint64_t tsc_end(void)
{
	return use_rdtscp ? tsc_end_rdtscp() : tsc_begin();
}

/* ---- calibration ---------------------------------------------------------- */

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* TSC ticks per second against the monotonic clock over ~40 ms. Each TSC
 * read is bracketed by two clock reads; of three tries the one with the
 * tightest brackets (least chance of a preemption inside) wins. */
static double measure_tsc_hz(void)
{
	double best_hz = 0, best_width = 1e9;
	for (int i = 0; i < 3; i++) {
		double a0 = now_seconds();
		uint64_t c0 = tsc_begin();
		double b0 = now_seconds(), a1;
		do
			a1 = now_seconds();
		while (a1 - a0 < 0.04);
		uint64_t c1 = tsc_begin();
		double b1 = now_seconds();
		double width = (b0 - a0) + (b1 - a1);
		double hz = (double)(c1 - c0) / ((a1 + b1) / 2 - (a0 + b0) / 2);
		if (width < best_width) {
			best_width = width;
			best_hz = hz;
		}
	}
	return best_hz;
}

/* A chain of dependent register adds runs at one add per core cycle on
 * every x86 core of the last twenty years, so adds per tick give the clock
 * ratio. The operand is a register, not an immediate: Golden Cove folds
 * chains of immediate adds at rename. Many short tries, the fastest wins:
 * on a shared machine a long try is likely to be preempted. */
static double measure_core_per_tick(void)
{
#if BENCH_X86
	const uint64_t iters = 2000; /* x 64 adds = 128 k cycles, ~50 us */
	double best = 0;
	for (int i = 0; i < 50; i++) {
		uint64_t x = 0, n = iters, one = 1;
		uint64_t t0 = tsc_begin();
		__asm__ volatile(
			"1:\n\t"
			".rept 64\n\t"
			"add %2, %0\n\t"
			".endr\n\t"
			"dec %1\n\t"
			"jnz 1b"
			: "+r"(x), "+r"(n) : "r"(one) : "cc");
		uint64_t t1 = tsc_end();
		double r = (double)(iters * 64) / (double)(t1 - t0);
		if (r > best)
			best = r;
	}
	return best;
#else
	return 0;
#endif
}

/* The empty function, called through the same pointer as real work. */
__attribute__((noinline)) static void bench_empty(void *arg)
{
	__asm__ volatile("" : : "r"(arg) : "memory");
}

static int pin_to_current_cpu(void)
{
	int cpu = sched_getcpu();
	if (cpu < 0)
		return -1;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return -1;
	return cpu;
}

int bench_clock_init(bench_clock *clk)
{
	memset(clk, 0, sizeof(*clk));
	if (!has_tsc())
		return -1;
	use_rdtscp = has_rdtscp();
	clk->cpu = pin_to_current_cpu();
#if BENCH_X86
	clk->tsc_hz = measure_tsc_hz();
#else
	clk->tsc_hz = 1e9;
#endif
	if (!(clk->tsc_hz > 0))
		return -1;
	clk->core_per_tick = measure_core_per_tick();
	bench_stats st;
	clk->overhead = 0;
	bench_measure(clk, bench_empty, NULL, NULL, 0.02, 20000, 200000, &st);
	clk->overhead = st.min;
	return 0;
}

/* ---- measuring -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void bench_measure(const bench_clock *clk, bench_fn fn, bench_fn prep, void *arg,
		   double seconds, size_t min_reps, size_t max_reps, bench_stats *st)
{
	bench_measure_calls(clk, fn, prep, arg, seconds, min_reps, max_reps, 1, st);
}

void bench_measure_calls(const bench_clock *clk, bench_fn fn, bench_fn prep, void *arg,
			 double seconds, size_t min_reps, size_t max_reps, size_t calls,
			 bench_stats *st)
{
	if (min_reps < 1)
		min_reps = 1;
	if (max_reps < min_reps)
		max_reps = min_reps;
	if (calls < 1)
		calls = 1;
	uint64_t budget = (uint64_t)(seconds * clk->tsc_hz);
	uint64_t cap = budget * BENCH_CAP_FACTOR;
	uint64_t *s = malloc(max_reps * sizeof(*s));
	size_t n = 0;

	/* warm-up: caches, branch predictors, lazy binding, frequency */
	uint64_t w0 = tsc_begin();
	for (int i = 0; i < 100; i++) {
		if (prep)
			prep(arg);
		fn(arg);
		uint64_t spent = tsc_begin() - w0;
		if ((i >= 2 && spent > budget / 10) || spent > budget)
			break;
	}

	uint64_t start = tsc_begin();
	while (n < max_reps) {
		if (prep)
			prep(arg);
		uint64_t t0 = tsc_begin();
		for (size_t c = 0; c < calls; c++)
			fn(arg);
		uint64_t t1 = tsc_end();
		uint64_t d = t1 - t0;
		if (s)
			s[n] = d;
		n++;
		if (!s || (n >= min_reps && t1 - start >= budget) || t1 - start >= cap)
			break;
	}

	double min = 0, med = 0;
	if (s) {
		qsort(s, n, sizeof(*s), cmp_u64);
		min = (double)s[0];
		med = n % 2 ? (double)s[n / 2] : ((double)s[n / 2 - 1] + (double)s[n / 2]) / 2;
		free(s);
	}
	/* the counter reads are paid once per repetition, the calls each time */
	min = (min - clk->overhead) / (double)calls;
	med = (med - clk->overhead) / (double)calls;
	st->min = min > 0 ? min : 0;
	st->median = med > 0 ? med : 0;
	st->samples = n;
	st->calls = calls;
	st->min_reps = min_reps;
	st->capped = n < min_reps;
}
