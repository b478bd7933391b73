// SPDX-License-Identifier: MIT
/* The avahi client behind dnssd.h: zcs-send's announcement and find()'s browse, each on an
 * AvahiThreadedPoll of its own, so callbacks run on avahi's thread under its lock and the
 * caller's threads only ever take that lock briefly (an update, a copy of the results). */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>

#include "dnssd.h"
#include "err.h"
#include "text.h"

/* Streams one browse keeps: find() lists at most 16 (soapy/), a LAN rarely has more. */
#define BROWSE_MAX 32

/* ------------------------------------------------------------------------------------------ */
/* announce */

struct zcs_dnssd_announce {
	AvahiThreadedPoll *poll;      /* NULL when the client could not even be made */
	AvahiClient *client;
	AvahiEntryGroup *group;
	struct zcs_dnssd_stream s;    /* under the poll's lock once it runs */
	char *name;                   /* avahi_malloc'd: a collision renames it */
	struct zcs_log log;
	bool said_waiting;            /* "not reachable" is said once */
};

static AvahiStringList *txt_list(const struct zcs_dnssd_stream *s)
{
	char txt[ZCS_DNSSD_TXT_MAX][ZCS_DNSSD_TXT_LEN];
	const size_t n = zcs_dnssd_txt_build(s, txt);
	AvahiStringList *l = NULL;

	/* avahi_string_list_add prepends: add backwards so the record reads in txt's order */
	for (size_t i = n; i-- > 0;)
		l = avahi_string_list_add(l, txt[i]);
	return l;
}

static void add_service(struct zcs_dnssd_announce *a, AvahiClient *c);

static void group_cb(AvahiEntryGroup *g, AvahiEntryGroupState state, void *ud)
{
	struct zcs_dnssd_announce *const a = ud;

	switch (state) {
	case AVAHI_ENTRY_GROUP_ESTABLISHED:
		zcs_log(&a->log, "DNS-SD: announced as '%s' (%s)", a->name, ZCS_DNSSD_TYPE);
		break;
	case AVAHI_ENTRY_GROUP_COLLISION: {
		/* another host has the name: "zcs on board" becomes "zcs on board #2" */
		char *const next = avahi_alternative_service_name(a->name);

		if (!next)
			break;
		zcs_log(&a->log, "DNS-SD: the name '%s' is taken, announcing as '%s'", a->name,
			next);
		avahi_free(a->name);
		a->name = next;
		avahi_entry_group_reset(g);
		add_service(a, avahi_entry_group_get_client(g));
		break;
	}
	case AVAHI_ENTRY_GROUP_FAILURE:
		zcs_log(&a->log, "DNS-SD: announcement failed: %s",
			avahi_strerror(avahi_client_errno(avahi_entry_group_get_client(g))));
		break;
	default:
		break;
	}
}

/* Called on avahi's thread (or before it starts), with c running. */
static void add_service(struct zcs_dnssd_announce *a, AvahiClient *c)
{
	AvahiStringList *txt = NULL;
	int ret;

	if (!a->group) {
		a->group = avahi_entry_group_new(c, group_cb, a);
		if (!a->group) {
			zcs_log(&a->log, "DNS-SD: no entry group: %s",
				avahi_strerror(avahi_client_errno(c)));
			return;
		}
	}
	if (!avahi_entry_group_is_empty(a->group))
		return;
	txt = txt_list(&a->s);
	for (int tries = 0; tries < 16; tries++) {
		char *next;

		ret = avahi_entry_group_add_service_strlst(a->group, AVAHI_IF_UNSPEC,
							   AVAHI_PROTO_UNSPEC, 0, a->name,
							   ZCS_DNSSD_TYPE, NULL, NULL,
							   zcs_net_port(&a->s.dest), txt);
		if (ret != AVAHI_ERR_COLLISION)
			break;
		/* a name this daemon itself already announces (a second zcs-send here) */
		next = avahi_alternative_service_name(a->name);
		if (!next)
			break;
		avahi_free(a->name);
		a->name = next;
	}
	if (ret >= 0)
		ret = avahi_entry_group_commit(a->group);
	if (ret < 0)
		zcs_log(&a->log, "DNS-SD: cannot announce '%s': %s", a->name, avahi_strerror(ret));
	avahi_string_list_free(txt);
}

static void announce_client_cb(AvahiClient *c, AvahiClientState state, void *ud)
{
	struct zcs_dnssd_announce *const a = ud;

	/* c, not a->client: the first call comes from inside avahi_client_new */
	switch (state) {
	case AVAHI_CLIENT_S_RUNNING:
		add_service(a, c);
		break;
	case AVAHI_CLIENT_S_COLLISION:
	case AVAHI_CLIENT_S_REGISTERING:
		/* the daemon renames its host: announce again once it runs */
		if (a->group)
			avahi_entry_group_reset(a->group);
		break;
	case AVAHI_CLIENT_CONNECTING:
		if (!a->said_waiting)
			zcs_log(&a->log, "DNS-SD: avahi-daemon not reachable (not running): the "
				"stream is announced once it starts");
		a->said_waiting = true;
		break;
	case AVAHI_CLIENT_FAILURE:
		if (avahi_client_errno(c) == AVAHI_ERR_DISCONNECTED) {
			/* the daemon went away (a restart, an upgrade): a new client waits for it
			 * and announces again, as avahi-publish does; the old one goes with its
			 * group, freed here as avahi allows from its own callback */
			int error = 0;

			zcs_log(&a->log, "DNS-SD: avahi-daemon went away: the stream is announced "
				"again once it is back");
			avahi_client_free(c);
			a->client = NULL;
			a->group = NULL;
			a->said_waiting = true;
			a->client = avahi_client_new(avahi_threaded_poll_get(a->poll),
						     AVAHI_CLIENT_NO_FAIL, announce_client_cb, a,
						     &error);
			if (!a->client)
				zcs_log(&a->log, "DNS-SD: avahi-daemon not reachable (%s): the "
					"stream is no longer announced", avahi_strerror(error));
			break;
		}
		/* anything else: the stream goes on, unannounced */
		zcs_log(&a->log, "DNS-SD: avahi-daemon: %s: the stream is no longer announced",
			avahi_strerror(avahi_client_errno(c)));
		break;
	default:
		break;
	}
}

int zcs_dnssd_announce_start(struct zcs_dnssd_announce **out, const struct zcs_dnssd_stream *s,
			     const struct zcs_log *log, char *err, size_t errlen)
{
	struct zcs_dnssd_announce *a = calloc(1, sizeof(*a));
	int error = 0;

	*out = NULL;
	if (!a)
		return zcs_err(err, errlen, -ENOMEM, "DNS-SD: out of memory");
	a->s = *s;
	a->log = log ? *log : (struct zcs_log){ 0 };
	a->name = avahi_strdup(s->name);
	a->poll = avahi_threaded_poll_new();
	if (!a->name || !a->poll) {
		if (a->poll)
			avahi_threaded_poll_free(a->poll);
		avahi_free(a->name);
		free(a);
		return zcs_err(err, errlen, -ENOMEM, "DNS-SD: out of memory");
	}
	/* NO_FAIL: a daemon that is not running yet (or restarts) is waited for, not an error */
	a->client = avahi_client_new(avahi_threaded_poll_get(a->poll), AVAHI_CLIENT_NO_FAIL,
				     announce_client_cb, a, &error);
	if (!a->client) {
		/* no system bus at all: say so once, and stream unannounced */
		zcs_log(&a->log, "DNS-SD: avahi-daemon not reachable (%s): the stream is not "
			"announced", avahi_strerror(error));
		avahi_threaded_poll_free(a->poll);
		a->poll = NULL;
	} else if (avahi_threaded_poll_start(a->poll) < 0) {
		avahi_client_free(a->client);
		avahi_threaded_poll_free(a->poll);
		avahi_free(a->name);
		free(a);
		return zcs_err(err, errlen, -EAGAIN, "DNS-SD: cannot start avahi's thread");
	}
	*out = a;
	return 0;
}

void zcs_dnssd_announce_update(struct zcs_dnssd_announce *a, uint64_t rate, uint64_t freq,
			       int format)
{
	AvahiStringList *txt;

	if (!a || !a->poll)
		return;
	avahi_threaded_poll_lock(a->poll);
	if (a->s.rate == rate && a->s.freq == freq && a->s.format == format)
		goto out;
	a->s.rate = rate;
	a->s.freq = freq;
	a->s.format = format;
	/* not announced yet: add_service will use the new values */
	if (!a->group || avahi_entry_group_is_empty(a->group))
		goto out;
	txt = txt_list(&a->s);
	if (avahi_entry_group_update_service_txt_strlst(a->group, AVAHI_IF_UNSPEC,
							AVAHI_PROTO_UNSPEC, 0, a->name,
							ZCS_DNSSD_TYPE, NULL, txt) < 0)
		zcs_log(&a->log, "DNS-SD: cannot update '%s': %s", a->name,
			avahi_strerror(avahi_client_errno(a->client)));
	avahi_string_list_free(txt);
out:
	avahi_threaded_poll_unlock(a->poll);
}

void zcs_dnssd_announce_stop(struct zcs_dnssd_announce *a)
{
	if (!a)
		return;
	if (a->poll) {
		avahi_threaded_poll_stop(a->poll);
		/* frees the group too, which withdraws the announcement (goodbye packets) */
		if (a->client)
			avahi_client_free(a->client);
		avahi_threaded_poll_free(a->poll);
	}
	avahi_free(a->name);
	free(a);
}

/* ------------------------------------------------------------------------------------------ */
/* browse */

struct zcs_dnssd_browse {
	AvahiThreadedPoll *poll;
	AvahiClient *client;
	struct zcs_dnssd_stream found[BROWSE_MAX];   /* under the poll's lock */
	size_t n;
	struct zcs_log log;
};

static void set_sender(struct zcs_addr *to, const AvahiAddress *from, AvahiIfIndex iface)
{
	memset(to, 0, sizeof(*to));
	if (from->proto == AVAHI_PROTO_INET) {
		struct sockaddr_in *const sin = (struct sockaddr_in *)(void *)&to->ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = from->data.ipv4.address;   /* network order already */
		to->len = sizeof(*sin);
	} else if (from->proto == AVAHI_PROTO_INET6) {
		struct sockaddr_in6 *const sin6 = (struct sockaddr_in6 *)(void *)&to->ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, from->data.ipv6.address, sizeof(sin6->sin6_addr));
		if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr) && iface > 0)
			sin6->sin6_scope_id = (uint32_t)iface;
		to->len = sizeof(*sin6);
	}
}

static bool same_dest(const struct zcs_addr *a, const struct zcs_addr *b)
{
	return a->len == b->len && memcmp(&a->ss, &b->ss, a->len) == 0;
}

static void resolve_cb(AvahiServiceResolver *r, AvahiIfIndex iface, AvahiProtocol proto,
		       AvahiResolverEvent event, const char *name, const char *type,
		       const char *domain, const char *host, const AvahiAddress *addr,
		       uint16_t port, AvahiStringList *txt, AvahiLookupResultFlags flags, void *ud)
{
	struct zcs_dnssd_browse *const b = ud;
	struct zcs_dnssd_stream s;
	char why[128] = "", safe[4 * ZCS_DNSSD_NAME_MAX];
	size_t i;

	(void)proto; (void)type; (void)domain; (void)port;
	if (event != AVAHI_RESOLVER_FOUND || !name || !host || !addr)
		goto out;
	zcs_dnssd_txt_init(&s);
	/* names and TXT come from anyone on the LAN: escaped before they reach a log or a label */
	zcs_text_escape(s.name, sizeof(s.name), name);
	zcs_text_escape(s.host, sizeof(s.host), host);
	for (AvahiStringList *t = txt; t; t = avahi_string_list_get_next(t)) {
		const uint8_t *const text = avahi_string_list_get_text(t);
		const size_t len = avahi_string_list_get_size(t);

		if (zcs_dnssd_txt_parse(&s, text, len) < 0) {
			/* cut, NUL-terminated and escaped: it is anyone's bytes */
			char raw[ZCS_DNSSD_TXT_LEN], bad[4 * ZCS_DNSSD_TXT_LEN];
			const int cut = (int)(len < sizeof(raw) ? len : sizeof(raw) - 1);

			snprintf(raw, sizeof(raw), "%.*s", cut, (const char *)text);
			zcs_err(why, sizeof(why), -EINVAL, "bad TXT '%s'",
				zcs_text_escape(bad, sizeof(bad), raw));
			break;
		}
	}
	if (why[0] || zcs_dnssd_txt_complete(&s, why, sizeof(why)) < 0) {
		zcs_log(&b->log, "DNS-SD: '%s' on %s ignored: %s",
			zcs_text_escape(safe, sizeof(safe), s.name), s.host, why);
		goto out;
	}
	set_sender(&s.sender, addr, iface);
	s.ifindex = iface;
	s.local = (flags & AVAHI_LOOKUP_RESULT_LOCAL) != 0;
	/* one stream heard on two interfaces or over IPv4 and IPv6 is still one stream; its
	 * sender's address is best in the destination's family (what source= and control= take,
	 * where an IPv6 link-local one would need its zone) */
	for (i = 0; i < b->n; i++)
		if (b->found[i].stream_id == s.stream_id && same_dest(&b->found[i].dest, &s.dest))
			break;
	if (i == b->n && b->n < BROWSE_MAX)
		b->found[b->n++] = s;
	else if (i < b->n && b->found[i].sender.ss.ss_family != s.dest.ss.ss_family &&
		 s.sender.ss.ss_family == s.dest.ss.ss_family)
		b->found[i] = s;
out:
	avahi_service_resolver_free(r);
}

static void browse_cb(AvahiServiceBrowser *sb, AvahiIfIndex iface, AvahiProtocol proto,
		      AvahiBrowserEvent event, const char *name, const char *type,
		      const char *domain, AvahiLookupResultFlags flags, void *ud)
{
	struct zcs_dnssd_browse *const b = ud;

	(void)flags;
	if (event == AVAHI_BROWSER_FAILURE) {
		zcs_log(&b->log, "DNS-SD: browse failed: %s",
			avahi_strerror(avahi_client_errno(avahi_service_browser_get_client(sb))));
		return;
	}
	if (event != AVAHI_BROWSER_NEW)
		return;
	/* freed by resolve_cb, or with the client when the browse ends first; the address in the
	 * protocol the service was heard over (IPv4 mDNS: the sender's IPv4 address) */
	if (!avahi_service_resolver_new(avahi_service_browser_get_client(sb), iface, proto, name,
					type, domain, proto, 0, resolve_cb, b))
		zcs_log(&b->log, "DNS-SD: cannot resolve a service: %s",
			avahi_strerror(avahi_client_errno(avahi_service_browser_get_client(sb))));
}

static void browse_client_cb(AvahiClient *c, AvahiClientState state, void *ud)
{
	struct zcs_dnssd_browse *const b = ud;

	if (state == AVAHI_CLIENT_FAILURE)
		zcs_log(&b->log, "DNS-SD: avahi-daemon: %s", avahi_strerror(avahi_client_errno(c)));
}

int zcs_dnssd_browse_start(struct zcs_dnssd_browse **out, const struct zcs_log *log,
			   char *err, size_t errlen)
{
	struct zcs_dnssd_browse *b = calloc(1, sizeof(*b));
	int error = 0, ret;

	*out = NULL;
	if (!b)
		return zcs_err(err, errlen, -ENOMEM, "DNS-SD: out of memory");
	b->log = log ? *log : (struct zcs_log){ 0 };
	b->poll = avahi_threaded_poll_new();
	if (!b->poll) {
		ret = zcs_err(err, errlen, -ENOMEM, "DNS-SD: out of memory");
		goto out;
	}
	/* no NO_FAIL: find() is short, a daemon that is not there now will not help it */
	b->client = avahi_client_new(avahi_threaded_poll_get(b->poll), 0, browse_client_cb, b,
				     &error);
	if (!b->client) {
		ret = zcs_err(err, errlen, -ECONNREFUSED, "DNS-SD: avahi-daemon not reachable: %s",
			      avahi_strerror(error));
		goto out;
	}
	if (!avahi_service_browser_new(b->client, AVAHI_IF_UNSPEC, AVAHI_PROTO_UNSPEC,
				       ZCS_DNSSD_TYPE, NULL, 0, browse_cb, b)) {
		ret = zcs_err(err, errlen, -EIO, "DNS-SD: cannot browse %s: %s", ZCS_DNSSD_TYPE,
			      avahi_strerror(avahi_client_errno(b->client)));
		goto out;
	}
	if (avahi_threaded_poll_start(b->poll) < 0) {
		ret = zcs_err(err, errlen, -EAGAIN, "DNS-SD: cannot start avahi's thread");
		goto out;
	}
	*out = b;
	return 0;
out:
	/* the client frees its browser and resolvers */
	if (b->client)
		avahi_client_free(b->client);
	if (b->poll)
		avahi_threaded_poll_free(b->poll);
	free(b);
	return ret;
}

size_t zcs_dnssd_browse_results(struct zcs_dnssd_browse *b, struct zcs_dnssd_stream *out,
				size_t max)
{
	size_t n;

	avahi_threaded_poll_lock(b->poll);
	n = b->n < max ? b->n : max;
	memcpy(out, b->found, n * sizeof(*out));
	avahi_threaded_poll_unlock(b->poll);
	return n;
}

void zcs_dnssd_browse_stop(struct zcs_dnssd_browse *b)
{
	if (!b)
		return;
	avahi_threaded_poll_stop(b->poll);
	avahi_client_free(b->client);
	avahi_threaded_poll_free(b->poll);
	free(b);
}
