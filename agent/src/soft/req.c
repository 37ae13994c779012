/*
 * The requester (rocev2-rules.md §5.4): PSN assignment (a READ reserves one
 * PSN per response packet), AckReq on each message's last packet, go-back-N
 * on NAK PSN Sequence Error, local ACK timeout with retry_cnt, RNR waits
 * with rnr_retry, fatal NAKs, ghost ACKs, implied NAKs, response checks,
 * and completions in order. UC and UD complete when sent.
 */
#include "soft.h"

#include <string.h>

#define REQ_MAX_OUTSTANDING_PSNS 2048

void soft_qp_desc(struct be_qp *qp, struct roce_desc *d, uint8_t opcode, uint32_t psn)
{
	const struct roce_endpoint *ep = &qp->ep;
	struct roce_endpoint as_v2;
	if (ep->rocev1 && qp->type != BE_QPT_UD) {
		bool request = roce_opcode(opcode)->flags & ROCE_OPF_REQUEST;
		if (qp->dev->fault == (request ? SOFT_FAULT_V1_REQUESTS_AS_V2 : SOFT_FAULT_V1_RESPONSES_AS_V2)) {
			as_v2 = *ep;
			as_v2.rocev1 = false;
			ep = &as_v2;
		}
	}
	roce_endpoint_desc(ep, d, opcode, psn);
}

void soft_req_reset(struct be_qp *qp)
{
	memset(&qp->req, 0, sizeof qp->req);
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->sq_next = 0;
	qp->pkt_next = 0;
	memset(&qp->cc, 0, sizeof qp->cc);
}

static struct soft_swqe *sq_at(struct be_qp *qp, unsigned i)
{
	return &qp->sq[(qp->sq_head + i) % qp->max_send_wr];
}

static bool is_read(const struct soft_swqe *w)
{
	return w->wr.opcode == BE_WR_RDMA_READ;
}

static bool is_fetch_atomic(const struct soft_swqe *w)
{
	return w->wr.opcode == BE_WR_ATOMIC_CMP_AND_SWP || w->wr.opcode == BE_WR_ATOMIC_FETCH_AND_ADD;
}

/* A one-packet request answered by a response of its own: the atomics,
 * and FLUSH and ATOMIC WRITE (placement.c). */
static bool is_atomic(const struct soft_swqe *w)
{
	return is_fetch_atomic(w) || soft_placement_wr(w->wr.opcode);
}

static uint32_t last_psn(const struct soft_swqe *w)
{
	return roce_psn_add(w->first_psn, (int32_t)w->npkts - 1);
}

static unsigned qp_pmtu(const struct be_qp *qp)
{
	return qp->type == BE_QPT_UD ? soft_port_mtu(qp->dev) : qp->attr.path_mtu;
}

static enum roce_transport qp_transport(const struct be_qp *qp)
{
	return soft_qp_transport(qp);
}

static int64_t ack_timeout_us(const struct be_qp *qp)
{
	return (int64_t)(roce_ack_timeout_nsec(qp->attr.timeout) / 1000);
}

/* ---- Completion ---- */

static enum be_wc_opcode wc_opcode(enum be_wr_opcode op)
{
	switch (op) {
	case BE_WR_RDMA_WRITE:
	case BE_WR_RDMA_WRITE_WITH_IMM: return BE_WC_RDMA_WRITE;
	case BE_WR_RDMA_READ: return BE_WC_RDMA_READ;
	case BE_WR_ATOMIC_CMP_AND_SWP: return BE_WC_COMP_SWAP;
	case BE_WR_ATOMIC_FETCH_AND_ADD: return BE_WC_FETCH_ADD;
	case BE_WR_BIND_MW: return BE_WC_BIND_MW;
	case BE_WR_LOCAL_INV: return BE_WC_LOCAL_INV;
	default: return BE_WC_SEND;
	}
}

static void report(struct be_qp *qp, const struct soft_swqe *w)
{
	if (w->signaled || w->status != BE_WC_SUCCESS) {
		struct be_wc wc = { .wr_id = w->wr.wr_id, .status = w->status,
				    .opcode = soft_placement_wr(w->wr.opcode) ? soft_placement_wc_opcode(qp, w->wr.opcode)
									       : wc_opcode(w->wr.opcode),
				    .qp_num = qp->qpn };
		if (w->status == BE_WC_SUCCESS && is_read(w))
			wc.byte_len = (uint32_t)w->length;
		soft_cq_push(qp->scq, &wc);
	}
}

/* Reports finished WQEs from the head, in order. */
static void complete_done(struct be_qp *qp)
{
	bool newest_first = SOFT_FAULT_ON(qp->dev, COMPLETE_OUT_OF_ORDER);
	if (newest_first) {
		unsigned n = 0;
		while (n < qp->sq_count && sq_at(qp, n)->done)
			n++;
		while (n--)
			report(qp, sq_at(qp, n));
	}
	while (qp->sq_count && sq_at(qp, 0)->done) {
		struct soft_swqe *w = sq_at(qp, 0);
		if (!newest_first)
			report(qp, w);
		for (unsigned i = 0; i < w->num_sge; i++)
			soft_mr_unref(w->sge[i].mr);
		w->num_sge = 0;
		qp->sq_head = (qp->sq_head + 1) % qp->max_send_wr;
		qp->sq_count--;
		if (qp->sq_next)
			qp->sq_next--;
		else
			qp->pkt_next = 0;
	}
}

/* The WQE fails: it completes with status, the QP goes to Error and the
 * rest of both queues is flushed. */
static void req_fail(struct be_qp *qp, struct soft_swqe *w, enum be_wc_status status)
{
	w->done = true;
	w->status = status;
	/* Everything before w is complete by now (a NAK acknowledges all
	 * earlier PSNs); report up to and including w, then flush. */
	for (unsigned i = 0; i < qp->sq_count; i++) {
		struct soft_swqe *x = sq_at(qp, i);
		if (x == w)
			break;
		if (!x->done) {
			x->done = true;
			x->status = BE_WC_WR_FLUSH_ERR;
		}
	}
	complete_done(qp);
	soft_qp_to_error(qp);
}

/* ---- Sending ---- */

static int wqe_opcode(const struct be_qp *qp, const struct soft_swqe *w, uint32_t i)
{
	enum roce_op_kind kind;
	bool last = i + 1 >= w->npkts;
	unsigned flags = 0;
	enum roce_position pos;
	switch (w->wr.opcode) {
	case BE_WR_RDMA_READ: return roce_opcode_find(qp_transport(qp), ROCE_K_READ_REQ, ROCE_POS_ONLY, 0, 0);
	case BE_WR_ATOMIC_CMP_AND_SWP: return roce_opcode_find(qp_transport(qp), ROCE_K_CMP_SWAP, ROCE_POS_ONLY, 0, 0);
	case BE_WR_ATOMIC_FETCH_AND_ADD: return roce_opcode_find(qp_transport(qp), ROCE_K_FETCH_ADD, ROCE_POS_ONLY, 0, 0);
	case BE_WR_FLUSH: return roce_opcode_find(qp_transport(qp), ROCE_K_FLUSH, ROCE_POS_ONLY, 0, 0);
	case BE_WR_ATOMIC_WRITE: return roce_opcode_find(qp_transport(qp), ROCE_K_ATOMIC_WRITE, ROCE_POS_ONLY, 0, 0);
	case BE_WR_RDMA_WRITE: kind = ROCE_K_WRITE; break;
	case BE_WR_RDMA_WRITE_WITH_IMM: kind = ROCE_K_WRITE; flags = last ? ROCE_OPF_IMM : 0; break;
	case BE_WR_SEND_WITH_IMM: kind = ROCE_K_SEND; flags = last ? ROCE_OPF_IMM : 0; break;
	case BE_WR_SEND_WITH_INV: kind = ROCE_K_SEND; flags = last ? ROCE_OPF_INV : 0; break;
	default: kind = ROCE_K_SEND; break;
	}
	pos = roce_position_of(i - w->restart_at, w->npkts - w->restart_at);
	return roce_opcode_find(qp_transport(qp), kind, pos, ROCE_OPF_IMM | ROCE_OPF_INV, flags);
}

/* Sends packet i of w (READ: the request restarting at response i).
 * Returns false when the packet could not go (no MAC). */
static bool send_packet(struct be_qp *qp, struct soft_swqe *w, uint32_t i)
{
	struct soft_dev *dev = qp->dev;
	unsigned pmtu = qp_pmtu(qp);
	int opcode = wqe_opcode(qp, w, i);
	if (opcode < 0)
		return false;
	struct roce_endpoint saved;
	if (qp->type == BE_QPT_UD) {
		char why[160];
		saved = qp->ep;
		if (!soft_av_endpoint(dev, &w->av, &qp->ep, true, why, sizeof why)) {
			qp->ep = saved;
			dev->cnt.tx_no_neighbour++;
			return false;
		}
		qp->ep.dest_qpn = w->wr.remote_qpn;
		qp->ep.udp_sport = (uint16_t)(0xC000 | ((qp->qpn ^ w->wr.remote_qpn) & 0x3FFF));
		/* The format is the AH's GID type's, per work request (CA17-42). */
		if (SOFT_FAULT_ON(dev, UD_V1_AS_V2))
			qp->ep.rocev1 = false;
	} else if (!qp->mac_ok) {
		if (!soft_neigh_resolve(dev, qp->ep.ip_version, qp->ep.dst_ip, qp->ep.dst_mac)) {
			dev->cnt.tx_no_neighbour++;
			return false;
		}
		qp->mac_ok = true;
	}

	struct roce_desc d;
	uint32_t psn = roce_psn_add(w->first_psn, (int32_t)i);
	soft_qp_desc(qp, &d, (uint8_t)opcode, psn);
	if (qp->type == BE_QPT_UD)
		qp->ep = saved;
	const struct roce_opcode_info *op = roce_opcode((uint8_t)opcode);
	bool last = op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY;

	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_RETH)) {
		uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
		uint64_t off = (uint64_t)(is_read(w) ? i : w->restart_at) * pmtu;
		roce_reth_set_va(reth, w->wr.remote_addr + off);
		roce_reth_set_rkey(reth, w->wr.rkey);
		roce_reth_set_dmalen(reth, w->length - (off < w->length ? off : w->length));
	}
	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_ATOMICETH)) {
		uint8_t *a = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
		roce_atomiceth_set_va(a, w->wr.remote_addr);
		roce_atomiceth_set_rkey(a, w->wr.rkey);
		if (w->wr.opcode == BE_WR_ATOMIC_CMP_AND_SWP) {
			roce_atomiceth_set_swapdt(a, w->wr.swap);
			roce_atomiceth_set_cmpdt(a, w->wr.compare_add);
		} else {
			roce_atomiceth_set_swapdt(a, w->wr.compare_add);
		}
	}
	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_IMMDT))
		roce_immdt_set_imm(roce_desc_hdr(&d, ROCE_H_IMMDT), w->wr.imm_data);
	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_IETH))
		roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), w->wr.invalidate_rkey);
	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_XRCETH))
		soft_xrc_build(qp, &w->wr, &d);
	if (op->kind == ROCE_K_FLUSH || op->kind == ROCE_K_ATOMIC_WRITE)
		soft_placement_build(qp, &w->wr, &d);
	if (op->xhdrs & ROCE_XHDR_BIT(ROCE_H_DETH)) {
		uint8_t *deth = roce_desc_hdr(&d, ROCE_H_DETH);
		/* A Q_Key with the MSB set means "use the QP's own" (controlled Q_Key). */
		roce_deth_set_qkey(deth, (w->wr.remote_qkey & 0x80000000u) ? qp->attr.qkey : w->wr.remote_qkey);
		roce_deth_set_srcqp(deth, qp->qpn);
	}
	if (op->flags & ROCE_OPF_PAYLOAD) {
		uint64_t off = (uint64_t)i * pmtu;
		uint64_t n = w->length - off < pmtu ? w->length - off : pmtu;
		if (!is_read(w) && n) {
			soft_sge_copy(w->sge, w->num_sge, off, dev->payload, n, false);
			d.payload = dev->payload;
			d.payload_len = (size_t)n;
		}
	}
	bool ackreq = soft_qp_reliable(qp) && (last || is_read(w) || is_atomic(w));
	if (ackreq)
		roce_bth_set_ackreq(d.bth, 1);
	bool solicitable = w->wr.opcode == BE_WR_SEND || w->wr.opcode == BE_WR_SEND_WITH_IMM ||
			   w->wr.opcode == BE_WR_SEND_WITH_INV || w->wr.opcode == BE_WR_RDMA_WRITE_WITH_IMM;
	if (w->wr.solicited && solicitable && last)
		roce_bth_set_se(d.bth, 1);
	soft_xmit(dev, &d);
	return true;
}

static unsigned outstanding_rd_atomic(struct be_qp *qp)
{
	unsigned n = 0;
	for (unsigned i = 0; i < qp->sq_next && i < qp->sq_count; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (!w->done && (is_read(w) || is_atomic(w)))
			n++;
	}
	return n;
}

static bool outstanding(struct be_qp *qp)
{
	for (unsigned i = 0; i < qp->sq_count; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (i > qp->sq_next || (i == qp->sq_next && qp->pkt_next == 0))
			break;
		if (!w->done)
			return true;
	}
	return false;
}

static void arm_ack_timer(struct be_qp *qp, bool restart)
{
	if (!soft_qp_reliable(qp))
		return;
	int64_t t = ack_timeout_us(qp);
	if (!t || !outstanding(qp)) {
		qp->req.ack_deadline = 0;
		return;
	}
	if (restart || !qp->req.ack_deadline)
		qp->req.ack_deadline = soft_now_us() + t;
}

void soft_req_kick(struct be_qp *qp)
{
	struct soft_dev *dev = qp->dev;
	if (qp->attr.state != BE_QPS_RTS || qp->req.rnr_deadline)
		return;
	unsigned pmtu = qp_pmtu(qp);
	int64_t now = soft_now_us();
	while (qp->sq_next < qp->sq_count && qp->attr.state == BE_QPS_RTS) {
		struct soft_swqe *w = sq_at(qp, qp->sq_next);
		if (soft_mw_local_wr(w->wr.opcode)) {
			/* A bind or local invalidation: no packet, executed in
			 * its turn and completed in order (mw.c). */
			if (!w->done) {
				w->assigned = true;
				w->first_psn = qp->req.next_psn;
				w->npkts = 0;
				w->status = soft_mw_exec(qp, &w->wr);
				if (w->status != BE_WC_SUCCESS) {
					req_fail(qp, w, w->status);
					return;
				}
				w->done = true;
			}
			qp->sq_next++;
			qp->pkt_next = 0;
			continue;
		}
		if (!w->assigned) {
			if (soft_qp_reliable(qp)) {
				unsigned max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
				if ((is_read(w) || is_atomic(w)) && outstanding_rd_atomic(qp) >= max)
					break;
				if (soft_psn_diff(qp->dev, qp->req.next_psn, qp->req.acked_psn) > REQ_MAX_OUTSTANDING_PSNS)
					break;
			}
			w->assigned = true;
			w->first_psn = qp->req.next_psn;
			if (is_read(w)) {
				w->nresp = roce_packets_for(w->length, pmtu);
				w->npkts = SOFT_FAULT_ON(dev, NO_PSN_RESERVE) ? 1 : w->nresp;
			} else {
				w->npkts = is_atomic(w) ? 1 : roce_packets_for(w->length, pmtu);
			}
			qp->req.next_psn = roce_psn_add(qp->req.next_psn, (int32_t)w->npkts);
			qp->pkt_next = 0;
		}
		uint32_t to_send = (is_read(w) || is_atomic(w)) ? 1 : w->npkts;
		if (is_read(w) && qp->pkt_next < w->nresp) {
			/* one request, restarting at response pkt_next */
			if (!soft_cc_may_send(qp, 64, now))
				break;
			send_packet(qp, w, qp->pkt_next);
			qp->pkt_next = w->nresp;
		}
		while (!is_read(w) && qp->pkt_next < to_send) {
			uint64_t off = (uint64_t)qp->pkt_next * pmtu;
			size_t bytes = 64 + (size_t)(w->length > off ? (w->length - off < pmtu ? w->length - off : pmtu) : 0);
			if (!soft_cc_may_send(qp, bytes, now))
				goto paced;
			send_packet(qp, w, qp->pkt_next);
			qp->pkt_next++;
		}
		if (!soft_qp_reliable(qp) ||
		    (SOFT_FAULT_ON(dev, COMPLETE_EARLY) && !is_read(w) && !is_atomic(w))) {
			w->done = true;
			w->status = BE_WC_SUCCESS;
		}
		qp->sq_next++;
		qp->pkt_next = 0;
	}
paced:
	arm_ack_timer(qp, false);
	complete_done(qp);
}

/* Go back to psn (inside an assigned WQE) and resend from there. count
 * says whether this uses up a retry (NAK, timeout, implied NAK). */
static void go_back(struct be_qp *qp, uint32_t psn, bool count)
{
	struct soft_dev *dev = qp->dev;
	struct soft_swqe *head = NULL;
	for (unsigned i = 0; i < qp->sq_count; i++)
		if (!sq_at(qp, i)->done) {
			head = sq_at(qp, i);
			break;
		}
	if (!head)
		return;
	if (count) {
		if (qp->req.retry_left == 0 && !SOFT_FAULT_ON(dev, RETRY_FOREVER)) {
			req_fail(qp, head, BE_WC_RETRY_EXC_ERR);
			return;
		}
		if (qp->req.retry_left)
			qp->req.retry_left--;
	}
	for (unsigned i = 0; i < qp->sq_count && i <= qp->sq_next; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (!w->assigned)
			break;
		if (w->done || soft_psn_diff(qp->dev, psn, w->first_psn) < 0 || soft_psn_diff(qp->dev, psn, last_psn(w)) > 0)
			continue;
		uint32_t k = (uint32_t)soft_psn_diff(qp->dev, psn, w->first_psn);
		if (SOFT_FAULT_ON(dev, GO_BACK_0))
			k = 0;
		if (is_atomic(w))
			k = 0;
		if (SOFT_FAULT_ON(dev, RETRY_RESTARTS_MESSAGE) && !is_read(w))
			w->restart_at = k;
		if (is_read(w)) {
			if (k > w->nresp - 1)
				k = w->nresp - 1;
			w->resp_got = k;
			w->resp_base = k;
			w->retrying = true;
		}
		qp->sq_next = i;
		qp->pkt_next = k;
		dev->cnt.req_retransmits++;
		qp->req.ack_deadline = 0;
		soft_req_kick(qp);
		return;
	}
}

/* The oldest PSN not yet acknowledged. */
static bool oldest_unacked(struct be_qp *qp, uint32_t *psn)
{
	for (unsigned i = 0; i < qp->sq_count; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (!w->assigned)
			return false;
		if (w->done)
			continue;
		if (is_read(w)) {
			*psn = roce_psn_add(w->first_psn, (int32_t)w->resp_got);
		} else {
			uint32_t next = roce_psn_add(qp->req.acked_psn, 1);
			*psn = soft_psn_diff(qp->dev, next, w->first_psn) > 0 ? next : w->first_psn;
		}
		return true;
	}
	return false;
}

/* Everything up to psn is acknowledged. Returns false when that implied a
 * lost READ/atomic response and a retry was started instead. */
static bool ack_upto(struct be_qp *qp, uint32_t psn)
{
	bool progress = false;
	for (unsigned i = 0; i < qp->sq_count; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (!w->assigned)
			break;
		if (w->done)
			continue;
		if (soft_psn_diff(qp->dev, psn, last_psn(w)) < 0)
			break;
		if ((is_read(w) || is_atomic(w)) && !SOFT_FAULT_ON(qp->dev, NO_IMPLIED_NAK)) {
			/* An ACK past an unanswered READ or atomic: its response
			 * was lost (implied NAK). */
			qp->dev->cnt.req_implied_naks++;
			if (!w->retrying || soft_psn_diff(qp->dev, psn, last_psn(w)) > 0) {
				go_back(qp, roce_psn_add(w->first_psn, (int32_t)w->resp_got), true);
			}
			return false;
		}
		w->done = true;
		w->status = BE_WC_SUCCESS;
		progress = true;
	}
	if (soft_psn_diff(qp->dev, psn, qp->req.acked_psn) > 0)
		qp->req.acked_psn = psn;
	if (progress) {
		qp->req.retry_left = qp->attr.retry_cnt;
		qp->req.rnr_left = qp->attr.rnr_retry;
		arm_ack_timer(qp, true);
	}
	return true;
}

/* Whether psn names a packet that was sent and is not yet acknowledged. */
static bool in_window(struct be_qp *qp, uint32_t psn)
{
	uint32_t newest = roce_psn_add(qp->req.next_psn, -1);
	return soft_psn_diff(qp->dev, psn, qp->req.acked_psn) > 0 && soft_psn_diff(qp->dev, psn, newest) <= 0;
}

static struct soft_swqe *wqe_of(struct be_qp *qp, uint32_t psn)
{
	for (unsigned i = 0; i < qp->sq_count; i++) {
		struct soft_swqe *w = sq_at(qp, i);
		if (!w->assigned)
			return NULL;
		if (soft_psn_diff(qp->dev, psn, w->first_psn) >= 0 &&
		    soft_psn_diff(qp->dev, psn, roce_psn_add(w->first_psn, (int32_t)(is_read(w) ? w->nresp : w->npkts) - 1)) <= 0)
			return w;
	}
	return NULL;
}

static enum be_wc_status nak_status(unsigned code)
{
	switch (code) {
	case ROCE_NAK_INVALID_REQUEST: return BE_WC_REM_INV_REQ_ERR;
	case ROCE_NAK_REMOTE_ACCESS: return BE_WC_REM_ACCESS_ERR;
	case ROCE_NAK_REMOTE_OP: return BE_WC_REM_OP_ERR;
	case ROCE_NAK_INVALID_RD_REQUEST: return BE_WC_REM_INV_RD_REQ_ERR;
	default: return BE_WC_BAD_RESP_ERR;
	}
}

/* Whether responses are checked against what was asked (their opcode
 * sequence, length and AETH type): a fault profile can leave it out. */
static bool checks_responses(const struct be_qp *qp)
{
	return !SOFT_FAULT_ON(qp->dev, NO_RESP_CHECK);
}

static void bad_response(struct be_qp *qp, struct soft_swqe *w)
{
	qp->dev->cnt.req_bad_responses++;
	if (checks_responses(qp))
		req_fail(qp, w, BE_WC_BAD_RESP_ERR);
}

static void on_ack(struct be_qp *qp, const struct soft_rx *rx, const uint8_t *aeth)
{
	struct soft_dev *dev = qp->dev;
	uint32_t psn = rx->psn;
	unsigned type = roce_aeth_type(aeth), value = roce_aeth_value(aeth);
	/* Counted as received, whether or not it still matters (an older
	 * NAK than one already acted on is ignored below). */
	if (type == ROCE_SYN_RNR_NAK)
		dev->cnt.req_rnr_naks++;
	else if (type == ROCE_SYN_NAK && value == ROCE_NAK_PSN_SEQ_ERR)
		dev->cnt.req_seq_naks++;
	if (!in_window(qp, psn)) {
		uint32_t newest = roce_psn_add(qp->req.next_psn, -1);
		if (soft_psn_diff(qp->dev, psn, newest) > 0) {
			dev->cnt.req_ghost_acks++;
			if (SOFT_FAULT_ON(dev, ACCEPT_GHOST_ACK) && type == ROCE_SYN_ACK) {
				for (unsigned i = 0; i < qp->sq_count && i < qp->sq_next; i++) {
					sq_at(qp, i)->done = true;
					sq_at(qp, i)->status = BE_WC_SUCCESS;
				}
				complete_done(qp);
			}
		}
		/* An older ACK than one already seen: nothing new. A NAK for
		 * the next expected PSN still matters, though. */
		if (!(type != ROCE_SYN_ACK && psn == roce_psn_add(qp->req.acked_psn, 1)))
			return;
	}
	switch (type) {
	case ROCE_SYN_ACK:
		ack_upto(qp, psn);
		break;
	case ROCE_SYN_RNR_NAK: {
		if (!ack_upto(qp, roce_psn_add(psn, -1)))
			break;
		struct soft_swqe *w = wqe_of(qp, psn);
		if (!w)
			break;
		if (qp->attr.rnr_retry != 7 && !SOFT_FAULT_ON(dev, RNR_RETRY_FOREVER)) {
			if (qp->req.rnr_left == 0) {
				req_fail(qp, w, BE_WC_RNR_RETRY_EXC_ERR);
				break;
			}
			qp->req.rnr_left--;
		}
		/* Go back now, resend when the timer says. */
		int64_t wait = SOFT_FAULT_ON(dev, RNR_NO_WAIT) ? 0 : roce_rnr_timer_usec(value);
		qp->req.rnr_deadline = soft_now_us() + (wait ? wait : 1);
		go_back(qp, psn, false);
		break;
	}
	case ROCE_SYN_NAK:
		if (value == ROCE_NAK_PSN_SEQ_ERR) {
			if (ack_upto(qp, roce_psn_add(psn, -1)))
				go_back(qp, psn, true);
		} else {
			if (!ack_upto(qp, roce_psn_add(psn, -1)))
				break;
			struct soft_swqe *w = wqe_of(qp, psn);
			if (!w)
				break;
			if (is_read(w) && psn != w->first_psn && SOFT_FAULT_ON(dev, BUG_READ_NAK_IGNORED))
				break; /* left to the retry timer, which resends the READ */
			if (SOFT_FAULT_ON(dev, FATAL_NAK_IGNORED)) {
				ack_upto(qp, psn);
				break;
			}
			req_fail(qp, w, nak_status(value));
		}
		break;
	default:
		break;
	}
}

static void on_read_response(struct be_qp *qp, const struct soft_rx *rx)
{
	uint32_t psn = rx->psn;
	if (!in_window(qp, psn)) {
		if (soft_psn_diff(qp->dev, psn, roce_psn_add(qp->req.next_psn, -1)) > 0)
			qp->dev->cnt.req_ghost_acks++;
		return;
	}
	if (!ack_upto(qp, roce_psn_add(psn, -1)))
		return;
	struct soft_swqe *w = wqe_of(qp, psn);
	if (!w || w->done)
		return;
	if (soft_placement_wr(w->wr.opcode) && psn == w->first_psn) {
		/* FLUSH and ATOMIC WRITE: a zero-length READ Response Only. */
		if (!soft_placement_response_ok(qp, rx) && checks_responses(qp)) {
			bad_response(qp, w);
			return;
		}
		w->done = true;
		w->status = BE_WC_SUCCESS;
		qp->req.acked_psn = psn;
		qp->req.retry_left = qp->attr.retry_cnt;
		arm_ack_timer(qp, true);
		return;
	}
	if (!is_read(w)) {
		bad_response(qp, w);
		return;
	}
	uint32_t expected = roce_psn_add(w->first_psn, (int32_t)w->resp_got);
	int32_t d = soft_psn_diff(qp->dev, psn, expected);
	if (d < 0)
		return; /* a duplicate from before a retry */
	if (d > 0) {
		qp->dev->cnt.req_implied_naks++;
		if (!w->retrying)
			go_back(qp, expected, true);
		return;
	}
	unsigned pmtu = qp->attr.path_mtu;
	uint64_t off = (uint64_t)w->resp_got * pmtu;
	uint64_t remaining = w->length > off ? w->length - off : 0;
	enum roce_position want = roce_position_of(w->resp_got - w->resp_base, w->nresp - w->resp_base);
	const uint8_t *aeth = roce_pkt_hdr(rx->p, ROCE_H_AETH);
	bool last = want == ROCE_POS_LAST || want == ROCE_POS_ONLY;
	if (checks_responses(qp)) {
		bool ok = rx->op->position == want;
		if (aeth && roce_aeth_type(aeth) != ROCE_SYN_ACK)
			ok = false;
		if (rx->payload_len != (last ? remaining : pmtu))
			ok = false;
		if (!ok) {
			bad_response(qp, w);
			return;
		}
	}
	uint64_t n = rx->payload_len < remaining ? rx->payload_len : remaining;
	soft_sge_copy(w->sge, w->num_sge, off, (uint8_t *)rx->payload, n, true);
	w->resp_got++;
	w->retrying = false;
	qp->req.acked_psn = psn;
	qp->req.retry_left = qp->attr.retry_cnt;
	if (w->resp_got >= w->nresp || (!checks_responses(qp) && last)) {
		w->done = true;
		w->status = BE_WC_SUCCESS;
		qp->req.acked_psn = last_psn(w);
	}
	arm_ack_timer(qp, true);
}

static void on_atomic_ack(struct be_qp *qp, const struct soft_rx *rx)
{
	uint32_t psn = rx->psn;
	if (!in_window(qp, psn)) {
		if (soft_psn_diff(qp->dev, psn, roce_psn_add(qp->req.next_psn, -1)) > 0)
			qp->dev->cnt.req_ghost_acks++;
		return;
	}
	if (!ack_upto(qp, roce_psn_add(psn, -1)))
		return;
	struct soft_swqe *w = wqe_of(qp, psn);
	if (!w || w->done)
		return;
	const uint8_t *aeth = roce_pkt_hdr(rx->p, ROCE_H_AETH);
	if (!is_fetch_atomic(w) || (roce_aeth_type(aeth) != ROCE_SYN_ACK && checks_responses(qp))) {
		bad_response(qp, w);
		return;
	}
	uint8_t v[8];
	uint64_t orig = roce_atomicacketh_orig(roce_pkt_hdr(rx->p, ROCE_H_ATOMICACKETH));
	memcpy(v, &orig, 8); /* host order, as an atomic on this host stores it */
	soft_sge_copy(w->sge, w->num_sge, 0, v, 8, true);
	w->done = true;
	w->status = BE_WC_SUCCESS;
	qp->req.acked_psn = psn;
	qp->req.retry_left = qp->attr.retry_cnt;
	arm_ack_timer(qp, true);
}

void soft_req_rx(struct be_qp *qp, const struct soft_rx *rx)
{
	if (qp->type != BE_QPT_RC && qp->type != BE_QPT_XRC_SEND) {
		qp->dev->cnt.rx_drop_opcode++;
		return;
	}
	switch (rx->op->kind) {
	case ROCE_K_ACK:
		on_ack(qp, rx, roce_pkt_hdr(rx->p, ROCE_H_AETH));
		break;
	case ROCE_K_READ_RESP:
		on_read_response(qp, rx);
		break;
	case ROCE_K_ATOMIC_ACK:
		on_atomic_ack(qp, rx);
		break;
	default:
		qp->dev->cnt.rx_drop_opcode++;
		return;
	}
	if (qp->attr.state == BE_QPS_RTS) {
		complete_done(qp);
		soft_req_kick(qp);
	}
}

void soft_req_timers(struct be_qp *qp, int64_t now)
{
	if (qp->attr.state != BE_QPS_RTS)
		return;
	if (qp->req.rnr_deadline && now >= qp->req.rnr_deadline) {
		qp->req.rnr_deadline = 0;
		soft_req_kick(qp);
	}
	if (qp->req.ack_deadline && now >= qp->req.ack_deadline) {
		qp->req.ack_deadline = 0;
		uint32_t psn;
		if (!outstanding(qp) || !oldest_unacked(qp, &psn))
			return;
		qp->dev->cnt.req_timeouts++;
		if (SOFT_FAULT_ON(qp->dev, NO_TIMEOUT_RETRY))
			return;
		struct soft_swqe *w = wqe_of(qp, psn);
		if (w && is_read(w))
			w->retrying = false;
		go_back(qp, psn, true);
	}
	if (qp->cc.next_tx_us && now >= qp->cc.next_tx_us)
		soft_req_kick(qp);
}

int64_t soft_req_next_deadline(const struct be_qp *qp)
{
	int64_t a = qp->req.ack_deadline, b = qp->req.rnr_deadline;
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}
