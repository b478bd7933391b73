// SPDX-License-Identifier: MIT
/* libzcs-fakewall.so, for tests only: preloaded (LD_PRELOAD), it makes a program's wall clock
 * start at ZCS_FAKE_WALL_NS nanoseconds since 1970 and run on from there, as a board without a
 * real-time clock does after a boot (a Pluto reads 1970 unless NTP reaches it).  Monotonic clocks
 * are untouched.  tests/security/test_fresh.py runs zcs-send under it; nothing ships it. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t base_ns = -1;      /* the wall clock at start, from the environment */
static int64_t mono0_ns;          /* CLOCK_MONOTONIC then */

static int64_t raw_ns(clockid_t id)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void fakewall_init(void)
{
	const char *s = getenv("ZCS_FAKE_WALL_NS");
	char *end;
	long long v;

	if (!s)
		return;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0)
		return;
	base_ns = v;
	mono0_ns = raw_ns(CLOCK_MONOTONIC);
}

static int64_t fake_ns(void)
{
	return base_ns + (raw_ns(CLOCK_MONOTONIC) - mono0_ns);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (base_ns >= 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
		const int64_t t = fake_ns();

		ts->tv_sec = (time_t)(t / 1000000000);
		ts->tv_nsec = (long)(t % 1000000000);
		return 0;
	}
	return (int)syscall(SYS_clock_gettime, id, ts);
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;

	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
