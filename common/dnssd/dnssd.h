/* SPDX-License-Identifier: MIT */
/* DNS-SD (mDNS through avahi-daemon) for zcs streams: the service type _zcs._udp, its TXT
 * record (dnssd_txt.c, always built) and the avahi client that announces and browses
 * (dnssd_avahi.c, built only with -Davahi: ZCS_HAVE_AVAHI). */
#ifndef ZCS_DNSSD_H
#define ZCS_DNSSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
#include "net.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_DNSSD_TYPE "_zcs._udp"
/* The TXT record's version: a reader ignores keys it does not know (docs/howto-soapy.md). */
#define ZCS_DNSSD_TXTVERS "1"
/* A DNS-SD instance name is at most 63 bytes of UTF-8. */
#define ZCS_DNSSD_NAME_MAX 64
#define ZCS_DNSSD_HOST_MAX 256
/* Pairs of one record: txtvers id dest port fmt rate freq keyed control. */
#define ZCS_DNSSD_TXT_MAX 9
#define ZCS_DNSSD_TXT_LEN 80

/* What an announcement says about one stream, and what a browse found.  Never the key. */
struct zcs_dnssd_stream {
	char name[ZCS_DNSSD_NAME_MAX];    /* service instance name */
	char host[ZCS_DNSSD_HOST_MAX];    /* browse: the announcing host's mDNS name */
	struct zcs_addr sender;           /* browse: that host's address (port 0) */
	int ifindex;                      /* browse: the interface it was heard on, 0 = unknown */
	bool local;                       /* browse: announced by this host itself */
	struct zcs_addr dest;             /* where the datagrams go: a group or a host, and port */
	uint32_t stream_id;
	int format;                       /* enum zcs_wire_format, -1 = unknown */
	uint64_t rate;                    /* samples per second, 0 = unknown */
	uint64_t freq;                    /* Hz, 0 = not a radio */
	bool keyed;
	uint16_t control_port;            /* 0 = no control channel */
};

/* Writes s's TXT record as "key=value" strings (dest, id, ...) into txt; returns how many
 * (<= ZCS_DNSSD_TXT_MAX).  The name, host, sender and ifindex are not part of it. */
size_t zcs_dnssd_txt_build(const struct zcs_dnssd_stream *s,
			   char txt[ZCS_DNSSD_TXT_MAX][ZCS_DNSSD_TXT_LEN]);
/* Empties s for a record's strings: nothing known yet, format unknown. */
void zcs_dnssd_txt_init(struct zcs_dnssd_stream *s);
/* Reads one TXT string (buf, len: "key=value", not NUL-terminated) into s; keys not known are
 * ignored.  Returns 0, or -EINVAL for a known key with a bad value (s is then unchanged for
 * that key).  Call zcs_dnssd_txt_init first and zcs_dnssd_txt_complete after the last one. */
int zcs_dnssd_txt_parse(struct zcs_dnssd_stream *s, const uint8_t *buf, size_t len);
/* The record had what a receiver needs to open the stream: a stream id, a destination and a
 * port.  Returns 0 or -EINVAL with err saying what was missing. */
int zcs_dnssd_txt_complete(const struct zcs_dnssd_stream *s, char *err, size_t errlen);

/* --- the avahi client (ZCS_HAVE_AVAHI only) --- */

struct zcs_dnssd_announce;

/* Starts announcing s (its name, dest and the TXT fields) on a thread of avahi's own, so
 * nothing of it runs on the send path.  avahi-daemon missing, or going away, is news on log,
 * never an error: *out is then still a handle that zcs_dnssd_announce_update and _stop
 * accept (the announcement follows once the daemon appears).  Returns 0, or -errno with err set
 * when not even the client's thread could start. */
int zcs_dnssd_announce_start(struct zcs_dnssd_announce **out, const struct zcs_dnssd_stream *s,
			     const struct zcs_log *log, char *err, size_t errlen);
/* Replaces the TXT record when rate, freq or the wire format changed (a retune, a set
 * format=); cheap when nothing did. */
void zcs_dnssd_announce_update(struct zcs_dnssd_announce *a, uint64_t rate, uint64_t freq,
			       int format);
/* Withdraws the announcement and frees everything (NULL is fine). */
void zcs_dnssd_announce_stop(struct zcs_dnssd_announce *a);

struct zcs_dnssd_browse;

/* Starts browsing _zcs._udp on every interface, resolving each instance found, on avahi's own
 * thread.  Returns 0, or -errno with err set (avahi-daemon not reachable: -ECONNREFUSED). */
int zcs_dnssd_browse_start(struct zcs_dnssd_browse **out, const struct zcs_log *log,
			   char *err, size_t errlen);
/* Copies the streams resolved so far into out (one per stream id and destination, however
 * many interfaces or protocols announced it) and returns how many (<= max). */
size_t zcs_dnssd_browse_results(struct zcs_dnssd_browse *b, struct zcs_dnssd_stream *out,
				size_t max);
void zcs_dnssd_browse_stop(struct zcs_dnssd_browse *b);

#ifdef __cplusplus
}
#endif

#endif
