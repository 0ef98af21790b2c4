/*
 * evp_diff.c - differential test of the fastblock provider through EVP.
 *
 *   evp_diff <module dir> [quick]      (FB_QUICK=1 also means quick)
 *
 * For every cipher the provider offers (fast and fastblock.ct=yes rows),
 * random trials: random key, IV, length, direction, padding on or off,
 * in place or not, and a random split of the input into updates. The same
 * calls go to the reference: OpenSSL's default provider, or the legacy
 * provider for single DES, where either has the cipher; else the
 * library's own one-shot call (fb_encrypt, fb_decrypt). Compared: every
 * update's output and length, "updated-iv" after every update (OpenSSL
 * references), final's success, output and error reason, a copy of the
 * context (EVP_CIPHER_CTX_copy) made at a random point and finished
 * separately, and a second message after re-init with a new IV and the
 * same key. Decryption gets valid ciphertext half the time and random
 * bytes otherwise (bad padding, wrong final block length).
 *
 * Also the bad-input cases of issue 15, each against the default
 * provider's error reason: a wrong key length, an IV set before the key,
 * a final with bad padding, a partial final block, too short XTS input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include "fastblock.h"

static unsigned long long rs = 0x9e3779b97f4a7c15ull;
static unsigned rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (unsigned)(rs >> 32);
}
static void rnd_bytes(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rnd();
}

static int failures, trials, names_tested, names_vs_openssl, names_vs_lib;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                                             \
		fputc('\n', stderr);                                                               \
		failures++;                                                                        \
	} while (0)

/* ---- the list of names the provider offers --------------------------------- */

#define MAXN 256
static char names[MAXN][64];
static int n_names;

static void collect(EVP_CIPHER *c, void *arg)
{
	(void)arg;
	if (strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "fastblock"))
		return;
	const char *n = EVP_CIPHER_get0_name(c);
	for (int i = 0; i < n_names; i++)
		if (!strcmp(names[i], n))
			return;
	if (n_names < MAXN)
		snprintf(names[n_names++], sizeof names[0], "%s", n);
}

/* ---- one stream through EVP ---------------------------------------------------- */

typedef struct run {
	int ok_final;
	unsigned long reason; /* of the failure */
	unsigned char *out;
	size_t out_len;
} run;

static unsigned long last_reason(void)
{
	unsigned long e = ERR_peek_last_error();
	ERR_clear_error();
	return ERR_GET_REASON(e);
}

static int get_upd_iv(EVP_CIPHER_CTX *c, unsigned char *iv, size_t n)
{
	return EVP_CIPHER_CTX_get_updated_iv(c, iv, n);
}

/* The library's one-shot result for the same message (the reference for
 * ciphers OpenSSL does not have). */
static int lib_oneshot(const char *name, int enc, int pad, const unsigned char *key, size_t klen,
		       const unsigned char *iv, size_t ivlen, const unsigned char *in, size_t len,
		       unsigned char *out, size_t *out_len)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	if (!c)
		return FB_ERR_UNKNOWN_CIPHER;
	fb_options o = { pad ? FB_PAD_PKCS7 : FB_PAD_NONE, 0, NULL };
	enum fb_mode m = fb_cipher_mode(c);
	if (m != FB_ECB && m != FB_CBC)
		o.padding = FB_PAD_DEFAULT;
	return (enc ? fb_encrypt : fb_decrypt)(c, key, klen, ivlen ? iv : NULL, ivlen, in, len, out, len + 64,
					       out_len, &o);
}

static void one_trial(const char *name, EVP_CIPHER *fbc, EVP_CIPHER *ref, int quick)
{
	int mode = EVP_CIPHER_get_mode(fbc);
	int xts = mode == EVP_CIPH_XTS_MODE;
	int blockwise = mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE;
	int klen = EVP_CIPHER_get_key_length(fbc), ivlen = EVP_CIPHER_get_iv_length(fbc);
	int bs = 16;
	{
		const fb_cipher *lc = fb_cipher_by_name(name);
		if (lc)
			bs = (int)fb_cipher_block_size(lc);
		else if (strstr(name, "DES"))
			bs = 8;
	}
	unsigned char key[64], iv[16], iv2[16];
	rnd_bytes(key, sizeof key);
	if (xts)
		key[0] = (unsigned char)(key[klen / 2] ^ 1); /* halves differ */
	rnd_bytes(iv, sizeof iv);
	rnd_bytes(iv2, sizeof iv2);
	if (rnd() % 4 == 0) {
		/* a counter a few blocks short of a carry out of its low 4 to bs
		 * bytes, the whole block included (CTR wraps around) */
		size_t k = 4 + rnd() % (size_t)(bs - 3);
		memset(iv + bs - k, 0xff, k);
		iv[bs - 1] = (unsigned char)(0xff - rnd() % 4);
	}
	int enc = rnd() & 1, pad = blockwise ? (int)(rnd() & 1) : 0, inplace = rnd() & 1;
	size_t maxlen = quick ? 300 : 5000;
	size_t len = rnd() % 8 == 0 ? rnd() % maxlen : rnd() % 80;
	if (xts && len < 16)
		len = 16 + rnd() % 64;
	if (blockwise && !pad && rnd() % 4)
		len -= len % (size_t)bs;
	unsigned char *msg = malloc(len + 64), *valid = malloc(len + 64);
	rnd_bytes(msg, len);
	/* valid ciphertext for half the decryptions */
	if (!enc && rnd() % 2) {
		EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
		int a = 0, b = 0;
		size_t plen = len > (size_t)bs && blockwise && pad ? len - (size_t)bs : len;
		if (EVP_EncryptInit_ex(e, ref ? ref : fbc, NULL, key, iv) && EVP_CIPHER_CTX_set_padding(e, pad) &&
		    EVP_EncryptUpdate(e, valid, &a, msg, (int)plen) && EVP_EncryptFinal_ex(e, valid + a, &b)) {
			memcpy(msg, valid, (size_t)(a + b));
			len = (size_t)(a + b);
		}
		ERR_clear_error();
		EVP_CIPHER_CTX_free(e);
	}
	/* splits */
	size_t cuts[64];
	int ncuts = 0;
	if (!xts) {
		size_t pos = 0;
		while (pos < len && ncuts < 63) {
			size_t n = rnd() % 3 == 0 ? 1 + rnd() % 3 : 1 + rnd() % (len - pos);
			if (n > len - pos)
				n = len - pos;
			cuts[ncuts++] = n;
			pos += n;
		}
		if (pos < len)
			cuts[ncuts++] = len - pos;
	} else {
		cuts[ncuts++] = len;
	}
	int copy_at = ncuts ? (int)(rnd() % (unsigned)(ncuts + 1)) : 0;

	EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *r = EVP_CIPHER_CTX_new(), *cp = NULL;
	unsigned char *oa = malloc(len + 64), *or_ = malloc(len + 64), *ocp = malloc(len + 64);
	unsigned char *ia = malloc(len + 64), *scr = malloc(len + 64);
	memcpy(ia, msg, len);
	size_t na = 0, nr = 0, ncp = 0;
	trials++;
	if (!EVP_CipherInit_ex(a, fbc, NULL, key, iv, enc) || !EVP_CIPHER_CTX_set_padding(a, pad)) {
		FAIL("%s: init", name);
		goto out;
	}
	if (ref && (!EVP_CipherInit_ex(r, ref, NULL, key, iv, enc) || !EVP_CIPHER_CTX_set_padding(r, pad))) {
		FAIL("%s: reference init", name);
		goto out;
	}
	size_t pos = 0;
	int ok_a = 1, ok_r = 1;
	for (int i = 0; i <= ncuts; i++) {
		if (i == copy_at) {
			cp = EVP_CIPHER_CTX_new();
			if (!EVP_CIPHER_CTX_copy(cp, a)) {
				FAIL("%s: EVP_CIPHER_CTX_copy", name);
				goto out;
			}
			memcpy(ocp, oa, na);
			ncp = na;
		}
		if (i == ncuts)
			break;
		size_t n = cuts[i];
		int la = 0, lr = 0, lc = 0;
		/* in place: the output goes over the input at the same offset */
		const unsigned char *src = inplace ? ia + pos : msg + pos;
		unsigned char *dst = inplace ? ia + pos : oa + na;
		/* A held or buffered block makes the output lag or lead the
		 * input, and it may be longer than the input: such a call goes
		 * out of place, or in place (out == in, which EVP allows) over a
		 * scratch copy with room, so the provider moves the body itself. */
		if (inplace && na != pos) {
			dst = oa + na, src = msg + pos;
			if (rnd() & 1) {
				memcpy(scr, msg + pos, n);
				dst = scr, src = scr;
			}
		}
		unsigned char keep[8192];
		if (cp && n <= sizeof keep)
			memcpy(keep, src, n);
		ok_a = ok_a && EVP_CipherUpdate(a, dst, &la, src, (int)n);
		if (ok_a && dst != oa + na)
			memmove(oa + na, dst, (size_t)la);
		if (cp && n <= sizeof keep) {
			if (!EVP_CipherUpdate(cp, ocp + ncp, &lc, keep, (int)n))
				FAIL("%s: update of the copy", name);
			ncp += (size_t)lc;
		}
		if (ref) {
			ok_r = ok_r && EVP_CipherUpdate(r, or_ + nr, &lr, msg + pos, (int)n);
			if (ok_a != ok_r || la != lr) {
				FAIL("%s %s pad=%d: update %d (%zu bytes) gave %d/%d bytes, ok %d/%d", name,
				     enc ? "enc" : "dec", pad, i, n, la, lr, ok_a, ok_r);
				goto out;
			}
			if (ivlen) {
				unsigned char u1[16], u2[16];
				if (get_upd_iv(a, u1, (size_t)ivlen) != get_upd_iv(r, u2, (size_t)ivlen) ||
				    memcmp(u1, u2, (size_t)ivlen)) {
					FAIL("%s %s: updated-iv differs after update %d", name, enc ? "enc" : "dec", i);
					goto out;
				}
			}
		}
		na += (size_t)la;
		nr += (size_t)lr;
		pos += n;
	}
	int fa = 0, fr = 0, fc = 0;
	int fin_a = ok_a && EVP_CipherFinal_ex(a, oa + na, &fa);
	unsigned long reason_a = fin_a ? 0 : last_reason();
	int fin_c = cp && EVP_CipherFinal_ex(cp, ocp + ncp, &fc);
	unsigned long reason_c = fin_c ? 0 : last_reason();
	na += (size_t)fa;
	ncp += (size_t)fc;
	if (cp && (fin_c != fin_a || reason_c != reason_a || (fin_a && (ncp != na || memcmp(ocp, oa, na)))))
		FAIL("%s %s pad=%d len=%zu: the copy made at update %d differs", name, enc ? "enc" : "dec", pad, len,
		     copy_at);
	if (ref) {
		int fin_r = ok_r && EVP_CipherFinal_ex(r, or_ + nr, &fr);
		unsigned long reason_r = fin_r ? 0 : last_reason();
		nr += (size_t)fr;
		if (fin_a != fin_r || reason_a != reason_r)
			FAIL("%s %s pad=%d len=%zu: final %d (reason %lu) vs reference %d (reason %lu)", name,
			     enc ? "enc" : "dec", pad, len, fin_a, reason_a, fin_r, reason_r);
		else if (fin_a && (na != nr || memcmp(oa, or_, na)))
			FAIL("%s %s pad=%d len=%zu inplace=%d: output differs from the reference", name,
			     enc ? "enc" : "dec", pad, len, inplace);
		if (fin_a && ivlen) {
			unsigned char u1[16], u2[16];
			get_upd_iv(a, u1, (size_t)ivlen);
			get_upd_iv(r, u2, (size_t)ivlen);
			if (memcmp(u1, u2, (size_t)ivlen))
				FAIL("%s: updated-iv differs after final", name);
		}
	} else {
		size_t nl = 0;
		int rc = lib_oneshot(name, enc, pad, key, (size_t)klen, iv, (size_t)ivlen, msg, len, or_, &nl);
		if ((rc == FB_OK) != fin_a)
			FAIL("%s %s pad=%d len=%zu: final %d, library one-shot %s", name, enc ? "enc" : "dec", pad,
			     len, fin_a, fb_strerror(rc));
		else if (fin_a && (nl != na || memcmp(oa, or_, na)))
			FAIL("%s %s pad=%d len=%zu: output differs from the library's one-shot", name,
			     enc ? "enc" : "dec", pad, len);
		/* updated-iv at a block boundary starts the rest of the stream */
		if (fin_a && ivlen && !xts && mode != EVP_CIPH_ECB_MODE && len % (size_t)bs == 0 && !pad) {
			unsigned char u[16], more[48], o1[48], o2[48];
			int l1 = 0, l2 = 0;
			rnd_bytes(more, sizeof more);
			get_upd_iv(a, u, (size_t)ivlen);
			EVP_CIPHER_CTX *n2 = EVP_CIPHER_CTX_new();
			if (!EVP_CipherUpdate(a, o1, &l1, more, 48) || !EVP_CipherInit_ex(n2, fbc, NULL, key, u, enc) ||
			    !EVP_CIPHER_CTX_set_padding(n2, 0) || !EVP_CipherUpdate(n2, o2, &l2, more, 48) || l1 != l2 || memcmp(o1, o2, (size_t)l1))
				FAIL("%s: updated-iv does not continue the stream", name);
			EVP_CIPHER_CTX_free(n2);
		}
	}
	/* a second message: new IV, same key */
	if (ivlen) {
		unsigned char m2[40], x1[80], x2[80];
		int l1 = 0, l2 = 0, l3 = 0, l4 = 0;
		rnd_bytes(m2, sizeof m2);
		int e2 = 1;
		if (!EVP_CipherInit_ex(a, NULL, NULL, NULL, iv2, e2) || !EVP_CIPHER_CTX_set_padding(a, 1) ||
		    !EVP_CipherUpdate(a, x1, &l1, m2, 40) || !EVP_CipherFinal_ex(a, x1 + l1, &l2)) {
			FAIL("%s: re-init with a new IV", name);
		} else {
			size_t nl = 0;
			if (ref) {
				if (!EVP_CipherInit_ex(r, NULL, NULL, key, iv2, 1) || !EVP_CIPHER_CTX_set_padding(r, 1) ||
				    !EVP_CipherUpdate(r, x2, &l3, m2, 40) || !EVP_CipherFinal_ex(r, x2 + l3, &l4))
					FAIL("%s: reference re-init", name);
				nl = (size_t)(l3 + l4);
			} else if (lib_oneshot(name, 1, 1, key, (size_t)klen, iv2, (size_t)ivlen, m2, 40, x2, &nl) != FB_OK) {
				FAIL("%s: library one-shot", name);
			}
			if ((size_t)(l1 + l2) != nl || memcmp(x1, x2, nl))
				FAIL("%s: the message after re-init with a new IV differs", name);
		}
	}
out:
	ERR_clear_error();
	EVP_CIPHER_CTX_free(a);
	EVP_CIPHER_CTX_free(r);
	EVP_CIPHER_CTX_free(cp);
	free(msg);
	free(valid);
	free(oa);
	free(or_);
	free(ocp);
	free(ia);
	free(scr);
}

/* ---- bad input --------------------------------------------------------------------- */

/* Runs f against fastblock and against the reference and compares the
 * result and the error reason. */
typedef int (*bad_fn)(EVP_CIPHER *c);

static int bad_keylen(EVP_CIPHER *c)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int ok = EVP_CipherInit_ex(x, c, NULL, NULL, NULL, 1) &&
		 EVP_CIPHER_CTX_set_key_length(x, EVP_CIPHER_get_key_length(c) + 1);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static int bad_ivlen(EVP_CIPHER *c)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	size_t n = 12;
	OSSL_PARAM p[2] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &n), OSSL_PARAM_END };
	int ok = EVP_CipherInit_ex(x, c, NULL, NULL, NULL, 1) && EVP_CIPHER_CTX_set_params(x, p);
	/* the result, and whether the length changed */
	ok |= (EVP_CIPHER_CTX_get_iv_length(x) == 12) << 1;
	EVP_CIPHER_CTX_free(x);
	return ok;
}

/* IV first, key later: the IV stays; then a context with an IV and no key
 * at all is used. Returns a code built from both steps. */
static int bad_iv_before_key(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16], in[32], out[64], out2[64];
	for (int i = 0; i < 64; i++)
		key[i] = (unsigned char)(i * 3 + 1);
	memset(iv, 0x5a, sizeof iv);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l = 0, code = 0;
	if (EVP_CipherInit_ex(x, c, NULL, NULL, iv, 1) && EVP_CipherInit_ex(x, NULL, NULL, key, NULL, -1) &&
	    EVP_CipherUpdate(x, out, &l, in, 32)) {
		EVP_CIPHER_CTX *y = EVP_CIPHER_CTX_new();
		int l2 = 0;
		if (EVP_CipherInit_ex(y, c, NULL, key, iv, 1) && EVP_CipherUpdate(y, out2, &l2, in, 32) && l == l2 &&
		    !memcmp(out, out2, (size_t)l))
			code |= 1; /* the IV given before the key was used */
		EVP_CIPHER_CTX_free(y);
	}
	EVP_CIPHER_CTX_free(x);
	x = EVP_CIPHER_CTX_new();
	if (EVP_CipherInit_ex(x, c, NULL, NULL, iv, 1) && EVP_CipherUpdate(x, out, &l, in, 32))
		code |= 2; /* an update without a key succeeded */
	EVP_CIPHER_CTX_free(x);
	return code;
}

static int bad_padding(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16], in[32], out[64];
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l = 0, l2 = 0;
	memset(key, 7, sizeof key);
	memset(in, 0xa5, sizeof in); /* decrypts to garbage: padding fails */
	int ok = EVP_DecryptInit_ex(x, c, NULL, key, iv);
	/* find a block whose padding is bad for this key */
	ok = ok && EVP_DecryptUpdate(x, out, &l, in, 16);
	ok = ok && EVP_DecryptFinal_ex(x, out + l, &l2);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static int bad_partial_final(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16], in[32], out[64];
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l = 0, l2 = 0;
	int ok = EVP_DecryptInit_ex(x, c, NULL, key, iv) && EVP_DecryptUpdate(x, out, &l, in, 13) &&
		 EVP_DecryptFinal_ex(x, out + l, &l2);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static int bad_nopad_partial(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16], in[32], out[64];
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l = 0, l2 = 0;
	int ok = EVP_EncryptInit_ex(x, c, NULL, key, iv) && EVP_CIPHER_CTX_set_padding(x, 0) &&
		 EVP_EncryptUpdate(x, out, &l, in, 13) && EVP_EncryptFinal_ex(x, out + l, &l2);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static int bad_xts_short(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16], in[32], out[64];
	for (int i = 0; i < 64; i++)
		key[i] = (unsigned char)i;
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int l = 0;
	int ok = EVP_EncryptInit_ex(x, c, NULL, key, iv) && EVP_EncryptUpdate(x, out, &l, in, 15);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static int bad_xts_same_halves(EVP_CIPHER *c)
{
	static unsigned char key[64], iv[16];
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int ok = EVP_EncryptInit_ex(x, c, NULL, key, iv);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

/* EVP_CIPHER_CTX_rand_key: DES keys with odd parity and no weak part, as
 * OpenSSL's DES gives; 20 keys per DES cipher. */
static void check_rand_key(const char *name, EVP_CIPHER *c)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	unsigned char k[64];
	int des = !strncmp(name, "DES", 3);
	if (des != !!(EVP_CIPHER_get_flags(c) & EVP_CIPH_RAND_KEY))
		FAIL("%s: has-randkey is %d", name, !des);
	for (int i = 0; des && i < 20; i++) {
		int kl = EVP_CIPHER_get_key_length(c);
		memset(k, 0, sizeof k);
		if (!EVP_CipherInit_ex(x, c, NULL, NULL, NULL, 1) || !EVP_CIPHER_CTX_rand_key(x, k)) {
			FAIL("%s: EVP_CIPHER_CTX_rand_key", name);
			break;
		}
		if (!fb_des_check_parity(k, (size_t)kl))
			FAIL("%s: a random key without odd parity", name);
		for (int j = 0; j < kl; j += 8)
			if (fb_des_is_weak_key(k + j))
				FAIL("%s: a random key with a weak part", name);
	}
	EVP_CIPHER_CTX_free(x);
}

/* TLS records (libssl's use of CBC with "tls-version"): the same records,
 * valid and with bad padding, decrypted by fastblock and by the default
 * provider: result, length, and the MAC where the padding is good;
 * encryption of the same payload: the same record. */
static int tls_ctx(EVP_CIPHER_CTX *x, EVP_CIPHER *c, int enc, const unsigned char *key, const unsigned char *iv,
		   int version, size_t macsize)
{
	OSSL_PARAM p[3] = { OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
			    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize), OSSL_PARAM_END };
	return EVP_CipherInit_ex(x, c, NULL, key, iv, enc) && EVP_CIPHER_CTX_set_params(x, p);
}

/* TLS's padding rule, plainly: the last byte p, p + 1 bytes of value p,
 * room for the MAC before them. */
static int tls_pad_ok(const unsigned char *r, size_t n, size_t mac)
{
	size_t p = r[n - 1];
	if (n < mac + p + 1)
		return 0;
	for (size_t i = 0; i <= p; i++)
		if (r[n - 1 - i] != p)
			return 0;
	return 1;
}

static void tls_records(const char *name)
{
	EVP_CIPHER *fb = EVP_CIPHER_fetch(NULL, name, "provider=fastblock");
	EVP_CIPHER *ref = EVP_CIPHER_fetch(NULL, name, "provider=default");
	int n_rec = 0;
	if (!fb || !ref) {
		FAIL("TLS records: %s not available", name);
		goto out;
	}
	int bs = EVP_CIPHER_get_block_size(fb);
	static const int versions[] = { 0x301, 0x302, 0x303 };
	static const size_t macs[] = { 0, 20, 32, 48 };
	for (int t = 0; t < 400; t++) {
		int version = versions[rnd() % 3];
		size_t mac = macs[rnd() % 4];
		unsigned char key[32], iv[16], rec[700], a[700], b[700];
		rnd_bytes(key, sizeof key);
		rnd_bytes(iv, sizeof iv);
		size_t data = rnd() % 300, ivb = version == 0x301 ? 0 : (size_t)bs;
		size_t body = ivb + data + mac;
		size_t pad = (size_t)bs - body % (size_t)bs - 1 + (size_t)bs * (rnd() % 4); /* pad + 1 bytes */
		if (pad > 255)
			pad -= (size_t)bs * ((pad - 255 + (size_t)bs - 1) / (size_t)bs);
		size_t len = body + pad + 1;
		rnd_bytes(rec, len);
		memset(rec + body, (int)pad, pad + 1);
		int kind = (int)(rnd() % 4); /* 0, 1 valid; 2 a padding byte off; 3 a random last byte */
		if (kind == 2)
			rec[body + rnd() % (pad + 1)] ^= (unsigned char)(1 + rnd() % 255);
		if (kind == 3)
			rec[len - 1] = (unsigned char)rnd();
		/* the record's ciphertext, made without TLS rules */
		EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new(), *x = EVP_CIPHER_CTX_new(), *y = EVP_CIPHER_CTX_new();
		int l = 0;
		unsigned char ct[700];
		if (!EVP_EncryptInit_ex(e, ref, NULL, key, iv) || !EVP_CIPHER_CTX_set_padding(e, 0) ||
		    !EVP_EncryptUpdate(e, ct, &l, rec, (int)len)) {
			FAIL("TLS records: making a record");
			break;
		}
		memcpy(a, ct, len);
		memcpy(b, ct, len);
		int la = 0, lb = 0;
		int ra = tls_ctx(x, fb, 0, key, iv, version, mac) && EVP_CipherUpdate(x, a, &la, a, (int)len);
		int rb = tls_ctx(y, ref, 0, key, iv, version, mac) && EVP_CipherUpdate(y, b, &lb, b, (int)len);
		ERR_clear_error();
		if (ra != rb || (ra && la != lb))
			FAIL("TLS records %s v%x mac %zu kind %d: fastblock %d/%d, default %d/%d", name, version, mac,
			     kind, ra, la, rb, lb);
		else if (ra && memcmp(a + ivb, b + ivb, (size_t)la))
			FAIL("TLS records %s: payload differs", name);
		else if (ra && mac) {
			unsigned char *ma = NULL, *mb = NULL;
			OSSL_PARAM pa[2] = { OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, (void **)&ma, mac),
					     OSSL_PARAM_END };
			OSSL_PARAM pb[2] = { OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, (void **)&mb, mac),
					     OSSL_PARAM_END };
			if (!EVP_CIPHER_CTX_get_params(x, pa) || !EVP_CIPHER_CTX_get_params(y, pb) || !ma || !mb)
				FAIL("TLS records %s: no MAC", name);
			/* with bad padding both give random MACs */
			else if ((memcmp(ma, mb, mac) == 0) != tls_pad_ok(rec + ivb, len - ivb, mac))
				FAIL("TLS records %s v%x mac %zu kind %d: MAC differs", name, version, mac, kind);
			else if (kind < 2 && memcmp(ma, rec + ivb + data, mac))
				FAIL("TLS records %s: wrong MAC", name);
		}
		/* encryption: the provider pads */
		EVP_CIPHER_CTX_reset(x);
		EVP_CIPHER_CTX_reset(y);
		memcpy(a, rec, body);
		memcpy(b, rec, body);
		ra = tls_ctx(x, fb, 1, key, iv, version, mac) && EVP_CipherUpdate(x, a, &la, a, (int)body);
		rb = tls_ctx(y, ref, 1, key, iv, version, mac) && EVP_CipherUpdate(y, b, &lb, b, (int)body);
		if (ra != rb || la != lb || (ra && memcmp(a, b, (size_t)la)))
			FAIL("TLS records %s v%x: encryption differs", name, version);
		n_rec++;
		EVP_CIPHER_CTX_free(e);
		EVP_CIPHER_CTX_free(x);
		EVP_CIPHER_CTX_free(y);
	}
	printf("TLS records %-14s %d records, decrypted and encrypted as the default provider does\n", name, n_rec);
out:
	EVP_CIPHER_free(fb);
	EVP_CIPHER_free(ref);
}

static void bad_case(const char *what, const char *name, bad_fn f)
{
	EVP_CIPHER *fb = EVP_CIPHER_fetch(NULL, name, "provider=fastblock");
	EVP_CIPHER *ref = EVP_CIPHER_fetch(NULL, name, "provider=default");
	if (!fb || !ref) {
		FAIL("bad input %s: %s not available", what, name);
		goto out;
	}
	ERR_clear_error();
	int r1 = f(fb);
	unsigned long e1 = r1 ? 0 : ERR_GET_REASON(ERR_peek_error());
	ERR_clear_error();
	int r2 = f(ref);
	unsigned long e2 = r2 ? 0 : ERR_GET_REASON(ERR_peek_error());
	ERR_clear_error();
	if (r1 != r2 || e1 != e2)
		FAIL("bad input %s (%s): fastblock %d reason %lu, default %d reason %lu", what, name, r1, e1, r2, e2);
	else
		printf("bad input %-28s %-14s same as default (result %d, reason %lu)\n", what, name, r1, e1);
out:
	EVP_CIPHER_free(fb);
	EVP_CIPHER_free(ref);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s <module dir> [quick]\n", argv[0]);
		return 2;
	}
	const char *q_env = getenv("FB_QUICK");
	int quick = (argc > 2 && !strcmp(argv[2], "quick")) || (q_env && !strcmp(q_env, "1"));
	OSSL_PROVIDER_set_default_search_path(NULL, argv[1]);
	OSSL_PROVIDER *fb = OSSL_PROVIDER_load(NULL, "fastblock");
	OSSL_PROVIDER_set_default_search_path(NULL, NULL); /* OpenSSL's own modules again */
	OSSL_PROVIDER *def = OSSL_PROVIDER_load(NULL, "default");
	OSSL_PROVIDER *leg = OSSL_PROVIDER_try_load(NULL, "legacy", 1);
	ERR_clear_error();
	if (!fb || !def) {
		fprintf(stderr, "cannot load the providers\n");
		return 1;
	}
	if (!leg)
		printf("note: the legacy provider does not load; single DES checked against the library\n");
	EVP_CIPHER_do_all_provided(NULL, collect, NULL);
	if (n_names < 100)
		FAIL("only %d cipher names from the fastblock provider", n_names);
	int per = quick ? 40 : 200;
	for (int ct = 0; ct < 2; ct++) {
		const char *q = ct ? "provider=fastblock,fastblock.ct=yes" : "provider=fastblock";
		for (int i = 0; i < n_names; i++) {
			ERR_set_mark();
			EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, names[i], q);
			EVP_CIPHER *ref = EVP_CIPHER_fetch(NULL, names[i], "provider=default");
			if (!ref && leg)
				ref = EVP_CIPHER_fetch(NULL, names[i], "provider=legacy");
			ERR_pop_to_mark();
			if (!c) {
				if (!ct)
					FAIL("%s listed but not fetchable", names[i]);
				continue;
			}
			if (ct) { /* the constant-time row runs a constant-time kernel */
				EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
				static const unsigned char k[64] = { 1, 2, 3 }, iv[16];
				const char *impl = NULL;
				OSSL_PARAM p[2] = { OSSL_PARAM_utf8_ptr("fastblock-impl", (char **)&impl, 0),
						    OSSL_PARAM_END };
				EVP_CipherInit_ex(x, c, NULL, k, iv, 1);
				EVP_CIPHER_CTX_get_params(x, p);
				int found = 0;
				fb_impl_info info;
				for (size_t j = 0; impl && fb_impl_at(j, &info) == FB_OK; j++)
					if (!strcmp(info.name, impl))
						found = info.constant_time ? 1 : -1;
				if (found != 1)
					FAIL("%s with fastblock.ct=yes runs %s, not a constant-time kernel", names[i],
					     impl ? impl : "(none)");
				EVP_CIPHER_CTX_free(x);
			} else {
				/* a query without fastblock.ct gets the fast row: the
				 * library's own choice without flags */
				EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
				static const unsigned char k[64] = { 1, 2, 3 }, iv[16];
				const char *impl = NULL;
				OSSL_PARAM p[2] = { OSSL_PARAM_utf8_ptr("fastblock-impl", (char **)&impl, 0),
						    OSSL_PARAM_END };
				EVP_CipherInit_ex(x, c, NULL, k, iv, 0);
				EVP_CIPHER_CTX_get_params(x, p);
				const fb_cipher *lc = fb_cipher_by_name(names[i]);
				fb_ctx *l = fb_ctx_new();
				size_t kl = lc ? fb_cipher_key_len(lc) : 0, il = lc ? fb_cipher_iv_len(lc) : 0;
				if (!lc || fb_init(l, lc, FB_DECRYPT, k, kl, il ? iv : NULL, il, NULL) != FB_OK ||
				    !impl || strcmp(impl, fb_ctx_impl(l)))
					FAIL("%s: runs %s, the library picks %s", names[i], impl ? impl : "(none)",
					     lc && fb_ctx_impl(l) ? fb_ctx_impl(l) : "(none)");
				fb_ctx_free(l);
				EVP_CIPHER_CTX_free(x);
				check_rand_key(names[i], c);
				names_tested++;
				if (ref)
					names_vs_openssl++;
				else
					names_vs_lib++;
			}
			for (int t = 0; t < (ct ? per / 4 : per); t++)
				one_trial(names[i], c, ref, quick);
			EVP_CIPHER_free(c);
			EVP_CIPHER_free(ref);
		}
	}
	tls_records("AES-128-CBC");
	tls_records("AES-256-CBC");
	tls_records("DES-EDE3-CBC");
	bad_case("wrong key length", "AES-128-CBC", bad_keylen);
	bad_case("wrong key length", "DES-EDE3-CBC", bad_keylen);
	bad_case("wrong IV length", "AES-128-CBC", bad_ivlen);
	bad_case("wrong IV length", "DES-EDE3-CFB", bad_ivlen);
	bad_case("IV set before the key", "AES-128-CBC", bad_iv_before_key);
	bad_case("IV set before the key", "DES-EDE3-CBC", bad_iv_before_key);
	bad_case("IV set before the key", "AES-256-CTR", bad_iv_before_key);
	bad_case("final with bad padding", "AES-128-CBC", bad_padding);
	bad_case("final with bad padding", "DES-EDE3-CBC", bad_padding);
	bad_case("final with bad padding", "AES-256-ECB", bad_padding);
	bad_case("partial final block", "DES-EDE3-CBC", bad_partial_final);
	bad_case("no padding, partial block", "AES-128-ECB", bad_nopad_partial);
	bad_case("XTS input under 16 bytes", "AES-128-XTS", bad_xts_short);
	bad_case("XTS equal key halves", "AES-256-XTS", bad_xts_same_halves);

	printf("evp_diff: %d names (%d against OpenSSL's default/legacy provider, %d against the library), "
	       "%d trials, %d failures\n",
	       names_tested, names_vs_openssl, names_vs_lib, trials, failures);
	OSSL_PROVIDER_unload(fb);
	OSSL_PROVIDER_unload(def);
	if (leg)
		OSSL_PROVIDER_unload(leg);
	return failures ? 1 : 0;
}
