// SPDX-License-Identifier: MIT
/* The stream followed (see rx_follow_parts.h): taken up, its end of stream believed, the newest
 * keyed run kept, and whether a new one may come.  Calls no other file of the unit. */
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include "rx_follow_parts.h"

/* Forgets what the stream followed has shown (a new stream).  No jump is held then: the engine
 * released the candidate's buffer with the window it ended (zcs_follow_switch's contract). */
static void forget_position(struct zcs_follow *f)
{
	f->cand = false;
	f->have_anchor = false;
	f->eos_pending = false;
	f->meta_pending = false;
}

void zcs_follow_begin(struct zcs_follow *f, uint32_t id, const struct sockaddr *from,
		      uint64_t now)
{
	char a[96] = "?";
	struct zcs_addr fa;

	memset(&fa, 0, sizeof(fa));
	if (from->sa_family == AF_INET || from->sa_family == AF_INET6) {
		fa.len = from->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		memcpy(&fa.ss, from, fa.len);
		zcs_net_addr_str(&fa, a, sizeof(a));
	}
	f->sender = fa;
	f->locked = true;
	f->stream_id = id;
	f->have_meta = false;
	f->need_start = true;
	f->have_pre_meta = false;
	f->ended = false;
	f->last_rx_ns = now;
	f->taken_since_ns = 0;
	f->taken_seen = false;
	/* what the engine kept for a start is no longer this stream's */
	f->nruns = 0;
	f->start_gen++;
	f->start_since_ns = 0;
	forget_position(f);
	f->st.streams++;
	zcs_log(&f->opt.log, "stream 0x%08" PRIx32 " from %s: waiting for its metadata", id, a);
}

bool zcs_follow_eos_believed(const struct zcs_follow *f, uint64_t now)
{
	return f->eos_pending && now - f->last_rx_ns >= f->quiet_ns;
}

bool zcs_follow_eos_delivered(struct zcs_follow *f, uint64_t seq)
{
	if (f->ended || f->eos_pending)
		return false;
	f->eos_pending = true;
	f->eos_seq = seq;
	return true;
}

void zcs_follow_end(struct zcs_follow *f)
{
	f->eos_pending = false;
	f->ended = true;
	f->st.eos++;
	zcs_log(&f->opt.log, "stream 0x%08" PRIx32 ": end of stream", f->stream_id);
}

bool zcs_follow_newest(const struct zcs_follow *f, struct zcs_run_seen *out)
{
	if (!f->have_newest)
		return false;
	*out = f->newest;
	return true;
}

bool zcs_follow_wants_sender(const struct zcs_follow *f, uint64_t now)
{
	/* a third: select judges the silence at the batch's time, after the read; asking from a
	 * third on leaves a second for the read to have been late by */
	return !f->locked || f->ended || f->pend ||
	       now - f->last_rx_ns >= ZCS_FOLLOW_SILENCE_NS / 3;
}
