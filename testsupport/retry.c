/*
 * Sample conversation: an RC requester retrying from inside multi-packet
 * messages (IBA9.7-RETX-SAME, lib/src/flow_retx.c). Two healthy retries
 * first: a go-back-N from a NAK PSN Sequence Error that names a middle
 * PSN, and a local ACK timeout after a partial ACK; each resend repeats
 * the packet it resends. Then what Linux rxe was seen doing: after a
 * timeout a resent PSN changed from SEND First to SEND Only, the rest of
 * the message shifted one PSN on, and the responder, which had it all and
 * discarded the duplicates, answered the first new PSN (a Last with no
 * message open) with NAK Invalid Request. The analysis names the changed
 * resends; the Last follows them, so it is not counted again as a
 * message out of order.
 */
#include "conv_build.h"

#define SYN_NAK_INVALID roce_syndrome_nak(ROCE_NAK_INVALID_REQUEST)
#define TIMEOUT_US 67109 /* the local ACK timeout of timeout=14: 4.096 us x 2^14 */

/* SEND of 4 packets (PMTU 1024; the last of 928 bytes) from psn. */
static void send_4(struct conv *c, uint32_t psn, const char *what)
{
	static const uint8_t op[4] = { ROCE_OP_RC_SEND_FIRST, ROCE_OP_RC_SEND_MIDDLE, ROCE_OP_RC_SEND_MIDDLE,
				       ROCE_OP_RC_SEND_LAST };
	static const char *const part[4] = { "First", "Middle", "Middle", "Last" };
	char text[160];
	for (uint32_t i = 0; i < 4; i++) {
		snprintf(text, sizeof text, "SEND %s, packet %u of %s", part[i], i + 1, what);
		conv_req(c, true, op[i], psn + i, i == 3 ? 928 : 1024, ROCE_OK, text);
	}
}

void sample_conv_retry(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 4);
	conv_cm_connect(&c, 100, 9000);
	uint32_t msn = 0;

	/* The third packet lost before the capture point: a NAK names it. */
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 100, 1024, ROCE_OK, "SEND First, packet 1 of a 4-packet SEND");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 101, 1024, ROCE_OK, "SEND Middle, packet 2");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 103, 928, ROCE_F_PSN_GAP,
		 "SEND Last, packet 4: packet 3 (PSN 102) was lost before the capture point");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 102, SYN_NAK_SEQ, msn, 0, ROCE_F_SEQ_NAK_EXPLAINED,
		 "NAK PSN Sequence Error for PSN 102, the message's third packet");
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 102, 1024, ROCE_F_GBN_RETRANSMISSION,
		 "go-back-N from the NAK's PSN: SEND Middle, as packet 3 was first sent");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 103, 928, ROCE_F_GBN_RETRANSMISSION,
		 "SEND Last resent as first sent (928 bytes)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 103, SYN_ACK, ++msn, 0, ROCE_OK, "ACK of the whole message");

	/* An ACK for the first two packets; the rest lost after the capture
	 * point: the timeout resends from the oldest unacknowledged PSN. */
	send_4(&c, 104, "a second 4-packet SEND");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 105, SYN_ACK, msn, 0, ROCE_OK,
		 "ACK for PSN 105: the first two packets; PSNs 106 and 107 were lost after the capture point");
	c.t_us += TIMEOUT_US;
	conv_req(&c, true, ROCE_OP_RC_SEND_MIDDLE, 106, 1024, ROCE_F_RETRANSMISSION,
		 "local ACK timeout: SEND Middle resent at PSN 106, as first sent");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 107, 928, ROCE_F_RETRANSMISSION, "SEND Last resent as first sent");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 107, SYN_ACK, ++msn, 0, ROCE_OK, "ACK of the second message");

	/* The retry that changes what it resends. */
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 108, 64, ROCE_OK, "SEND Only (64 bytes)");
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 109, 1024, ROCE_OK, "SEND First of a 2-packet SEND");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 110, 500, ROCE_OK, "SEND Last (500 bytes)");
	msn += 2;
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_ACK, msn, 0, ROCE_OK,
		 "ACK for PSN 110, lost after the capture point: the requester never sees it");
	c.t_us += TIMEOUT_US;
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 108, 64, ROCE_F_RETRANSMISSION,
		 "local ACK timeout: SEND Only resent as first sent");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_ACK, msn, 0, ROCE_F_DUP_ACK,
		 "the duplicate acknowledged again, not executed (C9-105)");
	conv_req(&c, true, ROCE_OP_RC_SEND_ONLY, 109, 0, ROCE_F_RETX_OPCODE,
		 "PSN 109 resent as a SEND Only of 0 bytes: first sent as the SEND First of frame 20 (1024 bytes)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_ACK, msn, 0, ROCE_F_DUP_ACK,
		 "a duplicate to the responder, which has PSN 109: acknowledged again, not read");
	conv_req(&c, true, ROCE_OP_RC_SEND_FIRST, 110, 1024, ROCE_F_RETX_OPCODE,
		 "PSN 110 resent as a SEND First: the message restarted one PSN on (first sent as a Last of 500 bytes)");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 110, SYN_ACK, msn, 0, ROCE_F_DUP_ACK, "acknowledged again");
	conv_req(&c, true, ROCE_OP_RC_SEND_LAST, 111, 500, ROCE_OK,
		 "PSN 111, new: the shifted message's Last, in order after the resent First (the change is named where it "
		 "was made, frames 25 and 27); the responder has no message open");
	conv_ack(&c, true, ROCE_OP_RC_ACK, 111, SYN_NAK_INVALID, msn, 0, ROCE_OK,
		 "NAK Invalid Request: a Last with no message open (IBA9.7-OPSEQ), the later symptom");
}
