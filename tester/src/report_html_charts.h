/*
 * The charts of report.html, drawn from the "series" of the case records
 * (docs/results-schema.md) with report_charts.c:
 *   - a congestion case: the DUT's send rate over time with the CNPs and
 *     CE-marked packets on the time axis, the measured windows and the
 *     bounds the case's checks put on them; the notification point's CNPs
 *     against the CE-marked packets that drew them;
 *   - a load step: throughput and latency (percentiles) over time;
 *   - timers: each measured retransmission or wait against its allowed
 *     window, the IPv4 and IPv6 runs of a case together.
 */
#ifndef ROCE_TESTER_REPORT_HTML_CHARTS_H
#define ROCE_TESTER_REPORT_HTML_CHARTS_H

#include "report.h"

/* The charts of one case record (nothing when its series has none). */
void report_charts_case(GString *o, JsonObject *c, const struct report_run *run);
/* Every case's timers against their windows, one chart per case ID (its
 * IPv4 and IPv6 runs as rows); nothing when no case measured a timer. */
void report_charts_timers(GString *o, const struct report_run *run);

#endif
