/*
 * bench.h - the benchmark harness behind `fastblock speed`.
 *
 *   fastblock speed [--cipher NAME]... [--impl NAME] [--size BYTES]...
 *                   [--op encrypt|decrypt|both] [--peers] [--peer LIB]...
 *                   [--json] [--seconds S] [--info]
 *
 * See docs/benchmarks.md for the method and bench/README-style notes in
 * bench.c for the JSON fields.
 */
#ifndef FB_BENCH_H
#define FB_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* argv[0] is the subcommand name ("speed"); returns a process exit code:
 * 0 on success, 1 when a peer or implementation disagreed with fastblock's
 * default output (so scripts can fail), 2 on a usage error. */
int fb_bench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
