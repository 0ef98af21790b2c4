/*
 * fastblock mac | kcv | key: MACs, key check values and DES key parity
 * for the command line, one key or a whole batch file (one item a line).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

typedef struct {
	const char *alg, *cipher, *key_hex, *in, *batch;
	unsigned long long pad, len;
	int pad_given, len_given, cmac;
} mac_args;

enum { M_ALG = 256, M_CIPHER, M_KEY, M_PAD, M_LEN, M_IN, M_BATCH, M_CMAC };

static const struct option mac_opts[] = {
	{ "alg", required_argument, NULL, M_ALG },
	{ "cipher", required_argument, NULL, M_CIPHER },
	{ "key", required_argument, NULL, M_KEY },
	{ "pad", required_argument, NULL, M_PAD },
	{ "len", required_argument, NULL, M_LEN },
	{ "in", required_argument, NULL, M_IN },
	{ "batch", required_argument, NULL, M_BATCH },
	{ "cmac", no_argument, NULL, M_CMAC },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse(int argc, char **argv, mac_args *a)
{
	memset(a, 0, sizeof *a);
	opterr = 0;
	optind = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "+h", mac_opts, NULL)) != -1) {
		switch (ch) {
		case M_ALG: a->alg = optarg; break;
		case M_CIPHER: a->cipher = optarg; break;
		case M_KEY: a->key_hex = optarg; break;
		case M_IN: a->in = optarg; break;
		case M_BATCH: a->batch = optarg; break;
		case M_CMAC: a->cmac = 1; break;
		case M_PAD:
			if (cli_parse_count(optarg, 1, 3, &a->pad))
				return cli_fail(EXIT_USAGE, "--pad takes 1, 2 or 3 (ISO/IEC 9797-1 method), not '%s'", optarg);
			a->pad_given = 1;
			break;
		case M_LEN:
			if (cli_parse_count(optarg, 1, 16, &a->len))
				return cli_fail(EXIT_USAGE, "--len takes 1 to 16 (bytes), not '%s'", optarg);
			a->len_given = 1;
			break;
		case 'h': cli_usage(stdout); return -1;
		default:
			if (optopt)
				return cli_fail(EXIT_USAGE, "option '%s' needs a value (see --help)", argv[optind - 1]);
			return cli_fail(EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (!a->cipher)
		return cli_fail(EXIT_USAGE, "--cipher NAME is required (des, des-ede, des-ede3, aes-128, ...)");
	return 0;
}

/* A cipher named with or without its mode ("des-ede3", "aes-128"). */
static const fb_cipher *cipher_of(const char *name)
{
	const fb_cipher *c = fb_cipher_by_name(name);
	char buf[64];
	if (!c && snprintf(buf, sizeof buf, "%s-ecb", name) < (int)sizeof buf)
		c = fb_cipher_by_name(buf);
	return c;
}

static int code_for(int err)
{
	return err == FB_ERR_UNKNOWN_CIPHER || err == FB_ERR_ARGUMENT ? EXIT_USAGE : EXIT_REFUSED;
}

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02X", p[i]);
	putchar('\n');
}

/* Reads a whole file (or stdin) into memory. */
static int slurp(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = path ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0;
	uint8_t *p = malloc(cap);
	if (!f || !p) {
		free(p);
		return cli_fail(EXIT_IO, "cannot read '%s': %s", path ? path : "stdin", strerror(errno));
	}
	for (size_t r; (r = fread(p + n, 1, cap - n, f)) > 0;) {
		n += r;
		if (n == cap) {
			uint8_t *q = realloc(p, cap *= 2);
			if (!q) {
				free(p);
				return cli_fail(EXIT_IO, "out of memory");
			}
			p = q;
		}
	}
	int err = ferror(f);
	if (path)
		fclose(f);
	if (err) {
		free(p);
		return cli_fail(EXIT_IO, "cannot read '%s'", path ? path : "stdin");
	}
	*data = p;
	*len = n;
	return 0;
}

typedef int (*item_fn)(const mac_args *a, const fb_cipher *c, const uint8_t *key, size_t kl,
		       const uint8_t *msg, size_t ml, uint8_t *out, size_t *ol);

static enum fb_mac_alg alg_of(const char *s)
{
	if (!s || !strcmp(s, "cmac")) return FB_MAC_CMAC;
	if (!strcmp(s, "cbc-mac")) return FB_MAC_CBC;
	if (!strcmp(s, "retail")) return FB_MAC_RETAIL;
	return (enum fb_mac_alg)0;
}

static size_t mac_len(const mac_args *a, const fb_cipher *c)
{
	return a->len_given ? a->len : fb_cipher_block_size(c);
}

static enum fb_mac_pad mac_pad(const mac_args *a)
{
	return alg_of(a->alg) == FB_MAC_CMAC ? FB_MAC_PAD_NONE : (enum fb_mac_pad)(a->pad_given ? a->pad : 1);
}

static size_t kcv_len(const mac_args *a)
{
	return a->len_given ? a->len : a->cmac ? 5 : 3;
}

static int one_mac(const mac_args *a, const fb_cipher *c, const uint8_t *key, size_t kl,
		   const uint8_t *msg, size_t ml, uint8_t *out, size_t *ol)
{
	*ol = mac_len(a, c);
	return fb_mac(alg_of(a->alg), c, key, kl, mac_pad(a), msg, ml, out, *ol);
}

static int one_kcv(const mac_args *a, const fb_cipher *c, const uint8_t *key, size_t kl,
		   const uint8_t *msg, size_t ml, uint8_t *out, size_t *ol)
{
	(void)msg; (void)ml;
	*ol = kcv_len(a);
	return fb_kcv(c, key, kl, a->cmac, out, *ol);
}

/* One line of a batch file, parsed. */
typedef struct {
	uint8_t *key, *msg;
	size_t kl, ml, line;
} item;

static void items_free(item *it, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cli_wipe_free(it[i].key, it[i].kl + 1);
		free(it[i].msg);
	}
	free(it);
}

/* One item a line, "KEYHEX" or "KEYHEX MSGHEX", into *out (n of them). */
static int parse_items(const mac_args *a, char *s, int with_msg, item **out, size_t *n)
{
	char *save = NULL;
	size_t line = 0, cap = 0;
	for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		line++;
		char *sp = strchr(l, ' ');
		if (sp)
			*sp = 0;
		if (l[0] && l[strlen(l) - 1] == '\r')
			l[strlen(l) - 1] = 0;
		if (*n == cap) {
			item *p = realloc(*out, (cap = cap ? 2 * cap : 1024) * sizeof *p);
			if (!p)
				return cli_fail(EXIT_IO, "out of memory");
			*out = p;
		}
		item *it = &(*out)[*n];
		memset(it, 0, sizeof *it);
		it->line = line;
		if (cli_parse_hex(l, &it->key, &it->kl) ||
		    (with_msg && (!sp || cli_parse_hex(sp + 1, &it->msg, &it->ml)))) {
			cli_wipe_free(it->key, it->kl + 1);
			free(it->msg);
			return cli_fail(EXIT_USAGE, "%s line %zu: expected %s", a->batch, line,
					with_msg ? "KEYHEX MSGHEX" : "KEYHEX");
		}
		(*n)++;
	}
	return 0;
}

/* All items in one call of the batch API (the lane engines run wherever
 * lanes fill), when every key has the same length; FB_OK or its error. */
static int batch_call(const mac_args *a, const fb_cipher *c, const item *it, size_t n, int kcv,
		      uint8_t *out, size_t ol)
{
	const uint8_t **keys = malloc(n * sizeof *keys), **msgs = malloc(n * sizeof *msgs);
	size_t *ml = malloc(n * sizeof *ml);
	int e = keys && msgs && ml ? FB_OK : FB_ERR_ARGUMENT;
	for (size_t i = 0; !e && i < n; i++) {
		keys[i] = it[i].key, msgs[i] = it[i].msg, ml[i] = it[i].ml;
		if (it[i].kl != it[0].kl)
			e = FB_ERR_KEY_LENGTH;
	}
	if (!e)
		e = kcv ? fb_kcv_batch(c, n, keys, it[0].kl, a->cmac, out, ol)
			: fb_mac_batch(alg_of(a->alg), c, n, keys, it[0].kl, mac_pad(a), msgs, ml, out, ol);
	free(keys), free(msgs), free(ml);
	return e;
}

/* Batch: every line is checked before anything is printed. The batch API
 * does the work; when it refuses, the items run one at a time to name the
 * first line at fault. */
static int run_batch(const mac_args *a, const fb_cipher *c, item_fn fn, int kcv)
{
	uint8_t *text;
	size_t tl;
	int rc = slurp(a->batch, &text, &tl);
	if (rc)
		return rc;
	char *s = realloc(text, tl + 1);
	if (!s) {
		free(text);
		return cli_fail(EXIT_IO, "out of memory");
	}
	s[tl] = 0;
	item *it = NULL;
	size_t n = 0, ol = kcv ? kcv_len(a) : mac_len(a, c);
	uint8_t *out = NULL;
	rc = parse_items(a, s, !kcv, &it, &n);
	if (!rc && n && !(out = malloc(n * 16)))
		rc = cli_fail(EXIT_IO, "out of memory");
	if (!rc && n && batch_call(a, c, it, n, kcv, out, ol) != FB_OK) {
		for (size_t i = 0; !rc && i < n; i++) {
			int e = fn(a, c, it[i].key, it[i].kl, it[i].msg, it[i].ml, out + i * ol, &ol);
			if (e)
				rc = cli_fail(code_for(e), "%s line %zu: %s", a->batch, it[i].line, fb_strerror(e));
		}
	}
	for (size_t i = 0; !rc && i < n; i++)
		print_hex(out + i * ol, ol);
	free(out);
	items_free(it, n);
	cli_wipe_free(s, tl + 1);
	return rc;
}

static int run_one(const mac_args *a, const fb_cipher *c, item_fn fn, int with_msg)
{
	uint8_t *key = NULL, *msg = NULL, out[16];
	size_t kl = 0, ml = 0, ol;
	if (!a->key_hex)
		return cli_fail(EXIT_USAGE, "--key HEX (or --batch FILE) is required");
	if (cli_parse_hex(a->key_hex, &key, &kl))
		return cli_fail(EXIT_USAGE, "--key is not hex (an even number of 0-9a-f digits)");
	int rc = with_msg ? slurp(a->in, &msg, &ml) : 0;
	if (!rc) {
		int e = fn(a, c, key, kl, msg, ml, out, &ol);
		if (e)
			rc = cli_fail(code_for(e), "%s", fb_strerror(e));
		else
			print_hex(out, ol);
	}
	cli_wipe_free(key, kl + 1);
	free(msg);
	return rc;
}

int cli_mac(int argc, char **argv, int kcv)
{
	mac_args a;
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	if (!kcv && !alg_of(a.alg))
		return cli_fail(EXIT_USAGE, "--alg takes cbc-mac, retail or cmac, not '%s'", a.alg);
	if (kcv && (a.alg || a.pad_given || a.in))
		return cli_fail(EXIT_USAGE, "kcv takes --cipher, --key, --cmac, --len and --batch");
	const fb_cipher *c = cipher_of(a.cipher);
	if (!c)
		return cli_fail(EXIT_USAGE, "unknown cipher '%s' (see `fastblock list`)", a.cipher);
	item_fn fn = kcv ? one_kcv : one_mac;
	return a.batch ? run_batch(&a, c, fn, kcv) : run_one(&a, c, fn, !kcv);
}

/* fastblock key check|fix-parity|generate --cipher des|des-ede|des-ede3 [--key HEX] */
int cli_key(int argc, char **argv)
{
	if (argc < 2)
		return cli_fail(EXIT_USAGE, "key check|fix-parity|generate --cipher NAME [--key HEX]");
	const char *what = argv[1];
	mac_args a;
	int rc = parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	const fb_cipher *c = cipher_of(a.cipher);
	if (!c || strcmp(fb_cipher_family(c), "des"))
		return cli_fail(EXIT_USAGE, "key works on DES keys: --cipher des, des-ede or des-ede3");
	size_t want = fb_cipher_key_len(c);
	uint8_t key[24];
	if (!strcmp(what, "generate")) {
		if (a.key_hex)
			return cli_fail(EXIT_USAGE, "generate takes no --key");
		int e = fb_des_random_key(key, want);
		if (e)
			return cli_fail(EXIT_REFUSED, "%s", fb_strerror(e));
		print_hex(key, want);
		explicit_bzero(key, sizeof key);
		return 0;
	}
	if (strcmp(what, "check") && strcmp(what, "fix-parity"))
		return cli_fail(EXIT_USAGE, "unknown key action '%s' (check, fix-parity, generate)", what);
	uint8_t *k;
	size_t kl;
	if (!a.key_hex || cli_parse_hex(a.key_hex, &k, &kl))
		return cli_fail(EXIT_USAGE, "--key HEX is required");
	if (kl != want) {
		cli_wipe_free(k, kl + 1);
		return cli_fail(EXIT_REFUSED, "a %s key has %zu bytes, not %zu", fb_cipher_name(c), want, kl);
	}
	if (!strcmp(what, "fix-parity")) {
		fb_des_set_parity(k, kl);
		print_hex(k, kl);
		rc = 0;
	} else {
		rc = fb_des_check_parity(k, kl) ? 0 : cli_fail(EXIT_REFUSED, "parity is not odd in every byte");
		for (size_t i = 0; !rc && i < kl; i += 8)
			if (fb_des_is_weak_key(k + i))
				rc = cli_fail(EXIT_REFUSED, "part %zu is a weak or semi-weak DES key", i / 8 + 1);
		if (!rc)
			printf("ok\n");
	}
	cli_wipe_free(k, kl + 1);
	return rc;
}
