/*
 * The peer engine's UD multicast: the groups the tester's UD QPs are
 * attached to, the datagrams the DUT sends to them (each attached QP takes
 * its own copy, IBA 3.5.11), and the addressing of datagrams the tester
 * sends to a group. The group and its mapped MAC come from libroce.
 */
#include "peer_engine.h"

int peer_mcast_attach(struct peer *p, uint32_t qpn, const struct roce_mcast_group *g)
{
	struct qp *q = peer_find_qp(p, qpn);
	if (!q || q->cfg.type != ROCE_T_UD)
		return -1;
	struct peer_attach *free_slot = NULL;
	for (unsigned i = 0; i < PEER_MAX_ATTACH; i++) {
		struct peer_attach *a = &p->attach[i];
		if (a->used && a->qpn == qpn && roce_mcast_group_equal(&a->g, g))
			return -1;
		if (!a->used && !free_slot)
			free_slot = a;
	}
	if (!free_slot)
		return -1;
	free_slot->used = true;
	free_slot->qpn = qpn;
	free_slot->g = *g;
	return 0;
}

void peer_mcast_detach(struct peer *p, uint32_t qpn, const struct roce_mcast_group *g)
{
	for (unsigned i = 0; i < PEER_MAX_ATTACH; i++) {
		struct peer_attach *a = &p->attach[i];
		if (a->used && a->qpn == qpn && roce_mcast_group_equal(&a->g, g))
			a->used = false;
	}
}

void peer_mcast_address(struct roce_endpoint *ep, const struct roce_mcast_group *g)
{
	memset(ep->dst_ip, 0, sizeof ep->dst_ip);
	memcpy(ep->dst_ip, g->ip, g->ip_version == 4 ? 4 : 16);
	memcpy(ep->dst_mac, g->mac, 6);
	ep->dest_qpn = ROCE_MCAST_QPN;
}

unsigned peer_mcast_members(struct peer *p, const struct roce_pkt *pk, struct qp **out, unsigned max)
{
	struct roce_mcast_group g;
	if (!roce_pkt_mcast_group(pk, &g))
		return 0;
	unsigned n = 0;
	for (unsigned i = 0; i < PEER_MAX_ATTACH && n < max; i++) {
		const struct peer_attach *a = &p->attach[i];
		struct qp *q = a->used && roce_mcast_group_equal(&a->g, &g) ? peer_find_qp(p, a->qpn) : NULL;
		if (q)
			out[n++] = q;
	}
	return n;
}
