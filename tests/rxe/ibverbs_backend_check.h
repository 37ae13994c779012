/*
 * What the two files of the rxe backend check share: the run's context,
 * its CHECK and MUST, and the loopback endpoints (QPs on the device itself)
 * with their helpers (ibverbs_backend_check.c).
 */
#ifndef IBVERBS_BACKEND_CHECK_H
#define IBVERBS_BACKEND_CHECK_H

#include "backend.h"

#include <stdio.h>
#include <stdlib.h>

struct ctx {
	struct backend *be;
	const struct backend_ops *ops;
	int failures, checks;
};

#define CHECK(c, cond, ...)                                                  \
	do {                                                                 \
		(c)->checks++;                                               \
		if (cond) {                                                  \
			printf("ok: ");                                      \
		} else {                                                     \
			(c)->failures++;                                     \
			printf("FAIL (%s:%d): ", __FILE__, __LINE__);       \
		}                                                            \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
	} while (0)

/* Fails the whole run: the remaining checks depend on this step. */
#define MUST(c, call, err)                                                      \
	do {                                                                    \
		if ((call) != 0) {                                              \
			printf("FAIL (%s:%d): %s: %s\n", __FILE__, __LINE__, #call, \
			       (err)->message);                                 \
			exit(1);                                                \
		}                                                               \
	} while (0)

/* An endpoint: a QP with its CQ and one MR. */
struct ep {
	struct be_cq *cq;
	struct be_qp *qp;
	struct be_mr *mr;
	struct be_mr_info mi;
	uint32_t qpn;
};

double now(void);
/* Polls until one completion arrives or 5 s pass. Returns 1 if one came. */
int wait_wc(struct ctx *c, struct be_cq *cq, struct be_wc *wc);
void make_ep(struct ctx *c, struct be_pd *pd, enum be_qp_type type, struct ep *ep);
void free_ep(struct ctx *c, struct ep *ep);
/* RESET -> INIT -> RTR -> RTS towards peer (connected types). */
void connect_qp(struct ctx *c, enum be_qp_type type, struct ep *ep, uint32_t peer_qpn,
		const uint8_t dgid[16], unsigned sgid_index, uint32_t my_psn, uint32_t peer_psn);
/* A signaled work request of one SGE (none when len is 0) from from's MR. */
int post_send(struct ctx *c, struct ep *from, enum be_wr_opcode op, uint64_t off, uint32_t len,
	      const struct be_send_wr *extra, struct be_error *err);
int post_recv(struct ctx *c, struct ep *to, uint64_t off, uint32_t len, uint64_t wr_id);
/* Whether the guest's kernel is this release or a later one. */
int kernel_at_least(int major, int minor);

/* ibverbs_backend_mw_check.c: memory windows, XRC, ATOMIC WRITE, FLUSH. */
void mw_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
	       const struct be_device_attr *da);
void placement_checks(struct ctx *c, struct be_pd *pd, const uint8_t gid4[16], unsigned idx4,
		      const struct be_device_attr *da);
void xrc_checks(struct ctx *c, struct be_pd *pd, const struct be_device_attr *da);

#endif
