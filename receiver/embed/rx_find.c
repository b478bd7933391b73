// SPDX-License-Identifier: MIT
/* Discovery of the zcs streams arriving at an address (rx_embed.h): listen briefly, parse every
 * datagram with the one parser, and keep each distinct stream's newest metadata.  Metadata comes
 * every 400 ms (sender/pipeline), so a second hears each stream at least twice. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "rx_embed.h"

/* Big enough for any UDP datagram: a longer one would be cut off, and then refused. */
#define FIND_BUF_BYTES 65536

static bool same_sender(const struct sockaddr_storage *a, const struct zcs_addr *b)
{
	if (a->ss_family != b->ss.ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const struct sockaddr_in *)(const void *)a;
		const struct sockaddr_in *y = (const struct sockaddr_in *)(const void *)&b->ss;

		return x->sin_addr.s_addr == y->sin_addr.s_addr &&
		       (y->sin_port == 0 || x->sin_port == y->sin_port);
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)(const void *)a;
		const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)(const void *)&b->ss;

		return memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0 &&
		       (y->sin6_port == 0 || x->sin6_port == y->sin6_port);
	}
	return false;
}

int zcs_rx_find(const char *listen, const char *iface, const char *source, bool have_stream,
		uint32_t stream_id, int timeout_ms, bool first_only, struct zcs_rx_found *found,
		size_t max, char *err, size_t errlen)
{
	struct zcs_net_rx_opts nopt = { 0 };
	struct zcs_addr addr, src;
	const uint64_t end = zcs_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ULL;
	uint8_t *buf = NULL;
	size_t n = 0;
	int fd = -1, ret;

	ret = zcs_net_parse_addr(&addr, listen ? listen : "", ZCS_DEFAULT_PORT, err, errlen);
	if (ret < 0)
		return ret;
	if (source) {
		ret = zcs_net_parse_addr(&src, source, 0, err, errlen);
		if (ret < 0)
			return ret;
		/* the group's sources: a source-specific join, as the receiver will make */
		if (zcs_net_is_multicast(&addr))
			nopt.source = &src;
	}
	nopt.iface = iface;
	buf = malloc(FIND_BUF_BYTES);
	if (!buf)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	/* A unicast port is bound without SO_REUSEADDR (net_udp.c): a receiver already there
	 * (zcs-recv, an open zcs device) makes this bind fail rather than share its datagrams.
	 * Said as a skip, not a failure: that receiver is left alone. */
	fd = zcs_net_udp_receiver(&addr, &nopt, err, errlen);
	if (fd == -EADDRINUSE && !zcs_net_is_multicast(&addr)) {
		char a[64];

		ret = zcs_err(err, errlen, -EADDRINUSE, "%s is in use by another receiver (zcs-recv, "
			      "or a zcs device already open): not listened on, so that receiver "
			      "keeps every datagram", zcs_net_addr_str(&addr, a, sizeof(a)));
		goto out;
	}
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	while (n < max && !(first_only && n > 0)) {
		const uint64_t now = zcs_mono_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		struct zcs_dgram dg;
		ssize_t len;
		size_t i;

		if (now >= end)
			break;
		ret = poll(&pfd, 1, (int)((end - now + 999999) / 1000000));
		if (ret < 0 && errno != EINTR) {
			ret = zcs_err_errno(err, errlen, "poll");
			goto out;
		}
		if (ret <= 0)
			continue;
		len = recvfrom(fd, buf, FIND_BUF_BYTES, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
		if (len < 0)
			continue;
		if (zcs_proto_parse(buf, (size_t)len, &dg) < 0 || dg.type != ZCS_DGRAM_META)
			continue;
		if (have_stream && dg.meta.stream_id != stream_id)
			continue;
		if (source && !same_sender(&from, &src))
			continue;
		for (i = 0; i < n; i++)
			if (found[i].meta.stream_id == dg.meta.stream_id && same_sender(&from, &found[i].from))
				break;
		if (i == n) {
			memset(&found[n], 0, sizeof(found[n]));
			memcpy(&found[n].from.ss, &from, flen);
			found[n].from.len = flen;
			n++;
		}
		found[i].meta = dg.meta;
	}
	ret = (int)n;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}
