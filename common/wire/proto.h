/* SPDX-License-Identifier: MIT */
/* The zcs wire protocol: host forms of the sample and metadata datagrams, the writers that turn
 * them into wire bytes and the parser that validates wire bytes.  docs/protocol.md is the spec. */
#ifndef ZCS_PROTO_H
#define ZCS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZCS_PROTO_VERSION 1
#define ZCS_DEFAULT_PORT 5391

/* Sizes on the wire (docs/protocol.md). */
#define ZCS_PROTO_SAMPLE_HDR_SIZE 32
#define ZCS_PROTO_META_SIZE 128
#define ZCS_PROTO_MAX_DGRAM 65507       /* largest UDP payload over IPv4 */
#define ZCS_PROTO_DEFAULT_MTU 1500
#define ZCS_PROTO_MIN_MTU 576
/* The largest sample_rate metadata may announce (else bad_meta): 10 GS/s, above the I/Q rate of
 * any radio (the fastest, direct-sampling RFSoC boards, stream a few GS/s; zcs-send itself at
 * most 1 GS/s) and beyond what any link carries (cs8 at 10 GS/s is 160 Gbit/s); and the largest
 * power of ten whose product with 10^9 fits in 64 bits, so a second's worth of nanoseconds
 * times the rate never overflows. */
#define ZCS_PROTO_MAX_RATE 10000000000ULL

enum zcs_dgram_type {
	ZCS_DGRAM_SAMPLES = 0,
	ZCS_DGRAM_META = 1,
	ZCS_DGRAM_PARITY = 2,   /* revision 8: erasure-code parity over a block (fec.h) */
};

/* Parity datagrams (docs/protocol.md, "Parity datagrams"): a 32-byte header, then shard_len bytes
 * of parity.  A block is the k sample datagrams from block_seq on; each is protected from byte
 * ZCS_FEC_SKIP to its end (keyed: its trailer included), zero-padded to shard_len.  Limits are
 * the protocol's: a parser rejects others (bad_count). */
#define ZCS_PROTO_PARITY_HDR_SIZE 32
#define ZCS_FEC_SKIP 16         /* prefix and seq: a receiver rebuilds them from the parity */
#define ZCS_FEC_MAX_K 128
#define ZCS_FEC_MAX_M 32

/* Host form of a parity datagram's header. */
struct zcs_parity_hdr {
	uint32_t stream_id;
	uint64_t block_seq;     /* seq of the block's first sample datagram */
	uint64_t number;        /* parity datagrams of the stream before this one (the tag's nonce) */
	uint8_t k;              /* sample datagrams in the block, 1..ZCS_FEC_MAX_K */
	uint8_t m;              /* parity datagrams of the block, 1..ZCS_FEC_MAX_M */
	uint8_t index;          /* which of them, 0..m-1 */
	uint16_t shard_len;     /* parity bytes after the header */
};

/* Sample datagram flags: append only. */
#define ZCS_FLAG_EOS 0x01     /* last datagram of this stream id */
#define ZCS_FLAG_ZSTD 0x02    /* payload is one zstd frame holding the samples */
#define ZCS_FLAG_DISCONT 0x04 /* samples were lost at the source before first_sample */
#define ZCS_FLAGS_KNOWN 0x07

/* Host form of a sample datagram's header. */
struct zcs_sample_hdr {
	uint32_t stream_id;     /* random per sender start */
	uint64_t seq;           /* +1 per sample datagram */
	uint64_t first_sample;  /* index of the first I/Q pair in this datagram */
	uint16_t samples;       /* I/Q pairs carried */
	uint16_t payload_len;   /* payload bytes after the header (compressed size if ZSTD) */
	uint8_t format;         /* enum zcs_wire_format */
	uint8_t flags;          /* ZCS_FLAG_* */
};

enum zcs_gain_mode {
	ZCS_GAIN_MANUAL = 0,
	ZCS_GAIN_SLOW = 1,
	ZCS_GAIN_FAST = 2,
	ZCS_GAIN_HYBRID = 3,
	ZCS_GAIN_UNKNOWN = 255,
};

/* Host form of a metadata datagram: what a late joiner and a SigMF recording need. */
struct zcs_meta {
	uint32_t stream_id;
	uint32_t meta_version;     /* +1 whenever any setting below changes */
	uint64_t next_seq;         /* sequence number of the next sample datagram */
	uint64_t ref_sample;       /* a sample index ... */
	uint64_t ref_time_ns;      /* ... and its wall-clock time, ns since 1970 (0: unknown) */
	uint64_t sample_rate;      /* I/Q pairs per second */
	uint64_t center_freq;      /* Hz, 0: unknown or baseband */
	uint64_t bandwidth;        /* Hz, 0: unknown */
	int32_t gain_mdb;          /* gain in thousandths of a dB */
	uint8_t gain_mode;         /* enum zcs_gain_mode */
	uint8_t channel;           /* 0 = rx1, 1 = rx2 */
	uint8_t format;            /* enum zcs_wire_format of the sample datagrams */
	uint8_t flags;             /* ZCS_META_FLAG_* */
	uint16_t samples_per_dgram;/* pairs in a full sample datagram */
	char sender[32];           /* sender host name, NUL terminated */
	char version[16];          /* sender version and its attributes, NUL terminated */
	char source[16];           /* "iio", "tone", "noise", "file", "stdin" (at most 7 on the wire) */
	/* revision 10: the stream's erasure code as the version's attribute "fec=K:M" announces
	 * it (0: none); the parser fills it in, writers put it in `version` with
	 * zcs_proto_meta_version() */
	uint8_t fec_k, fec_m;
};

/* Sets m's version field (revision 10): `version`, then " fec=K:M" when k and mm are not 0
 * (within ZCS_FEC_MAX_K and ZCS_FEC_MAX_M); the attribute is never cut, the version is cut when
 * both do not fit the wire's 15 characters.  Sets fec_k and fec_m to what it announced. */
void zcs_proto_meta_version(struct zcs_meta *m, const char *version, unsigned k, unsigned mm);

/* The wire's source field is 8 bytes (docs/protocol.md): writers keep 7 characters of source. */
#define ZCS_PROTO_META_SOURCE_LEN 8

#define ZCS_META_FLAG_ZSTD 0x01 /* the stream may carry ZCS_FLAG_ZSTD datagrams */
#define ZCS_META_FLAG_CHANGE 0x02 /* a retune: the settings hold from ref_sample on */
#define ZCS_META_FLAGS_KNOWN 0x03

/* Why a datagram was rejected: each counted separately by receivers.  Append only. */
enum zcs_proto_err {
	ZCS_PERR_NONE = 0,
	ZCS_PERR_TRUNCATED,     /* shorter than the fixed header of its type */
	ZCS_PERR_BAD_MAGIC,
	ZCS_PERR_BAD_VERSION,
	ZCS_PERR_BAD_TYPE,
	ZCS_PERR_BAD_FORMAT,
	ZCS_PERR_BAD_LENGTH,    /* payload_len disagrees with the datagram's real length */
	ZCS_PERR_BAD_COUNT,     /* sample count disagrees with the payload, or exceeds the maximum */
	ZCS_PERR_RESERVED,      /* a reserved bit or field is not zero */
	ZCS_PERR_BAD_META,      /* a metadata field out of range (rate 0, unterminated string, ...) */
	ZCS_PERR_DECOMPRESS,    /* zstd payload does not decode to exactly the samples announced */
	ZCS_PERR_AUTH,          /* a keyed receiver's verification failed (zcs_auth_verify) */
	ZCS_PERR_COUNT
};

/* A parsed datagram: type says which of hdr/meta is filled; payload points into the buffer. */
struct zcs_dgram {
	enum zcs_dgram_type type;
	struct zcs_sample_hdr hdr;
	struct zcs_meta meta;
	struct zcs_parity_hdr parity;
	const uint8_t *payload;
	/* keyed: type bit 7 (ZCS_AUTH_TYPE_BIT) was set and the trailer stripped; the parser
	 * does not verify it (zcs_auth_verify does).  run_start_ns, meta_seq and run: metadata
	 * only. */
	bool keyed;
	uint8_t salt[ZCS_AUTH_SALT_BYTES];
	uint64_t run_start_ns;
	uint64_t meta_seq;
	uint64_t run;
};

/* UDP payload bytes that fit a path MTU: mtu - 28 (IPv4) or mtu - 48 (IPv6). */
size_t zcs_proto_udp_payload(size_t mtu, bool ipv6);

/* Most I/Q pairs of a format that fit in a datagram of udp_payload bytes (header included). */
size_t zcs_proto_max_samples(int format, size_t udp_payload);

/* Bytes the samples of hdr take uncompressed: samples * pair bytes of its format (0 if unknown).
 * A ZSTD payload must decompress to exactly this many bytes (else ZCS_PERR_DECOMPRESS). */
size_t zcs_proto_sample_bytes(const struct zcs_sample_hdr *hdr);

/* Writes the 32-byte sample header to buf (which must hold ZCS_PROTO_SAMPLE_HDR_SIZE bytes). */
void zcs_proto_write_sample_hdr(uint8_t *buf, const struct zcs_sample_hdr *hdr);

/* Writes the 32-byte parity header to buf (ZCS_PROTO_PARITY_HDR_SIZE bytes). */
void zcs_proto_write_parity_hdr(uint8_t *buf, const struct zcs_parity_hdr *hdr);

/* Writes a metadata datagram to buf (ZCS_PROTO_META_SIZE bytes); returns its size. */
size_t zcs_proto_write_meta(uint8_t *buf, const struct zcs_meta *meta);

/* Validates len bytes at buf and fills *out.  Never reads past len.  A keyed datagram (type bit 7)
 * is parsed without its trailer, whose fields land in out->salt, run_start_ns, meta_seq and run.
 * Returns 0, or -enum zcs_proto_err naming why the datagram is bad (then *out is unspecified).
 * A ZSTD payload is checked for framing only; see zcs_codec_decompress(). */
int zcs_proto_parse(const uint8_t *buf, size_t len, struct zcs_dgram *out);

/* Short stable name of a reason ("truncated", "bad_magic", ...), used in statistics and JSON. */
const char *zcs_proto_err_name(int err);

/* Keyed datagrams (docs/protocol.md, "Keyed datagrams"): the base datagram byte for byte with type
 * bit 7 set, then an authentication trailer whose size the base type gives.  Both trailers end
 * with the run's salt and the tag, so a receiver finds them from the datagram's length alone; the
 * tag (auth.h) covers every byte before it under a nonce made of the salt, the stream id, the type
 * byte and the datagram's number.  The layout is this file's; the cryptography is auth.h's. */
#define ZCS_AUTH_TYPE_BIT 0x80
/* Trailer of a sample datagram (type 128): salt, tag. */
#define ZCS_AUTH_SAMPLE_TRAILER (ZCS_AUTH_SALT_BYTES + ZCS_AUTH_TAG_BYTES)
/* Trailer of a metadata datagram (type 129): run_start_ns u64, meta_seq u64, run u64 (revision
 * 5, docs/protocol.md "Fresh runs"), salt, tag. */
#define ZCS_AUTH_META_TRAILER (8 + 8 + 8 + ZCS_AUTH_SALT_BYTES + ZCS_AUTH_TAG_BYTES)
/* The largest trailer, for buffers that hold either. */
#define ZCS_AUTH_MAX_TRAILER ZCS_AUTH_META_TRAILER

/* Verdicts of zcs_auth_verify. */
enum zcs_auth_verdict {
	ZCS_AUTH_OK = 0,
	ZCS_AUTH_UNKEYED = 1,  /* no trailer announced (type bit 7 clear): an unkeyed sender */
	ZCS_AUTH_BAD = 2,      /* a trailer announced that does not verify: another key, or forged */
};

/* Bytes of the trailer of a datagram of base type (0 samples, 1 metadata, 2 parity); 0 for
 * others.  A parity datagram's trailer is a sample datagram's (salt, tag). */
size_t zcs_auth_trailer_bytes(int base_type);

/* dg holds a complete unkeyed sample datagram of len bytes (header and payload) with room for
 * ZCS_AUTH_SAMPLE_TRAILER more behind it.  Sets the type bit, appends salt and tag (made with t,
 * the calling thread's tagger).  Returns the keyed datagram's length.  Reads a only, so the
 * source thread may call it while the send thread seals metadata with a tagger of its own.
 * No allocation. */
size_t zcs_auth_seal_samples(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg,
			     size_t len);

/* As zcs_auth_seal_samples, for a complete unkeyed parity datagram (type 130 once sealed; the
 * nonce's number is the parity header's `number`). */
size_t zcs_auth_seal_parity(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg,
			    size_t len);

/* Readies t to seal the count keyed datagrams of base type (ZCS_DGRAM_SAMPLES or
 * ZCS_DGRAM_PARITY) of stream_id in a's run numbered from first on (seq, or the parity's
 * `number`): their one-time keys are made in one keystream call (auth.h,
 * zcs_auth_tagger_prepare), so a train's datagrams each pay Poly1305 and a piece of it.  Optional:
 * a datagram sealed without it makes its own. */
void zcs_auth_prepare(const struct zcs_auth *a, struct zcs_auth_tagger *t, uint32_t stream_id,
		      int base_type, uint64_t first, size_t count);

/* dg holds a complete unkeyed metadata datagram (ZCS_PROTO_META_SIZE bytes) with room for
 * ZCS_AUTH_META_TRAILER more.  Sets the type bit, appends run_start_ns, the next meta_seq, the
 * run, salt and tag (made with t).  Returns the keyed datagram's length. */
size_t zcs_auth_seal_meta(struct zcs_auth *a, struct zcs_auth_tagger *t, uint8_t *dg);

/* Verifies the len bytes at dg under key, looking at nothing else first: the type byte says
 * whether a trailer is there and which; the tag covers every byte before it.  Returns an enum
 * zcs_auth_verdict.  Constant time in the tag comparison (libsodium). */
int zcs_auth_verify(const struct zcs_key *key, const uint8_t *dg, size_t len);

#ifdef __cplusplus
}
#endif

#endif
