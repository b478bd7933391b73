// SPDX-License-Identifier: MIT
/* Reading the few SigMF metadata fields a replay needs, through jansson: core:datatype,
 * core:sample_rate and core:num_channels are read from the "global" object only (SigMF 1.0). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "err.h"
#include "formats.h"
#include "sigmf_read.h"
#include "text.h"

#define DATA_SUFFIX ".sigmf-data"
#define META_SUFFIX ".sigmf-meta"
/* A meta file with an annotation per gap of a long, lossy recording can grow (zcs-recv keeps a
 * bounded number of them); beyond this it is not worth parsing (jansson holds the whole tree,
 * several times the text) for three fields. */
#define META_MAX (16u << 20)

bool zcs_sigmf_is_data(const char *path)
{
	const size_t n = path ? strlen(path) : 0, s = strlen(DATA_SUFFIX);

	return n > s && strcmp(path + n - s, DATA_SUFFIX) == 0;
}

/* A JSON number (integer or real) of the global object, 1 when present, 0 when absent. */
static int global_number(const json_t *global, const char *key, double *out)
{
	const json_t *const v = json_object_get(global, key);

	if (!v)
		return 0;
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return isfinite(*out) ? 1 : -EINVAL;
}

int zcs_sigmf_parse(const char *text, size_t len, struct zcs_sigmf_info *info, char *err,
		    size_t errlen)
{
	json_error_t jerr;
	json_t *root, *global;
	const json_t *v;
	double d;
	int ret = -EINVAL, have;

	info->type = -1;
	info->rate = 0;
	info->datatype[0] = '\0';
	/* a key given twice would let two readers of one file see two recordings */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		zcs_err(err, errlen, -EINVAL, "not JSON (line %d column %d: %s)", jerr.line,
			jerr.column, jerr.text);
		return -EINVAL;
	}
	/* SigMF 1.0 keeps these fields in "global" only: the same names in a capture or an
	 * annotation, wherever they sit in the text, are not the recording's */
	global = json_object_get(root, "global");
	if (!json_is_object(global)) {
		zcs_err(err, errlen, -EINVAL, "no \"global\" object: not SigMF metadata");
		goto out;
	}
	v = json_object_get(global, "core:datatype");
	if (v) {
		const char *const dt = json_string_value(v);

		if (!dt || !zcs_text_valid(dt, json_string_length(v))) {
			zcs_err(err, errlen, -EINVAL, "core:datatype is not a string of text");
			goto out;
		}
		snprintf(info->datatype, sizeof(info->datatype), "%s", dt);
		/* one zcs-send cannot replay stays -1: the caller may not need it (--file-type) */
		info->type = strlen(dt) < sizeof(info->datatype) ? zcs_import_from_sigmf(dt) : -1;
	}
	have = global_number(global, "core:sample_rate", &d);
	if (have < 0 || (have && (d < 1.0 || d > 1e9))) {
		zcs_err(err, errlen, -EINVAL, "core:sample_rate is not a rate in 1..1G");
		goto out;
	}
	if (have)
		info->rate = (uint64_t)llround(d);
	have = global_number(global, "core:num_channels", &d);
	if (have < 0 || (have && d != 1.0)) {
		/* several channels are interleaved sample by sample: not one I/Q stream */
		zcs_err(err, errlen, -EINVAL,
			"core:num_channels is not 1: zcs-send replays one channel");
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

int zcs_sigmf_read(const char *data_path, struct zcs_sigmf_info *info, char *err, size_t errlen)
{
	const size_t base = strlen(data_path) - strlen(DATA_SUFFIX);
	char *text = NULL;
	struct stat st;
	size_t have = 0;
	int fd = -1, ret;

	info->type = -1;
	info->rate = 0;
	info->datatype[0] = '\0';
	if (!zcs_sigmf_is_data(data_path) || base + sizeof(META_SUFFIX) > sizeof(info->meta_path))
		return zcs_err(err, errlen, -EINVAL, "%s: not a .sigmf-data path", data_path);
	memcpy(info->meta_path, data_path, base);
	memcpy(info->meta_path + base, META_SUFFIX, sizeof(META_SUFFIX));
	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer; fstat then refuses it */
	fd = open(info->meta_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = zcs_err_errno(err, errlen, "cannot read %s", info->meta_path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = zcs_err(err, errlen, -EINVAL, "%s: not a regular file", info->meta_path);
		goto out;
	}
	if (st.st_size > (off_t)META_MAX) {
		ret = zcs_err(err, errlen, -EFBIG, "%s: larger than %u MB", info->meta_path,
			      META_MAX >> 20);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	while (have < (size_t)st.st_size) {
		const ssize_t n = read(fd, text + have, (size_t)st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = zcs_err_errno(err, errlen, "cannot read %s", info->meta_path);
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	ret = zcs_sigmf_parse(text, have, info, err, errlen);
	if (ret < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		ret = zcs_err(err, errlen, ret, "%s: %s", info->meta_path, why);
	}
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return ret;
}
