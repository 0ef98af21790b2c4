/*
 * fastblock enc | dec: options, keys (hex, key file, or a password in the
 * format of `openssl enc -pbkdf2`), streaming, and output that is never a
 * clobbered file: a regular file is replaced atomically (mode and hard
 * links kept), a device, FIFO or stdout is written directly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#ifdef FB_HAVE_OPENSSL
#include <openssl/evp.h>
#endif

/* openssl enc -pbkdf2: "Salted__", 8 bytes of salt, then the ciphertext. */
static const char MAGIC[8] = { 'S', 'a', 'l', 't', 'e', 'd', '_', '_' };
enum { SALT_LEN = 8, CHUNK = 1 << 16, KEY_MAX = 1024 };

/* ---- keys --------------------------------------------------------------- */

typedef struct {
	uint8_t key[KEY_MAX], iv[16];
	size_t kl, ivl;
	int have_iv;
	uint8_t salt[SALT_LEN];
	int salted; /* password mode: the Salted__ header goes first */
} key_material;

/* A key file holds the key as hex (one line) or as raw bytes. Hex is
 * taken when the trimmed text is hex of a length the cipher accepts. */
/* Reads all of a small file into buf (loops over short reads); a file that
 * does not fit is refused rather than truncated. */
static int slurp_small(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cli_fail(EXIT_IO, "--key-file %s: %s", path, strerror(errno));
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return cli_fail(EXIT_IO, "--key-file %s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) { /* full: one more byte means too long */
			uint8_t extra;
			ssize_t more;
			do
				more = read(fd, &extra, 1);
			while (more < 0 && errno == EINTR);
			close(fd);
			if (more != 0)
				return cli_fail(EXIT_REFUSED, "--key-file %s: longer than any key", path);
			*len = n;
			return 0;
		}
	}
	close(fd);
	*len = n;
	return 0;
}

static int read_key_file(const char *path, const fb_cipher *c, key_material *k)
{
	uint8_t buf[2 * KEY_MAX + 4];
	char text[sizeof buf + 1];
	size_t n = 0;
	int rc = slurp_small(path, buf, sizeof buf, &n);
	if (rc)
		return rc;
	size_t t = n;
	while (t && (buf[t - 1] == '\n' || buf[t - 1] == '\r' || buf[t - 1] == ' '))
		t--;
	memcpy(text, buf, t);
	text[t] = 0;
	uint8_t *hex = NULL;
	size_t hl = 0;
	size_t want = fb_cipher_key_len(c); /* 0: a variable-key name */
	if (t == strlen(text) && !cli_parse_hex(text, &hex, &hl) && hl <= KEY_MAX &&
	    (!want || hl == want)) {
		memcpy(k->key, hex, hl);
		k->kl = hl;
	} else if (n <= KEY_MAX) {
		memcpy(k->key, buf, n);
		k->kl = n;
	} else {
		rc = cli_fail(EXIT_REFUSED, "--key-file %s: longer than any key", path);
	}
	cli_wipe_free(hex, hl + 1);
	explicit_bzero(buf, sizeof buf);
	explicit_bzero(text, sizeof text);
	return rc;
}

static int hex_into(const char *what, const char *hex, uint8_t *dst, size_t cap, size_t *len)
{
	uint8_t *p;
	size_t n;
	if (cli_parse_hex(hex, &p, &n))
		return cli_fail(EXIT_USAGE, "%s is not hex (an even number of 0-9a-f digits)", what);
	int rc = n > cap ? cli_fail(EXIT_REFUSED, "%s is longer than any %s", what, what + 2) : 0;
	if (!rc) {
		memcpy(dst, p, n);
		*len = n;
	}
	cli_wipe_free(p, n + 1);
	return rc;
}

#ifdef FB_HAVE_OPENSSL
/* PBKDF2(password, salt, iter, md) gives key || IV in one derivation, as
 * `openssl enc -pbkdf2` does. */
static int derive(const crypt_args *a, const fb_cipher *c, const char *pass, key_material *k)
{
	const EVP_MD *md = EVP_get_digestbyname(a->md ? a->md : "sha256");
	if (!md)
		return cli_fail(EXIT_USAGE, "unknown digest '%s' for --md", a->md);
	k->kl = fb_cipher_key_len(c);
	k->ivl = fb_cipher_iv_len(c);
	if (!k->kl)
		return cli_fail(EXIT_USAGE, "--pass needs a cipher name with a key size (rc6-128-cbc, not rc6-cbc)");
	uint8_t buf[KEY_MAX + 16];
	int ok = PKCS5_PBKDF2_HMAC(pass, (int)strlen(pass), k->salt, SALT_LEN, (int)a->iter, md,
				   (int)(k->kl + k->ivl), buf);
	if (ok) {
		memcpy(k->key, buf, k->kl);
		memcpy(k->iv, buf + k->kl, k->ivl);
		k->have_iv = 1;
	}
	explicit_bzero(buf, sizeof buf);
	return ok ? 0 : cli_fail(EXIT_REFUSED, "PBKDF2 failed");
}
#endif

/* The salt: given, or random (enc); read from the header (dec). */
static int get_salt(const crypt_args *a, enum fb_direction dir, int in_fd, key_material *k)
{
	if (dir == FB_DECRYPT) {
		if (a->salt_hex)
			return cli_fail(EXIT_USAGE, "--salt is for enc: dec reads the salt from the input");
		uint8_t head[16];
		size_t got = 0;
		while (got < sizeof head) {
			ssize_t r = read(in_fd, head + got, sizeof head - got);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		if (got < sizeof head || memcmp(head, MAGIC, sizeof MAGIC))
			return cli_fail(EXIT_REFUSED, "bad magic number: the input does not start with "
						      "\"Salted__\" (not written with a password?)");
		memcpy(k->salt, head + 8, SALT_LEN);
		return 0;
	}
	if (a->salt_hex) {
		size_t n = 0;
		int rc = hex_into("--salt", a->salt_hex, k->salt, SALT_LEN, &n);
		if (!rc && n != SALT_LEN)
			rc = cli_fail(EXIT_USAGE, "--salt must be %d bytes (16 hex digits)", SALT_LEN);
		return rc;
	}
	if (getrandom(k->salt, SALT_LEN, 0) != SALT_LEN)
		return cli_fail(EXIT_IO, "cannot read random bytes for the salt: %s", strerror(errno));
	return 0;
}

static int password_key(const crypt_args *a, const fb_cipher *c, enum fb_direction dir, int in_fd,
			key_material *k)
{
#ifdef FB_HAVE_OPENSSL
	char *pass = NULL;
	cli_pass_spec spec;
	int rc;
	if (a->pass) {
		if (cli_parse_pass_spec(a->pass, &spec))
			return cli_fail(EXIT_USAGE, "bad --pass (pass:TEXT, env:VAR, file:PATH, fd:N or stdin)");
		if (spec.kind == PASS_STDIN && !a->in)
			return cli_fail(EXIT_USAGE, "--pass stdin needs --in FILE for the data");
		rc = cli_read_pass(&spec, &pass);
	} else {
		rc = cli_prompt_pass(dir == FB_ENCRYPT, &pass);
	}
	if (!rc)
		rc = get_salt(a, dir, in_fd, k);
	if (!rc)
		rc = derive(a, c, pass, k);
	if (pass)
		cli_wipe_free(pass, strlen(pass));
	k->salted = 1;
	return rc;
#else
	(void)a; (void)c; (void)dir; (void)in_fd; (void)k;
	return cli_fail(EXIT_USAGE, "--pass needs a build with OpenSSL (PBKDF2)");
#endif
}

static int get_keys(const crypt_args *a, const fb_cipher *c, enum fb_direction dir, int in_fd,
		    key_material *k)
{
	int rc;
	if (a->key_hex)
		rc = hex_into("--key", a->key_hex, k->key, KEY_MAX, &k->kl);
	else if (a->key_file)
		rc = read_key_file(a->key_file, c, k);
	else if (a->pass || isatty(0)) /* no key given on a terminal: ask */
		rc = password_key(a, c, dir, in_fd, k);
	else
		rc = cli_fail(EXIT_USAGE, "no key: give --key HEX, --key-file PATH or --pass SPEC");
	if (rc)
		return rc;
	if (a->iv_hex) { /* replaces a derived IV, as openssl enc -iv does */
		if ((rc = hex_into("--iv", a->iv_hex, k->iv, sizeof k->iv, &k->ivl)))
			return rc;
		k->have_iv = 1;
	}
	if (fb_cipher_iv_len(c) && !k->have_iv)
		return cli_fail(EXIT_USAGE, "--iv HEX is required for %s", fb_cipher_name(c));
	return 0;
}

/* ---- output ------------------------------------------------------------- */

/* The temporary file, for the signal handler to remove. */
static char tmp_path[PATH_MAX + 32];

static void on_signal(int sig)
{
	if (tmp_path[0])
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A mapped input file that shrinks under the mapping (cli_pump.c): an
 * input error, not a crash, and no partial output file. */
static void on_sigbus(int sig)
{
	static const char msg[] = "fastblock: cannot read the input: it shrank while being read\n";
	(void)sig;
	if (tmp_path[0])
		unlink(tmp_path);
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more to say */
	}
	_exit(EXIT_IO);
}

typedef struct {
	int fd;
	int direct;        /* writing the destination itself: stdout, a device, a FIFO */
	char dest[PATH_MAX];
	struct stat st;    /* of dest, if it existed */
	int existed;
} out_target;

static int out_open(const char *path, out_target *t)
{
	memset(t, 0, sizeof *t);
	t->fd = -1;
	if (!path) {
		t->fd = 1;
		t->direct = 1;
		return 0;
	}
	t->existed = stat(path, &t->st) == 0; /* follows symlinks */
	if (t->existed && !S_ISREG(t->st.st_mode)) {
		if (S_ISDIR(t->st.st_mode))
			return cli_fail(EXIT_IO, "--out %s is a directory", path);
		t->fd = open(path, O_WRONLY | O_CLOEXEC);
		t->direct = 1;
		snprintf(t->dest, sizeof t->dest, "%s", path);
		return t->fd < 0 ? cli_fail(EXIT_IO, "cannot open '%s': %s", path, strerror(errno)) : 0;
	}
	/* A symlink is followed: the temporary goes beside its target. */
	if (t->existed ? !realpath(path, t->dest) : snprintf(t->dest, sizeof t->dest, "%s", path) >= (int)sizeof t->dest)
		return cli_fail(EXIT_IO, "cannot resolve '%s'", path);
	snprintf(tmp_path, sizeof tmp_path, "%s.tmp-XXXXXX", t->dest);
	t->fd = mkostemp(tmp_path, O_CLOEXEC);
	if (t->fd < 0) {
		tmp_path[0] = 0;
		return cli_fail(EXIT_IO, "cannot create a temporary file beside '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* Copies the finished temporary into dest in place, so every hard link to
 * dest sees the new content. */
static int copy_into(int from, const char *dest)
{
	uint8_t buf[CHUNK];
	int to = open(dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int rc = to < 0 || lseek(from, 0, SEEK_SET) < 0;
	while (!rc && (n = read(from, buf, sizeof buf)) > 0)
		rc = cli_write_all(to, buf, (size_t)n);
	if (!rc && (n < 0 || fsync(to)))
		rc = -1;
	if (to >= 0 && close(to))
		rc = -1;
	return rc;
}

/* Success: the temporary becomes dest. Failure: it is removed. */
static int out_close(out_target *t, int ok)
{
	int rc = 0;
	if (t->direct) {
		if (t->fd != 1 && close(t->fd))
			rc = cli_fail(EXIT_IO, "cannot write '%s': %s", t->dest, strerror(errno));
		return rc;
	}
	mode_t mask = umask(0);
	umask(mask);
	mode_t mode = 0666 & ~mask; /* a new file, as open(2) would make it */
	if (t->existed)
		mode = t->st.st_mode & 07777;
	if (ok && (fchmod(t->fd, mode) || fsync(t->fd)))
		rc = cli_fail(EXIT_IO, "cannot write '%s': %s", t->dest, strerror(errno));
	if (ok && !rc && t->existed && t->st.st_nlink > 1) {
		if (copy_into(t->fd, t->dest))
			rc = cli_fail(EXIT_IO, "cannot write '%s': %s", t->dest, strerror(errno));
		unlink(tmp_path);
	} else if (ok && !rc && rename(tmp_path, t->dest)) {
		rc = cli_fail(EXIT_IO, "cannot write '%s': %s", t->dest, strerror(errno));
	}
	if (!ok || rc)
		unlink(tmp_path);
	close(t->fd);
	tmp_path[0] = 0;
	return rc;
}

/* ---- the run ------------------------------------------------------------ */

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

static int open_input(const char *path, int *fd)
{
	struct stat st;
	*fd = 0;
	if (!path)
		return 0;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return cli_fail(EXIT_IO, "cannot open input '%s': %s", path, strerror(errno));
	if (!fstat(*fd, &st) && S_ISDIR(st.st_mode)) {
		close(*fd);
		return cli_fail(EXIT_IO, "input '%s' is a directory", path);
	}
	return 0;
}

static int run(const crypt_args *a, const fb_cipher *c, enum fb_direction dir, int in_fd)
{
	key_material *k = calloc(1, sizeof *k);
	fb_ctx *ctx = fb_ctx_new();
	int rc = k && ctx ? get_keys(a, c, dir, in_fd, k) : cli_fail(EXIT_IO, "out of memory");
	if (!rc) {
		int err = fb_init(ctx, c, dir, k->key, k->kl, k->ivl ? k->iv : NULL, k->ivl, &a->opt);
		if (err)
			rc = cli_fail(exit_code_for(err), "%s", fb_strerror(err));
	}
	int salted = k && k->salted && dir == FB_ENCRYPT;
	uint8_t header[16];
	if (salted) {
		memcpy(header, MAGIC, sizeof MAGIC);
		memcpy(header + 8, k->salt, SALT_LEN);
	}
	if (k)
		cli_wipe_free(k, sizeof *k);
	out_target t;
	if (!rc)
		rc = out_open(a->out, &t);
	if (rc) {
		fb_ctx_free(ctx);
		return rc;
	}
	int io = salted && cli_write_all(t.fd, header, sizeof header)
		? cli_fail(EXIT_IO, "cannot write the output: %s", strerror(errno)) : 0;
	cli_pump_opts po = { .threads = a->threads, .explicit_threads = a->threads_given,
			     .progress = a->progress < 0 ? isatty(1) && isatty(2) : a->progress };
	if (!po.threads)
		po.threads = cli_cpus();
	int err = io ? FB_OK : cli_pump(ctx, c, dir, in_fd, t.fd, &po, &io);
	fb_ctx_free(ctx);
	if (err)
		rc = cli_fail(exit_code_for(err), "%s", fb_strerror(err));
	else if (io)
		rc = io;
	int rc2 = out_close(&t, !rc);
	return rc ? rc : rc2;
}

int cli_crypt(int argc, char **argv, enum fb_direction dir)
{
	crypt_args a;
	int rc = cli_parse_crypt_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	const fb_cipher *c = fb_cipher_by_name(a.cipher);
	if (!c)
		return cli_fail(EXIT_USAGE, "unknown cipher '%s' (see `fastblock list`)", a.cipher);
	int in_fd;
	if ((rc = open_input(a.in, &in_fd)))
		return rc;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGBUS, on_sigbus);
	rc = run(&a, c, dir, in_fd);
	if (in_fd)
		close(in_fd);
	return rc;
}
