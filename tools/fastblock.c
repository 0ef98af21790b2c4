/*
 * fastblock - command-line tool.
 *
 *   fastblock enc|dec --cipher NAME (--key HEX | --pass PASS) [--iv HEX]
 *             [--no-pad | --pad pkcs7|iso9797-2|none] [--in FILE] [--out FILE]
 *             [--impl NAME] [--strict-keys] [--constant-time]
 *   fastblock list
 *   fastblock speed [options]   (see `fastblock speed --help`)
 *
 * Exit status: 0 success, 1 key or data refused, 2 usage error.
 * Output is written to a temporary file and moved into place only on
 * success, so a failure leaves no partial output (also for stdout).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fastblock.h"
#ifdef FB_HAVE_BENCH
#include "../bench/bench.h"
#endif
#ifdef FB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

static int fail(int code, const char *fmt, const char *arg)
{
	fprintf(stderr, "fastblock: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return code;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fastblock enc|dec --cipher NAME --key HEX [--iv HEX] [--no-pad]\n"
		"                 [--pad pkcs7|iso9797-2|none] [--in FILE] [--out FILE]\n"
		"                 [--impl NAME] [--strict-keys] [--constant-time]\n"
		"                 [--pass PASSWORD [--salt HEX] [--iter N]]  (PBKDF2-HMAC-SHA256 key and IV)\n"
		"       fastblock list [--porcelain]   (porcelain: tab-separated records for scripts)\n"
		"       fastblock speed [--cipher NAME]... [--impl NAME] [--size BYTES]... [--peers] [--json]\n"
		"Exit status: 0 ok, 1 key or data refused, 2 usage error.\n");
}

static int parse_hex(const char *s, uint8_t **out, size_t *len)
{
	size_t n = strlen(s);
	if (n % 2)
		return -1;
	uint8_t *p = malloc(n / 2 + 1);
	if (!p)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", s[2 * i + 1])) {
			free(p);
			return -1;
		}
		p[i] = (uint8_t)v;
	}
	*out = p;
	*len = n / 2;
	return 0;
}

static int exit_code_for(int err)
{
	switch (err) {
	case FB_ERR_UNKNOWN_CIPHER:
	case FB_ERR_IMPL_UNAVAILABLE:
	case FB_ERR_ARGUMENT:
	case FB_ERR_PADDING_MODE:
		return EXIT_USAGE;
	default:
		return EXIT_REFUSED;
	}
}

typedef struct {
	const char *cipher, *key_hex, *iv_hex, *in, *out, *impl, *pass, *salt_hex;
	long iter;
	fb_options opt;
} crypt_args;

static int parse_crypt_args(int argc, char **argv, crypt_args *a)
{
	memset(a, 0, sizeof *a);
	a->iter = 100000;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (!strcmp(o, "--cipher")) a->cipher = v;
		else if (!strcmp(o, "--key")) a->key_hex = v;
		else if (!strcmp(o, "--iv")) a->iv_hex = v;
		else if (!strcmp(o, "--in")) a->in = v;
		else if (!strcmp(o, "--out")) a->out = v;
		else if (!strcmp(o, "--impl")) a->opt.impl = v;
		else if (!strcmp(o, "--pass")) a->pass = v;
		else if (!strcmp(o, "--salt")) a->salt_hex = v;
		else if (!strcmp(o, "--iter")) a->iter = v ? atol(v) : 0;
		else if (!strcmp(o, "--pad")) {
			if (!v) return fail(EXIT_USAGE, "%s needs a value", o);
			if (!strcmp(v, "pkcs7")) a->opt.padding = FB_PAD_PKCS7;
			else if (!strcmp(v, "iso9797-2")) a->opt.padding = FB_PAD_ISO9797_M2;
			else if (!strcmp(v, "none")) a->opt.padding = FB_PAD_NONE;
			else return fail(EXIT_USAGE, "unknown padding '%s' (pkcs7, iso9797-2, none)", v);
		} else {
			takes = 0;
			if (!strcmp(o, "--no-pad")) a->opt.padding = FB_PAD_NONE;
			else if (!strcmp(o, "--strict-keys")) a->opt.flags |= FB_FLAG_STRICT_KEYS;
			else if (!strcmp(o, "--constant-time")) a->opt.flags |= FB_FLAG_CONSTANT_TIME;
			else if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); exit(0); }
			else return fail(EXIT_USAGE, "unknown option '%s' (see --help)", o);
		}
		if (takes) {
			if (!v) return fail(EXIT_USAGE, "%s needs a value", o);
			i++;
		}
	}
	if (!a->cipher) return fail(EXIT_USAGE, "%s", "--cipher NAME is required (see `fastblock list`)");
	if (!a->key_hex && !a->pass) return fail(EXIT_USAGE, "%s", "--key HEX (or --pass) is required");
	if (a->key_hex && a->pass) return fail(EXIT_USAGE, "%s", "give --key or --pass, not both");
	if (a->iter <= 0) return fail(EXIT_USAGE, "%s", "--iter must be a positive number");
	return 0;
}

/* PBKDF2-HMAC-SHA256(pass, salt, iter) -> key || iv. */
static int derive_key(const crypt_args *a, const fb_cipher *c, uint8_t **key, size_t *kl,
		      uint8_t **iv, size_t *ivl)
{
#ifdef FB_HAVE_OPENSSL
	uint8_t *salt = NULL;
	size_t sl = 0;
	if (a->salt_hex && parse_hex(a->salt_hex, &salt, &sl))
		return fail(EXIT_USAGE, "--salt is not hex: '%s'", a->salt_hex);
	*kl = fb_cipher_key_len(c);
	*ivl = fb_cipher_iv_len(c);
	uint8_t buf[160];
	int ok = PKCS5_PBKDF2_HMAC(a->pass, (int)strlen(a->pass), salt ? salt : (const uint8_t *)"",
				   (int)sl, (int)a->iter, EVP_sha256(), (int)(*kl + *ivl), buf);
	free(salt);
	if (!ok)
		return fail(EXIT_REFUSED, "%s", "PBKDF2 failed");
	*key = malloc(*kl + 1);
	*iv = malloc(*ivl + 1);
	memcpy(*key, buf, *kl);
	memcpy(*iv, buf + *kl, *ivl);
	return 0;
#else
	(void)a; (void)c; (void)key; (void)kl; (void)iv; (void)ivl;
	return fail(EXIT_USAGE, "%s", "--pass needs a build with OpenSSL (PBKDF2)");
#endif
}

/* Streams in -> tmp through ctx. Returns an fb error code or 1 on I/O error. */
static int pump(fb_ctx *ctx, FILE *in, FILE *tmp)
{
	enum { CHUNK = 1 << 16 };
	uint8_t *ib = malloc(CHUNK), *ob = malloc(CHUNK + 64);
	int rc = FB_OK;
	size_t n, got;
	if (!ib || !ob) rc = 1;
	while (!rc && (n = fread(ib, 1, CHUNK, in)) > 0) {
		rc = fb_update(ctx, ob, CHUNK + 64, &got, ib, n);
		if (!rc && fwrite(ob, 1, got, tmp) != got) rc = 1;
	}
	if (!rc && ferror(in)) rc = 1;
	if (!rc) {
		rc = fb_final(ctx, ob, CHUNK + 64, &got);
		if (!rc && fwrite(ob, 1, got, tmp) != got) rc = 1;
	}
	free(ib);
	free(ob);
	return rc;
}

static int copy_stream(FILE *from, FILE *to)
{
	char buf[1 << 16];
	size_t n;
	rewind(from);
	while ((n = fread(buf, 1, sizeof buf, from)) > 0)
		if (fwrite(buf, 1, n, to) != n)
			return -1;
	return ferror(from) || fflush(to) ? -1 : 0;
}

/* A temporary file beside the destination (same directory: rename works). */
static FILE *open_temp(const char *out, char **tmpname)
{
	*tmpname = NULL;
	if (!out)
		return tmpfile();
	size_t n = strlen(out) + 32;
	char *t = malloc(n);
	snprintf(t, n, "%s.tmp-XXXXXX", out);
	int fd = mkstemp(t);
	if (fd < 0) { free(t); return NULL; }
	*tmpname = t;
	return fdopen(fd, "w+b");
}

static int cmd_crypt(int argc, char **argv, enum fb_direction dir)
{
	crypt_args a;
	int rc = parse_crypt_args(argc, argv, &a);
	if (rc)
		return rc;
	const fb_cipher *c = fb_cipher_by_name(a.cipher);
	if (!c)
		return fail(EXIT_USAGE, "unknown cipher '%s' (see `fastblock list`)", a.cipher);
	uint8_t *key = NULL, *iv = NULL;
	size_t kl = 0, ivl = 0;
	if (a.pass) {
		if ((rc = derive_key(&a, c, &key, &kl, &iv, &ivl)))
			return rc;
	} else if (parse_hex(a.key_hex, &key, &kl)) {
		return fail(EXIT_USAGE, "--key is not hex: '%s'", a.key_hex);
	}
	if (a.iv_hex && (free(iv), parse_hex(a.iv_hex, &iv, &ivl))) {
		free(key);
		return fail(EXIT_USAGE, "--iv is not hex: '%s'", a.iv_hex);
	}
	fb_ctx *ctx = fb_ctx_new();
	rc = fb_init(ctx, c, dir, key, kl, iv, ivl, &a.opt);
	if (key) { memset(key, 0, kl); free(key); }
	free(iv);
	if (rc) {
		fb_ctx_free(ctx);
		return fail(exit_code_for(rc), "%s", fb_strerror(rc));
	}
	FILE *in = a.in ? fopen(a.in, "rb") : stdin;
	if (!in) {
		fb_ctx_free(ctx);
		return fail(EXIT_USAGE, "cannot open input '%s'", a.in);
	}
	char *tmpname = NULL;
	FILE *tmp = open_temp(a.out, &tmpname);
	if (!tmp) {
		fb_ctx_free(ctx);
		return fail(EXIT_USAGE, "cannot create a temporary file for '%s'", a.out ? a.out : "stdout");
	}
	rc = pump(ctx, in, tmp);
	fb_ctx_free(ctx);
	if (in != stdin) fclose(in);
	int code = 0;
	if (rc == 1) code = fail(EXIT_REFUSED, "I/O error: %s", strerror(errno));
	else if (rc) code = fail(exit_code_for(rc), "%s", fb_strerror(rc));
	else if (!a.out && copy_stream(tmp, stdout)) code = fail(EXIT_REFUSED, "%s", "cannot write stdout");
	if (fflush(tmp) || (a.out && fsync(fileno(tmp)))) code = code ? code : fail(EXIT_REFUSED, "%s", "write failed");
	fclose(tmp);
	if (tmpname) {
		if (code || rename(tmpname, a.out)) {
			if (!code) code = fail(EXIT_REFUSED, "cannot write '%s'", a.out);
			unlink(tmpname);
		}
		free(tmpname);
	}
	return code;
}

/* `list --porcelain`: one record a line, tab-separated fields in a fixed
 * order, for scripts and tests (the human table's columns may change):
 *   cpu	FEATURES
 *   cipher	NAME
 *   impl	NAME	runs|no	CT|not-CT	BATCH	NEEDS	NOTE
 * NEEDS is "-" for portable code. */
static void list_porcelain(void)
{
	printf("cpu\t%s\n", fb_cpu_description());
	const fb_cipher *c;
	for (size_t i = 0; (c = fb_cipher_at(i)); i++)
		printf("cipher\t%s\n", fb_cipher_name(c));
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		printf("impl\t%s\t%s\t%s\t%u\t%s\t%s\n", info.name, info.supported ? "runs" : "no",
		       info.constant_time ? "CT" : "not-CT", info.batch,
		       *info.cpu_needs ? info.cpu_needs : "-", info.note);
}

static void list_table(void)
{
	printf("CPU features: %s\n\nciphers:\n", fb_cpu_description());
	const fb_cipher *c;
	int col = 0;
	for (size_t i = 0; (c = fb_cipher_at(i)); i++) {
		printf("  %-20s", fb_cipher_name(c));
		if (++col % 4 == 0) printf("\n");
	}
	printf("%s\nimplementations (* = runs on this CPU; CT = constant-time):\n", col % 4 ? "\n" : "");
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		printf("  %c %-22s %-7s batch %-4u %s%s%s\n", info.supported ? '*' : ' ', info.name,
		       info.constant_time ? "CT" : "not-CT", info.batch, info.note,
		       *info.cpu_needs ? "  [needs " : "", *info.cpu_needs ? info.cpu_needs : "");
}

static int cmd_list(int argc, char **argv)
{
	if (argc > 3 || (argc == 3 && strcmp(argv[2], "--porcelain")))
		return fail(EXIT_USAGE, "list takes only --porcelain, not '%s'", argv[2]);
	if (argc == 3)
		list_porcelain();
	else
		list_table();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "enc")) return cmd_crypt(argc, argv, FB_ENCRYPT);
	if (!strcmp(cmd, "dec")) return cmd_crypt(argc, argv, FB_DECRYPT);
	if (!strcmp(cmd, "list")) return cmd_list(argc, argv);
	if (!strcmp(cmd, "speed")) {
#ifdef FB_HAVE_BENCH
		return fb_bench_main(argc - 1, argv + 1);
#else
		return fail(EXIT_USAGE, "%s", "this build has no benchmark harness");
#endif
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return fail(EXIT_USAGE, "unknown command '%s'", cmd);
}
