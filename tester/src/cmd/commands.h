/* roce-tester's subcommands and the helpers they share. */
#ifndef ROCE_TESTER_COMMANDS_H
#define ROCE_TESTER_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/roce.h"

int cmd_craft(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_rules(int argc, char **argv);
/* rules --audit CASE-OR-DIR... (audit_cmd.c); argv holds the paths only. */
int cmd_rules_audit(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_coverage(int argc, char **argv);
int cmd_fuzz(int argc, char **argv);

/* Writes the sample captures and their .expect files into dir. */
int craft_samples(const char *dir);

struct finding_counts {
	size_t total, errors;
};

/* Checks a packet and prints its findings to out (unless NULL), one per line
 * after indent, with the ICRC diagnosis where the ICRC is bad; adds them up
 * per rule into per_rule (unless NULL). */
struct finding_counts print_findings(FILE *out, const struct roce_pkt *p,
				     const struct roce_check_opts *opts, const char *indent,
				     size_t per_rule[ROCE_RULE_COUNT]);
/* Prints findings already made (a check's and the flow analysis's) the
 * same way: severity, rule ID, message, and what libroce adds about this
 * packet (roce_finding_context). */
struct finding_counts print_finding_list(FILE *out, const struct roce_pkt *p, const struct roce_finding *f,
					 size_t n, const char *indent, size_t per_rule[ROCE_RULE_COUNT]);

#endif
