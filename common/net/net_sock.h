/* SPDX-License-Identifier: MIT */
/* Internal to common/net/net.c and common/net/net_udp.c: the socket calls both halves of net.h's API
 * share (messages through err.h).  Every function returns >= 0 or -errno with err set, like
 * net.h's own. */
#ifndef ZCS_NET_SOCK_H
#define ZCS_NET_SOCK_H

#include <stddef.h>

#include "err.h"
#include "net.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "<what> <address>: <strerror(errno)>" into err, errno read before the address is formatted;
 * returns -errno.  For a failed bind, connect or listen on a. */
int zcs_net_fail_addr(const struct zcs_addr *a, const char *what, char *err, size_t errlen);

/* setsockopt of one int; what names it in the message. */
int zcs_net_set_int(int fd, int level, int name, int val, const char *what, char *err,
		    size_t errlen);

/* SO_BINDTODEVICE to iface. */
int zcs_net_bind_device(int fd, const char *iface, char *err, size_t errlen);

/* A close-on-exec socket of a's family; type may carry SOCK_NONBLOCK.  Returns the fd. */
int zcs_net_socket(const struct zcs_addr *a, int type, char *err, size_t errlen);

/* The one cleanup path of every socket these files open: fd when its set-up returned ret >= 0,
 * otherwise fd closed and ret (the set-up's -errno, err already set). */
int zcs_net_keep(int fd, int ret);

#ifdef __cplusplus
}
#endif

#endif
