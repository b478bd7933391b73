/* SPDX-License-Identifier: MIT */
/* Keyed runs kept across restarts (docs/security.md, "Fresh runs"): the sender's run counter,
 * advanced and made durable before a run's first datagram, and a receiver's record of the newest
 * run it followed, so neither a board without a clock nor a receiver restarted can be fooled by
 * a replay of an earlier run.  Both are small text files (statefile.h). */
#ifndef ZCS_RUNSTATE_H
#define ZCS_RUNSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default state file of each side: the key file's name with this appended. */
#define ZCS_RUN_COUNTER_SUFFIX ".run"
#define ZCS_RUN_SEEN_SUFFIX ".seen"

/* The state file of the key at key_path: the key file's name with suffix appended
 * (ZCS_RUN_COUNTER_SUFFIX, ZCS_RUN_SEEN_SUFFIX), in the key's own directory when dir is NULL,
 * else in dir (--state-dir: a directory the program may write, as a hardened service's
 * StateDirectory, while the key lies under a read-only /etc).  Returns 0 or -ENAMETOOLONG. */
int zcs_run_state_path(char *out, size_t cap, const char *dir, const char *key_path,
		       const char *suffix);

/* Parses a run counter file's text: decimal digits (1 to 20, no sign, no space, within
 * uint64_t) and an optional "\n".  Returns 0 or -EINVAL. */
int zcs_run_counter_parse(const char *text, size_t len, uint64_t *value);

/* Advances the run counter kept at path and makes the new value durable before returning it
 * in *run: a missing file counts as 0 (the first run is 1).  Refused, the counter untouched:
 * a file that does not parse (corrupt), the counter at its largest, any failure to write it
 * durably; err then names the file.  Returns 1 when the file was created (no counter was
 * kept before), 0 when an existing counter was advanced, or -errno. */
int zcs_run_counter_next(const char *path, uint64_t *run, char *err, size_t errlen);

/* The newest keyed run a receiver followed: its counter, id, salt and newest metadata number. */
struct zcs_run_seen {
	uint64_t run;
	uint32_t stream_id;
	uint8_t salt[8];
	uint64_t meta_seq;
};

/* A run state belongs to one key: runs are numbered per sender, and a new key (docs/security.md,
 * "Making and sharing keys") may come with a counter started afresh, whose runs must not be
 * refused for being "before" the old key's.  So each record names the key it was kept for
 * (zcs_key_id), and a record of another key is no record for this one. */

/* Text of a record: "run N stream 0xXXXXXXXX salt HHHHHHHHHHHHHHHH meta M key KKKKKKKKKKKKKKKK\n"
 * (single spaces, lower-case hex; key: the id of the key it was kept for).  format returns the
 * length written (buf holds at least 128 bytes); parse accepts exactly that form, or the form
 * without " key ..." that receivers wrote before (*has_key_id false then), the newline
 * optional, and returns 0 or -EINVAL. */
size_t zcs_run_seen_format(const struct zcs_run_seen *s, const uint8_t key_id[ZCS_KEY_ID_BYTES],
			   char *buf, size_t cap);
int zcs_run_seen_parse(const char *text, size_t len, struct zcs_run_seen *s,
		       uint8_t key_id[ZCS_KEY_ID_BYTES], bool *has_key_id);

/* zcs_run_seen_load's answer when the file holds the record of another key. */
#define ZCS_RUN_SEEN_OTHER_KEY 2

/* Loads the record kept at path for the key whose id is key_id.  Returns 1 with *s set, 0 when
 * no file exists, ZCS_RUN_SEEN_OTHER_KEY when it holds a record of another key (*s untouched:
 * none is kept for this key; the next save replaces it), or -errno with err set (refused as
 * statefile.h says, or corrupt: -EINVAL).  A record without a key id (written before ids were)
 * is taken as this key's: the file is named after the key, as it always was. */
int zcs_run_seen_load(const char *path, const uint8_t key_id[ZCS_KEY_ID_BYTES],
		      struct zcs_run_seen *s, char *err, size_t errlen);
/* Saves *s at path for key key_id durably (statefile.h), unless the file already holds a newer
 * record of the same key (a run fresh against *s: zcs_run_is_fresh), which is left as it is:
 * zcs-recv and the SoapySDR module may keep one file, and one that exits holding an older run
 * must not lower what the other wrote.  The read and the write happen under the file's lock
 * (zcs_statefile_lock), so two writers never interleave.  What is there and does not parse (or
 * cannot be read: a link, a FIFO), or is another key's, is replaced.  Returns 0 when saved, 1
 * when the newer record was kept, or -errno with err set. */
int zcs_run_seen_save(const char *path, const uint8_t key_id[ZCS_KEY_ID_BYTES],
		      const struct zcs_run_seen *s, char *err, size_t errlen);

/* Whether keyed run (run, stream_id, salt), with metadata number meta_seq, is fresh against
 * the newest run followed so far (s; NULL: none): a later run, or the very run followed with
 * a metadata number after every one seen of it.  The receiver's one rule (docs/protocol.md,
 * "Fresh runs"). */
bool zcs_run_is_fresh(const struct zcs_run_seen *s, uint64_t run, uint32_t stream_id,
		      const uint8_t salt[8], uint64_t meta_seq);

/* Why a keyed receiver refuses an authentic datagram as a replay (its statistics' replayed_by):
 * append only. */
enum zcs_replay_reason {
	ZCS_REPLAY_OLD_RUN = 0,   /* metadata of a run that is not fresh: an earlier run, another
				   * run under the same number, or an earlier part of the newest */
	ZCS_REPLAY_META_SEQ,      /* metadata of the run followed, not after its newest */
	ZCS_REPLAY_BEHIND,        /* a sample datagram of the run followed numbered behind the
				   * reorder window (a run's numbers only grow) */
	ZCS_REPLAY_NOT_LIVE,      /* metadata of a run the board, asked over its control channel,
				   * says is not its live run (struct zcs_run_check) */
	ZCS_REPLAY_REASONS
};

/* Short stable name of a replay reason ("old_run", "meta_seq", "behind", "not_live"), for
 * statistics and JSON. */
const char *zcs_replay_reason_name(int reason);

/* A keyed run a receiver hears of and has not followed: the question a liveness check answers
 * (docs/security.md, "Liveness").  since_ns: monotonic time it was first heard of, so an answer
 * the board gave later than that is decisive for it. */
struct zcs_run_claim {
	uint64_t run;
	uint32_t stream_id;
	const struct sockaddr *from;  /* who sent the metadata that claims it */
	uint64_t since_ns;
};

/* What a liveness check says of a claim. */
enum zcs_run_verdict {
	ZCS_RUN_LIVE = 0,         /* the board says it is its live run: follow it */
	ZCS_RUN_NOT_LIVE,         /* the board says another run is live: a replay, refused */
	ZCS_RUN_UNKNOWN,          /* no answer yet (asked, waiting, or the board cannot be
				   * reached): not followed until there is one */
};

/* A receiver's liveness check (receiver/control/ctl_live.h): judge must never block (it runs on
 * the receive thread for each datagram of a run awaiting an answer); it asks the board on a
 * thread of its own and answers UNKNOWN meanwhile. */
struct zcs_run_check {
	enum zcs_run_verdict (*judge)(void *ctx, const struct zcs_run_claim *claim, uint64_t now_ns);
	void *ctx;
};

#ifdef __cplusplus
}
#endif

#endif
