// SPDX-License-Identifier: MIT
/* Control-channel settings of a source that is not a radio (tone, noise, file, stdin): the
 * centre frequency is metadata only, so it may be set; nothing else can change mid-stream. */
#include <errno.h>

#include "err.h"
#include "source.h"
#include "wire.h"

int zcs_source_tune_meta(struct zcs_source *s, const struct zcs_ctl_settings *want,
			 uint32_t *refused, char *err, size_t errlen)
{
	const uint32_t other = want->have & ~(uint32_t)ZCS_CTL_FREQ;

	*refused = 0;
	if (other) {
		/* name the first one refused: the rest would be refused for the same reason */
		for (uint32_t bit = 1; bit <= ZCS_CTL_ALL; bit <<= 1) {
			if (other & bit) {
				*refused = bit;
				break;
			}
		}
		return zcs_err(err, errlen, -EOPNOTSUPP, "%s: the %s source is not a radio: only "
			       "freq (announced as metadata) can be set", zcs_ctl_field_name(*refused),
			       s->ops->name);
	}
	if (want->have & ZCS_CTL_FREQ)
		s->info.center_freq = want->freq;
	return 0;
}

void zcs_source_caps_meta(const struct zcs_source *s, struct zcs_ctl_caps *caps)
{
	*caps = (struct zcs_ctl_caps){
		.freq_min = 0, .freq_max = 100000000000ULL,
		.rate_min = s->info.sample_rate, .rate_max = s->info.sample_rate,
		.formats = 1u << ZCS_WIRE_I8 | 1u << ZCS_WIRE_P12 | 1u << ZCS_WIRE_I16,
		.settable = ZCS_CTL_FREQ,
	};
}
