/* SPDX-License-Identifier: MIT */
/* Who gets a handshake slot of zcs-send's control listener when connections that never prove the
 * key hold them all (sshd's MaxStartups and per-source penalties, for a channel with no login):
 * each source's recent unfinished connections are counted, decaying, per address and per network
 * prefix, and the busiest prefix's busiest source's oldest handshake gives way to a newcomer from
 * a quieter one; sources that proved the key lately come first.  No I/O, no clock of its own:
 * the listener passes the time in. */
#ifndef ZCS_CTL_ADMIT_H
#define ZCS_CTL_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"

/* A source: an IPv4 address, or an IPv6 address's /64 (one LAN host can take any address of
 * its /64, so a finer key would hand an attacker as many sources as it likes). */
struct zcs_ctl_source {
	uint8_t b[16];
};

/* The score of a source is its recent connections that did not prove the key, each one's weight
 * halving every ZCS_CTL_ADMIT_HALF_LIFE_MS.  A flooding address scores its connection rate times
 * ~14; a key holder polling once a second scores 1 (its own pending connection).
 *
 * Sources are counted twice: by address (IPv4 /32, IPv6 /64) and by the network they lie in, their
 * prefix (IPv4 /24, IPv6 /48).  Handshakes are ranked by their prefix's score first, their
 * address's second.  Counted by address alone, a flood from many addresses (12,000 on one LAN
 * host) fills every cell of the sketch below, so a key holder's fresh address looks as busy as
 * any flooding one and is refused; its prefixes are few (12,000 addresses span 48 /24s), so a key
 * holder in another network is always the quieter, however many addresses the flood takes there.
 * Within one prefix (the flood and the key holder on one /24 LAN) the address decides, as before:
 * a /24 holds 254 addresses, too few to fill the address sketch. */
#define ZCS_CTL_ADMIT_HALF_LIFE_MS 10000
/* A count-min sketch per level (addresses, prefixes): ROWS independent salted hashes into COLS
 * cells each, the estimate the least of a source's cells.  An attacker with 254 LAN addresses
 * meets a given source in one row with a chance of 254/2048, in all four with ~2e-4; 64 KB a
 * level. */
#define ZCS_CTL_ADMIT_ROWS 4
#define ZCS_CTL_ADMIT_COLS 2048
/* Sources that proved the key lately, remembered so their next connection is admitted and kept
 * through a flood.  Attackers cannot enter (it takes the key), so a small table is enough. */
#define ZCS_CTL_ADMIT_TRUSTED 16
/* Handshakes one source may hold at once: a fifth closes that source's oldest. */
#define ZCS_CTL_ADMIT_PER_SOURCE 4

struct zcs_ctl_admit_cell {
	float score;
	uint32_t at;            /* the time of score, in 1/256 s units (wraps after 194 days) */
};

/* The levels a source is counted at. */
enum { ZCS_CTL_ADMIT_ADDR = 0, ZCS_CTL_ADMIT_PREFIX, ZCS_CTL_ADMIT_LEVELS };

struct zcs_ctl_admit {
	uint8_t salt[16];       /* SipHash key: an attacker cannot aim at another source's cells */
	struct zcs_ctl_admit_cell cell[ZCS_CTL_ADMIT_LEVELS][ZCS_CTL_ADMIT_ROWS][ZCS_CTL_ADMIT_COLS];
	struct zcs_ctl_source trusted[ZCS_CTL_ADMIT_TRUSTED];
	uint64_t trusted_at[ZCS_CTL_ADMIT_TRUSTED];  /* ns; 0: the entry is empty */
};

/* A handshake in progress, as the decision sees it. */
struct zcs_ctl_admit_cand {
	struct zcs_ctl_source src;
	uint64_t since_ns;      /* accepted at */
};

/* What to do with a newcomer (zcs_ctl_admit_decide): a value >= 0 is the index of the handshake
 * to close first, then the newcomer takes its slot. */
#define ZCS_CTL_ADMIT_TAKE (-1)      /* a slot is free: take it */
#define ZCS_CTL_ADMIT_REFUSE (-2)    /* close the newcomer: it is the busiest source */

/* Clears a and draws a fresh salt (libsodium).  0, or -EIO when libsodium cannot start. */
int zcs_ctl_admit_init(struct zcs_ctl_admit *a);
/* The source of a peer's address (IPv4-mapped IPv6 as IPv4). */
void zcs_ctl_admit_source(const struct zcs_addr *peer, struct zcs_ctl_source *out);
/* Counts one connection from src at now_ns. */
void zcs_ctl_admit_count(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			 uint64_t now_ns);
/* src's score at now_ns (its count decayed; 0 for a source never counted): of its address, and
 * of its prefix (every address of the prefix counted together). */
double zcs_ctl_admit_score(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			   uint64_t now_ns);
double zcs_ctl_admit_prefix_score(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
				  uint64_t now_ns);
/* src proved the key: its connection is uncounted and src remembered as trusted. */
void zcs_ctl_admit_proved(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			  uint64_t now_ns);
bool zcs_ctl_admit_trusted(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src);
/* A newcomer from src (counted already) finds the n handshakes c in progress, of at most cap:
 * - src holds ZCS_CTL_ADMIT_PER_SOURCE of them: its own oldest gives way;
 * - n < cap: ZCS_CTL_ADMIT_TAKE;
 * - else the handshake of the highest prefix score gives way, of those the highest address
 *   score, the oldest among equals, trusted sources last; but a newcomer that is not trusted and
 *   ranks higher still (its prefix busier, or as busy and its address busier) is refused instead.
 * A key holder's connection, from a prefix the flood does not use, or from an address of the
 * flood's /24 it does not use, ranks below any flooding source's: it is neither refused nor
 * chosen while a flooding one is there, however many addresses the flood has. */
long zcs_ctl_admit_decide(const struct zcs_ctl_admit *a, const struct zcs_ctl_admit_cand *c,
			  size_t n, size_t cap, const struct zcs_ctl_source *src, uint64_t now_ns);

#endif
