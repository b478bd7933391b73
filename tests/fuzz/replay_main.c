// SPDX-License-Identifier: MIT
/* Replays a fuzz corpus through LLVMFuzzerTestOneInput without libFuzzer, so the committed seeds
 * (and any crash file) run as an ordinary test in every build, sanitizers included. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs one file; the buffer is exactly the file's size so ASan sees any overread. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	struct stat st;
	int ret = -1;

	if (!f || fstat(fileno(f), &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		fprintf(stderr, "replay: %s: short read\n", path);
		goto out;
	}
	LLVMFuzzerTestOneInput(buf, (size_t)st.st_size);
	ret = 0;
out:
	free(buf);
	if (f)
		fclose(f);
	return ret;
}

/* Returns the number of files replayed from path (a file or a directory), or -1. */
static long replay_path(const char *path)
{
	struct dirent *de;
	struct stat st;
	long n = 0;
	DIR *dir;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path) < 0 ? -1 : 1;
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		char child[4096];

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", path, de->d_name) >= sizeof(child) ||
		    stat(child, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(child) < 0) {
			n = -1;
			break;
		}
		n++;
	}
	closedir(dir);
	return n;
}

int main(int argc, char **argv)
{
	long total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const long n = replay_path(argv[i]);

		if (n < 0)
			return 1;
		total += n;
	}
	printf("replayed %ld inputs\n", total);
	/* an empty corpus is a broken test, not a pass */
	return total > 0 ? 0 : 1;
}
