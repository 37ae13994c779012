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

/* The comparison's page in the output directory of report --compare -o. */
#define REPORT_COMPARE_HTML "compare.html"

/* The charts of one case record (nothing when its series has none). */
void report_charts_case(GString *o, JsonObject *c, const struct report_run *run);
/* Every case's timers against their windows, one chart per case ID (its
 * IPv4 and IPv6 runs as rows); nothing when no case measured a timer. */
void report_charts_timers(GString *o, const struct report_run *run);

/* The comparison of two runs as charts (report --compare -o DIR writes
 * DIR/compare.html, report_compare_html.c): the verdict changes per rule
 * and the measured values that moved. Returns 0, or -1 with err. */
int report_compare_html(const struct report_run *old_run, const struct report_run *new_run, const char *path, char *err,
			size_t errlen);

#endif
