/*
 * batch_mac.c - `fastblock speed --mac-batch`: the key-management workloads
 * of issue 16, each many keys at once, against an OpenSSL EVP loop in the
 * same process (one EVP call sequence per key, as key-management code
 * does it today):
 *   kcv     3-byte KCVs (E(K, 0)) of N distinct 3DES keys;
 *   retail  ISO 9797-1 algorithm 3 MACs (padding method 2) of N 64-byte
 *           messages, each under its own 2-key 3DES key;
 *   cmac    CMACs of N 64-byte messages under N AES-128 keys.
 * The outputs are compared byte for byte before anything is timed; a
 * mismatch is reported and exits 1. Figures: milliseconds per batch,
 * median of a few runs, and the ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include "fastblock.h"
#include "bench_timing.h"

#define MSG 64

typedef struct mac_job {
	size_t n;
	uint8_t *keys, *msgs, *ours, *theirs;
	const uint8_t **kp, **mp;
	size_t *lens;
	size_t klen, olen;
	int what; /* 0 kcv, 1 retail, 2 cmac */
} mac_job;

static int ossl_kcv(const uint8_t *key, uint8_t *out)
{
	static const uint8_t zero[8];
	uint8_t blk[16];
	int n = 0, ok;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	ok = c && EVP_EncryptInit_ex(c, EVP_des_ede3_ecb(), NULL, key, NULL) &&
	     EVP_CIPHER_CTX_set_padding(c, 0) && EVP_EncryptUpdate(c, blk, &n, zero, 8);
	EVP_CIPHER_CTX_free(c);
	memcpy(out, blk, 3);
	return ok;
}

/* Single-DES CBC-MAC under K1 of the padded message, then D(K2), E(K1). */
static int ossl_retail(const uint8_t *key, const uint8_t *m, uint8_t *out)
{
	static const uint8_t zero[8];
	uint8_t buf[MSG + 8], y[MSG + 8];
	int n = 0, ok;
	memcpy(buf, m, MSG);
	buf[MSG] = 0x80;
	memset(buf + MSG + 1, 0, 7);
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	ok = c && EVP_EncryptInit_ex(c, EVP_des_cbc(), NULL, key, zero) && EVP_CIPHER_CTX_set_padding(c, 0) &&
	     EVP_EncryptUpdate(c, y, &n, buf, MSG + 8) &&
	     EVP_DecryptInit_ex(c, EVP_des_ecb(), NULL, key + 8, NULL) && EVP_CIPHER_CTX_set_padding(c, 0) &&
	     EVP_DecryptUpdate(c, y, &n, y + MSG, 8) &&
	     EVP_EncryptInit_ex(c, EVP_des_ecb(), NULL, key, NULL) && EVP_CIPHER_CTX_set_padding(c, 0) &&
	     EVP_EncryptUpdate(c, out, &n, y, 8);
	EVP_CIPHER_CTX_free(c);
	return ok;
}

static int ossl_cmac(EVP_MAC *mac, const uint8_t *key, const uint8_t *m, uint8_t *out)
{
	size_t len = 0;
	OSSL_PARAM p[2] = { OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, "AES-128-CBC", 0),
			    OSSL_PARAM_construct_end() };
	EVP_MAC_CTX *c = EVP_MAC_CTX_new(mac);
	int ok = c && EVP_MAC_init(c, key, 16, p) && EVP_MAC_update(c, m, MSG) && EVP_MAC_final(c, out, &len, 16);
	EVP_MAC_CTX_free(c);
	return ok;
}

static EVP_MAC *cmac_alg;

static void run_ours(void *arg)
{
	mac_job *j = arg;
	const fb_cipher *tdes = fb_cipher_by_name(j->what == 1 ? "des-ede" : "des-ede3");
	if (j->what == 0)
		fb_kcv_batch(tdes, j->n, j->kp, 24, 0, j->ours, 3);
	else if (j->what == 1)
		fb_mac_batch(FB_MAC_RETAIL, tdes, j->n, j->kp, 16, FB_MAC_PAD2, j->mp, j->lens, j->ours, 8);
	else
		fb_mac_batch(FB_MAC_CMAC, fb_cipher_by_name("aes-128-ecb"), j->n, j->kp, 16, FB_MAC_PAD_NONE,
			     j->mp, j->lens, j->ours, 16);
}

static void run_theirs(void *arg)
{
	mac_job *j = arg;
	for (size_t i = 0; i < j->n; i++) {
		if (j->what == 0)
			ossl_kcv(j->kp[i], j->theirs + 3 * i);
		else if (j->what == 1)
			ossl_retail(j->kp[i], j->mp[i], j->theirs + 8 * i);
		else
			ossl_cmac(cmac_alg, j->kp[i], j->mp[i], j->theirs + 16 * i);
	}
}

static int job_init(mac_job *j, int what, size_t n, uint64_t seed)
{
	static const size_t klens[3] = { 24, 16, 16 }, olens[3] = { 3, 8, 16 };
	memset(j, 0, sizeof *j);
	j->n = n, j->what = what, j->klen = klens[what], j->olen = olens[what];
	j->keys = malloc(n * 24);
	j->msgs = malloc(n * MSG);
	j->ours = malloc(n * 16);
	j->theirs = malloc(n * 16);
	j->kp = malloc(n * sizeof *j->kp);
	j->mp = malloc(n * sizeof *j->mp);
	j->lens = malloc(n * sizeof *j->lens);
	if (!j->keys || !j->msgs || !j->ours || !j->theirs || !j->kp || !j->mp || !j->lens)
		return -1;
	for (size_t i = 0; i < n * 24; i++) /* xorshift: distinct keys, reproducible */
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, j->keys[i] = (uint8_t)seed;
	for (size_t i = 0; i < n * MSG; i++)
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17, j->msgs[i] = (uint8_t)seed;
	for (size_t i = 0; i < n; i++) {
		j->kp[i] = j->keys + 24 * i;
		j->mp[i] = j->msgs + MSG * i;
		j->lens[i] = MSG;
	}
	return 0;
}

static void job_free(mac_job *j)
{
	free(j->keys), free(j->msgs), free(j->ours), free(j->theirs);
	free((void *)j->kp), free((void *)j->mp), free(j->lens);
}

int fb_bench_mac_batch(const bench_clock *clk, size_t n, uint64_t seed)
{
	static const char *const names[3] = { "kcv 3des", "retail 2-key 3des", "cmac aes-128" };
	OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy"); /* single DES */
	OSSL_PROVIDER *deflt = OSSL_PROVIDER_load(NULL, "default");
	cmac_alg = EVP_MAC_fetch(NULL, "CMAC", NULL);
	int rc = 0;
	printf("# %zu keys per batch, 64-byte messages; ms per batch (median), OpenSSL %s EVP loop\n"
	       "%-20s %10s %10s %8s\n", n, OPENSSL_VERSION_STR, "workload", "fastblock", "openssl",
	       "ratio");
	for (int w = 0; w < 3; w++) {
		mac_job j;
		if (job_init(&j, w, n, seed + (uint64_t)w)) {
			job_free(&j);
			rc = 2;
			break;
		}
		run_ours(&j);
		run_theirs(&j);
		int same = 1;
		for (size_t i = 0; i < n && same; i++)
			same = !memcmp(j.ours + j.olen * i, j.theirs + j.olen * i, j.olen);
		if (!same) {
			printf("%-20s MISMATCH with OpenSSL: not timed\n", names[w]);
			rc = 1;
		} else {
			bench_stats a, b;
			bench_measure(clk, run_ours, NULL, &j, 0.5, 5, 15, &a);
			bench_measure(clk, run_theirs, NULL, &j, 0.5, 5, 15, &b);
			double ms = 1e3 / clk->tsc_hz;
			printf("%-20s %10.2f %10.2f %7.2fx\n", names[w], a.median * ms, b.median * ms,
			       b.median / a.median);
		}
		job_free(&j);
	}
	EVP_MAC_free(cmac_alg);
	if (legacy)
		OSSL_PROVIDER_unload(legacy);
	if (deflt)
		OSSL_PROVIDER_unload(deflt);
	return rc;
}
