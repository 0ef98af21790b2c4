/*
 * des/rotate: constant-time DES and Triple-DES, one block at a time, in
 * portable C. It is the serial chains' kernel (CBC, CFB and OFB
 * encryption) under FB_FLAG_CONSTANT_TIME where no GFNI kernel runs: the
 * bitsliced kernels would spend a whole batch on each block of a chain.
 *
 * - des/table's round form (halves rotated right by 3, E as one rotation,
 *   S-box inputs in bytes of R'^KX and rol(R',4)^KY) and its round keys.
 * - No table is read at a secret index. Each of an S-box's 4 output bits
 *   is its 64-entry truth table in one 64-bit word, pre-rotated so that a
 *   rotation right by the S-box input puts the bit where P sends it
 *   (gen/des_tables.py: des_rot_w, des_rot_m). A round is 32 rotations by
 *   secret counts, each masked and ORed in.
 * - The key schedule moves each of the 768 round-key bits from a public
 *   key-bit position to a public round-key position (des_ks_src/dst).
 *
 * Constant time where a rotation by a register count takes the same time
 * for every count, as on x86-64 (ror r64, cl) and AArch64 (ror by
 * register); the same assumption as rc6/portable's rotations.
 */
#include "des_table.h"
#include "des_keys.h"
#include "des_tables.h"

static inline uint64_t rotr64(uint64_t w, unsigned s)
{
	return (w >> (s & 63)) | (w << (-s & 63));
}

/* The P-placed output bits of S-box j for input c (low 6 bits). FB_KEEP
 * holds the ORs as trees: GCC otherwise chains all 32 of a round through
 * one register, 32 dependent steps where a tree has 5. */
static inline __attribute__((always_inline)) uint32_t sbox_bits(const uint64_t (*w)[4], unsigned j,
								 uint32_t c)
{
	uint32_t b0 = (uint32_t)rotr64(w[j][0], c) & des_rot_m[j][0];
	uint32_t b1 = (uint32_t)rotr64(w[j][1], c) & des_rot_m[j][1];
	uint32_t b2 = (uint32_t)rotr64(w[j][2], c) & des_rot_m[j][2];
	uint32_t b3 = (uint32_t)rotr64(w[j][3], c) & des_rot_m[j][3];
	b0 |= b1;
	b2 |= b3;
	FB_KEEP(b0);
	FB_KEEP(b2);
	return b0 | b2;
}

/* l ^ f(r), as des/table's round (same S-box order per byte); w is
 * des_rot_w behind a barrier, so the 32 words are loads rather than
 * 64-bit immediates, which would take an ALU slot each. */
static inline __attribute__((always_inline)) uint32_t rot_round(const uint64_t (*w)[4], uint32_t l,
								uint32_t r, const uint32_t *k)
{
	uint32_t x = r ^ k[0], y = fb_rotl32(r, 4) ^ k[1];
	uint32_t a = sbox_bits(w, 6, x) | sbox_bits(w, 4, x >> 8);
	uint32_t b = sbox_bits(w, 2, x >> 16) | sbox_bits(w, 0, x >> 24);
	uint32_t c = sbox_bits(w, 7, y) | sbox_bits(w, 5, y >> 8);
	uint32_t d = sbox_bits(w, 3, y >> 16) | sbox_bits(w, 1, y >> 24);
	FB_KEEP(a);
	FB_KEEP(b);
	FB_KEEP(c);
	FB_KEEP(d);
	a |= b;
	c |= d;
	FB_KEEP(a);
	FB_KEEP(c);
	return l ^ (a | c);
}

static void rot_schedule(uint32_t rk[32], const uint8_t key[8])
{
	uint64_t kw = fb_load64_be(key);
	for (int r = 0; r < 16; r++) {
		uint64_t k = 0;
		for (int b = 0; b < 48; b++)
			k |= ((kw >> des_ks_src[r][b]) & 1) << des_ks_dst[b];
		rk[2 * r] = (uint32_t)(k >> 32);
		rk[2 * r + 1] = (uint32_t)k;
	}
	fb_wipe(&kw, sizeof kw);
}

static int rot_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	fb_des_table_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	FB_DES_SCHEDULES(rot_schedule, ks->rk, key, keylen);
	return FB_OK;
}

/* 16 rounds walking the round keys forwards (fwd) or backwards; on return
 * a holds L16 and b R16. A round is ~130 instructions, so the loop is not
 * unrolled: three unrolled passes would fill the instruction cache. */
static inline __attribute__((always_inline)) void rot_rounds(uint32_t *a, uint32_t *b,
							      const uint32_t *k, int fwd)
{
	const uint64_t(*w)[4] = des_rot_w;
	__asm__("" : "+r"(w));
	ptrdiff_t d = fwd ? 2 : -2;
	k += fwd ? 0 : 30;
#pragma GCC unroll 1
	for (int i = 0; i < 8; i++, k += 2 * d) {
		*a = rot_round(w, *a, *b, k);
		*b = rot_round(w, *b, *a, k + d);
	}
}

/* The three passes (or one) on halves already through IP. */
static void rot_passes(const fb_des_table_ks *ks, uint32_t *l, uint32_t *r, int enc)
{
	if (ks->nkeys == 1) {
		rot_rounds(l, r, ks->rk[0], enc);
	} else {
		rot_rounds(l, r, ks->rk[enc ? 0 : 2], enc);
		rot_rounds(r, l, ks->rk[1], !enc);
		rot_rounds(l, r, ks->rk[enc ? 2 : 0], enc);
	}
}

static void rot_crypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, int enc)
{
	for (size_t i = 0; i < n; i++, in += 8, out += 8) {
		uint32_t l, r;
		fb_des_block_in(in, &l, &r);
		rot_passes(ksp, &l, &r, enc);
		fb_des_block_out(out, l, r);
	}
}

static void rot_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rot_crypt(ks, out, in, n, 1);
}

static void rot_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	rot_crypt(ks, out, in, n, 0);
}

/* CBC encryption with the chain kept through IP: IP(P ^ C) = IP(P) ^ IP(C),
 * and the previous block's IP(C) in this form is its (R16, L16). */
static void rot_cbc_enc(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	uint32_t cl, cr;
	fb_des_block_in(iv, &cl, &cr);
	for (size_t i = 0; i < n; i++, in += 8, out += 8) {
		uint32_t l, r;
		fb_des_block_in(in, &l, &r);
		l ^= cl;
		r ^= cr;
		rot_passes(ksp, &l, &r, 1);
		cl = r;
		cr = l;
		fb_des_block_out(out, l, r);
	}
	if (n)
		memcpy(iv, out - 8, 8);
}

const fb_kernel fb_des_rotate = {
	.name = "des/rotate",
	.family = "des",
	.block_size = 8,
	.cpu_needs = 0,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(fb_des_table_ks),
	.note = "S-box bits by rotating truth tables (no secret index), one block at a time",
	.setkey = rot_setkey,
	.encrypt = rot_encrypt,
	.decrypt = rot_decrypt,
	.cbc_enc = rot_cbc_enc,
};
