/* SPDX-License-Identifier: MIT */
/* Text that came from outside (the wire, a file): the one check a string passes before zcs keeps
 * it (UTF-8, no control characters), and the one way such text is made safe for a terminal. */
#ifndef ZCS_TEXT_H
#define ZCS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when the len bytes at s are well-formed UTF-8 (shortest form, no surrogates, at most
 * U+10FFFF) holding no control character: no C0 (U+0000-U+001F), no DEL, no C1 (U+0080-U+009F).
 * Such a string can go into JSON, a file name's neighbour or a terminal as it is. */
bool zcs_text_valid(const char *s, size_t len);

/* Copies the NUL-terminated src into dst (dstlen bytes, always NUL terminated when dstlen > 0)
 * with every byte that could steer a terminal written as \xHH: control bytes, DEL, a backslash,
 * and any byte of a malformed UTF-8 sequence; well-formed printable UTF-8 stays as it is.
 * Output that does not fit is cut at a character boundary.  Returns dst. */
char *zcs_text_escape(char *dst, size_t dstlen, const char *src);

#ifdef __cplusplus
}
#endif

#endif
