/*
 * The device's asynchronous events (QP, SRQ, CQ, port and device events):
 * read from the context's async fd, made non-blocking, both by a watch on
 * the main loop and by get_async_events itself (so a caller that does not
 * run the loop still sees them), acknowledged at once, and queued for
 * get_async_events with the backend's own object each one is about.
 *
 * A QP, SRQ or CQ carries its be_ object as its libibverbs context
 * (qp_context, srq_context, cq_context); an object without one (the
 * capability probes') has no reader, and its events are only logged.
 */
#include "ibverbs.h"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <string.h>

/* Events nobody has read yet; beyond this the newest are dropped (and
 * counted), so that the oldest, which a reader takes next, stay in order. */
#define EVENT_QUEUE_MAX 1024u
/* Events read per wake-up before the loop gets control back. */
#define EVENT_BATCH 64

/* The backend's event for a libibverbs one; false when it has no reader. */
static bool map_event(struct ib_backend *ib, const struct ibv_async_event *ev, struct be_async_event *out)
{
	memset(out, 0, sizeof *out);
	out->type = (enum be_event_type)ev->event_type;
	switch (ev->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		g_message("%s: %s on QPN 0x%06x", ib->name, ibv_event_type_str(ev->event_type),
			  ev->element.qp->qp_num);
		out->qp = ev->element.qp->qp_context;
		return out->qp != NULL;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		g_message("%s: %s", ib->name, ibv_event_type_str(ev->event_type));
		out->srq = ev->element.srq->srq_context;
		return out->srq != NULL;
	case IBV_EVENT_CQ_ERR:
		g_message("%s: %s", ib->name, ibv_event_type_str(ev->event_type));
		out->cq = ev->element.cq->cq_context;
		return out->cq != NULL;
	case IBV_EVENT_DEVICE_FATAL:
		g_message("%s: %s", ib->name, ibv_event_type_str(ev->event_type));
		return true;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		g_message("%s: %s (port %d)", ib->name, ibv_event_type_str(ev->event_type),
			  ev->element.port_num);
		out->port = (unsigned)ev->element.port_num;
		return true;
	default: /* a type the protocol has no name for (WQ_FATAL, ...) */
		g_message("%s: %s (not reported to the tester)", ib->name,
			  ibv_event_type_str(ev->event_type));
		return false;
	}
}

/* Reads what the fd has now, up to EVENT_BATCH events. */
static void drain(struct ib_backend *ib)
{
	for (int i = 0; i < EVENT_BATCH; i++) {
		struct ibv_async_event ev;
		if (ibv_get_async_event(ib->ctx, &ev))
			break; /* EAGAIN: nothing more now */
		struct be_async_event e;
		bool keep = map_event(ib, &ev, &e);
		ibv_ack_async_event(&ev);
		if (!keep)
			continue;
		if (ib->events.length >= EVENT_QUEUE_MAX) {
			if (ib->events_dropped++ == 0)
				g_warning("%s: %u asynchronous events unread: dropping newer ones", ib->name,
					  EVENT_QUEUE_MAX);
			continue;
		}
		g_queue_push_tail(&ib->events, g_memdup2(&e, sizeof e));
	}
}

static gboolean on_async_fd(gint fd, GIOCondition cond, gpointer data)
{
	(void)fd;
	(void)cond;
	drain(data);
	return G_SOURCE_CONTINUE;
}

void ib_events_start(struct ib_backend *ib)
{
	g_queue_init(&ib->events);
	int fl = fcntl(ib->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(ib->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) != 0) {
		/* A blocking fd would stall the loop: no events then, and no
		 * ASYNC_EVENTS capability (device.c looks at the watch). */
		g_warning("%s: fcntl O_NONBLOCK on the async fd: %s: no asynchronous events", ib->name,
			  strerror(errno));
		return;
	}
	ib->async_watch = g_unix_fd_add(ib->ctx->async_fd, G_IO_IN, on_async_fd, ib);
}

void ib_events_stop(struct ib_backend *ib)
{
	if (ib->async_watch)
		g_source_remove(ib->async_watch);
	ib->async_watch = 0;
	g_queue_clear_full(&ib->events, g_free);
}

void ib_events_forget(struct ib_backend *ib, const struct be_qp *qp, const struct be_srq *srq,
		      const struct be_cq *cq)
{
	drain(ib); /* the kernel drops its own pending ones at destroy; take what it has now */
	GList *l = ib->events.head;
	while (l) {
		GList *next = l->next;
		struct be_async_event *e = l->data;
		if ((qp && e->qp == qp) || (srq && e->srq == srq) || (cq && e->cq == cq)) {
			g_free(e);
			g_queue_delete_link(&ib->events, l);
		}
		l = next;
	}
}

int ib_get_async_events(struct backend *be, struct be_async_event *out, unsigned max, unsigned *n,
			struct be_error *err)
{
	struct ib_backend *ib = ib_of(be);
	*n = 0;
	if (!ib->async_watch)
		return be_error_set(err, BE_UNSUPPORTED, "%s: the async fd could not be made non-blocking",
				    ib->name);
	drain(ib);
	while (*n < max && !g_queue_is_empty(&ib->events)) {
		struct be_async_event *e = g_queue_pop_head(&ib->events);
		out[(*n)++] = *e;
		g_free(e);
	}
	return 0;
}
