/*
 * peer_cryptopp.cpp - Crypto++ through its mode templates (ECB_Mode<DES>,
 * CTR_Mode<RC6>, XTS_Mode<Serpent>, ...) and ProcessData, the usual way.
 * Crypto++ has all seven of fastblock's ciphers. C interface: bench_peer.h.
 */
#include "bench_peer.h"

#include <cryptopp/aes.h>
#include <cryptopp/cryptlib.h>
#include <cryptopp/des.h>
#include <cryptopp/mars.h>
#include <cryptopp/modes.h>
#include <cryptopp/rc6.h>
#include <cryptopp/serpent.h>
#include <cryptopp/twofish.h>
#include <cryptopp/xts.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>

using namespace CryptoPP;

namespace {

template <class M>
SymmetricCipher *pick(bool enc)
{
	if (enc)
		return new typename M::Encryption;
	return new typename M::Decryption;
}

/* One block cipher BC in one of the seven modes. */
template <class BC>
SymmetricCipher *make_mode(int mode, bool enc)
{
	switch (mode) {
	case BM_ECB: return pick<ECB_Mode<BC>>(enc);
	case BM_CBC: return pick<CBC_Mode<BC>>(enc);
	case BM_CFB:
	case BM_CFB8: return pick<CFB_Mode<BC>>(enc); /* feedback size set with the key */
	case BM_OFB: return pick<OFB_Mode<BC>>(enc);
	case BM_CTR: return pick<CTR_Mode<BC>>(enc);
	case BM_XTS:
		if constexpr (BC::BLOCKSIZE == 16)
			return pick<XTS_Mode<BC>>(enc);
		return nullptr;
	}
	return nullptr;
}

SymmetricCipher *make(const bench_alg *a, bool enc)
{
	const char *f = a->family;
	if (!std::strcmp(f, "des")) {
		if (a->key_len == 8)
			return make_mode<DES>(a->mode, enc);
		if (a->key_len == 16)
			return make_mode<DES_EDE2>(a->mode, enc);
		return make_mode<DES_EDE3>(a->mode, enc);
	}
	if (!std::strcmp(f, "aes"))
		return make_mode<AES>(a->mode, enc);
	if (!std::strcmp(f, "rc6"))
		return make_mode<RC6>(a->mode, enc);
	if (!std::strcmp(f, "mars"))
		return make_mode<MARS>(a->mode, enc);
	if (!std::strcmp(f, "twofish"))
		return make_mode<Twofish>(a->mode, enc);
	if (!std::strcmp(f, "serpent"))
		return make_mode<Serpent>(a->mode, enc);
	return nullptr;
}

struct cp_handle {
	std::unique_ptr<SymmetricCipher> c;
	bench_alg alg;
	uint8_t iv[16]; /* XTS: every call starts a data unit here */
};

int cp_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	cp_handle *h = static_cast<cp_handle *>(p);
	try {
		if (h->alg.mode == BM_CFB8)
			h->c->SetKey(key, h->alg.key_len,
				     MakeParameters(Name::FeedbackSize(), 1)(
					     Name::IV(), ConstByteArrayParameter(iv, h->alg.iv_len)));
		else if (h->alg.iv_len)
			h->c->SetKeyWithIV(key, h->alg.key_len, iv, h->alg.iv_len);
		else
			h->c->SetKey(key, h->alg.key_len);
		if (h->alg.iv_len <= sizeof(h->iv))
			std::memcpy(h->iv, iv, h->alg.iv_len);
	} catch (const Exception &) {
		return -1;
	}
	return 0;
}

void cp_close(void *p)
{
	delete static_cast<cp_handle *>(p);
}

void *cp_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
	      unsigned streams, const char **impl)
{
	if (streams != 1)
		return nullptr;
	std::unique_ptr<cp_handle> h(new cp_handle);
	h->alg = *a;
	try {
		h->c.reset(make(a, encrypt != 0));
	} catch (const Exception &) {
		return nullptr;
	}
	if (!h->c || cp_setkey(h.get(), key, iv))
		return nullptr;
	*impl = "mode templates";
	return h.release();
}

int cp_crypt(void *p, uint8_t *buf, size_t len)
{
	cp_handle *h = static_cast<cp_handle *>(p);
	try {
		/* Crypto++'s XTS ProcessData continues the tweak sequence; a
		 * data unit a call restarts it (the tweak encryption) */
		if (h->alg.mode == BM_XTS)
			h->c->Resynchronize(h->iv, (int)h->alg.iv_len);
		h->c->ProcessData(buf, buf, len);
	} catch (const Exception &) {
		return -1;
	}
	return 0;
}

const char *cp_version()
{
	static char v[32];
	int n = LibraryVersion(); /* 870 = 8.7.0 */
	std::snprintf(v, sizeof(v), "%d.%d.%d", n / 100, n / 10 % 10, n % 10);
	return v;
}

} // namespace

extern "C" const bench_peer bench_peer_cryptopp = {
	"crypto++", cp_version, 1, cp_open, cp_setkey, cp_crypt, cp_close,
};
