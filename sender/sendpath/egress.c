// SPDX-License-Identifier: MIT
/* The device a connected UDP socket sends through, and whether it checksums transmitted packets:
 * UDP GSO needs that offload (before Linux 6.10 a GSO send through a device without it fails with
 * EIO), so zcs-send asks before its first send instead of learning it from a failure. */
#include <errno.h>
#include <ifaddrs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "compat.h"
#include "egress.h"

/* Whether ifaddr a holds the same address as the socket's own s.  The address bytes are compared
 * where they lie: a struct sockaddr is not aligned for its family's struct. */
static bool same_addr(const struct sockaddr *a, const struct sockaddr_storage *s)
{
	const uint8_t *const x = (const uint8_t *)a, *const y = (const uint8_t *)s;

	if (!a || a->sa_family != s->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return memcmp(x + offsetof(struct sockaddr_in, sin_addr),
			      y + offsetof(struct sockaddr_in, sin_addr), sizeof(struct in_addr)) == 0;
	if (a->sa_family == AF_INET6)
		return memcmp(x + offsetof(struct sockaddr_in6, sin6_addr),
			      y + offsetof(struct sockaddr_in6, sin6_addr), sizeof(struct in6_addr)) == 0;
	return false;
}

int zcs_egress_device(int fd, char *name, size_t len)
{
	char bound[IFNAMSIZ] = "";
	socklen_t blen = sizeof(bound);
	struct sockaddr_storage self;
	socklen_t slen = sizeof(self);
	struct ifaddrs *list = NULL;
	int ret = -ENODEV;

	if (len < IFNAMSIZ)
		return -EINVAL;
	/* --iface on unicast binds the socket to the device: that is the answer */
	if (getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, bound, &blen) == 0 && bound[0]) {
		memcpy(name, bound, sizeof(bound));
		name[IFNAMSIZ - 1] = '\0';
		return 0;
	}
	/* otherwise connect() chose the route and, from it, the source address: the device holding
	 * that address is the one the route leaves by (for multicast, IP_MULTICAST_IF's) */
	if (getsockname(fd, (struct sockaddr *)&self, &slen) < 0)
		return -errno;
	if (getifaddrs(&list) < 0)
		return -errno;
	for (const struct ifaddrs *i = list; i; i = i->ifa_next) {
		if (i->ifa_name && same_addr(i->ifa_addr, &self)) {
			strncpy(name, i->ifa_name, IFNAMSIZ - 1);
			name[IFNAMSIZ - 1] = '\0';
			ret = 0;
			break;
		}
	}
	freeifaddrs(list);
	return ret;
}

int zcs_egress_tx_csum(int fd, const char *name)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_GTXCSUM };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	ifr.ifr_data = (void *)&ev;
	/* any socket may ask; ETHTOOL_GTXCSUM reads the device's features (no privilege needed) */
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	return ev.data ? 1 : 0;
}

int zcs_egress_no_check(int fd)
{
	struct sockaddr_storage self;
	socklen_t slen = sizeof(self);
	const int one = 1;

	if (getsockname(fd, (struct sockaddr *)&self, &slen) < 0)
		return -errno;
	/* IPv6 has no checksum-less UDP for ordinary sockets (RFC 8200): there the kernel sums */
	if (self.ss_family != AF_INET)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) < 0)
		return -errno;
	return 1;
}

int zcs_egress_driver(int fd, const char *name, char *driver, size_t len)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;

	if (len == 0)
		return -EINVAL;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	di.driver[sizeof(di.driver) - 1] = '\0';
	snprintf(driver, len, "%s", di.driver);
	return 0;
}

/* Drivers where copying a 1472-byte datagram into a GSO train costs no more than sending it
 * zero-copy: the Zynq GEM's macb, where the kernel's send path alone, counted in ARM instructions
 * on Linux 6.1, is 4,673 a datagram for GSO with copy against 5,074 with MSG_ZEROCOPY, and
 * zcs-send counted whole there spends 9.7 a p12 sample on its send thread on gso as on uring-zc
 * (10.7 on msg-zc); on the model's virtio NIC uring-zc is still the cheapest (docs/board.md
 * section 8). */
static const char *const copy_cheaper[] = { "macb" };

size_t zcs_egress_path_order(const char *driver, int order[ZCS_PATH_KINDS])
{
	size_t n = 0;

	for (size_t i = 0; driver && i < sizeof(copy_cheaper) / sizeof(copy_cheaper[0]); i++) {
		if (strcmp(driver, copy_cheaper[i]) == 0) {
			order[n++] = ZCS_PATH_GSO;
			order[n++] = ZCS_PATH_PLAIN;
			return n;
		}
	}
	for (int k = 0; k < ZCS_PATH_KINDS; k++)
		order[n++] = k;
	return n;
}
