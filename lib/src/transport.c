/* Transport helpers shared by the endpoints and the flow analysis. */
#include "roce/transport.h"

#include <string.h>

unsigned roce_mtu_bytes(unsigned ib_mtu)
{
	return ib_mtu >= 1 && ib_mtu <= 5 ? 128u << ib_mtu : 0;
}

unsigned roce_mtu_enum(unsigned bytes)
{
	for (unsigned e = 1; e <= 5; e++)
		if (roce_mtu_bytes(e) == bytes)
			return e;
	return 0;
}

int roce_opcode_find(enum roce_transport t, enum roce_op_kind kind, enum roce_position pos,
		     unsigned flag_mask, unsigned flags)
{
	for (unsigned op = (unsigned)t << 5; op < ((unsigned)t + 1) << 5; op++) {
		const struct roce_opcode_info *o = roce_opcode((uint8_t)op);
		if (o->name && o->kind == kind && o->position == pos && (o->flags & flag_mask) == flags)
			return (int)op;
	}
	return -1;
}

void roce_endpoint_desc(const struct roce_endpoint *ep, struct roce_desc *d, uint8_t opcode,
			uint32_t psn)
{
	if (ep->rocev1)
		roce_desc_init_v1(d, opcode);
	else
		roce_desc_init(d, opcode, ep->ip_version);
	memcpy(d->eth_dst, ep->dst_mac, 6);
	memcpy(d->eth_src, ep->src_mac, 6);
	d->n_vlan = ep->n_vlan <= ROCE_MAX_VLANS ? ep->n_vlan : ROCE_MAX_VLANS;
	for (unsigned i = 0; i < d->n_vlan; i++) {
		d->vlan_tpid[i] = d->n_vlan == 2 && i == 0 ? ROCE_ETHERTYPE_QINQ : ROCE_ETHERTYPE_VLAN;
		d->vlan_tci[i] = ep->vlan_tci[i];
	}
	if (ep->rocev1) {
		/* The GIDs: an IPv4 address in its mapped form. */
		roce_grh_set_tclass(d->ip, ep->traffic_class);
		roce_grh_set_flowlabel(d->ip, ep->flow_label);
		roce_grh_set_hoplmt(d->ip, ep->hop_limit);
		roce_gid_from_ip(ep->ip_version, ep->src_ip, d->ip + 8);
		roce_gid_from_ip(ep->ip_version, ep->dst_ip, d->ip + 24);
	} else if (ep->ip_version == 6) {
		roce_ipv6_set_tc(d->ip, ep->traffic_class);
		roce_ipv6_set_flowlabel(d->ip, ep->flow_label);
		roce_ipv6_set_hoplimit(d->ip, ep->hop_limit);
		memcpy(d->ip + 8, ep->src_ip, 16);
		memcpy(d->ip + 24, ep->dst_ip, 16);
	} else {
		roce_ipv4_set_tos(d->ip, ep->traffic_class);
		roce_ipv4_set_ttl(d->ip, ep->hop_limit);
		memcpy(d->ip + 12, ep->src_ip, 4);
		memcpy(d->ip + 16, ep->dst_ip, 4);
	}
	roce_udp_set_sport(d->udp, ep->udp_sport);
	roce_bth_set_pkey(d->bth, ep->pkey);
	roce_bth_set_destqp(d->bth, ep->dest_qpn);
	roce_bth_set_psn(d->bth, psn);
}
