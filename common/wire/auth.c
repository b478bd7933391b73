// SPDX-License-Identifier: MIT
/* The tag (auth.h): XChaCha20-Poly1305 with an empty message and the bytes as additional data, so
 * the tag covers every byte given and nothing is encrypted.  Why this construction, and its cost
 * on a Cortex-A9: docs/protocol.md, "Keyed datagrams". */
#include <errno.h>
#include <sodium.h>
#include <string.h>

#include "zcs_config.h"
#if ZCS_HAVE_OPENSSL
#include <openssl/core_names.h>
#include <openssl/evp.h>
#endif

#include "auth.h"
#include "bytes.h"
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

#if ZCS_HAVE_OPENSSL
static void *poly_new(void)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;

	EVP_MAC_free(mac); /* the context holds its own reference */
	return ctx;
}

static void poly_free(void *ctx)
{
	EVP_MAC_CTX_free(ctx);
}

/* Poly1305 under otk of a, then b, then the 16 bytes at c. */
static void poly(void *ctx, const uint8_t otk[32], const uint8_t *a, size_t alen, const uint8_t *b,
		 size_t blen, const uint8_t c[16], uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	size_t out = 0;

	/* Cannot fail for a fetched Poly1305 with a 32-byte key and a 16-byte output; were it to,
	 * the tag is left zero, which no receiver accepts, rather than anything made up. */
	if (EVP_MAC_init(ctx, otk, 32, NULL) != 1 || EVP_MAC_update(ctx, a, alen) != 1 ||
	    (blen && EVP_MAC_update(ctx, b, blen) != 1) || EVP_MAC_update(ctx, c, 16) != 1 ||
	    EVP_MAC_final(ctx, tag, &out, ZCS_AUTH_TAG_BYTES) != 1 || out != ZCS_AUTH_TAG_BYTES)
		memset(tag, 0, ZCS_AUTH_TAG_BYTES);
}

const char *zcs_auth_poly1305_impl(void)
{
	return "openssl";
}
#else
static void poly_free(void *ctx)
{
	(void)ctx;
}

/* Poly1305 under otk of a, then b, then the 16 bytes at c. */
static void poly(void *ctx, const uint8_t otk[32], const uint8_t *a, size_t alen, const uint8_t *b,
		 size_t blen, const uint8_t c[16], uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	crypto_onetimeauth_poly1305_state st;

	(void)ctx;
	crypto_onetimeauth_poly1305_init(&st, otk);
	crypto_onetimeauth_poly1305_update(&st, a, alen);
	crypto_onetimeauth_poly1305_update(&st, b, blen);
	crypto_onetimeauth_poly1305_update(&st, c, 16);
	crypto_onetimeauth_poly1305_final(&st, tag);
	sodium_memzero(&st, sizeof(st));
}

const char *zcs_auth_poly1305_impl(void)
{
	return "libsodium";
}
#endif

/* Whether nonce starts with prefix, compared inline: glibc's memcmp was 66 instructions a tag on
 * the A9 (bench_auth_arm.sh).  The prefix is public, so nothing asks for constant time. */
static bool same_prefix(const uint8_t prefix[16], const uint8_t nonce[ZCS_AUTH_NONCE_BYTES])
{
	uint64_t a[2], b[2];

	memcpy(a, prefix, sizeof(a));
	memcpy(b, nonce, sizeof(b));
	return ((a[0] ^ b[0]) | (a[1] ^ b[1])) == 0;
}

int zcs_auth_tagger_init(struct zcs_auth_tagger *t, const uint8_t key[ZCS_KEY_BYTES], char *err,
			 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (sodium_init() < 0)
		return zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
	memcpy(t->key, key, sizeof(t->key));
#if ZCS_HAVE_OPENSSL
	t->mac = poly_new();
	if (!t->mac) {
		sodium_memzero(t->key, sizeof(t->key));
		return zcs_err(err, errlen, -EIO, "libcrypto offers no Poly1305");
	}
#endif
	return 0;
}

void zcs_auth_tagger_wipe(struct zcs_auth_tagger *t)
{
	poly_free(t->mac);
	sodium_memzero(t, sizeof(*t));
}

void zcs_auth_tagger_tag(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			 const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	static const uint8_t zeros[64]; /* a whole ChaCha20 block; the padding takes at most 15 */
	uint8_t n12[12], block[64], lens[16];

	/* HChaCha20 of the prefix (salt, stream id, type, 3 zero bytes): once per run and type */
	if (!t->have_subkey || !same_prefix(t->prefix, nonce)) {
		crypto_core_hchacha20(t->subkey, nonce, t->key, NULL);
		memcpy(t->prefix, nonce, sizeof(t->prefix));
		t->have_subkey = true;
	}
	memset(n12, 0, 4);
	memcpy(n12 + 4, nonce + 16, 8);
	/* The one-time key is the block's first 32 bytes.  libsodium's portable code makes a part
	 * block through a zeroed buffer and byte-wise copies, and the keystream by zeroing its output
	 * first: the whole block, as the xor of constant zeros, spares both (bench_auth_arm.sh). */
	crypto_stream_chacha20_ietf_xor_ic(block, zeros, sizeof(block), n12, 0, t->subkey);
	zcs_put_le64(lens, len);
	zcs_put_le64(lens + 8, 0); /* the empty message */
	poly(t->mac, block, bytes, len, zeros, (16 - len % 16) % 16, lens, tag);
	sodium_memzero(block, sizeof(block));
}

bool zcs_auth_tagger_ok(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	uint8_t want[ZCS_AUTH_TAG_BYTES];
	bool ok;

	zcs_auth_tagger_tag(t, nonce, bytes, len, want);
	ok = crypto_verify_16(want, tag) == 0;
	sodium_memzero(want, sizeof(want));
	return ok;
}
