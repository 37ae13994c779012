/*
 * Throughput of roce_crc32() and of the whole RoCEv2 ICRC (roce_icrc(): the
 * masked copy of the headers plus the CRC) against zlib's crc32() and
 * libdeflate_crc32() on the same buffers: an IPv4 RoCEv2 datagram of each
 * size.  Each call is independent (a different initial CRC over the same
 * bytes), so this measures how many bytes per second a stream of packets
 * can be checked at.  roce/ldefl is what lib/src/crc32.c's own AVX-512 path
 * buys over the library on a CPU that has it (with --impl libdeflate, what
 * the entry point and the masked copy cost over the library).
 *
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not the wall
 * clock: on a machine shared with other jobs, time spent descheduled does
 * not count.  Each size takes ROUNDS rounds in which every function runs
 * once in turn; the best round of each is kept.
 *
 * usage: bench_crc32 [--smoke] [--impl NAME]
 * --smoke: every size and function, each timed for a twentieth of the
 * time (the whole run takes about a second): the ratios, roughly.
 * Exit status: 0, or 2 if the three CRCs disagree, 1 on bad usage.
 */
#define _POSIX_C_SOURCE 199309L

#include "crc32_impl.h"
#include "roce/crc32.h"
#include "roce/roce.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define ROUNDS 15

enum { FN_ROCE, FN_ICRC, FN_ZLIB, FN_LIBDEFLATE, FN_COUNT };

static const size_t sizes[] = { 64, 128, 256, 512, 1024, 1500, 2048, 4096, 8192, 9216 };
#define SIZE_COUNT (sizeof(sizes) / sizeof(sizes[0]))
#define MAX_SIZE 9216

static int forced_impl = -1; /* -1: roce_crc32() picks */
static volatile uint32_t sink;

static uint32_t crc_roce(uint32_t crc, const uint8_t *buf, size_t len)
{
	return forced_impl < 0 ? roce_crc32(crc, buf, len)
			       : roce_crc32_impl(forced_impl, crc, buf, len);
}

/* The ICRC of the datagram: the same bytes, its variant fields masked. */
static uint32_t crc_icrc(uint32_t crc, const uint8_t *buf, size_t len)
{
	return roce_icrc(buf, len) ^ crc;
}

static uint32_t crc_zlib(uint32_t crc, const uint8_t *buf, size_t len)
{
	return (uint32_t)crc32(crc, buf, (uInt)len);
}

static uint32_t crc_libdeflate(uint32_t crc, const uint8_t *buf, size_t len)
{
	return libdeflate_crc32(crc, buf, len);
}

typedef uint32_t crc_fn(uint32_t crc, const uint8_t *buf, size_t len);
static crc_fn *const fns[FN_COUNT] = { crc_roce, crc_icrc, crc_zlib, crc_libdeflate };
static const char *const fn_names[FN_COUNT] = { "roce", "icrc", "zlib", "libdeflate" };

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds taken by `iters` calls over buf[0..len). */
static double time_calls(int fn, const uint8_t *buf, size_t len, long iters)
{
	crc_fn *crc = fns[fn];
	uint32_t acc = 0;
	double start = now_seconds();
	for (long i = 0; i < iters; i++)
		acc ^= crc((uint32_t)i, buf, len);
	double elapsed = now_seconds() - start;
	sink = acc;
	return elapsed;
}

/* Iterations that take about `seconds`, from a short calibration run. */
static long calibrate(int fn, const uint8_t *buf, size_t len, double seconds)
{
	long iters = 64;
	double t;
	while ((t = time_calls(fn, buf, len, iters)) < 0.002)
		iters *= 4;
	long n = (long)(seconds / t * (double)iters);
	return n > 16 ? n : 16;
}

/* Whether all functions give zlib's CRC over buf[0..len), for a few initial values. */
static int results_agree(const uint8_t *buf, size_t len)
{
	int agree = 1;
	for (uint32_t seed = 0; seed < 4; seed++) {
		const uint32_t crc_in = seed * 0x9E3779B9u;
		const uint32_t want = crc_zlib(crc_in, buf, len);
		for (int fn = 0; fn < FN_COUNT; fn++) {
			if (fn == FN_ICRC)
				continue; /* a different function: checked by the unit tests */
			uint32_t got = fns[fn](crc_in, buf, len);
			if (got != want) {
				printf(
				    "MISMATCH: %zu bytes, crc_in 0x%08x: %s 0x%08x, zlib 0x%08x\n",
				    len, crc_in, fn_names[fn], got, want);
				agree = 0;
			}
		}
	}
	return agree;
}

/* GB/s of each function over buf[0..len): best of ROUNDS runs. */
static void measure(const uint8_t *buf, size_t len, double run_seconds, double gbps[FN_COUNT])
{
	long iters[FN_COUNT];
	double best[FN_COUNT];
	for (int fn = 0; fn < FN_COUNT; fn++) {
		iters[fn] = calibrate(fn, buf, len, run_seconds);
		best[fn] = 1e30;
	}
	/* Interleave the functions so that clock drift hits all alike. */
	for (int r = 0; r < ROUNDS; r++) {
		for (int fn = 0; fn < FN_COUNT; fn++) {
			double t = time_calls(fn, buf, len, iters[fn]) / (double)iters[fn];
			if (t < best[fn])
				best[fn] = t;
		}
	}
	for (int fn = 0; fn < FN_COUNT; fn++)
		gbps[fn] = (double)len / best[fn] * 1e-9;
}

static int parse_args(int argc, char **argv, int *smoke)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--smoke") == 0) {
			*smoke = 1;
		} else if (strcmp(argv[i], "--impl") == 0 && i + 1 < argc) {
			const char *name = argv[++i];
			for (int impl = 0; impl < roce_crc32_impl_count(); impl++)
				if (strcmp(name, roce_crc32_impl_name(impl)) == 0)
					forced_impl = impl;
			if (forced_impl < 0 || !roce_crc32_impl_supported(forced_impl)) {
				fprintf(stderr, "bench_crc32: no implementation '%s' on this CPU\n",
					name);
				return -1;
			}
		} else {
			fprintf(stderr, "usage: bench_crc32 [--smoke] [--impl NAME]\n");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int smoke = 0;
	if (parse_args(argc, argv, &smoke) != 0)
		return 1;
	/* Per size and function: ROUNDS timed runs, best one kept. */
	const double run_seconds = (smoke ? 0.01 : 0.3) / ROUNDS;

	static _Alignas(64) uint8_t buf[MAX_SIZE];
	static uint8_t payload[MAX_SIZE];
	uint64_t x = UINT64_C(0x243F6A8885A308D3);
	for (size_t i = 0; i < MAX_SIZE; i++) {
		x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		payload[i] = (uint8_t)(x >> 56);
	}
	/* An IPv4 RC SEND Only datagram filling the buffer; shorter sizes
	 * take its head, whose header fields the ICRC masks the same way. */
	struct roce_desc d;
	roce_desc_init(&d, ROCE_OP_RC_SEND_ONLY, 4);
	d.payload = payload;
	d.payload_len = MAX_SIZE - ROCE_IPV4_LEN - ROCE_UDP_LEN - ROCE_BTH_LEN - ROCE_ICRC_LEN;
	if (roce_build_ip(&d, buf, sizeof buf) != MAX_SIZE) {
		fprintf(stderr, "bench_crc32: cannot build the datagram\n");
		return 1;
	}

	printf("roce_crc32 implementations on this CPU:");
	for (int impl = 0; impl < roce_crc32_impl_count(); impl++)
		if (roce_crc32_impl_supported(impl))
			printf(" %s", roce_crc32_impl_name(impl));
	printf("\nroce column: %s\n\n",
	       forced_impl < 0 ? "roce_crc32 (dispatching)" : roce_crc32_impl_name(forced_impl));
	printf("%6s %10s %10s %10s %10s %10s %10s %11s\n", "bytes", "roce GB/s", "icrc GB/s", "zlib GB/s",
	       "ldefl GB/s", "roce/zlib", "roce/ldefl", "icrc/best");

	int disagree = 0;
	double min_ratio = 0, min_icrc_ratio = 0;
	size_t min_ratio_size = 0, min_icrc_size = 0;
	for (size_t s = 0; s < SIZE_COUNT; s++) {
		const size_t len = sizes[s];

		if (!results_agree(buf, len))
			disagree = 1;
		double gbps[FN_COUNT];
		measure(buf, len, run_seconds, gbps);
		double fastest_peer =
		    gbps[FN_ZLIB] > gbps[FN_LIBDEFLATE] ? gbps[FN_ZLIB] : gbps[FN_LIBDEFLATE];
		double ratio = gbps[FN_ROCE] / fastest_peer;
		double icrc_ratio = gbps[FN_ICRC] / fastest_peer;
		if (s == 0 || ratio < min_ratio) {
			min_ratio = ratio;
			min_ratio_size = len;
		}
		if (s == 0 || icrc_ratio < min_icrc_ratio) {
			min_icrc_ratio = icrc_ratio;
			min_icrc_size = len;
		}
		printf("%6zu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %11.2f\n", len, gbps[FN_ROCE],
		       gbps[FN_ICRC], gbps[FN_ZLIB], gbps[FN_LIBDEFLATE], gbps[FN_ROCE] / gbps[FN_ZLIB],
		       gbps[FN_ROCE] / gbps[FN_LIBDEFLATE], icrc_ratio);
	}
	printf("\nmin ratio vs fastest peer: %.2f at %zu bytes (roce_crc32)\n", min_ratio, min_ratio_size);
	printf("min ratio vs fastest peer: %.2f at %zu bytes (roce_icrc, masking included)\n", min_icrc_ratio,
	       min_icrc_size);
	return disagree ? 2 : 0;
}
