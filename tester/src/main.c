/*
 * roce-tester: the conformance side of the toolkit.
 *
 *     roce-tester craft ...   build packets or the sample captures
 *     roce-tester lint ...    validate RoCEv2 captures with libroce
 *     roce-tester rules       print the rule catalogue
 *     roce-tester run ...     run conformance cases against a DUT
 *     roce-tester coverage .. which rules the cases test (docs/coverage.md)
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *out)
{
	fputs("usage: roce-tester COMMAND [OPTIONS]\n"
	      "\n"
	      "Commands:\n"
	      "  craft   build RoCEv2 packets (or the sample captures) into a pcap\n"
	      "  lint    check every RoCEv2 packet of pcap files against the rules\n"
	      "  rules   print the rule catalogue\n"
	      "  run     run conformance cases against a DUT through its agent\n"
	      "  coverage  which rules of the catalogue the cases test (Markdown)\n"
	      "\n"
	      "Run 'roce-tester COMMAND --help' for a command's options.\n",
	      out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "craft"))
		return cmd_craft(argc - 1, argv + 1);
	if (!strcmp(cmd, "lint"))
		return cmd_lint(argc - 1, argv + 1);
	if (!strcmp(cmd, "rules"))
		return cmd_rules(argc - 1, argv + 1);
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "coverage"))
		return cmd_coverage(argc - 1, argv + 1);
	fprintf(stderr, "roce-tester: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
