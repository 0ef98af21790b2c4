/*
 * evp_lib_kat.c - the library's own known-answer files (tests/vectors,
 * sources recorded in each record) through EVP with the fastblock provider
 * forced: the known answers for the ciphers OpenSSL has no test data for
 * (RC6, MARS, Twofish, Serpent) and again for DES, 3DES and AES.
 *
 *   evp_lib_kat <module dir> file...
 *
 * Every record that is not a Monte Carlo chain runs both ways, padding
 * off, as one update and as random splits with a copy of the context
 * (EVP_CIPHER_CTX_copy) made half way. Monte Carlo records are counted as
 * skipped (test_kat runs them through the C API). Exits 1 on any failure
 * or if nothing ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "kat_file.h"

static int n_pass, n_fail, n_skip;
static unsigned rs = 7;

static unsigned rnd(void)
{
	rs = rs * 1664525u + 1013904223u;
	return rs >> 8;
}

/* "Twofish-128" + "CFB128" -> "TWOFISH-128-CFB" */
static int evp_name(const kat_record *r, char *out, size_t cap)
{
	static const struct { const char *alg, *pre; } fam[] = {
		{ "TDES-2KEY", "DES-EDE" }, { "TDES-3KEY", "DES-EDE3" }, { "DES", "DES" },
	};
	const char *pre = r->alg;
	for (size_t i = 0; i < sizeof fam / sizeof fam[0]; i++)
		if (!strcmp(r->alg, fam[i].alg))
			pre = fam[i].pre;
	const char *m = r->mode;
	if (!strcmp(m, "CFB128") || !strcmp(m, "CFB64"))
		m = "CFB";
	int n = snprintf(out, cap, "%s-%s", pre, m);
	return n > 0 && (size_t)n < cap;
}

/* One direction; way 0: one update, way 1: random splits, copied half way. */
static int run(EVP_CIPHER *c, const kat_record *r, int enc, int way)
{
	const uint8_t *in = enc ? r->pt : r->ct, *want = enc ? r->ct : r->pt;
	size_t len = enc ? r->pt_len : r->ct_len;
	unsigned char out[600];
	int ok = 0, l = 0;
	size_t got = 0, pos = 0;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	if (!EVP_CipherInit_ex(x, c, NULL, r->key, r->iv_len ? r->iv : NULL, enc) || !EVP_CIPHER_CTX_set_padding(x, 0))
		goto done;
	while (pos < len) {
		size_t n = way ? 1 + rnd() % (len - pos) : len - pos;
		if (!EVP_CipherUpdate(x, out + got, &l, in + pos, (int)n))
			goto done;
		got += (size_t)l;
		pos += n;
		if (way && pos >= len / 2 && pos < len) { /* continue in a copy */
			EVP_CIPHER_CTX *y = EVP_CIPHER_CTX_new();
			if (!EVP_CIPHER_CTX_copy(y, x)) {
				EVP_CIPHER_CTX_free(y);
				goto done;
			}
			EVP_CIPHER_CTX_free(x);
			x = y;
			way = 0; /* once */
		}
	}
	if (!EVP_CipherFinal_ex(x, out + got, &l))
		goto done;
	got += (size_t)l;
	ok = got == len && !memcmp(out, want, len);
done:
	EVP_CIPHER_CTX_free(x);
	ERR_clear_error();
	return ok;
}

static int one(const kat_record *r, void *arg)
{
	(void)arg;
	char name[64];
	if (r->iterations || !evp_name(r, name, sizeof name) || r->pt_len != r->ct_len || r->pt_len > 512) {
		n_skip++;
		return 0;
	}
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, "provider=fastblock");
	if (!c || (size_t)EVP_CIPHER_get_key_length(c) != r->key_len) {
		fprintf(stderr, "FAIL line %d: %s not offered with a %zu-byte key\n", r->line, name, r->key_len);
		n_fail++;
		EVP_CIPHER_free(c);
		return 0;
	}
	int ok = 1;
	for (int enc = 1; enc >= 0; enc--)
		for (int way = 0; way < 2; way++)
			if (!run(c, r, enc, way)) {
				fprintf(stderr, "FAIL line %d: %s %s (%s)\n", r->line, name, enc ? "encrypt" : "decrypt",
					way ? "splits, copied" : "one update");
				ok = 0;
			}
	EVP_CIPHER_free(c);
	if (ok)
		n_pass++;
	else
		n_fail++;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s <module dir> file...\n", argv[0]);
		return 2;
	}
	OSSL_PROVIDER_set_default_search_path(NULL, argv[1]);
	OSSL_PROVIDER *fb = OSSL_PROVIDER_load(NULL, "fastblock");
	if (!fb) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	for (int i = 2; i < argc; i++)
		if (kat_read(argv[i], one, NULL) < 0) {
			fprintf(stderr, "cannot read %s\n", argv[i]);
			return 1;
		}
	printf("evp_lib_kat: %d records passed, %d failed, %d skipped (Monte Carlo)\n", n_pass, n_fail, n_skip);
	OSSL_PROVIDER_unload(fb);
	return n_fail || !n_pass ? 1 : 0;
}
