/*
 * Shared pieces of the bitsliced DES/3DES kernels (des_bs_avx512.c,
 * des_bs_avx2.c) and the driver of their lane engines (des_bs_lanes.c).
 *
 * Bitslicing: plane j of a batch holds state bit j of every block in the
 * batch, one block per bit lane, so E, P, IP and FP are free (they only
 * rename planes) and an S-box is a Boolean circuit run on whole registers
 * (see des_bs_sboxes.h). No table is indexed by key or data: the kernels
 * are constant-time.
 */
#ifndef FB_DES_BS_COMMON_H
#define FB_DES_BS_COMMON_H
#include "../internal.h"
#include "des_gfni.h"

/* Key schedule of the single-key kernels: every round-key bit as a 32-bit
 * word of all zeros or all ones, which the kernels XOR in with an embedded
 * broadcast (round r, bit j: rk[48 r + j] = key bit des_bs_key_bit[48 r + j]).
 * Decryption walks the 16 rounds of a key backwards. */
typedef struct des_bs_ks {
	uint32_t nkeys;     /* 1 (DES) or 3 (EDE) */
	/* Last, so that a single-DES context holds one schedule, not three
	 * (fb_des_bs_ks_bytes). */
	_Alignas(64) uint32_t rk[][16 * 48];
} des_bs_ks;
#define DES_BS_KS_MAX (sizeof(des_bs_ks) + 3 * sizeof(uint32_t[16 * 48]))
_Static_assert(DES_BS_KS_MAX <= FB_KS_MAX, "des_bs_ks must fit FB_KS_MAX");

/* The kernels' ks_bytes: the schedule for one key of keylen bytes. */
static inline size_t fb_des_bs_ks_bytes(size_t keylen)
{
	return sizeof(des_bs_ks) + (keylen == 8 ? 1 : 3) * sizeof(uint32_t[16 * 48]);
}

/* The next step of a run of n (> 0) blocks for a kernel of `batch` blocks
 * a batch: one batch, or two while more than one is left (the kernels run
 * two batches' rounds alternately). Sets m[0] and m[1] (0 for one batch)
 * and returns the number of batches. */
static inline int fb_des_bs_batches(size_t n, size_t batch, size_t m[2])
{
	m[0] = n < batch ? n : batch;
	n -= m[0];
	m[1] = n < batch ? n : batch;
	return m[1] ? 2 : 1;
}

/* The chaining value's planes (IP domain) from the preoutput planes st,
 * 64 planes of plane bytes each: IP(FP(R16 L16)) is R16 L16, the halves
 * of st swapped. */
static inline void fb_des_bs_chain_from(void *s, const void *st, size_t plane)
{
	memcpy(s, (const uint8_t *)st + 32 * plane, 32 * plane);
	memcpy((uint8_t *)s + 32 * plane, st, 32 * plane);
}

/* The passes of DES or EDE over one batch st or two (su, else NULL):
 * PASS(st, su, rk, dec, swap) runs 16 rounds with the key words rk,
 * backwards if dec, with the halves' roles exchanged if swap (how the
 * second pass of EDE continues from the first). */
#define DES_BS_CRYPT(PASS, st, su, ks, dec) do { \
	if ((ks)->nkeys == 1) { \
		PASS(st, su, (ks)->rk[0], dec, 0); \
	} else if (!(dec)) { \
		PASS(st, su, (ks)->rk[0], 0, 0); \
		PASS(st, su, (ks)->rk[1], 1, 1); \
		PASS(st, su, (ks)->rk[2], 0, 0); \
	} else { \
		PASS(st, su, (ks)->rk[2], 1, 0); \
		PASS(st, su, (ks)->rk[1], 0, 1); \
		PASS(st, su, (ks)->rk[0], 1, 0); \
	} \
} while (0)

extern const fb_kernel fb_des_bs_avx512;
extern const fb_kernel fb_des_bs_avx512_t2b;
extern const fb_kernel fb_des_bs_avx2;
extern const fb_kernel fb_des_bs_avx2_gfni;

/* ---- the bitsliced lane engines (des_bs_lanes.c) ------------------------ */

extern const fb_lanes fb_des_bs512_lanes;
extern const fb_lanes fb_des_bs256_lanes, fb_des_bs256_gf_lanes;

/* Up to 512 lanes, every lane its own key and stream (fb_multi_crypt's lane
 * sets), on des/bs-avx512's planes or on two batches of des/bs-avx2's. One
 * driver (des_bs_lanes.c) runs both through a des_bs_lane_ops. A row is one
 * block per lane, lane b at byte 8 b; rows are DES_BS_ROW bytes apart (a
 * cache line of padding, so the eight rows of a chunk do not share L1 sets).
 *  - lane_keys: the keys kbuf (24 bytes per lane: K1 K2 K3) -> key planes kp
 *    (DES_BS_LANE_KEYS_SIZE bytes, 64-byte aligned).
 *  - load: a row of blocks (IVs) -> the chaining planes state; load_groups
 *    the same for the lane groups j (lanes 8j..8j+7) with sel[j] = 0xFF only
 *    (the others have sel[j] = 0).
 *  - gather_group: the cache line at offset off of each input of lane group
 *    j (less its skew) -> its pieces of eight rows, one per block step,
 *    missing blocks as zeros; scatter_group: the pieces of eight rows -> the
 *    lines at offset off (less the skew) of the group's outputs, whole
 *    blocks up to each lane's length.
 *  - multi_steps: nsteps block steps of mode (FB_CBC, FB_CFB, FB_OFB) over
 *    consecutive rows in -> out for nl lanes (lanes past nl are left
 *    undefined); prev is the row before the first (CBC and CFB decryption
 *    chain from it), state the chaining planes of CBC/CFB encryption and OFB
 *    between calls. Between its rounds it does the work in bg (NULL: none):
 *    the scatter of the previous chunk and prefetches. work:
 *    DES_BS_WORK_SIZE bytes of 64-byte aligned scratch, which the caller
 *    wipes when done. */
/* Key planes: des/bs-avx512's 3 x 112 zmm; des/bs-avx2's two batches of
 * 3 x 112 ymm and their complements. */
#define DES_BS512_LANE_KEYS (3 * 112 * 64)
#define DES_BS256_LANE_KEYS (2 * 3 * 2 * 112 * 32)
#define DES_BS_LANE_KEYS_SIZE DES_BS256_LANE_KEYS
#define DES_BS_STATE_SIZE (64 * 64)
#define DES_BS_WORK_SIZE (8 * 1024)
#define DES_BS_ROW (8 * 512 + 64)
#define DES_BS_ROW_Q (DES_BS_ROW / 8) /* in qwords */
typedef struct des_bs_lanes {
	const uint8_t *in[512];
	uint8_t *out[512];
	size_t len[512]; /* bytes; 0 for an idle lane (its pointers still valid) */
	size_t skew[64]; /* lane group j starts skew[j] bytes late: engine
			  * offset off is offset off - skew[j] of its streams */
	size_t full[64]; /* the shortest length in group j (0 if it has idle lanes) */
	size_t ng;       /* lanes 0 .. 8 ng - 1 are used */
} des_bs_lanes;
typedef struct des_bs_bg {
	const des_bs_lanes *ln;
	const void *scatter_rows; /* NULL: no scatter */
	size_t scatter_off;
	int prefetch;             /* 0: no prefetch */
	size_t prefetch_off;
} des_bs_bg;
typedef struct des_bs_lane_ops {
	void (*lane_keys)(void *kp, const uint8_t *kbuf, size_t nl, unsigned nkeys);
	void (*load)(void *state, const uint8_t *blocks, size_t nl);
	void (*load_groups)(void *state, const uint8_t *blocks, size_t nl, const uint8_t sel[64]);
	void (*gather_group)(uint8_t *rows, const des_bs_lanes *ln, size_t off, size_t j);
	void (*scatter_group)(const des_bs_lanes *ln, size_t off, const uint8_t *rows, size_t j);
	void (*multi_steps)(const void *kp, unsigned nkeys, int mode, int enc, void *state, const uint8_t *prev,
			    const uint8_t *in, uint8_t *out, size_t nsteps, size_t nl, const des_bs_bg *bg,
			    void *work);
} des_bs_lane_ops;
extern const des_bs_lane_ops fb_des_bs512_ops; /* des_bs_avx512.c */
extern const des_bs_lane_ops fb_des_bs256_ops, fb_des_bs256_gf_ops; /* des_bs_avx2.c */

/* The lines of lane group j (lanes 8j..8j+7) at engine offset off are at
 * offset off - skew[j] of their streams (SIZE_MAX: the group has not
 * started). */
static inline size_t fb_des_bs_group_off(const des_bs_lanes *ln, size_t j, size_t off)
{
	return off >= ln->skew[j] ? off - ln->skew[j] : SIZE_MAX;
}

/* Bytes of lane b from offset o on (0 for o = SIZE_MAX). */
static inline size_t fb_des_bs_lane_bytes(const des_bs_lanes *ln, size_t b, size_t o)
{
	return ln->len[b] > o ? ln->len[b] - o : 0;
}

/* Prefetch to L2 of lane group j's lines at offset off. */
static inline void fb_des_bs_prefetch_group(const des_bs_lanes *ln, size_t off, size_t j)
{
	size_t o = fb_des_bs_group_off(ln, j, off);
	for (size_t b = 8 * j; b < 8 * j + 8; b++)
		if (fb_des_bs_lane_bytes(ln, b, o)) {
			__builtin_prefetch(ln->in[b] + o, 0, 2);
			if (ln->out[b] != ln->in[b])
				__builtin_prefetch(ln->out[b] + o, 1, 2);
		}
}

/* Work done between the rounds of a chunk (des_bs_bg): the scatter of the
 * previous chunk and prefetches, a lane group at a time, spread evenly over
 * the rounds (stores drain from the store buffer while the rounds run; a
 * burst would fill it, and the line fill buffers). Gathers are not done
 * here: a load that misses blocks retirement, and the rounds with it.
 * SCATTER_GROUP(ln, off, rows, j) is the engine's scatter of one group. */
typedef struct des_bs_bg_queue {
	const des_bs_bg *bg;
	size_t js, jp, ng, per;
} des_bs_bg_queue;

#define DES_BS_BG_SOME(q, SCATTER_GROUP) do { \
	des_bs_bg_queue *q_ = (q); \
	const des_bs_bg *bg_ = q_->bg; \
	for (size_t i_ = 0; bg_ && i_ < q_->per; i_++) { \
		if (bg_->scatter_rows && q_->js < q_->ng) \
			SCATTER_GROUP(bg_->ln, bg_->scatter_off, bg_->scatter_rows, q_->js++); \
		if (bg_->prefetch && q_->jp < q_->ng) \
			fb_des_bs_prefetch_group(bg_->ln, bg_->prefetch_off, q_->jp++); \
	} \
} while (0)

#endif
