/* Findings as text, for lint and craft. */
#include "commands.h"

struct finding_counts print_findings(FILE *out, const struct roce_pkt *p,
				     const struct roce_check_opts *opts, const char *indent,
				     size_t per_rule[ROCE_RULE_COUNT])
{
	struct roce_finding f[64];
	size_t n = roce_check(p, opts, f, 64);
	struct finding_counts c = { n, 0 };
	if (n > 64)
		n = 64;
	for (size_t i = 0; i < n; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		if (ci->severity == ROCE_SEV_ERROR)
			c.errors++;
		if (per_rule)
			per_rule[ci->rule]++;
		if (!out)
			continue;
		char msg[256];
		roce_finding_format(&f[i], msg, sizeof msg);
		fprintf(out, "%s%-7s %s", indent, roce_severity_name(ci->severity), msg);
		char extra[512];
		roce_finding_context(p, &f[i], extra, sizeof extra);
		fprintf(out, "%s\n", extra);
	}
	return c;
}
