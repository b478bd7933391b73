/* SPDX-License-Identifier: MIT */
/* --send-threads 2: which trains the second send thread takes.  On the board every interrupt
 * lands on CPU0, where the second send thread runs beside the source thread, and the GEM's
 * transmit completions are much of a sent frame's cost (docs/board.md, section 8): an even split
 * of the trains leaves CPU0 the busier core.  So the share of trains handed aside follows the
 * two cores' load as the kernel counts it (/proc/stat: interrupts, softirqs and every other
 * program included), moving trains towards the idler core until both carry the same.  Pure
 * arithmetic and one parser: the send thread owns the state and does the reading. */
#ifndef ZCS_SPREAD_H
#define ZCS_SPREAD_H

#include <stdbool.h>
#include <stdint.h>

/* A share of trains, in units of 1 / ZCS_SPREAD_ONE. */
#define ZCS_SPREAD_ONE 1024u

/* One core's time from /proc/stat, in the kernel's ticks (USER_HZ). */
struct zcs_cpu_load {
	uint64_t busy;  /* user, nice, system, irq, softirq, steal */
	uint64_t total; /* busy, idle and iowait */
};

struct zcs_spread {
	unsigned share;         /* of ZCS_SPREAD_ONE: the trains the second send thread gets */
	unsigned acc;           /* spreads them evenly (zcs_spread_pick) */
	/* the last reading, and of which cores: a thread that moved starts a new interval */
	int cpu_first, cpu_second;
	struct zcs_cpu_load first, second;
	bool have;
};

/* Starts at `share` (of ZCS_SPREAD_ONE) of the trains. */
void zcs_spread_init(struct zcs_spread *sp, unsigned share);
/* Whether the next train goes to the second send thread: `share` of every ZCS_SPREAD_ONE trains,
 * as evenly spaced as whole trains allow. */
bool zcs_spread_pick(struct zcs_spread *sp);
/* A reading of the core the send thread runs on (cpu_first, its load `first`) and the core the
 * second send thread runs on (cpu_second, `second`), both from their boot: moves the share
 * towards equal load over the interval since the last reading of the same two cores, or, while
 * the first core is less busy than `floor` (of ZCS_SPREAD_ONE; 0: always balance), towards none
 * (--send-threads auto: a core with room sends alone, without the second's wake-ups).  Returns
 * true when it moved the share.  A share may reach 0 or all the trains (one core already carries
 * the other's interrupts and more). */
bool zcs_spread_balance(struct zcs_spread *sp, int cpu_first, const struct zcs_cpu_load *first,
			int cpu_second, const struct zcs_cpu_load *second, unsigned floor);

/* CPU `cpu`'s line of /proc/stat's text (NUL-terminated): 0, -ENOENT when the text has no line
 * for it, -EINVAL when that line is not one. */
int zcs_cpu_load_parse(const char *text, int cpu, struct zcs_cpu_load *out);
/* The same for the n CPUs cpus[] from one reading of an open /proc/stat: 0 or -errno. */
int zcs_cpu_load_read(int fd, const int *cpus, struct zcs_cpu_load *out, unsigned n);

#endif
