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

/* ---- Bitsliced primitives ------------------------------------------------ */

/* The AES S-box on the 64 bytes held in q (Boyar & Peralta, "A new
 * combinational logic minimization technique with applications to
 * cryptology", SEA 2010: top linear layer, shared GF(2^4) inversion,
 * bottom linear layer). x0 is the most significant bit. */
static void sbox(uint64_t q[8])
{
	uint64_t x0 = q[7], x1 = q[6], x2 = q[5], x3 = q[4];
	uint64_t x4 = q[3], x5 = q[2], x6 = q[1], x7 = q[0];
	uint64_t y1, y2, y3, y4, y5, y6, y7, y8, y9, y10, y11, y12, y13, y14, y15;
	uint64_t y16, y17, y18, y19, y20, y21;
	uint64_t t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14;
	uint64_t t15, t16, t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27;
	uint64_t t28, t29, t30, t31, t32, t33, t34, t35, t36, t37, t38, t39, t40;
	uint64_t t41, t42, t43, t44, t45, t46, t47, t48, t49, t50, t51, t52, t53;
	uint64_t t54, t55, t56, t57, t58, t59, t60, t61, t62, t63, t64, t65, t66, t67;
	uint64_t z0, z1, z2, z3, z4, z5, z6, z7, z8, z9, z10, z11, z12, z13, z14;
	uint64_t z15, z16, z17;

	/* Top linear layer: 23 XORs. */
	y14 = x3 ^ x5;
	y13 = x0 ^ x6;
	y9 = x0 ^ x3;
	y8 = x0 ^ x5;
	t0 = x1 ^ x2;
	y1 = t0 ^ x7;
	y4 = y1 ^ x3;
	y12 = y13 ^ y14;
	y2 = y1 ^ x0;
	y5 = y1 ^ x6;
	y3 = y5 ^ y8;
	t1 = x4 ^ y12;
	y15 = t1 ^ x5;
	y20 = t1 ^ x1;
	y6 = y15 ^ x7;
	y10 = y15 ^ t0;
	y11 = y20 ^ y9;
	y7 = x7 ^ y11;
	y17 = y10 ^ y11;
	y19 = y10 ^ y8;
	y16 = t0 ^ y11;
	y21 = y13 ^ y16;
	y18 = x0 ^ y16;

	/* Middle, non-linear: inversion in GF(2^8) via GF(2^4). */
	t2 = y12 & y15;
	t3 = y3 & y6;
	t4 = t3 ^ t2;
	t5 = y4 & x7;
	t6 = t5 ^ t2;
	t7 = y13 & y16;
	t8 = y5 & y1;
	t9 = t8 ^ t7;
	t10 = y2 & y7;
	t11 = t10 ^ t7;
	t12 = y9 & y11;
	t13 = y14 & y17;
	t14 = t13 ^ t12;
	t15 = y8 & y10;
	t16 = t15 ^ t12;
	t17 = t4 ^ t14;
	t18 = t6 ^ t16;
	t19 = t9 ^ t14;
	t20 = t11 ^ t16;
	t21 = t17 ^ y20;
	t22 = t18 ^ y19;
	t23 = t19 ^ y21;
	t24 = t20 ^ y18;

	t25 = t21 ^ t22;
	t26 = t21 & t23;
	t27 = t24 ^ t26;
	t28 = t25 & t27;
	t29 = t28 ^ t22;
	t30 = t23 ^ t24;
	t31 = t22 ^ t26;
	t32 = t31 & t30;
	t33 = t32 ^ t24;
	t34 = t23 ^ t33;
	t35 = t27 ^ t33;
	t36 = t24 & t35;
	t37 = t36 ^ t34;
	t38 = t27 ^ t36;
	t39 = t29 & t38;
	t40 = t25 ^ t39;

	t41 = t40 ^ t37;
	t42 = t29 ^ t33;
	t43 = t29 ^ t40;
	t44 = t33 ^ t37;
	t45 = t42 ^ t41;
	z0 = t44 & y15;
	z1 = t37 & y6;
	z2 = t33 & x7;
	z3 = t43 & y16;
	z4 = t40 & y1;
	z5 = t29 & y7;
	z6 = t42 & y11;
	z7 = t45 & y17;
	z8 = t41 & y10;
	z9 = t44 & y12;
	z10 = t37 & y3;
	z11 = t33 & y4;
	z12 = t43 & y13;
	z13 = t40 & y5;
	z14 = t29 & y2;
	z15 = t42 & y9;
	z16 = t45 & y14;
	z17 = t41 & y8;

	/* Bottom linear layer, with the affine constant 0x63 as XNORs. */
	t46 = z15 ^ z16;
	t47 = z10 ^ z11;
	t48 = z5 ^ z13;
	t49 = z9 ^ z10;
	t50 = z2 ^ z12;
	t51 = z2 ^ z5;
	t52 = z7 ^ z8;
	t53 = z0 ^ z3;
	t54 = z6 ^ z7;
	t55 = z16 ^ z17;
	t56 = z12 ^ t48;
	t57 = t50 ^ t53;
	t58 = z4 ^ t46;
	t59 = z3 ^ t54;
	t60 = t46 ^ t57;
	t61 = z14 ^ t57;
	t62 = t52 ^ t58;
	t63 = t49 ^ t58;
	t64 = z4 ^ t59;
	t65 = t61 ^ t62;
	t66 = z1 ^ t63;
	q[7] = t59 ^ t63;
	q[1] = ~(t56 ^ t62);
	q[0] = ~(t48 ^ t60);
	t67 = t64 ^ t65;
	q[4] = t53 ^ t66;
	q[3] = t51 ^ t66;
	q[2] = t47 ^ t65;
	q[6] = ~(t64 ^ q[4]);
	q[5] = ~(t55 ^ t67);
}

/* The inverse of the S-box's affine map, constant included:
 * y_i = x_(i+2) ^ x_(i+5) ^ x_(i+7) ^ (bit i of 0x05), indices mod 8. */
static void inv_affine(uint64_t q[8])
{
	uint64_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = q[i];
	for (int i = 0; i < 8; i++)
		q[i] = x[(i + 2) & 7] ^ x[(i + 5) & 7] ^ x[(i + 7) & 7];
	q[0] = ~q[0];
	q[2] = ~q[2];
}

/* S^-1(x) = A^-1(S(A^-1(x))), where A^-1 includes its constant: S maps
 * z to A(z^-1) ^ 0x63, so A^-1 of S's output is z^-1 itself. */
static void inv_sbox(uint64_t q[8])
{
	inv_affine(q);
	sbox(q);
	inv_affine(q);
}

/* Row r (bits 16r..16r+15) rotated so that new column c is old column
 * (c + r) mod 4; each column is 4 bits (one per block). */
static uint64_t shift_rows_word(uint64_t x)
{
	return (x & 0x000000000000FFFFull)
		| ((x >> 4) & 0x000000000FFF0000ull) | ((x << 12) & 0x00000000F0000000ull)
		| ((x >> 8) & 0x000000FF00000000ull) | ((x << 8) & 0x0000FF0000000000ull)
		| ((x >> 12) & 0x000F000000000000ull) | ((x << 4) & 0xFFF0000000000000ull);
}

/* New column c is old column (c - r) mod 4. */
static uint64_t inv_shift_rows_word(uint64_t x)
{
	return (x & 0x000000000000FFFFull)
		| ((x >> 12) & 0x00000000000F0000ull) | ((x << 4) & 0x00000000FFF00000ull)
		| ((x >> 8) & 0x000000FF00000000ull) | ((x << 8) & 0x0000FF0000000000ull)
		| ((x >> 4) & 0x0FFF000000000000ull) | ((x << 12) & 0xF000000000000000ull);
}

static void shift_rows(uint64_t q[8])
{
	for (int i = 0; i < 8; i++)
		q[i] = shift_rows_word(q[i]);
}

static void inv_shift_rows(uint64_t q[8])
{
	for (int i = 0; i < 8; i++)
		q[i] = inv_shift_rows_word(q[i]);
}

/* Row field r of the result holds row r+k/16 of x. */
static uint64_t rot16(uint64_t x) { return (x >> 16) | (x << 48); }
static uint64_t rot32(uint64_t x) { return (x >> 32) | (x << 32); }

/* Multiplication by x (xtime) of all bytes at once: a shift of the bit
 * planes, with the top plane folded back through 0x1b = bits 0, 1, 3, 4. */
static void xtime(uint64_t o[8], const uint64_t s[8])
{
	uint64_t hi = s[7];
	o[7] = s[6];
	o[6] = s[5];
	o[5] = s[4];
	o[4] = s[3] ^ hi;
	o[3] = s[2] ^ hi;
	o[2] = s[1];
	o[1] = s[0] ^ hi;
	o[0] = hi;
}

/* out_r = 2 a_r ^ 3 a_(r+1) ^ a_(r+2) ^ a_(r+3)
 *       = 2 (a_r ^ a_(r+1)) ^ a_(r+1) ^ (a_(r+2) ^ a_(r+3)). */
static void mix_columns(uint64_t q[8])
{
	uint64_t r1[8], s[8], s2[8];
	for (int i = 0; i < 8; i++) {
		r1[i] = rot16(q[i]);
		s[i] = q[i] ^ r1[i];
	}
	xtime(s2, s);
	for (int i = 0; i < 8; i++)
		q[i] = s2[i] ^ r1[i] ^ rot32(s[i]);
}

/* InvMixColumns = MixColumns after the circulant (5, 0, 4, 0):
 * a_r ^= 4 (a_r ^ a_(r+2)). */
static void inv_mix_columns(uint64_t q[8])
{
	uint64_t t[8], t2[8], t4[8];
	for (int i = 0; i < 8; i++)
		t[i] = q[i] ^ rot32(q[i]);
	xtime(t2, t);
	xtime(t4, t2);
	for (int i = 0; i < 8; i++)
		q[i] ^= t4[i];
	mix_columns(q);
}

static void add_round_key(uint64_t q[8], const uint64_t *rk)
{
	for (int i = 0; i < 8; i++)
		q[i] ^= rk[i];
}

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
	sbox(q);
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

/* ---- Block functions ------------------------------------------------------- */

static void encrypt4(const fb_aes_ct64_ks *ks, uint64_t q[8])
{
	unsigned nr = ks->rounds;
	add_round_key(q, ks->rk[0]);
	for (unsigned r = 1; r < nr; r++) {
		sbox(q);
		shift_rows(q);
		mix_columns(q);
		add_round_key(q, ks->rk[r]);
	}
	sbox(q);
	shift_rows(q);
	add_round_key(q, ks->rk[nr]);
}

static void decrypt4(const fb_aes_ct64_ks *ks, uint64_t q[8])
{
	unsigned nr = ks->rounds;
	add_round_key(q, ks->rk[nr]);
	for (unsigned r = nr - 1; r > 0; r--) {
		inv_shift_rows(q);
		inv_sbox(q);
		add_round_key(q, ks->rk[r]);
		inv_mix_columns(q);
	}
	inv_shift_rows(q);
	inv_sbox(q);
	add_round_key(q, ks->rk[0]);
}

/* Runs fn on n (< 4) blocks through a zero-padded local batch. */
static void tail4(const fb_aes_ct64_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
		  void (*fn)(const fb_aes_ct64_ks *, uint64_t *))
{
	uint8_t buf[64] = { 0 };
	uint64_t q[8];
	memcpy(buf, in, 16 * n);
	load4(q, buf);
	fn(ks, q);
	store4(buf, q);
	memcpy(out, buf, 16 * n);
}

static void encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint64_t q[8];
	for (; nblocks >= 4; nblocks -= 4, in += 64, out += 64) {
		load4(q, in);
		encrypt4(ks, q);
		store4(out, q);
	}
	if (nblocks)
		tail4(ks, out, in, nblocks, encrypt4);
}

static void decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint64_t q[8];
	for (; nblocks >= 4; nblocks -= 4, in += 64, out += 64) {
		load4(q, in);
		decrypt4(ks, q);
		store4(out, q);
	}
	if (nblocks)
		tail4(ks, out, in, nblocks, decrypt4);
}

/* CTR with a 32-bit big-endian counter in bytes 12..15 (no wrap inside
 * one call, by contract): four counter blocks per batch. */
static void ctr32(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
		  uint8_t *ctr)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint32_t c = fb_load32_be(ctr + 12);
	uint8_t buf[64];
	uint64_t q[8];

	while (nblocks > 0) {
		size_t n = nblocks < 4 ? nblocks : 4;
		for (size_t j = 0; j < 4; j++) {
			memcpy(buf + 16 * j, ctr, 12);
			fb_store32_be(buf + 16 * j + 12, c + (uint32_t)j);
		}
		load4(q, buf);
		encrypt4(ks, q);
		store4(buf, q);
		for (size_t i = 0; i < 16 * n; i++)
			out[i] = in[i] ^ buf[i];
		c += (uint32_t)n;
		in += 16 * n;
		out += 16 * n;
		nblocks -= n;
	}
	fb_store32_be(ctr + 12, c);
}

/* CBC decryption four blocks at a time; the chaining blocks are copied
 * before the output is written, so out == in works. */
static void cbc_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
		    uint8_t *iv)
{
	const fb_aes_ct64_ks *ks = ksp;
	uint8_t chain[80], buf[64];
	uint64_t q[8];

	memcpy(chain, iv, 16);
	while (nblocks > 0) {
		size_t n = nblocks < 4 ? nblocks : 4;
		memset(buf, 0, sizeof buf);
		memcpy(buf, in, 16 * n);
		memcpy(chain + 16, in, 16 * n);
		load4(q, buf);
		decrypt4(ks, q);
		store4(buf, q);
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
	.note = "portable bitsliced, 4 blocks in 8 x 64-bit words, Boyar-Peralta S-box circuit",
	.setkey = setkey,
	.encrypt = encrypt,
	.decrypt = decrypt,
	.ctr32 = ctr32,
	.cbc_dec = cbc_dec,
};
