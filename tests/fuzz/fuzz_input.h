/* Reading fuzz input as a sequence of choices and byte strings. */
#ifndef FB_FUZZ_INPUT_H
#define FB_FUZZ_INPUT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
	const uint8_t *p;
	size_t n;
} fz_in;

static inline unsigned fz_byte(fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline size_t fz_below(fz_in *in, size_t k)
{
	size_t v = fz_byte(in) | (size_t)fz_byte(in) << 8;
	return k ? v % k : 0;
}

/* Up to n bytes into dst (zero-filled past the input's end). */
static inline void fz_bytes(fz_in *in, uint8_t *dst, size_t n)
{
	size_t k = n < in->n ? n : in->n;
	memcpy(dst, in->p, k);
	memset(dst + k, 0, n - k);
	in->p += k;
	in->n -= k;
}
#endif
