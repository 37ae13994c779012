/* A minimal test harness: CHECK records a failure and goes on, so one run
 * reports every broken case; main returns test_result(). */
#ifndef ROCE_TESTUTIL_H
#define ROCE_TESTUTIL_H

#include <stdio.h>

static int test_failures;
static int test_checks;

#define CHECK(cond, ...)                                                              \
	do {                                                                          \
		test_checks++;                                                        \
		if (!(cond)) {                                                        \
			test_failures++;                                              \
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
		}                                                                     \
	} while (0)

static inline int test_result(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
	return test_failures || !test_checks ? 1 : 0;
}

/* A small deterministic PRNG (xorshift64*), so failures reproduce. */
static inline unsigned long long test_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

#endif
