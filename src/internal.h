/*
 * fastblock internal contracts: CPU features, the block-kernel descriptor,
 * byte helpers. Nothing here is public; see include/fastblock.h for the API.
 */
#ifndef FB_INTERNAL_H
#define FB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fastblock.h"

/* ---- CPU features (src/cpu.c) -------------------------------------------- */

enum {
	FB_CPU_SSE2 = 1u << 0,
	FB_CPU_SSSE3 = 1u << 1,
	FB_CPU_SSE41 = 1u << 2,
	FB_CPU_AESNI = 1u << 3,
	FB_CPU_PCLMUL = 1u << 4,
	FB_CPU_AVX = 1u << 5,
	FB_CPU_AVX2 = 1u << 6,
	FB_CPU_BMI2 = 1u << 7, /* BMI1 and BMI2 both (every CPU with one has the other) */
	FB_CPU_AVX512F = 1u << 8,
	FB_CPU_AVX512BW = 1u << 9,
	FB_CPU_AVX512VL = 1u << 10,
	FB_CPU_AVX512DQ = 1u << 11,
	FB_CPU_AVX512VBMI = 1u << 12,
	FB_CPU_AVX512VBMI2 = 1u << 13,
	FB_CPU_GFNI = 1u << 14,
	FB_CPU_VAES = 1u << 15,
	FB_CPU_VPCLMUL = 1u << 16,
	FB_CPU_AVX512BITALG = 1u << 17,
	/* A property, not a feature: vpgatherdd is microcoded and slow (AMD
	 * family 17h, Zen 1 and Zen 2; Intel's cores under the GDS microcode,
	 * Skylake to Rocket Lake: fb_cpu_class). Kernels built on gathers can
	 * ask the selection to pass them over here (fb_kernel.avoid_on). */
	FB_CPU_SLOW_GATHER = 1u << 18,
	/* A property: an AMD Zen core (family 17h and later). Its four
	 * integer pipes run a one-block chain of bitsliced rounds faster than
	 * one AVX-512 lane group does, which Intel's cores do not
	 * (fb_kernel.serial_avoid_on). */
	FB_CPU_AMD_ZEN = 1u << 19,
	/* A property: a dependent chain of one-cycle vector integer operations
	 * runs slower than the same chain of scalar ones (AMD family 1Ah, Zen 5,
	 * where simple vector operations forward later). Latency-bound one-block
	 * code prefers the integer pipes there; on Zen 4 and Intel the vector
	 * form leads (fb_kernel.cpu_needs of the scalar rung). */
	FB_CPU_SLOW_VEC_CHAIN = 1u << 20,
	/* A property: PDEP and PEXT are microcoded, tens to hundreds of cycles
	 * by the mask (AMD family 17h, Zen 1 and Zen 2); one cycle of
	 * throughput elsewhere (fb_kernel.serial_avoid_on). */
	FB_CPU_SLOW_PDEP = 1u << 21,
	/* A property: BEXTR is two uops (Intel's cores since Haswell; one on
	 * AMD Zen), so short latency-bound table chains index by shifts
	 * instead (a ladder row's only_on). */
	FB_CPU_SLOW_BEXTR = 1u << 22,
};

/* The FB_CPU_ bits that are properties, not instruction sets: they say
 * where a kernel pays, not what it executes. */
#define FB_CPU_PROPERTIES \
	(FB_CPU_SLOW_GATHER | FB_CPU_AMD_ZEN | FB_CPU_SLOW_VEC_CHAIN | FB_CPU_SLOW_PDEP | FB_CPU_SLOW_BEXTR)

/* The usual AVX-512 bundle (Skylake-X and later, Zen 4). */
#define FB_CPU_AVX512 (FB_CPU_AVX512F | FB_CPU_AVX512BW | FB_CPU_AVX512VL | FB_CPU_AVX512DQ)

/* Features of this CPU, detected once (CPUID + XGETBV), then masked by the
 * environment variable FASTBLOCK_CPU_MASK (hex) if set, so tests can pretend
 * a feature is absent. */
uint32_t fb_cpu_features(void);
/* The FB_CPU_ properties (not instruction sets) of a CPU by its CPUID
 * vendor string (leaf 0: EBX, EDX, ECX) and signature (leaf 1: EAX). */
uint32_t fb_cpu_class(const char vendor[12], uint32_t sig);
/* The environment variable FASTBLOCK_IMPL, read once (NULL if unset). */
const char *fb_env_impl(void);
/* The checks of fb_options that every entry point shares (registry.c): padding
 * value and mode, known flags, and the family's strict keys for key (may be NULL
 * with key_len 0 to check the rest). */
int fb_options_check(const fb_cipher *c, const fb_options *opt, const uint8_t *key, size_t key_len);
/* Names of the feature bits set in f, space separated, into buf. */
void fb_cpu_feature_names(uint32_t f, char *buf, size_t cap);

/* ---- Block kernels --------------------------------------------------------
 *
 * One descriptor per implementation of a cipher family. A kernel knows
 * nothing of modes: it sets a key and transforms n whole blocks.
 *
 * Contract:
 *  - setkey() fills ks (ks_size bytes, 64-byte aligned, zeroed by the
 *    caller) from key/keylen and returns FB_OK, or FB_ERR_KEY_LENGTH when
 *    the family does not accept that length (the registry checks lengths
 *    too; the kernel check is a second line of defence).
 *  - encrypt()/decrypt() transform nblocks (any count >= 0) whole blocks;
 *    out == in must work; otherwise the buffers do not overlap. A kernel
 *    with a wide natural batch finishes a partial batch itself (masked or
 *    padded lanes, or block by block), never by reading or writing past
 *    the n blocks, so that a forced kernel runs every length. Whether a
 *    narrower kernel should take short runs or tails is not the kernel's
 *    choice: it is a row of the family's ladder. A kernel never checks
 *    the CPU and never calls another kernel.
 *  - No state is written outside ks during setkey and none at all after.
 *  - Optional fused paths (may be NULL; the mode layer has generic ones):
 *    ctr32() XORs the keystream of nblocks counter blocks into in -> out.
 *      The counter block ctr[] is big-endian; the kernel increments only
 *      its last 32 bits and the caller guarantees no wrap of those 32 bits
 *      inside one call. ctr[] is advanced by nblocks on return.
 *    cbc_dec() decrypts nblocks in CBC mode with chaining value iv[],
 *      which is updated to the last ciphertext block on return.
 *    cbc_enc() the same for CBC encryption (a serial kernel's hook: keys
 *      stay in registers across blocks).
 *    xts_enc()/xts_dec() run XTS over whole blocks; tweak[] is the
 *      encrypted tweak of the first block and is advanced past the last
 *      (ciphertext stealing stays in the mode layer).
 *    xts_unit_enc()/xts_unit_dec() run one whole data unit from its
 *      tweak as given (iv, not written): the tweak is encrypted with tks,
 *      the tweak key's schedule made by a kernel with the same setkey.
 */
/* ---- Multi-lane engines (fb_multi_crypt, src/modes/multi.c) ---------------
 *
 * Many independent streams, each with its own key and chaining value,
 * one per lane of a wide kernel. A job lists the streams; the drive layer
 * (src/modes/multi.c) checks every argument first, sorts the streams by
 * length, longest first, and hands out lane sets.
 *
 * Lane step contract (fb_lanes):
 *  - setkeys() fills ks (keys_size bytes, 64-byte aligned) with the keys
 *    of lanes 0..nl-1 (keys[l], keylen bytes each; nl <= max_lanes).
 *  - step() runs one block per lane: in and out hold nl blocks (lane l at
 *    l * block size), the cipher forwards (dec 0) or backwards (dec 1).
 *    The drive layer does the chaining, the gathering and the scattering.
 *  - run() (optional, instead of setkeys/step): a fused engine that runs a
 *    whole lane set, chaining included, with scratch_size bytes of 64-byte
 *    aligned scratch, which the caller wipes when the call is done: through
 *    wipe(scratch, nl) with the most lanes of any set it ran, if given (a
 *    small set touches a small part of a large scratch), else whole.
 *  - The engine pays only for sets of at least min[r].lanes[k] streams,
 *    k = 0 for one schedule (DES), 1 for EDE, whatever their length (the
 *    fused engines run only the block steps the longest stream needs), r
 *    the first row whose only_on properties this CPU has (0: any; the
 *    crossover with the next engine is the core's; a first row limited
 *    by only_on needs a second, with only_on 0, for the other CPUs); the
 *    selection (src/select.c) falls through to the next engine. */
typedef struct fb_lane_job {
	enum fb_mode mode; /* FB_CBC, FB_CFB or FB_OFB */
	int enc;
	size_t keylen;
	unsigned block_size;
	const uint8_t *const *keys;
	uint8_t *const *ivs;
	const uint8_t *const *in;
	uint8_t *const *out;
	const size_t *len;
} fb_lane_job;

typedef struct fb_lanes {
	unsigned max_lanes;
	int constant_time;
	struct fb_lanes_min {
		size_t lanes[2];
		uint32_t only_on;
	} min[2];
	size_t keys_size;
	void (*setkeys)(void *ks, const uint8_t *const *keys, size_t keylen, size_t nl);
	void (*step)(const void *ks, uint8_t *out, const uint8_t *in, size_t nl, int dec);
	size_t scratch_size;
	void (*run)(const fb_lane_job *j, const size_t *lane, size_t nl, void *scratch);
	void (*wipe)(void *scratch, size_t nl);
} fb_lanes;

typedef struct fb_kernel {
	const char *name;     /* "des/table", "aes/aesni", ... */
	const char *family;   /* "des", "aes", "rc6", "mars", "twofish", "serpent" */
	unsigned block_size;  /* 8 or 16 */
	uint32_t cpu_needs;   /* FB_CPU_* bits that must all be present */
	int constant_time;    /* 1: no secret-dependent branch or address */
	unsigned batch;       /* natural batch in blocks (1 = one at a time) */
	/* Blocks from which a CTR run straight on this kernel costs less than
	 * keystream taken from a batch made ahead (0: only a whole batch).
	 * 1 (aes/aesni's groups of 8, 4 and 1 blocks) keeps no keystream at
	 * all: taken from it, a 64-byte AES-NI update costs ~29 TSC ticks on
	 * Zen 5, straight from the kernel ~26. The VAES kernels' partial passes
	 * pay from 8 blocks (aes/vaes-avx512 on Zen 4: a 256-byte update
	 * straight from the kernel takes 0.68 of the time of one from kept
	 * keystream; 64 bytes, 1.3 times). */
	unsigned short_run_min;
	size_t ks_size;       /* bytes of key schedule (the largest key's) */
	size_t (*ks_bytes)(size_t keylen); /* NULL: ks_size for every key length */
	/* 1: setkey writes every schedule byte the kernel reads (and every
	 * kernel sharing the setkey), so a schedule needs no zeroing first
	 * (9 KB for bitsliced 3DES, about 130 TSC ticks; 2.7 KB for Serpent). */
	int fills_schedule;
	const char *note;     /* one line: technique, for `fastblock list` */
	int (*setkey)(void *ks, const uint8_t *key, size_t keylen);
	/* NULL, or setkey without what only decrypt reads (AES's inverse
	 * round keys), for contexts that never decrypt: same format. Every
	 * kernel with the same setkey has the same setkey_enc and setkey_dec
	 * (they share schedules). */
	int (*setkey_enc)(void *ks, const uint8_t *key, size_t keylen);
	/* NULL, or setkey without what only encryption reads, for contexts
	 * that never encrypt (ECB, CBC and XTS decryption; XTS's tweak key has
	 * its own schedule): same format. */
	int (*setkey_dec)(void *ks, const uint8_t *key, size_t keylen);
	void (*encrypt)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
	void (*decrypt)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
	void (*ctr32)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
		      uint8_t *ctr);
	void (*cbc_dec)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *iv);
	void (*cbc_enc)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *iv);
	/* CFB decryption of whole blocks (P_i = E(C_i-1) ^ C_i; iv becomes the
	 * last ciphertext block); NULL: the mode layer's copy-and-encrypt. */
	void (*cfb_dec)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *iv);
	/* A serial kernel's CFB encryption of whole blocks (C_i = P_i ^
	 * E(C_i-1); iv becomes the last ciphertext block) and CFB8 encryption
	 * of len bytes (iv is the shift register); NULL: the mode layer's
	 * paths over cbc_enc or one block at a time. */
	void (*cfb_enc)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *iv);
	void (*cfb8_enc)(const void *ks, uint8_t *out, const uint8_t *in, size_t len, uint8_t *iv);
	/* A serial kernel's OFB of whole blocks, either direction (iv becomes
	 * the last keystream block); NULL: through cbc_enc over zero blocks or
	 * one block at a time. */
	void (*ofb)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks, uint8_t *iv);
	void (*xts_enc)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *tweak);
	void (*xts_dec)(const void *ks, uint8_t *out, const uint8_t *in, size_t nblocks,
			uint8_t *tweak);
	void (*xts_unit_enc)(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
			     const uint8_t *iv);
	void (*xts_unit_dec)(const void *ks, const void *tks, uint8_t *out, const uint8_t *in, size_t nblocks,
			     const uint8_t *iv);
	const fb_lanes *lanes; /* NULL: no multi-lane engine */
	/* FB_CPU_* properties under which the default choice passes this
	 * kernel over for the next in its list (it can still be forced). */
	uint32_t avoid_on;
	/* Likewise, for the family's serial list only (chains of one block). */
	uint32_t serial_avoid_on;
} fb_kernel;

/* Each family lists its implementations, NULL-terminated, in order of
 * preference for parallel work (widest first); and, separately, in order
 * of preference for serial chains (lowest single-block latency first).
 * Defined in src/<family>/<family>_impls.c. */
typedef struct fb_family {
	const char *name;
	unsigned block_size;
	const fb_kernel *const *parallel; /* preference for ECB/CTR/CBC-dec/XTS */
	const fb_kernel *const *serial;   /* preference for CBC/CFB/OFB encryption */
	/* One-shot messages (fb_encrypt/fb_decrypt): the first row this CPU
	 * runs whose max the message does not exceed (and, when asked, that is
	 * constant-time) runs alone: the wide kernels' key setup would cost
	 * more than they save. Rows marked parallel_only serve only modes that
	 * run in parallel batches in that direction (a wide kernel's one-block
	 * latency loses to the serial tables). only_on (0: any CPU) limits a
	 * row to CPUs with all of those FB_CPU_ properties; the first row of
	 * a kernel this CPU takes decides for it, so a row for the same kernel
	 * after it serves the others. Ends with kernel NULL; NULL: no such
	 * rule. */
	const struct fb_small_row {
		const fb_kernel *kernel;
		size_t max;
		int parallel_only;
		uint32_t only_on;
	} *small;
	/* Short runs of parallel work, a ladder of kernels: when `wide` is
	 * the kernel in use, runs of fewer than `below` blocks go to
	 * `narrow`, which costs less to start; `narrow` may head the next row.
	 * With `tails`, the remainder of a longer run past whole batches of
	 * `wide` goes there too when it is shorter than `below` (a partial
	 * batch of `wide` costs a whole one). `narrow` keeps its own schedule
	 * unless it shares wide's setkey. keylen_max (0: any) limits a row to
	 * keys of at most that many bytes; rows for one `wide` that differ by
	 * key length name the same `narrow` (the context's size is planned
	 * before the key is known). only_on (0: any CPU) limits a row to CPUs
	 * with all of those FB_CPU_ properties; a row for the same `wide` after
	 * it then serves the others. NULL-terminated; NULL: no ladder. */
	const struct fb_ladder_row {
		const fb_kernel *wide, *narrow;
		unsigned below;
		int tails;
		size_t keylen_max;
		const char *why;
		uint32_t only_on;
	} *ladder;
	/* Cipher facts: the key lengths (bytes, one cipher key) the
	 * specification allows, and for FB_FLAG_STRICT_KEYS the keys it
	 * refuses (NULL: none; returns an FB_ERR_* code or FB_OK). */
	int (*key_ok)(size_t len);
	int (*strict_check)(const uint8_t *key, size_t len);
} fb_family;

extern const fb_family fb_family_des, fb_family_aes, fb_family_rc6, fb_family_mars,
	fb_family_twofish, fb_family_serpent;

/* Narrower kernels a ladder may add below the parallel kernel. */
#define FB_LADDER_MAX 3

/* The longest key any family takes (RC6: 255 bytes). */
#define FB_KEY_MAX 255

/* Largest key schedule any kernel may declare (checked by a test). */
#define FB_KS_MAX 12288

/* Kernels of all families (registry.c): i = 0, 1, ... until NULL. */
const fb_kernel *fb_kernel_at(size_t i);
const fb_kernel *fb_kernel_by_name(const char *name);
int fb_kernel_supported(const fb_kernel *k);
/* 1 if k is one of the registered kernels (guards against stale contexts). */
int fb_kernel_known(const fb_kernel *k);

/* ---- Byte helpers ------------------------------------------------------- */

/* On little-endian hosts the loads and stores are single moves (memcpy);
 * GCC otherwise assembles them from bytes, which also defeats store-to-load
 * forwarding between consecutive blocks. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FB_LE 1
#else
#define FB_LE 0
#endif

static inline uint32_t fb_load32_le(const uint8_t *p)
{
	if (FB_LE) { uint32_t v; memcpy(&v, p, 4); return v; }
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t fb_load32_be(const uint8_t *p)
{
	if (FB_LE) { uint32_t v; memcpy(&v, p, 4); return __builtin_bswap32(v); }
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}
static inline void fb_store32_le(uint8_t *p, uint32_t v)
{
	if (FB_LE) { memcpy(p, &v, 4); return; }
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void fb_store32_be(uint8_t *p, uint32_t v)
{
	if (FB_LE) { v = __builtin_bswap32(v); memcpy(p, &v, 4); return; }
	p[3] = (uint8_t)v; p[2] = (uint8_t)(v >> 8); p[1] = (uint8_t)(v >> 16); p[0] = (uint8_t)(v >> 24);
}
static inline uint64_t fb_load64_be(const uint8_t *p)
{
	return (uint64_t)fb_load32_be(p) << 32 | fb_load32_be(p + 4);
}
static inline void fb_store64_be(uint8_t *p, uint64_t v)
{
	fb_store32_be(p, (uint32_t)(v >> 32)); fb_store32_be(p + 4, (uint32_t)v);
}
static inline uint64_t fb_load64_le(const uint8_t *p)
{
	return (uint64_t)fb_load32_le(p) | (uint64_t)fb_load32_le(p + 4) << 32;
}
static inline void fb_store64_le(uint8_t *p, uint64_t v)
{
	fb_store32_le(p, (uint32_t)v); fb_store32_le(p + 4, (uint32_t)(v >> 32));
}
/* An XTS tweak (lo, hi: its little-endian halves) times alpha in
 * GF(2^128), IEEE 1619: x^128 = x^7 + x^2 + x + 1. */
static inline void fb_xts_double(uint64_t *lo, uint64_t *hi)
{
	uint64_t carry = *hi >> 63;
	*hi = *hi << 1 | *lo >> 63;
	*lo = *lo << 1 ^ (0x87 & (0 - carry));
}
/* out = in ^ the tweak (lo, hi), one 16-byte block. */
static inline void fb_xts_xor(uint8_t *out, const uint8_t *in, uint64_t lo, uint64_t hi)
{
	fb_store64_le(out, fb_load64_le(in) ^ lo);
	fb_store64_le(out + 8, fb_load64_le(in + 8) ^ hi);
}
/* A tweak (lo, hi) times alpha^2: two doublings (fb_xts_double) in one
 * step, the two bits shifted out of hi reduced at once. */
static inline void fb_xts_times_alpha2(uint64_t *lo, uint64_t *hi)
{
	uint64_t b127 = (uint64_t)((int64_t)*hi >> 63), b126 = (uint64_t)((int64_t)(*hi << 1) >> 63);
	*hi = *hi << 2 | *lo >> 62;
	*lo = *lo << 2 ^ (b127 & 0x10E) ^ (b126 & 0x87);
}

/* out = in ^ T for one block, and T kept at t for the second XOR. One
 * 16-byte store of T: the second XOR loads it whole, and a load that two
 * 8-byte stores cover cannot take its data from the store queue. */
static inline void fb_xts_xor_keep(uint8_t *t, uint8_t *out, const uint8_t *in, uint64_t lo, uint64_t hi)
{
#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	typedef uint64_t v2 __attribute__((vector_size(16)));
	v2 tv = { lo, hi }, x;
	memcpy(t, &tv, 16);
	memcpy(&x, in, 16);
	x ^= tv;
	memcpy(out, &x, 16);
#else
	fb_store64_le(t, lo);
	fb_store64_le(t + 8, hi);
	fb_xts_xor(out, in, lo, hi);
#endif
}

/* out = in ^ T for m blocks, their tweaks T from (*lo, *hi) on, which are
 * kept in t (16 bytes each) and advanced past. Two chains, the even and
 * the odd tweaks, each a step of alpha^2: a doubling is a dependent chain
 * of about four cycles, and one chain a block was most of what the
 * generic XTS paths (the drive layer's, block128_simd.h's tails) added to
 * ECB. */
static inline void fb_xts_first_xor(uint8_t *t, uint8_t *out, const uint8_t *in, size_t m, uint64_t *lo, uint64_t *hi)
{
	uint64_t l0 = *lo, h0 = *hi, l1 = l0, h1 = h0;
	size_t i = 0;
	fb_xts_double(&l1, &h1);
	for (; i + 2 <= m; i += 2) {
		fb_xts_xor_keep(t + 16 * i, out + 16 * i, in + 16 * i, l0, h0);
		fb_xts_xor_keep(t + 16 * i + 16, out + 16 * i + 16, in + 16 * i + 16, l1, h1);
		fb_xts_times_alpha2(&l0, &h0);
		fb_xts_times_alpha2(&l1, &h1);
	}
	if (i < m) {
		fb_xts_xor_keep(t + 16 * i, out + 16 * i, in + 16 * i, l0, h0);
		l0 = l1, h0 = h1;
	}
	*lo = l0, *hi = h0;
}
/* The tweak in bytes and the three after it, as qword pairs (the lanes of
 * a 512-bit register of tweaks). */
static inline void fb_xts_tweaks4(uint64_t q[8], const uint8_t *tweak)
{
	uint64_t lo = fb_load64_le(tweak), hi = fb_load64_le(tweak + 8);
	for (int j = 0; j < 4; j++) {
		q[2 * j] = lo, q[2 * j + 1] = hi;
		fb_xts_double(&lo, &hi);
	}
}
static inline uint32_t fb_rotl32(uint32_t x, unsigned n)
{
	n &= 31; return (x << n) | (x >> ((32 - n) & 31));
}
static inline uint32_t fb_rotr32(uint32_t x, unsigned n)
{
	n &= 31; return (x >> n) | (x << ((32 - n) & 31));
}

/* Copies n bytes, n usually a block: the block sizes become fixed-size
 * moves. Per-call paths copy a block or two, and a call into the C
 * library's memcpy for them costs more than the copy. */
static inline void fb_copy_small(void *d, const void *s, size_t n)
{
	if (n == 16)
		memcpy(d, s, 16);
	else if (n == 8)
		memcpy(d, s, 8);
	else
		memcpy(d, s, n);
}

/* Zeroes memory in a way the compiler may not drop: it must assume the
 * zeroes are read. Inline, so that the wipes of small fixed buffers on
 * the short-message paths are two stores, not a call into memset. */
static inline void fb_wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* SIMD code is compiled per function with target attributes so the
 * baseline build runs on any x86-64. */
#if defined(__x86_64__) || defined(__i386__)
#define FB_X86 1
#define FB_TARGET(x) __attribute__((target(x)))
#else
#define FB_X86 0
#define FB_TARGET(x)
#endif

/* Keeps the compiler from re-associating a sum in a chosen order (an XOR
 * tree of table lookups that finish together, or terms that arrive at
 * different times): v must be in a register here, as computed so far.
 * On a pointer, loads through it stay after this point (round keys loaded
 * in their round, not hoisted together into registers). */
#if defined(__GNUC__)
#define FB_KEEP(v) __asm__("" : "+r"(v))
#else
#define FB_KEEP(v) (void)0
#endif

/* Byte 1 of x, a 32- or 64-bit word, as a table index in one instruction:
 * MOVZX from the high byte register (%ah; no REX prefix, so both operands
 * in a-d). Compilers emit a shift instead, or this MOVZX followed by a
 * second zero extension (mov %edx,%edx) when the index is 64-bit; either
 * is a cycle more on AMD Zen, where %ah costs 1. On Intel it costs 3: see
 * fb_byte_index. */
#if FB_X86 && defined(__GNUC__)
#define fb_byte1_high(x) __extension__({ \
		uint64_t r_; \
		__asm__("movzbl %h1, %k0" : "=Q"(r_) : "Q"(x)); \
		r_; \
	})
#else
#define fb_byte1_high(x) (((uint64_t)(x) >> 8) & 0xFF)
#endif

/* Byte j (0..6) of x, a 32- or 64-bit word, as a table index, by a
 * shift and a MOVZX into a register other than x's, which renaming
 * absorbs on Intel cores: no high byte register (MOVZX from CH costs 3
 * cycles of latency there, 1 on AMD Zen). The kernels that use it on
 * latency chains are passed over on AMD (serial_avoid_on FB_CPU_AMD_ZEN).
 * A macro, so a 32-bit x needs no zero extension first; the bits above
 * x's width are never part of the byte. */
#if FB_X86 && defined(__GNUC__)
#define fb_byte_index(x, j) __extension__({ \
		uint64_t r_, t_; \
		if ((j) == 0) \
			__asm__("movzbl %b1, %k0" : "=&r"(r_) : "r"(x)); \
		else \
			__asm__("mov %q2, %1\n\tshr %3, %1\n\tmovzbl %b1, %k0" \
				: "=r"(r_), "=&r"(t_) : "r"(x), "i"(8 * (j))); \
		r_; \
	})
#else
#define fb_byte_index(x, j) (((uint64_t)(x) >> (8 * (j))) & 0xFF)
#endif

/* Bits start..start+len-1 of a 32-bit x as a table index, by BMI1's
 * BEXTR: one instruction where a shift and a mask (or MOVZX) are two.
 * Interleaved table lookups (several blocks side by side) are bound by
 * the ALUs, and this removes a tenth to a quarter of their operations.
 * Only in code that runs where FB_CPU_BMI2 is present (the kernels that
 * need it). Inline assembly: the intrinsic needs every function it is
 * inlined into compiled for BMI1, and GCC does not emit BEXTR for a shift
 * and a mask by itself. */
#if FB_X86 && defined(__GNUC__)
#define fb_bextr32(x, start, len) __extension__({ \
		uint64_t r_; \
		__asm__("bextr %2, %k1, %k0" : "=r"(r_) : "r"(x), "r"((unsigned)(len) << 8 | (start))); \
		r_; \
	})
#else
#define fb_bextr32(x, start, len) (((uint32_t)(x) >> (start)) & ((1u << (len)) - 1))
#endif

/* x rotated right by n (a constant), by BMI2's RORX, which writes another
 * register than x's: no copy of x before it, as ROR and SHR need. For
 * table indices (its low byte) in code that runs where FB_CPU_BMI2 is
 * present. Inline assembly: GCC turns a rotate's low byte back into a
 * shift or a high byte register. */
#if FB_X86 && defined(__GNUC__)
#define fb_rorx32(x, n) __extension__({ \
		uint32_t r_; \
		__asm__("rorx %2, %1, %0" : "=r"(r_) : "rm"((uint32_t)(x)), "i"(n)); \
		r_; \
	})
#else
#define fb_rorx32(x, n) fb_rotr32((x), (n))
#endif

#endif
