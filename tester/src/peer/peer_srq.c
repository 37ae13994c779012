/*
 * The peer engine's shared receive queues: a count of receive buffers
 * that the tester QPs using one share. A SEND that finds none left is
 * refused exactly as with a QP's own count (peer_responder.c: RNR NAK on
 * RC, lost on UC and UD).
 */
#include "peer_engine.h"

static struct peer_srq *find_srq(struct peer *p, uint32_t id)
{
	for (unsigned i = 0; i < PEER_MAX_SRQS; i++)
		if (p->srqs[i].used && p->srqs[i].id == id)
			return &p->srqs[i];
	return NULL;
}

int peer_srq_set_recv(struct peer *p, uint32_t srq, long count)
{
	if (count < 0)
		return -1;
	struct peer_srq *s = find_srq(p, srq);
	for (unsigned i = 0; !s && i < PEER_MAX_SRQS; i++) {
		if (!p->srqs[i].used) {
			s = &p->srqs[i];
			s->used = true;
			s->id = srq;
		}
	}
	if (!s)
		return -1;
	s->avail = count;
	return 0;
}

long peer_srq_recv_left(struct peer *p, uint32_t srq)
{
	struct peer_srq *s = find_srq(p, srq);
	return s ? s->avail : -1;
}

int peer_qp_set_srq(struct peer *p, uint32_t qpn, uint32_t srq)
{
	struct qp *q = peer_find_qp(p, qpn);
	struct peer_srq *s = find_srq(p, srq);
	if (!q || !s)
		return -1;
	q->srq = s;
	return 0;
}

bool peer_srq_take(struct peer_srq *s)
{
	if (s->avail <= 0)
		return false;
	s->avail--;
	return true;
}
