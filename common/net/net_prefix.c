// SPDX-License-Identifier: MIT
/* Address prefixes for allow lists ("198.18.0.0/15", "fd00::/8", "192.168.1.5") and the loopback
 * test (net.h).  Literals only: an allow list that resolved names would trust whoever answers the
 * lookup. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "net.h"

int zcs_net_parse_prefix(struct zcs_net_prefix *p, const char *spec, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(spec, '/');
	const size_t hlen = slash ? (size_t)(slash - spec) : strlen(spec);
	unsigned max;

	memset(p, 0, sizeof(*p));
	if (!hlen || hlen >= sizeof(host))
		return zcs_err(err, errlen, -EINVAL, "'%s': expected ADDR or ADDR/PREFIX (an IPv4 "
			       "or IPv6 address, not a name)", spec);
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	if (inet_pton(AF_INET, host, p->addr) == 1) {
		p->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, host, p->addr) == 1) {
		p->family = AF_INET6;
		max = 128;
	} else {
		return zcs_err(err, errlen, -EINVAL, "'%s': '%s' is not an IPv4 or IPv6 address "
			       "(names are not taken: write the address)", spec, host);
	}
	p->bits = max;
	if (slash) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || errno || slash[1] == '-' || slash[1] == '+' || v > max)
			return zcs_err(err, errlen, -EINVAL, "'%s': the prefix length must be "
				       "0..%u for an %s address", spec, max,
				       max == 32 ? "IPv4" : "IPv6");
		p->bits = (unsigned)v;
	}
	/* bits past the prefix: "198.18.5.1/24" is a slip for .0/24 or for /32, so say which */
	for (unsigned b = p->bits; b < max; b++)
		if (p->addr[b / 8] & (0x80 >> (b % 8)))
			return zcs_err(err, errlen, -EINVAL, "'%s': the address has bits set past its "
				       "/%u prefix (a network is written with them zero; one host "
				       "without /PREFIX)", spec, p->bits);
	return 0;
}

/* The peer's address as bytes of the prefix's family: an IPv4-mapped IPv6 peer (a dual-stack
 * socket's IPv4 client) is its IPv4 address.  False when the families cannot meet. */
static bool peer_bytes(const struct zcs_addr *a, int family, const uint8_t **bytes)
{
	if (a->ss.ss_family == AF_INET) {
		*bytes = (const uint8_t *)&((const struct sockaddr_in *)(const void *)&a->ss)->sin_addr;
		return family == AF_INET;
	}
	if (a->ss.ss_family == AF_INET6) {
		const struct in6_addr *v6 = &((const struct sockaddr_in6 *)(const void *)&a->ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(v6)) {
			*bytes = v6->s6_addr + 12;
			return family == AF_INET;
		}
		*bytes = v6->s6_addr;
		return family == AF_INET6;
	}
	return false;
}

bool zcs_net_prefix_match(const struct zcs_net_prefix *p, const struct zcs_addr *a)
{
	const uint8_t *b;
	unsigned full, rest;

	if (!peer_bytes(a, p->family, &b))
		return false;
	full = p->bits / 8;
	rest = p->bits % 8;
	if (memcmp(b, p->addr, full) != 0)
		return false;
	return !rest || ((b[full] ^ p->addr[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool zcs_net_is_loopback(const struct zcs_addr *a)
{
	const uint8_t *b;

	if (peer_bytes(a, AF_INET, &b))
		return b[0] == 127;
	return a->ss.ss_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)(const void *)&a->ss)->sin6_addr);
}
