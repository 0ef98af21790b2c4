/* Reader for the known-answer vector files in tests/vectors (format in
 * tests/vectors/README.txt): one record per blank-line separated block. */
#ifndef FB_KAT_FILE_H
#define FB_KAT_FILE_H
#include <stddef.h>
#include <stdint.h>

typedef struct kat_record {
	char alg[32], mode[16], source[512];
	uint8_t key[64], iv[16], pt[512], ct[512];
	size_t key_len, iv_len, pt_len, ct_len;
	long iterations; /* 0: not a Monte Carlo record */
	int decrypt;     /* direction = decrypt */
	int line;
} kat_record;

/* Calls fn for every record of the file; returns the number of records,
 * or -1 if the file cannot be read or a record is malformed. */
int kat_read(const char *path, int (*fn)(const kat_record *, void *), void *arg);

#endif
