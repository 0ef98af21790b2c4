/*
 * The short road of an update, inline in fb_update (src/api.c): its own
 * header, not modes.h, because it calls into stream.c, which includes
 * modes.h.
 */
#ifndef FB_MODES_UPDATE_H
#define FB_MODES_UPDATE_H

#include "modes.h"

/* An update of in_len > 0 bytes. Inline in fb_update, so that a short
 * update is the API's checks, this test and one call of direct_run, which
 * tests neither mode nor direction (a 16-byte AES-128-ECB update: 109
 * instructions with the kernel's 36; 123 through a call of this and
 * fb_mode_blocks' switch). */
static inline int fb_stream_update(fb_state *s, uint8_t *out, size_t out_cap, size_t *out_len,
				   const uint8_t *in, size_t in_len)
{
	if (!fb_stream_direct(s, in_len))
		return fb_stream_update_general(s, out, out_cap, out_len, in, in_len);
	if (in_len > out_cap)
		return FB_ERR_OUTPUT_SPACE;
	if (fb_overlap_bad(out, in_len, in, in_len))
		return FB_ERR_OVERLAP;
	*out_len = in_len;
	s->direct_run(s, out, in, in_len);
	return FB_OK;
}

#endif
