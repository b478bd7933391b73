// SPDX-License-Identifier: MIT
/* Control messages as JSON through jansson: writers for requests and replies, defensive parsers
 * for both, and the "name=value" form people type (zcs-ctl, tests). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ctl_msg.h"
#include "err.h"
#include "proto.h"
#include "wire.h"

/* Field values a message may carry at all; the radio's own limits come on top (caps). */
#define FREQ_MAX 100000000000ULL      /* 100 GHz */
#define RATE_MAX 1000000000ULL
#define BW_MAX 1000000000ULL
#define GAIN_ABS_MAX_DB 1000.0

static const char *const field_names[ZCS_CTL_NFIELDS] = {
	"freq", "rate", "gain_mode", "gain", "bw", "channel", "format",
};

const char *zcs_ctl_field_name(uint32_t bit)
{
	for (unsigned i = 0; i < ZCS_CTL_NFIELDS; i++)
		if (bit == 1u << i)
			return field_names[i];
	return NULL;
}

static const char *const mode_names[] = { "manual", "slow", "fast", "hybrid" };

const char *zcs_ctl_gain_mode_name(int mode)
{
	if (mode >= 0 && mode < (int)(sizeof(mode_names) / sizeof(mode_names[0])))
		return mode_names[mode];
	return "unknown";
}

int zcs_ctl_gain_mode_from_name(const char *s)
{
	for (int i = 0; i < (int)(sizeof(mode_names) / sizeof(mode_names[0])); i++)
		if (strcmp(s, mode_names[i]) == 0)
			return i;
	return -1;
}

static const char *channel_name(int ch)
{
	return ch == 0 ? "rx1" : ch == 1 ? "rx2" : "unknown";
}

static int channel_from_name(const char *s)
{
	return strcmp(s, "rx1") == 0 ? 0 : strcmp(s, "rx2") == 0 ? 1 : -1;
}

/* ---- writers ---- */

static json_t *settings_json(const struct zcs_ctl_settings *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (s->have & ZCS_CTL_FREQ)
		json_object_set_new(o, "freq", json_integer((json_int_t)s->freq));
	if (s->have & ZCS_CTL_RATE)
		json_object_set_new(o, "rate", json_integer((json_int_t)s->rate));
	/* an unknown mode or channel (a file source) is left out, not written as a name no
	 * parser takes */
	if ((s->have & ZCS_CTL_GAIN_MODE) && s->gain_mode <= ZCS_GAIN_HYBRID)
		json_object_set_new(o, "gain_mode",
				    json_string(zcs_ctl_gain_mode_name(s->gain_mode)));
	if (s->have & ZCS_CTL_GAIN)
		json_object_set_new(o, "gain", json_real(s->gain_mdb / 1000.0));
	if (s->have & ZCS_CTL_BW)
		json_object_set_new(o, "bw", json_integer((json_int_t)s->bw));
	if ((s->have & ZCS_CTL_CHANNEL) && s->channel <= 1)
		json_object_set_new(o, "channel", json_string(channel_name(s->channel)));
	if (s->have & ZCS_CTL_FORMAT)
		json_object_set_new(o, "format", json_string(zcs_wire_name(s->format)));
	return o;
}

static json_t *fields_json(uint32_t bits)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < ZCS_CTL_NFIELDS; i++)
		if (bits & (1u << i))
			json_array_append_new(a, json_string(field_names[i]));
	return a;
}

static json_t *range_json(json_int_t lo, json_int_t hi)
{
	return json_pack("[II]", lo, hi);
}

static json_t *caps_json(const struct zcs_ctl_caps *c)
{
	json_t *o = json_object(), *modes = json_array(), *chans = json_array(),
	       *fmts = json_array();

	if (!o || !modes || !chans || !fmts) {
		json_decref(o);
		json_decref(modes);
		json_decref(chans);
		json_decref(fmts);
		return NULL;
	}
	json_object_set_new(o, "freq", range_json((json_int_t)c->freq_min, (json_int_t)c->freq_max));
	json_object_set_new(o, "rate", range_json((json_int_t)c->rate_min, (json_int_t)c->rate_max));
	json_object_set_new(o, "bw", range_json((json_int_t)c->bw_min, (json_int_t)c->bw_max));
	json_object_set_new(o, "gain", json_pack("[ff]", c->gain_min_mdb / 1000.0,
						 c->gain_max_mdb / 1000.0));
	for (int m = 0; m <= ZCS_GAIN_HYBRID; m++)
		if (c->gain_modes & (1u << m))
			json_array_append_new(modes, json_string(zcs_ctl_gain_mode_name(m)));
	for (int ch = 0; ch < 2; ch++)
		if (c->channels & (1u << ch))
			json_array_append_new(chans, json_string(channel_name(ch)));
	for (int f = 1; f <= ZCS_WIRE_MAX; f++)
		if (c->formats & (1u << f))
			json_array_append_new(fmts, json_string(zcs_wire_name(f)));
	json_object_set_new(o, "gain_modes", modes);
	json_object_set_new(o, "channels", chans);
	json_object_set_new(o, "formats", fmts);
	json_object_set_new(o, "settable", fields_json(c->settable));
	return o;
}

static ssize_t dump(json_t *o, char *out, size_t outlen)
{
	size_t n;

	if (!o)
		return -ENOMEM;
	n = json_dumpb(o, out, outlen, JSON_COMPACT);
	json_decref(o);
	if (n == 0)
		return -ENOMEM;
	return n > outlen ? -EMSGSIZE : (ssize_t)n;
}

ssize_t zcs_ctl_msg_write_request(const struct zcs_ctl_request *r, char *out, size_t outlen)
{
	json_t *o = json_object();

	if (!o)
		return -ENOMEM;
	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "op", json_string(r->op == ZCS_CTL_OP_SET ? "set" : "get"));
	if (r->op == ZCS_CTL_OP_SET)
		json_object_set_new(o, "set", settings_json(&r->set));
	return dump(o, out, outlen);
}

ssize_t zcs_ctl_msg_write_reply(const struct zcs_ctl_reply *r, char *out, size_t outlen)
{
	json_t *o = json_object();

	if (!o)
		return -ENOMEM;
	if (r->event) {
		json_object_set_new(o, "event", json_string("changed"));
	} else {
		json_object_set_new(o, "id", json_integer(r->id));
		json_object_set_new(o, "ok", json_boolean(r->ok));
	}
	if (!r->ok && !r->event) {
		json_object_set_new(o, "error", json_string(r->error));
		if (r->field[0])
			json_object_set_new(o, "field", json_string(r->field));
	}
	json_object_set_new(o, "settings", settings_json(&r->now));
	json_object_set_new(o, "changed", fields_json(r->changed));
	if (r->has_since)
		json_object_set_new(o, "since_sample", json_integer((json_int_t)r->since_sample));
	if (r->has_caps)
		json_object_set_new(o, "caps", caps_json(&r->caps));
	if (r->has_stream) {
		json_t *st = json_pack("{sIsssIss}", "id", (json_int_t)r->stream.id, "format",
				       zcs_wire_name(r->stream.format), "rate",
				       (json_int_t)r->stream.rate, "source", r->stream.source);

		/* a JSON integer is signed: a run beyond it is not said (no counter gets there) */
		if (st && r->stream.run && r->stream.run <= (uint64_t)INT64_MAX)
			json_object_set_new(st, "run", json_integer((json_int_t)r->stream.run));
		json_object_set_new(o, "stream", st);
	}
	return dump(o, out, outlen);
}

/* ---- parsers ---- */

static int get_u64(const json_t *v, const char *name, uint64_t max, uint64_t *out, char *err,
		   size_t errlen)
{
	json_int_t i;

	if (!json_is_integer(v))
		return zcs_err(err, errlen, -EINVAL, "%s: not an integer", name);
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return zcs_err(err, errlen, -EINVAL, "%s: %lld out of range", name, (long long)i);
	*out = (uint64_t)i;
	return 0;
}

static int get_gain(const json_t *v, int32_t *mdb, char *err, size_t errlen)
{
	double d;

	if (!json_is_number(v))
		return zcs_err(err, errlen, -EINVAL, "gain: not a number");
	d = json_number_value(v);
	if (!isfinite(d) || fabs(d) > GAIN_ABS_MAX_DB)
		return zcs_err(err, errlen, -EINVAL, "gain: out of range");
	*mdb = (int32_t)lround(d * 1000.0);
	return 0;
}

static int get_name(const json_t *v, const char *name, int (*from)(const char *), int *out,
		    char *err, size_t errlen)
{
	const char *s = json_string_value(v);

	if (!s)
		return zcs_err(err, errlen, -EINVAL, "%s: not a string", name);
	if ((*out = from(s)) < 0)
		return zcs_err(err, errlen, -EINVAL, "%s: unknown value", name);
	return 0;
}

static int wire_from_name(const char *s)
{
	return zcs_wire_from_name(s);
}

/* Fills s from a settings object; strict: unknown keys refused. */
static int parse_settings(const json_t *o, bool strict, struct zcs_ctl_settings *s, char *err,
			  size_t errlen)
{
	const char *key;
	json_t *v;
	int ret, i = 0;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(o))
		return zcs_err(err, errlen, -EINVAL, "settings: not an object");
	json_object_foreach((json_t *)o, key, v) {
		ret = 0;
		if (strcmp(key, "freq") == 0) {
			ret = get_u64(v, key, FREQ_MAX, &s->freq, err, errlen);
			s->have |= ZCS_CTL_FREQ;
		} else if (strcmp(key, "rate") == 0) {
			ret = get_u64(v, key, RATE_MAX, &s->rate, err, errlen);
			s->have |= ZCS_CTL_RATE;
		} else if (strcmp(key, "bw") == 0) {
			ret = get_u64(v, key, BW_MAX, &s->bw, err, errlen);
			s->have |= ZCS_CTL_BW;
		} else if (strcmp(key, "gain") == 0) {
			ret = get_gain(v, &s->gain_mdb, err, errlen);
			s->have |= ZCS_CTL_GAIN;
		} else if (strcmp(key, "gain_mode") == 0) {
			ret = get_name(v, key, zcs_ctl_gain_mode_from_name, &i, err, errlen);
			s->gain_mode = (uint8_t)i;
			s->have |= ZCS_CTL_GAIN_MODE;
		} else if (strcmp(key, "channel") == 0) {
			ret = get_name(v, key, channel_from_name, &i, err, errlen);
			s->channel = (uint8_t)i;
			s->have |= ZCS_CTL_CHANNEL;
		} else if (strcmp(key, "format") == 0) {
			ret = get_name(v, key, wire_from_name, &i, err, errlen);
			s->format = (uint8_t)i;
			s->have |= ZCS_CTL_FORMAT;
		} else if (strict) {
			ret = zcs_err(err, errlen, -EINVAL, "unknown setting '%.32s'", key);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static json_t *load(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &je);

	if (!o) {
		zcs_err(err, errlen, -EINVAL, "not JSON: %.80s", je.text);
		return NULL;
	}
	if (!json_is_object(o)) {
		json_decref(o);
		zcs_err(err, errlen, -EINVAL, "not a JSON object");
		return NULL;
	}
	return o;
}

static int get_id(const json_t *o, uint32_t *id, char *err, size_t errlen)
{
	const json_t *v = json_object_get(o, "id");
	uint64_t u;
	int ret;

	if (!v)
		return zcs_err(err, errlen, -EINVAL, "no id");
	if ((ret = get_u64(v, "id", UINT32_MAX, &u, err, errlen)) < 0)
		return ret;
	*id = (uint32_t)u;
	return 0;
}

int zcs_ctl_msg_parse_request(const uint8_t *buf, size_t len, struct zcs_ctl_request *out,
			      char *err, size_t errlen)
{
	json_t *o = load(buf, len, err, errlen);
	const char *key, *op;
	json_t *v;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!o)
		return -EINVAL;
	json_object_foreach(o, key, v) {
		if (strcmp(key, "id") && strcmp(key, "op") && strcmp(key, "set")) {
			ret = zcs_err(err, errlen, -EINVAL, "unknown key '%.32s'", key);
			goto out;
		}
	}
	if ((ret = get_id(o, &out->id, err, errlen)) < 0)
		goto out;
	op = json_string_value(json_object_get(o, "op"));
	ret = -EINVAL;
	if (!op) {
		zcs_err(err, errlen, -EINVAL, "no op");
		goto out;
	}
	if (strcmp(op, "get") == 0) {
		out->op = ZCS_CTL_OP_GET;
		ret = json_object_get(o, "set") ? zcs_err(err, errlen, -EINVAL, "get takes no set") : 0;
	} else if (strcmp(op, "set") == 0) {
		out->op = ZCS_CTL_OP_SET;
		ret = parse_settings(json_object_get(o, "set"), true, &out->set, err, errlen);
		if (ret == 0 && !out->set.have)
			ret = zcs_err(err, errlen, -EINVAL, "set: nothing to set");
	} else {
		zcs_err(err, errlen, -EINVAL, "unknown op '%.16s'", op);
	}
out:
	json_decref(o);
	return ret;
}

static int parse_range(const json_t *a, const char *name, uint64_t *lo, uint64_t *hi, char *err,
		       size_t errlen)
{
	int ret;

	if (!json_is_array(a) || json_array_size(a) != 2)
		return zcs_err(err, errlen, -EINVAL, "caps.%s: not a [min, max] pair", name);
	if ((ret = get_u64(json_array_get(a, 0), name, UINT64_MAX >> 1, lo, err, errlen)) < 0 ||
	    (ret = get_u64(json_array_get(a, 1), name, UINT64_MAX >> 1, hi, err, errlen)) < 0)
		return ret;
	return 0;
}

static int parse_names(const json_t *a, const char *name, int (*from)(const char *),
		       uint8_t *bits, char *err, size_t errlen)
{
	size_t i;
	json_t *v;

	*bits = 0;
	if (!json_is_array(a))
		return zcs_err(err, errlen, -EINVAL, "caps.%s: not an array", name);
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);
		const int x = s ? from(s) : -1;

		/* a later server's new name is skipped, not fatal */
		if (x >= 0 && x < 8)
			*bits |= (uint8_t)(1u << x);
	}
	return 0;
}

static int field_from_name(const char *s)
{
	for (int i = 0; i < ZCS_CTL_NFIELDS; i++)
		if (strcmp(s, field_names[i]) == 0)
			return i;
	return -1;
}

static int parse_fields(const json_t *a, uint32_t *bits, char *err, size_t errlen)
{
	uint8_t b = 0;
	const int ret = a ? parse_names(a, "changed", field_from_name, &b, err, errlen) : 0;

	*bits = b;
	return ret;
}

static int parse_caps(const json_t *o, struct zcs_ctl_caps *c, char *err, size_t errlen)
{
	const json_t *g = json_object_get(o, "gain");
	uint32_t settable = 0;
	int ret;

	if (!json_is_object(o))
		return zcs_err(err, errlen, -EINVAL, "caps: not an object");
	if ((ret = parse_range(json_object_get(o, "freq"), "freq", &c->freq_min, &c->freq_max,
			       err, errlen)) < 0 ||
	    (ret = parse_range(json_object_get(o, "rate"), "rate", &c->rate_min, &c->rate_max,
			       err, errlen)) < 0 ||
	    (ret = parse_range(json_object_get(o, "bw"), "bw", &c->bw_min, &c->bw_max, err,
			       errlen)) < 0)
		return ret;
	if (!json_is_array(g) || json_array_size(g) != 2 ||
	    (ret = get_gain(json_array_get(g, 0), &c->gain_min_mdb, err, errlen)) < 0 ||
	    (ret = get_gain(json_array_get(g, 1), &c->gain_max_mdb, err, errlen)) < 0)
		return ret < 0 ? ret : zcs_err(err, errlen, -EINVAL, "caps.gain: not a pair");
	if ((ret = parse_names(json_object_get(o, "gain_modes"), "gain_modes",
			       zcs_ctl_gain_mode_from_name, &c->gain_modes, err, errlen)) < 0 ||
	    (ret = parse_names(json_object_get(o, "channels"), "channels", channel_from_name,
			       &c->channels, err, errlen)) < 0 ||
	    (ret = parse_names(json_object_get(o, "formats"), "formats", wire_from_name,
			       &c->formats, err, errlen)) < 0 ||
	    (ret = parse_fields(json_object_get(o, "settable"), &settable, err, errlen)) < 0)
		return ret;
	c->settable = settable;
	return 0;
}

static int parse_stream(const json_t *o, struct zcs_ctl_stream *s, char *err, size_t errlen)
{
	const char *fmt, *src;
	uint64_t id;
	int ret, f;

	if (!json_is_object(o))
		return zcs_err(err, errlen, -EINVAL, "stream: not an object");
	if ((ret = get_u64(json_object_get(o, "id"), "stream.id", UINT32_MAX, &id, err,
			   errlen)) < 0 ||
	    (ret = get_u64(json_object_get(o, "rate"), "stream.rate", RATE_MAX, &s->rate, err,
			   errlen)) < 0)
		return ret;
	s->id = (uint32_t)id;
	fmt = json_string_value(json_object_get(o, "format"));
	src = json_string_value(json_object_get(o, "source"));
	if (!fmt || (f = zcs_wire_from_name(fmt)) < 0)
		return zcs_err(err, errlen, -EINVAL, "stream.format: unknown");
	s->format = (uint8_t)f;
	snprintf(s->source, sizeof(s->source), "%s", src ? src : "");
	s->run = 0;
	if (json_object_get(o, "run") &&
	    (ret = get_u64(json_object_get(o, "run"), "stream.run", INT64_MAX, &s->run, err,
			   errlen)) < 0)
		return ret;
	return 0;
}

int zcs_ctl_msg_parse_reply(const uint8_t *buf, size_t len, struct zcs_ctl_reply *out,
			    char *err, size_t errlen)
{
	json_t *o = load(buf, len, err, errlen);
	const json_t *v;
	const char *s;
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!o)
		return -EINVAL;
	if ((v = json_object_get(o, "event"))) {
		if (!json_is_string(v) || strcmp(json_string_value(v), "changed")) {
			zcs_err(err, errlen, -EINVAL, "unknown event");
			goto out;
		}
		out->event = true;
		out->ok = true;
	} else {
		if ((ret = get_id(o, &out->id, err, errlen)) < 0)
			goto out;
		ret = -EINVAL;
		if (!json_is_boolean(v = json_object_get(o, "ok"))) {
			zcs_err(err, errlen, -EINVAL, "no ok");
			goto out;
		}
		out->ok = json_is_true(v);
		if (!out->ok) {
			s = json_string_value(json_object_get(o, "error"));
			snprintf(out->error, sizeof(out->error), "%s", s ? s : "(no reason given)");
			s = json_string_value(json_object_get(o, "field"));
			snprintf(out->field, sizeof(out->field), "%s", s ? s : "");
		}
	}
	if ((ret = parse_settings(json_object_get(o, "settings"), false, &out->now, err,
				  errlen)) < 0 ||
	    (ret = parse_fields(json_object_get(o, "changed"), &out->changed, err, errlen)) < 0)
		goto out;
	if ((v = json_object_get(o, "since_sample"))) {
		if ((ret = get_u64(v, "since_sample", UINT64_MAX >> 1, &out->since_sample, err,
				   errlen)) < 0)
			goto out;
		out->has_since = true;
	}
	if ((v = json_object_get(o, "caps"))) {
		if ((ret = parse_caps(v, &out->caps, err, errlen)) < 0)
			goto out;
		out->has_caps = true;
	}
	if ((v = json_object_get(o, "stream"))) {
		if ((ret = parse_stream(v, &out->stream, err, errlen)) < 0)
			goto out;
		out->has_stream = true;
	}
	ret = 0;
out:
	json_decref(o);
	return ret;
}

/* ---- name=value ---- */

int zcs_ctl_settings_parse_kv(struct zcs_ctl_settings *s, const char *kv, char *err,
			      size_t errlen)
{
	const char *eq = strchr(kv, '=');
	const char *val = eq ? eq + 1 : "";
	const size_t nlen = eq ? (size_t)(eq - kv) : strlen(kv);
	char name[16];
	double d;
	int ret, i = -1;

	if (!eq || nlen == 0 || nlen >= sizeof(name))
		return zcs_err(err, errlen, -EINVAL, "'%s': use NAME=VALUE (freq=433.92M)", kv);
	memcpy(name, kv, nlen);
	name[nlen] = '\0';
	if (strcmp(name, "freq") == 0 || strcmp(name, "rate") == 0 || strcmp(name, "bw") == 0) {
		const bool f = name[0] == 'f', r = name[0] == 'r';
		uint64_t *dst = f ? &s->freq : r ? &s->rate : &s->bw;

		ret = zcs_cli_opt_u64(name, val, 1, f ? FREQ_MAX : r ? RATE_MAX : BW_MAX,
				      "Hz, e.g. 433.92M", dst, err, errlen);
		if (ret == 0)
			s->have |= f ? ZCS_CTL_FREQ : r ? ZCS_CTL_RATE : ZCS_CTL_BW;
		return ret;
	}
	if (strcmp(name, "gain") == 0) {
		if ((ret = zcs_cli_opt_double(name, val, -GAIN_ABS_MAX_DB, GAIN_ABS_MAX_DB, "dB", &d,
					      err, errlen)) < 0)
			return ret;
		s->gain_mdb = (int32_t)lround(d * 1000.0);
		s->have |= ZCS_CTL_GAIN;
		if (!(s->have & ZCS_CTL_GAIN_MODE)) {
			s->gain_mode = ZCS_GAIN_MANUAL;
			s->have |= ZCS_CTL_GAIN_MODE;
		}
		return 0;
	}
	if (strcmp(name, "gain_mode") == 0 || strcmp(name, "agc") == 0) {
		i = strcmp(name, "agc") == 0 && strcmp(val, "on") == 0 ? ZCS_GAIN_SLOW :
		    strcmp(name, "agc") == 0 && strcmp(val, "off") == 0 ? ZCS_GAIN_MANUAL :
		    zcs_ctl_gain_mode_from_name(val);
		if (i < 0)
			return zcs_err(err, errlen, -EINVAL,
				       "%s '%s': use manual, slow, fast or hybrid", name, val);
		s->gain_mode = (uint8_t)i;
		s->have |= ZCS_CTL_GAIN_MODE;
		return 0;
	}
	if (strcmp(name, "channel") == 0) {
		if ((i = channel_from_name(val)) < 0)
			return zcs_err(err, errlen, -EINVAL, "channel '%s': use rx1 or rx2", val);
		s->channel = (uint8_t)i;
		s->have |= ZCS_CTL_CHANNEL;
		return 0;
	}
	if (strcmp(name, "format") == 0) {
		if ((i = zcs_wire_from_name(val)) < 0)
			return zcs_err(err, errlen, -EINVAL, "format '%s': use i8, p12 or i16", val);
		s->format = (uint8_t)i;
		s->have |= ZCS_CTL_FORMAT;
		return 0;
	}
	return zcs_err(err, errlen, -EINVAL,
		       "unknown setting '%s': freq, rate, bw, gain, gain_mode, channel, format",
		       name);
}
