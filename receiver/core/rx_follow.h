/* SPDX-License-Identifier: MIT */
/* Stream following: which stream the receiver follows (the first to show itself, --stream, a
 * sender restart, a later keyed run), which of its metadata is believed, and what its sample
 * datagrams are believed to claim (a jump, an end of stream): docs/receiver.md, "What is believed
 * when".  This unit decides; the engine (rx_dgram.c) acts: it owns the buffers, the reorder
 * window and the gap filler, which this unit only reads (the window's position, the fill bound).
 * Buffers are named by the engine's opaque 32-bit handles.  Its files, one concern each, are
 * listed in rx_follow_parts.h. */
#ifndef ZCS_RX_FOLLOW_H
#define ZCS_RX_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gapfill.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "reorder.h"
#include "runstate.h"

/* No buffer: what zcs_follow_* return when they release none. */
#define ZCS_FOLLOW_NONE UINT32_MAX

struct zcs_follow_opts {
	bool have_stream;         /* --stream given: only stream_id is followed */
	uint32_t stream_id;
	bool keyed;               /* --key: every datagram handed in has verified */
	/* keyed: the newest run followed before this receiver started (kept in its run state,
	 * common/wire/runstate.h), copied at init; NULL: none, the first authentic run heard is
	 * taken */
	const struct zcs_run_seen *run_seen;
	/* keyed: the liveness check (zcs-recv --control), copied at init; judge NULL: none, a run
	 * fresh against run_seen is followed as it comes.  With one, a new run is followed only
	 * once the check says the board is streaming it (see "A run awaiting the board" below) */
	struct zcs_run_check check;
	uint64_t hold_ms;         /* --hold, 0: from the stream's rate */
	struct zcs_log log;       /* news of the stream followed */
};

/* The counters this unit owns; each is defined in rx.h's struct zcs_rx_stats. */
struct zcs_follow_stats {
	uint64_t foreign, replayed, meta, pre_meta, pre_meta_samples, late_joins;
	uint64_t streams, restarts, eos, unconfirmed;
	uint64_t replayed_by[ZCS_REPLAY_REASONS];
};

/* What zcs_follow_select() makes of a valid datagram. */
enum zcs_follow_sel {
	ZCS_FOLLOW_TAKE = 0,      /* of the stream followed (perhaps just chosen): handle it */
	ZCS_FOLLOW_FOREIGN,       /* of another stream: counted foreign, dropped */
	ZCS_FOLLOW_REPLAYED,      /* keyed, authentic, but not newer than what was followed:
				   * counted replayed, dropped */
	/* a new stream replaces the one followed: the engine ends the old one (releases what its
	 * window holds, then tells the outputs its end), then calls zcs_follow_switch() and
	 * handles the datagram as the new stream's */
	ZCS_FOLLOW_SWITCH,
	/* keyed with a liveness check: of a run awaiting the board's answer (counted, held back:
	 * see "A run awaiting the board"), dropped */
	ZCS_FOLLOW_HELD,
	/* keyed with a liveness check: a sample datagram of the run awaiting the board's answer.
	 * The engine keeps it for when the run is confirmed (zcs_follow_took_pending), tagged with
	 * zcs_follow_pend_gen(); one it cannot keep, or gives up, it hands to zcs_follow_pend_drop */
	ZCS_FOLLOW_PEND,
};

/* What zcs_follow_jump() makes of a sample datagram that claims a jump. */
enum zcs_follow_jump {
	ZCS_FOLLOW_JUMP_HELD = 0, /* a new jump: the engine holds this datagram (its handle is now
				   * the candidate's) and frees the one returned in *drop */
	ZCS_FOLLOW_JUMP_DROP,     /* continues the jump, which is not plausible yet (counted
				   * unconfirmed), or, keyed, goes back within the run followed (an
				   * authentic datagram replayed: counted replayed): dropped */
	ZCS_FOLLOW_JUMP_BELIEVED, /* the jump is believed: the engine puts the candidate (*drop's
				   * handle) into the window, then this one */
	ZCS_FOLLOW_JUMP_TAKEN,    /* keyed, and ahead of the window: only the sender can have sent
				   * it, so it is believed alone, at once: the engine puts it into
				   * the window (no candidate is held with a key) */
};

/* Runs of the datagrams kept before an unkeyed stream's start is confirmed ("The stream's
 * start" below): at most this many, the one kept least giving way to a new one. */
#define ZCS_FOLLOW_START_RUNS 4

/* A run: datagrams kept that continue one another (rx_follow_start.c). */
struct zcs_start_run {
	uint64_t lo, hi;          /* its lowest and highest number */
	uint64_t lo_first;        /* the first sample of lo */
	uint64_t hi_end;          /* the sample index after hi's */
	uint64_t count;           /* datagrams of it kept */
	uint64_t first_ns;        /* monotonic time its first datagram came */
};

struct zcs_follow {
	struct zcs_follow_opts opt;
	const struct zcs_reorder *ro;   /* the engine's window and gap filler, read only */
	const struct zcs_gapfill *gf;
	struct zcs_follow_stats st;

	/* the stream followed */
	bool locked;
	uint32_t stream_id;
	struct zcs_addr sender;   /* who sends it (len 0: unknown) */
	bool have_meta;
	struct zcs_meta meta;     /* its settings, as believed */
	bool need_start;          /* the window is not placed yet for it (zcs_follow_start) */
	bool have_pre_meta;       /* sample datagrams came before the metadata: */
	uint64_t pre_meta_high;   /* ... the highest of them */
	uint64_t pre_meta_low;    /* ... and the lowest */
	uint64_t meta_ns;         /* monotonic time its newest metadata was taken */
	bool ended;               /* its end of stream was believed */
	uint64_t last_rx_ns;      /* monotonic time of its newest datagram */
	/* unkeyed, before its start is confirmed: the runs of the datagrams the engine keeps
	 * meanwhile (tagged start_gen, new for each stream followed), since start_since_ns */
	struct zcs_start_run runs[ZCS_FOLLOW_START_RUNS];
	size_t nruns;
	uint64_t start_gen;
	uint64_t start_since_ns;
	uint64_t hold_ns;         /* silence after which held datagrams are released */
	uint64_t quiet_ns;        /* silence of the current position after which a jump or an end
				   * is believed whatever it claims */

	/* what the stream has shown, so one datagram cannot steer the receiver */
	uint64_t live_ns;         /* monotonic time of the newest datagram taken at the position */
	bool have_anchor;         /* the highest number taken so far: */
	uint64_t anchor_seq;
	uint64_t anchor_first;    /* ... its first sample */
	uint64_t anchor_end;      /* ... and the sample index after it */
	bool cand;                /* a jump awaits confirmation: */
	uint32_t cand_handle;     /* ... its first datagram, in this engine buffer */
	struct zcs_sample_hdr cand_hdr;
	uint64_t cand_last;       /* ... the newest number that continued it */
	uint64_t cand_end;        /* ... and the sample index after that one */
	bool eos_pending;         /* an end of stream was delivered, not yet believed */
	uint64_t eos_seq;
	bool meta_pending;        /* unkeyed: a change of settings announced, not yet believed: */
	struct zcs_meta meta_new;
	uint64_t meta_new_ns;     /* ... monotonic time it was first announced */

	/* keyed: the run followed is (stream id, salt); newest is the newest run followed (or
	 * kept from before: opt.run_seen) with its newest metadata number, and only a run fresh
	 * against it is followed (zcs_run_is_fresh) */
	uint8_t salt[8];
	bool have_run;
	uint64_t meta_seq;        /* newest metadata number of the run followed */
	bool have_newest;
	struct zcs_run_seen newest;
	bool said_replay;

	/* A run awaiting the board (opt.check): a new run fresh against newest is held here, not
	 * followed, until the check says it is live.  Its newest metadata is kept (given to the
	 * engine when the run is followed: zcs_follow_held_meta), its sample datagrams meanwhile
	 * are the engine's to keep (ZCS_FOLLOW_PEND, delivered once the run is followed); those it
	 * could not keep are dropped as before metadata (zcs_follow_pend_drop: counted pre_meta,
	 * their lowest and highest number kept so the run's start counts as lost and zero-filled:
	 * zcs_follow_start).  One at a time: a later run (a higher number) takes the place, as does
	 * any once this one fell silent; the live run is the board's newest, so no replay keeps it
	 * out.  pend_gen names each run awaiting (the engine's datagrams of it carry it) */
	bool pend;
	uint64_t pend_gen;
	bool took_pend;           /* the run awaiting was just followed: its datagrams are due */
	uint64_t taken_since_ns;  /* the run followed awaited the board since then (0: it did not):
				   * it began no later, though delivered from the answer on */
	bool taken_seen;          /* ... and showed sample datagrams from this number on */
	uint64_t taken_low;
	struct zcs_run_claim pend_claim;
	struct sockaddr_storage pend_from;
	uint8_t pend_salt[8];
	uint64_t pend_meta_seq;
	struct zcs_meta pend_meta;
	uint64_t pend_last_ns;    /* monotonic time of its newest datagram */
	bool pend_samples;        /* sample datagrams of it dropped (zcs_follow_pend_drop): */
	uint64_t pend_low, pend_high;
	bool pend_seen;           /* sample datagrams of it came, kept or not: */
	uint64_t pend_seen_low;   /* ... the lowest number */
	bool pend_go;             /* confirmed at the datagram being handled: it is followed */
	bool meta_held;           /* pend_meta is for the engine (zcs_follow_held_meta) */
	bool said_not_live;

	/* the switch zcs_follow_select() decided, for the engine and zcs_follow_switch(): why, and
	 * whether the end of stream delivered is believed (unkeyed: the stream fell silent after it) */
	const char *switch_why, *switch_what;
	bool switch_eos;
};

/* ro and gf are the engine's, read by the trust rules (the window's position, the fill bound). */
void zcs_follow_init(struct zcs_follow *f, const struct zcs_follow_opts *opt,
		     const struct zcs_reorder *ro, const struct zcs_gapfill *gf);

/* Which stream a valid datagram dg (from `from`, at monotonic time now) belongs to, and whether
 * it is handled (see enum zcs_follow_sel).  With opt.keyed, dg has verified. */
enum zcs_follow_sel zcs_follow_select(struct zcs_follow *f, const struct zcs_dgram *dg,
				      const struct sockaddr *from, uint64_t now);
/* After ZCS_FOLLOW_SWITCH, once the engine has ended the stream followed: dg's stream is (or,
 * with a liveness check, the run awaiting the board that dg's arrival found confirmed). */
void zcs_follow_switch(struct zcs_follow *f, const struct zcs_dgram *dg, const struct sockaddr *from,
		       uint64_t now);

/* After ZCS_FOLLOW_TAKE or zcs_follow_switch(): when the datagram handled made the board's
 * confirmation of a run awaiting it known, and was not that run's metadata itself, the run's
 * newest metadata goes to *m once (true): the engine applies it before the datagram. */
bool zcs_follow_held_meta(struct zcs_follow *f, struct zcs_meta *m);

/* Which run awaiting the board the engine keeps ZCS_FOLLOW_PEND datagrams for (a tag). */
static inline uint64_t zcs_follow_pend_gen(const struct zcs_follow *f)
{
	return f->pend_gen;
}
/* Whether the datagrams kept under tag gen are still of the run awaiting the board. */
static inline bool zcs_follow_awaits(const struct zcs_follow *f, uint64_t gen)
{
	return f->pend && f->pend_gen == gen;
}
/* A sample datagram (seq, samples) of the run tagged gen that the engine did not keep or gave
 * up: counted as dropped before metadata (pre_meta), and, when that run still awaits the board,
 * remembered so its start counts as lost if it was among them. */
void zcs_follow_pend_drop(struct zcs_follow *f, uint64_t gen, uint64_t seq, uint32_t samples);
/* After ZCS_FOLLOW_TAKE or zcs_follow_switch() (and the held metadata applied): true once when
 * the run awaiting the board has just been followed; the engine then delivers the datagrams it
 * kept under *gen, oldest first, before the datagram being handled. */
bool zcs_follow_took_pending(struct zcs_follow *f, uint64_t *gen);

/* Whether the end of stream delivered is believed at now: the stream fell silent after it. */
bool zcs_follow_eos_believed(const struct zcs_follow *f, uint64_t now);
/* An end-of-stream datagram seq was delivered.  True when it is newly pending (believed only
 * once the stream falls silent: a forged one must not end a run while the live stream flows). */
bool zcs_follow_eos_delivered(struct zcs_follow *f, uint64_t seq);
/* The end of stream is believed (silence, a switch, or the run ends): counted and said. */
void zcs_follow_end(struct zcs_follow *f);

/* Metadata m of the stream followed: whether it is believed now (see meta_confirmed in
 * rx_follow_meta.c) and then taken as the stream's settings.  Returns 0 when nothing changed (or
 * it is not believed yet), 1 for the stream's first settings, 2 for a change; *eff is what the
 * outputs are to be told (a confirmed announcement keeps the index it was announced with). */
int zcs_follow_meta(struct zcs_follow *f, const struct zcs_meta *m, uint64_t now,
		    struct zcs_meta *eff);

/* A sample datagram before the stream's metadata: counted and remembered (the window's start,
 * zcs_follow_start).  Returns true when so (the datagram is then dropped). */
bool zcs_follow_pre_meta(struct zcs_follow *f, const struct zcs_sample_hdr *h);
/* A sample datagram of wire format fmt: a change of format announced but not yet believed is
 * contradicted when fmt is still the old one. */
void zcs_follow_sample_format(struct zcs_follow *f, int fmt);

/* The stream's start (unkeyed; docs/protocol.md, "The stream's start").  Until it is confirmed
 * the engine keeps the stream's sample datagrams (also those before its metadata) under tag
 * start_gen, tells each to zcs_follow_start_keep(), and asks zcs_follow_start_pick() after each,
 * when the metadata comes, when the stream falls silent and when it ends; the datagrams numbered
 * within the run picked then go through the window in the order they came, and the rest are
 * dropped (counted unconfirmed).  A clean start keeps nothing: zcs_follow_start_named(). */

/* Whether sample datagram h, with nothing kept, is confirmed as the start by the metadata alone:
 * its number lies in the window at or after the metadata's next_seq. */
bool zcs_follow_start_named(const struct zcs_follow *f, const struct zcs_sample_hdr *h,
			    size_t window);
/* The engine keeps sample datagram h at now: it joins its run, or begins one. */
void zcs_follow_start_keep(struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now);
/* A datagram kept (seq, samples) the engine gave up (no room, or the stream it was kept for was
 * replaced): counted in pre_meta; own (of the stream followed): its run counts it no more, and
 * it is remembered as dropped before the start (so a start among them is zero-filled from
 * there: zcs_follow_start). */
void zcs_follow_start_give_up(struct zcs_follow *f, uint64_t seq, uint32_t samples, bool own);
/* Whether a run kept is confirmed as the start at now, for the window the engine will use;
 * silent: the stream has been silent for quiet_ns; ending: it ends, or the program does.  When
 * so, it goes to *run and the runs are forgotten. */
bool zcs_follow_start_pick(struct zcs_follow *f, size_t window, uint64_t now, bool silent,
			   bool ending, struct zcs_start_run *run);
/* Whether kept datagram h continues the run confirmed (run), or the run continues from it: run
 * then takes it in.  The engine asks for every datagram it keeps, until none is taken in, so a
 * datagram of the stream whose run gave way to others (ZCS_FOLLOW_START_RUNS) is delivered. */
bool zcs_follow_start_extend(struct zcs_start_run *run, const struct zcs_sample_hdr *h);

/* Where the window starts for the stream, whose first usable datagram is h, given the window
 * the engine will use.  *skip_to is 0, or the number up to which everything is lost at once
 * (the stream's start came before its metadata: zero-filled from sample 0).  Counts and says a
 * late join; the window is then placed (need_start false). */
uint64_t zcs_follow_start(struct zcs_follow *f, const struct zcs_sample_hdr *h, size_t window,
			  uint64_t *skip_to);

/* Whether sample datagram h claims a jump: it does not follow from the stream's current
 * position, or it continues the jump awaiting confirmation while that jump is plausible (look_ns
 * as for zcs_follow_jump).  A datagram that follows from the current position is the live
 * stream's and goes there, whatever jump it might also continue.  When true, zcs_follow_jump()
 * judges it. */
bool zcs_follow_claims_jump(const struct zcs_follow *f, const struct zcs_sample_hdr *h,
			    uint64_t now, uint64_t look_ns);
/* Judges a jump claimed by h (in engine buffer handle), at now; look_ns is when the socket was
 * last seen empty before this datagram's batch.  See enum zcs_follow_jump for *drop. */
enum zcs_follow_jump zcs_follow_jump(struct zcs_follow *f, uint32_t handle,
				     const struct zcs_sample_hdr *h, uint64_t now, uint64_t look_ns,
				     uint32_t *drop);
/* The window took the believed jump's first datagram: the position is the jump's now. */
void zcs_follow_moved(struct zcs_follow *f);
/* The window took h at the current position at now: the stream is live there.  Returns the
 * candidate jump's buffer when that is dropped for it (the live stream went on), else NONE. */
uint32_t zcs_follow_taken(struct zcs_follow *f, const struct zcs_sample_hdr *h, uint64_t now);
/* The jump awaiting confirmation is not believed: its buffer (NONE: none) for the engine to free. */
uint32_t zcs_follow_drop_cand(struct zcs_follow *f);

/* The newest keyed run followed, with the newest metadata number seen of it, for the program to
 * keep across restarts (opt.run_seen next time).  False while there is none. */
bool zcs_follow_newest(const struct zcs_follow *f, struct zcs_run_seen *out);

/* Whether the next datagrams must carry their sender's address (judged at now): while a new
 * stream may be followed (none yet, the last one ended, or silent a third of the restart time). */
bool zcs_follow_wants_sender(const struct zcs_follow *f, uint64_t now);

#endif
