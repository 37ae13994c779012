/*
 * Per-QP flow analysis (roce/flow.h).
 *
 * State lives in two kinds of records the caller stores for us:
 * - a direction of a QP, keyed by (source IP, destination IP, DestQP): the
 *   requests that host sends to that QP (their PSN order, the outstanding
 *   ones) and the responses it sends back to it (their history);
 * - a pair of hosts, keyed by (requester IP, responder IP): the directions
 *   that carried requests between them, searched to pair a response
 *   direction with its request direction when no CM exchange named them.
 */
#include "roce/flow.h"

#include <string.h>

#include "roce/aeth.h"

#define KIND_DIRECTION 1
#define KIND_PAIR 2

struct request {
	uint32_t psn;
	uint32_t span;     /* PSNs it occupies: 1, or a READ's response count */
	bool span_known;   /* false for a READ while the path MTU is unknown */
	bool answered;
	enum roce_op_kind kind;
	uint32_t frame;
	uint64_t ts_ns;
	uint32_t dmalen;   /* READ: bytes asked for */
	uint32_t responses;/* READ: response packets seen */
	void *cookie;
};

struct history {
	uint32_t psn_plus1[ROCE_FLOW_HISTORY]; /* by psn % size; 0 = empty */
	uint32_t frame[ROCE_FLOW_HISTORY];
};

struct direction {
	uint32_t dest_qpn;
	struct direction *peer; /* the opposite direction of the same connection */
	unsigned pmtu;
	bool sport_known;
	uint16_t sport;

	/* Requests this host sends. */
	bool started;
	uint32_t next_psn;  /* next new PSN */
	uint32_t slack;     /* extra PSNs a READ of unknown length in packets may have taken */
	enum { MSG_UNKNOWN, MSG_IN, MSG_OUT } msg;
	struct history sent;
	struct request req[ROCE_FLOW_OUTSTANDING];
	unsigned req_next, req_count;
	unsigned req_done; /* the oldest req_done requests are all answered */
	bool in_pair;
	/* What the responder (the peer) told this requester. */
	bool nak_pending, nak_resent;
	uint32_t nak_psn;
	bool rnr_pending;
	uint32_t rnr_psn, rnr_usec;
	uint64_t rnr_ts;

	/* Responses this host sends. */
	struct history resp;
	bool ack_seen;
	uint32_t last_ack_psn;
	uint8_t last_syndrome;
};

struct pair {
	struct direction *dir[ROCE_FLOW_PAIR_QPS];
	unsigned n;
};

struct key {
	uint8_t kind, ip_version, pad[2];
	uint32_t qpn;
	uint8_t src[16], dst[16];
};

static void make_key(struct key *k, uint8_t kind, uint8_t ipv, const uint8_t *src,
		     const uint8_t *dst, uint32_t qpn)
{
	memset(k, 0, sizeof *k);
	k->kind = kind;
	k->ip_version = ipv;
	k->qpn = qpn;
	size_t alen = ipv == 6 ? 16 : 4;
	memcpy(k->src, src, alen);
	memcpy(k->dst, dst, alen);
}

static struct direction *direction_of(const struct roce_flow_env *env, uint8_t ipv,
				      const uint8_t *src, const uint8_t *dst, uint32_t qpn)
{
	struct key k;
	make_key(&k, KIND_DIRECTION, ipv, src, dst, qpn);
	struct direction *d = env->record(env->ctx, &k, sizeof k, sizeof *d);
	if (d)
		d->dest_qpn = qpn;
	return d;
}

static struct pair *pair_of(const struct roce_flow_env *env, uint8_t ipv, const uint8_t *src,
			    const uint8_t *dst)
{
	struct key k;
	make_key(&k, KIND_PAIR, ipv, src, dst, 0);
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

static void add(struct roce_flow_result *r, enum roce_code c, uint32_t off, uint32_t len,
		uint64_t observed, uint64_t expected)
{
	if (r->n_findings < ROCE_FLOW_MAX_FINDINGS)
		r->findings[r->n_findings++] = (struct roce_finding){ c, off, len, observed, expected };
}

static bool seen(const struct history *h, uint32_t psn, uint32_t *frame)
{
	unsigned i = psn % ROCE_FLOW_HISTORY;
	if (h->psn_plus1[i] != psn + 1)
		return false;
	*frame = h->frame[i];
	return true;
}

static void remember(struct history *h, uint32_t psn, uint32_t frame)
{
	unsigned i = psn % ROCE_FLOW_HISTORY;
	h->psn_plus1[i] = psn + 1;
	h->frame[i] = frame;
}

/* The newest request whose PSN range holds psn, optionally of one kind. */
static struct request *find_request(struct direction *q, uint32_t psn, enum roce_op_kind kind)
{
	for (unsigned n = 0; n < q->req_count; n++) {
		struct request *e = &q->req[(q->req_next + ROCE_FLOW_OUTSTANDING - 1 - n) % ROCE_FLOW_OUTSTANDING];
		int32_t d = roce_psn_diff(psn, e->psn);
		if (d >= 0 && (uint32_t)d < e->span && (kind == ROCE_K_NONE || e->kind == kind))
			return e;
	}
	return NULL;
}

static void answer(const struct roce_flow_env *env, struct request *e, uint32_t frame, uint64_t ts)
{
	if (e->answered)
		return;
	e->answered = true;
	if (env->answered)
		env->answered(env->ctx, e->cookie, e->frame, frame, ts >= e->ts_ns ? ts - e->ts_ns : 0);
}

/* An ACK or NAK for psn also acknowledges everything before it. Requests
 * are answered mostly in order: skip the answered ones at the old end. */
static void answer_through(const struct roce_flow_env *env, struct direction *q, uint32_t psn,
			   bool inclusive, uint32_t frame, uint64_t ts)
{
	bool prefix = true;
	for (unsigned n = q->req_done; n < q->req_count; n++) {
		struct request *e = &q->req[(q->req_next + ROCE_FLOW_OUTSTANDING - q->req_count + n) %
					    ROCE_FLOW_OUTSTANDING];
		int32_t d = roce_psn_diff(e->psn + e->span - 1, psn);
		if (d < 0 || (inclusive && d == 0))
			answer(env, e, frame, ts);
		if (prefix && e->answered)
			q->req_done = n + 1;
		else
			prefix = false;
	}
}

static void record_request(struct direction *q, const struct roce_flow_input *in, uint32_t psn,
			   uint32_t span, bool span_known, uint32_t dmalen)
{
	struct request *e = &q->req[q->req_next];
	q->req_next = (q->req_next + 1) % ROCE_FLOW_OUTSTANDING;
	if (q->req_count < ROCE_FLOW_OUTSTANDING)
		q->req_count++;
	else if (q->req_done)
		q->req_done--; /* the oldest entry is overwritten */
	*e = (struct request){ psn, span, span_known, false, in->pkt->op->kind, in->frame, in->ts_ns,
			       dmalen, 0, in->cookie };
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

static void request(struct direction *q,
		    const struct roce_flow_input *in, struct roce_flow_result *r)
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

	if (!q->started) {
		q->started = true;
		r->cls = ROCE_FLOW_FIRST;
		q->msg = MSG_UNKNOWN;
	} else {
		int32_t d = roce_psn_diff(psn, q->next_psn);
		r->expected_psn = q->next_psn;
		uint32_t earlier = 0;
		if (d == 0 || (d > 0 && (uint32_t)d <= q->slack)) {
			r->cls = ROCE_FLOW_IN_ORDER;
		} else if (d > 0) {
			r->cls = ROCE_FLOW_GAP;
			add(r, ROCE_F_PSN_GAP, bth_off + 9, 3, psn, q->next_psn);
			q->msg = MSG_UNKNOWN;
		} else if (seen(&q->sent, psn, &earlier) ||
			   (q->nak_pending && roce_psn_diff(psn, q->nak_psn) >= 0)) {
			/* Seen before, or resent after a NAK although its first copy
			 * was lost before the capture point. */
			r->cls = ROCE_FLOW_RETRANSMISSION;
			r->retransmit_of = earlier;
			if (q->nak_pending) {
				add(r, ROCE_F_GBN_RETRANSMISSION, bth_off + 9, 3, psn, q->nak_psn);
				if (psn == q->nak_psn)
					q->nak_resent = true;
			} else {
				add(r, ROCE_F_RETRANSMISSION, bth_off + 9, 3, psn, q->next_psn);
			}
			if (q->rnr_pending && psn == q->rnr_psn) {
				uint64_t waited = (in->ts_ns - q->rnr_ts) / 1000;
				if (in->ts_ns >= q->rnr_ts && waited < q->rnr_usec)
					add(r, ROCE_F_RNR_EARLY, bth_off + 9, 3, waited, q->rnr_usec);
				q->rnr_pending = false;
			}
		} else {
			r->cls = ROCE_FLOW_OUT_OF_ORDER;
			add(r, ROCE_F_OUT_OF_ORDER, bth_off + 9, 3, psn, q->next_psn);
		}
		if (d >= 0) {
			if (q->nak_pending && !q->nak_resent &&
			    roce_psn_diff(q->nak_psn, psn) < 0)
				add(r, ROCE_F_GBN_SKIPPED, bth_off + 9, 3, q->nak_psn, psn);
			q->nak_pending = false;
		}
		if (r->cls == ROCE_FLOW_IN_ORDER && q->msg != MSG_UNKNOWN)
			check_message_order(q, p, bth_off, r);
		else if (r->cls == ROCE_FLOW_IN_ORDER || r->cls == ROCE_FLOW_GAP)
			q->msg = (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE)
					 ? MSG_IN
					 : MSG_OUT;
		if (d < 0)
			goto done;
	}
	if (r->cls == ROCE_FLOW_FIRST)
		q->msg = (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE) ? MSG_IN
												    : MSG_UNKNOWN;
	q->next_psn = (psn + (span_known ? span : 1)) & ROCE_PSN_MASK;
	q->slack = span_known ? 0 : span - 1;
done:
	remember(&q->sent, psn, in->frame);
	record_request(q, in, psn, span, span_known, dmalen);
	r->pmtu = q->pmtu;
}

/* Does psn fall among what q has sent: a request's range, or between its
 * oldest remembered request and its next new PSN? */
static bool plausible(struct direction *q, uint32_t psn)
{
	if (find_request(q, psn, ROCE_K_NONE))
		return true;
	if (!q->req_count)
		return false;
	const struct request *oldest =
		&q->req[(q->req_next + ROCE_FLOW_OUTSTANDING - q->req_count) % ROCE_FLOW_OUTSTANDING];
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
	struct pair *pr = pair_of(env, in->ip_version, in->dst, in->src);
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

static void read_response(const struct roce_flow_env *env, struct direction *q, struct request *e,
			  const struct roce_flow_input *in, struct roce_flow_result *r)
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
	if (!e->span_known)
		return;
	uint32_t n = e->span;
	if (i >= n) {
		add(r, ROCE_F_READ_RESP_EXTRA, bth_off + 9, 3, i + 1, n);
		return;
	}
	enum roce_position want = n == 1 ? ROCE_POS_ONLY
				  : i == 0 ? ROCE_POS_FIRST
				  : i == n - 1 ? ROCE_POS_LAST
					       : ROCE_POS_MIDDLE;
	if (p->op->position != want)
		add(r, ROCE_F_READ_RESP_POSITION, bth_off, 1, i + 1, n);
	uint32_t len = i + 1 < n ? q->pmtu : e->dmalen - (n - 1) * q->pmtu;
	if (p->payload_len != len)
		add(r, ROCE_F_READ_RESP_LEN, p->payload_off, p->payload_len, p->payload_len, len);
	(void)env;
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
	if (q) {
		r->src_qpn = q->dest_qpn;
		note_pmtu(q, in);
		rd->pmtu = q->pmtu;
	} else {
		note_pmtu(rd, in);
	}

	uint32_t earlier = 0;
	bool repeat = seen(&rd->resp, psn, &earlier);
	enum roce_op_kind kind = p->op->kind;
	struct request *e = NULL;
	if (q) {
		enum roce_op_kind want = kind == ROCE_K_READ_RESP ? ROCE_K_READ_REQ : ROCE_K_NONE;
		e = find_request(q, psn, want);
		if (kind == ROCE_K_ATOMIC_ACK && e && e->kind != ROCE_K_CMP_SWAP && e->kind != ROCE_K_FETCH_ADD)
			e = NULL;
		/* A READ response past its READ's range, with no request after
		 * it: the responder sent too many packets. */
		if (!e && kind == ROCE_K_READ_RESP && q->req_count) {
			struct request *last = &q->req[(q->req_next + ROCE_FLOW_OUTSTANDING - 1) % ROCE_FLOW_OUTSTANDING];
			if (last->kind == ROCE_K_READ_REQ && roce_psn_diff(psn, last->psn) >= 0 &&
			    roce_psn_diff(psn, last->psn) < 1 << 16)
				e = last;
		}
	}

	if (kind == ROCE_K_READ_RESP) {
		if (repeat) {
			r->retransmit_of = earlier;
			add(r, ROCE_F_DUP_READ_RESP, bth_off + 9, 3, psn, 0);
		}
		if (e)
			read_response(env, q, e, in, r);
	}

	if (aeth) {
		uint8_t syn = (uint8_t)roce_aeth_syndrome(aeth);
		uint32_t aeth_off = p->hdr_off[ROCE_H_AETH];
		switch (roce_syndrome_type(syn)) {
		case ROCE_SYN_ACK:
			if (kind == ROCE_K_ACK && rd->ack_seen && psn == rd->last_ack_psn &&
			    roce_syndrome_type(rd->last_syndrome) == ROCE_SYN_ACK)
				add(r, ROCE_F_DUP_ACK, bth_off + 9, 3, psn, 0);
			if (q) {
				answer_through(env, q, psn, true, in->frame, in->ts_ns);
				if (q->nak_pending && roce_psn_diff(psn, q->nak_psn) >= 0)
					q->nak_pending = false;
			}
			break;
		case ROCE_SYN_RNR_NAK: {
			uint32_t us = roce_rnr_timer_usec(syn & 0x1F);
			add(r, ROCE_F_RNR_EXPLAINED, aeth_off, 1, psn, us);
			if (q) {
				q->rnr_pending = true;
				q->rnr_psn = psn;
				q->rnr_usec = us;
				q->rnr_ts = in->ts_ns;
				answer_through(env, q, psn, false, in->frame, in->ts_ns);
			}
			break;
		}
		case ROCE_SYN_NAK:
			if ((syn & 0x1F) == ROCE_NAK_PSN_SEQ_ERR && q && q->started) {
				uint32_t last = (q->next_psn - 1) & ROCE_PSN_MASK;
				if (roce_psn_diff(psn, q->next_psn) > 0)
					add(r, ROCE_F_SEQ_NAK_AHEAD, bth_off + 9, 3, psn, last);
				else
					add(r, ROCE_F_SEQ_NAK_EXPLAINED, aeth_off, 1, psn, last);
				q->nak_pending = true;
				q->nak_resent = false;
				q->nak_psn = psn;
				answer_through(env, q, psn, false, in->frame, in->ts_ns);
				/* The NAK answers the packet that arrived out of sequence: the
				 * newest request sent before it. */
				if (!e && q->req_count)
					e = &q->req[(q->req_next + ROCE_FLOW_OUTSTANDING - 1) % ROCE_FLOW_OUTSTANDING];
			}
			break;
		case ROCE_SYN_RESERVED:
			break;
		}
		if (kind == ROCE_K_ACK) {
			rd->ack_seen = true;
			rd->last_ack_psn = psn;
			rd->last_syndrome = syn;
		}
	}

	if (e) {
		r->request_frame = e->frame;
		r->response_ns = in->ts_ns >= e->ts_ns ? in->ts_ns - e->ts_ns : 0;
		answer(env, e, in->frame, in->ts_ns);
	}
	/* A response beyond its READ answers nothing: keep its PSN free for
	 * the next request's responses. */
	bool extra = false;
	for (unsigned i = 0; i < r->n_findings; i++)
		extra |= r->findings[i].code == ROCE_F_READ_RESP_EXTRA;
	if (!extra)
		remember(&rd->resp, psn, in->frame);
	r->pmtu = q ? q->pmtu : rd->pmtu;
}

static bool connected(enum roce_transport t)
{
	return t == ROCE_T_RC || t == ROCE_T_UC || t == ROCE_T_XRC || t == ROCE_T_RD;
}

void roce_flow_packet(const struct roce_flow_env *env, const struct roce_flow_input *in,
		      struct roce_flow_result *out)
{
	memset(out, 0, sizeof *out);
	const struct roce_pkt *p = in->pkt;
	const uint8_t *bth = roce_pkt_hdr(p, ROCE_H_BTH);
	if (!bth || !p->op || !p->op->name || !connected(p->op->transport))
		return;
	uint32_t qpn = roce_bth_destqp(bth);
	struct direction *d = direction_of(env, in->ip_version, in->src, in->dst, qpn);
	if (!d)
		return;

	/* The annex: the source port should stay the same for a connected QP. */
	if (d->sport_known && d->sport != in->sport) {
		uint32_t off = roce_pkt_has(p, ROCE_H_UDP) ? p->hdr_off[ROCE_H_UDP] : p->hdr_off[ROCE_H_BTH];
		add(out, ROCE_F_SPORT_CHANGED, off, roce_pkt_has(p, ROCE_H_UDP) ? 2 : 0, in->sport, d->sport);
	}
	d->sport_known = true;
	d->sport = in->sport;

	if (p->op->flags & ROCE_OPF_REQUEST) {
		if (!d->in_pair) {
			struct pair *pr = pair_of(env, in->ip_version, in->src, in->dst);
			if (pr && pr->n < ROCE_FLOW_PAIR_QPS) {
				pr->dir[pr->n++] = d;
				d->in_pair = true;
			}
		}
		request(d, in, out);
		if (d->peer)
			out->src_qpn = d->peer->dest_qpn;
	} else if (p->op->flags & ROCE_OPF_RESPONSE) {
		response(env, d, in, out);
	}
}

void roce_flow_connect(const struct roce_flow_env *env, const struct roce_flow_connection *c)
{
	/* a -> b carries a's requests to b's QP; b -> a the reverse. */
	struct direction *ab = direction_of(env, c->ip_version, c->a, c->b, c->b_qpn);
	struct direction *ba = direction_of(env, c->ip_version, c->b, c->a, c->a_qpn);
	if (!ab || !ba)
		return;
	ab->peer = ba;
	ba->peer = ab;
	if (c->pmtu && is_pmtu(c->pmtu))
		ab->pmtu = ba->pmtu = c->pmtu;
	if (c->a_psn_known && !ab->started) {
		ab->started = true;
		ab->next_psn = c->a_start_psn & ROCE_PSN_MASK;
		ab->msg = MSG_OUT;
	}
	if (c->b_psn_known && !ba->started) {
		ba->started = true;
		ba->next_psn = c->b_start_psn & ROCE_PSN_MASK;
		ba->msg = MSG_OUT;
	}
}
