/* Charts as inline SVG (see report_charts.h). */
#include "report_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


#define FONT "font-family=\"DejaVu Sans,Arial,Helvetica,sans-serif\""
#define LEFT 92
#define RIGHT 20
#define TOP 36
#define BOTTOM 46
#define MARK_ROW 18
/* Labels drawn over data keep a white outline, readable over any line. */
#define HALO " stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\""

struct style {
	const char *name, *colour, *dash, *marker;
};

/* Colour, dash pattern and marker together: each tells the series apart
 * on its own, in colour or in greyscale. */
static const struct style styles[CHART_STYLES] = {
	[CHART_S1] = { "s1", "#1f4e99", "", "circle" },
	[CHART_S2] = { "s2", "#d9730d", "7 4", "triangle" },
	[CHART_S3] = { "s3", "#2e7d32", "2 3", "square" },
	[CHART_S4] = { "s4", "#7b3fa0", "9 3 2 3", "diamond" },
	[CHART_GOOD] = { "good", "#3a9a3a", "", "circle" },
	[CHART_BAD] = { "bad", "#c62828", "", "cross" },
	[CHART_GREY] = { "grey", "#777777", "", "circle" },
};

void chart_number(char *buf, size_t n, double v)
{
	if (fabs(v) < 1e-12)
		v = 0;
	double a = fabs(v);
	if (a != 0 && (a >= 1e6 || a < 1e-3))
		snprintf(buf, n, "%.3g", v);
	else
		snprintf(buf, n, "%.6g", v);
}

double chart_tick_step(double span, unsigned want)
{
	if (!(span > 0) || !isfinite(span))
		return 1;
	double raw = span / (want ? want : 5);
	double p = pow(10, floor(log10(raw)));
	double m = raw / p;
	double f = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
	return f * p;
}

/* Text for element content and attribute values: markup escaped, invalid
 * UTF-8 repaired and control characters XML cannot hold as U+FFFD, so the
 * SVG stays well formed whatever the results file held. */
static void attr_text(GString *s, const char *t)
{
	gchar *v = g_utf8_make_valid(t ? t : "", -1);
	for (const char *p = v; *p; p = g_utf8_next_char(p)) {
		gunichar u = g_utf8_get_char(p);
		switch (u) {
		case '&': g_string_append(s, "&amp;"); break;
		case '<': g_string_append(s, "&lt;"); break;
		case '>': g_string_append(s, "&gt;"); break;
		case '"': g_string_append(s, "&quot;"); break;
		case '\'': g_string_append(s, "&#39;"); break;
		default:
			if ((u < 0x20 && u != '\t' && u != '\n' && u != '\r') || (u >= 0x7f && u <= 0x9f) || u == 0xfffe ||
			    u == 0xffff)
				g_string_append(s, "\xef\xbf\xbd");
			else
				g_string_append_len(s, p, g_utf8_next_char(p) - p);
		}
	}
	g_free(v);
}

void chart_begin(struct chart *c, GString *out, int width, int height, unsigned mark_rows, const char *title,
		 const char *desc)
{
	memset(c, 0, sizeof *c);
	c->s = out;
	c->width = width;
	c->height = height + (int)mark_rows * MARK_ROW;
	c->px = LEFT;
	c->py = TOP;
	c->pw = width - LEFT - RIGHT;
	c->ph = height - TOP - BOTTOM;
	c->x0 = 0;
	c->x1 = 1;
	c->y0 = 0;
	c->y1 = 1;
	c->legend = g_string_new(NULL);
	g_string_append_printf(out, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
			       "width=\"%d\" height=\"%d\" style=\"max-width:100%%;height:auto\" role=\"img\" " FONT " font-size=\"12\"><title>",
			       width, c->height, width, c->height);
	attr_text(out, title);
	g_string_append(out, "</title><desc>");
	attr_text(out, desc);
	g_string_append_printf(out, "</desc>\n<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
			       width, c->height);
}

void chart_left(struct chart *c, int left)
{
	c->pw += c->px - left;
	c->px = left;
}

double chart_px(const struct chart *c, double x)
{
	double f = c->x1 > c->x0 ? (x - c->x0) / (c->x1 - c->x0) : 0;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return c->px + f * c->pw;
}

double chart_py(const struct chart *c, double y)
{
	double f = c->y1 > c->y0 ? (y - c->y0) / (c->y1 - c->y0) : 0;
	if (c->rows)
		f = 1 - f;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	return c->py + c->ph - f * c->ph;
}

static void widen(double *lo, double *hi, double *step, unsigned want)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi < *lo) {
		double t = *lo;
		*lo = *hi;
		*hi = t;
	}
	if (*hi == *lo) {
		double d = *lo ? fabs(*lo) / 2 : 1;
		*lo -= *lo >= 0 && *lo - d < 0 ? *lo : d;
		*hi += d;
	}
	*step = chart_tick_step(*hi - *lo, want);
	*lo = floor(*lo / *step + 1e-9) * *step;
	*hi = ceil(*hi / *step - 1e-9) * *step;
}

/* The plot's frame and the x axis's ticks, which both kinds of chart share. */
static void plot_and_xticks(struct chart *c, double x0, double x1, double xs)
{
	GString *s = c->s;
	g_string_append_printf(s, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" "
			       "stroke=\"#444444\" stroke-width=\"1\"/>\n",
			       c->px, c->py, c->pw, c->ph);
	char num[48];
	g_string_append(s, "<g class=\"xticks\" font-size=\"11\" text-anchor=\"middle\">");
	for (int i = 0; i <= 200; i++) {
		double v = x0 + i * xs;
		if (v > x1 + xs * 1e-6)
			break;
		double x = chart_px(c, v);
		chart_number(num, sizeof num, v);
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>", x, c->py, x,
				       c->py + c->ph);
		g_string_append_printf(s, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>", x, c->py + c->ph + 15, num);
	}
}

void chart_axes(struct chart *c, double x0, double x1, const char *xlabel, double y0, double y1, const char *ylabel)
{
	double xs, ys;
	/* More ticks across than up: a time axis ends nearer its data. */
	widen(&x0, &x1, &xs, 8);
	widen(&y0, &y1, &ys, 5);
	c->x0 = x0;
	c->x1 = x1;
	c->y0 = y0;
	c->y1 = y1;
	GString *s = c->s;
	char num[48];
	plot_and_xticks(c, x0, x1, xs);
	g_string_append(s, "</g>\n<g class=\"yticks\" font-size=\"11\" text-anchor=\"end\">");
	for (int i = 0; i <= 200; i++) {
		double v = y0 + i * ys;
		if (v > y1 + ys * 1e-6)
			break;
		double y = chart_py(c, v);
		chart_number(num, sizeof num, v);
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>", c->px, y,
				       c->px + c->pw, y);
		g_string_append_printf(s, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">%s</text>", c->px - 5, y + 4, num);
	}
	g_string_append(s, "</g>\n");
	g_string_append_printf(s, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", c->px + c->pw / 2,
			       c->py + c->ph + 32);
	attr_text(s, xlabel);
	g_string_append_printf(s, "</text>\n<text class=\"ylabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			       "transform=\"rotate(-90 %.1f %.1f)\">",
			       14.0, c->py + c->ph / 2, 14.0, c->py + c->ph / 2);
	attr_text(s, ylabel);
	g_string_append(s, "</text>\n");
}

void chart_axes_rows(struct chart *c, double x0, double x1, const char *xlabel, const char *const *labels,
		     unsigned n)
{
	double xs;
	widen(&x0, &x1, &xs, 8);
	c->x0 = x0;
	c->x1 = x1;
	/* Row i at y = i, row 0 at the top: the y axis runs from n - 0.5 at
	 * the top down to -0.5 at the bottom, reversed. */
	c->y0 = -0.5;
	c->y1 = n ? n - 0.5 : 0.5;
	c->rows = true;
	GString *s = c->s;
	plot_and_xticks(c, x0, x1, xs);
	g_string_append(s, "</g>\n<g class=\"rows\" font-size=\"11\" text-anchor=\"end\">");
	for (unsigned i = 0; i < n; i++) {
		g_string_append_printf(s, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\">", c->px - 5, chart_py(c, i) + 4);
		attr_text(s, labels[i]);
		g_string_append(s, "</text>");
	}
	g_string_append_printf(s, "</g>\n<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			       c->px + c->pw / 2, c->py + c->ph + 32);
	attr_text(s, xlabel);
	g_string_append(s, "</text>\n");
}

void chart_axes_grid(struct chart *c, const char *const *xcats, unsigned nx, const char *xlabel,
		     const char *const *labels, unsigned n)
{
	GString *s = c->s;
	c->x0 = -0.5;
	c->x1 = nx ? nx - 0.5 : 0.5;
	c->y0 = -0.5;
	c->y1 = n ? n - 0.5 : 0.5;
	c->rows = true;
	g_string_append_printf(s, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fbfbfb\" "
			       "stroke=\"#444444\" stroke-width=\"1\"/>\n",
			       c->px, c->py, c->pw, c->ph);
	g_string_append(s, "<g class=\"xcats\" font-size=\"11\" text-anchor=\"middle\">");
	for (unsigned j = 0; j < nx; j++) {
		double x = chart_px(c, j);
		g_string_append_printf(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>", x, c->py, x,
				       c->py + c->ph);
		g_string_append_printf(s, "<text class=\"cat\" x=\"%.1f\" y=\"%.1f\">", x, c->py + c->ph + 15);
		attr_text(s, xcats[j]);
		g_string_append(s, "</text>");
	}
	g_string_append(s, "</g>\n<g class=\"rows\" font-size=\"11\" text-anchor=\"end\">");
	for (unsigned i = 0; i < n; i++) {
		g_string_append_printf(s, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\">", c->px - 5, chart_py(c, i) + 4);
		attr_text(s, labels[i]);
		g_string_append(s, "</text>");
	}
	g_string_append_printf(s, "</g>\n<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			       c->px + c->pw / 2, c->py + c->ph + 32);
	attr_text(s, xlabel);
	g_string_append(s, "</text>\n");
}

static void marker(GString *s, const struct style *st, double x, double y, const char *tip)
{
	const char *m = st->marker;
	g_string_append_printf(s, "<g class=\"mark %s\">", st->name);
	if (!strcmp(m, "circle"))
		g_string_append_printf(s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.2\" fill=\"%s\"/>", x, y, st->colour);
	else if (!strcmp(m, "triangle"))
		g_string_append_printf(s, "<path d=\"M%.1f %.1fl4 7h-8z\" fill=\"%s\"/>", x, y - 4, st->colour);
	else if (!strcmp(m, "square"))
		g_string_append_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"%s\"/>", x - 3, y - 3,
				       st->colour);
	else if (!strcmp(m, "diamond"))
		g_string_append_printf(s, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"%s\"/>", x, y - 4, st->colour);
	else
		g_string_append_printf(s, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"2\"/>", x - 4,
				       y - 4, st->colour);
	if (tip && *tip) {
		g_string_append(s, "<title>");
		attr_text(s, tip);
		g_string_append(s, "</title>");
	}
	g_string_append(s, "</g>");
}

void chart_line(struct chart *c, enum chart_style sti, const double *xs, const double *ys, size_t n, bool step,
		bool markers, const char *label)
{
	const struct style *st = &styles[sti];
	GString *s = c->s;
	g_string_append_printf(s, "<g class=\"series %s\" data-label=\"", st->name);
	attr_text(s, label);
	g_string_append(s, "\">");
	bool open = false;
	for (size_t i = 0; i < n; i++) {
		if (isnan(ys[i])) {
			if (open)
				g_string_append(s, "\"/>");
			open = false;
			continue;
		}
		double x = chart_px(c, xs[i]), y = chart_py(c, ys[i]);
		if (!open) {
			g_string_append_printf(s, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"",
					       st->colour, *st->dash ? " stroke-dasharray=\"" : "", st->dash,
					       *st->dash ? "\"" : "");
			open = true;
		}
		g_string_append_printf(s, "%.1f,%.1f ", x, y);
		if (step) {
			/* Held over the bin: to the next x (or as wide as the last bin). */
			double nx = i + 1 < n ? xs[i + 1] : (n > 1 ? xs[i] + (xs[i] - xs[i - 1]) : xs[i]);
			g_string_append_printf(s, "%.1f,%.1f ", chart_px(c, nx), y);
		}
	}
	if (open)
		g_string_append(s, "\"/>");
	for (size_t i = 0; markers && i < n; i++)
		if (!isnan(ys[i]))
			marker(s, st, chart_px(c, xs[i]), chart_py(c, ys[i]), NULL);
	g_string_append(s, "</g>\n");
}

void chart_point(struct chart *c, enum chart_style st, double x, double y, const char *tip)
{
	marker(c->s, &styles[st], chart_px(c, x), chart_py(c, y), tip);
	g_string_append_c(c->s, '\n');
}

void chart_hseg(struct chart *c, enum chart_style sti, double x0, double x1, double y, bool dashed, const char *label)
{
	const struct style *st = &styles[sti];
	double a = chart_px(c, x0), b = chart_px(c, x1), py = chart_py(c, y);
	const char *dash = dashed ? "6 4" : st->dash;
	g_string_append_printf(c->s, "<g class=\"hseg %s\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			       "stroke-width=\"3\"%s%s%s/>",
			       st->name, a, py, b, py, st->colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
	if (label && *label) {
		g_string_append_printf(c->s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" fill=\"%s\"" HALO ">",
				       (a + b) / 2, py - 5, st->colour);
		attr_text(c->s, label);
		g_string_append(c->s, "</text>");
	}
	g_string_append(c->s, "</g>\n");
}

void chart_vseg(struct chart *c, enum chart_style sti, double x, double y0, double y1, bool dashed)
{
	const struct style *st = &styles[sti];
	double px = chart_px(c, x);
	const char *dash = dashed ? "5 3" : st->dash;
	g_string_append_printf(c->s, "<line class=\"vseg %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			       "stroke-width=\"2\"%s%s%s/>\n",
			       st->name, px, chart_py(c, y0), px, chart_py(c, y1), st->colour, *dash ? " stroke-dasharray=\"" : "",
			       dash, *dash ? "\"" : "");
}

void chart_band(struct chart *c, enum chart_style sti, double x0, double x1, double y0, double y1, const char *tip)
{
	const struct style *st = &styles[sti];
	double a = chart_px(c, x0), b = chart_px(c, x1), ya = fmin(chart_py(c, y0), chart_py(c, y1)),
	       yb = fmax(chart_py(c, y0), chart_py(c, y1));
	g_string_append_printf(c->s, "<rect class=\"band %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			       "fill-opacity=\"0.22\" stroke=\"%s\" stroke-width=\"1\"%s>",
			       st->name, a < b ? a : b, ya, fabs(b - a), yb - ya, st->colour, st->colour,
			       sti == CHART_BAD ? " stroke-dasharray=\"3 2\"" : "");
	if (tip && *tip) {
		g_string_append(c->s, "<title>");
		attr_text(c->s, tip);
		g_string_append(c->s, "</title>");
	}
	g_string_append(c->s, "</rect>\n");
}

void chart_marks(struct chart *c, enum chart_style sti, unsigned row, const double *xs, size_t n, const char *label)
{
	const struct style *st = &styles[sti];
	double y = c->py + c->ph + BOTTOM + row * MARK_ROW + 4;
	GString *s = c->s;
	g_string_append_printf(s, "<g class=\"marks %s\" data-label=\"", st->name);
	attr_text(s, label);
	g_string_append_printf(s, "\"><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">", c->px - 5, y + 9);
	attr_text(s, label);
	g_string_append_printf(s, "</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#cccccc\"/>", c->px,
			       y + 6, c->px + c->pw, y + 6);
	for (size_t i = 0; i < n; i++) {
		double x = chart_px(c, xs[i]);
		g_string_append_printf(s, "<line class=\"tickmark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				       "stroke-width=\"1.5\"/>",
				       x, y, x, y + 12, st->colour);
	}
	/* The row's marker at its left tells it apart in greyscale. */
	marker(s, st, c->px + c->pw + 10, y + 6, NULL);
	g_string_append(s, "</g>\n");
}

void chart_text(struct chart *c, double x, double y, const char *anchor, const char *text)
{
	g_string_append_printf(c->s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"11\"" HALO ">", chart_px(c, x),
			       chart_py(c, y), anchor);
	attr_text(c->s, text);
	g_string_append(c->s, "</text>\n");
}

void chart_legend(struct chart *c, enum chart_style sti, bool dashed_line, const char *label)
{
	const struct style *st = &styles[sti];
	/* Entries side by side above the plot, a new row when one would pass
	 * the right edge (about 6.5 units a character). */
	double w = 40 + 6.5 * (double)g_utf8_strlen(label ? label : "", -1);
	if (c->n_legend && c->px + c->legend_x + w > c->width - 8) {
		c->legend_x = 0;
		c->legend_row++;
	}
	double x = c->px + c->legend_x;
	double y = 4 + c->legend_row * 14.0;
	c->legend_x += w;
	const char *dash = dashed_line ? "6 4" : st->dash;
	g_string_append_printf(c->legend, "<g class=\"legend %s\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			       "stroke=\"%s\" stroke-width=\"2\"%s%s%s/>",
			       st->name, x, y + 4, x + 22, y + 4, st->colour, *dash ? " stroke-dasharray=\"" : "", dash,
			       *dash ? "\"" : "");
	marker(c->legend, st, x + 11, y + 4, NULL);
	g_string_append_printf(c->legend, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 28, y + 8);
	attr_text(c->legend, label);
	g_string_append(c->legend, "</text></g>\n");
	c->n_legend++;
}

void chart_end(struct chart *c)
{
	g_string_append(c->s, c->legend->str);
	g_string_free(c->legend, TRUE);
	c->legend = NULL;
	g_string_append(c->s, "</svg>\n");
}
