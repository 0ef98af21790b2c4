/*
 * Threaded work (fb_ctx_set_threads, FB_FLAG_THREADS) gives the bytes one
 * thread gives: every parallel mode, sizes on both sides of the threshold,
 * of the 1 MB chunk and of the 64-chunk wave, in and out of place, in one
 * update or in uneven pieces, with counters that carry across 32 bits and
 * across the whole block. Serial modes with threads asked for are checked
 * too (they must simply run as before).
 *   test_threads [quick]     (FB_QUICK=1 in the environment: quick)
 */
#include "test_util.h"
#include "fastblock.h"

#define MB ((size_t)1 << 20)

static tu_stats st;

/* fb_update over in_len bytes in the given pieces (pieces NULL: one call),
 * then fb_final; returns bytes written or (size_t)-1. */
static size_t stream(fb_ctx *ctx, uint8_t *out, size_t cap, const uint8_t *in, size_t in_len,
		     tu_rng *pieces)
{
	size_t done = 0, w = 0, got;
	while (done < in_len) {
		size_t m = in_len - done;
		if (pieces) {
			size_t p = 1 + tu_below(pieces, 3 * MB);
			m = p < m ? p : m;
		}
		/* in place when out == in: the piece lands where it was read */
		const uint8_t *src = in + done;
		uint8_t *dst = out == in ? out + done : out + w;
		if (fb_update(ctx, dst, cap - w, &got, src, m))
			return (size_t)-1;
		w += got, done += m;
	}
	if (fb_final(ctx, out + w, cap - w, &got))
		return (size_t)-1;
	return w + got;
}

typedef struct variant {
	unsigned threads;
	int in_place, split, flag;
} variant;

static void check_one(const char *name, int enc, size_t len, const uint8_t *iv, const variant *v,
		      const uint8_t *msg, const uint8_t *ref, size_t ref_len, tu_rng *r)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	size_t cap = fb_output_bound(c, enc ? FB_ENCRYPT : FB_DECRYPT, len);
	uint8_t *buf = malloc(cap);
	uint8_t key[64];
	tu_rng kr = { 77 };
	tu_fill(&kr, key, sizeof key);
	fb_options o = { .padding = FB_PAD_NONE, .flags = v->flag ? FB_FLAG_THREADS : 0 };
	fb_ctx *ctx = fb_ctx_new();
	int rc = fb_init(ctx, c, enc ? FB_ENCRYPT : FB_DECRYPT, key, fb_cipher_key_len(c), iv,
			 fb_cipher_iv_len(c), &o);
	if (!rc && !v->flag)
		rc = fb_ctx_set_threads(ctx, v->threads);
	size_t got = (size_t)-1;
	/* In place, pieces must not leave output behind input: only the byte
	 * streams (CTR, CFB) keep the two in step over uneven pieces. */
	int in_place = v->in_place && (!v->split || strstr(name, "ctr") || strstr(name, "cfb"));
	if (!rc) {
		if (in_place) {
			memcpy(buf, msg, len);
			got = stream(ctx, buf, cap, buf, len, v->split ? r : NULL);
		} else {
			got = stream(ctx, buf, cap, msg, len, v->split ? r : NULL);
		}
	}
	tu_check(&st, !rc && got == ref_len && !memcmp(buf, ref, ref_len),
		 "%s %s %zu bytes, threads %u%s%s%s: rc %d, %zu bytes, differs from one thread", name,
		 enc ? "enc" : "dec", len, v->threads, v->flag ? " (flag)" : "", v->in_place ? ", in place" : "",
		 v->split ? ", split" : "", rc, got);
	fb_ctx_free(ctx);
	free(buf);
}

static void check_case(const char *name, int enc, size_t len, const uint8_t *iv, int quick, tu_rng *r)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	if (!c) {
		tu_fail(&st, "%s: unknown", name);
		return;
	}
	uint8_t *msg = malloc(len + 1), *ref = malloc(len + 64), key[64];
	tu_fill(r, msg, len);
	tu_rng kr = { 77 };
	tu_fill(&kr, key, sizeof key);
	fb_options o = { .padding = FB_PAD_NONE };
	size_t ref_len = 0;
	int rc = (enc ? fb_encrypt : fb_decrypt)(c, key, fb_cipher_key_len(c), iv, fb_cipher_iv_len(c), msg,
						  len, ref, len + 64, &ref_len, &o);
	if (rc) {
		tu_fail(&st, "%s %zu: one thread: %s", name, len, fb_strerror(rc));
	} else {
		static const variant all[] = {
			{ 2, 0, 0, 0 }, { 2, 1, 0, 0 }, { 0, 0, 1, 0 }, { 3, 1, 1, 0 }, { 0, 0, 0, 1 },
		};
		size_t nv = quick ? 2 : sizeof all / sizeof all[0];
		for (size_t i = 0; i < nv; i++)
			check_one(name, enc, len, iv, &all[i], msg, ref, ref_len, r);
	}
	free(msg);
	free(ref);
}

/* An IV whose low 32 bits (or all bits) are close to wrapping. */
static void iv_near_wrap(uint8_t *iv, size_t n, int all)
{
	memset(iv, all ? 0xff : 0x5a, n);
	memset(iv + n - 4, 0xff, 4);
	iv[n - 1] = 0x00; /* wraps 256 blocks in: inside the first chunk */
	iv[n - 3] = 0xf0; /* and again a chunk or two later: across one */
}

int main(int argc, char **argv)
{
	int quick = (argc > 1 && !strcmp(argv[1], "quick")) || getenv("FB_QUICK");
	st.seed = tu_seed();
	tu_rng r = { st.seed };
	double t0 = tu_now();
	uint8_t iv[16];
	/* Parallel modes of the two families most used, at every boundary. */
	static const char *const main_names[] = {
		"des-ede3-ecb", "des-ede3-cbc", "des-ede3-cfb", "des-ede3-ctr",
		"aes-128-ecb", "aes-128-cbc", "aes-128-cfb", "aes-128-ctr", "aes-128-xts", "aes-256-xts",
	};
	for (size_t i = 0; i < sizeof main_names / sizeof *main_names; i++) {
		const char *n = main_names[i];
		size_t bs = fb_cipher_block_size(fb_cipher_by_name(n));
		int stream_mode = strstr(n, "ctr") || strstr(n, "cfb");
		size_t sizes[] = { 2 * MB - bs, 2 * MB, 2 * MB + bs, 3 * MB - bs + (stream_mode ? 5 : 0),
				   5 * MB + 7 * bs + (stream_mode ? 3 : 0) };
		/* quick: the threshold's two sides and a partial chunk */
		size_t first = quick ? 1 : 0, end = quick ? 4 : sizeof sizes / sizeof *sizes;
		for (size_t k = first; k < end; k++) {
			tu_fill(&r, iv, sizeof iv);
			if (strstr(n, "ctr"))
				iv_near_wrap(iv, bs, k & 1);
			check_case(n, 0, sizes[k], iv, quick, &r);
			if (strstr(n, "ecb") || strstr(n, "ctr") || strstr(n, "xts"))
				check_case(n, 1, sizes[k], iv, quick, &r);
		}
	}
	/* Every other family, in the modes with their own fused kernels. */
	static const char *const other[] = {
		"des-ctr", "des-cbc", "rc6-128-ctr", "rc6-128-cbc", "mars-128-ctr", "mars-128-xts",
		"twofish-128-ctr", "twofish-128-xts", "serpent-128-ctr", "serpent-128-cbc", "serpent-256-xts",
	};
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		size_t bs = fb_cipher_block_size(fb_cipher_by_name(other[i]));
		tu_fill(&r, iv, sizeof iv);
		check_case(other[i], 0, 3 * MB + 3 * bs, iv, 1, &r);
	}
	/* Serial modes ignore the setting. */
	check_case("des-ede3-cbc", 1, 2 * MB + 8, iv, 1, &r);
	check_case("aes-128-ofb", 1, 2 * MB + 3, iv, 1, &r);
	/* Past one wave of 64 chunks (the starts are worked out wave by wave). */
	if (!quick) {
		tu_fill(&r, iv, sizeof iv);
		iv_near_wrap(iv, 16, 1);
		check_case("aes-128-ctr", 1, 130 * MB + 21, iv, 1, &r);
		check_case("aes-256-xts", 1, 129 * MB + 16 * 3 + 5, iv, 1, &r);
		check_case("aes-128-cbc", 0, 129 * MB + 16, iv, 1, &r);
	}
	/* The API's refusals. */
	fb_ctx *ctx = fb_ctx_new();
	tu_check(&st, fb_ctx_set_threads(NULL, 2) == FB_ERR_ARGUMENT, "set_threads(NULL) accepted");
	tu_check(&st, fb_ctx_set_threads(ctx, 2) == FB_ERR_STATE, "set_threads before fb_init accepted");
	fb_ctx_free(ctx);
	return tu_finish(&st, "test_threads", tu_now() - t0);
}
