/*
 * fb_multi_crypt against single-stream results: n = 1..40 streams (and a
 * few larger n that fill the 512-lane engine, short and long, and a few
 * streams longer than a wide kernel's batch), different lengths per
 * stream, DES / two-key / three-key EDE, CBC / CFB / OFB, both directions,
 * every engine (default choice, des/bs-avx512, des/gfni-avx512, des/bs-avx2 and a
 * block kernel when this CPU runs them), in place and out of place; the
 * returned IVs against the last chaining value; argument errors, each with
 * the check that nothing was written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fastblock.h"

static unsigned long long rs = 0x2545F4914F6CDD1Dull;
static unsigned rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (unsigned)(rs >> 11);
}

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: " __VA_ARGS__); printf("\n"); failures++; } } while (0)

/* The chaining value after len bytes of one stream, from its ciphertext
 * (CBC, CFB) or by re-encrypting the IV (OFB). Only for len % 8 == 0. */
static void expected_iv(const char *fam, enum fb_mode mode, const uint8_t *key, size_t klen,
			const uint8_t *iv, const uint8_t *ct, size_t len, uint8_t *out)
{
	if (!len) {
		memcpy(out, iv, 8);
		return;
	}
	if (mode != FB_OFB) {
		memcpy(out, ct + len - 8, 8);
		return;
	}
	/* OFB register after len/8 blocks = keystream of the last block:
	 * encrypt zeros of that length and take the last block */
	char name[32];
	snprintf(name, sizeof name, "%s-ofb", fam);
	uint8_t *z = calloc(len, 1), *k = malloc(len);
	size_t ol;
	fb_options o = { FB_PAD_NONE, 0, NULL };
	fb_encrypt(fb_cipher_by_name(name), key, klen, iv, 8, z, len, k, len, &ol, &o);
	memcpy(out, k + len - 8, 8);
	free(z);
	free(k);
}

static const char *mode_name(enum fb_mode m)
{
	return m == FB_CBC ? "cbc" : m == FB_CFB ? "cfb" : "ofb";
}

/* Bytes past each output that must stay as they were: a line's worth, what
 * a gather or scatter of whole cache lines could overrun. */
#define GUARD 64

/* One multi-stream call against n single-stream calls. */
static void one_run(const char *fam, size_t klen, enum fb_mode mode, enum fb_direction dir, size_t n,
		    size_t maxlen, const char *impl, int in_place)
{
	uint8_t **keys = malloc(n * sizeof *keys), **ivs = malloc(n * sizeof *ivs);
	uint8_t **in = malloc(n * sizeof *in), **out = malloc(n * sizeof *out);
	uint8_t **ref = malloc(n * sizeof *ref), **iv0 = malloc(n * sizeof *iv0);
	size_t *len = malloc(n * sizeof *len);
	char name[32];
	snprintf(name, sizeof name, "%s-%s", fam, mode_name(mode));
	const fb_cipher *c = fb_cipher_by_name(name);
	fb_options o = { FB_PAD_NONE, 0, NULL };
	for (size_t i = 0; i < n; i++) {
		len[i] = maxlen ? rnd() % (maxlen + 1) : 0;
		if (mode == FB_CBC)
			len[i] &= ~(size_t)7;
		if (i == 0)
			len[i] = maxlen & (mode == FB_CBC ? ~(size_t)7 : ~(size_t)0);
		keys[i] = malloc(klen);
		ivs[i] = malloc(8);
		iv0[i] = malloc(8);
		in[i] = malloc(len[i] + GUARD);
		ref[i] = malloc(len[i] + 1);
		out[i] = in_place ? in[i] : malloc(len[i] + GUARD);
		memset(out[i] + len[i], 0xA5, GUARD);
		for (size_t b = 0; b < klen; b++)
			keys[i][b] = (uint8_t)rnd();
		for (int b = 0; b < 8; b++)
			ivs[i][b] = iv0[i][b] = (uint8_t)rnd();
		for (size_t b = 0; b < len[i]; b++)
			in[i][b] = (uint8_t)rnd();
		size_t ol = 0;
		int e = (dir == FB_ENCRYPT ? fb_encrypt : fb_decrypt)(c, keys[i], klen, ivs[i], 8, in[i], len[i],
								      ref[i], len[i] + 1, &ol, &o);
		CHECK(e == FB_OK && ol == len[i], "%s single stream %zu: %s", name, i, fb_strerror(e));
	}
	fb_options mo = { FB_PAD_NONE, 0, impl };
	uint8_t **ct = dir == FB_ENCRYPT ? ref : in; /* the ciphertext, for the IV check */
	uint8_t **ctcopy = malloc(n * sizeof *ctcopy);
	for (size_t i = 0; i < n; i++) {
		ctcopy[i] = malloc(len[i] + 1);
		memcpy(ctcopy[i], ct[i], len[i]);
	}
	int e = fb_multi_crypt(c, mode, dir, n, (const uint8_t *const *)keys, ivs, (const uint8_t *const *)in,
			       out, len, &mo);
	CHECK(e == FB_OK, "%s n=%zu impl=%s: %s", name, n, impl ? impl : "auto", fb_strerror(e));
	for (size_t i = 0; i < n && e == FB_OK; i++) {
		CHECK(!memcmp(out[i], ref[i], len[i]), "%s %s n=%zu impl=%s%s: stream %zu (%zu bytes) differs",
		      name, dir == FB_ENCRYPT ? "enc" : "dec", n, impl ? impl : "auto", in_place ? " in place" : "",
		      i, len[i]);
		size_t past = 0;
		while (past < GUARD && out[i][len[i] + past] == 0xA5)
			past++;
		CHECK(past == GUARD, "%s n=%zu impl=%s: stream %zu written past its end (byte %zu)", name, n,
		      impl ? impl : "auto", i, past);
		if (len[i] % 8 == 0) {
			uint8_t want[8];
			expected_iv(fam, mode, keys[i], klen, iv0[i], ctcopy[i], len[i], want);
			CHECK(!memcmp(ivs[i], want, 8), "%s n=%zu impl=%s: stream %zu IV", name, n,
			      impl ? impl : "auto", i);
		}
	}
	for (size_t i = 0; i < n; i++) {
		free(keys[i]);
		free(ivs[i]);
		free(iv0[i]);
		free(in[i]);
		free(ref[i]);
		free(ctcopy[i]);
		if (!in_place)
			free(out[i]);
	}
	free(keys), free(ivs), free(iv0), free(in), free(out), free(ref), free(len), free(ctcopy);
}

static void errors(void)
{
	uint8_t key[3][24] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }, iv[3][8] = { { 0 } };
	uint8_t buf[3][64], data[3][64];
	const uint8_t *kp[3] = { key[0], key[1], key[2] }, *ip[3] = { data[0], data[1], data[2] };
	uint8_t *ivp[3] = { iv[0], iv[1], iv[2] }, *op[3] = { buf[0], buf[1], buf[2] };
	size_t len[3] = { 64, 64, 64 };
	const fb_cipher *c = fb_cipher_by_name("des-ede3-cbc");
	memset(data, 0x5A, sizeof data);
#define UNTOUCHED() (memset(buf, 0xEE, sizeof buf), memset(iv, 0x11, sizeof iv))
#define STILL() ({ int ok_ = 1; for (size_t q_ = 0; q_ < sizeof buf; q_++) ok_ &= ((uint8_t *)buf)[q_] == 0xEE; \
		for (size_t q_ = 0; q_ < sizeof iv; q_++) ok_ &= ((uint8_t *)iv)[q_] == 0x11; ok_; })
	struct { const char *what; int want; int rc; } cases[16];
	int nc = 0;
#define TRY(what_, want_, call_) do { UNTOUCHED(); int rc_ = (call_); \
		CHECK(rc_ == (want_), "%s: got %d (%s), want %d", what_, rc_, fb_strerror(rc_), want_); \
		CHECK(STILL(), "%s: output or IV written on error", what_); (void)cases; (void)nc; } while (0)
	TRY("aes cipher", FB_ERR_UNKNOWN_CIPHER,
	    fb_multi_crypt(fb_cipher_by_name("aes-128-cbc"), FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, len, NULL));
	TRY("NULL cipher", FB_ERR_ARGUMENT, fb_multi_crypt(NULL, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, len, NULL));
	TRY("ECB mode", FB_ERR_ARGUMENT, fb_multi_crypt(c, FB_ECB, FB_ENCRYPT, 3, kp, ivp, ip, op, len, NULL));
	TRY("CTR mode", FB_ERR_ARGUMENT, fb_multi_crypt(c, FB_CTR, FB_ENCRYPT, 3, kp, ivp, ip, op, len, NULL));
	TRY("NULL keys", FB_ERR_ARGUMENT, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, NULL, ivp, ip, op, len, NULL));
	{
		const uint8_t *kq[3] = { key[0], NULL, key[2] };
		TRY("one NULL key", FB_ERR_ARGUMENT, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kq, ivp, ip, op, len, NULL));
	}
	{
		uint8_t *iq[3] = { iv[0], iv[1], NULL };
		TRY("one NULL iv", FB_ERR_ARGUMENT, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, iq, ip, op, len, NULL));
	}
	{
		size_t l2[3] = { 64, 60, 64 };
		TRY("CBC length", FB_ERR_DATA_LENGTH, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, l2, NULL));
	}
	{
		uint8_t *oq[3] = { buf[0], buf[0] + 8, buf[2] };
		TRY("outputs overlap", FB_ERR_OVERLAP, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, oq, len, NULL));
	}
	{
		const uint8_t *iq2[3] = { buf[1], data[1], data[2] };
		TRY("input of one stream is another's output", FB_ERR_OVERLAP,
		    fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, iq2, op, len, NULL));
	}
	{
		uint8_t *iq[3] = { iv[0], buf[1] + 8, iv[2] };
		TRY("IV inside an output", FB_ERR_OVERLAP, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, iq, ip, op, len, NULL));
	}
	{
		uint8_t *iq[3] = { iv[0], iv[0], iv[2] };
		TRY("shared IV", FB_ERR_OVERLAP, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, iq, ip, op, len, NULL));
	}
	{
		fb_options o = { FB_PAD_PKCS7, 0, NULL };
		TRY("padding", FB_ERR_PADDING_MODE, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, len, &o));
	}
	{
		fb_options o = { FB_PAD_NONE, 0, "des/no-such" };
		TRY("unknown impl", FB_ERR_IMPL_UNAVAILABLE, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, len, &o));
	}
	{
		fb_options o = { FB_PAD_NONE, FB_FLAG_CONSTANT_TIME, "des/table" };
		TRY("constant time refuses des/table", FB_ERR_NOT_CONSTANT_TIME,
		    fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kp, ivp, ip, op, len, &o));
	}
	{
		uint8_t weak[3][24];
		memcpy(weak, key, sizeof weak);
		memcpy(weak[1] + 8, weak[1], 8); /* K2 = K1 */
		const uint8_t *kw[3] = { weak[0], weak[1], weak[2] };
		fb_options o = { FB_PAD_NONE, FB_FLAG_STRICT_KEYS, NULL };
		TRY("strict keys", FB_ERR_WEAK_KEY, fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 3, kw, ivp, ip, op, len, &o));
	}
	UNTOUCHED();
	CHECK(fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 0, NULL, NULL, NULL, NULL, NULL, NULL) == FB_OK, "n = 0");
}

int main(void)
{
	static const char *const fams[3] = { "des", "des-ede", "des-ede3" };
	static const size_t klens[3] = { 8, 16, 24 };
	static const enum fb_mode modes[3] = { FB_CBC, FB_CFB, FB_OFB };
	static const char *const forced[5] = { "des/bs-avx512", "des/gfni-avx512", "des/bs-avx2", "des/table-bmi2",
					       "des/table" };
	const char *impls[6] = { NULL };
	int nimpl = 1, lacking[5] = { 1, 1, 1, 1, 1 };
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		for (int k = 0; k < 5; k++)
			if (!strcmp(info.name, forced[k]) && info.supported) {
				impls[nimpl++] = forced[k];
				lacking[k] = 0;
			}
	const int quick = getenv("FB_QUICK") && *getenv("FB_QUICK") == '1';
	errors();
	for (int f = 0; f < 3; f++)
		for (int m = 0; m < 3; m++)
			for (int d = 0; d < 2; d++) {
				enum fb_direction dir = d ? FB_DECRYPT : FB_ENCRYPT;
				for (size_t n = 1; n <= 40; n += quick ? 13 : 1)
					one_run(fams[f], klens[f], modes[m], dir, n, 8 * (n % 7) + n % 5 * 3 + 40,
						NULL, (int)(n % 3 == 0));
				for (int k = 1; k < nimpl; k++) {
					one_run(fams[f], klens[f], modes[m], dir, 30, 200, impls[k], 0);
					one_run(fams[f], klens[f], modes[m], dir, 5, 100, impls[k], 1);
					one_run(fams[f], klens[f], modes[m], dir, 257, 24, impls[k], d);
				}
				one_run(fams[f], klens[f], modes[m], dir, quick ? 130 : 700, 80, NULL, 0);
				/* streams longer than a wide batch: CBC and CFB
				 * decryption run each one alone (fb_select_lanes, whole) */
				one_run(fams[f], klens[f], modes[m], dir, 12, 9000, NULL, (int)(m == 1));
				/* long streams: the 512-lane engine starts lane groups
				 * some cache lines apart (des_bs_lanes.c, BS_SKEW_MAX) */
				one_run(fams[f], klens[f], modes[m], dir, quick ? 100 : 520, quick ? 1100 : 3300, NULL,
					d);
			}
	printf("%s: %d failures (engines:", failures ? "FAIL" : "ok", failures);
	for (int k = 0; k < nimpl; k++)
		printf(" %s", impls[k] ? impls[k] : "auto");
	printf(")\n");
	printf("test_multi: skipped:");
	if (nimpl == 6)
		printf(" none");
	for (int k = 0; k < 5; k++)
		if (lacking[k])
			printf(" %s (not on this CPU)", forced[k]);
	printf("\n");
	return failures != 0;
}
