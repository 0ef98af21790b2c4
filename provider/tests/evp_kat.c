/*
 * evp_kat.c - runs OpenSSL's own cipher test files (the format of
 * test/recipes/30-test_evp_data/evpciph_*.txt; see data/README.md for
 * where the copies come from) through EVP with the fastblock provider
 * forced (property query "provider=fastblock").
 *
 *   evp_kat <module dir> [--ct] file...
 *
 * A test is a block of "Key = value" lines; values are hex or "a string".
 * Each test runs in every direction its Operation allows, each in several
 * ways: one update, byte by byte, random splits, in place, and with the
 * context copied (EVP_CIPHER_CTX_copy) half way. Padding is off, as in
 * OpenSSL's evp_test. NextIV is compared with "updated-iv" after final,
 * and a Result (an expected failure: CIPHERINIT_ERROR, KEY_SET_ERROR,
 * CIPHERUPDATE_ERROR, CIPHERFINAL_ERROR, INVALID_IV_LENGTH) must happen at
 * that step. Tests of ciphers the provider does not offer (GCM, CCM, CTS,
 * CFB1, DESX), FIPS-only tests and tests with keys this runner does not
 * know are counted as skipped. Prints the counts; exits 1 on any failure,
 * also when no test ran.
 *
 * --propq QUERY runs the files against another provider (provider=default
 * checks this runner and the files themselves).
 * --ct fetches with "provider=fastblock,fastblock.ct=yes" (the
 * constant-time implementations), skipping ciphers that have none here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define MAXV 8192

typedef struct test {
	char file[256];
	int line;
	char cipher[64];
	unsigned char key[128], iv[128], pt[MAXV], ct[MAXV], next_iv[64];
	size_t key_len, iv_len, pt_len, ct_len, next_iv_len;
	int has_key, has_iv, has_pt, has_ct, has_next_iv;
	int op;            /* -1 both, 1 encrypt, 0 decrypt */
	char result[64];   /* expected failure, or "" */
	int skip;          /* a keyword this runner does not handle, or fips only */
} test;

static const char *propq = "provider=fastblock";
static int n_pass, n_fail, n_skip, n_deviation, n_tests;
static unsigned rng_state = 12345;

static unsigned rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

static int parse_value(const char *v, unsigned char *out, size_t cap, size_t *len)
{
	size_t n = 0;
	if (*v == '"') {
		const char *e = strrchr(v + 1, '"');
		if (!e)
			return 0;
		for (const char *p = v + 1; p < e; p++) {
			if (n >= cap)
				return 0;
			out[n++] = (unsigned char)*p;
		}
		*len = n;
		return 1;
	}
	for (; *v; v += 2) {
		if (!isxdigit((unsigned char)v[0]) || !isxdigit((unsigned char)v[1]) || n >= cap)
			return 0;
		char b[3] = { v[0], v[1], 0 };
		out[n++] = (unsigned char)strtoul(b, NULL, 16);
	}
	*len = n;
	return 1;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Documented differences from OpenSSL (docs/provider.md): the library
 * refuses XTS keys with equal halves in both directions; OpenSSL's default
 * provider refuses them for encryption only. */
static int xts_equal_halves(const test *t)
{
	size_t h = t->key_len / 2;
	return strstr(t->cipher, "xts") && t->key_len && !memcmp(t->key, t->key + h, h);
}

enum way { WAY_ONE, WAY_BYTES, WAY_SPLITS, WAY_INPLACE, WAY_COPY, WAY_N };
static const char *const way_name[] = { "one update", "byte by byte", "random splits", "in place",
					"copied half way" };

/* One run; returns NULL on success or the name of the step that failed
 * (OpenSSL's Result names), and the output. */
static const char *run(const test *t, EVP_CIPHER *c, int enc, enum way way, unsigned char *out, size_t *out_len,
		       unsigned char *upd_iv)
{
	const unsigned char *in = enc ? t->pt : t->ct;
	size_t in_len = enc ? t->pt_len : t->ct_len;
	const char *err = NULL;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *cp = NULL;
	unsigned char *buf = malloc(in_len + 64);
	int xts = EVP_CIPHER_get_mode(c) == EVP_CIPH_XTS_MODE;
	if (!ctx || !buf)
		abort();
	if (!EVP_CipherInit_ex(ctx, c, NULL, NULL, NULL, enc)) {
		err = "CIPHERINIT_ERROR";
		goto done;
	}
	if (t->has_iv && (size_t)EVP_CIPHER_CTX_get_iv_length(ctx) != t->iv_len) {
		err = "INVALID_IV_LENGTH";
		goto done;
	}
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	if (t->key_len != (size_t)EVP_CIPHER_CTX_get_key_length(ctx) &&
	    !EVP_CIPHER_CTX_set_key_length(ctx, (int)t->key_len)) {
		err = "INVALID_KEY_LENGTH";
		goto done;
	}
	if (!EVP_CipherInit_ex(ctx, NULL, NULL, t->key, t->has_iv ? t->iv : NULL, -1)) {
		err = "KEY_SET_ERROR";
		goto done;
	}
	memcpy(buf, in, in_len);
	const unsigned char *src = way == WAY_INPLACE ? buf : in;
	unsigned char *dst = buf;
	size_t pos = 0, done_out = 0;
	int ol;
	while (pos < in_len || (pos == 0 && in_len == 0)) {
		size_t n = in_len - pos;
		if (!xts) {
			if (way == WAY_BYTES)
				n = n ? 1 : 0;
			else if (way == WAY_SPLITS && n)
				n = 1 + rnd() % n;
			else if (way == WAY_COPY && pos == 0 && n > 1)
				n = n / 2;
		}
		if (!EVP_CipherUpdate(ctx, dst + done_out, &ol, src + pos, (int)n)) {
			err = "CIPHERUPDATE_ERROR";
			goto done;
		}
		pos += n;
		done_out += (size_t)ol;
		if (way == WAY_COPY && !cp) {
			/* continue in a copy; the original is freed under it */
			cp = EVP_CIPHER_CTX_new();
			if (!cp || !EVP_CIPHER_CTX_copy(cp, ctx)) {
				err = "CIPHERUPDATE_ERROR";
				goto done;
			}
			EVP_CIPHER_CTX_free(ctx);
			ctx = cp;
		}
		if (in_len == 0)
			break;
	}
	if (!EVP_CipherFinal_ex(ctx, dst + done_out, &ol)) {
		err = "CIPHERFINAL_ERROR";
		goto done;
	}
	done_out += (size_t)ol;
	memcpy(out, dst, done_out);
	*out_len = done_out;
	if (t->has_next_iv && !EVP_CIPHER_CTX_get_updated_iv(ctx, upd_iv, t->next_iv_len))
		err = "GET_UPDATED_IV";
done:
	EVP_CIPHER_CTX_free(ctx);
	free(buf);
	ERR_clear_error();
	return err;
}

static void run_test(test *t)
{
	if (!t->cipher[0])
		return;
	n_tests++;
	if (t->skip || !t->has_key) {
		n_skip++;
		return;
	}
	ERR_set_mark();
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, t->cipher, propq);
	ERR_pop_to_mark();
	if (!c) {
		n_skip++;
		return;
	}
	int failed = 0, deviation = 0;
	for (int enc = 1; enc >= 0; enc--) {
		if (t->op != -1 && t->op != enc)
			continue;
		if ((enc && !t->has_pt) || (!enc && !t->has_ct))
			continue;
		const char *want = t->result[0] ? t->result : NULL;
		if (!want && !enc && xts_equal_halves(t) && strstr(propq, "fastblock")) {
			want = "KEY_SET_ERROR"; /* see xts_equal_halves */
			deviation = 1;
		}
		for (int w = 0; w < WAY_N; w++) {
			static unsigned char out[MAXV + 64];
			unsigned char upd[64];
			size_t out_len = 0;
			const char *got = run(t, c, enc, (enum way)w, out, &out_len, upd);
			const unsigned char *exp = enc ? t->ct : t->pt;
			size_t exp_len = enc ? t->ct_len : t->pt_len;
			const char *why = NULL;
			if (want || got) {
				if (!want)
					why = got;
				else if (!got)
					why = "succeeded but a failure was expected";
				else if (strcmp(want, got))
					why = got;
			} else if (out_len != exp_len || memcmp(out, exp, exp_len)) {
				why = "wrong output";
			} else if (t->has_next_iv && memcmp(upd, t->next_iv, t->next_iv_len)) {
				why = "wrong NextIV";
			}
			if (why) {
				fprintf(stderr, "FAIL %s:%d %s %s (%s): %s%s%s\n", t->file, t->line, t->cipher,
					enc ? "encrypt" : "decrypt", way_name[w], why, want ? ", expected " : "",
					want ? want : "");
				failed = 1;
			}
		}
	}
	EVP_CIPHER_free(c);
	if (failed)
		n_fail++;
	else if (deviation)
		n_deviation++;
	else
		n_pass++;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 0;
	}
	static test t;
	memset(&t, 0, sizeof t);
	t.op = -1;
	char line[4 * MAXV];
	int lineno = 0;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	int pending_skip = 0; /* Availablein / FIPSversion come before the test */
	while (fgets(line, sizeof line, f)) {
		lineno++;
		char *s = trim(line);
		if (*s == '#')
			continue;
		if (!*s) {
			run_test(&t);
			memset(&t, 0, sizeof t);
			t.op = -1;
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq)
			continue;
		*eq = 0;
		char *k = trim(s), *v = trim(eq + 1);
		if (!strcmp(k, "Title"))
			continue;
		if (!strcmp(k, "Availablein")) {
			pending_skip |= !!strstr(v, "fips") && !strstr(v, "default");
			continue;
		}
		if (!strcmp(k, "FIPSversion"))
			continue;
		if (!strcmp(k, "Cipher")) {
			if (t.cipher[0])
				run_test(&t);
			memset(&t, 0, sizeof t);
			t.op = -1;
			snprintf(t.file, sizeof t.file, "%s", base);
			t.line = lineno;
			snprintf(t.cipher, sizeof t.cipher, "%s", v);
			t.skip = pending_skip;
			pending_skip = 0;
			continue;
		}
		if (!t.cipher[0]) {
			if (strcmp(k, "Availablein") && strcmp(k, "FIPSversion"))
				fprintf(stderr, "%s:%d: %s outside a test\n", base, lineno, k);
			continue;
		}
		int ok = 1;
		if (!strcmp(k, "Key"))
			ok = t.has_key = parse_value(v, t.key, sizeof t.key, &t.key_len);
		else if (!strcmp(k, "IV"))
			ok = t.has_iv = parse_value(v, t.iv, sizeof t.iv, &t.iv_len);
		else if (!strcmp(k, "Plaintext"))
			ok = t.has_pt = parse_value(v, t.pt, sizeof t.pt, &t.pt_len);
		else if (!strcmp(k, "Ciphertext"))
			ok = t.has_ct = parse_value(v, t.ct, sizeof t.ct, &t.ct_len);
		else if (!strcmp(k, "NextIV"))
			ok = t.has_next_iv = parse_value(v, t.next_iv, sizeof t.next_iv, &t.next_iv_len);
		else if (!strcmp(k, "Operation"))
			t.op = !strcmp(v, "ENCRYPT") ? 1 : !strcmp(v, "DECRYPT") ? 0 : -1;
		else if (!strcmp(k, "Result"))
			snprintf(t.result, sizeof t.result, "%s", v);
		else
			t.skip = 1; /* AAD, Tag, CTSMode, ...: not a cipher this provider has */
		if (!ok) {
			fprintf(stderr, "%s:%d: bad value for %s\n", base, lineno, k);
			fclose(f);
			return 0;
		}
	}
	run_test(&t);
	fclose(f);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <module dir> [--ct] file...\n", argv[0]);
		return 2;
	}
	OSSL_PROVIDER_set_default_search_path(NULL, argv[1]);
	OSSL_PROVIDER *fb = OSSL_PROVIDER_load(NULL, "fastblock");
	OSSL_PROVIDER *def = OSSL_PROVIDER_load(NULL, "default");
	if (!fb || !def) {
		fprintf(stderr, "cannot load the fastblock provider from %s\n", argv[1]);
		ERR_print_errors_fp(stderr);
		return 1;
	}
	int i = 2;
	if (!strcmp(argv[i], "--ct")) {
		propq = "provider=fastblock,fastblock.ct=yes";
		i++;
	} else if (!strcmp(argv[i], "--propq") && i + 1 < argc) {
		propq = argv[i + 1]; /* e.g. provider=default: checks the runner */
		i += 2;
	}
	for (; i < argc; i++)
		if (!run_file(argv[i]))
			return 1;
	printf("evp_kat (%s): %d tests: %d passed, %d passed with a documented deviation, %d failed, "
	       "%d skipped (cipher not offered or FIPS only)\n",
	       propq, n_tests, n_pass, n_deviation, n_fail, n_skip);
	OSSL_PROVIDER_unload(fb);
	OSSL_PROVIDER_unload(def);
	return n_fail || n_pass == 0 ? 1 : 0;
}
