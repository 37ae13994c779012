/*
 * The comparison of two runs as a page of charts (roce-tester report
 * --compare OLD NEW -o DIR writes DIR/compare.html): the verdict changes
 * per rule, each an arrow from the old verdict to the new one, and the
 * measured values that moved (the series of the case records matched by
 * case ID and IP version: measured rates, timers, load latencies), each
 * as its relative change with the old and the new value beside it.
 */
#include "report_html_charts.h"

#include <math.h>
#include <string.h>

#include "report_charts.h"

/* A value moved when it changed by at least this many percent. */
#define MOVED_PERCENT 10.0

/* Rule verdicts from worst to best: the x axis of the verdict chart. */
static const char *const rule_verdicts[] = { "fail", "error", "not_applicable", "not_tested", "not_testable",
					     "informative", "pass" };
static const char *const rule_verdict_words[] = { "fail", "error", "not applicable", "not tested", "not testable",
						  "informative", "pass" };
#define N_VERDICTS (sizeof rule_verdicts / sizeof rule_verdicts[0])

static int verdict_index(const char *v)
{
	for (unsigned i = 0; i < N_VERDICTS; i++)
		if (!strcmp(v, rule_verdicts[i]))
			return (int)i;
	return -1;
}

static JsonObject *find(JsonArray *a, const char *id, gint64 ipv)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonObject *o = json_array_get_object_element(a, i);
		if (!strcmp(jstr(o, "id", ""), id) && (ipv < 0 || jint(o, "ip_version", 0) == ipv))
			return o;
	}
	return NULL;
}

/* ---- Measured values of a case record ---- */

struct value {
	gchar *key;   /* what it is, the same in both runs */
	double v;     /* in unit */
	const char *unit;
};

static void add_value(GArray *a, gchar *key, double v, const char *unit)
{
	struct value x = { key, v, unit };
	g_array_append_val(a, x);
}

static void clear_value(gpointer p)
{
	g_free(((struct value *)p)->key);
}

static GArray *values_of(JsonObject *c)
{
	GArray *a = g_array_new(FALSE, TRUE, sizeof(struct value));
	g_array_set_clear_func(a, clear_value);
	JsonObject *se = jobj(c, "series");
	JsonArray *m = jarr(se, "measurements"), *t = jarr(se, "timers"), *l = jarr(se, "load");
	for (guint i = 0; m && i < json_array_get_length(m); i++) {
		JsonObject *x = json_array_get_object_element(m, i);
		if (jstr(x, "rate_symbol", NULL))
			add_value(a, g_strdup_printf("$%s (line %lld)", jstr(x, "rate_symbol", ""), (long long)jint(x, "line", 0)),
				  (double)jint(x, "rate", 0) * 8 / 1e6, "Mb/s");
	}
	for (guint i = 0; t && i < json_array_get_length(t); i++) {
		JsonObject *x = json_array_get_object_element(t, i);
		gchar *k = jstr(x, "symbol", NULL) ?
			g_strdup_printf("$%s (line %lld)", jstr(x, "symbol", ""), (long long)jint(x, "line", 0)) :
			g_strdup_printf("%s (line %lld)", jstr(x, "what", ""), (long long)jint(x, "line", 0));
		add_value(a, k, (double)jint(x, "value_ns", 0) / 1e6, "ms");
	}
	for (guint i = 0; l && i < json_array_get_length(l); i++) {
		JsonObject *x = json_array_get_object_element(l, i), *pc = jobj(x, "latency_percentiles");
		static const char *const ps[] = { "p50", "p99" };
		for (unsigned k = 0; k < 2; k++)
			if (!jnull_or_absent(pc, ps[k]))
				add_value(a, g_strdup_printf("load step %lld latency %s", (long long)jint(x, "step", 0), ps[k]),
					  (double)jint(pc, ps[k], 0) / 1e3, "\u00b5s");
	}
	return a;
}

/* A value for a label: whole numbers from 1000 up, else 4 digits. */
static void value_text(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1000)
		g_snprintf(buf, n, "%.0f", v);
	else
		g_snprintf(buf, n, "%.4g", v);
}

struct moved {
	gchar *label, *text;
	double percent;
};

/* ---- The page ---- */

static void run_line(GString *o, const char *what, const struct report_run *r)
{
	JsonObject *run = jobj(r->root, "run");
	JsonObject *hello = jobj(jobj(jobj(r->root, "setup"), "agent"), "hello");
	g_string_append_printf(o, "<tr><th>%s</th><td>", what);
	xml_escape(o, r->path);
	g_string_append(o, "</td><td>");
	xml_escape(o, jstr(run, "started", "?"));
	g_string_append_printf(o, "</td><td>%u case run(s)</td><td>DUT ", json_array_get_length(r->cases));
	xml_escape(o, jstr(hello, "device", "?"));
	if (jstr(hello, "fault", NULL)) {
		g_string_append(o, " (fault ");
		xml_escape(o, jstr(hello, "fault", ""));
		g_string_append(o, ")");
	}
	g_string_append(o, "</td></tr>\n");
}

static void rules_chart(GString *o, const struct report_run *old_run, const struct report_run *new_run)
{
	GPtrArray *ids = g_ptr_array_new();
	GArray *from = g_array_new(FALSE, FALSE, sizeof(int)), *to = g_array_new(FALSE, FALSE, sizeof(int));
	for (guint i = 0; i < json_array_get_length(new_run->rules); i++) {
		JsonObject *nr = json_array_get_object_element(new_run->rules, i);
		JsonObject *orr = find(old_run->rules, jstr(nr, "id", ""), -1);
		int a = verdict_index(orr ? jstr(orr, "verdict", "") : "not_tested"), b = verdict_index(jstr(nr, "verdict", ""));
		if (a < 0 || b < 0 || a == b)
			continue;
		g_ptr_array_add(ids, (gpointer)jstr(nr, "id", ""));
		g_array_append_val(from, a);
		g_array_append_val(to, b);
	}
	g_string_append(o, "<h2>Verdict changes per rule</h2>\n");
	if (!ids->len) {
		g_string_append(o, "<p>No rule changed its verdict.</p>\n");
	} else {
		gchar *cap = g_strdup_printf("%u rule(s) changed their verdict", ids->len);
		g_string_append(o, "<figure class=\"chart compare-rules\" style=\"margin:10px 0\"><figcaption>");
		xml_escape(o, cap);
		g_string_append(o, "</figcaption>\n");
		struct chart c;
		chart_begin(&c, o, 760, 70 + 22 * (int)ids->len + 46, 0, cap,
			    "Each rule whose verdict changed: an arrow from its verdict in the old run (grey) to the new one "
			    "(red when it moved towards fail, green towards pass).");
		g_free(cap);
		chart_left(&c, 200);
		chart_axes_grid(&c, rule_verdict_words, N_VERDICTS, "verdict (old run: grey marker; new run: arrow head)",
				(const char *const *)ids->pdata, ids->len);
		for (guint i = 0; i < ids->len; i++) {
			int a = g_array_index(from, int, i), b = g_array_index(to, int, i);
			enum chart_style st = b < a ? CHART_BAD : CHART_GOOD;
			char tip[160];
			g_snprintf(tip, sizeof tip, "%s: %s -> %s", (const char *)ids->pdata[i], rule_verdict_words[a],
				   rule_verdict_words[b]);
			chart_hseg(&c, st, a, b, i, b < a, "");
			chart_point(&c, CHART_GREY, a, i, tip);
			chart_point(&c, st, b, i, tip);
		}
		chart_legend(&c, CHART_BAD, true, "towards fail");
		chart_legend(&c, CHART_GOOD, false, "towards pass");
		chart_legend(&c, CHART_GREY, false, "old verdict");
		chart_end(&c);
		g_string_append(o, "</figure>\n<table><tr><th>Rule</th><th>Old</th><th>New</th></tr>\n");
		for (guint i = 0; i < ids->len; i++) {
			g_string_append(o, "<tr><td>");
			xml_escape(o, ids->pdata[i]);
			g_string_append_printf(o, "</td><td>%s</td><td>%s</td></tr>\n", rule_verdict_words[g_array_index(from, int, i)],
					       rule_verdict_words[g_array_index(to, int, i)]);
		}
		g_string_append(o, "</table>\n");
	}
	g_ptr_array_free(ids, TRUE);
	g_array_free(from, TRUE);
	g_array_free(to, TRUE);
}

static void values_chart(GString *o, const struct report_run *old_run, const struct report_run *new_run)
{
	GArray *moved = g_array_new(FALSE, TRUE, sizeof(struct moved));
	for (guint i = 0; i < json_array_get_length(new_run->cases); i++) {
		JsonObject *n = json_array_get_object_element(new_run->cases, i);
		JsonObject *c = find(old_run->cases, jstr(n, "id", ""), jint(n, "ip_version", 0));
		if (!c)
			continue;
		GArray *va = values_of(c), *vb = values_of(n);
		for (guint k = 0; k < vb->len; k++) {
			struct value *b = &g_array_index(vb, struct value, k);
			for (guint j = 0; j < va->len; j++) {
				struct value *a = &g_array_index(va, struct value, j);
				if (strcmp(a->key, b->key))
					continue;
				double pct = a->v != 0 ? (b->v / a->v - 1) * 100 : (b->v != 0 ? INFINITY : 0);
				if (fabs(pct) >= MOVED_PERCENT) {
					gchar *lab = case_label(n);
					char va_t[48], vb_t[48];
					value_text(va_t, sizeof va_t, a->v);
					value_text(vb_t, sizeof vb_t, b->v);
					struct moved m = { g_strdup_printf("%s %s", lab, b->key),
							   g_strdup_printf("%s \u2192 %s %s", va_t, vb_t, b->unit), pct };
					g_free(lab);
					g_array_append_val(moved, m);
				}
				break;
			}
		}
		g_array_free(va, TRUE);
		g_array_free(vb, TRUE);
	}
	g_string_append_printf(o, "<h2>Measured values that moved</h2>\n<p>Values of the cases' series (measured rates, "
				  "timers, load latencies) that changed by %.0f %% or more between the runs.</p>\n",
			       MOVED_PERCENT);
	if (!moved->len) {
		g_string_append(o, "<p>No measured value moved.</p>\n");
	} else {
		double lo = 0, hi = 0;
		const char **labels = g_new0(const char *, moved->len);
		for (guint i = 0; i < moved->len; i++) {
			struct moved *m = &g_array_index(moved, struct moved, i);
			double p = isfinite(m->percent) ? m->percent : 1000;
			lo = fmin(lo, p);
			hi = fmax(hi, p);
			labels[i] = m->label;
		}
		gchar *cap = g_strdup_printf("%u measured value(s) moved", moved->len);
		g_string_append(o, "<figure class=\"chart compare-values\" style=\"margin:10px 0\"><figcaption>");
		xml_escape(o, cap);
		g_string_append(o, "</figcaption>\n");
		struct chart c;
		chart_begin(&c, o, 760, 70 + 22 * (int)moved->len + 46, 0, cap,
			    "Each measured value that moved: a bar from no change to its change in percent of the old value, "
			    "the old and new values beside it.");
		g_free(cap);
		chart_left(&c, 330);
		chart_axes_rows(&c, lo, hi, "change from the old run (%)", labels, moved->len);
		for (guint i = 0; i < moved->len; i++) {
			struct moved *m = &g_array_index(moved, struct moved, i);
			double p = isfinite(m->percent) ? m->percent : 1000;
			chart_hseg(&c, p < 0 ? CHART_S2 : CHART_S1, 0, p, i, false, "");
			chart_point(&c, p < 0 ? CHART_S2 : CHART_S1, p, i, m->text);
			chart_text(&c, p, i - 0.15, p < 0 ? "start" : "end", m->text);
		}
		chart_legend(&c, CHART_S1, false, "up");
		chart_legend(&c, CHART_S2, false, "down");
		chart_end(&c);
		g_string_append(o, "</figure>\n<table><tr><th>Case and value</th><th>Old \u2192 new</th><th>Change</th></tr>\n");
		for (guint i = 0; i < moved->len; i++) {
			struct moved *m = &g_array_index(moved, struct moved, i);
			g_string_append(o, "<tr><td>");
			xml_escape(o, m->label);
			g_string_append(o, "</td><td>");
			xml_escape(o, m->text);
			g_string_append_printf(o, "</td><td>%+.1f %%</td></tr>\n", m->percent);
		}
		g_string_append(o, "</table>\n");
		g_free(labels);
	}
	for (guint i = 0; i < moved->len; i++) {
		g_free(g_array_index(moved, struct moved, i).label);
		g_free(g_array_index(moved, struct moved, i).text);
	}
	g_array_free(moved, TRUE);
}

int report_compare_html(const struct report_run *old_run, const struct report_run *new_run, const char *path, char *err,
			size_t errlen)
{
	GString *o = g_string_new("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
				  "<title>Comparison of two runs</title><style>body{font:14px/1.4 \"DejaVu Sans\",Arial,"
				  "sans-serif;margin:24px;color:#1b2230}table{border-collapse:collapse;margin:8px 0}"
				  "th,td{border:1px solid #c9d0dc;padding:3px 8px;text-align:left;font-size:13px}"
				  "figure{break-inside:avoid}</style></head><body>\n<h1>Comparison of two runs</h1>\n<table>\n");
	run_line(o, "old", old_run);
	run_line(o, "new", new_run);
	g_string_append(o, "</table>\n");
	rules_chart(o, old_run, new_run);
	values_chart(o, old_run, new_run);
	g_string_append(o, "<p>Written by roce-tester report --compare from the two results files alone.</p>\n</body></html>\n");
	int rc = write_file_atomic(path, o->str, o->len, err, errlen);
	g_string_free(o, TRUE);
	return rc;
}
