// SPDX-License-Identifier: MIT
/* What steers the pipeline's two threads from inside and out: pinning each to its CPU, and the
 * stop both obey.  Apart from pipeline.c, which starts the threads, so that the thread files
 * never call back into it. */
#include <sched.h>
#include <string.h>

#include "pipeline_impl.h"

void zcs_pipeline_pin(struct zcs_pipeline *p, int cpu, const char *who)
{
	cpu_set_t set;
	int ret;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET((size_t)cpu, &set);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (ret)
		zcs_log(&p->cfg.log, "cannot pin the %s thread to CPU%d: %s", who, cpu,
			strerror(ret));
}

void zcs_pipeline_stop(struct zcs_pipeline *p)
{
	atomic_store(&p->stop, true);
	zcs_doorbell_ring(&p->free_db);
}
