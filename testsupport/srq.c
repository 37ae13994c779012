/*
 * Sample conversation: an RNR NAK from a responder whose QPs take their
 * receive WQEs from one shared receive queue (notes §7.2). On the wire it
 * is the RNR NAK of any RC responder; the capture shows that the analysis
 * explains it the same way.
 */
#include "conv_build.h"

/* Host B's QPs 0x000123 and 0x000124 share an SRQ; host A's QPs 0x000456
 * and 0x000457 are their peers, each from its own UDP source port. */
static void use_pair(struct conv *c, int pair)
{
	c->qp_a = SAMPLE_QP_A + (uint32_t)pair;
	c->qp_b = SAMPLE_QP_B + (uint32_t)pair;
	c->sport_a = (uint16_t)(0xC0DE + pair);
	c->sport_b = (uint16_t)(0xD00D + pair);
}

void sample_conv_srq_rnr(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	uint32_t msn[2] = { 0, 0 };

	use_pair(&c, 0);
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2000, 64, ROCE_OK,
		 "SEND Only to QP 0x000123: takes the last receive WQE of the SRQ it shares with QP 0x000124");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2000, SYN_ACK, ++msn[0], 0, ROCE_OK, "ACK from QP 0x000123");

	use_pair(&c, 1);
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 7000, 64, ROCE_OK,
		 "SEND Only to QP 0x000124, whose SRQ is now empty");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 7000, SYN_RNR_1_28_MS, msn[1], 0, ROCE_F_RNR_EXPLAINED,
		 "RNR NAK, 1.28 ms, from QP 0x000124: no receive WQE left in the shared receive queue");
	c.t_us += 1500;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 7000, 64, ROCE_F_RETRANSMISSION,
		 "SEND Only retried 1.5 ms after the RNR NAK; receive WQEs were posted to the SRQ meanwhile");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 7000, SYN_ACK, ++msn[1], 0, ROCE_OK, "ACK from QP 0x000124");

	/* The other QP takes the next WQE of the same pool. */
	use_pair(&c, 0);
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 2001, 64, ROCE_OK, "SEND Only to QP 0x000123, from the refilled SRQ");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 2001, SYN_ACK, ++msn[0], 0, ROCE_OK, "ACK from QP 0x000123");
}
