/*
 * aes/vaes-avx2 - AES with 256-bit VAES: two blocks per YMM register,
 * eight registers (16 blocks) interleaved.
 *
 * Why eight: VAESENC on a YMM register has a latency of 3-5 cycles and
 * (on current cores) a throughput of two per cycle, so 6-10 independent
 * chains keep the AES units busy; eight blocks registers plus a round
 * key, the counter state and the byte-swap mask fit in the 16 YMM
 * registers. The round keys come from the shared AES-NI key schedule,
 * broadcast where a round uses them or, in long ECB runs and in CBC and
 * CFB decryption, once a call (load_keys, KEY_AT below).
 *
 * Tails: passes of 4, 2 and 1 registers (8, 4, 2 blocks), and a last odd
 * block through AES-NI; no access outside the caller's blocks.
 *
 * XTS: a pass's 16 tweaks are the last pass's times alpha^16 (a byte
 * shift and one VPCLMULQDQ a register), made before its rounds; VPCLMULQDQ
 * is why the kernel needs FB_CPU_VPCLMUL (every VAES CPU has it).
 *
 * Constant time: VAES instructions take data-independent time; no table
 * lookups; branches depend only on the key length and block counts.
 */
#include "../internal.h"
#include "aes_kernels.h"
#include "aes_x86.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx2,vaes,vpclmulqdq,pclmul,aes,ssse3")
#define INLINE static inline __attribute__((always_inline))

#define EACH(n, stmt) _Pragma("GCC unroll 8") for (int j = 0; j < (n); j++) { stmt; }
#define EACHROUND(stmt) _Pragma("GCC unroll 14") for (int i = 1; i < nr; i++) { stmt; }

/* Round keys rk[0..nr], 16 bytes each, broadcast into both 128-bit lanes.
 * Every function below is inlined with nr a constant (10, 12 or 14), so
 * the rounds unroll. Two forms: KEY_AT broadcasts a key from memory where
 * a round uses it (VBROADCASTI128 from memory is a load); load_keys puts
 * them in registers once a call. Eight blocks registers and 11-15 keys do
 * not fit in 16 registers, and the compiler's spills of the second form
 * cost a stack store and reload per key per call: a call of one to three
 * passes took up to 1.26x the time (AMD Zen 4 under the AVX2 mask,
 * bench/limits.md). Long ECB runs, and CBC and CFB decryption, keep the
 * register form; CTR and XTS run from memory throughout. */
typedef const uint8_t (*rkeys)[16];
#define KEY_AT(rk, i) _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)(rk)[i]))

INLINE TGT void load_keys(__m256i *k, rkeys rk, int nr)
{
	_Pragma("GCC unroll 15") for (int i = 0; i <= nr; i++)
		k[i] = KEY_AT(rk, i);
}

/* Key i from registers kr when given, else from memory (rk). Every caller
 * passes kr as a local array or NULL, so the test folds away. */
#define KEY(i) (kr ? kr[i] : KEY_AT(rk, i))

/* ECB runs of at least this many blocks load their keys into registers
 * once (at 64 blocks the two forms are level). */
#define KEYS_IN_REGS_MIN 64

INLINE TGT void enc_y(const __m256i *kr, rkeys rk, int nr, __m256i *x, int nz)
{
	EACH(nz, x[j] = _mm256_xor_si256(x[j], KEY(0)));
	EACHROUND(EACH(nz, x[j] = _mm256_aesenc_epi128(x[j], KEY(i))));
	EACH(nz, x[j] = _mm256_aesenclast_epi128(x[j], KEY(nr)));
}

INLINE TGT void dec_y(const __m256i *kr, rkeys rk, int nr, __m256i *x, int nz)
{
	EACH(nz, x[j] = _mm256_xor_si256(x[j], KEY(0)));
	EACHROUND(EACH(nz, x[j] = _mm256_aesdec_epi128(x[j], KEY(i))));
	EACH(nz, x[j] = _mm256_aesdeclast_epi128(x[j], KEY(nr)));
}

/* Calls body(..., nr) with nr a constant. */
#define LOADY(p, j) _mm256_loadu_si256((const __m256i *)((p) + 32 * (j)))
#define STOREY(p, j, v) _mm256_storeu_si256((__m256i *)((p) + 32 * (j)), (v))

/* ---- ECB ------------------------------------------------------------------- */

/* 2 * nz blocks; dir 0 encrypts, 1 decrypts. */
INLINE TGT void ecb_pass(const __m256i *kr, rkeys rk, int nr, uint8_t *out, const uint8_t *in, int nz,
			 int dir)
{
	__m256i x[8];
	EACH(nz, x[j] = LOADY(in, j));
	if (dir)
		dec_y(kr, rk, nr, x, nz);
	else
		enc_y(kr, rk, nr, x, nz);
	EACH(nz, STOREY(out, j, x[j]));
}

/* Whole registers only; returns with n < 2. */
INLINE TGT void ecb_nr(const fb_aes_x86_ks *ks, uint8_t **outp, const uint8_t **inp, size_t *np,
		       int dir, int nr)
{
	uint8_t *out = *outp;
	const uint8_t *in = *inp;
	size_t n = *np;
	rkeys rk = dir ? ks->dk : ks->ek;

	if (n >= KEYS_IN_REGS_MIN) {
		__m256i kr[15];
		load_keys(kr, rk, nr);
		for (; n >= 16; n -= 16, in += 256, out += 256)
			ecb_pass(kr, rk, nr, out, in, 8, dir);
	}
	for (; n >= 16; n -= 16, in += 256, out += 256)
		ecb_pass(NULL, rk, nr, out, in, 8, dir);
	if (n >= 8) {
		ecb_pass(NULL, rk, nr, out, in, 4, dir);
		n -= 8, in += 128, out += 128;
	}
	if (n >= 4) {
		ecb_pass(NULL, rk, nr, out, in, 2, dir);
		n -= 4, in += 64, out += 64;
	}
	if (n >= 2) {
		ecb_pass(NULL, rk, nr, out, in, 1, dir);
		n -= 2, in += 32, out += 32;
	}
	*outp = out, *inp = in, *np = n;
}

/* Up to four blocks go to AES-NI's one group: the 256-bit pass loads its
 * round keys into registers first (bench/limits.md, the ladders). */
enum { ECB_XMM_MAX = 4 };

static TGT void encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n <= ECB_XMM_MAX) {
		fb_aes_ni_encrypt(ks, out, in, n);
		return;
	}
	BY_ROUNDS(ks, ecb_nr, ks, &out, &in, &n, 0);
	if (n)
		fb_aes_ni_encrypt(ks, out, in, 1);
}

static TGT void decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n <= ECB_XMM_MAX) {
		fb_aes_ni_decrypt(ks, out, in, n);
		return;
	}
	BY_ROUNDS(ks, ecb_nr, ks, &out, &in, &n, 1);
	if (n)
		fb_aes_ni_decrypt(ks, out, in, 1);
}

/* ---- CTR ------------------------------------------------------------------- */

/* Counter blocks from counter lo (bytes 0-11 from blk), each made from
 * the first counter block on its own, so that no register waits for
 * another's addition (a lone pass, a call of 16 blocks, would wait for
 * the last at its start). When the last byte does not wrap within the
 * pass, VPADDB adds to it in the big-endian block; otherwise the last
 * dword is counted byte-reversed (little-endian) with VPADDD and each
 * block swapped back with VPSHUFB. */
INLINE TGT void ctr_blocks(__m256i *x, int nz, __m128i blk, uint32_t lo)
{
	if ((lo & 0xFF) + 2 * (unsigned)nz <= 256) {
		const __m256i b = _mm256_broadcastsi128_si256(_mm_insert_epi32(blk, (int)__builtin_bswap32(lo), 3));
		EACH(nz, x[j] = _mm256_add_epi8(b, _mm256_set_epi32((2 * j + 1) << 24, 0, 0, 0, (2 * j) << 24, 0, 0, 0)));
		return;
	}
	const __m256i swap = _mm256_broadcastsi128_si256(
		_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
	const __m256i c = _mm256_broadcastsi128_si256(_mm_insert_epi32(blk, (int)lo, 3));
	EACH(nz, x[j] = _mm256_shuffle_epi8(_mm256_add_epi32(c, _mm256_set_epi32(2 * j + 1, 0, 0, 0, 2 * j, 0, 0, 0)),
					     swap));
}

/* 2 * nz blocks of keystream from counter lo (bytes 0-11 from blk), XORed
 * into in -> out. */
INLINE TGT void ctr_pass(rkeys rk, int nr, uint8_t *out, const uint8_t *in, int nz,
			 __m128i blk, uint32_t lo)
{
	__m256i x[8];
	ctr_blocks(x, nz, blk, lo);
	/* The rounds, with the input XORed into the last round key. */
	EACH(nz, x[j] = _mm256_xor_si256(x[j], KEY_AT(rk, 0)));
	EACHROUND(const __m256i ki = KEY_AT(rk, i); EACH(nz, x[j] = _mm256_aesenc_epi128(x[j], ki)));
	const __m256i kl = KEY_AT(rk, nr);
	EACH(nz, STOREY(out, j, _mm256_aesenclast_epi128(x[j], _mm256_xor_si256(kl, LOADY(in, j)))));
}

/* Whole registers only; returns with n < 2 and ctr[] advanced. Every
 * pass makes its counters from lo (ctr_blocks): nothing is carried from
 * pass to pass, so the out-of-order window makes a pass's counters during
 * the pass before, and no counter needs to be a multiple of 16 first
 * (bench/limits.md). */
INLINE TGT void ctr_nr(const fb_aes_x86_ks *ks, uint8_t **outp, const uint8_t **inp, size_t *np,
		       uint8_t *ctr, int nr)
{
	uint8_t *out = *outp;
	const uint8_t *in = *inp;
	size_t n = *np;
	const __m128i blk = _mm_loadu_si128((const __m128i *)ctr);
	uint32_t lo = fb_load32_be(ctr + 12);
	rkeys k = ks->ek;

	for (; n >= 16; n -= 16, in += 256, out += 256, lo += 16)
		ctr_pass(k, nr, out, in, 8, blk, lo);
	if (n >= 8) {
		ctr_pass(k, nr, out, in, 4, blk, lo);
		n -= 8, in += 128, out += 128, lo += 8;
	}
	if (n >= 4) {
		ctr_pass(k, nr, out, in, 2, blk, lo);
		n -= 4, in += 64, out += 64, lo += 4;
	}
	if (n >= 2) {
		ctr_pass(k, nr, out, in, 1, blk, lo);
		n -= 2, in += 32, out += 32, lo += 2;
	}
	FB_AES_CTR_PUT(ctr, blk, lo);
	*outp = out, *inp = in, *np = n;
}

static TGT void ctr32(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n >= 2)
		BY_ROUNDS(ks, ctr_nr, ks, &out, &in, &n, ctr);
	if (n)
		fb_aes_ni_ctr32(ks, out, in, n, ctr);
}

/* ---- CBC decryption -------------------------------------------------------- */

/* 2 * nz blocks. The chaining values of register j are blocks 2j-1, 2j,
 * loaded from in - 16 + 32j; for register 0 the first is the top lane of
 * *last, which receives this pass's last input register. All inputs are
 * read before any output is written, so in place works. */
INLINE TGT void cbc_pass(const __m256i *kr, rkeys rk, int nr, uint8_t *out, const uint8_t *in, int nz,
			 __m256i *last, int cfb, int ld)
{
	__m256i x[8], p[8];
	EACH(nz, x[j] = LOADY(in, j));
	/* Registers 1.. by loads at in + 32 j - 16 (ld) or by lane shuffles,
	 * one vector operation each. A call's first pass and its tails
	 * shuffle: in place, such a load spans two stores of the call before,
	 * and until those retire it waits. */
	p[0] = _mm256_permute2x128_si256(*last, x[0], 0x21);
	EACH(nz, if (j) p[j] = ld ? LOADY(in - 16, j) : _mm256_permute2x128_si256(x[j - 1], x[j], 0x21));
	*last = x[nz - 1];
	/* The rounds, with the other block XORed into the last round key:
	 * CBC D(C_i) ^ C_i-1, CFB E(C_i-1) ^ C_i. */
	if (cfb) {
		EACH(nz, p[j] = _mm256_xor_si256(p[j], KEY(0)));
		EACHROUND(EACH(nz, p[j] = _mm256_aesenc_epi128(p[j], KEY(i))));
		EACH(nz, STOREY(out, j, _mm256_aesenclast_epi128(p[j], _mm256_xor_si256(KEY(nr), x[j]))));
		return;
	}
	EACH(nz, x[j] = _mm256_xor_si256(x[j], KEY(0)));
	EACHROUND(EACH(nz, x[j] = _mm256_aesdec_epi128(x[j], KEY(i))));
	EACH(nz, STOREY(out, j, _mm256_aesdeclast_epi128(x[j], _mm256_xor_si256(KEY(nr), p[j]))));
}

/* Whole registers only; returns with n < 2 and the previous ciphertext
 * block in the top lane of *lastp. */
INLINE TGT void cbc_nr(const fb_aes_x86_ks *ks, uint8_t **outp, const uint8_t **inp, size_t *np,
		       __m256i *lastp, int cfb, int nr)
{
	uint8_t *out = *outp;
	const uint8_t *in = *inp;
	size_t n = *np;
	__m256i kr[15], last = *lastp;
	rkeys rk = cfb ? ks->ek : ks->dk;

	/* Keys in registers at every length: from memory, CBC and CFB
	 * decryption of 256-512 bytes ran 1.04-1.14x as fast but 8 KB
	 * 0.97-0.99x (bench/limits.md). */
	load_keys(kr, rk, nr);
	if (n >= 16) {
		cbc_pass(kr, rk, nr, out, in, 8, &last, cfb, 0);
		n -= 16, in += 256, out += 256;
	}
	for (; n >= 16; n -= 16, in += 256, out += 256)
		cbc_pass(kr, rk, nr, out, in, 8, &last, cfb, 1);
	if (n >= 8) {
		cbc_pass(kr, rk, nr, out, in, 4, &last, cfb, 0);
		n -= 8, in += 128, out += 128;
	}
	if (n >= 4) {
		cbc_pass(kr, rk, nr, out, in, 2, &last, cfb, 0);
		n -= 4, in += 64, out += 64;
	}
	if (n >= 2) {
		cbc_pass(kr, rk, nr, out, in, 1, &last, cfb, 0);
		n -= 2, in += 32, out += 32;
	}
	*outp = out, *inp = in, *np = n, *lastp = last;
}

/* CBC (cfb 0) or CFB (cfb 1) decryption; iv becomes the last ciphertext
 * block. An odd last block goes through AES-NI. */
INLINE TGT void chain_dec(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
			  uint8_t *iv, int cfb)
{
	uint8_t chain[16];
	__m256i last = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)iv));
	/* The new chaining value, taken before an in-place pass overwrites it. */
	_mm_storeu_si128((__m128i *)iv, _mm_loadu_si128((const __m128i *)(in + 16 * (n - 1))));
	BY_ROUNDS(ks, cbc_nr, ks, &out, &in, &n, &last, cfb);
	if (n) {
		_mm_storeu_si128((__m128i *)chain, _mm256_extracti128_si256(last, 1));
		(cfb ? fb_aes_ni_cfb_dec : fb_aes_ni_cbc_dec)(ks, out, in, 1, chain);
	}
}

/* CBC decryption of up to 4 blocks goes to AES-NI's two pairs on round
 * keys in registers: in place, 4 blocks took 35.8-36.2 TSC ticks there
 * against 38.2-38.6 here (AMD Zen 4, AES-128; AES-192 and AES-256
 * 0.96-0.99x the time); from 5 blocks level or faster here. */
#define CBC_DEC_Y_MIN 5

static TGT void cbc_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	if (n < CBC_DEC_Y_MIN)
		fb_aes_ni_cbc_dec(ksp, out, in, n, iv);
	else
		chain_dec(ksp, out, in, n, iv, 0);
}

/* CFB decryption under 8 blocks goes to AES-NI, as in aes/vaes-avx512:
 * a pass's rounds start from ciphertext shifted in by lane shuffles, and
 * an odd last block is a second call on the chain (AMD Zen 4, in-place
 * updates, forced kernels alternated, TSC ticks, AES-128 / AES-256: 2
 * blocks 38.2 / 51.6 here against 28.0 / 43.9, 4 blocks 39.4 / 53.6
 * against 32.1 / 49.4, 5 and 7 blocks 0.87-0.94x the time on AES-NI;
 * 6 blocks, three whole registers, 1.0-1.10x; 8 blocks level; from 10
 * this pass leads). */
#define CFB_DEC_Y_MIN 8

static TGT void cfb_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	if (n < CFB_DEC_Y_MIN)
		fb_aes_ni_cfb_dec(ksp, out, in, n, iv);
	else
		chain_dec(ksp, out, in, n, iv, 1);
}

/* ---- XTS ------------------------------------------------------------------- */

/* Tweaks times alpha (IEEE 1619 order, see aes_aesni.c): every qword
 * doubled, the carries out of qwords 0 and 1 to bit 0 of qword 1 and to
 * 0x87 in qword 0, from the sign dwords shuffled to where they land. */
#define XTS_POLY_Y _mm256_set_epi32(0, 1, 0, 0x87, 0, 1, 0, 0x87)
/* The reduction polynomial's low terms in each lane's low qword, for the
 * carry-less multiplies of xts_times_alpha16 and xts_times_alpha_k. */
#define XTS_CLMUL_P _mm256_set_epi64x(0, 0x87, 0, 0x87)

/* One doubling of x, its carries from the shadow r of x's sign dwords
 * (shuffled to where the carries land), which is doubled beside it. */
INLINE TGT __m256i xts_step(__m256i x, __m256i *r)
{
	__m256i c = _mm256_and_si256(_mm256_srai_epi32(*r, 31), XTS_POLY_Y);
	*r = _mm256_add_epi32(*r, *r);
	return _mm256_xor_si256(_mm256_add_epi64(x, x), c);
}

INLINE TGT __m256i xts_double(__m256i t)
{
	__m256i r = _mm256_shuffle_epi32(t, 0x13);
	return xts_step(t, &r);
}

/* The tweaks of nz registers from *t (register j's pair is the first times
 * alpha^2j), and *t advanced past them. One shadow serves the whole chain
 * (valid for fewer than 28 doublings), so a doubling costs one shift: on
 * Intel shifts and VAESENC share two ports. A chain of doublings, not
 * each power on its own: a power of alpha by shifts costs eleven
 * operations, five of them shifts, and those made 8- to 10-block units
 * 1.07-1.15x slower (Sapphire Rapids class, aes/vaes-avx2 forced). */
INLINE TGT void xts_tweaks_y(__m256i *tw, __m256i *t, const int nz)
{
	__m256i r = _mm256_shuffle_epi32(*t, 0x13), x = *t;
	EACH(nz, tw[j] = x; x = xts_step(x, &r); x = xts_step(x, &r));
	*t = x;
}

/* 2 * nz blocks; *t holds the tweaks of the first two, and on return of
 * the next two (register j's pair is the first times alpha^2j). */
INLINE TGT void xts_pass(rkeys k, int nr, uint8_t *out, const uint8_t *in, int nz, __m256i *t,
			 int dir)
{
	__m256i x[8], tw[8];
	xts_tweaks_y(tw, t, nz);
	EACH(nz, x[j] = _mm256_xor_si256(LOADY(in, j), tw[j]));
	if (dir)
		dec_y(NULL, k, nr, x, nz);
	else
		enc_y(NULL, k, nr, x, nz);
	EACH(nz, STOREY(out, j, _mm256_xor_si256(x[j], tw[j])));
}

/* Each tweak times alpha^16: a two-byte shift of each 128-bit lane, the
 * 16 bits shifted out reduced by one carry-less multiply by 0x87. */
INLINE TGT __m256i xts_times_alpha16(__m256i t)
{
	__m256i red = _mm256_clmulepi64_epi128(_mm256_srli_si256(t, 14), XTS_CLMUL_P, 0x00);
	return _mm256_xor_si256(_mm256_slli_si256(t, 2), red);
}

/* Each tweak times alpha^k (0 < k < 64): both qwords shifted by k, the
 * bits leaving the low one moved into the high one, those leaving the
 * high one reduced by a carry-less multiply by 0x87. */
INLINE TGT __m256i xts_times_alpha_k(__m256i t, int k)
{
	__m256i out = _mm256_srli_epi64(t, 64 - k);
	__m256i red = _mm256_clmulepi64_epi128(_mm256_srli_si256(out, 8), XTS_CLMUL_P, 0x00);
	return _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(t, k), _mm256_slli_si256(out, 8)), red);
}

/* 16 blocks on the tweaks tw[0..7]; the next 16 blocks' go to nx first
 * (each register's times alpha^16: four operations, no chain from one
 * register to the next), ahead of the rounds: at the pass's end they
 * would wait behind its AES operations for the scheduler, and the next
 * pass's first round behind them. The tweak joins the first and the last
 * round keys. */
INLINE TGT void xts_pass16(rkeys k, int nr, uint8_t *out, const uint8_t *in, const __m256i *restrict tw,
			   __m256i *restrict nx, int more, int dir)
{
	__m256i x[8];
	if (more)
		EACH(8, nx[j] = xts_times_alpha16(tw[j]));
	EACH(8, x[j] = _mm256_xor_si256(LOADY(in, j), _mm256_xor_si256(tw[j], KEY_AT(k, 0))));
	if (dir) {
		EACHROUND(EACH(8, x[j] = _mm256_aesdec_epi128(x[j], KEY_AT(k, i))));
		EACH(8, STOREY(out, j, _mm256_aesdeclast_epi128(x[j], _mm256_xor_si256(tw[j], KEY_AT(k, nr)))));
	} else {
		EACHROUND(EACH(8, x[j] = _mm256_aesenc_epi128(x[j], KEY_AT(k, i))));
		EACH(8, STOREY(out, j, _mm256_aesenclast_epi128(x[j], _mm256_xor_si256(tw[j], KEY_AT(k, nr)))));
	}
}

/* Whole passes of 16 blocks from the tweak pair *t (T, T alpha); returns
 * with n < 16 and *t the next pair. The first pass's tweaks are the pair
 * times alpha^2j, each register on its own (a chain of doublings would
 * hold the first rounds back); from there on each register's tweaks are
 * its last pass's times alpha^16, two sets in memory taking turns (eight
 * blocks registers and eight of tweaks, with a round key and the
 * products, are more than the 16).
 * VPCLMULQDQ is constant-time; no address depends on the tweaks. */
INLINE TGT void xts_passes(rkeys k, int nr, uint8_t **outp, const uint8_t **inp, size_t *np,
			   __m256i *t, int dir)
{
	_Alignas(32) __m256i tw[2][8];
	uint8_t *out = *outp;
	const uint8_t *in = *inp;
	size_t n = *np;
	int b = 0;
	tw[0][0] = *t;
	EACH(7, tw[0][j + 1] = xts_times_alpha_k(*t, 2 * (j + 1)));
	for (; n >= 16; n -= 16, in += 256, out += 256, b ^= 1)
		xts_pass16(k, nr, out, in, tw[b], tw[b ^ 1], n >= 32, dir);
	*t = xts_times_alpha16(tw[b ^ 1][0]);
	fb_wipe(tw, sizeof tw);
	*outp = out, *inp = in, *np = n;
}

/* Whole registers only; returns with n < 2 and tweak[] advanced. */
INLINE TGT void xts_nr(const fb_aes_x86_ks *ks, uint8_t **outp, const uint8_t **inp, size_t *np,
		       __m128i *tweak, int dir, int nr)
{
	uint8_t *out = *outp;
	const uint8_t *in = *inp;
	size_t n = *np;
	rkeys k = dir ? ks->dk : ks->ek;
	__m256i t = _mm256_broadcastsi128_si256(*tweak);
	t = _mm256_blend_epi32(t, xts_double(t), 0xF0); /* (T, T alpha) */
	if (n >= 16)
		xts_passes(k, nr, &out, &in, &n, &t, dir);
	if (n >= 8) {
		xts_pass(k, nr, out, in, 4, &t, dir);
		n -= 8, in += 128, out += 128;
	}
	if (n >= 4) {
		xts_pass(k, nr, out, in, 2, &t, dir);
		n -= 4, in += 64, out += 64;
	}
	if (n >= 2) {
		xts_pass(k, nr, out, in, 1, &t, dir);
		n -= 2, in += 32, out += 32;
	}
	*tweak = _mm256_castsi256_si128(t);
	*outp = out, *inp = in, *np = n;
}

/* Fewer blocks go to AES-NI one at a time: a pass's tweak powers cost
 * more than they save below 8 blocks (Zen 5, 64-byte XTS updates: 0.76
 * TSC ticks a byte here against 0.65; at 8 blocks 0.39 against 0.47). */
#define XTS_Y_MIN 8

INLINE TGT void xts_any(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak,
			int dir)
{
	if (n >= XTS_Y_MIN) {
		__m128i t = _mm_loadu_si128((const __m128i *)tweak);
		BY_ROUNDS(ks, xts_nr, ks, &out, &in, &n, &t, dir);
		_mm_storeu_si128((__m128i *)tweak, t);
	}
	if (n)
		(dir ? fb_aes_ni_xts_dec : fb_aes_ni_xts_enc)(ks, out, in, n, tweak);
}

static TGT void xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak)
{
	xts_any(ks, out, in, n, tweak, 0);
}

static TGT void xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak)
{
	xts_any(ks, out, in, n, tweak, 1);
}

/* A data unit of XTS_Y_MIN blocks or more from its tweak as given: the
 * tweak encrypted here, in a register, and an odd last block on its own. */
INLINE TGT void xts_unit_wide(const fb_aes_x86_ks *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t n,
			      const uint8_t *iv, int dir)
{
	__m128i t = fb_aes_ni_tweak(tks, iv);
	BY_ROUNDS(ks, xts_nr, ks, &out, &in, &n, &t, dir);
	if (n) {
		const __m128i *rk = (const __m128i *)(dir ? ks->dk : ks->ek);
		__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), t);
		x = dir ? fb_aes_ni_dec1(rk, ks->rounds, x) : fb_aes_ni_enc1(rk, ks->rounds, x);
		_mm_storeu_si128((__m128i *)out, _mm_xor_si128(x, t));
	}
}

FB_AES_XTS_UNIT_HOOK(TGT, XTS_Y_MIN, enc, 0)
FB_AES_XTS_UNIT_HOOK(TGT, XTS_Y_MIN, dec, 1)

const fb_kernel fb_aes_vaes_avx2 = {
	.name = "aes/vaes-avx2",
	.family = "aes",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX2 | FB_CPU_VAES | FB_CPU_VPCLMUL | FB_CPU_AESNI | FB_CPU_SSSE3,
	.constant_time = 1,
	.batch = 16,
	.short_run_min = 8,
	.ks_size = sizeof(fb_aes_x86_ks),
	.note = "256-bit VAES, 8 x 2 blocks interleaved, fused CTR, CBC-dec and XTS (constant time)",
	.setkey = fb_aes_ni_setkey,
	.fills_schedule = 1, /* round keys 0..rounds, and dk only where decrypt runs */
	.setkey_enc = fb_aes_ni_setkey_enc,
	.setkey_dec = fb_aes_ni_setkey_dec,
	.encrypt = encrypt,
	.decrypt = decrypt,
	.ctr32 = ctr32,
	.cbc_dec = cbc_dec,
	.cfb_dec = cfb_dec,
	.cbc_enc = fb_aes_ni_cbc_enc,
	.cfb_enc = fb_aes_ni_cfb_enc,
	.cfb8_enc = fb_aes_ni_cfb8_enc,
	.ofb = fb_aes_ni_ofb,
	.xts_enc = xts_enc,
	.xts_dec = xts_dec,
	.xts_unit_enc = xts_unit_enc,
	.xts_unit_dec = xts_unit_dec,
};

#endif /* FB_X86 */
