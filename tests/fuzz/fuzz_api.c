/*
 * The public API, differential: a message under a random cipher, key and
 * IV through the default choice, every implementation this CPU runs (and
 * so the portable one), one-shot and in random stream splits, in place and
 * out of place. All must agree, and decryption must give the message back.
 */
#include <stdio.h>
#include <stdlib.h>
#include "fastblock.h"
#include "fuzz_input.h"

static size_t ncipher(void)
{
	size_t n = 0;
	while (fb_cipher_at(n))
		n++;
	return n;
}

/* Streams msg through ctx in random pieces; returns bytes written or -1. */
static long stream(fb_ctx *ctx, fz_in *in, const uint8_t *msg, size_t len, uint8_t *out, size_t cap)
{
	size_t done = 0, w = 0, n;
	while (done < len) {
		size_t piece = 1 + fz_below(in, 70);
		if (piece > len - done)
			piece = len - done;
		if (fb_update(ctx, out + w, cap - w, &n, msg + done, piece))
			return -1;
		w += n;
		done += piece;
	}
	if (fb_final(ctx, out + w, cap - w, &n))
		return -1;
	return (long)(w + n);
}

static void check(int cond, const char *what, const fb_cipher *c, const char *impl)
{
	if (!cond) {
		fprintf(stderr, "fuzz_api: %s differs for %s, implementation %s\n", what,
			fb_cipher_name(c), impl ? impl : "default");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_in in = { data, size };
	const fb_cipher *c = fb_cipher_at(fz_below(&in, ncipher()));
	size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c);
	uint8_t key[64], iv[16], msg[600], ref[700], out[700], back[700];
	if (!kl)
		kl = 16;
	fz_bytes(&in, key, kl);
	fz_bytes(&in, iv, ivl);
	size_t len = fz_below(&in, sizeof msg);
	fz_bytes(&in, msg, len);
	size_t rl, ol, bl;
	int rc = fb_encrypt(c, key, kl, iv, ivl, msg, len, ref, sizeof ref, &rl, NULL);
	if (rc)
		return 0; /* refused (e.g. equal XTS halves, data length): nothing to compare */
	rc = fb_decrypt(c, key, kl, iv, ivl, ref, rl, back, sizeof back, &bl, NULL);
	check(!rc && bl == len && !memcmp(back, msg, len), "decrypt(encrypt(x))", c, NULL);
	fb_ctx *ctx = fb_ctx_new();
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		if (!info.supported || strcmp(info.family, fb_cipher_family(c)))
			continue;
		fb_options opt = { .impl = info.name };
		check(!fb_encrypt(c, key, kl, iv, ivl, msg, len, out, sizeof out, &ol, &opt) && ol == rl &&
			      !memcmp(out, ref, rl), "one-shot encryption", c, info.name);
		check(!fb_init(ctx, c, FB_ENCRYPT, key, kl, iv, ivl, &opt), "init", c, info.name);
		long sl = stream(ctx, &in, msg, len, out, sizeof out);
		check(sl == (long)rl && !memcmp(out, ref, rl), "streamed encryption", c, info.name);
		memcpy(out, ref, rl); /* in place */
		check(!fb_decrypt(c, key, kl, iv, ivl, out, rl, out, sizeof out, &ol, &opt) && ol == len &&
			      !memcmp(out, msg, len), "in-place decryption", c, info.name);
		check(!fb_init(ctx, c, FB_DECRYPT, key, kl, iv, ivl, &opt), "init", c, info.name);
		sl = stream(ctx, &in, ref, rl, out, sizeof out);
		check(sl == (long)len && !memcmp(out, msg, len), "streamed decryption", c, info.name);
	}
	fb_ctx_free(ctx);
	return 0;
}
