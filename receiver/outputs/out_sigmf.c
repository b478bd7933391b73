// SPDX-License-Identifier: MIT
/* Output kind "sigmf:PATH": a SigMF recording, PATH.sigmf-data plus PATH.sigmf-meta, with a
 * capture segment per retune, new stream, or jump in the stream, and an annotation per gap.
 * The meta file is rewritten atomically once a second while it changes, so a crash leaves a
 * valid recording. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "output_kinds.h"
#include "zcs_config.h"

/* Bounds the metadata of a pathological stream (a gap every datagram for hours): at ~150 bytes
 * an entry the meta file stays under 10 MB each of captures and annotations, rewritten at most
 * once a second.  Entries past it are counted in core:description instead. */
#define SIGMF_MAX_ENTRIES (1u << 16)

struct sigmf_capture {
	uint64_t start, global, freq, time_ns;  /* freq, time_ns: 0 = unknown */
};

enum note_why { NOTE_GAP, NOTE_OVERRUN, NOTE_RATE };

struct sigmf_note {
	uint64_t start, count, value;            /* value: samples lost, or the new rate */
	enum note_why why;
};

struct sigmf_priv {
	char meta_path[4200], tmp_path[4200];
	const char *datatype;
	bool have_meta;
	struct zcs_meta meta;
	uint64_t rate;               /* the recording's core:sample_rate: the first stream's */
	struct sigmf_capture *caps;
	size_t ncaps, capcap;
	struct sigmf_note *notes;
	size_t nnotes, notecap;
	uint64_t unrecorded;         /* captures and annotations past SIGMF_MAX_ENTRIES */
	uint64_t file_pos;           /* pairs written to the data file */
	bool new_capture;            /* at the next data block: first data, retune, new stream */
	bool pending;                /* a capture at stream index pending_at (after a zero-filled gap) */
	uint64_t pending_at;
	uint64_t skip_until;         /* --gap drop: the stream may jump up to here, announced */
	bool dirty;
	bool disk_has_capture;       /* the meta file on disk describes at least one capture */
	bool write_failed;           /* the last rewrite failed: retry after a second */
	uint64_t written_ns;
};

static const char *sigmf_datatype(enum zcs_sample_type t)
{
	switch (t) {
	case ZCS_SAMPLE_CU8: return "cu8";
	case ZCS_SAMPLE_CS8: return "ci8";
	case ZCS_SAMPLE_CS16: return "ci16_le";
	case ZCS_SAMPLE_CF32: return "cf32_le";
	default: return NULL;
	}
}

static int sigmf_open(struct zcs_out *out, const char *arg, char *err, size_t errlen)
{
	struct sigmf_priv *const p = out->priv;
	char data_path[4200];
	int fd;

	if (!sigmf_datatype(out->type)) {
		/* native is the wire's own layout: p12 has no SigMF datatype at all */
		snprintf(err, errlen, "%s: SigMF needs -F cu8, cs8, cs16 or cf32 (not %s)",
			 out->name, zcs_sample_name(out->type));
		return -EINVAL;
	}
	if (!*arg || strlen(arg) > 4096) {
		snprintf(err, errlen, "%s: bad path", out->name);
		return -EINVAL;
	}
	p->datatype = sigmf_datatype(out->type);
	snprintf(p->meta_path, sizeof(p->meta_path), "%s.sigmf-meta", arg);
	snprintf(p->tmp_path, sizeof(p->tmp_path), "%s.sigmf-meta.tmp", arg);
	snprintf(data_path, sizeof(data_path), "%s.sigmf-data", arg);
	fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		const int e = errno;

		snprintf(err, errlen, "%s: %s: %s", out->name, data_path, strerror(e));
		return -e;
	}
	p->new_capture = true;
	p->dirty = true;
	zcs_out_attach(&out->sinks[0], fd, false);
	return 0;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t size)
{
	void *a;
	size_t c;

	if (n < *cap)
		return true;
	if (n >= SIGMF_MAX_ENTRIES)
		return false;
	c = *cap ? *cap * 2 : 64;
	a = realloc(*arr, c * size);
	if (!a)
		return false;
	*arr = a;
	*cap = c;
	return true;
}

/* The wall-clock time of stream index idx from the metadata's reference pair, 0 if unknown. */
static uint64_t time_of(const struct sigmf_priv *p, uint64_t idx)
{
	const struct zcs_meta *m = &p->meta;
	uint64_t d, ns;

	if (!p->have_meta || !m->ref_time_ns || !m->sample_rate)
		return 0;
	d = idx >= m->ref_sample ? idx - m->ref_sample : m->ref_sample - idx;
	/* split so d * 1e9 cannot overflow */
	ns = d / m->sample_rate * ZCS_NS_PER_SEC + d % m->sample_rate * ZCS_NS_PER_SEC / m->sample_rate;
	return idx >= m->ref_sample ? m->ref_time_ns + ns : m->ref_time_ns - ns;
}

/* The pair in the data file that holds stream index idx, by the current capture segment. */
static uint64_t file_index(const struct sigmf_priv *p, uint64_t idx)
{
	const struct sigmf_capture *c = p->ncaps ? &p->caps[p->ncaps - 1] : NULL;

	if (!c || idx < c->global)
		return p->file_pos;
	return c->start + (idx - c->global);
}

static void add_capture(struct sigmf_priv *p, uint64_t start, uint64_t global)
{
	struct sigmf_capture *c = p->ncaps ? &p->caps[p->ncaps - 1] : NULL;

	if (c && start < c->start)
		return;
	if (!c || start != c->start) {
		if (!grow((void **)&p->caps, &p->capcap, p->ncaps, sizeof(*p->caps))) {
			p->unrecorded++;
			p->dirty = true;
			return;
		}
		c = &p->caps[p->ncaps++];
	}
	c->start = start;
	c->global = global;
	c->freq = p->have_meta ? p->meta.center_freq : 0;
	c->time_ns = time_of(p, global);
	p->dirty = true;
}

static void add_note(struct sigmf_priv *p, uint64_t start, uint64_t count, uint64_t value,
		     enum note_why why)
{
	if (!grow((void **)&p->notes, &p->notecap, p->nnotes, sizeof(*p->notes))) {
		p->unrecorded++;
		p->dirty = true;
		return;
	}
	p->notes[p->nnotes++] = (struct sigmf_note){ start, count, value, why };
	p->dirty = true;
}

static int note_cmp(const void *a, const void *b)
{
	const struct sigmf_note *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void put_datetime(FILE *f, uint64_t ns)
{
	const time_t t = (time_t)(ns / ZCS_NS_PER_SEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	fprintf(f, ",\n      \"core:datetime\": \"%04d-%02d-%02dT%02d:%02d:%02d.%09lluZ\"",
		tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		(unsigned long long)(ns % ZCS_NS_PER_SEC));
}

/* Writes tmp, flushes it to disk, renames it over the meta file: readers see old or new. */
static int write_meta(struct sigmf_priv *p)
{
	FILE *f = fopen(p->tmp_path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (p->nnotes)
		qsort(p->notes, p->nnotes, sizeof(*p->notes), note_cmp);
	fprintf(f, "{\n  \"global\": {\n    \"core:datatype\": \"%s\",\n", p->datatype);
	fprintf(f, "    \"core:version\": \"1.0.0\",\n");
	if (p->rate)
		fprintf(f, "    \"core:sample_rate\": %llu,\n", (unsigned long long)p->rate);
	if (p->have_meta)
		/* sender names are NUL-terminated by the parser; quotes and controls are not
		 * expected in a host name, but never let one break the JSON */
		for (const char *c = p->meta.sender; *c; c++)
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
				goto no_hw;
	if (p->have_meta)
		fprintf(f, "    \"core:hw\": \"zcs-send %.16s on %.32s, source %.16s\",\n",
			p->meta.version, p->meta.sender, p->meta.source);
no_hw:
	if (p->unrecorded)
		fprintf(f, "    \"core:description\": \"%llu captures and annotations (gaps, "
			"retunes) past the first %u of each are not recorded here\",\n",
			(unsigned long long)p->unrecorded, SIGMF_MAX_ENTRIES);
	fprintf(f, "    \"core:recorder\": \"zcs-recv %s\"\n  },\n  \"captures\": [", ZCS_VERSION);
	for (size_t i = 0; i < p->ncaps; i++) {
		const struct sigmf_capture *c = &p->caps[i];

		fprintf(f, "%s\n    {\n      \"core:sample_start\": %llu,\n"
			"      \"core:global_index\": %llu", i ? "," : "",
			(unsigned long long)c->start, (unsigned long long)c->global);
		if (c->freq)
			fprintf(f, ",\n      \"core:frequency\": %llu", (unsigned long long)c->freq);
		if (c->time_ns)
			put_datetime(f, c->time_ns);
		fprintf(f, "\n    }");
	}
	fprintf(f, "\n  ],\n  \"annotations\": [");
	for (size_t i = 0; i < p->nnotes; i++) {
		const struct sigmf_note *n = &p->notes[i];

		fprintf(f, "%s\n    {\n      \"core:sample_start\": %llu,\n"
			"      \"core:sample_count\": %llu,\n      \"core:comment\": \"", i ? "," : "",
			(unsigned long long)n->start, (unsigned long long)n->count);
		if (n->why == NOTE_RATE)
			fprintf(f, "sample rate changed to %llu S/s; core:sample_rate is wrong from here",
				(unsigned long long)n->value);
		else
			fprintf(f, "%llu samples lost%s", (unsigned long long)n->value,
				n->why == NOTE_OVERRUN ? " (zcs-recv output overrun)" : "");
		fprintf(f, "\"\n    }");
	}
	fprintf(f, "\n  ]\n}\n");
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		ret = -errno;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(p->tmp_path, p->meta_path) != 0)
		ret = -errno;
	if (ret == 0) {
		p->dirty = false;
		p->disk_has_capture = p->ncaps > 0;
		p->written_ns = zcs_mono_ns();
	}
	return ret;
}

/* Rewrites the meta file when it changed, at most once a second; but at once while the file on
 * disk describes no capture yet, so a recording killed in its first second is usable too. */
static void maybe_write_meta(struct zcs_out *out, struct sigmf_priv *p)
{
	int ret;

	if (!p->dirty || ((p->disk_has_capture || p->write_failed) &&
			  zcs_mono_ns() - p->written_ns < ZCS_NS_PER_SEC))
		return;
	ret = write_meta(p);
	p->write_failed = ret < 0;
	if (ret < 0) {
		zcs_out_log(out, "%s: %s", p->meta_path, strerror(-ret));
		p->written_ns = zcs_mono_ns();   /* try again in a second, not in a loop */
	}
}

static long sigmf_write(struct zcs_sink *s, const struct zcs_block *b)
{
	struct sigmf_priv *p = s->out->priv;
	const uint64_t f = b->first_sample;
	long n;

	if (p->ncaps) {
		const struct sigmf_capture *c = &p->caps[p->ncaps - 1];
		const uint64_t expected = c->global + (p->file_pos - c->start);

		if (f != expected) {
			/* the stream jumped: dropped gaps were announced; anything else was lost here */
			const uint64_t known = p->skip_until > expected ? p->skip_until : expected;

			if (f > known)
				add_note(p, p->file_pos, 0, f - known, NOTE_OVERRUN);
			p->new_capture = true;
		}
	}
	if (p->new_capture) {
		add_capture(p, p->file_pos, f);
		p->new_capture = false;
	}
	if (p->pending) {
		if (p->pending_at < f) {
			p->pending = false;
		} else if (p->pending_at < f + b->pairs) {
			add_capture(p, p->file_pos + (p->pending_at - f), p->pending_at);
			p->pending = false;
		}
	}
	/* the meta before the samples: a data file with samples always has a meta describing
	 * them (up to a second behind), whenever the process dies */
	maybe_write_meta(s->out, p);
	n = zcs_out_write_block(s, b);
	if (n >= 0)
		p->file_pos += b->pairs;
	return n;
}

static void sigmf_event(struct zcs_sink *s, const struct zcs_block *b)
{
	struct sigmf_priv *p = s->out->priv;

	switch (b->type) {
	case ZCS_BLOCK_META:
		if (!p->have_meta) {
			p->rate = b->meta.sample_rate;
		} else {
			if (b->meta.center_freq != p->meta.center_freq ||
			    b->meta.stream_id != p->meta.stream_id)
				p->new_capture = true;
			if (b->meta.sample_rate != p->meta.sample_rate)
				add_note(p, p->file_pos, 0, b->meta.sample_rate, NOTE_RATE);
		}
		p->meta = b->meta;
		p->have_meta = true;
		p->dirty = true;
		break;
	case ZCS_BLOCK_GAP:
		if (b->filled) {
			/* the zeros are (or will be) in the file: annotate them, and start a capture
			 * where the real samples resume */
			const uint64_t resume = b->first_sample + b->pairs;
			const struct sigmf_capture *c = p->ncaps ? &p->caps[p->ncaps - 1] : NULL;

			add_note(p, file_index(p, b->first_sample), b->pairs, b->pairs, NOTE_GAP);
			if (c && resume >= c->global && resume - c->global <= p->file_pos - c->start) {
				add_capture(p, file_index(p, resume), resume);
			} else {
				p->pending = true;
				p->pending_at = resume;
			}
		} else {
			add_note(p, p->file_pos, 0, b->pairs, NOTE_GAP);
			if (b->first_sample + b->pairs > p->skip_until)
				p->skip_until = b->first_sample + b->pairs;
		}
		break;
	case ZCS_BLOCK_EOS:
		write_meta(p);
		break;
	default:
		break;
	}
	maybe_write_meta(s->out, p);
}

static void sigmf_idle(struct zcs_sink *s)
{
	maybe_write_meta(s->out, s->out->priv);
}

static void sigmf_close(struct zcs_out *out)
{
	struct sigmf_priv *p = out->priv;

	if (!p)
		return;
	if (out->sinks[0].fd >= 0 || p->ncaps)
		write_meta(p);
	free(p->caps);
	free(p->notes);
}

const struct zcs_out_ops zcs_out_sigmf_ops = {
	.prefix = "sigmf:",
	.priv_size = sizeof(struct sigmf_priv),
	.open = sigmf_open,
	.idle = sigmf_idle,
	.write = sigmf_write,
	.event = sigmf_event,
	.close = sigmf_close,
};
