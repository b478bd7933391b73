// SPDX-License-Identifier: MIT
/* Writes the seed corpus of fuzz_parse into a directory: valid datagrams of each kind and a few
 * invalid ones.  The seeds are committed in tests/fuzz/corpus_parse/; rerun this after a protocol
 * change:  build/tests/fuzz/gen_corpus_parse tests/fuzz/corpus_parse */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "proto.h"

#define HDR ZCS_PROTO_SAMPLE_HDR_SIZE

static int put(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fwrite(buf, 1, len, f) == len;
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -1;
}

/* n pairs of a tone in the given wire format, as a sender's kernels would produce them */
static size_t tone(uint8_t *p, int format, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const double ph = 2.0 * M_PI * (double)k / 16.0;
		const int iv = (int)lrint(1800.0 * cos(ph)), qv = (int)lrint(1800.0 * sin(ph));

		switch (format) {
		case ZCS_WIRE_I8:
			p[2 * k] = (uint8_t)(iv >> 4);
			p[2 * k + 1] = (uint8_t)(qv >> 4);
			break;
		case ZCS_WIRE_P12:
			p[3 * k] = (uint8_t)iv;
			p[3 * k + 1] = (uint8_t)(((qv & 0xf) << 4) | ((iv >> 8) & 0xf));
			p[3 * k + 2] = (uint8_t)(qv >> 4);
			break;
		default:
			p[4 * k] = (uint8_t)iv;
			p[4 * k + 1] = (uint8_t)(iv >> 8);
			p[4 * k + 2] = (uint8_t)qv;
			p[4 * k + 3] = (uint8_t)(qv >> 8);
			break;
		}
	}
	return n * zcs_wire_pair_bytes(format);
}

static size_t samples(uint8_t *buf, int format, uint16_t n, uint8_t flags)
{
	const struct zcs_sample_hdr h = {
		.stream_id = 0x5eed0001, .seq = 41, .first_sample = 41u * n, .samples = n,
		.payload_len = (uint16_t)(n * zcs_wire_pair_bytes(format)),
		.format = (uint8_t)format, .flags = flags,
	};

	zcs_proto_write_sample_hdr(buf, &h);
	return HDR + tone(buf + HDR, format, n);
}

int main(int argc, char **argv)
{
	static const struct zcs_meta meta = {
		.stream_id = 0x5eed0001, .meta_version = 1, .next_seq = 42, .ref_sample = 0,
		.ref_time_ns = 1700000000000000000ull, .sample_rate = 2000000, .center_freq = 433920000,
		.bandwidth = 1500000, .gain_mdb = 40000, .gain_mode = ZCS_GAIN_MANUAL, .channel = 0,
		.format = ZCS_WIRE_P12, .flags = ZCS_META_FLAG_ZSTD, .samples_per_dgram = 480,
		.sender = "pluto", .version = "0.1.0", .source = "tone",
	};
	static uint8_t buf[4096], raw[4096];
	const char *dir;
	struct zcs_codec *c;
	int err = 0;
	size_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	err |= put(dir, "ok_i8", buf, samples(buf, ZCS_WIRE_I8, 24, 0));
	err |= put(dir, "ok_p12", buf, samples(buf, ZCS_WIRE_P12, 16, 0));
	err |= put(dir, "ok_i16", buf, samples(buf, ZCS_WIRE_I16, 12, ZCS_FLAG_DISCONT));
	err |= put(dir, "ok_i16_full_v4", buf, samples(buf, ZCS_WIRE_I16, 360, 0));
	err |= put(dir, "ok_eos_last", buf, samples(buf, ZCS_WIRE_P12, 5, ZCS_FLAG_EOS));
	err |= put(dir, "ok_eos_empty", buf, samples(buf, ZCS_WIRE_I8, 0, ZCS_FLAG_EOS));
	len = zcs_proto_write_meta(buf, &meta);
	err |= put(dir, "ok_meta", buf, len);

	if (zcs_codec_create(&c, 3, ZCS_CODEC_ENCODE) == 0) {
		const size_t rawlen = tone(raw, ZCS_WIRE_P12, 480);
		const ssize_t n = zcs_codec_compress(c, buf + HDR, sizeof(buf) - HDR, raw, rawlen);
		const struct zcs_sample_hdr h = {
			.stream_id = 0x5eed0001, .seq = 42, .first_sample = 41u * 480, .samples = 480,
			.payload_len = (uint16_t)n, .format = ZCS_WIRE_P12, .flags = ZCS_FLAG_ZSTD,
		};

		zcs_codec_destroy(c);
		if (n <= 0) {
			fprintf(stderr, "tone did not compress\n");
			return 1;
		}
		zcs_proto_write_sample_hdr(buf, &h);
		err |= put(dir, "ok_zstd_p12", buf, HDR + (size_t)n);
		/* the same frame claiming one pair too many: parses, then fails to decode to size */
		buf[26]++;
		err |= put(dir, "bad_zstd_size", buf, HDR + (size_t)n);
	}

	len = samples(buf, ZCS_WIRE_P12, 16, 0);
	buf[0] = 'X';
	err |= put(dir, "bad_magic", buf, len);
	buf[0] = 'Z';
	buf[2] = 2;
	err |= put(dir, "bad_version", buf, len);
	buf[2] = 1;
	err |= put(dir, "bad_truncated", buf, HDR - 1);
	err |= put(dir, "bad_length", buf, len - 1);
	buf[25] = 0x10;
	err |= put(dir, "bad_reserved_flag", buf, len);
	len = zcs_proto_write_meta(buf, &meta);
	memset(buf + 72, 'x', 32);
	err |= put(dir, "bad_meta_string", buf, len);
	return err ? 1 : 0;
}
