/*
 * fastblock - command-line tool: the verbs and their dispatch.
 *
 *   fastblock enc|dec ...      (cli_crypt.c)
 *   fastblock mac | kcv | key ...  (cli_mac.c)
 *   fastblock list [--porcelain] [--footprint]
 *   fastblock speed [options]  (the harness, bench/)
 *   fastblock --version
 *
 * Exit status: 0 ok, 1 key, password or data refused, 2 usage error,
 * 3 input or output error (cli.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#ifdef FB_HAVE_BENCH
#include "../bench/bench.h"
#endif

/* `list --porcelain`: one record a line, tab-separated fields in a fixed
 * order, for scripts and tests (the human table's columns may change):
 *   cpu	FEATURES
 *   cipher	NAME
 *   impl	NAME	runs|no	CT|not-CT	BATCH	NEEDS	NOTE
 *   default	CIPHER	parallel|serial	IMPL	CT|not-CT	IMPL_UNDER_CONSTANT_TIME|none
 * NEEDS is "-" for portable code. */
static void list_defaults(int porcelain);
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
	list_defaults(1);
}

/* ---- what a streaming context runs by default, and under --constant-time -- */

static const char *const default_rows[] = { "des-ede3", "aes-128", "rc6-128", "mars-128",
					    "twofish-128", "serpent-128", NULL };

/* The parallel (CTR) or serial (CBC encryption) implementation a context
 * of prefix's cipher runs with flags; *ct: fb_ctx_constant_time, or -1 if
 * refused. */
static const char *default_impl(const char *prefix, int serial, unsigned flags, int *ct)
{
	static const uint8_t key[32] = { 0x13, 0x34, 0x57, 0x79, 0x9b, 0xbc, 0xdf, 0xf1, 0x01, 0x23,
					 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98,
					 0x76, 0x54, 0x32, 0x10, 0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a,
					 0x69, 0x78 };
	static const uint8_t iv[16] = { 0 };
	char name[48];
	snprintf(name, sizeof name, "%s-%s", prefix, serial ? "cbc" : "ctr");
	const fb_cipher *c = fb_cipher_by_name(name);
	fb_options opt = { FB_PAD_NONE, flags, NULL };
	fb_ctx *ctx = fb_ctx_new();
	const char *impl = NULL;
	*ct = -1;
	if (c && ctx && fb_init(ctx, c, FB_ENCRYPT, key, fb_cipher_key_len(c), iv, fb_cipher_iv_len(c), &opt) == FB_OK) {
		impl = serial ? fb_ctx_serial_impl(ctx) : fb_ctx_impl(ctx);
		*ct = fb_ctx_constant_time(ctx);
	}
	fb_ctx_free(ctx);
	return impl ? impl : "none";
}

/* One line per family and kind of mode: the default, whether all it may
 * run (narrower kernels for short runs included) is constant time, and
 * what FB_FLAG_CONSTANT_TIME runs instead. */
static void list_defaults(int porcelain)
{
	if (!porcelain)
		printf("\ndefaults on this CPU, streaming (CT = all it may run is constant-time):\n"
		       "  %-12s %-9s %-24s %-7s %s\n", "cipher", "modes", "default", "", "--constant-time");
	for (int i = 0; default_rows[i]; i++)
		for (int serial = 0; serial < 2; serial++) {
			int ct, ct2;
			const char *d = default_impl(default_rows[i], serial, 0, &ct);
			const char *f = default_impl(default_rows[i], serial, FB_FLAG_CONSTANT_TIME, &ct2);
			const char *kind = serial ? "serial" : "parallel";
			if (porcelain)
				printf("default\t%s\t%s\t%s\t%s\t%s\n", default_rows[i], kind, d,
				       ct == 1 ? "CT" : "not-CT", f);
			else
				printf("  %-12s %-9s %-24s %-7s %s\n", default_rows[i], kind, d,
				       ct == 1 ? "CT" : "not-CT", ct2 == 1 ? f : "refused: none here");
		}
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
	list_defaults(0);
}

/* ---- list --footprint ---------------------------------------------------- */

/* The object file an implementation's code is in: its name with '/' and
 * '-' as '_' ("des/bs-avx512" -> des_bs_avx512), or the longest object
 * name that starts it ("twofish/avx512-gfni-ct" is in twofish_avx512_gfni). */
static const cli_footprint *footprint_of(const char *impl)
{
	char stem[64];
	size_t n = 0;
	for (; impl[n] && n + 1 < sizeof stem; n++)
		stem[n] = (impl[n] == '/' || impl[n] == '-') ? '_' : impl[n];
	stem[n] = 0;
	const cli_footprint *best = NULL;
	for (const cli_footprint *f = cli_footprints; f->object; f++) {
		size_t m = strlen(f->object);
		if (!strncmp(stem, f->object, m) && (stem[m] == 0 || stem[m] == '_') &&
		    (!best || m > strlen(best->object)))
			best = f;
	}
	return best;
}

/* The cipher whose context the footprint shows: the family's common one,
 * decrypted (the direction that runs the parallel kernel). */
static const fb_cipher *footprint_cipher(const char *family)
{
	char name[40];
	snprintf(name, sizeof name, !strcmp(family, "des") ? "des-ede3-cbc" : "%s-128-cbc", family);
	return fb_cipher_by_name(name);
}

static const char *fits(size_t bytes, long l1, long l2)
{
	if (l1 > 0 && bytes <= (size_t)l1)
		return "L1";
	if (l2 > 0 && bytes <= (size_t)l2)
		return "L2";
	return l1 > 0 && l2 > 0 ? "beyond L2" : "?";
}

/* One implementation's row of list --footprint. */
static void footprint_row(const fb_impl_info *info, int porcelain, long l1, long l2)
{
	const cli_footprint *f = footprint_of(info->name);
	const fb_cipher *c = footprint_cipher(info->family);
	fb_options opt = { FB_PAD_DEFAULT, 0, info->name };
	size_t ctx = c ? fb_ctx_size(c, FB_DECRYPT, &opt) : 0;
	unsigned long code = f ? f->code : 0, tables = f ? f->tables : 0;
	const char *obj = f ? f->object : "-";
	const char *hot = fits(tables + info->schedule_bytes, l1, l2);
	if (porcelain)
		printf("footprint\t%s\t%s\t%lu\t%lu\t%zu\t%zu\t%s\t%s\n", info->name, obj, code,
		       tables, info->schedule_bytes, ctx,
		       c ? fb_cipher_name(c) : "-", hot);
	else if (ctx)
		printf("%-24s %-26s %8lu %8lu %8zu %8zu  %-15s %s\n", info->name, obj, code, tables,
		       info->schedule_bytes, ctx, c ? fb_cipher_name(c) : "-", hot);
	else
		printf("%-24s %-26s %8lu %8lu %8zu %8s  %-15s %s\n", info->name, obj, code, tables,
		       info->schedule_bytes, "-", c ? fb_cipher_name(c) : "-", hot);
}

static void list_footprint(int porcelain)
{
	long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	if (!porcelain)
		printf("Bytes per implementation. code, tables: nm symbol sizes in its object file\n"
		       "(src/<family>/<object>.c), shared by the implementations in one file;\n"
		       "schedule: one key's schedule (the largest key); context: fb_ctx_size() for\n"
		       "the cipher shown, decrypting, with this implementation forced (- if this\n"
		       "CPU cannot run it); hot set: tables + schedule against L1d %ld KB, L2 %ld KB.\n\n"
		       "%-24s %-26s %8s %8s %8s %8s  %-15s %s\n",
		       l1 / 1024, l2 / 1024, "implementation", "object", "code", "tables", "schedule",
		       "context", "cipher", "hot set");
	fb_impl_info info;
	for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
		footprint_row(&info, porcelain, l1, l2);
}

static int cmd_list(int argc, char **argv)
{
	int porcelain = 0, footprint = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--porcelain"))
			porcelain = 1;
		else if (!strcmp(argv[i], "--footprint"))
			footprint = 1;
		else
			return cli_fail(EXIT_USAGE, "list takes --porcelain and --footprint, not '%s'", argv[i]);
	}
	if (footprint)
		list_footprint(porcelain);
	else if (porcelain)
		list_porcelain();
	else
		list_table();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "enc")) return cli_crypt(argc - 1, argv + 1, FB_ENCRYPT);
	if (!strcmp(cmd, "dec")) return cli_crypt(argc - 1, argv + 1, FB_DECRYPT);
	if (!strcmp(cmd, "list")) return cmd_list(argc, argv);
	if (!strcmp(cmd, "mac")) return cli_mac(argc - 1, argv + 1, 0);
	if (!strcmp(cmd, "kcv")) return cli_mac(argc - 1, argv + 1, 1);
	if (!strcmp(cmd, "key")) return cli_key(argc - 1, argv + 1);
	if (!strcmp(cmd, "speed")) {
#ifdef FB_HAVE_BENCH
		return fb_bench_main(argc - 1, argv + 1);
#else
		return cli_fail(EXIT_USAGE, "this build has no benchmark harness");
#endif
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("fastblock %s\n", fb_version());
		return 0;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		cli_usage(stdout);
		return 0;
	}
	cli_usage(stderr);
	return cli_fail(EXIT_USAGE, "unknown command '%s'", cmd);
}
