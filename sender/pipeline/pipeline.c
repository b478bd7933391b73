// SPDX-License-Identifier: MIT
/* Setting up, starting, watching and ending the two-thread pipeline (three with a second send
 * thread); the threads themselves live in pipeline_source.c, pipeline_send.c and
 * pipeline_aside.c, what steers them in pipeline_threads.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "pipeline_impl.h"
#include "proto.h"

/* Called by the send path (on the send thread) when the kernel is done with a train. */
static void train_done(void *ctx, struct zcs_train *t)
{
	struct zcs_pipeline *const p = ctx;

	/* cannot fail: the free ring holds every slot */
	zcs_ring_push(&p->free, t);
	zcs_doorbell_ring(&p->free_db);
}

/* The same for the second send thread's path: its slots go back to the source on a ring of their
 * own (each ring has one producer). */
static void train_done_aside(void *ctx, struct zcs_train *t)
{
	struct zcs_pipeline *const p = ctx;

	zcs_ring_push(&p->free2, t);
	zcs_doorbell_ring(&p->free_db);
}

/* Sizes wire format f for the configured datagram: 0, or -EINVAL when no sample fits. */
static int size_format(struct zcs_pipeline *p, int f)
{
	const struct zcs_pipeline_config *const cfg = &p->cfg;
	struct zcs_pipeline_fmt *const o = &p->fmt[f];

	o->pair_bytes = zcs_wire_pair_bytes(f);
	/* the trailer is part of every datagram: fewer samples, so a keyed one still fits the MTU
	 * and GSO's equal segments stay equal */
	o->spd = cfg->udp_payload > p->trailer + p->fec_reserve
			 ? zcs_proto_max_samples(f, cfg->udp_payload - p->trailer - p->fec_reserve)
			 : 0;
	if (o->pair_bytes == 0 || o->spd == 0) {
		o->spd = 0;
		return -EINVAL;
	}
	o->seg = ZCS_PROTO_SAMPLE_HDR_SIZE + o->spd * o->pair_bytes + p->trailer;
	o->dgrams = zcs_train_max_dgrams(o->seg);
	if (cfg->pace_rate) {
		/* samples of 10 ms, in whole datagrams, rounded up */
		const uint64_t want = cfg->pace_rate * ZCS_TRAIN_MAX_NS / ZCS_NS_PER_SEC;
		const size_t n = (size_t)((want + o->spd - 1) / o->spd);

		if (n < o->dgrams)
			o->dgrams = n ? n : 1;
	}
	/* half each: sealing is most of a keyed datagram's instructions, and beside it the source
	 * thread's packing and the send thread's system calls cost about the same (docs/board.md
	 * section 8) */
	o->seal_src = (o->dgrams + 1) / 2;
	return 0;
}

/* Logs the second send path's news as its own. */
static void aside_log(void *ctx, const char *line)
{
	const struct zcs_pipeline *const p = ctx;

	zcs_log_as(&p->cfg.log, "second send thread", "%s", line);
}

/* --send-threads 2: the second send thread's rings and its path, on cfg.fd2 and the same kind as
 * the first (sc: the first's configuration).  Returns 0 or -errno with err set. */
static int open_aside(struct zcs_pipeline *p, const struct zcs_sendpath_config *sc, char *err,
		      size_t errlen)
{
	struct zcs_sendpath_config sc2 = *sc;
	int ret;

	if ((ret = zcs_ring_init(&p->aside, ZCS_PIPELINE_SLOTS)) < 0 ||
	    (ret = zcs_ring_init(&p->free2, ZCS_PIPELINE_SLOTS)) < 0 ||
	    (ret = zcs_doorbell_init(&p->aside_db)) < 0 ||
	    (ret = zcs_doorbell_init(&p->aside_done_db)) < 0)
		return zcs_err(err, errlen, ret, "pipeline set-up: %s", strerror(-ret));
	sc2.fd = p->cfg.fd2;
	sc2.want = zcs_sendpath_kind(p->sp);
	sc2.why = "as the first";
	sc2.done = train_done_aside;
	sc2.log = (struct zcs_log){ aside_log, p };
	/* the cores' load, for the share of trains; without it the share stays where it starts */
	p->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (p->stat_fd < 0)
		zcs_log(&p->cfg.log, "/proc/stat: %s: the second send thread gets %s", strerror(errno),
			p->cfg.spread_auto ? "no trains" : "every other train");
	return zcs_sendpath_open(&p->sp2, &sc2, err, errlen);
}

int zcs_pipeline_create(struct zcs_pipeline **out, const struct zcs_pipeline_config *cfg,
			char *err, size_t errlen)
{
	struct zcs_pipeline *p;
	struct zcs_sendpath_config sc;
	size_t seg, dgrams, raw_max = 0;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return zcs_err(err, errlen, -ENOMEM, "out of memory");
	p->cfg = *cfg;
	p->full_db.fd = p->free_db.fd = p->ext_db.fd = -1;
	p->aside_db.fd = p->aside_done_db.fd = -1;
	p->stat_fd = -1;
	p->spread = cfg->fd2 >= 0;
	atomic_init(&p->stop, false);
	atomic_init(&p->aside_end, false);
	atomic_init(&p->aside_done, false);
	atomic_init(&p->aside_sent, 0);
	atomic_init(&p->aside_cpu, -1);
	atomic_init(&p->src_cpu, -1);
	/* auto: none until the send core is busy; 2: half until the cores' load says otherwise */
	atomic_init(&p->spread_share, cfg->spread_auto ? 0 : ZCS_SPREAD_ONE / 2);
	atomic_init(&p->source_done, false);
	atomic_init(&p->send_done, false);
	if ((ret = zcs_pipeline_tune_init(p)) < 0) {
		zcs_err(err, errlen, ret, "pipeline set-up: %s", strerror(-ret));
		goto fail;
	}
	if (cfg->key) {
		ret = zcs_auth_init(&p->auth, cfg->key, cfg->run_start_ns, err, errlen);
		if (ret == 0)
			ret = zcs_auth_tagger_init(&p->tag_source, cfg->key->bytes, err, errlen);
		if (ret == 0)
			ret = zcs_auth_tagger_init(&p->tag_send, cfg->key->bytes, err, errlen);
		if (ret < 0)
			goto fail;
		p->auth.run = cfg->run;
		p->keyed = true;
		p->trailer = ZCS_AUTH_SAMPLE_TRAILER;
	}
	if (cfg->fec_k) {
		/* parity = 32-byte header + (datagram - 16) + trailer: 16 + trailer longer */
		p->fec = true;
		p->fec_reserve = ZCS_PROTO_PARITY_HDR_SIZE - ZCS_FEC_SKIP + p->trailer;
	}
	/* every format's datagram and train, so the control channel can switch between them
	 * while streaming; the slots hold the largest train of any of them */
	seg = 0;
	dgrams = 0;
	for (int f = 1; f <= ZCS_WIRE_MAX; f++) {
		if (size_format(p, f) < 0)
			continue;
		if (p->fmt[f].seg > seg)
			seg = p->fmt[f].seg;
		if (p->fmt[f].dgrams > dgrams)
			dgrams = p->fmt[f].dgrams;
		if (p->fmt[f].spd * p->fmt[f].pair_bytes > raw_max)
			raw_max = p->fmt[f].spd * p->fmt[f].pair_bytes;
	}
	if (cfg->format < 1 || cfg->format > ZCS_WIRE_MAX || p->fmt[cfg->format].spd == 0) {
		ret = zcs_err(err, errlen, -EINVAL, "a datagram of %zu bytes holds no %s samples",
			      cfg->udp_payload, zcs_wire_name(cfg->format));
		goto fail;
	}
	p->format = cfg->format;
	if (p->fec) {
		ret = zcs_fec_enc_init(&p->fec_enc, cfg->fec_k, cfg->fec_m, seg);
		p->fec_pend_stride = seg + p->fec_reserve;
		/* with a second send thread, the parity of two trains may wait (pipeline_send.c) */
		p->fec_pend_max = ((p->spread ? 2 : 1) * dgrams / cfg->fec_k + 2) * cfg->fec_m;
		p->fec_pend = ret == 0 ? malloc(p->fec_pend_stride * p->fec_pend_max) : NULL;
		p->fec_pend_len = ret == 0 ? calloc(p->fec_pend_max, sizeof(size_t)) : NULL;
		if (ret == 0 && (!p->fec_pend || !p->fec_pend_len))
			ret = -ENOMEM;
		if (ret < 0) {
			zcs_err(err, errlen, ret, "--fec %u:%u: %s", cfg->fec_k, cfg->fec_m,
				ret == -ENOTSUP ? "this build has no erasure code" : strerror(-ret));
			goto fail;
		}
	}
	ret = zcs_kernels_init(&p->k, ZCS_ISA_BEST);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "no conversion kernels: %s", strerror(-ret));
		goto fail;
	}
	ret = zcs_train_pool_init(&p->pool, ZCS_PIPELINE_SLOTS, seg, dgrams);
	if (ret < 0) {
		zcs_err(err, errlen, ret, "cannot map %d train slots: %s", ZCS_PIPELINE_SLOTS,
			strerror(-ret));
		goto fail;
	}
	p->slot_settings = calloc(p->pool.nslots, sizeof(*p->slot_settings));
	if (!p->slot_settings) {
		ret = zcs_err(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((ret = zcs_ring_init(&p->full, ZCS_PIPELINE_SLOTS)) < 0 ||
	    (ret = zcs_ring_init(&p->free, ZCS_PIPELINE_SLOTS)) < 0 ||
	    (ret = zcs_doorbell_init(&p->full_db)) < 0 || (ret = zcs_doorbell_init(&p->free_db)) < 0) {
		zcs_err(err, errlen, ret, "pipeline set-up: %s", strerror(-ret));
		goto fail;
	}
	for (size_t i = 0; i < p->pool.nslots; i++)
		zcs_ring_push(&p->free, &p->pool.trains[i]);
	ret = zcs_compress_open(&p->z, cfg->zstd_level, raw_max, err, errlen);
	if (ret < 0)
		goto fail;
	sc = (struct zcs_sendpath_config){
		.fd = cfg->fd, .want = zcs_compress_path(cfg->zstd_level, cfg->path),
		.pool = &p->pool, .seg = p->fmt[p->format].seg, .done = train_done, .ctx = p,
		.log = cfg->log,
	};
	if (sc.want != cfg->path) /* not "(as asked)": the user asked for auto */
		sc.why = ZCS_COMPRESS_PATH_WHY;
	ret = zcs_sendpath_open(&p->sp, &sc, err, errlen);
	if (ret < 0)
		goto fail;
	if (p->spread && (ret = open_aside(p, &sc, err, errlen)) < 0)
		goto fail;
	p->pub.samples_per_dgram = p->fmt[p->format].spd;
	p->pub.dgrams_per_train = p->fmt[p->format].dgrams;
	p->pub.send_path = zcs_sendpath_kind(p->sp);
	*out = p;
	return 0;
fail:
	zcs_pipeline_destroy(p);
	return ret;
}

int zcs_pipeline_start(struct zcs_pipeline *p, char *err, size_t errlen)
{
	int ret;

	if (p->spread) {
		ret = pthread_create(&p->aside_thread, NULL, zcs_pipeline_aside_main, p);
		if (ret)
			return zcs_err(err, errlen, -ret, "cannot start the second send thread: %s",
				       strerror(ret));
		p->aside_started = true;
	}
	ret = pthread_create(&p->send_thread, NULL, zcs_pipeline_send_main, p);
	if (ret) {
		zcs_err(err, errlen, -ret, "cannot start the send thread: %s", strerror(ret));
		/* the second send thread ends once told no train will come */
		atomic_store(&p->aside_end, true);
		zcs_doorbell_ring(&p->aside_db);
		return -ret;
	}
	p->send_started = true;
	ret = pthread_create(&p->src_thread, NULL, zcs_pipeline_source_main, p);
	if (ret) {
		zcs_err(err, errlen, -ret, "cannot start the source thread: %s", strerror(ret));
		/* the send thread ends on its own once it sees the source is done */
		atomic_store(&p->source_done, true);
		zcs_doorbell_ring(&p->full_db);
		return -ret;
	}
	p->src_started = true;
	return 0;
}

static uint64_t thread_cpu_ns(pthread_t t)
{
	clockid_t id;

	struct timespec ts;

	if (pthread_getcpuclockid(t, &id) || clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * ZCS_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

void zcs_pipeline_stats(struct zcs_pipeline *p, struct zcs_pipeline_stats *o)
{
	const struct zcs_pipeline_stats *const s = &p->pub;
	const bool src_done = atomic_load(&p->source_done), send_done = atomic_load(&p->send_done);
	const bool aside_done = !p->spread || atomic_load(&p->aside_done);

	o->samples = ZCS_GET(s->samples);
	o->datagrams = ZCS_GET(s->datagrams);
	o->bytes = ZCS_GET(s->bytes);
	o->trains = ZCS_GET(s->trains);
	o->meta_sent = ZCS_GET(s->meta_sent);
	o->parity_sent = ZCS_GET(s->parity_sent);
	o->discontinuities = ZCS_GET(s->discontinuities);
	zcs_sendpath_stats_copy(&o->path, &s->path);
	if (p->spread) {
		struct zcs_sendpath_stats a;

		/* the send thread counted the trains it handed aside as its own: those the second
		 * one gave up are left out here (publish() did so for the first's) */
		zcs_sendpath_stats_copy(&a, &p->aside_pub);
		zcs_sendpath_stats_add(&o->path, &a);
		o->samples -= a.dropped_samples;
		o->datagrams -= a.dropped_dgrams;
		o->bytes -= a.dropped_bytes;
		o->trains -= a.dropped_trains;
		o->send2_trains = atomic_load(&p->aside_sent) - a.dropped_trains;
		o->send2_share = (double)atomic_load(&p->spread_share) / ZCS_SPREAD_ONE;
	}
	o->start_ns = ZCS_GET(s->start_ns);
	o->end_ns = ZCS_GET(s->end_ns);
	o->send_path = ZCS_GET(s->send_path);
	o->samples_per_dgram = s->samples_per_dgram;
	o->dgrams_per_train = s->dgrams_per_train;
	/* a finished thread left its final figure; a running one is asked through its clock */
	o->src_cpu_ns = src_done || !p->src_started ? ZCS_GET(s->src_cpu_ns)
						    : thread_cpu_ns(p->src_thread);
	o->send_cpu_ns = send_done || !p->send_started ? ZCS_GET(s->send_cpu_ns)
						       : thread_cpu_ns(p->send_thread);
	o->send2_cpu_ns = !p->spread ? 0 : aside_done || !p->aside_started
					? ZCS_GET(p->aside_cpu_ns) : thread_cpu_ns(p->aside_thread);
	o->two_senders = p->spread;
	o->finished = src_done && send_done && aside_done;
}

int zcs_pipeline_join(struct zcs_pipeline *p, char *err, size_t errlen)
{
	if (p->src_started)
		pthread_join(p->src_thread, NULL);
	if (p->send_started)
		pthread_join(p->send_thread, NULL);
	if (p->aside_started)
		pthread_join(p->aside_thread, NULL);
	p->src_started = p->send_started = p->aside_started = false;
	if (p->src_err)
		return zcs_err(err, errlen, p->src_err, "%s", p->src_msg);
	if (p->send_err)
		return zcs_err(err, errlen, p->send_err, "%s", p->send_msg);
	if (p->aside_err)
		return zcs_err(err, errlen, p->aside_err, "%s", p->aside_msg);
	return 0;
}

void zcs_pipeline_destroy(struct zcs_pipeline *p)
{
	if (!p)
		return;
	zcs_sendpath_close(p->sp);
	zcs_sendpath_close(p->sp2);
	zcs_doorbell_close(&p->aside_db);
	zcs_doorbell_close(&p->aside_done_db);
	zcs_ring_free(&p->aside);
	zcs_ring_free(&p->free2);
	if (p->stat_fd >= 0)
		close(p->stat_fd);
	zcs_compress_close(&p->z);
	zcs_doorbell_close(&p->full_db);
	zcs_doorbell_close(&p->free_db);
	zcs_ring_free(&p->full);
	zcs_ring_free(&p->free);
	free(p->slot_settings);
	zcs_train_pool_free(&p->pool);
	zcs_pipeline_tune_fini(p);
	zcs_auth_wipe(&p->auth);
	zcs_auth_tagger_wipe(&p->tag_source);
	zcs_auth_tagger_wipe(&p->tag_send);
	zcs_fec_enc_free(&p->fec_enc);
	free(p->fec_pend);
	free(p->fec_pend_len);
	free(p);
}
