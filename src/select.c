/*
 * The one place that decides which implementation runs: for a family,
 * mode, direction, message-length hint, flags and CPU, the kernel that
 * takes parallel batches and the kernel that runs serial chains.
 *
 * Every preference is data: each family's lists (src/<family>/<family>_impls.c,
 * best first), the family's one-shot rows (small), and the mode
 * rows below. The figures behind them are in docs/benchmarks.md.
 */
#include <strings.h>
#include "select.h"

/* Which list serves a mode in each direction. */
static const struct {
	enum fb_mode mode;
	unsigned char enc_parallel, dec_parallel;
	const char *why;
} mode_rows[] = {
	{ FB_ECB, 1, 1, "every block is independent" },
	{ FB_CTR, 1, 1, "every keystream block is independent" },
	{ FB_XTS, 1, 1, "every block is independent once its tweak is known" },
	{ FB_CBC, 0, 1, "encryption is a chain; decryption of known ciphertext is not" },
	{ FB_CFB, 0, 1, "encryption is a chain; each decryption keystream block comes from known ciphertext" },
	{ FB_CFB8, 0, 1, "decryption: every shift register value is known ciphertext" },
	{ FB_OFB, 0, 0, "the keystream is a chain in both directions" },
};

/* Parallel work that needs no serial kernel of its own: ECB, and CBC
 * decryption (its last block and padding go through the parallel kernel
 * too); and CTR, whose only single block is a message's partial last one
 * (a streaming context on a wide kernel makes its keystream in batches,
 * src/modes/block_modes.c). The ladder's last rung makes that block at
 * a one-block cost (fb_select), while a serial schedule would be key
 * setup spent on one block: for 3DES a third
 * of fb_init (docs/architecture.md). XTS too: its serial kernel only
 * encrypts each message's tweak, under the tweak key, so the last rung
 * does that in the data key's format (a serial kernel of another format,
 * such as serpent/bitslice beside serpent/avx512 on AMD Zen, would cost a
 * third schedule). CFB and CFB8 decryption chain single blocks (a partial
 * block, short CFB8 input). */
static int serial_unused(enum fb_mode mode, int encrypt)
{
	return mode == FB_ECB || mode == FB_CTR || mode == FB_XTS || (mode == FB_CBC && !encrypt);
}

int fb_mode_parallel(enum fb_mode mode, int encrypt)
{
	for (size_t i = 0; i < sizeof mode_rows / sizeof *mode_rows; i++)
		if (mode_rows[i].mode == mode)
			return encrypt ? mode_rows[i].enc_parallel : mode_rows[i].dec_parallel;
	return 0;
}

static int runs_on(const fb_kernel *k, uint32_t cpu)
{
	return (cpu & k->cpu_needs) == k->cpu_needs;
}

/* A row's only_on: the FB_CPU_ properties a CPU must all have (0: any). */
static int of_class(uint32_t cpu, uint32_t only_on)
{
	return (cpu & only_on) == only_on;
}

/* serial: the list serves chains of one block (fb_kernel.serial_avoid_on). */
static const fb_kernel *first_usable(const fb_kernel *const *list, uint32_t cpu, int need_ct, int serial)
{
	for (; *list; list++)
		if (runs_on(*list, cpu) && !(cpu & (*list)->avoid_on) &&
		    !(serial && (cpu & (*list)->serial_avoid_on)) && (!need_ct || (*list)->constant_time))
			return *list;
	return NULL;
}

/* The implementation named for this family: forced (the options), else
 * the entry of FASTBLOCK_IMPL (comma-separated names) of this family. */
static const char *forced_name(const fb_family *fam, const char *forced, char *buf, size_t cap)
{
	if (forced)
		return forced;
	const char *env = fb_env_impl();
	if (!env || !*env)
		return NULL; /* the usual case: no strlen on every fb_init */
	size_t flen = strlen(fam->name);
	while (env && *env) {
		const char *end = strchr(env, ',');
		size_t n = end ? (size_t)(end - env) : strlen(env);
		if (n > flen && n < cap && !strncasecmp(env, fam->name, flen) && env[flen] == '/') {
			memcpy(buf, env, n);
			buf[n] = 0;
			return buf;
		}
		env = end ? end + 1 : NULL;
	}
	return NULL;
}

/* The named kernel if it is of this family and runs on cpu, else NULL. */
static const fb_kernel *forced_kernel(const fb_family *fam, const char *name, uint32_t cpu)
{
	const fb_kernel *k = fb_kernel_by_name(name);
	return k && !strcmp(k->family, fam->name) && runs_on(k, cpu) ? k : NULL;
}

/* The family's one-shot row for this message, or NULL. */
static const fb_kernel *small_kernel(const fb_selection_query *q, int need_ct)
{
	const fb_kernel *decided = NULL; /* a row for this CPU's class already spoke for it */
	for (const struct fb_small_row *r = q->family->small; r && r->kernel; r++) {
		if (r->kernel == decided || !runs_on(r->kernel, q->cpu) || !of_class(q->cpu, r->only_on))
			continue;
		decided = r->kernel;
		if (q->len_hint <= r->max && (!need_ct || r->kernel->constant_time) &&
		    (!r->parallel_only || fb_mode_parallel(q->mode, q->encrypt)))
			return r->kernel;
	}
	return NULL;
}

/* The family's ladder below the chosen parallel kernel: each row whose
 * wide kernel is the last one chosen adds its narrow kernel, if it runs
 * here, keeps a constant-time promise, fits the key length and is for
 * this CPU's class. */
static void ladder_of(const fb_selection_query *q, int need_ct, fb_selection *out)
{
	const fb_kernel *cur = out->par;
	for (const struct fb_ladder_row *r = q->family->ladder; r && r->wide; r++) {
		if (r->wide != cur || out->nrungs == FB_LADDER_MAX || !runs_on(r->narrow, q->cpu) ||
		    (need_ct && !r->narrow->constant_time) || (r->keylen_max && q->key_len > r->keylen_max) ||
		    !of_class(q->cpu, r->only_on))
			continue;
		out->rung[out->nrungs++] = (struct fb_rung_choice){ r->narrow, r->below, r->tails };
		cur = r->narrow;
	}
}

int fb_select(const fb_selection_query *q, fb_selection *out)
{
	const fb_family *fam = q->family;
	int need_ct = (q->flags & FB_FLAG_CONSTANT_TIME) != 0;
	char buf[64];
	const char *name = forced_name(fam, q->forced, buf, sizeof buf);
	out->wide = 0;
	out->nrungs = 0;
	if (name) {
		const fb_kernel *k = forced_kernel(fam, name, q->cpu);
		if (!k)
			return FB_ERR_IMPL_UNAVAILABLE;
		if (need_ct && !k->constant_time)
			return FB_ERR_NOT_CONSTANT_TIME;
		out->par = out->ser = k;
		out->wide = fb_mode_parallel(q->mode, q->encrypt) && k->batch > 1;
		return FB_OK;
	}
	out->par = first_usable(fam->parallel, q->cpu, need_ct, 0);
	out->ser = first_usable(fam->serial, q->cpu, need_ct, 1);
	if (!out->ser)
		out->ser = first_usable(fam->parallel, q->cpu, need_ct, 1);
	if (!out->par || !out->ser)
		return need_ct ? FB_ERR_NOT_CONSTANT_TIME : FB_ERR_IMPL_UNAVAILABLE;
	const fb_kernel *small = small_kernel(q, need_ct);
	if (small) {
		/* a short one-shot message: the wide kernels' key setup costs
		 * more than they save */
		out->par = out->ser = small;
	} else if (!fb_mode_parallel(q->mode, q->encrypt)) {
		out->par = out->ser; /* no key schedule for a kernel never called */
	} else if (serial_unused(q->mode, q->encrypt)) {
		out->ser = out->par; /* likewise */
	}
	out->wide = fb_mode_parallel(q->mode, q->encrypt) && out->par->batch > 1;
	if (out->wide && !small)
		ladder_of(q, need_ct, out);
	if (out->nrungs && out->ser == out->par) /* single blocks: the ladder's last rung */
		out->ser = out->rung[out->nrungs - 1].kernel;
	return FB_OK;
}

static int lanes_pay(const fb_lanes *ln, uint32_t cpu, size_t streams, int one_key)
{
	size_t lanes = streams < ln->max_lanes ? streams : ln->max_lanes;
	const struct fb_lanes_min *m = &ln->min[0];
	if (!of_class(cpu, m->only_on))
		m = &ln->min[1];
	return lanes >= m->lanes[one_key ? 0 : 1];
}

/* CBC and CFB decryption are parallel within a stream, so a stream can
 * run alone the way fb_update runs a message of its length: the kernel
 * of the ladder for that many blocks, through its fused step. That pays
 * when the stream fills the lanes better than the streams fill a lane
 * engine: at least a whole batch of the wide kernel, or at least as many
 * blocks as there are streams left (the lane engines take one block of
 * each stream a step; docs/benchmarks.md, multi-stream decryption).
 * NULL: the lanes. */
static const fb_kernel *whole_stream(const fb_selection_query *q, size_t streams, size_t blocks)
{
	const size_t bs = q->family->block_size;
	fb_selection_query one = *q;
	fb_selection sel;
	one.len_hint = SIZE_MAX; /* the wide kernel, not a one-shot row's */
	if (!fb_mode_parallel(q->mode, q->encrypt) || fb_select(&one, &sel) != FB_OK || !sel.wide ||
	    (blocks < streams && blocks < sel.par->batch))
		return NULL;
	one.len_hint = blocks <= SIZE_MAX / bs ? blocks * bs : SIZE_MAX;
	if (fb_select(&one, &sel) != FB_OK)
		return NULL;
	const fb_kernel *k = sel.par;
	for (unsigned i = 0; i < sel.nrungs; i++) /* widest first: the narrowest that takes the run */
		if (blocks < sel.rung[i].below)
			k = sel.rung[i].kernel;
	return (q->mode == FB_CBC ? k->cbc_dec != NULL : k->cfb_dec != NULL) ? k : NULL;
}

int fb_select_lanes(const fb_selection_query *q, size_t streams, size_t blocks, int one_key,
		    fb_lane_choice *out)
{
	const fb_family *fam = q->family;
	int need_ct = (q->flags & FB_FLAG_CONSTANT_TIME) != 0;
	char buf[64];
	const char *name = forced_name(fam, q->forced, buf, sizeof buf);
	out->whole = 0;
	if (name) {
		const fb_kernel *k = forced_kernel(fam, name, q->cpu);
		if (!k)
			return FB_ERR_IMPL_UNAVAILABLE;
		if (need_ct && !(k->lanes ? k->lanes->constant_time : k->constant_time))
			return FB_ERR_NOT_CONSTANT_TIME;
		out->kernel = k;
		out->lanes = k->lanes;
		return FB_OK;
	}
	if ((out->kernel = whole_stream(q, streams, blocks))) {
		out->lanes = NULL;
		out->whole = 1;
		return FB_OK;
	}
	/* the first lane engine, in the parallel preference order, that pays */
	for (const fb_kernel *const *k = fam->parallel; *k; k++) {
		const fb_lanes *ln = (*k)->lanes;
		if (ln && runs_on(*k, q->cpu) && !(q->cpu & (*k)->avoid_on) && (!need_ct || ln->constant_time) &&
		    lanes_pay(ln, q->cpu, streams, one_key)) {
			out->kernel = *k;
			out->lanes = ln;
			return FB_OK;
		}
	}
	/* else one stream at a time on the serial chains' kernel */
	out->lanes = NULL;
	out->kernel = first_usable(fam->serial, q->cpu, need_ct, 1);
	if (!out->kernel)
		out->kernel = first_usable(fam->parallel, q->cpu, need_ct, 1);
	if (!out->kernel)
		return need_ct ? FB_ERR_NOT_CONSTANT_TIME : FB_ERR_IMPL_UNAVAILABLE;
	return FB_OK;
}

int fb_family_has_lanes(const fb_family *fam)
{
	for (const fb_kernel *const *k = fam->parallel; *k; k++)
		if ((*k)->lanes)
			return 1;
	return 0;
}
