/* The harness's JSON output (json.c): values written straight to stdout. */
#ifndef FB_BENCH_JSON_H
#define FB_BENCH_JSON_H

/* A string with JSON escapes, or null for NULL. */
void json_str(const char *s);
/* A number (%.6g), or null when not valid. */
void json_num(double v, int valid);

#endif
