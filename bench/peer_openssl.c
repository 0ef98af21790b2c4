/*
 * peer_openssl.c - OpenSSL libcrypto through EVP, as applications use it.
 * Single DES lives in OpenSSL 3's legacy provider, loaded here together
 * with the default one. OpenSSL names its ciphers as fastblock does
 * ("des-ede3-cbc", "aes-128-xts"), so the name is looked up as is.
 */
#include "bench_peer.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
#include <openssl/provider.h>
#endif
#include <stdlib.h>

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
/* The providers this adapter loaded, unloaded at exit (before OpenSSL's
 * own clean-up, which was registered earlier) so leak checkers stay quiet. */
static OSSL_PROVIDER *prov_legacy, *prov_default;

static void unload_providers(void)
{
	if (prov_legacy)
		OSSL_PROVIDER_unload(prov_legacy);
	if (prov_default)
		OSSL_PROVIDER_unload(prov_default);
	prov_legacy = prov_default = NULL;
}
#endif

static void load_providers(void)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	/* Loading one provider explicitly turns off the implicit default, so
	 * both are loaded. */
	static int done;
	if (!done) {
		OPENSSL_init_crypto(0, NULL);
		prov_legacy = OSSL_PROVIDER_load(NULL, "legacy");
		prov_default = OSSL_PROVIDER_load(NULL, "default");
		atexit(unload_providers);
		done = 1;
	}
#endif
}

static const char *ossl_version(void)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	return OpenSSL_version(OPENSSL_VERSION_STRING);
#else
	return OpenSSL_version(OPENSSL_VERSION);
#endif
}

typedef struct ossl_handle {
	EVP_CIPHER_CTX *ctx;
	EVP_CIPHER *owned; /* fetched cipher (OpenSSL 3), freed on close */
} ossl_handle;

static void ossl_close(void *p)
{
	ossl_handle *h = p;
	if (!h)
		return;
	EVP_CIPHER_CTX_free(h->ctx);
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	EVP_CIPHER_free(h->owned);
#endif
	free(h);
}

static int ossl_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	ossl_handle *h = p;
	return EVP_CipherInit_ex(h->ctx, NULL, NULL, key, iv, -1) == 1 ? 0 : -1;
}

static void *ossl_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
		       unsigned streams, const char **impl)
{
	if (streams != 1)
		return NULL;
	load_providers();
	ossl_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	const EVP_CIPHER *c;
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	h->owned = EVP_CIPHER_fetch(NULL, a->name, NULL);
	c = h->owned;
#else
	c = EVP_get_cipherbyname(a->name);
#endif
	h->ctx = EVP_CIPHER_CTX_new();
	if (!c || !h->ctx || (size_t)EVP_CIPHER_key_length(c) != a->key_len ||
	    (size_t)EVP_CIPHER_iv_length(c) != a->iv_len ||
	    EVP_CipherInit_ex(h->ctx, c, NULL, key, iv, encrypt ? 1 : 0) != 1) {
		ossl_close(h);
		return NULL;
	}
	EVP_CIPHER_CTX_set_padding(h->ctx, 0);
	*impl = "EVP";
	return h;
}

static int ossl_crypt(void *p, uint8_t *buf, size_t len)
{
	ossl_handle *h = p;
	int outl = 0;
	if (len > (size_t)1 << 30)
		return -1;
	if (EVP_CipherUpdate(h->ctx, buf, &outl, buf, (int)len) != 1)
		return -1;
	return (size_t)outl == len ? 0 : -1;
}

const bench_peer bench_peer_openssl = {
	"openssl", ossl_version, 1, ossl_open, ossl_setkey, ossl_crypt, ossl_close,
};
