/*
 * XRC (Annex A14, notes §7.4): XRC domains; XRC SRQs, each numbered (the
 * number an XRCETH names) and completing on a CQ of its own; target QPs
 * (XRC_RECV) whose requests take their receive WQE from the XRC SRQ the
 * XRCETH names, which must be of the target's domain; initiator QPs
 * (XRC_SEND) whose requests carry the XRCETH.
 *
 * A request naming no XRC SRQ of the target's domain is answered as rxe's
 * XRC patches answer it (rxe_resp.c check_resource's
 * RESPST_ERR_INVALID_XRCETH: class C, NAK Remote Access Error, the QP in
 * Error); so is an R_Key of another PD than the named SRQ's (check_rkey
 * looks keys up in the SRQ's PD), and an empty XRC SRQ gets an RNR NAK.
 * Responses are the XRC opcodes (0xAD..0xB2) and carry no XRCETH.
 */
#include "soft.h"

int soft_alloc_xrcd(struct backend *be, struct be_xrcd **out, struct be_error *err)
{
	(void)err;
	struct soft_dev *dev = (struct soft_dev *)be;
	struct be_xrcd *x = g_new0(struct be_xrcd, 1);
	x->dev = dev;
	dev->cnt.objects_xrcd++;
	*out = x;
	return 0;
}

int soft_dealloc_xrcd(struct be_xrcd *xrcd, struct be_error *err)
{
	if (xrcd->users)
		return be_error_set(err, BE_INVALID_STATE, "the XRC domain is used by %u XRC SRQs or QPs", xrcd->users);
	xrcd->dev->cnt.objects_xrcd--;
	g_free(xrcd);
	return 0;
}

int soft_xrc_srq_init(struct be_srq *srq, const struct be_srq_init *init, struct be_error *err)
{
	struct soft_dev *dev = srq->dev;
	if (!init->xrcd)
		return 0;
	if (!init->cq)
		return be_error_set(err, BE_BAD_REQUEST, "an XRC SRQ needs a CQ for its receives");
	if (init->xrcd->dev != dev || init->cq->dev != dev)
		return be_error_set(err, BE_BAD_REQUEST, "the XRC domain or CQ belongs to another device");
	/* SRQ numbers: 24 bits, never 0, not reused while in use. */
	do {
		dev->next_srqn = (dev->next_srqn + 1) & 0xFFFFFF;
		if (dev->next_srqn == 0)
			dev->next_srqn = 1;
	} while (g_hash_table_contains(dev->xrc_srqs, GUINT_TO_POINTER(dev->next_srqn)));
	srq->srqn = dev->next_srqn;
	srq->xrcd = init->xrcd;
	srq->cq = init->cq;
	srq->xrcd->users++;
	g_hash_table_insert(dev->xrc_srqs, GUINT_TO_POINTER(srq->srqn), srq);
	return 0;
}

void soft_xrc_srq_gone(struct be_srq *srq)
{
	struct soft_dev *dev = srq->dev;
	if (!srq->xrcd)
		return;
	g_hash_table_remove(dev->xrc_srqs, GUINT_TO_POINTER(srq->srqn));
	srq->xrcd->users--;
	/* A target that last took from it forgets it. */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_qp *qp = v;
		if (qp->type == BE_QPT_XRC_RECV && qp->srq == srq) {
			qp->srq = NULL;
			qp->rcq = NULL;
		}
	}
}

int soft_xrc_qp_init(struct be_qp *qp, const struct be_qp_init *init, struct be_error *err)
{
	if (init->type == BE_QPT_XRC_SEND) {
		if (!init->send_cq)
			return be_error_set(err, BE_BAD_REQUEST, "an XRC_SEND QP needs a send CQ");
		return 0;
	}
	if (init->type != BE_QPT_XRC_RECV)
		return 0;
	if (!init->xrcd)
		return be_error_set(err, BE_BAD_REQUEST, "an XRC_RECV QP needs an XRC domain");
	if (init->xrcd->dev != qp->dev)
		return be_error_set(err, BE_BAD_REQUEST, "the XRC domain belongs to another device");
	qp->xrcd = init->xrcd;
	qp->xrcd->users++;
	return 0;
}

void soft_xrc_qp_gone(struct be_qp *qp)
{
	if (qp->xrcd)
		qp->xrcd->users--;
	qp->xrcd = NULL;
}

/* The XRC SRQ of the domain with the lowest number. */
static struct be_srq *first_of_domain(struct soft_dev *dev, const struct be_xrcd *xrcd)
{
	struct be_srq *best = NULL;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->xrc_srqs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_srq *s = v;
		if (s->xrcd == xrcd && (!best || s->srqn < best->srqn))
			best = s;
	}
	return best;
}

bool soft_xrc_select(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	const uint8_t *x = roce_pkt_hdr(rx->p, ROCE_H_XRCETH);
	uint32_t srqn = x ? roce_xrceth_srqn(x) : 0;
	struct be_srq *srq;
	if (SOFT_FAULT_ON(dev, XRC_SRQN_IGNORED))
		srq = first_of_domain(dev, qp->xrcd);
	else
		srq = g_hash_table_lookup(dev->xrc_srqs, GUINT_TO_POINTER(srqn));
	/* An RDMA request takes no receive WQE: the SRQ it names gives the PD
	 * its R_Key is checked in (soft_rkey_pd). */
	if (srq && srq->xrcd == qp->xrcd && rx->op->kind != ROCE_K_SEND && SOFT_FAULT_ON(dev, XRC_PD_FIRST_SRQ))
		srq = first_of_domain(dev, qp->xrcd);
	if (srq && (srq->xrcd == qp->xrcd || SOFT_FAULT_ON(dev, XRC_FOREIGN_SRQ))) {
		qp->srq = srq;
		qp->rcq = srq->cq;
		return true;
	}
	/* Only a new request is judged: a duplicate or one ahead goes on to
	 * the PSN checks, with the SRQ the last request named. */
	if (rx->psn != qp->resp.epsn)
		return true;
	dev->cnt.xrc_bad_srqn++;
	soft_resp_fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS);
	return false;
}

void soft_xrc_build(struct be_qp *qp, const struct be_send_wr *wr, struct roce_desc *d)
{
	uint32_t srqn = wr->remote_srqn;
	if (!qp->xrc_first_srqn)
		qp->xrc_first_srqn = srqn;
	else if (SOFT_FAULT_ON(qp->dev, XRC_INI_SRQN_STALE))
		srqn = qp->xrc_first_srqn;
	roce_xrceth_set_srqn(roce_desc_hdr(d, ROCE_H_XRCETH), srqn);
}

void soft_xrc_close(struct soft_dev *dev)
{
	g_hash_table_destroy(dev->xrc_srqs);
}
