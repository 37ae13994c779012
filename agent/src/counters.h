/*
 * snapshot_counters: every counter of the device at one moment, each with
 * the meaning the suite gives it (lib's roce/counters.def), for the tester
 * to take before and after a case and hold the deltas against the wire.
 */
#ifndef ROCE_AGENT_COUNTERS_H
#define ROCE_AGENT_COUNTERS_H

#include <json-glib/json-glib.h>

#include "backend.h"

/* Adds the snapshot's members to the open object of b: taken_ns, driver,
 * device, port, counters (an array of name, value, and meaning and scale
 * when the table knows the counter), meanings (meaning to the sum of its
 * counters' values times their scale). Returns 0, or -1 with err set. */
int agent_counter_snapshot(JsonBuilder *b, const struct backend_ops *ops, struct backend *be, const char *backend_name,
			   const char *device, unsigned port, struct be_error *err);

#endif
