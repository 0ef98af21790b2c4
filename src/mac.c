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
#include "registry.h"
#include "modes/modes.h" /* fb_multi_same */

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

/* The same cipher in another mode ("des-ede3" -> "des-ede3-cbc"); none
 * for XTS names, whose keys are two cipher keys. */
static const fb_cipher *with_mode(const fb_cipher *c, enum fb_mode mode)
{
	return fb_cipher_mode(c) == FB_XTS ? NULL : fb_cipher_in_mode(c, mode);
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

/* Keys the CBC chain (zero IV, no padding); a chain context too small for
 * this cipher (or none yet) is replaced by one of the size it needs. */
static int chain_init(fb_mac_ctx *m, const fb_cipher *cbc, const uint8_t *key, size_t key_len)
{
	static const uint8_t zero[16];
	const fb_options none = { .padding = FB_PAD_NONE };
	size_t iv_len = fb_cipher_iv_len(cbc);
	int rc = m->chain ? fb_init(m->chain, cbc, FB_ENCRYPT, key, key_len, zero, iv_len, &none)
			  : FB_ERR_CTX_SIZE;
	if (rc != FB_ERR_CTX_SIZE)
		return rc;
	fb_ctx_free(m->chain);
	if (!(m->chain = fb_ctx_new_for(cbc, FB_ENCRYPT, &none)))
		return FB_ERR_ARGUMENT;
	return fb_init(m->chain, cbc, FB_ENCRYPT, key, key_len, zero, iv_len, &none);
}

static int mac_setup(fb_mac_ctx *m, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
		     size_t key_len, enum fb_mac_pad pad)
{
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
		return chain_init(m, fb_cipher_by_name("des-cbc"), key, 8);
	}
	const fb_cipher *cbc = with_mode(c, FB_CBC);
	if (!cbc)
		return FB_ERR_ARGUMENT;
	rc = chain_init(m, cbc, key, key_len);
	if (rc || alg != FB_MAC_CMAC)
		return rc;
	/* L = E(K, 0): a zero block through the keyed chain under the zero IV,
	 * which fb_message leaves as it found it (no second key setup). */
	static const uint8_t zero[16];
	uint8_t l[16] = { 0 };
	size_t got;
	rc = fb_message(m->chain, zero, m->bs, zero, m->bs, l, sizeof l, &got);
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
	return m; /* the chain context comes with the first key, sized for it */
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

/* A whole MAC through m (checked arguments); m is wiped afterwards. */
static int mac_one(fb_mac_ctx *m, enum fb_mac_alg alg, const fb_cipher *c, const uint8_t *key,
		   size_t key_len, enum fb_mac_pad pad, const uint8_t *in, size_t in_len, uint8_t *mac,
		   size_t mac_len)
{
	int rc;
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
	else
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
	rc = mac_one(m, alg, c, key, key_len, pad, in, in_len, mac, mac_len);
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
	const fb_cipher *ecb = with_mode(c, FB_ECB);
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
	int rc = FB_ERR_WEAK_KEY;
	/* A weak part or two equal parts turn up with probability ~2^-52:
	 * draw again (fb_init's own strict check is the judge). */
	for (int tries = 0; rc == FB_ERR_WEAK_KEY && tries < 16; tries++) {
		if (getrandom(key, len, 0) != (ssize_t)len) {
			rc = FB_ERR_ARGUMENT;
			break;
		}
		fb_des_set_parity(key, len);
		rc = fb_options_check(c, &strict, key, len);
	}
	if (rc)
		fb_wipe(key, len);
	return rc;
}

/* ---- batches: many keys, each with its own message ----------------------------------- */

/* Bytes of the message after ISO/IEC 9797-1 padding method pad (1, 2, 3),
 * or 0 for an empty message under method 1 (refused). */
static size_t padded_len(enum fb_mac_pad pad, unsigned bs, size_t len)
{
	size_t whole = (len + bs - 1) / bs * bs;
	if (pad == FB_MAC_PAD1)
		return whole;
	if (pad == FB_MAC_PAD2)
		return len / bs * bs + bs;
	return bs + whole; /* method 3: the length block, then method 1 */
}

static void pad_into(enum fb_mac_pad pad, unsigned bs, const uint8_t *in, size_t len, uint8_t *out)
{
	size_t at = 0;
	if (pad == FB_MAC_PAD3) {
		uint64_t bits = (uint64_t)len * 8;
		memset(out, 0, bs);
		for (unsigned i = 0; i < 8; i++)
			out[bs - 1 - i] = (uint8_t)(bits >> (8 * i));
		at = bs;
	}
	if (len)
		memcpy(out + at, in, len);
	size_t end = at + padded_len(pad == FB_MAC_PAD3 ? FB_MAC_PAD1 : pad, bs, len);
	memset(out + at + len, 0, end - at - len);
	if (pad == FB_MAC_PAD2)
		out[at + len] = 0x80;
}

/* The scratch of a lane batch, one allocation. */
typedef struct {
	unsigned char *mem;
	size_t size;
	const uint8_t **kp, **ip;
	uint8_t **op, **ivp, *ivs, *data;
	size_t *len;
} batch_mem;

static int batch_alloc(batch_mem *b, size_t n, unsigned bs, size_t data)
{
	size_t ptrs = 5 * sizeof(void *) + sizeof(size_t) + bs;
	if (n > (SIZE_MAX - data) / ptrs)
		return FB_ERR_ARGUMENT;
	b->size = n * ptrs + data;
	b->mem = calloc(1, b->size ? b->size : 1);
	if (!b->mem)
		return FB_ERR_ARGUMENT;
	b->kp = (const uint8_t **)(void *)b->mem;
	b->ip = b->kp + n;
	b->op = (uint8_t **)(void *)(b->ip + n);
	b->ivp = b->op + n;
	b->len = (size_t *)(void *)(b->ivp + n);
	b->ivs = (uint8_t *)(b->len + n);
	b->data = b->ivs + n * bs;
	for (size_t i = 0; i < n; i++)
		b->ivp[i] = b->ivs + i * bs;
	return FB_OK;
}

static void batch_free(batch_mem *b)
{
	if (b->mem)
		fb_wipe(b->mem, b->size);
	free(b->mem);
}

/* The streams of b (keys b->kp, chaining values b->ivp) through CBC on the
 * lane engines. Its buffers are disjoint by construction, so when every
 * stream has the same length the overlap check and the sort by length
 * are skipped (fb_multi_same). */
static int lanes_cbc(const fb_cipher *cbc, enum fb_direction dir, size_t n, const batch_mem *b)
{
	int same = 1;
	for (size_t i = 1; i < n && same; i++)
		same = b->len[i] == b->len[0];
	if (same)
		return fb_multi_same(cbc, FB_CBC, dir, n, b->kp, b->ivp, b->ip, b->op, b->len);
	return fb_multi_crypt(cbc, FB_CBC, dir, n, b->kp, b->ivp, b->ip, b->op, b->len, NULL);
}

/* One block per stream (b->ip), keys keys[i] + off, through CBC with a
 * zero IV: E(K, x) forwards, D(K, x) backwards, into b->data (in place
 * when b->ip points there); encryption leaves the result in b->ivs too. */
static int lanes_one_block(const fb_cipher *cbc, enum fb_direction dir, size_t n,
			   const uint8_t *const *keys, size_t off, batch_mem *b, unsigned bs)
{
	for (size_t i = 0; i < n; i++) {
		b->kp[i] = keys[i] + off;
		b->op[i] = b->data + i * bs;
		b->len[i] = bs;
	}
	memset(b->ivs, 0, n * bs);
	return lanes_cbc(cbc, dir, n, b);
}

static int has_lanes(const fb_cipher *cbc)
{
	return cbc && fb_multi_crypt(cbc, FB_CBC, FB_ENCRYPT, 0, NULL, NULL, NULL, NULL, NULL, NULL) == FB_OK;
}

/* Keys per pass through the lane engines: a few lane sets (512 lanes on
 * AVX-512). One scratch allocation serves every pass and stays in cache;
 * sized for the whole batch, 100,000 keys took ~1,600 fresh pages (about
 * a third of a batch of KCVs in page faults). */
#define BATCH_CHUNK 2048

/* MACs of messages [at, at + m) through the lane engines, into macs. */
static int mac_chunk(enum fb_mac_alg alg, const fb_cipher *cbc, size_t at, size_t m, const uint8_t *const *keys,
		     size_t key_len, enum fb_mac_pad pad, const uint8_t *const *in, const size_t *in_len,
		     uint8_t *macs, size_t mac_len, batch_mem *b, unsigned bs)
{
	uint8_t *p = b->data;
	memset(b->ivs, 0, m * bs);
	for (size_t i = 0; i < m; i++) { /* padded copies, chained in place */
		pad_into(pad, bs, in[at + i], in_len[at + i], p);
		b->kp[i] = keys[at + i]; /* retail: K1, its first 8 bytes */
		b->ip[i] = b->op[i] = p;
		b->len[i] = padded_len(pad, bs, in_len[at + i]);
		p += b->len[i];
	}
	int rc = lanes_cbc(cbc, FB_ENCRYPT, m, b);
	if (!rc && alg == FB_MAC_RETAIL) { /* H -> E(K3, D(K2, H)), in place in data */
		memcpy(b->data, b->ivs, m * bs);
		for (size_t i = 0; i < m; i++)
			b->ip[i] = b->data + i * bs;
		rc = lanes_one_block(cbc, FB_DECRYPT, m, keys + at, 8, b, bs);
		if (!rc)
			rc = lanes_one_block(cbc, FB_ENCRYPT, m, keys + at, key_len == 24 ? 16 : 0, b, bs);
	}
	for (size_t i = 0; !rc && i < m; i++)
		memcpy(macs + (at + i) * mac_len, b->ivs + i * bs, mac_len);
	return rc;
}

/* CBC-MAC or retail MAC of every message through the lane engines, in
 * passes of BATCH_CHUNK. Every length is checked before the first pass;
 * should a pass still fail (memory), the MACs written are wiped. */
static int mac_batch_lanes(enum fb_mac_alg alg, const fb_cipher *cbc, size_t n, const uint8_t *const *keys,
			   size_t key_len, enum fb_mac_pad pad, const uint8_t *const *in, const size_t *in_len,
			   uint8_t *macs, size_t mac_len)
{
	unsigned bs = (unsigned)fb_cipher_block_size(cbc);
	size_t most = 0; /* the largest padded total of one pass */
	for (size_t at = 0; at < n; at += BATCH_CHUNK) {
		size_t total = 0;
		for (size_t i = at; i < n && i < at + BATCH_CHUNK; i++) {
			if (!in_len[i] && pad == FB_MAC_PAD1)
				return FB_ERR_DATA_LENGTH; /* method 1 needs at least one bit of data */
			if (in_len[i] > SIZE_MAX / 2 - total - 2 * bs)
				return FB_ERR_ARGUMENT;
			total += padded_len(pad, bs, in_len[i]);
		}
		most = total > most ? total : most;
	}
	size_t chunk = n < BATCH_CHUNK ? n : BATCH_CHUNK;
	batch_mem b = { 0 };
	int rc = batch_alloc(&b, chunk, bs, most > chunk * bs ? most : chunk * bs);
	for (size_t at = 0; !rc && at < n; at += chunk)
		rc = mac_chunk(alg, cbc, at, n - at < chunk ? n - at : chunk, keys, key_len, pad, in, in_len, macs,
			       mac_len, &b, bs);
	if (rc)
		fb_wipe(macs, n * mac_len);
	batch_free(&b);
	return rc;
}

int fb_mac_batch(enum fb_mac_alg alg, const fb_cipher *c, size_t n, const uint8_t *const *keys,
		 size_t key_len, enum fb_mac_pad pad, const uint8_t *const *in, const size_t *in_len,
		 uint8_t *macs, size_t mac_len)
{
	int rc = check_args(alg, c, key_len, pad);
	if (rc)
		return rc;
	if (!n)
		return FB_OK;
	if (!keys || !in || !in_len || !macs)
		return FB_ERR_ARGUMENT;
	for (size_t i = 0; i < n; i++)
		if (!keys[i] || (!in[i] && in_len[i]))
			return FB_ERR_ARGUMENT;
	if (mac_len < 1 || mac_len > fb_cipher_block_size(c))
		return FB_ERR_OUTPUT_SPACE;
	if (n > SIZE_MAX / mac_len)
		return FB_ERR_ARGUMENT;
	const fb_cipher *cbc = alg == FB_MAC_RETAIL ? fb_cipher_by_name("des-cbc") : with_mode(c, FB_CBC);
	if (alg != FB_MAC_CMAC && has_lanes(cbc) && (alg == FB_MAC_RETAIL || key_len == fb_cipher_key_len(c)))
		return mac_batch_lanes(alg, cbc, n, keys, key_len, pad, in, in_len, macs, mac_len);
	/* one at a time through one context, into scratch: nothing is written
	 * unless all succeed */
	uint8_t *tmp = malloc(n * mac_len);
	fb_mac_ctx *m = fb_mac_new();
	rc = tmp && m ? FB_OK : FB_ERR_ARGUMENT;
	for (size_t i = 0; !rc && i < n; i++)
		rc = mac_one(m, alg, c, keys[i], key_len, pad, in[i], in_len[i], tmp + i * mac_len, mac_len);
	if (!rc)
		memcpy(macs, tmp, n * mac_len);
	if (tmp)
		fb_wipe(tmp, n * mac_len);
	free(tmp);
	fb_mac_free(m);
	return rc;
}

int fb_kcv_batch(const fb_cipher *c, size_t n, const uint8_t *const *keys, size_t key_len, int cmac,
		 uint8_t *out, size_t out_len)
{
	static const uint8_t zero[16];
	if (!c)
		return FB_ERR_UNKNOWN_CIPHER;
	size_t bs = fb_cipher_block_size(c);
	if (!n)
		return FB_OK;
	if (!keys || !out)
		return FB_ERR_ARGUMENT;
	if (out_len < 1 || out_len > bs)
		return FB_ERR_OUTPUT_SPACE;
	for (size_t i = 0; i < n; i++)
		if (!keys[i])
			return FB_ERR_ARGUMENT;
	const fb_cipher *cbc = with_mode(c, FB_CBC);
	if (cmac || !has_lanes(cbc) || key_len != fb_cipher_key_len(cbc)) {
		const uint8_t **ins = malloc(n * sizeof *ins);
		size_t *lens = malloc(n * sizeof *lens);
		int rc = ins && lens ? FB_OK : FB_ERR_ARGUMENT;
		for (size_t i = 0; !rc && i < n; i++)
			ins[i] = zero, lens[i] = bs;
		if (!rc)
			rc = cmac ? fb_mac_batch(FB_MAC_CMAC, c, n, keys, key_len, FB_MAC_PAD_NONE, ins, lens, out, out_len)
				  : fb_mac_batch(FB_MAC_CBC, c, n, keys, key_len, FB_MAC_PAD1, ins, lens, out, out_len);
		free(ins);
		free(lens);
		return rc;
	}
	size_t chunk = n < BATCH_CHUNK ? n : BATCH_CHUNK;
	batch_mem b = { 0 };
	int rc = batch_alloc(&b, chunk, (unsigned)bs, chunk * bs);
	for (size_t at = 0; !rc && at < n; at += chunk) {
		size_t m = n - at < chunk ? n - at : chunk;
		for (size_t i = 0; i < m; i++)
			b.ip[i] = zero;
		rc = lanes_one_block(cbc, FB_ENCRYPT, m, keys + at, 0, &b, (unsigned)bs);
		for (size_t i = 0; !rc && i < m; i++)
			memcpy(out + (at + i) * out_len, b.ivs + i * bs, out_len);
	}
	if (rc)
		fb_wipe(out, n * out_len);
	batch_free(&b);
	return rc;
}
