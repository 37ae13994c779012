/* The runner: executes one case (see runner.h). */
#include "runner.h"
#include "flowcheck.h"

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
/* What one case keeps of the frames it receives: a DUT that floods the
 * tester gets its frames counted and processed, but only this many (and
 * this many bytes) recorded and written to the capture, so that memory, the
 * capture and results.json stay bounded. A conforming device sends far
 * fewer in any case of the suite (the largest, an 8 MiB WRITE, is 8192
 * packets at a PMTU of 1024). */
#define MAX_CASE_RX_PKTS 50000u
#define MAX_CASE_RX_BYTES (128u << 20)
/* Findings of the stateless checks listed per case and rule; the rest are
 * counted in one more finding that says how many there were. */
#define MAX_FINDINGS_PER_RULE 50u
#define MAX_QPS 16
#define MAX_MRS 32
#define NS_PER_MS 1000000ull

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS: return "pass";
	case V_FAIL: return "fail";
	case V_NOT_APPLICABLE: return "not_applicable";
	case V_ERROR: return "error";
	case V_INFORMATIVE: return "informative";
	default: return "?";
	}
}

enum step_status { S_OK, S_FAIL, S_ERROR, S_NA };

static const char *step_status_name(enum step_status s)
{
	switch (s) {
	case S_OK: return "ok";
	case S_FAIL: return "fail";
	case S_ERROR: return "error";
	case S_NA: return "not_applicable";
	}
	return "?";
}

/* What a step did: details, expected and observed values hold text of the
 * case, the DUT and the agent, of any length. */
struct step_out {
	enum step_status st;
	GString *detail;
	GString *expected;
	GString *observed;
	long pkts[16];
	unsigned n_pkts;
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
	uint32_t gsi_psn;       /* the tester's QP1 send PSN */
	struct case_qp *last_cm_qp; /* the QP whose CM MAD the tester sent last */
	/* libroce's flow analysis over the case's packets (flowcheck.h): the
	 * result of the packet recorded last, for check_dut_packet. */
	struct flowcheck *flow;
	long flow_idx;
	struct roce_flow_result flow_result;
};

/* ---- Small helpers ---- */

static bool family_usable(struct runner *r, int ipv, char *why, size_t n);

/* The DUT port's active MTU (query_port), or 4096 when it did not say. */
static unsigned dut_port_mtu(struct runner *r)
{
	uint64_t mtu = 0;
	if (r->dut_port && agent_get_u64(r->dut_port, "active_mtu", &mtu) && mtu)
		return (unsigned)mtu;
	return 4096;
}

/* Text in the fixed buffers below is bounded by design (names, numbers,
 * addresses); were it ever longer, it is cut visibly (text.h). Text of the
 * case, the DUT and the agent lives in GLib strings. */
static void outf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void outf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(buf, n, fmt, ap);
	va_end(ap);
}

static void appendf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vappendf(buf, n, fmt, ap);
	va_end(ap);
}

static bool interrupted(struct runner *r)
{
	return r->interrupted && *r->interrupted;
}

static void add_failed_rule(struct run_ctx *x, const char *id)
{
	for (guint i = 0; i < json_array_get_length(x->failed_rules); i++)
		if (!strcmp(json_array_get_string_element(x->failed_rules, i), id))
			return;
	json_array_add_string_element(x->failed_rules, id);
}

static void event(struct run_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void event(struct run_ctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gchar *text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	JsonObject *e = json_object_new();
	json_object_set_int_member(e, "ts_ns", (gint64)rawio_now());
	json_object_set_int_member(e, "step", x->cur_step + 1); /* 1-based like packets; 0 during set-up */
	json_object_set_string_member(e, "text", text);
	g_free(text);
	json_array_add_object_element(x->events, e);
}

/* ---- Packets of the case ---- */

static struct case_qp *qp_by_tester_qpn(struct run_ctx *x, uint32_t qpn);

static long record_pkt(struct run_ctx *x, const uint8_t *data, size_t len, uint64_t ts, bool tx, uint32_t qpn,
		       const char *note)
{
	if (x->n_pkts == MAX_CASE_PKTS)
		return -1;
	if (!tx && (x->rx_recorded == MAX_CASE_RX_PKTS || x->rx_recorded_bytes + len > MAX_CASE_RX_BYTES)) {
		x->rx_unrecorded++;
		x->rx_unrecorded_bytes += len;
		return -1;
	}
	if (x->n_pkts == x->cap_pkts) {
		x->cap_pkts = x->cap_pkts ? 2 * x->cap_pkts : 256;
		struct case_pkt *p = realloc(x->pkts, x->cap_pkts * sizeof *p);
		if (!p)
			abort();
		x->pkts = p;
	}
	struct case_pkt *p = &x->pkts[x->n_pkts];
	memset(p, 0, sizeof *p);
	p->ts_ns = ts;
	p->tx = tx;
	p->step = x->cur_step;
	p->qpn = qpn;
	p->data = malloc(len ? len : 1);
	if (!p->data)
		abort();
	memcpy(p->data, data, len);
	p->len = len;
	p->note = note ? strdup(note) : NULL;
	if (!tx) {
		x->rx_recorded++;
		x->rx_recorded_bytes += len;
	}
	struct case_qp *q = qpn ? qp_by_tester_qpn(x, qpn) : NULL;
	if (flowcheck_frame(x->flow, data, len, (uint32_t)x->n_pkts + 1, ts, q ? q->pmtu : 0, &x->flow_result))
		x->flow_idx = (long)x->n_pkts;
	return (long)x->n_pkts++;
}

static void annotate(struct run_ctx *x, long idx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void annotate(struct run_ctx *x, long idx, const char *fmt, ...)
{
	if (idx < 0 || (size_t)idx >= x->n_pkts)
		return;
	va_list ap;
	va_start(ap, fmt);
	gchar *text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	struct case_pkt *p = &x->pkts[idx];
	if (p->annot) {
		char *both = malloc(strlen(p->annot) + strlen(text) + 4);
		if (!both)
			abort();
		sprintf(both, "%s; %s", p->annot, text);
		free(p->annot);
		p->annot = both;
	} else {
		p->annot = strdup(text);
	}
	g_free(text);
}

static struct case_qp *qp_by_tester_qpn(struct run_ctx *x, uint32_t qpn)
{
	for (unsigned i = 0; i < x->n_qps; i++)
		if (x->qps[i].tester_qpn == qpn)
			return &x->qps[i];
	return NULL;
}

/* A finding of the checks on one DUT packet. Error findings fail the case
 * whether they are listed or not; past MAX_FINDINGS_PER_RULE per rule they
 * are only counted (see note_suppressed_findings). */
static void add_pkt_finding(struct run_ctx *x, long idx, enum roce_rule rule, const char *severity, const char *msg)
{
	const struct roce_rule_info *ri = roce_rule(rule);
	if (!strcmp(severity, "error") && ri) {
		x->pkt_error = true;
		add_failed_rule(x, ri->id);
	}
	unsigned *n = &x->rule_findings[ri ? rule : ROCE_RULE_NONE];
	if ((*n)++ >= MAX_FINDINGS_PER_RULE)
		return;
	JsonObject *j = json_object_new();
	json_object_set_string_member(j, "rule", ri ? ri->id : "");
	json_object_set_string_member(j, "severity", severity);
	json_object_set_string_member(j, "message", msg);
	json_object_set_int_member(j, "packet", idx);
	json_object_set_int_member(j, "step", x->pkts[idx].step + 1); /* 1-based like packets */
	json_object_set_string_member(j, "source", "packet check");
	json_array_add_object_element(x->findings, j);
	annotate(x, idx, "finding %s", msg);
}

static void pkt_finding(struct run_ctx *x, long idx, enum roce_rule rule, const char *msg)
{
	add_pkt_finding(x, idx, rule, "error", msg);
}

/* One finding per rule that had more than the listed ones. */
static void note_suppressed_findings(struct run_ctx *x)
{
	for (unsigned r = 0; r < ROCE_RULE_COUNT; r++) {
		if (x->rule_findings[r] <= MAX_FINDINGS_PER_RULE)
			continue;
		const struct roce_rule_info *ri = r == ROCE_RULE_NONE ? NULL : roce_rule((enum roce_rule)r);
		char msg[300];
		outf(msg, sizeof msg, "%u more packet-check findings of %s, not listed (%u in all)",
		     x->rule_findings[r] - MAX_FINDINGS_PER_RULE, ri ? ri->id : "no rule", x->rule_findings[r]);
		JsonObject *j = json_object_new();
		json_object_set_string_member(j, "rule", ri ? ri->id : "");
		json_object_set_string_member(j, "severity", "info");
		json_object_set_string_member(j, "message", msg);
		json_object_set_string_member(j, "source", "packet check");
		json_array_add_object_element(x->findings, j);
	}
}

/* A RoCE v1 packet's GRH carries the GIDs themselves: the DUT's as SGID,
 * the tester's as DGID (an IPv4 address in its mapped form). */
static void check_dut_gids_v1(struct run_ctx *x, long idx, const struct case_qp *q, const struct roce_pkt *pk)
{
	struct runner *r = x->r;
	const uint8_t *grh = pk->buf + pk->hdr_off[ROCE_H_GRH];
	uint8_t dut[16], tester[16];
	roce_gid_from_ip(q->ipv, r->fam[q->fi].ip, dut);
	roce_gid_from_ip(q->ipv, q->ipv == 6 ? r->io.ip6 : r->io.ip4, tester);
	char want[INET6_ADDRSTRLEN], got[INET6_ADDRSTRLEN], msg[300];
	if (memcmp(roce_grh_sgid(grh), dut, 16)) {
		inet_ntop(AF_INET6, roce_grh_sgid(grh), got, sizeof got);
		inet_ntop(AF_INET6, dut, want, sizeof want);
		outf(msg, sizeof msg, "RoCE v1 SGID %s is not %s, the DUT's source GID", got, want);
		pkt_finding(x, idx, ROCE_RULE_A16_ROCEV1, msg);
	}
	if (memcmp(roce_grh_dgid(grh), tester, 16)) {
		inet_ntop(AF_INET6, roce_grh_dgid(grh), got, sizeof got);
		inet_ntop(AF_INET6, tester, want, sizeof want);
		outf(msg, sizeof msg, "RoCE v1 DGID %s is not %s, the destination GID", got, want);
		pkt_finding(x, idx, ROCE_RULE_A16_ROCEV1, msg);
	}
}

/* The addresses of a DUT packet are the connection's: the source GID's
 * address (CA17-11/18) and the tester's, the destination GID (CA17-12/19). */
static void check_dut_addresses(struct run_ctx *x, long idx, const struct case_qp *q, const struct roce_pkt *pk)
{
	struct runner *r = x->r;
	if (pk->err != ROCE_OK || !pk->op)
		return;
	if (pk->rocev1) {
		check_dut_gids_v1(x, idx, q, pk);
		return;
	}
	char want[INET6_ADDRSTRLEN], got[INET6_ADDRSTRLEN], msg[300];
	if (pk->ip_version != q->ipv) {
		outf(msg, sizeof msg, "an IPv%d packet on QP %s, whose GIDs are IPv%d", pk->ip_version, q->name, q->ipv);
		pkt_finding(x, idx, q->ipv == 4 ? ROCE_RULE_CA17_11 : ROCE_RULE_CA17_18, msg);
		return;
	}
	const uint8_t *l3 = pk->buf + pk->hdr_off[q->ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	int af = q->ipv == 6 ? AF_INET6 : AF_INET;
	size_t n = q->ipv == 6 ? 16 : 4;
	const uint8_t *src = q->ipv == 6 ? roce_ipv6_src(l3) : roce_ipv4_src(l3);
	const uint8_t *dst = q->ipv == 6 ? roce_ipv6_dst(l3) : roce_ipv4_dst(l3);
	const uint8_t *mine = q->ipv == 6 ? r->io.ip6 : r->io.ip4;
	if (memcmp(src, r->fam[q->fi].ip, n)) {
		inet_ntop(af, src, got, sizeof got);
		inet_ntop(af, r->fam[q->fi].ip, want, sizeof want);
		outf(msg, sizeof msg, "source address %s is not %s, the address of the DUT's source GID", got, want);
		pkt_finding(x, idx, q->ipv == 4 ? ROCE_RULE_CA17_11 : ROCE_RULE_CA17_18, msg);
	}
	if (memcmp(dst, mine, n)) {
		inet_ntop(af, dst, got, sizeof got);
		inet_ntop(af, mine, want, sizeof want);
		outf(msg, sizeof msg, "destination address %s is not %s, the address of the destination GID", got, want);
		pkt_finding(x, idx, q->ipv == 4 ? ROCE_RULE_CA17_12 : ROCE_RULE_CA17_19, msg);
	}
}

/* The stateless rules on one DUT packet (pmtu 0: not known). */
static void check_stateless(struct run_ctx *x, long idx, const struct roce_pkt *pk, unsigned pmtu)
{
	struct roce_check_opts o = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, pmtu };
	struct roce_finding f[16];
	size_t n = roce_check(pk, &o, f, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		char msg[300];
		roce_finding_format(&f[i], msg, sizeof msg);
		add_pkt_finding(x, idx, ci->rule, roce_severity_name(ci->severity), msg);
	}
}

static const uint8_t *cm_mad(const struct roce_pkt *pk);

/* On a VLAN run the DUT's frames of a QP carry the run's VLAN ID and, as
 * priority, the SL of the QP's address vector (A17.4). A CNP's priority
 * is the device's configuration, so only its VLAN ID is checked. */
static void check_dut_vlan(struct run_ctx *x, long idx, const struct case_qp *q, const struct roce_pkt *pk)
{
	struct runner *r = x->r;
	if (r->opts.vlan < 0 || !pk->has_eth)
		return;
	char msg[300];
	if (!pk->n_vlan) {
		outf(msg, sizeof msg, "the DUT's frame for QP %s carries no 802.1Q tag on a run over VLAN %d", q->name,
		     r->opts.vlan);
		pkt_finding(x, idx, ROCE_RULE_A17_PCP, msg);
		return;
	}
	uint16_t tci = roce_pkt_vlan_tci(pk);
	if (roce_vlan_vid(tci) != (unsigned)r->opts.vlan) {
		outf(msg, sizeof msg, "the DUT's frame for QP %s is on VLAN %u, not the run's VLAN %d", q->name,
		     roce_vlan_vid(tci), r->opts.vlan);
		pkt_finding(x, idx, ROCE_RULE_A17_PCP, msg);
		return;
	}
	/* A CM MAD answers from QP1, which has no address vector: its
	 * priority follows the request's, not the QP's. */
	if ((pk->op && pk->opcode == ROCE_OP_CNP) || cm_mad(pk))
		return;
	if (roce_vlan_pcp(tci) != (q->sl & 7)) {
		outf(msg, sizeof msg, "802.1Q priority (PCP) %u; the address vector of QP %s has SL %u, so the PCP must be %u",
		     roce_vlan_pcp(tci), q->name, q->sl, q->sl & 7);
		pkt_finding(x, idx, ROCE_RULE_A17_PCP, msg);
	}
}

/* A connected QP speaks the protocol of its source GID's type (A17.8):
 * RoCE v1 or RoCEv2, every packet. A UD QP picks it per work request. */
static void check_dut_protocol(struct run_ctx *x, long idx, const struct case_qp *q, const struct roce_pkt *pk)
{
	if (q->type == ROCE_T_UD || !pk->op || pk->rocev1 == q->rocev1)
		return;
	char msg[300];
	outf(msg, sizeof msg, "a %s packet of QP %s, whose source GID is of type %s", pk->rocev1 ? "RoCE v1" : "RoCEv2",
	     q->name, q->rocev1 ? "RoCE v1" : "RoCEv2");
	pkt_finding(x, idx, ROCE_RULE_CA17_40, msg);
}

/* The flow rules on one DUT packet: libroce's analysis of the case's
 * traffic (record_pkt ran it), as the plugin and lint judge a capture. */
static void check_flow(struct run_ctx *x, long idx)
{
	if (x->flow_idx != idx)
		return;
	const struct roce_flow_result *r = &x->flow_result;
	for (unsigned i = 0; i < r->n_findings; i++) {
		const struct roce_code_info *ci = roce_code_info(r->findings[i].code);
		char msg[300];
		roce_finding_format(&r->findings[i], msg, sizeof msg);
		add_pkt_finding(x, idx, ci->rule, roce_severity_name(ci->severity), msg);
	}
}

/* Every DUT packet of the case is checked against the stateless and the
 * flow rules. */
static void check_dut_packet(struct run_ctx *x, long idx, const struct case_qp *q)
{
	struct case_pkt *p = &x->pkts[idx];
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	check_dut_addresses(x, idx, q, &pk);
	check_dut_protocol(x, idx, q, &pk);
	check_dut_vlan(x, idx, q, &pk);
	check_stateless(x, idx, &pk, q->pmtu);
	check_flow(x, idx);
}

/* ARP and Neighbour Discovery come in through the same filter as RoCEv2:
 * they are the kernel's business, not the DUT's RoCE traffic. */
static bool is_neighbour_frame(const uint8_t *d, size_t len)
{
	size_t off = 12;
	while (off + 2 <= len) {
		uint16_t type = (uint16_t)(d[off] << 8 | d[off + 1]);
		if (type == ROCE_ETHERTYPE_VLAN || type == ROCE_ETHERTYPE_QINQ) {
			off += 4;
			continue;
		}
		if (type == 0x0806)
			return true;
		return type == ROCE_ETHERTYPE_IPV6 && off + 2 + 7 <= len && d[off + 2 + 6] == 58;
	}
	return false;
}

/* Whether a frame comes from the DUT: its source MAC is the one the DUT's
 * addresses resolved to. */
static bool from_dut(struct runner *r, const uint8_t *d, size_t len)
{
	if (len < ROCE_ETH_LEN)
		return false;
	for (int fi = 0; fi < 2; fi++)
		if (r->fam[fi].ok && !memcmp(d + 6, r->fam[fi].mac, 6))
			return true;
	return false;
}

/* A RoCEv2 frame from the DUT that belongs to no QP of the case: judged
 * like any DUT packet, and a well-formed one must at least be addressed
 * to a QP the tester has (a DUT sends responses and requests only to the
 * QPs its own QPs are connected to, IBA chapter 9). A late packet for a QP
 * of an earlier case is only noted: that case's judgement is done. */
static void check_stray_packet(struct run_ctx *x, long idx)
{
	struct runner *r = x->r;
	struct case_pkt *p = &x->pkts[idx];
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	bool before = x->pkt_error;
	x->pkt_error = false;
	check_stateless(x, idx, &pk, 0);
	bool broken = x->pkt_error;
	x->pkt_error = before || broken;
	if (broken || pk.err != ROCE_OK || !pk.op)
		return;
	uint32_t qpn = roce_bth_destqp(roce_pkt_hdr(&pk, ROCE_H_BTH));
	if (qpn == 1)
		return; /* the GSI (MADs): every port has QP1 */
	char sum[200];
	roce_pkt_summary(&pk, sum, sizeof sum);
	if (qpn >= r->first_tester_qpn && qpn < r->next_tester_qpn && !qp_by_tester_qpn(x, qpn)) {
		x->late_frames++;
		annotate(x, idx, "late: QP 0x%06x belongs to an earlier case", qpn);
		return;
	}
	char msg[400], qps[200] = "";
	for (unsigned i = 0; i < x->n_qps; i++)
		appendf(qps, sizeof qps, "%s0x%06x", i ? ", " : "", x->qps[i].tester_qpn);
	outf(msg, sizeof msg, "the DUT sent %s to QP 0x%06x, which is no QP of the tester's (this case's: %s)", sum, qpn,
	     qps[0] ? qps : "none");
	pkt_finding(x, idx, ROCE_RULE_CA17_25, msg);
}

/* Counts what the DUT sent on a QP of the case (every frame, recorded or
 * not) for the traffic checks at the end of the case. */
static void account_dut_packet(struct case_qp *q, const uint8_t *data, size_t len)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, data, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.op)
		return;
	if (pk.op->kind == ROCE_K_ACK)
		q->rx_acks++;
	if (!(pk.op->flags & ROCE_OPF_REQUEST))
		return;
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(&pk, ROCE_H_BTH));
	bool starts = pk.op->position == ROCE_POS_FIRST || pk.op->position == ROCE_POS_ONLY;
	/* UD has no retransmissions; RC and UC resend PSNs they sent before. */
	bool fresh = q->type == ROCE_T_UD || !q->rx_have_psn || roce_psn_diff(psn, q->rx_req_psn) > 0;
	if (starts && fresh)
		q->rx_messages++;
	if (fresh) {
		q->rx_req_psn = psn;
		q->rx_have_psn = true;
	}
}

/* The traffic checks: a responder acknowledges requests (never more
 * Acknowledge packets than request packets it was sent), and a requester
 * sends the messages it was asked to (never more than the work requests
 * posted). A duplicate-ACK storm or unsolicited requests fail the case. */
static void check_traffic(struct run_ctx *x)
{
	for (unsigned i = 0; i < x->n_qps; i++) {
		struct case_qp *q = &x->qps[i];
		char msg[400];
		if (q->rx_acks > q->tx_requests) {
			outf(msg, sizeof msg,
			     "the DUT sent %llu Acknowledge packets on QP %s, more than the %llu request packets the tester sent it: "
			     "a responder acknowledges requests and does not repeat ACKs unprompted",
			     (unsigned long long)q->rx_acks, q->name, (unsigned long long)q->tx_requests);
		} else if (q->rx_messages > q->posted) {
			outf(msg, sizeof msg,
			     "the DUT started %llu request messages on QP %s, more than the %llu work requests the case posted on it",
			     (unsigned long long)q->rx_messages, q->name, (unsigned long long)q->posted);
		} else {
			continue;
		}
		const struct roce_rule_info *ri = roce_rule(ROCE_RULE_CA17_25);
		JsonObject *j = json_object_new();
		json_object_set_string_member(j, "rule", ri->id);
		json_object_set_string_member(j, "severity", "error");
		json_object_set_string_member(j, "message", msg);
		json_object_set_string_member(j, "qp", q->name);
		json_object_set_string_member(j, "source", "traffic check");
		json_array_add_object_element(x->findings, j);
		x->pkt_error = true;
		add_failed_rule(x, ri->id);
	}
}

/* ---- The wire: engine callbacks and the pump ---- */

static int on_engine_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	struct runner *r = ctx;
	char err[256];
	/* Stamped before the send: on a veth the frame reaches the DUT (and
	 * may be answered) before the send call returns. */
	uint64_t ts = rawio_now();
	int rc = rawio_send(&r->io, frame, len, err, sizeof err);
	if (r->rc) {
		char note[512]; /* the engine's word, a rule's label (160) and a send error (256) */
		outf(note, sizeof note, "%s%s%s%s", info->why ? info->why : "", info->round ? " (round " : "",
		     "", "");
		if (info->round)
			appendf(note, sizeof note, "%u)", info->round);
		if (info->rule)
			appendf(note, sizeof note, " [rule: %s]", info->rule);
		if (rc != 0)
			appendf(note, sizeof note, " [send failed: %s]", err);
		record_pkt(r->rc, frame, len, ts, true, info->qpn, note);
		struct case_qp *q = qp_by_tester_qpn(r->rc, info->qpn);
		const struct roce_opcode_info *oi = roce_opcode(info->opcode);
		if (q && oi && (oi->flags & ROCE_OPF_REQUEST))
			q->tx_requests++;
	}
	return rc;
}

static void on_engine_note(void *ctx, const struct peer_tx_info *info, const char *what)
{
	struct runner *r = ctx;
	if (r->rc)
		event(r->rc, "QP 0x%06x PSN %u opcode 0x%02x (%s): %s%s%s", info->qpn, info->psn, info->opcode,
		      info->why ? info->why : "", what, info->rule ? " by rule: " : "", info->rule ? info->rule : "");
}

static struct case_qp *cm_qp_of(struct run_ctx *x, const uint8_t *data, size_t len);

static void on_frame(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts)
{
	struct runner *r = ctx;
	(void)len;
	uint32_t qpn = peer_rx(r->peer, data, caplen, ts);
	if (!r->rc)
		return;
	struct run_ctx *x = r->rc;
	if (!x->rx_frames++)
		x->rx_first_ns = ts;
	x->rx_last_ns = ts;
	x->rx_bytes += caplen;
	struct case_qp *cmq = qpn ? NULL : cm_qp_of(x, data, caplen);
	if (cmq)
		qpn = cmq->tester_qpn;
	long idx = record_pkt(x, data, caplen, ts, false, qpn, NULL);
	struct case_qp *q = qpn ? qp_by_tester_qpn(x, qpn) : NULL;
	if (q) {
		if (!cmq) /* a CM MAD on QP1 is not the QP's own traffic */
			account_dut_packet(q, data, caplen);
		if (idx >= 0)
			check_dut_packet(x, idx, q);
	} else if (idx >= 0 && !is_neighbour_frame(data, caplen) && from_dut(r, data, caplen)) {
		check_stray_packet(x, idx);
	}
}

/* Moves the wire until deadline, or until fd is readable (fd >= 0), or
 * until frames arrived (stop_on_rx). */
static void pump_until(struct runner *r, int fd, uint64_t deadline, bool stop_on_rx)
{
	char err[256];
	for (;;) {
		uint64_t now = rawio_now();
		peer_advance(r->peer, now);
		if (now >= deadline || interrupted(r))
			return;
		uint64_t until = deadline;
		uint64_t t = peer_next_deadline(r->peer);
		if (t < until)
			until = t;
		if (until <= now)
			continue;
		struct pollfd pf[2] = { { r->io.fd, POLLIN, 0 }, { fd, POLLIN, 0 } };
		/* Under a millisecond (paced injection, short timers) poll
		 * without sleeping: poll's timeout counts whole ms. */
		uint64_t ms = until - now < NS_PER_MS ? 0 : (until - now) / NS_PER_MS;
		if (ms > 100)
			ms = 100;
		int n = poll(pf, fd >= 0 ? 2 : 1, (int)ms);
		if (n < 0 && errno != EINTR)
			return;
		if (n > 0 && (pf[0].revents & POLLIN) && rawio_wait(&r->io, 0, on_frame, r, err, sizeof err) > 0 &&
		    stop_on_rx)
			return;
		if (fd >= 0 && pf[1].revents)
			return;
	}
}

static void agent_pump(void *ctx, int fd, uint64_t deadline)
{
	pump_until(ctx, fd, deadline, false);
}

/* ---- Symbols and values ---- */

/* NAME.MEMBER: two names of the case language. */
#define SYM_KEY_MAX (2 * CL_MAX_WORD + 2)

static void sym_set_unit(struct run_ctx *x, const char *name, const char *member, uint64_t v, enum sym_unit u)
{
	char key[SYM_KEY_MAX];
	outf(key, sizeof key, "%s%s%s", name, member ? "." : "", member ? member : "");
	for (size_t i = 0; i < x->n_syms; i++) {
		if (!strcmp(x->syms[i].name, key)) {
			x->syms[i].value = v;
			x->syms[i].unit = u;
			return;
		}
	}
	if (x->n_syms == x->cap_syms) {
		x->cap_syms = x->cap_syms ? 2 * x->cap_syms : 32;
		struct sym_val *s = realloc(x->syms, x->cap_syms * sizeof *s);
		if (!s)
			abort();
		x->syms = s;
	}
	x->syms[x->n_syms].name = strdup(key);
	x->syms[x->n_syms].value = v;
	x->syms[x->n_syms].unit = u;
	x->n_syms++;
}

static void sym_set(struct run_ctx *x, const char *name, const char *member, uint64_t v)
{
	sym_set_unit(x, name, member, v, SYM_PLAIN);
}

static const struct sym_val *sym_find(struct run_ctx *x, const char *name, const char *member)
{
	char key[SYM_KEY_MAX];
	outf(key, sizeof key, "%s%s%s", name, member ? "." : "", member ? member : "");
	for (size_t i = 0; i < x->n_syms; i++)
		if (!strcmp(x->syms[i].name, key))
			return &x->syms[i];
	return NULL;
}

static bool sym_get(struct run_ctx *x, const char *name, const char *member, uint64_t *v)
{
	const struct sym_val *sv = sym_find(x, name, member);
	if (sv)
		*v = sv->value;
	return sv != NULL;
}

/* A value as a report shows it: 67.109 ms, 4.00 Mb/s, 1200 pkt/s. */
static void format_value(uint64_t v, enum sym_unit u, char *buf, size_t n)
{
	switch (u) {
	case SYM_NS:
		if (v < 1000)
			outf(buf, n, "%llu ns", (unsigned long long)v);
		else if (v < 1000000)
			outf(buf, n, "%.3f us", (double)v / 1e3);
		else if (v < 1000000000)
			outf(buf, n, "%.3f ms", (double)v / 1e6);
		else
			outf(buf, n, "%.3f s", (double)v / 1e9);
		return;
	case SYM_BYTES: outf(buf, n, "%llu bytes", (unsigned long long)v); return;
	case SYM_BYTES_PER_S: outf(buf, n, "%.3f Mb/s", (double)v * 8 / 1e6); return;
	case SYM_PER_S: outf(buf, n, "%llu pkt/s", (unsigned long long)v); return;
	case SYM_PLAIN: break;
	}
	outf(buf, n, "%llu", (unsigned long long)v);
}

static bool eval(struct run_ctx *x, const struct cl_expr *e, uint64_t *out, struct step_out *o)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		uint64_t tv = t->num;
		if (t->is_sym && !sym_get(x, t->sym, t->member, &tv)) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: $%s%s%s has no value (the step that binds it did not run or did not match)",
			     x->c->path, t->loc.line, t->loc.col, t->sym, t->member ? "." : "", t->member ? t->member : "");
			return false;
		}
		if (t->mul)
			tv *= t->mul;
		if (t->div)
			tv /= t->div;
		v = t->sign > 0 ? v + tv : v - tv;
	}
	*out = v;
	return true;
}

/* The unit an expression's value is in: time if a term is a duration or
 * a time-valued symbol, else the first symbol's. */
static enum sym_unit expr_unit(struct run_ctx *x, const struct cl_expr *e)
{
	enum sym_unit u = SYM_PLAIN;
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		if (t->duration)
			return SYM_NS;
		const struct sym_val *sv = t->is_sym ? sym_find(x, t->sym, t->member) : NULL;
		if (sv && sv->unit == SYM_NS)
			return SYM_NS;
		if (sv && u == SYM_PLAIN)
			u = sv->unit;
	}
	return u;
}

/* An expression as written ($r0 * 9 / 10, 60 ms). */
static gchar *expr_text(const struct cl_expr *e)
{
	GString *buf = g_string_new(NULL);
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		if (i)
			g_string_append_printf(buf, " %c ", t->sign > 0 ? '+' : '-');
		else if (t->sign < 0)
			g_string_append(buf, "-");
		if (t->is_sym) {
			g_string_append_printf(buf, "$%s%s%s", t->sym, t->member ? "." : "", t->member ? t->member : "");
		} else if (t->duration) {
			char d[64];
			format_value(t->num, SYM_NS, d, sizeof d);
			g_string_append(buf, d);
		} else {
			g_string_append_printf(buf, "%llu", (unsigned long long)t->num);
		}
		if (t->mul && t->mul != 1)
			g_string_append_printf(buf, " * %llu", (unsigned long long)t->mul);
		if (t->div && t->div != 1)
			g_string_append_printf(buf, " / %llu", (unsigned long long)t->div);
	}
	return g_string_free(buf, FALSE);
}

static bool arg_u64(struct run_ctx *x, const struct cl_step *s, const char *key, uint64_t def, uint64_t *v,
		    struct step_out *o)
{
	const struct cl_arg *a = cl_step_arg(s, key);
	if (!a || a->v.kind != CL_V_EXPR) {
		*v = def;
		return true;
	}
	return eval(x, &a->v.expr, v, o);
}

static const char *arg_word(const struct cl_step *s, const char *key, const char *def)
{
	const struct cl_arg *a = cl_step_arg(s, key);
	return a && (a->v.kind == CL_V_WORD || a->v.kind == CL_V_LIST) ? a->v.word : def;
}

static struct case_qp *find_qp(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; i < x->n_qps; i++)
		if (!strcmp(x->qps[i].name, name))
			return &x->qps[i];
	return NULL;
}

static struct case_mr *find_mr(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; i < x->n_mrs; i++)
		if (!strcmp(x->mrs[i].name, name))
			return &x->mrs[i];
	return NULL;
}

/* ---- Agent calls ---- */

static bool call(struct run_ctx *x, struct step_out *o, const char *method, JsonObject *params, JsonObject **res)
{
	struct runner *r = x->r;
	JsonObject *result = NULL;
	enum agent_status st = agent_call(&r->agent, method, params, r->opts.agent_timeout_ns, &result);
	const char *code = r->agent.fail_code->str, *msg = r->agent.fail_msg->str;
	if (st == AGENT_OK) {
		if (res)
			*res = result;
		else
			json_object_unref(result);
		return true;
	}
	if (st == AGENT_ERROR_REPLY && ap_error_by_name(code) == AP_E_UNSUPPORTED) {
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT does not support %s: %s", method, msg);
	} else if (st == AGENT_ERROR_REPLY) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the agent refused %s: %s: %s", method, code, msg);
	} else {
		o->st = S_ERROR;
		g_string_printf(o->detail, "agent failure during %s: %s", method, msg);
	}
	return false;
}

static JsonArray *access_list(const struct cl_step *s, const char *def_csv)
{
	JsonArray *a = json_array_new();
	const struct cl_arg *arg = cl_step_arg(s, "access");
	if (arg) {
		for (unsigned i = 0; i < arg->v.n_list; i++)
			json_array_add_string_element(a, arg->v.list[i]);
		if (arg->v.kind == CL_V_WORD)
			json_array_add_string_element(a, arg->v.word);
		return a;
	}
	char buf[128];
	outf(buf, sizeof buf, "%s", def_csv);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
		json_array_add_string_element(a, tok);
	return a;
}

static bool ensure_pd(struct run_ctx *x, struct step_out *o)
{
	if (x->have_pd)
		return true;
	JsonObject *res;
	if (!call(x, o, "alloc_pd", NULL, &res))
		return false;
	uint64_t pd;
	bool ok = agent_get_u64(res, "pd", &pd);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "alloc_pd: the reply has no pd handle");
		return false;
	}
	x->pd = (int64_t)pd;
	x->have_pd = true;
	return true;
}

static void b64_member(JsonObject *o, const char *key, const uint8_t *data, size_t n)
{
	gchar *b = g_base64_encode(data, n);
	json_object_set_string_member(o, key, b);
	g_free(b);
}

/* At most 32 bytes in hex, then the length: 100 bytes hold it. */
static void hex_text(char *out, size_t n, const uint8_t *d, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (i == 32 && len > 33) {
			appendf(out, n, "... (%zu bytes)", len);
			return;
		}
		appendf(out, n, "%02x", d[i]);
	}
}

/* ---- Steps: DUT verbs ---- */

static void step_dut_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t size, fill;
	if (!arg_u64(x, s, "size", 4096, &size, o) || !arg_u64(x, s, "fill", 0, &fill, o) || !ensure_pd(x, o))
		return;
	if (x->n_mrs == MAX_MRS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d MRs in one case", MAX_MRS);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", x->pd);
	agent_set_u64(p, "length", size);
	json_object_set_array_member(p, "access", access_list(s, "LOCAL_WRITE,REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC"));
	json_object_set_int_member(p, "fill", (gint64)(fill & 0xFF));
	if (!call(x, o, "reg_mr", p, &res))
		return;
	struct case_mr *m = &x->mrs[x->n_mrs];
	memset(m, 0, sizeof *m);
	m->name = s->name;
	uint64_t h = 0, rkey = 0, lkey = 0;
	bool ok = agent_get_u64(res, "mr", &h) && agent_get_u64(res, "addr", &m->addr) &&
		  agent_get_u64(res, "rkey", &rkey) && agent_get_u64(res, "lkey", &lkey);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "reg_mr: the reply lacks mr, addr, rkey or lkey");
		return;
	}
	m->handle = (int64_t)h;
	m->rkey = (uint32_t)rkey;
	m->lkey = (uint32_t)lkey;
	m->len = size;
	x->n_mrs++;
	sym_set(x, s->name, "addr", m->addr);
	sym_set(x, s->name, "rkey", m->rkey);
	sym_set(x, s->name, "lkey", m->lkey);
	sym_set(x, s->name, "len", m->len);
	g_string_printf(o->detail, "MR %s: addr 0x%llx rkey 0x%x length %llu", s->name,
	     (unsigned long long)m->addr, m->rkey, (unsigned long long)size);
}

static uint32_t random_psn(void)
{
	return ((uint32_t)rand() << 8 ^ (uint32_t)rand()) & ROCE_PSN_MASK;
}

static void tester_gid(struct runner *r, int ipv, char *out, size_t n)
{
	uint8_t gid[ROCE_GID_LEN];
	roce_gid_from_ip(ipv, ipv == 4 ? r->io.ip4 : r->io.ip6, gid);
	roce_gid_format(gid, out, n);
}

/* The addressing of a tester QP towards the DUT. */
static void make_endpoint(struct run_ctx *x, const struct case_qp *q, uint8_t tc, uint32_t fl, uint16_t sport,
			  struct roce_endpoint *ep)
{
	struct runner *r = x->r;
	memset(ep, 0, sizeof *ep);
	ep->ip_version = q->ipv;
	ep->rocev1 = q->rocev1;
	memcpy(ep->src_mac, r->io.mac, 6);
	memcpy(ep->dst_mac, r->fam[q->fi].mac, 6);
	if (r->opts.vlan >= 0) {
		ep->n_vlan = 1;
		ep->vlan_tci[0] = roce_vlan_tci((unsigned)r->opts.vlan_pcp, (unsigned)r->opts.vlan);
	}
	if (q->ipv == 4) {
		memcpy(ep->src_ip, r->io.ip4, 4);
		memcpy(ep->dst_ip, r->fam[0].ip, 4);
	} else {
		memcpy(ep->src_ip, r->io.ip6, 16);
		memcpy(ep->dst_ip, r->fam[1].ip, 16);
	}
	ep->traffic_class = tc;
	ep->flow_label = fl;
	ep->hop_limit = 64;
	ep->udp_sport = sport ? sport : (uint16_t)(0xC000 | (q->tester_qpn & 0x3FFF));
	ep->pkey = 0xFFFF;
	ep->dest_qpn = q->dut_qpn;
}

static const char *const bringup_states[3] = { "INIT", "RTR", "RTS" };

static int bringup_index(const char *state)
{
	for (int i = 0; i < 3; i++)
		if (!strcasecmp(state, bringup_states[i]))
			return i;
	return -1;
}

/* Moves a case QP; the transition's attributes are remembered (bring-up)
 * or completed from what the bring-up would have given (a later modify
 * along the same path). */
static bool modify(struct run_ctx *x, struct step_out *o, struct case_qp *q, const char *state, JsonObject *attrs,
		   bool remember)
{
	int bi = bringup_index(state);
	bool next_in_path = bi >= 0 && !strcasecmp(q->state, bi ? bringup_states[bi - 1] : "RESET");
	if (remember && bi >= 0) {
		q->bringup[bi] = json_object_ref(attrs);
	} else if (next_in_path && q->bringup[bi]) {
		GList *members = json_object_get_members(q->bringup[bi]);
		for (GList *m = members; m; m = m->next)
			if (!json_object_has_member(attrs, m->data))
				json_object_set_member(attrs, m->data, json_object_dup_member(q->bringup[bi], m->data));
		g_list_free(members);
	}
	json_object_set_int_member(attrs, "qp", q->dut_qp);
	json_object_set_string_member(attrs, "state", state);
	if (!call(x, o, "modify_qp", attrs, NULL))
		return false;
	static const char *const known[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcasecmp(state, known[i]))
			q->state = known[i];
	return true;
}

/* The UD QP's address handle towards the tester with a source GID of
 * type RoCE v1 or RoCEv2, made the first time a work request needs it
 * (A17.8: a UD QP picks the protocol per work request). */
static bool ud_ah(struct run_ctx *x, struct case_qp *q, bool v1, struct step_out *o)
{
	struct runner *r = x->r;
	if (q->dut_ah[v1] >= 0)
		return true;
	if (v1 && r->fam[q->fi].sgid_index_v1 < 0) {
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT lists no RoCE v1 GID for IPv%d: not a dual-mode port", q->ipv);
		return false;
	}
	char gid[64];
	tester_gid(r, q->ipv, gid, sizeof gid);
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", x->pd);
	json_object_set_string_member(p, "dgid", gid);
	json_object_set_int_member(p, "sgid_index", v1 ? r->fam[q->fi].sgid_index_v1 : r->fam[q->fi].sgid_index);
	json_object_set_int_member(p, "hop_limit", q->hop_limit);
	json_object_set_int_member(p, "traffic_class", q->tc);
	json_object_set_int_member(p, "flow_label", q->flow_label);
	json_object_set_int_member(p, "sl", q->sl);
	json_object_set_int_member(p, "port", 1);
	if (!call(x, o, "create_ah", p, &res))
		return false;
	uint64_t h;
	bool ok = agent_get_u64(res, "ah", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_ah: the reply has no ah handle");
		return false;
	}
	q->dut_ah[v1] = (int64_t)h;
	return true;
}

static void step_dut_qp(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct runner *r = x->r;
	if (x->n_qps == MAX_QPS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d QPs in one case", MAX_QPS);
		return;
	}
	const char *type = arg_word(s, "type", "RC");
	enum roce_transport t = !strcasecmp(type, "UC") ? ROCE_T_UC : !strcasecmp(type, "UD") ? ROCE_T_UD : ROCE_T_RC;
	uint64_t pmtu, psn, peer_psn, timeout, retry, rnr_retry, min_rnr, max_rd, max_dest_rd, qkey, tc, hl, fl,
		sport, peer_timeout, peer_retry;
	/* A UD message may take the whole port MTU unless the case says less. */
	if (!arg_u64(x, s, "pmtu", t == ROCE_T_UD ? dut_port_mtu(r) : x->c->pmtu, &pmtu, o) || !arg_u64(x, s, "psn", random_psn(), &psn, o) ||
	    !arg_u64(x, s, "peer_psn", random_psn(), &peer_psn, o) || !arg_u64(x, s, "timeout", 14, &timeout, o) ||
	    !arg_u64(x, s, "retry_cnt", 7, &retry, o) || !arg_u64(x, s, "rnr_retry", 7, &rnr_retry, o) ||
	    !arg_u64(x, s, "min_rnr_timer", 12, &min_rnr, o) || !arg_u64(x, s, "max_rd_atomic", 4, &max_rd, o) ||
	    !arg_u64(x, s, "max_dest_rd_atomic", 4, &max_dest_rd, o) || !arg_u64(x, s, "qkey", 0x11111111, &qkey, o) ||
	    !arg_u64(x, s, "traffic_class", 0, &tc, o) || !arg_u64(x, s, "hop_limit", 64, &hl, o) ||
	    !arg_u64(x, s, "flow_label", 0, &fl, o) || !arg_u64(x, s, "udp_sport", 0, &sport, o) ||
	    !arg_u64(x, s, "peer_timeout", 50, &peer_timeout, o) || !arg_u64(x, s, "peer_retry_cnt", 7, &peer_retry, o))
		return;
	/* The SL of the DUT's address vector: by default the run's priority. */
	uint64_t sl;
	if (!arg_u64(x, s, "sl", r->opts.vlan >= 0 ? (uint64_t)r->opts.vlan_pcp : 0, &sl, o))
		return;
	if (!roce_mtu_enum((unsigned)pmtu)) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "pmtu=%llu is not a path MTU (256..4096)", (unsigned long long)pmtu);
		return;
	}
	if (t != ROCE_T_UD && pmtu > dut_port_mtu(r)) {
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT port's active MTU is %u, below the path MTU %llu of QP %s",
		     dut_port_mtu(r), (unsigned long long)pmtu, s->name);
		return;
	}
	psn &= ROCE_PSN_MASK;
	peer_psn &= ROCE_PSN_MASK;
	/* A QP may pin its IP version (a case that needs both at once). */
	uint64_t ipv;
	if (!arg_u64(x, s, "ip", (uint64_t)x->ipv, &ipv, o))
		return;
	if (ipv != 4 && ipv != 6) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "ip=%llu: expected 4 or 6", (unsigned long long)ipv);
		return;
	}
	if ((int)ipv != x->ipv) {
		char why[256];
		if (!family_usable(r, (int)ipv, why, sizeof why)) {
			/* A DUT without a RoCEv2 GID of that version breaks the
			 * case's rules (CA17-1); a tester without the address
			 * cannot run it. */
			o->st = r->fam[ipv == 6].no_gid ? S_FAIL : S_ERROR;
			g_string_printf(o->detail, "QP %s over IPv%d: %s", s->name, (int)ipv, why);
			g_string_printf(o->expected, "a RoCEv2 GID of the DUT for IPv%d", (int)ipv);
			g_string_printf(o->observed, "%s", why);
			return;
		}
	}
	/* proto=v1: a RoCE v1 source GID of the same address (dual-mode port). */
	bool v1 = !strcasecmp(arg_word(s, "proto", "v2"), "v1");
	if (v1 && r->fam[ipv == 6].sgid_index_v1 < 0) {
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT lists no RoCE v1 GID for IPv%d: not a dual-mode port", (int)ipv);
		return;
	}
	const char *upto = arg_word(s, "state", "RTS");
	if (!ensure_pd(x, o))
		return;
	struct case_qp *q = &x->qps[x->n_qps];
	memset(q, 0, sizeof *q);
	q->name = s->name;
	q->type = t;
	q->ipv = (int)ipv;
	q->fi = ipv == 6;
	q->state = "RESET";
	q->pmtu = (unsigned)pmtu;
	q->dut_psn = (uint32_t)psn;
	q->tester_psn = (uint32_t)peer_psn;
	q->dut_qkey = (uint32_t)qkey;
	q->tester_qkey = 0x22222222;
	q->sl = (unsigned)sl;
	q->rocev1 = v1;
	q->tc = (uint8_t)tc;
	q->hop_limit = (uint8_t)hl;
	q->flow_label = (uint32_t)fl;
	q->dut_ah[0] = q->dut_ah[1] = -1;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "cqe", 256);
	if (!call(x, o, "create_cq", p, &res))
		return;
	uint64_t h;
	bool ok = agent_get_u64(res, "cq", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_cq: the reply has no cq handle");
		return;
	}
	q->dut_cq = (int64_t)h;
	p = json_object_new();
	json_object_set_int_member(p, "pd", x->pd);
	json_object_set_string_member(p, "type", roce_transport_name(t));
	json_object_set_int_member(p, "send_cq", q->dut_cq);
	json_object_set_int_member(p, "recv_cq", q->dut_cq);
	json_object_set_boolean_member(p, "sq_sig_all", FALSE);
	if (!call(x, o, "create_qp", p, &res))
		return;
	uint64_t qpn = 0;
	ok = agent_get_u64(res, "qp", &h) && agent_get_u64(res, "qpn", &qpn);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_qp: the reply lacks qp or qpn");
		return;
	}
	q->dut_qp = (int64_t)h;
	q->dut_qpn = (uint32_t)qpn;
	q->tester_qpn = r->next_tester_qpn++;
	if (r->next_tester_qpn > 0xFFFF00)
		r->next_tester_qpn = 0x100;
	x->n_qps++;

	char gid[64];
	tester_gid(r, q->ipv, gid, sizeof gid);
	/* RESET -> INIT -> RTR -> RTS with the tester's QPN, PSN and GID. */
	p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	json_object_set_int_member(p, "pkey_index", 0);
	if (t == ROCE_T_UD)
		agent_set_u64(p, "qkey", qkey);
	else
		json_object_set_array_member(p, "access", access_list(s, t == ROCE_T_RC ? "REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC" : "REMOTE_WRITE"));
	/* state=RESET: the DUT's connection manager brings it up (dut listen). */
	bool reset = !strcasecmp(upto, "RESET");
	if (reset) {
		q->bringup[0] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, "INIT", p, true)) {
		return;
	}
	p = json_object_new();
	if (t != ROCE_T_UD) {
		json_object_set_int_member(p, "path_mtu", (gint64)pmtu);
		json_object_set_int_member(p, "dest_qpn", q->tester_qpn);
		json_object_set_int_member(p, "rq_psn", q->tester_psn);
		json_object_set_string_member(p, "dgid", gid);
		json_object_set_int_member(p, "sgid_index", v1 ? r->fam[q->fi].sgid_index_v1 : r->fam[q->fi].sgid_index);
		json_object_set_int_member(p, "hop_limit", (gint64)hl);
		json_object_set_int_member(p, "traffic_class", (gint64)tc);
		json_object_set_int_member(p, "flow_label", (gint64)fl);
		json_object_set_int_member(p, "sl", (gint64)sl);
		/* No "port" here: it is the QP's port attribute, set in
		 * RESET -> INIT; verbs refuse it in INIT -> RTR. */
		if (t == ROCE_T_RC) {
			json_object_set_int_member(p, "max_dest_rd_atomic", (gint64)max_dest_rd);
			json_object_set_int_member(p, "min_rnr_timer", (gint64)min_rnr);
		}
	}
	bool stop = reset || !strcasecmp(upto, "INIT");
	if (stop) {
		q->bringup[1] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, "RTR", p, true)) {
		return;
	}
	p = json_object_new();
	json_object_set_int_member(p, "sq_psn", q->dut_psn);
	if (t == ROCE_T_RC) {
		json_object_set_int_member(p, "timeout", (gint64)timeout);
		json_object_set_int_member(p, "retry_cnt", (gint64)retry);
		json_object_set_int_member(p, "rnr_retry", (gint64)rnr_retry);
		json_object_set_int_member(p, "max_rd_atomic", (gint64)max_rd);
	}
	stop = stop || !strcasecmp(upto, "RTR");
	if (stop) {
		q->bringup[2] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, "RTS", p, true)) {
		return;
	}
	if (t == ROCE_T_UD && !ud_ah(x, q, v1, o))
		return;

	/* The tester's side of the connection. */
	struct peer_qp_cfg cfg = { 0 };
	cfg.type = t;
	cfg.qpn = q->tester_qpn;
	cfg.remote_qpn = q->dut_qpn;
	cfg.sq_psn = q->tester_psn;
	cfg.rq_psn = q->dut_psn;
	cfg.pmtu = q->pmtu;
	cfg.qkey = q->tester_qkey;
	cfg.remote_qkey = q->dut_qkey;
	cfg.ack_timeout_ns = peer_timeout * NS_PER_MS;
	cfg.retry_cnt = (unsigned)(peer_retry & 7);
	cfg.rnr_retry = 7;
	cfg.rnr_timer = (unsigned)(min_rnr & 31);
	make_endpoint(x, q, (uint8_t)tc, (uint32_t)fl, (uint16_t)sport, &cfg.ep);
	if (peer_qp_add(r->peer, &cfg) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester could not add QP 0x%06x", q->tester_qpn);
		return;
	}
	sym_set(x, s->name, "qpn", q->dut_qpn);
	sym_set(x, s->name, "psn", q->dut_psn);
	sym_set(x, s->name, "peer_qpn", q->tester_qpn);
	sym_set(x, s->name, "peer_psn", q->tester_psn);
	sym_set(x, s->name, "qkey", q->dut_qkey);
	q->cm_local_id = 0x70000000u | q->tester_qpn;
	q->cm_service_id = roce_cm_ip_service_id(0); /* port 0: nobody listens there */
	g_string_printf(o->detail, "%s QP %s over IPv%d: DUT QPN 0x%06x (send PSN %u), tester QPN 0x%06x (send PSN %u), PMTU %u, %s",
	     roce_transport_name(t), s->name, q->ipv, q->dut_qpn, q->dut_psn, q->tester_qpn, q->tester_psn, q->pmtu,
	     q->state);
}

static JsonArray *sge_list(struct case_mr *m, uint64_t off, uint64_t len)
{
	JsonArray *a = json_array_new();
	JsonObject *e = json_object_new();
	json_object_set_int_member(e, "mr", m->handle);
	agent_set_u64(e, "offset", off);
	agent_set_u64(e, "length", len);
	json_array_add_object_element(a, e);
	return a;
}

static void step_post_recv(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct case_mr *m = find_mr(x, s->mr);
	uint64_t off, len, wr_id;
	if (!arg_u64(x, s, "offset", 0, &off, o) || !arg_u64(x, s, "len", m->len, &len, o) ||
	    !arg_u64(x, s, "wr_id", (uint64_t)x->cur_step, &wr_id, o))
		return;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "qp", q->dut_qp);
	agent_set_u64(p, "wr_id", wr_id);
	json_object_set_array_member(p, "sge", sge_list(m, off, len));
	call(x, o, "post_recv", p, NULL);
}

static void step_post_send(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct case_mr *m = s->mr ? find_mr(x, s->mr) : NULL;
	uint64_t off, len, wr_id, v;
	if (!arg_u64(x, s, "offset", 0, &off, o) || !arg_u64(x, s, "len", m ? m->len : 0, &len, o) ||
	    !arg_u64(x, s, "wr_id", (uint64_t)x->cur_step, &wr_id, o))
		return;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "qp", q->dut_qp);
	agent_set_u64(p, "wr_id", wr_id);
	json_object_set_string_member(p, "opcode", s->verb);
	json_object_set_array_member(p, "sge", m ? sge_list(m, off, len) : json_array_new());
	json_object_set_boolean_member(p, "signaled", strcasecmp(arg_word(s, "signaled", "on"), "off") != 0);
	if (!strcasecmp(arg_word(s, "solicited", "off"), "on"))
		json_object_set_boolean_member(p, "solicited", TRUE);
	static const struct {
		const char *arg, *member;
	} nums[] = { { "remote", "remote_addr" }, { "rkey", "rkey" }, { "imm", "imm_data" }, { "compare", "compare_add" },
		     { "add", "compare_add" }, { "swap", "swap" }, { "invalidate", "invalidate_rkey" } };
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		if (!cl_step_arg(s, nums[i].arg))
			continue;
		if (!arg_u64(x, s, nums[i].arg, 0, &v, o)) {
			json_object_unref(p);
			return;
		}
		agent_set_u64(p, nums[i].member, v);
	}
	if (q->type == ROCE_T_UD) {
		uint64_t qk;
		if (!arg_u64(x, s, "remote_qkey", q->tester_qkey, &qk, o)) {
			json_object_unref(p);
			return;
		}
		bool v1 = !strcasecmp(arg_word(s, "proto", q->rocev1 ? "v1" : "v2"), "v1");
		if (!ud_ah(x, q, v1, o)) {
			json_object_unref(p);
			return;
		}
		json_object_set_int_member(p, "ah", q->dut_ah[v1]);
		json_object_set_int_member(p, "remote_qpn", q->tester_qpn);
		agent_set_u64(p, "remote_qkey", qk);
	}
	if (call(x, o, "post_send", p, NULL))
		q->posted++;
}

static void step_dut_write(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	uint64_t off;
	if (!arg_u64(x, s, "offset", 0, &off, o))
		return;
	const struct cl_arg *d = cl_step_arg(s, "data");
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off);
	b64_member(p, "data", d->v.bytes, d->v.n_bytes);
	call(x, o, "write_mr", p, NULL);
}

/* The DUT memory check of a UD receive's first 40 bytes (A17.4.5): the L3
 * header of the last packet the tester sent to the QP; of an IPv4 header,
 * bytes 20..39 only (0..19 are undefined). */
static void step_dut_read_l3(struct run_ctx *x, const struct cl_step *s, struct step_out *o, const char *qpname)
{
	struct case_mr *m = find_mr(x, s->mr);
	struct case_qp *q = find_qp(x, qpname);
	uint64_t off;
	if (!arg_u64(x, s, "offset", 0, &off, o))
		return;
	const struct case_pkt *sent = NULL;
	long sent_idx = -1;
	for (size_t i = x->n_pkts; i-- > 0;) {
		if (x->pkts[i].tx && x->pkts[i].qpn == q->tester_qpn) {
			sent = &x->pkts[i];
			sent_idx = (long)i;
			break;
		}
	}
	struct roce_pkt pk;
	if (!sent || roce_parse_frame(&pk, sent->data, sent->len, sent->len, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1) != ROCE_OK) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester has sent no packet to QP %s whose header to compare", qpname);
		return;
	}
	o->pkts[o->n_pkts++] = sent_idx;
	/* RoCE v1: the GRH, all 40 bytes. */
	size_t hl = pk.rocev1 || pk.ip_version == 6 ? ROCE_IPV6_LEN : ROCE_IPV4_LEN;
	size_t at = 40 - hl; /* where the header sits in the 40 bytes */
	const uint8_t *hdr = pk.buf + pk.hdr_off[pk.rocev1 ? ROCE_H_GRH : pk.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off + at);
	agent_set_u64(p, "length", hl);
	if (!call(x, o, "read_mr", p, &res))
		return;
	const char *b64 = json_object_has_member(res, "data") ? json_object_get_string_member(res, "data") : NULL;
	gsize n = 0;
	guchar *got = b64 ? g_base64_decode(b64, &n) : NULL;
	if (!got || n != hl || memcmp(got, hdr, hl)) {
		char exp[200], obs[200];
		hex_text(exp, sizeof exp, hdr, hl);
		hex_text(obs, sizeof obs, got ? got : (const guchar *)"", n);
		o->st = S_FAIL;
		g_string_printf(o->expected, "DUT MR %s bytes %llu..%llu hold the %s of the tester's last packet to QP %s: %s",
		     s->mr, (unsigned long long)(off + at), (unsigned long long)(off + 39),
		     pk.rocev1 ? "GRH" : pk.ip_version == 6 ? "IPv6 header" : "IPv4 header", qpname, exp);
		g_string_printf(o->observed, "%s", got ? obs : "no data in the reply");
	} else {
		g_string_printf(o->detail, "bytes %llu..%llu hold the %s of the packet that was received",
		     (unsigned long long)(off + at), (unsigned long long)(off + 39),
		     pk.rocev1 ? "GRH" : pk.ip_version == 6 ? "IPv6 header" : "IPv4 header");
	}
	g_free(got);
	json_object_unref(res);
}

static void step_dut_read(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_arg *l3 = cl_step_arg(s, "l3_header");
	if (l3) {
		step_dut_read_l3(x, s, o, l3->v.word);
		return;
	}
	const struct cl_arg *d = cl_step_arg(s, "data");
	uint64_t off, len;
	if (!arg_u64(x, s, "offset", 0, &off, o) || !arg_u64(x, s, "len", d->v.n_bytes, &len, o))
		return;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off);
	agent_set_u64(p, "length", len);
	if (!call(x, o, "read_mr", p, &res))
		return;
	const char *b64 = json_object_has_member(res, "data") ? json_object_get_string_member(res, "data") : NULL;
	gsize n = 0;
	guchar *got = b64 ? g_base64_decode(b64, &n) : NULL;
	char exp[200], obs[200];
	hex_text(exp, sizeof exp, d->v.bytes, d->v.n_bytes);
	hex_text(obs, sizeof obs, got ? got : (const guchar *)"", n);
	if (!got || n != d->v.n_bytes || memcmp(got, d->v.bytes, n)) {
		o->st = S_FAIL;
		g_string_printf(o->expected, "DUT MR %s at offset %llu holds %s", s->mr, (unsigned long long)off, exp);
		g_string_printf(o->observed, "%s", got ? obs : "no data in the reply");
	}
	g_free(got);
	json_object_unref(res);
}

static void step_dut_query(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->dut_qp);
	if (!call(x, o, "query_qp", p, &res))
		return;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "state")) {
			const char *st = json_object_has_member(res, "state") ? json_object_get_string_member(res, "state") : "?";
			bool eq = st && !strcasecmp(st, a->v.word);
			if ((a->cmp == CL_EQ) != eq) {
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "state %s %s; ", a->cmp == CL_EQ ? "=" : "!=", a->v.word);
				g_string_append_printf(o->observed, "state %s; ", st ? st : "?");
			}
			continue;
		}
		uint64_t got;
		if (!agent_get_u64(res, a->key, &got)) {
			o->st = S_FAIL;
			g_string_append_printf(o->observed, "%s missing from query_qp; ", a->key);
			continue;
		}
		if (a->v.kind == CL_V_BIND) {
			sym_set(x, a->v.word, NULL, got);
			continue;
		}
		uint64_t want;
		if (!eval(x, &a->v.expr, &want, o))
			break;
		if ((a->cmp == CL_EQ && got != want) || (a->cmp == CL_NE && got == want)) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "%s %s %llu; ", a->key, a->cmp == CL_EQ ? "=" : "!=",
				(unsigned long long)want);
			g_string_append_printf(o->observed, "%s = %llu; ", a->key, (unsigned long long)got);
		}
	}
	json_object_unref(res);
}

static void step_dut_modify(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	JsonObject *p = json_object_new();
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "state"))
			continue;
		if (!strcmp(a->key, "access")) {
			json_object_set_array_member(p, "access", access_list(s, ""));
			continue;
		}
		uint64_t v;
		if (!eval(x, &a->v.expr, &v, o)) {
			json_object_unref(p);
			return;
		}
		agent_set_u64(p, a->key, v);
	}
	modify(x, o, q, arg_word(s, "state", "RTS"), p, false);
}

/* ---- Steps: the tester's side ---- */

static void step_peer_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t size, fill;
	if (!arg_u64(x, s, "size", 4096, &size, o) || !arg_u64(x, s, "fill", 0, &fill, o))
		return;
	unsigned acc = 0;
	const struct cl_arg *a = cl_step_arg(s, "access");
	if (!a) {
		acc = PEER_ACC_WRITE | PEER_ACC_READ | PEER_ACC_ATOMIC;
	} else {
		for (unsigned i = 0; i < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); i++) {
			const char *w = a->v.kind == CL_V_LIST ? a->v.list[i] : a->v.word;
			acc |= !strcasecmp(w, "REMOTE_WRITE") ? PEER_ACC_WRITE : !strcasecmp(w, "REMOTE_READ") ? PEER_ACC_READ
			       : !strcasecmp(w, "REMOTE_ATOMIC") ? PEER_ACC_ATOMIC : 0;
		}
	}
	const struct peer_mr *pm = peer_mr_add(x->r->peer, size, acc, (uint8_t)fill);
	if (!pm || x->n_mrs == MAX_MRS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester cannot register %llu more bytes", (unsigned long long)size);
		return;
	}
	struct case_mr *m = &x->mrs[x->n_mrs++];
	memset(m, 0, sizeof *m);
	m->name = s->name;
	m->peer = true;
	m->pmr = pm;
	m->addr = pm->addr;
	m->rkey = pm->rkey;
	m->len = size;
	sym_set(x, s->name, "addr", pm->addr);
	sym_set(x, s->name, "rkey", pm->rkey);
	sym_set(x, s->name, "len", size);
	g_string_printf(o->detail, "tester MR %s: addr 0x%llx rkey 0x%x", s->name, (unsigned long long)pm->addr, pm->rkey);
}

static void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)('a' + (i + seed) % 26);
}

static void step_peer_op(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct peer_wr wr = { 0 };
	uint64_t v;
	if (!arg_u64(x, s, "wr_id", (uint64_t)x->cur_step, &wr.wr_id, o))
		return;
	static const struct {
		const char *name;
		enum peer_op op;
	} ops[] = { { "send", PEER_OP_SEND }, { "write", PEER_OP_WRITE }, { "read", PEER_OP_READ },
		    { "cmp_swap", PEER_OP_CMP_SWAP }, { "fetch_add", PEER_OP_FETCH_ADD } };
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(ops[i].name, s->verb))
			wr.op = ops[i].op;
	const struct cl_arg *d = cl_step_arg(s, "data");
	uint8_t *buf = NULL;
	if (d) {
		wr.data = d->v.bytes;
		wr.len = (uint32_t)d->v.n_bytes;
	} else {
		if (!arg_u64(x, s, "len", wr.op == PEER_OP_READ ? 0 : 64, &v, o))
			return;
		if (v > (64u << 20)) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "len=%llu is more than the tester's 64 MiB", (unsigned long long)v);
			return;
		}
		wr.len = (uint32_t)v;
		buf = malloc(wr.len ? wr.len : 1);
		if (!buf)
			abort();
		pattern(buf, wr.len, (unsigned)x->cur_step);
		wr.data = buf;
	}
	if (!arg_u64(x, s, "remote", 0, &wr.remote, o) || !arg_u64(x, s, "rkey", 0, &v, o)) {
		free(buf);
		return;
	}
	wr.rkey = (uint32_t)v;
	if (!arg_u64(x, s, "compare", 0, &wr.compare, o) ||
	    !arg_u64(x, s, wr.op == PEER_OP_FETCH_ADD ? "add" : "swap", 0, &wr.swap_add, o)) {
		free(buf);
		return;
	}
	if (cl_step_arg(s, "imm")) {
		wr.has_imm = true;
		if (!arg_u64(x, s, "imm", 0, &v, o)) {
			free(buf);
			return;
		}
		wr.imm = (uint32_t)v;
	}
	if (cl_step_arg(s, "invalidate")) {
		wr.has_inv = true;
		if (!arg_u64(x, s, "invalidate", 0, &v, o)) {
			free(buf);
			return;
		}
		wr.inv_rkey = (uint32_t)v;
	}
	wr.solicited = !strcasecmp(arg_word(s, "solicited", "off"), "on");
	char err[256];
	uint64_t now = rawio_now();
	if (peer_post(x->r->peer, q->tester_qpn, &wr, now, err, sizeof err) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "%s", err);
	}
	x->ref_ns = now;
	free(buf);
}

static void step_peer_set(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct peer *p = x->r->peer;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		bool on = a->v.kind == CL_V_WORD && !strcasecmp(a->v.word, "on");
		uint64_t v = 0;
		if (a->v.kind == CL_V_EXPR && !eval(x, &a->v.expr, &v, o))
			return;
		if (!strcmp(a->key, "auto"))
			peer_qp_set_auto(p, q->tester_qpn, on);
		else if (!strcmp(a->key, "rnr"))
			peer_qp_set_rnr(p, q->tester_qpn, on);
		else if (!strcmp(a->key, "ack"))
			peer_qp_set_ack(p, q->tester_qpn, on);
		else if (!strcmp(a->key, "rnr_timer"))
			peer_qp_set_rnr_timer(p, q->tester_qpn, (unsigned)v);
		else if (!strcmp(a->key, "psn"))
			peer_qp_set_next_psn(p, q->tester_qpn, (uint32_t)v);
		else if (!strcmp(a->key, "recv"))
			peer_qp_set_recv(p, q->tester_qpn, (long)v);
	}
}

/* The libroce field a case's key names in a packet with these headers. */
static enum roce_field field_for(const char *key, int ipv, uint16_t xhdrs)
{
	static const struct {
		const char *key, *field, *alt;
	} map[] = {
		{ "psn", "bth.psn", NULL },          { "ackreq", "bth.ackreq", NULL },
		{ "se", "bth.se", NULL },            { "destqp", "bth.destqp", NULL },
		{ "pkey", "bth.pkey", NULL },        { "tver", "bth.tver", NULL },
		{ "padcnt", "bth.padcnt", NULL },    { "fecn", "bth.fecn", NULL },
		{ "becn", "bth.becn", NULL },        { "migreq", "bth.m", NULL },
		{ "syndrome", "aeth.syndrome", NULL }, { "msn", "aeth.msn", NULL },
		{ "remote", "reth.va", "atomiceth.va" }, { "rkey", "reth.rkey", "atomiceth.rkey" },
		{ "dmalen", "reth.dmalen", NULL },   { "imm", "immdt.imm", NULL },
		{ "qkey", "deth.qkey", NULL },       { "srcqp", "deth.srcqp", NULL },
		{ "compare", "atomiceth.cmpdt", NULL }, { "swap", "atomiceth.swapdt", NULL },
		{ "orig", "atomicacketh.orig", NULL },
		{ "ecn", "ipv4.ecn", "ipv6.ecn" },   { "dscp", "ipv4.dscp", "ipv6.dscp" },
		{ "ttl", "ipv4.ttl", "ipv6.hoplimit" },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		if (strcmp(map[i].key, key))
			continue;
		enum roce_field f = roce_field_by_name(map[i].field);
		if (map[i].alt) {
			const struct roce_field_info *fi = roce_field_info(f);
			bool ip = fi->hdr == ROCE_H_IPV4;
			if ((ip && ipv == 6) || (!ip && !(xhdrs & ROCE_XHDR_BIT(fi->hdr))))
				f = roce_field_by_name(map[i].alt);
		}
		return f;
	}
	return roce_field_by_name(key);
}

/* Builds and sends one packet of an inject step; its send time in *sent. */
static void inject_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent)
{
	struct runner *r = x->r;
	struct case_qp *q = find_qp(x, s->qp);
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)s->opcode);
	bool request = oi->flags & ROCE_OPF_REQUEST;
	struct roce_desc d;
	/* The QP's own addressing, then defaults that make a plausible packet. */
	struct roce_endpoint ep;
	make_endpoint(x, q, 0, 0, 0, &ep);
	/* proto=v1|v2: the encapsulation, by default the QP's (A17.8). */
	ep.rocev1 = !strcasecmp(arg_word(s, "proto", q->rocev1 ? "v1" : "v2"), "v1");
	uint32_t next = peer_qp_next_psn(r->peer, q->tester_qpn);
	uint32_t psn = request ? next : peer_qp_last_rx_psn(r->peer, q->tester_qpn);
	if (s->opcode == ROCE_OP_CNP)
		psn = 0; /* A17 Figure 6 */
	roce_endpoint_desc(&ep, &d, (uint8_t)s->opcode, psn);
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (request && q->type == ROCE_T_RC && last)
		roce_bth_set_ackreq(d.bth, 1);
	uint8_t *h;
	if ((oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_DETH)) && (h = roce_desc_hdr(&d, ROCE_H_DETH))) {
		roce_deth_set_qkey(h, q->dut_qkey);
		roce_deth_set_srcqp(h, q->tester_qpn);
	}
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_AETH)) {
		roce_aeth_set_syndrome(roce_desc_hdr(&d, ROCE_H_AETH), ROCE_AETH_ACK_UNLIMITED);
		roce_aeth_set_msn(roce_desc_hdr(&d, ROCE_H_AETH), peer_qp_msn(r->peer, q->tester_qpn));
	}
	/* Payload. */
	static uint8_t payload[9000];
	const struct cl_arg *da = cl_step_arg(s, "data");
	uint64_t len = 0;
	if (da) {
		len = da->v.n_bytes > sizeof payload ? sizeof payload : da->v.n_bytes;
		memcpy(payload, da->v.bytes, len);
	} else {
		if (!arg_u64(x, s, "len", (oi->flags & ROCE_OPF_PAYLOAD) ? (oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_MIDDLE ? q->pmtu : 16) : 0, &len, o))
			return;
		if (len > sizeof payload) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "len=%llu exceeds the largest frame", (unsigned long long)len);
			return;
		}
		pattern(payload, len, (unsigned)x->cur_step);
	}
	d.payload = payload;
	d.payload_len = len;
	if (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_RETH))
		roce_reth_set_dmalen(roce_desc_hdr(&d, ROCE_H_RETH), oi->kind == ROCE_K_WRITE && oi->position == ROCE_POS_ONLY ? len : 0);
	/* IPv4 options, or IPv6 extension headers, between IP and UDP. */
	const struct cl_arg *opts = cl_step_arg(s, "ip_options");
	if (opts) {
		if (q->ipv == 4 && opts->v.n_bytes % 4) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: IPv4 options of %zu bytes; expected a multiple of 4",
			     x->c->path, opts->v.loc.line, opts->v.loc.col, opts->v.n_bytes);
			return;
		}
		memcpy(d.ip_opts, opts->v.bytes, opts->v.n_bytes);
		d.ip_opts_len = (unsigned)opts->v.n_bytes;
	}
	/* Addresses that are not the connection's: the tester's own source
	 * or the DUT's destination with the last byte incremented. */
	if (d.rocev1) {
		/* RoCE v1: the GIDs in the GRH. */
		uint8_t *grh = roce_desc_hdr(&d, ROCE_H_GRH);
		if (cl_step_arg(s, "src_ip"))
			grh[8 + 15]++;
		if (cl_step_arg(s, "dst_ip"))
			grh[24 + 15]++;
	} else {
		uint8_t *l3 = roce_desc_hdr(&d, q->ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4);
		if (cl_step_arg(s, "src_ip")) {
			uint8_t *a = (uint8_t *)(q->ipv == 6 ? roce_ipv6_src(l3) : roce_ipv4_src(l3));
			a[q->ipv == 6 ? 15 : 3]++;
		}
		if (cl_step_arg(s, "dst_ip")) {
			uint8_t *a = (uint8_t *)(q->ipv == 6 ? roce_ipv6_dst(l3) : roce_ipv4_dst(l3));
			a[q->ipv == 6 ? 15 : 3]++;
		}
	}
	/* Every field argument, in order. */
	bool icrc_bad = false;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "len") || !strcmp(a->key, "data") || !strcmp(a->key, "ip_options") ||
		    !strcmp(a->key, "src_ip") || !strcmp(a->key, "dst_ip") || !strcmp(a->key, "repeat") ||
		    !strcmp(a->key, "every") || !strcmp(a->key, "proto"))
			continue;
		if (!strcmp(a->key, "icrc")) {
			if (a->v.kind == CL_V_WORD) {
				icrc_bad = true;
			} else {
				uint64_t v;
				if (!eval(x, &a->v.expr, &v, o))
					return;
				d.ovr |= ROCE_OVR_ICRC;
				d.icrc = (uint32_t)v;
			}
			continue;
		}
		enum roce_field f = field_for(a->key, q->ipv, roce_desc_xhdrs(&d));
		uint64_t v;
		if (!eval(x, &a->v.expr, &v, o))
			return;
		const struct roce_field_info *fi = roce_field_info(f);
		if (!fi || roce_desc_set(&d, f, v & (fi->mask >> fi->shift)) != 0) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: %s is not a field of a %s packet %s%d", x->c->path,
			     a->loc.line, a->loc.col, a->key, oi->name, d.rocev1 ? "of RoCE v1, GIDs of IPv" : "over IPv", q->ipv);
			return;
		}
	}
	uint8_t frame[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, frame, sizeof frame);
	if (n < 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the packet cannot be built (%s)", n == -1 ? "too large" : "inconsistent");
		return;
	}
	if (icrc_bad) {
		struct roce_pkt pk;
		roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
		if (pk.complete)
			for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
				frame[pk.icrc_off + i] ^= 0xFF;
	}
	/* The engine's PSN follows injected requests that used its PSN. */
	uint32_t sent_psn = roce_bth_psn(d.bth);
	if (request && sent_psn == next) {
		uint32_t adv = 1;
		if (oi->kind == ROCE_K_READ_REQ)
			adv = roce_packets_for(roce_reth_dmalen(roce_desc_hdr(&d, ROCE_H_RETH)), q->pmtu);
		peer_qp_set_next_psn(r->peer, q->tester_qpn, roce_psn_add(next, (int32_t)adv));
	}
	uint64_t now = rawio_now();
	size_t before = x->n_pkts;
	if (peer_inject(r->peer, q->tester_qpn, frame, (size_t)n, now, "injected") != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the packet could not be injected");
		return;
	}
	*sent = now;
	for (size_t i = before; i < x->n_pkts && o->n_pkts < 16; i++)
		if (x->pkts[i].tx)
			o->pkts[o->n_pkts++] = (long)i;
	char sum[200];
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
	roce_pkt_summary(&pk, sum, sizeof sum);
	g_string_printf(o->detail, "injected %s%s", sum, icrc_bad ? " with a corrupted ICRC" : "");
}

#define INJECT_MAX_REPEAT 100000u

static void inject_cm_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent);
static void add_informative(struct run_ctx *x, const struct cl_step *s, const char *msg);

/* inject, once or repeat=N times every=T apart (each copy rebuilt, so
 * that copies without an explicit psn= take consecutive PSNs). The
 * step's event is the first copy's send time. */
static void step_inject(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t n, every, first = 0, sent = 0;
	if (!arg_u64(x, s, "repeat", 1, &n, o) || !arg_u64(x, s, "every", 0, &every, o))
		return;
	if (n < 1 || n > INJECT_MAX_REPEAT) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "repeat=%llu: expected 1..%u", (unsigned long long)n, INJECT_MAX_REPEAT);
		return;
	}
	for (uint64_t i = 0; i < n && o->st == S_OK; i++) {
		if (i) {
			uint64_t due = first + i * every;
			if (due > x->deadline_ns)
				break;
			pump_until(x->r, -1, due, false);
			if (interrupted(x->r))
				break;
		}
		if (s->cm_attr)
			inject_cm_once(x, s, o, &sent);
		else
			inject_once(x, s, o, &sent);
		if (!i)
			first = sent;
	}
	if (o->st != S_OK)
		return;
	x->ref_ns = first;
	if (n > 1) {
		gchar *one = g_strdup(o->detail->str);
		g_string_printf(o->detail, "%llu copies over %.3f ms, the first: %s", (unsigned long long)n,
		     (double)(sent - first) / 1e6, one);
		g_free(one);
	}
}

/* ---- The connection manager: CM MADs to and from QP1 ---- */

/* A CM message as the tester's active side sends it by default: REQ as
 * rdma_cm sends one (IP CM private data, Annex A11), RTU, LAP with the
 * connection's own path as the alternate, DREQ, REJ, MRA, DREP. Port LIDs
 * are reserved on RoCE (A17.7) and left 0. */
static void cm_default(struct run_ctx *x, struct case_qp *q, uint16_t attr, uint8_t *mad)
{
	struct runner *r = x->r;
	roce_cm_mad_init(mad, attr, 0); /* the transaction ID is set below */
	/* A new transaction for REQ, LAP and DREQ; the others answer or
	 * finish one (the RTU the REQ's). */
	uint64_t tid = (uint64_t)q->cm_local_id << 32 | q->cm_transactions;
	if (attr == ROCE_CM_REQ || attr == ROCE_CM_LAP || attr == ROCE_CM_DREQ)
		tid = (uint64_t)q->cm_local_id << 32 | ++q->cm_transactions;
	if (attr == ROCE_CM_RTU)
		tid = q->cm_req_tid;
	roce_mad_set_tid(mad, tid);
	uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	const uint8_t *mine = q->ipv == 6 ? r->io.ip6 : r->io.ip4, *dut = r->fam[q->fi].ip;
	uint8_t my_gid[16], dut_gid[16];
	roce_gid_from_ip(q->ipv, mine, my_gid);
	roce_gid_from_ip(q->ipv, dut, dut_gid);
	uint64_t guid = roce_guid_from_mac(r->io.mac);
	switch (attr) {
	case ROCE_CM_REQ: {
		q->cm_req_tid = tid;
		roce_req_set_local_comm_id(m, q->cm_local_id);
		roce_req_set_service_id(m, q->cm_service_id);
		roce_req_set_local_ca_guid(m, guid);
		roce_req_set_local_qpn(m, q->tester_qpn);
		roce_req_set_resp_resources(m, 4);
		roce_req_set_initiator_depth(m, 4);
		roce_req_set_remote_cm_timeout(m, 20);
		roce_req_set_transport(m, 0); /* RC */
		roce_req_set_e2e_flow(m, 1);
		roce_req_set_start_psn(m, q->dut_psn); /* what the tester expects the DUT to send from */
		roce_req_set_local_cm_timeout(m, 20);
		roce_req_set_retry_count(m, 7);
		roce_req_set_pkey(m, 0xFFFF);
		roce_req_set_path_mtu(m, roce_mtu_enum(q->pmtu));
		roce_req_set_rnr_retry(m, 7);
		roce_req_set_max_cm_retries(m, 15);
		memcpy(roce_req_primary_local_gid(m), my_gid, 16);
		memcpy(roce_req_primary_remote_gid(m), dut_gid, 16);
		roce_req_set_primary_rate(m, 3); /* 10 Gb/s */
		roce_req_set_primary_hop_limit(m, 64);
		roce_req_set_primary_sl(m, q->sl); /* the path's SL: the priority on a VLAN (A17.4) */
		roce_req_set_primary_ack_timeout(m, 14);
		uint8_t *ip = mad + ROCE_CM_REQ_PRIVATE_OFF;
		roce_ipcm_set_sport(ip, 0xC000 | (q->tester_qpn & 0x3FFF));
		roce_ipcm_set_addrs(ip, q->ipv, mine, dut);
		break;
	}
	case ROCE_CM_LAP:
		roce_lap_set_local_comm_id(m, q->cm_local_id);
		roce_lap_set_remote_comm_id(m, q->cm_remote_id);
		roce_lap_set_remote_qpn(m, q->dut_qpn);
		roce_lap_set_remote_cm_timeout(m, 20);
		memcpy(roce_lap_alt_local_gid(m), my_gid, 16);
		memcpy(roce_lap_alt_remote_gid(m), dut_gid, 16);
		roce_lap_set_alt_hop_limit(m, 64);
		roce_lap_set_alt_sl(m, q->sl);
		roce_lap_set_alt_rate(m, 3);
		roce_lap_set_alt_ack_timeout(m, 14);
		break;
	case ROCE_CM_DREQ:
		roce_dreq_set_remote_qpn(m, q->dut_qpn);
		/* the IDs are where every other message has them */
		__attribute__((fallthrough));
	default:
		/* local_comm_id at 0 and remote_comm_id at 4 (IBA 12.6) */
		roce_rtu_set_local_comm_id(m, q->cm_local_id);
		roce_rtu_set_remote_comm_id(m, q->cm_remote_id);
		if (attr == ROCE_CM_REJ)
			roce_rej_set_reason(m, 28); /* consumer reject */
		break;
	}
}

/* The CM MAD a packet carries (a UD SEND to QP1 of the CM class), or NULL. */
static const uint8_t *cm_mad(const struct roce_pkt *pk)
{
	if (pk->err != ROCE_OK || !roce_pkt_is_mad(pk) || pk->payload_len < ROCE_MAD_LEN)
		return NULL;
	const uint8_t *mad = pk->buf + pk->payload_off;
	return roce_mad_mgmt_class(mad) == ROCE_MAD_CLASS_CM ? mad : NULL;
}

/* The case QP a CM MAD from the DUT belongs to: the one whose local
 * communication ID it names as remote, else the QP that last sent one.
 * What the DUT tells of itself is learnt here: its communication ID, and
 * from a REP the PSN it expects the tester to send from. */
static struct case_qp *cm_qp_of(struct run_ctx *x, const uint8_t *data, size_t len)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, data, len, len, 0);
	const uint8_t *mad = cm_mad(&pk);
	if (!mad)
		return NULL;
	uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	if (attr < ROCE_CM_REQ || attr > ROCE_CM_APR || attr == ROCE_CM_SIDR_REQ || attr == ROCE_CM_SIDR_REP)
		return x->last_cm_qp;
	uint32_t remote = (uint32_t)roce_rtu_remote_comm_id(m);
	struct case_qp *q = NULL;
	for (unsigned i = 0; i < x->n_qps && !q; i++)
		if (x->qps[i].cm_local_id == remote)
			q = &x->qps[i];
	if (!q)
		return x->last_cm_qp;
	uint32_t local = (uint32_t)roce_rtu_local_comm_id(m);
	if (local)
		q->cm_remote_id = local;
	if (attr == ROCE_CM_REP) {
		/* A Starting PSN is the one its sender's receive queue
		 * expects (IBA 12.7; Linux's CM): the tester sends from it. */
		q->tester_psn = (uint32_t)roce_rep_start_psn(m);
		peer_qp_set_next_psn(x->r->peer, q->tester_qpn, q->tester_psn);
		sym_set(x, q->name, "peer_psn", q->tester_psn);
	}
	return q;
}

static void step_dut_listen(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t port;
	if (!arg_u64(x, s, "port", 0, &port, o))
		return;
	if (!port || port > 65535) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "port=%llu: expected 1..65535", (unsigned long long)port);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->dut_qp);
	json_object_set_int_member(p, "port", (gint64)port);
	if (!call(x, o, "cm_listen", p, &res))
		return;
	json_object_unref(res);
	/* The service ID follows from the port (A11); the agent's echo of it
	 * is informational. */
	q->cm_service_id = roce_cm_ip_service_id((uint16_t)port);
	sym_set(x, s->qp, "service_id", q->cm_service_id);
	g_string_printf(o->detail, "the DUT accepts a connection to service ID 0x%016llx (TCP port %llu) on QP %s (0x%06x)",
	     (unsigned long long)q->cm_service_id, (unsigned long long)port, q->name, q->dut_qpn);
}

/* inject QP REQ|RTU|LAP|...: a CM MAD from the tester's QP1 to the DUT's,
 * over the QP's IP version. */
static void inject_cm_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent)
{
	struct runner *r = x->r;
	struct case_qp *q = find_qp(x, s->qp);
	static uint8_t mad[ROCE_MAD_LEN];
	cm_default(x, q, s->cm_attr, mad);
	struct roce_endpoint ep;
	make_endpoint(x, q, 0, 0, 0, &ep);
	ep.dest_qpn = ROCE_QP1;
	struct roce_desc d;
	roce_gsi_desc(&ep, &d, x->gsi_psn, mad);
	x->gsi_psn = roce_psn_add(x->gsi_psn, 1);
	bool icrc_bad = false;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "repeat") || !strcmp(a->key, "every"))
			continue;
		if (!strcmp(a->key, "icrc") && a->v.kind == CL_V_WORD) {
			icrc_bad = true;
			continue;
		}
		uint64_t v;
		if (a->v.kind != CL_V_EXPR || !eval(x, &a->v.expr, &v, o)) {
			if (o->st == S_OK) {
				o->st = S_ERROR;
				g_string_printf(o->detail, "%s:%u:%u: %s= takes a number in a CM message", x->c->path,
				     a->loc.line, a->loc.col, a->key);
			}
			return;
		}
		if (!strcmp(a->key, "icrc")) {
			d.ovr |= ROCE_OVR_ICRC;
			d.icrc = (uint32_t)v;
			continue;
		}
		enum roce_mad_field mf = roce_mad_field_by_name(a->key);
		if (mf != ROCE_MF_COUNT) {
			if (!roce_mad_put(mad, mf, v)) {
				o->st = S_ERROR;
				g_string_printf(o->detail, "%s:%u:%u: %s is a byte field; expected a numeric CM field",
				     x->c->path, a->loc.line, a->loc.col, a->key);
				return;
			}
			continue;
		}
		enum roce_field f = field_for(a->key, q->ipv, roce_desc_xhdrs(&d));
		const struct roce_field_info *fi = roce_field_info(f);
		if (!fi || roce_desc_set(&d, f, v & (fi->mask >> fi->shift)) != 0) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: %s is not a field of a CM MAD's packet (UD SEND Only to QP1) over IPv%d",
			     x->c->path, a->loc.line, a->loc.col, a->key, q->ipv);
			return;
		}
	}
	uint8_t frame[PEER_FRAME_MAX];
	long n = roce_build_frame(&d, frame, sizeof frame);
	if (n < 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the CM MAD's packet cannot be built");
		return;
	}
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT);
	if (icrc_bad && pk.complete)
		for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
			frame[pk.icrc_off + i] ^= 0xFF;
	x->last_cm_qp = q;
	uint64_t now = rawio_now();
	size_t before = x->n_pkts;
	if (peer_inject(r->peer, q->tester_qpn, frame, (size_t)n, now, "CM") != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the CM MAD could not be injected");
		return;
	}
	*sent = now;
	for (size_t i = before; i < x->n_pkts && o->n_pkts < 16; i++)
		if (x->pkts[i].tx)
			o->pkts[o->n_pkts++] = (long)i;
	g_string_printf(o->detail, "sent CM %s (communication ID 0x%08x, remote 0x%08x) to QP1 over IPv%d%s",
	     roce_cm_msg_name(s->cm_attr), q->cm_local_id, q->cm_remote_id, q->ipv, icrc_bad ? " with a corrupted ICRC" : "");
}

/* ---- Expectations ---- */

static uint64_t window_end(struct run_ctx *x, const struct cl_step *s)
{
	uint64_t w = s->has_within ? s->within_max : x->r->opts.default_wait_ns;
	uint64_t end = x->ref_ns + w;
	return end < x->deadline_ns ? end : x->deadline_ns;
}

static bool dut_pkt_for(struct run_ctx *x, size_t i, const struct case_qp *q)
{
	const struct case_pkt *p = &x->pkts[i];
	if (p->tx || p->consumed)
		return false;
	if (q)
		return p->qpn == q->tester_qpn;
	return p->qpn && qp_by_tester_qpn(x, p->qpn);
}

static bool pkt_is_cnp(const struct case_pkt *p)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	return pk.op && pk.opcode == ROCE_OP_CNP;
}

/* CNPs come from the DUT's congestion notification point, independently
 * of the QP's transport sequence, so they form a sequence of their own:
 * a CNP step takes the next CNP, every other step (any included) the next
 * packet that is not one. */
/* CM MADs to QP1 likewise: the connection manager runs beside the QP's
 * transport, so a CM step takes the next CM MAD and the others skip them. */
static bool pkt_is_cm(const struct case_pkt *p)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, 0);
	return cm_mad(&pk) != NULL;
}

static bool same_stream(const struct cl_step *s, const struct case_pkt *p)
{
	if (pkt_is_cm(p) != (s->cm_attr != 0))
		return false;
	return pkt_is_cnp(p) == (s->opcode == ROCE_OP_CNP);
}

static bool cmp_ok(enum cl_cmp c, uint64_t got, uint64_t want)
{
	switch (c) {
	case CL_EQ: return got == want;
	case CL_NE: return got != want;
	case CL_LT: return got < want;
	case CL_LE: return got <= want;
	case CL_GT: return got > want;
	case CL_GE: return got >= want;
	}
	return false;
}

static const char *cmp_text(enum cl_cmp c)
{
	static const char *const t[] = { "=", "!=", "<", "<=", ">", ">=" };
	return t[c];
}

/* Checks one packet against the step's opcode and constraints; fills
 * expected/observed with the mismatches. */
static bool match_packet(struct run_ctx *x, const struct cl_step *s, const struct case_pkt *p, struct step_out *o,
			 bool bind)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	bool ok = true;
	g_string_truncate(o->expected, 0);
	g_string_truncate(o->observed, 0);
	if (pk.err != ROCE_OK || !pk.op) {
		char e[200];
		roce_pkt_strerror(&pk, e, sizeof e);
		g_string_printf(o->expected, "a RoCEv2 packet");
		g_string_printf(o->observed, "a malformed packet: %s", e);
		return false;
	}
	const uint8_t *mad = cm_mad(&pk);
	if (s->cm_attr) {
		/* A CM message of the DUT's, naming the tester's communication ID. */
		uint16_t attr = mad ? (uint16_t)roce_mad_attr_id(mad) : 0;
		const char *name = mad ? roce_cm_msg_name(attr) : NULL;
		if (attr != s->cm_attr) {
			ok = false;
			g_string_append_printf(o->expected, "CM %s; ", roce_cm_msg_name(s->cm_attr));
			if (name)
				g_string_append_printf(o->observed, "CM %s; ", name);
			else if (mad)
				g_string_append_printf(o->observed, "CM attribute 0x%04x; ", attr);
			else
				g_string_append_printf(o->observed, "%s; ", pk.op->name);
		} else {
			const struct case_qp *q = find_qp(x, s->qp);
			uint32_t remote = (uint32_t)roce_rtu_remote_comm_id(mad + ROCE_MAD_HDR_LEN);
			if (q && remote != q->cm_local_id) {
				ok = false;
				g_string_append_printf(o->expected, "remote communication ID 0x%08x (the tester's); ",
					q->cm_local_id);
				g_string_append_printf(o->observed, "0x%08x; ", remote);
			}
		}
	} else if (s->opcode >= 0 && pk.opcode != s->opcode) {
		ok = false;
		g_string_append_printf(o->expected, "%s; ", roce_opcode((uint8_t)s->opcode)->name);
		g_string_append_printf(o->observed, "%s; ", pk.op->name);
	}
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "data")) {
			bool eq = pk.payload_len == a->v.n_bytes && !memcmp(pk.buf + pk.payload_off, a->v.bytes, a->v.n_bytes);
			if (!eq) {
				char e[200], g[200];
				hex_text(e, sizeof e, a->v.bytes, a->v.n_bytes);
				hex_text(g, sizeof g, pk.buf + pk.payload_off, pk.payload_len);
				ok = false;
				g_string_append_printf(o->expected, "payload %s; ", e);
				g_string_append_printf(o->observed, "payload %s; ", g);
			}
			continue;
		}
		if (!strcmp(a->key, "icrc")) {
			enum roce_icrc_status st = roce_icrc_check(&pk, NULL, NULL);
			bool want_good = !strcmp(a->v.word, "good");
			if ((st == ROCE_ICRC_GOOD) != want_good) {
				ok = false;
				g_string_append_printf(o->expected, "ICRC %s; ", a->v.word);
				g_string_append_printf(o->observed, "ICRC %s; ", st == ROCE_ICRC_GOOD ? "good" : "bad");
			}
			continue;
		}
		if (!strcmp(a->key, "proto")) {
			bool want_v1 = !strcmp(a->v.word, "v1");
			if (pk.rocev1 != want_v1) {
				ok = false;
				g_string_append_printf(o->expected, "a %s packet; ", want_v1 ? "RoCE v1" : "RoCEv2");
				g_string_append_printf(o->observed, "a %s packet; ", pk.rocev1 ? "RoCE v1" : "RoCEv2");
			}
			continue;
		}
		if (!strcmp(a->key, "aeth")) {
			/* One kind, or a list of those the rule allows (the NAK
			 * that rejects a request may depend on the order of the
			 * responder's checks): the kind seen is reported. */
			const uint8_t *aeth = roce_pkt_hdr(&pk, ROCE_H_AETH);
			bool match = false;
			for (unsigned k = 0; aeth && k < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); k++) {
				uint8_t v, m;
				cl_aeth_word(a->v.kind == CL_V_LIST ? a->v.list[k] : a->v.word, &v, &m);
				match |= (roce_aeth_syndrome(aeth) & m) == v;
			}
			char desc[80] = "no AETH", want[160];
			if (aeth)
				roce_aeth_describe(roce_aeth_syndrome(aeth), desc, sizeof desc);
			cl_word_arg_text(a, want, sizeof want);
			if (!match) {
				ok = false;
				g_string_append_printf(o->expected, "AETH %s; ", want);
				g_string_append_printf(o->observed, "AETH %s; ", desc);
			} else if (a->v.kind == CL_V_LIST && a->v.n_list > 1) {
				g_string_append_printf(o->observed, "AETH %s (one of %s); ", desc, want);
			}
			continue;
		}
		uint64_t got;
		const char *label = a->key;
		enum sym_unit unit = SYM_PLAIN;
		enum roce_mad_field mf = roce_mad_field_by_name(a->key);
		uint64_t mad_mask = 0;
		if (mf != ROCE_MF_COUNT) {
			/* A CM field (rej.reason, apr.status, mad.status ...). */
			const struct roce_mad_field_info *mi = roce_mad_field_info(mf);
			if (!mad || !roce_mad_get(mad, mf, &got)) {
				ok = false;
				g_string_append_printf(o->expected, "%s (a numeric field of a CM MAD); ", a->key);
				g_string_append_printf(o->observed, "%s; ", mad ? "a byte field" : "no CM MAD");
				continue;
			}
			uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
			if (mi->hdr != ROCE_MH_MAD && mi->hdr != ROCE_MH_IPCM && mi->hdr != roce_cm_msg(attr)) {
				/* A field of another message: the message check
				 * above already tells the difference. */
				if (s->cm_attr && attr == s->cm_attr) {
					ok = false;
					g_string_append_printf(o->expected, "%s; ", a->key);
					g_string_append_printf(o->observed, "not a field of CM %s; ",
						roce_cm_msg_name(attr) ? roce_cm_msg_name(attr) : "?");
				}
				continue;
			}
			mad_mask = mi->mask >> __builtin_ctzll(mi->mask);
		} else if (!strcmp(a->key, "len")) {
			got = pk.payload_len;
			label = "payload length";
		} else if (!strcmp(a->key, "delay")) {
			got = p->ts_ns > x->ref_ns ? p->ts_ns - x->ref_ns : 0;
			label = "delay since the previous step's event";
			unit = SYM_NS;
		} else if (!strcmp(a->key, "pcp") || !strcmp(a->key, "vid")) {
			/* The innermost 802.1Q tag, the one the DUT's VLAN gives. */
			bool pcp = a->key[0] == 'p';
			if (!pk.n_vlan) {
				ok = false;
				g_string_append_printf(o->expected, "an 802.1Q tag (%s); ", pcp ? "PCP" : "VLAN ID");
				g_string_append_printf(o->observed, "an untagged frame; ");
				continue;
			}
			uint16_t tci = roce_pkt_vlan_tci(&pk);
			got = pcp ? roce_vlan_pcp(tci) : roce_vlan_vid(tci);
			label = pcp ? "802.1Q PCP" : "802.1Q VLAN ID";
		} else {
			enum roce_field f = field_for(a->key, pk.ip_version, pk.op->xhdrs);
			const struct roce_field_info *fi = roce_field_info(f);
			const uint8_t *hdr = fi ? roce_pkt_hdr(&pk, fi->hdr) : NULL;
			if (!hdr) {
				ok = false;
				g_string_append_printf(o->expected, "%s (a %s); ", a->key, fi ? roce_hdr_info(fi->hdr)->name : "field");
				g_string_append_printf(o->observed, "no %s; ", fi ? roce_hdr_info(fi->hdr)->name : a->key);
				continue;
			}
			got = roce_field_get(hdr, f);
		}
		if (a->v.kind == CL_V_BIND) {
			if (bind)
				sym_set_unit(x, a->v.word, NULL, got, unit);
			continue;
		}
		uint64_t want;
		if (!eval(x, &a->v.expr, &want, o))
			return false;
		if (unit == SYM_NS) {
			if (!cmp_ok(a->cmp, got, want)) {
				char g[64], w[64];
				format_value(got, SYM_NS, g, sizeof g);
				format_value(want, SYM_NS, w, sizeof w);
				ok = false;
				g_string_append_printf(o->expected, "%s %s %s; ", label, cmp_text(a->cmp), w);
				g_string_append_printf(o->observed, "%s = %s; ", label, g);
			}
			continue;
		}
		if (mad_mask) {
			want &= mad_mask;
		} else if (strcmp(a->key, "len") && strcmp(a->key, "pcp") && strcmp(a->key, "vid")) {
			const struct roce_field_info *fi = roce_field_info(field_for(a->key, pk.ip_version, pk.op->xhdrs));
			want &= fi->mask >> fi->shift;
		}
		if (!cmp_ok(a->cmp, got, want)) {
			ok = false;
			g_string_append_printf(o->expected, "%s %s %llu (0x%llx); ", label, cmp_text(a->cmp),
				(unsigned long long)want, (unsigned long long)want);
			g_string_append_printf(o->observed, "%s = %llu (0x%llx); ", label, (unsigned long long)got,
				(unsigned long long)got);
		}
	}
	return ok;
}

static void pkt_summary(const struct case_pkt *p, char *buf, size_t n)
{
	struct roce_pkt pk;
	roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	const uint8_t *mad = cm_mad(&pk);
	if (mad) {
		uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
		const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
		const char *name = roce_cm_msg_name(attr);
		if (name)
			outf(buf, n, "CM %s", name);
		else
			outf(buf, n, "CM attribute 0x%04x", attr);
		if (attr == ROCE_CM_REJ)
			appendf(buf, n, " reason %u", (unsigned)roce_rej_reason(m));
		else if (attr == ROCE_CM_APR)
			appendf(buf, n, " status %u", (unsigned)roce_apr_status(m));
		else if (attr == ROCE_CM_REP)
			appendf(buf, n, " QPN 0x%06x PSN %u", (unsigned)roce_rep_local_qpn(m), (unsigned)roce_rep_start_psn(m));
	} else if (pk.op) {
		roce_pkt_summary(&pk, buf, n);
	} else {
		outf(buf, n, "non-RoCEv2 frame of %zu bytes", p->len);
	}
}

static void step_expect_pkt(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct runner *r = x->r;
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t end = window_end(x, s);
	uint64_t min = x->ref_ns + (s->has_within ? s->within_min : 0);
	for (;;) {
		for (size_t i = 0; i < x->n_pkts; i++) {
			if (!dut_pkt_for(x, i, q) || !same_stream(s, &x->pkts[i]))
				continue;
			struct case_pkt *p = &x->pkts[i];
			p->consumed = true;
			o->pkts[o->n_pkts++] = (long)i;
			char sum[200];
			pkt_summary(p, sum, sizeof sum);
			bool ok = match_packet(x, s, p, o, true);
			if (o->st == S_ERROR)
				return;
			uint64_t dt = p->ts_ns > x->ref_ns ? p->ts_ns - x->ref_ns : 0;
			/* Only an explicit lower bound rejects a packet that came
			 * before the reference (a CNP ahead of the ACK expected
			 * first, two packets that arrived together). */
			if (ok && s->within_min && p->ts_ns < min) {
				ok = false;
				g_string_printf(o->expected, "the packet no earlier than %.3f ms after the previous step",
				     (double)(min - x->ref_ns) / 1e6);
				g_string_printf(o->observed, "it came after %.3f ms", (double)dt / 1e6);
			}
			/* The pump may hand over a frame stamped just past the end. */
			if (ok && p->ts_ns > end) {
				ok = false;
				g_string_printf(o->expected, "the packet within %.3f ms of the previous step",
				     (double)(end - x->ref_ns) / 1e6);
				g_string_printf(o->observed, "it came after %.3f ms", (double)dt / 1e6);
			}
			if (ok) {
				annotate(x, (long)i, "matched step %d (line %u) after %.3f ms", x->cur_step + 1, s->loc.line,
					 (double)dt / 1e6);
				g_string_printf(o->detail, "%s after %.3f ms", sum, (double)dt / 1e6);
				if (p->ts_ns > x->ref_ns)
					x->ref_ns = p->ts_ns;
				return;
			}
			o->st = S_FAIL;
			g_string_append_printf(o->observed, "[%s]", sum);
			annotate(x, (long)i, "step %d (line %u) expected %s; observed %s", x->cur_step + 1, s->loc.line,
				 o->expected->str, o->observed->str);
			x->ref_ns = p->ts_ns;
			return;
		}
		if (rawio_now() >= end || interrupted(r))
			break;
		pump_until(r, -1, end, true);
	}
	if (s->else_inform) {
		/* Silence is allowed here (an optional feature): reported, and
		 * the rest of the case, which needs the answer, is not run. */
		gchar *msg = g_strdup_printf("%s (nothing within %.3f ms)", s->info_text, (double)(end - x->ref_ns) / 1e6);
		add_informative(x, s, msg);
		g_string_printf(o->detail, "nothing came, informative: %s; the case ends here", msg);
		g_free(msg);
		x->ref_ns = end;
		x->stop = true;
		return;
	}
	o->st = S_FAIL;
	if (s->cm_attr) {
		g_string_printf(o->expected, "CM %s%s for QP %s within %.3f ms", roce_cm_msg_name(s->cm_attr),
		     s->n_args ? " with the given fields" : "", s->qp, (double)(end - x->ref_ns) / 1e6);
		g_string_printf(o->observed, "no CM MAD from the DUT for QP %s", s->qp);
		x->ref_ns = end;
		return;
	}
	g_string_printf(o->expected, "%s%s on QP %s within %.3f ms", s->opcode >= 0 ? roce_opcode((uint8_t)s->opcode)->name : "a packet",
	     s->n_args ? " with the given fields" : "", s->qp, (double)(end - x->ref_ns) / 1e6);
	g_string_printf(o->observed, "nothing from the DUT for QP %s", s->qp);
	x->ref_ns = end;
}

/* measure: the DUT's packets of a QP (of one opcode, or any) during a
 * window that starts at the previous step's event; counts, bytes, rate,
 * gaps. The packets measured are taken, like an expectation's. */
static void step_measure(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t start = x->ref_ns;
	uint64_t end = start + s->within_max;
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	pump_until(x->r, -1, end, false);
	uint64_t count = 0, bytes = 0, first = 0, last = 0, min_gap = 0, max_gap = 0, prev = 0;
	for (size_t i = 0; i < x->n_pkts; i++) {
		struct case_pkt *p = &x->pkts[i];
		if (!dut_pkt_for(x, i, q) || p->ts_ns < start || p->ts_ns > end || !same_stream(s, p))
			continue;
		if (s->opcode >= 0) {
			struct roce_pkt pk;
			roce_parse_frame(&pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
			if (!pk.op || pk.opcode != s->opcode)
				continue;
		}
		p->consumed = true;
		if (o->n_pkts < 16)
			o->pkts[o->n_pkts++] = (long)i;
		annotate(x, (long)i, "measured by step %d (line %u)", x->cur_step + 1, s->loc.line);
		uint64_t t = p->ts_ns - start;
		if (count) {
			uint64_t gap = t - prev;
			if (count == 1 || gap < min_gap)
				min_gap = gap;
			if (gap > max_gap)
				max_gap = gap;
		} else {
			first = t;
		}
		prev = last = t;
		count++;
		bytes += p->len;
	}
	uint64_t window = end > start ? end - start : 1;
	uint64_t rate = (uint64_t)((double)bytes * 1e9 / (double)window);
	uint64_t pps = (uint64_t)((double)count * 1e9 / (double)window);
	char w[64], r[64], g1[64], g2[64];
	format_value(window, SYM_NS, w, sizeof w);
	format_value(rate, SYM_BYTES_PER_S, r, sizeof r);
	format_value(min_gap, SYM_NS, g1, sizeof g1);
	format_value(max_gap, SYM_NS, g2, sizeof g2);
	g_string_printf(o->detail, "%llu packet(s), %llu bytes in %s (%s, %llu pkt/s)", (unsigned long long)count,
	     (unsigned long long)bytes, w, r, (unsigned long long)pps);
	if (count > 1)
		g_string_append_printf(o->detail, "; gaps %s .. %s", g1, g2);
	x->ref_ns = end;
	static const struct {
		const char *key;
		enum sym_unit unit;
	} units[] = { { "count", SYM_PLAIN }, { "bytes", SYM_BYTES }, { "rate", SYM_BYTES_PER_S },
		      { "pps", SYM_PER_S }, { "first", SYM_NS }, { "last", SYM_NS },
		      { "min_gap", SYM_NS }, { "max_gap", SYM_NS } };
	const uint64_t vals[] = { count, bytes, rate, pps, first, last, min_gap, max_gap };
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		for (size_t k = 0; k < sizeof units / sizeof units[0]; k++) {
			if (strcmp(units[k].key, a->key))
				continue;
			if (a->v.kind == CL_V_BIND) {
				sym_set_unit(x, a->v.word, NULL, vals[k], units[k].unit);
				break;
			}
			uint64_t want;
			if (!eval(x, &a->v.expr, &want, o))
				return;
			if (!cmp_ok(a->cmp, vals[k], want)) {
				char g[64], e[64];
				format_value(vals[k], units[k].unit, g, sizeof g);
				format_value(want, units[k].unit, e, sizeof e);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "%s %s %s; ", a->key, cmp_text(a->cmp), e);
				g_string_append_printf(o->observed, "%s = %s; ", a->key, g);
			}
			break;
		}
	}
	if (o->st == S_FAIL)
		g_string_append_printf(o->observed, "[%s]", o->detail->str);
}

static void step_expect_nothing(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = s->qp ? find_qp(x, s->qp) : NULL;
	/* The window runs from the previous step's event, like every window. */
	uint64_t start = x->ref_ns;
	uint64_t end = start + s->within_max;
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	pump_until(x->r, -1, end, false);
	for (size_t i = 0; i < x->n_pkts; i++) {
		if (!dut_pkt_for(x, i, q) || x->pkts[i].ts_ns < start || x->pkts[i].ts_ns > end)
			continue;
		struct case_pkt *p = &x->pkts[i];
		p->consumed = true;
		char sum[200];
		pkt_summary(p, sum, sizeof sum);
		o->st = S_FAIL;
		o->pkts[o->n_pkts++] = (long)i;
		g_string_printf(o->expected, "no packet from the DUT%s%s within %.3f ms", q ? " for QP " : "",
		     q ? q->name : "", (double)s->within_max / 1e6);
		g_string_printf(o->observed, "%s after %.3f ms", sum, (double)(p->ts_ns - start) / 1e6);
		annotate(x, (long)i, "step %d (line %u) expected nothing; observed this", x->cur_step + 1, s->loc.line);
		break;
	}
	x->ref_ns = end;
}

static const char *wc_member_string(JsonObject *wc, const char *key)
{
	JsonNode *n = json_object_get_member(wc, key);
	return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

static void check_wc(struct run_ctx *x, const struct cl_step *s, JsonObject *wc, struct step_out *o)
{
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "status") || !strcmp(a->key, "opcode")) {
			/* A status may be any of several (or not one): the one
			 * seen is reported either way. */
			const char *got = wc_member_string(wc, a->key);
			char want[400];
			cl_word_arg_text(a, want, sizeof want);
			if (!cl_word_arg_accepts(a, got)) {
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "%s %s; ", a->key, want);
				g_string_append_printf(o->observed, "%s %s; ", a->key, got ? got : "(none)");
			} else if ((a->v.kind == CL_V_LIST && a->v.n_list > 1) || a->cmp == CL_NE) {
				g_string_append_printf(o->observed, "%s %s (%s); ", a->key, got, want);
			}
			continue;
		}
		const char *member = !strcmp(a->key, "imm") ? "imm_data" : a->key;
		uint64_t got;
		if (!agent_get_u64(wc, member, &got)) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "%s; ", a->key);
			g_string_append_printf(o->observed, "no %s in the completion; ", member);
			continue;
		}
		if (a->v.kind == CL_V_BIND) {
			sym_set(x, a->v.word, NULL, got);
			continue;
		}
		uint64_t want;
		if (!eval(x, &a->v.expr, &want, o))
			return;
		if (!cmp_ok(a->cmp, got, want)) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "%s %s %llu; ", a->key, cmp_text(a->cmp), (unsigned long long)want);
			g_string_append_printf(o->observed, "%s = %llu; ", a->key, (unsigned long long)got);
		}
	}
}

/* Polls the DUT's CQ of a QP without blocking the agent, pumping the wire
 * in between, until a completion or end. */
static JsonObject *poll_dut_cq(struct run_ctx *x, struct case_qp *q, uint64_t end, struct step_out *o)
{
	for (;;) {
		JsonObject *p = json_object_new(), *res;
		json_object_set_int_member(p, "cq", q->dut_cq);
		json_object_set_int_member(p, "max", 1);
		json_object_set_int_member(p, "timeout_ms", 0);
		if (!call(x, o, "poll_cq", p, &res))
			return NULL;
		JsonNode *cn = json_object_get_member(res, "completions");
		JsonArray *arr = cn && JSON_NODE_HOLDS_ARRAY(cn) ? json_node_get_array(cn) : NULL;
		if (arr && json_array_get_length(arr) > 0) {
			JsonObject *wc = json_object_ref(json_array_get_object_element(arr, 0));
			json_object_unref(res);
			return wc;
		}
		json_object_unref(res);
		uint64_t now = rawio_now();
		if (now >= end || interrupted(x->r))
			return NULL;
		uint64_t next = now + 2 * NS_PER_MS;
		pump_until(x->r, -1, next < end ? next : end, false);
	}
}

/* The completion as the agent sent it (JSON; caller frees). */
static gchar *wc_text(JsonObject *wc)
{
	JsonNode *node = json_node_init_object(json_node_alloc(), wc);
	gchar *t = json_to_string(node, FALSE);
	json_node_unref(node);
	return t;
}

static void step_expect_completion(struct run_ctx *x, const struct cl_step *s, struct step_out *o, bool none)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t end = none ? rawio_now() + s->within_max : window_end(x, s);
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	JsonObject *wc = poll_dut_cq(x, q, end, o);
	if (o->st != S_OK) {
		if (wc)
			json_object_unref(wc);
		return;
	}
	gchar *text = wc ? wc_text(wc) : g_strdup("");
	if (none) {
		if (wc) {
			o->st = S_FAIL;
			g_string_printf(o->expected, "no completion on QP %s within %.3f ms", q->name, (double)s->within_max / 1e6);
			g_string_printf(o->observed, "completion %s", text);
		}
	} else if (!wc) {
		o->st = S_FAIL;
		g_string_printf(o->expected, "a completion on QP %s within %.3f ms", q->name, (double)(end - x->ref_ns) / 1e6);
		g_string_printf(o->observed, "none");
	} else {
		check_wc(x, s, wc, o);
		if (o->st == S_FAIL)
			g_string_append_printf(o->observed, "[%s]", text);
		else
			g_string_printf(o->detail, "completion %s", text);
	}
	g_free(text);
	if (wc)
		json_object_unref(wc);
	x->ref_ns = rawio_now();
}

static void step_expect_peer(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t end = window_end(x, s);
	struct peer_wc wc;
	bool got = false;
	while (!(got = peer_poll(x->r->peer, q->tester_qpn, &wc)) && rawio_now() < end && !interrupted(x->r))
		pump_until(x->r, -1, end, true);
	if (!got) {
		o->st = S_FAIL;
		g_string_printf(o->expected, "a completion of the tester's QP %s within %.3f ms", q->name,
		     (double)(end - x->ref_ns) / 1e6);
		g_string_printf(o->observed, "none");
		return;
	}
	char text[300];
	outf(text, sizeof text, "wr_id %llu %s %s, %u bytes, value 0x%llx", (unsigned long long)wc.wr_id,
	     peer_op_name(wc.op), ap_wc_status_name(wc.status), wc.byte_len, (unsigned long long)wc.value);
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (!strcmp(a->key, "status")) {
			if (!cl_word_arg_accepts(a, ap_wc_status_name(wc.status))) {
				char want[400];
				cl_word_arg_text(a, want, sizeof want);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "status %s; ", want);
				g_string_append_printf(o->observed, "status %s; ", ap_wc_status_name(wc.status));
			}
		} else if (!strcmp(a->key, "data")) {
			if (!wc.data || wc.byte_len != a->v.n_bytes || memcmp(wc.data, a->v.bytes, a->v.n_bytes)) {
				char e[200], g[200] = "none";
				hex_text(e, sizeof e, a->v.bytes, a->v.n_bytes);
				if (wc.data)
					hex_text(g, sizeof g, wc.data, wc.byte_len);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "data %s; ", e);
				g_string_append_printf(o->observed, "data %s; ", g);
			}
		} else {
			uint64_t v = !strcmp(a->key, "wr_id") ? wc.wr_id : wc.value;
			if (a->v.kind == CL_V_BIND) {
				sym_set(x, a->v.word, NULL, v);
				continue;
			}
			uint64_t want;
			if (!eval(x, &a->v.expr, &want, o))
				return;
			if (v != want) {
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "%s %llu; ", a->key, (unsigned long long)want);
				g_string_append_printf(o->observed, "%s %llu; ", a->key, (unsigned long long)v);
			}
		}
	}
	if (o->st == S_FAIL)
		g_string_append_printf(o->observed, "[%s]", text);
	else
		g_string_printf(o->detail, "%s", text);
	x->ref_ns = rawio_now();
}

static void step_expect_mem(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_arg *d = cl_step_arg(s, "data");
	uint64_t off;
	if (!arg_u64(x, s, "offset", 0, &off, o))
		return;
	if (off > m->len || d->v.n_bytes > m->len - off) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "offset %llu + %zu bytes is outside tester MR %s", (unsigned long long)off,
		     d->v.n_bytes, m->name);
		return;
	}
	const uint8_t *got = m->pmr->buf + off;
	if (memcmp(got, d->v.bytes, d->v.n_bytes)) {
		char e[200], g[200];
		hex_text(e, sizeof e, d->v.bytes, d->v.n_bytes);
		hex_text(g, sizeof g, got, d->v.n_bytes);
		o->st = S_FAIL;
		g_string_printf(o->expected, "tester MR %s at offset %llu holds %s", m->name, (unsigned long long)off, e);
		g_string_printf(o->observed, "%s", g);
	}
}

static void step_rule(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct inj_rule ru;
	memset(&ru, 0, sizeof ru);
	ru.rx = s->rx;
	ru.opcode = s->opcode;
	ru.round = -1;
	int ipv = x->ipv;
	if (s->qp) {
		struct case_qp *q = find_qp(x, s->qp);
		ru.qpn = q->tester_qpn;
		ipv = q->ipv;
	} else {
		ru.any_qp = true;
	}
	uint64_t v;
	if (cl_step_arg(s, "psn")) {
		if (!arg_u64(x, s, "psn", 0, &v, o))
			return;
		ru.has_psn = true;
		ru.psn = (uint32_t)v & ROCE_PSN_MASK;
	}
	if (cl_step_arg(s, "round")) {
		if (!arg_u64(x, s, "round", 0, &v, o))
			return;
		ru.round = (int)v;
	}
	if (!arg_u64(x, s, "nth", 0, &v, o))
		return;
	ru.nth = (unsigned)v;
	if (!arg_u64(x, s, "count", 0, &v, o))
		return;
	ru.count = (unsigned)v;
	static const enum inj_action acts[] = { [CL_ACT_DROP] = INJ_DROP, [CL_ACT_DUPLICATE] = INJ_DUPLICATE,
						[CL_ACT_DELAY] = INJ_DELAY, [CL_ACT_REORDER] = INJ_REORDER,
						[CL_ACT_CORRUPT_ICRC] = INJ_CORRUPT_ICRC, [CL_ACT_ECN_CE] = INJ_ECN_CE,
						[CL_ACT_SET] = INJ_SET };
	ru.action = acts[s->action];
	ru.delay_ns = s->action_ns;
	ru.reorder_n = s->action_n;
	if (s->action == CL_ACT_SET) {
		ru.field = field_for(s->set_field, ipv, 0xFFFF);
		if (!eval(x, &s->set_value, &ru.value, o))
			return;
	}
	outf(ru.text, sizeof ru.text, "line %u: %s", s->loc.line, s->text);
	if (inj_add(peer_rules(x->r->peer), &ru) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d injection rules", INJ_MAX_RULES);
	}
}

/* ---- Informative findings ---- */

/* A finding of the case itself: behaviour conforming devices differ on. */
static void add_informative(struct run_ctx *x, const struct cl_step *s, const char *msg)
{
	JsonObject *j = json_object_new();
	const char *rule = s->info_rule;
	for (unsigned i = 0; !rule && i < x->c->n_rules; i++)
		if (cl_rule_applies(x->c, i, x->ipv))
			rule = x->c->rules[i];
	json_object_set_string_member(j, "rule", rule ? rule : x->c->rules[0]);
	json_object_set_string_member(j, "severity", "info");
	json_object_set_string_member(j, "message", msg);
	json_object_set_int_member(j, "step", x->cur_step + 1);
	json_object_set_int_member(j, "line", s->loc.line);
	json_object_set_string_member(j, "source", "case");
	json_array_add_object_element(x->findings, j);
	if (!x->n_informative++)
		x->first_informative = g_strdup(msg);
}

/* A check that did not hold where none of the case's rules binds the DUT
 * in the step's roles with a "must": an informative finding naming what
 * was expected and observed, and why it is not judged. */
static void report_unbound_failure(struct run_ctx *x, const struct cl_step *s, unsigned i, struct step_out *o)
{
	char why[512];
	cl_unbound_reason(x->c, x->ipv, s->roles, why, sizeof why);
	gchar *msg = g_strdup_printf("step %u (line %u) %s: expected %s; observed %s (not judged: %s)", i + 1,
				     s->loc.line, s->text, o->expected->str, o->observed->str, why);
	add_informative(x, s, msg);
	g_free(msg);
	o->st = S_OK;
	g_string_printf(o->detail, "does not hold, informative (not judged: %s)", why);
}

static void step_check(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t a, b;
	if (!eval(x, &s->lhs, &a, o) || !eval(x, &s->rhs, &b, o))
		return;
	char va[64], vb[64];
	gchar *ta = expr_text(&s->lhs), *tb = expr_text(&s->rhs);
	format_value(a, expr_unit(x, &s->lhs), va, sizeof va);
	format_value(b, expr_unit(x, &s->rhs), vb, sizeof vb);
	/* A constant right side is shown as written; anything else with
	 * its value too ("$before * 9 / 10 = 7.011 Mb/s"). */
	bool constant = s->rhs.n == 1 && !s->rhs.terms[0].is_sym && s->rhs.terms[0].mul <= 1 && s->rhs.terms[0].div <= 1;
	gchar *want = g_strdup_printf("%s %s%s%s", cmp_text(s->cmp), tb, constant ? "" : " = ", constant ? "" : vb);
	gchar *got = g_strdup_printf("%s = %s, expected %s", ta, va, want);
	uint64_t c1 = 0, c2 = 0;
	if (cmp_ok(s->cmp, a, b)) {
		g_string_printf(o->detail, "holds: %s", got);
	} else if (s->has_cond && (!eval(x, &s->cond_lhs, &c1, o) || !eval(x, &s->cond_rhs, &c2, o))) {
		/* eval() said why in o */
	} else if (s->else_inform && (!s->has_cond || cmp_ok(s->cond_cmp, c1, c2))) {
		gchar *msg = g_strdup_printf("%s (%s)", s->info_text, got);
		add_informative(x, s, msg);
		g_string_printf(o->detail, "does not hold, informative: %s", msg);
		g_free(msg);
	} else {
		o->st = S_FAIL;
		g_string_printf(o->expected, "%s %s", ta, want);
		g_string_printf(o->observed, "%s = %s", ta, va);
	}
	g_free(ta);
	g_free(tb);
	g_free(want);
	g_free(got);
}

static void step_inform(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	GString *msg = g_string_new(s->info_text);
	for (unsigned i = 0; i < s->n_show; i++) {
		const struct cl_term *t = &s->show[i];
		const struct sym_val *sv = sym_find(x, t->sym, t->member);
		char val[64] = "no value";
		if (sv)
			format_value(sv->value, sv->unit, val, sizeof val);
		g_string_append_printf(msg, "%s%s%s%s = %s", i ? ", " : " (", t->sym, t->member ? "." : "",
				       t->member ? t->member : "", val);
	}
	if (s->n_show)
		g_string_append(msg, ")");
	add_informative(x, s, msg->str);
	g_string_printf(o->detail, "informative: %s", msg->str);
	g_string_free(msg, TRUE);
}

/* ---- The case ---- */

static void trim_sep(GString *s)
{
	size_t n = s->len;
	while (n && (s->str[n - 1] == ' ' || s->str[n - 1] == ';'))
		n--;
	g_string_truncate(s, n);
}

static void step_out_init(struct step_out *o)
{
	memset(o, 0, sizeof *o);
	o->detail = g_string_new(NULL);
	o->expected = g_string_new(NULL);
	o->observed = g_string_new(NULL);
}

static void step_out_free(struct step_out *o)
{
	g_string_free(o->detail, TRUE);
	g_string_free(o->expected, TRUE);
	g_string_free(o->observed, TRUE);
}

static void run_step(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	switch (s->kind) {
	case CL_DUT_MR: step_dut_mr(x, s, o); break;
	case CL_DUT_QP: step_dut_qp(x, s, o); break;
	case CL_DUT_POST_RECV: step_post_recv(x, s, o); break;
	case CL_DUT_POST_SEND: step_post_send(x, s, o); break;
	case CL_DUT_WRITE: step_dut_write(x, s, o); break;
	case CL_DUT_READ: step_dut_read(x, s, o); break;
	case CL_DUT_QUERY: step_dut_query(x, s, o); break;
	case CL_DUT_MODIFY: step_dut_modify(x, s, o); break;
	case CL_PEER_MR: step_peer_mr(x, s, o); break;
	case CL_PEER_OP: step_peer_op(x, s, o); break;
	case CL_PEER_SET: step_peer_set(x, s, o); break;
	case CL_INJECT: step_inject(x, s, o); break;
	case CL_EXPECT_PKT: step_expect_pkt(x, s, o); break;
	case CL_EXPECT_NOTHING: step_expect_nothing(x, s, o); break;
	case CL_EXPECT_COMPLETION: step_expect_completion(x, s, o, false); break;
	case CL_EXPECT_NO_COMPLETION: step_expect_completion(x, s, o, true); break;
	case CL_EXPECT_PEER: step_expect_peer(x, s, o); break;
	case CL_EXPECT_MEM: step_expect_mem(x, s, o); break;
	case CL_RULE: step_rule(x, s, o); break;
	case CL_RULES_OFF: inj_clear(peer_rules(x->r->peer)); break;
	case CL_WAIT: pump_until(x->r, -1, rawio_now() + s->within_max, false); x->ref_ns = rawio_now(); break;
	case CL_INFORM: step_inform(x, s, o); break;
	case CL_CHECK: step_check(x, s, o); break;
	case CL_MEASURE: step_measure(x, s, o); break;
	case CL_DUT_LISTEN: step_dut_listen(x, s, o); break;
	default: break;
	}
}

/* Opens a fresh agent session: connect, authenticate; or says in err
 * why not (with what the agent said). */
static bool session_open(struct runner *r, GString *err)
{
	r->agent.pump = agent_pump;
	r->agent.pump_ctx = r;
	char cerr[512]; /* a host name, a port and a resolver's or strerror's line */
	if (agent_connect(&r->agent, r->opts.agent, r->opts.agent_timeout_ns, cerr, sizeof cerr) != 0) {
		g_string_assign(err, cerr);
		return false;
	}
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_int_member(p, "version", AGENT_PROTOCOL_VERSION);
	json_object_set_string_member(p, "token", r->token ? r->token : "");
	enum agent_status st = agent_call(&r->agent, "hello", p, r->opts.agent_timeout_ns, &res);
	if (st != AGENT_OK) {
		const char *code = r->agent.fail_code->str;
		g_string_printf(err, "agent %s: hello failed: %s%s%s", r->opts.agent, code, code[0] ? ": " : "",
				r->agent.fail_msg->str);
		agent_close(&r->agent);
		return false;
	}
	if (!r->dut_hello)
		r->dut_hello = res;
	else
		json_object_unref(res);
	return true;
}

static void session_close(struct runner *r)
{
	if (r->agent.fd >= 0 && !r->agent.broken) {
		JsonObject *res = NULL;
		if (agent_call(&r->agent, "bye", NULL, r->opts.agent_timeout_ns, &res) == AGENT_OK)
			json_object_unref(res);
	}
	agent_close(&r->agent);
}

static JsonObject *step_json(struct run_ctx *x, int idx, const struct cl_step *s, const struct step_out *o,
			     uint64_t t0, uint64_t t1, size_t log_from)
{
	JsonObject *j = json_object_new();
	json_object_set_int_member(j, "index", idx + 1);
	json_object_set_int_member(j, "line", s->loc.line);
	json_object_set_string_member(j, "kind", cl_step_kind_name(s->kind));
	json_object_set_string_member(j, "text", s->text);
	json_object_set_string_member(j, "status", step_status_name(o->st));
	json_object_set_int_member(j, "started_ns", (gint64)t0);
	json_object_set_int_member(j, "duration_ns", (gint64)(t1 - t0));
	if (o->detail->len)
		json_object_set_string_member(j, "detail", o->detail->str);
	if (o->expected->len)
		json_object_set_string_member(j, "expected", o->expected->str);
	if (o->observed->len)
		json_object_set_string_member(j, "observed", o->observed->str);
	JsonArray *pk = json_array_new();
	for (unsigned i = 0; i < o->n_pkts; i++)
		json_array_add_int_element(pk, o->pkts[i]);
	json_object_set_array_member(j, "packets", pk);
	JsonArray *calls = json_array_new();
	for (size_t i = log_from; i < x->r->agent.n_log; i++) {
		const struct agent_exchange *e = &x->r->agent.log[i];
		JsonObject *c = json_object_new();
		json_object_set_string_member(c, "method", e->method);
		json_object_set_string_member(c, "request", e->request);
		if (e->reply)
			json_object_set_string_member(c, "reply", e->reply);
		else
			json_object_set_null_member(c, "reply");
		json_object_set_int_member(c, "latency_ns", e->reply_ns ? (gint64)(e->reply_ns - e->sent_ns) : -1);
		json_array_add_object_element(calls, c);
	}
	json_object_set_array_member(j, "agent_calls", calls);
	return j;
}

static bool family_usable(struct runner *r, int ipv, char *why, size_t n)
{
	int fi = ipv == 6;
	if (!(ipv == 4 ? r->io.has_ip4 : r->io.has_ip6)) {
		outf(why, n, "the tester's interface %s has no IPv%d address", r->io.ifname, ipv);
		return false;
	}
	if (!r->fam[fi].ok) {
		outf(why, n, "%s", r->fam[fi].why_not[0] ? r->fam[fi].why_not : "no DUT address for this IP version");
		return false;
	}
	return true;
}

/* Learns the DUT from the first session: capabilities, port, GIDs, and
 * the MAC of each GID's address. */
static void learn_dut(struct runner *r, struct run_ctx *x)
{
	struct step_out o;
	step_out_init(&o);
	JsonObject *res;
	if (call(x, &o, "query_device", NULL, &res)) {
		r->dut_device = res;
		JsonNode *cn = json_object_get_member(res, "capabilities");
		if (cn && JSON_NODE_HOLDS_ARRAY(cn)) {
			JsonArray *a = json_node_get_array(cn);
			for (guint i = 0; i < json_array_get_length(a); i++)
				r->dut_caps |= cl_cap_bit(json_array_get_string_element(a, i));
		}
	}
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	if (call(x, &o, "query_port", p, &res))
		r->dut_port = res;
	p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	if (call(x, &o, "list_gids", p, &res)) {
		JsonNode *gn = json_object_get_member(res, "gids");
		if (gn && JSON_NODE_HOLDS_ARRAY(gn))
			r->dut_gids = json_array_ref(json_node_get_array(gn));
		json_object_unref(res);
	}
	for (int fi = 0; fi < 2; fi++) {
		int ipv = fi ? 6 : 4;
		const char *override = fi ? r->opts.dut_ip6 : r->opts.dut_ip4;
		bool have = false;
		for (guint i = 0; r->dut_gids && i < json_array_get_length(r->dut_gids); i++) {
			JsonObject *g = json_array_get_object_element(r->dut_gids, i);
			const char *gid = json_object_has_member(g, "gid") ? json_object_get_string_member(g, "gid") : NULL;
			const char *type = json_object_has_member(g, "type") ? json_object_get_string_member(g, "type") : NULL;
			uint8_t a[16];
			if (!gid || !type || strcasecmp(type, "RoCEv2") || inet_pton(AF_INET6, gid, a) != 1)
				continue;
			bool mapped = roce_gid_is_ipv4(a);
			bool link_local = roce_ipv6_is_link_local(a);
			if (mapped != (ipv == 4) || (have && link_local))
				continue;
			if (override) {
				uint8_t want[16];
				if (inet_pton(fi ? AF_INET6 : AF_INET, override, want) != 1 ||
				    memcmp(fi ? a : a + 12, want, fi ? 16 : 4))
					continue;
			}
			uint64_t idx = 0;
			agent_get_u64(g, "index", &idx);
			r->fam[fi].sgid_index = (int)idx;
			memcpy(r->fam[fi].ip, fi ? a : a + 12, fi ? 16 : 4);
			outf(r->fam[fi].gid, sizeof r->fam[fi].gid, "%s", gid);
			have = true;
			if (!link_local)
				break;
		}
		/* A dual-mode port: the RoCE v1 GID of the same address. */
		r->fam[fi].sgid_index_v1 = -1;
		for (guint i = 0; have && r->dut_gids && i < json_array_get_length(r->dut_gids); i++) {
			JsonObject *g = json_array_get_object_element(r->dut_gids, i);
			const char *gid = json_object_has_member(g, "gid") ? json_object_get_string_member(g, "gid") : NULL;
			const char *type = json_object_has_member(g, "type") ? json_object_get_string_member(g, "type") : NULL;
			uint8_t a[16], b[16];
			if (!gid || !type || strcasecmp(type, "RoCEv1") || inet_pton(AF_INET6, gid, a) != 1 ||
			    inet_pton(AF_INET6, r->fam[fi].gid, b) != 1 || memcmp(a, b, 16))
				continue;
			uint64_t idx = 0;
			agent_get_u64(g, "index", &idx);
			r->fam[fi].sgid_index_v1 = (int)idx;
			break;
		}
		if (!have) {
			outf(r->fam[fi].why_not, sizeof r->fam[fi].why_not, "the DUT lists no RoCEv2 GID for IPv%d%s%s", ipv,
			     override ? " matching " : "", override ? override : "");
			r->fam[fi].no_gid = true;
			continue;
		}
		if (!(fi ? r->io.has_ip6 : r->io.has_ip4)) {
			outf(r->fam[fi].why_not, sizeof r->fam[fi].why_not, "the tester's interface has no IPv%d address", ipv);
			continue;
		}
		char err[256];
		if (rawio_resolve(&r->io, ipv, r->fam[fi].ip, !r->opts.resolve_self, r->fam[fi].mac, 3000 * NS_PER_MS, r->fam[fi].how,
				  sizeof r->fam[fi].how, err, sizeof err) != 0) {
			outf(r->fam[fi].why_not, sizeof r->fam[fi].why_not, "%s", err);
			continue;
		}
		r->fam[fi].ok = true;
	}
	r->dut_known = true;
	agent_log_clear(&r->agent);
	step_out_free(&o);
}

static void free_ctx(struct run_ctx *x)
{
	for (unsigned i = 0; i < x->n_qps; i++)
		for (int k = 0; k < 3; k++)
			if (x->qps[i].bringup[k])
				json_object_unref(x->qps[i].bringup[k]);
	for (size_t i = 0; i < x->n_pkts; i++) {
		free(x->pkts[i].data);
		free(x->pkts[i].note);
		free(x->pkts[i].annot);
	}
	free(x->pkts);
	for (size_t i = 0; i < x->n_syms; i++)
		free(x->syms[i].name);
	free(x->syms);
	flowcheck_free(x->flow);
	g_free(x->first_informative);
}

static int cmp_pkt_time(const void *a, const void *b)
{
	const struct case_pkt *const *pa = a, *const *pb = b;
	if ((*pa)->ts_ns != (*pb)->ts_ns)
		return (*pa)->ts_ns < (*pb)->ts_ns ? -1 : 1;
	return *pa < *pb ? -1 : 1;
}

/* Writes the case's packets to the capture in time order with their
 * comments, and lists them in the record. */
static JsonArray *flush_packets(struct run_ctx *x, const char *label)
{
	JsonArray *arr = json_array_new();
	struct case_pkt **order = malloc((x->n_pkts ? x->n_pkts : 1) * sizeof *order);
	if (!order)
		abort();
	for (size_t i = 0; i < x->n_pkts; i++)
		order[i] = &x->pkts[i];
	qsort(order, x->n_pkts, sizeof *order, cmp_pkt_time);
	for (size_t k = 0; k < x->n_pkts; k++) {
		struct case_pkt *p = order[k];
		char sum[200];
		pkt_summary(p, sum, sizeof sum);
		const struct cl_step *s = p->step >= 0 && (unsigned)p->step < x->c->n_steps ? &x->c->steps[p->step] : NULL;
		GString *comment = g_string_new(NULL);
		if (p->step >= 0)
			g_string_printf(comment, "%s step %d", label, p->step + 1);
		else
			g_string_printf(comment, "%s set-up", label);
		if (s)
			g_string_append_printf(comment, " (line %u: %s)", s->loc.line, s->text);
		g_string_append_printf(comment, ": %s %s", p->tx ? "sent" : "received", sum);
		if (p->note)
			g_string_append_printf(comment, "; %s", p->note);
		if (p->annot)
			g_string_append_printf(comment, "; %s", p->annot);
		else if (!p->tx && p->qpn)
			g_string_append(comment, "; not matched by any expectation");
		p->frame = capture_write(x->r->cap, p->data, p->len, p->ts_ns, p->tx, comment->str);
		g_string_free(comment, TRUE);
	}
	for (size_t i = 0; i < x->n_pkts; i++) {
		struct case_pkt *p = &x->pkts[i];
		char sum[200];
		pkt_summary(p, sum, sizeof sum);
		JsonObject *j = json_object_new();
		json_object_set_int_member(j, "index", (gint64)i);
		if (p->frame)
			json_object_set_int_member(j, "frame", (gint64)p->frame);
		else
			json_object_set_null_member(j, "frame");
		json_object_set_int_member(j, "ts_ns", (gint64)p->ts_ns);
		json_object_set_string_member(j, "direction", p->tx ? "tx" : "rx");
		json_object_set_int_member(j, "step", p->step + 1);
		json_object_set_int_member(j, "length", (gint64)p->len);
		struct case_qp *q = p->qpn ? qp_by_tester_qpn(x, p->qpn) : NULL;
		if (q)
			json_object_set_string_member(j, "qp", q->name);
		json_object_set_string_member(j, "summary", sum);
		if (p->note)
			json_object_set_string_member(j, "note", p->note);
		if (p->annot)
			json_object_set_string_member(j, "annotation", p->annot);
		json_array_add_object_element(arr, j);
	}
	free(order);
	capture_flush(x->r->cap);
	return arr;
}

static gint64 frame_of(struct run_ctx *x, long idx)
{
	return idx >= 0 && (size_t)idx < x->n_pkts ? (gint64)x->pkts[idx].frame : 0;
}

/* Replaces packet indices with frame numbers in step and evidence records. */
static void frames_for(struct run_ctx *x, JsonObject *o, const char *from, const char *to)
{
	JsonNode *n = json_object_get_member(o, from);
	if (!n || !JSON_NODE_HOLDS_ARRAY(n))
		return;
	JsonArray *a = json_node_get_array(n), *f = json_array_new();
	for (guint i = 0; i < json_array_get_length(a); i++)
		json_array_add_int_element(f, frame_of(x, (long)json_array_get_int_element(a, i)));
	json_object_set_array_member(o, to, f);
}

JsonObject *runner_run_case(struct runner *r, const struct cl_case *c, int ip_version, enum verdict *verdict)
{
	struct run_ctx ctx, *x = &ctx;
	memset(x, 0, sizeof *x);
	x->r = r;
	x->c = c;
	x->ipv = ip_version;
	x->fi = ip_version == 6;
	x->cur_step = -1;
	x->events = json_array_new();
	x->findings = json_array_new();
	x->evidence = json_array_new();
	x->failed_rules = json_array_new();
	x->flow = flowcheck_new();
	x->flow_idx = -1;
	r->rc = x;
	peer_reset(r->peer);
	agent_log_clear(&r->agent);
	uint64_t t_start = rawio_now();
	x->deadline_ns = t_start + c->timeout_ns;
	x->ref_ns = t_start;

	JsonObject *rec = json_object_new();
	json_object_set_string_member(rec, "id", c->id);
	json_object_set_string_member(rec, "title", c->title);
	json_object_set_string_member(rec, "file", c->path);
	json_object_set_int_member(rec, "ip_version", ip_version);
	JsonArray *rules = json_array_new();
	for (unsigned i = 0; i < c->n_rules; i++)
		if (cl_rule_applies(c, i, ip_version))
			json_array_add_string_element(rules, c->rules[i]);
	json_object_set_array_member(rec, "rules", rules);
	char caps[CL_CAPS_TEXT];
	cl_caps_format(c->caps, caps, sizeof caps);
	JsonArray *req = json_array_new();
	for (char *tok = strtok(caps, ","); tok; tok = strtok(NULL, ","))
		json_array_add_string_element(req, tok);
	json_object_set_array_member(rec, "requires", req);
	json_object_set_int_member(rec, "started_ns", (gint64)t_start);

	enum verdict v = V_PASS;
	GString *reason = g_string_new(NULL);
	int failed_step = -1;
	JsonArray *steps = json_array_new();
	char err[512]; /* family_usable: a line of the tester's own, with an interface name */
	bool session = session_open(r, reason);
	if (!session)
		v = V_ERROR;
	if (session && !r->dut_known)
		learn_dut(r, x);
	unsigned need = (c->caps & ~CL_CAP_VLAN) | (ip_version == 4 ? CL_CAP_IPV4 : CL_CAP_IPV6);
	if (v == V_PASS && (c->caps & CL_CAP_VLAN) && r->opts.vlan < 0) {
		v = V_NOT_APPLICABLE;
		g_string_printf(reason, "the run is not over a VLAN (roce-tester run --vlan ID:PCP)");
	}
	if (v == V_PASS && r->dut_device && (need & ~r->dut_caps)) {
		char missing[CL_CAPS_TEXT];
		cl_caps_format(need & ~r->dut_caps, missing, sizeof missing);
		v = V_NOT_APPLICABLE;
		g_string_printf(reason, "the DUT lacks %s", missing);
	}
	if (v == V_PASS && r->dut_device && (c->unless_caps & r->dut_caps)) {
		char has[CL_CAPS_TEXT];
		cl_caps_format(c->unless_caps & r->dut_caps, has, sizeof has);
		v = V_NOT_APPLICABLE;
		g_string_printf(reason, "the DUT has %s, which the case excludes ('unless')", has);
	}
	if (v == V_PASS && !family_usable(r, ip_version, err, sizeof err)) {
		v = V_NOT_APPLICABLE;
		g_string_printf(reason, "%s", err);
	}
	if (v == V_PASS)
		sym_set(x, "port", "mtu", dut_port_mtu(r));
	for (unsigned i = 0; v == V_PASS && !x->stop && i < c->n_steps; i++) {
		const struct cl_step *s = &c->steps[i];
		x->cur_step = (int)i;
		struct step_out o;
		step_out_init(&o);
		size_t log_from = r->agent.n_log;
		uint64_t t0 = rawio_now();
		if (t0 >= x->deadline_ns) {
			o.st = S_ERROR;
			g_string_printf(o.detail, "the case exceeded its time budget of %.1f s", (double)c->timeout_ns / 1e9);
		} else {
			run_step(x, s, &o);
		}
		if (interrupted(r) && o.st == S_OK) {
			o.st = S_ERROR;
			g_string_printf(o.detail, "interrupted");
		}
		uint64_t t1 = rawio_now();
		trim_sep(o.expected);
		trim_sep(o.observed);
		/* A failed check fails the case only under a "must" of its
		 * rules that binds the DUT in the step's roles; otherwise it
		 * is reported, and the case ends there, informative. */
		unsigned bound[64], nb = 0;
		if (o.st == S_FAIL && !(nb = cl_binding_rules(c, ip_version, s->roles, bound, 64))) {
			report_unbound_failure(x, s, (unsigned)i, &o);
			x->stop = true;
		}
		json_array_add_object_element(steps, step_json(x, (int)i, s, &o, t0, t1, log_from));
		if (o.st == S_OK) {
			step_out_free(&o);
			continue;
		}
		failed_step = (int)i;
		if (o.st == S_FAIL) {
			v = V_FAIL;
			g_string_printf(reason, "step %u (line %u) %s: expected %s; observed %s", i + 1, s->loc.line,
			     s->text, o.expected->str, o.observed->str);
			JsonObject *ev = json_object_new();
			JsonArray *er = json_array_new();
			for (unsigned k = 0; k < nb; k++) {
				json_array_add_string_element(er, c->rules[bound[k]]);
				add_failed_rule(x, c->rules[bound[k]]);
			}
			json_object_set_array_member(ev, "rules", er);
			json_object_set_int_member(ev, "step", i + 1);
			json_object_set_int_member(ev, "line", s->loc.line);
			json_object_set_string_member(ev, "statement", s->text);
			json_object_set_string_member(ev, "expected", o.expected->str);
			json_object_set_string_member(ev, "observed", o.observed->str);
			JsonArray *pk = json_array_new();
			for (unsigned k = 0; k < o.n_pkts; k++)
				json_array_add_int_element(pk, o.pkts[k]);
			json_object_set_array_member(ev, "packets", pk);
			json_array_add_object_element(x->evidence, ev);
		} else if (o.st == S_NA) {
			v = V_NOT_APPLICABLE;
			g_string_printf(reason, "step %u (line %u): %s", i + 1, s->loc.line, o.detail->str);
		} else {
			v = V_ERROR;
			g_string_printf(reason, "step %u (line %u) %s: %s", i + 1, s->loc.line, s->text, o.detail->str);
		}
		step_out_free(&o);
	}
	/* A failure with a dead agent says more about the agent than the DUT's
	 * rules: such a case ends in error. */
	if (session && v == V_FAIL) {
		JsonObject *res = NULL;
		if (agent_call(&r->agent, "query_port", NULL, r->opts.agent_timeout_ns, &res) == AGENT_BROKEN) {
			gchar *was = g_strdup(reason->str);
			v = V_ERROR;
			g_string_printf(reason, "lost the agent (%s); the earlier failure may follow from it: %s",
					r->agent.fail_msg->str, was);
			g_free(was);
		}
		if (res)
			json_object_unref(res);
	}
	/* Let late packets of the case arrive before judging and closing. */
	if (session && v != V_ERROR)
		pump_until(r, -1, rawio_now() + 5 * NS_PER_MS, false);
	check_traffic(x);
	note_suppressed_findings(x);
	/* Packets that broke a rule fail a case that otherwise passed. */
	if (v == V_PASS && x->pkt_error) {
		v = V_FAIL;
		for (guint i = 0; i < json_array_get_length(x->findings); i++) {
			JsonObject *f = json_array_get_object_element(x->findings, i);
			if (!strcmp(json_object_get_string_member(f, "severity"), "error")) {
				bool traffic = !strcmp(json_object_get_string_member(f, "source"), "traffic check");
				g_string_printf(reason, "%s: %s",
				     traffic ? "the DUT's traffic breaks a rule" : "the DUT sent a packet that breaks a rule",
				     json_object_get_string_member(f, "message"));
				break;
			}
		}
	}
	const struct peer_finding *pf;
	size_t npf = peer_findings(r->peer, &pf);
	for (size_t i = 0; i < npf; i++) {
		const struct roce_rule_info *ri = roce_rule(pf[i].rule);
		JsonObject *j = json_object_new();
		json_object_set_string_member(j, "rule", ri ? ri->id : "");
		json_object_set_string_member(j, "severity", pf[i].error ? "error" : "info");
		json_object_set_string_member(j, "message", pf[i].text);
		json_object_set_int_member(j, "psn", pf[i].psn);
		json_object_set_int_member(j, "ts_ns", (gint64)pf[i].ts_ns);
		json_object_set_string_member(j, "source", "peer engine");
		json_array_add_object_element(x->findings, j);
		if (pf[i].error && ri) {
			add_failed_rule(x, ri->id);
			if (v == V_PASS) {
				v = V_FAIL;
				g_string_printf(reason, "%s: %s", ri->id, pf[i].text);
			}
		}
	}
	/* A case whose requirements held but that reports behaviour devices
	 * differ on is informative, not a plain pass. */
	if (v == V_PASS && x->n_informative) {
		v = V_INFORMATIVE;
		g_string_printf(reason, "%s%s", x->first_informative,
		     x->n_informative > 1 ? " (and more informative findings)" : "");
	}
	/* A flood is said in the reason of a verdict that has one (a case that
	 * passes has none; its record still counts what was not recorded). */
	if (x->rx_unrecorded && v != V_PASS) {
		gchar *was = g_strdup(reason->str);
		double secs = (double)(x->rx_last_ns - x->rx_first_ns) / 1e9;
		g_string_printf(reason, "%s%sthe tester received %llu frames in %.2f s (%.0f per second), a flood: %llu of them "
		     "were counted but not recorded", was, was[0] ? "; " : "", (unsigned long long)x->rx_frames, secs,
		     secs > 0 ? (double)x->rx_frames / secs : 0.0, (unsigned long long)x->rx_unrecorded);
		g_free(was);
	}
	if (session)
		session_close(r);
	char label[256];
	outf(label, sizeof label, "%s [IPv%d]", c->id, ip_version);
	JsonArray *packets = flush_packets(x, label);
	/* Frame numbers are known now. */
	for (guint i = 0; i < json_array_get_length(steps); i++)
		frames_for(x, json_array_get_object_element(steps, i), "packets", "frames");
	for (guint i = 0; i < json_array_get_length(x->evidence); i++)
		frames_for(x, json_array_get_object_element(x->evidence, i), "packets", "frames");
	for (guint i = 0; i < json_array_get_length(x->findings); i++) {
		JsonObject *f = json_array_get_object_element(x->findings, i);
		if (json_object_has_member(f, "packet"))
			json_object_set_int_member(f, "frame", frame_of(x, (long)json_object_get_int_member(f, "packet")));
	}
	const struct peer_timing *tm;
	size_t ntm = peer_timings(r->peer, &tm);
	JsonArray *timings = json_array_new();
	for (size_t i = 0; i < ntm; i++) {
		JsonObject *j = json_object_new();
		struct case_qp *q = qp_by_tester_qpn(x, tm[i].qpn);
		json_object_set_string_member(j, "qp", q ? q->name : "");
		json_object_set_int_member(j, "psn", tm[i].psn);
		json_object_set_string_member(j, "opcode", roce_opcode(tm[i].opcode)->name ? roce_opcode(tm[i].opcode)->name : "?");
		json_object_set_string_member(j, "what", tm[i].what);
		json_object_set_int_member(j, "rx_ns", (gint64)tm[i].rx_ns);
		json_object_set_int_member(j, "delta_ns", (gint64)tm[i].delta_ns);
		json_array_add_object_element(timings, j);
	}
	const struct peer_stats *ps = peer_stats(r->peer);
	JsonObject *stats = json_object_new();
	json_object_set_int_member(stats, "tx", (gint64)ps->tx);
	json_object_set_int_member(stats, "rx", (gint64)ps->rx);
	json_object_set_int_member(stats, "retransmissions", (gint64)ps->retransmissions);
	json_object_set_int_member(stats, "acks_sent", (gint64)ps->acks_sent);
	json_object_set_int_member(stats, "naks_sent", (gint64)ps->naks_sent);
	json_object_set_int_member(stats, "rnr_naks_sent", (gint64)ps->rnr_naks_sent);
	json_object_set_int_member(stats, "dropped_by_rule", (gint64)ps->dropped_by_rule);
	uint64_t fdrop, tdrop;
	peer_records_dropped(r->peer, &fdrop, &tdrop);
	json_object_set_int_member(stats, "findings_not_listed", (gint64)fdrop);
	json_object_set_int_member(stats, "timings_not_listed", (gint64)tdrop);
	JsonObject *symbols = json_object_new();
	for (size_t i = 0; i < x->n_syms; i++)
		agent_set_u64(symbols, x->syms[i].name, x->syms[i].value);

	uint64_t t_end = rawio_now();
	json_object_set_string_member(rec, "verdict", verdict_name(v));
	json_object_set_string_member(rec, "reason", reason->str);
	g_string_free(reason, TRUE);
	json_object_set_int_member(rec, "duration_ns", (gint64)(t_end - t_start));
	if (failed_step >= 0)
		json_object_set_int_member(rec, "failed_step", failed_step + 1);
	else
		json_object_set_null_member(rec, "failed_step");
	json_object_set_array_member(rec, "failed_rules", x->failed_rules);
	json_object_set_array_member(rec, "evidence", x->evidence);
	json_object_set_array_member(rec, "findings", x->findings);
	json_object_set_array_member(rec, "steps", steps);
	json_object_set_array_member(rec, "events", x->events);
	json_object_set_array_member(rec, "packets", packets);
	json_object_set_array_member(rec, "timings", timings);
	json_object_set_object_member(rec, "engine", stats);
	JsonObject *rx = json_object_new();
	json_object_set_int_member(rx, "frames", (gint64)x->rx_frames);
	json_object_set_int_member(rx, "bytes", (gint64)x->rx_bytes);
	json_object_set_int_member(rx, "not_recorded", (gint64)x->rx_unrecorded);
	json_object_set_int_member(rx, "not_recorded_bytes", (gint64)x->rx_unrecorded_bytes);
	json_object_set_int_member(rx, "late", x->late_frames);
	json_object_set_object_member(rec, "received", rx);
	json_object_set_object_member(rec, "symbols", symbols);
	r->rc = NULL;
	free_ctx(x);
	agent_log_clear(&r->agent);
	*verdict = v;
	return rec;
}

/* ---- Run set-up ---- */

int runner_init(struct runner *r, const struct runner_opts *o, volatile sig_atomic_t *interrupted, char *err,
		size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->opts = *o;
	r->interrupted = interrupted;
	r->agent.fd = -1;
	srand((unsigned)rawio_now() ^ (unsigned)getpid());
	r->next_tester_qpn = 0x100 + ((uint32_t)rand() & 0x7FFF) * 0x10;
	r->first_tester_qpn = r->next_tester_qpn;
	r->fam[0].sgid_index_v1 = r->fam[1].sgid_index_v1 = -1;
	if (o->token_file) {
		gsize n = 0;
		GError *gerr = NULL;
		if (!g_file_get_contents(o->token_file, &r->token, &n, &gerr)) {
			outf(err, errlen, "--token-file %s: %s", o->token_file, gerr->message);
			g_error_free(gerr);
			return -1;
		}
		while (n && isspace((unsigned char)r->token[n - 1]))
			n--;
		r->token[n] = '\0';
	}
	if (rawio_open(&r->io, o->iface, o->vlan, o->tstamp, err, errlen) != 0)
		return -1;
	r->io_open = true;
	struct peer_io pio = { r, on_engine_send, on_engine_note };
	r->peer = peer_new(&pio);
	return 0;
}

void runner_fini(struct runner *r)
{
	if (r->peer)
		peer_free(r->peer);
	if (r->io_open)
		rawio_close(&r->io);
	agent_close(&r->agent);
	agent_log_clear(&r->agent);
	g_free(r->token);
	if (r->dut_hello)
		json_object_unref(r->dut_hello);
	if (r->dut_device)
		json_object_unref(r->dut_device);
	if (r->dut_port)
		json_object_unref(r->dut_port);
	if (r->dut_gids)
		json_array_unref(r->dut_gids);
}

JsonObject *runner_setup_json(struct runner *r)
{
	JsonObject *s = json_object_new();
	JsonObject *i = json_object_new();
	char buf[64];
	json_object_set_string_member(i, "name", r->io.ifname);
	outf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", r->io.mac[0], r->io.mac[1], r->io.mac[2], r->io.mac[3],
	     r->io.mac[4], r->io.mac[5]);
	json_object_set_string_member(i, "mac", buf);
	if (r->io.has_ip4) {
		inet_ntop(AF_INET, r->io.ip4, buf, sizeof buf);
		json_object_set_string_member(i, "ipv4", buf);
	}
	if (r->io.has_ip6) {
		inet_ntop(AF_INET6, r->io.ip6, buf, sizeof buf);
		json_object_set_string_member(i, "ipv6", buf);
	}
	if (r->opts.vlan >= 0)
		json_object_set_int_member(i, "vlan", r->opts.vlan);
	else
		json_object_set_null_member(i, "vlan");
	json_object_set_string_member(i, "timestamps", r->io.tstamp);
	json_object_set_string_member(i, "icmp_guard", r->io.guard_note[0] ? r->io.guard_note
					   : "UDP port 4791 held by the tester: the kernel sends no ICMP port unreachable");
	json_object_set_int_member(i, "frames_sent", (gint64)r->io.tx_frames);
	json_object_set_int_member(i, "frames_received", (gint64)r->io.rx_frames);
	json_object_set_int_member(i, "send_errors", (gint64)r->io.tx_errors);
	json_object_set_object_member(s, "interface", i);
	JsonObject *a = json_object_new();
	json_object_set_string_member(a, "address", r->opts.agent);
	if (r->dut_hello)
		json_object_set_object_member(a, "hello", json_object_ref(r->dut_hello));
	json_object_set_object_member(s, "agent", a);
	JsonObject *d = json_object_new();
	if (r->dut_device)
		json_object_set_object_member(d, "device", json_object_ref(r->dut_device));
	if (r->dut_port)
		json_object_set_object_member(d, "port", json_object_ref(r->dut_port));
	if (r->dut_gids)
		json_object_set_array_member(d, "gids", json_array_ref(r->dut_gids));
	for (int fi = 0; fi < 2; fi++) {
		JsonObject *f = json_object_new();
		json_object_set_boolean_member(f, "usable", r->fam[fi].ok);
		if (r->fam[fi].gid[0]) {
			json_object_set_string_member(f, "gid", r->fam[fi].gid);
			json_object_set_int_member(f, "sgid_index", r->fam[fi].sgid_index);
			if (r->fam[fi].sgid_index_v1 >= 0) /* a dual-mode port */
				json_object_set_int_member(f, "sgid_index_rocev1", r->fam[fi].sgid_index_v1);
		}
		if (r->fam[fi].ok) {
			outf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", r->fam[fi].mac[0], r->fam[fi].mac[1],
			     r->fam[fi].mac[2], r->fam[fi].mac[3], r->fam[fi].mac[4], r->fam[fi].mac[5]);
			json_object_set_string_member(f, "mac", buf);
			json_object_set_string_member(f, "resolved_by", r->fam[fi].how);
		} else if (r->fam[fi].why_not[0]) {
			json_object_set_string_member(f, "why_not", r->fam[fi].why_not);
		}
		json_object_set_object_member(d, fi ? "ipv6" : "ipv4", f);
	}
	json_object_set_object_member(s, "dut", d);
	return s;
}
