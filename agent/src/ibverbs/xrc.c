/*
 * XRC (IBA Annex A14): domains (ibv_open_xrcd, a private one: no file),
 * XRC SRQs in a domain (ibv_create_srq_ex; their number, which an XRCETH
 * names, from ibv_get_srq_num), initiator QPs (XRC_SEND: a send queue
 * only; each request names the target's SRQ, datapath.c) and target QPs
 * (XRC_RECV: no queues of their own, the domain's SRQs take the requests).
 *
 * Every verb is asked even when the device's flags deny XRC, so that the
 * tester records the device's own refusal; the message then says the
 * flags lack it too.
 */
#include "ibverbs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* BE_QPT_XRC_SEND/RECV have libibverbs' numbers (backend.h). */
bool ib_is_xrc_type(enum be_qp_type type)
{
	return (int)type == IBV_QPT_XRC_SEND || (int)type == IBV_QPT_XRC_RECV;
}

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1, /* a domain of this process alone */
		.oflags = O_CREAT,
	};
	return ibv_open_xrcd(ctx, &a);
}

unsigned ib_probe_xrc_caps(struct ib_backend *ib)
{
	if (!(ib->attr.device_cap_flags & IBV_DEVICE_XRC))
		return 0;
	struct ibv_xrcd *x = open_xrcd(ib->ctx);
	if (!x)
		return 0;
	ibv_close_xrcd(x);
	return BE_CAP_XRC;
}

/* "; rxe0 reports no XRC" when the flags lack it, for messages. */
static void no_xrc_note(const struct ib_backend *ib, char *out, size_t len)
{
	if (ib->caps & BE_CAP_XRC)
		out[0] = '\0';
	else
		snprintf(out, len, "; %s reports no XRC", ib->name);
}

int ib_alloc_xrcd(struct backend *be, struct be_xrcd **out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	struct ibv_xrcd *x = open_xrcd(ib->ctx);
	if (!x) {
		int e = errno;
		char note[96], what[96 + 96];
		no_xrc_note(ib, note, sizeof note);
		snprintf(what, sizeof what, "ibv_open_xrcd (fd -1, O_CREAT%s)", note);
		return ib_verb_failed(err, e, what);
	}
	struct be_xrcd *d = g_new0(struct be_xrcd, 1);
	d->be = ib;
	d->xrcd = x;
	*out = d;
	return 0;
}

int ib_dealloc_xrcd(struct be_xrcd *xrcd, struct be_error *err)
{
	int e = ibv_close_xrcd(xrcd->xrcd);
	if (e == EBUSY)
		return be_error_set(err, BE_INVALID_STATE,
				    "ibv_close_xrcd: %s (an XRC SRQ or QP still uses the domain)", strerror(e));
	if (e)
		return ib_verb_failed(err, e, "ibv_close_xrcd");
	g_free(xrcd);
	return 0;
}

int ib_create_xrc_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq *s,
		      struct be_error *err)
{
	if (!init->cq)
		return be_error_set(err, BE_BAD_REQUEST, "an XRC SRQ needs the CQ its receives complete on");
	struct ibv_srq_init_attr_ex ia = {
		.srq_context = s,
		.attr = { .max_wr = init->max_wr, .max_sge = init->max_sge },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd->pd,
		.xrcd = init->xrcd->xrcd,
		.cq = init->cq->cq,
	};
	s->srq = ibv_create_srq_ex(pd->be->ctx, &ia);
	if (!s->srq) {
		int e = errno;
		char note[96], what[96 + 96];
		no_xrc_note(pd->be, note, sizeof note);
		snprintf(what, sizeof what, "ibv_create_srq_ex (XRC, %u WRs, %u SGEs%s)", init->max_wr,
			 init->max_sge, note);
		return ib_verb_failed(err, e, what);
	}
	s->max_sge = ia.attr.max_sge;
	int e = ibv_get_srq_num(s->srq, &s->srqn);
	if (e) {
		ibv_destroy_srq(s->srq);
		return ib_verb_failed(err, e, "ibv_get_srq_num");
	}
	return 0;
}

int ib_create_xrc_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp *q,
		     struct be_error *err)
{
	bool initiator = (int)init->type == IBV_QPT_XRC_SEND;
	struct ibv_qp_init_attr_ex ia = {
		.qp_context = q, /* events.c finds the QP by it */
		.qp_type = initiator ? IBV_QPT_XRC_SEND : IBV_QPT_XRC_RECV,
	};
	if (initiator) {
		/* A send queue only; its requests may include the placement
		 * operations of the extended interface. */
		if (!init->send_cq)
			return be_error_set(err, BE_BAD_REQUEST, "an XRC_SEND QP needs a send CQ");
		ia.comp_mask = IBV_QP_INIT_ATTR_PD;
		ia.pd = pd->pd;
		ia.send_cq = init->send_cq->cq;
		ia.recv_cq = init->send_cq->cq;
		ia.cap.max_send_wr = init->max_send_wr;
		ia.cap.max_send_sge = init->max_send_sge;
		ia.sq_sig_all = init->sq_sig_all;
		uint64_t ops = ib_placement_send_ops(pd->be);
		if (ops) {
			ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			ia.send_ops_flags = ops;
		}
	} else {
		if (!init->xrcd)
			return be_error_set(err, BE_BAD_REQUEST, "an XRC_RECV QP needs its XRC domain (xrcd)");
		ia.comp_mask = IBV_QP_INIT_ATTR_XRCD;
		ia.xrcd = init->xrcd->xrcd;
	}
	q->qp = ibv_create_qp_ex(pd->be->ctx, &ia);
	if (!q->qp) {
		int e = errno;
		char note[96], what[96 + 96];
		no_xrc_note(pd->be, note, sizeof note);
		if (initiator)
			snprintf(what, sizeof what, "ibv_create_qp_ex (XRC_SEND, %u send WRs, %u send SGEs%s)",
				 init->max_send_wr, init->max_send_sge, note);
		else
			snprintf(what, sizeof what, "ibv_create_qp_ex (XRC_RECV%s)", note);
		return ib_verb_failed(err, e, what);
	}
	q->max_send_sge = initiator ? ia.cap.max_send_sge : 0;
	q->max_recv_sge = 0;
	if (initiator && (ia.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		q->qpx = ibv_qp_to_qp_ex(q->qp);
	return 0;
}
