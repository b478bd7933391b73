/* SPDX-License-Identifier: MIT */
/* Standard descriptors at start-up: a program started with fd 0, 1 or 2 closed would hand that
 * number to its first socket, and then read its own socket as stdin or write samples into it. */
#ifndef ZCS_STDFDS_H
#define ZCS_STDFDS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens /dev/null on each of fds 0-2 that is closed (read-only for 0, write-only for 1 and 2).
 * Call it first in main, before anything opens a descriptor.  Returns a bit mask of the fds it
 * opened (bit n: fd n), or -errno with a message in err when /dev/null cannot be opened. */
int zcs_stdfds_guard(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
