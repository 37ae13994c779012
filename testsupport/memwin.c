/*
 * Sample conversation: the rkey life cycle (notes §7.3). Host B owns memory
 * windows and a fast-registered region; host A reaches them through their
 * rkeys until a SEND with Invalidate from A, which B acknowledged, takes a
 * key away. What the flow analysis makes of each access (flow_rkey.c):
 * rejected as it must be; executed, so that the key stayed valid (B
 * refused the invalidation, right for a type 1 window or a region, or
 * ignored it, wrong for a type 2 window: the wire cannot tell), said once;
 * possibly crossed in flight; and valid again once B could have handed
 * out a new binding.
 */
#include "conv_build.h"

#define SYN_NAK_REMOTE_ACCESS roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS)
#define WINDOW_1 0x00ABCD02u /* a type 2 window bound on QP 0x000124 */
#define WINDOW_0 0x00ABCE02u /* a type 2 window bound on QP 0x000123 */
#define REGION 0x00C0FE03u   /* a fast-registered region, reachable from any QP */

/* Host B's QP 0x000123 + pair is host A's QP 0x000456 + pair's peer. */
static void use_pair(struct conv *c, int pair)
{
	c->qp_a = SAMPLE_QP_A + (uint32_t)pair;
	c->qp_b = SAMPLE_QP_B + (uint32_t)pair;
	c->sport_a = (uint16_t)(0xC0DE + pair);
	c->sport_b = (uint16_t)(0xD00D + pair);
}

static void write_through(struct conv *c, uint32_t psn, uint32_t rkey, enum roce_code expect, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_RC_WRITE_ONLY, c->qp_b, psn, 64);
	roce_reth_set_rkey(conv_hdr(&d, ROCE_H_RETH), rkey);
	conv_send(c, &d, 5, expect, what);
}

static void send_invalidate(struct conv *c, uint32_t psn, uint32_t rkey, const char *what)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_RC_SEND_ONLY_WITH_INV, c->qp_b, psn, 32);
	roce_ieth_set_rkey(conv_hdr(&d, ROCE_H_IETH), rkey);
	conv_send(c, &d, 5, ROCE_OK, what);
}

void sample_conv_mw(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	uint32_t msn[3] = { 0, 0, 0 };

	/* Conforming: after the invalidation, B rejects the access. */
	use_pair(&c, 1);
	write_through(&c, 200, WINDOW_1, ROCE_OK, "RDMA WRITE Only through window rkey 0x00abcd02");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 200, SYN_ACK, ++msn[1], 0, ROCE_OK, "ACK: the window's rkey is valid");
	send_invalidate(&c, 201, WINDOW_1, "SEND Only with Invalidate of rkey 0x00abcd02");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 201, SYN_ACK, ++msn[1], 0, ROCE_OK,
		 "ACK of the SEND with Invalidate: B invalidated the window");
	write_through(&c, 202, WINDOW_1, ROCE_F_RKEY_AFTER_INV,
		      "RDMA WRITE Only through rkey 0x00abcd02 again, after its invalidation was acknowledged");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 202, SYN_NAK_REMOTE_ACCESS, msn[1], 0, ROCE_OK,
		 "NAK Remote Access Error: B rejects it, as it must");

	/* B executes an access through the rkey after acknowledging its
	 * invalidation: the key stayed valid, refused or ignored. */
	use_pair(&c, 0);
	write_through(&c, 100, WINDOW_0, ROCE_OK, "RDMA WRITE Only through window rkey 0x00abce02");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 100, SYN_ACK, ++msn[0], 0, ROCE_OK, "ACK: the window's rkey is valid");
	send_invalidate(&c, 101, WINDOW_0, "SEND Only with Invalidate of rkey 0x00abce02");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 101, SYN_ACK, ++msn[0], 0, ROCE_OK,
		 "ACK of the SEND with Invalidate: B invalidated the window");
	write_through(&c, 102, WINDOW_0, ROCE_F_RKEY_AFTER_INV,
		      "RDMA WRITE Only through rkey 0x00abce02 again, after its invalidation was acknowledged");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 102, SYN_ACK, ++msn[0], 0, ROCE_F_RKEY_INV_EXECUTED,
		 "ACK: B executed the WRITE, so the key stayed valid (refused, or ignored)");
	/* A key shown to have stayed valid is not judged again: one finding
	 * for one refusal. */
	write_through(&c, 103, WINDOW_0, ROCE_OK,
		      "RDMA WRITE Only through rkey 0x00abce02 once more: it stayed valid after its invalidation");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 103, SYN_ACK, ++msn[0], 0, ROCE_OK, "ACK: no second finding");

	/* A request on another QP that passed the capture point before the
	 * invalidation's ACK may have crossed it in flight. */
	send_invalidate(&c, 104, REGION, "SEND Only with Invalidate of region rkey 0x00c0fe03");
	use_pair(&c, 2);
	write_through(&c, 300, REGION, ROCE_F_RKEY_CROSSED_INV,
		      "RDMA WRITE Only through rkey 0x00c0fe03 on QP 0x000125, before the invalidation is acknowledged");
	use_pair(&c, 0);
	conv_ack(&c, true, ROCE_OP_RC_ACK, 104, SYN_ACK, ++msn[0], 0, ROCE_OK,
		 "ACK of the SEND with Invalidate: B invalidated the region's rkey");
	use_pair(&c, 2);
	conv_ack(&c, true, ROCE_OP_RC_ACK, 300, SYN_ACK, ++msn[2], 0, ROCE_F_RKEY_INV_EXECUTED_SEEN,
		 "ACK of that WRITE, after the invalidation's: it may have reached B first, or B refused the invalidation");

	/* B sends a message: it may carry a new binding of the same key,
	 * which the capture cannot show; the key is taken as valid again. */
	use_pair(&c, 0);
	conv_req(&c, false, ROCE_OP_RC_SEND_ONLY, 5000, 32, ROCE_OK,
		 "SEND Only from B: may hand out a new binding of rkey 0x00c0fe03");
	conv_ack(&c, false, ROCE_OP_RC_ACK, 5000, SYN_ACK, 1, 0, ROCE_OK, "ACK from A");
	use_pair(&c, 2);
	write_through(&c, 301, REGION, ROCE_OK, "RDMA WRITE Only through rkey 0x00c0fe03, after B's message");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 301, SYN_ACK, ++msn[2], 0, ROCE_OK, "ACK");
}
