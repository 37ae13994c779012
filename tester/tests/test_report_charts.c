/*
 * The SVG chart writer (report_charts.c): tick steps and numbers here;
 * then charts of known data written to the directory given, with the data
 * beside them as JSON, for check_charts.py to parse as XML and hold the
 * drawing to the data (axes, labels, positions, styles).
 *
 * usage: test_report_charts DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_charts.h"

static int failures;

#define CHECK(cond, ...)                                       \
	do {                                                   \
		if (!(cond)) {                                 \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);          \
			fputc('\n', stderr);                   \
			failures++;                            \
		}                                              \
	} while (0)

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void ticks(void)
{
	static const struct {
		double span;
		double step;
	} t[] = { { 100, 20 }, { 7, 2 }, { 0.3, 0.1 }, { 1, 0.2 }, { 1e6, 200000 }, { 45, 10 }, { 0, 1 } };
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double s = chart_tick_step(t[i].span, 5);
		CHECK(fabs(s - t[i].step) < 1e-9 * t[i].step, "tick step of %g: %g, want %g", t[i].span, s, t[i].step);
	}
	char b[48];
	chart_number(b, sizeof b, 0.1 + 0.2);
	CHECK(!strcmp(b, "0.3"), "0.1 + 0.2 shown as %s", b);
	chart_number(b, sizeof b, 2500000);
	CHECK(!strcmp(b, "2.5e+06"), "2500000 shown as %s", b);
	chart_number(b, sizeof b, -1e-15);
	CHECK(!strcmp(b, "0"), "-1e-15 shown as %s", b);
}

/* A time chart: a stepped line broken by a missing value, a line with
 * markers, a segment, a band, marks on the time axis, a legend; the title
 * carries markup and a control character. */
static void time_chart(const char *dir)
{
	GString *o = g_string_new(NULL);
	struct chart c;
	chart_begin(&c, o, 720, 300, 2, "rate <of> \"q\" & \x01more", "desc with <markup> & 'quotes'");
	chart_axes(&c, 0, 93, "time (ms)", 0, 9.2, "rate (Mb/s)");
	CHECK(c.x0 == 0 && c.x1 == 100 && c.y0 == 0 && c.y1 == 10, "axes widened to %g..%g, %g..%g", c.x0, c.x1, c.y0, c.y1);
	const double xs[] = { 0, 10, 20, 30 }, ys[] = { 1, 5, NAN, 8 };
	chart_line(&c, CHART_S1, xs, ys, 4, true, false, "binned");
	const double x2[] = { 5, 15, 25 }, y2[] = { 2, 4, 6 };
	chart_line(&c, CHART_S2, x2, y2, 3, false, true, "pace");
	chart_hseg(&c, CHART_S4, 40, 60, 7, false, "$before = 7 Mb/s");
	chart_band(&c, CHART_GOOD, 70, 90, 1, 3, "allowed");
	const double m[] = { 5, 50, 95 };
	chart_marks(&c, CHART_S2, 0, m, 3, "CNP to DUT");
	const double m2[] = { 12.5 };
	chart_marks(&c, CHART_S3, 1, m2, 1, "CE to DUT");
	chart_legend(&c, CHART_S1, false, "binned");
	chart_legend(&c, CHART_S2, false, "pace");
	chart_legend(&c, CHART_S4, false, "measured");
	chart_end(&c);
	write_file(dir, "time.svg", o->str);
	write_file(dir, "time.json",
		   "{\"x\": [0, 100], \"y\": [0, 10], \"xlabel\": \"time (ms)\", \"ylabel\": \"rate (Mb/s)\","
		   " \"title\": \"rate <of> \\\"q\\\" & \\ufffdmore\","
		   " \"lines\": {\"s1\": {\"step\": true, \"x\": [0, 10, 20, 30], \"y\": [1, 5, null, 8]},"
		   "            \"s2\": {\"step\": false, \"x\": [5, 15, 25], \"y\": [2, 4, 6]}},"
		   " \"hseg\": {\"s4\": [40, 60, 7]}, \"band\": {\"good\": [70, 90, 1, 3]},"
		   " \"marks\": {\"CNP to DUT\": [5, 50, 95], \"CE to DUT\": [12.5]},"
		   " \"legend\": [\"binned\", \"pace\", \"measured\"]}\n");
	g_string_free(o, TRUE);
}

/* A chart of rows (timers): row labels, a band and a point per row. */
static void rows_chart(const char *dir)
{
	GString *o = g_string_new(NULL);
	struct chart c;
	chart_begin(&c, o, 760, 200, 0, "timers", "rows");
	chart_left(&c, 250);
	const char *labels[] = { "IPv4 retransmission 1 (line 17)", "IPv6 retransmission 1 (line 17)", "IPv6 $wait <2>" };
	chart_axes_rows(&c, 0, 290, "time since the previous event (ms)", labels, 3);
	const double v[] = { 67.1, 70.2, 300 };
	for (int i = 0; i < 3; i++) {
		chart_band(&c, CHART_GOOD, 60, 290, i - 0.3, i + 0.3, "window");
		chart_point(&c, v[i] <= 290 ? CHART_S1 : CHART_BAD, v[i], i, "value");
	}
	chart_end(&c);
	write_file(dir, "rows.svg", o->str);
	write_file(dir, "rows.json",
		   "{\"x\": [0, 300], \"rows\": [\"IPv4 retransmission 1 (line 17)\", \"IPv6 retransmission 1 (line 17)\","
		   " \"IPv6 $wait <2>\"], \"band\": [60, 290], \"values\": [67.1, 70.2, 300], \"left\": 250}\n");
	g_string_free(o, TRUE);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_report_charts DIR\n");
		return 2;
	}
	ticks();
	time_chart(argv[1]);
	rows_chart(argv[1]);
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	else
		printf("test_report_charts: ok (charts in %s)\n", argv[1]);
	return failures ? 1 : 0;
}
