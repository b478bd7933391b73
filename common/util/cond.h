/* SPDX-License-Identifier: MIT */
/* Condition variables whose timed waits take CLOCK_MONOTONIC deadlines (zcs_mono_ns, clock.h),
 * set up with every step checked: one left on the realtime default reads such a deadline as a
 * date in 1970, and every wait times out at once. */
#ifndef ZCS_COND_H
#define ZCS_COND_H

#include <pthread.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises *cv on CLOCK_MONOTONIC.  Returns 0, or -errno (the attribute refused, or the
 * variable not made) with nothing left to destroy. */
static inline int zcs_cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t ca;
	int ret = pthread_condattr_init(&ca);

	if (ret != 0)
		return -ret;
	ret = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (ret == 0)
		ret = pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
	return -ret;
}

#ifdef __cplusplus
}
#endif

#endif
