/*
 * The `ibverbs` backend: the protocol's verbs on a real RDMA device through
 * libibverbs (rdma-core): a hardware RoCE NIC, or Linux Soft-RoCE (rxe).
 *
 * The backend is thin on purpose: the device's own behaviour is what the
 * tester measures, so every verb goes to libibverbs as asked, and a refusal
 * comes back with the verb, what was asked and the errno text. It adds only
 * what a user needs to understand a refusal: before modify_qp it names the
 * attributes a transition requires but lacks (qp.c), and it refuses a post
 * to a QP whose state cannot take it itself (datapath.c).
 *
 *   open.c         open and close the device, its operations
 *   device.c       the device's attributes and capabilities, ports, GIDs
 *   resources.c    PDs, CQs, MRs (and their memory), AHs
 *   qp.c           QPs and their state transitions
 *   rawqp.c        IBA's raw datagram QPs asked of libibverbs and of the
 *                  kernel's uverbs (a RoCEv2 port has none)
 *   cm.c           the connection manager's passive side (librdmacm)
 *   srq.c          shared receive queues
 *   mw.c           memory windows: alloc, the type 1 bind verb, the BIND_MW
 *                  and LOCAL_INV work requests
 *   xrc.c          XRC domains, XRC SRQs, initiator and target QPs
 *   placement.c    ATOMIC WRITE and FLUSH through the extended QP interface
 *   events.c       asynchronous events, queued for get_async_events
 *   mcast.c        multicast attach and detach, the CM's join (librdmacm)
 *   datapath.c     posting work requests, polling completions
 *   hw_counters.c  the port's counters from sysfs, never a cached copy
 *   common.c       errors from errno, values to and from libibverbs', sysfs
 */
#ifndef ROCE_AGENT_IBVERBS_H
#define ROCE_AGENT_IBVERBS_H

#include "backend.h"

#include <glib.h>
#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYSFS_IB "/sys/class/infiniband"

struct ib_backend {
	struct backend base;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	char name[64];
	unsigned caps;        /* BE_CAP_*, probed once at open */
	guint async_watch;    /* GLib source draining asynchronous events */
	GQueue events;        /* struct be_async_event *, oldest first (events.c) */
	uint64_t events_dropped; /* lost to the queue's bound since open */
	gint64 counters_read_us; /* monotonic time of the last hw_counters read, 0: never */
	uint64_t cap_flags_ex; /* ibv_query_device_ex's device_cap_flags_ex (0: not answered) */
};

struct be_pd {
	struct ib_backend *be;
	struct ibv_pd *pd;
};

struct be_cq {
	struct ib_backend *be;
	struct ibv_cq *cq;
};

struct be_mr {
	struct ib_backend *be;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t map_len; /* buf's mapping, whole pages */
	uint64_t length;
};

struct be_qp {
	struct ib_backend *be;
	struct ibv_qp *qp;
	enum be_qp_type type;
	uint32_t max_send_sge, max_recv_sge;
	enum ibv_qp_state state_set; /* the last state modify_qp moved it to */
	struct ib_listen *cm;        /* cm_listen: the listener and connection, or NULL */
	struct be_srq *srq;          /* its receives come from this SRQ, or NULL */
	GArray *groups;              /* struct ib_group: attached multicast groups (mcast.c) */
	GPtrArray *joins;            /* struct ib_join *: the CM's joins (mcast.c) */
	/* The extended interface, for the work requests only it posts (ATOMIC
	 * WRITE, FLUSH: placement.c); NULL for a QP created without them. */
	struct ibv_qp_ex *qpx;
};

struct be_srq {
	struct ib_backend *be;
	struct ibv_srq *srq;
	uint32_t max_sge; /* what the device gave */
	uint32_t srqn;    /* an XRC SRQ's number (ibv_get_srq_num); 0 otherwise */
};

struct be_mw {
	struct ib_backend *be;
	/* Its rkey member is the window's current key: the type 1 verb updates
	 * it, mw.c does for a posted type 2 bind (providers name the window
	 * to the kernel by it). */
	struct ibv_mw *mw;
	enum be_mw_type type;
};

struct be_xrcd {
	struct ib_backend *be;
	struct ibv_xrcd *xrcd;
};

struct be_ah {
	struct ibv_ah *ah;
};

static inline struct ib_backend *ib_of(struct backend *be)
{
	return (struct ib_backend *)be;
}

/* common.c */
/* Sets err from errno value e: "<what>: <strerror>". Returns -1. */
int ib_verb_failed(struct be_error *err, int e, const char *what);
const char *ib_state_name(enum ibv_qp_state s);
unsigned ib_mtu_bytes(enum ibv_mtu m); /* 0: not an MTU */
unsigned ib_access_to_ibv(unsigned a);
void ib_av_to_ah_attr(const struct be_av *av, uint8_t default_port, struct ibv_ah_attr *ah);
/* 0, or -1 with err set when the device has no such port. */
int ib_check_port(struct ib_backend *ib, unsigned port, struct be_error *err);
/* Reads a small sysfs file into buf, without the trailing newline; -1 with errno. */
int ib_read_sysfs(const char *path, char *buf, size_t len);

/* device.c */
unsigned ib_probe_caps(struct ib_backend *ib); /* BE_CAP_* */
int ib_query_device(struct backend *be, struct be_device_attr *out, struct be_error *err);
int ib_query_port(struct backend *be, unsigned port, struct be_port_attr *out, struct be_error *err);
int ib_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max, unsigned *n,
		 struct be_error *err);

/* resources.c */
int ib_alloc_pd(struct backend *be, struct be_pd **out, struct be_error *err);
int ib_dealloc_pd(struct be_pd *pd, struct be_error *err);
int ib_create_cq(struct backend *be, unsigned cqe, struct be_cq **out, struct be_error *err);
int ib_destroy_cq(struct be_cq *cq, struct be_error *err);
int ib_reg_mr(struct be_pd *pd, uint64_t length, unsigned access, uint8_t fill, struct be_mr **out,
	      struct be_error *err);
int ib_dereg_mr(struct be_mr *mr, struct be_error *err);
void ib_mr_info(struct be_mr *mr, struct be_mr_info *out);
int ib_create_ah(struct be_pd *pd, const struct be_av *av, struct be_ah **out, struct be_error *err);
int ib_destroy_ah(struct be_ah *ah, struct be_error *err);

/* qp.c */
int ib_create_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out, uint32_t *qpn,
		 struct be_error *err);
int ib_modify_qp(struct be_qp *qp, const struct be_qp_attr *attr, struct be_error *err);
int ib_query_qp(struct be_qp *qp, struct be_qp_attr *out, struct be_error *err);
int ib_destroy_qp(struct be_qp *qp, struct be_error *err);
/* The QP's state as the device has it now. */
int ib_current_state(struct be_qp *qp, enum ibv_qp_state *state, struct be_error *err);

/* rawqp.c */
int ib_probe_raw_datagram_qp(struct be_pd *pd, enum be_raw_qp_type type, struct be_raw_probe *out,
			     struct be_error *err);

/* cm.c */
#ifdef ROCE_AGENT_HAVE_RDMACM
int ib_cm_listen(struct be_qp *qp, uint16_t port, struct be_error *err);
#endif
/* Drops the QP's listener and connection, if it has them. */
void ib_cm_release(struct be_qp *qp);

/* srq.c */
int ib_create_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq **out,
		  struct be_error *err);
int ib_modify_srq(struct be_srq *srq, uint32_t limit, struct be_error *err);
int ib_query_srq(struct be_srq *srq, struct be_srq_attr *out, struct be_error *err);
int ib_destroy_srq(struct be_srq *srq, struct be_error *err);
int ib_post_srq_recv(struct be_srq *srq, const struct be_recv_wr *wr, struct be_error *err);

/* events.c */
/* Makes the async fd non-blocking and watches it on the main loop. */
void ib_events_start(struct ib_backend *ib);
/* Removes the watch and frees the queued events. */
void ib_events_stop(struct ib_backend *ib);
/* Drops the queued events about an object being destroyed (its pointer
 * would dangle); NULL members are ignored. */
void ib_events_forget(struct ib_backend *ib, const struct be_qp *qp, const struct be_srq *srq,
		      const struct be_cq *cq);
int ib_get_async_events(struct backend *be, struct be_async_event *out, unsigned max, unsigned *n,
			struct be_error *err);

/* mcast.c */
int ib_attach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
int ib_detach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
#ifdef ROCE_AGENT_HAVE_RDMACM
int ib_cm_join(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_mcast_join *out,
	       struct be_error *err);
int ib_cm_leave(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_error *err);
#endif
/* Leaves the QP's CM joins and detaches its groups (before ibv_destroy_qp,
 * which the kernel refuses while a group is attached). */
void ib_mcast_release(struct be_qp *qp);

/* mw.c */
/* MW1 and MW2: the device's flags say so and a window of the type is
 * allocated on pd. */
unsigned ib_probe_mw_caps(struct ib_backend *ib, struct ibv_pd *pd);
int ib_alloc_mw(struct be_pd *pd, enum be_mw_type type, struct be_mw **out, uint32_t *rkey,
		struct be_error *err);
int ib_dealloc_mw(struct be_mw *mw, struct be_error *err);
int ib_bind_mw(struct be_qp *qp, struct be_mw *mw, const struct be_mw_bind *bind, uint64_t wr_id,
	       bool signaled, uint32_t *rkey, struct be_error *err);
/* Fills swr's BIND_MW (a type 2 window) or LOCAL_INV part; -1 with err set
 * when the request cannot be one. */
int ib_fill_mw_wr(struct be_qp *qp, const struct be_send_wr *wr, struct ibv_send_wr *swr,
		  struct be_error *err);
/* After a BIND_MW was posted: the window's key is the new one. */
void ib_mw_posted(const struct be_send_wr *wr);

/* xrc.c */
/* XRC: the device's flag says so and a domain opens. */
unsigned ib_probe_xrc_caps(struct ib_backend *ib);
int ib_alloc_xrcd(struct backend *be, struct be_xrcd **out, struct be_error *err);
int ib_dealloc_xrcd(struct be_xrcd *xrcd, struct be_error *err);
bool ib_is_xrc_type(enum be_qp_type type);
int ib_create_xrc_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq *s,
		      struct be_error *err);
int ib_create_xrc_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp *q,
		     struct be_error *err);

/* placement.c */
/* ATOMIC_WRITE and FLUSH: the device's extended flags say so, the library
 * has the verb, and an RC QP with it is created on pd. Reads cap_flags_ex. */
unsigned ib_probe_placement_caps(struct ib_backend *ib, struct ibv_pd *pd, struct ibv_cq *cq);
/* The send_ops_flags an RC or XRC_SEND QP is created with (0: none, the
 * plain ibv_create_qp is enough). */
uint64_t ib_placement_send_ops(const struct ib_backend *ib);
int ib_post_atomic_write(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err);
int ib_post_flush(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err);
/* Why FLUSH is missing from this build, or NULL when it is there. */
const char *ib_flush_missing(void);

/* datapath.c */
/* libibverbs' SGEs for ours (bounds-checked by the protocol layer). */
void ib_fill_sges(struct ibv_sge *out, const struct be_sge *in, unsigned n);
/* 0 when the QP's state takes a post (send or receive), else -1 with err. */
int ib_check_post_state(struct be_qp *qp, bool send, struct be_error *err);
int ib_post_recv(struct be_qp *qp, const struct be_recv_wr *wr, struct be_error *err);
int ib_post_send(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err);
int ib_poll_cq(struct be_cq *cq, struct be_wc *out, unsigned max, unsigned *n, struct be_error *err);

/* hw_counters.c */
int ib_read_counters(struct backend *be, unsigned port, be_counter_fn fn, void *ctx, struct be_error *err);

#endif
