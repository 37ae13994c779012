/*
 * The ladder diagram of one case for the HTML report: an inline SVG with
 * the tester's and the DUT's lifelines, time flowing down, one row per
 * step (its statement) followed by the packets it sent or judged as
 * arrows, and what injection rules did to packets that left no frame.
 * The failing step is drawn on a red band, the frames its evidence cites
 * as red arrows; an expected packet that never came is a dashed arrow.
 * Each frame number links to the packet's row in the report (#fN), which
 * names the frame in the annotated capture.
 *
 * Rows are placed in order, not to scale: a case waits milliseconds to
 * seconds between packets, so the time of each row is written beside it.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 960
#define X_TESTER 210
#define X_DUT 860
#define TOP 64
#define ROW_STEP 24
#define ROW_PKT 38
#define ROW_EVENT 22
#define ROW_GAP 22
/* Longer cases are drawn in part: the start, around the failure, the end. */
#define MAX_DRAWN 80
#define LABEL_CHARS 98

enum row_kind { R_STEP, R_PKT, R_EVENT, R_MISSING, R_ELIDED };

struct row {
	enum row_kind kind;
	int step;          /* 1-based; 0 set-up */
	JsonObject *o;     /* step, packet or event */
	gint64 ts;
	unsigned elided;   /* R_ELIDED: packets left out */
	gint64 first_frame, last_frame;
};

struct pkt_ref {
	JsonObject *p;
	gint64 ts;
	int step;
	guint order;
};

static int cmp_pkt(const void *a, const void *b)
{
	const struct pkt_ref *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : (x->order > y->order);
}

static void text_clipped(GString *s, const char *t, size_t max)
{
	size_t n = g_utf8_strlen(t, -1);
	if (n <= max) {
		xml_escape(s, t);
		return;
	}
	const char *cut = g_utf8_offset_to_pointer(t, (glong)max - 1);
	xml_escape_len(s, t, (size_t)(cut - t));
	g_string_append(s, "\xE2\x80\xA6"); /* … */
}

static void rel_time(char *buf, size_t n, gint64 ts, gint64 start)
{
	if (!ts || !start) {
		buf[0] = '\0';
		return;
	}
	/* In rounded microseconds, as integers: 40 bytes hold any value. */
	gint64 d;
	if (__builtin_sub_overflow(ts, start, &d)) {
		snprintf(buf, n, "?");
		return;
	}
	gint64 us = d / 1000 + (d % 1000 >= 500) - (d % 1000 <= -500);
	snprintf(buf, n, "%c%lld.%03lld ms", us < 0 ? '-' : '+', (long long)llabs(us / 1000), (long long)llabs(us % 1000));
}

static bool array_has_int(JsonArray *a, gint64 v)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonNode *n = json_array_get_element(a, i);
		if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64 && json_node_get_int(n) == v)
			return true;
	}
	return false;
}

/* The evidence record citing a frame, if any. */
static JsonObject *evidence_of(JsonObject *c, gint64 frame)
{
	JsonArray *ev = jarr(c, "evidence");
	for (guint i = 0; frame > 0 && ev && i < json_array_get_length(ev); i++)
		if (array_has_int(jarr(json_array_get_object_element(ev, i), "frames"), frame))
			return json_array_get_object_element(ev, i);
	return NULL;
}

static bool is_evidence_frame(JsonObject *c, gint64 frame)
{
	return evidence_of(c, frame) != NULL;
}

/* The first error finding on a packet, if any. */
static JsonObject *packet_finding(JsonObject *c, gint64 index)
{
	JsonArray *fd = jarr(c, "findings");
	for (guint i = 0; fd && i < json_array_get_length(fd); i++) {
		JsonObject *f = json_array_get_object_element(fd, i);
		if (!jnull_or_absent(f, "packet") && jint(f, "packet", -1) == index &&
		    strcmp(jstr(f, "severity", ""), "info") && strcmp(jstr(f, "severity", ""), "note"))
			return f;
	}
	return NULL;
}

static void arrowhead(GString *s, int x, int y, bool right, const char *cls)
{
	int d = right ? -9 : 9;
	g_string_append_printf(s, "<path class=\"%s\" d=\"M%d %d L%d %d L%d %d Z\"/>", cls, x, y, x + d, y - 4, x + d,
			       y + 4);
}

static void lifelines(GString *s, int y0, int y1)
{
	g_string_append_printf(s, "<line class=\"life\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", X_TESTER, y0,
			       X_TESTER, y1);
	g_string_append_printf(s, "<line class=\"life\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", X_DUT, y0, X_DUT, y1);
}

static int row_height(const struct row *r)
{
	switch (r->kind) {
	case R_STEP: return ROW_STEP;
	case R_PKT: return ROW_PKT;
	case R_MISSING: return ROW_PKT;
	case R_EVENT: return ROW_EVENT;
	case R_ELIDED: return ROW_GAP;
	}
	return ROW_EVENT;
}

static void draw_packet(GString *s, JsonObject *c, const struct row *r, int y, gint64 start, GHashTable *linked)
{
	JsonObject *p = r->o;
	bool tx = !strcmp(jstr(p, "direction", "tx"), "tx");
	gint64 frame = jnull_or_absent(p, "frame") ? 0 : jint(p, "frame", 0);
	bool evidence = is_evidence_frame(c, frame);
	JsonObject *finding = packet_finding(c, jint(p, "index", -1));
	const char *cls = evidence ? "pkt evidence" : finding ? "pkt finding" : tx ? "pkt tx" : "pkt rx";
	int ya = y + 18, yb = y + 24;
	int x0 = tx ? X_TESTER : X_DUT, x1 = tx ? X_DUT : X_TESTER;
	g_string_append_printf(s, "<g class=\"%s\"", cls);
	if (frame > 0)
		g_string_append_printf(s, " data-frame=\"%lld\"", (long long)frame);
	g_string_append(s, ">");
	/* The tooltip: the whole summary, note and annotation. */
	g_string_append(s, "<title>");
	if (frame > 0)
		g_string_append_printf(s, "frame %lld: ", (long long)frame);
	xml_escape(s, jstr(p, "summary", ""));
	if (jstr(p, "note", NULL)) {
		g_string_append(s, "\n");
		xml_escape(s, jstr(p, "note", ""));
	}
	if (jstr(p, "annotation", NULL)) {
		g_string_append(s, "\n");
		xml_escape(s, jstr(p, "annotation", ""));
	}
	g_string_append(s, "</title>");
	g_string_append_printf(s, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", x0, ya, x1 + (tx ? -2 : 2), yb);
	arrowhead(s, x1, yb, tx, "head");
	char t[40];
	rel_time(t, sizeof t, jint(p, "ts_ns", 0), start);
	g_string_append_printf(s, "<text class=\"time\" x=\"6\" y=\"%d\">%s</text>", ya + 4, t);
	if (frame > 0 && linked)
		g_hash_table_add(linked, GINT_TO_POINTER((gint)frame));
	if (frame > 0)
		g_string_append_printf(s, "<a href=\"#f%lld\"><text class=\"frame\" x=\"%d\" y=\"%d\">#%lld</text></a>",
				       (long long)frame, X_TESTER - 10, ya + 4, (long long)frame);
	g_string_append_printf(s, "<text class=\"label\" x=\"%d\" y=\"%d\">", (X_TESTER + X_DUT) / 2, y + 13);
	text_clipped(s, jstr(p, "summary", ""), LABEL_CHARS);
	g_string_append(s, "</text>");
	GString *below = g_string_new(NULL);
	if (jstr(p, "note", NULL))
		g_string_append(below, jstr(p, "note", ""));
	if (finding) {
		if (below->len)
			g_string_append(below, " · ");
		g_string_append_printf(below, "%s %s", jstr(finding, "severity", ""), jstr(finding, "rule", ""));
	}
	if (evidence) {
		/* What the failing step wanted instead. */
		if (below->len)
			g_string_append(below, " · ");
		g_string_append_printf(below, "expected %s", jstr(evidence_of(c, frame), "expected", ""));
	}
	if (below->len) {
		g_string_append_printf(s, "<text class=\"note\" x=\"%d\" y=\"%d\">", (X_TESTER + X_DUT) / 2, yb + 12);
		text_clipped(s, below->str, LABEL_CHARS + 10);
		g_string_append(s, "</text>");
	}
	g_string_free(below, TRUE);
	g_string_append(s, "</g>");
}

void report_ladder_svg(GString *s, JsonObject *c, const char *tester_name, const char *dut_name, GHashTable *linked)
{
	JsonArray *steps = jarr(c, "steps");
	JsonArray *pk = jarr(c, "packets");
	JsonArray *events = jarr(c, "events");
	guint n_steps = steps ? json_array_get_length(steps) : 0;
	guint n_pk = pk ? json_array_get_length(pk) : 0;
	guint n_ev = events ? json_array_get_length(events) : 0;
	gint64 failed_step = jnull_or_absent(c, "failed_step") ? 0 : jint(c, "failed_step", 0);
	bool case_failed = !strcmp(jstr(c, "verdict", ""), "fail");
	gint64 start = jint(c, "started_ns", 0);

	struct pkt_ref *refs = g_new0(struct pkt_ref, n_pk + 1);
	for (guint i = 0; i < n_pk; i++) {
		refs[i].p = json_array_get_object_element(pk, i);
		refs[i].ts = jint(refs[i].p, "ts_ns", 0);
		refs[i].step = (int)jint(refs[i].p, "step", 0);
		refs[i].order = i;
	}
	qsort(refs, n_pk, sizeof *refs, cmp_pkt);

	/* Which packets to draw. */
	bool *keep = g_new0(bool, n_pk + 1);
	if (n_pk <= MAX_DRAWN) {
		for (guint i = 0; i < n_pk; i++)
			keep[i] = true;
	} else {
		guint focus = n_pk;
		for (guint i = 0; i < n_pk && focus == n_pk; i++) {
			gint64 fr = jnull_or_absent(refs[i].p, "frame") ? 0 : jint(refs[i].p, "frame", 0);
			if (is_evidence_frame(c, fr) || (failed_step && refs[i].step == failed_step))
				focus = i;
		}
		for (guint i = 0; i < n_pk; i++)
			keep[i] = i < 24 || i + 8 >= n_pk || (focus < n_pk && i + 16 >= focus && i <= focus + 16);
	}

	/* Rows: set-up packets, then each step and what happened in it. */
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(struct row));
	guint pi = 0;
	int max_step = (int)n_steps;
	for (guint i = 0; i < n_pk; i++)
		if (refs[i].step > max_step)
			max_step = refs[i].step;
	for (int st = 0; st <= max_step; st++) {
		JsonObject *so = NULL;
		for (guint k = 0; k < n_steps && !so; k++)
			if (jint(json_array_get_object_element(steps, k), "index", 0) == st)
				so = json_array_get_object_element(steps, k);
		bool any_pkt = pi < n_pk && refs[pi].step == st;
		if (st > 0 && so) {
			struct row r = { .kind = R_STEP, .step = st, .o = so };
			g_array_append_val(rows, r);
		} else if (st == 0 && any_pkt) {
			struct row r = { .kind = R_STEP, .step = 0, .o = NULL };
			g_array_append_val(rows, r);
		} else if (!any_pkt) {
			continue;
		}
		/* Packets and events of this step, merged by time. */
		guint ei = 0;
		struct row el = { .kind = R_ELIDED, .step = st };
		while ((pi < n_pk && refs[pi].step == st) || ei < n_ev) {
			JsonObject *ev = NULL;
			while (ei < n_ev) {
				JsonObject *e = json_array_get_object_element(events, ei);
				if (jint(e, "step", -1) == st) {
					ev = e;
					break;
				}
				ei++;
			}
			bool take_pkt = pi < n_pk && refs[pi].step == st &&
					(!ev || refs[pi].ts <= jint(ev, "ts_ns", 0));
			if (!take_pkt && !ev)
				break;
			if (take_pkt) {
				gint64 fr = jnull_or_absent(refs[pi].p, "frame") ? 0 : jint(refs[pi].p, "frame", 0);
				if (keep[pi]) {
					if (el.elided) {
						g_array_append_val(rows, el);
						el.elided = 0;
					}
					struct row r = { .kind = R_PKT, .step = st, .o = refs[pi].p, .ts = refs[pi].ts };
					g_array_append_val(rows, r);
				} else {
					if (!el.elided)
						el.first_frame = fr;
					el.last_frame = fr;
					el.elided++;
				}
				pi++;
			} else {
				struct row r = { .kind = R_EVENT, .step = st, .o = ev, .ts = jint(ev, "ts_ns", 0) };
				g_array_append_val(rows, r);
				ei++;
			}
		}
		if (el.elided)
			g_array_append_val(rows, el);
		/* An expectation that failed on no packet: the packet that never came. */
		if (case_failed && st == failed_step && so && !strcmp(jstr(so, "status", ""), "fail")) {
			JsonArray *fr = jarr(so, "frames");
			if ((!fr || !json_array_get_length(fr)) && !strncmp(jstr(so, "kind", ""), "expect", 6)) {
				struct row r = { .kind = R_MISSING, .step = st, .o = so };
				g_array_append_val(rows, r);
			}
		}
	}

	int height = TOP;
	for (guint i = 0; i < rows->len; i++)
		height += row_height(&g_array_index(rows, struct row, i));
	height += 16;

	g_string_append_printf(s,
			       "<svg class=\"ladder\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
			       "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"ladder diagram of the packets exchanged\">",
			       W, height, W, height);
	/* Column heads. */
	const char *names[2] = { tester_name, dut_name };
	int xs[2] = { X_TESTER, X_DUT };
	for (int k = 0; k < 2; k++) {
		g_string_append_printf(s, "<rect class=\"head\" x=\"%d\" y=\"6\" width=\"170\" height=\"40\" rx=\"5\"/>",
				       xs[k] - 85);
		g_string_append_printf(s, "<text class=\"who\" x=\"%d\" y=\"22\">%s</text>", xs[k], k ? "DUT" : "Tester");
		g_string_append_printf(s, "<text class=\"whosub\" x=\"%d\" y=\"38\">", xs[k]);
		text_clipped(s, names[k], 26);
		g_string_append(s, "</text>");
	}
	g_string_append_printf(s, "<text class=\"time\" x=\"6\" y=\"%d\">time</text>", TOP - 8);
	lifelines(s, 46, TOP);

	/* The failing step's band first, under everything else. */
	int y = TOP;
	for (guint i = 0; i < rows->len; i++) {
		struct row *r = &g_array_index(rows, struct row, i);
		if (case_failed && failed_step && r->step == failed_step && r->kind == R_STEP) {
			int h = 0;
			for (guint k = i; k < rows->len && g_array_index(rows, struct row, k).step == r->step; k++)
				h += row_height(&g_array_index(rows, struct row, k));
			g_string_append_printf(s, "<rect class=\"fail-step\" x=\"1\" y=\"%d\" width=\"%d\" height=\"%d\"/>", y,
					       W - 2, h);
		}
		y += row_height(r);
	}

	y = TOP;
	for (guint i = 0; i < rows->len; i++) {
		struct row *r = &g_array_index(rows, struct row, i);
		int h = row_height(r);
		if (r->kind == R_STEP) {
			bool failed = case_failed && r->step == failed_step;
			const char *status = r->o ? jstr(r->o, "status", "") : "";
			g_string_append_printf(s, "<g class=\"step%s\" data-step=\"%d\">", failed ? " failed" : "", r->step);
			g_string_append_printf(s, "<rect class=\"stepbar\" x=\"1\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
					       y + 2, W - 2, h - 4);
			g_string_append_printf(s, "<text class=\"steptext\" x=\"8\" y=\"%d\">", y + 16);
			if (r->o) {
				char head[64];
				snprintf(head, sizeof head, "step %d · line %lld · ", r->step, (long long)jint(r->o, "line", 0));
				g_string_append(s, head);
				text_clipped(s, jstr(r->o, "text", ""), 100);
			} else {
				g_string_append(s, "set-up (neighbour resolution, before the first step)");
			}
			g_string_append(s, "</text>");
			if (*status) {
				g_string_append_printf(s, "<text class=\"status st-%s\" x=\"%d\" y=\"%d\">", status, W - 8, y + 16);
				xml_escape(s, !strcmp(status, "not_applicable") ? "not applicable" : status);
				g_string_append(s, "</text>");
			}
			g_string_append(s, "</g>");
		} else {
			lifelines(s, y, y + h);
			if (r->kind == R_PKT) {
				draw_packet(s, c, r, y, start, linked);
			} else if (r->kind == R_EVENT) {
				char t[40];
				rel_time(t, sizeof t, r->ts, start);
				g_string_append_printf(s, "<g class=\"event\"><text class=\"time\" x=\"6\" y=\"%d\">%s</text>", y + 15, t);
				g_string_append_printf(s, "<text class=\"evtext\" x=\"%d\" y=\"%d\">\xE2\x9C\x95 ", (X_TESTER + X_DUT) / 2,
						       y + 15);
				text_clipped(s, jstr(r->o, "text", ""), LABEL_CHARS);
				g_string_append(s, "</text></g>");
			} else if (r->kind == R_ELIDED) {
				g_string_append_printf(s, "<text class=\"elided\" x=\"%d\" y=\"%d\">\xE2\x8B\xAE %u packets not drawn (frames %lld\xE2\x80\x93%lld): see the packet table</text>",
						       (X_TESTER + X_DUT) / 2, y + 15, r->elided, (long long)r->first_frame,
						       (long long)r->last_frame);
			} else if (r->kind == R_MISSING) {
				int ya = y + 18, yb = y + 24;
				g_string_append(s, "<g class=\"pkt missing\"><title>");
				g_string_append(s, "expected, never received: ");
				xml_escape(s, jstr(r->o, "expected", ""));
				g_string_append(s, "</title>");
				g_string_append_printf(s, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", X_DUT, ya, X_TESTER + 2, yb);
				arrowhead(s, X_TESTER, yb, false, "head");
				g_string_append_printf(s, "<text class=\"label\" x=\"%d\" y=\"%d\">expected: ", (X_TESTER + X_DUT) / 2,
						       y + 13);
				text_clipped(s, jstr(r->o, "expected", ""), LABEL_CHARS - 10);
				g_string_append_printf(s, "</text><text class=\"note\" x=\"%d\" y=\"%d\">observed: ",
						       (X_TESTER + X_DUT) / 2, yb + 12);
				text_clipped(s, jstr(r->o, "observed", "nothing"), LABEL_CHARS);
				g_string_append(s, "</text></g>");
			}
		}
		y += h;
	}
	g_string_append(s, "</svg>");
	g_array_free(rows, TRUE);
	g_free(keep);
	g_free(refs);
}
