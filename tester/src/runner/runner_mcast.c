/*
 * The runner's UD multicast: the case's groups at the run's IP version,
 * the DUT's attach (of a group, or of a unicast GID it should refuse),
 * detach and connection-manager join and leave, the tester's side
 * attached to a group, the datagrams to a group (which QP sent them,
 * which expectation takes them), and the IGMP or MLD reports a join or a
 * leave makes the DUT's host send (mcast_report.h).
 */
#include "runner_ctx.h"
#include "mcast_report.h"

/* ---- Groups ---- */

void mcast_groups_begin(struct run_ctx *x)
{
	const struct cl_case *c = x->c;
	x->groups = calloc(c->n_groups ? c->n_groups : 1, sizeof *x->groups);
	if (!x->groups)
		abort();
	for (unsigned i = 0; i < c->n_groups; i++) {
		struct case_group *g = &x->groups[i];
		uint8_t ip[16];
		int v = cl_group_address(&c->groups[i], x->ipv, ip);
		g->cg = &c->groups[i];
		/* The parser took only multicast addresses. */
		roce_mcast_group_from_ip(v, ip, &g->g);
		roce_mcast_group_format(&g->g, g->text, sizeof g->text);
	}
}

struct case_group *group_of(struct run_ctx *x, const char *name)
{
	const struct cl_group *cg = cl_group_named(x->c, name);
	return cg ? &x->groups[cg - x->c->groups] : NULL;
}

int mcast_group_index(struct run_ctx *x, const uint8_t *data, size_t len)
{
	struct roce_pkt pk;
	struct roce_mcast_group g;
	if (!x->c->n_groups || roce_parse_frame(&pk, data, len, len, 0) != ROCE_OK || !roce_pkt_mcast_group(&pk, &g))
		return -1;
	for (unsigned i = 0; i < x->c->n_groups; i++)
		if (roce_mcast_group_equal(&x->groups[i].g, &g))
			return (int)i;
	return -1;
}

struct case_qp *mcast_sender(struct run_ctx *x, const uint8_t *data, size_t len)
{
	struct roce_pkt pk;
	if (roce_parse_frame(&pk, data, len, len, 0) != ROCE_OK || !roce_pkt_has(&pk, ROCE_H_DETH))
		return NULL;
	uint32_t src = roce_deth_srcqp(roce_pkt_hdr(&pk, ROCE_H_DETH));
	for (unsigned i = 0; i < x->n_qps; i++)
		if (x->qps[i].dut_qpn == src)
			return &x->qps[i];
	return NULL;
}

bool mcast_membership_frame(const uint8_t *data, size_t len)
{
	size_t off = 12;
	while (off + 2 <= len) {
		unsigned type = (unsigned)data[off] << 8 | data[off + 1];
		if (type == ROCE_ETHERTYPE_VLAN || type == ROCE_ETHERTYPE_QINQ) {
			off += 4;
			continue;
		}
		const uint8_t *ip = data + off + 2;
		size_t left = len - off - 2;
		if (type == ROCE_ETHERTYPE_IPV4)
			return left >= 20 && ip[9] == 2; /* IGMP */
		return type == ROCE_ETHERTYPE_IPV6 && left >= 40 && ip[6] == 0; /* hop-by-hop first: MLD */
	}
	return false;
}

/* The GID of a group as the agent protocol writes GIDs. */
static void group_gid_text(const struct case_group *g, char *buf, size_t n)
{
	roce_gid_format(g->g.gid, buf, n);
}

bool mcast_group_ah(struct run_ctx *x, struct case_qp *q, struct case_group *g, int64_t *ah, struct step_out *o)
{
	char gid[64];
	group_gid_text(g, gid, sizeof gid);
	return dut_create_ah(x, q, gid, q->rocev1, ah, o);
}

/* ---- Steps ---- */

void step_group(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_group *g = group_of(x, s->group);
	char mac[24], gid[64];
	roce_mac_format(g->g.mac, mac, sizeof mac);
	group_gid_text(g, gid, sizeof gid);
	g_string_printf(o->detail, "group %s: %s (GID %s), MAC %s", s->group, g->text, gid, mac);
}

/* The GID of gid=dut (the DUT port's address of the QP's IP version) or
 * gid=peer (the tester's), as the agent protocol writes GIDs. */
static void unicast_gid_text(struct run_ctx *x, const struct case_qp *q, bool dut, char *buf, size_t n)
{
	struct runner *r = x->r;
	const uint8_t *ip = dut ? r->fam[q->fi].ip : q->ipv == 6 ? r->io.ip6 : r->io.ip4;
	uint8_t gid[16];
	roce_gid_from_ip(q->ipv, ip, gid);
	roce_gid_format(gid, buf, n);
}

/* dut attach ... -> refused: the device is to refuse the attach (of a
 * unicast GID, IBV-MCAST-GID). An agent error other than unsupported is
 * the device's refusal; a success is the check that did not hold. */
static void attach_expect_refusal(struct run_ctx *x, const struct cl_step *s, const char *gid, uint64_t lid,
				  const char *what, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_int_member(p, "qp", q->dut_qp);
	json_object_set_string_member(p, "gid", gid);
	json_object_set_int_member(p, "lid", (gint64)lid);
	if (call(x, o, AP_M_attach_mcast, p, &res)) {
		json_object_unref(res);
		o->st = S_FAIL;
		g_string_printf(o->expected, "the DUT refuses to attach QP %s to %s", q->name, what);
		g_string_printf(o->observed, "attach_mcast succeeded");
		return;
	}
	if (o->st != S_ERROR || !strstr(o->detail->str, "the agent refused"))
		return; /* unsupported (not applicable), or the agent was lost */
	g_string_prepend(o->detail, "refused, as expected: ");
	o->st = S_OK;
}

/* dut attach|detach|join|leave QP GROUP; dut attach QP gid=dut|peer;
 * lid= (CA17-30) and '-> refused' (IBV-MCAST-GID) on an attach */
void step_dut_membership(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct case_group *g = s->group ? group_of(x, s->group) : NULL;
	bool cm = s->kind == CL_DUT_JOIN || s->kind == CL_DUT_LEAVE;
	if (!dut_has(x, cm ? CL_CAP_CM_MCAST : CL_CAP_MCAST, o))
		return;
	/* An attach's MLID (lid=): a RoCEv2 port ignores it (CA17-30). */
	uint64_t lid = 0;
	bool judged_lid = s->kind == CL_DUT_ATTACH && s->a.dut_attach.lid.arg;
	if (judged_lid && !param_u64(x, &s->a.dut_attach.lid, &lid, o))
		return;
	if (lid > 0xFFFF) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "lid=%llu is no LID; expected 16 bits", (unsigned long long)lid);
		return;
	}
	char gid[64], what[160];
	if (s->kind == CL_DUT_ATTACH || s->kind == CL_DUT_DETACH) {
		if (g) {
			group_gid_text(g, gid, sizeof gid);
			snprintf(what, sizeof what, "group %s (%s)", s->group, g->text);
		} else {
			bool dut = s->a.dut_attach.gid.word_id == CL_GID_DUT;
			unicast_gid_text(x, q, dut, gid, sizeof gid);
			snprintf(what, sizeof what, "%s, the unicast GID of the %s's address", gid, dut ? "DUT" : "tester");
		}
	}
	if (s->kind == CL_DUT_ATTACH && s->a.dut_attach.refused.arg) {
		attach_expect_refusal(x, s, gid, lid, what, o);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->dut_qp);
	if (cm) {
		json_object_set_string_member(p, "group", g->text);
	} else {
		json_object_set_string_member(p, "gid", gid);
		json_object_set_int_member(p, "lid", (gint64)lid);
	}
	enum ap_method m = s->kind == CL_DUT_ATTACH ? AP_M_attach_mcast
			 : s->kind == CL_DUT_DETACH ? AP_M_detach_mcast
			 : s->kind == CL_DUT_JOIN ? AP_M_cm_join : AP_M_cm_leave;
	if (s->kind == CL_DUT_JOIN)
		g->join_ns = rawio_now();
	else if (s->kind == CL_DUT_LEAVE)
		g->leave_ns = rawio_now();
	if (!call(x, o, m, p, &res)) {
		/* With an MLID the device's answer is what the step judges: a
		 * refusal is the verb not ignoring it. */
		if (judged_lid && o->st == S_ERROR && strstr(o->detail->str, "the agent refused")) {
			o->st = S_FAIL;
			g_string_printf(o->expected, "attach_mcast of QP %s to %s with MLID 0x%04llx accepted (a RoCEv2 port ignores the MLID)",
					q->name, what, (unsigned long long)lid);
			g_string_printf(o->observed, "%s", o->detail->str);
		}
		return;
	}
	if (s->kind == CL_DUT_JOIN) {
		/* The group's Q_Key: the QP takes it, and the tester's
		 * datagrams to the group carry it. */
		uint64_t qkey;
		if (!agent_get_u64(res, "qkey", &qkey)) {
			json_object_unref(res);
			o->st = S_ERROR;
			g_string_printf(o->detail, "cm_join: the reply has no qkey");
			return;
		}
		g->qkey = (uint32_t)qkey;
		q->dut_qkey = (uint32_t)qkey;
		sym_set(x, s->group, "qkey", qkey);
		g_string_printf(o->detail, "the DUT's QP %s joined group %s (%s): Q_Key 0x%08x", q->name, s->group, g->text, g->qkey);
	} else if (cm) {
		g_string_printf(o->detail, "%s: QP %s, group %s (%s)", ap_method_name(m), q->name, s->group, g->text);
	} else {
		g_string_printf(o->detail, "%s: QP %s, %s", ap_method_name(m), q->name, what);
		if (judged_lid)
			g_string_append_printf(o->detail, ", MLID 0x%04llx accepted", (unsigned long long)lid);
	}
	json_object_unref(res);
}

void step_peer_attach(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct case_group *g = group_of(x, s->group);
	if (peer_mcast_attach(x->r->peer, q->tester_qpn, &g->g) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester's QP 0x%06x could not attach to group %s (attached already, or %d attachments)",
				q->tester_qpn, s->group, PEER_MAX_ATTACH);
		return;
	}
	g_string_printf(o->detail, "the tester's side of QP %s (0x%06x) receives group %s (%s)", q->name, q->tester_qpn, s->group,
			g->text);
}

/* ---- Datagrams to a group ---- */

static int qp_index(struct run_ctx *x, const struct case_qp *q)
{
	return (int)(q - x->qps);
}

bool mcast_pkt_for(struct run_ctx *x, size_t i, const struct cl_step *s, const struct case_qp *q)
{
	const struct case_pkt *p = &x->pkts[i];
	const struct cl_group *cg = cl_group_named(x->c, s->group);
	return !p->tx && cg && p->group == (unsigned)(cg - x->c->groups) + 1 && !(p->group_taken & (1u << qp_index(x, q)));
}

void mcast_take(struct run_ctx *x, size_t i, const struct case_qp *q)
{
	x->pkts[i].group_taken |= 1u << qp_index(x, q);
}

bool mcast_match(struct run_ctx *x, const struct cl_step *s, const struct roce_pkt *pk, struct step_out *o)
{
	struct case_group *g = group_of(x, s->group);
	bool ok = true;
	uint32_t dqp = roce_bth_destqp(roce_pkt_hdr(pk, ROCE_H_BTH));
	if (dqp != ROCE_MCAST_QPN) {
		ok = false;
		g_string_append_printf(o->expected, "DestQP 0xffffff (a datagram to group %s); ", s->group);
		g_string_append_printf(o->observed, "DestQP 0x%06x; ", dqp);
	}
	if (roce_pkt_mcast_mac_status(pk, &g->g) == ROCE_MCAST_MAC_WRONG) {
		char want[24], got[24];
		roce_mac_format(g->g.mac, want, sizeof want);
		roce_mac_format(roce_pkt_eth_dst(pk), got, sizeof got);
		ok = false;
		g_string_append_printf(o->expected, "destination MAC %s (group %s's); ", want, g->text);
		g_string_append_printf(o->observed, "destination MAC %s; ", got);
	}
	return ok;
}

/* ---- Membership reports ---- */

/* The first report from the DUT's MAC, not yet taken, that joins the
 * group (leave: that says the host left it) and came between from and to;
 * -1 if none. */
static long find_report(struct run_ctx *x, const struct case_group *g, bool leave, uint64_t from, uint64_t to,
			struct mcast_report *rep)
{
	for (size_t i = 0; i < x->n_pkts; i++) {
		struct case_pkt *p = &x->pkts[i];
		bool join = false;
		if (p->tx || p->consumed || p->ts_ns < from || p->ts_ns > to || !from_dut(x->r, p->data, p->len) ||
		    !mcast_report_parse(p->data, p->len, rep) || !mcast_report_names(rep, g->g.ip_version, g->g.ip, &join) ||
		    join == leave)
			continue;
		return (long)i;
	}
	return -1;
}

/* expect join GROUP [within T] / expect no join GROUP within T /
 * expect leave GROUP [within T] */
void step_expect_join(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_group *g = group_of(x, s->group);
	bool none = s->kind == CL_EXPECT_NO_JOIN, leave = s->kind == CL_EXPECT_LEAVE;
	const char *what = leave ? "leaving" : "joining";
	uint64_t start = x->ref_ns;
	uint64_t end = start + (s->has_within ? s->within_max : x->r->opts.default_wait_ns);
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	struct mcast_report rep;
	char sum[200];
	long idx = -1;
	/* A join's report may have come while the agent joined (a leave's
	 * while it left): any not yet taken since that step began counts;
	 * silence is watched over the window only. */
	uint64_t since = leave ? g->leave_ns : g->join_ns;
	for (;;) {
		idx = find_report(x, g, leave, none ? start : since, none ? end : UINT64_MAX, &rep);
		if (idx >= 0 || rawio_now() >= end || interrupted(x->r))
			break;
		pump_until(x->r, -1, end, !none);
	}
	if (idx >= 0) {
		struct case_pkt *p = &x->pkts[idx];
		p->consumed = true;
		o->pkts[o->n_pkts++] = idx;
		mcast_report_summary(&rep, sum, sizeof sum);
		double ms = p->ts_ns > start ? (double)(p->ts_ns - start) / 1e6 : 0;
		if (none) {
			o->st = S_FAIL;
			g_string_printf(o->expected, "no IGMP or MLD report from the DUT joining group %s (%s) within %.3f ms", s->group,
					g->text, (double)(end - start) / 1e6);
			g_string_printf(o->observed, "%s after %.3f ms", sum, ms);
			annotate(x, idx, "step %d (line %u) expected no join; observed this", x->cur_step + 1, s->loc.line);
		} else {
			g_string_printf(o->detail, "%s after %.3f ms", sum, ms);
			annotate(x, idx, "matched step %d (line %u): the DUT's report %s group %s", x->cur_step + 1, s->loc.line,
				 leave ? "leaves" : "joins", s->group);
			if (p->ts_ns > x->ref_ns)
				x->ref_ns = p->ts_ns;
		}
		return;
	}
	if (none) {
		x->ref_ns = end;
		return;
	}
	o->st = S_FAIL;
	g_string_printf(o->expected, "an IGMP or MLD report from the DUT %s group %s (%s) within %.3f ms", what, s->group,
			g->text, (double)(end - start) / 1e6);
	g_string_printf(o->observed, "no report from the DUT's MAC that %s %s", leave ? "leaves" : "names", g->text);
	x->ref_ns = end;
}
