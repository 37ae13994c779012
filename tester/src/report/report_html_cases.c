/*
 * report.html's case detail: per case its verdict, ladder diagram, steps,
 * evidence, counters and packet table.
 */
#include "report_html_charts.h"
#include "report_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PKT_TABLE_ALL 600
#define PKT_TABLE_HEAD 300
#define PKT_TABLE_TAIL 100
/* Printed: shorter (the capture holds every frame). */
#define PKT_PRINT_ALL 100
#define PKT_PRINT_HEAD 40
#define PKT_PRINT_TAIL 20

static void steps_table(struct html_ctx *x, JsonObject *c)
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
		html_text(o, jstr(s, "text", ""));
		g_string_append(o, "</code></td><td>");
		const char *st = jstr(s, "status", "");
		html_badge(o, !strcmp(st, "ok") ? "pass" : st);
		g_string_append(o, "</td><td>");
		if (jstr(s, "detail", NULL))
			html_text(o, jstr(s, "detail", ""));
		JsonObject *sc = jobj(s, "clocks");
		if (sc)
			g_string_append_printf(o, "<div class=\"small muted\">timed from the %s clock to the %s clock</div>",
					       jstr(sc, "start", "?"), jstr(sc, "end", "?"));
		if (jstr(s, "expected", NULL)) {
			g_string_append(o, "<div>expected <span class=\"exp\">");
			html_text(o, jstr(s, "expected", ""));
			g_string_append(o, "</span></div><div>observed <span class=\"obs-t\">");
			html_text(o, jstr(s, "observed", ""));
			g_string_append(o, "</span></div>");
		}
		JsonArray *calls = jarr(s, "agent_calls");
		guint nc = calls ? json_array_get_length(calls) : 0;
		if (nc) {
			/* Printed (no script to open them), they are evidence too. */
			g_string_append_printf(o, "<details%s><summary class=\"small muted\">%u agent call(s)</summary>",
					       x->print ? " open" : "", nc);
			for (guint k = 0; k < nc; k++) {
				JsonObject *ac = json_array_get_object_element(calls, k);
				g_string_append(o, "<pre class=\"call\">&#8594; ");
				html_text(o, jstr(ac, "request", ""));
				g_string_append(o, "\n&#8592; ");
				html_text(o, jstr(ac, "reply", "(no reply)"));
				g_string_append(o, "</pre>");
			}
			g_string_append(o, "</details>");
		}
		g_string_append(o, "</td><td class=\"frames\">");
		html_frame_links(x, jarr(s, "frames"));
		char d[64];
		html_duration(d, sizeof d, jint(s, "duration_ns", 0));
		g_string_append_printf(o, "</td><td class=\"small\">%s</td></tr>\n", d);
	}
	g_string_append(o, "</table>\n");
}

static void packets_table(struct html_ctx *x, JsonObject *c)
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
	html_textf(o, "%lld\xE2\x80\x93%lld of %s; in Wireshark: ", (long long)lo, (long long)hi, x->capture);
	g_string_append(o, "<code>");
	html_textf(o, "wireshark -r %s -Y 'frame.number >= %lld && frame.number <= %lld'", x->capture, (long long)lo, (long long)hi);
	g_string_append(o, "</code>. Each frame carries a comment naming the case and step (<code>frame.comment</code>).</p>\n");
	g_string_append(o, "<table class=\"packets\"><tr><th>Frame</th><th>Time</th><th>Direction</th><th>Step</th><th>QP</th>"
			   "<th>Packet</th><th>Note</th></tr>\n");
	/* A long case lists its start, its end and every frame a link of the
	 * report points to; the capture holds the rest. */
	guint all = x->print ? PKT_PRINT_ALL : PKT_TABLE_ALL, head = x->print ? PKT_PRINT_HEAD : PKT_TABLE_HEAD,
	      tail = x->print ? PKT_PRINT_TAIL : PKT_TABLE_TAIL;
	guint skipped = 0;
	gint64 skip_first = 0, skip_last = 0;
	for (guint i = 0; i <= n; i++) {
		JsonObject *p = i < n ? json_array_get_object_element(pk, i) : NULL;
		gint64 f = !p || jnull_or_absent(p, "frame") ? 0 : jint(p, "frame", 0);
		bool show = p && (n <= all || i < head || i + tail >= n ||
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
			html_textf(o, "wireshark -r %s -g %lld", x->capture, (long long)f);
			g_string_append_printf(o, "\">%lld</td>", (long long)f);
		} else
			g_string_append(o, "<tr><td class=\"muted\">(not written)</td>");
		g_string_append_printf(o, "<td class=\"small\">%+.3f ms</td><td>%s</td><td>%lld</td><td>",
				       (double)(jint(p, "ts_ns", 0) - start) / 1e6,
				       !strcmp(jstr(p, "direction", ""), "tx") ? "tester &#8594; DUT" : "DUT &#8594; tester",
				       (long long)jint(p, "step", 0));
		html_text(o, jstr(p, "qp", ""));
		g_string_append(o, "</td><td class=\"mono\">");
		html_text(o, jstr(p, "summary", ""));
		g_string_append(o, "</td><td class=\"small\">");
		html_text(o, jstr(p, "note", ""));
		if (jstr(p, "annotation", NULL)) {
			if (jstr(p, "note", NULL))
				g_string_append(o, "<br>");
			html_text(o, jstr(p, "annotation", ""));
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
}

static void timings_table(struct html_ctx *x, JsonObject *c)
{
	GString *o = x->o;
	JsonArray *tm = jarr(c, "timings");
	if (!tm || !json_array_get_length(tm))
		return;
	g_string_append(o, "<h4>Timings</h4><table class=\"timings\"><tr><th>QP</th><th>PSN</th><th>Opcode</th>"
			   "<th>What</th><th>Delta</th><th>Clocks</th></tr>\n");
	guint n = json_array_get_length(tm);
	for (guint k = 0; k < n; k++) {
		/* Printed, a long table keeps its start and end (results.json has every row). */
		if (x->print && n > PKT_PRINT_ALL && k == PKT_PRINT_HEAD) {
			g_string_append_printf(o, "<tr class=\"elided\"><td colspan=\"6\" class=\"muted\">\xE2\x8B\xAE %u timings not "
						  "printed: they are in results.json and the HTML report</td></tr>\n",
					       n - PKT_PRINT_HEAD - PKT_PRINT_TAIL);
			k = n - PKT_PRINT_TAIL;
		}
		JsonObject *t = json_array_get_object_element(tm, k);
		char dd[64];
		html_duration(dd, sizeof dd, jint(t, "delta_ns", 0));
		g_string_append(o, "<tr><td>");
		html_text(o, jstr(t, "qp", ""));
		g_string_append_printf(o, "</td><td>%lld</td><td>", (long long)jint(t, "psn", 0));
		html_text(o, jstr(t, "opcode", ""));
		g_string_append(o, "</td><td>");
		html_text(o, jstr(t, "what", ""));
		g_string_append_printf(o, "</td><td>%s</td><td>", dd);
		html_text(o, jstr(t, "clocks", ""));
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
}

static void case_article(struct html_ctx *x, JsonObject *c, guint i)
{
	GString *o = x->o;
	x->linked = g_hash_table_new(g_direct_hash, g_direct_equal);
	const char *v = jstr(c, "verdict", "");
	bool open = x->print || (strcmp(v, "pass") && strcmp(v, "not_applicable"));
	g_string_append_printf(o, "<article class=\"%s\" id=\"case-%u\" data-verdict=\"", html_case_class(x, c), i);
	html_text(o, v);
	g_string_append_printf(o, "\"><details%s><summary>", open ? " open" : "");
	html_badge(o, v);
	g_string_append(o, " <b>");
	html_text(o, jstr(c, "id", ""));
	g_string_append_printf(o, "</b> IPv%lld \xE2\x80\x94 ", (long long)jint(c, "ip_version", 0));
	html_text(o, jstr(c, "title", ""));
	g_string_append(o, "</summary><div class=\"cbody\">\n<table class=\"kv\">");
	html_kv(o, "case file", jstr(c, "file", ""));
	g_string_append(o, "<tr><th>rules tested</th><td>");
	html_rule_links(o, jarr(c, "rules"));
	g_string_append(o, "</td></tr>");
	JsonArray *fr = jarr(c, "failed_rules");
	if (fr && json_array_get_length(fr)) {
		g_string_append(o, "<tr><th>rules shown broken</th><td>");
		html_rule_links(o, fr);
		g_string_append(o, "</td></tr>");
	}
	GString *req = g_string_new(NULL);
	html_scalar_text(json_object_get_member(c, "requires") ? json_object_get_member(c, "requires") : NULL, req);
	html_kv(o, "requires", req->len ? req->str : "nothing");
	g_string_free(req, TRUE);
	char d[64];
	html_duration(d, sizeof d, jint(c, "duration_ns", 0));
	html_kv(o, "duration", d);
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
		html_kv(o, "clocks", t->str);
		g_string_free(t, TRUE);
	}
	g_string_append(o, "</table>\n");
	if (*jstr(c, "reason", "")) {
		g_string_append(o, "<p class=\"reason\"><b>");
		html_text(o, html_verdict_text(v));
		g_string_append(o, ":</b> ");
		html_text(o, jstr(c, "reason", ""));
		g_string_append(o, "</p>\n");
	}
	JsonArray *ev = jarr(c, "evidence");
	if (ev && json_array_get_length(ev)) {
		g_string_append(o, "<h4>Evidence</h4><table class=\"evidence\"><tr><th>Rules</th><th>Step</th><th>Statement</th>"
				   "<th>Expected</th><th>Observed</th><th>Frames</th></tr>\n");
		for (guint k = 0; k < json_array_get_length(ev); k++) {
			JsonObject *e = json_array_get_object_element(ev, k);
			g_string_append(o, "<tr class=\"r-fail\"><td>");
			html_rule_links(o, jarr(e, "rules"));
			g_string_append_printf(o, "</td><td>%lld (line %lld)</td><td><code>", (long long)jint(e, "step", 0),
					       (long long)jint(e, "line", 0));
			html_text(o, jstr(e, "statement", ""));
			g_string_append(o, "</code></td><td class=\"exp\">");
			html_text(o, jstr(e, "expected", ""));
			g_string_append(o, "</td><td class=\"obs-t\">");
			html_text(o, jstr(e, "observed", ""));
			g_string_append(o, "</td><td class=\"frames\">");
			html_frame_links(x, jarr(e, "frames"));
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
			html_text(o, jstr(f, "severity", ""));
			g_string_append(o, "</td><td>");
			html_rule_link(o, jstr(f, "rule", ""));
			g_string_append(o, "</td><td>");
			html_text(o, finding_text(f));
			if (finding_provoked(f)) {
				g_string_append(o, " <span class=\"muted small provoked\">(provoked on purpose: ");
				html_text(o, jstr(f, "provoked", ""));
				g_string_append(o, ")</span>");
			}
			g_string_append(o, "</td><td>");
			html_text(o, jstr(f, "source", ""));
			g_string_append(o, "</td><td>");
			if (!jnull_or_absent(f, "frame"))
				html_frame_link(x, jint(f, "frame", 0));
			g_string_append(o, "</td></tr>\n");
		}
		g_string_append(o, "</table>\n");
	}
	if (html_bulk_open(x, c)) {
		report_counters_html(o, c);
		html_bulk_close(x);
	}
	report_charts_case(o, c, x->run);
	if (html_bulk_open(x, c)) {
		g_string_append(o, "<h4>Ladder diagram</h4><div class=\"ladderbox\">");
		report_ladder_svg(o, c, x->tester_name, x->dut_short, x->linked);
		g_string_append(o, "</div>\n");
		steps_table(x, c);
		packets_table(x, c);
		timings_table(x, c);
		html_bulk_close(x);
	}
	g_string_append(o, "</div></details></article>\n");
	g_hash_table_destroy(x->linked);
	x->linked = NULL;
}

void html_cases_section(struct html_ctx *x)
{
	GString *o = x->o;
	g_string_append(o, "<section id=\"cases\"><h2>4. Case detail</h2>\n");
	guint n = json_array_get_length(x->run->cases);
	if (!n) {
		g_string_append(o, "<p>No case ran.</p></section>\n");
		return;
	}
	report_charts_timers(o, x->run);
	g_string_append(o, "<table id=\"case-table\"><tr><th>Case</th><th>IP</th><th>Verdict</th><th>Rules</th>"
			   "<th>Duration</th><th>Reason</th></tr>\n");
	for (guint i = 0; i < n; i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		char d[64];
		html_duration(d, sizeof d, jint(c, "duration_ns", 0));
		g_string_append_printf(o, "<tr%s><td><a href=\"#case-%u\">", !strcmp(jstr(c, "verdict", ""), "fail") ? " class=\"r-fail\"" : "", i);
		html_text(o, jstr(c, "id", ""));
		g_string_append_printf(o, "</a></td><td>IPv%lld</td><td>", (long long)jint(c, "ip_version", 0));
		html_badge(o, jstr(c, "verdict", ""));
		g_string_append(o, "</td><td class=\"small\">");
		html_rule_links(o, jarr(c, "rules"));
		g_string_append_printf(o, "</td><td class=\"small\">%s</td><td class=\"small\">", d);
		html_text(o, jstr(c, "reason", ""));
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
	html_print_cases_note(x);
	for (guint i = 0; i < n; i++)
		if (html_case_listed(x, json_array_get_object_element(x->run->cases, i)))
			case_article(x, json_array_get_object_element(x->run->cases, i), i);
	g_string_append(o, "</section>\n");
}
