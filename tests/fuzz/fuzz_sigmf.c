// SPDX-License-Identifier: MIT
/* libFuzzer target for the SigMF metadata reader (sender/source/sigmf_read.c), the one parser of a file
 * a user hands zcs-send: any bytes give 0 or -EINVAL with a message, never a read past the text
 * (the input is not NUL-terminated), and a success holds only what the reader promises: a
 * NUL-terminated datatype of at most 23 characters, the type that names, and a rate of
 * 1 Hz..1 GHz or none.  The same text read twice gives the same answer.
 * Run: CC=clang meson setup -Dfuzz=true b && ninja -C b tests/fuzz/fuzz_sigmf &&
 *      b/tests/fuzz/fuzz_sigmf -runs=200000 tests/fuzz/corpus_sigmf */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Compiled in here, as fuzz_reorder.c does with reorder.c: the replay test and the fuzzer both
 * get it, and the fuzzer instruments it. */
#include "../../sender/source/sigmf_read.c"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes on the heap, so ASan sees a read one past the end */
	char *text = malloc(size ? size : 1);
	struct zcs_sigmf_info a, b;
	char err_a[256] = "", err_b[256] = "";
	int ra, rb;

	CHECK(text);
	memcpy(text, data, size);
	memset(&a, 0x5a, sizeof(a));
	memset(&b, 0xa5, sizeof(b));
	ra = zcs_sigmf_parse(text, size, &a, err_a, sizeof(err_a));
	rb = zcs_sigmf_parse(text, size, &b, err_b, sizeof(err_b));
	CHECK(ra == 0 || ra == -EINVAL);
	CHECK(ra == rb);
	if (ra < 0) {
		CHECK(err_a[0] != '\0');
		CHECK(strcmp(err_a, err_b) == 0);
	} else {
		CHECK(memchr(a.datatype, '\0', sizeof(a.datatype)) != NULL);
		CHECK(strcmp(a.datatype, b.datatype) == 0);
		CHECK(a.type == zcs_import_from_sigmf(a.datatype));
		CHECK(a.type == b.type);
		CHECK(a.rate == 0 || (a.rate >= 1 && a.rate <= 1000000000));
		CHECK(a.rate == b.rate);
	}
	free(text);
	return 0;
}
