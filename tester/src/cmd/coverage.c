/* Coverage of the rule catalogue by parsed cases (coverage.h). */
#include "coverage.h"

#include <stdlib.h>
#include <string.h>

unsigned coverage_case_dirs(const struct cl_case *c)
{
	unsigned dirs = 0;
	for (unsigned i = 0; i < c->n_steps; i++) {
		const struct cl_step *s = &c->steps[i];
		if (s->kind == CL_DUT_POST_SEND)
			dirs |= COV_REQUESTER;
		else if (s->kind == CL_PEER_OP)
			dirs |= COV_RESPONDER;
		else if (s->kind == CL_INJECT && s->opcode >= 0 &&
			 (roce_opcode((uint8_t)s->opcode)->flags & ROCE_OPF_REQUEST))
			dirs |= COV_RESPONDER;
		else if (s->kind == CL_DUT_PORT || s->kind == CL_DUT_GIDS || s->kind == CL_DUT_RAW_QP ||
			 s->kind == CL_EXPECT_EVENT || s->kind == CL_EXPECT_NO_EVENT || s->kind == CL_DUT_QUERY_SRQ ||
			 s->kind == CL_DUT_BIND || (s->kind == CL_DUT_ATTACH && cl_step_checks(s)))
			dirs |= COV_DEVICE; /* the steps judged as the device's (caseroles.c) */
	}
	return dirs;
}

unsigned coverage_case_ips(const struct cl_case *c)
{
	unsigned ips = c->ip_versions;
	for (unsigned i = 0; i < c->n_steps; i++) {
		const struct cl_step *s = &c->steps[i];
		const struct cl_arg *ip = s->kind == CL_DUT_QP ? s->a.dut_qp.ip.arg : NULL;
		if (ip && ip->v.kind == CL_V_EXPR && ip->v.expr.n == 1 && !ip->v.expr.terms[0].is_sym)
			ips |= 1u << ip->v.expr.terms[0].num;
	}
	return ips;
}

void coverage_build(struct coverage *cv, struct cl_case *const *cases, size_t n)
{
	memset(cv, 0, sizeof *cv);
	cv->cases = calloc(n ? n : 1, sizeof *cv->cases);
	if (!cv->cases)
		abort();
	cv->n_cases = n;
	for (size_t i = 0; i < n; i++) {
		struct cov_case *cc = &cv->cases[i];
		cc->c = cases[i];
		cc->ips = coverage_case_ips(cases[i]);
		cc->dirs = coverage_case_dirs(cases[i]);
		for (unsigned k = 0; k < cases[i]->n_rules; k++) {
			enum roce_rule r = roce_rule_by_id(cases[i]->rules[k]);
			if (r == ROCE_RULE_NONE)
				continue;
			/* A rule limited to one IP version counts only there. */
			unsigned ips = cc->ips & cases[i]->rule_ips[k];
			struct cov_rule *cr = &cv->rules[r];
			struct cov_use *u = realloc(cr->uses, (cr->n_uses + 1) * sizeof *u);
			if (!u)
				abort();
			cr->uses = u;
			cr->uses[cr->n_uses].case_index = (unsigned)i;
			cr->uses[cr->n_uses].ips = ips;
			cr->n_uses++;
			cr->ips |= ips;
			cr->dirs |= cc->dirs;
		}
	}
}

void coverage_free(struct coverage *cv)
{
	for (unsigned r = 0; r < ROCE_RULE_COUNT; r++)
		free(cv->rules[r].uses);
	free(cv->cases);
	memset(cv, 0, sizeof *cv);
}
