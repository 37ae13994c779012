/*
 * Sample conversations over RoCE v1 (IBA Annex A16), as a dual-mode port
 * (A17.8) carries them: an RC connection between the GIDs of 2001:db8::1
 * (QP 0x000456) and 2001:db8::2 (QP 0x000123), alone; and the same
 * interleaved packet by packet with a RoCEv2 connection between the same
 * addresses and QP numbers, which the analysis must keep apart (a RoCE v1
 * QP is another QP), followed by wrong ICRCs, one per known mistake that
 * applies, over both versions.
 */
#include <string.h>

#include "conv_build.h"

#define UD_QP 0x000789 /* the datagram QP the wrong ICRCs go to */

/* Packet `step` of an RC exchange from A's PSN base: a SEND, an RDMA WRITE,
 * a READ answered in 3 responses, then an RNR NAK and the SEND's retry
 * (the caller waits RNR_WAIT_US before step RNR_RETRY). Returns false after
 * the last one. */
#define RNR_RETRY 10
#define RNR_WAIT_US 1500
static bool rc_step(struct conv *c, unsigned step, uint32_t base, const char *ver)
{
	char what[160];
	switch (step) {
	case 0:
		snprintf(what, sizeof what, "%s SEND Only", ver);
		conv_req(c, true, ROCE_OP_RC_SEND_ONLY, base, 64, ROCE_OK, what);
		return true;
	case 1:
		snprintf(what, sizeof what, "%s ACK", ver);
		conv_ack(c, true, ROCE_OP_RC_ACK, base, SYN_ACK, 1, 0, ROCE_OK, what);
		return true;
	case 2:
		snprintf(what, sizeof what, "%s RDMA WRITE Only of 256 bytes", ver);
		conv_req(c, true, ROCE_OP_RC_WRITE_ONLY, base + 1, 256, ROCE_OK, what);
		return true;
	case 3:
		snprintf(what, sizeof what, "%s ACK", ver);
		conv_ack(c, true, ROCE_OP_RC_ACK, base + 1, SYN_ACK, 2, 0, ROCE_OK, what);
		return true;
	case 4:
		snprintf(what, sizeof what, "%s RDMA READ Request of 2500 bytes", ver);
		conv_read_req(c, base + 2, 2500, ROCE_OK, what);
		return true;
	case 5:
		snprintf(what, sizeof what, "%s READ Response First (1/3)", ver);
		conv_ack(c, true, ROCE_OP_RC_READ_RESPONSE_FIRST, base + 2, SYN_ACK, 3, PMTU, ROCE_OK, what);
		return true;
	case 6:
		snprintf(what, sizeof what, "%s READ Response Middle (2/3)", ver);
		conv_ack(c, true, ROCE_OP_RC_READ_RESPONSE_MIDDLE, base + 3, SYN_ACK, 3, PMTU, ROCE_OK, what);
		return true;
	case 7:
		snprintf(what, sizeof what, "%s READ Response Last (3/3)", ver);
		conv_ack(c, true, ROCE_OP_RC_READ_RESPONSE_LAST, base + 4, SYN_ACK, 3, 452, ROCE_OK, what);
		return true;
	case 8:
		snprintf(what, sizeof what, "%s SEND Only", ver);
		conv_req(c, true, ROCE_OP_RC_SEND_ONLY, base + 5, 64, ROCE_OK, what);
		return true;
	case 9:
		snprintf(what, sizeof what, "%s RNR NAK, 1.28 ms: no receive WQE posted", ver);
		conv_ack(c, true, ROCE_OP_RC_ACK, base + 5, SYN_RNR_1_28_MS, 3, 0, ROCE_F_RNR_EXPLAINED, what);
		return true;
	case RNR_RETRY:
		snprintf(what, sizeof what, "%s SEND Only retried 1.5 ms after the RNR NAK", ver);
		conv_req(c, true, ROCE_OP_RC_SEND_ONLY, base + 5, 64, ROCE_F_RETRANSMISSION, what);
		return true;
	case 11:
		snprintf(what, sizeof what, "%s ACK", ver);
		conv_ack(c, true, ROCE_OP_RC_ACK, base + 5, SYN_ACK, 4, 0, ROCE_OK, what);
		return true;
	default:
		return false;
	}
}

void sample_conv_rocev1(sample_emit_fn emit, void *ctx)
{
	struct conv c;
	conv_init(&c, emit, ctx, 6);
	c.rocev1 = true;
	for (unsigned step = 0;; step++) {
		if (step == RNR_RETRY)
			c.t_us += RNR_WAIT_US;
		if (!rc_step(&c, step, 100, "RoCE v1"))
			break;
	}
}

/* A UD SEND Only (pad 3, BECN set) from A whose ICRC is made with mistake
 * m (ROCE_ICRC_MISTAKE_NONE: corrupted, no mistake explains it); false when
 * the mistake does not apply to the version. */
static bool wrong_icrc(struct conv *c, enum roce_icrc_mistake m)
{
	struct roce_desc d;
	conv_start(c, &d, true, ROCE_OP_UD_SEND_ONLY, UD_QP, 7, 5);
	roce_bth_set_becn(d.bth, 1);
	if (c->rocev1)
		sample_to_rocev1(&d);
	else
		roce_udp_set_csum(d.udp, 0x1234);
	uint8_t frame[SAMPLE_FRAME_MAX];
	long n = roce_build_frame(&d, frame, sizeof frame);
	if (n <= 0)
		return false;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1);
	uint32_t v = 0x0BADC0DE;
	if (m != ROCE_ICRC_MISTAKE_NONE && roce_icrc_mistaken(&p, m, &v) != 0)
		return false;
	roce_le32_store(frame + p.icrc_off, v);
	char what[200];
	snprintf(what, sizeof what, "%s UD SEND Only, ICRC: %s", c->rocev1 ? "RoCE v1" : "RoCEv2 (IPv6)",
		 m == ROCE_ICRC_MISTAKE_NONE ? "corrupted, no known mistake" : roce_icrc_mistake_text(m));
	c->t_us += 5;
	c->emit(c->ctx, frame, (size_t)n, c->t_us, c->rocev1 ? ROCE_C_ICRC_V1 : ROCE_C_ICRC, what);
	return true;
}

void sample_conv_rocev1_mixed(sample_emit_fn emit, void *ctx)
{
	struct conv v1, v2;
	conv_init(&v1, emit, ctx, 6);
	conv_init(&v2, emit, ctx, 6);
	v1.rocev1 = true;
	/* The same QPs between the same addresses, packet for packet, on a
	 * clock they share: v1 from PSN 100, v2 from PSN 5000. */
	for (unsigned step = 0;; step++) {
		v1.t_us = v2.t_us + (step == RNR_RETRY ? RNR_WAIT_US : 0);
		if (!rc_step(&v1, step, 100, "RoCE v1"))
			break;
		v2.t_us = v1.t_us;
		rc_step(&v2, step, 5000, "RoCEv2");
	}
	for (int m = ROCE_ICRC_MISTAKE_NONE; m < ROCE_ICRC_MISTAKE_COUNT; m++) {
		v1.t_us = v2.t_us;
		wrong_icrc(&v1, (enum roce_icrc_mistake)m);
		v2.t_us = v1.t_us;
		wrong_icrc(&v2, (enum roce_icrc_mistake)m);
	}
}
