/*
 * The runner's packets: every frame of a case recorded with its step and
 * annotations, the checks each of the DUT's packets gets (stateless
 * rules, addresses, VLAN, flow analysis, stray traffic), and the case's
 * packets written to the capture in time order.
 */
#include "runner_ctx.h"
#include "mcast_report.h"

/* ---- Packets of the case ---- */

long record_pkt(struct run_ctx *x, const uint8_t *data, size_t len, uint64_t ts, bool tx, uint32_t qpn,
		const char *note)
{
	if (x->n_pkts == MAX_CASE_PKTS)
		return -1;
	unsigned max_rx = x->r->opts.record_frames ? x->r->opts.record_frames : RUNNER_RECORD_FRAMES;
	if (!tx && (x->rx_recorded >= max_rx || x->rx_recorded_bytes + len > MAX_CASE_RX_BYTES)) {
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
	p->answers = -1;
	if (!tx) {
		x->rx_recorded++;
		x->rx_recorded_bytes += len;
	}
	struct case_qp *q = qpn ? qp_by_tester_qpn(x, qpn) : NULL;
	if (flowcheck_frame(x->flow, data, len, (uint32_t)x->n_pkts + 1, ts, q ? q->pmtu : 0, &x->flow_result)) {
		x->flow_idx = (long)x->n_pkts;
		/* The analysis numbers the case's packets from 1. */
		if (x->flow_result.request_frame && x->flow_result.request_frame <= x->n_pkts)
			p->answers = (long)x->flow_result.request_frame - 1;
	}
	return (long)x->n_pkts++;
}

void annotate(struct run_ctx *x, long idx, const char *fmt, ...)
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

struct case_qp *qp_by_tester_qpn(struct run_ctx *x, uint32_t qpn)
{
	for (unsigned i = 0; i < x->n_qps; i++)
		if (x->qps[i].tester_qpn == qpn)
			return &x->qps[i];
	return NULL;
}

/* A packet-check finding's message, in its record and in the note on its
 * packet that the capture's comment carries. */
static void say_finding(struct run_ctx *x, JsonObject *j, long idx, const char *msg)
{
	const char *rule = json_object_get_string_member(j, "rule");
	json_object_set_string_member(j, "message", msg);
	annotate(x, idx, "finding %s%s%s", rule, *rule ? ": " : "", msg);
}

/* A finding of the checks on one DUT packet. Error findings fail the case
 * whether they are listed or not; past MAX_FINDINGS_PER_RULE per rule they
 * are only counted (see note_suppressed_findings). Returns the listed
 * finding, or NULL. With msg NULL its message and its note on the packet
 * wait for say_finding (a message that names frames of the capture). */
static JsonObject *add_pkt_finding(struct run_ctx *x, long idx, enum roce_rule rule, const char *severity,
				   const char *msg)
{
	const struct roce_rule_info *ri = roce_rule(rule);
	if (!strcmp(severity, "error") && ri) {
		x->pkt_error = true;
		add_failed_rule(x, ri->id);
	}
	unsigned *n = &x->rule_findings[ri ? rule : ROCE_RULE_NONE];
	if ((*n)++ >= MAX_FINDINGS_PER_RULE)
		return NULL;
	JsonObject *j = json_object_new();
	json_object_set_string_member(j, "rule", ri ? ri->id : "");
	json_object_set_string_member(j, "severity", severity);
	json_object_set_int_member(j, "packet", idx);
	json_object_set_int_member(j, "step", x->pkts[idx].step + 1); /* 1-based like packets */
	json_object_set_string_member(j, "source", "packet check");
	json_array_add_object_element(x->findings, j);
	if (msg)
		say_finding(x, j, idx, msg);
	return j;
}

static void pkt_finding(struct run_ctx *x, long idx, enum roce_rule rule, const char *msg)
{
	add_pkt_finding(x, idx, rule, "error", msg);
}

/* One finding per rule that had more than the listed ones. */
void note_suppressed_findings(struct run_ctx *x)
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
	/* To a multicast group: the stateless checks judge its MAC and DestQP. */
	struct roce_mcast_group group;
	bool to_group = roce_pkt_mcast_group(pk, &group);
	if (memcmp(src, r->fam[q->fi].ip, n)) {
		inet_ntop(af, src, got, sizeof got);
		inet_ntop(af, r->fam[q->fi].ip, want, sizeof want);
		outf(msg, sizeof msg, "source address %s is not %s, the address of the DUT's source GID", got, want);
		pkt_finding(x, idx, q->ipv == 4 ? ROCE_RULE_CA17_11 : ROCE_RULE_CA17_18, msg);
	}
	if (!to_group && memcmp(dst, mine, n)) {
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
		/* With what libroce can say of its cause (a wrong ICRC: the
		 * implementation mistake that makes it). */
		char msg[1000], why[700];
		roce_finding_message(&f[i], msg, sizeof msg);
		roce_finding_context(pk, &f[i], why, sizeof why);
		appendf(msg, sizeof msg, "%s", why);
		add_pkt_finding(x, idx, ci->rule, roce_severity_name(ci->severity), msg);
	}
}

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
 * traffic (record_pkt ran it), as the plugin and lint judge a capture.
 * A message that names other packets ("the SEND with Invalidate in frame
 * N") is said once their capture frames are known (say_flow_findings). */
static void check_flow(struct run_ctx *x, long idx)
{
	if (x->flow_idx != idx)
		return;
	const struct roce_flow_result *r = &x->flow_result;
	for (unsigned i = 0; i < r->n_findings; i++) {
		struct flow_finding ff = { .idx = idx, .f = r->findings[i] };
		const struct roce_code_info *ci = roce_code_info(ff.f.code);
		ff.names_frames = roce_code_frame_args(ff.f.code) != 0;
		char msg[300];
		if (!ff.names_frames)
			roce_finding_message(&ff.f, msg, sizeof msg);
		if (add_pkt_finding(x, idx, ci->rule, roce_severity_name(ci->severity), ff.names_frames ? NULL : msg)) {
			ff.k = json_array_get_length(x->findings) - 1;
			g_array_append_val(x->flow_findings, ff);
		}
	}
}

/* The capture frame of the packet the flow analysis numbered n (record_pkt:
 * the case's packets from 1 as recorded). */
static uint64_t capture_frame(void *ctx, uint64_t n)
{
	struct run_ctx *x = ctx;
	return n >= 1 && n <= x->n_pkts ? x->pkts[n - 1].frame : 0;
}

/* The flow findings that name frames, said with the capture's numbers. */
static void say_flow_findings(struct run_ctx *x)
{
	for (guint i = 0; i < x->flow_findings->len; i++) {
		const struct flow_finding *ff = &g_array_index(x->flow_findings, struct flow_finding, i);
		if (!ff->names_frames)
			continue;
		char msg[300];
		roce_finding_message_frames(&ff->f, capture_frame, x, msg, sizeof msg);
		say_finding(x, json_array_get_object_element(x->findings, ff->k), ff->idx, msg);
	}
}

/* Every DUT packet of the case is checked against the stateless and the
 * flow rules. */
void check_dut_packet(struct run_ctx *x, long idx, const struct case_qp *q)
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
bool is_neighbour_frame(const uint8_t *d, size_t len)
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
bool from_dut(struct runner *r, const uint8_t *d, size_t len)
{
	if (len < ROCE_ETH_LEN)
		return false;
	for (int fi = 0; fi < 2; fi++)
		if (r->fam[fi].ok && !memcmp(d + 6, r->fam[fi].mac, 6))
			return true;
	return false;
}

/* Whether qpn is a QP the tester made for an earlier case. */
static bool of_earlier_case(struct run_ctx *x, uint32_t qpn)
{
	return qpn >= x->r->first_tester_qpn && qpn < x->r->next_tester_qpn && !qp_by_tester_qpn(x, qpn);
}

/* A RoCEv2 frame from the DUT that belongs to no QP of the case: judged
 * like any DUT packet, and a well-formed one must at least be addressed
 * to a QP the tester has (a DUT sends responses and requests only to the
 * QPs its own QPs are connected to, IBA chapter 9). A late packet for a QP
 * of an earlier case is only noted: that case's judgement is done. */
void check_stray_packet(struct run_ctx *x, long idx)
{
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
	if (of_earlier_case(x, qpn)) {
		annotate(x, idx, "late: QP 0x%06x belongs to an earlier case", qpn);
		return;
	}
	if (p->group) { /* to a group of the case: none of the tester's QPs is attached */
		annotate(x, idx, "to group %s, which no tester QP is attached to", x->c->groups[p->group - 1].name);
		return;
	}
	char msg[400], qps[200] = "";
	for (unsigned i = 0; i < x->n_qps; i++)
		appendf(qps, sizeof qps, "%s0x%06x", i ? ", " : "", x->qps[i].tester_qpn);
	outf(msg, sizeof msg, "the DUT sent %s to QP 0x%06x, which is no QP of the tester's (this case's: %s)", sum, qpn,
	     qps[0] ? qps : "none");
	pkt_finding(x, idx, ROCE_RULE_CA17_25, msg);
}

/* Whether a frame is addressed to a QP the tester made for an earlier
 * case: that case's judgement is done, and the frame only comes late. */
bool is_late_frame(struct run_ctx *x, const uint8_t *d, size_t len)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, d, len, len, ROCE_PARSE_ROCEV1) != ROCE_OK || !pk.op)
		return false;
	return of_earlier_case(x, roce_bth_destqp(roce_pkt_hdr(&pk, ROCE_H_BTH)));
}

/* Counts what the DUT sent on a QP of the case (every frame, recorded or
 * not) for the traffic checks at the end of the case. */
void account_dut_packet(struct case_qp *q, const uint8_t *data, size_t len)
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
void check_traffic(struct run_ctx *x)
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

void pkt_summary(const struct case_pkt *p, char *buf, size_t n)
{
	struct mcast_report rep;
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
	} else if (mcast_report_parse(p->data, p->len, &rep)) {
		mcast_report_summary(&rep, buf, n);
	} else {
		outf(buf, n, "non-RoCEv2 frame of %zu bytes", p->len);
	}
}

static int cmp_pkt_time(const void *a, const void *b)
{
	const struct case_pkt *const *pa = a, *const *pb = b;
	if ((*pa)->ts_ns != (*pb)->ts_ns)
		return (*pa)->ts_ns < (*pb)->ts_ns ? -1 : 1;
	return *pa < *pb ? -1 : 1;
}

/* Writes the case's packets to the capture in time order with their
 * comments, and lists them in the record. Each packet's frame number is
 * known before any is written (those of the capture so far, then its
 * place in time), so that the findings that name frames say the capture's
 * in the comments too. */
JsonArray *flush_packets(struct run_ctx *x, const char *label)
{
	JsonArray *arr = json_array_new();
	struct case_pkt **order = malloc((x->n_pkts ? x->n_pkts : 1) * sizeof *order);
	if (!order)
		abort();
	for (size_t i = 0; i < x->n_pkts; i++)
		order[i] = &x->pkts[i];
	qsort(order, x->n_pkts, sizeof *order, cmp_pkt_time);
	uint64_t before = capture_frames(x->r->cap);
	for (size_t k = 0; k < x->n_pkts; k++)
		order[k]->frame = x->r->cap ? before + k + 1 : 0;
	say_flow_findings(x);
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
		/* 0 (null in the record) once a write failed. */
		if (capture_write(x->r->cap, p->data, p->len, p->ts_ns, p->tx, comment->str) != p->frame)
			p->frame = 0;
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

gint64 frame_of(struct run_ctx *x, long idx)
{
	return idx >= 0 && (size_t)idx < x->n_pkts ? (gint64)x->pkts[idx].frame : 0;
}

/* Replaces packet indices with frame numbers in step and evidence records. */
void frames_for(struct run_ctx *x, JsonObject *o, const char *from, const char *to)
{
	JsonNode *n = json_object_get_member(o, from);
	if (!n || !JSON_NODE_HOLDS_ARRAY(n))
		return;
	JsonArray *a = json_node_get_array(n), *f = json_array_new();
	for (guint i = 0; i < json_array_get_length(a); i++)
		json_array_add_int_element(f, frame_of(x, (long)json_array_get_int_element(a, i)));
	json_object_set_array_member(o, to, f);
}
