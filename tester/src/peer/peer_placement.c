/*
 * The peer engine's IBTA 1.5 memory-placement operations, FLUSH (FETH +
 * RETH, no payload) and ATOMIC WRITE (RETH and 8 bytes of payload), as
 * requester and as responder.
 *
 * A conforming responder answers both with an RDMA READ Response Only
 * that carries no payload (AETH ACK and the MSN): Linux rxe's
 * acknowledge() sends send_read_response_ack() for a FLUSH or ATOMIC WRITE
 * (rxe_resp.c); refusals are NAKs as for any RC request: Remote Access
 * Error without the right (the FLUSH placement type's; REMOTE_WRITE for
 * ATOMIC WRITE, as rxe's check_rkey and rdma-core's tests ask) or outside
 * the region, Invalid Request for an ATOMIC WRITE that is not 8 bytes
 * (oA19-28) at an 8-byte-aligned address.
 */
#include "peer_engine.h"

#include <stdio.h>

void peer_placement_build(struct peer *p, struct qp *q, const struct wqe *w, uint32_t psn, const char *why)
{
	const struct peer_wr *wr = &w->wr;
	bool flush = wr->op == PEER_OP_FLUSH;
	int op = roce_opcode_find(q->cfg.type, flush ? ROCE_K_FLUSH : ROCE_K_ATOMIC_WRITE, ROCE_POS_ONLY, 0, 0);
	if (op < 0)
		return; /* the transport has no such operation (peer_post refuses it) */
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)op, psn);
	roce_bth_set_ackreq(d.bth, 1);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, wr->remote);
	roce_reth_set_rkey(reth, wr->rkey);
	if (flush) {
		uint8_t *feth = roce_desc_hdr(&d, ROCE_H_FETH);
		roce_feth_set_plt(feth, wr->flush_type);
		roce_feth_set_sel(feth, wr->flush_level);
		roce_reth_set_dmalen(reth, wr->len);
	} else {
		roce_reth_set_dmalen(reth, 8);
		d.payload = w->buf; /* the value, big-endian (peer_post) */
		d.payload_len = 8;
	}
	peer_build_send(p, q, &d, why);
}

static void send_response(struct peer *p, struct qp *q, uint32_t psn, uint32_t msn, const char *why)
{
	struct roce_desc d;
	roce_endpoint_desc(&q->cfg.ep, &d, (uint8_t)roce_opcode_find(q->cfg.type, ROCE_K_READ_RESP, ROCE_POS_ONLY, 0, 0), psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_syndrome(aeth, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(aeth, msn);
	d.payload_len = 0;
	peer_build_send(p, q, &d, why);
}

static void refuse(struct peer *p, struct qp *q, uint32_t psn, enum roce_nak_code code, const char *why)
{
	peer_send_aeth(p, q, psn, roce_syndrome_nak(code), why);
	q->error = true; /* a class C error: the responder's QP goes to Error */
	q->in_msg = false;
}

static void save(struct qp *q, enum roce_op_kind kind, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct saved_resp *s = &q->saved[q->saved_next++ % PEER_SAVED_RESP];
	*s = (struct saved_resp){ true, kind, psn, 1, va, rkey, len, 0, q->msn };
}

void peer_placement_execute(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint32_t psn)
{
	const uint8_t *reth = roce_pkt_hdr(pk, ROCE_H_RETH);
	uint64_t va = roce_reth_va(reth);
	uint32_t rkey = roce_reth_rkey(reth), len = roce_reth_dmalen(reth);
	const char *what;
	if (pk->op->kind == ROCE_K_ATOMIC_WRITE) {
		if ((va & 7) || len != 8 || pk->payload_len != 8) {
			refuse(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (ATOMIC WRITE not 8 bytes at an 8-byte-aligned address)");
			return;
		}
		struct peer_mr *m = peer_mr_check(p, rkey, va, 8, PEER_ACC_WRITE);
		if (!m) {
			refuse(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error");
			return;
		}
		/* The 8 bytes land as the wire carries them, at once. */
		memcpy(m->buf + (va - m->addr), pk->buf + pk->payload_off, 8);
		what = "ATOMIC WRITE response";
	} else {
		const uint8_t *feth = roce_pkt_hdr(pk, ROCE_H_FETH);
		unsigned plt = roce_feth_plt(feth), sel = roce_feth_sel(feth);
		if (!plt || plt > 3 || sel > 1) {
			refuse(p, q, psn, ROCE_NAK_INVALID_REQUEST, "NAK Invalid Request (FLUSH placement type or selectivity level)");
			return;
		}
		unsigned need = ((plt & 1) ? PEER_ACC_FLUSH_GLOBAL : 0) | ((plt & 2) ? PEER_ACC_FLUSH_PERSISTENT : 0);
		/* Level 1 flushes the whole region the rkey names: only the key
		 * and the rights count. */
		struct peer_mr *m = NULL;
		for (unsigned i = 0; sel == 1 && i < p->n_mrs; i++)
			if (p->mrs[i].rkey == rkey && (p->mrs[i].access & need) == need)
				m = &p->mrs[i];
		if (sel == 0)
			m = peer_mr_check(p, rkey, va, len, need);
		if (!m) {
			refuse(p, q, psn, ROCE_NAK_REMOTE_ACCESS, "NAK Remote Access Error");
			return;
		}
		/* The tester's memory is placed as it is written: nothing is left
		 * to make visible or persistent. */
		what = "FLUSH response";
	}
	q->msn = (q->msn + 1) & ROCE_PSN_MASK;
	save(q, pk->op->kind, psn, va, rkey, len);
	q->epsn = roce_psn_add(psn, 1);
	q->last_rx_psn = psn;
	send_response(p, q, psn, q->msn, what);
}

void peer_placement_replay(struct peer *p, struct qp *q, uint32_t psn, uint32_t msn)
{
	send_response(p, q, psn, msn, "placement response (replay)");
}
