/*
 * The rings of recent PSNs and requests of one direction (flow_internal.h).
 *
 * Most connections have few requests in flight, and captures with many
 * QPs have many connections: each direction starts with small rings and
 * gets larger ones (up to ROCE_FLOW_HISTORY PSNs and ROCE_FLOW_OUTSTANDING
 * requests) only when they fill with what is still needed: a request not
 * yet answered, or a PSN newer than the oldest request remembered. Each
 * ring is allocated when the direction first acts in its role: a
 * direction that only sends responses never holds a request ring or a
 * history of requests. A caller that gives roce_flow_env.alloc and
 * .release gets back the rings that larger ones replace; otherwise each
 * ring is a keyed record, never freed, and the rings of a direction take
 * at most twice their final size.
 */
#include <string.h>

#include "flow_internal.h"

/* Likewise a history starts with FIRST_HIST slots and, while it has fewer
 * than KEPT_HIST, grows rather than overwrite another PSN: it then holds
 * just what a history of KEPT_HIST would. */
#define FIRST_HIST 8u
#define KEPT_HIST 32u
/* A request ring starts with FIRST_REQS slots and, while it has fewer than
 * KEPT_REQS, grows when full whatever its oldest entry: it then holds just
 * what a ring of KEPT_REQS would, and the analysis sees no difference. */
#define FIRST_REQS 8u
#define KEPT_REQS 16u

/* One ring of d (kind KIND_SENT, KIND_RESP, KIND_REQUESTS or KIND_RETX)
 * with n entries of size bytes: from env->alloc, or a record of its own
 * per size (a direction that acts in one role only never holds the other
 * role's). */
void *flow_ring_new(const struct roce_flow_env *env, const struct direction *d, uint8_t kind, unsigned n,
		    size_t size)
{
	if (env->alloc)
		return env->alloc(env->ctx, n * size);
	struct key k;
	flow_make_key(&k, kind, flow_dir_net(d), d->src, d->dst, d->dest_qpn);
	k.pad[0] = (uint8_t)n; /* one record per size (n <= 256) */
	k.pad[1] = (uint8_t)(n >> 8);
	return env->record(env->ctx, &k, sizeof k, n * size);
}

/* A ring a larger one replaced: back to the caller when it allocated it. */
void flow_ring_release(const struct roce_flow_env *env, void *ring, size_t size)
{
	if (env->alloc && env->release)
		env->release(env->ctx, ring, size);
}

/* The history size the analysis sees: a smaller history holds what one of
 * KEPT_HIST slots would. */
static unsigned kept_hist(const struct window *w)
{
	return w->hist < KEPT_HIST ? KEPT_HIST : w->hist;
}

void flow_window_init(struct direction *d)
{
	d->w.hist = FIRST_HIST;
	d->w.reqs = FIRST_REQS;
}

/* The history of requests (sent) or of responses d sends, allocated at the
 * window's present size when first needed; NULL when out of memory. */
static struct slot *history(const struct roce_flow_env *env, struct direction *d, bool sent)
{
	struct slot **h = sent ? &d->w.sent : &d->w.resp;
	if (!*h)
		*h = flow_ring_new(env, d, sent ? KIND_SENT : KIND_RESP, d->w.hist, sizeof **h);
	return *h;
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

/* Gives d's window at least hist PSN and reqs request slots, moving what
 * its rings hold into larger ones (the rings it has not allocated yet get
 * the new sizes when they come). */
static bool grow(const struct roce_flow_env *env, struct direction *d, unsigned hist, unsigned reqs)
{
	struct window *o = &d->w;
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
	struct slot *sent = NULL, *resp = NULL;
	struct request *req = NULL;
	bool short_of_memory = (hist != o->hist && o->sent && !(sent = flow_ring_new(env, d, KIND_SENT, hist, sizeof *sent))) ||
			       (hist != o->hist && o->resp && !(resp = flow_ring_new(env, d, KIND_RESP, hist, sizeof *resp))) ||
			       (reqs != o->reqs && o->req && !(req = flow_ring_new(env, d, KIND_REQUESTS, reqs, sizeof *req)));
	if (short_of_memory) {
		/* The window stays as it was; the new rings that came go back. */
		if (sent)
			flow_ring_release(env, sent, hist * sizeof *sent);
		if (resp)
			flow_ring_release(env, resp, hist * sizeof *resp);
		return false;
	}
	if (sent) {
		reslot(sent, hist, o->sent, o->hist);
		flow_ring_release(env, o->sent, o->hist * sizeof *sent);
		o->sent = sent;
	}
	if (resp) {
		reslot(resp, hist, o->resp, o->hist);
		flow_ring_release(env, o->resp, o->hist * sizeof *resp);
		o->resp = resp;
	}
	if (req) {
		for (unsigned i = 0; i < o->req_count; i++)
			req[i] = *flow_req_at(o, i);
		flow_ring_release(env, o->req, o->reqs * sizeof *req);
		o->req = req;
		o->req_next = o->req_count % reqs;
	}
	o->hist = hist;
	o->reqs = reqs;
	return true;
}

bool flow_seen(const struct slot *h, unsigned size, uint32_t psn, uint32_t *frame, uint64_t *ts)
{
	if (!h)
		return false;
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
	if (!h)
		return false;
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
	struct slot *h = history(env, d, sent);
	if (!h)
		return;
	struct slot *s = &h[psn % d->w.hist];
	while (s->psn_plus1 && (s->psn_plus1 & ~ICRC_KNOWN) != psn + 1 && d->w.hist < KEPT_HIST &&
	       grow(env, d, 2 * d->w.hist, d->w.reqs))
		s = &(sent ? d->w.sent : d->w.resp)[psn % d->w.hist];
	uint32_t old = (s->psn_plus1 & ~ICRC_KNOWN) - 1;
	if (s->psn_plus1 && old != psn && still_needed(&d->w, old) &&
	    grow(env, d, 2 * kept_hist(&d->w), d->w.reqs))
		s = &(sent ? d->w.sent : d->w.resp)[psn % d->w.hist];
	s->psn_plus1 = (psn + 1) | (p->complete ? ICRC_KNOWN : 0);
	s->frame = in->frame;
	s->icrc = p->complete ? roce_le32_load(p->buf + p->icrc_off) : 0;
	s->ts_lo = (uint32_t)in->ts_ns;
	s->ts_hi = (uint32_t)(in->ts_ns >> 32);
}

struct request *flow_new_request(const struct roce_flow_env *env, struct direction *d)
{
	struct window *w = &d->w;
	if (!w->req && !(w->req = flow_ring_new(env, d, KIND_REQUESTS, w->reqs, sizeof *w->req)))
		return NULL;
	if (w->req_count == w->reqs && w->reqs < KEPT_REQS)
		grow(env, d, w->hist, 2 * w->reqs);
	if (w->req_count == w->reqs) {
		const struct request *oldest = flow_req_at(w, 0);
		bool needed = !oldest->answered || oldest->bytes_left ||
			      (oldest->kind == ROCE_K_READ_REQ && oldest->responses < oldest->span);
		if (needed)
			grow(env, d, 2 * kept_hist(w), 2 * w->reqs);
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

/* The newest request whose PSN range holds psn, optionally of one kind. */
struct request *flow_find_request(struct direction *q, uint32_t psn, enum roce_op_kind kind)
{
	const struct window *w = &q->w;
	for (unsigned n = 0; n < w->req_count; n++) {
		struct request *e = flow_req_at(w, w->req_count - 1 - n);
		int32_t d = roce_psn_diff(psn, e->psn);
		if (d >= 0 && (uint32_t)d < e->span && (kind == ROCE_K_NONE || e->kind == kind))
			return e;
	}
	return NULL;
}
