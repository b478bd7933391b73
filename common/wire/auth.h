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

/* The tag (revision 13 of docs/protocol.md, "The tag").  A nonce is 24 bytes: a 16-byte prefix
 * (salt, stream id, type, 3 zero bytes) and the datagram's number N, u64 little-endian.
 *   subkey = HChaCha20(key, nonce[0, 16))
 *   otk    = the 32 bytes at offset 32 N of the keystream of ChaCha20 (the 64-bit block counter,
 *            64-bit nonce variant) under subkey with nonce ZCS_AUTH_OTK_NONCE: block N >> 1,
 *            its first half for an even N, its second for an odd one
 *   tag    = Poly1305(otk, bytes | zeros to a multiple of 16 | le64(len) | le64(0))
 * Consecutive numbers' one-time keys are consecutive pieces of one keystream, so a sender makes a
 * train's keys in one call (zcs_auth_tagger_prepare), and a receiver makes the one block a datagram
 * needs from the datagram alone. */
#define ZCS_AUTH_OTK_NONCE "zcs-otks"   /* 8 bytes: no revision before 13 used it */
/* One-time keys a tagger prepares at once: a train's datagrams, at most 64 (sendpath/train.h). */
#define ZCS_AUTH_TAGGER_OTKS 64
/* Subkeys a tagger keeps: one per base type (samples, metadata, parity; the type byte's low 2
 * bits), so a thread that seals samples, parity and metadata in turn makes each once a run. */
#define ZCS_AUTH_TAGGER_SUBKEYS 4

struct zcs_auth_subkey {
	uint8_t prefix[16];          /* the nonce prefix subkey was made for */
	uint8_t subkey[32];
	bool valid;
};

/* One thread's means to tag: the key, the subkeys of a run's types, the one-time keys prepared for
 * the datagrams it is about to seal, and libcrypto's contexts.  Poly1305 and the prepared keys'
 * ChaCha20 are OpenSSL's where the build has libcrypto (its ARMv7 code takes NEON on the board),
 * else libsodium's; the tag is the same bit for bit (the unit test checks the tagger against
 * zcs_auth_tag, and both against vectors of tests/security/zcs_auth_ref.py).  A tagger is one
 * thread's.  Its memory is all inside it: sealing allocates nothing. */
struct zcs_auth_tagger {
	uint8_t key[ZCS_KEY_BYTES];
	struct zcs_auth_subkey sub[ZCS_AUTH_TAGGER_SUBKEYS];
	/* prepared: the one-time keys of numbers [otk_first, otk_first + otk_count) under
	 * otk_prefix, number otk_first + i at otks + 32 * (otk_skip + i) */
	uint8_t otk_prefix[16];
	uint64_t otk_first;
	size_t otk_count;            /* 0: none prepared */
	size_t otk_skip;             /* 1 when otk_first is odd: its key is its block's second half */
	uint8_t otks[(ZCS_AUTH_TAGGER_OTKS + 2) * 32];
	void *mac;                   /* OpenSSL's EVP_MAC_CTX for Poly1305, or NULL */
	void *cipher;                /* OpenSSL's EVP_CIPHER_CTX for ChaCha20, or NULL */
	uint8_t cipher_prefix[16];   /* the prefix whose subkey cipher holds */
	bool cipher_keyed;
};

/* Copies key.  Returns 0, or -ENOMEM / -EIO (libcrypto's Poly1305 or ChaCha20 unavailable) with
 * err set. */
int zcs_auth_tagger_init(struct zcs_auth_tagger *t, const uint8_t key[ZCS_KEY_BYTES], char *err,
			 size_t errlen);
/* Overwrites key, subkeys and one-time keys, frees the contexts.  Safe on a zeroed or wiped
 * tagger. */
void zcs_auth_tagger_wipe(struct zcs_auth_tagger *t);
/* Makes the one-time keys of the count datagrams numbered from nonce's number on (at most
 * ZCS_AUTH_TAGGER_OTKS; numbers past 2^64 - 1 are not made), under nonce's prefix, in one
 * keystream call; they replace any prepared before.  Optional: a tag whose key was not prepared
 * makes its block alone.  No allocation. */
void zcs_auth_tagger_prepare(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			     size_t count);
/* zcs_auth_tag's tag, through t's subkeys and prepared keys.  No allocation. */
void zcs_auth_tagger_tag(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			 const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES]);
/* zcs_auth_tag_ok through t: constant time in the comparison. */
bool zcs_auth_tagger_ok(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES]);
/* Which Poly1305 this build uses: "openssl" or "libsodium". */
const char *zcs_auth_poly1305_impl(void);

/* Writes to tag the tag (above) of the len bytes at bytes under key (ZCS_KEY_BYTES) and nonce,
 * from libsodium alone and nothing kept: what a receiver computes for one datagram.  tag may be the
 * byte right after the range (a datagram's trailer) but must not overlap it.  Reads key, nonce
 * and bytes only, so threads may tag at once.  No allocation. */
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
