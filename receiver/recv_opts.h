/* SPDX-License-Identifier: MIT */
/* zcs-recv's command line: one parse_opts() with getopt_long, every number range-checked, every
 * bad flag or value refused with a message that names it. */
#ifndef ZCS_RECV_OPTS_H
#define ZCS_RECV_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "net.h"
#include "output.h"
#include "rx.h"

#define ZCS_RECV_MAX_OUTPUTS 16
/* Entries of --control-allow: a handful of hosts and networks is what a lab names. */
#define ZCS_RECV_MAX_ALLOW 16

struct zcs_recv_opts {
	struct zcs_rx_opts rx;
	const char *outputs[ZCS_RECV_MAX_OUTPUTS];
	size_t noutputs;
	bool json;          /* statistics as JSON lines */
	bool quiet;         /* no periodic statistics and no news; the summary still */
	double interval;    /* seconds between statistics lines; 0 = none */
	/* with --exit-on-eos, a followed stream silent this long (seconds) has ended
	 * (its end-of-stream datagram may be lost); 0 = wait for the datagram forever */
	double eos_timeout;
	double client_timeout; /* seconds a tcp:/rtl_tcp: client may read nothing; 0 = never */
	const char *key_path;  /* --key FILE, or the default key's (zcs_recv_default_key), or NULL */
	bool no_key;           /* --no-key: no default key either */
	bool key_default;      /* key_path is the default key's: no --key was given */
	const char *control;   /* --control [HOST:]PORT: forward rtl_tcp clients' tuning there */
	/* --run-state FILE ("none": keep nothing); NULL: the key file's name + ".seen" */
	const char *run_state;
	/* --state-dir DIR: the run state is DIR/<the key file's name>.seen instead; NULL: beside
	 * the key */
	const char *state_dir;
	/* --control-allow: rtl_tcp clients forwarded besides those on loopback */
	struct zcs_net_prefix control_allow[ZCS_RECV_MAX_ALLOW];
	size_t ncontrol_allow;
};

#define ZCS_RECV_DEFAULT_EOS_TIMEOUT 2.0  /* four metadata periods of silence */

enum zcs_recv_parse {
	ZCS_RECV_RUN = 0,
	ZCS_RECV_HELP = 1,
	ZCS_RECV_VERSION = 2,
};

/* Fills o from argv.  Returns an enum zcs_recv_parse, or -EINVAL with err naming the bad flag
 * or value (the program then exits with status 2). */
int zcs_recv_parse_opts(int argc, char **argv, struct zcs_recv_opts *o, char *err, size_t errlen);

/* Without --key or --no-key, the default key (key.h: $ZCS_KEY, ~/.config/zcs/key, /etc/zcs/key)
 * becomes o->key_path (kept in path) with o->key_default set: a receiver that finds one is keyed.
 * note (when notelen) says why a place was passed over, "" when none was.  Returns 0, or -EINVAL
 * with err set when --control is left without a key, or another -errno from the search. */
int zcs_recv_default_key(struct zcs_recv_opts *o, char *path, size_t pathlen, char *note,
			 size_t notelen, char *err, size_t errlen);

/* The --help text (the man page says the same). */
const char *zcs_recv_usage(void);

#endif
