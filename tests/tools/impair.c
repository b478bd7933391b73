// SPDX-License-Identifier: MIT
/* zcs-impair: a seeded UDP impairment relay for tests.  It drops, duplicates, reorders, burst-drops
 * and delays zcs sample datagrams and injects malformed ones, and logs the ground truth (what it did
 * to every sequence number) as JSON lines, so a test knows exactly what a receiver should report. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "net.h"
#include "proto.h"

/* Common prefix of every zcs datagram (docs/protocol.md): magic at 0-1, version at 2.  Each
 * malformed datagram is checked with zcs_proto_parse before it leaves, so a drift of these
 * offsets from the protocol makes the tool fail loudly instead of logging a false truth. */
#define WIRE_OFF_MAGIC 0
#define WIRE_OFF_VERSION 2

#define SLOT_BYTES 65536   /* any UDP payload fits */
#define MAX_HELD 64        /* reordered datagrams held back at once */
#define DRAIN_MAX 256      /* datagrams read in a row before anything else is looked at */
/* The receive buffer asked for by default (SO_RCVBUFFORCE as root: the kernel doubles it for its
 * bookkeeping).  A relay starved of CPU on a loaded machine must not lose what it is told to
 * relay in its own socket: everything it did not see is outside its ground truth. */
#define RCVBUF_DEFAULT (64 << 20)
/* SO_MEMINFO (Linux 4.12) and its drop counter's index, for older headers */
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif
#define MEMINFO_DROPS 8    /* SK_MEMINFO_DROPS */
#define MEMINFO_VARS 9

enum garbage_kind { G_TRUNCATED, G_BAD_MAGIC, G_BAD_VERSION, G_BAD_LENGTH, G_RANDOM, G_KINDS };
static const char *const garbage_names[G_KINDS] = {
	"truncated", "bad_magic", "bad_version", "bad_length", "random"
};

struct opts {
	const char *listen, *to, *in_iface, *out_iface, *log_path, *ready_path;
	uint64_t seed, count, idle_ms, delay_ms, reorder_depth, burst_len, slots, ttl, rcvbuf;
	bool spare_ends, parity;
	double p_drop, p_dup, p_reorder, p_burst, p_garbage;
};

struct stats {
	uint64_t received, sample_dgrams, samples, other, forwarded, dropped, dropped_samples, burst_dropped;
	uint64_t bursts, duplicated, reordered, garbage, garbage_by_kind[G_KINDS], sent, send_errors;
	uint64_t delay_overflow, spared;
	uint64_t parity, parity_dropped;    /* --parity: parity datagrams, and those dropped */
};

struct held {
	size_t slot;
	uint32_t stream;
	uint64_t seq, left, passed;
	uint16_t samples;
};

struct delayed {
	size_t slot;
	uint64_t due_ns;
};

struct relay {
	struct opts o;
	int in_fd, out_fd;
	FILE *log;
	uint8_t *pool;          /* o.slots buffers of SLOT_BYTES */
	size_t *lens, *free_stack, nfree;
	struct delayed *dq;     /* FIFO: one constant delay keeps due times in order */
	size_t dq_head, dq_len;
	struct held held[MAX_HELD];
	size_t nheld;
	uint64_t rng, grng, burst_left;
	struct zcs_sample_hdr tmpl;
	struct stats st;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* splitmix64: tiny, fixed, and the same on every platform, so a seed replays exactly. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static double rng_u01(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint8_t *slot_buf(struct relay *r, size_t slot)
{
	return r->pool + slot * SLOT_BYTES;
}

static void slot_free(struct relay *r, size_t slot)
{
	r->free_stack[r->nfree++] = slot;
}

static void send_slot(struct relay *r, size_t slot)
{
	if (send(r->out_fd, slot_buf(r, slot), r->lens[slot], 0) < 0)
		r->st.send_errors++; /* e.g. ECONNREFUSED while nobody listens yet */
	else
		r->st.sent++;
	slot_free(r, slot);
}

static void dq_pop_send(struct relay *r)
{
	const size_t slot = r->dq[r->dq_head].slot;

	r->dq_head = (r->dq_head + 1) % r->o.slots;
	r->dq_len--;
	send_slot(r, slot);
}

static void send_due(struct relay *r, bool all)
{
	while (r->dq_len) {
		const uint64_t due = r->dq[r->dq_head].due_ns;
		const uint64_t t = now_ns();

		if (t < due) {
			if (!all)
				return;
			const struct timespec ts = { .tv_sec = (time_t)((due - t) / 1000000000ull),
						     .tv_nsec = (long)((due - t) % 1000000000ull) };
			nanosleep(&ts, NULL);
		}
		dq_pop_send(r);
	}
}

/* Every datagram leaves through here: now, or after --delay-ms. */
static void emit(struct relay *r, size_t slot)
{
	if (!r->o.delay_ms) {
		send_slot(r, slot);
		return;
	}
	r->dq[(r->dq_head + r->dq_len) % r->o.slots] = (struct delayed){
		.slot = slot, .due_ns = now_ns() + r->o.delay_ms * 1000000ull };
	r->dq_len++;
}

/* A free buffer; when all are queued for delay the oldest leaves early (counted). */
static size_t slot_get(struct relay *r)
{
	if (!r->nfree) {
		r->st.delay_overflow++;
		dq_pop_send(r);
	}
	return r->free_stack[--r->nfree];
}

static size_t slot_copy(struct relay *r, size_t from)
{
	const size_t s = slot_get(r);

	memcpy(slot_buf(r, s), slot_buf(r, from), r->lens[from]);
	r->lens[s] = r->lens[from];
	return s;
}

static void log_event(struct relay *r, const struct zcs_sample_hdr *h, const char *action,
		      const char *extra)
{
	if (r->log)
		fprintf(r->log, "{\"stream\":%" PRIu32 ",\"seq\":%" PRIu64
			",\"samples\":%u,\"action\":\"%s\"%s}\n",
			h->stream_id, h->seq, (unsigned)h->samples, action, extra ? extra : "");
}

static void release_held(struct relay *r, size_t i)
{
	const struct held h = r->held[i];
	const struct zcs_sample_hdr hdr = { .stream_id = h.stream, .seq = h.seq,
					    .samples = h.samples };
	char extra[48];

	r->held[i] = r->held[--r->nheld];
	if (!h.passed) {
		/* released before any later datagram went out (an end of stream came, or a stop): it
		 * goes out in its place, and a receiver rightly sees it in order */
		log_event(r, &hdr, "forwarded", ",\"held\":true");
		r->st.forwarded++;
	} else {
		snprintf(extra, sizeof(extra), ",\"delay\":%" PRIu64, h.passed);
		log_event(r, &hdr, "reordered", extra);
		r->st.reordered++;
	}
	emit(r, h.slot);
}

/* One later sample datagram went out in order (a duplicated pair counts once; releases of other
 * held datagrams do not count): held ones whose count is reached follow it. */
static void tick_held(struct relay *r)
{
	for (size_t i = 0; i < r->nheld;) {
		r->held[i].passed++;
		if (--r->held[i].left == 0)
			release_held(r, i); /* the last entry moved to i: look at i again */
		else
			i++;
	}
}

static void make_garbage(struct relay *r, enum garbage_kind kind)
{
	const size_t s = slot_get(r);
	uint8_t *const b = slot_buf(r, s);
	struct zcs_sample_hdr h = r->tmpl;
	const size_t pair = zcs_wire_pair_bytes(h.format);
	struct zcs_dgram d;
	size_t len;
	int want = 0, got;

	if (h.samples > 16 || h.samples == 0)
		h.samples = 16;
	h.payload_len = (uint16_t)(h.samples * pair);
	len = ZCS_PROTO_SAMPLE_HDR_SIZE + h.payload_len;
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)rng_next(&r->grng);
	switch (kind) {
	case G_TRUNCATED:
		zcs_proto_write_sample_hdr(b, &h);
		len = 2 + rng_next(&r->grng) % (ZCS_PROTO_SAMPLE_HDR_SIZE - 2);
		want = -ZCS_PERR_TRUNCATED;
		break;
	case G_BAD_MAGIC:
		zcs_proto_write_sample_hdr(b, &h);
		b[WIRE_OFF_MAGIC + rng_next(&r->grng) % 2] ^= (uint8_t)(1 + rng_next(&r->grng) % 255);
		want = -ZCS_PERR_BAD_MAGIC;
		break;
	case G_BAD_VERSION:
		zcs_proto_write_sample_hdr(b, &h);
		b[WIRE_OFF_VERSION] = (uint8_t)(ZCS_PROTO_VERSION + 1 + rng_next(&r->grng) % 250);
		want = -ZCS_PERR_BAD_VERSION;
		break;
	case G_BAD_LENGTH: {
		/* the header announces payload_len but 1-16 bytes more or fewer follow */
		const size_t d_len = 1 + rng_next(&r->grng) % 16;

		zcs_proto_write_sample_hdr(b, &h);
		len = (rng_next(&r->grng) & 1) ? len + d_len : len - d_len;
		want = -ZCS_PERR_BAD_LENGTH;
		break;
	}
	default:
		len = 2 + rng_next(&r->grng) % 199; /* one byte would count as truncated */
		b[WIRE_OFF_MAGIC] = 0; /* random bytes that could never pass as zcs */
		break;
	}
	got = zcs_proto_parse(b, len, &d);
	if (got == 0 || (want && got != want)) {
		fprintf(stderr, "zcs-impair: internal error: %s garbage parsed as %s\n",
			garbage_names[kind], zcs_proto_err_name(got));
		exit(2);
	}
	r->lens[s] = len;
	r->st.garbage++;
	r->st.garbage_by_kind[kind]++;
	if (r->log)
		fprintf(r->log, "{\"garbage\":\"%s\",\"len\":%zu,\"reason\":\"%s\"}\n",
			garbage_names[kind], len, zcs_proto_err_name(got));
	emit(r, s);
}

/* The fate of one sample datagram.  Five draws each, whatever the outcome, so that changing one
 * probability does not reshuffle the others' decisions. */
static void impair_sample(struct relay *r, size_t slot, const struct zcs_sample_hdr *h)
{
	const double u_garbage = rng_u01(&r->rng), u_burst = rng_u01(&r->rng);
	const double u_drop = rng_u01(&r->rng), u_dup = rng_u01(&r->rng);
	const double u_reorder = rng_u01(&r->rng);

	r->st.sample_dgrams++;
	r->st.samples += h->samples;
	r->tmpl = *h;
	/* A receiver tells a stream's start from a late join only by datagram 0, and learns how many
	 * samples the datagrams lost at the end held only from the end of stream that follows them;
	 * spared, both arrive once and in place: what was held back goes out before the end. */
	if (r->o.spare_ends && (h->seq == 0 || (h->flags & ZCS_FLAG_EOS))) {
		while (r->nheld)
			release_held(r, 0);
		r->st.spared++;
		log_event(r, h, "spared", NULL);
		emit(r, slot);
		return;
	}
	if (u_garbage < r->o.p_garbage)
		make_garbage(r, (enum garbage_kind)(rng_next(&r->grng) % G_KINDS));
	if (!r->burst_left && u_burst < r->o.p_burst) {
		r->burst_left = r->o.burst_len;
		r->st.bursts++;
	}
	if (r->burst_left || u_drop < r->o.p_drop) {
		const bool burst = r->burst_left > 0;

		if (burst) {
			r->burst_left--;
			r->st.burst_dropped++;
		}
		r->st.dropped++;
		r->st.dropped_samples += h->samples;
		log_event(r, h, "dropped", burst ? ",\"burst\":true" : NULL);
		slot_free(r, slot);
		return;
	}
	if (u_reorder < r->o.p_reorder && r->nheld < MAX_HELD) {
		r->held[r->nheld++] = (struct held){ .slot = slot, .stream = h->stream_id,
			.seq = h->seq, .samples = h->samples, .left = r->o.reorder_depth };
		return;
	}
	if (u_dup < r->o.p_dup) {
		const size_t copy = slot_copy(r, slot);

		log_event(r, h, "duplicated", NULL);
		r->st.duplicated++;
		emit(r, slot);
		emit(r, copy);
	} else {
		log_event(r, h, "forwarded", NULL);
		r->st.forwarded++;
		emit(r, slot);
	}
	tick_held(r);
}

/* --parity: a parity datagram (zcs-send --fec) is lost as a sample datagram would be, at --drop
 * and in the bursts of --burst-drop (one burst runs over both kinds, as on a link); it is never
 * duplicated, held or delayed.  Two draws each, from the stream of draws the sample datagrams
 * use. */
static void impair_parity(struct relay *r, size_t slot)
{
	const double u_burst = rng_u01(&r->rng), u_drop = rng_u01(&r->rng);

	r->st.parity++;
	if (!r->burst_left && u_burst < r->o.p_burst) {
		r->burst_left = r->o.burst_len;
		r->st.bursts++;
	}
	if (r->burst_left || u_drop < r->o.p_drop) {
		if (r->burst_left)
			r->burst_left--;
		r->st.parity_dropped++;
		if (r->log)
			fprintf(r->log, "{\"parity\":true,\"action\":\"dropped\"}\n");
		slot_free(r, slot);
		return;
	}
	if (r->log)
		fprintf(r->log, "{\"parity\":true,\"action\":\"forwarded\"}\n");
	emit(r, slot);
}

static void handle(struct relay *r, size_t slot)
{
	struct zcs_dgram d;

	const bool valid = zcs_proto_parse(slot_buf(r, slot), r->lens[slot], &d) == 0;

	r->st.received++;
	if (valid && d.type == ZCS_DGRAM_SAMPLES) {
		impair_sample(r, slot, &d.hdr);
		return;
	}
	if (valid && r->o.parity && d.type == ZCS_DGRAM_PARITY) {
		impair_parity(r, slot);
		return;
	}
	/* metadata and foreign datagrams pass untouched: the truth is about sample datagrams */
	r->st.other++;
	if (r->log)
		fprintf(r->log, "{\"other\":true,\"len\":%zu,\"action\":\"forwarded\"}\n",
			r->lens[slot]);
	emit(r, slot);
}

/* What the relay's own socket dropped (its buffer full: the relay starved of CPU), from the
 * kernel's count for this socket, which sees every datagram that reached it, metadata included.
 * -1 when the kernel cannot say (before 4.12). */
static int64_t socket_drops(const struct relay *r)
{
	uint32_t mi[MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mi);

	if (getsockopt(r->in_fd, SOL_SOCKET, SO_MEMINFO, mi, &len) < 0 ||
	    len < (MEMINFO_DROPS + 1) * sizeof(uint32_t))
		return -1;
	return mi[MEMINFO_DROPS];
}

static void print_summary(const struct relay *r, FILE *f)
{
	const struct stats *s = &r->st;
	const int64_t drops = socket_drops(r);
	char dtext[24] = "null";

	fprintf(f, "{\"summary\":{\"seed\":%" PRIu64 ",\"received\":%" PRIu64
		",\"sample_dgrams\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"other\":%" PRIu64 ",\"forwarded\":%" PRIu64
		",\"dropped\":%" PRIu64 ",\"dropped_samples\":%" PRIu64 ",\"burst_dropped\":%" PRIu64
		",\"bursts\":%" PRIu64 ",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64
		",\"garbage\":%" PRIu64 ",\"spared\":%" PRIu64 ",\"parity\":%" PRIu64
		",\"parity_dropped\":%" PRIu64 ",\"garbage_by_kind\":{",
		r->o.seed, s->received, s->sample_dgrams, s->samples, s->other, s->forwarded, s->dropped,
		s->dropped_samples, s->burst_dropped, s->bursts, s->duplicated, s->reordered,
		s->garbage, s->spared, s->parity, s->parity_dropped);
	for (int k = 0; k < G_KINDS; k++)
		fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", garbage_names[k], s->garbage_by_kind[k]);
	if (drops >= 0)
		snprintf(dtext, sizeof(dtext), "%" PRId64, drops);
	fprintf(f, "},\"sent\":%" PRIu64 ",\"send_errors\":%" PRIu64 ",\"delay_overflow\":%" PRIu64
		",\"rcvbuf\":%d,\"socket_drops\":%s}}\n", s->sent, s->send_errors, s->delay_overflow,
		zcs_net_rcvbuf(r->in_fd), dtext);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: zcs-impair -l ADDR:PORT -t DEST:PORT [options]\n"
"Relays UDP datagrams from ADDR to DEST, impairing zcs sample datagrams (others pass as they are).\n"
"  -l, --listen ADDR:PORT   where to receive (unicast, wildcard, or a multicast group to join)\n"
"  -t, --to DEST:PORT       where to send (unicast or multicast)\n"
"      --in-iface IF        interface for a multicast --listen\n"
"      --out-iface IF       interface for a multicast --to (SO_BINDTODEVICE for unicast)\n"
"      --ttl N              multicast TTL of --to (default 1)\n"
"  -s, --seed N             PRNG seed (default 1): same seed and input, same result\n"
"      --drop P             drop each sample datagram with probability P (0..1)\n"
"      --dup P              send it twice with probability P\n"
"      --reorder P          hold it back with probability P ...\n"
"      --reorder-depth N    ... until N later datagrams went out (default 3); one an end\n"
"                           of stream or a stop releases before any did is forwarded\n"
"      --burst-drop P:LEN   start, with probability P, a run of LEN dropped datagrams\n"
"      --delay-ms MS        delay every datagram by MS milliseconds\n"
"      --garbage P          before a sample datagram, inject with probability P one malformed\n"
"                           datagram (truncated, bad_magic, bad_version, bad_length, random)\n"
"      --parity             lose parity datagrams (zcs-send --fec) too, at --drop and in the\n"
"                           bursts of --burst-drop (the summary counts parity, parity_dropped)\n"
"      --spare-ends         never impair a stream's datagram 0 nor its end of stream (EOS),\n"
"                           and release held datagrams before an end of stream\n"
"      --slots N            buffers for delayed/held datagrams (default 1024)\n"
"      --rcvbuf BYTES       receive buffer asked for (default 64 MiB; SO_RCVBUFFORCE as root);\n"
"                           the summary says what was granted (rcvbuf) and what the socket\n"
"                           dropped when the relay fell behind (socket_drops, from the kernel)\n"
"  -c, --count N            stop after receiving N datagrams\n"
"      --idle-exit MS       stop when nothing arrived for MS milliseconds\n"
"      --log FILE           ground truth as JSON lines, then a {\"summary\":...} line\n"
"                           (without --log the summary goes to stdout)\n"
"      --ready FILE         create FILE once the sockets are set up\n"
"SIGINT/SIGTERM also stop it.  At a stop, held datagrams are released and delayed ones sent.\n");
}

static int parse_prob(const char *s, double *p)
{
	return zcs_cli_parse_double(s, 0.0, 1.0, p);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' }, { "to", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' }, { "count", required_argument, NULL, 'c' },
		{ "in-iface", required_argument, NULL, 1 }, { "out-iface", required_argument, NULL, 2 },
		{ "ttl", required_argument, NULL, 3 }, { "drop", required_argument, NULL, 4 },
		{ "dup", required_argument, NULL, 5 }, { "reorder", required_argument, NULL, 6 },
		{ "reorder-depth", required_argument, NULL, 7 },
		{ "burst-drop", required_argument, NULL, 8 },
		{ "delay-ms", required_argument, NULL, 9 }, { "garbage", required_argument, NULL, 10 },
		{ "idle-exit", required_argument, NULL, 11 }, { "log", required_argument, NULL, 12 },
		{ "ready", required_argument, NULL, 13 }, { "slots", required_argument, NULL, 14 },
		{ "spare-ends", no_argument, NULL, 15 }, { "rcvbuf", required_argument, NULL, 16 },
		{ "parity", no_argument, NULL, 17 },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	char buf[64], *colon;
	int c, ret = 0;

	*o = (struct opts){ .seed = 1, .reorder_depth = 3, .slots = 1024, .ttl = 1,
			    .rcvbuf = RCVBUF_DEFAULT };
	while ((c = getopt_long(argc, argv, "l:t:s:c:h", lo, NULL)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 't': o->to = optarg; break;
		case 's': ret = zcs_cli_parse_u64(optarg, 0, UINT64_MAX, &o->seed); break;
		case 'c': ret = zcs_cli_parse_u64(optarg, 1, UINT64_MAX, &o->count); break;
		case 1: o->in_iface = optarg; break;
		case 2: o->out_iface = optarg; break;
		case 3: ret = zcs_cli_parse_u64(optarg, 1, 255, &o->ttl); break;
		case 4: ret = parse_prob(optarg, &o->p_drop); break;
		case 5: ret = parse_prob(optarg, &o->p_dup); break;
		case 6: ret = parse_prob(optarg, &o->p_reorder); break;
		case 7: ret = zcs_cli_parse_u64(optarg, 1, 1000000, &o->reorder_depth); break;
		case 8:
			snprintf(buf, sizeof(buf), "%s", optarg);
			colon = strchr(buf, ':');
			if (!colon) {
				ret = -EINVAL;
				break;
			}
			*colon = '\0';
			ret = parse_prob(buf, &o->p_burst);
			if (!ret)
				ret = zcs_cli_parse_u64(colon + 1, 1, 1000000, &o->burst_len);
			break;
		case 9: ret = zcs_cli_parse_u64(optarg, 0, 60000, &o->delay_ms); break;
		case 10: ret = parse_prob(optarg, &o->p_garbage); break;
		case 11: ret = zcs_cli_parse_u64(optarg, 1, UINT64_MAX / 1000000, &o->idle_ms); break;
		case 12: o->log_path = optarg; break;
		case 13: o->ready_path = optarg; break;
		case 14: ret = zcs_cli_parse_u64(optarg, 16, 1 << 16, &o->slots); break;
		case 15: o->spare_ends = true; break;
		/* the kernel takes at most INT_MAX / 2 (and doubles it) */
		case 16: ret = zcs_cli_parse_u64(optarg, 4096, 1u << 30, &o->rcvbuf); break;
		case 17: o->parity = true; break;
		case 'h': usage(stdout); exit(0);
		default: return -EINVAL;
		}
		if (ret) {
			const char *name = "?";

			for (size_t i = 0; lo[i].name; i++)
				if (lo[i].val == c)
					name = lo[i].name;
			fprintf(stderr, "zcs-impair: bad value \"%s\" for --%s\n", optarg, name);
			return ret;
		}
	}
	if (optind != argc || !o->listen || !o->to) {
		fprintf(stderr, "zcs-impair: --listen and --to are required, nothing else\n");
		return -EINVAL;
	}
	/* held datagrams plus a duplicate and a garbage datagram must always find a buffer */
	if (o->slots < MAX_HELD + 16) {
		fprintf(stderr, "zcs-impair: --slots must be at least %d\n", MAX_HELD + 16);
		return -EINVAL;
	}
	return 0;
}

static int setup(struct relay *r, char *err, size_t errlen)
{
	struct zcs_addr in, out;
	const struct zcs_net_rx_opts rx = { .iface = r->o.in_iface, .rcvbuf = (int)r->o.rcvbuf };
	const struct zcs_net_tx_opts tx = { .iface = r->o.out_iface, .ttl = (int)r->o.ttl,
					    .sndbuf = 4 << 20 };
	int ret;

	ret = zcs_net_parse_addr(&in, r->o.listen, ZCS_DEFAULT_PORT, err, errlen);
	if (ret < 0)
		return ret;
	ret = zcs_net_parse_addr(&out, r->o.to, ZCS_DEFAULT_PORT, err, errlen);
	if (ret < 0)
		return ret;
	r->in_fd = zcs_net_udp_receiver(&in, &rx, err, errlen);
	if (r->in_fd < 0)
		return r->in_fd;
	r->out_fd = zcs_net_udp_sender(&out, &tx, err, errlen);
	if (r->out_fd < 0)
		return r->out_fd;
	r->pool = malloc(r->o.slots * SLOT_BYTES);
	r->lens = calloc(r->o.slots, sizeof(*r->lens));
	r->free_stack = calloc(r->o.slots, sizeof(*r->free_stack));
	r->dq = calloc(r->o.slots, sizeof(*r->dq));
	if (!r->pool || !r->lens || !r->free_stack || !r->dq) {
		snprintf(err, errlen, "out of memory for %" PRIu64 " slots", r->o.slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->o.slots; i++)
		r->free_stack[r->nfree++] = r->o.slots - 1 - i;
	r->rng = r->o.seed;
	r->grng = r->o.seed ^ 0x6A09E667F3BCC909ull; /* garbage bytes: their own stream */
	r->tmpl = (struct zcs_sample_hdr){ .stream_id = 0x5A5A5A5A, .format = ZCS_WIRE_I16,
					   .samples = 16 };
	if (r->o.log_path) {
		r->log = fopen(r->o.log_path, "w");
		if (!r->log) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", r->o.log_path, strerror(errno));
			return ret;
		}
	}
	return 0;
}

static void run(struct relay *r)
{
	uint64_t last = now_ns();

	while (!stop && (!r->o.count || r->st.received < r->o.count)) {
		struct pollfd p = { .fd = r->in_fd, .events = POLLIN };
		int timeout = 1000;
		ssize_t n;
		size_t slot;

		if (r->dq_len) {
			const uint64_t due = r->dq[r->dq_head].due_ns, t = now_ns();

			timeout = due > t ? (int)((due - t) / 1000000 + 1) : 0;
		}
		if (r->o.idle_ms) {
			const uint64_t idle_end = last + r->o.idle_ms * 1000000ull, t = now_ns();

			if (t >= idle_end)
				break;
			if ((idle_end - t) / 1000000 + 1 < (uint64_t)timeout)
				timeout = (int)((idle_end - t) / 1000000 + 1);
		}
		/* once readable, drain what waits: a poll before every datagram was a third of the
		 * relay's system calls (at tens of MS/s its socket overflowed on a busy machine) */
		if (poll(&p, 1, timeout) > 0) {
			for (int i = 0; i < DRAIN_MAX; i++) {
				slot = slot_get(r);
				n = recv(r->in_fd, slot_buf(r, slot), SLOT_BYTES, MSG_DONTWAIT);
				if (n < 0) {
					slot_free(r, slot);
					break;
				}
				r->lens[slot] = (size_t)n;
				last = now_ns();
				handle(r, slot);
				if ((r->o.count && r->st.received >= r->o.count) || stop)
					break;
				if (r->dq_len)
					break; /* delayed datagrams may be due: look at them first */
			}
		}
		send_due(r, false);
	}
	/* the stream is over: held datagrams go out now, with the delay they really got */
	while (r->nheld)
		release_held(r, 0);
	send_due(r, true);
}

int main(int argc, char **argv)
{
	struct relay r = { .in_fd = -1, .out_fd = -1 };
	const struct sigaction sa = { .sa_handler = on_signal };
	char err[ZCS_NET_ERR_LEN];
	int ret;

	if (parse_opts(argc, argv, &r.o) < 0) {
		usage(stderr);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = setup(&r, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "zcs-impair: %s\n", err);
		ret = 1;
		goto out;
	}
	if (r.o.ready_path) {
		FILE *f = fopen(r.o.ready_path, "w");

		if (f)
			fclose(f);
	}
	run(&r);
	print_summary(&r, r.log ? r.log : stdout);
	ret = 0;
out:
	if (r.log)
		fclose(r.log);
	free(r.dq);
	free(r.free_stack);
	free(r.lens);
	free(r.pool);
	if (r.out_fd >= 0)
		close(r.out_fd);
	if (r.in_fd >= 0)
		close(r.in_fd);
	return ret;
}
