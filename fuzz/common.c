/* Helpers linked into both builds of every target (libFuzzer and replay). */
#include "fuzz.h"

#include <errno.h>
#include <string.h>

int fuzz_write_seed(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t w = fwrite(data, 1, len, f);
	if (fclose(f) != 0 || w != len) {
		fprintf(stderr, "replay: %s: write failed\n", path);
		return -1;
	}
	return 0;
}

