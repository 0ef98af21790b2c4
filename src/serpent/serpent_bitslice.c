/*
 * serpent/bitslice: portable Serpent on 32-bit words, "bitsliced as
 * designed": each S-box is a circuit of two-input gates over the four state
 * words (32 S-box lookups at once), so there are no table lookups and no
 * secret-dependent branches: constant-time.  Two blocks are interleaved
 * when there are two.
 *
 * Also the key schedule shared by every Serpent kernel (see serpent.h).
 */
#include "serpent_scalar_blocks.h"

/* The forms a key setup writes: serpent/avx512's (k, kl), the two-input
 * kernels' encryption keys (ke, ks) and decryption keys (kd). A context
 * that only encrypts or only decrypts (fb_kernel.setkey_enc, setkey_dec)
 * skips the other direction's: ~35 TSC ticks of ~400 on Zen 5. */
enum { FORM_EXACT = 1, FORM_ENC = 2, FORM_DEC = 4 };

/* Where the round keys go: the exact ones and, per kernel, the forms with
 * the two-input circuits' complements folded in (see serpent.h). */
typedef struct {
	serpent_ks_exact *kx; /* FORM_EXACT's */
	serpent_ks *ks;       /* FORM_ENC's and FORM_DEC's */
	unsigned forms;       /* FORM_* */
	uint32_t lf[8][4];  /* LT of the output flips of S_s (L2) */
	uint32_t ld[8][4];  /* the same for the shallow circuits (L2D) */
} key_sink;

/* The last round key (exact value y), which no S-box of the rounds
 * follows, into every array the forms use (kl[32] is not used). */
static ALWAYS_INLINE void emit_ends(key_sink *t, const uint32_t *y)
{
	serpent_ks *ks = t->ks;
	if (t->forms & FORM_EXACT)
		memcpy(t->kx->k[32], y, 16);
	if (t->forms & FORM_ENC)
		for (int j = 0; j < 4; j++) {
			ks->ke[32][j] = y[j] ^ sbox_flip[7][j];
			ks->ks[32][j] = y[j] ^ shallow_flip[7][j];
		}
	if (t->forms & FORM_DEC)
		memcpy(ks->kd[32], y, 16);
}

/* Keeps the compiler from reassociating x into a longer chain after it. */
static inline uint32_t early(uint32_t x)
{
#if defined(__GNUC__)
	__asm__("" : "+r"(x));
#endif
	return x;
}

/* Prekey recurrence w[n+8] = rol(w[n] ^ w[n+3] ^ w[n+5] ^ w[n+7] ^ phi ^ n, 11)
 * on a window of eight registers, the newest word XORed last: the chain
 * from one word to the next is one XOR and one rotation (through memory,
 * or reassociated, it would be several times longer). */
#define W(a, b, c, d, n) a = fb_rotl32(early(a ^ b ^ c ^ (FB_SERPENT_PHI ^ (uint32_t)(n))) ^ d, 11)
#define W8(n) do { \
	W(r0, r3, r5, r7, n); W(r1, r4, r6, r0, (n) + 1); \
	W(r2, r5, r7, r1, (n) + 2); W(r3, r6, r0, r2, (n) + 3); \
	W(r4, r7, r1, r3, (n) + 4); W(r5, r0, r2, r4, (n) + 5); \
	W(r6, r1, r3, r5, (n) + 6); W(r7, r2, r4, r6, (n) + 7); \
} while (0)

/*
 * Round keys four at a time. The keys one S-box makes, q0, q0 + 8, q0 + 16
 * and q0 + 24, are the lanes of four word vectors (GCC vector extensions:
 * SSE2 on x86-64, the compiler's choice elsewhere), so that each S-box
 * circuit and each key form (ke, kd, ks, kl: the same flip constants for
 * the four) runs once for four keys: 4,300 -> 2,600 instructions for
 * fb_serpent_setkey (callgrind), fb_init and one block ~100-150 TSC ticks
 * shorter on Zen 5. The vectors and their transpose are the block code's
 * (blk4, blk4_tr in serpent_scalar_blocks.h).
 */
static ALWAYS_INLINE blk4 v4_rotr(blk4 x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* Word vectors y[] of keys q0 + 8i into rows dst[q0 + 8i] (y clobbered). */
static ALWAYS_INLINE void put4(uint32_t (*dst)[4], int q0, blk4 y[4])
{
	blk4_tr(y);
	for (int i = 0; i < 4; i++)
		memcpy(dst[q0 + 8 * i], &y[i], 16);
}

/* fold_lt of four keys. */
static ALWAYS_INLINE void fold4(blk4 o[4], const blk4 k[4])
{
	o[0] = v4_rotr(k[0], 5) ^ k[1] ^ k[3];
	o[1] = v4_rotr(k[1], 1);
	o[2] = v4_rotr(k[2], 22) ^ k[3] ^ (k[1] << 7);
	o[3] = v4_rotr(k[3], 7);
}

/* Key 0 (lane 0 of the group q0 = 0) has no S-box before it: its
 * encryption forms are its exact value. */
static ALWAYS_INLINE void key0_exact(blk4 o[4], const blk4 y[4], int q0)
{
	if (q0 == 0)
		for (int j = 0; j < 4; j++)
			o[j][0] = y[j][0];
}

/* The forms t->forms of keys q0 + 8i (0 <= q < 32) from their exact
 * values y. */
static ALWAYS_INLINE void emit4(key_sink *t, int q0, const blk4 y[4])
{
	serpent_ks *ks = t->ks;
	blk4 o[4], f[4];
	if (t->forms & FORM_EXACT) {
		memcpy(o, y, sizeof o);
		put4(t->kx->k, q0, o);
		fold4(o, y);
		put4(t->kx->kl, q0, o);
	}
	if (t->forms & FORM_ENC) {
		int p = (q0 - 1) & 7; /* the S-box before these keys */
		for (int j = 0; j < 4; j++) {
			o[j] = y[j] ^ t->lf[p][j];
			f[j] = y[j] ^ t->ld[p][j];
		}
		key0_exact(o, y, q0);
		put4(ks->ke, q0, o);
		fold4(o, f);
		key0_exact(o, y, q0);
		put4(ks->ks, q0, o);
	}
	if (t->forms & FORM_DEC) {
		for (int j = 0; j < 4; j++)
			o[j] = y[j] ^ isbox_flip[q0][j];
		put4(ks->kd, q0, o);
	}
}

/* Keys q0 + 8i through S-box S (number s = 3 - q0 mod 8) from the prekey
 * words w. */
#define KS4(q0, S, s) do { \
	blk4 x_[4]; \
	for (int i_ = 0; i_ < 4; i_++) \
		memcpy(&x_[i_], w + 4 * ((q0) + 8 * i_), 16); \
	blk4_tr(x_); \
	FB_SERPENT_##S##_L2(blk4, AND, OR, XOR, ANDN, x_[0], x_[1], x_[2], x_[3]); \
	for (int j_ = 0; j_ < 4; j_++) \
		x_[j_] ^= sbox_flip[s][j_]; \
	emit4(t, q0, x_); \
} while (0)

/* The 33 round keys of the specification, into the sink t (inlined into
 * each key setup, so that t->exact_only is a constant there). */
static ALWAYS_INLINE int round_keys(key_sink *t, const uint8_t *key, size_t keylen)
{
	uint8_t kb[32] = {0};
	uint32_t w[132]; /* the prekey words w_0 .. w_131 */

	if (keylen < 1 || keylen > 32)
		return FB_ERR_KEY_LENGTH;
	/* Keys shorter than 256 bits are padded with a 1 bit, then zeros. */
	memcpy(kb, key, keylen);
	if (keylen < 32)
		kb[keylen] = 1;
	uint32_t r0 = fb_load32_le(kb), r1 = fb_load32_le(kb + 4);
	uint32_t r2 = fb_load32_le(kb + 8), r3 = fb_load32_le(kb + 12);
	uint32_t r4 = fb_load32_le(kb + 16), r5 = fb_load32_le(kb + 20);
	uint32_t r6 = fb_load32_le(kb + 24), r7 = fb_load32_le(kb + 28);
	fb_wipe(kb, sizeof kb);
	for (int n = 0; n < 128; n += 8) {
		W8(n);
		w[n] = r0, w[n + 1] = r1, w[n + 2] = r2, w[n + 3] = r3;
		w[n + 4] = r4, w[n + 5] = r5, w[n + 6] = r6, w[n + 7] = r7;
	}
	W(r0, r3, r5, r7, 128); W(r1, r4, r6, r0, 129);
	W(r2, r5, r7, r1, 130); W(r3, r6, r0, r2, 131);
	KS4(0, S3, 3); KS4(1, S2, 2); KS4(2, S1, 1); KS4(3, S0, 0);
	KS4(4, S7, 7); KS4(5, S6, 6); KS4(6, S5, 5); KS4(7, S4, 4);
	FB_SERPENT_S3_L2(uint32_t, AND, OR, XOR, ANDN, r0, r1, r2, r3);
	uint32_t y[4] = { r0 ^ sbox_flip[3][0], r1 ^ sbox_flip[3][1], r2 ^ sbox_flip[3][2],
			  r3 ^ sbox_flip[3][3] };
	emit_ends(t, y);
	fb_wipe(y, sizeof y);
	fb_wipe(w, sizeof w);
	return FB_OK;
}

/* Key setup into the forms `forms` (inlined into each entry point, so
 * that the forms are constants there). */
static ALWAYS_INLINE int setkey_forms(void *ksv, const uint8_t *key, size_t keylen, unsigned forms)
{
	/* forms is FORM_EXACT alone or a set of the other two */
	key_sink t = { .forms = forms };
	if (forms & FORM_EXACT)
		t.kx = ksv;
	else
		t.ks = ksv;

	/* LT of the output flips: what a complemented S-box output becomes
	 * by the next key XOR (constants the compiler folds). */
	if (forms & FORM_ENC) {
		memcpy(t.lf, sbox_flip, sizeof t.lf);
		memcpy(t.ld, shallow_flip, sizeof t.ld);
		for (int s = 0; s < 8; s++) {
			FB_SERPENT_LT(ROL, SHL, XOR3, t.lf[s][0], t.lf[s][1], t.lf[s][2], t.lf[s][3]);
			FB_SERPENT_LT(ROL, SHL, XOR3, t.ld[s][0], t.ld[s][1], t.ld[s][2], t.ld[s][3]);
		}
	}
	return round_keys(&t, key, keylen);
}

/* Key setups of serpent/bitslice and serpent/avx2: ke, ks and kd; ke and
 * ks only; kd only. */
int fb_serpent_setkey(void *ksv, const uint8_t *key, size_t keylen)
{
	return setkey_forms(ksv, key, keylen, FORM_ENC | FORM_DEC);
}

int fb_serpent_setkey_enc(void *ksv, const uint8_t *key, size_t keylen)
{
	return setkey_forms(ksv, key, keylen, FORM_ENC);
}

int fb_serpent_setkey_dec(void *ksv, const uint8_t *key, size_t keylen)
{
	return setkey_forms(ksv, key, keylen, FORM_DEC);
}

/* Key setup of serpent/avx512: k and kl (exact circuits only). */
int fb_serpent_setkey_exact(void *ksv, const uint8_t *key, size_t keylen)
{
	return setkey_forms(ksv, key, keylen, FORM_EXACT);
}

/* serpent/avx2's lone blocks */
void fb_serpent_bitslice_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	serpent_encrypt(ks, out, in, nblocks);
}

void fb_serpent_bitslice_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	serpent_decrypt(ks, out, in, nblocks);
}

const fb_kernel fb_serpent_bitslice = {
	.name = "serpent/bitslice",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(serpent_ks),
	.note = "portable C, 32-bit words (runs of four or more blocks in word vectors), S-boxes as two-input gate circuits",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey,
	.setkey_enc = fb_serpent_setkey_enc,
	.setkey_dec = fb_serpent_setkey_dec,
	.encrypt = serpent_encrypt,
	.decrypt = serpent_decrypt,
	.ctr32 = NULL,
	.cbc_dec = NULL,
	.cbc_enc = serpent_cbc_enc,
	.ofb = serpent_ofb,
	.cfb_enc = serpent_cfb_enc,
	.cfb8_enc = serpent_cfb8_enc,
};
