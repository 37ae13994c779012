/*
 * The stateful peer engine: the tester's side of every connection to the
 * DUT, for RC, UC and UD, as requester and as responder.
 *
 * The engine knows nothing of sockets or clocks: frames come in through
 * peer_rx() with their timestamps, go out through the send callback, and
 * time advances through peer_advance(). So two engines can be wired back
 * to back in a unit test with virtual time, and the runner drives one over
 * libpcap with real time.
 *
 * Requester: messages are segmented by the path MTU into PSN-numbered
 * packets; ACKs, NAKs, READ responses and atomic ACKs are interpreted;
 * packets are retransmitted on NAK PSN Sequence Error (go-back-N), on an
 * implied NAK and on the local ACK timeout; RNR NAKs wait the encoded
 * time; retry counters run out into error completions.
 *
 * Responder: PSNs are checked against the expected PSN (NAK PSN Sequence
 * Error once, re-ACK duplicates, replay READs and atomics from saved
 * state); SEND/WRITE/READ/atomics execute against the tester's memory
 * with R_Key, bounds and rights checks; RNR NAKs when no receive is
 * posted; READ responses are segmented by the path MTU.
 *
 * Every DUT packet is timed against the tester packet it answers, and
 * every tester packet passes through the injection rules.
 *
 * The per-packet paths (peer_inject, peer_rx, the timers, peer_poll)
 * allocate nothing once warm: buffers come from a pool and the records
 * get their room at peer_new (tests/test_peer_alloc.c counts).
 */
#ifndef ROCE_TESTER_PEER_H
#define ROCE_TESTER_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_protocol.h"
#include "inject.h"
#include "roce/roce.h"

#define PEER_MAX_QPS 64
#define PEER_MAX_MRS 64
#define PEER_SQ_DEPTH 64
#define PEER_CQ_DEPTH 256
#define PEER_FRAME_MAX 9216
#define PEER_SAVED_RESP 16
#define PEER_HELD_MAX 256
/* Records kept per case (peer_findings, peer_timings); more are counted. */
#define PEER_MAX_FINDINGS 1000
#define PEER_MAX_TIMINGS 100000


/* What a work request does, and what its completion reports: the agent
 * protocol's completion opcodes (work-completion statuses are its
 * enum ap_wc_status). */
enum peer_op {
	PEER_OP_SEND = AP_WC_SEND,
	PEER_OP_WRITE = AP_WC_RDMA_WRITE,
	PEER_OP_READ = AP_WC_RDMA_READ,
	PEER_OP_CMP_SWAP = AP_WC_COMP_SWAP,
	PEER_OP_FETCH_ADD = AP_WC_FETCH_ADD,
	PEER_OP_ATOMIC_WRITE = AP_WC_ATOMIC_WRITE, /* IBTA 1.5 (peer_placement.c) */
	PEER_OP_FLUSH = AP_WC_FLUSH,
	PEER_OP_RECV = AP_WC_RECV, /* completions of the responder's receives */
	PEER_OP_RECV_WRITE_IMM = AP_WC_RECV_RDMA_WITH_IMM,
};
const char *peer_op_name(enum peer_op op);

struct peer_wc {
	uint64_t wr_id;
	uint32_t qpn;
	enum ap_wc_status status;
	enum peer_op op;
	uint32_t byte_len;
	bool has_imm;
	uint32_t imm;
	uint64_t value;      /* atomics: the original remote value */
	uint32_t src_qp;     /* UD receives */
	bool has_inv;        /* a SEND with Invalidate: the rkey its IETH named */
	uint32_t inv_rkey;
	uint8_t *data;       /* received or read bytes, owned by the engine: valid until the next
			      * peer_poll or peer_reset (the buffer is then reused); a completion
			      * pushed out of the full CQ takes its data with it */
	uint64_t ts_ns;      /* when it completed */
};

/* A memory region of the tester, target of the DUT's WRITE/READ/atomics. */
#define PEER_ACC_WRITE 0x1u
#define PEER_ACC_READ 0x2u
#define PEER_ACC_ATOMIC 0x4u
#define PEER_ACC_FLUSH_GLOBAL 0x8u      /* FLUSH of placement type global visibility */
#define PEER_ACC_FLUSH_PERSISTENT 0x10u /* ... and persistence */

struct peer_mr {
	uint64_t addr;
	uint32_t rkey;
	uint8_t *buf;
	size_t len;
	unsigned access;
};

struct peer_qp_cfg {
	enum roce_transport type; /* RC, UC, UD or XRC (peer_xrc.c) */
	uint32_t qpn;             /* the tester's QPN */
	uint32_t remote_qpn;      /* the DUT's QPN */
	uint32_t sq_psn;          /* first PSN the tester sends */
	uint32_t rq_psn;          /* first PSN the tester expects */
	unsigned pmtu;            /* bytes */
	uint32_t qkey;            /* UD: the tester QP's Q_Key */
	uint32_t remote_qkey;     /* UD: the DUT QP's Q_Key */
	struct roce_endpoint ep;  /* addressing towards the DUT */
	uint64_t ack_timeout_ns;  /* local ACK timeout; 0: none */
	unsigned retry_cnt;       /* 0..7 */
	unsigned rnr_retry;       /* 0..7, 7 = forever */
	unsigned rnr_timer;       /* code the tester sends in its RNR NAKs */
};

/* One timed DUT packet. */
struct peer_timing {
	uint32_t qpn;
	uint32_t psn;
	uint8_t opcode;
	uint64_t rx_ns;
	/* For a response: since the tester last sent the request it answers;
	 * for a request: since the DUT last sent this PSN (a retransmission),
	 * or 0. */
	uint64_t delta_ns;
	const char *what; /* "response" or "retransmission" */
};

/* A finding on the DUT's behaviour that the engine noticed (wrong READ
 * segmentation, a message without AckReq, a ghost ACK ...). */
struct peer_finding {
	enum roce_rule rule;
	uint32_t qpn, psn;
	uint64_t ts_ns;
	bool error; /* false: informative */
	/* The engine's own sentence: names from libroce's tables and numbers
	 * (cut visibly, were it ever longer). */
	char text[200];
};

/* How the engine hands a frame to the wire. why says what the packet is
 * ("request", "retransmission", "ACK", "RNR NAK", "READ response", ...),
 * and rule names the injection rule that acted on it, if any. */
struct peer_tx_info {
	uint32_t qpn;
	uint32_t psn;
	uint8_t opcode;
	unsigned round;
	const char *why;
	const char *rule;
};

struct peer_io {
	void *ctx;
	/* Returns 0, or -1 when the frame could not be sent. */
	int (*send)(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info);
	/* Optional: told about rule actions that put nothing on the wire
	 * (a dropped packet), for the record. */
	void (*note)(void *ctx, const struct peer_tx_info *info, const char *what);
};

struct peer;

struct peer *peer_new(const struct peer_io *io);
void peer_free(struct peer *p);
/* Forgets every QP, MR, completion, rule and record (a new case). */
void peer_reset(struct peer *p);

int peer_qp_add(struct peer *p, const struct peer_qp_cfg *cfg);
/* Per-QP behaviour switches. */
void peer_qp_set_auto(struct peer *p, uint32_t qpn, bool on);    /* answer and retransmit by itself */
void peer_qp_set_rnr(struct peer *p, uint32_t qpn, bool on);     /* refuse SENDs with RNR NAK */
void peer_qp_set_ack(struct peer *p, uint32_t qpn, bool on);     /* ACK requests that ask for it */
void peer_qp_set_rnr_timer(struct peer *p, uint32_t qpn, unsigned code);
/* Receives: -1 unlimited (the default), or a count that SENDs consume. */
void peer_qp_set_recv(struct peer *p, uint32_t qpn, long count);
/* The next PSN the tester's requester will use, and setting it (for
 * scripted injection that takes PSNs from the engine). */
uint32_t peer_qp_next_psn(struct peer *p, uint32_t qpn);
void peer_qp_set_next_psn(struct peer *p, uint32_t qpn, uint32_t psn);
/* The responder's expected PSN and the last DUT request PSN seen. */
uint32_t peer_qp_epsn(struct peer *p, uint32_t qpn);
uint32_t peer_qp_last_rx_psn(struct peer *p, uint32_t qpn);
uint32_t peer_qp_msn(struct peer *p, uint32_t qpn);
bool peer_qp_exists(struct peer *p, uint32_t qpn);
bool peer_qp_in_error(struct peer *p, uint32_t qpn);

/* UD multicast (peer_mcast.c): the tester's side of a UD QP receives the
 * datagrams sent to a group (destination IP the group, DestQP 0xFFFFFF);
 * each attached QP takes its own copy. Attach returns 0, or -1 when the QP
 * is not a UD QP of the engine, is attached already, or the table is full. */
#define PEER_MAX_ATTACH 64
int peer_mcast_attach(struct peer *p, uint32_t qpn, const struct roce_mcast_group *g);
void peer_mcast_detach(struct peer *p, uint32_t qpn, const struct roce_mcast_group *g);
/* Readdresses an endpoint to a group: destination IP and MAC the group's,
 * DestQP 0xFFFFFF (a packet the tester sends to it). */
void peer_mcast_address(struct roce_endpoint *ep, const struct roce_mcast_group *g);

/* Shared receive queues of the tester (peer_srq.c): a count of receive
 * buffers that the QPs using it share; none left, a SEND is refused as
 * with a QP's own count (RNR NAK on RC). srq is the caller's number for
 * it; setting the count of an unknown one makes it. Return 0, or -1. */
#define PEER_MAX_SRQS 16
int peer_srq_set_recv(struct peer *p, uint32_t srq, long count);
long peer_srq_recv_left(struct peer *p, uint32_t srq);
/* The QP's receives come from the SRQ from now on. */
int peer_qp_set_srq(struct peer *p, uint32_t qpn, uint32_t srq);

/* XRC (peer_xrc.c). The tester's side of a DUT XRC target is an XRC
 * initiator: its requests carry an XRCETH naming srqn, unless a work
 * request names another. The tester's side of a DUT XRC initiator is a
 * target: each request takes its receive from the tester's XRC SRQ its
 * XRCETH names (an SRQ made XRC with a number); a number the tester has
 * no SRQ of is refused with NAK Remote Access Error, as a conforming
 * target does. Return 0, or -1 (no such QP or SRQ, a number in use). */
int peer_qp_set_xrc_srqn(struct peer *p, uint32_t qpn, uint32_t srqn);
int peer_srq_set_xrc(struct peer *p, uint32_t srq, uint32_t srqn);

/* Registers tester memory; addr and rkey are chosen by the engine. */
const struct peer_mr *peer_mr_add(struct peer *p, size_t len, unsigned access, uint8_t fill);

/* A request on a tester QP. data is copied (SEND/WRITE payload); len is the
 * READ length. Returns 0, or -1 with a reason in err. */
struct peer_wr {
	uint64_t wr_id;
	enum peer_op op;
	const uint8_t *data;
	uint32_t len;
	uint64_t remote;
	uint32_t rkey;
	uint64_t compare, swap_add;
	bool has_imm;
	uint32_t imm;
	bool has_inv;
	uint32_t inv_rkey;
	bool solicited;
	/* ATOMIC_WRITE: its 8 bytes are swap_add, big-endian on the wire.
	 * FLUSH: len is the range, flush_type the FETH placement type
	 * (1 global, 2 persistent, 3 both), flush_level its selectivity
	 * level (0 the range, 1 the whole region). */
	uint8_t flush_type, flush_level;
	/* XRC: the SRQ its XRCETH names; 0 the QP's (peer_qp_set_xrc_srqn). */
	uint32_t srqn;
};
int peer_post(struct peer *p, uint32_t qpn, const struct peer_wr *wr, uint64_t now_ns, char *err, size_t errlen);

/* A received frame (any: frames for other QPs or not RoCEv2 are ignored).
 * Returns the tester QPN it belonged to, or 0. */
uint32_t peer_rx(struct peer *p, const uint8_t *frame, size_t len, uint64_t ts_ns);

/* Sends a frame built by the caller (scripted injection) through the tx
 * rules. Returns 0, or -1 if the send failed. */
int peer_inject(struct peer *p, uint32_t qpn, const uint8_t *frame, size_t len, uint64_t now_ns, const char *why);

/* Runs the timers (retransmission, RNR waits, delayed and held frames). */
void peer_advance(struct peer *p, uint64_t now_ns);
/* The earliest time a timer is due, or UINT64_MAX. */
uint64_t peer_next_deadline(struct peer *p);

/* Completions (tester side): take the oldest one of a QP. */
bool peer_poll(struct peer *p, uint32_t qpn, struct peer_wc *wc);

/* Injection rules. */
struct inj_set *peer_rules(struct peer *p);

/* Records. */
size_t peer_timings(struct peer *p, const struct peer_timing **out);
size_t peer_findings(struct peer *p, const struct peer_finding **out);
/* How many findings and timings of the case were counted but not kept. */
void peer_records_dropped(struct peer *p, uint64_t *findings, uint64_t *timings);
struct peer_stats {
	uint64_t tx, rx, retransmissions, acks_sent, naks_sent, rnr_naks_sent, dropped_by_rule;
};
const struct peer_stats *peer_stats(struct peer *p);

#endif
