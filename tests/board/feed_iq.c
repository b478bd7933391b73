// SPDX-License-Identifier: MIT
/* The emulated board's "ADC": feeds the FIFO standing in for /dev/iio:deviceN with the known
 * pattern (iq_pattern.h), behaving like the kernel's IIO buffer: data only while buffer/enable
 * is 1, only the channels whose scan_elements in_voltageN_en are 1, stale data dropped on
 * disable. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "iq_pattern.h"

#define CHUNK_PAIRS 4096u    /* pairs generated per write by default; 16-64 KB */
#define CHUNK_MAX 65536u     /* --chunk's limit: 1 MB of 4 channels, the FIFO's size */
#define IDLE_MS 5            /* how often a disabled buffer's enable file is looked at */
#define STALL_S 0.2          /* a longer gap between two rounds is logged: the DMA never stalls */

#define PIPE_BYTES (1 << 20)  /* the FIFO's size, asked for at start */

struct feed {
	const char *sysdir;  /* /sys/bus/iio/devices/iio:deviceN */
	int fd;              /* the FIFO, read+write so it never blocks and can be drained */
	double rate;         /* pairs per second, 0 = as fast as the reader takes them */
	uint32_t jump;       /* pairs "lost" while disabled: k jumps by this on re-enable */
	uint32_t k;          /* next pair index */
	uint32_t mark;       /* log once per enable when the reader has taken this many pairs */
	double overrun_s;    /* a reader this far behind the rate loses samples (0: never) */
	uint32_t chunk;      /* pairs per write; paced with --chunk, whole chunks only */
	bool whole;
	unsigned int mask;   /* enabled channels voltage0..3 */
	bool follow;         /* pace at the capture core's sampling_frequency, as its DMA does */
	bool lo_log;         /* log each change of ad9361-phy's RX LO with the k it holds from */
	char lo[32];         /* the RX LO file's last text */
	double tone_at;      /* --tone-at: a carrier at this RF frequency (Hz) instead of the pattern */
	double phase;        /* ... its phase, turns, carried across chunks and retunes */
	uint32_t noise;      /* ... the state of its dither (xorshift32) */
	FILE *log;
};

__attribute__((format(printf, 2, 3)))
static void logf_(const struct feed *f, const char *fmt, ...)
{
	va_list ap;

	if (!f->log)
		return;
	va_start(ap, fmt);
	vfprintf(f->log, fmt, ap);
	va_end(ap);
	fflush(f->log);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Reads a sysfs-style attribute file of the device; returns its first character or 0. */
static char attr_char(const struct feed *f, const char *rel)
{
	char path[512], c = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", f->sysdir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c;
}

static unsigned int read_mask(const struct feed *f)
{
	unsigned int m = 0;

	for (unsigned int c = 0; c < 4; c++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "scan_elements/in_voltage%u_en", c);
		if (attr_char(f, rel) == '1')
			m |= 1u << c;
	}
	return m;
}

/* The kernel frees a disabled buffer's data: whatever the reader left in the FIFO goes.  In one
 * read larger than the pipe (the pipe's lock is held for all of it): drained 64 KB at a time,
 * the reader could take a piece from the middle between two reads, and the stream would jump
 * forward with no DISCONT, as no kernel does (board-send-disable under ASan once). */
static size_t drain(const struct feed *f)
{
	static char junk[PIPE_BYTES * 2];
	size_t total = 0;
	ssize_t r;

	while ((r = read(f->fd, junk, sizeof(junk))) > 0)
		total += (size_t)r;
	return total;
}

/* A few LSBs of triangular noise: without it a tone whose period is a whole number of samples
 * quantizes into spurs at its harmonics (what an 8-bit rtl_tcp client would show). */
static int dither(struct feed *f)
{
	uint32_t x = f->noise;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	f->noise = x;
	return (int)(x & 31) + (int)(x >> 5 & 31) - 31;
}

/* --tone-at: what the ADC sees of a carrier at tone_at Hz with the LO at the RX LO file's value:
 * a complex tone at tone_at - LO, half of full scale, the same on every receiver, over a little
 * noise; the noise alone when the carrier falls outside the band (+-rate/2), as the analogue
 * filter would leave it.  A retune moves it on the next chunk: the pairs from the k check_lo
 * logs. */
static size_t fill_tone(struct feed *f, int16_t *out, size_t pairs)
{
	const double off = f->tone_at - strtod(f->lo, NULL);
	const bool inband = fabs(off) < f->rate / 2;
	const double step = off / f->rate;
	size_t w = 0;

	for (size_t n = 0; n < pairs; n++, f->k = (f->k + 1) & IQ_PATTERN_MASK) {
		const int16_t i = (int16_t)((inband ? lrint(1023.0 * cos(2 * M_PI * f->phase)) : 0) +
					    dither(f));
		const int16_t q = (int16_t)((inband ? lrint(1023.0 * sin(2 * M_PI * f->phase)) : 0) +
					    dither(f));

		f->phase += step;
		f->phase -= floor(f->phase);
		for (unsigned int c = 0; c < 4; c++)
			if (f->mask & (1u << c))
				out[w++] = c & 1 ? q : i;
	}
	return w * sizeof(out[0]);
}

static size_t fill(struct feed *f, int16_t *out, size_t pairs)
{
	size_t w = 0;

	if (f->tone_at > 0)
		return fill_tone(f, out, pairs);

	for (size_t n = 0; n < pairs; n++, f->k = (f->k + 1) & IQ_PATTERN_MASK)
		for (unsigned int c = 0; c < 4; c++)
			if (f->mask & (1u << c))
				out[w++] = iq_pattern_word(f->k, c);
	return w * sizeof(out[0]);
}

/* Logs, once per enabled spell, when the reader has taken f->mark pairs out of the FIFO: tests
 * wait for it so that a disturbance lands after the reader's refill completed, i.e. after
 * samples went out, instead of guessing with a sleep (under load the reader may be far behind).
 * Taken = written since the enable minus what still sits in the FIFO. */
static void check_mark(const struct feed *f, uint64_t wrote, uint32_t k_enabled, bool *marked)
{
	const unsigned int chans = (unsigned int)__builtin_popcount(f->mask);
	int queued = 0;

	if (!f->mark || *marked || ioctl(f->fd, FIONREAD, &queued) < 0)
		return;
	if (wrote - (uint64_t)queued >= (uint64_t)f->mark * chans * sizeof(int16_t)) {
		*marked = true;
		logf_(f, "feed_iq: reader took %u pairs since the enable at k=%u\n", f->mark,
		      k_enabled);
	}
}

static void sleep_ms(int ms)
{
	const struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* The radio retuned: pairs from f->k on (the next chunk) are the first the "ADC" takes at the
 * new LO, so a test can compare where the signal changed with where the stream says it did. */
static void check_lo(struct feed *f)
{
	char path[512], now[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/../iio:device0/out_altvoltage0_RX_LO_frequency",
		 f->sysdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, now, sizeof(now) - 1);
	close(fd);
	if (n <= 0)
		return;
	now[n] = '\0';
	now[strcspn(now, "\n")] = '\0';
	if (f->lo[0] && strcmp(now, f->lo) != 0)
		logf_(f, "feed_iq: lo %s at k=%u\n", now, f->k);
	snprintf(f->lo, sizeof(f->lo), "%s", now);
}

/* --follow-rate: the "ADC" delivers at the rate the capture core says (board_driver.c keeps it:
 * the AD9361's rate over the decimator's factor); a change restarts the pacing from now and is
 * logged with the k it holds from.  Returns true when the rate changed. */
static bool check_rate(struct feed *f, double *t0, uint64_t *sent)
{
	char path[512], now[32] = "";
	ssize_t n;
	double r;
	int fd;

	snprintf(path, sizeof(path), "%s/in_voltage_sampling_frequency", f->sysdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, now, sizeof(now) - 1);
	close(fd);
	if (n <= 0)
		return false;
	now[n] = '\0';
	r = strtod(now, NULL);
	if (!(r > 0) || r == f->rate)
		return false;
	f->rate = r;
	*t0 = now_s();
	*sent = 0;
	logf_(f, "feed_iq: rate %.0f at k=%u\n", r, f->k);
	return true;
}

static int run(struct feed *f)
{
	static int16_t out[CHUNK_MAX * 4];
	size_t len = 0, off = 0;
	bool enabled = false, ever = false, marked = false;
	double t0 = 0;
	uint64_t sent = 0, wrote = 0;
	uint32_t k_enabled = 0;

	for (double last = now_s();;) {
		const bool en = attr_char(f, "buffer/enable") == '1';
		const double t = now_s();

		/* Logged so that a failure under load shows whether the "ADC" itself was starved */
		if (t - last > STALL_S)
			logf_(f, "feed_iq: stalled %.0f ms at k=%u\n", (t - last) * 1e3, f->k);
		last = t;

		if (en && !enabled) {
			f->mask = read_mask(f);
			if (!f->mask) {
				sleep_ms(IDLE_MS);
				continue;
			}
			if (ever)
				f->k = (f->k + f->jump) & IQ_PATTERN_MASK;
			ever = enabled = true;
			t0 = now_s();
			sent = wrote = 0;
			if (f->follow)
				(void)check_rate(f, &t0, &sent);
			marked = false;
			k_enabled = f->k;
			len = off = 0;
			logf_(f, "feed_iq: enabled mask 0x%x at k=%u\n", f->mask, f->k);
		} else if (!en && enabled) {
			enabled = false;
			len = off = 0;
			logf_(f, "feed_iq: disabled at k=%u, dropped %zu bytes\n", f->k, drain(f));
		}
		if (!enabled) {
			sleep_ms(IDLE_MS);
			continue;
		}
		check_mark(f, wrote, k_enabled, &marked);
		if (off == len && f->lo_log)
			check_lo(f);
		if (off == len && f->follow)
			(void)check_rate(f, &t0, &sent);
		if (off == len) {
			size_t pairs = f->chunk;

			if (f->rate > 0) {
				const double due = (now_s() - t0) * f->rate - (double)sent;

				/* --chunk: a DMA completes whole blocks, one wake-up of the reader each;
				 * otherwise at least 1 ms of samples a write (no DMA is finer): a pair at
				 * a time would spin on a core, with two attribute reads a pair */
				double least = f->rate / 1000.0;

				if (least < 1.0)
					least = 1.0;
				if (least > (double)f->chunk || f->whole)
					least = (double)f->chunk;
				if (due < least) {
					sleep_ms(1);
					continue;
				}
				/* a DMA does not wait for a slow reader: what it could not take is gone */
				if (f->overrun_s > 0 && due > f->overrun_s * f->rate) {
					const uint32_t lost = (uint32_t)due;

					f->k = (f->k + lost) & IQ_PATTERN_MASK;
					sent += lost;
					logf_(f, "feed_iq: overrun, dropped %u pairs\n", lost);
					continue;
				}
				if (due < pairs)
					pairs = (size_t)due;
			}
			len = fill(f, out, pairs);
			off = 0;
			sent += pairs;
		}
		const ssize_t w = write(f->fd, (const char *)out + off, len - off);

		if (w > 0) {
			off += (size_t)w;
			wrote += (uint64_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd p = { .fd = f->fd, .events = POLLOUT };

			(void)poll(&p, 1, IDLE_MS);
		} else if (w < 0 && errno != EINTR) {
			perror("feed_iq: write");
			return 1;
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: feed_iq [--rate SPS] [--jump N] [--start K] [--mark PAIRS] "
		"[--overrun-ms MS] [--chunk PAIRS] [--follow-rate] [--lo-log] [--tone-at HZ] [--quiet] "
		"SYSFS_DEVICE_DIR FIFO\n");
}

int main(int argc, char **argv)
{
	struct feed f = { .jump = 1000000, .log = stderr, .chunk = CHUNK_PAIRS, .noise = 1 };
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			f.rate = strtod(argv[++i], NULL);
		else if (!strcmp(argv[i], "--jump") && i + 1 < argc)
			f.jump = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--start") && i + 1 < argc)
			f.k = (uint32_t)strtoul(argv[++i], NULL, 0) & IQ_PATTERN_MASK;
		else if (!strcmp(argv[i], "--mark") && i + 1 < argc)
			f.mark = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
			f.chunk = (uint32_t)strtoul(argv[++i], NULL, 0);
			f.whole = true;
			if (f.chunk == 0 || f.chunk > CHUNK_MAX) {
				fprintf(stderr, "feed_iq: --chunk 1..%u\n", CHUNK_MAX);
				return 2;
			}
		} else if (!strcmp(argv[i], "--overrun-ms") && i + 1 < argc)
			f.overrun_s = strtod(argv[++i], NULL) / 1e3;
		else if (!strcmp(argv[i], "--follow-rate"))
			f.follow = true;
		else if (!strcmp(argv[i], "--lo-log"))
			f.lo_log = true;
		else if (!strcmp(argv[i], "--tone-at") && i + 1 < argc) {
			f.tone_at = strtod(argv[++i], NULL);
			f.lo_log = true;   /* the tone follows the LO: it is read every chunk */
		} else if (!strcmp(argv[i], "--quiet"))
			f.log = NULL;
		else {
			usage();
			return 2;
		}
	}
	if (argc - i != 2) {
		usage();
		return 2;
	}
	if (f.tone_at > 0 && !(f.rate > 0)) {
		fprintf(stderr, "feed_iq: --tone-at needs --rate (the tone's frequency is per sample)\n");
		return 2;
	}
	f.sysdir = argv[i];
	f.fd = open(argv[i + 1], O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f.fd < 0) {
		perror(argv[i + 1]);
		return 1;
	}
	/* A bigger pipe means fewer wake-ups; the drain on disable keeps it honest. */
	(void)fcntl(f.fd, F_SETPIPE_SZ, PIPE_BYTES);
	return run(&f);
}
