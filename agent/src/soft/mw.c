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
 * Remote invalidation follows rxe (rxe_resp.c invalidate_rkey,
 * rxe_mw.c rxe_invalidate_mw, rxe_mr.c rxe_invalidate_mr): only a valid
 * type 2 window whose full rkey matches is invalidated; a type 1 window,
 * a registered MR (only fast-registration MRs may be, and this device has
 * none) or an unknown or invalid key is refused.
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

/* The checks of a bind (IBA 10.6.7.2; rxe_mw.c rxe_check_bind_mw):
 * BE_WC_SUCCESS or MW_BIND_ERR. */
static enum be_wc_status bind_check(const struct be_qp *qp, const struct be_mw *mw, const struct be_send_wr *wr)
{
	const struct be_mw_bind *b = &wr->bind;
	if (mw->pd != qp->pd || (wr->rkey >> 8) != (mw->rkey >> 8))
		return BE_WC_MW_BIND_ERR;
	/* A bound type 2 window must be invalidated before it is bound again. */
	if (mw->type == BE_MW_TYPE_2 && mw->state == SOFT_MW_VALID && !SOFT_FAULT_ON(qp->dev, MW_REBIND_ALLOWED))
		return BE_WC_MW_BIND_ERR;
	if (b->length == 0)
		return mw->type == BE_MW_TYPE_1 ? BE_WC_SUCCESS : BE_WC_MW_BIND_ERR;
	const struct be_mr *mr = b->mr;
	if (!mr || !mr->valid || mr->pd != qp->pd || !(mr->access & BE_ACCESS_MW_BIND))
		return BE_WC_MW_BIND_ERR;
	if (b->offset > mr->length || b->length > mr->length - b->offset)
		return BE_WC_MW_BIND_ERR;
	/* Remote write or atomic rights need the MR's local write (C10-75). */
	if ((b->access & (BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_ATOMIC)) && !(mr->access & BE_ACCESS_LOCAL_WRITE))
		return BE_WC_MW_BIND_ERR;
	return BE_WC_SUCCESS;
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
	enum be_wc_status st = bind_check(qp, mw, wr);
	if (st != BE_WC_SUCCESS) {
		dev->cnt.mw_bind_errors++;
		return st;
	}
	dev->cnt.mw_binds++;
	mw->rkey = wr->rkey;
	if (wr->bind.length == 0) { /* type 1: unbound */
		mw_leave(mw, SOFT_MW_UNBOUND);
		return BE_WC_SUCCESS;
	}
	mw_leave(mw, SOFT_MW_FREE);
	mw_set_mr(mw, wr->bind.mr);
	mw->addr = wr->bind.mr->addr + wr->bind.offset;
	mw->length = wr->bind.length;
	mw->access = wr->bind.access;
	mw->qp = mw->type == BE_MW_TYPE_2 ? qp : NULL;
	mw->state = SOFT_MW_VALID;
	mw->mr->windows++;
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

enum soft_inv soft_mw_remote_invalidate(struct be_qp *qp, uint32_t rkey)
{
	struct soft_dev *dev = qp->dev;
	struct be_mw *mw = mw_of(dev, rkey);
	if (mw && mw->rkey == rkey && mw->state == SOFT_MW_VALID && mw->pd == soft_rkey_pd(qp)) {
		if (mw->type == BE_MW_TYPE_2 || SOFT_FAULT_ON(dev, INV_TYPE1_ACCEPTED)) {
			if (SOFT_FAULT_ON(dev, SEND_INV_WRONG_KEY))
				return SOFT_INV_SKIPPED;
			mw_leave(mw, SOFT_MW_INVALIDATED);
			dev->cnt.rkey_invalidations++;
			return SOFT_INV_DONE;
		}
	}
	dev->cnt.rkey_inv_refused++;
	return SOFT_INV_REFUSED;
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
	if (!mw->mr || mw->pd != soft_rkey_pd(qp))
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
	if (mw->rkey != rkey)
		return false;
	return mw->type == BE_MW_TYPE_1 || mw->qp == qp || SOFT_FAULT_ON(dev, MW_TYPE2_ANY_QP);
}

bool soft_rkey_resolve(struct be_qp *qp, uint32_t rkey, struct soft_rkey *out)
{
	struct soft_dev *dev = qp->dev;
	struct be_mw *mw = mw_of(dev, rkey);
	if (!mw) {
		struct be_mr *mr = soft_mr_by_rkey(dev, soft_rkey_pd(qp), rkey);
		if (!mr)
			return false;
		*out = (struct soft_rkey){ mr, mr->addr, mr->length, mr->access };
		return true;
	}
	if (!mw_reaches(qp, mw, rkey) || !mw->mr->valid)
		return false;
	out->mr = mw->mr;
	if (SOFT_FAULT_ON(dev, MW_REGION_BOUNDS)) {
		out->addr = mw->mr->addr;
		out->length = mw->mr->length;
	} else {
		out->addr = mw->addr;
		out->length = mw->length;
	}
	/* The window's remote rights; FLUSH rights stay the region's. */
	out->access = mw->access | (mw->mr->access & (BE_ACCESS_FLUSH_GLOBAL | BE_ACCESS_FLUSH_PERSISTENT));
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
