/*
 * The time series a case leaves for the report's charts and for
 * results.json ("series" in a case record, docs/results-schema.md): what
 * the steps measured (measure windows, expected packets' delays, load
 * steps), noted by the runner as they run, and, when the case ends, what
 * the recorded packets show over time (the DUT's send rate, CNPs and
 * CE-marked packets, a load's throughput and latency) and the checks on
 * the measured values. Internal to the runner (runner_ctx.h includes it).
 */
#ifndef ROCE_TESTER_RUNNER_SERIES_H
#define ROCE_TESTER_RUNNER_SERIES_H

#include <json-glib/json-glib.h>
#include <stdint.h>

struct run_ctx;
struct cl_step;
struct case_qp;

/* A measure step's window [from_ns, to_ns] (absolute) and what it counted. */
void series_measure(struct run_ctx *x, const struct cl_step *s, uint64_t from_ns, uint64_t to_ns, uint64_t count,
		    uint64_t bytes, uint64_t rate);
/* An expected packet (index pkt) taken delay_ns after the previous step's
 * event, against its window [min_ns, max_ns] from that event. */
void series_expect(struct run_ctx *x, const struct cl_step *s, long pkt, uint64_t delay_ns, uint64_t min_ns,
		   uint64_t max_ns);
/* A load step on q over [from_ns, to_ns]. */
void series_load(struct run_ctx *x, const struct case_qp *q, uint64_t from_ns, uint64_t to_ns);

/* The case's "series" object (never NULL), built from what was noted and
 * the case's packets; steps_run: how many steps ran. Frees what was noted. */
JsonObject *series_json(struct run_ctx *x, unsigned steps_run, uint64_t t0_ns);

#endif
