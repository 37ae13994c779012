/*
 * Asynchronous events (get_async_event): the backend's events are routed
 * to the session that owns their object, by the object's handle (device
 * and port events to every session); each session keeps its own bounded
 * queue, read oldest first, with a bounded wait like poll_cq's.
 */
#include "methods.h"

#define DRAIN_BATCH 64
#define DRAIN_ROUNDS 64 /* bounded: at most 4096 events a drain */
#define MAX_READ 1024

static void session_push(struct session *s, const struct session_event *e)
{
	if (!s->events)
		return; /* the session is being closed */
	if (g_queue_get_length(s->events) >= AGENT_MAX_EVENTS) {
		g_free(g_queue_pop_head(s->events));
		s->events_lost++;
	}
	struct session_event *copy = g_new(struct session_event, 1);
	*copy = *e;
	g_queue_push_tail(s->events, copy);
}

/* The handle of type t whose object is obj, in any session. */
static struct handle *owner(struct agent *a, enum htype t, const void *obj, struct session **out)
{
	for (GList *l = a->sessions; l; l = l->next) {
		struct session *s = l->data;
		if (!s->handles)
			continue;
		GHashTableIter it;
		gpointer k, v;
		g_hash_table_iter_init(&it, s->handles);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			struct handle *h = v;
			if (h->type == t && h->obj == obj) {
				*out = s;
				return h;
			}
		}
	}
	return NULL;
}

static void route(struct agent *a, const struct be_async_event *ev)
{
	struct session_event e = { .type = (int)ev->type, .about = ap_event_about((enum ap_event)ev->type) };
	if (e.about == AP_ABOUT_PORT || e.about == AP_ABOUT_DEVICE) {
		e.port = ev->port;
		for (GList *l = a->sessions; l; l = l->next)
			session_push(l->data, &e);
		return;
	}
	enum htype t;
	const void *obj;
	switch (e.about) {
	case AP_ABOUT_QP: t = H_QP; obj = ev->qp; break;
	case AP_ABOUT_SRQ: t = H_SRQ; obj = ev->srq; break;
	case AP_ABOUT_CQ: t = H_CQ; obj = ev->cq; break;
	default: return; /* a type the protocol does not know */
	}
	struct session *s = NULL;
	struct handle *h = obj ? owner(a, t, obj, &s) : NULL;
	if (!h)
		return; /* its object is gone, or no session made it */
	e.handle = h->id;
	session_push(s, &e);
}

void agent_events_drain(struct agent *a)
{
	const struct backend_ops *ops = a->be ? a->be->ops : NULL;
	if (!ops || !ops->get_async_events)
		return;
	for (int round = 0; round < DRAIN_ROUNDS; round++) {
		struct be_async_event ev[DRAIN_BATCH];
		unsigned n = 0;
		struct be_error err = { 0 };
		if (ops->get_async_events(a->be, ev, DRAIN_BATCH, &n, &err)) {
			g_warning("reading the device's asynchronous events: %s", err.message);
			return;
		}
		for (unsigned i = 0; i < n && i < DRAIN_BATCH; i++)
			route(a, &ev[i]);
		if (n < DRAIN_BATCH)
			return;
	}
}

void session_events_free(struct session *s)
{
	if (s->events)
		g_queue_free_full(s->events, g_free);
	s->events = NULL;
}

/* Moves up to max of the session's events into the result; returns how
 * many. The result always has "events" and "lost". */
static unsigned take_events(struct req *r, unsigned max)
{
	struct session *s = r->s;
	JsonBuilder *b = req_result(r);
	json_builder_set_member_name(b, "events");
	json_builder_begin_array(b);
	unsigned n = 0;
	while (n < max && s->events && !g_queue_is_empty(s->events)) {
		struct session_event *e = g_queue_pop_head(s->events);
		const char *name = ap_event_name((enum ap_event)e->type);
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "type");
		json_builder_add_string_value(b, name ? name : "UNKNOWN");
		static const char *const member[] = { [AP_ABOUT_QP] = "qp", [AP_ABOUT_SRQ] = "srq",
						      [AP_ABOUT_CQ] = "cq", [AP_ABOUT_PORT] = "port" };
		if (e->about >= AP_ABOUT_QP && e->about <= AP_ABOUT_PORT) {
			json_builder_set_member_name(b, member[e->about]);
			json_builder_add_int_value(b, e->about == AP_ABOUT_PORT ? e->port : e->handle);
		}
		json_builder_end_object(b);
		g_free(e);
		n++;
	}
	json_builder_end_array(b);
	/* Events this session lost to a full queue since it last read. */
	result_u64(r, "lost", s->events_lost);
	s->events_lost = 0;
	return n;
}

static bool pending(struct session *s)
{
	return s->events && !g_queue_is_empty(s->events);
}

void method_get_async_event(struct req *r)
{
	uint32_t max, timeout;
	if (!param_u32(r, "max", false, 16, MAX_READ, &max) ||
	    !param_u32(r, "timeout_ms", false, 0, AGENT_MAX_POLL_MS, &timeout))
		return;
	if (max == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.max: must be 1..%u", MAX_READ);
		return;
	}
	if (!OPS(r)->get_async_events) {
		req_fail(r, AE_UNSUPPORTED, "the %s backend reports no asynchronous events", OPS(r)->name);
		return;
	}
	struct session *s = r->s;
	agent_events_drain(s->agent);
	if (pending(s) || timeout == 0) {
		take_events(r, max);
		return;
	}
	poll_wait_begin(r, WAIT_EVENTS, max, timeout);
}

bool agent_events_retry(struct session *s, bool final)
{
	agent_events_drain(s->agent);
	if (!pending(s) && !final)
		return false;
	struct req r = { .s = s, .id = s->poll.id };
	take_events(&r, s->poll.max);
	poll_wait_end(s, &r);
	return true;
}
