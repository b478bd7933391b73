// SPDX-License-Identifier: MIT
/* Regression test for "a late drop shows as 1.8e13 MS/s": the per-second rates are differences of
 * two snapshots of "sent" counters that leave dropped trains out, and a drop io_uring reports a
 * second late can take back more than the interval added.  The unsigned difference then wrapped
 * to ~1.8e19.  Also checks the ordinary rates and the summary's span. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "send_stats.h"

static int fails;

static void expect(const char *what, const char *text, const char *want)
{
	if (!strstr(text, want)) {
		printf("FAIL: %s: '%s' lacks '%s'\n", what, text, want);
		fails++;
	} else {
		printf("ok: %s: %s\n", what, want);
	}
}

int main(void)
{
	struct zcs_pipeline_stats prev = { .samples = 2000000, .bytes = 6000000,
					   .send_path = ZCS_PATH_URING_ZC };
	struct zcs_pipeline_stats now = prev;
	char buf[2048];

	/* an ordinary second: 1 MS/s, 3 MB/s */
	now.samples += 1000000;
	now.bytes += 3000000;
	zcs_send_stats_line(buf, sizeof(buf), &now, &prev, 1.0);
	expect("line, one second", buf, "  1.000 MS/s    3.00 MB/s");
	zcs_send_stats_json(buf, sizeof(buf), &now, &prev, 1.0, 2.0, false);
	expect("json, one second", buf, "\"msps\":1.0,\"mbps\":3.0");
	/* a second in which a late drop took back 4800 more samples than were added */
	now = prev;
	now.samples -= 4800;
	now.bytes -= 14400;
	zcs_send_stats_line(buf, sizeof(buf), &now, &prev, 1.0);
	expect("line, late drop", buf, " -0.005 MS/s   -0.01 MB/s");
	zcs_send_stats_json(buf, sizeof(buf), &now, &prev, 1.0, 2.0, false);
	expect("json, late drop", buf, "\"msps\":-0.0048,\"mbps\":-0.0144");
	/* the summary is over the samples' own span: 1M samples in 0.5 s */
	now.samples = 1000000;
	now.start_ns = 1000000000;
	now.end_ns = 1500000000;
	zcs_send_stats_summary(buf, sizeof(buf), &now, 3.0);
	expect("summary", buf, "1000000 samples in 0.500 s (2.000 MS/s");
	return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
