/* SPDX-License-Identifier: MIT */
/* The receiver benchmark's generator (bench_recv_gen.c), used by its driver (bench_recv.c): p12
 * sample datagrams of MTU 1500 size sent over loopback at a paced rate. */
#ifndef ZCS_BENCH_RECV_H
#define ZCS_BENCH_RECV_H

#include <stdint.h>

#include "proto.h"

#define PAIRS 480                                   /* p12 pairs in a 1472-byte datagram */
#define DGRAM (ZCS_PROTO_SAMPLE_HDR_SIZE + 3 * PAIRS) /* 1472: MTU 1500 minus IPv4 and UDP */
#define BATCH 44                                    /* 44 * 1472 fits one 64 KB GSO train */

enum gen_mode { GEN_MMSG, GEN_GSO };

/* What the generator did. */
struct gen_result {
	uint64_t sent;             /* datagrams sent (metadata and the end-of-stream one included) */
	double secs;               /* sending time */
	double cpu;                /* its user + system seconds */
};

/* Sends metadata, then sample datagrams to 127.0.0.1:port at rate datagrams/s (0: flat out)
 * for secs, the last with the end-of-stream flag.  Returns 0 or -errno. */
int bench_recv_generate(int port, double rate, double secs, enum gen_mode mode,
			struct gen_result *r);

#endif
