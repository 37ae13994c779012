/*
 * The peer engine as responder: the DUT's requests on UD, UC and RC QPs,
 * receive buffers, RDMA WRITE and READ into the tester's MRs, atomics,
 * duplicates, and the ACK, NAK and RNR NAK it answers with.
 */
#include "peer_engine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static void save_resp(struct qp *q, enum roce_op_kind kind, uint32_t psn, uint32_t npkts, uint64_t va,
		      uint32_t rkey, uint32_t len, uint64_t orig)
{
	struct saved_resp *s = &q->saved[q->saved_next++ % PEER_SAVED_RESP];
	*s = (struct saved_resp){ true, kind, psn, npkts, va, rkey, len, orig, q->msn };
}

static void send_read_responses(struct peer *p, struct qp *q, uint32_t psn, uint64_t va, uint32_t len,
				const struct peer_mr *m, uint32_t msn, const char *why)
{
	uint32_t n = roce_packets_for(len, q->cfg.pmtu);
	for (uint32_t i = 0; i < n; i++) {
		enum roce_position pos = roce_position_of(i, n);
		struct roce_desc d;
		roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_READ_RESP, pos, 0, 0),
				   roce_psn_add(psn, (int32_t)i));
		uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
		roce_aeth_set_syndrome(aeth, ROCE_AETH_ACK_UNLIMITED);
		roce_aeth_set_msn(aeth, msn);
		uint32_t off = i * q->cfg.pmtu;
		d.payload_len = len - off < q->cfg.pmtu ? len - off : q->cfg.pmtu;
		d.payload = m ? m->buf + (va - m->addr) + off : NULL;
		if (!m)
			d.payload_len = 0;
		peer_build_send(p, q, &d, why);
	}
}

static void send_atomic_ack(struct peer *p, struct qp *q, uint32_t psn, uint64_t orig, uint32_t msn, const char *why)
{
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_ATOMIC_ACK, ROCE_POS_ONLY, 0, 0), psn);
	roce_aeth_set_syndrome(roce_desc_hdr(&d, ROCE_H_AETH), ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(roce_desc_hdr(&d, ROCE_H_AETH), msn);
	roce_atomicacketh_set_orig(roce_desc_hdr(&d, ROCE_H_ATOMICACKETH), orig);
	peer_build_send(p, q, &d, why);
}

static void nak(struct peer *p, struct qp *q, uint32_t psn, unsigned code, const char *why, bool fatal)
{
	peer_send_aeth(p, q, psn, roce_syndrome_nak((enum roce_nak_code)code), why);
	if (fatal) {
		q->error = true;
		q->in_msg = false;
	}
}

static bool take_recv(struct qp *q)
{
	if (q->rnr_on)
		return false;
	if (q->srq)
		return peer_srq_take(q->srq);
	if (q->recv_avail == 0)
		return false;
	if (q->recv_avail > 0)
		q->recv_avail--;
	return true;
}

static void msg_append(struct qp *q, const uint8_t *data, size_t n)
{
	if (!n)
		return; /* a zero-length message: there may be no buffer yet */
	if (q->rlen + n > q->rcap) {
		size_t cap = q->rcap ? q->rcap : 4096;
		while (cap < q->rlen + n)
			cap *= 2;
		uint8_t *b = realloc(q->rbuf, cap);
		if (!b)
			abort();
		q->rbuf = b;
		q->rcap = cap;
	}
	memcpy(q->rbuf + q->rlen, data, n);
	q->rlen += n;
}

static void deliver_recv(struct peer *p, struct qp *q, const struct roce_pkt *pk, enum peer_op op)
{
	struct peer_wc wc = { .status = AP_WC_SUCCESS, .op = op, .byte_len = (uint32_t)q->rlen };
	const uint8_t *imm = roce_pkt_hdr(pk, ROCE_H_IMMDT);
	if (imm) {
		wc.has_imm = true;
		wc.imm = roce_immdt_imm(imm);
	}
	const uint8_t *deth = roce_pkt_hdr(pk, ROCE_H_DETH);
	if (deth)
		wc.src_qp = roce_deth_srcqp(deth);
	const uint8_t *ieth = roce_pkt_hdr(pk, ROCE_H_IETH);
	if (ieth) {
		/* SEND with Invalidate: the completion names the rkey (the
		 * tester's keys stay valid: it notes, it does not enforce). */
		wc.has_inv = true;
		wc.inv_rkey = roce_ieth_rkey(ieth);
	}
	if (op == PEER_OP_RECV) {
		wc.data = bufpool_get(&p->pool, q->rlen);
		if (q->rlen)
			memcpy(wc.data, q->rbuf, q->rlen);
	}
	peer_complete(p, q, &wc);
	q->rlen = 0;
}

void peer_handle_ud(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *deth = roce_pkt_hdr(pk, ROCE_H_DETH);
	if (!deth || pk->op->kind != ROCE_K_SEND)
		return;
	if (roce_deth_qkey(deth) != q->cfg.qkey) {
		peer_finding(p, q, ROCE_RULE_IBA_QKEY, roce_bth_psn(roce_pkt_hdr(pk, ROCE_H_BTH)), true,
			"UD packet with Q_Key 0x%08x; the tester QP's Q_Key is 0x%08x: dropped",
			roce_deth_qkey(deth), q->cfg.qkey);
		return;
	}
	if (!take_recv(q))
		return; /* UD has no RNR: the message is lost */
	q->rlen = 0;
	msg_append(q, pk->buf + pk->payload_off, pk->payload_len);
	deliver_recv(p, q, pk, PEER_OP_RECV);
}

/* Processes one in-sequence SEND or WRITE packet. Returns false when it
 * was refused (RNR, access, sequence) and must not advance the PSN. */
static bool exec_send_write(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint32_t psn, bool reliable)
{
	const struct roce_opcode_info *oi = pk->op;
	bool first = oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_ONLY;
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (first == q->in_msg || (q->in_msg && q->msg_kind != oi->kind)) {
		if (!reliable) {
			q->in_msg = false;
			q->uc_dropping = !first;
			if (!first)
				return false;
		} else {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (opcode sequence)", true);
			return false;
		}
	}
	const uint8_t *payload = pk->buf + pk->payload_off;
	if (oi->kind == ROCE_K_SEND) {
		if (first) {
			if (!take_recv(q)) {
				if (reliable)
					peer_send_aeth(p, q, psn, roce_syndrome_rnr(q->cfg.rnr_timer), "RNR NAK");
				return false;
			}
			q->rlen = 0;
			q->in_msg = true;
			q->msg_kind = ROCE_K_SEND;
			q->msg_first_psn = psn;
		}
		msg_append(q, payload, pk->payload_len);
		if (last) {
			q->in_msg = false;
			deliver_recv(p, q, pk, PEER_OP_RECV);
		}
		return true;
	}
	/* RDMA WRITE. */
	if (first) {
		const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint32_t len = roce_reth_dmalen(reth);
		struct peer_mr *m = len ? peer_mr_check(p, roce_reth_rkey(reth), va, len, PEER_ACC_WRITE) : NULL;
		if (len && !m) {
			if (reliable)
				nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			else
				q->uc_dropping = true;
			return false;
		}
		q->wmr = m;
		q->wva = va;
		q->wlen = len;
		q->wdone = 0;
		q->in_msg = true;
		q->msg_kind = ROCE_K_WRITE;
	}
	if ((uint64_t)q->wdone + pk->payload_len > q->wlen) {
		if (reliable)
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (WRITE longer than its DMA length)", true);
		q->in_msg = false;
		return false;
	}
	if (pk->payload_len && q->wmr)
		memcpy(q->wmr->buf + (q->wva - q->wmr->addr) + q->wdone, payload, pk->payload_len);
	q->wdone += pk->payload_len;
	if (last) {
		q->in_msg = false;
		if (q->wdone != q->wlen && reliable) {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (WRITE shorter than its DMA length)", true);
			return false;
		}
		if (roce_pkt_has(pk, ROCE_H_IMMDT)) {
			if (!take_recv(q)) {
				if (reliable)
					peer_send_aeth(p, q, psn, roce_syndrome_rnr(q->cfg.rnr_timer), "RNR NAK");
				return false;
			}
			q->rlen = 0;
			struct peer_wc wc = { .status = AP_WC_SUCCESS, .op = PEER_OP_RECV_WRITE_IMM, .byte_len = q->wdone,
					      .has_imm = true, .imm = roce_immdt_imm(roce_pkt_hdr(pk, ROCE_H_IMMDT)) };
			peer_complete(p, q, &wc);
		}
	}
	return true;
}

void peer_handle_uc(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(pk, ROCE_H_BTH));
	const struct roce_opcode_info *oi = pk->op;
	bool first = oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_ONLY;
	if (psn != q->epsn) {
		/* A gap: drop the partial message; resume at the next First/Only. */
		q->in_msg = false;
		q->uc_dropping = true;
	}
	q->epsn = roce_psn_add(psn, 1);
	if (q->uc_dropping && !first)
		return;
	q->uc_dropping = false;
	if (!exec_send_write(p, q, pk, psn, false))
		q->in_msg = false;
}

void peer_handle_rc_request(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *bth = roce_pkt_hdr(pk, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	const struct roce_opcode_info *oi = pk->op;
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (last && !roce_bth_ackreq(bth) && (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE))
		peer_finding(p, q, ROCE_RULE_IBA_REQ_ACKREQ, psn, true,
			"%s at PSN %u ends a message without AckReq", oi->name, psn);
	switch (roce_psn_classify(psn, q->epsn)) {
	case ROCE_PSN_AHEAD:
		if (!q->nak_seq_sent) {
			q->nak_seq_sent = true;
			nak(p, q, q->epsn, ROCE_NAK_PSN_SEQ_ERR, "NAK PSN Sequence Error", false);
		}
		return;
	case ROCE_PSN_DUPLICATE:
		for (unsigned i = 0; i < PEER_SAVED_RESP; i++) {
			struct saved_resp *s = &q->saved[i];
			if (!s->used || !peer_psn_in(psn, s->psn, s->npkts) || s->kind != oi->kind)
				continue;
			if (peer_placement_kind(s->kind)) {
				peer_placement_replay(p, q, psn, s->msn);
			} else if (s->kind == ROCE_K_READ_REQ) {
				const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
				uint32_t skip = (uint32_t)roce_psn_diff(psn, s->psn) * q->cfg.pmtu;
				uint64_t va = roce_reth_va(reth);
				uint32_t len = roce_reth_dmalen(reth);
				struct peer_mr *m = len ? peer_mr_check(p, s->rkey, va, len, PEER_ACC_READ) : NULL;
				if (va != s->va + skip || len != s->len - skip) {
					peer_finding(p, q, ROCE_RULE_IBA_DUP_READ, psn, false,
						"duplicate READ at PSN %u asks for VA 0x%llx length %u; the original covered VA 0x%llx length %u from PSN %u",
						psn, (unsigned long long)va, len, (unsigned long long)s->va, s->len, s->psn);
				}
				send_read_responses(p, q, psn, va, len, m, s->msn, "READ response (replay)");
			} else {
				send_atomic_ack(p, q, psn, s->orig, s->msn, "Atomic ACK (replay)");
			}
			return;
		}
		if (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE)
			peer_send_aeth(p, q, roce_psn_add(q->epsn, -1), ROCE_AETH_ACK_UNLIMITED, "ACK (duplicate)");
		return;
	case ROCE_PSN_EXPECTED:
		break;
	}
	q->nak_seq_sent = false;
	q->last_rx_psn = psn;
	if (q->cfg.type == ROCE_T_XRC && !peer_xrc_select(p, q, pk)) {
		/* No XRC SRQ of the number its XRCETH names (or not of the
		 * target's domain): Remote Access Error, as rxe's XRC patches
		 * answer (ERR_INVALID_XRCETH, a class C error). */
		nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error (no XRC SRQ of that number)", true);
		return;
	}
	if (oi->kind == ROCE_K_SEND || oi->kind == ROCE_K_WRITE) {
		if (!exec_send_write(p, q, pk, psn, true))
			return;
		q->epsn = roce_psn_add(psn, 1);
		if (last)
			q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		if (roce_bth_ackreq(bth) && q->ack_on)
			peer_send_aeth(p, q, psn, ROCE_AETH_ACK_UNLIMITED, "ACK");
		return;
	}
	if (q->in_msg) {
		nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (opcode sequence)", true);
		return;
	}
	if (oi->kind == ROCE_K_READ_REQ) {
		const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
		uint64_t va = roce_reth_va(reth);
		uint32_t len = roce_reth_dmalen(reth), rkey = roce_reth_rkey(reth);
		struct peer_mr *m = len ? peer_mr_check(p, rkey, va, len, PEER_ACC_READ) : NULL;
		if (len && !m) {
			nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			return;
		}
		uint32_t n = roce_packets_for(len, q->cfg.pmtu);
		q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		save_resp(q, ROCE_K_READ_REQ, psn, n, va, rkey, len, 0);
		q->epsn = roce_psn_add(psn, (int32_t)n);
		send_read_responses(p, q, psn, va, len, m, q->msn, "READ response");
		return;
	}
	if (oi->kind == ROCE_K_CMP_SWAP || oi->kind == ROCE_K_FETCH_ADD) {
		const uint8_t *a = roce_pkt_hdr(pk, ROCE_H_ATOMICETH);
		uint64_t va = roce_atomiceth_va(a);
		if (va & 7) {
			nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (atomic VA not 8-byte aligned)", true);
			return;
		}
		struct peer_mr *m = peer_mr_check(p, roce_atomiceth_rkey(a), va, 8, PEER_ACC_ATOMIC);
		if (!m) {
			nak(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error", true);
			return;
		}
		/* Tester memory holds 64-bit values little-endian, as an x86
		 * host's would. */
		uint8_t *cell = m->buf + (va - m->addr);
		uint64_t orig = 0;
		for (int i = 7; i >= 0; i--)
			orig = orig << 8 | cell[i];
		uint64_t v = orig;
		if (oi->kind == ROCE_K_FETCH_ADD)
			v = orig + roce_atomiceth_swapdt(a);
		else if (orig == roce_atomiceth_cmpdt(a))
			v = roce_atomiceth_swapdt(a);
		for (int i = 0; i < 8; i++)
			cell[i] = (uint8_t)(v >> (8 * i));
		q->msn = (q->msn + 1) & ROCE_PSN_MASK;
		save_resp(q, oi->kind, psn, 1, va, roce_atomiceth_rkey(a), 8, orig);
		q->epsn = roce_psn_add(psn, 1);
		send_atomic_ack(p, q, psn, orig, q->msn, "Atomic ACK");
		return;
	}
	if (peer_placement_kind(oi->kind)) {
		peer_placement_execute(p, q, pk, psn);
		return;
	}
	/* Anything else a requester may not send. */
	nak(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (unsupported opcode)", true);
}
