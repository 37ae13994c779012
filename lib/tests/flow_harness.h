/*
 * The harness of the flow-analysis tests (test_flow.c and the files of
 * scenarios beside it): a short conversation between host A (198.18.0.1,
 * QP 0x000456) and host B (198.18.0.2, QP 0x000123) fed packet by packet,
 * with the rings kept as keyed records or through env.alloc.
 */
#ifndef ROCE_TEST_FLOW_HARNESS_H
#define ROCE_TEST_FLOW_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conversations.h"
#include "samples.h"
#include "testutil.h"

#define QP_A 0x000456
#define QP_B 0x000123

/* Every flow code some scenario raised. */
extern bool raised[ROCE_CODE_COUNT];

/* The rings' storage the scenarios run with: keyed records (as lint
 * keeps them), or env.alloc and env.release (as the plugin does). Every
 * scenario runs with both and must see the same. */
extern bool rings_unkeyed;
/* Rings released over the scenarios that ran with env.alloc. */
extern unsigned rings_released;

/* A ring from ring_alloc: its size before it, in a list to free. */
struct ring_mem {
	struct ring_mem *next, *prev;
	size_t size;
	max_align_t data[];
};

struct conv {
	struct roce_flow_table *table;
	struct ring_mem *rings; /* from ring_alloc, not released */
	size_t ring_bytes, released_bytes;
	unsigned released;
	struct roce_flow_env env;
	uint32_t frame;
	uint64_t now_ns;
	unsigned pmtu;
	uint32_t answered_req[64], answered_resp[64];
	unsigned n_answered;
	/* LATE values reported through the callback, by frame (< 64) */
	uint64_t late_rate_after[64];
	bool late_seen[64];
};

struct pkt_opts {
	uint32_t dmalen;   /* RETH DMA length, READ requests */
	uint8_t syndrome;  /* AETH */
	uint16_t sport;    /* 0: 0xC0DE */
	uint64_t gap_ns;   /* time since the previous packet; 0: 10 us */
	uint32_t copy_of;  /* 0: a packet of its own (IPv4 ID = its frame); N: byte for byte frame N's */
	uint8_t ecn;       /* the IPv4 ECN bits (3: marked CE on the way) */
	uint16_t ip_id;    /* the IPv4 ID, in the order the sender numbered it (0: as copy_of says) */
	uint32_t rkey;     /* the RETH's, AtomicETH's and IETH's rkey (0: the sample's) */
};

void harness_init(struct conv *c, unsigned pmtu);
void harness_free(struct conv *c);
/* Feeds one packet; requests go A -> B to QP_B, responses B -> A to QP_A. */
struct roce_flow_result feed(struct conv *c, uint8_t opcode, uint32_t psn, size_t payload_len,
			     const struct pkt_opts *o);
bool has(const struct roce_flow_result *r, enum roce_code code);
/* Findings of warning level or above; of error level. */
unsigned serious(const struct roce_flow_result *r);
unsigned errors(const struct roce_flow_result *r);

/* Scenarios of the other files. */
void retransmissions_changed(void); /* test_flow_retx.c */

/* The checks each file made and failed (testutil.h counts per file), for
 * test_flow's result. */
void harness_checks(int *checks, int *failures);
void retx_checks(int *checks, int *failures);

#endif
