// SPDX-License-Identifier: MIT
/* libFuzzer target for the control channel's parsers (common/ctl/ctl_proto.c, common/ctl/ctl_msg.c),
 * everything a peer's bytes reach: the frame accumulator and the handshake checks of a server
 * session fed the input as a byte stream (never ready without the key), the request and reply
 * JSON parsers (0 or -EINVAL with a reason; a parsed request round-trips through the writer),
 * and a sealed frame of the input (opens to the same bytes once, never again, never tampered).
 * Run: CC=clang meson setup -Dfuzz=true b && ninja -C b tests/fuzz/fuzz_ctl &&
 *      b/tests/fuzz/fuzz_ctl -runs=200000 tests/fuzz/corpus_ctl */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_msg.h"
#include "ctl_proto.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct zcs_key fuzz_key = { .bytes = { 1, 2, 3, 4, 5, 6, 7, 8 } };

/* The input as a peer's byte stream into a server session, in chunks of its first byte's size. */
static void as_stream(const uint8_t *data, size_t size)
{
	static struct zcs_ctl_rxbuf rb;
	static uint8_t out[ZCS_CTL_MAX_FRAME];
	struct zcs_ctl_session s;
	const size_t chunk = size ? (size_t)data[0] % 64 + 1 : 1;
	int stage = 0;

	CHECK(zcs_ctl_session_init(&s, true) == 0);
	rb.used = 0;
	for (size_t off = 0; off < size;) {
		size_t n = size - off < chunk ? size - off : chunk;
		const uint8_t *body;
		size_t len;
		int r;

		if (n > sizeof(rb.buf) - rb.used)
			n = sizeof(rb.buf) - rb.used;
		memcpy(rb.buf + rb.used, data + off, n);
		rb.used += n;
		off += n;
		while ((r = zcs_ctl_rxbuf_frame(&rb, &body, &len)) == 1) {
			CHECK(len >= 1 && len <= ZCS_CTL_MAX_BODY);
			CHECK(body + len <= rb.buf + rb.used);
			if (stage == 0) {
				r = zcs_ctl_hello_check(&s, body, len);
				CHECK(r == 0 || (r < 0 && r > -ZCS_CTL_E_COUNT));
				if (r == 0) {
					CHECK(zcs_ctl_shello_write(&s, &fuzz_key, out) ==
					      2 + ZCS_CTL_SHELLO_SIZE);
					stage = 1;
				}
			} else {
				/* nobody without the key passes: a 256-bit MAC is not found by search */
				r = zcs_ctl_auth_check(&s, &fuzz_key, body, len);
				CHECK(r < 0 && !s.ready);
				return;
			}
			zcs_ctl_rxbuf_consume(&rb);
		}
		if (r < 0)
			return;
		if (rb.used == sizeof(rb.buf))
			return;
	}
}

static void as_messages(const uint8_t *data, size_t size)
{
	struct zcs_ctl_request rq, back;
	struct zcs_ctl_reply rp, rback;
	char err[256] = "", text[ZCS_CTL_MAX_PLAIN];
	int r;

	r = zcs_ctl_msg_parse_request(data, size, &rq, err, sizeof(err));
	CHECK(r == 0 || (r == -EINVAL && err[0]));
	if (r == 0) {
		const ssize_t n = zcs_ctl_msg_write_request(&rq, text, sizeof(text));

		CHECK(n > 0);
		CHECK(zcs_ctl_msg_parse_request((const uint8_t *)text, (size_t)n, &back, err,
						sizeof(err)) == 0);
		CHECK(back.id == rq.id && back.op == rq.op && back.set.have == rq.set.have);
		CHECK(back.set.freq == rq.set.freq && back.set.rate == rq.set.rate);
	}
	err[0] = '\0';
	r = zcs_ctl_msg_parse_reply(data, size, &rp, err, sizeof(err));
	CHECK(r == 0 || (r == -EINVAL && err[0]));
	if (r == 0) {
		const ssize_t n = zcs_ctl_msg_write_reply(&rp, text, sizeof(text));

		CHECK(n > 0);
		CHECK(zcs_ctl_msg_parse_reply((const uint8_t *)text, (size_t)n, &rback, err,
					      sizeof(err)) == 0);
		CHECK(rback.event == rp.event && rback.ok == rp.ok && rback.changed == rp.changed);
	}
}

static void as_sealed(const uint8_t *data, size_t size)
{
	static uint8_t f[ZCS_CTL_MAX_FRAME], hs[ZCS_CTL_MAX_FRAME], plain[ZCS_CTL_MAX_PLAIN];
	struct zcs_ctl_session c, s;
	size_t n;
	ssize_t fl;

	if (size == 0 || size > ZCS_CTL_MAX_PLAIN)
		return;
	CHECK(zcs_ctl_session_init(&c, false) == 0 && zcs_ctl_session_init(&s, true) == 0);
	n = zcs_ctl_hello_write(&c, hs);
	CHECK(zcs_ctl_hello_check(&s, hs + 2, n - 2) == 0);
	n = zcs_ctl_shello_write(&s, &fuzz_key, hs);
	CHECK(zcs_ctl_shello_check(&c, &fuzz_key, hs + 2, n - 2) == 0);
	n = zcs_ctl_auth_write(&c, &fuzz_key, hs);
	CHECK(zcs_ctl_auth_check(&s, &fuzz_key, hs + 2, n - 2) == 0);
	fl = zcs_ctl_seal(&c, data, size, f);
	CHECK(fl == (ssize_t)(2 + size + ZCS_CTL_TAG_BYTES));
	f[2 + data[0] % (size + ZCS_CTL_TAG_BYTES)] ^= 0x40;
	CHECK(zcs_ctl_open(&s, f + 2, (size_t)fl - 2, plain) == -ZCS_CTL_E_SEAL);
	f[2 + data[0] % (size + ZCS_CTL_TAG_BYTES)] ^= 0x40;
	CHECK(zcs_ctl_open(&s, f + 2, (size_t)fl - 2, plain) == (ssize_t)size);
	CHECK(memcmp(plain, data, size) == 0);
	CHECK(zcs_ctl_open(&s, f + 2, (size_t)fl - 2, plain) == -ZCS_CTL_E_SEAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes on the heap, so ASan sees a read one past the end */
	uint8_t *copy = malloc(size ? size : 1);

	CHECK(copy);
	memcpy(copy, data, size);
	as_stream(copy, size);
	as_messages(copy, size);
	as_sealed(copy, size);
	free(copy);
	return 0;
}
