// SPDX-License-Identifier: MIT
/* libzcs-keywatch.so, for tests only: preloaded (LD_PRELOAD), it tells at exit whether the
 * program wiped the key whose 64 hex digits ZCS_KEYWATCH_HEX holds (sodium_memzero over memory
 * holding its 32 bytes), as one line on stderr: "keywatch: wiped yes|no, fault yes|no".  With
 * ZCS_KEYWATCH_FAIL_MALLOC=N the first malloc of exactly N bytes fails (ENOMEM): an allocation
 * failure at start, which nothing else brings about ("fault" says whether it happened: a program
 * whose allocator is its own, a sanitizer build's, is not reached).  tests/security/
 * test_key_wipe.py runs zcs-recv under it; nothing ships it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t size);
void sodium_memzero(void *const pnt, const size_t len);

static uint8_t key[32];
static bool have_key, wiped, faulted;
static size_t fail_size;

__attribute__((constructor)) static void keywatch_init(void)
{
	const char *hex = getenv("ZCS_KEYWATCH_HEX"), *n = getenv("ZCS_KEYWATCH_FAIL_MALLOC");

	if (hex && strlen(hex) == 64) {
		have_key = true;
		for (size_t i = 0; i < sizeof(key); i++) {
			unsigned int b;

			if (sscanf(hex + 2 * i, "%2x", &b) != 1)
				have_key = false;
			key[i] = (uint8_t)b;
		}
	}
	if (n)
		fail_size = (size_t)strtoull(n, NULL, 10);
}

void *malloc(size_t size)
{
	if (fail_size && size == fail_size && !faulted) {
		faulted = true;
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(size);
}

void sodium_memzero(void *const pnt, const size_t len)
{
	volatile uint8_t *p = pnt;

	if (have_key && len >= sizeof(key) && memmem(pnt, len, key, sizeof(key)))
		wiped = true;
	for (size_t i = 0; i < len; i++)
		p[i] = 0;
}

__attribute__((destructor)) static void keywatch_report(void)
{
	char line[64];
	const int n = snprintf(line, sizeof(line), "keywatch: wiped %s, fault %s\n",
			       wiped ? "yes" : "no", faulted ? "yes" : "no");

	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0) {
		/* nothing to do: the test then finds no report and fails */
	}
}
