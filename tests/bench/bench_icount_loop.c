// SPDX-License-Identifier: MIT
/* The instruction-count self-check of bench_board_icount.sh: on the ARM guest run with qemu's
 * -icount shift=0, a process's CPU time is the count of instructions it executed (1 ns each).
 * This loop executes a known count, two instructions an iteration (subs, bne), and prints its own
 * user + system time from getrusage, which should then read 2 x ITERATIONS ns.
 * usage: bench_icount_loop ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	char *end;
	unsigned long n, iters;

	if (argc != 2) {
		fputs("usage: bench_icount_loop ITERATIONS\n", stderr);
		return 2;
	}
	n = strtoul(argv[1], &end, 10);
	if (*end || n == 0) {
		fputs("bench_icount_loop: ITERATIONS is a positive number\n", stderr);
		return 2;
	}
	iters = n;
#if defined(__arm__)
	/* the count is the point: written so the compiler can neither drop nor unroll it */
	__asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
#else
#error "bench_icount_loop counts ARM instructions"
#endif
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 1;
	printf("iterations=%lu instructions=%llu cpu_ns=%lld\n", iters, 2ull * iters,
	       ((long long)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
		       ((long long)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll);
	return 0;
}
