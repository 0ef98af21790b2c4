/*
 * The command line's parsers: hex, numbers, --pass specs and the enc/dec
 * option parser on argument vectors made from the input (split at NUL
 * bytes). Properties: hex round-trips, numbers stay in range, and the
 * option parser returns 0, -1 or an exit code without crashing.
 */
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "../../tools/cli.h"

static void check_hex(const char *s)
{
	uint8_t *b;
	size_t n;
	if (cli_parse_hex(s, &b, &n))
		return;
	if (n * 2 != strlen(s))
		abort();
	char back[3];
	for (size_t i = 0; i < n; i++) {
		snprintf(back, sizeof back, "%02x", b[i]);
		if (strncasecmp(back, s + 2 * i, 2))
			abort();
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[34];
	int argc = 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	check_hex(buf);
	unsigned long long v;
	if (!cli_parse_count(buf, 1, 1000000, &v) && (v < 1 || v > 1000000))
		abort();
	cli_pass_spec spec;
	cli_parse_pass_spec(buf, &spec);
	argv[argc++] = (char *)"enc";
	for (char *p = buf; p < buf + size && argc < 33; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	crypt_args a;
	/* Its one-line messages, by the thousand, go to /dev/null (libFuzzer
	 * reports on the same stderr). */
	int quiet = open("/dev/null", O_WRONLY), saved = dup(2);
	fflush(stderr);
	dup2(quiet, 2);
	int rc = cli_parse_crypt_args(argc, argv, &a);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(quiet);
	if (rc != 0 && rc != -1 && rc != EXIT_USAGE)
		abort();
	free(buf);
	return 0;
}
