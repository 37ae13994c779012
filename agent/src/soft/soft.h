/*
 * The soft DUT: a user-space RoCEv2 device on an AF_PACKET socket. Every
 * packet it parses or builds goes through libroce; this layer holds the
 * device's state (QPs, MRs, CQs), the responder and requester logic, and the
 * fault profiles.
 *
 * Files: dev.c (device, raw socket, GIDs, neighbours, timers, transmit),
 * verbs.c (the backend operations), port.c (the port's attributes, GID
 * types, raw datagram refusal and port events), rx.c (inbound validation and dispatch,
 * CNPs), resp.c (responder: RC, UC, UD), req.c (requester), cc.c
 * (congestion reaction), cm.c (the connection manager on QP1), recv.c
 * (where a receive WQE comes from: the QP's RQ or its SRQ), srq.c (shared
 * receive queues), events.c (the asynchronous event queue), mcast.c
 * (multicast groups, their delivery, the CM's join), mw.c (memory
 * windows, rkey resolution, local and remote invalidation), xrc.c (XRC
 * domains, XRC SRQ numbers, target and initiator QPs), placement.c
 * (FLUSH and ATOMIC WRITE, responder and requester); the fault
 * profiles act at the edges: fault.c (the table), fault_rx.c (the receive
 * filter), fault_tx.c (the transmit rewrite), and at the decision points
 * their table names (fault.def).
 */
#ifndef ROCE_AGENT_SOFT_H
#define ROCE_AGENT_SOFT_H

#include <glib.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "roce/roce.h"

#include "../backend.h"
#include "../hostile.h"

/* ---- Fault profiles ---- */

enum soft_fault {
	SOFT_FAULT_NONE = 0,
#define SOFT_FAULT(SYM, name, rule, hook, text) SOFT_FAULT_##SYM,
#include "fault.def"
#undef SOFT_FAULT
	SOFT_FAULT_COUNT
};

/* Where a profile acts (fault.def). */
enum soft_fault_hook { SOFT_HOOK_NONE, SOFT_HOOK_TX, SOFT_HOOK_RX, SOFT_HOOK_DECIDE, SOFT_HOOK_COUNT };

struct soft_fault_info {
	const char *name;
	const char *rule;
	enum soft_fault_hook hook;
	const char *text;
};
const char *soft_fault_hook_name(enum soft_fault_hook h);

const struct soft_fault_info *soft_fault_info(enum soft_fault f);
/* SOFT_FAULT_COUNT when unknown. */
enum soft_fault soft_fault_by_name(const char *name);

/* ---- Counters ---- */

/* X(name, "meaning") */
#define SOFT_COUNTERS(X) \
	X(rx_frames, "RoCEv2 frames addressed to the device") \
	X(rx_packets, "frames that passed header validation") \
	X(tx_packets, "frames sent") \
	X(rx_drop_ip, "IP/UDP rule broken (CA17-24)") \
	X(rx_drop_ip_version, "IP version / Ethertype mismatch (CA17-27)") \
	X(rx_drop_icrc, "bad ICRC (CA17-22, CA17-24)") \
	X(rx_drop_gid, "destination IP is not one of the GIDs") \
	X(rx_rocev1, "RoCE v1 frames addressed to the device (with --rocev1)") \
	X(rx_drop_gid_type, "RC/UC packet whose protocol is not its QP's GID type (CA17-41)") \
	X(rx_drop_tver, "BTH TVer not 0") \
	X(rx_drop_qp0, "DestQP 0 (CA17-33)") \
	X(rx_drop_no_qp, "DestQP names no QP") \
	X(rx_drop_qp_type, "opcode transport differs from the QP type") \
	X(rx_drop_qp_state, "QP state does not accept the packet") \
	X(rx_drop_addr, "source/destination IP differ from the QP's AV") \
	X(rx_drop_opcode, "opcode not valid in this role") \
	X(pkey_violations, "BTH P_Key does not match (dropped)") \
	X(qkey_violations, "UD DETH Q_Key does not match (dropped)") \
	X(rx_ecn_ce, "valid packets that arrived CE-marked") \
	X(tx_cnp, "CNPs sent") \
	X(cnp_coalesced, "CE packets covered by an earlier CNP") \
	X(rx_cnp, "CNPs received") \
	X(rate_cuts, "rate reductions on CNPs (with --rcm)") \
	X(rate_increases, "rate recovery steps") \
	X(resp_duplicates, "duplicate requests (PSN behind the expected one)") \
	X(resp_dup_dropped, "duplicate READ/atomic with no saved resource") \
	X(tx_acks, "ACKs sent") \
	X(tx_atomic_acks, "Atomic ACKs sent") \
	X(tx_read_responses, "READ response packets sent") \
	X(tx_nak_psn_seq, "NAK PSN Sequence Error sent") \
	X(tx_nak_inv_req, "NAK Invalid Request sent") \
	X(tx_nak_rem_access, "NAK Remote Access Error sent") \
	X(tx_nak_rem_op, "NAK Remote Operational Error sent") \
	X(tx_rnr_nak, "RNR NAKs sent") \
	X(uc_dropped_messages, "UC messages dropped (gap, sequence, no WQE)") \
	X(ud_dropped, "UD packets dropped (too long, no WQE)") \
	X(req_retransmits, "requester go-back-N restarts") \
	X(req_timeouts, "local ACK timeouts") \
	X(req_seq_naks, "NAK PSN Sequence Error received") \
	X(req_rnr_naks, "RNR NAKs received") \
	X(req_implied_naks, "implied NAKs (a response past an unanswered READ/atomic)") \
	X(req_ghost_acks, "responses beyond the last PSN sent (ignored)") \
	X(req_bad_responses, "malformed or unexpected responses") \
	X(rx_mads, "CM MADs received on QP1") \
	X(rx_mad_dropped, "MADs on QP1 not served (not the CM class, a response, unknown attribute)") \
	X(tx_mads, "CM MADs sent from QP1") \
	X(cm_connections, "REQs accepted (REP sent)") \
	X(cm_rejects, "REJs sent") \
	X(tx_no_neighbour, "packet not sent: next hop MAC unresolved") \
	X(rx_mcast, "datagrams to DestQP 0xFFFFFF and a multicast group of the device") \
	X(rx_mcast_copies, "copies of multicast datagrams handed to attached QPs") \
	X(rx_drop_mcast_rcuc, "RC/UC packets to DestQP 0xFFFFFF, at a group or at the port (dropped: multicast is UD's)") \
	X(rx_drop_mcast_destqp, "UD datagrams to DestQP 0xFFFFFF at a unicast address, or a unicast DestQP to a group (dropped)") \
	X(rx_drop_mcast_unattached, "multicast datagrams to a group no QP is attached to (dropped)") \
	X(srq_empty, "requests that found their QP's SRQ empty (RC, XRC: RNR NAK; UC, UD: dropped)") \
	X(recv_overflows, "SENDs longer than the receive WQE they took (not delivered; RC: NAK Invalid Request)") \
	X(srq_limit_events, "SRQ limit reached events raised") \
	X(last_wqe_events, "Last WQE Reached events raised (a QP with an SRQ entered ERR)") \
	X(events_lost, "asynchronous events lost to a full event queue (the oldest go)") \
	X(mcast_joins, "CM joins that made the host report a group membership") \
	X(hostile_frames, "frames sent by a --hostile mode (withheld, for silent)") \
	X(objects_pd, "PDs that exist now (all sessions)") \
	X(objects_cq, "CQs that exist now") \
	X(objects_mr, "MRs that exist now") \
	X(objects_qp, "QPs that exist now") \
	X(objects_ah, "AHs that exist now") \
	X(objects_srq, "SRQs that exist now") \
	X(objects_mw, "memory windows that exist now") \
	X(objects_xrcd, "XRC domains that exist now") \
	X(mw_binds, "memory window binds executed (the verb and the BIND_MW work request)") \
	X(mw_bind_errors, "binds refused (completed with MW_BIND_ERR)") \
	X(rkey_invalidations, "rkeys invalidated (LOCAL_INV and SEND with Invalidate)") \
	X(rkey_inv_refused, "SEND with Invalidate whose rkey could not be invalidated (the QP goes to Error)") \
	X(xrc_bad_srqn, "XRC requests naming no XRC SRQ of their target's domain (NAK Remote Access Error)") \
	X(flushes, "FLUSH requests executed") \
	X(atomic_writes, "ATOMIC WRITE requests executed") \
	X(mcast_attached, "QP attachments to multicast groups now")

struct soft_counters {
#define SOFT_COUNTER_FIELD(n, text) uint64_t n;
	SOFT_COUNTERS(SOFT_COUNTER_FIELD)
#undef SOFT_COUNTER_FIELD
};

/* ---- Objects ---- */

struct soft_dev;

struct be_pd {
	struct soft_dev *dev;
	unsigned refs; /* MRs, QPs, AHs (the protocol layer enforces order too) */
};

struct be_cq {
	struct soft_dev *dev;
	struct be_wc *ring;
	unsigned cap, head, count;
	bool overflow; /* the CQ overran: the device reports it on poll */
};

struct be_mr {
	struct soft_dev *dev;
	struct be_pd *pd;
	uint8_t *buf;
	uint64_t length, addr;
	uint32_t lkey, rkey;
	unsigned access;
	bool valid;    /* false after dereg */
	bool rkey_valid;
	unsigned refs; /* 1 for the registration + one per WQE or window naming it */
	unsigned windows; /* windows validly bound to it: dereg is refused meanwhile */
};

/* A memory window (mw.c). Its binding stays after it is invalidated or
 * unbound (only the state changes), so that a fault profile can still
 * reach it. */
enum soft_mw_state { SOFT_MW_FREE, SOFT_MW_VALID, SOFT_MW_UNBOUND, SOFT_MW_INVALIDATED };

struct be_mw {
	struct soft_dev *dev;
	struct be_pd *pd;
	enum be_mw_type type;
	uint32_t rkey; /* index << 8 | the consumer's key */
	enum soft_mw_state state;
	struct be_mr *mr;    /* the last binding's MR (holds a reference), NULL before any */
	uint64_t addr, length;
	unsigned access;
	bool zero_based;     /* addressed from 0, not by the MR's addresses */
	struct be_qp *qp;    /* type 2: the QP that bound it */
};

/* An XRC domain (xrc.c). */
struct be_xrcd {
	struct soft_dev *dev;
	unsigned users; /* XRC SRQs and XRC_RECV QPs */
};

struct be_ah {
	struct soft_dev *dev;
	struct be_pd *pd;
	struct be_av av;
};

struct soft_sge {
	struct be_mr *mr; /* holds a reference */
	uint64_t offset;
	uint32_t length;
};

struct soft_rwqe;

#define SOFT_MAX_SGE 16

struct soft_rwqe {
	uint64_t wr_id;
	struct soft_sge sge[SOFT_MAX_SGE];
	unsigned num_sge;
	uint64_t length;
};

struct soft_swqe {
	struct be_send_wr wr; /* wr.sge is not used: see sge[] */
	struct soft_sge sge[SOFT_MAX_SGE];
	unsigned num_sge;
	uint64_t length;
	bool signaled;
	/* UD: the address and destination as they were when posted. */
	struct be_av av;
	/* Requester progress. */
	bool assigned;          /* first_psn/npkts valid */
	uint32_t first_psn;
	uint32_t npkts;         /* PSNs the WQE takes */
	uint32_t nresp;         /* READ: response packets expected */
	bool retrying;          /* READ: a retry for resp_got is under way */
	uint32_t resp_got;      /* READ: response packets received */
	uint32_t resp_base;     /* READ: response index the last request restarted at */
	uint32_t restart_at;    /* SEND, WRITE: the packet the message restarted at (0: its first) */
	bool done;
	enum be_wc_status status;
};

/* A shared receive queue (srq.c): a ring of receive WQEs taken in posting
 * order by the QPs that use it. */
struct be_srq {
	struct soft_dev *dev;
	struct be_pd *pd;
	struct soft_rwqe *ring;
	unsigned head, count;
	uint32_t max_wr, max_sge;
	uint32_t limit; /* armed limit; 0: not armed */
	bool limit_fired; /* the limit has raised its event once */
	unsigned users; /* QPs */
	/* An XRC SRQ (xrc.c): its domain, number and CQ; NULL, 0, NULL otherwise. */
	struct be_xrcd *xrcd;
	uint32_t srqn;
	struct be_cq *cq;
};

/* A saved READ or atomic request, for duplicates (responder resources). */
struct soft_res {
	bool valid;
	bool atomic;
	uint32_t psn, last_psn;
	uint64_t va;
	uint32_t rkey, length;
	uint64_t orig; /* atomic: the value returned */
	uint8_t placement; /* FLUSH or ATOMIC WRITE (ROCE_K_*): answered again as it was */
};

/* A WRITE held back by the flush-early fault profile (placement.c). */
struct soft_held_write;

enum soft_msg { SOFT_MSG_NONE, SOFT_MSG_SEND, SOFT_MSG_WRITE };

enum soft_cm_state { SOFT_CM_IDLE, SOFT_CM_LISTEN, SOFT_CM_REP_SENT, SOFT_CM_ESTABLISHED, SOFT_CM_TIMEWAIT };

struct be_qp {
	struct soft_dev *dev;
	struct be_pd *pd;
	struct be_cq *scq, *rcq;
	enum be_qp_type type;
	uint32_t qpn;
	struct be_qp_attr attr; /* current attributes; attr.state is the state */
	bool sq_sig_all;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	bool destroyed;

	/* Addressing of what this QP sends (RC/UC: from the AV; ep.rocev1:
	 * its source GID is of type RoCE v1, A17.8). */
	struct roce_endpoint ep;
	bool gid_v1; /* RC/UC: the type of the AV's source GID */
	bool mac_ok; /* ep.dst_mac is known */
	uint16_t udp_sport;

	/* Receive queue (unused when srq is set: receives come from it). */
	struct be_srq *srq;
	struct soft_rwqe *rq;
	unsigned rq_head, rq_count;

	/* Send queue: [sq_head, sq_head + sq_count) in the ring; sq_next is
	 * the offset from sq_head of the WQE being transmitted, pkt_next the
	 * packet within it. */
	struct soft_swqe *sq;
	unsigned sq_head, sq_count;
	unsigned sq_next;
	uint32_t pkt_next;

	struct {
		uint32_t epsn, msn;
		bool psn_nak_sent;
		enum soft_msg open;   /* message in progress */
		bool drop_msg;        /* UC: drop until the next First/Only */
		struct soft_rwqe wqe; /* SEND: the receive WQE being filled */
		bool have_wqe;
		uint64_t wqe_off;
		/* WRITE in progress */
		struct be_mr *wmr;
		uint64_t wva;
		uint64_t wdmalen, wdone;
		struct soft_res *res; /* ring of max(1, max_dest_rd_atomic) */
		unsigned nres, res_next;
		uint32_t ud_last_psn;
		bool ud_have_psn;
		bool inv_refused; /* a SEND with Invalidate was refused: ERR once answered */
		/* The last receive completed with SUCCESS, its byte count (what
		 * bug-send-redelivered-on-error completes again). */
		bool have_last_recv;
		uint32_t last_recv_len;
		struct soft_held_write *held;
	} resp;

	/* XRC (xrc.c): a target's domain; its srq and rcq are those of the
	 * XRC SRQ the request being handled names. An initiator: the remote
	 * SRQ its first request named (0: none yet). */
	struct be_xrcd *xrcd;
	uint32_t xrc_first_srqn;

	struct {
		uint32_t next_psn;   /* PSN of the next WQE to be assigned */
		uint32_t acked_psn;  /* everything up to here is acknowledged */
		uint32_t retry_left, rnr_left;
		int64_t ack_deadline; /* monotonic us, 0 = not armed */
		int64_t rnr_deadline; /* waiting after an RNR NAK */
	} req;

	/* The passive side of the connection manager (cm.c). */
	struct {
		enum soft_cm_state state;
		uint64_t service_id;     /* LISTEN: the IP CM service ID */
		uint32_t local_comm_id, remote_comm_id;
		uint8_t peer_ip[16];     /* the active side's address (IPv4 in the first 4) */
		struct be_qp_attr rts;   /* RTR -> RTS, applied on the RTU */
		uint8_t rep[ROCE_MAD_LEN]; /* the REP sent, for a repeated REQ */
		uint8_t alt_gid[16];     /* the alternate path loaded by a LAP (never used) */
	} cm;

	struct {
		int64_t last_cnp_us; /* last CNP sent for this QP */
		bool cnp_sent;
		/* reaction point: rate in bytes per second; 0 = unlimited */
		double rate, target, alpha;
		int64_t next_tx_us;   /* pacing: earliest next transmission */
		int64_t recover_us;   /* next recovery step, 0 = none */
		unsigned recover_round;
	} cc;
};

struct soft_gid {
	uint8_t gid[16];
	int ip_version; /* of the address it comes from (4: ::ffff:a.b.c.d) */
	bool rocev1;    /* type RoCE v1 (--rocev1); RoCEv2 otherwise */
};

#define SOFT_MAX_GIDS 32
#define SOFT_NEIGH_CACHE 64

struct soft_neigh {
	uint8_t ip[16];
	uint8_t mac[6];
	bool valid;
};

/* A device hostile mode (--hostile, soft/hostile.c). */
struct soft_hostile {
	enum agent_hostile mode;
	uint64_t budget;   /* hostile frames still allowed */
	GRand *rng;        /* seeded: the same garbage every run */
	/* flood, stale: the QP whose peer is flooded, and the next request. */
	guint flood_source;
	uint32_t flood_qpn;
	bool flood_started;
	bool stale_sent; /* stale: the burst went out (once a run) */
	struct roce_desc flood;
	uint8_t buf[9216];
	uint8_t payload[4096];
};

/* What the fault profile's hooks keep between packets. */
struct soft_fault_state {
	uint32_t sport_seq;              /* sport-varies */
	uint8_t mad[ROCE_MAD_LEN];       /* a MAD rewritten on its way out */
	uint8_t frame[16384];            /* a frame rewritten on its way in */
	uint8_t atomic_write[8];         /* an ATOMIC WRITE's bytes rewritten on their way out */
	bool halted;                     /* bug-*-halt: a packet stopped the device: it takes and sends nothing */
	uint32_t wedged_qpn[64];         /* wedge-bad-icrc: the QPs that take nothing more */
	unsigned n_wedged;               /* ... how many so far (the array keeps the last 64) */
};

struct soft_rx;

#define SOFT_MAX_EVENTS 1024

/* The device's asynchronous events, oldest first (events.c). */
struct soft_events {
	struct be_async_event ring[SOFT_MAX_EVENTS];
	unsigned head, count;
};

struct soft_dev {
	struct backend base;
	struct backend_options opts;
	enum soft_fault fault;
	struct soft_fault_state fs;
	/* The packet being handled, while rx.c hands it on; NULL otherwise. */
	const struct soft_rx *rx;
	struct soft_hostile hostile;
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint8_t mac[6];
	unsigned if_mtu;
	/* --vlan: the soft DUT tags its own frames with this VLAN ID, PCP
	 * from the SL of the address vector (A17.4), and takes only frames of
	 * this VLAN as its own. */
	int vlan_id; /* -1: untagged */

	struct soft_gid gids[SOFT_MAX_GIDS];
	unsigned n_gids;

	int raw_fd, sink4_fd, sink6_fd, nl_fd;
	guint raw_watch, sink4_watch, sink6_watch;
	GSource *timer;

	GHashTable *qps;    /* qpn -> struct be_qp */
	GHashTable *mrs;    /* rkey/lkey -> struct be_mr (both keys are the same) */
	GHashTable *mws;    /* rkey >> 8 -> struct be_mw (indices SOFT_MW_INDEX_BASE up) */
	uint32_t next_mw_index;
	GHashTable *xrc_srqs; /* srqn -> struct be_srq (XRC SRQs) */
	uint32_t next_srqn;
	uint32_t next_qpn;
	uint32_t next_key;
	uint64_t next_va;

	struct soft_neigh neigh[SOFT_NEIGH_CACHE];
	unsigned neigh_next;
	uint32_t nl_seq;

	struct soft_counters cnt;
	struct soft_events events;
	GPtrArray *mcast; /* struct soft_mcast_group (mcast.c), NULL while none */
	/* While the device's own datagram to a group is looped back to its
	 * attached QPs (mcast.c): the QPN that sent it. */
	bool mcast_looping;
	uint32_t mcast_loop_qpn;
	bool cnp_sent;      /* cnp-pacing-global: the device-wide interval */
	int64_t last_cnp_us;
	/* Sees every frame the device transmits (after the fault profile),
	 * whether or not there is a socket to send it on: for tests. */
	void (*tx_tap)(void *ctx, const uint8_t *frame, size_t len);
	void *tx_tap_ctx;
	uint32_t gsi_psn;       /* QP1's send PSN */
	uint32_t next_comm_id;  /* the CM's next local communication ID */
	uint8_t mad_out[ROCE_MAD_LEN];
	uint8_t rxbuf[16384];
	uint8_t txbuf[9216];
	uint8_t payload[4096];
};

#define SOFT_FAULT_ON(dev, F) ((dev)->fault == SOFT_FAULT_##F)

/* PSN distance a - b: 24-bit serial arithmetic, or plain integers under
 * the psn-no-wrap fault. */
static inline int32_t soft_psn_diff(const struct soft_dev *dev, uint32_t a, uint32_t b)
{
	return SOFT_FAULT_ON(dev, PSN_NO_WRAP) ? (int32_t)a - (int32_t)b : roce_psn_diff(a, b);
}

/* The transport of a QP's packets, and whether it is reliable (RC and
 * the XRC initiator and target: ACKs, retries, responses). */
static inline enum roce_transport soft_qp_transport(const struct be_qp *qp)
{
	switch (qp->type) {
	case BE_QPT_UC: return ROCE_T_UC;
	case BE_QPT_UD: return ROCE_T_UD;
	case BE_QPT_XRC_SEND:
	case BE_QPT_XRC_RECV: return ROCE_T_XRC;
	default: return ROCE_T_RC;
	}
}

static inline bool soft_qp_reliable(const struct be_qp *qp)
{
	return qp->type == BE_QPT_RC || qp->type == BE_QPT_XRC_SEND || qp->type == BE_QPT_XRC_RECV;
}

extern const struct backend_ops soft_ops;
void soft_backend_close(struct backend *be);

/* ---- dev.c ---- */
/* A device on no interface: nothing is received or sent (tx_tap still sees
 * what would be), the GID table and MAC are what the caller sets, and MACs
 * come only from soft_neigh_learn. The fuzzers drive it through its ops and
 * soft_rx_frame; soft_backend_close frees it. NULL (err set) for an unknown
 * fault profile. */
struct soft_dev *soft_dev_new(const struct backend_options *opts, char *err, size_t errlen);
int64_t soft_now_us(void);
/* Active path MTU of the port in bytes (from the interface MTU). */
unsigned soft_port_mtu(const struct soft_dev *dev);
void soft_refresh_gids(struct soft_dev *dev);
/* The GID at index i (refreshes the table); false when out of range. */
bool soft_gid_at(struct soft_dev *dev, unsigned i, struct soft_gid *out);
/* Whether ip (16 bytes, IPv4 in the first 4) of that version is one of
 * our GIDs of that type (RoCE v1 or RoCEv2). */
bool soft_is_our_ip(struct soft_dev *dev, int ip_version, const uint8_t *ip, bool rocev1);
void soft_neigh_learn(struct soft_dev *dev, int ip_version, const uint8_t *ip,
		      const uint8_t *mac);
/* Resolves the MAC for ip: cache, kernel neighbour table, then a bounded
 * kernel resolution. */
bool soft_neigh_resolve(struct soft_dev *dev, int ip_version, const uint8_t *ip, uint8_t *mac);
/* Fills an endpoint from an AV: addresses, MACs, traffic class, hop limit.
 * Returns false with a reason in err when the GID or the MAC is unknown. */
bool soft_av_endpoint(struct soft_dev *dev, const struct be_av *av, struct roce_endpoint *ep,
		      bool resolve_mac, char *err, size_t errlen);
/* The 802.1Q tag of the device's VLAN with the PCP of this SL (none
 * without a VLAN). */
void soft_vlan_tag(const struct soft_dev *dev, unsigned sl, struct roce_endpoint *ep);
/* Builds d (after the fault profile's transmit changes) and sends it. */
void soft_xmit(struct soft_dev *dev, struct roce_desc *d);
void soft_timer_update(struct soft_dev *dev);
/* Sends a built frame on the device's interface; false if it did not go. */
bool soft_send_frame(struct soft_dev *dev, const uint8_t *frame, size_t len, const uint8_t *dst_mac);

/* ---- hostile.c ---- */
/* Sets the mode up (dev->opts.hostile); false with a reason when unknown. */
bool soft_hostile_open(struct soft_dev *dev, char *err, size_t errlen);
void soft_hostile_close(struct soft_dev *dev);
/* Whether a packet may go out at all (silent withholds everything). */
bool soft_hostile_may_send(struct soft_dev *dev);
/* What the mode adds after a packet went out. */
void soft_hostile_after_tx(struct soft_dev *dev, const struct roce_desc *d);
/* stale: the burst for a destroyed QP's peer, sent as the next QP is made. */
void soft_hostile_before_create_qp(struct soft_dev *dev);
struct be_qp *soft_qp_lookup(struct soft_dev *dev, uint32_t qpn);

/* ---- port.c ---- */
int soft_query_port(struct backend *be, unsigned port, struct be_port_attr *out, struct be_error *err);
int soft_list_gids(struct backend *be, unsigned port, struct be_gid *out, unsigned max, unsigned *n,
		   struct be_error *err);
int soft_probe_raw_datagram_qp(struct be_pd *pd, enum be_raw_qp_type type, struct be_raw_probe *out,
			       struct be_error *err);
/* A QP has reached RTS (the port-event fault profiles act here). */
void soft_port_qp_ready(struct be_qp *qp);

/* ---- verbs.c ---- */
void soft_cq_push(struct be_cq *cq, const struct be_wc *wc);
void soft_mr_unref(struct be_mr *mr);
struct be_mr *soft_mr_by_rkey(struct soft_dev *dev, struct be_pd *pd, uint32_t rkey);
/* Moves the QP to ERR and flushes both queues. */
void soft_qp_to_error(struct be_qp *qp);
/* Copies len bytes between the SGE list (starting at byte off of the list)
 * and buf; to_sges chooses the direction. Returns false if the list is
 * shorter than off + len. */
bool soft_sge_copy(const struct soft_sge *sge, unsigned n, uint64_t off, uint8_t *buf,
		   uint64_t len, bool to_sges);

/* Scatter/gather lists of posted WQEs: take holds a reference on each MR
 * (returns the bytes in all), release drops them. */
uint64_t soft_sges_take(struct soft_sge *dst, const struct be_sge *src, unsigned n);
void soft_sges_release(struct soft_sge *sge, unsigned n);

/* ---- rx.c ---- */
void soft_rx_frame(struct soft_dev *dev, const uint8_t *frame, size_t len);

/* A received, validated packet and where it came from. */
struct soft_rx {
	const struct roce_pkt *p;
	const uint8_t *bth;
	uint32_t psn;
	uint8_t opcode;
	const struct roce_opcode_info *op;
	const uint8_t *payload;
	uint32_t payload_len;
	int ip_version; /* of the addresses (GIDs of IPv4 addresses: 4) */
	bool rocev1;    /* a RoCE v1 packet: l3 is its GRH */
	uint8_t src_ip[16], dst_ip[16];
	uint8_t src_mac[6];
	const uint8_t *l3; /* the IP header (v1: the GRH), for the UD receive buffer */
};

/* Checks relaxed for a delivery (mcast.c names the fault profiles that
 * relax them). */
#define SOFT_ACCEPT_ANY_QKEY 0x1u /* the DETH Q_Key is not compared */
#define SOFT_ACCEPT_ANY_ADDR 0x2u /* a connected QP's addresses are not compared */
/* The per-QP acceptance checks of a validated request or response: the
 * QP's transport, P_Key, state, GID type and addresses, and for UD the
 * opcode and Q_Key. False (counted) when the packet is dropped. */
bool soft_rx_qp_accepts(struct be_qp *qp, const struct soft_rx *rx, unsigned relax);
/* Hands an accepted request to the responder (a response to the
 * requester), with the ECN reaction. */
void soft_rx_deliver(struct be_qp *qp, const struct soft_rx *rx);

/* ---- recv.c ---- */
enum soft_recv {
	SOFT_RECV_TAKEN, /* *out holds the next receive WQE */
	SOFT_RECV_EMPTY, /* none: RC answers RNR NAK, UC and UD drop */
	SOFT_RECV_DROP,  /* none, and the packet is dropped without an answer */
};
/* The next receive WQE of the QP, from its RQ or its SRQ. */
enum soft_recv soft_recv_take(struct be_qp *qp, struct soft_rwqe *out);
/* A SEND's packet does not fit the rest of the WQE being filled: false
 * with the NAK and the WQE's status; true with the bytes to place instead
 * (a fault profile's truncation). */
bool soft_recv_overflow(struct be_qp *qp, enum roce_nak_code *nak, enum be_wc_status *wst, uint64_t *fit);

/* ---- srq.c ---- */
int soft_create_srq(struct be_pd *pd, const struct be_srq_init *init, struct be_srq **out,
		    struct be_error *err);
int soft_modify_srq(struct be_srq *srq, uint32_t limit, struct be_error *err);
int soft_query_srq(struct be_srq *srq, struct be_srq_attr *out, struct be_error *err);
int soft_destroy_srq(struct be_srq *srq, struct be_error *err);
int soft_post_srq_recv(struct be_srq *srq, const struct be_recv_wr *wr, struct be_error *err);
enum soft_recv soft_srq_take(struct be_qp *qp, struct soft_rwqe *out);
/* A QP that uses an SRQ entered ERR: Last WQE Reached. */
void soft_srq_qp_error(struct be_qp *qp);

/* ---- events.c ---- */
/* Queues an event about qp, srq or the port (both NULL: port 1). */
void soft_event_raise(struct soft_dev *dev, enum be_event_type type, struct be_qp *qp, struct be_srq *srq);
/* Drops the queued events about an object being destroyed. */
void soft_events_forget(struct soft_dev *dev, const void *obj);
int soft_get_async_events(struct backend *be, struct be_async_event *out, unsigned max, unsigned *n,
			  struct be_error *err);

/* ---- mcast.c ---- */
int soft_attach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
int soft_detach_mcast(struct be_qp *qp, const uint8_t gid[16], uint16_t lid, struct be_error *err);
int soft_cm_join(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_mcast_join *out,
		 struct be_error *err);
int soft_cm_leave(struct be_qp *qp, int ip_version, const uint8_t group[16], struct be_error *err);
/* The QP is going: out of every group. */
void soft_mcast_qp_gone(struct be_qp *qp);
/* Frees the group table (the device is closing). */
void soft_mcast_close(struct soft_dev *dev);
/* Whether frames to this Ethernet destination are the device's: a group
 * some QP is attached to. */
bool soft_mcast_mac_wanted(const struct soft_dev *dev, const uint8_t mac[6]);
/* A validated packet to DestQP 0xFFFFFF (at a group or at the port), or
 * a UD SEND to a group. */
void soft_mcast_rx(struct soft_dev *dev, const struct soft_rx *rx);
/* A frame the device has just sent: a datagram to a group some of its own
 * QPs are attached to is received by them too (IBV-MCAST-LOOPBACK). */
void soft_mcast_loopback(struct soft_dev *dev, const uint8_t *frame, size_t len);

/* ---- mw.c ---- */
/* MW indices start here (rkeys 0xF0000000 up); MR keys stay below. */
#define SOFT_MW_INDEX_BASE 0xF00000u
int soft_alloc_mw(struct be_pd *pd, enum be_mw_type type, struct be_mw **out, uint32_t *rkey,
		  struct be_error *err);
int soft_dealloc_mw(struct be_mw *mw, struct be_error *err);
int soft_bind_mw(struct be_qp *qp, struct be_mw *mw, const struct be_mw_bind *bind, uint64_t wr_id,
		 bool signaled, uint32_t *rkey, struct be_error *err);
/* Whether a work request is a local operation (BIND_MW, LOCAL_INV): no
 * packet, executed in send-queue order. */
bool soft_mw_local_wr(enum be_wr_opcode op);
/* Executes a local operation when it reaches its turn in the send queue. */
enum be_wc_status soft_mw_exec(struct be_qp *qp, const struct be_send_wr *wr);
/* What an rkey reaches: the MR, and the range and rights the access is
 * held to (the MR's own, or the window's), in the request's addresses;
 * shift turns those into the MR's (a zero-based window: where it starts). */
struct soft_rkey {
	struct be_mr *mr;
	uint64_t addr, length;
	unsigned access;
	uint64_t shift;
};
/* The PD the memory of the QP's requests belongs to (an XRC target: its
 * current SRQ's). */
struct be_pd *soft_rkey_pd(const struct be_qp *qp);
bool soft_rkey_resolve(struct be_qp *qp, uint32_t rkey, struct soft_rkey *out);
/* SEND with Invalidate's remote invalidation of rkey. */
enum soft_inv {
	SOFT_INV_DONE,    /* invalidated: the completion names the rkey (soft_mw_inv_completion) */
	SOFT_INV_REFUSED, /* not invalidated: the receive fails, the QP goes to Error */
};
enum soft_inv soft_mw_remote_invalidate(struct be_qp *qp, uint32_t rkey);
/* The receive completion of a SEND with Invalidate that invalidated rkey:
 * WITH_INV and the rkey (ibv_poll_cq(3)). */
void soft_mw_inv_completion(const struct soft_dev *dev, struct be_wc *wc, uint32_t rkey);
/* A QP is destroyed: the type 2 windows it bound are invalidated. */
void soft_mw_qp_gone(struct be_qp *qp);
/* dereg_mr: refused while windows are bound to the MR. */
int soft_mw_check_dereg(const struct be_mr *mr, struct be_error *err);
void soft_mw_close(struct soft_dev *dev);

/* ---- xrc.c ---- */
int soft_alloc_xrcd(struct backend *be, struct be_xrcd **out, struct be_error *err);
int soft_dealloc_xrcd(struct be_xrcd *xrcd, struct be_error *err);
/* create_srq with an XRC domain: numbers the SRQ; destroy: forgets it. */
int soft_xrc_srq_init(struct be_srq *srq, const struct be_srq_init *init, struct be_error *err);
void soft_xrc_srq_gone(struct be_srq *srq);
/* create_qp of an XRC type: checks and takes the domain; destroy: drops it. */
int soft_xrc_qp_init(struct be_qp *qp, const struct be_qp_init *init, struct be_error *err);
void soft_xrc_qp_gone(struct be_qp *qp);
/* A request to an XRC target: selects the XRC SRQ its XRCETH names; false
 * (answered: NAK Remote Access Error, the QP in Error) when there is none
 * of the target's domain. */
bool soft_xrc_select(struct be_qp *qp, const struct soft_rx *rx);
/* An XRC initiator's request: the XRCETH. */
void soft_xrc_build(struct be_qp *qp, const struct be_send_wr *wr, struct roce_desc *d);
void soft_xrc_close(struct soft_dev *dev);

/* ---- placement.c ---- */
/* Whether the device takes FLUSH and ATOMIC WRITE (the capabilities);
 * whether it registers a region with these rights (FLUSH_PERSISTENT
 * needs persistent memory behind it). */
bool soft_placement_supported(const struct soft_dev *dev);
bool soft_placement_region_ok(const struct soft_dev *dev, unsigned access);
/* A new FLUSH or ATOMIC WRITE request, in sequence; a duplicate of one. */
void soft_placement_rx(struct be_qp *qp, const struct soft_rx *rx);
void soft_placement_duplicate(struct be_qp *qp, const struct soft_rx *rx);
/* The responder places a WRITE's bytes (the flush-early profile holds the
 * last one back); settle places a held one before the next request, and
 * at a reset. */
void soft_placement_write(struct be_qp *qp, struct be_mr *mr, uint64_t at, const uint8_t *src, size_t len);
void soft_placement_settle(struct be_qp *qp, const struct soft_rx *rx);
/* The agent (the host's CPU) looks at the region: held WRITEs on it are
 * placed (a device that places late, but before any host read). */
void soft_placement_host_access(struct be_mr *mr);
/* Requester: whether the work request is FLUSH or ATOMIC WRITE; their
 * headers and payload; whether a response completes the WQE. */
bool soft_placement_wr(enum be_wr_opcode op);
void soft_placement_build(struct be_qp *qp, const struct be_send_wr *wr, struct roce_desc *d);
bool soft_placement_response_ok(const struct be_qp *qp, const struct soft_rx *rx);
/* The opcode a FLUSH or ATOMIC WRITE work request completes with. */
enum be_wc_opcode soft_placement_wc_opcode(const struct be_qp *qp, enum be_wr_opcode op);

/* ---- resp.c ---- */
void soft_resp_rx(struct be_qp *qp, const struct soft_rx *rx);
void soft_resp_reset(struct be_qp *qp);
/* What the service files answer with: the responder's NAK of a fatal
 * error (the QP then in Error), an ACK, a READ response (zero length:
 * the answer to FLUSH and ATOMIC WRITE), and the responder resources. */
void soft_resp_fatal(struct be_qp *qp, const struct soft_rx *rx, enum roce_nak_code code);
void soft_resp_ack(struct be_qp *qp, const struct soft_rx *rx, uint32_t psn);
void soft_resp_read_response(struct be_qp *qp, const struct soft_rx *rx, const uint8_t *mem, uint64_t len,
			     uint32_t psn);
struct soft_res *soft_resp_res_new(struct be_qp *qp);
struct soft_res *soft_resp_res_find(struct be_qp *qp, uint32_t psn, bool atomic);
bool soft_resp_rd_atomic_allowed(const struct be_qp *qp);
/* The MR rkey reaches for an access needing every right of right, with
 * [*va, *va + len) inside its range (a window's or the MR's); NULL if not.
 * *va becomes the MR's address (a zero-based window's differ). */
struct be_mr *soft_resp_remote_mr(struct be_qp *qp, uint32_t rkey, uint64_t *va, uint64_t len, unsigned right);

/* ---- req.c ---- */
void soft_req_rx(struct be_qp *qp, const struct soft_rx *rx);
void soft_req_kick(struct be_qp *qp);
void soft_req_timers(struct be_qp *qp, int64_t now);
int64_t soft_req_next_deadline(const struct be_qp *qp);
void soft_req_reset(struct be_qp *qp);
/* A packet description from this QP to its peer with this opcode and PSN. */
void soft_qp_desc(struct be_qp *qp, struct roce_desc *d, uint8_t opcode, uint32_t psn);

/* ---- cm.c ---- */
/* The QP (RC, in RESET) accepts the next connection for the IP CM service
 * ID of this TCP port (Annex A11). */
int soft_cm_listen(struct be_qp *qp, uint16_t port, struct be_error *err);
/* A validated packet to QP1. */
void soft_cm_rx(struct soft_dev *dev, const struct soft_rx *rx);

/* ---- cc.c ---- */
void soft_cc_on_ce(struct be_qp *qp, const struct soft_rx *rx);
void soft_cc_on_cnp(struct be_qp *qp);
/* Pacing: whether a packet of len bytes may go now; charges it if so. */
bool soft_cc_may_send(struct be_qp *qp, size_t len, int64_t now);
void soft_cc_timers(struct be_qp *qp, int64_t now);
int64_t soft_cc_next_deadline(const struct be_qp *qp);

/* ---- fault_rx.c, fault_tx.c ---- */
/* The receive filter: false to drop the frame; otherwise *frame and *len
 * may now name a rewritten copy (dev->fs.frame). */
bool soft_fault_rx(struct soft_dev *dev, const uint8_t **frame, size_t *len);
/* The transmit rewrite: the profile's changes to a packet about to be
 * sent; false when the profile withholds it. */
bool soft_fault_tx(struct soft_dev *dev, struct roce_desc *d);
/* fault_count.c: the counter read: the profile's misreport of the counters
 * (c is a copy of the device's own, which stay exact). */
void soft_fault_counters(const struct soft_dev *dev, struct soft_counters *c);
/* fault.c: a line as a kernel WARN() prints it, on the device's console
 * (the agent's standard error), naming FUNCTION as the place it fired, for
 * the profiles that model a bug a kernel only logs (warn-*). */
void soft_fault_console_warning(const struct soft_dev *dev, const char *function, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
