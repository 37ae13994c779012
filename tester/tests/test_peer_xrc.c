/*
 * The peer engine's XRC, FLUSH, ATOMIC WRITE and SEND with Invalidate,
 * against frames a DUT would send (built with libroce's builders): as XRC
 * initiator its requests carry the XRCETH and take XRC responses; as XRC
 * target it receives into the XRC SRQ a request names and refuses a number
 * it has no SRQ of; as requester it builds FLUSH (FETH + RETH) and ATOMIC
 * WRITE (RETH + 8 bytes) and completes them on the zero-length READ
 * Response Only a conforming responder answers; as responder it answers
 * them the same way, or NAKs what the rights or alignment refuse; a SEND
 * with Invalidate's completion names the rkey. Every packet the engine
 * builds passes libroce's stateless checks.
 */
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "testutil.h"

#define TQ 0x000111 /* the tester's QP */
#define DUT_QPN 0x000044

struct sent {
	unsigned n;
	size_t len;
	uint8_t frame[PEER_FRAME_MAX];
};

static int on_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct sent *s = ctx;
	(void)info;
	s->n++;
	s->len = len;
	memcpy(s->frame, frame, len);
	return 0;
}

static const uint8_t tester_mac[6] = { 2, 0, 0, 0, 0, 0xA }, dut_mac[6] = { 2, 0, 0, 0, 0, 0xB };
static const uint8_t tester_ip4[4] = { 198, 18, 0, 1 }, dut_ip4[4] = { 198, 18, 0, 2 };

static void endpoint(struct roce_endpoint *ep, bool from_dut, uint32_t dest_qpn)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = 4;
	memcpy(ep->src_mac, from_dut ? dut_mac : tester_mac, 6);
	memcpy(ep->dst_mac, from_dut ? tester_mac : dut_mac, 6);
	memcpy(ep->src_ip, from_dut ? dut_ip4 : tester_ip4, 4);
	memcpy(ep->dst_ip, from_dut ? tester_ip4 : dut_ip4, 4);
	ep->hop_limit = 64;
	ep->udp_sport = 0xC123;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = dest_qpn;
}

/* An engine with one tester QP of transport t: it sends from PSN 100 and
 * expects the DUT's requests from PSN 500. */
static struct peer *engine(struct sent *s, enum roce_transport t)
{
	struct peer_io io = { s, on_send, NULL };
	struct peer *p = peer_new(&io);
	struct peer_qp_cfg c = { t, TQ, DUT_QPN, 100, 500, 1024, 0, 0, { 0 }, 0, 3, 2, 14 };
	endpoint(&c.ep, false, DUT_QPN);
	CHECK(peer_qp_add(p, &c) == 0, "tester QP added");
	return p;
}

/* The last frame the engine sent, parsed and checked by libroce. */
static bool last_sent(const struct sent *s, struct roce_pkt *pk)
{
	if (!s->n || roce_parse_frame(pk, s->frame, s->len, s->len, 0) != ROCE_OK)
		return false;
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 1024 };
	struct roce_finding f[8];
	size_t nf = roce_check(pk, &o, f, 8);
	char msg[200] = "";
	if (nf)
		roce_finding_format(&f[0], msg, sizeof msg);
	CHECK(nf == 0, "libroce finds nothing wrong with the tester's %s: %s", pk->op ? pk->op->name : "?", msg);
	return true;
}

/* A frame from the DUT to the tester's QP: opcode op at psn, with its
 * headers filled by fill (may be NULL) and payload. */
static void dut_frame(struct peer *p, int op, uint32_t psn, void (*fill)(struct roce_desc *, const void *), const void *arg,
		      const uint8_t *payload, size_t plen, uint64_t now)
{
	struct roce_endpoint ep;
	endpoint(&ep, true, TQ);
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)op, psn);
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)op);
	if (oi->flags & ROCE_OPF_REQUEST)
		roce_bth_set_ackreq(d.bth, 1);
	if (fill)
		fill(&d, arg);
	d.payload = payload;
	d.payload_len = plen;
	uint8_t f[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, f, sizeof f);
	CHECK(n > 0 && peer_rx(p, f, (size_t)n, now) == TQ, "the DUT's %s reaches the tester's QP", oi->name);
}

static void fill_ack(struct roce_desc *d, const void *arg)
{
	(void)arg;
	uint8_t *aeth = roce_desc_hdr(d, ROCE_H_AETH);
	roce_aeth_set_syndrome(aeth, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(aeth, 1);
}

static int syndrome_of(const struct roce_pkt *pk)
{
	const uint8_t *aeth = roce_pkt_hdr(pk, ROCE_H_AETH);
	return aeth ? (int)roce_aeth_syndrome(aeth) : -1;
}

/* The tester as XRC initiator: XRC SEND Only with the XRCETH naming the
 * QP's SRQ (or the work request's), completed by an XRC ACK. */
static void test_xrc_initiator(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_XRC);
	CHECK(peer_qp_set_xrc_srqn(p, TQ, 0x000017) == 0, "the initiator names SRQ 0x17");
	struct peer_wr wr = { .wr_id = 1, .op = PEER_OP_SEND, .data = (const uint8_t *)"xrc!", .len = 4 };
	char err[128];
	CHECK(peer_post(p, TQ, &wr, 1000, err, sizeof err) == 0, "an XRC SEND posts: %s", err);
	struct roce_pkt pk;
	CHECK(last_sent(&s, &pk) && pk.opcode == ROCE_OP_XRC_SEND_ONLY, "it is an XRC SEND Only");
	const uint8_t *x = roce_pkt_hdr(&pk, ROCE_H_XRCETH);
	CHECK(x && roce_xrceth_srqn(x) == 0x17 && pk.payload_len == 4, "its XRCETH names SRQ 0x17");
	CHECK(roce_bth_ackreq(roce_pkt_hdr(&pk, ROCE_H_BTH)), "it asks for an ACK, as RC does");
	wr.srqn = 0x23;
	wr.wr_id = 2;
	CHECK(peer_post(p, TQ, &wr, 1100, err, sizeof err) == 0 && last_sent(&s, &pk) &&
	      roce_xrceth_srqn(roce_pkt_hdr(&pk, ROCE_H_XRCETH)) == 0x23, "a work request may name another SRQ");
	dut_frame(p, ROCE_OP_XRC_ACK, 101, fill_ack, NULL, NULL, 0, 2000);
	struct peer_wc wc;
	CHECK(peer_poll(p, TQ, &wc) && wc.wr_id == 1 && wc.status == AP_WC_SUCCESS && peer_poll(p, TQ, &wc) && wc.wr_id == 2,
	      "the XRC ACK of PSN 101 completes both");
	CHECK(peer_qp_set_xrc_srqn(p, 0x999, 1) != 0, "no such QP");
	peer_free(p);

	struct peer *rc = engine(&s, ROCE_T_RC);
	CHECK(peer_qp_set_xrc_srqn(rc, TQ, 1) != 0, "an RC QP has no XRC SRQ to name");
	peer_free(rc);
}

static void fill_xrceth(struct roce_desc *d, const void *arg)
{
	roce_xrceth_set_srqn(roce_desc_hdr(d, ROCE_H_XRCETH), *(const uint32_t *)arg);
}

/* The tester as XRC target: the request's XRCETH picks the tester's SRQ;
 * an unknown number is refused with NAK Remote Access Error. */
static void test_xrc_target(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_XRC);
	CHECK(peer_srq_set_recv(p, 3, 1) == 0 && peer_srq_set_xrc(p, 3, 0x5A0003) == 0, "tester XRC SRQ 0x5A0003, one receive");
	CHECK(peer_srq_set_recv(p, 4, 0) == 0 && peer_srq_set_xrc(p, 4, 0x5A0003) != 0, "a number names one SRQ only");
	CHECK(peer_srq_set_xrc(p, 9, 1) != 0, "an unknown SRQ cannot be numbered");
	uint32_t srqn = 0x5A0003;
	dut_frame(p, ROCE_OP_XRC_SEND_ONLY, 500, fill_xrceth, &srqn, (const uint8_t *)"hello", 5, 1000);
	struct roce_pkt pk;
	CHECK(last_sent(&s, &pk) && pk.opcode == ROCE_OP_XRC_ACK && roce_syndrome_type((uint8_t)syndrome_of(&pk)) == ROCE_SYN_ACK,
	      "answered with an XRC ACK");
	CHECK(!roce_pkt_has(&pk, ROCE_H_XRCETH), "the response carries no XRCETH");
	struct peer_wc wc;
	CHECK(peer_poll(p, TQ, &wc) && wc.op == PEER_OP_RECV && wc.byte_len == 5 && !memcmp(wc.data, "hello", 5),
	      "the receive completes with the data");
	CHECK(peer_srq_recv_left(p, 3) == 0, "it took the SRQ's receive");
	dut_frame(p, ROCE_OP_XRC_SEND_ONLY, 501, fill_xrceth, &srqn, (const uint8_t *)"again", 5, 2000);
	CHECK(last_sent(&s, &pk) && roce_syndrome_type((uint8_t)syndrome_of(&pk)) == ROCE_SYN_RNR_NAK, "none left: RNR NAK");
	uint32_t wrong = 0x000042;
	dut_frame(p, ROCE_OP_XRC_SEND_ONLY, 501, fill_xrceth, &wrong, (const uint8_t *)"x", 1, 3000);
	CHECK(last_sent(&s, &pk) && pk.opcode == ROCE_OP_XRC_ACK &&
	      syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS), "an SRQ the tester has not: NAK Remote Access Error");
	CHECK(peer_qp_in_error(p, TQ), "and the target's QP is in error, as after any class C error");
	peer_free(p);
}

static void fill_read_resp(struct roce_desc *d, const void *arg)
{
	(void)arg;
	uint8_t *aeth = roce_desc_hdr(d, ROCE_H_AETH);
	roce_aeth_set_syndrome(aeth, ROCE_AETH_ACK_UNLIMITED);
	roce_aeth_set_msn(aeth, 1);
}

/* The tester as FLUSH and ATOMIC WRITE requester. */
static void test_placement_requester(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_RC);
	struct peer_wr wr = { .wr_id = 7, .op = PEER_OP_FLUSH, .remote = 0x10000, .rkey = 0x1234, .len = 64, .flush_type = 3,
			      .flush_level = 1 };
	char err[128];
	CHECK(peer_post(p, TQ, &wr, 1000, err, sizeof err) == 0, "a FLUSH posts: %s", err);
	struct roce_pkt pk;
	CHECK(last_sent(&s, &pk) && pk.opcode == ROCE_OP_RC_FLUSH && pk.payload_len == 0, "an RC FLUSH without payload");
	const uint8_t *feth = roce_pkt_hdr(&pk, ROCE_H_FETH), *reth = roce_pkt_hdr(&pk, ROCE_H_RETH);
	CHECK(feth && roce_feth_plt(feth) == 3 && roce_feth_sel(feth) == 1, "FETH: placement 3, level 1");
	CHECK(reth && roce_reth_va(reth) == 0x10000 && roce_reth_rkey(reth) == 0x1234 && roce_reth_dmalen(reth) == 64,
	      "RETH: the range");
	struct peer_wr aw = { .wr_id = 8, .op = PEER_OP_ATOMIC_WRITE, .remote = 0x10008, .rkey = 0x1234,
			      .swap_add = 0x1122334455667788ull };
	CHECK(peer_post(p, TQ, &aw, 1100, err, sizeof err) == 0, "an ATOMIC WRITE posts: %s", err);
	static const uint8_t be[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	CHECK(last_sent(&s, &pk) && pk.opcode == ROCE_OP_RC_ATOMIC_WRITE && pk.payload_len == 8 &&
	      !memcmp(pk.buf + pk.payload_off, be, 8) && roce_reth_dmalen(roce_pkt_hdr(&pk, ROCE_H_RETH)) == 8,
	      "an RC ATOMIC WRITE: RETH of 8 bytes and the value big-endian");
	/* An ACK past the FLUSH is an implied NAK: its response is missing. */
	unsigned before = s.n;
	dut_frame(p, ROCE_OP_RC_ACK, 101, fill_ack, NULL, NULL, 0, 1500);
	struct peer_wc wc;
	CHECK(!peer_poll(p, TQ, &wc) && s.n > before && last_sent(&s, &pk) &&
	      (pk.opcode == ROCE_OP_RC_FLUSH || pk.opcode == ROCE_OP_RC_ATOMIC_WRITE), "an ACK without the response: both resent");
	dut_frame(p, ROCE_OP_RC_READ_RESPONSE_ONLY, 100, fill_read_resp, NULL, NULL, 0, 2000);
	CHECK(peer_poll(p, TQ, &wc) && wc.wr_id == 7 && wc.op == PEER_OP_FLUSH && wc.status == AP_WC_SUCCESS,
	      "the zero-length READ Response Only completes the FLUSH");
	dut_frame(p, ROCE_OP_RC_READ_RESPONSE_ONLY, 101, fill_read_resp, NULL, NULL, 0, 3000);
	CHECK(peer_poll(p, TQ, &wc) && wc.wr_id == 8 && wc.op == PEER_OP_ATOMIC_WRITE && wc.status == AP_WC_SUCCESS,
	      "and the next one the ATOMIC WRITE");
	peer_free(p);

	struct peer *uc = engine(&s, ROCE_T_UC);
	CHECK(peer_post(uc, TQ, &wr, 1000, err, sizeof err) != 0 && strstr(err, "RC operation"), "UC has no FLUSH: %s", err);
	peer_free(uc);
}

struct req {
	uint64_t va;
	uint32_t rkey, len;
	unsigned plt, sel;
};

static void fill_placement(struct roce_desc *d, const void *arg)
{
	const struct req *r = arg;
	uint8_t *reth = roce_desc_hdr(d, ROCE_H_RETH);
	roce_reth_set_va(reth, r->va);
	roce_reth_set_rkey(reth, r->rkey);
	roce_reth_set_dmalen(reth, r->len);
	uint8_t *feth = roce_desc_hdr(d, ROCE_H_FETH);
	if (feth) {
		roce_feth_set_plt(feth, r->plt);
		roce_feth_set_sel(feth, r->sel);
	}
}

/* A zero-length READ Response Only with an ACK for psn. */
static bool read_response_ack(const struct sent *s, uint32_t psn)
{
	struct roce_pkt pk;
	return last_sent(s, &pk) && pk.opcode == ROCE_OP_RC_READ_RESPONSE_ONLY && pk.payload_len == 0 &&
	       roce_bth_psn(roce_pkt_hdr(&pk, ROCE_H_BTH)) == psn &&
	       roce_syndrome_type((uint8_t)syndrome_of(&pk)) == ROCE_SYN_ACK;
}

/* The tester as FLUSH and ATOMIC WRITE responder. */
static void test_placement_responder(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_RC);
	const struct peer_mr *m = peer_mr_add(p, 4096, PEER_ACC_WRITE | PEER_ACC_FLUSH_GLOBAL, 0);
	const struct peer_mr *ro = peer_mr_add(p, 4096, PEER_ACC_READ, 0);
	struct req r = { m->addr + 64, m->rkey, 8, 0, 0 };
	static const uint8_t v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	dut_frame(p, ROCE_OP_RC_ATOMIC_WRITE, 500, fill_placement, &r, v, 8, 1000);
	CHECK(read_response_ack(&s, 500), "ATOMIC WRITE: a zero-length READ Response Only with ACK");
	CHECK(!memcmp(m->buf + 64, v, 8), "its 8 bytes are in the tester's memory as the wire carried them");
	dut_frame(p, ROCE_OP_RC_ATOMIC_WRITE, 500, fill_placement, &r, v, 8, 1100);
	CHECK(read_response_ack(&s, 500), "a duplicate gets the response again");
	struct req f = { m->addr, m->rkey, 128, 1, 0 };
	dut_frame(p, ROCE_OP_RC_FLUSH, 501, fill_placement, &f, NULL, 0, 1200);
	CHECK(read_response_ack(&s, 501), "FLUSH (global, range): a zero-length READ Response Only");
	struct req fr = { 0, m->rkey, 0, 1, 1 };
	dut_frame(p, ROCE_OP_RC_FLUSH, 502, fill_placement, &fr, NULL, 0, 1300);
	CHECK(read_response_ack(&s, 502), "FLUSH of the whole region: only the key and the right count");
	struct peer_wc wc;
	CHECK(!peer_poll(p, TQ, &wc), "neither completes anything on the responder's side");
	struct req fp = { m->addr, m->rkey, 128, 2, 0 };
	dut_frame(p, ROCE_OP_RC_FLUSH, 503, fill_placement, &fp, NULL, 0, 1400);
	struct roce_pkt pk;
	CHECK(last_sent(&s, &pk) && syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS),
	      "FLUSH persistent to a region with only the global right: NAK Remote Access Error");
	peer_free(p);

	p = engine(&s, ROCE_T_RC);
	m = peer_mr_add(p, 4096, PEER_ACC_WRITE, 0);
	struct req un = { m->addr + 4, m->rkey, 8, 0, 0 };
	dut_frame(p, ROCE_OP_RC_ATOMIC_WRITE, 500, fill_placement, &un, v, 8, 1000);
	CHECK(last_sent(&s, &pk) && syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_INVALID_REQUEST),
	      "ATOMIC WRITE not 8-byte aligned: NAK Invalid Request");
	peer_free(p);

	p = engine(&s, ROCE_T_RC);
	ro = peer_mr_add(p, 4096, PEER_ACC_READ, 0);
	struct req nr = { ro->addr, ro->rkey, 8, 0, 0 };
	dut_frame(p, ROCE_OP_RC_ATOMIC_WRITE, 500, fill_placement, &nr, v, 8, 1000);
	CHECK(last_sent(&s, &pk) && syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS),
	      "ATOMIC WRITE without the write right: NAK Remote Access Error");
	peer_free(p);

	/* The right is REMOTE_WRITE (rxe check_rkey, rdma-core's tests):
	 * REMOTE_ATOMIC alone gives none. */
	p = engine(&s, ROCE_T_RC);
	const struct peer_mr *ao = peer_mr_add(p, 4096, PEER_ACC_ATOMIC, 0);
	struct req na = { ao->addr, ao->rkey, 8, 0, 0 };
	dut_frame(p, ROCE_OP_RC_ATOMIC_WRITE, 500, fill_placement, &na, v, 8, 1000);
	CHECK(last_sent(&s, &pk) && syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_REMOTE_ACCESS),
	      "ATOMIC WRITE to an atomic-only region: NAK Remote Access Error");
	peer_free(p);

	p = engine(&s, ROCE_T_RC);
	m = peer_mr_add(p, 4096, PEER_ACC_FLUSH_GLOBAL, 0);
	struct req bad = { m->addr, m->rkey, 8, 0, 0 };
	dut_frame(p, ROCE_OP_RC_FLUSH, 500, fill_placement, &bad, NULL, 0, 1000);
	CHECK(last_sent(&s, &pk) && syndrome_of(&pk) == roce_syndrome_nak(ROCE_NAK_INVALID_REQUEST),
	      "FLUSH of placement type 0: NAK Invalid Request");
	peer_free(p);
}

static void fill_ieth(struct roce_desc *d, const void *arg)
{
	roce_ieth_set_rkey(roce_desc_hdr(d, ROCE_H_IETH), *(const uint32_t *)arg);
}

/* A SEND with Invalidate from the DUT: the tester's receive completion
 * notes the rkey. */
static void test_send_inv(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_RC);
	uint32_t rkey = 0xABCD0102;
	dut_frame(p, ROCE_OP_RC_SEND_ONLY_WITH_INV, 500, fill_ieth, &rkey, (const uint8_t *)"inv", 3, 1000);
	struct peer_wc wc;
	CHECK(peer_poll(p, TQ, &wc) && wc.op == PEER_OP_RECV && wc.has_inv && wc.inv_rkey == rkey && wc.byte_len == 3,
	      "the completion names rkey 0x%08x", rkey);
	dut_frame(p, ROCE_OP_RC_SEND_ONLY, 501, NULL, NULL, (const uint8_t *)"plain", 5, 1100);
	CHECK(peer_poll(p, TQ, &wc) && !wc.has_inv, "a plain SEND names none");
	peer_free(p);
}

int main(void)
{
	test_xrc_initiator();
	test_xrc_target();
	test_placement_requester();
	test_placement_responder();
	test_send_inv();
	return test_result("test_peer_xrc");
}
