/*
 * serpent/bitslice-exact: serpent/bitslice's one-block rounds (the shallow
 * two-input circuits, keys folded into the linear transformation) on
 * serpent/avx512's key schedule, the exact round keys k and kl. The
 * circuits complement some S-box outputs; what that does to the next key
 * XOR is a constant per S-box, XORed into each key word as it is loaded,
 * off the state's chain (the same constants as the forms ks and kd, see
 * serpent.h).
 *
 * It runs serpent/avx512's lone blocks on Zen 5, whose vector latencies
 * make that kernel's xmm path the slower one (368-407 TSC ticks a block,
 * this code 263-313): a ladder rung that shares the wide kernel's
 * schedule, so a one-block message still pays for one key setup. On Zen 4
 * the xmm path leads (encryption 359 ticks against 429 here, decryption
 * 285 against 353), and on Sapphire Rapids, hence cpu_needs. No table
 * lookups, no secret-dependent branches: constant-time.
 */
#include "serpent_scalar.h"
#include "../block128_simd.h"

#define KX(k, x0, x1, x2, x3) do { x0 ^= (k)[0]; x1 ^= (k)[1]; x2 ^= (k)[2]; x3 ^= (k)[3]; } while (0)
#define SBD(S) FB_SERPENT_##S##_L2D(uint32_t, AND, OR, XOR, ANDN, a0, a1, a2, a3)
#define SBID(S) SBD(S)

/* Encryption: kl[r] is "LT, then XOR k[r]" folded into LT; the S-box
 * before key r (S_(r-1)) complemented the outputs in shallow_flip, which
 * LT and the fold turn into fix[(r - 1) mod 8]. */
#define KW(j) (kw_[j] ^ fx_[j])
#define LTK(kr) do { \
	const uint32_t *kw_ = (kr), *fx_ = fix[(((kr) - kl[0]) / 4 - 1) & 7]; \
	FB_SERPENT_LT_KEYED(ROL, SHL, XOR, XOR3, KW, a0, a1, a2, a3); \
} while (0)

static void encrypt1(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*kl)[4] = ks->kl;
	uint32_t fix[8][4], a0, a1, a2, a3;

	/* constants the compiler folds: LT, then the fold of kl, of each flip */
	memcpy(fix, shallow_flip, sizeof fix);
	for (int s = 0; s < 8; s++) {
		uint32_t *f = fix[s];
		FB_SERPENT_LT(ROL, SHL, XOR3, f[0], f[1], f[2], f[3]);
		uint32_t f0 = fb_rotr32(f[0], 5) ^ f[1] ^ f[3], f2 = fb_rotr32(f[2], 22) ^ f[3] ^ (f[1] << 7);
		f[0] = f0, f[1] = fb_rotr32(f[1], 1), f[2] = f2, f[3] = fb_rotr32(f[3], 7);
	}
	a0 = fb_b128_load32(in), a1 = fb_b128_load32(in + 4);
	a2 = fb_b128_load32(in + 8), a3 = fb_b128_load32(in + 12);
	KX(ks->k[0], a0, a1, a2, a3);
	FB_SERPENT_KEYED_ROUNDS(SBD, LTK, kl);
	a0 ^= ks->k[32][0] ^ shallow_flip[7][0], a1 ^= ks->k[32][1] ^ shallow_flip[7][1];
	a2 ^= ks->k[32][2] ^ shallow_flip[7][2], a3 ^= ks->k[32][3] ^ shallow_flip[7][3];
	fb_b128_store32(out, a0), fb_b128_store32(out + 4, a1);
	fb_b128_store32(out + 8, a2), fb_b128_store32(out + 12, a3);
}

/* Decryption: after inverse S-box r mod 8 comes the XOR with k[r]; that
 * S-box complemented the outputs in isbox_flip. */
#define KXA(kr) do { \
	const uint32_t *kw_ = (kr), *fx_ = isbox_flip[((kr) - k[0]) / 4 & 7]; \
	a0 ^= KW(0); a1 ^= KW(1); a2 ^= KW(2); a3 ^= KW(3); \
} while (0)
#define ILT(x0, x1, x2, x3) FB_SERPENT_ILT(ROL, SHL, XOR3, x0, x1, x2, x3)

static void decrypt1(const serpent_ks_exact *ks, uint8_t *out, const uint8_t *in)
{
	const uint32_t(*k)[4] = ks->k;
	uint32_t a0 = fb_b128_load32(in), a1 = fb_b128_load32(in + 4);
	uint32_t a2 = fb_b128_load32(in + 8), a3 = fb_b128_load32(in + 12);

	KX(k[32], a0, a1, a2, a3);
	FB_SERPENT_SHALLOW_DEC_ROUNDS(SBID, KXA, ILT(a0, a1, a2, a3), k);
	fb_b128_store32(out, a0), fb_b128_store32(out + 4, a1);
	fb_b128_store32(out + 8, a2), fb_b128_store32(out + 12, a3);
}

static void serpent_exact_encrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	for (; nblocks; nblocks--, in += 16, out += 16)
		encrypt1(ks, out, in);
}

static void serpent_exact_decrypt(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	for (; nblocks; nblocks--, in += 16, out += 16)
		decrypt1(ks, out, in);
}

const fb_kernel fb_serpent_bitslice_exact = {
	.name = "serpent/bitslice-exact",
	.family = "serpent",
	.block_size = 16,
	.cpu_needs = FB_CPU_SLOW_VEC_CHAIN,
	.constant_time = 1,
	.batch = 1,
	.ks_size = sizeof(serpent_ks_exact),
	.note = "portable one-block rounds on serpent/avx512's exact round keys (Zen 5's lone blocks)",
	.fills_schedule = 1,
	.setkey = fb_serpent_setkey_exact,
	.encrypt = serpent_exact_encrypt,
	.decrypt = serpent_exact_decrypt,
};
