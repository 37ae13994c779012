/*
 * `roce-tester run`: finds and parses the cases, filters them, runs each
 * against the DUT (once per IP version), and writes the results file and
 * the annotated capture into the report directory.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "casefiles.h"
#include "commands.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "term.h"

/* Exit codes, also in docs/tester.md. */
#define EXIT_ALL_PASS 0
#define EXIT_SOME_FAIL 1
#define EXIT_USAGE 2
#define EXIT_SOME_ERROR 3
#define EXIT_INTERRUPTED 130

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *out)
{
	fputs("usage: roce-tester run --iface IF --agent HOST:PORT [OPTIONS] CASE-OR-DIR...\n"
	      "       roce-tester run --list|--check [--filter PAT] CASE-OR-DIR...\n"
	      "\n"
	      "Runs conformance cases (docs/case-language.md) against the DUT that the agent\n"
	      "at HOST:PORT drives, playing its remote peer on interface IF. Writes\n"
	      "results.json, capture.pcapng, report.html and junit.xml into the report\n"
	      "directory (docs/reports.md).\n"
	      "\n"
	      "Options:\n"
	      "  -i, --iface IF          the tester's interface towards the DUT\n"
	      "  -a, --agent HOST:PORT   the roce-agent serving the DUT\n"
	      "  -t, --token-file FILE   the agent's shared token\n"
	      "  -r, --report-dir DIR    where the results, capture and reports go (default\n"
	      "                          roce-report)\n"
	      "  -f, --filter PAT        run only cases whose ID, file or a rule ID matches the\n"
	      "                          glob PAT (repeatable; any match selects)\n"
	      "      --ip 4|6|both       IP versions to run each case over (default both)\n"
	      "      --vlan ID[:PCP]     send 802.1Q-tagged frames\n"
	      "      --dut-ipv4 ADDR, --dut-ipv6 ADDR\n"
	      "                          use the DUT GID with this address\n"
	      "      --resolve kernel|self  find the DUT's MAC in the kernel's neighbour table\n"
	      "                          first (default), or only by ARP / Neighbour\n"
	      "                          Solicitation from the tester\n"
	      "      --tstamp host|adapter  receive timestamps (default host: the clock the\n"
	      "                          send times use; adapter needs CAP_NET_ADMIN)\n"
	      "      --agent-timeout MS  bound on each agent call (default 10000)\n"
	      "      --wait MS           bound on an expectation without 'within' (default 1000)\n"
	      "      --record-frames N   DUT frames a case records and captures at most; the rest of a\n"
	      "                          flood is counted (default 50000)\n"
	      "      --list              list the selected cases and exit\n"
	      "      --check             parse the cases, report errors, and exit\n"
	      "      --list-mutants      print FILE, ID, fault profile, required capabilities\n"
	      "                          and the verdict the fault must give (fail or\n"
	      "                          informative), tab-separated, for every 'mutants'\n"
	      "                          entry (for the mutation test) and exit\n"
	      "      --color WHEN        auto (default: on a terminal, unless NO_COLOR is set),\n"
	      "                          always or never\n"
	      "  -q, --quiet             print only the summary\n"
	      "  -v, --verbose           print every step, and the evidence of failures\n"
	      "  -h, --help              this help\n"
	      "\n"
	      "Exit status: 0 every case passed or was not applicable, 1 a case failed,\n"
	      "2 bad usage or case files, 3 a case ended in error (set-up problem) and\n"
	      "none failed, 130 interrupted.\n",
	      out);
}

static bool selected(const struct cl_case *c, char **filters, unsigned nf)
{
	if (!nf)
		return true;
	for (unsigned i = 0; i < nf; i++) {
		if (!fnmatch(filters[i], c->id, 0) || !fnmatch(filters[i], c->path, 0))
			return true;
		for (unsigned k = 0; k < c->n_rules; k++)
			if (!fnmatch(filters[i], c->rules[k], 0))
				return true;
	}
	return false;
}

/* One line per case run; with -v its steps and the evidence of a failure. */
static void print_case(struct progress *pg, JsonObject *rec, enum verdict v, size_t done, size_t total, int width,
		       bool colour, bool verbose)
{
	GString *t = g_string_new(NULL);
	const char *vn = verdict_name(v);
	char d[48]; /* two 64-bit numbers and a unit */
	gint64 ns = json_object_get_int_member(rec, "duration_ns");
	if (ns >= 1000000000) {
		gint64 cs = (ns + 5000000) / 10000000; /* hundredths of a second, rounded */
		snprintf(d, sizeof d, "%lld.%02lld s", (long long)(cs / 100), (long long)(cs % 100));
	} else {
		gint64 ds = (ns + 50000) / 100000; /* tenths of a millisecond */
		snprintf(d, sizeof d, "%lld.%lld ms", (long long)(ds / 10), (long long)(ds % 10));
	}
	g_string_append_printf(t, "[%*zu/%zu] %s%-14s%s %-32s IPv%d %9s", width, done, total,
			       tc(colour, verdict_colour(vn)), v == V_NOT_APPLICABLE ? "not applicable" : vn,
			       tc(colour, TC_RESET), json_object_get_string_member(rec, "id"),
			       (int)json_object_get_int_member(rec, "ip_version"), d);
	if (v != V_PASS)
		g_string_append_printf(t, "  %s", json_object_get_string_member(rec, "reason"));
	g_string_append_c(t, '\n');
	if (verbose) {
		JsonArray *steps = json_object_get_array_member(rec, "steps");
		for (guint k = 0; k < json_array_get_length(steps); k++) {
			JsonObject *s = json_array_get_object_element(steps, k);
			const char *st = json_object_get_string_member(s, "status");
			g_string_append_printf(t, "      %3lld %s%-14s%s %s\n", (long long)json_object_get_int_member(s, "index"),
					       tc(colour, strcmp(st, "ok") ? verdict_colour(st) : TC_DIM), st, tc(colour, TC_RESET),
					       json_object_get_string_member(s, "text"));
		}
		JsonArray *ev = json_object_get_array_member(rec, "evidence");
		for (guint k = 0; k < json_array_get_length(ev); k++) {
			JsonObject *e = json_array_get_object_element(ev, k);
			g_string_append_printf(t, "      expected %s\n      observed %s\n      frames",
					       json_object_get_string_member(e, "expected"),
					       json_object_get_string_member(e, "observed"));
			JsonArray *fr = json_object_get_array_member(e, "frames");
			for (guint f = 0; fr && f < json_array_get_length(fr); f++)
				g_string_append_printf(t, " %lld", (long long)json_array_get_int_element(fr, f));
			g_string_append(t, "\n");
		}
	}
	progress_print(pg, t->str);
	g_string_free(t, TRUE);
}

int cmd_run(int argc, char **argv)
{
	struct runner_opts o = { 0 };
	o.vlan = -1;
	o.ip_versions = (1u << 4) | (1u << 6);
	o.tstamp = RAWIO_TS_HOST;
	o.agent_timeout_ns = 10000ull * 1000000;
	o.default_wait_ns = 1000ull * 1000000;
	const char *report_dir = "roce-report";
	char *filters[64];
	unsigned nf = 0;
	bool list = false, check = false, list_mutants = false;
	enum colour_mode cm = COLOUR_AUTO;
	enum { O_IP = 256, O_VLAN, O_TSTAMP, O_ATO, O_WAIT, O_LIST, O_CHECK, O_DUT4, O_DUT6, O_MUTANTS, O_RESOLVE, O_COLOR, O_RECORD };
	static const struct option longopts[] = {
		{ "iface", required_argument, NULL, 'i' },     { "agent", required_argument, NULL, 'a' },
		{ "token-file", required_argument, NULL, 't' }, { "report-dir", required_argument, NULL, 'r' },
		{ "filter", required_argument, NULL, 'f' },    { "ip", required_argument, NULL, O_IP },
		{ "vlan", required_argument, NULL, O_VLAN },   { "tstamp", required_argument, NULL, O_TSTAMP },
		{ "agent-timeout", required_argument, NULL, O_ATO }, { "wait", required_argument, NULL, O_WAIT },
		{ "dut-ipv4", required_argument, NULL, O_DUT4 }, { "dut-ipv6", required_argument, NULL, O_DUT6 },
		{ "list", no_argument, NULL, O_LIST },         { "check", no_argument, NULL, O_CHECK },
		{ "list-mutants", no_argument, NULL, O_MUTANTS }, { "resolve", required_argument, NULL, O_RESOLVE },
		{ "color", required_argument, NULL, O_COLOR }, { "colour", required_argument, NULL, O_COLOR },
		{ "record-frames", required_argument, NULL, O_RECORD },
		{ "quiet", no_argument, NULL, 'q' },           { "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },            { NULL, 0, NULL, 0 },
	};
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:a:t:r:f:qvh", longopts, NULL)) != -1) {
		char *end;
		switch (ch) {
		case 'i': o.iface = optarg; break;
		case 'a': o.agent = optarg; break;
		case 't': o.token_file = optarg; break;
		case 'r': report_dir = optarg; break;
		case 'f':
			if (nf == 64) {
				fputs("roce-tester run: at most 64 --filter\n", stderr);
				return EXIT_USAGE;
			}
			filters[nf++] = optarg;
			break;
		case O_IP:
			if (!strcmp(optarg, "4"))
				o.ip_versions = 1u << 4;
			else if (!strcmp(optarg, "6"))
				o.ip_versions = 1u << 6;
			else if (!strcmp(optarg, "both"))
				o.ip_versions = (1u << 4) | (1u << 6);
			else {
				fprintf(stderr, "roce-tester run: --ip %s: expected 4, 6 or both\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_VLAN: {
			long id = strtol(optarg, &end, 10);
			long pcp = 0;
			if (*end == ':')
				pcp = strtol(end + 1, &end, 10);
			if (*end || id < 0 || id > 4094 || pcp < 0 || pcp > 7) {
				fprintf(stderr, "roce-tester run: --vlan %s: expected ID (0-4094) or ID:PCP (PCP 0-7)\n", optarg);
				return EXIT_USAGE;
			}
			o.vlan = (int)id;
			o.vlan_pcp = (int)pcp;
			break;
		}
		case O_TSTAMP:
			if (!strcmp(optarg, "host"))
				o.tstamp = RAWIO_TS_HOST;
			else if (!strcmp(optarg, "adapter"))
				o.tstamp = RAWIO_TS_ADAPTER;
			else {
				fprintf(stderr, "roce-tester run: --tstamp %s: expected host or adapter\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case O_ATO:
		case O_WAIT: {
			long ms = strtol(optarg, &end, 10);
			if (*end || ms <= 0 || ms > 600000) {
				fprintf(stderr, "roce-tester run: %s %s: expected milliseconds (1-600000)\n",
					ch == O_ATO ? "--agent-timeout" : "--wait", optarg);
				return EXIT_USAGE;
			}
			if (ch == O_ATO)
				o.agent_timeout_ns = (uint64_t)ms * 1000000;
			else
				o.default_wait_ns = (uint64_t)ms * 1000000;
			break;
		}
		case O_RECORD: {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 100 || n > 1000000) {
				fprintf(stderr, "roce-tester run: --record-frames %s: expected a count of frames (100-1000000)\n",
					optarg);
				return EXIT_USAGE;
			}
			o.record_frames = (unsigned)n;
			break;
		}
		case O_DUT4: o.dut_ip4 = optarg; break;
		case O_DUT6: o.dut_ip6 = optarg; break;
		case O_LIST: list = true; break;
		case O_CHECK: check = true; break;
		case O_MUTANTS: list_mutants = true; break;
		case O_RESOLVE:
			if (strcmp(optarg, "kernel") && strcmp(optarg, "self")) {
				fprintf(stderr, "roce-tester run: --resolve %s: expected kernel or self\n", optarg);
				return EXIT_USAGE;
			}
			o.resolve_self = !strcmp(optarg, "self");
			break;
		case O_COLOR:
			if (!colour_mode_parse(optarg, &cm)) {
				fprintf(stderr, "roce-tester run: --color %s: expected auto, always or never\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'q': o.quiet = true; break;
		case 'v': o.verbose = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs("roce-tester run: no cases given; expected case files or directories\n", stderr);
		usage(stderr);
		return EXIT_USAGE;
	}
	struct case_files files = { 0 };
	int rc = 0;
	if (case_files_collect(&files, argv + optind, argc - optind, "roce-tester run") != 0)
		rc = EXIT_USAGE;
	struct cl_case **cases = calloc(files.n ? files.n : 1, sizeof *cases);
	size_t n_cases = 0, bad = 0;
	for (size_t i = 0; i < files.n; i++) {
		struct cl_diag d;
		struct cl_case *c = cl_parse_file(files.paths[i], &d);
		if (!c) {
			fprintf(stderr, "%s\n", d.msg);
			bad++;
			continue;
		}
		for (size_t k = 0; k < n_cases; k++) {
			if (!strcmp(cases[k]->id, c->id)) {
				fprintf(stderr, "%s:%u:%u: case ID %s is already used by %s; expected unique IDs\n", c->path,
					c->id_loc.line, c->id_loc.col, c->id, cases[k]->path);
				bad++;
			}
		}
		if (selected(c, filters, nf))
			cases[n_cases++] = c;
		else
			cl_case_free(c);
	}
	if (bad || rc) {
		fprintf(stderr, "roce-tester run: %zu case file(s) with errors; nothing was run\n", bad);
		rc = EXIT_USAGE;
		goto out;
	}
	if (list || check || list_mutants) {
		for (size_t i = 0; i < n_cases; i++) {
			char caps[CL_CAPS_TEXT];
			cl_caps_format(cases[i]->caps, caps, sizeof caps);
			for (unsigned k = 0; list_mutants && k < cases[i]->n_mutants; k++)
				printf("%s\t%s\t%s\t%s\t%s\n", cases[i]->path, cases[i]->id, cases[i]->mutants[k], caps[0] ? caps : "-",
				       cases[i]->mutant_informative[k] ? "informative" : "fail");
			if (list) {
				printf("%-32s %s\n", cases[i]->id, cases[i]->title);
				if (o.verbose) {
					printf("%-32s   file %s, rules", "", cases[i]->path);
					for (unsigned k = 0; k < cases[i]->n_rules; k++)
						printf(" %s", cases[i]->rules[k]);
					printf("\n");
					/* Each check with the DUT's roles there: what a
					 * failure is judged against (caseroles.c). */
					for (unsigned k = 0; k < cases[i]->n_steps; k++) {
						const struct cl_step *st = &cases[i]->steps[k];
						char roles[96];
						if (cl_step_checks(st) && st->unreached)
							printf("%-32s   line %u, precondition (not judged): %s\n", "", st->loc.line, st->text);
						else if (cl_step_checks(st))
							printf("%-32s   line %u, as %s%s: %s\n", "", st->loc.line,
							       roce_roles_format(st->roles, roles, sizeof roles),
							       st->roles_explicit ? " (written)" : "", st->text);
					}
				}
			}
		}
		if (check)
			printf("%zu case(s) parsed without errors\n", n_cases);
		rc = 0;
		goto out;
	}
	if (!o.iface || !o.agent) {
		fputs("roce-tester run: --iface and --agent are required to run cases\n", stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	if (mkdir(report_dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "roce-tester run: --report-dir %s: %s\n", report_dir, strerror(errno));
		rc = EXIT_USAGE;
		goto out;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: waits wake up */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	char err[1024];
	struct runner *r = calloc(1, sizeof *r);
	if (!r)
		abort();
	if (runner_init(r, &o, &stop, err, sizeof err) != 0) {
		fprintf(stderr, "roce-tester run: %s\n", err);
		runner_fini(r);
		free(r);
		rc = EXIT_USAGE;
		goto out;
	}
	gchar *cap_path = g_strdup_printf("%s/capture.pcapng", report_dir);
	gchar *res_path = g_strdup_printf("%s/" REPORT_RESULTS, report_dir);
	gchar *html_path = g_strdup_printf("%s/" REPORT_HTML, report_dir);
	gchar *junit_path = g_strdup_printf("%s/" REPORT_JUNIT, report_dir);
	/* Reports of an earlier run in this directory would disagree with the
	 * results of this one until it ends. */
	unlink(html_path);
	unlink(junit_path);
	/* And so would a print of them (report --pdf). */
	static const char *const printed[] = { REPORT_PRINT_HTML, REPORT_PDF };
	for (size_t i = 0; i < G_N_ELEMENTS(printed); i++) {
		gchar *p = g_build_filename(report_dir, printed[i], NULL);
		unlink(p);
		g_free(p);
	}
	gchar *desc = g_strdup_printf("roce-tester run: %zu case(s) on %s against the agent at %s", n_cases, o.iface,
				      o.agent);
	r->cap = capture_open(cap_path, o.iface, desc, err, sizeof err);
	g_free(desc);
	if (!r->cap) {
		fprintf(stderr, "roce-tester run: %s\n", err);
		runner_fini(r);
		free(r);
		rc = EXIT_USAGE;
		g_free(cap_path);
		g_free(res_path);
		g_free(html_path);
		g_free(junit_path);
		goto out;
	}
	struct results *res = results_new(res_path, argc, argv, "capture.pcapng");
	size_t total = 0, done = 0;
	for (size_t i = 0; i < n_cases; i++)
		total += (size_t)__builtin_popcount(cases[i]->ip_versions & o.ip_versions);
	bool colour = colour_wanted(stdout, cm);
	struct progress *pg = progress_new(stdout, colour, !o.quiet && isatty(STDOUT_FILENO), (unsigned)total);
	if (r->io.guard_note[0] && !o.quiet) {
		char note[600]; /* guard_note is 256 bytes */
		snprintf(note, sizeof note, "roce-tester run: note: %s\n", r->io.guard_note);
		progress_message(pg, stderr, note);
	}
	int width = total >= 100 ? 3 : total >= 10 ? 2 : 1;
	for (size_t i = 0; i < n_cases && !stop; i++) {
		for (int ipv = 4; ipv <= 6 && !stop; ipv += 2) {
			if (!(cases[i]->ip_versions & o.ip_versions & (1u << ipv)))
				continue;
			done++;
			progress_case_start(pg, cases[i]->id, ipv);
			enum verdict v;
			JsonObject *rec = runner_run_case(r, cases[i], ipv, &v);
			if (!o.quiet)
				print_case(pg, rec, v, done, total, width, colour, o.verbose);
			progress_count(pg, verdict_name(v));
			results_add_case(res, rec, v);
			JsonObject *setup = runner_setup_json(r);
			if (results_write(res, setup, false, false, err, sizeof err) != 0) {
				char msg[1200]; /* err is 1024 bytes */
				snprintf(msg, sizeof msg, "roce-tester run: %s\n", err);
				progress_message(pg, stderr, msg);
			}
			json_object_unref(setup);
		}
	}
	progress_free(pg);
	JsonObject *setup = runner_setup_json(r);
	int werr = results_write(res, setup, true, stop != 0, err, sizeof err);
	json_object_unref(setup);
	if (werr)
		fprintf(stderr, "roce-tester run: %s\n", err);
	uint64_t frames = capture_frames(r->cap);
	if (capture_close(r->cap, err, sizeof err) != 0)
		fprintf(stderr, "roce-tester run: capture: %s\n", err);
	r->cap = NULL;
	/* The HTML and JUnit reports are built from the file just written,
	 * exactly as `roce-tester report` would. */
	int rerr = werr ? -1 : report_write_all(res_path, report_dir, err, sizeof err);
	if (rerr && !werr)
		fprintf(stderr, "roce-tester run: reports: %s\n", err);
	unsigned counts[V_COUNT];
	results_counts(res, counts);
	printf("%s%s%u case run(s): %u pass, %u informative, %u fail, %u not applicable, %u error%s\n", tc(colour, TC_BOLD),
	       stop ? "interrupted: " : "",
	       counts[V_PASS] + counts[V_INFORMATIVE] + counts[V_FAIL] + counts[V_NOT_APPLICABLE] + counts[V_ERROR],
	       counts[V_PASS], counts[V_INFORMATIVE], counts[V_FAIL], counts[V_NOT_APPLICABLE], counts[V_ERROR],
	       tc(colour, TC_RESET));
	printf("results: %s\ncapture: %s (%llu frames)\n", res_path, cap_path, (unsigned long long)frames);
	if (!rerr)
		printf("report:  %s\njunit:   %s\n", html_path, junit_path);
	results_free(res);
	runner_fini(r);
	free(r);
	rc = stop ? EXIT_INTERRUPTED : counts[V_FAIL] ? EXIT_SOME_FAIL : counts[V_ERROR] ? EXIT_SOME_ERROR : EXIT_ALL_PASS;
	if ((werr || rerr) && rc == EXIT_ALL_PASS)
		rc = EXIT_SOME_ERROR;
	g_free(cap_path);
	g_free(res_path);
	g_free(html_path);
	g_free(junit_path);
out:
	for (size_t i = 0; i < n_cases; i++)
		cl_case_free(cases[i]);
	free(cases);
	case_files_free(&files);
	return rc;
}
