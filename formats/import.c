// SPDX-License-Identifier: MIT
/* File and stdin import for the sender: consumer sample types and full-scale cs16 -> radio int16
 * (12-bit, saturated), and the import types' names.  Scalar on purpose: not the fast path. */
#include <math.h>
#include <string.h>

#include "convert.h"

static int16_t import_cf32(const uint8_t *p)
{
	const uint32_t bits = zcs_get_le32(p);
	float f;

	memcpy(&f, &bits, sizeof(f));
	if (isnan(f))
		return 0;
	f *= 2048.0f;
	/* Compare before converting: a float beyond int range converts to an undefined value. */
	if (f >= (float)ZCS_S12_MAX)
		return ZCS_S12_MAX;
	if (f <= (float)ZCS_S12_MIN)
		return ZCS_S12_MIN;
	return (int16_t)lroundf(f);
}

void zcs_import(enum zcs_sample_type t, int16_t *dst, const void *src, size_t pairs)
{
	const uint8_t *s = src;
	const size_t n = 2 * pairs;

	switch (t) {
	case ZCS_SAMPLE_CS8:
		for (size_t j = 0; j < n; j++)
			dst[j] = (int16_t)((int8_t)s[j] * 16);
		break;
	case ZCS_SAMPLE_CU8:
		for (size_t j = 0; j < n; j++)
			dst[j] = (int16_t)(((int)s[j] - 128) * 16);
		break;
	case ZCS_SAMPLE_CF32:
		for (size_t j = 0; j < n; j++)
			dst[j] = import_cf32(s + 4 * j);
		break;
	case ZCS_SAMPLE_CS16:
	case ZCS_SAMPLE_NATIVE: /* a file has no wire format: native means the radio's own int16 */
	default:
		for (size_t j = 0; j < n; j++)
			dst[j] = (int16_t)zcs_sat12((int16_t)zcs_get_le16(s + 2 * j));
		break;
	}
}

/* Full scale to 12 bits, to the nearest (halves up).  +8 then an arithmetic shift (gcc and clang
 * shift signed values arithmetically) is floor((x + 8) / 16): for x = v * 16 exactly v. */
static int16_t import_ci16(const uint8_t *p)
{
	const int x = (int16_t)zcs_get_le16(p);

	return (int16_t)zcs_sat12((x + 8) >> 4);
}

void zcs_import_convert(enum zcs_import_type t, int16_t *dst, const void *src, size_t pairs)
{
	const uint8_t *s = src;

	if (t != ZCS_IMPORT_CI16) {
		zcs_import((enum zcs_sample_type)t, dst, src, pairs);
		return;
	}
	for (size_t j = 0; j < 2 * pairs; j++)
		dst[j] = import_ci16(s + 2 * j);
}

static const struct {
	const char *name;
	enum zcs_import_type t;
	size_t pair_bytes;
} import_types[] = {
	/* an import type's name is its first entry */
	{ "cs16", ZCS_IMPORT_CI16, 4 }, { "cs8", ZCS_IMPORT_CS8, 2 }, { "cu8", ZCS_IMPORT_CU8, 2 },
	{ "cf32", ZCS_IMPORT_CF32, 8 }, { "ci16", ZCS_IMPORT_CI16, 4 },
	{ "raw12", ZCS_IMPORT_RAW12, 4 },
};
#define IMPORT_TYPES (sizeof(import_types) / sizeof(import_types[0]))

int zcs_import_from_name(const char *name)
{
	for (size_t i = 0; name && i < IMPORT_TYPES; i++)
		if (strcmp(name, import_types[i].name) == 0)
			return (int)import_types[i].t;
	return -1;
}

const char *zcs_import_name(int t)
{
	for (size_t i = 0; i < IMPORT_TYPES; i++)
		if ((int)import_types[i].t == t)
			return import_types[i].name;
	return "unknown";
}

size_t zcs_import_pair_bytes(int t)
{
	for (size_t i = 0; i < IMPORT_TYPES; i++)
		if ((int)import_types[i].t == t)
			return import_types[i].pair_bytes;
	return 0;
}

int zcs_import_from_sigmf(const char *datatype)
{
	/* complex types only: SigMF's r* (real) types have one value a sample, not an I/Q pair */
	static const struct { const char *sigmf; enum zcs_import_type t; } map[] = {
		{ "ci16_le", ZCS_IMPORT_CI16 }, { "cf32_le", ZCS_IMPORT_CF32 },
		{ "ci8", ZCS_IMPORT_CS8 }, { "cu8", ZCS_IMPORT_CU8 },
	};

	for (size_t i = 0; datatype && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(datatype, map[i].sigmf) == 0)
			return (int)map[i].t;
	return -1;
}
