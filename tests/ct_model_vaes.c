/*
 * aes/vaes-avx2 for the valgrind constant-time check (test_ct_valgrind.c).
 *
 * Valgrind decodes AVX2 and AES-NI but not VAES. A 256-bit VAESENC is,
 * by definition, one AESENC on each 128-bit lane; so the four VAES
 * intrinsics the kernel uses are modelled here as two AES-NI instructions
 * each (and its 256-bit carry-less multiply as two PCLMULQDQ), on the
 * lanes taken apart and put back together with AVX2 - with no
 * branch and no address that depends on the data, as the instructions
 * themselves. Every other line of src/aes/aes_vaes_avx2.c (its control
 * flow, loads and stores, counters, tails through AES-NI) is compiled
 * unchanged into this file and run natively under memcheck.
 *
 * This is a separate translation unit because test_ct_valgrind.c models
 * the AVX-512 types itself and cannot include <immintrin.h>.
 */
#include <immintrin.h>
#include "../src/internal.h"

#if FB_X86

#define CT_MODEL_TGT __attribute__((always_inline, target("avx2,aes,ssse3")))

static inline CT_MODEL_TGT __m256i lanes(__m128i lo, __m128i hi)
{
	return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

#define CT_MODEL_VAES(name, insn)                                                                  \
	static inline CT_MODEL_TGT __m256i name(__m256i x, __m256i k)                              \
	{                                                                                          \
		return lanes(insn(_mm256_castsi256_si128(x), _mm256_castsi256_si128(k)),           \
			     insn(_mm256_extracti128_si256(x, 1), _mm256_extracti128_si256(k, 1))); \
	}
CT_MODEL_VAES(ct_model_aesenc, _mm_aesenc_si128)
CT_MODEL_VAES(ct_model_aesenclast, _mm_aesenclast_si128)
CT_MODEL_VAES(ct_model_aesdec, _mm_aesdec_si128)
CT_MODEL_VAES(ct_model_aesdeclast, _mm_aesdeclast_si128)

/* VPCLMULQDQ on 256 bits (the XTS tweaks' reduction): one PCLMULQDQ on
 * each 128-bit lane, which valgrind decodes. A macro: the immediate must
 * stay a constant. */
#define _mm256_clmulepi64_epi128(a, b, imm)                                                       \
	lanes(_mm_clmulepi64_si128(_mm256_castsi256_si128(a), _mm256_castsi256_si128(b), (imm)),   \
	      _mm_clmulepi64_si128(_mm256_extracti128_si256((a), 1), _mm256_extracti128_si256((b), 1), (imm)))

#define _mm256_aesenc_epi128 ct_model_aesenc
#define _mm256_aesenclast_epi128 ct_model_aesenclast
#define _mm256_aesdec_epi128 ct_model_aesdec
#define _mm256_aesdeclast_epi128 ct_model_aesdeclast

/* The kernel, renamed so as not to clash with the library's. */
#define fb_aes_vaes_avx2 ct_model_aes_vaes_avx2
#include "../src/aes/aes_vaes_avx2.c"

/* The modelled kernel, or NULL when the CPU valgrind presents lacks
 * what the model runs on (AVX2, AES-NI, PCLMULQDQ, SSSE3). */
const fb_kernel *ct_model_vaes_avx2(void)
{
	uint32_t need = FB_CPU_AVX2 | FB_CPU_AESNI | FB_CPU_PCLMUL | FB_CPU_SSSE3;
	return (fb_cpu_features() & need) == need ? &ct_model_aes_vaes_avx2 : NULL;
}

#else
const fb_kernel *ct_model_vaes_avx2(void)
{
	return NULL;
}
#endif
