/* SPDX-License-Identifier: MIT */
/* The control channel's framing and crypto: length-prefixed frames over TCP, a three-message
 * handshake on the stream key with fresh nonces from both sides, then sealed, numbered frames.
 * docs/protocol.md ("Control channel") is the spec; no I/O here, only bytes in and out. */
#ifndef ZCS_CTL_PROTO_H
#define ZCS_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_CTL_DEFAULT_PORT 5392
#define ZCS_CTL_VERSION 1

#define ZCS_CTL_NONCE_BYTES 32
#define ZCS_CTL_MAC_BYTES 32
#define ZCS_CTL_TAG_BYTES 16          /* XChaCha20-Poly1305 tag */
#define ZCS_CTL_LEN_BYTES 2           /* u16 LE body length before every frame */
/* The largest body a frame may announce.  Every message is a few hundred bytes of JSON; a bound
 * this small lets each connection live in one fixed buffer and caps what a peer can make us
 * hold. */
#define ZCS_CTL_MAX_BODY 4096
#define ZCS_CTL_MAX_PLAIN (ZCS_CTL_MAX_BODY - ZCS_CTL_TAG_BYTES)
#define ZCS_CTL_MAX_FRAME (ZCS_CTL_LEN_BYTES + ZCS_CTL_MAX_BODY)

/* Handshake bodies: magic "ZC", version, type, then the fields. */
#define ZCS_CTL_HELLO_SIZE (4 + ZCS_CTL_NONCE_BYTES)                         /* client's nonce */
/* server's nonce, MAC */
#define ZCS_CTL_SHELLO_SIZE (4 + ZCS_CTL_NONCE_BYTES + ZCS_CTL_MAC_BYTES)
#define ZCS_CTL_AUTH_SIZE (4 + ZCS_CTL_MAC_BYTES)                            /* client's MAC */

enum zcs_ctl_msg_type {
	ZCS_CTL_T_HELLO = 1,
	ZCS_CTL_T_SHELLO = 2,
	ZCS_CTL_T_AUTH = 3,
};

/* Why a peer was dropped: counted by the server, named in logs.  Append only. */
enum zcs_ctl_err {
	ZCS_CTL_E_NONE = 0,
	ZCS_CTL_E_LENGTH,       /* frame length 0, over ZCS_CTL_MAX_BODY, or wrong for its type */
	ZCS_CTL_E_MAGIC,
	ZCS_CTL_E_VERSION,
	ZCS_CTL_E_TYPE,
	ZCS_CTL_E_AUTH,         /* handshake MAC wrong: the peer does not hold the key */
	ZCS_CTL_E_SEAL,         /* sealed frame does not open: forged, replayed, reordered, cut */
	ZCS_CTL_E_MESSAGE,      /* opened, but the message inside does not parse */
	ZCS_CTL_E_COUNT
};

const char *zcs_ctl_err_name(int e);

/* One side of one connection.  Keys are per session and per direction, so a frame's nonce needs
 * only its number: a frame replayed, dropped or moved fails to open. */
struct zcs_ctl_session {
	uint8_t nonce_c[ZCS_CTL_NONCE_BYTES];
	uint8_t nonce_s[ZCS_CTL_NONCE_BYTES];
	uint8_t tx_key[32], rx_key[32];
	uint64_t tx_ctr, rx_ctr;
	bool server;
	bool ready;             /* handshake done, keys derived */
};

/* Frame accumulator for a stream socket: bytes go in as they arrive, whole frames come out. */
struct zcs_ctl_rxbuf {
	uint8_t buf[ZCS_CTL_MAX_FRAME];
	size_t used;
};

/* Looks at the front of rb: 1 and (*body, *len) when a whole frame is there, 0 when more bytes
 * are needed, -ZCS_CTL_E_LENGTH when the announced length is 0 or too large. */
int zcs_ctl_rxbuf_frame(const struct zcs_ctl_rxbuf *rb, const uint8_t **body, size_t *len);
/* Drops the frame at the front (after zcs_ctl_rxbuf_frame returned 1). */
void zcs_ctl_rxbuf_consume(struct zcs_ctl_rxbuf *rb);
/* One read() from fd into rb's free space: bytes read, 0 at EOF, -EAGAIN, -errno.
 * -ENOBUFS when rb is full (cannot happen while frames are consumed as they come). */
ssize_t zcs_ctl_rxbuf_read(struct zcs_ctl_rxbuf *rb, int fd);

/* Handshake.  The writers put a whole frame (length prefix included) at out, which must hold
 * ZCS_CTL_MAX_FRAME bytes, and return its size.  The checkers take a frame's body and return 0 or
 * -enum zcs_ctl_err; they never read past len.  Sequence:
 *   client: zcs_ctl_hello_write            -> server: zcs_ctl_hello_check, zcs_ctl_shello_write
 *   client: zcs_ctl_shello_check (proves the server holds the key), zcs_ctl_auth_write
 *   server: zcs_ctl_auth_check (proves the client does); both sessions are then ready. */
/* Returns 0, or -EIO when libsodium cannot initialise (no randomness). */
int zcs_ctl_session_init(struct zcs_ctl_session *s, bool server);
size_t zcs_ctl_hello_write(struct zcs_ctl_session *s, uint8_t *out);
int zcs_ctl_hello_check(struct zcs_ctl_session *s, const uint8_t *body, size_t len);
size_t zcs_ctl_shello_write(struct zcs_ctl_session *s, const struct zcs_key *key, uint8_t *out);
int zcs_ctl_shello_check(struct zcs_ctl_session *s, const struct zcs_key *key,
			 const uint8_t *body, size_t len);
size_t zcs_ctl_auth_write(struct zcs_ctl_session *s, const struct zcs_key *key, uint8_t *out);
int zcs_ctl_auth_check(struct zcs_ctl_session *s, const struct zcs_key *key,
		       const uint8_t *body, size_t len);

/* Seals n bytes (1..ZCS_CTL_MAX_PLAIN) of a ready session into a frame at out (ZCS_CTL_MAX_FRAME
 * bytes); returns the frame's size or -EMSGSIZE / -EINVAL. */
ssize_t zcs_ctl_seal(struct zcs_ctl_session *s, const uint8_t *plain, size_t n, uint8_t *out);
/* Opens a frame's body into plain (ZCS_CTL_MAX_PLAIN bytes): the plaintext's length, or
 * -ZCS_CTL_E_SEAL / -ZCS_CTL_E_LENGTH.  The receive counter moves only on success. */
ssize_t zcs_ctl_open(struct zcs_ctl_session *s, const uint8_t *body, size_t len, uint8_t *plain);

/* Overwrites the session's secrets. */
void zcs_ctl_session_wipe(struct zcs_ctl_session *s);

#ifdef __cplusplus
}
#endif

#endif
