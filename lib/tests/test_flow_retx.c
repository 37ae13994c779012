/*
 * Retransmissions against the first transmission of their PSN
 * (IBA9.7-RETX-SAME, lib/src/flow_retx.c): healthy retries from inside a
 * message raise nothing; a resend that changed its opcode, payload length
 * or extension headers is named at that packet, with the frame of the
 * first transmission; a first transmission lost before the capture point
 * leaves the first copy seen to compare with; the memory stays bounded.
 */
#include <string.h>

#include "flow_harness.h"

static const struct pkt_opts nak_seq = { .syndrome = 0x60 }; /* NAK PSN Sequence Error */
static const struct pkt_opts nak_invalid = { .syndrome = 0x61 }; /* NAK Invalid Request */

static const struct roce_finding *finding(const struct roce_flow_result *r, enum roce_code code)
{
	for (unsigned i = 0; i < r->n_findings; i++)
		if (r->findings[i].code == code)
			return &r->findings[i];
	return NULL;
}

static bool changed(const struct roce_flow_result *r)
{
	return has(r, ROCE_F_RETX_OPCODE) || has(r, ROCE_F_RETX_LEN) || has(r, ROCE_F_RETX_XHDR);
}

/* SEND of 4 packets from psn at PMTU 1024, the last of 928 bytes. */
static void send_4(struct conv *c, uint32_t psn)
{
	static const uint8_t op[4] = { ROCE_OP_RC_SEND_FIRST, ROCE_OP_RC_SEND_MIDDLE, ROCE_OP_RC_SEND_MIDDLE,
				       ROCE_OP_RC_SEND_LAST };
	for (uint32_t i = 0; i < 4; i++) {
		struct roce_flow_result r = feed(c, op[i], psn + i, i == 3 ? 928 : 1024, NULL);
		CHECK(!serious(&r), "SEND packet %u in order", i + 1);
	}
}

/* Go-back-N from a NAK that names a middle PSN, and a timeout after a
 * partial ACK: the resends repeat the Middle and Last they were. */
static void healthy_retries(void)
{
	struct conv c;
	harness_init(&c, 1024);
	send_4(&c, 10);
	feed(&c, ROCE_OP_RC_ACK, 12, 0, &nak_seq);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 12, 1024, NULL);
	CHECK(has(&r, ROCE_F_GBN_RETRANSMISSION) && !serious(&r), "go-back-N resends the Middle at the NAK's PSN");
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 13, 928, NULL);
	CHECK(r.cls == ROCE_FLOW_RETRANSMISSION && !serious(&r), "then the Last");
	feed(&c, ROCE_OP_RC_ACK, 13, 0, NULL);

	/* A timeout after the first two were acknowledged: from PSN +2. */
	send_4(&c, 14);
	feed(&c, ROCE_OP_RC_ACK, 15, 0, NULL);
	struct pkt_opts later = { .gap_ns = 67000000 };
	r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 16, 1024, &later);
	CHECK(has(&r, ROCE_F_RETRANSMISSION) && !serious(&r), "the timeout resends the Middle");
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 17, 928, NULL);
	CHECK(!serious(&r), "and the Last");

	/* A second timeout: each resend again as first sent. */
	r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 16, 1024, &later);
	CHECK(!serious(&r) && r.retransmit_of == 14, "second resend of PSN 16 (earlier copy frame %u)", r.retransmit_of);
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 17, 928, NULL);
	CHECK(!serious(&r), "second resend of the Last");

	/* The network's byte-identical copy. */
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 17, 928, &(struct pkt_opts){ .copy_of = c.frame });
	CHECK((r.flags & ROCE_FLOW_F(DUPLICATE)) && !changed(&r), "a duplicate is the same packet");
	harness_free(&c);
}

/* What Linux rxe was seen doing: PSN 30, sent as SEND First, resent as
 * SEND Only; the responder later answers NAK Invalid Request. */
static void first_resent_as_only(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 29, 64, NULL);
	feed(&c, ROCE_OP_RC_SEND_FIRST, 30, 1024, NULL); /* frame 2 */
	feed(&c, ROCE_OP_RC_SEND_LAST, 31, 200, NULL);
	feed(&c, ROCE_OP_RC_ACK, 29, 0, NULL);
	struct pkt_opts later = { .gap_ns = 67000000 };
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 30, 0, &later); /* frame 5 */
	const struct roce_finding *f = finding(&r, ROCE_F_RETX_OPCODE);
	CHECK(f && f->observed == 2 && f->expected == ROCE_OP_RC_SEND_FIRST,
	      "the changed opcode named at the resend, with the first transmission (frame %llu, opcode 0x%02llx)",
	      f ? (unsigned long long)f->observed : 0ull, f ? (unsigned long long)f->expected : 0ull);
	CHECK(f && f->off == 42 && f->len == 1, "the BTH's opcode byte highlighted (%u+%u)", f ? f->off : 0,
	      f ? f->len : 0);
	f = finding(&r, ROCE_F_RETX_LEN);
	CHECK(f && f->observed == 2 && f->expected == 1024, "and its payload length (first: %llu bytes)",
	      f ? (unsigned long long)f->expected : 0ull);
	CHECK(!has(&r, ROCE_F_RETX_XHDR), "headers not compared across opcodes");
	CHECK(errors(&r) == 0 && roce_code_info(ROCE_F_RETX_OPCODE)->severity == ROCE_SEV_WARN,
	      "a should: a warning, not an error");
	char msg[300];
	roce_finding_format(finding(&r, ROCE_F_RETX_OPCODE), msg, sizeof msg);
	CHECK(strstr(msg, "frame 2") && strstr(msg, "0x00"), "the message names the frame and opcode: %s", msg);
	/* The next resend goes on as the changed one did: still compared
	 * with the first transmission, not with the changed copy. */
	r = feed(&c, ROCE_OP_RC_SEND_FIRST, 31, 1024, NULL);
	CHECK(has(&r, ROCE_F_RETX_OPCODE) && finding(&r, ROCE_F_RETX_OPCODE)->observed == 3,
	      "PSN 31, a Last first, resent as a First");
	/* The first new PSN follows the resends, not the first
	 * transmissions: the change is counted once, where it was made. */
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 32, 200, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "the shifted message's Last, after the resent First: %u findings",
	      r.n_findings);
	r = feed(&c, ROCE_OP_RC_ACK, 32, 0, &nak_invalid);
	CHECK(r.cls == ROCE_FLOW_RESPONSE, "the responder's NAK Invalid Request");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 30, 0, &later);
	CHECK(finding(&r, ROCE_F_RETX_OPCODE) && finding(&r, ROCE_F_RETX_OPCODE)->observed == 2,
	      "a later copy of the changed resend is compared with the first transmission too");
	harness_free(&c);
}

/* A restart at a middle PSN (what the soft DUT's retry-restarts-message
 * does), a changed length alone, changed headers alone. */
static void middle_resent_as_first(void)
{
	struct conv c;
	harness_init(&c, 1024);
	send_4(&c, 100);
	feed(&c, ROCE_OP_RC_ACK, 102, 0, &nak_seq);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_FIRST, 102, 1024, NULL);
	const struct roce_finding *f = finding(&r, ROCE_F_RETX_OPCODE);
	CHECK(f && f->observed == 3 && f->expected == ROCE_OP_RC_SEND_MIDDLE, "Middle resent as a First");
	CHECK(!has(&r, ROCE_F_RETX_LEN) && has(&r, ROCE_F_GBN_RETRANSMISSION), "same length; still the go-back's resend");
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 103, 900, NULL);
	f = finding(&r, ROCE_F_RETX_LEN);
	CHECK(f && f->observed == 4 && f->expected == 928 && !has(&r, ROCE_F_RETX_OPCODE),
	      "a Last resent 28 bytes short: the length alone");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 104, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "a new message after the resent Last");
	feed(&c, ROCE_OP_RC_SEND_FIRST, 105, 1024, NULL);
	feed(&c, ROCE_OP_RC_SEND_LAST, 106, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 105, 8, &(struct pkt_opts){ .gap_ns = 67000000 });
	CHECK(has(&r, ROCE_F_RETX_OPCODE), "a First resent as an Only");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 107, 8, NULL);
	CHECK(!r.n_findings, "not the newest PSN: new ones are still judged after the Last first sent at 106");
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 108, 8, NULL);
	CHECK(has(&r, ROCE_F_OPSEQ_CONTINUE), "and message order is still judged");
	harness_free(&c);

	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_WRITE_FIRST, 200, 1024, &(struct pkt_opts){ .rkey = 0x1234 });
	feed(&c, ROCE_OP_RC_WRITE_LAST, 201, 16, NULL);
	r = feed(&c, ROCE_OP_RC_WRITE_FIRST, 200, 1024, &(struct pkt_opts){ .rkey = 0x1234, .gap_ns = 67000000 });
	CHECK(!changed(&r) && r.cls == ROCE_FLOW_RETRANSMISSION, "a WRITE First resent with its RETH");
	r = feed(&c, ROCE_OP_RC_WRITE_FIRST, 200, 1024, &(struct pkt_opts){ .rkey = 0x5678, .gap_ns = 67000000 });
	f = finding(&r, ROCE_F_RETX_XHDR);
	CHECK(f && f->observed == 1 && f->off == 54 && f->len == ROCE_RETH_LEN && !has(&r, ROCE_F_RETX_OPCODE),
	      "a WRITE First resent with another rkey: its RETH named (%u+%u)", f ? f->off : 0, f ? f->len : 0);
	harness_free(&c);
}

/* The first transmission lost before the capture point: the first copy
 * seen is what later ones are compared with; a PSN seen once has nothing
 * to compare. READs asked again from inside their range use PSNs no
 * request used. */
static void capture_point(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_FIRST, 300, 1024, NULL);
	feed(&c, ROCE_OP_RC_SEND_LAST, 302, 100, NULL); /* 301 lost before the capture point */
	feed(&c, ROCE_OP_RC_ACK, 301, 0, &nak_seq);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 301, 8, NULL);
	CHECK(!changed(&r), "a resend whose first transmission was never seen: nothing to compare");
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 302, 100, NULL);
	CHECK(!changed(&r), "the next resend as first sent");
	r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 301, 1024, &(struct pkt_opts){ .gap_ns = 67000000 });
	CHECK(has(&r, ROCE_F_RETX_OPCODE) && finding(&r, ROCE_F_RETX_OPCODE)->observed == 4,
	      "a later copy differs from the first one seen (frame 4)");
	harness_free(&c);

	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_READ_REQUEST, 400, 0, &(struct pkt_opts){ .dmalen = 4096 });
	feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, 400, 1024, NULL);
	r = feed(&c, ROCE_OP_RC_READ_REQUEST, 401, 0, &(struct pkt_opts){ .dmalen = 3072, .gap_ns = 67000000 });
	CHECK(!changed(&r), "a READ asked again from inside its range: a PSN no request used");
	r = feed(&c, ROCE_OP_RC_READ_REQUEST, 400, 0, &(struct pkt_opts){ .dmalen = 4096, .gap_ns = 67000000 });
	CHECK(!changed(&r) && r.cls == ROCE_FLOW_RETRANSMISSION, "the whole READ again, as first sent");
	harness_free(&c);

	/* A UC SEND to the RC QP at a PSN the QP used (a tester checking
	 * that the QP drops another transport's packets) resends nothing. */
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_UC_SEND_ONLY, 500, 16, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 500, 8, NULL);
	CHECK(!changed(&r), "an RC SEND after a UC SEND of the same PSN: another transport, not compared");
	harness_free(&c);
}

/* Many messages later, an old PSN's first transmission has left the
 * window with the history of PSNs: nothing is compared, and the memory
 * stays that of the window. */
static void bounded(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_FIRST, 1000, 1024, NULL);
	feed(&c, ROCE_OP_RC_SEND_LAST, 1001, 8, NULL);
	feed(&c, ROCE_OP_RC_ACK, 1001, 0, NULL);
	for (uint32_t psn = 1002; psn < 1002 + 4 * ROCE_FLOW_HISTORY; psn++) {
		feed(&c, ROCE_OP_RC_SEND_ONLY, psn, 8, NULL);
		feed(&c, ROCE_OP_RC_ACK, psn, 0, NULL);
	}
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 1000, 8, NULL);
	CHECK(!changed(&r), "a PSN out of the window: its first transmission forgotten, nothing compared");
	if (rings_unkeyed)
		CHECK(c.ring_bytes <= 16 * 1024, "the rings of a direction that sent and answered take %zu bytes",
		      c.ring_bytes);
	harness_free(&c);
}

void retx_checks(int *checks, int *failures)
{
	*checks = test_checks;
	*failures = test_failures;
}

void retransmissions_changed(void)
{
	healthy_retries();
	first_resent_as_only();
	middle_resent_as_first();
	capture_point();
	bounded();
}
