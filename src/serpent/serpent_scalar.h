/*
 * The scalar Serpent kernels' shared pieces (serpent/bitslice and
 * serpent/bitslice-exact): the gates on 32-bit words, and the output
 * complements of the two-input circuits as word masks.
 */
#ifndef FB_SERPENT_SCALAR_H
#define FB_SERPENT_SCALAR_H

#include "serpent.h"

#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define ANDN(a, b) (~(a) & (b))
#define XOR3(a, b, c) ((c) ^ (b) ^ (a)) /* a arrives last (serpent.h) */
#define ROL(x, n) fb_rotl32((x), (n))
#define SHL(x, n) ((x) << (n))

/* Output flip masks (bit j: output word j complemented) as four words. */
#define FW(f) { 0u - ((f) & 1u), 0u - ((f) >> 1 & 1u), 0u - ((f) >> 2 & 1u), 0u - ((f) >> 3 & 1u) }
static const uint32_t sbox_flip[8][4] __attribute__((unused)) = {
	FW(FB_SERPENT_S0_L2_FLIP), FW(FB_SERPENT_S1_L2_FLIP), FW(FB_SERPENT_S2_L2_FLIP),
	FW(FB_SERPENT_S3_L2_FLIP), FW(FB_SERPENT_S4_L2_FLIP), FW(FB_SERPENT_S5_L2_FLIP),
	FW(FB_SERPENT_S6_L2_FLIP), FW(FB_SERPENT_S7_L2_FLIP),
};
/* The inverse circuits, L2 and L2D alike (serpent.h checks that they agree). */
static const uint32_t isbox_flip[8][4] __attribute__((unused)) = {
	FW(FB_SERPENT_SI0_L2_FLIP), FW(FB_SERPENT_SI1_L2_FLIP), FW(FB_SERPENT_SI2_L2_FLIP),
	FW(FB_SERPENT_SI3_L2_FLIP), FW(FB_SERPENT_SI4_L2_FLIP), FW(FB_SERPENT_SI5_L2_FLIP),
	FW(FB_SERPENT_SI6_L2_FLIP), FW(FB_SERPENT_SI7_L2_FLIP),
};
static const uint32_t shallow_flip[8][4] __attribute__((unused)) = {
	FW(FB_SERPENT_S0_L2D_FLIP), FW(FB_SERPENT_S1_L2D_FLIP), FW(FB_SERPENT_S2_L2D_FLIP),
	FW(FB_SERPENT_S3_L2D_FLIP), FW(FB_SERPENT_S4_L2D_FLIP), FW(FB_SERPENT_S5_L2D_FLIP),
	FW(FB_SERPENT_S6_L2D_FLIP), FW(FB_SERPENT_S7_L2D_FLIP),
};

#endif
