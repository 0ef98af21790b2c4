/*
 * fastblock enc | dec: the data path. Input goes through the context in
 * windows and out again in order; memory is one fixed buffer whatever the
 * input's size.
 *
 * A regular input file is mapped a window at a time, not read: the
 * library's threads (fb_ctx_set_threads) read the page cache in place.
 * A regular output file is written by all threads at once (pwrite).
 * Pipes and devices are read and written by the calling thread. With one
 * thread, everything happens on the calling thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

/* A window per thread: four of the library's 1 MB chunks, so threads
 * share a window evenly; the output buffer stays within a Zen 4 or
 * Sapphire Rapids last-level cache at two threads. */
#define WINDOW_PER_THREAD ((size_t)4 << 20)
#define MAX_IO_THREADS 64

/* ---- parallel reads and writes of regular files -------------------------- */

typedef struct io_part {
	int fd, write;
	uint8_t *p;
	size_t n, done;
	off_t off;
	int err;
} io_part;

static void *io_part_run(void *arg)
{
	io_part *q = arg;
	while (q->done < q->n) {
		ssize_t r = q->write ? pwrite(q->fd, q->p + q->done, q->n - q->done, q->off + (off_t)q->done)
				     : pread(q->fd, q->p + q->done, q->n - q->done, q->off + (off_t)q->done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			q->err = errno;
			break;
		}
		if (r == 0) { /* end of file (reads); a write of 0 is an error */
			q->err = q->write ? EIO : 0;
			break;
		}
		q->done += (size_t)r;
	}
	return NULL;
}

/* Reads or writes n bytes at off in parts on up to threads threads.
 * Reads return the bytes up to the first short part (the end of the
 * file); -1 with errno on an error. */
static ssize_t par_io(int fd, int write, uint8_t *p, size_t n, off_t off, unsigned threads)
{
	io_part part[MAX_IO_THREADS];
	pthread_t tid[MAX_IO_THREADS];
	int made[MAX_IO_THREADS] = { 0 };
	if (threads > MAX_IO_THREADS)
		threads = MAX_IO_THREADS;
	if (threads < 1 || n < threads * (size_t)65536)
		threads = 1;
	size_t each = (n / threads + 4095) & ~(size_t)4095;
	for (unsigned i = 0; i < threads; i++) {
		size_t start = i * each < n ? i * each : n;
		size_t len = n - start < each ? n - start : each;
		part[i] = (io_part){ .fd = fd, .write = write, .p = p + start, .n = len, .off = off + (off_t)start };
		if (i > 0 && len)
			made[i] = pthread_create(&tid[i], NULL, io_part_run, &part[i]) == 0;
	}
	io_part_run(&part[0]);
	for (unsigned i = 1; i < threads; i++) {
		if (made[i])
			pthread_join(tid[i], NULL);
		else if (part[i].n)
			io_part_run(&part[i]); /* no thread: this one does it */
	}
	size_t total = 0;
	for (unsigned i = 0; i < threads; i++) {
		if (part[i].err) {
			errno = part[i].err;
			return -1;
		}
		total += part[i].done;
		if (part[i].done < part[i].n)
			break;
	}
	return (ssize_t)total;
}

unsigned cli_cpus(void)
{
	cpu_set_t set;
	long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

/* ---- one thread's reads and writes --------------------------------------- */

/* Reads what a stream has for buf: at least one read, then more while
 * more is there at once. Waiting for a full window would stop the
 * producer while we encrypt, which costs more than a second thread wins
 * (docs/scale.md). */
static ssize_t read_some(int fd, uint8_t *buf, size_t cap)
{
	size_t got = 0;
	while (got < cap) {
		if (got) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			if (poll(&p, 1, 0) != 1)
				break;
		}
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return got ? (ssize_t)got : -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int cli_write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes n bytes: at *off on all threads (a regular file; *off advances),
 * or in order on this one (off -1). 0 ok, -1 with errno. */
static int put(int fd, const uint8_t *p, size_t n, off_t *off, unsigned threads)
{
	if (*off < 0)
		return cli_write_all(fd, p, n);
	if (par_io(fd, 1, (uint8_t *)p, n, *off, threads) != (ssize_t)n)
		return -1;
	*off += (off_t)n;
	return 0;
}

/* ---- progress --------------------------------------------------------------- */

typedef struct progress {
	int on;
	double start, last;
	unsigned long long done, total; /* total 0: unknown */
	int shown;
} progress;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void human(char *buf, size_t cap, double bytes)
{
	static const char *unit[] = { "B", "KB", "MB", "GB", "TB" };
	int u = 0;
	while (bytes >= 1000 && u < 4)
		bytes /= 1000, u++;
	snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

static void progress_print(progress *p, int last)
{
	double t = now(), dt = t - p->start;
	char done[32], rate[32], line[160];
	human(done, sizeof done, (double)p->done);
	human(rate, sizeof rate, dt > 0 ? p->done / dt : 0);
	int n = snprintf(line, sizeof line, "\r%s", done);
	if (p->total) {
		char total[32];
		human(total, sizeof total, (double)p->total);
		n += snprintf(line + n, sizeof line - n, " of %s (%.0f%%)", total, 100.0 * p->done / p->total);
	}
	n += snprintf(line + n, sizeof line - n, ", %s/s", rate);
	if (last) {
		snprintf(line + n, sizeof line - n, ", %.1f s\033[K\n", dt);
	} else if (p->total && p->done && p->done < p->total) {
		double eta = dt * (double)(p->total - p->done) / (double)p->done;
		snprintf(line + n, sizeof line - n, ", ETA %d:%02d\033[K", (int)eta / 60, (int)eta % 60);
	} else {
		snprintf(line + n, sizeof line - n, "\033[K");
	}
	fputs(line, stderr);
	fflush(stderr);
	p->last = t;
	p->shown = 1;
}

/* Shown once the run has taken a second (shorter runs never show it),
 * then four times a second. */
static void progress_step(progress *p, size_t n)
{
	p->done += n;
	if (!p->on)
		return;
	double t = now();
	if (t - p->start >= 1.0 && t - p->last >= 0.25)
		progress_print(p, 0);
}

/* ---- the pump ------------------------------------------------------------------ */

static int regular(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

static int parallel_mode(const fb_cipher *c, enum fb_direction dir)
{
	switch (fb_cipher_mode(c)) {
	case FB_ECB: case FB_CTR: case FB_XTS: return 1;
	case FB_CBC: case FB_CFB: return dir == FB_DECRYPT;
	default: return 0;
	}
}

/* The next window of a regular file, mapped: the page cache is read in
 * place by whichever threads encrypt it, so the copy that read(2) makes,
 * as long as AES itself, is not made at all. NULL if it cannot be mapped
 * (the caller reads instead). A file that shrinks under the mapping raises
 * SIGBUS, which enc and dec turn into an input error (cli_crypt.c). */
static const uint8_t *map_window(int fd, off_t off, size_t n, void **base, size_t *span)
{
	off_t page = off & ~(off_t)(sysconf(_SC_PAGESIZE) - 1);
	*span = (size_t)(off - page) + n;
	*base = mmap(NULL, *span, PROT_READ, MAP_SHARED, fd, page);
	return *base == MAP_FAILED ? NULL : (const uint8_t *)*base + (off - page);
}

/* The bytes of the next window: a regular file's, up to its size now;
 * a stream's, what read gives. *src is where they are (mapped or in buf). */
static ssize_t next_window(int fd, off_t *off, off_t size, uint8_t *buf, size_t win, const uint8_t **src,
			   void **base, size_t *span)
{
	*base = NULL;
	*src = buf;
	if (*off < 0)
		return read_some(fd, buf, win);
	if (*off >= size)
		return 0;
	size_t n = size - *off < (off_t)win ? (size_t)(size - *off) : win;
	const uint8_t *m = map_window(fd, *off, n, base, span);
	if (m)
		*src = m;
	else if ((n = (size_t)par_io(fd, 0, buf, n, *off, 1)) == (size_t)-1)
		return -1;
	*off += (off_t)n;
	return (ssize_t)n;
}

static void tell_serial(const fb_cipher *c, enum fb_direction dir)
{
	fprintf(stderr, "fastblock: %s %s is a serial chain: one thread\n", fb_cipher_name(c),
		dir == FB_ENCRYPT ? "encryption" : "decryption");
}

int cli_pump(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir, int in_fd, int out_fd,
	     const cli_pump_opts *po, int *io_err)
{
	unsigned threads = po->threads ? po->threads : 1;
	size_t win = threads * WINDOW_PER_THREAD;
	size_t cap = win + 64; /* a held-back block may come out too */
	uint8_t *buf = malloc(cap);
	int rc = buf ? FB_OK : FB_ERR_ARGUMENT;
	int told = parallel_mode(c, dir) || !(po->explicit_threads || po->progress) || threads == 1;
	/* Regular files: mapped windows in, pwrite out, at positions from now. */
	struct stat st;
	off_t in_off = regular(in_fd) ? lseek(in_fd, 0, SEEK_CUR) : -1, size = 0;
	if (in_off >= 0 && !fstat(in_fd, &st))
		size = st.st_size;
	off_t out_off = threads > 1 && regular(out_fd) ? lseek(out_fd, 0, SEEK_CUR) : -1;
	progress pg = { .on = po->progress, .start = now() };
	if (in_off >= 0 && size > in_off)
		pg.total = (unsigned long long)(size - in_off);
	*io_err = 0;
	if (!rc && threads > 1 && fb_ctx_set_threads(ctx, threads))
		rc = FB_ERR_STATE;
	while (!rc) {
		const uint8_t *src;
		void *base;
		size_t span = 0, got;
		ssize_t n = next_window(in_fd, &in_off, size, buf, win, &src, &base, &span);
		if (n < 0) {
			*io_err = cli_fail(EXIT_IO, "cannot read the input: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (!told && pg.done + (size_t)n >= ((size_t)2 << 20)) {
			tell_serial(c, dir);
			told = 1;
		}
		rc = fb_update(ctx, buf, cap, &got, src, (size_t)n);
		if (base)
			munmap(base, span);
		if (!rc && got && put(out_fd, buf, got, &out_off, threads))
			*io_err = cli_fail(EXIT_IO, "cannot write the output: %s", strerror(errno));
		if (*io_err)
			break;
		progress_step(&pg, (size_t)n);
	}
	if (in_off >= 0)
		lseek(in_fd, in_off, SEEK_SET); /* as read would have left it */
	if (!rc && !*io_err) {
		size_t got;
		rc = fb_final(ctx, buf, cap, &got);
		if (!rc && got && put(out_fd, buf, got, &out_off, threads))
			*io_err = cli_fail(EXIT_IO, "cannot write the output: %s", strerror(errno));
	}
	/* pwrite leaves the file position where it was: put it at the end, as
	 * write would, for whoever reads the position next. */
	if (out_off >= 0)
		lseek(out_fd, out_off, SEEK_SET);
	if (pg.on && pg.shown)
		progress_print(&pg, 1);
	if (buf)
		cli_wipe_free(buf, cap);
	return rc;
}
