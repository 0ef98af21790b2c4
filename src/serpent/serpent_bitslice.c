/*
 * serpent/bitslice: portable Serpent on 32-bit words, "bitsliced as
 * designed": each S-box is a circuit of two-input gates over the four state
 * words (32 S-box lookups at once), so there are no table lookups and no
 * secret-dependent branches: constant-time.  Two blocks are interleaved
 * when there are two.
 *
 * Also the key schedule shared by every Serpent kernel (see serpent.h).
 */
#include "serpent.h"

#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define ANDN(a, b) (~(a) & (b))
#define XOR3(a, b, c) ((a) ^ (b) ^ (c))
#define ROL(x, n) fb_rotl32((x), (n))
#define SHL(x, n) ((x) << (n))

#define SBOX(name, x) FB_SERPENT_##name##_L2(uint32_t, AND, OR, XOR, ANDN, x[0], x[1], x[2], x[3])

/* S-box number s (0..7) on the words x; the number is public (round index). */
static void sbox(unsigned s, uint32_t *x)
{
	switch (s) {
	case 0: SBOX(S0, x); break;
	case 1: SBOX(S1, x); break;
	case 2: SBOX(S2, x); break;
	case 3: SBOX(S3, x); break;
	case 4: SBOX(S4, x); break;
	case 5: SBOX(S5, x); break;
	case 6: SBOX(S6, x); break;
	default: SBOX(S7, x); break;
	}
}

static const uint32_t sbox_flip[8] = {
	FB_SERPENT_S0_L2_FLIP, FB_SERPENT_S1_L2_FLIP, FB_SERPENT_S2_L2_FLIP, FB_SERPENT_S3_L2_FLIP,
	FB_SERPENT_S4_L2_FLIP, FB_SERPENT_S5_L2_FLIP, FB_SERPENT_S6_L2_FLIP, FB_SERPENT_S7_L2_FLIP,
};
static const uint32_t isbox_flip[8] = {
	FB_SERPENT_SI0_L2_FLIP, FB_SERPENT_SI1_L2_FLIP, FB_SERPENT_SI2_L2_FLIP, FB_SERPENT_SI3_L2_FLIP,
	FB_SERPENT_SI4_L2_FLIP, FB_SERPENT_SI5_L2_FLIP, FB_SERPENT_SI6_L2_FLIP, FB_SERPENT_SI7_L2_FLIP,
};

/* The flip mask f (bit j: output word j complemented) as four words. */
static void flip_words(uint32_t f, uint32_t *w)
{
	for (int j = 0; j < 4; j++)
		w[j] = 0u - (f >> j & 1);
}

int fb_serpent_setkey(void *ksv, const uint8_t *key, size_t keylen)
{
	serpent_ks *ks = ksv;
	uint8_t kb[32] = {0};
	uint32_t w[140];

	if (keylen < 1 || keylen > 32)
		return FB_ERR_KEY_LENGTH;
	/* Keys shorter than 256 bits are padded with a 1 bit, then zeros. */
	memcpy(kb, key, keylen);
	if (keylen < 32)
		kb[keylen] = 1;
	for (int i = 0; i < 8; i++)
		w[i] = fb_load32_le(kb + 4 * i);
	for (unsigned i = 0; i < 132; i++)
		w[i + 8] = fb_rotl32(w[i] ^ w[i + 3] ^ w[i + 5] ^ w[i + 7] ^ FB_SERPENT_PHI ^ i, 11);
	for (unsigned i = 0; i < 33; i++) {
		uint32_t x[4], f[4];
		unsigned s = (3 - i) & 7;
		memcpy(x, w + 8 + 4 * i, sizeof x);
		sbox(s, x);
		flip_words(sbox_flip[s], f);
		for (int j = 0; j < 4; j++)
			ks->k[i][j] = x[j] ^ f[j];
	}
	/* Fold the complemented outputs of the two-input circuits into the keys. */
	memcpy(ks->ke, ks->k, sizeof ks->k);
	memcpy(ks->kd, ks->k, sizeof ks->k);
	for (unsigned r = 0; r < 32; r++) {
		uint32_t f[4], g[4];
		flip_words(sbox_flip[r & 7], f);
		if (r < 31)
			FB_SERPENT_LT(ROL, SHL, XOR3, f[0], f[1], f[2], f[3]);
		flip_words(isbox_flip[r & 7], g);
		for (int j = 0; j < 4; j++) {
			ks->ke[r + 1][j] ^= f[j];
			ks->kd[r][j] ^= g[j];
		}
	}
	for (unsigned r = 1; r < 32; r++) {
		const uint32_t *k = ks->k[r];
		ks->kl[r][0] = fb_rotr32(k[0], 5) ^ k[1] ^ k[3];
		ks->kl[r][1] = fb_rotr32(k[1], 1);
		ks->kl[r][2] = fb_rotr32(k[2], 22) ^ k[3] ^ (k[1] << 7);
		ks->kl[r][3] = fb_rotr32(k[3], 7);
	}
	fb_wipe(kb, sizeof kb);
	fb_wipe(w, sizeof w);
	return FB_OK;
}

/* Rounds on the words x0..x3 of one block (named by the caller). */
#define KX(k, x0, x1, x2, x3) do { x0 ^= (k)[0]; x1 ^= (k)[1]; x2 ^= (k)[2]; x3 ^= (k)[3]; } while (0)
#define SB(S, x0, x1, x2, x3) FB_SERPENT_##S##_L2(uint32_t, AND, OR, XOR, ANDN, x0, x1, x2, x3)
#define LT(x0, x1, x2, x3) FB_SERPENT_LT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define ILT(x0, x1, x2, x3) FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3)
#define LOAD(x0, x1, x2, x3, p) do { \
	x0 = fb_load32_le(p); x1 = fb_load32_le((p) + 4); \
	x2 = fb_load32_le((p) + 8); x3 = fb_load32_le((p) + 12); \
} while (0)
#define STORE(p, x0, x1, x2, x3) do { \
	fb_store32_le(p, x0); fb_store32_le((p) + 4, x1); \
	fb_store32_le((p) + 8, x2); fb_store32_le((p) + 12, x3); \
} while (0)

/* One block: ER/DR are an encryption/decryption round on a0..a3. */
#define ER(S, k) do { KX(k, a0, a1, a2, a3); SB(S, a0, a1, a2, a3); LT(a0, a1, a2, a3); } while (0)
#define DR(S, k) do { ILT(a0, a1, a2, a3); SB(S, a0, a1, a2, a3); KX(k, a0, a1, a2, a3); } while (0)

static void encrypt1(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->ke;
	uint32_t a0, a1, a2, a3;

	LOAD(a0, a1, a2, a3, in);
	for (int r = 0; r < 24; r += 8) {
		ER(S0, k[r]); ER(S1, k[r + 1]); ER(S2, k[r + 2]); ER(S3, k[r + 3]);
		ER(S4, k[r + 4]); ER(S5, k[r + 5]); ER(S6, k[r + 6]); ER(S7, k[r + 7]);
	}
	ER(S0, k[24]); ER(S1, k[25]); ER(S2, k[26]); ER(S3, k[27]);
	ER(S4, k[28]); ER(S5, k[29]); ER(S6, k[30]);
	KX(k[31], a0, a1, a2, a3);
	SB(S7, a0, a1, a2, a3);
	KX(k[32], a0, a1, a2, a3);
	STORE(out, a0, a1, a2, a3);
}

static void decrypt1(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	uint32_t a0, a1, a2, a3;

	LOAD(a0, a1, a2, a3, in);
	KX(k[32], a0, a1, a2, a3);
	SB(SI7, a0, a1, a2, a3);
	KX(k[31], a0, a1, a2, a3);
	DR(SI6, k[30]); DR(SI5, k[29]); DR(SI4, k[28]); DR(SI3, k[27]);
	DR(SI2, k[26]); DR(SI1, k[25]); DR(SI0, k[24]);
	for (int r = 16; r >= 0; r -= 8) {
		DR(SI7, k[r + 7]); DR(SI6, k[r + 6]); DR(SI5, k[r + 5]); DR(SI4, k[r + 4]);
		DR(SI3, k[r + 3]); DR(SI2, k[r + 2]); DR(SI1, k[r + 1]); DR(SI0, k[r]);
	}
	STORE(out, a0, a1, a2, a3);
}

/* Two blocks interleaved: one block's round is a dependency chain that
 * leaves most of a superscalar core idle; two fill it (about 1.7x). */
#define ER2(S, k) do { \
	KX(k, a0, a1, a2, a3); KX(k, b0, b1, b2, b3); \
	SB(S, a0, a1, a2, a3); SB(S, b0, b1, b2, b3); \
	LT(a0, a1, a2, a3); LT(b0, b1, b2, b3); \
} while (0)
#define DR2(S, k) do { \
	ILT(a0, a1, a2, a3); ILT(b0, b1, b2, b3); \
	SB(S, a0, a1, a2, a3); SB(S, b0, b1, b2, b3); \
	KX(k, a0, a1, a2, a3); KX(k, b0, b1, b2, b3); \
} while (0)

static void encrypt2(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->ke;
	uint32_t a0, a1, a2, a3, b0, b1, b2, b3;

	LOAD(a0, a1, a2, a3, in);
	LOAD(b0, b1, b2, b3, in + 16);
	for (int r = 0; r < 24; r += 8) {
		ER2(S0, k[r]); ER2(S1, k[r + 1]); ER2(S2, k[r + 2]); ER2(S3, k[r + 3]);
		ER2(S4, k[r + 4]); ER2(S5, k[r + 5]); ER2(S6, k[r + 6]); ER2(S7, k[r + 7]);
	}
	ER2(S0, k[24]); ER2(S1, k[25]); ER2(S2, k[26]); ER2(S3, k[27]);
	ER2(S4, k[28]); ER2(S5, k[29]); ER2(S6, k[30]);
	KX(k[31], a0, a1, a2, a3); KX(k[31], b0, b1, b2, b3);
	SB(S7, a0, a1, a2, a3); SB(S7, b0, b1, b2, b3);
	KX(k[32], a0, a1, a2, a3); KX(k[32], b0, b1, b2, b3);
	STORE(out, a0, a1, a2, a3);
	STORE(out + 16, b0, b1, b2, b3);
}

static void decrypt2(const serpent_ks *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->kd;
	uint32_t a0, a1, a2, a3, b0, b1, b2, b3;

	LOAD(a0, a1, a2, a3, in);
	LOAD(b0, b1, b2, b3, in + 16);
	KX(k[32], a0, a1, a2, a3); KX(k[32], b0, b1, b2, b3);
	SB(SI7, a0, a1, a2, a3); SB(SI7, b0, b1, b2, b3);
	KX(k[31], a0, a1, a2, a3); KX(k[31], b0, b1, b2, b3);
	DR2(SI6, k[30]); DR2(SI5, k[29]); DR2(SI4, k[28]); DR2(SI3, k[27]);
	DR2(SI2, k[26]); DR2(SI1, k[25]); DR2(SI0, k[24]);
	for (int r = 16; r >= 0; r -= 8) {
		DR2(SI7, k[r + 7]); DR2(SI6, k[r + 6]); DR2(SI5, k[r + 5]); DR2(SI4, k[r + 4]);
		DR2(SI3, k[r + 3]); DR2(SI2, k[r + 2]); DR2(SI1, k[r + 1]); DR2(SI0, k[r]);
	}
	STORE(out, a0, a1, a2, a3);
	STORE(out + 16, b0, b1, b2, b3);
}

void fb_serpent_bitslice_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
		encrypt2(ks, out, in);
	if (nblocks)
		encrypt1(ks, out, in);
}

void fb_serpent_bitslice_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
		decrypt2(ks, out, in);
	if (nblocks)
		decrypt1(ks, out, in);
}

const fb_kernel fb_serpent_bitslice = {
	.name = "serpent/bitslice",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(serpent_ks),
	.note = "portable C, 32-bit words, S-boxes as two-input gate circuits",
	.setkey = fb_serpent_setkey,
	.encrypt = fb_serpent_bitslice_encrypt,
	.decrypt = fb_serpent_bitslice_decrypt,
	.ctr32 = NULL,
	.cbc_dec = NULL,
};
