/*
 * `roce-tester rules`: prints the rule catalogue, as text or as the
 * Markdown of docs/rules.md (libroce writes both; a test keeps the file in
 * step with the code).
 */
#include <string.h>

#include "commands.h"

int cmd_rules(int argc, char **argv)
{
	bool markdown = argc > 1 && !strcmp(argv[1], "--markdown");
	if (argc > 1 && !markdown) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			puts("usage: roce-tester rules [--markdown]\n\n"
			     "Prints the rule catalogue: every rule ID with its severity, where a\n"
			     "violation can be seen, the spec reference and the libroce codes that\n"
			     "report it.");
			return 0;
		}
		fprintf(stderr, "roce-tester rules: unknown option '%s'\n", argv[1]);
		return 2;
	}
	if (markdown) {
		roce_rules_markdown(stdout);
		return 0;
	}
	char scope[64];
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		roce_rule_scope_text(ri->scope, scope, sizeof scope);
		printf("%-20s %-7s %-20s %s\n", ri->id, roce_severity_name(ri->severity), scope, ri->title);
	}
	return 0;
}
