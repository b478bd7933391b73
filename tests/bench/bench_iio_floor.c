// SPDX-License-Identifier: MIT
/* The floor of the board benchmark (bench_board.sh): reads N pairs of rx1 from the radio through
 * libiio with the blocks zcs-send's iio source uses, and touches none of them: what any program
 * reading this board pays before it does anything with the samples.
 * usage: bench_iio_floor URI BLOCK_PAIRS PAIRS */
#include <errno.h>
#include <iio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct iio_context *ctx = NULL;
	struct iio_buffer *buf = NULL;
	struct iio_device *dev;
	struct iio_channel *ch[2];
	unsigned long long block, want, got = 0;
	int ret = 1;

	if (argc != 4) {
		fputs("usage: bench_iio_floor URI BLOCK_PAIRS PAIRS\n", stderr);
		return 2;
	}
	block = strtoull(argv[2], NULL, 10);
	want = strtoull(argv[3], NULL, 10);
	ctx = iio_create_context_from_uri(argv[1]);
	if (!ctx) {
		fprintf(stderr, "bench_iio_floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	dev = iio_context_find_device(ctx, "cf-ad9361-lpc");
	ch[0] = dev ? iio_device_find_channel(dev, "voltage0", false) : NULL;
	ch[1] = dev ? iio_device_find_channel(dev, "voltage1", false) : NULL;
	if (!ch[0] || !ch[1]) {
		fputs("bench_iio_floor: no cf-ad9361-lpc voltage0/1\n", stderr);
		goto out;
	}
	iio_channel_enable(ch[0]);
	iio_channel_enable(ch[1]);
	(void)iio_context_set_timeout(ctx, 2000);
	buf = iio_device_create_buffer(dev, (size_t)block, false);
	if (!buf) {
		fprintf(stderr, "bench_iio_floor: buffer: %s\n", strerror(errno));
		goto out;
	}
	while (got < want) {
		const ssize_t n = iio_buffer_refill(buf);

		if (n < 0) {
			fprintf(stderr, "bench_iio_floor: refill: %s\n", strerror((int)-n));
			goto out;
		}
		got += (unsigned long long)n / 4;
	}
	printf("pairs=%llu\n", got);
	ret = 0;
out:
	if (buf)
		iio_buffer_destroy(buf);
	iio_context_destroy(ctx);
	return ret;
}
