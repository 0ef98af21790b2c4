/*
 * ct_dudect - a statistical check of constant time, in the manner of
 * dudect (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant
 * time?", DATE 2017): time an operation on two classes of secret input,
 * one fixed and one random, interleaved at random, and compare the two
 * timing distributions with Welch's t-test. A |t| above 4.5 says the two
 * classes take different times, so the timing depends on the secret.
 * A |t| below it says only that this many measurements on this machine
 * did not show a difference: timing tests cannot prove constant time
 * (tests/test_ct_valgrind.c is the proof; this is the second line).
 *
 *   ct_dudect [--n N] [--len L,L...] [--only TEXT] [--json FILE|-]
 *             [--threshold T] [--all] [--smoke] [--quiet] [--fixed-random]
 *
 * What it measures, through the public API (fastblock.h), per row:
 *   - every family's default choice (no implementation named, no flag);
 *   - every implementation that claims constant time and runs on this CPU,
 *     forced with fb_options.impl and FB_FLAG_CONSTANT_TIME;
 *   - des/table forced, a known non-constant-time reference (--all: every
 *     non-constant-time implementation that runs);
 *   - three controls: control/early-exit (a byte compare that stops at the
 *     first difference) and control/table-16M (a secret-indexed load from a
 *     16 MB table) leak and must be found; control/ct-compare (an OR of
 *     XORs) does not, and shows the noise floor of the machinery.
 * and per row the operations
 *   setkey          fb_init of an ECB context (the parallel kernel's key setup);
 *   setkey-serial   fb_init of a CBC encryption context, where the default
 *                   puts another kernel on serial chains;
 *   ecb-enc, cbc-dec, ctr, cbc-enc
 *                   fb_update of L bytes on a context just set up;
 * each with the key as the secret (fixed key against random keys, the
 * data fixed) and, except setkey, with the data as the secret (fixed data
 * against random data, one fixed key). The context is set up again before
 * every measurement (outside the timed region), so chaining values and
 * counters start from the same public IV in both classes. The fixed data
 * is all zero bytes (with --fixed-random one random constant); the fixed
 * key is a random key drawn once per test.
 *
 * Statistics, per test: the first measurements (a tenth, at most 20,000)
 * only set the cropping thresholds and are not counted. Then Welch's t on
 * all measurements, on the measurements below each of 15 percentiles of
 * the warm-up (1 - 0.5^(10k/15), k = 1..15, 0.37 ... 0.999; cropping cuts
 * the long upper tail that interrupts and other processes add), and a
 * second-order test on the squared distance to the warm-up mean. The
 * reported |t| is the largest over these tests with at least 1,000
 * measurements in each class; "at" names that test (all, p0.37 ... p0.999,
 * 2nd). With 17 tests per row and hundreds of rows, an occasional |t| just
 * above 4.5 is what noise gives; a leak gives |t| that grows with the
 * square root of the number of measurements.
 *
 * Timer: rdtsc fenced by lfence (x86), else clock_gettime in ns.
 *
 * Exit status: 0; 1 when --smoke finds a leaking control at or below the
 * threshold (default 10, "definitely leaks" in dudect's reading); 2 on a
 * usage or library error. No row of the real library is ever asserted: on a
 * shared machine noise alone can push |t| over 4.5.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fastblock.h"
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#define TIMER_NAME "rdtsc"
#else
#define TIMER_NAME "clock_gettime-ns"
#endif

/* ---- timer -------------------------------------------------------------------------- */

static inline uint64_t ticks(void)
{
#ifdef HAVE_TSC
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ---------------------------- */

static uint64_t rng_s[4];

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void rng_seed(uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		rng_s[i] = splitmix(&seed);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng64(void)
{
	uint64_t r = rotl64(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
	rng_s[2] ^= rng_s[0];
	rng_s[3] ^= rng_s[1];
	rng_s[1] ^= rng_s[2];
	rng_s[0] ^= rng_s[3];
	rng_s[2] ^= t;
	rng_s[3] = rotl64(rng_s[3], 45);
	return r;
}

static void rng_fill(uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t r = rng64();
		memcpy(p, &r, 8);
		p += 8, n -= 8;
	}
	if (n) {
		uint64_t r = rng64();
		memcpy(p, &r, n);
	}
}

/* ---- Welch's t-test, online (Welford) ------------------------------------------------- */

typedef struct {
	double n[2], mean[2], m2[2];
} welch;

static void welch_add(welch *w, int cls, double x)
{
	double d = x - w->mean[cls];
	w->n[cls] += 1;
	w->mean[cls] += d / w->n[cls];
	w->m2[cls] += d * (x - w->mean[cls]);
}

/* t, or 0 with fewer than min measurements in a class or no variance */
static double welch_t(const welch *w, double min)
{
	if (w->n[0] < min || w->n[1] < min)
		return 0;
	double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
	double den = sqrt(v0 / w->n[0] + v1 / w->n[1]);
	if (!(den > 0))
		return w->mean[0] == w->mean[1] ? 0 : INFINITY;
	return (w->mean[0] - w->mean[1]) / den;
}

#define NCROP 15
#define NTESTS (NCROP + 2) /* all, the cropped ones, second order */
#define MIN_PER_CLASS 1000.0

static const char *test_name(int i, char *buf, size_t cap)
{
	if (i == 0)
		return "all";
	if (i == NTESTS - 1)
		return "2nd";
	snprintf(buf, cap, "p%.3g", 1 - pow(0.5, 10.0 * i / NCROP));
	return buf;
}

/* ---- what is measured ------------------------------------------------------------------- */

enum op { OP_SETKEY, OP_SETKEY_SERIAL, OP_ECB, OP_CBC_DEC, OP_CTR, OP_CBC_ENC, NOPS };
static const struct {
	const char *name, *mode;
	enum fb_direction dir;
	int setkey;
} ops[NOPS] = {
	{ "setkey", "ecb", FB_ENCRYPT, 1 },  { "setkey-serial", "cbc", FB_ENCRYPT, 1 },
	{ "ecb-enc", "ecb", FB_ENCRYPT, 0 }, { "cbc-dec", "cbc", FB_DECRYPT, 0 },
	{ "ctr", "ctr", FB_ENCRYPT, 0 },     { "cbc-enc", "cbc", FB_ENCRYPT, 0 },
};

enum secret { SEC_KEY, SEC_DATA };
enum control { CTRL_NONE, CTRL_EARLY_EXIT, CTRL_TABLE, CTRL_CT_COMPARE };

typedef struct {
	enum control control;
	const fb_cipher *c;    /* library rows */
	fb_options opt;
	enum op op;
	enum secret secret;
	size_t key_len, iv_len, len;
	char cipher[40];       /* "aes-128" */
	char row[48];          /* "default", "aes/aesni", "control/..." */
	char ran[80];          /* the implementation(s) the context ran */
} test;

typedef struct {
	double t;              /* the largest |t| */
	int at;                /* which test gave it */
	double n0, n1;         /* counted measurements per class */
	double med0, med1;     /* medians, in ticks */
} result;

static fb_ctx *ctx;
static volatile uint64_t sink;

/* control/table-16M: one load per byte of the secret from a 16 MB table,
 * the address from 3 secret bytes. The fixed class hits the same lines
 * every time; random ones miss the caches and the TLB. */
#define BIG_TABLE (16u << 20)
static uint8_t *big_table;

static uint64_t ctrl_table(const uint8_t *in, size_t len)
{
	uint64_t acc = 0;
	for (size_t i = 0; i + 3 <= len; i += 3) {
		uint32_t idx = (uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16;
		acc += big_table[(idx * 64u + (uint32_t)acc) & (BIG_TABLE - 1)];
	}
	return acc;
}

/* control/early-exit: equality with a zero block, stopping at the first
 * difference (the fixed class, all zero, runs to the end). */
static const uint8_t zeros[8192];
static __attribute__((noinline)) uint64_t ctrl_early_exit(const uint8_t *in, size_t len)
{
	const volatile uint8_t *p = in;
	for (size_t i = 0; i < len; i++)
		if (p[i] != zeros[i])
			return 0;
	return 1;
}

/* control/ct-compare: the same answer without a branch or a secret address. */
static __attribute__((noinline)) uint64_t ctrl_ct_compare(const uint8_t *in, size_t len)
{
	unsigned d = 0;
	for (size_t i = 0; i < len; i++)
		d |= in[i] ^ zeros[i];
	return (uint64_t)((d - 1u) >> 31 & 1u);
}

static uint8_t iv_fixed[16];

/* One measurement: the ticks of the operation on key and in; -1 on a
 * library error (reported by the caller). */
static int64_t measure(const test *t, const uint8_t *key, const uint8_t *in, uint8_t *out)
{
	uint64_t t0, t1;
	size_t olen;
	int rc = FB_OK;
	switch (t->control) {
	case CTRL_EARLY_EXIT:
		t0 = ticks();
		sink += ctrl_early_exit(in, t->len);
		t1 = ticks();
		return (int64_t)(t1 - t0);
	case CTRL_TABLE:
		t0 = ticks();
		sink += ctrl_table(in, t->len);
		t1 = ticks();
		return (int64_t)(t1 - t0);
	case CTRL_CT_COMPARE:
		t0 = ticks();
		sink += ctrl_ct_compare(in, t->len);
		t1 = ticks();
		return (int64_t)(t1 - t0);
	case CTRL_NONE:
		break;
	}
	const uint8_t *iv = t->iv_len ? iv_fixed : NULL;
	if (ops[t->op].setkey) {
		t0 = ticks();
		rc = fb_init(ctx, t->c, ops[t->op].dir, key, t->key_len, iv, t->iv_len, &t->opt);
		t1 = ticks();
	} else {
		rc = fb_init(ctx, t->c, ops[t->op].dir, key, t->key_len, iv, t->iv_len, &t->opt);
		if (rc)
			return -1;
		t0 = ticks();
		rc = fb_update(ctx, out, t->len + 32, &olen, in, t->len);
		t1 = ticks();
	}
	return rc ? -1 : (int64_t)(t1 - t0);
}

/* ---- one test -------------------------------------------------------------------------- */

#define BATCH 1000
#define HIST 65536 /* exact medians up to 65,535 ticks; above, the top bucket */

static uint32_t *hist[2];

static double hist_median(const uint32_t *h, double n)
{
	double half = n / 2, seen = 0;
	for (uint32_t i = 0; i < HIST; i++) {
		seen += h[i];
		if (seen >= half)
			return i;
	}
	return HIST - 1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* --fixed-random: the fixed data class is one random block of bytes drawn
 * per test instead of all zeros. Zeros against random bytes also differ
 * in how many bits switch, which some CPUs show in their timing through
 * power and clock; a random constant keeps only the difference the check
 * is for (the value steering a branch or an address). */
static int fixed_random;

/* Runs n measurements of t (plus the warm-up); fills r. 0, or -1 when
 * the library refused the operation. */
static int run_test(const test *t, long n, result *r)
{
	static uint8_t keys[BATCH][32], data[BATCH][8192 + 64], out[8192 + 64];
	static int64_t times[BATCH], warm[20000];
	static uint8_t cls[BATCH];
	uint8_t fixed_key[32];
	welch w[NTESTS];
	double crop[NCROP], wmean = 0;
	long nwarm = n / 10 < 20000 ? n / 10 : 20000, done = 0, wdone = 0;
	if (nwarm < 200)
		nwarm = 200;
	memset(w, 0, sizeof w);
	memset(hist[0], 0, HIST * sizeof(uint32_t));
	memset(hist[1], 0, HIST * sizeof(uint32_t));
	static uint8_t fixed_data[8192 + 64];
	rng_fill(fixed_key, sizeof fixed_key);
	if (fixed_random)
		rng_fill(fixed_data, sizeof fixed_data);
	else
		memset(fixed_data, 0, sizeof fixed_data);
	while (done < n) {
		/* inputs first, so that making them is not timed */
		for (int i = 0; i < BATCH; i++) {
			cls[i] = (uint8_t)(rng64() & 1);
			if (t->secret == SEC_KEY) {
				if (cls[i] == 0)
					memcpy(keys[i], fixed_key, sizeof fixed_key);
				else
					rng_fill(keys[i], t->key_len);
				memset(data[i], 0, t->len);
			} else {
				memcpy(keys[i], fixed_key, sizeof fixed_key);
				if (cls[i] == 0)
					memcpy(data[i], fixed_data, t->len);
				else
					rng_fill(data[i], t->len);
			}
		}
		for (int i = 0; i < BATCH; i++) {
			times[i] = measure(t, keys[i], data[i], out);
			if (times[i] < 0)
				return -1;
		}
		for (int i = 0; i < BATCH; i++) {
			double x = (double)times[i];
			if (wdone < nwarm) { /* warm-up: thresholds only */
				warm[wdone++] = times[i];
				if (wdone == nwarm) {
					qsort(warm, (size_t)nwarm, sizeof *warm, cmp_i64);
					for (int k = 0; k < NCROP; k++) {
						double p = 1 - pow(0.5, 10.0 * (k + 1) / NCROP);
						crop[k] = (double)warm[(long)(p * (double)(nwarm - 1))];
					}
					for (long j = 0; j < nwarm; j++)
						wmean += (double)warm[j] / (double)nwarm;
				}
				continue;
			}
			int c = cls[i];
			welch_add(&w[0], c, x);
			for (int k = 0; k < NCROP; k++)
				if (x < crop[k])
					welch_add(&w[1 + k], c, x);
			welch_add(&w[NTESTS - 1], c, (x - wmean) * (x - wmean));
			hist[c][times[i] < HIST ? times[i] : HIST - 1]++;
			done++;
		}
	}
	r->t = 0;
	r->at = 0;
	for (int k = 0; k < NTESTS; k++) {
		double v = fabs(welch_t(&w[k], MIN_PER_CLASS));
		if (v > r->t)
			r->t = v, r->at = k;
	}
	r->n0 = w[0].n[0];
	r->n1 = w[0].n[1];
	r->med0 = hist_median(hist[0], r->n0);
	r->med1 = hist_median(hist[1], r->n1);
	return 0;
}

/* ---- rows --------------------------------------------------------------------------------- */

static const struct {
	const char *family, *cipher;
} ciphers[] = {
	{ "des", "des" },	  { "des", "des-ede3" },       { "aes", "aes-128" },
	{ "rc6", "rc6-128" },	  { "mars", "mars-128" },      { "twofish", "twofish-128" },
	{ "serpent", "serpent-128" },
};
#define NCIPHERS (sizeof ciphers / sizeof *ciphers)

static struct {
	long n;
	size_t lens[8];
	int nlens;
	const char *only;
	const char *json;
	double threshold;
	int all, smoke, quiet;
} cfg = { 200000, { 16, 64 }, 2, NULL, NULL, 4.5, 0, 0, 0 };

static FILE *json_out;
static int json_first = 1;
static int n_rows, n_over, n_refused;
static double max_t_ct, max_t_ref; /* over the constant-time rows, over des/table */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void report(const test *t, const result *r)
{
	char tn[16];
	const char *secret = t->secret == SEC_KEY ? "key" : "data";
	const char *op = t->control ? "-" : ops[t->op].name;
	int over = r->t > cfg.threshold;
	n_rows++;
	n_over += over;
	if (!t->control && (t->opt.flags & FB_FLAG_CONSTANT_TIME) && r->t > max_t_ct)
		max_t_ct = r->t;
	if (!t->control && !strcmp(t->row, "des/table") && r->t > max_t_ref)
		max_t_ref = r->t;
	if (!cfg.quiet)
		printf("%-12s %-20s %-32s %-13s %5zu %-4s %9.0f %7.0f %7.0f %8.2f %-6s %s\n", t->cipher, t->row,
		       t->ran, op, t->len, secret, r->n0 + r->n1, r->med0, r->med1, r->t,
		       test_name(r->at, tn, sizeof tn), over ? "|t|>thr" : "");
	fflush(stdout);
	if (!json_out)
		return;
	fprintf(json_out, "%s\n  {\"cipher\": ", json_first ? "" : ",");
	json_first = 0;
	json_str(json_out, t->cipher);
	fprintf(json_out, ", \"row\": ");
	json_str(json_out, t->row);
	fprintf(json_out, ", \"ran\": ");
	json_str(json_out, t->ran);
	fprintf(json_out, ", \"op\": ");
	json_str(json_out, op);
	fprintf(json_out,
		", \"len\": %zu, \"secret\": \"%s\", \"n_fixed\": %.0f, \"n_random\": %.0f, "
		"\"median_fixed\": %.0f, \"median_random\": %.0f, \"max_abs_t\": %.3f, \"at\": \"%s\", "
		"\"over_threshold\": %s}",
		t->len, secret, r->n0, r->n1, r->med0, r->med1, isinf(r->t) ? 1e9 : r->t,
		test_name(r->at, tn, sizeof tn), over ? "true" : "false");
	fflush(json_out);
}

static int wanted(const char *cipher, const char *row)
{
	if (!cfg.only)
		return 1;
	char both[128];
	snprintf(both, sizeof both, "%s %s", cipher, row);
	return strstr(both, cfg.only) != NULL;
}

/* The implementation a context for op runs: the serial kernel for
 * setkey-serial and cbc-enc, else the parallel one. */
static int ran_name(const fb_cipher *c, enum op op, const fb_options *opt, char *buf, size_t cap)
{
	uint8_t key[32] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24 };
	int rc = fb_init(ctx, c, ops[op].dir, key, fb_cipher_key_len(c), iv_fixed, fb_cipher_iv_len(c), opt);
	if (rc)
		return rc;
	snprintf(buf, cap, "%s", op == OP_SETKEY_SERIAL || op == OP_CBC_ENC ? fb_ctx_serial_impl(ctx)
									     : fb_ctx_impl(ctx));
	return FB_OK;
}

/* Every operation, length and secret of one row. */
static int run_row(const char *family, const char *cipher, const char *row, const fb_options *opt)
{
	(void)family;
	if (!wanted(cipher, row))
		return 0;
	for (int op = 0; op < NOPS; op++) {
		test t;
		memset(&t, 0, sizeof t);
		t.control = CTRL_NONE;
		t.opt = *opt;
		t.op = (enum op)op;
		snprintf(t.cipher, sizeof t.cipher, "%s", cipher);
		snprintf(t.row, sizeof t.row, "%s", row);
		char cname[64];
		snprintf(cname, sizeof cname, "%s-%s", cipher, ops[op].mode);
		t.c = fb_cipher_by_name(cname);
		if (!t.c) {
			fprintf(stderr, "ct_dudect: no cipher %s\n", cname);
			return 2;
		}
		t.key_len = fb_cipher_key_len(t.c);
		t.iv_len = fb_cipher_iv_len(t.c);
		int rc = ran_name(t.c, (enum op)op, opt, t.ran, sizeof t.ran);
		if (rc) {
			if (op == 0) {
				if (!cfg.quiet)
					printf("%-12s %-20s refused: %s\n", cipher, row, fb_strerror(rc));
				n_refused++;
				return 0;
			}
			fprintf(stderr, "ct_dudect: %s %s: %s\n", cname, row, fb_strerror(rc));
			return 2;
		}
		if (op == OP_SETKEY_SERIAL) { /* only where serial chains set up another kernel */
			char par[80], ecb[64];
			snprintf(ecb, sizeof ecb, "%s-ecb", cipher);
			if (ran_name(fb_cipher_by_name(ecb), OP_SETKEY, opt, par, sizeof par) == FB_OK &&
			    !strcmp(par, t.ran))
				continue;
		}
		for (int s = 0; s < 2; s++) {
			if (ops[op].setkey && s == SEC_DATA)
				continue;
			t.secret = (enum secret)s;
			int nl = ops[op].setkey ? 1 : cfg.nlens;
			for (int li = 0; li < nl; li++) {
				result r;
				t.len = ops[op].setkey ? 0 : cfg.lens[li];
				t.len -= t.len % fb_cipher_block_size(t.c);
				if (run_test(&t, cfg.n, &r)) {
					fprintf(stderr, "ct_dudect: %s %s %s: the library refused\n", cipher, row,
						ops[op].name);
					return 2;
				}
				report(&t, &r);
			}
		}
	}
	return 0;
}

/* The controls; returns how many leaking controls were missed. */
static int run_controls(long n, double need)
{
	static const struct {
		enum control c;
		const char *name;
		int leaks;
	} ctl[] = {
		{ CTRL_EARLY_EXIT, "control/early-exit", 1 },
		{ CTRL_TABLE, "control/table-16M", 1 },
		{ CTRL_CT_COMPARE, "control/ct-compare", 0 },
	};
	int missed = 0;
	for (size_t i = 0; i < sizeof ctl / sizeof *ctl; i++) {
		test t;
		result r;
		if (!wanted("control", ctl[i].name))
			continue;
		memset(&t, 0, sizeof t);
		t.control = ctl[i].c;
		t.secret = SEC_DATA;
		t.len = 64;
		snprintf(t.cipher, sizeof t.cipher, "control");
		snprintf(t.row, sizeof t.row, "%s", ctl[i].name);
		snprintf(t.ran, sizeof t.ran, "%s", ctl[i].leaks ? "(leaks: must be found)" : "(no leak)");
		run_test(&t, n, &r);
		report(&t, &r);
		if (ctl[i].leaks && !(r.t > need)) {
			fprintf(json_out == stdout ? stderr : stdout, "ct_dudect: %s not detected: |t| %.2f <= %.2f\n",
				ctl[i].name, r.t, need);
			missed++;
		}
	}
	return missed;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ct_dudect [--n N] [--len L,L...] [--only TEXT] [--json FILE|-] [--threshold T]\n"
		"                 [--floor F] [--all] [--smoke] [--quiet] [--fixed-random]\n"
		"  --n N        measurements per test after the warm-up (default 200000)\n"
		"  --len        message lengths in bytes for the data operations (default 16,64)\n"
		"  --only TEXT  rows whose \"cipher row\" contains TEXT (\"aes-128 default\", \"control\")\n"
		"  --json       also write the results as JSON\n"
		"  --threshold  |t| marked in the table (default 4.5)\n"
		"  --floor F    |t| the leaking controls must exceed (default 10)\n"
		"  --all        also every non-constant-time implementation this CPU runs\n"
		"  --smoke      every row with 10000 measurements per test unless --n\n"
		"  --fixed-random  the fixed data is a random constant, not all zeros\n"
		"The leaking controls are always asserted: exit 1 when one is not found.\n");
}

int main(int argc, char **argv)
{
	double need = 10;
	int n_given = 0;
	for (int a = 1; a < argc; a++) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;
		if (!strcmp(argv[a], "--n") && v) {
			char *end;
			errno = 0;
			cfg.n = strtol(v, &end, 10);
			n_given = 1;
			if (errno || *end || cfg.n < 5000) {
				fprintf(stderr, "ct_dudect: --n wants a number >= 5000 (the t-tests need 1,000 per class)\n");
				return 2;
			}
			a++;
		} else if (!strcmp(argv[a], "--len") && v) {
			char *copy = strdup(v), *save = NULL;
			cfg.nlens = 0;
			for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				char *end;
				unsigned long l = strtoul(tok, &end, 10);
				if (*end || l < 16 || l > 8192 || cfg.nlens == 8) {
					fprintf(stderr, "ct_dudect: --len takes up to 8 lengths of 16..8192\n");
					free(copy);
					return 2;
				}
				cfg.lens[cfg.nlens++] = l;
			}
			free(copy);
			if (!cfg.nlens) {
				usage();
				return 2;
			}
			a++;
		} else if (!strcmp(argv[a], "--only") && v) {
			cfg.only = v, a++;
		} else if (!strcmp(argv[a], "--json") && v) {
			cfg.json = v, a++;
		} else if (!strcmp(argv[a], "--threshold") && v) {
			cfg.threshold = atof(v), a++;
			if (!(cfg.threshold > 0)) {
				usage();
				return 2;
			}
		} else if (!strcmp(argv[a], "--floor") && v) {
			need = atof(v), a++;
			if (!(need > 0)) {
				usage();
				return 2;
			}
		} else if (!strcmp(argv[a], "--all")) {
			cfg.all = 1;
		} else if (!strcmp(argv[a], "--fixed-random")) {
			fixed_random = 1;
		} else if (!strcmp(argv[a], "--smoke")) {
			cfg.smoke = 1;
		} else if (!strcmp(argv[a], "--quiet")) {
			cfg.quiet = 1;
		} else {
			usage();
			return 2;
		}
	}
	if (cfg.smoke && !n_given)
		cfg.n = 10000;
	/* "default" must mean the library's own choice */
	if (getenv("FASTBLOCK_IMPL")) {
		fprintf(stderr, "ct_dudect: ignoring FASTBLOCK_IMPL (rows force implementations themselves)\n");
		unsetenv("FASTBLOCK_IMPL");
	}
	uint64_t seed = ticks() ^ (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull;
	rng_seed(seed);
	ctx = fb_ctx_new();
	hist[0] = calloc(HIST, sizeof(uint32_t));
	hist[1] = calloc(HIST, sizeof(uint32_t));
	big_table = malloc(BIG_TABLE);
	if (!ctx || !hist[0] || !hist[1] || !big_table) {
		fprintf(stderr, "ct_dudect: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < BIG_TABLE; i++)
		big_table[i] = (uint8_t)(i * 131u >> 3);
	rng_fill(iv_fixed, sizeof iv_fixed);
	if (cfg.json) {
		json_out = strcmp(cfg.json, "-") ? fopen(cfg.json, "w") : stdout;
		if (!json_out) {
			fprintf(stderr, "ct_dudect: %s: %s\n", cfg.json, strerror(errno));
			return 2;
		}
		if (json_out == stdout)
			cfg.quiet = 1;
		fprintf(json_out, "{\"cpu\": ");
		json_str(json_out, fb_cpu_description());
		fprintf(json_out, ", \"timer\": \"%s\", \"n\": %ld, \"threshold\": %.2f, \"results\": [",
			TIMER_NAME, cfg.n, cfg.threshold);
	}
	if (!cfg.quiet) {
		printf("ct_dudect: fixed vs random secret, Welch's t; %ld measurements per test; cpu: %s\n",
		       cfg.n, fb_cpu_description());
		printf("%-12s %-20s %-32s %-13s %5s %-4s %9s %7s %7s %8s %-6s\n", "cipher", "row", "ran", "op",
		       "len", "sec", "n", "med-fix", "med-rnd", "max|t|", "at");
	}
	/* The controls first: if they are not found, the rest means nothing. */
	int missed = run_controls(cfg.n > 100000 ? cfg.n : 100000, need);
	int rc = 0;
	for (size_t ci = 0; ci < NCIPHERS && !rc; ci++) {
		const char *fam = ciphers[ci].family, *cip = ciphers[ci].cipher;
		fb_options def = { FB_PAD_NONE, 0, NULL };
		rc = run_row(fam, cip, "default", &def);
		fb_impl_info info;
		for (size_t i = 0; !rc && fb_impl_at(i, &info) == FB_OK; i++) {
			if (strcmp(info.family, fam) || !info.supported)
				continue;
			int reference = !strcmp(info.name, "des/table");
			if (!info.constant_time && !reference && !cfg.all)
				continue;
			fb_options o = { FB_PAD_NONE, info.constant_time ? (unsigned)FB_FLAG_CONSTANT_TIME : 0u,
					 info.name };
			rc = run_row(fam, cip, info.name, &o);
		}
	}
	FILE *sum = json_out == stdout ? stderr : stdout; /* keep JSON on stdout clean */
	if (json_out) {
		fprintf(json_out, "\n]}\n");
		if (json_out != stdout)
			fclose(json_out);
	}
	fprintf(sum, "ct_dudect: %d tests, %d with max|t| > %.2f, %d rows refused here; leaking controls missed: %d\n",
	       n_rows, n_over, cfg.threshold, n_refused, missed);
	fprintf(sum, "ct_dudect: largest |t|: constant-time rows %.2f, des/table (not constant-time) %.2f (neither asserted)\n",
	       max_t_ct, max_t_ref);
	fb_ctx_free(ctx);
	if (rc)
		return rc;
	return missed ? 1 : 0;
}
