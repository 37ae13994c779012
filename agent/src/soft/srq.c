/*
 * Shared receive queues (notes §7.2): a ring of receive WQEs that the QPs
 * created with it take in posting order, whichever receives first; an
 * armed limit raises SRQ Limit Reached once when fewer WQEs than the limit
 * remain, then disarms until armed again; a QP of an SRQ that enters ERR
 * raises Last WQE Reached. An empty SRQ is the responder's "no receive WQE"
 * (RC and XRC: RNR NAK). Each QP fills the WQE it took on its own: messages
 * of QPs sharing the SRQ never mix.
 */
#include "soft.h"

#include <string.h>

#define SOFT_MAX_SRQ_WR 4096

int soft_create_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq **out,
		    struct be_error *err)
{
	if (init->max_wr < 1 || init->max_wr > SOFT_MAX_SRQ_WR)
		return be_error_set(err, BE_BAD_REQUEST, "max_wr %u: must be 1..%u", init->max_wr, SOFT_MAX_SRQ_WR);
	if (init->max_sge < 1 || init->max_sge > SOFT_MAX_SGE)
		return be_error_set(err, BE_BAD_REQUEST, "max_sge %u: must be 1..%u", init->max_sge, SOFT_MAX_SGE);
	if (init->limit > init->max_wr)
		return be_error_set(err, BE_BAD_REQUEST, "limit %u exceeds max_wr %u", init->limit, init->max_wr);
	struct be_srq *srq = g_new0(struct be_srq, 1);
	srq->dev = pd->dev;
	srq->pd = pd;
	srq->max_wr = init->max_wr;
	srq->max_sge = init->max_sge;
	srq->limit = init->limit;
	if (soft_xrc_srq_init(srq, init, err)) {
		g_free(srq);
		return -1;
	}
	srq->ring = g_new0(struct soft_rwqe, init->max_wr);
	pd->refs++;
	pd->dev->cnt.objects_srq++;
	*out = srq;
	return 0;
}

/* Arming (ibv_modify_srq(3)): the event is for when the receives left drop
 * below the limit, so nothing is raised here, whatever the count. */
int soft_modify_srq(struct be_srq *srq, uint32_t limit, struct be_error *err)
{
	struct soft_dev *dev = srq->dev;
	if (limit > srq->max_wr)
		return be_error_set(err, BE_BAD_REQUEST, "limit %u exceeds the SRQ's max_wr %u", limit, srq->max_wr);
	if (srq->limit_fired && limit && SOFT_FAULT_ON(dev, SRQ_LIMIT_NO_REARM))
		return 0; /* taken, never armed */
	srq->limit = limit;
	if (limit && srq->count <= limit && SOFT_FAULT_ON(dev, SRQ_LIMIT_FIRES_ON_ARM)) {
		dev->cnt.srq_limit_events++;
		soft_event_raise(dev, BE_EVENT_SRQ_LIMIT_REACHED, NULL, srq);
		srq->limit = 0;
		srq->limit_fired = true;
	}
	return 0;
}

int soft_query_srq(struct be_srq *srq, struct be_srq_attr *out, struct be_error *err)
{
	(void)err;
	out->max_wr = srq->max_wr;
	out->max_sge = srq->max_sge;
	out->limit = srq->limit;
	out->srqn = srq->srqn;
	return 0;
}

int soft_destroy_srq(struct be_srq *srq, struct be_error *err)
{
	if (srq->users)
		return be_error_set(err, BE_INVALID_STATE, "the SRQ is used by %u QPs", srq->users);
	while (srq->count) {
		struct soft_rwqe *w = &srq->ring[srq->head];
		soft_sges_release(w->sge, w->num_sge);
		srq->head = (srq->head + 1) % srq->max_wr;
		srq->count--;
	}
	soft_events_forget(srq->dev, srq);
	soft_xrc_srq_gone(srq);
	srq->pd->refs--;
	srq->dev->cnt.objects_srq--;
	g_free(srq->ring);
	g_free(srq);
	return 0;
}

int soft_post_srq_recv(struct be_srq *srq, const struct be_recv_wr *wr, struct be_error *err)
{
	if (wr->num_sge > srq->max_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs exceed the SRQ's max_sge %u", wr->num_sge,
				    srq->max_sge);
	if (srq->count == srq->max_wr)
		return be_error_set(err, BE_RESOURCE_LIMIT, "the SRQ is full (%u WQEs)", srq->max_wr);
	struct soft_rwqe *w = &srq->ring[(srq->head + srq->count) % srq->max_wr];
	memset(w, 0, sizeof *w);
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	w->length = soft_sges_take(w->sge, wr->sge, wr->num_sge);
	srq->count++;
	return 0;
}

/* After a take: the limit event, once, when fewer WQEs than the limit
 * remain (the limit then disarms). */
static void check_limit(struct be_srq *srq)
{
	struct soft_dev *dev = srq->dev;
	if (!srq->limit || srq->count >= srq->limit || SOFT_FAULT_ON(dev, SRQ_LIMIT_SILENT))
		return;
	dev->cnt.srq_limit_events++;
	soft_event_raise(dev, BE_EVENT_SRQ_LIMIT_REACHED, NULL, srq);
	srq->limit_fired = true;
	if (!SOFT_FAULT_ON(dev, SRQ_LIMIT_REPEAT))
		srq->limit = 0;
}

/* Another QP of qp's SRQ with a SEND open in a receive WQE of the SRQ, or
 * NULL. */
static struct be_qp *open_sharer(const struct be_qp *qp)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, qp->dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_qp *q = v;
		if (q != qp && q->srq == qp->srq && q->resp.have_wqe && q->resp.open == SOFT_MSG_SEND)
			return q;
	}
	return NULL;
}

/* A copy of another QP's receive WQE, holding its own references. */
static void share_wqe(struct soft_rwqe *out, const struct soft_rwqe *w)
{
	*out = *w;
	for (unsigned i = 0; i < out->num_sge; i++)
		out->sge[i].mr->refs++;
}

enum soft_recv soft_srq_take(struct be_qp *qp, struct soft_rwqe *out)
{
	struct be_srq *srq = qp->srq;
	struct soft_dev *dev = qp->dev;
	struct be_qp *sharer = SOFT_FAULT_ON(dev, SRQ_SHARED_OPEN_WQE) ? open_sharer(qp) : NULL;
	if (sharer) {
		share_wqe(out, &sharer->resp.wqe);
		return SOFT_RECV_TAKEN;
	}
	if (!srq->count) {
		dev->cnt.srq_empty++;
		if (qp->type == BE_QPT_XRC_RECV)
			return SOFT_FAULT_ON(dev, XRC_EMPTY_DROP) ? SOFT_RECV_DROP : SOFT_RECV_EMPTY;
		return qp->type == BE_QPT_RC && SOFT_FAULT_ON(dev, SRQ_EMPTY_DROP) ? SOFT_RECV_DROP : SOFT_RECV_EMPTY;
	}
	if (SOFT_FAULT_ON(dev, SRQ_LIFO)) {
		*out = srq->ring[(srq->head + srq->count - 1) % srq->max_wr];
	} else {
		*out = srq->ring[srq->head];
		srq->head = (srq->head + 1) % srq->max_wr;
	}
	srq->count--;
	check_limit(srq);
	return SOFT_RECV_TAKEN;
}

void soft_srq_qp_error(struct be_qp *qp)
{
	/* An XRC target has no SRQ of its own (qp->srq is the last one named). */
	if (!qp->srq || qp->type == BE_QPT_XRC_RECV || SOFT_FAULT_ON(qp->dev, SRQ_NO_LAST_WQE))
		return;
	qp->dev->cnt.last_wqe_events++;
	soft_event_raise(qp->dev, BE_EVENT_QP_LAST_WQE_REACHED, qp, NULL);
}
