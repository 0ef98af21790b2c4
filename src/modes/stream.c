/*
 * Streaming update/final for every mode. ECB, CBC and XTS buffer partial
 * blocks (and withhold what padding removal or ciphertext stealing needs
 * at the end); CFB, CFB8, OFB and CTR are byte streams. Any split of the
 * input gives the same bytes as one call.
 */
#include "modes.h"

static int is_buffered(const fb_state *s)
{
	return s->mode == FB_ECB || s->mode == FB_CBC || s->mode == FB_XTS;
}

static int padded(const fb_state *s)
{
	return (s->mode == FB_ECB || s->mode == FB_CBC) && s->padding != FB_PAD_NONE;
}

/* Bytes to keep back in the buffer when avail bytes are on hand. */
static size_t keep_back(const fb_state *s, size_t avail)
{
	size_t r = avail & (s->bs - 1);
	if (s->mode == FB_XTS) /* the last full block may need stealing */
		return avail >= s->bs ? s->bs + r : avail;
	if (padded(s) && !s->encrypt && r == 0 && avail) /* the padding block */
		return s->bs;
	return r;
}

/* Output that fb_update(in_len) writes. */
static size_t update_out_len(const fb_state *s, size_t in_len)
{
	if (!is_buffered(s))
		return in_len;
	size_t avail = s->buf_len + in_len;
	return avail - keep_back(s, avail);
}

int fb_stream_direct_mask(const fb_state *s)
{
	if (!is_buffered(s))
		return 0;
	if (s->mode == FB_XTS || (padded(s) && !s->encrypt))
		return -1;
	return (int)s->bs - 1;
}

/* Encrypts the last n < bs bytes at tail, padded, into one block at out
 * (tail may be NULL when n is 0; out may be where tail is). */
static void encrypt_padded(fb_state *s, uint8_t *out, const uint8_t *tail, unsigned n)
{
	uint8_t blk[16];
	if (n)
		fb_copy_small(blk, tail, n);
	fb_pad(s->padding, blk, n, s->bs);
	fb_mode_blocks(s, out, blk, 1);
	fb_wipe(blk, sizeof blk);
}

/* fb_stream_message's padded last block, out of line: its scratch block
 * would give the unpadded path a stack frame. */
static NOINLINE void message_padded(fb_state *s, uint8_t *out, const uint8_t *in, size_t in_len, size_t total)
{
	unsigned bs = s->bs;
	uint8_t blk[16];
	if (!s->encrypt) {
		/* whole blocks, the padding checked by the caller: all but the last
		 * straight through, then the last one's data bytes */
		size_t head = in_len - bs;
		if (head)
			fb_mode_blocks(s, out, in, fb_blocks_in(bs, head));
		fb_mode_blocks(s, blk, in + head, 1);
		fb_copy_small(out + head, blk, total - head);
		fb_wipe(blk, sizeof blk);
		return;
	}
	/* encryption: the whole blocks, then the rest padded (read only after
	 * them: in place, the whole blocks' output ends where the rest starts) */
	size_t whole = in_len - (in_len & (bs - 1));
	if (whole)
		fb_mode_blocks(s, out, in, fb_blocks_in(bs, whole));
	encrypt_padded(s, out + whole, in_len > whole ? in + whole : NULL, (unsigned)(in_len - whole));
}

void fb_stream_message(fb_state *s, uint8_t *out, const uint8_t *in, size_t in_len, size_t total)
{
	if (padded(s))
		message_padded(s, out, in, in_len, total);
	else
		s->direct_run(s, out, in, in_len);
}

int fb_stream_update_checked(fb_state *s, uint8_t *out, const uint8_t *in, size_t in_len, size_t *out_len)
{
	if (!fb_stream_direct(s, in_len)) {
		*out_len = 0;
		return fb_stream_update_general(s, out, in_len, out_len, in, in_len);
	}
	*out_len = in_len;
	s->direct_run(s, out, in, in_len);
	return FB_OK;
}

/* Out of line: its stack buffers would give the callers' short roads a frame. */
NOINLINE int fb_stream_update_general(fb_state *s, uint8_t *out, size_t out_cap, size_t *out_len,
				      const uint8_t *in, size_t in_len)
{
	size_t produce = update_out_len(s, in_len);
	if (produce > out_cap)
		return FB_ERR_OUTPUT_SPACE;
	if (fb_overlap_bad(out, produce > in_len ? produce : in_len, in, in_len))
		return FB_ERR_OVERLAP;
	*out_len = produce;
	size_t keep = s->buf_len + in_len - produce;
	unsigned bs = s->bs;
	uint8_t kept[32];
	if (keep >= s->buf_len + in_len) { /* nothing to process yet */
		memcpy(s->buf + s->buf_len, in, in_len);
		s->buf_len += (unsigned)in_len;
		return FB_OK;
	}
	if (!s->buf_len) {
		/* Nothing buffered (every call of whole blocks): the blocks go
		 * straight from in, with no staging copies. In place they end
		 * before the kept tail, which is read after. */
		fb_mode_blocks(s, out, in, fb_blocks_in(bs, produce));
		if (keep)
			fb_copy_small(s->buf, in + produce, keep);
		s->buf_len = (unsigned)keep;
		return FB_OK;
	}
	if (keep > in_len) {
		/* Only XTS: the output comes wholly from the buffer, whose tail
		 * is kept together with all of in. */
		size_t old = keep - in_len;
		memcpy(kept, in, in_len);
		fb_mode_blocks(s, out, s->buf, fb_blocks_in(bs, produce));
		memmove(s->buf, s->buf + produce, old);
		memcpy(s->buf + old, kept, in_len);
	} else {
		size_t from_buf = s->buf_len, body = in_len - keep;
		fb_copy_small(kept, in + body, keep);
		if (out == in) {
			/* In place: slide the input up by the buffered length and put
			 * the buffered bytes in front, so the stream lines up with out. */
			memmove(out + from_buf, in, body);
			fb_copy_small(out, s->buf, from_buf);
			fb_mode_blocks(s, out, out, fb_blocks_in(bs, produce));
		} else {
			/* The first blocks straddle the buffer and in. */
			size_t head = (from_buf + bs - 1) / bs * bs;
			uint8_t first[32];
			memcpy(first, s->buf, from_buf);
			memcpy(first + from_buf, in, head - from_buf);
			fb_mode_blocks(s, out, first, fb_blocks_in(bs, head));
			fb_mode_blocks(s, out + head, in + (head - from_buf), fb_blocks_in(bs, produce - head));
			fb_wipe(first, sizeof first);
		}
		fb_copy_small(s->buf, kept, keep);
	}
	s->buf_len = (unsigned)keep;
	fb_wipe(kept, sizeof kept);
	return FB_OK;
}

int fb_stream_final(fb_state *s, uint8_t *out, size_t out_cap, size_t *out_len)
{
	unsigned bs = s->bs;
	*out_len = 0;
	if (!is_buffered(s))
		return FB_OK;
	if (s->mode == FB_XTS) {
		if (s->buf_len < bs)
			return FB_ERR_DATA_LENGTH;
		if (out_cap < s->buf_len)
			return FB_ERR_OUTPUT_SPACE;
		if (s->buf_len == bs)
			fb_mode_blocks(s, out, s->buf, 1);
		else
			fb_mode_xts_tail(s, out, s->buf, s->buf_len - bs);
		*out_len = s->buf_len;
		return FB_OK;
	}
	if (!padded(s))
		return s->buf_len ? FB_ERR_DATA_LENGTH : FB_OK;
	uint8_t blk[16];
	if (s->encrypt) {
		if (out_cap < bs)
			return FB_ERR_OUTPUT_SPACE;
		encrypt_padded(s, out, s->buf, s->buf_len);
		*out_len = bs;
		return FB_OK;
	}
	if (s->buf_len != bs)
		return FB_ERR_DATA_LENGTH;
	fb_mode_blocks(s, blk, s->buf, 1);
	int n = fb_unpad(s->padding, blk, bs);
	if (n < 0) {
		fb_wipe(blk, sizeof blk);
		return FB_ERR_BAD_PADDING;
	}
	if ((size_t)n > out_cap) {
		fb_wipe(blk, sizeof blk);
		return FB_ERR_OUTPUT_SPACE; /* state moved on: caller must restart */
	}
	memcpy(out, blk, (size_t)n);
	fb_wipe(blk, sizeof blk);
	*out_len = (size_t)n;
	return FB_OK;
}
