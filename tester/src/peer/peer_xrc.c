/*
 * The peer engine's XRC (IBA Annex A14): the tester as initiator, whose
 * requests carry an XRCETH naming the target's XRC SRQ, and as target,
 * whose XRC SRQs are found by the number a request's XRCETH names.
 * Otherwise XRC is RC's protocol (PSNs, ACKs, NAKs, retransmission), with
 * the XRC opcodes; responses carry no XRCETH.
 */
#include "peer_engine.h"

int peer_qp_set_xrc_srqn(struct peer *p, uint32_t qpn, uint32_t srqn)
{
	struct qp *q = peer_find_qp(p, qpn);
	if (!q || q->cfg.type != ROCE_T_XRC)
		return -1;
	q->xrc_srqn = srqn & 0xFFFFFFu;
	return 0;
}

int peer_srq_set_xrc(struct peer *p, uint32_t srq, uint32_t srqn)
{
	struct peer_srq *s = NULL;
	for (unsigned i = 0; i < PEER_MAX_SRQS; i++) {
		struct peer_srq *t = &p->srqs[i];
		if (!t->used)
			continue;
		if (t->id == srq)
			s = t;
		else if (t->xrc && t->srqn == (srqn & 0xFFFFFFu))
			return -1; /* the number names another SRQ */
	}
	if (!s)
		return -1;
	s->xrc = true;
	s->srqn = srqn & 0xFFFFFFu;
	return 0;
}

void peer_xrc_fill(const struct qp *q, const struct peer_wr *wr, struct roce_desc *d)
{
	uint8_t *h = roce_desc_hdr(d, ROCE_H_XRCETH);
	if (h)
		roce_xrceth_set_srqn(h, wr->srqn ? wr->srqn : q->xrc_srqn);
}

bool peer_xrc_select(struct peer *p, struct qp *q, const struct roce_pkt *pk)
{
	const uint8_t *h = roce_pkt_hdr(pk, ROCE_H_XRCETH);
	if (!h)
		return true; /* not a request that takes a receive */
	uint32_t srqn = roce_xrceth_srqn(h);
	for (unsigned i = 0; i < PEER_MAX_SRQS; i++) {
		if (p->srqs[i].used && p->srqs[i].xrc && p->srqs[i].srqn == srqn) {
			q->srq = &p->srqs[i];
			return true;
		}
	}
	return false;
}
