/*
 * roce-tester: the conformance side of the toolkit.
 *
 *     roce-tester run ...     run conformance cases against a DUT
 *     roce-tester fuzz ...    play a hostile peer of the DUT (docs/fuzz.md)
 *     roce-tester report ...  rebuild the reports of a run, compare two runs
 *     roce-tester craft ...   build packets or the sample captures
 *     roce-tester lint ...    validate RoCEv2 captures with libroce
 *     roce-tester rules       print the rule catalogue
 *     roce-tester coverage .. which rules the cases test (docs/coverage.md)
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *out)
{
	fputs("usage: roce-tester COMMAND [OPTIONS]\n"
	      "       roce-tester help COMMAND | --help | --version\n"
	      "\n"
	      "RoCEv2 conformance testing: plays the remote peer of an RDMA NIC (the DUT)\n"
	      "on an Ethernet interface, drives the DUT through roce-agent, and reports a\n"
	      "verdict per case and per rule with evidence.\n"
	      "\n"
	      "Commands:\n"
	      "  run     run conformance cases against a DUT through its agent, writing\n"
	      "          results.json, capture.pcapng, report.html and junit.xml\n"
	      "  fuzz    send the DUT requests mutated from valid ones and judge its answers\n"
	      "          and memory (leaks, wrong acceptance, hangs, corruption); each\n"
	      "          finding becomes a case file that reproduces it\n"
	      "  report  rebuild report.html and junit.xml from results.json, or compare\n"
	      "          two runs (regressions, fixes, new cases)\n"
	      "  craft   build RoCEv2 packets (or the sample captures) into a pcap\n"
	      "  lint    check every RoCEv2 packet of pcap files against the rules\n"
	      "  rules   print the rule catalogue\n"
	      "  coverage\n"
	      "          which rules of the catalogue the cases test (Markdown)\n"
	      "\n"
	      "Run 'roce-tester COMMAND --help' for a command's options; the manual is\n"
	      "roce-tester(1).\n",
	      out);
}

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "run", cmd_run },	{ "report", cmd_report }, { "craft", cmd_craft },
	{ "lint", cmd_lint },	{ "rules", cmd_rules },	  { "coverage", cmd_coverage },
	{ "fuzz", cmd_fuzz },
};

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || (!strcmp(cmd, "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("roce-tester %s\n", ROCE_TESTER_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		const struct command *c = find(argv[2]);
		if (!c) {
			fprintf(stderr, "roce-tester: unknown command '%s'; expected run, fuzz, report, craft, lint, rules or coverage\n", argv[2]);
			return 2;
		}
		char *args[] = { (char *)c->name, "--help", NULL };
		return c->fn(2, args);
	}
	const struct command *c = find(cmd);
	if (c)
		return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "roce-tester: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
