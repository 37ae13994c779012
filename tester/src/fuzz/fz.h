/*
 * What the fuzzer's files share (fuzz.h is the stage's API):
 *   fuzz.c      the run: set-up, batches, findings, reduction, the record
 *   dut.c       the DUT through its agent: session, objects, QPs, memory
 *   layout.c    the regions, windows and keys, their patterns and rights
 *   gen.c       requests mutated from valid ones (the step generator)
 *   build.c     a step as frames, built by libroce for one QP
 *   judge.c     what a conforming DUT may answer, and the answers judged
 *   exec.c      steps on the wire: many QPs at once, one step each in flight
 *   health.c    after each batch: control exchange, probes, memory, console
 *   reduce.c    delta debugging of a finding's request sequence
 *   casefile.c  a finding as a conformance case file
 *   record.c    the run and its findings as JSON (results.json's "fuzz")
 */
#ifndef ROCE_TESTER_FZ_H
#define ROCE_TESTER_FZ_H

#include <glib.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_client.h"
#include "fuzz.h"
#include "peer.h"
#include "rawio.h"
#include "roce/roce.h"

#define FZ_NS_PER_MS 1000000ull
#define FZ_NS_PER_S 1000000000ull

/* ---- A deterministic generator (xoshiro256**, seeded by splitmix64) ---- */

struct fz_rng {
	uint64_t s[4];
};

/* The stream of (seed, a, b): every batch and QP has its own, so what is
 * generated never depends on timing. */
void fz_rng_seed(struct fz_rng *r, uint64_t seed, uint64_t a, uint64_t b);
uint64_t fz_rng_next(struct fz_rng *r);
/* 0 .. n-1 (n > 0). */
uint32_t fz_below(struct fz_rng *r, uint32_t n);
/* true with probability num/den. */
bool fz_chance(struct fz_rng *r, uint32_t num, uint32_t den);

/* The known contents of region r at offset i, and of a request's payload
 * made from fill at byte i: what the oracles compare memory with. */
uint8_t fz_pattern(unsigned region, uint64_t i);
uint8_t fz_payload_byte(uint32_t fill, uint64_t i);

/* ---- Regions, windows and keys (layout.c) ---- */

#define FZ_MAX_REGIONS 24
#define FZ_REGION_LEN 4096u
#define FZ_MWBASE_LEN 8192u

enum fz_rkind {
	FZ_RK_MR,     /* a memory region */
	FZ_RK_MW,     /* a memory window, in an MR */
	FZ_RK_RECV,   /* receive buffers: no remote key, not judged */
};

struct fz_region {
	char name[12];     /* its name in a case file: rw, ro, wo, none, g0, other, mwb, w1 ... */
	enum fz_rkind kind;
	int pd;            /* 0 the QPs' protection domain, 1 another one */
	int64_t handle;    /* the agent's MR or MW handle */
	uint64_t addr, len; /* what the rkey reaches (a window: its range, in its MR's addresses) */
	uint32_t rkey;
	unsigned access;   /* MR: the registration's AP_ACCESS_* flags; window: its remote rights */
	bool valid;        /* the rkey still reaches memory (false: deregistered or invalidated) */
	bool guard;        /* a guard: registered around a target, reached by no key */
	int mw_type;       /* a window: 1 or 2 */
	int mw_mr;         /* a window: its MR's index */
	uint64_t mw_off;   /* a window: where it starts in that MR */
	bool mw_ctl;       /* a type 2 window bound by the control QP: every other QP's key is wrong */
	uint8_t *shadow;   /* an MR: what it must hold (len bytes) */
	uint8_t *dirty;    /* an MR: bytes a request of the batch may have changed */
	bool writable;     /* some valid key may change it */
	uint8_t fill;      /* the fill byte its case file registers it with */
};

/* Remote rights a request needs. */
#define FZ_RIGHT_READ 0x1u
#define FZ_RIGHT_WRITE 0x2u
#define FZ_RIGHT_ATOMIC 0x4u
#define FZ_RIGHT_FLUSH 0x8u

struct fz;
struct fz_qp;

/* What an rkey, a VA and a length reach from a QP: the region the key
 * names (-1: none of ours), the MR holding the bytes and where, and, when
 * the access is not allowed, the rule that says so and why. */
struct fz_reach {
	int region;      /* the key's region, -1 when it names none */
	int mr;          /* the MR the bytes are in (a window's MR), -1 */
	uint64_t mr_off; /* offset of va in that MR */
	bool allowed;
	bool rights;     /* refused for the region's rights alone (the key and range are good) */
	enum roce_rule rule; /* why not (ROCE_RULE_NONE when allowed) */
	char why[120];
};
void fz_reach(const struct fz *z, const struct fz_qp *q, uint32_t rkey, uint64_t va, uint64_t len, unsigned right,
	      struct fz_reach *out);
/* The region whose rkey this is, or -1. */
int fz_region_by_rkey(const struct fz *z, uint32_t rkey);
/* Builds the layout for the DUT's capabilities (no agent calls). */
void fz_layout_plan(struct fz *z);
/* Resets every MR's shadow to its pattern. */
void fz_layout_fill(struct fz *z, int region);

/* ---- Steps: a request message of one to a few packets ---- */

#define FZ_MAX_PKTS 4
#define FZ_MAX_SETS 6
#define FZ_MAX_STEPS 32 /* steps of one QP a finding is reduced from, at most */

/* A field's value, symbolic where the DUT chooses it, so that a replay on
 * a fresh QP and a case file say the same thing. */
enum fz_val {
	FZ_V_LIT,   /* v */
	FZ_V_ADDR,  /* region's address + v */
	FZ_V_RKEY,  /* region's rkey ^ v */
	FZ_V_QKEY,  /* the DUT QP's Q_Key ^ v */
	FZ_V_SRQN,  /* the XRC SRQ's number + v */
	FZ_V_TQPN,  /* the tester QP's number + v */
};

struct fz_set {
	uint16_t field; /* enum roce_field */
	uint8_t kind;   /* enum fz_val */
	int8_t region;
	uint64_t v;
};

enum fz_icrc { FZ_ICRC_GOOD, FZ_ICRC_BAD, FZ_ICRC_ZERO };

/* What was mutated, for reports and for the reduction's second pass. */
#define FZ_M_OPCODE 0x0001u
#define FZ_M_LEN 0x0002u
#define FZ_M_DMALEN 0x0004u
#define FZ_M_VA 0x0008u
#define FZ_M_RKEY 0x0010u
#define FZ_M_PSN 0x0020u
#define FZ_M_PAD 0x0040u
#define FZ_M_FIELD 0x0080u
#define FZ_M_ICRC 0x0100u
#define FZ_M_CUT 0x0200u
#define FZ_M_ACKREQ 0x0400u

struct fz_pkt {
	uint8_t opcode;
	int32_t psn;       /* from the step's base PSN (the QP's expected PSN when it starts) */
	uint32_t len;      /* payload bytes */
	uint32_t fill;     /* payload pattern */
	uint8_t icrc;      /* enum fz_icrc */
	uint16_t cut;      /* 0, or the frame's last cut bytes are not sent (truncated) */
	uint8_t nset;
	struct fz_set set[FZ_MAX_SETS];
	uint16_t mut;      /* FZ_M_* */
};

struct fz_step {
	uint8_t npkt;
	struct fz_pkt pkt[FZ_MAX_PKTS];
	uint32_t serial;   /* the run's step number (0: a replay's) */
};

/* The value a set field takes for QP q. */
uint64_t fz_set_value(const struct fz *z, const struct fz_qp *q, const struct fz_set *s);
/* A packet's field set by the step (true with *out), else false. */
bool fz_pkt_field(const struct fz_pkt *p, enum roce_field f, const struct fz_set **out);
/* Removes set i of a packet. */
void fz_pkt_unset(struct fz_pkt *p, unsigned i);
/* One line: "RC RDMA READ Request psn+0 remote=rw+4000 rkey=rw dmalen=100". */
void fz_step_text(const struct fz *z, const struct fz_step *s, GString *out);

/* ---- QPs ---- */

enum fz_qkind { FZ_Q_RC, FZ_Q_UC, FZ_Q_UD, FZ_Q_XRC };
const char *fz_qkind_name(enum fz_qkind k);

#define FZ_MAX_QPS 64
#define FZ_RESP_MAX 16

/* PSNs first .. first + n - 1. */
struct fz_psn_range {
	uint32_t first, n;
};

/* A WRITE a First opened: its region (of the R_Key), VA and the bytes
 * placed so far. */
#define FZ_MAX_OPEN 6
struct fz_open_write {
	int region;
	uint64_t va, done;
};

/* One DUT packet that answered a step. */
struct fz_resp {
	uint8_t opcode;
	uint32_t psn;
	uint8_t syndrome; /* AETH, or 0xFF without one */
	uint32_t len;     /* payload */
	uint64_t ts_ns;
};

/* What a conforming DUT may do with one packet of a step (judge.c). */
#define FZ_F_ANY 0x1u      /* no answer at all may come from it (dropped, CA17-24 ...) */
#define FZ_F_POSITIVE 0x2u /* no positive answer: no ACK, data or atomic ACK for it */
#define FZ_F_DELIVER 0x4u  /* no receive completion for it */
#define FZ_F_QUIET 0x8u    /* every answer from the QP breaks a rule (UC: never an ACK or NAK) */

struct fz_expect {
	unsigned forbid;     /* FZ_F_* */
	enum roce_rule rule; /* the rule a forbidden answer breaks */
	char why[160];       /* "the R_Key names no region", "the ICRC is wrong" */
	bool drop_only;      /* a conforming DUT drops it without changing state (packet-level) */
	/* A READ or atomic: where the bytes of its answer must come from. */
	bool reads;
	struct fz_reach reach;
	uint64_t va;
	uint32_t rlen;
};

/* The step in flight on a QP. */
struct fz_flight {
	bool active;
	struct fz_step step;
	uint64_t sent_ns, deadline_ns;
	bool got_terminal;  /* its last answer came */
	uint64_t settle_ns; /* ... and the QP is watched until then for more */
	uint32_t psn[FZ_MAX_PKTS];  /* the PSN each packet carried */
	uint32_t span[FZ_MAX_PKTS]; /* PSNs it reserves (a READ: its response packets) */
	bool request[FZ_MAX_PKTS];  /* a request the DUT's responder may answer */
	struct fz_expect ex[FZ_MAX_PKTS];
	uint32_t base_psn;
	bool epsn_sure;     /* the QP's expected PSN was certain when it was sent */
	uint32_t last_psn;  /* the last PSN its requests take (a READ: its last response's) */
	uint32_t imm;       /* the step's immediate data (UC/UD deliveries are matched by it) */
	bool has_imm;
	uint8_t op_kind[FZ_MAX_PKTS]; /* enum roce_op_kind of each packet as built */
	unsigned n_resp;
	struct fz_resp resp[FZ_RESP_MAX];
	bool judged;        /* a forbidden answer was reported (once a step) */
	bool leak_seen;     /* a leak was reported (once a step) */
	uint32_t rd_next[FZ_MAX_PKTS]; /* READs: the next response PSN, and the bytes so far */
	uint64_t rd_bytes[FZ_MAX_PKTS];
};

/* A step as it went: what it carried and what came back (for the trace
 * of a replay and a case file). */
struct fz_done {
	struct fz_step step;
	uint32_t psn_off[FZ_MAX_PKTS]; /* each packet's PSN - the QP's first expected PSN */
	unsigned n_resp;
	struct fz_resp resp[FZ_RESP_MAX];
	bool epsn_sure;
	bool fatal;         /* it was answered with a fatal NAK */
	bool positive;      /* it was answered positively (ACK, data, atomic ACK) */
	uint32_t imm;       /* UC, UD: the immediate data its delivery carries */
	bool has_imm;
	bool no_delivery;   /* a conforming DUT delivers none of it */
	enum roce_rule deliver_rule;
	char deliver_why[96];
};

struct fz_qp {
	enum fz_qkind kind;
	enum roce_transport t;
	int index;
	int64_t handle, cq;
	uint32_t dut_qpn;
	uint32_t tqpn;      /* the tester's QPN (a new one at each reset) */
	unsigned pmtu;
	uint32_t qkey;      /* UD */
	bool srq;           /* its receives come from the SRQ */
	bool control;       /* the control QP (the peer engine's) */
	struct roce_endpoint ep;
	/* The model of the DUT's side. */
	uint32_t psn0;      /* the PSN it expects first (this incarnation) */
	uint32_t epsn;      /* the PSN it expects next */
	bool sure;          /* epsn is certain */
	bool dead;          /* it answered with a fatal NAK: in Error */
	bool hung;          /* it stopped answering: replaced, not reset (the DUT may hold it by its QPN) */
	unsigned incarnation;
	unsigned recv_posted; /* receives posted and not completed (its own RQ) */
	/* The WRITEs that may be open at the DUT's responder, for where a
	 * Middle or Last lands: more than one when a First may have been
	 * taken as a duplicate, a Middle may not have been taken. */
	struct fz_open_write open[FZ_MAX_OPEN];
	unsigned n_open;
	struct fz_flight fl;
	/* The PSNs the QP's last two steps may still be answered with: an
	 * answer can come after its step's window closed, while the next
	 * step is in flight, and must not be taken for that step's. */
	struct fz_psn_range late[2][FZ_MAX_PKTS + 1];
	unsigned n_late[2];
	/* Steps since its last clean point (a reset, or a probe answered). */
	struct fz_done hist[FZ_MAX_STEPS];
	unsigned n_hist, hist_dropped;
	uint64_t last_probe_ok_ns;
};

/* ---- Observations and findings ---- */

enum fz_kind { FZ_LEAK, FZ_ACCEPT, FZ_HANG, FZ_CORRUPT, FZ_KIND_COUNT };
const char *fz_kind_name(enum fz_kind k);

/* What an oracle saw, before it is a finding. */
struct fz_obs {
	enum fz_kind kind;
	enum roce_rule rule;
	int qp;             /* the QP whose steps show it (-1: the device) */
	uint32_t serial;    /* the step that shows it (0: all the QP's steps so far) */
	bool device;        /* the whole device (a hang of every QP, the agent, the kernel) */
	bool console;       /* ... seen on its kernel console (replays watch it again) */
	char sig[96];       /* what makes two observations the same finding */
	GString *text;      /* one line */
	GString *detail;    /* the evidence */
	int region;         /* corruption and placement: the region concerned */
	uint64_t off, len;  /* ... and the bytes that changed */
	unsigned forbid;    /* wrong acceptance: what was forbidden (FZ_F_*) */
	unsigned pkt;       /* ... of which packet of its step */
	bool from_checks;   /* the packet checks or the flow analysis judged it */
};

#define FZ_FINDING_QPS 4      /* QPs a finding's sequence spans (a device's hang) */
#define FZ_MAX_DEVICE_STEPS 6 /* steps a device's hang is narrowed to */

/* What a finding's QP was, for a replay and its case file. */
struct fz_qp_cfg {
	enum fz_qkind kind;
	unsigned pmtu;
	bool srq;
	uint32_t qkey;
	int index; /* the fuzzed QP it was */
};

struct fz_finding {
	struct fz_obs obs;
	unsigned n_qp;
	struct fz_qp_cfg qps[FZ_FINDING_QPS];
	struct fz_done seq[FZ_MAX_STEPS]; /* the sequence, reduced */
	uint8_t seq_qp[FZ_MAX_STEPS];     /* each step's QP (an index into qps) */
	unsigned n_seq, n_orig;
	bool fails;         /* its rule binds the DUT with a must (else: informative) */
	bool from_clean;    /* the sequence starts where its QP was last known well */
	bool reduced;       /* the reduction ran and the sequence still shows it */
	bool replayable;    /* replays showed it (false: seen once, or the DUT stayed wedged) */
	bool tried;         /* its confirmation and reduction ran */
	unsigned replays;
	uint64_t batch;
	uint32_t serial;
	char id[48];
	char *case_path;
	GArray *places;     /* struct fz_place: what the last replay's requests may have placed */
};

/* A step of the batch as it was sent (for a device that stops answering). */
struct fz_tl {
	int qp;
	uint32_t serial;
	bool expects;  /* a conforming DUT answers it */
	bool answered;
};


/* ---- The run ---- */

#define FZ_MAX_OBS 64
#define FZ_MAX_FINDINGS 32

struct fz_stats {
	uint64_t requests, frames_tx, frames_rx, steps, batches;
	uint64_t resets, probes, agent_calls, replays;
	uint64_t by_kind[FZ_KIND_COUNT]; /* observations */
	uint64_t answered, silent, late;
	uint64_t lat_sum_ns, lat_n, lat_max_ns;
	uint64_t exec_ns, health_ns, recover_ns; /* where the batches' time went */
	uint64_t memory_ns, completions_ns, control_ns, probes_ns; /* ... of health_ns */
};

struct fz {
	const struct fuzz_opts *o;
	struct rawio io;
	bool io_open;
	struct agent agent;
	char *token;
	bool agent_dead;
	char err[512];
	/* What the DUT is. */
	unsigned caps;       /* AP_CAP_* */
	unsigned port_mtu;
	int sgid_index;
	uint8_t dut_ip[16], dut_mac[6];
	char dut_gid[64], dut_name[64];
	char resolved_by[64];
	JsonObject *dut_device, *dut_port, *hello;
	JsonArray *dut_gids;
	/* Objects. */
	int64_t pd[2];
	int64_t cq_rc, cq_ud, cq_uc, cq_ctl, cq_xrc;
	int64_t srq, xrcd, xsrq;
	uint32_t xsrqn;
	unsigned srq_posted;
	struct fz_region reg[FZ_MAX_REGIONS];
	unsigned n_reg;
	int recv_region;     /* the receive buffers' MR */
	int ctl_region;      /* the control exchange's MR */
	uint32_t stale_mr_rkey; /* a deregistered MR's rkey */
	struct fz_qp qp[FZ_MAX_QPS];
	unsigned n_qp;
	struct fz_qp ctl;    /* the control QP: the peer engine's side */
	struct peer *peer;
	uint32_t first_tqpn, next_tqpn;
	struct fz_qp *replay_qp; /* reduce.c: the fresh QP a sequence is replayed on */
	unsigned ctl_round;
	bool ctl_misread;   /* the last control exchange completed, its READ with other bytes */
	unsigned xsrq_posted;
	bool no_digest;      /* the agent has no digest_mr: regions are read instead */
	/* Timing. */
	uint64_t window_ns;  /* a step's answer is waited for this long */
	uint64_t settle_ns;  /* after its last answer, for more */
	uint64_t started_ns, fuzz_ns;
	uint64_t reduce_spent_ns; /* confirming and reducing findings during the run */
	double tokens;       /* the rate's bucket */
	uint64_t tokens_at;
	/* This batch. */
	uint64_t batch;
	struct fz_obs obs[FZ_MAX_OBS];
	unsigned n_obs;
	GArray *places;      /* struct fz_place: what the batch's requests may have placed */
	GArray *timeline;    /* struct fz_tl: the batch's steps in the order they were sent */
	bool replaying;      /* reduce.c: observations go to the replay */
	/* Findings. */
	struct fz_finding find[FZ_MAX_FINDINGS];
	unsigned n_find;
	GHashTable *seen;    /* signatures of observations already findings */
	GHashTable *tries;   /* signatures of findings no replay confirmed: how often */
	GPtrArray *unconfirmed; /* findings no replay showed again (one line each) */
	bool wedged;         /* the device stopped answering for good */
	uint32_t serial;
	unsigned step_no;
	struct fz_flow *flow;
	struct fz_stats st;
	FILE *request_log;   /* --log-requests */
	/* The kernel console (rxe). */
	long console_off;
	GString *console_tail;
};

/* A placement a request may have made (judged after the batch). */
struct fz_place {
	int mr;            /* region index of the MR */
	uint64_t off, len; /* in that MR */
	uint32_t fill;     /* the payload's pattern, and where in it the range starts */
	uint64_t fill_off;
	bool any_value;    /* an atomic: any 8 bytes */
	bool none;         /* carried no bytes (a zero-length ATOMIC WRITE): whatever lands is not its */
	bool allowed;      /* a conforming DUT may place it */
	enum roce_rule rule; /* when not allowed, the rule */
	int qp;
	uint32_t serial;   /* the step */
};

/* ---- dut.c ---- */
int fz_dut_open(struct fz *z);
void fz_dut_close(struct fz *z);
/* One agent call; false when it failed (an error reply is said in
 * z->err; a broken agent sets z->agent_dead). */
bool fz_call(struct fz *z, enum ap_method m, JsonObject *params, JsonObject **res);
int fz_dut_setup(struct fz *z);
bool fz_qp_create(struct fz *z, struct fz_qp *q);
bool fz_qp_reset(struct fz *z, struct fz_qp *q);
bool fz_qps_reset(struct fz *z, struct fz_qp **qs, unsigned n);
/* n calls pipelined: each one's outcome in ok[i], its result in res[i]
 * (res may be NULL). Returns how many succeeded. */
unsigned fz_call_many(struct fz *z, unsigned n, const enum ap_method *m, JsonObject **params, JsonObject **res, bool *ok);
bool fz_qp_destroy(struct fz *z, struct fz_qp *q);
/* The QP's state as the device reports it ("RTS", "ERR"...), or NULL. */
const char *fz_qp_state(struct fz *z, struct fz_qp *q, char *buf, size_t n);
bool fz_mr_read(struct fz *z, const struct fz_region *r, uint8_t *out);
bool fz_mr_write(struct fz *z, const struct fz_region *r, uint64_t off, const uint8_t *data, size_t len);
/* The SHA-256 of the MR as hex (digest_mr, or read_mr where the agent has none). */
bool fz_mr_digest(struct fz *z, const struct fz_region *r, char hex[65]);
/* Posts receives until the QP (its own RQ, or the SRQ) has want of them. */
bool fz_recv_fill(struct fz *z, struct fz_qp *q, unsigned want);
bool fz_srq_fill(struct fz *z, unsigned want);
/* Completions of a CQ: calls fn for each. */
bool fz_poll(struct fz *z, int64_t cq, void (*fn)(struct fz *z, JsonObject *wc, void *ctx), void *ctx);
/* The endpoint of the tester's side of q. */
void fz_endpoint(const struct fz *z, struct fz_qp *q);

/* ---- gen.c ---- */
/* A QP's program for a batch: n steps. */
unsigned fz_gen_program(struct fz *z, struct fz_qp *q, struct fz_rng *r, struct fz_step *out, unsigned max);

/* ---- build.c ---- */
/* Builds packet i of step s for q at PSN psn into frame (cap bytes);
 * returns its length, or -1. */
long fz_build(const struct fz *z, const struct fz_qp *q, const struct fz_step *s, unsigned i, uint32_t psn,
	      uint8_t *frame, size_t cap);
/* The PSNs a request packet reserves (a READ: its response packets). */
uint32_t fz_pkt_span(const struct fz *z, const struct fz_qp *q, const struct fz_pkt *p);
/* The packet's immediate data, if it carries one. */
bool fz_pkt_imm(const struct fz *z, const struct fz_qp *q, const struct fz_pkt *p, uint32_t *imm);

/* ---- judge.c ---- */
/* What a conforming DUT may do with packet i of the step in flight, as
 * built (frame, len); logs what it may place. */
void fz_expect(struct fz *z, struct fz_qp *q, unsigned i, const uint8_t *frame, size_t len);
/* A DUT frame for QP q: judged, recorded in its flight. */
void fz_judge_frame(struct fz *z, struct fz_qp *q, const uint8_t *frame, size_t len, uint64_t ts);
/* The step in flight is over: the model updated, the oracles of the step
 * applied, the step kept in the QP's history. */
void fz_judge_done(struct fz *z, struct fz_qp *q);
/* A receive completion of a UC or UD QP (its immediate data names the step). */
void fz_judge_completion(struct fz *z, struct fz_qp *q, uint32_t imm, bool has_imm, const char *status);
/* A DUT frame for no QP of ours. */
void fz_judge_stray(struct fz *z, const uint8_t *frame, size_t len);
void fz_obs_clear(struct fz *z);
/* Records an observation. */
struct fz_obs *fz_observe(struct fz *z, enum fz_kind k, enum roce_rule rule, int qp, uint32_t serial, const char *sig_fmt,
			  ...) __attribute__((format(printf, 6, 7)));
void fz_flow_reset(struct fz *z);
void fz_flow_free(struct fz *z);

/* ---- exec.c ---- */
/* Runs each QP's program (progs[i] for qps[i]) to its end. */
void fz_exec(struct fz *z, struct fz_qp **qps, struct fz_step **progs, const unsigned *n, unsigned nq,
	     uint64_t window_ns);
/* Moves the wire until deadline (frames judged, the peer engine kept). */
void fz_pump(struct fz *z, uint64_t deadline);
void fz_agent_pump(void *ctx, int fd, uint64_t deadline);
bool fz_send_frame(struct fz *z, const uint8_t *frame, size_t len);
struct fz_qp *fz_qp_by_tqpn(struct fz *z, uint32_t tqpn);

/* ---- health.c ---- */
/* After a batch; false when the device is gone (the run ends). */
bool fz_health(struct fz *z);
/* A liveness probe of one RC or XRC QP: true when it answered. */
bool fz_probe_rc(struct fz *z, struct fz_qp *q, uint64_t timeout_ns);
/* The memory oracles of the batch's placements. */
void fz_memory_check(struct fz *z);
void fz_place_add(struct fz *z, const struct fz_place *p);
bool fz_control_exchange(struct fz *z, GString *why);
/* The control exchange as a fence: when it returns true, the DUT took
 * every frame sent before it (it takes them in order). */
bool fz_fence(struct fz *z, GString *why);
/* A new control QP on both sides (a fuzzed packet may reach the old one:
 * its error is no hang). */
bool fz_control_renew(struct fz *z);
void fz_console_check(struct fz *z);

/* ---- reduce.c ---- */
void fz_reduce(struct fz *z, struct fz_finding *f, uint64_t deadline);

/* ---- casefile.c ---- */
int fz_case_write(struct fz *z, struct fz_finding *f, const char *dir, GString *err);

/* ---- record.c ---- */
JsonObject *fz_record(struct fz *z);
JsonObject *fz_setup_json(struct fz *z);
void fz_finding_json(struct fz *z, const struct fz_finding *f, JsonObject *o);

#endif
