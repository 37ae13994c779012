/*
 * Checks roce_crc32() and roce_crc32_or64(), through the dispatcher and
 * every implementation this CPU supports (libdeflate with the masked
 * copy; the AVX-512 path where the CPU has it), against zlib's crc32().  Returns
 * 0 on success; on the first mismatch prints the case and returns 1.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS; the project build defines it too */
#endif

#include "crc32_impl.h"
#include "roce/crc32.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_EXHAUSTIVE_LEN 2048
#define MAX_RANDOM_LEN 70000
#define MAX_OR64_EXHAUSTIVE_LEN 300
#define MAX_OR64_RANDOM_LEN 10000
#define DISPATCH (-1) /* "implementation" number of roce_crc32() itself */

static int impls[8];
static int impl_count;
static unsigned long checks;

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t rng_next(void)
{
	/* xorshift64*: deterministic, so a failure reproduces. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(0x2545F4914F6CDD1D);
}

static size_t rng_below(size_t n)
{
	return (size_t)(rng_next() % n);
}

static const char *impl_label(int impl)
{
	return impl == DISPATCH ? "roce_crc32" : roce_crc32_impl_name(impl);
}

static uint32_t run(int impl, uint32_t crc, const void *buf, size_t len)
{
	return impl == DISPATCH ? roce_crc32(crc, buf, len) : roce_crc32_impl(impl, crc, buf, len);
}

static uint32_t run_or64(int impl, uint32_t crc, const void *buf, size_t len,
			 const uint8_t *or64)
{
	return impl == DISPATCH ? roce_crc32_or64(crc, buf, len, or64)
				: roce_crc32_or64_impl(impl, crc, buf, len, or64);
}

static uint32_t zlib_crc(uint32_t crc, const uint8_t *buf, size_t len)
{
	return (uint32_t)crc32(crc, buf, (uInt)len);
}

/* What roce_crc32_or64() must give: zlib's CRC of a copy with the mask ORed in. */
static uint32_t zlib_crc_or64(uint32_t crc, const uint8_t *buf, size_t len, const uint8_t *or64)
{
	uint8_t head[64];
	size_t n = len < 64 ? len : 64;
	for (size_t i = 0; i < n; i++)
		head[i] = buf[i] | or64[i];
	return zlib_crc(zlib_crc(crc, head, n), buf + n, len - n);
}

/* Dense, sparse (whole bytes, as the ICRC masks) or single-bit masks. */
static void random_mask(uint8_t or64[64])
{
	size_t kind = rng_below(3);
	size_t bit = rng_below(64 * 8);
	for (size_t i = 0; i < 64; i++) {
		if (kind == 0)
			or64[i] = (uint8_t)rng_next();
		else if (kind == 1)
			or64[i] = rng_below(8) == 0 ? 0xff : 0;
		else
			or64[i] = i == bit / 8 ? (uint8_t)(1u << (bit % 8)) : 0;
	}
}

static int check(int impl, const char *what, size_t len, size_t align, uint32_t crc_in,
		 uint32_t got, uint32_t want)
{
	checks++;
	if (got == want)
		return 0;
	printf("FAIL %s: impl=%s len=%zu align=%zu crc_in=0x%08x got=0x%08x want=0x%08x\n", what,
	       impl_label(impl), len, align, crc_in, got, want);
	return 1;
}

static int check_or64(int impl, const char *what, size_t len, size_t align, uint32_t crc_in,
		      const uint8_t *buf, const uint8_t *or64)
{
	checks++;
	uint32_t got = run_or64(impl, crc_in, buf, len, or64);
	uint32_t want = zlib_crc_or64(crc_in, buf, len, or64);
	if (got == want)
		return 0;
	printf("FAIL or64 %s: impl=%s len=%zu align=%zu crc_in=0x%08x got=0x%08x want=0x%08x "
	       "mask:",
	       what, impl_label(impl), len, align, crc_in, got, want);
	for (size_t i = 0; i < 64; i++)
		printf(" %02x", or64[i]);
	printf("\n");
	return 1;
}

static int test_known_values(int impl)
{
	static const uint8_t ff8[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t empty[1];
	static const uint8_t zero64[64];
	uint8_t ff64[64];
	memset(ff64, 0xff, sizeof ff64);

	/* The empty input leaves any CRC unchanged, even with a NULL buffer. */
	return check(impl, "\"123456789\"", 9, 0, 0, run(impl, 0, "123456789", 9), 0xCBF43926u) ||
	       check(impl, "ff*8 (ICRC prefix)", 8, 0, 0, run(impl, 0, ff8, 8), 0x2144DF1Cu) ||
	       check(impl, "ff*8 is ~0xDEBB20E3", 8, 0, 0, run(impl, 0, ff8, 8), ~0xDEBB20E3u) ||
	       check(impl, "NULL, 0", 0, 0, 0x12345678, run(impl, 0x12345678, NULL, 0),
		     0x12345678) ||
	       check(impl, "empty", 0, 0, 0x9abcdef0, run(impl, 0x9abcdef0, empty, 0),
		     0x9abcdef0) ||
	       check(impl, "or64 NULL, 0", 0, 0, 0x12345678,
		     run_or64(impl, 0x12345678, NULL, 0, ff64), 0x12345678) ||
	       check(impl, "or64 ff*8 from zeros", 8, 0, 0, run_or64(impl, 0, zero64, 8, ff64),
		     0x2144DF1Cu);
}

/*
 * Every length 0..MAX_EXHAUSTIVE_LEN at every alignment 0..15.  Each case
 * gets its own heap block that ends exactly where the data ends, so the
 * sanitizers catch any over-read.
 */
static int test_exhaustive(const uint8_t *src)
{
	for (size_t len = 0; len <= MAX_EXHAUSTIVE_LEN; len++) {
		for (size_t align = 0; align < 16; align++) {
			uint8_t *block = malloc(align + len > 0 ? align + len : 1);
			if (block == NULL) {
				printf("FAIL: out of memory\n");
				return 1;
			}
			uint8_t *buf = block + align;
			memcpy(buf, src + align, len);
			uint32_t crc_in = (uint32_t)rng_next();
			uint32_t want0 = zlib_crc(0, buf, len);
			uint32_t want = zlib_crc(crc_in, buf, len);
			int failed = 0;
			for (int i = 0; i < impl_count && !failed; i++) {
				failed = check(impls[i], "exhaustive", len, align, 0,
					       run(impls[i], 0, buf, len), want0) ||
					 check(impls[i], "exhaustive", len, align, crc_in,
					       run(impls[i], crc_in, buf, len), want);
			}
			free(block);
			if (failed)
				return 1;
		}
	}
	return 0;
}

/*
 * roce_crc32_or64() at every length 0..MAX_OR64_EXHAUSTIVE_LEN and
 * alignment 0..15, with a random mask and with an all-zero one (which must
 * give roce_crc32()).  Message and mask get their own heap blocks, each
 * ending where its bytes end, so the sanitizers catch any over-read.
 */
static int test_or64_exhaustive(const uint8_t *src)
{
	uint8_t *or64 = malloc(64);
	uint8_t *zero = calloc(64, 1);
	int failed = or64 == NULL || zero == NULL;
	if (failed)
		printf("FAIL: out of memory\n");
	for (size_t len = 0; len <= MAX_OR64_EXHAUSTIVE_LEN && !failed; len++) {
		for (size_t align = 0; align < 16 && !failed; align++) {
			uint8_t *block = malloc(align + len > 0 ? align + len : 1);
			if (block == NULL) {
				printf("FAIL: out of memory\n");
				failed = 1;
				break;
			}
			uint8_t *buf = block + align;
			memcpy(buf, src + align, len);
			random_mask(or64);
			uint32_t crc_in = align % 2 ? (uint32_t)rng_next() : 0;
			for (int i = 0; i < impl_count && !failed; i++) {
				failed = check_or64(impls[i], "exhaustive", len, align, crc_in, buf,
						    or64) ||
					 check(impls[i], "or64 zero mask", len, align, crc_in,
					       run_or64(impls[i], crc_in, buf, len, zero),
					       run(impls[i], crc_in, buf, len));
			}
			free(block);
		}
	}
	free(or64);
	free(zero);
	return failed;
}

static int test_or64_random(const uint8_t *src, int rounds)
{
	uint8_t or64[64];
	static const uint8_t zero[64];
	for (int r = 0; r < rounds; r++) {
		size_t len = rng_below(MAX_OR64_RANDOM_LEN + 1);
		size_t align = rng_below(64);
		uint32_t crc_in = r % 2 ? (uint32_t)rng_next() : 0;
		random_mask(or64);
		for (int i = 0; i < impl_count; i++) {
			if (check_or64(impls[i], "random length", len, align, crc_in, src + align,
				       or64) ||
			    check(impls[i], "or64 zero mask", len, align, crc_in,
				  run_or64(impls[i], crc_in, src + align, len, zero),
				  run(impls[i], crc_in, src + align, len)))
				return 1;
		}
	}
	return 0;
}

static int test_random_lengths(const uint8_t *src, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		size_t len = rng_below(MAX_RANDOM_LEN + 1);
		size_t align = rng_below(64);
		uint32_t crc_in = r % 2 ? (uint32_t)rng_next() : 0;
		uint32_t want = zlib_crc(crc_in, src + align, len);
		for (int i = 0; i < impl_count; i++) {
			if (check(impls[i], "random length", len, align, crc_in,
				  run(impls[i], crc_in, src + align, len), want))
				return 1;
		}
	}
	return 0;
}

/* The CRC continued over 2-5 pieces equals the CRC of the whole. */
static int test_split_points(const uint8_t *src, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		/* Mostly packet-sized inputs, sometimes large ones. */
		size_t len = rng_below(r % 4 ? 600 : MAX_RANDOM_LEN + 1);
		size_t align = rng_below(64);
		size_t pieces = 2 + rng_below(4);
		size_t cuts[6] = { 0 };
		for (size_t c = 1; c < pieces; c++)
			cuts[c] = rng_below(len + 1);
		cuts[pieces] = len;
		/* Sort the inner cut points (at most 4 of them). */
		for (size_t a = 1; a < pieces; a++)
			for (size_t b = a + 1; b < pieces; b++)
				if (cuts[b] < cuts[a]) {
					size_t t = cuts[a];
					cuts[a] = cuts[b];
					cuts[b] = t;
				}
		const uint8_t *buf = src + align;
		uint32_t want = zlib_crc(0, buf, len);
		for (int i = 0; i < impl_count; i++) {
			uint32_t crc = 0;
			for (size_t c = 0; c < pieces; c++)
				crc = run(impls[i], crc, buf + cuts[c], cuts[c + 1] - cuts[c]);
			if (crc != want) {
				printf("FAIL split: impl=%s len=%zu align=%zu pieces at",
				       impl_label(impls[i]), len, align);
				for (size_t c = 1; c < pieces; c++)
					printf(" %zu", cuts[c]);
				printf(": got=0x%08x want=0x%08x\n", crc, want);
				return 1;
			}
			checks++;
		}
	}
	return 0;
}

/*
 * Inputs that end right before, or start right after, an inaccessible
 * page: catches vector loads that stray outside the buffer, which the heap
 * tests cannot see for masked loads.
 */
static int test_guard_pages(const uint8_t *src)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *map =
	    mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		printf("FAIL: mmap\n");
		return 1;
	}
	uint8_t *data = map + page;
	memcpy(data, src, page);
	if (mprotect(map, page, PROT_NONE) != 0 || mprotect(data + page, page, PROT_NONE) != 0) {
		printf("FAIL: mprotect\n");
		return 1;
	}
	/* The masks, read as 64 bytes, against the guard pages too: each at the
	 * other end of the page from its message. */
	uint8_t *mask_at_end = data + page - 64;
	random_mask(mask_at_end);
	memcpy(data, mask_at_end, 64);
	const uint8_t *mask_at_start = data;
	int failed = 0;
	for (size_t len = 0; len <= 512 && !failed; len++) {
		const uint8_t *at_end = data + page - len;
		uint32_t want_end = zlib_crc(0, at_end, len);
		uint32_t want_start = zlib_crc(0, data, len);
		for (int i = 0; i < impl_count && !failed; i++) {
			failed = check(impls[i], "ends at guard page", len, 0, 0,
				       run(impls[i], 0, at_end, len), want_end) ||
				 check(impls[i], "starts after guard page", len, 0, 0,
				       run(impls[i], 0, data, len), want_start) ||
				 check_or64(impls[i], "ends at guard page", len, 0, 0, at_end,
					    mask_at_start) ||
				 check_or64(impls[i], "starts after guard page", len, 0, 0, data,
					    mask_at_end);
		}
	}
	munmap(map, 3 * page);
	return failed;
}

int main(void)
{
	printf("test_crc32: implementations:");
	for (int impl = 0; impl < roce_crc32_impl_count(); impl++) {
		int ok = roce_crc32_impl_supported(impl);
		printf(" %s%s", roce_crc32_impl_name(impl), ok ? "" : " (unsupported, skipped)");
		if (ok)
			impls[impl_count++] = impl;
	}
	impls[impl_count++] = DISPATCH;
	printf("\n");

	uint8_t *src = malloc(MAX_RANDOM_LEN + 64);
	if (src == NULL) {
		printf("FAIL: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < MAX_RANDOM_LEN + 64; i++)
		src[i] = (uint8_t)rng_next();

	int failed = 0;
	for (int i = 0; i < impl_count && !failed; i++)
		failed = test_known_values(impls[i]);
	failed = failed || test_exhaustive(src) || test_random_lengths(src, 300) ||
		 test_split_points(src, 2000) || test_or64_exhaustive(src) ||
		 test_or64_random(src, 2000) || test_guard_pages(src);
	free(src);
	if (failed)
		return 1;
	printf("test_crc32: OK, %lu checks\n", checks);
	return 0;
}
