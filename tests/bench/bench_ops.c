// SPDX-License-Identifier: MIT
/* One call of one conversion kernel (or memcpy of the same input bytes) over PAIRS pairs, for
 * counting instructions under qemu-arm (bench_ops.sh): two runs of different PAIRS, subtracted,
 * leave the kernel's own instructions per pair, start-up and libc cancelled out.  A count, not a
 * timing: docs/board.md projects the board from it.
 * usage: bench_ops none|memcpy|scalar|best i8|p12|i16 PAIRS   (none: only the set-up) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

int main(int argc, char **argv)
{
	struct zcs_kernels k;
	enum zcs_wire_format f;
	size_t pairs;
	int16_t *src;
	uint8_t *dst;

	if (argc != 4) {
		fputs("usage: bench_ops none|memcpy|scalar|best i8|p12|i16 PAIRS\n", stderr);
		return 2;
	}
	if (!strcmp(argv[2], "i8"))
		f = ZCS_WIRE_I8;
	else if (!strcmp(argv[2], "p12"))
		f = ZCS_WIRE_P12;
	else
		f = ZCS_WIRE_I16;
	pairs = strtoul(argv[3], NULL, 10);
	if (zcs_kernels_init(&k, !strcmp(argv[1], "scalar") ? ZCS_ISA_SCALAR : ZCS_ISA_BEST) < 0)
		return 1;
	src = malloc(pairs * 4 + 64);
	dst = malloc(pairs * 4 + 64);
	if (!src || !dst)
		return 1;
	for (size_t i = 0; i < 2 * pairs; i++)
		src[i] = (int16_t)((i * 2654435761u) >> 20) - 2048;
	memset(dst, 0, pairs * 4);
	if (!strcmp(argv[1], "memcpy"))
		memcpy(dst, src, pairs * 4);
	else if (strcmp(argv[1], "none"))
		k.pack[f](dst, src, pairs);
	/* the result is used, so no call is optimised away */
	printf("%s %s %s %zu %u\n", argv[1], zcs_isa_name(k.isa), argv[2], pairs, dst[pairs / 2]);
	free(src);
	free(dst);
	return 0;
}
