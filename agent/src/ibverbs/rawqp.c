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

/* Straight to the kernel: the uverbs write ABI's CREATE_QP of a QP of
 * this type value; 0 with its handle, or an errno. */
static int kernel_create_qp(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq, uint8_t qp_type,
			    uint32_t *handle)
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
	req.cmd.user_handle = (uintptr_t)handle;
	req.cmd.pd_handle = pd->handle;
	req.cmd.send_cq_handle = cq->handle;
	req.cmd.recv_cq_handle = cq->handle;
	req.cmd.max_send_wr = 1;
	req.cmd.max_recv_wr = 1;
	req.cmd.max_send_sge = 1;
	req.cmd.max_recv_sge = 1;
	req.cmd.qp_type = qp_type;
	ssize_t n = write(ib->ctx->cmd_fd, &req, sizeof req);
	if (n != (ssize_t)sizeof req)
		return n < 0 ? errno : EIO;
	*handle = resp.r.qp_handle;
	return 0;
}

/* Destroys what kernel_create_qp made; false when the kernel refused
 * (the QP then goes with the device context). */
static bool kernel_destroy_qp(struct ib_backend *ib, uint32_t handle)
{
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
	del.cmd.qp_handle = handle;
	return write(ib->ctx->cmd_fd, &del, sizeof del) == (ssize_t)sizeof del;
}

/* The kernel's answer, after a control: a UD QP asked for the same way
 * must be created, else the kernel's refusal of the raw type says nothing
 * about the type (the write ABI may want a driver's own data). */
static void through_kernel(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq, enum be_raw_qp_type type,
			   struct be_raw_probe *out)
{
	uint32_t handle;
	int e = kernel_create_qp(ib, pd, cq, IBV_QPT_UD, &handle);
	if (e) {
		answer(out, "kernel uverbs CREATE_QP: not asked: a UD QP asked for the same way (the control) was refused too (%s)",
		       strerror(e));
		return;
	}
	kernel_destroy_qp(ib, handle);
	e = kernel_create_qp(ib, pd, cq, (uint8_t)type, &handle);
	if (e) {
		answer(out, "kernel uverbs CREATE_QP: refused: %s (a UD QP asked for the same way was created)", strerror(e));
		return;
	}
	out->created = true;
	answer(out, "kernel uverbs CREATE_QP: created (%s)",
	       kernel_destroy_qp(ib, handle) ? "destroyed again" : "its DESTROY_QP failed; it goes with the device context");
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
