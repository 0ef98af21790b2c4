/*
 * MACs and key tools against published vectors and OpenSSL:
 *  - CMAC: RFC 4493 (= NIST SP 800-38B appendix D, AES-128) examples; the
 *    NIST CAVP CMACGen files for AES-128/192/256 and two- and three-key
 *    TDES (tests/vectors/cmac, the directory given as the argument); and
 *    random messages against OpenSSL's EVP_MAC "CMAC" for AES-128/192/256
 *    and two- and three-key Triple-DES, one-shot and in random splits;
 *  - CBC-MAC (ISO/IEC 9797-1 alg 1) and the retail MAC (alg 3, ANSI
 *    X9.19): the published vectors of tests/vectors/mac/retail_cbcmac.txt
 *    (the second argument; ISO/IEC 9797-1 Annex B, ICAO 9303, Botan,
 *    Bouncy Castle, pyemv, psec: see SOURCE.txt there), one-shot and
 *    streamed;
 *  - CBC-MAC (padding 1, 2, 3), random messages: the last block of
 *    OpenSSL's CBC encryption of the padded message, zero IV;
 *  - retail MAC, random messages and two- and three-key keys: an
 *    independent composition with OpenSSL EVP: DES-CBC under K1 over the
 *    padded message, then D(K2), E(K3);
 *  - KCV: OpenSSL's ECB encryption of a zero block;
 *  - random DES keys: parity, no weak part, distinct;
 *  - bad input: the documented error and no output.
 */
#include "test_util.h"
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include "fastblock.h"

static tu_stats st;

static void hexin(const char *h, uint8_t *out, size_t *n)
{
	size_t k = 0;
	for (; h[2 * k]; k++) {
		unsigned v;
		sscanf(h + 2 * k, "%2x", &v);
		out[k] = (uint8_t)v;
	}
	*n = k;
}

static void rfc4493(void)
{
	static const char *const msgs[4] = {
		"", "6bc1bee22e409f96e93d7e117393172a",
		"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411",
		"6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411"
		"e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
	};
	static const char *const tags[4] = {
		"bb1d6929e95937287fa37d129b756746", "070a16b46b4d4144f79bdd9dd04a287c",
		"dfa66747de9ae63030ca32611497c827", "51f0bebf7e3b9d92fc49741779363cfe",
	};
	uint8_t key[16], m[64], want[17], got[16];
	size_t kl, ml, wl;
	hexin("2b7e151628aed2a6abf7158809cf4f3c", key, &kl);
	for (int i = 0; i < 4; i++) {
		hexin(msgs[i], m, &ml);
		hexin(tags[i], want, &wl);
		int rc = fb_mac(FB_MAC_CMAC, fb_cipher_by_name("aes-128-ecb"), key, 16, FB_MAC_PAD_NONE, m, ml,
				got, 16);
		tu_check(&st, rc == FB_OK && !memcmp(got, want, 16), "RFC 4493 example %d (%zu bytes)", i + 1, ml);
	}
}

static int ossl_cmac(const char *cipher, const uint8_t *key, size_t kl, const uint8_t *m, size_t ml,
		     uint8_t *out, size_t *ol)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, (char *)cipher, 0),
			    OSSL_PARAM_construct_end() };
	int ok = ctx && EVP_MAC_init(ctx, key, kl, p) && EVP_MAC_update(ctx, m, ml) &&
		 EVP_MAC_final(ctx, out, ol, 16);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ok;
}

/* OpenSSL CBC (no padding, zero IV) of msg; returns the last block. */
static int ossl_cbc_last(const char *cipher, const uint8_t *key, const uint8_t *m, size_t ml,
			 uint8_t *last, size_t bs)
{
	static const uint8_t zero[16];
	uint8_t *out = malloc(ml + 32);
	int n = 0, f = 0;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int ok = EVP_EncryptInit_ex(c, EVP_get_cipherbyname(cipher), NULL, key, zero) &&
		 EVP_CIPHER_CTX_set_padding(c, 0) && EVP_EncryptUpdate(c, out, &n, m, (int)ml) &&
		 EVP_EncryptFinal_ex(c, out + n, &f);
	if (ok)
		memcpy(last, out + ml - bs, bs);
	EVP_CIPHER_CTX_free(c);
	free(out);
	return ok;
}

static int ossl_ecb(const char *cipher, int enc, const uint8_t *key, uint8_t *blk)
{
	int n = 0;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int ok = EVP_CipherInit_ex(c, EVP_get_cipherbyname(cipher), NULL, key, NULL, enc) &&
		 EVP_CIPHER_CTX_set_padding(c, 0) && EVP_CipherUpdate(c, blk, &n, blk, 8);
	EVP_CIPHER_CTX_free(c);
	return ok;
}

/* ISO/IEC 9797-1 padding of m into buf; returns the padded length. */
static size_t iso_pad(int method, const uint8_t *m, size_t ml, uint8_t *buf, size_t bs)
{
	size_t o = 0;
	if (method == 3) {
		memset(buf, 0, bs);
		uint64_t bits = (uint64_t)ml * 8;
		for (int i = 0; i < 8; i++)
			buf[bs - 1 - i] = (uint8_t)(bits >> (8 * i));
		o = bs;
	}
	memcpy(buf + o, m, ml);
	o += ml;
	if (method == 2)
		buf[o++] = 0x80;
	while (o % bs || o == 0)
		buf[o++] = 0;
	return o;
}

/* The MAC through fastblock's streaming API in random pieces. */
static int fb_mac_split(tu_rng *r, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
			size_t kl, enum fb_mac_pad pad, const uint8_t *m, size_t ml, uint8_t *out, size_t ol)
{
	fb_mac_ctx *x = fb_mac_new();
	int rc = fb_mac_init(x, alg, c, key, kl, pad);
	for (size_t d = 0; !rc && d < ml;) {
		size_t k = 1 + tu_below(r, 40);
		if (k > ml - d)
			k = ml - d;
		rc = fb_mac_update(x, m + d, k);
		d += k;
	}
	if (!rc)
		rc = fb_mac_final(x, out, ol);
	fb_mac_free(x);
	return rc;
}

static void random_cmac(tu_rng *r)
{
	static const struct { const char *fb, *ossl; size_t kl, bs; } cs[] = {
		{ "aes-128-ecb", "AES-128-CBC", 16, 16 }, { "aes-192-cbc", "AES-192-CBC", 24, 16 },
		{ "aes-256-ofb", "AES-256-CBC", 32, 16 }, { "des-ede3", "DES-EDE3-CBC", 24, 8 },
		{ "des-ede-cbc", "DES-EDE-CBC", 16, 8 },
	};
	uint8_t key[32], m[300], a[16], b[16], s[16];
	for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
		for (int t = 0; t < 150; t++) {
			size_t ml = tu_below(r, 300), ol = 0;
			tu_fill(r, key, cs[i].kl);
			tu_fill(r, m, ml);
			if (!ossl_cmac(cs[i].ossl, key, cs[i].kl, m, ml, b, &ol)) {
				printf("OpenSSL has no CMAC over %s\n", cs[i].ossl);
				tu_skip(&st, "OpenSSL lacks a CMAC cipher");
				break;
			}
			const fb_cipher *c = fb_cipher_by_name(cs[i].fb);
			int rc = fb_mac(FB_MAC_CMAC, c, key, cs[i].kl, FB_MAC_PAD_NONE, m, ml, a, cs[i].bs);
			int rs = fb_mac_split(r, FB_MAC_CMAC, c, key, cs[i].kl, FB_MAC_PAD_NONE, m, ml, s, cs[i].bs);
			tu_check(&st, !rc && !rs && ol == cs[i].bs && !memcmp(a, b, ol) && !memcmp(s, b, ol),
				 "CMAC %s, %zu bytes: differs from OpenSSL", cs[i].fb, ml);
		}
}

static void random_cbc_retail(tu_rng *r)
{
	uint8_t key[24], m[300], buf[340], a[16], want[16];
	for (int t = 0; t < 300; t++) {
		size_t ml = tu_below(r, 301);
		int method = 1 + (int)tu_below(r, 3);
		tu_fill(r, key, 24);
		tu_fill(r, m, ml);
		if (method == 1 && ml == 0)
			continue;
		/* CBC-MAC over AES-128 and 3DES */
		size_t pl = iso_pad(method, m, ml, buf, 16);
		int ok = ossl_cbc_last("AES-128-CBC", key, buf, pl, want, 16);
		int rc = fb_mac(FB_MAC_CBC, fb_cipher_by_name("aes-128-cbc"), key, 16, (enum fb_mac_pad)method, m,
				ml, a, 16);
		tu_check(&st, ok && !rc && !memcmp(a, want, 16), "CBC-MAC aes-128 method %d, %zu bytes", method, ml);
		if (method != 3) {
			rc = fb_mac_split(r, FB_MAC_CBC, fb_cipher_by_name("aes-128-cbc"), key, 16,
					  (enum fb_mac_pad)method, m, ml, a, 16);
			tu_check(&st, !rc && !memcmp(a, want, 16), "CBC-MAC streamed, method %d, %zu bytes", method, ml);
		}
		pl = iso_pad(method, m, ml, buf, 8);
		ok = ossl_cbc_last("DES-EDE3-CBC", key, buf, pl, want, 8);
		rc = fb_mac(FB_MAC_CBC, fb_cipher_by_name("des-ede3"), key, 24, (enum fb_mac_pad)method, m, ml, a, 8);
		tu_check(&st, ok && !rc && !memcmp(a, want, 8), "CBC-MAC 3DES method %d, %zu bytes", method, ml);
		/* retail: single-DES CBC under K1, then D(K2), E(K3) (K3 = K1 for two keys) */
		for (size_t kl = 16; kl <= 24; kl += 8) {
			ok = ossl_cbc_last("DES-CBC", key, buf, pl, want, 8) && ossl_ecb("DES-ECB", 0, key + 8, want) &&
			     ossl_ecb("DES-ECB", 1, kl == 24 ? key + 16 : key, want);
			rc = fb_mac(FB_MAC_RETAIL, fb_cipher_by_name(kl == 16 ? "des-ede" : "des-ede3"), key, kl,
				    (enum fb_mac_pad)method, m, ml, a, 4 + tu_below(r, 5));
			tu_check(&st, ok && !rc && !memcmp(a, want, 4), "retail MAC %zu-byte key, method %d, %zu bytes",
				 kl, method, ml);
		}
	}
}

static void kcv_and_keys(tu_rng *r)
{
	uint8_t key[24], a[8], want[8] = { 0 }, k2[24];
	for (int t = 0; t < 50; t++) {
		tu_fill(r, key, 24);
		memset(want, 0, 8);
		int ok = ossl_ecb("DES-EDE3-ECB", 1, key, want);
		tu_check(&st, ok && !fb_kcv(fb_cipher_by_name("des-ede3-cbc"), key, 24, 0, a, 3) && !memcmp(a, want, 3),
			 "KCV 3DES");
	}
	for (size_t kl = 8; kl <= 24; kl += 8) {
		tu_check(&st, fb_des_random_key(key, kl) == FB_OK && fb_des_check_parity(key, kl),
			 "random %zu-byte key: parity", kl);
		for (size_t i = 0; i < kl; i += 8)
			tu_check(&st, !fb_des_is_weak_key(key + i), "random key: weak part");
		tu_check(&st, !fb_des_random_key(k2, kl) && memcmp(key, k2, kl), "two random keys are equal");
	}
}

static void bad_input(void)
{
	uint8_t key[24] = { 1, 2, 3 }, out[17];
	const fb_cipher *aes = fb_cipher_by_name("aes-128-ecb"), *tdes = fb_cipher_by_name("des-ede3");
	struct { int rc, want; const char *what; } cases[] = {
		{ fb_mac(FB_MAC_CMAC, aes, key, 15, FB_MAC_PAD_NONE, key, 3, out, 16), FB_ERR_KEY_LENGTH, "CMAC 15-byte AES key" },
		{ fb_mac(FB_MAC_CBC, tdes, key, 24, FB_MAC_PAD1, key, 0, out, 8), FB_ERR_DATA_LENGTH, "method 1, empty" },
		{ fb_mac(FB_MAC_CBC, tdes, key, 24, FB_MAC_PAD2, key, 3, out, 0), FB_ERR_OUTPUT_SPACE, "truncation 0" },
		{ fb_mac(FB_MAC_CMAC, aes, key, 16, FB_MAC_PAD_NONE, key, 3, out, 17), FB_ERR_OUTPUT_SPACE, "truncation 17" },
		{ fb_mac(FB_MAC_RETAIL, aes, key, 16, FB_MAC_PAD1, key, 3, out, 8), FB_ERR_ARGUMENT, "retail MAC over AES" },
		{ fb_mac(FB_MAC_RETAIL, fb_cipher_by_name("des-cbc"), key, 8, FB_MAC_PAD1, key, 3, out, 8), FB_ERR_KEY_LENGTH, "retail MAC, one DES key" },
		{ fb_mac(FB_MAC_CMAC, aes, key, 16, FB_MAC_PAD2, key, 3, out, 8), FB_ERR_ARGUMENT, "CMAC with ISO padding" },
		{ fb_mac(FB_MAC_CBC, fb_cipher_by_name("aes-128-xts"), key, 32, FB_MAC_PAD1, key, 3, out, 8), FB_ERR_ARGUMENT, "XTS name" },
		{ fb_kcv(tdes, key, 24, 0, out, 9), FB_ERR_OUTPUT_SPACE, "KCV of 9 bytes from a 64-bit block" },
		{ fb_des_random_key(key, 12), FB_ERR_KEY_LENGTH, "random key of 12 bytes" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		tu_check(&st, cases[i].rc == cases[i].want, "%s: returned %d, expected %d", cases[i].what, cases[i].rc,
			 cases[i].want);
	tu_canary(out, sizeof out);
	fb_mac(FB_MAC_CBC, tdes, key, 24, FB_MAC_PAD1, key, 0, out, 8);
	tu_check(&st, tu_canary_intact(out, sizeof out), "output written despite an error");
	fb_mac_ctx *m = fb_mac_new();
	tu_check(&st, fb_mac_update(m, key, 3) == FB_ERR_STATE, "update before init");
	tu_check(&st, fb_mac_init(m, FB_MAC_CBC, tdes, key, 24, FB_MAC_PAD3) == FB_ERR_ARGUMENT,
		 "streaming method 3");
	fb_mac_free(m);
}


/* Batches against single calls (fb_mac / fb_kcv, which the tests above
 * hold against OpenSSL): every algorithm and padding, DES families (lane
 * engines) and others (one at a time), batch sizes across a lane set (256
 * lanes on AVX2, 512 on AVX-512); messages of mixed lengths, and of one
 * length (the lane engines' path without the sort by length). */
#define BN 600
/* Batches larger than one pass of the library's lane batches (2,048 keys):
 * 3DES KCVs and two-key retail MACs of mixed lengths, against single calls. */
#define BIG 4500
static void big_batches(tu_rng *r)
{
	static uint8_t keys[BIG][24], msgs[BIG][40], got[BIG * 8], want[BIG * 8];
	static const uint8_t *kp[BIG], *mp[BIG];
	static size_t len[BIG];
	const fb_cipher *tdes = fb_cipher_by_name("des-ede3"), *ede = fb_cipher_by_name("des-ede");
	for (size_t i = 0; i < BIG; i++) {
		tu_fill(r, keys[i], 24);
		len[i] = 1 + tu_below(r, 40);
		tu_fill(r, msgs[i], len[i]);
		kp[i] = keys[i], mp[i] = msgs[i];
	}
	int rc = fb_kcv_batch(tdes, BIG, kp, 24, 0, got, 3), ok = 1;
	for (size_t i = 0; i < BIG && ok; i++)
		ok = !fb_kcv(tdes, keys[i], 24, 0, want + 3 * i, 3);
	tu_check(&st, ok && !rc && !memcmp(got, want, 3 * BIG), "fb_kcv_batch, %d keys", BIG);
	rc = fb_mac_batch(FB_MAC_RETAIL, ede, BIG, kp, 16, FB_MAC_PAD2, mp, len, got, 8);
	for (size_t i = 0; i < BIG && ok; i++)
		ok = !fb_mac(FB_MAC_RETAIL, ede, keys[i], 16, FB_MAC_PAD2, msgs[i], len[i], want + 8 * i, 8);
	tu_check(&st, ok && !rc && !memcmp(got, want, 8 * BIG), "fb_mac_batch retail, %d keys", BIG);
}

static void batches(tu_rng *r)
{
	static uint8_t keys[BN][32], msgs[BN][80], got[BN * 16], want[BN * 16];
	const uint8_t *kp[BN], *mp[BN];
	size_t len[BN];
	static const struct { const char *cipher; enum fb_mac_alg alg; size_t kl; } cs[] = {
		{ "des-ede3-cbc", FB_MAC_CBC, 24 }, { "des-cbc", FB_MAC_CBC, 8 }, { "des-ede", FB_MAC_CBC, 16 },
		{ "des-ede3", FB_MAC_RETAIL, 24 }, { "des-ede", FB_MAC_RETAIL, 16 }, { "aes-128-cbc", FB_MAC_CBC, 16 },
		{ "des-ede3", FB_MAC_CMAC, 24 }, { "twofish-256-cbc", FB_MAC_CBC, 32 },
	};
	static const size_t ns[] = { 1, 5, 13, 40, 257, 300, 513, BN };
	for (size_t i = 0; i < BN; i++)
		kp[i] = keys[i], mp[i] = msgs[i];
	for (size_t c = 0; c < sizeof cs / sizeof *cs; c++)
		for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
			const fb_cipher *ci = fb_cipher_by_name(cs[c].cipher);
			size_t n = ns[t], bs = fb_cipher_block_size(ci), ml = 1 + tu_below(r, bs);
			enum fb_mac_pad pad = cs[c].alg == FB_MAC_CMAC ? FB_MAC_PAD_NONE : (enum fb_mac_pad)(1 + tu_below(r, 3));
			for (size_t i = 0; i < n; i++) {
				tu_fill(r, keys[i], 32);
				len[i] = (t & 1) && i ? len[0] : tu_below(r, 81);
				if (pad == FB_MAC_PAD1 && !len[i])
					len[i] = 1;
				tu_fill(r, msgs[i], len[i]);
			}
			int rc = fb_mac_batch(cs[c].alg, ci, n, kp, cs[c].kl, pad, mp, len, got, ml), ok = 1;
			for (size_t i = 0; i < n && ok; i++)
				ok = !fb_mac(cs[c].alg, ci, keys[i], cs[c].kl, pad, msgs[i], len[i], want + i * ml, ml);
			tu_check(&st, ok && !rc && !memcmp(got, want, n * ml), "fb_mac_batch %s alg %d pad %d, %zu keys",
				 cs[c].cipher, (int)cs[c].alg, (int)pad, n);
			int cmac = cs[c].alg == FB_MAC_CMAC;
			rc = fb_kcv_batch(ci, n, kp, cs[c].kl, cmac, got, 3);
			for (size_t i = 0; i < n && ok; i++)
				ok = !fb_kcv(ci, keys[i], cs[c].kl, cmac, want + i * 3, 3);
			tu_check(&st, ok && !rc && !memcmp(got, want, n * 3), "fb_kcv_batch %s cmac %d, %zu keys",
				 cs[c].cipher, cmac, n);
		}
	/* one bad entry refuses the whole batch, and nothing is written */
	const fb_cipher *tdes = fb_cipher_by_name("des-ede3-cbc");
	for (size_t i = 0; i < 50; i++)
		len[i] = 8;
	len[37] = 0; /* empty under method 1 */
	tu_canary(got, sizeof got);
	tu_check(&st, fb_mac_batch(FB_MAC_CBC, tdes, 50, kp, 24, FB_MAC_PAD1, mp, len, got, 8) == FB_ERR_DATA_LENGTH,
		 "batch with an empty message under method 1");
	len[37] = 8;
	kp[20] = NULL;
	tu_check(&st, fb_mac_batch(FB_MAC_CBC, tdes, 50, kp, 24, FB_MAC_PAD1, mp, len, got, 8) == FB_ERR_ARGUMENT,
		 "batch with a NULL key");
	tu_check(&st, fb_kcv_batch(tdes, 50, kp, 24, 0, got, 3) == FB_ERR_ARGUMENT, "KCV batch with a NULL key");
	kp[20] = keys[20];
	tu_check(&st, fb_mac_batch(FB_MAC_CBC, tdes, 50, kp, 16, FB_MAC_PAD1, mp, len, got, 8) == FB_ERR_KEY_LENGTH,
		 "batch with the wrong key length");
	tu_check(&st, fb_kcv_batch(tdes, 50, kp, 16, 0, got, 3) == FB_ERR_KEY_LENGTH, "KCV batch, wrong key length");
	tu_check(&st, fb_mac_batch(FB_MAC_CBC, tdes, 50, kp, 24, FB_MAC_PAD1, mp, len, got, 9) == FB_ERR_OUTPUT_SPACE,
		 "batch MAC longer than the block");
	tu_check(&st, fb_kcv_batch(tdes, 50, kp, 24, 0, got, 0) == FB_ERR_OUTPUT_SPACE, "KCV batch of 0 bytes");
	tu_check(&st, tu_canary_intact(got, sizeof got), "a refused batch wrote output");
}

/* One NIST CAVP CMACGen file (.rsp): records of Count, Klen (TDES), Mlen,
 * Tlen, Key or Key1..Key3, Msg, Mac. TDES two-key records have Key3 =
 * Key1, passed as a 16-byte key. Returns the records checked. */
static size_t cavp_file(const char *path, const char *cipher)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		tu_check(&st, 0, "cannot open %s", path);
		return 0;
	}
	const fb_cipher *c = fb_cipher_by_name(cipher);
	static char line[2 * 65536 + 64];
	static uint8_t msg[65536 + 16];
	uint8_t key[32], want[16], got[16];
	size_t kl = 0, ml = 0, mlen = 0, tl = 0, wl = 0, n = 0, count = 0;
	int klen = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		char *eq = strstr(line, " = ");
		if (!eq)
			continue;
		*eq = 0;
		const char *v = eq + 3;
		size_t t;
		if (!strcmp(line, "Count")) {
			count = strtoul(v, NULL, 10);
			kl = 0;
		} else if (!strcmp(line, "Klen")) {
			klen = atoi(v);
		} else if (!strcmp(line, "Mlen")) {
			mlen = strtoul(v, NULL, 10);
		} else if (!strcmp(line, "Tlen")) {
			tl = strtoul(v, NULL, 10);
		} else if (!strcmp(line, "Key") || !strcmp(line, "Key1") || !strcmp(line, "Key2")) {
			hexin(v, key + kl, &t);
			kl += t;
		} else if (!strcmp(line, "Key3")) {
			if (klen == 3) {
				hexin(v, key + kl, &t);
				kl += t;
			}
		} else if (!strcmp(line, "Msg")) {
			hexin(v, msg, &ml);
			ml = mlen; /* Mlen = 0 is written as "Msg = 00" */
		} else if (!strcmp(line, "Mac")) {
			hexin(v, want, &wl);
			int rc = fb_mac(FB_MAC_CMAC, c, key, kl, FB_MAC_PAD_NONE, msg, ml, got, tl);
			tu_check(&st, c && rc == FB_OK && wl == tl && !memcmp(got, want, tl),
				 "%s Count = %zu (%zu-byte key, %zu-byte message, %zu-byte tag): rc %d", path, count, kl,
				 ml, tl, rc);
			n++;
		}
	}
	fclose(f);
	return n;
}

/* The CAVP CMACGen files (source in the directory's SOURCE.txt): every
 * record, with its truncated tag length; the record counts are fixed. */
static void cavp(const char *dir)
{
	static const struct { const char *file, *cipher; size_t records; } files[] = {
		{ "CMACGenAES128.rsp", "aes-128-ecb", 96 }, { "CMACGenAES192.rsp", "aes-192-ecb", 144 },
		{ "CMACGenAES256.rsp", "aes-256-ecb", 96 }, { "CMACGenTDES2.rsp", "des-ede-ecb", 96 },
		{ "CMACGenTDES3.rsp", "des-ede3-ecb", 96 },
	};
	char path[4096];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i].file);
		size_t n = cavp_file(path, files[i].cipher);
		tu_check(&st, n == files[i].records, "%s: %zu records checked, want %zu", files[i].file, n,
			 files[i].records);
		printf("CAVP %s: %zu records\n", files[i].file, n);
	}
}

/* One record of tests/vectors/mac/retail_cbcmac.txt, filled line by line. */
typedef struct mac_rec {
	char alg[16], cipher[32];
	int pad, line;
	uint8_t key[32], msg[512], mac[16];
	size_t kl, ml, tl;
} mac_rec;

#define MAC_FILE_RECORDS 117

/* Strict hex into at most cap bytes: 0 on odd length, a bad digit or overflow. */
static int hex_strict(const char *h, uint8_t *out, size_t cap, size_t *n)
{
	size_t len = strlen(h);
	if (len % 2 || len / 2 > cap || strspn(h, "0123456789abcdefABCDEF") != len)
		return 0;
	hexin(h, out, n);
	return 1;
}

/* Stores the field `name = v`; 0 when the name is unknown or v malformed. */
static int mac_rec_field(mac_rec *r, const char *name, const char *v)
{
	if (!strcmp(name, "alg"))
		return snprintf(r->alg, sizeof r->alg, "%s", v) < (int)sizeof r->alg;
	if (!strcmp(name, "cipher"))
		return snprintf(r->cipher, sizeof r->cipher, "%s", v) < (int)sizeof r->cipher;
	if (!strcmp(name, "pad"))
		return (r->pad = atoi(v)) >= 1 && r->pad <= 3;
	if (!strcmp(name, "key"))
		return hex_strict(v, r->key, sizeof r->key, &r->kl);
	if (!strcmp(name, "msg"))
		return hex_strict(v, r->msg, sizeof r->msg, &r->ml);
	if (!strcmp(name, "mac"))
		return hex_strict(v, r->mac, sizeof r->mac, &r->tl) && r->tl > 0;
	return 0;
}

/* The record's MAC one-shot and, for methods 1 and 2, streamed in random
 * pieces: both must give the published bytes. */
static void mac_rec_check(tu_rng *rng, const mac_rec *r, const char *path)
{
	int retail = !strcmp(r->alg, "retail");
	enum fb_mac_alg alg = retail ? FB_MAC_RETAIL : FB_MAC_CBC;
	const fb_cipher *c = fb_cipher_by_name(r->cipher);
	uint8_t got[16], split[16];
	int known = retail || !strcmp(r->alg, "cbc-mac");
	int rc = fb_mac(alg, c, r->key, r->kl, (enum fb_mac_pad)r->pad, r->msg, r->ml, got, r->tl);
	tu_check(&st, known && c && rc == FB_OK && !memcmp(got, r->mac, r->tl),
		 "%s:%d: %s %s pad %d, %zu-byte message: rc %d or a different MAC", path, r->line, r->alg,
		 r->cipher, r->pad, r->ml, rc);
	if (r->pad == 3)
		return;
	rc = fb_mac_split(rng, alg, c, r->key, r->kl, (enum fb_mac_pad)r->pad, r->msg, r->ml, split, r->tl);
	tu_check(&st, known && c && rc == FB_OK && !memcmp(split, r->mac, r->tl), "%s:%d: streamed: rc %d",
		 path, r->line, rc);
}

/* One line of the file into r; checks r when the line completes it (the
 * mac line). Returns 1 for a completed record. */
static int mac_file_line(tu_rng *rng, mac_rec *r, char *line, const char *path, int ln)
{
	char *eq = strstr(line, " = ");
	if (line[0] == '#' || !line[0])
		return 0;
	if (eq)
		*eq = 0;
	if (!eq || !mac_rec_field(r, line, eq + 3)) {
		tu_fail(&st, "%s:%d: malformed line", path, ln);
		return 0;
	}
	if (!r->line)
		r->line = ln;
	if (strcmp(line, "mac"))
		return 0;
	mac_rec_check(rng, r, path);
	memset(r, 0, sizeof *r);
	return 1;
}

/* Every record of the retail MAC / CBC-MAC file (sources in SOURCE.txt
 * beside it); fails unless exactly MAC_FILE_RECORDS are read and match. */
static void mac_file(tu_rng *rng, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1200];
	mac_rec r = { .line = 0 };
	size_t n = 0;
	for (int ln = 1; f && fgets(line, sizeof line, f); ln++) {
		line[strcspn(line, "\r\n")] = 0;
		n += (size_t)mac_file_line(rng, &r, line, path, ln);
	}
	tu_check(&st, f != NULL, "cannot open %s", path);
	tu_check(&st, n == MAC_FILE_RECORDS, "%s: %zu records checked, want %d", path, n, MAC_FILE_RECORDS);
	printf("retail MAC / CBC-MAC vectors: %zu records\n", n);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	double t0 = tu_now();
	st.seed = tu_seed();
	tu_rng r = { st.seed };
	/* single DES for the retail MAC's reference; unloaded at the end, which
	 * LeakSanitizer otherwise reports against OpenSSL 3.0.19 */
	OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy");
	OSSL_PROVIDER *deflt = OSSL_PROVIDER_load(NULL, "default");
	rfc4493();
	if (argc > 1)
		cavp(argv[1]);
	if (tu_check(&st, argc > 2, "usage: test_mac CMAC_DIR MAC_VECTOR_FILE (no vector file given)"))
		mac_file(&r, argv[2]);
	random_cmac(&r);
	random_cbc_retail(&r);
	kcv_and_keys(&r);
	bad_input();
	batches(&r);
	big_batches(&r);
	if (legacy)
		OSSL_PROVIDER_unload(legacy);
	if (deflt)
		OSSL_PROVIDER_unload(deflt);
	return tu_finish(&st, "test_mac", tu_now() - t0);
}
