/*
 * The port's counters, read from sysfs (the driver's hw_counters, the
 * port's IB counters, the device-wide ones), each a fresh value: a read
 * waits out the kernel's cache of the previous one.
 */
#include "ibverbs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds of the wait for fresh hw_counters (wait_counters_fresh). */
enum { COUNTERS_LIFESPAN_MAX_MS = 1000, COUNTERS_TICK_SLACK_MS = 21 };

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reports every integer file of dir not already in seen (a set of names). */
static void read_counter_dir(const char *dir, GHashTable *seen, be_counter_fn fn, void *ctx)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	if (!d)
		return;
	const char *name;
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(name));
	g_dir_close(d);
	/* In name order, so replies are stable. */
	g_ptr_array_sort(names, by_name);
	for (guint i = 0; i < names->len; i++) {
		const char *n = g_ptr_array_index(names, i);
		char path[PATH_MAX], val[64];
		/* "lifespan" is a setting of the hw_counters directory (how long
		 * the kernel caches values), not a counter. */
		if (g_hash_table_contains(seen, n) || strcmp(n, "lifespan") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, n);
		/* Some counters cannot be read on some devices (EINVAL): skip them. */
		if (ib_read_sysfs(path, val, sizeof val) != 0 || !val[0])
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (errno || *end)
			continue;
		g_hash_table_add(seen, g_strdup(n));
		fn(ctx, n, v);
	}
	g_ptr_array_free(names, TRUE);
}

/* The longest "lifespan" (ms) of the device's and the port's hw_counters
 * directories: 0 when neither has one. */
static unsigned counters_lifespan_ms(const struct ib_backend *ib, unsigned port)
{
	unsigned longest = 0;
	char path[PATH_MAX], val[32];
	for (int device_wide = 0; device_wide < 2; device_wide++) {
		if (device_wide)
			snprintf(path, sizeof path, SYSFS_IB "/%s/hw_counters/lifespan", ib->name);
		else
			snprintf(path, sizeof path, SYSFS_IB "/%s/ports/%u/hw_counters/lifespan", ib->name, port);
		char *end;
		if (ib_read_sysfs(path, val, sizeof val) != 0)
			continue;
		unsigned long ms = strtoul(val, &end, 10);
		if (*end == '\0' && ms > longest)
			longest = ms > COUNTERS_LIFESPAN_MAX_MS ? COUNTERS_LIFESPAN_MAX_MS : (unsigned)ms;
	}
	return longest;
}

/* The kernel answers a hw_counters read from a cache for "lifespan" ms
 * (rxe: 10) after the read that filled it, counted in jiffies. A snapshot
 * taken sooner after the previous one would repeat it and hide what the
 * case did, so wait until the cache has expired: the lifespan rounded up
 * to whole jiffies, plus the jiffy the previous read fell in, is at most
 * lifespan + 2 ticks, 20 ms at the slowest tick (HZ=100). */
static void wait_counters_fresh(struct ib_backend *ib, unsigned port)
{
	unsigned lifespan = counters_lifespan_ms(ib, port);
	if (!lifespan || !ib->counters_read_us)
		return;
	gint64 due = ib->counters_read_us + (gint64)(lifespan + COUNTERS_TICK_SLACK_MS) * 1000;
	gint64 now = g_get_monotonic_time();
	if (now < due)
		g_usleep((gulong)(due - now));
}

int ib_read_counters(struct backend *be, unsigned port, be_counter_fn fn, void *ctx,
		     struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (ib_check_port(ib, port, err))
		return -1;
	wait_counters_fresh(ib, port);
	char dir[PATH_MAX];
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* The driver's own counters first (rxe: duplicate_request, rcvd_seq_err,
	 * ...), then the port's IB counters, then device-wide ones. */
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/ports/%u/hw_counters", ib->name, port);
	read_counter_dir(dir, seen, fn, ctx);
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/ports/%u/counters", ib->name, port);
	read_counter_dir(dir, seen, fn, ctx);
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/hw_counters", ib->name);
	read_counter_dir(dir, seen, fn, ctx);
	g_hash_table_destroy(seen);
	/* Taken after the reads: the cache they filled is at least this new. */
	ib->counters_read_us = g_get_monotonic_time();
	return 0;
}
