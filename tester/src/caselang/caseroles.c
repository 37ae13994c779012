/*
 * The DUT's role in each step of a case, and which of the case's rules
 * bind it there. A case fails only when the DUT, in the role it plays in
 * the failing step, breaks a "must" that binds that role (the guide's
 * "Verdicts users can trust"): a sender's rule broken by what the DUT
 * accepts as a receiver, or a "should", is reported, not judged.
 *
 * The role comes from the step itself where it can: a packet the DUT sent
 * makes it that packet's sender (and requester or responder by its
 * opcode); a step that watches for silence, completions, memory or state
 * takes the role of its stimulus, the last thing done to the DUT before
 * it. A step can say its roles itself ('as receiver').
 */
#include <stdio.h>
#include <string.h>

#include "caselang.h"
#include "roce/roce.h"
#include "text.h"

bool cl_step_checks(const struct cl_step *s)
{
	switch (s->kind) {
	case CL_EXPECT_PKT:
	case CL_EXPECT_NOTHING:
	case CL_EXPECT_COMPLETION:
	case CL_EXPECT_NO_COMPLETION:
	case CL_EXPECT_PEER:
	case CL_EXPECT_MEM:
	case CL_DUT_READ:
	case CL_DUT_QUERY:
	case CL_CHECK:
	case CL_MEASURE:
	case CL_LOAD:
	case CL_EXPECT_JOIN:
	case CL_EXPECT_NO_JOIN:
	case CL_EXPECT_LEAVE:
	case CL_EXPECT_EVENT:
	case CL_EXPECT_NO_EVENT:
	case CL_DUT_QUERY_SRQ:
	case CL_DUT_BIND:
	case CL_DUT_PORT:
	case CL_DUT_GIDS:
	case CL_DUT_RAW_QP:
		return true;
	case CL_DUT_ATTACH: /* with an MLID (CA17-30) or '-> refused': the verb's answer is judged */
		return s->a.dut_attach.lid.arg != NULL || s->a.dut_attach.refused.arg != NULL;
	default:
		return false;
	}
}

/* The steps whose role is theirs alone, not their stimulus': a CM join's
 * or leave's report is the connection manager's; an asynchronous event,
 * an SRQ's state and the answer to an attach are the device's. 0 for the
 * others. */
static unsigned own_roles(const struct cl_step *s)
{
	switch (s->kind) {
	case CL_EXPECT_JOIN:
	case CL_EXPECT_NO_JOIN:
	case CL_EXPECT_LEAVE:
		return ROCE_ROLE_CM;
	case CL_EXPECT_EVENT:
	case CL_EXPECT_NO_EVENT:
	case CL_DUT_QUERY_SRQ:
	case CL_DUT_BIND: /* a bind, and a refused rebind, are the device's */
	case CL_DUT_PORT: /* the port's attributes, GID table and QP types */
	case CL_DUT_GIDS:
	case CL_DUT_RAW_QP:
	case CL_DUT_ATTACH:
		return ROCE_ROLE_DEVICE;
	default:
		return 0;
	}
}

/* A response opcode (ACK, READ response, Atomic ACK): the responder's. */
static bool is_response(int opcode)
{
	const struct roce_opcode_info *oi = opcode >= 0 ? roce_opcode((uint8_t)opcode) : NULL;
	return oi && oi->name && (oi->kind == ROCE_K_ACK || oi->kind == ROCE_K_READ_RESP || oi->kind == ROCE_K_ATOMIC_ACK);
}

/* The roles a packet the DUT sends gives it. */
static unsigned sent_roles(const struct cl_step *s)
{
	if (s->group) /* a datagram to a multicast group: its sender */
		return ROCE_ROLE_SENDER;
	if (s->cm_attr)
		return ROCE_ROLE_CM | ROCE_ROLE_SENDER;
	if (s->opcode == ROCE_OP_CNP) /* a notification point answering CE marks */
		return ROCE_ROLE_SENDER | ROCE_ROLE_RECEIVER;
	if (is_response(s->opcode))
		return ROCE_ROLE_SENDER | ROCE_ROLE_RESPONDER | ROCE_ROLE_RECEIVER;
	return ROCE_ROLE_SENDER | ROCE_ROLE_REQUESTER;
}

/* The roles a stimulus gives the DUT; 0 when the step is none. */
static unsigned stimulus_roles(const struct cl_step *s)
{
	switch (s->kind) {
	case CL_INJECT:
		if (s->group) /* a group's datagram: the DUT receives, nobody answers */
			return ROCE_ROLE_RECEIVER;
		if (s->cm_attr)
			return ROCE_ROLE_CM | ROCE_ROLE_RECEIVER;
		if (s->opcode == ROCE_OP_CNP) /* a reaction point: its requests slow down */
			return ROCE_ROLE_RECEIVER | ROCE_ROLE_REQUESTER;
		if (is_response(s->opcode))
			return ROCE_ROLE_RECEIVER | ROCE_ROLE_REQUESTER;
		return ROCE_ROLE_RECEIVER | ROCE_ROLE_RESPONDER;
	case CL_PEER_OP:
	case CL_LOAD:
		return ROCE_ROLE_RECEIVER | ROCE_ROLE_RESPONDER;
	case CL_DUT_LISTEN:
	case CL_DUT_JOIN:
	case CL_DUT_LEAVE:
		return ROCE_ROLE_CM;
	case CL_DUT_POST_SEND:
		return s->group ? ROCE_ROLE_SENDER : ROCE_ROLE_SENDER | ROCE_ROLE_REQUESTER;
	default:
		return 0;
	}
}

static bool same_qp(const struct cl_step *a, const struct cl_step *b)
{
	return !a->qp || !b->qp || !strcmp(a->qp, b->qp);
}

void cl_derive_roles(struct cl_case *c)
{
	for (unsigned i = 0; i < c->n_steps; i++) {
		struct cl_step *s = &c->steps[i];
		if (!cl_step_checks(s) || s->roles_explicit)
			continue;
		if (own_roles(s)) {
			s->roles = own_roles(s);
			continue;
		}
		if ((s->kind == CL_EXPECT_PKT || s->kind == CL_MEASURE) && (s->opcode >= 0 || s->cm_attr)) {
			s->roles = sent_roles(s);
			continue;
		}
		if (s->kind == CL_LOAD) { /* its own stimulus: the DUT answers the load */
			s->roles = stimulus_roles(s);
			continue;
		}
		/* The stimulus: the last one on the step's QP, else the last. */
		unsigned roles = 0, any = 0;
		for (unsigned k = i; k-- > 0 && !roles;) {
			unsigned r = stimulus_roles(&c->steps[k]);
			if (r && !any)
				any = r;
			if (r && same_qp(s, &c->steps[k]))
				roles = r;
		}
		if (!roles)
			roles = any;
		/* 'expect QP any' and 'measure QP any' watch what the DUT sends. */
		if (s->kind == CL_EXPECT_PKT || s->kind == CL_MEASURE)
			roles |= ROCE_ROLE_SENDER;
		/* Nothing done to the DUT yet: every role, so that every "must"
		 * of the case judges the step (a case says 'as' to narrow it). */
		s->roles = roles ? roles : ROCE_ROLE_ALL;
	}
}

unsigned cl_binding_rules(const struct cl_case *c, int ipv, unsigned roles, unsigned *idx, unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < c->n_rules && n < max; i++)
		if (cl_rule_applies(c, i, ipv) && roce_rule_binds(roce_rule(roce_rule_by_id(c->rules[i])), roles))
			idx[n++] = i;
	return n;
}

void cl_unbound_reason(const struct cl_case *c, int ipv, unsigned roles, char *buf, size_t n)
{
	/* A case names a handful of rules: a line of them; a case with very
	 * many is cut visibly. */
	bool first = true;
	text_copy(buf, n, "");
	for (unsigned i = 0; i < c->n_rules; i++) {
		if (!cl_rule_applies(c, i, ipv))
			continue;
		const struct roce_rule_info *ri = roce_rule(roce_rule_by_id(c->rules[i]));
		char binds[96];
		roce_roles_format(ri->binds, binds, sizeof binds);
		text_appendf(buf, n, "%s%s binds the %s (%s)", first ? "" : ", ", ri->id, binds,
			     roce_strength_name(ri->strength));
		first = false;
	}
	char here[96];
	roce_roles_format(roles, here, sizeof here);
	text_appendf(buf, n, "; the DUT is the %s here", here);
}

bool cl_rule_applies(const struct cl_case *c, unsigned i, int ipv)
{
	return i < c->n_rules && (ipv == 4 || ipv == 6) && (c->rule_ips[i] & (1u << ipv));
}
