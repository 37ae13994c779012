/*
 * Charts as inline SVG for the reports: no script, no fonts or images from
 * elsewhere, readable on screen, offline and in print. A chart has a plot
 * area with two linear axes (ticks at round values, labels with units)
 * and draws lines, steps, points, horizontal segments, bands and event
 * marks in it. Each series style pairs a colour with a dash pattern and
 * a marker shape, so that series stay apart in greyscale too.
 *
 *   struct chart c;
 *   chart_begin(&c, out, 720, 300, "The DUT's send rate", "...");
 *   chart_axes(&c, 0, 120, "time since the case started (ms)", 0, 10, "rate (Mb/s)");
 *   chart_line(&c, CHART_S1, xs, ys, n, true, "binned rate");
 *   chart_end(&c);
 */
#ifndef ROCE_TESTER_REPORT_CHARTS_H
#define ROCE_TESTER_REPORT_CHARTS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

/* Series styles: colour, dash pattern and marker. */
enum chart_style {
	CHART_S1,   /* dark blue, solid, circles */
	CHART_S2,   /* orange, dashed, triangles */
	CHART_S3,   /* green, dotted, squares */
	CHART_S4,   /* purple, dash-dot, diamonds */
	CHART_GOOD, /* a window or value that holds: green, light */
	CHART_BAD,  /* one that does not: red, with crosses */
	CHART_GREY, /* context: grey */
	CHART_STYLES
};

struct chart {
	GString *s;
	int width, height;
	/* The plot area, in SVG units. */
	double px, py, pw, ph;
	/* The axes' ranges (after chart_axes). */
	double x0, x1, y0, y1;
	bool rows; /* chart_axes_rows: y counts rows from the top */
	/* Legend entries so far. */
	GString *legend;
	unsigned n_legend, legend_row;
	double legend_x;
};

/* Opens <svg> with a title and a description (both escaped); the plot
 * area leaves room for the axes' labels and, below, for legend_rows rows
 * of event marks (chart_marks). */
void chart_begin(struct chart *c, GString *out, int width, int height, unsigned mark_rows, const char *title,
		 const char *desc);
/* Room for the y axis's labels left of the plot (before the axes). */
void chart_left(struct chart *c, int left);
/* The axes: ranges widened to round ticks (a range of zero width is
 * widened around its value), grid lines, tick labels and axis labels. */
void chart_axes(struct chart *c, double x0, double x1, const char *xlabel, double y0, double y1, const char *ylabel);
/* Axes for rows: x linear as above, y one row per label (row 0 at the
 * top); a row's centre is at y = row index (chart_py(c, i)). */
void chart_axes_rows(struct chart *c, double x0, double x1, const char *xlabel, const char *const *labels,
		     unsigned n);
/* Axes of categories both ways: x one column per xcats (column j at
 * x = j), y one row per label as chart_axes_rows. */
void chart_axes_grid(struct chart *c, const char *const *xcats, unsigned nx, const char *xlabel,
		     const char *const *labels, unsigned n);
/* A value's position in the plot (clamped to it). */
double chart_px(const struct chart *c, double x);
double chart_py(const struct chart *c, double y);
/* A polyline through n points; step: horizontal then vertical (a binned
 * series drawn as steps, each value held over its bin up to the next x).
 * Points whose y is NaN break the line. markers: the style's marker at
 * each point. */
void chart_line(struct chart *c, enum chart_style st, const double *xs, const double *ys, size_t n, bool step,
		bool markers, const char *label);
/* One marker at (x, y) with a tooltip. */
void chart_point(struct chart *c, enum chart_style st, double x, double y, const char *tip);
/* A horizontal segment from x0 to x1 at y, thick, with a text label above
 * its middle; dashed draws it dashed whatever the style. */
void chart_hseg(struct chart *c, enum chart_style st, double x0, double x1, double y, bool dashed, const char *label);
/* A vertical segment at x from y0 to y1 (data coordinates). */
void chart_vseg(struct chart *c, enum chart_style st, double x, double y0, double y1, bool dashed);
/* A shaded rectangle in data coordinates, behind later drawing. */
void chart_band(struct chart *c, enum chart_style st, double x0, double x1, double y0, double y1, const char *tip);
/* Event marks on the time axis: a row below the plot (row 0 first), a
 * short tick per x, the row named by label at its left. */
void chart_marks(struct chart *c, enum chart_style st, unsigned row, const double *xs, size_t n, const char *label);
/* Free text at a position in data coordinates (anchor: "start", "middle", "end"). */
void chart_text(struct chart *c, double x, double y, const char *anchor, const char *text);
/* A legend entry (drawn by chart_end, above the plot). */
void chart_legend(struct chart *c, enum chart_style st, bool dashed_line, const char *label);
/* Closes the SVG. */
void chart_end(struct chart *c);

/* Round tick spacing for a range: 1, 2 or 5 times a power of ten, giving
 * about `want` intervals. */
double chart_tick_step(double span, unsigned want);
/* A number as a short tick label ("0.5", "20", "1.2e+06"). */
void chart_number(char *buf, size_t n, double v);

#endif
