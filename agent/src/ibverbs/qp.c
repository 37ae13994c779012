/*
 * Queue pairs: creation (of the types the device was found to create, with
 * their own receive queue or an SRQ's; RC ones with the extended interface
 * when the device has ATOMIC WRITE or FLUSH, placement.c; XRC ones in
 * xrc.c),
 * state transitions (a refused one names the attributes it lacks, IBA
 * 11.2.4.2), queries and destruction.
 */
#include "ibverbs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

static const char *type_name(enum be_qp_type t)
{
	/* BE_QPT_XRC_SEND/RECV have libibverbs' numbers (backend.h). */
	return t == BE_QPT_RC			? "RC"
	       : t == BE_QPT_UC			? "UC"
	       : t == BE_QPT_UD			? "UD"
	       : (int)t == IBV_QPT_XRC_SEND ? "XRC_SEND"
	       : (int)t == IBV_QPT_XRC_RECV ? "XRC_RECV"
					    : "?";
}

/* Connected like RC: an XRC initiator or target. */
static bool rc_like(enum be_qp_type t)
{
	return t == BE_QPT_RC || ib_is_xrc_type(t);
}

/* ibv_create_qp, or ibv_create_qp_ex with the placement operations for an
 * RC QP of a device that has them; ia gets what the device gave. */
static struct ibv_qp *create(struct be_pd *pd, struct ibv_qp_init_attr *ia, struct ibv_qp_ex **qpx)
{
	uint64_t ops = ia->qp_type == IBV_QPT_RC ? ib_placement_send_ops(pd->be) : 0;
	*qpx = NULL;
	if (!ops)
		return ibv_create_qp(pd->pd, ia);
	struct ibv_qp_init_attr_ex ax = {
		.qp_context = ia->qp_context,
		.send_cq = ia->send_cq,
		.recv_cq = ia->recv_cq,
		.srq = ia->srq,
		.cap = ia->cap,
		.qp_type = ia->qp_type,
		.sq_sig_all = ia->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd->pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(pd->be->ctx, &ax);
	if (qp) {
		ia->cap = ax.cap;
		*qpx = ibv_qp_to_qp_ex(qp);
	}
	return qp;
}

static int create_xrc(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out,
		      uint32_t *qpn, struct be_error *err)
{
	struct be_qp *q = g_new0(struct be_qp, 1);
	if (ib_create_xrc_qp(pd, init, q, err)) {
		g_free(q);
		return -1;
	}
	q->be = pd->be;
	q->type = init->type;
	q->state_set = IBV_QPS_RESET;
	*qpn = q->qp->qp_num;
	*out = q;
	return 0;
}

static int mtu_enum(unsigned bytes, enum ibv_mtu *out)
{
	for (enum ibv_mtu m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (ib_mtu_bytes(m) == bytes) {
			*out = m;
			return 0;
		}
	return -1;
}

static void ah_attr_to_av(const struct ibv_ah_attr *ah, struct be_av *av)
{
	memset(av, 0, sizeof *av);
	memcpy(av->dgid, ah->grh.dgid.raw, 16);
	av->sgid_index = ah->grh.sgid_index;
	av->hop_limit = ah->grh.hop_limit;
	av->traffic_class = ah->grh.traffic_class;
	av->flow_label = ah->grh.flow_label;
	av->sl = ah->sl;
	av->port = ah->port_num;
}

int ib_create_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out,
		 uint32_t *qpn, struct be_error *err)
{
	if (ib_is_xrc_type(init->type))
		return create_xrc(pd, init, out, qpn, err);
	if (init->type != BE_QPT_RC && init->type != BE_QPT_UC && init->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "QP type %d: RC, UC, UD, XRC_SEND or XRC_RECV",
				    (int)init->type);
	if (!(pd->be->caps & (init->type == BE_QPT_RC	? BE_CAP_RC
			      : init->type == BE_QPT_UC ? BE_CAP_UC
							: BE_CAP_UD)))
		return be_error_set(err, BE_UNSUPPORTED, "%s does not create %s QPs", pd->be->name,
				    type_name(init->type));
	struct be_qp *q = g_new0(struct be_qp, 1);
	/* With an SRQ the QP has no receive queue of its own (ibv_create_qp(3)). */
	struct ibv_srq *srq = init->srq ? init->srq->srq : NULL;
	struct ibv_qp_init_attr ia = {
		.qp_context = q, /* events.c finds the QP by it */
		.send_cq = init->send_cq->cq,
		.recv_cq = init->recv_cq->cq,
		.cap = {
			.max_send_wr = init->max_send_wr,
			.max_recv_wr = srq ? 0 : init->max_recv_wr,
			.max_send_sge = init->max_send_sge,
			.max_recv_sge = srq ? 0 : init->max_recv_sge,
		},
		.srq = srq,
		.qp_type = (enum ibv_qp_type)init->type,
		.sq_sig_all = init->sq_sig_all,
	};
	struct ibv_qp_ex *qpx = NULL;
	struct ibv_qp *qp = create(pd, &ia, &qpx);
	if (!qp) {
		int e = errno;
		g_free(q);
		char what[128];
		if (srq)
			snprintf(what, sizeof what, "ibv_create_qp (%s, %u send WRs, %u send SGEs, with an SRQ)",
				 type_name(init->type), init->max_send_wr, init->max_send_sge);
		else
			snprintf(what, sizeof what, "ibv_create_qp (%s, %u/%u WRs, %u/%u SGEs)",
				 type_name(init->type), init->max_send_wr, init->max_recv_wr,
				 init->max_send_sge, init->max_recv_sge);
		return ib_verb_failed(err, e, what);
	}
	q->be = pd->be;
	q->srq = init->srq;
	q->qp = qp;
	q->qpx = qpx;
	q->type = init->type;
	/* ibv_create_qp writes back what the device actually gave. */
	q->max_send_sge = ia.cap.max_send_sge;
	q->max_recv_sge = ia.cap.max_recv_sge;
	q->state_set = IBV_QPS_RESET;
	*qpn = qp->qp_num;
	*out = q;
	return 0;
}

/* The protocol's name of each BE_QPA_* bit, for messages. */
static const struct {
	unsigned be;
	int ibv;
	const char *name;
} qp_attrs[] = {
	{ BE_QPA_STATE, IBV_QP_STATE, "state" },
	{ BE_QPA_PORT, IBV_QP_PORT, "port" },
	{ BE_QPA_PKEY_INDEX, IBV_QP_PKEY_INDEX, "pkey_index" },
	{ BE_QPA_QKEY, IBV_QP_QKEY, "qkey" },
	{ BE_QPA_ACCESS, IBV_QP_ACCESS_FLAGS, "access" },
	{ BE_QPA_PATH_MTU, IBV_QP_PATH_MTU, "path_mtu" },
	{ BE_QPA_DEST_QPN, IBV_QP_DEST_QPN, "dest_qpn" },
	{ BE_QPA_RQ_PSN, IBV_QP_RQ_PSN, "rq_psn" },
	{ BE_QPA_SQ_PSN, IBV_QP_SQ_PSN, "sq_psn" },
	{ BE_QPA_AV, IBV_QP_AV, "dgid" },
	{ BE_QPA_MAX_RD_ATOMIC, IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic" },
	{ BE_QPA_MAX_DEST_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic" },
	{ BE_QPA_MIN_RNR_TIMER, IBV_QP_MIN_RNR_TIMER, "min_rnr_timer" },
	{ BE_QPA_TIMEOUT, IBV_QP_TIMEOUT, "timeout" },
	{ BE_QPA_RETRY_CNT, IBV_QP_RETRY_CNT, "retry_cnt" },
	{ BE_QPA_RNR_RETRY, IBV_QP_RNR_RETRY, "rnr_retry" },
};

/* The attributes a transition requires (IBA 11.2.4.2, and ibv_modify_qp(3)). */
static unsigned required_attrs(enum be_qp_type type, enum ibv_qp_state from, enum be_qp_state to)
{
	if (from == IBV_QPS_RESET && to == BE_QPS_INIT)
		return BE_QPA_STATE | BE_QPA_PKEY_INDEX | BE_QPA_PORT |
		       (type == BE_QPT_UD ? BE_QPA_QKEY : BE_QPA_ACCESS);
	if (from == IBV_QPS_INIT && to == BE_QPS_RTR) {
		if (type == BE_QPT_UD)
			return BE_QPA_STATE;
		unsigned m = BE_QPA_STATE | BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN |
			     BE_QPA_RQ_PSN;
		/* An XRC initiator has no responder. */
		if (type == BE_QPT_RC || (int)type == IBV_QPT_XRC_RECV)
			m |= BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
		return m;
	}
	if (from == IBV_QPS_RTR && to == BE_QPS_RTS) {
		unsigned m = BE_QPA_STATE | BE_QPA_SQ_PSN;
		if (type == BE_QPT_RC || (int)type == IBV_QPT_XRC_SEND)
			m |= BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY |
			     BE_QPA_MAX_RD_ATOMIC;
		else if ((int)type == IBV_QPT_XRC_RECV)
			m |= BE_QPA_TIMEOUT;
		return m;
	}
	return 0;
}

int ib_current_state(struct be_qp *qp, enum ibv_qp_state *state, struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp->qp, &a, IBV_QP_STATE, &ia))
		return ib_verb_failed(err, errno, "ibv_query_qp");
	*state = a.qp_state;
	return 0;
}

int ib_modify_qp(struct be_qp *qp, const struct be_qp_attr *attr, struct be_error *err)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	int mask = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(qp_attrs); i++)
		if (attr->mask & qp_attrs[i].be)
			mask |= qp_attrs[i].ibv;
	if (attr->mask & ~(unsigned)(BE_QPA_RNR_RETRY * 2 - 1))
		return be_error_set(err, BE_BAD_REQUEST, "unknown attribute bits 0x%x",
				    attr->mask & ~(unsigned)(BE_QPA_RNR_RETRY * 2 - 1));

	enum ibv_qp_state from = IBV_QPS_RESET;
	if (ib_current_state(qp, &from, err))
		return -1;
	if (attr->mask & BE_QPA_STATE) {
		if ((unsigned)attr->state > BE_QPS_ERR)
			return be_error_set(err, BE_BAD_REQUEST, "state %d: no such QP state",
					    (int)attr->state);
		unsigned missing = required_attrs(qp->type, from, attr->state) & ~attr->mask;
		if (missing) {
			char names[256] = ""; /* names from qp_attrs: they all fit */
			for (size_t i = 0; i < G_N_ELEMENTS(qp_attrs); i++)
				if (missing & qp_attrs[i].be)
					text_appendf(names, sizeof names, "%s%s", names[0] ? ", " : "", qp_attrs[i].name);
			return be_error_set(err, BE_BAD_REQUEST, "%s QP %s -> %s needs %s",
					    type_name(qp->type), ib_state_name(from),
					    ib_state_name((enum ibv_qp_state)attr->state), names);
		}
		a.qp_state = (enum ibv_qp_state)attr->state;
	}
	a.port_num = attr->port;
	a.pkey_index = attr->pkey_index;
	a.qkey = attr->qkey;
	a.qp_access_flags = ib_access_to_ibv(attr->access);
	if ((attr->mask & BE_QPA_PATH_MTU) && mtu_enum(attr->path_mtu, &a.path_mtu))
		return be_error_set(err, BE_BAD_REQUEST,
				    "path_mtu %u: 256, 512, 1024, 2048 or 4096", attr->path_mtu);
	a.dest_qp_num = attr->dest_qpn;
	a.rq_psn = attr->rq_psn;
	a.sq_psn = attr->sq_psn;
	if (attr->mask & BE_QPA_AV)
		ib_av_to_ah_attr(&attr->av, (attr->mask & BE_QPA_PORT) ? attr->port : 1, &a.ah_attr);
	a.max_rd_atomic = attr->max_rd_atomic;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;

	int e = ibv_modify_qp(qp->qp, &a, mask);
	if (e) {
		char what[96];
		if (attr->mask & BE_QPA_STATE)
			snprintf(what, sizeof what, "ibv_modify_qp (%s QP %s -> %s)",
				 type_name(qp->type), ib_state_name(from), ib_state_name(a.qp_state));
		else
			snprintf(what, sizeof what, "ibv_modify_qp (%s QP in %s)",
				 type_name(qp->type), ib_state_name(from));
		return ib_verb_failed(err, e, what);
	}
	if (attr->mask & BE_QPA_STATE)
		qp->state_set = a.qp_state;
	return 0;
}

int ib_query_qp(struct be_qp *qp, struct be_qp_attr *out, struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
		   IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_SQ_PSN | IBV_QP_AV | IBV_QP_MAX_QP_RD_ATOMIC |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY;
	memset(&a, 0, sizeof a);
	if (ibv_query_qp(qp->qp, &a, mask, &ia))
		return ib_verb_failed(err, errno, "ibv_query_qp");
	memset(out, 0, sizeof *out);
	out->state = (enum be_qp_state)a.qp_state;
	out->port = a.port_num;
	out->pkey_index = a.pkey_index;
	out->mask = BE_QPA_STATE | BE_QPA_PORT | BE_QPA_PKEY_INDEX | BE_QPA_SQ_PSN;
	out->sq_psn = a.sq_psn;
	if (qp->type == BE_QPT_UD) {
		out->qkey = a.qkey;
		out->mask |= BE_QPA_QKEY;
		return 0;
	}
	out->access = a.qp_access_flags & (BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE |
					   BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC);
	out->path_mtu = ib_mtu_bytes(a.path_mtu);
	out->dest_qpn = a.dest_qp_num;
	out->rq_psn = a.rq_psn;
	ah_attr_to_av(&a.ah_attr, &out->av);
	out->mask |= BE_QPA_ACCESS | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN | BE_QPA_AV;
	if (rc_like(qp->type)) {
		out->max_rd_atomic = a.max_rd_atomic;
		out->max_dest_rd_atomic = a.max_dest_rd_atomic;
		out->min_rnr_timer = a.min_rnr_timer;
		out->timeout = a.timeout;
		out->retry_cnt = a.retry_cnt;
		out->rnr_retry = a.rnr_retry;
		out->mask |= BE_QPA_MAX_RD_ATOMIC | BE_QPA_MAX_DEST_RD_ATOMIC |
			     BE_QPA_MIN_RNR_TIMER | BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT |
			     BE_QPA_RNR_RETRY;
	}
	return 0;
}

int ib_destroy_qp(struct be_qp *qp, struct be_error *err)
{
	ib_cm_release(qp);
	ib_mcast_release(qp);
	int e = ibv_destroy_qp(qp->qp);
	if (e)
		return ib_verb_failed(err, e, "ibv_destroy_qp");
	ib_events_forget(qp->be, qp, NULL, NULL);
	g_free(qp);
	return 0;
}

