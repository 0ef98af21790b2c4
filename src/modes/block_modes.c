/*
 * ECB, CBC, CFB, CFB8, OFB, CTR and XTS over any block kernel.
 *
 * Parallel work (ECB, CBC and CFB decryption, CTR, XTS) goes down the
 * context's ladder: the parallel kernel, then narrower kernels for short
 * runs and tails (on_ladder); serial chains (CBC, CFB, CFB8 and OFB
 * encryption; OFB and CFB8 either way) to the serial kernel, one block at
 * a time. All of it works in place.
 */
#include "modes.h"

/* Large enough for the widest kernel batch (bitsliced DES: 512 blocks). */
#define FB_CHUNK 8192

/* Blocks of the next chunk when n are left. The scratch buffers are wiped
 * only as far as the first (largest) chunk wrote: a short message does
 * not pay for clearing 8 KB. */
static inline size_t chunk(size_t n, unsigned bs)
{
	size_t max = fb_blocks_in(bs, FB_CHUNK);
	return n < max ? n : max;
}

/* The rung for a run of n blocks, and how many of them it takes: the
 * narrowest rung whose `below` n is under; with tails, only its whole
 * batches when the rest is short enough for the next rung. The rest is
 * a run of its own. */
static inline const fb_rung *rung_for(const fb_state *s, size_t n, size_t *take)
{
	const fb_rung *r = s->rung;
	while (n < r[1].below) /* the rung after the last has below 0 */
		r++;
	*take = n;
	if (r->tail_below) {
		size_t rest = n % r->k->batch;
		if (rest < r->tail_below)
			*take = n - rest;
	}
	return r;
}

/* Builds kernel k's schedule in area, and marks every rung of that area
 * and the serial kernel, if it is the area's too, as built. */
static void build_area(fb_state *s, const fb_kernel *k, void *area, unsigned bytes)
{
	/* Cannot fail: fb_init checked the length by the family's rule, which
	 * every kernel of the family shares. Kernels want a zeroed area,
	 * unless they write all of it. */
	if (!k->fills_schedule)
		memset(area, 0, bytes);
	(void)fb_setkey(k, s->ks_use, area, s->key, s->klen);
	s->lazy_built = 1;
	for (unsigned i = 0; i < s->nrungs; i++)
		if (s->rung[i].area == area)
			s->rung[i].ks = area;
	if (fb_ser_area(s) == area)
		s->ks_ser = area;
}

__attribute__((cold)) NOINLINE void fb_rung_key(fb_state *s, const fb_rung *r)
{
	build_area(s, r->k, r->area, r->area_bytes);
}

void fb_ser_ready(fb_state *s)
{
	if (__builtin_expect(!s->ks_ser, 0))
		build_area(s, s->ser, fb_ser_area(s), s->ser_area_bytes);
}

void fb_rungs_ready(fb_state *s)
{
	for (unsigned i = 0; i < s->nrungs; i++)
		if (!s->rung[i].ks)
			fb_rung_key(s, &s->rung[i]);
	fb_ser_ready(s);
}

/* n blocks of one parallel mode on one rung; s->iv carries the chaining value. */
typedef void (*step_fn)(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n);

/* A run that more than one rung takes: rung by rung. */
static NOINLINE void ladder_walk(fb_state *s, step_fn step, uint8_t *out, const uint8_t *in, size_t n)
{
	size_t bs = s->bs, m;
	for (; n; in += m * bs, out += m * bs, n -= m) {
		const fb_rung *r = rung_for(s, n, &m);
		if (__builtin_expect(!r->ks, 0))
			fb_rung_key(s, r);
		step(s, r, out, in, m);
	}
}

/* A run shorter than this on a rung whose schedule is not built yet goes
 * to the serial kernel, whose schedule is built first if it waits too: a
 * one- or two-block message of a parallel mode then pays for one key
 * setup, not two (Serpent CFB decryption on AVX-512 Zen, serial kernel
 * serpent/bitslice: fb_init and one block ~1,600 -> ~950 TSC ticks). A
 * lone block always does (one block's latency is what the serial kernels
 * are built for); a second run of two blocks under the key builds the
 * rung's schedule: a stream of short updates is not a one-shot message,
 * and two blocks side by side beat two in a chain (3DES CFB decryption,
 * Sapphire Rapids class, TSC ticks an update: one block 371 on
 * des/table64-shift, 403 on the des/table rung; two blocks 720 and 476). */
#define SERIAL_FIRST_MAX 3
#define SERIAL_FIRST_RUNS 1

/* A rung's first run: its schedule is built, then the step runs. Out of
 * line, so that the short path's calls are jumps with no stack frame. */
static NOINLINE void first_step(fb_state *s, step_fn step, const fb_rung *r, uint8_t *out, const uint8_t *in,
				size_t n)
{
	if (n < SERIAL_FIRST_MAX && s->ser != r->k && (n == 1 || s->short_firsts < SERIAL_FIRST_RUNS)) {
		s->short_firsts += n > 1;
		fb_ser_ready(s);
		const fb_rung ser = { .k = s->ser, .ks = s->ks_ser };
		step(s, &ser, out, in, n);
		return;
	}
	fb_rung_key(s, r);
	step(s, r, out, in, n);
}

/* The rung that takes a run of n blocks whole, or NULL when the run is
 * split down the ladder (ladder_walk). As rung_for, with one test fewer
 * on the short path. */
static inline __attribute__((always_inline)) const fb_rung *rung_whole(const fb_state *s, size_t n)
{
	const fb_rung *r = s->rung;
	while (n < r[1].below)
		r++;
	return !r->tail_below || n % r->k->batch >= r->tail_below ? r : NULL;
}

/* n blocks down the ladder: the widest rung that pays, then the rest.
 * Inlined into each caller, so that a run one rung takes whole (most
 * runs) is one direct jump: a 64-byte AES update is about 30 TSC ticks,
 * and a loop's set-up shows in it. */
static inline __attribute__((always_inline)) void on_ladder(fb_state *s, step_fn step, uint8_t *out,
							    const uint8_t *in, size_t n)
{
	const fb_rung *r = rung_whole(s, n);
	if (r) {
		if (__builtin_expect(!r->ks, 0))
			first_step(s, step, r, out, in, n);
		else
			step(s, r, out, in, n);
	} else {
		ladder_walk(s, step, out, in, n);
	}
}

static void ecb_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	if (s->encrypt)
		r->k->encrypt(r->ks, out, in, n);
	else
		r->k->decrypt(r->ks, out, in, n);
}

/* Encrypts whatever the direction: ECB encryption's runs, and CFB8
 * decryption's keystream. */
static void enc_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	(void)s;
	r->k->encrypt(r->ks, out, in, n);
}

/* ECB decryption's runs. */
static void dec_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	(void)s;
	r->k->decrypt(r->ks, out, in, n);
}

static inline void ser_encrypt1(fb_state *s, uint8_t *out, const uint8_t *in)
{
	fb_ser_ready(s);
	s->ser->encrypt(s->ks_ser, out, in, 1);
}

/* Adds 1 to a big-endian counter of n bytes. */
static void ctr_add1(uint8_t *ctr, unsigned n)
{
	for (unsigned i = n; i-- > 0;)
		if (++ctr[i])
			break;
}

/* Without the serial kernel's fused step: through its block function. */
static NOINLINE void cbc_enc_generic(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	uint8_t x[16];
	for (size_t i = 0; i < n; i++, in += bs, out += bs) {
		fb_xor(x, in, s->iv, bs);
		ser_encrypt1(s, out, x);
		memcpy(s->iv, out, bs);
	}
}

static void cbc_encrypt(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	if (s->ser->cbc_enc)
		s->ser->cbc_enc(s->ks_ser, out, in, n, s->iv);
	else
		cbc_enc_generic(s, out, in, n);
}

/* Without the kernel's fused step: through its block function. */
static NOINLINE void cbc_dec_generic(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	const fb_kernel *k = r->k;
	uint8_t tmp[FB_CHUNK], next[16];
	size_t used = chunk(n, bs) * bs;
	while (n) {
		size_t m = chunk(n, bs);
		k->decrypt(r->ks, tmp, in, m);
		memcpy(next, in + (m - 1) * bs, bs);
		/* Backwards, so in place each ciphertext is read before it is overwritten. */
		for (size_t i = m - 1; i > 0; i--)
			fb_xor(out + i * bs, tmp + i * bs, in + (i - 1) * bs, bs);
		fb_xor(out, tmp, s->iv, bs);
		memcpy(s->iv, next, bs);
		in += m * bs, out += m * bs, n -= m;
	}
	fb_wipe(tmp, used);
}

/* CTR without the kernel's fused step: counter blocks through its block function. */
static NOINLINE void ctr_generic(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	uint8_t tmp[FB_CHUNK];
	size_t used = chunk(n, bs) * bs;
	while (n) {
		size_t m = chunk(n, bs);
		for (size_t i = 0; i < m; i++) {
			memcpy(tmp + i * bs, s->iv, bs);
			ctr_add1(s->iv, bs);
		}
		r->k->encrypt(r->ks, tmp, tmp, m);
		fb_xor(out, in, tmp, m * bs);
		in += m * bs, out += m * bs, n -= m;
	}
	fb_wipe(tmp, used);
}

/* CTR runs whose counter's low 32 bits wrap: cut at each wrap, carrying
 * into the rest of the counter. */
static NOINLINE void ctr_wrapping(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	const fb_kernel *k = r->k;
	while (n) {
		uint64_t room = (uint64_t)1 << 32;
		room -= fb_load32_be(s->iv + bs - 4);
		size_t m = n < room ? n : (size_t)room;
		k->ctr32(r->ks, out, in, m, s->iv);
		if (m == room) /* the low 32 bits wrapped: carry into the rest */
			ctr_add1(s->iv, bs - 4);
		in += m * bs, out += m * bs, n -= m;
	}
}

/* Whole blocks of CTR keystream XORed into in -> out; s->iv advances. A
 * run that leaves the low 32 bits of the counter unwrapped, nearly every
 * one, is one jump to the kernel: the loop above, inlined, cost a frame
 * and ~45 instructions a call on 64-byte updates. */
static void ctr_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_kernel *k = r->k;
	if (!k->ctr32)
		ctr_generic(s, r, out, in, n);
	else if (n < ((uint64_t)1 << 32) - fb_load32_be(s->iv + s->bs - 4))
		k->ctr32(r->ks, out, in, n, s->iv);
	else
		ctr_wrapping(s, r, out, in, n);
}

/* CFB decryption of whole blocks: every keystream block is the encryption
 * of a known ciphertext block, so the kernel runs them in parallel. Without
 * the kernel's fused step: through its block function. */
static NOINLINE void cfb_dec_generic(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	const fb_kernel *k = r->k;
	uint8_t tmp[FB_CHUNK];
	size_t used = chunk(n, bs) * bs;
	while (n) {
		size_t m = chunk(n, bs);
		memcpy(tmp, s->iv, bs);
		memcpy(tmp + bs, in, (m - 1) * bs);
		memcpy(s->iv, in + (m - 1) * bs, bs);
		k->encrypt(r->ks, tmp, tmp, m);
		fb_xor(out, in, tmp, m * bs);
		in += m * bs, out += m * bs, n -= m;
	}
	fb_wipe(tmp, used);
}

/* An XTS tweak in bytes times alpha (fb_xts_double). */
static void xts_mul_alpha(uint8_t t[16])
{
	uint64_t lo = fb_load64_le(t), hi = fb_load64_le(t + 8);
	fb_xts_double(&lo, &hi);
	fb_store64_le(t, lo);
	fb_store64_le(t + 8, hi);
}

/* Without the kernel's fused step: through its block function, on out
 * (in place is fine: each block is read before it is written). The
 * tweaks are made once a chunk and serve both XORs. */
static NOINLINE void xts_generic(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	uint8_t tw[FB_CHUNK];
	size_t used = chunk(n, 16) * 16;
	uint64_t lo = fb_load64_le(s->iv), hi = fb_load64_le(s->iv + 8);
	while (n) {
		size_t m = chunk(n, 16);
		fb_xts_first_xor(tw, out, in, m, &lo, &hi);
		ecb_step(s, r, out, out, m);
		fb_xor(out, out, tw, m * 16);
		in += m * 16, out += m * 16, n -= m;
	}
	fb_store64_le(s->iv, lo);
	fb_store64_le(s->iv + 8, hi);
	fb_wipe(tw, used);
}

/* One XTS block with tweak t, on the ladder's kernel for one block. */
static void xts_one(fb_state *s, uint8_t *out, const uint8_t *in, const uint8_t *t)
{
	uint8_t x[16];
	fb_xor(x, in, t, 16);
	on_ladder(s, ecb_step, x, x, 1);
	fb_xor(out, x, t, 16);
}

/* XTS: encrypts a tweak still as given (tweak_pending) into s->iv. */
static inline void xts_tweak_ready(fb_state *s)
{
	if (s->tweak_pending) {
		s->ser->encrypt(s->ks_tweak, s->iv, s->iv, 1);
		s->tweak_pending = 0;
	}
}

void fb_mode_xts_tail(fb_state *s, uint8_t *out, const uint8_t *in, size_t r)
{
	uint8_t t1[16], t2[16], a[16], b[16];
	xts_tweak_ready(s);
	memcpy(t1, s->iv, 16);
	memcpy(t2, t1, 16);
	xts_mul_alpha(t2);
	/* Encryption uses T(m-1) then T(m); decryption the other way round. */
	xts_one(s, a, in, s->encrypt ? t1 : t2);
	memcpy(b, in + 16, r);
	memcpy(b + r, a + r, 16 - r);
	memcpy(out + 16, a, r);
	xts_one(s, out, b, s->encrypt ? t2 : t1);
	fb_wipe(a, 16);
	fb_wipe(b, 16);
}

/* ---- Chunk starts for threaded runs (threads.c) ---------------------------- */

/* The steps: a kernel's fused path when it has one (one direct jump on
 * the short-message path), else the generic one above. */
static void cbc_dec_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	if (r->k->cbc_dec)
		r->k->cbc_dec(r->ks, out, in, n, s->iv);
	else
		cbc_dec_generic(s, r, out, in, n);
}

static void cfb_dec_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	if (r->k->cfb_dec)
		r->k->cfb_dec(r->ks, out, in, n, s->iv);
	else
		cfb_dec_generic(s, r, out, in, n);
}

static void xts_step(fb_state *s, const fb_rung *r, uint8_t *out, const uint8_t *in, size_t n)
{
	void (*fused)(const void *, uint8_t *, const uint8_t *, size_t, uint8_t *) =
		s->encrypt ? r->k->xts_enc : r->k->xts_dec;
	if (fused)
		fused(r->ks, out, in, n, s->iv);
	else
		xts_generic(s, r, out, in, n);
}

/* The parallel modes' runs down the ladder (fb_blocks_fn, for threads.c too). */
#define LADDER_RUN(name, step) \
	static inline __attribute__((always_inline)) void name(fb_state *s, uint8_t *out, \
							       const uint8_t *in, size_t n) \
	{ \
		on_ladder(s, step, out, in, n); \
	}
LADDER_RUN(ecb_enc_blocks, enc_step)
LADDER_RUN(ecb_dec_blocks, dec_step)
LADDER_RUN(cbc_decrypt, cbc_dec_step)
LADDER_RUN(ctr_blocks, ctr_step)
LADDER_RUN(cfb_decrypt_blocks, cfb_dec_step)
LADDER_RUN(xts_blocks, xts_step)

static void no_starts(const fb_state *s, const uint8_t *in, size_t chunk, size_t count,
		      uint8_t (*st)[16])
{
	(void)s, (void)in, (void)chunk, (void)count, (void)st;
}

/* CTR: the counter, a big-endian number of the whole block, plus chunk. */
static void ctr_starts(const fb_state *s, const uint8_t *in, size_t chunk, size_t count,
		       uint8_t (*st)[16])
{
	(void)in;
	for (size_t k = 1; k < count; k++) {
		unsigned carry = 0;
		uint64_t add = chunk;
		memcpy(st[k], st[k - 1], 16);
		for (unsigned i = s->bs; i-- > 0;) {
			unsigned v = st[k][i] + (unsigned)(add & 0xff) + carry;
			st[k][i] = (uint8_t)v;
			carry = v >> 8;
			add >>= 8;
		}
	}
}

/* CBC and CFB decryption: a chunk chains from the ciphertext block before it. */
static void chain_starts(const fb_state *s, const uint8_t *in, size_t chunk, size_t count,
			 uint8_t (*st)[16])
{
	for (size_t k = 1; k < count; k++)
		memcpy(st[k], in + (k * chunk - 1) * s->bs, s->bs);
}

/* a * b in XTS's GF(2^128), constant time (the tweak is secret). */
static void gf128_mul(uint8_t r[16], const uint8_t a[16], const uint8_t b[16])
{
	uint8_t x[16], acc[16] = { 0 };
	memcpy(x, a, 16);
	for (unsigned i = 0; i < 128; i++, xts_mul_alpha(x)) {
		uint8_t m = (uint8_t)(0 - ((b[i >> 3] >> (i & 7)) & 1));
		for (unsigned j = 0; j < 16; j++)
			acc[j] ^= x[j] & m;
	}
	memcpy(r, acc, 16);
	fb_wipe(x, sizeof x);
	fb_wipe(acc, sizeof acc);
}

/* XTS: the tweak of block j is T * alpha^j; chunk to chunk, times alpha^chunk. */
static void xts_starts(const fb_state *s, const uint8_t *in, size_t chunk, size_t count,
		       uint8_t (*st)[16])
{
	uint8_t step[16] = { 1 }, base[16] = { 2 }; /* 1 and alpha */
	(void)s, (void)in;
	for (size_t e = chunk; e; e >>= 1) {
		if (e & 1)
			gf128_mul(step, step, base);
		gf128_mul(base, base, base);
	}
	for (size_t k = 1; k < count; k++)
		gf128_mul(st[k], st[k - 1], step);
}

/* A parallel run: on several threads when the context allows them and the
 * run is large, else on this one. */
static NOINLINE void par_threaded(fb_state *s, fb_blocks_fn run, fb_starts_fn starts, uint8_t *out,
				  const uint8_t *in, size_t n)
{
	fb_rungs_ready(s);
	fb_mode_threaded(s, run, starts, out, in, n);
}

static inline __attribute__((always_inline)) void par_run(fb_state *s, fb_blocks_fn run, fb_starts_fn starts,
							  uint8_t *out, const uint8_t *in, size_t n)
{
	if (s->threads != 1 && n >= fb_blocks_in(s->bs, FB_MT_MIN))
		par_threaded(s, run, starts, out, in, n);
	else
		run(s, out, in, n);
}

/* XTS out of line: the tweak's call before the run would otherwise give
 * fb_mode_blocks a stack frame on every mode's path (a 16-byte AES-CBC
 * EVP update: four register saves, about 4 TSC ticks on Zen 4). */
static NOINLINE void xts_run(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	xts_tweak_ready(s);
	par_run(s, xts_blocks, xts_starts, out, in, n);
}

/* A unit whose length is not a whole number of blocks: the full blocks,
 * then the last one and the partial one stolen. */
static NOINLINE void xts_unit_stolen(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	size_t r = len & 15, full = (len >> 4) - 1;
	if (full)
		par_run(s, xts_blocks, xts_starts, out, in, full);
	fb_mode_xts_tail(s, out + 16 * full, in + 16 * full, r);
}

/* A unit of n whole blocks whose tweak waits, in one call of the xts_unit
 * hook of the rung that takes it whole, when that rung has one, its
 * schedule is built, the tweak's schedule has its format, and the unit is
 * not one for threads; 0 if not. The kernel then starts the first
 * blocks' rounds straight from the tweak's encryption, with no store and
 * reload of the tweak between the two AES latencies of a short unit. */
static inline int xts_unit_fused(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_rung *r = rung_whole(s, n);
	if (!r || !r->ks || r->k->setkey != s->ser->setkey ||
	    (s->threads != 1 && n >= fb_blocks_in(16, FB_MT_MIN)))
		return 0;
	void (*unit)(const void *, const void *, uint8_t *, const uint8_t *, size_t, const uint8_t *) =
		s->encrypt ? r->k->xts_unit_enc : r->k->xts_unit_dec;
	if (!unit)
		return 0;
	unit(r->ks, s->ks_tweak, out, in, n, s->iv);
	return 1;
}

int fb_mode_xts_unit(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	if (s->tweak_pending && !(len & 15) && xts_unit_fused(s, out, in, len >> 4))
		return FB_OK;
	uint8_t start[16];
	int pending = s->tweak_pending;
	fb_copy_small(start, s->iv, 16);
	xts_tweak_ready(s);
	if (len & 15)
		xts_unit_stolen(s, out, in, len);
	else
		par_run(s, xts_blocks, xts_starts, out, in, len >> 4);
	fb_copy_small(s->iv, start, 16);
	s->tweak_pending = pending;
	fb_wipe(start, sizeof start);
	return FB_OK;
}

void fb_mode_blocks(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	if (!n)
		return;
	switch (s->mode) {
	case FB_ECB: par_run(s, s->encrypt ? ecb_enc_blocks : ecb_dec_blocks, no_starts, out, in, n); break;
	case FB_CBC:
		if (s->encrypt)
			cbc_encrypt(s, out, in, n);
		else
			par_run(s, cbc_decrypt, chain_starts, out, in, n);
		break;
	case FB_XTS: xts_run(s, out, in, n); break;
	default: break;
	}
}

/* ---- The short road's runs (fb_state.direct_run) ----------------------------
 *
 * One per mode and direction, chosen at fb_init, so that a short update
 * pays no test of mode or direction: len > 0 bytes, whole blocks for the
 * buffered modes. */
static void ecb_enc_direct(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	par_run(s, ecb_enc_blocks, no_starts, out, in, len >> s->bs_shift);
}

static void ecb_dec_direct(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	par_run(s, ecb_dec_blocks, no_starts, out, in, len >> s->bs_shift);
}

static void cbc_enc_direct(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	cbc_encrypt(s, out, in, len >> s->bs_shift);
}

static void cbc_dec_direct(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	par_run(s, cbc_decrypt, chain_starts, out, in, len >> s->bs_shift);
}

static void xts_direct(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	xts_run(s, out, in, len >> s->bs_shift);
}

fb_direct_fn fb_mode_direct_run(const fb_state *s)
{
	switch (s->mode) {
	case FB_ECB: return s->encrypt ? ecb_enc_direct : ecb_dec_direct;
	case FB_CBC: return s->encrypt ? cbc_enc_direct : cbc_dec_direct;
	case FB_XTS: return xts_direct;
	default: return fb_mode_stream;
	}
}

/* Next keystream block for CFB, OFB, CTR (s->pos = 0 afterwards). */
static void next_keystream(fb_state *s)
{
	ser_encrypt1(s, s->ksb, s->iv);
	if (s->mode == FB_OFB)
		memcpy(s->iv, s->ksb, s->bs);
	else if (s->mode == FB_CTR)
		ctr_add1(s->iv, s->bs);
	s->pos = 0;
}

/* Zero blocks: the input of OFB's keystream (the CBC encryption of zeros)
 * and of CTR's keystream made ahead. Not zeros stored just before: the
 * wide kernels' 64-byte loads of them, each spanning stores of memset,
 * could not take their data from the store queue and waited for the
 * stores to retire. A chunk's worth (CTR keeps at most 4 KB). */
static const uint8_t zero_blocks[FB_CHUNK];

/* Fewer blocks than this go one at a time: for one or two blocks the fused
 * chain's set-up costs more than it saves (AES-128-OFB, 16-byte updates:
 * 76 TSC ticks through the chain, 45 one at a time, on Zen 4). */
#define SERIAL_VIA_CBC_MIN 3

/* OFB and CFB encryption through a kernel's fused CBC encryption, which
 * keeps the round keys in registers across the chain:
 *  - the OFB keystream is the CBC encryption of zero blocks;
 *  - the CFB keystream O(i+1) = E(P(i) ^ O(i)) is the CBC encryption of
 *    the plaintext shifted by one block, chained from O(0) = E(IV). */
static void stream_via_cbc(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	uint8_t tmp[FB_CHUNK];
	size_t used = chunk(n, bs) * bs;
	while (n) {
		size_t m = chunk(n, bs);
		if (s->mode == FB_OFB) {
			s->ser->cbc_enc(s->ks_ser, tmp, zero_blocks, m, s->iv);
		} else {
			ser_encrypt1(s, tmp, s->iv);
			memcpy(s->iv, tmp, bs);
			s->ser->cbc_enc(s->ks_ser, tmp + bs, in, m - 1, s->iv);
		}
		fb_xor(out, in, tmp, m * bs);
		if (s->mode == FB_CFB)
			memcpy(s->iv, out + (m - 1) * bs, bs);
		in += m * bs, out += m * bs, n -= m;
	}
	fb_wipe(tmp, used);
}

/* Whole blocks of OFB (either way) or CFB encryption: a serial chain of
 * one-block encryptions, XORed a word at a time. */
static void serial_stream_blocks(fb_state *s, uint8_t *out, const uint8_t *in, size_t n)
{
	unsigned bs = s->bs;
	if (s->mode == FB_CFB && s->ser->cfb_enc) {
		s->ser->cfb_enc(s->ks_ser, out, in, n, s->iv);
		return;
	}
	if (s->mode == FB_OFB && s->ser->ofb) {
		s->ser->ofb(s->ks_ser, out, in, n, s->iv);
		return;
	}
	if (s->ser->cbc_enc && n >= SERIAL_VIA_CBC_MIN) {
		stream_via_cbc(s, out, in, n);
		return;
	}
	for (size_t i = 0; i < n; i++, in += bs, out += bs) {
		ser_encrypt1(s, s->ksb, s->iv);
		fb_xor(out, in, s->ksb, bs);
		memcpy(s->iv, s->mode == FB_OFB ? s->ksb : out, bs);
	}
	fb_wipe(s->ksb, sizeof s->ksb);
}

/* CFB8 decryption in parallel: the shift register before byte k is the
 * last block of (register || ciphertext[0..k)), all known in advance, so
 * one batch encrypts every register of a chunk at once. This pays on
 * kernels of one block at a time too: their blocks are independent here,
 * where a byte-by-byte chain waits out each block's latency (8 KB under
 * FASTBLOCK_CPU_MASK=0 on Zen 5: des/table 0.52 of the chain's time,
 * twofish/table 0.44, serpent/bitslice 0.69, rc6 0.93). */
static void cfb8_decrypt_parallel(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	unsigned bs = s->bs;
	uint8_t tmp[FB_CHUNK], stream[FB_CHUNK / 8 + 16];
	size_t used = chunk(len, bs) * bs;
	while (len) {
		size_t m = chunk(len, bs);
		memcpy(stream, s->iv, bs);
		memcpy(stream + bs, in, m);
		/* fixed-size copies: with a runtime length each would be a libc
		 * call, ~5 TSC ticks a byte for AES-128 on AES-NI (the rounds: ~4).
		 * Unrolled: as a five-instruction loop its speed hung on where the
		 * linker put it (DES on AMD Zen 4: 8 KB 0.90x when the loop
		 * crossed a 64-byte line of code). */
		if (bs == 16)
			_Pragma("GCC unroll 4") for (size_t k = 0; k < m; k++)
				memcpy(tmp + 16 * k, stream + k, 16);
		else
			_Pragma("GCC unroll 8") for (size_t k = 0; k < m; k++)
				memcpy(tmp + 8 * k, stream + k, 8);
		memcpy(s->iv, stream + m, bs); /* before out (may be in) is written */
		on_ladder(s, enc_step, tmp, tmp, m);
		for (size_t k = 0; k < m; k++)
			out[k] = stream[bs + k] ^ tmp[k * bs];
		in += m, out += m, len -= m;
	}
	fb_wipe(tmp, used);
}

/* CFB8 one byte at a time. On little-endian hosts the shift register
 * lives in 64-bit words and is written back whole: the kernel's loads of
 * it then forward from those stores, where a byte-wise shift in memory
 * made every byte's block load wait for the stores before it
 * (rc6-128-cfb8 on Zen 5: 108 TSC ticks a byte, 137 through memory). */
static void cfb8_serial(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	unsigned bs = s->bs;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t r[2];
	unsigned last = bs / 8 - 1;
	memcpy(r, s->iv, bs);
	for (size_t i = 0; i < len; i++) {
		ser_encrypt1(s, s->ksb, (const uint8_t *)r);
		uint8_t c = s->encrypt ? (uint8_t)(in[i] ^ s->ksb[0]) : in[i];
		out[i] = in[i] ^ s->ksb[0];
		if (last)
			r[0] = r[0] >> 8 | r[1] << 56;
		r[last] = r[last] >> 8 | (uint64_t)c << 56;
	}
	memcpy(s->iv, r, bs);
#else
	for (size_t i = 0; i < len; i++) {
		ser_encrypt1(s, s->ksb, s->iv);
		uint8_t c = s->encrypt ? (uint8_t)(in[i] ^ s->ksb[0]) : in[i];
		out[i] = in[i] ^ s->ksb[0];
		memmove(s->iv, s->iv + 1, bs - 1);
		s->iv[bs - 1] = c;
	}
#endif
}

static void cfb8(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	if (!s->encrypt && len >= 16) {
		cfb8_decrypt_parallel(s, out, in, len);
		return;
	}
	if (s->encrypt && s->ser->cfb8_enc) {
		s->ser->cfb8_enc(s->ks_ser, out, in, len, s->iv);
		return;
	}
	cfb8_serial(s, out, in, len);
}

size_t fb_ctr_keep_bytes(const fb_kernel *k, int wide)
{
	size_t n = (size_t)k->batch * k->block_size;
	return wide && k->batch > 1 && k->short_run_min != 1 ? (n < 4096 ? n : 4096) : 0;
}

/* The fewest blocks of a short update that still run straight on the
 * kernel once the stream has had a short one. */
static inline size_t ctr_direct_min(const fb_state *s)
{
	return s->par->short_run_min ? s->par->short_run_min : fb_blocks_in(s->bs, s->ctr_cap);
}

/* CTR through the kept keystream. A wide kernel costs nearly as much for
 * a few blocks as for its whole batch (down to fb_kernel.short_run_min
 * blocks, where it has one), so once a stream has had one short
 * update, short updates take their keystream from a batch made ahead.
 * Long updates (and the first short one: a one-shot message is one update)
 * run straight on the kernel. Only lengths choose the path. Out of line:
 * inlined, its loop gave fb_mode_stream's short roads a stack frame and a
 * store per update (128-byte AES updates 1.07-1.13x the time on AMD Zen 4,
 * docs/benchmarks.md). */
static NOINLINE void ctr_kept(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	unsigned bs = s->bs;
	size_t batch = fb_blocks_in(bs, s->ctr_cap);
	size_t direct = ctr_direct_min(s);
	int was_short = s->ctr_short;
	if (len < s->ctr_cap && !was_short)
		s->ctr_short = 1;
	while (len) {
		size_t have = s->ctr_len - s->ctr_pos;
		if (have) {
			size_t t = have < len ? have : len;
			fb_xor(out, in, s->ctr_ks + s->ctr_pos, t);
			s->ctr_pos += (unsigned)t;
			in += t, out += t, len -= t;
			continue;
		}
		size_t n = fb_blocks_in(bs, len);
		if (n && (n >= direct || !was_short)) {
			par_run(s, ctr_blocks, ctr_starts, out, in, n);
			in += n * bs, out += n * bs, len -= n * bs;
			continue;
		}
		/* a partial block, or short updates: make keystream ahead */
		size_t make = was_short ? batch : 1;
		ctr_blocks(s, s->ctr_ks, zero_blocks, make);
		s->ctr_len = (unsigned)(make * bs);
		s->ctr_pos = 0;
	}
}

static NOINLINE void mode_stream_any(fb_state *s, uint8_t *out, const uint8_t *in, size_t len);

/* CTR on a wide kernel, and whole blocks of CTR (one-shot messages, the
 * serial kernels) and of CFB decryption with no keystream left over, go
 * straight to their runs, without the general loop's stack frame (a
 * 64-byte AES update is about 30 TSC ticks, the frame and its spills
 * about 5). */
void fb_mode_stream(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	unsigned bs = s->bs;
	if (s->ctr_cap) {
		/* A short update that the kept keystream covers, without the loop. */
		size_t have = s->ctr_len - s->ctr_pos;
		if (len <= have && s->ctr_short) {
			fb_xor(out, in, s->ctr_ks + s->ctr_pos, len);
			s->ctr_pos += (unsigned)len;
			return;
		}
		/* Whole blocks, nothing kept, at least a batch or at least the
		 * kernel's short run: ctr_kept would send them straight to the
		 * runs (marking the stream short as it would). */
		if (!have && !(len & (bs - 1)) &&
		    (len >= s->ctr_cap || fb_blocks_in(bs, len) >= ctr_direct_min(s))) {
			/* Stored only when it changes: not a store per update. */
			if (len < s->ctr_cap && !s->ctr_short)
				s->ctr_short = 1;
			par_run(s, ctr_blocks, ctr_starts, out, in, fb_blocks_in(bs, len));
			return;
		}
		ctr_kept(s, out, in, len);
		return;
	}
	if (s->pos >= bs && !(len & (bs - 1))) {
		if (s->mode == FB_CFB && !s->encrypt) {
			par_run(s, cfb_decrypt_blocks, chain_starts, out, in, fb_blocks_in(bs, len));
			return;
		}
		if (s->mode == FB_CTR) {
			par_run(s, ctr_blocks, ctr_starts, out, in, fb_blocks_in(bs, len));
			return;
		}
	}
	mode_stream_any(s, out, in, len);
}

static NOINLINE void mode_stream_any(fb_state *s, uint8_t *out, const uint8_t *in, size_t len)
{
	unsigned bs = s->bs;
	if (s->mode == FB_CFB8) {
		cfb8(s, out, in, len);
		return;
	}
	for (;;) {
		/* Bytes left in the current keystream block. */
		for (; s->pos < bs && len; s->pos++, len--) {
			uint8_t c = s->encrypt ? (uint8_t)(*in ^ s->ksb[s->pos]) : *in;
			*out++ = *in++ ^ s->ksb[s->pos];
			if (s->mode == FB_CFB)
				s->iv[s->pos] = c; /* the feedback is the ciphertext */
		}
		if (!len)
			return;
		size_t n = fb_blocks_in(bs, len);
		if (n && s->mode == FB_CTR) {
			par_run(s, ctr_blocks, ctr_starts, out, in, n);
		} else if (n && s->mode == FB_CFB && !s->encrypt) {
			par_run(s, cfb_decrypt_blocks, chain_starts, out, in, n);
		} else if (n) {
			serial_stream_blocks(s, out, in, n);
		} else {
			next_keystream(s);
			continue;
		}
		in += n * bs, out += n * bs, len -= n * bs;
		if (!len)
			return;
		next_keystream(s);
	}
}
