/*
 * The runner's expectations: a packet of the DUT matched against a
 * step's constraints, silence, work completions on the DUT and the
 * tester, and the tester's memory.
 */
#include "runner_ctx.h"

/* ---- Expectations ---- */

static uint64_t window_end(struct run_ctx *x, const struct cl_step *s)
{
	uint64_t w = s->has_within ? s->within_max : x->r->opts.default_wait_ns;
	uint64_t end = x->ref_ns + w;
	return end < x->deadline_ns ? end : x->deadline_ns;
}

bool dut_pkt_for(struct run_ctx *x, size_t i, const struct case_qp *q)
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

bool same_stream(const struct cl_step *s, const struct case_pkt *p)
{
	/* Datagrams to a group are a sequence of their own, like CNPs. */
	if ((p->group != 0) != (s->group != NULL))
		return false;
	if (pkt_is_cm(p) != (s->cm_attr != 0))
		return false;
	return pkt_is_cnp(p) == (s->opcode == ROCE_OP_CNP);
}

bool cmp_ok(enum cl_cmp c, uint64_t got, uint64_t want)
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

const char *cmp_text(enum cl_cmp c)
{
	static const char *const t[] = { "=", "!=", "<", "<=", ">", ">=" };
	return t[c];
}

bool check_number(struct run_ctx *x, const struct cl_arg *a, uint64_t got, struct step_out *o)
{
	if (a->v.kind == CL_V_BIND) {
		sym_set(x, a->v.word, NULL, got);
		return true;
	}
	uint64_t want;
	if (!eval(x, &a->v.expr, &want, o))
		return false;
	if (!cmp_ok(a->cmp, got, want)) {
		o->st = S_FAIL;
		g_string_append_printf(o->expected, "%s %s %llu; ", a->key, cmp_text(a->cmp), (unsigned long long)want);
		g_string_append_printf(o->observed, "%s = %llu; ", a->key, (unsigned long long)got);
	}
	return true;
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
	if (s->group && !mcast_match(x, s, &pk, o))
		ok = false;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_group)
			continue; /* mcast_match above */
		if (a->id == CL_K_data) {
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
		if (a->id == CL_K_icrc) {
			enum roce_icrc_status st = roce_icrc_check(&pk, NULL, NULL);
			bool want_good = a->v.word_id == CL_ICRC_GOOD;
			if ((st == ROCE_ICRC_GOOD) != want_good) {
				ok = false;
				g_string_append_printf(o->expected, "ICRC %s; ", a->v.word);
				g_string_append_printf(o->observed, "ICRC %s; ", st == ROCE_ICRC_GOOD ? "good" : "bad");
			}
			continue;
		}
		if (a->id == CL_K_proto) {
			bool want_v1 = a->v.word_id == CL_PROTO_V1;
			if (pk.rocev1 != want_v1) {
				ok = false;
				g_string_append_printf(o->expected, "a %s packet; ", want_v1 ? "RoCE v1" : "RoCEv2");
				g_string_append_printf(o->observed, "a %s packet; ", pk.rocev1 ? "RoCE v1" : "RoCEv2");
			}
			continue;
		}
		if (a->id == CL_K_aeth) {
			/* One kind, or a list of those the rule allows (the NAK
			 * that rejects a request may depend on the order of the
			 * responder's checks): the kind seen is reported. */
			const uint8_t *aeth = roce_pkt_hdr(&pk, ROCE_H_AETH);
			bool match = false;
			for (unsigned k = 0; aeth && k < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); k++) {
				uint8_t v, m;
				cl_aeth_pattern((enum cl_aeth_kind)(a->v.kind == CL_V_LIST ? a->v.word_ids[k] : a->v.word_id), &v, &m);
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
		enum roce_mad_field mf = a->id == CL_K_FIELD ? a->field.mad : ROCE_MF_COUNT;
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
		} else if (a->id == CL_K_len) {
			got = pk.payload_len;
			label = "payload length";
		} else if (a->id == CL_K_delay) {
			got = p->ts_ns > x->ref_ns ? p->ts_ns - x->ref_ns : 0;
			label = "delay since the previous step's event";
			unit = SYM_NS;
		} else if (a->id == CL_K_pcp || a->id == CL_K_vid) {
			/* The innermost 802.1Q tag, the one the DUT's VLAN gives. */
			bool pcp = a->id == CL_K_pcp;
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
			enum roce_field f = cl_field_in(&a->field, pk.ip_version, pk.op->xhdrs);
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
		} else if (a->id == CL_K_FIELD) {
			const struct roce_field_info *fi = roce_field_info(cl_field_in(&a->field, pk.ip_version, pk.op->xhdrs));
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

void step_expect_pkt(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct runner *r = x->r;
	struct case_qp *q = find_qp(x, s->qp);
	uint64_t end = window_end(x, s);
	uint64_t min = x->ref_ns + (s->has_within ? s->within_min : 0);
	for (;;) {
		for (size_t i = 0; i < x->n_pkts; i++) {
			if (!(s->group ? mcast_pkt_for(x, i, s, q) : dut_pkt_for(x, i, q)) || !same_stream(s, &x->pkts[i]))
				continue;
			struct case_pkt *p = &x->pkts[i];
			if (s->group) /* each attached QP takes its own copy */
				mcast_take(x, i, q);
			else
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
			series_expect(x, s, (long)i, dt, s->has_within ? s->within_min : 0, end - x->ref_ns);
			if (ok) {
				p->matched = x->cur_step + 1;
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

void step_expect_nothing(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
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

/* Whether the completion's wc_flags list holds flag. */
static bool wc_has_flag(JsonObject *wc, const char *flag)
{
	JsonNode *n = json_object_get_member(wc, "wc_flags");
	JsonArray *arr = n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
	for (guint i = 0; arr && i < json_array_get_length(arr); i++) {
		JsonNode *e = json_array_get_element(arr, i);
		if (JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING && !strcmp(json_node_get_string(e), flag))
			return true;
	}
	return false;
}

/* The flags as the device's verbs library set them (wc_flags_raw, in
 * libibverbs' numbering), and the names they have there. */
static void raw_flags_text(JsonObject *wc, char *out, size_t n)
{
	static const char *const names[] = { "GRH", "WITH_IMM", "IP_CSUM_OK", "WITH_INV", "TM_SYNC_REQ", "TM_MATCH",
					     "TM_DATA_VALID" };
	uint64_t raw;
	if (!agent_get_u64(wc, "wc_flags_raw", &raw)) {
		snprintf(out, n, "(the agent gives no wc_flags_raw)");
		return;
	}
	snprintf(out, n, "wc_flags 0x%llx", (unsigned long long)raw);
	const char *sep = " (";
	for (unsigned b = 0; b < 32; b++) {
		if (!(raw >> b & 1))
			continue;
		appendf(out, n, "%s%s", sep, b < G_N_ELEMENTS(names) ? names[b] : "?");
		sep = ", ";
	}
	appendf(out, n, "%s", raw ? " in libibverbs' numbering)" : "");
}

/* flags=A,B: each flag named is in the completion's wc_flags; the
 * observation gives the flags as the device's verbs library set them. */
static void check_wc_flags(JsonObject *wc, const struct cl_arg *a, struct step_out *o)
{
	char raw[160];
	raw_flags_text(wc, raw, sizeof raw);
	for (unsigned i = 0; i < a->v.n_list; i++) {
		const char *flag = cl_wc_flag_words[a->v.word_ids[i]];
		if (wc_has_flag(wc, flag))
			continue;
		o->st = S_FAIL;
		g_string_append_printf(o->expected, "%s in wc_flags; ", flag);
		g_string_append_printf(o->observed, "no %s: %s; ", flag, raw);
	}
}

/* On a failed completion check, what the invalidated= checks that held
 * saw, so that the record shows each part of the completion apart. */
static void note_held_rkeys(const struct cl_step *s, JsonObject *wc, struct step_out *o)
{
	uint64_t rk;
	for (unsigned i = 0; i < s->n_args; i++)
		if (s->args[i].id == CL_K_invalidated && agent_get_u64(wc, "invalidate_rkey", &rk) &&
		    !strstr(o->observed->str, "invalidated ="))
			g_string_append_printf(o->observed, "invalidated rkey 0x%08llx, as expected; ", (unsigned long long)rk);
}

static void check_wc(struct run_ctx *x, const struct cl_step *s, JsonObject *wc, struct step_out *o)
{
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_status || a->id == CL_K_opcode) {
			/* A status may be any of several (or not one): the one
			 * seen is reported either way. */
			const char *got = wc_member_string(wc, a->key);
			char want[400];
			cl_word_arg_text(a, want, sizeof want);
			int got_id = !got ? CL_WORD_ABSENT : a->id == CL_K_status ? ap_wc_status_by_name(got) : ap_wc_opcode_by_name(got);
			if (!cl_word_arg_accepts(a, got_id)) {
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "%s %s; ", a->key, want);
				g_string_append_printf(o->observed, "%s %s; ", a->key, got ? got : "(none)");
			} else if ((a->v.kind == CL_V_LIST && a->v.n_list > 1) || a->cmp == CL_NE) {
				g_string_append_printf(o->observed, "%s %s (%s); ", a->key, got, want);
			}
			continue;
		}
		if (a->id == CL_K_flags) {
			check_wc_flags(wc, a, o);
			continue;
		}
		const char *member = a->id == CL_K_imm ? "imm_data" : a->id == CL_K_invalidated ? "invalidate_rkey" : a->key;
		uint64_t got;
		if (!agent_get_u64(wc, member, &got)) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "%s; ", a->key);
			g_string_append_printf(o->observed, "no %s in the completion; ", member);
			continue;
		}
		if (!check_number(x, a, got, o))
			return;
	}
}

bool dut_poll_one(struct run_ctx *x, struct case_qp *q, JsonObject **wc, struct step_out *o)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "cq", q->dut_cq);
	json_object_set_int_member(p, "max", 1);
	json_object_set_int_member(p, "timeout_ms", 0);
	if (!call(x, o, AP_M_poll_cq, p, &res))
		return false;
	JsonNode *cn = json_object_get_member(res, "completions");
	JsonArray *arr = cn && JSON_NODE_HOLDS_ARRAY(cn) ? json_node_get_array(cn) : NULL;
	*wc = arr && json_array_get_length(arr) > 0 ? json_object_ref(json_array_get_object_element(arr, 0)) : NULL;
	json_object_unref(res);
	return true;
}

/* Polls the DUT's CQ of a QP without blocking the agent, pumping the wire
 * in between, until a completion or end. */
static JsonObject *poll_dut_cq(struct run_ctx *x, struct case_qp *q, uint64_t end, struct step_out *o)
{
	for (;;) {
		JsonObject *wc;
		if (!dut_poll_one(x, q, &wc, o))
			return NULL;
		if (wc)
			return wc;
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

void step_expect_completion(struct run_ctx *x, const struct cl_step *s, struct step_out *o, bool none)
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
		if (o->st == S_FAIL) {
			note_held_rkeys(s, wc, o);
			g_string_append_printf(o->observed, "[%s]", text);
		}
		else
			g_string_printf(o->detail, "completion %s", text);
	}
	g_free(text);
	if (wc)
		json_object_unref(wc);
	x->ref_ns = rawio_now();
}

void step_expect_peer(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
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
	if (wc.has_inv)
		appendf(text, sizeof text, ", invalidated rkey 0x%08x", wc.inv_rkey);
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_status) {
			if (!cl_word_arg_accepts(a, (int)wc.status)) {
				char want[400];
				cl_word_arg_text(a, want, sizeof want);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "status %s; ", want);
				g_string_append_printf(o->observed, "status %s; ", ap_wc_status_name(wc.status));
			}
		} else if (a->id == CL_K_data) {
			if (!wc.data || wc.byte_len != a->v.n_bytes || memcmp(wc.data, a->v.bytes, a->v.n_bytes)) {
				char e[200], g[200] = "none";
				hex_text(e, sizeof e, a->v.bytes, a->v.n_bytes);
				if (wc.data)
					hex_text(g, sizeof g, wc.data, wc.byte_len);
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "data %s; ", e);
				g_string_append_printf(o->observed, "data %s; ", g);
			}
		} else if (a->id == CL_K_invalidated && !wc.has_inv) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "a SEND with Invalidate naming an rkey; ");
			g_string_append_printf(o->observed, "no rkey invalidated; ");
		} else {
			uint64_t v = a->id == CL_K_wr_id ? wc.wr_id : a->id == CL_K_invalidated ? wc.inv_rkey : wc.value;
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

void step_expect_mem(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_mr *m = find_mr(x, s->mr);
	const struct cl_arg *d = s->a.expect_mem.data.arg;
	uint64_t off;
	if (!param_u64(x, &s->a.expect_mem.offset, &off, o))
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
