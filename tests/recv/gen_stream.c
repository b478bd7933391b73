// SPDX-License-Identifier: MIT
/* zcs-genstream: a test-only sender of exact scenarios for zcs-recv.  Datagrams go out in the
 * order the script names them, so a test knows precisely what was lost, duplicated, reordered,
 * late or malformed.  Samples are a fixed function of the sample index (see sample_value), and
 * --expect writes the bytes the receiver must put out for a given gap layout. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bytes.h"
#include "codec.h"
#include "formats.h"
#include "net.h"
#include "proto.h"

#define MAX_SPD 4096
#define MAX_DISCONT 16

static const char usage[] =
"usage: zcs-genstream DEST [options] OP...\n"
"  --format i8|p12|i16   wire format (default p12)\n"
"  --spd N               samples per datagram (default 100)\n"
"  --rate SPS            rate in the metadata (default 1000000)\n"
"  --stream ID           stream id (default 0x00c0ffee)\n"
"  --next-seq N          next_seq announced by 'meta' (default 0)\n"
"  --discont SEQ:SKIP    datagrams from SEQ on start SKIP samples later, flagged DISCONT on SEQ\n"
"  --zstd                compress every payload (each its own zstd frame)\n"
"  --zstd-rle            a constant signal whose payloads are one byte repeated, each sent as a\n"
"                        zstd frame of one RLE block made here without libzstd (works in every\n"
"                        build; any zstd decoder accepts it)\n"
"  --slow                a signal that changes every 16 samples (so zstd has work to do)\n"
"  --pace-us US          pause between datagrams (default 20)\n"
"OPs, sent in order:\n"
"  meta                  a metadata datagram\n"
"  N | A-B               sample datagram N, or A..B inclusive in order\n"
"  eos:N                 sample datagram N flagged end of stream\n"
"  stream:ID             later datagrams belong to stream ID (numbering continues per OP)\n"
"  garbage:KIND          truncated, bad_magic, bad_version, bad_length, bad_format, reserved,\n"
"                        bad_count, random, foreign (valid datagram of another stream),\n"
"                        bad_zstd (parses, but its zstd frame is broken)\n"
"  sleep:MS              pause\n"
"  --expect TYPE SPEC... (instead of DEST/OPs) writes to stdout the consumer bytes of type\n"
"                        cs8|cu8|cs16|cf32|native for SPEC = A-B (data of sample indices A..B)\n"
"                        or zero:N (N zero samples); uses --format.\n";

struct gen {
	int fd;
	int format;
	size_t spd;
	uint64_t rate;
	uint32_t stream;
	uint64_t next_seq;
	unsigned int pace_us;
	bool zstd;
	bool zstd_rle;
	bool slow;
	struct zcs_codec *codec;
	struct zcs_kernels k;
	struct { uint64_t seq, skip; } discont[MAX_DISCONT];
	size_t ndiscont;
	uint64_t rnd;
};

/* The test signal: 12-bit values that visit every code, differently for I and Q (with --slow,
 * each value held for 16 samples; with --zstd-rle, one constant). */
static void sample_value(const struct gen *g, uint64_t n, int16_t *iq)
{
	if (g->zstd_rle) {
		/* the 12-bit value whose packed form is one byte repeated: 0x777 packs to 77 77 77
		 * (p12) and 77 (i8); i16 needs 0x707 (07 07) */
		iq[0] = iq[1] = g->format == ZCS_WIRE_I16 ? 0x707 : 0x777;
		return;
	}
	if (g->slow)
		n /= 16;
	iq[0] = (int16_t)((int)((n * 7 + 3) % 4096) - 2048);
	iq[1] = (int16_t)((int)((n * 13 + 1000) % 4096) - 2048);
}

static uint64_t first_sample(const struct gen *g, uint64_t seq)
{
	uint64_t s = seq * g->spd;

	for (size_t i = 0; i < g->ndiscont; i++)
		if (seq >= g->discont[i].seq)
			s += g->discont[i].skip;
	return s;
}

static bool is_discont(const struct gen *g, uint64_t seq)
{
	for (size_t i = 0; i < g->ndiscont; i++)
		if (seq == g->discont[i].seq)
			return true;
	return false;
}

static void out(struct gen *g, const uint8_t *buf, size_t len)
{
	if (send(g->fd, buf, len, 0) < 0 && errno != ECONNREFUSED)
		perror("send");
	if (g->pace_us)
		usleep(g->pace_us);
}

/* A zstd frame (RFC 8878, 3.1.1) of len copies of byte: magic, a frame header that says "single
 * segment, 4-byte content size", the content size, a block header "last block, RLE, len bytes"
 * and the byte.  13 bytes that any zstd decoder expands.  (A raw block would not do: the
 * protocol sends a payload compressed only when that shrinks it.) */
static size_t zstd_rle_frame(uint8_t *dst, uint8_t byte, size_t len)
{
	const uint32_t block_hdr = (uint32_t)len << 3 | 1u << 1 | 1u;

	if (len > 128 * 1024) /* Block_Maximum_Size; a MAX_SPD i16 payload is 16 KB */
		abort();

	zcs_put_le32(dst, 0xFD2FB528u);
	dst[4] = 0x80 | 0x20; /* Frame_Content_Size_flag 2 (4 bytes), Single_Segment_flag */
	zcs_put_le32(dst + 5, (uint32_t)len);
	dst[9] = (uint8_t)block_hdr;
	dst[10] = (uint8_t)(block_hdr >> 8);
	dst[11] = (uint8_t)(block_hdr >> 16);
	dst[12] = byte;
	return 13;
}

static size_t build_samples(struct gen *g, uint8_t *buf, uint64_t seq, uint8_t flags)
{
	static int16_t raw[2 * MAX_SPD];
	static uint8_t packed[4 * MAX_SPD];
	const uint64_t first = first_sample(g, seq);
	const size_t bytes = g->spd * zcs_wire_pair_bytes(g->format);
	struct zcs_sample_hdr h = {
		.stream_id = g->stream, .seq = seq, .first_sample = first,
		.samples = (uint16_t)g->spd, .payload_len = (uint16_t)bytes,
		.format = (uint8_t)g->format, .flags = flags,
	};

	for (size_t i = 0; i < g->spd; i++)
		sample_value(g, first + i, raw + 2 * i);
	g->k.pack[g->format](packed, raw, g->spd);
	if (is_discont(g, seq))
		h.flags |= ZCS_FLAG_DISCONT;
	if (g->zstd_rle) {
		/* sample_value's constant makes every byte the same; an RLE frame of anything else
		 * would silently send other samples than --expect predicts */
		if (bytes > 1 && memcmp(packed, packed + 1, bytes - 1) != 0)
			abort();
		h.flags |= ZCS_FLAG_ZSTD;
		h.payload_len = (uint16_t)zstd_rle_frame(buf + ZCS_PROTO_SAMPLE_HDR_SIZE, packed[0],
							 bytes);
		zcs_proto_write_sample_hdr(buf, &h);
		return ZCS_PROTO_SAMPLE_HDR_SIZE + h.payload_len;
	}
	if (g->zstd) {
		const ssize_t n = zcs_codec_compress(g->codec, buf + ZCS_PROTO_SAMPLE_HDR_SIZE,
						     ZCS_PROTO_MAX_DGRAM - ZCS_PROTO_SAMPLE_HDR_SIZE,
						     packed, bytes);

		if (n > 0) {
			h.flags |= ZCS_FLAG_ZSTD;
			h.payload_len = (uint16_t)n;
			zcs_proto_write_sample_hdr(buf, &h);
			return ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)n;
		}
	}
	zcs_proto_write_sample_hdr(buf, &h);
	memcpy(buf + ZCS_PROTO_SAMPLE_HDR_SIZE, packed, bytes);
	return ZCS_PROTO_SAMPLE_HDR_SIZE + bytes;
}

static void send_meta(struct gen *g)
{
	uint8_t buf[ZCS_PROTO_META_SIZE];
	struct zcs_meta m = {
		.stream_id = g->stream, .meta_version = 1, .next_seq = g->next_seq,
		.ref_sample = 0, .ref_time_ns = 0, .sample_rate = g->rate,
		.center_freq = 433920000, .bandwidth = 0, .gain_mdb = 42000,
		.gain_mode = ZCS_GAIN_MANUAL, .channel = 0, .format = (uint8_t)g->format,
		.flags = (g->zstd || g->zstd_rle) ? ZCS_META_FLAG_ZSTD : 0,
		.samples_per_dgram = (uint16_t)g->spd,
	};

	strcpy(m.sender, "genstream");
	strcpy(m.version, "test");
	strcpy(m.source, "tone");
	out(g, buf, zcs_proto_write_meta(buf, &m));
}

static uint64_t xrand(struct gen *g)
{
	g->rnd ^= g->rnd << 13;
	g->rnd ^= g->rnd >> 7;
	g->rnd ^= g->rnd << 17;
	return g->rnd;
}

/* A malformed datagram of the kind named; each is checked to fail parsing for that reason. */
static int send_garbage(struct gen *g, const char *kind)
{
	static uint8_t buf[ZCS_PROTO_MAX_DGRAM];
	size_t len = build_samples(g, buf, 1000000, 0);
	struct zcs_dgram dg;
	int want;

	if (strcmp(kind, "truncated") == 0) {
		len = 20;
		want = ZCS_PERR_TRUNCATED;
	} else if (strcmp(kind, "bad_magic") == 0) {
		buf[0] ^= 0xff;
		want = ZCS_PERR_BAD_MAGIC;
	} else if (strcmp(kind, "bad_version") == 0) {
		buf[2] = 99;
		want = ZCS_PERR_BAD_VERSION;
	} else if (strcmp(kind, "bad_length") == 0) {
		len -= 7; /* payload_len now says more than there is */
		want = ZCS_PERR_BAD_LENGTH;
	} else if (strcmp(kind, "bad_format") == 0) {
		buf[24] = 77;
		want = ZCS_PERR_BAD_FORMAT;
	} else if (strcmp(kind, "reserved") == 0) {
		buf[30] = 1;
		want = ZCS_PERR_RESERVED;
	} else if (strcmp(kind, "bad_count") == 0) {
		/* one sample more than the payload holds */
		buf[26] = (uint8_t)(g->spd + 1);
		buf[27] = (uint8_t)((g->spd + 1) >> 8);
		want = ZCS_PERR_BAD_COUNT;
	} else if (strcmp(kind, "random") == 0) {
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)xrand(g);
		buf[0] = 'x'; /* never a zcs magic by chance */
		want = ZCS_PERR_BAD_MAGIC;
	} else if (strcmp(kind, "bad_zstd") == 0) {
		/* a frame whose magic is broken: it parses, but cannot be decompressed */
		if (!(buf[25] & ZCS_FLAG_ZSTD)) {
			fprintf(stderr, "genstream: bad_zstd needs --zstd and a compressible signal\n");
			return -1;
		}
		buf[ZCS_PROTO_SAMPLE_HDR_SIZE] ^= 0xff;
		want = ZCS_PERR_NONE;
	} else if (strcmp(kind, "foreign") == 0) {
		const uint32_t keep = g->stream;

		g->stream ^= 0x5a5a5a5a;
		len = build_samples(g, buf, 7, 0);
		g->stream = keep;
		want = ZCS_PERR_NONE;
	} else {
		fprintf(stderr, "genstream: unknown garbage kind %s\n", kind);
		return -1;
	}
	if (-zcs_proto_parse(buf, len, &dg) != want) {
		fprintf(stderr, "genstream: garbage %s does not fail as %s\n", kind,
			zcs_proto_err_name(want));
		return -1;
	}
	out(g, buf, len);
	return 0;
}

static int expect(struct gen *g, int argc, char **argv)
{
	static int16_t raw[2 * MAX_SPD];
	static uint8_t wire[4 * MAX_SPD], conv[8 * MAX_SPD];
	const int type = zcs_sample_from_name(argv[0]);
	const size_t pb = zcs_sample_pair_bytes((enum zcs_sample_type)type, g->format);

	if (type < 0)
		return -1;
	for (int i = 1; i < argc; i++) {
		uint64_t a, b;

		if (sscanf(argv[i], "zero:%" SCNu64, &a) == 1) {
			memset(conv, type == ZCS_SAMPLE_CU8 ? 0x80 : 0, pb);
			for (uint64_t n = 0; n < a; n++)
				fwrite(conv, 1, pb, stdout);
			continue;
		}
		if (sscanf(argv[i], "%" SCNu64 "-%" SCNu64, &a, &b) != 2 || b < a)
			return -1;
		for (uint64_t n = a; n <= b;) {
			const size_t k = b - n + 1 < MAX_SPD ? (size_t)(b - n + 1) : MAX_SPD;

			for (size_t j = 0; j < k; j++)
				sample_value(g, n + j, raw + 2 * j);
			/* through the wire format first: i8 keeps only the top 8 bits */
			g->k.pack[g->format](wire, raw, k);
			g->k.unpack[g->format][type](conv, wire, k);
			fwrite(conv, 1, k * pb, stdout);
			n += k;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[ZCS_PROTO_MAX_DGRAM];
	struct gen g = { .format = ZCS_WIRE_P12, .spd = 100, .rate = 1000000, .stream = 0x00c0ffee,
			 .pace_us = 20, .rnd = 88172645463325252ULL };
	struct zcs_addr dst;
	char err[256];
	int i = 1;

	zcs_kernels_init(&g.k, ZCS_ISA_SCALAR);
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";

		if (strcmp(o, "--zstd") == 0) {
			g.zstd = true;
			continue;
		}
		if (strcmp(o, "--zstd-rle") == 0) {
			g.zstd_rle = true;
			continue;
		}
		if (strcmp(o, "--slow") == 0) {
			g.slow = true;
			continue;
		}
		if (strcmp(o, "--expect") == 0)
			return expect(&g, argc - i - 1, argv + i + 1) < 0 ? 2 : 0;
		i++;
		if (strcmp(o, "--format") == 0)
			g.format = zcs_wire_from_name(v);
		else if (strcmp(o, "--spd") == 0)
			g.spd = strtoul(v, NULL, 0);
		else if (strcmp(o, "--rate") == 0)
			g.rate = strtoull(v, NULL, 0);
		else if (strcmp(o, "--stream") == 0)
			g.stream = (uint32_t)strtoul(v, NULL, 0);
		else if (strcmp(o, "--next-seq") == 0)
			g.next_seq = strtoull(v, NULL, 0);
		else if (strcmp(o, "--pace-us") == 0)
			g.pace_us = (unsigned int)strtoul(v, NULL, 0);
		else if (strcmp(o, "--discont") == 0 && g.ndiscont < MAX_DISCONT &&
			 sscanf(v, "%" SCNu64 ":%" SCNu64, &g.discont[g.ndiscont].seq,
				&g.discont[g.ndiscont].skip) == 2)
			g.ndiscont++;
		else {
			fprintf(stderr, "genstream: bad option %s %s\n", o, v);
			return 2;
		}
	}
	if (g.format < 0 || g.spd == 0 || g.spd > MAX_SPD || i >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (g.zstd && zcs_codec_create(&g.codec, 3, ZCS_CODEC_ENCODE) < 0) {
		fprintf(stderr, "genstream: no zstd in this build\n");
		return 77;
	}
	if (zcs_net_parse_addr(&dst, argv[i], ZCS_DEFAULT_PORT, err, sizeof(err)) < 0) {
		fprintf(stderr, "genstream: %s\n", err);
		return 2;
	}
	g.fd = zcs_net_udp_sender(&dst, NULL, err, sizeof(err));
	if (g.fd < 0) {
		fprintf(stderr, "genstream: %s\n", err);
		return 1;
	}
	for (i++; i < argc; i++) {
		const char *op = argv[i];
		uint64_t a, b;
		unsigned int ms;
		char kind[32];

		if (strcmp(op, "meta") == 0) {
			send_meta(&g);
		} else if (sscanf(op, "eos:%" SCNu64, &a) == 1) {
			out(&g, buf, build_samples(&g, buf, a, ZCS_FLAG_EOS));
		} else if (strncmp(op, "stream:", 7) == 0) {
			g.stream = (uint32_t)strtoul(op + 7, NULL, 0);
		} else if (sscanf(op, "garbage:%31s", kind) == 1) {
			if (send_garbage(&g, kind) < 0)
				return 2;
		} else if (sscanf(op, "sleep:%u", &ms) == 1) {
			usleep(ms * 1000u);
		} else if (sscanf(op, "%" SCNu64 "-%" SCNu64, &a, &b) == 2) {
			for (uint64_t s = a; s <= b; s++)
				out(&g, buf, build_samples(&g, buf, s, 0));
		} else if (sscanf(op, "%" SCNu64, &a) == 1) {
			out(&g, buf, build_samples(&g, buf, a, 0));
		} else {
			fprintf(stderr, "genstream: bad op %s\n", op);
			return 2;
		}
	}
	zcs_codec_destroy(g.codec);
	close(g.fd);
	return 0;
}
