/*
 * Inbound validation (rocev2-rules.md §5.1, CA17-24/27/33): every check
 * that makes a packet a silent drop, each with its counter, then dispatch
 * to the responder (requests), the requester (responses), the congestion
 * reaction point (CNPs) or, for DestQP 0xFFFFFF, multicast delivery
 * (mcast.c, through the same per-QP checks).
 */
#include "soft.h"
#include "roce/mcast.h"

#include <string.h>

static const uint8_t *eth_dst(const uint8_t *frame)
{
	return frame;
}

static const uint8_t *eth_src(const uint8_t *frame)
{
	return frame + ROCE_ETH_SRC_OFF;
}

/* Whether a parse error means "not RoCEv2 at all" (ignored, not counted). */
static bool not_roce(enum roce_code e)
{
	switch (e) {
	case ROCE_E_CAPTURE_CUT:
	case ROCE_E_TRUNC_ETH:
	case ROCE_E_TRUNC_VLAN:
	case ROCE_E_VLAN_DEPTH:
	case ROCE_E_ROCEV1:
	case ROCE_E_ETHERTYPE:
	case ROCE_E_IPV4_PROTO:
	case ROCE_E_IPV6_NEXTHDR:
	case ROCE_E_UDP_DPORT:
		return true;
	default:
		return false;
	}
}

static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7FFF) == (b & 0x7FFF) && ((a | b) & 0x8000);
}

static enum roce_transport qp_transport(const struct be_qp *qp)
{
	return soft_qp_transport(qp);
}

void soft_rx_frame(struct soft_dev *dev, const uint8_t *frame, size_t len)
{
	if (len < ROCE_ETH_LEN || len > sizeof dev->rxbuf ||
	    (memcmp(eth_dst(frame), dev->mac, 6) != 0 && !soft_mcast_mac_wanted(dev, eth_dst(frame))))
		return;
	/* The fault profile's receive filter drops the frame, or hands on
	 * the frame a conforming device would take in its place. */
	if (!soft_fault_rx(dev, &frame, &len))
		return;

	struct roce_pkt p;
	/* A dual-mode port takes RoCE v1 too (A17.8). */
	enum roce_code e = roce_parse_frame(&p, frame, len, len, dev->opts.rocev1 ? ROCE_PARSE_ROCEV1 : 0);
	if (e != ROCE_OK && not_roce(e))
		return;
	dev->cnt.rx_frames++;
	if (e != ROCE_OK) {
		if (e == ROCE_E_IP_VERSION)
			dev->cnt.rx_drop_ip_version++;
		else if (e == ROCE_E_OPCODE_UNDEFINED || e == ROCE_E_OPCODE_VENDOR)
			dev->cnt.rx_drop_opcode++;
		else
			dev->cnt.rx_drop_ip++;
		return;
	}
	if (!p.complete)
		return;

	const uint8_t *l3 = frame + p.hdr_off[p.rocev1 ? ROCE_H_GRH : p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	uint8_t dst_ip[16] = { 0 }, src_ip[16] = { 0 };
	/* The addresses: a RoCE v1 packet's are its GIDs, an IPv4 address in
	 * the mapped form. */
	int ipv = p.ip_version;
	if (p.rocev1) {
		dev->cnt.rx_rocev1++;
		ipv = roce_gid_to_ip(roce_grh_sgid(l3), src_ip);
		roce_gid_to_ip(roce_grh_dgid(l3), dst_ip);
	} else if (p.ip_version == 6) {
		memcpy(src_ip, roce_ipv6_src(l3), 16);
		memcpy(dst_ip, roce_ipv6_dst(l3), 16);
	} else {
		memcpy(src_ip, roce_ipv4_src(l3), 4);
		memcpy(dst_ip, roce_ipv4_dst(l3), 4);
	}
	/* The DGID check: one of our GIDs, of the type of the protocol that
	 * brought it (CA17-41). */
	if (!soft_is_our_ip(dev, ipv, dst_ip, p.rocev1) && !roce_ip_is_multicast(ipv, dst_ip)) {
		soft_refresh_gids(dev);
		if (!soft_is_our_ip(dev, ipv, dst_ip, p.rocev1)) {
			dev->cnt.rx_drop_gid++;
			return;
		}
	}

	/* The header rules of A17.3 (CA17-24): IP options, flags, checksum,
	 * ICRC. libroce's stateless checks find them. */
	struct roce_finding f[32];
	struct roce_check_opts co = { ROCE_CHK_ICRC, 0 };
	size_t nf = roce_check(&p, &co, f, 32);
	for (size_t i = 0; i < nf && i < 32; i++) {
		switch (f[i].code) {
		case ROCE_C_ICRC:
		case ROCE_C_ICRC_V1:
			dev->cnt.rx_drop_icrc++;
			return;
		case ROCE_C_IPV4_IHL:
		case ROCE_C_IPV4_DF:
		case ROCE_C_IPV4_RF:
		case ROCE_C_IPV4_CSUM:
			dev->cnt.rx_drop_ip++;
			return;
		default:
			break;
		}
	}

	soft_neigh_learn(dev, ipv, src_ip, eth_src(frame));

	const uint8_t *bth = roce_pkt_hdr(&p, ROCE_H_BTH);
	if (roce_bth_tver(bth) != 0) {
		dev->cnt.rx_drop_tver++;
		return;
	}
	struct soft_rx rx = {
		.p = &p,
		.bth = bth,
		.psn = roce_bth_psn(bth),
		.opcode = p.opcode,
		.op = p.op,
		.payload = frame + p.payload_off,
		.payload_len = p.payload_len,
		.ip_version = ipv,
		.rocev1 = p.rocev1,
		.l3 = l3,
	};
	memcpy(rx.src_ip, src_ip, 16);
	memcpy(rx.dst_ip, dst_ip, 16);
	memcpy(rx.src_mac, eth_src(frame), 6);

	uint32_t destqp = roce_bth_destqp(bth);
	bool pkey_ok = pkey_match((uint16_t)roce_bth_pkey(bth), 0xFFFF); /* the table's only P_Key */
	if (destqp == ROCE_QP1) {
		/* The GSI: any P_Key of the table (A17.4), then the CM. */
		if (!pkey_ok) {
			dev->cnt.pkey_violations++;
			return;
		}
		dev->cnt.rx_packets++;
		dev->rx = &rx;
		soft_cm_rx(dev, &rx);
		dev->rx = NULL;
		return;
	}
	if (destqp == 0) {
		dev->cnt.rx_drop_qp0++;
		return;
	}
	/* Multicast (notes §7.1): a group's datagrams go to DestQP 0xFFFFFF,
	 * and 0xFFFFFF only to a group; mcast.c delivers the copies, drops
	 * RC and UC packets to 0xFFFFFF wherever they are sent, and a UD
	 * datagram to 0xFFFFFF at the port's own address. */
	bool to_group = roce_ip_is_multicast(ipv, dst_ip);
	if (destqp == ROCE_MCAST_QPN || to_group) {
		if (destqp != ROCE_MCAST_QPN) {
			dev->cnt.rx_drop_mcast_destqp++;
			return;
		}
		if (!pkey_ok) {
			dev->cnt.pkey_violations++;
			return;
		}
		soft_mcast_rx(dev, &rx);
		return;
	}
	struct be_qp *qp = soft_qp_lookup(dev, destqp);
	if (!qp) {
		dev->cnt.rx_drop_no_qp++;
		return;
	}
	if (p.op->kind == ROCE_K_CNP) {
		dev->cnt.rx_cnp++;
		if (qp->attr.state == BE_QPS_RTS || qp->attr.state == BE_QPS_SQD)
			soft_cc_on_cnp(qp);
		return;
	}
	if (!soft_rx_qp_accepts(qp, &rx, 0))
		return;
	dev->cnt.rx_packets++;
	soft_rx_deliver(qp, &rx);
}

bool soft_rx_qp_accepts(struct be_qp *qp, const struct soft_rx *rx, unsigned relax)
{
	struct soft_dev *dev = qp->dev;
	const struct roce_pkt *p = rx->p;
	if (p->op->transport != qp_transport(qp)) {
		dev->cnt.rx_drop_qp_type++;
		return false;
	}
	if (!pkey_match((uint16_t)roce_bth_pkey(rx->bth), 0xFFFF)) { /* the table's only P_Key */
		dev->cnt.pkey_violations++;
		return false;
	}

	enum be_qp_state s = qp->attr.state;
	bool request = p->op->flags & ROCE_OPF_REQUEST;
	bool state_ok = request ? (s == BE_QPS_RTR || s == BE_QPS_RTS || s == BE_QPS_SQD ||
				   s == BE_QPS_SQE || (s == BE_QPS_INIT && SOFT_FAULT_ON(dev, IGNORE_QP_STATE)))
				: (s == BE_QPS_RTS || s == BE_QPS_SQD || s == BE_QPS_SQE);
	if (!state_ok) {
		dev->cnt.rx_drop_qp_state++;
		return false;
	}

	/* A connected QP speaks the protocol of its source GID's type: the
	 * other one fails the DGID check (A17.8, CA17-41). A QP in INIT
	 * (reached here only under ignore-qp-state) has no address vector to
	 * check the protocol and addresses against. */
	if (qp->type != BE_QPT_UD && s != BE_QPS_INIT && p->rocev1 != qp->gid_v1 &&
	    dev->fault != (request ? SOFT_FAULT_ACCEPT_GID_TYPE_MISMATCH : SOFT_FAULT_ACCEPT_GID_TYPE_MISMATCH_RESPONSES)) {
		dev->cnt.rx_drop_gid_type++;
		return false;
	}
	if (qp->type != BE_QPT_UD && s != BE_QPS_INIT && !(relax & SOFT_ACCEPT_ANY_ADDR)) {
		size_t n = rx->ip_version == 4 ? 4 : 16;
		if (rx->ip_version != qp->ep.ip_version || memcmp(rx->src_ip, qp->ep.dst_ip, n) != 0 ||
		    memcmp(rx->dst_ip, qp->ep.src_ip, n) != 0) {
			dev->cnt.rx_drop_addr++;
			return false;
		}
	}
	if (qp->type == BE_QPT_UD) {
		if (!request || p->op->kind != ROCE_K_SEND) {
			dev->cnt.rx_drop_opcode++;
			return false;
		}
		const uint8_t *deth = roce_pkt_hdr(p, ROCE_H_DETH);
		if (!deth || (roce_deth_qkey(deth) != qp->attr.qkey && !(relax & SOFT_ACCEPT_ANY_QKEY))) {
			dev->cnt.qkey_violations++;
			return false;
		}
	}
	return true;
}

void soft_rx_deliver(struct be_qp *qp, const struct soft_rx *rx)
{
	struct soft_dev *dev = qp->dev;
	const struct roce_pkt *p = rx->p;
	dev->rx = rx;
	/* ECN is RoCEv2's (A17.9.3): a GRH's traffic class has none. */
	unsigned ecn = p->rocev1 ? 0 : p->ip_version == 6 ? roce_ipv6_ecn(rx->l3) : roce_ipv4_ecn(rx->l3);
	if (ecn == 3) {
		dev->cnt.rx_ecn_ce++;
		soft_cc_on_ce(qp, rx);
	}

	if (p->op->flags & ROCE_OPF_REQUEST)
		soft_resp_rx(qp, rx);
	else
		soft_req_rx(qp, rx);
	dev->rx = NULL;
}
