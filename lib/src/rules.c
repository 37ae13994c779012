/* The rule catalogue table, generated from rules.def. */
#include "roce/rules.h"

#include <stddef.h>
#include <string.h>

#define PKT ROCE_SCOPE_PKT
#define FLOW ROCE_SCOPE_FLOW
#define DUT ROCE_SCOPE_DUT
#define CM ROCE_SCOPE_CM
#define NONE ROCE_SCOPE_NONE

static const struct roce_rule_info rule_table[ROCE_RULE_COUNT] = {
#define ROCE_RULE(SYM, id, sev, scope, title, ref, reason) \
	[ROCE_RULE_##SYM] = { id, title, ROCE_SEV_##sev, (scope), ref, reason },
#include "roce/rules.def"
#undef ROCE_RULE
};

const struct roce_rule_info *roce_rule(enum roce_rule r)
{
	if (r <= ROCE_RULE_NONE || r >= ROCE_RULE_COUNT)
		return NULL;
	return &rule_table[r];
}

enum roce_rule roce_rule_by_id(const char *id)
{
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++)
		if (!strcmp(rule_table[r].id, id))
			return (enum roce_rule)r;
	return ROCE_RULE_NONE;
}

const char *roce_severity_name(enum roce_severity s)
{
	switch (s) {
	case ROCE_SEV_INFO: return "info";
	case ROCE_SEV_NOTE: return "note";
	case ROCE_SEV_WARN: return "warning";
	case ROCE_SEV_ERROR: return "error";
	}
	return "?";
}
