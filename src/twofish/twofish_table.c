/*
 * twofish/table: portable Twofish with "full keying" (paper, 4.3.1).
 *
 * Key setup builds four 256-entry tables of 32-bit words, each one
 * key-dependent S-box composed with its MDS column, so that a round's g()
 * is four loads and three XORs. The last q permutation of every S-box is
 * folded into the generated twofish_mds_q tables, so a table entry costs
 * k-1 byte lookups and one word lookup (k = key bytes / 8).
 *
 * Not constant-time: table indices depend on key and data.
 */
#include "twofish_impl.h"
#include "twofish_tables.h"

unsigned fb_twofish_key_words(const uint8_t *key, size_t keylen, uint32_t me[4], uint32_t mo[4],
			      uint32_t sv[4])
{
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return 0;
	unsigned k = (unsigned)keylen / 8;
	for (unsigned i = 0; i < k; i++) {
		me[i] = fb_load32_le(key + 8 * i);
		mo[i] = fb_load32_le(key + 8 * i + 4);
		/* S_i = RS * (8 key bytes), by nibble tables. */
		uint64_t c = (uint64_t)me[i] | (uint64_t)mo[i] << 32;
		uint32_t w = 0;
		for (unsigned t = 0; t < 16; t++)
			w ^= twofish_rs_nib[16 * t + ((c >> (4 * t)) & 15)];
		sv[k - 1 - i] = w;
	}
	return k;
}

#define TF_B(w, p) (((w) >> (8 * (p))) & 255u)

/* The four S-box + MDS column tables for key words lw[0..k-1] (L0 is
 * applied last). One pass over x computes all four positions: they share
 * the first-stage loads (q0 or q1 of x) and run as independent chains. */
static void tf_fill_tables(uint32_t s[4][256], const uint32_t *lw, unsigned k)
{
	const uint8_t *q0 = twofish_q[0], *q1 = twofish_q[1];
	const uint32_t(*mq)[256] = twofish_mds_q;
	unsigned a0 = TF_B(lw[0], 0), a1 = TF_B(lw[0], 1), a2 = TF_B(lw[0], 2), a3 = TF_B(lw[0], 3);
	unsigned b0 = TF_B(lw[1], 0), b1 = TF_B(lw[1], 1), b2 = TF_B(lw[1], 2), b3 = TF_B(lw[1], 3);
	if (k == 2) {
		for (unsigned x = 0; x < 256; x++) {
			unsigned u = q0[x], v = q1[x];
			s[0][x] = mq[0][q0[u ^ b0] ^ a0];
			s[1][x] = mq[1][q0[v ^ b1] ^ a1];
			s[2][x] = mq[2][q1[u ^ b2] ^ a2];
			s[3][x] = mq[3][q1[v ^ b3] ^ a3];
		}
		return;
	}
	unsigned c0 = TF_B(lw[2], 0), c1 = TF_B(lw[2], 1), c2 = TF_B(lw[2], 2), c3 = TF_B(lw[2], 3);
	if (k == 3) {
		for (unsigned x = 0; x < 256; x++) {
			unsigned u = q0[x], v = q1[x];
			s[0][x] = mq[0][q0[q0[v ^ c0] ^ b0] ^ a0];
			s[1][x] = mq[1][q0[q1[v ^ c1] ^ b1] ^ a1];
			s[2][x] = mq[2][q1[q0[u ^ c2] ^ b2] ^ a2];
			s[3][x] = mq[3][q1[q1[u ^ c3] ^ b3] ^ a3];
		}
		return;
	}
	unsigned d0 = TF_B(lw[3], 0), d1 = TF_B(lw[3], 1), d2 = TF_B(lw[3], 2), d3 = TF_B(lw[3], 3);
	for (unsigned x = 0; x < 256; x++) {
		unsigned u = q0[x], v = q1[x];
		s[0][x] = mq[0][q0[q0[q1[v ^ d0] ^ c0] ^ b0] ^ a0];
		s[1][x] = mq[1][q0[q1[q1[u ^ d1] ^ c1] ^ b1] ^ a1];
		s[2][x] = mq[2][q1[q0[q0[u ^ d2] ^ c2] ^ b2] ^ a2];
		s[3][x] = mq[3][q1[q1[q0[v ^ d3] ^ c3] ^ b3] ^ a3];
	}
}

/* The 40 subkeys (paper, 4.3.2): A_i = h(2i * rho, Me), B_i = h((2i+1) *
 * rho, Mo) <<< 8, K_2i = A_i + B_i, K_2i+1 = (A_i + 2 B_i) <<< 9. Every input
 * of h has four equal bytes x. */
static void tf_subkeys(uint32_t *kk, const uint32_t *me, const uint32_t *mo, unsigned k)
{
	const uint8_t *q0 = twofish_q[0], *q1 = twofish_q[1];
	uint32_t hv[2];
	for (unsigned x = 0; x < 40; x++) {
		const uint32_t *l = (x & 1) ? mo : me;
		unsigned b0 = x, b1 = x, b2 = x, b3 = x;
		if (k == 4) {
			b0 = q1[b0] ^ TF_B(l[3], 0);
			b1 = q0[b1] ^ TF_B(l[3], 1);
			b2 = q0[b2] ^ TF_B(l[3], 2);
			b3 = q1[b3] ^ TF_B(l[3], 3);
		}
		if (k >= 3) {
			b0 = q1[b0] ^ TF_B(l[2], 0);
			b1 = q1[b1] ^ TF_B(l[2], 1);
			b2 = q0[b2] ^ TF_B(l[2], 2);
			b3 = q0[b3] ^ TF_B(l[2], 3);
		}
		b0 = q0[q0[b0] ^ TF_B(l[1], 0)] ^ TF_B(l[0], 0);
		b1 = q0[q1[b1] ^ TF_B(l[1], 1)] ^ TF_B(l[0], 1);
		b2 = q1[q0[b2] ^ TF_B(l[1], 2)] ^ TF_B(l[0], 2);
		b3 = q1[q1[b3] ^ TF_B(l[1], 3)] ^ TF_B(l[0], 3);
		hv[x & 1] = twofish_mds_q[0][b0] ^ twofish_mds_q[1][b1] ^ twofish_mds_q[2][b2] ^
			    twofish_mds_q[3][b3];
		if (x & 1) {
			uint32_t a = hv[0], b = fb_rotl32(hv[1], 8);
			kk[x - 1] = a + b;
			kk[x] = fb_rotl32(a + 2 * b, 9);
		}
	}
}

int fb_twofish_table_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	twofish_table_ks *ks = ksp;
	uint32_t me[4], mo[4], sv[4];
	unsigned k = fb_twofish_key_words(key, keylen, me, mo, sv);
	if (!k)
		return FB_ERR_KEY_LENGTH;
	tf_subkeys(ks->k, me, mo, k);
	tf_fill_tables(ks->s, sv, k);
	fb_wipe(me, sizeof me);
	fb_wipe(mo, sizeof mo);
	fb_wipe(sv, sizeof sv);
	return FB_OK;
}

/* g(x) and g(x <<< 8) by full-keying tables. */
#define TF_G0(s, x) ((s)[0][(x) & 255] ^ (s)[1][((x) >> 8) & 255] ^ \
		     (s)[2][((x) >> 16) & 255] ^ (s)[3][(x) >> 24])
#define TF_G1(s, x) ((s)[0][(x) >> 24] ^ (s)[1][(x) & 255] ^ \
		     (s)[2][((x) >> 8) & 255] ^ (s)[3][((x) >> 16) & 255])

/* One round on (a, b) -> (c, d) with subkeys k[0], k[1], and its inverse. */
#define TF_ENC_ROUND(s, a, b, c, d, k) do { \
		uint32_t t0_ = TF_G0(s, a), t1_ = TF_G1(s, b); \
		c = fb_rotr32(c ^ (t0_ + t1_ + (k)[0]), 1); \
		d = fb_rotl32(d, 1) ^ (t0_ + 2 * t1_ + (k)[1]); \
	} while (0)
#define TF_DEC_ROUND(s, a, b, c, d, k) do { \
		uint32_t t0_ = TF_G0(s, a), t1_ = TF_G1(s, b); \
		c = fb_rotl32(c, 1) ^ (t0_ + t1_ + (k)[0]); \
		d = fb_rotr32(d ^ (t0_ + 2 * t1_ + (k)[1]), 1); \
	} while (0)

/* Two blocks at a time where there are two: a round is a chain of about
 * ten dependent operations, so one block leaves the core mostly idle. */
void fb_twofish_table_encrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const twofish_table_ks *ks = ksp;
	const uint32_t(*s)[256] = ks->s;
	const uint32_t *k = ks->k;
	for (; n >= 2; n -= 2, in += 32, out += 32) {
		uint32_t a = fb_load32_le(in) ^ k[0], b = fb_load32_le(in + 4) ^ k[1];
		uint32_t c = fb_load32_le(in + 8) ^ k[2], d = fb_load32_le(in + 12) ^ k[3];
		uint32_t e = fb_load32_le(in + 16) ^ k[0], f = fb_load32_le(in + 20) ^ k[1];
		uint32_t g = fb_load32_le(in + 24) ^ k[2], h = fb_load32_le(in + 28) ^ k[3];
		for (unsigned r = 0; r < 16; r += 2) {
			TF_ENC_ROUND(s, a, b, c, d, k + 8 + 2 * r);
			TF_ENC_ROUND(s, e, f, g, h, k + 8 + 2 * r);
			TF_ENC_ROUND(s, c, d, a, b, k + 10 + 2 * r);
			TF_ENC_ROUND(s, g, h, e, f, k + 10 + 2 * r);
		}
		fb_store32_le(out, c ^ k[4]);
		fb_store32_le(out + 4, d ^ k[5]);
		fb_store32_le(out + 8, a ^ k[6]);
		fb_store32_le(out + 12, b ^ k[7]);
		fb_store32_le(out + 16, g ^ k[4]);
		fb_store32_le(out + 20, h ^ k[5]);
		fb_store32_le(out + 24, e ^ k[6]);
		fb_store32_le(out + 28, f ^ k[7]);
	}
	if (n) {
		uint32_t a = fb_load32_le(in) ^ k[0], b = fb_load32_le(in + 4) ^ k[1];
		uint32_t c = fb_load32_le(in + 8) ^ k[2], d = fb_load32_le(in + 12) ^ k[3];
		/* unrolled: the single block is the serial modes' latency path */
		#pragma GCC unroll 8
		for (unsigned r = 0; r < 16; r += 2) {
			TF_ENC_ROUND(s, a, b, c, d, k + 8 + 2 * r);
			TF_ENC_ROUND(s, c, d, a, b, k + 10 + 2 * r);
		}
		fb_store32_le(out, c ^ k[4]);
		fb_store32_le(out + 4, d ^ k[5]);
		fb_store32_le(out + 8, a ^ k[6]);
		fb_store32_le(out + 12, b ^ k[7]);
	}
}

void fb_twofish_table_decrypt(const void *ksp, uint8_t *out, const uint8_t *in, size_t n)
{
	const twofish_table_ks *ks = ksp;
	const uint32_t(*s)[256] = ks->s;
	const uint32_t *k = ks->k;
	for (; n >= 2; n -= 2, in += 32, out += 32) {
		uint32_t c = fb_load32_le(in) ^ k[4], d = fb_load32_le(in + 4) ^ k[5];
		uint32_t a = fb_load32_le(in + 8) ^ k[6], b = fb_load32_le(in + 12) ^ k[7];
		uint32_t g = fb_load32_le(in + 16) ^ k[4], h = fb_load32_le(in + 20) ^ k[5];
		uint32_t e = fb_load32_le(in + 24) ^ k[6], f = fb_load32_le(in + 28) ^ k[7];
		for (int r = 14; r >= 0; r -= 2) {
			TF_DEC_ROUND(s, c, d, a, b, k + 10 + 2 * r);
			TF_DEC_ROUND(s, g, h, e, f, k + 10 + 2 * r);
			TF_DEC_ROUND(s, a, b, c, d, k + 8 + 2 * r);
			TF_DEC_ROUND(s, e, f, g, h, k + 8 + 2 * r);
		}
		fb_store32_le(out, a ^ k[0]);
		fb_store32_le(out + 4, b ^ k[1]);
		fb_store32_le(out + 8, c ^ k[2]);
		fb_store32_le(out + 12, d ^ k[3]);
		fb_store32_le(out + 16, e ^ k[0]);
		fb_store32_le(out + 20, f ^ k[1]);
		fb_store32_le(out + 24, g ^ k[2]);
		fb_store32_le(out + 28, h ^ k[3]);
	}
	if (n) {
		uint32_t c = fb_load32_le(in) ^ k[4], d = fb_load32_le(in + 4) ^ k[5];
		uint32_t a = fb_load32_le(in + 8) ^ k[6], b = fb_load32_le(in + 12) ^ k[7];
		#pragma GCC unroll 8
		for (int r = 14; r >= 0; r -= 2) {
			TF_DEC_ROUND(s, c, d, a, b, k + 10 + 2 * r);
			TF_DEC_ROUND(s, a, b, c, d, k + 8 + 2 * r);
		}
		fb_store32_le(out, a ^ k[0]);
		fb_store32_le(out + 4, b ^ k[1]);
		fb_store32_le(out + 8, c ^ k[2]);
		fb_store32_le(out + 12, d ^ k[3]);
	}
}

/* CBC encryption with the chaining value kept in registers. */
void fb_twofish_table_cbc_enc(const void *ksp, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	const twofish_table_ks *ks = ksp;
	const uint32_t(*s)[256] = ks->s;
	const uint32_t *k = ks->k;
	uint32_t x0 = fb_load32_le(iv), x1 = fb_load32_le(iv + 4);
	uint32_t x2 = fb_load32_le(iv + 8), x3 = fb_load32_le(iv + 12);
	for (; n; n--, in += 16, out += 16) {
		uint32_t a = fb_load32_le(in) ^ x0 ^ k[0], b = fb_load32_le(in + 4) ^ x1 ^ k[1];
		uint32_t c = fb_load32_le(in + 8) ^ x2 ^ k[2], d = fb_load32_le(in + 12) ^ x3 ^ k[3];
		#pragma GCC unroll 8
		for (unsigned r = 0; r < 16; r += 2) {
			TF_ENC_ROUND(s, a, b, c, d, k + 8 + 2 * r);
			TF_ENC_ROUND(s, c, d, a, b, k + 10 + 2 * r);
		}
		x0 = c ^ k[4], x1 = d ^ k[5], x2 = a ^ k[6], x3 = b ^ k[7];
		fb_store32_le(out, x0);
		fb_store32_le(out + 4, x1);
		fb_store32_le(out + 8, x2);
		fb_store32_le(out + 12, x3);
	}
	fb_store32_le(iv, x0);
	fb_store32_le(iv + 4, x1);
	fb_store32_le(iv + 8, x2);
	fb_store32_le(iv + 12, x3);
}

/* CBC decryption: eight blocks at a time through the two-way decryption
 * above, into a small buffer, then XORed with the ciphertext before them
 * (in place, each is read before it is overwritten). */
void fb_twofish_table_cbc_dec(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv)
{
	uint8_t p[8 * 16];
	uint64_t prev[2], c[2];
	memcpy(prev, iv, 16);
	while (n) {
		size_t m = n < 8 ? n : 8;
		fb_twofish_table_decrypt(ks, p, in, m);
		for (size_t i = 0; i < m; i++, in += 16, out += 16) {
			uint64_t x[2];
			memcpy(c, in, 16); /* before an in-place overwrite */
			memcpy(x, p + 16 * i, 16);
			x[0] ^= prev[0], x[1] ^= prev[1];
			memcpy(out, x, 16);
			prev[0] = c[0], prev[1] = c[1];
		}
		n -= m;
	}
	memcpy(iv, prev, 16);
	fb_wipe(p, sizeof p);
}

const fb_kernel fb_twofish_table = {
	.name = "twofish/table",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(twofish_table_ks),
	.note = "full keying: 4 x 256 x 32-bit S-box+MDS tables per key",
	.setkey = fb_twofish_table_setkey,
	.encrypt = fb_twofish_table_encrypt,
	.decrypt = fb_twofish_table_decrypt,
	.cbc_enc = fb_twofish_table_cbc_enc,
	.cbc_dec = fb_twofish_table_cbc_dec,
};
