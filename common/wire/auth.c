// SPDX-License-Identifier: MIT
/* The tag (auth.h): XChaCha20-Poly1305 with an empty message and the bytes as additional data, so
 * the tag covers every byte given and nothing is encrypted.  Why this construction, and its cost
 * on a Cortex-A9: docs/protocol.md, "Keyed datagrams". */
#include <errno.h>
#include <sodium.h>
#include <string.h>

#include "auth.h"
#include "err.h"

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

void zcs_auth_tag(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		  const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	unsigned char none = 0; /* the empty message: libsodium reads and writes no byte of it */

	crypto_aead_xchacha20poly1305_ietf_encrypt_detached(&none, tag, NULL, &none, 0, bytes, len,
							    NULL, nonce, key);
}

bool zcs_auth_tag_ok(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		     const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	unsigned char none = 0;

	return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(&none, NULL, &none, 0, tag,
								   bytes, len, nonce, key) == 0;
}
