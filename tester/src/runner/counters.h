/*
 * The DUT's counters around a case: the agent's snapshot_counters of every
 * port of the device before the case and after it, the deltas of the
 * counters that moved, each with the meaning libroce's table gives it
 * (roce/counters.def), for results.json and the reports.
 */
#ifndef ROCE_TESTER_COUNTERS_H
#define ROCE_TESTER_COUNTERS_H

#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent_client.h"
#include "caselang.h"
#include "roce/counters.h"
#include "runner.h"

/* The most ports a device's snapshot covers. */
#define CASE_COUNTERS_MAX_PORTS 8

struct case_counters;

/* Snapshots every port before the case: ports 1, 2, ... until the agent
 * refuses one, at most CASE_COUNTERS_MAX_PORTS; *n_ports remembers how
 * many for the run's later cases (0: not known yet). A DUT whose agent
 * cannot snapshot is noted, not an error. Never NULL. */
struct case_counters *case_counters_begin(struct agent *a, uint64_t timeout_ns, unsigned *n_ports);

/* Snapshots the same ports after the case; now_ns: the tester's clock
 * (rawio_now) as the snapshot is asked for. */
void case_counters_end(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, uint64_t now_ns);
/* When the snapshot after the case was asked for (0: not yet): a frame the
 * DUT sent may be counted in it only if the tester had it before then. */
uint64_t case_counters_after_ns(const struct case_counters *cc);

/* Whether the snapshots before and after exist for the case's port (1). */
bool case_counters_available(const struct case_counters *cc);

/* The delta of a meaning on port 1 from the snapshot before the case to
 * a fresh one taken now; false with why set (the agent cannot snapshot,
 * the device has no counter of that meaning). */
bool case_counters_now(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, enum roce_counter_meaning m,
		       uint64_t *delta, GString *why);

/* The delta of a meaning on port 1 between the snapshots before and after;
 * false when the device has no counter of that meaning. */
bool case_counters_meaning_delta(const struct case_counters *cc, enum roce_counter_meaning m, int64_t *delta);

/* The counters record of the case (results-schema.md): available, driver,
 * device, note, and per port the counters that moved, with their meaning;
 * cc NULL: a case that ran no step. */
JsonObject *case_counters_json(const struct case_counters *cc);

/* What the tester saw on the wire in a case, for holding the counters'
 * deltas against it (counters_wire.c). Only the case's traffic counts:
 * the tester's frames to the DUT, and the DUT's to the case's QPs. */
struct counter_wire {
	bool complete; /* every frame the DUT sent in the case was recorded */
	/* The tester's RoCE frames to the DUT: all, with a bad ICRC, with a
	 * bad ICRC and nothing else wrong (addressed to the DUT, which must
	 * drop them for the ICRC), CE-marked, CNPs, NAK PSN Sequence Error,
	 * RNR NAKs. */
	uint64_t to_dut, bad_icrc_to_dut, bad_icrc_only, ce_to_dut, cnps_to_dut, seq_naks_to_dut, rnr_naks_to_dut;
	/* The DUT's frames to the case's QPs: all, NAK PSN Sequence Error,
	 * RNR NAKs, CNPs; its requester going back to a PSN it sent before
	 * (not after an RNR NAK); its responder answering a request again
	 * (a repeated ACK, READ response First/Only or Atomic ACK: a
	 * duplicate request it recognised). */
	uint64_t from_dut, seq_naks_from_dut, rnr_naks_from_dut, cnps_from_dut, rewinds, repeated_answers;
	/* The DUT's datagrams to a multicast group: a device may take them in
	 * too, looped back to its own QPs attached to the group
	 * (IBV-MCAST-LOOPBACK), so they bound what it receives as well. */
	uint64_t to_groups_from_dut;
};

/* Tallies the case's packets; tester_qpns are the case's QPs (a DUT frame
 * to another QP is not the case's); dut_ip4/dut_ip6 the DUT's addresses
 * (NULL: none); DUT frames received at or after until_ns are left out (the
 * DUT may have sent them after its counters were read). complete: no
 * frame of the case went unrecorded. */
void counter_wire_tally(const struct case_pkt *pkts, size_t n, const uint32_t *tester_qpns, unsigned n_qps,
			const uint8_t *dut_ip4, const uint8_t *dut_ip6, uint64_t until_ns, bool complete,
			struct counter_wire *w);

/* Holds the deltas of port 1 against the wire, meaning by meaning, where
 * the device has counters of the meaning and the wire bounds them: a
 * counter of what the DUT sends moves at least by what the tester saw
 * it send; one of what it receives at most by what the tester sent it
 * (and at least by what the DUT must have taken: bad-ICRC packets,
 * duplicates it answered again). Each disagreement is an informative
 * finding (source "counter check", severity info) added to findings, that
 * names the counter, its delta and the wire's evidence; the comparisons
 * go into the counters record. Returns how many disagreed; *first (when
 * any) is the first one's message (caller frees). */
unsigned case_counters_check(struct case_counters *cc, const struct counter_wire *w, JsonArray *findings,
			     gchar **first);

/* Binds $counters.MEANING for a check step: the terms of the expressions
 * that name counters get, through set, the meaning's delta since the case
 * began (a fresh snapshot). False with why set when they cannot be had
 * (the agent cannot snapshot, the device has no counter of the meaning). */
bool case_counters_bind(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, const struct cl_expr *const *ex,
			unsigned n, void (*set)(void *ctx, const char *member, uint64_t v), void *ctx, GString *why);

void case_counters_free(struct case_counters *cc);

#endif
