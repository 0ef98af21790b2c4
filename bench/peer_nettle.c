/*
 * peer_nettle.c - GNU Nettle: its block ciphers through the generic mode
 * functions (cbc_*, cfb_*, cfb8_*, ctr_crypt, xts_*_message), which is how
 * Nettle is meant to be used. Nettle has no OFB, RC6 or MARS; Triple-DES
 * takes 24-byte keys, so 2-key Triple-DES is given as K1||K2||K1.
 * XTS in Nettle is one whole data unit per call.
 */
#include "bench_peer.h"

#include <nettle/cbc.h>
#include <nettle/cfb.h>
#include <nettle/ctr.h>
#include <nettle/des.h>
#include <nettle/nettle-meta.h>
#include <nettle/version.h>
#include <nettle/xts.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nt_version(void)
{
	static char v[24];
	snprintf(v, sizeof(v), "%d.%d", nettle_version_major(), nettle_version_minor());
	return v;
}

/* DES and Triple-DES are not in nettle-meta's table; wrappers give them
 * the generic shape. */
static void nt_des_key(void *ctx, const uint8_t *key) { (void)des_set_key(ctx, key); }
static void nt_des_enc(const void *ctx, size_t n, uint8_t *d, const uint8_t *s) { des_encrypt(ctx, n, d, s); }
static void nt_des_dec(const void *ctx, size_t n, uint8_t *d, const uint8_t *s) { des_decrypt(ctx, n, d, s); }
static void nt_des3_key(void *ctx, const uint8_t *key) { (void)des3_set_key(ctx, key); }
static void nt_des3_enc(const void *ctx, size_t n, uint8_t *d, const uint8_t *s) { des3_encrypt(ctx, n, d, s); }
static void nt_des3_dec(const void *ctx, size_t n, uint8_t *d, const uint8_t *s) { des3_decrypt(ctx, n, d, s); }

static const struct nettle_cipher nt_des = {
	"des", sizeof(struct des_ctx), 8, 8, nt_des_key, nt_des_key, nt_des_enc, nt_des_dec,
};
static const struct nettle_cipher nt_des3 = {
	"des3", sizeof(struct des3_ctx), 8, 24, nt_des3_key, nt_des3_key, nt_des3_enc, nt_des3_dec,
};

static const struct nettle_cipher *nt_cipher(const bench_alg *a)
{
	size_t k = a->mode == BM_XTS ? a->key_len / 2 : a->key_len;
	if (!strcmp(a->family, "des"))
		return k == 8 ? &nt_des : &nt_des3;
	if (!strcmp(a->family, "aes"))
		return k == 16 ? &nettle_aes128 : k == 24 ? &nettle_aes192 : &nettle_aes256;
	if (!strcmp(a->family, "twofish"))
		return k == 16 ? &nettle_twofish128 : k == 24 ? &nettle_twofish192 : &nettle_twofish256;
	if (!strcmp(a->family, "serpent"))
		return k == 16 ? &nettle_serpent128 : k == 24 ? &nettle_serpent192 : &nettle_serpent256;
	return NULL;
}

typedef struct nt_handle {
	const struct nettle_cipher *c;
	bench_alg alg;
	int encrypt;
	uint8_t iv[16];
	void *ctx;   /* the data key */
	void *twk;   /* XTS: the tweak key (always an encryption key) */
} nt_handle;

/* Only the modes whose one direction uses the inverse cipher need a decryption key. */
static int nt_uses_inverse(const nt_handle *h)
{
	return !h->encrypt && (h->alg.mode == BM_ECB || h->alg.mode == BM_CBC || h->alg.mode == BM_XTS);
}

static int nt_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	nt_handle *h = p;
	uint8_t k24[24];
	size_t half = h->alg.mode == BM_XTS ? h->alg.key_len / 2 : h->alg.key_len;
	if (h->c == &nt_des3 && half == 16) {
		bench_des_ede_key24(k24, key, 16);
		key = k24;
	}
	if (nt_uses_inverse(h))
		h->c->set_decrypt_key(h->ctx, key);
	else
		h->c->set_encrypt_key(h->ctx, key);
	if (h->alg.mode == BM_XTS)
		h->c->set_encrypt_key(h->twk, key + half);
	if (h->alg.iv_len)
		memcpy(h->iv, iv, h->alg.iv_len);
	return 0;
}

static void nt_close(void *p)
{
	nt_handle *h = p;
	if (!h)
		return;
	free(h->ctx);
	free(h);
}

static void *nt_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
		     unsigned streams, const char **impl)
{
	const struct nettle_cipher *c = nt_cipher(a);
	if (streams != 1 || !c || a->mode == BM_OFB || c->block_size != a->block)
		return NULL;
	if (a->mode == BM_XTS && a->block != 16)
		return NULL;
	nt_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->c = c;
	h->alg = *a;
	h->encrypt = encrypt;
	size_t sz = (c->context_size + 63) & ~(size_t)63;
	h->ctx = aligned_alloc(64, 2 * sz);
	if (!h->ctx) {
		free(h);
		return NULL;
	}
	h->twk = (uint8_t *)h->ctx + sz;
	nt_setkey(h, key, iv);
	*impl = "cbc/cfb/ctr/xts";
	return h;
}

static int nt_crypt(void *p, uint8_t *buf, size_t len)
{
	nt_handle *h = p;
	const struct nettle_cipher *c = h->c;
	size_t bs = c->block_size;
	switch (h->alg.mode) {
	case BM_ECB:
		(h->encrypt ? c->encrypt : c->decrypt)(h->ctx, len, buf, buf);
		return 0;
	case BM_CBC:
		if (h->encrypt)
			cbc_encrypt(h->ctx, c->encrypt, bs, h->iv, len, buf, buf);
		else
			cbc_decrypt(h->ctx, c->decrypt, bs, h->iv, len, buf, buf);
		return 0;
	case BM_CFB:
		(h->encrypt ? cfb_encrypt : cfb_decrypt)(h->ctx, c->encrypt, bs, h->iv, len, buf, buf);
		return 0;
	case BM_CFB8:
		(h->encrypt ? cfb8_encrypt : cfb8_decrypt)(h->ctx, c->encrypt, bs, h->iv, len, buf, buf);
		return 0;
	case BM_CTR:
		ctr_crypt(h->ctx, c->encrypt, bs, h->iv, len, buf, buf);
		return 0;
	case BM_XTS:
		if (h->encrypt)
			xts_encrypt_message(h->ctx, h->twk, c->encrypt, h->iv, len, buf, buf);
		else
			xts_decrypt_message(h->ctx, h->twk, c->decrypt, c->encrypt, h->iv, len, buf, buf);
		return 0;
	}
	return -1;
}

const bench_peer bench_peer_nettle = {
	"nettle", nt_version, 1, nt_open, nt_setkey, nt_crypt, nt_close,
};
