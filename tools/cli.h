/*
 * cli.h - the pieces of the command-line tool shared by its files and by
 * the fuzz harnesses: strict parsers, password sources, exit codes.
 */
#ifndef FB_CLI_H
#define FB_CLI_H
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include "fastblock.h"

/* The exit status table (docs/security.md, the man page and --help say it). */
enum {
	EXIT_OK = 0,
	EXIT_REFUSED = 1, /* key, IV, password or data refused (bad padding, weak key, ...) */
	EXIT_USAGE = 2,   /* bad or missing option, unknown cipher */
	EXIT_IO = 3,      /* cannot read the input or write the output */
};

/* Code and named constant-table bytes of one object file of the library,
 * from nm at build time (scripts/footprint.sh writes the table). */
typedef struct cli_footprint {
	const char *object; /* "des_bs_avx512": src/des/des_bs_avx512.c */
	unsigned long code, tables;
} cli_footprint;
extern const cli_footprint cli_footprints[]; /* ends with object NULL */

/* Prints "fastblock: <message>" on stderr; returns code. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hex string -> bytes (malloc'd, at least 1 byte allocated). Upper or lower
 * case, no separators, an even number of digits. 0 ok, -1 bad or no memory. */
int cli_parse_hex(const char *s, uint8_t **out, size_t *len);

/* Decimal number in [min, max], the whole string and nothing else (no sign,
 * no spaces, no suffix). 0 ok, -1 otherwise. */
int cli_parse_count(const char *s, unsigned long long min, unsigned long long max,
		    unsigned long long *v);

/* Where a password comes from, as `openssl enc -pass` names it. */
typedef enum { PASS_LITERAL, PASS_ENV, PASS_FILE, PASS_FD, PASS_STDIN } cli_pass_kind;
typedef struct {
	cli_pass_kind kind;
	const char *arg; /* the text, variable, path; for fd, the number in fd */
	int fd;
} cli_pass_spec;

/* "pass:X" | "env:VAR" | "file:PATH" | "fd:N" | "stdin"; anything else is
 * the password itself (kept for old scripts; visible in ps). 0 ok, -1 bad. */
int cli_parse_pass_spec(const char *s, cli_pass_spec *spec);

/* Reads the password the spec names (first line of a file, fd or stdin,
 * without its newline) into a malloc'd string. 0 ok, else an exit code
 * after printing the reason. */
int cli_read_pass(const cli_pass_spec *spec, char **out);

/* No-echo prompt on the terminal, asked twice when confirm is set. */
int cli_prompt_pass(int confirm, char **out);

/* Wipes memory the compiler may not drop; frees p after wiping if it is
 * not NULL. */
void cli_wipe_free(void *p, size_t n);

/* The options of enc and dec. */
typedef struct {
	const char *cipher, *key_hex, *key_file, *iv_hex, *in, *out, *pass, *salt_hex, *md;
	unsigned long long iter;
	fb_options opt;
	unsigned threads;  /* --threads N; 0: the CPUs the process may use */
	int threads_given; /* --threads was on the command line */
	int progress;      /* --progress 1, --no-progress 0, else -1: when stdout and stderr are terminals */
} crypt_args;

/* How enc and dec move data (tools/cli_pump.c). */
typedef struct {
	unsigned threads;     /* 1: everything on the calling thread */
	int explicit_threads; /* say once when a serial mode cannot use them */
	int progress;         /* a progress line on stderr */
} cli_pump_opts;

/* Streams in_fd through ctx (initialised for c and dir) to out_fd, then
 * fb_final. An fb error is returned as such; an I/O error is set in
 * *io_err as an exit code after a message. */
int cli_pump(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, int in_fd, int out_fd,
	     const cli_pump_opts *po, int *io_err);
/* write(2) until all of p is written; 0 ok, -1 with errno. */
int cli_write_all(int fd, const uint8_t *p, size_t n);
/* The CPUs this process may run on. */
unsigned cli_cpus(void);

/* Parses enc/dec options (argv[0] is the verb). 0 ok, -1 for --help (the
 * usage was printed), else an exit code after a one-line message. Reads
 * no file and no environment. */
int cli_parse_crypt_args(int argc, char **argv, crypt_args *a);

/* The verbs: argv[0] is the verb. */
int cli_crypt(int argc, char **argv, enum fb_direction dir);
int cli_mac(int argc, char **argv, int kcv); /* mac, or kcv when kcv is set */
int cli_key(int argc, char **argv);
void cli_usage(FILE *f);

#endif
