/*
 * `roce-tester fuzz`: the fuzzer (tester/src/fuzz/, docs/fuzz.md) against
 * the DUT its agent serves, then each finding's case file run by the
 * runner, as `roce-tester run` runs any case, into the report directory:
 * results.json (with the fuzzing's record as its "fuzz" member), the
 * capture of the cases, report.html and junit.xml.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "caselang.h"
#include "commands.h"
#include "fuzz.h"
#include "report.h"
#include "results.h"
#include "runner.h"

#define EXIT_NO_FINDING 0
#define EXIT_FINDING 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *out)
{
	fputs("usage: roce-tester fuzz --iface IF --agent HOST:PORT [OPTIONS]\n"
	      "\n"
	      "Plays a hostile peer of the DUT that the agent at HOST:PORT drives: sets up QPs of\n"
	      "every transport it offers and regions filled with known patterns, sends requests\n"
	      "mutated from valid ones, and judges every answer and the memory after each batch\n"
	      "(leak, wrong acceptance, hang, corruption; docs/fuzz.md). Each finding is reduced\n"
	      "to the shortest request sequence that still shows it and written as a case file,\n"
	      "which is then run like any case. Writes cases/, results.json, capture.pcapng,\n"
	      "report.html and junit.xml into the output directory.\n"
	      "\n"
	      "Options:\n"
	      "  -i, --iface IF          the tester's interface towards the DUT\n"
	      "  -a, --agent HOST:PORT   the roce-agent serving the DUT\n"
	      "  -t, --token-file FILE   the agent's shared token\n"
	      "  -o, --out DIR           where cases and reports go (default roce-fuzz)\n"
	      "  -d, --duration S        seconds of fuzzing (default 60)\n"
	      "  -s, --seed N            the generator's seed (default: from the clock, printed);\n"
	      "                          the same seed sends the same requests\n"
	      "  -r, --rate N            request packets per second at most (default 20000)\n"
	      "      --ip 4|6            the IP version (default 4)\n"
	      "      --vlan ID[:PCP]     send 802.1Q-tagged frames\n"
	      "      --dut-ip ADDR       use the DUT GID with this address\n"
	      "      --resolve kernel|self  how the DUT's MAC is found (as run's)\n"
	      "      --window MS         how long an answer is waited for (default: adaptive,\n"
	      "                          ten times the mean answer time, 2 to 100 ms)\n"
	      "      --reduce-time S     seconds spent reducing findings at most (default 60)\n"
	      "      --max-findings N    stop after N distinct findings (default 16)\n"
	      "      --console-log FILE  the DUT's kernel console to watch for warnings, oopses\n"
	      "                          and stalls (rxe: run-with-rxe's ROCE_RXE_SERIAL_LOG)\n"
	      "      --no-replay         write the case files but do not run them\n"
	      "      --log-requests FILE write each generated request to FILE, one line each\n"
	      "      --agent-timeout MS  bound on each agent call (default 10000)\n"
	      "  -q, --quiet             print only the summary line (not the seed, the progress\n"
	      "                          every 5 s and each finding as it is made)\n"
	      "  -h, --help              this help\n"
	      "\n"
	      "Prints one line: fuzz: N requests in S s (R/s), K findings.\n"
	      "Exit status: 0 no finding, 1 a finding, 2 bad usage or the DUT could not be set\n"
	      "up, 130 interrupted.\n",
	      out);
}

static bool number(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/* Runs the findings' case files with the runner, as `roce-tester run`
 * would, adding their records to the results. */
static void replay_cases(struct fuzz_result *fr, const struct runner_opts *ro, struct results *res, const char *dir,
			 JsonObject **setup)
{
	char err[1024];
	struct runner *r = calloc(1, sizeof *r);
	if (!r)
		abort();
	if (runner_init(r, ro, &stop, err, sizeof err) != 0) {
		fprintf(stderr, "roce-tester fuzz: the cases cannot be run: %s\n", err);
		runner_fini(r);
		free(r);
		return;
	}
	gchar *cap = g_strdup_printf("%s/capture.pcapng", dir);
	r->cap = capture_open(cap, ro->iface, "roce-tester fuzz: the findings' cases", err, sizeof err);
	g_free(cap);
	for (size_t i = 0; i < fr->n_cases && !stop; i++) {
		struct cl_diag d;
		struct cl_case *c = cl_parse_file(fr->cases[i].path, &d);
		if (!c) {
			fprintf(stderr, "roce-tester fuzz: %s\n", d.msg);
			fuzz_record_case_verdict(fr->record, fr->cases[i].finding, "error", d.msg);
			continue;
		}
		int ipv = (c->ip_versions & (1u << 6)) && !(c->ip_versions & (1u << 4)) ? 6 : 4;
		enum verdict v;
		JsonObject *rec = runner_run_case(r, c, ipv, &v);
		const char *reason = json_object_has_member(rec, "reason") ? json_object_get_string_member(rec, "reason") : "";
		fuzz_record_case_verdict(fr->record, fr->cases[i].finding, verdict_name(v), reason);
		printf("case %s: %s%s%s\n", c->id, verdict_name(v), reason[0] ? "  " : "", reason);
		results_add_case(res, rec, v);
		cl_case_free(c);
	}
	if (*setup)
		json_object_unref(*setup);
	*setup = runner_setup_json(r);
	if (r->cap)
		capture_close(r->cap, err, sizeof err);
	r->cap = NULL;
	runner_fini(r);
	free(r);
}

int cmd_fuzz(int argc, char **argv)
{
	struct fuzz_opts o = { 0 };
	o.ip_version = 4;
	o.vlan = -1;
	o.duration_ns = 60ull * 1000000000;
	o.rate = 20000;
	o.agent_timeout_ns = 10000ull * 1000000;
	o.reduce_ns = 60ull * 1000000000;
	o.max_findings = 16;
	o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	const char *dir = "roce-fuzz";
	bool replay = true;
	enum { O_IP = 256, O_VLAN, O_DUTIP, O_RESOLVE, O_WINDOW, O_REDUCE, O_MAXF, O_CONSOLE, O_NOREPLAY, O_ATO, O_LOGREQ };
	static const struct option longopts[] = {
		{ "iface", required_argument, NULL, 'i' },      { "agent", required_argument, NULL, 'a' },
		{ "token-file", required_argument, NULL, 't' }, { "out", required_argument, NULL, 'o' },
		{ "report-dir", required_argument, NULL, 'o' }, { "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },       { "rate", required_argument, NULL, 'r' },
		{ "ip", required_argument, NULL, O_IP },        { "vlan", required_argument, NULL, O_VLAN },
		{ "dut-ip", required_argument, NULL, O_DUTIP }, { "resolve", required_argument, NULL, O_RESOLVE },
		{ "window", required_argument, NULL, O_WINDOW }, { "reduce-time", required_argument, NULL, O_REDUCE },
		{ "max-findings", required_argument, NULL, O_MAXF }, { "console-log", required_argument, NULL, O_CONSOLE },
		{ "no-replay", no_argument, NULL, O_NOREPLAY }, { "agent-timeout", required_argument, NULL, O_ATO },
		{ "log-requests", required_argument, NULL, O_LOGREQ },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },             { NULL, 0, NULL, 0 },
	};
	int ch;
	uint64_t v;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "i:a:t:o:d:s:r:qh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'i': o.iface = optarg; break;
		case 'a': o.agent = optarg; break;
		case 't': o.token_file = optarg; break;
		case 'o': dir = optarg; break;
		case 'd':
			if (!number(optarg, 1, 86400, &v)) {
				fprintf(stderr, "roce-tester fuzz: --duration %s: expected seconds (1-86400)\n", optarg);
				return EXIT_USAGE;
			}
			o.duration_ns = v * 1000000000;
			break;
		case 's':
			if (!number(optarg, 0, UINT64_MAX, &o.seed)) {
				fprintf(stderr, "roce-tester fuzz: --seed %s: expected a number\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			if (!number(optarg, 1, 10000000, &v)) {
				fprintf(stderr, "roce-tester fuzz: --rate %s: expected requests per second (1-10000000)\n", optarg);
				return EXIT_USAGE;
			}
			o.rate = (unsigned)v;
			break;
		case O_IP:
			if (strcmp(optarg, "4") && strcmp(optarg, "6")) {
				fprintf(stderr, "roce-tester fuzz: --ip %s: expected 4 or 6\n", optarg);
				return EXIT_USAGE;
			}
			o.ip_version = atoi(optarg);
			break;
		case O_VLAN: {
			char *end;
			long id = strtol(optarg, &end, 10), pcp = 0;
			if (*end == ':')
				pcp = strtol(end + 1, &end, 10);
			if (*end || id < 0 || id > 4094 || pcp < 0 || pcp > 7) {
				fprintf(stderr, "roce-tester fuzz: --vlan %s: expected ID (0-4094) or ID:PCP (PCP 0-7)\n", optarg);
				return EXIT_USAGE;
			}
			o.vlan = (int)id;
			o.vlan_pcp = (int)pcp;
			break;
		}
		case O_DUTIP: o.dut_ip = optarg; break;
		case O_RESOLVE:
			if (strcmp(optarg, "kernel") && strcmp(optarg, "self")) {
				fprintf(stderr, "roce-tester fuzz: --resolve %s: expected kernel or self\n", optarg);
				return EXIT_USAGE;
			}
			o.resolve_self = !strcmp(optarg, "self");
			break;
		case O_WINDOW:
			if (!number(optarg, 1, 10000, &v)) {
				fprintf(stderr, "roce-tester fuzz: --window %s: expected milliseconds (1-10000)\n", optarg);
				return EXIT_USAGE;
			}
			o.window_ns = v * 1000000;
			break;
		case O_REDUCE:
			if (!number(optarg, 0, 86400, &v)) {
				fprintf(stderr, "roce-tester fuzz: --reduce-time %s: expected seconds (0-86400)\n", optarg);
				return EXIT_USAGE;
			}
			o.reduce_ns = v * 1000000000;
			break;
		case O_MAXF:
			if (!number(optarg, 1, 32, &v)) {
				fprintf(stderr, "roce-tester fuzz: --max-findings %s: expected 1-32\n", optarg);
				return EXIT_USAGE;
			}
			o.max_findings = (unsigned)v;
			break;
		case O_CONSOLE: o.console_log = optarg; break;
		case O_NOREPLAY: replay = false; break;
		case O_LOGREQ: o.request_log = optarg; break;
		case O_ATO:
			if (!number(optarg, 1, 600000, &v)) {
				fprintf(stderr, "roce-tester fuzz: --agent-timeout %s: expected milliseconds (1-600000)\n", optarg);
				return EXIT_USAGE;
			}
			o.agent_timeout_ns = v * 1000000;
			break;
		case 'q': o.quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "roce-tester fuzz: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!o.iface || !o.agent) {
		fputs("roce-tester fuzz: --iface and --agent are required\n", stderr);
		return EXIT_USAGE;
	}
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "roce-tester fuzz: --out %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	gchar *case_dir = g_build_filename(dir, "cases", NULL);
	o.case_dir = case_dir;
	o.stop = &stop;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!o.quiet)
		printf("roce-tester fuzz: seed 0x%llx\n", (unsigned long long)o.seed);
	fflush(stdout);

	struct fuzz_result fr;
	int rc = fuzz_run(&o, &fr);
	if (rc != 0) {
		fprintf(stderr, "roce-tester fuzz: %s\n", fr.err);
		fuzz_result_free(&fr);
		g_free(case_dir);
		return EXIT_USAGE;
	}
	double s = (double)fr.elapsed_ns / 1e9;
	printf("fuzz: %llu requests in %.1f s (%.0f/s), %u findings\n", (unsigned long long)fr.requests, s,
	       s > 0 ? (double)fr.requests / s : 0.0, fr.findings);
	fflush(stdout);

	gchar *res_path = g_build_filename(dir, REPORT_RESULTS, NULL);
	struct results *res = results_new(res_path, argc, argv, "capture.pcapng");
	JsonObject *setup = fr.setup ? json_object_ref(fr.setup) : NULL;
	if (replay && fr.n_cases && !fr.dut_wedged && !stop) {
		struct runner_opts ro = { 0 };
		ro.iface = o.iface;
		ro.agent = o.agent;
		ro.token_file = o.token_file;
		ro.vlan = o.vlan;
		ro.vlan_pcp = o.vlan_pcp;
		ro.ip_versions = 1u << o.ip_version;
		ro.tstamp = RAWIO_TS_HOST;
		ro.agent_timeout_ns = o.agent_timeout_ns;
		ro.default_wait_ns = 1000ull * 1000000;
		ro.resolve_self = o.resolve_self;
		ro.quiet = true;
		replay_cases(&fr, &ro, res, dir, &setup);
	} else if (fr.n_cases && fr.dut_wedged) {
		printf("fuzz: the DUT stopped answering: its %zu case(s) were written, not run\n", fr.n_cases);
	}
	results_set_extra(res, "fuzz", fr.record);
	char err[1024];
	if (results_write(res, setup, true, stop != 0, err, sizeof err) != 0)
		fprintf(stderr, "roce-tester fuzz: %s\n", err);
	else if (report_write_all(res_path, dir, err, sizeof err) != 0)
		fprintf(stderr, "roce-tester fuzz: reports: %s\n", err);
	if (!o.quiet) {
		for (size_t i = 0; i < fr.n_cases; i++)
			printf("case file: %s\n", fr.cases[i].path);
		printf("results: %s\nreport:  %s/%s\n", res_path, dir, REPORT_HTML);
	}
	if (setup)
		json_object_unref(setup);
	results_free(res);
	g_free(res_path);
	unsigned findings = fr.findings;
	fuzz_result_free(&fr);
	g_free(case_dir);
	return stop ? EXIT_INTERRUPTED : findings ? EXIT_FINDING : EXIT_NO_FINDING;
}
