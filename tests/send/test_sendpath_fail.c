// SPDX-License-Identifier: MIT
/* Makes zcs-send's send paths fail for real, in a private network namespace, and checks that every
 * train is sent exactly once, in order, or counted as dropped, and that every slot comes back once:
 * io_uring refusing submissions (its ring fd replaced), GSO refused (SO_NO_CHECK), sends dropped by
 * a netfilter rule (EPERM), no slower path left (UDP_SEGMENT's setsockopt refused: this program
 * is linked with --wrap=setsockopt), a demotion while the kernel still holds zero-copy trains
 * (a slow tbf queue on the loopback device), a small datagram refused for want of room (send is
 * wrapped to fail with ENOBUFS, poll to count the waits). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "compat.h"
#include "proto.h"
#include "sendpath_impl.h"
#include "train.h"
#include "zcs_config.h"

#define PORT 20550
#define SEG 1472
#define SLOTS 16
#define TRAINS 240
#define FAULT_AT 100
/* real sample datagrams, i16: a 32-byte header and 360 pairs */
#define SPD ((SEG - ZCS_PROTO_SAMPLE_HDR_SIZE) / 4)
/* the datagram of train FAULT_AT that FAULT_DROP_ONE drops */
#define DROP_AT 20

/* Set: setsockopt(UDP_SEGMENT) fails with EPERM, so no path can be set up any more. */
static bool refuse_udp_segment;

int __real_setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int __wrap_setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int __wrap_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (refuse_udp_segment && level == SOL_UDP && name == UDP_SEGMENT) {
		errno = EPERM;
		return -1;
	}
	return __real_setsockopt(fd, level, name, val, len);
}

/* While > 0: send() fails with ENOBUFS (counted down).  While count_polls: poll() calls are
 * counted in polls. */
static int refuse_sends, refused_sends;
static bool count_polls;
static int polls;

ssize_t __real_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags);
ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	if (refuse_sends > 0) {
		refuse_sends--;
		refused_sends++;
		errno = ENOBUFS;
		return -1;
	}
	return __real_send(fd, buf, len, flags);
}

int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (count_polls)
		polls++;
	return __real_poll(fds, n, timeout);
}

/* Counts a failed condition in the caller's `failures`. */
#define CHECK(cond, ...)                                                                        \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			printf("FAIL: " __VA_ARGS__);                                           \
			printf("\n");                                                           \
			failures++;                                                             \
		}                                                                               \
	} while (0)

enum fault { FAULT_RING, FAULT_NOCHECK, FAULT_DROP, FAULT_DROP_ONE };

struct harness {
	struct zcs_train_pool pool;
	struct zcs_sendpath *sp;
	bool out[SLOTS];            /* slot handed to the send path, not yet done */
	bool refill;                /* done() overwrites the slot, as the source's refill would */
	struct zcs_train *free[SLOTS];
	size_t nfree;
	uint64_t double_done;
	int tx, rx;
	uint64_t expect, got, lost, misordered, corrupt;
	char log[1024];
};

static void done(void *ctx, struct zcs_train *t)
{
	struct harness *const h = ctx;

	if (!h->out[t->index]) {
		h->double_done++;
		return;
	}
	h->out[t->index] = false;
	h->free[h->nfree++] = t;
	if (h->refill)
		memset(t->buf, 0xee, t->count * SEG);
}

static void receive(struct harness *h, int timeout_ms)
{
	uint8_t buf[2048];

	for (;;) {
		struct pollfd p = { .fd = h->rx, .events = POLLIN };
		struct zcs_dgram d;
		uint64_t seq;
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			return;
		n = recv(h->rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 || zcs_proto_parse(buf, (size_t)n, &d) < 0) {
			h->corrupt++; /* not a datagram as sent: counted as a failure */
			continue;
		}
		if (d.type == ZCS_DGRAM_META) {
			h->misordered++; /* not one of ours: counted as a failure */
			continue;
		}
		seq = d.hdr.seq;
		/* fill() wrote the sequence number's low byte over the samples */
		if (n != SEG || buf[ZCS_PROTO_SAMPLE_HDR_SIZE] != (uint8_t)seq ||
		    buf[SEG - 1] != (uint8_t)seq)
			h->corrupt++;
		if (seq < h->expect) {
			h->misordered++; /* a duplicate or a datagram overtaken */
			continue;
		}
		h->lost += seq - h->expect;
		h->expect = seq + 1;
		h->got++;
	}
}

static int sockets(struct harness *h)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const int big = 64 << 20;

	h->rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	h->tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (h->rx < 0 || h->tx < 0)
		return -1;
	setsockopt(h->rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (bind(h->rx, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    connect(h->tx, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	return 0;
}

/* The io_uring instance's fd: replaced by /dev/null, every io_uring_enter on it fails. */
static int break_ring(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	while (d && (e = readdir(d))) {
		char path[300], target[64];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0 && (target[n] = '\0', strcmp(target, "anon_inode:[io_uring]") == 0))
			fd = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	if (fd >= 0) {
		const int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null < 0 || dup2(null, fd) < 0)
			fd = -1;
		close(null);
	}
	return fd;
}

/* The send path's log sink: printed, and kept for the checks. */
static void note(void *ctx, const char *line)
{
	struct harness *const h = ctx;

	printf("  log: %s\n", line);
	snprintf(h->log + strlen(h->log), sizeof(h->log) - strlen(h->log), "%s\n", line);
}

static int open_path(struct harness *h, int path, char *err, size_t errlen)
{
	const struct zcs_sendpath_config c = {
		.fd = h->tx, .want = path, .pool = &h->pool, .done = done, .ctx = h,
		.log = { note, h },
	};

	return zcs_sendpath_open(&h->sp, &c, err, errlen);
}

/* Fills train t with real sample datagrams from sequence number *seq on. */
static void fill(struct harness *h, struct zcs_train *t, uint64_t *seq)
{
	t->count = h->pool.max_dgrams;
	t->bytes = t->count * SEG;
	t->variable = false;
	t->first_seq = *seq;
	t->first_sample = *seq * SPD;
	t->samples = t->count * SPD;
	t->spd = SPD;
	for (size_t k = 0; k < t->count; k++, (*seq)++) {
		uint8_t *const d = t->buf + k * SEG;
		const struct zcs_sample_hdr hdr = {
			.stream_id = 1, .seq = *seq, .first_sample = *seq * SPD, .samples = SPD,
			.payload_len = SPD * 4, .format = ZCS_WIRE_I16,
		};

		zcs_proto_write_sample_hdr(d, &hdr);
		memset(d + ZCS_PROTO_SAMPLE_HDR_SIZE, (int)(*seq & 0xff), SPD * 4);
		t->lens[k] = SEG;
	}
}

static int run(int path, enum fault fault, int want_path, uint64_t want_dropped,
	       uint64_t want_dgrams)
{
	static const char *const fault_name[] = { "io_uring submissions refused",
						  "GSO refused (SO_NO_CHECK)",
						  "one train dropped by netfilter (EPERM)",
						  "one datagram mid-train refused by netfilter (EPERM)" };
	struct harness h = { .tx = -1, .rx = -1 };
	char err[256] = "";
	uint64_t seq = 0;
	int failures = 0, ret;

	printf("%s, %s:\n", zcs_path_name(path), fault_name[fault]);
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0) {
		printf("FAIL: set-up: %s\n", strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < SLOTS; i++)
		h.free[h.nfree++] = &h.pool.trains[SLOTS - 1 - i];
	ret = open_path(&h, path, err, sizeof(err));
	if (ret < 0) {
		printf("FAIL: %s: %s\n", zcs_path_name(path), err);
		return 1;
	}
	for (int i = 0; i < TRAINS; i++) {
		struct zcs_train *t;

		for (const uint64_t limit = zcs_mono_ns() + 5 * ZCS_NS_PER_SEC; !h.nfree;) {
			if (zcs_mono_ns() > limit)
				return printf("FAIL: train %d: no slot came back in 5 s (inflight %zu, "
					      "due %zu)\n", i, h.sp->inflight, h.sp->ndue), 1;
			/* as the pipeline does before it waits: failed sends are settled */
			if ((ret = zcs_sendpath_flush(h.sp)) < 0)
				return printf("FAIL: flush: %s\n", strerror(-ret)), 1;
			zcs_sendpath_wait(h.sp, -1, 10);
			zcs_sendpath_reap(h.sp);
		}
		t = h.free[--h.nfree];
		h.out[t->index] = true;
		fill(&h, t, &seq);
		if (i == FAULT_AT && fault == FAULT_NOCHECK) {
			const int one = 1;

			if (setsockopt(h.tx, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
				return printf("FAIL: SO_NO_CHECK: %s\n", strerror(errno)), 1;
		}
		if (i == FAULT_AT && (fault == FAULT_DROP || fault == FAULT_DROP_ONE)) {
			/* the sequence number is bytes 8..15 of the header (16.. of the UDP header), LE */
			const uint64_t s = t->first_seq + DROP_AT;
			char cmd[512], match[64] = "";

			if (fault == FAULT_DROP_ONE)
				snprintf(match, sizeof(match), "@th,128,16 0x%02x%02x",
					 (unsigned)(s & 0xff), (unsigned)(s >> 8 & 0xff));
			snprintf(cmd, sizeof(cmd),
				 "nft add table ip zcsfail && nft add chain ip zcsfail out "
				 "'{ type filter hook output priority 0; }' && "
				 "nft add rule ip zcsfail out udp dport 20550 %s drop", match);
			/* nothing queued may meet the rule but this train */
			zcs_sendpath_flush(h.sp);
			if (system(cmd) != 0)
				return printf("FAIL: %s\n", cmd), 1;
		}
		ret = zcs_sendpath_send(h.sp, t);
		if (ret < 0)
			return printf("FAIL: train %d: send: %s\n", i, strerror(-ret)), 1;
		if (i == FAULT_AT && (fault == FAULT_DROP || fault == FAULT_DROP_ONE)) {
			zcs_sendpath_flush(h.sp);
			if (system("nft delete table ip zcsfail") != 0)
				return printf("FAIL: nft delete\n"), 1;
		}
		/* after a few sends of a batch are queued, so some are taken back unsubmitted */
		if (i == FAULT_AT + 3 && fault == FAULT_RING && break_ring() < 0)
			return printf("FAIL: no io_uring fd to break\n"), 1;
		receive(&h, 0);
	}
	ret = zcs_sendpath_flush(h.sp);
	if (ret < 0)
		return printf("FAIL: flush: %s\n", strerror(-ret)), 1;
	zcs_sendpath_drain(h.sp, zcs_mono_ns() + 2 * ZCS_NS_PER_SEC);
	receive(&h, 300);

	printf("  received %llu of %llu datagrams, lost %llu, misordered %llu; send errors %llu, "
	       "retries %llu, demotions %llu, dropped %llu trains (%llu datagrams), path %s\n",
	       (unsigned long long)h.got, (unsigned long long)seq, (unsigned long long)h.lost,
	       (unsigned long long)h.misordered, (unsigned long long)h.sp->st.send_errors,
	       (unsigned long long)h.sp->st.retries, (unsigned long long)h.sp->st.demotions,
	       (unsigned long long)h.sp->st.dropped_trains,
	       (unsigned long long)h.sp->st.dropped_dgrams, zcs_path_name(h.sp->kind));
	CHECK(h.misordered == 0, "%llu datagrams duplicated or out of order",
	      (unsigned long long)h.misordered);
	CHECK(h.corrupt == 0, "%llu datagrams not as sent", (unsigned long long)h.corrupt);
	CHECK(h.expect == seq || h.lost + h.got == seq, "the stream ends at %llu, not %llu",
	      (unsigned long long)h.expect, (unsigned long long)seq);
	CHECK(h.got + h.lost == seq, "received %llu + lost %llu != sent %llu",
	      (unsigned long long)h.got, (unsigned long long)h.lost, (unsigned long long)seq);
	CHECK(h.lost == h.sp->st.dropped_dgrams, "lost %llu datagrams, the sender dropped %llu",
	      (unsigned long long)h.lost, (unsigned long long)h.sp->st.dropped_dgrams);
	CHECK(h.sp->st.dropped_trains == want_dropped, "dropped %llu trains, expected %llu",
	      (unsigned long long)h.sp->st.dropped_trains, (unsigned long long)want_dropped);
	CHECK(h.sp->st.dropped_dgrams == want_dgrams, "dropped %llu datagrams, expected %llu",
	      (unsigned long long)h.sp->st.dropped_dgrams, (unsigned long long)want_dgrams);
	CHECK(h.sp->st.dropped_samples == want_dgrams * SPD, "dropped samples %llu",
	      (unsigned long long)h.sp->st.dropped_samples);
	CHECK(h.sp->kind == want_path, "path %s at the end, expected %s", zcs_path_name(h.sp->kind),
	      zcs_path_name(want_path));
	CHECK(h.sp->st.demotions == (want_path != path), "demotions %llu",
	      (unsigned long long)h.sp->st.demotions);
	CHECK(h.sp->st.send_errors >= 1, "no send error counted");
	CHECK(h.double_done == 0, "%llu slots handed back twice", (unsigned long long)h.double_done);
	CHECK(h.nfree == SLOTS, "%zu of %d slots came back (inflight %zu, due %zu)",
	      h.nfree, SLOTS, h.sp->inflight, h.sp->ndue);
	if (want_path != path) {
		char want[96];

		snprintf(want, sizeof(want), "send path: %s failed (", zcs_path_name(path));
		CHECK(strstr(h.log, want) != NULL, "no log line \"%s...\"", want);
		snprintf(want, sizeof(want), "now %s", zcs_path_name(want_path));
		CHECK(strstr(h.log, want) != NULL, "no log line \"...%s\"", want);
	}
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}

/* Trains sent while the kernel holds the earlier ones: they queue behind them in tbf */
#define HELD 12
#define AFTER 4

/* Regression (issue 33 defect 1, a demotion handed back trains the kernel was still sending): a
 * tbf queue on the loopback device sends 3 Mbit/s, so the HELD zero-copy trains sent first wait
 * there about 2 s, their pages referenced, their notifications not yet due; then GSO is refused
 * (SO_NO_CHECK) and the path demotes to plain.  The demotion waited 1 s, ended the ring, and handed
 * every slot back at once; the source refilled them (done() here overwrites the slot) while tbf
 * still held their pages, and the receiver got the new bytes.  Every slot must come back only with
 * its notification, and every datagram arrive as it was sent.  The checks hold however slow the
 * machine: only the old code's failure needs the queue to outlast its 1 s. */
static int run_held(int path)
{
	struct harness h = { .tx = -1, .rx = -1, .refill = true };
	char err[256] = "";
	const int one = 1, big = 64 << 20;
	uint64_t seq = 0;
	int failures = 0, r;

	printf("%s, a demotion while %d trains wait in a slow queue (tbf):\n", zcs_path_name(path),
	       HELD);
	if (system("tc qdisc replace dev lo root tbf rate 3mbit burst 100kb limit 64mb") != 0)
		return printf("FAIL: tc qdisc replace dev lo root tbf\n"), 1;
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0)
		return printf("FAIL: set-up: %s\n", strerror(errno)), 1;
	/* every train queued at once: the send buffer must not be what holds them back */
	setsockopt(h.tx, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	for (size_t i = 0; i < SLOTS; i++)
		h.free[h.nfree++] = &h.pool.trains[SLOTS - 1 - i];
	if (open_path(&h, path, err, sizeof(err)) < 0)
		return printf("FAIL: %s: %s\n", zcs_path_name(path), err), 1;
	for (int i = 0; i < HELD + AFTER; i++) {
		struct zcs_train *t;

		while (!h.nfree) {
			if ((r = zcs_sendpath_flush(h.sp)) < 0)
				return printf("FAIL: flush: %s\n", strerror(-r)), 1;
			zcs_sendpath_wait(h.sp, -1, 10);
		}
		if (i == HELD) {
			/* the HELD trains are with the kernel (sent, not completed): now the fault */
			zcs_sendpath_flush(h.sp);
			if (setsockopt(h.tx, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
				return printf("FAIL: SO_NO_CHECK: %s\n", strerror(errno)), 1;
		}
		t = h.free[--h.nfree];
		h.out[t->index] = true;
		fill(&h, t, &seq);
		if ((r = zcs_sendpath_send(h.sp, t)) < 0)
			return printf("FAIL: train %d: send: %s\n", i, strerror(-r)), 1;
	}
	if ((r = zcs_sendpath_flush(h.sp)) < 0)
		return printf("FAIL: flush: %s\n", strerror(-r)), 1;
	zcs_sendpath_drain(h.sp, zcs_mono_ns() + 30 * ZCS_NS_PER_SEC);
	receive(&h, 1000);
	if (system("tc qdisc del dev lo root") != 0)
		return printf("FAIL: tc qdisc del dev lo root\n"), 1;
	printf("  received %llu of %llu datagrams, %llu with bytes they were not sent with, lost "
	       "%llu, misordered %llu; demotions %llu, path %s\n", (unsigned long long)h.got,
	       (unsigned long long)seq, (unsigned long long)h.corrupt, (unsigned long long)h.lost,
	       (unsigned long long)h.misordered, (unsigned long long)h.sp->st.demotions,
	       zcs_path_name(h.sp->kind));
	CHECK(h.corrupt == 0, "%llu datagrams left with another train's bytes: a slot came back "
	      "before the kernel was done with it", (unsigned long long)h.corrupt);
	CHECK(h.got == seq && h.lost == 0 && h.misordered == 0, "received %llu of %llu, lost %llu, "
	      "misordered %llu", (unsigned long long)h.got, (unsigned long long)seq,
	      (unsigned long long)h.lost, (unsigned long long)h.misordered);
	CHECK(h.sp->kind == ZCS_PATH_PLAIN && h.sp->st.demotions == 1, "path %s after %llu "
	      "demotions", zcs_path_name(h.sp->kind), (unsigned long long)h.sp->st.demotions);
	CHECK(h.double_done == 0 && h.nfree == SLOTS, "%zu of %d slots came back, %llu twice",
	      h.nfree, SLOTS, (unsigned long long)h.double_done);
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}

/* Regression (#16, a NIC without checksum offload loses the stream's first 0.4 s): with
 * UDP_SEGMENT set even one small datagram goes the GSO way, so the stream's first metadata was
 * the first send to fail, and it was not sent again.  A metadata and an end-of-stream datagram
 * refused by GSO (SO_NO_CHECK makes it refuse) must demote the path and go out on plain. */
static int run_small(int path)
{
	struct harness h = { .tx = -1, .rx = -1 };
	char err[256] = "";
	uint8_t meta[ZCS_PROTO_META_SIZE], eos[ZCS_PROTO_SAMPLE_HDR_SIZE], buf[2048];
	const struct zcs_meta m = { .stream_id = 1, .meta_version = 1, .sample_rate = 1000000,
				    .format = ZCS_WIRE_I16, .samples_per_dgram = SPD };
	const struct zcs_sample_hdr e = { .stream_id = 1, .seq = 7, .format = ZCS_WIRE_I16,
					  .flags = ZCS_FLAG_EOS };
	const int one = 1;
	int failures = 0, r1, r2, got_meta = 0, got_eos = 0;
	size_t mlen;

	printf("%s, metadata and end of stream refused by GSO (SO_NO_CHECK):\n", zcs_path_name(path));
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0)
		return printf("FAIL: set-up: %s\n", strerror(errno)), 1;
	if (open_path(&h, path, err, sizeof(err)) < 0)
		return printf("FAIL: %s: %s\n", zcs_path_name(path), err), 1;
	if (setsockopt(h.tx, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
		return printf("FAIL: SO_NO_CHECK: %s\n", strerror(errno)), 1;
	mlen = zcs_proto_write_meta(meta, &m);
	zcs_proto_write_sample_hdr(eos, &e);
	r1 = zcs_sendpath_send_small(h.sp, meta, mlen);
	r2 = zcs_sendpath_send_small(h.sp, eos, sizeof(eos));
	for (;;) {
		struct pollfd p = { .fd = h.rx, .events = POLLIN };
		struct zcs_dgram d;
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0)
			break;
		n = recv(h.rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && zcs_proto_parse(buf, (size_t)n, &d) >= 0) {
			got_meta += d.type == ZCS_DGRAM_META;
			got_eos += d.type != ZCS_DGRAM_META && (d.hdr.flags & ZCS_FLAG_EOS);
		}
		if (got_meta && got_eos)
			break;
	}
	printf("  send_small: %d then %d; received %d metadata, %d end of stream; send errors %llu, "
	       "demotions %llu, path %s\n", r1, r2, got_meta, got_eos,
	       (unsigned long long)h.sp->st.send_errors, (unsigned long long)h.sp->st.demotions,
	       zcs_path_name(h.sp->kind));
	CHECK(r1 == (path != ZCS_PATH_PLAIN), "metadata send returned %d", r1);
	CHECK(r2 == 0, "end-of-stream send returned %d", r2);
	CHECK(got_meta == 1 && got_eos == 1, "the receiver got %d metadata, %d end of stream",
	      got_meta, got_eos);
	CHECK(h.sp->kind == ZCS_PATH_PLAIN, "path %s, not plain", zcs_path_name(h.sp->kind));
	CHECK(h.sp->st.demotions == (path != ZCS_PATH_PLAIN), "demotions %llu",
	      (unsigned long long)h.sp->st.demotions);
	CHECK(h.sp->st.send_errors == (path != ZCS_PATH_PLAIN), "send errors %llu",
	      (unsigned long long)h.sp->st.send_errors);
	if (path != ZCS_PATH_PLAIN)
		CHECK(strstr(h.log, "now plain") != NULL, "no log line naming the demotion");
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}

/* Regression (issue 33 defect 5): send_small met ENOBUFS (a full device queue) by sending again at
 * once, up to 8 times with no wait, then returned -EIO, not what it met.  A datagram refused 3
 * times must go out after a wait before each new try; one refused every time must come back with
 * -ENOBUFS after a bounded number of tries, each after a wait. */
static int run_small_no_room(int path)
{
	struct harness h = { .tx = -1, .rx = -1 };
	char err[256] = "";
	uint8_t meta[ZCS_PROTO_META_SIZE], buf[2048];
	const struct zcs_meta m = { .stream_id = 1, .meta_version = 1, .sample_rate = 1000000,
				    .format = ZCS_WIRE_I16, .samples_per_dgram = SPD };
	const size_t mlen = zcs_proto_write_meta(meta, &m);
	struct pollfd p = { .events = POLLIN };
	int failures = 0, r1, r2, waits1, tries2, waits2, got = 0;

	printf("%s, metadata refused with ENOBUFS 3 times, then every time:\n", zcs_path_name(path));
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0)
		return printf("FAIL: set-up: %s\n", strerror(errno)), 1;
	if (open_path(&h, path, err, sizeof(err)) < 0)
		return printf("FAIL: %s: %s\n", zcs_path_name(path), err), 1;
	count_polls = true;
	refused_sends = polls = 0;
	refuse_sends = 3;
	r1 = zcs_sendpath_send_small(h.sp, meta, mlen);
	waits1 = polls;
	refuse_sends = 1000;
	refused_sends = polls = 0;
	r2 = zcs_sendpath_send_small(h.sp, meta, mlen);
	tries2 = refused_sends;
	waits2 = polls;
	refuse_sends = 0;
	count_polls = false;
	p.fd = h.rx;
	while (poll(&p, 1, 300) > 0 && recv(h.rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		got++;
	printf("  3 refusals: returned %d after %d waits, %d datagram(s) received; every one "
	       "refused: returned %d (%s) after %d tries and %d waits; retries %llu\n", r1, waits1,
	       got, r2, r2 < 0 ? strerror(-r2) : "sent", tries2, waits2,
	       (unsigned long long)h.sp->st.retries);
	CHECK(r1 == 0 && got == 1, "refused 3 times: returned %d, %d received", r1, got);
	CHECK(waits1 >= 3, "refused 3 times: %d waits, not one before each new try", waits1);
	CHECK(r2 == -ENOBUFS, "refused every time: returned %d, not -ENOBUFS", r2);
	CHECK(tries2 >= 2 && tries2 <= 16, "refused every time: %d tries", tries2);
	CHECK(waits2 >= tries2 - 1, "refused every time: %d waits for %d tries", waits2, tries2);
	CHECK(h.sp->kind == path, "path %s, not %s: a full queue is no reason to demote",
	      zcs_path_name(h.sp->kind), zcs_path_name(path));
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}

#if ZCS_HAVE_URING /* the regression is io_uring's: the test exists where the path does */
/* Regression (#23, send_small ignored the io_uring submission's result): trains queued on
 * io_uring, then the ring refuses the submission, then a metadata datagram.  The queued trains
 * were taken back to be sent later and the metadata went out at once, ahead of them, reported as
 * sent.  Every one of them must reach the receiver before the metadata. */
static int run_small_after_trains(void)
{
	struct harness h = { .tx = -1, .rx = -1 };
	char err[256] = "";
	uint8_t meta[ZCS_PROTO_META_SIZE], buf[2048];
	struct zcs_meta m = { .stream_id = 1, .meta_version = 1, .sample_rate = 1000000,
			      .format = ZCS_WIRE_I16, .samples_per_dgram = SPD };
	uint64_t seq = 0, before_meta = 0, after_meta = 0;
	int failures = 0, r, got_meta = 0;

	printf("uring-zc, three trains queued, the ring broken, then metadata:\n");
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0)
		return printf("FAIL: set-up: %s\n", strerror(errno)), 1;
	for (size_t i = 0; i < SLOTS; i++)
		h.free[h.nfree++] = &h.pool.trains[SLOTS - 1 - i];
	if (open_path(&h, ZCS_PATH_URING_ZC, err, sizeof(err)) < 0)
		return printf("FAIL: uring-zc: %s\n", err), 1;
	/* fewer than a batch: queued, not submitted */
	for (int i = 0; i < 3; i++) {
		struct zcs_train *const t = h.free[--h.nfree];

		h.out[t->index] = true;
		fill(&h, t, &seq);
		if ((r = zcs_sendpath_send(h.sp, t)) < 0)
			return printf("FAIL: train %d: send: %s\n", i, strerror(-r)), 1;
	}
	if (break_ring() < 0)
		return printf("FAIL: no io_uring fd to break\n"), 1;
	m.next_seq = seq;
	r = zcs_sendpath_send_small(h.sp, meta, zcs_proto_write_meta(meta, &m));
	zcs_sendpath_flush(h.sp);
	zcs_sendpath_drain(h.sp, zcs_mono_ns() + 2 * ZCS_NS_PER_SEC);
	for (;;) {
		struct pollfd p = { .fd = h.rx, .events = POLLIN };
		struct zcs_dgram d;
		ssize_t n;

		if (poll(&p, 1, 300) <= 0)
			break;
		n = recv(h.rx, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0 || zcs_proto_parse(buf, (size_t)n, &d) < 0)
			continue;
		if (d.type == ZCS_DGRAM_META)
			got_meta++;
		else if (got_meta)
			after_meta++;
		else
			before_meta++;
	}
	printf("  send_small %d; %llu sample datagrams before the metadata, %llu after; send "
	       "errors %llu, demotions %llu, path %s\n", r, (unsigned long long)before_meta,
	       (unsigned long long)after_meta, (unsigned long long)h.sp->st.send_errors,
	       (unsigned long long)h.sp->st.demotions, zcs_path_name(h.sp->kind));
	CHECK(r == 1, "send_small returned %d, not 1 (sent after a demotion)", r);
	CHECK(got_meta == 1, "the receiver got %d metadata datagrams", got_meta);
	CHECK(after_meta == 0, "%llu sample datagrams came after the metadata that names them "
	      "as sent before it", (unsigned long long)after_meta);
	CHECK(before_meta == seq, "%llu of %llu sample datagrams before the metadata",
	      (unsigned long long)before_meta, (unsigned long long)seq);
	CHECK(h.sp->kind == ZCS_PATH_MSG_ZC, "path %s, not msg-zc", zcs_path_name(h.sp->kind));
	CHECK(h.double_done == 0 && h.nfree == SLOTS, "%zu of %d slots came back, %llu twice",
	      h.nfree, SLOTS, (unsigned long long)h.double_done);
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}
#endif

/* Regression (#23, "-errno without done()"): when the path failed and no slower one could be set
 * up, zcs_sendpath_send returned -errno and neither the train nor the queue behind it came back:
 * their slots were lost.  GSO is refused (SO_NO_CHECK) while setsockopt(UDP_SEGMENT) fails, so
 * not even plain can be set up.  Every train must be sent or counted as dropped, every slot must
 * come back once, and every train handed over after that too. */
static int run_no_path(int path)
{
	struct harness h = { .tx = -1, .rx = -1 };
	char err[256] = "";
	const int one = 1;
	uint64_t seq = 0;
	int failures = 0, r = 0, failed_at = -1, after = 0, after_back = 0;

	printf("%s, GSO refused and no path left (UDP_SEGMENT refused):\n", zcs_path_name(path));
	if (sockets(&h) < 0 || zcs_train_pool_init(&h.pool, SLOTS, SEG, zcs_train_max_dgrams(SEG)) < 0)
		return printf("FAIL: set-up: %s\n", strerror(errno)), 1;
	for (size_t i = 0; i < SLOTS; i++)
		h.free[h.nfree++] = &h.pool.trains[SLOTS - 1 - i];
	if (open_path(&h, path, err, sizeof(err)) < 0)
		return printf("FAIL: %s: %s\n", zcs_path_name(path), err), 1;
	for (int i = 0; i < 40 && failed_at < 0; i++) {
		struct zcs_train *t;

		while (!h.nfree && zcs_sendpath_flush(h.sp) >= 0)
			zcs_sendpath_wait(h.sp, -1, 10);
		if (!h.nfree)
			break; /* the flush found no path left: counted below */
		if (i == 10) {
			if (setsockopt(h.tx, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
				return printf("FAIL: SO_NO_CHECK: %s\n", strerror(errno)), 1;
			refuse_udp_segment = true;
		}
		t = h.free[--h.nfree];
		h.out[t->index] = true;
		fill(&h, t, &seq);
		r = zcs_sendpath_send(h.sp, t);
		if (r < 0)
			failed_at = i;
		receive(&h, 0);
	}
	if (failed_at < 0 && (r = zcs_sendpath_flush(h.sp)) < 0)
		failed_at = 40;
	/* from now on every train handed over comes back at once */
	for (int i = 0; i < 3 && h.nfree; i++) {
		struct zcs_train *const t = h.free[--h.nfree];

		h.out[t->index] = true;
		fill(&h, t, &seq);
		after += zcs_sendpath_send(h.sp, t) < 0;
		after_back += !h.out[t->index];
	}
	zcs_sendpath_drain(h.sp, zcs_mono_ns() + 2 * ZCS_NS_PER_SEC);
	receive(&h, 300);
	refuse_udp_segment = false;
	printf("  failed at train %d (%s); received %llu of %llu datagrams, dropped %llu trains "
	       "(%llu datagrams), send errors %llu, path %s\n", failed_at,
	       r < 0 ? strerror(-r) : "no failure", (unsigned long long)h.got,
	       (unsigned long long)seq, (unsigned long long)h.sp->st.dropped_trains,
	       (unsigned long long)h.sp->st.dropped_dgrams, (unsigned long long)h.sp->st.send_errors,
	       zcs_path_name(h.sp->kind));
	CHECK(failed_at >= 10, "no failure reported after the fault (train %d)", failed_at);
	CHECK(r == -EINVAL, "returned %d, not -EINVAL (GSO refused: the path's own error)", r);
	CHECK(after == 3 && after_back == 3, "after the failure %d of 3 sends failed, %d of 3 "
	      "slots came back at once", after, after_back);
	CHECK(h.misordered == 0, "%llu datagrams duplicated or out of order",
	      (unsigned long long)h.misordered);
	CHECK(h.got + h.sp->st.dropped_dgrams == seq, "received %llu + dropped %llu != sent %llu",
	      (unsigned long long)h.got, (unsigned long long)h.sp->st.dropped_dgrams,
	      (unsigned long long)seq);
	CHECK(h.sp->st.dropped_samples == h.sp->st.dropped_dgrams * SPD, "dropped samples %llu",
	      (unsigned long long)h.sp->st.dropped_samples);
	CHECK(h.double_done == 0, "%llu slots handed back twice", (unsigned long long)h.double_done);
	CHECK(h.nfree == SLOTS, "%zu of %d slots came back (inflight %zu, due %zu)", h.nfree, SLOTS,
	      h.sp->inflight, h.sp->ndue);
	CHECK(strstr(h.log, "no slower path works") != NULL, "no log line saying no path is left");
	zcs_sendpath_close(h.sp);
	zcs_train_pool_free(&h.pool);
	close(h.tx);
	close(h.rx);
	return failures;
}

int main(void)
{
	int failures = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a namespace of our own: its loopback, its netfilter rules, gone when we exit */
	if (unshare(CLONE_NEWNET) < 0) {
		printf("FAIL: unshare(CLONE_NEWNET): %s (needs root)\n", strerror(errno));
		return 1;
	}
	if (system("ip link set lo up") != 0) {
		printf("FAIL: ip link set lo up\n");
		return 1;
	}
	const uint64_t train = zcs_train_max_dgrams(SEG);

#if ZCS_HAVE_URING
	failures += run(ZCS_PATH_URING_ZC, FAULT_RING, ZCS_PATH_MSG_ZC, 0, 0);
	failures += run(ZCS_PATH_URING_ZC, FAULT_NOCHECK, ZCS_PATH_PLAIN, 0, 0);
	failures += run(ZCS_PATH_URING_ZC, FAULT_DROP, ZCS_PATH_URING_ZC, 1, train);
#endif
	failures += run(ZCS_PATH_MSG_ZC, FAULT_NOCHECK, ZCS_PATH_PLAIN, 0, 0);
	failures += run(ZCS_PATH_GSO, FAULT_NOCHECK, ZCS_PATH_PLAIN, 0, 0);
	failures += run(ZCS_PATH_MSG_ZC, FAULT_DROP, ZCS_PATH_MSG_ZC, 1, train);
	failures += run(ZCS_PATH_GSO, FAULT_DROP, ZCS_PATH_GSO, 1, train);
	failures += run(ZCS_PATH_PLAIN, FAULT_DROP, ZCS_PATH_PLAIN, 1, train);
	/* one datagram by one: the first DROP_AT went out, the rest of the train is dropped */
	failures += run(ZCS_PATH_PLAIN, FAULT_DROP_ONE, ZCS_PATH_PLAIN, 1, train - DROP_AT);
	for (int k = 0; k < ZCS_PATH_KINDS; k++)
		if (ZCS_HAVE_URING || k != ZCS_PATH_URING_ZC)
			failures += run_small(k);
	failures += run_small_no_room(ZCS_PATH_GSO);
	failures += run_small_no_room(ZCS_PATH_PLAIN);
#if ZCS_HAVE_URING
	failures += run_small_after_trains();
	failures += run_no_path(ZCS_PATH_URING_ZC);
#endif
	failures += run_no_path(ZCS_PATH_MSG_ZC);
	failures += run_no_path(ZCS_PATH_GSO);
#if ZCS_HAVE_URING
	failures += run_held(ZCS_PATH_URING_ZC);
#endif
	failures += run_held(ZCS_PATH_MSG_ZC);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
