/* SPDX-License-Identifier: MIT */
/* Small state files kept across restarts (run counters): read whole with the same care as a key
 * file, replaced atomically and durably, so a power cut leaves the old text or the new, never
 * a mix, and a file that says it was written was written. */
#ifndef ZCS_STATEFILE_H
#define ZCS_STATEFILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a file the program trusts (a key, a run counter, a run state) has an owner it may
 * trust, as ssh requires of its files: the user running the program (its effective uid) or
 * root.  Whoever owns a file may rewrite it, whatever its mode says.  Returns 0, or -EPERM with
 * err naming what ("key file"), path (as given: escape it first if it may hold control bytes)
 * and the owner. */
int zcs_statefile_check_owner(const struct stat *st, const char *what, const char *path,
			      char *err, size_t errlen);
/* "uid 65534 (nobody)", or "uid N" for a user without a name here, into buf; returns buf. */
const char *zcs_statefile_owner_text(uid_t uid, char *buf, size_t cap);

/* The largest state file read: anything longer is not one of ours. */
#define ZCS_STATEFILE_MAX 256

/* Reads the file at path into buf (cap bytes, at most ZCS_STATEFILE_MAX used), NUL-terminated,
 * its length in *len.  Refused: a symbolic link (never followed), a file that is not a regular
 * file (a FIFO planted there does not hang the caller), one that group or others may write
 * (-EPERM: "chmod go-w"), one owned by another user but root (-EPERM: zcs_statefile_check_owner),
 * one longer than cap - 1 bytes or holding a NUL (-EINVAL).  Returns 1
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

/* How long zcs_statefile_lock waits for another holder: a read and a write take milliseconds,
 * so only a stuck or hostile holder makes it give up, and then the caller is not held with it. */
#define ZCS_STATEFILE_LOCK_MS 2000

/* Takes the exclusive lock of the state file at path, for a read followed by a write that
 * must not interleave with another process's (two programs keeping one file): flock(2) on a
 * file beside it, path + ".lock" (created mode 0600 when missing and never removed, so every
 * holder locks the same file; the state file itself cannot carry the lock, since a write
 * replaces it with a new file).  A symbolic link or anything but a regular file there is
 * refused.  Waits ZCS_STATEFILE_LOCK_MS at most (-EWOULDBLOCK).  Returns the lock's file
 * descriptor (close it to release the lock: zcs_statefile_unlock) or -errno with err set. */
int zcs_statefile_lock(const char *path, char *err, size_t errlen);
void zcs_statefile_unlock(int fd);

#ifdef __cplusplus
}
#endif

#endif
