/*
 * Per-QP flow analysis (roce/flow.h).
 *
 * State lives in records the caller stores for us:
 * - a direction of a QP, keyed by (source IP, destination IP, DestQP): the
 *   requests that host sends to that QP (their PSN order, the outstanding
 *   ones, the NAK it is answering) and the responses it sends back to it
 *   (their history);
 * - a pair of hosts, keyed by (requester IP, responder IP): the directions
 *   that carried requests between them, searched to pair a response
 *   direction with its request direction when no CM exchange named them;
 * - a CM REQ, keyed by (its sender, its Local Communication ID), until the
 *   REP that answers it connects the two directions;
 * - one registry listing every direction, for roce_flow_end().
 *
 * The capture point is somewhere between the peers. Each judgement below
 * says which positions of it could explain what is seen: loss, reordering
 * and duplication before it, packets crossing in flight. A path (a
 * direction of a QP) that has shown none of these so far is "clean": there
 * a missing resend is the sender's, not the capture point's.
 */
#include <stddef.h>
#include <string.h>

#include "flow_internal.h"
#include "hints.h"
#include "roce/aeth.h"
#include "roce/mad.h"

struct cm_req {
	bool valid;
	uint8_t ip_version;
	bool rocev1;
	uint8_t a[16], b[16]; /* its sender and receiver */
	uint32_t qpn, start_psn;
	unsigned pmtu;
};

void flow_make_key(struct key *k, uint8_t kind, uint8_t net, const uint8_t *src, const uint8_t *dst,
		   uint32_t qpn)
{
	memset(k, 0, sizeof *k);
	k->kind = kind;
	k->net = net;
	k->qpn = qpn;
	size_t alen = flow_net_addr_len(net);
	if (src)
		memcpy(k->src, src, alen);
	if (dst)
		memcpy(k->dst, dst, alen);
}

struct registry *flow_registry(const struct roce_flow_env *env)
{
	struct key rk;
	flow_make_key(&rk, KIND_REGISTRY, 0, NULL, NULL, 0);
	return env->record(env->ctx, &rk, sizeof rk, sizeof(struct registry));
}

static struct direction *direction_of(const struct roce_flow_env *env, uint8_t net,
				      const uint8_t *src, const uint8_t *dst, uint32_t qpn)
{
	struct key k;
	flow_make_key(&k, KIND_DIRECTION, net, src, dst, qpn);
	struct direction *d = env->record(env->ctx, &k, sizeof k, sizeof *d);
	if (!d || d->id)
		return d;
	struct registry *reg = flow_registry(env);
	if (!reg)
		return NULL;
	d->dest_qpn = qpn;
	d->rocev1 = net == FLOW_NET_ROCEV1;
	d->ip_version = d->rocev1 ? 6 : net;
	memcpy(d->src, k.src, sizeof d->src);
	memcpy(d->dst, k.dst, sizeof d->dst);
	flow_window_init(d);
	d->reg = reg;
	d->id = ++reg->count;
	if (reg->last)
		reg->last->next = d;
	else
		reg->first = d;
	reg->last = d;
	return d;
}

static struct pair *pair_of(const struct roce_flow_env *env, uint8_t net, const uint8_t *src,
			    const uint8_t *dst)
{
	struct key k;
	flow_make_key(&k, KIND_PAIR, net, src, dst, 0);
	return env->record(env->ctx, &k, sizeof k, sizeof(struct pair));
}

static bool is_pmtu(uint32_t n)
{
	return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

static uint32_t read_packets(uint32_t dmalen, unsigned pmtu)
{
	return dmalen == 0 ? 1 : (uint32_t)((dmalen + (uint64_t)pmtu - 1) / pmtu);
}

/* Raising a finding is the rare case: out of line (hints.h). */
static ROCE_COLD void add(struct roce_flow_result *r, enum roce_code c, uint32_t off, uint32_t len,
		uint64_t observed, uint64_t expected)
{
	if (r->n_findings < ROCE_FLOW_MAX_FINDINGS)
		r->findings[r->n_findings++] = (struct roce_finding){ c, off, len, observed, expected };
}

static uint64_t since(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : 0;
}

/* ---- Requests and the responses that answer them ---- */

/* The newest request whose PSN range holds psn, optionally of one kind. */
static struct request *find_request(struct direction *q, uint32_t psn, enum roce_op_kind kind)
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
	uint64_t dt = since(a->in->ts_ns, e->ts_ns);
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

static bool completes(const struct roce_opcode_info *op)
{
	if (op->kind == ROCE_K_SEND || op->kind == ROCE_K_WRITE)
		return op->position == ROCE_POS_LAST || op->position == ROCE_POS_ONLY;
	return true;
}

static void record_request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
			   uint32_t psn, uint32_t span, bool span_known, uint32_t dmalen, bool fresh, bool unseen_psn)
{
	/* A READ whose PSN falls inside an earlier READ's range asks again
	 * for the rest of it, after responses were lost. */
	struct request *orig = in->pkt->op->kind == ROCE_K_READ_REQ && span_known
				       ? find_request(q, psn, ROCE_K_READ_REQ)
				       : NULL;
	if (orig && (!orig->span_known || (!orig->replay && orig->psn == psn)))
		orig = NULL;
	struct request r = { .psn = psn, .span = span, .frame = in->frame, .dmalen = dmalen,
			     .kind = (uint8_t)in->pkt->op->kind, .span_known = span_known,
			     .completes = completes(in->pkt->op), .ts_ns = in->ts_ns, .cookie = in->cookie };
	if (orig && orig->origin_unseen) {
		/* Asked again once more: its original is still out of view. */
		r.replay = true;
		r.origin_unseen = true;
		r.bytes_left = orig->bytes_left;
		orig->bytes_left = 0;
	} else if (orig) {
		r.replay = true;
		r.orig_psn = orig->replay ? orig->orig_psn : orig->psn;
		r.orig_span = orig->replay ? orig->orig_span : orig->span;
		/* What the earlier READ still had in flight, its responses answer now. */
		r.bytes_left = orig->bytes_left;
		orig->bytes_left = 0;
	} else if (unseen_psn && r.kind == ROCE_K_READ_REQ && span_known) {
		/* A READ at a PSN behind later ones that no request used, with no
		 * READ in view covering it: a READ whose responses all passed the
		 * capture point, so the ring let it go, while the requester's
		 * copies were lost or reordered after it, asked again from inside
		 * its range (or a READ reordered before the capture point). */
		r.replay = true;
		r.origin_unseen = true;
	}
	if (fresh) {
		/* New PSNs are in flight until the responder acknowledges them. */
		r.bytes_left = flow_request_bytes(in->pkt, dmalen);
		q->bytes_in_flight += r.bytes_left;
	}
	const uint8_t *ieth = roce_pkt_hdr(in->pkt, ROCE_H_IETH);
	if (ieth) {
		r.inv = true;
		r.inv_rkey = (uint32_t)roce_ieth_rkey(ieth);
	}
	struct request *e = flow_new_request(env, q);
	if (e)
		*e = r;
}

static void note_pmtu(struct direction *d, const struct roce_flow_input *in)
{
	const struct roce_pkt *p = in->pkt;
	if (in->pmtu) {
		d->pmtu = in->pmtu;
		return;
	}
	if (!d->pmtu && (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE) &&
	    is_pmtu(p->payload_len)) {
		d->pmtu = p->payload_len;
		if (d->peer && !d->peer->pmtu)
			d->peer->pmtu = p->payload_len;
	}
}

/* Message order (First/Middle/Last) is judged only between packets in PSN
 * order with nothing missing between them: a gap or a late packet makes
 * the state unknown, so no loss or reordering before the capture point
 * can produce these findings. */
static void check_message_order(struct direction *q, const struct roce_pkt *p, uint32_t bth,
				struct roce_flow_result *r)
{
	enum roce_op_kind k = p->op->kind;
	if (k != ROCE_K_SEND && k != ROCE_K_WRITE) {
		if (q->msg == MSG_IN)
			add(r, ROCE_F_OPSEQ_UNFINISHED, bth, 1, p->opcode, 0);
		q->msg = MSG_OUT;
		return;
	}
	enum roce_position pos = p->op->position;
	bool starts = pos == ROCE_POS_FIRST || pos == ROCE_POS_ONLY;
	if (starts && q->msg == MSG_IN)
		add(r, ROCE_F_OPSEQ_UNFINISHED, bth, 1, p->opcode, 0);
	else if (!starts && q->msg == MSG_OUT)
		add(r, ROCE_F_OPSEQ_CONTINUE, bth, 1, p->opcode, 0);
	q->msg = (pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE) ? MSG_IN : MSG_OUT;
}

static bool clean(const struct direction *q)
{
	return q->disorder == 0;
}

/* ---- Go-back-N after a NAK PSN Sequence Error ----
 *
 * The NAK reaches the requester some time after it passes the capture
 * point; until then the requester keeps sending new PSNs (they crossed the
 * NAK in flight: counted, never judged). Then it resends from the NAKed
 * PSN up to the highest it had sent, and only then sends new PSNs again.
 * The time from the NAK to the first resend, and the new PSNs before it,
 * are the measurements. A go-back that resends up to the highest PSN and
 * goes on without the NAKed PSN, and new PSNs in the middle of the
 * resends, are errors on a clean path when the resend seen differs from
 * an earlier copy of its PSN (a duplicate made by the network looks the
 * same; a first copy may be the original, late); elsewhere loss,
 * reordering or duplication before the capture point explains them, and
 * they are warnings. A new PSN whose IPv4 ID falls between those of the
 * requester's packet seen before the resend and of the resend left the
 * requester before the resend (Linux numbers the datagrams it sends to a
 * host in order), which overtook it before the capture point: it crossed
 * the NAK, and the go-back goes up to it. A resend past the NAKed PSN
 * that comes first is only judged once the go-back shows whether it
 * overtook the others. */

/* The packet's IPv4 ID, when it has one. */
static bool ipv4_id(const struct roce_pkt *p, uint16_t *id)
{
	const uint8_t *ip = roce_pkt_hdr(p, ROCE_H_IPV4);
	if (ip)
		*id = (uint16_t)roce_ipv4_id(ip);
	return ip != NULL;
}

/* Did this packet leave the requester before the resend of the NAKed
 * PSN, by its IPv4 ID? */
static bool sent_before_resend(const struct nak_episode *k, const struct roce_flow_input *in)
{
	uint16_t id;
	return k->ipid_known && ipv4_id(in->pkt, &id) && (int16_t)(uint16_t)(id - k->ipid_before) > 0 &&
	       (int16_t)(uint16_t)(k->ipid_resend - id) > 0;
}

static void nak_open(struct direction *q, uint32_t psn, uint32_t frame, uint64_t ts)
{
	q->nak = (struct nak_episode){ .open = true, .psn = psn, .frame = frame, .ts_ns = ts };
}

/* The responder acknowledged up to psn: what the go-back needed is there. */
static void nak_acked(struct direction *q, uint32_t psn)
{
	struct nak_episode *k = &q->nak;
	if (!k->open || roce_psn_diff(psn, k->psn) < 0)
		return;
	if (!k->resent) {
		k->open = false; /* the NAKed PSN arrived: its resend passed unseen, or the original came late */
		return;
	}
	if (roce_psn_diff(psn, k->resend_next) >= 0)
		k->resend_next = (psn + 1) & ROCE_PSN_MASK;
	if (roce_psn_diff(k->resend_next, k->high) >= 0)
		k->open = false;
}

/* The go-back began past the NAKed PSN (k->ahead) and the requester now
 * sends a new PSN without having resent the NAKed one. Once the resends
 * reached the highest PSN sent, nothing but the requester explains it on
 * a clean path; a new PSN among unfinished resends may have overtaken
 * them before the capture point. */
static ROCE_COLD void judge_ahead(const struct direction *q, uint32_t bth_off, struct roce_flow_result *r)
{
	const struct nak_episode *k = &q->nak;
	bool resends_done = roce_psn_diff(k->resend_next, k->high) >= 0;
	add(r, resends_done && clean(q) && !k->ahead_unsure ? ROCE_F_GBN_SKIPPED : ROCE_F_GBN_SKIPPED_SEEN,
	    bth_off + 9, 3, k->ahead_psn, k->psn);
}

/* A resend after the NAKed PSN's, while one past it came first: the
 * go-back passing over that PSN shows it was one of its resends that
 * overtook the others; the same PSN resent again shows it was not. */
static ROCE_COLD void settle_ahead(struct direction *q, uint32_t psn, uint32_t bth_off, struct roce_flow_result *r)
{
	struct nak_episode *k = &q->nak;
	if (psn == k->ahead_psn) {
		k->ahead = false;
		add(r, ROCE_F_GBN_SKIPPED_SEEN, bth_off + 9, 3, psn, k->psn);
	} else if (roce_psn_diff(k->ahead_psn, k->resend_next) >= 0 && roce_psn_diff(psn, k->ahead_psn) > 0) {
		k->ahead = false;
		q->disorder++; /* reordered before the capture point */
	}
}

/* Does psn take a run of resends up again where it was when one of its
 * resends came ahead of the others? */
static bool resumes_run(const struct direction *q, uint32_t psn)
{
	return q->retx_overtaken && psn == q->retx_resume;
}

static ROCE_COLD void go_back_n(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
		      bool retx, bool unsure, uint32_t bth_off, struct roce_flow_result *r)
{
	struct nak_episode *k = &q->nak;
	k->after++;
	if (!retx) {
		if (k->ahead && !k->resent) {
			judge_ahead(q, bth_off, r);
			k->open = false;
			return;
		}
		if (k->ahead && k->resend_next == k->ahead_psn) {
			/* The early resend was the last one due: it overtook. */
			k->ahead = false;
			k->resend_next = k->ahead_end;
			q->disorder++;
		}
		if (!k->resent) {
			k->new_before++; /* crossed the NAK in flight */
			r->flags |= ROCE_FLOW_F(CROSSED_NAK);
			return;
		}
		if (roce_psn_diff(k->resend_next, k->high) < 0) {
			if (sent_before_resend(k, in)) {
				/* It crossed the NAK, and the resend overtook it. */
				r->flags |= ROCE_FLOW_F(CROSSED_NAK);
				q->disorder++;
				k->high = (psn + span) & ROCE_PSN_MASK;
				return;
			}
			add(r, clean(q) && !k->resend_unsure ? ROCE_F_GBN_NEW_IN_RESEND : ROCE_F_GBN_NEW_IN_RESEND_SEEN,
			    bth_off + 9, 3, psn, k->resend_next);
		}
		k->open = false;
		return;
	}
	r->flags |= ROCE_FLOW_F(GBN_RESEND);
	add(r, ROCE_F_GBN_RETRANSMISSION, bth_off + 9, 3, psn, k->psn);
	if (!k->resent && psn == k->psn) {
		k->resent = true;
		k->resend_unsure = unsure;
		k->high = q->next_psn;
		k->resend_next = (psn + span) & ROCE_PSN_MASK;
		r->nak_frame = k->frame;
		r->nak_to_resend_ns = since(in->ts_ns, k->ts_ns);
		r->new_after_nak = k->new_before;
		k->ipid_known = q->ipid_known && ipv4_id(in->pkt, &k->ipid_resend);
		k->ipid_before = q->last_ipid;
	} else if (!k->resent) {
		/* Before the NAKed PSN: a timeout's go-back that crossed the NAK.
		 * After it: a go-back that began past it, judged when it ends,
		 * unless this packet only goes on with a run of resends begun
		 * before the NAK arrived (PSNs missing in the run were lost before
		 * the capture point; a new PSN that skipped ahead among its
		 * resends overtook them), or takes the run up again where a resend
		 * that overtook others before the capture point left it. */
		bool continues = q->retx_seen && !q->new_since_retx &&
				 (roce_psn_diff(psn, q->last_retx_psn) > 0 ||
				  resumes_run(q, psn));
		if (k->ahead) {
			if (roce_psn_diff(psn, k->resend_next) >= 0)
				k->resend_next = (psn + span) & ROCE_PSN_MASK;
		} else if (roce_psn_diff(psn, k->psn) > 0 && !continues && !k->judged) {
			k->judged = true;
			k->ahead = true;
			k->ahead_unsure = unsure;
			k->ahead_psn = psn;
			k->ahead_end = (psn + span) & ROCE_PSN_MASK;
			k->high = q->next_psn;
			k->resend_next = (psn + span) & ROCE_PSN_MASK;
		}
		return;
	} else {
		if (k->ahead)
			settle_ahead(q, psn, bth_off, r);
		if (roce_psn_diff(psn, k->resend_next) >= 0)
			k->resend_next = (psn + span) & ROCE_PSN_MASK;
	}
	if (roce_psn_diff(k->resend_next, k->high) >= 0)
		k->open = false;
}

/* An RNR NAK asks the requester to wait before it retries. */
static ROCE_COLD bool rnr_retry(struct direction *q, const struct roce_flow_input *in, uint32_t psn, bool copy,
		      uint32_t bth_off, struct roce_flow_result *r)
{
	if (!q->rnr_pending || psn != q->rnr_psn)
		return false;
	uint64_t waited = in->ts_ns >= q->rnr_ts ? (in->ts_ns - q->rnr_ts) / 1000 : 0;
	bool early = in->ts_ns >= q->rnr_ts && waited < q->rnr_usec;
	if (early)
		add(r, copy ? ROCE_F_RNR_EARLY_SEEN : ROCE_F_RNR_EARLY, bth_off + 9, 3, waited, q->rnr_usec);
	r->flags |= ROCE_FLOW_F(RNR_RETRY);
	flow_set(r, ROCE_FLOW_V_RNR_NAK_FRAME, q->rnr_frame);
	flow_set(r, ROCE_FLOW_V_RNR_WAIT, since(in->ts_ns, q->rnr_ts));
	flow_set(r, ROCE_FLOW_V_RNR_TIMER, (uint64_t)q->rnr_usec * 1000u);
	/* A copy may be a duplicate of the packet that was RNR-NAKed: the
	 * retry may still come. */
	if (!(copy && early))
		q->rnr_pending = false;
	return true;
}

/* A request behind the next new PSN: a retransmission (seen before,
 * inside a READ's reserved range, or the NAKed PSN or the next PSN of a
 * run of resends, their first copies lost before the capture point) or a
 * late packet (reordered before the capture point, or resent after a loss
 * before it: a PSN never seen that nothing seen asked for). Returns
 * whether the PSN is new to the capture. */
static ROCE_COLD bool behind(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
		   uint32_t bth_off, struct roce_flow_result *r)
{
	uint32_t earlier = 0;
	uint64_t earlier_ts = 0;
	bool was_seen = flow_seen(q->w.sent, q->w.hist, psn, &earlier, &earlier_ts);
	bool copy = was_seen && flow_copy_of_last(q->w.sent, q->w.hist, psn, in->pkt);
	const struct request *read = find_request(q, psn, ROCE_K_READ_REQ);
	bool after_nak = q->nak.open && (psn == q->nak.psn || (q->nak.resent && psn == q->nak.resend_next));
	bool in_run = q->retx_seen && psn == ((q->last_retx_psn + 1) & ROCE_PSN_MASK);
	if (!was_seen && !read && !after_nak && !in_run) {
		r->cls = ROCE_FLOW_OUT_OF_ORDER;
		add(r, ROCE_F_OUT_OF_ORDER, bth_off + 9, 3, psn, q->next_psn);
		q->disorder++;
		if (q->nak.open)
			q->nak.after++;
		return true;
	}
	r->cls = ROCE_FLOW_RETRANSMISSION;
	r->retransmit_of = earlier;
	if (copy)
		r->flags |= ROCE_FLOW_F(DUPLICATE);
	if (q->started && roce_psn_diff((psn + span - 1) & ROCE_PSN_MASK, q->una) < 0)
		r->flags |= ROCE_FLOW_F(SPURIOUS); /* the responder had acknowledged it */
	bool rnr = rnr_retry(q, in, psn, copy, bth_off, r);
	if (q->nak.open) {
		go_back_n(q, in, psn, span, true, copy || !was_seen, bth_off, r);
	} else {
		add(r, ROCE_F_RETRANSMISSION, bth_off + 9, 3, psn, q->next_psn);
		if (!rnr && !copy && (was_seen || read)) {
			/* No NAK asked for it: a timeout, timed from what it repeats
			 * (a byte-identical copy is the network's, not a resend). */
			uint32_t from = was_seen ? earlier : read->frame;
			uint64_t from_ts = was_seen ? earlier_ts : read->ts_ns;
			flow_set(r, ROCE_FLOW_V_RTO_FRAME, from);
			flow_set(r, ROCE_FLOW_V_RTO, since(in->ts_ns, from_ts));
		}
	}
	if (!rnr && !q->nak.open)
		q->disorder++; /* a timeout's resend, or a duplicate: nothing seen asked for it */
	/* Where a run of resends was when one of them came ahead of the
	 * others (the first of several in a row): it may go on from there. */
	uint32_t in_order = (q->last_retx_psn + 1) & ROCE_PSN_MASK;
	bool ahead = q->retx_seen && !q->new_since_retx && roce_psn_diff(psn, in_order) > 0;
	if (!q->retx_seen || q->new_since_retx || resumes_run(q, psn)) {
		q->retx_overtaken = false; /* a new run, or the run taken up again */
	} else if (ahead && !q->retx_ahead) {
		q->retx_overtaken = true;
		q->retx_resume = in_order;
	}
	q->retx_ahead = ahead;
	q->retx_seen = true;
	q->last_retx_psn = (psn + span - 1) & ROCE_PSN_MASK;
	q->new_since_retx = false;
	return !was_seen && !read;
}

/* The XRC SRQ numbers a target QP's requests name, each once. */
static void note_xrc_srq(struct direction *q, uint32_t srqn)
{
	for (unsigned i = 0; i < q->n_xrc_srqs; i++)
		if (q->xrc_srqn[i] == srqn)
			return;
	if (q->n_xrc_srqs < XRC_SRQS)
		q->xrc_srqn[q->n_xrc_srqs++] = srqn;
	else
		q->xrc_srqs_more = true;
}

static void request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
		    struct roce_flow_result *r)
{
	const struct roce_pkt *p = in->pkt;
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	uint32_t bth_off = p->hdr_off[ROCE_H_BTH];
	uint32_t psn = roce_bth_psn(bth);
	note_pmtu(q, in);

	/* How many PSNs this request takes. */
	uint32_t span = 1, dmalen = 0;
	bool span_known = true;
	const uint8_t *reth = roce_pkt_hdr(p, ROCE_H_RETH);
	if (p->op->kind == ROCE_K_READ_REQ && reth) {
		dmalen = roce_reth_dmalen(reth);
		if (q->pmtu) {
			span = read_packets(dmalen, q->pmtu);
		} else if (dmalen <= 256) {
			span = 1; /* one packet whatever the path MTU */
		} else {
			span = read_packets(dmalen, 256); /* at most */
			span_known = false;
		}
	}

	bool fresh = true; /* a PSN new to the capture */
	if (!q->started) {
		q->started = true;
		q->una = psn;
		r->cls = ROCE_FLOW_FIRST;
		q->msg = (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE) ? MSG_IN
												    : MSG_UNKNOWN;
	} else {
		int32_t d = roce_psn_diff(psn, q->next_psn);
		r->expected_psn = q->next_psn;
		if (d < 0) {
			fresh = behind(q, in, psn, span, bth_off, r);
			goto done;
		}
		if (d == 0 || (uint32_t)d <= q->slack) {
			r->cls = ROCE_FLOW_IN_ORDER;
			q->new_seen = true;
			if (q->msg != MSG_UNKNOWN)
				check_message_order(q, p, bth_off, r);
		} else {
			r->cls = ROCE_FLOW_GAP;
			add(r, ROCE_F_PSN_GAP, bth_off + 9, 3, psn, q->next_psn);
			q->disorder++;
		}
		if (r->cls == ROCE_FLOW_GAP || q->msg == MSG_UNKNOWN)
			q->msg = (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE)
					 ? MSG_IN
					 : MSG_OUT;
		if (q->nak.open)
			go_back_n(q, in, psn, span, false, false, bth_off, r);
	}
	q->next_psn = (psn + (span_known ? span : 1)) & ROCE_PSN_MASK;
	q->slack = span_known ? 0 : span - 1;
	if (r->cls == ROCE_FLOW_IN_ORDER)
		q->new_since_retx = true;
done:
	q->ipid_known = ipv4_id(p, &q->last_ipid);
	flow_remember(env, q, true, psn, in);
	flow_retx_request(env, q, in, psn, r);
	flow_rkey_request(env, q, in, psn, r);
	const uint8_t *xrceth = roce_pkt_hdr(p, ROCE_H_XRCETH);
	if (xrceth)
		note_xrc_srq(q, (uint32_t)roce_xrceth_srqn(xrceth));
	/* Behind the next new PSN, and never a request's PSN before. */
	record_request(env, q, in, psn, span, span_known, dmalen, fresh,
		       fresh && (r->cls == ROCE_FLOW_OUT_OF_ORDER || r->cls == ROCE_FLOW_RETRANSMISSION));
	q->last_ts = in->ts_ns;
	r->pmtu = q->pmtu;
	flow_in_flight(q, r);
}

/* Does psn fall among what q has sent: a request's range, or between its
 * oldest remembered request and its next new PSN? */
static bool plausible(struct direction *q, uint32_t psn)
{
	if (find_request(q, psn, ROCE_K_NONE))
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
	struct pair *pr = pair_of(env, flow_in_net(in), in->dst, in->src);
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
	note_pmtu(q, in);
	if (!e->span_known && q->pmtu) {
		e->span = read_packets(e->dmalen, q->pmtu);
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
		add(r, ROCE_F_READ_RESP_EXTRA, bth_off + 9, 3, i + 1, n);
		return;
	}
	enum roce_position want = read_position(i, n);
	if (p->op->position != want) {
		/* A replay from inside the original range may begin with the
		 * original response's packet at that PSN. */
		uint32_t k = e->replay ? (uint32_t)roce_psn_diff(psn, e->orig_psn) : 0;
		if (e->replay && !e->origin_unseen && i == 0 && k < e->orig_span &&
		    p->op->position == read_position(k, e->orig_span))
			add(r, ROCE_F_READ_REPLAY_MIDDLE, bth_off, 1, psn, k + 1);
		/* With the original out of view: its packet at this PSN was a
		 * Middle if more follow, else its Last. */
		else if (e->origin_unseen && i == 0 && p->op->position == (n == 1 ? ROCE_POS_LAST : ROCE_POS_MIDDLE))
			add(r, ROCE_F_READ_REPLAY_UNSEEN, bth_off, 1, psn, n);
		else
			add(r, ROCE_F_READ_RESP_POSITION, bth_off, 1, i + 1, n);
	}
	uint32_t len = i + 1 < n ? q->pmtu : e->dmalen - (n - 1) * q->pmtu;
	enum roce_position pos = p->op->position;
	if (p->op->transport == ROCE_T_XRC && p->payload_len == len + ROCE_XRCETH_LEN) {
		/* A First or Middle the path MTU plus an XRCETH long: the
		 * stateless check, given this path MTU, reports it
		 * (C_XRC_READ_RESP_XRCETH); counted once. */
		if (!((pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE) && len == q->pmtu))
			add(r, ROCE_F_XRC_READ_RESP_XRCETH, p->payload_off, p->payload_len, p->payload_len, len);
	} else if (p->payload_len != len)
		add(r, ROCE_F_READ_RESP_LEN, p->payload_off, p->payload_len, p->payload_len, len);
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
		add(r, q->start_known || q->new_seen ? ROCE_F_SEQ_NAK_AHEAD : ROCE_F_SEQ_NAK_AHEAD_SEEN, bth_off + 9, 3,
		    psn, last);
		return;
	}
	add(r, ROCE_F_SEQ_NAK_EXPLAINED, p->hdr_off[ROCE_H_AETH], 1, psn, last);
	const struct request *oos = out_of_sequence(q, psn);
	if (oos) {
		flow_set(r, ROCE_FLOW_V_NAK_OOS_FRAME, oos->frame);
		flow_set(r, ROCE_FLOW_V_NAK_LATENCY, since(in->ts_ns, oos->ts_ns));
	}
	nak_open(q, psn, in->frame, in->ts_ns);
}

/* The requester sent something that far? A ghost is acknowledged beyond it. */
static bool beyond_sent(const struct direction *q, uint32_t psn)
{
	return q->started && roce_psn_diff(psn, (q->next_psn + q->slack) & ROCE_PSN_MASK) >= 0;
}

static void response(const struct roce_flow_env *env, struct direction *rd,
		     const struct roce_flow_input *in, struct roce_flow_result *r)
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
		note_pmtu(q, in);
		rd->pmtu = q->pmtu;
	} else {
		note_pmtu(rd, in);
	}

	uint32_t earlier = 0;
	bool repeat = flow_seen(rd->w.resp, rd->w.hist, psn, &earlier, NULL);
	struct request *e = NULL;
	if (q) {
		e = find_request(q, psn, ROCE_K_NONE);
		/* A READ response answers a READ, or a FLUSH or ATOMIC WRITE. */
		if (kind == ROCE_K_READ_RESP && e && !answered_by_read_response(e->kind))
			e = find_request(q, psn, ROCE_K_READ_REQ);
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
			add(r, ROCE_F_DUP_READ_RESP, bth_off + 9, 3, psn, 0);
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
				add(r, ROCE_F_DUP_ACK, bth_off + 9, 3, psn, 0);
				r->flags |= ROCE_FLOW_F(DUP_ACK);
				if (p->complete && icrc == rd->last_ack_icrc)
					r->flags |= ROCE_FLOW_F(DUPLICATE);
			}
			if (q) {
				answer_through(&ans, q, psn, true);
				nak_acked(q, psn);
				flow_acknowledge(q, (psn + 1) & ROCE_PSN_MASK);
			}
			break;
		case ROCE_SYN_RNR_NAK: {
			uint32_t us = roce_rnr_timer_usec(syn & 0x1F);
			add(r, ROCE_F_RNR_EXPLAINED, aeth_off, 1, psn, us);
			r->flags |= ROCE_FLOW_F(RNR_NAK);
			if (q) {
				q->rnr_pending = true;
				q->rnr_psn = psn;
				q->rnr_usec = us;
				q->rnr_ts = in->ts_ns;
				q->rnr_frame = in->frame;
				answer_through(&ans, q, psn, false);
				nak_acked(q, (psn - 1) & ROCE_PSN_MASK);
				flow_acknowledge(q, psn);
			}
			break;
		}
		case ROCE_SYN_NAK:
			r->flags |= ROCE_FLOW_F(NAK);
			if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ_ERR)
				r->flags |= ROCE_FLOW_F(SEQ_NAK);
			if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ_ERR && q && q->started) {
				nak_acked(q, (psn - 1) & ROCE_PSN_MASK);
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
		r->response_ns = since(in->ts_ns, e->ts_ns);
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

static bool connected(enum roce_transport t)
{
	return t == ROCE_T_RC || t == ROCE_T_UC || t == ROCE_T_XRC || t == ROCE_T_RD;
}

/* ---- The connection manager: a REQ, then the REP that accepts it ---- */

static struct cm_req *cm_req_of(const struct roce_flow_env *env, uint8_t net, const uint8_t *sender,
				uint32_t comm_id)
{
	struct key k;
	flow_make_key(&k, KIND_CM_REQ, net, sender, NULL, comm_id);
	return env->record(env->ctx, &k, sizeof k, sizeof(struct cm_req));
}

static void learn_cm(const struct roce_flow_env *env, const struct roce_flow_input *in)
{
	const struct roce_pkt *p = in->pkt;
	if (!roce_pkt_is_mad(p) || p->payload_len < ROCE_MAD_LEN ||
	    (uint64_t)p->payload_off + ROCE_MAD_LEN > p->caplen)
		return;
	const uint8_t *mad = p->buf + p->payload_off;
	if (roce_mad_mgmt_class(mad) != ROCE_MAD_CLASS_CM)
		return;
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	size_t alen = flow_net_addr_len(flow_in_net(in));
	uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
	if (attr == ROCE_CM_REQ) {
		struct cm_req *r = cm_req_of(env, flow_in_net(in), in->src, (uint32_t)roce_req_local_comm_id(m));
		if (!r)
			return;
		r->valid = true;
		r->ip_version = in->ip_version;
		r->rocev1 = in->rocev1;
		memcpy(r->a, in->src, alen);
		memcpy(r->b, in->dst, alen);
		r->qpn = (uint32_t)roce_req_local_qpn(m);
		r->start_psn = (uint32_t)roce_req_start_psn(m);
		r->pmtu = roce_ib_mtu_bytes((unsigned)roce_req_path_mtu(m));
	} else if (attr == ROCE_CM_REP) {
		struct cm_req *r = cm_req_of(env, flow_in_net(in), in->dst, (uint32_t)roce_rep_remote_comm_id(m));
		if (!r || !r->valid || memcmp(r->b, in->src, alen))
			return;
		/* A Starting PSN is the one its sender receives first (IBA 12.7
		 * as Linux's CM and rxe read it): A sends from the REP's. */
		struct roce_flow_connection c = {
			r->ip_version, r->a, r->b, r->qpn, (uint32_t)roce_rep_local_qpn(m),
			(uint32_t)roce_rep_start_psn(m), r->start_psn, true, true, r->pmtu, r->rocev1,
		};
		roce_flow_connect(env, &c);
	}
}

/* The values the result carries in named fields, and the flags its class
 * means, in the generic form too. */
static void publish(struct roce_flow_result *r)
{
	static const uint32_t class_flag[] = {
		[ROCE_FLOW_GAP] = ROCE_FLOW_F(PSN_GAP),
		[ROCE_FLOW_RETRANSMISSION] = ROCE_FLOW_F(RETRANSMISSION),
		[ROCE_FLOW_OUT_OF_ORDER] = ROCE_FLOW_F(OUT_OF_ORDER),
		[ROCE_FLOW_RESPONSE] = 0,
	};
	r->flags |= class_flag[r->cls];
	if (r->cls != ROCE_FLOW_RESPONSE && r->cls != ROCE_FLOW_FIRST && r->cls != ROCE_FLOW_UNTRACKED)
		flow_set(r, ROCE_FLOW_V_EXPECTED_PSN, r->expected_psn);
	if (r->src_qpn)
		flow_set(r, ROCE_FLOW_V_SRC_QPN, r->src_qpn);
	if (r->pmtu)
		flow_set(r, ROCE_FLOW_V_PMTU, r->pmtu);
	if (r->request_frame) {
		flow_set(r, ROCE_FLOW_V_REQUEST_FRAME, r->request_frame);
		flow_set(r, ROCE_FLOW_V_RESPONSE_TIME, r->response_ns);
	}
	if (r->read_index)
		flow_set(r, ROCE_FLOW_V_READ_INDEX, r->read_index);
	if (r->read_count)
		flow_set(r, ROCE_FLOW_V_READ_COUNT, r->read_count);
	if (r->retransmit_of)
		flow_set(r, ROCE_FLOW_V_RETRANSMIT_OF, r->retransmit_of);
	if (r->nak_frame) {
		flow_set(r, ROCE_FLOW_V_NAK_FRAME, r->nak_frame);
		flow_set(r, ROCE_FLOW_V_NAK_TO_RESEND, r->nak_to_resend_ns);
		flow_set(r, ROCE_FLOW_V_NEW_AFTER_NAK, r->new_after_nak);
	}
}

/* The flow a CNP is about: what the reaction point (the CNP's receiver)
 * sends to the notification point's QP. The CNP travels in the opposite
 * direction of that flow's connection; without a pairing, the only flow
 * between the two hosts, or the only one with CE marks since its last CNP. */
static struct direction *cnp_flow(const struct roce_flow_env *env, struct direction *c,
				  const struct roce_flow_input *in)
{
	if (c->peer)
		return c->peer;
	struct pair *pr = pair_of(env, flow_in_net(in), in->dst, in->src);
	if (!pr || !pr->n)
		return NULL;
	struct direction *marked = NULL;
	unsigned n_marked = 0;
	for (unsigned i = 0; i < pr->n; i++) {
		if (pr->dir[i]->rate.ce_pending) {
			marked = pr->dir[i];
			n_marked++;
		}
	}
	return pr->n == 1 ? pr->dir[0] : n_marked == 1 ? marked : NULL;
}

void roce_flow_packet(const struct roce_flow_env *env, const struct roce_flow_input *in,
		      struct roce_flow_result *out)
{
	/* The values and findings past `has` and n_findings are never read:
	 * zeroing them too would write nine cache lines a packet. */
	memset(out, 0, offsetof(struct roce_flow_result, value));
	out->n_findings = 0;
	const struct roce_pkt *p = in->pkt;
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth || !p->op || !p->op->name)
		return;
	bool cnp = p->op->kind == ROCE_K_CNP;
	if (!connected(p->op->transport) && !cnp) {
		learn_cm(env, in);
		return;
	}
	uint32_t qpn = roce_bth_destqp(bth);
	struct direction *d = direction_of(env, flow_in_net(in), in->src, in->dst, qpn);
	if (!d)
		return;
	out->dir = (const struct roce_flow_dir *)d;
	out->dir_id = d->id;
	bool ce = flow_ce_marked(p);
	if (ce)
		out->flags |= ROCE_FLOW_F(CE);
	if (cnp) {
		flow_cnp(env, cnp_flow(env, d, in), in, out);
		return;
	}
	flow_rate_packet(env, d, in, ce);

	/* The annex: the source port should stay the same for a connected QP. */
	if (d->sport_known && d->sport != in->sport) {
		uint32_t off = roce_pkt_has(p, ROCE_H_UDP) ? p->hdr_off[ROCE_H_UDP] : p->hdr_off[ROCE_H_BTH];
		add(out, ROCE_F_SPORT_CHANGED, off, roce_pkt_has(p, ROCE_H_UDP) ? 2 : 0, in->sport, d->sport);
	}
	d->sport_known = true;
	d->sport = in->sport;

	if (p->op->flags & ROCE_OPF_REQUEST) {
		if (!d->in_pair) {
			struct pair *pr = pair_of(env, flow_in_net(in), in->src, in->dst);
			if (pr && pr->n < ROCE_FLOW_PAIR_QPS) {
				pr->dir[pr->n++] = d;
				d->in_pair = true;
			}
		}
		request(env, d, in, out);
		if (d->peer)
			out->src_qpn = d->peer->dest_qpn;
	} else if (p->op->flags & ROCE_OPF_RESPONSE) {
		response(env, d, in, out);
	}
	publish(out);
}

bool roce_flow_input_from(struct roce_flow_input *in, const struct roce_pkt *p)
{
	const uint8_t *h;
	in->pkt = p;
	in->sport = (h = roce_pkt_hdr(p, ROCE_H_UDP)) ? (uint16_t)roce_udp_sport(h) : 0;
	in->rocev1 = false;
	if ((h = roce_pkt_hdr(p, ROCE_H_IPV4))) {
		in->ip_version = 4;
		in->src = roce_ipv4_src(h);
		in->dst = roce_ipv4_dst(h);
	} else if ((h = roce_pkt_hdr(p, ROCE_H_IPV6))) {
		in->ip_version = 6;
		in->src = roce_ipv6_src(h);
		in->dst = roce_ipv6_dst(h);
	} else if ((h = roce_pkt_hdr(p, ROCE_H_GRH))) {
		in->ip_version = 6;
		in->rocev1 = true;
		in->src = roce_grh_sgid(h);
		in->dst = roce_grh_dgid(h);
	} else {
		return false;
	}
	return roce_pkt_has(p, ROCE_H_BTH) && p->op && p->op->name;
}

void roce_flow_connect(const struct roce_flow_env *env, const struct roce_flow_connection *c)
{
	/* a -> b carries a's requests to b's QP; b -> a the reverse. */
	uint8_t net = flow_net(c->ip_version, c->rocev1);
	struct direction *ab = direction_of(env, net, c->a, c->b, c->b_qpn);
	struct direction *ba = direction_of(env, net, c->b, c->a, c->a_qpn);
	if (!ab || !ba)
		return;
	ab->peer = ba;
	ba->peer = ab;
	if (c->pmtu && is_pmtu(c->pmtu))
		ab->pmtu = ba->pmtu = c->pmtu;
	if (c->a_psn_known && !ab->started) {
		ab->started = ab->start_known = true;
		ab->next_psn = ab->una = c->a_start_psn & ROCE_PSN_MASK;
		ab->msg = MSG_OUT;
	}
	if (c->b_psn_known && !ba->started) {
		ba->started = ba->start_known = true;
		ba->next_psn = ba->una = c->b_start_psn & ROCE_PSN_MASK;
		ba->msg = MSG_OUT;
	}
}

void roce_flow_end(const struct roce_flow_env *env,
		   void (*report)(void *arg, const struct roce_flow_open_nak *o), void *arg)
{
	struct registry *reg = flow_registry(env);
	for (struct direction *d = reg ? reg->first : NULL; d; d = d->next) {
		const struct nak_episode *k = &d->nak;
		if (!k->open || k->resent)
			continue;
		struct roce_flow_open_nak o = {
			d->ip_version, d->src, d->dst, d->dest_qpn, k->frame, k->psn, k->after,
			k->after && d->last_ts > k->ts_ns ? d->last_ts - k->ts_ns : 0, clean(d), d->rocev1,
		};
		report(arg, &o);
	}
}
