/* The soft device's verbs: the backend operations of backend.h. */
#include "soft.h"

#include <string.h>

#define SOFT_MAX_QP 1024
#define SOFT_MAX_QP_WR 4096
#define SOFT_MAX_CQE 65536
#define SOFT_MAX_MR_SIZE (64ull << 20)
#define SOFT_MAX_RD_ATOM 16

/* ---- Device (its port: port.c) ---- */

static int soft_query_device(struct backend *be, struct be_device_attr *out, struct be_error *err)
{
	(void)err;
	struct soft_dev *dev = (struct soft_dev *)be;
	memset(out, 0, sizeof *out);
	g_strlcpy(out->name, "roce-soft", sizeof out->name);
	g_strlcpy(out->fw_ver, "roce-agent soft DUT 1", sizeof out->fw_ver);
	out->max_qp = SOFT_MAX_QP;
	out->max_qp_wr = SOFT_MAX_QP_WR;
	out->max_sge = SOFT_MAX_SGE;
	out->max_mr_size = SOFT_MAX_MR_SIZE;
	out->max_qp_rd_atom = SOFT_MAX_RD_ATOM;
	out->max_qp_init_rd_atom = SOFT_MAX_RD_ATOM;
	out->atomic_cap = BE_ATOMIC_HCA;
	out->caps = BE_CAP_RC | BE_CAP_UC | BE_CAP_UD | BE_CAP_ATOMIC | BE_CAP_IPV4 | BE_CAP_IPV6 |
		    BE_CAP_SEND_WITH_INV | (dev->opts.rcm ? BE_CAP_RCM : 0) | (dev->opts.rocev1 ? BE_CAP_ROCEV1 : 0) |
		    BE_CAP_SRQ | BE_CAP_MCAST | BE_CAP_CM_MCAST | BE_CAP_ASYNC_EVENTS | BE_CAP_MW1 | BE_CAP_MW2 |
		    BE_CAP_XRC | (soft_placement_supported(dev) ? BE_CAP_FLUSH | BE_CAP_ATOMIC_WRITE : 0);
	return 0;
}

/* ---- PD, CQ, MR, AH ---- */

static int soft_alloc_pd(struct backend *be, struct be_pd **out, struct be_error *err)
{
	(void)err;
	struct be_pd *pd = g_new0(struct be_pd, 1);
	pd->dev = (struct soft_dev *)be;
	pd->dev->cnt.objects_pd++;
	*out = pd;
	return 0;
}

static int soft_dealloc_pd(struct be_pd *pd, struct be_error *err)
{
	if (pd->refs)
		return be_error_set(err, BE_INVALID_STATE, "the PD still has %u objects", pd->refs);
	pd->dev->cnt.objects_pd--;
	g_free(pd);
	return 0;
}

static int soft_create_cq(struct backend *be, unsigned cqe, struct be_cq **out, struct be_error *err)
{
	if (cqe < 1 || cqe > SOFT_MAX_CQE)
		return be_error_set(err, BE_BAD_REQUEST, "cqe %u: must be 1..%u", cqe, SOFT_MAX_CQE);
	struct be_cq *cq = g_new0(struct be_cq, 1);
	cq->dev = (struct soft_dev *)be;
	cq->cap = cqe;
	cq->ring = g_new0(struct be_wc, cqe);
	cq->dev->cnt.objects_cq++;
	*out = cq;
	return 0;
}

static int soft_destroy_cq(struct be_cq *cq, struct be_error *err)
{
	(void)err;
	cq->dev->cnt.objects_cq--;
	g_free(cq->ring);
	g_free(cq);
	return 0;
}

void soft_cq_push(struct be_cq *cq, const struct be_wc *wc)
{
	/* An XRC target whose XRC SRQ was destroyed under a receive it had
	 * taken: that receive has no CQ left to complete on. */
	if (!cq)
		return;
	if (cq->count == cq->cap) {
		cq->overflow = true;
		return;
	}
	struct be_wc *at = &cq->ring[(cq->head + cq->count) % cq->cap];
	*at = *wc;
	/* As libibverbs numbers them, with any bit the device set there. */
	at->wc_flags_raw |= be_wc_flags_verbs(wc->wc_flags);
	cq->count++;
}

static int soft_poll_cq(struct be_cq *cq, struct be_wc *out, unsigned max, unsigned *n,
			struct be_error *err)
{
	if (cq->overflow) {
		cq->overflow = false;
		return be_error_set(err, BE_DEVICE_ERROR, "CQ overrun: completions were lost");
	}
	*n = 0;
	while (*n < max && cq->count) {
		out[(*n)++] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
	}
	return 0;
}

static int soft_reg_mr(struct be_pd *pd, uint64_t length, unsigned access, uint8_t fill,
		       struct be_mr **out, struct be_error *err)
{
	struct soft_dev *dev = pd->dev;
	if (length == 0 || length > SOFT_MAX_MR_SIZE)
		return be_error_set(err, BE_BAD_REQUEST, "length %llu: must be 1..%llu",
				    (unsigned long long)length, (unsigned long long)SOFT_MAX_MR_SIZE);
	if ((access & (BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & BE_ACCESS_LOCAL_WRITE))
		return be_error_set(err, BE_BAD_REQUEST,
				    "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE (as in verbs)");
	if (!soft_placement_region_ok(dev, access))
		return be_error_set(err, BE_UNSUPPORTED,
				    "FLUSH_PERSISTENT refused: the device has no persistent memory");
	uint8_t *buf = g_try_malloc(length);
	if (!buf)
		return be_error_set(err, BE_RESOURCE_LIMIT, "out of memory for %llu bytes",
				    (unsigned long long)length);
	memset(buf, fill, length);
	struct be_mr *mr = g_new0(struct be_mr, 1);
	mr->dev = dev;
	mr->pd = pd;
	mr->buf = buf;
	mr->length = length;
	mr->access = access;
	/* Keys: the low byte varies like a real key's; never 0, never reused
	 * while registered. */
	do {
		dev->next_key += 0x100 + 0x17;
		/* Window rkeys (mw.c) have the indices from SOFT_MW_INDEX_BASE. */
		if (dev->next_key >> 8 >= SOFT_MW_INDEX_BASE)
			dev->next_key = 0x1000;
	} while (dev->next_key == 0 || g_hash_table_contains(dev->mrs, GUINT_TO_POINTER(dev->next_key)));
	mr->lkey = mr->rkey = dev->next_key;
	/* Addresses: page-aligned, disjoint, never 0 (so a stray VA fails). */
	mr->addr = dev->next_va;
	dev->next_va += (length + 0xFFFFull) & ~0xFFFFull;
	dev->next_va += 0x10000;
	mr->valid = mr->rkey_valid = true;
	mr->refs = 1;
	g_hash_table_insert(dev->mrs, GUINT_TO_POINTER(mr->lkey), mr);
	pd->refs++;
	dev->cnt.objects_mr++;
	*out = mr;
	return 0;
}

void soft_mr_unref(struct be_mr *mr)
{
	if (--mr->refs == 0) {
		g_free(mr->buf);
		g_free(mr);
	}
}

static int soft_dereg_mr(struct be_mr *mr, struct be_error *err)
{
	if (soft_mw_check_dereg(mr, err))
		return -1;
	g_hash_table_remove(mr->dev->mrs, GUINT_TO_POINTER(mr->lkey));
	mr->valid = mr->rkey_valid = false;
	mr->pd->refs--;
	mr->dev->cnt.objects_mr--;
	soft_mr_unref(mr);
	return 0;
}

static void soft_mr_info(struct be_mr *mr, struct be_mr_info *out)
{
	soft_placement_host_access(mr);
	out->buf = mr->buf;
	out->length = mr->length;
	out->addr = mr->addr;
	out->lkey = mr->lkey;
	out->rkey = mr->rkey;
}

struct be_mr *soft_mr_by_rkey(struct soft_dev *dev, struct be_pd *pd, uint32_t rkey)
{
	struct be_mr *mr = g_hash_table_lookup(dev->mrs, GUINT_TO_POINTER(rkey));
	if (!mr || mr->pd != pd || !mr->valid || !mr->rkey_valid)
		return NULL;
	return mr;
}

static int soft_create_ah(struct be_pd *pd, const struct be_av *av, struct be_ah **out,
			  struct be_error *err)
{
	struct roce_endpoint ep;
	char why[160];
	if (!soft_av_endpoint(pd->dev, av, &ep, false, why, sizeof why))
		return be_error_set(err, BE_BAD_REQUEST, "%s", why);
	struct be_ah *ah = g_new0(struct be_ah, 1);
	ah->dev = pd->dev;
	ah->pd = pd;
	ah->av = *av;
	pd->refs++;
	pd->dev->cnt.objects_ah++;
	*out = ah;
	return 0;
}

static int soft_destroy_ah(struct be_ah *ah, struct be_error *err)
{
	(void)err;
	ah->pd->refs--;
	ah->dev->cnt.objects_ah--;
	g_free(ah);
	return 0;
}

/* ---- SGEs ---- */

bool soft_sge_copy(const struct soft_sge *sge, unsigned n, uint64_t off, uint8_t *buf, uint64_t len,
		   bool to_sges)
{
	for (unsigned i = 0; i < n && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		uint64_t take = sge[i].length - off;
		if (take > len)
			take = len;
		uint8_t *mem = sge[i].mr->buf + sge[i].offset + off;
		if (to_sges)
			memcpy(mem, buf, take);
		else
			memcpy(buf, mem, take);
		buf += take;
		len -= take;
		off = 0;
	}
	return len == 0;
}

void soft_sges_release(struct soft_sge *sge, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (sge[i].mr) {
			soft_mr_unref(sge[i].mr);
			sge[i].mr = NULL;
		}
}

uint64_t soft_sges_take(struct soft_sge *dst, const struct be_sge *src, unsigned n)
{
	uint64_t len = 0;
	for (unsigned i = 0; i < n; i++) {
		dst[i].mr = src[i].mr;
		dst[i].offset = src[i].offset;
		dst[i].length = src[i].length;
		dst[i].mr->refs++;
		len += src[i].length;
	}
	return len;
}

/* ---- QP ---- */

static void rq_flush(struct be_qp *qp, bool complete)
{
	/* A broken device: the last message received is completed again in
	 * every receive instead of their flush. */
	bool redeliver = complete && qp->resp.have_last_recv && SOFT_FAULT_ON(qp->dev, BUG_SEND_REDELIVERED_ON_ERROR);
	while (qp->rq_count) {
		struct soft_rwqe *w = &qp->rq[qp->rq_head];
		if (complete) {
			struct be_wc wc = { .wr_id = w->wr_id, .status = BE_WC_WR_FLUSH_ERR,
					    .opcode = BE_WC_RECV, .qp_num = qp->qpn };
			if (redeliver) {
				wc.status = BE_WC_SUCCESS;
				wc.byte_len = qp->resp.last_recv_len;
				wc.src_qp = qp->attr.dest_qpn;
			}
			soft_cq_push(qp->rcq, &wc);
		}
		soft_sges_release(w->sge, w->num_sge);
		qp->rq_head = (qp->rq_head + 1) % qp->max_recv_wr;
		qp->rq_count--;
	}
	if (qp->resp.have_wqe) {
		if (complete) {
			struct be_wc wc = { .wr_id = qp->resp.wqe.wr_id, .status = BE_WC_WR_FLUSH_ERR,
					    .opcode = BE_WC_RECV, .qp_num = qp->qpn };
			soft_cq_push(qp->rcq, &wc);
		}
		soft_sges_release(qp->resp.wqe.sge, qp->resp.wqe.num_sge);
		qp->resp.have_wqe = false;
	}
}

static enum be_wc_opcode send_wc_opcode(enum be_wr_opcode op)
{
	switch (op) {
	case BE_WR_RDMA_WRITE:
	case BE_WR_RDMA_WRITE_WITH_IMM: return BE_WC_RDMA_WRITE;
	case BE_WR_RDMA_READ: return BE_WC_RDMA_READ;
	case BE_WR_ATOMIC_CMP_AND_SWP: return BE_WC_COMP_SWAP;
	case BE_WR_ATOMIC_FETCH_AND_ADD: return BE_WC_FETCH_ADD;
	case BE_WR_BIND_MW: return BE_WC_BIND_MW;
	case BE_WR_LOCAL_INV: return BE_WC_LOCAL_INV;
	case BE_WR_FLUSH: return BE_WC_FLUSH;
	case BE_WR_ATOMIC_WRITE: return BE_WC_ATOMIC_WRITE;
	default: return BE_WC_SEND;
	}
}

static void sq_flush(struct be_qp *qp, bool complete)
{
	while (qp->sq_count) {
		struct soft_swqe *w = &qp->sq[qp->sq_head];
		if (complete) {
			struct be_wc wc = { .wr_id = w->wr.wr_id,
					    .status = BE_WC_WR_FLUSH_ERR,
					    .opcode = send_wc_opcode(w->wr.opcode), .qp_num = qp->qpn };
			if (w->signaled || wc.status != BE_WC_SUCCESS)
				soft_cq_push(qp->scq, &wc);
		}
		soft_sges_release(w->sge, w->num_sge);
		qp->sq_head = (qp->sq_head + 1) % qp->max_send_wr;
		qp->sq_count--;
	}
	qp->sq_next = 0;
	qp->pkt_next = 0;
}

void soft_qp_to_error(struct be_qp *qp)
{
	bool was_err = qp->attr.state == BE_QPS_ERR;
	qp->attr.state = BE_QPS_ERR;
	qp->req.ack_deadline = qp->req.rnr_deadline = 0;
	rq_flush(qp, true);
	sq_flush(qp, true);
	if (!was_err)
		soft_srq_qp_error(qp);
}

static int soft_create_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out,
			  uint32_t *qpn, struct be_error *err)
{
	struct soft_dev *dev = pd->dev;
	switch (init->type) {
	case BE_QPT_RC:
	case BE_QPT_UC:
	case BE_QPT_UD:
	case BE_QPT_XRC_SEND:
	case BE_QPT_XRC_RECV:
		break;
	default:
		return be_error_set(err, BE_UNSUPPORTED, "QP type %d is not supported", init->type);
	}
	if (g_hash_table_size(dev->qps) >= SOFT_MAX_QP)
		return be_error_set(err, BE_RESOURCE_LIMIT, "the device has %u QPs already", SOFT_MAX_QP);
	/* With an SRQ the QP's own receive queue is unused: max_recv_wr is
	 * ignored. */
	uint32_t max_recv_wr = init->srq ? 1 : init->max_recv_wr;
	if (init->srq && init->srq->pd->dev != dev)
		return be_error_set(err, BE_BAD_REQUEST, "the SRQ belongs to another device");
	if (init->max_send_wr < 1 || init->max_send_wr > SOFT_MAX_QP_WR || max_recv_wr < 1 ||
	    max_recv_wr > SOFT_MAX_QP_WR)
		return be_error_set(err, BE_BAD_REQUEST, "max_send_wr and max_recv_wr must be 1..%u",
				    SOFT_MAX_QP_WR);
	if (init->max_send_sge < 1 || init->max_send_sge > SOFT_MAX_SGE || init->max_recv_sge < 1 ||
	    init->max_recv_sge > SOFT_MAX_SGE)
		return be_error_set(err, BE_BAD_REQUEST, "max_send_sge and max_recv_sge must be 1..%u",
				    SOFT_MAX_SGE);
	soft_hostile_before_create_qp(dev);
	struct be_qp *qp = g_new0(struct be_qp, 1);
	qp->dev = dev;
	qp->type = init->type;
	if (soft_xrc_qp_init(qp, init, err)) {
		g_free(qp);
		return -1;
	}
	qp->pd = pd;
	qp->scq = init->send_cq;
	qp->rcq = init->recv_cq;
	qp->type = init->type;
	qp->sq_sig_all = init->sq_sig_all;
	qp->max_send_wr = init->max_send_wr;
	qp->max_recv_wr = max_recv_wr;
	qp->srq = init->srq;
	if (qp->srq)
		qp->srq->users++;
	qp->max_send_sge = init->max_send_sge;
	qp->max_recv_sge = init->max_recv_sge;
	qp->rq = g_new0(struct soft_rwqe, qp->max_recv_wr);
	qp->sq = g_new0(struct soft_swqe, qp->max_send_wr);
	qp->attr.state = BE_QPS_RESET;
	qp->attr.port = 1;
	qp->attr.path_mtu = 1024;
	do {
		dev->next_qpn = (dev->next_qpn + 1) & 0xFFFFFF;
		if (dev->next_qpn < 2 || dev->next_qpn == 0xFFFFFF)
			dev->next_qpn = 0x11;
	} while (g_hash_table_contains(dev->qps, GUINT_TO_POINTER(dev->next_qpn)));
	qp->qpn = dev->next_qpn;
	g_hash_table_insert(dev->qps, GUINT_TO_POINTER(qp->qpn), qp);
	pd->refs++;
	dev->cnt.objects_qp++;
	*out = qp;
	*qpn = qp->qpn;
	return 0;
}

static const char *qp_type_name(enum be_qp_type t)
{
	switch (t) {
	case BE_QPT_RC: return "RC";
	case BE_QPT_UC: return "UC";
	case BE_QPT_UD: return "UD";
	case BE_QPT_XRC_SEND: return "XRC_SEND";
	case BE_QPT_XRC_RECV: return "XRC_RECV";
	}
	return "?";
}

static const char *state_name(enum be_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return (unsigned)s < 7 ? n[s] : "?";
}

/* Attributes a transition needs, per QP type (as in the IBA / verbs table). */
static unsigned required_attrs(enum be_qp_type t, enum be_qp_state from, enum be_qp_state to)
{
	/* XRC, as the verbs' table has it: an initiator receives nothing (no
	 * responder attributes at RTR), a target sends nothing but responses
	 * (no retries or outstanding READs at RTS). */
	if (t == BE_QPT_XRC_SEND && from == BE_QPS_INIT && to == BE_QPS_RTR)
		return BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN;
	if (t == BE_QPT_XRC_RECV && from == BE_QPS_RTR && to == BE_QPS_RTS)
		return BE_QPA_SQ_PSN | BE_QPA_TIMEOUT;
	if (t == BE_QPT_XRC_SEND || t == BE_QPT_XRC_RECV) /* otherwise connected and reliable, as RC */
		t = BE_QPT_RC;
	if (from == BE_QPS_RESET && to == BE_QPS_INIT)
		return BE_QPA_PORT | BE_QPA_PKEY_INDEX | (t == BE_QPT_UD ? BE_QPA_QKEY : BE_QPA_ACCESS);
	if (from == BE_QPS_INIT && to == BE_QPS_RTR) {
		if (t == BE_QPT_RC)
			return BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN |
			       BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
		if (t == BE_QPT_UC)
			return BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN;
		return 0;
	}
	if (from == BE_QPS_RTR && to == BE_QPS_RTS) {
		if (t == BE_QPT_RC)
			return BE_QPA_SQ_PSN | BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY |
			       BE_QPA_MAX_RD_ATOMIC;
		return BE_QPA_SQ_PSN;
	}
	return 0;
}

/* Attributes a transition may also take (the verbs' table of optional
 * attributes); anything else is refused, as libibverbs devices refuse it,
 * so that what works against the soft DUT works against hardware. */
static unsigned optional_attrs(enum be_qp_type t, enum be_qp_state from, enum be_qp_state to)
{
	bool rc = t == BE_QPT_RC || t == BE_QPT_XRC_SEND || t == BE_QPT_XRC_RECV, ud = t == BE_QPT_UD;
	if (to == BE_QPS_RESET || to == BE_QPS_ERR)
		return 0;
	if (from == BE_QPS_INIT && to == BE_QPS_INIT)
		return BE_QPA_PORT | BE_QPA_PKEY_INDEX | (ud ? BE_QPA_QKEY : BE_QPA_ACCESS);
	if (from == BE_QPS_INIT && to == BE_QPS_RTR)
		return BE_QPA_PKEY_INDEX | (ud ? BE_QPA_QKEY : BE_QPA_ACCESS);
	if ((from == BE_QPS_RTR || from == BE_QPS_RTS || from == BE_QPS_SQD) && to == BE_QPS_RTS)
		return ud ? BE_QPA_QKEY : BE_QPA_ACCESS | (rc ? BE_QPA_MIN_RNR_TIMER : 0);
	if (from == BE_QPS_SQD && to == BE_QPS_SQD) {
		if (ud)
			return BE_QPA_PKEY_INDEX | BE_QPA_QKEY;
		unsigned uc = BE_QPA_PORT | BE_QPA_AV | BE_QPA_ACCESS | BE_QPA_PKEY_INDEX;
		return rc ? uc | BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY | BE_QPA_MAX_RD_ATOMIC |
				    BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER
			  : uc;
	}
	if (from == BE_QPS_SQE && to == BE_QPS_RTS)
		return ud ? BE_QPA_QKEY : BE_QPA_ACCESS;
	return 0;
}

static bool transition_ok(enum be_qp_state from, enum be_qp_state to)
{
	if (to == BE_QPS_RESET || to == BE_QPS_ERR)
		return true;
	switch (from) {
	case BE_QPS_RESET: return to == BE_QPS_INIT;
	case BE_QPS_INIT: return to == BE_QPS_INIT || to == BE_QPS_RTR;
	case BE_QPS_RTR: return to == BE_QPS_RTS;
	case BE_QPS_RTS: return to == BE_QPS_RTS || to == BE_QPS_SQD;
	case BE_QPS_SQD: return to == BE_QPS_RTS || to == BE_QPS_SQD;
	case BE_QPS_SQE: return to == BE_QPS_RTS;
	default: return false;
	}
}

static const char *attr_name(unsigned bit)
{
	switch (bit) {
	case BE_QPA_PORT: return "port";
	case BE_QPA_PKEY_INDEX: return "pkey_index";
	case BE_QPA_QKEY: return "qkey";
	case BE_QPA_ACCESS: return "access";
	case BE_QPA_PATH_MTU: return "path_mtu";
	case BE_QPA_DEST_QPN: return "dest_qpn";
	case BE_QPA_RQ_PSN: return "rq_psn";
	case BE_QPA_SQ_PSN: return "sq_psn";
	case BE_QPA_AV: return "dgid";
	case BE_QPA_MAX_RD_ATOMIC: return "max_rd_atomic";
	case BE_QPA_MAX_DEST_RD_ATOMIC: return "max_dest_rd_atomic";
	case BE_QPA_MIN_RNR_TIMER: return "min_rnr_timer";
	case BE_QPA_TIMEOUT: return "timeout";
	case BE_QPA_RETRY_CNT: return "retry_cnt";
	case BE_QPA_RNR_RETRY: return "rnr_retry";
	default: return "?";
	}
}

/* The UDP source port of a connected QP: constant for the QP (A17.3.2), in
 * 0xC000..0xFFFF like Linux, from both QP numbers. */
static uint16_t qp_sport(uint32_t a, uint32_t b)
{
	uint32_t fl = (a * 31u + b) ^ ((a * 31u + b) >> 20);
	fl &= 0xFFFFF;
	return (uint16_t)(0xC000 | ((fl & 0x3FFF) ^ (fl >> 14)));
}

static int soft_modify_qp(struct be_qp *qp, const struct be_qp_attr *a, struct be_error *err)
{
	struct soft_dev *dev = qp->dev;
	enum be_qp_state from = qp->attr.state;
	enum be_qp_state to = (a->mask & BE_QPA_STATE) ? a->state : from;
	if (!transition_ok(from, to))
		return be_error_set(err, BE_INVALID_STATE, "%s -> %s is not a valid transition",
				    state_name(from), state_name(to));
	unsigned need = (a->mask & BE_QPA_STATE) ? required_attrs(qp->type, from, to) : 0;
	for (unsigned bit = 1; bit; bit <<= 1)
		if ((need & bit) && !(a->mask & bit))
			return be_error_set(err, BE_BAD_REQUEST, "%s -> %s on a %s QP needs %s",
					    state_name(from), state_name(to),
					    qp_type_name(qp->type), attr_name(bit));
	unsigned allowed = required_attrs(qp->type, from, to) | optional_attrs(qp->type, from, to);
	for (unsigned bit = BE_QPA_PORT; bit <= BE_QPA_RNR_RETRY; bit <<= 1)
		if ((a->mask & bit) && !(allowed & bit))
			return be_error_set(err, BE_BAD_REQUEST, "%s -> %s on a %s QP does not take %s",
					    state_name(from), state_name(to),
					    qp_type_name(qp->type), attr_name(bit));
	if ((a->mask & BE_QPA_PORT) && a->port != 1)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: the soft device has port 1 only", a->port);
	if ((a->mask & BE_QPA_PKEY_INDEX) && a->pkey_index != 0)
		return be_error_set(err, BE_BAD_REQUEST, "pkey_index %u: the P_Key table has one entry (0xFFFF)",
				    a->pkey_index);
	if ((a->mask & BE_QPA_PATH_MTU) && !roce_mtu_enum(a->path_mtu))
		return be_error_set(err, BE_BAD_REQUEST, "path_mtu %u is not 256, 512, 1024, 2048 or 4096",
				    a->path_mtu);
	if ((a->mask & BE_QPA_PATH_MTU) && a->path_mtu > soft_port_mtu(dev))
		return be_error_set(err, BE_BAD_REQUEST, "path_mtu %u exceeds the port's active MTU %u",
				    a->path_mtu, soft_port_mtu(dev));
	if ((a->mask & BE_QPA_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > SOFT_MAX_RD_ATOM)
		return be_error_set(err, BE_BAD_REQUEST, "max_dest_rd_atomic %u exceeds %u",
				    a->max_dest_rd_atomic, SOFT_MAX_RD_ATOM);
	if ((a->mask & BE_QPA_MAX_RD_ATOMIC) && a->max_rd_atomic > SOFT_MAX_RD_ATOM)
		return be_error_set(err, BE_BAD_REQUEST, "max_rd_atomic %u exceeds %u", a->max_rd_atomic,
				    SOFT_MAX_RD_ATOM);
	if ((a->mask & BE_QPA_DEST_QPN) && (a->dest_qpn == 0 || a->dest_qpn > 0xFFFFFE))
		return be_error_set(err, BE_BAD_REQUEST, "dest_qpn 0x%x is not a unicast QPN", a->dest_qpn);
	if ((a->mask & BE_QPA_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return be_error_set(err, BE_BAD_REQUEST, "min_rnr_timer %u exceeds 31", a->min_rnr_timer);
	if ((a->mask & BE_QPA_TIMEOUT) && a->timeout > 31)
		return be_error_set(err, BE_BAD_REQUEST, "timeout %u exceeds 31", a->timeout);
	if ((a->mask & BE_QPA_RETRY_CNT) && a->retry_cnt > 7)
		return be_error_set(err, BE_BAD_REQUEST, "retry_cnt %u exceeds 7", a->retry_cnt);
	if ((a->mask & BE_QPA_RNR_RETRY) && a->rnr_retry > 7)
		return be_error_set(err, BE_BAD_REQUEST, "rnr_retry %u exceeds 7", a->rnr_retry);
	struct roce_endpoint ep;
	if (a->mask & BE_QPA_AV) {
		char why[160];
		if (!soft_av_endpoint(dev, &a->av, &ep, false, why, sizeof why))
			return be_error_set(err, BE_BAD_REQUEST, "%s", why);
	}

	/* Everything checked: apply. */
	struct be_qp_attr *c = &qp->attr;
	if (a->mask & BE_QPA_PORT) c->port = a->port;
	if (a->mask & BE_QPA_PKEY_INDEX) c->pkey_index = a->pkey_index;
	if (a->mask & BE_QPA_QKEY) c->qkey = a->qkey;
	if (a->mask & BE_QPA_ACCESS) c->access = a->access;
	if (a->mask & BE_QPA_PATH_MTU) c->path_mtu = a->path_mtu;
	if (a->mask & BE_QPA_DEST_QPN) c->dest_qpn = a->dest_qpn;
	if (a->mask & BE_QPA_RQ_PSN) c->rq_psn = a->rq_psn & ROCE_PSN_MASK;
	if (a->mask & BE_QPA_SQ_PSN) c->sq_psn = a->sq_psn & ROCE_PSN_MASK;
	if (a->mask & BE_QPA_AV) {
		c->av = a->av;
		qp->ep = ep;
		qp->gid_v1 = ep.rocev1;
	}
	if (a->mask & BE_QPA_MAX_RD_ATOMIC) c->max_rd_atomic = a->max_rd_atomic;
	if (a->mask & BE_QPA_MAX_DEST_RD_ATOMIC) c->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (a->mask & BE_QPA_MIN_RNR_TIMER) c->min_rnr_timer = a->min_rnr_timer;
	if (a->mask & BE_QPA_TIMEOUT) c->timeout = a->timeout;
	if (a->mask & BE_QPA_RETRY_CNT) c->retry_cnt = a->retry_cnt;
	if (a->mask & BE_QPA_RNR_RETRY) c->rnr_retry = a->rnr_retry;
	c->mask |= a->mask & ~BE_QPA_STATE;
	qp->ep.dest_qpn = c->dest_qpn;
	qp->ep.pkey = 0xFFFF;
	qp->udp_sport = qp_sport(qp->qpn, c->dest_qpn);
	qp->ep.udp_sport = qp->udp_sport;

	if (to == BE_QPS_RESET && from != BE_QPS_RESET) {
		rq_flush(qp, false);
		sq_flush(qp, false);
		soft_resp_reset(qp);
		soft_req_reset(qp);
		c->mask = 0;
	}
	if (to == BE_QPS_ERR && from != BE_QPS_ERR) {
		soft_qp_to_error(qp);
		return 0;
	}
	if (from == BE_QPS_INIT && to == BE_QPS_RTR) {
		soft_resp_reset(qp);
		qp->resp.epsn = c->rq_psn;
	}
	if (from == BE_QPS_RTR && to == BE_QPS_RTS) {
		soft_req_reset(qp);
		qp->req.next_psn = c->sq_psn;
		qp->req.acked_psn = roce_psn_add(c->sq_psn, -1);
		soft_port_qp_ready(qp);
	}
	c->state = to;
	if (to == BE_QPS_RTS)
		soft_req_kick(qp);
	soft_timer_update(dev);
	return 0;
}

static int soft_query_qp(struct be_qp *qp, struct be_qp_attr *out, struct be_error *err)
{
	(void)err;
	*out = qp->attr;
	out->mask |= BE_QPA_STATE;
	if (qp->attr.state >= BE_QPS_RTR) {
		out->rq_psn = qp->resp.epsn;
		out->mask |= BE_QPA_RQ_PSN;
	}
	if (qp->attr.state >= BE_QPS_RTS && qp->attr.state != BE_QPS_ERR) {
		out->sq_psn = qp->req.next_psn;
		out->mask |= BE_QPA_SQ_PSN;
	}
	return 0;
}

static int soft_destroy_qp(struct be_qp *qp, struct be_error *err)
{
	(void)err;
	struct soft_dev *dev = qp->dev;
	rq_flush(qp, false);
	sq_flush(qp, false);
	soft_resp_reset(qp);
	soft_mcast_qp_gone(qp);
	soft_events_forget(dev, qp);
	if (qp->srq && qp->type != BE_QPT_XRC_RECV)
		qp->srq->users--;
	soft_xrc_qp_gone(qp);
	soft_mw_qp_gone(qp);
	g_hash_table_remove(dev->qps, GUINT_TO_POINTER(qp->qpn));
	qp->pd->refs--;
	dev->cnt.objects_qp--;
	g_free(qp->resp.res);
	g_free(qp->rq);
	g_free(qp->sq);
	g_free(qp);
	soft_timer_update(dev);
	return 0;
}

/* ---- Posting ---- */

static int soft_post_recv(struct be_qp *qp, const struct be_recv_wr *wr, struct be_error *err)
{
	if (qp->attr.state == BE_QPS_RESET)
		return be_error_set(err, BE_INVALID_STATE, "the QP is in RESET");
	if (qp->srq)
		return be_error_set(err, BE_INVALID_STATE, "the QP takes its receives from an SRQ");
	if (wr->num_sge > qp->max_recv_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs exceed the QP's max_recv_sge %u",
				    wr->num_sge, qp->max_recv_sge);
	if (qp->rq_count == qp->max_recv_wr)
		return be_error_set(err, BE_RESOURCE_LIMIT, "the receive queue is full (%u WQEs)",
				    qp->max_recv_wr);
	struct soft_rwqe *w = &qp->rq[(qp->rq_head + qp->rq_count) % qp->max_recv_wr];
	memset(w, 0, sizeof *w);
	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	w->length = soft_sges_take(w->sge, wr->sge, wr->num_sge);
	qp->rq_count++;
	if (qp->attr.state == BE_QPS_ERR)
		rq_flush(qp, true);
	return 0;
}

static bool opcode_ok(enum be_qp_type t, enum be_wr_opcode op)
{
	if (t == BE_QPT_XRC_RECV) /* a target has no send queue */
		return false;
	switch (op) {
	case BE_WR_SEND:
	case BE_WR_SEND_WITH_IMM: return true;
	case BE_WR_RDMA_WRITE:
	case BE_WR_RDMA_WRITE_WITH_IMM: return t != BE_QPT_UD;
	case BE_WR_SEND_WITH_INV: return t != BE_QPT_UD;
	case BE_WR_RDMA_READ:
	case BE_WR_ATOMIC_CMP_AND_SWP:
	case BE_WR_ATOMIC_FETCH_AND_ADD: return t == BE_QPT_RC || t == BE_QPT_XRC_SEND;
	case BE_WR_BIND_MW:
	case BE_WR_LOCAL_INV: return t == BE_QPT_RC || t == BE_QPT_UC;
	case BE_WR_FLUSH:
	case BE_WR_ATOMIC_WRITE: return t == BE_QPT_RC; /* libroce has their RC opcodes only */
	default: return false;
	}
}

static int soft_post_send(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err)
{
	enum be_qp_state s = qp->attr.state;
	if (s != BE_QPS_RTS && s != BE_QPS_SQD && s != BE_QPS_ERR)
		return be_error_set(err, BE_INVALID_STATE, "the QP is in %s; sends need RTS", state_name(s));
	if (!opcode_ok(qp->type, wr->opcode))
		return be_error_set(err, BE_BAD_REQUEST, "this opcode is not valid on a%s %s QP",
				    qp->type == BE_QPT_XRC_RECV ? "n" : "", qp_type_name(qp->type));
	if ((soft_mw_local_wr(wr->opcode) || soft_placement_wr(wr->opcode)) && wr->num_sge)
		return be_error_set(err, BE_BAD_REQUEST, "a %s work request takes no SGEs",
				    ap_wr_opcode_name((enum ap_wr_opcode)wr->opcode));
	if (wr->opcode == BE_WR_BIND_MW && (!wr->mw || wr->mw->dev != qp->dev))
		return be_error_set(err, BE_BAD_REQUEST, "BIND_MW needs a window of this device");
	if (wr->num_sge > qp->max_send_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs exceed the QP's max_send_sge %u",
				    wr->num_sge, qp->max_send_sge);
	uint64_t len = 0;
	for (unsigned i = 0; i < wr->num_sge; i++)
		len += wr->sge[i].length;
	bool atomic = wr->opcode == BE_WR_ATOMIC_CMP_AND_SWP || wr->opcode == BE_WR_ATOMIC_FETCH_AND_ADD;
	if (atomic && len != 8)
		return be_error_set(err, BE_BAD_REQUEST, "an atomic needs SGEs of 8 bytes in all, not %llu",
				    (unsigned long long)len);
	if (len > 0x80000000ull)
		return be_error_set(err, BE_BAD_REQUEST, "message of %llu bytes exceeds 2^31",
				    (unsigned long long)len);
	if (qp->type == BE_QPT_UD) {
		if (!wr->ah)
			return be_error_set(err, BE_BAD_REQUEST, "a UD send needs an AH");
		if (wr->ah->pd != qp->pd)
			return be_error_set(err, BE_BAD_REQUEST, "the AH belongs to another PD");
		if (len > soft_port_mtu(qp->dev))
			return be_error_set(err, BE_BAD_REQUEST, "UD message of %llu bytes exceeds the path MTU %u",
					    (unsigned long long)len, soft_port_mtu(qp->dev));
		if (wr->remote_qpn == 0 || wr->remote_qpn > 0xFFFFFF)
			return be_error_set(err, BE_BAD_REQUEST, "remote_qpn 0x%x is not a QPN", wr->remote_qpn);
	}
	if (qp->sq_count == qp->max_send_wr)
		return be_error_set(err, BE_RESOURCE_LIMIT, "the send queue is full (%u WQEs)",
				    qp->max_send_wr);
	struct soft_swqe *w = &qp->sq[(qp->sq_head + qp->sq_count) % qp->max_send_wr];
	memset(w, 0, sizeof *w);
	w->wr = *wr;
	w->wr.sge = NULL;
	w->wr.ah = NULL;
	w->num_sge = wr->num_sge;
	w->length = soft_sges_take(w->sge, wr->sge, wr->num_sge);
	w->signaled = wr->signaled || qp->sq_sig_all;
	if (wr->ah)
		w->av = wr->ah->av;
	qp->sq_count++;
	if (s == BE_QPS_ERR) {
		sq_flush(qp, true);
		return 0;
	}
	soft_req_kick(qp);
	soft_timer_update(qp->dev);
	return 0;
}

/* ---- Counters ---- */

static int soft_read_counters(struct backend *be, unsigned port, be_counter_fn fn, void *ctx,
			      struct be_error *err)
{
	struct soft_dev *dev = (struct soft_dev *)be;
	if (port != 1)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: the soft device has port 1 only", port);
	struct soft_counters c = dev->cnt;
	soft_fault_counters(dev, &c);
#define SOFT_COUNTER_EMIT(n, text) fn(ctx, #n, c.n);
	SOFT_COUNTERS(SOFT_COUNTER_EMIT)
#undef SOFT_COUNTER_EMIT
	return 0;
}

const struct backend_ops soft_ops = {
	.name = "soft",
	.close = soft_backend_close,
	.query_device = soft_query_device,
	.query_port = soft_query_port,
	.list_gids = soft_list_gids,
	.alloc_pd = soft_alloc_pd,
	.dealloc_pd = soft_dealloc_pd,
	.create_cq = soft_create_cq,
	.destroy_cq = soft_destroy_cq,
	.reg_mr = soft_reg_mr,
	.dereg_mr = soft_dereg_mr,
	.mr_info = soft_mr_info,
	.create_qp = soft_create_qp,
	.modify_qp = soft_modify_qp,
	.query_qp = soft_query_qp,
	.destroy_qp = soft_destroy_qp,
	.create_ah = soft_create_ah,
	.destroy_ah = soft_destroy_ah,
	.post_recv = soft_post_recv,
	.post_send = soft_post_send,
	.poll_cq = soft_poll_cq,
	.read_counters = soft_read_counters,
	.cm_listen = soft_cm_listen,
	.create_srq = soft_create_srq,
	.modify_srq = soft_modify_srq,
	.query_srq = soft_query_srq,
	.destroy_srq = soft_destroy_srq,
	.post_srq_recv = soft_post_srq_recv,
	.get_async_events = soft_get_async_events,
	.attach_mcast = soft_attach_mcast,
	.detach_mcast = soft_detach_mcast,
	.cm_join = soft_cm_join,
	.cm_leave = soft_cm_leave,
	.alloc_mw = soft_alloc_mw,
	.dealloc_mw = soft_dealloc_mw,
	.bind_mw = soft_bind_mw,
	.probe_raw_datagram_qp = soft_probe_raw_datagram_qp,
	.alloc_xrcd = soft_alloc_xrcd,
	.dealloc_xrcd = soft_dealloc_xrcd,
};
