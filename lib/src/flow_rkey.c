/*
 * The rkey life cycle in the flow analysis (roce/flow.h): a SEND with
 * Invalidate (IETH) that the responder acknowledged invalidates the rkey it
 * names at the responder's node, the node that owns the key, if the key is
 * one that can be invalidated remotely (a type 2 window's). A later request
 * to that node through the rkey (RETH: WRITE, READ, FLUSH, ATOMIC WRITE;
 * AtomicETH: CmpSwap, FetchAdd) must then be rejected with NAK Remote
 * Access Error (IBA10.6.7-MW-INVALID).
 *
 * The capture point sits somewhere between the peers. The acknowledgement
 * left the node after the invalidation, so a request that passed the
 * capture point after the acknowledgement did reached the node after the
 * invalidation, wherever the point is; so did a request behind the SEND on
 * the same QP, which the responder executes in PSN order. Any other request
 * (another QP, sent before the acknowledgement passed) may have crossed the
 * invalidation in flight.
 *
 * An acknowledgement does not prove the key invalid, though: a responder
 * refuses to invalidate the key of a type 1 window or of a region
 * (IBA10.6.7-INV-REFUSE) and still acknowledges the SEND, completing its
 * receive in error (Linux rxe: RESPST_ERR_INVALIDATE_RKEY, class J). The
 * wire cannot tell such a key from a type 2 window's, so a request of the
 * first kind that the responder executed shows only that the key stayed
 * valid: refused, as it must be for those keys, or not invalidated, which
 * breaks IBA10.6.7-SEND-INV. That is a warning, not an error, raised once: from
 * then on the key is known to be valid and is not judged again until the
 * next SEND with Invalidate. Executing a request of the second kind is a
 * warning too (crossed in flight, refused, or ignored), with the time by
 * which it led the acknowledgement.
 *
 * A new binding of the same rkey (a window bound again, a region
 * registered again) never shows on the wire. Its owner can only hand a new
 * key to its peers after the invalidation, by a message: once the node has
 * sent a new message (a SEND First or Only to anyone) after the
 * invalidation was acknowledged, the rkey is taken as valid again.
 */
#include <string.h>

#include "flow_internal.h"
#include "hints.h"

struct rkey_record {
	/* A SEND with Invalidate seen, not yet acknowledged. */
	bool pending;
	uint32_t pend_frame, pend_psn;
	const struct direction *pend_dir;
	/* Acknowledged: the key is invalid at its node, unless refused. */
	bool invalid;
	uint32_t inv_frame, ack_frame;
	uint64_t ack_ts;
};

static ROCE_COLD void add(struct roce_flow_result *r, enum roce_code c, uint32_t off, uint32_t len,
			  uint64_t observed, uint64_t expected)
{
	if (r->n_findings < ROCE_FLOW_MAX_FINDINGS)
		r->findings[r->n_findings++] = (struct roce_finding){ c, off, len, observed, expected };
}

static struct rkey_record *rkey_of(const struct roce_flow_env *env, uint8_t net, const uint8_t *node,
				   uint32_t rkey)
{
	struct key k;
	flow_make_key(&k, KIND_RKEY, net, node, NULL, rkey);
	return env->record(env->ctx, &k, sizeof k, sizeof(struct rkey_record));
}

/* The rkey a request accesses memory through, if it has one. */
static bool access_rkey(const struct roce_pkt *p, uint32_t *rkey, uint32_t *off)
{
	const uint8_t *h;
	if ((h = roce_pkt_hdr(p, ROCE_H_RETH))) {
		*rkey = (uint32_t)roce_reth_rkey(h);
		*off = p->hdr_off[ROCE_H_RETH] + 8;
		return true;
	}
	if ((h = roce_pkt_hdr(p, ROCE_H_ATOMICETH))) {
		*rkey = (uint32_t)roce_atomiceth_rkey(h);
		*off = p->hdr_off[ROCE_H_ATOMICETH] + 8;
		return true;
	}
	return false;
}

/* Has the node (a direction's destination) sent a new message since ts?
 * Then it may have handed out a new binding of the key. */
static bool node_spoke_since(const struct roce_flow_env *env, uint8_t net, const uint8_t *node, uint64_t ts)
{
	size_t alen = flow_net_addr_len(net);
	struct registry *reg = flow_registry(env);
	for (const struct direction *d = reg ? reg->first : NULL; d; d = d->next)
		if (flow_dir_net(d) == net && !memcmp(d->src, node, alen) && d->msg_sent && d->last_msg_ts > ts)
			return true;
	return false;
}

static void remember_access(struct direction *q, enum rkey_access_state st, uint32_t psn, uint32_t rkey,
			    uint32_t inv_frame, uint64_t ts)
{
	struct rkey_access *slot = NULL;
	for (unsigned i = 0; i < RKEY_ACCESSES && !slot; i++)
		if (q->rkey_access[i].state == RKEY_ACCESS_NONE || q->rkey_access[i].psn == psn)
			slot = &q->rkey_access[i];
	if (!slot) { /* the oldest goes: its answer was not seen in time */
		memmove(&q->rkey_access[0], &q->rkey_access[1], (RKEY_ACCESSES - 1) * sizeof q->rkey_access[0]);
		slot = &q->rkey_access[RKEY_ACCESSES - 1];
	}
	*slot = (struct rkey_access){ (uint8_t)st, psn, rkey, inv_frame, ts };
}

void flow_rkey_request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
		       uint32_t psn, struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	if (p->op->kind == ROCE_K_SEND &&
	    (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_ONLY)) {
		q->msg_sent = true;
		q->last_msg_ts = in->ts_ns;
	}
	const uint8_t *ieth = roce_pkt_hdr(p, ROCE_H_IETH);
	if (ieth) {
		struct rkey_record *k = rkey_of(env, flow_in_net(in), in->dst, (uint32_t)roce_ieth_rkey(ieth));
		if (!k)
			return;
		q->reg->invalidations++;
		k->pending = true;
		k->pend_frame = in->frame;
		k->pend_psn = psn;
		k->pend_dir = q;
		return;
	}
	uint32_t rkey, off;
	/* Nothing to follow until the capture shows an invalidation. */
	if (!q->reg->invalidations || !access_rkey(p, &rkey, &off))
		return;
	struct rkey_record *k = rkey_of(env, flow_in_net(in), in->dst, rkey);
	if (!k)
		return;
	if (k->invalid && node_spoke_since(env, flow_in_net(in), in->dst, k->ack_ts))
		k->invalid = false; /* a new binding may have been handed out since */
	if (k->invalid) {
		/* The acknowledgement passed the capture point before it; the
		 * answer says whether the key was invalidated. */
		add(r, ROCE_F_RKEY_AFTER_INV, off, 4, rkey, k->inv_frame);
		flow_set(r, ROCE_FLOW_V_RKEY_INVALIDATED_IN, k->inv_frame);
		flow_set(r, ROCE_FLOW_V_RKEY_INV_ACK_IN, k->ack_frame);
		remember_access(q, RKEY_ACCESS_AFTER, psn, rkey, k->inv_frame, in->ts_ns);
	} else if (k->pending && k->pend_dir == q && roce_psn_diff(psn, k->pend_psn) > 0) {
		/* Behind the SEND on its QP: executed after it, if it invalidates. */
		flow_set(r, ROCE_FLOW_V_RKEY_INVALIDATED_IN, k->pend_frame);
		remember_access(q, RKEY_ACCESS_BEHIND, psn, rkey, k->pend_frame, in->ts_ns);
	} else if (k->pending) {
		add(r, ROCE_F_RKEY_CROSSED_INV, off, 4, rkey, k->pend_frame);
		flow_set(r, ROCE_FLOW_V_RKEY_INVALIDATED_IN, k->pend_frame);
		remember_access(q, RKEY_ACCESS_CROSSED, psn, rkey, k->pend_frame, in->ts_ns);
	}
}

void flow_rkey_invalidated(const struct roce_flow_env *env, const struct direction *q, const struct request *e,
			   const struct roce_flow_input *in)
{
	struct rkey_record *k = rkey_of(env, flow_dir_net(q), q->dst, e->inv_rkey);
	if (!k)
		return;
	if (k->pending && k->pend_frame <= e->frame)
		k->pending = false;
	k->invalid = true;
	k->inv_frame = e->frame;
	k->ack_frame = in->frame;
	k->ack_ts = in->ts_ns;
}

/* Was the invalidation this access was noted against acknowledged (and
 * not yet shown to have left the key valid)? */
static struct rkey_record *confirmed(const struct roce_flow_env *env, const struct direction *q,
				     const struct rkey_access *a)
{
	struct rkey_record *k = rkey_of(env, flow_dir_net(q), q->dst, a->rkey);
	return k && k->invalid && k->inv_frame == a->inv_frame ? k : NULL;
}

void flow_rkey_response(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
			uint32_t psn, bool positive, struct roce_flow_result *r)
{
	uint32_t psn_off = in->pkt->hdr_off[ROCE_H_BTH] + 9;
	for (unsigned i = 0; i < RKEY_ACCESSES; i++) {
		struct rkey_access *a = &q->rkey_access[i];
		if (a->state == RKEY_ACCESS_NONE)
			continue;
		int32_t d = roce_psn_diff(a->psn, psn);
		if (d > 0 || (d == 0 && !positive)) {
			if (d == 0)
				a->state = RKEY_ACCESS_NONE; /* rejected (or not ready): as it should be */
			continue;
		}
		/* The responder executed it. */
		struct rkey_record *k = confirmed(env, q, a);
		if (k && (a->state == RKEY_ACCESS_AFTER || a->state == RKEY_ACCESS_BEHIND)) {
			/* The key stayed valid: said once, then no longer judged. */
			add(r, ROCE_F_RKEY_INV_EXECUTED, psn_off, 3, a->rkey, a->inv_frame);
			flow_set(r, ROCE_FLOW_V_RKEY_INVALIDATED_IN, a->inv_frame);
			k->invalid = false;
		} else if (k) {
			add(r, ROCE_F_RKEY_INV_EXECUTED_SEEN, psn_off, 3, a->rkey, a->inv_frame);
			flow_set(r, ROCE_FLOW_V_RKEY_INVALIDATED_IN, a->inv_frame);
			flow_set(r, ROCE_FLOW_V_RKEY_INV_ACK_IN, k->ack_frame);
			flow_set(r, ROCE_FLOW_V_RKEY_INV_LEAD, k->ack_ts > a->ts ? k->ack_ts - a->ts : 0);
		}
		a->state = RKEY_ACCESS_NONE;
	}
}
