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
 * may read or write (as ssh refuses such a private key), one owned by another user than the one
 * running the program or root (as ssh refuses files others own: zcs_statefile_check_owner),
 * anything but 64 hex digits and an optional newline.  Returns 0 or -errno (-EPERM for the mode
 * or the owner, -EINVAL for the text) with err set. */
int zcs_key_load(struct zcs_key *key, const char *path, char *err, size_t errlen);

/* A key's identity in records kept for it (a receiver's run state): BLAKE2b keyed with the key
 * over a fixed label, cut to ZCS_KEY_ID_BYTES.  It tells nothing of the key (a MAC of a public
 * text), and two keys have the same id with probability 2^-64. */
#define ZCS_KEY_ID_BYTES 8
void zcs_key_id(const struct zcs_key *key, uint8_t id[ZCS_KEY_ID_BYTES]);

/* Parses exactly 64 hex digits at text[0..len) (a trailing "\n" or "\r\n" allowed).
 * Returns 0 or -EINVAL. */
int zcs_key_parse(struct zcs_key *key, const char *text, size_t len);

/* Writes a fresh random key to path, created with mode 0600; never replaces an existing file
 * (O_EXCL) and follows no symlink.  Returns 0 or -errno with err set. */
int zcs_key_generate(const char *path, char *err, size_t errlen);

/* Overwrites the secret in memory (sodium_memzero: not optimised away). */
void zcs_key_wipe(struct zcs_key *key);

/* --- the default key: where zcs-recv, zcs-ctl and the SoapySDR module look when no key is
 * given (docs/security.md, "The default key") --- */

#define ZCS_KEY_ENV "ZCS_KEY"               /* a key file's path; "none": no default key */
#define ZCS_KEY_ENV_NONE "none"
#define ZCS_KEY_USER_PATH "zcs/key"         /* under $XDG_CONFIG_HOME, else ~/.config */
#define ZCS_KEY_SYSTEM_PATH "/etc/zcs/key"

/* What the search reads: the process's environment, or a test's. */
struct zcs_key_env {
	const char *zcs_key;          /* $ZCS_KEY */
	const char *xdg_config_home;  /* $XDG_CONFIG_HOME */
	const char *home;             /* $HOME */
	const char *system_path;      /* ZCS_KEY_SYSTEM_PATH */
};

/* Fills env from getenv() and ZCS_KEY_SYSTEM_PATH. */
void zcs_key_env_get(struct zcs_key_env *env);

/* Where the default key is, first found wins:
 * 1. $ZCS_KEY: that path, whether or not the file is there (loading it tells); "none": no
 *    default key at all, the search ends (0).  Empty is as unset.
 * 2. $XDG_CONFIG_HOME/zcs/key, or $HOME/.config/zcs/key when XDG_CONFIG_HOME is unset, empty or
 *    not absolute (the XDG base directory rule); no $HOME (or a relative one): no such place.
 * 3. /etc/zcs/key.  It is mode 0600 like any key file, so it belongs to one user (a service's):
 *    for every other user it is there but unreadable, and passed over (note says so).
 * A place holding anything (a file, a directory, a dangling symlink) is taken: loading it then
 * refuses what is not a good key file, rather than the search falling through to another key.
 * Returns 1 with the file's path in path, 0 when there is no default key (note, when notelen,
 * says why a place was passed over: "" when none was), or -errno with err set (-ENAMETOOLONG for
 * a path that does not fit). */
int zcs_key_default_path(const struct zcs_key_env *env, char *path, size_t pathlen, char *note,
			 size_t notelen, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
