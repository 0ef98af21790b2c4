/*
 * test_diff_cryptopp.cpp - random differential tests of fastblock against
 * Crypto++ for every cipher family fastblock has (DES, 2-key and 3-key
 * Triple-DES, AES, RC6, MARS, Twofish, Serpent) and every mode (ECB, CBC,
 * CFB with full-block feedback, CFB8, OFB, CTR with the whole block as a
 * big-endian counter, XTS), for every implementation this CPU runs.
 *
 * The driver (test_util.h) is the one test_diff_openssl uses: random keys,
 * IVs and lengths, both directions, one-shot and streamed with every split
 * point, in place and not, every padding (ISO/IEC 9797-1 method 2 is
 * Crypto++'s ONE_AND_ZEROS_PADDING). Names test_diff_openssl also covers
 * get the quick parameters (full with the argument "all"). The variable-key
 * names (rc6-<mode>, mars-<mode>) are run with many key lengths: RC6
 * 0..255 bytes, MARS 16..56 in steps of 4 (Crypto++ keyed through
 * UncheckedSetKey where its checked interface is narrower than the
 * specifications).
 *
 * Usage:
 *   test_diff_cryptopp [quick|all]      the tests (FB_TEST_SEED=n replays,
 *                                       FB_QUICK=1 means quick, FB_TEST_ONLY=s
 *                                       only names or impls containing s)
 *   test_diff_cryptopp ref enc|dec NAME KEYHEX IVHEX [nopad]
 *       Crypto++ alone as a filter stdin -> stdout, for test_cli.sh (CTR
 *       and the ciphers `openssl enc` lacks). Exit 1 if Crypto++ refuses.
 *   test_diff_cryptopp impls
 *       Lists fastblock's implementations as "name CT|not-CT yes|no" (runs
 *       here), so test_cli.sh can check `fastblock list` against the API.
 */
#define TU_DIFF_DRIVER
#include "test_util.h"

#include <cryptopp/aes.h>
#include <cryptopp/des.h>
#include <cryptopp/filters.h>
#include <cryptopp/mars.h>
#include <cryptopp/modes.h>
#include <cryptopp/rc6.h>
#include <cryptopp/serpent.h>
#include <cryptopp/twofish.h>
#include <cryptopp/xts.h>

#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

using namespace CryptoPP;
typedef std::unique_ptr<SymmetricCipher> cipher_ptr;

/* split_all, split_edge, dense, n_random, max_random, random_splits */
static const tu_params full_params = { 40, 100, 100, 24, 4200, 3 };
static const tu_params quick_params = { 12, 33, 33, 4, 1100, 1 };
/* Kernels with a wide batch (see tu_world.wide); CFB8 lighter still. */
static const tu_params wide_params = { 16, 64, 70, 12, 4200, 2 };
static const tu_params wide_cfb8_params = { 8, 17, 24, 3, 600, 1 };
/* For the extra key lengths of the variable-key names. */
static const tu_params keylen_params = { 8, 17, 24, 3, 600, 1 };

/* A Crypto++ mode object over block cipher BC. */
template <class BC> static cipher_ptr make_mode(enum fb_mode m, bool enc)
{
	switch (m) {
	case FB_ECB:
		return enc ? cipher_ptr(new typename ECB_Mode<BC>::Encryption)
			   : cipher_ptr(new typename ECB_Mode<BC>::Decryption);
	case FB_CBC:
		return enc ? cipher_ptr(new typename CBC_Mode<BC>::Encryption)
			   : cipher_ptr(new typename CBC_Mode<BC>::Decryption);
	case FB_CFB:
	case FB_CFB8:
		return enc ? cipher_ptr(new typename CFB_Mode<BC>::Encryption)
			   : cipher_ptr(new typename CFB_Mode<BC>::Decryption);
	case FB_OFB:
		return cipher_ptr(new typename OFB_Mode<BC>::Encryption);
	case FB_CTR:
		return cipher_ptr(new typename CTR_Mode<BC>::Encryption);
	case FB_XTS:
		if (BC::BLOCKSIZE != 16)
			return cipher_ptr();
		return enc ? cipher_ptr(new typename XTS_Mode<BC>::Encryption)
			   : cipher_ptr(new typename XTS_Mode<BC>::Decryption);
	}
	return cipher_ptr();
}

/* The Crypto++ cipher for a fastblock family; key_len is one cipher key
 * (half an XTS key), which tells the three DES variants apart. */
static cipher_ptr make_cipher(const std::string &family, size_t key_len, enum fb_mode m,
			      bool enc)
{
	if (family == "des") {
		if (key_len == 8)
			return make_mode<DES>(m, enc);
		if (key_len == 16)
			return make_mode<DES_EDE2>(m, enc);
		return make_mode<DES_EDE3>(m, enc);
	}
	if (family == "aes")
		return make_mode<AES>(m, enc);
	if (family == "rc6")
		return make_mode<RC6>(m, enc);
	if (family == "mars")
		return make_mode<MARS>(m, enc);
	if (family == "twofish")
		return make_mode<Twofish>(m, enc);
	if (family == "serpent")
		return make_mode<Serpent>(m, enc);
	return cipher_ptr();
}

/* ---- Key lengths Crypto++'s checked interface refuses ----------------------
 *
 * Crypto++ 8.7 limits RC6 to 16/24/32-byte keys and MARS to 16..56 in
 * steps of 8, though both algorithms are defined for more (RC6: 0..255
 * bytes, MARS: 16..56 in steps of 4). Their key schedules handle any such
 * length, so the block cipher is keyed through UncheckedSetKey and driven
 * by the ExternalCipher modes; XTS, which has no such variant, is built
 * here from the two raw ciphers (IEEE 1619 with ciphertext stealing; the
 * construction is the one checked against Crypto++'s XTS_Mode above for
 * the standard lengths). */

typedef std::unique_ptr<BlockCipher> block_ptr;

template <class E> static block_ptr raw_cipher(const uint8_t *key, size_t len)
{
	E *e = new E;
	e->UncheckedSetKey(key, (unsigned)len, g_nullNameValuePairs);
	return block_ptr(e);
}

static block_ptr raw_block(const std::string &family, bool enc, const uint8_t *key, size_t len)
{
	if (family == "rc6")
		return enc ? raw_cipher<RC6::Encryption>(key, len)
			   : raw_cipher<RC6::Decryption>(key, len);
	if (family == "mars")
		return enc ? raw_cipher<MARS::Encryption>(key, len)
			   : raw_cipher<MARS::Decryption>(key, len);
	return block_ptr();
}

/* T = T * x in GF(2^128), the XTS byte order (byte 0 least significant). */
static void xts_double(uint8_t *t)
{
	unsigned carry = 0;
	for (int i = 0; i < 16; i++) {
		unsigned b = t[i];
		t[i] = (uint8_t)(b << 1 | carry);
		carry = b >> 7;
	}
	if (carry)
		t[0] ^= 0x87;
}

static void xts_block(const BlockCipher &bc, const uint8_t *t, const uint8_t *in, uint8_t *out)
{
	uint8_t x[16];
	for (int i = 0; i < 16; i++)
		x[i] = in[i] ^ t[i];
	bc.ProcessBlock(x);
	for (int i = 0; i < 16; i++)
		out[i] = x[i] ^ t[i];
}

/* XTS encryption of len >= 16 bytes with data key k1 and tweak key k2. */
static void xts_encrypt(const BlockCipher &data, const BlockCipher &tweak, const uint8_t *iv,
			const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t t[16], cc[16], pp[16];
	size_t full = len / 16, r = len % 16, i;
	memcpy(t, iv, 16);
	tweak.ProcessBlock(t);
	for (i = 0; i + 1 < full || (i < full && !r); i++, xts_double(t))
		xts_block(data, t, in + 16 * i, out + 16 * i);
	if (!r)
		return;
	/* Block i is the last full one; steal from its ciphertext. */
	xts_block(data, t, in + 16 * i, cc);
	xts_double(t);
	memcpy(pp, in + 16 * (i + 1), r);
	memcpy(pp + r, cc + r, 16 - r);
	memcpy(out + 16 * (i + 1), cc, r);
	xts_block(data, t, pp, out + 16 * i);
}

/* The unchecked path: encryption only (all the driver needs). */
static bool cpp_crypt_unchecked(const std::string &family, enum fb_mode m, bool enc,
				enum fb_padding pad, const uint8_t *key, size_t klen,
				const uint8_t *iv, const uint8_t *in, size_t len, std::string &out)
{
	if (!enc)
		return false;
	try {
		if (m == FB_XTS) {
			if (len < 16)
				return false;
			block_ptr d = raw_block(family, true, key, klen / 2);
			block_ptr t = raw_block(family, true, key + klen / 2, klen / 2);
			out.assign(len, '\0');
			xts_encrypt(*d, *t, iv, in, len, (uint8_t *)&out[0]);
			return true;
		}
		block_ptr bc = raw_block(family, true, key, klen);
		std::unique_ptr<StreamTransformation> mode;
		switch (m) {
		case FB_ECB: mode.reset(new ECB_Mode_ExternalCipher::Encryption(*bc)); break;
		case FB_CBC: mode.reset(new CBC_Mode_ExternalCipher::Encryption(*bc, iv)); break;
		case FB_CFB: mode.reset(new CFB_Mode_ExternalCipher::Encryption(*bc, iv, 16)); break;
		case FB_CFB8: mode.reset(new CFB_Mode_ExternalCipher::Encryption(*bc, iv, 1)); break;
		case FB_OFB: mode.reset(new OFB_Mode_ExternalCipher::Encryption(*bc, iv)); break;
		case FB_CTR: mode.reset(new CTR_Mode_ExternalCipher::Encryption(*bc, iv)); break;
		default: return false;
		}
		out.clear();
		BlockPaddingSchemeDef::BlockPaddingScheme scheme =
			(m != FB_ECB && m != FB_CBC) || pad == FB_PAD_NONE
				? BlockPaddingSchemeDef::NO_PADDING
			: pad == FB_PAD_ISO9797_M2 ? BlockPaddingSchemeDef::ONE_AND_ZEROS_PADDING
						   : BlockPaddingSchemeDef::PKCS_PADDING;
		StringSource(in, len, true,
			     new StreamTransformationFilter(*mode, new StringSink(out), scheme));
		return true;
	} catch (const Exception &e) {
		return false;
	}
}

/* 1 if Crypto++'s checked interface takes this key length for the family. */
static bool checked_key_ok(const std::string &family, size_t one_key)
{
	if (family == "rc6")
		return RC6::Encryption().IsValidKeyLength(one_key);
	if (family == "mars")
		return MARS::Encryption().IsValidKeyLength(one_key);
	return true;
}

/* One whole message through Crypto++. Returns false if it refuses. */
static bool cpp_crypt(const std::string &family, enum fb_mode m, size_t bs, bool enc,
		      enum fb_padding pad, const uint8_t *key, size_t klen, const uint8_t *iv,
		      const uint8_t *in, size_t len, std::string &out)
{
	size_t one_key = m == FB_XTS ? klen / 2 : klen;
	if (!checked_key_ok(family, one_key))
		return cpp_crypt_unchecked(family, m, enc, pad, key, klen, iv, in, len, out);
	try {
		cipher_ptr cp = make_cipher(family, one_key, m, enc);
		if (!cp)
			return false;
		if (m == FB_ECB) {
			cp->SetKey(key, klen);
		} else {
			AlgorithmParameters p =
				MakeParameters(Name::IV(), ConstByteArrayParameter(iv, bs));
			if (m == FB_CFB || m == FB_CFB8)
				p(Name::FeedbackSize(), m == FB_CFB8 ? 1 : (int)bs);
			cp->SetKey(key, klen, p);
		}
		out.assign(len, '\0');
		if (m == FB_ECB || m == FB_CBC) {
			BlockPaddingSchemeDef::BlockPaddingScheme scheme =
				pad == FB_PAD_NONE ? BlockPaddingSchemeDef::NO_PADDING
				: pad == FB_PAD_ISO9797_M2 ? BlockPaddingSchemeDef::ONE_AND_ZEROS_PADDING
							   : BlockPaddingSchemeDef::PKCS_PADDING;
			out.clear();
			StringSource(in, len, true,
				     new StreamTransformationFilter(*cp, new StringSink(out), scheme));
		} else if (m == FB_XTS) {
			/* Whole blocks through ProcessData, the last full block
			 * and the partial one (17..31 bytes) through
			 * ProcessLastBlock, which steals ciphertext. Crypto++
			 * 8.7 crashes if ProcessLastBlock gets more than that. */
			if (len < 16)
				return false;
			size_t tail = len % 16 ? 16 + len % 16 : 0, head = len - tail, n = head;
			if (head)
				cp->ProcessData((byte *)&out[0], in, head);
			if (tail)
				n += cp->ProcessLastBlock((byte *)&out[head], tail, in + head, tail);
			out.resize(n);
		} else if (len) {
			cp->ProcessData((byte *)&out[0], in, len);
		}
		return true;
	} catch (const Exception &e) {
		return false;
	}
}

/* The driver's reference callback. */
static long cpp_encrypt(const tu_job *j, const uint8_t *key, const uint8_t *iv,
			const uint8_t *in, size_t len, uint8_t *out)
{
	std::string ct;
	enum fb_padding pad = j->opt.padding == FB_PAD_DEFAULT ? FB_PAD_PKCS7 : j->opt.padding;
	if (!cpp_crypt(fb_cipher_family(j->c), j->mode, j->bs, true, pad, key, j->klen, iv, in,
		       len, ct))
		return -1;
	memcpy(out, ct.data(), ct.size());
	return (long)ct.size();
}

/* 1 if the name takes a key of klen bytes (one key; doubled for XTS). */
static bool accepts_key(const fb_cipher *c, size_t klen)
{
	static const uint8_t key[512] = { 1, 2, 3 }, iv[16] = { 0 };
	fb_ctx *ctx = fb_ctx_new();
	size_t full = fb_cipher_mode(c) == FB_XTS ? 2 * klen : klen;
	int rc = fb_init(ctx, c, FB_ENCRYPT, key, full, fb_cipher_iv_len(c) ? iv : NULL,
			 fb_cipher_iv_len(c), NULL);
	fb_ctx_free(ctx);
	return rc == FB_OK;
}

/* The variable-key names: many key lengths, each with lighter parameters;
 * lengths the specification forbids must be refused. */
static void run_key_lengths(tu_world *w, tu_job *j)
{
	/* 16, 24 and 32 bytes are covered by the fixed-size names. */
	/* RC6 allows an empty key; fastblock refuses it (a key everyone knows). */
	static const size_t rc6_ok[] = { 1, 2, 5, 13, 20, 33, 64, 255 };
	static const size_t rc6_bad[] = { 0, 256, 300 };
	static const size_t mars_ok[] = { 20, 28, 36, 40, 44, 48, 52, 56 };
	static const size_t mars_bad[] = { 0, 8, 12, 17, 18, 30, 57, 60, 64 };
	std::string fam = fb_cipher_family(j->c);
	const size_t *ok = fam == "rc6" ? rc6_ok : mars_ok, *bad = fam == "rc6" ? rc6_bad : mars_bad;
	size_t nok = fam == "rc6" ? sizeof rc6_ok / sizeof *rc6_ok : sizeof mars_ok / sizeof *mars_ok;
	size_t nbad = fam == "rc6" ? sizeof rc6_bad / sizeof *rc6_bad
				   : sizeof mars_bad / sizeof *mars_bad;
	const tu_params *saved = w->p;
	size_t i;

	for (i = 0; i < nbad; i++)
		tu_check(&w->st, !accepts_key(j->c, bad[i]), "%s accepts a %zu-byte key", j->name,
			 bad[i]);
	w->p = &keylen_params;
	/* Quick: every other length. */
	for (i = 0; i < nok; i += saved == &quick_params ? 2 : 1) {
		if (!tu_check(&w->st, accepts_key(j->c, ok[i]), "%s refuses a %zu-byte key",
			      j->name, ok[i]))
			continue;
		j->klen = j->mode == FB_XTS ? 2 * ok[i] : ok[i];
		tu_run_all_impls(w, j);
	}
	w->p = saved;
}

/* 1 for the names test_diff_openssl also checks (DES and AES except DES
 * CTR and des-ede-cfb8, which OpenSSL lacks): they get the quick
 * parameters here, to keep the run time down. */
static bool openssl_covers(const fb_cipher *c)
{
	std::string fam = fb_cipher_family(c), name = fb_cipher_name(c);
	if (fam == "aes")
		return name != "aes-192-xts";
	return fam == "des" && fb_cipher_mode(c) != FB_CTR && name != "des-ede-cfb8";
}

/* ---- ref: Crypto++ as a command-line filter ------------------------------ */

static bool from_hex(const char *s, std::vector<uint8_t> &out)
{
	size_t n = strlen(s);
	if (n % 2)
		return false;
	out.clear();
	for (size_t i = 0; i < n; i += 2) {
		unsigned v;
		if (sscanf(s + i, "%2x", &v) != 1)
			return false;
		out.push_back((uint8_t)v);
	}
	return true;
}

static int ref_main(int argc, char **argv)
{
	std::vector<uint8_t> key, iv;
	if (argc < 6 || (strcmp(argv[2], "enc") && strcmp(argv[2], "dec"))) {
		fputs("usage: test_diff_cryptopp ref enc|dec NAME KEYHEX IVHEX [nopad]\n", stderr);
		return 2;
	}
	const fb_cipher *c = fb_cipher_by_name(argv[3]);
	if (!c || !from_hex(argv[4], key) || !from_hex(argv[5], iv)) {
		fputs("ref: unknown cipher or bad hex\n", stderr);
		return 2;
	}
	std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
	std::string out;
	enum fb_padding pad = argc > 6 && !strcmp(argv[6], "nopad") ? FB_PAD_NONE : FB_PAD_PKCS7;
	iv.resize(16);
	if (!cpp_crypt(fb_cipher_family(c), fb_cipher_mode(c), fb_cipher_block_size(c),
		       !strcmp(argv[2], "enc"), pad, key.data(), key.size(), iv.data(),
		       (const uint8_t *)in.data(), in.size(), out)) {
		fputs("ref: Crypto++ refused\n", stderr);
		return 1;
	}
	fwrite(out.data(), 1, out.size(), stdout);
	return 0;
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const char *const families[] = { "des", "aes", "rc6", "mars", "twofish",
						"serpent" };
	if (argc > 1 && !strcmp(argv[1], "ref"))
		return ref_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "impls")) {
		fb_impl_info info;
		for (size_t i = 0; fb_impl_at(i, &info) == FB_OK; i++)
			printf("%s %s %s\n", info.name, info.constant_time ? "CT" : "not-CT",
			       info.supported ? "yes" : "no");
		return 0;
	}
	const char *env = getenv("FB_QUICK");
	bool quick = (argc > 1 && !strcmp(argv[1], "quick")) || (env && !strcmp(env, "1"));
	bool all = argc > 1 && !strcmp(argv[1], "all");
	double t0 = tu_now();
	tu_world w;
	tu_job j;
	const fb_cipher *c;

	if (!tu_world_init(&w, quick ? &quick_params : &full_params)) {
		puts("out of memory");
		return 1;
	}
	w.wide = &wide_params;
	w.wide_cfb8 = &wide_cfb8_params;
	printf("test_diff_cryptopp: %s mode, seed %llu, Crypto++ %d, CPU: %s\n",
	       quick ? "quick" : "full", (unsigned long long)w.st.seed, CRYPTOPP_VERSION,
	       fb_cpu_description());
	for (const char *fam : families) {
		bool seen = false;
		for (size_t i = 0; (c = fb_cipher_at(i)) != NULL; i++)
			seen = seen || !strcmp(fb_cipher_family(c), fam);
		if (!seen) {
			printf("SKIP %s: not in this fastblock build\n", fam);
			tu_skip(&w.st, "family not in this build");
		}
	}
	for (size_t i = 0; (c = fb_cipher_at(i)) != NULL; i++) {
		tu_job_init(&j, c, cpp_encrypt, NULL);
		/* A name that also takes a key 4 bytes longer is a
		 * variable-key name (rc6-cbc, mars-ctr). */
		size_t one = j.mode == FB_XTS ? j.klen / 2 : j.klen;
		if (accepts_key(c, one + 4)) {
			run_key_lengths(&w, &j);
		} else if (!quick && !all && openssl_covers(c)) {
			w.p = &quick_params;
			tu_run_all_impls(&w, &j);
			w.p = &full_params;
		} else {
			tu_run_all_impls(&w, &j);
		}
	}
	tu_world_free(&w);
	return tu_finish(&w.st, "test_diff_cryptopp", tu_now() - t0);
}
