// SPDX-License-Identifier: MIT
/* Validation and terminal escaping of outside text (text.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

/* Length of the well-formed UTF-8 sequence at s (at most len bytes), 0 when malformed.
 * The decoded code point goes to *cp. */
static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	const unsigned char c = s[0];
	size_t n;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0; /* a continuation byte, an overlong lead (c0, c1) or beyond U+10FFFF */
	}
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

bool zcs_text_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len) {
		uint32_t cp;
		const size_t n = utf8_seq(p, len, &cp);

		if (!n || is_control(cp))
			return false;
		p += n;
		len -= n;
	}
	return true;
}

char *zcs_text_escape(char *dst, size_t dstlen, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t left = strlen(src), used = 0;

	if (!dstlen)
		return dst;
	while (left) {
		uint32_t cp;
		size_t n = utf8_seq(p, left, &cp);
		char esc[5];
		const char *out = (const char *)p;
		size_t outlen = n;

		if (!n || is_control(cp) || cp == '\\') {
			n = 1;
			snprintf(esc, sizeof(esc), "\\x%02x", p[0]);
			out = esc;
			outlen = 4;
		}
		if (used + outlen >= dstlen)
			break;
		memcpy(dst + used, out, outlen);
		used += outlen;
		p += n;
		left -= n;
	}
	dst[used] = 0;
	return dst;
}
