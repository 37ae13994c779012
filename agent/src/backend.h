/*
 * The backend interface of roce-agent: what the protocol layer asks of a
 * device. Two backends implement it: `soft` (the embedded software DUT,
 * soft/) and `ibverbs` (libibverbs, ibverbs/).
 *
 * Contract, for every backend:
 * - The protocol layer owns handles, sessions, dependency order and bounds
 *   checks. It never destroys a PD that still has MRs, QPs or AHs, nor a CQ
 *   that a QP uses, and it destroys objects in the order QPs, AHs, MRs, CQs,
 *   PDs. Every SGE it passes lies inside its MR (offset + length <= length).
 * - A backend reports failure by returning -1 and filling the be_error
 *   (be_error_set); the code maps to the protocol's error code and the
 *   message is sent to the tester as it stands.
 * - The backend allocates MR memory itself (reg_mr takes a length) and keeps
 *   it alive while any posted work request may still touch it, even after
 *   dereg_mr (free it later, when the QPs are done with it).
 * - Everything runs on the agent's single GLib main loop (the default main
 *   context): a backend that needs I/O or timers adds its sources there and
 *   removes them in close(). No call may block for long: poll_cq never
 *   waits (the protocol layer does the bounded waiting).
 * - Enumerations below use libibverbs' numeric values where libibverbs has
 *   them (QP states, access flags, WC statuses and opcodes), so the ibverbs
 *   backend converts with a cast.
 */
#ifndef ROCE_AGENT_BACKEND_H
#define ROCE_AGENT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors ---- */

enum be_status {
	BE_OK = 0,
	BE_BAD_REQUEST,    /* an attribute value the device cannot take */
	BE_INVALID_STATE,  /* e.g. posting to a QP in RESET, a bad transition */
	BE_RESOURCE_LIMIT, /* the device is out of QPs, CQEs, queue slots */
	BE_UNSUPPORTED,    /* the device lacks the capability */
	BE_DEVICE_ERROR,   /* the device or library failed (errno text) */
};

struct be_error {
	enum be_status code;
	/* The backend's own sentence: a verb, attribute names from tables, a
	 * device name and strerror's text; cut visibly were it ever longer. */
	char message[256];
};

/* Fills err (may be NULL) and returns -1. */
int be_error_set(struct be_error *err, enum be_status code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- Values (libibverbs numbering) ---- */

/* XRC_SEND and XRC_RECV: libibverbs' IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV. */
enum be_qp_type { BE_QPT_RC = 2, BE_QPT_UC = 3, BE_QPT_UD = 4, BE_QPT_XRC_SEND = 9, BE_QPT_XRC_RECV = 10 };

enum be_qp_state {
#define AP_QP_STATE(SYM) BE_QPS_##SYM = AP_QPS_##SYM,
#include "agent_protocol.def"
#undef AP_QP_STATE
};

/* Access flags, WC statuses and opcodes, WR opcodes and capabilities: the
 * agent protocol's (protocol/agent_protocol.def), which has libibverbs'
 * values. */
enum be_access {
#define AP_ACCESS(SYM, bit) BE_ACCESS_##SYM = AP_ACCESS_##SYM,
#include "agent_protocol.def"
#undef AP_ACCESS
};

enum be_wc_status {
#define AP_WC_STATUS(SYM) BE_WC_##SYM = AP_WC_##SYM,
#include "agent_protocol.def"
#undef AP_WC_STATUS
	BE_WC_STATUS_COUNT
};

enum be_wc_opcode {
#define AP_WC_OPCODE(SYM, value) BE_WC_##SYM = AP_WC_##SYM,
#include "agent_protocol.def"
#undef AP_WC_OPCODE
};

/* Work-completion flags. GRH and WITH_IMM have libibverbs' values; WITH_INV
 * does not (IBV_WC_WITH_INV is 0x8), so backends map the flags explicitly. */
#define BE_WC_WITH_IMM 0x2u
#define BE_WC_GRH 0x1u
#define BE_WC_WITH_INV 0x4u

/* The flags in libibverbs' numbering (verbs.h, enum ibv_wc_flags), which
 * be_wc.wc_flags_raw carries as the device's verbs library delivered them.
 * The kernel numbers its own flags otherwise (IB_WC_WITH_INVALIDATE is
 * 1 << 2, where libibverbs has IP_CSUM_OK): a device that writes the
 * kernel's word into a user completion shows here. */
#define BE_VERBS_WC_GRH 0x1u
#define BE_VERBS_WC_WITH_IMM 0x2u
#define BE_VERBS_WC_IP_CSUM_OK 0x4u
#define BE_VERBS_WC_WITH_INV 0x8u

/* BE_WC_* flags in libibverbs' numbering. */
static inline unsigned be_wc_flags_verbs(unsigned be_flags)
{
	return ((be_flags & BE_WC_GRH) ? BE_VERBS_WC_GRH : 0) | ((be_flags & BE_WC_WITH_IMM) ? BE_VERBS_WC_WITH_IMM : 0) |
	       ((be_flags & BE_WC_WITH_INV) ? BE_VERBS_WC_WITH_INV : 0);
}

enum be_wr_opcode {
#define AP_WR_OPCODE(SYM, value) BE_WR_##SYM = AP_WR_##SYM,
#include "agent_protocol.def"
#undef AP_WR_OPCODE
};

/* BE_GID_UNKNOWN: the device named no type for the entry (CA17-26). */
enum be_gid_type { BE_GID_IB, BE_GID_ROCE_V1, BE_GID_ROCE_V2, BE_GID_UNKNOWN };
enum be_atomic_cap { BE_ATOMIC_NONE, BE_ATOMIC_HCA, BE_ATOMIC_GLOB };

/* Capabilities reported by query_device. */
enum be_capability {
#define AP_CAPABILITY(SYM, bit) BE_CAP_##SYM = AP_CAP_##SYM,
#include "agent_protocol.def"
#undef AP_CAPABILITY
};

/* ---- Attributes ---- */

struct be_device_attr {
	char name[64]; /* sizes of the verbs API: IBV_SYSFS_NAME_MAX, ibv_device_attr.fw_ver */
	uint32_t vendor_id, vendor_part_id;
	char fw_ver[64];
	uint32_t max_qp, max_qp_wr, max_sge;
	uint64_t max_mr_size;
	uint32_t max_qp_rd_atom, max_qp_init_rd_atom;
	enum be_atomic_cap atomic_cap;
	unsigned caps; /* BE_CAP_* */
	/* IBA's raw datagram QPs the device says it has (Raw IPv6, Raw
	 * Ethertype); vendors count Ethernet RAW_PACKET QPs in the second. */
	uint32_t max_raw_ipv6_qp, max_raw_ethy_qp;
};

enum be_port_state { BE_PORT_DOWN = 1, BE_PORT_INIT, BE_PORT_ARMED, BE_PORT_ACTIVE };

/* libibverbs' enum ibv_link_layer. */
enum be_link_layer { BE_LINK_UNSPECIFIED, BE_LINK_INFINIBAND, BE_LINK_ETHERNET };

struct be_port_attr {
	enum be_port_state state;
	unsigned active_mtu, max_mtu; /* bytes */
	unsigned gid_tbl_len;
	char netdev[64]; /* an interface name (IF_NAMESIZE); "" when unknown */
	enum be_link_layer link_layer;
	/* The InfiniBand port attributes a RoCEv2 port ignores (A17.5):
	 * reported as the device gives them. */
	uint16_t lid, sm_lid;
	uint8_t lmc, sm_sl, max_vl_num;
	/* The port's capability mask (AP_PORT_CAP: IBA PortInfo
	 * CapabilityMask bits, libibverbs' values). */
	uint32_t cap_flags;
};

struct be_gid {
	unsigned index;
	uint8_t gid[16];
	enum be_gid_type type;
};

/* An address vector (the GRH part; RoCEv2 always sends a GRH). */
struct be_av {
	uint8_t dgid[16];
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t sl;
	uint8_t port;
};

/* Attribute bits of be_qp_attr.mask (the ones given to modify_qp, the ones
 * valid in query_qp's answer). */
#define BE_QPA_STATE 0x000001u
#define BE_QPA_PORT 0x000002u
#define BE_QPA_PKEY_INDEX 0x000004u
#define BE_QPA_QKEY 0x000008u
#define BE_QPA_ACCESS 0x000010u
#define BE_QPA_PATH_MTU 0x000020u
#define BE_QPA_DEST_QPN 0x000040u
#define BE_QPA_RQ_PSN 0x000080u
#define BE_QPA_SQ_PSN 0x000100u
#define BE_QPA_AV 0x000200u /* dgid given; the other AV fields have defaults */
#define BE_QPA_MAX_RD_ATOMIC 0x000400u
#define BE_QPA_MAX_DEST_RD_ATOMIC 0x000800u
#define BE_QPA_MIN_RNR_TIMER 0x001000u
#define BE_QPA_TIMEOUT 0x002000u
#define BE_QPA_RETRY_CNT 0x004000u
#define BE_QPA_RNR_RETRY 0x008000u

struct be_qp_attr {
	unsigned mask;
	enum be_qp_state state;
	uint8_t port;
	uint16_t pkey_index;
	uint32_t qkey;
	unsigned access;   /* BE_ACCESS_* */
	unsigned path_mtu; /* bytes */
	uint32_t dest_qpn, rq_psn, sq_psn;
	struct be_av av;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
};

/* ---- Objects (each backend defines these structs) ---- */

struct backend;
struct be_pd;
struct be_cq;
struct be_mr;
struct be_qp;
struct be_ah;
struct be_srq;
struct be_mw;
struct be_xrcd;

struct be_qp_init {
	enum be_qp_type type;
	struct be_cq *send_cq, *recv_cq;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	bool sq_sig_all;
	/* The QP's receives come from this SRQ (its own receive queue is
	 * then unused: max_recv_wr ignored, post_recv refused); NULL: none. */
	struct be_srq *srq;
	/* XRC_RECV (a target QP): its XRC domain; it has no send queue and
	 * no CQs of its own. XRC_SEND (an initiator): no receive queue. */
	struct be_xrcd *xrcd;
};

struct be_srq_init {
	uint32_t max_wr, max_sge;
	uint32_t limit; /* armed limit, 0: not armed */
	/* An XRC SRQ: its domain and the CQ its receives complete on; NULL
	 * for a plain SRQ. */
	struct be_xrcd *xrcd;
	struct be_cq *cq;
};

struct be_srq_attr {
	uint32_t max_wr, max_sge;
	uint32_t limit; /* the armed limit; 0 once the limit event fired */
	uint32_t srqn;  /* the SRQ number an XRCETH names (XRC SRQs; 0 otherwise) */
};

/* Memory windows (IBA 10.6.7). */
enum be_mw_type { BE_MW_TYPE_1 = 1, BE_MW_TYPE_2 = 2 };

/* A window's binding: [offset, offset + length) of mr, with these remote
 * rights (BE_ACCESS_REMOTE_*); zero_based: the window is addressed from 0
 * (IBV_ACCESS_ZERO_BASED), not by the MR's virtual addresses. */
struct be_mw_bind {
	struct be_mr *mr;
	uint64_t offset, length;
	unsigned access;
	bool zero_based;
};

/* FLUSH (IBTA 1.5): the FETH's placement type bits and selectivity level. */
#define BE_FLUSH_GLOBAL 0x1u
#define BE_FLUSH_PERSISTENT 0x2u
enum be_flush_level { BE_FLUSH_RANGE = 0, BE_FLUSH_REGION = 1 };

/* An asynchronous event (libibverbs' numbering, AP_EVENT). Exactly one of
 * qp, srq, cq is set for an event about such an object; port for a port's. */
enum be_event_type {
#define AP_EVENT(SYM, value, about) BE_EVENT_##SYM = (value),
#include "agent_protocol.def"
#undef AP_EVENT
};

struct be_async_event {
	enum be_event_type type;
	struct be_qp *qp;
	struct be_srq *srq;
	struct be_cq *cq;
	unsigned port;
};

/* What a connection-manager multicast join gave: the group's GID (an IPv4
 * group mapped, ::ffff:a.b.c.d) and the Q_Key its members use. */
struct be_mcast_join {
	uint8_t mgid[16];
	uint32_t qkey;
};

/* IBA's raw datagram QP types (probe_raw_datagram_qp), the kernel's
 * numbering (AP_RAW_QP_TYPE). */
enum be_raw_qp_type { BE_RAW_IPV6 = 5, BE_RAW_ETHERTYPE = 6 };

/* What an attempt to create a raw datagram QP gave: whether some layer
 * created one (it is destroyed at once), and what each layer asked
 * answered, one line each ("libibverbs ibv_create_qp: Invalid argument"). */
#define BE_RAW_MAX_ANSWERS 4
struct be_raw_probe {
	bool created;
	unsigned n_answers;
	char answers[BE_RAW_MAX_ANSWERS][160];
};

struct be_mr_info {
	uint8_t *buf;    /* the agent-side memory: buf[0 .. length) */
	uint64_t length;
	uint64_t addr;   /* the virtual address remote peers use */
	uint32_t lkey, rkey;
};

/* One scatter/gather element, already bounds-checked against its MR. */
struct be_sge {
	struct be_mr *mr;
	uint64_t offset;
	uint32_t length;
};

struct be_send_wr {
	uint64_t wr_id;
	enum be_wr_opcode opcode;
	const struct be_sge *sge;
	unsigned num_sge;
	bool signaled, solicited;
	uint32_t imm_data;        /* as the tester gave it; sent big-endian */
	uint32_t invalidate_rkey;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t compare_add, swap;
	struct be_ah *ah;         /* UD */
	uint32_t remote_qpn, remote_qkey;
	/* BIND_MW (a type 2 window): the window, its binding, and the new
	 * rkey in rkey (its low 8 bits the consumer's key). LOCAL_INV and
	 * SEND_WITH_INV: invalidate_rkey. */
	struct be_mw *mw;
	struct be_mw_bind bind;
	/* ATOMIC_WRITE: remote_addr, rkey and the 8 bytes to place. */
	uint64_t atomic_value;
	/* FLUSH: remote_addr, rkey, the RETH's length, BE_FLUSH_* and level. */
	uint32_t flush_length;
	unsigned flush_type;
	enum be_flush_level flush_level;
	/* XRC_SEND: the SRQ number the XRCETH names at the target. */
	uint32_t remote_srqn;
};

struct be_recv_wr {
	uint64_t wr_id;
	const struct be_sge *sge;
	unsigned num_sge;
};

struct be_wc {
	uint64_t wr_id;
	enum be_wc_status status;
	enum be_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t imm_data;
	/* The completion's invalidated-rkey field, whatever its flags say (a
	 * receive without immediate data): a key the device filled in shows
	 * even when the flag that vouches for it is missing. */
	uint32_t invalidate_rkey;
	uint32_t src_qp;
	uint32_t qp_num; /* the local QP; the protocol layer maps it to a handle */
	unsigned wc_flags; /* BE_WC_GRH, BE_WC_WITH_IMM, BE_WC_WITH_INV */
	unsigned wc_flags_raw; /* as the verbs library delivered them (BE_VERBS_WC_*) */
};

/* Receives one counter (read_counters). */
typedef void (*be_counter_fn)(void *ctx, const char *name, uint64_t value);

struct backend_ops {
	const char *name; /* "soft", "ibverbs" */
	void (*close)(struct backend *be);

	int (*query_device)(struct backend *be, struct be_device_attr *out, struct be_error *err);
	int (*query_port)(struct backend *be, unsigned port, struct be_port_attr *out,
			  struct be_error *err);
	/* Writes up to max entries, sets *n to how many were written. */
	int (*list_gids)(struct backend *be, unsigned port, struct be_gid *out, unsigned max,
			 unsigned *n, struct be_error *err);

	int (*alloc_pd)(struct backend *be, struct be_pd **out, struct be_error *err);
	int (*dealloc_pd)(struct be_pd *pd, struct be_error *err);
	int (*create_cq)(struct backend *be, unsigned cqe, struct be_cq **out, struct be_error *err);
	int (*destroy_cq)(struct be_cq *cq, struct be_error *err);

	/* Allocates length bytes (filled with fill) and registers them. */
	int (*reg_mr)(struct be_pd *pd, uint64_t length, unsigned access, uint8_t fill,
		      struct be_mr **out, struct be_error *err);
	int (*dereg_mr)(struct be_mr *mr, struct be_error *err);
	void (*mr_info)(struct be_mr *mr, struct be_mr_info *out);

	int (*create_qp)(struct be_pd *pd, const struct be_qp_init *init, struct be_qp **out,
			 uint32_t *qpn, struct be_error *err);
	/* attr->mask says which members were given. */
	int (*modify_qp)(struct be_qp *qp, const struct be_qp_attr *attr, struct be_error *err);
	int (*query_qp)(struct be_qp *qp, struct be_qp_attr *out, struct be_error *err);
	int (*destroy_qp)(struct be_qp *qp, struct be_error *err);

	int (*create_ah)(struct be_pd *pd, const struct be_av *av, struct be_ah **out,
			 struct be_error *err);
	int (*destroy_ah)(struct be_ah *ah, struct be_error *err);

	int (*post_recv)(struct be_qp *qp, const struct be_recv_wr *wr, struct be_error *err);
	int (*post_send)(struct be_qp *qp, const struct be_send_wr *wr, struct be_error *err);
	/* Never blocks: writes up to max completions and sets *n. */
	int (*poll_cq)(struct be_cq *cq, struct be_wc *out, unsigned max, unsigned *n,
		       struct be_error *err);

	int (*read_counters)(struct backend *be, unsigned port, be_counter_fn fn, void *ctx,
			     struct be_error *err);

	/* The connection manager's passive side: qp (RC, in RESET) accepts
	 * the next connection requested for the IP CM service ID of this TCP
	 * port (Annex A11: 0x0000000001060000 | port), taking the REQ's path
	 * and QP parameters; the listen ends with the QP. NULL: no CM. */
	int (*cm_listen)(struct be_qp *qp, uint16_t port, struct be_error *err);

	/* Shared receive queues; NULL when the device has none (then
	 * BE_CAP_SRQ is not reported). destroy_srq is called only when no QP
	 * uses it. modify_srq arms the limit (0 disarms). */
	int (*create_srq)(struct be_pd *pd, const struct be_srq_init *init, struct be_srq **out,
			  struct be_error *err);
	int (*modify_srq)(struct be_srq *srq, uint32_t limit, struct be_error *err);
	int (*query_srq)(struct be_srq *srq, struct be_srq_attr *out, struct be_error *err);
	int (*destroy_srq)(struct be_srq *srq, struct be_error *err);
	int (*post_srq_recv)(struct be_srq *srq, const struct be_recv_wr *wr, struct be_error *err);

	/* Asynchronous events, oldest first; never blocks. The protocol
	 * layer routes each to the session that owns its object (device and
	 * port events to every session). NULL: no events. */
	int (*get_async_events)(struct backend *be, struct be_async_event *out, unsigned max,
				unsigned *n, struct be_error *err);

	/* Multicast: a UD QP attached to the group of this GID (RoCEv2: the
	 * group's IP address as a GID; the LID is ignored, CA17-30) gets a
	 * copy of every datagram to it. NULL: no multicast. */
	int (*attach_mcast)(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
	int (*detach_mcast)(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
	/* The connection manager joins the group of this IP address (16
	 * bytes, IPv4 in the first 4) for the UD QP, so that the host sends
	 * an IGMP or MLD report, and attaches the QP; leave undoes both.
	 * NULL: the CM does not join groups. */
	int (*cm_join)(struct be_qp *qp, int ip_version, const uint8_t group[16],
		       struct be_mcast_join *out, struct be_error *err);
	int (*cm_leave)(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_error *err);

	/* Memory windows; NULL: none (BE_CAP_MW1/MW2 not reported). *rkey is
	 * the window's rkey (alloc_mw: unbound; bind_mw: the new one). bind_mw
	 * is the type 1 verb (ibv_bind_mw): ordered with the QP's work
	 * requests, completed with wr_id when signaled; length 0 unbinds. */
	int (*alloc_mw)(struct be_pd *pd, enum be_mw_type type, struct be_mw **out, uint32_t *rkey,
			struct be_error *err);
	int (*dealloc_mw)(struct be_mw *mw, struct be_error *err);
	int (*bind_mw)(struct be_qp *qp, struct be_mw *mw, const struct be_mw_bind *bind, uint64_t wr_id,
		       bool signaled, uint32_t *rkey, struct be_error *err);

	/* Tries to create an IBA raw datagram QP of this type on pd (CA17-28:
	 * a RoCEv2 port has none); anything created is destroyed before it
	 * returns. -1 only when the attempt itself could not be made. */
	int (*probe_raw_datagram_qp)(struct be_pd *pd, enum be_raw_qp_type type, struct be_raw_probe *out,
				     struct be_error *err);

	/* XRC domains; NULL: no XRC. */
	int (*alloc_xrcd)(struct backend *be, struct be_xrcd **out, struct be_error *err);
	int (*dealloc_xrcd)(struct be_xrcd *xrcd, struct be_error *err);
};

/* Every backend's device struct starts with this. */
struct backend {
	const struct backend_ops *ops;
};

/* ---- Opening a backend ---- */

struct backend_options {
	const char *device; /* ibverbs: device name ("rxe0"); NULL = the first one */
	const char *iface;  /* soft: network interface to bind */
	const char *fault;  /* soft: fault profile name, NULL for none */
	bool rcm;           /* soft: RoCEv2 congestion management on */
	unsigned cnp_interval_us;   /* soft: minimum time between CNPs per QP */
	unsigned rcm_line_rate_mbps; /* soft: a QP's rate before any CNP */
	unsigned rcm_recovery_us;    /* soft: rate recovery period */
	const char *hostile;         /* soft: a device hostile mode (hostile.def), NULL for none */
	uint64_t hostile_count;      /* soft: the bound on hostile frames (0: the default) */
	unsigned vlan;               /* soft: 802.1Q VLAN ID (1..4094) of its own traffic, 0 for none */
	bool rocev1;                 /* soft: a dual-mode port, RoCE v1 GIDs too (A17.8) */
};

struct backend_factory {
	const char *name;
	/* Opens the device; on failure returns NULL with a message in err. */
	struct backend *(*open)(const struct backend_options *opts, char *err, size_t errlen);
	/* The active fault profile, or NULL (backends without faults: NULL). */
	const char *(*fault_name)(struct backend *be);
};

/* The backends compiled in: "soft" always, "ibverbs" when
 * agent/src/ibverbs/ and libibverbs are there (ibverbs/open.c defines
 * backend_ibverbs_factory). NULL when unknown. */
const struct backend_factory *backend_find(const char *name);
/* Names of the compiled-in backends, for --help: "soft, ibverbs". */
const char *backend_names(void);

extern const struct backend_factory backend_soft_factory;
#ifdef ROCE_AGENT_HAVE_IBVERBS
extern const struct backend_factory backend_ibverbs_factory;
#endif

#ifdef __cplusplus
}
#endif

#endif
