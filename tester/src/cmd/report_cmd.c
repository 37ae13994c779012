/*
 * `roce-tester report`: rebuilds report.html and junit.xml from a run's
 * results.json (and prints it to PDF), or compares two runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "report_html_charts.h"
#include "term.h"

/* Exit codes, also in docs/reports.md and roce-tester(1). */
#define EXIT_OK 0
#define EXIT_REGRESSIONS 1
#define EXIT_USAGE 2
#define EXIT_NO_BROWSER 3
#define EXIT_PDF_FAILED 4

#define PDF_TIMEOUT_DEFAULT 600

static void usage(FILE *out)
{
	fputs("usage: roce-tester report [OPTIONS] DIR|RESULTS.json\n"
	      "       roce-tester report --compare [-o DIR] OLD NEW\n"
	      "\n"
	      "Rebuilds report.html (the compliance report) and junit.xml from a run's\n"
	      "results.json (DIR is a report directory holding one), or compares two runs\n"
	      "(each a report directory or a results.json): regressions, fixes, new and\n"
	      "removed cases, other changes, and rules newly broken or fixed.\n"
	      "\n"
	      "Options:\n"
	      "  -o, --output-dir DIR  write the reports here (default: beside results.json);\n"
	      "                        with --compare, DIR/compare.html: the verdict changes\n"
	      "                        per rule and the measured values that moved, as charts\n"
	      "      --pdf             also write report-print.html, the print version\n"
	      "                        (every verdict, the full evidence of each case that\n"
	      "                        did not pass), and print it to report.pdf with a\n"
	      "                        headless Chromium (Debian package chromium)\n"
	      "      --pdf-full        the same, with every case in full\n"
	      "      --pdf-timeout S   stop the browser after S seconds (default 600)\n"
	      "      --compare         compare the run OLD with the run NEW\n"
	      "      --color WHEN      auto (default: on a terminal, unless NO_COLOR is set),\n"
	      "                        always or never\n"
	      "  -q, --quiet           print only the summary line (--compare), or nothing\n"
	      "  -v, --verbose         also list the unchanged cases (--compare)\n"
	      "  -h, --help            this help\n"
	      "\n"
	      "A regression is a case (matched by ID and IP version) that passed or was not\n"
	      "applicable and now fails or ends in error, or that ended in error and now\n"
	      "fails; a fix is a failed or erred case that now passes.\n"
	      "\n"
	      "Exit status: 0 reports written, or no regression; 1 --compare found a\n"
	      "regression; 2 bad usage, or a results file that cannot be read or a report\n"
	      "that cannot be written (the message says which and why); 3 --pdf found no\n"
	      "headless Chromium (the HTML reports are written); 4 the browser failed or\n"
	      "timed out.\n",
	      out);
}

/* report-print.html, then report.pdf from it. */
static int write_pdf(const struct report_run *run, const char *dir, bool full, unsigned timeout_s, enum verbosity verb)
{
	char err[1024];
	gchar *print = g_build_filename(dir, REPORT_PRINT_HTML, NULL);
	gchar *pdf = g_build_filename(dir, REPORT_PDF, NULL);
	int rc = EXIT_OK;
	if (report_write_html_print(run, print, full, err, sizeof err) != 0) {
		fprintf(stderr, "roce-tester report: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (verb != VERB_QUIET)
		printf("print: %s\n", print);
	/* A PDF of an earlier print would disagree with this one. */
	unlink(pdf);
	switch (report_print_pdf(print, pdf, timeout_s, err, sizeof err)) {
	case REPORT_PDF_OK:
		if (verb != VERB_QUIET)
			printf("pdf:   %s\n", pdf);
		break;
	case REPORT_PDF_NO_BROWSER:
		fprintf(stderr, "roce-tester report: --pdf: %s. Meanwhile %s can be printed from any browser.\n", err,
			print);
		rc = EXIT_NO_BROWSER;
		break;
	case REPORT_PDF_FAILED:
		fprintf(stderr, "roce-tester report: --pdf: %s\n", err);
		rc = EXIT_PDF_FAILED;
		break;
	}
out:
	g_free(print);
	g_free(pdf);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	const char *outdir = NULL;
	bool compare = false;
	enum verbosity verb = VERB_NORMAL;
	enum colour_mode cm = COLOUR_AUTO;
	bool pdf = false, pdf_full = false;
	unsigned pdf_timeout = PDF_TIMEOUT_DEFAULT;
	enum { O_COMPARE = 256, O_COLOR, O_PDF, O_PDF_FULL, O_PDF_TIMEOUT };
	static const struct option longopts[] = {
		{ "output-dir", required_argument, NULL, 'o' }, { "compare", no_argument, NULL, O_COMPARE },
		{ "color", required_argument, NULL, O_COLOR },  { "colour", required_argument, NULL, O_COLOR },
		{ "quiet", no_argument, NULL, 'q' },            { "verbose", no_argument, NULL, 'v' },
		{ "pdf", no_argument, NULL, O_PDF },            { "pdf-full", no_argument, NULL, O_PDF_FULL },
		{ "pdf-timeout", required_argument, NULL, O_PDF_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },             { NULL, 0, NULL, 0 },
	};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o': outdir = optarg; break;
		case O_COMPARE: compare = true; break;
		case O_PDF: pdf = true; break;
		case O_PDF_FULL: pdf = pdf_full = true; break;
		case O_PDF_TIMEOUT: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v < 1 || v > 86400) {
				fprintf(stderr, "roce-tester report: --pdf-timeout %s: expected seconds, 1 to 86400\n", optarg);
				return EXIT_USAGE;
			}
			pdf_timeout = (unsigned)v;
			break;
		}
		case O_COLOR:
			if (!colour_mode_parse(optarg, &cm)) {
				fprintf(stderr, "roce-tester report: --color %s: expected auto, always or never\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'q': verb = VERB_QUIET; break;
		case 'v': verb = VERB_VERBOSE; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	int nargs = argc - optind;
	char err[1024];
	if (compare) {
		if (nargs != 2 || pdf) {
			fputs("roce-tester report: --compare takes two runs, OLD and NEW, and no --pdf\n", stderr);
			usage(stderr);
			return EXIT_USAGE;
		}
		struct report_run a, b;
		if (report_load(argv[optind], &a, err, sizeof err) != 0) {
			fprintf(stderr, "roce-tester report: %s\n", err);
			return EXIT_USAGE;
		}
		if (report_load(argv[optind + 1], &b, err, sizeof err) != 0) {
			fprintf(stderr, "roce-tester report: %s\n", err);
			report_run_free(&a);
			return EXIT_USAGE;
		}
		struct report_diff_counts n;
		report_compare(&a, &b, stdout, colour_wanted(stdout, cm), verb, &n);
		int rc = n.regressions ? EXIT_REGRESSIONS : EXIT_OK;
		if (outdir) {
			gchar *path = g_build_filename(outdir, REPORT_COMPARE_HTML, NULL);
			if (g_mkdir_with_parents(outdir, 0755) != 0) {
				fprintf(stderr, "roce-tester report: %s: %s\n", outdir, g_strerror(errno));
				rc = EXIT_USAGE;
			} else if (report_compare_html(&a, &b, path, err, sizeof err) != 0) {
				fprintf(stderr, "roce-tester report: %s\n", err);
				rc = EXIT_USAGE;
			} else if (verb != VERB_QUIET) {
				printf("comparison: %s\n", path);
			}
			g_free(path);
		}
		report_run_free(&a);
		report_run_free(&b);
		return rc;
	}
	if (nargs != 1) {
		fputs(nargs ? "roce-tester report: one run at a time (or --compare OLD NEW)\n"
			    : "roce-tester report: no run given; expected a report directory or a results.json\n",
		      stderr);
		usage(stderr);
		return EXIT_USAGE;
	}
	struct report_run run;
	if (report_load(argv[optind], &run, err, sizeof err) != 0) {
		fprintf(stderr, "roce-tester report: %s\n", err);
		return EXIT_USAGE;
	}
	gchar *dir = outdir ? g_strdup(outdir) : g_path_get_dirname(run.path);
	if (outdir && mkdir(outdir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "roce-tester report: --output-dir %s: %s\n", outdir, strerror(errno));
		g_free(dir);
		report_run_free(&run);
		return EXIT_USAGE;
	}
	gchar *junit = g_build_filename(dir, REPORT_JUNIT, NULL);
	gchar *html = g_build_filename(dir, REPORT_HTML, NULL);
	int rc = EXIT_OK;
	if (report_write_junit(&run, junit, err, sizeof err) != 0 || report_write_html(&run, html, err, sizeof err) != 0) {
		fprintf(stderr, "roce-tester report: %s\n", err);
		rc = EXIT_USAGE;
	} else {
		if (verb != VERB_QUIET)
			printf("report: %s\njunit: %s\n", html, junit);
		if (pdf)
			rc = write_pdf(&run, dir, pdf_full, pdf_timeout, verb);
	}
	g_free(junit);
	g_free(html);
	g_free(dir);
	report_run_free(&run);
	return rc;
}
