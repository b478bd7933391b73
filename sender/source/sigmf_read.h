/* SPDX-License-Identifier: MIT */
/* Replaying a SigMF recording: the sample type and rate of NAME.sigmf-data, read from the
 * NAME.sigmf-meta beside it (core:datatype, core:sample_rate in its "global" object). */
#ifndef ZCS_SIGMF_READ_H
#define ZCS_SIGMF_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zcs_sigmf_info {
	int type;              /* enum zcs_import_type, -1 when core:datatype is absent or is one
				* zcs-send cannot replay (big-endian, real-valued, other widths) */
	uint64_t rate;         /* core:sample_rate rounded to Hz, 0 when absent */
	char datatype[24];     /* core:datatype as written ("" when absent) */
	char meta_path[4096];  /* the meta file read */
};

/* Whether path names a SigMF data file (ends in ".sigmf-data"). */
bool zcs_sigmf_is_data(const char *path);

/* Reads the meta file of the data file data_path.  Returns 0 (a field not found is left unset),
 * -ENOENT or another -errno when the meta file cannot be read, -EINVAL when it is not SigMF, a
 * field is malformed, or the recording has more than one channel; err says which. */
int zcs_sigmf_read(const char *data_path, struct zcs_sigmf_info *info, char *err, size_t errlen);

/* The same from the meta file's text (len bytes, need not be NUL-terminated), for tests. */
int zcs_sigmf_parse(const char *text, size_t len, struct zcs_sigmf_info *info, char *err,
		    size_t errlen);

#endif
