/* SPDX-License-Identifier: MIT */
/* zcs-send's command line: one parse_opts() that checks every value and every combination, so a
 * bad command line is refused before anything starts. */
#ifndef ZCS_SEND_OPTS_H
#define ZCS_SEND_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "source.h"

#define ZCS_SEND_DEFAULT_RATE 1000000   /* synthetic and file sources, when -r is not given */
#define ZCS_SEND_DEFAULT_ZSTD 3
#define ZCS_SEND_DEFAULT_CPU_SEND 1     /* the board's interrupts land on CPU0 */
#define ZCS_SEND_MAX_SEND_THREADS 2     /* --send-threads: the board has two cores */

struct zcs_send_opts {
	int format;                   /* enum zcs_wire_format */
	struct zcs_source_config src;
	bool unpaced;                 /* -r max or --unpaced */
	uint64_t count;               /* 0 = no limit */
	size_t mtu;
	uint64_t link_speed;          /* --link-speed, bits/s; 0: as the kernel says */
	struct zcs_net_tx_opts tx;
	int zstd_level;               /* 0 = off */
	unsigned fec_k, fec_m;        /* --fec K:M; 0:0 = off */
	int path;                     /* enum zcs_path_kind */
	int cpu_src, cpu_send;        /* -1 = leave */
	bool cpus_given;
	unsigned send_threads;        /* --send-threads N: 1, or 2 (a share of the trains from a second) */
	bool send_threads_auto;       /* --send-threads auto: 2, the second taking trains only when
				       * the send thread's core is busy (spread.h) */
	bool json;
	bool quiet;
	const char *dest;
	struct zcs_addr addr;
	const char *key_path;         /* --key FILE, or NULL */
	/* --run-counter FILE: where the keyed run counter is kept; NULL: the key file's name
	 * with ".run" appended (common/wire/runstate.h) */
	const char *run_counter;
	/* --state-dir DIR: the run counter is DIR/<the key file's name>.run instead; NULL: beside
	 * the key */
	const char *state_dir;
	const char *control;          /* --control [ADDR:]PORT, or NULL (off) */
	size_t control_clients;       /* --control-clients N */
	const char *gen_key;          /* --gen-key: write a fresh key file and exit */
	bool announce;                /* --announce[=NAME]: DNS-SD (off by default) */
	const char *announce_name;    /* NAME, or NULL for "zcs on HOST" */
};

enum zcs_send_parse_result {
	ZCS_SEND_RUN = 0,
	ZCS_SEND_HELP = 1,
	ZCS_SEND_VERSION = 2,
	ZCS_SEND_GEN_KEY = 3,         /* --gen-key FILE: nothing else to do */
};

/* Fills o from argv.  Returns enum zcs_send_parse_result, or -EINVAL with a message naming the
 * bad option, value or destination in err. */
int zcs_send_parse_opts(struct zcs_send_opts *o, int argc, char **argv, char *err, size_t errlen);

/* The --help text (docs/sender.md says the same). */
const char *zcs_send_usage(void);

#endif
