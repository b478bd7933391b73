/* SPDX-License-Identifier: MIT */
/* Keyed streams' cryptography: a keyed sender's key material for one run, and the tag over a
 * range of bytes.  Where the tag and the nonce's inputs sit in a datagram is the wire format's
 * (proto.h, "Keyed datagrams"); this file knows nothing of datagrams.  docs/protocol.md, "The tag";
 * docs/security.md for the threat model. */
#ifndef ZCS_AUTH_H
#define ZCS_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_AUTH_SALT_BYTES 8
#define ZCS_AUTH_TAG_BYTES 16
#define ZCS_AUTH_NONCE_BYTES 24

/* A keyed sender's state for one run.  The salt and the run's start are fixed at init, the run
 * number set by the sender after init (its counter kept across reboots, common/wire/runstate.h);
 * meta_seq numbers the metadata datagrams (the sample datagrams are numbered by their seq). */
struct zcs_auth {
	uint8_t key[ZCS_KEY_BYTES];
	uint8_t salt[ZCS_AUTH_SALT_BYTES]; /* random per run: nonces never repeat across runs */
	uint64_t run_start_ns;             /* the sender's wall clock at start, ns since 1970 */
	uint64_t meta_seq;                 /* number of the next metadata datagram */
	uint64_t run;                      /* the run's number: receivers order runs by it */
};

/* Copies the key, draws a fresh salt from libsodium's random source and numbers metadata from 0.
 * Returns 0 or -errno with err set (libsodium failed to initialise). */
int zcs_auth_init(struct zcs_auth *a, const struct zcs_key *key, uint64_t run_start_ns,
		  char *err, size_t errlen);
/* Overwrites the key in memory. */
void zcs_auth_wipe(struct zcs_auth *a);

/* One thread's means to tag: the key, and what the tags of a run share, computed once.
 *
 * The tag of XChaCha20-Poly1305 (empty message, the bytes as additional data) is
 *   subkey = HChaCha20(key, nonce[0, 16))
 *   otk    = the first 32 bytes of ChaCha20(subkey, 4 zero bytes | nonce[16, 24), block 0)
 *   tag    = Poly1305(otk, bytes | zeros to a multiple of 16 | le64(len) | le64(0))
 * and the first 16 bytes of a zcs nonce (salt, stream id, type) do not change within a run, so
 * the subkey is kept for the prefix it was made for: a datagram pays one ChaCha20 block and
 * Poly1305 over its bytes.  Poly1305 is OpenSSL's where the build has libcrypto (its ARMv7 code
 * takes NEON on the board, 2.5x fewer instructions than libsodium's portable C), else
 * libsodium's; the tag is the same bit for bit (docs/protocol.md, "The tag"; the unit test
 * checks it against libsodium's AEAD over random keys, nonces and lengths).  A tagger is one
 * thread's: it holds a cache and, with libcrypto, a MAC context. */
struct zcs_auth_tagger {
	uint8_t key[ZCS_KEY_BYTES];
	uint8_t prefix[16];          /* the nonce prefix subkey was made for */
	uint8_t subkey[32];
	bool have_subkey;
	void *mac;                   /* OpenSSL's EVP_MAC_CTX for Poly1305, or NULL */
};

/* Copies key.  Returns 0, or -ENOMEM / -EIO (libcrypto's Poly1305 unavailable) with err set. */
int zcs_auth_tagger_init(struct zcs_auth_tagger *t, const uint8_t key[ZCS_KEY_BYTES], char *err,
			 size_t errlen);
/* Overwrites key and subkey, frees the MAC context.  Safe on a zeroed or wiped tagger. */
void zcs_auth_tagger_wipe(struct zcs_auth_tagger *t);
/* zcs_auth_tag's tag, through t's cache.  No allocation. */
void zcs_auth_tagger_tag(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			 const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES]);
/* zcs_auth_tag_ok through t's cache: constant time in the comparison. */
bool zcs_auth_tagger_ok(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES]);
/* Which Poly1305 this build uses: "openssl" or "libsodium". */
const char *zcs_auth_poly1305_impl(void);

/* Writes to tag the XChaCha20-Poly1305 tag of the empty message with the len bytes at bytes as
 * additional data, under key (ZCS_KEY_BYTES) and nonce.  tag may be the byte right after the
 * range (a datagram's trailer) but must not overlap it.  Reads key, nonce and bytes only, so
 * threads may tag at once.  No allocation. */
void zcs_auth_tag(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		  const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES]);

/* Whether tag is the tag zcs_auth_tag would write for the same key, nonce and bytes.  The
 * comparison takes the same time whichever byte differs (libsodium). */
bool zcs_auth_tag_ok(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		     const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES]);

#ifdef __cplusplus
}
#endif

#endif
