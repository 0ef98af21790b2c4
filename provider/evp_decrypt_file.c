/*
 * evp_decrypt_file.c - decrypts a file through EVP, as an application
 * would, and says how fast: the measurement of docs/provider.md for a
 * 1 GB Triple-DES CBC file.
 *
 *   evp_decrypt_file <module dir> <cipher> <key hex> <iv hex> <propq> <file>
 *
 * propq is the property query of the fetch ("provider=fastblock",
 * "provider=default"). Reads the file in 1 MiB pieces, decrypts with
 * padding, discards the plaintext and prints its length, a checksum (so
 * two runs can be compared) and the time and rate of the decryption alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

static size_t unhex(const char *s, unsigned char *out, size_t cap)
{
	size_t n = 0;
	for (; s[0] && s[1] && n < cap; s += 2) {
		char b[3] = { s[0], s[1], 0 };
		out[n++] = (unsigned char)strtoul(b, NULL, 16);
	}
	return n;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: %s <module dir> <cipher> <key hex> <iv hex> <propq> <file>\n", argv[0]);
		return 2;
	}
	OSSL_PROVIDER_set_default_search_path(NULL, argv[1]);
	OSSL_PROVIDER *fb = OSSL_PROVIDER_load(NULL, "fastblock");
	OSSL_PROVIDER_set_default_search_path(NULL, NULL);
	OSSL_PROVIDER *def = OSSL_PROVIDER_load(NULL, "default");
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, argv[2], argv[5]);
	if (!fb || !def || !c) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	unsigned char key[64], iv[16];
	unhex(argv[3], key, sizeof key);
	unhex(argv[4], iv, sizeof iv);
	FILE *f = fopen(argv[6], "rb");
	if (!f) {
		perror(argv[6]);
		return 1;
	}
	size_t cap = 1 << 20;
	unsigned char *in = malloc(cap), *out = malloc(cap + 64);
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	if (!in || !out || !x || !EVP_DecryptInit_ex(x, c, NULL, key, iv)) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	unsigned long long total = 0, sum = 0;
	double t_crypt = 0;
	size_t n;
	int l;
	while ((n = fread(in, 1, cap, f)) > 0) {
		double t0 = now();
		if (!EVP_DecryptUpdate(x, out, &l, in, (int)n)) {
			ERR_print_errors_fp(stderr);
			return 1;
		}
		t_crypt += now() - t0;
		for (int i = 0; i < l; i += 4096)
			sum = sum * 31 + out[i];
		total += (unsigned long long)l;
	}
	double t0 = now();
	if (!EVP_DecryptFinal_ex(x, out, &l)) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	t_crypt += now() - t0;
	total += (unsigned long long)l;
	printf("%s %s: %llu bytes, checksum %016llx, %.2f s, %.1f MB/s\n", argv[2], argv[5], total, sum, t_crypt,
	       (double)total / t_crypt / 1e6);
	fclose(f);
	EVP_CIPHER_CTX_free(x);
	EVP_CIPHER_free(c);
	free(in);
	free(out);
	return 0;
}
