/*
 * rc6/avx512 and serpent/avx512 for the valgrind constant-time check
 * (test_ct_valgrind.c).
 *
 * Valgrind decodes no AVX-512. ct_model_avx512.h stands in for
 * <immintrin.h>: it defines the vector types and the intrinsics
 * rc6_avx512.c (with block128_simd.h) and serpent_avx512.c use, in plain
 * C; this file then compiles those files unchanged.
 * The model has no branch and no memory address that depends on vector
 * contents (byte shuffles select with masks, rotations shift by the
 * count), as the instructions have none; so memcheck, run on the model,
 * checks the kernels' own code: their control flow, their tails and the
 * addresses of their loads and stores. Masks are public here (lengths and
 * constants), as they are in the kernels. rc6/avx512's short runs go to
 * rc6/avx2, serpent/avx512's single blocks to the portable code, which
 * valgrind runs natively.
 *
 * The target attributes are dropped (FB_TARGET defined empty) so that the
 * compiler emits no AVX-512 instruction for the model; the real header is
 * kept out by its include guards.
 */
#include "ct_model_avx512.h"

/* ---- the modelled kernels ---------------------------------------------------------- */

#include "../src/internal.h"

#if FB_X86
#undef FB_TARGET
#define FB_TARGET(x)

#define fb_rc6_avx512 ct_model_rc6_avx512
#include "../src/rc6/rc6_avx512.c"
#undef TGT
#define fb_serpent_avx512 ct_model_serpent_avx512
#include "../src/serpent/serpent_avx512.c"

/* serpent/avx512 needs nothing natively beyond the model */
const fb_kernel *ct_model_serpent_avx512_kernel(void);
const fb_kernel *ct_model_serpent_avx512_kernel(void)
{
	return &ct_model_serpent_avx512;
}

/* The modelled kernel, or NULL when the CPU valgrind presents lacks AVX2
 * (the kernel's short runs go to rc6/avx2). */
const fb_kernel *ct_model_rc6_avx512_kernel(void);
const fb_kernel *ct_model_rc6_avx512_kernel(void)
{
	return (fb_cpu_features() & FB_CPU_AVX2) ? &ct_model_rc6_avx512 : NULL;
}
#else
const fb_kernel *ct_model_rc6_avx512_kernel(void);
const fb_kernel *ct_model_rc6_avx512_kernel(void)
{
	return NULL;
}
const fb_kernel *ct_model_serpent_avx512_kernel(void);
const fb_kernel *ct_model_serpent_avx512_kernel(void)
{
	return NULL;
}
#endif
