// SPDX-License-Identifier: MIT
/* Formatting zcs-send's counters: rates from two snapshots, CPU shares from each thread's CPU
 * clock, and the same figures as JSON for scripts. */
#include <inttypes.h>
#include <stdio.h>

#include "jsonout.h"
#include "send_stats.h"

/* Signed: "sent" counters leave out dropped trains, and a drop reported late (io_uring) can take
 * back more than the interval added, so a - b may be negative; unsigned it showed 1.8e13 MS/s. */
static double per_sec(uint64_t a, uint64_t b, double dt)
{
	return dt > 0 ? (double)(int64_t)(a - b) / dt : 0.0;
}

static double cpu_pct(uint64_t a, uint64_t b, double dt)
{
	return dt > 0 ? (double)(a - b) / 1e9 / dt * 100.0 : 0.0;
}

/* Seconds the samples took: from the source's start (sample 0 due) to the last sample handed to
 * the kernel.  The program's own elapsed time also holds start-up, the end of stream, the
 * zero-copy drain and up to a tick of its watch loop: at -r 1M, 100000 samples showed as 0.2 s. */
static double send_span(const struct zcs_pipeline_stats *s, double elapsed)
{
	if (s->samples && s->start_ns && s->end_ns > s->start_ns)
		return (double)(s->end_ns - s->start_ns) / 1e9;
	return elapsed;
}

void zcs_send_stats_line(char *buf, size_t len, const struct zcs_pipeline_stats *n,
			 const struct zcs_pipeline_stats *p, double dt)
{
	char send2[48] = "";

	/* --send-threads 2: the second send thread's CPU beside the first's, and its share of the
	 * trains now */
	if (n->two_senders)
		snprintf(send2, sizeof(send2), " send2 %.0f%% (%.0f%% of trains)",
			 cpu_pct(n->send2_cpu_ns, p->send2_cpu_ns, dt), 100 * n->send2_share);
	snprintf(buf, len,
		 "%7.3f MS/s %7.2f MB/s  dgrams %" PRIu64 "  path %s  zc %" PRIu64 "/%" PRIu64
		 " copied %" PRIu64 "  errors %" PRIu64 "  refused %" PRIu64 "  discont %" PRIu64
		 "  cpu src %.0f%% send %.0f%%%s",
		 per_sec(n->samples, p->samples, dt) / 1e6, per_sec(n->bytes, p->bytes, dt) / 1e6,
		 n->datagrams, zcs_path_name(n->send_path), n->path.zc_completions, n->path.zc_sends,
		 n->path.zc_copied, n->path.send_errors, n->path.refused, n->discontinuities,
		 cpu_pct(n->src_cpu_ns, p->src_cpu_ns, dt), cpu_pct(n->send_cpu_ns, p->send_cpu_ns, dt),
		 send2);
}

void zcs_send_stats_json(char *buf, size_t len, const struct zcs_pipeline_stats *n,
			 const struct zcs_pipeline_stats *p, double dt, double elapsed, bool final)
{
	static const struct zcs_pipeline_stats zero;
	const struct zcs_pipeline_stats *const base = final ? &zero : p;
	/* the summary's rates are over the samples' own span (send_s), not the program's run */
	const double span = final ? send_span(n, elapsed) : dt, cpu_dt = final ? elapsed : dt;
	json_t *const o = json_object();
	int bad = 0;

#define U(key, v) (bad |= zcs_json_set(o, key, zcs_json_u64(v)))
#define R(key, v, d) (bad |= zcs_json_set(o, key, zcs_json_real(v, d)))
	bad |= zcs_json_set(o, "type", json_string(final ? "summary" : "stats"));
	R("elapsed_s", elapsed, 3);
	U("samples", n->samples);
	U("datagrams", n->datagrams);
	U("bytes", n->bytes);
	U("trains", n->trains);
	bad |= zcs_json_set(o, "send_path", json_string(zcs_path_name(n->send_path)));
	R("msps", per_sec(n->samples, base->samples, span) / 1e6, 4);
	R("mbps", per_sec(n->bytes, base->bytes, span) / 1e6, 4);
	U("meta_sent", n->meta_sent);
	U("zc_sends", n->path.zc_sends);
	U("zc_completions", n->path.zc_completions);
	U("zc_copied", n->path.zc_copied);
	U("send_errors", n->path.send_errors);
	U("retries", n->path.retries);
	U("demotions", n->path.demotions);
	U("dropped_trains", n->path.dropped_trains);
	U("dropped_datagrams", n->path.dropped_dgrams);
	U("dropped_samples", n->path.dropped_samples);
	U("refused", n->path.refused);
	U("discontinuities", n->discontinuities);
	U("samples_per_dgram", n->samples_per_dgram);
	U("parity", n->parity_sent);
	U("dgrams_per_train", n->dgrams_per_train);
	R("src_cpu_s", (double)n->src_cpu_ns / 1e9, 4);
	R("send_cpu_s", (double)n->send_cpu_ns / 1e9, 4);
	R("src_cpu_pct", cpu_pct(n->src_cpu_ns, base->src_cpu_ns, cpu_dt), 1);
	R("send_cpu_pct", cpu_pct(n->send_cpu_ns, base->send_cpu_ns, cpu_dt), 1);
	if (n->two_senders) {
		R("send2_cpu_s", (double)n->send2_cpu_ns / 1e9, 4);
		R("send2_cpu_pct", cpu_pct(n->send2_cpu_ns, base->send2_cpu_ns, cpu_dt), 1);
		U("send2_trains", n->send2_trains);
		R("send2_share", n->send2_share, 3);
	}
	if (final)
		R("send_s", span, 6);
#undef U
#undef R
	if (bad) {
		json_decref(o);
		if (len)
			buf[0] = 0;
		return;
	}
	zcs_json_line(buf, len, o);
}

void zcs_send_stats_summary(char *buf, size_t len, const struct zcs_pipeline_stats *s,
			    double elapsed)
{
	static const struct zcs_pipeline_stats zero;
	const double span = send_span(s, elapsed);
	char send2[48] = "";

	if (s->two_senders)
		snprintf(send2, sizeof(send2), ", second send thread %.1f%%",
			 cpu_pct(s->send2_cpu_ns, zero.send2_cpu_ns, elapsed));
	snprintf(buf, len,
		 "zcs-send: %" PRIu64 " samples in %.3f s (%.3f MS/s, %.2f MB/s)\n"
		 "  %" PRIu64 " datagrams (%zu samples each), %" PRIu64 " bytes, %" PRIu64
		 " trains (up to %zu datagrams), %" PRIu64 " metadata\n"
		 "  send path %s: zero-copy %" PRIu64 " sent, %" PRIu64 " completed, %" PRIu64
		 " copied by the kernel; %" PRIu64 " send errors, %" PRIu64 " demotions, %" PRIu64
		 " trains dropped, %" PRIu64 " refused (no listener)\n"
		 "  source discontinuities %" PRIu64 "; CPU: source thread %.1f%%, send thread %.1f%%%s\n",
		 s->samples, span, per_sec(s->samples, 0, span) / 1e6,
		 per_sec(s->bytes, 0, span) / 1e6, s->datagrams, s->samples_per_dgram, s->bytes,
		 s->trains, s->dgrams_per_train, s->meta_sent, zcs_path_name(s->send_path),
		 s->path.zc_sends, s->path.zc_completions, s->path.zc_copied, s->path.send_errors,
		 s->path.demotions, s->path.dropped_trains, s->path.refused, s->discontinuities,
		 cpu_pct(s->src_cpu_ns, zero.src_cpu_ns, elapsed),
		 cpu_pct(s->send_cpu_ns, zero.send_cpu_ns, elapsed), send2);
}
