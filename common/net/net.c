// SPDX-License-Identifier: MIT
/* Socket set-up in the manner of redis anet.c: address parsing and printing, TCP helpers and the
 * socket calls net_udp.c shares; errors go to a caller's buffer. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "net_sock.h"

/* Longest address spec we accept: a DNS name (253) plus brackets, zone and port. */
#define SPEC_MAX 320

int zcs_net_fail_addr(const struct zcs_addr *a, const char *what, char *err, size_t errlen)
{
	const int e = errno; /* formatting the address may change errno */
	char s[96];

	return zcs_err(err, errlen, -e, "%s %s: %s", what, zcs_net_addr_str(a, s, sizeof(s)),
		       strerror(e));
}

static int parse_port(const char *s, uint16_t *port, char *err, size_t errlen)
{
	char *end;
	unsigned long v;

	/* strtoul accepts a sign and leading blanks: only plain digits are a port */
	if (!isdigit((unsigned char)s[0]))
		return zcs_err(err, errlen, -EINVAL, "bad port \"%s\": not a number", s);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end != '\0')
		return zcs_err(err, errlen, -EINVAL, "bad port \"%s\": trailing characters", s);
	if (errno || v < 1 || v > 65535)
		return zcs_err(err, errlen, -EINVAL, "bad port \"%s\": must be 1-65535", s);
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
		return zcs_err(err, errlen, -EINVAL, "bad IPv6 address \"%s\"", host);
	if (zone) {
		char *end;
		unsigned long v;

		if (!*zone)
			return zcs_err(err, errlen, -EINVAL, "empty zone after \"%s%%\"", host);
		scope = if_nametoindex(zone);
		if (!scope && isdigit((unsigned char)zone[0])) {
			errno = 0;
			v = strtoul(zone, &end, 10);
			if (*end == '\0' && !errno && v > 0 && v <= UINT32_MAX)
				scope = (uint32_t)v;
		}
		if (!scope)
			return zcs_err(err, errlen, -ENOENT, "unknown zone (interface) \"%s\"",
				       zone);
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
		return zcs_err(err, errlen, -EINVAL,
			       "bad host \"%s\": not an address or a host name", host);
	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret != 0)
		return zcs_err(err, errlen, -ENOENT, "cannot resolve \"%s\": %s", host,
			       gai_strerror(ret));
	if (res->ai_addrlen > sizeof(a->ss)) {
		ret = zcs_err(err, errlen, -EINVAL, "\"%s\": address too long", host);
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
		ret = zcs_err(err, errlen, -EINVAL, "\"%s\": not an IP address", host);
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
		return zcs_err(err, errlen, -EINVAL, "address \"%.32s...\" too long", spec);
	strcpy(buf, spec);

	if (buf[0] == '[') {
		char *close = strchr(buf, ']');

		if (!close)
			return zcs_err(err, errlen, -EINVAL, "bad address \"%s\": missing ']'",
				       spec);
		*close = '\0';
		host = buf + 1;
		if (close[1] == ':')
			portstr = close + 2;
		else if (close[1] != '\0')
			return zcs_err(err, errlen, -EINVAL, "bad address \"%s\": \"%s\" after ']'",
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

/* ---- socket calls shared with net_udp.c (net_sock.h) ---- */

int zcs_net_set_int(int fd, int level, int name, int val, const char *what, char *err,
		    size_t errlen)
{
	if (setsockopt(fd, level, name, &val, sizeof(val)) < 0)
		return zcs_err_errno(err, errlen, "setsockopt(%s, %d)", what, val);
	return 0;
}

int zcs_net_bind_device(int fd, const char *iface, char *err, size_t errlen)
{
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, iface, (socklen_t)strlen(iface) + 1) < 0)
		return zcs_err_errno(err, errlen, "SO_BINDTODEVICE %s", iface);
	return 0;
}

int zcs_net_socket(const struct zcs_addr *a, int type, char *err, size_t errlen)
{
	const int fd = socket(a->ss.ss_family, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return zcs_err_errno(err, errlen, "socket");
	return fd;
}

int zcs_net_keep(int fd, int ret)
{
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/* ---- TCP ---- */

static bool is_v6_any(const struct zcs_addr *a)
{
	return zcs_net_is_ipv6(a) &&
	       IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr);
}

static int listen_setup(int fd, const struct zcs_addr *addr, int backlog, char *err,
			size_t errlen)
{
	int ret;

	ret = zcs_net_set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", err, errlen);
	if (ret < 0)
		return ret;
	/* "[::]" serves IPv4 clients too; a specific IPv6 address keeps the system default */
	if (is_v6_any(addr)) {
		ret = zcs_net_set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY", err, errlen);
		if (ret < 0)
			return ret;
	}
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0)
		return zcs_net_fail_addr(addr, "bind", err, errlen);
	if (listen(fd, backlog > 0 ? backlog : 16) < 0)
		return zcs_net_fail_addr(addr, "listen", err, errlen);
	return 0;
}

int zcs_net_tcp_listen(const struct zcs_addr *addr, int backlog, char *err, size_t errlen)
{
	const int fd = zcs_net_socket(addr, SOCK_STREAM | SOCK_NONBLOCK, err, errlen);

	return fd < 0 ? fd : zcs_net_keep(fd, listen_setup(fd, addr, backlog, err, errlen));
}

int zcs_net_tcp_connect(const struct zcs_addr *addr, char *err, size_t errlen)
{
	const int fd = zcs_net_socket(addr, SOCK_STREAM | SOCK_NONBLOCK, err, errlen);

	if (fd < 0)
		return fd;
	if (connect(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0 && errno != EINPROGRESS)
		return zcs_net_keep(fd, zcs_net_fail_addr(addr, "connect", err, errlen));
	return fd;
}
