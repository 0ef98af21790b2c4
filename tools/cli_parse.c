/*
 * Strict parsers of the command-line tool: hex, numbers, password specs.
 * Pure functions of their input, so the fuzz harness runs them directly.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

int cli_parse_hex(const char *s, uint8_t **out, size_t *len)
{
	size_t n = strlen(s);
	if (n % 2)
		return -1;
	uint8_t *p = malloc(n / 2 + 1);
	if (!p)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			cli_wipe_free(p, n / 2 + 1);
			return -1;
		}
		p[i] = (uint8_t)(hi << 4 | lo);
	}
	*out = p;
	*len = n / 2;
	return 0;
}

int cli_parse_count(const char *s, unsigned long long min, unsigned long long max,
		    unsigned long long *v)
{
	unsigned long long x = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (x > (max - d) / 10)
			return -1; /* past max, or past the type */
		x = x * 10 + d;
	}
	if (x < min)
		return -1;
	*v = x;
	return 0;
}

int cli_parse_pass_spec(const char *s, cli_pass_spec *spec)
{
	static const struct { const char *prefix; cli_pass_kind kind; } forms[] = {
		{ "pass:", PASS_LITERAL }, { "env:", PASS_ENV }, { "file:", PASS_FILE }, { "fd:", PASS_FD },
	};
	memset(spec, 0, sizeof *spec);
	if (!strcmp(s, "stdin")) {
		spec->kind = PASS_STDIN;
		return 0;
	}
	for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
		size_t n = strlen(forms[i].prefix);
		if (strncmp(s, forms[i].prefix, n))
			continue;
		spec->kind = forms[i].kind;
		spec->arg = s + n;
		if (spec->kind == PASS_FD) {
			unsigned long long fd;
			if (cli_parse_count(spec->arg, 0, 1u << 20, &fd))
				return -1;
			spec->fd = (int)fd;
		}
		return spec->kind == PASS_LITERAL || *spec->arg ? 0 : -1;
	}
	spec->kind = PASS_LITERAL;
	spec->arg = s;
	return 0;
}
