/*
 * Bulk RC traffic for the benchmarks and the analysis' load tests
 * (conversations.h): conforming messages over many connections between two
 * hosts, in one of a few shapes.
 */
#include <string.h>

#include "conv_build.h"

#define MAX_QPS 4096

/* A READ of len bytes on connection q, answered in PMTU segments. */
static unsigned long bulk_read(struct conv *c, uint32_t qa, uint32_t qb, uint32_t *psn, uint32_t *msn,
			       uint32_t len)
{
	struct roce_desc d;
	uint32_t np = (len + PMTU - 1) / PMTU;
	conv_start(c, &d, true, ROCE_OP_RC_READ_REQUEST, qb, *psn, 0);
	roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), len);
	conv_send(c, &d, 2, ROCE_OK, "READ");
	for (uint32_t i = 0; i < np; i++) {
		uint8_t op = (uint8_t)roce_opcode_find(ROCE_T_RC, ROCE_K_READ_RESP, roce_position_of(i, np), 0, 0);
		size_t plen = i + 1 < np ? PMTU : len - (np - 1) * PMTU;
		conv_start(c, &d, false, op, qa, *psn + i, plen);
		if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_AETH)) {
			roce_aeth_set_syndrome(conv_hdr(&d, ROCE_H_AETH), SYN_ACK);
			roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), *msn + 1);
		}
		conv_send(c, &d, 2, ROCE_OK, "READ response");
	}
	++*msn;
	*psn = (*psn + np) & 0xFFFFFF;
	return 1 + np;
}

/* A WRITE (or SEND) of len bytes on connection q, then one ACK. */
static unsigned long bulk_message(struct conv *c, uint32_t qa, uint32_t qb, uint32_t *psn, uint32_t *msn,
				  bool write, size_t len)
{
	struct roce_desc d;
	uint32_t np = (uint32_t)((len + PMTU - 1) / PMTU);
	for (uint32_t i = 0; i < np; i++) {
		bool last = i + 1 == np;
		uint8_t op = (uint8_t)roce_opcode_find(ROCE_T_RC, write ? ROCE_K_WRITE : ROCE_K_SEND,
						       roce_position_of(i, np), ROCE_OPF_IMM, 0);
		size_t plen = last ? len - (size_t)(np - 1) * PMTU : PMTU;
		conv_start(c, &d, true, op, qb, *psn + i, plen);
		if (roce_desc_xhdrs(&d) & ROCE_XHDR_BIT(ROCE_H_RETH))
			roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), (uint32_t)len);
		conv_send(c, &d, 2, ROCE_OK, "request");
	}
	*psn = (*psn + np) & 0xFFFFFF;
	conv_start(c, &d, false, ROCE_OP_RC_ACK, qa, (*psn - 1) & 0xFFFFFF, 0);
	roce_aeth_set_syndrome(conv_hdr(&d, ROCE_H_AETH), SYN_ACK);
	roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), ++*msn);
	conv_send(c, &d, 3, ROCE_OK, "ACK");
	return np + 1;
}

void sample_conv_bulk_shape(sample_emit_fn emit, void *ctx, unsigned long frames,
			    const struct sample_bulk_shape *shape)
{
	static struct conv c; /* large: keep it off the stack */
	conv_init(&c, emit, ctx, shape->ipv == 6 || shape->rocev1 ? 6 : 4);
	unsigned qps = shape->qps == 0 ? 1 : shape->qps > MAX_QPS ? MAX_QPS : shape->qps;
	static uint32_t psn[MAX_QPS], msn[MAX_QPS];
	for (unsigned q = 0; q < qps; q++) {
		psn[q] = (1000 * (q + 1)) & 0xFFFFFF;
		msn[q] = 0;
	}
	unsigned long sent = 0;
	for (unsigned long round = 0; sent < frames; round++) {
		unsigned q = (unsigned)(round % qps);
		uint32_t qa = SAMPLE_QP_A + q, qb = SAMPLE_QP_B + q;
		c.sport_a = (uint16_t)(0xC000 + q % 0x1000);
		c.sport_b = (uint16_t)(0xD000 + q % 0x1000);
		c.rocev1 = shape->rocev1 == 1 || (shape->rocev1 == 2 && q % 2 == 1);
		switch (shape->mix) {
		case SAMPLE_BULK_ACK_HEAVY: /* one-packet SENDs and WRITEs, each ACKed */
			sent += bulk_message(&c, qa, qb, &psn[q], &msn[q], round % 2 == 0, 16 + (round * 37) % 240);
			break;
		case SAMPLE_BULK_READ_HEAVY: /* READs of 1..16 packets, a few WRITEs */
			if (round % 8 == 7)
				sent += bulk_message(&c, qa, qb, &psn[q], &msn[q], true, 64 + (round * 977) % 2000);
			else
				sent += bulk_read(&c, qa, qb, &psn[q], &msn[q], 512 + (uint32_t)((round * 4099) % (16 * PMTU - 512)));
			break;
		case SAMPLE_BULK_MIX:
		default: /* WRITEs and SENDs of 1..4 packets, READs of 1..3 */
			if (round % 7 == 6)
				sent += bulk_read(&c, qa, qb, &psn[q], &msn[q], 512 + (uint32_t)(round % 2500));
			else
				sent += bulk_message(&c, qa, qb, &psn[q], &msn[q], round % 7 < 4,
						     64 + (round * 977) % (4 * PMTU - 64));
			break;
		}
	}
}

void sample_conv_bulk(sample_emit_fn emit, void *ctx, unsigned long frames, unsigned qps)
{
	struct sample_bulk_shape s = { qps, 4, SAMPLE_BULK_MIX, 0 };
	sample_conv_bulk_shape(emit, ctx, frames, &s);
}
