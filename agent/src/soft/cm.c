/*
 * The soft DUT's connection manager: the passive side of IBA chapter 12
 * over QP1 as Annex A17.7 adapts it to RoCEv2. A QP in RESET listens on an
 * IP CM service ID (cm_listen); a REQ for it brings the QP to RTR and gets
 * a REP, the RTU brings it to RTS; a LAP loads an alternate path (kept,
 * never migrated to: the device has one port) and gets an APR; a DREQ gets
 * a DREP and moves the QP to ERR. A REQ nobody listens for is rejected
 * with reason 8 (invalid service ID).
 *
 * Port LID fields are reserved on RoCE (CA17-34, CA17-36, CA17-38): they
 * are never read, except by the cm-validate-lids fault profile. Layouts
 * come from libroce's mad.def.
 */
#include "soft.h"

#include <string.h>

/* The device's GID table index of gid (16 bytes), or -1. */
static int gid_index(struct soft_dev *dev, const uint8_t *gid)
{
	struct soft_gid g;
	for (unsigned i = 0; soft_gid_at(dev, i, &g); i++)
		if (!memcmp(g.gid, gid, 16))
			return (int)i;
	return -1;
}

static bool gid_zero(const uint8_t *gid)
{
	static const uint8_t zero[16];
	return !memcmp(gid, zero, 16);
}

/* Where a MAD answering the one received goes: back to its source, QP1
 * to QP1, with the received P_Key. */
static void reply_endpoint(struct soft_dev *dev, const struct soft_rx *rx, struct roce_endpoint *ep)
{
	memset(ep, 0, sizeof *ep);
	ep->ip_version = rx->ip_version;
	memcpy(ep->src_mac, dev->mac, 6);
	memcpy(ep->dst_mac, rx->src_mac, 6);
	memcpy(ep->src_ip, rx->dst_ip, 16);
	memcpy(ep->dst_ip, rx->src_ip, 16);
	/* The request's DSCP (QP1 has no address vector of its own); ECN is
	 * ours (CA17-5, CA17-14). */
	unsigned dscp = rx->ip_version == 6 ? roce_ipv6_dscp(rx->l3) : roce_ipv4_dscp(rx->l3);
	ep->traffic_class = (uint8_t)(dscp << 2 | (dev->opts.rcm ? 2 : 0));
	ep->hop_limit = 64;
	ep->udp_sport = 0xC001;
	ep->pkey = (uint16_t)roce_bth_pkey(rx->bth);
	ep->dest_qpn = (uint32_t)roce_deth_srcqp(roce_pkt_hdr(rx->p, ROCE_H_DETH));
	/* On a VLAN, the request's priority. */
	const struct roce_pkt *p = rx->p;
	unsigned pcp = roce_vlan_pcp(roce_pkt_vlan_tci(p));
	soft_vlan_tag(dev, pcp, ep);
}

static void send_mad(struct soft_dev *dev, const struct roce_endpoint *ep, const uint8_t *mad)
{
	struct roce_desc d;
	memcpy(dev->mad_out, mad, ROCE_MAD_LEN);
	roce_gsi_desc(ep, &d, dev->gsi_psn, dev->mad_out);
	dev->gsi_psn = roce_psn_add(dev->gsi_psn, 1);
	dev->cnt.tx_mads++;
	soft_xmit(dev, &d);
}

/* Port LIDs are reserved on RoCE (A17.7): a conforming CM never reads
 * them; the cm-validate-lids profile does. */
static bool validates_lids(const struct soft_dev *dev)
{
	return SOFT_FAULT_ON(dev, CM_VALIDATE_LIDS);
}

static void send_rej(struct soft_dev *dev, const struct soft_rx *rx, uint64_t tid, uint32_t local, uint32_t remote,
		     unsigned msg, unsigned reason)
{
	uint8_t mad[ROCE_MAD_LEN];
	roce_cm_mad_init(mad, ROCE_CM_REJ, tid);
	uint8_t *rej = mad + ROCE_MAD_HDR_LEN;
	roce_rej_set_local_comm_id(rej, local);
	roce_rej_set_remote_comm_id(rej, remote);
	roce_rej_set_message_rejected(rej, msg);
	roce_rej_set_reason(rej, reason);
	struct roce_endpoint ep;
	reply_endpoint(dev, rx, &ep);
	dev->cnt.cm_rejects++;
	send_mad(dev, &ep, mad);
}

static struct be_qp *qp_where(struct soft_dev *dev, bool (*pred)(const struct be_qp *, const void *), const void *arg)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (pred(v, arg))
			return v;
	return NULL;
}

static bool listens_on(const struct be_qp *qp, const void *sid)
{
	return qp->cm.state == SOFT_CM_LISTEN && qp->cm.service_id == *(const uint64_t *)sid;
}

static bool has_local_id(const struct be_qp *qp, const void *id)
{
	return qp->cm.state > SOFT_CM_LISTEN && qp->cm.local_comm_id == *(const uint32_t *)id;
}

struct remote_key {
	uint32_t comm_id;
	const uint8_t *ip;
};

static bool has_remote_id(const struct be_qp *qp, const void *arg)
{
	const struct remote_key *k = arg;
	return qp->cm.state > SOFT_CM_LISTEN && qp->cm.remote_comm_id == k->comm_id &&
	       !memcmp(qp->cm.peer_ip, k->ip, 16);
}

int soft_cm_listen(struct be_qp *qp, uint16_t port, struct be_error *err)
{
	struct soft_dev *dev = qp->dev;
	uint64_t sid = roce_cm_ip_service_id(port);
	if (qp->type != BE_QPT_RC)
		return be_error_set(err, BE_BAD_REQUEST, "only an RC QP can accept a connection");
	if (qp->attr.state != BE_QPS_RESET || qp->cm.state != SOFT_CM_IDLE)
		return be_error_set(err, BE_INVALID_STATE, "the QP must be in RESET and not yet connected");
	if (qp_where(dev, listens_on, &sid))
		return be_error_set(err, BE_INVALID_STATE, "service ID 0x%016llx (port %u) has a listener already",
				    (unsigned long long)sid, port);
	qp->cm.state = SOFT_CM_LISTEN;
	qp->cm.service_id = sid;
	return 0;
}

/* REQ → RTR with the REQ's parameters; false with a REJ reason. */
static bool accept_req(struct be_qp *qp, const uint8_t *req, unsigned *reason)
{
	struct soft_dev *dev = qp->dev;
	int sgid = gid_index(dev, roce_req_primary_remote_gid((uint8_t *)req));
	if (sgid < 0) {
		*reason = ROCE_CM_REJ_INVALID_GID;
		return false;
	}
	unsigned mtu = roce_ib_mtu_bytes((unsigned)roce_req_path_mtu(req));
	if (!mtu) {
		*reason = ROCE_CM_REJ_NO_RESOURCES; /* no such path MTU */
		return false;
	}
	if (mtu > soft_port_mtu(dev))
		mtu = soft_port_mtu(dev);
	struct be_error err;
	struct be_qp_attr a = { .mask = BE_QPA_STATE | BE_QPA_PORT | BE_QPA_PKEY_INDEX | BE_QPA_ACCESS,
				.state = BE_QPS_INIT, .port = 1, .pkey_index = 0,
				.access = BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
					  BE_ACCESS_REMOTE_ATOMIC };
	if (soft_ops.modify_qp(qp, &a, &err))
		goto no_qp;
	unsigned depth = (unsigned)roce_req_initiator_depth(req);
	memset(&a, 0, sizeof a);
	a.mask = BE_QPA_STATE | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN | BE_QPA_AV |
		 BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
	a.state = BE_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qpn = (uint32_t)roce_req_local_qpn(req);
	/* A Starting PSN is the one its sender expects to receive (IBA
	 * 12.7, as Linux's CM reads it): the REQ's is where we send from,
	 * ours (in the REP) where we expect the active side to. */
	a.rq_psn = g_random_int() & ROCE_PSN_MASK;
	memcpy(a.av.dgid, roce_req_primary_local_gid((uint8_t *)req), 16);
	a.av.sgid_index = (uint8_t)sgid;
	a.av.hop_limit = (uint8_t)roce_req_primary_hop_limit(req);
	a.av.traffic_class = (uint8_t)roce_req_primary_tclass(req);
	a.av.flow_label = (uint32_t)roce_req_primary_flow_label(req);
	a.av.sl = (uint8_t)roce_req_primary_sl(req);
	a.av.port = 1;
	a.max_dest_rd_atomic = (uint8_t)(depth > 16 ? 16 : depth);
	a.min_rnr_timer = 12;
	if (soft_ops.modify_qp(qp, &a, &err))
		goto no_qp;
	/* What RTR -> RTS needs, applied on the RTU. */
	unsigned res = (unsigned)roce_req_resp_resources(req);
	qp->cm.rts.mask = BE_QPA_STATE | BE_QPA_SQ_PSN | BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY |
			  BE_QPA_MAX_RD_ATOMIC;
	qp->cm.rts.state = BE_QPS_RTS;
	qp->cm.rts.sq_psn = (uint32_t)roce_req_start_psn(req);
	qp->cm.rts.timeout = (uint8_t)roce_req_primary_ack_timeout(req);
	qp->cm.rts.retry_cnt = (uint8_t)roce_req_retry_count(req);
	qp->cm.rts.rnr_retry = (uint8_t)roce_req_rnr_retry(req);
	qp->cm.rts.max_rd_atomic = (uint8_t)(res > 16 ? 16 : res);
	return true;
no_qp:
	*reason = ROCE_CM_REJ_NO_QP;
	return false;
}

static void on_req(struct soft_dev *dev, const struct soft_rx *rx, const uint8_t *mad)
{
	const uint8_t *req = mad + ROCE_MAD_HDR_LEN;
	uint64_t tid = roce_mad_tid(mad);
	uint32_t rcid = (uint32_t)roce_req_local_comm_id(req);
	/* A repeated REQ (our REP was lost): the same REP again. */
	struct remote_key key = { rcid, rx->src_ip };
	struct be_qp *qp = qp_where(dev, has_remote_id, &key);
	if (qp) {
		if (qp->cm.state == SOFT_CM_REP_SENT) {
			struct roce_endpoint ep;
			reply_endpoint(dev, rx, &ep);
			send_mad(dev, &ep, qp->cm.rep);
		}
		return;
	}
	uint64_t sid = roce_req_service_id(req);
	qp = qp_where(dev, listens_on, &sid);
	unsigned reason = 0;
	/* An alternate path is offered by its GID: the LIDs are reserved. */
	bool alt = !gid_zero(roce_req_alt_remote_gid((uint8_t *)req));
	if (!qp)
		reason = ROCE_CM_REJ_INVALID_SERVICE_ID;
	else if (validates_lids(dev) && (roce_req_primary_local_lid(req) || roce_req_primary_remote_lid(req)))
		reason = ROCE_CM_REJ_INVALID_LID;
	else if (validates_lids(dev) && (roce_req_alt_local_lid(req) || roce_req_alt_remote_lid(req)))
		reason = ROCE_CM_REJ_INVALID_ALT_LID;
	else if (roce_req_transport(req) != 0)
		reason = ROCE_CM_REJ_INVALID_TRANSPORT;
	if (reason || !accept_req(qp, req, &reason)) {
		send_rej(dev, rx, tid, 0, rcid, ROCE_CM_REF_REQ, reason);
		return;
	}
	qp->cm.state = SOFT_CM_REP_SENT;
	qp->cm.local_comm_id = dev->next_comm_id++;
	qp->cm.remote_comm_id = rcid;
	memcpy(qp->cm.peer_ip, rx->src_ip, 16);
	uint8_t *m = qp->cm.rep;
	roce_cm_mad_init(m, ROCE_CM_REP, tid);
	uint8_t *rep = m + ROCE_MAD_HDR_LEN;
	roce_rep_set_local_comm_id(rep, qp->cm.local_comm_id);
	roce_rep_set_remote_comm_id(rep, rcid);
	roce_rep_set_local_qpn(rep, qp->qpn);
	roce_rep_set_start_psn(rep, qp->attr.rq_psn);
	roce_rep_set_resp_resources(rep, qp->attr.max_dest_rd_atomic);
	roce_rep_set_initiator_depth(rep, qp->cm.rts.max_rd_atomic);
	roce_rep_set_target_ack_delay(rep, 15);
	/* An alternate path is loaded if its GID is ours, never used. */
	unsigned failover = 0;
	if (alt && gid_index(dev, roce_req_alt_remote_gid((uint8_t *)req)) < 0)
		failover = 2;
	roce_rep_set_failover(rep, failover);
	roce_rep_set_e2e_flow(rep, 1);
	roce_rep_set_rnr_retry(rep, 7);
	roce_rep_set_local_ca_guid(rep, roce_guid_from_mac(dev->mac));
	struct roce_endpoint ep;
	reply_endpoint(dev, rx, &ep);
	dev->cnt.cm_connections++;
	send_mad(dev, &ep, m);
}

static void on_rtu(struct soft_dev *dev, const uint8_t *mad)
{
	uint32_t id = (uint32_t)roce_rtu_remote_comm_id(mad + ROCE_MAD_HDR_LEN);
	struct be_qp *qp = qp_where(dev, has_local_id, &id);
	if (!qp || qp->cm.state != SOFT_CM_REP_SENT)
		return;
	struct be_error err;
	if (qp->attr.state == BE_QPS_RTR && soft_ops.modify_qp(qp, &qp->cm.rts, &err) == 0)
		qp->cm.state = SOFT_CM_ESTABLISHED;
}

static void on_lap(struct soft_dev *dev, const struct soft_rx *rx, const uint8_t *mad)
{
	const uint8_t *lap = mad + ROCE_MAD_HDR_LEN;
	uint32_t id = (uint32_t)roce_lap_remote_comm_id(lap);
	struct be_qp *qp = qp_where(dev, has_local_id, &id);
	unsigned status = ROCE_CM_APR_SUCCESS;
	if (!qp || qp->cm.state != SOFT_CM_ESTABLISHED || roce_lap_remote_qpn(lap) != qp->qpn)
		status = ROCE_CM_APR_INVALID_COMM_ID;
	else if (validates_lids(dev) && (roce_lap_alt_local_lid(lap) || roce_lap_alt_remote_lid(lap)))
		status = ROCE_CM_APR_INVALID_LID;
	else if (gid_index(dev, roce_lap_alt_remote_gid((uint8_t *)lap)) < 0)
		status = ROCE_CM_APR_INVALID_GID;
	if (status == ROCE_CM_APR_SUCCESS)
		memcpy(qp->cm.alt_gid, roce_lap_alt_local_gid((uint8_t *)lap), 16);
	uint8_t m[ROCE_MAD_LEN];
	roce_cm_mad_init(m, ROCE_CM_APR, roce_mad_tid(mad));
	uint8_t *apr = m + ROCE_MAD_HDR_LEN;
	roce_apr_set_local_comm_id(apr, qp ? qp->cm.local_comm_id : 0);
	roce_apr_set_remote_comm_id(apr, roce_lap_local_comm_id(lap));
	roce_apr_set_status(apr, status);
	struct roce_endpoint ep;
	reply_endpoint(dev, rx, &ep);
	send_mad(dev, &ep, m);
}

static void on_dreq(struct soft_dev *dev, const struct soft_rx *rx, const uint8_t *mad)
{
	const uint8_t *dreq = mad + ROCE_MAD_HDR_LEN;
	uint32_t id = (uint32_t)roce_dreq_remote_comm_id(dreq);
	struct be_qp *qp = qp_where(dev, has_local_id, &id);
	if (qp && qp->cm.state != SOFT_CM_TIMEWAIT) {
		struct be_error err;
		struct be_qp_attr a = { .mask = BE_QPA_STATE, .state = BE_QPS_ERR };
		soft_ops.modify_qp(qp, &a, &err);
		qp->cm.state = SOFT_CM_TIMEWAIT;
	}
	/* A DREP even for a connection we do not know: the release is done. */
	uint8_t m[ROCE_MAD_LEN];
	roce_cm_mad_init(m, ROCE_CM_DREP, roce_mad_tid(mad));
	uint8_t *drep = m + ROCE_MAD_HDR_LEN;
	roce_drep_set_local_comm_id(drep, qp ? qp->cm.local_comm_id : id);
	roce_drep_set_remote_comm_id(drep, roce_dreq_local_comm_id(dreq));
	struct roce_endpoint ep;
	reply_endpoint(dev, rx, &ep);
	send_mad(dev, &ep, m);
}

void soft_cm_rx(struct soft_dev *dev, const struct soft_rx *rx)
{
	const uint8_t *deth = roce_pkt_hdr(rx->p, ROCE_H_DETH);
	if (rx->opcode != ROCE_MAD_OPCODE || !deth) {
		dev->cnt.rx_drop_opcode++;
		return;
	}
	if (roce_deth_qkey(deth) != ROCE_GSI_QKEY) {
		dev->cnt.qkey_violations++;
		return;
	}
	const uint8_t *mad = rx->payload;
	if (rx->payload_len < ROCE_MAD_LEN || roce_mad_base_version(mad) != ROCE_MAD_BASE_VERSION ||
	    roce_mad_mgmt_class(mad) != ROCE_MAD_CLASS_CM || roce_mad_class_version(mad) != ROCE_MAD_CM_CLASS_VERSION ||
	    roce_mad_method(mad) != ROCE_MAD_METHOD_SEND || roce_mad_response(mad)) {
		/* Only the CM class is served on QP1 (A17.5: the other classes
		 * do not apply); anything else is dropped, and counted. */
		dev->cnt.rx_mad_dropped++;
		return;
	}
	dev->cnt.rx_mads++;
	switch (roce_mad_attr_id(mad)) {
	case ROCE_CM_REQ: on_req(dev, rx, mad); break;
	case ROCE_CM_RTU: on_rtu(dev, mad); break;
	case ROCE_CM_LAP: on_lap(dev, rx, mad); break;
	case ROCE_CM_DREQ: on_dreq(dev, rx, mad); break;
	default: dev->cnt.rx_mad_dropped++; break;
	}
}
