/* The DUT's counters around a case (see counters.h). */
#include "counters.h"

#include <string.h>

struct counter_val {
	char *name;
	uint64_t value;
};

/* One snapshot of one port, as the agent gave it. */
struct snap {
	bool ok;
	uint64_t taken_ns;
	struct counter_val *v;
	unsigned n;
};

/* One meaning's delta held against the wire. */
struct cross_check {
	enum roce_counter_meaning meaning;
	int64_t delta;
	uint64_t wire;
	bool at_least; /* the delta must be at least the wire's count (else at most) */
	bool agrees;
	char *counters; /* the device's counters of the meaning, by name */
	char *evidence;
	char *message; /* the finding, when it disagrees */
};

struct case_counters {
	GArray *checks; /* struct cross_check */
	unsigned n_ports;
	struct snap before[CASE_COUNTERS_MAX_PORTS], after[CASE_COUNTERS_MAX_PORTS];
	uint64_t after_ns;     /* when the snapshot after the case was asked for */
	char *driver, *device; /* the table's driver (NULL: none) and the device's name */
	GString *note;         /* why there are no deltas, or what is missing */
};

static void snap_clear(struct snap *s)
{
	for (unsigned i = 0; i < s->n; i++)
		g_free(s->v[i].name);
	g_free(s->v);
	memset(s, 0, sizeof *s);
}

/* Takes one port's snapshot; false with the agent's word in why. */
static bool take(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, unsigned port, struct snap *s,
		 GString *why)
{
	snap_clear(s);
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_int_member(p, "port", port);
	enum agent_status st = agent_call(a, AP_M_snapshot_counters, p, timeout_ns, &res);
	if (st != AGENT_OK) {
		const char *code = a->fail_code->str;
		g_string_printf(why, "%s%s%s", code, code[0] ? ": " : "", a->fail_msg->str);
		return false;
	}
	JsonNode *cn = json_object_get_member(res, "counters");
	if (!cn || !JSON_NODE_HOLDS_ARRAY(cn)) {
		g_string_printf(why, "the agent's snapshot of port %u has no counters array", port);
		json_object_unref(res);
		return false;
	}
	if (!cc->device) {
		const char *drv = json_object_get_string_member_with_default(res, "driver", NULL);
		cc->driver = g_strdup(drv);
		cc->device = g_strdup(json_object_get_string_member_with_default(res, "device", "?"));
	}
	agent_get_u64(res, "taken_ns", &s->taken_ns);
	JsonArray *arr = json_node_get_array(cn);
	guint n = json_array_get_length(arr);
	s->v = g_new0(struct counter_val, n ? n : 1);
	for (guint i = 0; i < n; i++) {
		JsonNode *en = json_array_get_element(arr, i);
		if (!JSON_NODE_HOLDS_OBJECT(en))
			continue;
		JsonObject *e = json_node_get_object(en);
		const char *name = json_object_get_string_member_with_default(e, "name", NULL);
		uint64_t v;
		if (!name || !agent_get_u64(e, "value", &v))
			continue;
		s->v[s->n].name = g_strdup(name);
		s->v[s->n].value = v;
		s->n++;
	}
	s->ok = true;
	json_object_unref(res);
	return true;
}

static const struct counter_val *find(const struct snap *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

struct case_counters *case_counters_begin(struct agent *a, uint64_t timeout_ns, unsigned *n_ports)
{
	struct case_counters *cc = g_new0(struct case_counters, 1);
	cc->note = g_string_new(NULL);
	GString *why = g_string_new(NULL);
	unsigned want = *n_ports ? *n_ports : CASE_COUNTERS_MAX_PORTS;
	for (unsigned p = 1; p <= want; p++) {
		if (take(cc, a, timeout_ns, p, &cc->before[p - 1], why)) {
			cc->n_ports = p;
			continue;
		}
		/* Port 1 refused: the agent cannot snapshot (an older agent, a
		 * backend without counters). A later port refused: the device
		 * has no more. */
		if (p == 1)
			g_string_printf(cc->note, "the DUT's agent gave no counter snapshot (%s): no counter deltas for this case",
					why->str);
		else if (*n_ports && p <= *n_ports)
			g_string_printf(cc->note, "port %u gave no counter snapshot (%s)", p, why->str);
		break;
	}
	if (!*n_ports && cc->n_ports)
		*n_ports = cc->n_ports;
	g_string_free(why, TRUE);
	return cc;
}

void case_counters_end(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, uint64_t now_ns)
{
	cc->after_ns = now_ns;
	GString *why = g_string_new(NULL);
	for (unsigned p = 1; p <= cc->n_ports; p++)
		if (!take(cc, a, timeout_ns, p, &cc->after[p - 1], why))
			g_string_printf(cc->note, "port %u gave no counter snapshot after the case (%s)", p, why->str);
	g_string_free(why, TRUE);
}

uint64_t case_counters_after_ns(const struct case_counters *cc)
{
	return cc->after_ns;
}

bool case_counters_available(const struct case_counters *cc)
{
	return cc->n_ports && cc->before[0].ok && cc->after[0].ok;
}

/* The delta of a meaning between two snapshots of a port: the sum of its
 * counters' deltas times their scale. False when the device has no counter
 * of that meaning; a counter that went back (a reset) gives no delta. */
static bool meaning_delta(const struct case_counters *cc, const struct snap *b, const struct snap *a,
			  enum roce_counter_meaning m, int64_t *delta)
{
	bool any = false;
	int64_t sum = 0;
	for (unsigned i = 0; i < a->n; i++) {
		const struct roce_counter_info *ci = roce_counter_lookup(cc->driver, a->v[i].name);
		const struct counter_val *bv = ci && ci->meaning == m ? find(b, a->v[i].name) : NULL;
		if (!bv)
			continue;
		any = true;
		sum += (int64_t)(a->v[i].value - bv->value) * (int64_t)ci->scale;
	}
	*delta = sum;
	return any;
}

bool case_counters_meaning_delta(const struct case_counters *cc, enum roce_counter_meaning m, int64_t *delta)
{
	return case_counters_available(cc) && meaning_delta(cc, &cc->before[0], &cc->after[0], m, delta);
}

bool case_counters_now(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, enum roce_counter_meaning m,
		       uint64_t *delta, GString *why)
{
	if (!cc->n_ports || !cc->before[0].ok) {
		g_string_printf(why, "%s", cc->note->len ? cc->note->str : "no counter snapshot before the case");
		return false;
	}
	struct snap now = { 0 };
	if (!take(cc, a, timeout_ns, 1, &now, why)) {
		g_string_prepend(why, "the DUT's agent gave no counter snapshot: ");
		return false;
	}
	int64_t d;
	bool ok = meaning_delta(cc, &cc->before[0], &now, m, &d);
	snap_clear(&now);
	if (!ok) {
		g_string_printf(why, "the DUT (%s, counter table: %s) has no counter of meaning %s", cc->device,
				cc->driver ? cc->driver : "none", roce_counter_meaning_name(m));
		return false;
	}
	if (d < 0) {
		g_string_printf(why, "the DUT's counters of meaning %s went back by %lld (reset during the case)",
				roce_counter_meaning_name(m), (long long)-d);
		return false;
	}
	*delta = (uint64_t)d;
	return true;
}

static void add_port(const struct case_counters *cc, unsigned p, JsonArray *ports)
{
	const struct snap *b = &cc->before[p - 1], *a = &cc->after[p - 1];
	if (!b->ok || !a->ok)
		return;
	JsonObject *po = json_object_new();
	json_object_set_int_member(po, "port", p);
	json_object_set_int_member(po, "interval_ns", (gint64)(a->taken_ns - b->taken_ns));
	JsonArray *deltas = json_array_new();
	for (unsigned i = 0; i < a->n; i++) {
		const struct counter_val *bv = find(b, a->v[i].name);
		if (!bv || bv->value == a->v[i].value)
			continue;
		JsonObject *d = json_object_new();
		json_object_set_string_member(d, "name", a->v[i].name);
		/* Gauges (objects that exist now) may go down. */
		json_object_set_int_member(d, "delta", (gint64)(a->v[i].value - bv->value));
		const struct roce_counter_info *ci = roce_counter_lookup(cc->driver, a->v[i].name);
		if (ci && ci->meaning != ROCE_CNT_NONE) {
			json_object_set_string_member(d, "meaning", roce_counter_meaning_name(ci->meaning));
			json_object_set_string_member(d, "meaning_text", roce_counter_meaning_text(ci->meaning));
			if (ci->scale != 1)
				json_object_set_int_member(d, "scale", ci->scale);
			json_object_set_boolean_member(d, "checked", ci->checked);
		}
		json_array_add_object_element(deltas, d);
	}
	json_object_set_array_member(po, "deltas", deltas);
	JsonObject *meanings = json_object_new();
	for (int m = ROCE_CNT_NONE + 1; m < ROCE_CNT_MEANING_COUNT; m++) {
		int64_t d;
		if (meaning_delta(cc, b, a, (enum roce_counter_meaning)m, &d))
			json_object_set_int_member(meanings, roce_counter_meaning_name((enum roce_counter_meaning)m), d);
	}
	json_object_set_object_member(po, "meanings", meanings);
	json_array_add_object_element(ports, po);
}

JsonObject *case_counters_json(const struct case_counters *cc)
{
	JsonObject *o = json_object_new();
	if (!cc) {
		json_object_set_boolean_member(o, "available", false);
		json_object_set_string_member(o, "note", "not taken: the case ran no step");
		json_object_set_array_member(o, "ports", json_array_new());
		return o;
	}
	json_object_set_boolean_member(o, "available", case_counters_available(cc));
	if (cc->driver)
		json_object_set_string_member(o, "driver", cc->driver);
	else
		json_object_set_null_member(o, "driver");
	if (cc->device)
		json_object_set_string_member(o, "device", cc->device);
	if (cc->device && !cc->driver && !cc->note->len)
		json_object_set_string_member(o, "note", "the counter table has no driver for this device: deltas are "
					     "listed without meanings");
	else if (cc->note->len)
		json_object_set_string_member(o, "note", cc->note->str);
	JsonArray *ports = json_array_new();
	for (unsigned p = 1; p <= cc->n_ports; p++)
		add_port(cc, p, ports);
	json_object_set_array_member(o, "ports", ports);
	if (cc->checks) {
		JsonArray *ks = json_array_new();
		for (guint i = 0; i < cc->checks->len; i++) {
			const struct cross_check *k = &g_array_index(cc->checks, struct cross_check, i);
			JsonObject *j = json_object_new();
			json_object_set_string_member(j, "meaning", roce_counter_meaning_name(k->meaning));
			json_object_set_string_member(j, "counters", k->counters);
			json_object_set_int_member(j, "delta", k->delta);
			json_object_set_string_member(j, "expected", k->at_least ? "at_least" : "at_most");
			json_object_set_int_member(j, "wire", (gint64)k->wire);
			json_object_set_string_member(j, "evidence", k->evidence);
			json_object_set_boolean_member(j, "agrees", k->agrees);
			json_array_add_object_element(ks, j);
		}
		json_object_set_array_member(o, "cross_checks", ks);
	}
	return o;
}

/* The device's counters of a meaning, by name ("tx_nak_psn_seq"). */
static char *counters_of(const struct case_counters *cc, enum roce_counter_meaning m)
{
	GString *names = g_string_new(NULL);
	const struct snap *a = &cc->after[0];
	for (unsigned i = 0; i < a->n; i++) {
		const struct roce_counter_info *ci = roce_counter_lookup(cc->driver, a->v[i].name);
		if (ci && ci->meaning == m)
			g_string_append_printf(names, "%s%s%s", names->len ? ", " : "", a->v[i].name,
					       ci->checked ? "" : " (name from documentation)");
	}
	return g_string_free(names, FALSE);
}

static void hold(struct case_counters *cc, enum roce_counter_meaning m, bool at_least, uint64_t wire, const char *evidence)
{
	int64_t d;
	if (!meaning_delta(cc, &cc->before[0], &cc->after[0], m, &d))
		return;
	struct cross_check k = { m, d, wire, at_least, at_least ? d >= (int64_t)wire : d <= (int64_t)wire, NULL, NULL, NULL };
	k.counters = counters_of(cc, m);
	k.evidence = g_strdup(evidence);
	if (!k.agrees)
		k.message = g_strdup_printf(
			"the DUT's counter%s %s (%s) moved by %lld in the case, %s the wire shows: %s%s",
			strchr(k.counters, ',') ? "s" : "", k.counters, roce_counter_meaning_text(m), (long long)d,
			at_least ? "less than" : "more than", evidence,
			at_least ? "" : " (unless other traffic reached the device during the case)");
	g_array_append_val(cc->checks, k);
}

unsigned case_counters_check(struct case_counters *cc, const struct counter_wire *w, JsonArray *findings,
			     gchar **first)
{
	*first = NULL;
	if (!cc || !case_counters_available(cc))
		return 0;
	cc->checks = g_array_new(FALSE, TRUE, sizeof(struct cross_check));
	char ev[256];
#define EV(...) (g_snprintf(ev, sizeof ev, __VA_ARGS__), ev)
	/* What the DUT sent: the tester saw all of it only when it recorded
	 * every frame of the case. */
	if (w->complete) {
		hold(cc, ROCE_CNT_PACKETS_SENT, true, w->from_dut,
		     EV("the tester received %llu RoCE packets from the DUT for the case's QPs",
			(unsigned long long)w->from_dut));
		hold(cc, ROCE_CNT_SEQ_ERR_NAKS_SENT, true, w->seq_naks_from_dut,
		     EV("the DUT sent %llu NAK PSN Sequence Error", (unsigned long long)w->seq_naks_from_dut));
		hold(cc, ROCE_CNT_RNR_NAKS_SENT, true, w->rnr_naks_from_dut,
		     EV("the DUT sent %llu RNR NAKs", (unsigned long long)w->rnr_naks_from_dut));
		hold(cc, ROCE_CNT_CNP_SENT, true, w->cnps_from_dut,
		     EV("the DUT sent %llu CNPs", (unsigned long long)w->cnps_from_dut));
		hold(cc, ROCE_CNT_RETRANSMISSIONS, true, w->rewinds,
		     EV("the DUT's requester went back to a PSN it had sent %llu times (RNR waits aside)",
			(unsigned long long)w->rewinds));
		hold(cc, ROCE_CNT_DUPLICATE_REQUESTS, true, w->repeated_answers,
		     EV("the DUT answered %llu requests again (a repeated ACK, READ response or Atomic ACK: duplicates "
			"it recognised)", (unsigned long long)w->repeated_answers));
	}
	/* What the DUT received: at most what the tester sent it, and its
	 * own datagrams to groups, which it may loop back to itself. */
	if (w->to_groups_from_dut)
		hold(cc, ROCE_CNT_PACKETS_RECEIVED, false, w->to_dut + w->to_groups_from_dut,
		     EV("the tester sent the DUT %llu RoCE packets, and the DUT sent %llu datagrams to multicast groups, "
			"which it may take in too (looped back to its own attached QPs)",
			(unsigned long long)w->to_dut, (unsigned long long)w->to_groups_from_dut));
	else
		hold(cc, ROCE_CNT_PACKETS_RECEIVED, false, w->to_dut,
		     EV("the tester sent the DUT %llu RoCE packets", (unsigned long long)w->to_dut));
	hold(cc, ROCE_CNT_SEQ_ERR_NAKS_RECEIVED, false, w->seq_naks_to_dut,
	     EV("the tester sent the DUT %llu NAK PSN Sequence Error", (unsigned long long)w->seq_naks_to_dut));
	hold(cc, ROCE_CNT_RNR_NAKS_RECEIVED, false, w->rnr_naks_to_dut,
	     EV("the tester sent the DUT %llu RNR NAKs", (unsigned long long)w->rnr_naks_to_dut));
	hold(cc, ROCE_CNT_CNP_RECEIVED, false, w->cnps_to_dut,
	     EV("the tester sent the DUT %llu CNPs", (unsigned long long)w->cnps_to_dut));
	hold(cc, ROCE_CNT_ECN_CE_RECEIVED, false, w->ce_to_dut,
	     EV("the tester sent the DUT %llu CE-marked packets", (unsigned long long)w->ce_to_dut));
	hold(cc, ROCE_CNT_BAD_ICRC_DROPPED, false, w->bad_icrc_to_dut,
	     EV("the tester sent the DUT %llu packets with a bad ICRC", (unsigned long long)w->bad_icrc_to_dut));
	/* And at least what it must have taken in. */
	hold(cc, ROCE_CNT_BAD_ICRC_DROPPED, true, w->bad_icrc_only,
	     EV("the tester sent the DUT %llu packets addressed to it whose only fault was a bad ICRC, which it must drop "
		"(CA17-24)", (unsigned long long)w->bad_icrc_only));
#undef EV
	unsigned n = 0;
	for (guint i = 0; i < cc->checks->len; i++) {
		const struct cross_check *k = &g_array_index(cc->checks, struct cross_check, i);
		if (k->agrees)
			continue;
		JsonObject *f = json_object_new();
		json_object_set_string_member(f, "rule", "");
		json_object_set_string_member(f, "severity", "info");
		json_object_set_string_member(f, "message", k->message);
		json_object_set_string_member(f, "source", "counter check");
		json_object_set_string_member(f, "counter", k->counters);
		json_object_set_string_member(f, "meaning", roce_counter_meaning_name(k->meaning));
		json_array_add_object_element(findings, f);
		if (!n++)
			*first = g_strdup(k->message);
	}
	return n;
}

bool case_counters_bind(struct case_counters *cc, struct agent *a, uint64_t timeout_ns, const struct cl_expr *const *ex,
			unsigned n, void (*set)(void *ctx, const char *member, uint64_t v), void *ctx, GString *why)
{
	for (unsigned e = 0; e < n; e++) {
		for (unsigned i = 0; i < ex[e]->n; i++) {
			const struct cl_term *t = &ex[e]->terms[i];
			if (!t->is_sym || strcmp(t->sym, "counters") || !t->member)
				continue;
			enum roce_counter_meaning m = roce_counter_meaning_by_name(t->member);
			uint64_t d;
			if (!cc) {
				g_string_printf(why, "no counter snapshot before the case");
				return false;
			}
			if (!case_counters_now(cc, a, timeout_ns, m, &d, why))
				return false;
			set(ctx, t->member, d);
		}
	}
	return true;
}

void case_counters_free(struct case_counters *cc)
{
	if (!cc)
		return;
	for (unsigned p = 0; p < CASE_COUNTERS_MAX_PORTS; p++) {
		snap_clear(&cc->before[p]);
		snap_clear(&cc->after[p]);
	}
	if (cc->checks) {
		for (guint i = 0; i < cc->checks->len; i++) {
			struct cross_check *k = &g_array_index(cc->checks, struct cross_check, i);
			g_free(k->counters);
			g_free(k->evidence);
			g_free(k->message);
		}
		g_array_free(cc->checks, TRUE);
	}
	g_free(cc->driver);
	g_free(cc->device);
	g_string_free(cc->note, TRUE);
	g_free(cc);
}
