/*
 * Table-driven known-answer tests: every record of the given vector files,
 * through the public API, for every implementation of the record's family
 * that this CPU runs (forced by name) and for the default choice.
 * Monte Carlo records are recomputed by the procedure the file names.
 *
 * usage: test_kat FILE...   (FB_QUICK=1: Monte Carlo only for the default
 * choice and the portable kernels; FASTBLOCK_IMPL restricts as usual)
 *
 * The default choice runs every Monte Carlo record. The other kernels that
 * run them (one-block kernels) share them out: the i-th Monte Carlo record
 * of a file runs on the family's (i mod n)-th such kernel. A record is
 * 400 x 10,000 chained one-block calls (TDESAVS), ~1.3 s for 3DES, and the
 * kernels differ only in the block function, which the plain records
 * already check on each of them; so every kernel still runs Monte Carlo
 * chains of several modes and keys, and the suite's longest test takes
 * a third of the time of running them all on each kernel.
 *
 * Consecutive one-block ECB records under one key (the submissions'
 * variable-text and table sets, NESSIE's sets) also run as one long
 * message, the group's blocks repeated to GROUP_BLOCKS: a wide kernel's
 * whole batches and its tail then meet known answers, not only its
 * one-block path.
 */
#include "test_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "fastblock.h"
#include "kat_file.h"

/* Blocks of a group's message: three 256-block batches and a tail, more
 * than the widest batch of any kernel (512 lanes). */
#define GROUP_BLOCKS (3 * 256 + 5)
#define GROUP_MAX 512 /* records a group keeps */

/* The one-block ECB records met since the key last changed. */
typedef struct {
	char name[48];
	uint8_t key[64];
	size_t key_len, bs, n;
	uint8_t pt[GROUP_MAX][16], ct[GROUP_MAX][16];
	int line; /* of the group's first record */
} kat_group;

typedef struct {
	const char *impl; /* NULL = default choice */
	int quick_mct;    /* run Monte Carlo records */
	int share, shares; /* ...those whose index mod shares is share */
	long mct_seen;     /* Monte Carlo records of this family met so far */
	long pass, fail, skip;
	tu_skips *why;
	kat_group *group;
} run_ctx;

/* "AES-128"+"CBC" -> "aes-128-cbc", "TDES-2KEY" -> "des-ede-...". */
static int cipher_name(const kat_record *r, const char *mode, char *out, size_t cap)
{
	char fam[32];
	if (!strcasecmp(r->alg, "DES")) snprintf(fam, sizeof fam, "des");
	else if (!strcasecmp(r->alg, "TDES-2KEY")) snprintf(fam, sizeof fam, "des-ede");
	else if (!strcasecmp(r->alg, "TDES-3KEY")) snprintf(fam, sizeof fam, "des-ede3");
	else {
		snprintf(fam, sizeof fam, "%s", r->alg);
		for (char *p = fam; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	}
	const char *m = mode;
	if (!strcasecmp(m, "CFB64") || !strcasecmp(m, "CFB128")) m = "cfb";
	char lm[16];
	snprintf(lm, sizeof lm, "%s", m);
	for (char *p = lm; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	return snprintf(out, cap, "%s-%s", fam, lm) >= (int)cap ? -1 : 0;
}


static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) fprintf(stderr, "%02x", p[i]);
}

/* ---- plain records ---------------------------------------------------------- */

static int check_plain(const kat_record *r, const fb_cipher *c, run_ctx *rc)
{
	fb_options opt = { .padding = FB_PAD_NONE, .impl = rc->impl };
	uint8_t out[512];
	size_t n = 0;
	int ok = 1;
	int e = fb_encrypt(c, r->key, r->key_len, r->iv_len ? r->iv : NULL, r->iv_len,
			   r->pt, r->pt_len, out, sizeof out, &n, &opt);
	if (e || n != r->ct_len || memcmp(out, r->ct, n)) {
		fprintf(stderr, "FAIL encrypt %s impl=%s line %d (%s): err=%d got ", fb_cipher_name(c),
			rc->impl ? rc->impl : "default", r->line, r->source, e);
		hex(out, n);
		fprintf(stderr, "\n");
		ok = 0;
	}
	e = fb_decrypt(c, r->key, r->key_len, r->iv_len ? r->iv : NULL, r->iv_len, r->ct,
		       r->ct_len, out, sizeof out, &n, &opt);
	if (e || n != r->pt_len || memcmp(out, r->pt, n)) {
		fprintf(stderr, "FAIL decrypt %s impl=%s line %d: err=%d\n", fb_cipher_name(c),
			rc->impl ? rc->impl : "default", r->line, e);
		ok = 0;
	}
	return ok;
}

/* ---- Monte Carlo -------------------------------------------------------------- */

typedef struct {
	fb_ctx *ctx;
	const fb_cipher *ecb;
	const char *impl;
	int decrypt;
} mct_cipher;

static int mct_key(mct_cipher *m, const uint8_t *key, size_t len, int decrypt)
{
	fb_options opt = { .padding = FB_PAD_NONE, .impl = m->impl };
	return fb_init(m->ctx, m->ecb, decrypt ? FB_DECRYPT : FB_ENCRYPT, key, len, NULL, 0, &opt);
}

static void mct_block(mct_cipher *m, uint8_t *out, const uint8_t *in, size_t bs)
{
	size_t n;
	fb_update(m->ctx, out, bs, &n, in, bs);
}

/* Key ^= the last key_len bytes of the output stream ending with the two
 * given blocks (AES-submission and AESAVS rule). */
static void key_xor_tail(uint8_t *key, size_t key_len, const uint8_t *prev, const uint8_t *last,
			 size_t bs)
{
	uint8_t tail[32];
	memcpy(tail, prev, bs);
	memcpy(tail + bs, last, bs);
	for (size_t i = 0; i < key_len; i++)
		key[i] ^= tail[2 * bs - key_len + i];
}

/* TDESAVS key update: K1 ^= o[0] (last), K2 ^= o[1], K3 ^= o[2], keeping
 * the keying option's equalities, odd parity restored. */
static void tdes_key_update(uint8_t *key, size_t key_len, int opt3, const uint8_t o[3][8])
{
	uint8_t k[24];
	memcpy(k, key, key_len);
	if (key_len == 16)
		memcpy(k + 16, key, 8);
	for (int i = 0; i < 8; i++) k[i] ^= o[0][i];
	if (opt3) {
		memcpy(k + 8, k, 8);
		memcpy(k + 16, k, 8);
	} else {
		for (int i = 0; i < 8; i++) k[8 + i] ^= o[1][i];
		if (key_len == 16 || !memcmp(key, key + 16, 8))
			memcpy(k + 16, k, 8);
		else
			for (int i = 0; i < 8; i++) k[16 + i] ^= o[2][i];
	}
	fb_des_set_parity(k, 24);
	memcpy(key, k, key_len);
}

/* CFB8 Monte Carlo (AESAVS 100 x 1000, TDESAVS 400 x 10000): one running
 * CFB8 stream whose next input byte is IV[j] for j < block, else the output
 * byte one block back (TDES decryption: the keystream byte). */
static int run_mct_cfb8(const kat_record *r, mct_cipher *m, int tdes, long inner)
{
	size_t bs = fb_cipher_block_size(m->ecb), kl = r->key_len;
	uint8_t key[32], iv[16], reg[16], blk[16];
	static uint8_t out[10000];
	memcpy(key, r->key, kl);
	memcpy(iv, r->iv, bs);
	uint8_t pin = r->decrypt ? r->ct[0] : r->pt[0];
	int opt3 = tdes && kl == 24 && !memcmp(r->key, r->key + 8, 8);
	for (long i = 0; i < r->iterations; i++) {
		mct_key(m, key, kl, 0);
		memcpy(reg, iv, bs);
		for (long j = 0; j < inner; j++) {
			mct_block(m, blk, reg, bs);
			out[j] = pin ^ blk[0];
			memmove(reg, reg + 1, bs - 1);
			reg[bs - 1] = r->decrypt ? pin : out[j];
			if (tdes && r->decrypt)
				pin = blk[0];
			else
				pin = (size_t)j < bs ? iv[j] : out[j - bs];
		}
		if (tdes) {
			uint8_t o[3][8];
			for (int t = 0; t < 3; t++) memcpy(o[t], out + inner - 8 * (t + 1), 8);
			tdes_key_update(key, kl, opt3, (const uint8_t(*)[8])o);
		} else {
			for (size_t b = 0; b < kl; b++) key[b] ^= out[inner - kl + b];
		}
		/* AESAVS reseeds the IV from the output stream in both directions. */
		memcpy(iv, tdes ? reg : out + inner - bs, bs);
	}
	const uint8_t *want = r->decrypt ? r->pt : r->ct;
	if (out[inner - 1] != want[0]) {
		fprintf(stderr, "FAIL MCT %s CFB8%s impl=%s line %d: got %02x\n", r->alg,
			r->decrypt ? " decrypt" : "", m->impl ? m->impl : "default", r->line, out[inner - 1]);
		return 0;
	}
	return 1;
}

/* Procedures by source: AESAVS (100 x 1000), TDESAVS and AES-submission
 * (400 x 10000). Returns 1 pass, 0 fail, -1 procedure not known. */
static int run_mct(const kat_record *r, run_ctx *rc)
{
	int tdes = !strncasecmp(r->alg, "TDES", 4);
	int avs = strstr(r->source, "aesmct") != NULL;
	long inner = avs ? 1000 : 10000;
	char name[48];
	kat_record ecb = *r;
	cipher_name(&ecb, "ECB", name, sizeof name);
	mct_cipher m = { fb_ctx_new(), fb_cipher_by_name(name), rc->impl, r->decrypt };
	if (!m.ctx || !m.ecb)
		return -1;
	size_t bs = fb_cipher_block_size(m.ecb), kl = r->key_len;
	uint8_t key[32], iv[16], in[16], out[16], hist[3][16], chain[16], nxt[16];
	memcpy(key, r->key, kl);
	memcpy(iv, r->iv, r->iv_len);
	memcpy(in, r->decrypt ? r->ct : r->pt, bs);
	if (!strcasecmp(r->mode, "CFB8")) {
		int ok = run_mct_cfb8(r, &m, tdes, inner);
		fb_ctx_free(m.ctx);
		return ok;
	}
	int opt3 = tdes && kl == 24 && !memcmp(r->key, r->key + 8, 8);
	int is_cbc = !strcasecmp(r->mode, "CBC"), is_ecb = !strcasecmp(r->mode, "ECB");
	int is_ofb = !strcasecmp(r->mode, "OFB"), is_cfb = !strncasecmp(r->mode, "CFB", 3) &&
		strcasecmp(r->mode, "CFB8");
	if (!is_cbc && !is_ecb && !((avs || tdes) && (is_ofb || is_cfb)))
		{ fb_ctx_free(m.ctx); return -1; }
	/* OFB and CFB use the forward cipher in both directions. */
	int cipher_dec = r->decrypt && (is_ecb || is_cbc);
	for (long i = 0; i < r->iterations; i++) {
		mct_key(&m, key, kl, cipher_dec);
		memcpy(chain, iv, bs);
		for (long j = 0; j < inner; j++) {
			if (is_ecb) {
				mct_block(&m, out, in, bs);
				memcpy(nxt, out, bs);
			} else if (is_cbc && !r->decrypt) {
				uint8_t x[16];
				for (size_t b = 0; b < bs; b++) x[b] = in[b] ^ chain[b];
				mct_block(&m, out, x, bs);
				/* next input: the IV after the first block, else the previous output */
				memcpy(nxt, j == 0 ? iv : hist[0], bs);
				memcpy(chain, out, bs);
			} else if (is_cbc) {
				mct_block(&m, out, in, bs);
				for (size_t b = 0; b < bs; b++) out[b] ^= chain[b];
				memcpy(chain, in, bs);
				if (avs)
					memcpy(nxt, j == 0 ? iv : hist[0], bs);
				else
					memcpy(nxt, out, bs);
			} else { /* OFB / CFB: one running stream */
				uint8_t o[16];
				mct_block(&m, o, chain, bs);
				for (size_t b = 0; b < bs; b++) out[b] = in[b] ^ o[b];
				if (tdes && is_ofb) /* TDESAVS: next input = I[j] */
					memcpy(nxt, chain, bs);
				else if (tdes && r->decrypt) /* TDESAVS CFB dec: next CT = O[j] */
					memcpy(nxt, o, bs);
				else
					memcpy(nxt, j == 0 ? iv : hist[0], bs);
				memcpy(chain, is_ofb ? o : (r->decrypt ? in : out), bs);
			}
			memcpy(hist[2], hist[1], bs);
			memcpy(hist[1], hist[0], bs);
			memcpy(hist[0], out, bs);
			memcpy(in, nxt, bs);
		}
		if (i + 1 == r->iterations)
			break;
		if (tdes) {
			uint8_t o[3][8];
			for (int t = 0; t < 3; t++) memcpy(o[t], hist[t], 8);
			tdes_key_update(key, kl, opt3, (const uint8_t(*)[8])o);
			if (is_cbc && !r->decrypt) { memcpy(in, hist[1], bs); memcpy(iv, hist[0], bs); }
			else if (is_cbc) { memcpy(iv, chain, bs); memcpy(in, hist[0], bs); }
			else if (is_ecb) memcpy(in, hist[0], bs);
			else memcpy(iv, chain, bs); /* OFB, CFB: the stream goes on */
		} else {
			key_xor_tail(key, kl, hist[1], hist[0], bs);
			if (is_ecb) memcpy(in, hist[0], bs);
			else if (avs || !r->decrypt) { memcpy(iv, hist[0], bs); memcpy(in, hist[1], bs); }
			else { memcpy(iv, chain, bs); memcpy(in, hist[0], bs); }
		}
	}
	fb_ctx_free(m.ctx);
	const uint8_t *want = r->decrypt ? r->pt : r->ct;
	if (memcmp(hist[0], want, bs)) {
		fprintf(stderr, "FAIL MCT %s %s%s impl=%s line %d: got ", r->alg, r->mode,
			r->decrypt ? " decrypt" : "", rc->impl ? rc->impl : "default", r->line);
		hex(hist[0], bs);
		fprintf(stderr, "\n");
		return 0;
	}
	return 1;
}

/* ---- groups of one-block ECB records, as one message ------------------------- */

static int check_group_dir(const fb_cipher *c, const kat_group *g, const run_ctx *rc, int enc, uint8_t *in,
			   uint8_t *want, uint8_t *out)
{
	size_t len = GROUP_BLOCKS * g->bs, n = 0;
	fb_options opt = { .padding = FB_PAD_NONE, .impl = rc->impl };
	for (size_t i = 0; i < GROUP_BLOCKS; i++) {
		memcpy(in + i * g->bs, enc ? g->pt[i % g->n] : g->ct[i % g->n], g->bs);
		memcpy(want + i * g->bs, enc ? g->ct[i % g->n] : g->pt[i % g->n], g->bs);
	}
	int e = (enc ? fb_encrypt : fb_decrypt)(c, g->key, g->key_len, NULL, 0, in, len, out, len, &n, &opt);
	if (e || n != len || memcmp(out, want, len)) {
		size_t i = 0;
		while (i < len && out[i] == want[i])
			i++;
		fprintf(stderr, "FAIL %s group %s impl=%s from line %d (%zu records as %d blocks): err=%d, block %zu\n",
			enc ? "encrypt" : "decrypt", g->name, rc->impl ? rc->impl : "default", g->line, g->n,
			GROUP_BLOCKS, e, i / g->bs);
		return 0;
	}
	return 1;
}

/* Runs the group (two records or more) as one message each way, then
 * empties it. */
static void flush_group(run_ctx *rc)
{
	kat_group *g = rc->group;
	const fb_cipher *c = g->n >= 2 ? fb_cipher_by_name(g->name) : NULL;
	if (c) {
		size_t len = GROUP_BLOCKS * g->bs;
		uint8_t *buf = malloc(3 * len);
		int ok = buf && check_group_dir(c, g, rc, 1, buf, buf + len, buf + 2 * len) &&
			 check_group_dir(c, g, rc, 0, buf, buf + len, buf + 2 * len);
		free(buf);
		if (ok) rc->pass++; else rc->fail++;
	}
	g->n = 0;
}

static void add_to_group(run_ctx *rc, const kat_record *r, const char *name, size_t bs)
{
	kat_group *g = rc->group;
	int same = g->n && !strcmp(g->name, name) && g->key_len == r->key_len &&
		   !memcmp(g->key, r->key, r->key_len);
	if (!same || g->n == GROUP_MAX) {
		flush_group(rc);
		snprintf(g->name, sizeof g->name, "%s", name);
		memcpy(g->key, r->key, r->key_len);
		g->key_len = r->key_len;
		g->bs = bs;
		g->line = r->line;
	}
	memcpy(g->pt[g->n], r->pt, bs);
	memcpy(g->ct[g->n], r->ct, bs);
	g->n++;
}

static int on_record(const kat_record *r, void *arg)
{
	run_ctx *rc = arg;
	char name[48];
	if (cipher_name(r, r->mode, name, sizeof name)) { rc->fail++; return 0; }
	const fb_cipher *c = fb_cipher_by_name(name);
	if (!c) { rc->skip++; tu_skips_add(rc->why, "cipher not in this build"); return 0; }
	if (rc->impl && strncasecmp(rc->impl, fb_cipher_family(c), strlen(fb_cipher_family(c))))
		return 0; /* another family's implementation */
	int ok;
	if (r->iterations) {
		if (!rc->quick_mct) {
			rc->skip++;
			tu_skips_add(rc->why, "Monte Carlo record, not run for this wide or quick-mode kernel");
			return 0;
		}
		if (rc->mct_seen++ % rc->shares != rc->share) {
			rc->skip++;
			tu_skips_add(rc->why, "Monte Carlo record, run on another one-block kernel of its family");
			return 0;
		}
		ok = run_mct(r, rc);
		if (ok < 0) {
			static int said;
			if (!said++)
				printf("note: Monte Carlo procedure for %s %s not implemented; such records skipped\n",
				       r->alg, r->mode);
			rc->skip++;
			tu_skips_add(rc->why, "Monte Carlo procedure not implemented");
			return 0;
		}
	} else {
		ok = check_plain(r, c, rc);
		size_t bs = fb_cipher_block_size(c);
		if (!strcasecmp(r->mode, "ECB") && r->pt_len == bs && r->ct_len == bs && bs <= 16)
			add_to_group(rc, r, name, bs);
		else
			flush_group(rc);
	}
	if (ok) rc->pass++; else rc->fail++;
	return 0;
}

/* Which implementations run Monte Carlo records, and their shares of
 * them: mct[k] is -1 for one FASTBLOCK_IMPL leaves out, else 1 if it runs
 * them. Monte Carlo chains run one block at a time, which a wide kernel
 * hands to its narrow path: they run on the default choice (all of them)
 * and on the one-block kernels (unless quick, only the portable ones),
 * which share them out within their family. */
static void plan_mct(const char **impls, int nimpl, int quick, int *mct, int *share, int *shares)
{
	const char *env = getenv("FASTBLOCK_IMPL");
	for (int k = 0; k < nimpl; k++) {
		share[k] = 0;
		shares[k] = 1;
		if (impls[k] && env && *env && !strstr(env, impls[k])) {
			mct[k] = -1;
			continue;
		}
		fb_impl_info ki;
		int narrow = 0, portable = 0;
		for (size_t i = 0; impls[k] && fb_impl_at(i, &ki) == FB_OK; i++)
			if (!strcmp(ki.name, impls[k])) {
				narrow = ki.batch <= 1;
				portable = !*ki.cpu_needs; /* needs no CPU feature */
			}
		mct[k] = !impls[k] || (narrow && (!quick || portable));
	}
	for (int k = 0; k < nimpl; k++) {
		if (!impls[k] || mct[k] != 1)
			continue;
		size_t fam = strcspn(impls[k], "/");
		for (int j = 0; j < nimpl; j++)
			if (j != k && impls[j] && mct[j] == 1 && !strncmp(impls[j], impls[k], fam + 1)) {
				share[k] += j < k;
				shares[k]++;
			}
	}
}

int main(int argc, char **argv)
{
	int quick = getenv("FB_QUICK") && *getenv("FB_QUICK") == '1';
	long pass = 0, fail = 0, skip = 0;
	tu_skips why = { { 0 }, { 0 } };
	kat_group *group = calloc(1, sizeof *group);
	if (!group)
		return 1;
	printf("CPU features: %s\n", fb_cpu_description());
	for (int a = 1; a < argc; a++) {
		/* Implementations to run: default, then every one of any family. */
		fb_impl_info info;
		const char *impls[64];
		int nimpl = 0;
		impls[nimpl++] = NULL;
		for (size_t i = 0; fb_impl_at(i, &info) == FB_OK && nimpl < 64; i++) {
			if (!info.supported) {
				printf("SKIP %s: this CPU lacks %s\n", info.name, info.cpu_needs);
				if (a == 1)
					tu_skips_add(&why, "implementation not on this CPU (every record)");
				continue;
			}
			impls[nimpl++] = info.name;
		}
		int mct[64], share[64], shares[64];
		plan_mct(impls, nimpl, quick, mct, share, shares);
		for (int k = 0; k < nimpl; k++) {
			if (mct[k] < 0)
				continue; /* left out by FASTBLOCK_IMPL */
			run_ctx rc = { impls[k], mct[k], share[k], shares[k], 0, 0, 0, 0, &why, group };
			group->n = 0;
			int n = kat_read(argv[a], on_record, &rc);
			flush_group(&rc);
			if (n < 0) {
				fprintf(stderr, "cannot read %s\n", argv[a]);
				return 1;
			}
			if (rc.pass + rc.fail)
				printf("%-28s %-18s %6ld passed %4ld failed %4ld skipped\n",
				       strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a],
				       impls[k] ? impls[k] : "(default)", rc.pass, rc.fail, rc.skip);
			pass += rc.pass, fail += rc.fail, skip += rc.skip;
		}
	}
	free(group);
	tu_skips_print(&why, "test_kat");
	printf("%ld passed, %ld failed, %ld skipped\n", pass, fail, skip);
	if (!pass && !fail) {
		printf("SKIP: no cipher of these files is compiled in\n");
		return 77;
	}
	return fail ? 1 : 0;
}
