// SPDX-License-Identifier: MIT
/* The in-process output (output.h, zcs_outputs_add_reader): a consumer thread of the embedding
 * program (the SoapySDR module's readStream) takes blocks from the sink's queue itself, in the
 * same order and with the same events a writer thread would see.  No descriptor, no thread. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "output_kinds.h"

struct zcs_reader {
	struct zcs_out *out;
	struct zcs_block *held;   /* the block behind the last item, until released */
};

static int reader_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	struct zcs_reader *const r = out->priv;

	(void)arg;
	(void)err;
	(void)errlen;
	r->out = out;
	return 0;
}

static const struct zcs_out_ops reader_ops = {
	.prefix = "",
	.priv_size = sizeof(struct zcs_reader),
	.open = reader_open,
	.in_process = true,
};

int zcs_outputs_add_reader(struct zcs_outputs *o, const char *name, struct zcs_reader **r,
			   char *err, size_t errlen)
{
	struct zcs_out *out;
	const int ret = zcs_outputs_add_in_process(o, &reader_ops, name, &out, err, errlen);

	if (ret < 0)
		return ret;
	*r = out->priv;
	return 0;
}

void zcs_reader_release(struct zcs_reader *r)
{
	struct zcs_sink *const s = &r->out->sinks[0];

	if (!r->held)
		return;
	zcs_out_pool_put(&r->out->set->pool, r->held);
	r->held = NULL;
	atomic_store(&s->busy, false);
}

void zcs_reader_attach(struct zcs_reader *r)
{
	struct zcs_sink *const s = &r->out->sinks[0];

	if (atomic_load(&s->state) != ZCS_SINK_ATTACHED)
		zcs_out_attach(s, -1, false);
}

void zcs_reader_detach(struct zcs_reader *r)
{
	struct zcs_sink *const s = &r->out->sinks[0];

	zcs_reader_release(r);
	if (atomic_load(&s->state) == ZCS_SINK_ATTACHED)
		zcs_out_detach(s);
}

/* Waits for the receive thread to queue something, as a writer thread does (sink_wait). */
static void reader_wait(struct zcs_sink *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->efd, .events = POLLIN };
	uint64_t v;

	atomic_store(&s->sleeping, true);
	/* pairs with the fence in queue_block: either it sees us asleep or we see its block */
	atomic_thread_fence(memory_order_seq_cst);
	if (zcs_ring_count(&s->q) == 0)
		poll(&pfd, 1, timeout_ms);
	atomic_store(&s->sleeping, false);
	if (read(s->efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: the timeout, not a wake-up */
	}
}

int zcs_reader_next(struct zcs_reader *r, int timeout_ms, struct zcs_reader_item *it)
{
	struct zcs_sink *const s = &r->out->sinks[0];
	struct zcs_block *b;

	zcs_reader_release(r);
	if (atomic_load(&s->state) != ZCS_SINK_ATTACHED)
		return 0;
	b = zcs_ring_pop(&s->q);
	if (!b) {
		reader_wait(s, timeout_ms);
		b = zcs_ring_pop(&s->q);
		if (!b)
			return 0;
	}
	/* destroy's drain check sees a block in the consumer's hands */
	atomic_store(&s->busy, true);
	r->held = b;
	memset(it, 0, sizeof(*it));
	it->first_sample = b->first_sample;
	it->pairs = b->pairs;
	switch (b->type) {
	case ZCS_BLOCK_DATA:
		it->kind = ZCS_READER_DATA;
		it->data = b->data;
		it->len = b->len;
		atomic_fetch_add_explicit(&r->out->bytes, b->len, memory_order_relaxed);
		atomic_fetch_add_explicit(&r->out->blocks, 1, memory_order_relaxed);
		break;
	case ZCS_BLOCK_META:
		it->kind = ZCS_READER_META;
		it->meta = b->meta;
		break;
	case ZCS_BLOCK_GAP:
		it->kind = ZCS_READER_GAP;
		it->filled = b->filled;
		break;
	case ZCS_BLOCK_EOS:
		it->kind = ZCS_READER_EOS;
		break;
	}
	return 1;
}

bool zcs_reader_last_meta(struct zcs_reader *r, struct zcs_meta *m)
{
	return zcs_out_last_meta(r->out, m);
}
