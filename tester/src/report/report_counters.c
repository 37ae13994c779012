/* The DUT's counter deltas of a case in the reports (see report.h). */
#include "report.h"

#include <string.h>

/* One delta: "+3 rx_frames (packets received)". */
static void delta_text(GString *t, JsonObject *d)
{
	g_string_append_printf(t, "%+lld %s", (long long)jint(d, "delta", 0), jstr(d, "name", "?"));
	if (jstr(d, "meaning_text", NULL))
		g_string_append_printf(t, " (%s%s)", jstr(d, "meaning_text", ""),
				       jbool(d, "checked", true) ? "" : "; name from documentation, unchecked");
}

void report_counters_text(GString *t, JsonObject *c)
{
	JsonObject *k = jobj(c, "counters");
	if (!k)
		return;
	if (jstr(k, "note", NULL))
		g_string_append_printf(t, "\ncounters: %s\n", jstr(k, "note", ""));
	JsonArray *ports = jarr(k, "ports");
	for (guint p = 0; ports && p < json_array_get_length(ports); p++) {
		JsonObject *po = json_array_get_object_element(ports, p);
		JsonArray *ds = jarr(po, "deltas");
		guint n = ds ? json_array_get_length(ds) : 0;
		g_string_append_printf(t, "\ncounters of %s port %lld (%s): %s\n", jstr(k, "device", "the DUT"),
				       (long long)jint(po, "port", 0), jstr(k, "driver", "no table driver"),
				       n ? "" : "none moved");
		for (guint i = 0; i < n; i++) {
			g_string_append(t, "  ");
			delta_text(t, json_array_get_object_element(ds, i));
			g_string_append_c(t, '\n');
		}
	}
}

void report_counters_properties(GString *x, JsonObject *c, const char *label,
				void (*property)(GString *x, const char *name, const char *value))
{
	JsonArray *ports = jarr(jobj(c, "counters"), "ports");
	for (guint p = 0; ports && p < json_array_get_length(ports); p++) {
		JsonObject *po = json_array_get_object_element(ports, p);
		JsonArray *ds = jarr(po, "deltas");
		for (guint i = 0; ds && i < json_array_get_length(ds); i++) {
			JsonObject *d = json_array_get_object_element(ds, i);
			gchar *name = g_strdup_printf("counters.%s.port%lld.%s", label, (long long)jint(po, "port", 0),
						      jstr(d, "name", "?"));
			GString *v = g_string_new(NULL);
			delta_text(v, d);
			property(x, name, v->str);
			g_string_free(v, TRUE);
			g_free(name);
		}
	}
}

void report_counters_html(GString *o, JsonObject *c)
{
	JsonObject *k = jobj(c, "counters");
	if (!k)
		return;
	g_string_append(o, "<h4>DUT counters</h4>");
	if (jstr(k, "note", NULL)) {
		g_string_append(o, "<p class=\"reason\">");
		xml_escape(o, jstr(k, "note", ""));
		g_string_append(o, "</p>");
	}
	JsonArray *ports = jarr(k, "ports");
	guint np = ports ? json_array_get_length(ports) : 0;
	if (!np) {
		g_string_append(o, "\n");
		return;
	}
	g_string_append(o, "<table class=\"counters\"><tr><th>Port</th><th>Counter</th><th>Delta</th><th>Meaning</th></tr>\n");
	unsigned rows = 0;
	for (guint p = 0; p < np; p++) {
		JsonObject *po = json_array_get_object_element(ports, p);
		JsonArray *ds = jarr(po, "deltas");
		for (guint i = 0; ds && i < json_array_get_length(ds); i++, rows++) {
			JsonObject *d = json_array_get_object_element(ds, i);
			g_string_append_printf(o, "<tr><td>%lld</td><td><code>", (long long)jint(po, "port", 0));
			xml_escape(o, jstr(d, "name", ""));
			g_string_append_printf(o, "</code></td><td>%+lld</td><td>", (long long)jint(d, "delta", 0));
			if (jstr(d, "meaning_text", NULL)) {
				xml_escape(o, jstr(d, "meaning_text", ""));
				if (!jbool(d, "checked", true))
					g_string_append(o, " <i>(name from documentation, unchecked)</i>");
			}
			g_string_append(o, "</td></tr>\n");
		}
	}
	if (!rows)
		g_string_append(o, "<tr><td colspan=\"4\">no counter moved</td></tr>\n");
	g_string_append(o, "</table>\n");
	JsonArray *ks = jarr(k, "cross_checks");
	guint nk = ks ? json_array_get_length(ks) : 0;
	if (!nk)
		return;
	g_string_append(o, "<table class=\"counters\"><tr><th>Meaning</th><th>Counters</th><th>Delta</th>"
			   "<th>The wire</th><th>Agrees</th></tr>\n");
	for (guint i = 0; i < nk; i++) {
		JsonObject *c1 = json_array_get_object_element(ks, i);
		bool agrees = jbool(c1, "agrees", true);
		g_string_append_printf(o, "<tr%s><td>", agrees ? "" : " class=\"r-info\"");
		xml_escape(o, jstr(c1, "meaning", ""));
		g_string_append(o, "</td><td><code>");
		xml_escape(o, jstr(c1, "counters", ""));
		g_string_append_printf(o, "</code></td><td>%+lld</td><td>%s ", (long long)jint(c1, "delta", 0),
				       !strcmp(jstr(c1, "expected", ""), "at_least") ? "at least" : "at most");
		xml_escape(o, jstr(c1, "evidence", ""));
		g_string_append_printf(o, "</td><td>%s</td></tr>\n", agrees ? "yes" : "<b>no</b>");
	}
	g_string_append(o, "</table>\n");
}
