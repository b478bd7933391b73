// SPDX-License-Identifier: MIT
/* The per-function profile of bench_board_icount.sh (ZCS_ICOUNT_PROFILE=1): samples CPU 0 with
 * perf's cpu-clock every PERIOD ns, every task and the kernel alike, while a cell runs.  On the
 * guest run with qemu's -icount shift=0 the clock advances 1 ns per executed instruction, so a
 * sample falls every PERIOD instructions of execution and a function's share of the samples is
 * its share of the instructions (what ran with interrupts off is sampled where they come back on).
 *
 * usage: icount_sampler [-p PERIOD_NS] [-i DRAIN_MS] READY OUT
 *   READY  a FIFO: "ready" (or "error ...") is written to it once the event counts, so the
 *          caller knows the cell can start
 *   OUT    the profile, written on SIGINT or SIGTERM: the tasks' names, forks and executable
 *          mappings as the kernel reported them, then one "sample PID TID IP COUNT" line per
 *          distinct place (bench_board_icount_profile.py reads it; its header says the format).
 * Samples are counted in a fixed table as they are drained, so the file stays small whatever the
 * cell's length; the idle task's samples fold onto a few addresses. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* distinct (pid, tid, ip) places: a cell touches some thousands; a place that finds the table
 * full is counted in "unplaced" and the table says so */
#define SLOTS (1u << 18)
/* 2 MB of ring: at a sample every 50 us (24 bytes each) and a drain every 50 ms of guest time,
 * a drain finds about 24 KB */
#define RING_PAGES 512u
/* tasks named at the end: a cell runs some tens */
#define TASKS 1024u

struct slot {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t count;
};

struct sampler {
	struct slot *slots;
	struct {
		uint32_t pid, tid;
	} tasks[TASKS];
	size_t ntasks;
	uint64_t samples, unplaced, lost, throttled, unthrottled, other;
	FILE *out;
	unsigned char *ring; /* the mmap: the control page, then the data pages */
	size_t page, data_size;
	int fd;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Each task seen, once: their names are read when the cell is over. */
static void note_task(struct sampler *s, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == tid && s->tasks[i].pid == pid)
			return;
	if (s->ntasks < TASKS) {
		s->tasks[s->ntasks].pid = pid;
		s->tasks[s->ntasks].tid = tid;
		s->ntasks++;
	}
}

static void count_sample(struct sampler *s, uint32_t pid, uint32_t tid, uint64_t ip)
{
	uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 40) ^ (tid * 0x85ebca6bu);
	uint32_t n;

	s->samples++;
	for (n = 0; n < 64; n++) {
		struct slot *e = &s->slots[(h + n) & (SLOTS - 1)];

		if (e->count == 0) {
			e->ip = ip;
			e->pid = pid;
			e->tid = tid;
			e->count = 1;
			note_task(s, pid, tid);
			return;
		}
		if (e->ip == ip && e->tid == tid && e->pid == pid) {
			e->count++;
			return;
		}
	}
	s->unplaced++;
}

/* A string field of a record: NUL-terminated inside [p, end), printed with its spaces and
 * controls made '_' so that a line stays one line of words. */
static void put_name(FILE *f, const unsigned char *p, const unsigned char *end)
{
	for (; p < end && *p; p++)
		fputc(*p > ' ' && *p < 0x7f ? *p : '_', f);
}

/* One record of LEN bytes (its header included).  Offsets are the kernel's ABI
 * (include/uapi/linux/perf_event.h) for this event's sample_type and sample_id_all = 0. */
static void record(struct sampler *s, const unsigned char *r, size_t len)
{
	const uint32_t type = get32(r);
	const uint16_t misc = (uint16_t)(r[4] | r[5] << 8);
	const unsigned char *end = r + len;

	switch (type) {
	case PERF_RECORD_SAMPLE: /* u64 ip; u32 pid, tid */
		if (len >= 24)
			count_sample(s, get32(r + 16), get32(r + 20), get64(r + 8));
		break;
	case PERF_RECORD_COMM: /* u32 pid, tid; char comm[] */
		if (len > 16) {
			fprintf(s->out, "comm %u %u %d ", get32(r + 8), get32(r + 12),
				(misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
			put_name(s->out, r + 16, end);
			fputc('\n', s->out);
		}
		break;
	case PERF_RECORD_FORK: /* u32 pid, ppid, tid, ptid; u64 time */
	case PERF_RECORD_EXIT:
		if (len >= 24)
			fprintf(s->out, "%s %u %u %u %u\n", type == PERF_RECORD_FORK ? "fork" : "exit",
				get32(r + 8), get32(r + 12), get32(r + 16), get32(r + 20));
		break;
	case PERF_RECORD_MMAP: /* u32 pid, tid; u64 addr, len, pgoff; char filename[] */
		if (len > 40) {
			fprintf(s->out, "mmap %u %u %llx %llx %llx ", get32(r + 8), get32(r + 12),
				(unsigned long long)get64(r + 16), (unsigned long long)get64(r + 24),
				(unsigned long long)get64(r + 32));
			put_name(s->out, r + 40, end);
			fputc('\n', s->out);
		}
		break;
	case PERF_RECORD_LOST: /* u64 id, lost */
		if (len >= 24)
			s->lost += get64(r + 16);
		break;
	case PERF_RECORD_THROTTLE:
		s->throttled++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		s->unthrottled++;
		break;
	default:
		s->other++;
	}
}

/* Everything the kernel has written since the last drain; a record that wraps past the ring's end
 * is put together in a scratch copy first. */
static void drain(struct sampler *s)
{
	struct perf_event_mmap_page *const pg = (struct perf_event_mmap_page *)(void *)s->ring;
	const unsigned char *const data = s->ring + s->page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	unsigned char rec[1024];

	while (tail < head) {
		const size_t off = (size_t)(tail % s->data_size);
		unsigned char hdr[8];
		size_t len, i;

		for (i = 0; i < sizeof(hdr); i++)
			hdr[i] = data[(off + i) % s->data_size];
		len = (size_t)(hdr[6] | hdr[7] << 8);
		if (len < sizeof(hdr) || len > head - tail)
			break; /* not a record: stop here rather than read garbage */
		if (len <= sizeof(rec)) {
			for (i = 0; i < len; i++)
				rec[i] = data[(off + i) % s->data_size];
			record(s, rec, len);
		} else {
			s->other++;
		}
		tail += len;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

/* The name the task has now (kernel threads and the tasks older than the event have no COMM
 * record); nothing when it is gone. */
static void put_task_name(FILE *f, uint32_t pid, uint32_t tid)
{
	char path[64], name[64];
	FILE *c;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	c = fopen(path, "r");
	if (!c)
		return;
	if (fgets(name, sizeof(name), c)) {
		name[strcspn(name, "\n")] = 0;
		fprintf(f, "task %u %u ", pid, tid);
		put_name(f, (const unsigned char *)name, (const unsigned char *)name + strlen(name));
		fputc('\n', f);
	}
	fclose(c);
}

static void finish(struct sampler *s, unsigned long long period)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++)
		put_task_name(s->out, s->tasks[i].pid, s->tasks[i].tid);
	for (i = 0; i < SLOTS; i++) {
		const struct slot *e = &s->slots[i];

		if (e->count)
			fprintf(s->out, "sample %u %u %llx %llu\n", e->pid, e->tid,
				(unsigned long long)e->ip, (unsigned long long)e->count);
	}
	fprintf(s->out,
		"total period_ns=%llu samples=%llu unplaced=%llu lost=%llu throttled=%llu "
		"unthrottled=%llu other_records=%llu\n",
		period, (unsigned long long)s->samples, (unsigned long long)s->unplaced,
		(unsigned long long)s->lost, (unsigned long long)s->throttled,
		(unsigned long long)s->unthrottled, (unsigned long long)s->other);
}

static int usage(void)
{
	fputs("usage: icount_sampler [-p PERIOD_NS] [-i DRAIN_MS] READY OUT\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct sampler s = { .fd = -1 };
	struct perf_event_attr attr;
	unsigned long long period = 50000, drain_ms = 50;
	struct sigaction sa;
	FILE *ready = NULL;
	char *end;
	int opt, ret = 1;

	while ((opt = getopt(argc, argv, "p:i:")) != -1) {
		switch (opt) {
		case 'p':
			period = strtoull(optarg, &end, 10);
			if (*end || period < 10000) /* perf's cpu-clock floor: 10 us */
				return usage();
			break;
		case 'i':
			drain_ms = strtoull(optarg, &end, 10);
			if (*end || drain_ms == 0 || drain_ms > 10000)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (argc - optind != 2)
		return usage();
	ready = fopen(argv[optind], "w");
	if (!ready) {
		fprintf(stderr, "icount_sampler: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	s.out = fopen(argv[optind + 1], "w");
	s.slots = calloc(SLOTS, sizeof(*s.slots));
	if (!s.out || !s.slots) {
		fprintf(ready, "error %s: %s\n", argv[optind + 1], strerror(errno));
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	attr.disabled = 1;
	attr.mmap = 1; /* executable mappings: where a user address's code came from */
	attr.comm = 1;
	attr.task = 1; /* forks: which thread of a process was made when */
	/* user, kernel, hypervisor and idle alike: exclude_* stay 0 */
	s.fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (s.fd < 0) {
		fprintf(ready, "error perf_event_open: %s\n", strerror(errno));
		goto out;
	}
	s.page = (size_t)sysconf(_SC_PAGESIZE);
	s.data_size = RING_PAGES * s.page;
	s.ring = mmap(NULL, s.page + s.data_size, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	if (s.ring == MAP_FAILED) {
		s.ring = NULL;
		fprintf(ready, "error mmap: %s\n", strerror(errno));
		goto out;
	}
	fprintf(s.out, "# icount_sampler period_ns=%llu\n", period);
	if (ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		fprintf(ready, "error enable: %s\n", strerror(errno));
		goto out;
	}
	fputs("ready\n", ready);
	fclose(ready);
	ready = NULL;
	while (!stop) {
		struct timespec ts = { (time_t)(drain_ms / 1000), (long)(drain_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		drain(&s);
	}
	ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0);
	drain(&s);
	finish(&s, period);
	ret = fflush(s.out) == 0 ? 0 : 1;
out:
	if (ready)
		fclose(ready);
	if (s.ring)
		munmap(s.ring, s.page + s.data_size);
	if (s.fd >= 0)
		close(s.fd);
	if (s.out)
		fclose(s.out);
	free(s.slots);
	return ret;
}
