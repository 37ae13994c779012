/*
 * What the runner's files share (internal to the runner; runner.h is the
 * API): the context of the case being run, what a step reports, and the
 * functions one runner file offers the others.
 */
#ifndef ROCE_TESTER_RUNNER_CTX_H
#define ROCE_TESTER_RUNNER_CTX_H

#include "runner.h"
#include "caseclocks.h"
#include "flowcheck.h"
#include "runner_series.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "text.h"

#define MAX_CASE_PKTS 200000u
/* The bytes of DUT frames one case records at most (the frames:
 * runner_opts.record_frames). */
#define MAX_CASE_RX_BYTES (128u << 20)
/* Frames for the QPs of earlier cases (the tail of a flood that case
 * judged) recorded as examples; the rest are counted, so that they never
 * take the room of this case's own packets. */
#define MAX_LATE_RECORDED 256u
/* Findings of the stateless checks listed per case and rule; the rest are
 * counted in one more finding that says how many there were. */
#define MAX_FINDINGS_PER_RULE 50u
#define MAX_QPS 16
#define MAX_MRS 32
#define NS_PER_MS 1000000ull

enum step_status { S_OK, S_FAIL, S_ERROR, S_NA };

#define MAX_SRQS 16
#define MAX_EVENTS 64

/* A multicast group of the case, at the run's IP version. */
struct case_group {
	const struct cl_group *cg;
	struct roce_mcast_group g;
	char text[INET6_ADDRSTRLEN]; /* the address */
	uint32_t qkey;               /* a 'dut join' reported it */
	/* When the last 'dut join' and 'dut leave' of the group began: the
	 * reports of that join or leave come after (earlier ones, or an
	 * earlier case's repeated ones, are not its). 0: none yet. */
	uint64_t join_ns, leave_ns;
};

/* An SRQ of the case: the DUT's (an agent handle) or the tester's (the
 * engine's number for it). An XRC SRQ: its domain (the DUT's; NULL for
 * the tester's, which has one), the number an XRCETH names it by, and the
 * DUT's CQ its receives complete on. */
struct case_srq {
	const char *name;
	bool peer;
	int64_t handle;
	uint32_t id;
	bool xrc;
	const char *xrcd;
	uint32_t srqn;
	int64_t cq;
};

#define MAX_MWS 16
#define MAX_XRCDS 8
#define MAX_PDS 4

/* A memory window of the DUT's: its type and current rkey. */
struct case_mw {
	const char *name;
	int type;
	int64_t handle;
	uint32_t rkey;
};

/* A protection domain besides the case's own (dut pd). */
struct case_pd {
	const char *name;
	int64_t handle;
};

/* An XRC domain of the DUT's. */
struct case_xrcd {
	const char *name;
	int64_t handle;
};

/* An asynchronous event of the DUT's (get_async_event). */
struct case_event {
	int type;          /* enum ap_event value; -1: a type the tester does not know */
	char type_name[32];
	char about[8];     /* "qp", "srq", "cq", "port" or "" */
	int64_t handle;    /* the session's handle of what it is about, or the port */
	uint64_t ts_ns;    /* when the tester read it */
};

/* What a step did: details, expected and observed values hold text of the
 * case, the DUT and the agent, of any length. */
struct step_out {
	enum step_status st;
	GString *detail;
	GString *expected;
	GString *observed;
	long pkts[16];
	unsigned n_pkts;
	JsonObject *record; /* what the step measured, for results.json (load) */
};

/* A finding of the flow analysis on a DUT packet: x->findings[k], about
 * packet idx. One that names frames (roce_code_frame_args) gets its
 * message when flush_packets has numbered the capture's frames: the
 * analysis numbers the case's packets as they were recorded, the capture
 * in time order after the frames of the cases before. */
struct flow_finding {
	guint k;
	long idx;
	struct roce_finding f;
	bool names_frames;
};

struct run_ctx {
	struct runner *r;
	const struct cl_case *c;
	int ipv, fi;
	struct case_pkt *pkts;
	size_t n_pkts, cap_pkts;
	struct sym_val *syms;
	size_t n_syms, cap_syms;
	struct case_qp qps[MAX_QPS];
	unsigned n_qps;
	struct case_mr mrs[MAX_MRS];
	unsigned n_mrs;
	int64_t pd;
	bool have_pd;
	int cur_step;
	uint64_t ref_ns, deadline_ns;
	JsonArray *events, *findings, *evidence, *failed_rules;
	bool pkt_error; /* a DUT packet broke a stateless rule */
	/* Frames received during the case, and those not recorded (a flood). */
	uint64_t rx_frames, rx_bytes, rx_unrecorded, rx_unrecorded_bytes;
	uint64_t rx_first_ns, rx_last_ns;
	size_t rx_recorded, rx_recorded_bytes;
	/* Packet-check findings per rule, listed up to MAX_FINDINGS_PER_RULE. */
	unsigned rule_findings[ROCE_RULE_COUNT];
	unsigned late_frames; /* DUT frames for the QPs of earlier cases */
	unsigned n_informative; /* informative findings of the case's own statements */
	gchar *first_informative;
	bool stop;              /* an 'expect ... else inform' found nothing: the case ends there */
	uint64_t agent_gone_ns; /* an inject step found the agent gone (0: not yet) */
	/* The liveness probe after the case (runner_alive.c): the tester QPN
	 * of its QP (0: none), whose packets are counted, not recorded, and
	 * the DUT's frames to it. */
	uint32_t probe_qpn;
	uint64_t probe_answers;
	uint32_t gsi_psn;       /* the tester's QP1 send PSN */
	struct case_qp *last_cm_qp; /* the QP whose CM MAD the tester sent last */
	/* libroce's flow analysis over the case's packets (flowcheck.h): the
	 * result of the packet recorded last, for check_dut_packet. */
	struct flowcheck *flow;
	long flow_idx;
	struct roce_flow_result flow_result;
	/* The findings of x->findings the flow analysis raised (struct
	 * flow_finding). */
	GArray *flow_findings;
	struct case_counters *counters; /* the DUT's counters before and after (counters.h) */
	struct case_clocks clocks;      /* which clock timed what (caseclocks.h) */
	/* The case's multicast groups at the run's IP version (c->groups'
	 * order), SRQs, and the DUT's asynchronous events read but not yet
	 * taken by an expectation, oldest first. */
	struct case_group *groups;
	struct case_srq srqs[MAX_SRQS];
	unsigned n_srqs;
	struct case_event events_in[MAX_EVENTS];
	unsigned n_events_in;
	/* Memory windows and XRC domains (runner_mw.c, runner_xrc.c). */
	struct case_mw mws[MAX_MWS];
	unsigned n_mws;
	struct case_xrcd xrcds[MAX_XRCDS];
	unsigned n_xrcds;
	struct case_pd pds[MAX_PDS];
	unsigned n_pds;
	/* What the steps measured, for the case's series (runner_series.c). */
	struct case_series *series;
};

/* ---- Shared helpers and case orchestration (runner.c) ---- */

unsigned dut_port_mtu(struct runner *r);
void outf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void appendf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool interrupted(struct runner *r);
void add_failed_rule(struct run_ctx *x, const char *id);
void event(struct run_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void step_out_init(struct step_out *o);
void step_out_free(struct step_out *o);
bool family_usable(struct runner *r, int ipv, char *why, size_t n);

/* ---- Whether the DUT still answers (runner_alive.c) ---- */

/* The agent is gone: its connection broke, or it no longer answers a
 * query of the port. */
bool dut_agent_lost(struct runner *r);
/* The verdict of a case (v so far; reason rewritten) whose DUT stopped
 * answering: CA17-23 naming the first packet the case injected after the
 * DUT's last sign of life, else error. silent_how: how its wire went
 * silent, the agent still answering; NULL: the agent was lost. */
enum verdict dut_stopped_answering(struct run_ctx *x, enum verdict v, GString *reason, const char *silent_how);
/* After a case that injected packets, verdict v so far: a known-good
 * exchange with the DUT; one it does not answer is dut_stopped_answering. */
enum verdict dut_alive_after_case(struct run_ctx *x, enum verdict v, GString *reason);

/* ---- Packet recording and the DUT's packet checks (runner_record.c) ---- */

long record_pkt(struct run_ctx *x, const uint8_t *data, size_t len, uint64_t ts, bool tx, uint32_t qpn,
		const char *note);
void annotate(struct run_ctx *x, long idx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
struct case_qp *qp_by_tester_qpn(struct run_ctx *x, uint32_t qpn);
void note_suppressed_findings(struct run_ctx *x);
void check_dut_packet(struct run_ctx *x, long idx, const struct case_qp *q);
bool is_neighbour_frame(const uint8_t *d, size_t len);
bool from_dut(struct runner *r, const uint8_t *d, size_t len);
void check_stray_packet(struct run_ctx *x, long idx);
bool is_late_frame(struct run_ctx *x, const uint8_t *d, size_t len);
void account_dut_packet(struct case_qp *q, const uint8_t *data, size_t len);
void check_traffic(struct run_ctx *x);
void pkt_summary(const struct case_pkt *p, char *buf, size_t n);
JsonArray *flush_packets(struct run_ctx *x, const char *label);
gint64 frame_of(struct run_ctx *x, long idx);
void frames_for(struct run_ctx *x, JsonObject *o, const char *from, const char *to);

/* ---- Findings the case provoked on purpose (runner_provoked.c) ---- */

void mark_provoked_findings(struct run_ctx *x);

/* ---- The wire pump (runner_wire.c) ---- */

int on_engine_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info);
void on_engine_note(void *ctx, const struct peer_tx_info *info, const char *what);
void pump_until(struct runner *r, int fd, uint64_t deadline, bool stop_on_rx);
void agent_pump(void *ctx, int fd, uint64_t deadline);

/* ---- Symbols, expressions and arguments (runner_expr.c) ---- */

void sym_set_unit(struct run_ctx *x, const char *name, const char *member, uint64_t v, enum sym_unit u);
void sym_set(struct run_ctx *x, const char *name, const char *member, uint64_t v);
const struct sym_val *sym_find(struct run_ctx *x, const char *name, const char *member);
void format_value(uint64_t v, enum sym_unit u, char *buf, size_t n);
bool eval(struct run_ctx *x, const struct cl_expr *e, uint64_t *out, struct step_out *o);
enum sym_unit expr_unit(struct run_ctx *x, const struct cl_expr *e);
gchar *expr_text(const struct cl_expr *e);
/* Step arguments (cl_step.a): the value written, else the default of
 * the argument table. A default the table leaves to the run
 * (CL_DEF_RUN) is run_value. */
bool param_u64(struct run_ctx *x, const struct cl_param *p, uint64_t *v, struct step_out *o);
bool param_u64_run(struct run_ctx *x, const struct cl_param *p, uint64_t run_value, uint64_t *v, struct step_out *o);
/* A word argument's value (enum ap_qp_state, cl_switch, cl_proto ...:
 * the parser resolved the words), else run_value where the run supplies
 * the default. */
int param_choice(const struct cl_param *p, int run_value);
/* How long a step's 'within T' allows, else its table's default. */
uint64_t param_window(const struct cl_step *s, const struct cl_param *p);
struct case_qp *find_qp(struct run_ctx *x, const char *name);
struct case_mr *find_mr(struct run_ctx *x, const char *name);

/* ---- DUT steps: verbs through the agent (runner_dut.c) ---- */

bool call(struct run_ctx *x, struct step_out *o, enum ap_method m, JsonObject *params, JsonObject **res);
bool ensure_pd(struct run_ctx *x, struct step_out *o);
/* One SGE: the MR's bytes [off, off + len). */
JsonArray *sge_list(struct case_mr *m, uint64_t off, uint64_t len);
/* create_ah of the DUT towards dgid (GID text) with the QP's source GID
 * (RoCE v1 or RoCEv2), hop limit, traffic class, flow label and SL. */
bool dut_create_ah(struct run_ctx *x, const struct case_qp *q, const char *dgid, bool v1, int64_t *ah, struct step_out *o);
/* A capability the DUT reported (query_device); else o says it lacks it
 * and the step is not applicable. */
bool dut_has(struct run_ctx *x, unsigned cap, struct step_out *o);
void hex_text(char *out, size_t n, const uint8_t *d, size_t len);
void step_dut_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void make_endpoint(struct run_ctx *x, const struct case_qp *q, uint8_t tc, uint32_t fl, uint16_t sport,
			  struct roce_endpoint *ep);
void step_dut_qp(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* A receive of the step's MR range (offset=, len=, wr_id=) posted with
 * method (post_recv, post_srq_recv) to the QP or SRQ params.<member>. */
void dut_post_recv(struct run_ctx *x, const struct cl_step *s, enum ap_method method, const char *member, int64_t handle,
		   struct step_out *o);
void step_post_recv(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_post_send(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_write(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_read(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_query(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_modify(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

/* ---- Peer steps, injection and injection rules (runner_peer.c) ---- */

void step_peer_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* The case's payload bytes: a pattern that differs per seed (the step). */
void pattern(uint8_t *b, size_t n, unsigned seed);
void step_peer_op(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_peer_set(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_inject(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_rule(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* Sends a frame the case built to the DUT from QP q's side (the engine
 * records it, with note); its send time in *sent and the frames sent in
 * o, or o says that what ("the packet") could not be injected. */
bool inject_frame(struct run_ctx *x, const struct case_qp *q, const uint8_t *frame, size_t len, const char *note,
		  const char *what, uint64_t *sent, struct step_out *o);

/* ---- CM steps (runner_cm.c) ---- */

const uint8_t *cm_mad(const struct roce_pkt *pk);
struct case_qp *cm_qp_of(struct run_ctx *x, const uint8_t *data, size_t len);
void step_dut_listen(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void inject_cm_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent);

/* ---- Expectations (runner_expect.c) ---- */

bool dut_pkt_for(struct run_ctx *x, size_t i, const struct case_qp *q);
bool same_stream(const struct cl_step *s, const struct case_pkt *p);
bool cmp_ok(enum cl_cmp c, uint64_t got, uint64_t want);
/* A number the DUT or the agent reported, against a constraint of the
 * step: ?name binds it; otherwise a mismatch goes to o (S_FAIL). False
 * when the constraint cannot be evaluated (o says why). */
bool check_number(struct run_ctx *x, const struct cl_arg *a, uint64_t got, struct step_out *o);
const char *cmp_text(enum cl_cmp c);
/* One poll_cq of the QP's DUT CQ, not waiting: *wc the first completion
 * (the caller unrefs it) or NULL when there is none; false when the call
 * failed (o says why). */
bool dut_poll_one(struct run_ctx *x, struct case_qp *q, JsonObject **wc, struct step_out *o);
void step_expect_pkt(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_expect_nothing(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_expect_completion(struct run_ctx *x, const struct cl_step *s, struct step_out *o, bool none);
void step_expect_peer(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_expect_mem(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

/* ---- Measurements, checks and informative findings (runner_check.c) ---- */

/* What a step measured (measure, load), under the result's name. */
struct step_result {
	enum cl_key key;
	enum sym_unit unit;
	uint64_t value;
};
/* RESULT=?x binds the value, RESULT OP VALUE checks it; one that does not
 * hold fails the step. */
void step_results(struct run_ctx *x, const struct cl_step *s, struct step_out *o, const struct step_result *res,
		  size_t n);
void step_measure(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void add_informative(struct run_ctx *x, const struct cl_step *s, const char *msg);
void report_unbound_failure(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o);

/* ---- Steps a deviation elsewhere kept from their rule (runner_unreached.c) ---- */

/* An 'else unreached' precondition that did not hold: the case's rules
 * are not reached; an informative finding says why. */
void report_precondition_unmet(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o);
/* When a failed step follows a DUT packet of its QP whose ICRC is wrong
 * (so the tester dropped it), reports the step as not reached, an
 * informative finding, and returns true; else false. */
bool report_unreached(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o);
void step_check(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_inform(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* After the case: the DUT's counter deltas against the wire, informative
 * findings where they disagree. */
void check_counters(struct run_ctx *x);

/* ---- Multicast groups (runner_mcast.c) ---- */

/* The case's groups at the run's IP version (at the case's start). */
void mcast_groups_begin(struct run_ctx *x);
struct case_group *group_of(struct run_ctx *x, const char *name);
/* The index of the case's group a frame is sent to, or -1. */
int mcast_group_index(struct run_ctx *x, const uint8_t *data, size_t len);
/* The case QP whose DUT side sent a datagram (its DETH Source QP), or NULL. */
struct case_qp *mcast_sender(struct run_ctx *x, const uint8_t *data, size_t len);
/* An IGMP or MLD frame (the filter lets them in for reports): not RoCE. */
bool mcast_membership_frame(const uint8_t *data, size_t len);
/* The DUT's address handle to a group, for a UD work request. */
bool mcast_group_ah(struct run_ctx *x, struct case_qp *q, struct case_group *g, int64_t *ah, struct step_out *o);
/* Whether a recorded packet is one an 'expect QP ... group=' step on q
 * may take, and its group checks (DestQP 0xFFFFFF, the mapped MAC). */
bool mcast_pkt_for(struct run_ctx *x, size_t i, const struct cl_step *s, const struct case_qp *q);
void mcast_take(struct run_ctx *x, size_t i, const struct case_qp *q);
bool mcast_match(struct run_ctx *x, const struct cl_step *s, const struct roce_pkt *pk, struct step_out *o);
void step_group(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_membership(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_peer_attach(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_expect_join(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

/* ---- SRQs and asynchronous events (runner_srq.c) ---- */

struct case_srq *srq_of(struct run_ctx *x, const char *name, bool peer);
void step_dut_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_arm(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_query_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_post_srq_recv(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_peer_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_expect_event(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

/* ---- Memory windows and the placement operations (runner_mw.c) ---- */

void step_dut_mw(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_bind(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* post_send's ATOMIC_WRITE value, FLUSH placement and level, an XRC_SEND
 * QP's remote_srqn: added to the request p; false when one cannot be
 * evaluated (o says why). */
bool post_send_extras(struct run_ctx *x, const struct cl_step *s, struct case_qp *q, JsonObject *p, struct step_out *o);
/* An injected packet's FETH, ATOMIC WRITE payload (value=, 8 bytes, into
 * payload and *len), IETH and XRCETH (the first XRC SRQ of the QP's
 * domain unless srqn= says otherwise). */
bool inject_extras(struct run_ctx *x, const struct cl_step *s, struct case_qp *q, struct roce_desc *d, uint8_t *payload,
		   size_t cap, uint64_t *len, struct step_out *o);
/* The tester's atomic_write value, flush placement and level. */
bool peer_wr_placement(struct run_ctx *x, const struct cl_step *s, struct peer_wr *wr, struct step_out *o);

/* dut pd NAME: a protection domain besides the case's own. */
void step_dut_pd(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* The handle of the PD a step names (pd=; NULL: the case's own, made on
 * first use); false with o set when there is none. */
bool pd_handle(struct run_ctx *x, const char *name, int64_t *out, struct step_out *o);

/* ---- XRC (runner_xrc.c) ---- */

void step_dut_xrcd(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
struct case_xrcd *xrcd_of(struct run_ctx *x, const char *name);
/* dut srq NAME xrcd=D: an XRC SRQ, its CQ, binds $NAME.srqn. */
void step_dut_xrc_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
/* peer srq NAME ... xrc: its number, bound as $NAME.srqn. */
bool peer_srq_xrc(struct run_ctx *x, const struct cl_step *s, struct case_srq *srq, struct step_out *o);
/* The first XRC SRQ of the DUT's domain (NULL: none); of the tester's. */
struct case_srq *xrc_first_srq(struct run_ctx *x, const char *xrcd);
struct case_srq *xrc_first_peer_srq(struct run_ctx *x);

/* ---- The device at the verbs level (runner_verbs.c) ---- */

void step_dut_port(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_gids(struct run_ctx *x, const struct cl_step *s, struct step_out *o);
void step_dut_raw_qp(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

/* ---- The load step: sustained traffic from the engine (runner_load.c) ---- */

void step_load(struct run_ctx *x, const struct cl_step *s, struct step_out *o);

#endif
