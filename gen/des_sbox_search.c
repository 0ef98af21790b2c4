/*
 * des_sbox_search: finds small Boolean circuits for the eight DES S-boxes,
 * for bitsliced DES.
 *
 * Three gate sets:
 *   lut   - any 3-input function (x86 vpternlog), the target of des/bs-avx512;
 *   gate  - AND, OR, XOR, ANDN (~a & b) and NOT (des/bs-avx2, 2-input SIMD);
 *   gatep - the same with NOT free: des/bs-avx2's single-key rounds absorb
 *           every NOT (see pol_mode below).
 *
 * Method (after M. Kwan, "Reducing the Gate Count of Bitslice DES", 2000,
 * and its LUT adaptations by DeepLearningJohnDoe's SBOXDiscovery and
 * M. Dansarie's sboxgates, whose ideas - care masks, splitting on an input
 * variable, "function of k existing gates" tests - are reimplemented here):
 * an output is built as a target truth table over the 64 inputs together
 * with a care mask. First reuse: an existing node, then one new gate over
 * existing nodes, then two new gates. Failing that, split on an input x
 * not yet used on this path: build the x=0 and x=1 halves (each with the
 * other half as don't-care), or the x=0 cofactor extended to both halves
 * and then the difference, and join with one more gate. Randomized split
 * orders and output orders, many restarts, keep the smallest circuit.
 *
 * Usage: des_sbox_search MODE SECONDS SEED TT0 TT1 TT2 TT3
 *   MODE lut|gate|gatep; TTk = hex truth table of output bit k (bit x of TTk is
 *   output bit k for input x, input bit 5 = S-box input b1).
 * Prints the best circuit found in the format read by des_sbox_circuits.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXN 240
enum { OP_IN, OP_LUT, OP_AND, OP_OR, OP_XOR, OP_ANDN, OP_NOT };

typedef struct {
	int n, nots;
	uint64_t tt[MAXN];
	uint8_t op[MAXN], a[MAXN], b[MAXN], c[MAXN], imm[MAXN];
} circ;

static int lut_mode;
/* gatep: NOT gates are free. des/bs-avx2's single-key rounds keep any node
 * complemented where that saves its NOT (gen/des_sbox_circuits.py
 * absorb_nots: every AND, OR or ANDN of complemented operands is one of
 * the four gates with a complemented result; complemented outputs are
 * undone by flipped round keys), so there the gate set is every two-input
 * AND-type function of either polarity, XOR and XNOR. */
static int pol_mode;
/* Gates that cost: NOTs are free in gatep mode. */
#define SIZE(c) ((c)->n - (c)->nots)
static int use_s2 = 1;
static uint64_t rng_state;
static uint64_t X[6];

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t lut3(uint64_t x, uint64_t y, uint64_t z, unsigned imm)
{
	uint64_t r = 0;
	for (int k = 0; k < 8; k++)
		if (imm >> k & 1)
			r |= (k & 4 ? x : ~x) & (k & 2 ? y : ~y) & (k & 1 ? z : ~z);
	return r;
}

static uint64_t gate2(int op, uint64_t x, uint64_t y)
{
	switch (op) {
	case OP_AND: return x & y;
	case OP_OR: return x | y;
	case OP_XOR: return x ^ y;
	case OP_ANDN: return ~x & y;
	default: return ~x;
	}
}

static int add_lut(circ *c, int x, int y, int z, unsigned imm)
{
	int i = c->n++;
	c->op[i] = OP_LUT; c->a[i] = x; c->b[i] = y; c->c[i] = z; c->imm[i] = imm;
	c->tt[i] = lut3(c->tt[x], c->tt[y], c->tt[z], imm);
	return i;
}

static int add_gate(circ *c, int op, int x, int y)
{
	int i = c->n++;
	c->op[i] = op; c->a[i] = x; c->b[i] = y; c->c[i] = 0; c->imm[i] = 0;
	c->tt[i] = gate2(op, c->tt[x], c->tt[y]);
	if (op == OP_NOT && pol_mode)
		c->nots++;
	return i;
}

/* Is t (on care mask m) a function of x, y, z? If so, *imm gets a LUT
 * (unconstrained entries random). */
static int func3(uint64_t t, uint64_t m, uint64_t x, uint64_t y, uint64_t z, unsigned *imm)
{
	unsigned v = 0, def = 0;
	for (int k = 0; k < 8; k++) {
		uint64_t q = m & (k & 4 ? x : ~x) & (k & 2 ? y : ~y) & (k & 1 ? z : ~z);
		if (!q)
			continue;
		uint64_t on = t & q;
		if (on && on != q)
			return 0;
		def |= 1u << k;
		if (on)
			v |= 1u << k;
	}
	if (imm)
		*imm = v | ((unsigned)rnd() & ~def & 0xFF);
	return 1;
}

/* A node equal to t on m: in lut mode complements count as equal (the
 * consumer LUT absorbs them); with 2-input gates only exact matches, and in
 * gatep mode a complement through a (free) NOT. */
static int find_existing(circ *c, uint64_t t, uint64_t m)
{
	int compl = -1;
	for (int i = 0; i < c->n; i++) {
		uint64_t d = (c->tt[i] ^ t) & m;
		if (!d || (lut_mode && d == m))
			return i;
		if (d == m && compl < 0)
			compl = i;
	}
	if (pol_mode && compl >= 0)
		return add_gate(c, OP_NOT, compl, compl);
	return -1;
}

/* Gate op over x, y, equal to t on m, or (gatep) to its complement. */
static int gate_fits(uint64_t r, uint64_t t, uint64_t m)
{
	return !((r ^ t) & m) || (pol_mode && !((~r ^ t) & m));
}

/* Adds gate op and, if its result is t's complement on m, a NOT. */
static int add_fitting(circ *c, int op, int x, int y, uint64_t t, uint64_t m)
{
	int g = add_gate(c, op, x, y);
	return (c->tt[g] ^ t) & m ? add_gate(c, OP_NOT, g, g) : g;
}

static int order[MAXN];

static void shuffle_order(int n)
{
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rnd() % (unsigned)(i + 1)), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
}

/* One new gate over existing nodes. */
static int one_gate(circ *c, uint64_t t, uint64_t m)
{
	int n = c->n;
	int ord[MAXN];
	shuffle_order(n);
	memcpy(ord, order, sizeof(int) * n);
	if (lut_mode) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				for (int k = j + 1; k < n; k++) {
					unsigned imm;
					int x = ord[i], y = ord[j], z = ord[k];
					if (func3(t, m, c->tt[x], c->tt[y], c->tt[z], &imm))
						return add_lut(c, x, y, z, imm);
				}
		return -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int x = ord[i], y = ord[j];
			for (int op = OP_AND; op <= OP_ANDN; op++) {
				if (op != OP_ANDN && j <= i)
					continue;
				if (x == y)
					continue;
				if (gate_fits(gate2(op, c->tt[x], c->tt[y]), t, m))
					return add_fitting(c, op, x, y, t, m);
			}
		}
	for (int i = 0; i < n; i++)
		if (!((~c->tt[ord[i]] ^ t) & m))
			return add_gate(c, OP_NOT, ord[i], ord[i]);
	return -1;
}

/* Two new gates: lut mode LUT(a, b, LUT(d, e, f)); gate mode op1(a, op2(d, e)). */
static int two_gates(circ *c, uint64_t t, uint64_t m)
{
	int n = c->n;
	int ord[MAXN];
	shuffle_order(n);
	memcpy(ord, order, sizeof(int) * n);
	if (!lut_mode) {
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				int d = ord[i], e = ord[j];
				if (d == e)
					continue;
				for (int op2 = OP_AND; op2 <= OP_ANDN; op2++) {
					if (op2 != OP_ANDN && j <= i)
						continue;
					uint64_t y = gate2(op2, c->tt[d], c->tt[e]);
					for (int k = 0; k < n; k++) {
						uint64_t x = c->tt[ord[k]];
						for (int op1 = OP_AND; op1 <= OP_ANDN + 1; op1++) {
							/* OP_ANDN+1: ANDN with y first */
							uint64_t r = op1 <= OP_ANDN ? gate2(op1, x, y) : (~y & x);
							if (gate_fits(r, t, m)) {
								int g = add_gate(c, op2, d, e);
								if (op1 <= OP_ANDN)
									return add_fitting(c, op1, ord[k], g, t, m);
								return add_fitting(c, OP_ANDN, g, ord[k], t, m);
							}
						}
					}
				}
			}
		return -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int a = ord[i], b = ord[j];
			uint64_t reg[4];
			int nr = 0;
			for (int k = 0; k < 4; k++) {
				uint64_t q = m & (k & 2 ? c->tt[a] : ~c->tt[a]) & (k & 1 ? c->tt[b] : ~c->tt[b]);
				uint64_t on = t & q;
				if (q && on && on != q)
					reg[nr++] = q;
			}
			if (!nr)
				continue;
			for (int i2 = 0; i2 < n; i2++)
				for (int j2 = i2 + 1; j2 < n; j2++)
					for (int k2 = j2 + 1; k2 < n; k2++) {
						uint64_t x = c->tt[ord[i2]], y = c->tt[ord[j2]], z = c->tt[ord[k2]];
						unsigned val[4], def[4];
						int ok = 1;
						for (int r = 0; r < nr && ok; r++) {
							val[r] = def[r] = 0;
							for (int k = 0; k < 8; k++) {
								uint64_t q = reg[r] & (k & 4 ? x : ~x) & (k & 2 ? y : ~y) &
									     (k & 1 ? z : ~z);
								if (!q)
									continue;
								uint64_t on = t & q;
								if (on && on != q) {
									ok = 0;
									break;
								}
								def[r] |= 1u << k;
								if (on)
									val[r] |= 1u << k;
							}
						}
						if (!ok)
							continue;
						/* one inner table T with each region equal to T or ~T */
						for (unsigned pol = 0; pol < (1u << (nr - 1)); pol++) {
							unsigned T = 0, D = 0;
							int good = 1;
							for (int r = 0; r < nr; r++) {
								unsigned v = (r && (pol >> (r - 1) & 1)) ? ~val[r] & 0xFF : val[r];
								if ((T ^ v) & D & def[r]) {
									good = 0;
									break;
								}
								T |= v & def[r];
								D |= def[r];
							}
							if (!good)
								continue;
							T |= (unsigned)rnd() & ~D & 0xFF;
							uint64_t xv = lut3(x, y, z, T);
							unsigned imm;
							if (!func3(t, m, c->tt[a], c->tt[b], xv, &imm))
								continue;
							int g = add_lut(c, ord[i2], ord[j2], ord[k2], T);
							return add_lut(c, a, b, g, imm);
						}
					}
		}
	return -1;
}

static uint64_t ext0(uint64_t v, int var)
{
	/* copy the x=0 half onto the x=1 half */
	int s = 1 << var;
	uint64_t lo = v & ~X[var];
	return lo | lo << s;
}

static uint64_t ext1(uint64_t v, int var)
{
	int s = 1 << var;
	uint64_t hi = v & X[var];
	return hi | hi >> s;
}

static int s2_min_level = 0;

static int rec(circ *c, uint64_t t, uint64_t m, int lvl, const int *perm, int limit);

/* The second operand q of LUT(x, p, q) on the half h of the care set where
 * x is constant: where t is constant on {p = a} q is free; elsewhere q must
 * equal t or t ^ p (up to complement). Tries both, keeps the smaller. */
static int lut_second(circ *c, uint64_t t, uint64_t h, uint64_t pt, int lvl, const int *perm, int limit)
{
	uint64_t mm = 0;
	for (int a = 0; a < 2; a++) {
		uint64_t reg = h & (a ? pt : ~pt), on = t & reg;
		if (on && on != reg)
			mm |= reg;
	}
	if (!mm) /* cannot happen: then one LUT would have done */
		mm = h;
	int both = (mm & pt) && (mm & ~pt);
	circ w1 = *c;
	int q1 = rec(&w1, t, mm, lvl, perm, limit);
	if (!both) {
		if (q1 >= 0)
			*c = w1;
		return q1;
	}
	circ w2 = *c;
	int lim2 = q1 >= 0 ? SIZE(&w1) - 1 : limit;
	int q2 = rec(&w2, t ^ pt, mm, lvl, perm, lim2);
	if (q2 >= 0) {
		*c = w2;
		return q2;
	}
	if (q1 >= 0)
		*c = w1;
	return q1;
}

/* Builds a node equal to t on m; returns its index or -1 if the circuit
 * would exceed limit nodes. */
static int rec(circ *c, uint64_t t, uint64_t m, int lvl, const int *perm, int limit)
{
	if (c->n + 8 > MAXN) /* room for gatep's NOTs */
		return -1;
	int g = find_existing(c, t, m);
	if (g >= 0)
		return g;
	if (SIZE(c) + 1 > limit)
		return -1;
	g = one_gate(c, t, m);
	if (g >= 0)
		return g;
	if (SIZE(c) + 2 > limit)
		return -1;
	if (use_s2 && lvl >= s2_min_level) {
		g = two_gates(c, t, m);
		if (g >= 0)
			return g;
	}
	/* split on the next input that actually splits m */
	while (lvl < 6 && (!(m & X[perm[lvl]]) || !(m & ~X[perm[lvl]])))
		lvl++;
	if (lvl >= 6)
		return -1;
	int v = perm[lvl];
	uint64_t xv = X[v];
	int xi = 5 - v; /* node index of input variable v: inputs are b1..b6 = nodes 0..5 */
	circ best, work;
	int bestg = -1, bests = limit + 1;
	int nvar = lut_mode ? 4 : 5;
	int first = (int)(rnd() % (unsigned)nvar);
	/* deeper levels: try fewer variants */
	int tries = lvl < 2 ? nvar : (lvl < 4 ? 2 : 1);
	for (int vi = 0; vi < tries; vi++) {
		int variant = (first + vi) % nvar;
		work = *c;
		int lim = bests <= limit ? bests - 1 : limit;
		int r = -1, p, q;
		switch (variant) {
		case 0: /* halves: x=1 first */
		case 1: /* halves: x=0 first */ {
			uint64_t m1 = variant == 0 ? m & xv : m & ~xv, m2 = m & ~m1;
			p = rec(&work, t, m1, lvl + 1, perm, lim - 1);
			if (p < 0)
				break;
			if (lut_mode) {
				/* maybe an existing node completes it */
				for (int k = 0; k < work.n; k++) {
					unsigned imm;
					if (func3(t, m, xv, work.tt[p], work.tt[k], &imm)) {
						r = add_lut(&work, xi, p, k, imm);
						break;
					}
				}
				if (r >= 0)
					break;
				q = lut_second(&work, t, m2, work.tt[p], lvl + 1, perm, lim - 1);
				if (q < 0)
					break;
				unsigned imm;
				if (!func3(t, m, xv, work.tt[p], work.tt[q], &imm))
					abort();
				r = add_lut(&work, xi, p, q, imm);
			} else {
				/* t = p ^ (sel & q'), q' = t ^ p on the other half */
				q = rec(&work, t ^ work.tt[p], m2, lvl + 1, perm, lim - 2);
				if (q < 0)
					break;
				int s = variant == 0 ? add_gate(&work, OP_ANDN, xi, q) : add_gate(&work, OP_AND, xi, q);
				r = add_gate(&work, OP_XOR, p, s);
			}
			break;
		}
		case 2: /* cofactor x=0 extended, then the difference on x=1 */
		case 3: {
			int zero = variant == 2;
			uint64_t te = zero ? ext0(t, v) : ext1(t, v);
			uint64_t me = zero ? ext0(m, v) : ext1(m, v);
			uint64_t half = zero ? m & xv : m & ~xv;
			p = rec(&work, te, me | (m & ~half), lvl + 1, perm, lim - 1);
			if (p < 0)
				break;
			if (lut_mode) {
				q = lut_second(&work, t, half, work.tt[p], lvl + 1, perm, lim - 1);
				if (q < 0)
					break;
				unsigned imm;
				if (!func3(t, m, xv, work.tt[p], work.tt[q], &imm))
					abort();
				r = add_lut(&work, xi, p, q, imm);
			} else {
				q = rec(&work, t ^ work.tt[p], half, lvl + 1, perm, lim - 2);
				if (q < 0)
					break;
				int s = zero ? add_gate(&work, OP_AND, xi, q) : add_gate(&work, OP_ANDN, xi, q);
				r = add_gate(&work, OP_XOR, p, s);
			}
			break;
		}
		case 4: { /* gate mode: t = p | (x & q) or p & ~(x & q) forms */
			uint64_t m0 = m & ~xv, m1 = m & xv;
			p = rec(&work, t, m0, lvl + 1, perm, lim - 2);
			if (p < 0)
				break;
			uint64_t pt = work.tt[p];
			if (!(pt & ~t & m1)) { /* p <= t on x=1: OR in the rest */
				q = rec(&work, t, m1 & ~pt, lvl + 1, perm, lim - 2);
				if (q < 0)
					break;
				int s = add_gate(&work, OP_AND, xi, q);
				r = add_gate(&work, OP_OR, p, s);
			} else if (!(~pt & t & m1)) { /* t <= p on x=1: clear the rest */
				q = rec(&work, ~t, m1 & pt, lvl + 1, perm, lim - 2);
				if (q < 0)
					break;
				int s = add_gate(&work, OP_AND, xi, q);
				r = add_gate(&work, OP_ANDN, s, p);
			} else {
				q = rec(&work, t ^ pt, m1, lvl + 1, perm, lim - 2);
				if (q < 0)
					break;
				int s = add_gate(&work, OP_AND, xi, q);
				r = add_gate(&work, OP_XOR, p, s);
			}
			break;
		}
		}
		if (r >= 0 && SIZE(&work) < bests) {
			best = work;
			bests = SIZE(&work);
			bestg = r;
		}
	}
	if (bestg < 0)
		return -1;
	*c = best;
	return bestg;
}

/* Cost for the kernel: gates plus the XORs into L that cannot merge into
 * the output gate (lut mode: an output LUT using only 2 inputs and no
 * other consumer becomes ternlog(L, a, b)). */
static int final_cost(const circ *c, const int *out, int *xors)
{
	int nx = 0;
	for (int k = 0; k < 4; k++) {
		int g = out[k], merge = 0;
		if (lut_mode && c->op[g] == OP_LUT) {
			int used = 0;
			for (int i = 6; i < c->n; i++)
				if (c->op[i] == OP_LUT && (c->a[i] == g || c->b[i] == g || c->c[i] == g))
					used = 1;
			for (int k2 = 0; k2 < 4; k2++)
				if (k2 != k && out[k2] == g)
					used = 1;
			unsigned imm = c->imm[g];
			int dep = 0;
			for (int in = 0; in < 3; in++) {
				int sh = 1 << (2 - in);
				for (int e = 0; e < 8; e++)
					if (!(e & sh) && ((imm >> e) & 1) != ((imm >> (e | sh)) & 1)) {
						dep++;
						break;
					}
			}
			merge = !used && dep <= 2;
		}
		if (!merge)
			nx++;
	}
	*xors = nx;
	return SIZE(c) - 6 + nx;
}

int main(int argc, char **argv)
{
	if (argc != 8) {
		fprintf(stderr, "usage: %s lut|gate|gatep SECONDS SEED TT0 TT1 TT2 TT3\n", argv[0]);
		return 2;
	}
	lut_mode = !strcmp(argv[1], "lut");
	pol_mode = !strcmp(argv[1], "gatep");
	double seconds = atof(argv[2]);
	rng_state = strtoull(argv[3], 0, 0) * 0x9E3779B97F4A7C15ull + 1;
	uint64_t tt[4];
	for (int k = 0; k < 4; k++)
		tt[k] = strtoull(argv[4 + k], 0, 16);
	if (getenv("S2"))
		use_s2 = atoi(getenv("S2"));
	if (getenv("S2LVL"))
		s2_min_level = atoi(getenv("S2LVL"));
	for (int v = 0; v < 6; v++) {
		X[v] = 0;
		for (int x = 0; x < 64; x++)
			if (x >> v & 1)
				X[v] |= 1ull << x;
	}
	circ init;
	init.n = 6;
	init.nots = 0;
	for (int i = 0; i < 6; i++) {
		init.op[i] = OP_IN;
		init.tt[i] = X[5 - i]; /* node i = S-box input b(i+1) */
	}
	circ best;
	int bestout[4] = {0}, bestcost = 1 << 30, bestx = 0;
	long iters = 0;
	clock_t t0 = clock();
	int limit = 156;
	while ((double)(clock() - t0) / CLOCKS_PER_SEC < seconds) {
		iters++;
		int perm[6], oo[4];
		for (int i = 0; i < 6; i++)
			perm[i] = i;
		for (int i = 5; i > 0; i--) {
			int j = (int)(rnd() % (unsigned)(i + 1)), tmp = perm[i];
			perm[i] = perm[j];
			perm[j] = tmp;
		}
		for (int i = 0; i < 4; i++)
			oo[i] = i;
		for (int i = 3; i > 0; i--) {
			int j = (int)(rnd() % (unsigned)(i + 1)), tmp = oo[i];
			oo[i] = oo[j];
			oo[j] = tmp;
		}
		circ c = init;
		int out[4], ok = 1;
		int lim = bestcost < (1 << 30) ? 6 + bestcost + 4 : limit;
		if (lim > limit)
			lim = limit;
		for (int i = 0; i < 4 && ok; i++) {
			int k = oo[i];
			int g = rec(&c, tt[k], ~0ull, 0, perm, lim);
			if (g < 0)
				ok = 0;
			else
				out[k] = g;
		}
		if (!ok)
			continue;
		/* exact outputs in gate mode */
		for (int k = 0; k < 4; k++)
			if (!lut_mode && c.tt[out[k]] != tt[k])
				abort();
		int nx, cost = final_cost(&c, out, &nx);
		if (cost < bestcost) {
			bestcost = cost;
			best = c;
			memcpy(bestout, out, sizeof out);
			bestx = nx;
			fprintf(stderr, "iter %ld: %d gates + %d xors = %d (%.1fs)\n", iters, SIZE(&c) - 6, nx, cost,
				(double)(clock() - t0) / CLOCKS_PER_SEC);
		}
	}
	if (bestcost == 1 << 30)
		return 1;
	printf("circuit %s gates %d xors %d iters %ld\n", lut_mode ? "lut" : "gate", best.n - 6, bestx, iters);
	/* drop unused nodes is not needed: every node was created on demand,
	 * but failed variants were discarded with their copy. */
	static const char *opn[] = {"in", "lut", "and", "or", "xor", "andn", "not"};
	for (int i = 6; i < best.n; i++) {
		if (best.op[i] == OP_LUT)
			printf("n%d = lut 0x%02x n%d n%d n%d\n", i, best.imm[i], best.a[i], best.b[i], best.c[i]);
		else if (best.op[i] == OP_NOT)
			printf("n%d = not n%d\n", i, best.a[i]);
		else
			printf("n%d = %s n%d n%d\n", i, opn[best.op[i]], best.a[i], best.b[i]);
	}
	for (int k = 0; k < 4; k++)
		printf("out%d = %sn%d\n", k, best.tt[bestout[k]] == tt[k] ? "" : "~", bestout[k]);
	return 0;
}
