/*
 * The fault profiles' transmit rewrite (hook TX in fault.def): what the
 * broken device changes in, or withholds from, a packet the conforming
 * code built. The IP, UDP and ICRC faults act on RoCEv2 packets (RoCE v1
 * has a GRH instead); the transport ones on both.
 */
#include "soft.h"
#include "roce/mcast.h"

#include <string.h>

static uint8_t *ip_hdr(struct roce_desc *d)
{
	return roce_desc_hdr(d, d->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4);
}

static void set_ecn(struct roce_desc *d, unsigned ecn)
{
	if (d->ip_version == 6)
		roce_ipv6_set_ecn(d->ip, ecn);
	else
		roce_ipv4_set_ecn(d->ip, ecn);
}

/* The ICRC an implementation making mistake m writes for this RoCE v1
 * packet; false when it does not differ. */
static bool v1_mistaken_icrc(struct roce_desc *d, enum roce_icrc_mistake m, uint32_t *v)
{
	uint8_t tmp[9216];
	long n = roce_build_frame(d, tmp, sizeof tmp);
	struct roce_pkt p;
	return n > 0 && roce_parse_frame(&p, tmp, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1) == ROCE_OK &&
	       roce_icrc_mistaken(&p, m, v) == 0;
}

#define XBIT(h) ROCE_XHDR_BIT(ROCE_H_##h)

/* A packet's AETH in d, or NULL. */
static uint8_t *aeth_of(struct roce_desc *d)
{
	return roce_desc_xhdrs(d) & XBIT(AETH) ? roce_desc_hdr(d, ROCE_H_AETH) : NULL;
}

/* Whether an Acknowledge packet's syndrome is of this type (or, for a
 * NAK, this code; -1: any). */
static bool acknowledge_is(struct roce_desc *d, enum roce_syndrome_type type, int nak)
{
	uint8_t *aeth = aeth_of(d);
	if (!aeth || roce_opcode((uint8_t)roce_bth_opcode(d->bth))->kind != ROCE_K_ACK)
		return false;
	uint8_t syn = (uint8_t)roce_aeth_syndrome(aeth);
	return roce_syndrome_type(syn) == type && (nak < 0 || roce_syndrome_value(syn) == (unsigned)nak);
}

/* The profiles that withhold a packet: false when it is not sent. */
static bool sent_at_all(const struct soft_dev *dev, struct roce_desc *d)
{
	switch (dev->fault) {
	case SOFT_FAULT_NO_CNP: return roce_bth_opcode(d->bth) != ROCE_OP_CNP;
	case SOFT_FAULT_NO_ACK: return !acknowledge_is(d, ROCE_SYN_ACK, -1);
	case SOFT_FAULT_NO_RNR: return !acknowledge_is(d, ROCE_SYN_RNR_NAK, -1);
	case SOFT_FAULT_NO_SEQ_NAK: return !acknowledge_is(d, ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR);
	default: return true;
	}
}

/* A CM MAD the device sends, in a copy of its own (d->payload then points
 * at it); NULL for any other packet. */
static uint8_t *cm_mad_copy(struct soft_dev *dev, struct roce_desc *d)
{
	if (roce_bth_destqp(d->bth) != ROCE_QP1 || d->payload_len < ROCE_MAD_LEN ||
	    roce_mad_mgmt_class(d->payload) != ROCE_MAD_CLASS_CM)
		return NULL;
	memcpy(dev->fs.mad, d->payload, ROCE_MAD_LEN);
	d->payload = dev->fs.mad;
	return dev->fs.mad;
}

/* The placement requests a broken requester sends (Annex A19): a FLUSH's
 * FETH, RETH or payload, an ATOMIC WRITE's RETH or bytes. */
static void placement_request_fault(struct soft_dev *dev, struct roce_desc *d, const struct roce_opcode_info *op)
{
	static const uint8_t zeros[8];
	if (op->kind != ROCE_K_FLUSH && op->kind != ROCE_K_ATOMIC_WRITE)
		return;
	uint8_t *reth = roce_desc_hdr(d, ROCE_H_RETH);
	switch (dev->fault) {
	case SOFT_FAULT_FLUSH_FETH_SWAPPED:
		if (op->kind == ROCE_K_FLUSH) {
			uint8_t *feth = roce_desc_hdr(d, ROCE_H_FETH);
			unsigned plt = roce_feth_plt(feth), sel = roce_feth_sel(feth);
			roce_feth_set_plt(feth, sel);
			roce_feth_set_sel(feth, plt);
		}
		return;
	case SOFT_FAULT_FLUSH_DMALEN_ZERO:
		if (op->kind == ROCE_K_FLUSH)
			roce_reth_set_dmalen(reth, 0);
		return;
	case SOFT_FAULT_FLUSH_PAYLOAD:
		if (op->kind == ROCE_K_FLUSH) {
			d->payload = zeros;
			d->payload_len = sizeof zeros;
		}
		return;
	case SOFT_FAULT_ATOMIC_WRITE_DMALEN_ZERO:
		if (op->kind == ROCE_K_ATOMIC_WRITE)
			roce_reth_set_dmalen(reth, 0);
		return;
	case SOFT_FAULT_ATOMIC_WRITE_BYTES_REVERSED:
		if (op->kind == ROCE_K_ATOMIC_WRITE && d->payload_len == sizeof dev->fs.atomic_write) {
			for (size_t i = 0; i < sizeof dev->fs.atomic_write; i++)
				dev->fs.atomic_write[i] = d->payload[sizeof dev->fs.atomic_write - 1 - i];
			d->payload = dev->fs.atomic_write;
		}
		return;
	default:
		return;
	}
}

/* The faults of the transport headers, the MADs and the VLAN tag, the
 * same for RoCE v1 and RoCEv2 packets. */
static void transport_fault(struct soft_dev *dev, struct roce_desc *d)
{
	uint8_t opcode = (uint8_t)roce_bth_opcode(d->bth);
	const struct roce_opcode_info *op = roce_opcode(opcode);
	/* The requests of the device's QPs (not the MADs of QP1). */
	bool request = (op->flags & ROCE_OPF_REQUEST) && roce_bth_destqp(d->bth) != ROCE_QP1;
	bool cnp = opcode == ROCE_OP_CNP;
	uint8_t *aeth = aeth_of(d), *mad;
	switch (dev->fault) {
	case SOFT_FAULT_BTH_RESV_SET:
		roce_bth_set_resv6(d->bth, 0x3F);
		roce_bth_set_resv7(d->bth, 0x7F);
		return;
	case SOFT_FAULT_TVER_ONE:
		roce_bth_set_tver(d->bth, 1);
		return;
	case SOFT_FAULT_WRONG_PAD:
		if (d->payload_len % 4) {
			d->ovr |= ROCE_OVR_PAD_LEN | ROCE_OVR_PADCNT;
			d->pad_len = 0;
			roce_bth_set_padcnt(d->bth, 0);
		}
		return;
	case SOFT_FAULT_SE_EVERYWHERE:
		if (request)
			roce_bth_set_se(d->bth, 1);
		return;
	case SOFT_FAULT_NO_ACKREQ:
		if (request)
			roce_bth_set_ackreq(d->bth, 0);
		return;
	case SOFT_FAULT_BUG_ACKREQ_UNRELIABLE:
		if (request && (op->transport == ROCE_T_UC || op->transport == ROCE_T_UD) &&
		    (op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY))
			roce_bth_set_ackreq(d->bth, 1);
		return;
	case SOFT_FAULT_AETH_RESV_SET:
		if (aeth)
			roce_aeth_set_resv(aeth, 1);
		return;
	case SOFT_FAULT_MSN_FROZEN:
		if (aeth)
			roce_aeth_set_msn(aeth, 0);
		return;
	case SOFT_FAULT_WRONG_NAK_CODE:
		if (acknowledge_is(d, ROCE_SYN_NAK, ROCE_NAK_REMOTE_ACCESS))
			roce_aeth_set_syndrome(aeth, roce_syndrome_nak(ROCE_NAK_INVALID_REQUEST));
		return;
	case SOFT_FAULT_RNR_WRONG_TIMER:
		if (acknowledge_is(d, ROCE_SYN_RNR_NAK, -1))
			roce_aeth_set_syndrome(aeth, roce_syndrome_rnr(0));
		return;
	case SOFT_FAULT_SEQ_NAK_WRONG_PSN:
		/* The PSN of the packet that is out of sequence, not the one
		 * expected. */
		if (acknowledge_is(d, ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR) && dev->rx)
			roce_bth_set_psn(d->bth, dev->rx->psn);
		return;
	case SOFT_FAULT_XRC_RESP_XRCETH:
		/* The responder's own XRCETH, naming the SRQ the request named. */
		if (op->transport == ROCE_T_XRC && !(op->flags & ROCE_OPF_REQUEST)) {
			const uint8_t *x = dev->rx ? roce_pkt_hdr(dev->rx->p, ROCE_H_XRCETH) : NULL;
			d->xhdrs = (uint16_t)(roce_desc_xhdrs(d) | XBIT(XRCETH));
			d->ovr |= ROCE_OVR_XHDRS;
			roce_xrceth_set_srqn(roce_desc_hdr(d, ROCE_H_XRCETH), x ? roce_xrceth_srqn(x) : 0);
		}
		return;
	case SOFT_FAULT_READ_RESP_NO_AETH:
		if (op->kind == ROCE_K_READ_RESP && aeth) {
			d->xhdrs = (uint16_t)(roce_desc_xhdrs(d) & ~XBIT(AETH));
			d->ovr |= ROCE_OVR_XHDRS;
		}
		return;
	case SOFT_FAULT_CNP_BAD_FORMAT:
		if (cnp) {
			roce_bth_set_psn(d->bth, 1);
			memset(roce_desc_hdr(d, ROCE_H_CNPPAD), 0xA5, ROCE_CNPPAD_LEN);
		}
		return;
	case SOFT_FAULT_CNP_WRONG_QP:
		/* The device's own QP, the one the CE-marked packet came to. */
		if (cnp && dev->rx)
			roce_bth_set_destqp(d->bth, roce_bth_destqp(dev->rx->bth));
		return;
	case SOFT_FAULT_CM_REJ_LID_REASON:
		/* A REQ for a service nobody listens on: reason 13 (a port
		 * LID) instead of 8. */
		mad = cm_mad_copy(dev, d);
		if (mad && roce_mad_attr_id(mad) == ROCE_CM_REJ &&
		    roce_rej_reason(mad + ROCE_MAD_HDR_LEN) == ROCE_CM_REJ_INVALID_SERVICE_ID)
			roce_rej_set_reason(mad + ROCE_MAD_HDR_LEN, ROCE_CM_REJ_INVALID_LID);
		return;
	case SOFT_FAULT_CM_APR_LID_STATUS:
		mad = cm_mad_copy(dev, d);
		if (mad && roce_mad_attr_id(mad) == ROCE_CM_APR && roce_apr_status(mad + ROCE_MAD_HDR_LEN) == ROCE_CM_APR_SUCCESS)
			roce_apr_set_status(mad + ROCE_MAD_HDR_LEN, ROCE_CM_APR_INVALID_LID);
		return;
	case SOFT_FAULT_PCP_ZERO:
		if (d->n_vlan)
			d->vlan_tci[d->n_vlan - 1] = roce_vlan_tci(0, roce_vlan_vid(d->vlan_tci[d->n_vlan - 1]));
		return;
	case SOFT_FAULT_PCP_RESPONSES_ZERO:
		if (d->n_vlan && !(op->flags & ROCE_OPF_REQUEST) && !cnp)
			d->vlan_tci[d->n_vlan - 1] = roce_vlan_tci(0, roce_vlan_vid(d->vlan_tci[d->n_vlan - 1]));
		return;
	default:
		placement_request_fault(dev, d, op);
		return;
	}
}

/* What a fault does to a RoCE v1 packet: the IP and UDP faults have nothing
 * to act on; the transport and ICRC ones act as on RoCEv2. */
static void fault_tx_v1(struct soft_dev *dev, struct roce_desc *d)
{
	uint32_t v;
	switch (dev->fault) {
	case SOFT_FAULT_BAD_ICRC:
		if (v1_mistaken_icrc(d, ROCE_ICRC_MISTAKE_NOT_INVERTED, &v)) {
			d->icrc = ~v + 1; /* the right ICRC, plus one */
			d->ovr |= ROCE_OVR_ICRC;
		}
		return;
	case SOFT_FAULT_ICRC_PAD_OMITTED:
	case SOFT_FAULT_V1_ICRC_TC_UNMASKED:
		if (v1_mistaken_icrc(d, dev->fault == SOFT_FAULT_ICRC_PAD_OMITTED ? ROCE_ICRC_MISTAKE_PAD_OMITTED
										  : ROCE_ICRC_MISTAKE_IPV6_TC_UNMASKED,
				     &v)) {
			d->icrc = v;
			d->ovr |= ROCE_OVR_ICRC;
		}
		return;
	case SOFT_FAULT_WRONG_DGID:
		roce_grh_dgid_ptr(roce_desc_hdr(d, ROCE_H_GRH))[ROCE_GID_LEN - 1]++;
		return;
	case SOFT_FAULT_WRONG_SGID:
		roce_grh_sgid_ptr(roce_desc_hdr(d, ROCE_H_GRH))[ROCE_GID_LEN - 1]++;
		return;
	default:
		transport_fault(dev, d);
		return;
	}
}

/* Whether a RoCEv2 packet goes to a multicast group of this IP version. */
static bool to_group(struct roce_desc *d, int ip_version)
{
	if (d->ip_version != ip_version)
		return false;
	return roce_ip_is_multicast(ip_version, ip_version == 6 ? roce_ipv6_dst(d->ip) : roce_ipv4_dst(d->ip));
}

/* What a fault does to a RoCEv2 packet. */
static void fault_tx_v2(struct soft_dev *dev, struct roce_desc *d)
{
	bool cnp = roce_bth_opcode(d->bth) == ROCE_OP_CNP;
	switch (dev->fault) {
	case SOFT_FAULT_BAD_ICRC:
	case SOFT_FAULT_ICRC_PAD_OMITTED: {
		uint8_t tmp[9216];
		long n = roce_build_ip(d, tmp, sizeof tmp);
		if (n <= 0)
			return;
		struct roce_pkt p;
		if (roce_parse_ip(&p, tmp, (size_t)n, (size_t)n, 0) != ROCE_OK)
			return;
		uint32_t v = roce_icrc(tmp, p.icrc_off) + 1;
		if (dev->fault == SOFT_FAULT_ICRC_PAD_OMITTED &&
		    roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_PAD_OMITTED, &v) != 0)
			return; /* no pad: the mistake does not show */
		d->icrc = v;
		d->ovr |= ROCE_OVR_ICRC;
		return;
	}
	case SOFT_FAULT_FLUSH_ICRC_HEADERS_TWICE: {
		/* rxe's FLUSH (R13 of docs/rxe-results.md): its opcode row has
		 * no payload offset, so the headers count as payload too. */
		uint8_t tmp[9216];
		long n = roce_build_ip(d, tmp, sizeof tmp);
		struct roce_pkt p;
		uint32_t v;
		if (roce_bth_opcode(d->bth) != ROCE_OP_RC_FLUSH || n <= 0 ||
		    roce_parse_ip(&p, tmp, (size_t)n, (size_t)n, 0) != ROCE_OK ||
		    roce_icrc_mistaken(&p, ROCE_ICRC_MISTAKE_HEADERS_TWICE, &v) != 0)
			return;
		d->icrc = v;
		d->ovr |= ROCE_OVR_ICRC;
		return;
	}
	case SOFT_FAULT_IPV4_NO_DF:
		if (d->ip_version == 4)
			roce_ipv4_set_df(d->ip, 0);
		return;
	case SOFT_FAULT_IPV4_BAD_CSUM:
		if (d->ip_version == 4) {
			uint8_t tmp[9216];
			if (roce_build_ip(d, tmp, sizeof tmp) > 0)
				roce_desc_set(d, ROCE_F_IPV4_csum, (roce_ipv4_csum(tmp) ^ 0x5A5A) & 0xFFFF);
		}
		return;
	case SOFT_FAULT_WRONG_DSCP:
		if (!cnp) {
			if (d->ip_version == 6)
				roce_ipv6_set_dscp(d->ip, 0);
			else
				roce_ipv4_set_dscp(d->ip, 0);
		}
		return;
	case SOFT_FAULT_WRONG_TTL:
		if (d->ip_version == 6)
			roce_ipv6_set_hoplimit(d->ip, 255);
		else
			roce_ipv4_set_ttl(d->ip, 255);
		return;
	case SOFT_FAULT_ECN_WITHOUT_RCM:
		if (!dev->opts.rcm)
			set_ecn(d, 2);
		return;
	case SOFT_FAULT_ECN_CE_SENT:
		set_ecn(d, 3);
		return;
	case SOFT_FAULT_WRONG_DGID: {
		uint8_t *ip = ip_hdr(d);
		uint8_t *dst = d->ip_version == 6 ? roce_ipv6_dst_ptr(ip) : roce_ipv4_dst_ptr(ip);
		dst[d->ip_version == 6 ? 15 : 3]++;
		return;
	}
	case SOFT_FAULT_IPV6_PAYLEN_FROM_BTH:
		if (d->ip_version == 6) {
			uint8_t tmp[9216];
			long n = roce_build_ip(d, tmp, sizeof tmp);
			if (n > ROCE_IPV6_LEN + ROCE_UDP_LEN)
				roce_desc_set(d, ROCE_F_IPV6_paylen, (uint64_t)(n - ROCE_IPV6_LEN - ROCE_UDP_LEN));
		}
		return;
	case SOFT_FAULT_WRONG_SGID: {
		uint8_t *ip = ip_hdr(d);
		uint8_t *src = d->ip_version == 6 ? roce_ipv6_src_ptr(ip) : roce_ipv4_src_ptr(ip);
		src[d->ip_version == 6 ? 15 : 3]++;
		return;
	}
	case SOFT_FAULT_MCAST_WRONG_MAC:
	case SOFT_FAULT_MCAST6_WRONG_MAC:
		/* The broadcast address instead of the group's mapped MAC. */
		if (to_group(d, dev->fault == SOFT_FAULT_MCAST_WRONG_MAC ? 4 : 6))
			memset(d->eth_dst, 0xFF, 6);
		return;
	case SOFT_FAULT_MCAST_UNICAST_DESTQP:
		/* The sender's own QPN instead of the multicast QPN. */
		if ((to_group(d, 4) || to_group(d, 6)) && (roce_desc_xhdrs(d) & XBIT(DETH)))
			roce_bth_set_destqp(d->bth, roce_deth_srcqp(roce_desc_hdr(d, ROCE_H_DETH)));
		return;
	case SOFT_FAULT_SPORT_VARIES:
		/* Within a connected QP's packets (not CNPs, not MADs). */
		if (!cnp && roce_bth_destqp(d->bth) != ROCE_QP1)
			roce_udp_set_sport(d->udp, 0xC000 | ((roce_udp_sport(d->udp) + ++dev->fs.sport_seq * 7) & 0x3FFF));
		return;
	default:
		transport_fault(dev, d);
		return;
	}
}

bool soft_fault_tx(struct soft_dev *dev, struct roce_desc *d)
{
	if (soft_fault_info(dev->fault)->hook != SOFT_HOOK_TX)
		return true;
	if (!sent_at_all(dev, d))
		return false;
	if (d->rocev1)
		fault_tx_v1(dev, d);
	else
		fault_tx_v2(dev, d);
	return true;
}
