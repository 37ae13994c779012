/*
 * Sample conversation: XRC (notes §7.4). Host A's initiator QP 0x000201
 * sends to host B's target QP 0x000200, whose requests name two XRC SRQs
 * of B's domain (0x000077 and 0x000078) in their XRCETH; B answers to the
 * initiator without an XRCETH, as XRC responses are.
 */
#include "conv_build.h"

#define TARGET_QP 0x000200
#define INITIATOR_QP 0x000201

static void xrc_req(struct conv *c, uint8_t opcode, uint32_t psn, size_t plen, uint32_t srqn, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, opcode, TARGET_QP, psn, plen);
	roce_xrceth_set_srqn(conv_hdr(&d, ROCE_H_XRCETH), srqn);
	if (opcode == ROCE_OP_XRC_READ_REQUEST)
		roce_reth_set_dmalen(conv_hdr(&d, ROCE_H_RETH), 600);
	conv_send(c, &d, 5, ROCE_OK, what);
}

static void xrc_resp(struct conv *c, uint8_t opcode, uint32_t psn, size_t plen, uint32_t msn, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, false, opcode, INITIATOR_QP, psn, plen);
	roce_aeth_set_msn(conv_hdr(&d, ROCE_H_AETH), msn);
	conv_send(c, &d, 8, ROCE_OK, what);
}

void sample_conv_xrc_srqs(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	xrc_req(&c, ROCE_OP_XRC_SEND_ONLY, 10, 48, 0x000077, "XRC SEND Only to SRQ 0x000077");
	xrc_resp(&c, ROCE_OP_XRC_ACK, 10, 0, 1, "XRC ACK, without XRCETH");
	xrc_req(&c, ROCE_OP_XRC_WRITE_ONLY, 11, 64, 0x000078, "XRC RDMA WRITE Only naming SRQ 0x000078");
	xrc_resp(&c, ROCE_OP_XRC_ACK, 11, 0, 1, "XRC ACK, without XRCETH");
	xrc_req(&c, ROCE_OP_XRC_READ_REQUEST, 12, 0, 0x000078, "XRC RDMA READ Request of 600 bytes naming SRQ 0x000078");
	xrc_resp(&c, ROCE_OP_XRC_READ_RESPONSE_ONLY, 12, 600, 1, "XRC READ Response Only, without XRCETH");
	xrc_req(&c, ROCE_OP_XRC_SEND_ONLY, 13, 48, 0x000078, "XRC SEND Only to SRQ 0x000078");
	xrc_resp(&c, ROCE_OP_XRC_ACK, 13, 0, 2, "XRC ACK, without XRCETH");
}
