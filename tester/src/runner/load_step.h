/*
 * The load step (case-language.md, load): sustained traffic from the
 * tester's engine on one QP, a bounded number of operations or a rate
 * over a duration, the DUT's answers taken as they come (the engine's
 * ACK, NAK, RNR and retransmission handling, and the runner's checks of
 * every DUT frame), then what was achieved: rate, completions, losses.
 */
#ifndef ROCE_TESTER_LOAD_STEP_H
#define ROCE_TESTER_LOAD_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "peer.h"
#include "runner.h"

#define LOAD_MAX_COUNT 1000000u
#define LOAD_MAX_DURATION_NS (60ull * 1000000000ull)
#define LOAD_MAX_RATE 10000000u

struct load_spec {
	enum peer_op op;
	const uint8_t *data; /* len bytes, each operation's payload */
	uint32_t len;
	uint64_t remote;
	uint32_t rkey;
	uint64_t count;       /* operations; 0: as many as the duration allows (at most LOAD_MAX_COUNT) */
	uint64_t duration_ns; /* how long to post; 0: until count are posted */
	uint64_t rate;        /* operations per second; 0: as fast as the engine's send queue allows */
	uint64_t drain_ns;    /* after the last post, how long the outstanding ones may take */
	uint64_t deadline_ns; /* the case's budget: nothing runs past it */
};

/* How the load moves the wire: pump runs the engine's timers and takes
 * frames until deadline_ns, returning early when frames came. */
struct load_wire {
	void *ctx;
	void (*pump)(void *ctx, uint64_t deadline_ns);
	bool (*interrupted)(void *ctx);
};

struct load_result {
	uint64_t posted, completed, errors, lost; /* lost: posted, not completed by the end */
	uint64_t started_ns, posted_ns, ended_ns; /* start, the last post, the end of the drain */
	uint64_t tx_packets, retransmissions;      /* the engine's, during the step */
	uint64_t achieved;                         /* operations per second posted, first to last */
	int first_error;                           /* an ap_wc_status, or -1 */
	bool cut_short;                            /* the case's budget or an interruption ended it */
	bool qp_error;                             /* the tester's QP went to the error state: no more posts */
};

/* Runs the load; returns 0, or -1 with err (the spec out of bounds, a post
 * the engine refused for another reason than a full send queue). */
int load_run(struct peer *p, uint32_t qpn, const struct load_spec *s, const struct load_wire *w, struct load_result *r,
	     char *err, size_t errlen);

/* The DUT's answers to the tester's QP in [from_ns, to_ns]: NAK PSN
 * Sequence Error, RNR NAKs, CNPs. */
struct load_answers {
	uint64_t naks, rnr_naks, cnps;
};
void load_count_answers(const struct case_pkt *pkts, size_t n, uint32_t tester_qpn, uint64_t from_ns, uint64_t to_ns,
			struct load_answers *a);

/* The step's record for results.json ("load" in the step), and its detail
 * in words into detail. */
JsonObject *load_record(const struct load_spec *s, const struct load_result *r, const struct load_answers *a,
			GString *detail);

#endif
