/*
 * probe_raw_datagram_qp: IBA's raw datagram QPs (Raw IPv6, Raw Ethertype;
 * the Linux kernel's IB_QPT_RAW_IPV6 = 5 and IB_QPT_RAW_ETHERTYPE = 6),
 * which a RoCEv2 port has none of (CA17-28), asked of two layers:
 *
 * - libibverbs, through ibv_create_qp with that type value: its enum
 *   ibv_qp_type names none of them (RC 2, UC 3, UD 4, RAW_PACKET 8, XRC 9
 *   and 10), so what answers is rdma-core's own command code or the
 *   provider;
 * - the kernel's uverbs, directly, through the write ABI's CREATE_QP
 *   command on the context's command fd: what the OS's RDMA core and the
 *   driver answer when the library is not in the way.
 *
 * The Ethernet RAW_PACKET QP (8) some NICs offer is another service and
 * is never asked for. Anything a layer creates is destroyed at once.
 */
#include "ibverbs.h"

#include <errno.h>
#include <stdarg.h>
#include <rdma/ib_user_verbs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void answer(struct be_raw_probe *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void answer(struct be_raw_probe *out, const char *fmt, ...)
{
	if (out->n_answers >= BE_RAW_MAX_ANSWERS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->answers[out->n_answers++], sizeof out->answers[0], fmt, ap);
	va_end(ap);
}

/* Through libibverbs: the provider's create_qp with the type value. */
static void through_library(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq, enum be_raw_qp_type type,
			    struct be_raw_probe *out)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = (enum ibv_qp_type)type,
	};
	errno = 0;
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (qp) {
		out->created = true;
		ibv_destroy_qp(qp);
		answer(out, "libibverbs ibv_create_qp on %s: created (destroyed again)", ib->name);
		return;
	}
	answer(out, "libibverbs ibv_create_qp: refused: %s", errno ? strerror(errno) : "no reason given");
}

/* Straight to the kernel: the uverbs write ABI's CREATE_QP. */
static void through_kernel(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq, enum be_raw_qp_type type,
			   struct be_raw_probe *out)
{
	/* Room past the common response for a driver's own (rxe, mlx5). */
	union {
		struct ib_uverbs_create_qp_resp r;
		uint8_t bytes[512];
	} resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_qp cmd;
	} req;
	memset(&resp, 0, sizeof resp);
	memset(&req, 0, sizeof req);
	req.hdr.command = IB_USER_VERBS_CMD_CREATE_QP;
	req.hdr.in_words = (uint16_t)(sizeof req / 4);
	req.hdr.out_words = (uint16_t)(sizeof resp / 4);
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.user_handle = (uintptr_t)out;
	req.cmd.pd_handle = pd->handle;
	req.cmd.send_cq_handle = cq->handle;
	req.cmd.recv_cq_handle = cq->handle;
	req.cmd.max_send_wr = 1;
	req.cmd.max_recv_wr = 1;
	req.cmd.max_send_sge = 1;
	req.cmd.max_recv_sge = 1;
	req.cmd.qp_type = (uint8_t)type;
	ssize_t n = write(ib->ctx->cmd_fd, &req, sizeof req);
	if (n != (ssize_t)sizeof req) {
		answer(out, "kernel uverbs CREATE_QP: refused: %s", n < 0 ? strerror(errno) : "a short write");
		return;
	}
	out->created = true;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_qp cmd;
	} del;
	struct ib_uverbs_destroy_qp_resp dresp;
	memset(&del, 0, sizeof del);
	del.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	del.hdr.in_words = (uint16_t)(sizeof del / 4);
	del.hdr.out_words = (uint16_t)(sizeof dresp / 4);
	del.cmd.response = (uintptr_t)&dresp;
	del.cmd.qp_handle = resp.r.qp_handle;
	bool gone = write(ib->ctx->cmd_fd, &del, sizeof del) == (ssize_t)sizeof del;
	answer(out, "kernel uverbs CREATE_QP: created (%s)",
	       gone ? "destroyed again" : "its DESTROY_QP failed; it goes with the device context");
}

int ib_probe_raw_datagram_qp(struct be_pd *pd, enum be_raw_qp_type type, struct be_raw_probe *out,
			     struct be_error *err)
{
	struct ib_backend *ib = pd->be;
	memset(out, 0, sizeof *out);
	struct ibv_cq *cq = ibv_create_cq(ib->ctx, 2, NULL, NULL, 0);
	if (!cq)
		return ib_verb_failed(err, errno, "ibv_create_cq (for the raw datagram QP's attempt)");
	through_library(ib, pd->pd, cq, type, out);
	through_kernel(ib, pd->pd, cq, type, out);
	ibv_destroy_cq(cq);
	return 0;
}
