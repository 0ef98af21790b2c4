/* The AES block kernels (descriptors in src/aes/aes_*.c, listed in aes_impls.c). */
#ifndef FB_AES_KERNELS_H
#define FB_AES_KERNELS_H

#include "../internal.h"

extern const fb_kernel fb_aes_ct64;
#if FB_X86
extern const fb_kernel fb_aes_aesni, fb_aes_vaes_avx2, fb_aes_vaes_avx512;
#endif

#endif
