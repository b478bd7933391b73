// SPDX-License-Identifier: MIT
/* libFuzzer target for zcs_proto_parse(): any bytes are parsed without a crash or an overread;
 * an accepted datagram is self-consistent and re-encodes to exactly its input; a ZSTD payload
 * decodes into a bounded buffer or fails cleanly; an accepted raw payload round-trips zstd.
 *
 * Run (what CI runs; the replay test `meson test --suite fuzz` needs none of this):
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_parse
 *   mkdir -p build-fuzz/corpus_parse
 *   build-fuzz/tests/fuzz/fuzz_parse -runs=200000 -max_len=2048 -seed=1 \
 *       build-fuzz/corpus_parse tests/fuzz/corpus_parse
 * (new inputs go to the first, writable directory; the committed seeds stay untouched) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "codec.h"
#include "proto.h"

#define FUZZ_CHECK(cond)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                              \
		}                                                                             \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One codec for the whole run, as a receiver has: it also proves that no frame depends on the
 * state an earlier input left behind.  NULL when built without zstd. */
static struct zcs_codec *codec;
static int codec_tried;

static struct zcs_codec *get_codec(void)
{
	if (!codec_tried) {
		codec_tried = 1;
		if (zcs_codec_create(&codec, 1, ZCS_CODEC_ENCODE | ZCS_CODEC_DECODE) < 0)
			codec = NULL;
	}
	return codec;
}

static void check_zstd_payload(const struct zcs_sample_hdr *h, const uint8_t *payload)
{
	struct zcs_codec *const c = get_codec();
	const size_t want = zcs_proto_sample_bytes(h);
	uint8_t *out;
	ssize_t n;

	if (!c)
		return;
	/* exactly the announced size, on the heap, so a write past it is an ASan report */
	out = malloc(want);
	FUZZ_CHECK(out);
	n = zcs_codec_decompress(c, out, want, payload, h->payload_len);
	FUZZ_CHECK(n < 0 || (size_t)n <= want);
	free(out);
}

static void check_raw_payload(const struct zcs_sample_hdr *h, const uint8_t *payload)
{
	struct zcs_codec *const c = get_codec();
	uint8_t *frame, *back;
	ssize_t n;

	if (!c || h->payload_len == 0)
		return;
	frame = malloc(h->payload_len);
	back = malloc(h->payload_len);
	FUZZ_CHECK(frame && back);
	n = zcs_codec_compress(c, frame, h->payload_len, payload, h->payload_len);
	FUZZ_CHECK(n >= 0 && n < h->payload_len);
	if (n > 0) {
		FUZZ_CHECK(zcs_codec_decompress(c, back, h->payload_len, frame, (size_t)n) ==
			   h->payload_len);
		FUZZ_CHECK(memcmp(back, payload, h->payload_len) == 0);
	}
	free(back);
	free(frame);
}

/* The rewritten base datagram equals the input's first n bytes, except that a keyed input's type
 * byte also has the AUTH bit. */
static bool same_base(const uint8_t *again, const uint8_t *data, size_t n, bool keyed)
{
	return memcmp(again, data, 3) == 0 &&
	       again[3] == (keyed ? (data[3] & ~ZCS_AUTH_TYPE_BIT) : data[3]) &&
	       memcmp(again + 4, data + 4, n - 4) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[ZCS_PROTO_META_SIZE];
	struct zcs_dgram d;
	size_t trailer;
	int ret;

	ret = zcs_proto_parse(data, size, &d);
	/* a reason the parser may give: never DECOMPRESS, which is the receiver's after decoding */
	FUZZ_CHECK(ret <= 0 && ret > -ZCS_PERR_COUNT && ret != -ZCS_PERR_DECOMPRESS);
	FUZZ_CHECK(zcs_proto_err_name(ret)[0] != '\0');
	if (ret < 0)
		return 0;
	/* a keyed datagram is its base one plus the trailer its base type sizes */
	FUZZ_CHECK(d.keyed == ((data[3] & ZCS_AUTH_TYPE_BIT) != 0));
	trailer = d.keyed ? zcs_auth_trailer_bytes(d.type) : 0;
	FUZZ_CHECK(!d.keyed || (trailer && size > trailer));
	FUZZ_CHECK(!d.keyed || memcmp(d.salt, data + size - ZCS_AUTH_SAMPLE_TRAILER, 8) == 0);
	size -= trailer;

	if (d.type == ZCS_DGRAM_META) {
		FUZZ_CHECK(size == ZCS_PROTO_META_SIZE);
		FUZZ_CHECK(d.meta.sample_rate > 0 && d.meta.samples_per_dgram > 0);
		FUZZ_CHECK(strnlen(d.meta.sender, sizeof(d.meta.sender)) < sizeof(d.meta.sender));
		FUZZ_CHECK(strnlen(d.meta.version, sizeof(d.meta.version)) < sizeof(d.meta.version));
		FUZZ_CHECK(strnlen(d.meta.source, sizeof(d.meta.source)) < ZCS_PROTO_META_SOURCE_LEN);
		FUZZ_CHECK(zcs_proto_write_meta(again, &d.meta) == size);
		FUZZ_CHECK(same_base(again, data, size, d.keyed));
		return 0;
	}

	if (d.type == ZCS_DGRAM_PARITY) {
		FUZZ_CHECK(size == ZCS_PROTO_PARITY_HDR_SIZE + (size_t)d.parity.shard_len);
		FUZZ_CHECK(d.parity.k >= 1 && d.parity.k <= ZCS_FEC_MAX_K);
		FUZZ_CHECK(d.parity.m >= 1 && d.parity.m <= ZCS_FEC_MAX_M);
		FUZZ_CHECK(d.parity.index < d.parity.m);
		FUZZ_CHECK(d.payload == data + ZCS_PROTO_PARITY_HDR_SIZE);
		zcs_proto_write_parity_hdr(again, &d.parity);
		FUZZ_CHECK(same_base(again, data, ZCS_PROTO_PARITY_HDR_SIZE, d.keyed));
		return 0;
	}
	FUZZ_CHECK(d.type == ZCS_DGRAM_SAMPLES);
	FUZZ_CHECK(d.payload == data + ZCS_PROTO_SAMPLE_HDR_SIZE);
	FUZZ_CHECK(ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)d.hdr.payload_len == size);
	FUZZ_CHECK(zcs_proto_sample_bytes(&d.hdr) <= ZCS_PROTO_MAX_DGRAM - ZCS_PROTO_SAMPLE_HDR_SIZE);
	FUZZ_CHECK(d.hdr.samples > 0 || (d.hdr.flags & ZCS_FLAG_EOS));
	zcs_proto_write_sample_hdr(again, &d.hdr);
	FUZZ_CHECK(same_base(again, data, ZCS_PROTO_SAMPLE_HDR_SIZE, d.keyed));
	if (d.hdr.flags & ZCS_FLAG_ZSTD) {
		FUZZ_CHECK(d.hdr.payload_len > 0 && d.hdr.payload_len < zcs_proto_sample_bytes(&d.hdr));
		check_zstd_payload(&d.hdr, d.payload);
	} else {
		FUZZ_CHECK(d.hdr.payload_len == zcs_proto_sample_bytes(&d.hdr));
		check_raw_payload(&d.hdr, d.payload);
	}
	return 0;
}
