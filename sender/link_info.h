/* SPDX-License-Identifier: MIT */
/* What zcs-send says before it streams: the stream's rate on the wire (headers, tags, parity and
 * the link's framing included), the link its datagrams leave by (speed, MTU, checksum offload,
 * what kind of link: a USB gadget, a USB adapter, Ethernet, Wi-Fi, loopback), and whether that
 * link can carry the stream, with what would fit.  Formatting only: the program prints. */
#ifndef ZCS_LINK_INFO_H
#define ZCS_LINK_INFO_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum zcs_link_kind {
	ZCS_LINK_UNKNOWN,
	ZCS_LINK_LOOPBACK,
	ZCS_LINK_ETHERNET,
	ZCS_LINK_USB_GADGET,   /* the board's side of a USB cable (u_ether: RNDIS, ECM, NCM) */
	ZCS_LINK_USB_HOST,     /* a PC's side of one, or a USB Ethernet adapter (usbnet) */
	ZCS_LINK_WIFI,
	ZCS_LINK_VIRTUAL,      /* veth, a bridge, a tunnel: as fast as the machine */
};

struct zcs_link {
	char ifname[IFNAMSIZ];
	char driver[32];          /* ETHTOOL_GDRVINFO's driver; "" when the kernel did not say */
	enum zcs_link_kind kind;
	uint64_t speed_bps;       /* what the link carries, bits/s; 0 unknown */
	const char *speed_from;   /* where speed_bps came from (a static string) */
	unsigned mtu;             /* the device's MTU; 0 unknown */
	int tx_csum;              /* checksum offload: 1, 0, or -1 unknown */
};

/* The link connected UDP socket fd sends through.  speed_bps > 0 (--link-speed) wins over what
 * the kernel says; without either, a USB gadget gets its bus's bulk ceiling (USB 2.0
 * high-speed: 13 packets of 512 bytes a 125 us microframe, 425.984 Mb/s).  Returns 0, or -errno
 * when the device is not known (l->ifname is then ""). */
int zcs_link_probe(int fd, uint64_t speed_bps, struct zcs_link *l);

/* A stream's shape: what sets its bytes on the wire. */
struct zcs_stream_shape {
	int format;               /* ZCS_WIRE_* */
	uint64_t rate;            /* I/Q pairs a second */
	size_t udp_payload;       /* the datagram size --mtu gives (zcs_proto_udp_payload) */
	size_t trailer;           /* keyed: ZCS_AUTH_SAMPLE_TRAILER, else 0 */
	unsigned fec_k, fec_m;    /* --fec K:M, 0:0 without */
	bool ipv6;
	unsigned link_mtu;        /* the egress device's MTU (fragments beyond it); 0 unknown */
};

/* The stream's cost, per second.  Zero datagrams when the format holds no sample in a datagram. */
struct zcs_wire_rate {
	size_t pairs_per_dgram;
	size_t dgram_bytes;       /* a sample datagram's UDP payload (header, samples, trailer) */
	double dgrams;            /* sample and parity datagrams a second */
	double payload_Bps;       /* their UDP payload bytes a second */
	double wire_bps;          /* bits a second on the link: payload, UDP, IP, Ethernet framing
				   * (header, FCS, preamble, inter-frame gap), fragments counted */
	unsigned frames;          /* frames a datagram takes (more than 1: fragmented) */
};

void zcs_link_wire_rate(const struct zcs_stream_shape *s, struct zcs_wire_rate *w);

/* The highest rate of format (same shape otherwise) whose wire rate fits bps; 0 if none. */
uint64_t zcs_link_max_rate(const struct zcs_stream_shape *s, int format, uint64_t bps);

/* One line each, no newline: the stream's wire rate; the link; and, when the link's speed is
 * known and the stream does not fit, the warning with what would fit (returns 1 then, 0 when it
 * fits or cannot be told).  Every text is cut to len. */
void zcs_link_stream_line(char *buf, size_t len, const struct zcs_stream_shape *s);
void zcs_link_line(char *buf, size_t len, const struct zcs_link *l);
int zcs_link_fit_line(char *buf, size_t len, const struct zcs_stream_shape *s,
		      const struct zcs_link *l);

#endif
