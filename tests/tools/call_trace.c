// SPDX-License-Identifier: MIT
// Records which functions a program enters and leaves, for tests/tools/datagram_path.py: an
// LD_PRELOAD library for a build made with -finstrument-functions.  Each event is the function's
// offset in the executable, the thread and enter/leave, kept in a fixed array (no allocation
// while the program runs) and written to $ZCS_CALL_TRACE when the program exits.
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NO_TRACE __attribute__((no_instrument_function))
#define MAX_EVENTS (1u << 22)

struct call_event {
	uint32_t offset;
	uint32_t tid_enter; /* thread id << 1 | 1 on enter */
};

static struct call_event events[MAX_EVENTS];
static atomic_uint n_events;
static uintptr_t exe_base;

NO_TRACE static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = info->dlpi_addr; /* the first object listed is the executable */
	return 1;
}

NO_TRACE __attribute__((constructor)) static void trace_start(void)
{
	dl_iterate_phdr(first_object, &exe_base);
}

NO_TRACE static void record(void *fn, uint32_t enter)
{
	unsigned i = atomic_fetch_add_explicit(&n_events, 1, memory_order_relaxed);

	if (i >= MAX_EVENTS)
		return;
	events[i].offset = (uint32_t)((uintptr_t)fn - exe_base);
	events[i].tid_enter = (uint32_t)syscall(SYS_gettid) << 1 | enter;
}

/* what -finstrument-functions calls at every function's entry and exit */
NO_TRACE void __cyg_profile_func_enter(void *fn, void *site);
NO_TRACE void __cyg_profile_func_exit(void *fn, void *site);

NO_TRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	record(fn, 1);
}

NO_TRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	record(fn, 0);
}

NO_TRACE __attribute__((destructor)) static void trace_write(void)
{
	const char *path = getenv("ZCS_CALL_TRACE");
	unsigned n = atomic_load(&n_events);
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	if (n > MAX_EVENTS)
		n = MAX_EVENTS;
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%u %c %x\n", events[i].tid_enter >> 1, events[i].tid_enter & 1 ? '>' : '<',
			events[i].offset);
	fclose(f);
}
