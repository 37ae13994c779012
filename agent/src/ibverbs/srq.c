/*
 * Shared receive queues: created (and armed) with ibv_create_srq and
 * ibv_modify_srq, queried, destroyed, and receives posted to them. A QP
 * takes its receives from one when created with it (qp.c). The limit event
 * (SRQ_LIMIT_REACHED) arrives through events.c, about this be_srq (its
 * srq_context). An XRC SRQ (of a domain, with its own CQ) is created in
 * xrc.c and is otherwise the same.
 */
#include "ibverbs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MAX_SGE_ON_STACK 16

/* ibv_modify_srq of the limit alone; 0 disarms. */
static int arm(struct be_srq *srq, uint32_t limit, struct be_error *err)
{
	struct ibv_srq_attr a = { .srq_limit = limit };
	int e = ibv_modify_srq(srq->srq, &a, IBV_SRQ_LIMIT);
	if (e) {
		char what[64];
		snprintf(what, sizeof what, "ibv_modify_srq (limit %u)", limit);
		return ib_verb_failed(err, e, what);
	}
	return 0;
}

int ib_create_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq **out,
		  struct be_error *err)
{
	struct ib_backend *ib = pd->be;
	if (!(ib->caps & BE_CAP_SRQ))
		return be_error_set(err, BE_UNSUPPORTED, "%s has no shared receive queues (max_srq 0)",
				    ib->name);
	if (init->max_wr < 1 || init->max_wr > (uint32_t)ib->attr.max_srq_wr)
		return be_error_set(err, BE_BAD_REQUEST, "max_wr %u: %s takes 1..%d per SRQ", init->max_wr,
				    ib->name, ib->attr.max_srq_wr);
	if (init->max_sge < 1 || init->max_sge > (uint32_t)ib->attr.max_srq_sge)
		return be_error_set(err, BE_BAD_REQUEST, "max_sge %u: %s takes 1..%d per SRQ receive",
				    init->max_sge, ib->name, ib->attr.max_srq_sge);
	struct be_srq *s = g_new0(struct be_srq, 1);
	s->be = ib;
	if (init->xrcd) {
		if (ib_create_xrc_srq(pd, init, s, err)) {
			g_free(s);
			return -1;
		}
		if (init->limit && arm(s, init->limit, err)) {
			ibv_destroy_srq(s->srq);
			g_free(s);
			return -1;
		}
		*out = s;
		return 0;
	}
	/* The limit is not armed at creation (ibv_create_srq ignores it). */
	struct ibv_srq_init_attr ia = {
		.srq_context = s,
		.attr = { .max_wr = init->max_wr, .max_sge = init->max_sge },
	};
	s->srq = ibv_create_srq(pd->pd, &ia);
	if (!s->srq) {
		int e = errno;
		g_free(s);
		char what[96];
		snprintf(what, sizeof what, "ibv_create_srq (%u WRs, %u SGEs)", init->max_wr, init->max_sge);
		return ib_verb_failed(err, e, what);
	}
	s->max_sge = ia.attr.max_sge; /* what the device gave */
	if (init->limit && arm(s, init->limit, err)) {
		ibv_destroy_srq(s->srq);
		g_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

int ib_modify_srq(struct be_srq *srq, uint32_t limit, struct be_error *err)
{
	return arm(srq, limit, err);
}

int ib_query_srq(struct be_srq *srq, struct be_srq_attr *out, struct be_error *err)
{
	struct ibv_srq_attr a;
	memset(&a, 0, sizeof a);
	int e = ibv_query_srq(srq->srq, &a);
	if (e)
		return ib_verb_failed(err, e, "ibv_query_srq");
	out->max_wr = a.max_wr;
	out->max_sge = a.max_sge;
	out->limit = a.srq_limit;
	out->srqn = srq->srqn;
	return 0;
}

int ib_destroy_srq(struct be_srq *srq, struct be_error *err)
{
	int e = ibv_destroy_srq(srq->srq);
	if (e == EBUSY)
		return be_error_set(err, BE_INVALID_STATE, "ibv_destroy_srq: %s (a QP still uses the SRQ)",
				    strerror(e));
	if (e)
		return ib_verb_failed(err, e, "ibv_destroy_srq");
	ib_events_forget(srq->be, NULL, srq, NULL);
	g_free(srq);
	return 0;
}

int ib_post_srq_recv(struct be_srq *srq, const struct be_recv_wr *wr, struct be_error *err)
{
	if (wr->num_sge > srq->max_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs: the SRQ takes at most %u per receive",
				    wr->num_sge, srq->max_sge);
	struct ibv_sge stack[MAX_SGE_ON_STACK];
	struct ibv_sge *sge = wr->num_sge <= MAX_SGE_ON_STACK ? stack : g_new(struct ibv_sge, wr->num_sge);
	ib_fill_sges(sge, wr->sge, wr->num_sge);
	struct ibv_recv_wr rwr = { .wr_id = wr->wr_id, .sg_list = sge, .num_sge = (int)wr->num_sge };
	struct ibv_recv_wr *bad = NULL;
	int e = ibv_post_srq_recv(srq->srq, &rwr, &bad);
	if (sge != stack)
		g_free(sge);
	if (e == ENOMEM)
		return be_error_set(err, BE_RESOURCE_LIMIT, "ibv_post_srq_recv: the SRQ is full");
	return e ? ib_verb_failed(err, e, "ibv_post_srq_recv") : 0;
}
