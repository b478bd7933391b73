// SPDX-License-Identifier: MIT
/* The tag (auth.h): Poly1305 under a one-time key that is a 32-byte piece of a ChaCha20 keystream,
 * the piece addressed by the datagram's number, so a sender makes a train's keys in one call and
 * a receiver the one block a datagram needs.  The construction, why each one-time key is used
 * once, and its cost on a Cortex-A9: docs/protocol.md, "The tag". */
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

_Static_assert(crypto_core_hchacha20_INPUTBYTES == 16, "HChaCha20 takes the 16-byte prefix");
_Static_assert(crypto_stream_chacha20_NONCEBYTES == sizeof(ZCS_AUTH_OTK_NONCE) - 1,
	       "the one-time keys' keystream has a 64-bit nonce");
_Static_assert(crypto_onetimeauth_poly1305_BYTES == ZCS_AUTH_TAG_BYTES, "Poly1305 tag is 16 bytes");
_Static_assert(crypto_core_hchacha20_KEYBYTES == ZCS_KEY_BYTES, "key is 32 bytes");

#define OTK_BYTES 32
#define BLOCK_BYTES 64

/* A whole train's keystream is the xor of these constant zeros (both libraries' ChaCha20 are
 * xor-ciphers: asking for the xor of zeros skips a memset of the output). */
static const uint8_t zeros[(ZCS_AUTH_TAGGER_OTKS / 2 + 1) * BLOCK_BYTES];

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

/* Poly1305 of bytes | zeros to a multiple of 16 | le64(len) | le64(0), libsodium's. */
static void poly_sodium(const uint8_t otk[OTK_BYTES], const uint8_t *bytes, size_t len,
			uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	crypto_onetimeauth_poly1305_state st;
	uint8_t lens[16];

	zcs_put_le64(lens, len);
	zcs_put_le64(lens + 8, 0); /* the empty message of the AEAD this construction came from */
	crypto_onetimeauth_poly1305_init(&st, otk);
	crypto_onetimeauth_poly1305_update(&st, bytes, len);
	crypto_onetimeauth_poly1305_update(&st, zeros, (16 - len % 16) % 16);
	crypto_onetimeauth_poly1305_update(&st, lens, sizeof(lens));
	crypto_onetimeauth_poly1305_final(&st, tag);
	sodium_memzero(&st, sizeof(st));
}

/* The keystream block of number n's one-time key, libsodium's: its half n & 1 is the key. */
static void otk_block(const uint8_t subkey[32], uint64_t n, uint8_t block[BLOCK_BYTES])
{
	crypto_stream_chacha20_xor_ic(block, zeros, BLOCK_BYTES,
				      (const unsigned char *)ZCS_AUTH_OTK_NONCE, n >> 1, subkey);
}

void zcs_auth_tag(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		  const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	const uint64_t n = zcs_get_le64(nonce + 16);
	uint8_t subkey[32], block[BLOCK_BYTES];

	crypto_core_hchacha20(subkey, nonce, key, NULL);
	otk_block(subkey, n, block);
	poly_sodium(block + OTK_BYTES * (n & 1), bytes, len, tag);
	sodium_memzero(subkey, sizeof(subkey));
	sodium_memzero(block, sizeof(block));
}

bool zcs_auth_tag_ok(const uint8_t *key, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
		     const uint8_t *bytes, size_t len, const uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	uint8_t want[ZCS_AUTH_TAG_BYTES];
	bool ok;

	zcs_auth_tag(key, nonce, bytes, len, want);
	ok = crypto_verify_16(want, tag) == 0;
	sodium_memzero(want, sizeof(want));
	return ok;
}

/* Whether nonce starts with prefix, compared inline, a word at a time: glibc's memcmp was 66
 * instructions a tag on the A9, and copies to 64-bit words went through the stack
 * (bench_auth_arm.sh).  The prefix is public, so nothing asks for constant time. */
static inline bool same_prefix(const uint8_t prefix[16], const uint8_t *nonce)
{
	return ((zcs_get_le32(prefix) ^ zcs_get_le32(nonce)) |
		(zcs_get_le32(prefix + 4) ^ zcs_get_le32(nonce + 4)) |
		(zcs_get_le32(prefix + 8) ^ zcs_get_le32(nonce + 8)) |
		(zcs_get_le32(prefix + 12) ^ zcs_get_le32(nonce + 12))) == 0;
}

#if ZCS_HAVE_OPENSSL
static int openssl_new(struct zcs_auth_tagger *t)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "ChaCha20", NULL);
	int ret = 0;

	t->mac = mac ? EVP_MAC_CTX_new(mac) : NULL;
	t->cipher = cipher ? EVP_CIPHER_CTX_new() : NULL;
	/* the contexts hold their own references */
	if (!t->mac || !t->cipher || EVP_EncryptInit_ex2(t->cipher, cipher, NULL, NULL, NULL) != 1)
		ret = -EIO;
	EVP_MAC_free(mac);
	EVP_CIPHER_free(cipher);
	return ret;
}

static void openssl_free(struct zcs_auth_tagger *t)
{
	EVP_MAC_CTX_free(t->mac);
	EVP_CIPHER_CTX_free(t->cipher);
}

/* Poly1305 of bytes | zeros to a multiple of 16 | le64(len) | le64(0) under otk.  A sealed
 * datagram's bytes end where its tag goes, and a full one needs no padding (1456 bytes at MTU
 * 1500 in every format): then the lengths are written there first and Poly1305 takes it all in
 * one update, one call of OpenSSL's NEON code and its layers instead of two (bench_auth_arm.sh). */
static void poly(struct zcs_auth_tagger *t, const uint8_t otk[OTK_BYTES], const uint8_t *bytes,
		 size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	const size_t pad = (16 - len % 16) % 16;
	const bool whole = pad == 0 && tag == bytes + len;
	uint8_t lens[16];
	uint8_t *const at = whole ? tag : lens;
	size_t out = 0;

	zcs_put_le64(at, len);
	zcs_put_le64(at + 8, 0);
	/* Cannot fail for a fetched Poly1305 with a 32-byte key and a 16-byte output; were it to,
	 * the tag is left zero, which no receiver accepts, rather than anything made up. */
	if (EVP_MAC_init(t->mac, otk, OTK_BYTES, NULL) != 1 ||
	    EVP_MAC_update(t->mac, bytes, whole ? len + sizeof(lens) : len) != 1 ||
	    (pad && EVP_MAC_update(t->mac, zeros, pad) != 1) ||
	    (!whole && EVP_MAC_update(t->mac, lens, sizeof(lens)) != 1) ||
	    EVP_MAC_final(t->mac, tag, &out, ZCS_AUTH_TAG_BYTES) != 1 || out != ZCS_AUTH_TAG_BYTES)
		memset(tag, 0, ZCS_AUTH_TAG_BYTES);
}

/* The nblocks keystream blocks from block on under the subkey of prefix, to out: OpenSSL's
 * ChaCha20, whose ARMv7 code takes NEON from 192 bytes on.  The IV is the state's words 12-15:
 * the 64-bit block counter, then the 64-bit nonce.  The context keeps the subkey between calls,
 * so a train costs one IV and one update.  Returns false if libcrypto failed. */
static bool keystream(struct zcs_auth_tagger *t, const uint8_t prefix[16], const uint8_t subkey[32],
		      uint64_t block, size_t nblocks, uint8_t *out)
{
	const bool rekey = !t->cipher_keyed || !same_prefix(t->cipher_prefix, prefix);
	const int bytes = (int)(nblocks * BLOCK_BYTES);
	uint8_t iv[16];
	int outl = 0;

	zcs_put_le64(iv, block);
	memcpy(iv + 8, ZCS_AUTH_OTK_NONCE, 8);
	t->cipher_keyed = false;
	if (EVP_EncryptInit_ex2(t->cipher, NULL, rekey ? subkey : NULL, iv, NULL) != 1 ||
	    EVP_EncryptUpdate(t->cipher, out, &outl, zeros, bytes) != 1 || outl != bytes)
		return false;
	memcpy(t->cipher_prefix, prefix, sizeof(t->cipher_prefix));
	t->cipher_keyed = true;
	return true;
}

const char *zcs_auth_poly1305_impl(void)
{
	return "openssl";
}
#else
static int openssl_new(struct zcs_auth_tagger *t)
{
	(void)t;
	return 0;
}

static void openssl_free(struct zcs_auth_tagger *t)
{
	(void)t;
}

static void poly(struct zcs_auth_tagger *t, const uint8_t otk[OTK_BYTES], const uint8_t *bytes,
		 size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	(void)t;
	poly_sodium(otk, bytes, len, tag);
}

/* As OpenSSL's above, libsodium's: its 64-bit counter is the ic argument. */
static bool keystream(struct zcs_auth_tagger *t, const uint8_t prefix[16], const uint8_t subkey[32],
		      uint64_t block, size_t nblocks, uint8_t *out)
{
	(void)t;
	(void)prefix;
	crypto_stream_chacha20_xor_ic(out, zeros, nblocks * BLOCK_BYTES,
				      (const unsigned char *)ZCS_AUTH_OTK_NONCE, block, subkey);
	return true;
}

const char *zcs_auth_poly1305_impl(void)
{
	return "libsodium";
}
#endif

int zcs_auth_tagger_init(struct zcs_auth_tagger *t, const uint8_t key[ZCS_KEY_BYTES], char *err,
			 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	if (sodium_init() < 0)
		return zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
	memcpy(t->key, key, sizeof(t->key));
	if (openssl_new(t) < 0) {
		zcs_auth_tagger_wipe(t);
		return zcs_err(err, errlen, -EIO, "libcrypto offers no Poly1305 or ChaCha20");
	}
	return 0;
}

void zcs_auth_tagger_wipe(struct zcs_auth_tagger *t)
{
	openssl_free(t);
	sodium_memzero(t, sizeof(*t));
}

/* The subkey of nonce's prefix: HChaCha20 once per run and type. */
static const uint8_t *subkey_of(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES])
{
	struct zcs_auth_subkey *const s = &t->sub[nonce[12] % ZCS_AUTH_TAGGER_SUBKEYS];

	if (!s->valid || !same_prefix(s->prefix, nonce)) {
		crypto_core_hchacha20(s->subkey, nonce, t->key, NULL);
		memcpy(s->prefix, nonce, sizeof(s->prefix));
		s->valid = true;
	}
	return s->subkey;
}

void zcs_auth_tagger_prepare(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			     size_t count)
{
	const uint64_t first = zcs_get_le64(nonce + 16);
	const uint8_t *subkey;
	uint64_t block;
	size_t nblocks, done = 0;

	t->otk_count = 0;
	if (count > ZCS_AUTH_TAGGER_OTKS)
		count = ZCS_AUTH_TAGGER_OTKS;
	if (count == 0)
		return;
	if (count - 1 > UINT64_MAX - first)
		count = (size_t)(UINT64_MAX - first) + 1;
	subkey = subkey_of(t, nonce);
	block = first >> 1;
	nblocks = (size_t)(((first + (count - 1)) >> 1) - block) + 1;
	while (done < nblocks) {
		/* each call within one span of 2^32 blocks, so neither library's carry from the
		 * counter's low word to its high one is relied on */
		const uint64_t room = 0x100000000ULL - ((block + done) & 0xffffffffULL);
		size_t n = nblocks - done;

		if (n > room)
			n = (size_t)room;
		if (!keystream(t, nonce, subkey, block + done, n, t->otks + done * BLOCK_BYTES))
			return; /* none prepared: each tag makes its own block */
		done += n;
	}
	memcpy(t->otk_prefix, nonce, sizeof(t->otk_prefix));
	t->otk_first = first;
	t->otk_skip = (size_t)(first & 1);
	t->otk_count = count;
}

/* A tag whose key was not prepared (metadata, the end of stream, a test): its block alone.  Kept
 * apart so the prepared path, every sample datagram's, has no block on its stack. */
static __attribute__((noinline)) void tag_unprepared(struct zcs_auth_tagger *t,
						     const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
						     uint64_t n, const uint8_t *bytes, size_t len,
						     uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	uint8_t block[BLOCK_BYTES];

	otk_block(subkey_of(t, nonce), n, block);
	poly(t, block + OTK_BYTES * (n & 1), bytes, len, tag);
	sodium_memzero(block, sizeof(block));
}

void zcs_auth_tagger_tag(struct zcs_auth_tagger *t, const uint8_t nonce[ZCS_AUTH_NONCE_BYTES],
			 const uint8_t *bytes, size_t len, uint8_t tag[ZCS_AUTH_TAG_BYTES])
{
	const uint64_t n = zcs_get_le64(nonce + 16);

	if (n - t->otk_first < t->otk_count && same_prefix(t->otk_prefix, nonce))
		poly(t, t->otks + OTK_BYTES * (t->otk_skip + (size_t)(n - t->otk_first)), bytes,
		     len, tag);
	else
		tag_unprepared(t, nonce, n, bytes, len, tag);
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
