/*
 * fb_multi_crypt (include/fastblock.h): n independent DES/Triple-DES streams
 * in CBC, CFB (full block) or OFB, each with its own key and IV, in one call.
 *
 * Serial modes cannot be parallel within one stream, so the parallelism
 * comes from the streams: lane l of a wide kernel carries stream l with its
 * own key (seed 001's multi-channel CBC, ipsec-mb's multi-buffer manager).
 * Streams are sorted by length, longest first, and cut into lane sets:
 *  - des/bs-avx512's engine, up to 512 lanes, per-lane key planes: for sets
 *    of at least DES_MULTI_BS_MIN streams;
 *  - des/gfni-avx512's engine, 32 lanes, per-lane round keys: smaller sets;
 *  - otherwise (no AVX-512, or an implementation named in the options or
 *    FASTBLOCK_IMPL) one stream at a time through a block kernel.
 * Each step gathers one block per lane, runs the cipher on all lanes,
 * and scatters the results; a lane whose stream has ended idles. All of it
 * is constant-time with the two wide engines (the chaining is XORs and
 * copies of public lengths).
 *
 * All arguments are checked before anything is written. After a final
 * partial block (CFB, OFB) ivs[i] holds the value the next block would
 * chain from had the partial block been zero-padded; only whole blocks
 * make a continuable stream.
 */
#include <stdlib.h>
#include <string.h>
#include "des_bs_common.h"
#include "des_gfni.h"

/* Sets of at least this many streams use the bitsliced engine. Its block
 * step costs the same for any number of lanes up to 512 (CBC encryption,
 * 8 KB streams: ~6,500 TSC ticks per step for 3DES, ~2,700 for DES), while
 * the 32-lane gfni engine costs ~62 and ~31 ticks per block at any n >= 32.
 * Measured crossover (forced engines, same run): 3DES ~104 streams at 8 KB,
 * ~111 at 1 KB; DES ~87 and ~110. */
#define DES_MULTI_BS_MIN 96
/* ... and at least this many lane-blocks (lanes x blocks of the longest
 * stream): the engine's per-call cost (lane key planes, chaining planes)
 * sinks short streams. Measured (forced engines, same run, CBC encryption,
 * MB/s gfni / bitsliced): DES 64-byte streams x128 319 / 259, x256 295 /
 * 352, 128-byte x128 419 / 396; 3DES 64-byte x128 183 / 177, x256 180 / 262. */
#define DES_MULTI_BS_WORK_DES 2048
#define DES_MULTI_BS_WORK_EDE 1024

/* Whether a set of n streams, the longest of blocks blocks, goes to the
 * bitsliced engine (given a gfni engine to go to otherwise). */
static int bs_pays(size_t n, size_t blocks, size_t keylen)
{
	size_t lanes = n < 512 ? n : 512;
	size_t work = keylen == 8 ? DES_MULTI_BS_WORK_DES : DES_MULTI_BS_WORK_EDE;
	return lanes >= DES_MULTI_BS_MIN && blocks >= work / lanes;
}

enum { ENG_KERNEL, ENG_GFNI, ENG_BS512 };

typedef struct {
	enum fb_mode mode;
	int enc;
	size_t keylen;
	const uint8_t *const *keys;
	uint8_t *const *ivs;
	const uint8_t *const *in;
	uint8_t *const *out;
	const size_t *len;
} multi_job;

/* ---- argument checks ------------------------------------------------------------- */

/* A memory range [lo, hi) of a stream (kind 0 output, 1 IV); also a sort
 * record by lo for the stream order and the bitsliced engine's ends. */
typedef struct {
	uintptr_t lo, hi;
	size_t stream;
	int kind;
} region;

/* Stable merge sort of a[0..n) by lo, t: room for n more. qsort's
 * indirect comparisons cost ~40% of a call with 512 streams of 64 bytes. */
static void sort_regions(region *a, region *t, size_t n)
{
	region *src = a, *dst = t;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, k = lo, m = mid;
			while (i < mid && m < hi)
				dst[k++] = src[m].lo < src[i].lo ? src[m++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (m < hi)
				dst[k++] = src[m++];
		}
		region *x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
}

/* Written regions (outputs, IVs) must be disjoint from each other and from
 * every region read (inputs, keys, IVs), except an output equal to its own
 * input (in place). w, t: room for 2n regions each. */
static int check_overlap(const multi_job *j, size_t n, region *w, region *t)
{
	size_t nw = 0;
	for (size_t i = 0; i < n; i++) {
		if (j->len[i])
			w[nw++] = (region){ (uintptr_t)j->out[i], (uintptr_t)j->out[i] + j->len[i], i, 0 };
		w[nw++] = (region){ (uintptr_t)j->ivs[i], (uintptr_t)j->ivs[i] + 8, i, 1 };
	}
	sort_regions(w, t, nw);
	for (size_t i = 1; i < nw; i++)
		if (w[i].lo < w[i - 1].hi)
			return FB_ERR_OVERLAP;
	/* each read region against the sorted, disjoint written ones */
	for (size_t i = 0; i < n; i++) {
		const struct { uintptr_t p; size_t n; int kind; } rd[3] = {
			{ (uintptr_t)j->in[i], j->len[i], 0 },
			{ (uintptr_t)j->keys[i], j->keylen, 1 },
			{ (uintptr_t)j->ivs[i], 8, 2 },
		};
		for (int r = 0; r < 3; r++) {
			if (!rd[r].n)
				continue;
			size_t lo = 0, hi = nw; /* first written region ending after rd.p */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (w[mid].hi <= rd[r].p)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t k = lo; k < nw && w[k].lo < rd[r].p + rd[r].n; k++) {
				int in_place = rd[r].kind == 0 && w[k].kind == 0 && w[k].stream == i &&
					       w[k].lo == rd[r].p;
				int own_iv = rd[r].kind == 2 && w[k].kind == 1 && w[k].stream == i;
				if (!in_place && !own_iv)
					return FB_ERR_OVERLAP;
			}
		}
	}
	return FB_OK;
}

static int check_args(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		      const multi_job *j, const fb_options *opt)
{
	if (!c)
		return FB_ERR_ARGUMENT;
	const char *fam = fb_cipher_family(c);
	if (!fam || strcmp(fam, "des"))
		return FB_ERR_UNKNOWN_CIPHER;
	if (mode != FB_CBC && mode != FB_CFB && mode != FB_OFB)
		return FB_ERR_ARGUMENT;
	if (dir != FB_ENCRYPT && dir != FB_DECRYPT)
		return FB_ERR_ARGUMENT;
	/* The same option checks as fb_init (strict keys per stream below);
	 * then: no mode here pads. */
	int rc = fb_options_check(c, opt, NULL, 0);
	if (rc && rc != FB_ERR_PADDING_MODE)
		return rc;
	if (opt && opt->padding != FB_PAD_DEFAULT && opt->padding != FB_PAD_NONE)
		return FB_ERR_PADDING_MODE;
	if (!n)
		return FB_OK;
	if (!j->keys || !j->ivs || !j->in || !j->out || !j->len)
		return FB_ERR_ARGUMENT;
	for (size_t i = 0; i < n; i++) {
		if (!j->keys[i] || !j->ivs[i] || (j->len[i] && (!j->in[i] || !j->out[i])))
			return FB_ERR_ARGUMENT;
		if (mode == FB_CBC && j->len[i] % 8)
			return FB_ERR_DATA_LENGTH;
		if (j->len[i] > SIZE_MAX - (uintptr_t)j->out[i] || j->len[i] > SIZE_MAX - (uintptr_t)j->in[i])
			return FB_ERR_ARGUMENT;
	}
	if (opt && (opt->flags & FB_FLAG_STRICT_KEYS))
		for (size_t i = 0; i < n; i++)
			if ((rc = fb_options_check(c, opt, j->keys[i], j->keylen)))
				return rc;
	return FB_OK;
}

/* ---- engine choice ---------------------------------------------------------------- */

static int engine_supported(const fb_kernel *k)
{
#ifdef FB_DES_AVX512_EMULATED
	(void)k; /* tests/test_ct_valgrind.c: modelled engines run anywhere */
	return 1;
#else
	return fb_kernel_supported(k);
#endif
}

/* The implementation named in the options or in FASTBLOCK_IMPL (the des/
 * entry of the comma-separated list), or NULL. */
static const char *forced(const fb_options *opt, char *buf, size_t cap)
{
	if (opt && opt->impl)
		return opt->impl;
	const char *env = fb_env_impl();
	while (env && *env) {
		const char *end = strchr(env, ',');
		size_t n = end ? (size_t)(end - env) : strlen(env);
		if (n > 4 && n < cap && !strncmp(env, "des/", 4)) {
			memcpy(buf, env, n);
			buf[n] = 0;
			return buf;
		}
		env = end ? end + 1 : NULL;
	}
	return NULL;
}

typedef struct {
	int kind;         /* forced engine, or -1: by set size */
	int have_bs, have_gf;
	const fb_kernel *k; /* ENG_KERNEL */
} engine_choice;

static int choose(const fb_options *opt, engine_choice *e)
{
	int need_ct = opt && (opt->flags & FB_FLAG_CONSTANT_TIME);
	char buf[64];
	const char *name = forced(opt, buf, sizeof buf);
#if FB_X86
	e->have_bs = engine_supported(&fb_des_bs_avx512);
	e->have_gf = engine_supported(&fb_des_gfni_avx512);
#else
	e->have_bs = e->have_gf = 0;
#endif
	e->kind = -1;
	e->k = NULL;
	if (name) {
		const fb_kernel *k = fb_kernel_by_name(name);
		if (!k || strcmp(k->family, "des") || !engine_supported(k))
			return FB_ERR_IMPL_UNAVAILABLE;
		if (need_ct && !k->constant_time)
			return FB_ERR_NOT_CONSTANT_TIME;
#if FB_X86
		/* by name: tests/test_ct_valgrind.c builds modelled copies */
		if (!strcmp(k->name, fb_des_bs_avx512.name) || !strcmp(k->name, fb_des_bs_avx512_table.name)) {
			e->kind = ENG_BS512;
			return FB_OK;
		}
		if (!strcmp(k->name, fb_des_gfni_avx512.name)) {
			e->kind = ENG_GFNI;
			return FB_OK;
		}
#endif
		e->kind = ENG_KERNEL;
		e->k = k;
		return FB_OK;
	}
	if (e->have_bs || e->have_gf)
		return FB_OK;
	/* one stream at a time: the lowest-latency kernel (constant-time if asked) */
	const fb_kernel *const *lists[2] = { fb_family_des.serial, fb_family_des.parallel };
	for (int l = 0; l < 2 && !e->k; l++)
		for (const fb_kernel *const *k = lists[l]; *k; k++)
			if (engine_supported(*k) && (!need_ct || (*k)->constant_time)) {
				e->k = *k;
				break;
			}
	if (!e->k)
		return FB_ERR_IMPL_UNAVAILABLE;
	e->kind = ENG_KERNEL;
	return FB_OK;
}

/* ---- running a lane set ------------------------------------------------------------ */

/* The 512-lane engine's scratch (~160 KB), allocated only for calls that
 * use it. */
typedef struct {
	_Alignas(64) unsigned char kplanes[DES_BS512_LANE_KEYS_SIZE];
	_Alignas(64) unsigned char state[DES_BS512_STATE_SIZE];
	_Alignas(64) unsigned char work[DES_BS512_WORK_SIZE];
	_Alignas(64) uint64_t rin[8][DES_BS512_ROW_Q], rout[2][8][DES_BS512_ROW_Q], prev[512], ivrow[512];
	_Alignas(64) uint8_t kbuf[24 * 512];
	des_bs512_lanes ln;
	region ends[512], ends_tmp[512]; /* lo: the chunk holding lane stream's last block */
	_Alignas(64) uint8_t dummy[64];
} bs_scratch;

/* Scratch for one call, allocated once. */
typedef struct {
	bs_scratch *bs; /* NULL unless a set goes to the 512-lane engine */
	_Alignas(64) unsigned char ks[FB_KS_MAX];
	_Alignas(64) uint64_t gk[3 * 16 * DES_GF_LANES];
	_Alignas(64) uint64_t x[512], y[512], blk[512], cv[512];
} scratch;

static void keys_of(const multi_job *j, size_t s, const uint8_t *k[3])
{
	const uint8_t *key = j->keys[s];
	k[0] = key;
	k[1] = j->keylen > 8 ? key + 8 : key;
	k[2] = j->keylen == 24 ? key + 16 : key;
}

/* The streams lane[0..nl) (indices into the job's arrays) through the
 * 32-lane gfni engine or a block kernel, one block step at a time. */
static void run_set(const multi_job *j, const size_t *lane, size_t nl, int kind, const fb_kernel *kern,
		    scratch *w)
{
	unsigned nkeys = j->keylen == 8 ? 1 : 3;
	int dec = j->mode == FB_CBC && !j->enc; /* the cipher runs backwards only here */
	size_t steps = 0;
	memset(w->x, 0, sizeof w->x);
	if (kind == ENG_GFNI)
		memset(w->gk, 0, sizeof w->gk);
	for (size_t l = 0; l < nl; l++) {
		size_t s = lane[l], b = (j->len[s] + 7) / 8;
		const uint8_t *k[3];
		keys_of(j, s, k);
		steps = b > steps ? b : steps;
		memcpy(&w->cv[l], j->ivs[s], 8);
#if FB_X86
		if (kind == ENG_GFNI) {
			uint64_t gk[16];
			for (unsigned p = 0; p < nkeys; p++) {
				fb_des_gfni_keys(gk, k[p]);
				for (int r = 0; r < 16; r++)
					w->gk[(16 * p + r) * DES_GF_LANES + l] = gk[r];
			}
			fb_wipe(gk, sizeof gk);
#endif
		} else {
			memset(w->ks, 0, kern->ks_size);
			kern->setkey(w->ks, j->keys[s], j->keylen);
		}
	}
	for (size_t t = 0; t < steps; t++) {
		size_t off = 8 * t;
		for (size_t l = 0; l < nl; l++) {
			size_t s = lane[l], r = j->len[s] > off ? j->len[s] - off : 0;
			w->blk[l] = 0;
			if (r >= 8)
				memcpy(&w->blk[l], j->in[s] + off, 8);
			else if (r)
				memcpy(&w->blk[l], j->in[s] + off, r);
			/* the cipher's input: CBC-enc P ^ C, CBC-dec C, CFB/OFB the register */
			w->x[l] = j->mode != FB_CBC ? w->cv[l] : j->enc ? w->blk[l] ^ w->cv[l] : w->blk[l];
		}
#if FB_X86
		if (kind == ENG_GFNI)
			fb_des_gfni_lanes(w->gk, nkeys, (uint8_t *)w->y, (const uint8_t *)w->x, nl, dec);
		else
#endif
			(dec ? kern->decrypt : kern->encrypt)(w->ks, (uint8_t *)w->y, (const uint8_t *)w->x, 1);
		for (size_t l = 0; l < nl; l++) {
			size_t s = lane[l], r = j->len[s] > off ? j->len[s] - off : 0;
			if (!r)
				continue;
			uint64_t o, y = w->y[l], p = w->blk[l];
			if (j->mode == FB_CBC) {
				o = j->enc ? y : y ^ w->cv[l];
				w->cv[l] = j->enc ? y : p;
			} else {
				o = y ^ p;
				w->cv[l] = j->mode == FB_OFB ? y : j->enc ? o : p;
			}
			if (r >= 8)
				memcpy(j->out[s] + off, &o, 8);
			else
				memcpy(j->out[s] + off, &o, r);
		}
	}
	for (size_t l = 0; l < nl; l++)
		memcpy(j->ivs[lane[l]], &w->cv[l], 8);
}

#if FB_X86
/* Lane groups (eight streams) start 0..BS_SKEW_MAX-1 chunks apart (group j
 * j % skews chunks late), so that the cache lines a gather or scatter
 * touches at once lie at different offsets of their streams: with streams
 * at multiples of 4 KB apart, every line of a chunk would be in the same L1
 * set (measured: loads of such lines from L2 2.5x, stores 3-4x slower).
 * Costs skews - 1 chunks of idle lanes per call, so only for long streams. */
#define BS_SKEW_MAX 4

/* The 512-lane engine. Stream i of the set (sorted by length, longest
 * first) runs in lane i; lanes 8j..8j+7 form lane group j, whose cache
 * lines one 8x8 qword transpose turns into eight block steps. Steps go
 * eight at a time (a chunk: one cache line per stream) with the chaining
 * bitsliced between them. After chunk c runs, chunk c + 1 is gathered into
 * the input rows (a phase of its own: a load that misses would stall the
 * rounds); while it runs, chunk c - 1 is scattered from the other output
 * rows and chunk c + 2 prefetched, a few lane groups between rounds.
 * Lengths and pointers are public; nothing here depends on keys or data. */
static void run_set_bs(const multi_job *j, const size_t *lane, size_t nl, bs_scratch *w)
{
	unsigned nkeys = j->keylen == 8 ? 1 : 3;
	int dec_chain = j->mode != FB_OFB && !j->enc; /* CBC/CFB decryption: prev row */
	size_t ng = (nl + 7) / 8, nb = 8 * ng, steps = (j->len[lane[0]] + 7) / 8;
	size_t lines = (steps + 7) / 8; /* of the longest stream */
	size_t skews = lines >= 48 ? BS_SKEW_MAX : lines >= 16 ? 2 : 1;
	if (!steps)
		return; /* every stream empty: the IVs stay */
	size_t nch = lines + skews - 1, nend = 0;
	des_bs512_lanes *ln = &w->ln;
	region *ends = w->ends;
	ln->ng = ng;
	memset(w->ivrow, 0, sizeof w->ivrow);
	memset(w->kbuf, 0, 24 * nb);
	for (size_t b = 0; b < nb; b++) {
		size_t s = b < nl ? lane[b] : 0;
		if (b >= nl || !j->len[s]) {
			ln->in[b] = ln->out[b] = w->dummy;
			ln->len[b] = 0;
		} else {
			ln->in[b] = j->in[s];
			ln->out[b] = j->out[s];
			ln->len[b] = j->len[s];
			ends[nend++] = (region){ (j->len[s] - 1) / 64 + b / 8 % skews, 0, b, 0 };
		}
		if (b < nl) {
			const uint8_t *k[3];
			keys_of(j, s, k);
			for (unsigned p = 0; p < nkeys; p++)
				memcpy(w->kbuf + 24 * b + 8 * p, k[p], 8);
			memcpy(&w->ivrow[b], j->ivs[s], 8);
		}
	}
	for (size_t g = 0; g < ng; g++) {
		ln->skew[g] = 64 * (g % skews);
		size_t m = SIZE_MAX; /* sorted by blocks, not bytes: take the minimum */
		for (size_t b = 8 * g; b < 8 * g + 8; b++)
			m = ln->len[b] < m ? ln->len[b] : m;
		ln->full[g] = m; /* 0 if the group has an idle lane */
	}
	sort_regions(ends, w->ends_tmp, nend);
	fb_des_bs512_lane_keys(w->kplanes, w->kbuf, nb, nkeys);
	if (dec_chain)
		memcpy(w->prev, w->ivrow, sizeof w->prev);
	else
		fb_des_bs512_load(w->state, (const uint8_t *)w->ivrow, nb);
	for (size_t b = 0; b < nb; b++)
		if (ln->len[b] > 64 && !ln->skew[b / 8])
			__builtin_prefetch(ln->in[b] + 64, 0, 2);
	fb_des_bs512_gather(w->rin, ln, 0);
	size_t et = 0, ee = 0; /* ends[et..]: tails not yet read, ends[ee..]: not finished */
	for (size_t c = 0; c < nch; c++) {
		uint64_t(*rin)[DES_BS512_ROW_Q] = w->rin, (*rout)[DES_BS512_ROW_Q] = w->rout[c % 2];
		if (c && c < skews) { /* lane groups starting now start from their IVs */
			uint8_t sel[64] = { 0 };
			for (size_t g = c; g < ng; g += skews)
				sel[g] = 0xFF;
			if (dec_chain)
				for (size_t g = c; g < ng; g += skews)
					memcpy(&w->prev[8 * g], &w->ivrow[8 * g], 64);
			else
				fb_des_bs512_load_groups(w->state, (const uint8_t *)w->ivrow, nb, sel);
		}
		/* a partial last block (CFB, OFB) enters zero-padded */
		for (; et < nend && ends[et].lo == c; et++) {
			size_t b = ends[et].stream, s = lane[b], r = j->len[s] % 8;
			if (r)
				memcpy(&rin[j->len[s] / 8 % 8][b], j->in[s] + j->len[s] / 8 * 8, r);
		}
		des_bs512_bg bg = { ln, NULL, 0, 0, 0 };
		if (c) {
			bg.scatter_rows = w->rout[(c - 1) % 2];
			bg.scatter_off = 64 * (c - 1);
		}
		if (c + 2 < nch) {
			bg.prefetch = 1;
			bg.prefetch_off = 64 * (c + 2);
		}
		fb_des_bs512_multi_steps(w->kplanes, nkeys, j->mode, j->enc, w->state,
					 (const uint8_t *)w->prev, (const uint8_t *)rin, (uint8_t *)rout, 8, nb, &bg,
					 w->work);
		/* streams that end in this chunk: the partial last block, the IV */
		for (; ee < nend && ends[ee].lo == c; ee++) {
			size_t b = ends[ee].stream, s = lane[b];
			size_t t = (j->len[s] - 1) / 8 % 8, r = j->len[s] % 8;
			uint64_t o = rout[t][b], p = rin[t][b];
			if (r)
				memcpy(j->out[s] + j->len[s] / 8 * 8, &o, r);
			uint64_t cv = j->mode == FB_OFB ? o ^ p : j->enc ? o : p;
			memcpy(j->ivs[s], &cv, 8);
		}
		if (dec_chain)
			memcpy(w->prev, rin[7], 8 * nb);
		if (c + 1 < nch)
			fb_des_bs512_gather(w->rin, ln, 64 * (c + 1));
	}
	fb_des_bs512_scatter(ln, 64 * (nch - 1), w->rout[(nch - 1) % 2]);
}
#endif

int fb_multi_crypt(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		   const uint8_t *const *keys, uint8_t *const *ivs, const uint8_t *const *in,
		   uint8_t *const *out, const size_t *len, const fb_options *opt)
{
	multi_job j = { mode, dir == FB_ENCRYPT, c ? fb_cipher_key_len(c) : 0, keys, ivs, in, out, len };
	int err = check_args(c, mode, dir, n, &j, opt);
	if (err != FB_OK || !n)
		return err;
	engine_choice e;
	err = choose(opt, &e);
	if (err != FB_OK)
		return err;
	/* 2n regions for the overlap check, 2n of sorting scratch, n for the
	 * length order and the lanes share one block, and the 512-lane
	 * engine's scratch if a set will go there (the first set is the
	 * largest: this must agree with the choice below) */
	size_t longest = 0;
	for (size_t i = 0; i < n; i++)
		longest = len[i] > longest ? len[i] : longest;
	int use_bs = e.kind == ENG_BS512 ||
		     (e.kind < 0 && e.have_bs && (bs_pays(n, (longest + 7) / 8, j.keylen) || !e.have_gf));
	size_t bs_need = use_bs ? sizeof(bs_scratch) + 64 : 0;
	if (n > (SIZE_MAX - sizeof(scratch) - bs_need - 128) / (5 * sizeof(region) + sizeof(size_t)))
		return FB_ERR_ARGUMENT;
	size_t need = sizeof(scratch) + 64 + n * (5 * sizeof(region) + sizeof(size_t)) + bs_need;
	unsigned char *mem = malloc(need);
	if (!mem)
		return FB_ERR_ARGUMENT;
	scratch *w = (scratch *)(void *)(mem + (64 - (uintptr_t)mem % 64) % 64);
	region *reg = (region *)(void *)(w + 1);
	region *tmp = reg + 2 * n;
	region *order = tmp + 2 * n; /* by length, longest first: lo = SIZE_MAX - blocks */
	size_t *lane = (size_t *)(void *)(order + n);
	w->bs = NULL;
	if (use_bs) {
		unsigned char *p = (unsigned char *)(lane + n);
		w->bs = (bs_scratch *)(void *)(p + (64 - (uintptr_t)p % 64) % 64);
	}
	err = check_overlap(&j, n, reg, tmp);
	if (err == FB_OK) {
		for (size_t i = 0; i < n; i++)
			order[i] = (region){ SIZE_MAX - (len[i] + 7) / 8, 0, i, 0 };
		sort_regions(order, tmp, n); /* stable: equal lengths keep their order */
		for (size_t i = 0; i < n; i++)
			lane[i] = order[i].stream;
		size_t done = 0;
		while (done < n) {
			size_t left = n - done, nl;
			int kind = e.kind;
			if (kind < 0)
				kind = e.have_bs && (bs_pays(left, SIZE_MAX - order[done].lo, j.keylen) || !e.have_gf) ? ENG_BS512
												     : ENG_GFNI;
			nl = kind == ENG_BS512 ? 512 : kind == ENG_GFNI ? DES_GF_LANES : 1;
			nl = left < nl ? left : nl;
#if FB_X86
			if (kind == ENG_BS512)
				run_set_bs(&j, lane + done, nl, w->bs);
			else
#endif
				run_set(&j, lane + done, nl, kind, e.k, w);
			done += nl;
		}
	}
	fb_wipe(mem, need);
	free(mem);
	return err;
}
