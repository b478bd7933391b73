/* SPDX-License-Identifier: MIT */
/* Sample conversion kernels: radio int16 -> wire (i8, p12, i16) and wire -> consumer
 * (cs8, cu8, cs16, cf32, native).  One table of function pointers, chosen once at start-up. */
#ifndef ZCS_FORMATS_H
#define ZCS_FORMATS_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Consumer sample types, as the receiver's --out-format names them.  The values index the
 * kernel tables (struct zcs_kernels) and the names in kernels.c: a new type takes the next value,
 * ZCS_SAMPLE_TYPES grows with it, and every wire format gets an unpack kernel for it. */
enum zcs_sample_type {
	ZCS_SAMPLE_CS8 = 0,   /* int8 I, Q  = zcs_s8_of_v(v) */
	ZCS_SAMPLE_CU8 = 1,   /* uint8 I, Q = zcs_s8_of_v(v) + 128 (rtl_tcp, gqrx) */
	ZCS_SAMPLE_CS16 = 2,  /* int16 LE I, Q = v << 4 */
	ZCS_SAMPLE_CF32 = 3,  /* float32 LE I, Q = v / 2048.0f */
	ZCS_SAMPLE_NATIVE = 4,/* the wire bytes unchanged */
};
#define ZCS_SAMPLE_TYPES 5

/* v above is the 12-bit signed sample.  Radio input outside [-2048, 2047] saturates. */

/* The 8-bit sample of v (the i8 wire format, cs8, and cu8 less 128): v / 16 rounded to nearest,
 * halves away from zero, saturated to -128..127 (only 2040..2047 round past 127).  Rounding
 * symmetric about zero adds no DC to a signal that has none: the floor of v >> 4 put -0.47 LSB of
 * DC (a -46 dBFS spike at the centre of every spectrum) on each 8-bit stream, and halves up would
 * still put +1/32 LSB.  Any v is accepted; beyond 12 bits it saturates first. */
static inline int zcs_s8_of_v(int v)
{
	const int s = v < -2048 ? -2048 : v > 2047 ? 2047 : v;
	const int r = (s + 8 - (s < 0)) >> 4;

	return r > 127 ? 127 : r;
}

/* Packs pairs I/Q pairs of radio samples (int16 holding 12-bit values, I first) to a wire format.
 * dst and src may have any alignment; they must not overlap. */
typedef void (*zcs_pack_fn)(void *dst, const int16_t *src, size_t pairs);
/* Converts pairs I/Q pairs from a wire format to a consumer type. */
typedef void (*zcs_unpack_fn)(void *dst, const void *src, size_t pairs);

enum zcs_isa {
	ZCS_ISA_SCALAR = 0,
	ZCS_ISA_SSE2 = 1,
	ZCS_ISA_AVX2 = 2,
	ZCS_ISA_NEON = 3,
	ZCS_ISA_BEST = 255,   /* the best the CPU supports */
};

struct zcs_kernels {
	enum zcs_isa isa;
	zcs_pack_fn pack[ZCS_WIRE_MAX + 1];                       /* index: enum zcs_wire_format */
	zcs_unpack_fn unpack[ZCS_WIRE_MAX + 1][ZCS_SAMPLE_TYPES]; /* [wire][sample type] */
};

/* Fills k with the kernels of isa (ZCS_ISA_BEST: probe the CPU).  Returns 0, or -ENOTSUP when
 * this build or CPU lacks that isa, or isa is not one of the above (k is then left unchanged). */
int zcs_kernels_init(struct zcs_kernels *k, enum zcs_isa isa);

const char *zcs_isa_name(enum zcs_isa isa);

/* Bytes of one I/Q pair of a consumer type given the wire format (native = wire size). */
size_t zcs_sample_pair_bytes(enum zcs_sample_type t, int wire_format);
const char *zcs_sample_name(enum zcs_sample_type t);
/* "cs8", "cu8", "cs16", "cf32", "native" -> type, or -1. */
int zcs_sample_from_name(const char *name);

/* File and stdin import for the sender: consumer type -> radio int16 (12-bit, saturated).
 * ZCS_SAMPLE_CS16 input is taken as 12-bit LSB-aligned values (the radio's own layout, a raw
 * capture: the file type raw12);
 * cs8/cu8 are scaled << 4, cf32 by 2048 with rounding (half away from zero; NaN -> 0), and
 * native is taken as cs16 (a file has no wire format).  Scalar: files are not the fast path. */
void zcs_import(enum zcs_sample_type t, int16_t *dst, const void *src, size_t pairs);

/* File types the sender imports (zcs-send -s file / stdin), named as zcs-recv's -F names what it
 * writes, so a recording replays at its own level by its suffix: cs16 is full-scale int16 (what
 * zcs-recv -F cs16, SigMF ci16_le and most SDR tools write; ci16 is another name for it), and the
 * radio's raw layout, int16 holding 12-bit values (a capture of the device buffer), is raw12.
 * Values: the types whose layout zcs_import reads take that consumer type's value (raw12 is
 * ZCS_SAMPLE_CS16's); any other takes a value from 16 up, clear of the consumer types so they may
 * grow, and its names, pair size and SigMF datatype in formats/import.c. */
enum zcs_import_type {
	ZCS_IMPORT_CS8 = ZCS_SAMPLE_CS8,
	ZCS_IMPORT_CU8 = ZCS_SAMPLE_CU8,
	ZCS_IMPORT_RAW12 = ZCS_SAMPLE_CS16, /* "raw12": int16 LE holding the 12-bit value (v) */
	ZCS_IMPORT_CF32 = ZCS_SAMPLE_CF32,
	ZCS_IMPORT_CI16 = 16,               /* "cs16" or "ci16": int16 LE at full scale (v << 4) */
};

/* "cs8", "cu8", "cs16", "ci16", "cf32", "raw12" -> type, or -1. */
int zcs_import_from_name(const char *name);
/* The name of an import type ("cs16" for full-scale int16); "unknown" for anything else. */
const char *zcs_import_name(int t);
/* Bytes of one I/Q pair in a file of type t; 0 when t is not an import type. */
size_t zcs_import_pair_bytes(int t);
/* A SigMF core:datatype ("ci16_le", "cf32_le", "ci8", "cu8") -> type, or -1 for the others
 * (big-endian, other widths, real-valued). */
int zcs_import_from_sigmf(const char *datatype);
/* zcs_import for every import type.  ci16 is rounded to the nearest 12-bit value (halves up) and
 * saturated: exact for what zcs-recv wrote (v << 4 comes back as v), unbiased for 16-bit input. */
void zcs_import_convert(enum zcs_import_type t, int16_t *dst, const void *src, size_t pairs);

#ifdef __cplusplus
}
#endif

#endif
