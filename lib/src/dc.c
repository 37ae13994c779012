/*
 * NVIDIA's Dynamically Connected transport (DC) on the RD opcodes: whether
 * a packet parsed as RD looks like DC (dcopcodes.def says why).
 */
#include "roce/packet.h"

bool roce_pkt_looks_like_dc(const struct roce_pkt *p)
{
	const uint8_t *rdeth = roce_pkt_hdr(p, ROCE_H_RDETH);
	if (p->rd_as_dc || !rdeth || !roce_rdeth_resv(rdeth) || !roce_pkt_has(p, ROCE_H_BTH))
		return false;
	uint32_t bth = p->hdr_off[ROCE_H_BTH];
	struct roce_pkt dc;
	if (roce_parse_bth(&dc, p->buf + bth, p->caplen - bth, p->tp_len, ROCE_PARSE_RD_AS_DC) != ROCE_OK)
		return false;
	const uint8_t *dc_rdeth = roce_pkt_hdr(&dc, ROCE_H_RDETH);
	return !dc_rdeth || roce_rdeth_resv(dc_rdeth) == 0;
}
