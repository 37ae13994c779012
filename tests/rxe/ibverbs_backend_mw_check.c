/*
 * The second part of the rxe backend check: memory windows (type 1 bound
 * with the verb, type 2 with the BIND_MW work request, LOCAL_INV, SEND with
 * Invalidate of a window, a refused rebind), ATOMIC WRITE through the
 * extended QP interface, FLUSH (not in Debian 12's libibverbs) and XRC, on
 * RC QPs connected to each other on the device itself. What rxe does
 * differs by kernel; each assertion says which kernel does what.
 */
#include "ibverbs_backend_check.h"

#include <endian.h>
#include <inttypes.h>
#include <string.h>

#define MW_MR_ACCESS                                                                     \
	(BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ | \
	 BE_ACCESS_MW_BIND)

/* Two RC endpoints connected to each other over the IPv4 GID. */
static void rc_pair(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
		    struct ep *a, struct ep *b)
{
	make_ep(c, pd, BE_QPT_RC, a);
	make_ep(c, pd, BE_QPT_RC, b);
	connect_qp(c, BE_QPT_RC, a, b->qpn, gid4, idx4, 300, 400);
	connect_qp(c, BE_QPT_RC, b, a->qpn, gid4, idx4, 400, 300);
}

/* An RDMA WRITE of 8 bytes from a's MR to addr through rkey; its
 * completion's status (-1: none came). */
static int write_through(struct ctx *c, struct ep *a, uint64_t addr, uint32_t rkey)
{
	struct be_error err;
	struct be_wc wc;
	struct be_send_wr x = { .remote_addr = addr, .rkey = rkey };
	if (post_send(c, a, BE_WR_RDMA_WRITE, 0, 8, &x, &err) != 0) {
		printf("post_send RDMA_WRITE: %s\n", err.message);
		return -1;
	}
	return wait_wc(c, a->cq, &wc) ? (int)wc.status : -1;
}

/* Type 2: BIND_MW of [off, off + len) of mr on qp with key's low 8 bits. */
static int bind2(struct ctx *c, struct ep *on, struct be_mw *mw, struct be_mr *mr, uint64_t off,
		 uint64_t len, uint32_t rkey, struct be_error *err)
{
	struct be_send_wr x = { .mw = mw, .rkey = rkey,
				.bind = { .mr = mr, .offset = off, .length = len,
					  .access = BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ } };
	return post_send(c, on, BE_WR_BIND_MW, 0, 0, &x, err);
}

void mw_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
	       const struct be_device_attr *da)
{
	struct be_error err;
	struct be_wc wc;
	/* rxe has had both types since 5.14 (rxe_mw.c): MW1 from the
	 * MEM_WINDOW flag, MW2 from MEM_WINDOW_TYPE_2B. */
	CHECK(c, (da->caps & (BE_CAP_MW1 | BE_CAP_MW2)) == (BE_CAP_MW1 | BE_CAP_MW2),
	      "query_device: MW1 MW2 (caps 0x%x)", da->caps);
	struct be_mw *mw;
	uint32_t rkey;
	CHECK(c, c->ops->alloc_mw(pd, (enum be_mw_type)3, &mw, &rkey, &err) != 0 &&
			 err.code == BE_BAD_REQUEST,
	      "alloc_mw type 3 refused: %s", err.message);

	struct ep a, b;
	rc_pair(c, pd, gid4, idx4, &a, &b);
	struct be_mr *mr;
	struct be_mr_info mi;
	MUST(c, c->ops->reg_mr(pd, 8192, MW_MR_ACCESS, 0, &mr, &err), &err);
	c->ops->mr_info(mr, &mi);

	/* Type 1: the verb; the window grants [1024, 1536) of mr. */
	struct be_mw *mw1;
	uint32_t r1 = 0, r1b = 0;
	MUST(c, c->ops->alloc_mw(pd, BE_MW_TYPE_1, &mw1, &r1, &err), &err);
	CHECK(c, r1 != 0, "alloc_mw type 1: rkey 0x%08x", r1);
	struct be_mw_bind bind = { .mr = mr, .offset = 1024, .length = 512,
				   .access = BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ };
	int r = c->ops->bind_mw(b.qp, mw1, &bind, 0x51, true, &r1b, &err);
	CHECK(c, r == 0, "bind_mw type 1%s%s", r ? ": " : "", r ? err.message : "");
	/* rxe's provider takes the next key: the low 8 bits plus one. */
	CHECK(c, r1b >> 8 == r1 >> 8 && (r1b & 0xff) == ((r1 + 1) & 0xff),
	      "bind_mw type 1: new rkey 0x%08x (was 0x%08x)", r1b, r1);
	CHECK(c, wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_BIND_MW &&
			 wc.wr_id == 0x51,
	      "bind_mw type 1: completion on the send CQ (status %d opcode %d)", wc.status, wc.opcode);
	memcpy(a.mi.buf, "window-1", 8);
	CHECK(c, write_through(c, &a, mi.addr + 1024, r1b) == BE_WC_SUCCESS &&
			 !memcmp(mi.buf + 1024, "window-1", 8),
	      "type 1 window: a WRITE through its rkey lands in the MR");
	CHECK(c, c->ops->bind_mw(b.qp, mw1, &(struct be_mw_bind){ .mr = mr, .length = 8,
					  .access = BE_ACCESS_LOCAL_WRITE }, 1, true, &rkey, &err) != 0 &&
			 err.code == BE_BAD_REQUEST,
	      "bind_mw with LOCAL_WRITE refused: %s", err.message);

	/* Type 2: the BIND_MW work request, the consumer's key 0x5a. */
	struct be_mw *mw2;
	uint32_t r2 = 0;
	MUST(c, c->ops->alloc_mw(pd, BE_MW_TYPE_2, &mw2, &r2, &err), &err);
	CHECK(c, r2 != 0, "alloc_mw type 2: rkey 0x%08x", r2);
	CHECK(c, c->ops->bind_mw(b.qp, mw2, &bind, 1, true, &rkey, &err) != 0 &&
			 err.code == BE_BAD_REQUEST,
	      "bind_mw of a type 2 window refused: %s", err.message);
	struct be_send_wr x1 = { .mw = mw1, .rkey = r1b + 1, .bind = bind };
	CHECK(c, post_send(c, &b, BE_WR_BIND_MW, 0, 0, &x1, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "BIND_MW of a type 1 window refused: %s", err.message);
	uint32_t r2b = (r2 & ~0xffu) | 0x5a;
	r = bind2(c, &b, mw2, mr, 2048, 256, r2b, &err);
	CHECK(c, r == 0, "BIND_MW type 2 (key 0x5a)%s%s", r ? ": " : "", r ? err.message : "");
	CHECK(c, wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_BIND_MW,
	      "BIND_MW: completion (status %d opcode %d)", wc.status, wc.opcode);
	memcpy(a.mi.buf, "window-2", 8);
	CHECK(c, write_through(c, &a, mi.addr + 2048, r2b) == BE_WC_SUCCESS &&
			 !memcmp(mi.buf + 2048, "window-2", 8),
	      "type 2 window: a WRITE through rkey 0x%08x lands", r2b);

	/* LOCAL_INV, then a rebind with another key. */
	struct be_send_wr inv = { .invalidate_rkey = r2b };
	r = post_send(c, &b, BE_WR_LOCAL_INV, 0, 0, &inv, &err);
	CHECK(c, r == 0, "LOCAL_INV 0x%08x%s%s", r2b, r ? ": " : "", r ? err.message : "");
	CHECK(c, wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_LOCAL_INV,
	      "LOCAL_INV: completion (status %d opcode %d)", wc.status, wc.opcode);
	uint32_t r2c = (r2 & ~0xffu) | 0x5b;
	r = bind2(c, &b, mw2, mr, 2048, 256, r2c, &err);
	CHECK(c, r == 0 && wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS,
	      "BIND_MW again after LOCAL_INV (key 0x5b): status %d", wc.status);

	/* SEND with Invalidate of the window's rkey: b's receive names it. */
	CHECK(c, post_recv(c, &b, 0, 64, 0x61) == 0, "post_recv");
	struct be_send_wr si = { .invalidate_rkey = r2c };
	CHECK(c, post_send(c, &a, BE_WR_SEND_WITH_INV, 0, 8, &si, &err) == 0, "SEND_WITH_INV 0x%08x",
	      r2c);
	CHECK(c, wait_wc(c, a.cq, &wc) && wc.status == BE_WC_SUCCESS,
	      "SEND_WITH_INV: requester completion (status %d)", wc.status);
	/* R11 of docs/rxe-results.md: rxe writes the kernel's
	 * IB_WC_WITH_INVALIDATE (1 << 2) into the user's completion
	 * (rxe_resp.c do_complete), and its provider copies the completion
	 * through (rxe_poll_cq): libibverbs reads that bit as IBV_WC_IP_CSUM_OK,
	 * and IBV_WC_WITH_INV (1 << 3) never comes. The rkey is there, in
	 * invalidated_rkey, and the window is invalidated all the same (the
	 * bind below succeeds only on a free type 2 window). */
	int got = wait_wc(c, b.cq, &wc);
	CHECK(c, got && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_RECV &&
			 !(wc.wc_flags & BE_WC_WITH_INV) && (wc.wc_flags_raw & BE_VERBS_WC_IP_CSUM_OK) &&
			 !(wc.wc_flags_raw & BE_VERBS_WC_WITH_INV) && wc.invalidate_rkey == r2c,
	      "SEND_WITH_INV: received, the rkey 0x%08x in invalidated_rkey, the flag in libibverbs' "
	      "IP_CSUM_OK bit (status %d, raw flags 0x%x, rkey 0x%08x)",
	      r2c, got ? (int)wc.status : -1, got ? wc.wc_flags_raw : 0, got ? wc.invalidate_rkey : 0);
	uint32_t r2d = (r2 & ~0xffu) | 0x5c;
	r = bind2(c, &b, mw2, mr, 4096, 64, r2d, &err);
	CHECK(c, r == 0 && wait_wc(c, b.cq, &wc) && wc.status == BE_WC_SUCCESS,
	      "BIND_MW after the remote invalidation (key 0x5c): status %d", wc.status);

	/* Type 1 unbind (length 0) through the other QP of the PD. */
	uint32_t r1c = 0;
	bind.length = 0;
	r = c->ops->bind_mw(a.qp, mw1, &bind, 0x52, true, &r1c, &err);
	CHECK(c, r == 0 && r1c != r1b, "bind_mw type 1, length 0 (unbind): rkey 0x%08x%s%s", r1c,
	      r ? ": " : "", r ? err.message : "");
	CHECK(c, wait_wc(c, a.cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_BIND_MW,
	      "unbind: completion (status %d opcode %d)", wc.status, wc.opcode);

	/* A bound type 2 window is not bound again (o10-37.2.30): rxe refuses
	 * the bind (rxe_check_bind_mw) and moves the QP to the error state.
	 * 6.1 completes the request with MW_BIND_ERR; 6.12 and 7.2 flush it
	 * (WR_FLUSH_ERR: rxe_requester puts the QP in error, and the
	 * completer's flush of the send queue completes the failed bind before
	 * its own status is reported): R15 of docs/rxe-results.md, a
	 * deviation (MW-REBIND-001). Measured on 6.1, 6.12 and 7.2. */
	uint32_t r2e = (r2 & ~0xffu) | 0x5d;
	r = bind2(c, &b, mw2, mr, 0, 64, r2e, &err);
	got = r == 0 && wait_wc(c, b.cq, &wc);
	enum be_wc_status want = kernel_at_least(6, 12) ? BE_WC_WR_FLUSH_ERR : BE_WC_MW_BIND_ERR;
	CHECK(c, got && wc.status == want, "BIND_MW of a bound type 2 window refused: status %d (want %d)",
	      got ? (int)wc.status : -1, (int)want);
	struct be_qp_attr q;
	MUST(c, c->ops->query_qp(b.qp, &q, &err), &err);
	CHECK(c, q.state == BE_QPS_ERR, "the refused bind put the QP in ERR (state %d)", q.state);

	CHECK(c, c->ops->dealloc_mw(mw2, &err) == 0, "dealloc_mw type 2");
	CHECK(c, c->ops->dealloc_mw(mw1, &err) == 0, "dealloc_mw type 1");
	free_ep(c, &a);
	free_ep(c, &b);
	CHECK(c, c->ops->dereg_mr(mr, &err) == 0, "dereg_mr");
}

#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
/* FLUSH posted through ibv_wr_flush (rdma-core 45 and later: the guest
 * runs a newer suite's user space, run-with-rxe --userland). r and err are
 * the post of a FLUSH to b's region, which has no FLUSH right, on a QP
 * whose access flags lack FLUSH too: rxe's responder refuses a FLUSH the
 * QP's access flags do not allow as an unsupported opcode
 * (check_qp_attr_access: NAK Invalid Request), before the region's rights. */
static void flush_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
			 struct ep *a, struct ep *b, int r, struct be_error *err)
{
	struct be_wc wc = { 0 };
	CHECK(c, r == 0, "FLUSH posted through ibv_wr_flush%s%s", r ? ": " : "", r ? err->message : "");
	CHECK(c, r == 0 && wait_wc(c, a->cq, &wc) && wc.status == BE_WC_REM_INV_REQ_ERR,
	      "FLUSH to a QP without FLUSH access: REM_INV_REQ_ERR (status %d opcode %d)", wc.status,
	      wc.opcode);
	free_ep(c, a);
	free_ep(c, b);

	/* A fresh pair whose responder allows FLUSH_GLOBAL on the QP, and a
	 * region with the right. */
	make_ep(c, pd, BE_QPT_RC, a);
	make_ep(c, pd, BE_QPT_RC, b);
	connect_qp(c, BE_QPT_RC, a, b->qpn, gid4, idx4, 500, 600);
	connect_qp(c, BE_QPT_RC, b, a->qpn, gid4, idx4, 600, 500);
	struct be_qp_attr qa = { .mask = BE_QPA_ACCESS,
				 .access = BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
					   BE_ACCESS_REMOTE_ATOMIC | BE_ACCESS_FLUSH_GLOBAL };
	r = c->ops->modify_qp(b->qp, &qa, err);
	CHECK(c, r == 0, "modify_qp RTS: access with FLUSH_GLOBAL: %s", r ? err->message : "ok");
	struct be_mr *mr = NULL;
	r = c->ops->reg_mr(pd, 4096, BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_FLUSH_GLOBAL, 0,
			   &mr, err);
	CHECK(c, r == 0, "reg_mr with FLUSH_GLOBAL: %s", r ? err->message : "ok");
	if (r != 0)
		return;
	struct be_mr_info mi;
	c->ops->mr_info(mr, &mi);
	static const struct { enum be_flush_level level; uint32_t len; const char *name; } tries[] = {
		{ BE_FLUSH_RANGE, 64, "RANGE of 64 bytes" },
		{ BE_FLUSH_RANGE, 4096, "RANGE of the whole region" },
		{ BE_FLUSH_REGION, 0, "REGION" },
	};
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		struct be_send_wr x = { .remote_addr = mi.addr, .rkey = mi.rkey, .flush_length = tries[i].len,
					.flush_type = BE_FLUSH_GLOBAL, .flush_level = tries[i].level };
		memset(&wc, 0, sizeof wc);
		r = post_send(c, a, BE_WR_FLUSH, 0, 0, &x, err);
		CHECK(c, r == 0 && wait_wc(c, a->cq, &wc) && wc.status == BE_WC_SUCCESS && wc.opcode == BE_WC_FLUSH,
		      "FLUSH GLOBAL %s: completion (status %d opcode %d)%s%s", tries[i].name, wc.status,
		      wc.opcode, r ? ": " : "", r ? err->message : "");
	}
	/* PERSISTENT on a QP and region without that right (rxe takes
	 * FLUSH_PERSISTENT only on persistent memory): refused as above. */
	struct be_send_wr x = { .remote_addr = mi.addr, .rkey = mi.rkey, .flush_length = 64,
				.flush_type = BE_FLUSH_PERSISTENT, .flush_level = BE_FLUSH_RANGE };
	memset(&wc, 0, sizeof wc);
	r = post_send(c, a, BE_WR_FLUSH, 0, 0, &x, err);
	CHECK(c, r == 0 && wait_wc(c, a->cq, &wc) && wc.status == BE_WC_REM_INV_REQ_ERR,
	      "FLUSH PERSISTENT without the QP's right: REM_INV_REQ_ERR (status %d opcode %d)", wc.status,
	      wc.opcode);
	CHECK(c, c->ops->dereg_mr(mr, err) == 0, "dereg_mr");
}
#endif

void placement_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
		      const struct be_device_attr *da)
{
	struct be_error err;
	struct be_wc wc;
	struct ep a, b;
	rc_pair(c, pd, gid4, idx4, &a, &b);

	/* ATOMIC WRITE came to rxe with 6.2 (device_cap_flags_ex bit 40);
	 * Debian 12's rdma-core 44 posts it (ibv_wr_atomic_write). */
	bool want_aw = kernel_at_least(6, 2);
	CHECK(c, !!(da->caps & BE_CAP_ATOMIC_WRITE) == want_aw, "query_device: ATOMIC_WRITE %s (caps 0x%x)",
	      want_aw ? "reported (kernel 6.2 or later)" : "not reported (kernel before 6.2)", da->caps);
	struct be_send_wr x = { .remote_addr = b.mi.addr + 64, .rkey = b.mi.rkey,
				.atomic_value = 0x0102030405060708ULL };
	int r = post_send(c, &a, BE_WR_ATOMIC_WRITE, 0, 0, &x, &err);
	if (da->caps & BE_CAP_ATOMIC_WRITE) {
		CHECK(c, r == 0, "ATOMIC_WRITE posted%s%s", r ? ": " : "", r ? err.message : "");
		CHECK(c, r == 0 && wait_wc(c, a.cq, &wc) && wc.status == BE_WC_SUCCESS &&
				 wc.opcode == BE_WC_ATOMIC_WRITE,
		      "ATOMIC_WRITE: completion (status %d opcode %d)", wc.status, wc.opcode);
		static const uint8_t want[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		CHECK(c, !memcmp(b.mi.buf + 64, want, 8),
		      "ATOMIC_WRITE: the 8 bytes placed big-endian (%02x %02x .. %02x)", b.mi.buf[64],
		      b.mi.buf[65], b.mi.buf[71]);
	} else {
		CHECK(c, r != 0 && err.code == BE_UNSUPPORTED, "ATOMIC_WRITE refused: %s", err.message);
	}

	/* FLUSH: compiled only where libibverbs has ibv_wr_flush (not in
	 * Debian 12's rdma-core 44, which the guest runs). */
	x = (struct be_send_wr){ .remote_addr = b.mi.addr, .rkey = b.mi.rkey, .flush_length = 64,
				 .flush_type = BE_FLUSH_GLOBAL, .flush_level = BE_FLUSH_RANGE };
	r = post_send(c, &a, BE_WR_FLUSH, 0, 0, &x, &err);
#ifdef ROCE_AGENT_HAVE_IBV_FLUSH
	if (da->caps & BE_CAP_FLUSH)
		flush_checks(c, pd, gid4, idx4, &a, &b, r, &err);
	else
		CHECK(c, r != 0 && err.code == BE_UNSUPPORTED, "FLUSH refused: %s", err.message);
#else
	/* The responder's FLUSH is the device's (rxe from 6.2): reported, and
	 * an MR may carry the right, though this library cannot post one. */
	bool want_flush = kernel_at_least(6, 2);
	CHECK(c, !!(da->caps & BE_CAP_FLUSH) == want_flush, "query_device: FLUSH %s the device's (%s)",
	      want_flush ? "reported as" : "not reported: not", (da->caps & BE_CAP_FLUSH) ? "reported" : "absent");
	CHECK(c, r != 0 && err.code == BE_UNSUPPORTED && strstr(err.message, "libibverbs"),
	      "FLUSH work request refused, naming the library: %s", err.message);
	struct be_mr *mr;
	r = c->ops->reg_mr(pd, 64, BE_ACCESS_LOCAL_WRITE | BE_ACCESS_FLUSH_GLOBAL, 0, &mr, &err);
	if (want_flush) {
		CHECK(c, r == 0, "reg_mr with FLUSH_GLOBAL taken by the kernel: %s", r ? err.message : "ok");
		if (r == 0)
			c->ops->dereg_mr(mr, &err);
	} else {
		CHECK(c, r != 0, "reg_mr with FLUSH_GLOBAL refused by a kernel without FLUSH: %s", err.message);
	}
#endif
	struct ep u;
	make_ep(c, pd, BE_QPT_UC, &u);
	r = post_send(c, &u, BE_WR_ATOMIC_WRITE, 0, 0, &x, &err);
	CHECK(c, r != 0 && err.code == BE_BAD_REQUEST, "ATOMIC_WRITE on a UC QP refused: %s", err.message);
	free_ep(c, &u);
	free_ep(c, &a);
	free_ep(c, &b);
}

void xrc_checks(struct ctx *c, struct be_pd *pd, const struct be_device_attr *da)
{
	struct be_error err;
	struct be_xrcd *x = NULL;
	/* rxe has no XRC in any kernel (no alloc_xrcd among its verbs, and
	 * rdma-core's provider has no open_xrcd): libibverbs answers
	 * EOPNOTSUPP. */
	CHECK(c, !(da->caps & BE_CAP_XRC), "query_device: no XRC (caps 0x%x)", da->caps);
	int r = c->ops->alloc_xrcd(c->be, &x, &err);
	CHECK(c, r != 0 && err.code == BE_UNSUPPORTED && strstr(err.message, "ibv_open_xrcd"),
	      "alloc_xrcd: %s", r ? err.message : "allocated");
	if (r == 0)
		c->ops->dealloc_xrcd(x, &err);
	struct be_cq *cq;
	MUST(c, c->ops->create_cq(c->be, 4, &cq, &err), &err);
	struct be_qp *qp;
	uint32_t qpn;
	/* An initiator needs no domain: the QP type itself is asked. */
	struct be_qp_init qi = { .type = (enum be_qp_type)9 /* XRC_SEND */, .send_cq = cq,
				 .recv_cq = cq, .max_send_wr = 4, .max_send_sge = 1 };
	r = c->ops->create_qp(pd, &qi, &qp, &qpn, &err);
	CHECK(c, r != 0 && err.code == BE_UNSUPPORTED, "create_qp XRC_SEND: %s",
	      r ? err.message : "created");
	if (r == 0)
		c->ops->destroy_qp(qp, &err);
	qi.type = (enum be_qp_type)10; /* XRC_RECV */
	CHECK(c, c->ops->create_qp(pd, &qi, &qp, &qpn, &err) != 0 && err.code == BE_BAD_REQUEST,
	      "create_qp XRC_RECV without a domain refused: %s", err.message);
	CHECK(c, c->ops->destroy_cq(cq, &err) == 0, "destroy_cq");
}
