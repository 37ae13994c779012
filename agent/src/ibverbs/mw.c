/*
 * Memory windows (IBA 10.6.7): allocated with ibv_alloc_mw, a type 1
 * window bound with the ibv_bind_mw verb, a type 2 window with the BIND_MW
 * work request (the consumer's new key in the rkey's low 8 bits), and a
 * type 2 window invalidated with LOCAL_INV (or by a peer's SEND with
 * Invalidate). Binds complete on the QP's send CQ (IBV_WC_BIND_MW).
 *
 * A provider names a window to the kernel by its ibv_mw's rkey: the type 1
 * verb moves that key itself; for a type 2 bind this file does once the
 * work request is posted. Should the bind then complete in error, the key
 * kept is the one asked for (as with rdma-core's type 1 bind); the QP is
 * in error by then, and the window's next user must rebind it.
 */
#include "ibverbs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The rights a window can grant (remote ones; ibv_bind_mw(3)). */
#define MW_RIGHTS (BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC)

static bool try_alloc(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, type);
	if (!mw)
		return false;
	ibv_dealloc_mw(mw);
	return true;
}

unsigned ib_probe_mw_caps(struct ib_backend *ib, struct ibv_pd *pd)
{
	unsigned caps = 0;
	unsigned flags = ib->attr.device_cap_flags;
	if (!pd)
		return 0;
	if (((flags & IBV_DEVICE_MEM_WINDOW) || ib->attr.max_mw > 0) && try_alloc(pd, IBV_MW_TYPE_1))
		caps |= BE_CAP_MW1;
	if ((flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) &&
	    try_alloc(pd, IBV_MW_TYPE_2))
		caps |= BE_CAP_MW2;
	return caps;
}

int ib_alloc_mw(struct be_pd *pd, enum be_mw_type type, struct be_mw **out, uint32_t *rkey,
		struct be_error *err)
{
	if (type != BE_MW_TYPE_1 && type != BE_MW_TYPE_2)
		return be_error_set(err, BE_BAD_REQUEST, "memory window type %d: 1 or 2", (int)type);
	/* Asked even when the device's flags deny it: its own answer is
	 * what the tester records. */
	struct ibv_mw *mw = ibv_alloc_mw(pd->pd, type == BE_MW_TYPE_1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	if (!mw) {
		int e = errno;
		unsigned cap = type == BE_MW_TYPE_1 ? BE_CAP_MW1 : BE_CAP_MW2;
		char what[128];
		snprintf(what, sizeof what, "ibv_alloc_mw (type %d%s%s%s)", (int)type,
			 (pd->be->caps & cap) ? "" : "; ", (pd->be->caps & cap) ? "" : pd->be->name,
			 (pd->be->caps & cap) ? "" : " reports no such windows");
		return ib_verb_failed(err, e, what);
	}
	struct be_mw *w = g_new0(struct be_mw, 1);
	w->be = pd->be;
	w->mw = mw;
	w->type = type;
	*rkey = mw->rkey;
	*out = w;
	return 0;
}

int ib_dealloc_mw(struct be_mw *mw, struct be_error *err)
{
	int e = ibv_dealloc_mw(mw->mw);
	if (e)
		return ib_verb_failed(err, e, "ibv_dealloc_mw");
	g_free(mw);
	return 0;
}

/* The binding as libibverbs takes it: the MR's virtual addresses (also
 * for a zero-based window: the address is where the window starts in the
 * MR; ibv_bind_mw(3)). The range is passed as asked, also outside the MR:
 * refusing it is the device's part (C10-75). */
static void bind_info(const struct be_mw_bind *b, struct ibv_mw_bind_info *out)
{
	memset(out, 0, sizeof *out);
	out->mr = b->mr ? b->mr->mr : NULL;
	out->addr = b->mr ? (uint64_t)(uintptr_t)b->mr->buf + b->offset : 0;
	out->length = b->length;
	out->mw_access_flags = (b->access & MW_RIGHTS) | (b->zero_based ? IBV_ACCESS_ZERO_BASED : 0);
}

static int check_bind(struct be_qp *qp, const struct be_mw_bind *b, const char *verb,
		      struct be_error *err)
{
	if (b->access & ~(unsigned)MW_RIGHTS)
		return be_error_set(err, BE_BAD_REQUEST,
				    "%s: access 0x%x: a window grants only REMOTE_WRITE, REMOTE_READ "
				    "and REMOTE_ATOMIC", verb, b->access);
	/* libibverbs takes no MR when unbinding, but rxe's provider reads
	 * the MR's lkey for every bind: a missing one would crash the agent. */
	if (!b->mr)
		return be_error_set(err, BE_BAD_REQUEST, "%s: the MR is needed, also to unbind (length 0)",
				    verb);
	if (qp->type != BE_QPT_RC && qp->type != BE_QPT_UC && (int)qp->type != IBV_QPT_XRC_SEND)
		return be_error_set(err, BE_BAD_REQUEST, "%s: windows are bound on RC, UC and XRC_SEND QPs",
				    verb);
	return 0;
}

int ib_bind_mw(struct be_qp *qp, struct be_mw *mw, const struct be_mw_bind *bind, uint64_t wr_id,
	       bool signaled, uint32_t *rkey, struct be_error *err)
{
	if (mw->type != BE_MW_TYPE_1)
		return be_error_set(err, BE_BAD_REQUEST,
				    "bind_mw binds type 1 windows; a type 2 window is bound with the "
				    "BIND_MW work request (post_send)");
	if (check_bind(qp, bind, "bind_mw", err) || ib_check_post_state(qp, true, err))
		return -1;
	struct ibv_mw_bind b = { .wr_id = wr_id, .send_flags = signaled ? IBV_SEND_SIGNALED : 0 };
	bind_info(bind, &b.bind_info);
	int e = ibv_bind_mw(qp->qp, mw->mw, &b);
	if (e) {
		char what[128];
		snprintf(what, sizeof what, "ibv_bind_mw (rkey 0x%x, offset %" PRIu64 ", length %" PRIu64
			 ", access 0x%x%s)", mw->mw->rkey, bind->offset, bind->length, bind->access,
			 bind->zero_based ? ", zero-based" : "");
		return ib_verb_failed(err, e, what);
	}
	*rkey = mw->mw->rkey;
	return 0;
}

int ib_fill_mw_wr(struct be_qp *qp, const struct be_send_wr *wr, struct ibv_send_wr *swr,
		  struct be_error *err)
{
	if (wr->opcode == BE_WR_LOCAL_INV) {
		if (!(qp->be->caps & (BE_CAP_MW2 | BE_CAP_SEND_WITH_INV)))
			return be_error_set(err, BE_UNSUPPORTED,
					    "%s has neither type 2 windows nor memory management "
					    "extensions: nothing to invalidate locally", qp->be->name);
		if (qp->type != BE_QPT_RC && qp->type != BE_QPT_UC && (int)qp->type != IBV_QPT_XRC_SEND)
			return be_error_set(err, BE_BAD_REQUEST, "LOCAL_INV: on RC, UC and XRC_SEND QPs");
		swr->invalidate_rkey = wr->invalidate_rkey;
		return 0;
	}
	/* BIND_MW */
	if (!wr->mw)
		return be_error_set(err, BE_BAD_REQUEST, "BIND_MW needs the window (mw)");
	if (wr->mw->type != BE_MW_TYPE_2)
		return be_error_set(err, BE_BAD_REQUEST,
				    "BIND_MW binds type 2 windows; a type 1 window is bound with the "
				    "bind_mw verb");
	if (check_bind(qp, &wr->bind, "BIND_MW", err))
		return -1;
	swr->bind_mw.mw = wr->mw->mw;
	swr->bind_mw.rkey = wr->rkey;
	bind_info(&wr->bind, &swr->bind_mw.bind_info);
	return 0;
}

void ib_mw_posted(const struct be_send_wr *wr)
{
	/* The device takes only the low 8 bits (the key); the rest is the
	 * window's index. */
	if (wr->opcode == BE_WR_BIND_MW)
		wr->mw->mw->rkey = (wr->mw->mw->rkey & ~0xffu) | (wr->rkey & 0xffu);
}
