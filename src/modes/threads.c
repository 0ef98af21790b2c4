/*
 * Large parallel runs on several threads. A run of whole blocks is cut
 * into chunks of FB_MT_CHUNK bytes; each chunk's starting chaining value
 * (counter, previous ciphertext block, XTS tweak) is worked out first, on
 * the calling thread, so the chunks are independent. Then the calling
 * thread and up to threads - 1 helpers take chunks in order from a shared
 * counter, each with its own copy of the state over the same read-only key
 * schedules. Output lands in place, so it is in order and needs no buffer.
 *
 * Threads are made per call and joined before it returns: the library
 * keeps no pool (no global mutable state), and at FB_MT_MIN bytes and up
 * a thread's start (tens of microseconds) is well under 1 % of the work.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#include "modes.h"

/* Chunks worked out per wave: the starts of a wave sit on the stack. */
#define WAVE 64
#define MAX_THREADS 256

unsigned fb_threads_available(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0) {
		int n = CPU_COUNT(&set);
		return n > 0 ? (unsigned)n : 1;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

typedef struct wave {
	const fb_state *s;
	fb_blocks_fn run;
	uint8_t *out;
	const uint8_t *in;
	size_t n, chunk, count;   /* blocks in all, per chunk; chunks */
	const uint8_t (*starts)[16];
	uint8_t end[16];          /* the chaining value after the last chunk */
	atomic_size_t next;
} wave;

static void take_chunks(wave *w)
{
	fb_state t = *w->s;
	size_t bs = w->s->bs;
	for (;;) {
		size_t k = atomic_fetch_add(&w->next, 1);
		if (k >= w->count)
			break;
		size_t first = k * w->chunk;
		size_t m = w->n - first < w->chunk ? w->n - first : w->chunk;
		memcpy(t.iv, w->starts[k], 16);
		w->run(&t, w->out + first * bs, w->in + first * bs, m);
		if (k == w->count - 1)
			memcpy(w->end, t.iv, 16);
	}
	fb_wipe(&t, sizeof t);
}

static void *helper(void *arg)
{
	take_chunks(arg);
	return NULL;
}

/* One wave of at most WAVE chunks on up to threads threads. */
static void run_wave(wave *w, unsigned threads)
{
	pthread_t tid[MAX_THREADS];
	unsigned made = 0;
	if (threads > w->count)
		threads = (unsigned)w->count;
	/* A helper that cannot be made leaves its chunks to the others. */
	while (made + 1 < threads && pthread_create(&tid[made], NULL, helper, w) == 0)
		made++;
	take_chunks(w);
	for (unsigned i = 0; i < made; i++)
		pthread_join(tid[i], NULL);
}

void fb_mode_threaded(fb_state *s, fb_blocks_fn run, fb_starts_fn starts, uint8_t *out,
		      const uint8_t *in, size_t n)
{
	unsigned threads = s->threads ? s->threads : fb_threads_available();
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	size_t chunk = fb_blocks_in(s->bs, FB_MT_CHUNK), bs = s->bs;
	uint8_t st[WAVE][16];
	while (n) {
		wave w = { .s = s, .run = run, .out = out, .in = in, .chunk = chunk, .starts = st };
		w.count = (n + chunk - 1) / chunk;
		if (w.count > WAVE)
			w.count = WAVE;
		w.n = w.count * chunk < n ? w.count * chunk : n;
		memcpy(st[0], s->iv, 16);
		/* Before any chunk runs: in place, a chunk's output overwrites
		 * the ciphertext the next chunk chains from. */
		starts(s, in, chunk, w.count, st);
		atomic_init(&w.next, 0);
		run_wave(&w, threads);
		memcpy(s->iv, w.end, 16);
		out += w.n * bs, in += w.n * bs, n -= w.n;
	}
	fb_wipe(st, sizeof st);
}
