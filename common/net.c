// SPDX-License-Identifier: MIT
/* Socket set-up in the manner of redis anet.c: address parsing, UDP senders and receivers
 * (unicast, ASM and SSM multicast, IPv4 and IPv6) and TCP helpers; errors go to a caller's buffer. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compat.h"
#include "net.h"

/* Longest address spec we accept: a DNS name (253) plus brackets, zone and port. */
#define SPEC_MAX 320

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

static int parse_port(const char *s, uint16_t *port, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	/* strtoul accepts a sign and leading blanks: only plain digits are a port */
	if (!isdigit((unsigned char)s[0]))
		return fail(err, errlen, -EINVAL, "bad port \"%s\": not a number", s);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end != '\0')
		return fail(err, errlen, -EINVAL, "bad port \"%s\": trailing characters", s);
	if (errno || v < 1 || v > 65535)
		return fail(err, errlen, -EINVAL, "bad port \"%s\": must be 1-65535", s);
	*port = (uint16_t)v;
	return 0;
}

/* Host names: letters, digits, '-', '_' and '.' only, so garbage never reaches the resolver. */
static bool valid_hostname(const char *h)
{
	if (!*h || strlen(h) > 253)
		return false;
	for (const char *p = h; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.' && *p != '_')
			return false;
	return true;
}

static void set_v4(struct zcs_addr *a, const struct in_addr *ip, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&a->ss;

	memset(a, 0, sizeof(*a));
	sin->sin_family = AF_INET;
	sin->sin_addr = *ip;
	sin->sin_port = htons(port);
	a->len = sizeof(*sin);
}

/* An IPv6 literal, optionally with "%zone" (an interface name or a number). */
static int parse_v6(struct zcs_addr *a, char *host, uint16_t port, char *err, size_t errlen)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a->ss;
	char *zone = strchr(host, '%');
	struct in6_addr ip;
	uint32_t scope = 0;

	if (zone)
		*zone++ = '\0';
	if (inet_pton(AF_INET6, host, &ip) != 1)
		return fail(err, errlen, -EINVAL, "bad IPv6 address \"%s\"", host);
	if (zone) {
		char *end;
		unsigned long v;

		if (!*zone)
			return fail(err, errlen, -EINVAL, "empty zone after \"%s%%\"", host);
		scope = if_nametoindex(zone);
		if (!scope && isdigit((unsigned char)zone[0])) {
			errno = 0;
			v = strtoul(zone, &end, 10);
			if (*end == '\0' && !errno && v > 0 && v <= UINT32_MAX)
				scope = (uint32_t)v;
		}
		if (!scope)
			return fail(err, errlen, -ENOENT, "unknown zone (interface) \"%s\"", zone);
	}
	memset(a, 0, sizeof(*a));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = ip;
	sin6->sin6_port = htons(port);
	sin6->sin6_scope_id = scope;
	a->len = sizeof(*sin6);
	return 0;
}

static int resolve(struct zcs_addr *a, const char *host, uint16_t port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res = NULL;
	int ret;

	if (!valid_hostname(host))
		return fail(err, errlen, -EINVAL, "bad host \"%s\": not an address or a host name", host);
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret != 0)
		return fail(err, errlen, -ENOENT, "cannot resolve \"%s\": %s", host, gai_strerror(ret));
	if (res->ai_addrlen > sizeof(a->ss)) {
		ret = fail(err, errlen, -EINVAL, "\"%s\": address too long", host);
		goto out;
	}
	memset(a, 0, sizeof(*a));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	else if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
	else
		ret = fail(err, errlen, -EINVAL, "\"%s\": not an IP address", host);
out:
	freeaddrinfo(res);
	return ret;
}

int zcs_net_parse_addr(struct zcs_addr *a, const char *spec, uint16_t default_port,
		       char *err, size_t errlen)
{
	char buf[SPEC_MAX];
	char *host = buf, *portstr = NULL;
	uint16_t port = default_port;
	struct in_addr ip4;
	int ret;

	if (!spec)
		spec = "";
	if (strlen(spec) >= sizeof(buf))
		return fail(err, errlen, -EINVAL, "address \"%.32s...\" too long", spec);
	strcpy(buf, spec);

	if (buf[0] == '[') {
		char *close = strchr(buf, ']');

		if (!close)
			return fail(err, errlen, -EINVAL, "bad address \"%s\": missing ']'", spec);
		*close = '\0';
		host = buf + 1;
		if (close[1] == ':')
			portstr = close + 2;
		else if (close[1] != '\0')
			return fail(err, errlen, -EINVAL, "bad address \"%s\": \"%s\" after ']'",
				    spec, close + 1);
	} else {
		char *colon = strchr(buf, ':');

		/* more than one ':' without brackets is a bare IPv6 literal: no port */
		if (colon && !strchr(colon + 1, ':')) {
			*colon = '\0';
			portstr = colon + 1;
		}
	}
	if (portstr) {
		ret = parse_port(portstr, &port, err, errlen);
		if (ret < 0)
			return ret;
	}

	if (host == buf + 1) /* bracketed: IPv6 only */
		return parse_v6(a, host, port, err, errlen);
	if (*host == '\0') {
		/* the wildcard: IPv4 any; "[::]:PORT" asks for the IPv6 one */
		ip4.s_addr = htonl(INADDR_ANY);
		set_v4(a, &ip4, port);
		return 0;
	}
	if (inet_pton(AF_INET, host, &ip4) == 1) {
		set_v4(a, &ip4, port);
		return 0;
	}
	if (strchr(host, ':'))
		return parse_v6(a, host, port, err, errlen);
	return resolve(a, host, port, err, errlen);
}

bool zcs_net_is_ipv6(const struct zcs_addr *a)
{
	return a->ss.ss_family == AF_INET6;
}

bool zcs_net_is_multicast(const struct zcs_addr *a)
{
	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&a->ss;

		return IN_MULTICAST(ntohl(sin->sin_addr.s_addr));
	}
	if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&a->ss;

		return IN6_IS_ADDR_MULTICAST(&sin6->sin6_addr);
	}
	return false;
}

uint16_t zcs_net_port(const struct zcs_addr *a)
{
	if (a->ss.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return 0;
}

const char *zcs_net_addr_str(const struct zcs_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	char zone[IF_NAMESIZE + 2] = "";

	if (!len)
		return buf;
	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&a->ss;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(sin->sin_port));
	} else if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)&a->ss;
		char name[IF_NAMESIZE];

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		if (sin6->sin6_scope_id) {
			if (if_indextoname(sin6->sin6_scope_id, name))
				snprintf(zone, sizeof(zone), "%%%s", name);
			else
				snprintf(zone, sizeof(zone), "%%%u", (unsigned)sin6->sin6_scope_id);
		}
		snprintf(buf, len, "[%s%s]:%u", ip, zone, (unsigned)ntohs(sin6->sin6_port));
	} else {
		snprintf(buf, len, "(family %d)", a->ss.ss_family);
	}
	return buf;
}

static int set_int(int fd, int level, int name, int val, const char *what, char *err, size_t errlen)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)) < 0) {
		const int e = errno;

		return fail(err, errlen, -e, "setsockopt(%s, %d): %s", what, val, strerror(e));
	}
	return 0;
}

static int iface_index(const char *iface, unsigned int *idx, char *err, size_t errlen)
{
	*idx = 0;
	if (!iface || !*iface)
		return 0;
	*idx = if_nametoindex(iface);
	if (!*idx)
		return fail(err, errlen, -ENODEV, "no interface \"%s\"", iface);
	return 0;
}

static int bind_device(int fd, const char *iface, char *err, size_t errlen)
{
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, iface, (socklen_t)strlen(iface) + 1) < 0) {
		const int e = errno;

		return fail(err, errlen, -e, "SO_BINDTODEVICE %s: %s", iface, strerror(e));
	}
	return 0;
}

static int new_socket(const struct zcs_addr *a, int type, char *err, size_t errlen)
{
	const int fd = socket(a->ss.ss_family, type | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		const int e = errno;

		return fail(err, errlen, -e, "socket: %s", strerror(e));
	}
	return fd;
}

static int mcast_tx_opts(int fd, const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
			 char *err, size_t errlen)
{
	const bool v6 = zcs_net_is_ipv6(dst);
	const int ttl = opt->ttl > 0 ? opt->ttl : 1;
	unsigned int idx;
	int ret;

	if (ttl > 255)
		return fail(err, errlen, -EINVAL, "multicast TTL %d out of range 1-255", ttl);
	ret = set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MULTICAST_HOPS : IP_MULTICAST_TTL,
		      ttl, "multicast TTL", err, errlen);
	if (ret < 0)
		return ret;
	ret = set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MULTICAST_LOOP : IP_MULTICAST_LOOP,
		      opt->mcast_loop ? 1 : 0, "multicast loop", err, errlen);
	if (ret < 0)
		return ret;
	ret = iface_index(opt->iface, &idx, err, errlen);
	if (ret < 0 || !idx)
		return ret;
	if (v6)
		return set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, (int)idx, "IPV6_MULTICAST_IF",
			       err, errlen);
	{
		/* ip_mreqn selects the interface by index, not by one of its addresses */
		struct ip_mreqn mr = { .imr_ifindex = (int)idx };

		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) < 0) {
			const int e = errno;

			return fail(err, errlen, -e, "IP_MULTICAST_IF %s: %s", opt->iface, strerror(e));
		}
	}
	return 0;
}

int zcs_net_udp_sender(const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
		       char *err, size_t errlen)
{
	static const struct zcs_net_tx_opts defaults;
	char s[96];
	int fd, ret;

	if (!opt)
		opt = &defaults;
	fd = new_socket(dst, SOCK_DGRAM, err, errlen);
	if (fd < 0)
		return fd;
	if (opt->sndbuf > 0) {
		ret = set_int(fd, SOL_SOCKET, SO_SNDBUF, opt->sndbuf, "SO_SNDBUF", err, errlen);
		if (ret < 0)
			goto out;
	}
	if (zcs_net_is_multicast(dst))
		ret = mcast_tx_opts(fd, dst, opt, err, errlen);
	else if (opt->iface && *opt->iface)
		ret = bind_device(fd, opt->iface, err, errlen);
	else
		ret = 0;
	if (ret < 0)
		goto out;
	if (connect(fd, (const struct sockaddr *)&dst->ss, dst->len) < 0) {
		const int e = errno;

		ret = fail(err, errlen, -e, "connect %s: %s", zcs_net_addr_str(dst, s, sizeof(s)),
			   strerror(e));
		goto out;
	}
	return fd;
out:
	close(fd);
	return ret;
}

static int set_rcvbuf(int fd, int bytes, char *err, size_t errlen)
{
	/* FORCE passes rmem_max when we hold CAP_NET_ADMIN; otherwise the capped plain option */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) == 0)
		return 0;
	return set_int(fd, SOL_SOCKET, SO_RCVBUF, bytes, "SO_RCVBUF", err, errlen);
}

static int mcast_join(int fd, const struct zcs_addr *grp, const struct zcs_net_rx_opts *opt,
		      struct zcs_net_rx_missing *missing, char *err, size_t errlen)
{
	const bool v6 = zcs_net_is_ipv6(grp);
	const int level = v6 ? IPPROTO_IPV6 : IPPROTO_IP;
	char g[96], s[96];
	unsigned int idx;
	int ret;

	ret = iface_index(opt->iface, &idx, err, errlen);
	if (ret < 0)
		return ret;
	/* "ff02::1%eth0": the zone names the interface when no iface was given */
	if (!idx && v6)
		idx = ((const struct sockaddr_in6 *)&grp->ss)->sin6_scope_id;
	/* without this a socket bound to a port gets every group any socket on the host joined;
	 * ENOPROTOOPT: a kernel before 4.20 (IPv6) or qemu-user, which has neither option */
	if (setsockopt(fd, level, v6 ? IPV6_MULTICAST_ALL : IP_MULTICAST_ALL, &(int){ 0 },
		       sizeof(int)) < 0) {
		const int e = errno;

		if (e != ENOPROTOOPT)
			return fail(err, errlen, -e, "multicast_all off: %s", strerror(e));
		missing->multicast_all = true;
	}
	if (opt->source) {
		struct group_source_req gsr = { .gsr_interface = idx };

		if (opt->source->ss.ss_family != grp->ss.ss_family)
			return fail(err, errlen, -EINVAL, "source %s and group %s differ in family",
				    zcs_net_addr_str(opt->source, s, sizeof(s)),
				    zcs_net_addr_str(grp, g, sizeof(g)));
		memcpy(&gsr.gsr_group, &grp->ss, grp->len);
		memcpy(&gsr.gsr_source, &opt->source->ss, opt->source->len);
		if (setsockopt(fd, level, MCAST_JOIN_SOURCE_GROUP, &gsr, sizeof(gsr)) < 0) {
			const int e = errno;

			return fail(err, errlen, -e, "join %s source %s: %s",
				    zcs_net_addr_str(grp, g, sizeof(g)),
				    zcs_net_addr_str(opt->source, s, sizeof(s)), strerror(e));
		}
	} else {
		struct group_req gr = { .gr_interface = idx };

		memcpy(&gr.gr_group, &grp->ss, grp->len);
		if (setsockopt(fd, level, MCAST_JOIN_GROUP, &gr, sizeof(gr)) < 0) {
			const int e = errno;

			return fail(err, errlen, -e, "join %s: %s", zcs_net_addr_str(grp, g, sizeof(g)),
				    strerror(e));
		}
	}
	return 0;
}

int zcs_net_udp_receiver(const struct zcs_addr *addr, const struct zcs_net_rx_opts *opt,
			 char *err, size_t errlen)
{
	static const struct zcs_net_rx_opts defaults;
	const bool mcast = zcs_net_is_multicast(addr);
	struct zcs_net_rx_missing missing = { 0 };
	char s[96];
	int fd, ret;

	if (!opt)
		opt = &defaults;
	fd = new_socket(addr, SOCK_DGRAM, err, errlen);
	if (fd < 0)
		return fd;
	/* several receivers (one per process) may share a group port on one host */
	ret = set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", err, errlen);
	if (ret < 0)
		goto out;
	if (opt->rcvbuf > 0) {
		ret = set_rcvbuf(fd, opt->rcvbuf, err, errlen);
		if (ret < 0)
			goto out;
	}
	if (opt->rxq_ovfl) {
		ret = set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1, "SO_RXQ_OVFL", err, errlen);
		/* every kernel since 2.6.33 has it; qemu-user does not: receive without counting */
		if (ret == -ENOPROTOOPT) {
			missing.drop_count = true;
			ret = 0;
			if (err && errlen)
				err[0] = '\0';
		}
		if (ret < 0)
			goto out;
	}
	if (!mcast && opt->iface && *opt->iface) {
		ret = bind_device(fd, opt->iface, err, errlen);
		if (ret < 0)
			goto out;
	}
	/* bound to the group itself, Linux delivers only datagrams sent to that group and port */
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0) {
		const int e = errno;

		ret = fail(err, errlen, -e, "bind %s: %s", zcs_net_addr_str(addr, s, sizeof(s)),
			   strerror(e));
		goto out;
	}
	if (mcast) {
		ret = mcast_join(fd, addr, opt, &missing, err, errlen);
		if (ret < 0)
			goto out;
	}
	if (opt->missing)
		*opt->missing = missing;
	return fd;
out:
	close(fd);
	return ret;
}

int zcs_net_rcvbuf(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) < 0)
		return -errno;
	return v;
}

static bool is_v6_any(const struct zcs_addr *a)
{
	return zcs_net_is_ipv6(a) &&
	       IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
}

int zcs_net_tcp_listen(const struct zcs_addr *addr, int backlog, char *err, size_t errlen)
{
	char s[96];
	int fd, ret;

	fd = new_socket(addr, SOCK_STREAM | SOCK_NONBLOCK, err, errlen);
	if (fd < 0)
		return fd;
	ret = set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", err, errlen);
	if (ret < 0)
		goto out;
	/* "[::]" serves IPv4 clients too; a specific IPv6 address keeps the system default */
	if (is_v6_any(addr)) {
		ret = set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY", err, errlen);
		if (ret < 0)
			goto out;
	}
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0) {
		const int e = errno;

		ret = fail(err, errlen, -e, "bind %s: %s", zcs_net_addr_str(addr, s, sizeof(s)),
			   strerror(e));
		goto out;
	}
	if (listen(fd, backlog > 0 ? backlog : 16) < 0) {
		const int e = errno;

		ret = fail(err, errlen, -e, "listen %s: %s", zcs_net_addr_str(addr, s, sizeof(s)),
			   strerror(e));
		goto out;
	}
	return fd;
out:
	close(fd);
	return ret;
}

int zcs_net_tcp_connect(const struct zcs_addr *addr, char *err, size_t errlen)
{
	char s[96];
	int fd, ret;

	fd = new_socket(addr, SOCK_STREAM | SOCK_NONBLOCK, err, errlen);
	if (fd < 0)
		return fd;
	if (connect(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0 && errno != EINPROGRESS) {
		const int e = errno;

		ret = fail(err, errlen, -e, "connect %s: %s", zcs_net_addr_str(addr, s, sizeof(s)),
			   strerror(e));
		close(fd);
		return ret;
	}
	return fd;
}
