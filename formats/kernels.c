// SPDX-License-Identifier: MIT
/* Kernel table set-up: which ISAs this build has, which the CPU supports, and the names of
 * ISAs and consumer sample types. */
#include <errno.h>
#include <string.h>

#include "convert.h"
#include "zcs_config.h"

#if ZCS_SIMD_NEON
#include <sys/auxv.h>
#ifndef HWCAP_NEON
#define HWCAP_NEON (1 << 12) /* arch/arm/include/uapi/asm/hwcap.h */
#endif
#endif

/* True when this build has kernels for isa and the running CPU can execute them. */
static int isa_usable(enum zcs_isa isa)
{
	switch (isa) {
	case ZCS_ISA_SCALAR:
		return 1;
#if ZCS_SIMD_X86
	/* libgcc/compiler-rt probe CPUID (and XGETBV for AVX state) once and cache the answer. */
	case ZCS_ISA_SSE2:
		return __builtin_cpu_supports("sse2");
	case ZCS_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
#endif
#if ZCS_SIMD_NEON
	case ZCS_ISA_NEON:
		return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#endif
	default:
		return 0;
	}
}

static enum zcs_isa best_isa(void)
{
	static const enum zcs_isa order[] = { ZCS_ISA_AVX2, ZCS_ISA_NEON, ZCS_ISA_SSE2 };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (isa_usable(order[i]))
			return order[i];
	return ZCS_ISA_SCALAR;
}

int zcs_kernels_init(struct zcs_kernels *k, enum zcs_isa isa)
{
	struct zcs_kernels t;

	if (isa == ZCS_ISA_BEST)
		isa = best_isa();
	if (!isa_usable(isa))
		return -ENOTSUP;
	/* Layered: a wider ISA may leave to the narrower one any kernel it does not improve. */
	zcs_formats_fill_scalar(&t);
#if ZCS_SIMD_X86
	if (isa == ZCS_ISA_SSE2 || isa == ZCS_ISA_AVX2)
		zcs_formats_fill_sse2(&t);
	if (isa == ZCS_ISA_AVX2)
		zcs_formats_fill_avx2(&t);
#endif
#if ZCS_SIMD_NEON
	if (isa == ZCS_ISA_NEON)
		zcs_formats_fill_neon(&t);
#endif
	t.isa = isa;
	*k = t;
	return 0;
}

const char *zcs_isa_name(enum zcs_isa isa)
{
	switch (isa) {
	case ZCS_ISA_SCALAR: return "scalar";
	case ZCS_ISA_SSE2: return "sse2";
	case ZCS_ISA_AVX2: return "avx2";
	case ZCS_ISA_NEON: return "neon";
	case ZCS_ISA_BEST: return "best";
	default: return "unknown";
	}
}

static const char *const sample_names[ZCS_SAMPLE_TYPES] = {
	[ZCS_SAMPLE_CS8] = "cs8",
	[ZCS_SAMPLE_CU8] = "cu8",
	[ZCS_SAMPLE_CS16] = "cs16",
	[ZCS_SAMPLE_CF32] = "cf32",
	[ZCS_SAMPLE_NATIVE] = "native",
};

size_t zcs_sample_pair_bytes(enum zcs_sample_type t, int wire_format)
{
	switch (t) {
	case ZCS_SAMPLE_CS8:
	case ZCS_SAMPLE_CU8: return 2;
	case ZCS_SAMPLE_CS16: return 4;
	case ZCS_SAMPLE_CF32: return 8;
	case ZCS_SAMPLE_NATIVE: return zcs_wire_pair_bytes(wire_format);
	default: return 0;
	}
}

const char *zcs_sample_name(enum zcs_sample_type t)
{
	if ((unsigned)t >= ZCS_SAMPLE_TYPES)
		return "unknown";
	return sample_names[t];
}

int zcs_sample_from_name(const char *name)
{
	for (int t = 0; t < ZCS_SAMPLE_TYPES; t++)
		if (strcmp(name, sample_names[t]) == 0)
			return t;
	return -1;
}
