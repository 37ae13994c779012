/*
 * The peer engine's UD multicast and shared receive queues, against
 * frames a DUT would send (built with libroce's builders): a datagram to
 * DestQP 0xFFFFFF at a group's address reaches every tester QP attached
 * to that group and no other; the tester's own datagrams to a group carry
 * the group's address, mapped MAC and DestQP; QPs sharing an SRQ share its
 * receive buffers, and one that finds none answers an RNR NAK.
 */
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "testutil.h"

#define QA 0x000111
#define QB 0x000222
#define QC 0x000333
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
static const uint8_t tester_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, dut_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

/* Addressing from one side to the other (from_dut: the DUT's packets). */
static void endpoint(struct roce_endpoint *ep, bool from_dut, int ipv, uint32_t dest_qpn)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = ipv;
	memcpy(ep->src_mac, from_dut ? dut_mac : tester_mac, 6);
	memcpy(ep->dst_mac, from_dut ? tester_mac : dut_mac, 6);
	size_t n = ipv == 4 ? 4 : 16;
	memcpy(ep->src_ip, from_dut ? (ipv == 4 ? dut_ip4 : dut_ip6) : (ipv == 4 ? tester_ip4 : tester_ip6), n);
	memcpy(ep->dst_ip, from_dut ? (ipv == 4 ? tester_ip4 : tester_ip6) : (ipv == 4 ? dut_ip4 : dut_ip6), n);
	ep->hop_limit = 64;
	ep->udp_sport = 0xC123;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = dest_qpn;
}

static struct peer *engine(struct sent *s, enum roce_transport t, int ipv)
{
	struct peer_io io = { s, on_send, NULL };
	struct peer *p = peer_new(&io);
	const uint32_t qpns[3] = { QA, QB, QC };
	for (int i = 0; i < 3; i++) {
		struct peer_qp_cfg c = { t, qpns[i], DUT_QPN, 100, 500, 1024, 0x22222222, 0x11111111, { 0 }, 0, 3, 2, 14 };
		endpoint(&c.ep, false, ipv, DUT_QPN);
		CHECK(peer_qp_add(p, &c) == 0, "tester QP 0x%06x added", qpns[i]);
	}
	return p;
}

static void group_of(int ipv, unsigned n, struct roce_mcast_group *g)
{
	uint8_t ip[16] = { 0 };
	if (ipv == 4) {
		ip[0] = 239, ip[1] = 255, ip[2] = 18, ip[3] = (uint8_t)n;
	} else {
		ip[0] = 0xFF, ip[1] = 0x15, ip[12] = 0x0D, ip[13] = 0xB8, ip[15] = (uint8_t)n;
	}
	CHECK(roce_mcast_group_from_ip(ipv, ip, g), "a group of IPv%d", ipv);
}

/* A UD SEND Only the DUT sends to a group (or, group NULL, to dest_qpn). */
static size_t dut_datagram(uint8_t *buf, int ipv, const struct roce_mcast_group *g, uint32_t dest_qpn, uint32_t qkey,
			   const char *text)
{
	struct roce_endpoint ep;
	endpoint(&ep, true, ipv, dest_qpn);
	if (g)
		peer_mcast_address(&ep, g);
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)roce_opcode_find(ROCE_T_UD, ROCE_K_SEND, ROCE_POS_ONLY, 0, 0), 7);
	roce_deth_set_qkey(roce_desc_hdr(&d, ROCE_H_DETH), qkey);
	roce_deth_set_srcqp(roce_desc_hdr(&d, ROCE_H_DETH), DUT_QPN);
	d.payload = (const uint8_t *)text;
	d.payload_len = strlen(text);
	long n = roce_build_frame(&d, buf, PEER_FRAME_MAX);
	CHECK(n > 0, "the datagram builds");
	return n > 0 ? (size_t)n : 0;
}

static bool received(struct peer *p, uint32_t qpn, const char *text)
{
	struct peer_wc wc;
	if (!peer_poll(p, qpn, &wc))
		return false;
	return wc.op == PEER_OP_RECV && wc.status == AP_WC_SUCCESS && wc.byte_len == strlen(text) &&
	       !memcmp(wc.data, text, wc.byte_len) && wc.src_qp == DUT_QPN;
}

/* The tester's datagram to a group: its address, mapped MAC, DestQP
 * 0xFFFFFF; libroce's stateless checks find nothing wrong with it. */
static void test_build(int ipv)
{
	struct roce_mcast_group g;
	group_of(ipv, 5, &g);
	struct roce_endpoint ep;
	endpoint(&ep, false, ipv, DUT_QPN);
	peer_mcast_address(&ep, &g);
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)roce_opcode_find(ROCE_T_UD, ROCE_K_SEND, ROCE_POS_ONLY, 0, 0), 1);
	roce_deth_set_qkey(roce_desc_hdr(&d, ROCE_H_DETH), 0x11111111);
	uint8_t frame[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, frame, sizeof frame);
	struct roce_pkt pk;
	CHECK(n > 0 && roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, 0) == ROCE_OK, "the group datagram parses");
	static const uint8_t mac4[6] = { 0x01, 0x00, 0x5e, 0x7f, 0x12, 0x05 }, mac6[6] = { 0x33, 0x33, 0x0d, 0xb8, 0x00, 0x05 };
	CHECK(!memcmp(frame, ipv == 4 ? mac4 : mac6, 6), "IPv%d: destination MAC %02x:%02x:%02x:%02x:%02x:%02x", ipv, frame[0],
	      frame[1], frame[2], frame[3], frame[4], frame[5]);
	struct roce_mcast_group seen;
	CHECK(roce_pkt_mcast_group(&pk, &seen) && !memcmp(seen.ip, g.ip, 16) &&
	      roce_pkt_mcast_mac_status(&pk, &seen) == ROCE_MCAST_MAC_OK, "destination address: the group");
	CHECK(roce_bth_destqp(roce_pkt_hdr(&pk, ROCE_H_BTH)) == ROCE_MCAST_QPN, "DestQP 0xFFFFFF");
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 1024 };
	struct roce_finding f[8];
	size_t nf = roce_check(&pk, &o, f, 8);
	char msg[200] = "";
	if (nf)
		roce_finding_format(&f[0], msg, sizeof msg);
	CHECK(nf == 0, "libroce finds nothing wrong (IPv%d): %s", ipv, msg);
}

/* Each attached QP takes a copy of the group's datagram; the others none. */
static void test_route(int ipv)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_UD, ipv);
	struct roce_mcast_group g, other;
	group_of(ipv, 5, &g);
	group_of(ipv, 6, &other);
	CHECK(peer_mcast_attach(p, QA, &g) == 0 && peer_mcast_attach(p, QB, &g) == 0, "A and B attach");
	CHECK(peer_mcast_attach(p, QB, &g) != 0, "attaching twice is refused");
	CHECK(peer_mcast_attach(p, 0x999, &g) != 0, "an unknown QP cannot attach");
	uint8_t f[PEER_FRAME_MAX];
	size_t n = dut_datagram(f, ipv, &g, ROCE_MCAST_QPN, 0x22222222, "to the group");
	CHECK(peer_rx(p, f, n, 1000) == QA, "the datagram counts as the first attached QP's");
	CHECK(received(p, QA, "to the group") && received(p, QB, "to the group"), "A and B each receive it (IPv%d)", ipv);
	struct peer_wc wc;
	CHECK(!peer_poll(p, QC, &wc) && !peer_poll(p, QA, &wc), "C, not attached, receives nothing; A only once");
	CHECK(s.n == 0, "UD answers nothing");
	n = dut_datagram(f, ipv, &other, ROCE_MCAST_QPN, 0x22222222, "elsewhere");
	CHECK(peer_rx(p, f, n, 2000) == 0 && !peer_poll(p, QA, &wc) && !peer_poll(p, QB, &wc), "another group's datagram: nobody's");
	peer_mcast_detach(p, QB, &g);
	n = dut_datagram(f, ipv, &g, ROCE_MCAST_QPN, 0x22222222, "after detach");
	CHECK(peer_rx(p, f, n, 3000) == QA && received(p, QA, "after detach") && !peer_poll(p, QB, &wc), "B detached");
	/* The Q_Key is each attached QP's to check. */
	n = dut_datagram(f, ipv, &g, ROCE_MCAST_QPN, 0x33333333, "bad qkey");
	peer_rx(p, f, n, 4000);
	const struct peer_finding *fi;
	CHECK(!peer_poll(p, QA, &wc) && peer_findings(p, &fi) == 1 && fi[0].rule == ROCE_RULE_IBA_QKEY, "a wrong Q_Key is dropped, found");
	/* A unicast datagram to C still reaches C alone. */
	n = dut_datagram(f, ipv, NULL, QC, 0x22222222, "unicast");
	CHECK(peer_rx(p, f, n, 5000) == QC && received(p, QC, "unicast"), "unicast as before");
	peer_reset(p);
	n = dut_datagram(f, ipv, &g, ROCE_MCAST_QPN, 0x22222222, "after reset");
	CHECK(peer_rx(p, f, n, 6000) == 0, "a reset forgets the attachments");
	peer_free(p);
	/* Only UD QPs attach. */
	p = engine(&s, ROCE_T_RC, ipv);
	CHECK(peer_mcast_attach(p, QA, &g) != 0, "an RC QP cannot attach");
	peer_free(p);
}

/* An RC SEND Only from the DUT to tester QP qpn at PSN psn. */
static void dut_send(struct peer *p, uint32_t qpn, uint32_t psn, uint64_t now)
{
	struct roce_endpoint ep;
	endpoint(&ep, true, 4, qpn);
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)roce_opcode_find(ROCE_T_RC, ROCE_K_SEND, ROCE_POS_ONLY, 0, 0), psn);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = (const uint8_t *)"srq!";
	d.payload_len = 4;
	uint8_t f[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, f, sizeof f);
	CHECK(n > 0 && peer_rx(p, f, (size_t)n, now) == qpn, "the SEND reaches QP 0x%06x", qpn);
}

/* The syndrome of the last frame the engine sent (an ACK or NAK). */
static int last_syndrome(const struct sent *s)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, s->frame, s->len, s->len, 0) != ROCE_OK)
		return -1;
	const uint8_t *aeth = roce_pkt_hdr(&pk, ROCE_H_AETH);
	return aeth ? (int)roce_aeth_syndrome(aeth) : -1;
}

static void test_srq(void)
{
	struct sent s = { 0 };
	struct peer *p = engine(&s, ROCE_T_RC, 4);
	CHECK(peer_qp_set_srq(p, QA, 3) != 0, "an unknown SRQ cannot be used");
	CHECK(peer_srq_set_recv(p, 3, 1) == 0 && peer_qp_set_srq(p, QA, 3) == 0 && peer_qp_set_srq(p, QB, 3) == 0,
	      "A and B share SRQ 3 with one receive");
	dut_send(p, QA, 500, 1000);
	CHECK(s.n == 1 && roce_syndrome_type((uint8_t)last_syndrome(&s)) == ROCE_SYN_ACK, "A takes the one receive: ACK");
	CHECK(peer_srq_recv_left(p, 3) == 0, "none left");
	dut_send(p, QB, 500, 2000);
	CHECK(s.n == 2 && roce_syndrome_type((uint8_t)last_syndrome(&s)) == ROCE_SYN_RNR_NAK, "B finds none: RNR NAK");
	struct peer_wc wc;
	CHECK(peer_poll(p, QA, &wc) && wc.op == PEER_OP_RECV && !peer_poll(p, QB, &wc), "only A completed a receive");
	dut_send(p, QC, 500, 3000);
	CHECK(s.n == 3 && roce_syndrome_type((uint8_t)last_syndrome(&s)) == ROCE_SYN_ACK, "C, with its own receives, is unaffected");
	CHECK(peer_srq_set_recv(p, 3, 1) == 0, "one receive more");
	dut_send(p, QB, 500, 4000);
	CHECK(s.n == 4 && roce_syndrome_type((uint8_t)last_syndrome(&s)) == ROCE_SYN_ACK && peer_poll(p, QB, &wc),
	      "B's resend takes it: ACK and a completion");
	CHECK(peer_srq_set_recv(p, 4, -1) != 0, "a negative count is refused");
	for (uint32_t i = 100; i < 100 + PEER_MAX_SRQS; i++)
		peer_srq_set_recv(p, i, 0);
	CHECK(peer_srq_recv_left(p, 100 + PEER_MAX_SRQS - 1) < 0, "the table holds %d SRQs", PEER_MAX_SRQS);
	peer_reset(p);
	CHECK(peer_srq_recv_left(p, 3) < 0, "a reset forgets the SRQs");
	peer_free(p);
}

int main(void)
{
	test_build(4);
	test_build(6);
	test_route(4);
	test_route(6);
	test_srq();
	return test_result("test_peer_mcast");
}
