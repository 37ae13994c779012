/*
 * The builder. Headers come from the description's images; lengths, the
 * IPv4 checksum, the pad and the ICRC are computed unless overridden.
 */
#include "roce/build.h"

#include <string.h>

#include "roce/icrc.h"

void roce_desc_init(struct roce_desc *d, uint8_t opcode, int ip_version)
{
	memset(d, 0, sizeof *d);
	d->ip_version = (uint8_t)ip_version;
	if (ip_version == 6) {
		roce_ipv6_set_version(d->ip, 6);
		roce_ipv6_set_nexthdr(d->ip, 17);
		roce_ipv6_set_hoplimit(d->ip, 64);
	} else {
		roce_ipv4_set_version(d->ip, 4);
		roce_ipv4_set_ihl(d->ip, 5);
		roce_ipv4_set_df(d->ip, 1);
		roce_ipv4_set_ttl(d->ip, 64);
		roce_ipv4_set_proto(d->ip, 17);
	}
	roce_udp_set_sport(d->udp, 0xC000);
	roce_udp_set_dport(d->udp, ROCE_UDP_PORT);
	roce_bth_set_opcode(d->bth, opcode);
	roce_bth_set_pkey(d->bth, 0xFFFF);
}

void roce_desc_init_v1(struct roce_desc *d, uint8_t opcode)
{
	memset(d, 0, sizeof *d);
	d->ip_version = 6;
	d->rocev1 = true;
	roce_grh_set_ipver(d->ip, 6);
	roce_grh_set_nxthdr(d->ip, ROCE_GRH_NXTHDR_IBA);
	roce_grh_set_hoplmt(d->ip, 64);
	roce_bth_set_opcode(d->bth, opcode);
	roce_bth_set_pkey(d->bth, 0xFFFF);
}

uint8_t *roce_desc_hdr(struct roce_desc *d, enum roce_hdr h)
{
	switch (h) {
	case ROCE_H_IPV4:
		return d->ip_version == 4 && !d->rocev1 ? d->ip : NULL;
	case ROCE_H_IPV6:
		return d->ip_version == 6 && !d->rocev1 ? d->ip : NULL;
	case ROCE_H_GRH:
		return d->rocev1 ? d->ip : NULL;
	case ROCE_H_UDP:
		return d->rocev1 ? NULL : d->udp;
	case ROCE_H_BTH:
		return d->bth;
	default:
		if (h >= ROCE_H_FIRST_XHDR && h < ROCE_H_COUNT)
			return d->xhdr[h - ROCE_H_FIRST_XHDR];
		return NULL;
	}
}

/* Fields the builder computes, and the override that freezes each. */
static unsigned computed_by(enum roce_field f)
{
	switch (f) {
	case ROCE_F_IPV4_ihl: return ROCE_OVR_IPV4_IHL;
	case ROCE_F_IPV4_totlen:
	case ROCE_F_IPV6_paylen:
	case ROCE_F_GRH_paylen: return ROCE_OVR_IP_LEN;
	case ROCE_F_IPV4_csum: return ROCE_OVR_IP_CSUM;
	case ROCE_F_UDP_len: return ROCE_OVR_UDP_LEN;
	case ROCE_F_BTH_padcnt: return ROCE_OVR_PADCNT;
	default: return 0;
	}
}

int roce_desc_set(struct roce_desc *d, enum roce_field f, uint64_t value)
{
	const struct roce_field_info *fi = roce_field_info(f);
	if (!fi || !fi->mask)
		return -1;
	uint8_t *hdr = roce_desc_hdr(d, fi->hdr);
	if (!hdr)
		return -1;
	roce_field_set(hdr, f, value);
	d->ovr |= computed_by(f);
	return 0;
}

uint64_t roce_desc_get(const struct roce_desc *d, enum roce_field f)
{
	const struct roce_field_info *fi = roce_field_info(f);
	if (!fi)
		return 0;
	const uint8_t *hdr = roce_desc_hdr((struct roce_desc *)d, fi->hdr);
	return hdr ? roce_field_get(hdr, f) : 0;
}

uint16_t roce_desc_xhdrs(const struct roce_desc *d)
{
	if (d->ovr & ROCE_OVR_XHDRS)
		return d->xhdrs;
	return roce_opcode((uint8_t)roce_bth_opcode(d->bth))->xhdrs;
}

static unsigned pad_for(size_t payload_len)
{
	return (unsigned)(-payload_len & 3u);
}

/* BTH, extended headers, payload and pad at bth; returns where the ICRC
 * goes. */
static uint8_t *build_transport(const struct roce_desc *d, uint8_t *bth, uint16_t xhdrs, unsigned pad)
{
	memcpy(bth, d->bth, ROCE_BTH_LEN);
	if (!(d->ovr & ROCE_OVR_PADCNT))
		roce_bth_set_padcnt(bth, pad);
	uint8_t *w = bth + ROCE_BTH_LEN;
	for (unsigned h = ROCE_H_FIRST_XHDR; h < ROCE_H_COUNT; h++) {
		if (xhdrs & ROCE_XHDR_BIT(h)) {
			size_t size = roce_hdr_info((enum roce_hdr)h)->size;
			memcpy(w, d->xhdr[h - ROCE_H_FIRST_XHDR], size);
			w += size;
		}
	}
	if (d->payload_len)
		memcpy(w, d->payload, d->payload_len);
	w += d->payload_len;
	memcpy(w, d->pad, pad);
	return w + pad;
}

/* RoCE v1: the GRH, then the transport; the ICRC over the masked GRH. */
static long build_grh(const struct roce_desc *d, uint8_t *out, size_t cap)
{
	uint16_t xhdrs = roce_desc_xhdrs(d);
	unsigned pad = (d->ovr & ROCE_OVR_PAD_LEN) ? d->pad_len : pad_for(d->payload_len);
	if (pad > sizeof d->pad || d->ip_opts_len)
		return -2;
	size_t tp_len = ROCE_BTH_LEN + roce_xhdr_set_len(xhdrs) + d->payload_len + pad + ROCE_ICRC_LEN;
	size_t total = ROCE_GRH_LEN + tp_len;
	if (tp_len > 0xFFFF)
		return -2;
	if (total > cap)
		return -1;
	memcpy(out, d->ip, ROCE_GRH_LEN);
	if (!(d->ovr & ROCE_OVR_IP_LEN))
		roce_grh_set_paylen(out, tp_len);
	uint8_t *w = build_transport(d, out + ROCE_GRH_LEN, xhdrs, pad);
	uint32_t icrc = (d->ovr & ROCE_OVR_ICRC) ? d->icrc : roce_icrc_v1(out, (size_t)(w - out));
	roce_le32_store(w, icrc);
	return (long)total;
}

long roce_build_ip(const struct roce_desc *d, uint8_t *out, size_t cap)
{
	if (d->rocev1)
		return build_grh(d, out, cap);
	if (d->ip_version != 4 && d->ip_version != 6)
		return -2;
	if (d->ip_opts_len > sizeof d->ip_opts || (d->ip_version == 4 && d->ip_opts_len % 4))
		return -2;
	size_t fixed = d->ip_version == 4 ? ROCE_IPV4_LEN : ROCE_IPV6_LEN;
	size_t hl = fixed + d->ip_opts_len;
	uint16_t xhdrs = roce_desc_xhdrs(d);
	unsigned pad = (d->ovr & ROCE_OVR_PAD_LEN) ? d->pad_len : pad_for(d->payload_len);
	if (pad > sizeof d->pad)
		return -2;
	size_t tp_len = ROCE_BTH_LEN + roce_xhdr_set_len(xhdrs) + d->payload_len + pad + ROCE_ICRC_LEN;
	size_t udp_len = ROCE_UDP_LEN + tp_len;
	size_t total = hl + udp_len;
	if (total > 0xFFFF + fixed)
		return -2;
	if (total > cap)
		return -1;

	uint8_t *ip = out;
	memcpy(ip, d->ip, fixed);
	memcpy(ip + fixed, d->ip_opts, d->ip_opts_len);
	if (d->ip_version == 4) {
		if (!(d->ovr & ROCE_OVR_IPV4_IHL))
			roce_ipv4_set_ihl(ip, hl / 4);
		if (!(d->ovr & ROCE_OVR_IP_LEN))
			roce_ipv4_set_totlen(ip, total);
	} else if (!(d->ovr & ROCE_OVR_IP_LEN)) {
		roce_ipv6_set_paylen(ip, total - fixed);
	}

	uint8_t *udp = ip + hl;
	memcpy(udp, d->udp, ROCE_UDP_LEN);
	if (!(d->ovr & ROCE_OVR_UDP_LEN))
		roce_udp_set_len(udp, udp_len);

	uint8_t *w = build_transport(d, udp + ROCE_UDP_LEN, xhdrs, pad);

	/* The checksum goes last among the IP fields, the ICRC last of all:
	 * each covers what came before. */
	if (d->ip_version == 4 && !(d->ovr & ROCE_OVR_IP_CSUM))
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, hl));
	uint32_t icrc = (d->ovr & ROCE_OVR_ICRC) ? d->icrc : roce_icrc(ip, (size_t)(w - ip));
	roce_le32_store(w, icrc);
	return (long)total;
}

long roce_build_frame(const struct roce_desc *d, uint8_t *out, size_t cap)
{
	if (d->n_vlan > ROCE_MAX_VLANS)
		return -2;
	size_t l2 = ROCE_ETH_LEN + d->n_vlan * ROCE_VLAN_LEN;
	if (cap < l2)
		return -1;
	memcpy(out, d->eth_dst, 6);
	memcpy(out + 6, d->eth_src, 6);
	size_t off = 12;
	for (unsigned i = 0; i < d->n_vlan; i++, off += ROCE_VLAN_LEN) {
		roce_be_store(out + off, 2, d->vlan_tpid[i]);
		roce_be_store(out + off + 2, 2, d->vlan_tci[i]);
	}
	uint16_t type = d->rocev1 ? ROCE_ETHERTYPE_ROCEV1 : d->ip_version == 6 ? ROCE_ETHERTYPE_IPV6 : ROCE_ETHERTYPE_IPV4;
	roce_be_store(out + off, 2, (d->ovr & ROCE_OVR_ETHERTYPE) ? d->ethertype : type);
	long n = roce_build_ip(d, out + l2, cap - l2);
	return n < 0 ? n : n + (long)l2;
}

int roce_desc_from_pkt(struct roce_desc *d, const struct roce_pkt *p)
{
	enum roce_hdr iph = p->rocev1 ? ROCE_H_GRH : p->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	if (p->err != ROCE_OK || !p->complete || !roce_pkt_has(p, iph))
		return -1;
	memset(d, 0, sizeof *d);
	const uint8_t *buf = p->buf;

	if (p->has_eth) {
		memcpy(d->eth_dst, buf, 6);
		memcpy(d->eth_src, buf + 6, 6);
		d->n_vlan = p->n_vlan;
		for (unsigned i = 0; i < p->n_vlan; i++) {
			d->vlan_tpid[i] = (uint16_t)roce_be_load(buf + p->vlan_off[i], 2);
			d->vlan_tci[i] = (uint16_t)roce_be_load(buf + p->vlan_off[i] + 2, 2);
		}
	}

	const uint8_t *ip = buf + p->hdr_off[iph];
	size_t fixed = p->rocev1 || p->ip_version == 6 ? ROCE_IPV6_LEN : ROCE_IPV4_LEN;
	d->rocev1 = p->rocev1;
	d->ip_version = p->rocev1 ? 6 : p->ip_version;
	memcpy(d->ip, ip, fixed);
	d->ip_opts_len = p->ip_hdr_len - (unsigned)fixed;
	memcpy(d->ip_opts, ip + fixed, d->ip_opts_len);
	if (p->ip_version == 4 && roce_ipv4_csum(ip) != roce_ipv4_checksum(ip, p->ip_hdr_len))
		d->ovr |= ROCE_OVR_IP_CSUM;

	if (!p->rocev1)
		memcpy(d->udp, roce_pkt_hdr(p, ROCE_H_UDP), ROCE_UDP_LEN);
	memcpy(d->bth, roce_pkt_hdr(p, ROCE_H_BTH), ROCE_BTH_LEN);
	for (unsigned h = ROCE_H_FIRST_XHDR; h < ROCE_H_COUNT; h++)
		if (roce_pkt_has(p, (enum roce_hdr)h))
			memcpy(d->xhdr[h - ROCE_H_FIRST_XHDR], buf + p->hdr_off[h],
			       roce_hdr_info((enum roce_hdr)h)->size);
	if (p->op->xhdrs != roce_opcode(p->opcode)->xhdrs) { /* the RD range parsed as DC */
		d->ovr |= ROCE_OVR_XHDRS;
		d->xhdrs = p->op->xhdrs;
	}

	d->payload = buf + p->payload_off;
	d->payload_len = p->payload_len;
	memcpy(d->pad, buf + p->payload_off + p->payload_len, p->pad_len);
	if (p->pad_len != pad_for(p->payload_len)) {
		d->ovr |= ROCE_OVR_PAD_LEN;
		d->pad_len = p->pad_len;
	}

	uint32_t wire = roce_le32_load(buf + p->icrc_off);
	size_t covered = p->icrc_off - p->hdr_off[iph];
	if (wire != (p->rocev1 ? roce_icrc_v1(ip, covered) : roce_icrc(ip, covered))) {
		d->ovr |= ROCE_OVR_ICRC;
		d->icrc = wire;
	}
	return 0;
}

size_t roce_frame_push_vlan(uint8_t *frame, size_t len, size_t cap, uint16_t tpid, uint16_t tci)
{
	if (len < ROCE_ETH_TYPE_OFF + 2 || len + ROCE_VLAN_LEN > cap)
		return 0;
	memmove(frame + ROCE_ETH_TYPE_OFF + ROCE_VLAN_LEN, frame + ROCE_ETH_TYPE_OFF, len - ROCE_ETH_TYPE_OFF);
	roce_be_store(frame + ROCE_ETH_TYPE_OFF, 2, tpid);
	roce_be_store(frame + ROCE_ETH_TYPE_OFF + 2, 2, tci);
	return len + ROCE_VLAN_LEN;
}

uint8_t *roce_frame_push_vlan_front(uint8_t *frame, uint16_t tpid, uint16_t tci)
{
	uint8_t *start = frame - ROCE_VLAN_LEN;
	memmove(start, frame, ROCE_ETH_TYPE_OFF);
	roce_be_store(start + ROCE_ETH_TYPE_OFF, 2, tpid);
	roce_be_store(start + ROCE_ETH_TYPE_OFF + 2, 2, tci);
	return start;
}
