/*
 * serpent_sbox_search.c - randomized greedy search for small bitsliced
 * circuits of the Serpent S-boxes and their inverses (a tool for
 * gen/serpent_tables.py, which checks and emits its results; not part of
 * the library build).
 *
 * Every signal is a 16-bit truth table over the 16 input nibbles (bit v =
 * value at nibble v; x_i is bit i of the nibble).  Polarity is ignored (a
 * signal and its complement count as one) because complements are free: a
 * ternlog LUT absorbs them, a two-input gate picks and/or/andnot to suit,
 * and a complemented S-box output is folded into the next round key.
 *
 * Gates are three-input LUTs.  Method: start from the 4 inputs; repeatedly
 * (1) add every output that is one gate away (some 3 signals determine
 * it), (2) otherwise add a helper gate g chosen among those that make some
 * output one gate away -- "two-away" witnesses t = F(q1, q2, g), g = G(P),
 * found by fixing g up to one sign per (q1, q2)-class and checking that it
 * is constant on the classes of the triple P -- scored by how many outputs
 * become one gate away, ties broken at random; (3) if no output is two
 * gates away, add a random gate.  Many restarts; the best circuit is kept.
 *
 * Modes:
 *   t3  minimise the number of three-input gates (one vpternlogd each);
 *   l2  minimise the number of two-input gates after expanding each LUT3
 *       into its cheapest and/or/xor/andnot subcircuit (exhaustive, at most
 *       4 gates), then print that expansion ("# L2" section);
 *   d2  circuits of depth two (every output one gate over the inputs and
 *       first-level gates): list each output's ways F(x_i, x_j, g) and
 *       F(x_i, g1, g2), pick ways sharing first-level gates by randomized
 *       greedy cover; then print the two-input expansion with each LUT3
 *       expanded for the least depth ("# L2" section).
 *
 * Usage: serpent_sbox_search t3|l2|d2 SBOX RESTARTS SEED
 *   SBOX 0-7: S0-S7, 8-15: SI0-SI7.  Output: one line per gate,
 *   "index: inputs -> truth table [yJ]" (yJ: the gate is output J).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t SB[8][16] = {
	{3, 8, 15, 1, 10, 6, 5, 11, 14, 13, 4, 2, 7, 0, 9, 12},
	{15, 12, 2, 7, 9, 0, 5, 10, 1, 11, 14, 8, 6, 13, 3, 4},
	{8, 6, 7, 9, 3, 12, 10, 15, 13, 1, 14, 4, 0, 11, 5, 2},
	{0, 15, 11, 8, 12, 9, 6, 3, 13, 1, 2, 4, 10, 7, 5, 14},
	{1, 15, 8, 3, 12, 0, 11, 6, 2, 5, 4, 10, 9, 14, 7, 13},
	{15, 5, 2, 11, 4, 10, 9, 12, 0, 3, 14, 8, 13, 6, 7, 1},
	{7, 2, 12, 5, 8, 4, 6, 11, 14, 9, 1, 15, 13, 3, 10, 0},
	{1, 13, 15, 0, 14, 8, 2, 11, 7, 4, 12, 10, 9, 3, 5, 6},
};

typedef uint16_t fn;
#define MAXS 48

static int K;
static int W; /* 1: minimise the 2-input gate count of the LUT3 gates */
static fn tgt[4];
static uint8_t cost2[256]; /* 2-input gates for each 3-input LUT (polarity free) */

static uint8_t canon8(uint8_t f) { return (f & 1) ? (uint8_t)~f : f; }

static void cost2_dfs(uint8_t *s, int n, int depth, int maxd)
{
	for (int i = 0; i < n; i++) {
		uint8_t f = canon8(s[i]);
		if (cost2[f] > depth) cost2[f] = (uint8_t)depth;
	}
	if (depth == maxd) return;
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			uint8_t x = s[a], y = s[b];
			uint8_t g[5] = {x & y, x & (uint8_t)~y, (uint8_t)~x & y, (uint8_t)~(x | y), x ^ y};
			for (int k = 0; k < 5; k++) {
				s[n] = g[k];
				cost2_dfs(s, n + 1, depth + 1, maxd);
			}
		}
}

static void init_cost2(void)
{
	memset(cost2, 99, sizeof cost2);
	uint8_t s[16] = {0xaa, 0xcc, 0xf0};
	cost2_dfs(s, 3, 0, 4);
	cost2[0] = 0;
	for (int f = 0; f < 256; f++) cost2[f] = cost2[canon8((uint8_t)f)];
}

typedef struct {
	int n;
	fn sig[MAXS];
	int in[MAXS][3];
	int done[4];
	int cost;
} circ;

static uint64_t rs;
static uint32_t rnd(void)
{
	rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
	return (uint32_t)(rs >> 16);
}

static fn canon(fn f) { return (f & 1) ? (fn)~f : f; }

/* class masks of the partition by signals p[0..k-1] */
static int classes(const fn *p, int k, fn *m)
{
	int nc = 1 << k;
	for (int c = 0; c < nc; c++) {
		fn x = 0xffff;
		for (int i = 0; i < k; i++)
			x &= (c >> i & 1) ? p[i] : (fn)~p[i];
		m[c] = x;
	}
	return nc;
}

static int is_function_of(fn t, const fn *p, int k)
{
	fn m[8];
	int nc = classes(p, k, m);
	for (int c = 0; c < nc; c++) {
		fn x = t & m[c];
		if (x && x != m[c]) return 0;
	}
	return 1;
}

/* LUT (index = bit0 of p0 | bit1 of p1 | bit2 of p2) of t over p */
static uint8_t lut_of(fn t, const fn *p, int k)
{
	fn m[8];
	int nc = classes(p, k, m);
	uint8_t l = 0;
	for (int c = 0; c < nc; c++)
		if (t & m[c]) l |= (uint8_t)(1u << c);
	if (k == 2) l = (uint8_t)(l | l << 4); /* third input unused */
	return l;
}

/* classes of p that occur (bit c set when some point falls in class c) */
static uint8_t occurring(const fn *p, int k)
{
	fn m[8];
	int nc = classes(p, k, m);
	uint8_t o = 0;
	for (int c = 0; c < nc; c++)
		if (m[c]) o |= (uint8_t)(1u << c);
	if (k == 2) o &= 0x0f;
	return o;
}

/* cheapest 2-input cost over the don't-care fillings of empty classes */
static int gate_cost(fn t, const fn *p, int k)
{
	if (!W) return 1;
	uint8_t l = lut_of(t, p, k), o = occurring(p, k), best = 99;
	for (int f = 0; f < 256; f++) {
		if ((f & o) != (l & o)) continue;
		if (cost2[f] < best) best = cost2[f];
	}
	return best;
}

/* expansion of one LUT3 gate into 2-input gates (depth-first, bounded) */
static int ex_n;
static uint8_t ex_l[8];
static int ex_a[8], ex_b[8], ex_op[8];
static int expand_dfs(uint8_t want, uint8_t o, int depth, int maxd)
{
	for (int i = 0; i < ex_n; i++) {
		uint8_t x = ex_l[i];
		if ((x & o) == (want & o) || ((uint8_t)~x & o) == (want & o)) {
			if (i == ex_n - 1) return 1;
		}
	}
	if (depth == maxd) return 0;
	for (int a = 0; a < ex_n; a++)
		for (int b = a + 1; b < ex_n; b++) {
			uint8_t x = ex_l[a], y = ex_l[b];
			uint8_t g[5] = {x & y, x & (uint8_t)~y, (uint8_t)~x & y, (uint8_t)~(x | y), x ^ y};
			for (int k = 0; k < 5; k++) {
				ex_l[ex_n] = g[k];
				ex_a[ex_n] = a; ex_b[ex_n] = b; ex_op[ex_n] = k;
				ex_n++;
				if (expand_dfs(want, o, depth + 1, maxd)) return 1;
				ex_n--;
			}
		}
	return 0;
}

static fn apply_op(int k, fn x, fn y)
{
	switch (k) {
	case 0: return x & y;
	case 1: return x & (fn)~y;
	case 2: return (fn)~x & y;
	case 3: return (fn)~(x | y);
	default: return x ^ y;
	}
}

/* Expansion of a LUT3 gate for the lowest depth (then fewest gates), its
 * inputs arriving at depths ind[0..2]: depth-first over at most 4 gates. */
static int md_best_d, md_best_n, md_n, md_dep[8], md_a[8], md_b[8], md_op[8];
static int md_ba[8], md_bb[8], md_bop[8];
static uint8_t md_l[8];
static void mindepth_dfs(uint8_t want, uint8_t o, int maxg)
{
	int last = md_n - 1;
	uint8_t x = md_l[last];
	if (md_n > 3 && ((x & o) == (want & o) || ((uint8_t)~x & o) == (want & o))) {
		int d = md_dep[last];
		if (d < md_best_d || (d == md_best_d && md_n < md_best_n)) {
			md_best_d = d; md_best_n = md_n;
			memcpy(md_ba, md_a, sizeof md_a); memcpy(md_bb, md_b, sizeof md_b);
			memcpy(md_bop, md_op, sizeof md_op);
		}
		return;
	}
	if (md_n - 3 == maxg) return;
	for (int a = 0; a < md_n; a++)
		for (int b = a + 1; b < md_n; b++) {
			int d = 1 + (md_dep[a] > md_dep[b] ? md_dep[a] : md_dep[b]);
			if (d > md_best_d) continue;
			uint8_t u = md_l[a], v = md_l[b];
			uint8_t g[5] = {u & v, u & (uint8_t)~v, (uint8_t)~u & v, (uint8_t)~(u | v), u ^ v};
			for (int k = 0; k < 5; k++) {
				md_l[md_n] = g[k]; md_dep[md_n] = d;
				md_a[md_n] = a; md_b[md_n] = b; md_op[md_n] = k;
				md_n++;
				mindepth_dfs(want, o, maxg);
				md_n--;
			}
		}
}

/* Prints the expansion of gate (in[0..2] -> t) into 2-input gates over the
 * signal list l2/d2 (n2 entries); returns the index of the result. */
static int emit_mindepth(fn t, const int *in, fn *l2, int *dep, int *n2)
{
	fn p[3] = {l2[in[0]], l2[in[1]], l2[in[2]]};
	uint8_t l = lut_of(t, p, 3), o = occurring(p, 3);
	md_n = 3;
	md_l[0] = 0xaa; md_l[1] = 0xcc; md_l[2] = 0xf0;
	for (int k = 0; k < 3; k++) md_dep[k] = dep[in[k]];
	md_best_d = 99; md_best_n = 99;
	/* a gate that is one of its inputs (up to polarity) costs nothing */
	for (int k = 0; k < 3; k++)
		if (canon(p[k]) == canon(t)) return in[k];
	mindepth_dfs(l, o, 4);
	if (md_best_d == 99) { printf("EXPANSION FAILED\n"); exit(1); }
	int map[8] = {in[0], in[1], in[2]};
	fn rv[8] = {p[0], p[1], p[2]};
	for (int j = 3; j < md_best_n; j++) {
		rv[j] = apply_op(md_bop[j], rv[md_ba[j]], rv[md_bb[j]]);
		fn v = canon(rv[j]);
		int found = -1;
		for (int q = 0; q < *n2; q++)
			if (l2[q] == v) found = q;
		if (found >= 0) { map[j] = found; continue; }
		l2[*n2] = v;
		dep[*n2] = 1 + (dep[map[md_ba[j]]] > dep[map[md_bb[j]]] ? dep[map[md_ba[j]]] : dep[map[md_bb[j]]]);
		printf("%d: %d %d -> %04x\n", *n2, map[md_ba[j]], map[md_bb[j]], v);
		map[j] = (*n2)++;
	}
	return map[md_best_n - 1];
}

/* one gate away: some K-subset of S determines t; returns subset in idx */
static int one_away(const circ *C, fn t, int *idx)
{
	int n = C->n, bc = 100;
	fn p[3];
	if (K == 3) {
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++)
				for (int c = b + 1; c < n; c++) {
					p[0] = C->sig[a]; p[1] = C->sig[b]; p[2] = C->sig[c];
					if (is_function_of(t, p, 3)) {
						int cst = gate_cost(t, p, 3);
						if (cst < bc) {
							bc = cst;
							if (idx) { idx[0] = a; idx[1] = b; idx[2] = c; }
							if (!W || !idx) return 1;
						}
					}
				}
		return bc < 100;
	} else {
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++) {
				p[0] = C->sig[a]; p[1] = C->sig[b];
				if (is_function_of(t, p, 2)) {
					if (idx) { idx[0] = a; idx[1] = b; }
					return 1;
				}
			}
	}
	return 0;
}

/* one gate away using the new signal g (index n-1) */
static int one_away_with(const circ *C, fn t, fn g)
{
	int n = C->n;
	fn p[3];
	p[0] = g;
	if (K == 3) {
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++) {
				p[1] = C->sig[a]; p[2] = C->sig[b];
				if (is_function_of(t, p, 3)) return 1;
			}
	} else {
		for (int a = 0; a < n; a++) {
			p[1] = C->sig[a];
			if (is_function_of(t, p, 2)) return 1;
		}
	}
	return 0;
}

static void add_gate(circ *C, fn f, const int *idx)
{
	int n = C->n;
	fn p[3];
	for (int i = 0; i < K; i++) p[i] = C->sig[idx[i]];
	C->cost += gate_cost(f, p, K);
	C->sig[n] = canon(f);
	for (int i = 0; i < K; i++) C->in[n][i] = idx[i];
	C->n = n + 1;
}

static int has(const circ *C, fn f)
{
	f = canon(f);
	for (int i = 0; i < C->n; i++)
		if (C->sig[i] == f) return 1;
	return 0;
}

/* candidate helpers */
#define MAXC 20000
static fn cand[MAXC];
static int cidx[MAXC][3];
static int ccost[MAXC];
static int ncand;
static uint8_t seen[65536];

static void push_cand(fn g, const int *P, int pcost)
{
	g = canon(g);
	if (seen[g] || g == 0 || ncand >= MAXC) return;
	seen[g] = 1;
	cand[ncand] = g;
	for (int i = 0; i < K; i++) cidx[ncand][i] = P[i];
	ccost[ncand] = pcost;
	ncand++;
}

/* All g = G(P) such that t = F(Q, g).  Q-classes where t is nonconstant
 * fix g up to a sign per class; P-classes force g constant on each. */
static void witnesses(const circ *C, fn t, const int *Q, const int *P)
{
	fn qp[2], pp[3], qm[4], pm[8];
	for (int i = 0; i < K - 1; i++) qp[i] = C->sig[Q[i]];
	for (int i = 0; i < K; i++) pp[i] = C->sig[P[i]];
	int nq = classes(qp, K - 1, qm);
	int np = classes(pp, K, pm);
	fn ncm[4];
	int nn = 0;
	for (int c = 0; c < nq; c++) {
		fn x = t & qm[c];
		if (x && x != qm[c]) ncm[nn++] = qm[c];
	}
	if (nn == 0) return; /* t already one away */
	fn D = 0;
	for (int i = 0; i < nn; i++) D |= ncm[i];
	/* sigma over nonconstant classes; first class sign fixed (polarity) */
	for (int s = 0; s < (1 << (nn - 1)); s++) {
		fn g = t & D;
		for (int i = 1; i < nn; i++)
			if (s >> (i - 1) & 1) g ^= ncm[i];
		/* consistency with P-classes */
		int ok = 1;
		fn freec[8];
		int nf = 0;
		fn gv = 0;
		for (int c = 0; c < np && ok; c++) {
			fn md = pm[c] & D;
			if (!pm[c]) continue;
			if (!md) { freec[nf++] = pm[c]; continue; }
			fn x = g & md;
			if (x == 0) continue;
			if (x != md) { ok = 0; break; }
			gv |= pm[c];
		}
		if (!ok) continue;
		if (nf > 5) nf = 5; /* cap the enumeration; the rest stay 0 */
		for (int f = 0; f < (1 << nf); f++) {
			fn h = gv;
			for (int i = 0; i < nf; i++)
				if (f >> i & 1) h |= freec[i];
			push_cand(h, P, gate_cost(h, pp, K));
		}
	}
}

static void gen_candidates(const circ *C)
{
	int n = C->n;
	ncand = 0;
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < n; i++) seen[C->sig[i]] = 1;
	for (int ti = 0; ti < 4; ti++) {
		if (C->done[ti]) continue;
		fn t = tgt[ti];
		int Q[2], P[3];
		if (K == 3) {
			for (Q[0] = 0; Q[0] < n; Q[0]++)
				for (Q[1] = Q[0] + 1; Q[1] < n; Q[1]++)
					for (P[0] = 0; P[0] < n; P[0]++)
						for (P[1] = P[0] + 1; P[1] < n; P[1]++)
							for (P[2] = P[1] + 1; P[2] < n; P[2]++)
								witnesses(C, t, Q, P);
		} else {
			for (Q[0] = 0; Q[0] < n; Q[0]++)
				for (P[0] = 0; P[0] < n; P[0]++)
					for (P[1] = P[0] + 1; P[1] < n; P[1]++)
						witnesses(C, t, Q, P);
		}
	}
}

/* number of not-done targets that become one away with g added */
static int score(circ *C, fn g)
{
	int s = 0;
	for (int ti = 0; ti < 4; ti++)
		if (!C->done[ti] && one_away_with(C, tgt[ti], g)) s++;
	return s;
}

static void add_ready_targets(circ *C)
{
	int again = 1;
	while (again) {
		again = 0;
		/* random order so that different outputs become helpers */
		int order[4] = {0, 1, 2, 3};
		for (int i = 3; i > 0; i--) {
			int j = rnd() % (i + 1), x = order[i];
			order[i] = order[j]; order[j] = x;
		}
		for (int oi = 0; oi < 4; oi++) {
			int ti = order[oi];
			if (C->done[ti]) continue;
			int idx[3];
			if (has(C, tgt[ti])) { C->done[ti] = 1; again = 1; continue; }
			if (one_away(C, tgt[ti], idx)) {
				add_gate(C, tgt[ti], idx);
				C->done[ti] = 1;
				again = 1;
			}
		}
	}
}

static int all_done(const circ *C)
{
	return C->done[0] && C->done[1] && C->done[2] && C->done[3];
}

static void random_gate(circ *C)
{
	for (;;) {
		int idx[3];
		int n = C->n;
		idx[0] = rnd() % n;
		do idx[1] = rnd() % n; while (idx[1] == idx[0]);
		if (K == 3) do idx[2] = rnd() % n; while (idx[2] == idx[0] || idx[2] == idx[1]);
		fn p[3];
		for (int i = 0; i < K; i++) p[i] = C->sig[idx[i]];
		fn m[8];
		int nc = classes(p, K, m);
		fn g = 0;
		uint32_t lut = rnd();
		for (int c = 0; c < nc; c++)
			if (lut >> c & 1) g |= m[c];
		g = canon(g);
		if (g == 0 || has(C, g)) continue;
		add_gate(C, g, idx);
		return;
	}
}

static int wbias = 4;
static int run(circ *C, int limit)
{
	memset(C, 0, sizeof *C);
	for (int i = 0; i < 4; i++) {
		fn x = 0;
		for (int v = 0; v < 16; v++)
			if (v >> i & 1) x |= (fn)(1u << v);
		C->sig[i] = canon(x);
		C->in[i][0] = -1;
	}
	C->n = 4;
	for (;;) {
		add_ready_targets(C);
		if (all_done(C)) return W ? C->cost : C->n - 4;
		if ((W ? C->cost : C->n - 4) >= limit || C->n >= MAXS - 1) return 1000;
		gen_candidates(C);
		if (ncand == 0) { random_gate(C); continue; }
		int best = -1000, nb = 0;
		static int bi[MAXC];
		for (int i = 0; i < ncand; i++) {
			int s = score(C, cand[i]) * 16 - (W ? ccost[i] * wbias : 0);
			if (s > best) { best = s; nb = 0; }
			if (s == best) bi[nb++] = i;
		}
		int pick = bi[rnd() % nb];
		add_gate(C, cand[pick], cidx[pick]);
	}
}

/* ---- d2: circuits of depth two (for latency) ------------------------------
 * Every output is one gate over the inputs and first-level gates, each
 * first-level gate a LUT3 of inputs.  For each output list the ways
 * F(x_i, x_j, g) and F(x_i, g1, g2); then a randomized greedy cover picks
 * ways that share first-level gates. */
#define MAXL1 4096
#define MAXOPT 200000
static fn l1[MAXL1];
static int l1in[MAXL1][3], nl1;
typedef struct { int x[2], nx, g[2], ng; } way;
static way ways[4][MAXOPT];
static int nways[4];

static void build_l1(const fn *x)
{
	static uint8_t seen1[65536];
	memset(seen1, 0, sizeof seen1);
	for (int i = 0; i < 4; i++) seen1[x[i]] = 1;
	seen1[0] = 1;
	for (int a = 0; a < 4; a++)
		for (int b = a + 1; b < 4; b++)
			for (int c = b + 1; c < 4; c++) {
				fn p[3] = {x[a], x[b], x[c]}, m[8];
				classes(p, 3, m);
				for (int lut = 0; lut < 256; lut++) {
					fn g = 0;
					for (int k = 0; k < 8; k++)
						if (lut >> k & 1) g |= m[k];
					g = canon(g);
					if (seen1[g] || nl1 >= MAXL1) continue;
					seen1[g] = 1;
					l1[nl1] = g;
					l1in[nl1][0] = a; l1in[nl1][1] = b; l1in[nl1][2] = c;
					nl1++;
				}
			}
}

static void add_way(int t, int x0, int x1, int nx, int g0, int g1, int ng)
{
	if (nways[t] >= MAXOPT) return;
	way *w = &ways[t][nways[t]++];
	w->x[0] = x0; w->x[1] = x1; w->nx = nx;
	w->g[0] = g0; w->g[1] = g1; w->ng = ng;
}

static int depth2(long restarts)
{
	fn x[4];
	for (int i = 0; i < 4; i++) {
		fn v = 0;
		for (int p = 0; p < 16; p++)
			if (p >> i & 1) v |= (fn)(1u << p);
		x[i] = v;
	}
	build_l1(x);
	for (int t = 0; t < 4; t++) {
		fn p[3];
		for (int i = 0; i < 4; i++)
			for (int j = i + 1; j < 4; j++)
				for (int g = 0; g < nl1; g++) {
					p[0] = x[i]; p[1] = x[j]; p[2] = l1[g];
					if (is_function_of(tgt[t], p, 3)) add_way(t, i, j, 2, g, -1, 1);
				}
		for (int i = 0; i < 4; i++)
			for (int g = 0; g < nl1; g++)
				for (int h = g + 1; h < nl1; h++) {
					p[0] = x[i]; p[1] = l1[g]; p[2] = l1[h];
					if (is_function_of(tgt[t], p, 3)) add_way(t, i, -1, 1, g, h, 2);
				}
		fprintf(stderr, "y%d: %d ways\n", t, nways[t]);
		if (!nways[t]) return 1;
	}
	int best = 1000, bestw[4] = {0};
	for (long r = 0; r < restarts; r++) {
		int order[4] = {0, 1, 2, 3}, used[8], nu = 0, pick[4];
		for (int i = 3; i > 0; i--) {
			int j = rnd() % (i + 1), tmp = order[i];
			order[i] = order[j]; order[j] = tmp;
		}
		for (int oi = 0; oi < 4; oi++) {
			int t = order[oi], bc = 99, nb = 0, chosen = 0;
			for (int w = 0; w < nways[t]; w++) {
				int c = 0;
				for (int k = 0; k < ways[t][w].ng; k++) {
					int in = 0;
					for (int u = 0; u < nu; u++) in |= used[u] == ways[t][w].g[k];
					c += !in;
				}
				if (c < bc) { bc = c; nb = 0; }
				if (c == bc && rnd() % (++nb) == 0) chosen = w;
			}
			pick[t] = chosen;
			for (int k = 0; k < ways[t][chosen].ng; k++) {
				int in = 0;
				for (int u = 0; u < nu; u++) in |= used[u] == ways[t][chosen].g[k];
				if (!in) used[nu++] = ways[t][chosen].g[k];
			}
		}
		if (nu < best) {
			best = nu;
			memcpy(bestw, pick, sizeof bestw);
			fprintf(stderr, "restart %ld: %d gates\n", r, nu + 4);
		}
	}
	/* print: first-level gates, then the outputs */
	int idx[MAXL1], n = 4;
	for (int g = 0; g < nl1; g++) idx[g] = -1;
	printf("# K=3 D2 sbox gates=%d\n", best + 4);
	for (int t = 0; t < 4; t++) {
		way *w = &ways[t][bestw[t]];
		for (int k = 0; k < w->ng; k++) {
			int g = w->g[k];
			if (idx[g] >= 0) continue;
			idx[g] = n++;
			printf("%d: %d %d %d -> %04x\n", idx[g], l1in[g][0], l1in[g][1], l1in[g][2], l1[g]);
		}
	}
	int gin[16][3], ng = 0;
	fn gt[16];
	for (int t = 0; t < 4; t++) {
		way *w = &ways[t][bestw[t]];
		for (int k = 0; k < w->ng; k++) {
			int g = w->g[k];
			if (idx[g] != 4 + ng) continue;
			memcpy(gin[ng], l1in[g], sizeof gin[ng]);
			gt[ng++] = l1[g];
		}
	}
	for (int t = 0; t < 4; t++) {
		way *w = &ways[t][bestw[t]];
		int k = 0;
		printf("%d:", n++);
		for (int i = 0; i < w->nx; i++) { printf(" %d", w->x[i]); gin[ng][k++] = w->x[i]; }
		for (int i = 0; i < w->ng; i++) { printf(" %d", idx[w->g[i]]); gin[ng][k++] = idx[w->g[i]]; }
		printf(" -> %04x y%d\n", tgt[t], t);
		gt[ng++] = tgt[t];
	}
	/* the same circuit in two-input gates, each LUT3 expanded for depth */
	fn l2[256];
	int dep[256], n2 = 4, map[16 + 4];
	for (int i = 0; i < 4; i++) { l2[i] = x[i]; dep[i] = 0; map[i] = i; }
	printf("# L2\n");
	for (int g = 0; g < ng; g++) {
		int in[3] = {map[gin[g][0]], map[gin[g][1]], map[gin[g][2]]};
		map[4 + g] = emit_mindepth(gt[g], in, l2, dep, &n2);
	}
	int maxd = 0;
	for (int t = 0; t < 4; t++)
		if (dep[map[4 + ng - 4 + t]] > maxd) maxd = dep[map[4 + ng - 4 + t]];
	printf("# L2 gates=%d depth=%d\n", n2 - 4, maxd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: serpent_sbox_search t3|l2|d2 SBOX RESTARTS SEED\n"
			"  SBOX 0-7: S0-S7, 8-15: their inverses\n");
		return 2;
	}
	K = 3;
	W = !strcmp(argv[1], "l2");
	int d2 = !strcmp(argv[1], "d2");
	if (!W && !d2 && strcmp(argv[1], "t3")) { fprintf(stderr, "mode must be t3, l2 or d2\n"); return 2; }
	init_cost2();
	int s = atoi(argv[2]);
	long restarts = atol(argv[3]);
	rs = 0x9e3779b97f4a7c15ull ^ (uint64_t)atoll(argv[4]) * 0x2545f4914f6cdd1dull;
	uint8_t box[16];
	for (int v = 0; v < 16; v++) {
		if (s < 8) box[v] = SB[s][v];
		else box[SB[s - 8][v]] = (uint8_t)v;
	}
	for (int j = 0; j < 4; j++) {
		fn t = 0;
		for (int v = 0; v < 16; v++)
			if (box[v] >> j & 1) t |= (fn)(1u << v);
		tgt[j] = canon(t);
	}
	if (d2)
		return depth2(restarts);
	circ best = {0}, C;
	int bestn = 1000;
	for (long r = 0; r < restarts; r++) {
		int g = run(&C, bestn - 1);
		if (g < bestn) {
			bestn = g;
			best = C;
			fprintf(stderr, "restart %ld: %d gates\n", r, g);
		}
	}
	printf("# K=%d W=%d sbox=%d cost=%d gates=%d\n", K, W, s, bestn, best.n - 4);
	for (int i = 4; i < best.n; i++) {
		printf("%d:", i);
		for (int k = 0; k < K; k++) printf(" %d", best.in[i][k]);
		printf(" -> %04x", best.sig[i]);
		if (W) {
			fn p[3];
			for (int k = 0; k < K; k++) p[k] = best.sig[best.in[i][k]];
			printf(" c%d", gate_cost(best.sig[i], p, K));
		}
		for (int j = 0; j < 4; j++)
			if (best.sig[i] == tgt[j]) printf(" y%d", j);
		printf("\n");
	}
	if (W) {
		/* expand into 2-input gates; sig index map: LUT3 signal i -> L2 index */
		int map[MAXS];
		fn l2[256];
		int n2 = 4;
		for (int i = 0; i < 4; i++) { map[i] = i; l2[i] = best.sig[i]; }
		printf("# L2\n");
		for (int i = 4; i < best.n; i++) {
			fn p[3];
			for (int k = 0; k < 3; k++) p[k] = best.sig[best.in[i][k]];
			uint8_t l = lut_of(best.sig[i], p, 3), o = occurring(p, 3);
			int c = gate_cost(best.sig[i], p, 3);
			ex_n = 3; ex_l[0] = 0xaa; ex_l[1] = 0xcc; ex_l[2] = 0xf0;
			if (!expand_dfs(l, o, 0, c)) { printf("EXPANSION FAILED\n"); return 1; }
			int lm[8] = {map[best.in[i][0]], map[best.in[i][1]], map[best.in[i][2]]};
			fn rv[8] = {p[0], p[1], p[2]}; /* values as the expansion search saw them */
			for (int j = 3; j < ex_n; j++) {
				rv[j] = apply_op(ex_op[j], rv[ex_a[j]], rv[ex_b[j]]);
				fn v = canon(rv[j]);
				int found = -1;
				for (int q = 0; q < n2; q++)
					if (l2[q] == v) found = q;
				if (found >= 0) { lm[j] = found; continue; }
				l2[n2] = v;
				printf("%d: %d %d -> %04x", n2, lm[ex_a[j]], lm[ex_b[j]], v);
				for (int t = 0; t < 4; t++)
					if (v == tgt[t]) printf(" y%d", t);
				printf("\n");
				lm[j] = n2++;
			}
			map[i] = lm[ex_n - 1];
		}
		printf("# L2 gates=%d\n", n2 - 4);
	}
	return 0;
}
