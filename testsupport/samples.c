/* Sample packets: conforming ones per opcode, and one violation per code. */
#include "samples.h"

#include <stdbool.h>
#include <string.h>

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t ip4_a[4] = { 198, 18, 0, 1 };
static const uint8_t ip4_b[4] = { 198, 18, 0, 2 };
static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

void sample_fill_pattern(uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 31 + 7);
}

size_t sample_payload_len(uint8_t opcode, unsigned pmtu, size_t want)
{
	const struct roce_opcode_info *op = roce_opcode(opcode);
	if (!op->name || !(op->flags & ROCE_OPF_PAYLOAD))
		return 0;
	if (op->fixed_payload)
		return op->fixed_payload;
	unsigned mtu = pmtu ? pmtu : 256;
	if (op->position == ROCE_POS_FIRST || op->position == ROCE_POS_MIDDLE)
		return mtu;
	if (want > mtu)
		want = mtu;
	if (op->position == ROCE_POS_LAST && want == 0)
		want = 1;
	return want;
}

/* The image of an extended header the opcode carries, or NULL. */
static uint8_t *carried(struct roce_desc *d, enum roce_hdr h)
{
	return (roce_desc_xhdrs(d) & ROCE_XHDR_BIT(h)) ? roce_desc_hdr(d, h) : NULL;
}

void sample_desc(struct roce_desc *d, uint8_t opcode, int ip_version, const uint8_t *pattern,
		 size_t payload_len)
{
	roce_desc_init(d, opcode, ip_version);
	const struct roce_opcode_info *op = roce_opcode(opcode);
	bool request = op->flags & ROCE_OPF_REQUEST;
	memcpy(d->eth_dst, request ? mac_b : mac_a, 6);
	memcpy(d->eth_src, request ? mac_a : mac_b, 6);
	if (ip_version == 6) {
		roce_ipv6_set_dscp(d->ip, 26);
		roce_ipv6_set_flowlabel(d->ip, 0x12345);
		memcpy(d->ip + 8, request ? ip6_a : ip6_b, 16);
		memcpy(d->ip + 24, request ? ip6_b : ip6_a, 16);
	} else {
		roce_ipv4_set_dscp(d->ip, 26);
		roce_ipv4_set_id(d->ip, 0x1234);
		memcpy(d->ip + 12, request ? ip4_a : ip4_b, 4);
		memcpy(d->ip + 16, request ? ip4_b : ip4_a, 4);
	}
	roce_udp_set_sport(d->udp, 0xC0DE);

	roce_bth_set_destqp(d->bth, op->kind == ROCE_K_CNP ? 0x000321 : 0x000123);
	if (op->kind != ROCE_K_CNP) {
		roce_bth_set_psn(d->bth, 0x00002A);
		bool last = op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY;
		bool reliable = op->transport == ROCE_T_RC || op->transport == ROCE_T_RD ||
				op->transport == ROCE_T_XRC;
		roce_bth_set_ackreq(d->bth, request && reliable && last);
	}

	uint8_t *h;
	if ((h = carried(d, ROCE_H_RDETH)))
		roce_rdeth_set_eecnxt(h, 0x000042);
	if ((h = carried(d, ROCE_H_DETH))) {
		roce_deth_set_qkey(h, 0x11111111);
		roce_deth_set_srcqp(h, 0x000321);
	}
	if ((h = carried(d, ROCE_H_XRCETH)))
		roce_xrceth_set_srqn(h, 0x000077);
	if ((h = carried(d, ROCE_H_FETH))) {
		roce_feth_set_sel(h, 1);
		roce_feth_set_plt(h, 1);
	}
	if ((h = carried(d, ROCE_H_RETH))) {
		roce_reth_set_va(h, 0x00007F0000001000ull);
		roce_reth_set_rkey(h, 0x00001234);
		roce_reth_set_dmalen(h, op->kind == ROCE_K_READ_REQ ? 4096 : payload_len);
	}
	if ((h = carried(d, ROCE_H_ATOMICETH))) {
		roce_atomiceth_set_va(h, 0x00007F0000002000ull);
		roce_atomiceth_set_rkey(h, 0x00001234);
		roce_atomiceth_set_swapdt(h, 1);
		roce_atomiceth_set_cmpdt(h, 0);
	}
	if ((h = carried(d, ROCE_H_AETH))) {
		roce_aeth_set_syndrome(h, roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED));
		roce_aeth_set_msn(h, 5);
	}
	if ((h = carried(d, ROCE_H_ATOMICACKETH)))
		roce_atomicacketh_set_orig(h, 0x1122334455667788ull);
	if ((h = carried(d, ROCE_H_IMMDT)))
		roce_immdt_set_imm(h, 0xDEADBEEF);
	if ((h = carried(d, ROCE_H_IETH)))
		roce_ieth_set_rkey(h, 0x00005678);

	d->payload = pattern;
	d->payload_len = payload_len;
}

void sample_to_rocev1(struct roce_desc *d)
{
	uint8_t gids[32];
	uint32_t tc = roce_ipv6_tc(d->ip), fl = roce_ipv6_flowlabel(d->ip), hl = roce_ipv6_hoplimit(d->ip);
	memcpy(gids, d->ip + 8, 32);
	d->rocev1 = true;
	d->ip_version = 6;
	memset(d->ip, 0, sizeof d->ip);
	memset(d->udp, 0, sizeof d->udp);
	roce_grh_set_ipver(d->ip, 6);
	roce_grh_set_tclass(d->ip, tc);
	roce_grh_set_flowlabel(d->ip, fl);
	roce_grh_set_nxthdr(d->ip, ROCE_GRH_NXTHDR_IBA);
	roce_grh_set_hoplmt(d->ip, hl);
	memcpy(d->ip + 8, gids, 32);
}
