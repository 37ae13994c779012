/*
 * `roce-tester rules`: prints the rule catalogue, as text or as the
 * Markdown of docs/rules.md (libroce writes both; a test keeps the file in
 * step with the code).
 */
#include <string.h>

#include "commands.h"

int cmd_rules(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--audit"))
		return cmd_rules_audit(argc - 2, argv + 2);
	bool markdown = argc > 1 && !strcmp(argv[1], "--markdown");
	if (argc > 1 && !markdown) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			puts("usage: roce-tester rules [--markdown]\n"
			     "       roce-tester rules --audit CASE-OR-DIR...\n\n"
			     "Prints the rule catalogue: every rule ID with its severity, where a\n"
			     "violation can be seen, whom it binds and how strongly (must, should,\n"
			     "may), the spec reference and the libroce codes that report it.\n"
			     "With --audit, the Markdown of docs/rule-audit.md: every rule with the\n"
			     "cases that cite it and what breaking it yields there (fail, or\n"
			     "informative where the DUT plays no role the rule binds), and every\n"
			     "case with the rules it judges and those it only reports.");
			return 0;
		}
		fprintf(stderr, "roce-tester rules: unknown option '%s'\n", argv[1]);
		return 2;
	}
	if (markdown) {
		roce_rules_markdown(stdout);
		return 0;
	}
	char scope[64], binds[96];
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		roce_rule_scope_text(ri->scope, scope, sizeof scope);
		roce_roles_format(ri->binds, binds, sizeof binds);
		printf("%-20s %-7s %-20s %-6s %-40s %s\n", ri->id, roce_severity_name(ri->severity), scope,
		       roce_strength_name(ri->strength), binds, ri->title);
	}
	return 0;
}
