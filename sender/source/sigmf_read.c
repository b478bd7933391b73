// SPDX-License-Identifier: MIT
/* Reading the few SigMF metadata fields a replay needs.  Not a JSON parser: core:datatype,
 * core:sample_rate and core:num_channels are keys of the "global" object only (SigMF 1.0), so
 * each is found by its quoted name followed by a colon, wherever the writer put it. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats.h"
#include "sigmf_read.h"

#define DATA_SUFFIX ".sigmf-data"
#define META_SUFFIX ".sigmf-meta"
/* A meta file with an annotation per gap of a long, lossy recording can grow; beyond this it is
 * not worth reading for two fields. */
#define META_MAX (64u << 20)

bool zcs_sigmf_is_data(const char *path)
{
	const size_t n = path ? strlen(path) : 0, s = strlen(DATA_SUFFIX);

	return n > s && strcmp(path + n - s, DATA_SUFFIX) == 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The text after `"key"` and its colon (spaces skipped), or NULL when the key is not there. */
static const char *value_of(const char *text, size_t len, const char *key)
{
	char quoted[48];
	const char *p = text, *const end = text + len;
	const size_t klen = (size_t)snprintf(quoted, sizeof(quoted), "\"%s\"", key);

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), quoted, klen);
		const char *v;

		if (!hit)
			return NULL;
		v = hit + klen;
		while (v < end && is_space(*v))
			v++;
		if (v < end && *v == ':') {
			v++;
			while (v < end && is_space(*v))
				v++;
			return v < end ? v : NULL;
		}
		p = hit + 1; /* the name was a value, not a key */
	}
	return NULL;
}

/* A JSON number at v into *out.  Returns 0 or -EINVAL. */
static int number_at(const char *v, const char *end, double *out)
{
	char num[48];
	size_t n = 0;
	char *stop;

	/* v[n] first: strchr() also finds the terminator, and a NUL is not part of a number */
	while (v + n < end && n < sizeof(num) - 1 && v[n] && strchr("+-.0123456789eE", v[n]))
		n++;
	memcpy(num, v, n);
	num[n] = '\0';
	if (n == 0)
		return -EINVAL;
	*out = strtod(num, &stop);
	return *stop == '\0' && isfinite(*out) ? 0 : -EINVAL;
}

int zcs_sigmf_parse(const char *text, size_t len, struct zcs_sigmf_info *info, char *err,
		    size_t errlen)
{
	const char *const end = text + len;
	const char *v;
	double d;

	info->type = -1;
	info->rate = 0;
	info->datatype[0] = '\0';
	if (!value_of(text, len, "global")) {
		snprintf(err, errlen, "no \"global\" object: not SigMF metadata");
		return -EINVAL;
	}
	v = value_of(text, len, "core:datatype");
	if (v) {
		size_t n = 0;

		if (*v != '"') {
			snprintf(err, errlen, "core:datatype is not a string");
			return -EINVAL;
		}
		v++;
		while (v + n < end && v[n] != '"' && n < sizeof(info->datatype) - 1)
			n++;
		memcpy(info->datatype, v, n);
		info->datatype[n] = '\0';
		/* one zcs-send cannot replay stays -1: the caller may not need it (--file-type) */
		info->type = zcs_import_from_sigmf(info->datatype);
	}
	v = value_of(text, len, "core:sample_rate");
	if (v) {
		if (number_at(v, end, &d) < 0 || d < 1.0 || d > 1e9) {
			snprintf(err, errlen, "core:sample_rate is not a rate in 1..1G");
			return -EINVAL;
		}
		info->rate = (uint64_t)llround(d);
	}
	v = value_of(text, len, "core:num_channels");
	if (v && (number_at(v, end, &d) < 0 || d != 1.0)) {
		/* several channels are interleaved sample by sample: not one I/Q stream */
		snprintf(err, errlen, "core:num_channels is not 1: zcs-send replays one channel");
		return -EINVAL;
	}
	return 0;
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
	if (!zcs_sigmf_is_data(data_path) || base + sizeof(META_SUFFIX) > sizeof(info->meta_path)) {
		snprintf(err, errlen, "%s: not a .sigmf-data path", data_path);
		return -EINVAL;
	}
	memcpy(info->meta_path, data_path, base);
	memcpy(info->meta_path + base, META_SUFFIX, sizeof(META_SUFFIX));
	fd = open(info->meta_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", info->meta_path, strerror(errno));
		goto out;
	}
	if (st.st_size > (off_t)META_MAX) {
		snprintf(err, errlen, "%s: larger than %u MB", info->meta_path, META_MAX >> 20);
		ret = -EFBIG;
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	while (have < (size_t)st.st_size) {
		const ssize_t n = read(fd, text + have, (size_t)st.st_size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot read %s: %s", info->meta_path, strerror(errno));
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
		snprintf(err, errlen, "%s: %s", info->meta_path, why);
	}
out:
	free(text);
	if (fd >= 0)
		close(fd);
	return ret;
}
