/* SPDX-License-Identifier: MIT */
/* Socket set-up for zcs: destination parsing, UDP senders and receivers (unicast, any-source and
 * source-specific multicast, IPv4 and IPv6) and TCP helpers.  In the manner of redis anet.c:
 * every function returns >= 0 or -errno and writes a human message into err; none prints. */
#ifndef ZCS_NET_H
#define ZCS_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_NET_ERR_LEN 256

struct zcs_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* Parses "HOST", "HOST:PORT", "[V6]", "[V6]:PORT", ":PORT" (wildcard) or "" (wildcard, default
 * port).  HOST may be a name (resolved, first result) or a literal; an IPv6 literal with a
 * zone ("fe80::1%eth0") is accepted.  The wildcard is IPv4 0.0.0.0 ("[::]" is the IPv6 one).
 * A given port must be 1-65535; with default_port 0 and no port given the port stays 0 (as for
 * the source of a source-specific join).  Returns 0 or -EINVAL/-ENOENT with err set. */
int zcs_net_parse_addr(struct zcs_addr *a, const char *spec, uint16_t default_port,
		       char *err, size_t errlen);

bool zcs_net_is_multicast(const struct zcs_addr *a);
bool zcs_net_is_ipv6(const struct zcs_addr *a);
uint16_t zcs_net_port(const struct zcs_addr *a);
/* "198.18.0.1:5391" or "[ff02::1]:5391" into buf; returns buf. */
const char *zcs_net_addr_str(const struct zcs_addr *a, char *buf, size_t len);

/* An address prefix of an allow list (net_prefix.c). */
struct zcs_net_prefix {
	int family;               /* AF_INET or AF_INET6 */
	uint8_t addr[16];         /* network order; bits past the prefix are zero */
	unsigned bits;            /* 0..32 or 0..128 */
};

/* Parses "ADDR" (one host) or "ADDR/PREFIX", IPv4 or IPv6 literals only (no names, no zone).
 * Refused: a prefix length out of range, and bits set past the prefix ("198.18.5.1/24").
 * Returns 0 or -EINVAL with err set (the spec quoted, not the option: the caller names it). */
int zcs_net_parse_prefix(struct zcs_net_prefix *p, const char *spec, char *err, size_t errlen);
/* Whether a's address lies in p (an IPv4-mapped IPv6 address as its IPv4 one). */
bool zcs_net_prefix_match(const struct zcs_net_prefix *p, const struct zcs_addr *a);
/* 127.0.0.0/8, ::1, or an IPv4-mapped 127.x address: another program on this host. */
bool zcs_net_is_loopback(const struct zcs_addr *a);

struct zcs_net_tx_opts {
	int ttl;             /* multicast hop limit; 0 means the default of 1 */
	const char *iface;   /* interface name for multicast (and SO_BINDTODEVICE for unicast), or NULL */
	bool mcast_loop;     /* IP_MULTICAST_LOOP; off unless asked */
	int sndbuf;          /* SO_SNDBUF bytes, 0 = leave */
	/* SO_REUSEADDR, so another socket may send from the same local address and port (two
	 * sending threads, each on a socket of its own, that receivers see as one sender) */
	bool reuse_addr;
	/* the local address to bind to before connecting (another such socket's), or NULL: the
	 * kernel picks */
	const struct zcs_addr *bind_to;
};

/* A UDP socket connect()ed to dst with the options applied.  Returns the fd or -errno. */
int zcs_net_udp_sender(const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
		       char *err, size_t errlen);

/* Optional socket options the system refused with ENOPROTOOPT ("no such option here": qemu-user
 * does so for all of them, and IPV6_MULTICAST_ALL needs Linux 4.20).  The socket works without
 * them; the caller may tell the user what is missing. */
struct zcs_net_rx_missing {
	bool drop_count;            /* SO_RXQ_OVFL: socket-buffer drops cannot be counted */
	bool multicast_all;         /* IP(V6)_MULTICAST_ALL: it stays on; binding to the group
				     * itself still keeps other groups' datagrams out */
};

struct zcs_net_rx_opts {
	const char *iface;          /* interface to join on / bind to, or NULL */
	const struct zcs_addr *source; /* source-specific join (and filter) when not NULL */
	int rcvbuf;                 /* SO_RCVBUF bytes wanted; SO_RCVBUFFORCE is tried first */
	bool rxq_ovfl;              /* enable SO_RXQ_OVFL drop counting */
	struct zcs_net_rx_missing *missing; /* out, when not NULL: filled on success */
};

/* A UDP socket bound to addr (a unicast address, a wildcard, or a multicast group, which is then
 * joined with MCAST_JOIN_GROUP or MCAST_JOIN_SOURCE_GROUP; IP_MULTICAST_ALL is turned off).
 * SO_RXQ_OVFL and IP(V6)_MULTICAST_ALL refused with ENOPROTOOPT are not errors: they are
 * reported in opt->missing.  Any other failure, a refused join included, is.
 * Returns the fd or -errno. */
int zcs_net_udp_receiver(const struct zcs_addr *addr, const struct zcs_net_rx_opts *opt,
			 char *err, size_t errlen);

/* The receive buffer the kernel actually granted, in bytes, or -errno. */
int zcs_net_rcvbuf(int fd);

/* A listening TCP socket (SO_REUSEADDR, non-blocking).  Returns the fd or -errno. */
int zcs_net_tcp_listen(const struct zcs_addr *addr, int backlog, char *err, size_t errlen);
/* A non-blocking connect; returns the fd (connection may still be in progress) or -errno. */
int zcs_net_tcp_connect(const struct zcs_addr *addr, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
