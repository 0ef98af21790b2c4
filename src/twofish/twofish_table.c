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

static void tf_keys(twofish_table_ks *ks, const uint32_t *me, const uint32_t *mo, const uint32_t *sv,
		    unsigned k)
{
	tf_subkeys(ks->k, me, mo, k);
	tf_fill_tables(ks->s, sv, k);
}

int fb_twofish_table_setkey_by(void *ksp, const uint8_t *key, size_t keylen, fb_twofish_keys_fn keys)
{
	twofish_table_ks *ks = ksp;
	uint32_t me[4], mo[4], sv[4];
	unsigned k = fb_twofish_key_words(key, keylen, me, mo, sv);
	if (!k)
		return FB_ERR_KEY_LENGTH;
	keys(ks, me, mo, sv, k);
	fb_wipe(me, sizeof me);
	fb_wipe(mo, sizeof mo);
	fb_wipe(sv, sizeof sv);
	return FB_OK;
}

int fb_twofish_table_setkey(void *ksp, const uint8_t *key, size_t keylen)
{
	return fb_twofish_table_setkey_by(ksp, key, keylen, tf_keys);
}

/* g(x) and g(x <<< 8) by full-keying tables, for interleaved blocks
 * (throughput): byte 1's index by one MOVZX from the high byte register
 * (fb_byte1_high; the compiler's own form adds a second zero extension,
 * 1.04-1.06x under the AVX2 mask on Zen 4). */
#define TF_G0(s, x) ((s)[0][(x) & 255] ^ (s)[1][fb_byte1_high(x)] ^ \
		     (s)[2][((x) >> 16) & 255] ^ (s)[3][(x) >> 24])
#define TF_G1(s, x) ((s)[0][(x) >> 24] ^ (s)[1][(x) & 255] ^ \
		     (s)[2][fb_byte1_high(x)] ^ (s)[3][((x) >> 16) & 255])

/* The same with bytes 1 and 2 by BEXTR (fb_bextr32): four ALU operations
 * per g word instead of five, and interleaved blocks are bound by the
 * ALUs (AMD Zen, where BEXTR is one uop). Only in the _bmi functions. */
#define TF_G0_BMI(s, x) ((s)[0][(x) & 255] ^ (s)[1][fb_bextr32(x, 8, 8)] ^ \
			 (s)[2][fb_bextr32(x, 16, 8)] ^ (s)[3][(x) >> 24])
#define TF_G1_BMI(s, x) ((s)[0][(x) >> 24] ^ (s)[1][(x) & 255] ^ \
			 (s)[2][fb_bextr32(x, 8, 8)] ^ (s)[3][fb_bextr32(x, 16, 8)])

/* The same with bytes 1 and 2 by RORX and MOVZX (fb_rorx32): Intel runs
 * BEXTR as two uops and a high byte register needs the word in one of
 * four registers (copies), so four interleaved blocks, bound there by
 * how many uops the core renames a cycle, take the fewest this way
 * (Sapphire Rapids class, four blocks: 0.94-0.96 of the portable
 * form's time, 0.78-0.86 of BEXTR's). Only in the _rorx functions. */
#define TF_G0_RORX(s, x) ((s)[0][(x) & 255] ^ (s)[1][(uint8_t)fb_rorx32(x, 8)] ^ \
			  (s)[2][(uint8_t)fb_rorx32(x, 16)] ^ (s)[3][(x) >> 24])
#define TF_G1_RORX(s, x) ((s)[0][(x) >> 24] ^ (s)[1][(x) & 255] ^ \
			  (s)[2][(uint8_t)fb_rorx32(x, 8)] ^ (s)[3][(uint8_t)fb_rorx32(x, 16)])

/* g on one block's chain: byte 2's index takes a shift and a zero
 * extension and the other three one instruction each (byte 1 as a high
 * byte register), so its load comes last and the other three terms are
 * XORed while it arrives. Left to itself the compiler XORs them in
 * source order, byte 2 third (Zen 4, CBC/CFB/OFB encryption: 1.04x). */
static inline __attribute__((always_inline)) uint32_t tf_g_chain(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3)
{
	FB_KEEP(b0);
	FB_KEEP(b1);
	FB_KEEP(b3);
	b0 ^= b1;
	FB_KEEP(b0);
	b0 ^= b3;
	FB_KEEP(b0);
	return b0 ^ b2;
}
/* The same XORs as a balanced tree, byte 2's load paired with byte 3's:
 * on Intel (Sapphire Rapids class) a serial chain takes 0.98 of the
 * ordered chain's time; on Zen 4 the ordered chain measured faster than
 * the compiler's own order, and the tree was not timed there
 * (twofish/table-avx512-tree). */
static inline __attribute__((always_inline)) uint32_t tf_g_tree(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3)
{
	b0 ^= b1;
	b2 ^= b3;
	FB_KEEP(b0);
	FB_KEEP(b2);
	return b0 ^ b2;
}

#define TF_G0_BY(g, s, x) g((s)[0][(x) & 255], (s)[1][fb_byte1_high(x)], (s)[2][((x) >> 16) & 255], (s)[3][(x) >> 24])
#define TF_G1_BY(g, s, x) g((s)[1][(x) & 255], (s)[2][fb_byte1_high(x)], (s)[3][((x) >> 16) & 255], (s)[0][(x) >> 24])
#define TF_G0_CHAIN(s, x) TF_G0_BY(tf_g_chain, s, x)
#define TF_G1_CHAIN(s, x) TF_G1_BY(tf_g_chain, s, x)
/* On the -tree chains: every index by a shift (fb_byte_index), none from a
 * high byte register. */
#define TF_G0_TREE(s, x) tf_g_tree((s)[0][fb_byte_index(x, 0)], (s)[1][fb_byte_index(x, 1)], \
				   (s)[2][fb_byte_index(x, 2)], (s)[3][(x) >> 24])
#define TF_G1_TREE(s, x) tf_g_tree((s)[1][fb_byte_index(x, 0)], (s)[2][fb_byte_index(x, 1)], \
				   (s)[3][fb_byte_index(x, 2)], (s)[0][(x) >> 24])

/* The PHT with the subkeys: x = t0 + t1 + k[0], y = t0 + 2 t1 + k[1].
 * TF_PHT leaves the order of the sums to the compiler (interleaved blocks:
 * throughput). On one block's chain, the word that takes no rotation
 * after the PHT is ready a cycle before the other, and so is its g: b's
 * (t1) in encryption, a's (t0) in decryption. TF_PHT_AFTER_T1 and
 * TF_PHT_AFTER_T0 put the subkeys onto that early g, leaving one add
 * between the late g and x, y; the empty asm keeps the compiler from
 * reassociating the sums (on Zen 5, a serial chain takes 0.97 of the time,
 * four interleaved blocks 1.03). */
#define TF_PHT(t0, t1, k, x, y) do { \
		x = (t0) + (t1) + (k)[0]; \
		y = (t0) + 2 * (t1) + (k)[1]; \
	} while (0)
#define TF_PHT_AFTER_T1(t0, t1, k, x, y) do { \
		uint32_t u_ = (t1) + (k)[0], v_ = 2 * (t1) + (k)[1]; \
		__asm__("" : "+r"(u_), "+r"(v_)); \
		x = (t0) + u_; \
		y = (t0) + v_; \
	} while (0)
#define TF_PHT_AFTER_T0(t0, t1, k, x, y) do { \
		uint32_t u_ = (t0) + (k)[0], v_ = (t0) + (k)[1]; \
		__asm__("" : "+r"(u_), "+r"(v_)); \
		x = u_ + (t1); \
		y = v_ + 2 * (t1); \
	} while (0)

/* One round on (a, b) -> (c, d) with subkeys k[0], k[1], and its inverse,
 * g by G0 and G1 and the PHT summed by PHT. */
#define TF_ENC_ROUND_P(G0, G1, PHT, s, a, b, c, d, k) do { \
		uint32_t t0_ = G0(s, a), t1_ = G1(s, b), x_, y_; \
		PHT(t0_, t1_, k, x_, y_); \
		c = fb_rotr32(c ^ x_, 1); \
		d = fb_rotl32(d, 1) ^ y_; \
	} while (0)
#define TF_DEC_ROUND_P(G0, G1, PHT, s, a, b, c, d, k) do { \
		uint32_t t0_ = G0(s, a), t1_ = G1(s, b), x_, y_; \
		PHT(t0_, t1_, k, x_, y_); \
		c = fb_rotl32(c, 1) ^ x_; \
		d = fb_rotr32(d ^ y_, 1); \
	} while (0)
/* How interleaved blocks take g's table indices (the form argument). */
enum { TF_FORM_PORTABLE, TF_FORM_BEXTR, TF_FORM_RORX };

/* m interleaved blocks (m = 1: one chain); form: g by TF_G0 and TF_G1,
 * the _BMI pair or the _RORX pair. */
#define TF_ENC_ROUND(m, form, s, a, b, c, d, k) do { \
		if ((m) == 1) \
			TF_ENC_ROUND_P(TF_G0_CHAIN, TF_G1_CHAIN, TF_PHT_AFTER_T1, s, a, b, c, d, k); \
		else if ((form) == TF_FORM_RORX) \
			TF_ENC_ROUND_P(TF_G0_RORX, TF_G1_RORX, TF_PHT, s, a, b, c, d, k); \
		else if ((form) == TF_FORM_BEXTR) \
			TF_ENC_ROUND_P(TF_G0_BMI, TF_G1_BMI, TF_PHT, s, a, b, c, d, k); \
		else \
			TF_ENC_ROUND_P(TF_G0, TF_G1, TF_PHT, s, a, b, c, d, k); \
	} while (0)
#define TF_DEC_ROUND(m, form, s, a, b, c, d, k) do { \
		if ((m) == 1) \
			TF_DEC_ROUND_P(TF_G0_CHAIN, TF_G1_CHAIN, TF_PHT_AFTER_T0, s, a, b, c, d, k); \
		else if ((form) == TF_FORM_RORX) \
			TF_DEC_ROUND_P(TF_G0_RORX, TF_G1_RORX, TF_PHT, s, a, b, c, d, k); \
		else if ((form) == TF_FORM_BEXTR) \
			TF_DEC_ROUND_P(TF_G0_BMI, TF_G1_BMI, TF_PHT, s, a, b, c, d, k); \
		else \
			TF_DEC_ROUND_P(TF_G0, TF_G1, TF_PHT, s, a, b, c, d, k); \
	} while (0)

/* m blocks (m = 4, 2 or 1, a constant after inlining) through the 16
 * rounds, interleaved: a round is a chain of about twelve cycles that
 * keeps few of the core's ports busy, so one block leaves it mostly idle.
 * w[j] holds block j's words after input whitening, and its last state
 * (before output whitening) on return. Four chains are what the 15 free
 * registers nearly hold: on Zen 5 under the AVX2 mask, 8 KB ECB takes 64
 * TSC ticks a block with four, 66 with three, 82 with two. */
static inline __attribute__((always_inline)) void tf_enc_m(const uint32_t (*s)[256], const uint32_t *k,
							   uint32_t w[][4], const int m, const int form)
{
	#pragma GCC unroll 8
	for (unsigned r = 0; r < 16; r += 2) {
		#pragma GCC unroll 4
		for (int j = 0; j < m; j++)
			TF_ENC_ROUND(m, form, s, w[j][0], w[j][1], w[j][2], w[j][3], k + 8 + 2 * r);
		#pragma GCC unroll 4
		for (int j = 0; j < m; j++)
			TF_ENC_ROUND(m, form, s, w[j][2], w[j][3], w[j][0], w[j][1], k + 10 + 2 * r);
	}
}

static inline __attribute__((always_inline)) void tf_dec_m(const uint32_t (*s)[256], const uint32_t *k,
							   uint32_t w[][4], const int m, const int form)
{
	#pragma GCC unroll 8
	for (int r = 14; r >= 0; r -= 2) {
		#pragma GCC unroll 4
		for (int j = 0; j < m; j++)
			TF_DEC_ROUND(m, form, s, w[j][2], w[j][3], w[j][0], w[j][1], k + 10 + 2 * r);
		#pragma GCC unroll 4
		for (int j = 0; j < m; j++)
			TF_DEC_ROUND(m, form, s, w[j][0], w[j][1], w[j][2], w[j][3], k + 8 + 2 * r);
	}
}

/* Encryption of m blocks: words (a, b, c, d) whitened by k[0..3] in, and
 * (c, d, a, b) by k[4..7] out. */
static inline __attribute__((always_inline)) void tf_enc_blocks(const twofish_table_ks *ks, uint8_t *out,
								const uint8_t *in, const int m, const int form)
{
	const uint32_t *k = ks->k;
	uint32_t w[4][4];
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			w[j][i] = fb_load32_le(in + 16 * j + 4 * i) ^ k[i];
	tf_enc_m(ks->s, k, w, m, form);
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			fb_store32_le(out + 16 * j + 4 * i, w[j][(i + 2) & 3] ^ k[4 + i]);
}

/* Decryption: the same words the other way round. */
static inline __attribute__((always_inline)) void tf_dec_blocks(const twofish_table_ks *ks, uint8_t *out,
								const uint8_t *in, const int m, const int form)
{
	const uint32_t *k = ks->k;
	uint32_t w[4][4];
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			w[j][(i + 2) & 3] = fb_load32_le(in + 16 * j + 4 * i) ^ k[4 + i];
	tf_dec_m(ks->s, k, w, m, form);
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			fb_store32_le(out + 16 * j + 4 * i, w[j][i] ^ k[i]);
}

/* The rest of a run after its groups of four (n < 4 blocks): two
 * interleaved, three (2+1 took longer than four: 367 against 332 TSC
 * ticks, Zen 4 under the AVX2 mask) in a function of its own (inline, the
 * larger body cost runs of 4k+2 blocks 4-10%), or the serial modes' one
 * block, its rounds unrolled for latency. fn takes the block count and
 * form last; fn##3 is its three-block function. */
#define TF_REST(n, form, fn, ...) do { \
		if ((n) == 2) \
			fn(__VA_ARGS__, 2, form); \
		else if ((n) == 3) \
			fn##3(__VA_ARGS__, form); \
		else if (n) \
			fn(__VA_ARGS__, 1, TF_FORM_PORTABLE); \
	} while (0)
#define TF_UNPAREN(...) __VA_ARGS__
#define TF_THREE(fn, params, args)                                      \
	static __attribute__((noinline)) void fn##3(TF_UNPAREN params, const int form) \
	{                                                                 \
		if (form == TF_FORM_RORX)                                 \
			fn(TF_UNPAREN args, 3, TF_FORM_RORX);             \
		else if (form == TF_FORM_BEXTR)                           \
			fn(TF_UNPAREN args, 3, TF_FORM_BEXTR);            \
		else                                                      \
			fn(TF_UNPAREN args, 3, TF_FORM_PORTABLE);         \
	}
TF_THREE(tf_enc_blocks, (const void *ksp, uint8_t *out, const uint8_t *in), (ksp, out, in))
TF_THREE(tf_dec_blocks, (const void *ksp, uint8_t *out, const uint8_t *in), (ksp, out, in))

static inline __attribute__((always_inline)) void tf_encrypt(const void *ksp, uint8_t *out, const uint8_t *in,
							     size_t n, const int form)
{
	for (; n >= 4; n -= 4, in += 64, out += 64)
		tf_enc_blocks(ksp, out, in, 4, form);
	TF_REST(n, form, tf_enc_blocks, ksp, out, in);
}

static inline __attribute__((always_inline)) void tf_decrypt(const void *ksp, uint8_t *out, const uint8_t *in,
							     size_t n, const int form)
{
	for (; n >= 4; n -= 4, in += 64, out += 64)
		tf_dec_blocks(ksp, out, in, 4, form);
	TF_REST(n, form, tf_dec_blocks, ksp, out, in);
}

/* CTR (the ctr32 hook): m counter blocks made in registers, encrypted and
 * XORed into in -> out. The counter's last word is big-endian; only it
 * moves, and the caller keeps it from wrapping inside the call. The mode
 * layer's generic CTR (a buffer of counter blocks, then an XOR pass) costs
 * ~14 ticks a block on top of ECB's 64. */
static inline __attribute__((always_inline)) void tf_ctr_blocks(const twofish_table_ks *ks, uint8_t *out,
								const uint8_t *in, const uint32_t cw[3],
								uint32_t c3, const int m, const int form)
{
	const uint32_t *k = ks->k;
	uint32_t w[4][4];
	for (int j = 0; j < m; j++) {
		for (int i = 0; i < 3; i++)
			w[j][i] = cw[i] ^ k[i];
		w[j][3] = __builtin_bswap32(c3 + (uint32_t)j) ^ k[3]; /* LE word of big-endian bytes */
	}
	tf_enc_m(ks->s, k, w, m, form);
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			fb_store32_le(out + 16 * j + 4 * i,
				      fb_load32_le(in + 16 * j + 4 * i) ^ w[j][(i + 2) & 3] ^ k[4 + i]);
}

TF_THREE(tf_ctr_blocks, (const void *ksp, uint8_t *out, const uint8_t *in, const uint32_t cw[3], uint32_t c3),
	 (ksp, out, in, cw, c3))

static inline __attribute__((always_inline)) void tf_ctr32(const void *ksp, uint8_t *out, const uint8_t *in,
							   size_t n, uint8_t *ctr, const int form)
{
	uint32_t cw[3] = { fb_load32_le(ctr), fb_load32_le(ctr + 4), fb_load32_le(ctr + 8) };
	uint32_t c3 = fb_load32_be(ctr + 12);
	for (; n >= 4; n -= 4, in += 64, out += 64, c3 += 4)
		tf_ctr_blocks(ksp, out, in, cw, c3, 4, form);
	TF_REST(n, form, tf_ctr_blocks, ksp, out, in, cw, c3);
	fb_store32_be(ctr + 12, c3 + (uint32_t)n);
}

/* The 16 rounds of one block on a serial chain, in the order t0 and tree
 * pick (a, b, c, d: the words after input whitening). */
#define TF_CHAIN_ROUNDS(s, k, a, b, c, d, t0, tree) do { \
		_Pragma("GCC unroll 8") for (unsigned r_ = 0; r_ < 16; r_ += 2) { \
			if (tree) { \
				TF_ENC_ROUND_P(TF_G0_TREE, TF_G1_TREE, TF_PHT_AFTER_T0, s, a, b, c, d, k + 8 + 2 * r_); \
				TF_ENC_ROUND_P(TF_G0_TREE, TF_G1_TREE, TF_PHT_AFTER_T0, s, c, d, a, b, k + 10 + 2 * r_); \
			} else if (t0) { \
				TF_ENC_ROUND_P(TF_G0_CHAIN, TF_G1_CHAIN, TF_PHT_AFTER_T0, s, a, b, c, d, k + 8 + 2 * r_); \
				TF_ENC_ROUND_P(TF_G0_CHAIN, TF_G1_CHAIN, TF_PHT_AFTER_T0, s, c, d, a, b, k + 10 + 2 * r_); \
			} else { \
				TF_ENC_ROUND(1, 0, s, a, b, c, d, k + 8 + 2 * r_); \
				TF_ENC_ROUND(1, 0, s, c, d, a, b, k + 10 + 2 * r_); \
			} \
		} \
	} while (0)

/* The serial chains, with the chaining value kept in registers: CBC
 * encryption (the cipher's input is the plaintext XOR the last
 * ciphertext), OFB (the last keystream block alone; the output is the
 * input XOR the new one) and CFB encryption (the last ciphertext alone;
 * the output and the next value are the input XOR the cipher's output).
 * Fused here, OFB and CFB skip the mode layer's pass over a buffer (8 KB
 * OFB on Zen 4: ~5 TSC ticks a block, 3%). t0 (a constant after
 * inlining) puts the subkeys onto t0 instead of t1 in the chain's PHT
 * (TF_PHT_AFTER_T0), and tree (with t0) takes g by TF_G0_TREE and
 * TF_G1_TREE (twofish/table-avx512-tree). By the dependence chain t1 is
 * ready a cycle first, and on Zen 5 that order measured faster; on Zen 4
 * the other one does (twofish/table-avx512-t0: CBC, CFB and OFB
 * encryption 1.03x at 64 B and 8 KB). */
enum { TF_CBC, TF_OFB, TF_CFB };

static inline __attribute__((always_inline)) void tf_chain(const void *ksp, uint8_t *out, const uint8_t *in,
							   size_t n, uint8_t *iv, const int t0, const int tree,
							   const int kind)
{
	const twofish_table_ks *ks = ksp;
	const uint32_t(*s)[256] = ks->s;
	const uint32_t *k = ks->k;
	uint32_t x0 = fb_load32_le(iv), x1 = fb_load32_le(iv + 4);
	uint32_t x2 = fb_load32_le(iv + 8), x3 = fb_load32_le(iv + 12);
	for (; n; n--, in += 16, out += 16) {
		uint32_t a = x0 ^ k[0], b = x1 ^ k[1], c = x2 ^ k[2], d = x3 ^ k[3];
		if (kind == TF_CBC) {
			a ^= fb_load32_le(in), b ^= fb_load32_le(in + 4);
			c ^= fb_load32_le(in + 8), d ^= fb_load32_le(in + 12);
		}
		TF_CHAIN_ROUNDS(s, k, a, b, c, d, t0, tree);
		x0 = c ^ k[4], x1 = d ^ k[5], x2 = a ^ k[6], x3 = b ^ k[7];
		uint32_t o0 = x0, o1 = x1, o2 = x2, o3 = x3;
		if (kind != TF_CBC) {
			o0 ^= fb_load32_le(in), o1 ^= fb_load32_le(in + 4);
			o2 ^= fb_load32_le(in + 8), o3 ^= fb_load32_le(in + 12);
		}
		if (kind == TF_CFB)
			x0 = o0, x1 = o1, x2 = o2, x3 = o3;
		fb_store32_le(out, o0);
		fb_store32_le(out + 4, o1);
		fb_store32_le(out + 8, o2);
		fb_store32_le(out + 12, o3);
	}
	fb_store32_le(iv, x0);
	fb_store32_le(iv + 4, x1);
	fb_store32_le(iv + 8, x2);
	fb_store32_le(iv + 12, x3);
}

/* CFB8 encryption: the shift register in four words, shifted a byte a
 * step; only byte 0 of the cipher's output is used. Through the mode
 * layer's generic path each byte called the block function through a
 * pointer and moved the register through memory. */
static inline __attribute__((always_inline)) void tf_cfb8(const void *ksp, uint8_t *out, const uint8_t *in,
							  size_t len, uint8_t *iv, const int t0, const int tree)
{
	const twofish_table_ks *ks = ksp;
	const uint32_t(*s)[256] = ks->s;
	const uint32_t *k = ks->k;
	uint32_t r0 = fb_load32_le(iv), r1 = fb_load32_le(iv + 4);
	uint32_t r2 = fb_load32_le(iv + 8), r3 = fb_load32_le(iv + 12);
	for (size_t i = 0; i < len; i++) {
		uint32_t a = r0 ^ k[0], b = r1 ^ k[1], c = r2 ^ k[2], d = r3 ^ k[3];
		TF_CHAIN_ROUNDS(s, k, a, b, c, d, t0, tree);
		uint32_t x = (uint8_t)(in[i] ^ c ^ k[4]);
		out[i] = (uint8_t)x;
		r0 = r0 >> 8 | r1 << 24, r1 = r1 >> 8 | r2 << 24;
		r2 = r2 >> 8 | r3 << 24, r3 = r3 >> 8 | x << 24;
	}
	fb_store32_le(iv, r0);
	fb_store32_le(iv + 4, r1);
	fb_store32_le(iv + 8, r2);
	fb_store32_le(iv + 12, r3);
}

/* The three chains of each variant (plain, _t0, _tree). */
#define TF_CHAINS(suffix, t0, tree)                                                                         \
	void fb_twofish_table_cbc_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv)                                                 \
	{                                                                                                    \
		tf_chain(ks, out, in, n, iv, t0, tree, TF_CBC);                                              \
	}                                                                                                    \
	void fb_twofish_table_ofb##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n, uint8_t *iv) \
	{                                                                                                    \
		tf_chain(ks, out, in, n, iv, t0, tree, TF_OFB);                                              \
	}                                                                                                    \
	void fb_twofish_table_cfb_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv)                                                 \
	{                                                                                                    \
		tf_chain(ks, out, in, n, iv, t0, tree, TF_CFB);                                              \
	}                                                                                                    \
	void fb_twofish_table_cfb8_enc##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,    \
					       uint8_t *iv)                                                \
	{                                                                                                    \
		tf_cfb8(ks, out, in, n, iv, t0, tree);                                                       \
	}
TF_CHAINS(, 0, 0)
TF_CHAINS(_t0, 1, 0)
TF_CHAINS(_tree, 1, 1)

/* CBC decryption (cfb 0) or CFB decryption (cfb 1, the cipher encrypts
 * the ciphertext a block behind), m blocks: all m ciphertexts are read
 * before any output is written (in place works), and prev[] carries the
 * chain. */
static inline __attribute__((always_inline)) void tf_chain_dec_blocks(const twofish_table_ks *ks, uint8_t *out,
								      const uint8_t *in, uint32_t prev[4],
								      const int m, const int form, const int cfb)
{
	const uint32_t *k = ks->k;
	uint32_t w[4][4], c[4][4];
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++) {
			if (cfb && m == 1)
				continue; /* a lone block's words: after the rounds (see below) */
			c[j][i] = fb_load32_le(in + 16 * j + 4 * i);
			if (!cfb)
				w[j][(i + 2) & 3] = c[j][i] ^ k[4 + i];
		}
	for (int j = 0; j < m && cfb; j++)
		for (int i = 0; i < 4; i++)
			w[j][i] = (j ? c[j - 1][i] : prev[i]) ^ k[i];
	if (cfb)
		tf_enc_m(ks->s, k, w, m, form);
	else
		tf_dec_m(ks->s, k, w, m, form);
	/* A lone CFB block's ciphertext is read after its rounds: held across
	 * them, its four words cost the one-block chain 0.84 of its speed
	 * (Sapphire Rapids class; four blocks read last ran 0.95) */
	for (int i = 0; i < 4 && cfb && m == 1; i++)
		c[0][i] = fb_load32_le(in + 4 * i);
	for (int j = 0; j < m; j++)
		for (int i = 0; i < 4; i++)
			fb_store32_le(out + 16 * j + 4 * i,
				      cfb ? c[j][i] ^ w[j][(i + 2) & 3] ^ k[4 + i]
					  : w[j][i] ^ k[i] ^ (j ? c[j - 1][i] : prev[i]));
	for (int i = 0; i < 4; i++)
		prev[i] = c[m - 1][i];
}

static inline __attribute__((always_inline)) void tf_chain_dec(const void *ks, uint8_t *out, const uint8_t *in,
							       size_t n, uint8_t *iv, const int form, const int cfb)
{
	uint32_t prev[4] = { fb_load32_le(iv), fb_load32_le(iv + 4), fb_load32_le(iv + 8), fb_load32_le(iv + 12) };
	for (; n >= 4; n -= 4, in += 64, out += 64)
		tf_chain_dec_blocks(ks, out, in, prev, 4, form, cfb);
	/* not TF_REST: a call taking prev's address keeps the chain in memory
	 * (runs of 4k+2 blocks 0.93x) */
	if (n >= 2) {
		tf_chain_dec_blocks(ks, out, in, prev, 2, form, cfb);
		n -= 2, in += 32, out += 32;
	}
	if (n)
		tf_chain_dec_blocks(ks, out, in, prev, 1, TF_FORM_PORTABLE, cfb);
	for (int i = 0; i < 4; i++)
		fb_store32_le(iv + 4 * i, prev[i]);
}

/* The parallel paths: portable, with BEXTR (TF_G0_BMI), with RORX (TF_G0_RORX). */
#define TF_PARALLEL(suffix, form)                                                                            \
	void fb_twofish_table_encrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n)     \
	{                                                                                                    \
		tf_encrypt(ks, out, in, n, form);                                                            \
	}                                                                                                    \
	void fb_twofish_table_decrypt##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n)     \
	{                                                                                                    \
		tf_decrypt(ks, out, in, n, form);                                                            \
	}                                                                                                    \
	void fb_twofish_table_cbc_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv)                                                 \
	{                                                                                                    \
		tf_chain_dec(ks, out, in, n, iv, form, 0);                                                   \
	}                                                                                                    \
	void fb_twofish_table_cfb_dec##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,     \
					      uint8_t *iv)                                                 \
	{                                                                                                    \
		tf_chain_dec(ks, out, in, n, iv, form, 1);                                                   \
	}                                                                                                    \
	void fb_twofish_table_ctr32##suffix(const void *ks, uint8_t *out, const uint8_t *in, size_t n,       \
					    uint8_t *ctr)                                                  \
	{                                                                                                    \
		tf_ctr32(ks, out, in, n, ctr, form);                                                         \
	}
TF_PARALLEL(, TF_FORM_PORTABLE)
#if FB_X86
TF_PARALLEL(_bmi, TF_FORM_BEXTR)
TF_PARALLEL(_rorx, TF_FORM_RORX)
#endif

const fb_kernel fb_twofish_table = {
	.name = "twofish/table",
	.family = "twofish",
	.block_size = 16,
	.cpu_needs = 0,
	.constant_time = 0,
	.batch = 1,
	.ks_size = sizeof(twofish_table_ks),
	.note = "full keying: 4 x 256 x 32-bit S-box+MDS tables per key",
	.fills_schedule = 1,
	.setkey = fb_twofish_table_setkey,
	.encrypt = fb_twofish_table_encrypt,
	.decrypt = fb_twofish_table_decrypt,
	.cbc_enc = fb_twofish_table_cbc_enc,
	.ofb = fb_twofish_table_ofb,
	.cfb_enc = fb_twofish_table_cfb_enc,
	.cfb8_enc = fb_twofish_table_cfb8_enc,
	.cbc_dec = fb_twofish_table_cbc_dec,
	.cfb_dec = fb_twofish_table_cfb_dec,
	.ctr32 = fb_twofish_table_ctr32,
};
