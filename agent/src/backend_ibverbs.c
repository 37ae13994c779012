/*
 * The `ibverbs` backend: the protocol's verbs on a real RDMA device through
 * libibverbs (rdma-core): a hardware RoCE NIC, or Linux Soft-RoCE (rxe).
 *
 * The backend is thin on purpose: the device's own behaviour is what the
 * tester measures, so every verb goes to libibverbs as asked, and a refusal
 * comes back with the verb, what was asked and the errno text. It adds only
 * what a user needs to understand a refusal: before modify_qp it names the
 * attributes a transition requires but lacks, and it refuses a post to a QP
 * whose state cannot take it (send: before RTS; receive: in RESET) itself.
 * That last one is not only for the message: rxe's provider writes the work
 * request into the queue before the kernel refuses it, and the ghost request
 * then runs as soon as the QP reaches RTS.
 *
 * The connection manager's passive side (cm_listen) is librdmacm's: a
 * listener on the RDMA_PS_TCP port space, whose connect request is
 * accepted on the session's own QP (rdma_init_qp_attr gives the kernel
 * CM's attributes for each transition), so that the kernel's CM answers
 * the tester's REQ, RTU, LAP and DREQ as it would for any application.
 *
 * MR memory is mmap()ed, one mapping per MR. Unmapping after ibv_dereg_mr
 * is then safe even if the device still held pinned pages for a late
 * access: those pages are no longer part of this process, so a late access
 * cannot land in memory that malloc has handed to someone else.
 */
#include "backend.h"
#include "roce/gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <glib.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef ROCE_AGENT_HAVE_RDMACM
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#endif

#include "text.h"

#define SYSFS_IB "/sys/class/infiniband"
#define MAX_SGE_ON_STACK 16

struct ib_backend {
	struct backend base;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	char name[64];
	unsigned caps;        /* BE_CAP_*, probed once at open */
	guint async_watch;    /* GLib source draining asynchronous events */
	gint64 counters_read_us; /* monotonic time of the last hw_counters read, 0: never */
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
};

struct be_ah {
	struct ibv_ah *ah;
};

static struct ib_backend *ib_of(struct backend *be)
{
	return (struct ib_backend *)be;
}

/* ---- Errors ---- */

static enum be_status status_of_errno(int e)
{
	switch (e) {
	case EINVAL:
	case ERANGE:
		return BE_BAD_REQUEST;
	case ENOMEM:
	case ENOSPC:
	case EAGAIN:
	case EMFILE:
	case ENFILE:
	case EDQUOT:
		return BE_RESOURCE_LIMIT;
	case EOPNOTSUPP:
	case ENOSYS:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:
		return BE_UNSUPPORTED;
	case EBUSY:
		return BE_INVALID_STATE;
	default:
		return BE_DEVICE_ERROR;
	}
}

/* Sets err from errno value e: "<what>: <strerror>". Returns -1. */
static int verb_failed(struct be_error *err, int e, const char *what)
{
	if (e <= 0) /* some verbs return -1 or NULL without setting errno */
		e = EIO;
	return be_error_set(err, status_of_errno(e), "%s: %s", what, strerror(e));
}

/* ---- Conversions ---- */

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return (unsigned)s < G_N_ELEMENTS(names) ? names[s] : "UNKNOWN";
}

static const char *type_name(enum be_qp_type t)
{
	return t == BE_QPT_RC ? "RC" : t == BE_QPT_UC ? "UC" : t == BE_QPT_UD ? "UD" : "?";
}

static unsigned mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

static int mtu_enum(unsigned bytes, enum ibv_mtu *out)
{
	for (enum ibv_mtu m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if (mtu_bytes(m) == bytes) {
			*out = m;
			return 0;
		}
	return -1;
}

static unsigned access_to_ibv(unsigned a)
{
	/* BE_ACCESS_* are libibverbs' values; keep only the ones we define. */
	return a & (BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE | BE_ACCESS_REMOTE_READ |
		    BE_ACCESS_REMOTE_ATOMIC);
}

static void av_to_ah_attr(const struct be_av *av, uint8_t default_port, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof *ah);
	ah->is_global = 1; /* RoCE: every packet carries the GRH (the IP header) */
	memcpy(ah->grh.dgid.raw, av->dgid, 16);
	ah->grh.sgid_index = av->sgid_index;
	ah->grh.hop_limit = av->hop_limit;
	ah->grh.traffic_class = av->traffic_class;
	ah->grh.flow_label = av->flow_label;
	ah->sl = av->sl;
	ah->port_num = av->port ? av->port : default_port;
}

static void ah_attr_to_av(const struct ibv_ah_attr *ah, struct be_av *av)
{
	memset(av, 0, sizeof *av);
	memcpy(av->dgid, ah->grh.dgid.raw, 16);
	av->sgid_index = ah->grh.sgid_index;
	av->hop_limit = ah->grh.hop_limit;
	av->traffic_class = ah->grh.traffic_class;
	av->flow_label = ah->grh.flow_label;
	av->sl = ah->sl;
	av->port = ah->port_num;
}

static int check_port(struct ib_backend *ib, unsigned port, struct be_error *err)
{
	if (port < 1 || port > ib->attr.phys_port_cnt)
		return be_error_set(err, BE_BAD_REQUEST, "port %u: %s has ports 1..%u", port,
				    ib->name, (unsigned)ib->attr.phys_port_cnt);
	return 0;
}

/* ---- sysfs ---- */

/* Reads a small sysfs file into buf, without the trailing newline. */
static int read_sysfs(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* ---- Device, ports, GIDs ---- */

/* Probes whether the device creates a QP of this type (UC in particular is
 * optional, and no device attribute says so). */
static bool can_create_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (!qp)
		return false;
	ibv_destroy_qp(qp);
	return true;
}

/* RoCEv2 congestion management: drivers that implement it expose its
 * switches under the netdev's ecn/ directory (mlx5: ecn/roce_np, roce_rp). */
static bool has_rcm(const char *netdev)
{
	char path[PATH_MAX], val[16];
	if (!netdev[0])
		return false;
	snprintf(path, sizeof path, "/sys/class/net/%s/ecn/roce_np/enable/3", netdev);
	return read_sysfs(path, val, sizeof val) == 0 && strcmp(val, "1") == 0;
}

static int ib_query_port(struct backend *be, unsigned port, struct be_port_attr *out,
			 struct be_error *err);
static int ib_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max,
			unsigned *n, struct be_error *err);

static unsigned probe_caps(struct ib_backend *ib)
{
	unsigned caps = 0;
	struct ibv_pd *pd = ibv_alloc_pd(ib->ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ib->ctx, 2, NULL, NULL, 0) : NULL;
	if (cq) {
		if (can_create_qp(pd, cq, IBV_QPT_RC))
			caps |= BE_CAP_RC;
		if (can_create_qp(pd, cq, IBV_QPT_UC))
			caps |= BE_CAP_UC;
		if (can_create_qp(pd, cq, IBV_QPT_UD))
			caps |= BE_CAP_UD;
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);

	if (ib->attr.atomic_cap != IBV_ATOMIC_NONE)
		caps |= BE_CAP_ATOMIC;
	if (ib->attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS)
		caps |= BE_CAP_SEND_WITH_INV;

	for (unsigned port = 1; port <= ib->attr.phys_port_cnt; port++) {
		struct be_port_attr pa;
		if (ib_query_port(&ib->base, port, &pa, NULL) != 0)
			continue;
		if (has_rcm(pa.netdev))
			caps |= BE_CAP_RCM;
		struct be_gid *gids = g_new(struct be_gid, pa.gid_tbl_len ? pa.gid_tbl_len : 1);
		unsigned n = 0;
		if (ib_list_gids(&ib->base, port, gids, pa.gid_tbl_len, &n, NULL) == 0)
			for (unsigned i = 0; i < n; i++) {
				/* A RoCE v1 GID makes the port dual-mode (A17.8). */
				if (gids[i].type == BE_GID_ROCE_V1)
					caps |= BE_CAP_ROCEV1;
				if (gids[i].type != BE_GID_ROCE_V2)
					continue;
				caps |= roce_gid_is_ipv4(gids[i].gid) ? BE_CAP_IPV4 : BE_CAP_IPV6;
			}
		g_free(gids);
	}
	return caps;
}

static int ib_query_device(struct backend *be, struct be_device_attr *out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	struct ibv_device_attr a;
	if (ibv_query_device(ib->ctx, &a))
		return verb_failed(err, errno, "ibv_query_device");
	memset(out, 0, sizeof *out);
	g_strlcpy(out->name, ib->name, sizeof out->name);
	out->vendor_id = a.vendor_id;
	out->vendor_part_id = a.vendor_part_id;
	g_strlcpy(out->fw_ver, a.fw_ver, sizeof out->fw_ver);
	out->max_qp = (uint32_t)a.max_qp;
	out->max_qp_wr = (uint32_t)a.max_qp_wr;
	out->max_sge = (uint32_t)a.max_sge;
	out->max_mr_size = a.max_mr_size;
	out->max_qp_rd_atom = (uint32_t)a.max_qp_rd_atom;
	out->max_qp_init_rd_atom = (uint32_t)a.max_qp_init_rd_atom;
	out->atomic_cap = a.atomic_cap == IBV_ATOMIC_HCA	 ? BE_ATOMIC_HCA
			  : a.atomic_cap == IBV_ATOMIC_GLOB ? BE_ATOMIC_GLOB
							    : BE_ATOMIC_NONE;
	out->caps = ib->caps;
	return 0;
}

/* The netdev behind a port: the one its GID 0 belongs to (sysfs), which is
 * what `rdma link` shows. */
static void port_netdev(struct ib_backend *ib, unsigned port, char *out, size_t len)
{
	char path[PATH_MAX];
	out[0] = '\0';
	snprintf(path, sizeof path, SYSFS_IB "/%s/ports/%u/gid_attrs/ndevs/0", ib->name, port);
	if (read_sysfs(path, out, len) != 0)
		out[0] = '\0';
}

static int ib_query_port(struct backend *be, unsigned port, struct be_port_attr *out,
			 struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (check_port(ib, port, err))
		return -1;
	struct ibv_port_attr pa;
	if (ibv_query_port(ib->ctx, (uint8_t)port, &pa))
		return verb_failed(err, errno, "ibv_query_port");
	memset(out, 0, sizeof *out);
	switch (pa.state) {
	case IBV_PORT_INIT:
		out->state = BE_PORT_INIT;
		break;
	case IBV_PORT_ARMED:
		out->state = BE_PORT_ARMED;
		break;
	case IBV_PORT_ACTIVE:
	case IBV_PORT_ACTIVE_DEFER:
		out->state = BE_PORT_ACTIVE;
		break;
	default:
		out->state = BE_PORT_DOWN;
		break;
	}
	out->active_mtu = mtu_bytes(pa.active_mtu);
	out->max_mtu = mtu_bytes(pa.max_mtu);
	out->gid_tbl_len = pa.gid_tbl_len > 0 ? (unsigned)pa.gid_tbl_len : 0;
	port_netdev(ib, port, out->netdev, sizeof out->netdev);
	return 0;
}

static int ib_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max,
			unsigned *n, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	*n = 0;
	if (check_port(ib, port, err))
		return -1;
	/* The table query returns the valid entries of every port. */
	size_t total = 0;
	for (unsigned p = 1; p <= ib->attr.phys_port_cnt; p++) {
		struct ibv_port_attr pa;
		if (ibv_query_port(ib->ctx, (uint8_t)p, &pa))
			return verb_failed(err, errno, "ibv_query_port");
		total += pa.gid_tbl_len > 0 ? (size_t)pa.gid_tbl_len : 0;
	}
	if (total == 0)
		return 0;
	struct ibv_gid_entry *entries = g_new0(struct ibv_gid_entry, total);
	ssize_t got = ibv_query_gid_table(ib->ctx, entries, total, 0);
	if (got < 0) {
		int e = (int)-got;
		g_free(entries);
		return verb_failed(err, e, "ibv_query_gid_table");
	}
	for (ssize_t i = 0; i < got && *n < max; i++) {
		if (entries[i].port_num != port)
			continue;
		struct be_gid *g = &out[(*n)++];
		g->index = entries[i].gid_index;
		memcpy(g->gid, entries[i].gid.raw, 16);
		g->type = entries[i].gid_type == IBV_GID_TYPE_ROCE_V2	? BE_GID_ROCE_V2
			  : entries[i].gid_type == IBV_GID_TYPE_ROCE_V1 ? BE_GID_ROCE_V1
									: BE_GID_IB;
	}
	g_free(entries);
	return 0;
}

/* ---- PD, CQ, MR ---- */

static int ib_alloc_pd(struct backend *be, struct be_pd **out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	struct ibv_pd *pd = ibv_alloc_pd(ib->ctx);
	if (!pd)
		return verb_failed(err, errno, "ibv_alloc_pd");
	struct be_pd *p = g_new0(struct be_pd, 1);
	p->be = ib;
	p->pd = pd;
	*out = p;
	return 0;
}

static int ib_dealloc_pd(struct be_pd *pd, struct be_error *err)
{
	int e = ibv_dealloc_pd(pd->pd);
	if (e)
		return verb_failed(err, e, "ibv_dealloc_pd");
	g_free(pd);
	return 0;
}

static int ib_create_cq(struct backend *be, unsigned cqe, struct be_cq **out, struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (cqe < 1 || cqe > (unsigned)ib->attr.max_cqe)
		return be_error_set(err, BE_BAD_REQUEST, "cqe %u: %s takes 1..%d", cqe, ib->name,
				    ib->attr.max_cqe);
	struct ibv_cq *cq = ibv_create_cq(ib->ctx, (int)cqe, NULL, NULL, 0);
	if (!cq) {
		char what[64];
		snprintf(what, sizeof what, "ibv_create_cq (%u entries)", cqe);
		return verb_failed(err, errno, what);
	}
	struct be_cq *c = g_new0(struct be_cq, 1);
	c->be = ib;
	c->cq = cq;
	*out = c;
	return 0;
}

static int ib_destroy_cq(struct be_cq *cq, struct be_error *err)
{
	int e = ibv_destroy_cq(cq->cq);
	if (e)
		return verb_failed(err, e, "ibv_destroy_cq");
	g_free(cq);
	return 0;
}

static int ib_reg_mr(struct be_pd *pd, uint64_t length, unsigned access, uint8_t fill,
		     struct be_mr **out, struct be_error *err)
{
	struct ib_backend *ib = pd->be;
	if (length == 0)
		return be_error_set(err, BE_BAD_REQUEST, "length 0: an MR needs at least one byte");
	if (length > ib->attr.max_mr_size)
		return be_error_set(err, BE_BAD_REQUEST, "length %" PRIu64 ": %s registers at most %" PRIu64
				    " bytes", length, ib->name, (uint64_t)ib->attr.max_mr_size);
	long page = sysconf(_SC_PAGESIZE);
	size_t map_len = (size_t)((length + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page);
	void *buf = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return verb_failed(err, errno, "mmap for the MR's memory");
	memset(buf, fill, length);
	struct ibv_mr *mr = ibv_reg_mr(pd->pd, buf, length, (int)access_to_ibv(access));
	if (!mr) {
		int e = errno;
		munmap(buf, map_len);
		char what[96];
		snprintf(what, sizeof what, "ibv_reg_mr (%" PRIu64 " bytes, access 0x%x)", length,
			 access);
		return verb_failed(err, e, what);
	}
	struct be_mr *m = g_new0(struct be_mr, 1);
	m->be = ib;
	m->mr = mr;
	m->buf = buf;
	m->map_len = map_len;
	m->length = length;
	*out = m;
	return 0;
}

static int ib_dereg_mr(struct be_mr *mr, struct be_error *err)
{
	int e = ibv_dereg_mr(mr->mr);
	if (e)
		return verb_failed(err, e, "ibv_dereg_mr");
	munmap(mr->buf, mr->map_len); /* safe: see the comment at the top */
	g_free(mr);
	return 0;
}

static void ib_mr_info(struct be_mr *mr, struct be_mr_info *out)
{
	out->buf = mr->buf;
	out->length = mr->length;
	out->addr = (uint64_t)(uintptr_t)mr->buf;
	out->lkey = mr->mr->lkey;
	out->rkey = mr->mr->rkey;
}

/* ---- QP ---- */

static int ib_create_qp(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out,
			uint32_t *qpn, struct be_error *err)
{
	if (init->type != BE_QPT_RC && init->type != BE_QPT_UC && init->type != BE_QPT_UD)
		return be_error_set(err, BE_BAD_REQUEST, "QP type %d: RC, UC or UD", (int)init->type);
	if (!(pd->be->caps & (init->type == BE_QPT_RC	? BE_CAP_RC
			      : init->type == BE_QPT_UC ? BE_CAP_UC
							: BE_CAP_UD)))
		return be_error_set(err, BE_UNSUPPORTED, "%s does not create %s QPs", pd->be->name,
				    type_name(init->type));
	struct ibv_qp_init_attr ia = {
		.send_cq = init->send_cq->cq,
		.recv_cq = init->recv_cq->cq,
		.cap = {
			.max_send_wr = init->max_send_wr,
			.max_recv_wr = init->max_recv_wr,
			.max_send_sge = init->max_send_sge,
			.max_recv_sge = init->max_recv_sge,
		},
		.qp_type = (enum ibv_qp_type)init->type,
		.sq_sig_all = init->sq_sig_all,
	};
	struct ibv_qp *qp = ibv_create_qp(pd->pd, &ia);
	if (!qp) {
		char what[128];
		snprintf(what, sizeof what, "ibv_create_qp (%s, %u/%u WRs, %u/%u SGEs)",
			 type_name(init->type), init->max_send_wr, init->max_recv_wr,
			 init->max_send_sge, init->max_recv_sge);
		return verb_failed(err, errno, what);
	}
	struct be_qp *q = g_new0(struct be_qp, 1);
	q->be = pd->be;
	q->qp = qp;
	q->type = init->type;
	/* ibv_create_qp writes back what the device actually gave. */
	q->max_send_sge = ia.cap.max_send_sge;
	q->max_recv_sge = ia.cap.max_recv_sge;
	q->state_set = IBV_QPS_RESET;
	*qpn = qp->qp_num;
	*out = q;
	return 0;
}

/* The protocol's name of each BE_QPA_* bit, for messages. */
static const struct {
	unsigned be;
	int ibv;
	const char *name;
} qp_attrs[] = {
	{ BE_QPA_STATE, IBV_QP_STATE, "state" },
	{ BE_QPA_PORT, IBV_QP_PORT, "port" },
	{ BE_QPA_PKEY_INDEX, IBV_QP_PKEY_INDEX, "pkey_index" },
	{ BE_QPA_QKEY, IBV_QP_QKEY, "qkey" },
	{ BE_QPA_ACCESS, IBV_QP_ACCESS_FLAGS, "access" },
	{ BE_QPA_PATH_MTU, IBV_QP_PATH_MTU, "path_mtu" },
	{ BE_QPA_DEST_QPN, IBV_QP_DEST_QPN, "dest_qpn" },
	{ BE_QPA_RQ_PSN, IBV_QP_RQ_PSN, "rq_psn" },
	{ BE_QPA_SQ_PSN, IBV_QP_SQ_PSN, "sq_psn" },
	{ BE_QPA_AV, IBV_QP_AV, "dgid" },
	{ BE_QPA_MAX_RD_ATOMIC, IBV_QP_MAX_QP_RD_ATOMIC, "max_rd_atomic" },
	{ BE_QPA_MAX_DEST_RD_ATOMIC, IBV_QP_MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic" },
	{ BE_QPA_MIN_RNR_TIMER, IBV_QP_MIN_RNR_TIMER, "min_rnr_timer" },
	{ BE_QPA_TIMEOUT, IBV_QP_TIMEOUT, "timeout" },
	{ BE_QPA_RETRY_CNT, IBV_QP_RETRY_CNT, "retry_cnt" },
	{ BE_QPA_RNR_RETRY, IBV_QP_RNR_RETRY, "rnr_retry" },
};

/* The attributes a transition requires (IBA 11.2.4.2, and ibv_modify_qp(3)). */
static unsigned required_attrs(enum be_qp_type type, enum ibv_qp_state from, enum be_qp_state to)
{
	if (from == IBV_QPS_RESET && to == BE_QPS_INIT)
		return BE_QPA_STATE | BE_QPA_PKEY_INDEX | BE_QPA_PORT |
		       (type == BE_QPT_UD ? BE_QPA_QKEY : BE_QPA_ACCESS);
	if (from == IBV_QPS_INIT && to == BE_QPS_RTR) {
		if (type == BE_QPT_UD)
			return BE_QPA_STATE;
		unsigned m = BE_QPA_STATE | BE_QPA_AV | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN |
			     BE_QPA_RQ_PSN;
		if (type == BE_QPT_RC)
			m |= BE_QPA_MAX_DEST_RD_ATOMIC | BE_QPA_MIN_RNR_TIMER;
		return m;
	}
	if (from == IBV_QPS_RTR && to == BE_QPS_RTS) {
		unsigned m = BE_QPA_STATE | BE_QPA_SQ_PSN;
		if (type == BE_QPT_RC)
			m |= BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT | BE_QPA_RNR_RETRY |
			     BE_QPA_MAX_RD_ATOMIC;
		return m;
	}
	return 0;
}

static int current_state(struct be_qp *qp, enum ibv_qp_state *state, struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp->qp, &a, IBV_QP_STATE, &ia))
		return verb_failed(err, errno, "ibv_query_qp");
	*state = a.qp_state;
	return 0;
}

static int ib_modify_qp(struct be_qp *qp, const struct be_qp_attr *attr, struct be_error *err)
{
	struct ibv_qp_attr a;
	memset(&a, 0, sizeof a);
	int mask = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(qp_attrs); i++)
		if (attr->mask & qp_attrs[i].be)
			mask |= qp_attrs[i].ibv;
	if (attr->mask & ~(unsigned)(BE_QPA_RNR_RETRY * 2 - 1))
		return be_error_set(err, BE_BAD_REQUEST, "unknown attribute bits 0x%x",
				    attr->mask & ~(unsigned)(BE_QPA_RNR_RETRY * 2 - 1));

	enum ibv_qp_state from = IBV_QPS_RESET;
	if (current_state(qp, &from, err))
		return -1;
	if (attr->mask & BE_QPA_STATE) {
		if ((unsigned)attr->state > BE_QPS_ERR)
			return be_error_set(err, BE_BAD_REQUEST, "state %d: no such QP state",
					    (int)attr->state);
		unsigned missing = required_attrs(qp->type, from, attr->state) & ~attr->mask;
		if (missing) {
			char names[256] = ""; /* names from qp_attrs: they all fit */
			for (size_t i = 0; i < G_N_ELEMENTS(qp_attrs); i++)
				if (missing & qp_attrs[i].be)
					text_appendf(names, sizeof names, "%s%s", names[0] ? ", " : "", qp_attrs[i].name);
			return be_error_set(err, BE_BAD_REQUEST, "%s QP %s -> %s needs %s",
					    type_name(qp->type), state_name(from),
					    state_name((enum ibv_qp_state)attr->state), names);
		}
		a.qp_state = (enum ibv_qp_state)attr->state;
	}
	a.port_num = attr->port;
	a.pkey_index = attr->pkey_index;
	a.qkey = attr->qkey;
	a.qp_access_flags = access_to_ibv(attr->access);
	if ((attr->mask & BE_QPA_PATH_MTU) && mtu_enum(attr->path_mtu, &a.path_mtu))
		return be_error_set(err, BE_BAD_REQUEST,
				    "path_mtu %u: 256, 512, 1024, 2048 or 4096", attr->path_mtu);
	a.dest_qp_num = attr->dest_qpn;
	a.rq_psn = attr->rq_psn;
	a.sq_psn = attr->sq_psn;
	if (attr->mask & BE_QPA_AV)
		av_to_ah_attr(&attr->av, (attr->mask & BE_QPA_PORT) ? attr->port : 1, &a.ah_attr);
	a.max_rd_atomic = attr->max_rd_atomic;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;

	int e = ibv_modify_qp(qp->qp, &a, mask);
	if (e) {
		char what[96];
		if (attr->mask & BE_QPA_STATE)
			snprintf(what, sizeof what, "ibv_modify_qp (%s QP %s -> %s)",
				 type_name(qp->type), state_name(from), state_name(a.qp_state));
		else
			snprintf(what, sizeof what, "ibv_modify_qp (%s QP in %s)",
				 type_name(qp->type), state_name(from));
		return verb_failed(err, e, what);
	}
	if (attr->mask & BE_QPA_STATE)
		qp->state_set = a.qp_state;
	return 0;
}

static int ib_query_qp(struct be_qp *qp, struct be_qp_attr *out, struct be_error *err)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
		   IBV_QP_ACCESS_FLAGS | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_SQ_PSN | IBV_QP_AV | IBV_QP_MAX_QP_RD_ATOMIC |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY;
	memset(&a, 0, sizeof a);
	if (ibv_query_qp(qp->qp, &a, mask, &ia))
		return verb_failed(err, errno, "ibv_query_qp");
	memset(out, 0, sizeof *out);
	out->state = (enum be_qp_state)a.qp_state;
	out->port = a.port_num;
	out->pkey_index = a.pkey_index;
	out->mask = BE_QPA_STATE | BE_QPA_PORT | BE_QPA_PKEY_INDEX | BE_QPA_SQ_PSN;
	out->sq_psn = a.sq_psn;
	if (qp->type == BE_QPT_UD) {
		out->qkey = a.qkey;
		out->mask |= BE_QPA_QKEY;
		return 0;
	}
	out->access = a.qp_access_flags & (BE_ACCESS_LOCAL_WRITE | BE_ACCESS_REMOTE_WRITE |
					   BE_ACCESS_REMOTE_READ | BE_ACCESS_REMOTE_ATOMIC);
	out->path_mtu = mtu_bytes(a.path_mtu);
	out->dest_qpn = a.dest_qp_num;
	out->rq_psn = a.rq_psn;
	ah_attr_to_av(&a.ah_attr, &out->av);
	out->mask |= BE_QPA_ACCESS | BE_QPA_PATH_MTU | BE_QPA_DEST_QPN | BE_QPA_RQ_PSN | BE_QPA_AV;
	if (qp->type == BE_QPT_RC) {
		out->max_rd_atomic = a.max_rd_atomic;
		out->max_dest_rd_atomic = a.max_dest_rd_atomic;
		out->min_rnr_timer = a.min_rnr_timer;
		out->timeout = a.timeout;
		out->retry_cnt = a.retry_cnt;
		out->rnr_retry = a.rnr_retry;
		out->mask |= BE_QPA_MAX_RD_ATOMIC | BE_QPA_MAX_DEST_RD_ATOMIC |
			     BE_QPA_MIN_RNR_TIMER | BE_QPA_TIMEOUT | BE_QPA_RETRY_CNT |
			     BE_QPA_RNR_RETRY;
	}
	return 0;
}

static void cm_release(struct be_qp *qp);

static int ib_destroy_qp(struct be_qp *qp, struct be_error *err)
{
	cm_release(qp);
	int e = ibv_destroy_qp(qp->qp);
	if (e)
		return verb_failed(err, e, "ibv_destroy_qp");
	g_free(qp);
	return 0;
}


/* ---- The connection manager (librdmacm) ---- */

#ifdef ROCE_AGENT_HAVE_RDMACM
struct ib_listen {
	struct be_qp *qp;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id, *conn_id;
	guint watch;
};

/* The kernel CM's attributes for one transition of the QP (passive side). */
static int cm_step(struct be_qp *qp, struct rdma_cm_id *id, enum ibv_qp_state to)
{
	struct ibv_qp_attr a;
	int mask = 0;
	memset(&a, 0, sizeof a);
	a.qp_state = to;
	if (rdma_init_qp_attr(id, &a, &mask))
		return errno;
	int e = ibv_modify_qp(qp->qp, &a, mask);
	if (!e)
		qp->state_set = to;
	return e;
}

/* A connect request: the session's QP through INIT, RTR and RTS with
 * the REQ's parameters (as librdmacm does for its own QPs before the
 * REP), then the accept, which makes the kernel CM send the REP. */
static bool cm_accept(struct ib_listen *l, struct rdma_cm_id *id, const struct rdma_conn_param *req)
{
	struct be_qp *qp = l->qp;
	const char *mine = ibv_get_device_name(qp->be->ctx->device);
	if (l->conn_id || !id->verbs || strcmp(ibv_get_device_name(id->verbs->device), mine) != 0) {
		g_warning("cm: refusing a connect request (%s)", l->conn_id ? "the QP is connected already"
									 : "it arrived on another device");
		return false;
	}
	int e;
	if ((e = cm_step(qp, id, IBV_QPS_INIT)) || (e = cm_step(qp, id, IBV_QPS_RTR)) ||
	    (e = cm_step(qp, id, IBV_QPS_RTS))) {
		g_warning("cm: bringing QP 0x%x up for a connect request: %s", qp->qp->qp_num, strerror(e));
		return false;
	}
	struct rdma_conn_param p;
	memset(&p, 0, sizeof p);
	p.responder_resources = req->responder_resources;
	p.initiator_depth = req->initiator_depth;
	p.rnr_retry_count = 7;
	p.qp_num = qp->qp->qp_num;
	if (rdma_accept(id, &p)) {
		g_warning("cm: rdma_accept: %s", strerror(errno));
		return false;
	}
	l->conn_id = id;
	return true;
}

static gboolean on_cm_event(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	struct ib_listen *l = data;
	struct rdma_cm_event *ev;
	while (rdma_get_cm_event(l->ch, &ev) == 0) {
		struct rdma_cm_id *id = ev->id;
		bool drop_id = false;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!cm_accept(l, id, &ev->param.conn)) {
				rdma_reject(id, NULL, 0);
				drop_id = true;
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* The DREQ: the DREP goes out, the QP to ERR (the
			 * kernel does not touch a QP it did not create). */
			if (id == l->conn_id) {
				rdma_disconnect(id);
				struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
				if (ibv_modify_qp(l->qp->qp, &a, IBV_QP_STATE) == 0)
					l->qp->state_set = IBV_QPS_ERR;
			}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		if (drop_id)
			rdma_destroy_id(id);
	}
	return G_SOURCE_CONTINUE;
}

static void cm_release(struct be_qp *qp)
{
	struct ib_listen *l = qp->cm;
	if (!l)
		return;
	if (l->watch)
		g_source_remove(l->watch);
	if (l->conn_id)
		rdma_destroy_id(l->conn_id);
	if (l->listen_id)
		rdma_destroy_id(l->listen_id);
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
	g_free(l);
	qp->cm = NULL;
}

static int ib_cm_listen(struct be_qp *qp, uint16_t port, struct be_error *err)
{
	enum ibv_qp_state st;
	if (qp->type != BE_QPT_RC)
		return be_error_set(err, BE_BAD_REQUEST, "only an RC QP can accept a connection");
	if (current_state(qp, &st, err))
		return -1;
	if (st != IBV_QPS_RESET || qp->cm)
		return be_error_set(err, BE_INVALID_STATE, "the QP must be in RESET and not yet connected");
	struct ib_listen *l = g_new0(struct ib_listen, 1);
	l->qp = qp;
	qp->cm = l;
	const char *what = "rdma_create_event_channel";
	if (!(l->ch = rdma_create_event_channel()))
		goto fail;
	int fl = fcntl(l->ch->fd, F_GETFL);
	what = "fcntl";
	if (fl < 0 || fcntl(l->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto fail;
	what = "rdma_create_id";
	if (rdma_create_id(l->ch, &l->listen_id, l, RDMA_PS_TCP))
		goto fail;
	/* The IPv6 wildcard takes IPv4 connections too (unless bindv6only). */
	struct sockaddr_in6 any = { .sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT };
	what = "rdma_bind_addr";
	if (rdma_bind_addr(l->listen_id, (struct sockaddr *)&any))
		goto fail;
	what = "rdma_listen";
	if (rdma_listen(l->listen_id, 4))
		goto fail;
	l->watch = g_unix_fd_add(l->ch->fd, G_IO_IN, on_cm_event, l);
	return 0;
fail:;
	int e = errno;
	cm_release(qp);
	if (e == EADDRINUSE)
		return be_error_set(err, BE_INVALID_STATE, "port %u has a listener already (%s)", port, what);
	if (e == ENODEV || e == ENOENT)
		return be_error_set(err, BE_UNSUPPORTED, "%s: %s (no rdma_cm: is the rdma_ucm module loaded?)", what,
				    strerror(e));
	return verb_failed(err, e, what);
}
#else
static void cm_release(struct be_qp *qp)
{
	(void)qp;
}
#endif

/* ---- AH ---- */

static int ib_create_ah(struct be_pd *pd, const struct be_av *av, struct be_ah **out,
			struct be_error *err)
{
	struct ibv_ah_attr attr;
	av_to_ah_attr(av, 1, &attr);
	if (check_port(pd->be, attr.port_num, err))
		return -1;
	struct ibv_ah *ah = ibv_create_ah(pd->pd, &attr);
	if (!ah) {
		char what[128], gid[INET6_ADDRSTRLEN] = "?";
		inet_ntop(AF_INET6, av->dgid, gid, sizeof gid);
		snprintf(what, sizeof what, "ibv_create_ah (sgid_index %u, dgid %s)", av->sgid_index,
			 gid);
		return verb_failed(err, errno, what);
	}
	struct be_ah *a = g_new0(struct be_ah, 1);
	a->ah = ah;
	*out = a;
	return 0;
}

static int ib_destroy_ah(struct be_ah *ah, struct be_error *err)
{
	int e = ibv_destroy_ah(ah->ah);
	if (e)
		return verb_failed(err, e, "ibv_destroy_ah");
	g_free(ah);
	return 0;
}

/* ---- Posting and completions ---- */

static void fill_sges(struct ibv_sge *out, const struct be_sge *in, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		out[i].addr = (uint64_t)(uintptr_t)(in[i].mr->buf + in[i].offset);
		out[i].length = in[i].length;
		out[i].lkey = in[i].mr->mr->lkey;
	}
}

/* Whether the QP's state takes a post (IBA 10.8.2: a send needs RTS or a
 * later state, a receive anything but RESET). The state we last set says so
 * without a system call, except when the device may since have moved the QP
 * to ERR, where posting is allowed again (the request completes flushed). */
static int check_post_state(struct be_qp *qp, bool send, struct be_error *err)
{
	bool too_early = send ? (qp->state_set == IBV_QPS_RESET || qp->state_set == IBV_QPS_INIT ||
				 qp->state_set == IBV_QPS_RTR)
			      : qp->state_set == IBV_QPS_RESET;
	if (!too_early)
		return 0;
	enum ibv_qp_state s = IBV_QPS_RESET;
	if (current_state(qp, &s, err))
		return -1;
	if (s == IBV_QPS_ERR || s == IBV_QPS_SQE || (send && s == IBV_QPS_RTS))
		return 0;
	if (!send && s != IBV_QPS_RESET)
		return 0;
	return be_error_set(err, BE_INVALID_STATE, "%s: the QP is in %s",
			    send ? "post_send" : "post_recv", state_name(s));
}

static int post_failed(bool send, int e, struct be_error *err)
{
	if (e == ENOMEM)
		return be_error_set(err, BE_RESOURCE_LIMIT, "%s: the %s queue is full",
				    send ? "ibv_post_send" : "ibv_post_recv",
				    send ? "send" : "receive");
	return verb_failed(err, e, send ? "ibv_post_send" : "ibv_post_recv");
}

static int ib_post_recv(struct be_qp *qp, const struct be_recv_wr *wr, struct be_error *err)
{
	if (wr->num_sge > qp->max_recv_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs: the QP takes at most %u per receive",
				    wr->num_sge, qp->max_recv_sge);
	if (check_post_state(qp, false, err))
		return -1;
	struct ibv_sge stack[MAX_SGE_ON_STACK];
	struct ibv_sge *sge = wr->num_sge <= MAX_SGE_ON_STACK ? stack : g_new(struct ibv_sge, wr->num_sge);
	fill_sges(sge, wr->sge, wr->num_sge);
	struct ibv_recv_wr rwr = { .wr_id = wr->wr_id, .sg_list = sge, .num_sge = (int)wr->num_sge };
	struct ibv_recv_wr *bad = NULL;
	int e = ibv_post_recv(qp->qp, &rwr, &bad);
	if (sge != stack)
		g_free(sge);
	return e ? post_failed(false, e, err) : 0;
}

static bool is_atomic(enum be_wr_opcode op)
{
	return op == BE_WR_ATOMIC_CMP_AND_SWP || op == BE_WR_ATOMIC_FETCH_AND_ADD;
}

static int ib_post_send(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err)
{
	switch (wr->opcode) {
	case BE_WR_SEND:
	case BE_WR_SEND_WITH_IMM:
		break;
	case BE_WR_SEND_WITH_INV:
		if (!(qp->be->caps & BE_CAP_SEND_WITH_INV))
			return be_error_set(err, BE_UNSUPPORTED, "%s does not send with invalidate",
					    qp->be->name);
		break;
	case BE_WR_RDMA_WRITE:
	case BE_WR_RDMA_WRITE_WITH_IMM:
	case BE_WR_RDMA_READ:
	case BE_WR_ATOMIC_CMP_AND_SWP:
	case BE_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type == BE_QPT_UD)
			return be_error_set(err, BE_BAD_REQUEST, "a UD QP sends only SEND");
		if (qp->type == BE_QPT_UC && (wr->opcode == BE_WR_RDMA_READ || is_atomic(wr->opcode)))
			return be_error_set(err, BE_BAD_REQUEST, "a UC QP has no READ or atomics");
		if (is_atomic(wr->opcode) && !(qp->be->caps & BE_CAP_ATOMIC))
			return be_error_set(err, BE_UNSUPPORTED, "%s has no atomics", qp->be->name);
		break;
	default:
		return be_error_set(err, BE_BAD_REQUEST, "opcode %d: no such work request",
				    (int)wr->opcode);
	}
	if (qp->type == BE_QPT_UD && !wr->ah)
		return be_error_set(err, BE_BAD_REQUEST, "a UD send needs an ah");
	if (wr->num_sge > qp->max_send_sge)
		return be_error_set(err, BE_BAD_REQUEST, "%u SGEs: the QP takes at most %u per send",
				    wr->num_sge, qp->max_send_sge);
	if (check_post_state(qp, true, err))
		return -1;

	struct ibv_sge stack[MAX_SGE_ON_STACK];
	struct ibv_sge *sge = wr->num_sge <= MAX_SGE_ON_STACK ? stack : g_new(struct ibv_sge, wr->num_sge);
	fill_sges(sge, wr->sge, wr->num_sge);
	struct ibv_send_wr swr;
	memset(&swr, 0, sizeof swr);
	swr.wr_id = wr->wr_id;
	swr.sg_list = sge;
	swr.num_sge = (int)wr->num_sge;
	swr.opcode = (enum ibv_wr_opcode)wr->opcode;
	swr.send_flags = (wr->signaled ? IBV_SEND_SIGNALED : 0) |
			 (wr->solicited ? IBV_SEND_SOLICITED : 0);
	if (wr->opcode == BE_WR_SEND_WITH_IMM || wr->opcode == BE_WR_RDMA_WRITE_WITH_IMM)
		swr.imm_data = htobe32(wr->imm_data);
	if (wr->opcode == BE_WR_SEND_WITH_INV)
		swr.invalidate_rkey = wr->invalidate_rkey;
	if (is_atomic(wr->opcode)) {
		swr.wr.atomic.remote_addr = wr->remote_addr;
		swr.wr.atomic.rkey = wr->rkey;
		swr.wr.atomic.compare_add = wr->compare_add;
		swr.wr.atomic.swap = wr->swap;
	} else if (wr->opcode == BE_WR_RDMA_WRITE || wr->opcode == BE_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == BE_WR_RDMA_READ) {
		swr.wr.rdma.remote_addr = wr->remote_addr;
		swr.wr.rdma.rkey = wr->rkey;
	}
	if (qp->type == BE_QPT_UD) {
		swr.wr.ud.ah = wr->ah->ah;
		swr.wr.ud.remote_qpn = wr->remote_qpn;
		swr.wr.ud.remote_qkey = wr->remote_qkey;
	}
	struct ibv_send_wr *bad = NULL;
	int e = ibv_post_send(qp->qp, &swr, &bad);
	if (sge != stack)
		g_free(sge);
	return e ? post_failed(true, e, err) : 0;
}

static unsigned wc_flags_of(unsigned f)
{
	return ((f & IBV_WC_GRH) ? BE_WC_GRH : 0) | ((f & IBV_WC_WITH_IMM) ? BE_WC_WITH_IMM : 0) |
	       ((f & IBV_WC_WITH_INV) ? BE_WC_WITH_INV : 0);
}

static int ib_poll_cq(struct be_cq *cq, struct be_wc *out, unsigned max, unsigned *n,
		      struct be_error *err)
{
	struct ibv_wc wc[32];
	*n = 0;
	while (*n < max) {
		unsigned want = max - *n < G_N_ELEMENTS(wc) ? max - *n : G_N_ELEMENTS(wc);
		int got = ibv_poll_cq(cq->cq, (int)want, wc);
		if (got < 0)
			return verb_failed(err, -got, "ibv_poll_cq");
		for (int i = 0; i < got; i++) {
			struct be_wc *w = &out[(*n)++];
			memset(w, 0, sizeof *w);
			w->wr_id = wc[i].wr_id;
			w->status = (enum be_wc_status)wc[i].status;
			w->opcode = (enum be_wc_opcode)wc[i].opcode;
			w->byte_len = wc[i].byte_len;
			w->wc_flags = wc_flags_of(wc[i].wc_flags);
			if (wc[i].wc_flags & IBV_WC_WITH_IMM)
				w->imm_data = be32toh(wc[i].imm_data);
			if (wc[i].wc_flags & IBV_WC_WITH_INV)
				w->invalidate_rkey = wc[i].invalidated_rkey;
			w->src_qp = wc[i].src_qp;
			w->qp_num = wc[i].qp_num;
		}
		if ((unsigned)got < want)
			break;
	}
	return 0;
}

/* ---- Counters ---- */

/* Bounds of the wait for fresh hw_counters (wait_counters_fresh). */
enum { COUNTERS_LIFESPAN_MAX_MS = 1000, COUNTERS_TICK_SLACK_MS = 21 };

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reports every integer file of dir not already in seen (a set of names). */
static void read_counter_dir(const char *dir, GHashTable *seen, be_counter_fn fn, void *ctx)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	if (!d)
		return;
	const char *name;
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	while ((name = g_dir_read_name(d)))
		g_ptr_array_add(names, g_strdup(name));
	g_dir_close(d);
	/* In name order, so replies are stable. */
	g_ptr_array_sort(names, by_name);
	for (guint i = 0; i < names->len; i++) {
		const char *n = g_ptr_array_index(names, i);
		char path[PATH_MAX], val[64];
		/* "lifespan" is a setting of the hw_counters directory (how long
		 * the kernel caches values), not a counter. */
		if (g_hash_table_contains(seen, n) || strcmp(n, "lifespan") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, n);
		/* Some counters cannot be read on some devices (EINVAL): skip them. */
		if (read_sysfs(path, val, sizeof val) != 0 || !val[0])
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(val, &end, 10);
		if (errno || *end)
			continue;
		g_hash_table_add(seen, g_strdup(n));
		fn(ctx, n, v);
	}
	g_ptr_array_free(names, TRUE);
}

/* The longest "lifespan" (ms) of the device's and the port's hw_counters
 * directories: 0 when neither has one. */
static unsigned counters_lifespan_ms(const struct ib_backend *ib, unsigned port)
{
	unsigned longest = 0;
	char path[PATH_MAX], val[32];
	for (int device_wide = 0; device_wide < 2; device_wide++) {
		if (device_wide)
			snprintf(path, sizeof path, SYSFS_IB "/%s/hw_counters/lifespan", ib->name);
		else
			snprintf(path, sizeof path, SYSFS_IB "/%s/ports/%u/hw_counters/lifespan", ib->name, port);
		char *end;
		if (read_sysfs(path, val, sizeof val) != 0)
			continue;
		unsigned long ms = strtoul(val, &end, 10);
		if (*end == '\0' && ms > longest)
			longest = ms > COUNTERS_LIFESPAN_MAX_MS ? COUNTERS_LIFESPAN_MAX_MS : (unsigned)ms;
	}
	return longest;
}

/* The kernel answers a hw_counters read from a cache for "lifespan" ms
 * (rxe: 10) after the read that filled it, counted in jiffies. A snapshot
 * taken sooner after the previous one would repeat it and hide what the
 * case did, so wait until the cache has expired: the lifespan rounded up
 * to whole jiffies, plus the jiffy the previous read fell in, is at most
 * lifespan + 2 ticks, 20 ms at the slowest tick (HZ=100). */
static void wait_counters_fresh(struct ib_backend *ib, unsigned port)
{
	unsigned lifespan = counters_lifespan_ms(ib, port);
	if (!lifespan || !ib->counters_read_us)
		return;
	gint64 due = ib->counters_read_us + (gint64)(lifespan + COUNTERS_TICK_SLACK_MS) * 1000;
	gint64 now = g_get_monotonic_time();
	if (now < due)
		g_usleep((gulong)(due - now));
}

static int ib_read_counters(struct backend *be, unsigned port, be_counter_fn fn, void *ctx,
			    struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	if (check_port(ib, port, err))
		return -1;
	wait_counters_fresh(ib, port);
	char dir[PATH_MAX];
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* The driver's own counters first (rxe: duplicate_request, rcvd_seq_err,
	 * ...), then the port's IB counters, then device-wide ones. */
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/ports/%u/hw_counters", ib->name, port);
	read_counter_dir(dir, seen, fn, ctx);
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/ports/%u/counters", ib->name, port);
	read_counter_dir(dir, seen, fn, ctx);
	snprintf(dir, sizeof dir, SYSFS_IB "/%s/hw_counters", ib->name);
	read_counter_dir(dir, seen, fn, ctx);
	g_hash_table_destroy(seen);
	/* Taken after the reads: the cache they filled is at least this new. */
	ib->counters_read_us = g_get_monotonic_time();
	return 0;
}

/* ---- Asynchronous events ---- */

/* Logs the device's asynchronous events (QP fatal, port changes) so that a
 * test run's log shows them; each one is acknowledged at once. */
static gboolean on_async_event(gint fd, GIOCondition cond, gpointer data)
{
	struct ib_backend *ib = data;
	(void)fd;
	(void)cond;
	for (int i = 0; i < 64; i++) { /* bounded: the loop gets control back */
		struct ibv_async_event ev;
		if (ibv_get_async_event(ib->ctx, &ev))
			break; /* EAGAIN: drained */
		switch (ev.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_COMM_EST:
		case IBV_EVENT_SQ_DRAINED:
		case IBV_EVENT_PATH_MIG:
		case IBV_EVENT_PATH_MIG_ERR:
		case IBV_EVENT_QP_LAST_WQE_REACHED:
			g_message("%s: %s on QPN 0x%06x", ib->name, ibv_event_type_str(ev.event_type),
				  ev.element.qp->qp_num);
			break;
		case IBV_EVENT_CQ_ERR:
			g_message("%s: %s", ib->name, ibv_event_type_str(ev.event_type));
			break;
		default:
			g_message("%s: %s (port %d)", ib->name, ibv_event_type_str(ev.event_type),
				  ev.element.port_num);
			break;
		}
		ibv_ack_async_event(&ev);
	}
	return G_SOURCE_CONTINUE;
}

/* ---- Open and close ---- */

static void ib_close(struct backend *be)
{
	struct ib_backend *ib = ib_of(be);
	if (ib->async_watch)
		g_source_remove(ib->async_watch);
	ibv_close_device(ib->ctx);
	g_free(ib);
}

static const struct backend_ops ib_ops = {
	.name = "ibverbs",
	.close = ib_close,
	.query_device = ib_query_device,
	.query_port = ib_query_port,
	.list_gids = ib_list_gids,
	.alloc_pd = ib_alloc_pd,
	.dealloc_pd = ib_dealloc_pd,
	.create_cq = ib_create_cq,
	.destroy_cq = ib_destroy_cq,
	.reg_mr = ib_reg_mr,
	.dereg_mr = ib_dereg_mr,
	.mr_info = ib_mr_info,
	.create_qp = ib_create_qp,
	.modify_qp = ib_modify_qp,
	.query_qp = ib_query_qp,
	.destroy_qp = ib_destroy_qp,
	.create_ah = ib_create_ah,
	.destroy_ah = ib_destroy_ah,
	.post_recv = ib_post_recv,
	.post_send = ib_post_send,
	.poll_cq = ib_poll_cq,
	.read_counters = ib_read_counters,
#ifdef ROCE_AGENT_HAVE_RDMACM
	.cm_listen = ib_cm_listen,
#endif
};

static struct backend *ib_open(const struct backend_options *opts, char *err, size_t errlen)
{
	int num = 0;
	struct ibv_device **list = ibv_get_device_list(&num);
	if (!list) {
		text_printf(err, errlen, "ibv_get_device_list: %s (is libibverbs set up?)",
			 strerror(errno));
		return NULL;
	}
	struct ibv_device *dev = NULL;
	GString *names = g_string_new(NULL);
	for (int i = 0; i < num; i++) {
		const char *n = ibv_get_device_name(list[i]);
		g_string_append_printf(names, "%s%s", names->len ? ", " : "", n);
		if (!dev && (!opts->device || strcmp(opts->device, n) == 0))
			dev = list[i];
	}
	if (!dev) {
		if (num == 0)
			text_printf(err, errlen, "no RDMA device found (is the driver loaded, e.g. "
					      "'rdma link add rxe0 type rxe netdev eth0', and "
					      "/dev/infiniband there?)");
		else
			text_printf(err, errlen, "no RDMA device '%s' (there are: %s)", opts->device,
				 names->str);
		g_string_free(names, TRUE);
		ibv_free_device_list(list);
		return NULL;
	}
	g_string_free(names, TRUE);

	struct ib_backend *ib = g_new0(struct ib_backend, 1);
	ib->base.ops = &ib_ops;
	g_strlcpy(ib->name, ibv_get_device_name(dev), sizeof ib->name);
	ib->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!ib->ctx) {
		text_printf(err, errlen, "ibv_open_device %s: %s", ib->name, strerror(errno));
		g_free(ib);
		return NULL;
	}
	if (ibv_query_device(ib->ctx, &ib->attr)) {
		text_printf(err, errlen, "ibv_query_device %s: %s", ib->name, strerror(errno));
		ibv_close_device(ib->ctx);
		g_free(ib);
		return NULL;
	}
	ib->caps = probe_caps(ib);

	int fl = fcntl(ib->ctx->async_fd, F_GETFL);
	if (fl >= 0 && fcntl(ib->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) == 0)
		ib->async_watch = g_unix_fd_add(ib->ctx->async_fd, G_IO_IN, on_async_event, ib);
	return &ib->base;
}

static const char *ib_fault_name(struct backend *be)
{
	(void)be;
	return NULL;
}

const struct backend_factory backend_ibverbs_factory = {
	.name = "ibverbs",
	.open = ib_open,
	.fault_name = ib_fault_name,
};
