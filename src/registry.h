/* The cipher+mode table and kernel registry (src/registry.c). */
#ifndef FB_REGISTRY_H
#define FB_REGISTRY_H
#include "internal.h"

struct fb_cipher {
	const char *name;
	const fb_family *family;
	enum fb_mode mode;
	size_t key_len; /* bytes of one cipher key; 0 = any length the family allows */
	size_t name_len; /* strlen(name): fb_cipher_by_name compares it first */
};

int fb_cipher_key_ok(const fb_cipher *c, size_t len);
/* The same cipher and key size in another mode (NULL if c is NULL). */
const fb_cipher *fb_cipher_in_mode(const fb_cipher *c, enum fb_mode mode);

#endif
