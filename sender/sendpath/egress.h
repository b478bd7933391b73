/* SPDX-License-Identifier: MIT */
/* What zcs-send learns about the device its datagrams leave by before the first send. */
#ifndef ZCS_EGRESS_H
#define ZCS_EGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* The name of the device connected UDP socket fd sends through (its SO_BINDTODEVICE, else the
 * device holding the source address connect() chose) into name (len >= IFNAMSIZ).  Returns 0 or
 * -errno (-ENODEV: no device holds that address). */
int zcs_egress_device(int fd, char *name, size_t len);

/* Whether device `name` checksums transmitted packets (ETHTOOL_GTXCSUM): 1 yes, 0 no, -errno when
 * the kernel cannot tell (no SIOCETHTOOL, as under qemu-user). */
int zcs_egress_tx_csum(int fd, const char *name);

#endif
