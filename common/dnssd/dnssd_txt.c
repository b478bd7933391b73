// SPDX-License-Identifier: MIT
/* The TXT record of a _zcs._udp announcement (docs/howto-soapy.md): written by zcs-send,
 * read by the SoapySDR module's find().  Plain C, no avahi, so the cross build keeps it and the
 * unit tests check it everywhere. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dnssd.h"
#include "err.h"
#include "wire.h"

/* A value is at most this long: longer ones are refused, never cut. */
#define VALUE_MAX 64

static void dest_ip(const struct zcs_addr *a, char *buf, size_t len)
{
	if (a->ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)&a->ss)->sin_addr,
			  buf, (socklen_t)len);
	else if (a->ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)&a->ss)->sin6_addr,
			  buf, (socklen_t)len);
	else
		snprintf(buf, len, "?");
}

size_t zcs_dnssd_txt_build(const struct zcs_dnssd_stream *s,
			   char txt[ZCS_DNSSD_TXT_MAX][ZCS_DNSSD_TXT_LEN])
{
	char ip[INET6_ADDRSTRLEN];
	size_t n = 0;

	dest_ip(&s->dest, ip, sizeof(ip));
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "txtvers=%s", ZCS_DNSSD_TXTVERS);
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "id=0x%08x", (unsigned)s->stream_id);
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "dest=%s", ip);
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "port=%u", (unsigned)zcs_net_port(&s->dest));
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "fmt=%s", zcs_wire_name(s->format));
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "rate=%llu", (unsigned long long)s->rate);
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "freq=%llu", (unsigned long long)s->freq);
	snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "keyed=%s", s->keyed ? "yes" : "no");
	if (s->control_port)
		snprintf(txt[n++], ZCS_DNSSD_TXT_LEN, "control=%u", (unsigned)s->control_port);
	return n;
}

void zcs_dnssd_txt_init(struct zcs_dnssd_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->format = -1;
}

/* The port given so far: before dest= it waits in the v4 slot of an AF_UNSPEC address. */
static uint16_t stored_port(const struct zcs_dnssd_stream *s)
{
	if (s->dest.ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)&s->dest.ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)(const void *)&s->dest.ss)->sin_port);
}

/* dest= and port= arrive in either order: the address is kept with its port each time. */
static int set_dest(struct zcs_dnssd_stream *s, const char *ip)
{
	const uint16_t port = stored_port(s);
	struct in_addr v4;
	struct in6_addr v6;

	memset(&s->dest, 0, sizeof(s->dest));
	if (inet_pton(AF_INET, ip, &v4) == 1) {
		struct sockaddr_in *const sin = (struct sockaddr_in *)(void *)&s->dest.ss;

		sin->sin_family = AF_INET;
		sin->sin_addr = v4;
		sin->sin_port = htons(port);
		s->dest.len = sizeof(*sin);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &v6) == 1) {
		struct sockaddr_in6 *const sin6 = (struct sockaddr_in6 *)(void *)&s->dest.ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = v6;
		sin6->sin6_port = htons(port);
		s->dest.len = sizeof(*sin6);
		return 0;
	}
	return -EINVAL;
}

static void set_port(struct zcs_dnssd_stream *s, uint16_t port)
{
	if (s->dest.ss.ss_family == AF_INET)
		((struct sockaddr_in *)(void *)&s->dest.ss)->sin_port = htons(port);
	else if (s->dest.ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)&s->dest.ss)->sin6_port = htons(port);
	else
		/* no address yet: keep the port in an AF_UNSPEC placeholder's v4 slot */
		((struct sockaddr_in *)(void *)&s->dest.ss)->sin_port = htons(port);
}

/* id=0x%08x exactly as written: hex, so it reads as the module's serial= does */
static int parse_id(struct zcs_dnssd_stream *s, const char *val)
{
	uint32_t id = 0;
	size_t i;

	if (val[0] != '0' || val[1] != 'x' || !val[2] || strlen(val) > 10)
		return -EINVAL;
	for (i = 2; val[i]; i++) {
		if (!isxdigit((unsigned char)val[i]))
			return -EINVAL;
		id = id << 4 | (uint32_t)(isdigit((unsigned char)val[i]) ? val[i] - '0' :
					  (tolower((unsigned char)val[i]) - 'a' + 10));
	}
	s->stream_id = id;
	return 0;
}

/* The keys a reader checks; any other is ignored whatever its value (howto-soapy.md). */
static bool known_key(const char *key)
{
	static const char *const keys[] = { "id", "dest", "port", "control", "fmt", "rate", "freq",
					    "keyed" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return true;
	return false;
}

int zcs_dnssd_txt_parse(struct zcs_dnssd_stream *s, const uint8_t *buf, size_t len)
{
	char key[16], val[VALUE_MAX + 1];
	const uint8_t *eq = memchr(buf, '=', len);
	size_t klen, vlen;
	uint64_t v;

	if (!eq)
		return 0;                 /* a boolean attribute: none is ours */
	klen = (size_t)(eq - buf);
	vlen = len - klen - 1;
	if (klen >= sizeof(key) || memchr(buf, '\0', klen))
		return 0;                 /* not one of ours either */
	memcpy(key, buf, klen);
	key[klen] = '\0';
	/* a later version may add keys with any bytes in their values: only ours are checked */
	if (!known_key(key))
		return 0;
	if (vlen > VALUE_MAX || memchr(eq + 1, '\0', vlen))
		return -EINVAL;
	memcpy(val, eq + 1, vlen);
	val[vlen] = '\0';

	if (strcmp(key, "id") == 0) {
		return parse_id(s, val);
	} else if (strcmp(key, "dest") == 0) {
		return set_dest(s, val);
	} else if (strcmp(key, "port") == 0 || strcmp(key, "control") == 0) {
		if (zcs_cli_parse_u64(val, 1, 65535, &v) < 0)
			return -EINVAL;
		if (key[0] == 'p')
			set_port(s, (uint16_t)v);
		else
			s->control_port = (uint16_t)v;
	} else if (strcmp(key, "fmt") == 0) {
		const int f = zcs_wire_from_name(val);

		if (f < 0)
			return -EINVAL;
		s->format = f;
	} else if (strcmp(key, "rate") == 0 || strcmp(key, "freq") == 0) {
		if (zcs_cli_parse_u64(val, 0, UINT64_MAX / 2, &v) < 0)
			return -EINVAL;
		if (key[0] == 'r')
			s->rate = v;
		else
			s->freq = v;
	} else if (strcmp(key, "keyed") == 0) {
		if (strcmp(val, "yes") != 0 && strcmp(val, "no") != 0)
			return -EINVAL;
		s->keyed = val[0] == 'y';
	}
	return 0;
}

int zcs_dnssd_txt_complete(const struct zcs_dnssd_stream *s, char *err, size_t errlen)
{
	if (s->dest.ss.ss_family != AF_INET && s->dest.ss.ss_family != AF_INET6)
		return zcs_err(err, errlen, -EINVAL, "no dest= in its TXT record");
	if (zcs_net_port(&s->dest) == 0)
		return zcs_err(err, errlen, -EINVAL, "no port= in its TXT record");
	if (s->stream_id == 0)
		return zcs_err(err, errlen, -EINVAL, "no id= in its TXT record");
	return 0;
}
