/* SPDX-License-Identifier: MIT */
/* Keyed streams: the authentication trailer of every datagram a keyed sender sends, and its
 * verification (docs/protocol.md, "Keyed datagrams"; docs/security.md for the threat model). */
#ifndef ZCS_AUTH_H
#define ZCS_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"

/* Type bit 7: the datagram ends with an authentication trailer (types 128 and 129). */
#define ZCS_AUTH_TYPE_BIT 0x80
#define ZCS_AUTH_SALT_BYTES 8
#define ZCS_AUTH_TAG_BYTES 16
#define ZCS_AUTH_NONCE_BYTES 24
/* Trailer of a sample datagram: salt, tag. */
#define ZCS_AUTH_SAMPLE_TRAILER (ZCS_AUTH_SALT_BYTES + ZCS_AUTH_TAG_BYTES)
/* Trailer of a metadata datagram: run_start_ns, meta_seq, salt, tag. */
#define ZCS_AUTH_META_TRAILER (8 + 8 + ZCS_AUTH_SALT_BYTES + ZCS_AUTH_TAG_BYTES)
/* The largest trailer, for buffers that hold either. */
#define ZCS_AUTH_MAX_TRAILER ZCS_AUTH_META_TRAILER

/* A keyed sender's state for one run.  The salt and the run's start are fixed at init; meta_seq
 * numbers the metadata datagrams (the sample datagrams are numbered by their seq). */
struct zcs_auth {
	uint8_t key[ZCS_KEY_BYTES];
	uint8_t salt[ZCS_AUTH_SALT_BYTES]; /* random per run: nonces never repeat across runs */
	uint64_t run_start_ns;             /* the sender's wall clock at start, ns since 1970 */
	uint64_t meta_seq;                 /* number of the next metadata datagram */
};

/* Verdicts of zcs_auth_verify. */
enum zcs_auth_verdict {
	ZCS_AUTH_OK = 0,
	ZCS_AUTH_UNKEYED = 1,  /* no trailer announced (type bit 7 clear): an unkeyed sender */
	ZCS_AUTH_BAD = 2,      /* a trailer announced that does not verify: another key, or forged */
};

/* Copies the key, draws a fresh salt from libsodium's random source and numbers metadata from 0.
 * Returns 0 or -errno with err set (libsodium failed to initialise). */
int zcs_auth_init(struct zcs_auth *a, const struct zcs_key *key, uint64_t run_start_ns,
		  char *err, size_t errlen);
/* Overwrites the key in memory. */
void zcs_auth_wipe(struct zcs_auth *a);

/* Bytes of the trailer of a datagram of base type (0 samples, 1 metadata); 0 for others. */
size_t zcs_auth_trailer_bytes(int base_type);

/* dg holds a complete unkeyed sample datagram of len bytes (header and payload) with room for
 * ZCS_AUTH_SAMPLE_TRAILER more behind it.  Sets the type bit, appends salt and tag.  Returns the
 * keyed datagram's length.  Reads a only, so the source thread may call it while the send
 * thread seals metadata.  No allocation. */
size_t zcs_auth_seal_samples(const struct zcs_auth *a, uint8_t *dg, size_t len);

/* dg holds a complete unkeyed metadata datagram (ZCS_PROTO_META_SIZE bytes) with room for
 * ZCS_AUTH_META_TRAILER more.  Sets the type bit, appends run_start_ns, the next meta_seq, salt
 * and tag.  Returns the keyed datagram's length. */
size_t zcs_auth_seal_meta(struct zcs_auth *a, uint8_t *dg);

/* Verifies the len bytes at dg under key, looking at nothing else first: the type byte says
 * whether a trailer is there and which; the tag covers every byte before it.  Returns an enum
 * zcs_auth_verdict.  Constant time in the tag comparison (libsodium). */
int zcs_auth_verify(const struct zcs_key *key, const uint8_t *dg, size_t len);

#endif
