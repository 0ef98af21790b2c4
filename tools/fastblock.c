/*
 * fastblock - command-line tool: the verbs and their dispatch.
 *
 *   fastblock enc|dec ...      (cli_crypt.c)
 *   fastblock mac | kcv | key ...  (cli_mac.c)
 *   fastblock list [--porcelain]
 *   fastblock speed [options]  (the harness, bench/)
 *   fastblock --version
 *
 * Exit status: 0 ok, 1 key, password or data refused, 2 usage error,
 * 3 input or output error (cli.h).
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#ifdef FB_HAVE_BENCH
#include "../bench/bench.h"
#endif

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
		return cli_fail(EXIT_USAGE, "list takes only --porcelain, not '%s'", argv[2]);
	if (argc == 3)
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
