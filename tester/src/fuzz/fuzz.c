/*
 * The run: the DUT set up through its agent, batches of mutated requests
 * on every QP until the time is up, after each batch the health checks,
 * each new kind of observation made a finding with the request sequence
 * that led to it, then every finding reduced, written as a case file and
 * recorded.
 */
#include "fz.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "text.h"

/* Steps per batch: enough that the checks after it cost little, few
 * enough that a finding's sequence is short. */
#define FZ_PROGRAM_MAX 4

static void obs_free(struct fz_obs *o)
{
	if (o->text)
		g_string_free(o->text, TRUE);
	if (o->detail)
		g_string_free(o->detail, TRUE);
	o->text = o->detail = NULL;
}

void fz_obs_clear(struct fz *z)
{
	for (unsigned i = 0; i < z->n_obs; i++)
		obs_free(&z->obs[i]);
	z->n_obs = 0;
}

/* The steps of the batch, in the order they were sent (timeline.c's
 * record of which were answered): a device that stopped answering
 * stopped at one of those sent after the last answered one. */
static void device_candidates(struct fz *z, struct fz_finding *f)
{
	GArray *tl = z->timeline;
	int last_answered = -1, first_silent = -1;
	for (guint i = 0; i < tl->len; i++) {
		const struct fz_tl *t = &g_array_index(tl, struct fz_tl, i);
		if (t->answered)
			last_answered = (int)i;
	}
	for (guint i = (guint)(last_answered + 1); i < tl->len; i++) {
		const struct fz_tl *t = &g_array_index(tl, struct fz_tl, i);
		if (t->expects) {
			first_silent = (int)i;
			break;
		}
	}
	if (first_silent < 0)
		first_silent = (int)tl->len - 1;
	int from = last_answered + 1;
	if (first_silent - from >= FZ_MAX_DEVICE_STEPS)
		from = first_silent - FZ_MAX_DEVICE_STEPS + 1;
	for (int i = from; i <= first_silent && i >= 0; i++) {
		const struct fz_tl *t = &g_array_index(tl, struct fz_tl, (guint)i);
		struct fz_qp *q = &z->qp[t->qp];
		const struct fz_done *d = NULL;
		for (unsigned h = 0; h < q->n_hist; h++)
			if (q->hist[h].step.serial == t->serial)
				d = &q->hist[h];
		if (!d)
			continue;
		int slot = -1;
		for (unsigned s = 0; s < f->n_qp; s++)
			if (f->qps[s].index == t->qp)
				slot = (int)s;
		if (slot < 0 && f->n_qp < FZ_FINDING_QPS) {
			slot = (int)f->n_qp++;
			f->qps[slot] = (struct fz_qp_cfg){ q->kind, q->pmtu, q->srq, q->qkey, t->qp };
		}
		if (slot < 0 || f->n_seq == FZ_MAX_STEPS)
			continue;
		f->seq[f->n_seq] = *d;
		f->seq_qp[f->n_seq++] = (uint8_t)slot;
	}
}

/* Whether the rule binds the DUT in the roles it played here with a must. */
static bool judged(enum roce_rule rule)
{
	const struct roce_rule_info *ri = roce_rule(rule);
	return ri && roce_rule_binds(ri, ROCE_ROLE_RESPONDER | ROCE_ROLE_RECEIVER | ROCE_ROLE_SENDER);
}

/* Each observation of a kind not seen before becomes a finding, with the
 * sequence of its QP's steps that led to it. */
/* One deviation is counted once: a refused READ answered with data is a
 * leak, and not also a wrong acceptance of the same step. */
static bool counted_as_leak(const struct fz *z, const struct fz_obs *o)
{
	if (o->kind != FZ_ACCEPT || o->qp < 0 || !o->serial)
		return false;
	for (unsigned i = 0; i < z->n_obs; i++)
		if (z->obs[i].kind == FZ_LEAK && z->obs[i].qp == o->qp && z->obs[i].serial == o->serial)
			return true;
	return false;
}

static void take_observations(struct fz *z)
{
	for (unsigned i = 0; i < z->n_obs; i++) {
		struct fz_obs *o = &z->obs[i];
		if (counted_as_leak(z, o))
			continue;
		gpointer count = g_hash_table_lookup(z->seen, o->sig);
		if (count) {
			g_hash_table_insert(z->seen, g_strdup(o->sig), GUINT_TO_POINTER(GPOINTER_TO_UINT(count) + 1));
			continue;
		}
		if (z->n_find == FZ_MAX_FINDINGS || z->n_find >= z->o->max_findings)
			continue;
		g_hash_table_insert(z->seen, g_strdup(o->sig), GUINT_TO_POINTER(1));
		struct fz_finding *f = &z->find[z->n_find++];
		memset(f, 0, sizeof *f);
		f->obs = *o;
		o->text = o->detail = NULL; /* the finding owns them now */
		f->batch = z->batch;
		f->serial = o->serial;
		f->fails = judged(o->rule);
		if (o->device) {
			device_candidates(z, f);
		} else if (o->qp >= 0 && (unsigned)o->qp < z->n_qp) {
			struct fz_qp *q = &z->qp[o->qp];
			unsigned upto = q->n_hist;
			for (unsigned h = 0; o->serial && h < q->n_hist; h++)
				if (q->hist[h].step.serial == o->serial)
					upto = h + 1;
			f->n_qp = 1;
			f->qps[0] = (struct fz_qp_cfg){ q->kind, q->pmtu, q->srq, q->qkey, o->qp };
			memcpy(f->seq, q->hist, upto * sizeof *q->hist);
			memset(f->seq_qp, 0, sizeof f->seq_qp);
			f->n_seq = upto;
			f->from_clean = q->hist_dropped == 0;
		}
		f->n_orig = f->n_seq;
		if (!z->o->quiet)
			fprintf(stderr, "fuzz: finding %u (batch %llu): %s %s%s%s\n", z->n_find,
				(unsigned long long)z->batch, fz_kind_name(f->obs.kind),
				roce_rule(f->obs.rule) ? roce_rule(f->obs.rule)->id : "-", f->obs.text ? ": " : "",
				f->obs.text ? f->obs.text->str : "");
	}
	fz_obs_clear(z);
}

/* QPs the batch left in Error (or that stopped answering) are reset;
 * receives are posted again where they were used. */
static void recover(struct fz *z)
{
	struct fz_qp *dead[FZ_MAX_QPS];
	unsigned n = 0;
	for (unsigned i = 0; i < z->n_qp && !z->agent_dead; i++) {
		struct fz_qp *q = &z->qp[i];
		if (q->hung) {
			/* A new QP of the same kind in its place. */
			fz_qp_destroy(z, q);
			q->hung = false;
			if (fz_qp_create(z, q))
				continue;
		}
		if (q->dead)
			dead[n++] = q;
	}
	if (n && !fz_qps_reset(z, dead, n))
		return;
	for (unsigned i = 0; i < z->n_qp && !z->agent_dead; i++) {
		struct fz_qp *q = &z->qp[i];
		if ((q->kind == FZ_Q_UC || q->kind == FZ_Q_UD) && q->recv_posted < 4 && !fz_recv_fill(z, q, 8))
			return;
	}
	if ((z->srq >= 0 && z->srq_posted < 32) || (z->xsrq >= 0 && z->xsrq_posted < 32))
		fz_srq_fill(z, 64);
}

/* The window an answer is waited for: ten times the mean time answers
 * took so far, between 2 ms and 100 ms (or as --window says). */
static void adapt(struct fz *z)
{
	if (z->o->window_ns) {
		z->window_ns = z->o->window_ns;
	} else if (z->st.lat_n >= 32) {
		uint64_t w = z->st.lat_sum_ns / z->st.lat_n * 10;
		z->window_ns = w < 2 * FZ_NS_PER_MS ? 2 * FZ_NS_PER_MS : w > 100 * FZ_NS_PER_MS ? 100 * FZ_NS_PER_MS : w;
	}
	z->settle_ns = z->window_ns / 8 > 200000 ? z->window_ns / 8 : 200000;
}

/* A finding of one QP that its replays on a fresh QP never showed again
 * is no finding: an answer that came after its step's window and was
 * taken for the next step's looks the same. It is counted and named in
 * the record ("unconfirmed"), not reported. A finding that could not be
 * replayed (the device stopped answering, no time was left) stays. */
static void drop_unconfirmed(struct fz *z)
{
	unsigned kept = 0;
	for (unsigned i = 0; i < z->n_find; i++) {
		struct fz_finding *f = &z->find[i];
		if (!f->obs.device && f->replays > 0 && !f->replayable) {
			if (!z->unconfirmed)
				z->unconfirmed = g_ptr_array_new_with_free_func(g_free);
			g_ptr_array_add(z->unconfirmed, g_strdup_printf("%s %s: %s", fz_kind_name(f->obs.kind),
									roce_rule(f->obs.rule) ? roce_rule(f->obs.rule)->id : "-",
									f->obs.text ? f->obs.text->str : ""));
			if (!z->o->quiet)
				fprintf(stderr, "fuzz: finding %u not confirmed: %u replay(s) on a fresh QP did not show it\n", i + 1,
					f->replays);
			/* Its kind may show again in a way that replays: it is
			 * tried again, three times at most. */
			unsigned tries = GPOINTER_TO_UINT(g_hash_table_lookup(z->tries, f->obs.sig)) + 1;
			g_hash_table_insert(z->tries, g_strdup(f->obs.sig), GUINT_TO_POINTER(tries));
			if (tries < 3)
				g_hash_table_remove(z->seen, f->obs.sig);
			obs_free(&f->obs);
			if (f->places)
				g_array_free(f->places, TRUE);
			continue;
		}
		if (kept != i)
			z->find[kept] = *f;
		kept++;
	}
	z->n_find = kept;
}

/* The findings the batch made, confirmed and reduced at once (replays on
 * fresh QPs, while the DUT is as the batch left it), so that a run that
 * stops at --max-findings stops at confirmed ones. The time it takes is
 * not fuzzing time. */
static void confirm_new(struct fz *z, unsigned first)
{
	if (first == z->n_find || z->wedged || z->agent_dead || (z->o->stop && *z->o->stop))
		return;
	uint64_t t0 = rawio_now();
	uint64_t left = z->o->reduce_ns > z->reduce_spent_ns ? z->o->reduce_ns - z->reduce_spent_ns : 0;
	for (unsigned i = first; i < z->n_find && left; i++) {
		z->find[i].tried = true;
		fz_reduce(z, &z->find[i], rawio_now() + left);
	}
	drop_unconfirmed(z);
	z->reduce_spent_ns += rawio_now() - t0;
}

/* The requests generated, as text: what the seed decides (the same seed
 * gives the same lines, batch by batch, whatever the DUT answers). */
static void log_program(struct fz *z, unsigned qp, const struct fz_step *s, unsigned n)
{
	if (!z->request_log)
		return;
	GString *t = g_string_new(NULL);
	for (unsigned i = 0; i < n; i++) {
		g_string_truncate(t, 0);
		fz_step_text(z, &s[i], t);
		fprintf(z->request_log, "batch %llu qp %u: %s\n", (unsigned long long)z->batch, qp, t->str);
	}
	g_string_free(t, TRUE);
}

static void batch(struct fz *z)
{
	static const unsigned max = FZ_PROGRAM_MAX;
	struct fz_step *steps = g_new0(struct fz_step, (size_t)z->n_qp * max);
	struct fz_step *progs[FZ_MAX_QPS];
	struct fz_qp *qps[FZ_MAX_QPS];
	unsigned n[FZ_MAX_QPS];
	z->batch++;
	fz_flow_reset(z);
	g_array_set_size(z->timeline, 0);
	for (unsigned i = 0; i < z->n_qp; i++) {
		struct fz_rng r;
		fz_rng_seed(&r, z->o->seed, z->batch, i);
		qps[i] = &z->qp[i];
		progs[i] = steps + (size_t)i * max;
		n[i] = fz_gen_program(z, qps[i], &r, progs[i], max);
		log_program(z, i, progs[i], n[i]);
	}
	uint64_t t0 = rawio_now();
	fz_exec(z, qps, progs, n, z->n_qp, z->window_ns);
	g_free(steps);
	uint64_t t1 = rawio_now();
	fz_health(z);
	unsigned first = z->n_find;
	take_observations(z);
	uint64_t t2 = rawio_now();
	confirm_new(z, first);
	uint64_t t3 = rawio_now();
	recover(z);
	uint64_t t4 = rawio_now();
	z->st.exec_ns += t1 - t0;
	z->st.health_ns += t2 - t1;
	z->st.recover_ns += t4 - t3;
	adapt(z);
	z->st.batches++;
}

static void progress(struct fz *z, uint64_t now, uint64_t *next)
{
	if (z->o->quiet || now < *next)
		return;
	*next = now + 5 * FZ_NS_PER_S;
	double s = (double)(now - z->started_ns) / 1e9;
	fprintf(stderr, "fuzz: %.0f s, %llu requests (%.0f/s), %llu batches, %u finding(s), window %.1f ms\n", s,
		(unsigned long long)z->st.requests, s > 0 ? (double)z->st.requests / s : 0.0,
		(unsigned long long)z->st.batches, z->n_find, (double)z->window_ns / 1e6);
}

static void fz_free(struct fz *z)
{
	fz_obs_clear(z);
	for (unsigned i = 0; i < z->n_find; i++) {
		obs_free(&z->find[i].obs);
		g_free(z->find[i].case_path);
		if (z->find[i].places)
			g_array_free(z->find[i].places, TRUE);
	}
	for (unsigned i = 0; i < z->n_reg; i++) {
		g_free(z->reg[i].shadow);
		g_free(z->reg[i].dirty);
	}
	if (z->unconfirmed)
		g_ptr_array_free(z->unconfirmed, TRUE);
	if (z->request_log)
		fclose(z->request_log);
	fz_flow_free(z);
	fz_dut_close(z);
	if (z->peer)
		peer_free(z->peer);
	z->peer = NULL;
	if (z->hello)
		json_object_unref(z->hello);
	if (z->dut_device)
		json_object_unref(z->dut_device);
	if (z->dut_port)
		json_object_unref(z->dut_port);
	if (z->dut_gids)
		json_array_unref(z->dut_gids);
	g_array_free(z->places, TRUE);
	g_array_free(z->timeline, TRUE);
	g_hash_table_destroy(z->seen);
	g_hash_table_destroy(z->tries);
	g_free(z);
}

int fuzz_run(const struct fuzz_opts *o, struct fuzz_result *res)
{
	memset(res, 0, sizeof *res);
	struct fz *z = g_new0(struct fz, 1);
	z->o = o;
	z->cq_rc = z->cq_uc = z->cq_ud = z->cq_ctl = z->cq_xrc = -1;
	z->srq = z->xrcd = z->xsrq = -1;
	z->agent.fd = -1;
	z->places = g_array_new(FALSE, FALSE, sizeof(struct fz_place));
	z->timeline = g_array_new(FALSE, FALSE, sizeof(struct fz_tl));
	z->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	z->tries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	/* Tester QPNs of their own range, from the seed. */
	z->first_tqpn = z->next_tqpn = 0x10000u + (uint32_t)((o->seed >> 8) & 0x7FF) * 0x1000u;
	z->window_ns = o->window_ns ? o->window_ns : 5 * FZ_NS_PER_MS;
	z->settle_ns = 300000;
	if (fz_dut_open(z) != 0 || fz_dut_setup(z) != 0) {
		text_copy(res->err, sizeof res->err, z->err);
		res->setup_error = true;
		res->setup = fz_setup_json(z);
		fz_free(z);
		return -1;
	}
	for (unsigned i = 0; i < z->n_reg; i++)
		if (z->reg[i].shadow)
			z->reg[i].dirty = g_malloc0(z->reg[i].len);
	res->setup = fz_setup_json(z);
	if (!o->quiet)
		fprintf(stderr, "fuzz: %s (%s) over IPv%d, seed 0x%llx: %u QPs, %u regions, for %llu s\n", z->dut_name,
			z->dut_gid, o->ip_version, (unsigned long long)o->seed, z->n_qp, z->n_reg,
			(unsigned long long)(o->duration_ns / FZ_NS_PER_S));
	/* A console watched from where it is now. */
	if (o->console_log) {
		struct stat st;
		z->console_off = stat(o->console_log, &st) == 0 ? st.st_size : 0;
	}
	if (o->request_log && !(z->request_log = fopen(o->request_log, "w"))) {
		text_printf(res->err, sizeof res->err, "--log-requests %s: %s", o->request_log, strerror(errno));
		res->setup_error = true;
		fz_free(z);
		return -1;
	}
	z->started_ns = rawio_now();
	uint64_t next = z->started_ns + 5 * FZ_NS_PER_S;
	while (!z->wedged && z->n_find < o->max_findings && !(o->stop && *o->stop)) {
		uint64_t now = rawio_now();
		if (now - z->started_ns - z->reduce_spent_ns >= o->duration_ns)
			break;
		progress(z, now, &next);
		batch(z);
	}
	z->fuzz_ns = rawio_now() - z->started_ns - z->reduce_spent_ns;
	res->interrupted = o->stop && *o->stop;
	/* Each finding reduced (within the reduction's time) and written. */
	uint64_t deadline = rawio_now() + (o->reduce_ns > z->reduce_spent_ns ? o->reduce_ns - z->reduce_spent_ns : 0);
	for (unsigned i = 0; i < z->n_find; i++)
		if (!z->find[i].tried && !z->wedged && !z->agent_dead && !res->interrupted)
			fz_reduce(z, &z->find[i], deadline);
	drop_unconfirmed(z);
	for (unsigned i = 0; i < z->n_find; i++) {
		struct fz_finding *f = &z->find[i];
		text_printf(f->id, sizeof f->id, "FUZZ-%s-%08llX-%u", fz_kind_name(f->obs.kind),
			    (unsigned long long)(o->seed & 0xFFFFFFFF), i + 1);
		for (char *c = f->id; *c; c++)
			*c = g_ascii_toupper(*c);
		GString *err = g_string_new(NULL);
		if (o->case_dir && fz_case_write(z, f, o->case_dir, err) != 0 && !o->quiet)
			fprintf(stderr, "fuzz: finding %u: no case file: %s\n", i + 1, err->str);
		g_string_free(err, TRUE);
	}
	res->requests = z->st.requests;
	res->elapsed_ns = z->fuzz_ns;
	res->findings = z->n_find;
	res->dut_wedged = z->wedged || z->agent_dead;
	res->record = fz_record(z);
	res->cases = g_new0(struct fuzz_case_file, z->n_find ? z->n_find : 1);
	for (unsigned i = 0; i < z->n_find; i++) {
		if (!z->find[i].case_path)
			continue;
		struct fuzz_case_file *c = &res->cases[res->n_cases++];
		c->id = g_strdup(z->find[i].id);
		c->path = g_strdup(z->find[i].case_path);
		c->finding = (int)i;
	}
	fz_free(z);
	return 0;
}

void fuzz_result_free(struct fuzz_result *res)
{
	if (res->record)
		json_object_unref(res->record);
	if (res->setup)
		json_object_unref(res->setup);
	for (size_t i = 0; i < res->n_cases; i++) {
		g_free(res->cases[i].id);
		g_free(res->cases[i].path);
	}
	g_free(res->cases);
	memset(res, 0, sizeof *res);
}
