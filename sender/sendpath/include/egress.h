/* SPDX-License-Identifier: MIT */
/* What zcs-send learns about the device its datagrams leave by before the first send. */
#ifndef ZCS_EGRESS_H
#define ZCS_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "sendpath.h"

/* The name of the device connected UDP socket fd sends through (its SO_BINDTODEVICE, else the
 * device holding the source address connect() chose) into name (len >= IFNAMSIZ).  Returns 0 or
 * -errno (-ENODEV: no device holds that address). */
int zcs_egress_device(int fd, char *name, size_t len);

/* Whether device `name` checksums transmitted packets (ETHTOOL_GTXCSUM): 1 yes, 0 no, -errno when
 * the kernel cannot tell (no SIOCETHTOOL, as under qemu-user). */
int zcs_egress_tx_csum(int fd, const char *name);

/* UDP checksum 0 on connected IPv4 socket fd (SO_NO_CHECK), for a device without TX checksum
 * offload only: there the kernel would otherwise sum every payload byte in software, one pass
 * over the datagram per send, while a device that checksums does it for free, and on one that
 * checksums (the Zynq GEM, Linux's macb) a packet that is not left for it to sum costs more, not
 * less (macb then computes the frame's FCS in software).  Beyond the link's own CRC (Ethernet's
 * FCS, USB's per-packet CRC) the UDP checksum only catches corruption inside a machine on the
 * way; a USB-attached board's link is one cable to the PC.  Returns 1 when set, 0 when fd is not
 * IPv4 (nothing done), -errno. */
int zcs_egress_no_check(int fd);

/* The driver of device `name` (ETHTOOL_GDRVINFO, e.g. "macb", "virtio_net") into driver, len
 * bytes.  Returns 0 or -errno (no SIOCETHTOOL, as under qemu-user). */
int zcs_egress_driver(int fd, const char *name, char *driver, size_t len);

/* The order `--send-path auto` tries the paths in on a device with checksum offload whose driver
 * is `driver` (NULL or "": unknown), into order[]; returns how many.  Fastest first (uring-zc,
 * msg-zc, gso, plain) but where copying is counted cheaper than zero-copy: there gso, then
 * plain. */
size_t zcs_egress_path_order(const char *driver, int order[ZCS_PATH_KINDS]);

#endif
