/*
 * UD: a receive (the L3 header in front of the data, A17.4.5, and the
 * completion's GRH flag) and a send (DETH, immediate data, and a Q_Key
 * with the MSB set, which sends the QP's own Q_Key).
 */
#include "dutpeer.h"

#include <string.h>

static void ud_send(struct dq *q, uint32_t psn, uint32_t qkey, size_t len)
{
	struct roce_desc d;
	desc(q, &d, "UD SEND Only", psn);
	uint8_t *deth = roce_desc_hdr(&d, ROCE_H_DETH);
	roce_deth_set_qkey(deth, qkey);
	roce_deth_set_srcqp(deth, q->my_qpn);
	d.payload = pattern(16);
	d.payload_len = len;
	tx(&d);
}

bool sc_ud_send(void)
{
	struct dq q;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	ud_send(&q, 5, 0x11111111u, 200);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no UD completion");
	REQUIRE(w.byte_len == 240 && w.grh && w.src_qp == q.my_qpn, "byte_len %u grh %d src_qp 0x%x", w.byte_len, w.grh, w.src_qp);
	uint8_t buf[240];
	REQUIRE(mr_read(&q, 32768, 240, buf), "read_mr");
	/* A17.4.5: IPv6 fills the 40 bytes; IPv4 sits in bytes 20..39. */
	const uint8_t *ip = P.ipv == 6 ? buf : buf + 20;
	REQUIRE((ip[0] >> 4) == P.ipv, "the L3 header is not where A17.4.5 puts it");
	REQUIRE(memcmp(P.ipv == 6 ? roce_ipv6_src(ip) : roce_ipv4_src(ip), P.my_ip, P.ipv == 6 ? 16 : 4) == 0,
		"the L3 header's source is not the sender");
	REQUIRE(memcmp(buf + 40, pattern(16), 200) == 0, "UD payload differs");
	return true;
}

bool sc_req_ud_send(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	JsonObject *r = call("create_ah", "{\"pd\":%d,\"dgid\":\"%s\",\"sgid_index\":%d,\"hop_limit\":%d,\"traffic_class\":%d}",
			     q.pd, peer_gid(), P.ipv == 4 ? 0 : 1, AV_HOP, AV_TC);
	REQUIRE(r, "create_ah");
	int ah = (int)jint(r, "ah");
	REQUIRE(mr_write(&q, 0, pattern(24), 300), "write_mr");
	char extra[128];
	snprintf(extra, sizeof extra, "\"ah\":%d,\"remote_qpn\":%u,\"remote_qkey\":%u", ah, q.my_qpn, 0x33333333u);
	REQUIRE(post_send(&q, "SEND_WITH_IMM", 1, 0, 300, extra), "post_send");
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":2,\"opcode\":\"SEND\",\"sge\":[{\"mr\":%d,\"offset\":0,\"length\":4}],"
		     "\"ah\":%d,\"remote_qpn\":%u,\"remote_qkey\":%u}", q.qp, q.mr, ah, q.my_qpn, 0x80000000u), "post_send");
	if (!expect_req(&q, "UD SEND Only with Immediate", q.dut_psn, 500, &g))
		return false;
	const uint8_t *deth = roce_pkt_hdr(&g.p, ROCE_H_DETH);
	REQUIRE(roce_deth_qkey(deth) == 0x33333333u && roce_deth_srcqp(deth) == q.qpn, "DETH Q_Key 0x%x SrcQP 0x%x",
		roce_deth_qkey(deth), roce_deth_srcqp(deth));
	REQUIRE(g.p.payload_len == 300 && memcmp(g.p.buf + g.p.payload_off, pattern(24), 300) == 0, "UD data differs");
	if (!expect_req(&q, "UD SEND Only", q.dut_psn + 1, 500, &g))
		return false;
	REQUIRE(roce_deth_qkey(roce_pkt_hdr(&g.p, ROCE_H_DETH)) == 0x11111111u,
		"a Q_Key with the MSB set must send the QP's own Q_Key");
	REQUIRE(poll_cq(&q, 500, &w) >= 1 && strcmp(w.status, "SUCCESS") == 0, "no UD send completion");
	return true;
}
