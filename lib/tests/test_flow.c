/*
 * The per-QP flow analysis, scenario by scenario: each feeds a short
 * conversation between host A (198.18.0.1, QP 0x000456) and host B
 * (198.18.0.2, QP 0x000123) and checks every packet's class, links and
 * findings. Every flow code is raised by some scenario, and conforming
 * conversations raise nothing at warning level or above.
 */
#include <stdlib.h>
#include <string.h>

#include "flow_harness.h"

static void in_order_and_acks(void)
{
	struct conv c;
	harness_init(&c, 0);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_FIRST, 10, 256, NULL);
	CHECK(r.cls == ROCE_FLOW_FIRST, "first packet class %d", r.cls);
	r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 11, 256, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "middle: class %d, %u findings", r.cls, r.n_findings);
	CHECK(r.pmtu == 256, "PMTU learnt from First/Middle: %u", r.pmtu);
	r = feed(&c, ROCE_OP_RC_SEND_LAST, 12, 100, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "last");
	r = feed(&c, ROCE_OP_RC_ACK, 12, 0, NULL);
	CHECK(r.cls == ROCE_FLOW_RESPONSE && r.request_frame == 3, "ACK answers frame %u", r.request_frame);
	CHECK(r.response_ns == 10000, "response time %llu", (unsigned long long)r.response_ns);
	CHECK(r.src_qpn == QP_B, "ACK sent by QP 0x%x", r.src_qpn);
	CHECK(c.n_answered == 3 && c.answered_resp[0] == 4, "coalesced ACK answers all three (%u)", c.n_answered);
	r = feed(&c, ROCE_OP_RC_ACK, 12, 0, NULL);
	CHECK(has(&r, ROCE_F_DUP_ACK) && !serious(&r), "duplicate ACK is informative");
	r = feed(&c, ROCE_OP_RC_WRITE_ONLY, 13, 40, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "write after send");
	harness_free(&c);
}

static void gaps_retransmissions_reorder(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 100, 8, NULL);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 103, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_GAP && has(&r, ROCE_F_PSN_GAP) && r.expected_psn == 101, "gap");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 101, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_OUT_OF_ORDER && has(&r, ROCE_F_OUT_OF_ORDER), "late packet");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 103, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_RETRANSMISSION && has(&r, ROCE_F_RETRANSMISSION) && r.retransmit_of == 2,
	      "retransmission of frame %u", r.retransmit_of);
	CHECK(!serious(&r), "a retransmission is a note");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 104, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "back in order");
	/* PSNs wrap at 2^24. */
	harness_free(&c);
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 0xFFFFFF, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 0, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "PSN wrap");
	harness_free(&c);
}

/* Sends new PSNs first..last in order. */
static void sends(struct conv *c, uint32_t first, uint32_t last)
{
	for (uint32_t psn = first; psn != last + 1; psn++) {
		struct roce_flow_result r = feed(c, ROCE_OP_RC_SEND_ONLY, psn, 8, NULL);
		CHECK(!serious(&r), "conforming SEND %u", psn);
	}
}

/* SENDs of PSN 1 to sent, a NAK PSN Sequence Error for 2, then SENDs of
 * the n PSNs given: the last one's result; early counts the warnings and
 * errors on the others. */
static struct roce_flow_result after_nak(struct conv *c, uint32_t sent, const uint32_t *psns, size_t n,
					 unsigned *early)
{
	const struct pkt_opts nak = { .syndrome = roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR) };
	sends(c, 1, sent);
	feed(c, ROCE_OP_RC_ACK, 2, 0, &nak);
	struct roce_flow_result r = { 0 };
	*early = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*early += serious(&r);
		r = feed(c, ROCE_OP_RC_SEND_ONLY, psns[i], 8, NULL);
	}
	return r;
}

struct open_naks {
	unsigned n;
	struct roce_flow_open_nak last;
};

static void on_open_nak(void *arg, const struct roce_flow_open_nak *o)
{
	struct open_naks *x = arg;
	x->n++;
	x->last = *o;
}

static void nak_and_go_back_n(void)
{
	const struct pkt_opts nak = { .syndrome = roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR) };
	/* A loss before the capture point, the NAK, and go-back-N. */
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 1, 8, NULL);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL); /* 2 lost before the capture point */
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	CHECK(has(&r, ROCE_F_SEQ_NAK_EXPLAINED) && !serious(&r), "NAK explained");
	CHECK(r.request_frame == 2, "NAK linked to the out-of-sequence request, frame %u", r.request_frame);
	struct pkt_opts later = { .gap_ns = 30000 };
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, &later);
	CHECK(has(&r, ROCE_F_GBN_RETRANSMISSION) && r.cls == ROCE_FLOW_RETRANSMISSION, "resend from 2 (class %d)", r.cls);
	CHECK(r.nak_frame == 3 && r.nak_to_resend_ns == 30000 && r.new_after_nak == 0,
	      "NAK in frame %u, resent %llu ns later, %u new PSNs between", r.nak_frame,
	      (unsigned long long)r.nak_to_resend_ns, r.new_after_nak);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_RETRANSMISSION && has(&r, ROCE_F_GBN_RETRANSMISSION) && !r.nak_frame,
	      "GBN resend of 3, not the first resend");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	CHECK(!serious(&r), "new PSN after a complete resend");
	harness_free(&c);

	/* The reported case: the loss was after the capture point, and the
	 * requester kept sending for a while, its packets crossing the NAK,
	 * then went back correctly. Nothing to warn about; measured. */
	harness_init(&c, 1024);
	sends(&c, 1, 4);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak); /* frame 5 */
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(!serious(&r) && r.cls == ROCE_FLOW_IN_ORDER, "new PSN 5 crossed the NAK");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 6, 8, NULL);
	CHECK(!serious(&r), "new PSN 6 crossed the NAK");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, NULL);
	CHECK(!serious(&r) && r.nak_frame == 5 && r.new_after_nak == 2 && r.nak_to_resend_ns == 30000,
	      "resend of 2: NAK frame %u, %u new PSNs crossed it, %llu ns", r.nak_frame, r.new_after_nak,
	      (unsigned long long)r.nak_to_resend_ns);
	for (uint32_t psn = 3; psn <= 6; psn++) {
		r = feed(&c, ROCE_OP_RC_SEND_ONLY, psn, 8, NULL);
		CHECK(!serious(&r) && has(&r, ROCE_F_GBN_RETRANSMISSION), "go-back resends %u", psn);
	}
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 7, 8, NULL);
	CHECK(!r.n_findings && r.cls == ROCE_FLOW_IN_ORDER, "new PSN after the go-back");
	struct open_naks open = { 0 };
	roce_flow_end(&c.env, on_open_nak, &open);
	CHECK(open.n == 0, "no NAK left open (%u)", open.n);
	harness_free(&c);

	/* A requester that goes back to the wrong PSN, resends up to the
	 * highest and goes on, on a path that shows no loss, reordering or
	 * duplication: an error, once the go-back is over. */
	unsigned early;
	harness_init(&c, 1024);
	r = after_nak(&c, 4, (const uint32_t[]){ 3, 4, 5 }, 3, &early);
	CHECK(early == 0, "3 and 4 before 2: not judged yet (%u findings)", early);
	CHECK(has(&r, ROCE_F_GBN_SKIPPED) && r.findings[0].observed == 3 && r.findings[0].expected == 2,
	      "went back to 3, not 2, and went on with 5");
	harness_free(&c);

	/* A resend past the NAKed PSN that overtook the others before the
	 * capture point (Linux rxe under netem reordering): the go-back from
	 * the NAKed PSN passes over it. Nothing to judge. */
	harness_init(&c, 1024);
	r = after_nak(&c, 5, (const uint32_t[]){ 4, 2, 3, 5, 6 }, 5, &early);
	CHECK(early == 0 && !serious(&r), "4 overtook the go-back 2, 3, 5: no finding");
	harness_free(&c);

	/* The same where the early resend is the last one due: the next new
	 * PSN finds the go-back complete. */
	harness_init(&c, 1024);
	r = after_nak(&c, 4, (const uint32_t[]){ 4, 2, 3, 5 }, 4, &early);
	CHECK(early == 0 && !serious(&r), "4 overtook the go-back 2, 3, then new 5: no finding");
	harness_free(&c);

	/* A new PSN right after the early resend may have overtaken the
	 * unfinished go-back too: a warning. */
	harness_init(&c, 1024);
	r = after_nak(&c, 5, (const uint32_t[]){ 4, 6 }, 2, &early);
	CHECK(has(&r, ROCE_F_GBN_SKIPPED_SEEN) && !has(&r, ROCE_F_GBN_SKIPPED), "new 6 before the go-back ended: a warning");
	harness_free(&c);

	/* The early resend sent again by the go-back from the NAKed PSN: it
	 * was not one of its resends. */
	harness_init(&c, 1024);
	r = after_nak(&c, 4, (const uint32_t[]){ 3, 2, 3 }, 3, &early);
	CHECK(has(&r, ROCE_F_GBN_SKIPPED_SEEN) && !has(&r, ROCE_F_GBN_SKIPPED), "3, 2, 3 again: a warning");
	harness_free(&c);

	/* The responder acknowledging the NAKed PSN settles it: it got there. */
	harness_init(&c, 1024);
	after_nak(&c, 4, (const uint32_t[]){ 3 }, 1, &early);
	feed(&c, ROCE_OP_RC_ACK, 3, 0, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(!serious(&r), "an ACK past the NAKed PSN: nothing to judge");
	harness_free(&c);

	/* The skip where the path lost packets before the capture point: the
	 * resend of 2 may have been lost there too. */
	harness_init(&c, 1024);
	sends(&c, 1, 2);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL); /* 3 lost before the capture point */
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(has(&r, ROCE_F_GBN_SKIPPED_SEEN) && !has(&r, ROCE_F_GBN_SKIPPED), "lossy path: a warning");
	harness_free(&c);

	/* A byte-identical copy of a packet sent before the NAK may be a
	 * duplicate made by the network. */
	harness_init(&c, 1024);
	sends(&c, 1, 4);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	struct pkt_opts dup3 = { .copy_of = 3 };
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, &dup3);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(has(&r, ROCE_F_GBN_SKIPPED_SEEN) && !has(&r, ROCE_F_GBN_SKIPPED), "a copy: a warning");
	harness_free(&c);

	/* New PSNs in the middle of the resends. */
	harness_init(&c, 1024);
	sends(&c, 1, 4);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(has(&r, ROCE_F_GBN_NEW_IN_RESEND) && r.findings[0].expected == 3, "new PSN 5 before 3 and 4 were resent");
	harness_free(&c);
	harness_init(&c, 1024);
	sends(&c, 1, 2);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(has(&r, ROCE_F_GBN_NEW_IN_RESEND_SEEN), "the same on a lossy path: a warning");
	harness_free(&c);

	/* A timeout's go-back that began before the NAK arrived, and a resend
	 * run that goes on past a second NAK's PSN until that NAK arrives. */
	harness_init(&c, 1024);
	sends(&c, 1, 6);
	feed(&c, ROCE_OP_RC_ACK, 3, 0, &nak);
	for (uint32_t psn = 1; psn <= 6; psn++) {
		r = feed(&c, ROCE_OP_RC_SEND_ONLY, psn, 8, NULL);
		CHECK(!serious(&r), "timeout go-back through the NAKed PSN: %u", psn);
	}
	harness_free(&c);
	harness_init(&c, 1024);
	sends(&c, 1, 8);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	sends(&c, 2, 2);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, NULL);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 3, 8, NULL);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	feed(&c, ROCE_OP_RC_ACK, 4, 0, &nak); /* the resend of 4 lost after the capture point */
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(!serious(&r), "resend 5 continues the run begun before the second NAK arrived");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 4, 8, NULL);
	CHECK(!serious(&r) && r.nak_frame, "then the resend of 4");
	harness_free(&c);
	/* The same, with one resend of the run overtaking others before the
	 * capture point (netem's reordering between two rxe hosts): the run
	 * resumes where it was, and a new PSN after it means the second NAK
	 * crossed it in flight or was lost after the capture point. */
	harness_init(&c, 1024);
	sends(&c, 1, 20);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	sends(&c, 2, 5);
	feed(&c, ROCE_OP_RC_ACK, 4, 0, &nak);
	static const uint32_t overtaken_run[] = { 6, 9, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };
	for (size_t i = 0; i < sizeof overtaken_run / sizeof overtaken_run[0]; i++) {
		r = feed(&c, ROCE_OP_RC_SEND_ONLY, overtaken_run[i], 8, NULL);
		CHECK(!serious(&r), "resend %u of the run, 9 overtaking 7 and 8", overtaken_run[i]);
	}
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 21, 8, NULL);
	CHECK(!serious(&r) && !has(&r, ROCE_F_GBN_SKIPPED) && (r.flags & ROCE_FLOW_F(CROSSED_NAK)),
	      "new PSN 21 after the run: it crossed the second NAK, no go-back skipped it");
	harness_free(&c);

	/* READs take one PSN per response packet: so does their go-back. */
	harness_init(&c, 1024);
	struct pkt_opts rd4 = { .dmalen = 4096 };
	for (uint32_t psn = 10; psn <= 22; psn += 4)
		feed(&c, ROCE_OP_RC_READ_REQUEST, psn, 0, &rd4);
	feed(&c, ROCE_OP_RC_ACK, 14, 0, &nak);
	for (uint32_t psn = 14; psn <= 22; psn += 4) {
		r = feed(&c, ROCE_OP_RC_READ_REQUEST, psn, 0, &rd4);
		CHECK(!serious(&r), "READ %u resent", psn);
	}
	r = feed(&c, ROCE_OP_RC_READ_REQUEST, 26, 0, &rd4);
	CHECK(!serious(&r) && r.cls == ROCE_FLOW_IN_ORDER, "new READ after the go-back of READs");
	harness_free(&c);

	/* An ROCE_OP_RC_ACK beyond the NAKed PSN: it arrived, its resend passed unseen. */
	harness_init(&c, 1024);
	sends(&c, 1, 4);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak);
	feed(&c, ROCE_OP_RC_ACK, 4, 0, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(!r.n_findings, "episode closed by the ACK");
	harness_free(&c);

	/* A requester that ignores the NAK: new PSNs, no resend; what is left
	 * open at the end of the capture is reported there. */
	harness_init(&c, 1024);
	sends(&c, 1, 3);
	feed(&c, ROCE_OP_RC_ACK, 2, 0, &nak); /* frame 4 */
	sends(&c, 4, 9);
	roce_flow_end(&c.env, on_open_nak, &open);
	CHECK(open.n == 1 && open.last.nak_frame == 4 && open.last.nak_psn == 2 && open.last.packets_after == 6 &&
		      open.last.clean && open.last.after_ns == 60000 && open.last.dest_qpn == QP_B,
	      "open NAK at the end: %u, frame %u PSN %u, %u packets after, %llu ns", open.n, open.last.nak_frame,
	      open.last.nak_psn, open.last.packets_after, (unsigned long long)open.last.after_ns);
	harness_free(&c);

	/* A NAK for a PSN never sent: an error once the requester was seen
	 * sending new PSNs (they all passed the capture point); from a capture
	 * that saw only one packet, the others may have passed before it began. */
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 1, 8, NULL);
	r = feed(&c, ROCE_OP_RC_ACK, 9, 0, &nak);
	CHECK(has(&r, ROCE_F_SEQ_NAK_AHEAD_SEEN), "NAK ahead of the first packet seen");
	feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, NULL);
	r = feed(&c, ROCE_OP_RC_ACK, 9, 0, &nak);
	CHECK(has(&r, ROCE_F_SEQ_NAK_AHEAD), "NAK ahead of the requester");
	harness_free(&c);
}

/* READs of 4 packets at 10, 14, 18 and 22 (IPv4 IDs 101 to 104), READ
 * 10 answered, a NAK PSN Sequence Error for 14; then the requester's
 * packets as the capture saw them, with their IPv4 IDs (0: the frame's):
 * the last one's result; serious_before counts the warnings and errors on
 * the others. */
static struct roce_flow_result reads_after_nak(struct conv *c, const uint32_t (*sent)[3], size_t n,
					       unsigned *serious_before)
{
	const struct pkt_opts nak = { .syndrome = roce_syndrome_nak(ROCE_NAK_PSN_SEQ_ERR) };
	for (uint32_t psn = 10; psn <= 22; psn += 4) {
		struct pkt_opts rd = { .dmalen = 4096, .ip_id = (uint16_t)(101 + (psn - 10) / 4) };
		feed(c, ROCE_OP_RC_READ_REQUEST, psn, 0, &rd);
	}
	feed(c, ROCE_OP_RC_READ_RESPONSE_FIRST, 10, 1024, NULL);
	feed(c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 11, 1024, NULL);
	feed(c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 12, 1024, NULL);
	feed(c, ROCE_OP_RC_READ_RESPONSE_LAST, 13, 1024, NULL);
	feed(c, ROCE_OP_RC_ACK, 14, 0, &nak); /* READ 14 lost after the capture point */
	struct roce_flow_result r = { 0 };
	*serious_before = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*serious_before += serious(&r);
		struct pkt_opts rd = { .dmalen = sent[i][1], .ip_id = (uint16_t)sent[i][2] };
		r = feed(c, ROCE_OP_RC_READ_REQUEST, sent[i][0], 0, &rd);
	}
	return r;
}

/* The resend of the NAKed PSN came ahead of new PSNs the requester had
 * sent before it (rxe-ipv4-read-mixed.pcap: netem on the requester's
 * egress did not delay the resend). The requester sent new READs 26 and
 * 30 (IDs 105, 106) before the NAK reached it, then went back from 13,
 * the response it lacked (lost after the capture point), to 30 (IDs 107
 * to 112), then new 34. Their IDs fall between those of the packet seen
 * before the resend (104) and of the resend (108): they left before it,
 * and crossed the NAK in flight. */
static void resend_overtakes_new_psns(void)
{
	static const uint32_t seen[][3] = {
		{ 14, 4096, 108 }, { 26, 4096, 105 }, { 30, 4096, 106 }, { 13, 1024, 107 }, { 18, 4096, 109 },
		{ 22, 4096, 110 }, { 26, 4096, 111 }, { 30, 4096, 112 }, { 34, 4096, 113 },
	};
	struct conv c;
	unsigned early;
	harness_init(&c, 1024);
	struct roce_flow_result r = reads_after_nak(&c, seen, 2, &early);
	CHECK(early == 0 && !serious(&r) && r.cls == ROCE_FLOW_IN_ORDER && (r.flags & ROCE_FLOW_F(CROSSED_NAK)),
	      "new READ 26 sent before the resend of 14 that overtook it: crossed the NAK (%u findings, class %d)",
	      r.n_findings, r.cls);
	harness_free(&c);
	for (size_t n = 3; n <= sizeof seen / sizeof seen[0]; n++) {
		harness_init(&c, 1024);
		r = reads_after_nak(&c, seen, n, &early);
		CHECK(early == 0 && !serious(&r), "READ %u, packet %zu after the NAK: no warning (%u before)",
		      seen[n - 1][0], n, early);
		if (n == 3)
			CHECK(r.flags & ROCE_FLOW_F(CROSSED_NAK), "new READ 30 crossed the NAK too");
		if (n >= 5 && n <= 8)
			CHECK(has(&r, ROCE_F_GBN_RETRANSMISSION), "the go-back resends READ %u", seen[n - 1][0]);
		if (n == 9) {
			CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "new READ 34 after the go-back");
			struct open_naks open = { 0 };
			roce_flow_end(&c.env, on_open_nak, &open);
			CHECK(open.n == 0, "the go-back answered the NAK (%u open)", open.n);
		}
		harness_free(&c);
	}
	/* The same packets numbered in the order the capture saw them: READ 26
	 * left the requester after the resend of 14, among the resends, on a
	 * path that shows no loss, reordering or duplication. */
	static const uint32_t in_order[][3] = { { 14, 4096, 105 }, { 26, 4096, 106 } };
	harness_init(&c, 1024);
	r = reads_after_nak(&c, in_order, 2, &early);
	CHECK(has(&r, ROCE_F_GBN_NEW_IN_RESEND) && r.findings[0].expected == 18,
	      "new READ 26 sent after the resend of 14: an error");
	harness_free(&c);
	/* Numbered before the packet seen before the resend: nothing says it
	 * left between them. */
	static const uint32_t older[][3] = { { 14, 4096, 108 }, { 26, 4096, 100 } };
	harness_init(&c, 1024);
	r = reads_after_nak(&c, older, 2, &early);
	CHECK(has(&r, ROCE_F_GBN_NEW_IN_RESEND), "an ID before READ 22's: still an error");
	harness_free(&c);
}

static void rnr(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 7, 8, NULL);
	struct pkt_opts rnr = { .syndrome = roce_syndrome_rnr(14) }; /* 1.28 ms */
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_ACK, 7, 0, &rnr);
	CHECK(has(&r, ROCE_F_RNR_EXPLAINED) && r.findings[0].expected == 1280 && r.request_frame == 1,
	      "RNR NAK explained and linked");
	struct pkt_opts copy = { .gap_ns = 50000, .copy_of = 1 };
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 7, 8, &copy);
	CHECK(has(&r, ROCE_F_RNR_EARLY_SEEN) && !has(&r, ROCE_F_RNR_EARLY),
	      "a byte-identical copy 50 us after the RNR NAK: a duplicate, or a retry too early");
	struct pkt_opts soon = { .gap_ns = 50000 };
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 7, 8, &soon);
	CHECK(has(&r, ROCE_F_RNR_EARLY), "retry after 100 us, before 1.28 ms");
	feed(&c, ROCE_OP_RC_ACK, 7, 0, &rnr);
	struct pkt_opts later = { .gap_ns = 2000000 };
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 7, 8, &later);
	CHECK(!has(&r, ROCE_F_RNR_EARLY) && r.cls == ROCE_FLOW_RETRANSMISSION, "retry after 2 ms");
	harness_free(&c);
}

static void reads(void)
{
	struct conv c;
	harness_init(&c, 1024);
	struct pkt_opts rd = { .dmalen = 3000 };
	feed(&c, ROCE_OP_RC_READ_REQUEST, 50, 0, &rd);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, 50, 1024, NULL);
	CHECK(r.request_frame == 1 && r.read_index == 1 && r.read_count == 3 && !r.n_findings,
	      "READ First 1/3 (frame %u, %u/%u, %u findings)", r.request_frame, r.read_index, r.read_count,
	      r.n_findings);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 51, 1024, NULL);
	CHECK(r.read_index == 2 && !r.n_findings, "READ Middle 2/3");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 52, 952, NULL);
	CHECK(r.read_index == 3 && !r.n_findings, "READ Last 3/3");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 53, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "next request after the READ's 3 PSNs");

	/* Wrong segmentation. */
	feed(&c, ROCE_OP_RC_READ_REQUEST, 54, 0, &rd);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, 54, 1024, NULL);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 55, 1000, NULL);
	CHECK(has(&r, ROCE_F_READ_RESP_POSITION) && has(&r, ROCE_F_READ_RESP_LEN), "Last too early, too short");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 56, 952, NULL);
	CHECK(!r.n_findings, "proper Last");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 57, 4, NULL);
	CHECK(has(&r, ROCE_F_READ_RESP_EXTRA), "response beyond the READ");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 56, 952, NULL);
	CHECK(has(&r, ROCE_F_DUP_READ_RESP), "READ response sent again");
	harness_free(&c);

	/* An XRC READ response 4 bytes longer than the READ: an XRCETH after
	 * its BTH, A14-XRC-RESP's deviation, not a length one. */
	harness_init(&c, 1024);
	struct pkt_opts xrd = { .dmalen = 16 };
	feed(&c, ROCE_OP_XRC_READ_REQUEST, 60, 0, &xrd);
	r = feed(&c, ROCE_OP_XRC_READ_RESPONSE_ONLY, 60, 20, NULL);
	CHECK(has(&r, ROCE_F_XRC_READ_RESP_XRCETH) && !has(&r, ROCE_F_READ_RESP_LEN), "XRC READ response with an XRCETH");
	feed(&c, ROCE_OP_XRC_READ_REQUEST, 61, 0, &xrd);
	r = feed(&c, ROCE_OP_XRC_READ_RESPONSE_ONLY, 61, 12, NULL);
	CHECK(has(&r, ROCE_F_READ_RESP_LEN) && !has(&r, ROCE_F_XRC_READ_RESP_XRCETH), "XRC READ response 4 bytes short");
	/* A First and a Middle the path MTU plus an XRCETH long are the
	 * stateless check's (C_XRC_READ_RESP_XRCETH, test_checks): no second
	 * finding here; the Last, which only the READ's length judges, is ours. */
	struct pkt_opts xrd3 = { .dmalen = 2100 };
	feed(&c, ROCE_OP_XRC_READ_REQUEST, 62, 0, &xrd3);
	r = feed(&c, ROCE_OP_XRC_READ_RESPONSE_FIRST, 62, 1028, NULL);
	CHECK(r.read_index == 1 && r.read_count == 3 && !r.n_findings, "XRC READ First with an XRCETH: %u findings",
	      r.n_findings);
	r = feed(&c, ROCE_OP_XRC_READ_RESPONSE_MIDDLE, 63, 1028, NULL);
	CHECK(r.read_index == 2 && !r.n_findings, "XRC READ Middle with an XRCETH: %u findings", r.n_findings);
	r = feed(&c, ROCE_OP_XRC_READ_RESPONSE_LAST, 64, 56, NULL);
	CHECK(r.read_index == 3 && has(&r, ROCE_F_XRC_READ_RESP_XRCETH) && r.n_findings == 1,
	      "XRC READ Last with an XRCETH");
	harness_free(&c);

	/* A READ asked again from inside its range after its last responses
	 * were lost: answered from a First (a new, shorter request) or from the
	 * original's Middle at that PSN; both conform (RC-RESP-DUP-READ-001). */
	for (int middle = 0; middle < 2; middle++) {
		harness_init(&c, 1024);
		feed(&c, ROCE_OP_RC_READ_REQUEST, 60, 0, &rd);
		feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, 60, 1024, NULL);
		struct pkt_opts again = { .dmalen = 3000 - 1024 };
		r = feed(&c, ROCE_OP_RC_READ_REQUEST, 61, 0, &again);
		CHECK(r.cls == ROCE_FLOW_RETRANSMISSION && !serious(&r), "READ asked again from PSN 61 (class %d)", r.cls);
		r = feed(&c, middle ? ROCE_OP_RC_READ_RESPONSE_MIDDLE : ROCE_OP_RC_READ_RESPONSE_FIRST, 61, 1024, NULL);
		CHECK(!serious(&r) && r.request_frame == 3 && r.read_index == 1 && r.read_count == 2,
		      "replay from %s: request %u, %u/%u", middle ? "Middle" : "First", r.request_frame, r.read_index,
		      r.read_count);
		CHECK(has(&r, ROCE_F_READ_REPLAY_MIDDLE) == (middle == 1), "the Middle is informative");
		r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 62, 952, NULL);
		CHECK(!r.n_findings, "replay Last");
		r = feed(&c, ROCE_OP_RC_SEND_ONLY, 63, 8, NULL);
		CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "next request after the READ's PSNs");
		harness_free(&c);
	}
	/* A replay of a READ the analysis no longer holds: its responses all
	 * passed the capture point, so later READs took its place in the ring,
	 * but the requester lost or reordered its copies after the capture
	 * point and asks again from inside the range (rxe over netem reorder).
	 * Answered with the original's Last (one packet) or Middle (more), or
	 * a First: each conforms. A new READ at the next PSN still needs a First. */
	for (int shape = 0; shape < 3; shape++) {
		harness_init(&c, 1024);
		struct pkt_opts four = { .dmalen = 4096 };
		uint32_t psn = 100;
		for (int k = 0; k < 40; k++, psn += 4) {
			feed(&c, ROCE_OP_RC_READ_REQUEST, psn, 0, &four);
			feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, psn, 1024, NULL);
			feed(&c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, psn + 1, 1024, NULL);
			feed(&c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, psn + 2, 1024, NULL);
			feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, psn + 3, 1024, NULL);
		}
		/* Asked again: the last packet of the first READ (103), or its
		 * last two (102, 103). */
		struct pkt_opts one = { .dmalen = 1024 }, two = { .dmalen = 2048 };
		uint32_t at = shape == 1 ? 102 : 103;
		r = feed(&c, ROCE_OP_RC_READ_REQUEST, at, 0, shape == 1 ? &two : &one);
		/* A PSN never sent as a request, behind later ones: out of order
		 * to the capture (a warning), never an error. */
		CHECK(!errors(&r), "READ asked again for PSN %u out of view: %u errors", at, errors(&r));
		uint8_t op = shape == 0 ? ROCE_OP_RC_READ_RESPONSE_LAST
			     : shape == 1 ? ROCE_OP_RC_READ_RESPONSE_MIDDLE
					  : ROCE_OP_RC_READ_RESPONSE_ONLY;
		r = feed(&c, op, at, 1024, NULL);
		CHECK(!serious(&r) && has(&r, ROCE_F_READ_REPLAY_UNSEEN) == (shape < 2),
		      "replay of an unseen READ opened by opcode 0x%02x: %u serious findings", op, serious(&r));
		if (shape == 1) {
			r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 103, 1024, NULL);
			CHECK(!r.n_findings, "the replay's Last");
		}
		/* A READ at a new PSN opened by a Middle is still wrong. */
		feed(&c, ROCE_OP_RC_READ_REQUEST, psn, 0, &four);
		r = feed(&c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, psn, 1024, NULL);
		CHECK(has(&r, ROCE_F_READ_RESP_POSITION), "a new READ opened by a Middle");
		harness_free(&c);
	}

	/* A replay from inside the range with a Last where the new request's
	 * first packet is: wrong either way. */
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_READ_REQUEST, 60, 0, &rd);
	struct pkt_opts again = { .dmalen = 3000 - 1024 };
	feed(&c, ROCE_OP_RC_READ_REQUEST, 61, 0, &again);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 61, 1024, NULL);
	CHECK(has(&r, ROCE_F_READ_RESP_POSITION), "a Last opening a replay of two packets");
	harness_free(&c);

	/* Path MTU learnt from the first response. */
	harness_init(&c, 0);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 1, 8, NULL);
	struct pkt_opts big = { .dmalen = 5000 };
	feed(&c, ROCE_OP_RC_READ_REQUEST, 2, 0, &big);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_FIRST, 2, 2048, NULL);
	CHECK(r.pmtu == 2048 && r.read_count == 3 && !r.n_findings, "learnt PMTU %u, %u packets", r.pmtu,
	      r.read_count);
	feed(&c, ROCE_OP_RC_READ_RESPONSE_MIDDLE, 3, 2048, NULL);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_LAST, 4, 904, NULL);
	CHECK(!r.n_findings, "Last of 904");
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 5, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && !r.n_findings, "request after a READ of unknown span");
	harness_free(&c);

	/* A READ of length 0 takes one PSN and one empty response. */
	harness_init(&c, 1024);
	struct pkt_opts zero = { .dmalen = 0 };
	feed(&c, ROCE_OP_RC_READ_REQUEST, 9, 0, &zero);
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_ONLY, 9, 0, NULL);
	CHECK(!r.n_findings && r.request_frame == 1, "zero-length READ");
	harness_free(&c);
}

static void atomics_and_sequence(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_CMP_SWAP, 20, 0, NULL);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_ATOMIC_ACK, 20, 0, NULL);
	CHECK(r.request_frame == 1 && !r.n_findings, "atomic ACK answers the CmpSwap");
	feed(&c, ROCE_OP_RC_SEND_ONLY, 21, 8, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_MIDDLE, 22, 1024, NULL);
	CHECK(has(&r, ROCE_F_OPSEQ_CONTINUE), "Middle with no First");
	r = feed(&c, ROCE_OP_RC_SEND_FIRST, 23, 1024, NULL);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 24, 8, NULL);
	CHECK(has(&r, ROCE_F_OPSEQ_UNFINISHED), "Only inside a message");
	harness_free(&c);
}

static void source_port(void)
{
	struct conv c;
	harness_init(&c, 1024);
	feed(&c, ROCE_OP_RC_SEND_ONLY, 1, 8, NULL);
	struct pkt_opts other = { .sport = 0xBEEF };
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 2, 8, &other);
	CHECK(has(&r, ROCE_F_SPORT_CHANGED) && r.findings[0].expected == 0xC0DE && !serious(&r),
	      "source port change is a note");
	/* UC is connected too; UD is not tracked. */
	r = feed(&c, ROCE_OP_UC_SEND_ONLY, 5, 8, NULL);
	CHECK(r.cls != ROCE_FLOW_UNTRACKED, "UC tracked");
	harness_free(&c);
}

static void connection_manager(void)
{
	struct conv c;
	harness_init(&c, 0);
	static const uint8_t a[4] = { 198, 18, 0, 1 }, b[4] = { 198, 18, 0, 2 };
	struct roce_flow_connection cm = { 4, a, b, QP_A, QP_B, 1000, 5000, true, true, 1024, false };
	roce_flow_connect(&c.env, &cm);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_SEND_ONLY, 1000, 8, NULL);
	CHECK(r.cls == ROCE_FLOW_IN_ORDER && r.pmtu == 1024 && r.src_qpn == QP_A, "starts at the REQ's PSN");
	r = feed(&c, ROCE_OP_RC_ACK, 1000, 0, NULL);
	CHECK(r.request_frame == 1 && r.src_qpn == QP_B, "paired by the CM");
	harness_free(&c);
	harness_init(&c, 0);
	roce_flow_connect(&c.env, &cm);
	r = feed(&c, ROCE_OP_RC_SEND_ONLY, 1003, 8, NULL);
	CHECK(has(&r, ROCE_F_PSN_GAP), "first packet after the REQ's starting PSN");
	harness_free(&c);
}

/* Conforming bulk traffic over 16 QPs between two hosts, with nothing
 * telling the QPs apart but their PSNs: no finding at warning level or
 * above, and every response linked to its request. */
struct bulk {
	struct conv c;
	unsigned long frames, responses, linked, serious;
};

static uint64_t value_of(const struct roce_flow_result *r, enum roce_flow_value v)
{
	uint64_t x = 0;
	CHECK(roce_flow_value(r, v, &x), "value %s missing", roce_flow_value_info(v)->abbrev);
	return x;
}

/* CE marks, the CNPs that answer them and the sender's rate around each:
 * exact numbers from the frame lengths and times. */
static void congestion(void)
{
	struct conv c;
	harness_init(&c, 1024);
	const uint64_t wire = 14 + 20 + 8 + 12 + 1000 + 4; /* a SEND Only of 1000 bytes */
	struct roce_flow_result r;
	/* Frames 1-10, 10 us apart from t0 + 10 us; 6-10 marked CE. */
	for (uint32_t i = 0; i < 10; i++) {
		struct pkt_opts o = { .ecn = i >= 5 ? 3 : 2 };
		r = feed(&c, ROCE_OP_RC_SEND_ONLY, i, 1000, &o);
		CHECK(r.n_findings == 0 || i == 0, "SEND %u: no finding", i);
		CHECK(!!(r.flags & ROCE_FLOW_F(CE)) == (i >= 5), "SEND %u: CE flag", i);
		CHECK(value_of(&r, ROCE_FLOW_V_PACKETS_IN_FLIGHT) == i + 1, "SEND %u: %u in flight", i, i + 1);
		CHECK(value_of(&r, ROCE_FLOW_V_BYTES_IN_FLIGHT) == 1000ull * (i + 1), "SEND %u: bytes in flight", i);
	}
	/* Frame 11: the CNP, 10 us later, answers the 5 marks. */
	r = feed(&c, ROCE_OP_CNP, 0, 0, NULL);
	CHECK(!(r.flags & ROCE_FLOW_F(CNP_NO_CE)) && !has(&r, ROCE_F_CNP_NO_CE), "the CNP follows CE marks");
	CHECK(value_of(&r, ROCE_FLOW_V_CNP_CE_PACKETS) == 5, "5 CE-marked packets answered");
	CHECK(value_of(&r, ROCE_FLOW_V_CNP_CE_FRAME) == 10, "the newest mark in frame 10");
	CHECK(!(r.has & ROCE_FLOW_HAS(CNP_PREV_FRAME)) && !(r.has & ROCE_FLOW_HAS(CNP_INTERVAL)),
	      "no previous CNP");
	/* 10 frames in the 100 us from the first to the CNP. */
	CHECK(value_of(&r, ROCE_FLOW_V_RATE_BEFORE) == 10 * wire * 8000000000ull / 100000,
	      "rate before %llu b/s", (unsigned long long)r.value[ROCE_FLOW_V_RATE_BEFORE]);
	CHECK(value_of(&r, ROCE_FLOW_V_RATE_BEFORE) == 846400000, "rate before 846.4 Mb/s");
	CHECK(!c.late_seen[11], "the rate after is not known yet");
	/* Frames 12-16: the sender slows to one SEND per 100 us. */
	for (uint32_t i = 10; i < 15; i++) {
		struct pkt_opts o = { .gap_ns = 100000, .ecn = 2 };
		feed(&c, ROCE_OP_RC_SEND_ONLY, i, 1000, &o);
	}
	/* Frame 17: an ACK of everything: nothing in flight. */
	struct pkt_opts ack = { .gap_ns = 50000 };
	r = feed(&c, ROCE_OP_RC_ACK, 14, 0, &ack);
	CHECK(value_of(&r, ROCE_FLOW_V_PACKETS_IN_FLIGHT) == 0 && value_of(&r, ROCE_FLOW_V_BYTES_IN_FLIGHT) == 0,
	      "the ACK of PSN 14 leaves nothing in flight");
	CHECK(value_of(&r, ROCE_FLOW_V_ACKED_FRAME) == 16 && value_of(&r, ROCE_FLOW_V_ACK_RTT) == 50000,
	      "ACK RTT 50 us from frame 16");
	/* Frame 18: a CNP 50 us later (600 us after the first) with no mark since. */
	r = feed(&c, ROCE_OP_CNP, 0, 0, &ack);
	CHECK((r.flags & ROCE_FLOW_F(CNP_NO_CE)) && has(&r, ROCE_F_CNP_NO_CE), "a CNP after no CE mark is noted");
	CHECK(roce_code_info(ROCE_F_CNP_NO_CE)->severity == ROCE_SEV_NOTE, "only noted");
	CHECK(value_of(&r, ROCE_FLOW_V_CNP_CE_PACKETS) == 0 && !(r.has & ROCE_FLOW_HAS(CNP_CE_FRAME)),
	      "no CE mark answered");
	CHECK(value_of(&r, ROCE_FLOW_V_CNP_PREV_FRAME) == 11, "previous CNP in frame 11");
	CHECK(value_of(&r, ROCE_FLOW_V_CNP_INTERVAL) == 600000, "600 us since the previous CNP");
	/* The window after the first CNP ended at this one: 5 SENDs in 600 us. */
	CHECK(c.late_seen[11] && c.late_rate_after[11] == 5 * wire * 8000000000ull / 600000,
	      "rate after the first CNP %llu b/s", (unsigned long long)c.late_rate_after[11]);
	CHECK(c.late_rate_after[11] == 70533333, "rate after 70.5 Mb/s");
	/* The 1 ms window before it reaches back to the first frame, 700 us
	 * earlier: 15 SENDs (ACKs are the responder's, CNPs not counted). */
	CHECK(value_of(&r, ROCE_FLOW_V_RATE_BEFORE) == 15 * wire * 8000000000ull / 700000,
	      "rate before the second CNP %llu b/s", (unsigned long long)r.value[ROCE_FLOW_V_RATE_BEFORE]);
	/* The end of the capture closes the window after the second CNP: 2
	 * SENDs in the 200 us to the end. */
	for (uint32_t i = 15; i < 17; i++) {
		struct pkt_opts o = { .gap_ns = 100000 };
		feed(&c, ROCE_OP_RC_SEND_ONLY, i, 1000, &o);
	}
	roce_flow_finish(&c.env, c.now_ns);
	CHECK(c.late_seen[18] && c.late_rate_after[18] == 2 * wire * 8000000000ull / 200000,
	      "rate after the second CNP %llu b/s", (unsigned long long)c.late_rate_after[18]);
	roce_flow_finish(&c.env, c.now_ns + 1000);
	harness_free(&c);
}

static void bulk_emit(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us, enum roce_code expect,
		      const char *what)
{
	struct bulk *b = ctx;
	(void)expect;
	(void)what;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	b->frames++;
	struct roce_flow_input in = { &p, 4, frame + 14 + 12, frame + 14 + 16,
				      roce_udp_sport(roce_pkt_hdr(&p, ROCE_H_UDP)), (uint32_t)b->frames,
				      t_us * 1000, 0, (void *)(uintptr_t)b->frames, (uint32_t)len, false };
	struct roce_flow_result r;
	roce_flow_packet(&b->c.env, &in, &r);
	if (p.op->flags & ROCE_OPF_RESPONSE) {
		b->responses++;
		b->linked += r.request_frame != 0;
	}
	b->serious += serious(&r);
	for (unsigned i = 0; i < r.n_findings && b->serious < 5; i++) {
		char msg[256];
		roce_finding_format(&r.findings[i], msg, sizeof msg);
		CHECK(roce_code_info(r.findings[i].code)->severity < ROCE_SEV_WARN, "bulk frame %lu: %s",
		      b->frames, msg);
	}
}

/* A sample conversation fed whole: each frame raises the finding its
 * emitter names and nothing else at warning level or above. */
struct sample_run {
	struct conv c;
	unsigned long frames;
	struct roce_flow_result r[64];
};

static void sample_emit(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us, enum roce_code expect,
			const char *what)
{
	struct sample_run *s = ctx;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, 0);
	s->frames++;
	struct roce_flow_input in = { .frame = (uint32_t)s->frames, .ts_ns = t_us * 1000,
				      .cookie = (void *)(uintptr_t)s->frames, .wire_len = (uint32_t)len };
	struct roce_flow_result r;
	if (!roce_flow_input_from(&in, &p))
		return;
	roce_flow_packet(&s->c.env, &in, &r);
	if (s->frames < 64)
		s->r[s->frames] = r;
	unsigned other = 0;
	for (unsigned i = 0; i < r.n_findings; i++) {
		raised[r.findings[i].code] = true;
		other += r.findings[i].code != expect && roce_code_info(r.findings[i].code)->severity >= ROCE_SEV_WARN;
	}
	CHECK(expect == ROCE_OK || has(&r, expect), "frame %lu (%s): %s not raised", s->frames, what,
	      roce_code_info(expect)->name);
	CHECK(!other, "frame %lu (%s): %u other findings at warning level or above", s->frames, what, other);
}

static void run_sample(struct sample_run *s, void (*gen)(sample_emit_fn, void *))
{
	memset(s, 0, sizeof *s);
	harness_init(&s->c, 0);
	gen(sample_emit, s);
}

/* The rkey life cycle (flow_rkey.c). */
static void rkey_life_cycle(void)
{
	static struct sample_run s;
	run_sample(&s, sample_conv_mw);
	CHECK(s.frames == 22, "%lu frames", s.frames);
	CHECK(s.r[5].findings[0].observed == 0x00ABCD02 && s.r[5].findings[0].expected == 3,
	      "names the rkey and the frame of the SEND with Invalidate");
	CHECK(value_of(&s.r[5], ROCE_FLOW_V_RKEY_INV_ACK_IN) == 4, "and its acknowledgement");
	CHECK(!s.r[6].n_findings, "NAK Remote Access Error conforms");
	/* An acknowledged SEND with Invalidate may have been refused (a type
	 * 1 window, a registered region: rxe acknowledges those too), so
	 * neither is an error the capture can prove. */
	CHECK(roce_code_info(ROCE_F_RKEY_INV_EXECUTED)->severity == ROCE_SEV_WARN &&
	      roce_code_info(ROCE_F_RKEY_INV_EXECUTED_SEEN)->severity == ROCE_SEV_WARN,
	      "executed after an acknowledged invalidation, or maybe crossed: warnings");
	CHECK(value_of(&s.r[12], ROCE_FLOW_V_RKEY_INVALIDATED_IN) == 9, "the ACK names the invalidating SEND");
	harness_free(&s.c);

	/* Behind the SEND with Invalidate on its own QP: the responder takes
	 * it after the SEND, so one ACK for both executed it after the
	 * invalidation, however the capture point saw them. The key stayed
	 * valid (the invalidation was refused, or ignored): said once, and
	 * later accesses are not judged until the next invalidation. */
	struct conv c;
	harness_init(&c, 1024);
	struct pkt_opts key = { .rkey = 0x00001234 };
	feed(&c, ROCE_OP_RC_SEND_ONLY_WITH_INV, 1, 16, &key);
	struct roce_flow_result r = feed(&c, ROCE_OP_RC_WRITE_ONLY, 2, 16, &key);
	CHECK(!r.n_findings && value_of(&r, ROCE_FLOW_V_RKEY_INVALIDATED_IN) == 1, "behind the SEND: judged later");
	r = feed(&c, ROCE_OP_RC_ACK, 2, 0, NULL);
	CHECK(has(&r, ROCE_F_RKEY_INV_EXECUTED) && !errors(&r), "one ACK for both: the key stayed valid, a warning");
	struct pkt_opts read = { .rkey = 0x00001234, .dmalen = 64 };
	r = feed(&c, ROCE_OP_RC_READ_REQUEST, 3, 0, &read);
	CHECK(!r.n_findings, "a READ through the key that stayed valid: not judged again");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_ONLY, 3, 64, NULL);
	CHECK(!r.n_findings, "answered with data: no second finding for one refusal");

	/* A new SEND with Invalidate, acknowledged: judged again. */
	feed(&c, ROCE_OP_RC_SEND_ONLY_WITH_INV, 4, 16, &key);
	feed(&c, ROCE_OP_RC_ACK, 4, 0, NULL);
	r = feed(&c, ROCE_OP_RC_READ_REQUEST, 5, 0, &read);
	CHECK(has(&r, ROCE_F_RKEY_AFTER_INV), "a READ through it after the new invalidation");
	r = feed(&c, ROCE_OP_RC_READ_RESPONSE_ONLY, 5, 64, NULL);
	CHECK(has(&r, ROCE_F_RKEY_INV_EXECUTED) && !errors(&r), "answered with data: the key stayed valid again");
	feed(&c, ROCE_OP_RC_SEND_ONLY_WITH_INV, 6, 16, &key);
	feed(&c, ROCE_OP_RC_ACK, 6, 0, NULL);
	r = feed(&c, ROCE_OP_RC_CMP_SWAP, 7, 0, &key);
	CHECK(has(&r, ROCE_F_RKEY_AFTER_INV), "an atomic through it");
	struct pkt_opts nak = { .syndrome = roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS) };
	r = feed(&c, ROCE_OP_RC_ACK, 7, 0, &nak);
	CHECK(!r.n_findings, "rejected: conforming");
	r = feed(&c, ROCE_OP_RC_CMP_SWAP, 8, 0, &key);
	CHECK(has(&r, ROCE_F_RKEY_AFTER_INV), "invalid it stays: the next access is judged too");
	r = feed(&c, ROCE_OP_RC_ACK, 8, 0, &nak);
	CHECK(!r.n_findings, "rejected again");
	struct pkt_opts other = { .rkey = 0x00004321 };
	r = feed(&c, ROCE_OP_RC_WRITE_ONLY, 9, 16, &other);
	CHECK(!r.n_findings, "another rkey is untouched");
	harness_free(&c);
}

/* FLUSH and ATOMIC WRITE answered by a zero-length READ Response Only. */
static void placement(void)
{
	static struct sample_run s;
	run_sample(&s, sample_conv_placement);
	CHECK(s.frames == 11, "%lu frames", s.frames);
	for (unsigned f = 3; f <= 11; f += 2)
		CHECK(s.r[f].request_frame == f - 1, "frame %u answers frame %u (%u)", f, f - 1, s.r[f].request_frame);
	CHECK(value_of(&s.r[3], ROCE_FLOW_V_FLUSH_RESPONSE_TIME) == 8000 &&
	      !(s.r[3].has & ROCE_FLOW_HAS(READ_RESPONSE_TIME)), "a FLUSH's response time, not a READ's");
	CHECK(value_of(&s.r[11], ROCE_FLOW_V_ATOMIC_WRITE_RESPONSE_TIME) == 8000, "an ATOMIC WRITE's");
	CHECK(value_of(&s.r[11], ROCE_FLOW_V_BYTES_IN_FLIGHT) == 0, "nothing left in flight");
	CHECK(s.c.n_answered == 6 && s.c.answered_req[5] == 10 && s.c.answered_resp[5] == 11,
	      "each request's response reported once (%u)", s.c.n_answered);
	harness_free(&s.c);
}

/* XRC: the SRQ numbers a target QP's requests named. */
static void xrc_srqs(void)
{
	static struct sample_run s;
	run_sample(&s, sample_conv_xrc_srqs);
	struct roce_flow_dir_info req, resp;
	roce_flow_dir_info(s.r[7].dir, &req);
	roce_flow_dir_info(s.r[8].dir, &resp);
	CHECK(req.n_xrc_srqs == 2 && req.xrc_srqns[0] == 0x77 && req.xrc_srqns[1] == 0x78 && !req.xrc_srqs_more,
	      "two SRQs, in the order seen (%u)", req.n_xrc_srqs);
	CHECK(resp.n_xrc_srqs == 2 && resp.xrc_srqns == req.xrc_srqns, "the responses show their requests'");
	roce_flow_dir_info(s.r[1].dir, &req);
	CHECK(req.n_xrc_srqs == 2, "the direction's SRQs so far, later: all of them");
	harness_free(&s.c);
}

static void bulk_traffic(void)
{
	struct bulk b = { 0 };
	harness_init(&b.c, 0);
	sample_conv_bulk(bulk_emit, &b, 20000, 16);
	CHECK(b.frames >= 20000, "%lu frames", b.frames);
	CHECK(b.serious == 0, "%lu findings at warning level or above", b.serious);
	CHECK(b.responses > 5000 && b.linked == b.responses, "%lu of %lu responses linked", b.linked,
	      b.responses);
	CHECK(b.c.n_answered == 64, "requests answered through the callback (%u recorded)", b.c.n_answered);
	harness_free(&b.c);
}

/* A RoCE v1 RC SEND Only from GID a to GID b (v1), or the same over RoCEv2
 * IPv6 between the same addresses, to QP_B with psn: fed in frame order. */
static struct roce_flow_result feed_version(struct conv *c, bool v1, uint32_t psn)
{
	static const uint8_t a[16] = { 0xfe, 0x80, [15] = 1 }, b[16] = { 0xfe, 0x80, [15] = 2 };
	uint8_t frame[SAMPLE_FRAME_MAX];
	struct roce_desc d;
	if (v1) {
		roce_desc_init_v1(&d, ROCE_OP_RC_SEND_ONLY);
		memcpy(roce_desc_hdr(&d, ROCE_H_GRH) + 8, a, 16);
		memcpy(roce_desc_hdr(&d, ROCE_H_GRH) + 24, b, 16);
	} else {
		roce_desc_init(&d, ROCE_OP_RC_SEND_ONLY, 6);
		memcpy(d.ip + 8, a, 16); /* the IPv6 source and destination, as in the GRH */
		memcpy(d.ip + 24, b, 16);
	}
	roce_bth_set_destqp(d.bth, QP_B);
	roce_bth_set_psn(d.bth, psn);
	long n = roce_build_frame(&d, frame, sizeof frame);
	CHECK(n > 0, "build %s", v1 ? "RoCE v1" : "RoCEv2");
	struct roce_pkt p;
	roce_parse_frame(&p, frame, (size_t)n, (size_t)n, ROCE_PARSE_ROCEV1);
	c->now_ns += 10000;
	struct roce_flow_input in = { .frame = ++c->frame, .ts_ns = c->now_ns, .wire_len = (uint32_t)n };
	CHECK(roce_flow_input_from(&in, &p) && in.rocev1 == v1, "%s: an input, of its version", v1 ? "v1" : "v2");
	struct roce_flow_result r;
	roce_flow_packet(&c->env, &in, &r);
	return r;
}

static void count_pair(void *arg, const struct roce_flow_qp_pair *p)
{
	unsigned *n = arg;
	n[p->rocev1]++;
}

/* A RoCE v1 QP and a RoCEv2 QP with the same numbers between the same
 * addresses (a GID that is the IPv6 address) are two QPs: each analysed on
 * its own version's packets. */
static void versions_apart(void)
{
	struct conv c;
	harness_init(&c, 1024);
	struct roce_flow_result v1 = feed_version(&c, true, 10);
	struct roce_flow_result v2 = feed_version(&c, false, 500);
	CHECK(v1.cls == ROCE_FLOW_FIRST && v2.cls == ROCE_FLOW_FIRST && v1.dir_id != v2.dir_id,
	      "a v1 and a v2 QP with the same numbers: two directions (%u, %u), each first", v1.dir_id, v2.dir_id);
	v1 = feed_version(&c, true, 11);
	v2 = feed_version(&c, false, 501);
	CHECK(v1.cls == ROCE_FLOW_IN_ORDER && v2.cls == ROCE_FLOW_IN_ORDER, "each in order in its own QP (%d, %d)",
	      v1.cls, v2.cls);
	struct roce_flow_dir_info i1, i2;
	roce_flow_dir_info(v1.dir, &i1);
	roce_flow_dir_info(v2.dir, &i2);
	CHECK(i1.rocev1 && !i2.rocev1 && i1.ip_version == 6 && i2.ip_version == 6, "the directions know their version");
	unsigned pairs[2] = { 0, 0 };
	roce_flow_qp_pairs(&c.env, count_pair, pairs);
	CHECK(pairs[0] == 1 && pairs[1] == 1, "one QP pair of each version (v2 %u, v1 %u)", pairs[0], pairs[1]);
	harness_free(&c);
}

static void scenarios(void)
{
	in_order_and_acks();
	gaps_retransmissions_reorder();
	nak_and_go_back_n();
	resend_overtakes_new_psns();
	rnr();
	reads();
	atomics_and_sequence();
	source_port();
	connection_manager();
	congestion();
	rkey_life_cycle();
	placement();
	xrc_srqs();
	bulk_traffic();
	versions_apart();
	retransmissions_changed();
}

int main(void)
{
	scenarios();
	rings_unkeyed = true;
	scenarios();
	CHECK(rings_released > 0, "no ring was replaced by a larger one and released");
	for (unsigned code = 0; code < ROCE_CODE_COUNT; code++)
		if (roce_code_is_flow((enum roce_code)code))
			CHECK(raised[code], "flow code %s never raised", roce_code_info((enum roce_code)code)->name);
	void (*others[])(int *, int *) = { harness_checks, retx_checks };
	for (unsigned i = 0; i < sizeof others / sizeof *others; i++) {
		int checks, failures;
		others[i](&checks, &failures);
		test_checks += checks;
		test_failures += failures;
	}
	return test_result("test_flow");
}
