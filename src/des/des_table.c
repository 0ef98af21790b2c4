/*
 * des/table: portable DES and Triple-DES in the manner of seed 000 (Osvik).
 *
 * - S-box and P combined in 8 tables of 64 32-bit words (2 KB), generated
 *   by gen/des_tables.py from FIPS 46-3.
 * - Halves kept rotated right by 3 bits so that E is one rotation per
 *   round: S-boxes 1,3,5,7 index bytes of R'^KX, S-boxes 2,4,6,8 bytes of
 *   rol(R',4)^KY.
 * - IP and FP as five masked bit-block swaps each.
 * - Key schedule: PC-1 by 8 byte lookups, PC-2 by 8 lookups per round on
 *   7-bit chunks of C||D; decryption walks the round keys backwards.
 * - Triple-DES (EDE) runs the three passes between one IP and one FP.
 *
 * Not constant-time: table indices depend on key and data.
 */
#include "des_table.h"
#include "des_keys.h"
#include "des_tables.h"

void fb_des_table_schedule(uint32_t rk[32], const uint8_t key[8])
{
	uint64_t cd = 0;
	for (int i = 0; i < 8; i++)
		cd |= des_pc1[i][key[i] >> 1];
	uint32_t c = (uint32_t)(cd >> 28), d = (uint32_t)cd & 0xFFFFFFFu;
	/* Unrolled: the rotation counts become constants and the rounds'
	 * lookups overlap (the table schedule is most of a DES key setup). */
#pragma GCC unroll 16
	for (int r = 0; r < 16; r++) {
		unsigned s = des_shifts[r];
		c = ((c << s) | (c >> (28 - s))) & 0xFFFFFFFu;
		d = ((d << s) | (d >> (28 - s))) & 0xFFFFFFFu;
		uint64_t w = (uint64_t)c << 28 | d, k = 0;
		for (int ch = 0; ch < 8; ch++)
			k |= des_pc2[ch][(w >> (49 - 7 * ch)) & 127];
		rk[2 * r] = (uint32_t)(k >> 32);
		rk[2 * r + 1] = (uint32_t)k;
	}
}

int fb_des_table_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	fb_des_table_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	FB_DES_SCHEDULES(fb_des_table_schedule, ks->rk, key, keylen);
	return FB_OK;
}

/* l ^ f(r). The round is a chain of dependent loads: a balanced XOR tree
 * (with l at its bottom) keeps three XORs, not nine, after the last load. */
static inline __attribute__((always_inline)) uint32_t des_round(uint32_t l, uint32_t r, const uint32_t *k)
{
	uint32_t x = r ^ k[0], y = fb_rotl32(r, 4) ^ k[1];
	uint32_t a = des_sp[6][x & 63] ^ des_sp[4][(x >> 8) & 63];
	uint32_t b = des_sp[2][(x >> 16) & 63] ^ des_sp[0][(x >> 24) & 63];
	uint32_t c = des_sp[7][y & 63] ^ des_sp[5][(y >> 8) & 63];
	uint32_t d = des_sp[3][(y >> 16) & 63] ^ des_sp[1][(y >> 24) & 63];
	return fb_des_xor_tree(l, a, b, c, d);
}

/* The same with six of the eight indices by BEXTR (fb_bextr32): one
 * operation each where a shift and a mask are two (des/table-bmi2). */
static inline __attribute__((always_inline)) uint32_t des_round_bmi(uint32_t l, uint32_t r, const uint32_t *k)
{
	uint32_t x = r ^ k[0], y = fb_rotl32(r, 4) ^ k[1];
	uint32_t a = des_sp[6][x & 63] ^ des_sp[4][fb_bextr32(x, 8, 6)];
	uint32_t b = des_sp[2][fb_bextr32(x, 16, 6)] ^ des_sp[0][fb_bextr32(x, 24, 6)];
	uint32_t c = des_sp[7][y & 63] ^ des_sp[5][fb_bextr32(y, 8, 6)];
	uint32_t d = des_sp[3][fb_bextr32(y, 16, 6)] ^ des_sp[1][fb_bextr32(y, 24, 6)];
	return fb_des_xor_tree(l, a, b, c, d);
}

/* One block through DES or EDE; encrypt (enc = 1) or decrypt; bmi (a
 * constant): rounds by des_round_bmi. */
static inline __attribute__((always_inline)) void des_table_one(const fb_des_table_ks *ks, uint8_t *out,
								const uint8_t *in, int enc, const int bmi)
{
	fb_des_table_block(ks, out, in, enc, bmi ? des_round_bmi : des_round);
}

/* One pass of 16 rounds over m independent blocks (m = 4, 2 or 1, a constant
 * after inlining) side by side: a round is a chain of dependent loads
 * using few of the core's ports, so interleaved chains add throughput for
 * ECB and the other parallel modes. Four fill the registers (eight
 * halves, the key and table pointers): on Zen 5 under the AVX2 mask, 3DES
 * ECB takes 221 TSC ticks a block with four, 265 with two. The halves are
 * copied into local arrays and each pass is its own call with constant
 * direction: through pointers chosen per pass at run time, GCC kept them
 * in memory, a load and a store per round and block (Zen 4 under the AVX2
 * mask: 3DES ECB 316-330 ticks a block that way). Block q's round keys
 * are lane * q words after k (0: one key for all blocks; the lane engine's
 * keys: a constant displacement, no pointer per block). */
static inline __attribute__((always_inline)) void des_pass_m(uint32_t *a, uint32_t *b, const uint32_t *k,
							     const int fwd, const int m, const int lane, const int bmi)
{
	uint32_t x[4], y[4];
	for (int q = 0; q < m; q++)
		x[q] = a[q], y[q] = b[q];
	for (int i = 0; i < 32; i += 4) {
		int j = fwd ? i : 30 - i, d = fwd ? 2 : -2;
		#pragma GCC unroll 4
		for (int q = 0; q < m; q++)
			x[q] = bmi ? des_round_bmi(x[q], y[q], k + q * lane + j) : des_round(x[q], y[q], k + q * lane + j);
		#pragma GCC unroll 4
		for (int q = 0; q < m; q++)
			y[q] = bmi ? des_round_bmi(y[q], x[q], k + q * lane + j + d)
				   : des_round(y[q], x[q], k + q * lane + j + d);
	}
	for (int q = 0; q < m; q++)
		a[q] = x[q], b[q] = y[q];
}

/* m blocks through DES or EDE (nkeys 1 or 3, the keys' round keys 32
 * words apart from rk; block q's lane * q words further): pass p uses key
 * p (encryption) or key 2-p (decryption), the direction alternates, and
 * the middle pass runs on the swapped halves. With prev, a chained
 * decryption: CBC (cfb 0) XORs each output with the ciphertext block
 * before it, CFB (cfb 1, enc 1) encrypts the block before and XORs in
 * the block itself; prev's 8 bytes come before the first. Every input is
 * read before the first store, so in place works. */
static inline __attribute__((always_inline)) void des_keys_mx(const uint32_t *rk, unsigned nkeys, const int lane,
							      uint8_t *out, const uint8_t *in, int enc, const int m,
							      const uint8_t *prev, const int cfb, const int bmi)
{
	uint32_t l[4], r[4], pa[4] = { 0 }, pb[4] = { 0 };
	for (int b = 0; b < m && prev; b++) {
		const uint8_t *c = cfb ? in + 8 * b : b ? in + 8 * (b - 1) : prev;
		pa[b] = fb_load32_be(c), pb[b] = fb_load32_be(c + 4);
	}
	for (int b = 0; b < m; b++)
		fb_des_block_in(!cfb ? in + 8 * b : b ? in + 8 * (b - 1) : prev, &l[b], &r[b]);
	if (nkeys == 1) {
		des_pass_m(l, r, rk, enc, m, lane, bmi);
	} else {
		des_pass_m(l, r, rk + (enc ? 0 : 64), enc, m, lane, bmi);
		des_pass_m(r, l, rk + 32, !enc, m, lane, bmi);
		des_pass_m(l, r, rk + (enc ? 64 : 0), enc, m, lane, bmi);
	}
	for (int b = 0; b < m; b++) {
		uint32_t t, x = fb_rotl32(r[b], 3), y = fb_rotl32(l[b], 3);
		DES_FP(x, y);
		fb_store32_be(out + 8 * b, x ^ pa[b]);
		fb_store32_be(out + 8 * b + 4, y ^ pb[b]);
	}
}

static inline __attribute__((always_inline)) void des_table_mx(const fb_des_table_ks *ks, uint8_t *out,
							       const uint8_t *in, int enc, const int m,
							       const uint8_t *prev, const int cfb, const int bmi)
{
	des_keys_mx(ks->rk[0], ks->nkeys, 0, out, in, enc, m, prev, cfb, bmi);
}

static inline __attribute__((always_inline)) void des_table_crypt(const void *ksp, uint8_t *out, const uint8_t *in,
								  size_t n, int enc, const int bmi)
{
	const fb_des_table_ks *ks = ksp;
	for (; n >= 4; n -= 4, in += 32, out += 32)
		des_table_mx(ks, out, in, enc, 4, NULL, 0, bmi);
	/* three side by side, not two and one (AMD Zen 4: 3DES 1,053 -> 766
	 * TSC ticks a call) */
	if (n == 3)
		des_table_mx(ks, out, in, enc, 3, NULL, 0, bmi);
	else if (n == 2)
		des_table_mx(ks, out, in, enc, 2, NULL, 0, bmi);
	else if (n)
		des_table_one(ks, out, in, enc, bmi);
}

/* Fused CTR: the counter blocks of a run of up to 16, encrypted in one
 * call (the four-block interleave of the block loop), then XORed in. */
static inline __attribute__((always_inline)) void des_table_ctr(const void *ks, uint8_t *out, const uint8_t *in,
								size_t n, uint8_t *ctr, const int bmi)
{
	uint8_t buf[8 * 16];
	while (n) {
		size_t m = n < 16 ? n : 16;
		uint32_t lo = fb_load32_be(ctr + 4);
		for (size_t i = 0; i < m; i++) {
			memcpy(buf + 8 * i, ctr, 4);
			fb_store32_be(buf + 8 * i + 4, lo + (uint32_t)i);
		}
		des_table_crypt(ks, buf, buf, m, 1, bmi);
		for (size_t i = 0; i < 8 * m; i++)
			out[i] = in[i] ^ buf[i];
		fb_store32_be(ctr + 4, lo + (uint32_t)m);
		in += 8 * m;
		out += 8 * m;
		n -= m;
	}
	fb_wipe(buf, sizeof buf);
}

/* Fused CBC (cfb 0) and CFB (cfb 1) decryption: groups of four blocks
 * (then three, two or one) side by side, each output XORed as it is
 * written (des_table_mx); carry keeps the last ciphertext of a group,
 * which in place the group overwrites. Without the CFB form the mode
 * layer copied the ciphertext a block behind into a buffer, encrypted it
 * and made an XOR pass (3DES CFB decryption of 3 blocks, Sapphire Rapids
 * class: ~850 TSC ticks an update). */
static inline __attribute__((always_inline)) void des_table_chain_dec(const void *ks, uint8_t *out, const uint8_t *in,
								      size_t n, uint8_t *iv, const int cfb, const int bmi)
{
	uint8_t carry[8], next[8];
	memcpy(carry, iv, 8);
	while (n) {
		size_t m = n >= 4 ? 4 : n;
		memcpy(next, in + 8 * (m - 1), 8);
		if (m == 4)
			des_table_mx(ks, out, in, cfb, 4, carry, cfb, bmi);
		else if (m == 3)
			des_table_mx(ks, out, in, cfb, 3, carry, cfb, bmi);
		else if (m == 2)
			des_table_mx(ks, out, in, cfb, 2, carry, cfb, bmi);
		else
			des_table_mx(ks, out, in, cfb, 1, carry, cfb, bmi);
		memcpy(carry, next, 8);
		in += 8 * m, out += 8 * m, n -= m;
	}
	memcpy(iv, carry, 8);
}

/* des/table's steps, and des/table-bmi2's (the rounds by des_round_bmi). */
#define DES_TABLE_STEPS(suffix, bmi)                                                                        \
	void fb_des_table_encrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n)         \
	{                                                                                                    \
		des_table_crypt(ks, out, in, n, 1, bmi);                                                     \
	}                                                                                                    \
	void fb_des_table_decrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n)         \
	{                                                                                                    \
		des_table_crypt(ks, out, in, n, 0, bmi);                                                     \
	}                                                                                                    \
	void fb_des_table_ctr32##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr) \
	{                                                                                                    \
		des_table_ctr(ks, out, in, n, ctr, bmi);                                                     \
	}                                                                                                    \
	void fb_des_table_cbc_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                                    \
		des_table_chain_dec(ks, out, in, n, iv, 0, bmi);                                             \
	}                                                                                                    \
	void fb_des_table_cfb_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                                    \
		des_table_chain_dec(ks, out, in, n, iv, 1, bmi);                                             \
	}
DES_TABLE_STEPS(, 0)
#if FB_X86
DES_TABLE_STEPS(_bmi, 1)
#endif

/* ---- Lanes: up to four streams, each with its own key (fb_multi_crypt) ---- */

/* Four chains side by side, as in ECB: for 2-4 streams of CBC, CFB or
 * OFB encryption, where each stream alone is one chain. On the AVX2
 * class the bitsliced engine's 256-lane step costs the same at any fill,
 * so it pays only for many more streams (DES_BS256_LANES_MIN). */
#define TABLE_LANES 4

typedef struct {
	uint32_t rk[TABLE_LANES][3][32]; /* lane l's keys, as fb_des_table_ks.rk */
	unsigned nkeys;
} table_lane_keys;

static void table_lane_setkeys(void *ksp, const uint8_t *const *keys, size_t keylen, size_t nl)
{
	table_lane_keys *ks = ksp;
	ks->nkeys = keylen == 8 ? 1 : 3;
	for (size_t l = 0; l < nl; l++)
		FB_DES_SCHEDULES(fb_des_table_schedule, ks->rk[l], keys[l], keylen);
}

/* enc is a constant at each call (table_lanes_enc, table_lanes_dec): with
 * the direction chosen at run time GCC computed the round-key offsets by
 * conditional moves inside the rounds. bmi: des/table-bmi2's rounds. */
static inline __attribute__((always_inline)) void lanes_m(const table_lane_keys *ks, uint8_t *out,
							      const uint8_t *in, size_t nl, const int enc,
							      const int bmi)
{
	const uint32_t *rk = ks->rk[0][0];
	const int lane = 3 * 32;
	switch (nl) {
	case 4: des_keys_mx(rk, ks->nkeys, lane, out, in, enc, 4, NULL, 0, bmi); break;
	case 3: des_keys_mx(rk, ks->nkeys, lane, out, in, enc, 3, NULL, 0, bmi); break;
	case 2: des_keys_mx(rk, ks->nkeys, lane, out, in, enc, 2, NULL, 0, bmi); break;
	default: des_keys_mx(rk, ks->nkeys, lane, out, in, enc, 1, NULL, 0, bmi); break;
	}
}

/* The lane engines of des/table and des/table-bmi2. */
#define DES_TABLE_LANES(suffix, bmi)                                                                        \
	static __attribute__((noinline)) void table_lanes_enc##suffix(const void *ks, uint8_t *out,          \
								       const uint8_t *in, size_t nl)         \
	{                                                                                                    \
		lanes_m(ks, out, in, nl, 1, bmi);                                                            \
	}                                                                                                    \
	static __attribute__((noinline)) void table_lanes_dec##suffix(const void *ks, uint8_t *out,          \
								       const uint8_t *in, size_t nl)         \
	{                                                                                                    \
		lanes_m(ks, out, in, nl, 0, bmi);                                                            \
	}                                                                                                    \
	static void table_lane_step##suffix(const void *ksp, uint8_t *out, const uint8_t *in, size_t nl,     \
					    int dec)                                                       \
	{                                                                                                    \
		(dec ? table_lanes_dec##suffix : table_lanes_enc##suffix)(ksp, out, in, nl);                 \
	}                                                                                                    \
	const fb_lanes fb_des_table_lanes##suffix = {                                                        \
		.max_lanes = TABLE_LANES,                                                                    \
		.constant_time = 0,                                                                          \
		.min = { { { 2, 2 }, 0 } },                                                                  \
		.keys_size = sizeof(table_lane_keys),                                                        \
		.setkeys = table_lane_setkeys,                                                               \
		.step = table_lane_step##suffix,                                                             \
	};
DES_TABLE_LANES(, 0)
#if FB_X86
DES_TABLE_LANES(_bmi, 1)
#endif

const fb_kernel fb_des_table = {
	.name = "des/table",
	.family = "des",
	.block_size = 8,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(fb_des_table_ks),
	.note = "SP tables (8x64x32-bit), IP/FP as bit swaps (Osvik)",
	.setkey = fb_des_table_setkey,
	.encrypt = fb_des_table_encrypt,
	.decrypt = fb_des_table_decrypt,
	.ctr32 = fb_des_table_ctr32,
	.cbc_dec = fb_des_table_cbc_dec,
	.cfb_dec = fb_des_table_cfb_dec,
	.lanes = &fb_des_table_lanes,
};
