/*
 * rounds.h - a benchmark row, and the rows of a run gathered over rounds.
 *
 * A shared host slows whole stretches of time, from tens of milliseconds
 * to seconds (a busy sibling thread), and a row measured inside one comes
 * out 40-50% slow while rows measured outside it do not: a lost row that
 * is the host's. A case's rows one after the other do not escape it (a
 * case takes about a second), so `fastblock speed` measures its whole
 * list in several rounds, each with a share of the time budget, minutes
 * apart in `make bench`. A row's minimum is over all its rounds'
 * repetitions; its median is the median of its best round (the lowest of
 * the rounds' medians): a slow stretch must cover every round of the row
 * to move it, and the median within a round is not moved by the few
 * repetitions that catch a moment of a higher core clock, which a minimum
 * takes. fastblock's rows and the peers' are treated alike.
 */
#ifndef FB_BENCH_ROUNDS_H
#define FB_BENCH_ROUNDS_H

#include "bench_timing.h"

#include <stddef.h>

/* One output row (bench.c prints it as text or JSON). */
typedef struct row {
	const char *library, *version, *impl, *cipher, *op, *status, *error;
	size_t size, block;
	unsigned streams;
	int timed;
	bench_stats st;
	int has_ks;
	bench_stats ks;
	const char *parallel_impl, *serial_impl;
	int constant_time; /* -1: not applicable */
	const double *round_medians; /* each round's median (ticks a call), or NULL */
	unsigned n_rounds;
} row;

#define BENCH_MAX_ROUNDS 9

/* A row merged over the rounds so far. */
typedef struct gathered_row {
	row r;
	char impl[64];  /* a peer's label lives in its handle: copied */
	double med[BENCH_MAX_ROUNDS], ks_med[BENCH_MAX_ROUNDS];
	unsigned n_med, n_ks_med;
} gathered_row;

typedef struct bench_rounds {
	gathered_row *rows;
	size_t n, cap;
	size_t next; /* where the next row most likely merges: rounds repeat the order */
} bench_rounds;

/* Adds one round's row: a new row, or merged into the row of the same
 * cipher, direction, library, implementation, size and stream count. 0,
 * or -1 when out of memory (the caller then prints the row as it is). */
int rounds_add(bench_rounds *g, const row *r);

/* The merged rows, in the order they first came, each with the median
 * of its best round; rounds_clear starts afresh. */
size_t rounds_finish(bench_rounds *g);
const row *rounds_row(const bench_rounds *g, size_t i);
void rounds_clear(bench_rounds *g);
void rounds_free(bench_rounds *g);

#endif
