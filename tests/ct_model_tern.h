/*
 * vpternlog for the portable intrinsics models of the valgrind
 * constant-time check (ct_model_avx512.h, test_ct_valgrind.c): bit j of
 * the result is bit (4 a_j + 2 b_j + c_j) of imm, a constant, for every
 * bit of a word (a 32-bit lane takes the low half). No branch on the data.
 */
#ifndef CT_MODEL_TERN_H
#define CT_MODEL_TERN_H
#include <stdint.h>

static inline uint64_t ct_model_tern(uint64_t a, uint64_t b, uint64_t c, int imm)
{
	uint64_t r = 0;
	for (int k = 0; k < 8; k++)
		if (imm >> k & 1)
			r |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
	return r;
}
#endif
