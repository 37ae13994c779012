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

struct case_counters {
	unsigned n_ports;
	struct snap before[CASE_COUNTERS_MAX_PORTS], after[CASE_COUNTERS_MAX_PORTS];
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
	enum agent_status st = agent_call(a, "snapshot_counters", p, timeout_ns, &res);
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

void case_counters_end(struct case_counters *cc, struct agent *a, uint64_t timeout_ns)
{
	GString *why = g_string_new(NULL);
	for (unsigned p = 1; p <= cc->n_ports; p++)
		if (!take(cc, a, timeout_ns, p, &cc->after[p - 1], why))
			g_string_printf(cc->note, "port %u gave no counter snapshot after the case (%s)", p, why->str);
	g_string_free(why, TRUE);
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
	return o;
}

void case_counters_free(struct case_counters *cc)
{
	if (!cc)
		return;
	for (unsigned p = 0; p < CASE_COUNTERS_MAX_PORTS; p++) {
		snap_clear(&cc->before[p]);
		snap_clear(&cc->after[p]);
	}
	g_free(cc->driver);
	g_free(cc->device);
	g_string_free(cc->note, TRUE);
	g_free(cc);
}
