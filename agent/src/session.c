/*
 * A session's handles: every object it creates gets a positive id unique
 * within the session; a request can name only its own session's handles,
 * and the session destroys everything in dependency order when it ends.
 */
#include "agent.h"

void session_init_handles(struct session *s)
{
	s->handles = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	s->qpns = g_hash_table_new(g_direct_hash, g_direct_equal);
	s->next_handle = 1;
	/* The events before the session began are not its own. */
	agent_events_drain(s->agent);
	s->events = g_queue_new();
}

struct handle *session_add(struct session *s, enum htype t, void *obj)
{
	struct handle *h = g_new0(struct handle, 1);
	/* Ids are not reused within a session, so a stale id fails cleanly. */
	h->id = s->next_handle++;
	h->type = t;
	h->obj = obj;
	g_hash_table_insert(s->handles, GUINT_TO_POINTER(h->id), h);
	return h;
}

static const char *type_name(enum htype t)
{
	static const char *const n[] = { "PD", "CQ", "MR", "QP", "AH", "SRQ", "MW", "XRCD" };
	return n[t];
}

struct handle *session_get(struct req *r, const char *member, enum htype t, bool required)
{
	if (!json_object_has_member(r->params, member)) {
		if (required)
			req_fail(r, AE_BAD_REQUEST, "params.%s: missing (a %s handle)", member, type_name(t));
		return NULL;
	}
	JsonNode *n = json_object_get_member(r->params, member);
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64) {
		req_fail(r, AE_BAD_REQUEST, "params.%s: must be an integer handle", member);
		return NULL;
	}
	gint64 id = json_node_get_int(n);
	struct handle *h = id > 0 && id <= G_MAXUINT ? g_hash_table_lookup(r->s->handles, GUINT_TO_POINTER((guint)id)) : NULL;
	if (!h || h->type != t) {
		req_fail(r, AE_NO_SUCH_HANDLE, "params.%s: no %s %" G_GINT64_FORMAT " in this session", member,
			 type_name(t), id);
		return NULL;
	}
	return h;
}

static struct handle *lookup(struct session *s, unsigned id)
{
	return g_hash_table_lookup(s->handles, GUINT_TO_POINTER(id));
}

void session_remove(struct session *s, struct handle *h)
{
	if (h->pd) {
		struct handle *pd = lookup(s, h->pd);
		if (pd)
			pd->users--;
	}
	for (int i = 0; i < 2; i++) {
		if (h->cq[i]) {
			struct handle *cq = lookup(s, h->cq[i]);
			if (cq)
				cq->users--;
		}
	}
	if (h->srq) {
		struct handle *srq = lookup(s, h->srq);
		if (srq)
			srq->users--;
	}
	if (h->xrcd) {
		struct handle *xrcd = lookup(s, h->xrcd);
		if (xrcd)
			xrcd->users--;
	}
	if (h->type == H_QP)
		g_hash_table_remove(s->qpns, GUINT_TO_POINTER(h->qpn));
	if (h->mcast)
		g_array_free(h->mcast, TRUE);
	if (h->type == H_MR)
		s->mr_bytes -= h->length;
	g_hash_table_remove(s->handles, GUINT_TO_POINTER(h->id));
}

static void destroy(struct session *s, struct handle *h)
{
	const struct backend_ops *ops = s->agent->be->ops;
	struct be_error err = { 0 };
	int rc = 0;
	if (h->type == H_QP && !session_qp_leave_groups(s, h, &err))
		g_warning("%s: cleaning up handle %u: %s", s->peer, h->id, err.message);
	switch (h->type) {
	case H_QP: rc = ops->destroy_qp(h->obj, &err); break;
	case H_SRQ: rc = ops->destroy_srq ? ops->destroy_srq(h->obj, &err) : 0; break;
	case H_AH: rc = ops->destroy_ah(h->obj, &err); break;
	case H_MR: rc = ops->dereg_mr(h->obj, &err); break;
	case H_CQ: rc = ops->destroy_cq(h->obj, &err); break;
	case H_PD: rc = ops->dealloc_pd(h->obj, &err); break;
	case H_MW: rc = ops->dealloc_mw ? ops->dealloc_mw(h->obj, &err) : 0; break;
	case H_XRCD: rc = ops->dealloc_xrcd ? ops->dealloc_xrcd(h->obj, &err) : 0; break;
	}
	if (rc)
		g_warning("%s: cleaning up handle %u: %s", s->peer, h->id, err.message);
	session_remove(s, h);
}

void session_cleanup(struct session *s)
{
	/* Windows first: a bound type 2 window holds its QP (rxe's
	 * destroy_qp then waits on the reference for a minute) and its MR (a
	 * device refuses to deregister an MR with windows bound); QPs before
	 * the SRQs they use, SRQs before their XRC domain, everything before
	 * its PD. */
	static const enum htype order[] = { H_MW, H_QP, H_AH, H_SRQ, H_XRCD, H_MR, H_CQ, H_PD };
	if (!s->handles)
		return; /* cleaned up already: by bye, before the connection closed */
	/* Events of the session's objects reach it (and are dropped with
	 * it) while their pointers still name them. */
	agent_events_drain(s->agent);
	for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
		GList *hs = g_hash_table_get_values(s->handles);
		for (GList *l = hs; l; l = l->next) {
			struct handle *h = l->data;
			if (h->type == order[i])
				destroy(s, h);
		}
		g_list_free(hs);
	}
	g_hash_table_destroy(s->handles);
	g_hash_table_destroy(s->qpns);
	s->handles = s->qpns = NULL;
	session_events_free(s);
}
