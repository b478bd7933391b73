/* SPDX-License-Identifier: MIT */
/* Stream keys: a 32-byte secret shared by a sender, its receivers and its controllers, kept in a
 * file of 64 hexadecimal digits on one line that only its owner may read (docs/security.md). */
#ifndef ZCS_KEY_H
#define ZCS_KEY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_KEY_BYTES 32

struct zcs_key {
	uint8_t bytes[ZCS_KEY_BYTES];
};

/* Reads the key in path.  Refused: a file that is not a regular file, one that group or others
 * may read or write (as ssh refuses such a private key), anything but 64 hex digits and an
 * optional newline.  Returns 0 or -errno (-EPERM for the mode, -EINVAL for the text) with err set. */
int zcs_key_load(struct zcs_key *key, const char *path, char *err, size_t errlen);

/* Parses exactly 64 hex digits at text[0..len) (a trailing "\n" or "\r\n" allowed).
 * Returns 0 or -EINVAL. */
int zcs_key_parse(struct zcs_key *key, const char *text, size_t len);

/* Writes a fresh random key to path, created with mode 0600; never replaces an existing file
 * (O_EXCL) and follows no symlink.  Returns 0 or -errno with err set. */
int zcs_key_generate(const char *path, char *err, size_t errlen);

/* Overwrites the secret in memory (sodium_memzero: not optimised away). */
void zcs_key_wipe(struct zcs_key *key);

#ifdef __cplusplus
}
#endif

#endif
