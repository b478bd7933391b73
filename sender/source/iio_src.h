/* SPDX-License-Identifier: MIT */
/* The libiio source's private state, shared by its three files: source_iio.c (open, stream),
 * source_iio_tune.c (settings from the control channel, the radio's capabilities) and
 * source_iio_radio.c (the radio as both use it: channels, settings read back, the block fitted
 * to a rate).  Calls go one way: the stream applies its first settings through the tune path,
 * and both read the radio back and refit the block through source_iio_radio.c, which calls
 * neither. */
#ifndef ZCS_IIO_SRC_H
#define ZCS_IIO_SRC_H

#include <iio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl_msg.h"
#include "source.h"

#define RX_DEV "cf-ad9361-lpc"
#define PHY_DEV "ad9361-phy"

struct iio_src {
	struct iio_context *ctx;
	struct iio_device *rx;          /* cf-ad9361-lpc */
	struct iio_device *phy;         /* ad9361-phy */
	struct iio_channel *ch_i, *ch_q;/* the enabled pair on cf-ad9361-lpc */
	struct iio_channel *phy_in;     /* ad9361-phy input voltageN of the chosen receiver */
	struct iio_channel *phy_in0;    /* ad9361-phy input voltage0: the shared rate lives here */
	struct iio_channel *lo;         /* ad9361-phy altvoltage0 (RX_LO) */
	struct iio_channel *lpc_rate;   /* cf-ad9361-lpc voltage0, when it has sampling_frequency */
	bool lpc_dec8;                  /* ... and offers rate/8 (the Pluto's FPGA decimator): the
					 * rate delivered is then this one, not ad9361-phy's */
	bool fir_ctl;                   /* ad9361-phy has what libad9361's FIR calls use unchecked
					 * (zcs_iio_fir_ctl): they may be called */
	struct iio_buffer *buf;
	size_t buf_pairs;
	const int16_t *next;            /* first pair not yet handed out */
	size_t left;                    /* pairs left in the current refill */
	bool discont;                   /* flag the next read */
	bool cut_short;                 /* the last refill came back short: flag the next one */
	/* A channel switch (source_iio_tune.c): the control thread asks, the source thread
	 * rebuilds the buffer on that receiver at its next refill; -1 = none asked. */
	_Atomic int want_channel;
	int channel;                    /* the receiver the buffer holds now (source thread) */
	/* A rate far from the one the block was sized for: the control thread asks for a buffer
	 * of this many pairs, the source thread rebuilds at its next refill; 0 = none asked. */
	_Atomic size_t want_pairs;
	size_t pairs_asked;             /* the block last asked for (control thread) */
};

/* libiio's default count of kernel buffers (blocks in the DMA queue); we leave it as it is */
#define ZCS_IIO_KERNEL_BUFFERS 4u

/* --- source_iio_radio.c: the radio as both other files use it --- */

/* Finds receiver ch's I/Q pair (voltage2ch, voltage2ch+1) on cf-ad9361-lpc; with enable, makes
 * it the only pair enabled (for the next buffer).  Returns 0 or -errno with err set. */
int zcs_iio_rx_channels(struct iio_src *p, int ch, bool enable, char *err, size_t errlen);

/* "manual" etc. as the AD9361 driver spells them, indexed by enum zcs_gain_mode. */
extern const char *const zcs_iio_gain_mode_names[4];

/* Reads every setting back; a setting the device lacks reads as 0 / unknown.  Returns 0, or
 * -EIO when even the sample rate cannot be read. */
int zcs_iio_read_info(const struct iio_src *p, uint8_t channel, struct zcs_radio_info *info);

/* The block for rate: about 1/20 s, within [4096, 1 Mi] pairs, a multiple of 1024. */
size_t zcs_iio_block_pairs(uint64_t rate);

/* After a rate change (the control channel's, deferred: it holds from the rebuilt buffer; or
 * another program's): asks the source thread for a buffer of the new rate's block when the
 * block it has is more than a factor of 2 off, and sets the refill time-out for the rate.
 * Called under the pipeline's tuning lock. */
void zcs_iio_fit_block(struct zcs_source *s, struct iio_src *p, uint64_t rate, bool deferred);

/* --- source_iio_tune.c: settings from the control channel, the radio's capabilities --- */

/* What this board and build can do for rates (enum zcs_iio_rate_caps, iio_rate.h). */
unsigned int zcs_iio_rate_caps(const struct iio_src *p);

/* Whether phy has what libad9361's FIR calls (ad9361_get_trx_fir_enable, _set_ and
 * ad9361_set_bb_rate) use without a check: the FIR enable, as the device attribute
 * in_out_voltage_filter_fir_en or the input channel "out"'s voltage_filter_fir_en (libad9361
 * falls back to that channel, found or not: a NULL channel crashes it), and the output channel
 * voltage0.  Its other reads fail cleanly where they find nothing. */
bool zcs_iio_fir_ctl(const struct iio_device *phy);

/* Makes the capture core deliver rate, as iio_rate.h plans it: the AD9361's rate written, or set
 * by libad9361's ad9361_set_bb_rate with its FIR, then cf-ad9361-lpc's decimation (/1 or /8).
 * Returns 0, or -errno with err set: -ERANGE (nothing written) for a rate this board cannot
 * make, naming the rates it can; the radio's refusal otherwise. */
int zcs_iio_set_rate(struct iio_src *p, uint64_t rate, char *err, size_t errlen);

/* The control channel's ops. */
int zcs_iio_tune(struct zcs_source *s, const struct zcs_ctl_settings *want, uint32_t *refused,
		 char *err, size_t errlen);
void zcs_iio_caps(struct zcs_source *s, struct zcs_ctl_caps *caps);

#endif
