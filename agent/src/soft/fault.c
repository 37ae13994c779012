/* The fault profiles' table and their changes to transmitted packets. */
#include "soft.h"

#include <string.h>

static const struct soft_fault_info faults[SOFT_FAULT_COUNT] = {
	[SOFT_FAULT_NONE] = { "none", "", "a conforming device" },
#define SOFT_FAULT(SYM, name, rule, text) [SOFT_FAULT_##SYM] = { name, rule, text },
#include "fault.def"
#undef SOFT_FAULT
};

const struct soft_fault_info *soft_fault_info(enum soft_fault f)
{
	return (unsigned)f < SOFT_FAULT_COUNT ? &faults[f] : NULL;
}

enum soft_fault soft_fault_by_name(const char *name)
{
	for (unsigned f = 0; f < SOFT_FAULT_COUNT; f++)
		if (strcmp(faults[f].name, name) == 0)
			return (enum soft_fault)f;
	return SOFT_FAULT_COUNT;
}

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

/* The faults of the transport headers and the VLAN tag, the same for
 * RoCE v1 and RoCEv2 packets. */
static void transport_fault(const struct soft_dev *dev, struct roce_desc *d)
{
	bool request = roce_opcode((uint8_t)roce_bth_opcode(d->bth))->flags & ROCE_OPF_REQUEST;
	bool cnp = roce_bth_opcode(d->bth) == ROCE_OP_CNP;
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
	case SOFT_FAULT_AETH_RESV_SET:
		if (roce_desc_xhdrs(d) & ROCE_XHDR_BIT(ROCE_H_AETH))
			roce_aeth_set_resv(roce_desc_hdr(d, ROCE_H_AETH), 1);
		return;
	case SOFT_FAULT_PCP_ZERO:
		if (d->n_vlan)
			d->vlan_tci[d->n_vlan - 1] &= 0x1FFF;
		return;
	case SOFT_FAULT_PCP_RESPONSES_ZERO:
		if (d->n_vlan && !request && !cnp)
			d->vlan_tci[d->n_vlan - 1] &= 0x1FFF;
		return;
	default:
		return;
	}
}

/* What a fault does to a RoCE v1 packet: the IP and UDP faults have nothing
 * to act on; the transport and ICRC ones act as on RoCEv2. */
static void soft_fault_tx_v1(struct soft_dev *dev, struct roce_desc *d)
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
		roce_desc_hdr(d, ROCE_H_GRH)[24 + 15]++;
		return;
	case SOFT_FAULT_WRONG_SGID:
		roce_desc_hdr(d, ROCE_H_GRH)[8 + 15]++;
		return;
	default:
		transport_fault(dev, d);
		return;
	}
}

void soft_fault_tx(struct soft_dev *dev, struct roce_desc *d)
{
	if (d->rocev1) {
		soft_fault_tx_v1(dev, d);
		return;
	}
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
		uint8_t *dst = (uint8_t *)(d->ip_version == 6 ? roce_ipv6_dst(ip) : roce_ipv4_dst(ip));
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
		uint8_t *src = (uint8_t *)(d->ip_version == 6 ? roce_ipv6_src(ip) : roce_ipv4_src(ip));
		src[d->ip_version == 6 ? 15 : 3]++;
		return;
	}
	default:
		transport_fault(dev, d);
		return;
	}
}
