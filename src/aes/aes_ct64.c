/*
 * aes/ct64 - portable constant-time AES-128/192/256, bitsliced across
 * four blocks in eight 64-bit words (the idea of BearSSL's aes_ct64; this
 * code is our own).
 *
 * State layout: word q[b] holds bit b of every state byte of four blocks;
 * bit 16*row + 4*col + blk of q[b] is bit b of byte (row, col) of block
 * blk, where the AES state byte (row, col) is input byte 4*col + row.
 * With rows in 16-bit fields, ShiftRows is a rotation inside each field
 * and MixColumns needs only whole-word rotations by 16 and 32 bits.
 * Runs of eight or more blocks take two such layouts at once, one in each
 * lane of a two-word vector (aes_ct64_rounds.h, the same code for both
 * widths): on x86-64 SSE2 does two words per operation, and a batch of
 * eight costs little more than one of four (Zen 4, 8 KB: 2.1-2.4x).
 *
 * The S-box is the Boyar-Peralta Boolean circuit (113 gates: XOR, AND,
 * XNOR); the inverse S-box is the forward circuit between two copies of
 * the inverse affine map. Nothing here indexes memory or branches on key
 * or data, so the kernel runs in constant time, key setup included.
 */
#include "../internal.h"
#include "aes_kernels.h"

#define AES_MAX_ROUNDS 14

/* Round keys in bit planes, each copied into the four block positions. */
typedef struct {
	uint64_t rk[AES_MAX_ROUNDS + 1][8];
	unsigned rounds;
} fb_aes_ct64_ks;

/* ---- Bitsliced rounds, four blocks (uint64_t) and eight (two lanes) ----- */

#define CT_W uint64_t
#define CT_FN(f) f##4
#include "aes_ct64_rounds.h"
#undef CT_W
#undef CT_FN

/* Two 64-bit lanes: SSE2 on x86-64 (its baseline), NEON on Arm, two
 * words elsewhere; the same operations on twice the blocks. */
typedef uint64_t ct_w2 __attribute__((vector_size(16)));
#define CT_W ct_w2
#define CT_FN(f) f##_x8
#include "aes_ct64_rounds.h"
#undef CT_W
#undef CT_FN

/* ---- Layout conversion --------------------------------------------------- */

/* Exchanges the bits of a at positions m << d with the bits of b at
 * positions m. */
static void swapmove(uint64_t *a, uint64_t *b, uint64_t m, unsigned d)
{
	uint64_t t = ((*a >> d) ^ *b) & m;
	*b ^= t;
	*a ^= t << d;
}

/* The 8x8 bit transpose at every byte position across the eight words:
 * bit k of byte j of q[b] <-> bit b of byte j of q[k]. An involution. */
static void ortho(uint64_t q[8])
{
	for (int i = 0; i < 8; i += 2)
		swapmove(&q[i], &q[i + 1], 0x5555555555555555ull, 1);
	for (int i = 0; i < 8; i += 4) {
		swapmove(&q[i], &q[i + 2], 0x3333333333333333ull, 2);
		swapmove(&q[i + 1], &q[i + 3], 0x3333333333333333ull, 2);
	}
	for (int i = 0; i < 4; i++)
		swapmove(&q[i], &q[i + 4], 0x0F0F0F0F0F0F0F0Full, 4);
}

/* Byte r of a 32-bit word to byte 2r of a 64-bit word, and back. */
static uint64_t spread_bytes(uint32_t w)
{
	uint64_t x = w;
	x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
	return (x | (x << 8)) & 0x00FF00FF00FF00FFull;
}

static uint32_t gather_bytes(uint64_t x)
{
	x &= 0x00FF00FF00FF00FFull;
	x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
	return (uint32_t)(x | (x >> 16));
}

/* Four 16-byte blocks to bit planes. Before the transpose, word
 * k = 4*c0 + blk holds in byte 2*row + c1 the byte (row, 2*c1 + c0) of
 * block blk; the transpose then puts that byte's bit b into q[b] at bit
 * 8*(2*row + c1) + k = 16*row + 4*col + blk. */
static void load4(uint64_t q[8], const uint8_t *in)
{
	for (int blk = 0; blk < 4; blk++) {
		const uint8_t *p = in + 16 * blk;
		for (int c0 = 0; c0 < 2; c0++)
			q[4 * c0 + blk] = spread_bytes(fb_load32_le(p + 4 * c0))
				| spread_bytes(fb_load32_le(p + 4 * c0 + 8)) << 8;
	}
	ortho(q);
}

static void store4(uint8_t *out, uint64_t q[8])
{
	ortho(q);
	for (int blk = 0; blk < 4; blk++) {
		uint8_t *p = out + 16 * blk;
		for (int c0 = 0; c0 < 2; c0++) {
			uint64_t w = q[4 * c0 + blk];
			fb_store32_le(p + 4 * c0, gather_bytes(w));
			fb_store32_le(p + 4 * c0 + 8, gather_bytes(w >> 8));
		}
	}
}

/* ---- Key schedule ---------------------------------------------------------- */

/* SubWord through the bitsliced S-box: the word goes in as column 0 of
 * block 0, everything else zero. */
static uint32_t sub_word(uint32_t w)
{
	uint8_t buf[64] = { 0 };
	uint64_t q[8];
	fb_store32_le(buf, w);
	load4(q, buf);
	sbox4(q);
	store4(buf, q);
	return fb_load32_le(buf);
}

/* Constant-time xtime on one byte (the round constants are public, but
 * this keeps the whole setkey branch-free). */
static uint32_t xtime8(uint32_t x)
{
	return ((x << 1) ^ (0x1b & (0u - (x >> 7)))) & 0xff;
}

static int setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	fb_aes_ct64_ks *ks = ksp;
	uint32_t w[4 * (AES_MAX_ROUNDS + 1)];
	unsigned nk, nr, nw;

	if (keylen != 16 && keylen != 24 && keylen != 32)
		return FB_ERR_KEY_LENGTH;
	nk = (unsigned)keylen / 4;
	nr = nk + 6;
	nw = 4 * (nr + 1);

	/* FIPS 197 section 5.2, words little-endian (byte 0 in bits 0-7). */
	uint32_t rcon = 1;
	for (unsigned i = 0; i < nk; i++)
		w[i] = fb_load32_le(key + 4 * i);
	for (unsigned i = nk; i < nw; i++) {
		uint32_t t = w[i - 1];
		if (i % nk == 0) {
			t = sub_word(fb_rotr32(t, 8)) ^ rcon;
			rcon = xtime8(rcon);
		} else if (nk > 6 && i % nk == 4) {
			t = sub_word(t);
		}
		w[i] = w[i - 1 - (nk - 1)] ^ t;
	}

	/* Round keys to bit planes, four at a time, then each one copied
	 * into all four block positions (bit blk of every 4-bit group). */
	for (unsigned r = 0; r <= nr; r += 4) {
		uint8_t buf[64] = { 0 };
		uint64_t q[8];
		for (unsigned j = 0; j < 4 && r + j <= nr; j++)
			for (unsigned c = 0; c < 4; c++)
				fb_store32_le(buf + 16 * j + 4 * c, w[4 * (r + j) + c]);
		load4(q, buf);
		for (unsigned j = 0; j < 4 && r + j <= nr; j++)
			for (int b = 0; b < 8; b++)
				ks->rk[r + j][b] = ((q[b] >> j) & 0x1111111111111111ull) * 0xF;
		fb_wipe(buf, sizeof buf);
		fb_wipe(q, sizeof q);
	}
	fb_wipe(w, sizeof w); /* the expanded key must not stay on the stack */
	ks->rounds = nr;
	return FB_OK;
}

/* Eight blocks at in through fn8 to out: two four-block layouts, one
 * per lane. */
static void run8(const fb_aes_ct64_ks *ks, uint8_t *out, const uint8_t *in,
		 void (*fn8)(const fb_aes_ct64_ks *, ct_w2 *))
{
	uint64_t a[8], b[8];
	ct_w2 v[8];
	load4(a, in);
	load4(b, in + 64);
	for (int i = 0; i < 8; i++)
		v[i] = (ct_w2){ a[i], b[i] };
	fn8(ks, v);
	for (int i = 0; i < 8; i++) {
		a[i] = v[i][0];
		b[i] = v[i][1];
	}
	store4(out, a);
	store4(out + 64, b);
}

/* The first w (4 or 8) blocks of buf through the rounds, in place. */
static void run_buf(const fb_aes_ct64_ks *ks, uint8_t *buf, size_t w, int dec)
{
	uint64_t q[8];
	if (w == 8) {
		run8(ks, buf, buf, dec ? decrypt_x8 : encrypt_x8);
		return;
	}
	load4(q, buf);
	if (dec)
		decrypt4(ks, q);
	else
		encrypt4(ks, q);
	store4(buf, q);
}

/* Blocks per batch for n to go: eight from five on, else four. */
static size_t batch_width(size_t n)
{
	return n > 4 ? 8 : 4;
}

/* ECB: eights through the vector rounds, the last one to seven blocks
 * through one zero-padded batch of four or eight. */
static void ecb(const fb_aes_ct64_ks *ks, uint8_t *out, const uint8_t *in, size_t n, int dec)
{
	for (; n >= 8; n -= 8, in += 128, out += 128)
		run8(ks, out, in, dec ? decrypt_x8 : encrypt_x8);
	if (!n)
		return;
	uint8_t buf[128] = { 0 };
	memcpy(buf, in, 16 * n);
	run_buf(ks, buf, batch_width(n), dec);
	memcpy(out, buf, 16 * n);
}

static void encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	ecb(ksp, out, in, nblocks, 0);
}

static void decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	ecb(ksp, out, in, nblocks, 1);
}

/* CTR with a 32-bit big-endian counter in bytes 12..15 (no wrap inside
 * one call, by contract): up to eight counter blocks per batch. */
static void ctr32(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
		  uint8_t *ctr)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint32_t c = fb_load32_be(ctr + 12);
	uint8_t buf[128];

	while (nblocks > 0) {
		size_t w = batch_width(nblocks), n = nblocks < w ? nblocks : w;
		for (size_t j = 0; j < w; j++) {
			memcpy(buf + 16 * j, ctr, 12);
			fb_store32_be(buf + 16 * j + 12, c + (uint32_t)j);
		}
		run_buf(ks, buf, w, 0);
		for (size_t i = 0; i < 16 * n; i++)
			out[i] = in[i] ^ buf[i];
		c += (uint32_t)n;
		in += 16 * n;
		out += 16 * n;
		nblocks -= n;
	}
	fb_store32_be(ctr + 12, c);
}

/* CBC decryption up to eight blocks at a time; the chaining blocks are
 * copied before the output is written, so out == in works. */
static void cbc_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
		    uint8_t *iv)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint8_t chain[144], buf[128];

	memcpy(chain, iv, 16);
	while (nblocks > 0) {
		size_t w = batch_width(nblocks), n = nblocks < w ? nblocks : w;
		memset(buf, 0, sizeof buf);
		memcpy(buf, in, 16 * n);
		memcpy(chain + 16, in, 16 * n);
		run_buf(ks, buf, w, 1);
		for (size_t i = 0; i < 16 * n; i++)
			out[i] = buf[i] ^ chain[i];
		memcpy(chain, chain + 16 * n, 16);
		in += 16 * n;
		out += 16 * n;
		nblocks -= n;
	}
	memcpy(iv, chain, 16);
}

const fb_kernel fb_aes_ct64 = {
	.name = "aes/ct64",
	.family = "aes",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 1,
	.batch = 4,
	.ks_size = sizeof(fb_aes_ct64_ks),
	.note = "portable bitsliced, 4 blocks in 8 x 64-bit words (8 in two-lane vectors), Boyar-Peralta S-box circuit",
	.setkey = setkey,
	.encrypt = encrypt,
	.decrypt = decrypt,
	.ctr32 = ctr32,
	.cbc_dec = cbc_dec,
};
