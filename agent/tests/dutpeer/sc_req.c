/*
 * The RC requester's send path: a three-packet SEND with Immediate, each
 * packet carrying its slice of the posted bytes and the last one the
 * immediate; it completes on the peer's ACK. (AckReq, SE, PSNs and their
 * wrap, segmentation by the PMTU and completion order are the
 * rc-requester/, encapsulation/, psn-wrap/ and pmtu/ cases'.)
 */
#include "dutpeer.h"

#include <string.h>

bool sc_req_send(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	const uint32_t len = 2 * PMTU + 5, imm = 0x12345678u;
	const uint8_t *data = pattern(18);
	REQUIRE(mr_write(&q, 0, data, len), "write_mr");
	REQUIRE(post_send(&q, "SEND_WITH_IMM", 1, 0, len, "\"imm_data\":305419896"), "post_send");
	const char *ops[] = { "RC SEND First", "RC SEND Middle", "RC SEND Last with Immediate" };
	for (uint32_t i = 0; i < 3; i++) {
		if (!expect_req(&q, ops[i], q.dut_psn + i, 300, &g))
			return false;
		uint32_t want = i < 2 ? PMTU : len - 2 * PMTU;
		REQUIRE(g.p.payload_len == want, "packet %u carries %u bytes, expected %u", i, g.p.payload_len, want);
		REQUIRE(memcmp(g.p.buf + g.p.payload_off, data + i * PMTU, want) == 0,
			"packet %u does not carry bytes %u..%u of the posted buffer", i, i * PMTU, i * PMTU + want - 1);
	}
	REQUIRE(roce_immdt_imm(roce_pkt_hdr(&g.p, ROCE_H_IMMDT)) == imm, "immediate data 0x%x, expected 0x%x",
		roce_immdt_imm(roce_pkt_hdr(&g.p, ROCE_H_IMMDT)), imm);
	tx_ack(&q, q.dut_psn + 2, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 1);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "SEND") == 0,
		"no successful SEND completion (%s %s)", w.status, w.opcode);
	return true;
}
