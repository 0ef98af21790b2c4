/*
 * bench_peer.h - the contract every peer-library adapter implements
 * (bench/peer_<library>.c or .cpp), so the harness can time OpenSSL,
 * Crypto++, Botan, libgcrypt, Nettle and ipsec-mb exactly as it times
 * fastblock: same buffers, same process, same method.
 *
 * An adapter is compiled only when its library was found (CMake defines
 * FB_BENCH_HAVE_<LIB>); bench_peers() lists the ones built in.
 */
#ifndef FB_BENCH_PEER_H
#define FB_BENCH_PEER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Mode numbers equal fastblock's enum fb_mode (checked in bench.c), kept
 * separate so the C++ adapters need no fastblock header. */
enum bench_mode { BM_ECB, BM_CBC, BM_CFB, BM_CFB8, BM_OFB, BM_CTR, BM_XTS };

/* One cipher+mode, as fastblock names it. */
typedef struct bench_alg {
	const char *name;   /* fastblock's name: "des-ede3-cbc", "aes-128-xts" */
	const char *family; /* "des" (DES and Triple-DES), "aes", "rc6", "mars", "twofish", "serpent" */
	int mode;           /* enum bench_mode */
	size_t key_len;     /* bytes; DES 8, 2-key 3DES 16, 3-key 24; XTS: both keys */
	size_t block;       /* 8 or 16 */
	size_t iv_len;      /* 0 for ECB; CTR: the initial counter block; XTS: the tweak */
} bench_alg;

typedef struct bench_peer {
	const char *library;          /* "openssl", "crypto++", "botan", ... */
	const char *(*version)(void); /* the library's own version string */
	unsigned streams;             /* independent streams per call (1, or 16..512 for ipsec-mb) */
	/* A handle for alg in one direction (encrypt != 0), keyed with key and
	 * iv, or NULL when the library lacks the cipher, key size or mode.
	 * *impl receives a short label of the code path ("EVP", "job API x16"). */
	void *(*open)(const bench_alg *alg, int encrypt, const uint8_t *key, const uint8_t *iv,
		      unsigned streams, const char **impl);
	/* Key setup alone (timed as key_setup_cycles): re-keys the handle,
	 * restarting the stream at iv. Returns 0 on success. */
	int (*setkey)(void *h, const uint8_t *key, const uint8_t *iv);
	/* Transforms `streams` buffers of len bytes each, laid end to end in
	 * buf, in place, continuing each stream; XTS: each call is one whole
	 * data unit, its tweak encrypted from the iv the handle was keyed with
	 * (as OpenSSL, libgcrypt and Nettle do on their own, and as fastblock
	 * is timed). ECB/CBC/XTS lengths are whole blocks. Returns 0 on
	 * success. */
	int (*crypt)(void *h, uint8_t *buf, size_t len);
	void (*close)(void *h);
} bench_peer;

/* The adapters built into this binary, NULL-terminated. */
const bench_peer *const *bench_peers(void);

/* Adapters; each exists only when its library was found. */
extern const bench_peer bench_peer_openssl, bench_peer_cryptopp, bench_peer_botan,
	bench_peer_gcrypt, bench_peer_nettle, bench_peer_ipsecmb16, bench_peer_ipsecmb32,
	bench_peer_ipsecmb64, bench_peer_ipsecmb128, bench_peer_ipsecmb256, bench_peer_ipsecmb512;

/* 2-key Triple-DES as K1||K2||K1, for libraries that take only 24-byte keys. */
static inline void bench_des_ede_key24(uint8_t out[24], const uint8_t *key, size_t key_len)
{
	for (size_t i = 0; i < 24; i++)
		out[i] = key[key_len == 16 && i >= 16 ? i - 16 : i];
}

#ifdef __cplusplus
}
#endif
#endif
