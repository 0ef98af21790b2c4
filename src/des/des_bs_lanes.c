/*
 * The bitsliced multi-lane engines (fb_multi_crypt, src/modes/multi.c):
 * up to 512 streams, every lane its own key, the chaining of CBC, CFB and
 * OFB done on the bitsliced planes between block steps. Fused engines in
 * the sense of fb_lanes.run: they gather, chain and scatter themselves.
 * One driver over des/bs-avx512's planes and des/bs-avx2's (two batches of
 * 256 lanes), each through its des_bs_lane_ops (des_bs_common.h).
 */
#include <string.h>
#include "des_bs_common.h"

#if FB_X86

/* The engine's scratch (~160 KB), which the drive layer allocates only for
 * calls that use it and wipes. */
typedef struct {
	size_t chunk; /* the chunk holding the lane stream's last block */
	size_t lane;
} lane_end;

typedef struct {
	_Alignas(64) unsigned char kplanes[DES_BS_LANE_KEYS_SIZE];
	_Alignas(64) unsigned char state[DES_BS_STATE_SIZE];
	_Alignas(64) unsigned char work[DES_BS_WORK_SIZE];
	_Alignas(64) uint64_t rin[8][DES_BS_ROW_Q], rout[2][8][DES_BS_ROW_Q], prev[512], ivrow[512];
	_Alignas(64) uint8_t kbuf[24 * 512];
	des_bs_lanes ln;
	lane_end ends[512];
	_Alignas(64) uint8_t dummy[64];
} bs_scratch;

/* Sorts a[0..n) by chunk. The lanes come longest first, so the reversed
 * list is nearly in order (out only by the skews) and an insertion sort
 * runs in about n steps. Chunks are public (lengths). */
static void sort_ends(lane_end *a, size_t n)
{
	for (size_t i = 0, k = n; i < k / 2; i++) {
		lane_end x = a[i];
		a[i] = a[k - 1 - i];
		a[k - 1 - i] = x;
	}
	for (size_t i = 1; i < n; i++) {
		lane_end x = a[i];
		size_t k = i;
		for (; k && a[k - 1].chunk > x.chunk; k--)
			a[k] = a[k - 1];
		a[k] = x;
	}
}

static void keys_of(const fb_lane_job *j, size_t s, const uint8_t *k[3])
{
	const uint8_t *key = j->keys[s];
	k[0] = key;
	k[1] = j->keylen > 8 ? key + 8 : key;
	k[2] = j->keylen == 24 ? key + 16 : key;
}

/* Lane groups (eight streams) start 0..BS_SKEW_MAX-1 chunks apart (group j
 * j % skews chunks late), so that the cache lines a gather or scatter
 * touches at once lie at different offsets of their streams: with streams
 * at multiples of 4 KB apart, every line of a chunk would be in the same L1
 * set (measured: loads of such lines from L2 2.5x, stores 3-4x slower).
 * Costs skews - 1 chunks of idle lanes per call, so only for long streams. */
#define BS_SKEW_MAX 4

/* fb_lanes.wipe: what sets of at most nl lanes left of keys and data in the
 * scratch: the key planes, the engine's planes and work, and the first
 * lanes of every row (the lane pointers and lengths are public). Wiping the
 * whole scratch (~160 KB) cost a call of 26 one-block streams about as
 * much as its cipher. */
static void bs_wipe(void *scratch, size_t nl, size_t key_bytes)
{
	bs_scratch *w = scratch;
	size_t nb = nl < 512 ? (nl + 7) / 8 * 8 : 512;
	fb_wipe(w->kplanes, key_bytes);
	fb_wipe(w->state, sizeof w->state);
	fb_wipe(w->work, sizeof w->work);
	for (int t = 0; t < 8; t++) {
		fb_wipe(w->rin[t], 8 * nb);
		fb_wipe(w->rout[0][t], 8 * nb);
		fb_wipe(w->rout[1][t], 8 * nb);
	}
	fb_wipe(w->prev, 8 * nb);
	fb_wipe(w->ivrow, 8 * nb);
	fb_wipe(w->kbuf, 24 * nb);
}

static void bs512_wipe(void *scratch, size_t nl)
{
	bs_wipe(scratch, nl, DES_BS512_LANE_KEYS);
}

static void bs256_wipe(void *scratch, size_t nl)
{
	bs_wipe(scratch, nl, DES_BS256_LANE_KEYS);
}

/* The lines at offset off of every lane group's inputs -> rows. */
static void gather(const des_bs_lane_ops *ops, void *rows, const des_bs_lanes *ln, size_t off)
{
	for (size_t g = 0; g < ln->ng; g++)
		ops->gather_group(rows, ln, off, g);
}

/* A 512-lane engine. Stream i of the set (sorted by length, longest
 * first) runs in lane i; lanes 8j..8j+7 form lane group j, whose cache
 * lines one 8x8 qword transpose turns into eight block steps. Steps go
 * eight at a time (a chunk: one cache line per stream) with the chaining
 * bitsliced between them. After chunk c runs, chunk c + 1 is gathered into
 * the input rows (a phase of its own: a load that misses would stall the
 * rounds); while it runs, chunk c - 1 is scattered from the other output
 * rows and chunk c + 2 prefetched, a few lane groups between rounds.
 * Lengths and pointers are public; nothing here depends on keys or data. */
static void lanes_run(const des_bs_lane_ops *ops, const fb_lane_job *j, const size_t *lane, size_t nl,
		      void *scratch)
{
	bs_scratch *w = scratch;
	unsigned nkeys = j->keylen == 8 ? 1 : 3;
	int dec_chain = j->mode != FB_OFB && !j->enc; /* CBC/CFB decryption: prev row */
	size_t ng = (nl + 7) / 8, nb = 8 * ng, steps = (j->len[lane[0]] + 7) / 8;
	size_t lines = (steps + 7) / 8; /* of the longest stream */
	size_t skews = lines >= 48 ? BS_SKEW_MAX : lines >= 16 ? 2 : 1;
	if (!steps)
		return; /* every stream empty: the IVs stay */
	size_t nch = lines + skews - 1, nend = 0;
	des_bs_lanes *ln = &w->ln;
	lane_end *ends = w->ends;
	ln->ng = ng;
	memset(w->ivrow, 0, 8 * nb);
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
			ends[nend++] = (lane_end){ (j->len[s] - 1) / 64 + b / 8 % skews, b };
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
	sort_ends(ends, nend);
	ops->lane_keys(w->kplanes, w->kbuf, nb, nkeys);
	if (dec_chain)
		memcpy(w->prev, w->ivrow, 8 * nb);
	else
		ops->load(w->state, (const uint8_t *)w->ivrow, nb);
	for (size_t b = 0; b < nb; b++)
		if (ln->len[b] > 64 && !ln->skew[b / 8])
			__builtin_prefetch(ln->in[b] + 64, 0, 2);
	gather(ops, w->rin, ln, 0);
	size_t et = 0, ee = 0; /* ends[et..]: tails not yet read, ends[ee..]: not finished */
	for (size_t c = 0; c < nch; c++) {
		uint64_t(*rin)[DES_BS_ROW_Q] = w->rin, (*rout)[DES_BS_ROW_Q] = w->rout[c % 2];
		if (c && c < skews) { /* lane groups starting now start from their IVs */
			uint8_t sel[64] = { 0 };
			for (size_t g = c; g < ng; g += skews)
				sel[g] = 0xFF;
			if (dec_chain)
				for (size_t g = c; g < ng; g += skews)
					memcpy(&w->prev[8 * g], &w->ivrow[8 * g], 64);
			else
				ops->load_groups(w->state, (const uint8_t *)w->ivrow, nb, sel);
		}
		/* a partial last block (CFB, OFB) enters zero-padded */
		for (; et < nend && ends[et].chunk == c; et++) {
			size_t b = ends[et].lane, s = lane[b], r = j->len[s] % 8;
			if (r)
				memcpy(&rin[j->len[s] / 8 % 8][b], j->in[s] + j->len[s] / 8 * 8, r);
		}
		des_bs_bg bg = { ln, NULL, 0, 0, 0 };
		if (c) {
			bg.scatter_rows = w->rout[(c - 1) % 2];
			bg.scatter_off = 64 * (c - 1);
		}
		if (c + 2 < nch) {
			bg.prefetch = 1;
			bg.prefetch_off = 64 * (c + 2);
		}
		/* the last chunk holds the last steps of the longest stream (group
		 * 0, never late) and of every late group: steps - 8 (lines - 1) */
		size_t ns = c + 1 < nch ? 8 : steps - 8 * (lines - 1);
		ops->multi_steps(w->kplanes, nkeys, j->mode, j->enc, w->state, (const uint8_t *)w->prev,
				 (const uint8_t *)rin, (uint8_t *)rout, ns, nb, &bg, w->work);
		/* streams that end in this chunk: the partial last block, the IV */
		for (; ee < nend && ends[ee].chunk == c; ee++) {
			size_t b = ends[ee].lane, s = lane[b];
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
			gather(ops, w->rin, ln, 64 * (c + 1));
	}
	for (size_t g = 0; g < ng; g++)
		ops->scatter_group(ln, 64 * (nch - 1), (const uint8_t *)w->rout[(nch - 1) % 2], g);
}

static void bs512_run(const fb_lane_job *j, const size_t *lane, size_t nl, void *scratch)
{
	lanes_run(&fb_des_bs512_ops, j, lane, nl, scratch);
}

static void bs256_run(const fb_lane_job *j, const size_t *lane, size_t nl, void *scratch)
{
	lanes_run(&fb_des_bs256_ops, j, lane, nl, scratch);
}

static void bs256_gf_run(const fb_lane_job *j, const size_t *lane, size_t nl, void *scratch)
{
	lanes_run(&fb_des_bs256_gf_ops, j, lane, nl, scratch);
}

/* Sets of at least this many streams, of any length: below, the 32-lane
 * des/gfni-avx512 engine is faster (sets of at most 256 lanes run their
 * rounds in ymm). CBC encryption, TSC ticks a block, gfni against this
 * engine (bench/limits.md):
 *  - AMD Zen 4, 512 B to 8 KB a stream: DES x64 28-32 / 30-31, x72 31 /
 *    28-30, x80 29-30 / 25-26; 3DES x64 62-64 / 67-72, x68 73-80 / 65-70,
 *    x72 67-68 / 60-65; one-block streams x72 154 / 147 (DES), 318 / 255
 *    (3DES), x512 135 / 96 and 279 / 109;
 *  - Intel (Sapphire Rapids class), 1 KB a stream, minimum of 200 calls:
 *    3DES x72 59-62 / 66-69, x80 56-58 / 60-62, x87 52-54 / 55, x96 50-52
 *    / 48-52, x104 56-70 / 46-61; DES as on Zen 4 within the noise (x80
 *    25-28 / 26-27, x87 27 / 24-25 against the default of 72).
 */
const fb_lanes fb_des_bs512_lanes = {
	.max_lanes = 512,
	.constant_time = 1,
	.min = { { { 72, 68 }, FB_CPU_AMD_ZEN }, { { 72, 88 }, 0 } },
	.scratch_size = sizeof(bs_scratch),
	.run = bs512_run,
	.wipe = bs512_wipe,
};

/* des/bs-avx2's: a step costs a 256-lane batch whatever the lane count (two
 * from 257 lanes), so it pays from about DES_BS256_LANES_MIN streams on
 * against des/table-bmi2's four lanes (bench/limits.md): on Zen 4 under the
 * AVX2 mask, 8 KB a stream of CBC encryption, the four lanes run ~105 TSC
 * ticks a DES block and ~255 a 3DES block for any count from 20; this
 * engine DES 121, 101 and 88 at 20, 24 and 28 streams, 3DES 310, 256 and
 * 221. */
#define DES_BS256_LANES_MIN 26

#define BS256_LANES(fn) \
	.max_lanes = 512, .constant_time = 1, .min = { { { DES_BS256_LANES_MIN, DES_BS256_LANES_MIN }, 0 } }, \
	.scratch_size = sizeof(bs_scratch), .run = fn, .wipe = bs256_wipe
const fb_lanes fb_des_bs256_lanes = { BS256_LANES(bs256_run) };
/* des/bs-avx2-gfni's: the same engine, its block steps transposed by GFNI */
const fb_lanes fb_des_bs256_gf_lanes = { BS256_LANES(bs256_gf_run) };

#endif /* FB_X86 */
