/* The implementation choice (src/select.c): the only place that decides
 * which kernels a context, a one-shot call or a multi-stream call runs. */
#ifndef FB_SELECT_H
#define FB_SELECT_H
#include "internal.h"

typedef struct fb_selection_query {
	const fb_family *family;
	enum fb_mode mode;
	int encrypt;
	size_t len_hint;    /* the whole message's length if known, else SIZE_MAX */
	unsigned flags;     /* FB_FLAG_* (FB_FLAG_CONSTANT_TIME matters) */
	uint32_t cpu;       /* FB_CPU_* bits the kernels may use */
	const char *forced; /* an implementation name from the options, or NULL */
	size_t key_len;     /* one cipher key's bytes (XTS: one half); 0: not known */
} fb_selection_query;

typedef struct fb_selection {
	const fb_kernel *par; /* parallel batches (ECB, CTR, XTS, decryption of CBC/CFB/CFB8) */
	const fb_kernel *ser; /* serial chains and single blocks */
	int wide;             /* 1: the mode runs in parallel batches on par */
	/* The ladder below par, widest first (fb_family.ladder): runs of
	 * fewer than rung[i].below blocks go to rung[i].kernel. */
	struct fb_rung_choice {
		const fb_kernel *kernel;
		unsigned below;
		int tails;
	} rung[FB_LADDER_MAX];
	unsigned nrungs;
} fb_selection;

/* FB_OK, FB_ERR_IMPL_UNAVAILABLE (forced name unknown, of another family,
 * or not runnable on q->cpu) or FB_ERR_NOT_CONSTANT_TIME. */
int fb_select(const fb_selection_query *q, fb_selection *out);

/* 1 if the mode's work in this direction is independent per block (or
 * per keystream block), so a wide kernel can take it in batches. */
int fb_mode_parallel(enum fb_mode mode, int encrypt);

/* fb_multi_crypt: the engine for a set of streams streams, the longest of
 * blocks blocks (one_key: a single key schedule per stream, e.g. DES, not
 * EDE). lanes NULL: one stream at a time on kernel; whole: that stream's
 * blocks in parallel on kernel's fused CBC or CFB decryption, as fb_update
 * runs a message of that length (the mode and direction allow it). */
typedef struct fb_lane_choice {
	const fb_kernel *kernel;
	const fb_lanes *lanes;
	int whole;
} fb_lane_choice;
int fb_select_lanes(const fb_selection_query *q, size_t streams, size_t blocks, int one_key,
		    fb_lane_choice *out);
/* 1 if a kernel of the family has a lane engine (compiled in). */
int fb_family_has_lanes(const fb_family *fam);

#endif
