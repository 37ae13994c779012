/*
 * The memory-placement operations of IBTA 1.5: ATOMIC WRITE and FLUSH.
 * libibverbs posts them only through the extended QP interface (ibv_qp_ex:
 * ibv_wr_atomic_write, ibv_wr_flush), for which a QP is created with
 * ibv_create_qp_ex and the operations in send_ops_flags; the other work
 * requests keep the classic ibv_post_send (ibv_wr_post(3) allows both on
 * one QP, outside each other's ibv_wr_start/ibv_wr_complete).
 *
 * Whether a device has them is in device_cap_flags_ex (the kernel's
 * IB_UVERBS_DEVICE_FLUSH_GLOBAL, _FLUSH_PERSISTENT and _ATOMIC_WRITE bits,
 * kernel 6.2 on), which rdma-core 44's headers do not name. The verbs are
 * compiled in only where the library has them (CMake's checks:
 * ROCE_AGENT_HAVE_IBV_ATOMIC_WRITE, ROCE_AGENT_HAVE_IBV_FLUSH); Debian 12's
 * rdma-core 44 has ibv_wr_atomic_write but no FLUSH at all.
 */
#include "ibverbs.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef ROCE_AGENT_IBVERBS_VERSION
#define ROCE_AGENT_IBVERBS_VERSION "(version unknown)"
#endif

/* The kernel's uAPI bits of device_cap_flags_ex (ib_user_verbs.h). */
#define DEVICE_FLUSH_GLOBAL (1ULL << 38)
#define DEVICE_FLUSH_PERSISTENT (1ULL << 39)
#define DEVICE_ATOMIC_WRITE (1ULL << 40)

const char *ib_flush_missing(void)
{
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	return NULL;
#else
	return "roce-agent was built against libibverbs " ROCE_AGENT_IBVERBS_VERSION
	       ", which has no FLUSH (ibv_wr_flush, IBV_ACCESS_FLUSH_*: rdma-core 45 and later)";
#endif
}

/* What the device's flags and this build offer, before any QP is tried. */
static uint64_t wanted_ops(const struct ib_backend *ib)
{
	uint64_t ops = 0;
#ifdef ROCE_AGENT_HAVE_IBV_ATOMIC_WRITE
	if (ib->cap_flags_ex & DEVICE_ATOMIC_WRITE)
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	if (ib->cap_flags_ex & (DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT))
		ops |= IBV_QP_EX_WITH_FLUSH;
#endif
	(void)ib;
	return ops;
}

/* Whether an RC QP with these operations is created (the provider checks
 * send_ops_flags against what it implements). */
static bool can_create(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq, uint64_t ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ib->ctx, &ia);
	if (!qp)
		return false;
	ibv_destroy_qp(qp);
	return true;
}

unsigned ib_probe_placement_caps(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_device_attr_ex ax;
	memset(&ax, 0, sizeof ax);
	ib->cap_flags_ex = ibv_query_device_ex(ib->ctx, NULL, &ax) == 0 ? ax.device_cap_flags_ex : 0;
	uint64_t ops = wanted_ops(ib);
	unsigned caps = 0;
#ifndef ROCE_AGENT_HAVE_IBV_FLUSH
	/* The device's responder executes FLUSH whatever this library can
	 * post: cases that send it one run, and posting one is refused with
	 * the library's reason (ib_flush_missing). */
	if (ib->cap_flags_ex & (DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT))
		caps |= BE_CAP_FLUSH;
#endif
	if (!ops || !pd || !cq)
		return caps;
#ifdef ROCE_AGENT_HAVE_IBV_ATOMIC_WRITE
	if ((ops & IBV_QP_EX_WITH_ATOMIC_WRITE) && can_create(ib, pd, cq, IBV_QP_EX_WITH_ATOMIC_WRITE))
		caps |= BE_CAP_ATOMIC_WRITE;
#endif
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	if ((ops & IBV_QP_EX_WITH_FLUSH) && can_create(ib, pd, cq, IBV_QP_EX_WITH_FLUSH))
		caps |= BE_CAP_FLUSH;
#endif
	(void)can_create;
	return caps;
}

uint64_t ib_placement_send_ops(const struct ib_backend *ib)
{
	uint64_t ops = 0;
#ifdef ROCE_AGENT_HAVE_IBV_ATOMIC_WRITE
	if (ib->caps & BE_CAP_ATOMIC_WRITE)
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;
#endif
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	if (ib->caps & BE_CAP_FLUSH)
		ops |= IBV_QP_EX_WITH_FLUSH;
#endif
	(void)ib;
	return ops;
}

/* What both operations need of the QP: RC or XRC_SEND, created with the
 * extended interface. */
static int check_qp(struct be_qp *qp, const char *op, unsigned cap, struct be_error *err)
{
	if (qp->type != BE_QPT_RC && (int)qp->type != IBV_QPT_XRC_SEND)
		return be_error_set(err, BE_BAD_REQUEST, "%s: on RC and XRC_SEND QPs", op);
	if (!(qp->be->caps & cap))
		return be_error_set(err, BE_UNSUPPORTED, "%s: %s does not report it (device_cap_flags_ex 0x%llx)",
				    op, qp->be->name, (unsigned long long)qp->be->cap_flags_ex);
	if (!qp->qpx)
		return be_error_set(err, BE_UNSUPPORTED, "%s: the QP was created without the extended interface",
				    op);
	return 0;
}

/* ibv_wr_start .. ibv_wr_complete around one request built by the caller. */
static void start(struct be_qp *qp, const struct be_send_wr *wr)
{
	ibv_wr_start(qp->qpx);
	qp->qpx->wr_id = wr->wr_id;
	qp->qpx->wr_flags = (wr->signaled ? IBV_SEND_SIGNALED : 0) | (wr->solicited ? IBV_SEND_SOLICITED : 0);
}

static int complete(struct be_qp *qp, const struct be_send_wr *wr, const char *verb, struct be_error *err)
{
	if ((int)qp->type == IBV_QPT_XRC_SEND)
		ibv_wr_set_xrc_srqn(qp->qpx, wr->remote_srqn);
	int e = ibv_wr_complete(qp->qpx);
	if (e == ENOMEM)
		return be_error_set(err, BE_RESOURCE_LIMIT, "%s: the send queue is full", verb);
	return e ? ib_verb_failed(err, e, verb) : 0;
}

int ib_post_atomic_write(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err)
{
	if (check_qp(qp, "ATOMIC_WRITE", BE_CAP_ATOMIC_WRITE, err))
		return -1;
#ifdef ROCE_AGENT_HAVE_IBV_ATOMIC_WRITE
	if (ib_check_post_state(qp, true, err))
		return -1;
	/* The 8 bytes in the order the wire carries them (the value as a
	 * big-endian integer), placed at remote_addr as they are. */
	uint64_t bytes = htobe64(wr->atomic_value);
	start(qp, wr);
	ibv_wr_atomic_write(qp->qpx, wr->rkey, wr->remote_addr, &bytes);
	return complete(qp, wr, "ibv_wr_atomic_write", err);
#else
	return be_error_set(err, BE_UNSUPPORTED, "ATOMIC_WRITE: libibverbs " ROCE_AGENT_IBVERBS_VERSION
			    " has no ibv_wr_atomic_write");
#endif
}

int ib_post_flush(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err)
{
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	if (check_qp(qp, "FLUSH", BE_CAP_FLUSH, err))
		return -1;
	if (!wr->flush_type || (wr->flush_type & ~(BE_FLUSH_GLOBAL | BE_FLUSH_PERSISTENT)))
		return be_error_set(err, BE_BAD_REQUEST, "FLUSH: placement 0x%x: GLOBAL, PERSISTENT or both",
				    wr->flush_type);
	if (wr->flush_level != BE_FLUSH_RANGE && wr->flush_level != BE_FLUSH_REGION)
		return be_error_set(err, BE_BAD_REQUEST, "FLUSH: level %d: RANGE or REGION",
				    (int)wr->flush_level);
	if (ib_check_post_state(qp, true, err))
		return -1;
	start(qp, wr);
	/* BE_FLUSH_* and the levels have libibverbs' values. */
	ibv_wr_flush(qp->qpx, wr->rkey, wr->remote_addr, wr->flush_length, (uint8_t)wr->flush_type,
		     wr->flush_level == BE_FLUSH_REGION ? IBV_FLUSH_MR : IBV_FLUSH_RANGE);
	return complete(qp, wr, "ibv_wr_flush", err);
#else
	(void)wr;
	(void)start;
	(void)complete;
	bool device_has = qp->be->cap_flags_ex & (DEVICE_FLUSH_GLOBAL | DEVICE_FLUSH_PERSISTENT);
	return be_error_set(err, BE_UNSUPPORTED, "FLUSH: %s%s%s", ib_flush_missing(),
			    device_has ? "; the device reports it: " : "", device_has ? qp->be->name : "");
#endif
}
