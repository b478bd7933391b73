/* SPDX-License-Identifier: MIT */
/* How an output opens the path it is given (fifo:, file:, sigmf:), as root may in a directory
 * that other users write (/tmp, a shared lab directory): a name planted there before start must
 * never make the receiver write or truncate a file it was not meant to. */
#ifndef ZCS_OUT_PATH_H
#define ZCS_OUT_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Opens path with flags (O_PATH, O_WRONLY or O_RDWR, O_CREAT, O_NONBLOCK, O_TRUNC; O_NOFOLLOW,
 * O_NOCTTY and O_CLOEXEC are added; a file created gets mode 0644) and fills *st from the
 * descriptor opened, so what is checked is what is used.  name starts every message.
 *  - A symbolic link as the last component is refused (-ELOOP), never followed, whatever it
 *    points at and whoever made it: name the file itself.  The directories on the way are
 *    followed, as anywhere.
 *  - O_TRUNC is never passed to open(2): a regular file is truncated (ftruncate) only after it
 *    is checked.  In a directory that group or others may write (zcs_out_dir_shared), a regular
 *    file that the user running the program does not own, or that has another name (a hard link
 *    to someone's file), is refused (-EPERM, naming the owner): such a file is someone else's,
 *    planted or not, and neither truncated nor written.  Elsewhere the directory's owner chose
 *    what is in it, and the file is taken.
 * Returns the descriptor or -errno with err set. */
int zcs_out_path_open(const char *name, const char *path, int flags, struct stat *st, char *err,
		      size_t errlen);

/* Whether path, if something is there, may be replaced by a file of ours: nothing there, or a
 * regular file that zcs_out_path_open would truncate.  A symbolic link (-ELOOP) or someone
 * else's file in a shared directory (-EPERM) is refused with err set, as there; 0 otherwise.
 * For names a program replaces by rename(2) (the SigMF meta file), which never follows a link
 * but would still remove another user's file: checked at start, so the refusal is said then. */
int zcs_out_path_check(const char *name, const char *path, char *err, size_t errlen);

/* Whether the directory st describes may be written by group or others (a sticky /tmp too). */
bool zcs_out_dir_shared(const struct stat *st);

#endif
