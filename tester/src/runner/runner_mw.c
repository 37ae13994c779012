/*
 * The runner's memory windows and IBTA 1.5 placement operations: the DUT's
 * windows through the agent (alloc_mw, on the case's PD or another 'dut
 * pd' made; a bind by the bind_mw verb for type 1 or a BIND_MW work
 * request for type 2, each waited for on the QP's send CQ and checked
 * against the status the case expects), the work
 * requests' own arguments (ATOMIC_WRITE's value, FLUSH's placement and
 * level, XRC_SEND's remote_srqn), the FETH, ATOMIC WRITE payload, IETH
 * and XRCETH of injected packets, and the tester's atomic_write and flush.
 */
#include "runner_ctx.h"

static struct case_mw *mw_of(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; name && i < x->n_mws; i++)
		if (!strcmp(x->mws[i].name, name))
			return &x->mws[i];
	return NULL;
}

void step_dut_pd(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	if (x->n_pds == MAX_PDS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d protection domains of its own in one case", MAX_PDS);
		return;
	}
	JsonObject *res;
	if (!call(x, o, AP_M_alloc_pd, NULL, &res))
		return;
	uint64_t h;
	bool ok = agent_get_u64(res, "pd", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "alloc_pd: the reply has no pd handle");
		return;
	}
	x->pds[x->n_pds++] = (struct case_pd){ s->name, (int64_t)h };
	g_string_printf(o->detail, "protection domain %s", s->name);
}

bool pd_handle(struct run_ctx *x, const char *name, int64_t *out, struct step_out *o)
{
	if (!name) {
		if (!ensure_pd(x, o))
			return false;
		*out = x->pd;
		return true;
	}
	for (unsigned i = 0; i < x->n_pds; i++) {
		if (!strcmp(x->pds[i].name, name)) {
			*out = x->pds[i].handle;
			return true;
		}
	}
	/* The parser let only a 'dut pd' above through. */
	o->st = S_ERROR;
	g_string_printf(o->detail, "protection domain %s was not made", name);
	return false;
}

void step_dut_mw(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t type;
	int64_t pd;
	if (!param_u64(x, &s->a.dut_mw.type, &type, o) || !dut_has(x, type == 1 ? CL_CAP_MW1 : CL_CAP_MW2, o) ||
	    !pd_handle(x, s->pd, &pd, o))
		return;
	if (x->n_mws == MAX_MWS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d memory windows in one case", MAX_MWS);
		return;
	}
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", pd);
	json_object_set_int_member(p, "type", (gint64)type);
	if (!call(x, o, AP_M_alloc_mw, p, &res))
		return;
	uint64_t h, rkey;
	bool ok = agent_get_u64(res, "mw", &h) && agent_get_u64(res, "rkey", &rkey);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "alloc_mw: the reply lacks mw or rkey");
		return;
	}
	struct case_mw *w = &x->mws[x->n_mws++];
	*w = (struct case_mw){ s->name, (int)type, (int64_t)h, (uint32_t)rkey };
	sym_set(x, s->name, "rkey", w->rkey);
	g_string_printf(o->detail, "window %s of type %d, rkey 0x%08x", s->name, w->type, w->rkey);
}

/* The access words of a bind, by the protocol's names. */
static JsonArray *bind_access(const struct cl_param *p)
{
	JsonArray *a = json_array_new();
	for (const char *const *w = ap_access_words; *w; w++)
		if (p->flags & (unsigned)ap_access_by_name(*w))
			json_array_add_string_element(a, *w);
	return a;
}

/* Waits for the completion of wr_id on the QP's send CQ (a bind), up to
 * end; NULL when none came (o is untouched) or the poll failed. */
static JsonObject *bind_completion(struct run_ctx *x, struct case_qp *q, uint64_t wr_id, uint64_t end, struct step_out *o)
{
	for (;;) {
		JsonObject *wc;
		if (!dut_poll_one(x, q, &wc, o))
			return NULL;
		uint64_t id;
		if (wc && agent_get_u64(wc, "wr_id", &id) && id == wr_id)
			return wc;
		if (wc) {
			/* Another work request's completion: a case that binds
			 * while others are outstanding reads those after. */
			g_string_append_printf(o->detail, "%spassed over a completion of another work request", o->detail->len ? "; " : "");
			json_object_unref(wc);
			continue;
		}
		uint64_t now = rawio_now();
		if (now >= end || interrupted(x->r))
			return NULL;
		uint64_t next = now + 2 * NS_PER_MS;
		pump_until(x->r, -1, next < end ? next : end, false);
	}
}

void step_dut_bind(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mw *w = mw_of(x, s->mw);
	struct case_qp *q = find_qp(x, s->qp);
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_dut_bind_args *a = &s->a.dut_bind;
	uint64_t off, len, wr_id, key;
	if (!param_u64(x, &a->offset, &off, o) || !param_u64_run(x, &a->len, off < m->len ? m->len - off : 0, &len, o) ||
	    !param_u64_run(x, &a->wr_id, (uint64_t)x->cur_step, &wr_id, o) ||
	    !param_u64_run(x, &a->key, (w->rkey + 1) & 0xFF, &key, o))
		return;
	/* The statuses the case accepts (status=A,B), by default SUCCESS. */
	const struct cl_arg *want = a->status.arg;
	bool want_success = !want || cl_word_arg_accepts(want, AP_WC_SUCCESS);
	bool zero_based = param_choice(&a->zero_based, CL_OFF) == CL_ON;
	uint32_t new_rkey = (w->rkey & ~0xFFu) | (uint32_t)(key & 0xFF);
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_int_member(p, "qp", q->dut_qp);
	json_object_set_int_member(p, "mw", w->handle);
	json_object_set_int_member(p, "mr", m->handle);
	agent_set_u64(p, "offset", off);
	agent_set_u64(p, "length", len);
	json_object_set_array_member(p, "access", bind_access(&a->access));
	if (zero_based)
		json_object_set_boolean_member(p, "zero_based", TRUE);
	agent_set_u64(p, "wr_id", wr_id);
	json_object_set_boolean_member(p, "signaled", TRUE);
	bool posted;
	if (w->type == 1) {
		posted = call(x, o, AP_M_bind_mw, p, &res);
	} else {
		json_object_set_string_member(p, "opcode", ap_wr_opcode_name(AP_WR_BIND_MW));
		agent_set_u64(p, "rkey", new_rkey);
		json_object_set_array_member(p, "sge", json_array_new());
		posted = call(x, o, AP_M_post_send, p, NULL);
	}
	/* Until the agent says otherwise, the key the bind asks for. */
	sym_set(x, w->name, "bind_rkey", w->type == 1 ? w->rkey : new_rkey);
	if (!posted) {
		/* A device may refuse a bind when it is posted rather than in
		 * its completion: that is the refusal a case expecting one
		 * asks for. */
		if (o->st == S_ERROR && !want_success && strstr(o->detail->str, "the agent refused")) {
			g_string_prepend(o->detail, "refused when posted, as expected: ");
			o->st = S_OK;
		}
		return;
	}
	if (res) {
		uint64_t rk;
		if (agent_get_u64(res, "rkey", &rk))
			new_rkey = (uint32_t)rk;
		json_object_unref(res);
	}
	sym_set(x, w->name, "bind_rkey", new_rkey);
	uint64_t end = rawio_now() + (s->has_within ? s->within_max : x->r->opts.default_wait_ns);
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	JsonObject *wc = bind_completion(x, q, wr_id, end, o);
	if (o->st != S_OK) {
		if (wc)
			json_object_unref(wc);
		return;
	}
	if (!wc) {
		o->st = S_FAIL;
		g_string_printf(o->expected, "the completion of the bind of window %s on QP %s", w->name, q->name);
		g_string_printf(o->observed, "none within %.3f ms", (double)(end - x->ref_ns) / 1e6);
		return;
	}
	JsonNode *sn = json_object_get_member(wc, "status");
	const char *st = sn && JSON_NODE_HOLDS_VALUE(sn) && json_node_get_value_type(sn) == G_TYPE_STRING ? json_node_get_string(sn) : "?";
	int got = ap_wc_status_by_name(st);
	if (zero_based && want_success && got == AP_WC_MW_BIND_ERR) {
		/* Zero-based windows are the device's to offer or not. */
		o->st = S_NA;
		g_string_printf(o->detail, "the DUT refuses a zero-based window (an optional feature): the bind of %s completed with %s",
				w->name, st);
	} else if (want ? !cl_word_arg_accepts(want, got) : got != AP_WC_SUCCESS) {
		char text[400] = "SUCCESS";
		if (want)
			cl_word_arg_text(want, text, sizeof text);
		o->st = S_FAIL;
		g_string_printf(o->expected, "the bind of window %s completes with %s", w->name, text);
		g_string_printf(o->observed, "%s", st);
	} else if (got == AP_WC_SUCCESS) {
		w->rkey = new_rkey;
		sym_set(x, w->name, "rkey", w->rkey);
		g_string_append_printf(o->detail, "%swindow %s bound to MR %s [%llu, +%llu), rkey 0x%08x", o->detail->len ? "; " : "",
				       w->name, m->name, (unsigned long long)off, (unsigned long long)len, w->rkey);
	} else {
		g_string_append_printf(o->detail, "%sthe bind completed with %s, as expected", o->detail->len ? "; " : "", st);
	}
	json_object_unref(wc);
	x->ref_ns = rawio_now();
}

/* The FETH placement type of a placement= list (its words' bits). */
static unsigned placement_bits(const struct cl_param *p)
{
	return p->flags & 3u;
}

bool post_send_extras(struct run_ctx *x, const struct cl_step *s, struct case_qp *q, JsonObject *p, struct step_out *o)
{
	const struct cl_post_send_args *a = &s->a.post_send;
	uint64_t v;
	if (s->op == AP_WR_ATOMIC_WRITE) {
		if (!param_u64(x, &a->value, &v, o))
			return false;
		agent_set_u64(p, "value", v);
	}
	if (s->op == AP_WR_FLUSH) {
		JsonArray *pl = json_array_new();
		unsigned bits = placement_bits(&a->placement);
		if (bits & 1)
			json_array_add_string_element(pl, "GLOBAL");
		if (bits & 2)
			json_array_add_string_element(pl, "PERSISTENT");
		json_object_set_array_member(p, "placement", pl);
		json_object_set_string_member(p, "level", param_choice(&a->level, 0) == 1 ? "REGION" : "RANGE");
		uint64_t len;
		if (!param_u64_run(x, &a->len, 0, &len, o))
			return false;
		agent_set_u64(p, "length", len);
	}
	if (q->xrc == CL_XRC_SEND) {
		struct case_srq *srq = xrc_first_peer_srq(x);
		if (!param_u64_run(x, &a->remote_srqn, srq ? srq->srqn : 0, &v, o))
			return false;
		agent_set_u64(p, "remote_srqn", v & 0xFFFFFF);
	}
	return true;
}

bool inject_extras(struct run_ctx *x, const struct cl_step *s, struct case_qp *q, struct roce_desc *d, uint8_t *payload,
		   size_t cap, uint64_t *len, struct step_out *o)
{
	const struct cl_inject_args *a = &s->a.inject;
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)s->opcode);
	uint64_t v;
	uint8_t *h;
	if ((h = roce_desc_hdr(d, ROCE_H_FETH)) && (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_FETH))) {
		roce_feth_set_plt(h, placement_bits(&a->placement));
		roce_feth_set_sel(h, (uint64_t)param_choice(&a->level, 0));
	}
	if (oi->kind == ROCE_K_ATOMIC_WRITE && !a->data.arg && !a->len.arg && cap >= 8) {
		/* Its 8 bytes, big-endian as the wire carries them. */
		if (!param_u64(x, &a->value, &v, o))
			return false;
		for (int k = 0; k < 8; k++)
			payload[k] = (uint8_t)(v >> (56 - 8 * k));
		*len = 8;
		d->payload_len = 8;
	}
	if (oi->kind == ROCE_K_ATOMIC_WRITE && (h = roce_desc_hdr(d, ROCE_H_RETH)))
		roce_reth_set_dmalen(h, 8);
	if ((h = roce_desc_hdr(d, ROCE_H_IETH)) && (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_IETH))) {
		if (!param_u64(x, &a->invalidate, &v, o))
			return false;
		roce_ieth_set_rkey(h, v);
	}
	if ((h = roce_desc_hdr(d, ROCE_H_XRCETH)) && (oi->xhdrs & ROCE_XHDR_BIT(ROCE_H_XRCETH))) {
		/* The target's first XRC SRQ of the QP's domain (srqn= below
		 * names another). */
		struct case_srq *srq = xrc_first_srq(x, q->xrcd);
		roce_xrceth_set_srqn(h, srq ? srq->srqn : 0);
	}
	return true;
}

bool peer_wr_placement(struct run_ctx *x, const struct cl_step *s, struct peer_wr *wr, struct step_out *o)
{
	const struct cl_peer_op_args *a = &s->a.peer_op;
	if (wr->op == PEER_OP_ATOMIC_WRITE && !param_u64(x, &a->value, &wr->swap_add, o))
		return false;
	if (wr->op == PEER_OP_FLUSH) {
		wr->flush_type = (uint8_t)placement_bits(&a->placement);
		wr->flush_level = (uint8_t)param_choice(&a->level, 0);
	}
	return true;
}
