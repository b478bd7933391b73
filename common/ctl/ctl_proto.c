// SPDX-License-Identifier: MIT
/* Control channel framing and crypto (docs/protocol.md, "Control channel"): BLAKE2b keyed with
 * the stream key for the handshake MACs and the session keys, XChaCha20-Poly1305 per frame. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "bytes.h"
#include "ctl_proto.h"

/* Labels are fixed 16-byte strings (NUL padded), so label || nonce_c || nonce_s has one parse
 * and no two uses of the key hash the same input. */
#define LABEL_BYTES 16
static const char LBL_SMAC[LABEL_BYTES] = "zcs-ctl1 server";
static const char LBL_CMAC[LABEL_BYTES] = "zcs-ctl1 client";
static const char LBL_C2S[LABEL_BYTES] = "zcs-ctl1 c2s";
static const char LBL_S2C[LABEL_BYTES] = "zcs-ctl1 s2c";

static const char *const err_names[ZCS_CTL_E_COUNT] = {
	[ZCS_CTL_E_NONE] = "none",
	[ZCS_CTL_E_LENGTH] = "bad_length",
	[ZCS_CTL_E_MAGIC] = "bad_magic",
	[ZCS_CTL_E_VERSION] = "bad_version",
	[ZCS_CTL_E_TYPE] = "bad_type",
	[ZCS_CTL_E_AUTH] = "auth",
	[ZCS_CTL_E_SEAL] = "seal",
	[ZCS_CTL_E_MESSAGE] = "bad_message",
};

const char *zcs_ctl_err_name(int e)
{
	if (e < 0)
		e = -e;
	return e < ZCS_CTL_E_COUNT ? err_names[e] : "unknown";
}

int zcs_ctl_rxbuf_frame(const struct zcs_ctl_rxbuf *rb, const uint8_t **body, size_t *len)
{
	size_t n;

	if (rb->used < ZCS_CTL_LEN_BYTES)
		return 0;
	n = zcs_get_le16(rb->buf);
	if (n == 0 || n > ZCS_CTL_MAX_BODY)
		return -ZCS_CTL_E_LENGTH;
	if (rb->used < ZCS_CTL_LEN_BYTES + n)
		return 0;
	*body = rb->buf + ZCS_CTL_LEN_BYTES;
	*len = n;
	return 1;
}

void zcs_ctl_rxbuf_consume(struct zcs_ctl_rxbuf *rb)
{
	const size_t n = ZCS_CTL_LEN_BYTES + zcs_get_le16(rb->buf);

	if (n >= rb->used) {
		rb->used = 0;
		return;
	}
	memmove(rb->buf, rb->buf + n, rb->used - n);
	rb->used -= n;
}

ssize_t zcs_ctl_rxbuf_read(struct zcs_ctl_rxbuf *rb, int fd)
{
	ssize_t got;

	if (rb->used >= sizeof(rb->buf))
		return -ENOBUFS;
	do
		got = read(fd, rb->buf + rb->used, sizeof(rb->buf) - rb->used);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	rb->used += (size_t)got;
	return got;
}

int zcs_ctl_session_init(struct zcs_ctl_session *s, bool server)
{
	memset(s, 0, sizeof(*s));
	s->server = server;
	/* idempotent and thread-safe; randombytes_buf needs it */
	return sodium_init() < 0 ? -EIO : 0;
}

/* out = BLAKE2b-256 keyed with the stream key over label || nonce_c || nonce_s. */
static void keyed_hash(uint8_t out[32], const struct zcs_key *key, const char label[LABEL_BYTES],
		       const struct zcs_ctl_session *s)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, key->bytes, sizeof(key->bytes), 32);
	crypto_generichash_update(&st, (const uint8_t *)label, LABEL_BYTES);
	crypto_generichash_update(&st, s->nonce_c, sizeof(s->nonce_c));
	crypto_generichash_update(&st, s->nonce_s, sizeof(s->nonce_s));
	crypto_generichash_final(&st, out, 32);
	sodium_memzero(&st, sizeof(st));
}

static void derive(struct zcs_ctl_session *s, const struct zcs_key *key)
{
	keyed_hash(s->server ? s->rx_key : s->tx_key, key, LBL_C2S, s);
	keyed_hash(s->server ? s->tx_key : s->rx_key, key, LBL_S2C, s);
	s->tx_ctr = 0;
	s->rx_ctr = 0;
	s->ready = true;
}

static uint8_t *put_head(uint8_t *out, size_t body, uint8_t type)
{
	zcs_put_le16(out, (uint16_t)body);
	out[2] = 'Z';
	out[3] = 'C';
	out[4] = ZCS_CTL_VERSION;
	out[5] = type;
	return out + ZCS_CTL_LEN_BYTES + 4;
}

/* Checks the 4-byte head of a handshake body of the expected type and exact size. */
static int check_head(const uint8_t *body, size_t len, uint8_t type, size_t size)
{
	if (len < 4)
		return -ZCS_CTL_E_LENGTH;
	if (body[0] != 'Z' || body[1] != 'C')
		return -ZCS_CTL_E_MAGIC;
	if (body[2] != ZCS_CTL_VERSION)
		return -ZCS_CTL_E_VERSION;
	if (body[3] != type)
		return -ZCS_CTL_E_TYPE;
	if (len != size)
		return -ZCS_CTL_E_LENGTH;
	return 0;
}

size_t zcs_ctl_hello_write(struct zcs_ctl_session *s, uint8_t *out)
{
	uint8_t *p = put_head(out, ZCS_CTL_HELLO_SIZE, ZCS_CTL_T_HELLO);

	randombytes_buf(s->nonce_c, sizeof(s->nonce_c));
	memcpy(p, s->nonce_c, sizeof(s->nonce_c));
	return ZCS_CTL_LEN_BYTES + ZCS_CTL_HELLO_SIZE;
}

int zcs_ctl_hello_check(struct zcs_ctl_session *s, const uint8_t *body, size_t len)
{
	const int ret = check_head(body, len, ZCS_CTL_T_HELLO, ZCS_CTL_HELLO_SIZE);

	if (ret < 0)
		return ret;
	memcpy(s->nonce_c, body + 4, sizeof(s->nonce_c));
	return 0;
}

size_t zcs_ctl_shello_write(struct zcs_ctl_session *s, const struct zcs_key *key, uint8_t *out)
{
	uint8_t *p = put_head(out, ZCS_CTL_SHELLO_SIZE, ZCS_CTL_T_SHELLO);

	/* the server's fresh nonce is what makes a recorded client's AUTH useless later */
	randombytes_buf(s->nonce_s, sizeof(s->nonce_s));
	memcpy(p, s->nonce_s, sizeof(s->nonce_s));
	keyed_hash(p + ZCS_CTL_NONCE_BYTES, key, LBL_SMAC, s);
	return ZCS_CTL_LEN_BYTES + ZCS_CTL_SHELLO_SIZE;
}

int zcs_ctl_shello_check(struct zcs_ctl_session *s, const struct zcs_key *key,
			 const uint8_t *body, size_t len)
{
	uint8_t mac[ZCS_CTL_MAC_BYTES];
	int ret = check_head(body, len, ZCS_CTL_T_SHELLO, ZCS_CTL_SHELLO_SIZE);

	if (ret < 0)
		return ret;
	memcpy(s->nonce_s, body + 4, sizeof(s->nonce_s));
	keyed_hash(mac, key, LBL_SMAC, s);
	ret = crypto_verify_32(mac, body + 4 + ZCS_CTL_NONCE_BYTES) == 0 ? 0 : -ZCS_CTL_E_AUTH;
	sodium_memzero(mac, sizeof(mac));
	return ret;
}

size_t zcs_ctl_auth_write(struct zcs_ctl_session *s, const struct zcs_key *key, uint8_t *out)
{
	uint8_t *p = put_head(out, ZCS_CTL_AUTH_SIZE, ZCS_CTL_T_AUTH);

	keyed_hash(p, key, LBL_CMAC, s);
	derive(s, key);
	return ZCS_CTL_LEN_BYTES + ZCS_CTL_AUTH_SIZE;
}

int zcs_ctl_auth_check(struct zcs_ctl_session *s, const struct zcs_key *key,
		       const uint8_t *body, size_t len)
{
	uint8_t mac[ZCS_CTL_MAC_BYTES];
	int ret = check_head(body, len, ZCS_CTL_T_AUTH, ZCS_CTL_AUTH_SIZE);

	if (ret < 0)
		return ret;
	keyed_hash(mac, key, LBL_CMAC, s);
	ret = crypto_verify_32(mac, body + 4) == 0 ? 0 : -ZCS_CTL_E_AUTH;
	sodium_memzero(mac, sizeof(mac));
	if (ret == 0)
		derive(s, key);
	return ret;
}

/* The nonce of frame number ctr: the number, then zeros (the key is this session's and this
 * direction's alone, so numbers never repeat under one key). */
static void frame_nonce(uint8_t n[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES], uint64_t ctr)
{
	memset(n, 0, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
	zcs_put_le64(n, ctr);
}

ssize_t zcs_ctl_seal(struct zcs_ctl_session *s, const uint8_t *plain, size_t n, uint8_t *out)
{
	uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
	unsigned long long clen = 0;

	if (!s->ready)
		return -EINVAL;
	if (n == 0 || n > ZCS_CTL_MAX_PLAIN)
		return -EMSGSIZE;
	zcs_put_le16(out, (uint16_t)(n + ZCS_CTL_TAG_BYTES));
	frame_nonce(nonce, s->tx_ctr);
	/* the length prefix is authenticated too, as associated data */
	crypto_aead_xchacha20poly1305_ietf_encrypt(out + ZCS_CTL_LEN_BYTES, &clen, plain, n,
						   out, ZCS_CTL_LEN_BYTES, NULL, nonce, s->tx_key);
	s->tx_ctr++;
	return (ssize_t)(ZCS_CTL_LEN_BYTES + clen);
}

ssize_t zcs_ctl_open(struct zcs_ctl_session *s, const uint8_t *body, size_t len, uint8_t *plain)
{
	uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
	uint8_t ad[ZCS_CTL_LEN_BYTES];
	unsigned long long plen = 0;

	if (!s->ready)
		return -ZCS_CTL_E_SEAL;
	if (len <= ZCS_CTL_TAG_BYTES || len > ZCS_CTL_MAX_BODY)
		return -ZCS_CTL_E_LENGTH;
	zcs_put_le16(ad, (uint16_t)len);
	frame_nonce(nonce, s->rx_ctr);
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &plen, NULL, body, len, ad,
						       sizeof(ad), nonce, s->rx_key) != 0)
		return -ZCS_CTL_E_SEAL;
	s->rx_ctr++;
	return (ssize_t)plen;
}

void zcs_ctl_session_wipe(struct zcs_ctl_session *s)
{
	sodium_memzero(s, sizeof(*s));
}
