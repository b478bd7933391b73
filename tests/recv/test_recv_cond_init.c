// SPDX-License-Identifier: MIT
/* Regression test: the receiver's threads (the rtl_tcp forwarder's control link, ctl_fwd.c; the
 * liveness check, ctl_live.c; the SoapySDR module's reader, rx_embed.c) set up their condition
 * variables and mutexes without looking at the results, and ctl_fwd.c and rx_embed.c then wait on
 * deadlines a clock other than the variable's would misread (the sender's fix, pipeline_tune.c,
 * was not made here).  The calls are made to fail (linked with --wrap): each set-up must fail
 * with that error and leave nothing behind; with the calls working, each succeeds, and the
 * variables with timed waits ask for CLOCK_MONOTONIC. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctl_fwd.h"
#include "ctl_live.h"
#include "key.h"
#include "rx_embed.h"

int __real_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);
int __real_pthread_cond_init(pthread_cond_t *cv, const pthread_condattr_t *attr);
int __real_pthread_mutex_init(pthread_mutex_t *mu, const pthread_mutexattr_t *attr);
int __wrap_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);
int __wrap_pthread_cond_init(pthread_cond_t *cv, const pthread_condattr_t *attr);
int __wrap_pthread_mutex_init(pthread_mutex_t *mu, const pthread_mutexattr_t *attr);

/* the error the next call of each returns, 0: the real call */
static int setclock_fails, cond_fails, mutex_fails;
static clockid_t asked = (clockid_t)-1;  /* the clock the last setclock asked for */

int __wrap_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock)
{
	asked = clock;
	return setclock_fails ? setclock_fails : __real_pthread_condattr_setclock(attr, clock);
}

int __wrap_pthread_cond_init(pthread_cond_t *cv, const pthread_condattr_t *attr)
{
	return cond_fails ? cond_fails : __real_pthread_cond_init(cv, attr);
}

int __wrap_pthread_mutex_init(pthread_mutex_t *mu, const pthread_mutexattr_t *attr)
{
	return mutex_fails ? mutex_fails : __real_pthread_mutex_init(mu, attr);
}

static int failures;

static void expect(const char *what, int got, int want)
{
	if (got == want) {
		printf("ok: %s returns %d\n", what, got);
		return;
	}
	printf("FAIL: %s returned %d (%s), not %d\n", what, got,
	       got < 0 ? strerror(-got) : "success", want);
	failures++;
}

static void fwd(struct zcs_key *key, const char *what, int want)
{
	struct zcs_ctl_fwd *f = NULL;
	char err[256] = "";

	asked = (clockid_t)-1;
	expect(what, zcs_ctl_fwd_start(&f, "127.0.0.1:24999", key, NULL, 0,
				       (struct zcs_log){ 0 }, err, sizeof(err)), want);
	if (want < 0 && f) {
		printf("FAIL: %s left a forwarder behind\n", what);
		failures++;
	}
	if (asked != CLOCK_MONOTONIC) {
		printf("FAIL: %s: the clock asked for was %d, not CLOCK_MONOTONIC\n", what, (int)asked);
		failures++;
	}
	zcs_ctl_fwd_stop(f);
}

static void live(struct zcs_key *key, const char *what, int want)
{
	struct zcs_ctl_live *l = NULL;
	char err[256] = "";

	expect(what, zcs_ctl_live_start(&l, "24999", key, (struct zcs_log){ 0 }, err, sizeof(err)),
	       want);
	if (want < 0 && l) {
		printf("FAIL: %s left a liveness check behind\n", what);
		failures++;
	}
	zcs_ctl_live_stop(l);
}

static void embed(const char *what, int want)
{
	const struct zcs_rx_embed_opts o = { .listen = "127.0.0.1:24998", .type = ZCS_SAMPLE_CS16 };
	struct zcs_rx_embed *e = NULL;
	char err[256] = "";

	asked = (clockid_t)-1;
	expect(what, zcs_rx_embed_open(&e, &o, err, sizeof(err)), want);
	if (want < 0 && e) {
		printf("FAIL: %s left a reader behind\n", what);
		failures++;
	}
	if (asked != CLOCK_MONOTONIC) {
		printf("FAIL: %s: the clock asked for was %d, not CLOCK_MONOTONIC\n", what, (int)asked);
		failures++;
	}
	zcs_rx_embed_close(e);
}

int main(void)
{
	struct zcs_key key;

	memset(&key, 0x5a, sizeof(key));
	setclock_fails = EINVAL;
	fwd(&key, "ctl_fwd with the clock refused", -EINVAL);
	embed("rx_embed with the clock refused", -EINVAL);
	setclock_fails = 0;
	mutex_fails = EAGAIN;
	fwd(&key, "ctl_fwd with no mutex", -EAGAIN);
	live(&key, "ctl_live with no mutex", -EAGAIN);
	embed("rx_embed with no mutex", -EAGAIN);
	mutex_fails = 0;
	cond_fails = ENOMEM;
	live(&key, "ctl_live with no condition variable", -ENOMEM);
	cond_fails = 0;
	fwd(&key, "ctl_fwd with every call working", 0);
	live(&key, "ctl_live with every call working", 0);
	embed("rx_embed with every call working", 0);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
