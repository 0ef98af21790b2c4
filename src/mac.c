/*
 * MACs and key check values, built on the cipher API: CBC-MAC (ISO/IEC
 * 9797-1 algorithm 1), the retail MAC (algorithm 3, ANSI X9.19), CMAC
 * (NIST SP 800-38B), key check values, random DES keys.
 *
 * A MAC is the last block of a CBC encryption with a zero IV; the chain
 * runs through an fb_ctx in CBC mode, whose output goes to a scratch
 * buffer. The last block of the message is held back until the end,
 * because CMAC and the retail MAC treat it differently.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/random.h>
#include "internal.h"

#define MAC_MAGIC 0x66624d41u
enum { SCRATCH = 1024 };

struct fb_mac_ctx {
	uint32_t magic;
	enum fb_mac_alg alg;
	enum fb_mac_pad pad;
	unsigned bs;
	fb_ctx *chain;       /* CBC encryption, zero IV: the CBC-MAC chain */
	const fb_cipher *last; /* retail: des-ede or des-ede3 ECB for the last block */
	uint8_t key[24];     /* retail: K1, K2 (K3), for that one block */
	size_t key_len;
	uint8_t sub[2][16];  /* CMAC: the subkeys K1, K2 */
	uint8_t h[16];       /* the chain's last output block (zero at first) */
	uint8_t held[16];    /* the message's last bytes, up to a block */
	unsigned held_len;
	int any;             /* some message bytes seen */
	uint8_t scratch[SCRATCH];
};

/* The same cipher in another mode ("des-ede3" -> "des-ede3-cbc"); the
 * names follow the grammar of fb_cipher_by_name. */
static const fb_cipher *with_mode(const fb_cipher *c, const char *mode)
{
	static const char *const modes[] = { "-ecb", "-cbc", "-cfb", "-cfb8", "-ofb", "-ctr" };
	char name[48];
	const char *n = fb_cipher_name(c);
	size_t len = strlen(n);
	if (len + 5 >= sizeof name || fb_cipher_mode(c) == FB_XTS)
		return NULL;
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
		size_t m = strlen(modes[i]);
		if (len > m && !strcmp(n + len - m, modes[i])) {
			len -= m;
			break;
		}
	}
	memcpy(name, n, len);
	strcpy(name + len, mode);
	return fb_cipher_by_name(name);
}

static void xor_block(uint8_t *d, const uint8_t *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		d[i] ^= a[i];
}

/* CMAC subkeys: L = E(0), K1 = L * x, K2 = K1 * x in GF(2^b), big-endian,
 * with R = 0x87 (128-bit blocks) or 0x1B (64-bit). */
static void cmac_double(uint8_t *out, const uint8_t *in, unsigned bs)
{
	unsigned carry = in[0] >> 7;
	for (unsigned i = 0; i + 1 < bs; i++)
		out[i] = (uint8_t)(in[i] << 1 | in[i + 1] >> 7);
	out[bs - 1] = (uint8_t)(in[bs - 1] << 1 ^ ((bs == 16 ? 0x87 : 0x1B) & (0u - carry)));
}

/* One block through a one-block ECB context. */
static int ecb_block(const fb_cipher *ecb, const uint8_t *key, size_t klen, uint8_t *blk)
{
	fb_options none = { .padding = FB_PAD_NONE };
	size_t n;
	return fb_encrypt(ecb, key, klen, NULL, 0, blk, fb_cipher_block_size(ecb), blk,
			  fb_cipher_block_size(ecb), &n, &none);
}

static int check_args(enum fb_mac_alg alg, const fb_cipher *c, size_t key_len, enum fb_mac_pad pad)
{
	if (!c)
		return FB_ERR_UNKNOWN_CIPHER;
	if (fb_cipher_mode(c) == FB_XTS)
		return FB_ERR_ARGUMENT;
	if (alg == FB_MAC_CMAC)
		return pad == FB_MAC_PAD_NONE ? FB_OK : FB_ERR_ARGUMENT;
	if (alg != FB_MAC_CBC && alg != FB_MAC_RETAIL)
		return FB_ERR_ARGUMENT;
	if (pad < FB_MAC_PAD1 || pad > FB_MAC_PAD3)
		return FB_ERR_ARGUMENT;
	if (alg == FB_MAC_RETAIL && (strcmp(fb_cipher_family(c), "des") || (key_len != 16 && key_len != 24)))
		return strcmp(fb_cipher_family(c), "des") ? FB_ERR_ARGUMENT : FB_ERR_KEY_LENGTH;
	return FB_OK;
}

static int mac_setup(fb_mac_ctx *m, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
		     size_t key_len, enum fb_mac_pad pad)
{
	static const uint8_t zero[16];
	fb_options none = { .padding = FB_PAD_NONE };
	int rc = check_args(alg, c, key_len, pad);
	if (rc)
		return rc;
	m->alg = alg;
	m->pad = pad;
	m->bs = (unsigned)fb_cipher_block_size(c);
	m->held_len = 0;
	m->any = 0;
	memset(m->h, 0, sizeof m->h);
	if (alg == FB_MAC_RETAIL) {
		/* The chain is single DES under K1; the last block gets K1, K2, K3. */
		/* One block under K1, K2, K3 at the end goes through a one-shot
		 * call, whose key setup is the cheap one-block kernel's. */
		m->last = fb_cipher_by_name(key_len == 16 ? "des-ede-ecb" : "des-ede3-ecb");
		memcpy(m->key, key, key_len);
		m->key_len = key_len;
		return fb_init(m->chain, fb_cipher_by_name("des-cbc"), FB_ENCRYPT, key, 8, zero, 8, &none);
	}
	const fb_cipher *cbc = with_mode(c, "-cbc"), *ecb = with_mode(c, "-ecb");
	if (!cbc || !ecb)
		return FB_ERR_ARGUMENT;
	rc = fb_init(m->chain, cbc, FB_ENCRYPT, key, key_len, zero, m->bs, &none);
	if (rc || alg != FB_MAC_CMAC)
		return rc;
	uint8_t l[16] = { 0 };
	rc = ecb_block(ecb, key, key_len, l);
	cmac_double(m->sub[0], l, m->bs);
	cmac_double(m->sub[1], m->sub[0], m->bs);
	fb_wipe(l, sizeof l);
	return rc;
}

/* Runs whole blocks through the chain; h becomes the last output. */
static int chain(fb_mac_ctx *m, const uint8_t *in, size_t len)
{
	while (len) {
		size_t k = len < SCRATCH ? len : SCRATCH, n;
		int rc = fb_update(m->chain, m->scratch, SCRATCH, &n, in, k);
		if (rc)
			return rc;
		memcpy(m->h, m->scratch + n - m->bs, m->bs);
		in += k;
		len -= k;
	}
	return FB_OK;
}

fb_mac_ctx *fb_mac_new(void)
{
	fb_mac_ctx *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->chain = fb_ctx_new();
	if (!m->chain) {
		fb_mac_free(m);
		return NULL;
	}
	return m;
}

void fb_mac_free(fb_mac_ctx *m)
{
	if (!m)
		return;
	fb_ctx_free(m->chain);
	fb_wipe(m, sizeof *m);
	free(m);
}

static void mac_wipe(fb_mac_ctx *m)
{
	fb_ctx_wipe(m->chain);
	fb_wipe(m->key, sizeof m->key);
	fb_wipe(m->sub, sizeof m->sub);
	fb_wipe(m->h, sizeof m->h);
	fb_wipe(m->held, sizeof m->held);
	fb_wipe(m->scratch, sizeof m->scratch);
	m->magic = 0;
}

int fb_mac_init(fb_mac_ctx *m, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
		size_t key_len, enum fb_mac_pad pad)
{
	if (!m || (!key && key_len))
		return FB_ERR_ARGUMENT;
	if (pad == FB_MAC_PAD3)
		return FB_ERR_ARGUMENT; /* needs the length first: fb_mac */
	mac_wipe(m);
	int rc = mac_setup(m, alg, c, key, key_len, pad);
	if (rc)
		mac_wipe(m);
	else
		m->magic = MAC_MAGIC;
	return rc;
}

int fb_mac_update(fb_mac_ctx *m, const uint8_t *in, size_t in_len)
{
	if (!m || (in_len && !in))
		return FB_ERR_ARGUMENT;
	if (m->magic != MAC_MAGIC)
		return FB_ERR_STATE;
	if (!in_len)
		return FB_OK;
	m->any = 1;
	unsigned bs = m->bs;
	/* Fill the held block; pass it on only when more input follows. */
	size_t take = bs - m->held_len < in_len ? bs - m->held_len : in_len;
	memcpy(m->held + m->held_len, in, take);
	m->held_len += (unsigned)take;
	in += take;
	in_len -= take;
	if (!in_len)
		return FB_OK;
	int rc = chain(m, m->held, bs);
	/* Whole blocks of the rest, keeping its last 1..bs bytes held. */
	size_t body = (in_len - 1) / bs * bs;
	if (!rc)
		rc = chain(m, in, body);
	m->held_len = (unsigned)(in_len - body);
	memcpy(m->held, in + body, m->held_len);
	return rc;
}

/* The last block, padded, XORed into the chain and encrypted: the MAC. */
static int mac_last(fb_mac_ctx *m, uint8_t out[16])
{
	unsigned bs = m->bs, r = m->held_len;
	uint8_t blk[16] = { 0 };
	memcpy(blk, m->held, r);
	if (m->alg == FB_MAC_CMAC) {
		if (r < bs || !m->any) {
			blk[r] = 0x80;
			xor_block(blk, m->sub[1], bs);
		} else {
			xor_block(blk, m->sub[0], bs);
		}
	} else if (m->pad == FB_MAC_PAD2) {
		if (r == bs) { /* a whole block: the padding takes a block of its own */
			int rc = chain(m, blk, bs);
			if (rc)
				return rc;
			memset(blk, 0, sizeof blk);
			r = 0;
		}
		blk[r] = 0x80;
	} else if (!m->any && m->pad == FB_MAC_PAD1) {
		return FB_ERR_DATA_LENGTH; /* method 1 needs at least one bit of data */
	}
	size_t n;
	int rc;
	if (m->alg == FB_MAC_RETAIL) { /* the last block leaves the DES chain for K1, K2, K3 */
		fb_options none = { .padding = FB_PAD_NONE };
		xor_block(blk, m->h, bs);
		rc = fb_encrypt(m->last, m->key, m->key_len, NULL, 0, blk, bs, out, 16, &n, &none);
	} else {
		rc = fb_update(m->chain, out, 16, &n, blk, bs);
	}
	fb_wipe(blk, sizeof blk);
	return rc;
}

int fb_mac_final(fb_mac_ctx *m, uint8_t *mac, size_t mac_len)
{
	if (!m || !mac)
		return FB_ERR_ARGUMENT;
	if (m->magic != MAC_MAGIC)
		return FB_ERR_STATE;
	uint8_t out[16];
	int rc = mac_len < 1 || mac_len > m->bs ? FB_ERR_OUTPUT_SPACE : mac_last(m, out);
	if (!rc)
		memcpy(mac, out, mac_len);
	fb_wipe(out, sizeof out);
	mac_wipe(m);
	return rc;
}

int fb_mac(enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key, size_t key_len,
	   enum fb_mac_pad pad, const uint8_t *in, size_t in_len, uint8_t *mac, size_t mac_len)
{
	if (!mac || (!in && in_len))
		return FB_ERR_ARGUMENT;
	int rc = check_args(alg, c, key_len, pad);
	if (rc)
		return rc;
	fb_mac_ctx *m = fb_mac_new();
	if (!m)
		return FB_ERR_ARGUMENT;
	if (pad == FB_MAC_PAD3) {
		/* Method 3: a block with the length in bits first, then method 1
		 * (an empty message is then just that block). */
		rc = fb_mac_init(m, alg, c, key, key_len, FB_MAC_PAD1);
		uint8_t lb[16] = { 0 };
		unsigned bs = (unsigned)fb_cipher_block_size(c);
		uint64_t bits = (uint64_t)in_len * 8;
		for (unsigned i = 0; i < 8; i++)
			lb[bs - 1 - i] = (uint8_t)(bits >> (8 * i));
		if (!rc)
			rc = fb_mac_update(m, lb, bs);
	} else {
		rc = fb_mac_init(m, alg, c, key, key_len, pad);
	}
	if (!rc)
		rc = fb_mac_update(m, in, in_len);
	if (!rc)
		rc = fb_mac_final(m, mac, mac_len);
	fb_mac_free(m);
	return rc;
}

int fb_kcv(const fb_cipher *c, const uint8_t *key, size_t key_len, int cmac, uint8_t *out,
	   size_t out_len)
{
	static const uint8_t zero[16];
	if (!c)
		return FB_ERR_UNKNOWN_CIPHER;
	if (!out)
		return FB_ERR_ARGUMENT;
	size_t bs = fb_cipher_block_size(c);
	if (cmac)
		return fb_mac(FB_MAC_CMAC, c, key, key_len, FB_MAC_PAD_NONE, zero, bs, out, out_len);
	const fb_cipher *ecb = with_mode(c, "-ecb");
	if (!ecb)
		return FB_ERR_ARGUMENT;
	if (out_len < 1 || out_len > bs)
		return FB_ERR_OUTPUT_SPACE;
	uint8_t blk[16] = { 0 };
	int rc = ecb_block(ecb, key, key_len, blk);
	if (!rc)
		memcpy(out, blk, out_len);
	fb_wipe(blk, sizeof blk);
	return rc;
}

int fb_des_random_key(uint8_t *key, size_t len)
{
	if (!key)
		return FB_ERR_ARGUMENT;
	if (len != 8 && len != 16 && len != 24)
		return FB_ERR_KEY_LENGTH;
	fb_options strict = { .flags = FB_FLAG_STRICT_KEYS };
	const fb_cipher *c = fb_cipher_by_name(len == 8 ? "des-ecb" : len == 16 ? "des-ede-ecb" : "des-ede3-ecb");
	fb_ctx *probe = fb_ctx_new();
	int rc = probe ? FB_ERR_WEAK_KEY : FB_ERR_ARGUMENT;
	/* A weak part or two equal parts turn up with probability ~2^-52:
	 * draw again (the strict check of fb_init is the judge). */
	for (int tries = 0; rc == FB_ERR_WEAK_KEY && tries < 16; tries++) {
		if (getrandom(key, len, 0) != (ssize_t)len) {
			rc = FB_ERR_ARGUMENT;
			break;
		}
		fb_des_set_parity(key, len);
		rc = fb_init(probe, c, FB_ENCRYPT, key, len, NULL, 0, &strict);
	}
	fb_ctx_free(probe);
	if (rc)
		fb_wipe(key, len);
	return rc;
}
