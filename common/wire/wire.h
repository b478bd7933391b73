/* SPDX-License-Identifier: MIT */
/* Wire sample formats: the codes carried in datagrams and the bytes one I/Q pair takes.
 * Shared by the protocol (common/) and the conversion kernels (formats/). */
#ifndef ZCS_WIRE_H
#define ZCS_WIRE_H

#include <stddef.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values are wire codes (docs/protocol.md, "Format codes"): append only. */
enum zcs_wire_format {
	ZCS_WIRE_I8 = 1,  /* 2 bytes a pair: I, Q as int8 = 12-bit value / 16, rounded */
	ZCS_WIRE_P12 = 2, /* 3 bytes a pair: SoapySDR CS12, the 24-bit LE word I | Q << 12 */
	ZCS_WIRE_I16 = 3, /* 4 bytes a pair: I, Q as int16 LE holding the 12-bit value */
};
#define ZCS_WIRE_MAX 3

/* Bytes one I/Q pair takes on the wire; 0 for a code that is not a format. */
static inline size_t zcs_wire_pair_bytes(int format)
{
	switch (format) {
	case ZCS_WIRE_I8: return 2;
	case ZCS_WIRE_P12: return 3;
	case ZCS_WIRE_I16: return 4;
	default: return 0;
	}
}

/* The format whose pairs take pair_bytes (each format's size is its own); 0 for none.  What a
 * block of the wire's own bytes (ZCS_SAMPLE_NATIVE) holds, told by its size alone. */
static inline int zcs_wire_of_pair_bytes(size_t pair_bytes)
{
	for (int f = 1; f <= ZCS_WIRE_MAX; f++)
		if (zcs_wire_pair_bytes(f) == pair_bytes)
			return f;
	return 0;
}

static inline const char *zcs_wire_name(int format)
{
	switch (format) {
	case ZCS_WIRE_I8: return "i8";
	case ZCS_WIRE_P12: return "p12";
	case ZCS_WIRE_I16: return "i16";
	default: return "unknown";
	}
}

/* Returns the format code for a name ("i8", "p12", "i16"), or -1. */
static inline int zcs_wire_from_name(const char *name)
{
	for (int f = 1; f <= ZCS_WIRE_MAX; f++)
		if (strcmp(name, zcs_wire_name(f)) == 0)
			return f;
	return -1;
}

#ifdef __cplusplus
}
#endif

#endif
