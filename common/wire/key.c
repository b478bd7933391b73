// SPDX-License-Identifier: MIT
/* Key files (key.h): load with ssh's mode and owner rules, generate from libsodium's random
 * source, and find the default key where no key is given. */
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "key.h"
#include "statefile.h"
#include "text.h"

/* 64 digits, "\r\n", and one byte more to tell a longer file apart. */
#define KEY_FILE_MAX (2 * ZCS_KEY_BYTES + 3)
/* A path as messages show it: escaped (a file name may hold escape sequences or newlines that
 * must not reach a terminal as they are), and cut, as the message is anyway. */
#define PATH_SHOWN 1024

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int zcs_key_parse(struct zcs_key *key, const char *text, size_t len)
{
	size_t i;

	if (len >= 1 && text[len - 1] == '\n')
		len--;
	if (len >= 1 && text[len - 1] == '\r')
		len--;
	if (len != 2 * ZCS_KEY_BYTES)
		return -EINVAL;
	for (i = 0; i < ZCS_KEY_BYTES; i++) {
		const int hi = hex_val(text[2 * i]), lo = hex_val(text[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			sodium_memzero(key, sizeof(*key));
			return -EINVAL;
		}
		key->bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int zcs_key_load(struct zcs_key *key, const char *path, char *err, size_t errlen)
{
	char text[KEY_FILE_MAX], shown[PATH_SHOWN];
	struct stat st;
	ssize_t n;
	int fd, ret;

	zcs_text_escape(shown, sizeof(shown), path);
	/* O_NONBLOCK: a FIFO planted at path must not hang the program; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return zcs_err_errno(err, errlen, "key file %s", shown);
	if (fstat(fd, &st) < 0) {
		ret = zcs_err_errno(err, errlen, "key file %s", shown);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = zcs_err(err, errlen, -EINVAL, "key file %s is not a regular file", shown);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		ret = zcs_err(err, errlen, -EPERM,
			      "key file %s is accessible by group or others (mode %03o): "
			      "chmod 600 %s", shown, (unsigned)(st.st_mode & 0777), shown);
		goto out;
	}
	/* ssh's rule: a key another user owns is theirs to rewrite, whatever its mode says, and
	 * a stream keyed with it proves nothing to this user */
	if ((ret = zcs_statefile_check_owner(&st, "key file", shown, err, errlen)) < 0)
		goto out;
	n = read(fd, text, sizeof(text));
	if (n < 0) {
		ret = zcs_err_errno(err, errlen, "key file %s", shown);
		goto out;
	}
	ret = zcs_key_parse(key, text, (size_t)n);
	if (ret < 0)
		ret = zcs_err(err, errlen, -EINVAL,
			      "key file %s: expected 64 hexadecimal digits on one line", shown);
out:
	sodium_memzero(text, sizeof(text));
	close(fd);
	return ret;
}

int zcs_key_generate(const char *path, char *err, size_t errlen)
{
	static const char digits[] = "0123456789abcdef";
	struct zcs_key key;
	char text[2 * ZCS_KEY_BYTES + 1], shown[PATH_SHOWN];
	size_t i, off = 0;
	int fd, ret = 0;

	zcs_text_escape(shown, sizeof(shown), path);
	if (sodium_init() < 0)
		return zcs_err(err, errlen, -EIO, "libsodium failed to initialise");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return zcs_err_errno(err, errlen, "cannot create key file %s", shown);
	randombytes_buf(key.bytes, sizeof(key.bytes));
	for (i = 0; i < ZCS_KEY_BYTES; i++) {
		text[2 * i] = digits[key.bytes[i] >> 4];
		text[2 * i + 1] = digits[key.bytes[i] & 15];
	}
	text[2 * ZCS_KEY_BYTES] = '\n';
	while (off < sizeof(text)) {
		const ssize_t n = write(fd, text + off, sizeof(text) - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = zcs_err_errno(err, errlen, "writing key file %s", shown);
			break;
		}
		off += (size_t)n;
	}
	if (ret == 0 && fsync(fd) < 0)
		ret = zcs_err_errno(err, errlen, "writing key file %s", shown);
	close(fd);
	if (ret < 0)
		unlink(path);
	sodium_memzero(&key, sizeof(key));
	sodium_memzero(text, sizeof(text));
	return ret;
}

void zcs_key_id(const struct zcs_key *key, uint8_t id[ZCS_KEY_ID_BYTES])
{
	static const char label[] = "zcs key id";
	uint8_t out[crypto_generichash_BYTES_MIN];

	/* cannot fail: the lengths are within BLAKE2b's bounds (and its portable code, the one
	 * used before sodium_init picks another, gives the same bytes) */
	crypto_generichash(out, sizeof(out), (const uint8_t *)label, sizeof(label) - 1, key->bytes,
			   sizeof(key->bytes));
	memcpy(id, out, ZCS_KEY_ID_BYTES);
}

void zcs_key_wipe(struct zcs_key *key)
{
	sodium_memzero(key, sizeof(*key));
}

/* ---- the default key ---- */

void zcs_key_env_get(struct zcs_key_env *env)
{
	env->zcs_key = getenv(ZCS_KEY_ENV);
	env->xdg_config_home = getenv("XDG_CONFIG_HOME");
	env->home = getenv("HOME");
	env->system_path = ZCS_KEY_SYSTEM_PATH;
}

/* Whether anything is at path: also a dangling symlink or a place this user may not look
 * into, so that what is there is refused by the loader with its reason. */
static bool place_taken(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

static int put_path(char *path, size_t pathlen, char *err, size_t errlen, const char *a,
		    const char *b)
{
	const int n = snprintf(path, pathlen, "%s%s", a, b);
	char shown[PATH_SHOWN];

	if (n < 0 || (size_t)n >= pathlen)
		return zcs_err(err, errlen, -ENAMETOOLONG, "default key: the path %s%s is too long",
			       zcs_text_escape(shown, sizeof(shown), a), b);
	return 0;
}

int zcs_key_default_path(const struct zcs_key_env *env, char *path, size_t pathlen, char *note,
			 size_t notelen, char *err, size_t errlen)
{
	const char *const xdg = env->xdg_config_home, *const home = env->home;
	int fd, ret;

	if (note && notelen)
		note[0] = 0;
	if (env->zcs_key && env->zcs_key[0]) {
		if (strcmp(env->zcs_key, ZCS_KEY_ENV_NONE) == 0)
			return 0;
		ret = put_path(path, pathlen, err, errlen, env->zcs_key, "");
		return ret < 0 ? ret : 1;
	}
	/* XDG: a relative XDG_CONFIG_HOME is invalid and ignored, as is a relative HOME here */
	if (xdg && xdg[0] == '/')
		ret = put_path(path, pathlen, err, errlen, xdg, "/" ZCS_KEY_USER_PATH);
	else if (home && home[0] == '/')
		ret = put_path(path, pathlen, err, errlen, home, "/.config/" ZCS_KEY_USER_PATH);
	else
		ret = -ENOENT;
	if (ret == 0 && place_taken(path))
		return 1;
	if (ret < 0 && ret != -ENOENT)
		return ret;
	if (!env->system_path || !place_taken(env->system_path))
		return 0;
	ret = put_path(path, pathlen, err, errlen, env->system_path, "");
	if (ret < 0)
		return ret;
	/* O_NONBLOCK: a FIFO there is taken, and refused by the loader, not waited on */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == EACCES) {
		char shown[PATH_SHOWN];

		if (note && notelen)
			snprintf(note, notelen, "default key %s: not readable by this user: passed "
				 "over", zcs_text_escape(shown, sizeof(shown), path));
		path[0] = 0;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	return 1;
}
