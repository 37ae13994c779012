/*
 * The runner's peer steps: the tester's own memory regions and
 * operations, the peer engine's settings, packets injected as written in
 * the case, and injection rules.
 */
#include "runner_ctx.h"

/* ---- Steps: the tester's side ---- */

/* The tester's MR access: access= as written, else its default's. */
static unsigned peer_access(const struct cl_param *p)
{
	static const struct {
		enum ap_access word;
		unsigned bit;
	} bits[] = { { AP_ACCESS_REMOTE_WRITE, PEER_ACC_WRITE }, { AP_ACCESS_REMOTE_READ, PEER_ACC_READ },
		     { AP_ACCESS_REMOTE_ATOMIC, PEER_ACC_ATOMIC }, { AP_ACCESS_FLUSH_GLOBAL, PEER_ACC_FLUSH_GLOBAL },
		     { AP_ACCESS_FLUSH_PERSISTENT, PEER_ACC_FLUSH_PERSISTENT } };
	unsigned acc = 0;
	for (size_t k = 0; k < sizeof bits / sizeof bits[0]; k++)
		if (p->flags & (unsigned)bits[k].word)
			acc |= bits[k].bit;
	return acc;
}

void step_peer_mr(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	const struct cl_peer_mr_args *pa = &s->a.peer_mr;
	uint64_t size, fill;
	if (!param_u64(x, &pa->size, &size, o) || !param_u64(x, &pa->fill, &fill, o))
		return;
	unsigned acc = peer_access(&pa->access);
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

void pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)('a' + (i + seed) % 26);
}

void step_peer_op(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	const struct cl_peer_op_args *a = &s->a.peer_op;
	struct peer_wr wr = { 0 };
	uint64_t v;
	if (!param_u64_run(x, &a->wr_id, (uint64_t)x->cur_step, &wr.wr_id, o))
		return;
	wr.op = (enum peer_op)s->op; /* the parser's: enum peer_op is enum ap_wc_opcode */
	const struct cl_arg *d = a->data.arg;
	uint8_t *buf = NULL;
	if (d) {
		wr.data = d->v.bytes;
		wr.len = (uint32_t)d->v.n_bytes;
	} else {
		if (!param_u64_run(x, &a->len, wr.op == PEER_OP_READ ? 0 : 64, &v, o))
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
	if (!param_u64(x, &a->remote, &wr.remote, o) || !param_u64(x, &a->rkey, &v, o)) {
		free(buf);
		return;
	}
	wr.rkey = (uint32_t)v;
	if (!param_u64(x, &a->compare, &wr.compare, o) ||
	    !param_u64(x, wr.op == PEER_OP_FETCH_ADD ? &a->add : &a->swap, &wr.swap_add, o)) {
		free(buf);
		return;
	}
	if (a->imm.arg) {
		wr.has_imm = true;
		if (!param_u64(x, &a->imm, &v, o)) {
			free(buf);
			return;
		}
		wr.imm = (uint32_t)v;
	}
	if (a->invalidate.arg) {
		wr.has_inv = true;
		if (!param_u64(x, &a->invalidate, &v, o)) {
			free(buf);
			return;
		}
		wr.inv_rkey = (uint32_t)v;
	}
	wr.solicited = param_choice(&a->solicited, CL_OFF) == CL_ON;
	if (!peer_wr_placement(x, s, &wr, o)) {
		free(buf);
		return;
	}
	char err[256];
	uint64_t now = rawio_now();
	if (peer_post(x->r->peer, q->tester_qpn, &wr, now, err, sizeof err) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "%s", err);
	}
	x->ref_ns = now;
	free(buf);
}

void step_peer_set(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_qp *q = find_qp(x, s->qp);
	struct peer *p = x->r->peer;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		bool on = a->v.kind == CL_V_WORD && a->v.word_id == CL_ON;
		uint64_t v = 0;
		if (a->v.kind == CL_V_EXPR && !eval(x, &a->v.expr, &v, o))
			return;
		switch (a->id) {
		case CL_K_auto: peer_qp_set_auto(p, q->tester_qpn, on); break;
		case CL_K_rnr: peer_qp_set_rnr(p, q->tester_qpn, on); break;
		case CL_K_ack: peer_qp_set_ack(p, q->tester_qpn, on); break;
		case CL_K_rnr_timer: peer_qp_set_rnr_timer(p, q->tester_qpn, (unsigned)v); break;
		case CL_K_psn: peer_qp_set_next_psn(p, q->tester_qpn, (uint32_t)v); break;
		case CL_K_recv: peer_qp_set_recv(p, q->tester_qpn, (long)v); break;
		default: break;
		}
	}
}

bool inject_frame(struct run_ctx *x, const struct case_qp *q, const uint8_t *frame, size_t len, const char *note,
		  const char *what, uint64_t *sent, struct step_out *o)
{
	uint64_t now = rawio_now();
	size_t before = x->n_pkts;
	/* An agent already gone: this packet cannot have stopped the DUT. */
	if (!x->agent_gone_ns && agent_hung_up(&x->r->agent))
		x->agent_gone_ns = now;
	if (peer_inject(x->r->peer, q->tester_qpn, frame, len, now, note) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "%s could not be injected", what);
		return false;
	}
	*sent = now;
	for (size_t i = before; i < x->n_pkts; i++) {
		if (!x->pkts[i].tx)
			continue;
		x->pkts[i].injected = true;
		if (o->n_pkts < 16)
			o->pkts[o->n_pkts++] = (long)i;
	}
	return true;
}

/* Builds and sends one packet of an inject step; its send time in *sent. */
static void inject_once(struct run_ctx *x, const struct cl_step *s, struct step_out *o, uint64_t *sent)
{
	struct runner *r = x->r;
	const struct cl_inject_args *ia = &s->a.inject;
	struct case_qp *q = find_qp(x, s->qp);
	const struct roce_opcode_info *oi = roce_opcode((uint8_t)s->opcode);
	bool request = oi->flags & ROCE_OPF_REQUEST;
	struct roce_desc d;
	/* The QP's own addressing, then defaults that make a plausible packet. */
	struct roce_endpoint ep;
	make_endpoint(x, q, 0, 0, 0, &ep);
	/* proto=v1|v2: the encapsulation, by default the QP's (A17.8). */
	ep.rocev1 = param_choice(&ia->proto, q->rocev1 ? CL_PROTO_V1 : CL_PROTO_V2) == CL_PROTO_V1;
	/* group=: to the group's address and MAC, DestQP 0xFFFFFF. */
	if (s->group)
		peer_mcast_address(&ep, &group_of(x, s->group)->g);
	uint32_t next = peer_qp_next_psn(r->peer, q->tester_qpn);
	uint32_t psn = request ? next : peer_qp_last_rx_psn(r->peer, q->tester_qpn);
	if (s->opcode == ROCE_OP_CNP)
		psn = 0; /* A17 Figure 6 */
	roce_endpoint_desc(&ep, &d, (uint8_t)s->opcode, psn);
	bool last = oi->position == ROCE_POS_LAST || oi->position == ROCE_POS_ONLY;
	if (request && (q->type == ROCE_T_RC || q->type == ROCE_T_XRC) && last)
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
	const struct cl_arg *da = ia->data.arg;
	uint64_t len = 0;
	if (da) {
		len = da->v.n_bytes > sizeof payload ? sizeof payload : da->v.n_bytes;
		memcpy(payload, da->v.bytes, len);
	} else {
		if (!param_u64_run(x, &ia->len, (oi->flags & ROCE_OPF_PAYLOAD) ? (oi->position == ROCE_POS_FIRST || oi->position == ROCE_POS_MIDDLE ? q->pmtu : 16) : 0, &len, o))
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
	const struct cl_arg *opts = ia->ip_options.arg;
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
		if (ia->src_ip.arg)
			roce_grh_sgid_ptr(grh)[ROCE_GID_LEN - 1]++;
		if (ia->dst_ip.arg)
			roce_grh_dgid_ptr(grh)[ROCE_GID_LEN - 1]++;
	} else {
		uint8_t *l3 = roce_desc_hdr(&d, q->ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4);
		if (ia->src_ip.arg) {
			uint8_t *a = (uint8_t *)(q->ipv == 6 ? roce_ipv6_src(l3) : roce_ipv4_src(l3));
			a[q->ipv == 6 ? 15 : 3]++;
		}
		if (ia->dst_ip.arg) {
			uint8_t *a = (uint8_t *)(q->ipv == 6 ? roce_ipv6_dst(l3) : roce_ipv4_dst(l3));
			a[q->ipv == 6 ? 15 : 3]++;
		}
	}
	/* The extension headers' own arguments (FETH, ATOMIC WRITE's value,
	 * IETH, XRCETH); header fields below override them. */
	if (!inject_extras(x, s, q, &d, payload, sizeof payload, &len, o))
		return;
	/* The headers are the step's opcode's: a bth.opcode= below relabels
	 * the packet and keeps them (one that claims headers it does not
	 * hold is a runt). */
	d.xhdrs = roce_desc_xhdrs(&d);
	d.ovr |= ROCE_OVR_XHDRS;
	/* Every field argument, in order. */
	bool icrc_bad = false;
	int icrc_mistake = ROCE_ICRC_MISTAKE_NONE; /* icrc=MISTAKE: the ICRC that implementation sends */
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id != CL_K_FIELD && a->id != CL_K_icrc)
			continue; /* read by name above */
		if (a->id == CL_K_icrc) {
			if (a->v.kind == CL_V_WORD && a->v.word_id >= CL_ICRC_MISTAKE) {
				icrc_mistake = a->v.word_id - CL_ICRC_MISTAKE;
			} else if (a->v.kind == CL_V_WORD) {
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
		enum roce_field f = cl_field_in(&a->field, q->ipv, roce_desc_xhdrs(&d));
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
	if (icrc_bad || icrc_mistake != ROCE_ICRC_MISTAKE_NONE) {
		struct roce_pkt pk;
		roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
		uint32_t v;
		if (pk.complete && icrc_bad) {
			for (unsigned i = 0; i < ROCE_ICRC_LEN; i++)
				frame[pk.icrc_off + i] ^= 0xFF;
		} else if (pk.complete && roce_icrc_mistaken(&pk, (enum roce_icrc_mistake)icrc_mistake, &v) == 0) {
			roce_le32_store(frame + pk.icrc_off, v);
		} else {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u: icrc=%s cannot be made for this %s packet", x->c->path, s->loc.line,
			     roce_icrc_mistake_name((enum roce_icrc_mistake)icrc_mistake), oi->name);
			return;
		}
	}
	/* truncate=N: only the frame's first N bytes go out (at least the
	 * Ethernet header); what the headers claim stays. */
	uint64_t cut_to = 0;
	if (ia->truncate.arg) {
		if (!eval(x, &ia->truncate.arg->v.expr, &cut_to, o))
			return;
		if (cut_to < ROCE_ETH_LEN) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: truncate=%llu is shorter than the Ethernet header (%u bytes)",
			     x->c->path, ia->truncate.arg->loc.line, ia->truncate.arg->loc.col, (unsigned long long)cut_to,
			     (unsigned)ROCE_ETH_LEN);
			return;
		}
	}
	/* The engine's PSN follows injected requests that used its PSN. */
	uint32_t sent_psn = roce_bth_psn(d.bth);
	if (request && sent_psn == next) {
		uint32_t adv = 1;
		if (oi->kind == ROCE_K_READ_REQ)
			adv = roce_packets_for(roce_reth_dmalen(roce_desc_hdr(&d, ROCE_H_RETH)), q->pmtu);
		peer_qp_set_next_psn(r->peer, q->tester_qpn, roce_psn_add(next, (int32_t)adv));
	}
	if (cut_to && cut_to < (uint64_t)n)
		n = (long)cut_to;
	if (!inject_frame(x, q, frame, (size_t)n, "injected", "the packet", sent, o))
		return;
	char sum[200];
	struct roce_pkt pk;
	roce_parse_frame(&pk, frame, (size_t)n, (size_t)n, ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1);
	roce_pkt_summary(&pk, sum, sizeof sum);
	if (icrc_mistake != ROCE_ICRC_MISTAKE_NONE)
		g_string_printf(o->detail, "injected %s with the ICRC an implementation making this mistake sends: %s", sum,
		     roce_icrc_mistake_text((enum roce_icrc_mistake)icrc_mistake));
	else
		g_string_printf(o->detail, "injected %s%s", sum, icrc_bad ? " with a corrupted ICRC" : "");
}

#define INJECT_MAX_REPEAT 100000u

/* inject, once or repeat=N times every=T apart (each copy rebuilt, so
 * that copies without an explicit psn= take consecutive PSNs). The
 * step's event is the first copy's send time. */
void step_inject(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t n, every, first = 0, sent = 0;
	if (!param_u64(x, &s->a.inject.repeat, &n, o) || !param_u64(x, &s->a.inject.every, &every, o))
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

void step_rule(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
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
	const struct cl_rule_args *a = &s->a.rule;
	uint64_t v;
	if (a->psn.arg) {
		if (!param_u64(x, &a->psn, &v, o))
			return;
		ru.has_psn = true;
		ru.psn = (uint32_t)v & ROCE_PSN_MASK;
	}
	if (a->round.arg) {
		if (!param_u64(x, &a->round, &v, o))
			return;
		ru.round = (int)v;
	}
	if (!param_u64(x, &a->nth, &v, o))
		return;
	ru.nth = (unsigned)v;
	if (!param_u64(x, &a->count, &v, o))
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
		ru.field = cl_field_in(&s->set_field_ref, ipv, 0xFFFF);
		if (!eval(x, &s->set_value, &ru.value, o))
			return;
	}
	outf(ru.text, sizeof ru.text, "line %u: %s", s->loc.line, s->text);
	if (inj_add(peer_rules(x->r->peer), &ru) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d injection rules", INJ_MAX_RULES);
	}
}
