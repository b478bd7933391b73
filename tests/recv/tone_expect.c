// SPDX-License-Identifier: MIT
/* zcs-tone-expect: writes to stdout the bytes zcs-recv must put out for zcs-send's seeded tone
 * (sender/source/synth.h defines it sample by sample), through a wire format into a consumer type.
 * Usage: zcs-tone-expect RATE TONE_HZ AMPLITUDE SEED NOISE(0|1) WIRE TYPE FIRST COUNT */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats.h"
#include "synth.h"

#define CHUNK 4096

int main(int argc, char **argv)
{
	static int16_t raw[2 * CHUNK];
	static uint8_t wire[4 * CHUNK], conv[8 * CHUNK];
	struct zcs_kernels k;
	struct zcs_synth s;
	uint64_t first, count;
	int wire_fmt, type;
	size_t pb;

	if (argc != 10) {
		fprintf(stderr, "usage: zcs-tone-expect RATE TONE_HZ AMPLITUDE SEED NOISE WIRE TYPE FIRST COUNT\n");
		return 2;
	}
	wire_fmt = zcs_wire_from_name(argv[6]);
	type = zcs_sample_from_name(argv[7]);
	if (wire_fmt < 0 || type < 0) {
		fprintf(stderr, "zcs-tone-expect: bad wire format or type\n");
		return 2;
	}
	zcs_synth_init(&s, true, atoi(argv[5]) != 0, atof(argv[2]), strtoull(argv[1], NULL, 0),
		       atof(argv[3]), strtoull(argv[4], NULL, 0));
	first = strtoull(argv[8], NULL, 0);
	count = strtoull(argv[9], NULL, 0);
	/* the scalar kernels are the reference; the SIMD ones are checked against them elsewhere */
	zcs_kernels_init(&k, ZCS_ISA_SCALAR);
	pb = zcs_sample_pair_bytes((enum zcs_sample_type)type, wire_fmt);
	for (uint64_t n = first; n < first + count;) {
		const size_t m = first + count - n < CHUNK ? (size_t)(first + count - n) : CHUNK;

		for (size_t j = 0; j < m; j++)
			zcs_synth_sample(&s, n + j, &raw[2 * j], &raw[2 * j + 1]);
		k.pack[wire_fmt](wire, raw, m);
		k.unpack[wire_fmt][type](conv, wire, m);
		if (fwrite(conv, 1, m * pb, stdout) != m * pb)
			return 1;
		n += m;
	}
	return 0;
}
