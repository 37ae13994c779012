/*
 * Findings a case provokes on purpose. A case that injects an unusual
 * request (an access crossing an invalidation, a retry at a strange PSN)
 * and expects the DUT's answer to it can draw warnings from the packet
 * checks on that answer: they describe what the case set up, not
 * something the DUT did of its own accord. Such a finding stays in the
 * case's record, marked "provoked" with why, and the reports show it
 * with the case instead of among the DUT's issues.
 *
 * A finding is provoked when it is not an error (an error fails the case
 * and stays an issue wherever it came from), a step of the case took the
 * DUT packet it is about as what it expected, and either
 *   - its rule is one the case tests: the case judges that rule on that
 *     packet itself, and its verdict says what the finding would; or
 *   - the flow analysis raised it on the DUT's answer to a packet the
 *     case injected: the relation it judges is the one the case built.
 * A stateless finding on such an answer (a reserved bit, a wrong ICRC)
 * is about the DUT's own packet and is never provoked by the request.
 */
#include "runner_ctx.h"

static bool flow_finding(const struct run_ctx *x, guint k)
{
	for (guint i = 0; i < x->flow_findings->len; i++)
		if (g_array_index(x->flow_findings, struct flow_finding, i).k == k)
			return true;
	return false;
}

static bool case_tests(const struct run_ctx *x, const char *rule)
{
	for (unsigned i = 0; i < x->c->n_rules; i++)
		if (cl_rule_applies(x->c, i, x->ipv) && !strcmp(x->c->rules[i], rule))
			return true;
	return false;
}

/* Why finding k (of the packet at idx) was provoked, or false. */
static bool provoked(const struct run_ctx *x, guint k, JsonObject *f, long idx, char *why, size_t n)
{
	const struct case_pkt *p = &x->pkts[idx];
	if (p->tx || !p->matched)
		return false;
	const char *rule = json_object_get_string_member(f, "rule");
	if (*rule && case_tests(x, rule)) {
		outf(why, n, "the case tests %s, and step %d judged this packet", rule, p->matched);
		return true;
	}
	if (flow_finding(x, k) && p->answers >= 0 && x->pkts[p->answers].injected) {
		outf(why, n, "the answer step %d expected to the packet the case injected in step %d", p->matched,
		     x->pkts[p->answers].step + 1);
		return true;
	}
	return false;
}

void mark_provoked_findings(struct run_ctx *x)
{
	for (guint k = 0; k < json_array_get_length(x->findings); k++) {
		JsonObject *f = json_array_get_object_element(x->findings, k);
		if (strcmp(json_object_get_string_member(f, "source"), "packet check") ||
		    !strcmp(json_object_get_string_member(f, "severity"), "error") || !json_object_has_member(f, "packet"))
			continue;
		gint64 idx = json_object_get_int_member(f, "packet");
		char why[200];
		if (idx >= 0 && (size_t)idx < x->n_pkts && provoked(x, k, f, (long)idx, why, sizeof why))
			json_object_set_string_member(f, "provoked", why);
	}
}
