/* SPDX-License-Identifier: MIT */
/* Clocks in nanoseconds: monotonic for pacing and intervals, realtime for wall-clock stamps. */
#ifndef ZCS_CLOCK_H
#define ZCS_CLOCK_H

#include <stdint.h>
#include <errno.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_NS_PER_SEC 1000000000ULL

static inline uint64_t zcs_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * ZCS_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline uint64_t zcs_mono_ns(void)
{
	return zcs_clock_ns(CLOCK_MONOTONIC);
}

static inline uint64_t zcs_wall_ns(void)
{
	return zcs_clock_ns(CLOCK_REALTIME);
}

/* Sleeps until an absolute CLOCK_MONOTONIC time; absolute so pacing error never accumulates. */
static inline void zcs_sleep_until_ns(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / ZCS_NS_PER_SEC),
			       .tv_nsec = (long)(t % ZCS_NS_PER_SEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#ifdef __cplusplus
}
#endif

#endif
