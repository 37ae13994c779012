/*
 * The replay driver: runs files through a fuzz target's entry point
 * without libFuzzer, so that every saved input (regression inputs, seeds)
 * is a test of the normal and the sanitizer builds.
 *
 *   replay-TARGET PATH...                 each file, or each file of a directory
 *   replay-TARGET --make-seeds DIR [ARG...]  write the target's generated seeds
 *
 * Prints one line per path and "N inputs, 0 failed"; a failing input
 * aborts (the target's property check or a sanitizer), naming the file
 * first.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

__attribute__((weak)) int fuzz_make_seeds(const char *dir, int argc, char **argv)
{
	(void)dir;
	(void)argc;
	(void)argv;
	fprintf(stderr, "replay: this target has no seed generator\n");
	return -1;
}

static unsigned long n_inputs, n_unreadable;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		n_unreadable++;
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		return -1;
	}
	/* An exact-size copy, so that a read past the end is an ASan report. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	n_inputs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t count = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue; /* ., .., and hidden files such as .gitkeep */
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof *names);
			if (!nn)
				break;
			names = nn;
		}
		names[count++] = strdup(e->d_name);
	}
	closedir(d);
	if (count)
		qsort(names, count, sizeof *names, cmp_names); /* a stable order */
	int rc = 0;
	for (size_t i = 0; i < count; i++) {
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, names[i]);
		if (run_path(sub) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--make-seeds") == 0) {
		mkdir(argv[2], 0755);
		int n = fuzz_make_seeds(argv[2], argc - 3, argv + 3);
		if (n < 0)
			return 1;
		printf("%d seeds written to %s\n", n, argv[2]);
		return 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH... | --make-seeds DIR [ARG...]\n", argv[0]);
		return 2;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) != 0)
			rc = 1;
	printf("%lu passed, %lu failed\n", n_inputs, n_unreadable);
	if (n_inputs == 0)
		rc = 1; /* an empty run tests nothing */
	return rc;
}
