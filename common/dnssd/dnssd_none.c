// SPDX-License-Identifier: MIT
/* dnssd.h's avahi client in a build without avahi (-Davahi=disabled, the board's cross build):
 * nothing is announced or browsed.  zcs-send refuses --announce before it gets here; find()
 * simply lists what it hears. */
#include <errno.h>

#include "dnssd.h"
#include "err.h"

int zcs_dnssd_announce_start(struct zcs_dnssd_announce **out, const struct zcs_dnssd_stream *s,
			     const struct zcs_log *log, char *err, size_t errlen)
{
	(void)s; (void)log;
	*out = NULL;
	return zcs_err(err, errlen, -EOPNOTSUPP, "DNS-SD: this build has no avahi");
}

void zcs_dnssd_announce_update(struct zcs_dnssd_announce *a, uint64_t rate, uint64_t freq,
			       int format)
{
	(void)a; (void)rate; (void)freq; (void)format;
}

void zcs_dnssd_announce_stop(struct zcs_dnssd_announce *a)
{
	(void)a;
}

int zcs_dnssd_browse_start(struct zcs_dnssd_browse **out, const struct zcs_log *log,
			   char *err, size_t errlen)
{
	(void)log;
	*out = NULL;
	return zcs_err(err, errlen, -EOPNOTSUPP, "DNS-SD: this build has no avahi");
}

size_t zcs_dnssd_browse_results(struct zcs_dnssd_browse *b, struct zcs_dnssd_stream *out,
				size_t max)
{
	(void)b; (void)out; (void)max;
	return 0;
}

void zcs_dnssd_browse_stop(struct zcs_dnssd_browse *b)
{
	(void)b;
}
