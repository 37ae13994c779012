/*
 * A finding reduced to the shortest request sequence that still shows it:
 * delta debugging (Zeller's ddmin) over its QP's steps, each candidate
 * replayed on a fresh QP of the same kind with the regions at their
 * patterns and windows longer than the fuzzing's, then the mutations of
 * the steps that remain undone one at a time where the finding stays.
 * "Shows it" is the same observation (its kind, rule and signature) from
 * the same oracle: the answers, the memory afterwards, or a probe of the
 * QP. A finding of the whole device (it stopped answering everything) is
 * not replayed: the device is gone. A line on the DUT's kernel console is
 * (the device answers on): its oracle is the console, and the QP whose
 * requests make the kernel print it again is found first.
 */
#include "fz.h"

#include <string.h>

/* The most replays one finding may take. */
#define FZ_MAX_REPLAYS 160

struct reduction {
	struct fz_finding *f;
	uint64_t deadline;
	uint64_t window;
	struct fz_done last[FZ_MAX_STEPS]; /* the trace of the last replay that showed it */
	unsigned n_last;
};

static void replay_wc(struct fz *z, JsonObject *wc, void *ctx)
{
	struct fz_qp *q = ctx;
	uint64_t wr_id = 0, imm = 0;
	agent_get_u64(wc, "wr_id", &wr_id);
	if ((wr_id >> 32) == 0xFFFF) {
		if (z->srq_posted)
			z->srq_posted--;
		return;
	}
	if ((wr_id >> 32) != (uint64_t)FZ_MAX_QPS)
		return;
	if (q->recv_posted)
		q->recv_posted--;
	const char *status = json_object_has_member(wc, "status") ? json_object_get_string_member(wc, "status") : "";
	bool with_imm = false;
	JsonNode *flags = json_object_get_member(wc, "wc_flags");
	if (flags && JSON_NODE_HOLDS_ARRAY(flags)) {
		JsonArray *a = json_node_get_array(flags);
		for (guint i = 0; i < json_array_get_length(a); i++)
			with_imm = with_imm || !strcmp(json_array_get_string_element(a, i), "WITH_IMM");
	}
	bool has = agent_get_u64(wc, "imm_data", &imm);
	fz_judge_completion(z, q, (uint32_t)imm, has && with_imm, status);
}

/* Replays steps on a fresh QP; true when the finding shows again. */
static bool shows(struct fz *z, struct reduction *rd, const struct fz_step *steps, unsigned n)
{
	struct fz_finding *f = rd->f;
	if (rawio_now() >= rd->deadline || f->replays >= FZ_MAX_REPLAYS || z->agent_dead || (z->o->stop && *z->o->stop))
		return false;
	f->replays++;
	z->st.replays++;
	const struct fz_qp_cfg *c = &f->qps[0];
	struct fz_qp q;
	memset(&q, 0, sizeof q);
	q.kind = c->kind;
	q.t = c->kind == FZ_Q_RC ? ROCE_T_RC : c->kind == FZ_Q_UC ? ROCE_T_UC : c->kind == FZ_Q_UD ? ROCE_T_UD : ROCE_T_XRC;
	q.index = FZ_MAX_QPS; /* a replay's: its receives' wr_id says so */
	q.incarnation = f->replays;
	q.pmtu = c->pmtu;
	q.qkey = c->qkey;
	q.srq = c->srq;
	q.cq = c->kind == FZ_Q_UD ? z->cq_ud : c->kind == FZ_Q_UC ? z->cq_uc : z->cq_rc;
	if (!fz_qp_create(z, &q))
		return false;
	if ((q.kind == FZ_Q_UC || q.kind == FZ_Q_UD) && !fz_recv_fill(z, &q, 8))
		return false;
	z->replay_qp = &q;
	z->replaying = true;
	fz_obs_clear(z);
	fz_flow_reset(z);
	struct fz_qp *qs = &q;
	const struct fz_step *prog = steps;
	fz_exec(z, &qs, (struct fz_step **)&prog, &n, 1, rd->window);
	/* The oracle that saw it. */
	bool hang = f->obs.kind == FZ_HANG && !f->obs.console;
	if (hang) {
		if (!q.dead && !fz_probe_rc(z, &q, 4 * rd->window)) {
			char state[16];
			if (fz_qp_state(z, &q, state, sizeof state) && strcmp(state, "ERR"))
				fz_observe(z, FZ_HANG, f->obs.rule, q.index, 0, "%s/probe", fz_qkind_name(q.kind));
		}
	}
	/* Every frame of the replay taken before memory and completions
	 * are read (health.c: the fence); a fence that fails leaves the
	 * memory oracle to say what it sees. */
	GString *why = g_string_new(NULL);
	fz_fence(z, why);
	g_string_free(why, TRUE);
	if (q.kind == FZ_Q_UC || q.kind == FZ_Q_UD)
		fz_poll(z, q.cq, replay_wc, &q);
	GArray *places = g_array_copy(z->places);
	fz_memory_check(z);
	if (f->obs.console) {
		/* The kernel prints as it handles the packet; the fence says
		 * the packets were taken, a moment more lets the line reach
		 * the console's file. */
		g_usleep(50 * 1000);
		fz_console_check(z);
	}
	bool seen = false;
	for (unsigned i = 0; i < z->n_obs && !seen; i++)
		seen = !strcmp(z->obs[i].sig, f->obs.sig);
	fz_obs_clear(z);
	if (seen) {
		rd->n_last = q.n_hist;
		memcpy(rd->last, q.hist, q.n_hist * sizeof *q.hist);
		if (f->places)
			g_array_free(f->places, TRUE);
		f->places = places;
	} else {
		g_array_free(places, TRUE);
	}
	z->replaying = false;
	z->replay_qp = NULL;
	fz_qp_destroy(z, &q);
	/* Its receives are gone with it. */
	return seen;
}

/* ddmin over the steps: keep splitting into chunks and try each chunk and
 * each complement, until no single step can go. */
static unsigned ddmin(struct fz *z, struct reduction *rd, struct fz_step *s, unsigned n)
{
	struct fz_step *cand = g_new(struct fz_step, FZ_MAX_STEPS);
	unsigned parts = 2;
	while (n >= 2) {
		bool reduced = false;
		unsigned chunk = (n + parts - 1) / parts;
		for (unsigned start = 0; start < n && !reduced; start += chunk) {
			unsigned end = start + chunk < n ? start + chunk : n;
			/* The chunk alone. */
			unsigned m = end - start;
			memcpy(cand, s + start, m * sizeof *s);
			if (m < n && shows(z, rd, cand, m)) {
				memcpy(s, cand, m * sizeof *s);
				n = m;
				parts = 2;
				reduced = true;
				break;
			}
			/* Everything but the chunk. */
			m = 0;
			for (unsigned i = 0; i < n; i++)
				if (i < start || i >= end)
					cand[m++] = s[i];
			if (m && shows(z, rd, cand, m)) {
				memcpy(s, cand, m * sizeof *s);
				n = m;
				parts = parts > 2 ? parts - 1 : 2;
				reduced = true;
			}
		}
		if (reduced)
			continue;
		if (parts >= n)
			break;
		parts = parts * 2 < n ? parts * 2 : n;
	}
	g_free(cand);
	return n;
}

/* Each mutation undone where the finding stays: the fields a step set,
 * the spoilt ICRC, the cut, the packets before the last. */
static void simplify(struct fz *z, struct reduction *rd, struct fz_step *s, unsigned n)
{
	struct fz_step *cand = g_new(struct fz_step, FZ_MAX_STEPS);
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < s[i].npkt; k++) {
			struct fz_pkt *p = &s[i].pkt[k];
			if (p->icrc != FZ_ICRC_GOOD || p->cut) {
				memcpy(cand, s, n * sizeof *s);
				cand[i].pkt[k].icrc = FZ_ICRC_GOOD;
				cand[i].pkt[k].cut = 0;
				if (shows(z, rd, cand, n))
					*p = cand[i].pkt[k];
			}
			for (unsigned j = p->nset; j-- > 0;) {
				const struct roce_field_info *fi = roce_field_info((enum roce_field)p->set[j].field);
				/* The keys, addresses and lengths are the request's
				 * substance, not a mutation to undo. */
				if (fi && (fi->hdr == ROCE_H_RETH || fi->hdr == ROCE_H_ATOMICETH))
					continue;
				memcpy(cand, s, n * sizeof *s);
				fz_pkt_unset(&cand[i].pkt[k], j);
				if (shows(z, rd, cand, n))
					*p = cand[i].pkt[k];
			}
		}
		/* The packets before the step's last. */
		while (s[i].npkt > 1) {
			memcpy(cand, s, n * sizeof *s);
			memmove(cand[i].pkt, cand[i].pkt + 1, (cand[i].npkt - 1u) * sizeof *cand[i].pkt);
			cand[i].npkt--;
			if (!shows(z, rd, cand, n))
				break;
			s[i] = cand[i];
		}
	}
	g_free(cand);
}

/* A kernel console line names no QP: each QP's requests of the batch are
 * replayed alone, in the order the batch first sent to them, until one
 * QP's make the kernel print the line again; the finding becomes that
 * QP's, and is reduced as any other. False (the finding keeps the
 * requests sent last) when none does. */
static bool locate_console(struct fz *z, struct reduction *rd)
{
	struct fz_finding *f = rd->f;
	GArray *tl = z->timeline;
	bool tried[FZ_MAX_QPS] = { false };
	struct fz_step *s = g_new(struct fz_step, FZ_MAX_STEPS);
	struct fz_done *done = g_new(struct fz_done, FZ_MAX_STEPS);
	bool found = false;
	const struct fz_finding keep = *f;
	for (guint i = 0; i < tl->len && !found; i++) {
		int qi = g_array_index(tl, struct fz_tl, i).qp;
		if (qi < 0 || (unsigned)qi >= z->n_qp || tried[qi])
			continue;
		tried[qi] = true;
		struct fz_qp *q = &z->qp[qi];
		unsigned n = 0;
		for (unsigned h = 0; h < q->n_hist && n < FZ_MAX_STEPS; h++)
			for (guint k = 0; k < tl->len; k++) {
				const struct fz_tl *t = &g_array_index(tl, struct fz_tl, k);
				if (t->qp == qi && t->serial == q->hist[h].step.serial) {
					done[n] = q->hist[h];
					s[n++] = q->hist[h].step;
					break;
				}
			}
		if (!n)
			continue;
		f->n_qp = 1;
		f->qps[0] = (struct fz_qp_cfg){ q->kind, q->pmtu, q->srq, q->qkey, qi };
		if (shows(z, rd, s, n)) {
			memcpy(f->seq, done, n * sizeof *done);
			memset(f->seq_qp, 0, sizeof f->seq_qp);
			f->n_seq = f->n_orig = n;
			found = true;
		}
	}
	if (!found) {
		f->n_qp = keep.n_qp;
		memcpy(f->qps, keep.qps, sizeof f->qps);
	}
	g_free(s);
	g_free(done);
	return found;
}

void fz_reduce(struct fz *z, struct fz_finding *f, uint64_t deadline)
{
	if (f->obs.console ? false : f->obs.device || !f->n_seq)
		return;
	struct reduction *rd = g_new0(struct reduction, 1);
	rd->f = f;
	rd->deadline = deadline;
	rd->window = z->window_ns * 4 > 20 * FZ_NS_PER_MS ? z->window_ns * 4 : 20 * FZ_NS_PER_MS;
	if ((f->obs.console && !locate_console(z, rd)) || f->n_qp != 1) {
		g_free(rd);
		return;
	}
	struct fz_step *s = g_new(struct fz_step, FZ_MAX_STEPS);
	unsigned n = f->n_seq;
	for (unsigned i = 0; i < n; i++)
		s[i] = f->seq[i].step;
	/* Twice, for a finding that depends on timing. */
	if (shows(z, rd, s, n) || shows(z, rd, s, n)) {
		f->replayable = true;
		n = ddmin(z, rd, s, n);
		simplify(z, rd, s, n);
		/* Once more, for the trace the case file is written from. */
		if (shows(z, rd, s, n) && rd->n_last) {
			memcpy(f->seq, rd->last, rd->n_last * sizeof *rd->last);
			f->n_seq = rd->n_last;
			memset(f->seq_qp, 0, sizeof f->seq_qp);
			f->reduced = true;
		}
	}
	g_free(s);
	g_free(rd);
}
