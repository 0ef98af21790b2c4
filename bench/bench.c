/*
 * bench.c - `fastblock speed`: times every fastblock implementation of
 * every cipher and mode, and the peer libraries, in one process on the
 * same buffers (see bench.h for the usage, bench_timing.h for the method,
 * docs/benchmarks.md for results).
 *
 * What is timed:
 *  - fastblock: a streaming context is set up once (fb_init, FB_PAD_NONE),
 *    then one fb_update() over the buffer, in place, is one repetition; the
 *    stream continues from one repetition to the next (it is re-initialised
 *    untimed after 1 MB so no mode limit is reached). XTS is timed as one
 *    data unit a repetition (fb_message, tweak from the IV each time), as
 *    OpenSSL and Nettle run it: a streamed XTS update holds its last block
 *    back for ciphertext stealing, and in place must then slide the data
 *    down a block, a copy no peer's XTS makes. Every implementation
 *    of the family that this CPU runs is forced in turn (fb_options.impl),
 *    and "default" is the library's own choice.
 *  - fastblock multi: fb_multi_crypt over N independent CBC streams (DES
 *    family), the counterpart of ipsec-mb's multi-buffer job API.
 *  - peers: the adapter's crypt() over the same buffer, in place, stream
 *    continued (see bench_peer.h).
 *  - key setup: fb_init() for fastblock, each peer's own key setup.
 * Before a peer or a forced implementation is timed, its output on one
 * random buffer is compared with fastblock's default one-shot output; on
 * a difference a row with "status": "mismatch" is printed and nothing is
 * timed.
 *
 * JSON (--json): one array; each element has library, version, impl,
 * cipher, op, size (bytes per stream), streams, status ("ok", "mismatch",
 * "error", "capped"), mb_per_s, cycles_per_byte, cycles_per_block (minimum over the
 * repetitions of every round), the same three from the median (*_median: the
 * median of the best round; bench/rounds.h), cycles_per_block_rounds (each
 * round's median, in their order; with more than one round), samples (all rounds),
 * calls_per_sample,
 * key_setup_cycles and key_setup_cycles_median (null where not measured),
 * tsc_mhz, and for fastblock parallel_impl / serial_impl / constant_time.
 * All cycles are TSC ticks with the empty-call overhead subtracted.
 * With --check-only, rows carry the check's status and no figures.
 */
#define _GNU_SOURCE
#include "bench.h"
#include "bench_peer.h"
#include "bench_timing.h"
#include "json.h"
#include "rounds.h"

#include "fastblock.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>


_Static_assert(BM_ECB == (int)FB_ECB && BM_CBC == (int)FB_CBC && BM_CFB == (int)FB_CFB &&
		       BM_CFB8 == (int)FB_CFB8 && BM_OFB == (int)FB_OFB && BM_CTR == (int)FB_CTR &&
		       BM_XTS == (int)FB_XTS,
	       "bench_mode must mirror enum fb_mode");

#define MAX_LIST 256
#define CHECK_BYTES 1024       /* one-stream correctness buffer */
#define CHECK_STREAM_BYTES 256 /* per stream, multi-stream correctness */
#define MAX_STREAMS 512
#define STREAM_REFRESH (1u << 20)
#define KEY_ROTATION 4
/* Messages shorter than this are timed as a batch of calls on one stream
 * (bench_measure_calls), at most SHORT_CALLS calls. 8 KB of AES is ~1,800
 * TSC ticks on AES-NI; as one call, a 26-tick step of a Zen 5 VM's TSC
 * would be 1.4% of it, as four 0.4%. */
#define SHORT_BYTES 32768
#define SHORT_CALLS 256
/* Key setup is timed as batches of this many calls too: one setup is a few
 * TSC steps on some hosts (26 ticks a step on Zen 4 and Zen 5 VMs), too
 * coarse to compare with a peer's. An AES key setup is 35-50 ticks: in
 * batches of 8 the rows came in steps of 3.25 ticks, 7-9% of a row; of 32,
 * 0.8. */
#define KEY_CALLS 32

static const unsigned multi_streams[] = { 16, 32, 64, 128, 256, 512 };

typedef struct opts {
	const char *ciphers[MAX_LIST];
	size_t n_ciphers;
	const char *impl;
	size_t sizes[MAX_LIST];
	size_t n_sizes;
	int ops;  /* bit 0 encrypt, bit 1 decrypt */
	int peers;
	const char *peer_names[MAX_LIST];
	size_t n_peer_names;
	int json, info, quiet;
	int check_only; /* correctness checks only, nothing timed */
	int cache;      /* the table kernels warm and cold (cache.c), nothing else */
	int mac_batch;  /* the batch MAC and KCV study (batch_mac.c), nothing else */
	unsigned threads; /* one thread against this many (threads.c), nothing else */
	size_t mb;        /* message size for --threads, MB */
	double seconds;
	unsigned rounds; /* the whole list measured this many times over (rounds.h) */
	uint64_t seed;
} opts;

/* Everything a run shares: options, clock, output state, buffers. */
typedef struct bench {
	opts o;
	bench_clock clk;
	int rows_out;
	int failures;
	uint64_t rng;
	uint8_t *buf;     /* timed buffer: max size x MAX_STREAMS, 64-aligned */
	size_t buf_cap;
	fb_ctx *ctx;
	double secs;      /* a measurement's budget in this round: o.seconds / rounds */
	int gathering;    /* rows go to `rounds` until the last round ends */
	bench_rounds rounds;
} bench;

/* ---- small helpers ----------------------------------------------------------- */

/* Calls per timed repetition for messages of `bytes` (all streams). */
static size_t calls_for(size_t bytes)
{
	if (!bytes || bytes >= SHORT_BYTES)
		return 1;
	size_t c = (SHORT_BYTES + bytes - 1) / bytes;
	return c < SHORT_CALLS ? c : SHORT_CALLS;
}

/* Whether one call of `bytes` would run past the time cap, predicted from
 * a smaller size's median ticks per byte (0: nothing measured yet). */
static int past_cap(const bench *b, double ticks_per_byte, size_t bytes)
{
	return ticks_per_byte * (double)bytes > b->o.seconds * b->clk.tsc_hz * BENCH_CAP_FACTOR;
}

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: plenty for keys and data of a benchmark */
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void rng_fill(uint64_t *s, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t r = rng_next(s);
		size_t k = n - i < 8 ? n - i : 8;
		memcpy(p + i, &r, k);
	}
}

/* 1 if fb_multi_crypt serves the cipher's family (asked of the library:
 * an empty call checks the family and the mode only). */
static int has_multi(const fb_cipher *c)
{
	return fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 0, NULL, NULL, NULL, NULL, NULL, NULL) == FB_OK;
}

static bench_alg alg_of(const fb_cipher *c)
{
	bench_alg a;
	a.name = fb_cipher_name(c);
	a.family = fb_cipher_family(c);
	a.mode = (int)fb_cipher_mode(c);
	a.key_len = fb_cipher_key_len(c);
	a.block = fb_cipher_block_size(c);
	a.iv_len = fb_cipher_iv_len(c);
	return a;
}

/* ---- output ---------------------------------------------------------------------- */

/* Speed figures from a tick count for bytes bytes. */
static void figures(const bench *b, const row *r, double ticks, double *mbs, double *cpb, double *cpblk)
{
	double bytes = (double)r->size * r->streams;
	*cpb = ticks / bytes;
	*cpblk = *cpb * (double)r->block;
	*mbs = ticks > 0 ? bytes / (ticks / b->clk.tsc_hz) / 1e6 : 0;
}

static void print_json_row(bench *b, const row *r)
{
	double mbs = 0, cpb = 0, cpblk = 0, mbs_m = 0, cpb_m = 0, cpblk_m = 0;
	int ok = r->timed && r->st.min > 0;
	if (r->timed) {
		figures(b, r, r->st.min, &mbs, &cpb, &cpblk);
		figures(b, r, r->st.median, &mbs_m, &cpb_m, &cpblk_m);
	}
	fputs(b->rows_out ? ",\n{" : "{", stdout);
	fputs("\"library\": ", stdout); json_str(r->library);
	fputs(", \"version\": ", stdout); json_str(r->version);
	fputs(", \"impl\": ", stdout); json_str(r->impl);
	fputs(", \"cipher\": ", stdout); json_str(r->cipher);
	fputs(", \"op\": ", stdout); json_str(r->op);
	fputs(", \"size\": ", stdout); json_num((double)r->size, r->size > 0);
	printf(", \"streams\": %u", r->streams);
	fputs(", \"status\": ", stdout); json_str(r->status);
	if (r->error) {
		fputs(", \"error\": ", stdout);
		json_str(r->error);
	}
	fputs(", \"mb_per_s\": ", stdout); json_num(mbs, ok);
	fputs(", \"cycles_per_byte\": ", stdout); json_num(cpb, r->timed);
	fputs(", \"cycles_per_block\": ", stdout); json_num(cpblk, r->timed);
	fputs(", \"mb_per_s_median\": ", stdout); json_num(mbs_m, r->timed && r->st.median > 0);
	fputs(", \"cycles_per_byte_median\": ", stdout); json_num(cpb_m, r->timed);
	fputs(", \"cycles_per_block_median\": ", stdout); json_num(cpblk_m, r->timed);
	fputs(", \"samples\": ", stdout); json_num((double)r->st.samples, r->timed);
	fputs(", \"calls_per_sample\": ", stdout); json_num((double)r->st.calls, r->timed);
	if (r->timed && r->n_rounds > 1) { /* each round's median, in the rounds' order */
		fputs(", \"cycles_per_block_rounds\": [", stdout);
		for (unsigned i = 0; i < r->n_rounds; i++) {
			double mbs_r, cpb_r, cpblk_r;
			figures(b, r, r->round_medians[i], &mbs_r, &cpb_r, &cpblk_r);
			printf("%s%.4g", i ? ", " : "", cpblk_r);
		}
		putchar(']');
	}
	fputs(", \"key_setup_cycles\": ", stdout); json_num(r->ks.min, r->has_ks);
	fputs(", \"key_setup_cycles_median\": ", stdout); json_num(r->ks.median, r->has_ks);
	printf(", \"tsc_mhz\": %.1f", b->clk.tsc_hz / 1e6);
	if (r->parallel_impl) {
		fputs(", \"parallel_impl\": ", stdout); json_str(r->parallel_impl);
		fputs(", \"serial_impl\": ", stdout); json_str(r->serial_impl);
	}
	if (r->constant_time >= 0)
		printf(", \"constant_time\": %s", r->constant_time ? "true" : "false");
	putchar('}');
	fflush(stdout);
}

static void print_text_header(void)
{
	printf("%-20s %-7s %7s  %-10s %-8s %-34s %10s %9s %10s %10s\n", "cipher", "op", "size",
	       "library", "version", "impl", "MB/s", "ticks/B", "ticks/blk", "keysetup");
}

static void print_text_row(bench *b, const row *r)
{
	char impl[64];
	if (r->parallel_impl && !strncmp(r->impl, "default", 7))
		snprintf(impl, sizeof(impl), "%s=%s", r->impl, r->parallel_impl);
	else
		snprintf(impl, sizeof(impl), "%s", r->impl);
	char size[24];
	if (r->streams > 1)
		snprintf(size, sizeof(size), "%zux%u", r->size, r->streams);
	else
		snprintf(size, sizeof(size), "%zu", r->size);
	printf("%-20s %-7s %7s  %-10s %-8.8s %-34.34s ", r->cipher, r->op, r->size ? size : "-",
	       r->library, r->version, impl);
	if (r->timed) {
		double mbs, cpb, cpblk;
		figures(b, r, r->st.median, &mbs, &cpb, &cpblk);
		printf("%10.1f %9.2f %10.1f ", mbs, cpb, cpblk);
	} else {
		printf("%10s %9s %10s ", r->status, "", "");
	}
	if (r->has_ks)
		printf("%10.0f", r->ks.median);
	if (r->error)
		printf("  (%s)", r->error);
	putchar('\n');
	fflush(stdout);
}

/* Status of a timed row: error, capped (fewer repetitions than asked
 * before the time cap: a pathological implementation) or ok. */
static void timed_status(row *r, const char *error)
{
	r->error = error;
	r->status = error ? "error" : r->st.capped ? "capped" : "ok";
	if (!error && r->st.capped)
		r->error = "stopped at the time cap with fewer repetitions than asked";
}

static void print_row(bench *b, const row *r)
{
	if (!strcmp(r->status, "error") || !strcmp(r->status, "mismatch"))
		b->failures++;
	if (b->o.json)
		print_json_row(b, r);
	else
		print_text_row(b, r);
	b->rows_out++;
}

/* A row of this round: kept for the end of the last round (printed now
 * if there is no memory to keep it). */
static void emit(bench *b, const row *r)
{
	if (!b->gathering || rounds_add(&b->rounds, r))
		print_row(b, r);
}

/* Every row over all its rounds; a timed row's status from its merged
 * figures. */
static void print_gathered(bench *b)
{
	size_t n = rounds_finish(&b->rounds);
	for (size_t i = 0; i < n; i++) {
		row r = *rounds_row(&b->rounds, i);
		if (r.timed)
			timed_status(&r, NULL);
		print_row(b, &r);
	}
	rounds_clear(&b->rounds);
}

/* ---- fastblock, one stream ------------------------------------------------------- */

typedef struct fb_run {
	fb_ctx *ctx;
	const fb_cipher *c;
	enum fb_direction dir;
	const uint8_t *keys[KEY_ROTATION];
	const uint8_t *iv;
	fb_options opt;
	uint8_t *buf;
	size_t len, cap, stream_bytes;
	unsigned turn;
	int err;
	int per_message; /* XTS: one data unit a repetition (fb_message) */
} fb_run;

static int fb_run_init(fb_run *r, const uint8_t *key)
{
	size_t ivl = fb_cipher_iv_len(r->c);
	return fb_init(r->ctx, r->c, r->dir, key, fb_cipher_key_len(r->c), ivl ? r->iv : NULL, ivl,
		       &r->opt);
}

static void fb_run_update(void *p)
{
	fb_run *r = p;
	size_t outl = 0;
	int e = r->per_message
		? fb_message(r->ctx, r->iv, fb_cipher_iv_len(r->c), r->buf, r->len, r->buf, r->cap, &outl)
		: fb_update(r->ctx, r->buf, r->cap, &outl, r->buf, r->len);
	if (e && !r->err)
		r->err = e;
	r->stream_bytes += r->len;
}

static void fb_run_refresh(void *p)
{
	fb_run *r = p;
	if (r->stream_bytes >= STREAM_REFRESH) {
		if (fb_run_init(r, r->keys[0]) && !r->err)
			r->err = FB_ERR_STATE;
		r->stream_bytes = 0;
	}
}

/* Key setup as a short message sees it: fb_init, then one block, which
 * builds what fb_init leaves to the first run (a parallel mode's serial
 * rung: 3DES's table schedules). The block's own cost, a one-block
 * message on a keyed context (fb_run_block), is subtracted: a message,
 * not an update, so that CTR's keystream made ahead for a stream of short
 * updates neither shortens it nor counts as key setup. Not for XTS, whose
 * first block is held back for stealing. The peers are timed the same way
 * (measure_peer_keysetup). */
static int key_with_block(const fb_run *r)
{
	return fb_cipher_mode(r->c) != FB_XTS;
}

/* The unit a key setup is timed with: one block, or for CFB8 one byte
 * (one cipher call; sixteen serial calls would put their run-to-run
 * spread, ~100 ticks, into the difference). */
static size_t key_unit(int mode, size_t block)
{
	return mode == BM_CFB8 ? 1 : block;
}

static void fb_run_block(void *p)
{
	fb_run *r = p;
	size_t outl = 0, ivl = fb_cipher_iv_len(r->c);
	size_t unit = key_unit((int)fb_cipher_mode(r->c), fb_cipher_block_size(r->c));
	int e = fb_message(r->ctx, ivl ? r->iv : NULL, ivl, r->buf, unit, r->buf,
			   r->cap, &outl);
	if (e && !r->err)
		r->err = e;
}

static void fb_run_keysetup(void *p)
{
	fb_run *r = p;
	int e = fb_run_init(r, r->keys[r->turn++ % KEY_ROTATION]);
	if (e && !r->err)
		r->err = e;
	if (!e && key_with_block(r))
		fb_run_block(r);
}

static double minus_floor0(double a, double b)
{
	return a > b ? a - b : 0;
}

/* Key setup with a block, less the block alone. */
static void less_block(bench_stats *ks, const bench_stats *blk)
{
	ks->min = minus_floor0(ks->min, blk->min);
	ks->median = minus_floor0(ks->median, blk->median);
}

/* The output of the timed road over in, into out: init, then one update
 * and final, or for XTS one message. */
static int fb_run_check(fb_run *r, const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	size_t n1 = 0, n2 = 0;
	int e = fb_run_init(r, r->keys[0]);
	if (!e && r->per_message)
		e = fb_message(r->ctx, r->iv, fb_cipher_iv_len(r->c), in, len, out, cap, &n1);
	else if (!e)
		e = fb_update(r->ctx, out, cap, &n1, in, len);
	if (!e && !r->per_message)
		e = fb_final(r->ctx, out + n1, cap - n1, &n2);
	if (!e && n1 + n2 != len)
		e = FB_ERR_OUTPUT_SPACE;
	return e;
}

/* One-shot output of fastblock (impl NULL = default) for the check. */
static int fb_oneshot(const fb_cipher *c, enum fb_direction dir, const char *impl,
		      const uint8_t *key, const uint8_t *iv, const uint8_t *in, size_t len,
		      uint8_t *out, size_t cap)
{
	fb_options opt = { FB_PAD_NONE, 0, impl };
	size_t outl = 0, ivl = fb_cipher_iv_len(c);
	int e = (dir == FB_ENCRYPT ? fb_encrypt : fb_decrypt)(c, key, fb_cipher_key_len(c),
							      ivl ? iv : NULL, ivl, in, len, out,
							      cap, &outl, &opt);
	if (e == FB_OK && outl != len)
		e = FB_ERR_OUTPUT_SPACE;
	return e;
}

/* Shared inputs of one cipher+direction: keys, iv, check data and the
 * default output on it. */
typedef struct case_data {
	const fb_cipher *c;
	bench_alg alg;
	enum fb_direction dir;
	const char *op;
	uint8_t keys[KEY_ROTATION][64];
	uint8_t iv[16];
	uint8_t check_in[MAX_STREAMS * CHECK_STREAM_BYTES];
	uint8_t check_ref[MAX_STREAMS * CHECK_STREAM_BYTES];   /* default, one stream of CHECK_BYTES */
	uint8_t multi_ref[MAX_STREAMS * CHECK_STREAM_BYTES];   /* default, per 256-byte stream */
	uint8_t scratch[MAX_STREAMS * CHECK_STREAM_BYTES + 64];
	int ref_err, multi_ref_err;
	int is_multi; /* fb_multi_crypt serves it (and ipsec-mb is checked against that) */
} case_data;

static int size_ok(const bench_alg *a, size_t size)
{
	if (size == 0)
		return 0;
	if ((a->mode == BM_ECB || a->mode == BM_CBC || a->mode == BM_XTS) && size % a->block)
		return 0;
	return 1;
}

/* impl NULL: the library's own choice; with ct, under FB_FLAG_CONSTANT_TIME
 * (the fastest constant-time ladder, row "default-ct"). */
static void measure_fastblock_impl(bench *b, case_data *cd, const char *impl,
				   const fb_impl_info *info, int ct)
{
	row r = { 0 };
	r.library = "fastblock";
	r.version = FASTBLOCK_VERSION;
	r.impl = impl ? impl : ct ? "default-ct" : "default";
	r.cipher = cd->alg.name;
	r.op = cd->op;
	r.block = cd->alg.block;
	r.streams = 1;
	r.constant_time = info ? info->constant_time : ct ? 1 : -1;
	r.status = "ok";

	fb_run fr = { 0 };
	fr.ctx = b->ctx;
	fr.c = cd->c;
	fr.dir = cd->dir;
	for (int i = 0; i < KEY_ROTATION; i++)
		fr.keys[i] = cd->keys[i];
	fr.iv = cd->iv;
	fr.opt.padding = FB_PAD_NONE;
	fr.opt.impl = impl;
	fr.opt.flags = ct ? FB_FLAG_CONSTANT_TIME : 0;
	fr.buf = b->buf; /* the key setup's one-block updates; the sizes set len */
	fr.cap = b->buf_cap;
	fr.per_message = fb_cipher_mode(cd->c) == FB_XTS;

	int e = fb_run_init(&fr, fr.keys[0]);
	if (e == FB_ERR_IMPL_UNAVAILABLE || e == FB_ERR_NOT_CONSTANT_TIME)
		return; /* not for this CPU or cipher: nothing to say */
	if (e) {
		r.status = "error";
		r.error = fb_strerror(e);
		emit(b, &r);
		return;
	}
	r.parallel_impl = fb_ctx_impl(b->ctx);
	r.serial_impl = fb_ctx_serial_impl(b->ctx);

	/* The road that is timed (streaming or per message, this implementation) must give
	 * the default one-shot output that the peers are checked against. */
	int ce = fb_run_check(&fr, cd->check_in, CHECK_BYTES, cd->scratch, sizeof(cd->scratch));
	if (ce || cd->ref_err || memcmp(cd->scratch, cd->check_ref, CHECK_BYTES)) {
		r.status = ce || cd->ref_err ? "error" : "mismatch";
		r.error = ce ? fb_strerror(ce) : cd->ref_err ? fb_strerror(cd->ref_err)
			  : impl ? "output differs from the default implementation"
				 : "timed road's output differs from one-shot output";
		emit(b, &r);
		return;
	}
	if (b->o.check_only) {
		emit(b, &r);
		return;
	}

	bench_measure_calls(&b->clk, fb_run_keysetup, NULL, &fr, b->secs / 4, 200, 20000, KEY_CALLS,
			    &r.ks);
	if (key_with_block(&fr) && !fr.err) {
		bench_stats blk;
		fr.err = fb_run_init(&fr, fr.keys[0]);
		bench_measure_calls(&b->clk, fb_run_block, fb_run_refresh, &fr, b->secs / 8, 200, 20000, KEY_CALLS,
				    &blk);
		less_block(&r.ks, &blk);
	}
	r.has_ks = !fr.err;
	fr.err = 0;

	for (size_t si = 0; si < b->o.n_sizes; si++) {
		size_t size = b->o.sizes[si];
		if (!size_ok(&cd->alg, size))
			continue;
		fr.len = size;
		fr.cap = b->buf_cap;
		fr.buf = b->buf;
		fr.err = 0;
		fr.stream_bytes = 0;
		e = fb_run_init(&fr, fr.keys[0]);
		r.size = size;
		if (!e)
			bench_measure_calls(&b->clk, fb_run_update, fb_run_refresh, &fr, b->secs,
					    5, 1000000, calls_for(size), &r.st);
		e = e ? e : fr.err;
		r.timed = !e;
		timed_status(&r, e ? fb_strerror(e) : NULL);
		emit(b, &r);
		r.has_ks = 0; /* key setup reported on the first size only */
	}
}

/* ---- fastblock, many streams (fb_multi_crypt) ------------------------------------- */

typedef struct multi_run {
	const fb_cipher *c;
	enum fb_direction dir;
	size_t n;
	const uint8_t *keys[MAX_STREAMS];
	uint8_t *ivs[MAX_STREAMS];
	const uint8_t *in[MAX_STREAMS];
	uint8_t *out[MAX_STREAMS];
	size_t len[MAX_STREAMS];
	uint8_t iv_store[MAX_STREAMS][16];
	int err;
} multi_run;

static void multi_setup(multi_run *m, case_data *cd, unsigned n, uint8_t *buf, size_t len)
{
	m->c = cd->c;
	m->dir = cd->dir;
	m->n = n;
	m->err = 0;
	for (unsigned s = 0; s < n; s++) {
		m->keys[s] = cd->keys[0];
		memcpy(m->iv_store[s], cd->iv, 16);
		m->ivs[s] = m->iv_store[s];
		m->in[s] = buf + (size_t)s * len;
		m->out[s] = buf + (size_t)s * len;
		m->len[s] = len;
	}
}

static void multi_crypt(void *p)
{
	multi_run *m = p;
	int e = fb_multi_crypt(m->c, FB_CBC, m->dir, m->n, m->keys, m->ivs, m->in, m->out, m->len,
			       NULL);
	if (e && !m->err)
		m->err = e;
}

/* Per-stream reference for the multi-stream checks: the default output of
 * each CHECK_STREAM_BYTES stream, all with keys[0] and iv. */
static int multi_reference(case_data *cd)
{
	for (unsigned s = 0; s < MAX_STREAMS; s++) {
		size_t off = (size_t)s * CHECK_STREAM_BYTES;
		int e = fb_oneshot(cd->c, cd->dir, NULL, cd->keys[0], cd->iv, cd->check_in + off,
				   CHECK_STREAM_BYTES, cd->multi_ref + off, sizeof(cd->multi_ref) - off);
		if (e)
			return e;
	}
	return 0;
}

static void measure_fastblock_multi(bench *b, case_data *cd, unsigned n)
{
	static multi_run m; /* large; one run at a time */
	char label[32];
	snprintf(label, sizeof(label), "multi x%u", n);
	row r = { 0 };
	r.library = "fastblock";
	r.version = FASTBLOCK_VERSION;
	r.impl = label;
	r.cipher = cd->alg.name;
	r.op = cd->op;
	r.block = cd->alg.block;
	r.streams = n;
	r.constant_time = -1;
	r.status = "ok";

	memcpy(cd->scratch, cd->check_in, (size_t)n * CHECK_STREAM_BYTES);
	multi_setup(&m, cd, n, cd->scratch, CHECK_STREAM_BYTES);
	multi_crypt(&m);
	if (m.err == FB_ERR_UNKNOWN_CIPHER || m.err == FB_ERR_IMPL_UNAVAILABLE)
		return; /* multi-stream not offered for this cipher */
	if (m.err || cd->multi_ref_err ||
	    memcmp(cd->scratch, cd->multi_ref, (size_t)n * CHECK_STREAM_BYTES)) {
		r.status = m.err || cd->multi_ref_err ? "error" : "mismatch";
		r.error = m.err ? fb_strerror(m.err) : cd->multi_ref_err ? fb_strerror(cd->multi_ref_err)
			  : "a stream differs from the one-stream output";
		emit(b, &r);
		return;
	}
	if (b->o.check_only) {
		emit(b, &r);
		return;
	}
	for (size_t si = 0; si < b->o.n_sizes; si++) {
		size_t size = b->o.sizes[si];
		if (!size_ok(&cd->alg, size) || size * n > b->buf_cap)
			continue;
		multi_setup(&m, cd, n, b->buf, size);
		bench_measure_calls(&b->clk, multi_crypt, NULL, &m, b->secs, 5, 1000000,
				    calls_for(size * n), &r.st);
		r.size = size;
		r.timed = !m.err;
		timed_status(&r, m.err ? fb_strerror(m.err) : NULL);
		emit(b, &r);
	}
}

/* ---- peers ------------------------------------------------------------------------------ */

typedef struct peer_run {
	const bench_peer *p;
	void *h;
	const uint8_t *keys[KEY_ROTATION];
	const uint8_t *iv;
	uint8_t *buf;
	size_t len;
	unsigned turn;
	int err;
} peer_run;

static void peer_crypt(void *arg)
{
	peer_run *r = arg;
	if (r->p->crypt(r->h, r->buf, r->len) && !r->err)
		r->err = 1;
}

static void peer_keysetup(void *arg)
{
	peer_run *r = arg;
	if (r->p->setkey(r->h, r->keys[r->turn++ % KEY_ROTATION], r->iv) && !r->err)
		r->err = 1;
}

/* A peer's key setup as a short message sees it, as fastblock's is
 * (fb_run_keysetup): the new key and one block, less the block alone. */
static void peer_keysetup_block(void *arg)
{
	peer_keysetup(arg);
	peer_crypt(arg);
}

/* Times key setup on pr (buf: the scratch for its one block). XTS, and
 * the multi-stream peers, whose one call runs many streams: the key alone. */
static void measure_peer_keysetup(bench *b, const case_data *cd, peer_run *pr, bench_stats *ks)
{
	int with_block = cd->alg.mode != BM_XTS && pr->p->streams == 1;
	pr->len = key_unit(cd->alg.mode, cd->alg.block);
	bench_measure_calls(&b->clk, with_block ? peer_keysetup_block : peer_keysetup, NULL, pr, b->secs / 4,
			    200, 20000, KEY_CALLS, ks);
	if (!with_block || pr->err)
		return;
	bench_stats blk;
	bench_measure_calls(&b->clk, peer_crypt, NULL, pr, b->secs / 8, 200, 20000, KEY_CALLS, &blk);
	less_block(ks, &blk);
}

static int peer_selected(const bench *b, const bench_peer *p)
{
	if (!b->o.peers)
		return 0;
	if (!b->o.n_peer_names)
		return 1;
	for (size_t i = 0; i < b->o.n_peer_names; i++)
		if (!strcasecmp(b->o.peer_names[i], p->library))
			return 1;
	return 0;
}

static void measure_peer(bench *b, case_data *cd, const bench_peer *p)
{
	const int enc = cd->dir == FB_ENCRYPT;
	const char *impl = "";
	char label[64]; /* the adapter's label lives in its handle: copied */
	row r = { 0 };
	r.library = p->library;
	r.version = p->version();
	r.cipher = cd->alg.name;
	r.op = cd->op;
	r.block = cd->alg.block;
	r.streams = p->streams;
	r.constant_time = -1;
	r.status = "ok";

	/* The check: a fresh handle over one buffer against fastblock's default. */
	void *h = p->open(&cd->alg, enc, cd->keys[0], cd->iv, p->streams, &impl);
	if (!h)
		return; /* the library lacks this cipher, key size or mode */
	snprintf(label, sizeof(label), "%s", impl);
	r.impl = label;
	size_t per = p->streams > 1 ? CHECK_STREAM_BYTES : CHECK_BYTES;
	const uint8_t *ref = p->streams > 1 ? cd->multi_ref : cd->check_ref;
	int ref_err = p->streams > 1 ? cd->multi_ref_err : cd->ref_err;
	memcpy(cd->scratch, cd->check_in, per * p->streams);
	int ce = p->crypt(h, cd->scratch, per);
	p->close(h);
	if (ce || ref_err || memcmp(cd->scratch, ref, per * p->streams)) {
		r.status = ce || ref_err ? "error" : "mismatch";
		r.error = ref_err ? "fastblock has no reference output"
			  : ce ? "the library refused the check buffer"
			       : "output differs from fastblock";
		emit(b, &r);
		return;
	}
	if (b->o.check_only) {
		emit(b, &r);
		return;
	}

	/* Timing on a fresh handle (its label may point into the handle). */
	h = p->open(&cd->alg, enc, cd->keys[0], cd->iv, p->streams, &impl);
	if (!h)
		return;
	snprintf(label, sizeof(label), "%s", impl);
	peer_run pr = { 0 };
	pr.p = p;
	pr.h = h;
	for (int i = 0; i < KEY_ROTATION; i++)
		pr.keys[i] = cd->keys[i];
	pr.iv = cd->iv;
	pr.buf = b->buf;
	measure_peer_keysetup(b, cd, &pr, &r.ks);
	r.has_ks = !pr.err;
	p->setkey(h, cd->keys[0], cd->iv);

	double per_byte = 0; /* the last size's median ticks per byte */
	for (size_t si = 0; si < b->o.n_sizes; si++) {
		size_t size = b->o.sizes[si];
		if (!size_ok(&cd->alg, size) || size * p->streams > b->buf_cap)
			continue;
		r.size = size;
		if (past_cap(b, per_byte, size * p->streams)) {
			/* pathological here: one call would outlast the cap */
			r.timed = 0;
			r.status = "capped";
			r.error = "not timed: one call would run past the time cap";
			emit(b, &r);
			r.has_ks = 0;
			continue;
		}
		pr.buf = b->buf;
		pr.len = size;
		pr.err = 0;
		bench_measure_calls(&b->clk, peer_crypt, NULL, &pr, b->secs, 5, 1000000,
				    calls_for(size * p->streams), &r.st);
		per_byte = r.st.median / (double)(size * p->streams);
		r.timed = !pr.err;
		timed_status(&r, pr.err ? "the library returned an error" : NULL);
		emit(b, &r);
		r.has_ks = 0;
	}
	p->close(h);
}

/* ---- one cipher+mode ------------------------------------------------------------------ */

static void case_rows(bench *b, case_data *cd);

static void bench_case(bench *b, const fb_cipher *c, enum fb_direction dir)
{
	static case_data cd; /* large; one case at a time */
	memset(&cd, 0, sizeof(cd));
	cd.c = c;
	cd.alg = alg_of(c);
	cd.dir = dir;
	cd.op = dir == FB_ENCRYPT ? "encrypt" : "decrypt";
	for (int i = 0; i < KEY_ROTATION; i++)
		rng_fill(&b->rng, cd.keys[i], sizeof(cd.keys[i]));
	rng_fill(&b->rng, cd.iv, sizeof(cd.iv));
	rng_fill(&b->rng, cd.check_in, sizeof(cd.check_in));
	cd.ref_err = fb_oneshot(c, dir, NULL, cd.keys[0], cd.iv, cd.check_in, CHECK_BYTES,
				cd.check_ref, sizeof(cd.check_ref));

	cd.is_multi = has_multi(c) && cd.alg.mode == BM_CBC;
	if (cd.is_multi)
		cd.multi_ref_err = multi_reference(&cd); /* ipsec-mb is checked against it too */

	case_rows(b, &cd);
}

/* Every row of one case: fastblock's default, each implementation forced,
 * its many streams, then the peers. */
static void case_rows(bench *b, case_data *cd)
{
	const fb_cipher *c = cd->c;
	const char *only = b->o.impl;
	if (!only || !strcasecmp(only, "default"))
		measure_fastblock_impl(b, cd, NULL, NULL, 0);
	if (only && !strcasecmp(only, "default-ct"))
		measure_fastblock_impl(b, cd, NULL, NULL, 1);
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		if (!info.supported || strcmp(info.family, fb_cipher_family(c)))
			continue;
		if (only && strcasecmp(only, info.name))
			continue;
		measure_fastblock_impl(b, cd, info.name, &info, 0);
	}
	if (cd->is_multi && (!only || !strncasecmp(only, "multi", 5)))
		for (size_t i = 0; i < sizeof(multi_streams) / sizeof(multi_streams[0]); i++)
			measure_fastblock_multi(b, cd, multi_streams[i]);

	const bench_peer *const *peers = bench_peers();
	for (size_t i = 0; peers[i]; i++)
		if (peer_selected(b, peers[i]))
			measure_peer(b, cd, peers[i]);
}

/* ---- which ciphers -------------------------------------------------------------------- */

static int wanted(const bench *b, const char *name)
{
	if (!b->o.n_ciphers)
		return 1;
	for (size_t i = 0; i < b->o.n_ciphers; i++)
		if (!fnmatch(b->o.ciphers[i], name, FNM_CASEFOLD))
			return 1;
	return 0;
}

/* fastblock lists aliases ("des-ede3" = "des-ede3-ecb", "rc6-cbc" =
 * "rc6-128-cbc"); keep one name per (family, key length, mode): the longest,
 * which spells both the key size and the mode (the first on a tie). */
static int is_alias(size_t ci)
{
	bench_alg a = alg_of(fb_cipher_at(ci));
	size_t la = strlen(a.name);
	const fb_cipher *d;
	for (size_t i = 0; (d = fb_cipher_at(i)) != NULL; i++) {
		if (i == ci)
			continue;
		bench_alg x = alg_of(d);
		size_t lx = strlen(x.name);
		if (!strcmp(x.family, a.family) && x.key_len == a.key_len && x.mode == a.mode &&
		    (lx > la || (lx == la && i < ci)))
			return 1;
	}
	return 0;
}

/* ---- --info ---------------------------------------------------------------------------- */

/* The value of a /proc/cpuinfo line ("key\t: value"), or NULL. */
static const char *cpuinfo_value(char *line, const char *key)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n) || (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
		return NULL;
	char *p = strchr(line, ':');
	if (!p)
		return NULL;
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	p[strcspn(p, "\n")] = 0;
	return p;
}

/* The model name with the CPUID family and model: a virtual machine's name
 * ("AMD EPYC") does not tell Zen 2 from Zen 4 or Zen 5, the numbers do
 * (bench/plot.py names the generation from them). */
static void cpu_model(char *out, size_t cap)
{
	char name[256] = "unknown", family[32] = "", model[32] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		const char *v;
		while (fgets(line, sizeof(line), f) && line[0] != '\n') {
			if ((v = cpuinfo_value(line, "model name")))
				snprintf(name, sizeof name, "%s", v);
			else if ((v = cpuinfo_value(line, "cpu family")))
				snprintf(family, sizeof family, "%s", v);
			else if ((v = cpuinfo_value(line, "model")))
				snprintf(model, sizeof model, "%s", v);
		}
		fclose(f);
	}
	if (*family && *model)
		snprintf(out, cap, "%s (family %s, model %s)", name, family, model);
	else
		snprintf(out, cap, "%s", name);
}

static int print_info(bench *b)
{
	char model[256];
	cpu_model(model, sizeof(model));
	const bench_peer *const *peers = bench_peers();
	if (!b->o.json) {
		printf("fastblock %s\ncpu: %s\nfeatures used: %s\n", FASTBLOCK_VERSION, model,
		       fb_cpu_description());
		printf("tsc: %.1f MHz, ~%.2f core cycles per tick, empty call %.0f ticks, pinned to cpu %d\n",
		       b->clk.tsc_hz / 1e6, b->clk.core_per_tick, b->clk.overhead, b->clk.cpu);
		for (size_t i = 0; peers[i]; i++)
			if (!i || strcmp(peers[i]->library, peers[i - 1]->library))
				printf("peer: %s %s\n", peers[i]->library, peers[i]->version());
		fb_impl_info info;
		for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
			printf("impl: %-24s %s%s\n", info.name, info.supported ? "" : "(not on this cpu) ",
			       info.note ? info.note : "");
		return 0;
	}
	printf("{\"fastblock_version\": ");
	json_str(FASTBLOCK_VERSION);
	printf(", \"cpu_model\": ");
	json_str(model);
	printf(", \"cpu_features\": ");
	json_str(fb_cpu_description());
	printf(", \"tsc_mhz\": %.2f, \"core_cycles_per_tick\": %.3f, \"empty_call_ticks\": %.1f, "
	       "\"pinned_cpu\": %d, \"rounds\": %u",
	       b->clk.tsc_hz / 1e6, b->clk.core_per_tick, b->clk.overhead, b->clk.cpu, b->o.rounds);
	printf(",\n \"peers\": [");
	int first = 1;
	for (size_t i = 0; peers[i]; i++) {
		if (i && !strcmp(peers[i]->library, peers[i - 1]->library))
			continue;
		printf("%s{\"library\": ", first ? "" : ", ");
		json_str(peers[i]->library);
		printf(", \"version\": ");
		json_str(peers[i]->version());
		putchar('}');
		first = 0;
	}
	printf("],\n \"impls\": [");
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		printf("%s\n  {\"name\": ", i ? "," : "");
		json_str(info.name);
		printf(", \"family\": ");
		json_str(info.family);
		printf(", \"supported\": %s, \"constant_time\": %s, \"batch\": %u, \"cpu_needs\": ",
		       info.supported ? "true" : "false", info.constant_time ? "true" : "false",
		       info.batch);
		json_str(info.cpu_needs);
		printf(", \"note\": ");
		json_str(info.note);
		putchar('}');
	}
	printf("],\n \"ciphers\": [");
	const fb_cipher *c;
	for (size_t i = 0; (c = fb_cipher_at(i)) != NULL; i++) {
		printf("%s", i ? ", " : "");
		json_str(fb_cipher_name(c));
	}
	printf("]}\n");
	return 0;
}

/* ---- command line ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fastblock speed [--cipher NAME]... [--impl NAME] [--size BYTES]...\n"
		"                       [--op encrypt|decrypt|both] [--peers] [--peer LIB]...\n"
		"                       [--json] [--seconds S] [--rounds N] [--seed N] [--info] [--quiet]\n"
		"                       [--check-only] [--cache] [--mac-batch] [--threads N [--mb M]]\n"
		"  --cipher NAME  a cipher+mode (\"des-ede3-cbc\") or a pattern (\"aes-128-*\");\n"
		"                 repeatable; default all\n"
		"  --impl NAME    only this fastblock implementation (\"des/table\", \"default\", \"multi\";\n"
		"                 \"default-ct\": the default under FB_FLAG_CONSTANT_TIME)\n"
		"  --size BYTES   message size, repeatable; default 16 64 1024 8192 65536\n"
		"  --peers        also time every peer library built in; --peer LIB picks one\n"
		"  --json         one JSON array on stdout (fields: see bench/bench.c)\n"
		"  --seconds S    time budget per measurement (default 0.1)\n"
		"  --rounds N     the whole list measured N times over, S/N seconds a row each\n"
		"                 time (default 3, at most 9; see bench/rounds.h)\n"
		"  --info         CPU, clock, peers and implementations, then exit\n"
		"  --check-only   only compare every implementation and peer with fastblock's\n"
		"                 default output (rows have a status and no speed)\n"
		"  --cache        the table DES kernels with warm and cold caches, then exit\n"
		"  --mac-batch    100,000 KCVs, retail MACs and CMACs through the batch calls\n"
		"                 against an OpenSSL loop, then exit\n"
		"  --threads N    large messages (--mb M, default 256) on 1 and on N threads, then exit\n"
		"Figures are TSC ticks (see --info for the tick rate), the median over the\n"
		"repetitions of the best round (the JSON has the minimum over all of them too),\n"
		"with the cost of an empty call subtracted. Messages under 32 KB are timed as\n"
		"batches of up to 256 calls covering 32 KB; a measurement stops at 8x its\n"
		"time budget.\n");
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	}
	if (*end || v == 0 || v > (1u << 20))
		return -1;
	*out = (size_t)v;
	return 0;
}

static int bad_value(const char *opt, const char *v, const char *want)
{
	fprintf(stderr, "fastblock speed: bad %s %s (%s)\n", opt, v, want);
	return -1;
}

static int parse_args(opts *o, int argc, char **argv)
{
	enum { O_PEERS = 256, O_PEER, O_JSON, O_INFO, O_QUIET, O_CHECK, O_CIPHER, O_IMPL, O_SIZE, O_OP,
	       O_SECONDS, O_ROUNDS, O_SEED, O_CACHE, O_MACB, O_THREADS, O_MB };
	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },         { "peers", no_argument, NULL, O_PEERS },
		{ "json", no_argument, NULL, O_JSON },       { "info", no_argument, NULL, O_INFO },
		{ "quiet", no_argument, NULL, O_QUIET },     { "check-only", no_argument, NULL, O_CHECK },
		{ "cipher", required_argument, NULL, O_CIPHER }, { "peer", required_argument, NULL, O_PEER },
		{ "impl", required_argument, NULL, O_IMPL }, { "size", required_argument, NULL, O_SIZE },
		{ "op", required_argument, NULL, O_OP },     { "seconds", required_argument, NULL, O_SECONDS },
		{ "seed", required_argument, NULL, O_SEED }, { "cache", no_argument, NULL, O_CACHE },
		{ "mac-batch", no_argument, NULL, O_MACB }, { "threads", required_argument, NULL, O_THREADS },
		{ "mb", required_argument, NULL, O_MB },     { "rounds", required_argument, NULL, O_ROUNDS },
		{ NULL, 0, NULL, 0 },
	};
	memset(o, 0, sizeof(*o));
	o->ops = 3;
	o->seconds = 0.1;
	o->rounds = 3;
	o->seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
	optind = 0; /* a fresh scan, whatever parsed argv before */
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
		char *end;
		switch (ch) {
		case 'h': usage(stdout); exit(0);
		case O_PEERS: o->peers = 1; break;
		case O_JSON: o->json = 1; break;
		case O_INFO: o->info = 1; break;
		case O_QUIET: o->quiet = 1; break;
		case O_CHECK: o->check_only = 1; break;
		case O_CACHE: o->cache = 1; break;
		case O_MACB: o->mac_batch = 1; break;
		case O_THREADS:
			o->threads = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o->threads < 2 || o->threads > 256)
				return bad_value("--threads", optarg, "2 .. 256");
			break;
		case O_MB:
			o->mb = strtoul(optarg, &end, 10);
			if (*end || o->mb < 4 || o->mb > 4096)
				return bad_value("--mb", optarg, "4 .. 4096");
			break;
		case O_CIPHER:
			if (o->n_ciphers == MAX_LIST)
				return bad_value("--cipher", optarg, "too many");
			o->ciphers[o->n_ciphers++] = optarg;
			break;
		case O_PEER:
			if (o->n_peer_names == MAX_LIST)
				return bad_value("--peer", optarg, "too many");
			o->peers = 1;
			o->peer_names[o->n_peer_names++] = optarg;
			break;
		case O_IMPL: o->impl = optarg; break;
		case O_SIZE:
			if (o->n_sizes == MAX_LIST || parse_size(optarg, &o->sizes[o->n_sizes]))
				return bad_value("--size", optarg, "1 .. 1048576, at most 16 sizes");
			o->n_sizes++;
			break;
		case O_OP:
			o->ops = !strcmp(optarg, "encrypt") ? 1 : !strcmp(optarg, "decrypt") ? 2
				 : !strcmp(optarg, "both") ? 3 : 0;
			if (!o->ops)
				return bad_value("--op", optarg, "encrypt, decrypt or both");
			break;
		case O_SECONDS:
			o->seconds = strtod(optarg, &end);
			if (*end || !(o->seconds > 0) || o->seconds > 60)
				return bad_value("--seconds", optarg, "0 < S <= 60");
			break;
		case O_ROUNDS:
			o->rounds = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o->rounds < 1 || o->rounds > BENCH_MAX_ROUNDS)
				return bad_value("--rounds", optarg, "1 .. 9");
			break;
		case O_SEED:
			o->seed = strtoull(optarg, &end, 0);
			if (*end || end == optarg)
				return bad_value("--seed", optarg, "a number");
			break;
		default:
			fprintf(stderr, "fastblock speed: unknown option or missing value: %s\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fastblock speed: unexpected argument %s\n", argv[optind]);
		return -1;
	}
	if (!o->n_sizes) {
		static const size_t def[] = { 16, 64, 1024, 8192, 65536 };
		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			o->sizes[o->n_sizes++] = def[i];
	}
	return 0;
}

int fb_bench_main(int argc, char **argv)
{
	static bench b; /* holds the option lists; one run at a time */
	memset(&b, 0, sizeof(b));
	if (parse_args(&b.o, argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (bench_clock_init(&b.clk)) {
		fprintf(stderr, "fastblock speed: no usable time-stamp counter\n");
		return 2;
	}
	if (b.o.info)
		return print_info(&b);
	if (b.o.cache)
		return fb_bench_cache(&b.clk, b.o.seconds);
	if (b.o.threads)
		return fb_bench_threads(b.o.threads, b.o.ciphers, b.o.n_ciphers, (b.o.mb ? b.o.mb : 256) << 20);
	if (b.o.mac_batch) {
#ifdef FB_BENCH_HAVE_OPENSSL
		return fb_bench_mac_batch(&b.clk, 100000, b.o.seed);
#else
		fprintf(stderr, "fastblock speed: --mac-batch needs the OpenSSL peer (not built in)\n");
		return 2;
#endif
	}

	/* the ciphers, checked before anything is timed */
	const fb_cipher *list[1024];
	size_t n = 0;
	const fb_cipher *c;
	for (size_t i = 0; (c = fb_cipher_at(i)) != NULL && n < 1024; i++)
		if (wanted(&b, fb_cipher_name(c)) && !is_alias(i))
			list[n++] = c;
	for (size_t i = 0; i < b.o.n_ciphers; i++) {
		int hit = 0;
		for (size_t j = 0; (c = fb_cipher_at(j)) != NULL && !hit; j++)
			hit = !fnmatch(b.o.ciphers[i], fb_cipher_name(c), FNM_CASEFOLD);
		if (!hit)
			fprintf(stderr, "fastblock speed: no cipher matches %s\n", b.o.ciphers[i]);
	}
	if (!n) {
		fprintf(stderr, "fastblock speed: nothing to measure\n");
		return 2;
	}

	size_t max_size = 0;
	for (size_t i = 0; i < b.o.n_sizes; i++)
		if (b.o.sizes[i] > max_size)
			max_size = b.o.sizes[i];
	b.buf_cap = max_size * MAX_STREAMS;
	b.buf = aligned_alloc(64, b.buf_cap + 64);
	b.ctx = fb_ctx_new();
	if (!b.buf || !b.ctx) {
		fprintf(stderr, "fastblock speed: out of memory\n");
		free(b.buf);
		fb_ctx_free(b.ctx);
		return 2;
	}
	b.rng = b.o.seed;
	/* random data once: timed runs transform it in place, so it stays random */
	rng_fill(&b.rng, b.buf, b.buf_cap + 64);

	if (b.o.json)
		putchar('[');
	else
		print_text_header();
	/* the whole list once a round (rounds.h): a row's rounds minutes apart */
	unsigned rounds = b.o.check_only ? 1 : b.o.rounds;
	b.secs = b.o.seconds / rounds;
	b.gathering = rounds > 1;
	for (unsigned k = 0; k < rounds; k++)
		for (size_t i = 0; i < n; i++) {
			if (b.o.json && !b.o.quiet)
				fprintf(stderr, "speed: %s (%zu/%zu, round %u of %u)\n", fb_cipher_name(list[i]),
					i + 1, n, k + 1, rounds);
			if (b.o.ops & 1)
				bench_case(&b, list[i], FB_ENCRYPT);
			if (b.o.ops & 2)
				bench_case(&b, list[i], FB_DECRYPT);
		}
	if (b.gathering)
		print_gathered(&b);
	if (b.o.json)
		puts("]");
	else
		printf("# ticks: TSC at %.1f MHz (~%.2f core cycles per tick); median over repetitions "
		       "(the best of %u rounds), empty call (%.0f ticks) subtracted; under 32 KB, per call of a batch\n",
		       b.clk.tsc_hz / 1e6, b.clk.core_per_tick, b.o.rounds, b.clk.overhead);

	fflush(stdout); /* before any exit-time hook that might _exit */
	fb_ctx_free(b.ctx);
	free(b.buf);
	rounds_free(&b.rounds);
	if (b.failures)
		fprintf(stderr, "speed: %d row(s) with a mismatch or an error\n", b.failures);
	return b.failures ? 1 : 0;
}
