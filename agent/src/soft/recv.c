/*
 * Where the responder's next receive WQE comes from: the QP's own receive
 * queue, or the SRQ it was created with (srq.c). resp.c asks only here.
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
