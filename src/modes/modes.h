/*
 * The mode layer: written once for 8- and 16-byte blocks, knowing nothing
 * of any cipher. It drives the kernels chosen at fb_init.
 */
#ifndef FB_MODES_H
#define FB_MODES_H
#include "../registry.h"

/* Keeps a rare path's stack frame out of the short one that calls it. */
#define NOINLINE __attribute__((noinline))

#define FB_MAGIC_READY 0x66625244u  /* initialised */
#define FB_MAGIC_DONE 0x66624446u   /* finished: only re-init is allowed */

/* A kernel of the context's ladder and its key schedule: runs of fewer
 * than `below` blocks come here (the parallel kernel: SIZE_MAX). When
 * the next rung takes tails (fb_family.ladder), a rest of fewer than
 * tail_below blocks past this kernel's whole batches goes on (0: none). */
typedef struct fb_rung {
	const fb_kernel *k;
	const void *ks; /* NULL until the rung's first run builds it (fb_rung_key) */
	void *area;     /* where its schedule lives, shared by rungs of one format */
	size_t below;
	unsigned tail_below, area_bytes; /* 32 bits: the state stays in 7 cache lines */
} fb_rung;

typedef struct fb_state {
	uint32_t magic;
	/* fb_stream_update's short road, set at fb_init (fb_stream_direct_mask):
	 * input whose length has none of these bits set, with nothing
	 * buffered, gives as many bytes out at once. 0: byte streams; bs - 1:
	 * ECB and CBC that withhold nothing; -1: never (XTS, decryption that
	 * withholds a padding block). An int beside magic, in the cache line
	 * every call reads, widened with its sign. */
	int direct_mask;
	const fb_cipher *c;
	const fb_kernel *par, *ser; /* parallel batches; serial chains */
	const void *ks_ser, *ks_tweak;
	enum fb_mode mode;
	int encrypt;
	enum fb_padding padding;
	unsigned bs;
	unsigned buf_len; /* ECB, CBC, XTS: bytes waiting in buf */
	unsigned pos;     /* CFB, OFB, CTR: keystream bytes of ksb used (bs = none left) */
	uint8_t iv[16];   /* chaining value, counter, or XTS tweak */
	uint8_t ksb[16];  /* current keystream block */
	uint8_t buf[32];
	/* the short road's work (fb_mode_direct_run) */
	void (*direct_run)(struct fb_state *s, uint8_t *out, const uint8_t *in, size_t len);
	/* CTR on a wide kernel, streaming: a batch of keystream kept for the
	 * short updates that follow a short one (ctr_cap 0: none). */
	uint8_t *ctr_ks;
	unsigned ctr_cap, ctr_len, ctr_pos; /* bytes: room, made, used */
	int ctr_short;    /* an earlier update was shorter than ctr_cap */
	size_t used;      /* context bytes from its start through the last key schedule */
	size_t eager_end; /* context bytes from its start through what fb_init fills */
	unsigned threads; /* for large parallel runs: 1 = the caller's only, 0 = every CPU we may use */
	/* The serial kernel's area, from the state's start (32 bits each, in
	 * holes: the state stays in 7 cache lines) */
	unsigned ser_at;
	/* rung[0]: par; then narrower, widest first; then one with below 0 */
	fb_rung rung[2 + FB_LADDER_MAX];
	unsigned nrungs;
	unsigned ser_area_bytes;
	/* The data key, kept inside the context for the schedules built on
	 * first use (NULL: every schedule was built at fb_init). */
	const uint8_t *key;
	size_t klen;      /* the data key's bytes (XTS: half of key_len) */
	/* What fb_init was given besides the key, for re-keying in place */
	size_t key_len;
	fb_options opt;
	/* Flags and small numbers in bytes: with direct_run the state stays
	 * in 7 cache lines. */
	unsigned char ks_use; /* FB_KS_ENC: no kernel decrypts (CTR, CFB, CFB8, OFB, or
			       * encryption); FB_KS_DEC: none encrypts (ECB, CBC, XTS decryption) */
	/* 1: the serial kernel's schedule is built on first use
	 * (fb_ser_ready), not at fb_init, and ks_ser is NULL until then: in a
	 * parallel direction it serves only single blocks (a partial block, a
	 * short first run), which a long message may never have. Its area is
	 * the last rung's when the serial kernel is that rung. */
	unsigned char ser_lazy;
	/* 1 once a schedule built on first use (build_area) holds the key: a
	 * re-key with none skips looking for them (wipe_areas in api.c). */
	unsigned char lazy_built;
	/* XTS: iv holds the tweak as given; its encryption waits for the first
	 * block (xts_tweak_ready in block_modes.c), so fb_init costs the key setup alone. */
	unsigned char tweak_pending;
	unsigned char bs_shift; /* log2(bs): the short road's blocks in len bytes */
	/* Runs of two blocks that a rung with its schedule unbuilt has passed
	 * to the serial kernel since the key was set (first_step in
	 * block_modes.c). */
	unsigned char short_firsts;
} fb_state;

/* What a context's schedules serve: encryption only or decryption only
 * (fb_kernel.setkey_enc, setkey_dec). */
enum { FB_KS_ENC = 1, FB_KS_DEC = 2 };

/* The key setup for kernel k in a context of use `use` (FB_KS_*; a
 * kernel without that direction's setkey runs its full one). */
static inline int fb_setkey(const fb_kernel *k, int use, void *ks, const uint8_t *key, size_t klen)
{
	int (*f)(void *, const uint8_t *, size_t) = k->setkey;
	if (use == FB_KS_ENC && k->setkey_enc)
		f = k->setkey_enc;
	else if (use == FB_KS_DEC && k->setkey_dec)
		f = k->setkey_dec;
	return f(ks, key, klen);
}

/* Builds the schedule of rung r, and of every rung sharing its area, from
 * s->key: a wide kernel's schedule is paid for only by a run that reaches
 * it (block_modes.c). */
void fb_rung_key(fb_state *s, const fb_rung *r);

/* Where the serial kernel's schedule lives. */
static inline unsigned char *fb_ser_area(fb_state *s)
{
	return (unsigned char *)s + s->ser_at;
}

/* The serial kernel's schedule, built if it waits for its first use
 * (s->ser_lazy, ks_ser still NULL). */
void fb_ser_ready(fb_state *s);

/* 1 if out (out_len bytes) and in (in_len bytes) overlap other than by
 * being the same buffer: what the API refuses (FB_ERR_OVERLAP). */
static inline int fb_overlap_bad(const uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len)
{
	if (out == in || !out_len || !in_len)
		return 0;
	uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
	return o < i + in_len && i < o + out_len;
}

/* Builds every schedule not yet built: before runs on several threads,
 * which must not build one concurrently. */
void fb_rungs_ready(fb_state *s);

/* Whole blocks in n bytes. Blocks are 8 or 16 bytes, so a shift: a
 * division by the variable block size costs more than the rest of a
 * short update's bookkeeping. */
static inline size_t fb_blocks_in(unsigned bs, size_t n)
{
	return n >> (bs == 16 ? 4 : 3);
}

/* ---- Threads (threads.c) ----------------------------------------------------
 *
 * A parallel run of at least FB_MT_MIN bytes, on a context allowed more
 * than one thread, is cut into chunks of FB_MT_CHUNK bytes that run on
 * several threads. A chunk of 1 MB is 0.1 ms of AES (the fastest kernel)
 * and 0.8 ms of 3DES: long enough that making threads is noise, short
 * enough that two threads share a few MB evenly. */
#define FB_MT_CHUNK ((size_t)1 << 20)
#define FB_MT_MIN (2 * FB_MT_CHUNK)

/* n whole blocks of one parallel mode; s->iv is the chaining value before
 * and after. */
typedef void (*fb_blocks_fn)(fb_state *s, uint8_t *out, const uint8_t *in, size_t n);
/* Fills starts[1..count-1] with the chaining values at the starts of
 * chunks 1..count-1 of `chunk` blocks each, from starts[0] and the input. */
typedef void (*fb_starts_fn)(const fb_state *s, const uint8_t *in, size_t chunk, size_t count,
			     uint8_t (*starts)[16]);

/* CPUs this process may run on (at least 1). */
unsigned fb_threads_available(void);
/* Runs n blocks through run on s->threads threads (0: every CPU), output
 * in place and in order, s->iv advanced as run alone would. */
void fb_mode_threaded(fb_state *s, fb_blocks_fn run, fb_starts_fn starts, uint8_t *out,
		      const uint8_t *in, size_t n);

/* The streaming calls behind fb_update and fb_final (stream.c; the short
 * road inline in update.h): the API has checked the context and the
 * pointers. */

/* 1 if in_len bytes take the short road: as many bytes out as in, at
 * once (byte streams; whole blocks of ECB and CBC with nothing buffered
 * or withheld). One test of a field set at fb_init, not four of mode,
 * direction, padding and buffer: at 16 bytes these were a tenth of the
 * update. */
static inline int fb_stream_direct(const fb_state *s, size_t in_len)
{
	return !((in_len & (size_t)(ptrdiff_t)s->direct_mask) | s->buf_len);
}

/* Any update that is not the short road: buffering, withholding. */
int fb_stream_update_general(fb_state *s, uint8_t *out, size_t out_cap, size_t *out_len,
			     const uint8_t *in, size_t in_len);

int fb_stream_final(fb_state *s, uint8_t *out, size_t out_cap, size_t *out_len);
/* s->direct_mask for the mode, direction and padding set in s. */
int fb_stream_direct_mask(const fb_state *s);
/* fb_stream_update for a caller that has checked what fb_update checks
 * (in_len > 0 bytes at in, room for in_len bytes at out, in and out the
 * same or apart: fb_update_checked): the short road without its room and
 * overlap tests, anything else by fb_stream_update_general with out_cap = in_len. */
int fb_stream_update_checked(fb_state *s, uint8_t *out, const uint8_t *in, size_t in_len, size_t *out_len);

/* 1 if the stream is where fb_init leaves it: nothing buffered, no
 * keystream block partly used, none made ahead, no short CTR update seen. */
static inline int fb_stream_at_start(const fb_state *s)
{
	return !(s->buf_len | s->ctr_len | (unsigned)s->ctr_short) && s->pos == s->bs;
}

/* A whole message (not XTS) on a stream at its start, total > 0 bytes
 * out as the caller's plan found them (in_len; with padding the padded
 * length, or what the checked padding leaves): fb_stream_update's short
 * road, then a padded last block as fb_stream_final makes or reads it.
 * Room and overlap are the caller's. */
void fb_stream_message(fb_state *s, uint8_t *out, const uint8_t *in, size_t in_len, size_t total);

/* Whole-block work for the buffered modes (ECB, CBC, XTS): n blocks. */
void fb_mode_blocks(fb_state *s, uint8_t *out, const uint8_t *in, size_t n);
/* Byte-stream work for CFB, CFB8, OFB, CTR: any length. */
void fb_mode_stream(fb_state *s, uint8_t *out, const uint8_t *in, size_t len);
/* The short road's work for the mode and direction set in s: len > 0
 * bytes, whole blocks for ECB, CBC and XTS (fb_state.direct_run). */
typedef void (*fb_direct_fn)(fb_state *s, uint8_t *out, const uint8_t *in, size_t len);
fb_direct_fn fb_mode_direct_run(const fb_state *s);

/* XTS ciphertext stealing over the last full block plus r bytes (0<r<bs). */
void fb_mode_xts_tail(fb_state *s, uint8_t *out, const uint8_t *in, size_t r);
/* XTS: one whole data unit of len >= 16 bytes, the last two blocks stolen,
 * from the tweak in s->iv; the tweak (and whether it waits to be
 * encrypted) is as before afterwards, so the next unit or update starts
 * where this one did. Returns FB_OK, so that callers end in a tail call. */
int fb_mode_xts_unit(fb_state *s, uint8_t *out, const uint8_t *in, size_t len);

/* Keystream bytes a streaming CTR context keeps for kernel k (0: none):
 * one natural batch of k, at most 4 KB. */
size_t fb_ctr_keep_bytes(const fb_kernel *k, int wide);

/* Forgets kept keystream (a new IV or a finished stream). Inline: every
 * re-key and message restart runs it, mostly with nothing kept. */
static inline void fb_ctr_forget(fb_state *s)
{
	if (s->ctr_len)
		fb_wipe(s->ctr_ks, s->ctr_len);
	s->ctr_len = s->ctr_pos = 0;
	s->ctr_short = 0;
}

/* Padding (padding.c). */
void fb_pad(enum fb_padding p, uint8_t *block, unsigned used, unsigned bs);
/* Returns the number of data bytes in the final block, or -1 if the
 * padding is bad. Constant time in the block's contents. */
int fb_unpad(enum fb_padding p, const uint8_t *block, unsigned bs);

/* out = a ^ b; out may equal a or b. Sixteen bytes a step, in GCC's
 * vector type (SSE2 on x86-64, whatever the target has elsewhere): this
 * runs once per byte of every generic mode and of CTR's kept keystream.
 * Left to vectorize a word loop, the compiler added overlap checks and
 * peeling: this way a 64-byte CTR update from kept keystream is 27
 * instructions shorter (Zen 4, AES-128: 1.11x the speed). */
static inline void fb_xor(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	typedef uint64_t v2 __attribute__((vector_size(16)));
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		v2 x, y;
		memcpy(&x, a + i, 16);
		memcpy(&y, b + i, 16);
		x ^= y;
		memcpy(out + i, &x, 16);
	}
	if (i + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x ^= y;
		memcpy(out + i, &x, 8);
		i += 8;
	}
	for (; i < n; i++)
		out[i] = a[i] ^ b[i];
}

/* fb_multi_crypt for the library's own callers (src/mac.c), whose buffers
 * are disjoint by construction and whose streams all have the same length
 * (else FB_ERR_ARGUMENT): the same work without the overlap check and the
 * sort by length, which with one-block streams cost more than the cipher. */
int fb_multi_same(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir, size_t n,
		  const uint8_t *const *keys, uint8_t *const *ivs, const uint8_t *const *in,
		  uint8_t *const *out, const size_t *len);

#endif
