/*
 * Passwords for enc/dec: read from the source `--pass` names, or asked on
 * the terminal without echo. Buffers that held a password are wiped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include "cli.h"

enum { PASS_MAX = 1024 };

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;
	fputs("fastblock: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void cli_wipe_free(void *p, size_t n)
{
	if (!p)
		return;
	explicit_bzero(p, n);
	free(p);
}

/* The first line of fd (without "\n" or "\r\n"), at most PASS_MAX bytes. */
static int read_line(int fd, char **out)
{
	char *buf = malloc(PASS_MAX + 1);
	size_t n = 0;
	if (!buf)
		return cli_fail(EXIT_IO, "out of memory");
	while (n < PASS_MAX) {
		ssize_t r = read(fd, buf + n, 1); /* byte by byte: leave the rest of stdin */
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cli_wipe_free(buf, PASS_MAX + 1);
			return cli_fail(EXIT_IO, "cannot read the password: %s", strerror(errno));
		}
		if (r == 0 || buf[n] == '\n')
			break;
		n++;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	buf[n] = 0;
	*out = buf;
	return 0;
}

int cli_read_pass(const cli_pass_spec *spec, char **out)
{
	*out = NULL;
	switch (spec->kind) {
	case PASS_LITERAL:
		*out = strdup(spec->arg);
		return *out ? 0 : cli_fail(EXIT_IO, "out of memory");
	case PASS_ENV: {
		const char *v = getenv(spec->arg);
		if (!v)
			return cli_fail(EXIT_USAGE, "--pass env:%s: no such environment variable", spec->arg);
		*out = strdup(v);
		return *out ? 0 : cli_fail(EXIT_IO, "out of memory");
	}
	case PASS_FILE: {
		int fd = open(spec->arg, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return cli_fail(EXIT_IO, "--pass file:%s: %s", spec->arg, strerror(errno));
		int rc = read_line(fd, out);
		close(fd);
		return rc;
	}
	case PASS_FD:
		return read_line(spec->fd, out);
	case PASS_STDIN:
		return read_line(0, out);
	}
	return cli_fail(EXIT_USAGE, "bad --pass");
}

/* One no-echo read from the terminal. */
static int ask(FILE *tty, const char *prompt, char **out)
{
	struct termios old, quiet;
	int fd = fileno(tty);
	fputs(prompt, tty);
	fflush(tty);
	int echo_off = tcgetattr(fd, &old) == 0;
	if (echo_off) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	int rc = read_line(fd, out);
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	fputc('\n', tty);
	return rc;
}

int cli_prompt_pass(int confirm, char **out)
{
	*out = NULL;
	FILE *tty = fopen("/dev/tty", "r+");
	if (!tty)
		return cli_fail(EXIT_USAGE, "no key: give --key HEX, --key-file PATH or --pass SPEC");
	char *again = NULL;
	int rc = ask(tty, "enter password: ", out);
	if (!rc && confirm && !(rc = ask(tty, "verify password: ", &again)) && strcmp(*out, again))
		rc = cli_fail(EXIT_REFUSED, "the passwords differ");
	if (again)
		cli_wipe_free(again, strlen(again));
	if (!rc && !**out)
		rc = cli_fail(EXIT_REFUSED, "empty password");
	if (rc && *out) {
		cli_wipe_free(*out, strlen(*out));
		*out = NULL;
	}
	fclose(tty);
	return rc;
}
