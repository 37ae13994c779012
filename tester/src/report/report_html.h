/*
 * report.html's pieces, shared by its files and by nothing else:
 *   report_html.c          the page: style, header, helpers, about, the writer
 *   report_html_summary.c  sections 1-3: DUT and set-up, issues observed, verdict per rule
 *   report_html_cases.c    section 4: every case with its ladder, steps, evidence and packets
 *   report_print.c         print styles, the cover, which cases print in full
 */
#ifndef ROCE_TESTER_REPORT_HTML_H
#define ROCE_TESTER_REPORT_HTML_H

#include <stdarg.h>
#include <stdbool.h>

#include "report.h"

/* The page being written and what it needs from the run. */
struct html_ctx {
	const struct report_run *run;
	GString *o;
	const char *capture;
	/* From the results file, any length: the two into it, dut_name owned. */
	const char *tester_name, *dut_short;
	gchar *dut_name;
	unsigned n_case[5]; /* pass fail na error informative, as html_case_verdicts */
	/* Frames some link of the case at hand points to: the packet table
	 * of a long case lists at least these. */
	GHashTable *linked;
	/* report-print.html: no folding, no script, shorter packet tables;
	 * print_full keeps the bulk of the cases that passed. */
	bool print, print_full;
};

/* Text, escaped for HTML. */
static inline void html_text(GString *o, const char *t)
{
	xml_escape(o, t);
}

__attribute__((format(printf, 2, 3))) static inline void html_textf(GString *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gchar *t = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	xml_escape(o, t);
	g_free(t);
}

/* The verdicts a case can have, in the order of html_ctx.n_case. */
extern const char *const html_case_verdicts[5];

const char *html_verdict_text(const char *v);
/* A verdict as a coloured badge. */
void html_badge(GString *o, const char *v);
/* A duration in s, ms or us (64 bytes hold any). */
void html_duration(char *buf, size_t n, gint64 ns);
/* A link to a frame's row in the case's packet table, remembered in x->linked. */
void html_frame_link(struct html_ctx *x, gint64 frame);
void html_frame_links(struct html_ctx *x, JsonArray *a);
void html_rule_link(GString *o, const char *id);
void html_rule_links(GString *o, JsonArray *a);
/* A scalar JSON value, or an array of scalars, as text; false for others. */
bool html_scalar_text(JsonNode *n, GString *t);
/* A key/value row of a table. */
void html_kv(GString *o, const char *key, const char *value);
void html_case_link(struct html_ctx *x, JsonObject *c);

/* The overall verdict (PASS, FAIL, INCOMPLETE, NO RESULTS) and its class. */
const char *html_overall(const struct html_ctx *x, const char **cls);

/* Print (report_print.c): the print style sheet, the @page rules with the
 * page numbers, the cover (hidden on screen). */
extern const char html_print_css[];
void html_page_rules(struct html_ctx *x);
void html_cover(struct html_ctx *x);
/* Whether a case's bulk (set-up table, counters, ladder, steps, packets,
 * timings) is written, whether its section is written at all, and the
 * section's classes ("case full", "case brief", "case brief rowonly"),
 * which the print styles act on. */
bool html_case_bulk(const struct html_ctx *x, JsonObject *c);
bool html_case_listed(const struct html_ctx *x, JsonObject *c);
const char *html_case_class(const struct html_ctx *x, JsonObject *c);
/* Opens a <div class="bulk"> when the case's bulk is written (false: it is
 * left out), and closes it. */
bool html_bulk_open(struct html_ctx *x, JsonObject *c);
void html_bulk_close(struct html_ctx *x);
/* In report-print.html, a rule's case runs: one line per case, its IP
 * versions with their verdicts. */
void html_print_rule_runs(struct html_ctx *x, JsonArray *runs);
/* In report-print.html, under the rule table: the rules no case of the
 * run tested, in one paragraph instead of a row each. */
void html_print_untested_rules(struct html_ctx *x);
/* In report-print.html, under the case table: what the cases below hold. */
void html_print_cases_note(struct html_ctx *x);

void html_setup_section(struct html_ctx *x);
void html_issues_section(struct html_ctx *x);
void html_rules_section(struct html_ctx *x);
void html_cases_section(struct html_ctx *x);

#endif
