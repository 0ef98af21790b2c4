/*
 * The public API: context setup (kernel choice, keys, options), streaming
 * and one-shot calls, error texts, DES key helpers.
 */
#include <stdlib.h>
#include "modes/update.h"
#include "api_private.h"
#include "select.h"
#include "des/des_keys.h"

const char *fb_strerror(int err)
{
	switch (err) {
	case FB_OK: return "success";
	case FB_ERR_UNKNOWN_CIPHER: return "unknown cipher or mode";
	case FB_ERR_KEY_LENGTH: return "key length not accepted by this cipher";
	case FB_ERR_IV_LENGTH: return "IV missing or of the wrong length for this mode";
	case FB_ERR_DATA_LENGTH: return "data length not a multiple of the block size (or too short) for this mode";
	case FB_ERR_BAD_PADDING: return "bad padding: wrong key, corrupted data or wrong padding scheme";
	case FB_ERR_WEAK_KEY: return "weak, semi-weak or degenerate DES key refused (strict keys)";
	case FB_ERR_IMPL_UNAVAILABLE: return "no such implementation for this cipher, or this CPU cannot run it";
	case FB_ERR_OVERLAP: return "output buffer partially overlaps the input";
	case FB_ERR_ARGUMENT: return "invalid argument (NULL pointer, bad option, or a length past the end of memory)";
	case FB_ERR_OUTPUT_SPACE: return "output buffer too small";
	case FB_ERR_STATE: return "context not initialised or already finished";
	case FB_ERR_NOT_CONSTANT_TIME: return "implementation is not constant-time (constant-time required)";
	case FB_ERR_PADDING_MODE: return "padding applies only to ECB and CBC";
	case FB_ERR_XTS_KEYS: return "XTS key halves are equal (the data and tweak keys must differ)";
	case FB_ERR_CTX_SIZE: return "context too small for this cipher and options (see fb_ctx_size)";
	default: return "unknown error code";
	}
}

/* ---- context layout -----------------------------------------------------
 *
 * A context is a header that no wipe touches (its capacity, sealed so
 * that memory never made into a context is refused), the state, then the
 * key schedules fb_init places (ctx_layout): the parallel kernel's, those
 * of its ladder and the serial kernel's, one per schedule format (kernels
 * with the same setkey share one), and XTS's tweak key, each on a 64-byte
 * boundary as the SIMD kernels load them. */

typedef struct ctx_head {
	size_t cap;  /* bytes the caller gave, header included */
	size_t seal; /* cap ^ CTX_SEAL */
} ctx_head;

#define CTX_SEAL ((size_t)0x66624374785a6531ull)
#define ROUND64(n) (((n) + 63u) & ~(size_t)63u)
#define STATE_AT ROUND64(sizeof(ctx_head))
#define AREAS_AT (STATE_AT + ROUND64(sizeof(fb_state)))

static ctx_head *head_of(fb_ctx *ctx)
{
	return (ctx_head *)(void *)ctx;
}

static fb_state *state_of(fb_ctx *ctx)
{
	return (fb_state *)(void *)((unsigned char *)ctx + STATE_AT);
}

static const fb_state *cstate_of(const fb_ctx *ctx)
{
	return (const fb_state *)(const void *)((const unsigned char *)ctx + STATE_AT);
}

static int head_ok(fb_ctx *ctx)
{
	const ctx_head *h = head_of(ctx);
	return h->cap >= AREAS_AT && h->seal == (h->cap ^ CTX_SEAL);
}

/* Schedules: [0] the parallel kernel, [1..nrungs] its ladder, then the
 * serial kernel. */
#define KS_SLOTS (FB_LADDER_MAX + 2)

/* A context's areas: first what fb_init fills (the serial kernel's
 * schedule, shared by the slots of its format; XTS's tweak key; the kept
 * data key), then the schedules built on a run's first use, then CTR's
 * kept keystream. Only the first part is cleared and filled per key, so
 * re-keying for short messages does not touch a wide kernel's 9 KB. */
typedef struct ctx_layout {
	const fb_kernel *kernel[KS_SLOTS];
	size_t at[KS_SLOTS];    /* offsets of the schedules */
	size_t bytes[KS_SLOTS]; /* their sizes */
	int lazy[KS_SLOTS];     /* 1: built on the slot's first run, not at fb_init */
	unsigned slots;
	size_t key, key_bytes;  /* the kept data key (key_bytes 0: none) */
	size_t tweak;           /* XTS's tweak key (0: none) */
	size_t eager_end;       /* the end of what fb_init fills */
	int ser_lazy;           /* the serial slot waits too (fb_state.ser_lazy) */
	size_t ctr, ctr_bytes;  /* CTR's kept keystream (ctr_bytes 0: none) */
	size_t total;
} ctx_layout;

/* A kernel's schedule for one key of klen bytes (0: not known, the largest). */
static size_t ks_bytes(const fb_kernel *k, size_t klen)
{
	return ROUND64(k->ks_bytes && klen ? k->ks_bytes(klen) : k->ks_size);
}

/* Gives every slot of lazy-ness `lazy` still without an area one: an
 * earlier slot's of the same format, else a new one at *at. */
static void place(ctx_layout *l, int lazy, size_t klen, size_t *at)
{
	for (unsigned i = 0; i < l->slots; i++) {
		if (l->lazy[i] != lazy)
			continue;
		unsigned j = 0;
		while (j < i && (l->lazy[j] != lazy || l->kernel[j]->setkey != l->kernel[i]->setkey))
			j++;
		if (j < i) {
			l->at[i] = l->at[j];
			l->bytes[i] = l->bytes[j];
		} else {
			l->at[i] = *at;
			l->bytes[i] = ks_bytes(l->kernel[i], klen);
			*at += l->bytes[i];
		}
	}
}

/* klen: the key length fb_init gets (XTS: both halves), 0 if not known;
 * stream: a streaming context (one-shot calls keep no CTR keystream). */
static void layout_of(const fb_selection *sel, enum fb_mode mode, size_t klen, int stream,
		      ctx_layout *l)
{
	size_t at = AREAS_AT;
	if (mode == FB_XTS)
		klen /= 2;
	l->slots = 0;
	l->kernel[l->slots++] = sel->par;
	for (unsigned i = 0; i < sel->nrungs; i++)
		l->kernel[l->slots++] = sel->rung[i].kernel;
	l->kernel[l->slots++] = sel->ser;
	/* fb_init builds only the serial kernel's format (single blocks,
	 * chains, the last rung); the others wait for a run that reaches
	 * them, so a short message never pays for a wide kernel's schedule. */
	/* In a parallel direction the serial kernel serves only single
	 * blocks (the ladder's last rung; a partial block of CFB decryption,
	 * short CFB8 input), so where the wide kernel has another format
	 * fb_init builds nothing: an 8 KB message of 3DES on des/bs-avx512
	 * never reaches des/table, whose schedule is ~300 TSC ticks, nor one
	 * of Serpent CFB8 decryption on serpent/avx512 serpent/bitslice's. */
	l->ser_lazy = sel->wide && sel->par->setkey != sel->ser->setkey;
	l->key_bytes = 0;
	for (unsigned i = 0; i < l->slots; i++) {
		l->lazy[i] = l->ser_lazy || l->kernel[i]->setkey != sel->ser->setkey;
		if (l->lazy[i])
			l->key_bytes = ROUND64(klen ? klen : FB_KEY_MAX);
	}
	place(l, 0, klen, &at);
	l->tweak = 0;
	if (mode == FB_XTS) { /* the tweak key runs on the serial kernel */
		l->tweak = at;
		at += ks_bytes(sel->ser, klen);
	}
	l->key = at;
	at += l->key_bytes;
	l->eager_end = at;
	place(l, 1, klen, &at);
	l->ctr = at;
	l->ctr_bytes = mode == FB_CTR && stream ? fb_ctr_keep_bytes(sel->par, sel->wide) : 0;
	at += ROUND64(l->ctr_bytes);
	l->total = at;
}

/* 1 if a context's state holds its areas' extents: a caller's
 * never-initialised context could hold the magic by chance, so the
 * extents are trusted only inside the capacity. */
static int areas_known(fb_ctx *ctx)
{
	const fb_state *s = state_of(ctx);
	return s->magic == FB_MAGIC_READY && s->used > AREAS_AT && s->used <= head_of(ctx)->cap &&
	       s->eager_end >= AREAS_AT && s->eager_end <= s->used;
}

/* Wipes the key schedules (with `eager`, also what fb_init fills: the
 * serial kernel's, the tweak key's, the kept key), and CTR's keystream,
 * of a context whose areas are known. Schedules built on first use are
 * zeroed when built (fb_rung_key) and marked unbuilt here, so an unbuilt
 * one is never cleared. */
static inline __attribute__((always_inline)) void wipe_areas(fb_ctx *ctx, int eager)
{
	fb_state *s = state_of(ctx);
	unsigned char *base = (unsigned char *)ctx, *lazy = base + s->eager_end;
	fb_ctr_forget(s); /* what was made of it */
	s->short_firsts = 0;
	if (eager)
		fb_wipe(base + AREAS_AT, s->eager_end - AREAS_AT);
	if (!s->lazy_built)
		return;
	s->lazy_built = 0;
	for (unsigned i = 0; i < s->nrungs && i < FB_LADDER_MAX + 1; i++) {
		fb_rung *r = &s->rung[i];
		unsigned char *a = r->area;
		if (a < lazy || a + r->area_bytes > base + s->used)
			continue;
		if (r->ks)
			fb_wipe(a, r->area_bytes); /* shared areas: again, cheaply */
		r->ks = NULL;
	}
	if (s->ser_lazy && s->ks_ser) {
		unsigned char *a = fb_ser_area(s);
		if (a >= lazy && a + s->ser_area_bytes <= base + s->used)
			fb_wipe(a, s->ser_area_bytes);
		s->ks_ser = NULL;
	}
}

/* Wipes the state and everything wipe_areas does. Returns the offset up
 * to which the areas are now known to be zero (AREAS_AT: none): the end
 * of what fb_init filled. */
static size_t wipe_used(fb_ctx *ctx)
{
	fb_state *s = state_of(ctx);
	size_t zero = AREAS_AT;
	if (areas_known(ctx)) {
		wipe_areas(ctx, 1);
		zero = s->eager_end;
	}
	fb_wipe(s, sizeof *s);
	return zero;
}

fb_ctx *fb_ctx_place(void *mem, size_t size)
{
	if (!mem || (uintptr_t)mem % FB_CTX_ALIGN || size < AREAS_AT)
		return NULL;
	fb_ctx *ctx = mem;
	ctx_head *h = head_of(ctx);
	h->cap = size;
	h->seal = size ^ CTX_SEAL;
	memset(state_of(ctx), 0, sizeof(fb_state)); /* key areas are zeroed by fb_init as used */
	return ctx;
}

static fb_ctx *ctx_alloc(size_t size)
{
	if (!size)
		return NULL;
	size = ROUND64(size); /* aligned_alloc wants a multiple of the alignment */
	void *mem = aligned_alloc(FB_CTX_ALIGN, size);
	return mem ? fb_ctx_place(mem, size) : NULL;
}

/* Bytes for the largest context any cipher, direction and option needs:
 * the largest schedule as the parallel one and again as the serial one,
 * and once more for XTS's tweak key where the block is 16 bytes (or
 * CTR's kept keystream). */
static size_t ctx_size_max(void)
{
	size_t need = AREAS_AT;
	const fb_kernel *k;
	for (size_t i = 0; (k = fb_kernel_at(i)); i++) {
		size_t n = AREAS_AT + ROUND64(k->ks_size) * (k->block_size == 16 ? 3 : 2) +
			   ROUND64(FB_KEY_MAX) + ROUND64(fb_ctr_keep_bytes(k, 1));
		if (n > need)
			need = n;
	}
	return need;
}

fb_ctx *fb_ctx_new(void)
{
	return ctx_alloc(ctx_size_max());
}

void fb_ctx_wipe(fb_ctx *ctx)
{
	if (ctx && head_ok(ctx))
		fb_wipe(state_of(ctx), head_of(ctx)->cap - STATE_AT);
}

void fb_ctx_free(fb_ctx *ctx)
{
	if (!ctx)
		return;
	wipe_used(ctx); /* key material only ever lives in the areas in use */
	fb_wipe(head_of(ctx), sizeof(ctx_head));
	free(ctx);
}

/* ---- DES keys ------------------------------------------------------------- */

int fb_des_check_parity(const uint8_t *key, size_t len)
{
	if (!key)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!(__builtin_popcount(key[i]) & 1))
			return 0;
	return 1;
}

void fb_des_set_parity(uint8_t *key, size_t len)
{
	for (size_t i = 0; key && i < len; i++)
		key[i] = (uint8_t)((key[i] & 0xFE) | !(__builtin_popcount(key[i] & 0xFE) & 1));
}

int fb_des_is_weak_key(const uint8_t key[8])
{
	return key ? fb_des_weak(key) : 0;
}

/* 1 if n bytes of a and b agree; no early exit, so the time does not tell
 * how much of two secret keys matches. */
static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	unsigned d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned)(a[i] ^ b[i]);
	return d == 0;
}

/* ---- kernel choice ------------------------------------------------------------ */

/* The kernels for c, dir and opt; len_hint: the whole message's length
 * when the caller knows it (one-shot calls), else SIZE_MAX. */
static int choose_kernels(const fb_cipher *c, enum fb_direction dir, const fb_options *opt,
			  size_t len_hint, size_t key_len, fb_selection *sel)
{
	fb_selection_query q = {
		c->family, c->mode, dir == FB_ENCRYPT, len_hint, opt ? opt->flags : 0u,
		fb_cpu_features(), opt ? opt->impl : NULL, c->mode == FB_XTS ? key_len / 2 : key_len,
	};
	return fb_select(&q, sel);
}

/* Fills what fb_init builds: the kept data key, XTS's tweak key and the
 * serial kernel's schedule (zeroed, as kernels want it), last so that
 * the re-key path ends in a jump to it. */
static inline __attribute__((always_inline)) int fill_keys(fb_state *s, const uint8_t *key)
{
	if (s->key)
		memcpy((void *)s->key, key, s->klen);
	if (s->ks_tweak) { /* the tweak is only ever encrypted */
		int rc = fb_setkey(s->ser, FB_KS_ENC, (void *)s->ks_tweak, key + s->klen, s->klen);
		if (rc)
			return rc;
	}
	return s->ser_lazy ? FB_OK : fb_setkey(s->ser, s->ks_use, (void *)s->ks_ser, key, s->klen);
}

/* Places the key schedules inside the context and fills them. Below
 * `zeroed` the areas are already zero (the previous key's wipe), so a
 * re-keyed context is not cleared twice. */
static int set_keys(fb_ctx *ctx, fb_state *s, const ctx_layout *l, const uint8_t *key, size_t key_len,
		    size_t zeroed)
{
	unsigned char *base = (unsigned char *)ctx;
	/* The eager areas hold the serial kernel's format (its schedule, the
	 * tweak key's) and the kept key, which nothing reads past klen: when
	 * that setkey writes all of its schedule, they need no zeroing (a
	 * Serpent fb_init: 2.7 KB, ~50 TSC ticks of ~500). */
	if (zeroed < l->eager_end && !s->ser->fills_schedule)
		memset(base + zeroed, 0, l->eager_end - zeroed);
	s->klen = s->mode == FB_XTS ? key_len / 2 : key_len;
	s->ser_at = (unsigned)(base + l->at[l->slots - 1] - (unsigned char *)s);
	s->ser_area_bytes = (unsigned)l->bytes[l->slots - 1];
	s->ks_ser = l->ser_lazy ? NULL : fb_ser_area(s);
	s->ks_tweak = l->tweak ? base + l->tweak : NULL;
	s->key = l->key_bytes ? base + l->key : NULL;
	for (unsigned i = 0; i < s->nrungs; i++) {
		s->rung[i].area = base + l->at[i];
		s->rung[i].area_bytes = (unsigned)l->bytes[i];
		s->rung[i].ks = l->lazy[i] ? NULL : base + l->at[i];
	}
	return fill_keys(s, key);
}

static int check_init_args(const fb_cipher *c, const uint8_t *key, size_t key_len,
			   const uint8_t *iv, size_t iv_len, const fb_options *opt)
{
	if (!c)
		return FB_ERR_UNKNOWN_CIPHER;
	if (!key && key_len)
		return FB_ERR_ARGUMENT;
	if (!fb_cipher_key_ok(c, key_len))
		return FB_ERR_KEY_LENGTH;
	if (iv_len != fb_cipher_iv_len(c) || (iv_len && !iv))
		return FB_ERR_IV_LENGTH;
	/* IEEE 1619 needs two independent keys; equal halves make the tweak
	 * key the data key, and OpenSSL refuses them too. */
	if (c->mode == FB_XTS && same_bytes(key, key + key_len / 2, key_len / 2))
		return FB_ERR_XTS_KEYS;
	return fb_options_check(c, opt, key, key_len);
}

/* 1 if iv and iv_len do not suit a ready context (fb_cipher_iv_len
 * from the state, without the call). */
static int iv_bad(const fb_state *s, const uint8_t *iv, size_t iv_len)
{
	return iv_len != (s->mode == FB_ECB ? 0 : s->bs) || (iv_len && !iv);
}

/* check_init_args for a context whose plan stands (same_plan): the
 * cipher, its key length and the options' flags and padding passed it
 * then, so only what may differ with the new call is checked: the key
 * and IV pointers, the IV's length, XTS's two halves and strict keys. */
static int check_rekey_args(const fb_state *s, const uint8_t *key, size_t key_len, const uint8_t *iv,
			    size_t iv_len, const fb_options *opt)
{
	if (!key && key_len)
		return FB_ERR_ARGUMENT;
	if (iv_bad(s, iv, iv_len))
		return FB_ERR_IV_LENGTH;
	if (s->mode == FB_XTS && same_bytes(key, key + key_len / 2, key_len / 2))
		return FB_ERR_XTS_KEYS;
	return opt && (opt->flags & FB_FLAG_STRICT_KEYS) ? fb_options_check(s->c, opt, key, key_len) : FB_OK;
}

/* The checks of fb_init that need no context, then the kernel choice
 * and the context bytes it needs. */
static int plan_ctx(const fb_cipher *c, enum fb_direction dir, const uint8_t *key, size_t key_len,
		    const uint8_t *iv, size_t iv_len, const fb_options *opt, size_t len_hint,
		    fb_selection *sel, ctx_layout *l)
{
	int rc = check_init_args(c, key, key_len, iv, iv_len, opt);
	if (rc)
		return rc;
	if (dir != FB_ENCRYPT && dir != FB_DECRYPT)
		return FB_ERR_ARGUMENT;
	if ((rc = choose_kernels(c, dir, opt, len_hint, key_len, sel)))
		return rc;
	layout_of(sel, c->mode, key_len, len_hint == SIZE_MAX, l);
	return FB_OK;
}

/* restart but for CTR's kept keystream: the buffers emptied and, with an
 * IV, the stream started there (XTS: the tweak is the data-unit number
 * under key 2). */
static inline __attribute__((always_inline)) void restart_at(fb_state *s, const uint8_t *iv, size_t iv_len)
{
	fb_wipe(s->buf, sizeof s->buf);
	fb_wipe(s->ksb, sizeof s->ksb);
	s->buf_len = 0;
	s->pos = s->bs;
	if (!iv_len)
		return;
	fb_copy_small(s->iv, iv, iv_len);
	s->tweak_pending = s->mode == FB_XTS; /* encrypted before the first block */
}

/* Empties a ready context's stream and, with an IV, starts it there. */
static inline __attribute__((always_inline)) void restart(fb_state *s, const uint8_t *iv, size_t iv_len)
{
	fb_ctr_forget(s);
	restart_at(s, iv, iv_len);
}

/* The options a context keeps: the caller's, or the defaults for NULL. */
static fb_options options_of(const fb_options *opt)
{
	return opt ? *opt : (fb_options){ .padding = FB_PAD_DEFAULT };
}

/* How many threads large runs may use, from the kept options. */
static unsigned threads_of(const fb_state *s)
{
	return s->opt.flags & FB_FLAG_THREADS ? 0 : 1;
}

/* Sets up a context whose plan fits it. */
static int init_ctx(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const uint8_t *key,
		    size_t key_len, const uint8_t *iv, size_t iv_len, const fb_options *opt,
		    const fb_selection *sel, const ctx_layout *l, size_t zeroed)
{
	fb_state *s = state_of(ctx);
	s->c = c;
	s->mode = c->mode;
	s->encrypt = dir == FB_ENCRYPT;
	/* only ECB, CBC and XTS decrypt with the data key */
	int decrypts = !s->encrypt && (s->mode == FB_ECB || s->mode == FB_CBC || s->mode == FB_XTS);
	s->ks_use = decrypts ? FB_KS_DEC : FB_KS_ENC;
	s->bs = c->family->block_size;
	s->bs_shift = s->bs == 16 ? 4 : 3;
	s->pos = s->bs;
	s->padding = opt ? opt->padding : FB_PAD_DEFAULT;
	if (s->padding == FB_PAD_DEFAULT)
		s->padding = (s->mode == FB_ECB || s->mode == FB_CBC) ? FB_PAD_PKCS7 : FB_PAD_NONE;
	s->direct_mask = fb_stream_direct_mask(s);
	s->direct_run = fb_mode_direct_run(s);
	s->par = sel->par;
	s->ser = sel->ser;
	s->nrungs = 1 + sel->nrungs;
	s->rung[0] = (fb_rung){ .k = sel->par, .below = SIZE_MAX };
	for (unsigned i = 0; i < sel->nrungs; i++) {
		s->rung[i + 1] = (fb_rung){ .k = sel->rung[i].kernel, .below = sel->rung[i].below };
		s->rung[i].tail_below = sel->rung[i].tails ? (unsigned)sel->rung[i].below : 0;
	}
	s->rung[s->nrungs] = (fb_rung){ 0 };
	s->key_len = key_len;
	s->opt = options_of(opt);
	s->threads = threads_of(s);
	s->ctr_ks = (unsigned char *)ctx + l->ctr;
	s->ctr_cap = (unsigned)l->ctr_bytes;
	s->used = l->total;
	s->eager_end = l->eager_end;
	s->ser_lazy = l->ser_lazy;
	s->short_firsts = 0;
	s->magic = FB_MAGIC_READY; /* from here wipe_used knows the areas */
	int rc = set_keys(ctx, s, l, key, key_len, zeroed);
	if (rc) {
		wipe_used(ctx);
		return rc;
	}
	restart(s, iv, iv_len);
	return FB_OK;
}

/* 1 if a ready context was set up for this cipher, direction, key length
 * and options: its kernels and layout stand, and only the keys change. */
static int same_plan(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, size_t key_len,
		     const fb_options *opt)
{
	const fb_state *s = state_of(ctx);
	if (!areas_known(ctx) || s->c != c || s->key_len != key_len || s->encrypt != (dir == FB_ENCRYPT) ||
	    (dir != FB_ENCRYPT && dir != FB_DECRYPT))
		return 0;
	if (!opt) /* options_of(NULL) */
		return !s->opt.flags && s->opt.padding == FB_PAD_DEFAULT && !s->opt.impl;
	return s->opt.flags == opt->flags && s->opt.padding == opt->padding && s->opt.impl == opt->impl;
}

/* fb_init for a context whose plan stands (same_plan): about half the
 * instructions of a full set-up for AES, whose key schedule is short. */
static NOINLINE int rekey(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const uint8_t *key,
			  size_t key_len, const uint8_t *iv, size_t iv_len, const fb_options *opt)
{
	(void)c, (void)dir; /* fb_init's parameters, so that its call is a jump */
	fb_state *s = state_of(ctx);
	int rc = check_rekey_args(s, key, key_len, iv, iv_len, opt);
	if (rc) {
		wipe_used(ctx);
		return rc;
	}
	wipe_areas(ctx, 0);
	s->threads = threads_of(s);
	fb_wipe(s->iv, sizeof s->iv);
	restart(s, iv, iv_len);
	/* The same kernels and key length write the same bytes of the same
	 * areas: the new schedules and key overwrite the old ones, and what
	 * no setkey writes is still zero from the first fb_init. A setkey
	 * refuses only a key length, and this one passed the family's rule
	 * at the first fb_init, so nothing can fail from here. */
	return fill_keys(s, key);
}

/* fb_init for a new plan: out of line, so that the re-key path, which
 * a short message under a new key takes, has no frame for its locals. */
static NOINLINE int init_new(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const uint8_t *key,
			     size_t key_len, const uint8_t *iv, size_t iv_len, const fb_options *opt)
{
	size_t zeroed = wipe_used(ctx); /* the previous key, if any */
	fb_selection sel;
	ctx_layout l;
	int rc = plan_ctx(c, dir, key, key_len, iv, iv_len, opt, SIZE_MAX, &sel, &l);
	if (rc)
		return rc;
	if (l.total > head_of(ctx)->cap)
		return FB_ERR_CTX_SIZE;
	return init_ctx(ctx, c, dir, key, key_len, iv, iv_len, opt, &sel, &l, zeroed);
}

/* 1 if re-keying s is its serial kernel's setkey alone, with no call
 * before it: no schedule built on first use to forget, no kept
 * keystream, key or tweak key, no strict-key check, valid pointers and
 * IV. */
static inline int rekey_plain(const fb_state *s, const uint8_t *key, size_t key_len, const uint8_t *iv,
			      size_t iv_len, const fb_options *opt)
{
	return !(s->lazy_built | s->ctr_len | s->ser_lazy) && !s->key && !s->ks_tweak &&
	       !(opt && (opt->flags & FB_FLAG_STRICT_KEYS)) && (key || !key_len) && !iv_bad(s, iv, iv_len);
}

/* rekey for rekey_plain: the stream restarts, then the setkey is the
 * last call, a jump (an AES-128 re-key ~85 instructions besides the
 * schedule's, not ~135). */
static inline __attribute__((always_inline)) int rekey_fast(fb_state *s, const uint8_t *key, const uint8_t *iv,
							    size_t iv_len)
{
	s->threads = threads_of(s);
	fb_wipe(s->iv, sizeof s->iv);
	s->ctr_pos = 0; /* fb_ctr_forget with no keystream kept (ctr_len 0) */
	s->ctr_short = 0;
	restart_at(s, iv, iv_len);
	return fb_setkey(s->ser, s->ks_use, (void *)s->ks_ser, key, s->klen);
}

int fb_init(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const uint8_t *key,
	    size_t key_len, const uint8_t *iv, size_t iv_len, const fb_options *opt)
{
	if (!ctx || !head_ok(ctx))
		return FB_ERR_ARGUMENT;
	if (!same_plan(ctx, c, dir, key_len, opt))
		return init_new(ctx, c, dir, key, key_len, iv, iv_len, opt);
	fb_state *s = state_of(ctx);
	if (rekey_plain(s, key, key_len, iv, iv_len, opt))
		return rekey_fast(s, key, iv, iv_len);
	return rekey(ctx, c, dir, key, key_len, iv, iv_len, opt);
}

size_t fb_ctx_size(const fb_cipher *c, enum fb_direction dir, const fb_options *opt)
{
	fb_selection sel;
	ctx_layout l;
	if (!c || (dir != FB_ENCRYPT && dir != FB_DECRYPT) || choose_kernels(c, dir, opt, SIZE_MAX, c->key_len, &sel))
		return 0;
	layout_of(&sel, c->mode, c->key_len, 1, &l);
	return l.total;
}

fb_ctx *fb_ctx_new_for(const fb_cipher *c, enum fb_direction dir, const fb_options *opt)
{
	return ctx_alloc(fb_ctx_size(c, dir, opt));
}

/* 1 if [p, p + n) runs past the end of the address space: no real buffer
 * does, and the overlap and length sums below would wrap. */
static int span_wraps(const void *p, size_t n)
{
	return (uintptr_t)p > UINTPTR_MAX - n;
}

/* An output capacity that claims more than the address space holds (such
 * as SIZE_MAX for "large enough") is cut to what can exist. */
static size_t clamp_cap(const void *out, size_t cap)
{
	uintptr_t room = UINTPTR_MAX - (uintptr_t)out;
	return cap > room ? (size_t)room : cap;
}

int fb_update(fb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len,
	      const uint8_t *in, size_t in_len)
{
	if (!ctx || !out_len || (in_len && !in) || (out_cap && !out))
		return FB_ERR_ARGUMENT;
	fb_state *s = state_of(ctx);
	*out_len = 0;
	if (s->magic != FB_MAGIC_READY)
		return FB_ERR_STATE;
	if (!in_len)
		return FB_OK; /* nothing to do, and in may be NULL */
	if (span_wraps(in, in_len) || in_len > SIZE_MAX - s->buf_len)
		return FB_ERR_ARGUMENT;
	return fb_stream_update(s, out, clamp_cap(out, out_cap), out_len, in, in_len);
}

int fb_update_checked(fb_ctx *ctx, uint8_t *out, const uint8_t *in, size_t in_len, size_t *out_len)
{
	fb_state *s = state_of(ctx);
	if (s->magic != FB_MAGIC_READY || !in_len)
		return fb_update(ctx, out, in_len, out_len, in, in_len); /* its state and empty-input answers */
	return fb_stream_update_checked(s, out, in, in_len, out_len);
}

int fb_final(fb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len)
{
	if (!ctx || !out_len || (out_cap && !out))
		return FB_ERR_ARGUMENT;
	fb_state *s = state_of(ctx);
	*out_len = 0;
	if (s->magic != FB_MAGIC_READY)
		return FB_ERR_STATE;
	int rc = fb_stream_final(s, out, clamp_cap(out, out_cap), out_len);
	wipe_used(ctx);
	s->magic = FB_MAGIC_DONE;
	return rc;
}

const char *fb_version(void)
{
	return FASTBLOCK_VERSION;
}

size_t fb_output_bound(const fb_cipher *c, enum fb_direction dir, size_t in_len)
{
	if (!c)
		return 0;
	/* Streaming ECB/CBC releases a held-back block (decryption keeps the
	 * padding block, any direction keeps a partial one), and XTS keeps up
	 * to two blocks less one for ciphertext stealing: one fb_update may
	 * write up to that much more than its input, fb_final up to it. */
	size_t bs = c->family->block_size, extra = 0;
	if (c->mode == FB_ECB || c->mode == FB_CBC)
		extra = bs;
	else if (c->mode == FB_XTS)
		extra = 2 * bs;
	(void)dir;
	return in_len > SIZE_MAX - extra ? SIZE_MAX : in_len + extra;
}

int fb_ctx_set_threads(fb_ctx *ctx, unsigned n)
{
	if (!ctx)
		return FB_ERR_ARGUMENT;
	fb_state *s = state_of(ctx);
	if (s->magic != FB_MAGIC_READY)
		return FB_ERR_STATE;
	s->threads = n;
	return FB_OK;
}

const char *fb_ctx_impl(const fb_ctx *ctx)
{
	const fb_state *s = ctx ? cstate_of(ctx) : NULL;
	return s && s->magic == FB_MAGIC_READY ? s->par->name : NULL;
}

const char *fb_ctx_serial_impl(const fb_ctx *ctx)
{
	const fb_state *s = ctx ? cstate_of(ctx) : NULL;
	return s && s->magic == FB_MAGIC_READY ? s->ser->name : NULL;
}

int fb_ctx_constant_time(const fb_ctx *ctx)
{
	const fb_state *s = ctx ? cstate_of(ctx) : NULL;
	if (!s || s->magic != FB_MAGIC_READY)
		return FB_ERR_STATE;
	int ct = s->par->constant_time && s->ser->constant_time;
	for (const fb_rung *r = s->rung; r->below; r++)
		ct &= r->k->constant_time;
	return ct;
}

/* ---- one-shot ------------------------------------------------------------ */

/* Exact output length of a whole message, or an error, decided before any
 * byte is written. For padded decryption the last block is decrypted into
 * a scratch copy of the context to read the padding. */
static int oneshot_plan(fb_ctx *ctx, const uint8_t *in, size_t in_len, size_t *total)
{
	fb_state *s = state_of(ctx);
	size_t bs = s->bs;
	int buffered = s->mode == FB_ECB || s->mode == FB_CBC;
	int pad = buffered && s->padding != FB_PAD_NONE;
	*total = in_len;
	if (s->mode == FB_XTS && in_len < bs)
		return FB_ERR_DATA_LENGTH;
	if (buffered && !pad && (in_len & (bs - 1)))
		return FB_ERR_DATA_LENGTH;
	if (!pad)
		return FB_OK;
	if (s->encrypt) {
		*total = in_len - (in_len & (bs - 1)) + bs;
		return FB_OK;
	}
	if (!in_len || (in_len & (bs - 1)))
		return FB_ERR_DATA_LENGTH;
	uint8_t blk[16];
	if (bs > sizeof blk) /* cannot happen; tells the compiler the bound */
		return FB_ERR_ARGUMENT;
	fb_ser_ready(s);
	s->ser->decrypt(s->ks_ser, blk, in + in_len - bs, 1);
	if (s->mode == FB_CBC)
		fb_xor(blk, blk, in_len > bs ? in + in_len - 2 * bs : s->iv, bs);
	int n = fb_unpad(s->padding, blk, (unsigned)bs);
	fb_wipe(blk, sizeof blk);
	if (n < 0)
		return FB_ERR_BAD_PADDING;
	*total = in_len - bs + (size_t)n;
	return FB_OK;
}

/* The room and the overlap for a message's total bytes out. */
static int message_room(const uint8_t *in, size_t in_len, const uint8_t *out, size_t out_cap, size_t total)
{
	if (total > out_cap)
		return FB_ERR_OUTPUT_SPACE;
	return fb_overlap_bad(out, total > in_len ? total : in_len, in, in_len) ? FB_ERR_OVERLAP : FB_OK;
}

/* One whole message through a ready context whose stream is at its start
 * (fb_stream_at_start): every refusal comes before any byte is written,
 * and the blocks run straight through (fb_stream_message), without the
 * stream's buffer; the key schedules stay. */
static int run_message(fb_ctx *ctx, const uint8_t *in, size_t in_len, uint8_t *out,
		       size_t out_cap, size_t *out_len)
{
	fb_state *s = state_of(ctx);
	size_t total = 0;
	int rc = oneshot_plan(ctx, in, in_len, &total);
	if (!rc)
		rc = message_room(in, in_len, out, out_cap, total);
	if (rc)
		return rc;
	if (s->mode == FB_XTS) {
		/* The whole data unit in one pass: streaming would split it into
		 * a held-back block and the rest. */
		*out_len = in_len;
		return fb_mode_xts_unit(s, out, in, in_len);
	}
	*out_len = total;
	if (total)
		fb_stream_message(s, out, in, in_len, total);
	return FB_OK;
}

/* The argument checks common to the one-shot calls and fb_message. */
static int message_args(const uint8_t *in, size_t in_len, const uint8_t *out, size_t out_cap,
			size_t *out_len)
{
	if (!out_len || (in_len && !in) || (out_cap && !out))
		return FB_ERR_ARGUMENT;
	*out_len = 0;
	/* Padding adds at most one block (16 bytes) to the total. */
	if ((in_len && span_wraps(in, in_len)) || in_len > SIZE_MAX - 32)
		return FB_ERR_ARGUMENT;
	return FB_OK;
}

static int oneshot(enum fb_direction dir, const fb_cipher *c, const uint8_t *key, size_t key_len,
		   const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
		   uint8_t *out, size_t out_cap, size_t *out_len, const fb_options *opt)
{
	int rc = message_args(in, in_len, out, out_cap, out_len);
	if (rc)
		return rc;
	fb_selection sel;
	ctx_layout l;
	if ((rc = plan_ctx(c, dir, key, key_len, iv, iv_len, opt, in_len, &sel, &l)))
		return rc;
	/* The context lives on the stack: no allocation per call. 12 KB holds
	 * every one-shot layout of the library's kernels (3DES with its bitsliced,
	 * vpermb and table schedules is the largest, ~10.5 KB; one-shot
	 * contexts keep no CTR keystream); a larger one would be allocated. */
	_Alignas(FB_CTX_ALIGN) unsigned char local[12288];
	fb_ctx *ctx = l.total <= sizeof local ? fb_ctx_place(local, sizeof local) : ctx_alloc(l.total);
	if (!ctx)
		return FB_ERR_ARGUMENT;
	rc = init_ctx(ctx, c, dir, key, key_len, iv, iv_len, opt, &sel, &l, AREAS_AT);
	if (!rc)
		rc = run_message(ctx, in, in_len, out, clamp_cap(out, out_cap), out_len);
	if (ctx == (fb_ctx *)(void *)local)
		wipe_used(ctx);
	else
		fb_ctx_free(ctx);
	return rc;
}

/* An XTS data unit on a ready context: the tweak goes into s->iv, to be
 * encrypted there, and the unit runs whole; the context is left as fb_init
 * with this tweak leaves it. Nothing else of the context is read or
 * written, so this needs none of restart's resets, and it is a tail call
 * from fb_message to the mode's: no stack frame on the way (a 16-byte unit,
 * where disk sectors have 512 or 4096, is mostly this path). */
static NOINLINE int xts_message(fb_state *s, const uint8_t *tweak, const uint8_t *in, size_t in_len, uint8_t *out,
				size_t out_cap, size_t *out_len)
{
	if (in_len < 16) /* XTS is defined for 128-bit blocks only */
		return FB_ERR_DATA_LENGTH;
	if (in_len > out_cap)
		return FB_ERR_OUTPUT_SPACE;
	if (fb_overlap_bad(out, in_len, in, in_len))
		return FB_ERR_OVERLAP;
	fb_copy_small(s->iv, tweak, 16); /* before out, which tweak may share, is written */
	s->tweak_pending = 1;
	*out_len = in_len;
	return fb_mode_xts_unit(s, out, in, in_len);
}

/* fb_message's general path: the stream restarts at iv (only the IV is
 * new where it is already at its start, as after fb_init or a message),
 * the message runs, and the context goes back to the start. Out of line,
 * so that fb_message has no stack frame on its way to xts_message. */
static NOINLINE int message_run(fb_ctx *ctx, const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
				uint8_t *out, size_t out_cap, size_t *out_len)
{
	fb_state *s = state_of(ctx);
	if (!fb_stream_at_start(s))
		restart(s, iv, iv_len);
	else if (iv_len)
		fb_copy_small(s->iv, iv, iv_len); /* XTS at its start takes xts_message */
	uint8_t start[16]; /* the chaining value (XTS: the tweak) to return to */
	memcpy(start, s->iv, sizeof start);
	int pending = s->tweak_pending;
	int rc = run_message(ctx, in, in_len, out, out_cap, out_len);
	if (s->mode != FB_XTS) /* XTS's whole-unit run moves only the tweak */
		restart(s, NULL, 0);
	memcpy(s->iv, start, sizeof start);
	s->tweak_pending = pending;
	fb_wipe(start, sizeof start);
	return rc;
}

/* 1 if a message on s takes message_blocks: ECB or CBC without padding,
 * nothing buffered. Those runs touch nothing of the stream but CBC's
 * chaining value (no buffer, keystream or CTR state). */
static inline int blocks_message(const fb_state *s)
{
	return (s->mode == FB_ECB || s->mode == FB_CBC) && s->padding == FB_PAD_NONE && !s->buf_len;
}

/* fb_message for blocks_message: the plan is the length itself, and the
 * context needs no restart before or after, only CBC's chaining value
 * back at the message's IV. A 16-byte AES-128-ECB message is ~170
 * instructions this way, ~260 through message_run (oneshot_plan, two
 * restarts, three stack frames), and a 64-byte one is mostly those. */
static NOINLINE int message_blocks(fb_state *s, const uint8_t *iv, const uint8_t *in, size_t in_len,
				   uint8_t *out, size_t out_cap, size_t *out_len)
{
	if (in_len & (s->bs - 1))
		return FB_ERR_DATA_LENGTH;
	if (in_len > out_cap)
		return FB_ERR_OUTPUT_SPACE;
	if (fb_overlap_bad(out, in_len, in, in_len))
		return FB_ERR_OVERLAP;
	*out_len = in_len;
	size_t n = fb_blocks_in(s->bs, in_len);
	if (s->mode == FB_ECB) {
		fb_mode_blocks(s, out, in, n);
		return FB_OK;
	}
	uint8_t start[16]; /* iv may lie in out */
	fb_copy_small(start, iv, s->bs);
	fb_copy_small(s->iv, start, s->bs);
	fb_mode_blocks(s, out, in, n);
	fb_copy_small(s->iv, start, s->bs);
	return FB_OK;
}

int fb_message(fb_ctx *ctx, const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
	       uint8_t *out, size_t out_cap, size_t *out_len)
{
	int rc = message_args(in, in_len, out, out_cap, out_len);
	if (rc)
		return rc;
	if (!ctx)
		return FB_ERR_ARGUMENT;
	fb_state *s = state_of(ctx);
	if (s->magic != FB_MAGIC_READY)
		return FB_ERR_STATE;
	if (iv_bad(s, iv, iv_len))
		return FB_ERR_IV_LENGTH;
	if (s->mode == FB_XTS && !s->buf_len)
		return xts_message(s, iv, in, in_len, out, clamp_cap(out, out_cap), out_len);
	if (blocks_message(s))
		return message_blocks(s, iv, in, in_len, out, clamp_cap(out, out_cap), out_len);
	return message_run(ctx, iv, iv_len, in, in_len, out, clamp_cap(out, out_cap), out_len);
}

int fb_xts_unit_checked(fb_ctx *ctx, const uint8_t *tweak, const uint8_t *in, size_t in_len, uint8_t *out,
			size_t *out_len)
{
	fb_state *s = state_of(ctx);
	if (s->magic != FB_MAGIC_READY || s->mode != FB_XTS || s->buf_len)
		return fb_message(ctx, tweak, 16, in, in_len, out, in_len, out_len); /* the whole road decides */
	return xts_message(s, tweak, in, in_len, out, in_len, out_len);
}

int fb_encrypt(const fb_cipher *c, const uint8_t *key, size_t key_len, const uint8_t *iv,
	       size_t iv_len, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
	       size_t *out_len, const fb_options *opt)
{
	return oneshot(FB_ENCRYPT, c, key, key_len, iv, iv_len, in, in_len, out, out_cap, out_len, opt);
}

int fb_decrypt(const fb_cipher *c, const uint8_t *key, size_t key_len, const uint8_t *iv,
	       size_t iv_len, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
	       size_t *out_len, const fb_options *opt)
{
	return oneshot(FB_DECRYPT, c, key, key_len, iv, iv_len, in, in_len, out, out_cap, out_len, opt);
}
