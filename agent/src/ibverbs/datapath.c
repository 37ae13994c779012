/*
 * Posting work requests and polling completions. A post to a QP whose
 * state cannot take it (send: before RTS; receive: in RESET) is refused
 * here, not only for the message: rxe's provider writes the work request
 * into the queue before the kernel refuses it, and the ghost request then
 * runs as soon as the QP reaches RTS.
 */
#include "ibverbs.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#define MAX_SGE_ON_STACK 16

void ib_fill_sges(struct ibv_sge *out, const struct be_sge *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		out[i].addr = (uint64_t)(uintptr_t)(in[i].mr->buf + in[i].offset);
		out[i].length = in[i].length;
		out[i].lkey = in[i].mr->mr->lkey;
	}
}

/* Whether the QP's state takes a post (IBA 10.8.2: a send needs RTS or a
 * later state, a receive anything but RESET). The state we last set says so
 * without a system call, except when the device may since have moved the QP
 * to ERR, where posting is allowed again (the request completes flushed). */
int ib_check_post_state(struct be_qp *qp, bool send, struct be_error *err)
{
	bool too_early = send ? (qp->state_set == IBV_QPS_RESET || qp->state_set == IBV_QPS_INIT ||
				 qp->state_set == IBV_QPS_RTR)
			      : qp->state_set == IBV_QPS_RESET;
	if (!too_early)
		return 0;
	enum ibv_qp_state s = IBV_QPS_RESET;
	if (ib_current_state(qp, &s, err))
		return -1;
	if (s == IBV_QPS_ERR || s == IBV_QPS_SQE || (send && s == IBV_QPS_RTS))
		return 0;
	if (!send && s != IBV_QPS_RESET)
		return 0;
	return be_error_set(err, BE_INVALID_STATE, "%s: the QP is in %s",
			    send ? "post_send" : "post_recv", ib_state_name(s));
}

static int post_failed(bool send, int e, struct be_error *err)
{
	if (e == ENOMEM)
		return be_error_set(err, BE_RESOURCE_LIMIT, "%s: the %s queue is full",
				    send ? "ibv_post_send" : "ibv_post_recv",
				    send ? "send" : "receive");
	return ib_verb_failed(err, e, send ? "ibv_post_send" : "ibv_post_recv");
}

int ib_post_recv(struct be_qp *qp, const struct be_recv_wr *wr, struct be_error *err)
{
	if (qp->srq)
		return be_error_set(err, BE_INVALID_STATE,
				    "post_recv: the QP takes its receives from an SRQ (post_srq_recv)");
	if (ib_is_xrc_type(qp->type))
		return be_error_set(err, BE_BAD_REQUEST,
				    "post_recv: an XRC QP has no receive queue (its domain's XRC SRQs take "
				    "the receives)");
	if (wr->num_sge > qp->max_recv_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs: the QP takes at most %u per receive",
				    wr->num_sge, qp->max_recv_sge);
	if (ib_check_post_state(qp, false, err))
		return -1;
	struct ibv_sge stack[MAX_SGE_ON_STACK];
	struct ibv_sge *sge = wr->num_sge <= MAX_SGE_ON_STACK ? stack : g_new(struct ibv_sge, wr->num_sge);
	ib_fill_sges(sge, wr->sge, wr->num_sge);
	struct ibv_recv_wr rwr = { .wr_id = wr->wr_id, .sg_list = sge, .num_sge = (int)wr->num_sge };
	struct ibv_recv_wr *bad = NULL;
	int e = ibv_post_recv(qp->qp, &rwr, &bad);
	if (sge != stack)
		g_free(sge);
	return e ? post_failed(false, e, err) : 0;
}

static bool is_atomic(enum be_wr_opcode op)
{
	return op == BE_WR_ATOMIC_CMP_AND_SWP || op == BE_WR_ATOMIC_FETCH_AND_ADD;
}

int ib_post_send(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err)
{
	if ((int)qp->type == IBV_QPT_XRC_RECV)
		return be_error_set(err, BE_BAD_REQUEST, "post_send: an XRC_RECV QP has no send queue");
	switch (wr->opcode) {
	case BE_WR_SEND:
	case BE_WR_SEND_WITH_IMM:
		break;
	case BE_WR_SEND_WITH_INV:
		if (!(qp->be->caps & BE_CAP_SEND_WITH_INV))
			return be_error_set(err, BE_UNSUPPORTED, "%s does not send with invalidate",
					    qp->be->name);
		break;
	case BE_WR_RDMA_WRITE:
	case BE_WR_RDMA_WRITE_WITH_IMM:
	case BE_WR_RDMA_READ:
	case BE_WR_ATOMIC_CMP_AND_SWP:
	case BE_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type == BE_QPT_UD)
			return be_error_set(err, BE_BAD_REQUEST, "a UD QP sends only SEND");
		if (qp->type == BE_QPT_UC && (wr->opcode == BE_WR_RDMA_READ || is_atomic(wr->opcode)))
			return be_error_set(err, BE_BAD_REQUEST, "a UC QP has no READ or atomics");
		if (is_atomic(wr->opcode) && !(qp->be->caps & BE_CAP_ATOMIC))
			return be_error_set(err, BE_UNSUPPORTED, "%s has no atomics", qp->be->name);
		break;
	case BE_WR_LOCAL_INV:
	case BE_WR_BIND_MW:
		break; /* mw.c checks them */
	case BE_WR_ATOMIC_WRITE:
		return ib_post_atomic_write(qp, wr, err); /* placement.c: the extended interface */
	case BE_WR_FLUSH:
		return ib_post_flush(qp, wr, err);
	default:
		return be_error_set(err, BE_BAD_REQUEST, "opcode %d: no such work request",
				    (int)wr->opcode);
	}
	if (qp->type == BE_QPT_UD && !wr->ah)
		return be_error_set(err, BE_BAD_REQUEST, "a UD send needs an ah");
	if (wr->num_sge > qp->max_send_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs: the QP takes at most %u per send",
				    wr->num_sge, qp->max_send_sge);
	if (ib_check_post_state(qp, true, err))
		return -1;

	struct ibv_sge stack[MAX_SGE_ON_STACK];
	struct ibv_sge *sge = wr->num_sge <= MAX_SGE_ON_STACK ? stack : g_new(struct ibv_sge, wr->num_sge);
	ib_fill_sges(sge, wr->sge, wr->num_sge);
	struct ibv_send_wr swr;
	memset(&swr, 0, sizeof swr);
	swr.wr_id = wr->wr_id;
	/* BIND_MW and LOCAL_INV carry no data. */
	bool local_op = wr->opcode == BE_WR_LOCAL_INV || wr->opcode == BE_WR_BIND_MW;
	swr.sg_list = local_op ? NULL : sge;
	swr.num_sge = local_op ? 0 : (int)wr->num_sge;
	swr.opcode = (enum ibv_wr_opcode)wr->opcode;
	swr.send_flags = (wr->signaled ? IBV_SEND_SIGNALED : 0) |
			 (wr->solicited ? IBV_SEND_SOLICITED : 0);
	if (wr->opcode == BE_WR_SEND_WITH_IMM || wr->opcode == BE_WR_RDMA_WRITE_WITH_IMM)
		swr.imm_data = htobe32(wr->imm_data);
	if (wr->opcode == BE_WR_SEND_WITH_INV)
		swr.invalidate_rkey = wr->invalidate_rkey;
	if (is_atomic(wr->opcode)) {
		swr.wr.atomic.remote_addr = wr->remote_addr;
		swr.wr.atomic.rkey = wr->rkey;
		swr.wr.atomic.compare_add = wr->compare_add;
		swr.wr.atomic.swap = wr->swap;
	} else if (wr->opcode == BE_WR_RDMA_WRITE || wr->opcode == BE_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == BE_WR_RDMA_READ) {
		swr.wr.rdma.remote_addr = wr->remote_addr;
		swr.wr.rdma.rkey = wr->rkey;
	}
	if (qp->type == BE_QPT_UD) {
		swr.wr.ud.ah = wr->ah->ah;
		swr.wr.ud.remote_qpn = wr->remote_qpn;
		swr.wr.ud.remote_qkey = wr->remote_qkey;
	}
	if ((int)qp->type == IBV_QPT_XRC_SEND)
		swr.qp_type.xrc.remote_srqn = wr->remote_srqn;
	if (local_op && ib_fill_mw_wr(qp, wr, &swr, err)) {
		if (sge != stack)
			g_free(sge);
		return -1;
	}
	struct ibv_send_wr *bad = NULL;
	int e = ibv_post_send(qp->qp, &swr, &bad);
	if (sge != stack)
		g_free(sge);
	if (e)
		return post_failed(true, e, err);
	if (local_op)
		ib_mw_posted(wr);
	return 0;
}

static unsigned wc_flags_of(unsigned f)
{
	return ((f & IBV_WC_GRH) ? BE_WC_GRH : 0) | ((f & IBV_WC_WITH_IMM) ? BE_WC_WITH_IMM : 0) |
	       ((f & IBV_WC_WITH_INV) ? BE_WC_WITH_INV : 0);
}

int ib_poll_cq(struct be_cq *cq, struct be_wc *out, unsigned max, unsigned *n,
	       struct be_error *err)
{
	struct ibv_wc wc[32];
	*n = 0;
	while (*n < max) {
		unsigned want = max - *n < G_N_ELEMENTS(wc) ? max - *n : G_N_ELEMENTS(wc);
		/* A provider writes only the members a completion has: what it
		 * leaves reads as 0, not as an earlier completion's. */
		memset(wc, 0, sizeof wc);
		int got = ibv_poll_cq(cq->cq, (int)want, wc);
		if (got < 0)
			return ib_verb_failed(err, -got, "ibv_poll_cq");
		for (int i = 0; i < got; i++) {
			struct be_wc *w = &out[(*n)++];
			memset(w, 0, sizeof *w);
			w->wr_id = wc[i].wr_id;
			w->status = (enum be_wc_status)wc[i].status;
			w->opcode = (enum be_wc_opcode)wc[i].opcode;
			w->byte_len = wc[i].byte_len;
			w->wc_flags = wc_flags_of(wc[i].wc_flags);
			w->wc_flags_raw = wc[i].wc_flags;
			/* imm_data and invalidated_rkey share their place: the
			 * rkey is read whenever no immediate data claims it, so
			 * that an rkey the device wrote shows even when its flag
			 * is not IBV_WC_WITH_INV (rxe: R11 of rxe-results.md). */
			if (wc[i].wc_flags & IBV_WC_WITH_IMM)
				w->imm_data = be32toh(wc[i].imm_data);
			else if (wc[i].status == IBV_WC_SUCCESS)
				w->invalidate_rkey = wc[i].invalidated_rkey;
			w->src_qp = wc[i].src_qp;
			w->qp_num = wc[i].qp_num;
		}
		if ((unsigned)got < want)
			break;
	}
	return 0;
}
