/*
 * fastblock.h - the one public header of fastblock.
 *
 * Block ciphers DES, Triple-DES, AES, RC6, MARS, Twofish and Serpent with
 * the modes ECB, CBC, CFB (full block), CFB8, OFB, CTR and XTS, one-shot
 * and streaming, with run-time choice of the fastest implementation.
 *
 * Cipher names follow OpenSSL where OpenSSL has them:
 *   des-<mode>        DES, 8-byte key
 *   des-ede-<mode>    two-key Triple-DES, 16-byte key K1||K2 (K3 = K1)
 *   des-ede3-<mode>   three-key Triple-DES, 24-byte key K1||K2||K3
 *   aes-<bits>-<mode>, rc6-<bits>-<mode>, mars-<bits>-<mode>,
 *   twofish-<bits>-<mode>, serpent-<bits>-<mode>
 * with <mode> one of ecb cbc cfb cfb8 ofb ctr, and xts for the 128-bit
 * block ciphers (XTS keys are two keys: 2 x bits/8 bytes).
 * "des-ede3" and "des-ede" alone mean ECB, as in OpenSSL.
 *
 * All functions are thread-safe on distinct contexts. Output may equal
 * input (in place); any other overlap is refused with FB_ERR_OVERLAP.
 * On any error nothing is written to the output.
 */
#ifndef FASTBLOCK_H
#define FASTBLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; fb_version() gives the library's (they
 * differ only when a program runs against another build than it was
 * compiled with). Thread-safe, never NULL. */
#define FASTBLOCK_VERSION "0.1.0"
const char *fb_version(void);

/* ---- Errors -------------------------------------------------------------- */

enum fb_error {
	FB_OK = 0,
	FB_ERR_UNKNOWN_CIPHER = -1,  /* no cipher or mode by that name */
	FB_ERR_KEY_LENGTH = -2,      /* key length not accepted by the cipher */
	FB_ERR_IV_LENGTH = -3,       /* IV missing or of the wrong length */
	FB_ERR_DATA_LENGTH = -4,     /* data not a multiple of the block, or too short */
	FB_ERR_BAD_PADDING = -5,     /* padding check failed on decryption */
	FB_ERR_WEAK_KEY = -6,        /* weak or degenerate key refused (strict mode) */
	FB_ERR_IMPL_UNAVAILABLE = -7,/* no such implementation, or CPU lacks it */
	FB_ERR_OVERLAP = -8,         /* output partially overlaps input */
	FB_ERR_ARGUMENT = -9,        /* NULL pointer or invalid option */
	FB_ERR_OUTPUT_SPACE = -10,   /* output buffer too small */
	FB_ERR_STATE = -11,          /* context not initialised, or already finished */
	FB_ERR_NOT_CONSTANT_TIME = -12, /* implementation refused by FB_FLAG_CONSTANT_TIME */
	FB_ERR_PADDING_MODE = -13,   /* padding asked for a mode that has none */
	FB_ERR_XTS_KEYS = -14,       /* XTS key halves equal (always refused) */
	FB_ERR_CTX_SIZE = -15,       /* context smaller than fb_ctx_size() asks */
};

/* A one-line English text for an error code (never NULL). */
const char *fb_strerror(int err);

/* ---- Ciphers ------------------------------------------------------------- */

typedef struct fb_cipher fb_cipher; /* an immutable cipher+mode description */

enum fb_mode { FB_ECB, FB_CBC, FB_CFB, FB_CFB8, FB_OFB, FB_CTR, FB_XTS };

/* Looks a cipher+mode up by name (case-insensitive); NULL if unknown. */
const fb_cipher *fb_cipher_by_name(const char *name);
/* Enumerates all names: i = 0, 1, ... until NULL. */
const fb_cipher *fb_cipher_at(size_t i);
const char *fb_cipher_name(const fb_cipher *c);
const char *fb_cipher_family(const fb_cipher *c); /* "des", "aes", ... */
enum fb_mode fb_cipher_mode(const fb_cipher *c);
size_t fb_cipher_key_len(const fb_cipher *c);  /* the length the name implies */
size_t fb_cipher_block_size(const fb_cipher *c); /* 8 or 16 */
size_t fb_cipher_iv_len(const fb_cipher *c);    /* 0 for ECB */

/* ---- Options --------------------------------------------------------------- */

enum fb_padding {
	FB_PAD_DEFAULT = 0, /* PKCS#7 for ECB and CBC, none for the others */
	FB_PAD_NONE,        /* data must be a multiple of the block (ECB, CBC) */
	FB_PAD_PKCS7,
	FB_PAD_ISO9797_M2,  /* ISO/IEC 9797-1 method 2: 0x80 then zeros */
};

enum fb_flags {
	FB_FLAG_STRICT_KEYS = 1u << 0,   /* refuse DES weak/semi-weak keys, K1=K2 or K2=K3 */
	FB_FLAG_CONSTANT_TIME = 1u << 1, /* use only constant-time implementations */
	FB_FLAG_THREADS = 1u << 2,       /* large parallel work on every CPU (fb_ctx_set_threads) */
};

typedef struct fb_options {
	enum fb_padding padding;
	unsigned flags;       /* enum fb_flags */
	const char *impl;     /* force an implementation by name ("des/table"); NULL = best */
} fb_options;

/* The environment variable FASTBLOCK_IMPL, when set to an implementation
 * name, forces it for every context of that family whose options do not
 * name one (tests and the harness use it). */

/* ---- Contexts ------------------------------------------------------------ */

/* A context is opaque and sized to its use: the state plus the key
 * schedules of the implementations fb_init chooses for a cipher, its
 * options and this CPU. A 3DES or AES context for a serial mode takes
 * under 1 KB; a bitsliced DES context about 13 KB. */
typedef struct fb_ctx fb_ctx;
#define FB_CTX_ALIGN 64 /* contexts start on this boundary */

enum fb_direction { FB_DECRYPT = 0, FB_ENCRYPT = 1 };

/* Bytes a context needs for fb_init(ctx, c, dir, ..., opt) on this CPU
 * (opt may be NULL). 0 if c is NULL or the options cannot be served (an
 * unknown or unavailable implementation): fb_init would refuse them. */
size_t fb_ctx_size(const fb_cipher *c, enum fb_direction dir, const fb_options *opt);
/* Allocates a context of exactly fb_ctx_size(c, dir, opt) bytes, aligned;
 * NULL on failure. It serves any fb_init that needs no more. */
fb_ctx *fb_ctx_new_for(const fb_cipher *c, enum fb_direction dir, const fb_options *opt);
/* Allocates a context big enough for every cipher, direction and option
 * this build offers (about 21 KB); NULL on failure. */
fb_ctx *fb_ctx_new(void);
/* Embedding: makes a context inside caller memory of size bytes, which
 * must start on an FB_CTX_ALIGN boundary. Returns mem as a context, or
 * NULL if mem is NULL or misaligned or size is below the smallest
 * context. fb_init refuses with FB_ERR_CTX_SIZE a cipher that needs more
 * than size. Release it with fb_ctx_wipe, never fb_ctx_free. */
fb_ctx *fb_ctx_place(void *mem, size_t size);
/* Wipes and frees a context from fb_ctx_new or fb_ctx_new_for (NULL is fine). */
void fb_ctx_free(fb_ctx *ctx);
/* Wipes a context's key material; it must be initialised again to be used. */
void fb_ctx_wipe(fb_ctx *ctx);

/* Sets up a context. iv may be NULL only for ECB. For XTS the IV is the
 * 16-byte data-unit tweak. opt may be NULL for defaults. */
int fb_init(fb_ctx *ctx, const fb_cipher *c, enum fb_direction dir,
	    const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
	    const fb_options *opt);

/* Streaming: consumes in_len bytes, writes *out_len bytes (at most
 * in_len + block size) to out, which has room for out_cap bytes.
 * Any split of the input gives the same bytes as a one-shot call. */
int fb_update(fb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len,
	      const uint8_t *in, size_t in_len);
/* Ends the stream: padding, ciphertext stealing; writes *out_len bytes
 * (at most 2 blocks). The context is wiped afterwards whatever the result. */
int fb_final(fb_ctx *ctx, uint8_t *out, size_t out_cap, size_t *out_len);

/* A bound on the output of one fb_update call with in_len bytes of input,
 * of a one-shot call on in_len bytes, and (with in_len 0) of fb_final:
 * buffers of this size never get FB_ERR_OUTPUT_SPACE. Saturates at
 * SIZE_MAX; 0 for c == NULL. */
size_t fb_output_bound(const fb_cipher *c, enum fb_direction dir, size_t in_len);

/* Threads for large work in the parallel modes: ECB, CTR, XTS, and CBC
 * and CFB decryption. An update or message of at least 2 MB in one of
 * them is cut into 1 MB chunks that run on up to n threads (0: every CPU
 * the process may run on, as FB_FLAG_THREADS sets at fb_init; 1: only the
 * calling thread, the default). The threads are made for the call and
 * joined before it returns; output is in order, in the caller's buffer,
 * and byte for byte what one thread gives. Serial modes (CBC, CFB and OFB
 * encryption, OFB and CFB8 either way) stay on the calling thread.
 * Thread-safe as every call is: one context per thread at a time; the
 * library has no shared mutable state. The setting lasts until the next
 * fb_init. FB_ERR_STATE if ctx is not initialised. */
int fb_ctx_set_threads(fb_ctx *ctx, unsigned n);

/* The implementation a context uses for parallel work and for serial
 * chains ("des/bs-avx512", "des/table"). */
const char *fb_ctx_impl(const fb_ctx *ctx);
const char *fb_ctx_serial_impl(const fb_ctx *ctx);
/* 1 if every implementation the context may run (parallel, serial and the
 * narrower ones for short runs) is constant-time, 0 if not;
 * FB_ERR_STATE if ctx is not initialised. */
int fb_ctx_constant_time(const fb_ctx *ctx);

/* One-shot: the whole message. Nothing is written on error. */
int fb_encrypt(const fb_cipher *c, const uint8_t *key, size_t key_len,
	       const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
	       uint8_t *out, size_t out_cap, size_t *out_len, const fb_options *opt);
int fb_decrypt(const fb_cipher *c, const uint8_t *key, size_t key_len,
	       const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
	       uint8_t *out, size_t out_cap, size_t *out_len, const fb_options *opt);

/* One whole message through an initialised context, under a new IV (or
 * XTS tweak; NULL and 0 for ECB): the bytes fb_encrypt or fb_decrypt would
 * give with the context's cipher, direction, key and options, without
 * their key setup. Any stream in progress is dropped. Afterwards the
 * context is as fb_init left it with this IV, key kept, ready for the next
 * message or for fb_update. Nothing is written on error. */
int fb_message(fb_ctx *ctx, const uint8_t *iv, size_t iv_len, const uint8_t *in, size_t in_len,
	       uint8_t *out, size_t out_cap, size_t *out_len);

/* ---- Implementations ------------------------------------------------------- */

typedef struct fb_impl_info {
	const char *name;       /* "des/bs-avx512" */
	const char *family;     /* "des" */
	const char *note;       /* technique, one line */
	int constant_time;      /* 1 if no secret-dependent branches or addresses */
	int supported;          /* 1 if this CPU runs it */
	unsigned batch;         /* natural batch in blocks */
	const char *cpu_needs;  /* "avx512f avx512bw ..." ("" for portable) */
	size_t schedule_bytes;  /* one key schedule (one key of EDE, XTS's data key) */
} fb_impl_info;

/* Enumerates all compiled implementations: i = 0, 1, ... until FB_ERR_ARGUMENT. */
int fb_impl_at(size_t i, fb_impl_info *info);
/* The CPU features fastblock detected, space-separated. */
const char *fb_cpu_description(void);

/* ---- DES key helpers ---------------------------------------------------------- */

/* 1 if every byte of key has odd parity. */
int fb_des_check_parity(const uint8_t *key, size_t len);
/* Sets odd parity on every byte (the low bit of each byte). */
void fb_des_set_parity(uint8_t *key, size_t len);
/* 1 if the 8-byte key is one of the 4 weak or 12 semi-weak DES keys
 * (parity bits ignored). */
int fb_des_is_weak_key(const uint8_t key[8]);

/* ---- Multi-stream DES/3DES (many independent streams in one call) ---------- */

/* Encrypts or decrypts n independent CBC streams (or CFB, OFB: mode is
 * FB_CBC, FB_CFB or FB_OFB), each with its own key, IV, input and output of
 * len[i] bytes (a multiple of 8 for CBC). c names the cipher family and key
 * length (e.g. fb_cipher_by_name("des-ede3-cbc")); the mode argument wins.
 * ivs[i] is updated to the chaining value that continues the stream.
 * Lanes of the wide kernels carry different keys. Returns FB_OK or an
 * error before any output is written. */
int fb_multi_crypt(const fb_cipher *c, enum fb_mode mode, enum fb_direction dir,
		   size_t n, const uint8_t *const *keys, uint8_t *const *ivs,
		   const uint8_t *const *in, uint8_t *const *out, const size_t *len,
		   const fb_options *opt);

/* ---- MACs and key check values (src/mac.c) ------------------------------------

 * A MAC's cipher is any name of the block cipher and key size; its mode is
 * ignored ("des-ede3", "des-ede3-cbc" and "aes-128-ecb" all serve; XTS
 * names are refused with FB_ERR_ARGUMENT). Keys as for fb_init. */
enum fb_mac_alg {
	FB_MAC_CBC = 1, /* ISO/IEC 9797-1 MAC algorithm 1: CBC-MAC, zero IV */
	FB_MAC_RETAIL,  /* ISO/IEC 9797-1 algorithm 3, ANSI X9.19 "retail MAC":
			 * single-DES CBC-MAC under K1, then D(K2), E(K3) on the
			 * last block; cipher des-ede (K3 = K1) or des-ede3 */
	FB_MAC_CMAC,    /* NIST SP 800-38B, 64- and 128-bit blocks */
};
/* ISO/IEC 9797-1 padding methods for FB_MAC_CBC and FB_MAC_RETAIL
 * (FB_MAC_CMAC pads as SP 800-38B says and takes 0 here). */
enum fb_mac_pad {
	FB_MAC_PAD_NONE = 0, /* CMAC's own */
	FB_MAC_PAD1 = 1,     /* zeros, as few as possible: refuses an empty message */
	FB_MAC_PAD2 = 2,     /* 0x80 then zeros */
	FB_MAC_PAD3 = 3,     /* a block with the length in bits, then method 1 (one-shot only) */
};

/* One-shot MAC of in_len bytes, truncated to mac_len (1 ... block size)
 * bytes (the leftmost). Errors: FB_ERR_UNKNOWN_CIPHER, FB_ERR_KEY_LENGTH,
 * FB_ERR_ARGUMENT (algorithm, padding or cipher that do not go together,
 * NULL pointers), FB_ERR_DATA_LENGTH (an empty message with method 1),
 * FB_ERR_OUTPUT_SPACE (mac_len 0 or above the block size). */
int fb_mac(enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key, size_t key_len,
	   enum fb_mac_pad pad, const uint8_t *in, size_t in_len, uint8_t *mac, size_t mac_len);

/* Streaming MACs: any split of the message gives fb_mac's result. A
 * context is for one thread at a time; fb_mac_final wipes it (also on
 * error). Method 3 needs the length first: one-shot only (FB_ERR_ARGUMENT). */
typedef struct fb_mac_ctx fb_mac_ctx;
fb_mac_ctx *fb_mac_new(void);            /* NULL when out of memory */
void fb_mac_free(fb_mac_ctx *m);         /* wipes; NULL is fine */
int fb_mac_init(fb_mac_ctx *m, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
		size_t key_len, enum fb_mac_pad pad);
int fb_mac_update(fb_mac_ctx *m, const uint8_t *in, size_t in_len);
int fb_mac_final(fb_mac_ctx *m, uint8_t *mac, size_t mac_len);

/* Key check value: the leftmost out_len bytes of E(K, 0...0) (cmac = 0;
 * 3 bytes is customary), or of the CMAC of one all-zero block (cmac = 1;
 * the AES key check value of ANSI X9.24-1 takes 5 bytes). Errors as fb_mac. */
int fb_kcv(const fb_cipher *c, const uint8_t *key, size_t key_len, int cmac, uint8_t *out,
	   size_t out_len);

/* Batches: n keys of key_len bytes each (keys[i]), for MACs each with its
 * own message (in[i], in_len[i] bytes); results go to macs / out, mac_len
 * / out_len bytes per key, in order. Every argument is checked, and the
 * whole batch computed, before anything is written; the first error is
 * returned. CBC-MAC, the retail MAC and zero-block KCVs of families with a
 * multi-lane engine (DES, Triple-DES) run through fb_multi_crypt's lanes,
 * many keys at once; other families and CMAC run one key at a time. */
int fb_mac_batch(enum fb_mac_alg alg, const fb_cipher *c, size_t n, const uint8_t *const *keys,
		 size_t key_len, enum fb_mac_pad pad, const uint8_t *const *in, const size_t *in_len,
		 uint8_t *macs, size_t mac_len);
int fb_kcv_batch(const fb_cipher *c, size_t n, const uint8_t *const *keys, size_t key_len, int cmac,
		 uint8_t *out, size_t out_len);

/* A random DES or Triple-DES key (len 8, 16 or 24) from the operating
 * system's random source, with odd parity, no weak or semi-weak part and
 * no two equal parts. FB_ERR_KEY_LENGTH, or FB_ERR_ARGUMENT if the random
 * source fails. */
int fb_des_random_key(uint8_t *key, size_t len);

#ifdef __cplusplus
}
#endif
#endif
