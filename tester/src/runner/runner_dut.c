/*
 * The runner's DUT steps: verbs on the DUT through the agent (memory
 * regions, QPs brought up against the tester's peer QP, work requests,
 * memory reads and writes, QP queries and modifications).
 */
#include "runner_ctx.h"

/* ---- Agent calls ---- */

bool call(struct run_ctx *x, struct step_out *o, enum ap_method m, JsonObject *params, JsonObject **res)
{
	struct runner *r = x->r;
	JsonObject *result = NULL;
	const char *method = ap_method_name(m);
	enum agent_status st = agent_call(&r->agent, m, params, r->opts.agent_timeout_ns, &result);
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

bool dut_has(struct run_ctx *x, unsigned cap, struct step_out *o)
{
	struct runner *r = x->r;
	if (!r->dut_device || (r->dut_caps & cap))
		return true;
	char name[CL_CAPS_TEXT];
	cl_caps_format(cap, name, sizeof name);
	o->st = S_NA;
	g_string_printf(o->detail, "the DUT lacks %s (query_device does not list it)", name);
	return false;
}

/* access=, as written or its default's flags, by the protocol's names;
 * only_write: of the default, REMOTE_WRITE alone (a UC QP has no READ or
 * atomics). */
static JsonArray *access_list(const struct cl_param *p, bool only_write)
{
	JsonArray *a = json_array_new();
	unsigned flags = p->flags;
	if (!p->arg && only_write)
		flags &= AP_ACCESS_REMOTE_WRITE;
	for (const char *const *w = ap_access_words; *w; w++)
		if (flags & (unsigned)ap_access_by_name(*w))
			json_array_add_string_element(a, *w);
	return a;
}

bool ensure_pd(struct run_ctx *x, struct step_out *o)
{
	if (x->have_pd)
		return true;
	JsonObject *res;
	if (!call(x, o, AP_M_alloc_pd, NULL, &res))
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
void hex_text(char *out, size_t n, const uint8_t *d, size_t len)
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

void step_dut_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	const struct cl_dut_mr_args *a = &s->a.dut_mr;
	uint64_t size, fill;
	int64_t pd;
	if (!param_u64(x, &a->size, &size, o) || !param_u64(x, &a->fill, &fill, o) || !pd_handle(x, s->pd, &pd, o))
		return;
	if (x->n_mrs == MAX_MRS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d MRs in one case", MAX_MRS);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", pd);
	agent_set_u64(p, "length", size);
	json_object_set_array_member(p, "access", access_list(&a->access, false));
	json_object_set_int_member(p, "fill", (gint64)(fill & 0xFF));
	if (!call(x, o, AP_M_reg_mr, p, &res))
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
void make_endpoint(struct run_ctx *x, const struct case_qp *q, uint8_t tc, uint32_t fl, uint16_t sport,
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

/* The bring-up's transitions, by the state each reaches. */
static const enum ap_qp_state bringup_states[3] = { AP_QPS_INIT, AP_QPS_RTR, AP_QPS_RTS };

static int bringup_index(enum ap_qp_state state)
{
	for (int i = 0; i < 3; i++)
		if (state == bringup_states[i])
			return i;
	return -1;
}

/* Moves a case QP; the transition's attributes are remembered (bring-up)
 * or completed from what the bring-up would have given (a later modify
 * along the same path). */
static bool modify(struct run_ctx *x, struct step_out *o, struct case_qp *q, enum ap_qp_state state, JsonObject *attrs,
		   bool remember)
{
	int bi = bringup_index(state);
	bool next_in_path = bi >= 0 && q->state == (bi ? bringup_states[bi - 1] : AP_QPS_RESET);
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
	json_object_set_string_member(attrs, "state", ap_qp_state_name(state));
	if (!call(x, o, AP_M_modify_qp, attrs, NULL))
		return false;
	q->state = state;
	return true;
}

bool dut_create_ah(struct run_ctx *x, const struct case_qp *q, const char *dgid, bool v1, int64_t *ah, struct step_out *o)
{
	struct runner *r = x->r;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", x->pd);
	json_object_set_string_member(p, "dgid", dgid);
	json_object_set_int_member(p, "sgid_index", v1 ? r->fam[q->fi].sgid_index_v1 : r->fam[q->fi].sgid_index);
	json_object_set_int_member(p, "hop_limit", q->hop_limit);
	json_object_set_int_member(p, "traffic_class", q->tc);
	json_object_set_int_member(p, "flow_label", q->flow_label);
	json_object_set_int_member(p, "sl", q->sl);
	json_object_set_int_member(p, "port", 1);
	if (!call(x, o, AP_M_create_ah, p, &res))
		return false;
	uint64_t h;
	bool ok = agent_get_u64(res, "ah", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_ah: the reply has no ah handle");
		return false;
	}
	*ah = (int64_t)h;
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
	return dut_create_ah(x, q, gid, v1, &q->dut_ah[v1], o);
}

void step_dut_qp(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct runner *r = x->r;
	if (x->n_qps == MAX_QPS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d QPs in one case", MAX_QPS);
		return;
	}
	const struct cl_dut_qp_args *a = &s->a.dut_qp;
	int qpt = param_choice(&a->type, AP_QPT_RC);
	enum roce_transport t = cl_qp_transport((enum ap_qp_type)qpt);
	int xrc = cl_qp_type_xrc(qpt);
	/* XRC: the initiator sends, the target receives (rxe: XRC_INI,
	 * XRC_TGT); each has the attributes of its side of RC. */
	bool sends = t == ROCE_T_RC || xrc == CL_XRC_SEND, receives = t == ROCE_T_RC || xrc == CL_XRC_RECV;
	uint64_t pmtu, psn, peer_psn, timeout, retry, rnr_retry, min_rnr, max_rd, max_dest_rd, qkey, tc, hl, fl,
		sport, peer_timeout, peer_retry;
	/* A UD message may take the whole port MTU unless the case says less. */
	if (!param_u64_run(x, &a->pmtu, t == ROCE_T_UD ? dut_port_mtu(r) : x->c->pmtu, &pmtu, o) ||
	    !param_u64_run(x, &a->psn, random_psn(), &psn, o) || !param_u64_run(x, &a->peer_psn, random_psn(), &peer_psn, o) ||
	    !param_u64(x, &a->timeout, &timeout, o) || !param_u64(x, &a->retry_cnt, &retry, o) ||
	    !param_u64(x, &a->rnr_retry, &rnr_retry, o) || !param_u64(x, &a->min_rnr_timer, &min_rnr, o) ||
	    !param_u64(x, &a->max_rd_atomic, &max_rd, o) || !param_u64(x, &a->max_dest_rd_atomic, &max_dest_rd, o) ||
	    !param_u64(x, &a->qkey, &qkey, o) || !param_u64(x, &a->traffic_class, &tc, o) ||
	    !param_u64(x, &a->hop_limit, &hl, o) || !param_u64(x, &a->flow_label, &fl, o) ||
	    !param_u64(x, &a->udp_sport, &sport, o) || !param_u64(x, &a->peer_timeout, &peer_timeout, o) ||
	    !param_u64(x, &a->peer_retry_cnt, &peer_retry, o))
		return;
	/* The SL of the DUT's address vector: by default the run's priority. */
	uint64_t sl;
	if (!param_u64_run(x, &a->sl, r->opts.vlan >= 0 ? (uint64_t)r->opts.vlan_pcp : 0, &sl, o))
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
	if (!param_u64_run(x, &a->ip, (uint64_t)x->ipv, &ipv, o))
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
	bool v1 = param_choice(&a->proto, CL_PROTO_V2) == CL_PROTO_V1;
	if (v1 && r->fam[ipv == 6].sgid_index_v1 < 0) {
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT lists no RoCE v1 GID for IPv%d: not a dual-mode port", (int)ipv);
		return;
	}
	enum ap_qp_state upto = (enum ap_qp_state)param_choice(&a->state, AP_QPS_RTS);
	int64_t pd;
	if (!pd_handle(x, s->pd, &pd, o))
		return;
	struct case_qp *q = &x->qps[x->n_qps];
	memset(q, 0, sizeof *q);
	q->name = s->name;
	q->type = t;
	q->ipv = (int)ipv;
	q->fi = ipv == 6;
	q->state = AP_QPS_RESET;
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
	q->xrc = xrc;
	q->xrcd = a->xrcd.arg ? a->xrcd.arg->v.word : NULL;
	JsonObject *p, *res;
	uint64_t h;
	bool ok;
	if (xrc == CL_XRC_RECV) {
		/* A target has no CQ: its receives complete on the CQ of the
		 * XRC SRQ each request names (runner_xrc.c). */
		const struct case_srq *first = xrc_first_srq(x, q->xrcd);
		q->dut_cq = first ? first->cq : -1;
	} else {
		p = json_object_new();
		json_object_set_int_member(p, "cqe", 256);
		if (!call(x, o, AP_M_create_cq, p, &res))
			return;
		ok = agent_get_u64(res, "cq", &h);
		json_object_unref(res);
		if (!ok) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "create_cq: the reply has no cq handle");
			return;
		}
		q->dut_cq = (int64_t)h;
	}
	p = json_object_new();
	json_object_set_int_member(p, "pd", pd);
	json_object_set_string_member(p, "type", xrc ? ap_qp_type_name((enum ap_qp_type)qpt) : roce_transport_name(t));
	if (xrc == CL_XRC_RECV) {
		json_object_set_int_member(p, "xrcd", xrcd_of(x, q->xrcd)->handle);
	} else {
		json_object_set_int_member(p, "send_cq", q->dut_cq);
		if (!xrc)
			json_object_set_int_member(p, "recv_cq", q->dut_cq);
	}
	json_object_set_boolean_member(p, "sq_sig_all", FALSE);
	const struct case_srq *srq = a->srq.arg ? srq_of(x, a->srq.arg->v.word, false) : NULL;
	if (srq) /* its receives come from the SRQ */
		json_object_set_int_member(p, "srq", srq->handle);
	if (!call(x, o, AP_M_create_qp, p, &res))
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
		json_object_set_array_member(p, "access", access_list(&a->access, t == ROCE_T_UC));
	/* state=RESET: the DUT's connection manager brings it up (dut listen). */
	bool reset = upto == AP_QPS_RESET;
	if (reset) {
		q->bringup[0] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, AP_QPS_INIT, p, true)) {
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
		if (receives) {
			json_object_set_int_member(p, "max_dest_rd_atomic", (gint64)max_dest_rd);
			json_object_set_int_member(p, "min_rnr_timer", (gint64)min_rnr);
		}
	}
	bool stop = reset || upto == AP_QPS_INIT;
	if (stop) {
		q->bringup[1] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, AP_QPS_RTR, p, true)) {
		return;
	}
	p = json_object_new();
	json_object_set_int_member(p, "sq_psn", q->dut_psn);
	if (sends || xrc == CL_XRC_RECV)
		json_object_set_int_member(p, "timeout", (gint64)timeout);
	if (sends) {
		json_object_set_int_member(p, "retry_cnt", (gint64)retry);
		json_object_set_int_member(p, "rnr_retry", (gint64)rnr_retry);
		json_object_set_int_member(p, "max_rd_atomic", (gint64)max_rd);
	}
	stop = stop || upto == AP_QPS_RTR;
	if (stop) {
		q->bringup[2] = json_object_ref(p);
		json_object_unref(p);
	} else if (!modify(x, o, q, AP_QPS_RTS, p, true)) {
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
	const struct case_srq *psrq = a->peer_srq.arg ? srq_of(x, a->peer_srq.arg->v.word, true) : NULL;
	/* The tester's side of a DUT XRC target is an initiator naming the
	 * domain's first XRC SRQ (a later one: runner_xrc.c). */
	const struct case_srq *xsrq = xrc == CL_XRC_RECV ? xrc_first_srq(x, q->xrcd) : NULL;
	if (peer_qp_add(r->peer, &cfg) != 0 || (psrq && peer_qp_set_srq(r->peer, q->tester_qpn, psrq->id) != 0) ||
	    (xsrq && peer_qp_set_xrc_srqn(r->peer, q->tester_qpn, xsrq->srqn) != 0)) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester could not add QP 0x%06x%s", q->tester_qpn, psrq ? " with its SRQ" : "");
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
	     ap_qp_state_name(q->state));
}

JsonArray *sge_list(struct case_mr *m, uint64_t off, uint64_t len)
{
	JsonArray *a = json_array_new();
	JsonObject *e = json_object_new();
	json_object_set_int_member(e, "mr", m->handle);
	agent_set_u64(e, "offset", off);
	agent_set_u64(e, "length", len);
	json_array_add_object_element(a, e);
	return a;
}

void dut_post_recv(struct run_ctx *x, const struct cl_step *s, enum ap_method method, const char *member, int64_t handle,
		   struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_post_recv_args *a = &s->a.post_recv;
	uint64_t off, len, wr_id;
	if (!param_u64(x, &a->offset, &off, o) || !param_u64_run(x, &a->len, m->len, &len, o) ||
	    !param_u64_run(x, &a->wr_id, (uint64_t)x->cur_step, &wr_id, o))
		return;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, member, handle);
	agent_set_u64(p, "wr_id", wr_id);
	json_object_set_array_member(p, "sge", sge_list(m, off, len));
	call(x, o, method, p, NULL);
}

void step_post_recv(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	if (s->srq) {
		step_post_srq_recv(x, s, o);
		return;
	}
	dut_post_recv(x, s, AP_M_post_recv, "qp", find_qp(x, s->qp)->dut_qp, o);
}

void step_post_send(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct case_mr *m = s->mr ? find_mr(x, s->mr) : NULL;
	const struct cl_post_send_args *a = &s->a.post_send;
	uint64_t off, len, wr_id, v;
	if (!param_u64(x, &a->offset, &off, o) || !param_u64_run(x, &a->len, m ? m->len : 0, &len, o) ||
	    !param_u64_run(x, &a->wr_id, (uint64_t)x->cur_step, &wr_id, o))
		return;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "qp", q->dut_qp);
	agent_set_u64(p, "wr_id", wr_id);
	json_object_set_string_member(p, "opcode", ap_wr_opcode_name((enum ap_wr_opcode)s->op));
	json_object_set_array_member(p, "sge", m ? sge_list(m, off, len) : json_array_new());
	json_object_set_boolean_member(p, "signaled", param_choice(&a->signaled, CL_ON) != CL_OFF);
	if (param_choice(&a->solicited, CL_OFF) == CL_ON)
		json_object_set_boolean_member(p, "solicited", TRUE);
	/* The work request's numbers, those the case gives. */
	const struct {
		const struct cl_param *arg;
		const char *member;
	} nums[] = { { &a->remote, "remote_addr" }, { &a->rkey, "rkey" }, { &a->imm, "imm_data" }, { &a->compare, "compare_add" },
		     { &a->add, "compare_add" }, { &a->swap, "swap" }, { &a->invalidate, "invalidate_rkey" } };
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
		if (!nums[i].arg->arg)
			continue;
		if (!param_u64(x, nums[i].arg, &v, o)) {
			json_object_unref(p);
			return;
		}
		agent_set_u64(p, nums[i].member, v);
	}
	if (q->type == ROCE_T_UD) {
		uint64_t qk;
		if (!param_u64_run(x, &a->remote_qkey, q->tester_qkey, &qk, o)) {
			json_object_unref(p);
			return;
		}
		bool v1 = param_choice(&a->proto, q->rocev1 ? CL_PROTO_V1 : CL_PROTO_V2) == CL_PROTO_V1;
		/* To a group: an address handle with its GID, the multicast QPN. */
		struct case_group *g = s->group ? group_of(x, s->group) : NULL;
		int64_t gah = -1;
		if (g ? !mcast_group_ah(x, q, g, &gah, o) : !ud_ah(x, q, v1, o)) {
			json_object_unref(p);
			return;
		}
		json_object_set_int_member(p, "ah", g ? gah : q->dut_ah[v1]);
		json_object_set_int_member(p, "remote_qpn", g ? ROCE_MCAST_QPN : q->tester_qpn);
		agent_set_u64(p, "remote_qkey", qk);
	}
	if (!post_send_extras(x, s, q, p, o)) {
		json_object_unref(p);
		return;
	}
	if (call(x, o, AP_M_post_send, p, NULL))
		q->posted++;
}

void step_dut_write(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	uint64_t off;
	if (!param_u64(x, &s->a.dut_write.offset, &off, o))
		return;
	const struct cl_arg *d = s->a.dut_write.data.arg;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off);
	b64_member(p, "data", d->v.bytes, d->v.n_bytes);
	call(x, o, AP_M_write_mr, p, NULL);
}

/* The DUT memory check of a UD receive's first 40 bytes (A17.4.5): the L3
 * header of the last packet the tester sent to the QP; of an IPv4 header,
 * bytes 20..39 only (0..19 are undefined). */
static void step_dut_read_l3(struct run_ctx *x, const struct cl_step *s, struct step_out *o, const char *qpname)
{
	struct case_mr *m = find_mr(x, s->mr);
	struct case_qp *q = find_qp(x, qpname);
	uint64_t off;
	if (!param_u64(x, &s->a.dut_read.offset, &off, o))
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
	if (!call(x, o, AP_M_read_mr, p, &res))
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

void step_dut_read(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_dut_read_args *a = &s->a.dut_read;
	const struct cl_arg *l3 = a->l3_header.arg;
	if (l3) {
		step_dut_read_l3(x, s, o, l3->v.word);
		return;
	}
	const struct cl_arg *d = a->data.arg;
	uint64_t off, len;
	if (!param_u64(x, &a->offset, &off, o) || !param_u64_run(x, &a->len, d->v.n_bytes, &len, o))
		return;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off);
	agent_set_u64(p, "length", len);
	if (!call(x, o, AP_M_read_mr, p, &res))
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

void step_dut_query(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->dut_qp);
	if (!call(x, o, AP_M_query_qp, p, &res))
		return;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_state) {
			const char *st = json_object_has_member(res, "state") ? json_object_get_string_member(res, "state") : "?";
			bool eq = st && ap_qp_state_by_name(st) == a->v.word_id;
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
		if (!check_number(x, a, got, o))
			break;
	}
	json_object_unref(res);
}

void step_dut_modify(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	JsonObject *p = json_object_new();
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_state)
			continue;
		if (a->id == CL_K_access) {
			json_object_set_array_member(p, "access", access_list(&s->a.dut_modify.access, false));
			continue;
		}
		uint64_t v;
		if (!eval(x, &a->v.expr, &v, o)) {
			json_object_unref(p);
			return;
		}
		agent_set_u64(p, a->key, v);
	}
	modify(x, o, q, (enum ap_qp_state)param_choice(&s->a.dut_modify.state, AP_QPS_RTS), p, false);
}
