/*
 * Which clock timed each measured interval of a case (rawio's clocks:
 * host, kernel, adapter): the frames of the case timed per clock, and per
 * step the clock of the interval's start (the previous step's event) and
 * of its end (a DUT frame's arrival), for results.json and the reports.
 */
#ifndef ROCE_TESTER_CASECLOCKS_H
#define ROCE_TESTER_CASECLOCKS_H

#include <json-glib/json-glib.h>

#include "caselang.h"
#include "rawio.h"

struct case_clocks {
	uint64_t rx0[RAWIO_CLOCK_COUNT], tx0[RAWIO_CLOCK_COUNT]; /* the interface's counts as the case began */
};

void case_clocks_begin(struct case_clocks *cc, const struct rawio *io);
/* The case's record: the clocks chosen for received and sent frames, why,
 * and how many of the case's frames each clock timed. */
JsonObject *case_clocks_json(const struct case_clocks *cc, const struct rawio *io);
/* Adds "clocks" {start, end} to the record of step idx when it measures an
 * interval (an expected packet's arrival, a measure window). */
void case_clocks_step(JsonObject *j, const struct cl_case *c, int idx, const struct rawio *io);
/* "host to kernel": the clocks of a response timing (the tester's send to
 * the DUT's answer). */
const char *case_clocks_timing(const struct rawio *io, char *buf, size_t n);

#endif
