/*
 * The responder (rocev2-rules.md §5.2, §5.3): RC with PSN classes, one NAK
 * PSN Sequence Error per gap, duplicates (re-ACK, READ replay, saved atomic
 * value), opcode sequence, access and length rules, RNR; UC with
 * drop-on-gap; UD with the Q_Key already checked and the 40-byte L3 header
 * in front of the data.
 */
#include "soft.h"

#include <string.h>

void soft_resp_reset(struct be_qp *qp)
{
	soft_placement_settle(qp, NULL);
	if (qp->resp.have_wqe) {
		for (unsigned i = 0; i < qp->resp.wqe.num_sge; i++)
			soft_mr_unref(qp->resp.wqe.sge[i].mr);
		qp->resp.have_wqe = false;
	}
	if (qp->resp.wmr) {
		soft_mr_unref(qp->resp.wmr);
		qp->resp.wmr = NULL;
	}
	g_free(qp->resp.res);
	memset(&qp->resp, 0, sizeof qp->resp);
}

static void set_write_mr(struct be_qp *qp, struct be_mr *mr)
{
	if (qp->resp.wmr)
		soft_mr_unref(qp->resp.wmr);
	qp->resp.wmr = mr;
	if (mr)
		mr->refs++;
}

/* ---- Sending ACKs, NAKs, responses ---- */

static void reply_to(struct be_qp *qp, const struct soft_rx *rx)
{
	memcpy(qp->ep.dst_mac, rx->src_mac, 6);
	qp->mac_ok = true;
}

static uint32_t msn_of(const struct be_qp *qp)
{
	return qp->resp.msn & 0xFFFFFF;
}

static void send_aeth(struct be_qp *qp, const struct soft_rx *rx, unsigned type, unsigned value,
		      uint32_t psn)
{
	struct roce_desc d;
	reply_to(qp, rx);
	soft_qp_desc(qp, &d, (uint8_t)roce_opcode_find(soft_qp_transport(qp), ROCE_K_ACK, ROCE_POS_ONLY, 0, 0), psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(aeth, type);
	roce_aeth_set_value(aeth, value);
	roce_aeth_set_msn(aeth, msn_of(qp));
	soft_xmit(qp->dev, &d);
}

static void send_ack(struct be_qp *qp, const struct soft_rx *rx, uint32_t psn)
{
	send_aeth(qp, rx, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, psn);
}

/* A NAK for the request at rx. Invalid Request, Remote Access and Remote
 * Operational errors are fatal to the responder's QP (classes A and C). */
static void send_nak(struct be_qp *qp, const struct soft_rx *rx, enum roce_nak_code code)
{
	send_aeth(qp, rx, ROCE_SYN_NAK, code, rx->psn);
}

static void fatal(struct be_qp *qp, const struct soft_rx *rx, enum roce_nak_code code,
		  enum be_wc_status recv_status)
{
	if (soft_qp_reliable(qp))
		send_nak(qp, rx, code);
	if (qp->resp.have_wqe && recv_status != BE_WC_SUCCESS) {
		struct be_wc wc = { .wr_id = qp->resp.wqe.wr_id, .status = recv_status,
				    .opcode = BE_WC_RECV, .qp_num = qp->qpn };
		soft_cq_push(qp->rcq, &wc);
		for (unsigned i = 0; i < qp->resp.wqe.num_sge; i++)
			soft_mr_unref(qp->resp.wqe.sge[i].mr);
		qp->resp.have_wqe = false;
	}
	soft_qp_to_error(qp);
}

static void send_read_response(struct be_qp *qp, const struct soft_rx *rx, const uint8_t *mem,
			       uint64_t len, uint32_t psn)
{
	unsigned seg = qp->attr.path_mtu;
	if (SOFT_FAULT_ON(qp->dev, READ_RESP_HALF_MTU))
		seg /= 2;
	uint32_t n = roce_packets_for(len, seg);
	reply_to(qp, rx);
	for (uint32_t i = 0; i < n; i++) {
		enum roce_position pos = roce_position_of(i, n);
		struct roce_desc d;
		soft_qp_desc(qp, &d, (uint8_t)roce_opcode_find(soft_qp_transport(qp), ROCE_K_READ_RESP, pos, 0, 0),
			     roce_psn_add(psn, (int32_t)i));
		uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
		if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_AETH)) {
			roce_aeth_set_type(aeth, ROCE_SYN_ACK);
			roce_aeth_set_value(aeth, ROCE_AETH_ACK_UNLIMITED);
			roce_aeth_set_msn(aeth, msn_of(qp));
		}
		uint64_t off = (uint64_t)i * seg;
		d.payload = mem ? mem + off : NULL;
		d.payload_len = len - off < seg ? (size_t)(len - off) : seg;
		soft_xmit(qp->dev, &d);
	}
}

static void send_atomic_ack(struct be_qp *qp, const struct soft_rx *rx, uint32_t psn, uint64_t orig)
{
	struct roce_desc d;
	reply_to(qp, rx);
	soft_qp_desc(qp, &d, (uint8_t)roce_opcode_find(soft_qp_transport(qp), ROCE_K_ATOMIC_ACK, ROCE_POS_ONLY, 0, 0),
		     psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(aeth, ROCE_SYN_ACK);
	roce_aeth_set_value(aeth, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(aeth, msn_of(qp));
	roce_atomicacketh_set_orig(roce_desc_hdr(&d, ROCE_H_ATOMICACKETH), orig);
	soft_xmit(qp->dev, &d);
}

/* ---- Memory ---- */

/* The MR an rkey names for this access (every right of right), with
 * [*va, *va + len) inside what the key reaches; NULL when the key, the
 * rights or the bounds are wrong. *va becomes the MR's address of the
 * request's (they differ through a zero-based window). */
static struct be_mr *remote_mr(struct be_qp *qp, uint32_t rkey, uint64_t *vap, uint64_t len,
			       unsigned right)
{
	uint64_t va = *vap;
	struct be_mr *mr;
	if (SOFT_FAULT_ON(qp->dev, NO_ACCESS_CHECK)) {
		/* Whatever MR of the QP's PD holds the range, key and rights
		 * unchecked; never another PD's memory, even broken. */
		GHashTableIter it;
		gpointer k, v;
		mr = NULL;
		g_hash_table_iter_init(&it, qp->dev->mrs);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			struct be_mr *m = v;
			if (m->pd == soft_rkey_pd(qp) && m->valid && va >= m->addr && len <= m->length &&
			    va - m->addr <= m->length - len)
				mr = m;
		}
		if (!mr)
			return NULL;
		if (va < mr->addr || len > mr->length || va - mr->addr > mr->length - len)
			return NULL;
		return mr;
	}
	/* The MR's or a window's range and rights (mw.c). */
	struct soft_rkey k;
	if (!soft_rkey_resolve(qp, rkey, &k) || (k.access & right) != right)
		return NULL;
	if (len && va + len < va && SOFT_FAULT_ON(qp->dev, BUG_BOUNDS_WRAP_HALT)) {
		qp->dev->fs.halted = true; /* the wrapped range let through, and the device down with it */
		return NULL;
	}
	if (va < k.addr || len > k.length || va - k.addr > k.length - len)
		return NULL;
	*vap = va + k.shift;
	return k.mr;
}

/* Checks a receive WQE's SGEs can take data (LOCAL_WRITE, same PD). */
static bool rwqe_ok(const struct be_qp *qp, const struct soft_rwqe *w)
{
	for (unsigned i = 0; i < w->num_sge; i++) {
		const struct be_mr *mr = w->sge[i].mr;
		if (!mr->valid || mr->pd != soft_rkey_pd(qp) || !(mr->access & BE_ACCESS_LOCAL_WRITE))
			return false;
	}
	return true;
}

enum exec_result { EXEC_OK, EXEC_RNR, EXEC_ERROR, EXEC_DROP_MSG };

/* Takes the next receive WQE (recv.c: the RQ or the SRQ) into resp.wqe:
 * EXEC_OK, EXEC_RNR when there is none, EXEC_DROP_MSG when the packet is
 * to be dropped unanswered. */
static enum exec_result take_rwqe(struct be_qp *qp)
{
	if (qp->resp.have_wqe)
		return EXEC_OK;
	switch (soft_recv_take(qp, &qp->resp.wqe)) {
	case SOFT_RECV_TAKEN:
		qp->resp.have_wqe = true;
		qp->resp.wqe_off = 0;
		return EXEC_OK;
	case SOFT_RECV_EMPTY:
		return EXEC_RNR;
	default:
		return EXEC_DROP_MSG;
	}
}

static void complete_rwqe(struct be_qp *qp, const struct soft_rx *rx, enum be_wc_opcode opc,
			  uint32_t byte_len, enum be_wc_status status)
{
	struct be_wc wc = { .wr_id = qp->resp.wqe.wr_id, .status = status, .opcode = opc,
			    .byte_len = byte_len, .qp_num = qp->qpn };
	if (qp->type == BE_QPT_UD) {
		wc.src_qp = roce_deth_srcqp(roce_pkt_hdr(rx->p, ROCE_H_DETH));
		wc.wc_flags |= BE_WC_GRH;
	} else {
		wc.src_qp = qp->attr.dest_qpn;
	}
	const uint8_t *imm = roce_pkt_hdr(rx->p, ROCE_H_IMMDT);
	if (imm && (rx->op->flags & ROCE_OPF_IMM)) {
		wc.imm_data = roce_immdt_imm(imm);
		wc.wc_flags |= BE_WC_WITH_IMM;
	}
	const uint8_t *ieth = roce_pkt_hdr(rx->p, ROCE_H_IETH);
	if (ieth && (rx->op->flags & ROCE_OPF_INV) && status == BE_WC_SUCCESS) {
		/* Remote invalidation (mw.c). A refusal fails the receive
		 * (REM_INV_REQ_ERR, as rxe's class J) and, once the request is
		 * answered, the QP. */
		switch (soft_mw_remote_invalidate(qp, roce_ieth_rkey(ieth))) {
		case SOFT_INV_DONE:
			soft_mw_inv_completion(qp->dev, &wc, roce_ieth_rkey(ieth));
			break;
		case SOFT_INV_REFUSED:
			wc.status = BE_WC_REM_INV_REQ_ERR;
			wc.wc_flags = 0;
			wc.imm_data = 0;
			qp->resp.inv_refused = true;
			break;
		}
	}
	soft_cq_push(qp->rcq, &wc);
	qp->resp.have_last_recv = wc.status == BE_WC_SUCCESS;
	qp->resp.last_recv_len = wc.byte_len;
	for (unsigned i = 0; i < qp->resp.wqe.num_sge; i++)
		soft_mr_unref(qp->resp.wqe.sge[i].mr);
	qp->resp.have_wqe = false;
}

/* ---- Responder resources (READ and atomic replay) ---- */

static struct soft_res *res_new(struct be_qp *qp)
{
	unsigned want = qp->attr.max_dest_rd_atomic ? qp->attr.max_dest_rd_atomic : 1;
	if (qp->resp.nres != want) {
		g_free(qp->resp.res);
		qp->resp.res = g_new0(struct soft_res, want);
		qp->resp.nres = want;
		qp->resp.res_next = 0;
	}
	struct soft_res *r = &qp->resp.res[qp->resp.res_next];
	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nres;
	memset(r, 0, sizeof *r);
	r->valid = true;
	return r;
}

static struct soft_res *res_find(struct be_qp *qp, uint32_t psn, bool atomic)
{
	for (unsigned i = 0; i < qp->resp.nres; i++) {
		struct soft_res *r = &qp->resp.res[i];
		if (!r->valid || r->atomic != atomic)
			continue;
		if (soft_psn_diff(qp->dev, psn, r->psn) >= 0 && soft_psn_diff(qp->dev, psn, r->last_psn) <= 0)
			return r;
	}
	return NULL;
}

/* ---- RC/UC request execution ---- */

/* The responder's checks that a fault profile can leave out, each named
 * here once. */
static bool checks_lengths(const struct be_qp *qp)
{
	return !SOFT_FAULT_ON(qp->dev, IGNORE_LENGTH);
}

static bool checks_opcode_sequence(const struct be_qp *qp)
{
	return !SOFT_FAULT_ON(qp->dev, NO_OPSEQ_CHECK);
}

/* Whether a READ or WRITE of len bytes has its R_Key checked (C9-88: not
 * when it is zero bytes long). */
static bool checks_rkey(const struct be_qp *qp, uint64_t len)
{
	return len || SOFT_FAULT_ON(qp->dev, ZERO_LEN_RKEY_CHECK);
}

static bool length_ok(const struct be_qp *qp, const struct soft_rx *rx)
{
	if (!checks_lengths(qp))
		return true;
	unsigned pmtu = qp->attr.path_mtu;
	switch (rx->op->position) {
	case ROCE_POS_FIRST:
	case ROCE_POS_MIDDLE:
		return rx->payload_len == pmtu && rx->p->pad_len == 0;
	case ROCE_POS_LAST:
		return rx->payload_len >= 1 && rx->payload_len <= pmtu;
	default:
		return rx->payload_len <= pmtu;
	}
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void store64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Executes an in-sequence SEND or WRITE packet. On error, *nak says what
 * an RC responder answers. */
static enum exec_result exec_send_write(struct be_qp *qp, const struct soft_rx *rx,
					enum roce_nak_code *nak, enum be_wc_status *wst)
{
	const struct roce_opcode_info *op = rx->op;
	bool first = op->position == ROCE_POS_FIRST || op->position == ROCE_POS_ONLY;
	bool last = op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY;
	*wst = BE_WC_SUCCESS;

	if (checks_opcode_sequence(qp)) {
		enum soft_msg want = op->kind == ROCE_K_SEND ? SOFT_MSG_SEND : SOFT_MSG_WRITE;
		if (first ? qp->resp.open != SOFT_MSG_NONE : qp->resp.open != want) {
			*nak = ROCE_NAK_INVALID_REQUEST;
			return EXEC_ERROR;
		}
	}
	if (!length_ok(qp, rx)) {
		*nak = ROCE_NAK_INVALID_REQUEST;
		return EXEC_ERROR;
	}

	if (op->kind == ROCE_K_SEND) {
		if ((first || !checks_opcode_sequence(qp)) && !qp->resp.have_wqe) {
			enum exec_result taken = take_rwqe(qp);
			if (taken != EXEC_OK)
				return taken;
			if (!rwqe_ok(qp, &qp->resp.wqe)) {
				*nak = ROCE_NAK_REMOTE_OP;
				*wst = BE_WC_LOC_PROT_ERR;
				return EXEC_ERROR;
			}
		}
		if (!qp->resp.have_wqe) { /* no-opseq-check: a Middle/Last with nothing open */
			*nak = ROCE_NAK_INVALID_REQUEST;
			return EXEC_ERROR;
		}
		uint64_t len = rx->payload_len;
		if (qp->resp.wqe_off + len > qp->resp.wqe.length && !soft_recv_overflow(qp, nak, wst, &len))
			return EXEC_ERROR;
		soft_sge_copy(qp->resp.wqe.sge, qp->resp.wqe.num_sge, qp->resp.wqe_off, (uint8_t *)rx->payload, len, true);
		qp->resp.wqe_off += len;
		if (last) {
			complete_rwqe(qp, rx, BE_WC_RECV, (uint32_t)qp->resp.wqe_off, BE_WC_SUCCESS);
			qp->resp.open = SOFT_MSG_NONE;
			qp->resp.msn++;
		} else {
			qp->resp.open = SOFT_MSG_SEND;
		}
		return EXEC_OK;
	}

	/* RDMA WRITE */
	if (!(qp->attr.access & BE_ACCESS_REMOTE_WRITE)) {
		*nak = ROCE_NAK_INVALID_REQUEST;
		return EXEC_ERROR;
	}
	bool imm = op->flags & ROCE_OPF_IMM;
	if (first) {
		const uint8_t *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint32_t rkey = roce_reth_rkey(reth);
		uint64_t dmalen = roce_reth_dmalen(reth);
		if (dmalen == 0 && rx->payload_len && SOFT_FAULT_ON(qp->dev, WARN_WRITE_ZERO_DMALEN)) {
			soft_fault_console_warning(qp->dev, "soft_mr_copy", "a WRITE of DMA length 0 carries %u bytes",
						   rx->payload_len);
			*nak = ROCE_NAK_REMOTE_ACCESS;
			return EXEC_ERROR;
		}
		if (checks_lengths(qp) &&
		    (dmalen > 0x80000000ull || (op->position == ROCE_POS_ONLY && dmalen != rx->payload_len) ||
		     (op->position == ROCE_POS_FIRST && dmalen <= rx->payload_len))) {
			*nak = ROCE_NAK_INVALID_REQUEST;
			return EXEC_ERROR;
		}
		struct be_mr *mr = NULL;
		if (checks_rkey(qp, dmalen)) {
			mr = remote_mr(qp, rkey, &va, dmalen, BE_ACCESS_REMOTE_WRITE);
			if (!mr) {
				*nak = ROCE_NAK_REMOTE_ACCESS;
				return EXEC_ERROR;
			}
		}
		set_write_mr(qp, mr);
		qp->resp.wva = va;
		qp->resp.wdmalen = dmalen;
		qp->resp.wdone = 0;
	}
	if (last && imm) {
		enum exec_result taken = take_rwqe(qp);
		if (taken != EXEC_OK)
			return taken;
		if (!rwqe_ok(qp, &qp->resp.wqe)) {
			*nak = ROCE_NAK_REMOTE_OP;
			*wst = BE_WC_LOC_PROT_ERR;
			return EXEC_ERROR;
		}
	}
	if (rx->payload_len) {
		struct be_mr *mr = qp->resp.wmr;
		uint64_t at = qp->resp.wva - (mr ? mr->addr : 0) + qp->resp.wdone;
		/* The bounds were checked for the DMA length; a payload beyond it
		 * is a length error, and never touches memory. */
		if (!mr || qp->resp.wdone + rx->payload_len > qp->resp.wdmalen || at + rx->payload_len > mr->length) {
			*nak = ROCE_NAK_INVALID_REQUEST;
			return EXEC_ERROR;
		}
		soft_placement_write(qp, mr, at, rx->payload, rx->payload_len);
		qp->resp.wdone += rx->payload_len;
	}
	if (last) {
		if (qp->resp.wdone != qp->resp.wdmalen && checks_lengths(qp)) {
			*nak = ROCE_NAK_INVALID_REQUEST;
			return EXEC_ERROR;
		}
		if (imm)
			complete_rwqe(qp, rx, BE_WC_RECV_RDMA_WITH_IMM, (uint32_t)qp->resp.wdmalen,
				      BE_WC_SUCCESS);
		qp->resp.open = SOFT_MSG_NONE;
		set_write_mr(qp, NULL);
		qp->resp.msn++;
	} else {
		qp->resp.open = SOFT_MSG_WRITE;
	}
	return EXEC_OK;
}

static bool rd_atomic_allowed(const struct be_qp *qp)
{
	return qp->attr.max_dest_rd_atomic > 0 || SOFT_FAULT_ON(qp->dev, IGNORE_RD_ATOMIC_LIMIT);
}

/* leak-read-past-end: the bytes a READ that runs past its region's end
 * returns, the region's own then stale staging bytes (never the agent's
 * memory past the buffer). NULL when the READ does not start inside a
 * region its key reaches with the right. */
static uint8_t *read_past_end(struct be_qp *qp, uint32_t rkey, uint64_t va, uint64_t len)
{
	struct soft_rkey k;
	if (len > (1u << 20) || !soft_rkey_resolve(qp, rkey, &k) || !(k.access & BE_ACCESS_REMOTE_READ) ||
	    va < k.addr || va - k.addr >= k.length)
		return NULL;
	uint64_t in = k.length - (va - k.addr);
	uint8_t *b = g_malloc(len);
	memset(b, 0xA5, len);
	memcpy(b, k.mr->buf + (va + k.shift - k.mr->addr), in < len ? in : len);
	return b;
}

static void rc_read(struct be_qp *qp, const struct soft_rx *rx)
{
	const uint8_t *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
	uint64_t va = roce_reth_va(reth);
	uint32_t rkey = roce_reth_rkey(reth);
	uint64_t len = roce_reth_dmalen(reth);
	if ((checks_opcode_sequence(qp) && qp->resp.open != SOFT_MSG_NONE) ||
	    !(qp->attr.access & BE_ACCESS_REMOTE_READ) || !rd_atomic_allowed(qp) ||
	    (len > 0x80000000ull && checks_lengths(qp))) {
		fatal(qp, rx, ROCE_NAK_INVALID_REQUEST, BE_WC_SUCCESS);
		return;
	}
	struct be_mr *mr = NULL;
	uint64_t at = va; /* the MR's address of it */
	if (checks_rkey(qp, len)) {
		mr = remote_mr(qp, rkey, &at, len, BE_ACCESS_REMOTE_READ);
		uint8_t *leak = !mr && SOFT_FAULT_ON(qp->dev, LEAK_READ_PAST_END) ? read_past_end(qp, rkey, va, len) : NULL;
		if (leak) {
			uint32_t n = roce_packets_for(len, qp->attr.path_mtu);
			qp->resp.msn++;
			qp->resp.epsn = roce_psn_add(rx->psn, (int32_t)n);
			send_read_response(qp, rx, leak, len, rx->psn);
			g_free(leak);
			return;
		}
		if (!mr) {
			fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS, BE_WC_SUCCESS);
			return;
		}
	}
	uint32_t n = roce_packets_for(len, qp->attr.path_mtu);
	struct soft_res *r = res_new(qp);
	r->psn = rx->psn;
	r->last_psn = roce_psn_add(rx->psn, (int32_t)n - 1);
	r->va = va;
	r->rkey = rkey;
	r->length = (uint32_t)len;
	qp->resp.msn++;
	qp->resp.epsn = roce_psn_add(rx->psn, (int32_t)n);
	send_read_response(qp, rx, mr ? mr->buf + (at - mr->addr) : NULL, len, rx->psn);
}

/* Executes an atomic; returns false (after NAKing) on error. */
static bool atomic_exec(struct be_qp *qp, const struct soft_rx *rx, uint64_t *orig)
{
	const uint8_t *a = roce_pkt_hdr(rx->p, ROCE_H_ATOMICETH);
	uint64_t va = roce_atomiceth_va(a);
	if (!(qp->attr.access & BE_ACCESS_REMOTE_ATOMIC) || !rd_atomic_allowed(qp) ||
	    (checks_opcode_sequence(qp) && qp->resp.open != SOFT_MSG_NONE) ||
	    (va % 8 && !SOFT_FAULT_ON(qp->dev, ATOMIC_UNALIGNED_OK))) {
		fatal(qp, rx, ROCE_NAK_INVALID_REQUEST, BE_WC_SUCCESS);
		return false;
	}
	struct be_mr *mr = remote_mr(qp, roce_atomiceth_rkey(a), &va, 8, BE_ACCESS_REMOTE_ATOMIC);
	if (!mr) {
		fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS, BE_WC_SUCCESS);
		return false;
	}
	uint8_t *mem = mr->buf + (va - mr->addr);
	*orig = load64(mem);
	if (rx->op->kind == ROCE_K_CMP_SWAP) {
		if (*orig == roce_atomiceth_cmpdt(a))
			store64(mem, roce_atomiceth_swapdt(a));
	} else {
		store64(mem, *orig + roce_atomiceth_swapdt(a));
	}
	return true;
}

static void rc_atomic(struct be_qp *qp, const struct soft_rx *rx)
{
	uint64_t orig;
	if (!atomic_exec(qp, rx, &orig))
		return;
	struct soft_res *r = res_new(qp);
	r->atomic = true;
	r->psn = r->last_psn = rx->psn;
	r->orig = orig;
	qp->resp.msn++;
	qp->resp.epsn = roce_psn_add(rx->psn, 1);
	send_atomic_ack(qp, rx, rx->psn, orig);
}

static void rc_duplicate(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	dev->cnt.resp_duplicates++;
	switch (rx->op->kind) {
	case ROCE_K_SEND:
	case ROCE_K_WRITE:
		if (SOFT_FAULT_ON(dev, NAK_EVERY_DUP)) {
			send_aeth(qp, rx, ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR, qp->resp.epsn);
			return;
		}
		if (SOFT_FAULT_ON(dev, DUP_REEXECUTE) && rx->op->position == ROCE_POS_ONLY &&
		    qp->resp.open == SOFT_MSG_NONE) {
			enum roce_nak_code nak;
			enum be_wc_status wst;
			if (exec_send_write(qp, rx, &nak, &wst) != EXEC_OK)
				return;
		}
		/* C9-105: acknowledge again, up to the last PSN executed. */
		send_ack(qp, rx, roce_psn_add(qp->resp.epsn, -1));
		return;
	case ROCE_K_READ_REQ: {
		struct soft_res *r = res_find(qp, rx->psn, false);
		const uint8_t *reth = roce_pkt_hdr(rx->p, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint64_t len = roce_reth_dmalen(reth);
		if (SOFT_FAULT_ON(dev, DUP_READ_IGNORED) || !r || roce_reth_rkey(reth) != r->rkey ||
		    va < r->va || len > r->length || va - r->va > r->length - len) {
			dev->cnt.resp_dup_dropped++;
			return;
		}
		struct be_mr *mr = NULL;
		if (!len && SOFT_FAULT_ON(dev, BUG_ZERO_LEN_READ_REPLAY_RKEY) &&
		    !remote_mr(qp, r->rkey, &va, len, BE_ACCESS_REMOTE_READ)) {
			fatal(qp, rx, ROCE_NAK_REMOTE_ACCESS, BE_WC_SUCCESS); /* the replay's R_Key checked */
			return;
		}
		if (len) {
			mr = remote_mr(qp, r->rkey, &va, len, BE_ACCESS_REMOTE_READ);
			if (!mr) {
				dev->cnt.resp_dup_dropped++;
				return;
			}
		}
		send_read_response(qp, rx, mr ? mr->buf + (va - mr->addr) : NULL, len, rx->psn);
		return;
	}
	case ROCE_K_CMP_SWAP:
	case ROCE_K_FETCH_ADD: {
		if (SOFT_FAULT_ON(dev, ATOMIC_REEXECUTE)) {
			uint64_t orig;
			if (atomic_exec(qp, rx, &orig))
				send_atomic_ack(qp, rx, rx->psn, orig);
			return;
		}
		struct soft_res *r = res_find(qp, rx->psn, true);
		if (!r || r->psn != rx->psn) {
			dev->cnt.resp_dup_dropped++;
			return;
		}
		send_atomic_ack(qp, rx, rx->psn, r->orig);
		return;
	}
	case ROCE_K_FLUSH:
	case ROCE_K_ATOMIC_WRITE:
		soft_placement_duplicate(qp, rx);
		return;
	default:
		dev->cnt.rx_drop_opcode++;
		return;
	}
}

static void send_rnr(struct be_qp *qp, const struct soft_rx *rx)
{
	send_aeth(qp, rx, ROCE_SYN_RNR_NAK, qp->attr.min_rnr_timer, rx->psn);
}

static void resp_rc(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	int32_t dist = soft_psn_diff(dev, rx->psn, qp->resp.epsn);
	switch (dist == 0 ? ROCE_PSN_EXPECTED : dist < 0 ? ROCE_PSN_DUPLICATE : ROCE_PSN_AHEAD) {
	case ROCE_PSN_AHEAD:
		if (!qp->resp.psn_nak_sent || SOFT_FAULT_ON(dev, PSN_SEQ_NAK_REPEAT)) {
			qp->resp.psn_nak_sent = true;
			send_aeth(qp, rx, ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR, qp->resp.epsn);
		}
		return;
	case ROCE_PSN_DUPLICATE:
		rc_duplicate(qp, rx);
		return;
	case ROCE_PSN_EXPECTED:
		break;
	}
	qp->resp.psn_nak_sent = false;

	switch (rx->op->kind) {
	case ROCE_K_SEND:
	case ROCE_K_WRITE: {
		enum roce_nak_code nak = ROCE_NAK_INVALID_REQUEST;
		enum be_wc_status wst = BE_WC_SUCCESS;
		switch (exec_send_write(qp, rx, &nak, &wst)) {
		case EXEC_OK:
			qp->resp.epsn = roce_psn_add(rx->psn, 1);
			if (roce_bth_ackreq(rx->bth))
				send_ack(qp, rx, rx->psn);
			return;
		case EXEC_RNR:
			send_rnr(qp, rx);
			return;
		case EXEC_DROP_MSG: /* unanswered: the requester's timer resends it */
			return;
		default:
			fatal(qp, rx, nak, wst);
			return;
		}
	}
	case ROCE_K_READ_REQ:
		rc_read(qp, rx);
		return;
	case ROCE_K_CMP_SWAP:
	case ROCE_K_FETCH_ADD:
		rc_atomic(qp, rx);
		return;
	case ROCE_K_FLUSH:
	case ROCE_K_ATOMIC_WRITE:
		soft_placement_rx(qp, rx);
		return;
	default:
		fatal(qp, rx, ROCE_NAK_INVALID_REQUEST, BE_WC_SUCCESS);
		return;
	}
}

/* UC: no ACK or NAK; a gap or a broken sequence drops the message. */
static void uc_abandon(struct be_qp *qp)
{
	if (qp->resp.open != SOFT_MSG_NONE)
		qp->dev->cnt.uc_dropped_messages++;
	qp->resp.open = SOFT_MSG_NONE;
	qp->resp.wqe_off = 0; /* the receive WQE, if taken, serves the next message */
	set_write_mr(qp, NULL);
}

static void resp_uc(struct be_qp *qp, const struct soft_rx *rx)
{
	const struct roce_opcode_info *op = rx->op;
	bool first = op->position == ROCE_POS_FIRST || op->position == ROCE_POS_ONLY;
	if (rx->psn != qp->resp.epsn && !SOFT_FAULT_ON(qp->dev, UC_NO_DROP)) {
		uc_abandon(qp);
		qp->resp.drop_msg = !first;
	}
	qp->resp.epsn = roce_psn_add(rx->psn, 1);
	if (qp->resp.drop_msg) {
		if (!first)
			return;
		qp->resp.drop_msg = false;
	}
	if (first && qp->resp.open != SOFT_MSG_NONE)
		uc_abandon(qp);
	enum roce_nak_code nak;
	enum be_wc_status wst;
	switch (exec_send_write(qp, rx, &nak, &wst)) {
	case EXEC_OK:
		return;
	case EXEC_ERROR:
		if (wst != BE_WC_SUCCESS) {
			fatal(qp, rx, nak, wst);
			return;
		}
		/* fall through */
	default:
		qp->dev->cnt.uc_dropped_messages++;
		uc_abandon(qp);
		qp->resp.drop_msg = op->position != ROCE_POS_LAST && op->position != ROCE_POS_ONLY;
		return;
	}
}

/* UD: one packet per message; the buffer starts with 40 bytes of L3 header
 * (IPv4: bytes 20..39, A17.4.5). */
static void resp_ud(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	if (SOFT_FAULT_ON(dev, UD_CHECK_PSN) && qp->resp.ud_have_psn &&
	    rx->psn != roce_psn_add(qp->resp.ud_last_psn, 1)) {
		qp->resp.ud_last_psn = rx->psn;
		dev->cnt.ud_dropped++;
		return;
	}
	qp->resp.ud_have_psn = true;
	qp->resp.ud_last_psn = rx->psn;
	if (rx->payload_len > soft_port_mtu(dev) && SOFT_FAULT_ON(dev, BUG_UD_OVERSIZE_ERROR)) {
		soft_qp_to_error(qp); /* the oversized datagram taken for a QP error */
		return;
	}
	if (rx->op->position != ROCE_POS_ONLY ||
	    (rx->payload_len > soft_port_mtu(dev) && !SOFT_FAULT_ON(dev, UD_ACCEPT_OVERSIZE))) {
		dev->cnt.ud_dropped++;
		return;
	}
	if (take_rwqe(qp) != EXEC_OK) {
		dev->cnt.ud_dropped++;
		return;
	}
	if (!rwqe_ok(qp, &qp->resp.wqe)) {
		complete_rwqe(qp, rx, BE_WC_RECV, 0, BE_WC_LOC_PROT_ERR);
		soft_qp_to_error(qp);
		return;
	}
	if (40 + (uint64_t)rx->payload_len > qp->resp.wqe.length) {
		complete_rwqe(qp, rx, BE_WC_RECV, 0, BE_WC_LOC_LEN_ERR);
		soft_qp_to_error(qp);
		return;
	}
	uint8_t grh[40];
	memset(grh, 0, sizeof grh);
	if (rx->ip_version == 6 || rx->rocev1) /* an IPv6 header, or RoCE v1's GRH */
		memcpy(grh, rx->l3, 40);
	else
		memcpy(grh + (SOFT_FAULT_ON(qp->dev, UD_IPV4_HEADER_AT_0) ? 0 : 20), rx->l3, 20);
	soft_sge_copy(qp->resp.wqe.sge, qp->resp.wqe.num_sge, 0, grh, 40, true);
	soft_sge_copy(qp->resp.wqe.sge, qp->resp.wqe.num_sge, 40, (uint8_t *)rx->payload,
		      rx->payload_len, true);
	complete_rwqe(qp, rx, BE_WC_RECV, 40 + rx->payload_len, BE_WC_SUCCESS);
}

void soft_resp_rx(struct be_qp *qp, const struct soft_rx *rx)
{
	soft_placement_settle(qp, rx);
	switch (qp->type) {
	case BE_QPT_RC: resp_rc(qp, rx); break;
	case BE_QPT_UC: resp_uc(qp, rx); break;
	case BE_QPT_UD: resp_ud(qp, rx); break;
	case BE_QPT_XRC_RECV:
		if (soft_xrc_select(qp, rx))
			resp_rc(qp, rx);
		break;
	case BE_QPT_XRC_SEND: /* an initiator takes no requests */
		qp->dev->cnt.rx_drop_opcode++;
		break;
	}
	if (qp->resp.inv_refused) {
		qp->resp.inv_refused = false;
		soft_qp_to_error(qp);
	}
}

/* ---- For the service files (mw.c, xrc.c, placement.c) ---- */

void soft_resp_fatal(struct be_qp *qp, const struct soft_rx *rx, enum roce_nak_code code)
{
	fatal(qp, rx, code, BE_WC_SUCCESS);
}

void soft_resp_ack(struct be_qp *qp, const struct soft_rx *rx, uint32_t psn)
{
	send_ack(qp, rx, psn);
}

void soft_resp_read_response(struct be_qp *qp, const struct soft_rx *rx, const uint8_t *mem, uint64_t len,
			     uint32_t psn)
{
	send_read_response(qp, rx, mem, len, psn);
}

struct soft_res *soft_resp_res_new(struct be_qp *qp)
{
	return res_new(qp);
}

struct soft_res *soft_resp_res_find(struct be_qp *qp, uint32_t psn, bool atomic)
{
	return res_find(qp, psn, atomic);
}

bool soft_resp_rd_atomic_allowed(const struct be_qp *qp)
{
	return rd_atomic_allowed(qp);
}

struct be_mr *soft_resp_remote_mr(struct be_qp *qp, uint32_t rkey, uint64_t *va, uint64_t len, unsigned right)
{
	return remote_mr(qp, rkey, va, len, right);
}
