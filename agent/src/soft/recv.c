/*
 * Where the responder's next receive WQE comes from: the QP's own receive
 * queue, or the SRQ it was created with (srq.c); and what it does with a
 * SEND longer than the WQE it took. resp.c asks only here.
 */
#include "soft.h"

enum soft_recv soft_recv_take(struct be_qp *qp, struct soft_rwqe *out)
{
	if (qp->srq)
		return soft_srq_take(qp, out);
	if (!qp->rq_count)
		return SOFT_RECV_EMPTY;
	*out = qp->rq[qp->rq_head];
	qp->rq_head = (qp->rq_head + 1) % qp->max_recv_wr;
	qp->rq_count--;
	return SOFT_RECV_TAKEN;
}

/* The WQE cannot take the packet's payload (IBA9.7-RECV-LEN): nothing more
 * lands, the WQE completes with Local Length Error and an RC responder
 * answers NAK Invalid Request (a class C error, as rxe's RESPST_ERR_LENGTH
 * is). */
bool soft_recv_overflow(struct be_qp *qp, enum roce_nak_code *nak, enum be_wc_status *wst, uint64_t *fit)
{
	struct soft_dev *dev = qp->dev;
	if (SOFT_FAULT_ON(dev, SHORT_RECV_TRUNCATE)) {
		*fit = qp->resp.wqe.length - qp->resp.wqe_off;
		return true;
	}
	bool as_rxe = SOFT_FAULT_ON(dev, SHORT_RECV_NAK_REMOTE_OP);
	*nak = as_rxe ? ROCE_NAK_REMOTE_OP : ROCE_NAK_INVALID_REQUEST;
	*wst = as_rxe ? BE_WC_LOC_QP_OP_ERR : BE_WC_LOC_LEN_ERR;
	dev->cnt.recv_overflows++;
	return false;
}
