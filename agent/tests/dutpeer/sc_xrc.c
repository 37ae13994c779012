/*
 * XRC (Annex A14): a target QP (XRC_RECV) takes each request's receive
 * WQE from the XRC SRQ its XRCETH names, completes it on that SRQ's CQ,
 * answers with XRC opcodes and no XRCETH, and rejects a request naming an
 * XRC SRQ of another domain (NAK Remote Access Error, as rxe's XRC
 * patches); an initiator QP (XRC_SEND) sends XRC requests whose XRCETH
 * names the work request's remote_srqn.
 */
#include "dutpeer.h"

#include <string.h>

static bool rc_like_up(struct dq *q, bool target)
{
	const char *access = "[\"LOCAL_WRITE\",\"REMOTE_WRITE\",\"REMOTE_READ\"]";
	REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"INIT\",\"port\":1,\"pkey_index\":0,\"access\":%s}", q->qp, access),
		"INIT: %s", P.err_msg);
	q->my_qpn = P.next_qpn++;
	q->epsn = 3000 + (q->my_qpn & 0xFF) * 16;
	q->dut_psn = 0x400;
	/* The verbs' table: an initiator takes no responder attributes at
	 * RTR, a target only the timeout and send PSN at RTS. */
	REQUIRE(call("modify_qp",
		     "{\"qp\":%d,\"state\":\"RTR\",\"path_mtu\":%d,\"dest_qpn\":%u,\"rq_psn\":%u,\"dgid\":\"%s\","
		     "\"sgid_index\":%d,\"hop_limit\":%d,\"traffic_class\":%d%s}",
		     q->qp, PMTU, q->my_qpn, q->epsn, peer_gid(), P.ipv == 4 ? 0 : 1, AV_HOP, AV_TC,
		     target ? ",\"max_dest_rd_atomic\":4,\"min_rnr_timer\":12" : ""),
		"RTR: %s", P.err_msg);
	REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"RTS\",\"sq_psn\":%u,\"timeout\":16%s}", q->qp,
		     q->dut_psn, target ? "" : ",\"retry_cnt\":3,\"rnr_retry\":3,\"max_rd_atomic\":4"),
		"RTS: %s", P.err_msg);
	peer_endpoint(q);
	return true;
}

static bool xrc_srq(int pd, int xrcd, int cq, int mr, int wr_id, int *srq, uint32_t *srqn)
{
	JsonObject *r = call("create_srq", "{\"pd\":%d,\"xrcd\":%d,\"cq\":%d,\"max_wr\":8}", pd, xrcd, cq);
	REQUIRE(r, "create_srq with an XRC domain: %s %s", P.err_code, P.err_msg);
	*srq = (int)jint(r, "srq");
	*srqn = (uint32_t)jint(r, "srqn");
	REQUIRE(*srqn > 0 && *srqn <= 0xFFFFFF, "srqn %u", *srqn);
	REQUIRE(call("post_srq_recv", "{\"srq\":%d,\"wr_id\":%d,\"sge\":[{\"mr\":%d,\"offset\":%d,\"length\":1024}]}", *srq,
		     wr_id, mr, wr_id * 1024),
		"post_srq_recv: %s", P.err_msg);
	return true;
}

/* An XRC response from the DUT: its opcode, AETH syndrome type and value,
 * PSN, and nothing after the AETH (an XRCETH would be). */
static bool expect_xrc_aeth(struct dq *q, unsigned type, int value, uint32_t psn)
{
	struct got g;
	REQUIRE(rx(q->my_qpn, 300, &g), "no XRC response within 300 ms");
	REQUIRE(is_op(&g, "XRC Acknowledge"), "got %s, expected an XRC Acknowledge", g.op->name);
	REQUIRE(g.p.payload_len == 0, "the XRC Acknowledge carries %u bytes after its AETH (an XRCETH?)", g.p.payload_len);
	const uint8_t *a = aeth_of(&g);
	REQUIRE(roce_aeth_type(a) == type && (value < 0 || (int)roce_aeth_value(a) == value),
		"syndrome 0x%02x, expected type %u value %d", roce_aeth_syndrome(a), type, value);
	REQUIRE(g.psn == (psn & ROCE_PSN_MASK), "PSN %u, expected %u", g.psn, psn & ROCE_PSN_MASK);
	return true;
}

static void xrc_send(struct dq *q, uint32_t srqn, unsigned seed)
{
	struct roce_desc d;
	desc(q, &d, "XRC SEND Only", q->epsn);
	roce_xrceth_set_srqn(roce_desc_hdr(&d, ROCE_H_XRCETH), srqn);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(seed);
	d.payload_len = 40;
	tx(&d);
}

bool sc_xrc_target(void)
{
	struct dq t = { 0 };
	JsonObject *r;
	REQUIRE(session_start(), "agent session");
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	int pd = (int)jint(r, "pd");
	REQUIRE((r = call("create_cq", "{\"cqe\":64}")), "create_cq");
	t.cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":65536,\"access\":[\"LOCAL_WRITE\"]}", pd)), "reg_mr");
	int mr = (int)jint(r, "mr");
	int xrcd[2], srq[3];
	uint32_t srqn[3];
	for (int i = 0; i < 2; i++) {
		REQUIRE((r = call("alloc_xrcd", "{}")), "alloc_xrcd: %s %s", P.err_code, P.err_msg);
		xrcd[i] = (int)jint(r, "xrcd");
	}
	/* Two SRQs of the first domain (the one named is not the first), one
	 * of the second. */
	if (!xrc_srq(pd, xrcd[0], t.cq, mr, 11, &srq[0], &srqn[0]) || !xrc_srq(pd, xrcd[0], t.cq, mr, 21, &srq[1], &srqn[1]) ||
	    !xrc_srq(pd, xrcd[1], t.cq, mr, 31, &srq[2], &srqn[2]))
		return false;
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"XRC_RECV\",\"xrcd\":%d}", pd, xrcd[0])),
		"create_qp XRC_RECV: %s %s", P.err_code, P.err_msg);
	t.qp = (int)jint(r, "qp");
	t.qpn = (uint32_t)jint(r, "qpn");
	if (!rc_like_up(&t, true))
		return false;
	xrc_send(&t, srqn[1], 41);
	if (!expect_xrc_aeth(&t, ROCE_SYN_ACK, -1, t.epsn))
		return false;
	t.epsn++;
	r = call("poll_cq", "{\"cq\":%d,\"max\":4,\"timeout_ms\":500}", t.cq);
	JsonArray *a = r ? json_object_get_array_member(r, "completions") : NULL;
	REQUIRE(a && json_array_get_length(a) == 1, "expected one receive completion on the XRC SRQs' CQ");
	JsonObject *c = json_array_get_object_element(a, 0);
	REQUIRE(jint(c, "wr_id") == 21 && strcmp(json_object_get_string_member(c, "status"), "SUCCESS") == 0,
		"the receive came from wr_id %lld (%s); the XRCETH named the SRQ of wr_id 21",
		(long long)jint(c, "wr_id"), json_object_get_string_member(c, "status"));
	REQUIRE(jint(c, "qp") == t.qp && jint(c, "byte_len") == 40, "completion qp %lld byte_len %lld",
		(long long)jint(c, "qp"), (long long)jint(c, "byte_len"));
	/* An SRQ of the other domain: rejected. */
	xrc_send(&t, srqn[2], 42);
	return expect_xrc_aeth(&t, ROCE_SYN_NAK, ROCE_NAK_REMOTE_ACCESS, t.epsn);
}

bool sc_xrc_initiator(void)
{
	struct dq q = { 0 };
	JsonObject *r;
	struct got g;
	struct wc w;
	REQUIRE(session_start(), "agent session");
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	q.pd = (int)jint(r, "pd");
	REQUIRE((r = call("create_cq", "{\"cqe\":64}")), "create_cq");
	q.cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":8192,\"access\":[\"LOCAL_WRITE\"]}", q.pd)), "reg_mr");
	q.mr = (int)jint(r, "mr");
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"XRC_SEND\",\"send_cq\":%d}", q.pd, q.cq)),
		"create_qp XRC_SEND: %s %s", P.err_code, P.err_msg);
	q.qp = (int)jint(r, "qp");
	q.qpn = (uint32_t)jint(r, "qpn");
	if (!rc_like_up(&q, false))
		return false;
	REQUIRE(post_send(&q, "SEND", 9, 0, 100, "\"remote_srqn\":4660"), "post_send: %s", P.err_msg);
	if (!expect_req(&q, "XRC SEND Only", q.dut_psn, 500, &g))
		return false;
	const uint8_t *x = roce_pkt_hdr(&g.p, ROCE_H_XRCETH);
	REQUIRE(x && roce_xrceth_srqn(x) == 4660, "the XRCETH names SRQ %u, expected 4660", x ? roce_xrceth_srqn(x) : 0);
	struct roce_desc d;
	desc(&q, &d, "XRC Acknowledge", q.dut_psn);
	uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(aeth, ROCE_SYN_ACK);
	roce_aeth_set_value(aeth, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(aeth, 1);
	tx(&d);
	REQUIRE(poll_cq(&q, 1000, &w) == 1, "no send completion");
	REQUIRE(strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "SEND") == 0 && w.wr_id == 9, "completion %s %s",
		w.opcode, w.status);
	return true;
}
