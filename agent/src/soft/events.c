/*
 * The device's asynchronous events: a bounded queue, oldest first (a full
 * queue loses its oldest, counted). Events about an object are dropped
 * when it is destroyed, so that nobody maps them through a stale pointer.
 */
#include "soft.h"

#include <string.h>

void soft_event_raise(struct soft_dev *dev, enum be_event_type type, struct be_qp *qp, struct be_srq *srq)
{
	struct soft_events *q = &dev->events;
	if (q->count == SOFT_MAX_EVENTS) {
		q->head = (q->head + 1) % SOFT_MAX_EVENTS;
		q->count--;
		dev->cnt.events_lost++;
	}
	struct be_async_event *e = &q->ring[(q->head + q->count) % SOFT_MAX_EVENTS];
	memset(e, 0, sizeof *e);
	e->type = type;
	e->qp = qp;
	e->srq = srq;
	e->port = qp || srq ? 0 : 1;
	q->count++;
}

void soft_events_forget(struct soft_dev *dev, const void *obj)
{
	struct soft_events *q = &dev->events;
	unsigned kept = 0;
	for (unsigned i = 0; i < q->count; i++) {
		struct be_async_event e = q->ring[(q->head + i) % SOFT_MAX_EVENTS];
		if ((const void *)e.qp == obj || (const void *)e.srq == obj || (const void *)e.cq == obj)
			continue;
		q->ring[(q->head + kept) % SOFT_MAX_EVENTS] = e;
		kept++;
	}
	q->count = kept;
}

int soft_get_async_events(struct backend *be, struct be_async_event *out, unsigned max, unsigned *n,
			  struct be_error *err)
{
	(void)err;
	struct soft_events *q = &((struct soft_dev *)be)->events;
	*n = 0;
	while (*n < max && q->count) {
		out[(*n)++] = q->ring[q->head];
		q->head = (q->head + 1) % SOFT_MAX_EVENTS;
		q->count--;
	}
	return 0;
}
