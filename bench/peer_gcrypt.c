/*
 * peer_gcrypt.c - libgcrypt (GnuPG's library) through gcry_cipher_*.
 * libgcrypt takes Triple-DES keys as 24 bytes only, so 2-key Triple-DES
 * is given as K1||K2||K1. It has no RC6, MARS or 192-bit Twofish.
 */
#include "bench_peer.h"

#include <gcrypt.h>
#include <stdlib.h>
#include <string.h>

/* FASTBLOCK_PEER_CLASS=avx2 (bench/sim_avx2.sh): libgcrypt as on an AVX2
 * machine like Zen 2, no AVX-512, VAES, GFNI or fast gathers; avx2-vaes:
 * as on Zen 3, with VAES and VPCLMULQDQ on 256 bits; avx2-client: as on
 * Intel's client cores from Alder Lake, which keep VAES, VPCLMULQDQ, GFNI
 * and Intel's gathers without AVX-512. Hardware features can only be
 * turned off before the first gcry_check_version. */
static void gc_class(void)
{
	static int done;
	const char *cls = getenv("FASTBLOCK_PEER_CLASS");
	/* avx2 turns all four off, avx2-vaes the first three (VAES stays on),
	 * avx2-client the first. */
	static const char *const off[] = { "intel-avx512", "intel-gfni", "intel-fast-vpgather",
					   "intel-vaes-vpclmul" };
	size_t n = 0;
	if (done)
		return;
	done = 1;
	if (cls && !strcmp(cls, "avx2"))
		n = 4;
	else if (cls && !strcmp(cls, "avx2-vaes"))
		n = 3;
	else if (cls && !strcmp(cls, "avx2-client"))
		n = 1;
	for (size_t i = 0; i < n; i++)
		gcry_control(GCRYCTL_DISABLE_HWF, off[i], NULL);
}

static const char *gc_version(void)
{
	gc_class();
	return gcry_check_version(NULL);
}

static void gc_init(void)
{
	static int done;
	if (!done) {
		gc_class();
		gcry_check_version(NULL);
		gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
		gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
		done = 1;
	}
}

static int gc_algo(const bench_alg *a)
{
	size_t k = a->mode == BM_XTS ? a->key_len / 2 : a->key_len;
	if (!strcmp(a->family, "des"))
		return k == 8 ? GCRY_CIPHER_DES : GCRY_CIPHER_3DES;
	if (!strcmp(a->family, "aes"))
		return k == 16 ? GCRY_CIPHER_AES128 : k == 24 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
	if (!strcmp(a->family, "twofish"))
		return k == 16 ? GCRY_CIPHER_TWOFISH128 : k == 32 ? GCRY_CIPHER_TWOFISH : 0;
	if (!strcmp(a->family, "serpent"))
		return k == 16 ? GCRY_CIPHER_SERPENT128 : k == 24 ? GCRY_CIPHER_SERPENT192
			       : GCRY_CIPHER_SERPENT256;
	return 0;
}

static int gc_mode(int mode)
{
	switch (mode) {
	case BM_ECB: return GCRY_CIPHER_MODE_ECB;
	case BM_CBC: return GCRY_CIPHER_MODE_CBC;
	case BM_CFB: return GCRY_CIPHER_MODE_CFB;
	case BM_CFB8: return GCRY_CIPHER_MODE_CFB8;
	case BM_OFB: return GCRY_CIPHER_MODE_OFB;
	case BM_CTR: return GCRY_CIPHER_MODE_CTR;
	case BM_XTS: return GCRY_CIPHER_MODE_XTS;
	}
	return 0;
}

typedef struct gc_handle {
	gcry_cipher_hd_t hd;
	bench_alg alg;
	int encrypt;
} gc_handle;

static int gc_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	gc_handle *h = p;
	uint8_t k24[24];
	const uint8_t *k = key;
	size_t klen = h->alg.key_len;
	if (!strcmp(h->alg.family, "des") && klen == 16) {
		bench_des_ede_key24(k24, key, 16);
		k = k24;
		klen = 24;
	}
	if (gcry_cipher_setkey(h->hd, k, klen))
		return -1;
	if (h->alg.mode == BM_CTR)
		return gcry_cipher_setctr(h->hd, iv, h->alg.iv_len) ? -1 : 0;
	if (h->alg.iv_len)
		return gcry_cipher_setiv(h->hd, iv, h->alg.iv_len) ? -1 : 0;
	return 0;
}

static void gc_close(void *p)
{
	gc_handle *h = p;
	if (!h)
		return;
	gcry_cipher_close(h->hd);
	free(h);
}

static void *gc_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
		     unsigned streams, const char **impl)
{
	int algo = gc_algo(a), mode = gc_mode(a->mode);
	if (streams != 1 || !algo || !mode)
		return NULL;
	gc_init();
	gc_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->alg = *a;
	h->encrypt = encrypt;
	if (gcry_cipher_open(&h->hd, algo, mode, 0)) {
		free(h);
		return NULL;
	}
	if (gc_setkey(h, key, iv)) {
		gc_close(h);
		return NULL;
	}
	*impl = "gcry_cipher";
	return h;
}

static int gc_crypt(void *p, uint8_t *buf, size_t len)
{
	gc_handle *h = p;
	gcry_error_t e = h->encrypt ? gcry_cipher_encrypt(h->hd, buf, len, NULL, 0)
				    : gcry_cipher_decrypt(h->hd, buf, len, NULL, 0);
	return e ? -1 : 0;
}

const bench_peer bench_peer_gcrypt = {
	"libgcrypt", gc_version, 1, gc_open, gc_setkey, gc_crypt, gc_close,
};
