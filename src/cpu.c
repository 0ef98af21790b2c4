/*
 * CPU feature detection, done once. CPUID says what the processor has;
 * XGETBV says whether the OS saves the wider registers (without it, AVX
 * or AVX-512 code would fault or corrupt state).
 */
/* secure_getenv: the test switches below are ignored in setuid and setgid
 * programs, whose environment the invoking user controls. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Intel models whose gathers the GDS ("Downfall") microcode makes slow:
 * the affected list of Intel's advisory INTEL-SA-00828, as Linux keeps it
 * (Skylake to Comet Lake, Ice Lake, Tiger Lake, Rocket Lake; family 6).
 * The microcode has been the default since August 2023. Comet Lake-U
 * stepping 0 (model 0xA6) is not affected. */
static int intel_slow_gather(unsigned model, unsigned stepping)
{
	static const uint8_t models[] = { 0x4E, 0x55, 0x5E, 0x6A, 0x6C, 0x7E, 0x8C,
					  0x8D, 0x8E, 0x9E, 0xA5, 0xA6, 0xA7 };
	for (size_t i = 0; i < sizeof models; i++)
		if (models[i] == model)
			return !(model == 0xA6 && stepping == 0);
	return 0;
}

/* The vendor's FB_CPU_ properties from the CPUID vendor string and leaf
 * 1's signature: Intel's two-uop BEXTR, and gathers slowed by the GDS
 * microcode on the models above; the AMD Zen family (17h and later), where
 * on family 17h (Zen 1, Zen 2) gathers are also microcoded, one element
 * every few cycles, and so are PDEP and PEXT, and on family 1Ah (Zen 5)
 * chains of simple vector operations are slower than scalar ones. */
uint32_t fb_cpu_class(const char vendor[12], uint32_t sig)
{
	unsigned family = (sig >> 8) & 0xF, model = (sig >> 4) & 0xF;
	if (family == 0x6 || family == 0xF)
		model |= (sig >> 12) & 0xF0;
	if (family == 0xF)
		family += (sig >> 20) & 0xFF;
	if (!memcmp(vendor, "GenuineIntel", 12))
		return FB_CPU_SLOW_BEXTR |
		       (family == 6 && intel_slow_gather(model, sig & 0xF) ? FB_CPU_SLOW_GATHER : 0);
	if (memcmp(vendor, "AuthenticAMD", 12) || family < 0x17)
		return 0;
	return FB_CPU_AMD_ZEN | (family == 0x17 ? FB_CPU_SLOW_GATHER | FB_CPU_SLOW_PDEP : 0) |
	       (family == 0x1A ? FB_CPU_SLOW_VEC_CHAIN : 0);
}

#if FB_X86
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static uint32_t vendor_class(unsigned leaf1_eax)
{
	unsigned a, b, c, d;
	char vendor[12];
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	return fb_cpu_class(vendor, leaf1_eax);
}

static uint32_t detect(void)
{
	unsigned a, b, c, d, f = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	f |= vendor_class(a);
	if (d & (1u << 26)) f |= FB_CPU_SSE2;
	if (c & (1u << 9)) f |= FB_CPU_SSSE3;
	if (c & (1u << 19)) f |= FB_CPU_SSE41;
	if (c & (1u << 25)) f |= FB_CPU_AESNI;
	if (c & (1u << 1)) f |= FB_CPU_PCLMUL;
	int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
	uint64_t xcr0 = osxsave ? xgetbv0() : 0;
	int ymm_ok = (xcr0 & 6) == 6;             /* SSE and AVX state */
	int zmm_ok = ymm_ok && (xcr0 & 0xE0) == 0xE0; /* opmask, ZMM_Hi256, Hi16_ZMM */
	if (avx && ymm_ok) f |= FB_CPU_AVX;
	if (__get_cpuid_max(0, NULL) < 7)
		return f;
	__cpuid_count(7, 0, a, b, c, d);
	if ((b & (1u << 3)) && (b & (1u << 8))) /* BMI1 (ANDN) and BMI2: one bit, FB_CPU_BMI2 */
		f |= FB_CPU_BMI2;
	if (ymm_ok && (b & (1u << 5))) f |= FB_CPU_AVX2;
	if (ymm_ok && (c & (1u << 8))) f |= FB_CPU_GFNI;
	if (ymm_ok && (c & (1u << 9))) f |= FB_CPU_VAES;
	if (ymm_ok && (c & (1u << 10))) f |= FB_CPU_VPCLMUL;
	if (zmm_ok) {
		if (b & (1u << 16)) f |= FB_CPU_AVX512F;
		if (b & (1u << 17)) f |= FB_CPU_AVX512DQ;
		if (b & (1u << 30)) f |= FB_CPU_AVX512BW;
		if (b & (1u << 31)) f |= FB_CPU_AVX512VL;
		if (c & (1u << 1)) f |= FB_CPU_AVX512VBMI;
		if (c & (1u << 6)) f |= FB_CPU_AVX512VBMI2;
		if (c & (1u << 12)) f |= FB_CPU_AVX512BITALG;
	}
	return f;
}
#else
static uint32_t detect(void)
{
	return 0;
}
#endif

uint32_t fb_cpu_features(void)
{
	/* The one piece of global state: written once, the same value by any
	 * racing thread, so a relaxed atomic is enough. Bit 31 marks "known". */
	static _Atomic uint32_t cached;
	uint32_t f = atomic_load_explicit(&cached, memory_order_relaxed);
	if (f & 0x80000000u)
		return f & 0x7FFFFFFFu;
	f = detect();
	const char *mask = secure_getenv("FASTBLOCK_CPU_MASK");
	if (mask && *mask)
		f &= (uint32_t)strtoul(mask, NULL, 16);
	atomic_store_explicit(&cached, f | 0x80000000u, memory_order_relaxed);
	return f;
}

const char *fb_env_impl(void)
{
	/* Read once, like the CPU features: fb_init runs per key and getenv
	 * walks the whole environment. */
	static const char *_Atomic cached;
	static _Atomic int known;
	if (!atomic_load_explicit(&known, memory_order_acquire)) {
		atomic_store_explicit(&cached, secure_getenv("FASTBLOCK_IMPL"), memory_order_relaxed);
		atomic_store_explicit(&known, 1, memory_order_release);
	}
	return atomic_load_explicit(&cached, memory_order_relaxed);
}

static const char *const feature_names[] = {
	"sse2", "ssse3", "sse4.1", "aesni", "pclmul", "avx", "avx2", "bmi2",
	"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512vbmi", "avx512vbmi2",
	"gfni", "vaes", "vpclmulqdq", "avx512bitalg", "slow-gather",
	"amd-zen", "slow-vec-chain", "slow-pdep", "slow-bextr",
};

void fb_cpu_feature_names(uint32_t f, char *buf, size_t cap)
{
	size_t used = 0;
	if (cap)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof feature_names / sizeof *feature_names; i++) {
		if (!(f & (1u << i)))
			continue;
		int n = snprintf(buf + used, cap - used, "%s%s", used ? " " : "", feature_names[i]);
		if (n < 0 || (size_t)n >= cap - used)
			break;
		used += (size_t)n;
	}
}

const char *fb_cpu_description(void)
{
	static _Thread_local char buf[256];
	fb_cpu_feature_names(fb_cpu_features(), buf, sizeof buf);
	return buf;
}
