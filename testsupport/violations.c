/*
 * One packet per finding code: a conforming sample, mutated to break exactly
 * the rule the code names. The unit tests check that each raises its code;
 * the capture generator writes them to captures/violations.pcap.
 */
#include <string.h>

#include "samples.h"


/* A mutation that sets one field (and, for computed fields, freezes it). */
#define SET(name, field, value)                                   \
	static void name(struct roce_desc *d)                     \
	{                                                         \
		roce_desc_set(d, ROCE_F_##field, (uint64_t)(value)); \
	}

SET(set_ipv4_version_6, IPV4_version, 6)
SET(set_ihl_4, IPV4_ihl, 4)
SET(set_totlen_24, IPV4_totlen, 24)
SET(set_totlen_2000, IPV4_totlen, 2000)
SET(set_mf, IPV4_mf, 1)
SET(set_fragoff, IPV4_fragoff, 8)
SET(set_proto_tcp, IPV4_proto, 6)
SET(set_paylen_4, IPV6_paylen, 4)
SET(set_paylen_2000, IPV6_paylen, 2000)
SET(set_udp_len_20, UDP_len, 20)
SET(set_dport_4792, UDP_dport, 4792)
SET(set_opcode_reserved, BTH_opcode, 0x1A) /* a reserved RC opcode: in no table */
SET(set_opcode_vendor, BTH_opcode, 0xE0)
SET(set_padcnt_3, BTH_padcnt, 3)
SET(set_rf, IPV4_rf, 1)
SET(set_df_0, IPV4_df, 0)
SET(set_csum_wrong, IPV4_csum, 0x1234)
SET(set_ecn_ce_v4, IPV4_ecn, 3)
SET(set_ecn_ce_v6, IPV6_ecn, 3)
SET(set_udp_csum, UDP_csum, 0xBEEF)
SET(set_tver_1, BTH_tver, 1)
SET(set_resv6, BTH_resv6, 1)
SET(set_resv7, BTH_resv7, 1)
SET(set_destqp_0, BTH_destqp, 0)
SET(set_destqp_mcast, BTH_destqp, 0xFFFFFF)
SET(set_se, BTH_se, 1)
SET(set_rdeth_resv, RDETH_resv, 1)
SET(set_deth_resv, DETH_resv, 1)
SET(set_xrceth_resv, XRCETH_resv, 1)
SET(set_feth_resv, FETH_resv, 1)
SET(set_syndrome_resv, AETH_syndrome, 0x80 | roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED))
SET(set_syndrome_type10, AETH_syndrome, roce_syndrome(ROCE_SYN_RESERVED, 0))
SET(set_syndrome_nak65, AETH_syndrome, roce_syndrome(ROCE_SYN_NAK, 5))
SET(set_syndrome_rdnak, AETH_syndrome, roce_syndrome_nak(ROCE_NAK_INVALID_RD_REQUEST))
SET(set_syndrome_seqnak, AETH_syndrome, roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR))
SET(set_dmalen_big, RETH_dmalen, 0x80000001u)
SET(set_dmalen_0, RETH_dmalen, 0)
SET(set_atomic_va_odd, ATOMICETH_va, 0x00007F0000002004ull)
SET(set_psn_5, BTH_psn, 5)
SET(set_m, BTH_m, 1)
SET(set_ackreq, BTH_ackreq, 1)

static void ethertype_rocev1(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_ETHERTYPE;
	d->ethertype = ROCE_ETHERTYPE_ROCEV1;
}

/* RoCE v1 frames that break the GRH's rules (A16). */
static void v1_ipver_4(struct roce_desc *d)
{
	sample_to_rocev1(d);
	roce_desc_set(d, ROCE_F_GRH_ipver, 4);
}

static void v1_nxthdr_udp(struct roce_desc *d)
{
	sample_to_rocev1(d);
	roce_desc_set(d, ROCE_F_GRH_nxthdr, 17);
}

static void v1_paylen_2000(struct roce_desc *d)
{
	sample_to_rocev1(d);
	roce_desc_set(d, ROCE_F_GRH_paylen, 2000);
}

static void v1_wrong_icrc(struct roce_desc *d)
{
	sample_to_rocev1(d);
	d->ovr |= ROCE_OVR_ICRC;
	d->icrc = 0x12345678;
}

static void ethertype_arp(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_ETHERTYPE;
	d->ethertype = 0x0806;
}

static void one_vlan(struct roce_desc *d)
{
	d->n_vlan = 1;
	d->vlan_tpid[0] = ROCE_ETHERTYPE_VLAN;
	d->vlan_tci[0] = 0x6064; /* PCP 3, VID 100 */
}

static void two_vlans(struct roce_desc *d)
{
	one_vlan(d);
	d->n_vlan = 2;
	d->vlan_tpid[0] = ROCE_ETHERTYPE_QINQ;
	d->vlan_tpid[1] = ROCE_ETHERTYPE_VLAN;
	d->vlan_tci[1] = 0x6064;
}

/* A hop-by-hop options header (PadN) in front of UDP. */
static void ipv6_hop_by_hop(struct roce_desc *d)
{
	static const uint8_t hbh[8] = { 17, 0, 1, 4, 0, 0, 0, 0 };
	memcpy(d->ip_opts, hbh, sizeof hbh);
	d->ip_opts_len = sizeof hbh;
	roce_desc_set(d, ROCE_F_IPV6_nexthdr, 0);
}

/* Three no-ops and an end-of-options: IHL 6. */
static void ipv4_options(struct roce_desc *d)
{
	static const uint8_t opts[4] = { 1, 1, 1, 0 };
	memcpy(d->ip_opts, opts, sizeof opts);
	d->ip_opts_len = sizeof opts;
}

static void no_xhdrs(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_XHDRS;
	d->xhdrs = 0;
}

static void pad_1(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_PAD_LEN;
	d->pad_len = 1;
}

static void pad_3(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_PAD_LEN;
	d->pad_len = 3;
}

static void wrong_icrc(struct roce_desc *d)
{
	d->ovr |= ROCE_OVR_ICRC;
	d->icrc = 0x12345678;
}

static void cnp_resv(struct roce_desc *d)
{
	roce_desc_hdr(d, ROCE_H_CNPPAD)[0] = 1;
}

static void cut_capture_at_40(uint8_t *f, size_t *len, size_t *wirelen)
{
	(void)f;
	(void)wirelen;
	*len = 40;
}

static void truncate_to_10(uint8_t *f, size_t *len, size_t *wirelen)
{
	(void)f;
	*len = *wirelen = 10;
}

static void truncate_to_16(uint8_t *f, size_t *len, size_t *wirelen)
{
	(void)f;
	*len = *wirelen = 16;
}

static void truncate_to_30(uint8_t *f, size_t *len, size_t *wirelen)
{
	(void)f;
	*len = *wirelen = 30;
}

static void truncate_to_24(uint8_t *f, size_t *len, size_t *wirelen)
{
	(void)f;
	*len = *wirelen = 24;
}

/* Inserts a third VLAN tag after the MAC addresses. */
static void third_vlan(uint8_t *f, size_t *len, size_t *wirelen)
{
	*len = roce_frame_push_vlan(f, *len, SAMPLE_FRAME_MAX, ROCE_ETHERTYPE_VLAN, roce_vlan_tci(0, 3));
	*wirelen = *len;
}

/* Shortens the UDP payload to 8 bytes, keeping the IP and UDP lengths and
 * the IPv4 checksum consistent, so that only the transport is too short. */
static void udp_payload_8(uint8_t *f, size_t *len, size_t *wirelen)
{
	struct roce_pkt p;
	roce_parse_frame(&p, f, *len, *len, 0);
	uint8_t *ip = f + p.hdr_off[ROCE_H_IPV4];
	uint8_t *udp = f + p.hdr_off[ROCE_H_UDP];
	roce_udp_set_len(udp, ROCE_UDP_LEN + 8);
	roce_ipv4_set_totlen(ip, p.ip_hdr_len + ROCE_UDP_LEN + 8);
	roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, p.ip_hdr_len));
	*len = *wirelen = p.hdr_off[ROCE_H_UDP] + ROCE_UDP_LEN + 8;
}

/* UD multicast (notes §7.1): a datagram to the group 239.255.18.1 or
 * ff15::db8:1, framed to its mapped MAC, to DestQP 0xFFFFFF; each
 * violation below then breaks one of those. */
static void to_group(struct roce_desc *d)
{
	static const uint8_t group4[4] = { 239, 255, 18, 1 };
	static const uint8_t group6[16] = { 0xff, 0x15, [12] = 0x0d, [13] = 0xb8, [15] = 1 };
	const uint8_t *group = d->ip_version == 4 ? group4 : group6;
	memcpy(d->ip_version == 4 ? roce_ipv4_dst_ptr(d->ip) : roce_ipv6_dst_ptr(d->ip), group,
	       d->ip_version == 4 ? 4 : 16);
	roce_mcast_mac(d->ip_version, group, d->eth_dst);
	roce_desc_set(d, ROCE_F_BTH_destqp, ROCE_MCAST_QPN);
}

static void group_unicast_mac(struct roce_desc *d)
{
	to_group(d);
	static const uint8_t unicast[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
	memcpy(d->eth_dst, unicast, 6);
}

/* 33:33 and the wrong low 32 bits (those of ff15::db8:2). */
static void group_other_mac(struct roce_desc *d)
{
	to_group(d);
	d->eth_dst[5] = 2;
}

static void group_unicast_qp(struct roce_desc *d)
{
	to_group(d);
	roce_desc_set(d, ROCE_F_BTH_destqp, 0x000123);
}

/* A CM MAD to QP1: UD SEND Only with the GSI Q_Key from QP1. */
static void to_qp1(struct roce_desc *d)
{
	roce_desc_set(d, ROCE_F_BTH_destqp, ROCE_QP1);
	roce_desc_set(d, ROCE_F_DETH_qkey, ROCE_GSI_QKEY);
	roce_desc_set(d, ROCE_F_DETH_srcqp, ROCE_QP1);
}

static uint8_t *cm_mad(uint8_t *m, uint16_t attr)
{
	return roce_cm_mad_init(m, attr, 0x0000000300000001ull);
}

/* A REJ of a REQ for a port LID: reason 13 (A17.7 forbids it on RoCE). */
static void rej_lid(uint8_t *m, size_t len)
{
	(void)len;
	uint8_t *x = cm_mad(m, ROCE_CM_REJ);
	roce_rej_set_local_comm_id(x, 0x5566778b);
	roce_rej_set_remote_comm_id(x, 0x1122334b);
	roce_rej_set_message_rejected(x, ROCE_CM_REF_REQ);
	roce_rej_set_reason(x, ROCE_CM_REJ_INVALID_LID);
}

/* An APR refusing a LAP's alternate remote port LID: status 7. */
static void apr_lid(uint8_t *m, size_t len)
{
	(void)len;
	uint8_t *x = cm_mad(m, ROCE_CM_APR);
	roce_apr_set_local_comm_id(x, 0x5566778c);
	roce_apr_set_remote_comm_id(x, 0x1122334c);
	roce_apr_set_status(x, ROCE_CM_APR_INVALID_LID);
}

#define V(code, what, op, ipv, plen, pmtu, cflags, pflags, md, mf) \
	{ ROCE_##code, what, op, ipv, plen, pmtu, cflags, pflags, md, mf, NULL }
/* A CM MAD (mp writes it) over IPv4. */
#define VMAD(code, what, mp) \
	{ ROCE_##code, what, ROCE_OP_UD_SEND_ONLY, 4, ROCE_MAD_LEN, 0, 0, 0, to_qp1, NULL, mp }

const struct sample_violation sample_violations[] = {
	/* Parse errors */
	V(E_CAPTURE_CUT, "capture cut inside the UDP header", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, NULL, cut_capture_at_40),
	V(E_TRUNC_ETH, "frame of 10 bytes", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, NULL, truncate_to_10),
	V(E_TRUNC_VLAN, "frame ends inside a VLAN tag", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, one_vlan, truncate_to_16),
	V(E_VLAN_DEPTH, "three VLAN tags", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, two_vlans, third_vlan),
	V(E_ROCEV1, "Ethertype 0x8915 (RoCE v1)", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, ethertype_rocev1, NULL),
	V(E_ETHERTYPE, "Ethertype 0x0806", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, ethertype_arp, NULL),
	V(E_TRUNC_IP, "frame ends inside the IPv4 header", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, NULL, truncate_to_24),
	V(E_IP_VERSION, "IPv4 Ethertype, IP version 6", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_ipv4_version_6, NULL),
	V(E_IPV4_IHL, "IPv4 IHL 4", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_ihl_4, NULL),
	V(E_IPV4_TOTLEN_SHORT, "IPv4 Total Length 24", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_totlen_24, NULL),
	V(E_IPV4_TOTLEN_LONG, "IPv4 Total Length 2000", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_totlen_2000, NULL),
	V(E_IPV4_MF, "IPv4 More Fragments", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_mf, NULL),
	V(E_IPV4_FRAGOFF, "IPv4 fragment offset 8", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_fragoff, NULL),
	V(E_IPV4_PROTO, "IPv4 Protocol 6", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_proto_tcp, NULL),
	V(E_IPV6_PAYLEN_SHORT, "IPv6 Payload Length 4", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, 0, set_paylen_4, NULL),
	V(E_IPV6_PAYLEN_LONG, "IPv6 Payload Length 2000", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, 0, set_paylen_2000, NULL),
	V(E_IPV6_NEXTHDR, "IPv6 hop-by-hop header", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, 0, ipv6_hop_by_hop, NULL),
	V(E_UDP_LEN, "UDP Length 20", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_udp_len_20, NULL),
	V(E_UDP_DPORT, "UDP port 4792", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_dport_4792, NULL),
	V(E_TRUNC_BTH, "UDP payload of 8 bytes", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, NULL, udp_payload_8),
	V(E_OPCODE_UNDEFINED, "opcode 0x1A", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_opcode_reserved, NULL),
	V(E_OPCODE_VENDOR, "opcode 0xE0", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_opcode_vendor, NULL),
	V(E_TRUNC_XHDR, "RDMA WRITE Only without RETH", ROCE_OP_RC_WRITE_ONLY, 4, 0, 0, 0, 0, no_xhdrs, NULL),
	V(E_PADCNT, "ACK with pad count 3", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, set_padcnt_3, NULL),

	/* Check findings */
	V(C_IPV4_IHL, "IPv4 options (IHL 6)", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, ipv4_options, NULL),
	V(C_IPV4_RF, "IPv4 reserved flag", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_rf, NULL),
	V(C_IPV4_DF, "IPv4 DF clear", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_df_0, NULL),
	V(C_IPV4_CSUM, "IPv4 checksum wrong", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_csum_wrong, NULL),
	V(C_ECN_CE, "ECN CE as sent", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, ROCE_CHK_SENDER, 0, set_ecn_ce_v4, NULL),
	V(C_ECN_CE, "IPv6 ECN CE as sent", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, ROCE_CHK_SENDER, 0, set_ecn_ce_v6, NULL),
	V(C_UDP_DPORT, "UDP port 4792 decoded as RoCEv2", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, ROCE_PARSE_ANY_PORT, set_dport_4792, NULL),
	V(C_UDP_CSUM, "UDP checksum not zero", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, 0, set_udp_csum, NULL),
	V(C_BTH_TVER, "TVer 1", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_tver_1, NULL),
	V(C_BTH_RESV6, "BTH byte 4 reserved bits", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_resv6, NULL),
	V(C_BTH_RESV7, "BTH byte 8 reserved bits", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_resv7, NULL),
	V(C_DESTQP_ZERO, "DestQP 0", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_destqp_0, NULL),
	V(C_DESTQP_MCAST, "RC to the multicast QPN", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, set_destqp_mcast, NULL),
	V(C_BTH_SE, "SE on RDMA WRITE Only", ROCE_OP_RC_WRITE_ONLY, 4, 16, 0, 0, 0, set_se, NULL),
	V(C_PAD_ALIGN, "5 bytes plus 1 pad byte", ROCE_OP_RC_SEND_ONLY, 4, 5, 0, 0, 0, pad_1, NULL),
	V(C_PAD_NOT_LAST, "pad on SEND First", ROCE_OP_RC_SEND_FIRST, 4, 253, 0, 0, 0, pad_3, NULL),
	V(C_PAD_NO_PAYLOAD, "pad on an ACK", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, pad_1, NULL),
	V(C_PAYLOAD_UNEXPECTED, "payload on a READ request", ROCE_OP_RC_READ_REQUEST, 4, 4, 0, 0, 0, NULL, NULL),
	V(C_XRC_RESP_XRCETH, "XRC ACK with an XRCETH after its BTH", ROCE_OP_XRC_ACK, 4, 4, 0, 0, 0, NULL, NULL),
	V(C_PAYLOAD_FIXED, "ATOMIC WRITE of 4 bytes", ROCE_OP_RC_ATOMIC_WRITE, 4, 4, 0, 0, 0, NULL, NULL),
	V(C_PAYLOAD_NOT_PMTU, "SEND First of 512 bytes at PMTU 1024", ROCE_OP_RC_SEND_FIRST, 4, 512, 1024, 0, 0, NULL, NULL),
	V(C_PAYLOAD_BAD_MTU, "SEND First of 300 bytes", ROCE_OP_RC_SEND_FIRST, 4, 300, 0, 0, 0, NULL, NULL),
	V(C_PAYLOAD_OVER_PMTU, "SEND Only of 2048 bytes at PMTU 1024", ROCE_OP_RC_SEND_ONLY, 4, 2048, 1024, 0, 0, NULL, NULL),
	V(C_LAST_EMPTY, "empty SEND Last", ROCE_OP_RC_SEND_LAST, 4, 0, 0, 0, 0, NULL, NULL),
	V(C_UD_OVER_PMTU, "UD SEND of 1100 bytes at PMTU 1024", ROCE_OP_UD_SEND_ONLY, 4, 1100, 1024, 0, 0, NULL, NULL),
	/* An RD Acknowledge: too short to read as NVIDIA DC, so the RD range's
	 * default (auto: DC where an RD packet looks like DC) keeps it RD. */
	V(C_RDETH_RESV, "RDETH reserved byte (RD Acknowledge)", ROCE_OP_RD_ACK, 4, 0, 0, 0, 0, set_rdeth_resv, NULL),
	V(C_DETH_RESV, "DETH reserved byte", ROCE_OP_UD_SEND_ONLY, 4, 16, 0, 0, 0, set_deth_resv, NULL),
	V(C_XRCETH_RESV, "XRCETH reserved byte", ROCE_OP_XRC_SEND_ONLY, 4, 16, 0, 0, 0, set_xrceth_resv, NULL),
	V(C_FETH_RESV, "FETH reserved bits", ROCE_OP_RC_FLUSH, 4, 0, 0, 0, 0, set_feth_resv, NULL),
	V(C_AETH_RESV, "AETH syndrome 0x9F", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, set_syndrome_resv, NULL),
	V(C_AETH_TYPE, "AETH syndrome 0x40", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, set_syndrome_type10, NULL),
	V(C_AETH_NAK_CODE, "AETH syndrome 0x65", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, set_syndrome_nak65, NULL),
	V(C_AETH_RD_NAK, "RC NAK Invalid RD Request", ROCE_OP_RC_ACK, 4, 0, 0, 0, 0, set_syndrome_rdnak, NULL),
	V(C_AETH_NOT_ACK, "READ Response Only with a NAK", ROCE_OP_RC_READ_RESPONSE_ONLY, 4, 16, 0, 0, 0, set_syndrome_seqnak, NULL),
	V(C_DMALEN, "READ of 2^31 + 1 bytes", ROCE_OP_RC_READ_REQUEST, 4, 0, 0, 0, 0, set_dmalen_big, NULL),
	V(C_ATOMIC_ALIGN, "CmpSwap at an unaligned VA", ROCE_OP_RC_CMP_SWAP, 4, 0, 0, 0, 0, set_atomic_va_odd, NULL),
	V(C_CNP_PSN, "CNP with PSN 5", ROCE_OP_CNP, 4, 0, 0, 0, 0, set_psn_5, NULL),
	V(C_CNP_SE, "CNP with SE", ROCE_OP_CNP, 4, 0, 0, 0, 0, set_se, NULL),
	V(C_CNP_M, "CNP with MigReq", ROCE_OP_CNP, 4, 0, 0, 0, 0, set_m, NULL),
	V(C_CNP_ACKREQ, "CNP with AckReq", ROCE_OP_CNP, 4, 0, 0, 0, 0, set_ackreq, NULL),
	V(C_CNP_RESV, "CNP reserved bytes not zero", ROCE_OP_CNP, 4, 0, 0, 0, 0, cnp_resv, NULL),
	V(C_ICRC, "ICRC wrong", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, ROCE_CHK_ICRC, 0, wrong_icrc, NULL),
	V(C_ICRC, "IPv6 ICRC wrong", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, ROCE_CHK_ICRC, 0, wrong_icrc, NULL),
	V(C_MCAST_MAC4, "UD SEND to 239.255.18.1 framed to a unicast MAC", ROCE_OP_UD_SEND_ONLY, 4, 16, 0, 0, 0, group_unicast_mac, NULL),
	V(C_MCAST_MAC6, "UD SEND to ff15::db8:1 framed to the MAC of ff15::db8:2", ROCE_OP_UD_SEND_ONLY, 6, 16, 0, 0, 0, group_other_mac, NULL),
	V(C_MCAST_OPCODE, "RC SEND Only to the group 239.255.18.1", ROCE_OP_RC_SEND_ONLY, 4, 16, 0, 0, 0, group_unicast_qp, NULL),
	V(C_MCAST_QP, "UD SEND to ff15::db8:1 with DestQP 0x000123", ROCE_OP_UD_SEND_ONLY, 6, 16, 0, 0, 0, group_unicast_qp, NULL),
	V(C_MCAST_UNICAST, "UD SEND to DestQP 0xFFFFFF at a unicast address", ROCE_OP_UD_SEND_ONLY, 4, 16, 0, 0, 0, set_destqp_mcast, NULL),
	VMAD(C_CM_REJ_LID, "CM REJ with reason 13 (primary remote port LID rejected)", rej_lid),
	VMAD(C_CM_APR_LID, "CM APR with status 7 (alternate remote port LID rejected)", apr_lid),

	/* RoCE v1 (parsed for dual-mode ports only) */
	V(E_TRUNC_GRH, "RoCE v1 frame ending inside the GRH", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, ROCE_PARSE_ROCEV1, sample_to_rocev1, truncate_to_30),
	V(E_GRH_IPVER, "RoCE v1 GRH IPVer 4", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, ROCE_PARSE_ROCEV1, v1_ipver_4, NULL),
	V(E_GRH_NXTHDR, "RoCE v1 GRH Next Header 17", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, ROCE_PARSE_ROCEV1, v1_nxthdr_udp, NULL),
	V(E_GRH_PAYLEN_LONG, "RoCE v1 GRH Payload Length 2000", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, 0, ROCE_PARSE_ROCEV1, v1_paylen_2000, NULL),
	V(C_ICRC_V1, "RoCE v1 ICRC wrong", ROCE_OP_RC_SEND_ONLY, 6, 16, 0, ROCE_CHK_ICRC, ROCE_PARSE_ROCEV1, v1_wrong_icrc, NULL),

	/* The placement requests' own lengths (Annex A19), last so that the
	 * frames above keep their numbers */
	V(C_FLUSH_PAYLOAD, "FLUSH with 4 bytes of payload", ROCE_OP_RC_FLUSH, 4, 4, 0, 0, 0, NULL, NULL),
	V(C_ATOMIC_WRITE_DMALEN, "ATOMIC WRITE with RETH DMA Length 0", ROCE_OP_RC_ATOMIC_WRITE, 4, 8, 0, 0, 0, set_dmalen_0, NULL),

	/* An XRC READ response First the path MTU plus an XRCETH long
	 * (A14-XRC-RESP, not a length deviation), last for the same reason */
	V(C_XRC_READ_RESP_XRCETH, "XRC READ Response First of 1028 bytes at PMTU 1024 (an XRCETH after its BTH)",
	  ROCE_OP_XRC_READ_RESPONSE_FIRST, 4, 1028, 1024, 0, 0, NULL, NULL),
};

const size_t sample_violation_count = sizeof sample_violations / sizeof sample_violations[0];

size_t sample_violation_frame(const struct sample_violation *v, uint8_t *out, size_t *wirelen)
{
	uint8_t payload[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, v->payload_len);
	if (v->mutate_payload)
		v->mutate_payload(payload, v->payload_len);
	struct roce_desc d;
	sample_desc(&d, v->opcode, v->ip_version, payload, v->payload_len);
	if (v->mutate_desc)
		v->mutate_desc(&d);
	/* Room for the frame mutations to grow it. */
	long n = roce_build_frame(&d, out, SAMPLE_FRAME_MAX - 16);
	if (n <= 0)
		return 0;
	size_t len = (size_t)n;
	*wirelen = len;
	if (v->mutate_frame)
		v->mutate_frame(out, &len, wirelen);
	return len;
}
