/*
 * A congested RC flow (conversations.h): CE marks set on the way, the
 * CNPs that answer them, and the sender slowing down, with round numbers
 * so that every congestion field has an answer worked out by hand.
 */
#include "conv_build.h"

/* An RDMA WRITE Only of 1000 bytes from A, gap_us after the previous packet. */
static void write_1000(struct conv *c, uint32_t psn, uint64_t gap_us, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_RC_WRITE_ONLY, c->qp_b, psn, 1000);
	conv_send(c, &d, gap_us, ROCE_OK, what);
}

static void cnp_to_a(struct conv *c, uint64_t gap_us, enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, false, ROCE_OP_CNP, c->qp_a, 0, 0);
	roce_bth_set_becn(d.bth, 1);
	conv_send(c, &d, gap_us, expect, what);
}

void sample_conv_congestion(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	conv_cm_connect(&c, 3000, 8000);
	/* ECN-capable transport (ECT(0)) both ways. */
	c.ecn_a = c.ecn_b = 2;
	/* 10 WRITEs of 1000 bytes 10 us apart (1078-byte frames, 862.4 Mb/s);
	 * the last 4 marked CE by a switch before the capture point. */
	for (uint32_t i = 0; i < 10; i++) {
		c.ecn_a = i >= 6 ? 3 : 2;
		write_1000(&c, 3000 + i, 10, i >= 6 ? "RDMA WRITE Only, marked CE on the way" : "RDMA WRITE Only");
	}
	c.ecn_a = 2;
	/* The notification point answers the marks with a CNP to QP A. */
	cnp_to_a(&c, 10, ROCE_OK, "CNP for the 4 CE marks, 10 us after the last");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3009, SYN_ACK, 10, 0, ROCE_OK, "ACK of the 10 WRITEs");
	/* The reaction point slows to one WRITE per 100 us. */
	for (uint32_t i = 10; i < 15; i++)
		write_1000(&c, 3000 + i, 100, "RDMA WRITE Only, slower");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3014, SYN_ACK, 15, 0, ROCE_OK, "ACK of the 5 slower WRITEs");
	/* A second CNP, with no CE mark in the capture since the first: the
	 * mark was set after the capture point. */
	cnp_to_a(&c, 40, ROCE_F_CNP_NO_CE, "CNP with no CE mark seen since the first");
	for (uint32_t i = 15; i < 17; i++)
		write_1000(&c, 3000 + i, 200, "RDMA WRITE Only, slower still");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 3016, SYN_ACK, 17, 0, ROCE_OK, "ACK");
	conv_cm_disconnect(&c);
}
