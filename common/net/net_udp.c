// SPDX-License-Identifier: MIT
/* UDP senders and receivers: unicast, any-source and source-specific multicast (joined with the
 * protocol-independent MCAST_JOIN_GROUP / MCAST_JOIN_SOURCE_GROUP), IPv4 and IPv6. */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "compat.h"
#include "err.h"
#include "net_sock.h"

static int iface_index(const char *iface, unsigned int *idx, char *err, size_t errlen)
{
	*idx = 0;
	if (!iface || !*iface)
		return 0;
	*idx = if_nametoindex(iface);
	if (!*idx)
		return zcs_err(err, errlen, -ENODEV, "no interface \"%s\"", iface);
	return 0;
}

static int mcast_tx_opts(int fd, const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
			 char *err, size_t errlen)
{
	const bool v6 = zcs_net_is_ipv6(dst);
	const int ttl = opt->ttl > 0 ? opt->ttl : 1;
	unsigned int idx;
	int ret;

	if (ttl > 255)
		return zcs_err(err, errlen, -EINVAL, "multicast TTL %d out of range 1-255", ttl);
	ret = zcs_net_set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			      v6 ? IPV6_MULTICAST_HOPS : IP_MULTICAST_TTL, ttl, "multicast TTL",
			      err, errlen);
	if (ret < 0)
		return ret;
	ret = zcs_net_set_int(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			      v6 ? IPV6_MULTICAST_LOOP : IP_MULTICAST_LOOP, opt->mcast_loop ? 1 : 0,
			      "multicast loop", err, errlen);
	if (ret < 0)
		return ret;
	ret = iface_index(opt->iface, &idx, err, errlen);
	if (ret < 0 || !idx)
		return ret;
	if (v6)
		return zcs_net_set_int(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, (int)idx,
				       "IPV6_MULTICAST_IF", err, errlen);
	{
		/* ip_mreqn selects the interface by index, not by one of its addresses */
		struct ip_mreqn mr = { .imr_ifindex = (int)idx };

		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &mr, sizeof(mr)) < 0)
			return zcs_err_errno(err, errlen, "IP_MULTICAST_IF %s", opt->iface);
	}
	return 0;
}

static int tx_setup(int fd, const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
		    char *err, size_t errlen)
{
	static const struct zcs_net_tx_opts defaults;
	int ret;

	if (!opt)
		opt = &defaults;
	if (opt->sndbuf > 0) {
		ret = zcs_net_set_int(fd, SOL_SOCKET, SO_SNDBUF, opt->sndbuf, "SO_SNDBUF", err,
				      errlen);
		if (ret < 0)
			return ret;
	}
	if (opt->reuse_addr) {
		ret = zcs_net_set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", err, errlen);
		if (ret < 0)
			return ret;
	}
	if (opt->bind_to && bind(fd, (const struct sockaddr *)&opt->bind_to->ss,
				 opt->bind_to->len) < 0)
		return zcs_net_fail_addr(opt->bind_to, "bind", err, errlen);
	if (zcs_net_is_multicast(dst))
		ret = mcast_tx_opts(fd, dst, opt, err, errlen);
	else if (opt->iface && *opt->iface)
		ret = zcs_net_bind_device(fd, opt->iface, err, errlen);
	else
		ret = 0;
	if (ret < 0)
		return ret;
	if (connect(fd, (const struct sockaddr *)&dst->ss, dst->len) < 0)
		return zcs_net_fail_addr(dst, "connect", err, errlen);
	return 0;
}

int zcs_net_udp_sender(const struct zcs_addr *dst, const struct zcs_net_tx_opts *opt,
		       char *err, size_t errlen)
{
	const int fd = zcs_net_socket(dst, SOCK_DGRAM, err, errlen);

	return fd < 0 ? fd : zcs_net_keep(fd, tx_setup(fd, dst, opt, err, errlen));
}

static int set_rcvbuf(int fd, int bytes, char *err, size_t errlen)
{
	/* FORCE passes rmem_max when we hold CAP_NET_ADMIN; otherwise the capped plain option */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) == 0)
		return 0;
	return zcs_net_set_int(fd, SOL_SOCKET, SO_RCVBUF, bytes, "SO_RCVBUF", err, errlen);
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
		if (errno != ENOPROTOOPT)
			return zcs_err_errno(err, errlen, "multicast_all off");
		missing->multicast_all = true;
	}
	if (opt->source) {
		struct group_source_req gsr = { .gsr_interface = idx };

		if (opt->source->ss.ss_family != grp->ss.ss_family)
			return zcs_err(err, errlen, -EINVAL,
				       "source %s and group %s differ in family",
				       zcs_net_addr_str(opt->source, s, sizeof(s)),
				       zcs_net_addr_str(grp, g, sizeof(g)));
		memcpy(&gsr.gsr_group, &grp->ss, grp->len);
		memcpy(&gsr.gsr_source, &opt->source->ss, opt->source->len);
		if (setsockopt(fd, level, MCAST_JOIN_SOURCE_GROUP, &gsr, sizeof(gsr)) < 0) {
			const int e = errno; /* formatting the addresses may change errno */

			return zcs_err(err, errlen, -e, "join %s source %s: %s",
				       zcs_net_addr_str(grp, g, sizeof(g)),
				       zcs_net_addr_str(opt->source, s, sizeof(s)), strerror(e));
		}
	} else {
		struct group_req gr = { .gr_interface = idx };

		memcpy(&gr.gr_group, &grp->ss, grp->len);
		if (setsockopt(fd, level, MCAST_JOIN_GROUP, &gr, sizeof(gr)) < 0)
			return zcs_net_fail_addr(grp, "join", err, errlen);
	}
	return 0;
}

static int rx_setup(int fd, const struct zcs_addr *addr, const struct zcs_net_rx_opts *opt,
		    char *err, size_t errlen)
{
	static const struct zcs_net_rx_opts defaults;
	const bool mcast = zcs_net_is_multicast(addr);
	struct zcs_net_rx_missing missing = { 0 };
	int ret;

	if (!opt)
		opt = &defaults;
	/* Several receivers (one per process) may share a group port on one host, and each gets
	 * every datagram.  Never for unicast: there a second socket on the port would silently take
	 * a share of the first one's datagrams, so the second bind must fail instead. */
	if (mcast) {
		ret = zcs_net_set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR", err, errlen);
		if (ret < 0)
			return ret;
	}
	if (opt->rcvbuf > 0) {
		ret = set_rcvbuf(fd, opt->rcvbuf, err, errlen);
		if (ret < 0)
			return ret;
	}
	if (opt->rxq_ovfl) {
		ret = zcs_net_set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1, "SO_RXQ_OVFL", err, errlen);
		/* every kernel since 2.6.33 has it; qemu-user does not: receive without counting */
		if (ret == -ENOPROTOOPT) {
			missing.drop_count = true;
			ret = 0;
			if (err && errlen)
				err[0] = '\0';
		}
		if (ret < 0)
			return ret;
	}
	if (!mcast && opt->iface && *opt->iface) {
		ret = zcs_net_bind_device(fd, opt->iface, err, errlen);
		if (ret < 0)
			return ret;
	}
	/* bound to the group itself, Linux delivers only datagrams sent to that group and port */
	if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0)
		return zcs_net_fail_addr(addr, "bind", err, errlen);
	if (mcast) {
		ret = mcast_join(fd, addr, opt, &missing, err, errlen);
		if (ret < 0)
			return ret;
	}
	if (opt->missing)
		*opt->missing = missing;
	return 0;
}

int zcs_net_udp_receiver(const struct zcs_addr *addr, const struct zcs_net_rx_opts *opt,
			 char *err, size_t errlen)
{
	const int fd = zcs_net_socket(addr, SOCK_DGRAM, err, errlen);

	return fd < 0 ? fd : zcs_net_keep(fd, rx_setup(fd, addr, opt, err, errlen));
}

int zcs_net_rcvbuf(int fd)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) < 0)
		return -errno;
	return v;
}
