/*
 * What a device's counters mean: one table (counters.def) of counter names
 * per driver, each mapped to a meaning the suite knows, so that the agent
 * (which reads the counters) and the tester (which holds them against the
 * wire) agree on both.
 */
#ifndef ROCE_COUNTERS_H
#define ROCE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>

enum roce_counter_meaning {
	ROCE_CNT_NONE, /* a counter the suite gives no meaning */
	ROCE_CNT_BAD_ICRC_DROPPED,
	ROCE_CNT_DUPLICATE_REQUESTS,
	ROCE_CNT_OUT_OF_SEQUENCE_RECEIVED,
	ROCE_CNT_SEQ_ERR_NAKS_SENT,
	ROCE_CNT_SEQ_ERR_NAKS_RECEIVED,
	ROCE_CNT_IMPLIED_NAKS,
	ROCE_CNT_CNP_SENT,
	ROCE_CNT_CNP_RECEIVED,
	ROCE_CNT_ECN_CE_RECEIVED,
	ROCE_CNT_RNR_NAKS_SENT,
	ROCE_CNT_RNR_NAKS_RECEIVED,
	ROCE_CNT_RNR_RETRY_EXCEEDED,
	ROCE_CNT_ACK_TIMEOUTS,
	ROCE_CNT_RETRANSMISSIONS,
	ROCE_CNT_PACKETS_SENT,
	ROCE_CNT_PACKETS_RECEIVED,
	ROCE_CNT_BYTES_SENT,
	ROCE_CNT_BYTES_RECEIVED,
	ROCE_CNT_MEANING_COUNT
};

struct roce_counter_info {
	const char *driver;
	const char *name;
	enum roce_counter_meaning meaning;
	unsigned scale; /* one unit of the counter, in the meaning's unit */
	bool checked;   /* held against the wire or the driver's source here */
};

/* "bad_icrc_dropped", ...: the names reports and the agent protocol use. */
const char *roce_counter_meaning_name(enum roce_counter_meaning m);
/* The meaning of a name roce_counter_meaning_name gives; ROCE_CNT_NONE
 * for any other. */
enum roce_counter_meaning roce_counter_meaning_by_name(const char *name);
/* In words, for reports. */
const char *roce_counter_meaning_text(enum roce_counter_meaning m);

/* The whole table, and its size. */
const struct roce_counter_info *roce_counter_table(size_t *n);
/* The entry for a counter of a driver, or NULL. */
const struct roce_counter_info *roce_counter_lookup(const char *driver, const char *name);
/* The table's driver for a device: "soft" for the agent's soft backend,
 * else from the RDMA device's name (rxe0, mlx5_0, bnxt_re0, irdma0/rdmapN);
 * NULL when the table has none for it. */
const char *roce_counter_driver(const char *backend, const char *device);

#endif
