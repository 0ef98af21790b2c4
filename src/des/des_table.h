/* des/table: the portable DES/3DES kernel (see des_table.c). */
#ifndef FB_DES_TABLE_H
#define FB_DES_TABLE_H
#include "../internal.h"

extern const fb_kernel fb_des_table;

/* The round keys of one DES key in des/table's form: 16 pairs (KX, KY). */
void fb_des_table_schedule(uint32_t rk[32], const uint8_t key[8]);

#endif
