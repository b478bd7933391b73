// SPDX-License-Identifier: MIT
/* Retunes while streaming: the control thread writes the settings under the tuning lock, the
 * source thread fixes the sample index they are announced from and cuts a train there, so the
 * metadata datagram that announces them goes out just before the first datagram they hold for. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cond.h"
#include "err.h"
#include "pipeline_impl.h"

int zcs_pipeline_tune_init(struct zcs_pipeline *p)
{
	int ret;

	/* zcs_pipeline_retune's deadline is on CLOCK_MONOTONIC */
	if ((ret = zcs_cond_init_mono(&p->tune_cv)) < 0)
		return ret;
	if ((ret = pthread_mutex_init(&p->tune_mu, NULL)) != 0) {
		pthread_cond_destroy(&p->tune_cv);
		return -ret;
	}
	if ((ret = zcs_doorbell_init(&p->ext_db)) < 0) {
		pthread_mutex_destroy(&p->tune_mu);
		pthread_cond_destroy(&p->tune_cv);
		return ret;
	}
	atomic_init(&p->tune_posted, false);
	atomic_init(&p->read_end, 0);
	p->tune_init = true;
	return 0;
}

void zcs_pipeline_tune_fini(struct zcs_pipeline *p)
{
	if (!p->tune_init)
		return;
	pthread_mutex_destroy(&p->tune_mu);
	pthread_cond_destroy(&p->tune_cv);
	zcs_doorbell_close(&p->ext_db);
	p->tune_init = false;
}

void zcs_pipeline_info_now(struct zcs_pipeline *p, struct zcs_radio_info *info)
{
	pthread_mutex_lock(&p->tune_mu);
	*info = p->cfg.src->info;
	pthread_mutex_unlock(&p->tune_mu);
}

void zcs_pipeline_ext_post(struct zcs_pipeline *p, const struct zcs_radio_info *info,
			   uint64_t at)
{
	pthread_mutex_lock(&p->tune_mu);
	p->ext_info = *info;
	p->ext_at = at;
	p->ext_gen++;
	pthread_mutex_unlock(&p->tune_mu);
	zcs_doorbell_ring(&p->ext_db);
}

int zcs_pipeline_ext_fd(const struct zcs_pipeline *p)
{
	return p->ext_db.fd;
}

void zcs_pipeline_ext_arm(struct zcs_pipeline *p)
{
	zcs_doorbell_arm(&p->ext_db);
}

void zcs_pipeline_ext_disarm(struct zcs_pipeline *p)
{
	zcs_doorbell_disarm(&p->ext_db);
}

bool zcs_pipeline_ext_take(struct zcs_pipeline *p, uint64_t *gen, struct zcs_radio_info *info,
			   uint64_t *since)
{
	bool news;

	pthread_mutex_lock(&p->tune_mu);
	news = p->ext_gen != *gen;
	if (news) {
		*gen = p->ext_gen;
		*info = p->ext_info;
		*since = p->ext_at;
	}
	pthread_mutex_unlock(&p->tune_mu);
	return news;
}

static bool same_info(const struct zcs_radio_info *a, const struct zcs_radio_info *b)
{
	return a->sample_rate == b->sample_rate && a->center_freq == b->center_freq &&
	       a->bandwidth == b->bandwidth && a->gain_mdb == b->gain_mdb &&
	       a->gain_mode == b->gain_mode && a->channel == b->channel;
}

int zcs_pipeline_retune(struct zcs_pipeline *p, int (*apply)(void *ctx, struct zcs_source *src),
			void *ctx, int timeout_ms, uint64_t *since)
{
	struct zcs_source *const src = p->cfg.src;
	struct zcs_radio_info before;
	int fmt_before;
	struct timespec until;
	uint64_t mine, dl;
	int ret;

	*since = UINT64_MAX;
	dl = zcs_mono_ns() + (uint64_t)timeout_ms * 1000000ULL;
	until.tv_sec = (time_t)(dl / ZCS_NS_PER_SEC);
	until.tv_nsec = (long)(dl % ZCS_NS_PER_SEC);
	pthread_mutex_lock(&p->tune_mu);
	before = src->info;
	fmt_before = p->format;
	ret = apply(ctx, src);
	if ((same_info(&before, &src->info) && fmt_before == p->format) ||
	    atomic_load(&p->source_done)) {
		pthread_mutex_unlock(&p->tune_mu);
		return ret;
	}
	/* every pair read so far was taken before the write returned; the first one that can
	 * hold the new settings is the next one read (docs/protocol.md, "Retunes") */
	p->tune_min = atomic_load(&p->read_end);
	/* a change of wire format alone is the pipeline's own, not the radio's: it can hold from
	 * the next pair packed, read before the change or not */
	if (same_info(&before, &src->info))
		p->tune_min = 0;
	p->tune_info = src->info;
	p->tune_format = p->format;
	/* sticky: a set that comes before the deferred one's block still waits for it */
	p->tune_deferred |= src->tune_deferred;
	src->tune_deferred = false;
	mine = ++p->tune_asked;
	atomic_store(&p->tune_posted, true);
	while (p->tune_answered < mine && !atomic_load(&p->source_done)) {
		if (pthread_cond_timedwait(&p->tune_cv, &p->tune_mu, &until) == ETIMEDOUT)
			break;
	}
	if (p->tune_answered >= mine)
		*since = p->tune_at;
	pthread_mutex_unlock(&p->tune_mu);
	return ret;
}

void zcs_pipeline_tune_rebuilt(struct zcs_pipeline *p, uint64_t start)
{
	pthread_mutex_lock(&p->tune_mu);
	if (p->tune_deferred && atomic_load(&p->tune_posted)) {
		/* zcs_pipeline_tune_take() then takes it at the block's first pair */
		p->tune_min = start;
		p->tune_deferred = false;
	}
	pthread_mutex_unlock(&p->tune_mu);
}

int zcs_pipeline_format(struct zcs_pipeline *p)
{
	/* written under the tuning lock, read with or without it */
	return __atomic_load_n(&p->format, __ATOMIC_RELAXED);
}

int zcs_pipeline_check_format(const struct zcs_pipeline *p, int format, char *err, size_t errlen)
{
	if (format < 1 || format > ZCS_WIRE_MAX)
		return zcs_err(err, errlen, -EINVAL, "format: no wire format %d", format);
	/* every format was sized at start; one that holds no sample in the datagram size fails */
	if (p->fmt[format].spd == 0)
		return zcs_err(err, errlen, -EINVAL, "format: a datagram of %zu bytes holds no %s "
			       "samples", p->cfg.udp_payload, zcs_wire_name(format));
	return 0;
}

int zcs_pipeline_set_format(struct zcs_pipeline *p, int format, char *err, size_t errlen)
{
	const int ret = zcs_pipeline_check_format(p, format, err, errlen);

	if (ret == 0)
		__atomic_store_n(&p->format, format, __ATOMIC_RELAXED);
	return ret;
}

int zcs_pipeline_locked(struct zcs_pipeline *p, int (*fn)(void *ctx, struct zcs_source *src),
			void *ctx)
{
	int ret;

	pthread_mutex_lock(&p->tune_mu);
	ret = fn(ctx, p->cfg.src);
	pthread_mutex_unlock(&p->tune_mu);
	return ret;
}

bool zcs_pipeline_tune_take(struct zcs_pipeline *p, struct zcs_tune_pending *t, uint64_t pos,
			    struct zcs_radio_info *info, int *format)
{
	/* one announcement at a time: a request posted while one waits for its index to come is
	 * taken after it, so each gets metadata of its own */
	if (!t->active && atomic_load_explicit(&p->tune_posted, memory_order_acquire)) {
		pthread_mutex_lock(&p->tune_mu);
		if (atomic_load(&p->tune_posted) && !p->tune_deferred) {
			/* pos can be past tune_min by what was read and packed between the write and
			 * this look (at most one datagram): never announce before a pair already sent */
			t->at = p->tune_min > pos ? p->tune_min : pos;
			t->info = p->tune_info;
			t->format = p->tune_format;
			t->active = true;
			p->tune_at = t->at;
			p->tune_answered = p->tune_asked;
			atomic_store(&p->tune_posted, false);
			pthread_cond_broadcast(&p->tune_cv);
		}
		pthread_mutex_unlock(&p->tune_mu);
	}
	if (t->active && pos == t->at) {
		t->active = false;
		*info = t->info;
		*format = t->format;
		return true;
	}
	return false;
}
