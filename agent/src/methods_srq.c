/*
 * Shared receive queues: create (on a PD, with an optional armed limit),
 * arm the limit, query, destroy (refused while a QP uses it) and post
 * receives to it. The QPs that use one name it in create_qp.
 */
#include "methods.h"

#define MAX_SRQ_WR (1u << 20)
#define MAX_SRQ_SGE 1024

static bool have_srq(struct req *r)
{
	if (OPS(r)->create_srq && OPS(r)->modify_srq && OPS(r)->query_srq && OPS(r)->destroy_srq &&
	    OPS(r)->post_srq_recv)
		return true;
	return req_fail(r, AE_UNSUPPORTED, "the %s backend has no shared receive queues", OPS(r)->name);
}

void method_create_srq(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	struct be_srq_init init = { 0 };
	/* An XRC SRQ: its domain, and the CQ its receives complete on. */
	struct handle *xrcd = pd ? param_xrcd(r, false) : NULL;
	struct handle *cq = !r->err ? session_get(r, "cq", H_CQ, xrcd != NULL) : NULL;
	if (r->err)
		return;
	if (cq && !xrcd) {
		req_fail(r, AE_BAD_REQUEST, "params.cq: only an XRC SRQ (with params.xrcd) has a CQ of its own");
		return;
	}
	init.xrcd = xrcd ? xrcd->obj : NULL;
	init.cq = cq ? cq->obj : NULL;
	if (!pd || !param_u32(r, "max_wr", false, 64, MAX_SRQ_WR, &init.max_wr) ||
	    !param_u32(r, "max_sge", false, 4, MAX_SRQ_SGE, &init.max_sge) ||
	    !param_u32(r, "limit", false, 0, MAX_SRQ_WR, &init.limit) || !have_srq(r) || !req_limit_handles(r))
		return;
	if (init.max_wr == 0 || init.max_sge == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.%s: must be at least 1", init.max_wr ? "max_sge" : "max_wr");
		return;
	}
	if (init.limit > init.max_wr) {
		req_fail(r, AE_BAD_REQUEST, "params.limit: %u is above max_wr %u", init.limit, init.max_wr);
		return;
	}
	struct be_srq *srq;
	struct be_error err = { 0 };
	if (OPS(r)->create_srq(pd->obj, &init, &srq, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_SRQ, srq);
	h->pd = pd->id;
	pd->users++;
	if (xrcd) {
		h->xrcd = xrcd->id;
		xrcd->users++;
		h->cq[1] = cq->id;
		cq->users++;
	}
	result_int(r, "srq", h->id);
	if (xrcd) {
		/* The number an XRCETH names: the device's, read back. */
		struct be_srq_attr a;
		if (OPS(r)->query_srq(srq, &a, &err)) {
			req_fail_backend(r, &err);
			return;
		}
		result_int(r, "srqn", a.srqn);
	}
}

void method_modify_srq(struct req *r)
{
	struct handle *h = session_get(r, "srq", H_SRQ, true);
	uint32_t limit;
	if (!h || !param_u32(r, "limit", true, 0, MAX_SRQ_WR, &limit) || !have_srq(r))
		return;
	struct be_error err = { 0 };
	if (OPS(r)->modify_srq(h->obj, limit, &err))
		req_fail_backend(r, &err);
}

void method_query_srq(struct req *r)
{
	struct handle *h = session_get(r, "srq", H_SRQ, true);
	if (!h || !have_srq(r))
		return;
	struct be_srq_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_srq(h->obj, &a, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_int(r, "max_wr", a.max_wr);
	result_int(r, "max_sge", a.max_sge);
	result_int(r, "limit", a.limit);
	if (h->xrcd)
		result_int(r, "srqn", a.srqn);
}

void method_destroy_srq(struct req *r)
{
	struct handle *h = session_get(r, "srq", H_SRQ, true);
	if (!h || !have_srq(r))
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.srq: SRQ %u is used by %u QPs; destroy them first", h->id, h->users);
		return;
	}
	/* Its pending events reach the session while it still exists. */
	agent_events_drain(r->s->agent);
	struct be_error err = { 0 };
	if (OPS(r)->destroy_srq(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

void method_post_srq_recv(struct req *r)
{
	struct handle *h = session_get(r, "srq", H_SRQ, true);
	struct be_sge sge[AGENT_MAX_WR_SGE];
	struct be_recv_wr wr = { .sge = sge };
	if (!h || !param_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr.wr_id) ||
	    !param_sges(r, sge, AGENT_MAX_WR_SGE, &wr.num_sge) || !have_srq(r))
		return;
	struct be_error err = { 0 };
	if (OPS(r)->post_srq_recv(h->obj, &wr, &err))
		req_fail_backend(r, &err);
}
