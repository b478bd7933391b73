// SPDX-License-Identifier: MIT
/* Run counters and the newest run followed, kept across restarts (runstate.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "runstate.h"
#include "seq.h"
#include "statefile.h"

/* Strict decimal: digits only, no sign or space, no overflow.  Returns the bytes used or 0. */
static size_t parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;
	size_t i = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		const unsigned d = (unsigned)(s[i] - '0');

		if (x > (UINT64_MAX - d) / 10)
			return 0;
		x = x * 10 + d;
		i++;
	}
	if (i == 0 || i > 20)
		return 0;
	*v = x;
	return i;
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Exactly 2 * n lower-case hex digits into out.  Returns the bytes used or 0. */
static size_t parse_hex(const char *s, size_t len, uint8_t *out, size_t n)
{
	if (len < 2 * n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const int hi = hex_val(s[2 * i]), lo = hex_val(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return 0;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 2 * n;
}

/* The literal word at s, or 0. */
static size_t parse_word(const char *s, size_t len, const char *word)
{
	const size_t n = strlen(word);

	return len >= n && memcmp(s, word, n) == 0 ? n : 0;
}

int zcs_run_state_path(char *out, size_t cap, const char *dir, const char *key_path,
		       const char *suffix)
{
	const char *base = strrchr(key_path, '/');
	int n;

	base = base ? base + 1 : key_path;
	if (dir)
		n = snprintf(out, cap, "%s%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? ""
			     : "/", base, suffix);
	else
		n = snprintf(out, cap, "%s%s", key_path, suffix);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int zcs_run_counter_parse(const char *text, size_t len, uint64_t *value)
{
	size_t n;

	if (len >= 1 && text[len - 1] == '\n')
		len--;
	n = parse_u64(text, len, value);
	return n != 0 && n == len ? 0 : -EINVAL;
}

int zcs_run_counter_next(const char *path, uint64_t *run, char *err, size_t errlen)
{
	char text[ZCS_STATEFILE_MAX + 1];
	uint64_t prev = 0;
	size_t len;
	int found, ret;

	found = zcs_statefile_read(path, text, sizeof(text), &len, err, errlen);
	if (found < 0)
		return found;
	if (found && zcs_run_counter_parse(text, len, &prev) < 0)
		return zcs_err(err, errlen, -EINVAL, "%s is corrupt (it must hold one decimal "
			       "number): write a number above the last run receivers followed into "
			       "it", path);
	if (prev == UINT64_MAX)
		return zcs_err(err, errlen, -ERANGE, "run counter %s is at its largest value", path);
	len = (size_t)snprintf(text, sizeof(text), "%" PRIu64 "\n", prev + 1);
	ret = zcs_statefile_write(path, text, len, err, errlen);
	if (ret < 0)
		return ret;
	*run = prev + 1;
	return !found;
}

static void put_hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

size_t zcs_run_seen_format(const struct zcs_run_seen *s, const uint8_t key_id[ZCS_KEY_ID_BYTES],
			   char *buf, size_t cap)
{
	char salt[2 * sizeof(s->salt) + 1], id[2 * ZCS_KEY_ID_BYTES + 1];
	int n;

	put_hex(salt, s->salt, sizeof(s->salt));
	put_hex(id, key_id, ZCS_KEY_ID_BYTES);
	n = snprintf(buf, cap, "run %" PRIu64 " stream 0x%08" PRIx32 " salt %s meta %" PRIu64
		     " key %s\n", s->run, s->stream_id, salt, s->meta_seq, id);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

int zcs_run_seen_parse(const char *text, size_t len, struct zcs_run_seen *s,
		       uint8_t key_id[ZCS_KEY_ID_BYTES], bool *has_key_id)
{
	uint8_t id[4];
	size_t i = 0, n;

	*has_key_id = false;
	if (len >= 1 && text[len - 1] == '\n')
		len--;
#define STEP(expr) do { n = (expr); if (n == 0) return -EINVAL; i += n; } while (0)
	STEP(parse_word(text + i, len - i, "run "));
	STEP(parse_u64(text + i, len - i, &s->run));
	STEP(parse_word(text + i, len - i, " stream 0x"));
	STEP(parse_hex(text + i, len - i, id, sizeof(id)));
	STEP(parse_word(text + i, len - i, " salt "));
	STEP(parse_hex(text + i, len - i, s->salt, sizeof(s->salt)));
	STEP(parse_word(text + i, len - i, " meta "));
	STEP(parse_u64(text + i, len - i, &s->meta_seq));
	if (i != len) {
		STEP(parse_word(text + i, len - i, " key "));
		STEP(parse_hex(text + i, len - i, key_id, ZCS_KEY_ID_BYTES));
		*has_key_id = true;
	}
#undef STEP
	if (i != len)
		return -EINVAL;
	s->stream_id = (uint32_t)id[0] << 24 | (uint32_t)id[1] << 16 | (uint32_t)id[2] << 8 | id[3];
	return 0;
}

/* The record at path parsed: 1 this key's (or one without an id), ZCS_RUN_SEEN_OTHER_KEY
 * another key's, -EINVAL one that does not parse. */
static int parse_for_key(const char *text, size_t len, const uint8_t key_id[ZCS_KEY_ID_BYTES],
			 struct zcs_run_seen *s)
{
	uint8_t there[ZCS_KEY_ID_BYTES];
	bool has_id;

	if (zcs_run_seen_parse(text, len, s, there, &has_id) < 0)
		return -EINVAL;
	return has_id && memcmp(there, key_id, ZCS_KEY_ID_BYTES) != 0 ? ZCS_RUN_SEEN_OTHER_KEY : 1;
}

int zcs_run_seen_load(const char *path, const uint8_t key_id[ZCS_KEY_ID_BYTES],
		      struct zcs_run_seen *s, char *err, size_t errlen)
{
	char text[ZCS_STATEFILE_MAX + 1];
	struct zcs_run_seen r;
	size_t len;
	int found;

	found = zcs_statefile_read(path, text, sizeof(text), &len, err, errlen);
	if (found <= 0)
		return found;
	found = parse_for_key(text, len, key_id, &r);
	if (found < 0)
		return zcs_err(err, errlen, -EINVAL, "run state %s is corrupt: remove it (this "
			       "receiver then follows the first keyed run it hears)", path);
	if (found == 1)
		*s = r;
	return found;
}

int zcs_run_seen_save(const char *path, const uint8_t key_id[ZCS_KEY_ID_BYTES],
		      const struct zcs_run_seen *s, char *err, size_t errlen)
{
	char text[ZCS_STATEFILE_MAX + 1], ignored[8];
	struct zcs_run_seen there;
	size_t len;
	int lock, ret;

	if ((lock = zcs_statefile_lock(path, err, errlen)) < 0)
		return lock;
	/* read under the lock: what another writer saved since this one last looked counts, if
	 * it was kept for this key */
	if (zcs_statefile_read(path, text, sizeof(text), &len, ignored, sizeof(ignored)) == 1 &&
	    parse_for_key(text, len, key_id, &there) == 1 &&
	    zcs_run_is_fresh(s, there.run, there.stream_id, there.salt, there.meta_seq)) {
		ret = 1;
		goto out;
	}
	len = zcs_run_seen_format(s, key_id, text, sizeof(text));
	ret = zcs_statefile_write(path, text, len, err, errlen);
out:
	zcs_statefile_unlock(lock);
	return ret;
}

bool zcs_run_is_fresh(const struct zcs_run_seen *s, uint64_t run, uint32_t stream_id,
		      const uint8_t salt[8], uint64_t meta_seq)
{
	if (!s || run > s->run)
		return true;
	/* the run followed itself, going on past what was seen of it (a receiver restarted while
	 * its sender streams); an earlier part of it is a replay */
	return run == s->run && stream_id == s->stream_id &&
	       memcmp(salt, s->salt, sizeof(s->salt)) == 0 && zcs_seq_after(meta_seq, s->meta_seq);
}

const char *zcs_replay_reason_name(int reason)
{
	switch (reason) {
	case ZCS_REPLAY_OLD_RUN: return "old_run";
	case ZCS_REPLAY_META_SEQ: return "meta_seq";
	case ZCS_REPLAY_BEHIND: return "behind";
	case ZCS_REPLAY_NOT_LIVE: return "not_live";
	default: return "unknown";
	}
}
