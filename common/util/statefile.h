/* SPDX-License-Identifier: MIT */
/* Small state files kept across restarts (run counters): read whole with the same care as a key
 * file, replaced atomically and durably, so a power cut leaves the old text or the new, never
 * a mix, and a file that says it was written was written. */
#ifndef ZCS_STATEFILE_H
#define ZCS_STATEFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest state file read: anything longer is not one of ours. */
#define ZCS_STATEFILE_MAX 256

/* Reads the file at path into buf (cap bytes, at most ZCS_STATEFILE_MAX used), NUL-terminated,
 * its length in *len.  Refused: a symbolic link (never followed), a file that is not a regular
 * file (a FIFO planted there does not hang the caller), one that group or others may write
 * (-EPERM: "chmod go-w"), one longer than cap - 1 bytes or holding a NUL (-EINVAL).  Returns 1
 * when read, 0 when no file exists (*len = 0), or -errno with err naming the file. */
int zcs_statefile_read(const char *path, char *buf, size_t cap, size_t *len, char *err,
		       size_t errlen);

/* Replaces the file at path with len bytes of text, durably: a new temporary file beside it
 * (random name, O_EXCL, mode 0600) is written and fsync'd, renamed over path (a symbolic link
 * at path is replaced, never followed), and the directory fsync'd.  When this returns 0 the
 * text survives a power cut; on failure the old file is untouched and no temporary file is
 * left.  Returns 0 or -errno with err naming the file. */
int zcs_statefile_write(const char *path, const char *text, size_t len, char *err,
			size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
