// SPDX-License-Identifier: MIT
/* Unit tests for receiver/outputs.c and the output kinds, driving output.h as the receive thread
 * does: exact bytes into files, FIFO and TCP consumers that leave, come back or read slowly
 * (losses counted for that output only), tcp-connect reconnecting, UDP datagram sizes, rtl_tcp's
 * greeting, conversion and commands, and SigMF metadata validated against the schema. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "bytes.h"
#include "output.h"
#include "output_kinds.h"

/* Ports 25000-25999 belong to this test file. */
#define PORT_TCP 25101
#define PORT_TCPC 25102
#define PORT_UDP 25103
#define PORT_RTL 25104
#define PORT_RTL_TCP 25105
#define PORT_STALL_TCP 25106
#define PORT_STALL_RTL 25107
#define PORT_BUSY 25108
#define PORT_EMFILE 25109
#define PORT_FLOOD 25110
#define PORT_HALF 25111
#define PORT_IDLE 25112
#define PORT_CAUGHT_UP 25114

#define BLK ZCS_BLOCK_BYTES
#define CS16_PAIRS (BLK / 4)

static void sleep_ms(int ms)
{
	const struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Waits for cond, polling; failing after 10 s only guards against a hang, it times nothing. */
#define WAIT_FOR(cond)                                                        \
	do {                                                                  \
		int waited_ = 0;                                              \
		while (!(cond)) {                                             \
			ck_assert_msg(waited_ < 10000, "timed out: %s", #cond); \
			sleep_ms(1);                                          \
			waited_++;                                            \
		}                                                             \
	} while (0)

static struct zcs_output_stats stats_of(struct zcs_outputs *o, size_t i)
{
	struct zcs_output_stats st;

	zcs_outputs_stats(o, i, &st);
	return st;
}

static char tmpdir[64];

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/zcs_test_outputs_XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void add_ok(struct zcs_outputs *o, const char *spec)
{
	char err[256] = "";
	const int ret = zcs_outputs_add(o, spec, err, sizeof(err));

	ck_assert_msg(ret == 0, "add %s: %d %s", spec, ret, err);
}

static struct zcs_meta test_meta(uint64_t rate, uint64_t freq)
{
	struct zcs_meta m;

	memset(&m, 0, sizeof(m));
	m.stream_id = 0x1234;
	m.meta_version = 1;
	m.sample_rate = rate;
	m.center_freq = freq;
	m.ref_sample = 0;
	m.ref_time_ns = 1700000000ULL * 1000000000ULL;
	m.format = ZCS_WIRE_P12;
	m.samples_per_dgram = 480;
	strcpy(m.sender, "pluto");
	strcpy(m.version, "0.1.0");
	strcpy(m.source, "tone");
	return m;
}

/* One whole cs16 block whose every 32-bit pair is the block's number: readers check that they
 * only ever see whole blocks, in order. */
static void push_block(struct zcs_outputs *o, uint32_t seq)
{
	uint8_t *p = zcs_outputs_reserve(o, BLK);

	for (size_t i = 0; i < BLK; i += 4)
		zcs_put_le32(p + i, seq);
	zcs_outputs_commit(o, (uint64_t)seq * CS16_PAIRS, CS16_PAIRS, BLK);
}

/* Reads exactly len bytes, or fewer at EOF/error. */
static size_t read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 10000) <= 0)
			break;
		n = read(fd, buf + got, len - got);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* The block number of a whole block, checking it is uniform. */
static uint32_t block_seq(const uint8_t *b)
{
	const uint32_t seq = zcs_get_le32(b);

	for (size_t i = 4; i < BLK; i += 4)
		ck_assert_uint_eq(zcs_get_le32(b + i), seq);
	return seq;
}

static int tcp_connect_to(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* ---- files ---- */

START_TEST(test_file_exact_bytes)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	char spec[2][128], path[128];
	uint8_t *expect = malloc(16 * BLK), *got = malloc(16 * BLK);
	size_t total = 0;
	uint64_t idx = 0;
	int fd;

	make_tmpdir();
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	snprintf(spec[0], sizeof(spec[0]), "file:%s/a.cs16", tmpdir);
	snprintf(spec[1], sizeof(spec[1]), "file:%s/b.cs16", tmpdir);
	add_ok(o, spec[0]);
	add_ok(o, spec[1]);
	{
		char err[256];

		ck_assert_int_eq(zcs_outputs_add(o, spec[0], err, sizeof(err)), -EEXIST);
		ck_assert_int_eq(zcs_outputs_add(o, "bogus:1", err, sizeof(err)), -EINVAL);
	}
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	/* odd commit sizes that straddle block ends, a gap (zero-filled and dropped), a flush,
	 * and a discontinuous commit inside one block */
	for (int i = 0; i < 300; i++) {
		const size_t pairs = 1 + (size_t)(i * 37 % 900);
		uint8_t *p = zcs_outputs_reserve(o, pairs * 4);

		for (size_t k = 0; k < pairs * 4; k++)
			p[k] = (uint8_t)(total + k);
		memcpy(expect + total, p, pairs * 4);
		zcs_outputs_commit(o, idx, pairs, pairs * 4);
		total += pairs * 4;
		idx += pairs;
		if (i == 100)
			zcs_outputs_gap(o, idx, 1000, false), idx += 1000;
		if (i == 150)
			zcs_outputs_flush(o);
		if (i == 200)
			idx += 7;   /* a jump with no event: the block must split */
	}
	zcs_outputs_eos(o);
	ck_assert_uint_le(total, 16 * BLK);
	/* drained: the final statistics count every byte */
	ck_assert_int_eq(zcs_outputs_drain(o, 10000), 0);
	for (size_t k = 0; k < 2; k++) {
		ck_assert_uint_eq(stats_of(o, k).bytes, total);
		ck_assert_uint_eq(stats_of(o, k).overruns + stats_of(o, k).unread, 0);
		ck_assert_uint_eq(stats_of(o, k).queued, 0);
	}
	zcs_outputs_destroy(o, 10000);

	for (int k = 0; k < 2; k++) {
		snprintf(path, sizeof(path), "%s", spec[k] + 5);
		fd = open(path, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		ck_assert_uint_eq(read_full(fd, got, 16 * BLK), total);
		ck_assert_mem_eq(got, expect, total);
		close(fd);
	}
	free(expect);
	free(got);
	remove_tmpdir();
}
END_TEST

/* Deferred wake-ups (zcs-recv hands blocks on in bursts): what is pending is counted, a flush
 * hands everything on, and the bytes stay exact. */
START_TEST(test_deferred_wakes)
{
	struct zcs_outputs *o;
	char spec[128];
	uint8_t *p, *got = malloc(41 * BLK);
	int fd;

	make_tmpdir();
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	snprintf(spec, sizeof(spec), "file:%s/d.cs16", tmpdir);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_defer_wakes(o, true);
	ck_assert_uint_eq(zcs_outputs_pending(o), 0);
	p = zcs_outputs_reserve(o, BLK / 2);
	memset(p, 0xa5, BLK / 2);
	zcs_outputs_commit(o, 0, CS16_PAIRS / 2, BLK / 2);
	ck_assert_uint_eq(zcs_outputs_pending(o), 1);
	zcs_outputs_flush(o);
	ck_assert_uint_eq(zcs_outputs_pending(o), 0);
	for (uint32_t i = 1; i <= 40; i++) {
		push_block(o, i);
		/* the half-full rule wakes a writer before its queue could overflow */
		ck_assert_uint_le(zcs_outputs_pending(o), i);
	}
	zcs_outputs_flush(o);
	ck_assert_uint_eq(zcs_outputs_pending(o), 0);
	ck_assert_int_eq(zcs_outputs_drain(o, 10000), 0);
	ck_assert_uint_eq(stats_of(o, 0).bytes, BLK / 2 + 40 * BLK);
	ck_assert_uint_eq(stats_of(o, 0).overruns + stats_of(o, 0).unread, 0);
	zcs_outputs_destroy(o, 10000);

	fd = open(spec + 5, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(read_full(fd, got, 41 * BLK), BLK / 2 + 40 * BLK);
	for (size_t i = 0; i < BLK / 2; i++)
		ck_assert_uint_eq(got[i], 0xa5);
	/* push_block's commits do not follow the half block's samples: a new block each */
	for (uint32_t i = 1; i <= 40; i++)
		ck_assert_uint_eq(block_seq(got + BLK / 2 + (i - 1) * BLK), i);
	close(fd);
	free(got);
	remove_tmpdir();
}
END_TEST

START_TEST(test_stdout_exclusive)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 0);
	uint8_t *buf = malloc(3 * BLK);
	char err[256];
	int pfd[2];

	ck_assert_int_eq(pipe(pfd), 0);
	fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
	ck_assert_int_eq(dup2(pfd[1], STDOUT_FILENO), STDOUT_FILENO);
	close(pfd[1]);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, "-");
	ck_assert_int_eq(zcs_outputs_add(o, "-", err, sizeof(err)), -EEXIST);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	for (uint32_t i = 0; i < 3; i++)
		push_block(o, i);
	ck_assert_uint_eq(read_full(pfd[0], buf, 3 * BLK), 3 * BLK);
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(block_seq(buf + i * BLK), i);
	zcs_outputs_destroy(o, 10000);
	free(buf);
}
END_TEST

/* ---- FIFO ---- */

START_TEST(test_fifo_reader_leaves_and_returns)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 0);
	char spec[128], fspec[128];
	uint8_t *buf = malloc(BLK);
	uint32_t seq = 0, first;
	struct stat st;
	int rfd;

	make_tmpdir();
	snprintf(spec, sizeof(spec), "fifo:%s/iq", tmpdir);
	snprintf(fspec, sizeof(fspec), "file:%s/all.cs16", tmpdir);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	add_ok(o, fspec);
	ck_assert_int_eq(stat(spec + 5, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);

	/* nobody reading: blocks are unread, not overruns, and nothing blocks */
	for (int i = 0; i < 20; i++)
		push_block(o, seq++);
	ck_assert_uint_eq(stats_of(o, 0).unread, 20);
	ck_assert_uint_eq(stats_of(o, 0).overruns, 0);

	for (int round = 0; round < 2; round++) {
		rfd = open(spec + 5, O_RDONLY | O_NONBLOCK);
		ck_assert_int_ge(rfd, 0);
		WAIT_FOR(stats_of(o, 0).consumers == 1);
		ck_assert_uint_eq(stats_of(o, 0).connects, (uint64_t)round + 1);
		first = seq;
		for (int i = 0; i < 10; i++) {
			push_block(o, seq++);
			/* the reader starts on a block boundary with the first block after it came */
			ck_assert_uint_eq(read_full(rfd, buf, BLK), BLK);
			ck_assert_uint_eq(block_seq(buf), first + (uint32_t)i);
		}
		close(rfd);
		/* the next writes hit EPIPE (SIGPIPE must not kill us) or idle sees POLLERR */
		WAIT_FOR((push_block(o, seq++), stats_of(o, 0).consumers == 0));
	}
	ck_assert_uint_eq(stats_of(o, 0).overruns, 0);
	ck_assert_uint_ge(stats_of(o, 0).blocks, 20);
	/* the file beside it got every block */
	zcs_outputs_destroy(o, 10000);
	ck_assert_int_eq(stat(fspec + 5, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, (uint64_t)seq * BLK);
	free(buf);
	remove_tmpdir();
}
END_TEST

/* ---- TCP server ---- */

struct reader {
	int fd;
	atomic_ulong bytes;
	uint32_t last_seq;
	uint64_t blocks, out_of_order;
	uint64_t first_seq, jumps;   /* the first block's number; blocks not following the last */
	uint64_t run_first;          /* the first block of the last contiguous run */
	atomic_bool go;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint8_t *buf = malloc(BLK);

	while (!atomic_load(&r->go))
		sleep_ms(1);
	for (;;) {
		const size_t n = read_full(r->fd, buf, BLK);
		uint32_t seq;

		if (n < BLK) {
			atomic_fetch_add(&r->bytes, n);
			break;
		}
		seq = zcs_get_le32(buf);
		for (size_t i = 4; i < BLK; i += 4)
			if (zcs_get_le32(buf + i) != seq)
				r->out_of_order++;
		if (r->blocks && seq <= r->last_seq)
			r->out_of_order++;
		if (r->blocks && seq > r->last_seq + 1)
			r->jumps++;
		if (!r->blocks)
			r->first_seq = seq;
		if (!r->blocks || seq != r->last_seq + 1)
			r->run_first = seq;
		r->last_seq = seq;
		r->blocks++;
		atomic_fetch_add(&r->bytes, BLK);
	}
	free(buf);
	return NULL;
}

START_TEST(test_tcp_fast_and_slow_client)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 0);
	struct reader fast = { .go = true }, slow = { .go = false };
	pthread_t tf, ts;
	const uint32_t nblocks = 500;
	struct zcs_output_stats st;
	char spec[64];

	snprintf(spec, sizeof(spec), "tcp:%d", PORT_TCP);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	fast.fd = tcp_connect_to(PORT_TCP);
	slow.fd = tcp_connect_to(PORT_TCP);
	WAIT_FOR(stats_of(o, 0).consumers == 2);
	pthread_create(&tf, NULL, reader_main, &fast);
	pthread_create(&ts, NULL, reader_main, &slow);
	zcs_outputs_meta(o, &m);
	for (uint32_t i = 0; i < nblocks; i++) {
		push_block(o, i);
		/* in step with the fast client, so only the slow one can fall behind */
		WAIT_FOR(atomic_load(&fast.bytes) == (uint64_t)(i + 1) * BLK);
	}
	st = stats_of(o, 0);
	/* the slow client has read nothing since it came: what it could not take is skipped, at
	 * its start, not overruns */
	ck_assert_uint_gt(st.skipped, 0);
	ck_assert_uint_eq(st.overruns, 0);
	atomic_store(&slow.go, true);
	/* it reads: its queue is discarded, and the stream goes on */
	WAIT_FOR(stats_of(o, 0).queued == 0);
	for (uint32_t i = nblocks; i < nblocks + 10; i++) {
		push_block(o, i);
		WAIT_FOR(atomic_load(&fast.bytes) == (uint64_t)(i + 1) * BLK);
	}
	/* every block the slow client lacks is one it skipped, and only those (the writer counts
	 * the queued ones it discards as the client reads) */
	WAIT_FOR((st = stats_of(o, 0), atomic_load(&slow.bytes) + st.skipped * BLK ==
		  (uint64_t)(nblocks + 10) * BLK));
	ck_assert_uint_eq(st.overruns, 0);
	zcs_outputs_destroy(o, 20000);
	pthread_join(tf, NULL);
	pthread_join(ts, NULL);
	ck_assert_uint_eq(atomic_load(&fast.bytes), (uint64_t)(nblocks + 10) * BLK);
	ck_assert_uint_eq(fast.out_of_order, 0);
	ck_assert_uint_eq(fast.jumps, 0);
	ck_assert_uint_eq(slow.out_of_order, 0);
	/* what the kernel took before it read, from the first block (a socket may take a little
	 * more after a jump while its buffer grows, so that part can jump too), then the live
	 * stream, whole to its end */
	ck_assert_uint_eq(slow.first_seq, 0);
	ck_assert_uint_ge(slow.jumps, 1);
	ck_assert_uint_le(slow.run_first, nblocks);
	ck_assert_uint_eq(slow.last_seq, nblocks + 10 - 1);
	ck_assert_uint_eq(st.connects, 2);
	close(fast.fd);
	close(slow.fd);
}
END_TEST

/* ---- tcp-connect ---- */

START_TEST(test_tcp_connect_reconnects)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT_TCPC) };
	uint8_t *buf = malloc(BLK);
	const int one = 1;
	uint32_t seq = 0;
	char spec[64];
	int lfd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(lfd, 4), 0);
	snprintf(spec, sizeof(spec), "tcp-connect:127.0.0.1:%d", PORT_TCPC);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	for (int round = 0; round < 2; round++) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		int cfd;

		ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
		cfd = accept(lfd, NULL, NULL);
		ck_assert_int_ge(cfd, 0);
		WAIT_FOR(stats_of(o, 0).consumers == 1);
		for (int i = 0; i < 5; i++) {
			const uint32_t want = seq;

			push_block(o, seq++);
			ck_assert_uint_eq(read_full(cfd, buf, BLK), BLK);
			ck_assert_uint_eq(block_seq(buf), want);
		}
		close(cfd);
		WAIT_FOR(stats_of(o, 0).consumers == 0);
	}
	ck_assert_uint_eq(stats_of(o, 0).connects, 2);
	zcs_outputs_destroy(o, 1000);
	close(lfd);
	free(buf);
}
END_TEST

/* ---- UDP ---- */

static void udp_case(enum zcs_sample_type t, size_t pair, size_t max_dgram)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT_UDP) };
	const size_t pairs = BLK / pair;
	uint8_t *expect = malloc(2 * BLK), *got = malloc(2 * BLK + 2000);
	const int rcvbuf = 4 << 20;
	size_t total = 0, dgrams = 0;
	char spec[64];
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	snprintf(spec, sizeof(spec), "udp:127.0.0.1:%d", PORT_UDP);
	ck_assert_int_eq(zcs_outputs_create(&o, t), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	for (int b = 0; b < 2; b++) {
		uint8_t *p = zcs_outputs_reserve(o, pairs * pair);

		for (size_t k = 0; k < pairs * pair; k++)
			p[k] = (uint8_t)(k * 7 + (size_t)b);
		memcpy(expect + (size_t)b * pairs * pair, p, pairs * pair);
		zcs_outputs_commit(o, (uint64_t)b * pairs, pairs, pairs * pair);
		zcs_outputs_flush(o);
		/* in step, so the socket buffer never overflows */
		while (total < (size_t)(b + 1) * pairs * pair) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			ssize_t n;

			ck_assert_int_eq(poll(&pfd, 1, 10000), 1);
			n = recv(fd, got + total, 2000, 0);
			ck_assert_int_gt(n, 0);
			ck_assert_uint_le((size_t)n, max_dgram);
			ck_assert_uint_eq((size_t)n % pair, 0);
			total += (size_t)n;
			dgrams++;
		}
	}
	ck_assert_uint_eq(total, 2 * pairs * pair);
	ck_assert_mem_eq(got, expect, total);
	/* full-size datagrams except one shorter tail per block */
	ck_assert_uint_eq(dgrams, 2 * ((pairs * pair + max_dgram - 1) / max_dgram));
	zcs_outputs_destroy(o, 1000);
	close(fd);
	free(expect);
	free(got);
}

START_TEST(test_udp_datagram_sizes)
{
	udp_case(ZCS_SAMPLE_CS16, 4, 1472);
	udp_case(ZCS_SAMPLE_CF32, 8, 1472);
	udp_case(ZCS_SAMPLE_CU8, 2, 1472);
	udp_case(ZCS_SAMPLE_NATIVE, 3, 1470);   /* p12: 490 pairs, not 1472 bytes */
}
END_TEST

/* ---- rtl_tcp ---- */

/* What each rtl_tcp command asks of the radio, as zcs-recv --control forwards it. */
START_TEST(test_rtltcp_cmd_settings)
{
	struct zcs_ctl_settings w = { 0 };

	ck_assert(zcs_rtltcp_cmd_setting(0x01, 433920000, 0, &w));
	ck_assert_uint_eq(w.freq, 433920000);
	ck_assert(zcs_rtltcp_cmd_setting(0x01, 1505032704, 1, &w)); /* 0x56 gave the high bits */
	ck_assert_uint_eq(w.freq, 5800000000ULL);
	ck_assert(zcs_rtltcp_cmd_setting(0x02, 2400000, 0, &w));
	ck_assert_uint_eq(w.rate, 2400000);
	ck_assert(zcs_rtltcp_cmd_setting(0x04, 300, 0, &w)); /* tenths of dB */
	ck_assert_int_eq(w.gain_mdb, 30000);
	ck_assert_int_eq(w.gain_mode, ZCS_GAIN_MANUAL);
	ck_assert(zcs_rtltcp_cmd_setting(0x03, 0, 0, &w)); /* automatic: the manual value is void */
	ck_assert_int_eq(w.gain_mode, ZCS_GAIN_SLOW);
	ck_assert(!(w.have & ZCS_CTL_GAIN));
	ck_assert(zcs_rtltcp_cmd_setting(0x40, 2000000, 0, &w));
	ck_assert_uint_eq(w.bw, 2000000);
	ck_assert_uint_eq(w.have, ZCS_CTL_FREQ | ZCS_CTL_RATE | ZCS_CTL_GAIN_MODE | ZCS_CTL_BW);
	/* SDR++ sets its gain by index only: the R820T's table, as set_gain */
	w = (struct zcs_ctl_settings){ 0 };
	ck_assert(zcs_rtltcp_cmd_setting(0x0d, 0, 0, &w));
	ck_assert_int_eq(w.gain_mdb, 0);
	ck_assert(zcs_rtltcp_cmd_setting(0x0d, 14, 0, &w));
	ck_assert_int_eq(w.gain_mdb, 25400);
	ck_assert(zcs_rtltcp_cmd_setting(0x0d, 28, 0, &w));
	ck_assert_int_eq(w.gain_mdb, 49600);
	ck_assert_int_eq(w.gain_mode, ZCS_GAIN_MANUAL);
	ck_assert_uint_eq(w.have, ZCS_CTL_GAIN | ZCS_CTL_GAIN_MODE);
	/* past the table: refused, nothing asked */
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x0d, 29, 0, &w), -ERANGE);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x0d, 0xffffffffu, 0, &w), -ERANGE);
	ck_assert_int_eq(w.gain_mdb, 49600);
	/* set_gain is signed: -3 dB is -30; beyond +-100 dB refused (0x7fffffff and 0x80000000
	 * overflowed into -0.1 dB and 0 dB, which the board took) */
	w = (struct zcs_ctl_settings){ 0 };
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, 0xffffffe2u, 0, &w), 1);
	ck_assert_int_eq(w.gain_mdb, -3000);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, 1000, 0, &w), 1);
	ck_assert_int_eq(w.gain_mdb, 100000);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, (uint32_t)-1000, 0, &w), 1);
	ck_assert_int_eq(w.gain_mdb, -100000);
	w = (struct zcs_ctl_settings){ 0 };
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, 0x7fffffffu, 0, &w), -ERANGE);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, 0x80000000u, 0, &w), -ERANGE);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, 1001, 0, &w), -ERANGE);
	ck_assert_int_eq(zcs_rtltcp_cmd_setting(0x04, (uint32_t)-1001, 0, &w), -ERANGE);
	ck_assert_uint_eq(w.have, 0);
	ck_assert_str_eq(zcs_rtltcp_cmd_name(0x0d), "set_gain_by_index");
	for (int c = 0; c < 256; c++)
		if (c != 0x01 && c != 0x02 && c != 0x03 && c != 0x04 && c != 0x0d && c != 0x40)
			ck_assert(!zcs_rtltcp_cmd_setting((uint8_t)c, 1, 0, &w));
	ck_assert_str_eq(zcs_rtltcp_cmd_name(0x40), "set_bandwidth");
	ck_assert_str_eq(zcs_rtltcp_cmd_name(0x56), "set_tuner_freq_high");
}
END_TEST

/* The cu8 byte of a 12-bit value: v / 16 to the nearest integer, halves away from zero (as lround
 * rounds), saturated to int8, plus 128. */
static uint8_t cu8_want(int v)
{
	const long r = lround(v / 16.0);

	return (uint8_t)((r > 127 ? 127 : r < -128 ? -128 : r) + 128);
}

START_TEST(test_rtltcp_conversion_all_types)
{
	for (int v = -2048; v <= 2047; v++) {
		uint8_t src[8], dst[2];
		const uint8_t want = cu8_want(v);
		float f = (float)v / 2048.0f;
		uint32_t w;

		zcs_put_le16(src, (uint16_t)(int16_t)(v * 16));
		zcs_put_le16(src + 2, (uint16_t)(int16_t)(-v - 1) * 16);
		zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_CS16, 4);
		ck_assert_uint_eq(dst[0], want);
		ck_assert_uint_eq(dst[1], cu8_want(-v - 1));

		memcpy(&w, &f, 4);
		zcs_put_le32(src, w);
		zcs_put_le32(src + 4, w);
		zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_CF32, 8);
		ck_assert_uint_eq(dst[0], want);

		src[0] = (uint8_t)(want ^ 0x80);   /* the cs8 of v */
		src[1] = src[0];
		zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_CS8, 2);
		ck_assert_uint_eq(dst[0], want);
		zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_NATIVE, 2);   /* i8 */
		ck_assert_uint_eq(dst[0], want);

		zcs_put_le16(src, (uint16_t)(int16_t)v);
		zcs_put_le16(src + 2, (uint16_t)(int16_t)v);
		zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_NATIVE, 4);   /* i16 */
		ck_assert_uint_eq(dst[0], want);

		/* p12: I = v, Q = -v - 1 as the 24-bit word I | Q << 12 */
		{
			const uint32_t word = ((uint32_t)v & 0xfff) | (((uint32_t)(-v - 1) & 0xfff) << 12);

			src[0] = (uint8_t)word;
			src[1] = (uint8_t)(word >> 8);
			src[2] = (uint8_t)(word >> 16);
			zcs_rtltcp_to_cu8(dst, src, 1, ZCS_SAMPLE_NATIVE, 3);
			ck_assert_uint_eq(dst[0], want);
			ck_assert_uint_eq(dst[1], cu8_want(-v - 1));
		}
	}
	ck_assert_str_eq(zcs_rtltcp_cmd_name(1), "set_freq");
	ck_assert_str_eq(zcs_rtltcp_cmd_name(0x0e), "set_bias_tee");
	ck_assert_str_eq(zcs_rtltcp_cmd_name(0x42), "unknown");
}
END_TEST

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[8192];

static void log_cb(void *ctx, const char *msg)
{
	(void)ctx;
	pthread_mutex_lock(&log_mu);
	if (strlen(log_text) + strlen(msg) + 2 < sizeof(log_text)) {
		strcat(log_text, msg);
		strcat(log_text, "\n");
	}
	pthread_mutex_unlock(&log_mu);
}

static bool log_has(const char *s)
{
	bool has;

	pthread_mutex_lock(&log_mu);
	has = strstr(log_text, s) != NULL;
	pthread_mutex_unlock(&log_mu);
	return has;
}

/* How many times s occurs in the log. */
static size_t log_count(const char *s)
{
	size_t n = 0;

	pthread_mutex_lock(&log_mu);
	for (const char *p = log_text; (p = strstr(p, s)); p++)
		n++;
	pthread_mutex_unlock(&log_mu);
	return n;
}

static void put_cmd(uint8_t *c, uint8_t cmd, uint32_t param)
{
	c[0] = cmd;
	c[1] = (uint8_t)(param >> 24);
	c[2] = (uint8_t)(param >> 16);
	c[3] = (uint8_t)(param >> 8);
	c[4] = (uint8_t)param;
}

/* One set of cs16 with a plain TCP server and an rtl_tcp server: `-F cs16 -o tcp -o rtl_tcp`. */
START_TEST(test_rtltcp_greeting_commands_and_cu8)
{
	static const uint8_t greeting[12] = { 'R', 'T', 'L', '0', 0, 0, 0, 5, 0, 0, 0, 29 };
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(2400000, 433920000);
	uint8_t g[12], cmds[15], *got = malloc(CS16_PAIRS * 2), *raw = malloc(BLK);
	char spec[64], tspec[64];
	int rfd, tfd;

	log_text[0] = '\0';
	snprintf(spec, sizeof(spec), "rtl_tcp:%d", PORT_RTL);
	snprintf(tspec, sizeof(tspec), "tcp:127.0.0.1:%d", PORT_RTL_TCP);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, tspec);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	rfd = tcp_connect_to(PORT_RTL);
	tfd = tcp_connect_to(PORT_RTL_TCP);
	ck_assert_uint_eq(read_full(rfd, g, sizeof(g)), sizeof(g));
	ck_assert_mem_eq(g, greeting, sizeof(g));
	WAIT_FOR(stats_of(o, 1).consumers == 1 && stats_of(o, 0).consumers == 1);

	/* three commands, the last split across two sends */
	put_cmd(cmds, 0x01, 100000000);
	put_cmd(cmds + 5, 0x02, 2048000);
	put_cmd(cmds + 10, 0x04, 297);
	ck_assert_int_eq(send(rfd, cmds, 12, 0), 12);
	sleep_ms(20);
	ck_assert_int_eq(send(rfd, cmds + 12, 3, 0), 3);
	WAIT_FOR(stats_of(o, 1).commands == 3);
	ck_assert(log_has("set_freq 100000000 ignored"));
	ck_assert(log_has("set_sample_rate 2048000 ignored: the stream runs at 2400000"));
	ck_assert(log_has("set_gain 297 ignored"));

	{
		uint8_t *p = zcs_outputs_reserve(o, BLK);

		for (size_t i = 0; i < CS16_PAIRS * 2; i++)
			zcs_put_le16(p + 2 * i, (uint16_t)(int16_t)((int)(i % 4096) - 2048) * 16);
		memcpy(raw, p, BLK);
		zcs_outputs_commit(o, 0, CS16_PAIRS, BLK);
	}
	ck_assert_uint_eq(read_full(rfd, got, CS16_PAIRS * 2), CS16_PAIRS * 2);
	for (size_t i = 0; i < CS16_PAIRS * 2; i++)
		ck_assert_uint_eq(got[i], cu8_want((int)(i % 4096) - 2048));
	/* the plain TCP client of the same set gets cs16 unchanged */
	free(got);
	got = malloc(BLK);
	ck_assert_uint_eq(read_full(tfd, got, BLK), BLK);
	ck_assert_mem_eq(got, raw, BLK);

	ck_assert_uint_eq(stats_of(o, 1).bytes, CS16_PAIRS * 2);
	close(rfd);
	/* a client's FIN may be a half-close (it still reads): its going is known at the next
	 * write, which its reset fails */
	WAIT_FOR((push_block(o, 1), stats_of(o, 1).consumers == 0));
	ck_assert(log_has("left"));
	zcs_outputs_destroy(o, 1000);
	close(tfd);
	free(got);
	free(raw);
}
END_TEST


/* ---- error paths, shutdown and floods (review regressions) ---- */

/* Open descriptors of this process. */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Lowers the soft descriptor limit so that exactly `spare` more descriptors can be opened:
 * every hole below the limit is filled with /dev/null (closed by fill_close). */
struct fill {
	int fds[1024];
	size_t n;
	struct rlimit old;
};

static void fill_fds(struct fill *f, int spare)
{
	struct rlimit rl;
	int fd;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &f->old), 0);
	f->n = 0;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* the first free number; after the fill, numbers below fd + spare are the only free ones */
	rl = f->old;
	rl.rlim_cur = (rlim_t)(fd + spare);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	/* fill holes below the new limit left by closed descriptors */
	for (;;) {
		const int x = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (x < 0)
			break;
		ck_assert_uint_lt(f->n, 1024);
		f->fds[f->n++] = x;
	}
	/* now nothing is free: give back the `spare` highest */
	for (int i = 0; i < spare && f->n; i++)
		close(f->fds[--f->n]);
}

static void fill_close(struct fill *f)
{
	while (f->n)
		close(f->fds[--f->n]);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &f->old), 0);
}

/* Regression: an eventfd failing at the third of a server's four sinks left the fourth sink's
 * zeroed fd and efd, which the cleanup closed: fd 0 went, twice. */
START_TEST(test_add_out_of_fds_spares_fd0)
{
	struct zcs_outputs *o;
	struct fill f;
	char err[256] = "", spec[64];
	int pfd[2], before, ret;

	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(dup2(pfd[0], 0), 0);   /* fd 0 is ours, to see if anyone closes it */
	close(pfd[0]);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_EMFILE);
	before = fd_count();
	fill_fds(&f, 2);    /* two eventfds, then EMFILE */
	ret = zcs_outputs_add(o, spec, err, sizeof(err));
	fill_close(&f);
	ck_assert_int_eq(ret, -EMFILE);
	ck_assert_ptr_nonnull(strstr(err, spec));
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
	ck_assert_int_eq(fd_count(), before);
	zcs_outputs_destroy(o, 0);
	close(pfd[1]);
}
END_TEST

/* Every refused spec closes what it opened and frees what it allocated (ASan checks the rest). */
START_TEST(test_add_errors_leak_nothing)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT_BUSY) };
	struct zcs_outputs *o;
	char spec[32][160], err[256], path[128];
	int busy, before, fd;
	size_t n = 0;

	make_tmpdir();
	busy = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(busy, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(busy, 1), 0);
	snprintf(path, sizeof(path), "%s/plain", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	close(fd);
	snprintf(spec[n++], sizeof(spec[0]), "tcp:%d", PORT_BUSY);         /* port in use */
	snprintf(spec[n++], sizeof(spec[0]), "rtl_tcp:%d", PORT_BUSY);
	snprintf(spec[n++], sizeof(spec[0]), "tcp:99999");
	snprintf(spec[n++], sizeof(spec[0]), "tcp:");
	snprintf(spec[n++], sizeof(spec[0]), "tcp-connect:127.0.0.1");
	snprintf(spec[n++], sizeof(spec[0]), "udp:127.0.0.1");
	snprintf(spec[n++], sizeof(spec[0]), "udp:not an address:1");
	snprintf(spec[n++], sizeof(spec[0]), "file:%s/no/such/dir", tmpdir);  /* unwritable */
	snprintf(spec[n++], sizeof(spec[0]), "file:");
	snprintf(spec[n++], sizeof(spec[0]), "sigmf:%s/no/such/dir", tmpdir);
	snprintf(spec[n++], sizeof(spec[0]), "fifo:%s", path);              /* not a FIFO */
	snprintf(spec[n++], sizeof(spec[0]), "fifo:%s/no/such/fifo", tmpdir);
	snprintf(spec[n++], sizeof(spec[0]), "bogus:1");
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	before = fd_count();
	for (size_t i = 0; i < n; i++) {
		err[0] = '\0';
		ck_assert_msg(zcs_outputs_add(o, spec[i], err, sizeof(err)) < 0, "%s accepted", spec[i]);
		ck_assert_msg(err[0], "%s: no message", spec[i]);
		ck_assert_msg(fd_count() == before, "%s leaked a descriptor", spec[i]);
	}
	ck_assert_uint_eq(zcs_outputs_count(o), 0);
	zcs_outputs_destroy(o, 0);
	/* native has no SigMF datatype: refused before the file is created */
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_NATIVE), 0);
	snprintf(spec[0], sizeof(spec[0]), "sigmf:%s/native", tmpdir);
	ck_assert_int_eq(zcs_outputs_add(o, spec[0], err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(fd_count(), before);
	zcs_outputs_destroy(o, 0);
	close(busy);
	remove_tmpdir();
}
END_TEST

/* Regression: the duplicate check compared the spec with the name truncated to 64 bytes, so a
 * long path given twice opened the same file twice (interleaved writers). */
START_TEST(test_long_spec_given_twice)
{
	struct zcs_outputs *o;
	char spec[256], err[256];

	make_tmpdir();
	snprintf(spec, sizeof(spec), "file:%s/%s", tmpdir,
		 "a-recording-name-long-enough-to-pass-the-name-field-of-sixty-four.cs16");
	ck_assert_uint_gt(strlen(spec), 64);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_add(o, spec, err, sizeof(err)), -EEXIST);
	ck_assert_uint_eq(zcs_outputs_count(o), 1);
	zcs_outputs_destroy(o, 0);
	remove_tmpdir();
}
END_TEST

/* Regression: file:PATH on a FIFO opened it blocking: with no reader the open hung zcs-recv at
 * start, and a reader that stopped reading pinned the writer, so destroy never returned. */
START_TEST(test_file_on_fifo_never_blocks)
{
	struct zcs_outputs *o;
	char spec[160], err[256];
	int rfd;

	make_tmpdir();
	snprintf(spec, sizeof(spec), "file:%s/p", tmpdir);
	ck_assert_int_eq(mkfifo(spec + 5, 0600), 0);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	ck_assert_int_eq(zcs_outputs_add(o, spec, err, sizeof(err)), -ENXIO);
	ck_assert_ptr_nonnull(strstr(err, "fifo:"));
	rfd = open(spec + 5, O_RDONLY | O_NONBLOCK);     /* a reader that never reads */
	ck_assert_int_ge(rfd, 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	for (uint32_t i = 0; i < 64; i++)      /* far more than the pipe holds */
		push_block(o, i);
	zcs_outputs_flush(o);
	ck_assert_int_eq(zcs_outputs_drain(o, 100), -ETIMEDOUT);
	zcs_outputs_destroy(o, 100);          /* returns: the writer gives up at the deadline */
	close(rfd);
	remove_tmpdir();
}
END_TEST

/* Consumers that come and never read (TCP, rtl_tcp, FIFO, a pipe on stdout): memory stays
 * within the queues, the writers lose only their own blocks, and destroy returns at its
 * deadline without leaking a descriptor. */
START_TEST(test_destroy_with_stalled_consumers)
{
	struct zcs_outputs *o;
	char spec[4][160];
	int pfd[2], tfd, rfd, ffd, before;
	struct zcs_output_stats st;

	make_tmpdir();
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert_int_eq(dup2(pfd[1], STDOUT_FILENO), STDOUT_FILENO);
	close(pfd[1]);
	before = fd_count();
	snprintf(spec[0], sizeof(spec[0]), "tcp:%d", PORT_STALL_TCP);
	snprintf(spec[1], sizeof(spec[1]), "rtl_tcp:%d", PORT_STALL_RTL);
	snprintf(spec[2], sizeof(spec[2]), "fifo:%s/f", tmpdir);
	snprintf(spec[3], sizeof(spec[3]), "-");
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	for (int i = 0; i < 4; i++)
		add_ok(o, spec[i]);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	tfd = tcp_connect_to(PORT_STALL_TCP);
	rfd = tcp_connect_to(PORT_STALL_RTL);
	ffd = open(spec[2] + 5, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(ffd, 0);
	WAIT_FOR(stats_of(o, 0).consumers == 1 && stats_of(o, 1).consumers == 1 &&
		 stats_of(o, 2).consumers == 1);
	for (uint32_t i = 0; i < 1000; i++) {
		push_block(o, i);
		for (size_t k = 0; k < 4; k++)
			ck_assert_uint_le(stats_of(o, k).queued, ZCS_OUT_QUEUE_BLOCKS);
	}
	zcs_outputs_flush(o);
	for (size_t k = 0; k < 4; k++) {
		st = stats_of(o, k);
		/* the consumers that came never read: skipped; stdout was there from the start */
		if (k < 3)
			ck_assert_msg(st.skipped > 0 && st.overruns == 0, "%s: not skipped", st.name);
		else
			ck_assert_msg(st.overruns > 0 && st.skipped == 0, "%s: no overruns", st.name);
		ck_assert_uint_eq(st.unread, 0);
	}
	zcs_outputs_destroy(o, 200);
	ck_assert_int_eq(fd_count(), before + 3);   /* only the test's own three consumers */
	close(tfd);
	close(rfd);
	close(ffd);
	remove_tmpdir();
}
END_TEST

/* Regression: when accept() failed for want of descriptors the listening socket stayed
 * readable and the accept thread spun on it, a core at 100%.  Measured as CPU time, which a
 * correct accept thread does not use while waiting: an upper bound, never a latency. */
START_TEST(test_accept_out_of_fds_does_not_spin)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT_EMFILE) };
	struct zcs_outputs *o;
	struct rusage r0, r1;
	struct fill f;
	char spec[64];
	double cpu;
	int cfd;

	snprintf(spec, sizeof(spec), "tcp:%d", PORT_EMFILE);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(cfd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fill_fds(&f, 0);
	/* the handshake completes in the kernel; accept() then fails with EMFILE */
	ck_assert_int_eq(connect(cfd, (struct sockaddr *)&a, sizeof(a)), 0);
	getrusage(RUSAGE_SELF, &r0);
	sleep_ms(1000);
	getrusage(RUSAGE_SELF, &r1);
	fill_close(&f);
	cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
		       r0.ru_stime.tv_sec) +
	      (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
		       r0.ru_stime.tv_usec) / 1e6;
	ck_assert_msg(cpu < 0.2, "accept thread used %.3f s of CPU in 1 s", cpu);
	/* descriptors back: the waiting client is taken */
	WAIT_FOR(stats_of(o, 0).consumers == 1);
	zcs_outputs_destroy(o, 0);
	close(cfd);
}
END_TEST

/* Regression: an rtl_tcp client sending commands without pause had every one logged (a line
 * each on zcs-recv's standard error) and held its writer in the read loop.  Every command is
 * still counted; the log says when it stops naming them. */
START_TEST(test_rtltcp_command_flood)
{
	struct zcs_outputs *o;
	uint8_t *cmds = malloc(5 * 5000);
	char spec[64];
	int fd;

	log_text[0] = '\0';
	snprintf(spec, sizeof(spec), "rtl_tcp:%d", PORT_FLOOD);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	fd = tcp_connect_to(PORT_FLOOD);
	WAIT_FOR(stats_of(o, 0).consumers == 1);
	for (int i = 0; i < 5000; i++)
		put_cmd(cmds + 5 * i, 0x04, (uint32_t)i);
	ck_assert_int_eq(send(fd, cmds, 5 * 5000, 0), 5 * 5000);
	WAIT_FOR(stats_of(o, 0).commands == 5000);
	ck_assert_uint_le(log_count("ignored"), 64);
	ck_assert(log_has("set_gain 0 ignored"));
	ck_assert(log_has("further commands"));
	zcs_outputs_destroy(o, 0);
	close(fd);
	free(cmds);
}
END_TEST

/* Regression: every client refused beyond the fourth was a log line, so a connection storm
 * flooded zcs-recv's standard error.  Now the 1st, 2nd, 4th, 8th... are logged. */
START_TEST(test_tcp_refusal_storm)
{
	struct zcs_outputs *o;
	int held[ZCS_OUT_MAX_CLIENTS];
	char spec[64];

	log_text[0] = '\0';
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_FLOOD);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	for (int i = 0; i < ZCS_OUT_MAX_CLIENTS; i++)
		held[i] = tcp_connect_to(PORT_FLOOD);
	WAIT_FOR(stats_of(o, 0).consumers == ZCS_OUT_MAX_CLIENTS);
	for (int i = 0; i < 200; i++) {
		const int fd = tcp_connect_to(PORT_FLOOD);
		uint8_t b;

		/* refused: closed at once, seen as EOF */
		ck_assert_uint_eq(read_full(fd, &b, 1), 0);
		close(fd);
	}
	ck_assert_uint_eq(log_count("refused:"), 8);    /* 1, 2, 4 ... 128 */
	ck_assert(log_has("(128 refused so far;"));
	ck_assert_uint_eq(stats_of(o, 0).connects, ZCS_OUT_MAX_CLIENTS);
	zcs_outputs_destroy(o, 0);
	for (int i = 0; i < ZCS_OUT_MAX_CLIENTS; i++)
		close(held[i]);
}
END_TEST

/* ---- SigMF ---- */

static const char *const validate_py =
	"import json, sys\n"
	"meta = json.load(open(sys.argv[2]))\n"
	"if sys.argv[1] != '-':\n"
	"    import jsonschema\n"
	"    jsonschema.validate(meta, json.load(open(sys.argv[1])))\n"
	"g = meta['global']\n"
	"out = [g['core:datatype'], str(g['core:sample_rate']), g['core:version']]\n"
	"for c in meta['captures']:\n"
	"    out.append('C%d/%d/%d/%s' % (c['core:sample_start'], c['core:global_index'],\n"
	"               c.get('core:frequency', 0), c.get('core:datetime', '-')))\n"
	"for a in meta['annotations']:\n"
	"    out.append('A%d/%d/%s' % (a['core:sample_start'], a['core:sample_count'],\n"
	"               a['core:comment']))\n"
	"print(' '.join(out))\n";

/* The SigMF schema, which lives outside the tree (../shared/data), or "-" where a clone has none:
 * the .sigmf-meta is then checked by this file's own checks only, and main() makes the run a skip
 * (the SigMF cases run as a test of their own, outputs_sigmf, so only they are the skip). */
static const char *sigmf_schema(void)
{
	return access(ZCS_SIGMF_SCHEMA, R_OK) == 0 ? ZCS_SIGMF_SCHEMA : "-";
}

/* Validates PATH.sigmf-meta against the schema and returns a one-line summary. */
static void sigmf_summary(const char *path, char *out, size_t len)
{
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c \"$PY\" '%s' '%s.sigmf-meta'",
		 sigmf_schema(), path);
	setenv("PY", validate_py, 1);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out[0] = '\0';
	if (!fgets(out, (int)len, p))
		out[0] = '\0';
	ck_assert_int_eq(pclose(p), 0);
	out[strcspn(out, "\n")] = '\0';
}

static void commit_zeros(struct zcs_outputs *o, uint64_t first, size_t pairs)
{
	memset(zcs_outputs_reserve(o, pairs * 4), 0, pairs * 4);
	zcs_outputs_commit(o, first, pairs, pairs * 4);
}

START_TEST(test_sigmf_valid_captures_annotations)
{
	struct zcs_outputs *o;
	struct zcs_meta m = test_meta(1000000, 100000000);
	char path[128], spec[160], summary[2048], err[256];
	struct stat st;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/rec", tmpdir);
	snprintf(spec, sizeof(spec), "sigmf:%s", path);
	/* native has no SigMF datatype (p12) */
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_NATIVE), 0);
	ck_assert_int_eq(zcs_outputs_add(o, spec, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "SigMF"));
	zcs_outputs_destroy(o, 0);

	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	m.ref_sample = 1000;   /* the datetime is adjusted to each capture's first sample */
	zcs_outputs_meta(o, &m);
	commit_zeros(o, 1000, 500);            /* file 0..499 = stream 1000..1499 */
	zcs_outputs_gap(o, 1500, 100, true);   /* filled: zeros committed after the event */
	commit_zeros(o, 1500, 100);            /* file 500..599 */
	commit_zeros(o, 1600, 400);            /* file 600..999: capture at 600 / 1600 */
	commit_zeros(o, 2000, 50);             /* file 1000..1049 */
	zcs_outputs_gap(o, 2050, 950, false);  /* dropped: capture at 1050 / 3000 */
	commit_zeros(o, 3000, 100);            /* file 1050..1149 */
	m.center_freq = 145000000;             /* retune: capture at 1150 / 3100 */
	m.meta_version++;
	zcs_outputs_meta(o, &m);
	commit_zeros(o, 3100, 100);            /* file 1150..1249 */
	commit_zeros(o, 3200, 10);             /* zeros first, then the event: capture 1260 */
	zcs_outputs_gap(o, 3200, 10, true);
	commit_zeros(o, 3210, 40);             /* file 1260..1299 */
	commit_zeros(o, 3300, 10);             /* an unannounced jump (an overrun upstream) */
	zcs_outputs_eos(o);
	zcs_outputs_destroy(o, 10000);

	snprintf(spec, sizeof(spec), "%s.sigmf-data", path);
	ck_assert_int_eq(stat(spec, &st), 0);
	ck_assert_int_eq(st.st_size, 1310 * 4);
	sigmf_summary(path, summary, sizeof(summary));
	ck_assert_str_eq(summary,
		"ci16_le 1000000 1.0.0 "
		"C0/1000/100000000/2023-11-14T22:13:20.000000000Z "
		"C600/1600/100000000/2023-11-14T22:13:20.000600000Z "
		"C1050/3000/100000000/2023-11-14T22:13:20.002000000Z "
		"C1150/3100/145000000/2023-11-14T22:13:20.002100000Z "
		"C1260/3210/145000000/2023-11-14T22:13:20.002210000Z "
		"C1300/3300/145000000/2023-11-14T22:13:20.002300000Z "
		"A500/100/100 samples lost "
		"A1050/0/950 samples lost "
		"A1250/10/10 samples lost "
		"A1300/0/50 samples lost (zcs-recv output overrun)");
	remove_tmpdir();
}
END_TEST


/* Pairs [first, first + pairs) whose 32-bit values are their stream indexes (cs16). */
static void commit_index(struct zcs_outputs *o, uint64_t first, size_t pairs)
{
	uint8_t *const w = zcs_outputs_reserve(o, pairs * 4);

	for (size_t i = 0; i < pairs; i++)
		zcs_put_le32(w + 4 * i, (uint32_t)(first + i));
	zcs_outputs_commit(o, first, pairs, pairs * 4);
}

/* Checks that PATH.sigmf-data holds exactly the pairs the spec lists: "A-B" for indexes A..B
 * (commit_index), "zN" for N zero pairs. */
static void check_data(const char *path, const char *const *spans, size_t nspans)
{
	char name[200];
	FILE *f;
	uint8_t pair[4];
	uint64_t pos = 0;

	snprintf(name, sizeof(name), "%s.sigmf-data", path);
	f = fopen(name, "rb");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < nspans; i++) {
		unsigned long long a = 0, b = 0;
		const bool zeros = spans[i][0] == 'z';

		if (zeros)
			b = strtoull(spans[i] + 1, NULL, 10) - 1;
		else
			ck_assert_int_eq(sscanf(spans[i], "%llu-%llu", &a, &b), 2);
		for (unsigned long long k = zeros ? 0 : a; k <= b; k++, pos++) {
			ck_assert_msg(fread(pair, 1, 4, f) == 4, "%s: ends at pair %llu", name,
				      (unsigned long long)pos);
			ck_assert_msg(zcs_get_le32(pair) == (zeros ? 0 : (uint32_t)k),
				      "%s: pair %llu is %u, not %llu", name, (unsigned long long)pos,
				      zcs_get_le32(pair), zeros ? 0ULL : k);
		}
	}
	ck_assert_msg(fread(pair, 1, 4, f) == 0, "%s: longer than %llu pairs", name,
		      (unsigned long long)pos);
	fclose(f);
}

/* A sample-rate change announced with its index (a keyed receiver believes it at once): the
 * recording ends at the last sample before it, PATH-1 starts with that index as its sample 0,
 * at the new rate, even inside a block; a new stream at yet another rate starts PATH-2.  A
 * symlink planted at PATH-1's data name is replaced, its target never written. */
START_TEST(test_sigmf_rate_change_new_recording)
{
	struct zcs_outputs *o;
	struct zcs_meta m = test_meta(1000000, 100000000);
	char path[128], p1[140], p2[140], spec[160], summary[2048], victim[140], buf[16];
	struct stat st;
	FILE *f;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/rec", tmpdir);
	snprintf(p1, sizeof(p1), "%s-1", path);
	snprintf(p2, sizeof(p2), "%s-2", path);
	snprintf(victim, sizeof(victim), "%s/victim", tmpdir);
	f = fopen(victim, "w");
	ck_assert_ptr_nonnull(f);
	fputs("keep", f);
	fclose(f);
	snprintf(spec, sizeof(spec), "%s.sigmf-data", p1);
	ck_assert_int_eq(symlink(victim, spec), 0);
	snprintf(spec, sizeof(spec), "sigmf:%s", path);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	commit_index(o, 0, 1000);
	m.meta_version++;
	m.flags = ZCS_META_FLAG_CHANGE;
	m.sample_rate = 2000000;
	m.center_freq = 145000000;
	m.ref_sample = 1500;
	m.ref_time_ns += 1500000;              /* 1500 samples at 1 MS/s */
	zcs_outputs_meta(o, &m);
	commit_index(o, 1000, 1000);           /* 1500 lies inside this block */
	commit_index(o, 2000, 100);
	m = test_meta(3000000, 100000000);     /* a new stream, another rate: at its first data */
	m.stream_id = 0x5678;
	zcs_outputs_meta(o, &m);
	commit_index(o, 0, 100);
	zcs_outputs_eos(o);
	zcs_outputs_destroy(o, 10000);

	sigmf_summary(path, summary, sizeof(summary));
	ck_assert_str_eq(summary, "ci16_le 1000000 1.0.0 "
			 "C0/0/100000000/2023-11-14T22:13:20.000000000Z");
	check_data(path, (const char *const[]){ "0-1499" }, 1);
	sigmf_summary(p1, summary, sizeof(summary));
	ck_assert_str_eq(summary, "ci16_le 2000000 1.0.0 "
			 "C0/1500/145000000/2023-11-14T22:13:20.001500000Z");
	check_data(p1, (const char *const[]){ "1500-2099" }, 1);
	sigmf_summary(p2, summary, sizeof(summary));
	ck_assert_str_eq(summary, "ci16_le 3000000 1.0.0 "
			 "C0/0/100000000/2023-11-14T22:13:20.000000000Z");
	check_data(p2, (const char *const[]){ "0-99" }, 1);
	snprintf(spec, sizeof(spec), "%s.sigmf-data", p1);
	ck_assert_int_eq(lstat(spec, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	f = fopen(victim, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "keep");
	remove_tmpdir();
}
END_TEST

/* A rate change believed late (an unkeyed receiver waits 500 ms): the samples from its index
 * on, already written, move to PATH-1 with the gap annotation and the capture among them, at
 * the new rate's times and frequency; PATH keeps exactly the samples before the index. */
START_TEST(test_sigmf_rate_change_late_moves_tail)
{
	struct zcs_outputs *o;
	struct zcs_meta m = test_meta(1000000, 100000000);
	char path[128], p1[140], spec[160], summary[2048];

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/rec", tmpdir);
	snprintf(p1, sizeof(p1), "%s-1", path);
	snprintf(spec, sizeof(spec), "sigmf:%s", path);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	commit_index(o, 0, 1000);
	zcs_outputs_gap(o, 1000, 100, true);   /* before the change: stays in PATH */
	commit_zeros(o, 1000, 100);
	commit_index(o, 1100, 500);
	zcs_outputs_gap(o, 1600, 100, true);   /* after the change: moves */
	commit_zeros(o, 1600, 100);
	commit_index(o, 1700, 300);
	m.meta_version++;
	m.flags = ZCS_META_FLAG_CHANGE;
	m.sample_rate = 2000000;
	m.center_freq = 145000000;
	m.ref_sample = 1200;
	m.ref_time_ns += 1200000;
	zcs_outputs_meta(o, &m);
	commit_index(o, 2000, 100);
	zcs_outputs_eos(o);
	zcs_outputs_destroy(o, 10000);

	sigmf_summary(path, summary, sizeof(summary));
	ck_assert_str_eq(summary, "ci16_le 1000000 1.0.0 "
			 "C0/0/100000000/2023-11-14T22:13:20.000000000Z "
			 "C1100/1100/100000000/2023-11-14T22:13:20.001100000Z "
			 "A1000/100/100 samples lost");
	check_data(path, (const char *const[]){ "0-999", "z100", "1100-1199" }, 3);
	sigmf_summary(p1, summary, sizeof(summary));
	ck_assert_str_eq(summary, "ci16_le 2000000 1.0.0 "
			 "C0/1200/145000000/2023-11-14T22:13:20.001200000Z "
			 "C500/1700/145000000/2023-11-14T22:13:20.001450000Z "
			 "A400/100/100 samples lost");
	check_data(p1, (const char *const[]){ "1200-1599", "z100", "1700-2099" }, 3);
	remove_tmpdir();
}
END_TEST

/* Regression: a recording killed in its first second left a meta file with neither a capture
 * nor the sample rate (the meta is rewritten once a second, and the first was written before
 * the stream came).  Now, once the data file holds a sample, a meta describing it is on disk. */
START_TEST(test_sigmf_killed_leaves_valid_meta)
{
	const struct zcs_meta m = test_meta(1000000, 100000000);
	char path[128], data[160], summary[2048];
	struct stat st;
	int status;
	pid_t pid;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/killed", tmpdir);
	snprintf(data, sizeof(data), "%s.sigmf-data", path);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct zcs_outputs *o;
		char spec[160], err[256];
		uint64_t idx = 0;

		snprintf(spec, sizeof(spec), "sigmf:%s", path);
		if (zcs_outputs_create(&o, ZCS_SAMPLE_CS16) < 0 ||
		    zcs_outputs_add(o, spec, err, sizeof(err)) < 0 || zcs_outputs_start(o) < 0)
			_exit(1);
		sleep_ms(100);      /* the writer idles first, as with a sender not yet there */
		zcs_outputs_meta(o, &m);
		for (;;) {           /* until killed */
			commit_zeros(o, idx, 1000);
			idx += 1000;
			zcs_outputs_flush(o);
			sleep_ms(10);
		}
	}
	/* the moment the first samples are in the file */
	WAIT_FOR(stat(data, &st) == 0 && st.st_size > 0);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	sigmf_summary(path, summary, sizeof(summary));
	ck_assert_str_eq(summary,
		"ci16_le 1000000 1.0.0 C0/0/100000000/2023-11-14T22:13:20.000000000Z");
	remove_tmpdir();
}
END_TEST

/* Regression: a gap every datagram for hours grew the metadata to a million entries each (a
 * 150 MB meta file rewritten every second).  Now 65536 of each at most, the rest counted in
 * core:description, and the file stays valid. */
START_TEST(test_sigmf_entries_bounded)
{
	static const char *const count_py =
		"import json, sys\n"
		"meta = json.load(open(sys.argv[2]))\n"
		"if sys.argv[1] != '-':\n"
		"    import jsonschema\n"
		"    jsonschema.validate(meta, json.load(open(sys.argv[1])))\n"
		"print(len(meta['annotations']), meta['global']['core:description'])\n";
	const struct zcs_meta m = test_meta(1000000, 100000000);
	char path[128], spec[160], cmd[512], line[512] = "";
	const uint32_t gaps = (1u << 16) + 100;
	struct zcs_outputs *o;
	FILE *p;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/many", tmpdir);
	snprintf(spec, sizeof(spec), "sigmf:%s", path);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	commit_zeros(o, 0, 10);
	for (uint32_t i = 0; i < gaps; i++) {
		zcs_outputs_gap(o, 10 + 2 * (uint64_t)i, 1, false);
		if (i % 128 == 127)    /* the writer keeps up: no event is an overrun */
			WAIT_FOR(stats_of(o, 0).queued == 0);
	}
	zcs_outputs_eos(o);
	ck_assert_int_eq(zcs_outputs_drain(o, 10000), 0);
	ck_assert_uint_eq(stats_of(o, 0).overruns, 0);
	zcs_outputs_destroy(o, 10000);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 -c \"$PY\" '%s' '%s.sigmf-meta'",
		 sigmf_schema(), path);
	setenv("PY", count_py, 1);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), p));
	ck_assert_int_eq(pclose(p), 0);
	ck_assert_str_eq(line, "65536 100 captures and annotations (gaps, retunes) past the first "
			       "65536 of each are not recorded here\n");
	remove_tmpdir();
}
END_TEST

/* A client that half-closes (nc -N: shutdown(SHUT_WR)) is not gone: it still gets every block. */
START_TEST(test_tcp_half_close_keeps_receiving)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	uint8_t *buf = malloc(BLK);
	char spec[32];
	int fd;

	log_text[0] = 0;
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_HALF);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	fd = tcp_connect_to(PORT_HALF);
	WAIT_FOR(stats_of(o, 0).consumers == 1);
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	WAIT_FOR(log_has("closed its sending side"));
	for (uint32_t i = 0; i < 8; i++) {
		push_block(o, i);
		ck_assert_uint_eq(read_full(fd, buf, BLK), BLK);
		ck_assert_uint_eq(block_seq(buf), i);
	}
	ck_assert_uint_eq(stats_of(o, 0).consumers, 1);
	ck_assert(!log_has("left"));
	close(fd);
	WAIT_FOR((push_block(o, 9), stats_of(o, 0).consumers == 0));
	zcs_outputs_destroy(o, 1000);
	free(buf);
}
END_TEST

/* Four clients that connect and never read held every slot for ever: now a fifth that is turned
 * away makes one of them go (it has taken nothing for the client timeout while data waited),
 * and the fifth's retry gets whole blocks. */
START_TEST(test_tcp_idle_clients_dropped)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	uint8_t *buf = malloc(BLK);
	int idle[ZCS_OUT_MAX_CLIENTS], fd;
	uint32_t seq = 0, first;
	char spec[32];

	log_text[0] = 0;
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_IDLE);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	zcs_outputs_set_client_timeout(o, 300);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	for (int i = 0; i < ZCS_OUT_MAX_CLIENTS; i++)
		idle[i] = tcp_connect_to(PORT_IDLE);
	WAIT_FOR(stats_of(o, 0).consumers == ZCS_OUT_MAX_CLIENTS);
	/* data flows and the idle clients' sockets and queues fill (they skip: they never read);
	 * nobody is turned away yet, so they stay */
	WAIT_FOR((push_block(o, seq++), stats_of(o, 0).skipped > 0));
	ck_assert_uint_eq(stats_of(o, 0).consumers, ZCS_OUT_MAX_CLIENTS);
	/* a fifth is turned away (closed at once): one stalled client goes for its retry */
	fd = tcp_connect_to(PORT_IDLE);
	ck_assert_uint_eq(read_full(fd, buf, 1), 0);
	close(fd);
	WAIT_FOR(log_has("refused: already 4 clients"));
	WAIT_FOR((push_block(o, seq++), stats_of(o, 0).consumers < ZCS_OUT_MAX_CLIENTS));
	/* one turned away, one dropped: the others keep their slots */
	ck_assert_uint_eq(log_count("read nothing for 0.3 s while data waited and a client was "
				    "turned away: dropped"), 1);
	ck_assert_uint_eq(stats_of(o, 0).consumers, ZCS_OUT_MAX_CLIENTS - 1);
	fd = tcp_connect_to(PORT_IDLE);
	WAIT_FOR(stats_of(o, 0).consumers == ZCS_OUT_MAX_CLIENTS);
	/* blocks pushed before its sink took it are not its: read on to the first whole block */
	first = seq;
	for (uint32_t i = 0; i < 4; i++)
		push_block(o, seq++);
	ck_assert_uint_eq(read_full(fd, buf, BLK), BLK);
	ck_assert_uint_ge(block_seq(buf), first);
	zcs_outputs_destroy(o, 1000);
	close(fd);
	for (int i = 0; i < ZCS_OUT_MAX_CLIENTS; i++)
		close(idle[i]);
	free(buf);
}
END_TEST

/* A client that connects and reads only later (GQRX before its power button is pressed) keeps
 * its slot past the client timeout while no other client wants one, and then gets whole blocks
 * of the live stream. */
START_TEST(test_tcp_idle_client_kept_while_no_one_waits)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	uint8_t *buf = malloc(BLK);
	uint32_t seq = 0;
	char spec[32];
	int fd;

	log_text[0] = 0;
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_IDLE + 1);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	zcs_outputs_set_client_timeout(o, 100);
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	fd = tcp_connect_to(PORT_IDLE + 1);
	WAIT_FOR(stats_of(o, 0).consumers == 1);
	WAIT_FOR((push_block(o, seq++), stats_of(o, 0).skipped > 0));
	/* ten client timeouts with data waiting: it would have gone in the first */
	for (int i = 0; i < 100; i++) {
		push_block(o, seq++);
		sleep_ms(10);
	}
	ck_assert_uint_eq(stats_of(o, 0).consumers, 1);
	ck_assert(!log_has("read nothing"));
	ck_assert_uint_eq(read_full(fd, buf, BLK), BLK);
	for (uint32_t i = 0; i < 8; i++)
		push_block(o, seq++);
	ck_assert_uint_eq(read_full(fd, buf, BLK), BLK);
	ck_assert_uint_eq(stats_of(o, 0).consumers, 1);
	zcs_outputs_destroy(o, 1000);
	close(fd);
	free(buf);
}
END_TEST

/* A client that took the live stream from its start and then stops reading loses blocks in the
 * middle of its stream: overruns, not skipped (#24: only the start of a consumer is skipped). */
START_TEST(test_tcp_slow_after_caught_up_overruns)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	struct reader r = { .go = true };
	struct zcs_output_stats st;
	uint8_t *buf = malloc(BLK);
	uint32_t seq = 0, taken;
	pthread_t t;
	char spec[32];

	log_text[0] = 0;
	snprintf(spec, sizeof(spec), "tcp:%d", PORT_CAUGHT_UP);
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, spec);
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	r.fd = tcp_connect_to(PORT_CAUGHT_UP);
	WAIT_FOR(stats_of(o, 0).consumers == 1);
	/* read in step, eight blocks at a time (far below what the queue holds), ZCS_OUT_CATCHUP_BYTES
	 * of them; with everything read and the queue empty, zcs says it caught up */
	while ((uint64_t)seq * BLK < ZCS_OUT_CATCHUP_BYTES) {
		for (uint32_t i = 0; i < 8; i++)
			push_block(o, seq + i);
		for (uint32_t i = 0; i < 8; i++) {
			ck_assert_uint_eq(read_full(r.fd, buf, BLK), BLK);
			ck_assert_uint_eq(block_seq(buf), seq);
			seq++;
		}
	}
	WAIT_FOR(log_has("caught up with the live stream (0 blocks skipped"));
	taken = seq;
	/* it stops reading (its socket still takes some): then its queue fills */
	WAIT_FOR((push_block(o, seq++), stats_of(o, 0).overruns > 0));
	ck_assert_uint_eq(stats_of(o, 0).skipped, 0);
	/* it reads again: what the kernel and its queue held comes whole, then a hole in the
	 * middle, then the blocks that follow */
	pthread_create(&t, NULL, reader_main, &r);
	WAIT_FOR(stats_of(o, 0).queued == 0);
	for (int i = 0; i < 10; i++)
		push_block(o, seq++);
	zcs_outputs_flush(o);
	WAIT_FOR((st = stats_of(o, 0), (uint64_t)taken * BLK + atomic_load(&r.bytes) +
		  st.overruns * BLK == (uint64_t)seq * BLK));
	zcs_outputs_destroy(o, 1000);
	pthread_join(t, NULL);
	ck_assert_uint_eq(r.out_of_order, 0);
	ck_assert_uint_eq(r.first_seq, taken);
	ck_assert_uint_ge(r.jumps, 1);
	ck_assert_uint_eq(r.last_seq, seq - 1);
	ck_assert_uint_eq(st.skipped, 0);
	close(r.fd);
	free(buf);
}
END_TEST

/* A file output that cannot write (a full disk: /dev/full) has ended for good, and says so to
 * the program, which then exits 1; a reader gone is told apart (EPIPE). */
START_TEST(test_file_full_fails)
{
	struct zcs_outputs *o;
	const struct zcs_meta m = test_meta(1000000, 100000000);
	size_t idx = 99;
	bool all = false;

	log_text[0] = 0;
	ck_assert_int_eq(zcs_outputs_create(&o, ZCS_SAMPLE_CS16), 0);
	zcs_outputs_set_log(o, (struct zcs_log){ log_cb, NULL });
	add_ok(o, "file:/dev/null");
	add_ok(o, "file:/dev/full");
	ck_assert_int_eq(zcs_outputs_start(o), 0);
	zcs_outputs_meta(o, &m);
	ck_assert_int_eq(zcs_outputs_failed(o, &idx, &all), 0);
	push_block(o, 0);
	WAIT_FOR(zcs_outputs_failed(o, &idx, &all) != 0);
	ck_assert_int_eq(zcs_outputs_failed(o, &idx, &all), ENOSPC);
	ck_assert_uint_eq(idx, 1);
	ck_assert(!all);
	/* the failure is published before its news is written: wait for the line */
	WAIT_FOR(log_has("file:/dev/full: cannot write: No space left on device"));
	zcs_outputs_destroy(o, 1000);
}
END_TEST

static Suite *outputs_suite(void)
{
	Suite *s = suite_create("outputs");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_file_exact_bytes);
	tcase_add_test(tc, test_deferred_wakes);
	tcase_add_test(tc, test_stdout_exclusive);
	tcase_add_test(tc, test_fifo_reader_leaves_and_returns);
	tcase_add_test(tc, test_tcp_connect_reconnects);
	tcase_add_test(tc, test_udp_datagram_sizes);
	tcase_add_test(tc, test_rtltcp_cmd_settings);
	tcase_add_test(tc, test_rtltcp_conversion_all_types);
	tcase_add_test(tc, test_rtltcp_greeting_commands_and_cu8);
	tcase_add_test(tc, test_add_out_of_fds_spares_fd0);
	tcase_add_test(tc, test_add_errors_leak_nothing);
	tcase_add_test(tc, test_long_spec_given_twice);
	tcase_add_test(tc, test_file_on_fifo_never_blocks);
	tcase_add_test(tc, test_destroy_with_stalled_consumers);
	tcase_add_test(tc, test_accept_out_of_fds_does_not_spin);
	tcase_add_test(tc, test_rtltcp_command_flood);
	tcase_add_test(tc, test_tcp_refusal_storm);
	tcase_add_test(tc, test_tcp_half_close_keeps_receiving);
	tcase_add_test(tc, test_tcp_idle_clients_dropped);
	tcase_add_test(tc, test_tcp_idle_client_kept_while_no_one_waits);
	tcase_add_test(tc, test_file_full_fails);
	suite_add_tcase(s, tc);
	/* consumers that come and start late, or fall behind after they caught up (#24) */
	tc = tcase_create("catch_up");
	tcase_add_test(tc, test_tcp_fast_and_slow_client);
	tcase_add_test(tc, test_tcp_slow_after_caught_up_overruns);
	suite_add_tcase(s, tc);
	return s;
}

/* The SigMF recordings, each .sigmf-meta validated against the SigMF schema besides this file's
 * own checks: the test outputs_sigmf (the argument "sigmf"). */
static Suite *sigmf_suite(void)
{
	Suite *s = suite_create("outputs_sigmf");
	TCase *tc = tcase_create("sigmf");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sigmf_valid_captures_annotations);
	tcase_add_test(tc, test_sigmf_killed_leaves_valid_meta);
	tcase_add_test(tc, test_sigmf_entries_bounded);
	tcase_add_test(tc, test_sigmf_rate_change_new_recording);
	tcase_add_test(tc, test_sigmf_rate_change_late_moves_tail);
	suite_add_tcase(s, tc);
	return s;
}

/* The exit status by which meson counts a test as skipped. */
#define EXIT_SKIP 77

/* No argument: every case but the SigMF recordings'; "sigmf": those.  Without the schema the
 * SigMF cases still run their own checks (a failure fails), but the schema's did not run: the
 * test is then a skip, which meson counts, never a silent pass. */
int main(int argc, char **argv)
{
	const bool sigmf = argc > 1 && strcmp(argv[1], "sigmf") == 0;
	SRunner *sr = srunner_create(sigmf ? sigmf_suite() : outputs_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (failed)
		return EXIT_FAILURE;
	if (sigmf && strcmp(sigmf_schema(), "-") == 0) {
		printf("SKIP: no SigMF schema at %s: the recordings passed this file's own checks, "
		       "not the schema's\n", ZCS_SIGMF_SCHEMA);
		return EXIT_SKIP;
	}
	return EXIT_SUCCESS;
}
