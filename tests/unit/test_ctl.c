// SPDX-License-Identifier: MIT
/* Unit tests for the control channel's common code: the handshake (both keys must match, fresh
 * nonces defeat a replayed AUTH), sealed frames (numbered: replay, reorder, tamper all fail),
 * the frame accumulator's bounds, the JSON messages' round trip and refusals, name=value, and
 * the client against a small server made of the same pieces over loopback. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>

#include "bytes.h"
#include "ctl_client.h"
#include "ctl_msg.h"
#include "ctl_proto.h"
#include "net.h"
#include "proto.h"
#include "wire.h"

static struct zcs_key key_a, key_b;

static void keys(void)
{
	for (int i = 0; i < ZCS_KEY_BYTES; i++) {
		key_a.bytes[i] = (uint8_t)i;
		key_b.bytes[i] = (uint8_t)(i + 1);
	}
}

/* Runs the three messages between c and s; returns the first failure or 0. */
static int handshake(struct zcs_ctl_session *c, const struct zcs_key *kc,
		     struct zcs_ctl_session *s, const struct zcs_key *ks)
{
	uint8_t f[ZCS_CTL_MAX_FRAME];
	size_t n;
	int ret;

	ck_assert_int_eq(zcs_ctl_session_init(c, false), 0);
	ck_assert_int_eq(zcs_ctl_session_init(s, true), 0);
	n = zcs_ctl_hello_write(c, f);
	ck_assert_uint_eq(zcs_get_le16(f), n - 2);
	if ((ret = zcs_ctl_hello_check(s, f + 2, n - 2)) < 0)
		return ret;
	n = zcs_ctl_shello_write(s, ks, f);
	if ((ret = zcs_ctl_shello_check(c, kc, f + 2, n - 2)) < 0)
		return ret;
	n = zcs_ctl_auth_write(c, kc, f);
	return zcs_ctl_auth_check(s, ks, f + 2, n - 2);
}

START_TEST(test_handshake)
{
	struct zcs_ctl_session c, s;

	keys();
	ck_assert_int_eq(handshake(&c, &key_a, &s, &key_a), 0);
	ck_assert(c.ready && s.ready);
	ck_assert_mem_eq(c.tx_key, s.rx_key, 32);
	ck_assert_mem_eq(c.rx_key, s.tx_key, 32);
	ck_assert(memcmp(c.tx_key, c.rx_key, 32) != 0);
	/* a client with another key: the server's MAC does not check */
	ck_assert_int_eq(handshake(&c, &key_b, &s, &key_a), -ZCS_CTL_E_AUTH);
	ck_assert(!s.ready);
}
END_TEST

START_TEST(test_handshake_replay)
{
	struct zcs_ctl_session c, s, s2;
	uint8_t f[ZCS_CTL_MAX_FRAME], auth[ZCS_CTL_MAX_FRAME], hello[ZCS_CTL_MAX_FRAME];
	size_t n, na, nh;

	keys();
	/* record a good session's HELLO and AUTH */
	ck_assert_int_eq(zcs_ctl_session_init(&c, false), 0);
	ck_assert_int_eq(zcs_ctl_session_init(&s, true), 0);
	nh = zcs_ctl_hello_write(&c, hello);
	ck_assert_int_eq(zcs_ctl_hello_check(&s, hello + 2, nh - 2), 0);
	n = zcs_ctl_shello_write(&s, &key_a, f);
	ck_assert_int_eq(zcs_ctl_shello_check(&c, &key_a, f + 2, n - 2), 0);
	na = zcs_ctl_auth_write(&c, &key_a, auth);
	ck_assert_int_eq(zcs_ctl_auth_check(&s, &key_a, auth + 2, na - 2), 0);
	/* replayed to a new server session: its fresh nonce makes the old AUTH wrong */
	ck_assert_int_eq(zcs_ctl_session_init(&s2, true), 0);
	ck_assert_int_eq(zcs_ctl_hello_check(&s2, hello + 2, nh - 2), 0);
	(void)zcs_ctl_shello_write(&s2, &key_a, f);
	ck_assert_int_eq(zcs_ctl_auth_check(&s2, &key_a, auth + 2, na - 2), -ZCS_CTL_E_AUTH);
	ck_assert(!s2.ready);
}
END_TEST

START_TEST(test_handshake_garbage)
{
	struct zcs_ctl_session s;
	uint8_t b[ZCS_CTL_HELLO_SIZE] = { 'Z', 'C', ZCS_CTL_VERSION, ZCS_CTL_T_HELLO };

	ck_assert_int_eq(zcs_ctl_session_init(&s, true), 0);
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, sizeof(b)), 0);
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, sizeof(b) - 1), -ZCS_CTL_E_LENGTH);
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, 3), -ZCS_CTL_E_LENGTH);
	b[0] = 'X';
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, sizeof(b)), -ZCS_CTL_E_MAGIC);
	b[0] = 'Z';
	b[2] = 2;
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, sizeof(b)), -ZCS_CTL_E_VERSION);
	b[2] = ZCS_CTL_VERSION;
	b[3] = ZCS_CTL_T_AUTH;
	ck_assert_int_eq(zcs_ctl_hello_check(&s, b, sizeof(b)), -ZCS_CTL_E_TYPE);
	ck_assert_str_eq(zcs_ctl_err_name(-ZCS_CTL_E_SEAL), "seal");
}
END_TEST

START_TEST(test_seal)
{
	struct zcs_ctl_session c, s;
	uint8_t f1[ZCS_CTL_MAX_FRAME], f2[ZCS_CTL_MAX_FRAME], p[ZCS_CTL_MAX_PLAIN];
	static uint8_t big[ZCS_CTL_MAX_PLAIN + 1];
	ssize_t n1, n2;

	keys();
	ck_assert_int_eq(handshake(&c, &key_a, &s, &key_a), 0);
	n1 = zcs_ctl_seal(&c, (const uint8_t *)"one", 3, f1);
	n2 = zcs_ctl_seal(&c, (const uint8_t *)"two", 3, f2);
	ck_assert_int_eq(n1, 2 + 3 + ZCS_CTL_TAG_BYTES);
	/* out of order: frame 2 does not open as frame 1 */
	ck_assert_int_eq(zcs_ctl_open(&s, f2 + 2, (size_t)n2 - 2, p), -ZCS_CTL_E_SEAL);
	ck_assert_int_eq(zcs_ctl_open(&s, f1 + 2, (size_t)n1 - 2, p), 3);
	ck_assert_mem_eq(p, "one", 3);
	/* replayed */
	ck_assert_int_eq(zcs_ctl_open(&s, f1 + 2, (size_t)n1 - 2, p), -ZCS_CTL_E_SEAL);
	/* tampered */
	f2[5] ^= 1;
	ck_assert_int_eq(zcs_ctl_open(&s, f2 + 2, (size_t)n2 - 2, p), -ZCS_CTL_E_SEAL);
	f2[5] ^= 1;
	ck_assert_int_eq(zcs_ctl_open(&s, f2 + 2, (size_t)n2 - 2, p), 3);
	/* a frame of one direction never opens in the other */
	n1 = zcs_ctl_seal(&c, (const uint8_t *)"x", 1, f1);
	ck_assert_int_eq(zcs_ctl_open(&c, f1 + 2, (size_t)n1 - 2, p), -ZCS_CTL_E_SEAL);
	ck_assert_int_eq(zcs_ctl_open(&s, f1 + 2, ZCS_CTL_TAG_BYTES, p), -ZCS_CTL_E_LENGTH);
	ck_assert_int_eq(zcs_ctl_seal(&c, big, sizeof(big), f1), -EMSGSIZE);
	ck_assert_int_eq(zcs_ctl_seal(&c, big, 0, f1), -EMSGSIZE);
	ck_assert_int_eq(zcs_ctl_seal(&c, big, ZCS_CTL_MAX_PLAIN, f1), ZCS_CTL_MAX_FRAME);
}
END_TEST

START_TEST(test_rxbuf)
{
	static struct zcs_ctl_rxbuf rb;
	const uint8_t *body;
	size_t len;

	rb.used = 1;
	rb.buf[0] = 3;
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), 0);
	rb.buf[1] = 0;
	rb.used = 4;
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), 0);
	memcpy(rb.buf + 2, "abc\x01\x00z", 6);
	rb.used = 8;
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), 1);
	ck_assert_uint_eq(len, 3);
	ck_assert_mem_eq(body, "abc", 3);
	zcs_ctl_rxbuf_consume(&rb);
	ck_assert_uint_eq(rb.used, 3);
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), 1);
	ck_assert_uint_eq(len, 1);
	zcs_ctl_rxbuf_consume(&rb);
	ck_assert_uint_eq(rb.used, 0);
	zcs_put_le16(rb.buf, 0);
	rb.used = 2;
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), -ZCS_CTL_E_LENGTH);
	zcs_put_le16(rb.buf, ZCS_CTL_MAX_BODY + 1);
	ck_assert_int_eq(zcs_ctl_rxbuf_frame(&rb, &body, &len), -ZCS_CTL_E_LENGTH);
}
END_TEST

START_TEST(test_msg_request)
{
	struct zcs_ctl_request r = { .id = 7, .op = ZCS_CTL_OP_SET }, back;
	char text[ZCS_CTL_MAX_PLAIN], err[256];
	static const char *const bad[] = {
		"", "[]", "{\"op\":\"get\"}", "{\"id\":1}", "{\"id\":-1,\"op\":\"get\"}",
		"{\"id\":1,\"op\":\"reboot\"}", "{\"id\":1,\"op\":\"set\"}",
		"{\"id\":1,\"op\":\"set\",\"set\":{}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"frq\":1}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"freq\":-5}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"freq\":\"1M\"}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"gain\":1e308}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"channel\":\"rx3\"}}",
		"{\"id\":1,\"op\":\"set\",\"set\":{\"gain_mode\":7}}",
		"{\"id\":1,\"op\":\"get\",\"x\":1}",
		"{\"id\":1,\"id\":2,\"op\":\"get\"}",
		"{\"id\":1,\"op\":\"get\"} trailing",
	};
	ssize_t n;

	r.set.have = ZCS_CTL_ALL;
	r.set.freq = 5900000000ULL; /* above 2^32 */
	r.set.rate = 2400000;
	r.set.bw = 1500000;
	r.set.gain_mdb = -2500;
	r.set.gain_mode = ZCS_GAIN_FAST;
	r.set.channel = 1;
	r.set.format = ZCS_WIRE_I8;
	n = zcs_ctl_msg_write_request(&r, text, sizeof(text));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(zcs_ctl_msg_parse_request((const uint8_t *)text, (size_t)n, &back, err,
						   sizeof(err)), 0);
	ck_assert_uint_eq(back.id, 7);
	ck_assert_int_eq(back.op, ZCS_CTL_OP_SET);
	ck_assert_uint_eq(back.set.have, ZCS_CTL_ALL);
	ck_assert_uint_eq(back.set.freq, r.set.freq);
	ck_assert_uint_eq(back.set.rate, r.set.rate);
	ck_assert_uint_eq(back.set.bw, r.set.bw);
	ck_assert_int_eq(back.set.gain_mdb, r.set.gain_mdb);
	ck_assert_int_eq(back.set.gain_mode, r.set.gain_mode);
	ck_assert_int_eq(back.set.channel, r.set.channel);
	ck_assert_int_eq(back.set.format, r.set.format);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(zcs_ctl_msg_parse_request((const uint8_t *)bad[i], strlen(bad[i]), &back,
							err, sizeof(err)) == -EINVAL, "%s", bad[i]);
		ck_assert_msg(err[0], "no reason for %s", bad[i]);
	}
	ck_assert_int_eq(zcs_ctl_msg_write_request(&r, text, 10), -EMSGSIZE);
}
END_TEST

START_TEST(test_msg_reply)
{
	struct zcs_ctl_reply r = { .id = 3, .ok = false, .changed = ZCS_CTL_FREQ | ZCS_CTL_GAIN,
				   .has_since = true, .since_sample = 123456789012ULL,
				   .has_caps = true, .has_stream = true }, back;
	char text[ZCS_CTL_MAX_PLAIN], err[256];
	ssize_t n;

	snprintf(r.error, sizeof(r.error), "rate 1000 below 521000");
	snprintf(r.field, sizeof(r.field), "rate");
	r.now.have = ZCS_CTL_ALL;
	r.now.freq = 433920000;
	r.now.rate = 2000000;
	r.now.bw = 200000;
	r.now.gain_mdb = 40000;
	r.now.gain_mode = ZCS_GAIN_MANUAL;
	r.now.channel = 0;
	r.now.format = ZCS_WIRE_P12;
	r.caps = (struct zcs_ctl_caps){ .freq_min = 70000000, .freq_max = 6000000000ULL,
					.rate_min = 521000, .rate_max = 61440000, .bw_min = 200000,
					.bw_max = 56000000, .gain_min_mdb = -3000,
					.gain_max_mdb = 71000, .gain_modes = 0x0f, .channels = 3,
					.formats = 0x0e, .settable = ZCS_CTL_FREQ | ZCS_CTL_GAIN };
	r.stream = (struct zcs_ctl_stream){ .id = 0xdeadbeef, .format = ZCS_WIRE_P12,
					    .rate = 2000000, .source = "iio", .run = 1234 };
	n = zcs_ctl_msg_write_reply(&r, text, sizeof(text));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(zcs_ctl_msg_parse_reply((const uint8_t *)text, (size_t)n, &back, err,
						 sizeof(err)), 0);
	ck_assert(!back.event && !back.ok && back.id == 3);
	ck_assert_str_eq(back.error, r.error);
	ck_assert_str_eq(back.field, "rate");
	ck_assert_uint_eq(back.now.have, ZCS_CTL_ALL);
	ck_assert_uint_eq(back.now.freq, r.now.freq);
	ck_assert_uint_eq(back.now.rate, r.now.rate);
	ck_assert_uint_eq(back.now.bw, r.now.bw);
	ck_assert_int_eq(back.now.gain_mdb, r.now.gain_mdb);
	ck_assert_int_eq(back.now.gain_mode, r.now.gain_mode);
	ck_assert_int_eq(back.now.channel, r.now.channel);
	ck_assert_int_eq(back.now.format, r.now.format);
	ck_assert_uint_eq(back.changed, r.changed);
	ck_assert(back.has_since && back.since_sample == r.since_sample);
	ck_assert(back.has_caps && back.has_stream);
	ck_assert_uint_eq(back.caps.freq_max, r.caps.freq_max);
	ck_assert_uint_eq(back.caps.rate_min, r.caps.rate_min);
	ck_assert_uint_eq(back.caps.bw_max, r.caps.bw_max);
	ck_assert_int_eq(back.caps.gain_min_mdb, -3000);
	ck_assert_int_eq(back.caps.gain_max_mdb, 71000);
	ck_assert_uint_eq(back.caps.gain_modes, 0x0f);
	ck_assert_uint_eq(back.caps.channels, 3);
	ck_assert_uint_eq(back.caps.formats, 0x0e);
	ck_assert_uint_eq(back.caps.settable, r.caps.settable);
	ck_assert_uint_eq(back.stream.id, 0xdeadbeef);
	ck_assert_uint_eq(back.stream.rate, 2000000);
	ck_assert_int_eq(back.stream.format, ZCS_WIRE_P12);
	ck_assert_str_eq(back.stream.source, "iio");
	ck_assert_uint_eq(back.stream.run, 1234);
	/* a server of revision 4 says no run: 0; a run that is not a whole number is refused */
	{
		static const char old[] = "{\"id\":3,\"ok\":true,\"settings\":{},\"changed\":[],"
			"\"stream\":{\"id\":1,\"format\":\"p12\",\"rate\":2,\"source\":\"iio\"}}";
		static const char bad[] = "{\"id\":3,\"ok\":true,\"settings\":{},\"changed\":[],"
			"\"stream\":{\"id\":1,\"format\":\"p12\",\"rate\":2,\"source\":\"iio\","
			"\"run\":-1}}";

		ck_assert_int_eq(zcs_ctl_msg_parse_reply((const uint8_t *)old, strlen(old), &back,
							 err, sizeof(err)), 0);
		ck_assert_uint_eq(back.stream.run, 0);
		ck_assert_int_eq(zcs_ctl_msg_parse_reply((const uint8_t *)bad, strlen(bad), &back,
							 err, sizeof(err)), -EINVAL);
	}
	/* an event */
	memset(&r, 0, sizeof(r));
	r.event = true;
	r.ok = true;
	r.now.have = ZCS_CTL_FREQ;
	r.now.freq = 868000000;
	r.changed = ZCS_CTL_FREQ;
	n = zcs_ctl_msg_write_reply(&r, text, sizeof(text));
	ck_assert_int_eq(zcs_ctl_msg_parse_reply((const uint8_t *)text, (size_t)n, &back, err,
						 sizeof(err)), 0);
	ck_assert(back.event);
	ck_assert_uint_eq(back.now.freq, 868000000);
	ck_assert_int_eq(zcs_ctl_msg_parse_reply((const uint8_t *)"{\"id\":1}", 8, &back, err,
						 sizeof(err)), -EINVAL);
	/* unknown keys of a later server are ignored */
	ck_assert_int_eq(zcs_ctl_msg_parse_reply(
		(const uint8_t *)"{\"id\":1,\"ok\":true,\"new\":[1],\"settings\":{\"x\":1}}", 47,
		&back, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_kv)
{
	struct zcs_ctl_settings s = { 0 };
	char err[256];

	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "freq=433.92M", err, sizeof(err)), 0);
	ck_assert_uint_eq(s.freq, 433920000);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "gain=40.5", err, sizeof(err)), 0);
	ck_assert_int_eq(s.gain_mdb, 40500);
	ck_assert_uint_eq(s.have, ZCS_CTL_FREQ | ZCS_CTL_GAIN | ZCS_CTL_GAIN_MODE);
	ck_assert_int_eq(s.gain_mode, ZCS_GAIN_MANUAL);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "gain_mode=hybrid", err, sizeof(err)), 0);
	ck_assert_int_eq(s.gain_mode, ZCS_GAIN_HYBRID);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "channel=rx2", err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "format=i16", err, sizeof(err)), 0);
	ck_assert_int_eq(s.format, ZCS_WIRE_I16);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "rate=2.4M", err, sizeof(err)), 0);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "bw=1.5M", err, sizeof(err)), 0);
	ck_assert_uint_eq(s.have, ZCS_CTL_ALL);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "freq", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "freq=abc", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "volume=11", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(zcs_ctl_settings_parse_kv(&s, "channel=rx9", err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(zcs_ctl_field_name(ZCS_CTL_BW), "bw");
}
END_TEST

/* A one-connection server made of the protocol pieces: answers each request with ok and the
 * request's settings, after sending one event. */
struct mini {
	int lfd;
	const struct zcs_key *key;
	int close_at_hello;     /* connections closed after their HELLO (a flood's eviction) */
	int close_at_auth;      /* then connections closed after their AUTH, unanswered */
	bool refuse;            /* then one answered with an id-0 refusal and closed */
};

static void write_frame(int fd, const uint8_t *f, size_t n)
{
	ck_assert_int_eq(send(fd, f, n, MSG_NOSIGNAL), (ssize_t)n);
}

static int read_frame(int fd, struct zcs_ctl_rxbuf *rb, const uint8_t **body, size_t *len)
{
	for (;;) {
		const int r = zcs_ctl_rxbuf_frame(rb, body, len);
		ssize_t got;

		if (r)
			return r;
		got = zcs_ctl_rxbuf_read(rb, fd);
		if (got <= 0 && got != -EAGAIN)
			return -1;
	}
}

static int mini_accept(const struct mini *m)
{
	int fd;

	while ((fd = accept(m->lfd, NULL, NULL)) < 0)
		usleep(1000); /* the listener is non-blocking */
	return fd;
}

/* Serves connections as m says, the last one in full until the client leaves. */
static void *mini_main(void *arg)
{
	struct mini *m = arg;
	static struct zcs_ctl_rxbuf rb;
	static uint8_t f[ZCS_CTL_MAX_FRAME], plain[ZCS_CTL_MAX_PLAIN];
	struct zcs_ctl_session s;
	const uint8_t *body;
	char text[ZCS_CTL_MAX_PLAIN], err[256];
	size_t len;
	int fd;

again:
	fd = mini_accept(m);
	rb.used = 0;
	ck_assert_int_eq(zcs_ctl_session_init(&s, true), 0);
	if (read_frame(fd, &rb, &body, &len) != 1 || zcs_ctl_hello_check(&s, body, len) < 0)
		goto out;
	zcs_ctl_rxbuf_consume(&rb);
	if (m->close_at_hello > 0) {
		m->close_at_hello--;
		close(fd);
		goto again;
	}
	write_frame(fd, f, zcs_ctl_shello_write(&s, m->key, f));
	if (read_frame(fd, &rb, &body, &len) != 1 || zcs_ctl_auth_check(&s, m->key, body, len) < 0)
		goto out;
	zcs_ctl_rxbuf_consume(&rb);
	if (m->close_at_auth > 0) {
		m->close_at_auth--;
		close(fd);
		goto again;
	}
	if (m->refuse) {
		struct zcs_ctl_reply rp = { .ok = false };
		ssize_t n;

		snprintf(rp.error, sizeof(rp.error), "every one of the 1 control sessions is held");
		n = zcs_ctl_msg_write_reply(&rp, text, sizeof(text));
		write_frame(fd, f, (size_t)zcs_ctl_seal(&s, (const uint8_t *)text, (size_t)n, f));
		goto out;
	}
	while (read_frame(fd, &rb, &body, &len) == 1) {
		struct zcs_ctl_request rq;
		struct zcs_ctl_reply rp = { .ok = true };
		ssize_t n = zcs_ctl_open(&s, body, len, plain);

		zcs_ctl_rxbuf_consume(&rb);
		if (n < 0 || zcs_ctl_msg_parse_request(plain, (size_t)n, &rq, err, sizeof(err)) < 0)
			break;
		rp.event = true;
		rp.now.have = ZCS_CTL_FREQ;
		rp.now.freq = 1;
		n = zcs_ctl_msg_write_reply(&rp, text, sizeof(text));
		write_frame(fd, f, (size_t)zcs_ctl_seal(&s, (const uint8_t *)text, (size_t)n, f));
		rp.event = false;
		rp.id = rq.id;
		rp.now = rq.set;
		rp.changed = rq.set.have;
		n = zcs_ctl_msg_write_reply(&rp, text, sizeof(text));
		write_frame(fd, f, (size_t)zcs_ctl_seal(&s, (const uint8_t *)text, (size_t)n, f));
	}
out:
	close(fd);
	return NULL;
}

static int listen_any(int *port)
{
	struct zcs_addr a;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	char err[256];
	int fd;

	ck_assert_int_eq(zcs_net_parse_addr(&a, "127.0.0.1", 0, err, sizeof(err)), 0);
	fd = zcs_net_tcp_listen(&a, 4, err, sizeof(err));
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* "[HOST:]PORT" of zcs-recv --control and the liveness check, and the sender's host with the
 * control channel's port when no HOST was given. */
START_TEST(test_addr_split)
{
	char host[256], port[8], err[256], to[300];
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(5391) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(5391) };
	const struct sockaddr none = { .sa_family = AF_UNSPEC };

	ck_assert_int_eq(zcs_ctl_addr_split("5392", host, sizeof(host), port, sizeof(port),
					    "--control", err, sizeof(err)), 0);
	ck_assert_str_eq(host, "");
	ck_assert_str_eq(port, "5392");
	ck_assert_int_eq(zcs_ctl_addr_split("198.18.0.1:7", host, sizeof(host), port, sizeof(port),
					    "--control", err, sizeof(err)), 0);
	ck_assert_str_eq(host, "198.18.0.1");
	ck_assert_str_eq(port, "7");
	ck_assert_int_eq(zcs_ctl_addr_split("[fd00::1]:5392", host, sizeof(host), port,
					    sizeof(port), "--control", err, sizeof(err)), 0);
	ck_assert_str_eq(host, "[fd00::1]");
	{
		const char *bad[] = { "", "host:", "host:0", "host:65536", "h:5392y", "[fd00::1:5392" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			ck_assert_int_eq(zcs_ctl_addr_split(bad[i], host, sizeof(host), port,
							    sizeof(port), "--control", err,
							    sizeof(err)), -EINVAL);
			ck_assert_ptr_nonnull(strstr(err, "--control"));
		}
	}
	a4.sin_addr.s_addr = htonl(0xc6120001);
	ck_assert(zcs_ctl_addr_at((const struct sockaddr *)&a4, "5392", to, sizeof(to)));
	ck_assert_str_eq(to, "198.18.0.1:5392");
	a6.sin6_addr.s6_addr[0] = 0xfd;
	a6.sin6_addr.s6_addr[15] = 1;
	ck_assert(zcs_ctl_addr_at((const struct sockaddr *)&a6, "5392", to, sizeof(to)));
	ck_assert_str_eq(to, "[fd00::1]:5392");
	ck_assert(!zcs_ctl_addr_at(&none, "5392", to, sizeof(to)));
	ck_assert_str_eq(to, "");
}
END_TEST

START_TEST(test_client)
{
	struct mini m = { .key = &key_a };
	struct zcs_ctl_client *c;
	struct zcs_ctl_settings want = { .have = ZCS_CTL_FREQ, .freq = 915000000 };
	struct zcs_ctl_reply r;
	pthread_t th;
	char addr[64], err[256];
	int port;

	keys();
	m.lfd = listen_any(&port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_msg(zcs_ctl_client_open(&c, addr, &key_a, 10000, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_int_eq(zcs_ctl_client_set(c, &want, &r, 10000, err, sizeof(err)), 0);
	ck_assert(r.ok && !r.event);
	ck_assert_uint_eq(r.now.freq, 915000000);
	ck_assert_uint_eq(r.changed, ZCS_CTL_FREQ);
	zcs_ctl_client_close(c);
	pthread_join(th, NULL);

	/* a wrong key: the client sees that the server cannot prove ours */
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_int_eq(zcs_ctl_client_open(&c, addr, &key_b, 10000, err, sizeof(err)), -EACCES);
	pthread_join(th, NULL);
	close(m.lfd);
	/* nobody listening */
	ck_assert_int_eq(zcs_ctl_client_open(&c, addr, &key_a, 10000, err, sizeof(err)),
			 -ECONNREFUSED);
}
END_TEST

/* A server that closes handshakes (as zcs-send's does to the busiest sources under a flood) is
 * tried again, a bounded number of times, and a request whose connection closed before the
 * answer too; a refusal with the server's reason is not tried again. */
START_TEST(test_client_retry)
{
	struct mini m = { .key = &key_a, .close_at_hello = ZCS_CTL_CLIENT_ATTEMPTS - 1 };
	struct zcs_ctl_client *c;
	struct zcs_ctl_reply r;
	pthread_t th;
	char addr[64], err[256];
	int port;

	keys();
	for (unsigned a = 1; a < 8; a++) {
		const unsigned base = ZCS_CTL_CLIENT_BACKOFF_MS << (a - 1), ms =
			zcs_ctl_client_backoff_ms(a);

		ck_assert_msg(ms >= base - base / 4 && ms <= base + base / 4, "%u: %u", a, ms);
	}
	ck_assert(zcs_ctl_client_retryable(-ECONNRESET) && zcs_ctl_client_retryable(-EPIPE));
	ck_assert(!zcs_ctl_client_retryable(-EACCES) && !zcs_ctl_client_retryable(-ETIMEDOUT) &&
		  !zcs_ctl_client_retryable(-ECONNREFUSED) && !zcs_ctl_client_retryable(-EBUSY));
	m.lfd = listen_any(&port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);

	/* four closed, the fifth attempt served */
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_msg(zcs_ctl_client_open(&c, addr, &key_a, 20000, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_int_eq(zcs_ctl_client_get(c, &r, 10000, err, sizeof(err)), 0);
	ck_assert(r.ok);
	zcs_ctl_client_close(c);
	pthread_join(th, NULL);

	/* every attempt closed: the last error, and how many were made */
	m.close_at_hello = ZCS_CTL_CLIENT_ATTEMPTS;
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_int_eq(zcs_ctl_client_open(&c, addr, &key_a, 20000, err, sizeof(err)),
			 -ECONNRESET);
	ck_assert_msg(strstr(err, "(5 attempts)") != NULL, "%s", err);
	/* the server's thread has one more to serve: a client that leaves at once */
	ck_assert_int_eq(zcs_ctl_client_open(&c, addr, &key_a, 20000, err, sizeof(err)), 0);
	zcs_ctl_client_close(c);
	pthread_join(th, NULL);

	/* a request's connection closed before the answer, twice: the third one answers */
	m.close_at_auth = 2;
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_msg(zcs_ctl_client_request(addr, &key_a, NULL, &r, 20000, err, sizeof(err)) == 0,
		      "%s", err);
	ck_assert(r.ok);
	pthread_join(th, NULL);

	/* every session held: said, and not tried again */
	m.refuse = true;
	ck_assert_int_eq(pthread_create(&th, NULL, mini_main, &m), 0);
	ck_assert_int_eq(zcs_ctl_client_request(addr, &key_a, NULL, &r, 20000, err, sizeof(err)),
			 -EBUSY);
	ck_assert_msg(strstr(err, "sessions is held") != NULL, "%s", err);
	pthread_join(th, NULL);
	close(m.lfd);
}
END_TEST

static Suite *ctl_suite(void)
{
	Suite *s = suite_create("ctl");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_handshake);
	tcase_add_test(tc, test_handshake_replay);
	tcase_add_test(tc, test_handshake_garbage);
	tcase_add_test(tc, test_seal);
	tcase_add_test(tc, test_rxbuf);
	tcase_add_test(tc, test_msg_request);
	tcase_add_test(tc, test_msg_reply);
	tcase_add_test(tc, test_kv);
	tcase_add_test(tc, test_addr_split);
	tcase_add_test(tc, test_client);
	tcase_add_test(tc, test_client_retry);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ctl_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
