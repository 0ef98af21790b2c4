/*
 * fb_multi_crypt (include/fastblock.h): n independent streams in CBC, CFB
 * (full block) or OFB, each with its own key and IV, in one call.
 *
 * Serial modes cannot be parallel within one stream, so the parallelism
 * comes from the streams: lane l of a wide kernel carries stream l with its
 * own key (seed 001's multi-channel CBC, ipsec-mb's multi-buffer manager).
 * Streams are sorted by length, longest first, and cut into lane sets; for
 * each set src/select.c names the lane engine (fb_lanes in src/internal.h)
 * or, where none pays, a kernel that runs one stream at a time. CBC and
 * CFB decryption are parallel within a stream, so there a long enough
 * stream runs alone on its blocks in parallel (run_whole). Each block
 * step gathers one block per lane, runs the cipher on all lanes and
 * scatters the results; a lane whose stream has ended idles. Chaining is
 * XORs and copies of public lengths: with a constant-time engine the whole
 * call is constant-time.
 *
 * All arguments are checked before anything is written. After a final
 * partial block (CFB, OFB) ivs[i] holds the value the next block would
 * chain from had the partial block been zero-padded; only whole blocks
 * make a continuable stream.
 */
#include <stdlib.h>
#include "modes.h"
#include "../select.h"

/* The widest generic lane step (fused engines bring their own scratch). */
#define LANES_MAX 512

/* ---- argument checks ------------------------------------------------------------- */

/* A memory range [lo, hi) of a stream (kind 0 output, 1 IV); also a sort
 * record by lo for the stream order and the bitsliced engine's ends. */
typedef struct {
	uintptr_t lo, hi;
	size_t stream;
	int kind;
} region;

/* The end of the ascending run of src by lo that starts at lo. */
static size_t run_end(const region *src, size_t lo, size_t n)
{
	size_t i = lo + 1;
	while (i < n && src[i - 1].lo <= src[i].lo)
		i++;
	return i;
}

/* Stable natural merge sort of a[0..n) by lo, t: room for n more. Callers'
 * arrays usually come in a few ascending runs (buffers laid out in order),
 * which this merges in as many passes as it takes to halve the runs: one
 * pass for two runs, none for sorted input. (qsort's indirect comparisons
 * cost ~40% of a call with 512 streams of 64 bytes.) */
static void sort_regions(region *a, region *t, size_t n)
{
	region *src = a, *dst = t;
	while (n && run_end(src, 0, n) < n) {
		for (size_t lo = 0; lo < n;) {
			size_t mid = run_end(src, lo, n), hi = mid < n ? run_end(src, mid, n) : n;
			size_t i = lo, k = lo, m = mid;
			while (i < mid && m < hi)
				dst[k++] = src[m].lo < src[i].lo ? src[m++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (m < hi)
				dst[k++] = src[m++];
			lo = hi;
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
 * input (in place) and an IV read and written by its own stream. Both sets
 * are sorted (usually a few ascending runs each), then swept together in
 * one pass: a binary search per read region cost half of a batch of
 * 100,000 one-block KCVs in mispredicted branches. w: room for 2n regions,
 * r and t: 3n each. */
static int check_overlap(const fb_lane_job *j, size_t n, region *w, region *r, region *t)
{
	size_t nw = 0, nr = 0;
	/* outputs, then IVs: each usually one ascending run */
	for (size_t i = 0; i < n; i++)
		if (j->len[i])
			w[nw++] = (region){ (uintptr_t)j->out[i], (uintptr_t)j->out[i] + j->len[i], i, 0 };
	for (size_t i = 0; i < n; i++)
		w[nw++] = (region){ (uintptr_t)j->ivs[i], (uintptr_t)j->ivs[i] + j->block_size, i, 1 };
	sort_regions(w, t, nw);
	for (size_t i = 1; i < nw; i++)
		if (w[i].lo < w[i - 1].hi)
			return FB_ERR_OVERLAP;
	/* reads: kind 0 input, 2 key, 3 IV */
	for (size_t i = 0; i < n; i++)
		if (j->len[i])
			r[nr++] = (region){ (uintptr_t)j->in[i], (uintptr_t)j->in[i] + j->len[i], i, 0 };
	for (size_t i = 0; j->keylen && i < n; i++)
		r[nr++] = (region){ (uintptr_t)j->keys[i], (uintptr_t)j->keys[i] + j->keylen, i, 2 };
	for (size_t i = 0; i < n; i++)
		r[nr++] = (region){ (uintptr_t)j->ivs[i], (uintptr_t)j->ivs[i] + j->block_size, i, 3 };
	sort_regions(r, t, nr);
	/* The first written region ending after a read's start only moves up
	 * as the reads' starts do. */
	for (size_t i = 0, k = 0; i < nr; i++) {
		while (k < nw && w[k].hi <= r[i].lo)
			k++;
		for (size_t m = k; m < nw && w[m].lo < r[i].hi; m++) {
			int in_place = r[i].kind == 0 && w[m].kind == 0 && w[m].stream == r[i].stream &&
				       w[m].lo == r[i].lo;
			int own_iv = r[i].kind == 3 && w[m].kind == 1 && w[m].stream == r[i].stream;
			if (!in_place && !own_iv)
				return FB_ERR_OVERLAP;
		}
	}
	return FB_OK;
}

static int check_args(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		      const fb_lane_job *j, const fb_options *opt)
{
	if (!c)
		return FB_ERR_ARGUMENT;
	if (!fb_family_has_lanes(c->family))
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
		if (mode == FB_CBC && j->len[i] % j->block_size)
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

/* ---- running a lane set ------------------------------------------------------------ */

/* Scratch for one call, allocated once. */
typedef struct {
	_Alignas(64) unsigned char x[LANES_MAX * 16], y[LANES_MAX * 16], blk[LANES_MAX * 16], cv[LANES_MAX * 16];
	const uint8_t *keyp[LANES_MAX];
	void *ks;    /* lane keys or one kernel's schedule */
	void *fused; /* a fused engine's scratch, or NULL */
	const fb_lanes *fused_by; /* the fused engine that ran, and its most lanes */
	size_t fused_nl;
	int fused_whole; /* two engines' layouts: wipe it whole */
	int steps_used;  /* run_set or run_whole wrote the blocks and ks */
} scratch;

/* Block steps over the lanes; bs is a constant at each call (8 or 16), so
 * the copies and XORs become single moves. */
static inline __attribute__((always_inline)) void steps(const fb_lane_job *j, const size_t *lane, size_t nl,
							const fb_lane_choice *e, scratch *w, unsigned bs)
{
	int dec = j->mode == FB_CBC && !j->enc; /* the cipher runs backwards only here */
	size_t nsteps = 0;
	for (size_t l = 0; l < nl; l++) {
		size_t b = (j->len[lane[l]] + bs - 1) / bs;
		nsteps = b > nsteps ? b : nsteps;
	}
	for (size_t t = 0; t < nsteps; t++) {
		size_t off = bs * t;
		for (size_t l = 0; l < nl; l++) {
			size_t s = lane[l], r = j->len[s] > off ? j->len[s] - off : 0;
			uint8_t *blk = w->blk + bs * l, *x = w->x + bs * l, *cv = w->cv + bs * l;
			if (r >= bs) { /* whole blocks: fixed-size copies, single moves */
				memcpy(blk, j->in[s] + off, bs);
			} else {
				memset(blk, 0, bs);
				memcpy(blk, j->in[s] + off, r);
			}
			/* the cipher's input: CBC-enc P ^ C, CBC-dec C, CFB/OFB the register */
			if (j->mode != FB_CBC)
				memcpy(x, cv, bs);
			else if (j->enc)
				fb_xor(x, blk, cv, bs);
			else
				memcpy(x, blk, bs);
		}
		if (e->lanes)
			e->lanes->step(w->ks, w->y, w->x, nl, dec);
		else
			(dec ? e->kernel->decrypt : e->kernel->encrypt)(w->ks, w->y, w->x, nl);
		for (size_t l = 0; l < nl; l++) {
			size_t s = lane[l], r = j->len[s] > off ? j->len[s] - off : 0;
			if (!r)
				continue;
			uint8_t o[16], *y = w->y + bs * l, *p = w->blk + bs * l, *cv = w->cv + bs * l;
			if (j->mode == FB_CBC) {
				if (dec)
					fb_xor(o, y, cv, bs);
				else
					memcpy(o, y, bs);
				memcpy(cv, j->enc ? y : p, bs);
			} else {
				fb_xor(o, y, p, bs);
				memcpy(cv, j->mode == FB_OFB ? y : j->enc ? o : p, bs);
			}
			if (r >= bs)
				memcpy(j->out[s] + off, o, bs);
			else
				memcpy(j->out[s] + off, o, r);
		}
	}
}

/* The streams lane[0..nl) (indices into the job's arrays) through a lane
 * engine's steps, or (nl = 1) through a block kernel. */
static void run_set(const fb_lane_job *j, const size_t *lane, size_t nl, const fb_lane_choice *e, scratch *w)
{
	unsigned bs = j->block_size;
	w->steps_used = 1;
	memset(w->x, 0, sizeof w->x); /* lanes past nl: defined, ignored */
	for (size_t l = 0; l < nl; l++) {
		w->keyp[l] = j->keys[lane[l]];
		memcpy(w->cv + bs * l, j->ivs[lane[l]], bs);
	}
	if (e->lanes) {
		e->lanes->setkeys(w->ks, w->keyp, j->keylen, nl);
	} else {
		memset(w->ks, 0, e->kernel->ks_size);
		e->kernel->setkey(w->ks, w->keyp[0], j->keylen);
	}
	if (!e->lanes && j->mode == FB_CBC && j->enc && e->kernel->cbc_enc) {
		/* one stream on a serial kernel: its fused chain, as fb_update
		 * runs it (des/table64: IP and FP off the chain), not block steps */
		size_t s = lane[0];
		e->kernel->cbc_enc(w->ks, j->out[s], j->in[s], j->len[s] / bs, w->cv);
	} else if (bs == 8) {
		steps(j, lane, nl, e, w, 8);
	} else {
		steps(j, lane, nl, e, w, 16);
	}
	for (size_t l = 0; l < nl; l++)
		memcpy(j->ivs[lane[l]], w->cv + bs * l, bs);
}

/* One stream's CBC or CFB decryption on its own (e->whole): the kernel's
 * fused step over the whole blocks, as fb_update runs them; a final
 * partial CFB block as the block steps end one. */
static void run_whole(const fb_lane_job *j, size_t s, const fb_lane_choice *e, scratch *w)
{
	const fb_kernel *k = e->kernel;
	unsigned bs = j->block_size;
	w->steps_used = 1;
	size_t nb = j->len[s] / bs, r = j->len[s] % bs;
	int cbc = j->mode == FB_CBC;
	memset(w->ks, 0, k->ks_size);
	fb_setkey(k, cbc ? FB_KS_DEC : FB_KS_ENC, w->ks, j->keys[s], j->keylen);
	memcpy(w->cv, j->ivs[s], bs);
	if (nb)
		(cbc ? k->cbc_dec : k->cfb_dec)(w->ks, j->out[s], j->in[s], nb, w->cv);
	if (r) { /* CFB: P = C ^ E(C'), and C zero-padded chains on */
		k->encrypt(w->ks, w->y, w->cv, 1);
		memset(w->cv, 0, bs);
		memcpy(w->cv, j->in[s] + nb * bs, r);
		fb_xor(j->out[s] + nb * bs, j->in[s] + nb * bs, w->y, r);
	}
	memcpy(j->ivs[s], w->cv, bs);
}

/* A set through a fused engine, noting what its scratch will need wiped. */
static void run_fused(const fb_lane_job *j, const size_t *lane, size_t nl, const fb_lanes *ln, scratch *w)
{
	ln->run(j, lane, nl, w->fused);
	w->fused_whole |= w->fused_by && w->fused_by != ln; /* another engine's layout */
	w->fused_by = ln;
	w->fused_nl = w->fused_nl > nl ? w->fused_nl : nl;
}

/* The fused scratch (bytes) after the call: by its engine, or whole. */
static void wipe_fused(scratch *w, size_t bytes)
{
	if (w->fused_by && w->fused_by->wipe && !w->fused_whole)
		w->fused_by->wipe(w->fused, w->fused_nl);
	else
		fb_wipe(w->fused, bytes);
}

/* ---- the call ------------------------------------------------------------------------ */

/* Bytes of lane keys or key schedule any engine of the family may need. */
static size_t keys_room(const fb_family *fam)
{
	size_t m = FB_KS_MAX;
	for (const fb_kernel *const *k = fam->parallel; *k; k++)
		if ((*k)->lanes && (*k)->lanes->keys_size > m)
			m = (*k)->lanes->keys_size;
	return m;
}

static size_t align64(size_t n)
{
	return (n + 63) / 64 * 64;
}

/* The lane sets of the call in the order lane[] gives (longest streams
 * first); order: the sorted lengths, or NULL when all are equal. */
static void run_sets(const fb_lane_job *j, size_t n, const fb_selection_query *q, const fb_lane_choice *first,
		     scratch *w, const size_t *lane, const region *order)
{
	unsigned bs = j->block_size;
	for (size_t done = 0; done < n;) {
		fb_lane_choice e = *first;
		if (done)
			fb_select_lanes(q, n - done, order ? SIZE_MAX - order[done].lo : (j->len[lane[done]] + bs - 1) / bs,
					j->keylen <= bs, &e);
		if (e.lanes && e.lanes->run && !w->fused) /* cannot happen: sets only shrink */
			e = (fb_lane_choice){ e.kernel, NULL, 0 };
		size_t nl = e.lanes ? e.lanes->max_lanes : 1;
		nl = n - done < nl ? n - done : nl;
		if (e.whole)
			run_whole(j, lane[done], &e, w);
		else if (e.lanes && e.lanes->run)
			run_fused(j, lane + done, nl, e.lanes, w);
		else
			run_set(j, lane + done, nl, &e, w);
		done += nl;
	}
}

/* The call; checked: check the regions for overlap and order the streams
 * by length (fb_multi_crypt), else the caller's buffers are disjoint by
 * construction and every stream has the same length (fb_multi_same). */
static int multi_call(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		      const uint8_t *const *keys, uint8_t *const *ivs, const uint8_t *const *in,
		      uint8_t *const *out, const size_t *len, const fb_options *opt, int checked)
{
	fb_lane_job j = { mode, dir == FB_ENCRYPT, c ? fb_cipher_key_len(c) : 0, c ? c->family->block_size : 8,
			  keys, ivs, in, out, len };
	int err = check_args(c, mode, dir, n, &j, opt);
	if (err != FB_OK || !n)
		return err;
	unsigned bs = j.block_size;
	fb_selection_query q = { c->family, mode, j.enc, SIZE_MAX, opt ? opt->flags : 0u, fb_cpu_features(),
				 opt ? opt->impl : NULL, j.keylen };
	size_t longest = 0;
	for (size_t i = 0; i < n; i++)
		longest = len[i] > longest ? len[i] : longest;
	/* the first set is the largest: its engine decides the fused scratch */
	fb_lane_choice first;
	err = fb_select_lanes(&q, n, (longest + bs - 1) / bs, j.keylen <= bs, &first);
	if (err != FB_OK)
		return err;
	size_t fused = first.lanes && first.lanes->run ? first.lanes->scratch_size : 0;
	size_t per = (checked ? 8 * sizeof(region) : 0) + sizeof(size_t), room = keys_room(c->family);
	if (n > (SIZE_MAX - sizeof(scratch) - room - fused - 256) / per)
		return FB_ERR_ARGUMENT;
	size_t need = align64(sizeof(scratch)) + align64(room) + align64(fused) + n * per + 64;
	unsigned char *mem = malloc(need);
	if (!mem)
		return FB_ERR_ARGUMENT;
	unsigned char *p = mem + (64 - (uintptr_t)mem % 64) % 64;
	scratch *w = (scratch *)(void *)p;
	w->ks = p + align64(sizeof(scratch));
	w->fused = fused ? (unsigned char *)w->ks + align64(room) : NULL;
	w->fused_by = NULL;
	w->fused_nl = 0;
	w->fused_whole = 0;
	w->steps_used = 0;
	region *reg = (region *)(void *)((unsigned char *)w->ks + align64(room) + align64(fused));
	region *rd = reg + 2 * n, *tmp = rd + 3 * n;
	region *order = checked ? rd : NULL; /* after the checks: by length, longest first (lo = SIZE_MAX - blocks) */
	size_t *lane = (size_t *)(void *)(checked ? (unsigned char *)(tmp + 3 * n) : (unsigned char *)reg);
	if (checked)
		err = check_overlap(&j, n, reg, rd, tmp);
	if (err == FB_OK) {
		for (size_t i = 0; i < n; i++)
			lane[i] = i;
		if (checked) {
			for (size_t i = 0; i < n; i++)
				order[i] = (region){ SIZE_MAX - (len[i] + bs - 1) / bs, 0, i, 0 };
			sort_regions(order, tmp, n); /* stable: equal lengths keep their order */
			for (size_t i = 0; i < n; i++)
				lane[i] = order[i].stream;
		}
		run_sets(&j, n, &q, &first, w, lane, order);
	}
	/* What the call wrote of keys and data: the block steps' scratch and
	 * the key schedule, the fused engine's scratch (its own wipe, what it
	 * used). The stream order and the checks' regions are lengths and
	 * addresses. */
	if (fused)
		wipe_fused(w, fused);
	if (w->steps_used)
		fb_wipe(p, align64(sizeof(scratch)) + align64(room));
	free(mem);
	return err;
}

int fb_multi_crypt(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		   const uint8_t *const *keys, uint8_t *const *ivs, const uint8_t *const *in,
		   uint8_t *const *out, const size_t *len, const fb_options *opt)
{
	return multi_call(c, mode, dir, n, keys, ivs, in, out, len, opt, 1);
}

int fb_multi_same(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		  const uint8_t *const *keys, uint8_t *const *ivs, const uint8_t *const *in,
		  uint8_t *const *out, const size_t *len)
{
	for (size_t i = 1; i < n; i++)
		if (len[i] != len[0])
			return FB_ERR_ARGUMENT;
	return multi_call(c, mode, dir, n, keys, ivs, in, out, len, NULL, 0);
}
