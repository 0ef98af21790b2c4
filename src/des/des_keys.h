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

/* A kernel's schedules of a DES or EDE key of keylen bytes (8, 16 or 24):
 * sched(rk[i], part) for each key part; two-key EDE copies rk[0] into
 * rk[2] (K3 = K1), where scheduling it again cost the table kernels
 * ~170 TSC ticks of a 3DES key setup. rk must be an array of arrays. */
#define FB_DES_SCHEDULES(sched, rk, key, keylen) do {                          \
		sched((rk)[0], (key));                                          \
		if ((keylen) > 8) {                                             \
			sched((rk)[1], (key) + 8);                              \
			if ((keylen) == 24)                                     \
				sched((rk)[2], (key) + 16);                     \
			else                                                    \
				memcpy((rk)[2], (rk)[0], sizeof (rk)[2]);       \
		}                                                               \
	} while (0)

#endif
