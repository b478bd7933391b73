// SPDX-License-Identifier: MIT
/* File and stdin import for the sender: consumer sample types -> radio int16 (12-bit, saturated).
 * Scalar on purpose: files and pipes are not the fast path. */
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
