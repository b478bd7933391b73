// SPDX-License-Identifier: MIT
/* Writers and the validating parser of zcs datagrams, and the keyed datagrams' trailer (sealed and
 * verified with auth.c's tag).  docs/protocol.md is the spec: every offset below is a row of one
 * of its tables, and every rejection is one of its reasons. */
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "proto.h"
#include "text.h"

/* Common prefix of every datagram. */
#define OFF_MAGIC 0
#define OFF_VERSION 2
#define OFF_TYPE 3
#define OFF_STREAM 4
#define MAGIC0 0x5A /* 'Z' */
#define MAGIC1 0x53 /* 'S' */

/* Sample datagram header. */
#define S_SEQ 8
#define S_FIRST 16
#define S_FORMAT 24
#define S_FLAGS 25
#define S_SAMPLES 26
#define S_PAYLOAD_LEN 28
#define S_RESERVED 30

/* Parity datagram header (revision 8). */
#define P_BLOCK 8
#define P_NUMBER 16
#define P_K 24
#define P_M 25
#define P_INDEX 26
#define P_RESERVED1 27
#define P_SHARD_LEN 28
#define P_RESERVED2 30

/* Metadata datagram: u64 fields on 8-byte boundaries of the datagram. */
#define M_META_VERSION 8
#define M_GAIN_MDB 12
#define M_NEXT_SEQ 16
#define M_REF_SAMPLE 24
#define M_REF_TIME 32
#define M_RATE 40
#define M_CENTER 48
#define M_BANDWIDTH 56
#define M_GAIN_MODE 64
#define M_CHANNEL 65
#define M_FORMAT 66
#define M_FLAGS 67
#define M_SPD 68
#define M_RESERVED 70
#define M_SENDER 72
#define M_SENDER_LEN 32
#define M_VERSION 104
#define M_VERSION_LEN 16
#define M_SOURCE 120
#define M_SOURCE_LEN ZCS_PROTO_META_SOURCE_LEN

_Static_assert(M_SOURCE + M_SOURCE_LEN == ZCS_PROTO_META_SIZE, "metadata layout must fill 128");
_Static_assert(S_RESERVED + 2 == ZCS_PROTO_SAMPLE_HDR_SIZE, "sample header layout must fill 32");
_Static_assert(P_RESERVED2 + 2 == ZCS_PROTO_PARITY_HDR_SIZE, "parity header layout must fill 32");
_Static_assert(ZCS_FEC_SKIP == S_FIRST, "a shard starts at first_sample");
_Static_assert(sizeof(((struct zcs_meta *)0)->sender) >= M_SENDER_LEN, "host sender too small");
_Static_assert(sizeof(((struct zcs_meta *)0)->version) >= M_VERSION_LEN, "host version too small");
_Static_assert(sizeof(((struct zcs_meta *)0)->source) >= M_SOURCE_LEN, "host source too small");

/* Keyed datagrams: offsets in the metadata trailer, and from the datagram's end in both
 * trailers (each ends with the salt, then the tag). */
#define T_RUN_START 0
#define T_META_SEQ 8
#define T_RUN 16
#define END_SALT (ZCS_AUTH_SALT_BYTES + ZCS_AUTH_TAG_BYTES)
#define END_TAG ZCS_AUTH_TAG_BYTES

/* The nonce of a keyed datagram's tag: salt | stream_id | type | 3 zero bytes | number (u64). */
#define N_SALT 0
#define N_STREAM 8
#define N_TYPE 12
#define N_ZERO 13
#define N_NUMBER 16

_Static_assert(T_RUN + 8 + END_SALT == ZCS_AUTH_META_TRAILER, "metadata trailer layout");
_Static_assert(END_SALT == ZCS_AUTH_SAMPLE_TRAILER, "sample trailer layout");
_Static_assert(N_NUMBER + 8 == ZCS_AUTH_NONCE_BYTES, "nonce layout must fill 24");

/* IPv4 header 20 + UDP 8; IPv6 header 40 + UDP 8 (no extension headers). */
#define IPV4_UDP_OVERHEAD 28
#define IPV6_UDP_OVERHEAD 48

size_t zcs_proto_udp_payload(size_t mtu, bool ipv6)
{
	const size_t overhead = ipv6 ? IPV6_UDP_OVERHEAD : IPV4_UDP_OVERHEAD;

	if (mtu <= overhead)
		return 0;
	/* loopback's 64 KiB MTU would otherwise exceed what one datagram can carry */
	if (mtu - overhead > ZCS_PROTO_MAX_DGRAM)
		return ZCS_PROTO_MAX_DGRAM;
	return mtu - overhead;
}

size_t zcs_proto_max_samples(int format, size_t udp_payload)
{
	const size_t pair = zcs_wire_pair_bytes(format);
	size_t n;

	if (pair == 0 || udp_payload <= ZCS_PROTO_SAMPLE_HDR_SIZE)
		return 0;
	if (udp_payload > ZCS_PROTO_MAX_DGRAM)
		udp_payload = ZCS_PROTO_MAX_DGRAM;
	n = (udp_payload - ZCS_PROTO_SAMPLE_HDR_SIZE) / pair;
	return n > UINT16_MAX ? UINT16_MAX : n;
}

size_t zcs_proto_sample_bytes(const struct zcs_sample_hdr *hdr)
{
	return (size_t)hdr->samples * zcs_wire_pair_bytes(hdr->format);
}

static void write_prefix(uint8_t *buf, enum zcs_dgram_type type, uint32_t stream_id)
{
	buf[OFF_MAGIC] = MAGIC0;
	buf[OFF_MAGIC + 1] = MAGIC1;
	buf[OFF_VERSION] = ZCS_PROTO_VERSION;
	buf[OFF_TYPE] = (uint8_t)type;
	zcs_put_le32(buf + OFF_STREAM, stream_id);
}

void zcs_proto_write_sample_hdr(uint8_t *buf, const struct zcs_sample_hdr *hdr)
{
	write_prefix(buf, ZCS_DGRAM_SAMPLES, hdr->stream_id);
	zcs_put_le64(buf + S_SEQ, hdr->seq);
	zcs_put_le64(buf + S_FIRST, hdr->first_sample);
	buf[S_FORMAT] = hdr->format;
	buf[S_FLAGS] = hdr->flags;
	zcs_put_le16(buf + S_SAMPLES, hdr->samples);
	zcs_put_le16(buf + S_PAYLOAD_LEN, hdr->payload_len);
	zcs_put_le16(buf + S_RESERVED, 0);
}

void zcs_proto_write_parity_hdr(uint8_t *buf, const struct zcs_parity_hdr *hdr)
{
	write_prefix(buf, ZCS_DGRAM_PARITY, hdr->stream_id);
	zcs_put_le64(buf + P_BLOCK, hdr->block_seq);
	zcs_put_le64(buf + P_NUMBER, hdr->number);
	buf[P_K] = hdr->k;
	buf[P_M] = hdr->m;
	buf[P_INDEX] = hdr->index;
	buf[P_RESERVED1] = 0;
	zcs_put_le16(buf + P_SHARD_LEN, hdr->shard_len);
	zcs_put_le16(buf + P_RESERVED2, 0);
}

/* Copies a host string into a wire field, always NUL terminated and zero padded (the parser
 * rejects non-zero bytes after the NUL); a string longer than the field allows is cut. */
static void put_str(uint8_t *field, size_t field_len, const char *s, size_t host_len)
{
	size_t n = strnlen(s, host_len);

	if (n > field_len - 1)
		n = field_len - 1;
	memset(field, 0, field_len);
	memcpy(field, s, n);
}

void zcs_proto_meta_version(struct zcs_meta *m, const char *version, unsigned k, unsigned mm)
{
	char attr[M_VERSION_LEN] = "";
	size_t n = strlen(version), na = 0;

	if (k && mm)
		na = (size_t)snprintf(attr, sizeof(attr), " fec=%u:%u", k, mm);
	/* an attribute is never cut: the version gives way when both do not fit */
	if (n > M_VERSION_LEN - 1 - na)
		n = M_VERSION_LEN - 1 - na;
	memset(m->version, 0, sizeof(m->version));
	memcpy(m->version, version, n);
	memcpy(m->version + n, attr, na);
	m->fec_k = (uint8_t)(na ? k : 0);
	m->fec_m = (uint8_t)(na ? mm : 0);
}

size_t zcs_proto_write_meta(uint8_t *buf, const struct zcs_meta *m)
{
	write_prefix(buf, ZCS_DGRAM_META, m->stream_id);
	zcs_put_le32(buf + M_META_VERSION, m->meta_version);
	zcs_put_le32(buf + M_GAIN_MDB, (uint32_t)m->gain_mdb);
	zcs_put_le64(buf + M_NEXT_SEQ, m->next_seq);
	zcs_put_le64(buf + M_REF_SAMPLE, m->ref_sample);
	zcs_put_le64(buf + M_REF_TIME, m->ref_time_ns);
	zcs_put_le64(buf + M_RATE, m->sample_rate);
	zcs_put_le64(buf + M_CENTER, m->center_freq);
	zcs_put_le64(buf + M_BANDWIDTH, m->bandwidth);
	buf[M_GAIN_MODE] = m->gain_mode;
	buf[M_CHANNEL] = m->channel;
	buf[M_FORMAT] = m->format;
	buf[M_FLAGS] = m->flags;
	zcs_put_le16(buf + M_SPD, m->samples_per_dgram);
	zcs_put_le16(buf + M_RESERVED, 0);
	put_str(buf + M_SENDER, M_SENDER_LEN, m->sender, sizeof(m->sender));
	put_str(buf + M_VERSION, M_VERSION_LEN, m->version, sizeof(m->version));
	put_str(buf + M_SOURCE, M_SOURCE_LEN, m->source, sizeof(m->source));
	return ZCS_PROTO_META_SIZE;
}

/* A wire string must end within its field (else BAD_META) and be zero padded after its NUL
 * (else RESERVED), so that each string has exactly one encoding.  It must also be UTF-8 without
 * control characters (else BAD_META): the strings reach JSON, SigMF files and terminals. */
static int get_str(char *dst, size_t dst_len, const uint8_t *field, size_t field_len)
{
	const uint8_t *nul = memchr(field, 0, field_len);

	if (!nul)
		return -ZCS_PERR_BAD_META;
	for (const uint8_t *p = nul + 1; p < field + field_len; p++)
		if (*p)
			return -ZCS_PERR_RESERVED;
	if (!zcs_text_valid((const char *)field, (size_t)(nul - field)))
		return -ZCS_PERR_BAD_META;
	memset(dst, 0, dst_len);
	memcpy(dst, field, (size_t)(nul - field));
	return 0;
}

/* A decimal number of 1 to 3 digits without leading zeros from *p, within 1..max (else 0); *p
 * moves past its digits. */
static unsigned get_small(const char **p, unsigned max)
{
	unsigned v = 0, n = 0;

	if (**p == '0')
		return 0;

	while (**p >= '0' && **p <= '9' && n < 4) {
		v = v * 10 + (unsigned)(**p - '0');
		(*p)++;
		n++;
	}
	return n >= 1 && n <= 3 && v >= 1 && v <= max ? v : 0;
}

/* Revision 10: the version field is the version, then attributes after single spaces.
 * "fec=K:M" within the protocol's limits is the stream's erasure code; anything else is an
 * attribute this revision does not know, ignored (a later revision's, which this one may ignore
 * by the rule that brought them).  The text stays as it came, so it re-encodes exactly. */
static void parse_attrs(struct zcs_meta *m)
{
	const char *p = strchr(m->version, ' ');

	m->fec_k = m->fec_m = 0;
	while (p) {
		unsigned k = 0, mm = 0;

		p++;
		if (strncmp(p, "fec=", 4) == 0) {
			p += 4;
			k = get_small(&p, ZCS_FEC_MAX_K);
			if (k && *p == ':') {
				p++;
				mm = get_small(&p, ZCS_FEC_MAX_M);
			}
			if (k && mm && (*p == ' ' || *p == '\0')) {
				m->fec_k = (uint8_t)k;
				m->fec_m = (uint8_t)mm;
			}
		}
		p = strchr(p, ' ');
	}
}

static int parse_samples(const uint8_t *buf, size_t len, struct zcs_dgram *out)
{
	struct zcs_sample_hdr *const h = &out->hdr;
	size_t pair, raw;

	if (len < ZCS_PROTO_SAMPLE_HDR_SIZE)
		return -ZCS_PERR_TRUNCATED;
	h->stream_id = zcs_get_le32(buf + OFF_STREAM);
	h->seq = zcs_get_le64(buf + S_SEQ);
	h->first_sample = zcs_get_le64(buf + S_FIRST);
	h->format = buf[S_FORMAT];
	h->flags = buf[S_FLAGS];
	h->samples = zcs_get_le16(buf + S_SAMPLES);
	h->payload_len = zcs_get_le16(buf + S_PAYLOAD_LEN);

	if ((h->flags & ~ZCS_FLAGS_KNOWN) || zcs_get_le16(buf + S_RESERVED) != 0)
		return -ZCS_PERR_RESERVED;
	pair = zcs_wire_pair_bytes(h->format);
	if (pair == 0)
		return -ZCS_PERR_BAD_FORMAT;
	if (len != ZCS_PROTO_SAMPLE_HDR_SIZE + (size_t)h->payload_len)
		return -ZCS_PERR_BAD_LENGTH;
	raw = (size_t)h->samples * pair;
	if (raw > ZCS_PROTO_MAX_DGRAM - ZCS_PROTO_SAMPLE_HDR_SIZE)
		return -ZCS_PERR_BAD_COUNT;
	if (h->samples == 0 && !(h->flags & ZCS_FLAG_EOS))
		return -ZCS_PERR_BAD_COUNT;
	if (h->flags & ZCS_FLAG_ZSTD) {
		/* compressed only when it shrinks: an empty or non-shrinking frame is a framing error */
		if (h->payload_len == 0 || h->payload_len >= raw)
			return -ZCS_PERR_BAD_COUNT;
	} else if (h->payload_len != raw) {
		return -ZCS_PERR_BAD_COUNT;
	}
	out->type = ZCS_DGRAM_SAMPLES;
	out->payload = buf + ZCS_PROTO_SAMPLE_HDR_SIZE;
	return 0;
}

static int parse_meta(const uint8_t *buf, size_t len, struct zcs_dgram *out)
{
	struct zcs_meta *const m = &out->meta;
	size_t pair;
	int ret;

	if (len < ZCS_PROTO_META_SIZE)
		return -ZCS_PERR_TRUNCATED;
	if (len > ZCS_PROTO_META_SIZE)
		return -ZCS_PERR_BAD_LENGTH;
	m->stream_id = zcs_get_le32(buf + OFF_STREAM);
	m->meta_version = zcs_get_le32(buf + M_META_VERSION);
	m->gain_mdb = (int32_t)zcs_get_le32(buf + M_GAIN_MDB);
	m->next_seq = zcs_get_le64(buf + M_NEXT_SEQ);
	m->ref_sample = zcs_get_le64(buf + M_REF_SAMPLE);
	m->ref_time_ns = zcs_get_le64(buf + M_REF_TIME);
	m->sample_rate = zcs_get_le64(buf + M_RATE);
	m->center_freq = zcs_get_le64(buf + M_CENTER);
	m->bandwidth = zcs_get_le64(buf + M_BANDWIDTH);
	m->gain_mode = buf[M_GAIN_MODE];
	m->channel = buf[M_CHANNEL];
	m->format = buf[M_FORMAT];
	m->flags = buf[M_FLAGS];
	m->samples_per_dgram = zcs_get_le16(buf + M_SPD);

	if ((m->flags & ~ZCS_META_FLAGS_KNOWN) || zcs_get_le16(buf + M_RESERVED) != 0)
		return -ZCS_PERR_RESERVED;
	pair = zcs_wire_pair_bytes(m->format);
	if (pair == 0)
		return -ZCS_PERR_BAD_FORMAT;
	if (m->sample_rate == 0 || m->sample_rate > ZCS_PROTO_MAX_RATE || m->channel > 1 ||
	    m->samples_per_dgram == 0 ||
	    (m->gain_mode > ZCS_GAIN_HYBRID && m->gain_mode != ZCS_GAIN_UNKNOWN) ||
	    (size_t)m->samples_per_dgram * pair >
		    ZCS_PROTO_MAX_DGRAM - ZCS_PROTO_SAMPLE_HDR_SIZE)
		return -ZCS_PERR_BAD_META;
	ret = get_str(m->sender, sizeof(m->sender), buf + M_SENDER, M_SENDER_LEN);
	if (ret == 0)
		ret = get_str(m->version, sizeof(m->version), buf + M_VERSION, M_VERSION_LEN);
	if (ret == 0)
		ret = get_str(m->source, sizeof(m->source), buf + M_SOURCE, M_SOURCE_LEN);
	if (ret)
		return ret;
	parse_attrs(m);
	out->type = ZCS_DGRAM_META;
	out->payload = NULL;
	return 0;
}

/* The smallest shard: a sample datagram of no samples (32 bytes) less the bytes not protected. */
#define MIN_SHARD (ZCS_PROTO_SAMPLE_HDR_SIZE - ZCS_FEC_SKIP)

static int parse_parity(const uint8_t *buf, size_t len, struct zcs_dgram *out)
{
	struct zcs_parity_hdr *const h = &out->parity;

	if (len < ZCS_PROTO_PARITY_HDR_SIZE)
		return -ZCS_PERR_TRUNCATED;
	h->stream_id = zcs_get_le32(buf + OFF_STREAM);
	h->block_seq = zcs_get_le64(buf + P_BLOCK);
	h->number = zcs_get_le64(buf + P_NUMBER);
	h->k = buf[P_K];
	h->m = buf[P_M];
	h->index = buf[P_INDEX];
	h->shard_len = zcs_get_le16(buf + P_SHARD_LEN);
	if (buf[P_RESERVED1] != 0 || zcs_get_le16(buf + P_RESERVED2) != 0)
		return -ZCS_PERR_RESERVED;
	if (len != ZCS_PROTO_PARITY_HDR_SIZE + (size_t)h->shard_len)
		return -ZCS_PERR_BAD_LENGTH;
	if (h->k < 1 || h->k > ZCS_FEC_MAX_K || h->m < 1 || h->m > ZCS_FEC_MAX_M ||
	    h->index >= h->m || h->shard_len < MIN_SHARD)
		return -ZCS_PERR_BAD_COUNT;
	out->type = ZCS_DGRAM_PARITY;
	out->payload = buf + ZCS_PROTO_PARITY_HDR_SIZE;
	return 0;
}

size_t zcs_auth_trailer_bytes(int base_type)
{
	switch (base_type) {
	case ZCS_DGRAM_SAMPLES: return ZCS_AUTH_SAMPLE_TRAILER;
	case ZCS_DGRAM_PARITY: return ZCS_AUTH_SAMPLE_TRAILER;
	case ZCS_DGRAM_META: return ZCS_AUTH_META_TRAILER;
	default: return 0;
	}
}

/* A keyed datagram is the unkeyed one plus a trailer whose size its base type gives: the base
 * is judged as ever, on the bytes before the trailer (what an unkeyed receiver does with it). */
static int parse_keyed(const uint8_t *buf, size_t len, struct zcs_dgram *out)
{
	const int base = buf[OFF_TYPE] & ~ZCS_AUTH_TYPE_BIT;
	const size_t trailer = zcs_auth_trailer_bytes(base);
	size_t inner;
	int ret;

	if (trailer == 0)
		return -ZCS_PERR_BAD_TYPE;
	if (len < trailer + 4)
		return -ZCS_PERR_TRUNCATED;
	inner = len - trailer;
	ret = base == ZCS_DGRAM_SAMPLES ? parse_samples(buf, inner, out) :
	      base == ZCS_DGRAM_PARITY ? parse_parity(buf, inner, out) :
					 parse_meta(buf, inner, out);
	if (ret < 0)
		return ret;
	out->keyed = true;
	if (base == ZCS_DGRAM_META) {
		out->run_start_ns = zcs_get_le64(buf + inner + T_RUN_START);
		out->meta_seq = zcs_get_le64(buf + inner + T_META_SEQ);
		out->run = zcs_get_le64(buf + inner + T_RUN);
	}
	memcpy(out->salt, buf + len - END_SALT, sizeof(out->salt));
	return 0;
}

int zcs_proto_parse(const uint8_t *buf, size_t len, struct zcs_dgram *out)
{
	/* Each prefix field is judged as soon as its byte is there, and the version right after the
	 * magic: a datagram of a later version is counted as such, whatever follows. */
	if (len < 2)
		return -ZCS_PERR_TRUNCATED;
	if (buf[OFF_MAGIC] != MAGIC0 || buf[OFF_MAGIC + 1] != MAGIC1)
		return -ZCS_PERR_BAD_MAGIC;
	if (len < 3)
		return -ZCS_PERR_TRUNCATED;
	if (buf[OFF_VERSION] != ZCS_PROTO_VERSION)
		return -ZCS_PERR_BAD_VERSION;
	if (len < 4)
		return -ZCS_PERR_TRUNCATED;
	out->keyed = false;
	if (buf[OFF_TYPE] & ZCS_AUTH_TYPE_BIT)
		return parse_keyed(buf, len, out);
	switch (buf[OFF_TYPE]) {
	case ZCS_DGRAM_SAMPLES:
		return parse_samples(buf, len, out);
	case ZCS_DGRAM_META:
		return parse_meta(buf, len, out);
	case ZCS_DGRAM_PARITY:
		return parse_parity(buf, len, out);
	default:
		return -ZCS_PERR_BAD_TYPE;
	}
}

const char *zcs_proto_err_name(int err)
{
	static const char *const names[ZCS_PERR_COUNT] = {
		[ZCS_PERR_NONE] = "none",
		[ZCS_PERR_TRUNCATED] = "truncated",
		[ZCS_PERR_BAD_MAGIC] = "bad_magic",
		[ZCS_PERR_BAD_VERSION] = "bad_version",
		[ZCS_PERR_BAD_TYPE] = "bad_type",
		[ZCS_PERR_BAD_FORMAT] = "bad_format",
		[ZCS_PERR_BAD_LENGTH] = "bad_length",
		[ZCS_PERR_BAD_COUNT] = "bad_count",
		[ZCS_PERR_RESERVED] = "reserved",
		[ZCS_PERR_BAD_META] = "bad_meta",
		[ZCS_PERR_DECOMPRESS] = "decompress",
		[ZCS_PERR_AUTH] = "auth",
	};

	/* accept the reason either as returned (negative) or as an enum value */
	if (err < 0 && err > -ZCS_PERR_COUNT)
		err = -err;
	if (err < 0 || err >= ZCS_PERR_COUNT)
		return "unknown";
	return names[err];
}

/* The nonce of the keyed datagram of len bytes at dg, whose salt is in place: the salt is random
 * per run, and within a run (type, number) names one datagram, so no nonce repeats under a key.
 * The stream id and type go in as the datagram's bytes. */
static void make_nonce(uint8_t nonce[ZCS_AUTH_NONCE_BYTES], const uint8_t *dg, size_t len,
		       uint64_t number)
{
	memcpy(nonce + N_SALT, dg + len - END_SALT, ZCS_AUTH_SALT_BYTES);
	memcpy(nonce + N_STREAM, dg + OFF_STREAM, 4);
	nonce[N_TYPE] = dg[OFF_TYPE];
	memset(nonce + N_ZERO, 0, N_NUMBER - N_ZERO);
	zcs_put_le64(nonce + N_NUMBER, number);
}

/* Writes the tag of the keyed datagram of total bytes at dg, all of it in place but the tag. */
static void seal(struct zcs_auth_tagger *t, uint8_t *dg, size_t total, uint64_t number)
{
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES];

	make_nonce(nonce, dg, total, number);
	zcs_auth_tagger_tag(t, nonce, dg, total - END_TAG, dg + total - END_TAG);
}

void zcs_auth_prepare(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint32_t stream_id,
		      int base_type, uint64_t first, size_t count)
{
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES];

	/* make_nonce's, from what the datagrams will carry: the salt, the stream id's bytes, the
	 * keyed type and the first number */
	memcpy(nonce + N_SALT, a->salt, ZCS_AUTH_SALT_BYTES);
	zcs_put_le32(nonce + N_STREAM, stream_id);
	nonce[N_TYPE] = (uint8_t)(base_type | ZCS_AUTH_TYPE_BIT);
	memset(nonce + N_ZERO, 0, N_NUMBER - N_ZERO);
	zcs_put_le64(nonce + N_NUMBER, first);
	zcs_auth_tagger_prepare(t, nonce, count);
}

size_t zcs_auth_seal_samples(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg,
			     size_t len)
{
	const size_t total = len + ZCS_AUTH_SAMPLE_TRAILER;

	dg[OFF_TYPE] |= ZCS_AUTH_TYPE_BIT;
	memcpy(dg + total - END_SALT, a->salt, ZCS_AUTH_SALT_BYTES);
	seal(t, dg, total, zcs_get_le64(dg + S_SEQ));
	return total;
}

size_t zcs_auth_seal_parity(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg,
			    size_t len)
{
	const size_t total = len + ZCS_AUTH_SAMPLE_TRAILER;

	dg[OFF_TYPE] |= ZCS_AUTH_TYPE_BIT;
	memcpy(dg + total - END_SALT, a->salt, ZCS_AUTH_SALT_BYTES);
	seal(t, dg, total, zcs_get_le64(dg + P_NUMBER));
	return total;
}

size_t zcs_auth_seal_meta(struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg)
{
	const size_t total = ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER;
	uint8_t *const trailer = dg + ZCS_PROTO_META_SIZE;
	const uint64_t number = a->meta_seq++;

	dg[OFF_TYPE] |= ZCS_AUTH_TYPE_BIT;
	zcs_put_le64(trailer + T_RUN_START, a->run_start_ns);
	zcs_put_le64(trailer + T_META_SEQ, number);
	zcs_put_le64(trailer + T_RUN, a->run);
	memcpy(dg + total - END_SALT, a->salt, ZCS_AUTH_SALT_BYTES);
	seal(t, dg, total, number);
	return total;
}

int zcs_auth_verify(const struct zcs_key *key, const uint8_t *dg, size_t len)
{
	uint8_t nonce[ZCS_AUTH_NONCE_BYTES];
	uint64_t number;

	if (len <= OFF_TYPE || !(dg[OFF_TYPE] & ZCS_AUTH_TYPE_BIT))
		return ZCS_AUTH_UNKEYED;
	switch (dg[OFF_TYPE] & ~ZCS_AUTH_TYPE_BIT) {
	case ZCS_DGRAM_SAMPLES:
		if (len < ZCS_PROTO_SAMPLE_HDR_SIZE + ZCS_AUTH_SAMPLE_TRAILER)
			return ZCS_AUTH_BAD;
		number = zcs_get_le64(dg + S_SEQ);
		break;
	case ZCS_DGRAM_PARITY:
		if (len < ZCS_PROTO_PARITY_HDR_SIZE + ZCS_AUTH_SAMPLE_TRAILER)
			return ZCS_AUTH_BAD;
		number = zcs_get_le64(dg + P_NUMBER);
		break;
	case ZCS_DGRAM_META:
		if (len != ZCS_PROTO_META_SIZE + ZCS_AUTH_META_TRAILER)
			return ZCS_AUTH_BAD;
		number = zcs_get_le64(dg + ZCS_PROTO_META_SIZE + T_META_SEQ);
		break;
	default:
		return ZCS_AUTH_BAD;
	}
	make_nonce(nonce, dg, len, number);
	if (!zcs_auth_tag_ok(key->bytes, nonce, dg, len - END_TAG, dg + len - END_TAG))
		return ZCS_AUTH_BAD;
	return ZCS_AUTH_OK;
}
