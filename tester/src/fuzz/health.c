/*
 * After each batch: is the DUT still well, and is its memory what it
 * should be?
 *   control   first: a known-good WRITE and READ on the control QP, through
 *             the peer engine, still complete (else the device hangs); it
 *             is the batch's fence too: every frame sent before it was
 *             taken when its READ is answered;
 *   memory    every region read back (or its digest compared) against its
 *             pattern: a byte may differ only where an allowed request of
 *             the batch placed it, with the value it carried; otherwise a
 *             refused request was executed (wrong acceptance), a request
 *             placed bytes it did not carry (leak), or memory outside
 *             every targeted range changed (corruption). Then the
 *             patterns are written back.
 *   probes    each fuzzed RC and XRC QP not in Error still answers a
 *             duplicate (C9-105), which also tells its expected PSN;
 *   agent     the agent still answers (every call above);
 *   console   the DUT's kernel logged no warning, oops or stall (rxe).
 */
#include "fz.h"

#include <stdio.h>
#include <string.h>

#include "text.h"

void fz_place_add(struct fz *z, const struct fz_place *p)
{
	struct fz_region *m = &z->reg[p->mr];
	if (!m->dirty || p->off >= m->len)
		return;
	uint64_t len = p->len > m->len - p->off ? m->len - p->off : p->len;
	memset(m->dirty + p->off, 1, len);
	g_array_append_val(z->places, *p);
}

/* ---- Memory ---- */

enum verdict_byte { VB_OK, VB_EXECUTED, VB_NOT_CARRIED, VB_OUTSIDE };

static enum verdict_byte judge_byte(const struct fz *z, int mr, uint64_t off, uint8_t b, const struct fz_place **who)
{
	enum verdict_byte v = VB_OUTSIDE;
	*who = NULL;
	for (guint i = 0; i < z->places->len; i++) {
		const struct fz_place *p = &g_array_index(z->places, struct fz_place, i);
		if (p->mr != mr || off < p->off || off - p->off >= p->len)
			continue;
		bool carried = !p->none && (p->any_value || fz_payload_byte(p->fill, off - p->off + p->fill_off) == b);
		if (p->allowed && carried)
			return VB_OK;
		if (!p->allowed && carried && v != VB_EXECUTED) {
			v = VB_EXECUTED;
			*who = p;
		} else if (v == VB_OUTSIDE) {
			v = VB_NOT_CARRIED;
			*who = p;
		}
	}
	return v;
}

/* A placement of the batch whose bytes these are, wherever it aimed. */
static const struct fz_place *carrier(const struct fz *z, const uint8_t *b, size_t n)
{
	if (n < 4)
		return NULL;
	for (guint i = z->places->len; i-- > 0;) {
		const struct fz_place *p = &g_array_index(z->places, struct fz_place, i);
		if (p->any_value || p->none)
			continue;
		for (uint64_t k = 0; k + 4 <= p->len + p->fill_off + 64; k++)
			if (fz_payload_byte(p->fill, k) == b[0] && fz_payload_byte(p->fill, k + 1) == b[1] &&
			    fz_payload_byte(p->fill, k + 2) == b[2] && fz_payload_byte(p->fill, k + 3) == b[3])
				return p;
	}
	return NULL;
}

static void memory_region(struct fz *z, int i, const uint8_t *now)
{
	struct fz_region *m = &z->reg[i];
	unsigned counts[4] = { 0 };
	uint64_t first[4] = { 0 }, last[4] = { 0 };
	const struct fz_place *who[4] = { NULL };
	for (uint64_t off = 0; off < m->len; off++) {
		if (now[off] == m->shadow[off])
			continue;
		const struct fz_place *p;
		enum verdict_byte v = judge_byte(z, i, off, now[off], &p);
		if (v == VB_OK)
			continue;
		if (!counts[v]++) {
			first[v] = off;
			who[v] = p;
		}
		last[v] = off;
	}
	static const enum fz_kind kinds[4] = { FZ_CORRUPT, FZ_ACCEPT, FZ_LEAK, FZ_CORRUPT };
	static const char *const words[4] = { "", "executed", "not-carried", "outside" };
	for (int v = VB_EXECUTED; v <= VB_OUTSIDE; v++) {
		if (!counts[v])
			continue;
		const struct fz_place *p = who[v];
		if (v == VB_OUTSIDE)
			p = carrier(z, now + first[v], last[v] - first[v] + 1);
		enum roce_rule rule = v == VB_EXECUTED ? p->rule : v == VB_NOT_CARRIED && p && !p->allowed ? p->rule
										  : ROCE_RULE_CA17_25;
		struct fz_obs *o = fz_observe(z, kinds[v], rule, p ? p->qp : -1, p ? p->serial : 0, "%s/%s",
					      m->guard ? "guard" : "region", words[v]);
		if (!o)
			continue;
		o->region = i;
		o->off = first[v];
		o->len = last[v] - first[v] + 1;
		switch (v) {
		case VB_EXECUTED:
			g_string_printf(o->text, "%u bytes of region %s were written by a request the DUT must refuse",
					counts[v], m->name);
			break;
		case VB_NOT_CARRIED:
			g_string_printf(o->text, "%u bytes placed in region %s are not the bytes the request carried", counts[v],
					m->name);
			break;
		default:
			g_string_printf(o->text, "%u bytes of %s %s changed outside every range a request targeted", counts[v],
					m->guard ? "guard region" : "region", m->name);
		}
		g_string_printf(o->detail, "offsets %llu..%llu: expected ", (unsigned long long)first[v],
				(unsigned long long)last[v]);
		uint64_t n = last[v] - first[v] + 1 < 16 ? last[v] - first[v] + 1 : 16;
		for (uint64_t k = 0; k < n; k++)
			g_string_append_printf(o->detail, "%02x", m->shadow[first[v] + k]);
		g_string_append(o->detail, ", found ");
		for (uint64_t k = 0; k < n; k++)
			g_string_append_printf(o->detail, "%02x", now[first[v] + k]);
	}
}

/* Every region against its pattern: the untouched ones by their digests
 * (all asked at once), the touched ones and those whose digest differs
 * read back and judged byte by byte, then written back. */
void fz_memory_check(struct fz *z)
{
	int idx[FZ_MAX_REGIONS];
	bool touched[FZ_MAX_REGIONS] = { false };
	unsigned n = 0;
	for (unsigned i = 0; i < z->n_reg; i++) {
		struct fz_region *m = &z->reg[i];
		if (!m->shadow || m->kind != FZ_RK_MR || (int)i == z->ctl_region || m->handle < 0)
			continue;
		for (uint64_t k = 0; k < m->len && !touched[n]; k++)
			touched[n] = m->dirty[k];
		idx[n++] = (int)i;
	}
	enum ap_method meth[FZ_MAX_REGIONS] = { 0 };
	JsonObject *params[FZ_MAX_REGIONS], *res[FZ_MAX_REGIONS];
	bool ok[FZ_MAX_REGIONS], suspect[FZ_MAX_REGIONS];
	unsigned nd = 0;
	int which[FZ_MAX_REGIONS];
	for (unsigned k = 0; k < n; k++) {
		suspect[k] = touched[k] || z->no_digest;
		if (suspect[k])
			continue;
		meth[nd] = AP_M_digest_mr;
		params[nd] = json_object_new();
		json_object_set_int_member(params[nd], "mr", z->reg[idx[k]].handle);
		which[nd++] = (int)k;
	}
	fz_call_many(z, nd, meth, params, res, ok);
	for (unsigned d = 0; d < nd; d++) {
		const struct fz_region *m = &z->reg[idx[which[d]]];
		if (!ok[d]) {
			/* An agent without digest_mr: regions are read instead. */
			if (!z->agent_dead && !strcmp(z->agent.fail_code->str, "unknown_method"))
				z->no_digest = true;
			suspect[which[d]] = !z->agent_dead;
			continue;
		}
		const char *have = json_object_has_member(res[d], "sha256") ? json_object_get_string_member(res[d], "sha256") : "";
		gchar *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256, m->shadow, m->len);
		suspect[which[d]] = strcmp(want, have) != 0;
		g_free(want);
		json_object_unref(res[d]);
	}
	for (unsigned k = 0; k < n && !z->agent_dead; k++) {
		struct fz_region *m = &z->reg[idx[k]];
		if (suspect[k]) {
			uint8_t *now = g_malloc(m->len);
			if (fz_mr_read(z, m, now) && memcmp(now, m->shadow, m->len)) {
				memory_region(z, idx[k], now);
				fz_mr_write(z, m, 0, m->shadow, m->len);
			}
			g_free(now);
		}
		memset(m->dirty, 0, m->len);
	}
	g_array_set_size(z->places, 0);
}

/* ---- The control exchange ---- */

bool fz_control_exchange(struct fz *z, GString *why)
{
	const struct fz_region *ctl = &z->reg[z->ctl_region];
	uint32_t qpn = z->ctl.tqpn;
	uint64_t off = (uint64_t)(z->ctl_round % 32) * 64;
	uint8_t data[64];
	for (unsigned i = 0; i < sizeof data; i++)
		data[i] = fz_payload_byte(0xC0A7u + z->ctl_round, i);
	z->ctl_round++;
	z->ctl_misread = false;
	char err[160];
	uint64_t now = rawio_now();
	struct peer_wr w = { .wr_id = 1, .op = PEER_OP_WRITE, .data = data, .len = sizeof data, .remote = ctl->addr + off,
			     .rkey = ctl->rkey };
	struct peer_wr r = { .wr_id = 2, .op = PEER_OP_READ, .len = sizeof data, .remote = ctl->addr + off, .rkey = ctl->rkey };
	if (peer_post(z->peer, qpn, &w, now, err, sizeof err) || peer_post(z->peer, qpn, &r, now, err, sizeof err)) {
		g_string_printf(why, "the control QP could not post: %s", err);
		return false;
	}
	uint64_t deadline = now + (z->window_ns * 50 > FZ_NS_PER_S ? z->window_ns * 50 : FZ_NS_PER_S);
	unsigned done = 0;
	bool ok = true;
	while (done < 2 && rawio_now() < deadline && !(z->o->stop && *z->o->stop)) {
		fz_pump(z, rawio_now() + FZ_NS_PER_MS);
		struct peer_wc wc;
		while (peer_poll(z->peer, qpn, &wc)) {
			done++;
			if (wc.status != AP_WC_SUCCESS) {
				g_string_printf(why, "the control QP's %s completed with %s", peer_op_name(wc.op),
						ap_wc_status_name(wc.status));
				ok = false;
			} else if (wc.op == PEER_OP_READ && (!wc.data || memcmp(wc.data, data, sizeof data))) {
				g_string_printf(why, "the control QP read back other bytes than it wrote");
				z->ctl_misread = true;
				ok = false;
			}
		}
	}
	if (done < 2) {
		g_string_printf(why, "the control QP's WRITE and READ did not complete within %llu ms",
				(unsigned long long)((deadline - now) / FZ_NS_PER_MS));
		/* Whatever is outstanding is forgotten with the QP's state. */
		return false;
	}
	return ok;
}

bool fz_fence(struct fz *z, GString *why)
{
	/* A control QP that fails gets a successor before the DUT is said
	 * to hang: a fuzzed packet may have reached it (another QP's number
	 * in its BTH), and the error that leaves is no hang. */
	return fz_control_exchange(z, why) || (fz_control_renew(z) && fz_control_exchange(z, why));
}

/* ---- Probes ---- */

/* A duplicate WRITE of no bytes, 2^22 PSNs behind the expected one: a
 * conforming responder acknowledges it again (C9-105) with the PSN before
 * the one it expects, whatever state its QP is in but Error. */
static void probe_step(const struct fz_qp *q, struct fz_step *s)
{
	memset(s, 0, sizeof *s);
	s->npkt = 1;
	struct fz_pkt *k = &s->pkt[0];
	k->opcode = (uint8_t)roce_opcode_find(q->t, ROCE_K_WRITE, ROCE_POS_ONLY, ROCE_OPF_IMM, 0);
	k->psn = -0x400000;
	k->set[0] = (struct fz_set){ ROCE_F_RETH_dmalen, FZ_V_LIT, -1, 0 };
	k->nset = 1;
}

static bool probe_answered(const struct fz_qp *q)
{
	const struct fz_done *d = q->n_hist ? &q->hist[q->n_hist - 1] : NULL;
	return d && d->n_resp > 0;
}

/* Probes QPs in parallel; answered[i] says which answered. */
static void probe_many(struct fz *z, struct fz_qp **qps, unsigned n, uint64_t timeout, bool *answered)
{
	struct fz_step steps[FZ_MAX_QPS];
	struct fz_step *progs[FZ_MAX_QPS];
	unsigned one[FZ_MAX_QPS] = { 0 };
	for (unsigned i = 0; i < n; i++) {
		probe_step(qps[i], &steps[i]);
		progs[i] = &steps[i];
		one[i] = 1;
	}
	bool was = z->replaying;
	z->replaying = true; /* not counted as requests */
	fz_exec(z, qps, progs, one, n, timeout);
	z->replaying = was;
	for (unsigned i = 0; i < n; i++) {
		answered[i] = probe_answered(qps[i]);
		/* The probe is no step of the QP's history. */
		if (qps[i]->n_hist)
			qps[i]->n_hist--;
		z->st.probes++;
	}
}

bool fz_probe_rc(struct fz *z, struct fz_qp *q, uint64_t timeout_ns)
{
	bool ok;
	probe_many(z, &q, 1, timeout_ns, &ok);
	if (!ok)
		probe_many(z, &q, 1, timeout_ns, &ok);
	return ok;
}

/* Whether an observation of the batch concerns QP i: its history is the
 * finding's sequence, so an answered probe must not clear it. */
static bool observed(const struct fz *z, int i)
{
	for (unsigned k = 0; k < z->n_obs; k++)
		if (z->obs[k].qp == i)
			return true;
	return false;
}

static void probes(struct fz *z)
{
	struct fz_qp *qs[FZ_MAX_QPS];
	bool ok[FZ_MAX_QPS];
	unsigned n = 0;
	for (unsigned i = 0; i < z->n_qp; i++) {
		struct fz_qp *q = &z->qp[i];
		if ((q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC) && !q->dead && q->n_hist)
			qs[n++] = q;
	}
	if (!n)
		return;
	/* A first round as long as two answer windows (most QPs answer in
	 * one); the rounds after it four times the old bound. */
	uint64_t first = z->window_ns * 2 > 10 * FZ_NS_PER_MS ? z->window_ns * 2 : 10 * FZ_NS_PER_MS;
	uint64_t timeout = z->window_ns * 8 > 20 * FZ_NS_PER_MS ? z->window_ns * 8 : 20 * FZ_NS_PER_MS;
	probe_many(z, qs, n, first, ok);
	/* Those that did not answer: a QP in Error (a fatal NAK that came
	 * after its step's window) answers nothing, and is reset; the others
	 * are probed twice more, all at once and longer. */
	bool err[FZ_MAX_QPS] = { false };
	for (unsigned i = 0; i < n && !z->agent_dead; i++) {
		char state[16];
		if (!ok[i] && fz_qp_state(z, qs[i], state, sizeof state) && !strcmp(state, "ERR"))
			err[i] = true;
	}
	for (int round = 0; round < 2 && !z->agent_dead; round++) {
		struct fz_qp *again[FZ_MAX_QPS];
		unsigned idx[FZ_MAX_QPS], m = 0;
		for (unsigned i = 0; i < n; i++)
			if (!ok[i] && !err[i]) {
				idx[m] = i;
				again[m++] = qs[i];
			}
		if (!m)
			break;
		bool ok2[FZ_MAX_QPS];
		probe_many(z, again, m, 4 * timeout, ok2);
		for (unsigned k = 0; k < m; k++)
			ok[idx[k]] = ok2[k];
	}
	for (unsigned i = 0; i < n && !z->agent_dead; i++) {
		struct fz_qp *q = qs[i];
		if (ok[i]) {
			if (!observed(z, q->index)) {
				q->n_hist = 0; /* a clean point: what follows starts here */
				q->hist_dropped = 0;
			}
			continue;
		}
		char state[16];
		if (err[i] || !fz_qp_state(z, q, state, sizeof state)) {
			q->dead = err[i];
			continue;
		}
		if (!strcmp(state, "ERR")) {
			/* In Error without telling its requester: nothing more
			 * to judge on it; it is reset. */
			q->dead = true;
			continue;
		}
		struct fz_obs *o = fz_observe(z, FZ_HANG, ROCE_RULE_C9_105, q->index, 0, "%s/probe", fz_qkind_name(q->kind));
		if (o) {
			g_string_printf(o->text, "%s QP 0x%06x (state %s) stopped answering: a duplicate WRITE got no ACK", fz_qkind_name(q->kind),
					q->dut_qpn, state);
			g_string_printf(o->detail, "two probes, %llu ms and %llu ms, after %u step(s) since its last answered probe",
					(unsigned long long)(timeout / FZ_NS_PER_MS), (unsigned long long)(4 * timeout / FZ_NS_PER_MS),
					q->n_hist);
		}
		q->dead = true; /* replaced after the finding took its history */
		q->hung = true;
	}
}

/* ---- The kernel console (rxe) ---- */

/* Where a console line says the kernel was: "/FUNCTION" from its first
 * "FUNCTION+0x..." (a WARNING names the function it fired in), so that a
 * replay is matched to the same place and two places are two findings;
 * empty when the line names none (a BUG's first line). */
static void console_site(const char *line, char *site, size_t size)
{
	site[0] = 0;
	const char *plus = strstr(line, "+0x");
	if (!plus)
		return;
	const char *start = plus;
	while (start > line && (g_ascii_isalnum(start[-1]) || start[-1] == '_' || start[-1] == '.'))
		start--;
	if (start == plus)
		return;
	text_printf(site, size, "/%.*s", (int)(plus - start), start);
}

void fz_console_check(struct fz *z)
{
	if (!z->o->console_log)
		return;
	FILE *f = fopen(z->o->console_log, "r");
	if (!f)
		return;
	if (fseek(f, z->console_off, SEEK_SET) == 0) {
		char line[512]; /* a console line; a longer one is read in parts */
		while (fgets(line, sizeof line, f)) {
			size_t n = strlen(line);
			if (n && line[n - 1] != '\n' && !feof(f))
				; /* the rest follows */
			else if (n && line[n - 1] != '\n')
				break; /* a line still being written: read it next time */
			z->console_off += (long)n;
			static const char *const marks[] = { "WARNING:", "BUG:", "Oops", "general protection", "stall",
							     "hung_task", "blocked for more than", "UBSAN", "KASAN" };
			/* Not "Call Trace": it follows one of these, which names
			 * the place; the trace alone would be a second finding. */
			for (size_t m = 0; m < G_N_ELEMENTS(marks); m++) {
				if (!strstr(line, marks[m]))
					continue;
				char site[48];
				console_site(line, site, sizeof site);
				struct fz_obs *o = fz_observe(z, FZ_HANG, ROCE_RULE_NONE, -1, 0, "kernel/%s%s", marks[m], site);
				if (o) {
					o->device = true;
					o->console = true;
					g_strchomp(line);
					g_string_printf(o->text, "the DUT's kernel logged \"%s\"", line);
				}
				break;
			}
		}
	}
	fclose(f);
}

/* ---- All of it ---- */

static void on_wc(struct fz *z, JsonObject *wc, void *ctx)
{
	(void)ctx;
	uint64_t wr_id = 0;
	agent_get_u64(wc, "wr_id", &wr_id);
	unsigned who = (unsigned)(wr_id >> 32);
	if (who == 0xFFFF) {
		if (z->srq_posted)
			z->srq_posted--;
		return;
	}
	if (who == 0xFFFE) {
		if (z->xsrq_posted)
			z->xsrq_posted--;
		return;
	}
	if (who >= z->n_qp)
		return;
	struct fz_qp *q = &z->qp[who];
	if (q->recv_posted)
		q->recv_posted--;
	const char *status = json_object_has_member(wc, "status") ? json_object_get_string_member(wc, "status") : "";
	uint64_t imm = 0;
	bool has_imm = agent_get_u64(wc, "imm_data", &imm);
	JsonNode *flags = json_object_get_member(wc, "wc_flags");
	bool with_imm = false;
	if (flags && JSON_NODE_HOLDS_ARRAY(flags)) {
		JsonArray *a = json_node_get_array(flags);
		for (guint i = 0; i < json_array_get_length(a); i++)
			with_imm = with_imm || !strcmp(json_array_get_string_element(a, i), "WITH_IMM");
	}
	fz_judge_completion(z, q, (uint32_t)imm, has_imm && with_imm, status);
}

bool fz_health(struct fz *z)
{
	uint64_t t0 = rawio_now();
	GString *why = g_string_new(NULL);
	/* The control exchange first: it is also the batch's fence. The DUT
	 * takes its frames in the order they came, so once the control
	 * READ is answered every request of the batch was taken, those no
	 * answer was waited for (UC, UD, a step whose window closed) too;
	 * memory and completions read before it may miss a placement that
	 * lands after the patterns are written back, and is then taken for
	 * the next batch's corruption. */
	bool fenced = z->agent_dead || fz_fence(z, why);
	if (!fenced && z->ctl_misread) {
		/* It answered, with other bytes: no hang, but bytes the
		 * known-good WRITE did not carry (or the READ did not find). */
		struct fz_obs *o = fz_observe(z, FZ_LEAK, ROCE_RULE_CA17_25, -1, 0, "device/control-data");
		if (o) {
			o->device = true;
			g_string_printf(o->text, "the DUT answered a known-good exchange on the control QP with other bytes: "
						 "a 64-byte WRITE read back differs");
		}
	} else if (!fenced) {
		struct fz_obs *o = fz_observe(z, FZ_HANG, ROCE_RULE_IBA_ACKREQ, -1, 0, "device/control");
		if (o) {
			o->device = true;
			g_string_printf(o->text, "the DUT stopped answering a known-good exchange on the control QP: %s", why->str);
		}
		z->wedged = true;
	}
	g_string_free(why, TRUE);
	uint64_t t1 = rawio_now();
	fz_memory_check(z);
	uint64_t t2 = rawio_now();
	int64_t cqs[] = { z->cq_rc, z->cq_uc, z->cq_ud, z->cq_xrc };
	for (unsigned i = 0; i < G_N_ELEMENTS(cqs) && !z->agent_dead; i++)
		if (cqs[i] >= 0)
			fz_poll(z, cqs[i], on_wc, NULL);
	z->st.control_ns += t1 - t0;
	z->st.memory_ns += t2 - t1;
	z->st.completions_ns += rawio_now() - t2;
	uint64_t t3 = rawio_now();
	if (!z->wedged && !z->agent_dead)
		probes(z);
	z->st.probes_ns += rawio_now() - t3;
	fz_console_check(z);
	if (z->agent_dead) {
		struct fz_obs *o = fz_observe(z, FZ_HANG, ROCE_RULE_NONE, -1, 0, "agent");
		if (o) {
			o->device = true;
			g_string_printf(o->text, "the DUT's agent stopped answering: %s", z->err);
		}
		z->wedged = true;
	}
	return !z->wedged;
}
