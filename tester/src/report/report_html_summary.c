/*
 * report.html's summary: the DUT and the set-up, the issues observed
 * (each with its evidence and frames), and a verdict per rule.
 */
#include "report_html.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			html_kv(o, key, t->str);
			g_free(key);
		} else if (html_scalar_text(n, t)) {
			gchar *key = g_strconcat(prefix, (const char *)m->data, NULL);
			html_kv(o, key, t->str);
			g_free(key);
		}
		g_string_free(t, TRUE);
	}
	g_list_free(members);
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

/* ---- 1. DUT and set-up ---- */

void html_setup_section(struct html_ctx *x)
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
		html_text(o, fault);
		g_string_append(o, "</code>, which breaks one rule on purpose: these results describe that fault, not a "
				   "product.</div>\n");
	}
	if (!jbool(run, "complete", false)) {
		g_string_append(o, "<div class=\"warn\" id=\"incomplete-warning\"><b>Incomplete run.</b> ");
		html_text(o, jbool(run, "interrupted", false)
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
		html_kv(o, "device", "not queried (no agent session succeeded)");
	kv_object(o, jobj(dut, "port"), "port.");
	g_string_append(o, "</table>\n<h3>GIDs and addresses</h3><table id=\"gid-table\"><tr><th>Index</th><th>GID</th><th>Type</th></tr>\n");
	JsonArray *gids = jarr(dut, "gids");
	for (guint i = 0; gids && i < json_array_get_length(gids); i++) {
		JsonObject *g = json_array_get_object_element(gids, i);
		g_string_append_printf(o, "<tr><td>%lld</td><td class=\"mono\">", (long long)jint(g, "index", 0));
		html_text(o, jstr(g, "gid", ""));
		g_string_append(o, "</td><td>");
		html_text(o, jstr(g, "type", ""));
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
		html_kv(o, key, val);
		g_free(val);
	}
	g_string_append(o, "</table></div>\n<div><h3>Agent</h3><table class=\"kv\" id=\"agent-table\">\n");
	html_kv(o, "address", jstr(agent, "address", ""));
	html_kv(o, "agent", jstr(hello, "agent", ""));
	char num[64];
	snprintf(num, sizeof num, "%lld", (long long)jint(hello, "version", 0));
	html_kv(o, "protocol version", hello ? num : NULL);
	html_kv(o, "backend", jstr(hello, "backend", ""));
	html_kv(o, "device", jstr(hello, "device", ""));
	html_kv(o, "DUT host", jstr(hello, "host", NULL));
	html_kv(o, "fault profile", fault && *fault ? fault : "none");
	g_string_append(o, "</table>\n<h3>Tester</h3><table class=\"kv\" id=\"tester-table\">\n");
	gchar *ver = g_strdup_printf("%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
	html_kv(o, "tool", ver);
	g_free(ver);
	html_kv(o, "interface", jstr(iface, "name", ""));
	html_kv(o, "MAC", jstr(iface, "mac", ""));
	html_kv(o, "IPv4", jstr(iface, "ipv4", NULL));
	html_kv(o, "IPv6", jstr(iface, "ipv6", NULL));
	if (jnull_or_absent(iface, "vlan"))
		html_kv(o, "VLAN", "none (untagged)");
	else {
		snprintf(num, sizeof num, "%lld", (long long)jint(iface, "vlan", 0));
		html_kv(o, "VLAN", num);
	}
	html_kv(o, "timestamps", jstr(iface, "timestamps", ""));
	html_kv(o, "ICMP guard", jstr(iface, "icmp_guard", ""));
	/* Absent from results written before these members existed. */
	JsonObject *io_path = jobj(iface, "io_path"), *bypass = jobj(iface, "stack_bypass");
	if (io_path)
		html_kv(o, "I/O path", jstr(io_path, "note", ""));
	if (bypass)
		html_kv(o, "IP stack bypass", jstr(bypass, "note", ""));
	g_string_append(o, "</table>\n<h3>Run</h3><table class=\"kv\" id=\"run-table\">\n");
	html_kv(o, "started", jstr(run, "started", ""));
	html_kv(o, "finished", jstr(run, "finished", NULL));
	char d[64];
	html_duration(d, sizeof d, jint(run, "duration_ns", 0));
	html_kv(o, "duration", d);
	html_kv(o, "status", jbool(run, "interrupted", false) ? "interrupted" : jbool(run, "complete", false) ? "complete" : "not finished");
	GString *cmd = g_string_new(NULL);
	shell_join(cmd, jarr(run, "command"));
	g_string_append(o, "<tr><th>command</th><td><code>");
	html_text(o, cmd->str);
	g_string_append(o, "</code></td></tr>\n");
	g_string_free(cmd, TRUE);
	g_string_append(o, "<tr><th>capture</th><td><a href=\"");
	html_text(o, x->capture);
	g_string_append(o, "\">");
	html_text(o, x->capture);
	g_string_append(o, "</a>");
	html_textf(o, " (%lld frames sent, %lld received, %lld send errors)", (long long)jint(iface, "frames_sent", 0),
	   (long long)jint(iface, "frames_received", 0), (long long)jint(iface, "send_errors", 0));
	g_string_append(o, "</td></tr>\n</table></div></div>\n");

	/* The verdict counts. */
	g_string_append(o, "<h3>Summary</h3><div class=\"cards\" id=\"case-counts\">");
	static const int card_order[5] = { 0, 4, 1, 2, 3 };
	for (int k = 0; k < 5; k++) {
		int v = card_order[k];
		g_string_append_printf(o, "<div class=\"card\"><b class=\"v-%s\" style=\"background:none\">%u</b><span>%s case run(s)</span></div>",
				       html_case_verdicts[v], x->n_case[v], html_verdict_text(html_case_verdicts[v]));
	}
	g_string_append(o, "</div><div class=\"cards\" id=\"rule-counts\">");
	static const char *const rv[] = { "pass", "fail", "informative", "error", "not_applicable", "not_tested", "not_testable" };
	for (size_t v = 0; v < G_N_ELEMENTS(rv); v++) {
		unsigned n = 0;
		for (guint i = 0; i < json_array_get_length(x->run->rules); i++)
			n += !strcmp(jstr(json_array_get_object_element(x->run->rules, i), "verdict", ""), rv[v]);
		g_string_append_printf(o, "<div class=\"card\"><b>%u</b><span>rule(s) %s</span></div>", n, html_verdict_text(rv[v]));
	}
	g_string_append(o, "</div></section>\n");
}

/* ---- 2. Issues observed ---- */

/* Warnings: not failures, but worth a look. Those a case provoked on
 * purpose are part of that case's evidence, not the DUT's issues. */
static bool is_warning(JsonObject *f)
{
	return !strcmp(jstr(f, "severity", ""), "warning") && !finding_provoked(f);
}

/* Informative findings: behaviour that differs between conforming
 * devices, reported by the cases and the counter checks. */
static bool is_informative(JsonObject *f)
{
	const char *source = jstr(f, "source", "");
	return !strcmp(source, "case") || !strcmp(source, "counter check");
}

/* The findings of every case that pass the filter, as one list under
 * head (written before the first); returns how many. */
static unsigned findings_list(struct html_ctx *x, bool (*wanted)(JsonObject *), bool frames, const char *head)
{
	GString *o = x->o;
	unsigned listed = 0;
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		JsonArray *fd = jarr(c, "findings");
		for (guint f = 0; fd && f < json_array_get_length(fd); f++) {
			JsonObject *fo = json_array_get_object_element(fd, f);
			if (!wanted(fo))
				continue;
			if (!listed++)
				g_string_append(o, head);
			g_string_append(o, "<li>");
			html_case_link(x, c);
			g_string_append(o, ": ");
			if (*jstr(fo, "rule", "")) {
				html_rule_link(o, jstr(fo, "rule", ""));
				g_string_append(o, ": ");
			}
			html_text(o, finding_text(fo));
			if (frames && !jnull_or_absent(fo, "frame")) {
				g_string_append(o, "; frame ");
				html_frame_link(x, jint(fo, "frame", 0));
			}
			g_string_append(o, "</li>\n");
		}
	}
	if (listed)
		g_string_append(o, "</ul></div>\n");
	return listed;
}

/* The warnings cases provoked on purpose: not issues, but said to be
 * there, with the cases that hold them. */
static void provoked_note(struct html_ctx *x)
{
	GString *o = x->o;
	unsigned cases = 0;
	for (guint i = 0; i < json_array_get_length(x->run->cases); i++) {
		JsonObject *c = json_array_get_object_element(x->run->cases, i);
		JsonArray *fd = jarr(c, "findings");
		unsigned n = 0;
		for (guint f = 0; fd && f < json_array_get_length(fd); f++) {
			JsonObject *fo = json_array_get_object_element(fd, f);
			n += !strcmp(jstr(fo, "severity", ""), "warning") && finding_provoked(fo);
		}
		if (!n)
			continue;
		if (!cases++)
			g_string_append(o, "<p class=\"small muted\" id=\"provoked-note\">Not issues of the DUT: warnings that "
					   "cases provoked on purpose (on the DUT's answer to a packet the case built, or "
					   "under a rule the case judges itself) are shown with those cases: ");
		else
			g_string_append(o, ", ");
		html_case_link(x, c);
		g_string_append_printf(o, " (%u)", n);
	}
	if (cases)
		g_string_append(o, ".</p>\n");
}

static void evidence_line(struct html_ctx *x, JsonObject *c, JsonObject *e)
{
	GString *o = x->o;
	g_string_append(o, "<li>");
	html_case_link(x, c);
	g_string_append_printf(o, ", step %lld (line %lld): <code>", (long long)jint(e, "step", 0), (long long)jint(e, "line", 0));
	html_text(o, jstr(e, "statement", ""));
	g_string_append(o, "</code><br>expected <span class=\"exp\">");
	html_text(o, jstr(e, "expected", ""));
	g_string_append(o, "</span>; observed <span class=\"obs-t\">");
	html_text(o, jstr(e, "observed", ""));
	g_string_append(o, "</span>");
	JsonArray *fr = jarr(e, "frames");
	if (fr && json_array_get_length(fr)) {
		g_string_append(o, "; frames ");
		html_frame_links(x, fr);
	}
	g_string_append(o, "</li>\n");
}

void html_issues_section(struct html_ctx *x)
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
		html_text(o, id);
		g_string_append_printf(o, "\"><h3>Issue %u: ", n);
		html_rule_link(o, id);
		if (rule) {
			g_string_append(o, " <span class=\"muted small\">");
			html_textf(o, "%s \xC2\xB7 %s", jstr(rule, "severity", ""), jstr(rule, "spec_ref", ""));
			g_string_append(o, "</span>");
		}
		g_string_append(o, "</h3><div>");
		html_text(o, rule ? jstr(rule, "title", "") : "(not in this file's catalogue)");
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
				html_case_link(x, c);
				g_string_append(o, ": ");
				html_textf(o, "%s (%s)", finding_text(fo), jstr(fo, "source", ""));
				if (!jnull_or_absent(fo, "frame")) {
					g_string_append(o, "; frame ");
					html_frame_link(x, jint(fo, "frame", 0));
				}
				g_string_append(o, "</li>\n");
				said = true;
			}
			if (!said) {
				g_string_append(o, "<li>");
				html_case_link(x, c);
				g_string_append(o, ": ");
				html_text(o, jstr(c, "reason", ""));
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
		html_case_link(x, c);
		g_string_append(o, ": ");
		html_text(o, jstr(c, "reason", ""));
		g_string_append(o, "</li>\n");
	}
	if (errors)
		g_string_append(o, "</ul></div>\n");

	/* Warnings: not failures, but worth a look. */
	unsigned warnings = findings_list(x, is_warning, true,
					  "<div class=\"issue obs\" id=\"issue-warnings\"><h3>Warnings</h3><ul>\n");
	/* Informative findings: behaviour that differs between conforming
	 * devices, worth knowing, never a failure. */
	unsigned infos = findings_list(x, is_informative, false,
				       "<div class=\"issue obs\" id=\"issue-informative\"><h3>Informative findings</h3>"
				       "<div>Behaviour that differs between conforming devices, reported by the cases; "
				       "not failures.</div><ul>\n");
	if (!n && !errors && !warnings && !infos)
		g_string_append(o, "<p id=\"no-issues\">No issues observed: no case failed or ended in error, and no packet "
				   "drew a warning of its own.</p>\n");
	provoked_note(x);
	g_string_append(o, "</section>\n");
}

/* ---- 3. Verdict per rule ---- */

void html_rules_section(struct html_ctx *x)
{
	GString *o = x->o;
	g_string_append(o, "<section id=\"rules\"><h2>3. Verdict per rule</h2>\n<p class=\"small muted\">"
			   "<b>pass</b>: a case testing the rule passed (or was informative) and none showed it broken; <b>fail</b>: a case showed it "
			   "broken; <b>informative</b>: observed only, or a rule of severity info; <b>not applicable</b>: its "
			   "cases needed what the DUT lacks (said under the title); <b>error</b>: its cases ended in error; "
			   "<b>not tested</b>: no case of this run tests it; <b>not testable</b>: no case can judge it.</p>\n");
	g_string_append(o, "<table id=\"rule-table\"><tr><th>Rule</th><th>Title</th><th>Severity</th><th>Spec</th>"
			   "<th>Verdict</th><th>Case runs</th></tr>\n");
	for (guint i = 0; i < json_array_get_length(x->run->rules); i++) {
		JsonObject *r = json_array_get_object_element(x->run->rules, i);
		const char *v = jstr(r, "verdict", "");
		if (x->print && !strcmp(v, "not_tested"))
			continue; /* listed under the table */
		g_string_append(o, "<tr id=\"rule-");
		html_text(o, jstr(r, "id", ""));
		g_string_append(o, "\" data-verdict=\"");
		html_text(o, v);
		g_string_append_printf(o, "\"%s><td class=\"mono\">", !strcmp(v, "fail") ? " class=\"r-fail\"" : "");
		html_text(o, jstr(r, "id", ""));
		g_string_append(o, "</td><td>");
		html_text(o, jstr(r, "title", ""));
		/* Why this DUT has the verdict it has, where the badge alone
		 * does not say: not applicable (what it lacks), error, not
		 * tested, not testable. */
		const char *why = jstr(r, "reason", NULL) ? jstr(r, "reason", NULL) : jstr(r, "not_testable_reason", NULL);
		if (why) {
			g_string_append(o, "<br><span class=\"small muted rule-reason\">");
			html_text(o, why);
			g_string_append(o, "</span>");
		}
		g_string_append(o, "</td><td>");
		html_text(o, jstr(r, "severity", ""));
		g_string_append(o, "</td><td class=\"small\">");
		html_text(o, jstr(r, "spec_ref", ""));
		g_string_append(o, "</td><td>");
		html_badge(o, v);
		g_string_append(o, "</td><td class=\"small\">");
		JsonArray *cs = jarr(r, "cases");
		if (x->print)
			html_print_rule_runs(x, cs);
		for (guint k = 0; !x->print && cs && k < json_array_get_length(cs); k++) {
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
				html_case_link(x, c);
			else
				html_textf(o, "%s [IPv%lld]", jstr(e, "id", ""), (long long)jint(e, "ip_version", 0));
			g_string_append(o, " ");
			html_badge(o, jstr(e, "case_verdict", ""));
			if (strcmp(jstr(e, "role", "tested"), "tested")) {
				g_string_append(o, " <span class=\"muted\">");
				html_text(o, jstr(e, "role", ""));
				g_string_append(o, "</span>");
			}
		}
		g_string_append(o, "</td></tr>\n");
	}
	g_string_append(o, "</table>\n");
	html_print_untested_rules(x);
	g_string_append(o, "</section>\n");
}
