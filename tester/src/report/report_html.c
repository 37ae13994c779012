/*
 * report.html: the compliance report, laid out the way test labs lay
 * theirs out: the device under test and the set-up first, then the
 * issues observed, then a verdict per rule, then every case in detail
 * with its ladder diagram, steps, evidence and packets. One file: the
 * style sheet is inline, the diagrams are inline SVG, and nothing is
 * fetched (the only link out is to the capture beside it).
 */
#include "report_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
	":root{--ink:#1b2230;--muted:#5b6578;--line:#d9dee7;--bg:#f3f5f8;--pass:#17692f;--pass-bg:#dcf2e2;"
	"--fail:#a31515;--fail-bg:#fbe1e1;--err:#8a5200;--err-bg:#fdecc8;--na:#4a5468;--na-bg:#e6e9ef;"
	"--info:#1b5a91;--info-bg:#dcebfa;--nt:#6b6b6b;--nt-bg:#efefef}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,\"Segoe UI\","
	"Roboto,\"DejaVu Sans\",Arial,sans-serif}\n"
	"code,pre,.mono{font-family:ui-monospace,\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:12.5px}\n"
	"header.top{background:#1c2740;color:#fff;padding:20px 32px 14px}\n"
	"header.top .kind{letter-spacing:.08em;text-transform:uppercase;font-size:12px;opacity:.75}\n"
	"header.top h1{margin:4px 0 10px;font-size:26px}\n"
	".overall{display:inline-block;font-weight:700;font-size:18px;padding:4px 14px;border-radius:4px;margin-right:12px}\n"
	".o-pass{background:#2e9b4f}.o-fail{background:#c62828}.o-incomplete{background:#b96f00}.o-none{background:#666}\n"
	".headline{display:inline-block;vertical-align:middle}\n"
	"nav.toc{margin-top:14px;font-size:13px}nav.toc a{color:#cfe0ff;margin-right:16px;text-decoration:none}\n"
	"main{max-width:1240px;margin:0 auto;padding:8px 24px 40px}\n"
	"section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:14px 22px 18px;margin:18px 0}\n"
	"h2{font-size:20px;margin:4px 0 12px;border-bottom:2px solid var(--line);padding-bottom:6px}\n"
	"h3{font-size:16px;margin:16px 0 6px}h4{font-size:14px;margin:14px 0 6px;color:var(--muted)}\n"
	"table{border-collapse:collapse;width:100%}\n"
	"th,td{border-bottom:1px solid #e6e9ef;padding:4px 8px;text-align:left;vertical-align:top}\n"
	"th{background:#f6f7fa;font-weight:600;white-space:nowrap}\n"
	"table.kv th{width:190px;background:none;color:var(--muted);font-weight:500}\n"
	".grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:8px 28px}\n"
	".v{display:inline-block;padding:0 8px;border-radius:10px;font-weight:600;font-size:12px;white-space:nowrap}\n"
	".v-pass{background:var(--pass-bg);color:var(--pass)}.v-fail{background:var(--fail-bg);color:var(--fail)}\n"
	".v-error{background:var(--err-bg);color:var(--err)}.v-not_applicable{background:var(--na-bg);color:var(--na)}\n"
	".v-informative{background:var(--info-bg);color:var(--info)}.v-not_tested,.v-not_testable{background:var(--nt-bg);color:var(--nt)}\n"
	".cards{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 4px}\n"
	".card{border:1px solid var(--line);border-radius:6px;padding:6px 14px;min-width:120px;background:#fbfcfd}\n"
	".card b{display:block;font-size:22px}.card span{color:var(--muted);font-size:12px}\n"
	".warn{background:#fff4d6;border:1px solid #e7c15a;border-radius:6px;padding:10px 14px;margin:16px 0}\n"
	".issue{border-left:4px solid var(--fail);background:#fff8f8;padding:8px 14px;margin:10px 0;border-radius:0 6px 6px 0}\n"
	".issue.err{border-left-color:var(--err);background:#fffaf0}.issue.obs{border-left-color:var(--info);background:#f6fafe}\n"
	".issue h3{margin:2px 0 4px}.issue ul{margin:4px 0 2px;padding-left:20px}\n"
	".exp{color:var(--pass)}.obs-t{color:var(--fail)}\n"
	"tr.r-fail td{background:#fff6f6}tr.r-info td{background:#f4f8ff}tr:target td,tr.hl td{background:#fff1b8 !important}\n"
	"article.case{border:1px solid var(--line);border-radius:6px;margin:10px 0;background:#fff}\n"
	"article.case>details>summary{cursor:pointer;padding:8px 12px;font-size:15px;list-style-position:inside}\n"
	"article.case[data-verdict=fail]{border-color:#e3a3a3}article.case[data-verdict=error]{border-color:#e6c27a}\n"
	".cbody{padding:0 16px 14px}\n"
	".reason{background:#fafbfc;border:1px solid var(--line);border-radius:4px;padding:6px 10px}\n"
	".ladderbox{overflow-x:auto;border:1px solid var(--line);border-radius:4px;background:#fff}\n"
	"svg.ladder{display:block;max-width:100%;height:auto}\n"
	"svg.ladder text{font:12px ui-monospace,\"DejaVu Sans Mono\",Menlo,monospace;fill:#1b2230}\n"
	"svg.ladder .head{fill:#eef2f8;stroke:#9aa6bb}svg.ladder .who{font-weight:700;text-anchor:middle}\n"
	"svg.ladder .whosub{text-anchor:middle;fill:#5b6578;font-size:11px}\n"
	"svg.ladder .life{stroke:#9aa6bb;stroke-width:1.5}\n"
	"svg.ladder .stepbar{fill:#f4f6f9}svg.ladder .steptext{fill:#3b4457;font-size:11.5px}\n"
	"svg.ladder .status{text-anchor:end;font-size:11px;fill:#5b6578}svg.ladder .st-fail,svg.ladder .st-error{fill:#a31515;font-weight:700}\n"
	"svg.ladder .fail-step{fill:#fde4e4;stroke:#c62828;stroke-width:1.5}\n"
	"svg.ladder .step.failed .stepbar{fill:#f8caca}svg.ladder .step.failed .steptext{fill:#8b0d0d;font-weight:700}\n"
	"svg.ladder .pkt line{stroke:#2b5fb4;stroke-width:1.6}svg.ladder .pkt .head{fill:#2b5fb4;stroke:none}\n"
	"svg.ladder .pkt.rx line{stroke:#2f7d3a}svg.ladder .pkt.rx .head{fill:#2f7d3a}\n"
	"svg.ladder .pkt.finding line{stroke:#c46a00;stroke-width:2}svg.ladder .pkt.finding .head{fill:#c46a00}\n"
	"svg.ladder .pkt.evidence line{stroke:#c62828;stroke-width:3}svg.ladder .pkt.evidence .head{fill:#c62828}\n"
	"svg.ladder .pkt.evidence .label{fill:#a31515;font-weight:700}\n"
	"svg.ladder .pkt.missing line{stroke:#c62828;stroke-width:2;stroke-dasharray:7 5}svg.ladder .pkt.missing .head{fill:#c62828}\n"
	"svg.ladder .label{text-anchor:middle}svg.ladder .note{text-anchor:middle;font-style:italic;fill:#5b6578;font-size:11px}\n"
	"svg.ladder .time{fill:#5b6578;font-size:11px}svg.ladder .frame{text-anchor:end;fill:#1d5fc4;text-decoration:underline}\n"
	"svg.ladder .evtext,svg.ladder .elided{text-anchor:middle;fill:#7a4b00;font-size:11px}\n"
	"td.frames a,a.fr{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace}\n"
	"pre.call{white-space:pre-wrap;word-break:break-all;margin:2px 0;max-height:8em;overflow:auto;background:#fafbfc}\n"
	"footer{color:var(--muted);font-size:12px;text-align:center;margin:20px}\n"
	".muted{color:var(--muted)}.small{font-size:12px}\n";

/* Expands every case when printing (the print styles hide what a printed
 * report leaves out). */
static const char print_js[] =
	"window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach("
	"function(d){d.open=true})});";

const char *html_verdict_text(const char *v)
{
	if (!strcmp(v, "not_applicable"))
		return "not applicable";
	if (!strcmp(v, "not_tested"))
		return "not tested";
	if (!strcmp(v, "not_testable"))
		return "not testable";
	return v;
}

void html_badge(GString *o, const char *v)
{
	g_string_append(o, "<span class=\"v v-");
	html_text(o, v);
	g_string_append(o, "\">");
	html_text(o, html_verdict_text(v));
	g_string_append(o, "</span>");
}

/* Rounded in integers: 64 bytes hold any 64-bit duration. */
void html_duration(char *buf, size_t n, gint64 ns)
{
	if (ns < 0)
		ns = 0;
	if (ns >= 1000000000) {
		gint64 cs = (ns + 5000000) / 10000000; /* hundredths of a second */
		snprintf(buf, n, "%lld.%02lld s", (long long)(cs / 100), (long long)(cs % 100));
	} else if (ns >= 1000000) {
		gint64 ds = (ns + 50000) / 100000; /* tenths of a millisecond */
		snprintf(buf, n, "%lld.%lld ms", (long long)(ds / 10), (long long)(ds % 10));
	} else {
		snprintf(buf, n, "%lld \xC2\xB5s", (long long)((ns + 500) / 1000));
	}
}

void html_frame_link(struct html_ctx *x, gint64 frame)
{
	GString *o = x->o;
	if (frame > 0 && x->linked)
		g_hash_table_add(x->linked, GINT_TO_POINTER((gint)frame));
	if (frame > 0)
		g_string_append_printf(o, "<a class=\"fr\" href=\"#f%lld\">#%lld</a>", (long long)frame, (long long)frame);
	else
		g_string_append(o, "<span class=\"muted\">(not written)</span>");
}

/* Up to 12 frame links; a longer list ends with its count and last frame. */
void html_frame_links(struct html_ctx *x, JsonArray *a)
{
	GString *o = x->o;
	guint n = a ? json_array_get_length(a) : 0;
	for (guint i = 0; i < n; i++) {
		JsonNode *e = json_array_get_element(a, i);
		if (i == 11 && n > 12) {
			JsonNode *last = json_array_get_element(a, n - 1);
			g_string_append_printf(o, " \xE2\x80\xA6 (%u frames) ", n);
			html_frame_link(x, JSON_NODE_HOLDS_VALUE(last) ? json_node_get_int(last) : 0);
			return;
		}
		if (i)
			g_string_append(o, " ");
		html_frame_link(x, JSON_NODE_HOLDS_VALUE(e) ? json_node_get_int(e) : 0);
	}
}

void html_rule_link(GString *o, const char *id)
{
	g_string_append(o, "<a href=\"#rule-");
	html_text(o, id);
	g_string_append(o, "\">");
	html_text(o, id);
	g_string_append(o, "</a>");
}

void html_rule_links(GString *o, JsonArray *a)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		if (i)
			g_string_append(o, ", ");
		html_rule_link(o, json_array_get_string_element(a, i));
	}
}

/* A scalar JSON value, or an array of scalars, as text. */
bool html_scalar_text(JsonNode *n, GString *t)
{
	if (JSON_NODE_HOLDS_NULL(n)) {
		g_string_append(t, "\xE2\x80\x94");
		return true;
	}
	if (JSON_NODE_HOLDS_VALUE(n)) {
		GType ty = json_node_get_value_type(n);
		if (ty == G_TYPE_STRING)
			g_string_append(t, json_node_get_string(n));
		else if (ty == G_TYPE_INT64)
			g_string_append_printf(t, "%lld", (long long)json_node_get_int(n));
		else if (ty == G_TYPE_BOOLEAN)
			g_string_append(t, json_node_get_boolean(n) ? "yes" : "no");
		else if (ty == G_TYPE_DOUBLE)
			g_string_append_printf(t, "%g", json_node_get_double(n));
		return true;
	}
	if (JSON_NODE_HOLDS_ARRAY(n)) {
		JsonArray *a = json_node_get_array(n);
		for (guint i = 0; i < json_array_get_length(a); i++) {
			JsonNode *e = json_array_get_element(a, i);
			if (!JSON_NODE_HOLDS_VALUE(e))
				return false;
			if (i)
				g_string_append(t, ", ");
			html_scalar_text(e, t);
		}
		return true;
	}
	return false;
}

void html_kv(GString *o, const char *key, const char *value)
{
	g_string_append(o, "<tr><th>");
	html_text(o, key);
	g_string_append(o, "</th><td>");
	html_text(o, value && *value ? value : "\xE2\x80\x94");
	g_string_append(o, "</td></tr>\n");
}

const char *const html_case_verdicts[5] = { "pass", "fail", "not_applicable", "error", "informative" };

static gint case_index(const struct html_ctx *x, JsonObject *c)
{
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++)
		if (json_array_get_object_element(x->run->cases, i) == c)
			return (gint)i;
	return -1;
}

void html_case_link(struct html_ctx *x, JsonObject *c)
{
	gchar *label = case_label(c);
	g_string_append_printf(x->o, "<a href=\"#case-%d\">", case_index(x, c));
	html_text(x->o, label);
	g_free(label);
	g_string_append(x->o, "</a>");
}

/* ---- Header ---- */

const char *html_overall(const struct html_ctx *x, const char **cls)
{
	bool complete = jbool(jobj(x->run->root, "run"), "complete", false);
	if (!json_array_get_length(x->run->cases)) {
		*cls = "o-none";
		return "NO RESULTS";
	}
	if (x->n_case[1]) {
		*cls = "o-fail";
		return "FAIL";
	}
	if (x->n_case[3] || !complete) {
		*cls = "o-incomplete";
		return "INCOMPLETE";
	}
	*cls = "o-pass";
	return "PASS";
}

static void header(struct html_ctx *x)
{
	GString *o = x->o;
	JsonObject *run = jobj(x->run->root, "run");
	unsigned total = json_array_get_length(x->run->cases);
	unsigned rules_broken = 0, rules_judged = 0;
	for (guint i = 0; i < json_array_get_length(x->run->rules); i++) {
		const char *v = jstr(json_array_get_object_element(x->run->rules, i), "verdict", "");
		rules_broken += !strcmp(v, "fail");
		rules_judged += !strcmp(v, "fail") || !strcmp(v, "pass") || !strcmp(v, "informative");
	}
	const char *cls;
	const char *overall = html_overall(x, &cls);
	bool complete = jbool(run, "complete", false);
	g_string_append(o, "<header class=\"top\" id=\"top\"><div class=\"kind\">RoCEv2 conformance test report</div><h1>");
	html_text(o, x->dut_name);
	g_string_append(o, "</h1>");
	g_string_append_printf(o, "<span class=\"overall %s\" id=\"overall\">%s</span><span class=\"headline\">", cls, overall);
	html_textf(o, "%u case run(s): %u pass, %u informative, %u fail, %u not applicable, %u error", total, x->n_case[0],
	   x->n_case[4], x->n_case[1], x->n_case[2], x->n_case[3]);
	g_string_append(o, "<br>");
	html_textf(o, "%u of %u rule(s) with a verdict are broken", rules_broken, rules_judged);
	g_string_append(o, " \xC2\xB7 ");
	html_textf(o, "%s", jbool(run, "interrupted", false) ? "run interrupted" : complete ? "run complete" : "run not finished");
	g_string_append(o, " \xC2\xB7 ");
	html_text(o, jstr(run, "started", ""));
	g_string_append(o, "</span>\n");
	if (x->print) {
		g_string_append(o, "</header>\n");
		return;
	}
	g_string_append(o, "<nav class=\"toc\"><a href=\"#setup\">1 Device under test and set-up</a>"
			   "<a href=\"#issues\">2 Issues observed</a><a href=\"#rules\">3 Verdict per rule</a>"
			   "<a href=\"#cases\">4 Case detail</a><a href=\"#about\">5 About this report</a></nav></header>\n");
}

static void about_section(struct html_ctx *x)
{
	GString *o = x->o;
	JsonObject *tool = jobj(x->run->root, "tool");
	g_string_append(o, "<section id=\"about\"><h2>5. About this report</h2><p>");
	html_textf(o, "Built by %s %s from results.json (schema version %lld), which holds everything shown here and more "
	      "(every agent exchange, engine counters, symbols). ",
	   jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""), (long long)jint(x->run->root, "schema_version", 0));
	g_string_append(o, "<code>roce-tester report DIR</code> rebuilds this file and junit.xml; "
			   "<code>roce-tester report --compare OLD NEW</code> compares two runs.</p><p>The annotated capture <a href=\"");
	html_text(o, x->capture);
	g_string_append(o, "\">");
	html_text(o, x->capture);
	g_string_append(o, "</a> holds every frame sent and received, each with a comment naming its case and step and what "
			   "the expectations concluded. Frame numbers in this report are that file's: <code>");
	html_textf(o, "wireshark -r %s -g FRAME", x->capture);
	g_string_append(o, "</code> opens it at a frame, and the display filter <code>frame.comment contains \"CASE-ID\"</code> "
			   "shows one case. With the rocev2 plugin installed every packet is also decoded and checked, ICRC "
			   "included.</p><p class=\"small muted\">Verdicts: a case <b>passes</b> when every step held and no DUT "
			   "packet broke a rule; it <b>fails</b> when an expectation did not hold or a DUT packet broke a rule "
			   "(with the rules named and the frames cited); it is <b>not applicable</b> when the DUT lacks what it "
			   "requires; it ends in <b>error</b> on a set-up problem.</p></section>\n");
}

/* report.html, or with print report-print.html. */
static int write_html(const struct report_run *run, const char *path, bool print, bool full, char *err, size_t errlen)
{
	struct html_ctx x = { .run = run, .o = g_string_sized_new(1 << 16), .print = print, .print_full = print && full };
	JsonObject *r = jobj(run->root, "run");
	JsonObject *setup = jobj(run->root, "setup");
	x.capture = jstr(r, "capture", "capture.pcapng");
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		const char *v = jstr(json_array_get_object_element(run->cases, i), "verdict", "");
		for (int k = 0; k < 5; k++)
			x.n_case[k] += !strcmp(v, html_case_verdicts[k]);
	}
	JsonObject *iface = jobj(setup, "interface");
	JsonObject *hello = jobj(jobj(setup, "agent"), "hello");
	JsonObject *dev = jobj(jobj(setup, "dut"), "device");
	x.tester_name = jstr(iface, "name", "tester");
	x.dut_short = jstr(dev, "name", jstr(hello, "device", "DUT"));
	const char *fw = jstr(dev, "fw_ver", NULL);
	x.dut_name = g_strdup_printf("%s%s%s%s", jstr(dev, "name", jstr(hello, "device", "unknown DUT")), fw ? " (" : "",
				     fw ? fw : "", fw ? ")" : "");

	GString *o = x.o;
	JsonObject *tool = jobj(run->root, "tool");
	g_string_append(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
			   "<meta name=\"generator\" content=\"");
	html_textf(o, "%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
	g_string_append(o, "\"><title>RoCEv2 conformance report: ");
	html_text(o, x.dut_name);
	g_string_append(o, "</title>\n<style>\n");
	g_string_append(o, css);
	g_string_append(o, html_print_css);
	html_page_rules(&x);
	g_string_append(o, "</style>\n");
	if (!print) {
		g_string_append(o, "<script>");
		g_string_append(o, print_js);
		g_string_append(o, "</script>");
	}
	g_string_append(o, "</head>\n<body>\n");
	html_cover(&x);
	header(&x);
	g_string_append(o, "<main>\n");
	html_setup_section(&x);
	html_issues_section(&x);
	html_rules_section(&x);
	html_cases_section(&x);
	about_section(&x);
	g_string_append(o, "</main><footer>");
	html_textf(o, "%s %s \xC2\xB7 %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""), jstr(r, "started", ""));
	g_string_append(o, "</footer>\n</body></html>\n");
	int rc = write_file_atomic(path, o->str, o->len, err, errlen);
	g_string_free(o, TRUE);
	g_free(x.dut_name);
	return rc;
}

int report_write_html(const struct report_run *run, const char *path, char *err, size_t errlen)
{
	return write_html(run, path, false, false, err, errlen);
}

int report_write_html_print(const struct report_run *run, const char *path, bool full, char *err, size_t errlen)
{
	return write_html(run, path, true, full, err, errlen);
}
