/* SPDX-License-Identifier: MIT */
/* The one compat header: socket constants that old kernel headers (the Pluto toolchain ships 4.10)
 * or libc may lack.  Values are the kernel's ABI; whether the running kernel supports a feature is
 * probed at run time by the caller (setsockopt fails with ENOPROTOOPT/EINVAL), never assumed. */
#ifndef ZCS_COMPAT_H
#define ZCS_COMPAT_H

/* Include the headers that would define these first, so the order of includes cannot matter. */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* UDP level (glibc defines it in netinet/udp.h; the kernel only internally). */
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

/* UDP generic segmentation offload: Linux 4.18. */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* UDP generic receive offload: Linux 5.0. */
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* MSG_ZEROCOPY for TCP: Linux 4.14; for UDP: Linux 5.0. */
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

/* Zero-copy completion notifications on the error queue (linux/errqueue.h): Linux 4.14. */
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* Count of datagrams the socket dropped, as a cmsg on every receive: Linux 2.6.33. */
#ifndef SO_RXQ_OVFL
#define SO_RXQ_OVFL 40
#endif

/* Set a receive buffer above rmem_max (needs CAP_NET_ADMIN): Linux 2.6.14. */
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif

/* Deliver only the groups this socket joined, not every group any socket joined:
 * IPv4 Linux 2.6.31, IPv6 Linux 4.20. */
#ifndef IP_MULTICAST_ALL
#define IP_MULTICAST_ALL 49
#endif
#ifndef IPV6_MULTICAST_ALL
#define IPV6_MULTICAST_ALL 29
#endif

/* Protocol-independent multicast (RFC 3678), struct group_req / group_source_req: Linux 2.6.15. */
#ifndef MCAST_JOIN_GROUP
#define MCAST_JOIN_GROUP 42
#endif
#ifndef MCAST_JOIN_SOURCE_GROUP
#define MCAST_JOIN_SOURCE_GROUP 46
#endif

/* Bind a socket to one interface by name: Linux 2.0 (listed for completeness of old libcs). */
#ifndef SO_BINDTODEVICE
#define SO_BINDTODEVICE 25
#endif

#ifdef __cplusplus
}
#endif

#endif
