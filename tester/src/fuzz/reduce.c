/*
 * A finding reduced to the shortest request sequence that still shows it:
 * delta debugging (Zeller's ddmin) over its QP's steps, each candidate
 * replayed on a fresh QP of the same kind with the regions at their
 * patterns and windows longer than the fuzzing's, then the mutations of
 * the steps that remain undone one at a time where the finding stays.
 * "Shows it" is the same observation (its kind, rule and signature) from
 * the same oracle: the answers, the memory afterwards, or a probe of the
 * QP. A finding of the whole device (it stopped answering everything) is
 * not replayed: the device is gone.
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
	q.wfirst_region = -1;
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
	bool hang = f->obs.kind == FZ_HANG;
	if (hang) {
		if (!q.dead && !fz_probe_rc(z, &q, 4 * rd->window)) {
			char state[16];
			if (fz_qp_state(z, &q, state, sizeof state) && strcmp(state, "ERR"))
				fz_observe(z, FZ_HANG, f->obs.rule, q.index, 0, "%s/probe", fz_qkind_name(q.kind));
		}
	}
	if (q.kind == FZ_Q_UC || q.kind == FZ_Q_UD)
		fz_poll(z, q.cq, replay_wc, &q);
	GArray *places = g_array_copy(z->places);
	fz_memory_check(z);
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

void fz_reduce(struct fz *z, struct fz_finding *f, uint64_t deadline)
{
	if (f->obs.device || f->n_qp != 1 || !f->n_seq)
		return;
	struct reduction *rd = g_new0(struct reduction, 1);
	rd->f = f;
	rd->deadline = deadline;
	rd->window = z->window_ns * 4 > 20 * FZ_NS_PER_MS ? z->window_ns * 4 : 20 * FZ_NS_PER_MS;
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
