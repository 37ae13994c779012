/*
 * What dutpeer's files share: the peer (the raw socket towards the DUT,
 * the agent connection, what the run has seen), a QP on the DUT with the
 * peer's side of it, packets built with libroce, the checks every packet
 * from the DUT gets, and the scenarios.
 *
 *   client.c      the agent protocol: sessions, QPs on the DUT, CQs, MRs
 *   wire.c        packets to the DUT, packets from it and their checks
 *   sc_rc.c       RC responder: SEND, SEND with Invalidate, QP after NAKs
 *   sc_req.c      RC requester: a multi-packet SEND with Immediate
 *   sc_drops.c    every silent drop with its counter
 *   sc_ud.c       UD receive and send
 *   sc_cm.c       the connection manager on QP1
 *   sc_fuzz.c     random packets that reach the transport
 *   sc_cnp.c      CNP pacing (congestion management)
 *   sc_srq.c      shared receive queues: order, RNR, limit and Last WQE events
 *   sc_mcast.c    UD multicast: delivery, sending, the CM join's report
 *   sc_mw.c       memory windows: bounds, QP, LOCAL_INV, rebind, remote invalidation
 *   sc_xrc.c      XRC target and initiator
 *   sc_placement.c FLUSH and ATOMIC WRITE, responder and requester
 *   main.c        the scenarios, fault profiles, set-up
 */
#ifndef ROCE_DUTPEER_H
#define ROCE_DUTPEER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <json-glib/json-glib.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/roce.h"
#include "text.h"

/* The peer: one per run. */
struct peer {
	int ipv;
	bool rcm;
	int raw, udp4, udp6;
	uint8_t my_mac[6], dut_mac[6];
	uint8_t my_ip[16], dut_ip[16];
	char agent_host[NI_MAXHOST], agent_port[NI_MAXSERV];
	char *token;
	/* agent connection */
	int afd;
	FILE *ain;
	unsigned next_id;
	JsonParser *reply;
	char err_code[64], err_msg[512];
	uint32_t next_qpn;
	uint32_t cm_gsi_psn; /* the PSN of the peer's next CM MAD from QP1 */
	/* the scenario running, and why it failed */
	const char *scenario;
	char fail_msg[512];
	/* tx-format tracking */
	unsigned violations;
	uint32_t sport_qpn[64];
	uint16_t sport[64];
	unsigned n_sport;
};

extern struct peer P;

/* The address vector the DUT's QPs get towards the peer. */
#define AV_TC (26 << 2) /* DSCP 26, ECN left to the DUT */
#define AV_HOP 33
#define PMTU 1024

/* Fails the scenario (returns false) with a message unless cond holds. */
#define REQUIRE(cond, ...)                                                              \
	do {                                                                            \
		if (!(cond)) {                                                          \
			text_printf(P.fail_msg, sizeof P.fail_msg, __VA_ARGS__);        \
			fprintf(stderr, "  %s: %s:%d: %s\n", P.scenario, __FILE__, __LINE__, P.fail_msg); \
			return false;                                                   \
		}                                                                       \
	} while (0)

/* A QP on the DUT and the peer's side of it. */
struct dq {
	int pd, cq, mr, qp;
	uint32_t qpn;      /* DUT QP */
	uint32_t my_qpn;   /* the peer's QP */
	uint64_t addr;     /* MR */
	uint32_t rkey, lkey;
	uint64_t mr_len;
	uint32_t epsn;     /* what the DUT expects from us */
	uint32_t dut_psn;  /* what the DUT sends from */
	unsigned msn;
	struct roce_endpoint ep; /* peer -> DUT */
	const char *type;
};

struct dq_opts {
	const char *type;         /* "RC" (default), "UC", "UD" */
	const char *access;       /* JSON list */
	int max_dest_rd_atomic;   /* default 4 */
	int max_rd_atomic;        /* default 4 */
	int min_rnr_timer;        /* default 12 */
	int timeout;              /* default 16 (268 ms): far above scheduling delays on a loaded host */
	int retry_cnt, rnr_retry; /* default 3, 3 */
	const char *state;        /* target state, default RTS */
	uint64_t mr_len;          /* default 65536 */
	int recv_wqes;            /* receive WQEs to post (default 4, 4096 bytes each) */
	bool same_session;        /* in the session of the QP made before (default: a new one) */
	uint32_t epsn;            /* the DUT's expected PSN; 0: a default well away from the wrap */
	int pd;                   /* a PD of the session to use (same_session); 0: a new one */
	int srq;                  /* the QP takes its receives from this SRQ (none are posted); 0: none */
};

/* A packet from the DUT. */
struct got {
	uint8_t buf[16384];
	size_t len;
	struct roce_pkt p;
	const uint8_t *bth;
	uint32_t psn;
	const struct roce_opcode_info *op;
	double t_us;
};

/* A completion on the DUT. */
struct wc {
	char status[32], opcode[32];
	uint64_t wr_id;
	uint32_t byte_len, imm, src_qp;
	bool grh;
};

/* client.c */
bool agent_connect(void);
void agent_close(void);
/* Sends {"id", "method", "params": <fmt>} and returns the result object, or
 * NULL with P.err_code/err_msg set. The object lives until the next call. */
JsonObject *call(const char *method, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int64_t jint(JsonObject *o, const char *m); /* -1 when absent */
bool session_start(void);
uint64_t counter(const char *name);
const char *peer_gid(void);
/* q->ep: the peer's side of the DUT's QP q (q->qpn set). */
void peer_endpoint(struct dq *q);
/* A QP on the DUT as o asks, connected to a peer QP of its own. */
bool dut_qp(struct dq *q, struct dq_opts o);
/* Polls the DUT's CQ; returns how many completions (first in *w), -1 on error. */
int poll_cq(struct dq *q, int timeout_ms, struct wc *w);
bool mr_read(struct dq *q, uint64_t off, size_t len, uint8_t *out);
bool mr_write(struct dq *q, uint64_t off, const uint8_t *data, size_t len);
const char *qp_state(struct dq *q);
bool post_send(struct dq *q, const char *op, int wr_id, uint64_t off, uint32_t len, const char *extra);

/* wire.c */
int64_t now_ms(void);
void sleep_ms(int ms);
void desc(struct dq *q, struct roce_desc *d, const char *opname, uint32_t psn);
void tx(struct roce_desc *d);
long build(struct roce_desc *d, uint8_t *buf, size_t cap);
void tx_raw(const uint8_t *buf, size_t n);
const uint8_t *pattern(unsigned seed);
void tx_req(struct dq *q, const char *opname, uint32_t psn, const void *data, size_t len, bool ackreq);
bool write_only(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, const uint8_t *data, size_t len);
void tx_ack(struct dq *q, uint32_t psn, unsigned type, unsigned value, unsigned msn);
/* A tx-format violation of rule by the DUT (the pseudo-scenario fails). */
void violation(const char *rule, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next RoCEv2 packet from the DUT to QP my_qpn (0: any), within ms. */
bool rx(uint32_t my_qpn, int ms, struct got *g);
bool nothing_for(uint32_t my_qpn, int ms);
const uint8_t *aeth_of(struct got *g);
bool is_op(struct got *g, const char *name);
bool expect_aeth(struct dq *q, int ms, unsigned type, int value, uint32_t psn, struct got *g);
bool expect_ack(struct dq *q, uint32_t psn, struct got *g);
bool expect_nak(struct dq *q, unsigned code, uint32_t psn);
bool expect_req(struct dq *q, const char *opname, uint32_t psn, int ms, struct got *g);

/* The scenarios: true when it passed. */
bool sc_console(void);
bool sc_send_only(void);
bool sc_send_inv(void);
bool sc_resp_errors(void);
bool sc_req_send(void);
bool sc_drops(void);
bool sc_ud_send(void);
bool sc_req_ud_send(void);
bool sc_cm_connect(void);
bool sc_fuzz(void);
bool sc_cnp_pacing(void);
bool sc_srq_order(void);
bool sc_srq_events(void);
bool sc_mcast_deliver(void);
bool sc_mcast_send(void);
bool sc_cm_join(void);
bool sc_mw_bounds(void);
bool sc_mw_type2_qp(void);
bool sc_mw_local_inv(void);
bool sc_mw_rebind(void);
bool sc_mw_send_inv(void);
bool sc_mw_type1(void);
bool sc_xrc_target(void);
bool sc_xrc_initiator(void);
bool sc_flush(void);
bool sc_flush_order(void);
bool sc_atomic_write(void);
bool sc_placement_caps(void);
bool sc_req_placement(void);

#endif
