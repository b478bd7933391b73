/* SPDX-License-Identifier: MIT */
/* Sample sources for zcs-send: the libiio radio, synthetic tone and noise, files and stdin.
 * A source hands out radio-layout samples (int16 12-bit I/Q pairs) by pointer, so a libiio
 * buffer is converted straight into the wire trains without another copy. */
#ifndef ZCS_SOURCE_H
#define ZCS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "ctl_msg.h"
#include "proto.h"

/* Radio settings, as read back from the device (or as a synthetic source pretends). */
struct zcs_radio_info {
	uint64_t sample_rate;  /* Hz */
	uint64_t center_freq;  /* Hz, 0 when not a radio */
	uint64_t bandwidth;    /* Hz, 0 when unknown */
	int32_t gain_mdb;      /* thousandths of a dB */
	uint8_t gain_mode;     /* enum zcs_gain_mode (common/wire/proto.h) */
	uint8_t channel;       /* 0 = rx1, 1 = rx2 */
};

/* What the user asked for; a field left 0 / NULL is left as the device has it. */
struct zcs_source_config {
	const char *kind;      /* "iio", "tone", "noise", "file", "stdin" */
	const char *uri;       /* libiio URI, default "local:" */
	const char *path;      /* file path for "file" */
	int file_type;         /* enum zcs_import_type (its first four are the zcs_sample_type values)
				* of a file/stdin, -1 = by suffix (default cs16) */
	bool loop;             /* file: start again at the end */
	uint64_t rate;         /* sample rate to set (iio) or to announce (synthetic, file) */
	uint64_t freq;         /* iio: RX LO frequency to set */
	uint64_t bw;           /* iio: RF bandwidth to set */
	bool gain_set;         /* iio: gain given */
	int32_t gain_mdb;      /* iio: manual gain */
	int gain_mode;         /* iio: enum zcs_gain_mode, or -1 = leave */
	int channel;           /* 0 = rx1, 1 = rx2 */
	double tone_hz;        /* tone: frequency, may be negative */
	double amplitude;      /* tone/noise: 0..1 of full scale */
	bool noise;            /* tone: add noise */
	uint64_t seed;         /* tone/noise: seed of the deterministic generator */
	size_t block_pairs;    /* preferred pairs per read; 0 = the source decides */
};

/* Events a read reports besides samples. */
#define ZCS_SRC_DISCONT 0x01  /* samples were lost before this block (buffer rebuilt, overflow) */
#define ZCS_SRC_RETUNED 0x02  /* zcs_radio_info changed: fetch it and send new metadata */
/* The block is the first of a buffer rebuilt for a change the control channel asked for (a
 * channel switch, tune_deferred below): the change holds from its first pair. */
#define ZCS_SRC_REBUILT 0x04

struct zcs_source;

struct zcs_source_ops {
	const char *name;
	/* Fills s->priv; returns 0 or -errno with a message in err. */
	int (*open)(struct zcs_source *s, const struct zcs_source_config *cfg, char *err, size_t errlen);
	/* Up to max_pairs pairs by pointer (valid until the next read).  Returns pairs > 0, 0 at the
	 * end of the source, or -errno with err set.  *events gets ZCS_SRC_* bits.
	 * -EAGAIN (err not set) means "nothing yet, call again": a source waiting on a pipe or a
	 * device returns it now and then (~5 times a second) so the caller can notice a stop. */
	ssize_t (*read)(struct zcs_source *s, const int16_t **pairs, size_t max_pairs,
			uint32_t *events, char *err, size_t errlen);
	/* Reads the radio's settings back; may be called about once a second to notice retuning
	 * by other programs (returns 1 when they changed, 0 when not, -errno).  NULL for a source
	 * whose settings never change after open (tone, noise, files): s->info then holds them. */
	int (*poll_info)(struct zcs_source *s, struct zcs_radio_info *info);
	void (*close)(struct zcs_source *s);
	/* The control channel's (sender/control/).  Both are NULL for a source that is not a radio:
	 * zcs_source_tune_meta() and zcs_source_caps_meta() then answer for it.
	 * tune: applies every field of want (together: all are checked against the radio's ranges
	 * before any is written), then reads every setting back into s->info.  Called from the
	 * control thread while the pipeline's tuning lock keeps poll_info out.  Returns 0, or
	 * -errno with err saying why and *refused the ZCS_CTL_* bit of the setting refused (0 when
	 * none in particular); s->info then holds what the radio has after the failure. */
	int (*tune)(struct zcs_source *s, const struct zcs_ctl_settings *want, uint32_t *refused,
		    char *err, size_t errlen);
	/* What the radio can do (ranges read from its *_available attributes). */
	void (*caps)(struct zcs_source *s, struct zcs_ctl_caps *caps);
};

struct zcs_source {
	const struct zcs_source_ops *ops;
	void *priv;
	struct zcs_radio_info info;   /* filled by open, refreshed by poll_info */
	bool paced_by_device;         /* true for iio: the radio sets the rate, no sleeps */
	uint64_t discontinuities;     /* counted by the source */
	/* Most pairs the radio may have captured but not yet handed out at any moment (the DMA
	 * queue: kernel buffers x block), the bound on how late a retune's first new sample can
	 * follow the index announced for it; 0 for sources that are not a radio. */
	uint64_t tune_lag_pairs;
	/* Set by ops->tune when the change it wrote holds only from a block the source thread
	 * reads later, which reports ZCS_SRC_REBUILT (a channel switch: the iio source rebuilds its
	 * buffer on the other receiver at its next refill).  The pipeline clears it. */
	bool tune_deferred;
};

/* For sources that are not a radio (tone, noise, files): the rate they announce is the one asked
 * for, nothing else is known, and the pipeline paces them. */
static inline void zcs_source_set_unpaced_info(struct zcs_source *s, uint64_t rate)
{
	memset(&s->info, 0, sizeof(s->info));
	s->info.sample_rate = rate;
	s->info.gain_mode = ZCS_GAIN_UNKNOWN;
	s->paced_by_device = false;
}

/* Settings of a source that is not a radio: the centre frequency is taken as metadata (a file
 * recorded at some frequency, a tone standing in for one); everything else is refused with a
 * reason.  Returns 0 or -EOPNOTSUPP with err and *refused set. */
int zcs_source_tune_meta(struct zcs_source *s, const struct zcs_ctl_settings *want,
			 uint32_t *refused, char *err, size_t errlen);
void zcs_source_caps_meta(const struct zcs_source *s, struct zcs_ctl_caps *caps);

extern const struct zcs_source_ops zcs_source_tone_ops;   /* tone and noise */
extern const struct zcs_source_ops zcs_source_file_ops;   /* file and stdin */
extern const struct zcs_source_ops zcs_source_iio_ops;    /* only when ZCS_HAVE_IIO */

#endif
