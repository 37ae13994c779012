/*
 * The rings of recent PSNs and requests of one direction (flow_internal.h).
 *
 * Most connections have few requests in flight, and captures with many
 * QPs have many connections: each direction starts with small rings and
 * gets larger ones (up to ROCE_FLOW_HISTORY PSNs and ROCE_FLOW_OUTSTANDING
 * requests) only when they fill with what is still needed: a request not
 * yet answered, or a PSN newer than the oldest request remembered. The
 * store never frees a record, so the rings of a direction take at most
 * twice their final size.
 */
#include <string.h>

#include "flow_internal.h"

#define FIRST_HIST 32u
#define FIRST_REQS 16u

static struct window *window_new(const struct roce_flow_env *env, const struct direction *d, unsigned hist,
				 unsigned reqs)
{
	struct key k;
	flow_make_key(&k, KIND_WINDOW, d->ip_version, d->src, d->dst, d->dest_qpn);
	k.pad[0] = (uint8_t)(hist >> 4); /* one record per size */
	k.pad[1] = (uint8_t)reqs;
	size_t size = sizeof(struct window) + 2 * hist * sizeof(struct slot) + reqs * sizeof(struct request);
	struct window *w = env->record(env->ctx, &k, sizeof k, size);
	if (!w || w->hist)
		return NULL; /* out of memory, or (a second direction on the key: never) in use */
	w->hist = hist;
	w->reqs = reqs;
	w->req = (struct request *)(w + 1);
	w->sent = (struct slot *)(w->req + reqs);
	w->resp = w->sent + hist;
	return w;
}

bool flow_window_init(const struct roce_flow_env *env, struct direction *d)
{
	d->w = window_new(env, d, FIRST_HIST, FIRST_REQS);
	return d->w != NULL;
}

static void reslot(struct slot *to, unsigned to_size, const struct slot *from, unsigned from_size)
{
	for (unsigned i = 0; i < from_size; i++) {
		if (!from[i].psn_plus1)
			continue;
		uint32_t psn = (from[i].psn_plus1 & ~ICRC_KNOWN) - 1;
		to[psn % to_size] = from[i];
	}
}

/* Replaces d's window by one with at least hist PSN and reqs request slots. */
static bool grow(const struct roce_flow_env *env, struct direction *d, unsigned hist, unsigned reqs)
{
	struct window *o = d->w;
	if (hist > ROCE_FLOW_HISTORY)
		hist = ROCE_FLOW_HISTORY;
	if (reqs > ROCE_FLOW_OUTSTANDING)
		reqs = ROCE_FLOW_OUTSTANDING;
	if (hist <= o->hist && reqs <= o->reqs)
		return false;
	if (hist < o->hist)
		hist = o->hist;
	if (reqs < o->reqs)
		reqs = o->reqs;
	struct window *w = window_new(env, d, hist, reqs);
	if (!w)
		return false;
	reslot(w->sent, hist, o->sent, o->hist);
	reslot(w->resp, hist, o->resp, o->hist);
	for (unsigned i = 0; i < o->req_count; i++)
		w->req[i] = *flow_req_at(o, i);
	w->req_count = o->req_count;
	w->req_next = o->req_count % reqs;
	w->req_done = o->req_done;
	d->w = w;
	return true;
}

bool flow_seen(const struct slot *h, unsigned size, uint32_t psn, uint32_t *frame, uint64_t *ts)
{
	const struct slot *s = &h[psn % size];
	if ((s->psn_plus1 & ~ICRC_KNOWN) != psn + 1)
		return false;
	*frame = s->frame;
	if (ts)
		*ts = (uint64_t)s->ts_hi << 32 | s->ts_lo;
	return true;
}

/* Whether the packet is a byte-identical copy of the last one seen with its
 * PSN: the ICRC covers every invariant byte, IPv4's identification among
 * them, so a copy made by the network has the same one. */
bool flow_copy_of_last(const struct slot *h, unsigned size, uint32_t psn, const struct roce_pkt *p)
{
	const struct slot *s = &h[psn % size];
	return p->complete && s->psn_plus1 == ((psn + 1) | ICRC_KNOWN) &&
	       s->icrc == roce_le32_load(p->buf + p->icrc_off);
}

/* Whether a PSN remembered in a slot may still be looked up: it is not
 * older than the oldest request remembered. */
static bool still_needed(const struct window *w, uint32_t psn)
{
	return w->req_count && roce_psn_diff(psn, flow_req_at(w, 0)->psn) >= 0;
}

void flow_remember(const struct roce_flow_env *env, struct direction *d, bool sent, uint32_t psn,
		   const struct roce_flow_input *in)
{
	const struct roce_pkt *p = in->pkt;
	struct slot *s = &(sent ? d->w->sent : d->w->resp)[psn % d->w->hist];
	uint32_t old = (s->psn_plus1 & ~ICRC_KNOWN) - 1;
	if (s->psn_plus1 && old != psn && still_needed(d->w, old) && grow(env, d, 2 * d->w->hist, d->w->reqs))
		s = &(sent ? d->w->sent : d->w->resp)[psn % d->w->hist];
	s->psn_plus1 = (psn + 1) | (p->complete ? ICRC_KNOWN : 0);
	s->frame = in->frame;
	s->icrc = p->complete ? roce_le32_load(p->buf + p->icrc_off) : 0;
	s->ts_lo = (uint32_t)in->ts_ns;
	s->ts_hi = (uint32_t)(in->ts_ns >> 32);
}

struct request *flow_new_request(const struct roce_flow_env *env, struct direction *d)
{
	struct window *w = d->w;
	if (w->req_count == w->reqs) {
		const struct request *oldest = flow_req_at(w, 0);
		bool needed = !oldest->answered || oldest->bytes_left ||
			      (oldest->kind == ROCE_K_READ_REQ && oldest->responses < oldest->span);
		if (needed && grow(env, d, 2 * w->hist, 2 * w->reqs))
			w = d->w;
	}
	struct request *e = &w->req[w->req_next];
	if (w->req_count == w->reqs) {
		/* The oldest entry is overwritten: what it had in flight is no
		 * longer tracked. */
		d->bytes_in_flight -= e->bytes_left < d->bytes_in_flight ? e->bytes_left : d->bytes_in_flight;
		if (w->req_done)
			w->req_done--;
	} else {
		w->req_count++;
	}
	w->req_next = (w->req_next + 1) % w->reqs;
	memset(e, 0, sizeof *e);
	return e;
}
