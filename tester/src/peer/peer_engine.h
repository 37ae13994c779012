/*
 * The peer engine's state, shared by its files and by nothing else
 * (callers use peer.h):
 *   peer.c            set-up, the QP and MR tables, completions, findings, timers
 *   peer_wire.c       every packet in and out: injection rules, holding, timing
 *   peer_requester.c  the tester as requester: work requests, retransmission, responses
 *   peer_responder.c  the tester as responder: SEND/WRITE/READ/atomics, ACK, NAK, RNR
 *   peer_mcast.c      groups the tester's UD QPs attached, and the datagrams sent to them
 *   peer_srq.c        the tester's shared receive queues
 *   peer_xrc.c        XRC: the XRCETH of the tester's requests, its XRC SRQs as a target
 *   peer_placement.c  FLUSH and ATOMIC WRITE, as requester and as responder
 */
#ifndef ROCE_TESTER_PEER_ENGINE_H
#define ROCE_TESTER_PEER_ENGINE_H

#include <string.h>

#include "bufpool.h"
#include "peer.h"

#define SLOTS 1024 /* per-QP timing slots, by PSN */

struct wqe {
	struct peer_wr wr;
	uint8_t *buf;       /* SEND/WRITE payload copy; READ destination */
	uint32_t first_psn; /* PSNs [first_psn, first_psn + npkts) */
	uint32_t npkts;
	uint32_t resp_next; /* READ: responses received so far (packets) */
};

struct saved_resp {
	bool used;
	enum roce_op_kind kind;
	uint32_t psn, npkts;
	uint64_t va;
	uint32_t rkey, len;
	uint64_t orig;
	uint32_t msn;
};

struct held {
	bool used;
	bool rx;
	uint32_t qpn;
	uint64_t release_ns; /* delay: when; 0 for reorder */
	unsigned remaining;  /* reorder: later packets still to overtake it */
	struct peer_tx_info info;
	/* Copies of the peer_tx_info texts: the engine's own word for the
	 * packet (ACK, retransmission ...) and an injection rule's label. */
	char why[48], rule[sizeof ((struct inj_rule *)0)->text];
	size_t len;
	uint8_t frame[PEER_FRAME_MAX];
};

/* A tester SRQ: receive buffers its QPs share. */
struct peer_srq {
	bool used;
	uint32_t id;
	long avail;
	bool xrc;      /* an XRC SRQ, named by srqn in an XRCETH */
	uint32_t srqn;
};

/* A UD QP of the tester attached to a group. */
struct peer_attach {
	bool used;
	uint32_t qpn;
	struct roce_mcast_group g;
};

struct qp {
	bool used;
	struct peer_qp_cfg cfg;
	bool auto_on, rnr_on, ack_on, error;
	long recv_avail;
	struct peer_srq *srq; /* where its receives come from; NULL: recv_avail */
	uint32_t xrc_srqn;    /* XRC initiator: the SRQ its requests name */

	/* Requester. */
	uint32_t next_psn;
	struct wqe sq[PEER_SQ_DEPTH];
	unsigned sq_head, sq_n;
	unsigned retries_left, rnr_left;
	uint64_t deadline;
	uint64_t rnr_until;
	uint32_t rnr_psn;

	/* Responder. */
	uint32_t epsn, msn, last_rx_psn;
	bool nak_seq_sent;
	bool in_msg;
	enum roce_op_kind msg_kind;
	uint32_t msg_first_psn;
	uint8_t *rbuf;
	size_t rlen, rcap;
	struct peer_mr *wmr;
	uint64_t wva;
	uint32_t wlen, wdone;
	bool uc_dropping;
	struct saved_resp saved[PEER_SAVED_RESP];
	unsigned saved_next;

	/* Timing and observation. */
	uint64_t tx_time[SLOTS];
	uint32_t tx_psn[SLOTS];
	bool tx_seen[SLOTS];
	uint64_t rx_time[SLOTS];
	uint32_t rx_psn[SLOTS];
	bool rx_seen[SLOTS];
	bool sport_known;
	uint16_t sport;
};

struct peer {
	struct peer_io io;
	struct qp qps[PEER_MAX_QPS];
	struct peer_mr mrs[PEER_MAX_MRS];
	unsigned n_mrs;
	uint64_t next_addr;
	uint32_t next_rkey;
	struct peer_wc cq[PEER_CQ_DEPTH];
	unsigned cq_n;
	struct inj_set rules;
	struct inj_rounds tx_rounds, rx_rounds;
	struct held held[PEER_HELD_MAX];
	unsigned n_reorder_held[2]; /* held packets waiting to be overtaken, tx [0] and rx [1] */
	struct peer_timing *timings;
	size_t n_timings, cap_timings;
	struct peer_finding *findings;
	size_t n_findings, cap_findings;
	/* Past PEER_MAX_FINDINGS and PEER_MAX_TIMINGS a case's records are
	 * counted, not kept: a hostile DUT must not grow them without bound. */
	uint64_t findings_dropped, timings_dropped;
	/* Message and completion buffers: reused, so that a steady flow of
	 * packets allocates nothing. The last polled completion's data is
	 * given back at the next poll. */
	struct bufpool pool;
	void *polled;
	struct peer_stats stats;
	struct peer_srq srqs[PEER_MAX_SRQS];
	struct peer_attach attach[PEER_MAX_ATTACH];
	uint64_t now;
	uint8_t scratch[PEER_FRAME_MAX];
};

#define QP_OR_RETURN(v)                                   \
	struct qp *q = peer_find_qp(p, qpn);                   \
	if (!q)                                           \
		return v

/* ---- peer.c ---- */

/* Inline: every packet in and out looks its QP up. */
static inline struct qp *peer_find_qp(struct peer *p, uint32_t qpn)
{
	for (unsigned i = 0; i < PEER_MAX_QPS; i++)
		if (p->qps[i].used && p->qps[i].cfg.qpn == qpn)
			return &p->qps[i];
	return NULL;
}

/* The MR that holds [va, va + len) under rkey with the access wanted, or NULL. */
struct peer_mr *peer_mr_check(struct peer *p, uint32_t rkey, uint64_t va, uint64_t len, unsigned access);
/* A finding of the engine about the DUT (error: it broke a "must"). */
void peer_finding(struct peer *p, struct qp *q, enum roce_rule rule, uint32_t psn, bool error, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* A completion owns its data (wc->data) until it is polled; then the
 * engine keeps it until the next reset. */
static inline void peer_complete(struct peer *p, struct qp *q, const struct peer_wc *wc)
{
	if (p->cq_n == PEER_CQ_DEPTH) {
		/* The oldest completion gives way, with its data: a case reads
		 * its own, and a DUT that floods the tester with SENDs must not
		 * make it keep every one. */
		bufpool_put(&p->pool, p->cq[0].data);
		memmove(p->cq, p->cq + 1, (PEER_CQ_DEPTH - 1) * sizeof *p->cq);
		p->cq_n--;
	}
	p->cq[p->cq_n] = *wc;
	p->cq[p->cq_n].qpn = q->cfg.qpn;
	p->cq[p->cq_n].ts_ns = p->now;
	p->cq_n++;
}


/* ---- peer_wire.c ---- */

/* Builds d's frame and sends it through the tx rules. */
void peer_build_send(struct peer *p, struct qp *q, struct roce_desc *d, const char *why);
/* An ACK, NAK or RNR NAK with this syndrome and the QP's MSN. */
void peer_send_aeth(struct peer *p, struct qp *q, uint32_t psn, uint8_t syndrome, const char *why);
/* A packet held by a delay or reorder rule goes on its way. */
void peer_release_held(struct peer *p, struct held *h);

/* ---- peer_requester.c ---- */

void peer_transmit_from(struct peer *p, struct qp *q, uint32_t from, const char *why);
void peer_retry_or_fail(struct peer *p, struct qp *q, uint32_t from, const char *why);
void peer_handle_response(struct peer *p, struct qp *q, const struct roce_pkt *pk);

static inline struct wqe *peer_wqe_at(struct qp *q, unsigned i)
{
	return &q->sq[(q->sq_head + i) % PEER_SQ_DEPTH];
}

static inline bool peer_psn_in(uint32_t psn, uint32_t first, uint32_t n)
{
	int32_t d = roce_psn_diff(psn, first);
	return d >= 0 && (uint32_t)d < n;
}

/* The checks and the processing of a DUT packet for one tester QP (after
 * the injection rules): timing, then the requester's or the responder's
 * part. */
void peer_rx_qp(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint64_t ts, bool from_hold);

/* ---- peer_mcast.c ---- */

/* The tester QPs attached to the group a packet is sent to (its
 * destination IP), up to max; 0 for a packet to no group of theirs. */
unsigned peer_mcast_members(struct peer *p, const struct roce_pkt *pk, struct qp **out, unsigned max);

/* ---- peer_srq.c ---- */

/* Takes one receive buffer of the SRQ; false when none is left. */
bool peer_srq_take(struct peer_srq *s);

/* ---- peer_xrc.c ---- */

/* Whether the QP is reliable (RC, or XRC, which is RC-like). */
static inline bool peer_reliable(const struct qp *q)
{
	return q->cfg.type == ROCE_T_RC || q->cfg.type == ROCE_T_XRC;
}
/* The XRCETH of a request the tester's XRC initiator sends. */
void peer_xrc_fill(const struct qp *q, const struct peer_wr *wr, struct roce_desc *d);
/* An XRC target: the receive queue of the request, the XRC SRQ its
 * XRCETH names (q->srq). False when the tester has no SRQ of that number:
 * the caller refuses the request (NAK Remote Access Error). */
bool peer_xrc_select(struct peer *p, struct qp *q, const struct roce_pkt *pk);

/* ---- peer_placement.c ---- */

static inline bool peer_placement_op(enum peer_op op)
{
	return op == PEER_OP_FLUSH || op == PEER_OP_ATOMIC_WRITE;
}
static inline bool peer_placement_kind(enum roce_op_kind k)
{
	return k == ROCE_K_FLUSH || k == ROCE_K_ATOMIC_WRITE;
}
/* The request packet of a FLUSH (FETH + RETH) or ATOMIC WRITE (RETH and
 * its 8 bytes). */
void peer_placement_build(struct peer *p, struct qp *q, const struct wqe *w, uint32_t psn, const char *why);
/* The responder's side: executes a FLUSH or ATOMIC WRITE at the expected
 * PSN and answers as a conforming responder does (an RDMA READ Response
 * Only of no payload; a NAK when refused); a duplicate gets the response
 * again. */
void peer_placement_execute(struct peer *p, struct qp *q, const struct roce_pkt *pk, uint32_t psn);
void peer_placement_replay(struct peer *p, struct qp *q, uint32_t psn, uint32_t msn);

/* ---- peer_responder.c ---- */

void peer_handle_ud(struct peer *p, struct qp *q, const struct roce_pkt *pk);
void peer_handle_uc(struct peer *p, struct qp *q, const struct roce_pkt *pk);
void peer_handle_rc_request(struct peer *p, struct qp *q, const struct roce_pkt *pk);

#endif
