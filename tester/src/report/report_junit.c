/*
 * junit.xml: one <testcase> per case record (a case at one IP version),
 * grouped into one <testsuite> per case directory. A failed case carries
 * <failure type="RULE-IDS"> with the evidence (expected, observed, frame
 * numbers in the capture); an error <error>; not applicable <skipped>.
 *
 * The layout is the one Jenkins' JUnit plugin and GitLab both read: the
 * element order and attributes of the Ant JUnit format (properties only
 * at suite level, no testcase 'file' attribute, timestamps without a zone)
 * so that it validates against the strict schemas CI tools publish
 * (tester/tests/junit.xsd is ours).
 */
#include "report.h"

#include <stdio.h>
#include <string.h>

static void attr(GString *x, const char *name, const char *value)
{
	g_string_append_printf(x, " %s=\"", name);
	xml_escape(x, value);
	g_string_append_c(x, '"');
}

static void attr_u(GString *x, const char *name, unsigned long long v)
{
	g_string_append_printf(x, " %s=\"%llu\"", name, v);
}

static void attr_secs(GString *x, const char *name, gint64 ns)
{
	if (ns < 0)
		ns = 0;
	g_string_append_printf(x, " %s=\"%lld.%03lld\"", name, (long long)(ns / 1000000000), (long long)(ns / 1000000 % 1000));
}

static void property(GString *x, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	g_string_append(x, "      <property");
	attr(x, "name", name);
	attr(x, "value", value);
	g_string_append(x, "/>\n");
}

/* "2026-03-01T10:00:00.123Z" -> "2026-03-01T10:00:00" (UTC, as the Ant
 * format wants it). */
static void ant_timestamp(const char *iso, char *out, size_t n)
{
	snprintf(out, n, "%.19s", iso ? iso : "");
	if (strlen(out) != 19)
		snprintf(out, n, "1970-01-01T00:00:00");
}

static void join_strings(GString *x, JsonArray *a, const char *sep)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonNode *n = json_array_get_element(a, i);
		if (i)
			g_string_append(x, sep);
		if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING)
			g_string_append(x, json_node_get_string(n));
		else if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64)
			g_string_append_printf(x, "%lld", (long long)json_node_get_int(n));
	}
}

/* The evidence of a failed or erred case, as plain text. */
static void case_evidence(GString *t, JsonObject *c, const char *capture)
{
	g_string_append_printf(t, "%s\n", jstr(c, "reason", ""));
	JsonArray *ev = jarr(c, "evidence");
	for (guint i = 0; ev && i < json_array_get_length(ev); i++) {
		JsonObject *e = json_array_get_object_element(ev, i);
		g_string_append_printf(t, "\nEvidence %u: rules ", i + 1);
		join_strings(t, jarr(e, "rules"), ", ");
		g_string_append_printf(t, "\n  step %lld (line %lld): %s\n  expected: %s\n  observed: %s\n",
				       (long long)jint(e, "step", 0), (long long)jint(e, "line", 0),
				       jstr(e, "statement", ""), jstr(e, "expected", ""), jstr(e, "observed", ""));
		JsonArray *fr = jarr(e, "frames");
		if (fr && json_array_get_length(fr)) {
			g_string_append_printf(t, "  frames in %s: ", capture);
			join_strings(t, fr, ", ");
			g_string_append_c(t, '\n');
		}
	}
	JsonArray *fd = jarr(c, "findings");
	bool head = false;
	for (guint i = 0; fd && i < json_array_get_length(fd); i++) {
		JsonObject *f = json_array_get_object_element(fd, i);
		const char *sev = jstr(f, "severity", "");
		if (strcmp(sev, "error") && strcmp(sev, "warning"))
			continue;
		if (!head)
			g_string_append(t, "\nFindings:\n");
		head = true;
		g_string_append_printf(t, "  %s %s: %s", sev, jstr(f, "rule", ""), finding_text(f));
		if (!jnull_or_absent(f, "frame") && jint(f, "frame", 0) > 0)
			g_string_append_printf(t, " (frame %lld)", (long long)jint(f, "frame", 0));
		if (finding_provoked(f))
			g_string_append_printf(t, " (provoked on purpose: %s)", jstr(f, "provoked", ""));
		g_string_append_c(t, '\n');
	}
}

/* Steps and packets, for <system-out>. */
static void case_log(GString *t, JsonObject *c, const char *capture)
{
	/* JUnit knows no informative verdict: a pass that says what it found. */
	if (!strcmp(jstr(c, "verdict", ""), "informative"))
		g_string_append_printf(t, "informative: %s\n", jstr(c, "reason", ""));
	g_string_append_printf(t, "%s\nfile: %s\nrules: ", jstr(c, "title", ""), jstr(c, "file", ""));
	join_strings(t, jarr(c, "rules"), ", ");
	g_string_append(t, "\n\nsteps:\n");
	JsonArray *steps = jarr(c, "steps");
	for (guint i = 0; steps && i < json_array_get_length(steps); i++) {
		JsonObject *s = json_array_get_object_element(steps, i);
		g_string_append_printf(t, "  %3lld %-14s line %-4lld %s\n", (long long)jint(s, "index", 0),
				       jstr(s, "status", ""), (long long)jint(s, "line", 0), jstr(s, "text", ""));
		if (jstr(s, "detail", NULL))
			g_string_append_printf(t, "                         %s\n", jstr(s, "detail", ""));
	}
	JsonArray *pk = jarr(c, "packets");
	guint n = pk ? json_array_get_length(pk) : 0;
	if (n) {
		g_string_append_printf(t, "\npackets (frames in %s):\n", capture);
		/* A log, not the capture: the first 200 packets say enough. */
		for (guint i = 0; i < n && i < 200; i++) {
			JsonObject *p = json_array_get_object_element(pk, i);
			g_string_append_printf(t, "  frame %-6lld %s %s\n", (long long)jint(p, "frame", 0),
					       !strcmp(jstr(p, "direction", ""), "tx") ? "tester -> DUT" : "DUT -> tester",
					       jstr(p, "summary", ""));
		}
		if (n > 200)
			g_string_append_printf(t, "  ... %u more packets in the capture\n", n - 200);
	}
	report_counters_text(t, c);
}

struct suite {
	gchar *name; /* the case files' directory: any length */
	GPtrArray *cases; /* JsonObject * */
	unsigned fail, error, skipped;
	gint64 time_ns;
};

int report_write_junit(const struct report_run *run, const char *path, char *err, size_t errlen)
{
	JsonObject *r = jobj(run->root, "run");
	JsonObject *setup = jobj(run->root, "setup");
	const char *capture = jstr(r, "capture", "capture.pcapng");
	char stamp[32];
	ant_timestamp(jstr(r, "started", NULL), stamp, sizeof stamp);

	/* Suites in order of first appearance. */
	GPtrArray *suites = g_ptr_array_new();
	unsigned total_fail = 0, total_error = 0, total_skipped = 0;
	gint64 total_ns = 0;
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		JsonObject *c = json_array_get_object_element(run->cases, i);
		gchar *g = case_group(c);
		struct suite *s = NULL;
		for (guint k = 0; k < suites->len && !s; k++)
			if (!strcmp(((struct suite *)suites->pdata[k])->name, g))
				s = suites->pdata[k];
		if (!s) {
			s = g_new0(struct suite, 1);
			s->name = g;
			s->cases = g_ptr_array_new();
			g_ptr_array_add(suites, s);
		} else {
			g_free(g);
		}
		g_ptr_array_add(s->cases, c);
		const char *v = jstr(c, "verdict", "");
		s->fail += !strcmp(v, "fail");
		s->error += !strcmp(v, "error");
		s->skipped += !strcmp(v, "not_applicable");
		s->time_ns += jint(c, "duration_ns", 0);
	}

	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	g_string_append(x, "<!-- roce-tester conformance results; the HTML report and results.json hold the full detail -->\n");
	for (guint k = 0; k < suites->len; k++) {
		struct suite *s = suites->pdata[k];
		total_fail += s->fail;
		total_error += s->error;
		total_skipped += s->skipped;
		total_ns += s->time_ns;
	}
	g_string_append(x, "<testsuites");
	attr(x, "name", "roce-tester");
	attr_u(x, "tests", json_array_get_length(run->cases));
	attr_u(x, "failures", total_fail);
	attr_u(x, "errors", total_error);
	attr_u(x, "skipped", total_skipped);
	attr_secs(x, "time", total_ns);
	g_string_append(x, ">\n");

	JsonObject *iface = jobj(setup, "interface");
	JsonObject *hello = jobj(jobj(setup, "agent"), "hello");
	JsonObject *dev = jobj(jobj(setup, "dut"), "device");
	JsonObject *tool = jobj(run->root, "tool");
	for (guint k = 0; k < suites->len; k++) {
		struct suite *s = suites->pdata[k];
		g_string_append(x, "  <testsuite");
		attr(x, "name", s->name);
		attr_u(x, "tests", s->cases->len);
		attr_u(x, "failures", s->fail);
		attr_u(x, "errors", s->error);
		attr_u(x, "skipped", s->skipped);
		attr_secs(x, "time", s->time_ns);
		attr(x, "timestamp", stamp);
		attr(x, "hostname", hello ? jstr(hello, "device", "dut") : "dut");
		attr_u(x, "id", k);
		attr(x, "package", "roce");
		g_string_append(x, ">\n    <properties>\n");
		gchar *ver = g_strdup_printf("%s %s", jstr(tool, "name", "roce-tester"), jstr(tool, "version", ""));
		property(x, "tool", ver);
		g_free(ver);
		property(x, "dut.device", jstr(dev, "name", NULL));
		property(x, "dut.firmware", jstr(dev, "fw_ver", NULL));
		property(x, "agent.address", jstr(jobj(setup, "agent"), "address", NULL));
		property(x, "agent.backend", jstr(hello, "backend", NULL));
		property(x, "dut.host", jstr(hello, "host", NULL));
		property(x, "agent.fault", jstr(hello, "fault", NULL));
		property(x, "tester.interface", jstr(iface, "name", NULL));
		property(x, "capture", capture);
		property(x, "run.complete", jbool(r, "complete", false) ? "true" : "false");
		/* JUnit has properties per suite only: each case's counter deltas
		 * are named by the case. */
		for (guint i = 0; i < s->cases->len; i++) {
			gchar *label = case_label(s->cases->pdata[i]);
			report_counters_properties(x, s->cases->pdata[i], label, property);
			g_free(label);
		}
		g_string_append(x, "    </properties>\n");
		for (guint i = 0; i < s->cases->len; i++) {
			JsonObject *c = s->cases->pdata[i];
			gchar *label = case_label(c), *cls = g_strconcat("roce.", s->name, NULL);
			g_string_append(x, "    <testcase");
			attr(x, "name", label);
			attr(x, "classname", cls);
			g_free(label);
			g_free(cls);
			attr_secs(x, "time", jint(c, "duration_ns", 0));
			g_string_append(x, ">\n");
			const char *v = jstr(c, "verdict", "");
			GString *t = g_string_new(NULL);
			if (!strcmp(v, "fail") || !strcmp(v, "error")) {
				bool fail = !strcmp(v, "fail");
				GString *rules = g_string_new(NULL);
				join_strings(rules, jarr(c, fail ? "failed_rules" : "rules"), " ");
				GString *msg = g_string_new(NULL);
				if (fail && rules->len)
					g_string_append_printf(msg, "%s: ", rules->str);
				g_string_append(msg, jstr(c, "reason", ""));
				case_evidence(t, c, capture);
				g_string_append_printf(x, "      <%s", fail ? "failure" : "error");
				attr(x, "message", msg->str);
				attr(x, "type", fail ? (rules->len ? rules->str : "fail") : "setup");
				g_string_append(x, ">");
				xml_escape(x, t->str);
				g_string_append_printf(x, "</%s>\n", fail ? "failure" : "error");
				g_string_free(rules, TRUE);
				g_string_free(msg, TRUE);
			} else if (!strcmp(v, "not_applicable")) {
				g_string_append(x, "      <skipped");
				attr(x, "message", jstr(c, "reason", "not applicable"));
				g_string_append(x, "/>\n");
			}
			g_string_truncate(t, 0);
			case_log(t, c, capture);
			g_string_append(x, "      <system-out>");
			xml_escape(x, t->str);
			g_string_append(x, "</system-out>\n    </testcase>\n");
			g_string_free(t, TRUE);
		}
		g_string_append(x, "  </testsuite>\n");
		g_ptr_array_free(s->cases, TRUE);
		g_free(s->name);
		g_free(s);
	}
	g_string_append(x, "</testsuites>\n");
	g_ptr_array_free(suites, TRUE);
	int rc = write_file_atomic(path, x->str, x->len, err, errlen);
	g_string_free(x, TRUE);
	return rc;
}
