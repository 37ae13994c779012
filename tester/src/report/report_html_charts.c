/* The charts of report.html from the case records' series (see
 * report_html_charts.h). */
#include "report_html_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_charts.h"

#define CHART_W 760

static double num(JsonNode *n)
{
	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return NAN;
	GType t = json_node_get_value_type(n);
	if (t == G_TYPE_INT64)
		return (double)json_node_get_int(n);
	if (t == G_TYPE_DOUBLE)
		return json_node_get_double(n);
	return NAN;
}

static double arr_num(JsonArray *a, guint i)
{
	return a && i < json_array_get_length(a) ? num(json_array_get_element(a, i)) : NAN;
}

static double mnum(JsonObject *o, const char *key)
{
	return o ? num(json_object_get_member(o, key)) : NAN;
}

static void figure_open(GString *o, const char *cls, const char *caption)
{
	g_string_append_printf(o, "<figure class=\"chart %s\" style=\"margin:10px 0;break-inside:avoid;page-break-inside:avoid\"><figcaption style=\"font-weight:600;"
			       "margin:4px 0\">", cls);
	xml_escape(o, caption);
	g_string_append(o, "</figcaption>\n");
}

static void figure_note(GString *o, const char *text)
{
	g_string_append(o, "<p class=\"chart-note small\" style=\"margin:2px 0 8px\">");
	xml_escape(o, text);
	g_string_append(o, "</p>\n");
}

static void rate_text(char *buf, size_t n, double bytes_per_s)
{
	g_snprintf(buf, n, "%.3f Mb/s", bytes_per_s * 8 / 1e6);
}

/* The check of a symbol's value: the first one naming it, or NULL. */
static JsonObject *check_of(JsonArray *checks, const char *sym)
{
	for (guint i = 0; sym && checks && i < json_array_get_length(checks); i++) {
		JsonObject *k = json_array_get_object_element(checks, i);
		if (!strcmp(jstr(k, "symbol", ""), sym))
			return k;
	}
	return NULL;
}

/* ---- Congestion ---- */

static size_t mark_times(JsonArray *marks, const char *from, double **out)
{
	guint n = marks ? json_array_get_length(marks) : 0;
	*out = g_new0(double, n ? n : 1);
	size_t k = 0;
	for (guint i = 0; i < n; i++) {
		JsonObject *m = json_array_get_object_element(marks, i);
		if (!strcmp(jstr(m, "from", ""), from))
			(*out)[k++] = mnum(m, "t_ns") / 1e6;
	}
	return k;
}

static void rate_chart(GString *o, JsonObject *cg, JsonObject *series, JsonObject *rate, const char *label)
{
	JsonArray *bytes = jarr(rate, "bytes"), *pace = jarr(rate, "pace");
	double bin = mnum(rate, "bin_ns"), from = mnum(rate, "from_ns");
	guint nb = bytes ? json_array_get_length(bytes) : 0;
	if (!nb || !(bin > 0))
		return;
	JsonArray *meas = jarr(series, "measurements"), *checks = jarr(series, "checks");
	double *xs = g_new0(double, nb), *ys = g_new0(double, nb);
	double xmin = from / 1e6, xmax = (from + bin * nb) / 1e6, ymax = 0;
	for (guint i = 0; i < nb; i++) {
		xs[i] = (from + bin * i) / 1e6;
		ys[i] = arr_num(bytes, i) * 8 / (bin / 1e9) / 1e6;
		if (ys[i] > ymax)
			ymax = ys[i];
	}
	for (guint i = 0; meas && i < json_array_get_length(meas); i++) {
		JsonObject *m = json_array_get_object_element(meas, i);
		if (strcmp(jstr(m, "qp", ""), jstr(rate, "qp", "")))
			continue;
		double r = mnum(m, "rate") * 8 / 1e6;
		xmin = fmin(xmin, mnum(m, "from_ns") / 1e6);
		xmax = fmax(xmax, mnum(m, "to_ns") / 1e6);
		ymax = fmax(ymax, r);
		JsonObject *k = check_of(checks, jstr(m, "rate_symbol", NULL));
		if (k)
			ymax = fmax(ymax, mnum(k, "bound") * 8 / 1e6);
	}
	JsonArray *cnp = jarr(cg, "cnp"), *ce = jarr(cg, "ce");
	double *t_cnp_tester, *t_cnp_dut, *t_ce_tester, *t_ce_dut;
	size_t n1 = mark_times(cnp, "tester", &t_cnp_tester), n2 = mark_times(cnp, "dut", &t_cnp_dut);
	size_t n3 = mark_times(ce, "tester", &t_ce_tester), n4 = mark_times(ce, "dut", &t_ce_dut);
	unsigned rows = (n1 > 0) + (n2 > 0) + (n3 > 0) + (n4 > 0);
	gchar *cap = g_strdup_printf("%s: the DUT's send rate on QP %s over time", label, jstr(rate, "qp", ""));
	figure_open(o, "congestion-rate", cap);
	struct chart c;
	chart_begin(&c, o, CHART_W, 330, rows, cap,
		    "The DUT's requests on the QP binned over time as a rate, its pace at each packet (the bytes of its last 4 "
		    "packets over the time since the one before them), the windows the case measured and the bounds its checks put on them; CNPs and "
		    "CE-marked packets marked on the time axis below.");
	g_free(cap);
	chart_axes(&c, xmin, xmax, "time since the case started (ms)", 0, ymax * 1.15 + 0.001, "send rate (Mb/s)");
	char lab[160], v1[64], v2[64];
	g_snprintf(lab, sizeof lab, "binned (%g ms bins)", bin / 1e6);
	chart_line(&c, CHART_S1, xs, ys, nb, true, false, lab);
	chart_legend(&c, CHART_S1, false, lab);
	guint np = pace ? json_array_get_length(pace) : 0;
	if (np) {
		double *px = g_new0(double, np), *py = g_new0(double, np);
		for (guint i = 0; i < np; i++) {
			JsonArray *pt = json_array_get_array_element(pace, i);
			px[i] = arr_num(pt, 0) / 1e6;
			py[i] = arr_num(pt, 1) * 8 / 1e6;
		}
		chart_line(&c, CHART_S3, px, py, np, false, np <= 400, "pace (its last 4 packets)");
		chart_legend(&c, CHART_S3, false, "pace (its last 4 packets)");
		g_free(px);
		g_free(py);
	}
	bool any_meas = false, any_bound = false;
	for (guint i = 0; meas && i < json_array_get_length(meas); i++) {
		JsonObject *m = json_array_get_object_element(meas, i);
		if (strcmp(jstr(m, "qp", ""), jstr(rate, "qp", "")) || !jstr(m, "rate_symbol", NULL))
			continue;
		const char *sym = jstr(m, "rate_symbol", "");
		rate_text(v1, sizeof v1, mnum(m, "rate"));
		g_snprintf(lab, sizeof lab, "$%s = %s", sym, v1);
		chart_hseg(&c, CHART_S4, mnum(m, "from_ns") / 1e6, mnum(m, "to_ns") / 1e6, mnum(m, "rate") * 8 / 1e6, false,
			   lab);
		any_meas = true;
		JsonObject *k = check_of(checks, sym);
		if (k) {
			rate_text(v2, sizeof v2, mnum(k, "bound"));
			g_snprintf(lab, sizeof lab, "%s %s %s (line %lld)%s", jbool(k, "must", true) ? "must be" : "should be",
				 jstr(k, "cmp", ""), v2, (long long)jint(k, "line", 0), jbool(k, "holds", false) ? "" : ": does not hold");
			chart_hseg(&c, jbool(k, "holds", false) ? CHART_GOOD : CHART_BAD, mnum(m, "from_ns") / 1e6,
				   mnum(m, "to_ns") / 1e6, mnum(k, "bound") * 8 / 1e6, true, "");
			chart_text(&c, mnum(m, "from_ns") / 1e6, mnum(k, "bound") * 8 / 1e6, "start", lab);
			any_bound = true;
		}
	}
	if (any_meas)
		chart_legend(&c, CHART_S4, false, "measured over the window");
	if (any_bound)
		chart_legend(&c, CHART_GOOD, true, "the case's bound (expectation)");
	unsigned row = 0;
	if (n1)
		chart_marks(&c, CHART_S2, row++, t_cnp_tester, n1, "CNP to DUT");
	if (n3)
		chart_marks(&c, CHART_S3, row++, t_ce_tester, n3, "CE to DUT");
	if (n2)
		chart_marks(&c, CHART_S1, row++, t_cnp_dut, n2, "CNP by DUT");
	if (n4)
		chart_marks(&c, CHART_S4, row++, t_ce_dut, n4, "CE by DUT");
	chart_end(&c);
	g_string_append(o, "</figure>\n");
	GString *note = g_string_new(NULL);
	for (guint i = 0; checks && i < json_array_get_length(checks); i++) {
		JsonObject *k = json_array_get_object_element(checks, i);
		if (strcmp(jstr(k, "unit", ""), "bytes/s"))
			continue;
		g_string_append_printf(note, "%sline %lld, %s: %s", note->len ? "; " : "Expectation: ",
				       (long long)jint(k, "line", 0), jstr(k, "text", ""),
				       jbool(k, "holds", false) ? "holds" : jbool(k, "must", true) ? "does not hold" :
												      "does not hold (informative)");
	}
	if (note->len)
		figure_note(o, note->str);
	g_string_free(note, TRUE);
	g_free(xs);
	g_free(ys);
	g_free(t_cnp_tester);
	g_free(t_cnp_dut);
	g_free(t_ce_tester);
	g_free(t_ce_dut);
}

/* The notification point: each CNP of the DUT at the number of CE-marked
 * packets it answers (those of its QP since the QP's previous CNP), its
 * bar spanning them in time; the CE-marked packets and CNPs below. */
static void np_chart(GString *o, JsonObject *cg, const char *label)
{
	JsonArray *causes = jarr(cg, "cnp_causes"), *ce = jarr(cg, "ce");
	guint nc = causes ? json_array_get_length(causes) : 0;
	double *t_ce, *t_cnp;
	size_t nce = mark_times(ce, "tester", &t_ce);
	size_t ncnp = mark_times(jarr(cg, "cnp"), "dut", &t_cnp);
	/* One CE-marked packet and its CNP say nothing a ladder does not. */
	if (!nc || !ncnp || nce < 5) {
		g_free(t_ce);
		g_free(t_cnp);
		return;
	}
	double x0 = fmin(t_ce[0], t_cnp[0]), x1 = fmax(t_ce[nce - 1], t_cnp[ncnp - 1]), ymax = 1;
	double *xs = g_new0(double, nc), *ys = g_new0(double, nc);
	for (guint i = 0; i < nc; i++) {
		JsonObject *k = json_array_get_object_element(causes, i);
		xs[i] = mnum(k, "cnp_ns") / 1e6;
		ys[i] = (double)jint(k, "ce_packets", 0);
		ymax = fmax(ymax, ys[i]);
	}
	gchar *cap = g_strdup_printf("%s: the notification point's CNPs against the CE-marked packets that drew them", label);
	figure_open(o, "congestion-np", cap);
	struct chart c;
	chart_begin(&c, o, CHART_W, 300, 2, cap,
		    "Each CNP the DUT sent (a marker at its time) at the number of CE-marked packets it answers: those of its QP "
		    "since the QP's previous CNP, which its bar spans in time. The CE-marked packets and the CNPs are marked "
		    "on the time axis below.");
	g_free(cap);
	chart_axes(&c, x0, x1 > x0 ? x1 : x0 + 1, "time since the case started (ms)", 0, ymax * 1.15,
		   "CE-marked packets per CNP");
	for (guint i = 0; i < nc; i++) {
		JsonObject *k = json_array_get_object_element(causes, i);
		if (jint(k, "ce_packets", 0) > 0)
			chart_hseg(&c, CHART_S2, mnum(k, "ce_first_ns") / 1e6, xs[i], ys[i], false, "");
		char tip[160];
		g_snprintf(tip, sizeof tip, "CNP at %.3f ms answers %lld CE-marked packet(s)", xs[i],
			   (long long)jint(k, "ce_packets", 0));
		chart_point(&c, CHART_S1, xs[i], ys[i], tip);
	}
	chart_legend(&c, CHART_S1, false, "a CNP of the DUT");
	chart_legend(&c, CHART_S2, false, "the CE-marked packets it answers");
	chart_marks(&c, CHART_S2, 0, t_ce, nce, "CE to DUT");
	chart_marks(&c, CHART_S1, 1, t_cnp, ncnp, "CNP by DUT");
	chart_end(&c);
	g_string_append(o, "</figure>\n");
	char note[200];
	g_snprintf(note, sizeof note, "%zu CE-marked packet(s), %zu CNP(s): one CNP per %.1f CE-marked packets.", nce, ncnp,
		   (double)nce / (double)ncnp);
	figure_note(o, note);
	g_free(xs);
	g_free(ys);
	g_free(t_ce);
	g_free(t_cnp);
}

/* ---- Load ---- */

static void load_charts(GString *o, JsonObject *l, const char *label)
{
	double bin = mnum(l, "bin_ns"), from = mnum(l, "from_ns");
	JsonArray *sent = jarr(l, "sent_bytes"), *acked = jarr(l, "acked_bytes");
	JsonObject *lat = jobj(l, "latency_ns"), *pc = jobj(l, "latency_percentiles");
	guint nb = sent ? json_array_get_length(sent) : 0;
	if (!nb || !(bin > 0))
		return;
	double *xs = g_new0(double, nb), *ys = g_new0(double, nb), *ya = g_new0(double, nb);
	double ymax = 0;
	for (guint i = 0; i < nb; i++) {
		xs[i] = (bin * i) / 1e6;
		ys[i] = arr_num(sent, i) * 8 / (bin / 1e9) / 1e6;
		ya[i] = arr_num(acked, i) * 8 / (bin / 1e9) / 1e6;
		ymax = fmax(ymax, fmax(ys[i], isnan(ya[i]) ? 0 : ya[i]));
	}
	double span = bin * nb / 1e6;
	gchar *cap = g_strdup_printf("%s: load step %lld on QP %s, throughput over time", label, (long long)jint(l, "step", 0),
				     jstr(l, "qp", ""));
	figure_open(o, "load-throughput", cap);
	struct chart c;
	chart_begin(&c, o, CHART_W, 300, 0, cap,
		    "The tester's request packets (frame bytes) per bin as a rate, and the requests the DUT acknowledged in "
		    "each bin (by the time of the acknowledgement).");
	g_free(cap);
	char lab[96];
	chart_axes(&c, 0, span, "time since the load started (ms)", 0, ymax * 1.1 + 0.001, "throughput (Mb/s)");
	g_snprintf(lab, sizeof lab, "sent (%g ms bins)", bin / 1e6);
	chart_line(&c, CHART_S1, xs, ys, nb, true, false, lab);
	chart_legend(&c, CHART_S1, false, lab);
	chart_line(&c, CHART_S2, xs, ya, nb, true, false, "acknowledged");
	chart_legend(&c, CHART_S2, false, "acknowledged");
	chart_end(&c);
	g_string_append(o, "</figure>\n");
	(void)from;

	JsonArray *p50 = jarr(lat, "p50"), *p99 = jarr(lat, "p99"), *pmax = jarr(lat, "max");
	double lmax = 0;
	double *y50 = g_new0(double, nb), *y99 = g_new0(double, nb), *ymx = g_new0(double, nb);
	for (guint i = 0; i < nb; i++)
		lmax = fmax(lmax, isnan(arr_num(pmax, i)) ? 0 : arr_num(pmax, i));
	/* Microseconds, or milliseconds when the largest is past 2 ms. */
	double unit = lmax > 2e6 ? 1e6 : 1e3;
	const char *uname = lmax > 2e6 ? "ms" : "µs";
	lmax /= unit;
	for (guint i = 0; i < nb; i++) {
		y50[i] = arr_num(p50, i) / unit;
		y99[i] = arr_num(p99, i) / unit;
		ymx[i] = arr_num(pmax, i) / unit;
	}
	if (lmax > 0) {
		cap = g_strdup_printf("%s: load step %lld on QP %s, latency over time", label, (long long)jint(l, "step", 0),
				      jstr(l, "qp", ""));
		figure_open(o, "load-latency", cap);
		chart_begin(&c, o, CHART_W, 300, 0, cap,
			    "Per bin, the 50th and 99th percentile and the largest latency of the requests acknowledged in it: "
			    "from a request's first transmission to the DUT's acknowledgement covering its PSN; dashed, the "
			    "percentiles over the whole step.");
		g_free(cap);
		gchar *yl = g_strdup_printf("latency (%s)", uname);
		chart_axes(&c, 0, span, "time since the load started (ms)", 0, lmax * 1.1, yl);
		g_free(yl);
		double p50all = mnum(pc, "p50") / unit, p99all = mnum(pc, "p99") / unit;
		if (!isnan(p50all))
			chart_hseg(&c, CHART_GREY, 0, span, p50all, true, "");
		if (!isnan(p99all))
			chart_hseg(&c, CHART_GREY, 0, span, p99all, true, "");
		chart_line(&c, CHART_S1, xs, y50, nb, false, true, "p50");
		chart_line(&c, CHART_S2, xs, y99, nb, false, true, "p99");
		chart_line(&c, CHART_S3, xs, ymx, nb, false, true, "max");
		chart_legend(&c, CHART_S1, false, "p50 per bin");
		chart_legend(&c, CHART_S2, false, "p99 per bin");
		chart_legend(&c, CHART_S3, false, "max per bin");
		chart_legend(&c, CHART_GREY, true, "p50, p99 of the step");
		chart_end(&c);
		g_string_append(o, "</figure>\n");
	}
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "Latency over %lld acknowledged request(s):", (long long)jint(pc, "samples", 0));
	static const char *const names[] = { "p50", "p90", "p99", "p999", "max" };
	static const char *const shown[] = { "p50", "p90", "p99", "p99.9", "max" };
	for (unsigned i = 0; i < 5; i++) {
		double v = mnum(pc, names[i]);
		if (!isnan(v))
			g_string_append_printf(t, " %s %.1f µs%s", shown[i], v / 1e3, i < 4 ? "," : ".");
	}
	figure_note(o, t->str);
	g_string_free(t, TRUE);
	g_free(xs);
	g_free(ys);
	g_free(ya);
	g_free(y50);
	g_free(y99);
	g_free(ymx);
}

/* ---- Timers ---- */

struct timer_row {
	JsonObject *t;
	gint64 ipv;
	gchar *label;
};

/* The allowed window of a timer: its expectation's window narrowed by the
 * must-checks on its value. */
static void timer_window(JsonObject *t, double *lo, double *hi)
{
	*lo = mnum(t, "window_min_ns");
	*hi = mnum(t, "window_max_ns");
	JsonArray *ck = jarr(t, "checks");
	for (guint i = 0; ck && i < json_array_get_length(ck); i++) {
		JsonObject *k = json_array_get_object_element(ck, i);
		if (!jbool(k, "must", true))
			continue;
		const char *cmp = jstr(k, "cmp", "");
		double b = mnum(k, "bound");
		if (cmp[0] == '>' && b > *lo)
			*lo = b;
		else if (cmp[0] == '<' && b < *hi)
			*hi = b;
	}
}

static void timers_chart(GString *o, const char *id, struct timer_row *rows, unsigned n)
{
	/* The axis covers the values, the windows' lower bounds and every
	 * check's bound; a window's far end only when it is near (an
	 * expectation may wait a second for a 20 ms timer). */
	double xmax = 0, far = 0;
	const char **labels = g_new0(const char *, n ? n : 1);
	for (unsigned i = 0; i < n; i++) {
		double lo, hi;
		timer_window(rows[i].t, &lo, &hi);
		xmax = fmax(xmax, fmax(lo, mnum(rows[i].t, "value_ns")));
		far = fmax(far, hi);
		JsonArray *ck = jarr(rows[i].t, "checks");
		for (guint k = 0; ck && k < json_array_get_length(ck); k++)
			xmax = fmax(xmax, mnum(json_array_get_object_element(ck, k), "bound"));
		labels[i] = rows[i].label;
	}
	xmax = far <= 5 * xmax ? far : xmax * 1.5;
	gchar *cap = g_strdup_printf("%s: timers against their allowed windows (IPv4 and IPv6)", id);
	figure_open(o, "timers", cap);
	struct chart c;
	chart_begin(&c, o, CHART_W, 70 + 26 * (int)n + 46, 0, cap,
		    "Each measured retransmission interval or wait (a marker) against the window the case allows it (the "
		    "shaded band: the expectation's window narrowed by the case's required checks); dashed ticks are the "
		    "bounds of informative checks.");
	g_free(cap);
	chart_left(&c, 250);
	chart_axes_rows(&c, 0, xmax / 1e6, "time since the previous event (ms)", labels, n);
	for (unsigned i = 0; i < n; i++) {
		JsonObject *t = rows[i].t;
		double lo, hi, v = mnum(t, "value_ns");
		timer_window(t, &lo, &hi);
		bool ok = v >= lo && v <= hi;
		char tip[200];
		g_snprintf(tip, sizeof tip, "allowed %.3f .. %.3f ms", lo / 1e6, hi / 1e6);
		chart_band(&c, CHART_GOOD, lo / 1e6, hi / 1e6, i - 0.3, i + 0.3, tip);
		if (hi > c.x1 * 1e6) {
			char up[64];
			g_snprintf(up, sizeof up, "allowed up to %.4g ms →", hi / 1e6);
			chart_text(&c, c.x1, i + 0.05, "end", up);
		}
		JsonArray *ck = jarr(t, "checks");
		for (guint k = 0; ck && k < json_array_get_length(ck); k++) {
			JsonObject *b = json_array_get_object_element(ck, k);
			if (jbool(b, "must", true))
				continue;
			double x = mnum(b, "bound") / 1e6;
			chart_vseg(&c, CHART_GREY, x, i - 0.4, i + 0.4, true);
			char lb[96];
			g_snprintf(lb, sizeof lb, "should %s %.3g ms", jstr(b, "cmp", ""), x);
			chart_text(&c, x, i + 0.38, "middle", lb);
		}
		g_snprintf(tip, sizeof tip, "%s %.3f ms (allowed %.3f .. %.3f ms)", ok ? "measured" : "measured, outside its window:",
			 v / 1e6, lo / 1e6, hi / 1e6);
		chart_point(&c, ok ? CHART_S1 : CHART_BAD, v / 1e6, i, tip);
		char vl[48];
		g_snprintf(vl, sizeof vl, "%.3f ms", v / 1e6);
		chart_text(&c, v / 1e6, i - 0.15, "start", vl);
	}
	chart_legend(&c, CHART_GOOD, false, "allowed window");
	chart_legend(&c, CHART_S1, false, "measured, inside");
	chart_legend(&c, CHART_BAD, false, "measured, outside");
	chart_legend(&c, CHART_GREY, true, "informative bound");
	chart_end(&c);
	g_string_append(o, "</figure>\n");
	g_free(labels);
}

/* The timer rows of every record of case id, IPv4 first. */
static unsigned timer_rows(const struct report_run *run, const char *id, struct timer_row **out)
{
	unsigned n = 0, cap = 0;
	*out = NULL;
	for (gint64 ipv = 4; ipv <= 6; ipv += 2) {
		for (guint i = 0; i < json_array_get_length(run->cases); i++) {
			JsonObject *c = json_array_get_object_element(run->cases, i);
			if (strcmp(jstr(c, "id", ""), id) || jint(c, "ip_version", 0) != ipv)
				continue;
			JsonArray *tm = jarr(jobj(c, "series"), "timers");
			for (guint k = 0; tm && k < json_array_get_length(tm); k++) {
				JsonObject *t = json_array_get_object_element(tm, k);
				if (n == cap) {
					cap = cap ? 2 * cap : 8;
					*out = g_renew(struct timer_row, *out, cap);
				}
				const char *what = jstr(t, "what", "");
				const char *sym = jstr(t, "symbol", NULL);
				gchar *name = !strcmp(what, "retransmission") ?
					g_strdup_printf("%s%s%sretransmission %lld", sym ? "$" : "", sym ? sym : "",
							sym ? ", " : "", (long long)jint(t, "round", 0)) :
					g_strdup_printf("$%s", sym ? sym : "delay");
				(*out)[n].t = t;
				(*out)[n].ipv = ipv;
				(*out)[n].label = g_strdup_printf("IPv%lld %s (line %lld)", (long long)ipv, name,
								 (long long)jint(t, "line", 0));
				g_free(name);
				n++;
			}
		}
	}
	return n;
}

static void free_rows(struct timer_row *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		g_free(rows[i].label);
	g_free(rows);
}

/* ---- Entry points ---- */

void report_charts_case(GString *o, JsonObject *c, const struct report_run *run)
{
	JsonObject *series = jobj(c, "series");
	if (!series)
		return;
	gchar *label = case_label(c);
	JsonObject *cg = jobj(series, "congestion");
	JsonArray *loads = jarr(series, "load");
	JsonArray *tm = jarr(series, "timers");
	/* Drawn apart first: a series may hold nothing to draw (a congestion
	 * case without rates), and then no heading is written. */
	GString *charts = g_string_new(NULL);
	GString *outer = o;
	o = charts;
	if (cg) {
		JsonArray *rates = jarr(cg, "rate");
		for (guint i = 0; rates && i < json_array_get_length(rates); i++)
			rate_chart(o, cg, series, json_array_get_object_element(rates, i), label);
		np_chart(o, cg, label);
	}
	for (guint i = 0; loads && i < json_array_get_length(loads); i++)
		load_charts(o, json_array_get_object_element(loads, i), label);
	if (tm && json_array_get_length(tm)) {
		struct timer_row *rows;
		unsigned n = timer_rows(run, jstr(c, "id", ""), &rows);
		if (n)
			timers_chart(o, jstr(c, "id", ""), rows, n);
		free_rows(rows, n);
	}
	if (charts->len)
		g_string_append_printf(outer, "<h4>Charts</h4><div class=\"charts\">\n%s</div>\n", charts->str);
	g_string_free(charts, TRUE);
	g_free(label);
}

void report_charts_timers(GString *o, const struct report_run *run)
{
	GHashTable *done = g_hash_table_new(g_str_hash, g_str_equal);
	bool any = false;
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		JsonObject *c = json_array_get_object_element(run->cases, i);
		const char *id = jstr(c, "id", "");
		JsonArray *tm = jarr(jobj(c, "series"), "timers");
		if (!tm || !json_array_get_length(tm) || g_hash_table_contains(done, id))
			continue;
		g_hash_table_add(done, (gpointer)id);
		if (!any)
			g_string_append(o, "<section id=\"timers\" class=\"timers\"><h3>Timers against their allowed windows</h3>\n"
					   "<p class=\"small\">Every retransmission interval and wait a case measured, against "
					   "the window the case allows it, for the IPv4 and IPv6 runs.</p>\n");
		any = true;
		struct timer_row *rows;
		unsigned n = timer_rows(run, id, &rows);
		if (n)
			timers_chart(o, id, rows, n);
		free_rows(rows, n);
	}
	if (any)
		g_string_append(o, "</section>\n");
	g_hash_table_destroy(done);
}
