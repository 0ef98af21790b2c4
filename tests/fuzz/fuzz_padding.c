/*
 * Padding removal on arbitrary ciphertext: ECB and CBC with every padding
 * scheme. No crash, no output on error; and what decrypts re-encrypts to
 * the same ciphertext.
 */
#include <stdlib.h>
#include "fastblock.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "des-ecb", "des-ede3-cbc", "aes-128-ecb", "aes-256-cbc",
					     "twofish-128-cbc", "serpent-192-ecb" };
	static const enum fb_padding pads[] = { FB_PAD_PKCS7, FB_PAD_ISO9797_M2, FB_PAD_NONE };
	fz_in in = { data, size };
	const fb_cipher *c = fb_cipher_by_name(names[fz_below(&in, 6)]);
	fb_options opt = { .padding = pads[fz_below(&in, 3)] };
	uint8_t key[32], iv[16], ct[300], pt[320], again[340];
	size_t kl = fb_cipher_key_len(c), ivl = fb_cipher_iv_len(c), pl = 12345, al;
	fz_bytes(&in, key, kl);
	fz_bytes(&in, iv, ivl);
	size_t len = fz_below(&in, sizeof ct);
	fz_bytes(&in, ct, len);
	memset(pt, 0xA5, sizeof pt);
	int rc = fb_decrypt(c, key, kl, iv, ivl, ct, len, pt, sizeof pt, &pl, &opt);
	if (rc) {
		for (size_t i = 0; i < sizeof pt; i++)
			if (pt[i] != 0xA5)
				abort(); /* output written despite the error */
		if (pl != 0)
			abort();
		return 0;
	}
	if (fb_encrypt(c, key, kl, iv, ivl, pt, pl, again, sizeof again, &al, &opt) || al != len ||
	    memcmp(again, ct, len))
		abort(); /* the padding it accepted does not re-encrypt to the input */
	return 0;
}
