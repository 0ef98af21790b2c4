/*
 * mars/permute-avx512 for the valgrind constant-time check, and mars/avx512
 * as its contrast (test_ct_valgrind.c): both compiled unchanged against
 * the C models of the AVX-512 intrinsics in ct_model_avx512.h. The model
 * of vpgatherdd loads at the lane's index, as the instruction does, so
 * mars/avx512's model must be reported; the permute kernel's lookups read
 * every S-box row at public addresses and must not be.
 */
#include "ct_model_avx512.h"
#include "../src/internal.h"

#if FB_X86
#undef FB_TARGET
#define FB_TARGET(x)

#define fb_mars_permute_avx512 ct_model_mars_permute_avx512
#include "../src/mars/mars_permute_avx512.c"
#undef TGT
#undef GATHER
#undef BYTE0
#undef BYTE1
#undef BYTE2
#undef BYTE3
#undef ROL
#undef E_FN
/* the gather kernel's static functions, renamed apart from the permute kernel's */
#define fb_mars_avx512 ct_model_mars_avx512
#include "../src/mars/mars_avx512.c"

const fb_kernel *ct_model_mars_permute_kernel(void);
const fb_kernel *ct_model_mars_permute_kernel(void)
{
	return &ct_model_mars_permute_avx512;
}
const fb_kernel *ct_model_mars_gather_kernel(void);
const fb_kernel *ct_model_mars_gather_kernel(void)
{
	return &ct_model_mars_avx512;
}
#else
const fb_kernel *ct_model_mars_permute_kernel(void);
const fb_kernel *ct_model_mars_permute_kernel(void)
{
	return NULL;
}
const fb_kernel *ct_model_mars_gather_kernel(void);
const fb_kernel *ct_model_mars_gather_kernel(void)
{
	return NULL;
}
#endif
