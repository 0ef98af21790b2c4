/*
 * des/table64: DES and Triple-DES in seed 003's 64-bit expanded form
 * (Biham's trick as Corella used it on PA-RISC).
 *
 * Each half is kept as E(half): 48 bits, S-box j's six input bits in byte
 * j-1. The tables return E(P(S_j(x))) as 64-bit words, so a round's output
 * is already in the next round's input form: the round is one XOR with the
 * key, eight byte-indexed lookups and an XOR tree, with no rotation or
 * expansion on the latency chain. Meant for the serial modes (CBC, CFB,
 * OFB encryption), where one block's latency is all that matters.
 *
 * Not constant-time: table indices depend on key and data.
 */
#include "des_table.h"
#include "des_tables.h"

typedef struct {
	uint64_t rk[3][16]; /* per DES key: 16 round keys in the byte layout */
	unsigned nkeys;
} des_table64_ks;

static void schedule64(uint64_t rk[16], const uint8_t key[8])
{
	/* des/table's (KX, KY) hold the fields of S-boxes 7,5,3,1 and 8,6,4,2 in
	 * bytes 0..3; move each to byte j-1 of the expanded layout. */
	static const uint8_t from_x[4] = { 7, 5, 3, 1 }, from_y[4] = { 8, 6, 4, 2 };
	uint32_t kxy[32];
	fb_des_table_schedule(kxy, key);
	for (int r = 0; r < 16; r++) {
		uint64_t k = 0;
		for (int m = 0; m < 4; m++) {
			k |= (uint64_t)((kxy[2 * r] >> (8 * m)) & 63) << (8 * (from_x[m] - 1));
			k |= (uint64_t)((kxy[2 * r + 1] >> (8 * m)) & 63) << (8 * (from_y[m] - 1));
		}
		rk[r] = k;
	}
	fb_wipe(kxy, sizeof kxy);
}

static int des_table64_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	des_table64_ks *ks = ksp;
	if (keylen != 8 && keylen != 16 && keylen != 24)
		return FB_ERR_KEY_LENGTH;
	ks->nkeys = keylen == 8 ? 1 : 3;
	schedule64(ks->rk[0], key);
	if (keylen > 8) {
		schedule64(ks->rk[1], key + 8);
		schedule64(ks->rk[2], keylen == 24 ? key + 16 : key);
	}
	return FB_OK;
}

static inline uint64_t expand(uint32_t w)
{
	uint64_t e = 0;
	for (int j = 1; j <= 8; j++)
		e |= (uint64_t)(fb_rotr32(w, (unsigned)(31 - 4 * j) & 31) & 63) << (8 * (j - 1));
	return e;
}

static inline uint32_t compress(uint64_t e)
{
	uint32_t w = 0;
	for (int j = 1; j <= 8; j++)
		w |= (uint32_t)((e >> (8 * (j - 1) + 1)) & 15) << (32 - 4 * j);
	return w;
}

static inline uint64_t f64(uint64_t r, uint64_t k)
{
	uint64_t x = r ^ k;
	uint64_t a = des_sp64[0][x & 0xFF] ^ des_sp64[1][(x >> 8) & 0xFF];
	uint64_t b = des_sp64[2][(x >> 16) & 0xFF] ^ des_sp64[3][(x >> 24) & 0xFF];
	uint64_t c = des_sp64[4][(x >> 32) & 0xFF] ^ des_sp64[5][(x >> 40) & 0xFF];
	uint64_t d = des_sp64[6][(x >> 48) & 0xFF] ^ des_sp64[7][x >> 56];
	FB_KEEP(a); FB_KEEP(b); FB_KEEP(c); FB_KEEP(d);
	a ^= b;
	c ^= d;
	FB_KEEP(a); FB_KEEP(c);
	return a ^ c;
}

/* 16 rounds forwards or backwards through the key; a ends as L16, b as R16. */
static inline __attribute__((always_inline)) void rounds64(uint64_t *a, uint64_t *b,
							    const uint64_t *k, int fwd)
{
#pragma GCC unroll 8
	for (int i = 0; i < 16; i += 2) {
		int j = fwd ? i : 15 - i, d = fwd ? 1 : -1;
		*a ^= f64(*b, k[j]);
		*b ^= f64(*a, k[j + d]);
	}
}

static inline __attribute__((always_inline)) void crypt64(const des_table64_ks *ks, uint8_t *out,
							   const uint8_t *in, int enc)
{
	uint32_t l32 = fb_load32_be(in), r32 = fb_load32_be(in + 4), t;
	DES_IP(l32, r32);
	uint64_t l = expand(l32), r = expand(r32);
	if (ks->nkeys == 1) {
		rounds64(&l, &r, ks->rk[0], enc);
	} else {
		rounds64(&l, &r, ks->rk[enc ? 0 : 2], enc);
		rounds64(&r, &l, ks->rk[1], !enc);
		rounds64(&l, &r, ks->rk[enc ? 2 : 0], enc);
	}
	uint32_t a = compress(r), b = compress(l);
	DES_FP(a, b);
	fb_store32_be(out, a);
	fb_store32_be(out + 4, b);
}

static void des_table64_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		crypt64(ks, out + 8 * i, in + 8 * i, 1);
}

static void des_table64_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		crypt64(ks, out + 8 * i, in + 8 * i, 0);
}

const fb_kernel fb_des_table64 = {
	.name = "des/table64",
	.family = "des",
	.block_size = 8,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(des_table64_ks),
	.note = "64-bit expanded form, tables return E(P(S(x))) (seed 003)",
	.setkey = des_table64_setkey,
	.encrypt = des_table64_encrypt,
	.decrypt = des_table64_decrypt,
};
