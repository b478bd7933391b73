// SPDX-License-Identifier: MIT
/* Regression test (#23): zcs_pipeline_tune_init() ignored pthread_condattr_setclock()'s result,
 * yet zcs_pipeline_retune() waits on the condition variable until a CLOCK_MONOTONIC deadline: on
 * the realtime default that deadline is a date in 1970 and every wait would time out at once.
 * The call is made to fail here (linked with --wrap): set-up must fail with its error and leave
 * nothing behind; then, with the call working again, set-up succeeds on CLOCK_MONOTONIC. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline_impl.h"

int __real_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);

static int fail_with;      /* the error the next call returns, 0: the real call */
static clockid_t asked;    /* the clock the last call asked for */

int __wrap_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);
int __wrap_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
{
	asked = clock;
	if (fail_with)
		return fail_with;
	return __real_pthread_condattr_setclock(attr, clock);
}

int main(void)
{
	struct zcs_pipeline *p = calloc(1, sizeof(*p));
	int failures = 0, ret;

	if (!p)
		return printf("FAIL: out of memory\n"), 1;
	p->ext_db.fd = -1;
	fail_with = EINVAL;
	asked = (clockid_t)-1;
	ret = zcs_pipeline_tune_init(p);
	if (ret != -EINVAL) {
		printf("FAIL: set-up with the clock refused returned %d (%s), not -EINVAL\n", ret,
		       ret < 0 ? strerror(-ret) : "success");
		failures++;
	} else {
		printf("ok: set-up with the clock refused fails with -EINVAL\n");
	}
	if (asked != CLOCK_MONOTONIC) {
		printf("FAIL: the clock asked for was %d, not CLOCK_MONOTONIC\n", (int)asked);
		failures++;
	}
	if (p->tune_init || p->ext_db.fd >= 0) {
		printf("FAIL: a failed set-up left state behind (tune_init %d, doorbell fd %d)\n",
		       p->tune_init, p->ext_db.fd);
		failures++;
	}
	zcs_pipeline_tune_fini(p); /* what zcs_pipeline_destroy does after a failed create */

	fail_with = 0;
	ret = zcs_pipeline_tune_init(p);
	if (ret != 0 || !p->tune_init) {
		printf("FAIL: set-up with the clock working returned %d\n", ret);
		failures++;
	} else {
		printf("ok: set-up with the clock working succeeds on CLOCK_MONOTONIC\n");
	}
	zcs_pipeline_tune_fini(p);
	free(p);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
