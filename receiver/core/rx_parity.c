// SPDX-License-Identifier: MIT
/* The erasure code's part of the engine (see rx_parity.h): parity kept for the stream followed,
 * the window grown for it, and the datagrams it rebuilds put back into the receive path through
 * the engine's entrance (rx->datagram), so nothing here calls rx_dgram.c. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "auth.h"
#include "rx_parity.h"
#include "seq.h"

struct rebuilt_ctx {
	struct zcs_rx *rx;
	const struct sockaddr *from;
};

/* A datagram the parity rebuilt (fec_rx.c) goes through everything a received one does, in a
 * buffer of its own; keyed, it must verify first: parity that was not the sender's can then at
 * worst fail to help.  Returns 1 when it took its place in the stream, 0 when not (no room, or
 * its place taken), -EBADMSG when it failed its own tag or the parser refused it (counted
 * invalid): either way some parity that rebuilt it was not the sender's. */
static int put_rebuilt(void *arg, uint8_t *dg, size_t len)
{
	const struct rebuilt_ctx *const c = arg;
	struct zcs_rx *const rx = c->rx;
	const uint64_t delivered = rx->ro.st.delivered, invalid = rx->st.invalid;
	uint32_t bi;
	bool kept;

	if (rx->opt.key && zcs_auth_verify(rx->opt.key, dg, len) != ZCS_AUTH_OK)
		return -EBADMSG;
	if (rx->nfree == 0 || len > rx->buf_size)
		return 0;
	bi = rx->free_list[--rx->nfree];
	rx->bufs[bi].data = rx->bufs[bi].own;
	memcpy(rx->bufs[bi].own, dg, len);
	kept = rx->datagram(rx, bi, len, c->from);
	if (!kept)
		rx->free_list[rx->nfree++] = bi;
	if (rx->st.invalid != invalid)
		return -EBADMSG;
	/* placed: held in the window, or released at once (it was the one the window waited
	 * for).  Not a datagram whose seq is merely behind the window: one the receive path
	 * refused (invalid, a duplicate) was counted restored when it was (fuzz_rx_fec
	 * made_up_before_first) */
	return kept || rx->ro.st.delivered != delivered ? 1 : 0;
}

/* The lowest seq the window has not released, for the parity of a block beginning at `at`:
 * before the stream's first sample datagram places the window nothing of it was released (the
 * window's own figure is then another stream's). */
static uint64_t fec_next(const struct zcs_rx *rx, uint64_t at)
{
	return rx->fs.need_start ? at : rx->ro.next;
}

void zcs_rx_parity_restore(struct zcs_rx *rx, uint64_t at, const struct sockaddr *from)
{
	struct rebuilt_ctx c = { rx, from };

	if (!rx->fec.armed || rx->fec_placing)
		return;
	rx->fec_placing = true;
	zcs_fec_rx_restore(&rx->fec, at, fec_next(rx, at), rx->fs.stream_id, put_rebuilt, &c);
	rx->fec_placing = false;
}

/* Parity its metadata did not announce (a sender of revision 8): the window grows to hold
 * ZCS_RX_FEC_WINDOW_BLOCKS blocks and their parity as window_for would have made it.  Its slots are
 * indexed by the window's size, so it grows only while empty. */
static void grow_window(struct zcs_rx *rx, const struct zcs_parity_hdr *p)
{
	const size_t need = ZCS_RX_FEC_WINDOW_BLOCKS * ((size_t)p->k + p->m);
	size_t w;

	if (rx->ro.window >= need || rx->opt.window || zcs_reorder_depth(&rx->ro) != 0)
		goto check;
	w = zcs_reorder_window_for(&rx->ro, need);
	if (w <= rx->ro.window)
		goto check;
	rx->ro.window = w;
	zcs_reorder_set_jump(&rx->ro, w);
	zcs_gapfill_bound(&rx->gf, rx->fs.meta.sample_rate,
			  (uint64_t)w * rx->fs.meta.samples_per_dgram);
	zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": reorder window %zu datagrams, so a block "
		"and its parity fit (%u:%u)", rx->fs.stream_id, w, (unsigned)p->k, (unsigned)p->m);
check:
	if (!rx->said_fec_window && rx->ro.window < (size_t)p->k + p->m) {
		rx->said_fec_window = true;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": the reorder window (%zu datagrams) "
			"is shorter than a block and its parity (%u): losses early in a block are "
			"zero-filled before the parity comes; give --window %u or more",
			rx->fs.stream_id, rx->ro.window, (unsigned)(p->k + p->m),
			(unsigned)(ZCS_RX_FEC_WINDOW_BLOCKS * (p->k + p->m)));
	}
}

void zcs_rx_parity(struct zcs_rx *rx, const struct zcs_dgram *dg, const struct sockaddr *from)
{
	const struct zcs_parity_hdr *const p = &dg->parity;

	if (!rx->fs.locked || p->stream_id != rx->fs.stream_id ||
	    (rx->opt.key && memcmp(dg->salt, rx->fs.salt, sizeof(rx->fs.salt)) != 0))
		return;
	if (!rx->said_fec) {
		rx->said_fec = true;
		zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": protected by erasure coding, %u:%u "
			"(a block of %u datagrams restored when it lost at most %u)%s",
			rx->fs.stream_id, (unsigned)p->k, (unsigned)p->m, (unsigned)p->k,
			(unsigned)p->m, zcs_fec_available() ? "" :
			"; this build of zcs-recv has no erasure code: the parity is only counted");
	}
	/* parity before any sample datagram (the window not placed yet, nothing received): kept
	 * from its block on, and the window places itself as window_for says.  Parity the metadata
	 * did not announce, after sample datagrams: kept from the next one that comes, and only
	 * the blocks that begin there or later can be restored */
	if (!rx->fec.armed && !rx->fec.failed && zcs_fec_available()) {
		const uint64_t first = rx->fs.need_start ? p->block_seq :
				       rx->ro.have_highest &&
				       !zcs_seq_before(rx->ro.highest, rx->ro.next) ?
				       rx->ro.highest + 1 : rx->ro.next;

		if (zcs_fec_rx_arm(&rx->fec, first) == 0 && !rx->fs.need_start)
			zcs_log(&rx->opt.log, "stream 0x%08" PRIx32 ": its metadata did not announce "
				"the parity: blocks before datagram %" PRIu64 " cannot be restored",
				rx->fs.stream_id, first);
	}
	/* parity of another K:M than the metadata announces is not the sender's: it neither grows
	 * the window nor is kept */
	zcs_fec_rx_expect(&rx->fec, rx->fs.meta.fec_k, rx->fs.meta.fec_m);
	if (!rx->fs.need_start && (!rx->fs.meta.fec_k || (p->k <= rx->fs.meta.fec_k &&
							   p->m == rx->fs.meta.fec_m)))
		grow_window(rx, p);
	if (zcs_fec_rx_parity(&rx->fec, p, dg->payload, dg->keyed, fec_next(rx, p->block_seq)) < 0)
		return;
	zcs_rx_parity_restore(rx, p->block_seq, from);
}

void zcs_rx_parity_data(struct zcs_rx *rx, const uint8_t *data, size_t len, uint64_t seq)
{
	/* parity announced: kept from the stream's first datagram, as received (decompression
	 * overwrites it); a stream without parity is neither kept nor allocated for */
	if (!rx->fec.armed && rx->fs.meta.fec_k && !rx->fec.failed && zcs_fec_available())
		zcs_fec_rx_arm(&rx->fec, seq);
	zcs_fec_rx_data(&rx->fec, data, len);
}
