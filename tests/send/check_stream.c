// SPDX-License-Identifier: MIT
/* check_stream: runs zcs-send (the command after "--") against a loopback socket and checks every
 * datagram: header fields, sequence and sample-index continuity, metadata, end of stream, and the
 * payload bytes against the scalar conversion of the samples the source must have produced.
 * For failure tests (a namespace, a device changed mid-stream) it can bind another address, run a
 * command at a sample count, and accept gaps that the sender counted as dropped trains. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codec.h"
#include "formats.h"
#include "proto.h"
#include "synth.h"

struct check {
	/* what to expect */
	int port;
	bool ipv6;
	int format;
	const char *source;     /* tone, noise, file */
	uint64_t rate;
	double tone_hz;
	bool tone_given;
	double amplitude;
	bool noise;
	uint64_t seed;
	uint64_t count;         /* 0: do not check the total */
	bool zstd;
	const char *expect_path;
	uint64_t sigint_after;  /* samples; 0 = never */
	bool meta_spacing;
	int timeout_s;
	const char *gen_file;   /* write this file first */
	int file_type;          /* enum zcs_import_type */
	bool sigmf_meta;        /* also write the .sigmf-meta of a .sigmf-data gen_file */
	size_t file_pairs;
	const char *stdin_file;
	const char *bind_addr;  /* instead of loopback */
	bool allow_loss;        /* gaps allowed, but they must be the sender's dropped trains */
	uint64_t exec_after;    /* run exec_cmd once this many samples arrived */
	const char *exec_cmd;
	const char *expect_final; /* send path at the end, after expect_demotions demotions */
	int expect_demotions;   /* -1: not checked (0 with --expect-path) */
	/* state */
	struct zcs_synth synth;
	int16_t *file_samples;  /* radio layout, file_pairs pairs */
	struct zcs_kernels k;
	struct zcs_codec *codec;
	bool have_stream;
	uint32_t stream_id;
	uint64_t next_seq, next_sample, datagrams, metas;
	uint64_t last_meta_sample;
	uint64_t received_samples, lost_dgrams, lost_samples, gaps;
	bool executed;
	bool eos;
	uint16_t spd;
};

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failf(const char *fmt, ...)
{
	va_list ap;

	fputs("check_stream: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* NAME.sigmf-meta for NAME.sigmf-data, with the type and the rate the check expects. */
static int gen_sigmf_meta(const struct check *c)
{
	static const char *const datatype[] = {
		[ZCS_IMPORT_CS8] = "ci8", [ZCS_IMPORT_CU8] = "cu8", [ZCS_IMPORT_CF32] = "cf32_le",
		[ZCS_IMPORT_CI16] = "ci16_le",
	};
	const size_t n = strlen(c->gen_file), sl = strlen(".sigmf-data");
	char path[4096];
	FILE *f;

	if (n <= sl || n >= sizeof(path) || strcmp(c->gen_file + n - sl, ".sigmf-data") != 0 ||
	    c->file_type < 0 || (size_t)c->file_type >= sizeof(datatype) / sizeof(datatype[0]) ||
	    !datatype[c->file_type])
		return failf("--sigmf-meta needs a .sigmf-data file of type ci16, cf32, cs8 or cu8");
	snprintf(path, sizeof(path), "%.*s.sigmf-meta", (int)(n - sl), c->gen_file);
	f = fopen(path, "w");
	if (!f)
		return failf("cannot write %s", path);
	/* keys in an unusual order and spacing: a reader must not depend on zcs-recv's layout */
	fprintf(f, "{\"captures\":[{\"core:sample_start\":0}],\"annotations\":[],\n"
		" \"global\" : {\"core:version\":\"1.0.0\",\"core:sample_rate\" : %llu.0,\n"
		"  \"core:num_channels\": 1, \"core:datatype\":\t\"%s\"}}\n",
		(unsigned long long)c->rate, datatype[c->file_type]);
	return fclose(f) == 0 ? 0 : failf("cannot write %s", path);
}

/* A seeded random file of the type: raw12 values a little beyond 12 bits (so saturation is
 * exercised), cs16 (ci16) any 16-bit value (rounding), cs8/cu8 any byte, cf32 in [-1.05, 1.05].
 * The expected samples are zcs_import_convert's reading of the same bytes. */
static int gen_file(struct check *c)
{
	const size_t pb = zcs_import_pair_bytes(c->file_type);
	uint8_t *buf = malloc(c->file_pairs * pb);
	uint64_t s = 0x1234567 + c->seed;
	FILE *f;

	c->file_samples = malloc(c->file_pairs * 2 * sizeof(int16_t));
	if (!buf || !c->file_samples)
		return failf("out of memory");
	for (size_t j = 0; j < 2 * c->file_pairs; j++) {
		const uint64_t r = xorshift(&s);

		if (c->file_type == ZCS_SAMPLE_CS16) {
			const int16_t v = (int16_t)((int)(r % 4200) - 2100);

			buf[2 * j] = (uint8_t)v;
			buf[2 * j + 1] = (uint8_t)((uint16_t)v >> 8);
		} else if (c->file_type == ZCS_IMPORT_CI16) {
			buf[2 * j] = (uint8_t)r;
			buf[2 * j + 1] = (uint8_t)(r >> 8);
		} else if (c->file_type == ZCS_SAMPLE_CF32) {
			const float v = (float)((double)(r % 2100001) / 1000000.0 - 1.05);

			memcpy(buf + 4 * j, &v, 4);
		} else {
			buf[j] = (uint8_t)r;
		}
	}
	zcs_import_convert((enum zcs_import_type)c->file_type, c->file_samples, buf, c->file_pairs);
	f = fopen(c->gen_file, "wb");
	if (!f || fwrite(buf, pb, c->file_pairs, f) != c->file_pairs || fclose(f) != 0)
		return failf("cannot write %s", c->gen_file);
	free(buf);
	return c->sigmf_meta ? gen_sigmf_meta(c) : 0;
}

static void expected(const struct check *c, uint64_t n, int16_t *i, int16_t *q)
{
	if (c->file_samples) {
		const size_t j = (size_t)(n % c->file_pairs);

		*i = c->file_samples[2 * j];
		*q = c->file_samples[2 * j + 1];
	} else {
		zcs_synth_sample(&c->synth, n, i, q);
	}
}

static int check_meta(struct check *c, const struct zcs_meta *m)
{
	if (m->format != c->format)
		return failf("metadata format %u, expected %d", m->format, c->format);
	if (c->rate && m->sample_rate != c->rate)
		return failf("metadata rate %llu, expected %llu", (unsigned long long)m->sample_rate,
			     (unsigned long long)c->rate);
	if (m->next_seq != c->next_seq && !(c->allow_loss && m->next_seq > c->next_seq))
		return failf("metadata next_seq %llu, expected %llu", (unsigned long long)m->next_seq,
			     (unsigned long long)c->next_seq);
	if (m->samples_per_dgram == 0)
		return failf("metadata samples_per_dgram 0");
	if (c->zstd != !!(m->flags & ZCS_META_FLAG_ZSTD))
		return failf("metadata zstd flag %d, expected %d", !!(m->flags & ZCS_META_FLAG_ZSTD), c->zstd);
	if (c->metas && c->meta_spacing && c->rate) {
		/* at least every 500 ms of samples (the sender aims at 400 ms; paced, so samples are
		 * time), with 100 ms of slack for scheduling */
		const uint64_t gap = c->next_sample - c->last_meta_sample;

		if (gap > c->rate * 6 / 10)
			return failf("%llu samples (%.0f ms) between metadata datagrams",
				     (unsigned long long)gap, (double)gap * 1000.0 / (double)c->rate);
	}
	c->spd = m->samples_per_dgram;
	c->last_meta_sample = c->next_sample;
	c->metas++;
	return 0;
}

static int check_samples(struct check *c, const struct zcs_sample_hdr *h, const uint8_t *payload)
{
	static int16_t radio[2 * 65536];
	static uint8_t want[65536 * 4], got[65536 * 4];
	const size_t raw = (size_t)h->samples * zcs_wire_pair_bytes(h->format);
	const uint8_t *data = payload;

	if (!c->metas)
		return failf("sample datagram seq %llu before any metadata", (unsigned long long)h->seq);
	if (h->format != c->format)
		return failf("seq %llu: format %u, expected %d", (unsigned long long)h->seq, h->format, c->format);
	if (c->allow_loss && h->seq > c->next_seq) {
		/* lost datagrams: each held at least one sample and at most a full datagram's */
		const uint64_t dgrams = h->seq - c->next_seq, samples = h->first_sample - c->next_sample;

		if (h->first_sample < c->next_sample || samples < dgrams || samples > dgrams * c->spd)
			return failf("seq %llu: a gap of %llu datagrams holds %lld samples",
				     (unsigned long long)h->seq, (unsigned long long)dgrams,
				     (long long)(h->first_sample - c->next_sample));
		fprintf(stderr, "check_stream: lost seq %llu..%llu (%llu samples)\n",
			(unsigned long long)c->next_seq, (unsigned long long)h->seq - 1,
			(unsigned long long)samples);
		c->lost_dgrams += dgrams;
		c->lost_samples += samples;
		c->gaps++;
		c->next_seq = h->seq;
		c->next_sample = h->first_sample;
	}
	if (h->seq != c->next_seq)
		return failf("seq %llu, expected %llu", (unsigned long long)h->seq, (unsigned long long)c->next_seq);
	if (h->first_sample != c->next_sample)
		return failf("seq %llu: first_sample %llu, expected %llu", (unsigned long long)h->seq,
			     (unsigned long long)h->first_sample, (unsigned long long)c->next_sample);
	if (h->flags & ZCS_FLAG_DISCONT)
		return failf("seq %llu: unexpected discontinuity flag", (unsigned long long)h->seq);
	if (h->flags & ZCS_FLAG_EOS) {
		if (h->samples)
			return failf("end of stream with %u samples", h->samples);
		c->eos = true;
		return 0;
	}
	if (h->samples > c->spd)
		return failf("seq %llu: %u samples, metadata says %u a datagram",
			     (unsigned long long)h->seq, h->samples, c->spd);
	if (h->flags & ZCS_FLAG_ZSTD) {
		if (!c->zstd)
			return failf("seq %llu: compressed, but --zstd was not given", (unsigned long long)h->seq);
		if (zcs_codec_decompress(c->codec, got, sizeof(got), payload, h->payload_len) != (ssize_t)raw)
			return failf("seq %llu: zstd payload does not decode to %zu bytes",
				     (unsigned long long)h->seq, raw);
		data = got;
	}
	for (size_t j = 0; j < h->samples; j++)
		expected(c, h->first_sample + j, &radio[2 * j], &radio[2 * j + 1]);
	c->k.pack[c->format](want, radio, h->samples);
	if (memcmp(want, data, raw) != 0) {
		for (size_t b = 0; b < raw; b++)
			if (want[b] != data[b])
				return failf("seq %llu: payload byte %zu (sample %llu) is 0x%02x, expected 0x%02x",
					     (unsigned long long)h->seq, b,
					     (unsigned long long)(h->first_sample + b / zcs_wire_pair_bytes(c->format)),
					     data[b], want[b]);
	}
	c->next_seq++;
	c->next_sample += h->samples;
	c->received_samples += h->samples;
	c->datagrams++;
	return 0;
}

static int handle(struct check *c, const uint8_t *buf, size_t len)
{
	struct zcs_dgram d;
	const int ret = zcs_proto_parse(buf, len, &d);
	uint32_t id;

	if (ret < 0)
		return failf("bad datagram (%zu bytes): %s", len, zcs_proto_err_name(-ret));
	id = d.type == ZCS_DGRAM_META ? d.meta.stream_id : d.hdr.stream_id;
	if (c->eos)
		return failf("datagram after the end of stream");
	if (!c->have_stream) {
		c->have_stream = true;
		c->stream_id = id;
	} else if (id != c->stream_id) {
		return failf("stream id changed from %08x to %08x", c->stream_id, id);
	}
	if (d.type == ZCS_DGRAM_META)
		return check_meta(c, &d.meta);
	return check_samples(c, &d.hdr, d.payload);
}

static int open_socket(const struct check *c)
{
	const int fd = socket(c->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	const int big = 64 << 20;

	if (fd < 0)
		return -1;
	/* as root the buffer may exceed rmem_max: the checker may fall behind an unpaced sender */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (c->ipv6) {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)c->port),
					  .sin6_addr = IN6ADDR_LOOPBACK_INIT };

		if ((c->bind_addr && inet_pton(AF_INET6, c->bind_addr, &a.sin6_addr) != 1) ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
	} else {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)c->port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		if ((c->bind_addr && inet_pton(AF_INET, c->bind_addr, &a.sin_addr) != 1) ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
	}
	return fd;
}

static pid_t spawn(const struct check *c, char **argv, int *out_fd)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (c->stdin_file) {
			const int in = open(c->stdin_file, O_RDONLY);

			if (in < 0 || dup2(in, STDIN_FILENO) < 0)
				_exit(126);
		}
		/* --json goes to standard error, with every other line of the sender's */
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	*out_fd = pfd[0];
	return pid;
}

/* An unsigned number of the summary object, or -1 when the key is missing. */
static long long json_u64(const char *s, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(s, k);
	return p ? (long long)strtoull(p + strlen(k), NULL, 10) : -1;
}

/* The summary JSON line of zcs-send --json: its samples and send path must agree. */
static int check_summary(const struct check *c, const char *out)
{
	const char *s = strstr(out, "\"type\":\"summary\"");
	const char *p;
	char want[64];

	if (!s)
		return failf("no JSON summary on the sender's standard error");
	p = strstr(s, "\"samples\":");
	if (!p || strtoull(p + 10, NULL, 10) != c->received_samples)
		return failf("summary samples %s, received %llu", p ? p + 10 : "(none)",
			     (unsigned long long)c->received_samples);
	/* what the sender gave up is exactly what did not arrive (without --allow-loss: nothing) */
	if (json_u64(s, "dropped_datagrams") != (long long)c->lost_dgrams ||
	    json_u64(s, "dropped_samples") != (long long)c->lost_samples)
		return failf("sender dropped %lld datagrams (%lld samples), %llu (%llu) did not arrive",
			     json_u64(s, "dropped_datagrams"), json_u64(s, "dropped_samples"),
			     (unsigned long long)c->lost_dgrams, (unsigned long long)c->lost_samples);
	if (c->expect_final) {
		snprintf(want, sizeof(want), "\"send_path\":\"%s\"", c->expect_final);
		if (!strstr(s, want))
			return failf("summary send path is not %s at the end: %.300s", c->expect_final, s);
	}
	if (c->expect_demotions >= 0 && json_u64(s, "demotions") != c->expect_demotions)
		return failf("demotions %lld, expected %d", json_u64(s, "demotions"),
			     c->expect_demotions);
	if (!strstr(s, "\"datagrams\":") || !strstr(s, "\"bytes\":"))
		return failf("summary lacks datagrams or bytes");
	if (c->expect_path) {
		snprintf(want, sizeof(want), "\"send_path\":\"%s\"", c->expect_path);
		if (!strstr(s, want))
			return failf("summary send path is not %s: %.300s", c->expect_path, s);
		if (!strstr(s, "\"demotions\":0,"))
			return failf("the send path was demoted: %.300s", s);
		if (strstr(c->expect_path, "zc")) {
			/* every zero-copy send completed before the sender exited */
			const char *zs = strstr(s, "\"zc_sends\":"), *zc = strstr(s, "\"zc_completions\":");
			const unsigned long long sends = zs ? strtoull(zs + 11, NULL, 10) : 0;
			const unsigned long long done = zc ? strtoull(zc + 17, NULL, 10) : 0;

			if (sends == 0 || sends != done)
				return failf("zero-copy sends %llu, completions %llu", sends, done);
		}
	}
	return 0;
}

static int run(struct check *c, char **argv)
{
	static uint8_t buf[70000];
	static char out[1 << 16];
	size_t out_len = 0;
	const time_t deadline = time(NULL) + c->timeout_s;
	int fd, out_fd = -1, status = 0, ret = -1;
	bool signalled = false, out_eof = false;
	pid_t pid;

	fd = open_socket(c);
	if (fd < 0)
		return failf("cannot bind port %d: %s", c->port, strerror(errno));
	pid = spawn(c, argv, &out_fd);
	if (pid < 0)
		return failf("cannot start %s", argv[0]);
	while (!c->eos || !out_eof) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = out_fd, .events = POLLIN } };

		if (time(NULL) > deadline) {
			failf("timeout after %d s (%llu samples, eos %d)", c->timeout_s,
			      (unsigned long long)c->next_sample, c->eos);
			goto out;
		}
		if (poll(p, out_eof ? 1 : 2, 200) < 0 && errno != EINTR)
			goto out;
		if (p[0].revents & POLLIN) {
			const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n >= 0 && handle(c, buf, (size_t)n) < 0)
				goto out;
		}
		if (!out_eof && (p[1].revents & (POLLIN | POLLHUP))) {
			const ssize_t n = read(out_fd, out + out_len, sizeof(out) - 1 - out_len);

			if (n <= 0) {
				out_eof = true;
			} else {
				/* the test's log shows what the sender said, as if not captured */
				fwrite(out + out_len, 1, (size_t)n, stderr);
				out_len += (size_t)n;
			}
			if (out_len == sizeof(out) - 1) /* keep the tail, where the summary is */
				out_len = 0;
		}
		if (c->exec_cmd && !c->executed && c->received_samples >= c->exec_after) {
			const int st = system(c->exec_cmd);

			c->executed = true;
			fprintf(stderr, "check_stream: after %llu samples ran: %s\n",
				(unsigned long long)c->received_samples, c->exec_cmd);
			if (st != 0) {
				failf("command failed (status %d): %s", st, c->exec_cmd);
				goto out;
			}
		}
		if (c->sigint_after && !signalled && c->next_sample >= c->sigint_after) {
			kill(pid, SIGINT);
			signalled = true;
		}
	}
	out[out_len] = '\0';
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		failf("sender exit status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		pid = -1;
		goto out;
	}
	pid = -1;
	if (c->count && c->next_sample != c->count) {
		failf("received %llu samples, expected %llu", (unsigned long long)c->next_sample,
		      (unsigned long long)c->count);
		goto out;
	}
	if (c->sigint_after && !signalled) {
		failf("stream ended before the interrupt was sent");
		goto out;
	}
	if (c->exec_cmd && !c->executed) {
		failf("stream ended before the command ran");
		goto out;
	}
	if (check_summary(c, out) < 0)
		goto out;
	printf("check_stream: ok: %llu samples, %llu datagrams, %llu metadata; lost %llu datagrams "
	       "(%llu samples) in %llu gaps, all counted as dropped by the sender\n",
	       (unsigned long long)c->received_samples, (unsigned long long)c->datagrams,
	       (unsigned long long)c->metas, (unsigned long long)c->lost_dgrams,
	       (unsigned long long)c->lost_samples, (unsigned long long)c->gaps);
	ret = 0;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(fd);
	if (out_fd >= 0)
		close(out_fd);
	return ret;
}

static void usage(void)
{
	fputs("usage: check_stream --port N [--ipv6] --format F --source tone|noise|file [--rate R]\n"
	      "  [--tone HZ] [--amplitude A] [--noise] [--seed S] [--count N] [--zstd]\n"
	      "  [--expect-path P] [--sigint-after N] [--meta-spacing] [--timeout S]\n"
	      "  [--gen-file PATH --file-type T --file-pairs N [--sigmf-meta]] [--stdin PATH]\n"
	      "  [--bind ADDR] [--allow-loss] [--exec-after N --exec CMD]\n"
	      "  [--expect-final-path P] [--expect-demotions N]\n"
	      "  -- ZCS-SEND ARGS...\n",
	      stderr);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", 1, NULL, 'p' }, { "ipv6", 0, NULL, '6' }, { "format", 1, NULL, 'f' },
		{ "source", 1, NULL, 's' }, { "rate", 1, NULL, 'r' }, { "tone", 1, NULL, 't' },
		{ "amplitude", 1, NULL, 'a' }, { "noise", 0, NULL, 'N' }, { "seed", 1, NULL, 'S' },
		{ "count", 1, NULL, 'n' }, { "zstd", 0, NULL, 'z' }, { "expect-path", 1, NULL, 'P' },
		{ "sigint-after", 1, NULL, 'i' }, { "meta-spacing", 0, NULL, 'm' },
		{ "timeout", 1, NULL, 'T' }, { "gen-file", 1, NULL, 'g' }, { "file-type", 1, NULL, 'y' },
		{ "file-pairs", 1, NULL, 'k' }, { "stdin", 1, NULL, 'I' },
		{ "sigmf-meta", 0, NULL, 'M' }, { "bind", 1, NULL, 'B' },
		{ "allow-loss", 0, NULL, 'L' }, { "exec-after", 1, NULL, 'x' },
		{ "exec", 1, NULL, 'X' }, { "expect-final-path", 1, NULL, 'F' },
		{ "expect-demotions", 1, NULL, 'D' }, { NULL, 0, NULL, 0 },
	};
	struct check c = { .format = ZCS_WIRE_P12, .source = "tone", .rate = 1000000,
			   .amplitude = 0.5, .seed = 1, .timeout_s = 30, .file_type = ZCS_SAMPLE_CS16,
			   .file_pairs = 10000, .expect_demotions = -1 };
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p': c.port = atoi(optarg); break;
		case '6': c.ipv6 = true; break;
		case 'f': c.format = zcs_wire_from_name(optarg); break;
		case 's': c.source = optarg; break;
		case 'r': c.rate = strtoull(optarg, NULL, 10); break;
		case 't': c.tone_hz = atof(optarg); c.tone_given = true; break;
		case 'a': c.amplitude = atof(optarg); break;
		case 'N': c.noise = true; break;
		case 'S': c.seed = strtoull(optarg, NULL, 10); break;
		case 'n': c.count = strtoull(optarg, NULL, 10); break;
		case 'z': c.zstd = true; break;
		case 'P': c.expect_path = optarg; break;
		case 'i': c.sigint_after = strtoull(optarg, NULL, 10); break;
		case 'm': c.meta_spacing = true; break;
		case 'T': c.timeout_s = atoi(optarg); break;
		case 'g': c.gen_file = optarg; break;
		case 'y': c.file_type = zcs_import_from_name(optarg); break;
		case 'M': c.sigmf_meta = true; break;
		case 'k': c.file_pairs = strtoull(optarg, NULL, 10); break;
		case 'I': c.stdin_file = optarg; break;
		case 'B': c.bind_addr = optarg; break;
		case 'L': c.allow_loss = true; break;
		case 'x': c.exec_after = strtoull(optarg, NULL, 10); break;
		case 'X': c.exec_cmd = optarg; break;
		case 'F': c.expect_final = optarg; break;
		case 'D': c.expect_demotions = atoi(optarg); break;
		default: usage(); return 2;
		}
	}
	if (optind >= argc || c.port <= 0 || c.format < 0 || c.file_type < 0) {
		usage();
		return 2;
	}
	if (zcs_kernels_init(&c.k, ZCS_ISA_SCALAR) < 0 || (c.zstd && zcs_codec_create(&c.codec, 3, ZCS_CODEC_DECODE) < 0))
		return failf("set-up"), 1;
	if (strcmp(c.source, "file") == 0) {
		if (!c.gen_file || gen_file(&c) < 0)
			return failf("--source file needs --gen-file"), 1;
	} else {
		/* the sender's default tone is rate/10 */
		zcs_synth_init(&c.synth, strcmp(c.source, "noise") != 0,
			       strcmp(c.source, "noise") == 0 || c.noise,
			       c.tone_given ? c.tone_hz : (double)c.rate / 10.0, c.rate, c.amplitude, c.seed);
	}
	signal(SIGPIPE, SIG_IGN);
	const int ret = run(&c, argv + optind) < 0 ? 1 : 0;

	free(c.file_samples);
	if (c.codec)
		zcs_codec_destroy(c.codec);
	return ret;
}
