/*
 * Padding for ECB and CBC: PKCS#7 and ISO/IEC 9797-1 method 2.
 * Checking runs in constant time in the block's contents, so a padding
 * failure does not reveal where in the block it failed.
 */
#include "modes.h"

void fb_pad(enum fb_padding p, uint8_t *block, unsigned used, unsigned bs)
{
	if (p == FB_PAD_ISO9797_M2) {
		block[used] = 0x80;
		memset(block + used + 1, 0, bs - used - 1);
	} else {
		memset(block + used, (int)(bs - used), bs - used);
	}
}

/* All-ones if a == b, else zero, without branching on the values. */
static inline unsigned ct_eq(unsigned a, unsigned b)
{
	return ((a ^ b) - 1u) >> 31 ? ~0u : 0u;
}

static int unpad_pkcs7(const uint8_t *block, unsigned bs)
{
	unsigned pad = block[bs - 1], bad = 0;
	bad |= (pad - 1u) >> 31;               /* pad == 0 */
	bad |= (bs - pad) >> 31;               /* pad > bs */
	for (unsigned i = 0; i < bs; i++) {
		unsigned in_pad = ((bs - 1 - i) - pad) >> 31; /* 1 if i >= bs - pad */
		bad |= in_pad & ((block[i] ^ pad) != 0);
	}
	return bad ? -1 : (int)(bs - pad);
}

static int unpad_iso(const uint8_t *block, unsigned bs)
{
	/* Find the last non-zero byte; it must be 0x80. */
	unsigned found = 0, pos = 0, marker = 0;
	for (unsigned i = bs; i-- > 0;) {
		unsigned nz = (unsigned)(block[i] != 0);
		unsigned take = nz & ~found & 1u;
		pos |= i & (0u - take);
		marker |= block[i] & (0u - take);
		found |= nz;
	}
	unsigned ok = found & ct_eq(marker, 0x80) & 1u;
	return ok ? (int)pos : -1;
}

int fb_unpad(enum fb_padding p, const uint8_t *block, unsigned bs)
{
	return p == FB_PAD_ISO9797_M2 ? unpad_iso(block, bs) : unpad_pkcs7(block, bs);
}
