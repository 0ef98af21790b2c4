/*
 * Entries for the front ends built with the library from this tree (the
 * OpenSSL provider links libfastblock.a). Not in include/fastblock.h and
 * not exported from libfastblock.so (src/fastblock.map).
 */
#ifndef FB_API_PRIVATE_H
#define FB_API_PRIVATE_H
#include "fastblock.h"

/* fb_update for a caller that has made fb_update's checks of its
 * arguments itself: ctx is not NULL, in_len > 0 bytes at in, out has room
 * for in_len bytes, and out and in are the same buffer or apart. The
 * context is still checked: an update that its short road (byte streams;
 * whole blocks of ECB or CBC, nothing buffered or withheld) does not take
 * runs as fb_update would with out_cap = in_len. The checks it leaves out
 * are ~60 of the ~270 instructions a 16-byte AES-CBC EVP update through
 * the provider would otherwise take. */
int fb_update_checked(fb_ctx *ctx, uint8_t *out, const uint8_t *in, size_t in_len, size_t *out_len);

/* fb_message for one XTS data unit under a 16-byte tweak, for a caller
 * that has checked ctx (not NULL), tweak and out_len, and gives out room
 * for in_len bytes. Length and overlap are still checked; a context that
 * is not a ready XTS one with nothing buffered goes through fb_message.
 * The provider's XTS updates are such units (fb_message's argument
 * checks are ~30 of the ~380 instructions of a 64-byte one). */
int fb_xts_unit_checked(fb_ctx *ctx, const uint8_t *tweak, const uint8_t *in, size_t in_len, uint8_t *out,
			size_t *out_len);

#endif
