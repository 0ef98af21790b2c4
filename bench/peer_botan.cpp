/*
 * peer_botan.cpp - Botan 2 as its users call it: Cipher_Mode for CBC, CFB
 * and XTS ("AES-128/CBC/NoPadding"), StreamCipher for CTR and OFB
 * ("CTR-BE(AES-128)"), and BlockCipher::encrypt_n for ECB (Botan 2 as
 * packaged has no ECB Cipher_Mode). Botan 2 has no RC6 or MARS.
 * C interface: bench_peer.h.
 */
#include "bench_peer.h"

#include <botan/block_cipher.h>
#include <botan/cipher_mode.h>
#include <botan/exceptn.h>
#include <botan/stream_cipher.h>
#include <botan/version.h>

#include <cstring>
#include <memory>
#include <string>

namespace {

std::string block_name(const bench_alg *a)
{
	size_t k = a->mode == BM_XTS ? a->key_len / 2 : a->key_len;
	const char *f = a->family;
	if (!std::strcmp(f, "des"))
		return k == 8 ? "DES" : "TripleDES"; /* TripleDES takes 16 (2-key) or 24 bytes */
	if (!std::strcmp(f, "aes"))
		return "AES-" + std::to_string(k * 8);
	if (!std::strcmp(f, "twofish"))
		return "Twofish";
	if (!std::strcmp(f, "serpent"))
		return "Serpent";
	return ""; /* rc6, mars: not in Botan 2 */
}

struct bo_handle {
	std::unique_ptr<Botan::BlockCipher> block;  /* ECB */
	std::unique_ptr<Botan::Cipher_Mode> mode;   /* CBC, CFB, CFB8, XTS */
	std::unique_ptr<Botan::StreamCipher> stream; /* CTR, OFB */
	bench_alg alg;
	bool encrypt;
	std::string label;
	uint8_t iv[16]; /* XTS: every call starts a data unit here */
};

int bo_setkey(void *p, const uint8_t *key, const uint8_t *iv)
{
	bo_handle *h = static_cast<bo_handle *>(p);
	try {
		if (h->block) {
			h->block->set_key(key, h->alg.key_len);
		} else if (h->mode) {
			h->mode->set_key(key, h->alg.key_len);
			h->mode->start(iv, h->alg.iv_len);
			if (h->alg.iv_len <= sizeof(h->iv))
				std::memcpy(h->iv, iv, h->alg.iv_len);
		} else {
			h->stream->set_key(key, h->alg.key_len);
			h->stream->set_iv(iv, h->alg.iv_len);
		}
	} catch (const std::exception &) {
		return -1;
	}
	return 0;
}

void bo_close(void *p)
{
	delete static_cast<bo_handle *>(p);
}

void *bo_open(const bench_alg *a, int encrypt, const uint8_t *key, const uint8_t *iv,
	      unsigned streams, const char **impl)
{
	std::string bc = block_name(a);
	if (streams != 1 || bc.empty())
		return nullptr;
	std::unique_ptr<bo_handle> h(new bo_handle);
	h->alg = *a;
	h->encrypt = encrypt != 0;
	const auto dir = encrypt ? Botan::ENCRYPTION : Botan::DECRYPTION;
	try {
		switch (a->mode) {
		case BM_ECB:
			h->block = Botan::BlockCipher::create(bc);
			break;
		case BM_CBC:
			h->mode = Botan::Cipher_Mode::create(bc + "/CBC/NoPadding", dir);
			break;
		case BM_CFB:
			h->mode = Botan::Cipher_Mode::create(bc + "/CFB", dir);
			break;
		case BM_CFB8:
			h->mode = Botan::Cipher_Mode::create(bc + "/CFB(8)", dir);
			break;
		case BM_XTS:
			h->mode = Botan::Cipher_Mode::create(bc + "/XTS", dir);
			break;
		case BM_CTR:
			h->stream = Botan::StreamCipher::create("CTR-BE(" + bc + ")");
			break;
		case BM_OFB:
			h->stream = Botan::StreamCipher::create("OFB(" + bc + ")");
			break;
		}
	} catch (const std::exception &) {
		return nullptr;
	}
	if (!h->block && !h->mode && !h->stream)
		return nullptr;
	if (bo_setkey(h.get(), key, iv))
		return nullptr;
	const std::string prov = h->block ? h->block->provider()
			       : h->mode ? h->mode->provider() : h->stream->provider();
	h->label = (h->block ? "BlockCipher" : h->mode ? "Cipher_Mode" : "StreamCipher") +
		   std::string(" (") + prov + ")";
	*impl = h->label.c_str();
	return h.release();
}

int bo_crypt(void *p, uint8_t *buf, size_t len)
{
	bo_handle *h = static_cast<bo_handle *>(p);
	try {
		if (h->block) {
			size_t n = len / h->alg.block;
			if (h->encrypt)
				h->block->encrypt_n(buf, buf, n);
			else
				h->block->decrypt_n(buf, buf, n);
		} else if (h->mode) {
			/* Botan's XTS process() continues the tweak sequence; a
			 * data unit a call restarts it (the tweak encryption) */
			if (h->alg.mode == BM_XTS)
				h->mode->start(h->iv, h->alg.iv_len);
			if (h->mode->process(buf, len) != len)
				return -1;
		} else {
			h->stream->cipher1(buf, len);
		}
	} catch (const std::exception &) {
		return -1;
	}
	return 0;
}

const char *bo_version()
{
	static std::string v = Botan::short_version_string();
	return v.c_str();
}

} // namespace

extern "C" const bench_peer bench_peer_botan = {
	"botan", bo_version, 1, bo_open, bo_setkey, bo_crypt, bo_close,
};
