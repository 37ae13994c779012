/*
 * The runner's shared receive queues and asynchronous events: the DUT's
 * SRQs through the agent (create, arm, query, receives posted), the
 * tester's (counts of receives its QPs share), and the DUT's events read
 * with get_async_event into a sequence of their own that 'expect event'
 * takes in order.
 */
#include "runner_ctx.h"

/* ---- SRQs ---- */

struct case_srq *srq_of(struct run_ctx *x, const char *name, bool peer)
{
	for (unsigned i = 0; name && i < x->n_srqs; i++)
		if (x->srqs[i].peer == peer && !strcmp(x->srqs[i].name, name))
			return &x->srqs[i];
	return NULL;
}

static struct case_srq *new_srq(struct run_ctx *x, const char *name, bool peer, struct step_out *o)
{
	if (x->n_srqs == MAX_SRQS) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "more than %d SRQs in one case", MAX_SRQS);
		return NULL;
	}
	struct case_srq *s = &x->srqs[x->n_srqs];
	memset(s, 0, sizeof *s);
	s->name = name;
	s->peer = peer;
	s->id = x->n_srqs++;
	return s;
}

void step_dut_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	const struct cl_dut_srq_args *a = &s->a.dut_srq;
	uint64_t max_wr, limit;
	int64_t pd;
	if (!param_u64(x, &a->max_wr, &max_wr, o) || !param_u64(x, &a->limit, &limit, o) || !dut_has(x, CL_CAP_SRQ, o) ||
	    !pd_handle(x, s->pd, &pd, o))
		return;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", pd);
	agent_set_u64(p, "max_wr", max_wr);
	agent_set_u64(p, "limit", limit);
	if (!call(x, o, AP_M_create_srq, p, &res))
		return;
	uint64_t h;
	bool ok = agent_get_u64(res, "srq", &h);
	json_object_unref(res);
	if (!ok) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "create_srq: the reply has no srq handle");
		return;
	}
	struct case_srq *srq = new_srq(x, s->name, false, o);
	if (!srq)
		return;
	srq->handle = (int64_t)h;
	g_string_printf(o->detail, "SRQ %s: %llu receives at most, limit %llu%s", s->name, (unsigned long long)max_wr,
			(unsigned long long)limit, limit ? " (armed)" : "");
}

void step_dut_arm(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_srq *srq = srq_of(x, s->srq, false);
	uint64_t limit;
	if (!param_u64(x, &s->a.dut_arm.limit, &limit, o))
		return;
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "srq", srq->handle);
	agent_set_u64(p, "limit", limit);
	call(x, o, AP_M_modify_srq, p, NULL);
}

void step_dut_query_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	struct case_srq *srq = srq_of(x, s->srq, false);
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "srq", srq->handle);
	if (!call(x, o, AP_M_query_srq, p, &res))
		return;
	for (unsigned i = 0; i < s->n_args; i++) {
		const struct cl_arg *a = &s->args[i];
		uint64_t got;
		if (!agent_get_u64(res, a->key, &got)) {
			o->st = S_FAIL;
			g_string_append_printf(o->expected, "%s; ", a->key);
			g_string_append_printf(o->observed, "%s missing from query_srq; ", a->key);
			continue;
		}
		if (!check_number(x, a, got, o))
			break;
	}
	json_object_unref(res);
}

void step_post_srq_recv(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	dut_post_recv(x, s, AP_M_post_srq_recv, "srq", srq_of(x, s->srq, false)->handle, o);
}

void step_peer_srq(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	uint64_t recv;
	if (!param_u64(x, &s->a.peer_srq.recv, &recv, o))
		return;
	struct case_srq *srq = srq_of(x, s->name, true);
	if (!srq && !(srq = new_srq(x, s->name, true, o)))
		return;
	if (recv > LONG_MAX || peer_srq_set_recv(x->r->peer, srq->id, (long)recv) != 0) {
		o->st = S_ERROR;
		g_string_printf(o->detail, "the tester cannot make SRQ %s with %llu receives (%d SRQs at most)", s->name,
				(unsigned long long)recv, PEER_MAX_SRQS);
		return;
	}
	if (!peer_srq_xrc(x, s, srq, o))
		return;
	g_string_printf(o->detail, "tester SRQ %s: %llu receives", s->name, (unsigned long long)recv);
	if (srq->xrc)
		g_string_append_printf(o->detail, ", XRC SRQ number 0x%06x", srq->srqn);
}

/* ---- Asynchronous events ---- */

/* Reads what events the agent has (not waiting) into the case's sequence;
 * false when the call failed (o says why). */
static bool read_events(struct run_ctx *x, struct step_out *o)
{
	unsigned room = MAX_EVENTS - x->n_events_in;
	if (!room)
		return true;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "max", room);
	json_object_set_int_member(p, "timeout_ms", 0);
	if (!call(x, o, AP_M_get_async_event, p, &res))
		return false;
	JsonNode *en = json_object_get_member(res, "events");
	JsonArray *arr = en && JSON_NODE_HOLDS_ARRAY(en) ? json_node_get_array(en) : NULL;
	for (guint i = 0; arr && i < json_array_get_length(arr) && x->n_events_in < MAX_EVENTS; i++) {
		JsonNode *n = json_array_get_element(arr, i);
		if (!JSON_NODE_HOLDS_OBJECT(n))
			continue;
		JsonObject *e = json_node_get_object(n);
		struct case_event *ev = &x->events_in[x->n_events_in++];
		memset(ev, 0, sizeof *ev);
		ev->ts_ns = rawio_now();
		const char *type = json_object_has_member(e, "type") ? json_object_get_string_member(e, "type") : NULL;
		outf(ev->type_name, sizeof ev->type_name, "%s", type ? type : "?");
		ev->type = type ? cl_event_by_name(type) : -1;
		static const char *const abouts[] = { "qp", "srq", "cq", "port" };
		for (size_t k = 0; k < sizeof abouts / sizeof abouts[0]; k++) {
			uint64_t h;
			if (agent_get_u64(e, abouts[k], &h)) {
				outf(ev->about, sizeof ev->about, "%s", abouts[k]);
				ev->handle = (int64_t)h;
				break;
			}
		}
	}
	json_object_unref(res);
	return true;
}

static void take_event(struct run_ctx *x, unsigned i, struct case_event *out)
{
	*out = x->events_in[i];
	memmove(&x->events_in[i], &x->events_in[i + 1], (x->n_events_in - i - 1) * sizeof *x->events_in);
	x->n_events_in--;
}

/* The event in words, with the case's name of what it is about. */
static void event_text(struct run_ctx *x, const struct case_event *ev, char *buf, size_t n)
{
	const char *name = NULL;
	for (unsigned i = 0; !strcmp(ev->about, "qp") && i < x->n_qps; i++)
		if (x->qps[i].dut_qp == ev->handle)
			name = x->qps[i].name;
	for (unsigned i = 0; !strcmp(ev->about, "srq") && i < x->n_srqs; i++)
		if (!x->srqs[i].peer && x->srqs[i].handle == ev->handle)
			name = x->srqs[i].name;
	if (name)
		outf(buf, n, "%s on %s %s", ev->type_name, ev->about, name);
	else if (ev->about[0])
		outf(buf, n, "%s on %s %lld", ev->type_name, ev->about, (long long)ev->handle);
	else
		outf(buf, n, "%s", ev->type_name);
}

/* An event about a port or the whole device, not about an object. */
static bool is_environment_event(const struct case_event *ev)
{
	return !strcmp(ev->about, "port") || !ev->about[0];
}

/* expect event TYPE [qp=Q | srq=S] [within T]: the next event is it.
 * expect no event [TYPE] within T: none (of that type) comes. */
void step_expect_event(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	bool none = s->kind == CL_EXPECT_NO_EVENT;
	uint64_t start = x->ref_ns;
	uint64_t end = (none ? rawio_now() : start) + (s->has_within ? s->within_max : x->r->opts.default_wait_ns);
	if (end > x->deadline_ns)
		end = x->deadline_ns;
	const char *tname = s->event >= 0 ? cl_event_name(s->event) : NULL;
	/* A port's or the device's event (PORT_ACTIVE as the link settles,
	 * GID_CHANGE) is the host's, not an answer to the case: it is passed
	 * over, and noted, unless the step asks for such an event. */
	bool env_asked = s->event >= 0 && (cl_event_about(s->event) == CL_EVENT_PORT ||
					   cl_event_about(s->event) == CL_EVENT_DEVICE);
	for (;;) {
		for (unsigned k = 0; !env_asked && k < x->n_events_in;) {
			if (!is_environment_event(&x->events_in[k])) {
				k++;
				continue;
			}
			struct case_event ev;
			take_event(x, k, &ev);
			char text[120];
			event_text(x, &ev, text, sizeof text);
			g_string_append_printf(o->detail, "%spassed over %s (the host's, not the case's)",
					       o->detail->len ? "; " : "", text);
		}
		unsigned i = 0;
		for (; i < x->n_events_in; i++)
			if (!none || s->event < 0 || x->events_in[i].type == s->event)
				break;
		if (i < x->n_events_in) {
			struct case_event ev;
			take_event(x, i, &ev);
			char text[120];
			event_text(x, &ev, text, sizeof text);
			if (none) {
				o->st = S_FAIL;
				g_string_printf(o->expected, "no %s event of the DUT within %.3f ms", tname ? tname : "asynchronous",
						(double)s->within_max / 1e6);
				g_string_printf(o->observed, "%s", text);
				return;
			}
			const struct case_qp *q = s->qp ? find_qp(x, s->qp) : NULL;
			const struct case_srq *srq = s->srq ? srq_of(x, s->srq, false) : NULL;
			bool ok = ev.type == s->event && (!q || (!strcmp(ev.about, "qp") && ev.handle == q->dut_qp)) &&
				  (!srq || (!strcmp(ev.about, "srq") && ev.handle == srq->handle));
			if (!ok) {
				o->st = S_FAIL;
				g_string_printf(o->expected, "the DUT's next asynchronous event %s%s%s%s%s", tname, q ? " on QP " : "",
						q ? q->name : "", srq ? " on SRQ " : "", srq ? srq->name : "");
				g_string_printf(o->observed, "%s", text);
			} else {
				g_string_append_printf(o->detail, "%s%s after %.3f ms", o->detail->len ? "; " : "", text,
						ev.ts_ns > start ? (double)(ev.ts_ns - start) / 1e6 : 0.0);
			}
			x->ref_ns = ev.ts_ns > x->ref_ns ? ev.ts_ns : x->ref_ns;
			return;
		}
		unsigned before = x->n_events_in;
		if (!read_events(x, o))
			return;
		if (x->n_events_in > before)
			continue;
		uint64_t now = rawio_now();
		if (now >= end || interrupted(x->r))
			break;
		uint64_t next = now + 2 * NS_PER_MS;
		pump_until(x->r, -1, next < end ? next : end, false);
	}
	if (none) {
		/* Say what did come: events of other types stay for a later
		 * step, and a reader sees that one was there. */
		g_string_append_printf(o->detail, "%sno %s event in %.3f ms", o->detail->len ? "; " : "",
				       tname ? tname : "asynchronous", (double)(end - start) / 1e6);
		for (unsigned k = 0; k < x->n_events_in; k++) {
			char text[120];
			event_text(x, &x->events_in[k], text, sizeof text);
			g_string_append_printf(o->detail, "%s %s", k ? "," : "; read and left for later:", text);
		}
		x->ref_ns = end;
		return;
	}
	o->st = S_FAIL;
	g_string_printf(o->expected, "the DUT's asynchronous event %s within %.3f ms", tname, (double)(end - start) / 1e6);
	g_string_printf(o->observed, "no event");
	x->ref_ns = end;
}
