/*
 * report.html: the compliance report, laid out the way test labs lay
 * theirs out: the device under test and the set-up first, then the
 * issues observed, then a verdict per rule, then every case in detail
 * with its ladder diagram, steps, evidence and packets. One file: the
 * style sheet is inline, the diagrams are inline SVG, and nothing is
 * fetched (the only link out is to the capture beside it).
 */
#include "report.h"

#include <stdarg.h>
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
	".muted{color:var(--muted)}.small{font-size:12px}\n"
	"@media print{body{background:#fff}section{border:none;padding:0}nav.toc{display:none}"
	"article.case{break-inside:avoid-page}}\n";

/* Expands every case when printing: a printed report holds everything. */
static const char print_js[] =
	"window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach("
	"function(d){d.open=true})});";

static void h(GString *o, const char *t)
{
	xml_escape(o, t);
}

static void hf(GString *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hf(GString *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gchar *t = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	xml_escape(o, t);
	g_free(t);
}

static const char *verdict_text(const char *v)
{
	if (!strcmp(v, "not_applicable"))
		return "not applicable";
	if (!strcmp(v, "not_tested"))
		return "not tested";
	if (!strcmp(v, "not_testable"))
		return "not testable";
	return v;
}

static void badge(GString *o, const char *v)
{
	g_string_append(o, "<span class=\"v v-");
	h(o, v);
	g_string_append(o, "\">");
	h(o, verdict_text(v));
	g_string_append(o, "</span>");
}

/* Rounded in integers: 64 bytes hold any 64-bit duration. */
static void duration(char *buf, size_t n, gint64 ns)
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

struct ctx {
	const struct report_run *run;
	GString *o;
	const char *capture;
	/* From the results file, any length: the two into it, dut_name owned. */
	const char *tester_name, *dut_short;
	gchar *dut_name;
	unsigned n_case[5]; /* pass fail na error informative, as case_verdicts */
	/* Frames some link of the case at hand points to: the packet table
	 * of a long case lists at least these. */
	GHashTable *linked;
};

#define PKT_TABLE_ALL 600
#define PKT_TABLE_HEAD 300
#define PKT_TABLE_TAIL 100

static void frame_link(struct ctx *x, gint64 frame)
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
static void frame_links(struct ctx *x, JsonArray *a)
{
	GString *o = x->o;
	guint n = a ? json_array_get_length(a) : 0;
	for (guint i = 0; i < n; i++) {
		JsonNode *e = json_array_get_element(a, i);
		if (i == 11 && n > 12) {
			JsonNode *last = json_array_get_element(a, n - 1);
			g_string_append_printf(o, " \xE2\x80\xA6 (%u frames) ", n);
			frame_link(x, JSON_NODE_HOLDS_VALUE(last) ? json_node_get_int(last) : 0);
			return;
		}
		if (i)
			g_string_append(o, " ");
		frame_link(x, JSON_NODE_HOLDS_VALUE(e) ? json_node_get_int(e) : 0);
	}
}

static void rule_link(GString *o, const char *id)
{
	g_string_append(o, "<a href=\"#rule-");
	h(o, id);
	g_string_append(o, "\">");
	h(o, id);
	g_string_append(o, "</a>");
}

static void rule_links(GString *o, JsonArray *a)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		if (i)
			g_string_append(o, ", ");
		rule_link(o, json_array_get_string_element(a, i));
	}
}

static bool str_in(JsonArray *a, const char *s)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonNode *n = json_array_get_element(a, i);
		if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING &&
		    !strcmp(json_node_get_string(n), s))
			return true;
	}
	return false;
}

/* A scalar JSON value, or an array of scalars, as text. */
static bool scalar_text(JsonNode *n, GString *t)
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
			scalar_text(e, t);
		}
		return true;
	}
	return false;
}

static void kv(GString *o, const char *key, const char *value)
{
	g_string_append(o, "<tr><th>");
	h(o, key);
	g_string_append(o, "</th><td>");
	h(o, value && *value ? value : "\xE2\x80\x94");
	g_string_append(o, "</td></tr>\n");
}

/* Every scalar member of an object, in its order (a hardware backend's
 * query_device may say more than the soft DUT's). */
static void kv_object(GString *o, JsonObject *obj, const char *prefix)
{
	if (!obj)
		return;
	GList *members = json_object_get_members(obj);
	for (GList *m = members; m; m = m->next) {
		GString *t = g_string_new(NULL);
		JsonNode *n = json_object_get_member(obj, m->data);
		if (strstr(m->data, "vendor") && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64) {
			/* PCI vendor and device IDs are known in hex (0x15b3). */
			/* Member names are the agent's: any length. */
			gchar *key = g_strconcat(prefix, (const char *)m->data, NULL);
			g_string_printf(t, "%lld (0x%llx)", (long long)json_node_get_int(n),
					(unsigned long long)json_node_get_int(n));
			kv(o, key, t->str);
			g_free(key);
		} else if (scalar_text(n, t)) {
			gchar *key = g_strconcat(prefix, (const char *)m->data, NULL);
			kv(o, key, t->str);
			g_free(key);
		}
		g_string_free(t, TRUE);
	}
	g_list_free(members);
}

static void shell_join(GString *t, JsonArray *a)
{
	g_string_append(t, "roce-tester");
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		const char *s = json_array_get_string_element(a, i);
		bool plain = *s != '\0';
		for (const char *p = s; *p && plain; p++)
			plain = g_ascii_isalnum(*p) || strchr("-_./:=@,+%", *p);
		g_string_append_c(t, ' ');
		if (plain) {
			g_string_append(t, s);
		} else {
			gchar *q = g_shell_quote(s);
			g_string_append(t, q);
			g_free(q);
		}
	}
}


static const char *case_verdicts[5] = { "pass", "fail", "not_applicable", "error", "informative" };

static gint case_index(const struct ctx *x, JsonObject *c)
{
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++)
		if (json_array_get_object_element(x->run->cases, i) == c)
			return (gint)i;
	return -1;
}

static void case_link(struct ctx *x, JsonObject *c)
{
	gchar *label = case_label(c);
	g_string_append_printf(x->o, "<a href=\"#case-%d\">", case_index(x, c));
	h(x->o, label);
	g_free(label);
	g_string_append(x->o, "</a>");
}

/* ---- Header ---- */

static void header(struct ctx *x)
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
	const char *overall, *cls;
	bool complete = jbool(run, "complete", false);
	if (!total) {
		overall = "NO RESULTS";
		cls = "o-none";
	} else if (x->n_case[1]) {
		overall = "FAIL";
		cls = "o-fail";
	} else if (x->n_case[3] || !complete) {
		overall = "INCOMPLETE";
		cls = "o-incomplete";
	} else {
		overall = "PASS";
		cls = "o-pass";
	}
	g_string_append(o, "<header class=\"top\" id=\"top\"><div class=\"kind\">RoCEv2 conformance test report</div><h1>");
	h(o, x->dut_name);
	g_string_append(o, "</h1>");
	g_string_append_printf(o, "<span class=\"overall %s\" id=\"overall\">%s</span><span class=\"headline\">", cls, overall);
	hf(o, "%u case run(s): %u pass, %u informative, %u fail, %u not applicable, %u error", total, x->n_case[0],
	   x->n_case[4], x->n_case[1], x->n_case[2], x->n_case[3]);
	g_string_append(o, "<br>");
	hf(o, "%u of %u rule(s) with a verdict are broken", rules_broken, rules_judged);
	g_string_append(o, " \xC2\xB7 ");
	hf(o, "%s", jbool(run, "interrupted", false) ? "run interrupted" : complete ? "run complete" : "run not finished");
	g_string_append(o, " \xC2\xB7 ");
	h(o, jstr(run, "started", ""));
	g_string_append(o, "</span>\n<nav class=\"toc\"><a href=\"#setup\">1 Device under test and set-up</a>"
			   "<a href=\"#issues\">2 Issues observed</a><a href=\"#rules\">3 Verdict per rule</a>"
			   "<a href=\"#cases\">4 Case detail</a><a href=\"#about\">5 About this report</a></nav></header>\n");
}

/* ---- 1. DUT and set-up ---- */

static void setup_section(struct ctx *x)
{
	GString *o = x->o;
	JsonObject *setup = jobj(x->run->root, "setup");
	JsonObject *run = jobj(x->run->root, "run");
	JsonObject *agent = jobj(setup, "agent");
	JsonObject *hello = jobj(agent, "hello");
	JsonObject *dut = jobj(setup, "dut");
	JsonObject *iface = jobj(setup, "interface");
	JsonObject *tool = jobj(x->run->root, "tool");

	const char *fault = jstr(hello, "fault", NULL);
	if (fault && *fault) {
		g_string_append(o, "<div class=\"warn\" id=\"fault-warning\"><b>Deliberately faulty DUT.</b> The agent runs the "
				   "embedded software DUT with the fault profile <code>");
		h(o, fault);
		g_string_append(o, "</code>, which breaks one rule on purpose: these results describe that fault, not a "
				   "product.</div>\n");
	}
	if (!jbool(run, "complete", false)) {
		g_string_append(o, "<div class=\"warn\" id=\"incomplete-warning\"><b>Incomplete run.</b> ");
		h(o, jbool(run, "interrupted", false)
			     ? "The run was interrupted (Ctrl-C or SIGTERM); the case at hand ended in error and later cases did not run."
			     : "The results file was written before the run ended: cases may be missing.");
		g_string_append(o, "</div>\n");
	}

	g_string_append(o, "<section id=\"setup\"><h2>1. Device under test and set-up</h2>\n");
	if (!setup) {
		g_string_append(o, "<p>No set-up was recorded: the run ended before the interface was opened.</p></section>\n");
		return;
	}
	g_string_append(o, "<div class=\"grid\"><div><h3>Device under test</h3><table class=\"kv\" id=\"dut-table\">\n");
	JsonObject *dev = jobj(dut, "device");
	if (dev)
		kv_object(o, dev, "");
	else
		kv(o, "device", "not queried (no agent session succeeded)");
	kv_object(o, jobj(dut, "port"), "port.");
	g_string_append(o, "</table>\n<h3>GIDs and addresses</h3><table id=\"gid-table\"><tr><th>Index</th><th>GID</th><th>Type</th></tr>\n");
	JsonArray *gids = jarr(dut, "gids");
	for (guint i = 0; gids && i < json_array_get_length(gids); i++) {
		JsonObject *g = json_array_get_object_element(gids, i);
		g_string_append_printf(o, "<tr><td>%lld</td><td class=\"mono\">", (long long)jint(g, "index", 0));
		h(o, jstr(g, "gid", ""));
		g_string_append(o, "</td><td>");
		h(o, jstr(g, "type", ""));
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table><table class=\"kv\">\n");
	static const char *const fams[2] = { "ipv4", "ipv6" };
	for (int f = 0; f < 2; f++) {
		JsonObject *fo = jobj(dut, fams[f]);
		const char *key = f ? "IPv6" : "IPv4";
		gchar *val;
		if (!fo)
			val = g_strdup("not learnt");
		else if (jbool(fo, "usable", false)) {
			/* A dual-mode port also has the address as a RoCE v1 GID. */
			char v1[48] = "";
			if (jint(fo, "sgid_index_rocev1", -1) >= 0)
				snprintf(v1, sizeof v1, "; as RoCE v1: %lld", (long long)jint(fo, "sgid_index_rocev1", 0));
			val = g_strdup_printf("%s (GID index %lld%s), MAC %s, resolved by %s", jstr(fo, "gid", ""),
					      (long long)jint(fo, "sgid_index", 0), v1, jstr(fo, "mac", ""),
					      jstr(fo, "resolved_by", ""));
		}
		else
			val = g_strdup_printf("not usable: %s", jstr(fo, "why_not", "no address"));
		kv(o, key, val);
		g_free(val);
	}
	g_string_append(o, "</table></div>\n<div><h3>Agent</h3><table class=\"kv\" id=\"agent-table\">\n");
	kv(o, "address", jstr(agent, "address", ""));
	kv(o, "agent", jstr(hello, "agent", ""));
	char num[64];
	snprintf(num, sizeof num, "%lld", (long long)jint(hello, "version", 0));
	kv(o, "protocol version", hello ? num : NULL);
	kv(o, "backend", jstr(hello, "backend", ""));
	kv(o, "device", jstr(hello, "device", ""));
	kv(o, "DUT host", jstr(hello, "host", NULL));
	kv(o, "fault profile", fault && *fault ? fault : "none");
	g_string_append(o, "</table>\n<h3>Tester</h3><table class=\"kv\" id=\"tester-table\">\n");
	gchar *ver = g_strdup_printf("%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
	kv(o, "tool", ver);
	g_free(ver);
	kv(o, "interface", jstr(iface, "name", ""));
	kv(o, "MAC", jstr(iface, "mac", ""));
	kv(o, "IPv4", jstr(iface, "ipv4", NULL));
	kv(o, "IPv6", jstr(iface, "ipv6", NULL));
	if (jnull_or_absent(iface, "vlan"))
		kv(o, "VLAN", "none (untagged)");
	else {
		snprintf(num, sizeof num, "%lld", (long long)jint(iface, "vlan", 0));
		kv(o, "VLAN", num);
	}
	kv(o, "timestamps", jstr(iface, "timestamps", ""));
	kv(o, "ICMP guard", jstr(iface, "icmp_guard", ""));
	g_string_append(o, "</table>\n<h3>Run</h3><table class=\"kv\" id=\"run-table\">\n");
	kv(o, "started", jstr(run, "started", ""));
	kv(o, "finished", jstr(run, "finished", NULL));
	char d[64];
	duration(d, sizeof d, jint(run, "duration_ns", 0));
	kv(o, "duration", d);
	kv(o, "status", jbool(run, "interrupted", false) ? "interrupted" : jbool(run, "complete", false) ? "complete" : "not finished");
	GString *cmd = g_string_new(NULL);
	shell_join(cmd, jarr(run, "command"));
	g_string_append(o, "<tr><th>command</th><td><code>");
	h(o, cmd->str);
	g_string_append(o, "</code></td></tr>\n");
	g_string_free(cmd, TRUE);
	g_string_append(o, "<tr><th>capture</th><td><a href=\"");
	h(o, x->capture);
	g_string_append(o, "\">");
	h(o, x->capture);
	g_string_append(o, "</a>");
	hf(o, " (%lld frames sent, %lld received, %lld send errors)", (long long)jint(iface, "frames_sent", 0),
	   (long long)jint(iface, "frames_received", 0), (long long)jint(iface, "send_errors", 0));
	g_string_append(o, "</td></tr>\n</table></div></div>\n");

	/* The verdict counts. */
	g_string_append(o, "<h3>Summary</h3><div class=\"cards\" id=\"case-counts\">");
	static const int card_order[5] = { 0, 4, 1, 2, 3 };
	for (int k = 0; k < 5; k++) {
		int v = card_order[k];
		g_string_append_printf(o, "<div class=\"card\"><b class=\"v-%s\" style=\"background:none\">%u</b><span>%s case run(s)</span></div>",
				       case_verdicts[v], x->n_case[v], verdict_text(case_verdicts[v]));
	}
	g_string_append(o, "</div><div class=\"cards\" id=\"rule-counts\">");
	static const char *const rv[] = { "pass", "fail", "informative", "error", "not_applicable", "not_tested", "not_testable" };
	for (size_t v = 0; v < G_N_ELEMENTS(rv); v++) {
		unsigned n = 0;
		for (guint i = 0; i < json_array_get_length(x->run->rules); i++)
			n += !strcmp(jstr(json_array_get_object_element(x->run->rules, i), "verdict", ""), rv[v]);
		g_string_append_printf(o, "<div class=\"card\"><b>%u</b><span>rule(s) %s</span></div>", n, verdict_text(rv[v]));
	}
	g_string_append(o, "</div></section>\n");
}

/* ---- 2. Issues observed ---- */

static void evidence_line(struct ctx *x, JsonObject *c, JsonObject *e)
{
	GString *o = x->o;
	g_string_append(o, "<li>");
	case_link(x, c);
	g_string_append_printf(o, ", step %lld (line %lld): <code>", (long long)jint(e, "step", 0), (long long)jint(e, "line", 0));
	h(o, jstr(e, "statement", ""));
	g_string_append(o, "</code><br>expected <span class=\"exp\">");
	h(o, jstr(e, "expected", ""));
	g_string_append(o, "</span>; observed <span class=\"obs-t\">");
	h(o, jstr(e, "observed", ""));
	g_string_append(o, "</span>");
	JsonArray *fr = jarr(e, "frames");
	if (fr && json_array_get_length(fr)) {
		g_string_append(o, "; frames ");
		frame_links(x, fr);
	}
	g_string_append(o, "</li>\n");
}

static void issues_section(struct ctx *x)
{
	GString *o = x->o;
	g_string_append(o, "<section id=\"issues\"><h2>2. Issues observed</h2>\n");
	/* Rules shown broken: the rule records' order first, then any rule a
	 * case names that the catalogue of this file lacks. */
	GPtrArray *ids = g_ptr_array_new();
	for (guint i = 0; i < json_array_get_length(x->run->rules); i++) {
		JsonObject *r = json_array_get_object_element(x->run->rules, i);
		if (!strcmp(jstr(r, "verdict", ""), "fail"))
			g_ptr_array_add(ids, (gpointer)jstr(r, "id", ""));
	}
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonArray *fr = jarr(json_array_get_object_element(x->run->cases, i), "failed_rules");
		for (guint k = 0; fr && k < json_array_get_length(fr); k++) {
			const char *id = json_array_get_string_element(fr, k);
			bool have = false;
			for (guint j = 0; j < ids->len && !have; j++)
				have = !strcmp(ids->pdata[j], id);
			if (!have)
				g_ptr_array_add(ids, (gpointer)id);
		}
	}
	unsigned n = 0;
	for (guint k = 0; k < ids->len; k++) {
		const char *id = ids->pdata[k];
		JsonObject *rule = NULL;
		for (guint i = 0; i < json_array_get_length(x->run->rules) && !rule; i++)
			if (!strcmp(jstr(json_array_get_object_element(x->run->rules, i), "id", ""), id))
				rule = json_array_get_object_element(x->run->rules, i);
		n++;
		g_string_append_printf(o, "<div class=\"issue\" id=\"issue-%u\" data-rule=\"", n);
		h(o, id);
		g_string_append_printf(o, "\"><h3>Issue %u: ", n);
		rule_link(o, id);
		if (rule) {
			g_string_append(o, " <span class=\"muted small\">");
			hf(o, "%s \xC2\xB7 %s", jstr(rule, "severity", ""), jstr(rule, "spec_ref", ""));
			g_string_append(o, "</span>");
		}
		g_string_append(o, "</h3><div>");
		h(o, rule ? jstr(rule, "title", "") : "(not in this file's catalogue)");
		g_string_append(o, "</div><ul>\n");
		for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
			JsonObject *c = json_array_get_object_element(x->run->cases, i);
			if (!str_in(jarr(c, "failed_rules"), id))
				continue;
			bool said = false;
			JsonArray *ev = jarr(c, "evidence");
			for (guint e = 0; ev && e < json_array_get_length(ev); e++) {
				JsonObject *eo = json_array_get_object_element(ev, e);
				if (str_in(jarr(eo, "rules"), id)) {
					evidence_line(x, c, eo);
					said = true;
				}
			}
			JsonArray *fd = jarr(c, "findings");
			for (guint f = 0; fd && f < json_array_get_length(fd); f++) {
				JsonObject *fo = json_array_get_object_element(fd, f);
				if (strcmp(jstr(fo, "rule", ""), id) || strcmp(jstr(fo, "severity", ""), "error"))
					continue;
				g_string_append(o, "<li>");
				case_link(x, c);
				g_string_append(o, ": ");
				hf(o, "%s (%s)", jstr(fo, "message", ""), jstr(fo, "source", ""));
				if (!jnull_or_absent(fo, "frame")) {
					g_string_append(o, "; frame ");
					frame_link(x, jint(fo, "frame", 0));
				}
				g_string_append(o, "</li>\n");
				said = true;
			}
			if (!said) {
				g_string_append(o, "<li>");
				case_link(x, c);
				g_string_append(o, ": ");
				h(o, jstr(c, "reason", ""));
				g_string_append(o, "</li>\n");
			}
		}
		g_string_append(o, "</ul></div>\n");
	}
	g_ptr_array_free(ids, TRUE);

	/* Set-up problems are not verdicts on the DUT, but they are issues. */
	unsigned errors = 0;
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		if (strcmp(jstr(c, "verdict", ""), "error"))
			continue;
		if (!errors++)
			g_string_append(o, "<div class=\"issue err\" id=\"issue-errors\"><h3>Case runs that ended in error</h3>"
					   "<div>A set-up problem (agent, link, time budget, interruption) kept these from a verdict.</div><ul>\n");
		g_string_append(o, "<li>");
		case_link(x, c);
		g_string_append(o, ": ");
		h(o, jstr(c, "reason", ""));
		g_string_append(o, "</li>\n");
	}
	if (errors)
		g_string_append(o, "</ul></div>\n");

	/* Warnings: not failures, but worth a look. */
	unsigned warnings = 0;
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		JsonArray *fd = jarr(c, "findings");
		for (guint f = 0; fd && f < json_array_get_length(fd); f++) {
			JsonObject *fo = json_array_get_object_element(fd, f);
			if (strcmp(jstr(fo, "severity", ""), "warning"))
				continue;
			if (!warnings++)
				g_string_append(o, "<div class=\"issue obs\" id=\"issue-warnings\"><h3>Warnings</h3><ul>\n");
			g_string_append(o, "<li>");
			case_link(x, c);
			g_string_append(o, ": ");
			rule_link(o, jstr(fo, "rule", ""));
			g_string_append(o, " ");
			h(o, jstr(fo, "message", ""));
			if (!jnull_or_absent(fo, "frame")) {
				g_string_append(o, "; frame ");
				frame_link(x, jint(fo, "frame", 0));
			}
			g_string_append(o, "</li>\n");
		}
	}
	if (warnings)
		g_string_append(o, "</ul></div>\n");

	/* Informative findings: behaviour that differs between conforming
	 * devices, worth knowing, never a failure. */
	unsigned infos = 0;
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		JsonArray *fd = jarr(c, "findings");
		for (guint f = 0; fd && f < json_array_get_length(fd); f++) {
			JsonObject *fo = json_array_get_object_element(fd, f);
			if (strcmp(jstr(fo, "source", ""), "case") && strcmp(jstr(fo, "source", ""), "counter check"))
				continue;
			if (!infos++)
				g_string_append(o, "<div class=\"issue obs\" id=\"issue-informative\"><h3>Informative findings</h3>"
						   "<div>Behaviour that differs between conforming devices, reported by the cases; "
						   "not failures.</div><ul>\n");
			g_string_append(o, "<li>");
			case_link(x, c);
			g_string_append(o, ": ");
			if (*jstr(fo, "rule", "")) {
				rule_link(o, jstr(fo, "rule", ""));
				g_string_append(o, " ");
			}
			h(o, jstr(fo, "message", ""));
			g_string_append(o, "</li>\n");
		}
	}
	if (infos)
		g_string_append(o, "</ul></div>\n");
	if (!n && !errors && !warnings && !infos)
		g_string_append(o, "<p id=\"no-issues\">No issues observed: no case failed or ended in error, and no packet "
				   "drew a warning.</p>\n");
	g_string_append(o, "</section>\n");
}

/* ---- 3. Verdict per rule ---- */

static void rules_section(struct ctx *x)
{
	GString *o = x->o;
	g_string_append(o, "<section id=\"rules\"><h2>3. Verdict per rule</h2>\n<p class=\"small muted\">"
			   "<b>pass</b>: a case testing the rule passed (or was informative) and none showed it broken; <b>fail</b>: a case showed it "
			   "broken; <b>informative</b>: observed only, or a rule of severity info; <b>not applicable</b>: its "
			   "cases needed what the DUT lacks; <b>error</b>: its cases ended in error; <b>not tested</b>: no case "
			   "of this run tests it; <b>not testable</b>: it has no wire image.</p>\n");
	g_string_append(o, "<table id=\"rule-table\"><tr><th>Rule</th><th>Title</th><th>Severity</th><th>Spec</th>"
			   "<th>Verdict</th><th>Case runs</th></tr>\n");
	for (guint i = 0; i < json_array_get_length(x->run->rules); i++) {
		JsonObject *r = json_array_get_object_element(x->run->rules, i);
		const char *v = jstr(r, "verdict", "");
		g_string_append(o, "<tr id=\"rule-");
		h(o, jstr(r, "id", ""));
		g_string_append(o, "\" data-verdict=\"");
		h(o, v);
		g_string_append_printf(o, "\"%s><td class=\"mono\">", !strcmp(v, "fail") ? " class=\"r-fail\"" : "");
		h(o, jstr(r, "id", ""));
		g_string_append(o, "</td><td>");
		h(o, jstr(r, "title", ""));
		if (jstr(r, "not_testable_reason", NULL)) {
			g_string_append(o, "<br><span class=\"small muted\">");
			h(o, jstr(r, "not_testable_reason", ""));
			g_string_append(o, "</span>");
		}
		g_string_append(o, "</td><td>");
		h(o, jstr(r, "severity", ""));
		g_string_append(o, "</td><td class=\"small\">");
		h(o, jstr(r, "spec_ref", ""));
		g_string_append(o, "</td><td>");
		badge(o, v);
		g_string_append(o, "</td><td class=\"small\">");
		JsonArray *cs = jarr(r, "cases");
		for (guint k = 0; cs && k < json_array_get_length(cs); k++) {
			JsonObject *e = json_array_get_object_element(cs, k);
			/* The case record this entry names. */
			JsonObject *c = NULL;
			for (guint j = 0; j < json_array_get_length(x->run->cases) && !c; j++) {
				JsonObject *cj = json_array_get_object_element(x->run->cases, j);
				if (!strcmp(jstr(cj, "id", ""), jstr(e, "id", "")) &&
				    jint(cj, "ip_version", 0) == jint(e, "ip_version", -1))
					c = cj;
			}
			if (k)
				g_string_append(o, "<br>");
			if (c)
				case_link(x, c);
			else
				hf(o, "%s [IPv%lld]", jstr(e, "id", ""), (long long)jint(e, "ip_version", 0));
			g_string_append(o, " ");
			badge(o, jstr(e, "case_verdict", ""));
			if (strcmp(jstr(e, "role", "tested"), "tested")) {
				g_string_append(o, " <span class=\"muted\">");
				h(o, jstr(e, "role", ""));
				g_string_append(o, "</span>");
			}
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table></section>\n");
}

/* ---- 4. Case detail ---- */

static void steps_table(struct ctx *x, JsonObject *c)
{
	GString *o = x->o;
	JsonArray *steps = jarr(c, "steps");
	gint64 failed = jnull_or_absent(c, "failed_step") ? 0 : jint(c, "failed_step", 0);
	g_string_append(o, "<h4>Steps</h4><table class=\"steps\"><tr><th>#</th><th>Line</th><th>Statement</th><th>Status</th>"
			   "<th>What happened</th><th>Frames</th><th>Time</th></tr>\n");
	for (guint i = 0; steps && i < json_array_get_length(steps); i++) {
		JsonObject *s = json_array_get_object_element(steps, i);
		gint64 idx = jint(s, "index", 0);
		g_string_append_printf(o, "<tr%s><td>%lld</td><td>%lld</td><td><code>", idx == failed ? " class=\"hl\"" : "",
				       (long long)idx, (long long)jint(s, "line", 0));
		h(o, jstr(s, "text", ""));
		g_string_append(o, "</code></td><td>");
		const char *st = jstr(s, "status", "");
		badge(o, !strcmp(st, "ok") ? "pass" : st);
		g_string_append(o, "</td><td>");
		if (jstr(s, "detail", NULL))
			h(o, jstr(s, "detail", ""));
		JsonObject *sc = jobj(s, "clocks");
		if (sc)
			g_string_append_printf(o, "<div class=\"small muted\">timed from the %s clock to the %s clock</div>",
					       jstr(sc, "start", "?"), jstr(sc, "end", "?"));
		if (jstr(s, "expected", NULL)) {
			g_string_append(o, "<div>expected <span class=\"exp\">");
			h(o, jstr(s, "expected", ""));
			g_string_append(o, "</span></div><div>observed <span class=\"obs-t\">");
			h(o, jstr(s, "observed", ""));
			g_string_append(o, "</span></div>");
		}
		JsonArray *calls = jarr(s, "agent_calls");
		guint nc = calls ? json_array_get_length(calls) : 0;
		if (nc) {
			g_string_append_printf(o, "<details><summary class=\"small muted\">%u agent call(s)</summary>", nc);
			for (guint k = 0; k < nc; k++) {
				JsonObject *ac = json_array_get_object_element(calls, k);
				g_string_append(o, "<pre class=\"call\">&#8594; ");
				h(o, jstr(ac, "request", ""));
				g_string_append(o, "\n&#8592; ");
				h(o, jstr(ac, "reply", "(no reply)"));
				g_string_append(o, "</pre>");
			}
			g_string_append(o, "</details>");
		}
		g_string_append(o, "</td><td class=\"frames\">");
		frame_links(x, jarr(s, "frames"));
		char d[64];
		duration(d, sizeof d, jint(s, "duration_ns", 0));
		g_string_append_printf(o, "</td><td class=\"small\">%s</td></tr>\n", d);
	}
	g_string_append(o, "</table>\n");
}

static void packets_table(struct ctx *x, JsonObject *c)
{
	GString *o = x->o;
	JsonArray *pk = jarr(c, "packets");
	guint n = pk ? json_array_get_length(pk) : 0;
	if (!n) {
		g_string_append(o, "<h4>Packets</h4><p class=\"muted\">No packet was sent or received during this case.</p>\n");
		return;
	}
	gint64 start = jint(c, "started_ns", 0), lo = 0, hi = 0;
	for (guint i = 0; i < n; i++) {
		gint64 f = jint(json_array_get_object_element(pk, i), "frame", 0);
		if (f > 0 && (!lo || f < lo))
			lo = f;
		if (f > hi)
			hi = f;
	}
	g_string_append(o, "<h4>Packets</h4><p class=\"small\">Frames ");
	hf(o, "%lld\xE2\x80\x93%lld of %s; in Wireshark: ", (long long)lo, (long long)hi, x->capture);
	g_string_append(o, "<code>");
	hf(o, "wireshark -r %s -Y 'frame.number >= %lld && frame.number <= %lld'", x->capture, (long long)lo, (long long)hi);
	g_string_append(o, "</code>. Each frame carries a comment naming the case and step (<code>frame.comment</code>).</p>\n");
	g_string_append(o, "<table class=\"packets\"><tr><th>Frame</th><th>Time</th><th>Direction</th><th>Step</th><th>QP</th>"
			   "<th>Packet</th><th>Note</th></tr>\n");
	/* A long case lists its start, its end and every frame a link of the
	 * report points to; the capture holds the rest. */
	guint skipped = 0;
	gint64 skip_first = 0, skip_last = 0;
	for (guint i = 0; i <= n; i++) {
		JsonObject *p = i < n ? json_array_get_object_element(pk, i) : NULL;
		gint64 f = !p || jnull_or_absent(p, "frame") ? 0 : jint(p, "frame", 0);
		bool show = p && (n <= PKT_TABLE_ALL || i < PKT_TABLE_HEAD || i + PKT_TABLE_TAIL >= n ||
				  (f > 0 && x->linked && g_hash_table_contains(x->linked, GINT_TO_POINTER((gint)f))));
		if (p && !show) {
			if (!skipped++)
				skip_first = f;
			skip_last = f;
			continue;
		}
		if (skipped) {
			g_string_append_printf(o, "<tr class=\"elided\" data-first=\"%lld\" data-last=\"%lld\"><td colspan=\"7\" "
						  "class=\"muted\">\xE2\x8B\xAE %u packets not listed here (frames %lld\xE2\x80\x93%lld): "
						  "they are in the capture</td></tr>\n",
					       (long long)skip_first, (long long)skip_last, skipped, (long long)skip_first,
					       (long long)skip_last);
			skipped = 0;
		}
		if (!p)
			break;
		if (f > 0) {
			g_string_append_printf(o, "<tr id=\"f%lld\"><td class=\"mono\" title=\"", (long long)f);
			hf(o, "wireshark -r %s -g %lld", x->capture, (long long)f);
			g_string_append_printf(o, "\">%lld</td>", (long long)f);
		} else
			g_string_append(o, "<tr><td class=\"muted\">(not written)</td>");
		g_string_append_printf(o, "<td class=\"small\">%+.3f ms</td><td>%s</td><td>%lld</td><td>",
				       (double)(jint(p, "ts_ns", 0) - start) / 1e6,
				       !strcmp(jstr(p, "direction", ""), "tx") ? "tester &#8594; DUT" : "DUT &#8594; tester",
				       (long long)jint(p, "step", 0));
		h(o, jstr(p, "qp", ""));
		g_string_append(o, "</td><td class=\"mono\">");
		h(o, jstr(p, "summary", ""));
		g_string_append(o, "</td><td class=\"small\">");
		h(o, jstr(p, "note", ""));
		if (jstr(p, "annotation", NULL)) {
			if (jstr(p, "note", NULL))
				g_string_append(o, "<br>");
			h(o, jstr(p, "annotation", ""));
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
}

static void case_article(struct ctx *x, JsonObject *c, guint i)
{
	GString *o = x->o;
	x->linked = g_hash_table_new(g_direct_hash, g_direct_equal);
	const char *v = jstr(c, "verdict", "");
	bool open = strcmp(v, "pass") && strcmp(v, "not_applicable");
	g_string_append_printf(o, "<article class=\"case\" id=\"case-%u\" data-verdict=\"", i);
	h(o, v);
	g_string_append_printf(o, "\"><details%s><summary>", open ? " open" : "");
	badge(o, v);
	g_string_append(o, " <b>");
	h(o, jstr(c, "id", ""));
	g_string_append_printf(o, "</b> IPv%lld \xE2\x80\x94 ", (long long)jint(c, "ip_version", 0));
	h(o, jstr(c, "title", ""));
	g_string_append(o, "</summary><div class=\"cbody\">\n<table class=\"kv\">");
	kv(o, "case file", jstr(c, "file", ""));
	g_string_append(o, "<tr><th>rules tested</th><td>");
	rule_links(o, jarr(c, "rules"));
	g_string_append(o, "</td></tr>");
	JsonArray *fr = jarr(c, "failed_rules");
	if (fr && json_array_get_length(fr)) {
		g_string_append(o, "<tr><th>rules shown broken</th><td>");
		rule_links(o, fr);
		g_string_append(o, "</td></tr>");
	}
	GString *req = g_string_new(NULL);
	scalar_text(json_object_get_member(c, "requires") ? json_object_get_member(c, "requires") : NULL, req);
	kv(o, "requires", req->len ? req->str : "nothing");
	g_string_free(req, TRUE);
	char d[64];
	duration(d, sizeof d, jint(c, "duration_ns", 0));
	kv(o, "duration", d);
	JsonObject *ck = jobj(c, "clocks");
	if (ck) {
		GString *t = g_string_new(NULL);
		g_string_append_printf(t, "received frames: %s, sent frames: %s (", jstr(ck, "rx", "?"), jstr(ck, "tx", "?"));
		const char *dir[] = { "rx_frames", "tx_frames" };
		for (int k = 0; k < 2; k++) {
			JsonObject *n = jobj(ck, dir[k]);
			GList *names = n ? json_object_get_members(n) : NULL;
			g_string_append(t, k ? "; sent " : "this case: received ");
			for (GList *l = names; l; l = l->next)
				g_string_append_printf(t, "%s%lld by %s", l == names ? "" : ", ", (long long)jint(n, l->data, 0),
						       (const char *)l->data);
			if (!names)
				g_string_append(t, "none");
			g_list_free(names);
		}
		g_string_append(t, "); each step's interval names its clocks");
		kv(o, "clocks", t->str);
		g_string_free(t, TRUE);
	}
	g_string_append(o, "</table>\n");
	if (*jstr(c, "reason", "")) {
		g_string_append(o, "<p class=\"reason\"><b>");
		h(o, verdict_text(v));
		g_string_append(o, ":</b> ");
		h(o, jstr(c, "reason", ""));
		g_string_append(o, "</p>\n");
	}
	JsonArray *ev = jarr(c, "evidence");
	if (ev && json_array_get_length(ev)) {
		g_string_append(o, "<h4>Evidence</h4><table class=\"evidence\"><tr><th>Rules</th><th>Step</th><th>Statement</th>"
				   "<th>Expected</th><th>Observed</th><th>Frames</th></tr>\n");
		for (guint k = 0; k < json_array_get_length(ev); k++) {
			JsonObject *e = json_array_get_object_element(ev, k);
			g_string_append(o, "<tr class=\"r-fail\"><td>");
			rule_links(o, jarr(e, "rules"));
			g_string_append_printf(o, "</td><td>%lld (line %lld)</td><td><code>", (long long)jint(e, "step", 0),
					       (long long)jint(e, "line", 0));
			h(o, jstr(e, "statement", ""));
			g_string_append(o, "</code></td><td class=\"exp\">");
			h(o, jstr(e, "expected", ""));
			g_string_append(o, "</td><td class=\"obs-t\">");
			h(o, jstr(e, "observed", ""));
			g_string_append(o, "</td><td class=\"frames\">");
			frame_links(x, jarr(e, "frames"));
			g_string_append(o, "</td></tr>\n");
		}
		g_string_append(o, "</table>\n");
	}
	JsonArray *fd = jarr(c, "findings");
	if (fd && json_array_get_length(fd)) {
		g_string_append(o, "<h4>Findings</h4><table class=\"findings\"><tr><th>Severity</th><th>Rule</th><th>Message</th>"
				   "<th>Source</th><th>Frame</th></tr>\n");
		for (guint k = 0; k < json_array_get_length(fd); k++) {
			JsonObject *f = json_array_get_object_element(fd, k);
			g_string_append(o, "<tr><td>");
			h(o, jstr(f, "severity", ""));
			g_string_append(o, "</td><td>");
			rule_link(o, jstr(f, "rule", ""));
			g_string_append(o, "</td><td>");
			h(o, jstr(f, "message", ""));
			g_string_append(o, "</td><td>");
			h(o, jstr(f, "source", ""));
			g_string_append(o, "</td><td>");
			if (!jnull_or_absent(f, "frame"))
				frame_link(x, jint(f, "frame", 0));
			g_string_append(o, "</td></tr>\n");
		}
		g_string_append(o, "</table>\n");
	}
	report_counters_html(o, c);
	g_string_append(o, "<h4>Ladder diagram</h4><div class=\"ladderbox\">");
	report_ladder_svg(o, c, x->tester_name, x->dut_short, x->linked);
	g_string_append(o, "</div>\n");
	steps_table(x, c);
	packets_table(x, c);
	JsonArray *tm = jarr(c, "timings");
	if (tm && json_array_get_length(tm)) {
		g_string_append(o, "<h4>Timings</h4><table class=\"timings\"><tr><th>QP</th><th>PSN</th><th>Opcode</th>"
				   "<th>What</th><th>Delta</th><th>Clocks</th></tr>\n");
		for (guint k = 0; k < json_array_get_length(tm); k++) {
			JsonObject *t = json_array_get_object_element(tm, k);
			char dd[64];
			duration(dd, sizeof dd, jint(t, "delta_ns", 0));
			g_string_append(o, "<tr><td>");
			h(o, jstr(t, "qp", ""));
			g_string_append_printf(o, "</td><td>%lld</td><td>", (long long)jint(t, "psn", 0));
			h(o, jstr(t, "opcode", ""));
			g_string_append(o, "</td><td>");
			h(o, jstr(t, "what", ""));
			g_string_append_printf(o, "</td><td>%s</td><td>", dd);
			h(o, jstr(t, "clocks", ""));
			g_string_append(o, "</td></tr>\n");
		}
		g_string_append(o, "</table>\n");
	}
	g_string_append(o, "</div></details></article>\n");
	g_hash_table_destroy(x->linked);
	x->linked = NULL;
}

static void cases_section(struct ctx *x)
{
	GString *o = x->o;
	g_string_append(o, "<section id=\"cases\"><h2>4. Case detail</h2>\n");
	guint n = json_array_get_length(x->run->cases);
	if (!n) {
		g_string_append(o, "<p>No case ran.</p></section>\n");
		return;
	}
	g_string_append(o, "<table id=\"case-table\"><tr><th>Case</th><th>IP</th><th>Verdict</th><th>Rules</th>"
			   "<th>Duration</th><th>Reason</th></tr>\n");
	for (guint i = 0; i < n; i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		char d[64];
		duration(d, sizeof d, jint(c, "duration_ns", 0));
		g_string_append_printf(o, "<tr%s><td><a href=\"#case-%u\">", !strcmp(jstr(c, "verdict", ""), "fail") ? " class=\"r-fail\"" : "", i);
		h(o, jstr(c, "id", ""));
		g_string_append_printf(o, "</a></td><td>IPv%lld</td><td>", (long long)jint(c, "ip_version", 0));
		badge(o, jstr(c, "verdict", ""));
		g_string_append(o, "</td><td class=\"small\">");
		rule_links(o, jarr(c, "rules"));
		g_string_append_printf(o, "</td><td class=\"small\">%s</td><td class=\"small\">", d);
		h(o, jstr(c, "reason", ""));
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
	for (guint i = 0; i < n; i++)
		case_article(x, json_array_get_object_element(x->run->cases, i), i);
	g_string_append(o, "</section>\n");
}

static void about_section(struct ctx *x)
{
	GString *o = x->o;
	JsonObject *tool = jobj(x->run->root, "tool");
	g_string_append(o, "<section id=\"about\"><h2>5. About this report</h2><p>");
	hf(o, "Built by %s %s from results.json (schema version %lld), which holds everything shown here and more "
	      "(every agent exchange, engine counters, symbols). ",
	   jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""), (long long)jint(x->run->root, "schema_version", 0));
	g_string_append(o, "<code>roce-tester report DIR</code> rebuilds this file and junit.xml; "
			   "<code>roce-tester report --compare OLD NEW</code> compares two runs.</p><p>The annotated capture <a href=\"");
	h(o, x->capture);
	g_string_append(o, "\">");
	h(o, x->capture);
	g_string_append(o, "</a> holds every frame sent and received, each with a comment naming its case and step and what "
			   "the expectations concluded. Frame numbers in this report are that file's: <code>");
	hf(o, "wireshark -r %s -g FRAME", x->capture);
	g_string_append(o, "</code> opens it at a frame, and the display filter <code>frame.comment contains \"CASE-ID\"</code> "
			   "shows one case. With the rocev2 plugin installed every packet is also decoded and checked, ICRC "
			   "included.</p><p class=\"small muted\">Verdicts: a case <b>passes</b> when every step held and no DUT "
			   "packet broke a rule; it <b>fails</b> when an expectation did not hold or a DUT packet broke a rule "
			   "(with the rules named and the frames cited); it is <b>not applicable</b> when the DUT lacks what it "
			   "requires; it ends in <b>error</b> on a set-up problem.</p></section>\n");
}

int report_write_html(const struct report_run *run, const char *path, char *err, size_t errlen)
{
	struct ctx x = { .run = run, .o = g_string_sized_new(1 << 16) };
	JsonObject *r = jobj(run->root, "run");
	JsonObject *setup = jobj(run->root, "setup");
	x.capture = jstr(r, "capture", "capture.pcapng");
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		const char *v = jstr(json_array_get_object_element(run->cases, i), "verdict", "");
		for (int k = 0; k < 5; k++)
			x.n_case[k] += !strcmp(v, case_verdicts[k]);
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
	hf(o, "%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
	g_string_append(o, "\"><title>RoCEv2 conformance report: ");
	h(o, x.dut_name);
	g_string_append(o, "</title>\n<style>\n");
	g_string_append(o, css);
	g_string_append(o, "</style>\n<script>");
	g_string_append(o, print_js);
	g_string_append(o, "</script></head>\n<body>\n");
	header(&x);
	g_string_append(o, "<main>\n");
	setup_section(&x);
	issues_section(&x);
	rules_section(&x);
	cases_section(&x);
	about_section(&x);
	g_string_append(o, "</main><footer>");
	hf(o, "%s %s \xC2\xB7 %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""), jstr(r, "started", ""));
	g_string_append(o, "</footer>\n</body></html>\n");
	int rc = write_file_atomic(path, o->str, o->len, err, errlen);
	g_string_free(o, TRUE);
	g_free(x.dut_name);
	return rc;
}
