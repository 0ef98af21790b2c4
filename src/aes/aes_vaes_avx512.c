/*
 * aes/vaes-avx512 - AES with 512-bit VAES: four blocks per ZMM register,
 * eight registers (32 blocks) interleaved.
 *
 * Why eight: VAESENC on a ZMM register has a latency of 3-5 cycles and a
 * throughput of one per cycle, so at least five independent chains are
 * needed to keep the unit busy; eight leave slack for the loads, the
 * counter arithmetic and the XORs, and with the round key, the counter
 * state and the CBC chaining values they fit in the 32 ZMM registers.
 * The round keys are broadcast once per call from the shared AES-NI key
 * schedule and stay in registers (code specialised per key length).
 *
 * Tails: fewer than 32 blocks run as one pass of 8, 4, 2 or 1 registers
 * (the fewest that hold them); a lone block goes through AES-NI. A
 * register's last 1-3 blocks are loaded and stored by 128- and 256-bit
 * moves, not masks (load_part), and touch only the caller's blocks.
 *
 * XTS (the xts and xts_unit hooks) makes its tweaks in
 * registers: byte shifts and VPCLMULQDQ, off the AES port.
 *
 * Constant time: VAES instructions take data-independent time; no table
 * lookups; branches depend only on the key length and block counts.
 */
#include "../internal.h"
#include "aes_kernels.h"
#include "aes_x86.h"

#if FB_X86
#include <immintrin.h>

#define TGT FB_TARGET("avx512f,avx512bw,vaes,vpclmulqdq,aes,sse4.1")
#define INLINE static inline __attribute__((always_inline))

#define EACH(n, stmt) _Pragma("GCC unroll 8") for (int j = 0; j < (n); j++) { stmt; }
#define EACHROUND(stmt) _Pragma("GCC unroll 14") for (int i = 1; i < nr; i++) { stmt; }

/* The round keys 0..nr, each copied into all four 128-bit lanes. Every
 * function below is inlined with nr a constant (10, 12 or 14), so the
 * rounds unroll and the keys stay in registers for the whole call. rk is
 * made opaque so that each key length's copy broadcasts from memory
 * (VBROADCASTI32X4, a load): the compiler otherwise loads the first
 * eleven keys once for all three and broadcasts them by VSHUFI32X4 on the
 * shuffle port (Sapphire Rapids class, 64-byte updates: AES-128 CTR
 * 1.06x, ECB 1.014x, AES-256 CTR 1.04x; 8 KB level). */
INLINE TGT void load_keys(__m512i *k, const uint8_t (*rk)[16], int nr)
{
	FB_KEEP(rk);
	_Pragma("GCC unroll 15") for (int i = 0; i <= nr; i++)
		k[i] = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)rk[i]));
}

/* The nz registers of x through the nr rounds. */
INLINE TGT void enc_z(const __m512i *k, int nr, __m512i *x, int nz)
{
	EACH(nz, x[j] = _mm512_xor_si512(x[j], k[0]));
	EACHROUND(EACH(nz, x[j] = _mm512_aesenc_epi128(x[j], k[i])));
	EACH(nz, x[j] = _mm512_aesenclast_epi128(x[j], k[nr]));
}

INLINE TGT void dec_z(const __m512i *k, int nr, __m512i *x, int nz)
{
	EACH(nz, x[j] = _mm512_xor_si512(x[j], k[0]));
	EACHROUND(EACH(nz, x[j] = _mm512_aesdec_epi128(x[j], k[i])));
	EACH(nz, x[j] = _mm512_aesdeclast_epi128(x[j], k[nr]));
}

/* The blocks of register j that lie inside the first n blocks (0-4). */
INLINE size_t reg_blocks(size_t n, int j)
{
	size_t have = n > 4 * (size_t)j ? n - 4 * (size_t)j : 0;
	return have < 4 ? have : 4;
}

/* The first r (1-3) blocks at p in the low lanes, zero above, by a 128-
 * and a 256-bit load; r blocks of v stored back the same way. No masks:
 * a load cannot take its data from a masked store still in the queue, nor
 * a masked load from an ordinary one, so in place each update's loads
 * waited for the last one's stores to retire (Sapphire Rapids class, 5-7
 * blocks in place: 32.5 TSC ticks an update against 20-23 for 4). */
INLINE TGT __m512i load_part(const uint8_t *p, size_t r)
{
	if (r == 1)
		return _mm512_zextsi128_si512(_mm_loadu_si128((const __m128i *)p));
	__m512i v = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)p));
	if (r == 3)
		v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(p + 32)), 2);
	return v;
}

INLINE TGT void store_part(uint8_t *p, size_t r, __m512i v)
{
	if (r == 1) {
		_mm_storeu_si128((__m128i *)p, _mm512_castsi512_si128(v));
		return;
	}
	_mm256_storeu_si256((__m256i *)p, _mm512_castsi512_si256(v));
	if (r == 3)
		_mm_storeu_si128((__m128i *)(p + 32), _mm512_extracti32x4_epi32(v, 2));
}

/* Loads register j of the n-block buffer p, zero beyond the end; the
 * pointer is formed only for registers that hold some of the n blocks. */
INLINE TGT __m512i load_z(const uint8_t *p, size_t n, int j)
{
	size_t r = reg_blocks(n, j);
	if (r == 4)
		return _mm512_loadu_si512(p + 64 * j);
	return r ? load_part(p + 64 * j, r) : _mm512_setzero_si512();
}

INLINE TGT void store_z(uint8_t *p, size_t n, int j, __m512i v)
{
	size_t r = reg_blocks(n, j);
	if (r == 4)
		_mm512_storeu_si512(p + 64 * j, v);
	else if (r)
		store_part(p + 64 * j, r, v);
}

/* ---- ECB ------------------------------------------------------------------- */

/* n (<= 4 * nz) blocks through nz registers; dir 0 encrypts, 1 decrypts. */
INLINE TGT void ecb_pass(const __m512i *k, int nr, uint8_t *out, const uint8_t *in, size_t n,
			 int nz, int dir)
{
	__m512i x[8];
	EACH(nz, x[j] = load_z(in, n, j));
	if (dir)
		dec_z(k, nr, x, nz);
	else
		enc_z(k, nr, x, nz);
	EACH(nz, store_z(out, n, j, x[j]));
}

INLINE TGT void ecb_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
		       int dir, int nr)
{
	__m512i k[15];
	load_keys(k, dir ? ks->dk : ks->ek, nr);
	for (; n >= 32; n -= 32, in += 512, out += 512) {
		__m512i x[8];
		EACH(8, x[j] = _mm512_loadu_si512(in + 64 * j));
		if (dir)
			dec_z(k, nr, x, 8);
		else
			enc_z(k, nr, x, 8);
		EACH(8, _mm512_storeu_si512(out + 64 * j, x[j]));
	}
	if (n > 16)
		ecb_pass(k, nr, out, in, n, 8, dir);
	else if (n > 8)
		ecb_pass(k, nr, out, in, n, 4, dir);
	else if (n > 4)
		ecb_pass(k, nr, out, in, n, 2, dir);
	else if (n > 0)
		ecb_pass(k, nr, out, in, n, 1, dir);
}

static TGT void encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n < 2)
		fb_aes_ni_encrypt(ks, out, in, n);
	else
		BY_ROUNDS(ks, ecb_nr, ks, out, in, n, 0);
}

static TGT void decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n < 2)
		fb_aes_ni_decrypt(ks, out, in, n);
	else
		BY_ROUNDS(ks, ecb_nr, ks, out, in, n, 1);
}

/* ---- CTR ------------------------------------------------------------------- */

/* Counter blocks are kept with their last dword byte-reversed
 * (little-endian) so that VPADDD counts, and each block is swapped back
 * with VPSHUFB. They are built from the block as loaded, with no trip of
 * the counter through a general register: an update's first round waits
 * on that chain, and short updates wait on each other's rounds. (Adding to
 * the last byte of the big-endian block with VPADDB when it cannot wrap,
 * as some libraries do, measured slower here.) */
#define CTR_SWAP _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))

/* The nz registers of counter blocks from *c, which advances by 4 nz. */
INLINE TGT void ctr_blocks(__m512i *x, int nz, __m512i *c)
{
	const __m512i inc4 = _mm512_broadcast_i32x4(_mm_set_epi32(4, 0, 0, 0));
	EACH(nz, x[j] = _mm512_shuffle_epi8(*c, CTR_SWAP); *c = _mm512_add_epi32(*c, inc4));
}

/* Keystream for n (<= 4 * nz) blocks from the counters *c, XORed into
 * in -> out; full: n == 4 * nz. */
INLINE TGT void ctr_pass(const __m512i *k, int nr, uint8_t *out, const uint8_t *in, size_t n,
			 int nz, __m512i *c, int full)
{
	__m512i x[8];
	ctr_blocks(x, nz, c);
	if (full) {
		/* The rounds, with the input XORed into the last round key. */
		EACH(nz, x[j] = _mm512_xor_si512(x[j], k[0]));
		EACHROUND(EACH(nz, x[j] = _mm512_aesenc_epi128(x[j], k[i])));
		EACH(nz, _mm512_storeu_si512(out + 64 * j, _mm512_aesenclast_epi128(x[j],
			_mm512_xor_si512(k[nr], _mm512_loadu_si512(in + 64 * j)))));
	} else {
		enc_z(k, nr, x, nz);
		EACH(nz, store_z(out, n, j, _mm512_xor_si512(x[j], load_z(in, n, j))));
	}
}

/* The last n (< 32) blocks from the counters *c, on keys of their own.
 * Sixteen blocks (a 256-byte update) fill four registers: the full pass,
 * with no block counts a register (AMD Zen 4: 1.05-1.07x the speed). */
INLINE TGT void ctr_tail_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, __m512i *c,
			    int nr)
{
	__m512i k[15];
	load_keys(k, ks->ek, nr);
	if (n > 16)
		ctr_pass(k, nr, out, in, n, 8, c, 0);
	else if (n == 16)
		ctr_pass(k, nr, out, in, n, 4, c, 1);
	else if (n > 8)
		ctr_pass(k, nr, out, in, n, 4, c, 0);
	else if (n > 4)
		ctr_pass(k, nr, out, in, n, 2, c, 0);
	else
		ctr_pass(k, nr, out, in, n, 1, c, 0);
}

/* A tail after full passes, out of line: with it inline the compiler kept
 * a copy of the round keys on the stack across the passes and read it
 * back after them, and those reads wait on the passes' output stores
 * whenever the stack lies at the same offset in its 4 KB page as the
 * output does (1 KB updates ~1.25x the time in such placements, Zen 4). */
static __attribute__((noinline)) TGT void ctr_tail(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in,
						   size_t n, __m512i c)
{
	BY_ROUNDS(ks, ctr_tail_nr, ks, out, in, n, &c);
}

INLINE TGT void ctr_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
		       uint8_t *ctr, int nr)
{
	const __m128i blk = _mm_loadu_si128((const __m128i *)ctr);
	const size_t total = n;
	__m512i c = _mm512_add_epi32(_mm512_shuffle_epi8(_mm512_broadcast_i32x4(blk), CTR_SWAP),
				     _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0));

	if (n < 32) {
		ctr_tail_nr(ks, out, in, n, &c, nr);
	} else {
		__m512i k[15];
		load_keys(k, ks->ek, nr);
		for (; n >= 32; n -= 32, in += 512, out += 512)
			ctr_pass(k, nr, out, in, 32, 8, &c, 1);
		if (n)
			ctr_tail(ks, out, in, n, c);
	}
	FB_AES_CTR_PUT(ctr, blk, fb_load32_be(ctr + 12) + (uint32_t)total);
}

static TGT void ctr32(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *ctr)
{
	const fb_aes_x86_ks *ks = ksp;
	if (n < 2)
		fb_aes_ni_ctr32(ks, out, in, n, ctr);
	else
		BY_ROUNDS(ks, ctr_nr, ks, out, in, n, ctr);
}

/* ---- CBC and CFB decryption ------------------------------------------------ */

/* n (<= 4 * nz) blocks of CBC decryption (cfb 0: D(C_i) ^ C_i-1) or CFB
 * decryption (cfb 1: E(C_i-1) ^ C_i). The previous blocks of register 0
 * are its blocks shifted up a lane with the top lane of *last (the
 * previous ciphertext block, which receives this pass's last input
 * register) shifted in. In a partial pass (the tail of an update) every
 * register's previous blocks are shifted in the same way, not loaded from
 * in - 16: in place, such a load straddles two of the last update's
 * stores and cannot take its data from them, and CFB's rounds start from
 * it (6-8 blocks a CFB update: 27-30 TSC ticks against 22). A full pass
 * loads them: the bytes below it were stored a pass or more ago, and
 * seven more 512-bit VALIGNQs a pass cost AMD Zen 4 2-4% at 8 KB (its
 * zmm shuffles and VAESDEC share a pipe). Every input is
 * read before any output is written, so in place works. */
INLINE TGT void cbc_pass(const __m512i *k, int nr, uint8_t *out, const uint8_t *in, size_t n,
			 int nz, __m512i *last, int full, int cfb)
{
	__m512i x[8], p[8];
	if (full) {
		EACH(nz, x[j] = _mm512_loadu_si512(in + 64 * j));
		EACH(nz, if (j) p[j] = _mm512_loadu_si512(in + 64 * j - 16));
		p[0] = _mm512_alignr_epi64(x[0], *last, 6);
	} else {
		EACH(nz, x[j] = load_z(in, n, j));
		EACH(nz, p[j] = _mm512_alignr_epi64(x[j], j ? x[j - 1] : *last, 6));
	}
	*last = x[nz - 1];
	/* The rounds, with the other block XORed into the last round key. */
	if (cfb) {
		EACH(nz, p[j] = _mm512_xor_si512(p[j], k[0]));
		EACHROUND(EACH(nz, p[j] = _mm512_aesenc_epi128(p[j], k[i])));
		EACH(nz, x[j] = _mm512_aesenclast_epi128(p[j], _mm512_xor_si512(k[nr], x[j])));
	} else {
		EACH(nz, x[j] = _mm512_xor_si512(x[j], k[0]));
		EACHROUND(EACH(nz, x[j] = _mm512_aesdec_epi128(x[j], k[i])));
		EACH(nz, x[j] = _mm512_aesdeclast_epi128(x[j], _mm512_xor_si512(k[nr], p[j])));
	}
	if (full) {
		EACH(nz, _mm512_storeu_si512(out + 64 * j, x[j]));
	} else {
		EACH(nz, store_z(out, n, j, x[j]));
	}
}

INLINE TGT void cbc_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
		       __m512i last, int cfb, int nr)
{
	__m512i k[15];
	load_keys(k, cfb ? ks->ek : ks->dk, nr);
	/* A CFB message of one pass goes as a partial one: all of it was
	 * stored by the last in-place update a moment ago, and CFB's rounds
	 * start from the previous blocks (AMD Zen 4, 512 bytes in place:
	 * 1.06-1.16x; CBC, whose rounds do not, 0.96-1.03x, and CFB from 48
	 * blocks 0.975x, so those load). */
	if (!cfb || n > 32)
		for (; n >= 32; n -= 32, in += 512, out += 512)
			cbc_pass(k, nr, out, in, 32, 8, &last, 1, cfb);
	if (n > 16)
		cbc_pass(k, nr, out, in, n, 8, &last, 0, cfb);
	else if (n > 8)
		cbc_pass(k, nr, out, in, n, 4, &last, 0, cfb);
	else if (n > 4)
		cbc_pass(k, nr, out, in, n, 2, &last, 0, cfb);
	else if (n > 0)
		cbc_pass(k, nr, out, in, n, 1, &last, 0, cfb);
}

/* CBC (cfb 0) or CFB (cfb 1) decryption; iv becomes the last ciphertext block. */
INLINE TGT void chain_dec(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
			  uint8_t *iv, int cfb)
{
	__m512i last = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)iv));
	/* The new chaining value, taken before an in-place pass overwrites it. */
	_mm_storeu_si128((__m128i *)iv, _mm_loadu_si128((const __m128i *)(in + 16 * (n - 1))));
	BY_ROUNDS(ks, cbc_nr, ks, out, in, n, last, cfb);
}

static TGT void cbc_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	if (n < 2)
		fb_aes_ni_cbc_dec(ksp, out, in, n, iv);
	else
		chain_dec(ksp, out, in, n, iv, 0);
}

/* CFB decryption under 8 blocks goes to AES-NI: its rounds start from
 * ciphertext that a pass forms by VALIGNQ (3 cycles on the chain of an
 * in-place stream) and AES-NI loads directly (Sapphire Rapids class,
 * 64-byte updates in place, MB/s: AES-128 6,148 here against 6,887,
 * AES-256 4,821 against 5,668; 7 blocks 0.96-1.02x; 8 blocks 1.19-1.22x
 * here). */
#define CFB_DEC_Z_MIN 8

static TGT void cfb_dec(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	if (n < CFB_DEC_Z_MIN)
		fb_aes_ni_cfb_dec(ksp, out, in, n, iv);
	else
		chain_dec(ksp, out, in, n, iv, 1);
}

/* ---- XTS (whole blocks; not in the kernel contract yet) --------------------- */

/* Each 128-bit lane (an IEEE 1619 tweak, little-endian) times alpha^k,
 * 0 <= k <= 56 per 64-bit element pair: the lane shifted left by k bits,
 * with the k bits shifted out of the top reduced by x^128 = x^7+x^2+x+1
 * (a carry-less product with 0x87, below 2^64 for k <= 56). */
INLINE TGT __m512i xts_mulv(__m512i t, __m512i k)
{
	const __m512i poly = _mm512_set1_epi64(0x87);
	__m512i a = _mm512_sllv_epi64(t, k);
	__m512i b = _mm512_srlv_epi64(t, _mm512_sub_epi64(_mm512_set1_epi64(64), k));
	__m512i up = _mm512_bslli_epi128(b, 8);          /* low half's carry into the high half */
	__m512i red = _mm512_clmulepi64_epi128(b, poly, 0x01); /* top bits folded back */
	return _mm512_ternarylogic_epi64(a, up, red, 0x96);
}

INLINE TGT __m512i xts_mul(__m512i t, int k)
{
	return xts_mulv(t, _mm512_set1_epi64(k));
}

/* Times alpha^(8m), 1 <= m <= 7, with byte shifts: the whole-byte shifts
 * and the carry-less multiply run on port 5, leaving port 0 (the only
 * one with 512-bit VAESENC on Intel cores, and where bit shifts run) to
 * the AES rounds. */
#define XTS_MUL8_BY(t, m) /* the m bytes shifted out, reduced back in */ \
	_mm512_xor_si512(_mm512_bslli_epi128(t, m), \
			 _mm512_clmulepi64_epi128(_mm512_bsrli_epi128(t, 16 - (m)), _mm512_set1_epi64(0x87), 0x00))
INLINE TGT __m512i xts_mul8(__m512i t, int m)
{
	/* The byte shifts take immediates: a switch that folds away once m
	 * is a constant after inlining (clang wants the literal). */
	switch (m) {
	case 1: return XTS_MUL8_BY(t, 1);
	case 2: return XTS_MUL8_BY(t, 2);
	case 3: return XTS_MUL8_BY(t, 3);
	case 4: return XTS_MUL8_BY(t, 4);
	case 5: return XTS_MUL8_BY(t, 5);
	case 6: return XTS_MUL8_BY(t, 6);
	default: return XTS_MUL8_BY(t, 7);
	}
}

/* n (<= 4 * nz) blocks; register j takes its tweaks from b[0] (lanes
 * T*alpha^0..3) or b[1] (the same times alpha^4) times alpha^(8*(j/2)).
 * A full pass advances both by alpha^32. The tweak goes in with round key
 * 0 (one VPTERNLOG) and out through the last round key. */
INLINE TGT void xts_pass(const __m512i *k, int nr, uint8_t *out, const uint8_t *in, size_t n,
			 int nz, __m512i *b, int full, int dir)
{
	__m512i x[8], t[8];
	EACH(nz, t[j] = j < 2 ? b[j] : xts_mul8(b[j & 1], j / 2));
	if (full) {
		b[0] = xts_mul8(b[0], 4);
		b[1] = xts_mul8(b[1], 4);
		EACH(nz, x[j] = _mm512_loadu_si512(in + 64 * j));
	} else {
		EACH(nz, x[j] = load_z(in, n, j));
	}
	EACH(nz, x[j] = _mm512_ternarylogic_epi64(x[j], t[j], k[0], 0x96));
	if (dir) {
		EACHROUND(EACH(nz, x[j] = _mm512_aesdec_epi128(x[j], k[i])));
		EACH(nz, x[j] = _mm512_aesdeclast_epi128(x[j], _mm512_xor_si512(k[nr], t[j])));
	} else {
		EACHROUND(EACH(nz, x[j] = _mm512_aesenc_epi128(x[j], k[i])));
		EACH(nz, x[j] = _mm512_aesenclast_epi128(x[j], _mm512_xor_si512(k[nr], t[j])));
	}
	if (full) {
		EACH(nz, _mm512_storeu_si512(out + 64 * j, x[j]));
	} else {
		EACH(nz, store_z(out, n, j, x[j]));
	}
}

INLINE TGT void xts_nr(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n,
		       __m128i *tweak, int dir, int nr)
{
	__m512i k[15], b[2];
	load_keys(k, dir ? ks->dk : ks->ek, nr);
	/* Lanes T, T*alpha, T*alpha^2, T*alpha^3, and those times alpha^4. */
	b[0] = xts_mulv(_mm512_broadcast_i32x4(*tweak),
			_mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0));
	b[1] = xts_mul(b[0], 4);
	for (; n >= 32; n -= 32, in += 512, out += 512)
		xts_pass(k, nr, out, in, 32, 8, b, 1, dir);
	/* The next tweak: lane 0 of b[0] times alpha^n for the n left. */
	*tweak = _mm512_castsi512_si128(xts_mul(b[0], (int)n));
	if (n > 16)
		xts_pass(k, nr, out, in, n, 8, b, 0, dir);
	else if (n > 8)
		xts_pass(k, nr, out, in, n, 4, b, 0, dir);
	else if (n > 4)
		xts_pass(k, nr, out, in, n, 2, b, 0, dir);
	else if (n > 0)
		xts_pass(k, nr, out, in, n, 1, b, 0, dir);
}

/* Fewer blocks go to AES-NI's XTS, whose tweak doublings overlap its
 * rounds: a pass computes its tweak powers before the rounds start
 * (Sapphire Rapids class, updates in place / apart, TSC ticks: 4 blocks
 * 38.5 / 38.5 here against 32.9 / 29.2, 5 blocks 41 / 41 against 40 / 33;
 * from 8, 40.7 / 40 against 56.7 / 45.5). */
#define XTS_Z_MIN 8

/* XTS over nblocks whole blocks with the tweak tweak[] (already the
 * encryption of the sector number under the tweak key), which is advanced
 * by alpha^nblocks; ciphertext stealing is the caller's. out == in works. */
INLINE TGT void xts_any(const fb_aes_x86_ks *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak,
			int dir)
{
	if (n < XTS_Z_MIN) {
		(dir ? fb_aes_ni_xts_dec : fb_aes_ni_xts_enc)(ks, out, in, n, tweak);
		return;
	}
	__m128i t = _mm_loadu_si128((const __m128i *)tweak);
	BY_ROUNDS(ks, xts_nr, ks, out, in, n, &t, dir);
	_mm_storeu_si128((__m128i *)tweak, t);
}

TGT void fb_aes_vaes512_xts_enc(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak)
{
	xts_any(ks, out, in, n, tweak, 0);
}

TGT void fb_aes_vaes512_xts_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *tweak)
{
	xts_any(ks, out, in, n, tweak, 1);
}

/* A data unit of XTS_Z_MIN blocks or more from its tweak as given (the
 * xts_unit hooks): the tweak is encrypted here and broadcast from a register. */
INLINE TGT void xts_unit_wide(const fb_aes_x86_ks *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t n,
			      const uint8_t *iv, int dir)
{
	__m128i t = fb_aes_ni_tweak(tks, iv);
	BY_ROUNDS(ks, xts_nr, ks, out, in, n, &t, dir);
}

FB_AES_XTS_UNIT_HOOK(TGT, XTS_Z_MIN, enc, 0)
FB_AES_XTS_UNIT_HOOK(TGT, XTS_Z_MIN, dec, 1)

const fb_kernel fb_aes_vaes_avx512 = {
	.name = "aes/vaes-avx512",
	.family = "aes",
	.block_size = 16,
	.cpu_needs = FB_CPU_AVX512F | FB_CPU_AVX512BW | FB_CPU_VAES | FB_CPU_VPCLMUL | FB_CPU_AESNI |
		     FB_CPU_SSSE3,
	.constant_time = 1,
	.batch = 32,
	.short_run_min = 8,
	.ks_size = sizeof(fb_aes_x86_ks),
	.note = "512-bit VAES, 8 x 4 blocks interleaved, fused CTR and CBC-dec (constant time)",
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
	.xts_enc = fb_aes_vaes512_xts_enc,
	.xts_dec = fb_aes_vaes512_xts_dec,
	.xts_unit_enc = xts_unit_enc,
	.xts_unit_dec = xts_unit_dec,
};

#endif /* FB_X86 */
