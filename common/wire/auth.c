// SPDX-License-Identifier: MIT
/* The authentication trailer (auth.h): XChaCha20-Poly1305 with an empty message and the datagram
 * as additional data, so the tag covers every byte before it and nothing is encrypted.  Why this
 * construction, and its cost on a Cortex-A9: docs/protocol.md, "Keyed datagrams". */
#include <errno.h>
#include <sodium.h>
#include <string.h>

#include "auth.h"
#include "bytes.h"
#include "err.h"
#include "proto.h"

#define OFF_TYPE 3
#define OFF_STREAM 4
#define OFF_SEQ 8   /* a sample datagram's seq */

_Static_assert(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES == ZCS_AUTH_NONCE_BYTES,
	       "XChaCha20 nonce is 24 bytes");
_Static_assert(crypto_aead_xchacha20poly1305_ietf_ABYTES == ZCS_AUTH_TAG_BYTES,
	       "Poly1305 tag is 16 bytes");
_Static_assert(crypto_aead_xchacha20poly1305_ietf_KEYBYTES == ZCS_KEY_BYTES, "key is 32 bytes");

int zcs_auth_init(struct zcs_auth *a, const struct zcs_key *key, uint64_t run_start_ns,
		  char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	if (sodium_init() < 0)
		return zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
	memcpy(a->key, key->bytes, sizeof(a->key));
	randombytes_buf(a->salt, sizeof(a->salt));
	a->run_start_ns = run_start_ns;
	return 0;
}

void zcs_auth_wipe(struct zcs_auth *a)
{
	sodium_memzero(a, sizeof(*a));
}

size_t zcs_auth_trailer_bytes(int base_type)
{
	switch (base_type) {
	case ZCS_DGRAM_SAMPLES: return ZCS_AUTH_SAMPLE_TRAILER;
	case ZCS_DGRAM_META: return ZCS_AUTH_META_TRAILER;
	default: return 0;
	}
}

/* nonce = salt[8] | stream_id u32 | type u8 | 3 zero bytes | number u64: the salt is random per
 * run, and within a run (type, number) names one datagram, so no nonce repeats under a key. */
static void make_nonce(uint8_t nonce[ZCS_AUTH_NONCE_BYTES], const uint8_t *salt,
		       const uint8_t *dg, uint64_t number)
{
	memcpy(nonce, salt, ZCS_AUTH_SALT_BYTES);
	memcpy(nonce + 8, dg + OFF_STREAM, 4);
	nonce[12] = dg[OFF_TYPE];
	nonce[13] = nonce[14] = nonce[15] = 0;
	zcs_put_le64(nonce + 16, number);
}

/* The tag over dg[0, total - 16), written at dg + total - 16. */
static void tag(const uint8_t *key, uint8_t *dg, size_t total, uint64_t number)
{
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES];
	const size_t ad = total - ZCS_AUTH_TAG_BYTES;
	unsigned char none = 0; /* the empty message: libsodium reads and writes no byte of it */

	make_nonce(nonce, dg + ad - ZCS_AUTH_SALT_BYTES, dg, number);
	crypto_aead_xchacha20poly1305_ietf_encrypt_detached(&none, dg + ad, NULL, &none, 0, dg, ad,
							    NULL, nonce, key);
}

size_t zcs_auth_seal_samples(const struct zcs_auth *a, uint8_t *dg, size_t len)
{
	const size_t total = len + ZCS_AUTH_SAMPLE_TRAILER;

	dg[OFF_TYPE] |= ZCS_AUTH_TYPE_BIT;
	memcpy(dg + len, a->salt, ZCS_AUTH_SALT_BYTES);
	tag(a->key, dg, total, zcs_get_le64(dg + OFF_SEQ));
	return total;
}

size_t zcs_auth_seal_meta(struct zcs_auth *a, uint8_t *dg)
{
	const size_t len = ZCS_PROTO_META_SIZE, total = len + ZCS_AUTH_META_TRAILER;
	const uint64_t number = a->meta_seq++;

	dg[OFF_TYPE] |= ZCS_AUTH_TYPE_BIT;
	zcs_put_le64(dg + len, a->run_start_ns);
	zcs_put_le64(dg + len + 8, number);
	memcpy(dg + len + 16, a->salt, ZCS_AUTH_SALT_BYTES);
	tag(a->key, dg, total, number);
	return total;
}

int zcs_auth_verify(const struct zcs_key *key, const uint8_t *dg, size_t len)
{
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES];
	unsigned char none = 0;
	uint64_t number;
	size_t ad;

	if (len <= OFF_TYPE)
		return ZCS_AUTH_UNKEYED;
	if (!(dg[OFF_TYPE] & ZCS_AUTH_TYPE_BIT))
		return ZCS_AUTH_UNKEYED;
	switch (dg[OFF_TYPE] & ~ZCS_AUTH_TYPE_BIT) {
	case ZCS_DGRAM_SAMPLES:
		if (len < ZCS_PROTO_SAMPLE_HDR_SIZE + ZCS_AUTH_SAMPLE_TRAILER)
			return ZCS_AUTH_BAD;
		number = zcs_get_le64(dg + OFF_SEQ);
		break;
	case ZCS_DGRAM_META:
		if (len != ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER)
			return ZCS_AUTH_BAD;
		number = zcs_get_le64(dg + ZCS_PROTO_META_SIZE + 8);
		break;
	default:
		return ZCS_AUTH_BAD;
	}
	ad = len - ZCS_AUTH_TAG_BYTES;
	make_nonce(nonce, dg + ad - ZCS_AUTH_SALT_BYTES, dg, number);
	if (crypto_aead_xchacha20poly1305_ietf_decrypt_detached(&none, NULL, &none, 0, dg + ad, dg,
								ad, nonce, key->bytes) != 0)
		return ZCS_AUTH_BAD;
	return ZCS_AUTH_OK;
}
