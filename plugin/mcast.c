/*
 * UD multicast: a packet sent to a group shows a "Multicast" subtree with
 * the group (its IP address and its GID), the MAC the group maps to and
 * whether the frame went to it, all from libroce (roce/mcast.h). The rule
 * violations themselves are libroce's findings, raised with the others.
 */
#include "mcast.h"

static int hf_mcast = -1;
static int hf_group = -1;
static int hf_gid = -1;
static int hf_mac = -1;
static int hf_mac_ok = -1;
static int hf_qp = -1;
static int ett_mcast = -1;

void rocev2_register_mcast(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_mcast, { "Multicast", ROCEV2_FILTER ".mcast", FT_NONE, BASE_NONE, NULL, 0,
			       "The packet is sent to a multicast group (its destination IP is multicast)", HFILL } },
		{ &hf_group, { "Group", ROCEV2_FILTER ".mcast.group", FT_STRING, BASE_NONE, NULL, 0,
			       "The multicast group: the destination IP address", HFILL } },
		{ &hf_gid, { "Group GID", ROCEV2_FILTER ".mcast.gid", FT_IPv6, BASE_NONE, NULL, 0,
			     "The group as a GID: ::ffff:a.b.c.d for an IPv4 group, the address itself for IPv6",
			     HFILL } },
		{ &hf_mac, { "Mapped MAC", ROCEV2_FILTER ".mcast.mac", FT_ETHER, BASE_NONE, NULL, 0,
			     "The Ethernet destination the group maps to: 01:00:5e and the low 23 bits of an IPv4 "
			     "group, 33:33 and the low 32 bits of an IPv6 group",
			     HFILL } },
		{ &hf_mac_ok, { "Frame to the mapped MAC", ROCEV2_FILTER ".mcast.mac_ok", FT_BOOLEAN, BASE_NONE, NULL,
				0, "Whether the frame's Ethernet destination is the group's mapped MAC (absent when "
				   "the capture has no Ethernet header)",
				HFILL } },
		{ &hf_qp, { "QP", ROCEV2_FILTER ".mcast.qp", FT_UINT24, BASE_HEX, NULL, 0,
			    "The sender's QP (DETH Source QP) or the group's DestQP 0xFFFFFF: the filter of a "
			    "multicast row of Conversations",
			    HFILL } },
	};
	static int *ett[] = { &ett_mcast };
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
}

static proto_item *gen(proto_item *ti)
{
	proto_item_set_generated(ti);
	return ti;
}

void rocev2_mcast_tree(proto_tree *rt, tvbuff_t *tvb, const struct roce_pkt *p)
{
	struct roce_mcast_group g;
	if (!rt || !roce_pkt_mcast_group(p, &g))
		return;
	char group[48];
	roce_mcast_group_format(&g, group, sizeof group);
	proto_item *ti = gen(proto_tree_add_item(rt, hf_mcast, tvb, 0, 0, ENC_NA));
	proto_item_append_text(ti, ": group %s", group);
	proto_tree *mt = proto_item_add_subtree(ti, ett_mcast);
	gen(proto_tree_add_string(mt, hf_group, tvb, 0, 0, group));
	ws_in6_addr gid;
	memcpy(gid.bytes, g.gid, sizeof gid.bytes);
	gen(proto_tree_add_ipv6(mt, hf_gid, tvb, 0, 0, &gid));
	gen(proto_tree_add_ether(mt, hf_mac, tvb, 0, 0, g.mac));
	enum roce_mcast_mac_status st = roce_pkt_mcast_mac_status(p, &g);
	if (st != ROCE_MCAST_MAC_UNKNOWN) {
		proto_item *ok = gen(proto_tree_add_boolean(mt, hf_mac_ok, tvb, 0, 0, st == ROCE_MCAST_MAC_OK));
		if (st == ROCE_MCAST_MAC_WRONG) {
			char have[18];
			roce_mac_format(roce_pkt_eth_dst(p), have, sizeof have);
			proto_item_append_text(ok, " (the frame goes to %s)", have);
		}
	}
	const uint8_t *deth = roce_pkt_hdr(p, ROCE_H_DETH);
	if (deth)
		proto_item_set_hidden(gen(proto_tree_add_uint(mt, hf_qp, tvb, 0, 0, roce_deth_srcqp(deth))));
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (bth)
		proto_item_set_hidden(gen(proto_tree_add_uint(mt, hf_qp, tvb, 0, 0, roce_bth_destqp(bth))));
}

bool rocev2_mcast_sender(const struct roce_pkt *p, uint32_t *src_qpn)
{
	struct roce_mcast_group g;
	const uint8_t *deth = roce_pkt_hdr(p, ROCE_H_DETH);
	if (!deth || !roce_pkt_mcast_group(p, &g))
		return false;
	*src_qpn = roce_deth_srcqp(deth);
	return true;
}
