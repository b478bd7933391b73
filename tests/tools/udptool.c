// SPDX-License-Identifier: MIT
/* zcs-udptool: the tests' small UDP helper, built on common/net/net.c so lab tests exercise the real
 * socket set-up: send one datagram, receive and print datagrams (unicast or multicast, ASM/SSM),
 * generate a known sequence of zcs sample datagrams, and decode hex datagrams read from stdin. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "net.h"
#include "proto.h"

#define BUF_BYTES 65536

struct opts {
	const char *iface, *source, *text, *ready, *format, *until;
	uint64_t ttl, count, timeout_ms, samples, stream, start_seq, pace_us, repeat;
	bool loop;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: zcs-udptool send DEST [--iface IF] [--ttl N] [--loop] [--text STR] [--repeat N]\n"
"       zcs-udptool recv ADDR [--iface IF] [--source SRC] [--count N] [--timeout-ms MS]\n"
"                             [--ready FILE] [--until TEXT]\n"
"       zcs-udptool gen DEST --count N [--samples K] [--format i8|p12|i16] [--stream ID]\n"
"                            [--start-seq S] [--pace-us US] [--iface IF] [--ttl N] [--loop]\n"
"       zcs-udptool decode   (hex datagrams on stdin, one a line)\n"
"send: one datagram (default text \"zcs-lab\").  recv: prints one line per datagram, a zcs\n"
"sample datagram as \"zcs stream=ID seq=S samples=K\", other zcs bytes as \"bad REASON\", anything\n"
"else as \"text PAYLOAD\"; exits 0 after --count datagrams (default 1), 1 when --timeout-ms\n"
"(default 5000) passes without one, 0 at once after a datagram holding exactly TEXT (--until).\n"
"--ready FILE is created once the socket is bound and joined.\n"
"gen: --count sample datagrams with seq start-seq.. and first_sample = seq * samples,\n"
"payload byte i = (seq * 31 + i) & 255.  decode: prints what recv would for each line.\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "iface", required_argument, NULL, 'i' }, { "source", required_argument, NULL, 'S' },
		{ "ttl", required_argument, NULL, 'T' }, { "loop", no_argument, NULL, 'L' },
		{ "text", required_argument, NULL, 'x' }, { "count", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 'w' }, { "ready", required_argument, NULL, 'r' },
		{ "samples", required_argument, NULL, 'k' }, { "format", required_argument, NULL, 'f' },
		{ "stream", required_argument, NULL, 's' }, { "start-seq", required_argument, NULL, 'q' },
		{ "pace-us", required_argument, NULL, 'p' }, { "repeat", required_argument, NULL, 'R' },
		{ "until", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	int c, ret = 0;

	*o = (struct opts){ .ttl = 1, .count = 1, .timeout_ms = 5000, .samples = 100,
			    .stream = 0x2cc5, .text = "zcs-lab", .format = "i16", .repeat = 1 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'i': o->iface = optarg; break;
		case 'S': o->source = optarg; break;
		case 'T': ret = zcs_cli_parse_u64(optarg, 1, 255, &o->ttl); break;
		case 'L': o->loop = true; break;
		case 'x': o->text = optarg; break;
		case 'c': ret = zcs_cli_parse_u64(optarg, 1, UINT64_MAX, &o->count); break;
		case 'w': ret = zcs_cli_parse_u64(optarg, 1, 3600000, &o->timeout_ms); break;
		case 'r': o->ready = optarg; break;
		case 'u': o->until = optarg; o->count = UINT64_MAX; break;
		case 'k': ret = zcs_cli_parse_u64(optarg, 1, 16000, &o->samples); break;
		case 'f': o->format = optarg; break;
		case 's': ret = zcs_cli_parse_u64(optarg, 0, UINT32_MAX, &o->stream); break;
		case 'q': ret = zcs_cli_parse_u64(optarg, 0, UINT64_MAX, &o->start_seq); break;
		case 'p': ret = zcs_cli_parse_u64(optarg, 0, 1000000, &o->pace_us); break;
		case 'R': ret = zcs_cli_parse_u64(optarg, 1, 1000000, &o->repeat); break;
		case 'h': usage(stdout); exit(0);
		default: return -EINVAL;
		}
		if (ret) {
			fprintf(stderr, "zcs-udptool: bad value \"%s\"\n", optarg);
			return ret;
		}
	}
	return 0;
}

static void describe(const uint8_t *buf, size_t len)
{
	struct zcs_dgram d;
	const int ret = zcs_proto_parse(buf, len, &d);

	if (ret == 0 && d.type == ZCS_DGRAM_SAMPLES) {
		printf("zcs stream=%" PRIu32 " seq=%" PRIu64 " samples=%u first=%" PRIu64 "\n",
		       d.hdr.stream_id, d.hdr.seq, (unsigned)d.hdr.samples, d.hdr.first_sample);
	} else if (ret == 0) {
		printf("meta stream=%" PRIu32 " next_seq=%" PRIu64 "\n", d.meta.stream_id,
		       d.meta.next_seq);
	} else if (ret != -ZCS_PERR_BAD_MAGIC) {
		printf("bad %s len=%zu\n", zcs_proto_err_name(ret), len);
	} else {
		printf("text ");
		for (size_t i = 0; i < len; i++)
			putchar(buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '.');
		putchar('\n');
	}
	fflush(stdout);
}

static int open_sender(const char *dest, const struct opts *o)
{
	const struct zcs_net_tx_opts tx = { .iface = o->iface, .ttl = (int)o->ttl,
					    .mcast_loop = o->loop };
	char err[ZCS_NET_ERR_LEN];
	struct zcs_addr a;
	int fd = zcs_net_parse_addr(&a, dest, ZCS_DEFAULT_PORT, err, sizeof(err));

	if (fd == 0)
		fd = zcs_net_udp_sender(&a, &tx, err, sizeof(err));
	if (fd < 0)
		fprintf(stderr, "zcs-udptool: %s\n", err);
	return fd;
}

static int cmd_send(const char *dest, const struct opts *o)
{
	const int fd = open_sender(dest, o);
	const size_t len = strlen(o->text);

	if (fd < 0)
		return 1;
	for (uint64_t i = 0; i < o->repeat; i++)
		if (send(fd, o->text, len, 0) != (ssize_t)len) {
			perror("zcs-udptool: send");
			close(fd);
			return 1;
		}
	close(fd);
	return 0;
}

static int cmd_recv(const char *spec, const struct opts *o)
{
	struct zcs_addr a, src;
	struct zcs_net_rx_opts rx = { .iface = o->iface, .rcvbuf = 4 << 20 };
	char err[ZCS_NET_ERR_LEN];
	static uint8_t buf[BUF_BYTES];
	uint64_t got = 0;
	int fd, ret = 1;

	if (zcs_net_parse_addr(&a, spec, ZCS_DEFAULT_PORT, err, sizeof(err)) < 0 ||
	    (o->source && zcs_net_parse_addr(&src, o->source, 0, err, sizeof(err)) < 0)) {
		fprintf(stderr, "zcs-udptool: %s\n", err);
		return 2;
	}
	if (o->source)
		rx.source = &src;
	fd = zcs_net_udp_receiver(&a, &rx, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "zcs-udptool: %s\n", err);
		return 2;
	}
	if (o->ready) {
		FILE *f = fopen(o->ready, "w");

		if (f)
			fclose(f);
	}
	while (got < o->count) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, (int)o->timeout_ms) != 1) {
			fprintf(stderr, "zcs-udptool: %s: %" PRIu64 " of %" PRIu64
				" datagrams before the timeout\n", spec, got, o->count);
			goto out;
		}
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			perror("zcs-udptool: recv");
			goto out;
		}
		describe(buf, (size_t)n);
		got++;
		if (o->until && (size_t)n == strlen(o->until) && memcmp(buf, o->until, (size_t)n) == 0)
			break;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static int cmd_gen(const char *dest, const struct opts *o)
{
	static uint8_t buf[BUF_BYTES];
	const int format = zcs_wire_from_name(o->format);
	const int fd = open_sender(dest, o);
	size_t payload, len;
	int ret = 1;

	if (fd < 0)
		return 1;
	if (format < 0) {
		fprintf(stderr, "zcs-udptool: unknown format \"%s\"\n", o->format);
		goto out;
	}
	payload = o->samples * zcs_wire_pair_bytes(format);
	len = ZCS_PROTO_SAMPLE_HDR_SIZE + payload;
	if (len > ZCS_PROTO_MAX_DGRAM) {
		fprintf(stderr, "zcs-udptool: %" PRIu64 " samples do not fit a datagram\n", o->samples);
		goto out;
	}
	for (uint64_t i = 0; i < o->count; i++) {
		const uint64_t seq = o->start_seq + i;
		const struct zcs_sample_hdr h = { .stream_id = (uint32_t)o->stream, .seq = seq,
			.first_sample = seq * o->samples, .samples = (uint16_t)o->samples,
			.payload_len = (uint16_t)payload, .format = (uint8_t)format };

		zcs_proto_write_sample_hdr(buf, &h);
		for (size_t j = 0; j < payload; j++)
			buf[ZCS_PROTO_SAMPLE_HDR_SIZE + j] = (uint8_t)(seq * 31 + j);
		if (send(fd, buf, len, 0) != (ssize_t)len) {
			perror("zcs-udptool: send");
			goto out;
		}
		if (o->pace_us) {
			const struct timespec ts = { .tv_nsec = (long)o->pace_us * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int cmd_decode(void)
{
	static char line[2 * BUF_BYTES + 4];
	static uint8_t buf[BUF_BYTES];

	while (fgets(line, sizeof(line), stdin)) {
		size_t n = 0;

		for (const char *p = line; hexval(p[0]) >= 0 && hexval(p[1]) >= 0 && n < sizeof(buf);
		     p += 2)
			buf[n++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
		describe(buf, n);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd, *addr = NULL;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "decode") != 0) {
		if (argc < 3) {
			usage(stderr);
			return 2;
		}
		addr = argv[2];
	}
	/* getopt sees the options after the command and its address */
	if (parse_opts(argc - (addr ? 2 : 1), argv + (addr ? 2 : 1), &o) < 0 ||
	    optind != argc - (addr ? 2 : 1)) {
		usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "send") == 0)
		return cmd_send(addr, &o);
	if (strcmp(cmd, "recv") == 0)
		return cmd_recv(addr, &o);
	if (strcmp(cmd, "gen") == 0)
		return cmd_gen(addr, &o);
	if (strcmp(cmd, "decode") == 0)
		return cmd_decode();
	usage(stderr);
	return 2;
}
