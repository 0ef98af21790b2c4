/*
 * fastblock_prov.c - an OpenSSL 3 provider that offers fastblock's ciphers
 * through EVP (see docs/provider.md).
 *
 * Built on the public API of include/fastblock.h, and for whole-block
 * updates and XTS units on fb_update_checked and fb_xts_unit_checked
 * (src/api_private.h), which skip the argument checks made here already.
 * The library does the block work; this file adds what EVP expects on
 * top of it:
 *   - ECB and CBC: EVP's own buffering and PKCS#7 padding (the library
 *     context runs with FB_PAD_NONE and is fed whole blocks only), with the
 *     last block held back on padded decryption, as OpenSSL does;
 *   - CFB, CFB8, OFB, CTR: the library streams any split; this file keeps
 *     the chaining value of the last whole block and the bytes of a partial
 *     one, which give "updated-iv" and let dupctx rebuild the stream;
 *   - XTS: every update is one data unit under the context's tweak, as in
 *     OpenSSL (a one-shot library call).
 * Constant-time-only contexts: the same algorithms again under the
 * property fastblock.ct=yes (where the library has a constant-time
 * implementation of the family on this CPU), or the context parameter
 * "fastblock-constant-time" = 1 before the key is set.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>
#include <openssl/proverr.h>
#include <openssl/rand.h>

#include "fastblock.h"
#include "api_private.h"

/* Context parameters of this provider (see docs/provider.md). */
#define FBP_PARAM_CT "fastblock-constant-time" /* int: 1 = constant-time kernels only */
#define FBP_PARAM_IMPL "fastblock-impl"        /* utf8: the kernel that runs */

/* ---- the algorithm table --------------------------------------------------- */

typedef struct fbp_alg {
	const char *names;   /* OpenSSL's name list */
	const char *fb_name; /* the library's name */
	size_t keylen, ivlen, blocksize;
	unsigned evp_mode;
	const fb_cipher *c;  /* filled in by fbp_check_table */
	const fb_cipher *ecb; /* the same cipher and key size in ECB */
	int ok, ct_ok;       /* offered; offered with fastblock.ct=yes */
	enum fb_mode mode;   /* c's mode, kept: every update asks for it */
} fbp_alg;

enum {
#define FBP(id, names, fbname, kl, il, bs, mode) FBP_IDX_##id,
#include "fbp_table.h"
#undef FBP
	FBP_NALG
};

static fbp_alg fbp_algs[FBP_NALG] = {
#define FBP(id, names, fbname, kl, il, bs, mode) { names, fbname, kl, il, bs, mode, NULL, NULL, 0, 0, FB_ECB },
#include "fbp_table.h"
#undef FBP
};

/* ---- the provider and its errors ---------------------------------------------- */

typedef struct fbp_prov {
	const OSSL_CORE_HANDLE *handle;
	OSSL_ALGORITHM *ciphers; /* the rows this instance offers */
} fbp_prov;

static OSSL_FUNC_core_new_error_fn *c_new_error;
static OSSL_FUNC_core_set_error_debug_fn *c_set_error_debug;
static OSSL_FUNC_core_vset_error_fn *c_vset_error;

/* Raises reason (a PROV_R_ code, so callers see the same reason as from
 * OpenSSL's own providers) in the provider's error library. */
static void fbp_raise_at(const fbp_prov *p, int reason, const char *file, int line,
			 const char *func, const char *fmt, ...)
{
	if (!p || !c_new_error || !c_vset_error)
		return;
	c_new_error(p->handle);
	if (c_set_error_debug)
		c_set_error_debug(p->handle, file, line, func);
	va_list ap;
	va_start(ap, fmt);
	c_vset_error(p->handle, reason, fmt, ap);
	va_end(ap);
}
#define FBP_RAISE(p, reason, ...) fbp_raise_at((p), (reason), __FILE__, __LINE__, __func__, __VA_ARGS__)

static const OSSL_ITEM fbp_reasons[] = {
	{ PROV_R_BAD_DECRYPT, "bad decrypt" },
	{ PROV_R_CIPHER_OPERATION_FAILED, "cipher operation failed" },
	{ PROV_R_FAILED_TO_GET_PARAMETER, "failed to get parameter" },
	{ PROV_R_FAILED_TO_SET_PARAMETER, "failed to set parameter" },
	{ PROV_R_INVALID_IV_LENGTH, "invalid iv length" },
	{ PROV_R_INVALID_KEY_LENGTH, "invalid key length" },
	{ PROV_R_NO_KEY_SET, "no key set" },
	{ PROV_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small" },
	{ PROV_R_WRONG_FINAL_BLOCK_LENGTH, "wrong final block length" },
	{ PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE, "xts data unit is too large" },
	{ PROV_R_XTS_DUPLICATED_KEYS, "xts duplicated keys" },
	{ PROV_R_INVALID_DATA, "invalid data" },
	{ 0, NULL }
};

/* ---- the cipher context ---------------------------------------------------- */

typedef struct fbp_ctx {
	fbp_prov *prov;
	const fbp_alg *alg;
	fb_ctx *fb;         /* the library context */
	int enc;            /* 1 encrypt, 0 decrypt */
	int ct;             /* constant-time kernels only */
	int pad;            /* EVP padding (ECB, CBC) */
	int key_set, ready; /* a key was given; fb is set up for key+chain */
	unsigned bs;        /* the cipher's block size */
	uint8_t key[64];
	uint8_t oiv[16];    /* the IV given at init ("iv") */
	uint8_t chain[16];  /* CBC, CFB, OFB, CFB8: the value after the last whole
			     * block; CTR: the counter of the current block */
	uint8_t buf[16];    /* ECB, CBC: a partial or held-back block */
	size_t buf_len;
	uint8_t pin[16], pout[16]; /* byte streams: the current partial block */
	size_t num;         /* bytes of it done */
	uint8_t upd_iv[16]; /* where "updated-iv" is put together */
	int tls_version;    /* CBC under libssl: one TLS record per update */
	size_t tls_mac_size;
	uint8_t tls_mac[64]; /* the MAC taken off the last decrypted record */
	int direct;         /* FBP_DIRECT_*: what fbp_direct_update last found */
} fbp_ctx;

/* How an update goes straight to the library: whole blocks of ECB and
 * CBC with nothing buffered (fbp_whole_blocks), any bytes of CTR
 * (fbp_update_ctr). None while not ready, under TLS, in CFB, CFB8, OFB
 * and XTS, and for a decryption that keeps its last block back for the
 * padding. One load on the short path instead of five tests of the state
 * behind it. */
enum { FBP_DIRECT_NONE, FBP_DIRECT_ECB, FBP_DIRECT_CBC_ENC, FBP_DIRECT_CBC_DEC, FBP_DIRECT_CTR };

static int is_blockwise(const fbp_ctx *x)
{
	return x->alg->evp_mode == EVP_CIPH_ECB_MODE || x->alg->evp_mode == EVP_CIPH_CBC_MODE;
}

static enum fb_mode fbmode(const fbp_ctx *x)
{
	return x->alg->mode;
}

/* x->direct from ready, tls_version, enc and pad: called after any of them changes. */
static void fbp_direct_update(fbp_ctx *x)
{
	x->direct = FBP_DIRECT_NONE;
	if (x->ready && !x->tls_version && fbmode(x) == FB_CTR)
		x->direct = FBP_DIRECT_CTR;
	if (!x->ready || x->tls_version || !is_blockwise(x) || (!x->enc && x->pad))
		return;
	if (fbmode(x) == FB_ECB)
		x->direct = FBP_DIRECT_ECB;
	else
		x->direct = x->enc ? FBP_DIRECT_CBC_ENC : FBP_DIRECT_CBC_DEC;
}

static const char *fb_errname(int rc)
{
	return fb_strerror(rc);
}

/* (Re)initialises the library context from key, direction and chain. */
static int fbp_setup(fbp_ctx *x)
{
	fb_options opt = { FB_PAD_NONE, x->ct ? FB_FLAG_CONSTANT_TIME : 0u, NULL };
	enum fb_direction dir = x->enc ? FB_ENCRYPT : FB_DECRYPT;
	int rc = x->fb ? fb_init(x->fb, x->alg->c, dir, x->key, x->alg->keylen,
				 x->alg->ivlen ? x->chain : NULL, x->alg->ivlen, &opt)
		       : FB_ERR_CTX_SIZE;
	if (rc == FB_ERR_CTX_SIZE) { /* none yet, or one sized for the other direction */
		fb_ctx_free(x->fb);
		x->fb = fb_ctx_new_for(x->alg->c, dir, &opt);
		rc = x->fb ? fb_init(x->fb, x->alg->c, dir, x->key, x->alg->keylen,
				     x->alg->ivlen ? x->chain : NULL, x->alg->ivlen, &opt)
			   : FB_ERR_ARGUMENT;
	}
	if (rc != FB_OK) {
		x->ready = 0;
		fbp_direct_update(x);
		FBP_RAISE(x->prov, rc == FB_ERR_KEY_LENGTH ? PROV_R_INVALID_KEY_LENGTH : PROV_R_CIPHER_OPERATION_FAILED,
			  "%s: %s", x->alg->fb_name, fb_errname(rc));
		return 0;
	}
	x->ready = 1;
	fbp_direct_update(x);
	return 1;
}

static fbp_ctx *fbp_newctx_common(void *provctx, const fbp_alg *alg, int ct)
{
	fbp_ctx *x = OPENSSL_zalloc(sizeof *x);
	if (!x)
		return NULL;
	x->prov = provctx;
	x->alg = alg;
	x->ct = ct;
	x->pad = 1;
	x->enc = 1;
	x->bs = (unsigned)fb_cipher_block_size(alg->c);
	/* The library context comes with the key and direction, sized for
	 * them (fbp_setup). XTS too: its context is set up with each key (which
	 * checks the key and names the kernel), though updates are one-shot
	 * calls. */
	return x;
}

static void fbp_freectx(void *vx)
{
	fbp_ctx *x = vx;
	if (!x)
		return;
	fb_ctx_free(x->fb); /* wipes */
	OPENSSL_clear_free(x, sizeof *x);
}

/* Feeds n bytes through a copy of the context, discarding the output: how
 * dupctx brings a rebuilt byte stream to mid-block. */
static int fbp_replay(fbp_ctx *x, const uint8_t *in, size_t n)
{
	uint8_t junk[16];
	size_t got;
	return n == 0 || fb_update(x->fb, junk, sizeof junk, &got, in, n) == FB_OK;
}

static void *fbp_dupctx(void *vx)
{
	const fbp_ctx *x = vx;
	fbp_ctx *d = OPENSSL_malloc(sizeof *d);
	if (!d)
		return NULL;
	*d = *x;
	d->fb = NULL;
	if (x->ready && (!fbp_setup(d) || !fbp_replay(d, d->pin, d->num))) {
		fbp_freectx(d);
		return NULL;
	}
	return d;
}

/* ---- parameters ------------------------------------------------------------- */

static int is_des(const fbp_alg *a)
{
	return !strcmp(fb_cipher_family(a->c), "des");
}

static int fbp_get_params_common(const fbp_alg *a, OSSL_PARAM params[])
{
	OSSL_PARAM *p;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) && !OSSL_PARAM_set_uint(p, a->evp_mode))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, a->keylen))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, a->ivlen))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) &&
	    !OSSL_PARAM_set_size_t(p, a->blocksize))
		return 0;
	/* DES keys come from the library's generator (odd parity, no weak or
	 * semi-weak part, no two equal parts), as OpenSSL's DES has its own */
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) &&
	    !OSSL_PARAM_set_int(p, is_des(a)))
		return 0;
	static const char *const zero_flags[] = {
		OSSL_CIPHER_PARAM_AEAD, OSSL_CIPHER_PARAM_CUSTOM_IV, OSSL_CIPHER_PARAM_CTS,
		OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK,
	};
	for (size_t i = 0; i < sizeof zero_flags / sizeof zero_flags[0]; i++)
		if ((p = OSSL_PARAM_locate(params, zero_flags[i])) && !OSSL_PARAM_set_int(p, 0))
			return 0;
	return 1;
}

static const OSSL_PARAM fbp_gettable_params_list[] = {
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
	OSSL_PARAM_END
};

static const OSSL_PARAM *fbp_gettable_params(void *provctx)
{
	(void)provctx;
	return fbp_gettable_params_list;
}

static const OSSL_PARAM fbp_gettable_ctx_list[] = {
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
	OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
	OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
	OSSL_PARAM_int(FBP_PARAM_CT, NULL),
	OSSL_PARAM_utf8_ptr(FBP_PARAM_IMPL, NULL, 0),
	OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_RANDOM_KEY, NULL, 0),
	OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *fbp_gettable_ctx_params(void *vx, void *provctx)
{
	(void)vx;
	(void)provctx;
	return fbp_gettable_ctx_list;
}

static const OSSL_PARAM fbp_settable_ctx_list[] = {
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
	OSSL_PARAM_int(FBP_PARAM_CT, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
	OSSL_PARAM_END
};

static const OSSL_PARAM *fbp_settable_ctx_params(void *vx, void *provctx)
{
	(void)vx;
	(void)provctx;
	return fbp_settable_ctx_list;
}

/* Adds k to a big-endian counter of n bytes. */
static void ctr_add(uint8_t *ctr, unsigned n, uint64_t k)
{
	for (unsigned i = n; i-- > 0 && k;) {
		uint64_t s = (uint64_t)ctr[i] + (k & 0xff);
		ctr[i] = (uint8_t)s;
		k = (k >> 8) + (s >> 8);
	}
}

/* ctr_add for n = 8 or 16: the low 64 bits in one addition, and the
 * byte loop only for a carry out of them (every 2^64 blocks). */
static inline void ctr_add_fast(uint8_t *ctr, unsigned n, uint64_t k)
{
	uint64_t lo;
	memcpy(&lo, ctr + n - 8, 8);
	uint64_t s = __builtin_bswap64(__builtin_bswap64(lo) + k);
	memcpy(ctr + n - 8, &s, 8);
	if (__builtin_expect(__builtin_bswap64(s) < k, 0))
		ctr_add(ctr, n - 8, 1);
}

/* E(K, chain): the keystream block of a partial CFB or OFB block. */
static int fbp_keystream(const fbp_ctx *x, uint8_t *ks)
{
	fb_options opt = { FB_PAD_NONE, x->ct ? FB_FLAG_CONSTANT_TIME : 0u, NULL };
	size_t got;
	return fb_encrypt(x->alg->ecb, x->key, x->alg->keylen, NULL, 0, x->chain, x->bs, ks, 16, &got,
			  &opt) == FB_OK;
}

/* The IV as OpenSSL's own modes leave it: what a new context started
 * with it would continue from (mid-block for CFB, OFB and CTR as OpenSSL
 * keeps it there). */
static int fbp_updated_iv(fbp_ctx *x)
{
	unsigned bs = x->bs;
	memcpy(x->upd_iv, x->chain, bs);
	if (!x->num || !x->key_set)
		return 1;
	switch (fbmode(x)) {
	case FB_CTR:
		ctr_add(x->upd_iv, bs, 1);
		return 1;
	case FB_OFB:
		return fbp_keystream(x, x->upd_iv);
	case FB_CFB:
		if (!fbp_keystream(x, x->upd_iv))
			return 0;
		memcpy(x->upd_iv, x->enc ? x->pout : x->pin, x->num);
		return 1;
	default:
		return 1;
	}
}

static int set_octets(OSSL_PARAM *p, const void *v, size_t n)
{
	return OSSL_PARAM_set_octet_ptr(p, v, n) || OSSL_PARAM_set_octet_string(p, v, n);
}

static int fbp_get_ctx_params(void *vx, OSSL_PARAM params[])
{
	fbp_ctx *x = vx;
	OSSL_PARAM *p;
	const fbp_alg *a = x->alg;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, a->keylen))
		goto fail;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, a->ivlen))
		goto fail;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) && !OSSL_PARAM_set_uint(p, (unsigned)x->pad))
		goto fail;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) && !OSSL_PARAM_set_uint(p, (unsigned)x->num))
		goto fail;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV))) {
		if (!a->ivlen || p->data_size < a->ivlen || !set_octets(p, x->oiv, a->ivlen))
			goto fail;
	}
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV))) {
		if (!a->ivlen || p->data_size < a->ivlen || !fbp_updated_iv(x) ||
		    !set_octets(p, x->upd_iv, a->ivlen))
			goto fail;
	}
	if ((p = OSSL_PARAM_locate(params, FBP_PARAM_CT)) && !OSSL_PARAM_set_int(p, x->ct))
		goto fail;
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS_MAC))) {
		if (!x->tls_version || !OSSL_PARAM_set_octet_ptr(p, x->tls_mac, x->tls_mac_size))
			goto fail;
	}
	if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_RANDOM_KEY))) {
		/* EVP_CIPHER_CTX_rand_key passes size 0 for a buffer of the
		 * key length (EVP_CTRL_RAND_KEY has no size) */
		if (!is_des(a) || p->data_type != OSSL_PARAM_OCTET_STRING ||
		    (p->data_size && p->data_size < a->keylen) ||
		    fb_des_random_key(p->data, a->keylen) != FB_OK)
			goto fail;
		p->return_size = a->keylen;
	}
	if ((p = OSSL_PARAM_locate(params, FBP_PARAM_IMPL))) {
		const char *impl = NULL;
		if (x->fb && x->ready)
			impl = fb_ctx_impl(x->fb);
		if (!OSSL_PARAM_set_utf8_ptr(p, impl ? impl : "") &&
		    !OSSL_PARAM_set_utf8_string(p, impl ? impl : ""))
			goto fail;
	}
	return 1;
fail:
	FBP_RAISE(x->prov, PROV_R_FAILED_TO_GET_PARAMETER, "%s", p ? p->key : "");
	return 0;
}

static int fbp_set_params_of(fbp_ctx *x, const OSSL_PARAM params[])
{
	const OSSL_PARAM *p;
	if (!params)
		return 1;
	if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING))) {
		unsigned v;
		if (!OSSL_PARAM_get_uint(p, &v))
			goto fail;
		x->pad = v != 0;
	}
	if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION))) {
		int v;
		/* CBC records of TLS 1.0-1.2 and DTLS; not SSL 3 (OpenSSL 3
		 * builds normally leave it out too) */
		if (!OSSL_PARAM_get_int(p, &v) || fbmode(x) != FB_CBC ||
		    (v != TLS1_VERSION && v != TLS1_1_VERSION && v != TLS1_2_VERSION && v != DTLS1_VERSION &&
		     v != DTLS1_2_VERSION && v != DTLS1_BAD_VER))
			goto fail;
		x->tls_version = v;
	}
	if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE))) {
		size_t v;
		if (!OSSL_PARAM_get_size_t(p, &v) || v > sizeof x->tls_mac)
			goto fail;
		x->tls_mac_size = v;
	}
	if ((p = OSSL_PARAM_locate_const(params, FBP_PARAM_CT))) {
		int v;
		if (!OSSL_PARAM_get_int(p, &v))
			goto fail;
		if ((v != 0) != x->ct) {
			x->ct = v != 0;
			if (x->ready && !fbp_setup(x)) /* no partial state survives a kernel change */
				return 0;
			x->buf_len = 0;
			x->num = 0;
		}
	}
	return 1;
fail:
	FBP_RAISE(x->prov, PROV_R_FAILED_TO_SET_PARAMETER, "%s", p->key);
	return 0;
}

static int fbp_set_ctx_params(void *vx, const OSSL_PARAM params[])
{
	fbp_ctx *x = vx;
	int ok = fbp_set_params_of(x, params);
	fbp_direct_update(x); /* padding or TLS may have changed, even in a call that failed later */
	return ok;
}

/* ---- init ---------------------------------------------------------------------- */

static int fbp_init(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
		    size_t ivlen, const OSSL_PARAM params[], int enc)
{
	fbp_ctx *x = vx;
	const fbp_alg *a = x->alg;
	x->enc = enc;
	if (!fbp_set_ctx_params(x, params))
		return 0;
	if (iv && a->ivlen) {
		if (ivlen != a->ivlen) {
			FBP_RAISE(x->prov, PROV_R_INVALID_IV_LENGTH, "%zu", ivlen);
			return 0;
		}
		memcpy(x->oiv, iv, a->ivlen);
	}
	if (key) {
		if (keylen != a->keylen) {
			FBP_RAISE(x->prov, PROV_R_INVALID_KEY_LENGTH, "%zu", keylen);
			return 0;
		}
		if (fbmode(x) == FB_XTS && CRYPTO_memcmp(key, key + keylen / 2, keylen / 2) == 0) {
			FBP_RAISE(x->prov, PROV_R_XTS_DUPLICATED_KEYS, "");
			return 0;
		}
		memcpy(x->key, key, keylen);
		x->key_set = 1;
	}
	/* Every init starts a new message from the IV last given (OpenSSL
	 * resets CBC, CFB and OFB to it; CTR likewise here). */
	memcpy(x->chain, x->oiv, sizeof x->chain);
	x->buf_len = 0;
	x->num = 0;
	x->ready = 0;
	fbp_direct_update(x);
	return x->key_set ? fbp_setup(x) : 1;
}

static int fbp_einit(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
		     size_t ivlen, const OSSL_PARAM params[])
{
	return fbp_init(vx, key, keylen, iv, ivlen, params, 1);
}

static int fbp_dinit(void *vx, const unsigned char *key, size_t keylen, const unsigned char *iv,
		     size_t ivlen, const OSSL_PARAM params[])
{
	return fbp_init(vx, key, keylen, iv, ivlen, params, 0);
}

/* ---- update -------------------------------------------------------------------- */

/* Copies of a block or less on the per-call path: the block sizes as
 * fixed-size moves, not calls into memcpy. */
static inline void blk_copy(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n == 16)
		memcpy(d, s, 16);
	else if (n == 8)
		memcpy(d, s, 8);
	else
		memcpy(d, s, n);
}

/* A chaining value of bs (8 or 16) bytes: two fixed moves and no libc
 * fallback, whose call would give a caller's short path register saves. */
static inline void chain_copy(uint8_t *d, const uint8_t *s, unsigned bs)
{
	if (bs == 16)
		memcpy(d, s, 16);
	else
		memcpy(d, s, 8);
}

/* Zeroes a 16-byte scratch block; the empty asm makes the compiler keep
 * the stores (it must assume they are read). */
static inline void wipe_block(uint8_t b[16])
{
	memset(b, 0, 16);
	__asm__ volatile("" : : "r"(b) : "memory");
}

/* A library call on whole blocks failed (none can once the arguments are
 * checked): raised out of line, so that the short path needs no frame. */
static __attribute__((noinline, cold)) int fbp_blocks_failed(fbp_ctx *x, int rc)
{
	FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "%s", fb_errname(rc));
	return 0;
}

/* Whole blocks through the library context, *got = n; CBC's chain
 * follows. in and out are equal or disjoint. */
static inline __attribute__((always_inline)) int fbp_blocks(fbp_ctx *x, uint8_t *out, const uint8_t *in, size_t n, size_t *got)
{
	unsigned bs = x->bs;
	*got = 0;
	if (!n)
		return 1;
	int cbc = fbmode(x) == FB_CBC;
	if (cbc && !x->enc) /* before an in-place call overwrites it */
		chain_copy(x->chain, in + n - bs, bs);
	int rc = fb_update(x->fb, out, n, got, in, n);
	if (rc != FB_OK)
		return fbp_blocks_failed(x, rc);
	if (cbc && x->enc)
		chain_copy(x->chain, out + n - bs, bs);
	return 1;
}

/* CBC encryption's whole blocks: the chain is read back after the call. */
static __attribute__((noinline)) int fbp_cbc_enc_blocks(fbp_ctx *x, uint8_t *out, const uint8_t *in, size_t n,
							size_t *got)
{
	return fbp_blocks(x, out, in, n, got);
}

/* fbp_update's whole-block path (n > 0, x->direct), a tail call from
 * it. Only x stays live across the library call, so the frame is one
 * register: CBC encryption, which reads its output back, goes apart. */
static __attribute__((noinline)) int fbp_whole_blocks(fbp_ctx *x, uint8_t *out, const uint8_t *in, size_t n,
						      size_t *got)
{
	if (x->direct == FBP_DIRECT_CBC_ENC)
		return fbp_cbc_enc_blocks(x, out, in, n, got);
	if (x->direct == FBP_DIRECT_CBC_DEC) /* before an in-place call overwrites it */
		chain_copy(x->chain, in + n - x->bs, x->bs);
	int rc = fb_update_checked(x->fb, out, in, n, got); /* fbp_update checked room and overlap */
	return rc == FB_OK ? 1 : fbp_blocks_failed(x, rc);
}

static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
	return an && bn && pa < pb + bn && pb < pa + an;
}

/* Up to this many body bytes are copied behind a buffered block so that
 * both go through the library in one call: a call costs about 200
 * instructions, a 1 KB copy about 40. */
#define FBP_JOIN_MAX 1024

/* ECB and CBC decryption with padding, whole blocks in, out equal to in
 * or apart from it, and a whole block or nothing held from the call
 * before: the last block stays back for final, and the held one goes
 * first. */
static __attribute__((noinline)) int fbp_update_held(fbp_ctx *x, uint8_t *out, size_t *outl,
						     const uint8_t *in, size_t inl)
{
	unsigned bs = x->bs;
	uint8_t keep[16];
	int ok;
	blk_copy(keep, in + inl - bs, bs); /* before out may overwrite it */
	if (!x->buf_len) {
		ok = fbp_blocks(x, out, in, inl - bs, outl);
	} else {
		/* The held block and all but the last input block, in one
		 * library call: the input moves up a block behind the held one. */
		if (inl > bs)
			memmove(out + bs, in, inl - bs);
		blk_copy(out, x->buf, bs);
		ok = fbp_blocks(x, out, out, inl, outl);
	}
	blk_copy(x->buf, keep, bs);
	x->buf_len = bs;
	wipe_block(keep);
	return ok;
}

/* ECB and CBC with EVP's buffering. */
static int fbp_update_blockwise(fbp_ctx *x, uint8_t *out, size_t *outl, size_t outsize,
				const uint8_t *in, size_t inl)
{
	unsigned bs = x->bs;
	size_t got, total = x->buf_len + inl;
	size_t nout = total & ~(size_t)(bs - 1); /* bs is 8 or 16: no division per call */
	if (!x->enc && x->pad && nout && total == nout)
		nout -= bs; /* the block that may carry the padding waits for final */
	if (nout > outsize) {
		FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
		return 0;
	}
	*outl = nout;
	if (!nout) {
		memcpy(x->buf + x->buf_len, in, inl);
		x->buf_len += inl;
		return 1;
	}
	size_t used = 0;
	if (x->buf_len) {
		used = bs - x->buf_len;
		memcpy(x->buf + x->buf_len, in, used);
	}
	size_t body = nout - (x->buf_len ? bs : 0);
	const uint8_t *src = in + used;
	uint8_t *dst = out + (x->buf_len ? bs : 0);
	size_t rest = inl - used - body;
	uint8_t keep[16];
	blk_copy(keep, in + inl - rest, rest); /* before out may overwrite it */
	/* Output that lags or leads the input (a buffered block, a held one)
	 * over the same memory (a decryption held back for padding, in place:
	 * every call): the body moves to its place and runs in place there.
	 * The buffered block goes to out[0, bs), before dst. */
	int lag = body && src != dst && overlaps(dst, body, src, inl - used);
	int ok;
	if (x->buf_len && (lag || body <= FBP_JOIN_MAX)) {
		/* One library call for the buffered block and the body: the body
		 * goes behind the block in out (a short copy, or the move a
		 * lagging in-place call needs anyway). */
		if (body)
			memmove(dst, src, body);
		blk_copy(out, x->buf, bs);
		ok = fbp_blocks(x, out, out, bs + body, &got);
	} else {
		if (lag) {
			memmove(dst, src, body);
			src = dst;
		}
		ok = !x->buf_len || fbp_blocks(x, out, x->buf, bs, &got);
		ok = ok && fbp_blocks(x, dst, src, body, &got);
	}
	if (!ok)
		return 0;
	blk_copy(x->buf, keep, rest);
	x->buf_len = rest;
	wipe_block(keep);
	return 1;
}

/* A whole block of a byte stream is done: the chain moves on. */
static void fbp_block_done(fbp_ctx *x, const uint8_t *in, const uint8_t *out)
{
	unsigned bs = x->bs;
	switch (fbmode(x)) {
	case FB_CFB:
		chain_copy(x->chain, x->enc ? out : in, bs);
		break;
	case FB_OFB:
		for (unsigned i = 0; i < bs; i++)
			x->chain[i] = in[i] ^ out[i];
		break;
	default:
		break;
	}
}

/* CTR: the chain is the counter of the current block and num the bytes
 * used of it. No input is kept: dupctx's replay of num bytes only moves
 * the keystream position, whatever the bytes, so CTR needs none of the
 * copies the other modes make (a 16-byte EVP update is ~70 instructions
 * shorter for it). */
static int fbp_update_ctr(fbp_ctx *x, uint8_t *out, const uint8_t *in, size_t inl, size_t *outl)
{
	size_t got;
	int rc = fb_update_checked(x->fb, out, in, inl, &got); /* the callers checked room and overlap */
	if (rc != FB_OK || got != inl)
		return fbp_blocks_failed(x, rc);
	*outl = inl;
	size_t t = x->num + inl;
	x->num = t & (x->bs - 1);
	ctr_add_fast(x->chain, x->bs, t >> (x->bs == 16 ? 4 : 3));
	return 1;
}

/* CFB, CFB8, OFB, CTR: the library streams; the chain and the partial
 * block are followed here (CTR's in fbp_update_ctr). */
static int fbp_update_stream(fbp_ctx *x, uint8_t *out, size_t *outl, size_t outsize,
			     const uint8_t *in, size_t inl)
{
	unsigned bs = x->bs;
	if (inl > outsize) {
		FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
		return 0;
	}
	*outl = inl;
	if (!inl)
		return 1;
	uint8_t *tmp = NULL;
	if (in != out && overlaps(out, inl, in, inl)) {
		if (!(tmp = OPENSSL_malloc(inl)))
			return 0;
		memcpy(tmp, in, inl);
		in = tmp;
	}
	if (fbmode(x) == FB_CTR) {
		int ok = fbp_update_ctr(x, out, in, inl, outl);
		if (tmp)
			OPENSSL_clear_free(tmp, inl);
		return ok;
	}
	/* The input bytes the bookkeeping needs, saved before an in-place
	 * call overwrites them: the head that completes a partial block, and
	 * the last whole block with the tail after it. */
	size_t head = 0, full, tail, tstart;
	uint8_t hin[16], tin[32];
	if (fbmode(x) == FB_CFB8) {
		head = 0;
		tstart = inl > bs ? inl - bs : 0;
		full = tail = 0;
	} else {
		if (x->num)
			head = inl < bs - x->num ? inl : bs - x->num;
		full = (inl - head) >> (bs == 16 ? 4 : 3);
		tail = (inl - head) & (bs - 1);
		tstart = full ? head + (full - 1) * bs : inl - tail;
	}
	memcpy(hin, in, head);
	memcpy(tin, in + tstart, inl - tstart);
	size_t got;
	int rc = fb_update(x->fb, out, outsize, &got, in, inl);
	if (tmp)
		OPENSSL_clear_free(tmp, inl);
	if (rc != FB_OK || got != inl) {
		FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "%s", fb_errname(rc));
		return 0;
	}
	if (fbmode(x) == FB_CFB8) {
		const uint8_t *ct = x->enc ? out + tstart : tin; /* the last ciphertext bytes */
		size_t k = inl - tstart;
		memmove(x->chain, x->chain + k, bs - k);
		memcpy(x->chain + bs - k, ct, k);
		return 1;
	}
	if (head) {
		memcpy(x->pin + x->num, hin, head);
		memcpy(x->pout + x->num, out, head);
		x->num += head;
		if (x->num == bs) {
			fbp_block_done(x, x->pin, x->pout);
			x->num = 0;
		}
	}
	if (full)
		fbp_block_done(x, tin, out + tstart);
	if (tail) {
		memcpy(x->pin, tin + (inl - tail - tstart), tail);
		memcpy(x->pout, out + inl - tail, tail);
		x->num = tail;
	}
	return 1;
}

/* XTS: each call is one data unit under the context's tweak. Out of line
 * (a tail call from fbp_update): its eight-argument library call needs a
 * frame, which fbp_update's other short paths then do not pay. */
static __attribute__((noinline)) int fbp_update_xts(fbp_ctx *x, uint8_t *out, size_t *outl, size_t outsize, const uint8_t *in,
				 size_t inl)
{
	if (inl < 16) {
		FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "XTS needs at least 16 bytes");
		return 0;
	}
	if (inl > ((size_t)1 << 24)) { /* 2^20 blocks, as IEEE 1619 and OpenSSL limit */
		FBP_RAISE(x->prov, PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE, "");
		return 0;
	}
	if (inl > outsize) {
		FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
		return 0;
	}
	/* The context was keyed by fbp_setup: only the tweak is new. */
	int rc = fb_xts_unit_checked(x->fb, x->oiv, in, inl, out, outl);
	if (rc != FB_OK) {
		FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "%s", fb_errname(rc));
		return 0;
	}
	return 1;
}

/* ---- TLS records (libssl's CBC cipher suites) --------------------------------
 * With "tls-version" set, libssl hands over one whole record per update, in
 * place. Encryption appends the TLS padding; decryption takes off the
 * explicit IV (TLS 1.1 and later), the padding and the MAC, and keeps the
 * MAC for "tls-mac". The padding and MAC positions depend on the secret
 * last byte, so that part runs in constant time: a bad padding removes
 * nothing and gives a random MAC, which libssl's own constant-time MAC
 * check then refuses (a bad_record_mac alert, no padding oracle). */

static size_t ct_msb(size_t a)
{
	return (size_t)0 - (a >> (sizeof a * 8 - 1));
}
static size_t ct_lt(size_t a, size_t b) /* all ones if a < b */
{
	return ct_msb(a ^ ((a ^ b) | ((a - b) ^ b)));
}
static size_t ct_ge(size_t a, size_t b)
{
	return ~ct_lt(a, b);
}
static size_t ct_eq(size_t a, size_t b)
{
	size_t d = a ^ b;
	return ct_msb(~d & (d - 1));
}

/* rec, *len: the record after the explicit IV. Returns 0 if it is
 * publicly invalid (too short). */
static int tls_unpad(fbp_ctx *x, const uint8_t *rec, size_t *len)
{
	size_t n = *len, orig = n, mac = x->tls_mac_size;
	if (n < mac + 1)
		return 0;
	size_t pad = rec[n - 1];
	size_t good = ct_ge(n, mac + 1 + pad);
	size_t check = n < 256 ? n : 256;
	for (size_t i = 0; i < check; i++) {
		size_t in_pad = ct_ge(pad, i); /* i <= pad */
		good &= ~(in_pad & ~ct_eq(rec[n - 1 - i], pad));
	}
	n -= good & (pad + 1);
	if (mac == 0) { /* encrypt-then-MAC: the MAC was checked before */
		*len = n;
		return (int)(good & 1);
	}
	/* The MAC is rec[n - mac, n): gather it from the last mac + 256 bytes
	 * into a rotated copy, then rotate it back, touching every byte. */
	size_t mac_start = n - mac, scan = orig > mac + 256 ? orig - (mac + 256) : 0;
	uint8_t rot[64] = { 0 }, rnd[64];
	size_t offset = 0, j = 0;
	for (size_t i = scan; i < orig; i++) {
		size_t in_mac = ct_ge(i, mac_start) & ct_lt(i, n);
		offset |= j & ct_eq(i, mac_start);
		rot[j] |= (uint8_t)(rec[i] & in_mac);
		if (++j == mac)
			j = 0;
	}
	if (RAND_bytes(rnd, (int)mac) <= 0)
		return 0;
	for (size_t k = 0; k < mac; k++) {
		size_t t = offset + k;
		t -= mac & ct_ge(t, mac);
		uint8_t b = 0;
		for (size_t jj = 0; jj < mac; jj++)
			b |= (uint8_t)(rot[jj] & ct_eq(jj, t));
		x->tls_mac[k] = (uint8_t)((b & good) | (rnd[k] & ~good));
	}
	*len = n - mac;
	return 1;
}

static int fbp_update_tls(fbp_ctx *x, uint8_t *out, size_t *outl, size_t outsize, const uint8_t *in, size_t inl)
{
	unsigned bs = x->bs;
	size_t got;
	if (!in || in != out || outsize < inl || !x->pad || x->buf_len) {
		FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "");
		return 0;
	}
	if (x->enc) {
		size_t padnum = bs - inl % bs;
		if (outsize < inl + padnum) {
			FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
			return 0;
		}
		memset(out + inl, (int)(padnum - 1), padnum);
		inl += padnum;
	}
	if (inl % bs || !inl) {
		FBP_RAISE(x->prov, PROV_R_WRONG_FINAL_BLOCK_LENGTH, "");
		return 0;
	}
	if (!fbp_blocks(x, out, out, inl, &got))
		return 0;
	*outl = inl;
	if (x->enc)
		return 1;
	size_t skip = x->tls_version == TLS1_VERSION ? 0 : bs; /* the explicit IV */
	size_t len = inl - skip;
	if (inl < skip || !tls_unpad(x, out + skip, &len)) {
		*outl = 0;
		FBP_RAISE(x->prov, PROV_R_CIPHER_OPERATION_FAILED, "");
		return 0;
	}
	*outl = len;
	return 1;
}

/* inl > 0 bytes, room for them at out, and out equal to in or apart
 * from it: what the short paths of fbp_update need of the call. */
static inline int bytes_fit(const unsigned char *out, size_t outsize, const unsigned char *in, size_t inl)
{
	return inl && inl <= outsize && (out == in || !overlaps(out, inl, in, inl));
}

/* bytes_fit, and whole blocks. */
static inline int whole_blocks_fit(const fbp_ctx *x, const unsigned char *out, size_t outsize,
				   const unsigned char *in, size_t inl)
{
	return !(inl & (x->bs - 1)) && bytes_fit(out, outsize, in, inl);
}

static __attribute__((noinline)) int fbp_update_any(fbp_ctx *x, unsigned char *out, size_t *outl, size_t outsize,
						  const unsigned char *in, size_t inl)
{
	if (!x->key_set || !x->ready) {
		FBP_RAISE(x->prov, PROV_R_NO_KEY_SET, "");
		return 0;
	}
	if (x->tls_version) /* before the empty-input case: an empty record is one padding block */
		return fbp_update_tls(x, out, outl, outsize, in, inl);
	if (inl == 0)
		return 1;
	if (fbmode(x) == FB_XTS)
		return fbp_update_xts(x, out, outl, outsize, in, inl);
	if (is_blockwise(x))
		return fbp_update_blockwise(x, out, outl, outsize, in, inl);
	return fbp_update_stream(x, out, outl, outsize, in, inl);
}

static int fbp_update(void *vx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
		      size_t inl)
{
	fbp_ctx *x = vx;
	*outl = 0;
	/* The short paths: CTR, and ECB and CBC with whole blocks in, out
	 * equal to in or apart from it (what nearly every EVP caller does),
	 * and XTS units.
	 * Each is a tail call, so that this function needs no stack frame: at
	 * 16 bytes the calls are most of the cost (callgrind: the frame was
	 * 14 of about 310 instructions a 16-byte AES-CBC EVP update). */
	if (x->direct == FBP_DIRECT_CTR) {
		if (bytes_fit(out, outsize, in, inl))
			return fbp_update_ctr(x, out, in, inl, outl);
	} else if (x->direct && !x->buf_len && whole_blocks_fit(x, out, outsize, in, inl)) {
		return fbp_whole_blocks(x, out, in, inl, outl);
	}
	if (x->ready && is_blockwise(x) && !x->tls_version && !x->enc && x->pad &&
	    (!x->buf_len || x->buf_len == x->bs) && whole_blocks_fit(x, out, outsize, in, inl))
		return fbp_update_held(x, out, outl, in, inl);
	if (x->ready && fbmode(x) == FB_XTS && inl)
		return fbp_update_xts(x, out, outl, outsize, in, inl);
	return fbp_update_any(x, out, outl, outsize, in, inl);
}

/* PKCS#7 check of the last block without data-dependent branches; returns
 * the number of data bytes, or -1. */
static int unpad(const uint8_t *blk, unsigned bs)
{
	unsigned p = blk[bs - 1];
	unsigned bad = (unsigned)((p - 1u) >> 8) | (unsigned)((bs - p) >> 8); /* p == 0 or p > bs */
	for (unsigned i = 0; i < bs; i++) {
		unsigned in_pad = (unsigned)((i - (bs - p)) >> 8) ^ 1u; /* i >= bs - p, for p <= bs */
		in_pad &= 1u;
		bad |= in_pad & (unsigned)((blk[i] ^ p) != 0);
	}
	return bad & 1u ? -1 : (int)(bs - p);
}

static int fbp_final(void *vx, unsigned char *out, size_t *outl, size_t outsize)
{
	fbp_ctx *x = vx;
	unsigned bs = x->bs;
	size_t got;
	*outl = 0;
	if (!x->key_set || !x->ready) {
		FBP_RAISE(x->prov, PROV_R_NO_KEY_SET, "");
		return 0;
	}
	if (!is_blockwise(x) || x->tls_version) /* a TLS record ends with its update */
		return 1;
	if (x->enc) {
		if (!x->pad) {
			if (x->buf_len) {
				FBP_RAISE(x->prov, PROV_R_WRONG_FINAL_BLOCK_LENGTH, "");
				return 0;
			}
			return 1;
		}
		if (outsize < bs) {
			FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
			return 0;
		}
		memset(x->buf + x->buf_len, (int)(bs - x->buf_len), bs - x->buf_len);
		if (!fbp_blocks(x, out, x->buf, bs, &got))
			return 0;
		x->buf_len = 0;
		*outl = bs;
		return 1;
	}
	if (!x->pad) {
		if (x->buf_len) {
			FBP_RAISE(x->prov, PROV_R_WRONG_FINAL_BLOCK_LENGTH, "");
			return 0;
		}
		return 1;
	}
	if (x->buf_len != bs) {
		FBP_RAISE(x->prov, PROV_R_WRONG_FINAL_BLOCK_LENGTH, "");
		return 0;
	}
	uint8_t blk[16] = { 0 }; /* (fbp_blocks writes it; GCC cannot tell) */
	if (!fbp_blocks(x, blk, x->buf, bs, &got))
		return 0;
	x->buf_len = 0;
	int n = unpad(blk, bs);
	if (n < 0) {
		OPENSSL_cleanse(blk, sizeof blk);
		FBP_RAISE(x->prov, PROV_R_BAD_DECRYPT, "");
		return 0;
	}
	if (outsize < (size_t)n) {
		OPENSSL_cleanse(blk, sizeof blk);
		FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
		return 0;
	}
	memcpy(out, blk, (size_t)n);
	OPENSSL_cleanse(blk, sizeof blk);
	*outl = (size_t)n;
	return 1;
}

/* EVP_Cipher(): the raw mode on the data, no padding. */
static int fbp_cipher(void *vx, unsigned char *out, size_t *outl, size_t outsize, const unsigned char *in,
		      size_t inl)
{
	fbp_ctx *x = vx;
	size_t got;
	*outl = 0;
	if (!x->key_set || !x->ready) {
		FBP_RAISE(x->prov, PROV_R_NO_KEY_SET, "");
		return 0;
	}
	if (is_blockwise(x)) {
		if (inl % x->bs || x->buf_len) {
			FBP_RAISE(x->prov, PROV_R_INVALID_DATA, "");
			return 0;
		}
		if (outsize < inl) {
			FBP_RAISE(x->prov, PROV_R_OUTPUT_BUFFER_TOO_SMALL, "");
			return 0;
		}
		uint8_t *tmp = NULL;
		if (in != out && overlaps(out, inl, in, inl)) {
			if (!(tmp = OPENSSL_malloc(inl)))
				return 0;
			memcpy(tmp, in, inl);
			in = tmp;
		}
		int ok = fbp_blocks(x, out, in, inl, &got);
		OPENSSL_clear_free(tmp, inl);
		if (ok)
			*outl = inl;
		return ok;
	}
	return fbp_update(vx, out, outl, outsize, in, inl);
}

/* ---- one dispatch table per row ------------------------------------------------ */

#define FBP_COMMON_FNS                                                                             \
	{ OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))fbp_freectx },                                \
	{ OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))fbp_dupctx },                                  \
	{ OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))fbp_einit },                             \
	{ OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))fbp_dinit },                             \
	{ OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))fbp_update },                                  \
	{ OSSL_FUNC_CIPHER_FINAL, (void (*)(void))fbp_final },                                    \
	{ OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))fbp_cipher },                                  \
	{ OSSL_FUNC_CIPHER_GETTABLE_PARAMS, (void (*)(void))fbp_gettable_params },                \
	{ OSSL_FUNC_CIPHER_GET_CTX_PARAMS, (void (*)(void))fbp_get_ctx_params },                  \
	{ OSSL_FUNC_CIPHER_SET_CTX_PARAMS, (void (*)(void))fbp_set_ctx_params },                  \
	{ OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, (void (*)(void))fbp_gettable_ctx_params },        \
	{ OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, (void (*)(void))fbp_settable_ctx_params }

#define FBP(id, names, fbname, kl, il, bs, mode)                                                  \
	static void *fbp_new_##id(void *provctx)                                                   \
	{                                                                                          \
		return fbp_newctx_common(provctx, &fbp_algs[FBP_IDX_##id], 0);                     \
	}                                                                                          \
	static void *fbp_new_ct_##id(void *provctx)                                                \
	{                                                                                          \
		return fbp_newctx_common(provctx, &fbp_algs[FBP_IDX_##id], 1);                     \
	}                                                                                          \
	static int fbp_getp_##id(OSSL_PARAM params[])                                              \
	{                                                                                          \
		return fbp_get_params_common(&fbp_algs[FBP_IDX_##id], params);                     \
	}                                                                                          \
	static const OSSL_DISPATCH fbp_fns_##id[] = {                                              \
		{ OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))fbp_new_##id },                         \
		{ OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))fbp_getp_##id }, FBP_COMMON_FNS,   \
		{ 0, NULL }                                                                        \
	};                                                                                         \
	static const OSSL_DISPATCH fbp_fns_ct_##id[] = {                                           \
		{ OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))fbp_new_ct_##id },                      \
		{ OSSL_FUNC_CIPHER_GET_PARAMS, (void (*)(void))fbp_getp_##id }, FBP_COMMON_FNS,   \
		{ 0, NULL }                                                                        \
	};
#include "fbp_table.h"
#undef FBP

static const OSSL_DISPATCH *const fbp_fns[FBP_NALG] = {
#define FBP(id, names, fbname, kl, il, bs, mode) fbp_fns_##id,
#include "fbp_table.h"
#undef FBP
};
static const OSSL_DISPATCH *const fbp_fns_ct[FBP_NALG] = {
#define FBP(id, names, fbname, kl, il, bs, mode) fbp_fns_ct_##id,
#include "fbp_table.h"
#undef FBP
};

#define FBP_PROPS "provider=fastblock,fastblock.ct=no"
#define FBP_PROPS_CT "provider=fastblock,fastblock.ct=yes"


/* The ECB name of the same cipher and key size: the name up to its last
 * '-', then "-ecb". */
static const fb_cipher *ecb_of(const char *name)
{
	char buf[64];
	const char *dash = strrchr(name, '-');
	size_t n = dash ? (size_t)(dash - name) : 0;
	if (!dash || n + 5 > sizeof buf)
		return NULL;
	memcpy(buf, name, n);
	memcpy(buf + n, "-ecb", 5);
	return fb_cipher_by_name(buf);
}

static int fbp_ct_available(const fbp_alg *a)
{
	static const uint8_t zero[64];
	uint8_t key[64];
	for (size_t i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(i * 7 + 1); /* XTS halves differ */
	fb_options opt = { FB_PAD_NONE, FB_FLAG_CONSTANT_TIME, NULL };
	fb_ctx *c = fb_ctx_new_for(a->c, FB_ENCRYPT, &opt); /* NULL: no constant-time kernel */
	int ok = c && fb_init(c, a->c, FB_ENCRYPT, key, a->keylen, a->ivlen ? zero : NULL, a->ivlen, &opt) == FB_OK;
	fb_ctx_free(c);
	return ok;
}

static enum fb_mode expected_fb_mode(unsigned evp_mode, const char *fb_name)
{
	switch (evp_mode) {
	case EVP_CIPH_ECB_MODE: return FB_ECB;
	case EVP_CIPH_CBC_MODE: return FB_CBC;
	case EVP_CIPH_CFB_MODE:
		return strlen(fb_name) > 5 && !strcmp(fb_name + strlen(fb_name) - 5, "-cfb8") ? FB_CFB8 : FB_CFB;
	case EVP_CIPH_OFB_MODE: return FB_OFB;
	case EVP_CIPH_CTR_MODE: return FB_CTR;
	default: return FB_XTS;
	}
}

/* Checks every row against the library (once per process). */
static void fbp_check_table(void)
{
	for (size_t i = 0; i < FBP_NALG; i++) {
		fbp_alg *a = &fbp_algs[i];
		a->c = fb_cipher_by_name(a->fb_name);
		a->ecb = a->c ? ecb_of(a->fb_name) : NULL;
		enum fb_mode m = a->mode = a->c ? fb_cipher_mode(a->c) : FB_ECB;
		size_t bs = a->c ? fb_cipher_block_size(a->c) : 0;
		a->ok = a->c && a->ecb && fb_cipher_key_len(a->c) == a->keylen &&
			fb_cipher_iv_len(a->c) == a->ivlen && m == expected_fb_mode(a->evp_mode, a->fb_name) &&
			a->blocksize == ((m == FB_ECB || m == FB_CBC) ? bs : 1);
		a->ct_ok = a->ok && fbp_ct_available(a);
	}
}

/* Whether family is in the list (words separated by commas, spaces or
 * colons, case-insensitive); a NULL or empty list takes every family. */
static int family_wanted(const char *list, const char *family)
{
	if (!list || !*list)
		return 1;
	size_t n = strlen(family);
	for (const char *p = list; *p;) {
		while (*p == ',' || *p == ' ' || *p == ':' || *p == '\t')
			p++;
		size_t w = strcspn(p, ", :\t");
		if (w == n && !OPENSSL_strncasecmp(p, family, n))
			return 1;
		p += w;
	}
	return 0;
}

/* The algorithm list of one provider instance: the fast rows first, then
 * the constant-time ones, so that a query that does not mention
 * fastblock.ct finds the fast one first. families: the config's
 * "families" value, or NULL. */
static OSSL_ALGORITHM *fbp_build_list(const char *families)
{
	OSSL_ALGORITHM *l = OPENSSL_zalloc((2 * FBP_NALG + 1) * sizeof *l);
	size_t n = 0;
	if (!l)
		return NULL;
	for (int ct = 0; ct < 2; ct++)
		for (size_t i = 0; i < FBP_NALG; i++) {
			const fbp_alg *a = &fbp_algs[i];
			if (!(ct ? a->ct_ok : a->ok) || !family_wanted(families, fb_cipher_family(a->c)))
				continue;
			l[n++] = (OSSL_ALGORITHM){ a->names, ct ? FBP_PROPS_CT : FBP_PROPS,
						   ct ? fbp_fns_ct[i] : fbp_fns[i], a->fb_name };
		}
	return l;
}

/* ---- the provider ---------------------------------------------------------------- */

static const OSSL_ALGORITHM *fbp_query(void *provctx, int operation_id, int *no_cache)
{
	const fbp_prov *p = provctx;
	*no_cache = 0;
	return operation_id == OSSL_OP_CIPHER ? p->ciphers : NULL;
}

static const OSSL_ITEM *fbp_reason_strings(void *provctx)
{
	(void)provctx;
	return fbp_reasons;
}

static const OSSL_PARAM fbp_prov_param_types[] = {
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
	OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
	OSSL_PARAM_END
};

static const OSSL_PARAM *fbp_gettable_prov_params(void *provctx)
{
	(void)provctx;
	return fbp_prov_param_types;
}

static int fbp_get_prov_params(void *provctx, OSSL_PARAM params[])
{
	(void)provctx;
	OSSL_PARAM *p;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) &&
	    !OSSL_PARAM_set_utf8_ptr(p, "fastblock block ciphers"))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) && !OSSL_PARAM_set_utf8_ptr(p, fb_version()))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) &&
	    !OSSL_PARAM_set_utf8_ptr(p, fb_cpu_description()))
		return 0;
	if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) && !OSSL_PARAM_set_int(p, 1))
		return 0;
	return 1;
}

static void fbp_teardown(void *provctx)
{
	fbp_prov *p = provctx;
	if (p)
		OPENSSL_free(p->ciphers);
	OPENSSL_free(p);
}

static const OSSL_DISPATCH fbp_dispatch[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))fbp_teardown },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))fbp_query },
	{ OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))fbp_reason_strings },
	{ OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))fbp_gettable_prov_params },
	{ OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))fbp_get_prov_params },
	{ 0, NULL }
};

static CRYPTO_ONCE fbp_table_once = CRYPTO_ONCE_STATIC_INIT;

/* The one exported symbol of the module. */
__attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in, const OSSL_DISPATCH **out,
		       void **provctx)
{
	OSSL_FUNC_core_get_params_fn *c_get_params = NULL;
	for (; in && in->function_id; in++) {
		switch (in->function_id) {
		case OSSL_FUNC_CORE_GET_PARAMS:
			c_get_params = OSSL_FUNC_core_get_params(in);
			break;
		case OSSL_FUNC_CORE_NEW_ERROR:
			c_new_error = OSSL_FUNC_core_new_error(in);
			break;
		case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
			c_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
			break;
		case OSSL_FUNC_CORE_VSET_ERROR:
			c_vset_error = OSSL_FUNC_core_vset_error(in);
			break;
		default:
			break;
		}
	}
	fbp_prov *p = OPENSSL_zalloc(sizeof *p);
	if (!p)
		return 0;
	p->handle = handle;
	/* "families = des, twofish" in the provider's config section limits
	 * what this instance offers (docs/provider.md) */
	const char *families = NULL;
	OSSL_PARAM cp[2] = { OSSL_PARAM_utf8_ptr("families", (char **)&families, 0), OSSL_PARAM_END };
	if (c_get_params && !c_get_params(handle, cp))
		families = NULL;
	if (!CRYPTO_THREAD_run_once(&fbp_table_once, fbp_check_table) || !(p->ciphers = fbp_build_list(families))) {
		OPENSSL_free(p);
		return 0;
	}
	*provctx = p;
	*out = fbp_dispatch;
	return 1;
}
