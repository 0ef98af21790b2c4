/* DES key facts (des_keys.c): the weak keys of FIPS 74 and the family's
 * strict-key predicate. */
#ifndef FB_DES_KEYS_H
#define FB_DES_KEYS_H
#include "../internal.h"

/* 1 if key is one of the 4 weak or 12 semi-weak DES keys (parity ignored). */
int fb_des_weak(const uint8_t key[8]);
/* FB_FLAG_STRICT_KEYS for DES/EDE keys of len bytes: FB_ERR_WEAK_KEY for a
 * weak part or an EDE key that collapses to single DES, else FB_OK. */
int fb_des_strict_check(const uint8_t *key, size_t len);

#endif
