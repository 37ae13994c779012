/* A one-line description of a packet, shared by every front end. */
#include <stdio.h>

#include "roce/aeth.h"
#include "roce/packet.h"

int roce_pkt_summary(const struct roce_pkt *p, char *buf, size_t n)
{
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth)
		return snprintf(buf, n, "no BTH");
	char name[32];
	const char *opname = p->op && p->op->name ? p->op->name : NULL;
	if (!opname) {
		snprintf(name, sizeof name, "opcode 0x%02x", p->opcode);
		opname = name;
	}
	/* RoCE v1 says so first: on a dual-mode port both kinds flow. */
	char v1[64];
	if (p->rocev1) {
		snprintf(v1, sizeof v1, "RoCE v1 %s", opname);
		opname = v1;
	}
	const uint8_t *aeth = roce_pkt_hdr(p, ROCE_H_AETH);
	if (aeth) {
		char syn[48];
		roce_aeth_describe((uint8_t)roce_aeth_syndrome(aeth), syn, sizeof syn);
		return snprintf(buf, n, "%s: %s QP=0x%06x PSN=%u MSN=%u", opname, syn, roce_bth_destqp(bth),
				roce_bth_psn(bth), roce_aeth_msn(aeth));
	}
	if (p->op && p->op->kind == ROCE_K_CNP)
		return snprintf(buf, n, "%s QP=0x%06x", opname, roce_bth_destqp(bth));
	return snprintf(buf, n, "%s QP=0x%06x PSN=%u", opname, roce_bth_destqp(bth), roce_bth_psn(bth));
}
