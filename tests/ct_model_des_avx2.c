/*
 * des/bs-avx2-gfni for the valgrind constant-time check (test_ct_valgrind.c).
 *
 * Valgrind decodes AVX2 but not GFNI. The kernel's one GFNI instruction,
 * vgf2p8affineqb (the bit transpose inside each qword), is modelled here
 * in C on the four qwords: bit i of result byte j is the parity of matrix
 * byte 7 - i AND data byte j, XOR bit i of the constant, by loops of fixed
 * length with no branch and no address that depends on the data, as the
 * instruction. Every other line of src/des/des_bs_avx2.c is compiled
 * unchanged into this file and runs natively under memcheck.
 *
 * A separate translation unit, as ct_model_vaes.c: test_ct_valgrind.c
 * models the AVX-512 types itself and cannot include <immintrin.h>.
 */
#include <immintrin.h>
#include "../src/internal.h"

#if FB_X86

static inline __attribute__((always_inline, target("avx2"))) __m256i ct_model_gf2p8affine(__m256i x, __m256i a,
											   int b)
{
	uint64_t xq[4], aq[4], rq[4];
	_mm256_storeu_si256((__m256i *)(void *)xq, x);
	_mm256_storeu_si256((__m256i *)(void *)aq, a);
	for (int q = 0; q < 4; q++) {
		uint64_t r = 0;
		for (int j = 0; j < 8; j++)
			for (int i = 0; i < 8; i++) {
				unsigned m = (unsigned)(aq[q] >> (8 * (7 - i))) & (unsigned)(xq[q] >> (8 * j)) & 0xFF;
				r |= (uint64_t)((__builtin_parity(m) ^ ((unsigned)b >> i)) & 1) << (8 * j + i);
			}
		rq[q] = r;
	}
	return _mm256_loadu_si256((const __m256i *)(const void *)rq);
}

#define _mm256_gf2p8affine_epi64_epi8(x, a, b) ct_model_gf2p8affine((x), (a), (b))

/* The kernels and their lane operations, renamed so as not to clash with
 * the library's. */
#define fb_des_bs_avx2 ct_model_des_bs_avx2_copy
#define fb_des_bs_avx2_gfni ct_model_des_bs_avx2_gfni
#define fb_des_bs256_ops ct_model_des_bs256_ops
#define fb_des_bs256_gf_ops ct_model_des_bs256_gf_ops
#include "../src/des/des_bs_avx2.c"

/* The modelled kernel, or NULL when the CPU valgrind presents lacks AVX2. */
const fb_kernel *ct_model_des_bs_avx2_gfni_kernel(void)
{
	return (fb_cpu_features() & FB_CPU_AVX2) ? &ct_model_des_bs_avx2_gfni : NULL;
}

#else
const fb_kernel *ct_model_des_bs_avx2_gfni_kernel(void)
{
	return NULL;
}
#endif
