// SPDX-License-Identifier: MIT
/* Output kind "rtl_tcp:[ADDR:]PORT": an rtl_tcp server for GQRX (gr-osmosdr rtl_tcp=), SDR++,
 * CubicSDR and rtl_433.  Greets with "RTL0", then streams cu8 whatever the set's sample type
 * (converted on this writer thread).  Clients' tuning commands go to the tune hook (zcs-recv
 * --control forwards them to the board's control channel) when the allow hook admits the client;
 * otherwise they are logged and counted only. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "formats.h"
#include "output_kinds.h"

#define CMD_LEN 5
/* Commands logged per client: a client's start-up and some retuning.  One that sends without
 * pause must not flood zcs-recv's standard error: the rest are counted only. */
#define CMDS_LOGGED 32

struct rtltcp_client {
	uint8_t cmd[CMD_LEN];    /* a command split across reads */
	size_t have;
	uint64_t ncmds;          /* commands this client sent so far */
	uint32_t freq_high;      /* the last set_tuner_freq_high (0x56) */
	bool heard;              /* its settings may reach the tune hook (the allow hook said so) */
	bool unheard_said;       /* "not forwarded" said for this client */
	/* commands not forwarded, by code (the last slot: codes without a name), reported by name
	 * when the client leaves: past CMDS_LOGGED they are not logged one by one */
	uint64_t ignored[0x57 + 1];
	uint8_t cu8[ZCS_BLOCK_BYTES];  /* conversion buffer: cu8 is no larger than any type */
};

static const char *const cmd_names[] = {
	[0x01] = "set_freq",        [0x02] = "set_sample_rate",  [0x03] = "set_gain_mode",
	[0x04] = "set_gain",        [0x05] = "set_freq_correction", [0x06] = "set_if_gain",
	[0x07] = "set_test_mode",   [0x08] = "set_agc_mode",     [0x09] = "set_direct_sampling",
	[0x0a] = "set_offset_tuning", [0x0b] = "set_rtl_xtal",   [0x0c] = "set_tuner_xtal",
	[0x0d] = "set_gain_by_index", [0x0e] = "set_bias_tee",
	[0x40] = "set_bandwidth",   [0x56] = "set_tuner_freq_high",
};

#define NCMD_NAMES (sizeof(cmd_names) / sizeof(cmd_names[0]))
_Static_assert(NCMD_NAMES + 1 == sizeof(((struct rtltcp_client *)0)->ignored) / sizeof(uint64_t),
	       "a tally slot per named code, and one for the rest");

const char *zcs_rtltcp_cmd_name(uint8_t cmd)
{
	if (cmd < NCMD_NAMES && cmd_names[cmd])
		return cmd_names[cmd];
	return "unknown";
}

/* The R820T's gains in tenths of dB, in the order its driver lists them: what rtl_tcp's
 * set_gain_by_index (0x0d) indexes, and what SDR++ sends instead of set_gain.  The greeting
 * claims this tuner with ZCS_RTLTCP_R820T_GAINS steps, so a client's index means these. */
static const uint16_t r820t_gains[ZCS_RTLTCP_R820T_GAINS] = {
	0, 9, 14, 27, 37, 77, 87, 125, 144, 157, 166, 197, 207, 229, 254,
	280, 297, 328, 338, 364, 372, 386, 402, 421, 434, 439, 445, 480, 496,
};

/* set_tuner_freq_high: the high 32 bits of the next set_freq (rtl_tcp forks' extension for
 * tuners above 4.29 GHz) */
#define CMD_FREQ_HIGH 0x56
#define CMD_SET_BANDWIDTH 0x40
#define CMD_GAIN_BY_INDEX 0x0d

int zcs_rtltcp_cmd_setting(uint8_t cmd, uint32_t param, uint32_t freq_high,
			   struct zcs_ctl_settings *want)
{
	/* set_gain's parameter is a signed 32-bit count of tenths of dB (librtlsdr's int gain) */
	const int32_t tenths = param > INT32_MAX ? -(int32_t)(~param) - 1 : (int32_t)param;

	switch (cmd) {
	case 0x01:
		want->freq = (uint64_t)freq_high << 32 | param;
		want->have |= ZCS_CTL_FREQ;
		return 1;
	case 0x02:
		want->rate = param;
		want->have |= ZCS_CTL_RATE;
		return 1;
	case 0x03:
		want->gain_mode = param ? ZCS_GAIN_MANUAL : ZCS_GAIN_SLOW;
		want->have |= ZCS_CTL_GAIN_MODE;
		/* automatic gain takes no manual value: one asked before is void */
		if (!param)
			want->have &= ~(uint32_t)ZCS_CTL_GAIN;
		return 1;
	case 0x04:
		/* 0x7fffffff * 100 in 32 bits was -100 mdB: the board took -0.1 dB */
		if (tenths < -ZCS_RTLTCP_GAIN_MAX_TENTHS || tenths > ZCS_RTLTCP_GAIN_MAX_TENTHS)
			return -ERANGE;
		want->gain_mdb = tenths * 100;
		want->gain_mode = ZCS_GAIN_MANUAL;
		want->have |= ZCS_CTL_GAIN | ZCS_CTL_GAIN_MODE;
		return 1;
	case CMD_GAIN_BY_INDEX:
		/* rtl_tcp itself indexes its table unchecked */
		if (param >= ZCS_RTLTCP_R820T_GAINS)
			return -ERANGE;
		return zcs_rtltcp_cmd_setting(0x04, r820t_gains[param], freq_high, want);
	case CMD_SET_BANDWIDTH:
		want->bw = param;
		want->have |= ZCS_CTL_BW;
		return 1;
	default:
		return 0;
	}
}

/* "RTL0", tuner type and gain count, both u32 big-endian (rtl_tcp's dongle_info_t).  We claim an
 * R820T, the tuner clients know best, with its 29 gain steps. */
void zcs_rtltcp_greeting(uint8_t out[ZCS_RTLTCP_GREETING_LEN])
{
	const uint32_t tuner = ZCS_RTLTCP_TUNER_R820T, gains = ZCS_RTLTCP_R820T_GAINS;

	memcpy(out, "RTL0", 4);
	for (int i = 0; i < 4; i++) {
		out[4 + i] = (uint8_t)(tuner >> (24 - 8 * i));
		out[8 + i] = (uint8_t)(gains >> (24 - 8 * i));
	}
}

/* The conversion kernels, chosen once for the process: the first writer thread to need them
 * fills the table, the others wait for it (pthread_once), and nothing writes it afterwards. */
static struct zcs_kernels kernels;
static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;

static void kernels_init(void)
{
	zcs_kernels_init(&kernels, ZCS_ISA_BEST);
}

/* cu8 of the 12-bit value v, the rounding and centre of -F cu8 (zcs_s8_of_v, formats.h). */
static uint8_t cu8_of12(int v)
{
	return (uint8_t)(zcs_s8_of_v(v) + 128);
}

void zcs_rtltcp_to_cu8(uint8_t *dst, const uint8_t *src, size_t pairs, enum zcs_sample_type t,
		       size_t pair_bytes)
{
	const size_t n = 2 * pairs;

	switch (t) {
	case ZCS_SAMPLE_CU8:
		if (dst != src)
			memcpy(dst, src, n);
		return;
	case ZCS_SAMPLE_CS16:
		for (size_t i = 0; i < n; i++)   /* v << 4 as int16 */
			dst[i] = cu8_of12((int16_t)zcs_get_le16(src + 2 * i) >> 4);
		return;
	case ZCS_SAMPLE_CF32:
		for (size_t i = 0; i < n; i++) {
			const uint32_t w = zcs_get_le32(src + 4 * i);
			float f;

			memcpy(&f, &w, sizeof(f));
			dst[i] = cu8_of12((int)lrintf(f * 2048.0f));
		}
		return;
	case ZCS_SAMPLE_NATIVE: {
		/* the wire's own layout: the formats kernels know each one (p12's bit layout lives
		 * there only), and the pair size tells which it is */
		const int of = zcs_wire_of_pair_bytes(pair_bytes);
		const int wire = of ? of : ZCS_WIRE_I8;

		pthread_once(&kernels_once, kernels_init);
		kernels.unpack[wire][ZCS_SAMPLE_CU8](dst, src, pairs);
		return;
	}
	case ZCS_SAMPLE_CS8:
		for (size_t i = 0; i < n; i++)
			dst[i] = (uint8_t)(src[i] ^ 0x80);
		return;
	}
}

static void on_cmd(struct zcs_sink *s, struct rtltcp_client *cl, const uint8_t *c)
{
	const uint32_t param = (uint32_t)c[1] << 24 | (uint32_t)c[2] << 16 | (uint32_t)c[3] << 8 | c[4];
	const struct zcs_outputs *set = s->out->set;
	struct zcs_ctl_settings want = { 0 };
	const bool logged = ++cl->ncmds <= CMDS_LOGGED;
	struct zcs_meta m;
	int ret = 0;

	atomic_fetch_add(&s->out->commands, 1);
	if (cl->ncmds == CMDS_LOGGED + 1)
		zcs_log_as(&set->log, s->out->name,
			   "client %s: further commands are counted, not logged", s->peer);
	if (c[0] == CMD_FREQ_HIGH) {
		cl->freq_high = param;
		return;
	}
	if (set->tune && !cl->heard && zcs_rtltcp_cmd_setting(c[0], param, cl->freq_high, &want)) {
		/* a setting from a client that may not tune: it keeps its samples, nothing else */
		atomic_fetch_add(&s->out->not_allowed, 1);
		cl->ignored[c[0] < NCMD_NAMES && cmd_names[c[0]] ? c[0] : NCMD_NAMES]++;
		if (!cl->unheard_said)
			zcs_log_as(&set->log, s->out->name, "client %s: its settings are not forwarded "
				   "(%s %u the first): rtl_tcp has no authentication, so only clients "
				   "on loopback or in --control-allow may tune the board; it still gets "
				   "the samples", s->peer, zcs_rtltcp_cmd_name(c[0]), param);
		cl->unheard_said = true;
		return;
	}
	if (set->tune && (ret = zcs_rtltcp_cmd_setting(c[0], param, cl->freq_high, &want)) > 0) {
		/* the hook merges a burst (a client's start-up sends ten) into one set */
		set->tune(set->tune_ctx, &want);
		atomic_fetch_add(&s->out->forwarded, 1);
		if (logged)
			zcs_log_as(&set->log, s->out->name, "client %s: %s %u forwarded", s->peer,
				   zcs_rtltcp_cmd_name(c[0]), param);
		return;
	}
	cl->ignored[c[0] < NCMD_NAMES && cmd_names[c[0]] ? c[0] : NCMD_NAMES]++;
	if (!logged)
		return;
	if (ret == -ERANGE) {
		zcs_log_as(&set->log, s->out->name, "client %s: %s %u refused: out of range (%s), "
			   "not forwarded", s->peer, zcs_rtltcp_cmd_name(c[0]), param,
			   c[0] == CMD_GAIN_BY_INDEX ? "the R820T's gain table has 29 entries, 0..28"
						     : "tenths of dB, -1000..1000 as a signed number");
		return;
	}
	if (set->tune) {
		zcs_log_as(&set->log, s->out->name, "client %s: %s %u ignored (not a setting the "
			   "control channel forwards)", s->peer, zcs_rtltcp_cmd_name(c[0]), param);
		return;
	}
	if (c[0] == 0x02 && zcs_out_last_meta(s->out, &m) && m.sample_rate != param) {
		zcs_log_as(&set->log, s->out->name,
			   "client %s: set_sample_rate %u ignored: the stream runs at "
			   "%llu S/s (rates are set on the board, or by zcs-recv --control)", s->peer,
			   param, (unsigned long long)m.sample_rate);
		return;
	}
	zcs_log_as(&set->log, s->out->name,
		   "client %s: %s %u ignored (tuning stays with the board without zcs-recv "
		   "--control)", s->peer, zcs_rtltcp_cmd_name(c[0]), param);
}

/* Logs what a client's commands were not forwarded, by name ("set_freq_correction 1,
 * set_bias_tee 2"), and starts the tally again: when it leaves, and at close for one still
 * attached. */
static void report_ignored(struct zcs_sink *s, struct rtltcp_client *cl)
{
	char list[512];
	size_t len = 0;
	uint64_t total = 0;

	list[0] = 0;
	for (size_t i = 0; i <= NCMD_NAMES; i++) {
		if (!cl->ignored[i])
			continue;
		total += cl->ignored[i];
		if (len < sizeof(list)) {
			const int n = snprintf(list + len, sizeof(list) - len, "%s%s %" PRIu64,
					       len ? ", " : "",
					       i < NCMD_NAMES ? cmd_names[i] : "unknown",
					       cl->ignored[i]);

			len += n > 0 ? (size_t)n : 0;
		}
		cl->ignored[i] = 0;
	}
	if (total)
		zcs_log_as(&s->out->set->log, s->out->name, "client %s: %" PRIu64 " commands "
			   "ignored: %s", s->peer, total, list);
}

/* Collects the 5-byte commands in what the client sent, one possibly split across reads. */
static void take_cmds(struct zcs_sink *s, const uint8_t *buf, size_t len)
{
	struct rtltcp_client *c = s->kpriv;

	for (size_t i = 0; i < len; i++) {
		c->cmd[c->have++] = buf[i];
		if (c->have == CMD_LEN) {
			on_cmd(s, c, c->cmd);
			c->have = 0;
		}
	}
}

static int rtltcp_greet(struct zcs_sink *s)
{
	struct rtltcp_client *c = s->kpriv;
	const struct zcs_outputs *set = s->out->set;
	uint8_t g[ZCS_RTLTCP_GREETING_LEN];
	struct zcs_addr peer = { .len = sizeof(peer.ss) };

	c->have = 0;
	c->ncmds = 0;
	c->freq_high = 0;
	/* asked once, of the address the connection has: an unknown one is not heard */
	c->heard = !set->tune_allow ||
		   (getpeername(s->fd, (struct sockaddr *)&peer.ss, &peer.len) == 0 &&
		    set->tune_allow(set->tune_ctx, &peer));
	c->unheard_said = false;
	memset(c->ignored, 0, sizeof(c->ignored));
	zcs_rtltcp_greeting(g);
	s->is_socket = true;
	return zcs_out_write_all(s, s->fd, g, sizeof(g));
}

static void rtltcp_idle(struct zcs_sink *s)
{
	if (!zcs_out_tcp_check(s, take_cmds))
		report_ignored(s, s->kpriv);
}

static long rtltcp_write(struct zcs_sink *s, const struct zcs_block *b)
{
	struct rtltcp_client *c = s->kpriv;
	const size_t pair = b->pairs ? b->len / b->pairs : 0;
	const uint8_t *src = b->data;
	int ret;

	if (!zcs_out_tcp_check(s, take_cmds)) {
		/* The client left: the check detached it (and logged), so the framework no longer
		 * counts this block; it is unread like the rest of the queue detach discarded. */
		atomic_fetch_add(&s->out->unread, 1);
		report_ignored(s, c);
		return -ENOTCONN;
	}
	if (s->out->type != ZCS_SAMPLE_CU8) {
		zcs_rtltcp_to_cu8(c->cu8, b->data, b->pairs, s->out->type, pair);
		src = c->cu8;
	}
	ret = zcs_out_write_all(s, s->fd, src, 2 * b->pairs);
	if (ret < 0 && ret != -ECANCELED)
		report_ignored(s, c);   /* gone: the framework detaches it */
	return ret < 0 ? ret : (long)(2 * b->pairs);
}

/* Clients still attached at the end: their tallies too. */
static void rtltcp_close(struct zcs_out *out)
{
	for (size_t i = 0; out->sinks && i < out->nsinks; i++)
		if (out->sinks[i].kpriv)
			report_ignored(&out->sinks[i], out->sinks[i].kpriv);
}

const struct zcs_out_ops zcs_out_rtltcp_ops = {
	.prefix = "rtl_tcp:",
	.catch_up = true,
	.server = true,
	.sink_priv_size = sizeof(struct rtltcp_client),
	.open = zcs_out_tcp_listen,
	.idle = rtltcp_idle,
	.greet = rtltcp_greet,
	.write = rtltcp_write,
	.close = rtltcp_close,
};
