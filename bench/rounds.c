/*
 * rounds.c - the rows of a run gathered over its rounds (see rounds.h).
 */
#include "rounds.h"

#include <stdlib.h>
#include <string.h>

static int same_row(const gathered_row *g, const row *r)
{
	return g->r.size == r->size && g->r.streams == r->streams && !strcmp(g->r.cipher, r->cipher) &&
	       !strcmp(g->r.op, r->op) && !strcmp(g->r.library, r->library) && !strcmp(g->impl, r->impl);
}

/* The row r merges into, or NULL: first where the last round's order puts it. */
static gathered_row *find(bench_rounds *g, const row *r)
{
	if (g->next < g->n && same_row(&g->rows[g->next], r))
		return &g->rows[g->next++];
	for (size_t i = 0; i < g->n; i++)
		if (same_row(&g->rows[i], r)) {
			g->next = i + 1;
			return &g->rows[i];
		}
	return NULL;
}

static int failed(const row *r)
{
	return !strcmp(r->status, "error") || !strcmp(r->status, "mismatch");
}

static void keep(double *list, unsigned *n, double v)
{
	if (*n < BENCH_MAX_ROUNDS)
		list[(*n)++] = v;
}

/* The lower of two minima, either of which may be unmeasured (0). */
static double lower(double a, double b)
{
	return a <= 0 ? b : b <= 0 ? a : a < b ? a : b;
}

/* One round's figures into the merged ones: minimum of the minima, the
 * repetitions added up, capped if all rounds together took fewer than
 * one measurement asks for (a large call of a slow peer is timed a few
 * times in each round, and is not pathological). */
static void merge_stats(bench_stats *into, const bench_stats *st)
{
	into->min = lower(into->min, st->min);
	into->samples += st->samples;
	into->capped = into->samples < into->min_reps;
}

/* A row as it came: the first round of it, or a failure, which stands
 * for the row whatever the other rounds say. */
static void take(gathered_row *g, const row *r)
{
	g->r = *r;
	memset(g->impl, 0, sizeof(g->impl));
	strncpy(g->impl, r->impl, sizeof(g->impl) - 1);
	g->r.impl = g->impl;
	g->n_med = g->n_ks_med = 0;
	if (r->timed)
		keep(g->med, &g->n_med, r->st.median);
	if (r->has_ks)
		keep(g->ks_med, &g->n_ks_med, r->ks.median);
}

static void merge(gathered_row *g, const row *r)
{
	if (failed(&g->r))
		return;
	if (failed(r)) {
		take(g, r);
		return;
	}
	if (r->timed) {
		if (g->r.timed) {
			merge_stats(&g->r.st, &r->st);
		} else { /* an earlier round did not time it (a peer's predicted cap) */
			g->r.st = r->st;
			g->r.timed = 1;
			g->r.status = r->status;
			g->r.error = r->error;
		}
		keep(g->med, &g->n_med, r->st.median);
	}
	if (r->has_ks) {
		if (g->r.has_ks)
			merge_stats(&g->r.ks, &r->ks);
		else
			g->r.ks = r->ks;
		g->r.has_ks = 1;
		keep(g->ks_med, &g->n_ks_med, r->ks.median);
	}
}

int rounds_add(bench_rounds *g, const row *r)
{
	gathered_row *x = find(g, r);
	if (x) {
		merge(x, r);
		return 0;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		gathered_row *p = realloc(g->rows, cap * sizeof(*p));
		if (!p)
			return -1;
		g->rows = p;
		g->cap = cap;
	}
	take(&g->rows[g->n++], r);
	return 0;
}

/* The best round's median: the lowest of n > 0 (ticks, or a key setup's). */
static double lowest(const double *v, unsigned n)
{
	double m = v[0];
	for (unsigned i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

size_t rounds_finish(bench_rounds *g)
{
	for (size_t i = 0; i < g->n; i++) {
		gathered_row *x = &g->rows[i];
		x->r.impl = x->impl; /* the array may have moved since take() */
		x->r.round_medians = x->n_med ? x->med : NULL;
		x->r.n_rounds = x->n_med;
		if (x->n_med)
			x->r.st.median = lowest(x->med, x->n_med);
		if (x->n_ks_med)
			x->r.ks.median = lowest(x->ks_med, x->n_ks_med);
	}
	return g->n;
}

const row *rounds_row(const bench_rounds *g, size_t i)
{
	return &g->rows[i].r;
}

void rounds_clear(bench_rounds *g)
{
	g->n = g->next = 0;
}

void rounds_free(bench_rounds *g)
{
	free(g->rows);
	memset(g, 0, sizeof(*g));
}
