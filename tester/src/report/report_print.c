/*
 * The printed report: print styles for report.html and report-print.html,
 * the cover, page numbers, and which cases print in full.
 *
 * A printed report is a document to hand over, so it gives every verdict
 * (the case and rule tables) and the full evidence of every case that did
 * not pass, and leaves out what nobody reads on paper: the set-up table,
 * counters, ladder, steps and packets of the cases that passed or were not
 * applicable (report --pdf-full keeps them). A passing case's charts and
 * findings still print.
 */
#include "report_html.h"

#include <stdio.h>
#include <string.h>

/* Screen: the cover is hidden. Print: the cover instead of the header, no
 * navigation, each section and each case printed in full on a new page,
 * and the bulk of a passing case hidden (report.html printed by a
 * browser; report-print.html does not hold it at all). */
const char html_print_css[] =
	".cover{display:none}#untested-rules .mono{white-space:nowrap}\n"
	"@media print{"
	"html{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"body{background:#fff;font-size:10pt}"
	"code,pre,.mono{font-size:8.5pt}"
	"header.top,nav.toc,footer{display:none}"
	"main{max-width:none;padding:0;margin:0}"
	"section{border:none;border-radius:0;padding:0;margin:0}"
	"main>section{break-before:page}"
	"h2{break-after:avoid}h3,h4{break-after:avoid}"
	/* A long word (a completion's JSON) would widen its table past the
	 * page, and Chromium would shrink every page to fit it. */
	"table{font-size:9pt}th,td{padding:2px 5px}td{overflow-wrap:anywhere}"
	"tr,li,.card,figure,svg{break-inside:avoid}"
	"a{color:inherit;text-decoration:none}"
	".grid{display:block}"
	".cover{display:flex;flex-direction:column;min-height:240mm;break-after:page}"
	".cover .kind{letter-spacing:.08em;text-transform:uppercase;font-size:11pt;color:var(--muted)}"
	".cover h1{font-size:24pt;margin:6mm 0 4mm}"
	".cover .overall{font-size:22pt;color:#fff;padding:2mm 6mm;margin:4mm 0}"
	".cover table.kv th{width:45mm}.cover .fine{margin-top:auto;font-size:9pt;color:var(--muted)}"
	"article.case{border:none;border-top:1px solid var(--line);border-radius:0;margin:0}"
	"article.case.full{break-before:page;border-top:none}"
	"article.case.brief{break-inside:avoid}"
	"article.case.rowonly,article.case.brief .bulk{display:none}"
	"article.case>details>summary{list-style:none;padding:4px 0;font-size:11pt}"
	"article.case>details>summary::-webkit-details-marker{display:none}"
	".cbody{padding:0}"
	".ladderbox{overflow:visible;border:none}"
	"pre.call{max-height:none;overflow:visible}"
	"tr:target td,tr.hl td{background:none !important}"
	/* Fixed columns: each verdict column holds its longest word
	 * ("informative", "applicable") and a badge breaks between words,
	 * so that none runs over the case name beside it. */
	".v{font-size:8pt;padding:0 5px}"
	"#rule-table td .v,#case-table td .v{white-space:normal}"
	"#rule-table{table-layout:fixed}#rule-table th:nth-child(1){width:16%}#rule-table th:nth-child(2){width:20%}"
	"#rule-table th:nth-child(3){width:7%}#rule-table th:nth-child(4){width:10%}#rule-table th:nth-child(5){width:14%}"
	"#rule-table td.mono{overflow-wrap:anywhere;font-size:7.5pt}#rule-table .runs .mono{font-size:7.5pt}"
	"#case-table{table-layout:fixed}#case-table th:nth-child(1){width:30%}#case-table th:nth-child(2){width:7%}"
	"#case-table th:nth-child(3){width:14%}#case-table th:nth-child(4){width:21%}#case-table th:nth-child(5){width:10%}"
	"#case-table td:first-child{overflow-wrap:anywhere}"
	"}\n";

/* A CSS string holding any text: every character that could end the
 * string, the rule or the <style> element is a hex escape. */
static void css_string(GString *o, const char *t)
{
	g_string_append_c(o, '"');
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (g_ascii_isalnum(*p) || (*p >= 0x80) || strchr(" .,:;()[]_-+/#=@", *p))
			g_string_append_c(o, (char)*p);
		else
			g_string_append_printf(o, "\\%02x ", *p);
	}
	g_string_append_c(o, '"');
}

void html_page_rules(struct html_ctx *x)
{
	GString *o = x->o;
	JsonObject *r = jobj(x->run->root, "run");
	/* Page numbers in the margin boxes (Chromium 131 on); an older
	 * Chromium ignores them and report --pdf uses its own footer then. */
	g_string_append(o, "@page{size:A4;margin:14mm 13mm 16mm;"
			   "@bottom-left{content:");
	gchar *who = g_strdup_printf("%s \xC2\xB7 %s", x->dut_name, jstr(r, "started", ""));
	css_string(o, who);
	g_free(who);
	g_string_append(o, ";font:8pt sans-serif;color:#5b6578}"
			   "@bottom-right{content:\"page \" counter(page) \" of \" counter(pages);font:8pt sans-serif;color:#5b6578}}\n"
			   "@page:first{@bottom-left{content:none}@bottom-right{content:none}}\n");
}

/* ---- The cover ---- */

static void cover_kv(GString *o, const char *key, const char *value)
{
	if (value && *value)
		html_kv(o, key, value);
}

void html_cover(struct html_ctx *x)
{
	GString *o = x->o;
	JsonObject *run = jobj(x->run->root, "run");
	JsonObject *setup = jobj(x->run->root, "setup");
	JsonObject *hello = jobj(jobj(setup, "agent"), "hello");
	JsonObject *iface = jobj(setup, "interface");
	JsonObject *tool = jobj(x->run->root, "tool");
	const char *cls;
	const char *overall = html_overall(x, &cls);
	unsigned total = json_array_get_length(x->run->cases);

	g_string_append(o, "<div class=\"cover\" id=\"cover\"><div class=\"kind\">RoCEv2 conformance test report</div><h1>");
	html_text(o, x->dut_name);
	g_string_append_printf(o, "</h1><div><span class=\"overall %s\" id=\"cover-verdict\">%s</span></div>\n<p>", cls, overall);
	html_textf(o, "%u case run(s): %u pass, %u informative, %u fail, %u not applicable, %u error.", total,
		   x->n_case[0], x->n_case[4], x->n_case[1], x->n_case[2], x->n_case[3]);
	unsigned broken = 0, judged = 0;
	for (guint i = 0; i < json_array_get_length(x->run->rules); i++) {
		const char *v = jstr(json_array_get_object_element(x->run->rules, i), "verdict", "");
		broken += !strcmp(v, "fail");
		judged += !strcmp(v, "fail") || !strcmp(v, "pass") || !strcmp(v, "informative");
	}
	g_string_append(o, "<br>");
	html_textf(o, "%u of %u rule(s) with a verdict are broken.", broken, judged);
	g_string_append(o, "</p>\n<table class=\"kv\" id=\"cover-table\">");
	html_kv(o, "device under test", x->dut_name);
	cover_kv(o, "DUT host", jstr(hello, "host", NULL));
	cover_kv(o, "agent backend", jstr(hello, "backend", NULL));
	const char *fault = jstr(hello, "fault", NULL);
	if (fault && *fault) {
		gchar *t = g_strdup_printf("%s (a soft DUT that breaks a rule on purpose: not a product's results)", fault);
		html_kv(o, "fault profile", t);
		g_free(t);
	}
	html_kv(o, "run started", jstr(run, "started", ""));
	cover_kv(o, "run finished", jstr(run, "finished", NULL));
	char d[64];
	html_duration(d, sizeof d, jint(run, "duration_ns", 0));
	html_kv(o, "duration", d);
	html_kv(o, "status", jbool(run, "interrupted", false) ? "interrupted" : jbool(run, "complete", false) ? "complete" : "not finished");
	gchar *t = g_strdup_printf("%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
	html_kv(o, "tester", t);
	g_free(t);
	cover_kv(o, "tester interface", jstr(iface, "name", NULL));
	html_kv(o, "capture", x->capture);
	g_string_append(o, "</table>\n<p class=\"fine\">");
	if (x->print_full)
		g_string_append(o, "This printed report holds every case in full.");
	else
		g_string_append(o, "This printed report gives every verdict (the case and rule tables) and the full evidence of each "
				   "case that failed or ended in error; of the cases that passed, were informative or not "
				   "applicable it keeps the charts, warnings and findings and leaves out the counters, ladders, "
				   "steps and packets: the HTML report has them all, and roce-tester report --pdf-full prints "
				   "them too.");
	g_string_append(o, " Frame numbers are those of the capture, which holds every frame sent and received.</p></div>\n");
}

/* ---- Which cases print in full ---- */

/* Informative cases passed too (what they found is in their findings,
 * which print). */
static bool passed(JsonObject *c)
{
	const char *v = jstr(c, "verdict", "");
	return !strcmp(v, "pass") || !strcmp(v, "informative") || !strcmp(v, "not_applicable");
}

bool html_case_bulk(const struct html_ctx *x, JsonObject *c)
{
	return !x->print || x->print_full || !passed(c);
}

/* Whether a case holds warnings it provoked on purpose: they are its
 * evidence and print with it, not in the issues section. */
static bool has_provoked(JsonObject *c)
{
	JsonArray *fd = jarr(c, "findings");
	for (guint i = 0; fd && i < json_array_get_length(fd); i++)
		if (finding_provoked(json_array_get_object_element(fd, i)))
			return true;
	return false;
}

/* A passing case with nothing beyond its row in the case table: no chart
 * of its own and no provoked finding. Its other warnings and informative
 * findings are in the issues section, its timers in the timers section
 * above the case table; the congestion and load charts
 * (report_charts_case) are only here. */
static bool row_only(JsonObject *c)
{
	JsonObject *series = jobj(c, "series");
	JsonArray *load = jarr(series, "load");
	return passed(c) && !jobj(series, "congestion") && !(load && json_array_get_length(load)) && !has_provoked(c);
}

bool html_case_listed(const struct html_ctx *x, JsonObject *c)
{
	return !x->print || x->print_full || !row_only(c);
}

const char *html_case_class(const struct html_ctx *x, JsonObject *c)
{
	if (x->print_full || !passed(c))
		return "case full";
	return row_only(c) ? "case brief rowonly" : "case brief";
}

bool html_bulk_open(struct html_ctx *x, JsonObject *c)
{
	if (!html_case_bulk(x, c))
		return false;
	g_string_append(x->o, "<div class=\"bulk\">");
	return true;
}

void html_bulk_close(struct html_ctx *x)
{
	g_string_append(x->o, "</div>\n");
}

void html_print_cases_note(struct html_ctx *x)
{
	if (!x->print || x->print_full)
		return;
	g_string_append(x->o, "<p class=\"small muted\" id=\"print-note\">Below, each case run that failed or ended in error, "
			      "in full; of those that passed, were informative or not applicable, only the ones with congestion "
			      "or load charts or with warnings they provoked on purpose, without their ladders (the table above "
			      "gives every verdict, section 2 their other warnings and informative findings). "
			      "<code>roce-tester report --pdf-full</code> prints every case in full.</p>\n");
}

void html_print_rule_runs(struct html_ctx *x, JsonArray *runs)
{
	GString *o = x->o;
	guint n = runs ? json_array_get_length(runs) : 0;
	bool *done = g_new0(bool, n ? n : 1);
	for (guint k = 0; k < n; k++) {
		if (done[k])
			continue;
		const char *id = jstr(json_array_get_object_element(runs, k), "id", "");
		g_string_append(o, "<div class=\"runs\"><span class=\"mono\">");
		html_text(o, id);
		g_string_append(o, "</span>");
		for (guint j = k; j < n; j++) {
			JsonObject *e = json_array_get_object_element(runs, j);
			if (done[j] || strcmp(jstr(e, "id", ""), id))
				continue;
			done[j] = true;
			g_string_append_printf(o, " IPv%lld\xC2\xA0", (long long)jint(e, "ip_version", 0));
			html_badge(o, jstr(e, "case_verdict", ""));
			if (strcmp(jstr(e, "role", "tested"), "tested")) {
				g_string_append(o, " <span class=\"muted\">");
				html_text(o, jstr(e, "role", ""));
				g_string_append(o, "</span>");
			}
		}
		g_string_append(o, "</div>");
	}
	g_free(done);
}

void html_print_untested_rules(struct html_ctx *x)
{
	GString *o = x->o;
	unsigned n = 0;
	for (guint i = 0; x->print && i < json_array_get_length(x->run->rules); i++) {
		JsonObject *r = json_array_get_object_element(x->run->rules, i);
		if (strcmp(jstr(r, "verdict", ""), "not_tested"))
			continue;
		if (!n++)
			g_string_append(o, "<p id=\"untested-rules\"><b>Not tested</b> (no case of this run tests them): ");
		else
			g_string_append(o, ", ");
		g_string_append(o, "<span class=\"mono\">");
		html_text(o, jstr(r, "id", ""));
		g_string_append(o, "</span>");
	}
	if (n)
		g_string_append_printf(o, " \xE2\x80\x94 %u rule(s) <span class=\"v v-not_tested\">not tested</span>.</p>\n", n);
}
