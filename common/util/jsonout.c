// SPDX-License-Identifier: MIT
/* One-line JSON documents through jansson (jsonout.h). */
#include <math.h>
#include <stdint.h>

#include "jsonout.h"

json_t *zcs_json_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

json_t *zcs_json_real(double v, int decimals)
{
	double scale = 1.0;

	if (!isfinite(v))
		return json_null();
	for (int i = 0; i < decimals; i++)
		scale *= 10.0;
	v = round(v * scale) / scale;
	/* -0.0 would print as "-0.0" */
	return json_real(v == 0.0 ? 0.0 : v);
}

int zcs_json_set(json_t *obj, const char *key, json_t *v)
{
	return json_object_set_new(obj, key, v) == 0 ? 0 : -1;
}

int zcs_json_line(char *buf, size_t len, json_t *doc)
{
	/* 15 significant digits: enough for every rounded value, and 0.1 stays "0.1" */
	const size_t flags = JSON_COMPACT | JSON_REAL_PRECISION(15);
	size_t n = 0;

	if (len)
		buf[0] = 0;
	if (doc)
		n = json_dumpb(doc, buf, len ? len - 1 : 0, flags);
	json_decref(doc);
	if (!doc || n == 0 || n >= len) {
		if (len)
			buf[0] = 0;
		return -1;
	}
	buf[n] = 0;
	return (int)n;
}
