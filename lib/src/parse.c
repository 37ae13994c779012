/*
 * The parser: Ethernet (with up to two VLAN tags) -> IPv4/IPv6 -> UDP ->
 * BTH -> extended headers -> payload -> pad -> ICRC. Every read is checked
 * against caplen first; a header that the frame (wirelen) holds but the
 * capture cut off is reported as E_CAPTURE_CUT, not as a malformation.
 */
#include "roce/packet.h"

#include <string.h>

#include "hints.h"

/* Where the walk stops on a broken packet: out of line, as healthy
 * traffic never gets there (hints.h). */
static ROCE_COLD enum roce_code fail(struct roce_pkt *p, enum roce_code c, uint32_t off, uint64_t observed,
				     uint64_t expected)
{
	p->err = c;
	p->err_off = off;
	p->err_observed = observed;
	p->err_expected = expected;
	return c;
}

/* A header of `need` bytes at `off` is missing: either the capture cut it
 * (the frame had it) or the frame is malformed (code c). */
static ROCE_COLD enum roce_code missing(struct roce_pkt *p, enum roce_code c, uint32_t off, uint64_t need,
					uint64_t observed, uint64_t expected)
{
	if ((uint64_t)off + need <= p->wirelen)
		return fail(p, ROCE_E_CAPTURE_CUT, off, p->caplen, 0);
	return fail(p, c, off, observed, expected);
}

static bool captured(const struct roce_pkt *p, uint32_t off, uint64_t len)
{
	return (uint64_t)off + len <= p->caplen;
}

static void found(struct roce_pkt *p, enum roce_hdr h, uint32_t off)
{
	p->hdrs |= 1u << h;
	p->hdr_off[h] = off;
}

static void reset(struct roce_pkt *p, const uint8_t *buf, size_t caplen, size_t wirelen)
{
	memset(p, 0, sizeof *p);
	if (caplen > UINT32_MAX)
		caplen = UINT32_MAX;
	if (wirelen < caplen)
		wirelen = caplen;
	if (wirelen > UINT32_MAX)
		wirelen = UINT32_MAX;
	p->buf = buf;
	p->caplen = (uint32_t)caplen;
	p->wirelen = (uint32_t)wirelen;
}

/* BTH at off, tp_len bytes of transport (BTH .. ICRC) on the wire. */
static enum roce_code walk_transport(struct roce_pkt *p, uint32_t off, uint32_t tp_len)
{
	p->tp_len = tp_len;
	if (tp_len < ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return fail(p, ROCE_E_TRUNC_BTH, off, tp_len, ROCE_BTH_LEN + ROCE_ICRC_LEN);
	if (!captured(p, off, ROCE_BTH_LEN))
		return fail(p, ROCE_E_CAPTURE_CUT, off, p->caplen, 0);
	found(p, ROCE_H_BTH, off);
	p->icrc_off = off + tp_len - ROCE_ICRC_LEN;
	p->icrc_found = captured(p, off, tp_len);
	const uint8_t *bth = p->buf + off;
	p->opcode = (uint8_t)roce_bth_opcode(bth);
	p->op = p->rd_as_dc ? roce_opcode_dc(p->opcode, roce_bth_se(bth)) : roce_opcode(p->opcode);
	if (!p->op->name)
		return fail(p, p->opcode >= 0xE0 ? ROCE_E_OPCODE_VENDOR : ROCE_E_OPCODE_UNDEFINED, off,
			    p->opcode, 0);

	uint32_t xlen = p->op->xhdr_len;
	uint32_t hdrs_len = ROCE_BTH_LEN + xlen;
	if (tp_len < hdrs_len + ROCE_ICRC_LEN)
		return fail(p, ROCE_E_TRUNC_XHDR, off, tp_len, hdrs_len + ROCE_ICRC_LEN);
	if (!captured(p, off, hdrs_len))
		return fail(p, ROCE_E_CAPTURE_CUT, off + ROCE_BTH_LEN, p->caplen, 0);
	uint32_t x = off + ROCE_BTH_LEN;
	/* The opcode's extended headers, in wire order (the bits' order). */
	for (uint32_t bits = p->op->xhdrs; bits; bits &= bits - 1) {
		enum roce_hdr h = (enum roce_hdr)(ROCE_H_FIRST_XHDR + __builtin_ctz(bits));
		found(p, h, x);
		x += roce_hdr_info(h)->size;
	}

	uint32_t data = tp_len - hdrs_len - ROCE_ICRC_LEN; /* payload + pad */
	uint32_t padcnt = roce_bth_padcnt(bth);
	if (padcnt > data)
		return fail(p, ROCE_E_PADCNT, off + 1, padcnt, data);
	p->payload_off = off + hdrs_len;
	p->payload_len = data - padcnt;
	p->pad_len = (uint8_t)padcnt;
	p->icrc_off = off + tp_len - ROCE_ICRC_LEN;
	p->complete = captured(p, off, tp_len);
	return ROCE_OK;
}

/* IP header at off; encap_version is what the Ethertype announced (0 for a
 * bare datagram). */
static enum roce_code walk_ip(struct roce_pkt *p, uint32_t off, unsigned encap_version,
			      unsigned flags)
{
	uint32_t wire = p->wirelen - off; /* off <= caplen <= wirelen */
	if (!captured(p, off, 1))
		return missing(p, ROCE_E_TRUNC_IP, off, 1, 0, ROCE_IPV4_LEN);
	const uint8_t *ip = p->buf + off;
	unsigned version = ip[0] >> 4;
	if (encap_version ? version != encap_version : (version != 4 && version != 6))
		return fail(p, ROCE_E_IP_VERSION, off, version, encap_version ? encap_version : 4);
	p->ip_version = (uint8_t)version;

	uint32_t hl, ip_payload;
	if (version == 4) {
		if (!captured(p, off, ROCE_IPV4_LEN))
			return missing(p, ROCE_E_TRUNC_IP, off, ROCE_IPV4_LEN, wire, ROCE_IPV4_LEN);
		unsigned ihl = roce_ipv4_ihl(ip);
		if (ihl < 5)
			return fail(p, ROCE_E_IPV4_IHL, off, ihl, 5);
		hl = ihl * 4;
		if (!captured(p, off, hl))
			return missing(p, ROCE_E_TRUNC_IP, off, hl, wire, hl);
		found(p, ROCE_H_IPV4, off);
		p->ip_hdr_len = hl;
		uint32_t totlen = roce_ipv4_totlen(ip);
		if (totlen < hl + ROCE_UDP_LEN)
			return fail(p, ROCE_E_IPV4_TOTLEN_SHORT, off + 2, totlen, hl + ROCE_UDP_LEN);
		if (totlen > wire)
			return fail(p, ROCE_E_IPV4_TOTLEN_LONG, off + 2, totlen, wire);
		p->l3_len = totlen;
		if (roce_ipv4_mf(ip))
			return fail(p, ROCE_E_IPV4_MF, off + 6, 1, 0);
		if (roce_ipv4_fragoff(ip))
			return fail(p, ROCE_E_IPV4_FRAGOFF, off + 6, roce_ipv4_fragoff(ip), 0);
		if (roce_ipv4_proto(ip) != ROCE_IP_PROTO_UDP)
			return fail(p, ROCE_E_IPV4_PROTO, off + 9, roce_ipv4_proto(ip), 17);
		ip_payload = totlen - hl;
	} else {
		if (!captured(p, off, ROCE_IPV6_LEN))
			return missing(p, ROCE_E_TRUNC_IP, off, ROCE_IPV6_LEN, wire, ROCE_IPV6_LEN);
		found(p, ROCE_H_IPV6, off);
		hl = ROCE_IPV6_LEN;
		p->ip_hdr_len = hl;
		uint32_t paylen = roce_ipv6_paylen(ip);
		if (paylen < ROCE_UDP_LEN)
			return fail(p, ROCE_E_IPV6_PAYLEN_SHORT, off + 4, paylen, ROCE_UDP_LEN);
		if (paylen + hl > wire)
			return fail(p, ROCE_E_IPV6_PAYLEN_LONG, off + 4, paylen, wire - hl);
		p->l3_len = paylen + hl;
		if (roce_ipv6_nexthdr(ip) != ROCE_IP_PROTO_UDP)
			return fail(p, ROCE_E_IPV6_NEXTHDR, off + 6, roce_ipv6_nexthdr(ip), 17);
		ip_payload = paylen;
	}

	uint32_t u = off + hl;
	if (!captured(p, u, ROCE_UDP_LEN))
		return fail(p, ROCE_E_CAPTURE_CUT, u, p->caplen, 0);
	found(p, ROCE_H_UDP, u);
	const uint8_t *udp = p->buf + u;
	if (roce_udp_len(udp) != ip_payload)
		return fail(p, ROCE_E_UDP_LEN, u + 4, roce_udp_len(udp), ip_payload);
	if (!(flags & ROCE_PARSE_ANY_PORT) && roce_udp_dport(udp) != ROCE_UDP_PORT)
		return fail(p, ROCE_E_UDP_DPORT, u + 2, roce_udp_dport(udp), ROCE_UDP_PORT);
	return walk_transport(p, u + ROCE_UDP_LEN, ip_payload - ROCE_UDP_LEN);
}

/* RoCE v1 (A16): the GRH at off, then the transport. */
static enum roce_code walk_grh(struct roce_pkt *p, uint32_t off)
{
	uint32_t wire = p->wirelen - off;
	if (!captured(p, off, ROCE_GRH_LEN))
		return missing(p, ROCE_E_TRUNC_GRH, off, ROCE_GRH_LEN, wire, ROCE_GRH_LEN);
	p->rocev1 = true;
	found(p, ROCE_H_GRH, off);
	const uint8_t *grh = p->buf + off;
	p->ip_hdr_len = ROCE_GRH_LEN;
	if (roce_grh_ipver(grh) != 6)
		return fail(p, ROCE_E_GRH_IPVER, off, roce_grh_ipver(grh), 6);
	if (roce_grh_nxthdr(grh) != ROCE_GRH_NXTHDR_IBA)
		return fail(p, ROCE_E_GRH_NXTHDR, off + 6, roce_grh_nxthdr(grh), ROCE_GRH_NXTHDR_IBA);
	uint32_t paylen = roce_grh_paylen(grh);
	if (paylen + ROCE_GRH_LEN > wire)
		return fail(p, ROCE_E_GRH_PAYLEN_LONG, off + 4, paylen, wire - ROCE_GRH_LEN);
	p->l3_len = paylen + ROCE_GRH_LEN;
	return walk_transport(p, off + ROCE_GRH_LEN, paylen);
}

static enum roce_code parse_frame(struct roce_pkt *p, const uint8_t *buf, size_t caplen, size_t wirelen,
				  unsigned flags)
{
	reset(p, buf, caplen, wirelen);
	p->rd_as_dc = flags & ROCE_PARSE_RD_AS_DC;
	if (!captured(p, 0, ROCE_ETH_LEN))
		return missing(p, ROCE_E_TRUNC_ETH, 0, ROCE_ETH_LEN, p->wirelen, ROCE_ETH_LEN);
	p->has_eth = true;
	uint32_t off = 12;
	uint16_t type = (uint16_t)roce_be_load(buf + off, 2);
	while (type == ROCE_ETHERTYPE_VLAN || type == ROCE_ETHERTYPE_QINQ) {
		if (p->n_vlan == ROCE_MAX_VLANS)
			return fail(p, ROCE_E_VLAN_DEPTH, off, p->n_vlan + 1, ROCE_MAX_VLANS);
		if (!captured(p, off, ROCE_VLAN_LEN + 2))
			return missing(p, ROCE_E_TRUNC_VLAN, off, ROCE_VLAN_LEN + 2, 0, 0);
		p->vlan_off[p->n_vlan++] = off;
		off += ROCE_VLAN_LEN;
		type = (uint16_t)roce_be_load(buf + off, 2);
	}
	p->ethertype = type;
	off += 2;
	switch (type) {
	case ROCE_ETHERTYPE_IPV4:
		return walk_ip(p, off, 4, flags);
	case ROCE_ETHERTYPE_IPV6:
		return walk_ip(p, off, 6, flags);
	case ROCE_ETHERTYPE_ROCEV1:
		if (flags & ROCE_PARSE_ROCEV1)
			return walk_grh(p, off);
		return fail(p, ROCE_E_ROCEV1, off - 2, type, 0);
	default:
		return fail(p, ROCE_E_ETHERTYPE, off - 2, type, 0);
	}
}

static enum roce_code parse_ip(struct roce_pkt *p, const uint8_t *buf, size_t caplen, size_t wirelen,
			       unsigned flags)
{
	reset(p, buf, caplen, wirelen);
	p->rd_as_dc = flags & ROCE_PARSE_RD_AS_DC;
	return walk_ip(p, 0, 0, flags);
}

static enum roce_code parse_bth(struct roce_pkt *p, const uint8_t *buf, size_t caplen, size_t len,
				unsigned flags)
{
	reset(p, buf, caplen, len);
	p->rd_as_dc = flags & ROCE_PARSE_RD_AS_DC;
	return walk_transport(p, 0, p->wirelen);
}

/* ROCE_PARSE_RD_AUTO: a packet read as RD that looks like DC is read again
 * as DC. */
static bool auto_dc(const struct roce_pkt *p, unsigned flags)
{
	return (flags & ROCE_PARSE_RD_AUTO) && !(flags & ROCE_PARSE_RD_AS_DC) && roce_pkt_looks_like_dc(p);
}

enum roce_code roce_parse_frame(struct roce_pkt *p, const uint8_t *buf, size_t caplen,
				size_t wirelen, unsigned flags)
{
	enum roce_code e = parse_frame(p, buf, caplen, wirelen, flags);
	return auto_dc(p, flags) ? parse_frame(p, buf, caplen, wirelen, flags | ROCE_PARSE_RD_AS_DC) : e;
}

enum roce_code roce_parse_ip(struct roce_pkt *p, const uint8_t *buf, size_t caplen,
			     size_t wirelen, unsigned flags)
{
	enum roce_code e = parse_ip(p, buf, caplen, wirelen, flags);
	return auto_dc(p, flags) ? parse_ip(p, buf, caplen, wirelen, flags | ROCE_PARSE_RD_AS_DC) : e;
}

enum roce_code roce_parse_bth(struct roce_pkt *p, const uint8_t *buf, size_t caplen, size_t len,
			      unsigned flags)
{
	enum roce_code e = parse_bth(p, buf, caplen, len, flags);
	return auto_dc(p, flags) ? parse_bth(p, buf, caplen, len, flags | ROCE_PARSE_RD_AS_DC) : e;
}

int roce_pkt_strerror(const struct roce_pkt *p, char *buf, size_t n)
{
	if (p->err == ROCE_OK) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	struct roce_finding f = { p->err, p->err_off, 0, p->err_observed, p->err_expected };
	return roce_finding_message(&f, buf, n);
}
