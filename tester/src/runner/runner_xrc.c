/*
 * The runner's XRC: the DUT's XRC domains and XRC SRQs through the agent
 * (alloc_xrcd; create_srq with the domain and the CQ its receives
 * complete on, which reports the SRQ's number), the tester's XRC SRQs
 * (numbers of its own), and which SRQ a request names by default: the
 * first XRC SRQ of the target's domain.
 */
#include "runner_ctx.h"

/* The tester's XRC SRQ numbers: clear of the DUT's small ones. */
#define TESTER_SRQN_BASE 0x5A0000u

struct case_xrcd *xrcd_of(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; name && i < x->n_xrcds; i++)
		if (!strcmp(x->xrcds[i].name, name))
			return &x->xrcds[i];
	return NULL;
}

void step_dut_xrcd(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	if (!dut_has(x, CL_CAP_XRC, o))
		return;
	if (x->n_xrcds == MAX_XRCDS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d XRC domains in one case", MAX_XRCDS);
		return;
	}
	JsonObject *res;
	if (!call(x, o, AP_M_alloc_xrcd, json_object_new(), &res))
		return;
	uint64_t h;
	bool ok = agent_get_u64(res, "xrcd", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "alloc_xrcd: the reply has no xrcd handle");
		return;
	}
	x->xrcds[x->n_xrcds++] = (struct case_xrcd){ s->name, (int64_t)h };
	g_string_printf(o->detail, "XRC domain %s", s->name);
}

struct case_srq *xrc_first_srq(struct run_ctx *x, const char *xrcd)
{
	for (unsigned i = 0; xrcd && i < x->n_srqs; i++)
		if (!x->srqs[i].peer && x->srqs[i].xrc && !strcmp(x->srqs[i].xrcd, xrcd))
			return &x->srqs[i];
	return NULL;
}

struct case_srq *xrc_first_peer_srq(struct run_ctx *x)
{
	for (unsigned i = 0; i < x->n_srqs; i++)
		if (x->srqs[i].peer && x->srqs[i].xrc)
			return &x->srqs[i];
	return NULL;
}

void step_dut_xrc_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	const struct cl_dut_srq_args *a = &s->a.dut_srq;
	struct case_xrcd *d = xrcd_of(x, s->xrcd);
	uint64_t max_wr;
	int64_t pd;
	if (!param_u64(x, &a->max_wr, &max_wr, o) || !dut_has(x, CL_CAP_XRC, o) || !pd_handle(x, s->pd, &pd, o))
		return;
	if (x->n_srqs == MAX_SRQS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d SRQs in one case", MAX_SRQS);
		return;
	}
	/* The domain's XRC SRQs share one CQ: an XRC_RECV QP's receives
	 * complete on the CQ of whichever SRQ a request names, and a case
	 * reads them as the QP's. */
	JsonObject *p, *res;
	uint64_t cq, h, srqn;
	bool ok;
	const struct case_srq *sibling = xrc_first_srq(x, s->xrcd);
	if (sibling) {
		cq = (uint64_t)sibling->cq;
	} else {
		p = json_object_new();
		json_object_set_int_member(p, "cqe", 256);
		if (!call(x, o, AP_M_create_cq, p, &res))
			return;
		ok = agent_get_u64(res, "cq", &cq);
		json_object_unref(res);
		if (!ok) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "create_cq: the reply has no cq handle");
			return;
		}
	}
	p = json_object_new();
	json_object_set_int_member(p, "pd", pd);
	agent_set_u64(p, "max_wr", max_wr);
	json_object_set_int_member(p, "xrcd", d->handle);
	json_object_set_int_member(p, "cq", (gint64)cq);
	if (!call(x, o, AP_M_create_srq, p, &res))
		return;
	ok = agent_get_u64(res, "srq", &h) && agent_get_u64(res, "srqn", &srqn);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_srq: the reply of an XRC SRQ lacks srq or srqn");
		return;
	}
	struct case_srq *srq = &x->srqs[x->n_srqs];
	*srq = (struct case_srq){ .name = s->name, .handle = (int64_t)h, .id = x->n_srqs, .xrc = true, .xrcd = s->xrcd,
				  .srqn = (uint32_t)srqn & 0xFFFFFF, .cq = (int64_t)cq };
	x->n_srqs++;
	sym_set(x, s->name, "srqn", srq->srqn);
	/* The tester's initiators of this domain name it from now on unless
	 * they name another: those made before it had none to name. */
	for (unsigned i = 0; i < x->n_qps; i++) {
		struct case_qp *q = &x->qps[i];
		if (q->xrc == CL_XRC_RECV && !strcmp(q->xrcd, s->xrcd) && xrc_first_srq(x, s->xrcd) == srq) {
			peer_qp_set_xrc_srqn(x->r->peer, q->tester_qpn, srq->srqn);
			q->dut_cq = srq->cq;
		}
	}
	g_string_printf(o->detail, "XRC SRQ %s of domain %s: number 0x%06x, %llu receives at most", s->name, s->xrcd, srq->srqn,
			(unsigned long long)max_wr);
}

bool peer_srq_xrc(struct run_ctx *x, const struct cl_step *s, struct case_srq *srq, struct step_out *o)
{
	if (!s->a.peer_srq.xrc.arg || srq->xrc)
		return true;
	srq->xrc = true;
	srq->srqn = TESTER_SRQN_BASE + srq->id;
	if (peer_srq_set_xrc(x->r->peer, srq->id, srq->srqn) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester cannot number SRQ %s 0x%06x", s->name, srq->srqn);
		return false;
	}
	sym_set(x, s->name, "srqn", srq->srqn);
	return true;
}
