/*
 * The runner's measurements and checks: the DUT's packets counted and
 * timed over a window, the results of a step checked or bound, checks on
 * symbols (the DUT's counters among them), and the case's informative
 * findings (the DUT's counters held against the wire among them).
 */
#include "runner_ctx.h"
#include "counters.h"

/* A step's results (measure, load): RESULT=?x binds the value, RESULT OP
 * VALUE checks it; a check that does not hold fails the step. */
void step_results(struct run_ctx *x, const struct cl_step *s, struct step_out *o, const struct step_result *res,
		  size_t n)
{
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		for (size_t k = 0; a->result && k < n; k++) {
			if (res[k].key != a->id)
				continue;
			if (a->v.kind == CL_V_BIND) {
				sym_set_unit(x, a->v.word, NULL, res[k].value, res[k].unit);
				break;
			}
			uint64_t want;
			if (!eval(x, &a->v.expr, &want, o))
				return;
			if (!cmp_ok(a->cmp, res[k].value, want)) {
				char g[64], e[64];
				format_value(res[k].value, res[k].unit, g, sizeof g);
				format_value(want, res[k].unit, e, sizeof e);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "%s %s %s; ", a->key, cmp_text(a->cmp), e);
				g_string_append_printf(o->observed, "%s = %s; ", a->key, g);
			}
			break;
		}
	}
	if (o->st == S_FAIL)
		g_string_append_printf(o->observed, "[%s]", o->detail->str);
}

/* measure: the DUT's packets of a QP (of one opcode, or any) during a
 * window that starts at the previous step's event; counts, bytes, rate,
 * gaps. The packets measured are taken, like an expectation's. */
void step_measure(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t start = x->ref_ns;
	uint64_t end = start + s->within_max;
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	pump_until(x->r, -1, end, false);
	uint64_t count = 0, bytes = 0, first = 0, last = 0, min_gap = 0, max_gap = 0, prev = 0;
	for (size_t i = 0; i < x->n_pkts; i++) {
		struct case_pkt *p = &x->pkts[i];
		if (!dut_pkt_for(x, i, q) || p->ts_ns < start || p->ts_ns > end || !same_stream(s, p))
			continue;
		if (s->opcode >= 0) {
			struct roce_pkt pk;
			roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
			if (!pk.op || pk.opcode != s->opcode)
				continue;
		}
		p->consumed = true;
		if (o->n_pkts < 16)
			o->pkts[o->n_pkts++] = (long)i;
		annotate(x, (long)i, "measured by step %d (line %u)", x->cur_step + 1, s->loc.line);
		uint64_t t = p->ts_ns - start;
		if (count) {
			uint64_t gap = t - prev;
			if (count == 1 || gap < min_gap)
				min_gap = gap;
			if (gap > max_gap)
				max_gap = gap;
		} else {
			first = t;
		}
		prev = last = t;
		count++;
		bytes += p->len;
	}
	uint64_t window = end > start ? end - start : 1;
	uint64_t rate = (uint64_t)((double)bytes * 1e9 / (double)window);
	uint64_t pps = (uint64_t)((double)count * 1e9 / (double)window);
	char w[64], r[64], g1[64], g2[64];
	format_value(window, SYM_NS, w, sizeof w);
	format_value(rate, SYM_BYTES_PER_S, r, sizeof r);
	format_value(min_gap, SYM_NS, g1, sizeof g1);
	format_value(max_gap, SYM_NS, g2, sizeof g2);
	g_string_printf(o->detail, "%llu packet(s), %llu bytes in %s (%s, %llu pkt/s)", (unsigned long long)count,
	     (unsigned long long)bytes, w, r, (unsigned long long)pps);
	if (count > 1)
		g_string_append_printf(o->detail, "; gaps %s .. %s", g1, g2);
	x->ref_ns = end;
	series_measure(x, s, start, end, count, bytes, rate);
	const struct step_result res[] = { { CL_K_count, SYM_PLAIN, count }, { CL_K_bytes, SYM_BYTES, bytes },
					   { CL_K_rate, SYM_BYTES_PER_S, rate }, { CL_K_pps, SYM_PER_S, pps },
					   { CL_K_first, SYM_NS, first }, { CL_K_last, SYM_NS, last },
					   { CL_K_min_gap, SYM_NS, min_gap }, { CL_K_max_gap, SYM_NS, max_gap } };
	step_results(x, s, o, res, sizeof res / sizeof res[0]);
}

/* ---- Informative findings ---- */

/* A finding of the case itself: behaviour conforming devices differ on. */
void add_informative(struct run_ctx *x, const struct cl_step *s, const char *msg)
{
	JsonObject *j = json_object_new();
	const char *rule = s->info_rule;
	for (unsigned i = 0; !rule && i < x->c->n_rules; i++)
		if (cl_rule_applies(x->c, i, x->ipv))
			rule = x->c->rules[i];
	json_object_set_string_member(j, "rule", rule ? rule : x->c->rules[0]);
	json_object_set_string_member(j, "severity", "info");
	json_object_set_string_member(j, "message", msg);
	json_object_set_int_member(j, "step", x->cur_step + 1);
	json_object_set_int_member(j, "line", s->loc.line);
	json_object_set_string_member(j, "source", "case");
	json_array_add_object_element(x->findings, j);
	if (!x->n_informative++)
		x->first_informative = g_strdup(msg);
}

/* A check that did not hold where none of the case's rules binds the DUT
 * in the step's roles with a "must": an informative finding naming what
 * was expected and observed, and why it is not judged. */
void report_unbound_failure(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o)
{
	char why[512];
	cl_unbound_reason(x->c, x->ipv, s->roles, why, sizeof why);
	gchar *msg = g_strdup_printf("step %u (line %u) %s: expected %s; observed %s (not judged: %s)", i + 1,
				     s->loc.line, s->text, o->expected->str, o->observed->str, why);
	add_informative(x, s, msg);
	g_free(msg);
	o->st = S_OK;
	g_string_printf(o->detail, "does not hold, informative (not judged: %s)", why);
}

static void bind_counter(void *ctx, const char *member, uint64_t v)
{
	sym_set(ctx, "counters", member, v);
}

void step_check(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t a, b;
	/* $counters.MEANING: a fresh snapshot of the DUT's counters. */
	const struct cl_expr *ex[] = { &s->lhs, &s->rhs, &s->cond_lhs, &s->cond_rhs };
	GString *why = g_string_new(NULL);
	bool bound = case_counters_bind(x->counters, &x->r->agent, x->r->opts.agent_timeout_ns, ex, 4, bind_counter, x, why);
	if (!bound)
		g_string_printf(o->detail, "not checked: %s", why->str);
	g_string_free(why, TRUE);
	if (!bound)
		return;
	if (!eval(x, &s->lhs, &a, o) || !eval(x, &s->rhs, &b, o))
		return;
	char va[64], vb[64];
	gchar *ta = expr_text(&s->lhs), *tb = expr_text(&s->rhs);
	format_value(a, expr_unit(x, &s->lhs), va, sizeof va);
	format_value(b, expr_unit(x, &s->rhs), vb, sizeof vb);
	/* A constant right side is shown as written; anything else with
	 * its value too ("$before * 9 / 10 = 7.011 Mb/s"). */
	bool constant = s->rhs.n == 1 && !s->rhs.terms[0].is_sym && s->rhs.terms[0].mul <= 1 && s->rhs.terms[0].div <= 1;
	gchar *want = g_strdup_printf("%s %s%s%s", cmp_text(s->cmp), tb, constant ? "" : " = ", constant ? "" : vb);
	gchar *got = g_strdup_printf("%s = %s, expected %s", ta, va, want);
	uint64_t c1 = 0, c2 = 0;
	if (cmp_ok(s->cmp, a, b)) {
		g_string_printf(o->detail, "holds: %s", got);
	} else if (s->has_cond && (!eval(x, &s->cond_lhs, &c1, o) || !eval(x, &s->cond_rhs, &c2, o))) {
		/* eval() said why in o */
	} else if (s->else_inform && (!s->has_cond || cmp_ok(s->cond_cmp, c1, c2))) {
		gchar *msg = g_strdup_printf("%s (%s)", s->info_text, got);
		add_informative(x, s, msg);
		g_string_printf(o->detail, "does not hold, informative: %s", msg);
		g_free(msg);
	} else {
		o->st = S_FAIL;
		g_string_printf(o->expected, "%s %s", ta, want);
		g_string_printf(o->observed, "%s = %s", ta, va);
	}
	g_free(ta);
	g_free(tb);
	g_free(want);
	g_free(got);
}

void step_inform(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	GString *msg = g_string_new(s->info_text);
	for (unsigned i = 0; i < s->n_show; i++) {
		const struct cl_term *t = &s->show[i];
		const struct sym_val *sv = sym_find(x, t->sym, t->member);
		char val[64] = "no value";
		if (sv)
			format_value(sv->value, sv->unit, val, sizeof val);
		g_string_append_printf(msg, "%s%s%s%s = %s", i ? ", " : " (", t->sym, t->member ? "." : "",
				       t->member ? t->member : "", val);
	}
	if (s->n_show)
		g_string_append(msg, ")");
	add_informative(x, s, msg->str);
	g_string_printf(o->detail, "informative: %s", msg->str);
	g_string_free(msg, TRUE);
}

/* The DUT's counter deltas held against what the tester saw on the wire:
 * a disagreement is informative, never a failure. */
void check_counters(struct run_ctx *x)
{
	uint32_t qpns[MAX_QPS];
	for (unsigned i = 0; i < x->n_qps; i++)
		qpns[i] = x->qps[i].tester_qpn;
	struct counter_wire w;
	counter_wire_tally(x->pkts, x->n_pkts, qpns, x->n_qps, x->r->fam[0].ok ? x->r->fam[0].ip : NULL,
			   x->r->fam[1].ok ? x->r->fam[1].ip : NULL, case_counters_after_ns(x->counters),
			   !x->rx_unrecorded && x->n_pkts < MAX_CASE_PKTS, &w);
	gchar *first = NULL;
	x->n_informative += case_counters_check(x->counters, &w, x->findings, &first);
	if (first && !x->first_informative)
		x->first_informative = first;
	else
		g_free(first);
}
