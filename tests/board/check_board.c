// SPDX-License-Identifier: MIT
/* check_board: receives a zcs stream that zcs-send (the command after "--", or one running
 * elsewhere) makes from the emulated board, and checks it: every datagram valid, no sequence or
 * sample-index gap, every pair the board's pattern in order except at datagrams flagged DISCONT
 * (i8: every byte the pattern's, from pair 0), metadata as expected.  A channel switch the
 * stream announces (CHANGE metadata with another channel) is followed from its index on. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats.h"
#include "iq_pattern.h"
#include "proto.h"

#define MAX_FREQS 8
#define MAX_CHANGES 16

struct board_check {
	int port;
	unsigned int rx;        /* receiver whose pattern to expect */
	int timeout_s;
	unsigned int stop_freqs; /* SIGTERM the sender once this many RX LOs were seen (0: never) */
	const char *out;        /* JSON summary file */
	struct zcs_kernels k;
	bool have_stream, have_k, eos;
	uint32_t stream_id;
	uint64_t datagrams, pairs, next_seq, next_sample, lost, bad, flagged, jumps, metas;
	uint32_t first_k, last_k;
	uint64_t first_sample;  /* stream index of the first pair (first_k) */
	struct zcs_meta meta;   /* the last one */
	uint64_t freqs[MAX_FREQS];
	unsigned int nfreqs;
	/* retunes announced (metadata flag CHANGE), one per meta_version */
	struct zcs_meta changes[MAX_CHANGES];
	unsigned int nchanges;
	/* where the first datagrams flagged DISCONT start (a rebuild's exact index) */
	uint64_t flagged_at[MAX_CHANGES];
	unsigned int nflagged_at;
	/* a channel switch announced: the pattern of receiver switch_rx from sample switch_at */
	bool have_switch;
	unsigned int switch_rx;
	uint64_t switch_at;
	unsigned int switches;
};

__attribute__((format(printf, 2, 3)))
static void bad(struct board_check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->bad++ >= 8)
		return;
	fprintf(stderr, "check_board: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_meta(struct board_check *c, const struct zcs_meta *m)
{
	c->metas++;
	c->meta = *m;
	if ((m->flags & ZCS_META_FLAG_CHANGE) && c->nchanges < MAX_CHANGES &&
	    (!c->nchanges || c->changes[c->nchanges - 1].meta_version != m->meta_version))
		c->changes[c->nchanges++] = *m;
	/* the stream says from which sample the other receiver's pattern comes */
	if ((m->flags & ZCS_META_FLAG_CHANGE) && m->channel <= 1 &&
	    m->channel != (c->have_switch ? c->switch_rx : c->rx)) {
		c->have_switch = true;
		c->switch_rx = m->channel;
		c->switch_at = m->ref_sample;
	}
	for (unsigned int i = 0; i < c->nfreqs; i++)
		if (c->freqs[i] == m->center_freq)
			return;
	if (c->nfreqs < MAX_FREQS)
		c->freqs[c->nfreqs++] = m->center_freq;
}

/* i8 keeps a pair's top 8 of 12 bits, too few to read k back: pair n of the stream must be k = n
 * (a feeder started afresh, at k 0, and no source loss), and its bytes exactly the sender's
 * packing of that pattern pair. */
static void on_i8(struct board_check *c, const struct zcs_dgram *d)
{
	static int16_t raw[2 * 65536];
	static uint8_t want[2 * 65536];
	const struct zcs_sample_hdr *h = &d->hdr;
	const unsigned int ch = 2 * c->rx;

	if (h->flags & ZCS_FLAG_DISCONT) {
		bad(c, "i8 datagram %" PRIu64 " flagged DISCONT: k is not known after it", h->seq);
		return;
	}
	for (size_t j = 0; j < h->samples; j++) {
		const uint32_t kk = (uint32_t)(h->first_sample + j) & IQ_PATTERN_MASK;

		raw[2 * j] = iq_pattern_word(kk, ch);
		raw[2 * j + 1] = iq_pattern_word(kk, ch + 1);
	}
	c->k.pack[ZCS_WIRE_I8](want, raw, h->samples);
	if (memcmp(want, d->payload, 2 * (size_t)h->samples) != 0)
		bad(c, "i8 datagram %" PRIu64 ": bytes differ from pairs %" PRIu64 "..%" PRIu64
		    " of the pattern of rx%u", h->seq, h->first_sample,
		    h->first_sample + h->samples - 1, c->rx + 1);
	if (h->samples) {
		if (!c->have_k)
			c->first_k = (uint32_t)h->first_sample & IQ_PATTERN_MASK;
		c->have_k = true;
		c->last_k = (uint32_t)(h->first_sample + h->samples - 1) & IQ_PATTERN_MASK;
	}
	c->pairs += h->samples;
}

static void on_samples(struct board_check *c, const struct zcs_dgram *d)
{
	static int16_t iq[2 * 65536];
	const struct zcs_sample_hdr *h = &d->hdr;

	if (!c->have_stream) {
		c->have_stream = true;
		c->stream_id = h->stream_id;
		c->next_seq = h->seq;
		c->next_sample = h->first_sample;
		c->first_sample = h->first_sample;
	}
	if (h->stream_id != c->stream_id)
		bad(c, "stream id %08x after %08x", h->stream_id, c->stream_id);
	if (h->seq != c->next_seq) {
		c->lost += h->seq - c->next_seq;
		bad(c, "seq %" PRIu64 ", expected %" PRIu64 " (lost on loopback?)", h->seq,
		    c->next_seq);
	}
	if (h->first_sample != c->next_sample)
		bad(c, "first_sample %" PRIu64 ", expected %" PRIu64, h->first_sample,
		    c->next_sample);
	c->next_seq = h->seq + 1;
	c->next_sample = h->first_sample + h->samples;
	c->datagrams++;
	if (c->have_switch && h->first_sample >= c->switch_at) {
		if (h->first_sample != c->switch_at)
			bad(c, "channel switch announced at %" PRIu64 " but no datagram starts there "
			    "(datagram %" PRIu64 " starts at %" PRIu64 ")", c->switch_at, h->seq,
			    h->first_sample);
		c->rx = c->switch_rx;
		c->have_switch = false;
		c->switches++;
	}
	if (h->flags & ZCS_FLAG_DISCONT) {
		c->flagged++;
		if (c->nflagged_at < MAX_CHANGES)
			c->flagged_at[c->nflagged_at++] = h->first_sample;
	}
	c->eos |= (h->flags & ZCS_FLAG_EOS) != 0;
	if (h->flags & ZCS_FLAG_ZSTD) {
		bad(c, "zstd datagram %" PRIu64 ": not checked here", h->seq);
		return;
	}
	if (h->format == ZCS_WIRE_I8) {
		on_i8(c, d);
		return;
	}
	if (h->format != ZCS_WIRE_I16 && h->format != ZCS_WIRE_P12) {
		bad(c, "format %s is not checked here: use i8, i16 or p12", zcs_wire_name(h->format));
		return;
	}
	c->k.unpack[h->format][ZCS_SAMPLE_CS16](iq, d->payload, h->samples);
	for (size_t j = 0; j < h->samples; j++) {
		/* cs16 is the 12-bit value << 4: shift back to what the radio delivered. */
		const int16_t i = (int16_t)(iq[2 * j] >> 4), q = (int16_t)(iq[2 * j + 1] >> 4);
		uint32_t kk;

		if (!iq_pattern_decode(i, q, c->rx, &kk)) {
			bad(c, "pair %" PRIu64 " (%d, %d) is not the pattern of rx%u",
			    h->first_sample + j, i, q, c->rx + 1);
			continue;
		}
		if (c->have_k && kk != ((c->last_k + 1) & IQ_PATTERN_MASK)) {
			const uint32_t step = (kk - c->last_k) & IQ_PATTERN_MASK;

			/* Lost samples move k forward; a repeat or a step back is always wrong. */
			if (j == 0 && (h->flags & ZCS_FLAG_DISCONT) && step && step < IQ_PATTERN_MASK / 2)
				c->jumps++;
			else
				bad(c, "pair %" PRIu64 ": k=%u after k=%u with no DISCONT flag",
				    h->first_sample + j, kk, c->last_k);
		}
		if (!c->have_k)
			c->first_k = kk;
		c->have_k = true;
		c->last_k = kk;
	}
	c->pairs += h->samples;
}

static int open_socket(int port, const char *bind_addr)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const int big = 64 << 20;
	const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (bind_addr && inet_pton(AF_INET, bind_addr, &a.sin_addr) != 1) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* Loopback drops only when this reader falls behind: give it room (root may force it). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (const struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void write_summary(const struct board_check *c, int sender_status, FILE *f)
{
	const struct zcs_meta *m = &c->meta;

	fprintf(f, "{\"datagrams\": %" PRIu64 ", \"pairs\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"bad\": %" PRIu64 ", \"flagged\": %" PRIu64 ", \"jumps\": %" PRIu64
		", \"first_k\": %u, \"last_k\": %u, \"eos\": %d, \"sender_status\": %d"
		", \"switches\": %u, \"rx\": %u"
		", \"metas\": %" PRIu64 ", \"meta\": {\"sample_rate\": %" PRIu64
		", \"center_freq\": %" PRIu64 ", \"bandwidth\": %" PRIu64 ", \"gain_mdb\": %" PRId32
		", \"gain_mode\": %u, \"channel\": %u, \"source\": \"%.16s\"}, \"freqs\": [",
		c->datagrams, c->pairs, c->lost, c->bad, c->flagged, c->jumps, c->first_k,
		c->last_k, c->eos, sender_status, c->switches, c->rx, c->metas, m->sample_rate, m->center_freq,
		m->bandwidth, m->gain_mdb, m->gain_mode, m->channel, m->source);
	for (unsigned int i = 0; i < c->nfreqs; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", c->freqs[i]);
	/* each retune with the pattern's k at its index, so a test can tell where the board's
	 * signal really changed (feed_iq --lo-log) against where the stream says it did */
	fprintf(f, "], \"first_sample\": %" PRIu64 ", \"changes\": [", c->first_sample);
	for (unsigned int i = 0; i < c->nchanges; i++) {
		const struct zcs_meta *x = &c->changes[i];

		fprintf(f, "%s{\"ref_sample\": %" PRIu64 ", \"center_freq\": %" PRIu64
			", \"sample_rate\": %" PRIu64 ", \"bandwidth\": %" PRIu64 ", \"gain_mdb\": %"
			PRId32 ", \"gain_mode\": %u, \"channel\": %u, \"meta_version\": %" PRIu32
			"}", i ? ", " : "", x->ref_sample, x->center_freq, x->sample_rate,
			x->bandwidth, x->gain_mdb, x->gain_mode, x->channel, x->meta_version);
	}
	fprintf(f, "], \"flagged_at\": [");
	for (unsigned int i = 0; i < c->nflagged_at; i++)
		fprintf(f, "%s%" PRIu64, i ? ", " : "", c->flagged_at[i]);
	fprintf(f, "]}\n");
}

static volatile sig_atomic_t stop_listening;

static void on_term(int sig)
{
	(void)sig;
	stop_listening = 1;
}

/* No command: the sender runs elsewhere (another machine, a guest under qemu).  Receives until the
 * end of stream, SIGTERM or the time-out (counted from the start, not from the last datagram: the
 * sender may be minutes away).  Returns 0 when the stream ended, 1 otherwise. */
static int listen_only(struct board_check *c, int fd)
{
	static uint8_t buf[65536];
	const struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (int ms = 0; ms < c->timeout_s * 1000 && !stop_listening && !c->eos; ms += 100) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct zcs_dgram d;
		ssize_t n;
		int e;

		if (poll(&p, 1, 100) <= 0)
			continue;
		while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
			e = zcs_proto_parse(buf, (size_t)n, &d);
			if (e < 0)
				bad(c, "bad datagram: %s (len %zd)", zcs_proto_err_name(-e), n);
			else if (d.type == ZCS_DGRAM_META)
				on_meta(c, &d.meta);
			else
				on_samples(c, &d);
		}
	}
	return c->eos ? 0 : 1;
}

static int run(struct board_check *c, int fd, char **cmd)
{
	static uint8_t buf[65536];
	int status = -1, waited = 0;
	pid_t pid;

	if (!cmd[0])
		return listen_only(c, fd);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd);
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	for (int idle_ms = 0, stopped = 0; idle_ms < c->timeout_s * 1000;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct zcs_dgram d;

		/* the sender ends its stream cleanly on SIGTERM (EOS, exit 0): the retune test streams
		 * until the new LO showed up, instead of guessing how long that takes under load */
		if (c->stop_freqs && c->nfreqs >= c->stop_freqs && !stopped) {
			stopped = 1;
			kill(pid, SIGTERM);
		}
		if (!waited && waitpid(pid, &status, WNOHANG) == pid)
			waited = 1;
		if (c->eos && waited)
			break;
		if (poll(&p, 1, 100) <= 0) {
			/* After the sender is gone, a short quiet spell ends the wait. */
			idle_ms += waited ? 1000 : 100;
			continue;
		}
		const ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			continue;
		idle_ms = 0;
		const int e = zcs_proto_parse(buf, (size_t)n, &d);

		if (e < 0)
			bad(c, "bad datagram: %s (len %zd)", zcs_proto_err_name(-e), n);
		else if (d.type == ZCS_DGRAM_META)
			on_meta(c, &d.meta);
		else
			on_samples(c, &d);
	}
	if (!waited) {
		fprintf(stderr, "check_board: timed out; ending the sender\n");
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' }, { "rx", required_argument, NULL, 'r' },
		{ "out", required_argument, NULL, 'o' }, { "timeout", required_argument, NULL, 't' },
		{ "stop-after-freqs", required_argument, NULL, 's' },
		{ "bind", required_argument, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	struct board_check c = { .timeout_s = 30 };
	const char *bind_addr = NULL;
	FILE *f;
	int o, fd, status;

	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (o) {
		case 'p': c.port = atoi(optarg); break;
		case 'r': c.rx = !strcmp(optarg, "rx2") ? 1 : 0; break;
		case 'o': c.out = optarg; break;
		case 't': c.timeout_s = atoi(optarg); break;
		case 's': c.stop_freqs = (unsigned int)atoi(optarg); break;
		case 'b': bind_addr = optarg; break;
		default: return 2;
		}
	}
	if (c.port <= 0 || !c.out) {
		fprintf(stderr, "usage: check_board --port P --out FILE [--rx rx1|rx2] [--bind ADDR] "
			"[--timeout S] [--stop-after-freqs N] [-- zcs-send ARGS...]\n"
			"  without a command: receive until the end of stream, SIGTERM or the time-out\n");
		return 2;
	}
	if (zcs_kernels_init(&c.k, ZCS_ISA_SCALAR) < 0 || (fd = open_socket(c.port, bind_addr)) < 0) {
		perror("check_board: set-up");
		return 1;
	}
	status = run(&c, fd, argv + optind);
	close(fd);
	f = fopen(c.out, "w");
	if (!f) {
		perror(c.out);
		return 1;
	}
	write_summary(&c, status, f);
	fclose(f);
	return status == 0 && c.eos && !c.bad && !c.lost ? 0 : 1;
}
