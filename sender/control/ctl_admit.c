// SPDX-License-Identifier: MIT
/* The control listener's admission of handshakes under a flood (ctl_admit.h): decaying counts
 * per address and per prefix in salted count-min sketches, a small table of sources that proved
 * the key, and the choice of which handshake gives way. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <sodium.h>
#include <string.h>

#include "ctl_admit.h"

/* Time in 1/256 s: fine enough against a 10 s half-life, and 32 bits last 194 days. */
static uint32_t ticks(uint64_t now_ns)
{
	return (uint32_t)(now_ns / (1000000000ULL / 256));
}

static float decayed(const struct zcs_ctl_admit_cell *c, uint32_t now)
{
	const uint32_t dt = now - c->at;

	if (c->score == 0.0f)
		return 0.0f;
	return c->score * exp2f(-(float)dt / (256.0f * ZCS_CTL_ADMIT_HALF_LIFE_MS / 1000.0f));
}

/* The key src is counted under at a level: its address, or its prefix (IPv4 /24: the first 3
 * bytes; IPv6 /48: the first 6 of the /64 kept), marked in byte 14 so that no prefix is ever
 * an address. */
static void level_key(const struct zcs_ctl_source *src, int level, uint8_t out[16])
{
	memcpy(out, src->b, 16);
	if (level == ZCS_CTL_ADMIT_PREFIX) {
		if (src->b[15] == 6)
			memset(out + 6, 0, 2);
		else
			out[3] = 0;
		out[14] = 0x24;
	}
}

/* The source's column in each row of a level: one SipHash under the salt, 11 bits of it per
 * row. */
static void columns(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src, int level,
		    size_t col[ZCS_CTL_ADMIT_ROWS])
{
	uint8_t h[crypto_shorthash_BYTES], k[16];
	uint64_t v = 0;

	_Static_assert(sizeof(a->salt) == crypto_shorthash_KEYBYTES, "a SipHash key");
	_Static_assert(ZCS_CTL_ADMIT_ROWS * 11 <= 64 && ZCS_CTL_ADMIT_COLS == 1 << 11,
		       "every row's column from its own bits of one hash");
	level_key(src, level, k);
	crypto_shorthash(h, k, sizeof(k), a->salt);
	for (size_t i = 0; i < sizeof(h); i++)
		v = v << 8 | h[i];
	for (size_t r = 0; r < ZCS_CTL_ADMIT_ROWS; r++)
		col[r] = (size_t)(v >> (11 * r)) & (ZCS_CTL_ADMIT_COLS - 1);
}

int zcs_ctl_admit_init(struct zcs_ctl_admit *a)
{
	memset(a, 0, sizeof(*a));
	if (sodium_init() < 0)
		return -EIO;
	randombytes_buf(a->salt, sizeof(a->salt));
	return 0;
}

void zcs_ctl_admit_source(const struct zcs_addr *peer, struct zcs_ctl_source *out)
{
	memset(out, 0, sizeof(*out));
	if (peer->ss.ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)&peer->ss;

		memcpy(out->b, &sin->sin_addr, 4);
	} else if (peer->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)&peer->ss;

		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
			memcpy(out->b, s6->sin6_addr.s6_addr + 12, 4);
		} else {
			/* a 6 in the last byte keeps a /64 apart from any IPv4 address */
			memcpy(out->b, s6->sin6_addr.s6_addr, 8);
			out->b[15] = 6;
		}
	}
}

static double level_score(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			  int level, uint64_t now_ns)
{
	size_t col[ZCS_CTL_ADMIT_ROWS];
	const uint32_t now = ticks(now_ns);
	float least = INFINITY;

	columns(a, src, level, col);
	for (size_t r = 0; r < ZCS_CTL_ADMIT_ROWS; r++) {
		const float v = decayed(&a->cell[level][r][col[r]], now);

		if (v < least)
			least = v;
	}
	return least;
}

double zcs_ctl_admit_score(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			   uint64_t now_ns)
{
	return level_score(a, src, ZCS_CTL_ADMIT_ADDR, now_ns);
}

double zcs_ctl_admit_prefix_score(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
				  uint64_t now_ns)
{
	return level_score(a, src, ZCS_CTL_ADMIT_PREFIX, now_ns);
}

/* Adds delta to src's estimate: a cell is raised only as far as the new estimate (conservative
 * update, so a busy neighbour in one row does not inflate the others) and lowered never below 0. */
static void add_level(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src, int level,
		      uint64_t now_ns, float delta)
{
	size_t col[ZCS_CTL_ADMIT_ROWS];
	const uint32_t now = ticks(now_ns);
	const float est = (float)level_score(a, src, level, now_ns) + delta;

	columns(a, src, level, col);
	for (size_t r = 0; r < ZCS_CTL_ADMIT_ROWS; r++) {
		struct zcs_ctl_admit_cell *c = &a->cell[level][r][col[r]];
		float v = decayed(c, now);

		if (delta > 0 && v < est)
			v = est;
		else if (delta < 0)
			v = v + delta > 0 ? v + delta : 0;
		c->score = v;
		c->at = now;
	}
}

static void add(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src, uint64_t now_ns,
		float delta)
{
	for (int level = 0; level < ZCS_CTL_ADMIT_LEVELS; level++)
		add_level(a, src, level, now_ns, delta);
}

void zcs_ctl_admit_count(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			 uint64_t now_ns)
{
	add(a, src, now_ns, 1.0f);
}

static bool same(const struct zcs_ctl_source *x, const struct zcs_ctl_source *y)
{
	return memcmp(x->b, y->b, sizeof(x->b)) == 0;
}

bool zcs_ctl_admit_trusted(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src)
{
	for (size_t i = 0; i < ZCS_CTL_ADMIT_TRUSTED; i++)
		if (a->trusted_at[i] && same(&a->trusted[i], src))
			return true;
	return false;
}

void zcs_ctl_admit_proved(struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			  uint64_t now_ns)
{
	size_t slot = 0;

	add(a, src, now_ns, -1.0f);
	/* the entry of src, else the one proved longest ago (an empty one first) */
	for (size_t i = 0; i < ZCS_CTL_ADMIT_TRUSTED; i++) {
		if (a->trusted_at[i] && same(&a->trusted[i], src)) {
			slot = i;
			break;
		}
		if (a->trusted_at[i] < a->trusted_at[slot])
			slot = i;
	}
	a->trusted[slot] = *src;
	a->trusted_at[slot] = now_ns ? now_ns : 1;
}

/* How busy a source ranks: its prefix first, its address among equal prefixes. */
struct rank {
	double prefix, addr;
};

static struct rank rank_of(const struct zcs_ctl_admit *a, const struct zcs_ctl_source *src,
			   uint64_t now_ns)
{
	return (struct rank){ zcs_ctl_admit_prefix_score(a, src, now_ns),
			      zcs_ctl_admit_score(a, src, now_ns) };
}

/* -1, 0 or 1 as x ranks below, with or above y. */
static int rank_cmp(struct rank x, struct rank y)
{
	if (x.prefix != y.prefix)
		return x.prefix < y.prefix ? -1 : 1;
	if (x.addr != y.addr)
		return x.addr < y.addr ? -1 : 1;
	return 0;
}

long zcs_ctl_admit_decide(const struct zcs_ctl_admit *a, const struct zcs_ctl_admit_cand *c,
			  size_t n, size_t cap, const struct zcs_ctl_source *src, uint64_t now_ns)
{
	const bool src_trusted = zcs_ctl_admit_trusted(a, src);
	long own = -1, victim = -1;
	size_t held = 0;
	struct rank victim_rank = { 0, 0 };
	bool victim_trusted = true;

	for (size_t i = 0; i < n; i++) {
		if (!same(&c[i].src, src))
			continue;
		held++;
		if (own < 0 || c[i].since_ns < c[own].since_ns)
			own = (long)i;
	}
	if (held >= ZCS_CTL_ADMIT_PER_SOURCE)
		return own;
	if (n < cap)
		return ZCS_CTL_ADMIT_TAKE;
	/* every slot held: the untrusted handshake of the busiest prefix's busiest source, the
	 * oldest among equals; a trusted one only when there is no other */
	for (size_t i = 0; i < n; i++) {
		const bool t = zcs_ctl_admit_trusted(a, &c[i].src);
		const struct rank r = rank_of(a, &c[i].src, now_ns);
		bool better;

		if (victim < 0 || t != victim_trusted) {
			better = victim < 0 || !t;
		} else {
			const int cmp = rank_cmp(r, victim_rank);

			better = cmp > 0 || (cmp == 0 && c[i].since_ns < c[victim].since_ns);
		}
		if (better) {
			victim = (long)i;
			victim_rank = r;
			victim_trusted = t;
		}
	}
	if (victim < 0)
		return ZCS_CTL_ADMIT_REFUSE;        /* cap 0: nothing to give way */
	if (!src_trusted && (victim_trusted ||
			     rank_cmp(rank_of(a, src, now_ns), victim_rank) > 0))
		return ZCS_CTL_ADMIT_REFUSE;
	return victim;
}
