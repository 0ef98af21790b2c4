#include "kat_file.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static int parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len)
{
	size_t n = strlen(s);
	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int h = hexval(s[2 * i]), l = hexval(s[2 * i + 1]);
		if (h < 0 || l < 0)
			return -1;
		out[i] = (uint8_t)(h << 4 | l);
	}
	*len = n / 2;
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s)) s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
	return s;
}

int kat_read(const char *path, int (*fn)(const kat_record *, void *), void *arg)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	static char line[4096];
	kat_record r;
	memset(&r, 0, sizeof r);
	int count = 0, lineno = 0, have = 0, bad = 0;
	for (;;) {
		char *got = fgets(line, sizeof line, f);
		lineno++;
		char *t = got ? trim(line) : line;
		if (!got || !*t) {
			if (have) {
				count++;
				if (fn(&r, arg))
					bad = 1;
			}
			memset(&r, 0, sizeof r);
			have = 0;
			if (!got)
				break;
			continue;
		}
		if (*t == '#') {
			if (!strncmp(t, "# source:", 9))
				snprintf(r.source, sizeof r.source, "%s", trim(t + 9));
			continue;
		}
		char *eq = strchr(t, '=');
		if (!eq) { fclose(f); return -1; }
		*eq = 0;
		char *k = trim(t), *v = trim(eq + 1);
		if (!have) r.line = lineno;
		have = 1;
		int rc = 0;
		if (!strcmp(k, "alg")) snprintf(r.alg, sizeof r.alg, "%s", v);
		else if (!strcmp(k, "mode")) snprintf(r.mode, sizeof r.mode, "%s", v);
		else if (!strcmp(k, "key")) rc = parse_hex(v, r.key, sizeof r.key, &r.key_len);
		else if (!strcmp(k, "iv")) rc = parse_hex(v, r.iv, sizeof r.iv, &r.iv_len);
		else if (!strcmp(k, "plaintext")) rc = parse_hex(v, r.pt, sizeof r.pt, &r.pt_len);
		else if (!strcmp(k, "ciphertext")) rc = parse_hex(v, r.ct, sizeof r.ct, &r.ct_len);
		else if (!strcmp(k, "iterations")) r.iterations = atol(v);
		else if (!strcmp(k, "direction")) r.decrypt = !strcmp(v, "decrypt");
		if (rc) { fclose(f); return -1; }
	}
	fclose(f);
	return bad ? -1 : count;
}
