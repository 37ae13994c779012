/*
 * The runner: runs one case (see runner.h). Orchestration: the agent
 * session, what the run learns about the DUT, the steps in order, the
 * verdict and the case's record; and the helpers every runner file uses.
 */
#include "runner_ctx.h"
#include "counters.h"

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

/* ---- Small helpers ---- */

/* The DUT port's active MTU (query_port), or 4096 when it did not say. */
unsigned dut_port_mtu(struct runner *r)
{
	uint64_t mtu = 0;
	if (r->dut_port && agent_get_u64(r->dut_port, "active_mtu", &mtu) && mtu)
		return (unsigned)mtu;
	return 4096;
}

/* Text in the fixed buffers below is bounded by design (names, numbers,
 * addresses); were it ever longer, it is cut visibly (text.h). Text of the
 * case, the DUT and the agent lives in GLib strings. */
void outf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(buf, n, fmt, ap);
	va_end(ap);
}

void appendf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vappendf(buf, n, fmt, ap);
	va_end(ap);
}

bool interrupted(struct runner *r)
{
	return r->interrupted && *r->interrupted;
}

void add_failed_rule(struct run_ctx *x, const char *id)
{
	for (guint i = 0; i < json_array_get_length(x->failed_rules); i++)
		if (!strcmp(json_array_get_string_element(x->failed_rules, i), id))
			return;
	json_array_add_string_element(x->failed_rules, id);
}

void event(struct run_ctx *x, const char *fmt, ...)
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

/* ---- The case ---- */

static void trim_sep(GString *s)
{
	size_t n = s->len;
	while (n && (s->str[n - 1] == ' ' || s->str[n - 1] == ';'))
		n--;
	g_string_truncate(s, n);
}

void step_out_init(struct step_out *o)
{
	memset(o, 0, sizeof *o);
	o->detail = g_string_new(NULL);
	o->expected = g_string_new(NULL);
	o->observed = g_string_new(NULL);
}

void step_out_free(struct step_out *o)
{
	if (o->record)
		json_object_unref(o->record);
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
	case CL_LOAD: step_load(x, s, o); break;
	case CL_GROUP: step_group(x, s, o); break;
	case CL_DUT_ATTACH:
	case CL_DUT_DETACH:
	case CL_DUT_JOIN:
	case CL_DUT_LEAVE: step_dut_membership(x, s, o); break;
	case CL_EXPECT_JOIN:
	case CL_EXPECT_NO_JOIN:
	case CL_EXPECT_LEAVE: step_expect_join(x, s, o); break;
	case CL_PEER_ATTACH: step_peer_attach(x, s, o); break;
	case CL_DUT_SRQ:
		if (s->xrcd)
			step_dut_xrc_srq(x, s, o);
		else
			step_dut_srq(x, s, o);
		break;
	case CL_DUT_ARM: step_dut_arm(x, s, o); break;
	case CL_DUT_QUERY_SRQ: step_dut_query_srq(x, s, o); break;
	case CL_EXPECT_EVENT:
	case CL_EXPECT_NO_EVENT: step_expect_event(x, s, o); break;
	case CL_PEER_SRQ: step_peer_srq(x, s, o); break;
	case CL_DUT_MW: step_dut_mw(x, s, o); break;
	case CL_DUT_BIND: step_dut_bind(x, s, o); break;
	case CL_DUT_XRCD: step_dut_xrcd(x, s, o); break;
	case CL_DUT_PORT: step_dut_port(x, s, o); break;
	case CL_DUT_GIDS: step_dut_gids(x, s, o); break;
	case CL_DUT_RAW_QP: step_dut_raw_qp(x, s, o); break;
	case CL_DUT_PD: step_dut_pd(x, s, o); break;
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
	JsonObject *res = NULL;
	if (agent_authenticate(&r->agent, r->token, r->opts.agent_timeout_ns, &res) != AGENT_OK) {
		g_string_assign(err, r->agent.fail_msg->str);
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
		if (agent_call(&r->agent, AP_M_bye, NULL, r->opts.agent_timeout_ns, &res) == AGENT_OK)
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
	if (o->record)
		json_object_set_object_member(j, "load", json_object_ref(o->record));
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
	case_clocks_step(j, x->c, idx, &x->r->io);
	return j;
}

bool family_usable(struct runner *r, int ipv, char *why, size_t n)
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
	if (call(x, &o, AP_M_query_device, NULL, &res)) {
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
	if (call(x, &o, AP_M_query_port, p, &res))
		r->dut_port = res;
	p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	if (call(x, &o, AP_M_list_gids, p, &res)) {
		JsonNode *gn = json_object_get_member(res, "gids");
		if (gn && JSON_NODE_HOLDS_ARRAY(gn))
			r->dut_gids = json_array_ref(json_node_get_array(gn));
		json_object_unref(res);
	}
	for (int fi = 0; fi < 2; fi++) {
		int ipv = fi ? 6 : 4;
		const char *override = fi ? r->opts.dut_ip6 : r->opts.dut_ip4;
		struct agent_gid pick;
		bool have = agent_pick_rocev2_gid(r->dut_gids, ipv, override, &pick);
		if (have) {
			r->fam[fi].sgid_index = pick.index;
			memcpy(r->fam[fi].ip, pick.ip, ipv == 4 ? 4 : ROCE_GID_LEN);
			outf(r->fam[fi].gid, sizeof r->fam[fi].gid, "%s", pick.gid);
		}
		/* A dual-mode port: the RoCE v1 GID of the same address. */
		r->fam[fi].sgid_index_v1 = -1;
		for (guint i = 0; have && r->dut_gids && i < json_array_get_length(r->dut_gids); i++) {
			JsonObject *g = json_array_get_object_element(r->dut_gids, i);
			const char *gid = json_object_has_member(g, "gid") ? json_object_get_string_member(g, "gid") : NULL;
			const char *type = json_object_has_member(g, "type") ? json_object_get_string_member(g, "type") : NULL;
			uint8_t a[16], b[16];
			if (!gid || !type || ap_gid_type_by_name(type) != AP_GID_RoCEv1 || inet_pton(AF_INET6, gid, a) != 1 ||
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
	g_array_free(x->flow_findings, TRUE);
	case_counters_free(x->counters);
	free(x->groups);
	g_free(x->first_informative);
	free(x->series);
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
	x->flow_findings = g_array_new(FALSE, FALSE, sizeof(struct flow_finding));
	mcast_groups_begin(x);
	case_clocks_begin(&x->clocks, &r->io);
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
	/* What the case requires and what its steps use (dut srq, attach, join, expect event). */
	unsigned need = ((c->caps | c->uses_caps) & ~CL_CAP_VLAN) | (ip_version == 4 ? CL_CAP_IPV4 : CL_CAP_IPV6);
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
	if (v == V_PASS) {
		sym_set(x, "port", "mtu", dut_port_mtu(r));
		x->counters = case_counters_begin(&r->agent, r->opts.agent_timeout_ns, &r->counter_ports);
	}
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
		 * is reported, and the case ends there, informative. So is one
		 * that a DUT packet with a wrong ICRC before it kept from its
		 * rule (the packet checks judge that packet). */
		unsigned bound[64], nb = 0;
		if (o.st == S_FAIL && s->unreached) {
			/* A precondition that does not hold: no rule of the case
			 * is reached, none is judged. */
			report_precondition_unmet(x, s, (unsigned)i, &o);
			x->stop = true;
		} else if (o.st == S_FAIL && report_unreached(x, s, (unsigned)i, &o)) {
			x->stop = true;
		} else if (o.st == S_FAIL && !(nb = cl_binding_rules(c, ip_version, s->roles, bound, 64))) {
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
	/* A case that lost its agent: the DUT stopped answering. After a
	 * packet of the case's own making that is the DUT's failure (CA17-23),
	 * whatever the step that noticed; before any, the agent's (error). */
	bool lost = session && (v == V_FAIL || v == V_ERROR) && dut_agent_lost(r);
	if (lost)
		v = dut_stopped_answering(x, v, reason, NULL);
	/* Let late packets of the case arrive before judging and closing. */
	if (session && v != V_ERROR)
		pump_until(r, -1, rawio_now() + 5 * NS_PER_MS, false);
	if (x->counters) {
		case_counters_end(x->counters, &r->agent, r->opts.agent_timeout_ns, rawio_now());
		check_counters(x);
	}
	/* A DUT whose wire went silent, its agent still answering: after a
	 * case that injected packets, a known-good exchange (runner_alive.c),
	 * after the counters: its packets are none of the case's. */
	if (session && !lost && (v == V_PASS || v == V_FAIL))
		v = dut_alive_after_case(x, v, reason);
	check_traffic(x);
	note_suppressed_findings(x);
	mark_provoked_findings(x);
	/* Packets that broke a rule fail a case that otherwise passed (the
	 * reason names the first, once the messages are all said: after
	 * flush_packets). */
	bool broke = v == V_PASS && x->pkt_error;
	if (broke)
		v = V_FAIL;
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
	if (session)
		session_close(r);
	char label[256];
	outf(label, sizeof label, "%s [IPv%d]", c->id, ip_version);
	JsonArray *packets = flush_packets(x, label);
	for (guint i = 0; broke && i < json_array_get_length(x->findings); i++) {
		JsonObject *f = json_array_get_object_element(x->findings, i);
		if (!strcmp(json_object_get_string_member(f, "severity"), "error")) {
			bool traffic = !strcmp(json_object_get_string_member(f, "source"), "traffic check");
			g_string_printf(reason, "%s: %s: %s",
			     traffic ? "the DUT's traffic breaks a rule" : "the DUT sent a packet that breaks a rule",
			     json_object_get_string_member(f, "rule"), json_object_get_string_member(f, "message"));
			break;
		}
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
		if (x->probe_qpn && tm[i].qpn == x->probe_qpn)
			continue; /* the liveness probe's */
		JsonObject *j = json_object_new();
		struct case_qp *q = qp_by_tester_qpn(x, tm[i].qpn);
		json_object_set_string_member(j, "qp", q ? q->name : "");
		json_object_set_int_member(j, "psn", tm[i].psn);
		json_object_set_string_member(j, "opcode", roce_opcode(tm[i].opcode)->name ? roce_opcode(tm[i].opcode)->name : "?");
		json_object_set_string_member(j, "what", tm[i].what);
		json_object_set_int_member(j, "rx_ns", (gint64)tm[i].rx_ns);
		json_object_set_int_member(j, "delta_ns", (gint64)tm[i].delta_ns);
		char clk[32];
		json_object_set_string_member(j, "clocks", case_clocks_timing(&r->io, clk, sizeof clk));
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
	json_object_set_object_member(rec, "counters", case_counters_json(x->counters));
	json_object_set_object_member(rec, "clocks", case_clocks_json(&x->clocks, &r->io));
	json_object_set_object_member(rec, "series", series_json(x, json_array_get_length(steps), t_start));
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
	if (r->alive_probe)
		cl_case_free(r->alive_probe);
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
					   : "UDP port " G_STRINGIFY(ROCE_UDP_PORT) " held by the tester: the kernel sends no ICMP port unreachable");
	JsonObject *io_path = json_object_new();
	json_object_set_string_member(io_path, "name", rawio_path_name(r->io.path));
	json_object_set_string_member(io_path, "note", r->io.path_note);
	json_object_set_object_member(i, "io_path", io_path);
	JsonObject *bypass = json_object_new();
	json_object_set_boolean_member(bypass, "attached", r->io.stack_bypass >= 0);
	json_object_set_string_member(bypass, "note", r->io.stack_bypass_note);
	json_object_set_object_member(i, "stack_bypass", bypass);
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
