/*
 * The flow analysis of responses (flow_internal.h): the request direction
 * a response direction answers, the requests each response answers and
 * acknowledges (their response times, what is still in flight), READ
 * response segmentation and replays, ACKs, duplicate ACKs, RNR NAKs and
 * the NAK PSN Sequence Error that opens a go-back (flow_gobackn.c).
 */
#include "flow_internal.h"
#include "roce/aeth.h"

/* The response being fed, for the requests it answers. */
struct answering {
	const struct roce_flow_env *env;
	const struct roce_flow_input *in;
	struct roce_flow_result *r;
	const struct direction *q; /* the requester */
	uint32_t psn;              /* the response's */
	bool positive;             /* an ACK or data: acknowledges its own PSN too */
};

/* The kinds a zero-length RDMA READ Response Only answers, besides a
 * READ: IBTA 1.5's placement operations (rxe: send_read_response_ack). */
static bool answered_by_read_response(enum roce_op_kind k)
{
	return k == ROCE_K_READ_REQ || k == ROCE_K_FLUSH || k == ROCE_K_ATOMIC_WRITE;
}

static void answer(const struct answering *a, struct request *e)
{
	if (e->answered)
		return;
	e->answered = true;
	uint64_t dt = flow_since(a->in->ts_ns, e->ts_ns);
	struct roce_flow_result *r = a->r;
	/* The ACK RTT is measured from the newest request this packet is the
	 * first to answer. */
	if (!(r->has & ROCE_FLOW_HAS(ACKED_FRAME)) || e->frame > r->value[ROCE_FLOW_V_ACKED_FRAME]) {
		flow_set(r, ROCE_FLOW_V_ACKED_FRAME, e->frame);
		flow_set(r, ROCE_FLOW_V_ACK_RTT, dt);
		r->has &= ~(ROCE_FLOW_HAS(READ_RESPONSE_TIME) | ROCE_FLOW_HAS(ATOMIC_RESPONSE_TIME) |
			    ROCE_FLOW_HAS(FLUSH_RESPONSE_TIME) | ROCE_FLOW_HAS(ATOMIC_WRITE_RESPONSE_TIME));
		if (e->kind == ROCE_K_READ_REQ)
			flow_set(r, ROCE_FLOW_V_READ_RESPONSE_TIME, dt);
		else if (e->kind == ROCE_K_CMP_SWAP || e->kind == ROCE_K_FETCH_ADD)
			flow_set(r, ROCE_FLOW_V_ATOMIC_RESPONSE_TIME, dt);
		else if (e->kind == ROCE_K_FLUSH)
			flow_set(r, ROCE_FLOW_V_FLUSH_RESPONSE_TIME, dt);
		else if (e->kind == ROCE_K_ATOMIC_WRITE)
			flow_set(r, ROCE_FLOW_V_ATOMIC_WRITE_RESPONSE_TIME, dt);
	}
	/* A SEND with Invalidate the responder acknowledged (not the one a NAK
	 * names) invalidated its rkey. */
	int32_t d = roce_psn_diff(e->psn + e->span - 1, a->psn);
	if (e->inv && a->q && (d < 0 || (d == 0 && a->positive)))
		flow_rkey_invalidated(a->env, a->q, e, a->in);
	if (a->env->answered) {
		struct roce_flow_answer ans = { e->frame, a->in->frame, dt, e->kind, e->completes };
		a->env->answered(a->env->ctx, e->cookie, &ans);
	}
}

/* What a request still had in flight is acknowledged. */
static void release(struct direction *q, struct request *e, uint64_t bytes)
{
	if (bytes > e->bytes_left)
		bytes = e->bytes_left;
	e->bytes_left -= bytes;
	q->bytes_in_flight -= bytes < q->bytes_in_flight ? bytes : q->bytes_in_flight;
}

/* An ACK or NAK for psn also acknowledges everything before it. Requests
 * are answered mostly in order: skip the ones at the old end that are
 * answered and out of flight. */
static void answer_through(const struct answering *a, struct direction *q, uint32_t psn, bool inclusive)
{
	struct window *w = &q->w;
	bool prefix = true;
	for (unsigned n = w->req_done; n < w->req_count; n++) {
		struct request *e = flow_req_at(w, n);
		int32_t d = roce_psn_diff(e->psn + e->span - 1, psn);
		if (d < 0 || (inclusive && d == 0)) {
			answer(a, e);
			release(q, e, e->bytes_left);
		}
		if (prefix && e->answered && !e->bytes_left)
			w->req_done = n + 1;
		else
			prefix = false;
	}
}

/* Does psn fall among what q has sent: a request's range, or between its
 * oldest remembered request and its next new PSN? */
static bool plausible(struct direction *q, uint32_t psn)
{
	if (flow_find_request(q, psn, ROCE_K_NONE))
		return true;
	if (!q->w.req_count)
		return false;
	const struct request *oldest = flow_req_at(&q->w, 0);
	return roce_psn_diff(psn, oldest->psn) >= 0 && roce_psn_diff(psn, q->next_psn) <= 0;
}

/* The request direction a response direction answers: its peer; or, among
 * the unpaired directions that carried requests between the same hosts,
 * the only one, or the only one whose PSNs this response fits. */
static struct direction *requester_of(const struct roce_flow_env *env, struct direction *rd,
				      const struct roce_flow_input *in, uint32_t psn)
{
	if (rd->peer)
		return rd->peer;
	struct pair *pr = flow_pair_of(env, flow_in_net(in), in->dst, in->src);
	if (!pr)
		return NULL;
	struct direction *only = NULL, *match = NULL;
	unsigned unpaired = 0, matches = 0;
	for (unsigned i = 0; i < pr->n; i++) {
		if (pr->dir[i]->peer)
			continue;
		unpaired++;
		only = pr->dir[i];
		if (plausible(pr->dir[i], psn)) {
			matches++;
			match = pr->dir[i];
		}
	}
	struct direction *q = unpaired == 1 ? only : matches == 1 ? match : NULL;
	if (q) {
		rd->peer = q;
		q->peer = rd;
	}
	return q;
}

/* The position a READ response must have: packet i (from 0) of n. */
static enum roce_position read_position(uint32_t i, uint32_t n)
{
	return n == 1 ? ROCE_POS_ONLY : i == 0 ? ROCE_POS_FIRST : i == n - 1 ? ROCE_POS_LAST : ROCE_POS_MIDDLE;
}

static void read_response(struct direction *q, struct request *e, const struct roce_flow_input *in,
			  struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(p, ROCE_H_BTH));
	uint32_t bth_off = p->hdr_off[ROCE_H_BTH];
	flow_note_pmtu(q, in);
	if (!e->span_known && q->pmtu) {
		e->span = flow_read_packets(e->dmalen, q->pmtu);
		e->span_known = true;
	}
	uint32_t i = (uint32_t)roce_psn_diff(psn, e->psn);
	r->read_index = i + 1;
	r->read_count = e->span_known ? e->span : 0;
	e->responses++;
	if (!(r->flags & ROCE_FLOW_F(DUP_READ_RESP)))
		release(q, e, p->payload_len);
	if (!e->span_known)
		return;
	uint32_t n = e->span;
	if (i >= n) {
		flow_add(r, ROCE_F_READ_RESP_EXTRA, bth_off + 9, 3, i + 1, n);
		return;
	}
	enum roce_position want = read_position(i, n);
	if (p->op->position != want) {
		/* A replay from inside the original range may begin with the
		 * original response's packet at that PSN. */
		uint32_t k = e->replay ? (uint32_t)roce_psn_diff(psn, e->orig_psn) : 0;
		if (e->replay && !e->origin_unseen && i == 0 && k < e->orig_span &&
		    p->op->position == read_position(k, e->orig_span))
			flow_add(r, ROCE_F_READ_REPLAY_MIDDLE, bth_off, 1, psn, k + 1);
		/* With the original out of view: its packet at this PSN was a
		 * Middle if more follow, else its Last. */
		else if (e->origin_unseen && i == 0 && p->op->position == (n == 1 ? ROCE_POS_LAST : ROCE_POS_MIDDLE))
			flow_add(r, ROCE_F_READ_REPLAY_UNSEEN, bth_off, 1, psn, n);
		else
			flow_add(r, ROCE_F_READ_RESP_POSITION, bth_off, 1, i + 1, n);
	}
	uint32_t len = i + 1 < n ? q->pmtu : e->dmalen - (n - 1) * q->pmtu;
	enum roce_position pos = p->op->position;
	if (p->op->transport == ROCE_T_XRC && p->payload_len == len + ROCE_XRCETH_LEN) {
		/* A First or Middle the path MTU plus an XRCETH long: the
		 * stateless check, given this path MTU, reports it
		 * (C_XRC_READ_RESP_XRCETH); counted once. */
		if (!((pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE) && len == q->pmtu))
			flow_add(r, ROCE_F_XRC_READ_RESP_XRCETH, p->payload_off, p->payload_len, p->payload_len, len);
	} else if (p->payload_len != len)
		flow_add(r, ROCE_F_READ_RESP_LEN, p->payload_off, p->payload_len, p->payload_len, len);
	if (i + 1 == n)
		release(q, e, e->bytes_left); /* the READ's last response */
}

/* The first packet after the NAKed PSN, whose arrival made the responder
 * NAK: the oldest of the requests sent since the last one up to psn. */
static const struct request *out_of_sequence(const struct direction *q, uint32_t psn)
{
	const struct window *w = &q->w;
	const struct request *first = NULL;
	for (unsigned n = 0; n < w->req_count; n++) {
		const struct request *e = flow_req_at(w, w->req_count - 1 - n);
		if (roce_psn_diff(e->psn, psn) <= 0)
			break;
		first = e;
	}
	return first;
}

static ROCE_COLD void nak_response(struct direction *q, const struct roce_flow_input *in, uint32_t psn,
			 struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	uint32_t bth_off = p->hdr_off[ROCE_H_BTH];
	uint32_t last = (q->next_psn - 1) & ROCE_PSN_MASK;
	if (roce_psn_diff(psn, q->next_psn) > 0) {
		/* Every PSN before it passed the capture point on its way to the
		 * responder, before the NAK did: unless that was before the
		 * capture began, which only a connection seen from its start,
		 * or a requester seen sending new PSNs, rules out. */
		flow_add(r, q->start_known || q->new_seen ? ROCE_F_SEQ_NAK_AHEAD : ROCE_F_SEQ_NAK_AHEAD_SEEN, bth_off + 9, 3,
			 psn, last);
		return;
	}
	flow_add(r, ROCE_F_SEQ_NAK_EXPLAINED, p->hdr_off[ROCE_H_AETH], 1, psn, last);
	const struct request *oos = out_of_sequence(q, psn);
	if (oos) {
		flow_set(r, ROCE_FLOW_V_NAK_OOS_FRAME, oos->frame);
		flow_set(r, ROCE_FLOW_V_NAK_LATENCY, flow_since(in->ts_ns, oos->ts_ns));
	}
	flow_nak_open(q, psn, in->frame, in->ts_ns);
}

/* The requester sent something that far? A ghost is acknowledged beyond it. */
static bool beyond_sent(const struct direction *q, uint32_t psn)
{
	return q->started && roce_psn_diff(psn, (q->next_psn + q->slack) & ROCE_PSN_MASK) >= 0;
}

void flow_response(const struct roce_flow_env *env, struct direction *rd, const struct roce_flow_input *in,
		   struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	uint32_t psn = roce_bth_psn(roce_pkt_hdr(p, ROCE_H_BTH));
	uint32_t bth_off = p->hdr_off[ROCE_H_BTH];
	const uint8_t *aeth = roce_pkt_hdr(p, ROCE_H_AETH);
	r->cls = ROCE_FLOW_RESPONSE;
	struct direction *q = requester_of(env, rd, in, psn);
	enum roce_op_kind kind = p->op->kind;
	bool positive = kind == ROCE_K_READ_RESP || kind == ROCE_K_ATOMIC_ACK ||
			(aeth && roce_syndrome_type((uint8_t)roce_aeth_syndrome(aeth)) == ROCE_SYN_ACK);
	const struct answering ans = { env, in, r, q, psn, positive };
	if (q) {
		r->src_qpn = q->dest_qpn;
		flow_note_pmtu(q, in);
		rd->pmtu = q->pmtu;
	} else {
		flow_note_pmtu(rd, in);
	}

	uint32_t earlier = 0;
	bool repeat = flow_seen(rd->w.resp, rd->w.hist, psn, &earlier, NULL);
	struct request *e = NULL;
	if (q) {
		e = flow_find_request(q, psn, ROCE_K_NONE);
		/* A READ response answers a READ, or a FLUSH or ATOMIC WRITE. */
		if (kind == ROCE_K_READ_RESP && e && !answered_by_read_response(e->kind))
			e = flow_find_request(q, psn, ROCE_K_READ_REQ);
		if (kind == ROCE_K_ATOMIC_ACK && e && e->kind != ROCE_K_CMP_SWAP && e->kind != ROCE_K_FETCH_ADD)
			e = NULL;
		/* A READ response past its READ's range, with no request after
		 * it: the responder sent too many packets. */
		if (!e && kind == ROCE_K_READ_RESP && q->w.req_count) {
			struct request *last = flow_req_newest(&q->w);
			if (last->kind == ROCE_K_READ_REQ && roce_psn_diff(psn, last->psn) >= 0 &&
			    roce_psn_diff(psn, last->psn) < 1 << 16)
				e = last;
		}
	}

	if (kind == ROCE_K_READ_RESP) {
		if (repeat) {
			r->retransmit_of = earlier;
			r->flags |= ROCE_FLOW_F(DUP_READ_RESP);
			if (flow_copy_of_last(rd->w.resp, rd->w.hist, psn, p))
				r->flags |= ROCE_FLOW_F(DUPLICATE);
			flow_add(r, ROCE_F_DUP_READ_RESP, bth_off + 9, 3, psn, 0);
		}
		if (e && e->kind == ROCE_K_READ_REQ)
			read_response(q, e, in, r);
		else if (e)
			release(q, e, e->bytes_left); /* a FLUSH's or ATOMIC WRITE's response */
		if (q && e)
			flow_acknowledge(q, (psn + 1) & ROCE_PSN_MASK);
	}

	if (aeth) {
		uint8_t syn = (uint8_t)roce_aeth_syndrome(aeth);
		uint32_t aeth_off = p->hdr_off[ROCE_H_AETH];
		uint32_t icrc = p->complete ? roce_le32_load(p->buf + p->icrc_off) : 0;
		/* An ACK acknowledges its PSN, a NAK the PSNs before its own: a
		 * ghost acknowledges a PSN the requester was never seen to send. */
		uint32_t acked = roce_syndrome_type(syn) == ROCE_SYN_ACK ? psn : (psn - 1) & ROCE_PSN_MASK;
		if (q && kind != ROCE_K_READ_RESP && roce_syndrome_type(syn) != ROCE_SYN_RESERVED &&
		    beyond_sent(q, acked))
			r->flags |= ROCE_FLOW_F(GHOST_ACK);
		switch (roce_syndrome_type(syn)) {
		case ROCE_SYN_ACK:
			if (kind == ROCE_K_ACK && rd->ack_seen && psn == rd->last_ack_psn &&
			    roce_syndrome_type(rd->last_syndrome) == ROCE_SYN_ACK) {
				flow_add(r, ROCE_F_DUP_ACK, bth_off + 9, 3, psn, 0);
				r->flags |= ROCE_FLOW_F(DUP_ACK);
				if (p->complete && icrc == rd->last_ack_icrc)
					r->flags |= ROCE_FLOW_F(DUPLICATE);
			}
			if (q) {
				answer_through(&ans, q, psn, true);
				flow_nak_acked(q, psn);
				flow_acknowledge(q, (psn + 1) & ROCE_PSN_MASK);
			}
			break;
		case ROCE_SYN_RNR_NAK: {
			uint32_t us = roce_rnr_timer_usec(syn & 0x1F);
			flow_add(r, ROCE_F_RNR_EXPLAINED, aeth_off, 1, psn, us);
			r->flags |= ROCE_FLOW_F(RNR_NAK);
			if (q) {
				q->rnr_pending = true;
				q->rnr_psn = psn;
				q->rnr_usec = us;
				q->rnr_ts = in->ts_ns;
				q->rnr_frame = in->frame;
				answer_through(&ans, q, psn, false);
				flow_nak_acked(q, (psn - 1) & ROCE_PSN_MASK);
				flow_acknowledge(q, psn);
			}
			break;
		}
		case ROCE_SYN_NAK:
			r->flags |= ROCE_FLOW_F(NAK);
			if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ_ERR)
				r->flags |= ROCE_FLOW_F(SEQ_NAK);
			if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ_ERR && q && q->started) {
				flow_nak_acked(q, (psn - 1) & ROCE_PSN_MASK);
				nak_response(q, in, psn, r);
				answer_through(&ans, q, psn, false);
				flow_acknowledge(q, psn);
				/* The NAK answers the packet that arrived out of sequence: the
				 * newest request sent before it. */
				if (!e && q->w.req_count)
					e = flow_req_newest(&q->w);
			}
			break;
		case ROCE_SYN_RESERVED:
			break;
		}
		if (kind == ROCE_K_ACK) {
			rd->ack_seen = true;
			rd->last_ack_psn = psn;
			rd->last_syndrome = syn;
			rd->last_ack_icrc = icrc;
		}
	}

	if (e) {
		r->request_frame = e->frame;
		r->response_ns = flow_since(in->ts_ns, e->ts_ns);
		answer(&ans, e);
		if (kind == ROCE_K_ATOMIC_ACK)
			release(q, e, e->bytes_left);
	}
	if (kind == ROCE_K_ATOMIC_ACK && q && e)
		flow_acknowledge(q, (psn + 1) & ROCE_PSN_MASK);
	if (q && q->reg->invalidations &&
	    (!aeth || roce_syndrome_type((uint8_t)roce_aeth_syndrome(aeth)) != ROCE_SYN_RESERVED))
		flow_rkey_response(env, q, in, psn, positive, r);
	/* A response beyond its READ answers nothing: keep its PSN free for
	 * the next request's responses. */
	bool extra = false;
	for (unsigned i = 0; i < r->n_findings; i++)
		extra |= r->findings[i].code == ROCE_F_READ_RESP_EXTRA;
	if (!extra)
		flow_remember(env, rd, false, psn, in);
	r->pmtu = q ? q->pmtu : rd->pmtu;
	if (q)
		flow_in_flight(q, r);
}
