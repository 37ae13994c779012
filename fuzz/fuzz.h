/*
 * What every fuzz target shares. A target is one C file under targets/
 * defining LLVMFuzzerTestOneInput (and optionally LLVMFuzzerInitialize and
 * fuzz_make_seeds). It is linked twice: with libFuzzer (-DROCE_FUZZ=ON,
 * clang), and with replay.c into a plain program that runs saved inputs
 * (seeds, regression inputs) through the same entry point in every build.
 */
#ifndef ROCE_FUZZ_H
#define ROCE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Writes generated seed inputs into dir (replay --make-seeds DIR [ARGS]);
 * args are target-specific (e.g. capture files). Returns how many were
 * written, or -1 on error. Optional. */
int fuzz_make_seeds(const char *dir, int argc, char **argv);

/* A property the target checks failed: report and abort, so that
 * libFuzzer keeps the input and the replay run fails. */
#define FUZZ_CHECK(cond, ...)                                                        \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, \
				#cond);                                              \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
			abort();                                                     \
		}                                                                    \
	} while (0)

/* Writes one seed file dir/name; returns 0 or -1. */
int fuzz_write_seed(const char *dir, const char *name, const void *data, size_t len);

#endif
