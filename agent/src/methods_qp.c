/*
 * Queue pairs: create, modify (state transitions and attributes), query,
 * destroy, and cm_listen (the connection manager brings the QP up).
 */
#include "methods.h"
#include "roce/gid.h"
#include "roce/mad.h"

#include <string.h>

static int qp_type_value(const char *name)
{
	static const enum be_qp_type types[AP_QP_TYPE_COUNT] = {
		[AP_QPT_RC] = BE_QPT_RC, [AP_QPT_UC] = BE_QPT_UC, [AP_QPT_UD] = BE_QPT_UD,
		[AP_QPT_XRC_SEND] = BE_QPT_XRC_SEND, [AP_QPT_XRC_RECV] = BE_QPT_XRC_RECV,
	};
	int t = ap_qp_type_by_name(name);
	return t < 0 ? -1 : (int)types[t];
}

/* The CQs a QP of this type takes: an XRC target (XRC_RECV) none (its
 * receives complete on the CQ of the XRC SRQ each request names), an XRC
 * initiator a send CQ only (it receives nothing). */
static bool qp_cqs(struct req *r, enum be_qp_type type, struct handle **scq, struct handle **rcq)
{
	bool target = type == BE_QPT_XRC_RECV, initiator = type == BE_QPT_XRC_SEND;
	*scq = session_get(r, "send_cq", H_CQ, !target);
	*rcq = r->err ? NULL : session_get(r, "recv_cq", H_CQ, !target && !initiator);
	if (r->err)
		return false;
	if (target && (*scq || *rcq))
		return req_fail(r, AE_BAD_REQUEST, "params.%s: an XRC_RECV QP has no CQs (its receives complete on its XRC SRQs')",
				*scq ? "send_cq" : "recv_cq");
	return true;
}

void method_create_qp(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	if (!pd)
		return;
	int type = param_word(r, "type", true, ap_qp_type_words, qp_type_value, -1);
	if (type < 0)
		return;
	bool xrc = type == BE_QPT_XRC_SEND || type == BE_QPT_XRC_RECV;
	struct handle *scq, *rcq;
	if (!qp_cqs(r, (enum be_qp_type)type, &scq, &rcq))
		return;
	struct handle *srq = session_get(r, "srq", H_SRQ, false);
	struct handle *xrcd = r->err ? NULL : param_xrcd(r, type == BE_QPT_XRC_RECV);
	if (r->err)
		return;
	if (type != BE_QPT_XRC_RECV && xrcd) {
		req_fail(r, AE_BAD_REQUEST, "params.xrcd: only an XRC_RECV QP belongs to an XRC domain");
		return;
	}
	if (xrc && srq) {
		req_fail(r, AE_BAD_REQUEST, "params.srq: an XRC QP takes no SRQ (an XRC target's requests name theirs)");
		return;
	}
	if (srq && srq->xrcd) {
		req_fail(r, AE_BAD_REQUEST, "params.srq: SRQ %u is an XRC SRQ; only XRC requests reach it", srq->id);
		return;
	}
	struct be_qp_init init = { .type = (enum be_qp_type)type, .send_cq = scq ? scq->obj : NULL,
				   .recv_cq = rcq ? rcq->obj : NULL, .srq = srq ? srq->obj : NULL,
				   .xrcd = xrcd ? xrcd->obj : NULL };
	if (!param_u32(r, "max_send_wr", false, 64, 1u << 20, &init.max_send_wr) ||
	    !param_u32(r, "max_recv_wr", false, 64, 1u << 20, &init.max_recv_wr) ||
	    !param_u32(r, "max_send_sge", false, 4, 1024, &init.max_send_sge) ||
	    !param_u32(r, "max_recv_sge", false, 4, 1024, &init.max_recv_sge) ||
	    !param_bool(r, "sq_sig_all", false, &init.sq_sig_all) || !req_limit_handles(r))
		return;
	struct be_qp *qp;
	uint32_t qpn;
	struct be_error err = { 0 };
	if (OPS(r)->create_qp(pd->obj, &init, &qp, &qpn, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_QP, qp);
	h->pd = pd->id;
	h->qpn = qpn;
	h->qp_type = init.type;
	pd->users++;
	struct handle *cqs[2] = { scq, rcq };
	for (int i = 0; i < 2; i++)
		if (cqs[i]) {
			h->cq[i] = cqs[i]->id;
			cqs[i]->users++;
		}
	if (srq) {
		h->srq = srq->id;
		srq->users++;
	}
	if (xrcd) {
		h->xrcd = xrcd->id;
		xrcd->users++;
	}
	g_hash_table_insert(r->s->qpns, GUINT_TO_POINTER(qpn), GUINT_TO_POINTER(h->id));
	result_int(r, "qp", h->id);
	result_int(r, "qpn", qpn);
}


void method_modify_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_qp_attr a;
	memset(&a, 0, sizeof a);
	int state = param_word(r, "state", false, ap_qp_state_words, ap_qp_state_by_name, -2);
	if (state == -1)
		return;
	if (state >= 0) {
		a.mask |= BE_QPA_STATE;
		a.state = (enum be_qp_state)state;
	}
	struct {
		const char *name;
		unsigned bit;
		uint32_t max;
		uint32_t *u32;
		uint8_t *u8;
		uint16_t *u16;
	} f[] = {
		{ "qkey", BE_QPA_QKEY, 0xFFFFFFFFu, &a.qkey, NULL, NULL },
		{ "path_mtu", BE_QPA_PATH_MTU, 4096, &a.path_mtu, NULL, NULL },
		{ "dest_qpn", BE_QPA_DEST_QPN, 0xFFFFFF, &a.dest_qpn, NULL, NULL },
		{ "rq_psn", BE_QPA_RQ_PSN, 0xFFFFFF, &a.rq_psn, NULL, NULL },
		{ "sq_psn", BE_QPA_SQ_PSN, 0xFFFFFF, &a.sq_psn, NULL, NULL },
		{ "pkey_index", BE_QPA_PKEY_INDEX, 0xFFFF, NULL, NULL, &a.pkey_index },
		{ "max_rd_atomic", BE_QPA_MAX_RD_ATOMIC, 255, NULL, &a.max_rd_atomic, NULL },
		{ "max_dest_rd_atomic", BE_QPA_MAX_DEST_RD_ATOMIC, 255, NULL, &a.max_dest_rd_atomic, NULL },
		{ "min_rnr_timer", BE_QPA_MIN_RNR_TIMER, 31, NULL, &a.min_rnr_timer, NULL },
		{ "timeout", BE_QPA_TIMEOUT, 31, NULL, &a.timeout, NULL },
		{ "retry_cnt", BE_QPA_RETRY_CNT, 7, NULL, &a.retry_cnt, NULL },
		{ "rnr_retry", BE_QPA_RNR_RETRY, 7, NULL, &a.rnr_retry, NULL },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(f); i++) {
		if (!req_param(r, f[i].name))
			continue;
		uint32_t v;
		if (!param_u32(r, f[i].name, true, 0, f[i].max, &v))
			return;
		a.mask |= f[i].bit;
		if (f[i].u32)
			*f[i].u32 = v;
		else if (f[i].u8)
			*f[i].u8 = (uint8_t)v;
		else
			*f[i].u16 = (uint16_t)v;
	}
	if (req_param(r, "port")) {
		uint32_t port;
		if (!param_u32(r, "port", true, 1, 255, &port))
			return;
		a.port = (uint8_t)port;
		a.mask |= BE_QPA_PORT;
	}
	bool given;
	if (!param_access(r, "access", false, &a.access, &given))
		return;
	if (given)
		a.mask |= BE_QPA_ACCESS;
	bool dgid;
	if (!param_av(r, &a.av, &dgid))
		return;
	if (dgid) {
		a.mask |= BE_QPA_AV;
	} else {
		static const char *const av_only[] = { "sgid_index", "hop_limit", "traffic_class", "flow_label", "sl" };
		for (size_t i = 0; i < G_N_ELEMENTS(av_only); i++)
			if (req_param(r, av_only[i])) {
				req_fail(r, AE_BAD_REQUEST, "params.%s: an address vector member needs params.dgid too",
					 av_only[i]);
				return;
			}
	}
	if (!a.mask) {
		req_fail(r, AE_BAD_REQUEST, "params: nothing to modify (no state or attribute given)");
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->modify_qp(h->obj, &a, &err))
		req_fail_backend(r, &err);
}

void method_query_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_qp_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_qp(h->obj, &a, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	const char *state = ap_qp_state_name((enum ap_qp_state)a.state);
	result_str(r, "state", state ? state : ap_qp_state_name(AP_QPS_ERR));
	result_int(r, "qpn", h->qpn);
	if (a.mask & BE_QPA_PORT) result_int(r, "port", a.port);
	if (a.mask & BE_QPA_PKEY_INDEX) result_int(r, "pkey_index", a.pkey_index);
	if (a.mask & BE_QPA_QKEY) result_u64(r, "qkey", a.qkey);
	if (a.mask & BE_QPA_ACCESS) json_add_access(req_result(r), "access", a.access);
	if (a.mask & BE_QPA_PATH_MTU) result_int(r, "path_mtu", a.path_mtu);
	if (a.mask & BE_QPA_DEST_QPN) result_int(r, "dest_qpn", a.dest_qpn);
	if (a.mask & BE_QPA_RQ_PSN) result_int(r, "rq_psn", a.rq_psn);
	if (a.mask & BE_QPA_SQ_PSN) result_int(r, "sq_psn", a.sq_psn);
	if (a.mask & BE_QPA_AV) {
		char s[64];
		roce_gid_format(a.av.dgid, s, sizeof s);
		result_str(r, "dgid", s);
		result_int(r, "sgid_index", a.av.sgid_index);
		result_int(r, "hop_limit", a.av.hop_limit);
		result_int(r, "traffic_class", a.av.traffic_class);
		result_int(r, "flow_label", a.av.flow_label);
		result_int(r, "sl", a.av.sl);
	}
	if (a.mask & BE_QPA_MAX_RD_ATOMIC) result_int(r, "max_rd_atomic", a.max_rd_atomic);
	if (a.mask & BE_QPA_MAX_DEST_RD_ATOMIC) result_int(r, "max_dest_rd_atomic", a.max_dest_rd_atomic);
	if (a.mask & BE_QPA_MIN_RNR_TIMER) result_int(r, "min_rnr_timer", a.min_rnr_timer);
	if (a.mask & BE_QPA_TIMEOUT) result_int(r, "timeout", a.timeout);
	if (a.mask & BE_QPA_RETRY_CNT) result_int(r, "retry_cnt", a.retry_cnt);
	if (a.mask & BE_QPA_RNR_RETRY) result_int(r, "rnr_retry", a.rnr_retry);
}

void method_destroy_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	/* Its pending events reach the session while it still exists; its
	 * groups are left first (a device will not destroy an attached QP). */
	agent_events_drain(r->s->agent);
	struct be_error err = { 0 };
	if (!session_qp_leave_groups(r->s, h, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	if (OPS(r)->destroy_qp(h->obj, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	session_remove(r->s, h);
}

/* The passive side of the connection manager: the QP accepts the next
 * connection for the port's IP CM service ID. */
void method_cm_listen(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	uint32_t port;
	if (!h || !param_u32(r, "port", true, 0, 65535, &port))
		return;
	if (port == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.port: 0 is not a port to listen on; expected 1..65535");
		return;
	}
	if (!OPS(r)->cm_listen) {
		req_fail(r, AE_UNSUPPORTED, "the %s backend has no connection manager", OPS(r)->name);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->cm_listen(h->obj, (uint16_t)port, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_u64(r, "service_id", roce_cm_ip_service_id((uint16_t)port));
}
