/*
 * Reports built from a run's results.json (docs/results-schema.md): the
 * JUnit XML, the HTML compliance report, and the comparison of two runs.
 * Everything here reads the JSON file alone, so `roce-tester run` and
 * `roce-tester report` produce byte-identical reports from the same file.
 */
#ifndef ROCE_TESTER_REPORT_H
#define ROCE_TESTER_REPORT_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "term.h"

/* File names inside a report directory. */
#define REPORT_RESULTS "results.json"
#define REPORT_JUNIT "junit.xml"
#define REPORT_HTML "report.html"
#define REPORT_PRINT_HTML "report-print.html"
#define REPORT_PDF "report.pdf"

/* A loaded and checked results file. */
struct report_run {
	JsonParser *parser;
	JsonObject *root;
	JsonArray *cases; /* case records, never NULL */
	JsonArray *rules; /* rule records, never NULL */
	char *path;
};

/* Loads and checks a results file, or a report directory holding one.
 * On error returns -1 with err saying where and why ("results.json:
 * cases[3]: member 'verdict' is missing"). */
int report_load(const char *path, struct report_run *run, char *err, size_t errlen);
void report_run_free(struct report_run *run);

/* Writers. Each writes atomically (a temporary file, then a rename). */
int report_write_junit(const struct report_run *run, const char *path, char *err, size_t errlen);
int report_write_html(const struct report_run *run, const char *path, char *err, size_t errlen);
/* The print version of report.html (report_print.c): every verdict and the
 * full evidence of every case that did not pass; full keeps everything of
 * the cases that passed too. */
int report_write_html_print(const struct report_run *run, const char *path, bool full, char *err, size_t errlen);
/* Prints an HTML file to PDF with a headless Chromium (report_pdf.c),
 * killed after timeout_s seconds. REPORT_PDF_NO_BROWSER when none is
 * installed; err says why it failed or how to get one. */
enum report_pdf_status { REPORT_PDF_OK, REPORT_PDF_NO_BROWSER, REPORT_PDF_FAILED };
enum report_pdf_status report_print_pdf(const char *html, const char *pdf, unsigned timeout_s, char *err, size_t errlen);
/* Loads results_path and writes junit.xml and report.html into dir. */
int report_write_all(const char *results_path, const char *dir, char *err, size_t errlen);

/* The ladder diagram of one case record, as inline SVG (report_ladder.c);
 * adds the frames it links to to linked (unless NULL). */
void report_ladder_svg(GString *s, JsonObject *c, const char *tester_name, const char *dut_name, GHashTable *linked);

/* The DUT's counter deltas of a case record (report_counters.c): as text
 * lines (the JUnit log), as JUnit properties named
 * counters.LABEL.portN.COUNTER, and as an HTML table. */
void report_counters_text(GString *t, JsonObject *c);
void report_counters_properties(GString *x, JsonObject *c, const char *label,
				void (*property)(GString *x, const char *name, const char *value));
void report_counters_html(GString *o, JsonObject *c);

/* The comparison of two runs (roce-tester report --compare). */
struct report_diff_counts {
	unsigned regressions, fixes, new_cases, removed, changed, unchanged;
	unsigned rule_regressions, rule_fixes;
};
/* Prints the comparison of old and new to out; colour adds ANSI colours.
 * Quiet prints the summary line alone, verbose also the unchanged cases. */
void report_compare(const struct report_run *old_run, const struct report_run *new_run, FILE *out, bool colour,
		    enum verbosity verb, struct report_diff_counts *counts);

/* ---- Helpers shared by the writers ---- */

/* Members with defaults when absent or of another type. */
const char *jstr(JsonObject *o, const char *key, const char *def);
gint64 jint(JsonObject *o, const char *key, gint64 def);
bool jbool(JsonObject *o, const char *key, bool def);
JsonObject *jobj(JsonObject *o, const char *key);
JsonArray *jarr(JsonObject *o, const char *key);
bool jnull_or_absent(JsonObject *o, const char *key);
/* "0x1234" strings and plain numbers alike (64-bit values are hex strings). */
bool jnum(JsonObject *o, const char *key, uint64_t *v);

/* Escapes text for XML/HTML element content and attribute values. Control
 * characters XML cannot hold become U+FFFD, and invalid UTF-8 is repaired,
 * so the output is always well formed. */
void xml_escape(GString *out, const char *text);
void xml_escape_len(GString *out, const char *text, size_t len);

/* The group a case belongs to: the name of the directory its file is in
 * (caller frees). */
gchar *case_group(JsonObject *c);
/* "RC-RESP-SEND-ACK-001 [IPv4]" (caller frees). */
gchar *case_label(JsonObject *c);
/* A finding's message without its rule ID in front (results of earlier
 * versions wrote "RULE: message"; the rule is a member of its own). */
const char *finding_text(JsonObject *f);
/* Whether a finding is a warning the case provoked on purpose (its
 * "provoked" member says why): the case's evidence, not a DUT issue. */
bool finding_provoked(JsonObject *f);

/* Writes data to path through path.tmp and a rename. */
int write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);

#endif
