// SPDX-License-Identifier: MIT
/* Output kind "sigmf:PATH": a SigMF recording, PATH.sigmf-data plus PATH.sigmf-meta, with a
 * capture segment per retune, new stream, or jump in the stream, and an annotation per gap; a
 * new recording (PATH-1, PATH-2, ...) from the exact index where the sample rate changes.  The
 * meta file is rewritten atomically once a second while it changes, so a crash leaves a valid
 * recording. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <pthread.h>

#include "clock.h"
#include "err.h"
#include "out_path.h"
#include "output_kinds.h"
#include "zcs_config.h"

/* Bounds the metadata of a pathological stream (a gap every datagram for hours): at ~150 bytes
 * an entry the meta file stays under 10 MB each of captures and annotations, rewritten at most
 * once a second.  Entries past it are counted in core:description instead. */
#define SIGMF_MAX_ENTRIES (1u << 16)

struct sigmf_capture {
	uint64_t start, global, freq, time_ns;  /* freq, time_ns: 0 = unknown */
};

enum note_why { NOTE_GAP, NOTE_OVERRUN };

struct sigmf_note {
	uint64_t start, count, value;            /* value: samples lost */
	enum note_why why;
};

/* Bytes of the tail a late rate change moves per read (the tail is at most what came between
 * the change and its belated announcement: 500 ms for an unkeyed stream). */
#define SIGMF_COPY_BYTES (64 * 1024)

struct sigmf_priv {
	char base[4100];             /* PATH as given */
	char meta_path[4200];        /* the current recording's: PATH[-N].sigmf-meta */
	unsigned int seq;            /* the current recording: 0 = PATH, N = PATH-N */
	const char *datatype;
	size_t pair_bytes;
	bool have_meta;
	struct zcs_meta meta;
	uint64_t rate;               /* the current recording's core:sample_rate */
	bool split;                  /* a new recording at stream index split_at (a rate change
				      * announced with its index), or at the next data (split_next:
				      * a new stream or an unannounced change), with split_meta */
	bool split_next;
	uint64_t split_at;
	struct zcs_meta split_meta;
	uint8_t copy[SIGMF_COPY_BYTES];
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
	bool chg;                    /* a retune's capture at stream index chg_at (metadata flag
				      * CHANGE), with frequency chg_freq */
	uint64_t chg_at, chg_freq;
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
	struct stat st;
	int fd, ret;

	if (!sigmf_datatype(out->type)) {
		/* native is the wire's own layout: p12 has no SigMF datatype at all */
		return zcs_err(err, errlen, -EINVAL,
			       "%s: SigMF needs -F cu8, cs8, cs16 or cf32 (not %s)", out->name,
			       zcs_sample_name(out->type));
	}
	if (!*arg || strlen(arg) > 4096)
		return zcs_err(err, errlen, -EINVAL, "%s: bad path", out->name);
	p->datatype = sigmf_datatype(out->type);
	/* every wire format converts to the -F type: the datatype never changes in a run */
	p->pair_bytes = zcs_sample_pair_bytes(out->type, 0);
	snprintf(p->base, sizeof(p->base), "%s", arg);
	snprintf(p->meta_path, sizeof(p->meta_path), "%s.sigmf-meta", arg);
	snprintf(data_path, sizeof(data_path), "%s.sigmf-data", arg);
	/* As root in a shared directory, a symlink or another user's file planted at either name
	 * is refused (out_path.h): the data file is opened so, the meta file checked now, since
	 * it is replaced by rename later (which never follows a link, but would remove it). */
	ret = zcs_out_path_check(out->name, p->meta_path, err, errlen);
	if (ret < 0)
		return ret;
	/* read too: a rate change announced late moves the samples after it to the next file */
	fd = zcs_out_path_open(out->name, data_path, O_RDWR | O_CREAT | O_TRUNC, &st, err, errlen);
	if (fd < 0)
		return fd;
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

static void add_capture_at(struct sigmf_priv *p, uint64_t start, uint64_t global, uint64_t freq)
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
	c->freq = freq;
	c->time_ns = time_of(p, global);
	p->dirty = true;
}

static void add_capture(struct sigmf_priv *p, uint64_t start, uint64_t global)
{
	add_capture_at(p, start, global, p->have_meta ? p->meta.center_freq : 0);
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

/* SigMF's core:datetime, ISO 8601 UTC with nanoseconds. */
static void datetime_str(char *buf, size_t len, uint64_t ns)
{
	const time_t t = (time_t)(ns / ZCS_NS_PER_SEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09lluZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned long long)(ns % ZCS_NS_PER_SEC));
}

/* json_integer takes a signed 64-bit value: sample indexes and Hz stay far below its limit. */
static json_t *jint(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v);
}

/* Sets key to v in obj, which then owns v; false when either is missing (out of memory). */
static bool put(json_t *obj, const char *key, json_t *v)
{
	return v && json_object_set_new(obj, key, v) == 0;
}

/* The whole meta document.  Strings from the wire were checked by the parser (UTF-8, no
 * controls); jansson escapes what JSON needs, so no sender name can break the file.  NULL when
 * out of memory. */
static json_t *meta_doc(struct sigmf_priv *p, uint64_t cut)
{
	json_t *const root = json_object(), *const global = json_object(),
	       *const caps = json_array(), *const notes = json_array();
	char text[256];
	bool ok;
	int bad = 0;

	/* each set_new takes its value, even when it fails: all three run, nothing leaks */
	bad |= json_object_set_new(root, "global", global);
	bad |= json_object_set_new(root, "captures", caps);
	bad |= json_object_set_new(root, "annotations", notes);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	ok = put(global, "core:datatype", json_string(p->datatype)) &&
	     put(global, "core:version", json_string("1.0.0"));
	if (ok && p->rate)
		ok = put(global, "core:sample_rate", jint(p->rate));
	if (ok && p->have_meta) {
		snprintf(text, sizeof(text), "zcs-send %.16s on %.32s, source %.16s",
			 p->meta.version, p->meta.sender, p->meta.source);
		/* json_string refuses what is not UTF-8 (a name cut inside a character): then
		 * the field is left out */
		json_object_set_new(global, "core:hw", json_string(text));
	}
	if (ok && p->unrecorded) {
		snprintf(text, sizeof(text), "%llu captures and annotations (gaps, retunes) past the "
			 "first %u of each are not recorded here", (unsigned long long)p->unrecorded,
			 SIGMF_MAX_ENTRIES);
		ok = put(global, "core:description", json_string(text));
	}
	snprintf(text, sizeof(text), "zcs-recv %s", ZCS_VERSION);
	ok = ok && put(global, "core:recorder", json_string(text));
	for (size_t i = 0; ok && i < p->ncaps && p->caps[i].start < cut; i++) {
		const struct sigmf_capture *c = &p->caps[i];
		json_t *const o = json_object();

		ok = o && json_array_append_new(caps, o) == 0 &&
		     put(o, "core:sample_start", jint(c->start)) &&
		     put(o, "core:global_index", jint(c->global));
		if (ok && c->freq)
			ok = put(o, "core:frequency", jint(c->freq));
		if (ok && c->time_ns) {
			datetime_str(text, sizeof(text), c->time_ns);
			ok = put(o, "core:datetime", json_string(text));
		}
	}
	/* sorted by start (write_meta): the first at or past the cut ends the list */
	for (size_t i = 0; ok && i < p->nnotes && p->notes[i].start < cut; i++) {
		const struct sigmf_note *n = &p->notes[i];
		json_t *const o = json_object();
		/* a gap that runs past the cut is told up to it here, the rest in the next file */
		const uint64_t count = n->count > cut - n->start ? cut - n->start : n->count;

		snprintf(text, sizeof(text), "%llu samples lost%s", (unsigned long long)n->value,
			 n->why == NOTE_OVERRUN ? " (zcs-recv output overrun)" : "");
		ok = o && json_array_append_new(notes, o) == 0 &&
		     put(o, "core:sample_start", jint(n->start)) &&
		     put(o, "core:sample_count", jint(count)) &&
		     put(o, "core:comment", json_string(text));
	}
	if (ok)
		return root;
	json_decref(root);
	return NULL;
}

/* All of len bytes; 0 or -1 with errno set. */
static int write_full(int fd, const void *buf, size_t len)
{
	const char *text = buf;

	while (len) {
		const ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The document and its final newline; 0 or -1 with errno set. */
static int write_text(int fd, const char *text, size_t len)
{
	return write_full(fd, text, len) == 0 && write_full(fd, "\n", 1) == 0 ? 0 : -1;
}

/* Writes a temporary file beside the meta file, flushes it to disk, renames it over the meta
 * file: readers see old or new.  The temporary's name is new each time and made with O_EXCL
 * (mkostemp): a file or symlink planted under any name is never opened, let alone truncated;
 * the rename replaces a symlink at the meta path itself, never what it points to. */
static int write_meta_upto(struct sigmf_priv *p, uint64_t cut)
{
	char tmp[sizeof(p->meta_path) + 8];
	char *text;
	json_t *doc;
	int fd, ret = 0;

	if (p->nnotes)
		qsort(p->notes, p->nnotes, sizeof(*p->notes), note_cmp);
	doc = meta_doc(p, cut);
	/* dumped in memory, then written at once: jansson's dumpfd makes a write() per token */
	text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", p->meta_path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	/* mkostemp makes it 0600; a recording is as readable as its data file */
	errno = 0;
	if (fchmod(fd, 0644) != 0 || write_text(fd, text, strlen(text)) != 0 || fsync(fd) != 0)
		ret = errno ? -errno : -EIO;
	if (close(fd) != 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, p->meta_path) != 0)
		ret = -errno;
	if (ret < 0) {
		unlink(tmp);
		goto out;
	}
	p->dirty = false;
	p->disk_has_capture = p->ncaps > 0;
	p->written_ns = zcs_mono_ns();
out:
	free(text);
	return ret;
}

static int write_meta(struct sigmf_priv *p)
{
	return write_meta_upto(p, UINT64_MAX);
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
		zcs_log_as(&out->set->log, out->name, "%s: %s", p->meta_path, strerror(-ret));
		p->written_ns = zcs_mono_ns();   /* try again in a second, not in a loop */
		/* a recording without its meta is not what was asked for: the run fails, though
		 * the samples keep going to the data file while it can take them */
		zcs_out_fail(out, -ret);
	}
}

/* The data file position of stream index idx in the current recording: where it was written,
 * or, for an index that was never written (a dropped gap, before the first capture), where the
 * first sample after it went.  Only for indexes before the next one expected. */
static uint64_t position_of(const struct sigmf_priv *p, uint64_t idx)
{
	for (size_t i = p->ncaps; i-- > 0;) {
		const struct sigmf_capture *c = &p->caps[i];
		const uint64_t end = i + 1 < p->ncaps ? p->caps[i + 1].start : p->file_pos;

		if (idx >= c->global)
			return idx - c->global < end - c->start ? c->start + (idx - c->global) : end;
	}
	return 0;
}

/* Opens the data file of recording seq: PATH-seq.sigmf-data.  Whatever is at that name (an
 * earlier run's file, or a symlink planted since we started) is unlinked, never followed or
 * truncated, and the file is then made anew with O_EXCL, so a symlink planted between the two
 * makes the open fail instead of being written through. */
static int open_next_data(const struct sigmf_priv *p, unsigned int seq, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s-%u.sigmf-data", p->base, seq);
	if (unlink(path) != 0 && errno != ENOENT)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	return fd < 0 ? -errno : fd;
}

/* Copies pairs [from, to) of the data file in to out's start, with the fixed buffer. */
static int copy_tail(struct sigmf_priv *p, int in, int out, uint64_t from, uint64_t to)
{
	uint64_t off = from * p->pair_bytes;
	const uint64_t end = to * p->pair_bytes;

	while (off < end) {
		const size_t want = end - off < sizeof(p->copy) ? (size_t)(end - off) : sizeof(p->copy);
		const ssize_t n = pread(in, p->copy, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EIO : -errno;
		if (write_full(out, p->copy, (size_t)n) != 0)
			return -errno;
		off += (uint64_t)n;
	}
	return 0;
}

/* Ends the current recording at data file position cut (stream index at, from which the
 * settings m hold; p->meta has m's rate, for the times) and opens the next, which starts with
 * sample 0 = stream index at, rate m->sample_rate.  Samples already written from cut on (a
 * change announced late) are moved there, with the captures and annotations that describe
 * them.  When nothing is before cut, the current recording simply takes the new rate.  0 or
 * -errno (news logged). */
static int roll(struct zcs_sink *s, struct sigmf_priv *p, uint64_t cut, uint64_t at,
		const struct zcs_meta *m)
{
	char path[sizeof(p->base) + 32];
	const uint64_t tail = p->file_pos - cut;
	size_t j = 0;
	int fd, old, ret;

	if (s->fd < 0)
		return -EBADF;  /* the recording has already ended for good (a write failed) */
	if (cut == 0) {
		p->rate = m->sample_rate;
		add_capture_at(p, 0, p->ncaps ? p->caps[0].global : at, m->center_freq);
		p->dirty = true;
		return 0;
	}
	if ((fd = open_next_data(p, p->seq + 1, path, sizeof(path))) < 0) {
		ret = fd;
		goto fail;
	}
	ret = copy_tail(p, s->fd, fd, cut, p->file_pos);
	if (ret == 0 && tail && ftruncate(s->fd, (off_t)(cut * p->pair_bytes)) != 0)
		ret = -errno;
	if (ret < 0) {
		close(fd);
		unlink(path);
		goto fail;
	}
	/* the recording before the change, complete: its data ends at the last sample before
	 * (write_meta_upto sorts the annotations, as the cut needs) */
	if ((ret = write_meta_upto(p, cut)) < 0) {
		close(fd);
		unlink(path);
		goto fail;
	}
	pthread_mutex_lock(&s->out->mu);
	old = s->fd;
	s->fd = fd;
	pthread_mutex_unlock(&s->out->mu);
	close(old);
	zcs_log_as(&s->out->set->log, s->out->name, "sample rate %llu S/s from stream index %llu: "
		   "%s ends there (%llu samples), %s-%u.sigmf-data follows",
		   (unsigned long long)m->sample_rate, (unsigned long long)at, p->meta_path,
		   (unsigned long long)cut, p->base, p->seq + 1);
	/* what lies past the cut, moved to the new file's positions */
	for (size_t i = 0; i < p->ncaps; i++) {
		if (p->caps[i].start < cut)
			continue;
		/* labelled with the settings before: the change, learnt late, holds for them */
		p->caps[j] = p->caps[i];
		p->caps[j].start -= cut;
		p->caps[j].freq = m->center_freq;
		p->caps[j].time_ns = time_of(p, p->caps[j].global);
		j++;
	}
	p->ncaps = j;
	j = 0;
	for (size_t i = 0; i < p->nnotes; i++) {
		const struct sigmf_note n = p->notes[i];
		const uint64_t from = n.start > cut ? n.start : cut;

		if (n.start + n.count <= cut && !(n.start == cut && n.count == 0))
			continue;
		p->notes[j] = n;
		p->notes[j].start = from - cut;
		p->notes[j].count = n.start + n.count - from;
		j++;
	}
	p->nnotes = j;
	p->seq++;
	snprintf(p->meta_path, sizeof(p->meta_path), "%s-%u.sigmf-meta", p->base, p->seq);
	p->file_pos = tail;
	p->rate = m->sample_rate;
	p->unrecorded = 0;
	p->disk_has_capture = false;
	p->write_failed = false;
	/* the first capture: sample 0 is the change's index (or, when that index was never
	 * written, the first written after it, whose capture moved here already), at its time */
	if (!p->ncaps || p->caps[0].start != 0) {
		memmove(p->caps + 1, p->caps, p->ncaps * sizeof(*p->caps));
		p->ncaps++;
		p->caps[0] = (struct sigmf_capture){ .start = 0, .global = at };
	}
	p->caps[0].freq = m->center_freq;
	p->caps[0].time_ns = time_of(p, p->caps[0].global);
	p->dirty = true;
	maybe_write_meta(s->out, p);
	return 0;
fail:
	zcs_log_as(&s->out->set->log, s->out->name, "%s: cannot start the recording for sample rate "
		   "%llu S/s: %s", path, (unsigned long long)m->sample_rate, strerror(-ret));
	zcs_out_fail(s->out, -ret);
	return ret;
}

/* Pairs of one recording, from stream index f: the part of a block on one side of a split. */
static long write_span(struct zcs_sink *s, struct sigmf_priv *p, uint64_t f, const uint8_t *data,
		       uint64_t pairs)
{
	int ret;

	if (p->split && (p->split_next || p->split_at <= f)) {
		const uint64_t at = p->split_next ? f : p->split_at;

		p->split = false;
		if ((ret = roll(s, p, p->split_next ? p->file_pos : position_of(p, at), at,
				&p->split_meta)) < 0)
			return ret;
	}
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
	if (p->chg && p->chg_at < f + pairs) {
		/* the retune's index, exactly.  One already passed (its announcement was believed
		 * late, or came late) is put where its samples went, when they are in this capture:
		 * a capture only labels the data, so it can be placed after the data is written */
		if (p->chg_at >= f)
			add_capture_at(p, p->file_pos + (p->chg_at - f), p->chg_at, p->chg_freq);
		else
			add_capture_at(p, file_index(p, p->chg_at), file_index(p, p->chg_at) ==
				       p->file_pos ? f : p->chg_at, p->chg_freq);
		p->chg = false;
	}
	if (p->pending) {
		if (p->pending_at < f) {
			p->pending = false;
		} else if (p->pending_at < f + pairs) {
			add_capture(p, p->file_pos + (p->pending_at - f), p->pending_at);
			p->pending = false;
		}
	}
	/* the meta before the samples: a data file with samples always has a meta describing
	 * them (up to a second behind), whenever the process dies */
	maybe_write_meta(s->out, p);
	ret = zcs_out_write_all(s, s->fd, data, (size_t)pairs * p->pair_bytes);
	if (ret < 0)
		return ret;
	p->file_pos += pairs;
	return 0;
}

static long sigmf_write(struct zcs_sink *s, const struct zcs_block *b)
{
	struct sigmf_priv *p = s->out->priv;
	uint64_t f = b->first_sample, pairs = b->pairs;
	const uint8_t *data = b->data;
	long ret;

	if (p->split && !p->split_next && p->split_at > f && p->split_at < f + pairs) {
		/* the block straddles a rate change: its head ends this recording */
		const uint64_t n = p->split_at - f;

		if ((ret = write_span(s, p, f, data, n)) < 0)
			return ret;
		f += n;
		data += n * p->pair_bytes;
		pairs -= n;
	}
	ret = write_span(s, p, f, data, pairs);
	return ret < 0 ? ret : (long)b->len;
}

static void sigmf_event(struct zcs_sink *s, const struct zcs_block *b)
{
	struct sigmf_priv *p = s->out->priv;

	switch (b->type) {
	case ZCS_BLOCK_META:
		if (!p->have_meta) {
			p->rate = b->meta.sample_rate;
		} else if (b->meta.sample_rate != (p->split ? p->split_meta.sample_rate : p->rate)) {
			/* a new recording: core:sample_rate is global in SigMF.  A change announced
			 * with its index (flag CHANGE) starts it there; one whose index already went
			 * by (believed late: an unkeyed receiver waits 500 ms) moves what came since.
			 * A new stream, or a change learnt without its index, starts it at the next
			 * data.  A second change before the first's index came (not seen from one
			 * sender: its announcements come just before their data) replaces it. */
			const bool indexed = b->meta.stream_id == p->meta.stream_id &&
					     (b->meta.flags & ZCS_META_FLAG_CHANGE);
			const struct sigmf_capture *c = p->ncaps ? &p->caps[p->ncaps - 1] : NULL;
			const uint64_t next = c ? c->global + (p->file_pos - c->start) : 0;

			p->split = true;
			p->split_next = !indexed;
			p->split_at = b->meta.ref_sample;
			p->split_meta = b->meta;
			if (indexed && c && b->meta.ref_sample < next) {
				p->split = false;
				p->meta = b->meta;
				(void)roll(s, p, position_of(p, b->meta.ref_sample),
					   b->meta.ref_sample, &b->meta);
			}
		} else {
			if (b->meta.stream_id != p->meta.stream_id) {
				p->new_capture = true;
			} else if ((b->meta.flags & ZCS_META_FLAG_CHANGE) &&
				   b->meta.center_freq != p->meta.center_freq) {
				/* a retune announced with its index: the capture starts there, not
				 * at whatever block comes next */
				p->chg = true;
				p->chg_at = b->meta.ref_sample;
				p->chg_freq = b->meta.center_freq;
			} else if (b->meta.center_freq != p->meta.center_freq) {
				p->new_capture = true;
			}
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
	case ZCS_BLOCK_EOS: {
		const int ret = write_meta(p);

		if (ret < 0) {
			zcs_log_as(&s->out->set->log, s->out->name, "%s: %s", p->meta_path, strerror(-ret));
			zcs_out_fail(s->out, -ret);
		}
		break;
	}
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
	.once = true,
	.priv_size = sizeof(struct sigmf_priv),
	.open = sigmf_open,
	.idle = sigmf_idle,
	.write = sigmf_write,
	.event = sigmf_event,
	.close = sigmf_close,
};
