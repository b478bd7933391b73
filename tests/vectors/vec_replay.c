// SPDX-License-Identifier: MIT
/* Replays one conformance vector (tests/vectors/README.md, docs/protocol.md "Conformance
 * vectors") through zcs-recv's receive engine, datagram by datagram at the times the vector
 * gives, and writes what zcs-recv -F cs16 would have written, then its counters as one JSON
 * line.  The engine is the program's own (receiver/core): only the socket is left out, so the
 * run is deterministic.
 *
 *   vec_replay VECTOR.zcsv [--key KEYFILE] [--out FILE.cs16]
 *
 * Prints {"pairs":N,"counters":{...}} on stdout (the samples go to --out); exit 0, or 2 on a
 * bad vector. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats.h"
#include "key.h"
#include "output.h"
#include "proto.h"
#include "rx.h"

#define MAGIC "ZCSVEC1\n"
#define REC_HDR 12                /* u64 arrival time (ns), u32 length */
#define MAX_LEN 65535

/* A vector's times are relative: the engine's clock starts here (any value works; not 0,
 * which the engine reads as "never"). */
#define T0_NS (1000ULL * 1000 * 1000 * 1000)

struct replay {
	struct zcs_reader *rd;
	uint64_t pairs;
	FILE *out;
};

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Takes every item the engine queued: the samples counted (and written with --out). */
static int take(struct replay *r)
{
	struct zcs_reader_item it;

	while (zcs_reader_next(r->rd, 0, &it) == 1) {
		if (it.kind != ZCS_READER_DATA)
			continue;
		r->pairs += it.pairs;
		if (r->out && fwrite(it.data, 1, it.len, r->out) != it.len)
			return -EIO;
	}
	return 0;
}

static void counters(const struct zcs_rx_snapshot *s)
{
	printf("\"counters\":{\"samples\":%" PRIu64 ",\"rx_samples\":%" PRIu64
	       ",\"gap_samples\":%" PRIu64 ",\"discont_samples\":%" PRIu64
	       ",\"delivered\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"late\":%" PRIu64
	       ",\"duplicate\":%" PRIu64 ",\"foreign\":%" PRIu64 ",\"pre_meta\":%" PRIu64
	       ",\"streams\":%" PRIu64 ",\"eos\":%" PRIu64 ",\"restored\":%" PRIu64
	       ",\"replayed\":%" PRIu64 ",\"unconfirmed\":%" PRIu64 ",\"invalid_by\":{",
	       s->gf.samples, s->gf.rx_samples, s->gf.gap_samples, s->gf.discont_samples,
	       s->ro.delivered, s->ro.lost, s->ro.late, s->ro.duplicate, s->rx.foreign,
	       s->rx.pre_meta, s->rx.streams, s->rx.eos, s->rx.restored, s->rx.replayed,
	       s->rx.unconfirmed);
	for (int i = 1, n = 0; i < ZCS_RX_INVALID_REASONS; i++) {
		if (!s->rx.invalid_by[i])
			continue;
		printf("%s\"%s\":%" PRIu64, n++ ? "," : "",
		       i == ZCS_RX_OVERSIZE ? "oversize" : zcs_proto_err_name(i),
		       s->rx.invalid_by[i]);
	}
	printf("}}");
}

int main(int argc, char **argv)
{
	struct zcs_rx_opts o = {
		/* the socket is bound (below), never read: every datagram is handed in */
		.rcvbuf = 1 << 16, .max_dgram = ZCS_RX_DEFAULT_MAX_DGRAM,
		.batch = 1, .no_gro = true, .type = ZCS_SAMPLE_CS16,
	};
	static const struct sockaddr_in from = { .sin_family = AF_INET,
						 .sin_port = 0x0f15 /* 5391 */ };
	static uint8_t d[MAX_LEN];
	const char *path = NULL, *keyfile = NULL, *outfile = NULL;
	struct zcs_outputs *outs = NULL;
	struct zcs_rx *rx = NULL;
	struct zcs_rx_snapshot snap;
	struct zcs_kernels k;
	struct zcs_key key;
	struct replay r = { 0 };
	uint8_t hdr[REC_HDR];
	char magic[8], err[256];
	uint64_t t = 0;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--key") && i + 1 < argc)
			keyfile = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			outfile = argv[++i];
		else if (!path && argv[i][0] != '-')
			path = argv[i];
		else {
			fprintf(stderr, "usage: vec_replay VECTOR.zcsv [--key KEYFILE] [--out FILE]\n");
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: vec_replay VECTOR.zcsv [--key KEYFILE] [--out FILE]\n");
		return 2;
	}
	if (keyfile) {
		if (zcs_key_load(&key, keyfile, err, sizeof(err)) < 0) {
			fprintf(stderr, "vec_replay: %s\n", err);
			return 2;
		}
		o.key = &key;
	}
	f = fopen(path, "rb");
	if (!f || fread(magic, 1, sizeof(magic), f) != sizeof(magic) ||
	    memcmp(magic, MAGIC, sizeof(magic)) != 0) {
		fprintf(stderr, "vec_replay: %s: not a vector (%s)\n", path,
			f ? "bad magic" : strerror(errno));
		return 2;
	}
	if (outfile && !(r.out = fopen(outfile, "wb"))) {
		fprintf(stderr, "vec_replay: %s: %s\n", outfile, strerror(errno));
		return 2;
	}
	if (zcs_kernels_init(&k, ZCS_ISA_BEST) < 0 || zcs_outputs_create(&outs, o.type) < 0 ||
	    zcs_outputs_add_reader(outs, "vector", &r.rd, err, sizeof(err)) < 0 ||
	    zcs_outputs_start(outs) < 0) {
		fprintf(stderr, "vec_replay: outputs: %s\n", err);
		return 2;
	}
	zcs_reader_attach(r.rd);
	/* a loopback port of its own: another run's, or a program's, is tried past */
	for (int i = 0, ret = -1; ret < 0; i++) {
		char listen[32];

		snprintf(listen, sizeof(listen), "127.0.0.1:%d", 40000 + (getpid() + i * 7919) % 20000);
		o.listen = listen;
		ret = zcs_rx_open(&rx, &o, outs, &k, err, sizeof(err));
		if (ret < 0 && (ret != -EADDRINUSE || i == 20)) {
			fprintf(stderr, "vec_replay: %s\n", err);
			return 2;
		}
	}
	for (;;) {
		size_t n = fread(hdr, 1, REC_HDR, f);
		uint64_t at;
		uint32_t len;

		if (n == 0)
			break;
		if (n != REC_HDR) {
			fprintf(stderr, "vec_replay: %s: a record cut short\n", path);
			return 2;
		}
		at = get_le(hdr, 8);
		len = (uint32_t)get_le(hdr + 8, 4);
		if (at < t || len > MAX_LEN || fread(d, 1, len, f) != len) {
			fprintf(stderr, "vec_replay: %s: a record out of order, too long or cut short\n",
				path);
			return 2;
		}
		t = at;
		/* the time since the datagram before passes with the socket empty, then this one
		 * is read, alone */
		zcs_rx_tick(rx, T0_NS + t);
		zcs_rx_feed(rx, d, len, (const struct sockaddr *)&from, T0_NS + t);
		zcs_rx_tick(rx, T0_NS + t);
		if (take(&r) < 0)
			return 2;
	}
	fclose(f);
	/* the end of the capture: what the window holds is released */
	zcs_rx_finish(rx);
	zcs_rx_snapshot(rx, &snap);
	if (take(&r) < 0 || (r.out && fclose(r.out) != 0)) {
		fprintf(stderr, "vec_replay: %s: %s\n", outfile, strerror(errno));
		return 2;
	}
	printf("{\"pairs\":%" PRIu64 ",", r.pairs);
	counters(&snap);
	printf("}\n");
	zcs_reader_detach(r.rd);
	zcs_rx_close(rx);
	zcs_outputs_destroy(outs, 0);
	return 0;
}
