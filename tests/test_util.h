/*
 * test_util.h - small helpers shared by the fastblock test programs:
 * a seeded PRNG (reproducible with FB_TEST_SEED), failure counting with a
 * cap on printed messages, hex printing, canary fills.
 *
 * Header-only (static functions) so both the C tests and the C++ test can
 * include it without a separate object file.
 */
#ifndef FB_TEST_UTIL_H
#define FB_TEST_UTIL_H

/* clock_gettime under strict -std=c11; include this header first. */
#if !defined(_POSIX_C_SOURCE) && !defined(__cplusplus)
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Results ------------------------------------------------------------ */

/* Skips grouped by reason, so a run ends with one line that says what it
 * did not test and why ("skipped: 12 x implementation not on this CPU").
 * Reasons are string literals; more than TU_REASONS distinct ones share
 * the last slot. */
#define TU_REASONS 8
typedef struct tu_skips {
	const char *reason[TU_REASONS];
	unsigned long count[TU_REASONS];
} tu_skips;

static inline void tu_skips_add(tu_skips *s, const char *reason)
{
	int i = 0;
	while (i < TU_REASONS - 1 && s->reason[i] && strcmp(s->reason[i], reason))
		i++;
	if (!s->reason[i])
		s->reason[i] = reason;
	else if (strcmp(s->reason[i], reason))
		s->reason[i] = "other reasons";
	s->count[i]++;
}

/* The one closing line about skips: "skipped: none" or the reasons. */
static inline void tu_skips_print(const tu_skips *s, const char *prog)
{
	printf("%s: skipped:", prog);
	if (!s->reason[0])
		printf(" none");
	for (int i = 0; i < TU_REASONS && s->reason[i]; i++)
		printf("%s %lu x %s", i ? ";" : "", s->count[i], s->reason[i]);
	putchar('\n');
}

typedef struct tu_stats {
	unsigned long checks;   /* comparisons made */
	unsigned long failures; /* comparisons that failed */
	unsigned long skips;    /* things not testable here (printed once each) */
	unsigned long printed; /* failure messages printed so far */
	uint64_t seed;
	tu_skips why;           /* skips by reason */
} tu_stats;

/* Counts one skip under its reason (a string literal). */
static inline void tu_skip(tu_stats *st, const char *reason)
{
	st->skips++;
	tu_skips_add(&st->why, reason);
}

/* Failures beyond this many are counted, not printed. */
#define TU_MAX_PRINTED 40

static inline void tu_fail(tu_stats *st, const char *fmt, ...)
{
	va_list ap;
	st->failures++;
	if (st->printed++ >= TU_MAX_PRINTED)
		return;
	fputs("FAIL ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (st->printed == TU_MAX_PRINTED)
		puts("(further failures are counted, not printed)");
	fflush(stdout);
}

/* Checks cond; on failure prints the message. Returns cond. */
static inline int tu_check(tu_stats *st, int cond, const char *fmt, ...)
{
	va_list ap;
	st->checks++;
	if (cond)
		return 1;
	st->failures++;
	if (st->printed++ >= TU_MAX_PRINTED)
		return 0;
	fputs("FAIL ", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (st->printed == TU_MAX_PRINTED)
		puts("(further failures are counted, not printed)");
	fflush(stdout);
	return 0;
}

/* Prints the summary line and returns the process exit code. */
static inline int tu_finish(const tu_stats *st, const char *prog, double seconds)
{
	tu_skips_print(&st->why, prog);
	printf("%s: %lu checks, %lu failures, %lu skipped, %.1f s", prog, st->checks,
	       st->failures, st->skips, seconds);
	if (st->seed)
		printf(" (seed %llu)", (unsigned long long)st->seed);
	putchar('\n');
	if (st->failures && st->seed)
		printf("%s: reproduce with FB_TEST_SEED=%llu\n", prog,
		       (unsigned long long)st->seed);
	return st->failures ? 1 : 0;
}

static inline double tu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- PRNG (splitmix64; not cryptographic, only reproducible) ------------- */

typedef struct tu_rng {
	uint64_t s;
} tu_rng;

static inline uint64_t tu_next(tu_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0); the bias is irrelevant for tests. */
static inline size_t tu_below(tu_rng *r, size_t n)
{
	return (size_t)(tu_next(r) % n);
}

static inline void tu_fill(tu_rng *r, uint8_t *p, size_t n)
{
	while (n) {
		uint64_t v = tu_next(r);
		size_t k = n < 8 ? n : 8;
		memcpy(p, &v, k);
		p += k;
		n -= k;
	}
}

/* The seed: FB_TEST_SEED if set, else the clock (printed, so any failure
 * can be replayed). */
static inline uint64_t tu_seed(void)
{
	const char *e = getenv("FB_TEST_SEED");
	struct timespec ts;
	if (e && *e)
		return strtoull(e, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
}

/* ---- Buffers -------------------------------------------------------------- */

#define TU_CANARY 0xA5

static inline void tu_canary(uint8_t *p, size_t n)
{
	memset(p, TU_CANARY, n);
}

/* 1 if all n bytes still hold the canary. */
static inline int tu_canary_intact(const uint8_t *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (p[i] != TU_CANARY)
			return 0;
	return 1;
}

/* Index of the first difference, or n if equal. */
static inline size_t tu_first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

/* Hex of up to 64 bytes into buf (cap >= 2 * 64 + 4). */
static inline const char *tu_hex(char *buf, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, m = n > 64 ? 64 : n;
	for (i = 0; i < m; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 15];
	}
	if (m < n) {
		memcpy(buf + 2 * m, "...", 4);
	} else {
		buf[2 * m] = 0;
	}
	return buf;
}

/* ---- Differential driver (define TU_DIFF_DRIVER before including) -------
 *
 * Runs one fastblock cipher, forced to one implementation, against a
 * reference library's encryption function over many lengths, both
 * directions, one-shot and streamed, in place and not. The reference only
 * has to encrypt a whole message under the job's padding.
 */
#ifdef TU_DIFF_DRIVER
#include "fastblock.h"

#define TU_MAX_MSG (72 * 1024)
#define TU_GUARD 64
#define TU_BUF_SIZE (TU_MAX_MSG + 2 * 16 + 16 + TU_GUARD)
#define TU_MAX_PIECES 12
#define TU_WIDE_BATCH 128

typedef struct tu_params {
	size_t split_all;     /* every split into two for lengths <= this */
	size_t split_edge;    /* ... and up to this for lengths at a block edge */
	size_t dense;         /* every length 0..dense is tested */
	size_t n_random;      /* random lengths per cipher and implementation */
	size_t max_random;    /* largest random length */
	size_t random_splits; /* random multi-piece splits per long message */
} tu_params;

typedef struct tu_job tu_job;

/* Encrypts in[0..len) under j->klen bytes of key, the IV and j->opt.padding
 * (FB_PAD_DEFAULT meaning PKCS#7 for ECB/CBC). Returns the output length,
 * or -1 if the reference refuses. */
typedef long (*tu_ref_fn)(const tu_job *j, const uint8_t *key, const uint8_t *iv,
			  const uint8_t *in, size_t len, uint8_t *out);

/* One cipher name forced to one implementation, with its reference. */
struct tu_job {
	const fb_cipher *c;
	const char *name;
	enum fb_mode mode;
	size_t bs, klen, ivlen;
	const char *impl;
	unsigned batch;
	fb_options opt;
	tu_ref_fn ref;
	const void *ref_data;
};

/* One message with its reference ciphertext. */
typedef struct tu_msg {
	uint8_t key[512], iv[16]; /* XTS: two keys of up to 255 bytes (RC6) */
	uint8_t *pt, *ct;
	size_t ptlen, ctlen;
} tu_msg;

typedef struct tu_world {
	tu_stats st;
	tu_rng rng;
	const tu_params *p;
	/* For kernels whose every call costs a whole wide batch (batch >=
	 * TU_WIDE_BATCH, e.g. 512-lane bitsliced DES) the per-byte serial
	 * modes cost a batch per block (per byte for CFB8): lighter
	 * parameters keep the run time in bounds. NULL: no change. */
	const tu_params *wide, *wide_cfb8;
	const char *only; /* FB_TEST_ONLY: run only names or impls containing it */
	fb_ctx *ctx;      /* the context of the current job: exactly its fb_ctx_size bytes */
	void *ctx_mem;
	size_t ctx_size;
	fb_ctx *big;      /* fb_ctx_new's: for options fb_ctx_size cannot serve */
	uint8_t *a, *b, *tmp, *pt, *ct;
	unsigned long streams; /* stream checks so far (tu_decoy_key) */
} tu_world;

/* Points w->ctx at a context of exactly the size fb_ctx_size reports for
 * this cipher, direction and options, in its own allocation, so that
 * AddressSanitizer sees any byte the library touches past it. */
static fb_ctx *tu_ctx_for(tu_world *w, const fb_cipher *c, enum fb_direction dir,
			  const fb_options *opt)
{
	size_t need = fb_ctx_size(c, dir, opt);
	if (!need)
		return w->ctx = w->big; /* fb_init names the refusal */
	if (need != w->ctx_size) {
		free(w->ctx_mem);
		w->ctx_mem = NULL;
		w->ctx_size = 0;
		if (posix_memalign(&w->ctx_mem, FB_CTX_ALIGN, need))
			return w->ctx = w->big;
		w->ctx_size = need;
	}
	w->ctx = fb_ctx_place(w->ctx_mem, w->ctx_size);
	return w->ctx ? w->ctx : (w->ctx = w->big);
}

static int tu_world_init(tu_world *w, const tu_params *p)
{
	memset(w, 0, sizeof *w);
	w->p = p;
	w->only = getenv("FB_TEST_ONLY");
	if (w->only && !*w->only)
		w->only = NULL;
	w->st.seed = tu_seed();
	w->rng.s = w->st.seed;
	w->ctx = w->big = fb_ctx_new();
	w->a = (uint8_t *)malloc(TU_BUF_SIZE);
	w->b = (uint8_t *)malloc(TU_BUF_SIZE);
	w->tmp = (uint8_t *)malloc(TU_BUF_SIZE);
	w->pt = (uint8_t *)malloc(TU_BUF_SIZE);
	w->ct = (uint8_t *)malloc(TU_BUF_SIZE);
	return w->ctx && w->a && w->b && w->tmp && w->pt && w->ct;
}

static void tu_world_free(tu_world *w)
{
	if (w->ctx_mem)
		fb_ctx_wipe(fb_ctx_place(w->ctx_mem, w->ctx_size));
	free(w->ctx_mem);
	fb_ctx_free(w->big);
	free(w->a);
	free(w->b);
	free(w->tmp);
	free(w->pt);
	free(w->ct);
}

static const char *tu_pad_name(enum fb_padding p)
{
	switch (p) {
	case FB_PAD_DEFAULT: return "default";
	case FB_PAD_NONE: return "none";
	case FB_PAD_PKCS7: return "pkcs7";
	case FB_PAD_ISO9797_M2: return "iso9797-m2";
	}
	return "?";
}

static int tu_padded_mode(enum fb_mode m)
{
	return m == FB_ECB || m == FB_CBC;
}

static void tu_describe(char *d, size_t cap, const tu_job *j, const char *what, int enc,
			size_t len)
{
	snprintf(d, cap, "%s impl=%s key=%zuB pad=%s %s %s len=%zu", j->name, j->impl, j->klen,
		 tu_pad_name(j->opt.padding), enc ? "enc" : "dec", what, len);
}

/* Compares got/gotlen with want/wantlen, reporting the first difference. */
static void tu_expect_bytes(tu_world *w, const char *d, const uint8_t *got, size_t gotlen,
			    const uint8_t *want, size_t wantlen)
{
	char h1[140], h2[140];
	size_t i, from;
	if (!tu_check(&w->st, gotlen == wantlen, "%s: output length %zu, expected %zu", d,
		      gotlen, wantlen))
		return;
	i = tu_first_diff(got, want, gotlen);
	from = i & ~(size_t)15;
	tu_check(&w->st, i == gotlen, "%s: first difference at byte %zu\n  got  [%zu..] %s\n"
		 "  want [%zu..] %s", d, i, from, tu_hex(h1, got + from, gotlen - from), from,
		 tu_hex(h2, want + from, wantlen - from));
}

/* One-shot call, in place or not, at random alignments. */
static void tu_check_oneshot(tu_world *w, const tu_job *j, const tu_msg *m, int enc,
			     int inplace)
{
	const uint8_t *src = enc ? m->pt : m->ct, *want = enc ? m->ct : m->pt;
	size_t srclen = enc ? m->ptlen : m->ctlen, wantlen = enc ? m->ctlen : m->ptlen;
	enum fb_direction dir = enc ? FB_ENCRYPT : FB_DECRYPT;
	size_t cap = fb_output_bound(j->c, dir, srclen), outlen = 0, span;
	size_t off_in = tu_below(&w->rng, 16), off_out = tu_below(&w->rng, 16);
	uint8_t *in = w->a + off_in, *out = inplace ? in : w->b + off_out;
	const uint8_t *iv = j->ivlen ? m->iv : NULL;
	char d[240];
	int rc;

	tu_describe(d, sizeof d, j, inplace ? "one-shot in-place" : "one-shot", enc, srclen);
	if (!tu_check(&w->st, cap >= wantlen && cap <= srclen + 2 * j->bs,
		      "%s: fb_output_bound %zu, output is %zu", d, cap, wantlen))
		return;
	/* Canary over everything the call may touch (stale bytes from an
	 * earlier run must not pass for output). */
	tu_canary(w->a, 16 + (srclen > cap ? srclen : cap) + TU_GUARD);
	tu_canary(w->b, 16 + cap + TU_GUARD);
	memcpy(in, src, srclen);
	rc = enc ? fb_encrypt(j->c, m->key, j->klen, iv, j->ivlen, in, srclen, out, cap, &outlen,
			      &j->opt)
		 : fb_decrypt(j->c, m->key, j->klen, iv, j->ivlen, in, srclen, out, cap, &outlen,
			      &j->opt);
	if (!tu_check(&w->st, rc == FB_OK, "%s: returned %d (%s)", d, rc, fb_strerror(rc)))
		return;
	tu_expect_bytes(w, d, out, outlen, want, wantlen);
	span = inplace ? (srclen > cap ? srclen : cap) : cap;
	tu_check(&w->st, tu_canary_intact(out + span, TU_GUARD), "%s: wrote past out_cap", d);
	if (!inplace)
		tu_check(&w->st, memcmp(in, src, srclen) == 0, "%s: input modified", d);
}

/* Streams src through update calls cut at cuts[0..ncuts-1] (ascending
 * offsets), then final. Each update gets exactly the documented bound
 * (piece + block) as out_cap, final two blocks. In place: each piece is
 * copied to a scratch buffer and processed there with out == in.
 * Returns FB_OK or the first error (where says which call). */
/* One stream check in four first keys the context with another key and
 * runs 8 KB through it, so the real fb_init re-keys a ready context of
 * the same plan in place (src/api.c's rekey), after the first use built
 * the wide kernels' schedules under the other key: a schedule kept from
 * it would show as wrong output. */
static void tu_decoy_key(tu_world *w, fb_ctx *ctx, const tu_job *j, enum fb_direction dir)
{
	static uint8_t in[8192], out[8192 + 32];
	uint8_t key[256], iv[16] = { 0 };
	size_t n;
	for (size_t i = 0; i < j->klen && i < sizeof key; i++)
		key[i] = (uint8_t)(0xa5 ^ (i * 29) ^ w->streams);
	if (j->klen > sizeof key ||
	    fb_init(ctx, j->c, dir, key, j->klen, j->ivlen ? iv : NULL, j->ivlen, &j->opt) != FB_OK)
		return; /* a weak key under strict checks: the real fb_init sets up afresh */
	/* A context with one kernel (forced, or a serial chain) has one
	 * schedule, built by fb_init: a few blocks show its re-keying. */
	int one = !strcmp(fb_ctx_impl(ctx), fb_ctx_serial_impl(ctx));
	(void)fb_update(ctx, out, sizeof out, &n, in, one ? 64 : sizeof in);
}

static int tu_run_stream(tu_world *w, const tu_job *j, const tu_msg *m, int enc,
			 const uint8_t *src, size_t srclen, const size_t *cuts, size_t ncuts,
			 int inplace, uint8_t *out, size_t *outlen, char *where, size_t wcap)
{
	size_t pos = 0, total = 0, k, n;
	enum fb_direction dir = enc ? FB_ENCRYPT : FB_DECRYPT;
	fb_ctx *ctx = tu_ctx_for(w, j->c, dir, &j->opt);
	if (++w->streams % 4 == 1)
		tu_decoy_key(w, ctx, j, dir);
	int rc = fb_init(ctx, j->c, dir, m->key, j->klen, j->ivlen ? m->iv : NULL, j->ivlen, &j->opt);
	if (rc != FB_OK) {
		snprintf(where, wcap, "fb_init");
		return rc;
	}
	for (k = 0; k <= ncuts; k++) {
		size_t end = k < ncuts ? cuts[k] : srclen, piece = end - pos;
		size_t cap = piece + j->bs;
		n = (size_t)-1;
		if (inplace) {
			tu_canary(w->tmp, cap + TU_GUARD);
			memcpy(w->tmp, src + pos, piece);
			rc = fb_update(w->ctx, w->tmp, cap, &n, w->tmp, piece);
		} else {
			rc = fb_update(w->ctx, out + total, cap, &n, src + pos, piece);
		}
		if (rc != FB_OK || n > cap) {
			snprintf(where, wcap, "update %zu (bytes %zu..%zu, out_len %zu)", k, pos,
				 end, n);
			return rc != FB_OK ? rc : FB_ERR_OUTPUT_SPACE;
		}
		if (inplace) {
			if (!tu_canary_intact(w->tmp + cap, TU_GUARD)) {
				snprintf(where, wcap, "update %zu wrote past out_cap", k);
				return FB_ERR_OUTPUT_SPACE;
			}
			memcpy(out + total, w->tmp, n);
		}
		total += n;
		pos = end;
	}
	tu_canary(w->tmp, 2 * j->bs + TU_GUARD);
	n = (size_t)-1;
	rc = fb_final(w->ctx, w->tmp, 2 * j->bs, &n);
	if (rc != FB_OK || n > 2 * j->bs || !tu_canary_intact(w->tmp + 2 * j->bs, TU_GUARD)) {
		snprintf(where, wcap, "final (out_len %zu)", n);
		return rc != FB_OK ? rc : FB_ERR_OUTPUT_SPACE;
	}
	memcpy(out + total, w->tmp, n);
	*outlen = total + n;
	return FB_OK;
}

static void tu_check_stream(tu_world *w, const tu_job *j, const tu_msg *m, int enc,
			    const size_t *cuts, size_t ncuts, int inplace)
{
	const uint8_t *src = enc ? m->pt : m->ct, *want = enc ? m->ct : m->pt;
	size_t srclen = enc ? m->ptlen : m->ctlen, wantlen = enc ? m->ctlen : m->ptlen;
	size_t outlen = 0, k, dl;
	char d[400], where[120];
	int rc;

	tu_describe(d, sizeof d, j, inplace ? "stream in-place" : "stream", enc, srclen);
	dl = strlen(d);
	dl += (size_t)snprintf(d + dl, sizeof d - dl, " cuts=");
	for (k = 0; k < ncuts && dl < sizeof d - 12; k++)
		dl += (size_t)snprintf(d + dl, sizeof d - dl, "%s%zu", k ? "," : "", cuts[k]);
	tu_canary(w->b, srclen + 2 * j->bs + TU_GUARD);
	rc = tu_run_stream(w, j, m, enc, src, srclen, cuts, ncuts, inplace, w->b, &outlen,
			   where, sizeof where);
	if (!tu_check(&w->st, rc == FB_OK, "%s: %s returned %d (%s)", d, where, rc,
		      fb_strerror(rc)))
		return;
	tu_expect_bytes(w, d, w->b, outlen, want, wantlen);
}

/* Random ascending cut points (repeats allowed: empty updates). */
static size_t tu_random_cuts(tu_world *w, size_t len, size_t *cuts)
{
	size_t n = 1 + tu_below(&w->rng, TU_MAX_PIECES - 1), i, k;
	for (i = 0; i < n; i++)
		cuts[i] = tu_below(&w->rng, len + 1);
	for (i = 1; i < n; i++) /* insertion sort */
		for (k = i; k > 0 && cuts[k - 1] > cuts[k]; k--) {
			size_t t = cuts[k];
			cuts[k] = cuts[k - 1];
			cuts[k - 1] = t;
		}
	return n;
}

static void tu_random_key_iv(tu_world *w, const tu_job *j, tu_msg *m)
{
	tu_fill(&w->rng, m->key, j->klen);
	if (j->mode == FB_XTS && j->klen >= 2) /* OpenSSL refuses equal halves */
		while (memcmp(m->key, m->key + j->klen / 2, j->klen / 2) == 0)
			tu_fill(&w->rng, m->key, j->klen);
	tu_fill(&w->rng, m->iv, sizeof m->iv);
	if (j->mode == FB_CTR) {
		/* Counters near the wrap of the low 32 bits (fused ctr32 kernels
		 * must be split there) or of the whole block. */
		size_t r = tu_below(&w->rng, 8), i;
		if (r < 2)
			memset(m->iv + j->bs - 4, 0xff, 4);
		else if (r == 2)
			memset(m->iv, 0xff, j->bs);
		if (r <= 2)
			m->iv[j->bs - 1] = (uint8_t)(0xff - tu_below(&w->rng, 40));
		if (r == 3)
			for (i = j->bs - 4; i < j->bs; i++)
				m->iv[i] = 0;
	}
}

/* A length the mode cannot take: fastblock must refuse it, writing nothing. */
static int tu_length_invalid(const tu_job *j, size_t len)
{
	if (j->mode == FB_XTS)
		return len < 16;
	return tu_padded_mode(j->mode) && j->opt.padding == FB_PAD_NONE && len % j->bs;
}

static void tu_check_refused_length(tu_world *w, const tu_job *j, const tu_msg *m)
{
	size_t outlen = 0, cap = m->ptlen + 2 * j->bs;
	int rc;
	tu_canary(w->b, cap);
	rc = fb_encrypt(j->c, m->key, j->klen, j->ivlen ? m->iv : NULL, j->ivlen, m->pt,
			m->ptlen, w->b, cap, &outlen, &j->opt);
	tu_check(&w->st, rc == FB_ERR_DATA_LENGTH && tu_canary_intact(w->b, cap),
		 "%s impl=%s pad=%s len=%zu: expected FB_ERR_DATA_LENGTH (-4), got %d", j->name,
		 j->impl, tu_pad_name(j->opt.padding), m->ptlen, rc);
}

/* All checks for one message length under one job. */
static void tu_check_length(tu_world *w, const tu_job *j, size_t len, int all_splits,
			    size_t nrand)
{
	tu_msg m;
	size_t cuts[TU_MAX_PIECES], s, k;
	long n;
	int enc;

	memset(&m, 0, sizeof m);
	m.pt = w->pt;
	m.ct = w->ct;
	m.ptlen = len;
	tu_random_key_iv(w, j, &m);
	tu_fill(&w->rng, m.pt, len);
	if (tu_length_invalid(j, len)) {
		if (len > 0)
			tu_check_refused_length(w, j, &m);
		return;
	}
	n = j->ref(j, m.key, m.iv, m.pt, len, m.ct);
	if (!tu_check(&w->st, n >= 0, "%s key=%zuB pad=%s: the reference refused len %zu",
		      j->name, j->klen, tu_pad_name(j->opt.padding), len))
		return;
	m.ctlen = (size_t)n;
	for (enc = 1; enc >= 0; enc--) {
		size_t srclen = enc ? m.ptlen : m.ctlen;
		tu_check_oneshot(w, j, &m, enc, 0);
		tu_check_oneshot(w, j, &m, enc, 1);
		if (all_splits)
			for (s = 0; s <= srclen; s++) {
				cuts[0] = s;
				tu_check_stream(w, j, &m, enc, cuts, 1, (int)(s & 1));
			}
		for (k = 0; k < nrand; k++) {
			size_t nc = tu_random_cuts(w, srclen, cuts);
			tu_check_stream(w, j, &m, enc, cuts, nc, (int)(k & 1));
		}
	}
}

/* Lengths straddling the kernel's natural batch (wide kernels finish tails
 * with narrower paths). */
static size_t tu_batch_lengths(const tu_job *j, size_t *out)
{
	size_t n = 0, b = (size_t)j->batch * j->bs, i;
	size_t cand[6];
	if (j->batch <= 1)
		return 0;
	cand[0] = b - j->bs;
	cand[1] = b;
	cand[2] = b + j->bs + 3;
	cand[3] = 2 * b + 5;
	cand[4] = 3 * b - 1;
	cand[5] = b + 1;
	for (i = 0; i < 6; i++)
		if (cand[i] <= TU_MAX_MSG - 64)
			out[n++] = cand[i];
	return n;
}

/* Every split point for short lengths, and for longer ones at block edges
 * (a multiple of the block, one more or one less), where the buffering of
 * streamed padding and ciphertext stealing changes. */
static int tu_split_all(const tu_params *p, const tu_job *j, size_t len)
{
	size_t r = len % j->bs;
	if (len <= p->split_all)
		return 1;
	return len <= p->split_edge && (r == 0 || r == 1 || r == j->bs - 1 || len == p->split_edge);
}

/* The whole programme for one job: every padding the mode has. The default
 * padding and "none" get every split of short messages; the others
 * one-shot and random splits. Returns the number of failures. */
static unsigned long tu_run_job(tu_world *w, tu_job *j)
{
	static const enum fb_padding padded[] = { FB_PAD_DEFAULT, FB_PAD_NONE, FB_PAD_PKCS7,
						  FB_PAD_ISO9797_M2 };
	static const enum fb_padding unpadded[] = { FB_PAD_DEFAULT, FB_PAD_NONE };
	const enum fb_padding *pads = tu_padded_mode(j->mode) ? padded : unpadded;
	size_t npads = tu_padded_mode(j->mode) ? 4 : 2, pi, len, k, extra[8], nextra;
	unsigned long fails = w->st.failures, checks = w->st.checks;
	double t0 = tu_now();
	const tu_params *saved = w->p;

	if (j->batch >= TU_WIDE_BATCH && w->wide) {
		const tu_params *q = j->mode == FB_CFB8 && w->wide_cfb8 ? w->wide_cfb8 : w->wide;
		if (q->split_edge < w->p->split_edge) /* only ever lighter */
			w->p = q;
	}

	for (pi = 0; pi < npads; pi++) {
		int heavy = pads[pi] == FB_PAD_DEFAULT ||
			    (pads[pi] == FB_PAD_NONE && tu_padded_mode(j->mode));
		size_t nrandom = heavy ? w->p->n_random : w->p->n_random / 4;
		j->opt.padding = pads[pi];
		for (len = 0; len <= w->p->dense; len++)
			tu_check_length(w, j, len, heavy && tu_split_all(w->p, j, len), heavy ? 1 : 2);
		for (k = 0; k < nrandom; k++) {
			len = w->p->dense + 1 + tu_below(&w->rng, w->p->max_random - w->p->dense);
			if (pads[pi] == FB_PAD_NONE && k % 2 == 0)
				len -= len % j->bs; /* mostly valid lengths */
			tu_check_length(w, j, len, 0, w->p->random_splits);
		}
		nextra = heavy ? tu_batch_lengths(j, extra) : 0;
		for (k = 0; k < nextra; k++) {
			len = extra[k];
			if (pads[pi] == FB_PAD_NONE)
				len -= len % j->bs;
			tu_check_length(w, j, len, 0, w->p->random_splits);
		}
	}
	j->opt.padding = FB_PAD_DEFAULT;
	w->p = saved;
	printf("%-22s %-22s key %3zu B %7lu checks %5.2f s %s\n", j->name, j->impl, j->klen,
	       w->st.checks - checks, tu_now() - t0, w->st.failures == fails ? "ok" : "FAILED");
	fflush(stdout);
	return w->st.failures - fails;
}

/* The forced implementation must really be the one used, for parallel and
 * serial work alike. Returns 0 if the job cannot run. */
static int tu_check_forced(tu_world *w, const tu_job *j)
{
	uint8_t key[512], iv[16]; /* XTS: two keys of up to 255 bytes (RC6) */
	const char *pi, *si;
	int rc;
	memset(key, 0x11, sizeof key);
	memset(iv, 0, sizeof iv);
	key[j->klen / 2] = 0x55; /* XTS halves differ */
	rc = fb_init(tu_ctx_for(w, j->c, FB_ENCRYPT, &j->opt), j->c, FB_ENCRYPT, key, j->klen,
		     j->ivlen ? iv : NULL, j->ivlen, &j->opt);
	if (!tu_check(&w->st, rc == FB_OK, "%s impl=%s key=%zuB: fb_init returned %d (%s)",
		      j->name, j->impl, j->klen, rc, fb_strerror(rc)))
		return 0;
	pi = fb_ctx_impl(w->ctx);
	si = fb_ctx_serial_impl(w->ctx);
	tu_check(&w->st, pi && strcmp(pi, j->impl) == 0,
		 "%s: forced impl %s but fb_ctx_impl says %s", j->name, j->impl, pi ? pi : "NULL");
	tu_check(&w->st, si && strcmp(si, j->impl) == 0,
		 "%s: forced impl %s but fb_ctx_serial_impl says %s", j->name, j->impl,
		 si ? si : "NULL");
	fb_ctx_wipe(w->ctx);
	return 1;
}

/* Fills a job from the cipher (key length: the name's). */
static void tu_job_init(tu_job *j, const fb_cipher *c, tu_ref_fn ref, const void *ref_data)
{
	memset(j, 0, sizeof *j);
	j->c = c;
	j->name = fb_cipher_name(c);
	j->mode = fb_cipher_mode(c);
	j->bs = fb_cipher_block_size(c);
	j->klen = fb_cipher_key_len(c);
	j->ivlen = fb_cipher_iv_len(c);
	j->ref = ref;
	j->ref_data = ref_data;
}

/* The batch of the kernel the default puts first for this job, so that
 * its lengths straddle it. */
static unsigned tu_default_batch(tu_world *w, const tu_job *j)
{
	uint8_t key[512] = { 0 }, iv[16] = { 0 };
	fb_impl_info info;
	key[j->klen / 2] = 1; /* XTS halves differ */
	if (fb_init(tu_ctx_for(w, j->c, FB_DECRYPT, &j->opt), j->c, FB_DECRYPT, key, j->klen,
		    j->ivlen ? iv : NULL, j->ivlen, &j->opt) != FB_OK)
		return 0;
	const char *name = fb_ctx_impl(w->ctx);
	unsigned batch = 0;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		if (!strcmp(info.name, name))
			batch = info.batch;
	fb_ctx_wipe(w->ctx);
	return batch;
}

/* Runs the job for every implementation of its family: the supported ones
 * forced in turn, a SKIP line for the others, then the default. */
static void tu_run_all_impls(tu_world *w, tu_job *j)
{
	fb_impl_info info;
	size_t i;
	for (i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		if (strcmp(info.family, fb_cipher_family(j->c)) != 0)
			continue;
		if (!info.supported) {
			printf("SKIP %s for %s: CPU lacks it (needs %s)\n", info.name, j->name,
			       info.cpu_needs);
			tu_skip(&w->st, "implementation not on this CPU");
			continue;
		}
		if (w->only && !strstr(j->name, w->only) && !strstr(info.name, w->only))
			continue;
		j->impl = info.name;
		j->batch = info.batch;
		j->opt.impl = info.name;
		j->opt.flags = 0;
		j->opt.padding = FB_PAD_DEFAULT;
		if (tu_check_forced(w, j))
			tu_run_job(w, j);
	}
	/* The default: the ladder of kernels the library picks, each rung's
	 * schedule built by the first run that reaches it. */
	if (w->only && !strstr(j->name, w->only) && !strstr("default", w->only))
		return;
	j->impl = "default";
	j->opt.impl = NULL;
	j->opt.flags = 0;
	j->opt.padding = FB_PAD_DEFAULT;
	j->batch = tu_default_batch(w, j);
	tu_run_job(w, j);
}
#endif /* TU_DIFF_DRIVER */

#endif
