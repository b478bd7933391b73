/* SPDX-License-Identifier: MIT */
/* The control channel's messages: JSON requests (get, set), replies and change events, in host
 * form and as text, read defensively with jansson.  docs/protocol.md ("Control messages"). */
#ifndef ZCS_CTL_MSG_H
#define ZCS_CTL_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of struct zcs_ctl_settings.have: which fields a set gives, a reply changed, a server can
 * change.  Append only; the names are the JSON keys. */
#define ZCS_CTL_FREQ      0x01u  /* "freq": RX LO, Hz */
#define ZCS_CTL_RATE      0x02u  /* "rate": I/Q pairs per second */
#define ZCS_CTL_GAIN_MODE 0x04u  /* "gain_mode": "manual", "slow", "fast", "hybrid" */
#define ZCS_CTL_GAIN      0x08u  /* "gain": manual gain, dB (a JSON number) */
#define ZCS_CTL_BW        0x10u  /* "bw": RF bandwidth, Hz */
#define ZCS_CTL_CHANNEL   0x20u  /* "channel": "rx1" or "rx2" */
#define ZCS_CTL_FORMAT    0x40u  /* "format": "i8", "p12", "i16" */
#define ZCS_CTL_ALL       0x7fu
#define ZCS_CTL_NFIELDS 7

/* Name of one ZCS_CTL_* bit ("freq"), or NULL. */
const char *zcs_ctl_field_name(uint32_t bit);

struct zcs_ctl_settings {
	uint32_t have;          /* ZCS_CTL_* of the fields that are set */
	uint64_t freq, rate, bw;
	int32_t gain_mdb;       /* thousandths of a dB */
	uint8_t gain_mode;      /* enum zcs_gain_mode (common/wire/proto.h) */
	uint8_t channel;        /* 0 = rx1, 1 = rx2 */
	uint8_t format;         /* enum zcs_wire_format */
};

/* What the radio can do; ranges are inclusive.  A zero max means "not settable". */
struct zcs_ctl_caps {
	uint64_t freq_min, freq_max, rate_min, rate_max, bw_min, bw_max;
	int32_t gain_min_mdb, gain_max_mdb;
	uint8_t gain_modes;     /* bit (1 << enum zcs_gain_mode) per mode offered */
	uint8_t channels;       /* bit 0 rx1, bit 1 rx2 */
	uint8_t formats;        /* bit (1 << wire code) per format */
	uint32_t settable;      /* ZCS_CTL_* this server applies while streaming */
};

struct zcs_ctl_stream {
	uint32_t id;            /* stream id of the datagrams */
	uint8_t format;         /* wire format */
	uint64_t rate;
	char source[16];        /* "iio", "tone", ... */
	/* the live run's number (the keyed metadata's run, docs/protocol.md "Fresh runs"); 0: not
	 * said (a server before revision 5).  A reply over a fresh session proves the run live. */
	uint64_t run;
};

enum zcs_ctl_op {
	ZCS_CTL_OP_GET = 1,
	ZCS_CTL_OP_SET = 2,
};

struct zcs_ctl_request {
	uint32_t id;            /* echoed in the reply */
	int op;                 /* enum zcs_ctl_op */
	struct zcs_ctl_settings set; /* op SET: the fields given */
};

/* A reply to a request, or (event) a notice that settings changed, sent to every client. */
struct zcs_ctl_reply {
	bool event;
	uint32_t id;
	bool ok;
	char error[200];        /* !ok: why */
	char field[16];         /* !ok: the setting refused, "" when none in particular */
	struct zcs_ctl_settings now; /* every setting as the radio has it after the request */
	uint32_t changed;       /* ZCS_CTL_* the request (or the event) changed */
	bool has_since;
	uint64_t since_sample;  /* the stream's sample index from which `now` holds */
	bool has_caps;
	struct zcs_ctl_caps caps;
	bool has_stream;
	struct zcs_ctl_stream stream;
};

/* "manual", "slow", "fast", "hybrid" (enum zcs_gain_mode) and back (-1 if none). */
const char *zcs_ctl_gain_mode_name(int mode);
int zcs_ctl_gain_mode_from_name(const char *s);

/* Text writers: JSON (no NUL) into out; the length, or -EMSGSIZE when outlen is too small,
 * -ENOMEM. */
ssize_t zcs_ctl_msg_write_request(const struct zcs_ctl_request *r, char *out, size_t outlen);
ssize_t zcs_ctl_msg_write_reply(const struct zcs_ctl_reply *r, char *out, size_t outlen);

/* Parsers of len bytes at buf (need not be NUL terminated).  Anything but the documented shape
 * (a wrong type, an unknown op or setting, a value out of its field's range) is refused with
 * -EINVAL and a reason in err.  Unknown keys in a reply are ignored (later servers may add
 * some); in a request they are refused (a typo must not pass as "nothing to do"). */
int zcs_ctl_msg_parse_request(const uint8_t *buf, size_t len, struct zcs_ctl_request *out,
			      char *err, size_t errlen);
int zcs_ctl_msg_parse_reply(const uint8_t *buf, size_t len, struct zcs_ctl_reply *out,
			    char *err, size_t errlen);

/* One "name=value" of a command line into s: freq=433.92M, rate=2.4M, bw=1.5M, gain=40 (dB,
 * manual mode implied unless gain_mode is given), gain_mode=fast (or agc = slow),
 * channel=rx2, format=i8.  Returns 0 or -EINVAL with err set. */
int zcs_ctl_settings_parse_kv(struct zcs_ctl_settings *s, const char *kv, char *err,
			      size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
