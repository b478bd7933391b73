// SPDX-License-Identifier: MIT
/* The stream's rate on the wire and the link it leaves by (link_info.h): ETHTOOL_GSET the speed,
 * SIOCGIFMTU the MTU, egress.h the device, its driver's name (a USB gadget's u_ether says
 * "g_ether") and its checksum offload.  Every figure says where it came from. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "egress.h"
#include "link_info.h"
#include "proto.h"
#include "wire.h"

/* Ethernet's cost of a frame beyond its IP packet: header 14, FCS 4, preamble and start 8,
 * inter-frame gap 12.  A USB link frames differently (CDC headers, no gap) but not for less. */
#define FRAME_OVERHEAD 38
#define UDP_HDR 8
/* parity datagram = 32-byte parity header + the sample datagram from byte 16 on (proto.h) */
#define PARITY_EXTRA (ZCS_PROTO_PARITY_HDR_SIZE - 16)

/* USB bulk ceilings, the most a USB Ethernet function can move whatever its class: high speed
 * carries 13 bulk packets of 512 bytes a 125 us microframe, full speed 19 of 64 a 1 ms frame;
 * SuperSpeed's 5 Gb/s line rate less its 8b/10b coding. */
#define USB_HS_BULK_BPS 425984000ULL
#define USB_FS_BULK_BPS 9728000ULL
#define USB_SS_BPS 4000000000ULL

static int ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	/* reads only: no privilege needed */
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static bool driver_is(const char *driver, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(driver, *names) == 0)
			return true;
	return false;
}

static bool sysfs_exists(const char *ifname, const char *leaf)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, leaf);
	return stat(path, &st) == 0;
}

static enum zcs_link_kind kind_of(const char *ifname, const char *driver, unsigned flags)
{
	/* u_ether (RNDIS, ECM, NCM, EEM functions alike) names itself g_ether */
	static const char *const gadget[] = { "g_ether", NULL };
	/* usbnet's class drivers and common USB Ethernet adapters */
	static const char *const usb_host[] = { "cdc_ether", "rndis_host", "cdc_ncm", "cdc_eem",
						"cdc_subset", "ax88179_178a", "asix", "r8152",
						"smsc95xx", "lan78xx", NULL };
	static const char *const virt[] = { "veth", "bridge", "tun", "vxlan", "macvlan",
					    "ipvlan", "dummy", "virtio_net", NULL };

	if (flags & IFF_LOOPBACK)
		return ZCS_LINK_LOOPBACK;
	if (driver_is(driver, gadget))
		return ZCS_LINK_USB_GADGET;
	if (driver_is(driver, usb_host))
		return ZCS_LINK_USB_HOST;
	if (sysfs_exists(ifname, "wireless") || sysfs_exists(ifname, "phy80211"))
		return ZCS_LINK_WIFI;
	if (driver_is(driver, virt))
		return ZCS_LINK_VIRTUAL;
	return driver[0] ? ZCS_LINK_ETHERNET : ZCS_LINK_UNKNOWN;
}

/* The gadget's bus speed, from the first USB device controller (a board has one). */
static uint64_t gadget_bus_bps(const char **from)
{
	DIR *d = opendir("/sys/class/udc");
	const struct dirent *e;
	char path[300], speed[32] = "";
	uint64_t bps = USB_HS_BULK_BPS;

	*from = "USB 2.0 high-speed bulk ceiling";
	while (d && (e = readdir(d))) {
		int fd;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/udc/%s/current_speed", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, speed, sizeof(speed) - 1);
		close(fd);
		speed[n > 0 ? n : 0] = '\0';
		break;
	}
	if (d)
		closedir(d);
	if (strncmp(speed, "full-speed", 10) == 0) {
		bps = USB_FS_BULK_BPS;
		*from = "USB full-speed bulk ceiling";
	} else if (strncmp(speed, "super", 5) == 0) {
		bps = USB_SS_BPS;
		*from = "USB SuperSpeed";
	}
	return bps;
}

int zcs_link_probe(int fd, uint64_t speed_bps, struct zcs_link *l)
{
	struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr;
	unsigned flags = 0;
	uint32_t mbps;
	int ret;

	memset(l, 0, sizeof(*l));
	l->tx_csum = -1;
	ret = zcs_egress_device(fd, l->ifname, sizeof(l->ifname));
	if (ret < 0) {
		l->ifname[0] = '\0';
		return ret;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, l->ifname, IFNAMSIZ);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		l->mtu = (unsigned)ifr.ifr_mtu;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		flags = (unsigned short)ifr.ifr_flags;
	/* the driver's name as the send path's order asks it; left "" (the memset above) when the
	 * kernel does not say */
	(void)zcs_egress_driver(fd, l->ifname, l->driver, sizeof(l->driver));
	l->kind = kind_of(l->ifname, l->driver, flags);
	ret = zcs_egress_tx_csum(fd, l->ifname);
	l->tx_csum = ret < 0 ? -1 : ret;
	if (speed_bps) {
		l->speed_bps = speed_bps;
		l->speed_from = "--link-speed";
	} else if (ethtool(fd, l->ifname, &ec) == 0 &&
		   (mbps = ethtool_cmd_speed(&ec)) != (uint32_t)SPEED_UNKNOWN && mbps != 0 &&
		   l->kind != ZCS_LINK_LOOPBACK) {
		l->speed_bps = (uint64_t)mbps * 1000000;
		l->speed_from = "as the driver reports it";
	} else if (l->kind == ZCS_LINK_USB_GADGET) {
		l->speed_bps = gadget_bus_bps(&l->speed_from);
	}
	return 0;
}

/* Bytes on the wire of one datagram of payload bytes, and the frames it takes. */
static double dgram_wire_bytes(size_t payload, bool ipv6, unsigned link_mtu, unsigned *frames)
{
	const size_t ip_hdr = ipv6 ? 40 : 20;
	const size_t udp = payload + UDP_HDR;
	size_t per_frag, n;

	if (!link_mtu || udp + ip_hdr <= link_mtu) {
		*frames = 1;
		return (double)(udp + ip_hdr + FRAME_OVERHEAD);
	}
	/* fragments: each carries a multiple of 8 bytes of the UDP datagram (IPv6's fragment
	 * header is 8 bytes more) */
	per_frag = ((link_mtu - ip_hdr - (ipv6 ? 8 : 0)) / 8) * 8;
	if (per_frag == 0)
		per_frag = 8;
	n = (udp + per_frag - 1) / per_frag;
	*frames = (unsigned)n;
	return (double)udp + (double)n * (double)(ip_hdr + (ipv6 ? 8 : 0) + FRAME_OVERHEAD);
}

void zcs_link_wire_rate(const struct zcs_stream_shape *s, struct zcs_wire_rate *w)
{
	/* with parity a datagram keeps room for its parity's longer header (pipeline.c) */
	const size_t reserve = s->trailer + (s->fec_k ? PARITY_EXTRA + s->trailer : 0);
	const size_t pair = zcs_wire_pair_bytes(s->format);
	double per_sample_dgrams, parity_ratio, wire_bytes;
	unsigned pframes;

	memset(w, 0, sizeof(*w));
	if (!pair || s->udp_payload <= reserve)
		return;
	w->pairs_per_dgram = zcs_proto_max_samples(s->format, s->udp_payload - reserve);
	if (!w->pairs_per_dgram)
		return;
	w->dgram_bytes = ZCS_PROTO_SAMPLE_HDR_SIZE + w->pairs_per_dgram * pair + s->trailer;
	per_sample_dgrams = (double)s->rate / (double)w->pairs_per_dgram;
	parity_ratio = s->fec_k ? (double)s->fec_m / (double)s->fec_k : 0.0;
	w->dgrams = per_sample_dgrams * (1.0 + parity_ratio);
	w->payload_Bps = per_sample_dgrams * ((double)w->dgram_bytes +
					      parity_ratio * (double)(w->dgram_bytes + PARITY_EXTRA));
	wire_bytes = dgram_wire_bytes(w->dgram_bytes, s->ipv6, s->link_mtu, &w->frames) +
		     parity_ratio * dgram_wire_bytes(w->dgram_bytes + PARITY_EXTRA, s->ipv6,
						     s->link_mtu, &pframes);
	w->wire_bps = per_sample_dgrams * wire_bytes * 8.0;
}

uint64_t zcs_link_max_rate(const struct zcs_stream_shape *s, int format, uint64_t bps)
{
	struct zcs_stream_shape t = *s;
	struct zcs_wire_rate w;

	/* the wire rate is linear in the rate: one second's worth at 1 MS/s scales */
	t.format = format;
	t.rate = 1000000;
	zcs_link_wire_rate(&t, &w);
	if (w.wire_bps <= 0)
		return 0;
	return (uint64_t)floor((double)bps / w.wire_bps * 1e6);
}

static const char *kind_name(enum zcs_link_kind k)
{
	switch (k) {
	case ZCS_LINK_LOOPBACK: return "loopback";
	case ZCS_LINK_ETHERNET: return "Ethernet";
	case ZCS_LINK_USB_GADGET: return "USB gadget Ethernet (this board's side of a USB cable)";
	case ZCS_LINK_USB_HOST: return "USB Ethernet";
	case ZCS_LINK_WIFI: return "Wi-Fi (multicast goes at its lowest rate: prefer a wire)";
	case ZCS_LINK_VIRTUAL: return "virtual";
	default: return "a link of unknown kind";
	}
}

/* "20 MS/s", "2.4 MS/s", "250 kS/s" */
static const char *rate_text(char *buf, size_t len, uint64_t rate)
{
	if (rate >= 1000000)
		snprintf(buf, len, "%.4g MS/s", (double)rate / 1e6);
	else
		snprintf(buf, len, "%.4g kS/s", (double)rate / 1e3);
	return buf;
}

void zcs_link_stream_line(char *buf, size_t len, const struct zcs_stream_shape *s)
{
	struct zcs_wire_rate w;
	char r[32], fec[32] = "";

	zcs_link_wire_rate(s, &w);
	if (s->fec_k)
		snprintf(fec, sizeof(fec), ", parity %u:%u", s->fec_k, s->fec_m);
	snprintf(buf, len, "stream: %s at %s: %.0f datagrams/s of %zu bytes (%zu pairs%s%s): "
		 "%.1f MB/s of UDP payload, %.1f Mb/s on the wire with UDP, IP and Ethernet "
		 "framing%s", zcs_wire_name(s->format), rate_text(r, sizeof(r), s->rate), w.dgrams,
		 w.dgram_bytes, w.pairs_per_dgram, s->trailer ? ", keyed: tag included" : "", fec,
		 w.payload_Bps / 1e6, w.wire_bps / 1e6,
		 w.frames > 1 ? " (each datagram fragmented: larger than the link's MTU)" : "");
}

void zcs_link_line(char *buf, size_t len, const struct zcs_link *l)
{
	char speed[96] = "speed unknown", mtu[24] = "MTU unknown";

	if (!l->ifname[0]) {
		snprintf(buf, len, "link: the egress device is not known");
		return;
	}
	if (l->speed_bps)
		snprintf(speed, sizeof(speed), "%.6g Mb/s (%s)", (double)l->speed_bps / 1e6,
			 l->speed_from);
	if (l->mtu)
		snprintf(mtu, sizeof(mtu), "MTU %u", l->mtu);
	snprintf(buf, len, "link: %s, %s%s%s%s, %s, %s, %s", l->ifname, kind_name(l->kind),
		 l->driver[0] ? " (driver " : "", l->driver, l->driver[0] ? ")" : "", speed, mtu,
		 l->tx_csum > 0 ? "checksum offload" : l->tx_csum == 0 ? "no checksum offload"
								: "checksum offload unknown");
}

int zcs_link_fit_line(char *buf, size_t len, const struct zcs_stream_shape *s,
		      const struct zcs_link *l)
{
	struct zcs_wire_rate w;
	char r[32], alt[200] = "", mtu_hint[160] = "";
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	zcs_link_wire_rate(s, &w);
	if (!l->speed_bps || w.wire_bps <= (double)l->speed_bps)
		return 0;
	/* what would fit: each format at this rate, or up to the rate the link carries */
	for (int f = 1; f <= ZCS_WIRE_MAX; f++) {
		const uint64_t max = zcs_link_max_rate(s, f, l->speed_bps);
		int n;

		const char *const sep = used ? ", " : "";

		if (max >= s->rate)
			n = snprintf(alt + used, sizeof(alt) - used, "%s%s at this rate", sep,
				     zcs_wire_name(f));
		else
			n = snprintf(alt + used, sizeof(alt) - used, "%s%s up to %s", sep,
				     zcs_wire_name(f), rate_text(r, sizeof(r), max));
		used += n > 0 && (size_t)n < sizeof(alt) - used ? (size_t)n : 0;
	}
	/* a gadget's link is one cable: a jumbo MTU on both ends is the user's to set */
	if (l->mtu && l->mtu < 9000 && l->kind == ZCS_LINK_USB_GADGET)
		snprintf(mtu_hint, sizeof(mtu_hint), "; a larger MTU on both ends spends less on "
			 "headers: ip link set dev %s mtu 9000 here and on the PC, and --mtu 9000",
			 l->ifname);
	snprintf(buf, len, "warning: %s cannot carry this stream (%.1f Mb/s on the wire, the link "
		 "%.6g Mb/s): expect loss.  What fits: %s%s", l->ifname, w.wire_bps / 1e6,
		 (double)l->speed_bps / 1e6, alt, mtu_hint);
	return 1;
}
