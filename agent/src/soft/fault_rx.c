/*
 * The fault profiles' receive filter (hook RX in fault.def): what the broken
 * device drops that a conforming one takes, or takes that a conforming one
 * drops. It sees each frame before the device's own validation
 * (soft_rx_frame). A frame the profile drops never arrives; a frame the
 * profile takes against the rules is handed on rewritten into the frame a
 * conforming device takes: the forgiven field made right, and the IPv4
 * checksum and the ICRC made right again where they were right as
 * received, so that nothing else is forgiven with it. rx.c stays the
 * conforming device's validation.
 */
#include "soft.h"
#include "roce/mcast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The frame as it is rewritten: a copy in dev->fs.frame, parsed. */
struct copy {
	struct soft_dev *dev;
	uint8_t *f;
	size_t len;
	unsigned pflags;
	struct roce_pkt p;
	bool icrc_ok; /* the ICRC was right as received (or is not checked): reseal it */
	bool csum_ok; /* the IPv4 header checksum was right as received */
	bool changed;
};

static uint32_t l3_off(const struct roce_pkt *p)
{
	return p->hdr_off[p->rocev1 ? ROCE_H_GRH : p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
}

static bool ipv4_csum_right(const uint8_t *ip, size_t len)
{
	unsigned hl = roce_ipv4_ihl(ip) * 4u;
	return hl >= ROCE_IPV4_LEN && hl <= len && roce_ipv4_csum(ip) == roce_ipv4_checksum(ip, hl);
}

/* ---- Frames that do not parse ---- */

/* accept-ipv6-exthdr: the copy without the IPv6 extension headers
 * (hop-by-hop, routing, destination options) that precede a UDP header. */
static bool strip_ipv6_exthdrs(struct copy *c, const uint8_t *frame)
{
	uint32_t ip = c->p.err_off - 6; /* the error points at Next Header */
	if (ip + ROCE_IPV6_LEN > c->len)
		return false;
	unsigned nh = roce_ipv6_nexthdr(frame + ip);
	size_t off = ip + ROCE_IPV6_LEN, skipped = 0;
	for (int i = 0; i < 4 && (nh == 0 || nh == 43 || nh == 60); i++) {
		if (off + 8 > c->len)
			return false;
		size_t hl = ((size_t)frame[off + 1] + 1) * 8;
		nh = frame[off];
		off += hl;
		skipped += hl;
	}
	if (nh != ROCE_IP_PROTO_UDP || off > c->len || !skipped || roce_ipv6_paylen(frame + ip) < skipped)
		return false;
	memmove(c->f + ip + ROCE_IPV6_LEN, frame + off, c->len - off);
	roce_ipv6_set_nexthdr(c->f + ip, ROCE_IP_PROTO_UDP);
	roce_ipv6_set_paylen(c->f + ip, roce_ipv6_paylen(frame + ip) - skipped);
	c->len -= skipped;
	return true;
}

/* The profiles that take a malformed IP or UDP header: the copy gets the
 * field the device forgives made right. frame is the frame as received. */
static bool repair_field(struct copy *c, const uint8_t *frame)
{
	const struct roce_pkt *bad = &c->p;
	uint32_t ip;
	switch (c->dev->fault) {
	case SOFT_FAULT_ACCEPT_VERSION_MISMATCH:
		if (bad->err != ROCE_E_IP_VERSION)
			return false;
		ip = bad->err_off;
		roce_ipv4_set_version(c->f + ip, bad->err_expected); /* the version nibble, either header */
		break;
	case SOFT_FAULT_ACCEPT_FRAGMENT:
		if (bad->err != ROCE_E_IPV4_MF && bad->err != ROCE_E_IPV4_FRAGOFF)
			return false;
		ip = bad->hdr_off[ROCE_H_IPV4];
		roce_ipv4_set_mf(c->f + ip, 0);
		roce_ipv4_set_fragoff(c->f + ip, 0);
		break;
	case SOFT_FAULT_ACCEPT_BAD_IP_LEN:
		if (bad->err == ROCE_E_IPV4_TOTLEN_LONG) {
			ip = bad->err_off - (uint32_t)roce_field_info(ROCE_F_IPV4_totlen)->offset;
			roce_ipv4_set_totlen(c->f + ip, bad->err_expected);
		} else if (bad->err == ROCE_E_IPV6_PAYLEN_LONG) {
			ip = bad->err_off - (uint32_t)roce_field_info(ROCE_F_IPV6_paylen)->offset;
			roce_ipv6_set_paylen(c->f + ip, bad->err_expected);
		} else {
			return false;
		}
		break;
	case SOFT_FAULT_ACCEPT_BAD_UDP_LEN:
		if (bad->err != ROCE_E_UDP_LEN)
			return false;
		ip = bad->hdr_off[bad->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
		roce_udp_set_len(c->f + bad->hdr_off[ROCE_H_UDP], bad->err_expected);
		break;
	default:
		return false;
	}
	/* The IPv4 checksum must have been right as received. */
	bool v4 = bad->ip_version == 4 || (bad->err == ROCE_E_IP_VERSION && roce_ipv4_version(c->f + ip) == 4);
	if (v4 && !ipv4_csum_right(frame + ip, c->len - ip))
		return false;
	c->csum_ok = true;
	return true;
}

/* bug-runt-parsed: a RoCEv2 packet at most 8 bytes shorter than its
 * headers and ICRC, made whole: zeros where the missing header bytes would
 * be (what the broken device reads past the end), the ICRC moved after
 * them, the IP and UDP lengths grown to match. */
static bool lengthen_runt(struct copy *c)
{
	const struct roce_pkt *bad = &c->p;
	if (bad->rocev1 || !(bad->hdrs & (1u << ROCE_H_UDP)) || bad->err_expected <= bad->err_observed)
		return false;
	size_t missing = (size_t)(bad->err_expected - bad->err_observed);
	if (missing > 8 || c->len < ROCE_ICRC_LEN || c->len + missing > sizeof c->dev->fs.frame)
		return false;
	uint8_t icrc[ROCE_ICRC_LEN];
	memcpy(icrc, c->f + c->len - ROCE_ICRC_LEN, ROCE_ICRC_LEN);
	memset(c->f + c->len - ROCE_ICRC_LEN, 0, missing);
	memcpy(c->f + c->len - ROCE_ICRC_LEN + missing, icrc, ROCE_ICRC_LEN);
	c->len += missing;
	uint8_t *udp = c->f + bad->hdr_off[ROCE_H_UDP];
	roce_udp_set_len(udp, (uint16_t)(roce_udp_len(udp) + missing));
	if (bad->ip_version == 6) {
		uint8_t *ip = c->f + bad->hdr_off[ROCE_H_IPV6];
		roce_ipv6_set_paylen(ip, (uint16_t)(roce_ipv6_paylen(ip) + missing));
	} else {
		uint8_t *ip = c->f + bad->hdr_off[ROCE_H_IPV4];
		roce_ipv4_set_totlen(ip, (uint16_t)(roce_ipv4_totlen(ip) + missing));
	}
	return true;
}

/* A frame that does not parse: repaired when the profile takes it.
 * frame is the frame as received. */
static bool repair(struct copy *c, const uint8_t *frame)
{
	enum roce_code err = c->p.err;
	bool stripped = false, runt = false;
	size_t len0 = c->len; /* as received */
	if (err == ROCE_E_IPV6_NEXTHDR && c->dev->fault == SOFT_FAULT_ACCEPT_IPV6_EXTHDR) {
		if (!strip_ipv6_exthdrs(c, frame))
			return false;
		stripped = true;
	} else if (err == ROCE_E_TRUNC_XHDR && c->dev->fault == SOFT_FAULT_BUG_RUNT_PARSED) {
		if (!lengthen_runt(c))
			return false;
		runt = true;
	} else if (!repair_field(c, frame)) {
		return false;
	}
	if (roce_parse_frame(&c->p, c->f, c->len, c->len, c->pflags) != ROCE_OK)
		return false;
	c->changed = true;
	if (runt) {
		/* Right as received (over the runt as it came): made right
		 * over the lengthened copy. */
		uint32_t l3 = l3_off(&c->p);
		c->icrc_ok = roce_le32_load(frame + len0 - ROCE_ICRC_LEN) == roce_icrc(frame + l3, len0 - ROCE_ICRC_LEN - l3);
		c->csum_ok = c->p.ip_version != 4 || ipv4_csum_right(frame + l3, len0 - l3);
	} else if (stripped || err == ROCE_E_IP_VERSION) {
		/* Which bytes the ICRC covers is then ambiguous: it is not checked. */
		c->icrc_ok = true;
	} else {
		/* The same offsets as received: only a length field changed. */
		uint32_t l3 = l3_off(&c->p);
		c->icrc_ok = roce_le32_load(frame + c->p.icrc_off) == roce_icrc(frame + l3, c->p.icrc_off - l3);
	}
	return true;
}

/* ---- Frames a conforming device takes, or would take ---- */

static enum roce_transport qp_transport(const struct be_qp *qp)
{
	return soft_qp_transport(qp);
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

/* The packet's source or destination address as IP version and bytes
 * (a RoCE v1 packet's GIDs, IPv4 in the mapped form), and setting it. */
static int addr_get(const struct copy *c, bool dst, uint8_t ip[ROCE_GID_LEN])
{
	const uint8_t *l3 = c->f + l3_off(&c->p);
	memset(ip, 0, ROCE_GID_LEN);
	if (c->p.rocev1)
		return roce_gid_to_ip(dst ? roce_grh_dgid(l3) : roce_grh_sgid(l3), ip);
	if (c->p.ip_version == 6) {
		memcpy(ip, dst ? roce_ipv6_dst(l3) : roce_ipv6_src(l3), 16);
		return 6;
	}
	memcpy(ip, dst ? roce_ipv4_dst(l3) : roce_ipv4_src(l3), 4);
	return 4;
}

static void addr_set(struct copy *c, bool dst, const uint8_t *ip)
{
	uint8_t *l3 = c->f + l3_off(&c->p);
	if (c->p.rocev1)
		roce_gid_from_ip(roce_gid_is_ipv4(roce_grh_dgid(l3)) ? 4 : 6, ip,
				 dst ? roce_grh_dgid_ptr(l3) : roce_grh_sgid_ptr(l3));
	else if (c->p.ip_version == 6)
		memcpy(dst ? roce_ipv6_dst_ptr(l3) : roce_ipv6_src_ptr(l3), ip, 16);
	else
		memcpy(dst ? roce_ipv4_dst_ptr(l3) : roce_ipv4_src_ptr(l3), ip, 4);
	c->changed = true;
}

/* One of the device's addresses of this version and type. */
static bool own_addr(struct soft_dev *dev, int ipv, bool rocev1, uint8_t ip[ROCE_GID_LEN])
{
	for (unsigned i = 0; i < dev->n_gids; i++)
		if (dev->gids[i].ip_version == ipv && dev->gids[i].rocev1 == rocev1) {
			roce_gid_to_ip(dev->gids[i].gid, ip);
			return true;
		}
	return false;
}

/* cnp-before-validation: the broken notification point answers ECN CE
 * before the packet is checked (CA17-44 asks for a valid packet). */
static void cnp_before_validation(struct copy *c)
{
	const struct roce_pkt *p = &c->p;
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH), *l3 = c->f + l3_off(p);
	unsigned ecn = p->ip_version == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3);
	struct be_qp *qp = ecn == 3 ? soft_qp_lookup(c->dev, roce_bth_destqp(bth)) : NULL;
	struct soft_rx rx = { .p = p, .bth = bth, .ip_version = p->ip_version, .l3 = l3 };
	int ipv = addr_get(c, true, rx.dst_ip);
	addr_get(c, false, rx.src_ip);
	if (!qp || p->op->kind == ROCE_K_CNP || !soft_is_our_ip(c->dev, ipv, rx.dst_ip, false))
		return;
	memcpy(rx.src_mac, c->f + ROCE_ETH_SRC_OFF, 6);
	soft_cc_on_ce(qp, &rx);
}

/* flush-rx-icrc-headers-twice: a FLUSH's ICRC checked as Linux rxe
 * computes it (its opcode row has no payload offset, so the headers are
 * covered again as payload, R13): the annex's ICRC is dropped, rxe's
 * taken (made right in the copy, so nothing else is forgiven). False to
 * drop. */
static bool flush_icrc_headers_twice(struct copy *c)
{
	uint32_t twice;
	if (c->p.rocev1 || c->p.op->kind != ROCE_K_FLUSH ||
	    roce_icrc_mistaken(&c->p, ROCE_ICRC_MISTAKE_HEADERS_TWICE, &twice) != 0)
		return true;
	if (c->icrc_ok)
		return false;
	if (roce_le32_load(c->f + c->p.icrc_off) == twice)
		c->icrc_ok = c->changed = true;
	return true;
}

/* The profiles that drop what a conforming device takes, or act before
 * the device checks anything: false to drop. */
/* The wedge-* profiles' QPs that take nothing more. */
static bool qp_wedged(const struct soft_fault_state *fs, uint32_t qpn)
{
	unsigned cap = G_N_ELEMENTS(fs->wedged_qpn);
	for (unsigned i = 0; i < fs->n_wedged && i < cap; i++)
		if (fs->wedged_qpn[i] == qpn)
			return true;
	return false;
}

static void wedge_qp(struct soft_fault_state *fs, uint32_t qpn)
{
	/* The latest ones kept: the oldest QPs are forgotten first. */
	fs->wedged_qpn[fs->n_wedged++ % G_N_ELEMENTS(fs->wedged_qpn)] = qpn;
}

/* wedge-bad-icrc: a wrong ICRC stops its QP's receive path for good. */
static bool wedge_takes(struct copy *c, uint32_t destqp)
{
	if (qp_wedged(&c->dev->fs, destqp))
		return false;
	if (c->icrc_ok)
		return true;
	wedge_qp(&c->dev->fs, destqp);
	return false;
}

static bool takes(struct copy *c)
{
	const struct roce_pkt *p = &c->p;
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	struct be_qp *qp;
	switch (c->dev->fault) {
	case SOFT_FAULT_WEDGE_BAD_ICRC:
		return wedge_takes(c, roce_bth_destqp(bth));
	case SOFT_FAULT_IPV4_ONLY:
		return p->rocev1 || p->ip_version != 6;
	case SOFT_FAULT_HONOUR_BECN:
		return !roce_bth_fecn(bth) && !roce_bth_becn(bth);
	case SOFT_FAULT_IGNORE_CNP:
		return p->op->kind != ROCE_K_CNP;
	case SOFT_FAULT_UD_DROP_V1:
		qp = soft_qp_lookup(c->dev, roce_bth_destqp(bth));
		return !(p->rocev1 && qp && qp->type == BE_QPT_UD);
	case SOFT_FAULT_CNP_BEFORE_VALIDATION:
		if (!p->rocev1)
			cnp_before_validation(c);
		return true;
	case SOFT_FAULT_FLUSH_RX_ICRC_HEADERS_TWICE:
		return flush_icrc_headers_twice(c);
	default:
		return true;
	}
}

/* accept-ip-options: the copy without its IPv4 options. */
static void strip_ipv4_options(struct copy *c)
{
	uint32_t ip = c->p.hdr_off[ROCE_H_IPV4];
	unsigned hl = roce_ipv4_ihl(c->f + ip) * 4u;
	if (hl <= ROCE_IPV4_LEN)
		return;
	unsigned opts = hl - ROCE_IPV4_LEN;
	memmove(c->f + ip + ROCE_IPV4_LEN, c->f + ip + hl, c->len - ip - hl);
	c->len -= opts;
	roce_ipv4_set_ihl(c->f + ip, ROCE_IPV4_LEN / 4);
	roce_ipv4_set_totlen(c->f + ip, roce_ipv4_totlen(c->f + ip) - opts);
	c->changed = true;
}

/* The profiles that take what a conforming device drops: the field they
 * forgive is made right in the copy. */
static void forgive(struct copy *c)
{
	struct soft_dev *dev = c->dev;
	const struct roce_pkt *p = &c->p;
	uint8_t *ip4 = p->ip_version == 4 && !p->rocev1 ? c->f + p->hdr_off[ROCE_H_IPV4] : NULL;
	uint8_t *bth = c->f + p->hdr_off[ROCE_H_BTH];
	uint32_t destqp = roce_bth_destqp(bth);
	struct be_qp *qp = soft_qp_lookup(dev, destqp);
	bool connected = qp && qp->type != BE_QPT_UD && qp->attr.state != BE_QPS_INIT;
	uint8_t ip[ROCE_GID_LEN], want[ROCE_GID_LEN];
	switch (dev->fault) {
	case SOFT_FAULT_ACCEPT_BAD_ICRC:
		c->icrc_ok = c->changed = true;
		return;
	case SOFT_FAULT_ACCEPT_BAD_IPV4_CSUM:
		if (ip4)
			c->csum_ok = c->changed = true;
		return;
	case SOFT_FAULT_ACCEPT_NO_DF:
		if (ip4 && (!roce_ipv4_df(ip4) || roce_ipv4_rf(ip4))) {
			roce_ipv4_set_df(ip4, 1);
			roce_ipv4_set_rf(ip4, 0);
			c->changed = true;
		}
		return;
	case SOFT_FAULT_ACCEPT_IP_OPTIONS:
		if (ip4)
			strip_ipv4_options(c);
		return;
	case SOFT_FAULT_IGNORE_TVER:
		if (roce_bth_tver(bth)) {
			roce_bth_set_tver(bth, 0);
			c->changed = true;
		}
		return;
	case SOFT_FAULT_IGNORE_PKEY:
		if (roce_bth_pkey(bth) != 0xFFFF) {
			roce_bth_set_pkey(bth, 0xFFFF); /* the default P_Key, the only one in the table */
			c->changed = true;
		}
		return;
	case SOFT_FAULT_ACCEPT_QP0:
	case SOFT_FAULT_ACCEPT_UNKNOWN_QP:
		/* Delivered to the lowest-numbered QP (the multicast QPN is
		 * not an unknown QP: its datagrams stay the groups'). */
		if (dev->fault == SOFT_FAULT_ACCEPT_QP0 ? destqp == 0
							: destqp != 0 && destqp != ROCE_QP1 && destqp != ROCE_MCAST_QPN && !qp) {
			qp = lowest_qp(dev);
			if (qp) {
				roce_bth_set_destqp(bth, qp->qpn);
				c->changed = true;
			}
		}
		return;
	case SOFT_FAULT_IGNORE_QP_TYPE:
		/* The same operation of the QP's transport, when it carries the
		 * same headers. */
		if (qp && p->op->transport != qp_transport(qp)) {
			uint8_t as_ours = roce_opcode_with_transport(p->opcode, qp_transport(qp));
			const struct roce_opcode_info *o = roce_opcode(as_ours);
			if (o->name && o->xhdrs == p->op->xhdrs) {
				roce_bth_set_opcode(bth, as_ours);
				c->changed = true;
			}
		}
		return;
	case SOFT_FAULT_DMALEN_31BIT:
		/* The DMA Length read as 31 bits: 2^31 + 1 becomes 1. */
		if (roce_pkt_has(p, ROCE_H_RETH)) {
			uint8_t *reth = c->f + p->hdr_off[ROCE_H_RETH];
			if (roce_reth_dmalen(reth) & 0x80000000u) {
				roce_reth_set_dmalen(reth, roce_reth_dmalen(reth) & 0x7FFFFFFFu);
				c->changed = true;
			}
		}
		return;
	case SOFT_FAULT_IGNORE_QKEY: {
		uint8_t *deth = roce_pkt_has(p, ROCE_H_DETH) ? c->f + p->hdr_off[ROCE_H_DETH] : NULL;
		bool keyed = destqp == ROCE_QP1 || (qp && qp->type == BE_QPT_UD);
		uint32_t qkey = destqp == ROCE_QP1 ? ROCE_GSI_QKEY : keyed ? qp->attr.qkey : 0;
		if (deth && keyed && roce_deth_qkey(deth) != qkey) {
			roce_deth_set_qkey(deth, qkey);
			c->changed = true;
		}
		return;
	}
	case SOFT_FAULT_IGNORE_ADDR:
		/* An RC/UC packet from another address than the QP's peer (to
		 * another of the device's addresses than the QP's). */
		if (connected && addr_get(c, false, ip) == qp->ep.ip_version) {
			if (memcmp(ip, qp->ep.dst_ip, ROCE_GID_LEN))
				addr_set(c, false, qp->ep.dst_ip);
			if (addr_get(c, true, ip) == qp->ep.ip_version && soft_is_our_ip(dev, qp->ep.ip_version, ip, p->rocev1) &&
			    memcmp(ip, qp->ep.src_ip, ROCE_GID_LEN))
				addr_set(c, true, qp->ep.src_ip);
		}
		return;
	case SOFT_FAULT_ACCEPT_FOREIGN_DST: {
		/* A destination that is none of the device's addresses: the
		 * QP's own, or one of the device's. A multicast group is no
		 * foreign destination: its datagrams stay the group's. */
		int ipv = addr_get(c, true, ip);
		if (soft_is_our_ip(dev, ipv, ip, p->rocev1) || roce_ip_is_multicast(ipv, ip))
			return;
		if (connected && ipv == qp->ep.ip_version)
			addr_set(c, true, qp->ep.src_ip);
		else if (own_addr(dev, ipv, p->rocev1, want))
			addr_set(c, true, want);
		return;
	}
	default:
		return;
	}
}

/* The copy's IPv4 checksum and ICRC after a rewrite: right where they
 * were right as received. */
static void reseal(struct copy *c)
{
	if (roce_parse_frame(&c->p, c->f, c->len, c->len, c->pflags) != ROCE_OK || !c->p.complete)
		return;
	uint32_t l3 = l3_off(&c->p);
	if (c->p.ip_version == 4 && !c->p.rocev1 && c->csum_ok)
		roce_ipv4_set_csum(c->f + l3, roce_ipv4_checksum(c->f + l3, roce_ipv4_ihl(c->f + l3) * 4u));
	if (c->icrc_ok) {
		uint32_t icrc = c->p.rocev1 ? roce_icrc_v1(c->f + l3, c->p.icrc_off - l3)
					    : roce_icrc(c->f + l3, c->p.icrc_off - l3);
		roce_le32_store(c->f + c->p.icrc_off, icrc);
	}
}

/* ---- Packets that stopped Linux rxe (the bug-*-halt profiles) ----
 * rxe crashed on them; here the device stops instead (it takes and sends
 * nothing more, dev.c), so that a peer sees what it saw then: no answer to
 * that packet or to any after it. bug-undefined-opcode-crash ends the
 * process instead, as the host went down with rxe. */
static bool halts_receive(struct soft_dev *dev, const uint8_t *frame, size_t len)
{
	if (dev->fs.halted)
		return true;
	struct roce_pkt p;
	enum roce_code err = roce_parse_frame(&p, frame, len, len, dev->opts.rocev1 ? ROCE_PARSE_ROCEV1 : 0);
	switch (dev->fault) {
	case SOFT_FAULT_BUG_UNDEFINED_OPCODE_HALT:
		dev->fs.halted = err == ROCE_E_OPCODE_UNDEFINED || err == ROCE_E_OPCODE_VENDOR;
		break;
	case SOFT_FAULT_BUG_UNDEFINED_OPCODE_CRASH:
		if (err == ROCE_E_OPCODE_UNDEFINED || err == ROCE_E_OPCODE_VENDOR) {
			/* The host goes down with the device: nothing is
			 * flushed or closed, the tester's connection drops. */
			fprintf(stderr, "roce-agent: bug-undefined-opcode-crash: opcode 0x%02x received, the process ends\n",
				p.opcode);
			_exit(EXIT_FAILURE);
		}
		break;
	case SOFT_FAULT_BUG_PAD_OVERRUN_HALT:
		/* Headers, pad and ICRC longer than the packet: rxe's
		 * payload_size() went below zero. */
		dev->fs.halted = err == ROCE_E_PADCNT || err == ROCE_E_TRUNC_XHDR;
		break;
	default:
		break;
	}
	return dev->fs.halted;
}

/* wedge-reserved-opcode: an opcode RoCEv2 does not define stops its
 * destination QP (the BTH is parsed whatever the opcode); true to drop. */
static bool wedged_by_opcode(struct soft_dev *dev, const uint8_t *frame, size_t len)
{
	if (dev->fault != SOFT_FAULT_WEDGE_RESERVED_OPCODE)
		return false;
	struct roce_pkt p;
	enum roce_code err = roce_parse_frame(&p, frame, len, len, dev->opts.rocev1 ? ROCE_PARSE_ROCEV1 : 0);
	const uint8_t *bth = roce_pkt_hdr(&p, ROCE_H_BTH);
	if (!bth)
		return false;
	uint32_t qpn = roce_bth_destqp(bth);
	if (err == ROCE_E_OPCODE_UNDEFINED || err == ROCE_E_OPCODE_VENDOR)
		wedge_qp(&dev->fs, qpn);
	return qp_wedged(&dev->fs, qpn);
}

bool soft_fault_rx(struct soft_dev *dev, const uint8_t **frame, size_t *len)
{
	if (dev->fs.halted) /* stopped by a bug-*-halt profile, whatever its hook */
		return false;
	if (soft_fault_info(dev->fault)->hook != SOFT_HOOK_RX || *len > sizeof dev->fs.frame)
		return true;
	if (halts_receive(dev, *frame, *len) || wedged_by_opcode(dev, *frame, *len))
		return false;
	struct copy c = { .dev = dev, .f = dev->fs.frame, .len = *len,
			  .pflags = dev->opts.rocev1 ? ROCE_PARSE_ROCEV1 : 0 };
	memcpy(c.f, *frame, *len);
	if (roce_parse_frame(&c.p, c.f, c.len, c.len, c.pflags) != ROCE_OK) {
		if (!repair(&c, *frame))
			return true; /* the device drops it itself */
	} else {
		c.icrc_ok = roce_icrc_check(&c.p, NULL, NULL) == ROCE_ICRC_GOOD;
		c.csum_ok = c.p.ip_version != 4 || c.p.rocev1 ||
			    ipv4_csum_right(c.f + c.p.hdr_off[ROCE_H_IPV4], c.len - c.p.hdr_off[ROCE_H_IPV4]);
	}
	if (!c.p.complete || !c.p.op)
		return true;
	if (!takes(&c))
		return false;
	forgive(&c);
	if (!c.changed)
		return true;
	reseal(&c);
	*frame = c.f;
	*len = c.len;
	return true;
}
