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
#include "roce/counters.h"

/* The most ports a device's snapshot covers. */
#define CASE_COUNTERS_MAX_PORTS 8

struct case_counters;

/* Snapshots every port before the case: ports 1, 2, ... until the agent
 * refuses one, at most CASE_COUNTERS_MAX_PORTS; *n_ports remembers how
 * many for the run's later cases (0: not known yet). A DUT whose agent
 * cannot snapshot is noted, not an error. Never NULL. */
struct case_counters *case_counters_begin(struct agent *a, uint64_t timeout_ns, unsigned *n_ports);

/* Snapshots the same ports after the case. */
void case_counters_end(struct case_counters *cc, struct agent *a, uint64_t timeout_ns);

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

void case_counters_free(struct case_counters *cc);

#endif
