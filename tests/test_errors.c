/*
 * test_errors.c - one test per error path of the public API. Each checks
 * the returned code, that fb_strerror() has a non-empty text for it, and
 * that nothing was written to the output (the output buffer is filled with
 * a canary pattern, a guard zone beyond out_cap included, and must come
 * back untouched). Also the DES key helpers: parity check and set, the 16
 * weak and semi-weak keys (checked by their defining property too), and
 * the strict-key option.
 *
 * Usage: test_errors            (re-runs itself as `test_errors masked`
 *                                with FASTBLOCK_CPU_MASK=0 to test
 *                                implementations the CPU "lacks", and as
 *                                `test_errors envimpl` with
 *                                FASTBLOCK_IMPL=des/table64)
 */
#include "test_util.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastblock.h"
#include "api_private.h" /* fb_update_checked, fb_xts_unit_checked */

#define OUT_SIZE 256
#define GUARD 64

typedef struct env {
	tu_stats st;
	const char *test; /* the test running, for messages */
	uint8_t out[OUT_SIZE + GUARD];
	size_t out_len;
} env;

static const uint8_t key24[24] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
				   0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01,
				   0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23 };
static const uint8_t key64[64] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 1, 2, 3,
				   4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
				   20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
				   35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
				   50, 51, 52, 53, 54, 55, 56 };
static const uint8_t iv16[16] = { 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
				  0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f };
static const uint8_t data[256] = { 0x4e, 0x6f, 0x77, 0x20, 0x69, 0x73, 0x20, 0x74, 0x68, 0x65,
				   0x20, 0x74, 0x69, 0x6d, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x20,
				   0x61, 0x6c, 0x6c, 0x20 };

/* The 4 weak and 12 semi-weak DES keys (FIPS 74, with odd parity). */
static const uint8_t weak_keys[16][8] = {
	{ 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01 },
	{ 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe },
	{ 0xe0, 0xe0, 0xe0, 0xe0, 0xf1, 0xf1, 0xf1, 0xf1 },
	{ 0x1f, 0x1f, 0x1f, 0x1f, 0x0e, 0x0e, 0x0e, 0x0e },
	/* semi-weak, in pairs (K, K') with E_K(E_K'(x)) = x */
	{ 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe },
	{ 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01, 0xfe, 0x01 },
	{ 0x1f, 0xe0, 0x1f, 0xe0, 0x0e, 0xf1, 0x0e, 0xf1 },
	{ 0xe0, 0x1f, 0xe0, 0x1f, 0xf1, 0x0e, 0xf1, 0x0e },
	{ 0x01, 0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1 },
	{ 0xe0, 0x01, 0xe0, 0x01, 0xf1, 0x01, 0xf1, 0x01 },
	{ 0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e, 0xfe },
	{ 0xfe, 0x1f, 0xfe, 0x1f, 0xfe, 0x0e, 0xfe, 0x0e },
	{ 0x01, 0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e },
	{ 0x1f, 0x01, 0x1f, 0x01, 0x0e, 0x01, 0x0e, 0x01 },
	{ 0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1, 0xfe },
	{ 0xfe, 0xe0, 0xfe, 0xe0, 0xfe, 0xf1, 0xfe, 0xf1 },
};

/* ---- helpers ------------------------------------------------------------- */

/* A cipher every build has (DES and Triple-DES). */
static const fb_cipher *cipher(env *e, const char *name)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	tu_check(&e->st, c != NULL, "[%s] cipher %s not found", e->test, name);
	return c;
}

/* The first of the names this build has (the foundation build has only
 * DES), or NULL after noting the skip. */
static const fb_cipher *pick(env *e, const char *first, const char *second)
{
	const fb_cipher *c = fb_cipher_by_name(first);
	if (!c && second)
		c = fb_cipher_by_name(second);
	if (!c) {
		printf("  [%s] skip: no %s%s%s in this build\n", e->test, first,
		       second ? " nor " : "", second ? second : "");
		tu_skip(&e->st, "cipher not in this build");
	}
	return c;
}

/* Any XTS cipher (XTS needs a 128-bit block). */
static const fb_cipher *any_xts(env *e)
{
	static const char *const names[] = { "aes-256-xts", "serpent-256-xts", "twofish-256-xts",
					     "rc6-256-xts", "mars-256-xts" };
	size_t i;
	for (i = 0; i < sizeof names / sizeof *names; i++)
		if (fb_cipher_by_name(names[i]))
			return fb_cipher_by_name(names[i]);
	printf("  [%s] skip: no XTS cipher in this build\n", e->test);
	tu_skip(&e->st, "cipher not in this build");
	return NULL;
}

static void arm(env *e)
{
	tu_canary(e->out, sizeof e->out);
	e->out_len = 12345;
}

/* The code is the expected one, has a text, and the output is untouched. */
static void expect(env *e, int rc, int want, const char *what)
{
	const char *s = fb_strerror(rc);
	tu_check(&e->st, rc == want, "[%s] %s: returned %d (%s), expected %d (%s)", e->test,
		 what, rc, fb_strerror(rc), want, fb_strerror(want));
	tu_check(&e->st, s && *s, "[%s] %s: fb_strerror(%d) is empty", e->test, what, rc);
	tu_check(&e->st, tu_canary_intact(e->out, sizeof e->out),
		 "[%s] %s: output written despite the error", e->test, what);
}

/* As expect(), for calls where the API leaves a choice between codes. */
static void expect2(env *e, int rc, int want1, int want2, const char *what)
{
	expect(e, rc, rc == want2 ? want2 : want1, what);
}

static void expect_ok(env *e, int rc, const char *what)
{
	tu_check(&e->st, rc == FB_OK, "[%s] %s: returned %d (%s), expected FB_OK", e->test, what,
		 rc, fb_strerror(rc));
}

static int enc(env *e, const fb_cipher *c, const uint8_t *key, size_t klen, const uint8_t *iv,
	       size_t ivlen, size_t len, const fb_options *opt)
{
	arm(e);
	return fb_encrypt(c, key, klen, iv, ivlen, data, len, e->out, OUT_SIZE, &e->out_len, opt);
}

static int dec(env *e, const fb_cipher *c, const uint8_t *key, size_t klen, const uint8_t *iv,
	       size_t ivlen, const uint8_t *in, size_t len, const fb_options *opt)
{
	arm(e);
	return fb_decrypt(c, key, klen, iv, ivlen, in, len, e->out, OUT_SIZE, &e->out_len, opt);
}

/* fb_init for both directions must give the same code. */
static void expect_init(env *e, const fb_cipher *c, const uint8_t *key, size_t klen,
			const uint8_t *iv, size_t ivlen, const fb_options *opt, int want,
			const char *what)
{
	fb_ctx *ctx = fb_ctx_new();
	char w[160];
	int d;
	for (d = 0; d < 2; d++) {
		snprintf(w, sizeof w, "fb_init(%s) %s", d ? "enc" : "dec", what);
		arm(e);
		expect(e, fb_init(ctx, c, (enum fb_direction)d, key, klen, iv, ivlen, opt), want, w);
	}
	fb_ctx_free(ctx);
}

/* ---- the tests ------------------------------------------------------------- */

static void t_unknown_cipher(env *e)
{
	static const char *const bad[] = { "nope", "des-xts", "des-ede3-xts", "aes-128-gcm",
					   "aes-129-cbc", "aes-128", "des-cbc ", "", "aes-128-cbc-",
					   "des-ede2-cbc" };
	size_t i;
	for (i = 0; i < sizeof bad / sizeof *bad; i++)
		tu_check(&e->st, fb_cipher_by_name(bad[i]) == NULL,
			 "[%s] fb_cipher_by_name(\"%s\") is not NULL", e->test, bad[i]);
	tu_check(&e->st, fb_cipher_by_name(NULL) == NULL, "[%s] fb_cipher_by_name(NULL)",
		 e->test);
	tu_check(&e->st, fb_cipher_by_name("DES-EDE3-CBC") == fb_cipher_by_name("des-ede3-cbc"),
		 "[%s] names are not case-insensitive", e->test);
	/* Every listed name finds itself, in any case, and no near miss
	 * (one letter changed, one cut off) finds anything. */
	const fb_cipher *c;
	for (i = 0; (c = fb_cipher_at(i)) != NULL; i++) {
		char up[32], miss[32];
		const char *name = fb_cipher_name(c);
		size_t n = strlen(name), j;
		for (j = 0; j <= n && j < sizeof up; j++)
			up[j] = (char)(name[j] >= 'a' && name[j] <= 'z' ? name[j] - 32 : name[j]);
		tu_check(&e->st, fb_cipher_by_name(name) == c && fb_cipher_by_name(up) == c,
			 "[%s] \"%s\" does not find itself", e->test, name);
		for (j = 0; j < n && n < sizeof miss; j++) {
			memcpy(miss, name, n + 1);
			miss[j] = miss[j] == 'q' ? 'w' : 'q';
			tu_check(&e->st, fb_cipher_by_name(miss) == NULL,
				 "[%s] \"%s\" is found", e->test, miss);
		}
		memcpy(miss, name, n + 1);
		miss[n - 1] = 0;
		tu_check(&e->st, fb_cipher_by_name(miss) != c, "[%s] \"%s\" finds %s", e->test,
			 miss, name);
	}
	expect2(e, enc(e, NULL, key24, 8, iv16, 8, 8, NULL), FB_ERR_UNKNOWN_CIPHER,
		FB_ERR_ARGUMENT, "fb_encrypt(NULL cipher)");
	expect2(e, dec(e, NULL, key24, 8, iv16, 8, data, 8, NULL), FB_ERR_UNKNOWN_CIPHER,
		FB_ERR_ARGUMENT, "fb_decrypt(NULL cipher)");
	expect_init(e, NULL, key24, 8, iv16, 8, NULL, FB_ERR_UNKNOWN_CIPHER, "NULL cipher");
}

static void t_key_length(env *e)
{
	static const struct { const char *name; size_t klen; } bad[] = {
		{ "des-ecb", 7 }, { "des-cbc", 9 }, { "des-cbc", 16 }, { "des-ede-cbc", 8 },
		{ "des-ede-cbc", 24 }, { "des-ede3-cbc", 16 }, { "des-ede3", 23 },
		{ "aes-128-cbc", 24 }, { "aes-256-ctr", 16 }, { "aes-128-ecb", 0 },
		{ "aes-128-xts", 16 }, { "aes-256-xts", 32 }, { "aes-128-xts", 33 },
		{ "twofish-128-cbc", 17 }, { "serpent-256-ofb", 16 }, { "rc6-128-cbc", 24 },
		{ "mars-192-ecb", 16 }, { "mars-cbc", 18 }, { "mars-cbc", 60 }, { "rc6-cbc", 256 },
	};
	size_t i;
	char w[100];
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		const fb_cipher *c = fb_cipher_by_name(bad[i].name);
		size_t ivlen;
		if (!c) { /* a family this build lacks */
			tu_skip(&e->st, "cipher not in this build");
			continue;
		}
		ivlen = fb_cipher_iv_len(c);
		snprintf(w, sizeof w, "%s with a %zu-byte key: encrypt", bad[i].name, bad[i].klen);
		expect(e, enc(e, c, key64, bad[i].klen, iv16, ivlen, 16, NULL), FB_ERR_KEY_LENGTH,
		       w);
		snprintf(w, sizeof w, "%s with a %zu-byte key: decrypt", bad[i].name, bad[i].klen);
		expect(e, dec(e, c, key64, bad[i].klen, iv16, ivlen, data, 16, NULL),
		       FB_ERR_KEY_LENGTH, w);
		snprintf(w, sizeof w, "%s with a %zu-byte key", bad[i].name, bad[i].klen);
		expect_init(e, c, key64, bad[i].klen, iv16, ivlen, NULL, FB_ERR_KEY_LENGTH, w);
	}
}

static void t_iv_length(env *e)
{
	const fb_cipher *cbc = cipher(e, "des-cbc"), *cfb8 = cipher(e, "des-ede3-cfb8");
	const fb_cipher *ctr = pick(e, "aes-128-ctr", "des-ede3-ctr"), *xts = any_xts(e);
	size_t cl, bs;
	if (!cbc || !cfb8 || !ctr)
		return;
	expect(e, enc(e, cbc, key24, 8, iv16, 16, 8, NULL), FB_ERR_IV_LENGTH, "des-cbc 16-byte IV");
	expect(e, enc(e, cbc, key24, 8, iv16, 7, 8, NULL), FB_ERR_IV_LENGTH, "des-cbc 7-byte IV");
	expect(e, enc(e, cbc, key24, 8, iv16, 0, 8, NULL), FB_ERR_IV_LENGTH, "des-cbc 0-byte IV");
	expect(e, enc(e, cbc, key24, 8, NULL, 0, 8, NULL), FB_ERR_IV_LENGTH, "des-cbc no IV");
	expect2(e, enc(e, cbc, key24, 8, NULL, 8, 8, NULL), FB_ERR_IV_LENGTH, FB_ERR_ARGUMENT,
		"des-cbc NULL IV of length 8");
	expect(e, dec(e, cbc, key24, 8, NULL, 0, data, 8, NULL), FB_ERR_IV_LENGTH,
	       "des-cbc decrypt, no IV");
	expect(e, enc(e, cfb8, key24, 24, iv16, 1, 8, NULL), FB_ERR_IV_LENGTH,
	       "des-ede3-cfb8 1-byte IV");
	expect_init(e, cbc, key24, 8, NULL, 0, NULL, FB_ERR_IV_LENGTH, "des-cbc no IV");
	cl = fb_cipher_key_len(ctr);
	bs = fb_cipher_block_size(ctr);
	expect(e, enc(e, ctr, key64, cl, iv16, bs / 2, 16, NULL), FB_ERR_IV_LENGTH,
	       "CTR half-block IV");
	expect_init(e, ctr, key64, cl, iv16, bs - 1, NULL, FB_ERR_IV_LENGTH, "CTR IV one short");
	if (xts) {
		cl = fb_cipher_key_len(xts);
		expect(e, enc(e, xts, key64, cl, iv16, 8, 16, NULL), FB_ERR_IV_LENGTH,
		       "XTS 8-byte tweak");
		expect(e, enc(e, xts, key64, cl, NULL, 0, 16, NULL), FB_ERR_IV_LENGTH,
		       "XTS no tweak");
	}
}

static void t_data_length(env *e)
{
	fb_options none = { FB_PAD_NONE, 0, NULL }, pkcs = { FB_PAD_PKCS7, 0, NULL };
	const fb_cipher *ecb = cipher(e, "des-ecb"), *e3 = cipher(e, "des-ede3-cbc");
	const fb_cipher *cbc = pick(e, "aes-128-cbc", NULL), *xts = any_xts(e);
	static const size_t des_bad[] = { 1, 7, 9, 15, 17 }, aes_bad[] = { 1, 8, 15, 17, 31, 33 };
	static const size_t xts_bad[] = { 1, 8, 15 };
	char w[100];
	size_t i, kl;
	fb_ctx *ctx = fb_ctx_new();
	if (!ecb || !e3 || !ctx)
		return;
	for (i = 0; i < 5; i++) {
		snprintf(w, sizeof w, "des-ecb no padding, %zu bytes", des_bad[i]);
		expect(e, enc(e, ecb, key24, 8, NULL, 0, des_bad[i], &none), FB_ERR_DATA_LENGTH, w);
		snprintf(w, sizeof w, "des-ecb no padding, decrypt %zu bytes", des_bad[i]);
		expect(e, dec(e, ecb, key24, 8, NULL, 0, data, des_bad[i], &none),
		       FB_ERR_DATA_LENGTH, w);
		snprintf(w, sizeof w, "des-ede3-cbc no padding, %zu bytes", des_bad[i]);
		expect(e, enc(e, e3, key24, 24, iv16, 8, des_bad[i], &none), FB_ERR_DATA_LENGTH,
		       w);
		snprintf(w, sizeof w, "des-ede3-cbc PKCS#7, decrypt %zu bytes", des_bad[i]);
		expect(e, dec(e, e3, key24, 24, iv16, 8, data, des_bad[i], &pkcs),
		       FB_ERR_DATA_LENGTH, w);
	}
	/* A padded ciphertext is at least one block. */
	expect2(e, dec(e, e3, key24, 24, iv16, 8, data, 0, NULL), FB_ERR_DATA_LENGTH,
		FB_ERR_BAD_PADDING, "des-ede3-cbc PKCS#7, decrypt 0 bytes");
	for (i = 0; cbc && i < 6; i++) {
		snprintf(w, sizeof w, "aes-128-cbc no padding, %zu bytes", aes_bad[i]);
		expect(e, enc(e, cbc, key64, 16, iv16, 16, aes_bad[i], &none), FB_ERR_DATA_LENGTH,
		       w);
		snprintf(w, sizeof w, "aes-128-cbc default padding, decrypt %zu bytes", aes_bad[i]);
		expect(e, dec(e, cbc, key64, 16, iv16, 16, data, aes_bad[i], NULL),
		       FB_ERR_DATA_LENGTH, w);
	}
	for (i = 0; xts && i < 3; i++) {
		kl = fb_cipher_key_len(xts);
		snprintf(w, sizeof w, "%s, %zu bytes", fb_cipher_name(xts), xts_bad[i]);
		expect(e, enc(e, xts, key64, kl, iv16, 16, xts_bad[i], NULL), FB_ERR_DATA_LENGTH,
		       w);
		snprintf(w, sizeof w, "%s, decrypt %zu bytes", fb_cipher_name(xts), xts_bad[i]);
		expect(e, dec(e, xts, key64, kl, iv16, 16, data, xts_bad[i], NULL),
		       FB_ERR_DATA_LENGTH, w);
	}
	/* Streaming: the error surfaces in fb_final, which writes nothing. */
	expect_ok(e, fb_init(ctx, ecb, FB_ENCRYPT, key24, 8, NULL, 0, &none), "init des-ecb");
	arm(e);
	expect_ok(e, fb_update(ctx, e->out, OUT_SIZE, &e->out_len, data, 13), "update 13 bytes");
	tu_check(&e->st, e->out_len == 8, "[%s] update of 13 bytes gave %zu bytes", e->test,
		 e->out_len);
	arm(e);
	expect(e, fb_final(ctx, e->out, OUT_SIZE, &e->out_len), FB_ERR_DATA_LENGTH,
	       "des-ecb stream of 13 bytes, no padding: final");
	if (xts) {
		kl = fb_cipher_key_len(xts);
		expect_ok(e, fb_init(ctx, xts, FB_ENCRYPT, key64, kl, iv16, 16, NULL), "init xts");
		arm(e);
		expect_ok(e, fb_update(ctx, e->out, OUT_SIZE, &e->out_len, data, 15),
			  "xts update 15");
		tu_check(&e->st, e->out_len == 0, "[%s] xts update of 15 bytes gave %zu bytes",
			 e->test, e->out_len);
		arm(e);
		expect(e, fb_final(ctx, e->out, OUT_SIZE, &e->out_len), FB_ERR_DATA_LENGTH,
		       "XTS stream of 15 bytes: final");
	}
	fb_ctx_free(ctx);
}

/* Encrypts pt (a multiple of the block) without padding, so that
 * decrypting it with a padding scheme sees exactly pt's last block. */
static size_t raw_encrypt(env *e, const fb_cipher *c, const uint8_t *pt, size_t len,
			  uint8_t *ct)
{
	fb_options none = { FB_PAD_NONE, 0, NULL };
	size_t n = 0;
	size_t klen = fb_cipher_key_len(c);
	expect_ok(e, fb_encrypt(c, key64, klen, iv16, fb_cipher_iv_len(c), pt, len, ct, len, &n,
				&none), "raw encrypt");
	return n;
}

/* Decrypts ct (from a plaintext whose last block is `last`) with the
 * padding: must fail with FB_ERR_BAD_PADDING writing nothing (one-shot and
 * streamed), or succeed with good_len bytes. */
static void try_padding(env *e, const fb_cipher *c, enum fb_padding pad, const uint8_t *last,
			long good_len, const char *what)
{
	fb_options opt = { pad, 0, NULL };
	size_t bs = fb_cipher_block_size(c), klen = fb_cipher_key_len(c), n, total;
	size_t ivlen = fb_cipher_iv_len(c);
	uint8_t pt[48], ct[48];
	char w[160];
	int rc;
	fb_ctx *ctx = fb_ctx_new();

	memcpy(pt, data, 2 * bs); /* two blocks: the padding is in the second */
	memcpy(pt + 2 * bs, last, bs);
	raw_encrypt(e, c, pt, 3 * bs, ct);
	snprintf(w, sizeof w, "%s %s one-shot", fb_cipher_name(c), what);
	rc = dec(e, c, key64, klen, iv16, ivlen, ct, 3 * bs, &opt);
	if (good_len < 0) {
		expect(e, rc, FB_ERR_BAD_PADDING, w);
	} else {
		expect_ok(e, rc, w);
		tu_check(&e->st, e->out_len == (size_t)good_len &&
				 memcmp(e->out, pt, e->out_len) == 0,
			 "[%s] %s: %zu bytes, expected %ld", e->test, w, e->out_len, good_len);
	}
	/* Streamed: updates may release whole blocks before the last one;
	 * fb_final must write nothing on error. */
	snprintf(w, sizeof w, "%s %s streamed: final", fb_cipher_name(c), what);
	expect_ok(e, fb_init(ctx, c, FB_DECRYPT, key64, klen, iv16, ivlen, &opt), "init");
	arm(e);
	expect_ok(e, fb_update(ctx, e->out, OUT_SIZE, &n, ct, 3 * bs), "update");
	total = n;
	tu_check(&e->st, n <= 2 * bs, "[%s] %s: update released %zu bytes, the padding block "
		 "must be held back", e->test, w, n);
	memset(e->out, TU_CANARY, total);
	rc = fb_final(ctx, e->out + total, OUT_SIZE - total, &n);
	if (good_len < 0) {
		expect(e, rc, FB_ERR_BAD_PADDING, w);
	} else {
		expect_ok(e, rc, w);
		tu_check(&e->st, total + n == (size_t)good_len, "[%s] %s: %zu bytes, expected %ld",
			 e->test, w, total + n, good_len);
	}
	fb_ctx_free(ctx);
}

static void t_bad_padding(env *e)
{
	static const char *const names[] = { "des-ecb", "des-ede3-cbc", "aes-128-cbc",
					     "aes-256-ecb" };
	size_t i, k;
	for (i = 0; i < 4; i++) {
		const fb_cipher *c = i < 2 ? cipher(e, names[i]) : pick(e, names[i], NULL);
		size_t bs;
		uint8_t b[16];
		if (!c)
			continue;
		bs = fb_cipher_block_size(c);
		/* PKCS#7 */
		memset(b, 0x41, bs);
		b[bs - 1] = 0;
		try_padding(e, c, FB_PAD_PKCS7, b, -1, "PKCS#7 last byte 0");
		b[bs - 1] = (uint8_t)(bs + 1);
		try_padding(e, c, FB_PAD_PKCS7, b, -1, "PKCS#7 last byte bs+1");
		b[bs - 1] = 0xff;
		try_padding(e, c, FB_PAD_DEFAULT, b, -1, "PKCS#7 (default) last byte 0xff");
		memset(b, 3, bs);
		b[bs - 3] = 2;
		try_padding(e, c, FB_PAD_PKCS7, b, -1, "PKCS#7 03 03 with a 02");
		memset(b, (int)bs, bs);
		b[0] = (uint8_t)(bs - 1);
		try_padding(e, c, FB_PAD_PKCS7, b, -1, "PKCS#7 full block, first byte off");
		for (k = 1; k < bs; k++) {
			memset(b, (int)bs, bs);
			b[k - 1] ^= 0x80;
			try_padding(e, c, FB_PAD_PKCS7, b, -1, "PKCS#7 full block, one byte off");
		}
		memset(b, (int)bs, bs);
		try_padding(e, c, FB_PAD_PKCS7, b, (long)(2 * bs), "PKCS#7 full block (valid)");
		memset(b, 0x41, bs);
		b[bs - 1] = 1;
		try_padding(e, c, FB_PAD_PKCS7, b, (long)(3 * bs - 1), "PKCS#7 01 (valid)");
		/* ISO/IEC 9797-1 method 2 */
		memset(b, 0, bs);
		try_padding(e, c, FB_PAD_ISO9797_M2, b, -1, "ISO M2 all zeros, no 0x80");
		memset(b, 0x41, bs);
		b[bs - 1] = 0x81;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, -1, "ISO M2 last byte 0x81");
		memset(b, 0, bs);
		b[bs - 3] = 0x80;
		b[bs - 1] = 0x01;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, -1, "ISO M2 80 00 01");
		memset(b, 0x41, bs);
		b[bs - 1] = 0;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, -1, "ISO M2 ends 41 00");
		/* Only the last 0x80 is padding: earlier ones are data. */
		memset(b, 0, bs);
		b[0] = 0x80;
		b[bs / 2] = 0x80;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, (long)(2 * bs + bs / 2),
			    "ISO M2 80 00.. 80 00.. (valid)");
		memset(b, 0x41, bs);
		b[bs - 1] = 0x80;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, (long)(3 * bs - 1), "ISO M2 80 (valid)");
		memset(b, 0, bs);
		b[0] = 0x80;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, (long)(2 * bs), "ISO M2 full block (valid)");
		memset(b, 0, bs);
		b[0] = 0x80;
		b[1] = 0x80;
		try_padding(e, c, FB_PAD_ISO9797_M2, b, (long)(2 * bs + 1),
			    "ISO M2 80 80 00.. (valid)");
	}
}

/* The key with every parity bit flipped: the same DES key. */
static void flip_parity(uint8_t *k, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		k[i] ^= 1;
}

static void t_weak_keys(env *e)
{
	fb_options strict = { FB_PAD_DEFAULT, FB_FLAG_STRICT_KEYS, NULL };
	const fb_cipher *des = cipher(e, "des-cbc"), *ede = cipher(e, "des-ede-cbc");
	const fb_cipher *ede3 = cipher(e, "des-ede3-cbc"), *ede3ecb = cipher(e, "des-ede3");
	uint8_t k[24];
	char w[120];
	size_t i;
	if (!des || !ede || !ede3 || !ede3ecb)
		return;
	for (i = 0; i < 16; i++) {
		snprintf(w, sizeof w, "strict des-cbc, weak key %zu", i);
		expect(e, enc(e, des, weak_keys[i], 8, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY, w);
		expect(e, dec(e, des, weak_keys[i], 8, iv16, 8, data, 8, &strict), FB_ERR_WEAK_KEY,
		       w);
		expect_init(e, des, weak_keys[i], 8, iv16, 8, &strict, FB_ERR_WEAK_KEY, w);
		memcpy(k, weak_keys[i], 8);
		flip_parity(k, 8);
		snprintf(w, sizeof w, "strict des-cbc, weak key %zu with even parity", i);
		expect(e, enc(e, des, k, 8, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY, w);
		snprintf(w, sizeof w, "des-cbc, weak key %zu without strict", i);
		expect_ok(e, enc(e, des, weak_keys[i], 8, iv16, 8, 8, NULL), w);
		/* A weak component of a Triple-DES key. */
		memcpy(k, key24, 24);
		memcpy(k + 8 * (i % 3), weak_keys[i], 8);
		snprintf(w, sizeof w, "strict des-ede3-cbc, weak key %zu as K%zu", i, i % 3 + 1);
		expect(e, enc(e, ede3, k, 24, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY, w);
	}
	/* Degenerate Triple-DES keys. */
	memcpy(k, key24, 24);
	memcpy(k + 8, k, 8);
	expect(e, enc(e, ede, k, 16, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY, "strict des-ede K1=K2");
	expect(e, enc(e, ede3, k, 24, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY,
	       "strict des-ede3 K1=K2");
	expect_init(e, ede3ecb, k, 24, NULL, 0, &strict, FB_ERR_WEAK_KEY, "strict des-ede3 K1=K2");
	expect_ok(e, enc(e, ede, k, 16, iv16, 8, 8, NULL), "des-ede K1=K2 without strict");
	expect_ok(e, enc(e, ede3, k, 24, iv16, 8, 8, NULL), "des-ede3 K1=K2 without strict");
	flip_parity(k + 8, 8);
	expect(e, enc(e, ede3, k, 24, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY,
	       "strict des-ede3 K1=K2 up to parity bits");
	memcpy(k, key24, 24);
	memcpy(k + 16, k + 8, 8);
	expect(e, enc(e, ede3, k, 24, iv16, 8, 8, &strict), FB_ERR_WEAK_KEY,
	       "strict des-ede3 K2=K3");
	expect_ok(e, enc(e, ede3, k, 24, iv16, 8, 8, NULL), "des-ede3 K2=K3 without strict");
	memcpy(k, key24, 24);
	memcpy(k + 16, k, 8);
	expect_ok(e, enc(e, ede3, k, 24, iv16, 8, 8, &strict),
		  "strict des-ede3 K1=K3 (two-key TDES, allowed)");
	expect_ok(e, enc(e, ede3, key24, 24, iv16, 8, 8, &strict), "strict des-ede3, good key");
	expect_ok(e, enc(e, des, key24, 8, iv16, 8, 8, &strict), "strict des, good key");
}

static void t_des_key_helpers(env *e)
{
	uint8_t k[24], x[8], y[8], z[8];
	unsigned b, i, bit;
	const fb_cipher *ecb = cipher(e, "des-ecb");
	fb_options none = { FB_PAD_NONE, 0, NULL };
	size_t n;

	for (b = 0; b < 256; b++) {
		uint8_t v = (uint8_t)b, p;
		unsigned ones = 0;
		for (i = 0; i < 8; i++)
			ones += (b >> i) & 1;
		tu_check(&e->st, fb_des_check_parity(&v, 1) == (int)(ones & 1),
			 "[%s] fb_des_check_parity(%02x)", e->test, b);
		p = v;
		fb_des_set_parity(&p, 1);
		tu_check(&e->st, fb_des_check_parity(&p, 1) == 1 && (p & 0xfe) == (v & 0xfe),
			 "[%s] fb_des_set_parity(%02x) gave %02x", e->test, b, p);
	}
	memcpy(k, key24, 24);
	fb_des_set_parity(k, 24);
	tu_check(&e->st, fb_des_check_parity(k, 24) == 1, "[%s] set then check, 24 bytes", e->test);
	for (bit = 0; bit < 24 * 8; bit += 7) {
		k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		tu_check(&e->st, fb_des_check_parity(k, 24) == 0,
			 "[%s] parity check missed flipped bit %u", e->test, bit);
		k[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	tu_check(&e->st, fb_des_check_parity(k, 0) == 1, "[%s] empty key parity", e->test);

	for (i = 0; i < 16; i++) {
		memcpy(x, weak_keys[i], 8);
		tu_check(&e->st, fb_des_is_weak_key(x) == 1, "[%s] weak key %u not detected",
			 e->test, i);
		tu_check(&e->st, fb_des_check_parity(x, 8) == 1, "[%s] table key %u parity",
			 e->test, i);
		flip_parity(x, 8);
		tu_check(&e->st, fb_des_is_weak_key(x) == 1,
			 "[%s] weak key %u with flipped parity not detected", e->test, i);
		/* Weak: E_K(E_K(x)) = x; semi-weak pairs: E_K(E_K'(x)) = x. */
		if (ecb) {
			const uint8_t *k2 = weak_keys[i < 4 ? i : (i ^ 1)];
			memcpy(y, data, 8);
			fb_encrypt(ecb, k2, 8, NULL, 0, y, 8, z, 8, &n, &none);
			fb_encrypt(ecb, weak_keys[i], 8, NULL, 0, z, 8, y, 8, &n, &none);
			tu_check(&e->st, memcmp(y, data, 8) == 0,
				 "[%s] weak key %u lacks its weak-key property", e->test, i);
		}
	}
	/* Not weak: a "possibly weak" key, a normal key, neighbours of weak ones. */
	{
		static const uint8_t pw[8] = { 0x01, 0x01, 0x1f, 0x1f, 0x01, 0x01, 0x0e, 0x0e };
		tu_check(&e->st, fb_des_is_weak_key(pw) == 0,
			 "[%s] possibly-weak key 01011f1f01010e0e taken as weak", e->test);
		tu_check(&e->st, fb_des_is_weak_key(key24) == 0, "[%s] normal key taken as weak",
			 e->test);
		for (i = 0; i < 16; i++) {
			memcpy(x, weak_keys[i], 8);
			x[i % 8] ^= 0x10;
			tu_check(&e->st, fb_des_is_weak_key(x) == 0,
				 "[%s] neighbour of weak key %u taken as weak", e->test, i);
		}
	}
}

static void t_impl(env *e)
{
	fb_options bogus = { FB_PAD_DEFAULT, 0, "des/nonexistent" };
	fb_options wrongfam = { FB_PAD_DEFAULT, 0, NULL };
	const fb_cipher *des = cipher(e, "des-cbc");
	fb_impl_info info;
	size_t i;
	if (!des)
		return;
	expect(e, enc(e, des, key24, 8, iv16, 8, 8, &bogus), FB_ERR_IMPL_UNAVAILABLE,
	       "impl des/nonexistent");
	expect_init(e, des, key24, 8, iv16, 8, &bogus, FB_ERR_IMPL_UNAVAILABLE,
		    "impl des/nonexistent");
	bogus.impl = "";
	expect(e, enc(e, des, key24, 8, iv16, 8, 8, &bogus), FB_ERR_IMPL_UNAVAILABLE, "impl \"\"");
	/* An implementation of another family. */
	for (i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		if (strcmp(info.family, "des") != 0) {
			wrongfam.impl = info.name;
			expect(e, enc(e, des, key24, 8, iv16, 8, 8, &wrongfam),
			       FB_ERR_IMPL_UNAVAILABLE, "des-cbc forced to another family's impl");
			break;
		}
	/* Implementations this CPU lacks (the masked run has many). */
	for (i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		char name[64];
		const fb_cipher *c;
		fb_options o = { FB_PAD_DEFAULT, 0, NULL };
		if (info.supported)
			continue;
		if (strcmp(info.family, "des") == 0)
			snprintf(name, sizeof name, "des-ecb");
		else
			snprintf(name, sizeof name, "%s-128-ecb", info.family);
		c = fb_cipher_by_name(name);
		if (!c)
			continue;
		o.impl = info.name;
		expect(e, enc(e, c, key64, fb_cipher_key_len(c), NULL, 0, 16, &o),
		       FB_ERR_IMPL_UNAVAILABLE, info.name);
	}
	tu_check(&e->st, fb_impl_at((size_t)-1, &info) == FB_ERR_ARGUMENT,
		 "[%s] fb_impl_at(SIZE_MAX)", e->test);
	tu_check(&e->st, fb_impl_at(0, NULL) == FB_ERR_ARGUMENT, "[%s] fb_impl_at(0, NULL)",
		 e->test);
}

static void t_overlap(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc"), *ctr = cipher(e, "des-ede3-ctr");
	fb_options none = { FB_PAD_NONE, 0, NULL }; /* so no padding error comes first */
	uint8_t buf[128 + GUARD], copy[128 + GUARD];
	size_t n;
	int rc, d;
	fb_ctx *ctx = fb_ctx_new();
	if (!c || !ctr)
		return;
	for (d = -16; d <= 16; d++) {
		const uint8_t *in = buf + 32;
		uint8_t *out = buf + 32 + d;
		char w[80];
		if (d == 0)
			continue;
		memcpy(buf, data, sizeof buf < sizeof data ? sizeof buf : sizeof data);
		memset(buf + 32 + 48, 0x5a, sizeof buf - 80);
		memcpy(copy, buf, sizeof buf);
		snprintf(w, sizeof w, "des-ede3-cbc out = in %+d", d);
		rc = fb_encrypt(c, key24, 24, iv16, 8, in, 48, out, 64, &n, NULL);
		tu_check(&e->st, rc == FB_ERR_OVERLAP && memcmp(buf, copy, sizeof buf) == 0,
			 "[%s] %s: returned %d, buffer %s", e->test, w, rc,
			 memcmp(buf, copy, sizeof buf) ? "changed" : "intact");
		rc = fb_decrypt(c, key24, 24, iv16, 8, in, 48, out, 64, &n, &none);
		tu_check(&e->st, rc == FB_ERR_OVERLAP && memcmp(buf, copy, sizeof buf) == 0,
			 "[%s] %s decrypt: returned %d", e->test, w, rc);
		snprintf(w, sizeof w, "des-ede3-ctr stream update out = in %+d", d);
		expect_ok(e, fb_init(ctx, ctr, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "init");
		rc = fb_update(ctx, out, 64, &n, in, 40);
		tu_check(&e->st, rc == FB_ERR_OVERLAP && memcmp(buf, copy, sizeof buf) == 0,
			 "[%s] %s: returned %d", e->test, w, rc);
	}
	tu_check(&e->st, *fb_strerror(FB_ERR_OVERLAP) != 0, "[%s] empty overlap text", e->test);
	fb_ctx_free(ctx);
}

static void t_null_arguments(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc"), *ctr = cipher(e, "des-ede3-ctr");
	fb_ctx *ctx = fb_ctx_new();
	size_t n;
	if (!c || !ctr || !ctx)
		return;
	expect2(e, enc(e, c, NULL, 24, iv16, 8, 8, NULL), FB_ERR_ARGUMENT, FB_ERR_KEY_LENGTH,
		"NULL key");
	arm(e);
	expect(e, fb_encrypt(c, key24, 24, iv16, 8, NULL, 8, e->out, OUT_SIZE, &e->out_len, NULL),
	       FB_ERR_ARGUMENT, "NULL input");
	arm(e);
	expect(e, fb_encrypt(c, key24, 24, iv16, 8, data, 8, NULL, OUT_SIZE, &e->out_len, NULL),
	       FB_ERR_ARGUMENT, "NULL output");
	arm(e);
	expect(e, fb_encrypt(c, key24, 24, iv16, 8, data, 8, e->out, OUT_SIZE, NULL, NULL),
	       FB_ERR_ARGUMENT, "NULL out_len");
	arm(e);
	expect(e, fb_decrypt(c, key24, 24, iv16, 8, NULL, 8, e->out, OUT_SIZE, &e->out_len, NULL),
	       FB_ERR_ARGUMENT, "decrypt NULL input");
	arm(e);
	expect(e, fb_init(NULL, c, FB_ENCRYPT, key24, 24, iv16, 8, NULL), FB_ERR_ARGUMENT,
	       "fb_init(NULL ctx)");
	arm(e);
	expect(e, fb_init(ctx, c, (enum fb_direction)7, key24, 24, iv16, 8, NULL), FB_ERR_ARGUMENT,
	       "fb_init direction 7");
	expect_ok(e, fb_init(ctx, ctr, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "init");
	arm(e);
	expect(e, fb_update(NULL, e->out, OUT_SIZE, &e->out_len, data, 8), FB_ERR_ARGUMENT,
	       "fb_update(NULL ctx)");
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, NULL, data, 8), FB_ERR_ARGUMENT,
	       "fb_update NULL out_len");
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, &n, NULL, 8), FB_ERR_ARGUMENT,
	       "fb_update NULL input");
	arm(e);
	expect(e, fb_update(ctx, NULL, OUT_SIZE, &n, data, 8), FB_ERR_ARGUMENT,
	       "fb_update NULL output");
	arm(e);
	expect(e, fb_final(NULL, e->out, OUT_SIZE, &n), FB_ERR_ARGUMENT, "fb_final(NULL ctx)");
	fb_ctx_free(ctx);
	fb_ctx_free(NULL); /* allowed */
}

static void t_options(env *e)
{
	const fb_cipher *ctr = cipher(e, "des-ede3-ctr"), *cbc = cipher(e, "des-cbc");
	const fb_cipher *cfb = cipher(e, "des-ede3-cfb"), *ofb = cipher(e, "des-ofb");
	const fb_cipher *cfb8 = cipher(e, "des-ede-cfb8"), *xts = any_xts(e);
	fb_options o = { FB_PAD_PKCS7, 0, NULL };
	if (!ctr || !cbc || !cfb || !ofb || !cfb8)
		return;
	expect(e, enc(e, ctr, key24, 24, iv16, 8, 16, &o), FB_ERR_PADDING_MODE,
	       "PKCS#7 asked for CTR");
	expect(e, enc(e, ofb, key24, 8, iv16, 8, 16, &o), FB_ERR_PADDING_MODE,
	       "PKCS#7 asked for OFB");
	expect(e, dec(e, cfb8, key24, 16, iv16, 8, data, 16, &o), FB_ERR_PADDING_MODE,
	       "PKCS#7 asked for CFB8 decryption");
	o.padding = FB_PAD_ISO9797_M2;
	expect(e, enc(e, cfb, key24, 24, iv16, 8, 16, &o), FB_ERR_PADDING_MODE,
	       "ISO M2 asked for CFB");
	expect_init(e, ctr, key24, 24, iv16, 8, &o, FB_ERR_PADDING_MODE, "ISO M2 for CTR");
	if (xts)
		expect(e, enc(e, xts, key64, fb_cipher_key_len(xts), iv16, 16, 16, &o),
		       FB_ERR_PADDING_MODE, "ISO M2 asked for XTS");
	o.padding = FB_PAD_NONE;
	expect_ok(e, enc(e, ctr, key24, 24, iv16, 8, 13, &o), "no padding for CTR");
	o.padding = (enum fb_padding)42;
	expect(e, enc(e, cbc, key24, 8, iv16, 8, 8, &o), FB_ERR_ARGUMENT, "padding 42");
	expect_init(e, cbc, key24, 8, iv16, 8, &o, FB_ERR_ARGUMENT, "padding 42");
	o.padding = FB_PAD_DEFAULT;
	o.flags = 1u << 20;
	expect(e, enc(e, cbc, key24, 8, iv16, 8, 8, &o), FB_ERR_ARGUMENT, "unknown flag bit");
}

static void t_output_space(env *e)
{
	static const struct { const char *name; size_t len, need; } cases[] = {
		{ "des-cbc", 8, 16 },     /* PKCS#7 adds a block */
		{ "des-cbc", 13, 16 },
		{ "aes-128-ecb", 0, 16 },
		{ "des-ede3-ctr", 37, 37 },
		{ "aes-128-ctr", 37, 37 },
		{ "des-ede3-cfb8", 5, 5 },
		{ "aes-256-xts", 33, 33 },
		{ "des-ofb", 1, 1 },
	};
	size_t i, n, klen, ivlen;
	fb_ctx *ctx = fb_ctx_new();
	char w[100];
	int rc;
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		const fb_cipher *c = fb_cipher_by_name(cases[i].name);
		if (!c) {
			tu_skip(&e->st, "cipher not in this build");
			continue;
		}
		klen = fb_cipher_key_len(c);
		ivlen = fb_cipher_iv_len(c);
		arm(e);
		rc = fb_encrypt(c, key64, klen, iv16, ivlen, data, cases[i].len, e->out,
				cases[i].need - 1, &e->out_len, NULL);
		snprintf(w, sizeof w, "%s %zu bytes into %zu", cases[i].name, cases[i].len,
			 cases[i].need - 1);
		expect(e, rc, FB_ERR_OUTPUT_SPACE, w);
		/* Streamed: update with no room, then final with no room. */
		expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key64, klen, iv16, ivlen, NULL), "init");
		if (cases[i].len >= 16) {
			arm(e);
			rc = fb_update(ctx, e->out, 3, &n, data, cases[i].len);
			snprintf(w, sizeof w, "%s update %zu bytes into 3", cases[i].name,
				 cases[i].len);
			expect(e, rc, FB_ERR_OUTPUT_SPACE, w);
			expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key64, klen, iv16, ivlen, NULL),
				  "init");
		}
		arm(e);
		rc = fb_update(ctx, e->out, OUT_SIZE, &n, data, cases[i].len);
		expect_ok(e, rc, "update");
		if (cases[i].need > n) {
			arm(e);
			rc = fb_final(ctx, e->out, cases[i].need - n - 1, &n);
			snprintf(w, sizeof w, "%s final into %zu", cases[i].name,
				 cases[i].need - n - 1);
			expect(e, rc, FB_ERR_OUTPUT_SPACE, w);
		}
	}
	/* Decryption: a plaintext that does not fit. */
	{
		const fb_cipher *c = cipher(e, "des-ede3-cbc");
		uint8_t ct[32];
		if (c) {
			expect_ok(e, fb_encrypt(c, key24, 24, iv16, 8, data, 20, ct, 32, &n, NULL),
				  "encrypt 20");
			arm(e);
			rc = fb_decrypt(c, key24, 24, iv16, 8, ct, n, e->out, 19, &e->out_len, NULL);
			expect(e, rc, FB_ERR_OUTPUT_SPACE, "des-ede3-cbc decrypt 20 bytes into 19");
		}
	}
	fb_ctx_free(ctx);
}

static void t_state(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc");
	fb_ctx *ctx = fb_ctx_new();
	size_t n;
	if (!c || !ctx)
		return;
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 8), FB_ERR_STATE,
	       "update on a fresh context");
	arm(e);
	expect(e, fb_final(ctx, e->out, OUT_SIZE, &n), FB_ERR_STATE, "final on a fresh context");
	expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "init");
	arm(e);
	expect_ok(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 20), "update");
	arm(e);
	expect_ok(e, fb_final(ctx, e->out, OUT_SIZE, &n), "final");
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 8), FB_ERR_STATE,
	       "update after final");
	arm(e);
	expect(e, fb_final(ctx, e->out, OUT_SIZE, &n), FB_ERR_STATE, "final after final");
	expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "re-init");
	fb_ctx_wipe(ctx);
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 8), FB_ERR_STATE, "update after wipe");
	/* A failed final (bad padding) also ends the stream. */
	expect_ok(e, fb_init(ctx, c, FB_DECRYPT, key24, 24, iv16, 8, NULL), "init dec");
	arm(e);
	expect_ok(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 7), "update 7");
	arm(e);
	expect(e, fb_final(ctx, e->out, OUT_SIZE, &n), FB_ERR_DATA_LENGTH, "final of 7 bytes");
	arm(e);
	expect(e, fb_update(ctx, e->out, OUT_SIZE, &n, data, 8), FB_ERR_STATE,
	       "update after a failed final");
	fb_ctx_free(ctx);
}

static void t_constant_time(env *e)
{
	fb_options ct = { FB_PAD_DEFAULT, FB_FLAG_CONSTANT_TIME, NULL };
	fb_impl_info info;
	fb_ctx *ctx = fb_ctx_new();
	size_t i, j;
	for (i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		const fb_cipher *c;
		char name[40], w[120];
		int have_ct = 0, rc;
		fb_impl_info o;
		if (strcmp(info.family, "des") == 0)
			snprintf(name, sizeof name, "des-ede3-cbc");
		else
			snprintf(name, sizeof name, "%s-128-cbc", info.family);
		c = fb_cipher_by_name(name);
		if (!c || !info.supported)
			continue;
		ct.impl = info.name;
		snprintf(w, sizeof w, "CONSTANT_TIME forced to %s (constant_time=%d)", info.name,
			 info.constant_time);
		arm(e);
		rc = fb_encrypt(c, key64, fb_cipher_key_len(c), iv16, fb_cipher_iv_len(c), data, 16,
				e->out, OUT_SIZE, &e->out_len, &ct);
		if (info.constant_time)
			expect_ok(e, rc, w);
		else
			expect(e, rc, FB_ERR_NOT_CONSTANT_TIME, w);
		/* Unforced, the flag must pick a constant-time implementation for
		 * both the parallel and the serial paths, if the family has one. */
		for (j = 0; fb_impl_at(j, &o) == FB_OK; j++)
			have_ct |= o.supported && o.constant_time && !strcmp(o.family, info.family);
		ct.impl = NULL;
		rc = fb_init(ctx, c, FB_ENCRYPT, key64, fb_cipher_key_len(c), iv16,
			     fb_cipher_iv_len(c), &ct);
		if (have_ct) {
			const char *names[2];
			int k;
			expect_ok(e, rc, "CONSTANT_TIME unforced");
			names[0] = fb_ctx_impl(ctx);
			names[1] = fb_ctx_serial_impl(ctx);
			for (k = 0; k < 2 && rc == FB_OK; k++)
				for (j = 0; fb_impl_at(j, &o) == FB_OK; j++)
					if (names[k] && !strcmp(o.name, names[k]))
						tu_check(&e->st, o.constant_time,
							 "[%s] %s with CONSTANT_TIME uses %s", e->test,
							 name, names[k]);
		} else {
			arm(e);
			expect2(e, rc, FB_ERR_NOT_CONSTANT_TIME, FB_ERR_IMPL_UNAVAILABLE, name);
		}
	}
	{
		fb_options t = { FB_PAD_DEFAULT, FB_FLAG_CONSTANT_TIME, "des/table" };
		const fb_cipher *c = fb_cipher_by_name("des-cbc");
		if (c) {
			expect(e, enc(e, c, key24, 8, iv16, 8, 8, &t), FB_ERR_NOT_CONSTANT_TIME,
			       "des/table with CONSTANT_TIME");
			expect_init(e, c, key24, 8, iv16, 8, &t, FB_ERR_NOT_CONSTANT_TIME,
				    "des/table with CONSTANT_TIME");
		}
	}
	fb_ctx_free(ctx);
}

static void t_strerror(env *e)
{
	int code;
	for (code = FB_ERR_CTX_SIZE; code <= FB_OK; code++) {
		const char *s = fb_strerror(code);
		tu_check(&e->st, s && *s, "[%s] fb_strerror(%d) empty", e->test, code);
		if (code < FB_OK)
			tu_check(&e->st, s && strcmp(s, fb_strerror(FB_OK)) != 0,
				 "[%s] fb_strerror(%d) same as for FB_OK", e->test, code);
	}
	tu_check(&e->st, fb_strerror(-1000) != NULL && fb_strerror(77) != NULL,
		 "[%s] fb_strerror of an unknown code is NULL", e->test);
}

/* Encrypts or decrypts data[0..len) through a placed context of size
 * bytes in its own allocation; returns fb_init's code (and the output). */
static int through_placed(const fb_cipher *c, enum fb_direction dir, const fb_options *opt,
			  size_t size, const uint8_t *key, size_t klen, uint8_t *out, size_t *out_len)
{
	void *mem = NULL;
	if (posix_memalign(&mem, FB_CTX_ALIGN, size))
		return FB_ERR_ARGUMENT;
	fb_ctx *ctx = fb_ctx_place(mem, size);
	size_t a = 0, b = 0, len = 64;
	int rc = ctx ? fb_init(ctx, c, dir, key, klen, fb_cipher_iv_len(c) ? iv16 : NULL,
			       fb_cipher_iv_len(c), opt)
		     : FB_ERR_ARGUMENT;
	if (rc == FB_OK && (rc = fb_update(ctx, out, 256, &a, data, len)) == FB_OK)
		rc = fb_final(ctx, out + a, 256 - a, &b);
	*out_len = a + b;
	if (ctx)
		fb_ctx_wipe(ctx);
	free(mem);
	return rc;
}

/* One cipher, direction and option set: a context of exactly the size
 * fb_ctx_size reports serves it (same bytes as a one-shot call), one byte
 * less is refused with FB_ERR_CTX_SIZE, and fb_ctx_new's is never smaller. */
static void ctx_size_case(env *e, const fb_cipher *c, enum fb_direction dir,
			  const fb_options *opt, size_t biggest)
{
	const char *name = fb_cipher_name(c), *impl = opt->impl ? opt->impl : "default";
	uint8_t key[64], want[256], got[256];
	size_t klen = fb_cipher_key_len(c), wn = 0, gn = 0;
	memcpy(key, key64, sizeof key);
	size_t need = fb_ctx_size(c, dir, opt);
	if (!need) { /* options this CPU cannot serve: fb_init must refuse them too */
		fb_ctx *big = fb_ctx_new();
		int rc = fb_init(big, c, dir, key, klen, iv16, fb_cipher_iv_len(c), opt);
		tu_check(&e->st, rc != FB_OK, "[%s] %s %s: size 0 but fb_init accepts", e->test,
			 name, impl);
		fb_ctx_free(big);
		return;
	}
	tu_check(&e->st, need <= biggest && need % 64 == 0, "[%s] %s %s: size %zu (fb_ctx_new %zu)",
		 e->test, name, impl, need, biggest);
	int rc = (dir == FB_ENCRYPT ? fb_encrypt : fb_decrypt)(c, key, klen, iv16,
		fb_cipher_iv_len(c), data, 64, want, sizeof want, &wn, opt);
	int rc2 = through_placed(c, dir, opt, need, key, klen, got, &gn);
	tu_check(&e->st, rc2 == rc && (rc != FB_OK || (gn == wn && !memcmp(got, want, wn))),
		 "[%s] %s %s dir %d: a context of exactly %zu bytes gave %d/%zu bytes, one-shot %d/%zu",
		 e->test, name, impl, (int)dir, need, rc2, gn, rc, wn);
	rc2 = through_placed(c, dir, opt, need - 1, key, klen, got, &gn);
	tu_check(&e->st, rc2 == FB_ERR_CTX_SIZE, "[%s] %s %s: %zu bytes (one short) gave %d",
		 e->test, name, impl, need - 1, rc2);
}

static void t_ctx_size(env *e)
{
	fb_ctx *big = fb_ctx_new();
	void *mem = NULL;
	size_t biggest = 0;
	/* fb_ctx_new's size is not public: find it as the largest size a
	 * placed context needs, bounded by what fb_init accepts in it. */
	for (size_t i = 0; fb_cipher_at(i); i++)
		for (int d = 0; d < 2; d++) {
			size_t n = fb_ctx_size(fb_cipher_at(i), (enum fb_direction)d, NULL);
			biggest = n > biggest ? n : biggest;
		}
	biggest = biggest < 65536 ? 65536 : biggest;
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		fb_options opt = { FB_PAD_DEFAULT, 0, NULL };
		fb_impl_info info;
		for (int d = 0; d < 2; d++) {
			opt.impl = NULL;
			opt.flags = 0;
			ctx_size_case(e, c, (enum fb_direction)d, &opt, biggest);
			opt.flags = FB_FLAG_CONSTANT_TIME;
			ctx_size_case(e, c, (enum fb_direction)d, &opt, biggest);
			opt.flags = 0;
			for (size_t k = 0; fb_impl_at(k, &info) == FB_OK; k++) {
				if (strcmp(info.family, fb_cipher_family(c)))
					continue;
				opt.impl = info.name;
				ctx_size_case(e, c, (enum fb_direction)d, &opt, biggest);
			}
		}
	}
	/* Every cipher fits the context fb_ctx_new gives. */
	for (size_t i = 0; big && fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		int rc = fb_init(big, c, FB_DECRYPT, key64, fb_cipher_key_len(c), iv16,
				 fb_cipher_iv_len(c), NULL);
		tu_check(&e->st, rc == FB_OK, "[%s] %s in fb_ctx_new's context: %d", e->test,
			 fb_cipher_name(c), rc);
	}
	fb_ctx_free(big);
	/* The targets of a serial-mode context on the kernels with compact
	 * schedules (AES-NI family, DES tables): at most 1 KB. */
	static const char *const serial[] = { "aes-128-cbc", "aes-256-cbc", "des-ede3-cbc", "des-cbc" };
	for (size_t i = 0; i < sizeof serial / sizeof *serial; i++) {
		const fb_cipher *c = cipher(e, serial[i]);
		fb_options ct = { FB_PAD_DEFAULT, 0, NULL };
		size_t n = c ? fb_ctx_size(c, FB_ENCRYPT, &ct) : 0;
		fb_ctx *x = c ? fb_ctx_new_for(c, FB_ENCRYPT, NULL) : NULL;
		int rc = x ? fb_init(x, c, FB_ENCRYPT, key64, fb_cipher_key_len(c), iv16, fb_cipher_iv_len(c), NULL) : -99;
		const char *impl = x ? fb_ctx_serial_impl(x) : "";
		if (impl && strcmp(impl, "aes/ct64"))
			tu_check(&e->st, n && n <= 1024, "[%s] %s encryption context on %s: %zu bytes",
				 e->test, serial[i], impl, n);
		tu_check(&e->st, rc == FB_OK, "[%s] fb_ctx_new_for(%s): %d", e->test, serial[i], rc);
		fb_ctx_free(x);
	}
	/* Memory that was never made a context, misaligned or too small. */
	if (!posix_memalign(&mem, FB_CTX_ALIGN, 4096)) {
		memset(mem, 0, 4096);
		const fb_cipher *c = cipher(e, "aes-128-ecb");
		expect(e, fb_init((fb_ctx *)mem, c, FB_ENCRYPT, key64, 16, NULL, 0, NULL), FB_ERR_ARGUMENT,
		       "fb_init on memory not made a context");
		tu_check(&e->st, fb_ctx_place((char *)mem + 8, 4000) == NULL, "[%s] misaligned place", e->test);
		tu_check(&e->st, fb_ctx_place(mem, 16) == NULL, "[%s] 16-byte place", e->test);
		tu_check(&e->st, fb_ctx_place(NULL, 4096) == NULL, "[%s] NULL place", e->test);
		tu_check(&e->st, fb_ctx_size(NULL, FB_ENCRYPT, NULL) == 0 &&
				 fb_ctx_size(c, (enum fb_direction)7, NULL) == 0 &&
				 fb_ctx_new_for(NULL, FB_ENCRYPT, NULL) == NULL,
			 "[%s] sizes of nothing", e->test);
		free(mem);
	}
}

/* fb_message against the one-shot calls: every cipher, both directions,
 * lengths around the block and padding edges, in and out of place, two
 * messages in a row on one context, then a stream from the same context. */
/* fb_update_checked (the provider's entry) against fb_update on a twin
 * context with out_cap = in_len, the room fb_update_checked's caller
 * promises: the same bytes and results over splits that take its short
 * road (whole blocks, byte streams) and splits it hands to fb_update (a
 * partial block, a buffer, a padding block withheld; some need more room
 * than that and fail alike), in place and apart. */
static void update_checked_pair(env *e, const fb_cipher *c, enum fb_direction dir, const fb_options *o)
{
	static const size_t lens[] = { 16, 64, 5, 11, 32, 8, 3, 48, 24 };
	uint8_t a[512], b[512];
	size_t ivl = fb_cipher_iv_len(c), pa = 0, pb = 0, na, nb;
	fb_ctx *x = fb_ctx_new_for(c, dir, o), *y = fb_ctx_new_for(c, dir, o);
	int rx = x ? fb_init(x, c, dir, key64, fb_cipher_key_len(c), ivl ? iv16 : NULL, ivl, o) : -99;
	int ry = y ? fb_init(y, c, dir, key64, fb_cipher_key_len(c), ivl ? iv16 : NULL, ivl, o) : -99;
	int ok = tu_check(&e->st, rx == FB_OK && ry == FB_OK, "[%s] %s init: %d %d", e->test, fb_cipher_name(c), rx, ry);
	for (size_t i = 0, off = 0; ok && i < sizeof lens / sizeof *lens; off += lens[i++]) {
		size_t n = lens[i];
		int inplace = i & 1;
		if (inplace)
			memcpy(a + pa, data + off, n);
		rx = fb_update_checked(x, a + pa, inplace ? a + pa : data + off, n, &na);
		ry = fb_update(y, b + pb, n, &nb, data + off, n); /* the room the caller promises */
		ok = tu_check(&e->st, rx == ry && na == nb && !memcmp(a + pa, b + pb, na),
			      "[%s] %s dir %d pad %d update %zu (%zu B): %d/%zu against %d/%zu", e->test,
			      fb_cipher_name(c), (int)dir, o->padding, i, n, rx, na, ry, nb);
		pa += na, pb += nb;
	}
	if (ok) {
		rx = fb_final(x, a + pa, sizeof a - pa, &na);
		ry = fb_final(y, b + pb, sizeof b - pb, &nb);
		tu_check(&e->st, rx == ry && na == nb && pa + na == pb + nb && !memcmp(a, b, pa + na),
			 "[%s] %s dir %d pad %d final: %d against %d", e->test, fb_cipher_name(c), (int)dir,
			 o->padding, rx, ry);
	}
	fb_ctx_free(x);
	fb_ctx_free(y);
}

static void t_update_checked(env *e)
{
	static const fb_options pads[2] = { { FB_PAD_NONE, 0, NULL }, { FB_PAD_DEFAULT, 0, NULL } };
	for (size_t i = 0; fb_cipher_at(i); i++)
		for (int d = 0; d < 2; d++)
			for (int p = 0; p < 2; p++)
				update_checked_pair(e, fb_cipher_at(i), (enum fb_direction)d, &pads[p]);
	/* A context never set up: the state check holds here too. */
	fb_ctx *x = fb_ctx_new();
	size_t n = 99;
	uint8_t out[16];
	int rc = x ? fb_update_checked(x, out, data, 16, &n) : -99;
	tu_check(&e->st, rc == FB_ERR_STATE && n == 0, "[%s] before fb_init: %d, out_len %zu", e->test, rc, n);
	fb_ctx_free(x);
}

/* fb_xts_unit_checked (the provider's XTS entry) against fb_message on
 * the same context: every length from one block up, stolen or whole, in
 * place and apart; then a context it hands to fb_message (buffered bytes,
 * and a mode other than XTS). */
static void t_xts_unit_checked(env *e)
{
	static const size_t lens[] = { 16, 17, 31, 32, 64, 100, 255, 15 };
	uint8_t want[256], got[256];
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		if (fb_cipher_mode(c) != FB_XTS)
			continue;
		for (int d = 0; d < 2; d++) {
			fb_ctx *x = fb_ctx_new_for(c, (enum fb_direction)d, NULL);
			int rc = x ? fb_init(x, c, (enum fb_direction)d, key64, fb_cipher_key_len(c), iv16, 16, NULL) : -99;
			tu_check(&e->st, rc == FB_OK, "[%s] %s init: %d", e->test, fb_cipher_name(c), rc);
			for (size_t li = 0; rc == FB_OK && li < sizeof lens / sizeof *lens; li++) {
				size_t n = lens[li], wn = 0, gn = 0;
				int w = fb_message(x, iv16, 16, data, n, want, n, &wn);
				int inplace = li & 1;
				if (inplace)
					memcpy(got, data, n);
				int g = fb_xts_unit_checked(x, iv16, inplace ? got : data, n, got, &gn);
				tu_check(&e->st, g == w && gn == wn && (w != FB_OK || !memcmp(got, want, wn)),
					 "[%s] %s dir %d len %zu: %d/%zu against fb_message %d/%zu", e->test,
					 fb_cipher_name(c), d, n, g, gn, w, wn);
			}
			size_t a = 0, gn = 0, wn = 0;
			if (rc == FB_OK && fb_update(x, got, sizeof got, &a, data, 5) == FB_OK) {
				int g = fb_xts_unit_checked(x, iv16, data, 64, got, &gn);
				int w = fb_message(x, iv16, 16, data, 64, want, 64, &wn);
				tu_check(&e->st, g == w && gn == wn && (w != FB_OK || !memcmp(got, want, wn)),
					 "[%s] %s with 5 bytes buffered: %d against %d", e->test, fb_cipher_name(c), g, w);
			}
			fb_ctx_free(x);
		}
	}
	const fb_cipher *cbc = fb_cipher_by_name("aes-128-cbc");
	fb_ctx *x = cbc ? fb_ctx_new_for(cbc, FB_ENCRYPT, NULL) : NULL;
	size_t gn = 0, wn = 0;
	if (x && fb_init(x, cbc, FB_ENCRYPT, key64, 16, iv16, 16, NULL) == FB_OK) {
		int g = fb_xts_unit_checked(x, iv16, data, 64, got, &gn);
		int w = fb_message(x, iv16, 16, data, 64, want, 64, &wn);
		tu_check(&e->st, g == w && gn == wn && (w != FB_OK || !memcmp(got, want, wn)),
			 "[%s] aes-128-cbc context: %d/%zu against fb_message %d/%zu", e->test, g, gn, w, wn);
	}
	fb_ctx_free(x);
}

/* Messages on one context against the one-shot calls. The third of each
 * length follows a 5-byte update, so the stream is not at its start
 * (bytes buffered, a keystream block partly used, CTR's short-update
 * keystream made ahead) and must restart. */
static void message_lens(env *e, fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const fb_options *o,
			 const uint8_t *iv2)
{
	static const size_t lens[] = { 0, 1, 8, 15, 16, 17, 31, 32, 48, 64, 100, 256 };
	int (*one)(const fb_cipher *, const uint8_t *, size_t, const uint8_t *, size_t, const uint8_t *, size_t,
		   uint8_t *, size_t, size_t *, const fb_options *) = dir == FB_ENCRYPT ? fb_encrypt : fb_decrypt;
	size_t klen = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c);
	uint8_t want[320], got[320];
	for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
		size_t n = lens[li], wn = 0, gn = 0;
		for (int k = 0; k < 3; k++) { /* messages under different IVs */
			const uint8_t *v = ivl ? (k == 1 ? iv2 : iv16) : NULL;
			if (k == 2)
				fb_update(ctx, got, sizeof got, &gn, data, 5);
			int w = one(c, key64, klen, v, ivl, data, n, want, sizeof want, &wn, o);
			int g = fb_message(ctx, v, ivl, data, n, got, sizeof got, &gn);
			tu_check(&e->st, g == w && (w != FB_OK || (gn == wn && !memcmp(got, want, wn))),
				 "[%s] %s dir %d pad %d len %zu msg %d: fb_message %d/%zu, one-shot %d/%zu",
				 e->test, fb_cipher_name(c), (int)dir, o ? (int)o->padding : -1, n, k, g, gn, w, wn);
			if (w != FB_OK)
				continue;
			memcpy(got, data, n); /* in place */
			g = fb_message(ctx, v, ivl, got, n, got, sizeof got, &gn);
			tu_check(&e->st, g == FB_OK && gn == wn && !memcmp(got, want, wn),
				 "[%s] %s dir %d pad %d len %zu in place: %d", e->test, fb_cipher_name(c), (int)dir,
				 o ? (int)o->padding : -1, n, g);
		}
	}
}

/* Padded decryption on one context: valid ciphertexts (the one-shot
 * encryption of data) come back as data, apart and in place, also after a
 * 5-byte update; random data mostly fails the padding check above. */
static void message_padded_roundtrip(env *e, fb_ctx *ctx, const fb_cipher *c, const fb_options *o,
				     const uint8_t *iv2)
{
	static const size_t lens[] = { 0, 1, 15, 16, 17, 31, 32, 47, 64, 100, 255 };
	size_t klen = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c);
	uint8_t ct[320], got[320];
	for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
		size_t n = lens[li], cn = 0, gn = 0;
		for (int k = 0; k < 3; k++) {
			const uint8_t *v = ivl ? (k == 1 ? iv2 : iv16) : NULL;
			int w = fb_encrypt(c, key64, klen, v, ivl, data, n, ct, sizeof ct, &cn, o);
			if (k == 2)
				fb_update(ctx, got, sizeof got, &gn, data, 5);
			int g = w == FB_OK ? fb_message(ctx, v, ivl, ct, cn, got, sizeof got, &gn) : -99;
			tu_check(&e->st, g == FB_OK && gn == n && !memcmp(got, data, n),
				 "[%s] %s pad %d len %zu msg %d: padded decryption %d/%zu", e->test, fb_cipher_name(c),
				 o ? (int)o->padding : -1, n, k, g, gn);
			g = w == FB_OK ? fb_message(ctx, v, ivl, ct, cn, ct, sizeof ct, &gn) : -99;
			tu_check(&e->st, g == FB_OK && gn == n && !memcmp(ct, data, n),
				 "[%s] %s pad %d len %zu msg %d: padded decryption in place %d/%zu", e->test,
				 fb_cipher_name(c), o ? (int)o->padding : -1, n, k, g, gn);
		}
	}
}

/* ECB and CBC messages without padding (fb_message's block road): the
 * refusals write nothing, an IV inside the output is read before it is
 * overwritten, and the context then streams from the message's IV. */
static void message_blocks_refusals(env *e, const char *name)
{
	static const fb_options none = { FB_PAD_NONE, 0, NULL };
	const fb_cipher *c = cipher(e, name);
	fb_ctx *ctx = c ? fb_ctx_new_for(c, FB_ENCRYPT, &none) : NULL;
	size_t klen = c ? fb_cipher_key_len(c) : 0, ivl = c ? fb_cipher_iv_len(c) : 0, bs = c ? fb_cipher_block_size(c) : 0;
	if (!ctx || fb_init(ctx, c, FB_ENCRYPT, key64, klen, ivl ? iv16 : NULL, ivl, &none)) {
		tu_check(&e->st, 0, "[%s] %s: no context", e->test, name);
		fb_ctx_free(ctx);
		return;
	}
	const uint8_t *v = ivl ? iv16 : NULL;
	arm(e);
	expect(e, fb_message(ctx, v, ivl, data, 4 * bs - 1, e->out, sizeof e->out - GUARD, &e->out_len),
	       FB_ERR_DATA_LENGTH, "unpadded fb_message of a partial block");
	arm(e);
	expect(e, fb_message(ctx, v, ivl, data, 4 * bs, e->out, 4 * bs - 1, &e->out_len), FB_ERR_OUTPUT_SPACE,
	       "unpadded fb_message with a byte too little room");
	uint8_t buf[96], want[96], got[96];
	memcpy(buf, data, sizeof buf);
	size_t n = 99, wn = 0, gn = 0;
	tu_check(&e->st, fb_message(ctx, v, ivl, buf, 48, buf + 8, 64, &n) == FB_ERR_OVERLAP && n == 0 &&
			 !memcmp(buf, data, sizeof buf),
		 "[%s] %s: unpadded fb_message partial overlap", e->test, name);
	int w = fb_encrypt(c, key64, klen, v, ivl, data, 64, want, sizeof want, &wn, &none);
	if (ivl) { /* the IV is the output's first block; the stream then goes on from the IV as given */
		memcpy(got, iv16, ivl);
		int g = fb_message(ctx, got, ivl, data, 64, got, sizeof got, &gn);
		tu_check(&e->st, w == FB_OK && g == FB_OK && gn == wn && !memcmp(got, want, wn),
			 "[%s] %s: IV inside the output: %d/%zu", e->test, name, g, gn);
		size_t sn = 0, fn = 0;
		g = fb_update(ctx, got, sizeof got, &sn, data, 64);
		if (!g)
			g = fb_final(ctx, got + sn, sizeof got - sn, &fn);
		tu_check(&e->st, g == FB_OK && sn + fn == wn && !memcmp(got, want, wn),
			 "[%s] %s: stream after a message whose IV was in its output: %d", e->test, name, g);
		g = fb_init(ctx, c, FB_ENCRYPT, key64, klen, iv16, ivl, &none);
		tu_check(&e->st, g == FB_OK, "[%s] %s: re-init: %d", e->test, name, g);
	}
	/* a message, then the same IV's stream: 10 + 54 bytes and a final */
	int g = fb_message(ctx, v, ivl, data, 3 * bs, got, sizeof got, &gn);
	size_t a = 0, b = 0;
	if (!g)
		g = fb_update(ctx, got, sizeof got, &a, data, 10);
	if (!g)
		g = fb_update(ctx, got + a, sizeof got - a, &b, data + 10, 54);
	a += b;
	if (!g)
		g = fb_final(ctx, got + a, sizeof got - a, &b);
	tu_check(&e->st, w == FB_OK && g == FB_OK && a + b == wn && !memcmp(got, want, wn),
		 "[%s] %s: unpadded stream after fb_message: %d", e->test, name, g);
	fb_ctx_free(ctx);
}

static void t_message(env *e)
{
	static const fb_options none = { FB_PAD_NONE, 0, NULL }, m2 = { FB_PAD_ISO9797_M2, 0, NULL };
	uint8_t want[320], got[320], iv2[16];
	for (size_t i = 0; i < sizeof iv2; i++)
		iv2[i] = (uint8_t)(0xa5 ^ i);
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		size_t klen = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c);
		for (int d = 0; d < 2; d++) {
			enum fb_direction dir = (enum fb_direction)d;
			int (*one)(const fb_cipher *, const uint8_t *, size_t, const uint8_t *, size_t,
				   const uint8_t *, size_t, uint8_t *, size_t, size_t *, const fb_options *) =
				dir == FB_ENCRYPT ? fb_encrypt : fb_decrypt;
			fb_ctx *ctx = fb_ctx_new_for(c, dir, NULL);
			int rc = ctx ? fb_init(ctx, c, dir, key64, klen, ivl ? iv16 : NULL, ivl, &none) : -99;
			tu_check(&e->st, rc == FB_OK, "[%s] %s init: %d", e->test, fb_cipher_name(c), rc);
			if (rc == FB_OK) /* no padding: whole messages of ECB and CBC run straight through */
				message_lens(e, ctx, c, dir, &none, iv2);
			enum fb_mode mode = fb_cipher_mode(c);
			if (mode == FB_ECB || mode == FB_CBC) { /* the other padding: its last block, straight through */
				rc = ctx ? fb_init(ctx, c, dir, key64, klen, ivl ? iv16 : NULL, ivl, &m2) : -99;
				tu_check(&e->st, rc == FB_OK, "[%s] %s init: %d", e->test, fb_cipher_name(c), rc);
				if (rc == FB_OK)
					message_lens(e, ctx, c, dir, &m2, iv2);
				if (rc == FB_OK && dir == FB_DECRYPT)
					message_padded_roundtrip(e, ctx, c, &m2, iv2);
			}
			rc = ctx ? fb_init(ctx, c, dir, key64, klen, ivl ? iv16 : NULL, ivl, NULL) : -99;
			tu_check(&e->st, rc == FB_OK, "[%s] %s init: %d", e->test, fb_cipher_name(c), rc);
			if (rc == FB_OK)
				message_lens(e, ctx, c, dir, NULL, iv2);
			if (rc == FB_OK && dir == FB_DECRYPT && (mode == FB_ECB || mode == FB_CBC))
				message_padded_roundtrip(e, ctx, c, NULL, iv2);
			/* After a message the context streams from that message's IV. */
			size_t a = 0, b = 0, wn = 0, n = 64;
			int w = one(c, key64, klen, ivl ? iv2 : NULL, ivl, data, n, want, sizeof want, &wn, NULL);
			if (rc == FB_OK && w == FB_OK) {
				fb_message(ctx, ivl ? iv2 : NULL, ivl, data, 3 * (size_t)fb_cipher_block_size(c),
					   got, sizeof got, &a);
				rc = fb_update(ctx, got, sizeof got, &a, data, 10);
				if (!rc)
					rc = fb_update(ctx, got + a, sizeof got - a, &b, data + 10, n - 10);
				a += b;
				if (!rc)
					rc = fb_final(ctx, got + a, sizeof got - a, &b);
				tu_check(&e->st, rc == FB_OK && a + b == wn && !memcmp(got, want, wn),
					 "[%s] %s dir %d: stream after fb_message: %d", e->test,
					 fb_cipher_name(c), d, rc);
			}
			fb_ctx_free(ctx);
		}
	}
	/* Refusals: no key yet, finished, wrong IV, short output, overlap. */
	const fb_cipher *c = cipher(e, "aes-128-cbc");
	fb_ctx *ctx = c ? fb_ctx_new_for(c, FB_ENCRYPT, NULL) : NULL;
	if (!ctx)
		return;
	arm(e);
	expect(e, fb_message(ctx, iv16, 16, data, 32, e->out, sizeof e->out - GUARD, &e->out_len),
	       FB_ERR_STATE, "fb_message before fb_init");
	expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key64, 16, iv16, 16, NULL), "init");
	arm(e);
	expect(e, fb_message(ctx, iv16, 8, data, 32, e->out, sizeof e->out - GUARD, &e->out_len),
	       FB_ERR_IV_LENGTH, "fb_message with an 8-byte IV");
	arm(e);
	expect(e, fb_message(ctx, iv16, 16, data, 32, e->out, 47, &e->out_len), FB_ERR_OUTPUT_SPACE,
	       "fb_message with 47 bytes of room for 48");
	arm(e);
	expect(e, fb_message(ctx, NULL, 16, data, 32, e->out, sizeof e->out - GUARD, &e->out_len),
	       FB_ERR_IV_LENGTH, "fb_message with a NULL IV");
	uint8_t buf[96];
	memcpy(buf, data, sizeof buf);
	size_t n;
	tu_check(&e->st, fb_message(ctx, iv16, 16, buf, 48, buf + 8, 64, &n) == FB_ERR_OVERLAP &&
			 !memcmp(buf, data, sizeof buf),
		 "[%s] fb_message partial overlap", e->test);
	size_t fl;
	fb_final(ctx, e->out, sizeof e->out, &fl);
	arm(e);
	expect(e, fb_message(ctx, iv16, 16, data, 32, e->out, sizeof e->out - GUARD, &e->out_len),
	       FB_ERR_STATE, "fb_message after fb_final");
	fb_ctx_free(ctx);
	message_blocks_refusals(e, "aes-128-cbc");
	message_blocks_refusals(e, "des-ede3-ecb");
}

static void t_multi(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc");
	const uint8_t *keys[2] = { key24, key24 }, *in[2] = { data, data + 16 };
	uint8_t iva[8], ivb[8], o1[32 + GUARD], o2[32 + GUARD];
	uint8_t *ivs[2] = { iva, ivb }, *out[2] = { o1, o2 };
	size_t len[2] = { 16, 13 };
	int rc;
	if (!c)
		return;
	memcpy(iva, iv16, 8);
	memcpy(ivb, iv16, 8);
	tu_canary(o1, sizeof o1);
	tu_canary(o2, sizeof o2);
	rc = fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 2, keys, ivs, in, out, len, NULL);
	tu_check(&e->st, rc == FB_ERR_DATA_LENGTH && tu_canary_intact(o1, sizeof o1) &&
			 tu_canary_intact(o2, sizeof o2) && !memcmp(iva, iv16, 8),
		 "[%s] CBC lane of 13 bytes: returned %d, lanes %s", e->test, rc,
		 tu_canary_intact(o1, sizeof o1) ? "untouched" : "written");
	len[1] = 16;
	rc = fb_multi_crypt(c, FB_ECB, FB_ENCRYPT, 2, keys, ivs, in, out, len, NULL);
	tu_check(&e->st, rc == FB_ERR_ARGUMENT && tu_canary_intact(o1, sizeof o1),
		 "[%s] mode ECB: returned %d", e->test, rc);
	rc = fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 2, NULL, ivs, in, out, len, NULL);
	tu_check(&e->st, rc == FB_ERR_ARGUMENT && tu_canary_intact(o1, sizeof o1),
		 "[%s] NULL keys: returned %d", e->test, rc);
	rc = fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 2, keys, ivs, in, out, len, NULL);
	tu_check(&e->st, rc == FB_OK, "[%s] valid multi call: returned %d (%s)", e->test, rc,
		 fb_strerror(rc));
}

/* Lengths that run past the end of memory: an error, never a wrap. */
static void t_length_overflow(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc");
	fb_ctx *ctx = fb_ctx_new();
	size_t n = 0;
	if (!c || !ctx) {
		fb_ctx_free(ctx);
		return;
	}
	expect_ok(e, fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "init");
	arm(e);
	expect_ok(e, fb_update(ctx, e->out, 64, &n, data, 5), "update of 5 bytes");
	arm(e);
	expect(e, fb_update(ctx, e->out, 64, &n, data, SIZE_MAX - 4), FB_ERR_ARGUMENT,
	       "update of SIZE_MAX - 4 bytes after 5 buffered");
	arm(e);
	expect(e, fb_update(ctx, e->out, SIZE_MAX, &n, data, (size_t)0 - (uintptr_t)data + 8),
	       FB_ERR_ARGUMENT, "update whose input runs past the end of memory");
	fb_ctx_free(ctx);
	for (size_t back = 1; back <= 40; back += 13) {
		char w[80];
		snprintf(w, sizeof w, "one-shot of SIZE_MAX - %zu bytes, out_cap SIZE_MAX", back);
		arm(e);
		expect(e, fb_encrypt(c, key24, 24, iv16, 8, data, SIZE_MAX - back, e->out, SIZE_MAX,
				     &e->out_len, NULL), FB_ERR_ARGUMENT, w);
		arm(e);
		expect(e, fb_decrypt(c, key24, 24, iv16, 8, data, SIZE_MAX - back, e->out, SIZE_MAX,
				     &e->out_len, NULL), FB_ERR_ARGUMENT, w);
	}
	/* out_cap = SIZE_MAX is "large enough", not an error. */
	arm(e);
	expect_ok(e, fb_encrypt(c, key24, 24, iv16, 8, data, 20, e->out, SIZE_MAX, &e->out_len, NULL),
		  "one-shot with out_cap SIZE_MAX");
	tu_check(&e->st, e->out_len == 24, "[%s] out_cap SIZE_MAX: wrote %zu bytes, expected 24",
		 e->test, e->out_len);
}

/* Keys ctx with key64 (flip: its first byte changed), then runs it
 * through `runs` updates (0: none). */
static void keyed_in(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, const fb_options *opt,
		     int flip, int runs)
{
	static const size_t lens[] = { 5, 1000, 3, 16, 4096, 1 };
	uint8_t key[64], out[4200];
	size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c), n;
	memcpy(key, key64, sizeof key);
	key[0] ^= (uint8_t)(flip << 4); /* not a DES parity bit */
	memset(out, 0, sizeof out);
	if (!ctx || fb_init(ctx, c, dir, key, kl, ivl ? iv16 : NULL, ivl, opt) != FB_OK)
		return;
	for (int i = 0; i < runs; i++) /* lengths that reach every rung and single blocks */
		(void)fb_update(ctx, out, sizeof out, &n, out, lens[i % 6]);
}

/* Re-keying wipes what the old key built: a context keyed, run through
 * every schedule it builds on first use, then keyed again holds the same
 * bytes as one only keyed with the new key (no old schedule, keystream or
 * kept key is left in an area the new key has not rebuilt). */
static void t_rekey_wipes(env *e)
{
	fb_impl_info info;
	for (size_t i = 0; fb_cipher_at(i); i++) {
		const fb_cipher *c = fb_cipher_at(i);
		if (!fb_cipher_key_len(c))
			continue;
		for (int d = 0; d < 2; d++)
			for (size_t k = 0; k == 0 || fb_impl_at(k - 1, &info) == FB_OK; k++) {
				fb_options opt = { FB_PAD_NONE, 0, NULL };
				if (k && strcmp(info.family, fb_cipher_family(c)))
					continue;
				opt.impl = k ? info.name : NULL;
				size_t size = fb_ctx_size(c, (enum fb_direction)d, &opt);
				void *a = NULL, *b = NULL;
				if (!size || posix_memalign(&a, FB_CTX_ALIGN, size)) {
					continue;
				}
				if (posix_memalign(&b, FB_CTX_ALIGN, size)) {
					free(a);
					continue;
				}
				memset(a, 0, size);
				fb_ctx *ctx = fb_ctx_place(a, size);
				keyed_in(ctx, c, (enum fb_direction)d, &opt, 0, 6);
				keyed_in(ctx, c, (enum fb_direction)d, &opt, 1, 0);
				memcpy(b, a, size);
				memset(a, 0, size);
				keyed_in(fb_ctx_place(a, size), c, (enum fb_direction)d, &opt, 1, 0);
				size_t at = 0, ndiff = 0;
				for (size_t j = size; j-- > 0;)
					if (((uint8_t *)a)[j] != ((uint8_t *)b)[j])
						at = j, ndiff++;
				tu_check(&e->st, !ndiff,
					 "[%s] %s %s dir %d: re-keyed context differs from a fresh one in %zu of %zu bytes from byte %zu",
					 e->test, fb_cipher_name(c), opt.impl ? opt.impl : "default", d, ndiff, size, at);
				fb_ctx_wipe((fb_ctx *)a);
				free(a);
				free(b);
			}
	}
}

/* fb_init on a keyed context of the same cipher, direction, key length
 * and options (the re-key path) refuses what a fresh context refuses,
 * with the same code, and leaves the context unusable. */
static void rekey_refuses(env *e, const fb_cipher *c, const fb_options *opt, const uint8_t *key, size_t key_len,
			  const uint8_t *iv, size_t iv_len, const char *what)
{
	uint8_t k0[64], iv0[16] = { 0 }, buf[16] = { 0 };
	for (size_t i = 0; i < sizeof k0; i++)
		k0[i] = (uint8_t)(0x31 + 7 * i);
	size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c), n = 0;
	fb_ctx *fresh = fb_ctx_new(), *ctx = fb_ctx_new();
	if (!fresh || !ctx) {
		tu_check(&e->st, 0, "[%s] out of memory", e->test);
		fb_ctx_free(fresh);
		fb_ctx_free(ctx);
		return;
	}
	int want = fb_init(fresh, c, FB_ENCRYPT, key, key_len, iv, iv_len, opt);
	int ready = fb_init(ctx, c, FB_ENCRYPT, k0, kl, ivl ? iv0 : NULL, ivl, opt);
	int got = fb_init(ctx, c, FB_ENCRYPT, key, key_len, iv, iv_len, opt);
	int after = fb_update(ctx, buf, sizeof buf, &n, buf, fb_cipher_block_size(c));
	tu_check(&e->st, ready == FB_OK && want != FB_OK && got == want && after == FB_ERR_STATE,
		 "[%s] %s, %s: fresh %d, re-keyed %d (first key %d), then update %d", e->test, fb_cipher_name(c),
		 what, want, got, ready, after);
	fb_ctx_free(fresh);
	fb_ctx_free(ctx);
}

static void t_rekey_refuses(env *e)
{
	static const uint8_t weak[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	uint8_t key[64], iv[16] = { 0 };
	for (size_t i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(0x5a ^ (3 * i));
	fb_options strict = { FB_PAD_DEFAULT, FB_FLAG_STRICT_KEYS, NULL };
	const fb_cipher *cbc = fb_cipher_by_name("aes-128-cbc"), *xts = fb_cipher_by_name("aes-128-xts");
	const fb_cipher *des = fb_cipher_by_name("des-cbc"), *ecb = fb_cipher_by_name("aes-256-ecb");
	uint8_t same[32];
	memcpy(same, key, 16);
	memcpy(same + 16, key, 16);
	rekey_refuses(e, cbc, NULL, NULL, 16, iv, 16, "no key");
	rekey_refuses(e, cbc, NULL, key, 16, NULL, 16, "no IV");
	rekey_refuses(e, cbc, NULL, key, 16, iv, 8, "short IV");
	rekey_refuses(e, ecb, NULL, key, 32, iv, 16, "an IV for ECB");
	rekey_refuses(e, xts, NULL, same, 32, iv, 16, "equal XTS halves");
	rekey_refuses(e, des, &strict, weak, 8, iv, 8, "a weak key, strict");
}

/* Empty input given as NULL is an empty message in every mode. */
static void t_empty_null(env *e)
{
	const fb_cipher *c;
	fb_ctx *ctx = fb_ctx_new();
	for (size_t i = 0; ctx && (c = fb_cipher_at(i)); i++) {
		size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c), n = 1, m = 1;
		char w[80];
		if (!kl)
			continue; /* variable-key names repeat a fixed-key one */
		snprintf(w, sizeof w, "%s: update(NULL, 0)", fb_cipher_name(c));
		expect_ok(e, fb_init(ctx, c, FB_DECRYPT, key64, kl, iv16, ivl, NULL), w);
		expect_ok(e, fb_update(ctx, NULL, 0, &n, NULL, 0), w);
		tu_check(&e->st, n == 0, "[%s] %s wrote %zu bytes", e->test, w, n);
		fb_ctx_wipe(ctx);
		arm(e);
		int rc = fb_encrypt(c, key64, kl, iv16, ivl, NULL, 0, e->out, OUT_SIZE, &m, NULL);
		snprintf(w, sizeof w, "%s: fb_encrypt(NULL, 0)", fb_cipher_name(c));
		if (fb_cipher_mode(c) == FB_XTS)
			expect(e, rc, FB_ERR_DATA_LENGTH, w);
		else
			expect_ok(e, rc, w);
	}
	fb_ctx_free(ctx);
}

/* XTS refuses equal key halves always (IEEE 1619; OpenSSL does too). */
static void t_xts_keys(env *e)
{
	const fb_cipher *c = any_xts(e);
	uint8_t k[64];
	fb_options strict = { .flags = FB_FLAG_STRICT_KEYS };
	if (!c)
		return;
	size_t kl = fb_cipher_key_len(c);
	memcpy(k, key64, kl / 2);
	memcpy(k + kl / 2, key64, kl / 2);
	expect_init(e, c, k, kl, iv16, 16, NULL, FB_ERR_XTS_KEYS, "equal halves");
	expect_init(e, c, k, kl, iv16, 16, &strict, FB_ERR_XTS_KEYS, "equal halves, strict");
	arm(e);
	expect(e, fb_encrypt(c, k, kl, iv16, 16, data, 32, e->out, OUT_SIZE, &e->out_len, NULL),
	       FB_ERR_XTS_KEYS, "one-shot with equal halves");
	k[kl - 1] ^= 1; /* one bit apart is accepted */
	expect_init(e, c, k, kl, iv16, 16, NULL, FB_OK, "halves one bit apart");
}

/* A variable-key name refuses the empty key. */
static void t_empty_key(env *e)
{
	static const char *const names[] = { "rc6-cbc", "rc6-ecb", "rc6-128-xts" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const fb_cipher *c = fb_cipher_by_name(names[i]);
		char w[80];
		if (!c) {
			tu_skip(&e->st, "cipher not in this build");
			continue;
		}
		snprintf(w, sizeof w, "%s with a 0-byte key", names[i]);
		expect_init(e, c, key64, 0, iv16, fb_cipher_iv_len(c), NULL, FB_ERR_KEY_LENGTH, w);
	}
}

/* Buffers sized by fb_output_bound never get FB_ERR_OUTPUT_SPACE, for any
 * split, in any mode and direction. */
static void t_output_bound(env *e)
{
	static const size_t splits[][4] = { { 5, 3, 40, 15 }, { 15, 1, 16, 31 }, { 8, 8, 8, 8 },
					     { 16, 0, 17, 32 } };
	const fb_cipher *c;
	fb_ctx *ctx = fb_ctx_new();
	uint8_t buf[512];
	for (size_t i = 0; ctx && (c = fb_cipher_at(i)); i++) {
		size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c);
		if (!kl)
			continue;
		for (int d = 0; d < 2; d++)
			for (size_t sp = 0; sp < sizeof splits / sizeof *splits; sp++) {
				enum fb_direction dir = d ? FB_ENCRYPT : FB_DECRYPT;
				fb_options nopad = { .padding = FB_PAD_NONE };
				int pads = fb_cipher_mode(c) == FB_ECB || fb_cipher_mode(c) == FB_CBC;
				int rc = fb_init(ctx, c, dir, key64, kl, iv16, ivl, pads ? &nopad : NULL);
				for (int k = 0; !rc && k < 4; k++) {
					size_t n, cap = fb_output_bound(c, dir, splits[sp][k]);
					rc = fb_update(ctx, buf, cap, &n, data, splits[sp][k]);
				}
				size_t n, cap = fb_output_bound(c, dir, 0);
				if (!rc)
					rc = fb_final(ctx, buf, cap, &n);
				tu_check(&e->st, rc != FB_ERR_OUTPUT_SPACE,
					 "[%s] %s %s split %zu: output space by fb_output_bound refused",
					 e->test, fb_cipher_name(c), d ? "enc" : "dec", sp);
			}
	}
	fb_ctx_free(ctx);
}

/* fb_multi_crypt checks options exactly as fb_init does. */
static void t_multi_options(env *e)
{
	const fb_cipher *c = cipher(e, "des-ede3-cbc");
	const uint8_t *keys[1] = { key24 }, *in[1] = { data };
	uint8_t iv[8], o[16 + GUARD];
	uint8_t *ivs[1] = { iv }, *out[1] = { o };
	size_t len[1] = { 16 };
	fb_options bad_flag = { .flags = 0x100 }, bad_pad = { .padding = (enum fb_padding)77 };
	if (!c)
		return;
	memcpy(iv, iv16, 8);
	const fb_options *opts[2] = { &bad_flag, &bad_pad };
	for (int k = 0; k < 2; k++) {
		fb_ctx *ctx = fb_ctx_new();
		int want = fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, opts[k]);
		fb_ctx_free(ctx);
		tu_canary(o, sizeof o);
		int rc = fb_multi_crypt(c, FB_CBC, FB_ENCRYPT, 1, keys, ivs, in, out, len, opts[k]);
		tu_check(&e->st, rc == want && want != FB_OK && tu_canary_intact(o, sizeof o),
			 "[%s] multi with %s: returned %d, fb_init %d", e->test,
			 k ? "padding 77" : "an unknown flag", rc, want);
	}
}

/* ---- the masked run (FASTBLOCK_CPU_MASK=0: only portable kernels) ----- */

static int masked_main(void)
{
	env e;
	fb_impl_info info;
	size_t i, lacking = 0;
	memset(&e, 0, sizeof e);
	e.test = "masked";
	for (i = 0; fb_impl_at(i, &info) == FB_OK; i++) {
		tu_check(&e.st, info.supported == (*info.cpu_needs == 0),
			 "[masked] %s supported=%d needs \"%s\"", info.name, info.supported,
			 info.cpu_needs);
		lacking += !info.supported;
	}
	t_impl(&e); /* forces every "unsupported" one */
	printf("masked run: %zu implementations unavailable, %lu checks, %lu failures\n", lacking,
	       e.st.checks, e.st.failures);
	return e.st.failures ? 1 : 0;
}

/* ---- the FASTBLOCK_IMPL run (FASTBLOCK_IMPL=des/table64) ---------------- */

static int envimpl_main(void)
{
	env e;
	fb_ctx *ctx = fb_ctx_new();
	const fb_cipher *c = fb_cipher_by_name("des-ede3-cbc");
	fb_options o = { FB_PAD_DEFAULT, 0, "des/table" };
	const char *pi, *si;
	memset(&e, 0, sizeof e);
	e.test = "FASTBLOCK_IMPL";
	if (!ctx || !c)
		return 1;
	expect_ok(&e, fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, NULL), "init");
	pi = fb_ctx_impl(ctx);
	si = fb_ctx_serial_impl(ctx);
	tu_check(&e.st, pi && si && !strcmp(pi, "des/table64") && !strcmp(si, "des/table64"),
		 "[%s] the variable did not force des/table64: %s / %s", e.test, pi ? pi : "NULL",
		 si ? si : "NULL");
	expect_ok(&e, fb_init(ctx, c, FB_ENCRYPT, key24, 24, iv16, 8, &o), "init forced");
	pi = fb_ctx_impl(ctx);
	tu_check(&e.st, pi && !strcmp(pi, "des/table"),
		 "[%s] options.impl must win over the variable: %s", e.test, pi ? pi : "NULL");
	fb_ctx_free(ctx);
	printf("FASTBLOCK_IMPL run: %lu checks, %lu failures\n", e.st.checks, e.st.failures);
	return e.st.failures ? 1 : 0;
}

/* Runs this program again as `self mode` with one environment variable. */
static int run_child(const char *self, const char *mode, const char *var, const char *value)
{
	pid_t pid;
	int status = 0;
	fflush(stdout); /* or the child's lines come before ours */
	pid = fork();
	if (pid == 0) {
		setenv(var, value, 1);
		execl(self, self, mode, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; void (*fn)(env *); } tests[] = {
		{ "unknown cipher", t_unknown_cipher },
		{ "key length", t_key_length },
		{ "IV length", t_iv_length },
		{ "data length", t_data_length },
		{ "bad padding", t_bad_padding },
		{ "weak keys (strict)", t_weak_keys },
		{ "DES key helpers", t_des_key_helpers },
		{ "implementation", t_impl },
		{ "overlap", t_overlap },
		{ "NULL arguments", t_null_arguments },
		{ "options", t_options },
		{ "output space", t_output_space },
		{ "state", t_state },
		{ "constant time", t_constant_time },
		{ "fb_strerror", t_strerror },
		{ "multi-stream", t_multi },
		{ "length overflow", t_length_overflow },
		{ "empty NULL input", t_empty_null },
		{ "XTS equal halves", t_xts_keys },
		{ "empty key", t_empty_key },
		{ "output bound", t_output_bound },
		{ "multi options", t_multi_options },
		{ "context sizes", t_ctx_size },
		{ "re-key wipes", t_rekey_wipes },
		{ "re-key refuses", t_rekey_refuses },
		{ "fb_message", t_message },
		{ "fb_update_checked", t_update_checked },
		{ "fb_xts_unit_checked", t_xts_unit_checked },
	};
	env e;
	size_t i;
	double t0 = tu_now();

	if (argc > 1 && strcmp(argv[1], "masked") == 0)
		return masked_main();
	if (argc > 1 && strcmp(argv[1], "envimpl") == 0)
		return envimpl_main();
	memset(&e, 0, sizeof e);
	for (i = 0; i < sizeof tests / sizeof *tests; i++) {
		unsigned long f = e.st.failures, c = e.st.checks;
		e.test = tests[i].name;
		tests[i].fn(&e);
		printf("%-20s %4lu checks %s\n", tests[i].name, e.st.checks - c,
		       e.st.failures == f ? "ok" : "FAILED");
	}
	e.st.checks += 2;
	if (!run_child(argv[0], "masked", "FASTBLOCK_CPU_MASK", "0"))
		tu_fail(&e.st, "the masked run (FASTBLOCK_CPU_MASK=0) failed");
	if (fb_cipher_by_name("des-cbc")) {
		fb_impl_info info;
		int have = 0;
		for (i = 0; fb_impl_at(i, &info) == FB_OK; i++)
			have |= !strcmp(info.name, "des/table64");
		if (have && !run_child(argv[0], "envimpl", "FASTBLOCK_IMPL", "des/table64"))
			tu_fail(&e.st, "the FASTBLOCK_IMPL=des/table64 run failed");
	}
	return tu_finish(&e.st, "test_errors", tu_now() - t0);
}
