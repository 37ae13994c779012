/*
 * The RC responder's own paths: a SEND (ACK, MSN, completion, data), a
 * SEND with Invalidate naming a registered MR (refused as rxe refuses it:
 * only a fast-registration MR or a type 2 window may be invalidated
 * remotely; the ACK, a failed receive, the QP in Error, the rkey still
 * valid; sc_mw.c has the windows), and the responder's QP after each kind of NAK: RTS after a PSN
 * Sequence Error or an RNR NAK, ERR after a Remote Access Error or an
 * Invalid Request.
 */
#include "dutpeer.h"

#include <string.h>

bool sc_send_only(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(1), 100, true);
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	REQUIRE(roce_aeth_msn(aeth_of(&g)) == 1, "MSN %u after one message, expected 1", roce_aeth_msn(aeth_of(&g)));
	REQUIRE(poll_cq(&q, 1000, &w) == 1, "no receive completion");
	REQUIRE(strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "RECV") == 0, "completion %s %s", w.status, w.opcode);
	REQUIRE(w.byte_len == 100 && w.wr_id == 100, "byte_len %u wr_id %llu", w.byte_len, (unsigned long long)w.wr_id);
	REQUIRE(w.src_qp == q.my_qpn, "src_qp 0x%x", w.src_qp);
	uint8_t buf[100];
	REQUIRE(mr_read(&q, 32768, 100, buf) && memcmp(buf, pattern(1), 100) == 0, "received data differs");
	return true;
}

bool sc_send_inv(void)
{
	struct dq q, other;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ 0 }) || !dut_qp(&other, (struct dq_opts){ .same_session = true, .pd = q.pd }))
		return false;
	struct roce_desc d;
	desc(&q, &d, "RC SEND Only with Invalidate", q.epsn);
	roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), q.rkey);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(23);
	d.payload_len = 12;
	tx(&d);
	/* Answered as rxe answers it: ACKed, the receive failed. */
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	JsonObject *r = call("poll_cq", "{\"cq\":%d,\"max\":1,\"timeout_ms\":500}", q.cq);
	REQUIRE(r && json_array_get_length(json_object_get_array_member(r, "completions")) == 1, "no completion");
	JsonObject *c = json_array_get_object_element(json_object_get_array_member(r, "completions"), 0);
	REQUIRE(strcmp(json_object_get_string_member(c, "status"), "REM_INV_REQ_ERR") == 0, "receive completion %s, expected REM_INV_REQ_ERR",
		json_object_get_string_member(c, "status"));
	JsonArray *fl = json_object_get_array_member(c, "wc_flags");
	for (guint i = 0; i < json_array_get_length(fl); i++)
		REQUIRE(strcmp(json_array_get_string_element(fl, i), "WITH_INV") != 0, "WITH_INV on a refused invalidation");
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "the QP is %s after a refused invalidation, not ERR", qp_state(&q));
	/* The MR's rkey is still valid: a WRITE through it on another QP. */
	write_only(&other, other.epsn, q.addr, q.rkey, pattern(23), 8);
	return expect_ack(&other, other.epsn, &g);
}

/* The responder's QP after its NAKs: a PSN Sequence Error and an RNR NAK
 * leave it in RTS, ready for the retry; a Remote Access Error and an
 * Invalid Request are fatal and leave it in ERR. */
bool sc_resp_errors(void)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn + 2, pattern(4), 8, true);
	if (!expect_nak(&q, ROCE_NAK_PSN_SEQ_ERR, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "RTS") == 0, "the QP is %s after a sequence error, not RTS", qp_state(&q));
	tx_req(&q, "RC SEND Only", q.epsn, pattern(4), 8, true);
	if (!expect_ack(&q, q.epsn, &g))
		return false;

	if (!dut_qp(&q, (struct dq_opts){ .recv_wqes = -1, .min_rnr_timer = 14 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(11), 32, true);
	if (!expect_aeth(&q, 300, ROCE_SYN_RNR_NAK, 14, q.epsn, &g))
		return false;
	REQUIRE(strcmp(qp_state(&q), "RTS") == 0, "the QP is %s after an RNR NAK, not RTS", qp_state(&q));

	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	write_only(&q, q.epsn, q.addr, q.rkey ^ 0x5500, pattern(8), 64);
	if (!expect_nak(&q, ROCE_NAK_REMOTE_ACCESS, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "the QP is %s after a Remote Access Error, not ERR", qp_state(&q));

	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Middle", q.epsn, pattern(12), PMTU, true);
	if (!expect_nak(&q, ROCE_NAK_INVALID_REQUEST, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "the QP is %s after an Invalid Request, not ERR", qp_state(&q));
	return true;
}
