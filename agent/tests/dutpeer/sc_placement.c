/*
 * FLUSH and ATOMIC WRITE (IBTA 1.5 memory placement): the responder
 * answers each with a zero-length RDMA READ Response Only carrying an ACK
 * (as rxe's send_read_response_ack), for each placement type and level,
 * after the WRITE before it is placed (a READ through another QP sees it
 * once the answer is out); a duplicate is answered again without being
 * executed again; the rights (FLUSH_GLOBAL/PERSISTENT; REMOTE_WRITE for
 * ATOMIC WRITE, as rxe asks) and ATOMIC WRITE's alignment are enforced; a
 * device that does not report them NAKs them Invalid Request. The
 * requester builds both and completes them on their responses.
 */
#include "dutpeer.h"

#include <string.h>

#define FLUSH_ACCESS "[\"LOCAL_WRITE\",\"REMOTE_WRITE\",\"REMOTE_READ\",\"REMOTE_ATOMIC\",\"FLUSH_GLOBAL\",\"FLUSH_PERSISTENT\"]"

static void tx_flush(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len, unsigned plt, unsigned sel)
{
	struct roce_desc d;
	desc(q, &d, "RC FLUSH", psn);
	uint8_t *feth = roce_desc_hdr(&d, ROCE_H_FETH);
	roce_feth_set_plt(feth, plt);
	roce_feth_set_sel(feth, sel);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, va);
	roce_reth_set_rkey(reth, rkey);
	roce_reth_set_dmalen(reth, len);
	roce_bth_set_ackreq(d.bth, 1);
	tx(&d);
}

static void tx_atomic_write(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, const uint8_t *value)
{
	struct roce_desc d;
	desc(q, &d, "RC ATOMIC WRITE", psn);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, va);
	roce_reth_set_rkey(reth, rkey);
	roce_reth_set_dmalen(reth, 8);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = value;
	d.payload_len = 8;
	tx(&d);
}

/* The answer to a FLUSH or ATOMIC WRITE: RDMA READ Response Only, no
 * payload, AETH ACK, the request's PSN. */
static bool expect_placement_response(struct dq *q, uint32_t psn)
{
	struct got g;
	REQUIRE(rx(q->my_qpn, 300, &g), "no answer to PSN %u within 300 ms", psn & ROCE_PSN_MASK);
	REQUIRE(is_op(&g, "RC RDMA READ Response Only"), "got %s, expected RDMA READ Response Only", g.op->name);
	REQUIRE(g.p.payload_len == 0, "the response carries %u bytes, expected none", g.p.payload_len);
	const uint8_t *a = aeth_of(&g);
	REQUIRE(a && roce_aeth_type(a) == ROCE_SYN_ACK, "the response's AETH is not an ACK");
	REQUIRE(g.psn == (psn & ROCE_PSN_MASK), "PSN %u, expected %u", g.psn, psn & ROCE_PSN_MASK);
	return true;
}

/* Each placement type and level, a duplicate, and a region without the
 * right. */
bool sc_flush(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ .access = FLUSH_ACCESS }))
		return false;
	tx_flush(&q, q.epsn, q.addr, q.rkey, 4096, 1, 0);
	if (!expect_placement_response(&q, q.epsn))
		return false;
	tx_flush(&q, q.epsn + 1, q.addr + 100, q.rkey, 0, 2, 1);
	if (!expect_placement_response(&q, q.epsn + 1))
		return false;
	tx_flush(&q, q.epsn + 2, q.addr + 8192, q.rkey, 512, 3, 0);
	if (!expect_placement_response(&q, q.epsn + 2))
		return false;
	/* A duplicate is answered again. */
	tx_flush(&q, q.epsn + 1, q.addr + 100, q.rkey, 0, 2, 1);
	if (!expect_placement_response(&q, q.epsn + 1))
		return false;
	q.epsn += 3;
	JsonObject *r = call("reg_mr", "{\"pd\":%d,\"length\":4096,\"access\":[\"LOCAL_WRITE\",\"REMOTE_WRITE\"]}", q.pd);
	REQUIRE(r, "reg_mr");
	tx_flush(&q, q.epsn, (uint64_t)jint(r, "addr"), (uint32_t)jint(r, "rkey"), 64, 1, 0);
	return expect_nak(&q, ROCE_NAK_REMOTE_ACCESS, q.epsn);
}

/* WRITE, FLUSH, answer: the WRITE's bytes are visible by then, to a READ
 * through another QP sent the moment the answer arrives (a read through
 * the agent comes too late to see a device that answered early). */
bool sc_flush_order(void)
{
	struct dq q, r;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ .access = FLUSH_ACCESS }) ||
	    !dut_qp(&r, (struct dq_opts){ .same_session = true, .pd = q.pd }))
		return false;
	write_only(&q, q.epsn, q.addr + 1024, q.rkey, pattern(51), 256);
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	tx_flush(&q, q.epsn + 1, q.addr + 1024, q.rkey, 256, 1, 0);
	if (!expect_placement_response(&q, q.epsn + 1))
		return false;
	struct roce_desc d;
	desc(&r, &d, "RC RDMA READ Request", r.epsn);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, q.addr + 1024);
	roce_reth_set_rkey(reth, q.rkey);
	roce_reth_set_dmalen(reth, 256);
	roce_bth_set_ackreq(d.bth, 1);
	tx(&d);
	REQUIRE(rx(r.my_qpn, 300, &g), "no answer to the READ through the second QP");
	REQUIRE(is_op(&g, "RC RDMA READ Response Only") && g.p.payload_len == 256 &&
		memcmp(g.buf + g.p.payload_off, pattern(51), 256) == 0,
		"answered FLUSH, yet a READ through another QP does not see the WRITE before it (%s, %u bytes)", g.op->name,
		g.p.payload_len);
	return true;
}

/* ATOMIC WRITE: the 8 bytes in one piece, a duplicate not executed again,
 * an unaligned address and a region with neither REMOTE_WRITE nor
 * REMOTE_ATOMIC refused; the right it needs is REMOTE_WRITE (rxe): a
 * write-only region takes it, an atomic-only one refuses it. */
bool sc_atomic_write(void)
{
	struct dq q;
	static const uint8_t v[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	uint8_t buf[8], zero[8] = { 0 };
	if (!dut_qp(&q, (struct dq_opts){ 0 }) || !mr_write(&q, 80, zero, 8))
		return false;
	tx_atomic_write(&q, q.epsn, q.addr + 80, q.rkey, v);
	if (!expect_placement_response(&q, q.epsn))
		return false;
	REQUIRE(mr_read(&q, 80, 8, buf) && memcmp(buf, v, 8) == 0, "memory after ATOMIC WRITE: %02x%02x%02x%02x%02x%02x%02x%02x",
		buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7]);
	/* The duplicate is answered, not executed: the bytes written since stay. */
	REQUIRE(mr_write(&q, 80, zero, 8), "write_mr");
	tx_atomic_write(&q, q.epsn, q.addr + 80, q.rkey, v);
	if (!expect_placement_response(&q, q.epsn))
		return false;
	REQUIRE(mr_read(&q, 80, 8, buf) && memcmp(buf, zero, 8) == 0, "a duplicate ATOMIC WRITE was executed again");
	q.epsn++;
	tx_atomic_write(&q, q.epsn, q.addr + 84, q.rkey, v);
	if (!expect_nak(&q, ROCE_NAK_INVALID_REQUEST, q.epsn))
		return false;
	/* The QPs allow everything: only the region's right decides. */
	static const char *const refusing[] = { "[\"LOCAL_WRITE\",\"REMOTE_READ\"]", "[\"LOCAL_WRITE\",\"REMOTE_ATOMIC\"]" };
	for (int i = 0; i < 2; i++) {
		struct dq n;
		if (!dut_qp(&n, (struct dq_opts){ 0 }))
			return false;
		JsonObject *r = call("reg_mr", "{\"pd\":%d,\"length\":4096,\"access\":%s}", n.pd, refusing[i]);
		REQUIRE(r, "reg_mr");
		tx_atomic_write(&n, n.epsn, (uint64_t)jint(r, "addr") + 80, (uint32_t)jint(r, "rkey"), v);
		if (!expect_nak(&n, ROCE_NAK_REMOTE_ACCESS, n.epsn))
			return false;
	}
	struct dq w;
	if (!dut_qp(&w, (struct dq_opts){ .access = "[\"LOCAL_WRITE\",\"REMOTE_WRITE\"]" }))
		return false;
	tx_atomic_write(&w, w.epsn, w.addr + 80, w.rkey, v);
	if (!expect_placement_response(&w, w.epsn))
		return false;
	REQUIRE(mr_read(&w, 80, 8, buf) && memcmp(buf, v, 8) == 0, "ATOMIC WRITE to a write-only region not placed");
	return true;
}

/* The capabilities agree with the answers: listed, a FLUSH and an ATOMIC
 * WRITE are executed; not listed, both are NAKed Invalid Request. */
bool sc_placement_caps(void)
{
	struct dq q;
	static const uint8_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	if (!dut_qp(&q, (struct dq_opts){ .access = FLUSH_ACCESS }))
		return false;
	JsonObject *r = call("query_device", "{}");
	REQUIRE(r, "query_device");
	JsonArray *caps = json_object_get_array_member(r, "capabilities");
	bool flush = false, aw = false;
	for (guint i = 0; i < json_array_get_length(caps); i++) {
		flush |= strcmp(json_array_get_string_element(caps, i), "FLUSH") == 0;
		aw |= strcmp(json_array_get_string_element(caps, i), "ATOMIC_WRITE") == 0;
	}
	tx_atomic_write(&q, q.epsn, q.addr + 80, q.rkey, v);
	if (!aw)
		return expect_nak(&q, ROCE_NAK_INVALID_REQUEST, q.epsn);
	if (!expect_placement_response(&q, q.epsn))
		return false;
	tx_flush(&q, q.epsn + 1, q.addr, q.rkey, 64, 1, 0);
	if (!flush)
		return expect_nak(&q, ROCE_NAK_INVALID_REQUEST, q.epsn + 1);
	return expect_placement_response(&q, q.epsn + 1);
}

static void tx_read_response_ack(struct dq *q, uint32_t psn)
{
	struct roce_desc d;
	desc(q, &d, "RC RDMA READ Response Only", psn);
	uint8_t *a = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(a, ROCE_SYN_ACK);
	roce_aeth_set_value(a, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(a, 1);
	tx(&d);
}

/* The requester: both built as asked, completed on their responses. */
bool sc_req_placement(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":31,\"opcode\":\"ATOMIC_WRITE\",\"remote_addr\":4660,\"rkey\":1911,"
				  "\"value\":72623859790382856}", q.qp),
		"post_send ATOMIC_WRITE: %s %s", P.err_code, P.err_msg);
	if (!expect_req(&q, "RC ATOMIC WRITE", q.dut_psn, 500, &g))
		return false;
	const uint8_t *reth = roce_pkt_hdr(&g.p, ROCE_H_RETH);
	static const uint8_t be[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }; /* 0x0102030405060708 on the wire */
	REQUIRE(roce_reth_va(reth) == 4660 && roce_reth_rkey(reth) == 1911 && roce_reth_dmalen(reth) == 8,
		"RETH va %llu rkey %u length %u", (unsigned long long)roce_reth_va(reth), roce_reth_rkey(reth),
		roce_reth_dmalen(reth));
	REQUIRE(g.p.payload_len == 8 && memcmp(g.buf + g.p.payload_off, be, 8) == 0, "ATOMIC WRITE's payload is not the value");
	tx_read_response_ack(&q, q.dut_psn);
	REQUIRE(poll_cq(&q, 1000, &w) == 1 && strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "ATOMIC_WRITE") == 0,
		"ATOMIC_WRITE completion: %s %s", w.opcode, w.status);
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":32,\"opcode\":\"FLUSH\",\"remote_addr\":4660,\"rkey\":1911,"
				  "\"length\":4096,\"placement\":[\"GLOBAL\",\"PERSISTENT\"],\"level\":\"REGION\"}", q.qp),
		"post_send FLUSH: %s %s", P.err_code, P.err_msg);
	if (!expect_req(&q, "RC FLUSH", q.dut_psn + 1, 500, &g))
		return false;
	const uint8_t *feth = roce_pkt_hdr(&g.p, ROCE_H_FETH);
	reth = roce_pkt_hdr(&g.p, ROCE_H_RETH);
	REQUIRE(roce_feth_plt(feth) == 3 && roce_feth_sel(feth) == 1, "FETH placement %u level %u, expected 3 and 1",
		roce_feth_plt(feth), roce_feth_sel(feth));
	REQUIRE(roce_reth_dmalen(reth) == 4096 && roce_reth_rkey(reth) == 1911, "FLUSH's RETH");
	tx_read_response_ack(&q, q.dut_psn + 1);
	REQUIRE(poll_cq(&q, 1000, &w) == 1 && strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "FLUSH") == 0,
		"FLUSH completion: %s %s", w.opcode, w.status);
	return true;
}
