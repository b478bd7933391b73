// SPDX-License-Identifier: MIT
/* Drives zcs_source_iio_ops directly (no zcs-send): opens the radio with the settings given,
 * reads N pairs, checks them against the emulated board's pattern and prints one JSON line
 * with the radio info read back, the discontinuities and what the check found. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iq_pattern.h"
#include "proto.h"
#include "source.h"

struct probe {
	uint64_t want;         /* pairs to read */
	bool check;            /* compare with iq_pattern.h */
	double poll_s;         /* poll_info interval, 0 = never */
	uint64_t pairs, flagged, jumps, bad, retunes;
	uint32_t first_k, last_k;
	bool have_k;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -1 : 0;
}

/* Checks one read: consecutive k inside it and from the last one, unless the source flagged a
 * discontinuity, after which k must have moved forward (samples were lost, never repeated). */
static void check_block(struct probe *pr, const int16_t *iq, size_t n, bool discont,
			unsigned int rx)
{
	for (size_t j = 0; j < n; j++) {
		uint32_t k;

		if (!iq_pattern_decode(iq[2 * j], iq[2 * j + 1], rx, &k)) {
			if (pr->bad++ < 5)
				fprintf(stderr, "iio_probe: pair %" PRIu64 " (%d, %d) is not the "
					"pattern of rx%u\n", pr->pairs + j, iq[2 * j], iq[2 * j + 1],
					rx + 1);
			continue;
		}
		if (!pr->have_k) {
			pr->first_k = k;
			pr->have_k = true;
		} else if (k != ((pr->last_k + 1) & IQ_PATTERN_MASK)) {
			const uint32_t step = (k - pr->last_k) & IQ_PATTERN_MASK;

			if (j == 0 && discont && step != 0 && step < IQ_PATTERN_MASK / 2) {
				pr->jumps++;
			} else if (pr->bad++ < 5) {
				fprintf(stderr, "iio_probe: pair %" PRIu64 ": k=%u after k=%u%s\n",
					pr->pairs + j, k, pr->last_k,
					discont ? "" : " with no discontinuity flagged");
			}
		}
		pr->last_k = k;
	}
}

static int parse_gain(const char *s, struct zcs_source_config *cfg)
{
	char *end;

	if (!strcmp(s, "slow"))
		cfg->gain_mode = ZCS_GAIN_SLOW;
	else if (!strcmp(s, "fast"))
		cfg->gain_mode = ZCS_GAIN_FAST;
	else if (!strcmp(s, "hybrid"))
		cfg->gain_mode = ZCS_GAIN_HYBRID;
	else {
		const double db = strtod(s, &end);

		if (end == s || *end)
			return -1;
		cfg->gain_set = true;
		cfg->gain_mdb = (int32_t)(db * 1000.0 + (db < 0 ? -0.5 : 0.5));
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct zcs_source_config *cfg, struct probe *pr)
{
	static const struct option opts[] = {
		{ "uri", required_argument, NULL, 'u' }, { "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' }, { "freq", required_argument, NULL, 'F' },
		{ "bw", required_argument, NULL, 'B' }, { "gain", required_argument, NULL, 'g' },
		{ "channel", required_argument, NULL, 'c' }, { "check", no_argument, NULL, 'k' },
		{ "poll", required_argument, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	int o;

	while ((o = getopt_long(argc, argv, "u:n:r:", opts, NULL)) != -1) {
		int bad = 0;

		switch (o) {
		case 'u': cfg->uri = optarg; break;
		case 'n': bad = parse_u64(optarg, &pr->want); break;
		case 'r': bad = parse_u64(optarg, &cfg->rate); break;
		case 'F': bad = parse_u64(optarg, &cfg->freq); break;
		case 'B': bad = parse_u64(optarg, &cfg->bw); break;
		case 'g': bad = parse_gain(optarg, cfg); break;
		case 'c':
			/* Anything else goes through as is, so the source's own check is tested. */
			cfg->channel = !strcmp(optarg, "rx1") ? 0 : !strcmp(optarg, "rx2") ? 1 :
				       atoi(optarg);
			break;
		case 'k': pr->check = true; break;
		case 'p': pr->poll_s = strtod(optarg, NULL); break;
		default: bad = 1;
		}
		if (bad) {
			fprintf(stderr, "usage: iio_probe [-u URI] [-n PAIRS] [-r RATE] [--freq HZ] "
				"[--bw HZ] [--gain DB|slow|fast|hybrid] [--channel rx1|rx2] [--check] "
				"[--poll SECONDS]\n");
			return -1;
		}
	}
	return 0;
}

static void print_info(const char *what, const struct zcs_radio_info *in)
{
	printf("\"%s\": {\"sample_rate\": %" PRIu64 ", \"center_freq\": %" PRIu64
	       ", \"bandwidth\": %" PRIu64 ", \"gain_mdb\": %" PRId32 ", \"gain_mode\": %u"
	       ", \"channel\": %u}", what, in->sample_rate, in->center_freq, in->bandwidth,
	       in->gain_mdb, in->gain_mode, in->channel);
}

int main(int argc, char **argv)
{
	struct zcs_source_config cfg = { .kind = "iio", .uri = "local:", .gain_mode = -1 };
	struct zcs_source src = { .ops = &zcs_source_iio_ops };
	struct zcs_radio_info first;
	struct probe pr = { .want = 100000 };
	char err[256] = "";
	double next_poll;
	int ret;

	if (parse_opts(argc, argv, &cfg, &pr) < 0)
		return 2;
	ret = src.ops->open(&src, &cfg, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "iio_probe: %s\n", err);
		return 1;
	}
	first = src.info;
	next_poll = now_s() + pr.poll_s;
	while (pr.pairs < pr.want) {
		const int16_t *iq;
		uint32_t ev = 0;
		const ssize_t n = src.ops->read(&src, &iq, pr.want - pr.pairs, &ev, err,
						sizeof(err));

		if (n <= 0) {
			fprintf(stderr, "iio_probe: read: %s\n", n < 0 ? err : "end of source");
			break;
		}
		pr.flagged += (ev & ZCS_SRC_DISCONT) != 0;
		if (pr.check)
			check_block(&pr, iq, (size_t)n, ev & ZCS_SRC_DISCONT, src.info.channel);
		pr.pairs += (uint64_t)n;
		if (pr.poll_s > 0 && now_s() >= next_poll) {
			struct zcs_radio_info in;

			if (src.ops->poll_info(&src, &in) == 1) {
				pr.retunes++;
				printf("{\"retuned\": 1, ");
				print_info("info", &in);
				printf("}\n");
				fflush(stdout);
			}
			next_poll = now_s() + pr.poll_s;
		}
	}
	printf("{");
	print_info("info", &first);
	printf(", \"pairs\": %" PRIu64 ", \"discontinuities\": %" PRIu64 ", \"flagged\": %" PRIu64
	       ", \"jumps\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"retunes\": %" PRIu64
	       ", \"first_k\": %u, \"last_k\": %u}\n", pr.pairs, src.discontinuities, pr.flagged,
	       pr.jumps, pr.bad, pr.retunes, pr.first_k, pr.last_k);
	src.ops->close(&src);
	return pr.pairs == pr.want && pr.bad == 0 ? 0 : 1;
}
