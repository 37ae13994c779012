/*
 * The soft DUT's connection manager on QP1: REQ with junk primary LIDs,
 * REP (comm IDs, transaction ID), RTU (the QP in RTS), traffic both ways
 * at the PSNs the REQ and REP named, DREQ, DREP (the QP in ERR).
 */
#include "dutpeer.h"

#include <string.h>

#define CM_PORT 18515

/* A CM MAD from the peer's QP1 to the DUT's. */
static void cm_tx(struct dq *q, const uint8_t *mad)
{
	struct roce_endpoint ep = q->ep;
	ep.dest_qpn = ROCE_QP1;
	struct roce_desc d;
	roce_gsi_desc(&ep, &d, P.cm_gsi_psn++, mad);
	tx(&d);
}

/* The next CM MAD from the DUT's QP1 within ms: its attribute and a copy. */
static bool cm_rx(int ms, uint8_t *mad, uint16_t *attr)
{
	struct got g;
	while (rx(ROCE_QP1, ms, &g)) {
		if (!roce_pkt_is_mad(&g.p) || g.p.payload_len < ROCE_MAD_LEN)
			continue;
		memcpy(mad, g.p.buf + g.p.payload_off, ROCE_MAD_LEN);
		*attr = (uint16_t)roce_mad_attr_id(mad);
		return true;
	}
	return false;
}

/* An RC QP in RESET, listening on CM_PORT (service): the DUT's CM brings it up. */
static bool cm_qp(struct dq *q, bool listen)
{
	memset(q, 0, sizeof *q);
	q->type = "RC";
	q->mr_len = 65536;
	JsonObject *r;
	REQUIRE(session_start(), "agent session: %.60s %.200s", P.err_code, P.err_msg);
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	q->pd = (int)jint(r, "pd");
	REQUIRE((r = call("create_cq", "{\"cqe\":256}")), "create_cq");
	q->cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":65536,\"access\":[\"LOCAL_WRITE\"]}", q->pd)), "reg_mr");
	q->mr = (int)jint(r, "mr");
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"RC\",\"send_cq\":%d,\"recv_cq\":%d}", q->pd, q->cq, q->cq)),
		"create_qp");
	q->qp = (int)jint(r, "qp");
	q->qpn = (uint32_t)jint(r, "qpn");
	q->my_qpn = P.next_qpn++;
	q->dut_psn = 0xFFFF00 + (q->my_qpn & 0x3F); /* wraps soon */
	if (listen) {
		REQUIRE((r = call("cm_listen", "{\"qp\":%d,\"port\":%d}", q->qp, CM_PORT)), "cm_listen");
		REQUIRE((uint64_t)jint(r, "service_id") == roce_cm_ip_service_id(CM_PORT), "cm_listen: service_id %lld",
			(long long)jint(r, "service_id"));
	}
	peer_endpoint(q);
	return true;
}

/* A REQ as rdma_cm sends one, with these primary port LIDs. */
static void cm_req(struct dq *q, uint64_t service_id, uint16_t lid)
{
	uint8_t mad[ROCE_MAD_LEN], *m = mad + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(mad, ROCE_CM_REQ, 0x1000 + q->my_qpn);
	roce_req_set_local_comm_id(m, 0xC0000000u | q->my_qpn);
	roce_req_set_service_id(m, service_id);
	roce_req_set_local_qpn(m, q->my_qpn);
	roce_req_set_resp_resources(m, 4);
	roce_req_set_initiator_depth(m, 4);
	roce_req_set_start_psn(m, q->dut_psn); /* the PSN we expect the DUT to send from */
	roce_req_set_retry_count(m, 3);
	roce_req_set_pkey(m, 0xFFFF);
	roce_req_set_path_mtu(m, roce_mtu_enum(PMTU));
	roce_req_set_rnr_retry(m, 3);
	roce_req_set_primary_local_lid(m, lid);
	roce_req_set_primary_remote_lid(m, lid);
	roce_gid_from_ip(P.ipv, P.my_ip, roce_req_primary_local_gid(m));
	roce_gid_from_ip(P.ipv, P.dut_ip, roce_req_primary_remote_gid(m));
	roce_req_set_primary_hop_limit(m, AV_HOP);
	roce_req_set_primary_tclass(m, AV_TC);
	roce_req_set_primary_ack_timeout(m, 16);
	uint8_t *ip = mad + ROCE_CM_REQ_PRIVATE_OFF;
	roce_ipcm_set_sport(ip, 40000);
	roce_ipcm_set_addrs(ip, P.ipv, P.my_ip, P.dut_ip);
	cm_tx(q, mad);
}

/* REQ (junk primary LIDs: reserved, A17.7) -> REP -> RTU; the DUT's comm ID in *dut_id. */
static bool cm_connect(struct dq *q, uint16_t lid, uint32_t *dut_id)
{
	uint8_t mad[ROCE_MAD_LEN];
	uint16_t attr;
	cm_req(q, roce_cm_ip_service_id(CM_PORT), lid);
	REQUIRE(cm_rx(1000, mad, &attr), "no answer to the REQ");
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	REQUIRE(attr == ROCE_CM_REP, "a REQ with port LIDs 0x%04x got attribute 0x%04x (REJ reason %u), not a REP", lid,
		attr, attr == ROCE_CM_REJ ? (unsigned)roce_rej_reason(m) : 0);
	REQUIRE(roce_rep_remote_comm_id(m) == (0xC0000000u | q->my_qpn) && roce_rep_local_qpn(m) == q->qpn,
		"REP: remote comm ID 0x%llx, QPN 0x%llx", (unsigned long long)roce_rep_remote_comm_id(m),
		(unsigned long long)roce_rep_local_qpn(m));
	REQUIRE(roce_mad_tid(mad) == 0x1000 + q->my_qpn, "REP: the REQ's transaction ID");
	*dut_id = (uint32_t)roce_rep_local_comm_id(m);
	q->epsn = (uint32_t)roce_rep_start_psn(m); /* what the DUT expects from us */
	roce_cm_mad_init(mad, ROCE_CM_RTU, 0x1000 + q->my_qpn);
	roce_rtu_set_local_comm_id(mad + ROCE_MAD_HDR_LEN, 0xC0000000u | q->my_qpn);
	roce_rtu_set_remote_comm_id(mad + ROCE_MAD_HDR_LEN, *dut_id);
	cm_tx(q, mad);
	sleep_ms(20);
	REQUIRE(strcmp(qp_state(q), "RTS") == 0, "after the RTU the QP is %s, not RTS", qp_state(q));
	return true;
}

bool sc_cm_connect(void)
{
	struct dq q;
	struct got g;
	uint32_t id;
	if (!cm_qp(&q, true) || !cm_connect(&q, 0xBEEF, &id))
		return false;
	REQUIRE(call("post_recv", "{\"qp\":%d,\"wr_id\":1,\"sge\":[{\"mr\":%d,\"offset\":0,\"length\":4096}]}", q.qp, q.mr),
		"post_recv");
	tx_req(&q, "RC SEND Only", q.epsn, pattern(3), 64, true);
	REQUIRE(expect_ack(&q, q.epsn, &g), "the connection made by the CM does not ACK at the REP's PSN");
	struct wc w;
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no receive completion (%s)", w.status);
	/* The DUT sends from the PSN the REQ asked for. */
	REQUIRE(post_send(&q, "SEND", 2, 0, 32, NULL), "post_send");
	if (!expect_req(&q, "RC SEND Only", q.dut_psn, 300, &g))
		return false;
	tx_ack(&q, q.dut_psn, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 1);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no send completion (%s)", w.status);
	/* DREQ -> DREP, the QP leaves RTS. */
	uint8_t mad[ROCE_MAD_LEN];
	uint16_t attr;
	roce_cm_mad_init(mad, ROCE_CM_DREQ, 0x2000 + q.my_qpn);
	roce_dreq_set_local_comm_id(mad + ROCE_MAD_HDR_LEN, 0xC0000000u | q.my_qpn);
	roce_dreq_set_remote_comm_id(mad + ROCE_MAD_HDR_LEN, id);
	roce_dreq_set_remote_qpn(mad + ROCE_MAD_HDR_LEN, q.qpn);
	cm_tx(&q, mad);
	REQUIRE(cm_rx(1000, mad, &attr) && attr == ROCE_CM_DREP, "no DREP to the DREQ");
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "after the DREQ the QP is %s, not ERR", qp_state(&q));
	return true;
}
