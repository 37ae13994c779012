/*
 * The statements of memory windows, XRC and the IBTA 1.5 placement
 * operations: dut mw, dut bind, dut xrcd, dut pd (a second protection
 * domain, for windows and regions of another); and what the other statements
 * take of them: a QP's XRC type and domain, an XRC SRQ, the work requests
 * LOCAL_INV, ATOMIC_WRITE and FLUSH and their arguments, the XRCETH, FETH,
 * IETH and ATOMIC WRITE payload of an injected packet, the tester's
 * atomic_write and flush. Each implies the capability it needs, so that a
 * case is not applicable on a DUT without it (not an injected packet's:
 * the tester may send a FLUSH to a DUT that has none).
 */
#include <stdio.h>
#include <string.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

/* A number written as such (type=1): its value, or -1. */
static long constant_of(const struct cl_arg *a)
{
	if (!a || a->v.kind != CL_V_EXPR || a->v.expr.n != 1 || a->v.expr.terms[0].is_sym)
		return -1;
	return (long)a->v.expr.terms[0].num;
}

/* dut mw NAME type=1|2 */
static void parse_dut_mw(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_MW, loc);
	struct cl_loc nl = ps->tok.loc;
	st->name = st->mw = (char *)take_name(ps, "a name for the new memory window");
	cl_parse_args(ps, st, cl_args_dut_mw, false, false);
	cl_pd_arg(ps, st, &st->a.dut_mw.pd, -1);
	const struct cl_arg *t = st->a.dut_mw.type.arg;
	if (!t)
		cl_fail_at(ps, CL_ERR_MISSING, loc, "'dut mw' needs type=; expected type=1 or type=2");
	long type = constant_of(t);
	if (type != 1 && type != 2)
		cl_fail_at(ps, CL_ERR_VALUE, t->v.loc, "type= is the window's type; expected 1 or 2");
	cl_define_sym(ps, st->name, CL_SYM_MW, -1, nl);
	cl_find_sym(ps, st->name)->mw_type = (int)type;
	ps->c->uses_caps |= type == 1 ? CL_CAP_MW1 : CL_CAP_MW2;
}

/* dut bind MW QP MR [offset=N] [len=N] [access=...] [key=E] [status=S] */
static void parse_dut_bind(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_DUT_BIND, loc);
	const struct cl_sym *w = cl_use_next_name(ps, &st->mw, CL_SYM_MW, "a memory window defined by 'dut mw'");
	struct cl_loc ql = ps->tok.loc;
	const struct cl_sym *q = cl_use_next_name(ps, &st->qp, CL_SYM_QP, "the QP the bind is posted on (defined by 'dut qp')");
	if (q->qp_type != ROCE_T_RC && q->qp_type != ROCE_T_UC)
		cl_fail_at(ps, CL_ERR_KIND, ql, "'%s' is a %s QP; expected an RC or UC QP to bind the window on", q->name,
			roce_transport_name((enum roce_transport)q->qp_type));
	cl_use_next_name(ps, &st->mr, CL_SYM_DUT_MR, "the DUT MR the window is bound to");
	cl_parse_args(ps, st, cl_args_dut_bind, false, false);
	const struct cl_arg *key = st->a.dut_bind.key.arg;
	if (key && w->mw_type == 1)
		cl_fail_at(ps, CL_ERR_ARGUMENT, key->loc, "window '%s' is of type 1, whose rkey the device chooses; expected no key=",
			w->name);
	const struct cl_arg *len = st->a.dut_bind.len.arg;
	if (len && w->mw_type == 2 && constant_of(len) == 0)
		cl_fail_at(ps, CL_ERR_VALUE, len->v.loc, "len=0 unbinds a type 1 window; window '%s' is of type 2, expected "
			"'dut post_send %s LOCAL_INV invalidate=$%s.rkey' to invalidate it", w->name, q->name, w->name);
	const struct cl_arg *zb = st->a.dut_bind.zero_based.arg;
	if (zb && st->a.dut_bind.zero_based.word_id == CL_ON && len && constant_of(len) == 0)
		cl_fail_at(ps, CL_ERR_ARGUMENT, zb->loc, "len=0 unbinds the window, which then is addressed by nothing; expected no zero_based=on with it");
	ps->c->uses_caps |= w->mw_type == 1 ? CL_CAP_MW1 : CL_CAP_MW2;
}

bool cl_parse_dut_mw_xrc(struct parser *ps, const char *verb, struct cl_loc loc)
{
	if (!strcmp(verb, "mw")) {
		parse_dut_mw(ps, loc);
		return true;
	}
	if (!strcmp(verb, "bind")) {
		parse_dut_bind(ps, loc);
		return true;
	}
	if (!strcmp(verb, "pd")) {
		struct cl_step *st = cl_new_step(ps, CL_DUT_PD, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = st->pd = (char *)take_name(ps, "a name for the new protection domain");
		cl_parse_args(ps, st, cl_args_none, false, false);
		cl_define_sym(ps, st->name, CL_SYM_PD, -1, nl);
		return true;
	}
	if (!strcmp(verb, "xrcd")) {
		struct cl_step *st = cl_new_step(ps, CL_DUT_XRCD, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = st->xrcd = (char *)take_name(ps, "a name for the new XRC domain");
		cl_parse_args(ps, st, cl_args_none, false, false);
		cl_define_sym(ps, st->name, CL_SYM_XRCD, -1, nl);
		ps->c->uses_caps |= CL_CAP_XRC;
		return true;
	}
	return false;
}

void cl_pd_arg(struct parser *ps, struct cl_step *st, const struct cl_param *pd, int qp_type)
{
	const struct cl_arg *a = pd->arg;
	if (!a)
		return;
	if (qp_type >= 0 && qp_type != ROCE_T_RC && qp_type != ROCE_T_UC)
		cl_fail_at(ps, CL_ERR_ARGUMENT, a->loc, "pd= is for RC and UC QPs (a %s QP's address handle is the case's own); expected no pd=",
			roce_transport_name((enum roce_transport)qp_type));
	cl_use_name(ps, a->v.word, CL_SYM_PD, a->v.loc);
	st->pd = a->v.word;
}

/* The first XRC SRQ of a domain defined above, or NULL. */
static const struct cl_sym *first_srq_of(struct parser *ps, const char *xrcd)
{
	for (unsigned i = 0; xrcd && i < ps->c->n_syms; i++) {
		const struct cl_sym *s = &ps->c->syms[i];
		if (s->kind == CL_SYM_SRQ && s->xrcd && !strcmp(s->xrcd, xrcd))
			return s;
	}
	return NULL;
}

void cl_qp_xrc_args(struct parser *ps, struct cl_step *st, struct cl_sym *q)
{
	const struct cl_dut_qp_args *a = &st->a.dut_qp;
	int xrc = cl_qp_type_xrc(a->type.word_id);
	q->xrc_type = xrc;
	const struct cl_arg *d = a->xrcd.arg;
	if (!xrc) {
		if (d)
			cl_fail_at(ps, CL_ERR_ARGUMENT, d->loc, "xrcd= is for an XRC target; expected type=XRC_RECV with it");
		return;
	}
	ps->c->uses_caps |= CL_CAP_XRC;
	if (a->srq.arg || a->peer_srq.arg)
		cl_fail_at(ps, CL_ERR_ARGUMENT, (a->srq.arg ? a->srq.arg : a->peer_srq.arg)->loc,
			"an XRC QP's receives come from the XRC SRQ each request names; expected no srq= or peer_srq= (an XRC SRQ is 'dut srq NAME xrcd=D' or 'peer srq NAME xrc')");
	if (xrc == CL_XRC_RECV) {
		if (!d)
			cl_fail_at(ps, CL_ERR_MISSING, st->loc, "an XRC_RECV QP needs its domain; expected xrcd=D (defined by 'dut xrcd D')");
		cl_use_name(ps, d->v.word, CL_SYM_XRCD, d->v.loc);
		q->xrcd = d->v.word;
		st->xrcd = d->v.word;
	} else if (d) {
		cl_fail_at(ps, CL_ERR_ARGUMENT, d->loc, "an XRC_SEND QP belongs to no domain (its requests name the target's SRQ); expected no xrcd=");
	}
}

void cl_srq_xrc_args(struct parser *ps, struct cl_step *st, struct cl_sym *srq)
{
	const struct cl_arg *d = st->a.dut_srq.xrcd.arg;
	if (!d)
		return;
	cl_use_name(ps, d->v.word, CL_SYM_XRCD, d->v.loc);
	srq->xrcd = d->v.word;
	st->xrcd = d->v.word;
	if (st->a.dut_srq.limit.arg)
		cl_fail_at(ps, CL_ERR_ARGUMENT, st->a.dut_srq.limit.arg->loc, "an XRC SRQ is made unarmed here; expected no limit= with xrcd= ('dut arm' arms it)");
	ps->c->uses_caps |= CL_CAP_XRC;
}

static void only_for(struct parser *ps, const struct cl_param *prm, bool ok, const char *what)
{
	if (prm->arg && !ok)
		cl_fail_at(ps, CL_ERR_ARGUMENT, prm->arg->loc, "%s= is for %s; expected it only there", prm->arg->key, what);
}

void cl_post_send_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q, struct cl_loc vl)
{
	const struct cl_post_send_args *a = &st->a.post_send;
	bool aw = st->op == AP_WR_ATOMIC_WRITE, fl = st->op == AP_WR_FLUSH, li = st->op == AP_WR_LOCAL_INV;
	if (st->op == AP_WR_BIND_MW)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "a window is bound with 'dut bind'; expected 'dut bind MW %s MR ...'", q->name);
	only_for(ps, &a->value, aw, "ATOMIC_WRITE (its 8 bytes)");
	only_for(ps, &a->placement, fl, "FLUSH");
	only_for(ps, &a->level, fl, "FLUSH");
	only_for(ps, &a->remote_srqn, q->xrc_type == CL_XRC_SEND, "a SEND on an XRC_SEND QP (the target's XRC SRQ)");
	if (li && !a->invalidate.arg)
		cl_fail_at(ps, CL_ERR_MISSING, vl, "LOCAL_INV needs the rkey to invalidate; expected invalidate=$MW.rkey");
	if ((aw || fl) && q->qp_type != ROCE_T_RC)
		cl_fail_at(ps, CL_ERR_KIND, vl, "%s is an RC operation; '%s' is a %s QP; expected an RC QP", st->verb, q->name,
			roce_transport_name((enum roce_transport)q->qp_type));
	if (aw) {
		if (!a->remote.arg || !a->rkey.arg || !a->value.arg)
			cl_fail_at(ps, CL_ERR_MISSING, vl, "ATOMIC_WRITE needs remote=, rkey= and value=; expected e.g. remote=$m.addr rkey=$m.rkey value=0x1122334455667788");
		ps->c->uses_caps |= CL_CAP_ATOMIC_WRITE;
	}
	if (fl) {
		if (!a->remote.arg || !a->rkey.arg)
			cl_fail_at(ps, CL_ERR_MISSING, vl, "FLUSH needs remote= and rkey=; expected e.g. remote=$m.addr rkey=$m.rkey len=64");
		if (st->mr)
			cl_fail_at(ps, CL_ERR_ARGUMENT, vl, "FLUSH carries no data; expected no MR (len= is the range flushed)");
		ps->c->uses_caps |= CL_CAP_FLUSH;
	}
	if (q->xrc_type == CL_XRC_RECV)
		cl_fail_at(ps, CL_ERR_KIND, vl, "'%s' is an XRC target (XRC_RECV), which sends nothing; expected an XRC_SEND QP", q->name);
}

/* inject on an XRC QP, and the extension headers' own arguments. */
void cl_inject_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q)
{
	const struct cl_inject_args *a = &st->a.inject;
	const struct roce_opcode_info *oi = st->opcode >= 0 ? roce_opcode((uint8_t)st->opcode) : NULL;
	uint16_t xh = oi ? oi->xhdrs : 0;
	only_for(ps, &a->value, oi && oi->kind == ROCE_K_ATOMIC_WRITE, "ATOMIC_WRITE (its 8 bytes of payload)");
	only_for(ps, &a->placement, xh & ROCE_XHDR_BIT(ROCE_H_FETH), "FLUSH (the FETH)");
	only_for(ps, &a->level, xh & ROCE_XHDR_BIT(ROCE_H_FETH), "FLUSH (the FETH)");
	only_for(ps, &a->invalidate, xh & ROCE_XHDR_BIT(ROCE_H_IETH), "a SEND with Invalidate (the IETH)");
	if (oi && oi->kind == ROCE_K_ATOMIC_WRITE && (a->len.arg || a->data.arg) && a->value.arg)
		cl_fail_at(ps, CL_ERR_ARGUMENT, (a->len.arg ? a->len.arg : a->data.arg)->loc,
			"value= is ATOMIC WRITE's payload; expected value= or data=/len=, not both");
	/* No capability implied: what a DUT without FLUSH or ATOMIC WRITE
	 * answers them is a case of its own (IBA1.5-PLACEMENT-UNSUPPORTED,
	 * 'unless FLUSH'); one that needs them says 'requires'. */
	if (q->qp_type != ROCE_T_XRC || !(xh & ROCE_XHDR_BIT(ROCE_H_XRCETH)))
		return;
	if (q->xrc_type != CL_XRC_RECV)
		cl_fail_at(ps, CL_ERR_KIND, st->loc, "'%s' is the DUT's XRC initiator, whose tester side is a target; expected an XRC_RECV QP (the tester's side of it is the initiator)", q->name);
	bool has_srqn = false;
	for (unsigned i = 0; i < st->n_args; i++) {
		const struct cl_arg *x = &st->args[i];
		if (x->id == CL_K_FIELD && x->field.f == roce_field_by_name("xrceth.srqn"))
			has_srqn = true;
	}
	if (!has_srqn && !first_srq_of(ps, q->xrcd))
		cl_fail_at(ps, CL_ERR_MISSING, st->loc, "no XRC SRQ of domain '%s' above to name; expected 'dut srq NAME xrcd=%s' before, or srqn=",
			q->xrcd, q->xrcd);
}

void cl_peer_op_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q, struct cl_loc vl)
{
	const struct cl_peer_op_args *a = &st->a.peer_op;
	bool aw = st->op == AP_WC_ATOMIC_WRITE, fl = st->op == AP_WC_FLUSH;
	only_for(ps, &a->value, aw, "atomic_write");
	only_for(ps, &a->placement, fl, "flush");
	only_for(ps, &a->level, fl, "flush");
	if ((aw || fl) && q->qp_type != ROCE_T_RC)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "%s is an RC operation; '%s' is a %s QP; expected an RC QP", st->verb, q->name,
			roce_transport_name((enum roce_transport)q->qp_type));
	if (aw && !a->value.arg)
		cl_fail_at(ps, CL_ERR_MISSING, vl, "'peer atomic_write' needs value=; expected e.g. value=0x1122334455667788");
	if (aw)
		ps->c->uses_caps |= CL_CAP_ATOMIC_WRITE;
	if (fl)
		ps->c->uses_caps |= CL_CAP_FLUSH;
	if (q->xrc_type == CL_XRC_SEND)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "the tester's side of XRC_SEND QP '%s' is a target and sends no requests; expected 'dut post_send %s ...'",
			q->name, q->name);
	if (q->xrc_type == CL_XRC_RECV && !first_srq_of(ps, q->xrcd))
		cl_fail_at(ps, CL_ERR_MISSING, vl, "no XRC SRQ of domain '%s' above for the tester's requests to name; expected 'dut srq NAME xrcd=%s' before",
			q->xrcd, q->xrcd);
}
