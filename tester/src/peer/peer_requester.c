/*
 * The peer engine as requester: work requests posted by the case, their
 * packets, the DUT's responses (ACK, NAK, RNR NAK, read and atomic
 * responses), retransmission and completion.
 */
#include "peer_engine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static uint32_t wqe_last_psn(const struct wqe *w)
{
	return roce_psn_add(w->first_psn, (int32_t)w->npkts - 1);
}

static void build_request(struct peer *p, struct qp *q, struct wqe *w, uint32_t i, const char *why)
{
	struct roce_desc d;
	const struct peer_wr *wr = &w->wr;
	uint32_t psn = roce_psn_add(w->first_psn, (int32_t)i);
	enum roce_transport t = q->cfg.type;
	int op;
	if (peer_placement_op(wr->op)) {
		peer_placement_build(p, q, w, psn, why);
		return;
	}
	if (wr->op == PEER_OP_READ) {
		op = roce_opcode_find(t, ROCE_K_READ_REQ, ROCE_POS_ONLY, 0, 0);
	} else if (wr->op == PEER_OP_CMP_SWAP || wr->op == PEER_OP_FETCH_ADD) {
		op = roce_opcode_find(t, wr->op == PEER_OP_CMP_SWAP ? ROCE_K_CMP_SWAP : ROCE_K_FETCH_ADD,
				      ROCE_POS_ONLY, 0, 0);
	} else {
		enum roce_position pos = roce_position_of(i, w->npkts);
		bool last = pos == ROCE_POS_LAST || pos == ROCE_POS_ONLY;
		unsigned flags = 0;
		if (last && wr->has_imm)
			flags |= ROCE_OPF_IMM;
		if (last && wr->has_inv && wr->op == PEER_OP_SEND)
			flags |= ROCE_OPF_INV;
		op = roce_opcode_find(t, wr->op == PEER_OP_SEND ? ROCE_K_SEND : ROCE_K_WRITE, pos,
				      ROCE_OPF_IMM | ROCE_OPF_INV, flags);
	}
	if (op < 0)
		return;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)op, psn);
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (peer_reliable(q) && last)
		roce_bth_set_ackreq(d.bth, 1);
	peer_xrc_fill(q, wr, &d);
	if (last && wr->solicited && (wr->op == PEER_OP_SEND || wr->has_imm))
		roce_bth_set_se(d.bth, 1);
	uint8_t *h;
	if ((h = roce_desc_hdr(&d, ROCE_H_DETH)) && (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_DETH))) {
		roce_deth_set_qkey(h, q->cfg.remote_qkey);
		roce_deth_set_srcqp(h, q->cfg.qpn);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_RETH)) {
		h = roce_desc_hdr(&d, ROCE_H_RETH);
		uint64_t off = wr->op == PEER_OP_READ ? (uint64_t)i * q->cfg.pmtu : 0;
		roce_reth_set_va(h, wr->remote + off);
		roce_reth_set_rkey(h, wr->rkey);
		roce_reth_set_dmalen(h, wr->len - (uint32_t)off);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_ATOMICETH)) {
		h = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
		roce_atomiceth_set_va(h, wr->remote);
		roce_atomiceth_set_rkey(h, wr->rkey);
		roce_atomiceth_set_swapdt(h, wr->swap_add);
		roce_atomiceth_set_cmpdt(h, wr->compare);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IMMDT))
		roce_immdt_set_imm(roce_desc_hdr(&d, ROCE_H_IMMDT), wr->imm);
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IETH))
		roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), wr->inv_rkey);
	if (wr->op == PEER_OP_SEND || wr->op == PEER_OP_WRITE) {
		uint64_t off = (uint64_t)i * q->cfg.pmtu;
		d.payload = w->buf + off;
		d.payload_len = wr->len - off < q->cfg.pmtu ? wr->len - off : q->cfg.pmtu;
	}
	peer_build_send(p, q, &d, why);
}

/* Go-back-N: (re)send every packet from psn on. */
void peer_transmit_from(struct peer *p, struct qp *q, uint32_t from, const char *why)
{
	for (unsigned k = 0; k < q->sq_n; k++) {
		struct wqe *w = peer_wqe_at(q, k);
		if (w->wr.op == PEER_OP_READ) {
			/* One READ request covers the responses still missing. */
			uint32_t next = roce_psn_add(w->first_psn, (int32_t)w->resp_next);
			if (peer_psn_in(from, w->first_psn, w->npkts) || roce_psn_diff(w->first_psn, from) >= 0) {
				uint32_t i = peer_psn_in(from, w->first_psn, w->npkts) && roce_psn_diff(from, next) > 0
						     ? (uint32_t)roce_psn_diff(from, w->first_psn) : w->resp_next;
				build_request(p, q, w, i, why);
			}
			continue;
		}
		for (uint32_t i = 0; i < w->npkts; i++) {
			uint32_t psn = roce_psn_add(w->first_psn, (int32_t)i);
			if (roce_psn_diff(psn, from) >= 0)
				build_request(p, q, w, i, why);
		}
	}
	if (peer_reliable(q) && q->sq_n && q->cfg.ack_timeout_ns)
		q->deadline = p->now + q->cfg.ack_timeout_ns;
}

int peer_post(struct peer *p, uint32_t qpn, const struct peer_wr *wr, uint64_t now_ns, char *err, size_t errlen)
{
	struct qp *q = peer_find_qp(p, qpn);
	p->now = now_ns;
	if (!q) {
		text_printf(err, errlen, "no tester QP 0x%06x", qpn);
		return -1;
	}
	if (q->error) {
		text_printf(err, errlen, "tester QP 0x%06x is in the error state", qpn);
		return -1;
	}
	if (q->sq_n == PEER_SQ_DEPTH) {
		text_printf(err, errlen, "tester QP 0x%06x has %u requests outstanding", qpn, PEER_SQ_DEPTH);
		return -1;
	}
	bool reliable = peer_reliable(q);
	if (peer_placement_op(wr->op) && q->cfg.type != ROCE_T_RC) {
		text_printf(err, errlen, "%s is an RC operation; tester QP 0x%06x is %s", peer_op_name(wr->op), qpn,
			    roce_transport_name(q->cfg.type));
		return -1;
	}
	if (!reliable && wr->op != PEER_OP_SEND && !(q->cfg.type == ROCE_T_UC && wr->op == PEER_OP_WRITE)) {
		text_printf(err, errlen, "%s QPs cannot %s", roce_transport_name(q->cfg.type), peer_op_name(wr->op));
		return -1;
	}
	if (q->cfg.type == ROCE_T_UD && wr->len > q->cfg.pmtu) {
		text_printf(err, errlen, "a UD message of %u bytes exceeds the path MTU %u", wr->len, q->cfg.pmtu);
		return -1;
	}
	struct wqe *w = peer_wqe_at(q, q->sq_n);
	memset(w, 0, sizeof *w);
	w->wr = *wr;
	w->first_psn = q->next_psn;
	uint32_t buf_len = wr->len;
	if (wr->op == PEER_OP_CMP_SWAP || wr->op == PEER_OP_FETCH_ADD || wr->op == PEER_OP_ATOMIC_WRITE) {
		w->npkts = 1;
		w->wr.len = buf_len = 8;
	} else if (wr->op == PEER_OP_FLUSH) {
		w->npkts = 1; /* len is the range flushed: no data of its own */
		buf_len = 0;
	} else {
		w->npkts = roce_packets_for(wr->len, q->cfg.pmtu);
	}
	w->buf = bufpool_get(&p->pool, buf_len);
	if ((wr->op == PEER_OP_SEND || wr->op == PEER_OP_WRITE) && wr->len)
		memcpy(w->buf, wr->data, wr->len);
	else
		memset(w->buf, 0, buf_len);
	if (wr->op == PEER_OP_ATOMIC_WRITE)
		for (int k = 0; k < 8; k++) /* as the wire carries it: big-endian */
			w->buf[k] = (uint8_t)(wr->swap_add >> (56 - 8 * k));
	w->wr.data = NULL;
	q->next_psn = roce_psn_add(q->next_psn, (int32_t)w->npkts);
	q->sq_n++;
	uint32_t first = w->first_psn;
	peer_transmit_from(p, q, first, "request");
	if (!reliable) {
		/* Unreliable: complete as soon as it is on the wire. */
		struct peer_wc wc = { .wr_id = wr->wr_id, .status = AP_WC_SUCCESS, .op = wr->op, .byte_len = wr->len };
		peer_complete(p, q, &wc);
		bufpool_put(&p->pool, w->buf);
		q->sq_head = (q->sq_head + 1) % PEER_SQ_DEPTH;
		q->sq_n--;
	}
	return 0;
}

static void pop_wqe(struct peer *p, struct qp *q, enum ap_wc_status st, uint64_t value)
{
	struct wqe *w = peer_wqe_at(q, 0);
	struct peer_wc wc = { .wr_id = w->wr.wr_id, .status = st, .op = w->wr.op, .value = value };
	if (st == AP_WC_SUCCESS) {
		wc.byte_len = w->wr.len;
		if (w->wr.op == PEER_OP_READ) {
			wc.data = w->buf;
			w->buf = NULL;
		}
	}
	peer_complete(p, q, &wc);
	bufpool_put(&p->pool, w->buf);
	q->sq_head = (q->sq_head + 1) % PEER_SQ_DEPTH;
	q->sq_n--;
}

static void fail_all(struct peer *p, struct qp *q, enum ap_wc_status first)
{
	if (q->sq_n)
		pop_wqe(p, q, first, 0);
	while (q->sq_n)
		pop_wqe(p, q, AP_WC_WR_FLUSH_ERR, 0);
	q->error = true;
	q->deadline = 0;
	q->rnr_until = 0;
}

static void progress(struct peer *p, struct qp *q)
{
	q->retries_left = q->cfg.retry_cnt;
	q->rnr_left = q->cfg.rnr_retry;
	q->deadline = q->sq_n && q->cfg.ack_timeout_ns ? p->now + q->cfg.ack_timeout_ns : 0;
}

/* An acknowledgement up to and including psn. Returns false when it
 * implies that responses to a READ or atomic were lost (and retransmits). */
static bool ack_upto(struct peer *p, struct qp *q, uint32_t psn)
{
	bool any = false;
	while (q->sq_n) {
		struct wqe *w = peer_wqe_at(q, 0);
		bool resp_op = w->wr.op == PEER_OP_READ || w->wr.op == PEER_OP_CMP_SWAP || w->wr.op == PEER_OP_FETCH_ADD ||
			       peer_placement_op(w->wr.op);
		if (roce_psn_diff(psn, wqe_last_psn(w)) < 0)
			break;
		if (resp_op) {
			/* Implied NAK: a later PSN is acknowledged while this
			 * one's responses never came. */
			peer_finding(p, q, ROCE_RULE_IBA_IMPLIED_NAK, psn, false,
				"ACK for PSN %u while the responses of %s at PSN %u are missing: retrying it",
				psn, peer_op_name(w->wr.op), w->first_psn);
			if (any)
				progress(p, q);
			peer_transmit_from(p, q, roce_psn_add(w->first_psn, (int32_t)w->resp_next), "retransmission (implied NAK)");
			p->stats.retransmissions++;
			return false;
		}
		pop_wqe(p, q, AP_WC_SUCCESS, 0);
		any = true;
	}
	if (any)
		progress(p, q);
	return true;
}

void peer_retry_or_fail(struct peer *p, struct qp *q, uint32_t from, const char *why)
{
	if (q->retries_left == 0) {
		fail_all(p, q, AP_WC_RETRY_EXC_ERR);
		return;
	}
	q->retries_left--;
	p->stats.retransmissions++;
	peer_transmit_from(p, q, from, why);
}

static bool outstanding_window(struct qp *q, uint32_t psn)
{
	if (!q->sq_n)
		return false;
	uint32_t una = peer_wqe_at(q, 0)->first_psn;
	/* From one before the oldest unacknowledged PSN (a re-ACK of what
	 * was already acknowledged) to the last PSN sent. */
	return roce_psn_diff(psn, roce_psn_add(una, -1)) >= 0 && roce_psn_diff(psn, roce_psn_add(q->next_psn, -1)) <= 0;
}

void peer_handle_response(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	const struct roce_opcode_info *oi = pk->op;
	const uint8_t *aeth = roce_pkt_hdr(pk, ROCE_H_AETH);
	if (!q->sq_n)
		return; /* the answer to a scripted injection: not the engine's business */
	if (!outstanding_window(q, psn)) {
		peer_finding(p, q, ROCE_RULE_IBA_GHOST, psn, false,
			"%s for PSN %u outside the outstanding window: ignored", oi->name, psn);
		return;
	}
	/* Find the request this answers, completing what it implies. */
	if (oi->kind == ROCE_K_ACK) {
		uint8_t syn = roce_aeth_syndrome(aeth);
		switch (roce_syndrome_type(syn)) {
		case ROCE_SYN_ACK:
			ack_upto(p, q, psn);
			return;
		case ROCE_SYN_RNR_NAK:
			if (!ack_upto(p, q, roce_psn_add(psn, -1)))
				return;
			if (q->cfg.rnr_retry != 7) {
				if (q->rnr_left == 0) {
					fail_all(p, q, AP_WC_RNR_RETRY_EXC_ERR);
					return;
				}
				q->rnr_left--;
			}
			q->rnr_until = p->now + (uint64_t)roce_rnr_timer_usec(roce_syndrome_value(syn)) * 1000u;
			q->rnr_psn = psn;
			q->deadline = 0;
			return;
		case ROCE_SYN_NAK: {
			if (!ack_upto(p, q, roce_psn_add(psn, -1)))
				return;
			unsigned code = roce_syndrome_value(syn);
			if (code == ROCE_NAK_PSN_SEQ_ERR) {
				peer_retry_or_fail(p, q, psn, "retransmission (NAK PSN sequence error)");
				return;
			}
			enum ap_wc_status st = code == ROCE_NAK_INVALID_REQUEST ? AP_WC_REM_INV_REQ_ERR
					       : code == ROCE_NAK_REMOTE_ACCESS ? AP_WC_REM_ACCESS_ERR
					       : code == ROCE_NAK_REMOTE_OP ? AP_WC_REM_OP_ERR
					       : code == ROCE_NAK_INVALID_RD_REQUEST ? AP_WC_REM_INV_RD_REQ_ERR
					       : AP_WC_BAD_RESP_ERR;
			fail_all(p, q, st);
			return;
		}
		default:
			fail_all(p, q, AP_WC_BAD_RESP_ERR);
			return;
		}
	}
	/* READ responses and atomic ACKs belong to the oldest request
	 * that expects them; everything before it is implicitly ACKed. */
	while (q->sq_n && !peer_psn_in(psn, peer_wqe_at(q, 0)->first_psn, peer_wqe_at(q, 0)->npkts)) {
		struct wqe *w = peer_wqe_at(q, 0);
		if (w->wr.op == PEER_OP_SEND || w->wr.op == PEER_OP_WRITE) {
			pop_wqe(p, q, AP_WC_SUCCESS, 0);
			continue;
		}
		ack_upto(p, q, psn); /* implied NAK on the earlier READ/atomic */
		return;
	}
	if (!q->sq_n)
		return;
	struct wqe *w = peer_wqe_at(q, 0);
	if (oi->kind == ROCE_K_ATOMIC_ACK) {
		if (w->wr.op != PEER_OP_CMP_SWAP && w->wr.op != PEER_OP_FETCH_ADD) {
			peer_finding(p, q, ROCE_RULE_IBA_RESP_CHECK, psn, true, "Atomic ACK for PSN %u, which is a %s",
				psn, peer_op_name(w->wr.op));
			fail_all(p, q, AP_WC_BAD_RESP_ERR);
			return;
		}
		uint64_t orig = roce_atomicacketh_orig(roce_pkt_hdr(pk, ROCE_H_ATOMICACKETH));
		pop_wqe(p, q, AP_WC_SUCCESS, orig);
		progress(p, q);
		return;
	}
	if (oi->kind == ROCE_K_READ_RESP && peer_placement_op(w->wr.op)) {
		/* FLUSH and ATOMIC WRITE are answered by a READ Response Only
		 * of no payload (peer_placement.c). */
		if (oi->position != ROCE_POS_ONLY || pk->payload_len)
			peer_finding(p, q, ROCE_RULE_IBA_RESP_CHECK, psn, true,
				"%s of %zu bytes for PSN %u, which is a %s; expected an RDMA READ Response Only of no payload",
				oi->name, (size_t)pk->payload_len, psn, peer_op_name(w->wr.op));
		pop_wqe(p, q, AP_WC_SUCCESS, 0);
		progress(p, q);
		return;
	}
	if (oi->kind != ROCE_K_READ_RESP || w->wr.op != PEER_OP_READ) {
		peer_finding(p, q, ROCE_RULE_IBA_RESP_CHECK, psn, true, "%s for PSN %u, which belongs to a %s",
			oi->name, psn, peer_op_name(w->wr.op));
		fail_all(p, q, AP_WC_BAD_RESP_ERR);
		return;
	}
	uint32_t expected = roce_psn_add(w->first_psn, (int32_t)w->resp_next);
	int32_t d = roce_psn_diff(psn, expected);
	if (d < 0)
		return; /* a duplicate response */
	if (d > 0) {
		peer_finding(p, q, ROCE_RULE_IBA_IMPLIED_NAK, psn, false,
			"READ response PSN %u arrived while %u was expected: retrying from %u", psn, expected, expected);
		peer_retry_or_fail(p, q, expected, "retransmission (READ responses missing)");
		return;
	}
	/* Its opcode and length for its place in the READ are judged by
	 * libroce's flow analysis over the case's packets (flowcheck.h), as
	 * the plugin and lint judge them; the engine takes the data. */
	uint32_t off = w->resp_next * q->cfg.pmtu;
	uint32_t want_len = w->wr.len - off < q->cfg.pmtu ? w->wr.len - off : q->cfg.pmtu;
	uint32_t n = pk->payload_len < want_len ? pk->payload_len : want_len;
	memcpy(w->buf + off, pk->buf + pk->payload_off, n);
	w->resp_next++;
	q->deadline = p->now + q->cfg.ack_timeout_ns;
	q->retries_left = q->cfg.retry_cnt;
	if (w->resp_next >= w->npkts) {
		pop_wqe(p, q, AP_WC_SUCCESS, 0);
		progress(p, q);
	}
}
