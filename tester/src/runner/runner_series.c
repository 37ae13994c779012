/*
 * The case's time series for the charts and results.json (see
 * runner_series.h). Times in the series count from the case's start
 * (its record's started_ns); rates are bytes per second, as the case
 * language's rate results are.
 */
#include "runner_ctx.h"

#include "roce/aeth.h"
#include "roce/transport.h"

#define SERIES_MAX_NOTES 64
/* Bins of a rate or load series: the finest of these widths that gives at
 * most MAX_BINS bins over the span (and, for a rate, a few packets a bin). */
#define MAX_BINS 200u
/* Per-packet lists (pace, marks, latency samples) are cut at this many. */
#define MAX_POINTS 4000u
/* A packet's pace: over this many packets, so that two sent back to back
 * do not read as an infinite rate. */
#define PACE_PACKETS 4u

struct series_measure {
	const struct cl_step *s;
	int step;
	uint64_t from, to, count, bytes, rate;
};

struct series_expect {
	const struct cl_step *s;
	int step;
	long pkt;
	uint64_t delay, min, max;
};

struct series_load {
	int step;
	const struct case_qp *q;
	uint64_t from, to;
};

struct case_series {
	struct series_measure m[SERIES_MAX_NOTES];
	unsigned n_m;
	struct series_expect e[SERIES_MAX_NOTES];
	unsigned n_e;
	struct series_load l[8];
	unsigned n_l;
};

static struct case_series *notes(struct run_ctx *x)
{
	if (!x->series) {
		x->series = calloc(1, sizeof *x->series);
		if (!x->series)
			abort();
	}
	return x->series;
}

void series_measure(struct run_ctx *x, const struct cl_step *s, uint64_t from_ns, uint64_t to_ns, uint64_t count,
		    uint64_t bytes, uint64_t rate)
{
	struct case_series *cs = notes(x);
	if (cs->n_m < SERIES_MAX_NOTES)
		cs->m[cs->n_m++] = (struct series_measure){ s, x->cur_step, from_ns, to_ns, count, bytes, rate };
}

void series_expect(struct run_ctx *x, const struct cl_step *s, long pkt, uint64_t delay_ns, uint64_t min_ns,
		   uint64_t max_ns)
{
	struct case_series *cs = notes(x);
	if (cs->n_e < SERIES_MAX_NOTES)
		cs->e[cs->n_e++] = (struct series_expect){ s, x->cur_step, pkt, delay_ns, min_ns, max_ns };
}

void series_load(struct run_ctx *x, const struct case_qp *q, uint64_t from_ns, uint64_t to_ns)
{
	struct case_series *cs = notes(x);
	if (cs->n_l < sizeof cs->l / sizeof cs->l[0])
		cs->l[cs->n_l++] = (struct series_load){ x->cur_step, q, from_ns, to_ns };
}

/* ---- Helpers ---- */

static gint64 rel(uint64_t t, uint64_t t0)
{
	return t >= t0 ? (gint64)(t - t0) : -(gint64)(t0 - t);
}

static uint64_t bin_width(uint64_t span, uint64_t packets, bool want_packets)
{
	static const uint64_t widths[] = { 50000, 100000, 200000, 500000, 1000000, 2000000, 5000000, 10000000,
					   20000000, 50000000, 100000000, 200000000, 500000000, 1000000000,
					   2000000000, 5000000000, 10000000000 };
	size_t n = sizeof widths / sizeof widths[0];
	for (size_t i = 0; i < n; i++) {
		uint64_t bins = span / widths[i] + 1;
		if (bins > MAX_BINS)
			continue;
		if (want_packets && packets < 2 * bins && i + 1 < n && span / widths[i + 1] + 1 >= 8)
			continue;
		return widths[i];
	}
	return widths[n - 1];
}

static bool parse(const struct case_pkt *p, struct roce_pkt *pk)
{
	roce_parse_frame(pk, p->data, p->len, p->len, ROCE_PARSE_ROCEV1);
	return pk->op != NULL && pk->op->name != NULL && roce_pkt_has(pk, ROCE_H_BTH);
}

static bool ce_marked(const struct roce_pkt *pk)
{
	if (pk->rocev1)
		return false;
	const uint8_t *l3 = roce_pkt_hdr(pk, pk->ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4);
	return l3 && (pk->ip_version == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3)) == 3;
}

static const char *qp_name(struct run_ctx *x, uint32_t qpn)
{
	struct case_qp *q = qpn ? qp_by_tester_qpn(x, qpn) : NULL;
	return q ? q->name : "";
}

static int cmp_time(const void *a, const void *b)
{
	const struct case_pkt *const *pa = a, *const *pb = b;
	if ((*pa)->ts_ns != (*pb)->ts_ns)
		return (*pa)->ts_ns < (*pb)->ts_ns ? -1 : 1;
	return *pa < *pb ? -1 : 1;
}

/* The case's packets in time order (the caller frees the array). */
static const struct case_pkt **by_time(struct run_ctx *x)
{
	const struct case_pkt **o = malloc((x->n_pkts ? x->n_pkts : 1) * sizeof *o);
	if (!o)
		abort();
	for (size_t i = 0; i < x->n_pkts; i++)
		o[i] = &x->pkts[i];
	qsort(o, x->n_pkts, sizeof *o, cmp_time);
	return o;
}

static const char *symbol_bound(const struct cl_step *s, enum cl_key key)
{
	for (unsigned i = 0; i < s->n_args; i++)
		if (s->args[i].id == key && s->args[i].v.kind == CL_V_BIND)
			return s->args[i].v.word;
	return NULL;
}

static const char *unit_name(enum sym_unit u)
{
	switch (u) {
	case SYM_NS: return "ns";
	case SYM_BYTES: return "bytes";
	case SYM_BYTES_PER_S: return "bytes/s";
	case SYM_PER_S: return "1/s";
	default: return "";
	}
}

/* ---- Checks on measured values ---- */

static bool expr_has_counters(const struct cl_expr *e)
{
	for (unsigned i = 0; i < e->n; i++)
		if (e->terms[i].is_sym && !strcmp(e->terms[i].sym, "counters"))
			return true;
	return false;
}

/* Each check that ran and compares a bound value, as the bound it puts on
 * that value: "$during * 2 < $before" bounds during below before / 2. */
static JsonArray *checks_json(struct run_ctx *x, unsigned steps_run)
{
	JsonArray *a = json_array_new();
	for (unsigned i = 0; i < steps_run && i < x->c->n_steps; i++) {
		const struct cl_step *s = &x->c->steps[i];
		if (s->kind != CL_CHECK || expr_has_counters(&s->lhs) || expr_has_counters(&s->rhs) || s->lhs.n != 1)
			continue;
		const struct cl_term *t = &s->lhs.terms[0];
		if (!t->is_sym || t->member || t->sign < 0)
			continue;
		const struct sym_val *sv = sym_find(x, t->sym, NULL);
		if (!sv)
			continue;
		struct step_out o = { 0 };
		o.detail = g_string_new(NULL);
		uint64_t lhs, rhs;
		bool ok = eval(x, &s->lhs, &lhs, &o) && eval(x, &s->rhs, &rhs, &o);
		g_string_free(o.detail, TRUE);
		if (!ok)
			continue;
		/* The bound on the symbol itself: rhs * div / mul. */
		double bound = (double)rhs * (double)(t->div ? t->div : 1) / (double)(t->mul ? t->mul : 1);
		JsonObject *j = json_object_new();
		json_object_set_int_member(j, "step", i + 1);
		json_object_set_int_member(j, "line", s->loc.line);
		json_object_set_string_member(j, "text", s->text);
		json_object_set_string_member(j, "symbol", t->sym);
		json_object_set_string_member(j, "unit", unit_name(sv->unit));
		json_object_set_int_member(j, "value", (gint64)sv->value);
		json_object_set_string_member(j, "cmp", cmp_text(s->cmp));
		json_object_set_int_member(j, "bound", (gint64)(bound + 0.5));
		json_object_set_boolean_member(j, "must", !s->else_inform);
		json_object_set_boolean_member(j, "holds", cmp_ok(s->cmp, lhs, rhs));
		if (s->else_inform && s->info_text)
			json_object_set_string_member(j, "otherwise", s->info_text);
		json_array_add_object_element(a, j);
	}
	return a;
}

static JsonArray *measurements_json(struct run_ctx *x, const struct case_series *cs, uint64_t t0)
{
	JsonArray *a = json_array_new();
	for (unsigned i = 0; cs && i < cs->n_m; i++) {
		const struct series_measure *m = &cs->m[i];
		JsonObject *j = json_object_new();
		json_object_set_int_member(j, "step", m->step + 1);
		json_object_set_int_member(j, "line", m->s->loc.line);
		json_object_set_string_member(j, "qp", m->s->qp ? m->s->qp : "");
		json_object_set_string_member(j, "text", m->s->text);
		const char *sym = symbol_bound(m->s, CL_K_rate);
		if (sym)
			json_object_set_string_member(j, "rate_symbol", sym);
		json_object_set_int_member(j, "from_ns", rel(m->from, t0));
		json_object_set_int_member(j, "to_ns", rel(m->to, t0));
		json_object_set_int_member(j, "packets", (gint64)m->count);
		json_object_set_int_member(j, "bytes", (gint64)m->bytes);
		json_object_set_int_member(j, "rate", (gint64)m->rate);
		json_array_add_object_element(a, j);
		(void)x;
	}
	return a;
}

/* ---- Congestion: the DUT's send rate, CNPs and CE-marked packets ---- */

static bool is_congestion_case(struct run_ctx *x)
{
	for (size_t i = 0; i < x->n_pkts; i++) {
		struct roce_pkt pk;
		if (parse(&x->pkts[i], &pk) && (pk.op->kind == ROCE_K_CNP || ce_marked(&pk)))
			return true;
	}
	return false;
}

/* Per QP, the DUT's requests binned, and paced: at each packet, the bytes
 * of the last PACE_PACKETS over the time since the packet before them. */
static JsonArray *rate_json(struct run_ctx *x, const struct case_pkt **order, uint64_t t0)
{
	JsonArray *a = json_array_new();
	for (unsigned qi = 0; qi < x->n_qps; qi++) {
		uint32_t qpn = x->qps[qi].tester_qpn;
		uint64_t first = 0, last = 0, n = 0;
		struct roce_pkt pk;
		for (size_t k = 0; k < x->n_pkts; k++) {
			const struct case_pkt *p = order[k];
			if (p->tx || p->qpn != qpn || !parse(p, &pk) || !(pk.op->flags & ROCE_OPF_REQUEST))
				continue;
			if (!n++)
				first = p->ts_ns;
			last = p->ts_ns;
		}
		if (n < 2)
			continue;
		uint64_t bin = bin_width(last - first, n, true);
		size_t nb = (size_t)((last - first) / bin + 1);
		gint64 *bytes = calloc(nb, sizeof *bytes), *pkts = calloc(nb, sizeof *pkts);
		if (!bytes || !pkts)
			abort();
		JsonArray *pace = json_array_new();
		/* The pace: the bytes of the last PACE_PACKETS packets over the
		 * time since the one before them. */
		uint64_t ts[PACE_PACKETS + 1] = { 0 };
		size_t lens[PACE_PACKETS + 1] = { 0 }, seen = 0;
		unsigned npace = 0;
		for (size_t k = 0; k < x->n_pkts; k++) {
			const struct case_pkt *p = order[k];
			if (p->tx || p->qpn != qpn || !parse(p, &pk) || !(pk.op->flags & ROCE_OPF_REQUEST))
				continue;
			size_t b = (size_t)((p->ts_ns - first) / bin);
			bytes[b] += (gint64)p->len;
			pkts[b]++;
			ts[seen % (PACE_PACKETS + 1)] = p->ts_ns;
			lens[seen % (PACE_PACKETS + 1)] = p->len;
			seen++;
			uint64_t before = ts[seen % (PACE_PACKETS + 1)]; /* the oldest kept: PACE_PACKETS ago */
			if (seen > PACE_PACKETS && p->ts_ns > before && npace++ < MAX_POINTS) {
				size_t sum = 0;
				for (unsigned j = 1; j <= PACE_PACKETS; j++)
					sum += lens[(seen - j) % (PACE_PACKETS + 1)];
				JsonArray *pt = json_array_new();
				json_array_add_int_element(pt, rel(p->ts_ns, t0));
				json_array_add_int_element(pt, (gint64)((double)sum * 1e9 / (double)(p->ts_ns - before)));
				json_array_add_array_element(pace, pt);
			}
		}
		JsonObject *j = json_object_new();
		json_object_set_string_member(j, "qp", x->qps[qi].name);
		json_object_set_int_member(j, "from_ns", rel(first, t0));
		json_object_set_int_member(j, "bin_ns", (gint64)bin);
		JsonArray *jb = json_array_new(), *jp = json_array_new();
		for (size_t b = 0; b < nb; b++) {
			json_array_add_int_element(jb, bytes[b]);
			json_array_add_int_element(jp, pkts[b]);
		}
		free(bytes);
		free(pkts);
		json_object_set_array_member(j, "bytes", jb);
		json_object_set_array_member(j, "packets", jp);
		json_object_set_array_member(j, "pace", pace);
		json_array_add_object_element(a, j);
	}
	return a;
}

static JsonObject *mark_json(struct run_ctx *x, const struct case_pkt *p, uint64_t t0)
{
	JsonObject *j = json_object_new();
	json_object_set_int_member(j, "t_ns", rel(p->ts_ns, t0));
	json_object_set_string_member(j, "from", p->tx ? "tester" : "dut");
	json_object_set_string_member(j, "qp", qp_name(x, p->qpn));
	return j;
}

/* CNPs and CE-marked packets in time order; and for each CNP of the DUT
 * the CE-marked packets of its QP the tester sent since the QP's previous
 * CNP (the ones it answers: one CNP may cover several). */
static void marks_json(struct run_ctx *x, const struct case_pkt **order, uint64_t t0, JsonObject *out)
{
	JsonArray *cnp = json_array_new(), *ce = json_array_new(), *causes = json_array_new();
	unsigned ncnp = 0, nce = 0;
	struct {
		uint32_t qpn;
		unsigned n;
		uint64_t first, last;
	} pending[MAX_QPS] = { { 0 } };
	for (unsigned i = 0; i < x->n_qps && i < MAX_QPS; i++)
		pending[i].qpn = x->qps[i].tester_qpn;
	for (size_t k = 0; k < x->n_pkts; k++) {
		const struct case_pkt *p = order[k];
		struct roce_pkt pk;
		if (!parse(p, &pk))
			continue;
		int qi = -1;
		for (unsigned i = 0; i < x->n_qps && i < MAX_QPS; i++)
			if (pending[i].qpn == p->qpn)
				qi = (int)i;
		if (pk.op->kind == ROCE_K_CNP) {
			if (ncnp++ < MAX_POINTS)
				json_array_add_object_element(cnp, mark_json(x, p, t0));
			if (!p->tx && qi >= 0) {
				JsonObject *j = json_object_new();
				json_object_set_int_member(j, "cnp_ns", rel(p->ts_ns, t0));
				json_object_set_string_member(j, "qp", x->qps[qi].name);
				json_object_set_int_member(j, "ce_packets", pending[qi].n);
				if (pending[qi].n) {
					json_object_set_int_member(j, "ce_first_ns", rel(pending[qi].first, t0));
					json_object_set_int_member(j, "ce_last_ns", rel(pending[qi].last, t0));
				}
				if (json_array_get_length(causes) < MAX_POINTS)
					json_array_add_object_element(causes, j);
				else
					json_object_unref(j);
				pending[qi].n = 0;
			}
		} else if (ce_marked(&pk)) {
			if (nce++ < MAX_POINTS)
				json_array_add_object_element(ce, mark_json(x, p, t0));
			if (p->tx && qi >= 0) {
				if (!pending[qi].n++)
					pending[qi].first = p->ts_ns;
				pending[qi].last = p->ts_ns;
			}
		}
	}
	json_object_set_array_member(out, "cnp", cnp);
	json_object_set_int_member(out, "cnp_count", ncnp);
	json_object_set_array_member(out, "ce", ce);
	json_object_set_int_member(out, "ce_count", nce);
	json_object_set_array_member(out, "cnp_causes", causes);
}

/* ---- Load steps: throughput and latency over time ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The p-th percentile (0..1000 per mille) of sorted values: nearest rank. */
static uint64_t permille(const uint64_t *v, size_t n, unsigned p)
{
	if (!n)
		return 0;
	size_t rank = (size_t)(((uint64_t)p * n + 999) / 1000);
	return v[rank ? rank - 1 : 0];
}

struct outstanding {
	uint32_t psn;
	uint64_t sent;
	size_t len;
};

/* Latency of a request: from its first transmission to the first ACK or
 * response of the DUT that covers its PSN (an ACK acknowledges every PSN
 * up to its own). */
static JsonObject *load_json(struct run_ctx *x, const struct case_pkt **order, const struct series_load *l, uint64_t t0)
{
	uint32_t qpn = l->q->tester_qpn;
	uint64_t span = l->to > l->from ? l->to - l->from : 1;
	uint64_t bin = bin_width(span, 0, false);
	size_t nb = (size_t)(span / bin + 1);
	gint64 *sent = calloc(nb, sizeof *sent), *acked = calloc(nb, sizeof *acked);
	gint64 *sent_req = calloc(nb, sizeof *sent_req), *acked_bytes = calloc(nb, sizeof *acked_bytes);
	uint64_t **lat = calloc(nb, sizeof *lat);
	size_t *nlat = calloc(nb, sizeof *nlat), *caplat = calloc(nb, sizeof *caplat);
	size_t cap = 1024, head = 0, tail = 0;
	struct outstanding *out = malloc(cap * sizeof *out);
	uint64_t *all = NULL;
	size_t nall = 0, capall = 0;
	GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal); /* PSNs sent (+1) */
	if (!sent || !acked || !sent_req || !acked_bytes || !lat || !nlat || !caplat || !out)
		abort();
	for (size_t k = 0; k < x->n_pkts; k++) {
		const struct case_pkt *p = order[k];
		struct roce_pkt pk;
		if (p->qpn != qpn || p->ts_ns < l->from || p->ts_ns > l->to || !parse(p, &pk))
			continue;
		size_t b = (size_t)((p->ts_ns - l->from) / bin);
		uint32_t psn = roce_bth_psn(roce_pkt_hdr(&pk, ROCE_H_BTH));
		if (p->tx && (pk.op->flags & ROCE_OPF_REQUEST)) {
			sent[b] += (gint64)p->len;
			sent_req[b]++;
			/* A retransmission: its latency counts from the first. */
			if (!g_hash_table_add(seen, GUINT_TO_POINTER(psn + 1)))
				continue;
			if (tail == cap) {
				memmove(out, out + head, (tail - head) * sizeof *out);
				tail -= head;
				head = 0;
				if (tail == cap) {
					cap *= 2;
					out = realloc(out, cap * sizeof *out);
					if (!out)
						abort();
				}
			}
			out[tail++] = (struct outstanding){ psn, p->ts_ns, p->len };
			continue;
		}
		if (p->tx || !(pk.op->flags & ROCE_OPF_RESPONSE))
			continue;
		if (roce_pkt_has(&pk, ROCE_H_AETH) && roce_aeth_type(roce_pkt_hdr(&pk, ROCE_H_AETH)) != ROCE_SYN_ACK)
			continue; /* a NAK or RNR NAK acknowledges nothing new */
		while (head < tail && roce_psn_diff(psn, out[head].psn) >= 0) {
			uint64_t d = p->ts_ns - out[head].sent;
			acked_bytes[b] += (gint64)out[head].len;
			head++;
			acked[b]++;
			if (nlat[b] == caplat[b]) {
				caplat[b] = caplat[b] ? 2 * caplat[b] : 64;
				lat[b] = realloc(lat[b], caplat[b] * sizeof **lat);
				if (!lat[b])
					abort();
			}
			lat[b][nlat[b]++] = d;
			if (nall == capall) {
				capall = capall ? 2 * capall : 1024;
				all = realloc(all, capall * sizeof *all);
				if (!all)
					abort();
			}
			all[nall++] = d;
		}
	}
	JsonObject *j = json_object_new();
	json_object_set_int_member(j, "step", l->step + 1);
	json_object_set_string_member(j, "qp", l->q->name);
	json_object_set_int_member(j, "from_ns", rel(l->from, t0));
	json_object_set_int_member(j, "to_ns", rel(l->to, t0));
	json_object_set_int_member(j, "bin_ns", (gint64)bin);
	JsonArray *js = json_array_new(), *ja = json_array_new(), *jsr = json_array_new(), *jab = json_array_new(), *p50 = json_array_new(), *p99 = json_array_new(),
		  *pmax = json_array_new();
	for (size_t b = 0; b < nb; b++) {
		json_array_add_int_element(js, sent[b]);
		json_array_add_int_element(ja, acked[b]);
		json_array_add_int_element(jsr, sent_req[b]);
		json_array_add_int_element(jab, acked_bytes[b]);
		if (nlat[b]) {
			qsort(lat[b], nlat[b], sizeof **lat, cmp_u64);
			json_array_add_int_element(p50, (gint64)permille(lat[b], nlat[b], 500));
			json_array_add_int_element(p99, (gint64)permille(lat[b], nlat[b], 990));
			json_array_add_int_element(pmax, (gint64)lat[b][nlat[b] - 1]);
		} else {
			json_array_add_null_element(p50);
			json_array_add_null_element(p99);
			json_array_add_null_element(pmax);
		}
		free(lat[b]);
	}
	json_object_set_array_member(j, "sent_bytes", js);
	json_object_set_array_member(j, "sent_requests", jsr);
	json_object_set_array_member(j, "acked_requests", ja);
	json_object_set_array_member(j, "acked_bytes", jab);
	JsonObject *lb = json_object_new();
	json_object_set_array_member(lb, "p50", p50);
	json_object_set_array_member(lb, "p99", p99);
	json_object_set_array_member(lb, "max", pmax);
	json_object_set_object_member(j, "latency_ns", lb);
	JsonObject *pc = json_object_new();
	qsort(all, nall, sizeof *all, cmp_u64);
	json_object_set_int_member(pc, "samples", (gint64)nall);
	static const struct {
		const char *name;
		unsigned pm;
	} ps[] = { { "p50", 500 }, { "p90", 900 }, { "p99", 990 }, { "p999", 999 }, { "max", 1000 } };
	for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
		if (nall)
			json_object_set_int_member(pc, ps[i].name, (gint64)permille(all, nall, ps[i].pm));
		else
			json_object_set_null_member(pc, ps[i].name);
	}
	json_object_set_object_member(j, "latency_percentiles", pc);
	free(sent);
	free(acked);
	free(sent_req);
	free(acked_bytes);
	free(lat);
	free(nlat);
	free(caplat);
	free(out);
	free(all);
	g_hash_table_destroy(seen);
	return j;
}

/* ---- Timers: retransmissions and measured delays against their windows ---- */

/* A DUT request whose PSN the DUT sent before on the same QP. */
static bool retransmitted(struct run_ctx *x, long idx, uint32_t *psn_out)
{
	if (idx < 0 || (size_t)idx >= x->n_pkts)
		return false;
	const struct case_pkt *p = &x->pkts[idx];
	struct roce_pkt pk, ok;
	if (p->tx || !parse(p, &pk) || !(pk.op->flags & ROCE_OPF_REQUEST))
		return false;
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(&pk, ROCE_H_BTH));
	*psn_out = psn;
	for (size_t i = 0; i < x->n_pkts; i++) {
		const struct case_pkt *o = &x->pkts[i];
		if ((long)i == idx || o->tx || o->qpn != p->qpn || o->ts_ns >= p->ts_ns || !parse(o, &ok) ||
		    !(ok.op->flags & ROCE_OPF_REQUEST))
			continue;
		if (roce_bth_psn(roce_pkt_hdr(&ok, ROCE_H_BTH)) == psn)
			return true;
	}
	return false;
}

static JsonArray *timers_json(struct run_ctx *x, const struct case_series *cs, JsonArray *checks)
{
	JsonArray *a = json_array_new();
	unsigned round = 0;
	for (unsigned i = 0; cs && i < cs->n_e; i++) {
		const struct series_expect *e = &cs->e[i];
		const char *sym = symbol_bound(e->s, CL_K_delay);
		uint32_t psn = 0;
		bool re = retransmitted(x, e->pkt, &psn);
		if (!re && !sym)
			continue;
		JsonObject *j = json_object_new();
		json_object_set_int_member(j, "step", e->step + 1);
		json_object_set_int_member(j, "line", e->s->loc.line);
		json_object_set_string_member(j, "qp", e->s->qp ? e->s->qp : "");
		json_object_set_string_member(j, "what", re ? "retransmission" : "delay");
		if (re) {
			json_object_set_int_member(j, "psn", psn);
			json_object_set_int_member(j, "round", ++round);
		}
		if (sym)
			json_object_set_string_member(j, "symbol", sym);
		json_object_set_int_member(j, "value_ns", (gint64)e->delay);
		json_object_set_int_member(j, "window_min_ns", (gint64)e->min);
		json_object_set_int_member(j, "window_max_ns", (gint64)e->max);
		JsonArray *b = json_array_new();
		for (guint k = 0; sym && k < json_array_get_length(checks); k++) {
			JsonObject *c = json_array_get_object_element(checks, k);
			if (!strcmp(json_object_get_string_member(c, "symbol"), sym))
				json_array_add_object_element(b, json_object_ref(c));
		}
		json_object_set_array_member(j, "checks", b);
		json_array_add_object_element(a, j);
	}
	return a;
}

JsonObject *series_json(struct run_ctx *x, unsigned steps_run, uint64_t t0_ns)
{
	struct case_series *cs = x->series;
	JsonObject *o = json_object_new();
	const struct case_pkt **order = by_time(x);
	JsonArray *checks = checks_json(x, steps_run);
	json_object_set_array_member(o, "measurements", measurements_json(x, cs, t0_ns));
	json_object_set_array_member(o, "timers", timers_json(x, cs, checks));
	json_object_set_array_member(o, "checks", checks);
	if (is_congestion_case(x)) {
		JsonObject *cg = json_object_new();
		json_object_set_array_member(cg, "rate", rate_json(x, order, t0_ns));
		marks_json(x, order, t0_ns, cg);
		json_object_set_object_member(o, "congestion", cg);
	}
	JsonArray *loads = json_array_new();
	for (unsigned i = 0; cs && i < cs->n_l; i++)
		json_array_add_object_element(loads, load_json(x, order, &cs->l[i], t0_ns));
	json_object_set_array_member(o, "load", loads);
	free(order);
	free(cs);
	x->series = NULL;
	return o;
}
