/*
 * aes/aesni - AES-128/192/256 with the AES-NI instructions.
 *
 * Eight independent blocks are interleaved in the parallel paths (ECB,
 * CTR, CBC decryption): AESENC has a latency of 3-4 cycles and a
 * throughput of one or two per cycle, so eight chains keep the AES unit
 * busy while staying inside the 16 XMM registers (8 blocks + round key +
 * chaining values). One block at a time is the lowest-latency path, used
 * for the serial modes and for tails.
 *
 * Constant time: the AES rounds are done by the hardware instructions,
 * whose timing does not depend on the data; no table lookups, and the only
 * branches depend on the (public) key length, block counts and CTR
 * counter.
 */
#include "../internal.h"
#include "aes_kernels.h"
#include "aes_x86.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("aes,ssse3")

/* ---- Key schedule ---------------------------------------------------------- */

/* x as it is, but opaque to the compiler: the XORs before it are not
 * reassociated with those after it. The schedule's chain runs through
 * AESENCLAST; each key is (what needs no S-box, ready early) ^ S, and GCC
 * otherwise folds S in first and the rest after it, one or two XORs more
 * on the chain for each step. */
static inline TGT __m128i early(__m128i x)
{
	__asm__("" : "+x"(x));
	return x;
}

/* (k0, k1, k2, k3) -> (k0, k0^k1, k0^k1^k2, k0^k1^k2^k3). */
static inline TGT __m128i prefix_xor(__m128i k)
{
	k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
	return early(_mm_xor_si128(k, _mm_slli_si128(k, 8)));
}

/* Next round constant: multiplication by x in GF(2^8) (FIPS 197 5.2). */
static inline uint32_t next_rcon(uint32_t rc)
{
	return ((rc << 1) ^ (0x1b & (0u - (rc >> 7)))) & 0xff;
}

/* SubWord(RotWord(dword w of k)) ^ rc in all four dwords: PSHUFB copies
 * the rotated word into every column, and AESENCLAST's ShiftRows leaves
 * four equal columns as they are, so it is SubBytes and the XOR of the
 * constant. AESKEYGENASSIST does the same but costs 16.5 cycles of
 * latency on Intel (Sapphire Rapids class), against 1 + 3 for these two,
 * on the schedule's chain. The result has four equal columns, so a column
 * of (x ^ S) broadcast is that of x broadcast, ^ S. */
static inline TGT __m128i sub_rot_word(__m128i k, const int w, uint32_t rc)
{
	const char b = (char)(4 * w);
	__m128i sel = _mm_setr_epi8(b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b, b + 1, b + 2, b + 3, b,
				    b + 1, b + 2, b + 3, b);
	return _mm_aesenclast_si128(_mm_shuffle_epi8(k, sel), _mm_set1_epi32((int)rc));
}

/* Round key i of nr into rk: as it is (dec 0), or as the equivalent
 * inverse cipher's key nr - i (dec 1; FIPS 197 5.3.5), straight from the
 * register it was made in: a decryption schedule is never stored as
 * encryption keys and loaded back for AESIMC. */
static inline __attribute__((always_inline)) TGT void put_key(__m128i *rk, int i, __m128i k, const int nr,
							      const int dec)
{
	if (!dec)
		rk[i] = k;
	else
		rk[nr - i] = i == 0 || i == nr ? k : _mm_aesimc_si128(k);
}

static inline __attribute__((always_inline)) TGT void expand128_to(__m128i *rk, const uint8_t *key, const int dec)
{
	__m128i k = _mm_loadu_si128((const __m128i *)key);
	uint32_t rc = 1;
	put_key(rk, 0, k, 10, dec);
	_Pragma("GCC unroll 10")
	for (int i = 1; i <= 10; i++) {
		k = _mm_xor_si128(prefix_xor(k), sub_rot_word(k, 3, rc));
		put_key(rk, i, k, 10, dec);
		rc = next_rcon(rc);
	}
}

/* AES-192: the key stream advances six words per step; a holds words
 * 0..3 of the step, b words 4..5 (its upper half is ignored). Two steps
 * make three round keys, joined from the halves by one shuffle each, so
 * that every key is one aligned 16-byte store (round keys stored across
 * 24-byte steps and loaded back as 16 bytes miss store forwarding: AES-192
 * decryption's key setup was 63-90 TSC ticks on Zen 4). */
static inline __attribute__((always_inline)) TGT void expand192_to(__m128i *rk, const uint8_t *key, const int dec)
{
	__m128i a = _mm_loadu_si128((const __m128i *)key);
	__m128i b = _mm_loadl_epi64((const __m128i *)(key + 16)), b0 = b;
	uint32_t rc = 1;
	put_key(rk, 0, a, 12, dec);
	_Pragma("GCC unroll 10")
	for (int i = 1; i <= 8; i++) {
		/* RotWord(SubWord(w5)) from dword 1 of b. */
		__m128i pa = prefix_xor(a), s = sub_rot_word(b, 1, rc);
		a = _mm_xor_si128(pa, s);
		/* words 4..5: b ^ (b << 32) ^ w3 of the new a, w3 = pa3 ^ s */
		b = _mm_xor_si128(b, _mm_slli_si128(b, 4));
		b = _mm_xor_si128(early(_mm_xor_si128(b, _mm_shuffle_epi32(pa, 0xff))), s);
		if (i % 2) { /* words 6i-2..6i+1, then 6i+2..6i+5 */
			put_key(rk, 3 * (i - 1) / 2 + 1, _mm_unpacklo_epi64(b0, a), 12, dec);
			put_key(rk, 3 * (i - 1) / 2 + 2, _mm_alignr_epi8(b, a, 8), 12, dec);
		} else {
			put_key(rk, 3 * i / 2, a, 12, dec);
			b0 = b;
		}
		rc = next_rcon(rc);
	}
}

/* dec: the decryption keys alone, each as soon as it exists; all 15 do
 * not fit the registers with the chain's temporaries. */
static inline __attribute__((always_inline)) TGT void expand256_to(__m128i *rk, const uint8_t *key, const int dec)
{
	__m128i a = _mm_loadu_si128((const __m128i *)key);
	__m128i b = _mm_loadu_si128((const __m128i *)(key + 16));
	uint32_t rc = 1;
	put_key(rk, 0, a, 14, dec);
	put_key(rk, 1, b, 14, dec);
	_Pragma("GCC unroll 10")
	for (int i = 1; i <= 7; i++) {
		__m128i pa = prefix_xor(a), s = sub_rot_word(b, 3, rc);
		a = _mm_xor_si128(pa, s);
		put_key(rk, 2 * i, a, 14, dec);
		if (i == 7)
			break;
		/* SubWord(w3 of a) without rotation or constant: w3 of pa, ^ s
		 * (the shuffle off the chain) */
		__m128i w3 = _mm_xor_si128(early(_mm_shuffle_epi32(pa, 0xff)), s);
		b = _mm_xor_si128(prefix_xor(b), _mm_aesenclast_si128(w3, _mm_setzero_si128()));
		put_key(rk, 2 * i + 1, b, 14, dec);
		rc = next_rcon(rc);
	}
}

/* The schedule of one direction: encryption (dec 0) or the equivalent
 * inverse cipher's (dec 1). */
static inline __attribute__((always_inline)) TGT int expand_to(fb_aes_x86_ks *ks, const uint8_t *key, size_t keylen,
							       const int dec)
{
	__m128i *rk = (__m128i *)(dec ? ks->dk : ks->ek);
	switch (keylen) {
	case 16: ks->rounds = 10; expand128_to(rk, key, dec); break;
	case 24: ks->rounds = 12; expand192_to(rk, key, dec); break;
	case 32: ks->rounds = 14; expand256_to(rk, key, dec); break;
	default: return FB_ERR_KEY_LENGTH;
	}
	return FB_OK;
}

/* The encryption round keys alone: on Zen 4 the inverse ones cost 10 of
 * AES-128's 71 TSC ticks of re-keying. */
TGT int fb_aes_ni_setkey_enc(void *ksp, const uint8_t *key, size_t keylen)
{
	return expand_to(ksp, key, keylen, 0);
}

/* For contexts that only decrypt (ECB, CBC and XTS decryption read dk
 * only). A block's decryption starts with the last round key, the end of
 * the schedule's chain: each key goes to dk from its register (Zen 5, key
 * setup with one block: AES-128 CBC decryption 67 -> 55 TSC ticks against
 * storing ek and loading it back). */
TGT int fb_aes_ni_setkey_dec(void *ksp, const uint8_t *key, size_t keylen)
{
	return expand_to(ksp, key, keylen, 1);
}

/* dk from the encryption round keys ek[0..nr] (FIPS 197 5.3.5). */
static TGT void inverse_keys(__m128i *dk, const __m128i *ek, unsigned nr)
{
	dk[0] = ek[nr];
	for (unsigned i = 1; i < nr; i++)
		dk[i] = _mm_aesimc_si128(ek[nr - i]);
	dk[nr] = ek[0];
}

TGT int fb_aes_ni_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	fb_aes_x86_ks *ks = ksp;
	__m128i *ek = (__m128i *)ks->ek, *dk = (__m128i *)ks->dk;
	int rc = fb_aes_ni_setkey_enc(ksp, key, keylen);
	if (rc)
		return rc;
	inverse_keys(dk, ek, ks->rounds);
	return FB_OK;
}

/* ---- One block ------------------------------------------------------------- */

/* ---- Groups of blocks -------------------------------------------------------- */

/* n blocks side by side through the rounds, n a constant once inlined.
 * Groups of 8 fill the two AES units (latency about 4 cycles). Four blocks
 * go as one group (CTR, CFB decryption) or as two pairs (below); one
 * block at a time would reload every round key per block. The last 2 or 3
 * blocks go as one group too: with the rounds unrolled, two
 * chains side by side cost little more than one (kept in a loop over the
 * rounds, groups of 2 were slower than single blocks). */
#define EACHN(n, stmt) _Pragma("GCC unroll 8") for (int j = 0; j < (n); j++) { stmt; }
#define EACH8(stmt) EACHN(8, stmt)

#define ROUND(v, k) (dec ? _mm_aesdec_si128((v), (k)) : _mm_aesenc_si128((v), (k)))

/* Rounds 1 to nr (a constant once inlined) of n blocks, unrolled. */
static inline __attribute__((always_inline)) TGT void aesn_rounds_nr(const __m128i *rk, __m128i *x, const int n,
								     const int dec, const unsigned nr)
{
	_Pragma("GCC unroll 13") for (unsigned r = 1; r < nr; r++)
		EACHN(n, x[j] = ROUND(x[j], rk[r]));
	EACHN(n, x[j] = dec ? _mm_aesdeclast_si128(x[j], rk[nr]) : _mm_aesenclast_si128(x[j], rk[nr]));
}

/* Rounds 1 to nr of n blocks already XORed with round key 0, unrolled for
 * each key length: a loop adds a counter, a compare and a branch to a
 * round's n AESENCs and key load (Sapphire Rapids class under
 * FASTBLOCK_CPU_MASK=2c00ff: groups of 8, 8 KB CTR and ECB 1.01x, AES-256
 * CBC decryption 1.014x; groups of 4, AES-192 and AES-256 0.93-0.95 of
 * the time). */
static inline __attribute__((always_inline)) TGT void aesn_rounds(const __m128i *rk, unsigned nr, __m128i *x,
								  const int n, const int dec)
{
	switch (nr) {
	case 10: aesn_rounds_nr(rk, x, n, dec, 10); return;
	case 12: aesn_rounds_nr(rk, x, n, dec, 12); return;
	default: aesn_rounds_nr(rk, x, n, dec, 14); return;
	}
}
#undef ROUND

/* dec: the equivalent inverse cipher on a decryption schedule. */
static inline __attribute__((always_inline)) TGT void aesn(const __m128i *rk, unsigned nr, __m128i *x, const int n,
							   const int dec)
{
	if (n == 1) { /* no loop at all for the longer keys' rounds */
		x[0] = dec ? fb_aes_ni_dec1(rk, nr, x[0]) : fb_aes_ni_enc1(rk, nr, x[0]);
		return;
	}
	EACHN(n, x[j] = _mm_xor_si128(x[j], rk[0]));
	aesn_rounds(rk, nr, x, n, dec);
}

#define LOAD(p, j) _mm_loadu_si128((const __m128i *)(p) + (j))
#define STORE(p, j, v) _mm_storeu_si128((__m128i *)(p) + (j), (v))

/* The round keys 0..nr copied into k (registers, once nr is a constant). */
static inline __attribute__((always_inline)) TGT void keys_copy(__m128i *k, const __m128i *rk, const unsigned nr)
{
	_Pragma("GCC unroll 15") for (unsigned r = 0; r <= nr; r++)
		k[r] = rk[r];
}

/* Four blocks as two pairs, every round key loaded first (ECB, CBC
 * decryption). As one group with a key load a round, a 64-byte ECB update
 * ran at 0.92-0.98x Nettle's speed on a store-to-load chain (the same
 * buffer updated again and again), and lost more with each instruction
 * the caller runs before it; as two pairs on keys in registers it runs
 * level with Nettle there, and on separate buffers in 0.94-1.0x the time
 * (Sapphire Rapids class, aes/aesni forced; CBC decryption 1.02-1.10x).
 * CTR and CFB decryption ran 4-7% slower so (their AES work is not on
 * the chain). AES-256 needs one key more than the 16 XMM registers hold
 * beside a pair; the compiler reloads it. */
#define PAIRS_OF_4(group) do { \
	__m128i k_[15]; \
	switch (nr) { \
	case 10: keys_copy(k_, rk, 10); group(k_, 10, 2); group(k_, 10, 2); break; \
	case 12: keys_copy(k_, rk, 12); group(k_, 12, 2); group(k_, 12, 2); break; \
	default: keys_copy(k_, rk, 14); group(k_, 14, 2); group(k_, 14, 2); break; \
	} \
} while (0)

/* Runs group(keys, nr, n) over nblocks: groups of 8, then four as four
 * (run with the group of 4) or as two pairs, then the last 1-3 blocks as
 * one group; group advances in, out and nblocks. */
#define BY_GROUPS_WITH(group, four) do { \
	while (nblocks >= 8) \
		group(rk, nr, 8); \
	if (nblocks >= 4) \
		four; \
	if (nblocks == 3) \
		group(rk, nr, 3); \
	else if (nblocks == 2) \
		group(rk, nr, 2); \
	else if (nblocks == 1) \
		group(rk, nr, 1); \
} while (0)
#define BY_GROUPS(group) BY_GROUPS_WITH(group, group(rk, nr, 4))
#define BY_GROUPS_PAIRED(group) BY_GROUPS_WITH(group, PAIRS_OF_4(group))

static inline __attribute__((always_inline)) TGT void ecb_n(const __m128i *rk, unsigned nr, uint8_t *out,
							    const uint8_t *in, const int n, int dec)
{
	__m128i x[8];
	EACHN(n, x[j] = LOAD(in, j));
	aesn(rk, nr, x, n, dec);
	EACHN(n, STORE(out, j, x[j]));
}

TGT void fb_aes_ni_encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const fb_aes_x86_ks *ks = ksp;
	const __m128i *rk = (const __m128i *)ks->ek;
	unsigned nr = ks->rounds;
#define ECB_ENC(k, r, n) (ecb_n(k, r, out, in, n, 0), in += 16 * (n), out += 16 * (n), nblocks -= (n))
	BY_GROUPS_PAIRED(ECB_ENC);
#undef ECB_ENC
}

TGT void fb_aes_ni_decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks)
{
	const fb_aes_x86_ks *ks = ksp;
	const __m128i *rk = (const __m128i *)ks->dk;
	unsigned nr = ks->rounds;
#define ECB_DEC(k, r, n) (ecb_n(k, r, out, in, n, 1), in += 16 * (n), out += 16 * (n), nblocks -= (n))
	BY_GROUPS_PAIRED(ECB_DEC);
#undef ECB_DEC
}

/* Byte-reverses the last 32-bit word only: the big-endian counter becomes
 * a little-endian dword 3 that _mm_add_epi32 can count with (and back). */
static inline TGT __m128i ctr_swap_mask(void)
{
	return _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
}

/* n counter blocks from c (advanced past them), XORed into in. */
static inline __attribute__((always_inline)) TGT void ctr_n(const __m128i *rk, unsigned nr, uint8_t *out,
							    const uint8_t *in, __m128i *c, __m128i swap, const int n)
{
	__m128i x[8];
	EACHN(n, x[j] = _mm_shuffle_epi8(_mm_add_epi32(*c, _mm_set_epi32(j, 0, 0, 0)), swap));
	*c = _mm_add_epi32(*c, _mm_set_epi32(n, 0, 0, 0));
	aesn(rk, nr, x, n, 0);
	EACHN(n, STORE(out, j, _mm_xor_si128(x[j], LOAD(in, j))));
}

/* Eight counter blocks from c whose last byte is a multiple of 8: they
 * differ from the first only in bits 0-2 of that byte, so after round key
 * 0 they are w = c ^ rk[0] and w ^ j. That is one XOR a block where
 * ctr_n has an add, a byte shuffle and the round-key XOR: vector work
 * that competes with AESENC for the two pipes able to run it (Zen 2-4),
 * and costs CTR about a tenth of ECB's speed on those cores. */
static inline __attribute__((always_inline)) TGT void ctr8_aligned(const __m128i *rk, unsigned nr, uint8_t *out,
								   const uint8_t *in, __m128i *c, __m128i swap)
{
	__m128i x[8];
	__m128i w = _mm_xor_si128(_mm_shuffle_epi8(*c, swap), rk[0]);
	*c = _mm_add_epi32(*c, _mm_set_epi32(8, 0, 0, 0));
	x[0] = w;
	_Pragma("GCC unroll 7") for (int j = 1; j < 8; j++)
		x[j] = _mm_xor_si128(w, _mm_set_epi32(j << 24, 0, 0, 0)); /* byte 15 */
	aesn_rounds(rk, nr, x, 8, 0);
	EACH8(STORE(out, j, _mm_xor_si128(x[j], LOAD(in, j))));
}

TGT void fb_aes_ni_ctr32(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
			 uint8_t *ctr)
{
	const fb_aes_x86_ks *ks = ksp;
	const __m128i *rk = (const __m128i *)ks->ek;
	unsigned nr = ks->rounds;
	const __m128i swap = ctr_swap_mask();
	__m128i c = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)ctr), swap);
#define CTR(k, r, n) (ctr_n(k, r, out, in, &c, swap, n), in += 16 * (n), out += 16 * (n), nblocks -= (n))
	/* Blocks up to the next counter whose last byte is a multiple of 8
	 * (the counter is public), then aligned groups of 8. A multiple of 8
	 * plus 7 carries out of no byte, so within a group only that byte
	 * changes; the next group's counter is a full 32-bit add. */
	unsigned to_aligned = (0u - ctr[15]) & 7;
	if (nblocks >= 8 + to_aligned) {
		if (to_aligned & 4)
			CTR(rk, nr, 4);
		if ((to_aligned & 3) == 3)
			CTR(rk, nr, 3);
		else if ((to_aligned & 3) == 2)
			CTR(rk, nr, 2);
		else if (to_aligned & 1)
			CTR(rk, nr, 1);
		do {
			ctr8_aligned(rk, nr, out, in, &c, swap);
			in += 128, out += 128, nblocks -= 8;
		} while (nblocks >= 8);
	}
	BY_GROUPS(CTR);
#undef CTR
	_mm_storeu_si128((__m128i *)ctr, _mm_shuffle_epi8(c, swap));
}

/* n blocks of CBC decryption after *prev (advanced to the last ciphertext
 * block). All inputs are loaded before any output is stored, so out == in
 * works. */
static inline __attribute__((always_inline)) TGT void cbc_dec_n(const __m128i *rk, unsigned nr, uint8_t *out,
								const uint8_t *in, __m128i *prev, const int n)
{
	__m128i x[8], c[8];
	EACHN(n, c[j] = x[j] = LOAD(in, j));
	aesn(rk, nr, x, n, 1);
	STORE(out, 0, _mm_xor_si128(x[0], *prev));
	_Pragma("GCC unroll 7") for (int j = 1; j < n; j++)
		STORE(out, j, _mm_xor_si128(x[j], c[j - 1]));
	*prev = c[n - 1];
}

TGT void fb_aes_ni_cbc_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
			   uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	const __m128i *rk = (const __m128i *)ks->dk;
	unsigned nr = ks->rounds;
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
#define CBC_DEC(k, r, n) (cbc_dec_n(k, r, out, in, &prev, n), in += 16 * (n), out += 16 * (n), nblocks -= (n))
	BY_GROUPS_PAIRED(CBC_DEC);
#undef CBC_DEC
	_mm_storeu_si128((__m128i *)iv, prev);
}

/* n blocks of CFB decryption after *prev: the keystream of block i is the
 * encryption of ciphertext block i-1. Inputs first, so out == in works. */
static inline __attribute__((always_inline)) TGT void cfb_dec_n(const __m128i *rk, unsigned nr, uint8_t *out,
								const uint8_t *in, __m128i *prev, const int n)
{
	__m128i x[8], c[8];
	EACHN(n, c[j] = LOAD(in, j));
	x[0] = *prev;
	_Pragma("GCC unroll 7") for (int j = 1; j < n; j++)
		x[j] = c[j - 1];
	aesn(rk, nr, x, n, 0);
	EACHN(n, STORE(out, j, _mm_xor_si128(x[j], c[j])));
	*prev = c[n - 1];
}

TGT void fb_aes_ni_cfb_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
			   uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	const __m128i *rk = (const __m128i *)ks->ek;
	unsigned nr = ks->rounds;
	__m128i prev = _mm_loadu_si128((const __m128i *)iv);
#define CFB_DEC(k, r, n) (cfb_dec_n(k, r, out, in, &prev, n), in += 16 * (n), out += 16 * (n), nblocks -= (n))
	BY_GROUPS(CFB_DEC);
#undef CFB_DEC
	_mm_storeu_si128((__m128i *)iv, prev);
}

/* ---- CBC encryption (serial) ------------------------------------------------ */

/* The encryption round keys of an nr-round schedule, in registers once nr
 * is a constant (the serial chains below are inlined per key length). */
static inline __attribute__((always_inline)) TGT void keys_in(__m128i *k, const fb_aes_x86_ks *ks,
							      const unsigned nr)
{
	keys_copy(k, (const __m128i *)ks->ek, nr);
}

/* Rounds 1 .. nr-1 of one block. */
static inline __attribute__((always_inline)) TGT __m128i middle_rounds(__m128i x, const __m128i *k,
								       const unsigned nr)
{
	_Pragma("GCC unroll 14") for (unsigned i = 1; i < nr; i++)
		x = _mm_aesenc_si128(x, k[i]);
	return x;
}

/* One block's latency is the chain of nr AES rounds; the XOR of the next
 * plaintext and round key 0 is folded into the last round's key:
 *   y = AESENCLAST(x, k[nr] ^ k[0] ^ p_next) = c ^ k[0] ^ p_next,
 * which is the next block's state after its first AddRoundKey, and the
 * ciphertext c = y ^ k[0] ^ p_next is computed off the chain. nr is a
 * constant after inlining so the keys stay in registers. */
static inline __attribute__((always_inline)) TGT void
cbc_enc_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv,
	   const unsigned nr)
{
	__m128i k[15], x;

	keys_in(k, ks, nr);
	/* State of block 0 after AddRoundKey. */
	x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)iv), _mm_xor_si128(LOAD(in, 0), k[0]));
	for (;;) {
		x = middle_rounds(x, k, nr);
		if (--n == 0)
			break;
		__m128i pk = _mm_xor_si128(LOAD(in, 1), k[0]);
		x = _mm_aesenclast_si128(x, _mm_xor_si128(k[nr], pk));
		STORE(out, 0, _mm_xor_si128(x, pk));
		in += 16;
		out += 16;
	}
	x = _mm_aesenclast_si128(x, k[nr]);
	STORE(out, 0, x);
	_mm_storeu_si128((__m128i *)iv, x);
}

/* CBC encryption of nblocks with chaining value iv[] (updated to the last
 * ciphertext block); out == in works: the cbc_enc hook. */
TGT void fb_aes_ni_cbc_enc(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
			   uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	if (nblocks)
		BY_ROUNDS(ks, cbc_enc_nr, ks, out, in, nblocks, iv);
}

/* ---- CFB and CFB8 encryption (serial) --------------------------------------- */

/* CFB: C_i = P_i ^ E(C_i-1). The chain is the nr rounds alone, as in CBC
 * encryption: the last round's key takes P_i ^ k[0], so that its output
 * C_i ^ k[0] is the next block's state after AddRoundKey. */
static inline __attribute__((always_inline)) TGT void
cfb_enc_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv,
	   const unsigned nr)
{
	__m128i k[15], x;

	keys_in(k, ks, nr);
	x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)iv), k[0]);
	for (; n; n--, in += 16, out += 16) {
		x = middle_rounds(x, k, nr);
		__m128i pk = _mm_xor_si128(LOAD(in, 0), k[0]);
		x = _mm_aesenclast_si128(x, _mm_xor_si128(k[nr], pk));
		STORE(out, 0, _mm_xor_si128(x, k[0]));
	}
	_mm_storeu_si128((__m128i *)iv, _mm_xor_si128(x, k[0]));
}

/* CFB encryption of whole blocks; iv[] becomes the last ciphertext block:
 * the cfb_enc hook. */
TGT void fb_aes_ni_cfb_enc(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks,
			   uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	if (nblocks)
		BY_ROUNDS(ks, cfb_enc_nr, ks, out, in, nblocks, iv);
}

/* OFB: O_i = E(O_i-1), C_i = P_i ^ O_i, either way. The last round's key
 * k[nr] ^ k[0] makes its output O_i ^ k[0], the next block's state after
 * AddRoundKey, so the chain is the nr rounds alone; the XOR with the data
 * runs beside it. */
static inline __attribute__((always_inline)) TGT void
ofb_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv, const unsigned nr)
{
	__m128i k[15], x;

	keys_in(k, ks, nr);
	__m128i last = _mm_xor_si128(k[nr], k[0]);
	x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)iv), k[0]);
	for (; n; n--, in += 16, out += 16) {
		__m128i pk = _mm_xor_si128(LOAD(in, 0), k[0]);
		x = _mm_aesenclast_si128(middle_rounds(x, k, nr), last);
		STORE(out, 0, _mm_xor_si128(x, pk));
	}
	_mm_storeu_si128((__m128i *)iv, _mm_xor_si128(x, k[0]));
}

/* OFB of whole blocks, either direction; iv[] becomes the last keystream
 * block: the ofb hook. */
TGT void fb_aes_ni_ofb(const void *ksp, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	if (nblocks)
		BY_ROUNDS(ks, ofb_nr, ks, out, in, nblocks, iv);
}

/* CFB8: c = p ^ (first byte of E(R)), R = R << 8 | c. The shift register
 * stays in a register: through memory, each byte's 16-byte load of R
 * would wait for the one-byte store before it (a failed store forwarding
 * on every byte). p goes into the last round's key, so the chain is the
 * nr rounds, a byte shift and one XOR with (R >> 8) ^ k[0], made beside
 * the rounds. */
static inline __attribute__((always_inline)) TGT void
cfb8_enc_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t len, uint8_t *iv,
	    const unsigned nr)
{
	__m128i k[15], r, x;

	keys_in(k, ks, nr);
	r = _mm_loadu_si128((const __m128i *)iv);
	x = _mm_xor_si128(r, k[0]);
	for (size_t j = 0; j < len; j++) {
		__m128i next = _mm_srli_si128(r, 1);
		__m128i next_k = _mm_xor_si128(next, k[0]);
		x = middle_rounds(x, k, nr);
		x = _mm_aesenclast_si128(x, _mm_xor_si128(k[nr], _mm_cvtsi32_si128(in[j])));
		out[j] = (uint8_t)_mm_cvtsi128_si32(x);
		__m128i c = _mm_slli_si128(x, 15);
		r = _mm_xor_si128(next, c);
		x = _mm_xor_si128(next_k, c);
	}
	_mm_storeu_si128((__m128i *)iv, r);
}

/* CFB8 encryption of len bytes; iv[] is the shift register: the cfb8_enc
 * hook. */
TGT void fb_aes_ni_cfb8_enc(const void *ksp, uint8_t *out, const uint8_t *in, size_t len,
			    uint8_t *iv)
{
	const fb_aes_x86_ks *ks = ksp;
	if (len)
		BY_ROUNDS(ks, cfb8_enc_nr, ks, out, in, len, iv);
}

/* ---- XTS -------------------------------------------------------------------- */

/* The n <= 8 tweaks of a group from its first, t, which is advanced past
 * them. A tweak times alpha in GF(2^128), IEEE 1619 order (the block as a
 * little-endian integer), is every qword doubled, the carry out of qword
 * 0 into qword 1, and x^128 = x^7 + x^2 + x + 1 (0x87) for the carry out
 * of the top. Each doubling's carries come from a shadow of t's sign
 * dwords, shuffled once a group to where the carries land (dword 3's sign
 * to the 0x87 in dword 0, dword 1's to bit 0 of dword 2) and doubled
 * beside t: after k < 9 doublings its dwords' signs are still t's. So a
 * doubling is one shift and four simple operations (alone it needs a
 * shift and a shuffle): the shift and shuffle pipes are the ones the AES
 * rounds compete for (8 KB XTS on Zen 5 under the AVX2 mask, before the
 * key fold below: 4.6-4.8 TSC ticks a block, 6.9 with eight chained
 * doublings). */
static inline __attribute__((always_inline)) TGT void xts_tweaksn(__m128i *tw, __m128i *t, const int n)
{
	const __m128i poly = _mm_set_epi32(0, 1, 0, 0x87);
	__m128i r = _mm_shuffle_epi32(*t, 0x13), x = *t;
	EACHN(n, tw[j] = x; x = _mm_xor_si128(_mm_add_epi64(x, x), _mm_and_si128(_mm_srai_epi32(r, 31), poly));
	      r = _mm_add_epi32(r, r));
	*t = x;
}

/* A group of n < 8 blocks side by side from tweak t, advanced past them:
 * the group's tweaks come two operations apart (xts_tweaksn), so the last
 * block's rounds start a few cycles after the first's, where one block
 * at a time kept the rounds of a 64-byte unit in one loop. */
static inline __attribute__((always_inline)) TGT void xts_group(const __m128i *rk, unsigned nr, uint8_t *out,
								const uint8_t *in, __m128i *t, const int n, int dec)
{
	__m128i tw[8], x[8];
	xts_tweaksn(tw, t, n);
	EACHN(n, x[j] = _mm_xor_si128(LOAD(in, j), _mm_xor_si128(tw[j], rk[0])));
	aesn_rounds(rk, nr, x, n, dec);
	EACHN(n, STORE(out, j, _mm_xor_si128(x[j], tw[j])));
}

/* Fewer than 8 blocks from t: a group of 4, then the last 1-3 as one;
 * returns the tweak past them. */
static inline __attribute__((always_inline)) TGT __m128i xts_short(const __m128i *rk, unsigned nr, uint8_t *out,
								    const uint8_t *in, size_t n, __m128i t, int dec)
{
	if (n >= 4) {
		xts_group(rk, nr, out, in, &t, 4, dec);
		n -= 4, in += 64, out += 64;
	}
	if (n == 3)
		xts_group(rk, nr, out, in, &t, 3, dec);
	else if (n == 2)
		xts_group(rk, nr, out, in, &t, 2, dec);
	else if (n == 1)
		xts_group(rk, nr, out, in, &t, 1, dec);
	return t;
}

/* The next eight tweaks after (lo, hi) into tw (two qwords each), and
 * (lo, hi) past them: the same doubling on the integer pipes, which the
 * AES rounds do not use. A doubling is add, add with carry and the carry
 * as a mask, five operations where shifts and ORs took eight: at six
 * operations a cycle (Zen 3 and 4) the integer work of a group is near the
 * AES rounds' own time (8 KB XTS under the AVX2 mask on Zen 4: best of
 * runs 8.9-9.3 -> 9.3-9.6 GB/s). The stores are volatile so that they stay
 * two 8-byte stores each, with no vector operations to merge them. */
static inline __attribute__((always_inline)) TGT void xts_tweaks8_gpr(uint64_t tw[16], uint64_t *lo, uint64_t *hi)
{
	uint64_t l = *lo, h = *hi;
	for (int j = 0; j < 8; j++) {
		((volatile uint64_t *)tw)[2 * j] = l, ((volatile uint64_t *)tw)[2 * j + 1] = h;
		unsigned long long l2, h2;
		unsigned char c = _addcarry_u64(_addcarry_u64(0, l, l, &l2), h, h, &h2);
		l = l2 ^ (0x87 & (0 - (uint64_t)c)), h = h2;
	}
	*lo = l, *hi = h;
}

/* A tweak of xts_tweaks8_gpr, loaded as the two qwords it was stored as:
 * one 16-byte load of two 8-byte stores this recent would miss store
 * forwarding and stall. */
static inline __attribute__((always_inline)) TGT __m128i xts_tweak_load(const uint64_t *q)
{
	__m128d low = _mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)q));
	return _mm_castpd_si128(_mm_loadh_pd(low, (const double *)(q + 1)));
}

/* One round of xts_long's eight blocks. The round key is loaded in its
 * round, through a pointer the compiler cannot see through: hoisted, the
 * keys took registers from the eight tweaks, which went to the stack and
 * came back each group (8 KB XTS under the AVX2 mask on Zen 4: 0.91x the
 * speed for AES-128 and AES-192, 0.98x for AES-256). */
#define XTS_ROUND8(i) do { \
		FB_KEEP(rk); \
		__m128i k_ = rk[i]; \
		if (dec) { \
			EACH8(x[j] = _mm_aesdec_si128(x[j], k_)); \
		} else { \
			EACH8(x[j] = _mm_aesenc_si128(x[j], k_)); \
		} \
	} while (0)

/* XTS over n >= 8 whole blocks from tweak next: groups of eight, then
 * the rest as xts_short; returns the tweak past them. The first group's
 * tweaks are doubled in vector registers (the shortest chain to the first round); while a group
 * runs, the next group's are doubled in integer registers, off the vector
 * pipes the rounds share with the doubling's four operations a tweak
 * (8 KB XTS under the AVX2 mask on Zen 5: 3.9 -> 3.6 TSC ticks a block).
 * The tweak joins the first and the last round keys, so the last round
 * writes the output. Out of line (xts_long_enc, xts_long_dec) and reached
 * by a tail jump: inlined, its register pressure (eight blocks, eight
 * tweaks) puts register saves on the short units' path as well (64-byte
 * units 48 ticks against 43). */
static inline __attribute__((always_inline)) TGT __m128i xts_long(const __m128i *rk, unsigned nr, uint8_t *out,
								  const uint8_t *in, size_t n, __m128i next, int dec)
{
	_Alignas(16) uint64_t tw[16];
	__m128i t[8], x[8];
	xts_tweaksn(t, &next, 8);
	uint64_t lo = (uint64_t)_mm_cvtsi128_si64(next);
	uint64_t hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(next, next));
	for (;;) {
		EACH8(x[j] = _mm_xor_si128(LOAD(in, j), _mm_xor_si128(t[j], rk[0])));
		int more = n >= 16;
		if (more)
			xts_tweaks8_gpr(tw, &lo, &hi);
		/* Rounds 1-9 unrolled: the loop's three instructions a round
		 * cost 8 KB XTS under the AVX2 mask on Zen 4 a tenth of its
		 * speed (AES-128 9.5-9.7 -> 10.5-10.8 GB/s, AES-256 7.5 -> 7.7-7.9,
		 * best of runs), its integer work being near the rounds' time. */
		_Pragma("GCC unroll 9") for (unsigned i = 1; i < 10; i++)
			XTS_ROUND8(i);
		for (unsigned i = 10; i < nr; i++)
			XTS_ROUND8(i);
		if (dec) {
			EACH8(STORE(out, j, _mm_aesdeclast_si128(x[j], _mm_xor_si128(t[j], rk[nr]))));
		} else {
			EACH8(STORE(out, j, _mm_aesenclast_si128(x[j], _mm_xor_si128(t[j], rk[nr]))));
		}
		n -= 8, in += 128, out += 128;
		if (!more)
			break;
		EACH8(t[j] = xts_tweak_load(tw + 2 * j));
	}
	/* Sixteen 8-byte stores: fb_wipe's memset and barrier here cost ~30
	 * ticks, a fifth of a 512-byte sector. */
	for (int j = 0; j < 16; j++)
		((volatile uint64_t *)tw)[j] = 0;
	next = _mm_set_epi64x((long long)hi, (long long)lo);
	return xts_short(rk, nr, out, in, n, next, dec);
}

/* xts_long out of line, one copy a direction (no test of dec in a group). */
static __attribute__((noinline)) TGT __m128i xts_long_enc(const __m128i *rk, unsigned nr, uint8_t *out,
							  const uint8_t *in, size_t n, __m128i next)
{
	return xts_long(rk, nr, out, in, n, next, 0);
}

static __attribute__((noinline)) TGT __m128i xts_long_dec(const __m128i *rk, unsigned nr, uint8_t *out,
							  const uint8_t *in, size_t n, __m128i next)
{
	return xts_long(rk, nr, out, in, n, next, 1);
}

/* XTS over n whole blocks from tweak t (the first block's, encrypted);
 * returns the tweak past the last. */
static inline __attribute__((always_inline)) TGT __m128i xts_blocks(const fb_aes_x86_ks *ks, uint8_t *out,
								     const uint8_t *in, size_t n, __m128i t,
								     int dec)
{
	const __m128i *rk = (const __m128i *)(dec ? ks->dk : ks->ek);
	unsigned nr = ks->rounds;
	if (n >= 8)
		return (dec ? xts_long_dec : xts_long_enc)(rk, nr, out, in, n, t);
	return xts_short(rk, nr, out, in, n, t, dec);
}

TGT void fb_aes_ni_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *tweak)
{
	__m128i t = _mm_loadu_si128((const __m128i *)tweak);
	_mm_storeu_si128((__m128i *)tweak, xts_blocks(ks, out, in, nblocks, t, 0));
}

TGT void fb_aes_ni_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *tweak)
{
	__m128i t = _mm_loadu_si128((const __m128i *)tweak);
	_mm_storeu_si128((__m128i *)tweak, xts_blocks(ks, out, in, nblocks, t, 1));
}

/* One data unit from its tweak as given: the tweak's encryption and the
 * first group's rounds in one function, the tweak in a register between
 * them (the xts_unit hooks). */
TGT void fb_aes_ni_xts_unit_enc(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
				const uint8_t *iv)
{
	(void)xts_blocks(ks, out, in, nblocks, fb_aes_ni_tweak(tks, iv), 0);
}

TGT void fb_aes_ni_xts_unit_dec(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
				const uint8_t *iv)
{
	(void)xts_blocks(ks, out, in, nblocks, fb_aes_ni_tweak(tks, iv), 1);
}

const fb_kernel fb_aes_aesni = {
	.name = "aes/aesni",
	.family = "aes",
	.block_size = 16,
	.cpu_needs = FB_CPU_AESNI | FB_CPU_SSSE3 | FB_CPU_SSE2,
	.constant_time = 1,
	.batch = 8,
	.short_run_min = 1,
	.ks_size = sizeof(fb_aes_x86_ks),
	.note = "AES-NI, 8 blocks interleaved, fused CTR, CBC-dec and XTS; one block for serial modes (constant time)",
	.setkey = fb_aes_ni_setkey,
	.fills_schedule = 1, /* round keys 0..rounds, and dk only where decrypt runs */
	.setkey_enc = fb_aes_ni_setkey_enc,
	.setkey_dec = fb_aes_ni_setkey_dec,
	.encrypt = fb_aes_ni_encrypt,
	.decrypt = fb_aes_ni_decrypt,
	.ctr32 = fb_aes_ni_ctr32,
	.cbc_dec = fb_aes_ni_cbc_dec,
	.cfb_dec = fb_aes_ni_cfb_dec,
	.cfb_enc = fb_aes_ni_cfb_enc,
	.cfb8_enc = fb_aes_ni_cfb8_enc,
	.ofb = fb_aes_ni_ofb,
	.cbc_enc = fb_aes_ni_cbc_enc,
	.xts_enc = fb_aes_ni_xts_enc,
	.xts_dec = fb_aes_ni_xts_dec,
	.xts_unit_enc = fb_aes_ni_xts_unit_enc,
	.xts_unit_dec = fb_aes_ni_xts_unit_dec,
};

#endif /* FB_X86 */
