/*
 * test_diff_openssl.c - random differential tests of fastblock against
 * OpenSSL libcrypto (EVP) for every cipher name both libraries have
 * (des-*, des-ede-*, des-ede3-*, aes-*), for every implementation of the
 * family this CPU runs (the others are listed as SKIP).
 *
 * Per cipher and implementation (driver in test_util.h): random keys and
 * IVs (CTR counters near a 32-bit or a full wrap on purpose), every length
 * 0..100 and random lengths up to several KB plus lengths around the
 * kernel's natural batch; encryption and decryption; one-shot in place and
 * out of place at random alignments; streaming with every split into two
 * updates (lengths up to 100) or random splits into up to 12 pieces, in
 * place and out of place; padding PKCS#7 (default and explicit), none, and
 * ISO/IEC 9797-1 method 2 (reference: manual padding + OpenSSL without).
 *
 * Usage: test_diff_openssl [quick]
 *   FB_TEST_SEED=n replays a run; FB_QUICK=1 also means quick;
 *   FB_TEST_ONLY=s runs only cipher or implementation names containing s.
 */
#define TU_DIFF_DRIVER
#include "test_util.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

/* split_all, split_edge, dense, n_random, max_random, random_splits */
static const tu_params full_params = { 40, 100, 100, 24, 4200, 3 };
static const tu_params quick_params = { 12, 33, 33, 4, 1100, 1 };
/* Kernels with a wide batch (see tu_world.wide); CFB8 lighter still. */
static const tu_params wide_params = { 16, 64, 70, 12, 4200, 2 };
static const tu_params wide_cfb8_params = { 8, 17, 24, 3, 600, 1 };

/* The reference: OpenSSL in a single update (XTS needs the whole data
 * unit in one call). ISO 9797-1 M2 is padded here and run without
 * padding. */
static long ossl_encrypt(const tu_job *j, const uint8_t *key, const uint8_t *iv,
			 const uint8_t *in, size_t len, uint8_t *out)
{
	static uint8_t padded[TU_BUF_SIZE];
	const EVP_CIPHER *evp = (const EVP_CIPHER *)j->ref_data;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int pkcs7 = tu_padded_mode(j->mode) && (j->opt.padding == FB_PAD_DEFAULT ||
						  j->opt.padding == FB_PAD_PKCS7);
	int n1 = 0, n2 = 0, ok;

	if (tu_padded_mode(j->mode) && j->opt.padding == FB_PAD_ISO9797_M2) {
		size_t plen = (len / j->bs + 1) * j->bs;
		memcpy(padded, in, len);
		padded[len] = 0x80;
		memset(padded + len + 1, 0, plen - len - 1);
		in = padded;
		len = plen;
	}
	ok = x && EVP_CipherInit_ex2(x, evp, key, j->ivlen ? iv : NULL, 1, NULL);
	ok = ok && EVP_CIPHER_CTX_set_padding(x, pkcs7);
	ok = ok && EVP_CipherUpdate(x, out, &n1, in, (int)len);
	ok = ok && EVP_CipherFinal_ex(x, out + n1, &n2);
	EVP_CIPHER_CTX_free(x);
	if (!ok) {
		ERR_clear_error();
		return -1;
	}
	return (long)n1 + n2;
}

/* OpenSSL's idea of the cipher must match fastblock's (same name, same
 * sizes) or the comparison means nothing. */
static int same_shape(tu_stats *st, const fb_cipher *c, const EVP_CIPHER *evp)
{
	size_t bs = tu_padded_mode(fb_cipher_mode(c)) ? fb_cipher_block_size(c) : 1;
	return tu_check(st, (size_t)EVP_CIPHER_get_key_length(evp) == fb_cipher_key_len(c) &&
				    (size_t)EVP_CIPHER_get_iv_length(evp) == fb_cipher_iv_len(c) &&
				    (size_t)EVP_CIPHER_get_block_size(evp) == bs,
			"%s: OpenSSL key/IV/block sizes %d/%d/%d, fastblock %zu/%zu/%zu",
			fb_cipher_name(c), EVP_CIPHER_get_key_length(evp),
			EVP_CIPHER_get_iv_length(evp), EVP_CIPHER_get_block_size(evp),
			fb_cipher_key_len(c), fb_cipher_iv_len(c), fb_cipher_block_size(c));
}

int main(int argc, char **argv)
{
	const char *env = getenv("FB_QUICK");
	int quick = (argc > 1 && strcmp(argv[1], "quick") == 0) || (env && strcmp(env, "1") == 0);
	double t0 = tu_now();
	const fb_cipher *c;
	OSSL_PROVIDER *legacy, *dflt;
	tu_world w;
	tu_job j;
	size_t i;

	if (!tu_world_init(&w, quick ? &quick_params : &full_params)) {
		puts("out of memory");
		return 1;
	}
	w.wide = &wide_params;
	w.wide_cfb8 = &wide_cfb8_params;
	printf("test_diff_openssl: %s mode, seed %llu, CPU: %s\n", quick ? "quick" : "full",
	       (unsigned long long)w.st.seed, fb_cpu_description());
	/* Single DES lives in the legacy provider; loading a provider
	 * explicitly drops the implicit default one, so load both. */
	legacy = OSSL_PROVIDER_load(NULL, "legacy");
	dflt = OSSL_PROVIDER_load(NULL, "default");
	if (!dflt) {
		puts("cannot load the OpenSSL default provider");
		return 1;
	}
	if (!legacy)
		puts("NOTE: no OpenSSL legacy provider: single DES will be skipped");
	for (i = 0; (c = fb_cipher_at(i)) != NULL; i++) {
		EVP_CIPHER *evp = EVP_CIPHER_fetch(NULL, fb_cipher_name(c), NULL);
		if (!evp) {
			ERR_clear_error();
			printf("SKIP %s: OpenSSL lacks it\n", fb_cipher_name(c));
			tu_skip(&w.st, "cipher OpenSSL lacks");
			continue;
		}
		if (same_shape(&w.st, c, evp)) {
			tu_job_init(&j, c, ossl_encrypt, evp);
			tu_run_all_impls(&w, &j);
		}
		EVP_CIPHER_free(evp);
	}
	tu_world_free(&w);
	if (legacy)
		OSSL_PROVIDER_unload(legacy);
	OSSL_PROVIDER_unload(dflt);
	return tu_finish(&w.st, "test_diff_openssl", tu_now() - t0);
}
