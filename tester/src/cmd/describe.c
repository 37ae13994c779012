/* Findings as text, for lint and craft. */
#include "commands.h"

struct finding_counts print_finding_list(FILE *out, const struct roce_pkt *p, const struct roce_finding *f,
					 size_t n, const char *indent, size_t per_rule[ROCE_RULE_COUNT])
{
	struct finding_counts c = { n, 0 };
	for (size_t i = 0; i < n; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		if (ci->severity == ROCE_SEV_ERROR)
			c.errors++;
		if (per_rule)
			per_rule[ci->rule]++;
		if (!out)
			continue;
		char msg[256], extra[768];
		roce_finding_format(&f[i], msg, sizeof msg);
		roce_finding_context(p, &f[i], extra, sizeof extra);
		fprintf(out, "%s%-7s %s%s\n", indent, roce_severity_name(ci->severity), msg, extra);
	}
	return c;
}

struct finding_counts print_findings(FILE *out, const struct roce_pkt *p,
				     const struct roce_check_opts *opts, const char *indent,
				     size_t per_rule[ROCE_RULE_COUNT])
{
	struct roce_finding f[64];
	size_t n = roce_check(p, opts, f, 64);
	struct finding_counts c = print_finding_list(out, p, f, n > 64 ? 64 : n, indent, per_rule);
	c.total = n;
	return c;
}
