/*
 * Inbound validation (rocev2-rules.md §5.1, CA17-24/27/33): every check
 * that makes a packet a silent drop, each with its counter, then dispatch
 * to the responder (requests), the requester (responses) or the congestion
 * reaction point (CNPs).
 */
#include "soft.h"

#include <string.h>

static const uint8_t *eth_dst(const uint8_t *frame)
{
	return frame;
}

static const uint8_t *eth_src(const uint8_t *frame)
{
	return frame + 6;
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

/*
 * Faults that accept a malformed IP/UDP header: repair the field in a copy
 * so that the rest of the packet parses. The ICRC is then checked against
 * the bytes as received (the repaired field is covered by it).
 */
static bool repair_for_fault(struct soft_dev *dev, const struct roce_pkt *bad, uint8_t *copy,
			     size_t len, uint32_t *l3_off)
{
	uint32_t ip;
	switch (bad->err) {
	case ROCE_E_IP_VERSION:
		if (!SOFT_FAULT_ON(dev, ACCEPT_VERSION_MISMATCH))
			return false;
		ip = bad->err_off;
		copy[ip] = (uint8_t)((copy[ip] & 0x0F) | (bad->err_expected << 4));
		break;
	case ROCE_E_IPV4_MF:
	case ROCE_E_IPV4_FRAGOFF:
		if (!SOFT_FAULT_ON(dev, ACCEPT_FRAGMENT))
			return false;
		ip = bad->hdr_off[ROCE_H_IPV4];
		roce_ipv4_set_mf(copy + ip, 0);
		roce_ipv4_set_fragoff(copy + ip, 0);
		break;
	case ROCE_E_IPV4_TOTLEN_LONG:
	case ROCE_E_IPV6_PAYLEN_LONG:
		if (!SOFT_FAULT_ON(dev, ACCEPT_BAD_IP_LEN))
			return false;
		ip = bad->err_off - (bad->err == ROCE_E_IPV4_TOTLEN_LONG ? 2 : 4);
		if (bad->err == ROCE_E_IPV4_TOTLEN_LONG)
			roce_ipv4_set_totlen(copy + ip, bad->err_expected);
		else
			roce_ipv6_set_paylen(copy + ip, bad->err_expected);
		break;
	case ROCE_E_UDP_LEN:
		if (!SOFT_FAULT_ON(dev, ACCEPT_BAD_UDP_LEN))
			return false;
		ip = bad->hdr_off[bad->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
		roce_udp_set_len(copy + bad->hdr_off[ROCE_H_UDP], bad->err_expected);
		break;
	default:
		return false;
	}
	(void)len;
	*l3_off = ip;
	/* Only the broken field is forgiven: the IPv4 checksum must have been
	 * right as received, and is made right again for the repaired copy. */
	if (bad->ip_version == 4 || bad->err == ROCE_E_IP_VERSION) {
		const uint8_t *orig = bad->buf + ip;
		unsigned hl = (orig[0] & 0x0F) * 4u;
		if (bad->ip_version == 4 || (copy[ip] >> 4) == 4) {
			if (hl < 20 || ip + hl > len || roce_ipv4_csum(orig) != roce_ipv4_checksum(orig, hl))
				return false;
			roce_ipv4_set_csum(copy + ip, roce_ipv4_checksum(copy + ip, hl));
		}
	}
	return true;
}

/* accept-ipv6-exthdr: copies the frame without the IPv6 extension headers
 * (hop-by-hop, routing, destination options) that precede a UDP header;
 * p->err_observed becomes the number of bytes removed. */
static bool strip_ipv6_exthdrs(struct roce_pkt *p, const uint8_t *frame, size_t len, uint8_t *out)
{
	uint32_t ip = p->err_off - 6; /* the error points at Next Header */
	if (ip + ROCE_IPV6_LEN > len)
		return false;
	unsigned nh = roce_ipv6_nexthdr(frame + ip);
	size_t off = ip + ROCE_IPV6_LEN, skipped = 0;
	for (int i = 0; i < 4 && (nh == 0 || nh == 43 || nh == 60); i++) {
		if (off + 8 > len)
			return false;
		size_t hl = ((size_t)frame[off + 1] + 1) * 8;
		nh = frame[off];
		off += hl;
		skipped += hl;
	}
	if (nh != 17 || off > len || !skipped || roce_ipv6_paylen(frame + ip) < skipped)
		return false;
	memcpy(out, frame, ip + ROCE_IPV6_LEN);
	memcpy(out + ip + ROCE_IPV6_LEN, frame + off, len - off);
	roce_ipv6_set_nexthdr(out + ip, 17);
	roce_ipv6_set_paylen(out + ip, roce_ipv6_paylen(frame + ip) - skipped);
	p->err_observed = skipped;
	return true;
}

static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7FFF) == (b & 0x7FFF) && ((a | b) & 0x8000);
}

static enum roce_transport qp_transport(const struct be_qp *qp)
{
	return qp->type == BE_QPT_RC ? ROCE_T_RC : qp->type == BE_QPT_UC ? ROCE_T_UC : ROCE_T_UD;
}

static struct be_qp *lowest_qp(struct soft_dev *dev)
{
	struct be_qp *best = NULL;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (!best || ((struct be_qp *)v)->qpn < best->qpn)
			best = v;
	return best;
}

/* cnp-before-validation: the broken notification point answers ECN CE
 * before the packet is checked (CA17-44 asks for a valid packet). */
static void cnp_before_validation(struct soft_dev *dev, const struct roce_pkt *p, const uint8_t *frame,
				  const uint8_t *l3, const uint8_t *src_ip, const uint8_t *dst_ip)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	unsigned ecn = p->ip_version == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3);
	struct be_qp *qp = bth && ecn == 3 ? soft_qp_lookup(dev, roce_bth_destqp(bth)) : NULL;
	if (!qp || p->op->kind == ROCE_K_CNP)
		return;
	struct soft_rx rx = { .p = p, .bth = bth, .ip_version = p->ip_version, .l3 = l3 };
	memcpy(rx.src_ip, src_ip, 16);
	memcpy(rx.dst_ip, dst_ip, 16);
	memcpy(rx.src_mac, eth_src(frame), 6);
	soft_cc_on_ce(qp, &rx);
}

void soft_rx_frame(struct soft_dev *dev, const uint8_t *frame, size_t len)
{
	if (len < ROCE_ETH_LEN || len > sizeof dev->rxbuf || memcmp(eth_dst(frame), dev->mac, 6) != 0)
		return;
	const uint8_t *orig = frame;

	struct roce_pkt p;
	/* A dual-mode port takes RoCE v1 too (A17.8). */
	const unsigned pflags = dev->opts.rocev1 ? ROCE_PARSE_ROCEV1 : 0;
	enum roce_code e = roce_parse_frame(&p, frame, len, len, pflags);
	uint8_t repaired[sizeof dev->rxbuf];
	bool icrc_from_original = false, skip_icrc = false;
	uint32_t l3_off = 0;
	if (e == ROCE_E_IPV6_NEXTHDR && SOFT_FAULT_ON(dev, ACCEPT_IPV6_EXTHDR) &&
	    strip_ipv6_exthdrs(&p, frame, len, repaired)) {
		/* The broken device skips the extension headers; with them gone
		 * the ICRC's coverage is ambiguous, so it is not checked. */
		len -= (size_t)(p.err_observed);
		frame = repaired;
		e = roce_parse_frame(&p, frame, len, len, pflags);
		if (e != ROCE_OK)
			return;
		skip_icrc = true;
	}
	if (e != ROCE_OK && not_roce(e))
		return;

	if (e != ROCE_OK) {
		dev->cnt.rx_frames++;
		memcpy(repaired, frame, len);
		if (!repair_for_fault(dev, &p, repaired, len, &l3_off)) {
			if (e == ROCE_E_IP_VERSION)
				dev->cnt.rx_drop_ip_version++;
			else if (e == ROCE_E_OPCODE_UNDEFINED || e == ROCE_E_OPCODE_VENDOR)
				dev->cnt.rx_drop_opcode++;
			else
				dev->cnt.rx_drop_ip++;
			return;
		}
		enum roce_code before = p.err;
		if (roce_parse_frame(&p, repaired, len, len, pflags) != ROCE_OK)
			return;
		frame = repaired;
		/* The ICRC of a version-mismatched header is ambiguous (which
		 * fields are masked?): that profile does not check it. */
		icrc_from_original = before != ROCE_E_IP_VERSION;
		skip_icrc = before == ROCE_E_IP_VERSION;
	} else {
		dev->cnt.rx_frames++;
	}
	if (!p.complete)
		return;
	if (p.ip_version == 6 && SOFT_FAULT_ON(dev, IPV4_ONLY))
		return;

	const uint8_t *l3 = frame + p.hdr_off[p.rocev1 ? ROCE_H_GRH : p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	uint8_t dst_ip[16] = { 0 }, src_ip[16] = { 0 };
	/* The addresses: a RoCE v1 packet's are its GIDs, an IPv4 address in
	 * the mapped form. */
	int ipv = p.ip_version;
	if (p.rocev1) {
		dev->cnt.rx_rocev1++;
		static const uint8_t v4prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
		const uint8_t *sgid = roce_grh_sgid(l3), *dgid = roce_grh_dgid(l3);
		ipv = memcmp(dgid, v4prefix, 12) == 0 ? 4 : 6;
		memcpy(src_ip, ipv == 4 ? sgid + 12 : sgid, ipv == 4 ? 4 : 16);
		memcpy(dst_ip, ipv == 4 ? dgid + 12 : dgid, ipv == 4 ? 4 : 16);
	} else if (p.ip_version == 6) {
		memcpy(src_ip, roce_ipv6_src(l3), 16);
		memcpy(dst_ip, roce_ipv6_dst(l3), 16);
	} else {
		memcpy(src_ip, roce_ipv4_src(l3), 4);
		memcpy(dst_ip, roce_ipv4_dst(l3), 4);
	}
	/* The DGID check: one of our GIDs, of the type of the protocol that
	 * brought it (CA17-41). */
	if (!soft_is_our_ip(dev, ipv, dst_ip, p.rocev1) && !SOFT_FAULT_ON(dev, ACCEPT_FOREIGN_DST)) {
		soft_refresh_gids(dev);
		if (!soft_is_our_ip(dev, ipv, dst_ip, p.rocev1)) {
			dev->cnt.rx_drop_gid++;
			return;
		}
	}

	if (SOFT_FAULT_ON(dev, CNP_BEFORE_VALIDATION) && !p.rocev1)
		cnp_before_validation(dev, &p, frame, l3, src_ip, dst_ip);

	/* The header rules of A17.3 (CA17-24): IP options, flags, checksum,
	 * ICRC. libroce's stateless checks find them. */
	struct roce_finding f[32];
	struct roce_check_opts co = { icrc_from_original || skip_icrc ? 0 : ROCE_CHK_ICRC, 0 };
	size_t nf = roce_check(&p, &co, f, 32);
	if (nf > 32)
		nf = 32;
	for (size_t i = 0; i < nf; i++) {
		switch (f[i].code) {
		case ROCE_C_ICRC:
		case ROCE_C_ICRC_V1:
			if (!SOFT_FAULT_ON(dev, ACCEPT_BAD_ICRC)) {
				dev->cnt.rx_drop_icrc++;
				return;
			}
			break;
		case ROCE_C_IPV4_IHL:
			if (!SOFT_FAULT_ON(dev, ACCEPT_IP_OPTIONS)) {
				dev->cnt.rx_drop_ip++;
				return;
			}
			break;
		case ROCE_C_IPV4_DF:
		case ROCE_C_IPV4_RF:
			if (!SOFT_FAULT_ON(dev, ACCEPT_NO_DF)) {
				dev->cnt.rx_drop_ip++;
				return;
			}
			break;
		case ROCE_C_IPV4_CSUM:
			if (!SOFT_FAULT_ON(dev, ACCEPT_BAD_IPV4_CSUM)) {
				dev->cnt.rx_drop_ip++;
				return;
			}
			break;
		default:
			break;
		}
	}
	if (icrc_from_original) {
		const uint8_t *orig_l3 = orig + l3_off;
		uint32_t wire = roce_le32_load(orig + p.icrc_off);
		if (wire != roce_icrc(orig_l3, p.icrc_off - l3_off) && !SOFT_FAULT_ON(dev, ACCEPT_BAD_ICRC)) {
			dev->cnt.rx_drop_icrc++;
			return;
		}
	}

	soft_neigh_learn(dev, ipv, src_ip, eth_src(frame));

	const uint8_t *bth = roce_pkt_hdr(&p, ROCE_H_BTH);
	if (roce_bth_tver(bth) != 0 && !SOFT_FAULT_ON(dev, IGNORE_TVER)) {
		dev->cnt.rx_drop_tver++;
		return;
	}
	if (SOFT_FAULT_ON(dev, HONOUR_BECN) && (roce_bth_fecn(bth) || roce_bth_becn(bth)))
		return;

	uint32_t destqp = roce_bth_destqp(bth);
	if (destqp == ROCE_QP1) {
		/* The GSI: any P_Key of the table (A17.4), then the CM. */
		if (!pkey_match((uint16_t)roce_bth_pkey(bth), 0xFFFF) && !SOFT_FAULT_ON(dev, IGNORE_PKEY)) {
			dev->cnt.pkey_violations++;
			return;
		}
		dev->cnt.rx_packets++;
		struct soft_rx rx = { .p = &p, .bth = bth, .psn = roce_bth_psn(bth), .opcode = p.opcode, .op = p.op,
				      .payload = frame + p.payload_off, .payload_len = p.payload_len,
				      .ip_version = p.ip_version, .l3 = l3 };
		memcpy(rx.src_ip, src_ip, 16);
		memcpy(rx.dst_ip, dst_ip, 16);
		memcpy(rx.src_mac, eth_src(frame), 6);
		soft_cm_rx(dev, &rx);
		return;
	}
	struct be_qp *qp;
	if (destqp == 0) {
		if (!SOFT_FAULT_ON(dev, ACCEPT_QP0)) {
			dev->cnt.rx_drop_qp0++;
			return;
		}
		qp = lowest_qp(dev);
	} else {
		qp = soft_qp_lookup(dev, destqp);
		if (!qp && SOFT_FAULT_ON(dev, ACCEPT_UNKNOWN_QP))
			qp = lowest_qp(dev);
	}
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

	const struct roce_opcode_info *op = p.op;
	uint8_t opcode = p.opcode;
	if (op->transport != qp_transport(qp)) {
		uint8_t as_ours = (uint8_t)((qp_transport(qp) << 5) | (opcode & 0x1F));
		const struct roce_opcode_info *o2 = roce_opcode(as_ours);
		if (!SOFT_FAULT_ON(dev, IGNORE_QP_TYPE) || !o2->name || o2->xhdrs != op->xhdrs) {
			dev->cnt.rx_drop_qp_type++;
			return;
		}
		op = o2;
		opcode = as_ours;
	}

	if (!pkey_match((uint16_t)roce_bth_pkey(bth), 0xFFFF) && !SOFT_FAULT_ON(dev, IGNORE_PKEY)) {
		dev->cnt.pkey_violations++;
		return;
	}

	enum be_qp_state s = qp->attr.state;
	bool request = op->flags & ROCE_OPF_REQUEST;
	bool state_ok = request ? (s == BE_QPS_RTR || s == BE_QPS_RTS || s == BE_QPS_SQD ||
				   s == BE_QPS_SQE || (s == BE_QPS_INIT && SOFT_FAULT_ON(dev, IGNORE_QP_STATE)))
				: (s == BE_QPS_RTS || s == BE_QPS_SQD || s == BE_QPS_SQE);
	if (!state_ok) {
		dev->cnt.rx_drop_qp_state++;
		return;
	}

	/* A connected QP speaks the protocol of its source GID's type: the
	 * other one fails the DGID check (A17.8, CA17-41). A QP in INIT
	 * (reached here only under ignore-qp-state) has no address vector to
	 * check the protocol and addresses against. */
	if (qp->type != BE_QPT_UD && s != BE_QPS_INIT && p.rocev1 != qp->gid_v1 &&
	    dev->fault != (request ? SOFT_FAULT_ACCEPT_GID_TYPE_MISMATCH : SOFT_FAULT_ACCEPT_GID_TYPE_MISMATCH_RESPONSES)) {
		dev->cnt.rx_drop_gid_type++;
		return;
	}
	if (qp->type == BE_QPT_UD && p.rocev1 && SOFT_FAULT_ON(dev, UD_DROP_V1)) {
		dev->cnt.ud_dropped++;
		return;
	}
	if (qp->type != BE_QPT_UD && !SOFT_FAULT_ON(dev, IGNORE_ADDR) && s != BE_QPS_INIT) {
		size_t n = ipv == 4 ? 4 : 16;
		if (ipv != qp->ep.ip_version || memcmp(src_ip, qp->ep.dst_ip, n) != 0 ||
		    (memcmp(dst_ip, qp->ep.src_ip, n) != 0 && !SOFT_FAULT_ON(dev, ACCEPT_FOREIGN_DST))) {
			dev->cnt.rx_drop_addr++;
			return;
		}
	}
	if (qp->type == BE_QPT_UD) {
		if (!request || op->kind != ROCE_K_SEND) {
			dev->cnt.rx_drop_opcode++;
			return;
		}
		const uint8_t *deth = roce_pkt_hdr(&p, ROCE_H_DETH);
		if (!deth || (roce_deth_qkey(deth) != qp->attr.qkey && !SOFT_FAULT_ON(dev, IGNORE_QKEY))) {
			dev->cnt.qkey_violations++;
			return;
		}
	}

	dev->cnt.rx_packets++;
	struct soft_rx rx = {
		.p = &p,
		.bth = bth,
		.psn = roce_bth_psn(bth),
		.opcode = opcode,
		.op = op,
		.payload = frame + p.payload_off,
		.payload_len = p.payload_len,
		.ip_version = ipv,
		.rocev1 = p.rocev1,
		.l3 = l3,
	};
	memcpy(rx.src_ip, src_ip, 16);
	memcpy(rx.dst_ip, dst_ip, 16);
	memcpy(rx.src_mac, eth_src(frame), 6);

	/* ECN is RoCEv2's (A17.9.3): a GRH's traffic class has none. */
	unsigned ecn = p.rocev1 ? 0 : p.ip_version == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3);
	if (ecn == 3) {
		dev->cnt.rx_ecn_ce++;
		soft_cc_on_ce(qp, &rx);
	}

	if (request)
		soft_resp_rx(qp, &rx);
	else
		soft_req_rx(qp, &rx);
}
