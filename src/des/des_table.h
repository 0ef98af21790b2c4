/* des/table: the portable DES/3DES kernel (see des_table.c). */
#ifndef FB_DES_TABLE_H
#define FB_DES_TABLE_H
#include "../internal.h"

/* Keeps the compiler from re-associating an XOR tree into a chain: a
 * round's eight lookups finish together, and a tree adds 3 XORs of latency
 * where a chain adds 8. */
#if defined(__GNUC__)
#define FB_KEEP(v) __asm__("" : "+r"(v))
#else
#define FB_KEEP(v) (void)0
#endif

extern const fb_kernel fb_des_table;

/* The round keys of one DES key in des/table's form: 16 pairs (KX, KY). */
void fb_des_table_schedule(uint32_t rk[32], const uint8_t key[8]);

#endif
