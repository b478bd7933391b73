// SPDX-License-Identifier: MIT
/* --send-threads 2: the share of trains the second send thread takes (spread.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spread.h"

/* A load difference of d (of 1) moves the share by d / 4 of all trains.  The two loads part by
 * about twice the send work a share moves (one core gains what the other loses), so each
 * reading takes away half the imbalance of a send path that needs one whole core, and the
 * balance never overshoots while the trains' work is under two cores. */
#define GAIN_SHIFT 2

void zcs_spread_init(struct zcs_spread *sp, unsigned share)
{
	memset(sp, 0, sizeof(*sp));
	sp->share = share < ZCS_SPREAD_ONE ? share : ZCS_SPREAD_ONE;
}

bool zcs_spread_pick(struct zcs_spread *sp)
{
	sp->acc += sp->share;
	if (sp->acc < ZCS_SPREAD_ONE)
		return false;
	sp->acc -= ZCS_SPREAD_ONE;
	return true;
}

/* Busy over the interval from a to b, of ZCS_SPREAD_ONE; -1 when no tick passed (or the counters
 * went back: a core taken offline and back). */
static int64_t busy_over(const struct zcs_cpu_load *a, const struct zcs_cpu_load *b)
{
	if (b->total <= a->total || b->busy < a->busy || b->busy - a->busy > b->total - a->total)
		return -1;
	return (int64_t)((b->busy - a->busy) * ZCS_SPREAD_ONE / (b->total - a->total));
}

bool zcs_spread_balance(struct zcs_spread *sp, int cpu_first, const struct zcs_cpu_load *first,
			int cpu_second, const struct zcs_cpu_load *second, unsigned floor)
{
	const bool same = sp->have && sp->cpu_first == cpu_first && sp->cpu_second == cpu_second;
	int64_t a = -1, b = -1, share;

	if (same) {
		a = busy_over(&sp->first, first);
		b = busy_over(&sp->second, second);
	}
	sp->cpu_first = cpu_first;
	sp->cpu_second = cpu_second;
	sp->first = *first;
	sp->second = *second;
	sp->have = cpu_first != cpu_second;
	if (!sp->have || a < 0 || b < 0)
		return false;
	/* the send thread's core the busier: more trains aside; the other the busier, or the
	 * first under the floor: fewer */
	if (b < (int64_t)floor)
		b = floor;
	if (a == b)
		return false;
	share = (int64_t)sp->share + (a - b) / (1 << GAIN_SHIFT);
	if (share < 0)
		share = 0;
	if (share > (int64_t)ZCS_SPREAD_ONE)
		share = ZCS_SPREAD_ONE;
	if ((unsigned)share == sp->share)
		return false;
	sp->share = (unsigned)share;
	return true;
}

/* Reads an unsigned decimal after blanks; false at the end of the line or on anything else. */
static bool field(const char **p, uint64_t *v)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	*p = end;
	return true;
}

int zcs_cpu_load_parse(const char *text, int cpu, struct zcs_cpu_load *out)
{
	char name[24];
	const size_t n = (size_t)snprintf(name, sizeof(name), "cpu%d", cpu);
	const char *line = text;
	/* user nice system idle iowait irq softirq steal (guest time is already in user's) */
	uint64_t v[8] = { 0 };
	unsigned got = 0;

	if (cpu < 0)
		return -ENOENT;
	while (line && !(strncmp(line, name, n) == 0 && (line[n] == ' ' || line[n] == '\t'))) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return -ENOENT;
	line += n;
	while (got < 8 && field(&line, &v[got]))
		got++;
	/* the first four have been there since Linux 2.4; the rest, where present, count too */
	if (got < 4)
		return -EINVAL;
	out->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	out->total = out->busy + v[3] + v[4];
	return 0;
}

int zcs_cpu_load_read(int fd, const int *cpus, struct zcs_cpu_load *out, unsigned n)
{
	/* the per-CPU lines come first: this holds those of a few dozen CPUs */
	char buf[8192];
	const ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
	char *nl;
	int ret = 0;

	if (got < 0)
		return -errno;
	buf[got] = '\0';
	/* a line the buffer cut is not read as a shorter one */
	if ((size_t)got == sizeof(buf) - 1 && (nl = strrchr(buf, '\n')))
		nl[1] = '\0';
	for (unsigned i = 0; i < n && ret == 0; i++)
		ret = zcs_cpu_load_parse(buf, cpus[i], &out[i]);
	return ret;
}
