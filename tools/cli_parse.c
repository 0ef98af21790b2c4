/*
 * Strict parsers of the command-line tool: hex, numbers, password specs
 * and the options of enc/dec.
 * Pure functions of their input, so the fuzz harness runs them directly.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
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

/* ---- enc/dec options ---------------------------------------------------- */

void cli_usage(FILE *f)
{
	fprintf(f,
		"usage: fastblock enc|dec --cipher NAME (--key HEX | --key-file PATH | --pass SPEC)\n"
		"                 [--iv HEX] [--no-pad | --pad pkcs7|iso9797-2|none]\n"
		"                 [--in FILE] [--out FILE] [--impl NAME] [--strict-keys] [--constant-time]\n"
		"                 [--salt HEX] [--iter N] [--md DIGEST] [--threads N] [--progress | --no-progress]\n"
		"         --pass pass:TEXT | env:VAR | file:PATH | fd:N | stdin: key and IV by\n"
		"           PBKDF2 (default SHA-256, 10000 iterations), file format of\n"
		"           `openssl enc -pbkdf2` (Salted__ and a random salt); with no key\n"
		"           option on a terminal, the password is asked without echo\n"
		"         --threads N: threads for ECB, CTR, XTS and CBC/CFB decryption of large\n"
		"           inputs (default: the CPUs available; 1: one thread)\n"
		"         --progress: bytes, rate and ETA on stderr after a second (default:\n"
		"           when stdout and stderr are both terminals)\n"
		"       fastblock mac --alg cbc-mac|retail|cmac --cipher NAME --key HEX [--pad 1|2|3]\n"
		"                 [--len BYTES] [--in FILE] [--batch FILE]   (MAC in hex)\n"
		"       fastblock kcv --cipher NAME --key HEX [--cmac] [--len BYTES] [--batch FILE]\n"
		"       fastblock key check|fix-parity|generate --cipher des|des-ede|des-ede3 [--key HEX]\n"
		"         (NAME without a mode: des, des-ede3, aes-128; --batch: one KEYHEX, or\n"
		"          KEYHEX MSGHEX for mac, per line)\n"
		"       fastblock list [--porcelain] [--footprint]   (porcelain: tab-separated records for scripts;\n"
		"                                   footprint: code, table, schedule and context bytes)\n"
		"       fastblock speed [--cipher NAME]... [--impl NAME] [--size BYTES]... [--peers] [--json]\n"
		"       fastblock --version | --help\n"
		"Exit status: 0 ok, 1 key, password or data refused, 2 usage error,\n"
		"             3 input or output error.\n");
}

enum {
	O_CIPHER = 256, O_KEY, O_KEY_FILE, O_IV, O_IN, O_OUT, O_IMPL, O_PASS, O_SALT, O_ITER, O_MD,
	O_PAD, O_NO_PAD, O_STRICT, O_CT, O_THREADS, O_PROGRESS, O_NO_PROGRESS,
};

static const struct option long_opts[] = {
	{ "cipher", required_argument, NULL, O_CIPHER },
	{ "key", required_argument, NULL, O_KEY },
	{ "key-file", required_argument, NULL, O_KEY_FILE },
	{ "iv", required_argument, NULL, O_IV },
	{ "in", required_argument, NULL, O_IN },
	{ "out", required_argument, NULL, O_OUT },
	{ "impl", required_argument, NULL, O_IMPL },
	{ "pass", required_argument, NULL, O_PASS },
	{ "salt", required_argument, NULL, O_SALT },
	{ "iter", required_argument, NULL, O_ITER },
	{ "md", required_argument, NULL, O_MD },
	{ "pad", required_argument, NULL, O_PAD },
	{ "no-pad", no_argument, NULL, O_NO_PAD },
	{ "strict-keys", no_argument, NULL, O_STRICT },
	{ "constant-time", no_argument, NULL, O_CT },
	{ "threads", required_argument, NULL, O_THREADS },
	{ "progress", no_argument, NULL, O_PROGRESS },
	{ "no-progress", no_argument, NULL, O_NO_PROGRESS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_pad(const char *v, fb_options *opt)
{
	if (!strcmp(v, "pkcs7")) opt->padding = FB_PAD_PKCS7;
	else if (!strcmp(v, "iso9797-2")) opt->padding = FB_PAD_ISO9797_M2;
	else if (!strcmp(v, "none")) opt->padding = FB_PAD_NONE;
	else return cli_fail(EXIT_USAGE, "unknown padding '%s' (pkcs7, iso9797-2, none)", v);
	return 0;
}

/* Returns 0, an exit code, or -1 for --help (exit 0). */
int cli_parse_crypt_args(int argc, char **argv, crypt_args *a)
{
	memset(a, 0, sizeof *a);
	a->iter = 10000; /* openssl enc -pbkdf2's default */
	a->progress = -1;
	opterr = 0; /* our own one-line messages */
	optind = 0; /* glibc: a full re-initialisation, also of a half-read option cluster */
	int ch, rc = 0;
	while (!rc && (ch = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
		switch (ch) {
		case O_CIPHER: a->cipher = optarg; break;
		case O_KEY: a->key_hex = optarg; break;
		case O_KEY_FILE: a->key_file = optarg; break;
		case O_IV: a->iv_hex = optarg; break;
		case O_IN: a->in = optarg; break;
		case O_OUT: a->out = optarg; break;
		case O_IMPL: a->opt.impl = optarg; break;
		case O_PASS: a->pass = optarg; break;
		case O_SALT: a->salt_hex = optarg; break;
		case O_MD: a->md = optarg; break;
		case O_ITER:
			if (cli_parse_count(optarg, 1, INT_MAX, &a->iter))
				rc = cli_fail(EXIT_USAGE, "--iter takes a whole number from 1 to %d, not '%s'",
					      INT_MAX, optarg);
			break;
		case O_THREADS: {
			unsigned long long n = 1;
			if (cli_parse_count(optarg, 1, 256, &n))
				rc = cli_fail(EXIT_USAGE, "--threads takes a whole number from 1 to 256, not '%s'",
					      optarg);
			a->threads = (unsigned)n;
			a->threads_given = 1;
			break;
		}
		case O_PROGRESS: a->progress = 1; break;
		case O_NO_PROGRESS: a->progress = 0; break;
		case O_PAD: rc = parse_pad(optarg, &a->opt); break;
		case O_NO_PAD: a->opt.padding = FB_PAD_NONE; break;
		case O_STRICT: a->opt.flags |= FB_FLAG_STRICT_KEYS; break;
		case O_CT: a->opt.flags |= FB_FLAG_CONSTANT_TIME; break;
		case 'h': cli_usage(stdout); return -1;
		default:
			if (optopt)
				return cli_fail(EXIT_USAGE, "option '%s' needs a value (see --help)", argv[optind - 1]);
			return cli_fail(EXIT_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return cli_fail(EXIT_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!a->cipher)
		return cli_fail(EXIT_USAGE, "--cipher NAME is required (see `fastblock list`)");
	if (!!a->key_hex + !!a->key_file + !!a->pass > 1)
		return cli_fail(EXIT_USAGE, "give one of --key, --key-file and --pass");
	if ((a->salt_hex || a->md) && a->key_hex)
		return cli_fail(EXIT_USAGE, "--salt and --md go with a password, not --key");
	return 0;
}

