/*
 * Steps a deviation elsewhere kept from their rule. The tester's engine,
 * as every conforming receiver, drops a packet whose ICRC is wrong
 * (peer_wire.c; CA17-24): when the DUT sent one on a QP, whatever was to
 * follow from it there (its response, its completion, the packets after
 * it) cannot come. A later step that fails on that QP is then not a
 * failure of the case's rules: the packet check has judged the ICRC
 * already (CA17-22, counted there once), and the step says what it could
 * not reach. A check of the dropped packet itself, or of one before it,
 * is judged as always.
 *
 * A precondition ('expect ... else unreached') that does not hold keeps
 * every rule of its case from being reached in the same way.
 */
#include "runner_ctx.h"

/* An 'else unreached' precondition that did not hold: an informative
 * finding that the case's rules were not reached, with what was expected
 * and observed, and why (the step's text). */
void report_precondition_unmet(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o)
{
	gchar *msg = g_strdup_printf("not reached: %s (step %u, line %u: expected %s; observed %s)", s->info_text, i + 1,
				     s->loc.line, o->expected->str, o->observed->str);
	add_informative(x, s, msg);
	o->st = S_OK;
	g_string_printf(o->detail, "the precondition does not hold: %s; the case's rules are not reached, and the case ends here", msg);
	g_free(msg);
}

/* The first DUT packet of the step's QP (of any QP of the case, for a step
 * that names none) recorded before the step's evidence whose ICRC is
 * wrong; -1 when there is none. */
static long dropped_before(struct run_ctx *x, const struct cl_step *s, const struct step_out *o)
{
	const struct case_qp *q = s->qp ? find_qp(x, s->qp) : NULL;
	size_t limit = x->n_pkts;
	for (unsigned k = 0; k < o->n_pkts; k++)
		if (o->pkts[k] >= 0 && (size_t)o->pkts[k] < limit)
			limit = (size_t)o->pkts[k];
	for (size_t i = 0; i < limit; i++) {
		const struct case_pkt *p = &x->pkts[i];
		if (p->tx || !p->qpn || (q ? p->qpn != q->tester_qpn : !qp_by_tester_qpn(x, p->qpn)))
			continue;
		struct roce_pkt pk;
		if (roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.op)
			continue;
		if (roce_icrc_check(&pk, NULL, NULL) == ROCE_ICRC_BAD)
			return (long)i;
	}
	return -1;
}

bool report_unreached(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o)
{
	long d = dropped_before(x, s, o);
	if (d < 0)
		return false;
	const struct case_pkt *p = &x->pkts[d];
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	const struct roce_rule_info *icrc = roce_rule(pk.rocev1 ? ROCE_RULE_A16_ROCEV1 : ROCE_RULE_CA17_22);
	gchar *why = g_strdup_printf("not reached: the DUT's %s PSN %u has a wrong ICRC "
				     "(%s, judged by the packet checks), so the tester dropped it as every receiver "
				     "must, and what this step expects could not follow from it",
				     pk.op->name, roce_bth_psn(roce_pkt_hdr(&pk, ROCE_H_BTH)), icrc->id);
	gchar *msg = g_strdup_printf("step %u (line %u) %s: expected %s; observed %s (%s)", i + 1, s->loc.line,
				     s->text, o->expected->str, o->observed->str, why);
	add_informative(x, s, msg);
	/* The dropped packet, by its capture frame (runner.c: "packet" becomes
	 * "frame" once the capture is written), for the reports to link. */
	json_object_set_int_member(json_array_get_object_element(x->findings, json_array_get_length(x->findings) - 1),
				   "packet", d);
	o->st = S_OK;
	g_string_printf(o->detail, "does not hold, %s", why);
	g_free(msg);
	g_free(why);
	return true;
}
