/*
 * Memory windows (IBA 10.6.7, notes §7.3): windows of type 1 (bound with
 * the bind_mw verb) and type 2 (the BIND_MW work request; then reachable
 * only through the QP that bound it), both binds executed in the QP's
 * send-queue order; LOCAL_INV; remote invalidation by SEND with
 * Invalidate; and the resolution of an rkey to what it reaches: an MR's
 * whole range and rights, or a window's own.
 *
 * An rkey is a window's when its index (rkey >> 8) is one of the device's
 * windows: indices start at SOFT_MW_INDEX_BASE, MR keys stay below. The
 * low 8 bits are the consumer's key, which each bind changes.
 *
 * Remote invalidation: only a valid type 2 window whose full rkey
 * matches, arriving on the QP the window is bound to, is invalidated; a
 * type 1 window (o10-37.2.26), a registered MR (rxe_mr.c
 * rxe_invalidate_mr: only fast-registration MRs may be, and this device
 * has none), a type 2 window bound to another QP (rxe does not look,
 * rxe_invalidate_mw; docs/services.md) or an unknown or invalid key is
 * refused.
 *
 * The fault profiles of windows (fault.def) each relax one of these
 * rules, here and nowhere else.
 */
#include "soft.h"

#include <string.h>

static struct be_mw *mw_of(const struct soft_dev *dev, uint32_t rkey)
{
	return g_hash_table_lookup(dev->mws, GUINT_TO_POINTER(rkey >> 8));
}

int soft_alloc_mw(struct be_pd *pd, enum be_mw_type type, struct be_mw **out, uint32_t *rkey,
		  struct be_error *err)
{
	struct soft_dev *dev = pd->dev;
	if (type != BE_MW_TYPE_1 && type != BE_MW_TYPE_2)
		return be_error_set(err, BE_BAD_REQUEST, "window type %d: expected 1 or 2", type);
	if (g_hash_table_size(dev->mws) >= 0x10000)
		return be_error_set(err, BE_RESOURCE_LIMIT, "the device has %u windows already", 0x10000u);
	do {
		dev->next_mw_index = dev->next_mw_index < SOFT_MW_INDEX_BASE || dev->next_mw_index >= 0xFFFFFF
					     ? SOFT_MW_INDEX_BASE
					     : dev->next_mw_index + 1;
	} while (g_hash_table_contains(dev->mws, GUINT_TO_POINTER(dev->next_mw_index)));
	struct be_mw *mw = g_new0(struct be_mw, 1);
	mw->dev = dev;
	mw->pd = pd;
	mw->type = type;
	/* The first key varies with the index, as a real device's does. */
	mw->rkey = dev->next_mw_index << 8 | ((dev->next_mw_index * 0x3Bu) & 0xFF);
	mw->state = SOFT_MW_FREE;
	g_hash_table_insert(dev->mws, GUINT_TO_POINTER(dev->next_mw_index), mw);
	pd->refs++;
	dev->cnt.objects_mw++;
	*out = mw;
	*rkey = mw->rkey;
	return 0;
}

/* The window no longer reaches its MR validly (its binding stays). */
static void mw_leave(struct be_mw *mw, enum soft_mw_state state)
{
	if (mw->state == SOFT_MW_VALID && mw->mr)
		mw->mr->windows--;
	mw->state = state;
}

static void mw_set_mr(struct be_mw *mw, struct be_mr *mr)
{
	if (mr)
		mr->refs++;
	if (mw->mr)
		soft_mr_unref(mw->mr);
	mw->mr = mr;
}

int soft_dealloc_mw(struct be_mw *mw, struct be_error *err)
{
	(void)err;
	struct soft_dev *dev = mw->dev;
	mw_leave(mw, SOFT_MW_FREE);
	mw_set_mr(mw, NULL);
	g_hash_table_remove(dev->mws, GUINT_TO_POINTER(mw->rkey >> 8));
	mw->pd->refs--;
	dev->cnt.objects_mw--;
	g_free(mw);
	return 0;
}

void soft_mw_qp_gone(struct be_qp *qp)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, qp->dev->mws);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_mw *mw = v;
		if (mw->qp == qp) {
			mw_leave(mw, mw->state == SOFT_MW_VALID ? SOFT_MW_INVALIDATED : mw->state);
			mw->qp = NULL;
		}
	}
}

int soft_mw_check_dereg(const struct be_mr *mr, struct be_error *err)
{
	if (mr->windows)
		return be_error_set(err, BE_INVALID_STATE,
				    "%u memory windows are bound to the MR; a device refuses to deregister it (EBUSY)",
				    mr->windows);
	return 0;
}

int soft_bind_mw(struct be_qp *qp, struct be_mw *mw, const struct be_mw_bind *bind, uint64_t wr_id,
		 bool signaled, uint32_t *rkey, struct be_error *err)
{
	if (mw->type != BE_MW_TYPE_1)
		return be_error_set(err, BE_BAD_REQUEST, "bind_mw binds type 1 windows; a type 2 window takes BIND_MW");
	/* As libibverbs does: the next key, and a BIND_MW work request on the
	 * QP, so that the bind takes its turn in the send queue. */
	uint32_t next = (mw->rkey & ~0xFFu) | ((mw->rkey + 1) & 0xFF);
	struct be_send_wr wr = { .wr_id = wr_id, .opcode = BE_WR_BIND_MW, .signaled = signaled, .mw = mw,
				 .bind = *bind, .rkey = next };
	if (soft_ops.post_send(qp, &wr, err))
		return -1;
	*rkey = next;
	return 0;
}

bool soft_mw_local_wr(enum be_wr_opcode op)
{
	return op == BE_WR_BIND_MW || op == BE_WR_LOCAL_INV;
}

/* A bind's refusal: the status it completes with, and whether it was
 * the rebind of a bound type 2 window. */
struct bind_verdict {
	enum be_wc_status status;
	bool rebind;
};

/* The region half of a bind's checks (rxe_mw.c rxe_check_bind_mw, the
 * compliance statements it quotes), *len possibly cut at the region's end
 * (mw-bind-past-region). */
static bool bind_region_ok(const struct be_qp *qp, const struct be_mw *mw, const struct be_mw_bind *b, uint64_t *len)
{
	struct soft_dev *dev = qp->dev;
	const struct be_mr *mr = b->mr;
	if (!mr || !mr->valid)
		return false;
	/* C10-72: the QP, the window and the region of one PD. */
	if (mr->pd != mw->pd && !SOFT_FAULT_ON(dev, MW_BIND_FOREIGN_PD))
		return false;
	/* C10-73: the region was registered for windows. */
	if (!(mr->access & BE_ACCESS_MW_BIND) && !SOFT_FAULT_ON(dev, MW_BIND_WITHOUT_MW_RIGHT))
		return false;
	/* o10-36.2.2: a type 1 window is never zero-based. */
	if (b->zero_based && mw->type == BE_MW_TYPE_1)
		return false;
	/* C10-75: inside the region. */
	if (b->offset > mr->length)
		return false;
	if (b->length > mr->length - b->offset) {
		if (!SOFT_FAULT_ON(dev, MW_BIND_PAST_REGION))
			return false;
		*len = mr->length - b->offset;
	}
	/* C10-74: remote write or atomic rights need the region's local
	 * write; the profile looks at the window's previous rights instead,
	 * as rxe did before "RDMA/rxe: Fix access checks in rxe_check_bind_mw". */
	unsigned asked = SOFT_FAULT_ON(dev, MW_BIND_WITHOUT_LOCAL_WRITE) ? mw->access : b->access;
	if ((asked & (BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_ATOMIC)) && !(mr->access & BE_ACCESS_LOCAL_WRITE))
		return false;
	return true;
}

/* The checks of a bind (IBA 10.6.7.2; rxe_mw.c rxe_check_bind_mw). */
static struct bind_verdict bind_check(const struct be_qp *qp, const struct be_mw *mw, const struct be_send_wr *wr,
				      uint64_t *len)
{
	const struct be_mw_bind *b = &wr->bind;
	struct bind_verdict v = { BE_WC_MW_BIND_ERR, false };
	if (mw->pd != qp->pd || (wr->rkey >> 8) != (mw->rkey >> 8))
		return v;
	/* o10-37.2.30: a type 2 window is bound only when free. Refused,
	 * the bind completes with its own error, MW_BIND_ERR (a profile:
	 * as if flushed). */
	if (mw->type == BE_MW_TYPE_2 && mw->state == SOFT_MW_VALID && !SOFT_FAULT_ON(qp->dev, MW_REBIND_ALLOWED)) {
		v.rebind = true;
		if (SOFT_FAULT_ON(qp->dev, MW_REBIND_FLUSHED))
			v.status = BE_WC_WR_FLUSH_ERR;
		return v;
	}
	*len = b->length;
	if (b->length == 0) {
		/* o10-37.2.40: a type 2 window is not unbound by a bind. */
		if (mw->type == BE_MW_TYPE_1)
			v.status = BE_WC_SUCCESS;
		return v;
	}
	if (bind_region_ok(qp, mw, b, len))
		v.status = BE_WC_SUCCESS;
	return v;
}

/* The window takes the binding asked for: its MR and range, rights, key
 * and (type 2) QP. */
static void mw_take(struct be_mw *mw, struct be_qp *qp, const struct be_send_wr *wr, uint64_t len)
{
	mw->rkey = wr->rkey;
	mw_leave(mw, SOFT_MW_FREE);
	mw_set_mr(mw, wr->bind.mr);
	mw->addr = wr->bind.mr->addr + wr->bind.offset;
	mw->length = len;
	mw->access = wr->bind.access;
	mw->zero_based = wr->bind.zero_based;
	mw->qp = mw->type == BE_MW_TYPE_2 ? qp : NULL;
	mw->state = SOFT_MW_VALID;
	mw->mr->windows++;
}

static enum be_wc_status exec_bind(struct be_qp *qp, const struct be_send_wr *wr)
{
	struct be_mw *mw = wr->mw;
	struct soft_dev *dev = qp->dev;
	/* The window may have gone since the bind was posted. */
	if (!mw || mw_of(dev, wr->rkey) != mw) {
		dev->cnt.mw_bind_errors++;
		return BE_WC_MW_BIND_ERR;
	}
	uint64_t len = 0;
	struct bind_verdict v = bind_check(qp, mw, wr, &len);
	if (v.status != BE_WC_SUCCESS) {
		dev->cnt.mw_bind_errors++;
		/* A profile: the refused rebind still takes the key and range
		 * it asked for (on the window's own QP). */
		if (v.rebind && SOFT_FAULT_ON(dev, MW_REBIND_CLOBBERS) && wr->bind.mr && wr->bind.length &&
		    wr->bind.offset <= wr->bind.mr->length && wr->bind.length <= wr->bind.mr->length - wr->bind.offset)
			mw_take(mw, mw->qp, wr, wr->bind.length);
		return v.status;
	}
	dev->cnt.mw_binds++;
	if (wr->bind.length == 0) { /* type 1: unbound */
		mw->rkey = wr->rkey;
		mw_leave(mw, SOFT_MW_UNBOUND);
		return BE_WC_SUCCESS;
	}
	mw_take(mw, qp, wr, len);
	return BE_WC_SUCCESS;
}

/* LOCAL_INV of a type 2 window (rxe: a failure is LOC_QP_OP_ERR). */
static enum be_wc_status exec_local_inv(struct be_qp *qp, uint32_t rkey)
{
	struct be_mw *mw = mw_of(qp->dev, rkey);
	if (!mw || mw->rkey != rkey || mw->type != BE_MW_TYPE_2 || mw->state != SOFT_MW_VALID || mw->pd != qp->pd)
		return BE_WC_LOC_QP_OP_ERR;
	mw_leave(mw, SOFT_MW_INVALIDATED);
	qp->dev->cnt.rkey_invalidations++;
	return BE_WC_SUCCESS;
}

enum be_wc_status soft_mw_exec(struct be_qp *qp, const struct be_send_wr *wr)
{
	return wr->opcode == BE_WR_BIND_MW ? exec_bind(qp, wr) : exec_local_inv(qp, wr->invalidate_rkey);
}

/* A registered MR named by a SEND with Invalidate: refused (a profile
 * takes it). */
static enum soft_inv invalidate_mr(struct be_qp *qp, uint32_t rkey)
{
	struct soft_dev *dev = qp->dev;
	struct be_mr *mr = soft_mr_by_rkey(dev, soft_rkey_pd(qp), rkey);
	if (mr && SOFT_FAULT_ON(dev, INV_MR_ACCEPTED)) {
		mr->rkey_valid = false;
		dev->cnt.rkey_invalidations++;
		return SOFT_INV_DONE;
	}
	dev->cnt.rkey_inv_refused++;
	return SOFT_INV_REFUSED;
}

enum soft_inv soft_mw_remote_invalidate(struct be_qp *qp, uint32_t rkey)
{
	struct soft_dev *dev = qp->dev;
	struct be_mw *mw = mw_of(dev, rkey);
	if (!mw)
		return invalidate_mr(qp, rkey);
	bool ours = mw->rkey == rkey && mw->state == SOFT_MW_VALID && mw->pd == soft_rkey_pd(qp);
	bool may = mw->type == BE_MW_TYPE_2 ? mw->qp == qp || SOFT_FAULT_ON(dev, SEND_INV_ANY_QP)
					    : SOFT_FAULT_ON(dev, INV_TYPE1_ACCEPTED);
	if (!ours || !may) {
		dev->cnt.rkey_inv_refused++;
		return SOFT_INV_REFUSED;
	}
	/* A profile reports the invalidation without making it. */
	if (!SOFT_FAULT_ON(dev, SEND_INV_WRONG_KEY)) {
		mw_leave(mw, SOFT_MW_INVALIDATED);
		dev->cnt.rkey_invalidations++;
	}
	return SOFT_INV_DONE;
}

void soft_mw_inv_completion(const struct soft_dev *dev, struct be_wc *wc, uint32_t rkey)
{
	wc->invalidate_rkey = SOFT_FAULT_ON(dev, SEND_INV_WC_NO_RKEY) ? 0 : rkey;
	if (SOFT_FAULT_ON(dev, SEND_INV_WC_NO_FLAG))
		wc->wc_flags_raw |= BE_VERBS_WC_IP_CSUM_OK; /* the kernel's IB_WC_WITH_INVALIDATE */
	else
		wc->wc_flags |= BE_WC_WITH_INV;
}

struct be_pd *soft_rkey_pd(const struct be_qp *qp)
{
	return qp->type == BE_QPT_XRC_RECV && qp->srq ? qp->srq->pd : qp->pd;
}

/* Whether a window's key reaches its binding now: the conforming rules,
 * and the fault profiles that each relax one of them. */
static bool mw_reaches(const struct be_qp *qp, const struct be_mw *mw, uint32_t rkey)
{
	struct soft_dev *dev = qp->dev;
	if (!mw->mr)
		return false;
	/* C10-76.2.1: a window is reached from QPs of its own PD. */
	if (mw->pd != soft_rkey_pd(qp) && !(mw->type == BE_MW_TYPE_1 && SOFT_FAULT_ON(dev, MW_TYPE1_ANY_PD)))
		return false;
	switch (mw->state) {
	case SOFT_MW_VALID:
		break;
	case SOFT_MW_UNBOUND: /* any key of the window: it was bound once */
		return SOFT_FAULT_ON(dev, MW_UNBOUND_ACCEPTED);
	case SOFT_MW_INVALIDATED:
		if (!SOFT_FAULT_ON(dev, MW_INVALIDATED_ACCEPTED))
			return false;
		break;
	default:
		return false;
	}
	/* The whole rkey; a profile compares the window's index only, so that
	 * a key from before the last bind still works. */
	if (mw->rkey != rkey && !(mw->state == SOFT_MW_VALID && SOFT_FAULT_ON(dev, MW_STALE_KEY_ACCEPTED)))
		return false;
	/* o10-37.2.43: a type 2 window through the QP it is bound to. */
	return mw->type == BE_MW_TYPE_1 || mw->qp == qp || SOFT_FAULT_ON(dev, MW_TYPE2_ANY_QP);
}

bool soft_rkey_resolve(struct be_qp *qp, uint32_t rkey, struct soft_rkey *out)
{
	struct soft_dev *dev = qp->dev;
	struct be_mw *mw = mw_of(dev, rkey);
	if (!mw) {
		if (SOFT_FAULT_ON(dev, BUG_RKEY_IN_MW_RANGE))
			return false; /* a region's key taken for a window's, and no window has it */
		struct be_mr *mr = soft_mr_by_rkey(dev, soft_rkey_pd(qp), rkey);
		if (!mr)
			return false;
		*out = (struct soft_rkey){ mr, mr->addr, mr->length, mr->access, 0 };
		return true;
	}
	if (!mw_reaches(qp, mw, rkey) || !mw->mr->valid)
		return false;
	out->mr = mw->mr;
	out->shift = 0;
	if (SOFT_FAULT_ON(dev, MW_REGION_BOUNDS)) {
		out->addr = mw->mr->addr;
		out->length = mw->mr->length;
	} else if (mw->zero_based && !SOFT_FAULT_ON(dev, MW_ZERO_BASED_AS_VA)) {
		/* ibv_bind_mw(3): the request's address is an offset into the
		 * window. */
		out->addr = 0;
		out->length = mw->length;
		out->shift = mw->addr;
	} else {
		out->addr = mw->addr;
		out->length = mw->length;
	}
	/* The window's remote rights (a profile: the region's); FLUSH rights
	 * stay the region's. */
	const unsigned remote = BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC;
	unsigned rights = SOFT_FAULT_ON(dev, MW_REGION_RIGHTS) ? mw->mr->access & remote : mw->access;
	out->access = rights | (mw->mr->access & (BE_ACCESS_FLUSH_GLOBAL | BE_ACCESS_FLUSH_PERSISTENT));
	return true;
}

void soft_mw_close(struct soft_dev *dev)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->mws);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		struct be_mw *mw = v;
		mw_set_mr(mw, NULL);
		g_free(mw);
	}
	g_hash_table_destroy(dev->mws);
}
