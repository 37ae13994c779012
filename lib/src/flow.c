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
 *
 * Here: a packet's way in (roce_flow_packet), its direction, the requests
 * (their PSN order, what each asks), the CM exchange that pairs two
 * directions, the end of the capture. The responses that answer the
 * requests are flow_response.c's, go-back-N and the other resends
 * flow_gobackn.c's, the records' keys flow_records.c's, the findings and
 * values a result carries flow_result.c's.
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

/* ---- Requests ---- */

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
				       ? flow_find_request(q, psn, ROCE_K_READ_REQ)
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
			flow_add(r, ROCE_F_OPSEQ_UNFINISHED, bth, 1, p->opcode, 0);
		q->msg = MSG_OUT;
		return;
	}
	enum roce_position pos = p->op->position;
	bool starts = pos == ROCE_POS_FIRST || pos == ROCE_POS_ONLY;
	if (starts && q->msg == MSG_IN)
		flow_add(r, ROCE_F_OPSEQ_UNFINISHED, bth, 1, p->opcode, 0);
	else if (!starts && q->msg == MSG_OUT)
		flow_add(r, ROCE_F_OPSEQ_CONTINUE, bth, 1, p->opcode, 0);
	q->msg = (pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE) ? MSG_IN : MSG_OUT;
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
	flow_note_pmtu(q, in);

	/* How many PSNs this request takes. */
	uint32_t span = 1, dmalen = 0;
	bool span_known = true;
	const uint8_t *reth = roce_pkt_hdr(p, ROCE_H_RETH);
	if (p->op->kind == ROCE_K_READ_REQ && reth) {
		dmalen = roce_reth_dmalen(reth);
		if (q->pmtu) {
			span = flow_read_packets(dmalen, q->pmtu);
		} else if (dmalen <= 256) {
			span = 1; /* one packet whatever the path MTU */
		} else {
			span = flow_read_packets(dmalen, 256); /* at most */
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
			fresh = flow_behind(q, in, psn, span, bth_off, r);
			goto done;
		}
		if (d == 0 || (uint32_t)d <= q->slack) {
			r->cls = ROCE_FLOW_IN_ORDER;
			q->new_seen = true;
			if (q->msg != MSG_UNKNOWN)
				check_message_order(q, p, bth_off, r);
		} else {
			r->cls = ROCE_FLOW_GAP;
			flow_add(r, ROCE_F_PSN_GAP, bth_off + 9, 3, psn, q->next_psn);
			q->disorder++;
		}
		if (r->cls == ROCE_FLOW_GAP || q->msg == MSG_UNKNOWN)
			q->msg = (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE)
					 ? MSG_IN
					 : MSG_OUT;
		if (q->nak.open)
			flow_go_back_n(q, in, psn, span, false, false, bth_off, r);
	}
	q->next_psn = (psn + (span_known ? span : 1)) & ROCE_PSN_MASK;
	q->slack = span_known ? 0 : span - 1;
	if (r->cls == ROCE_FLOW_IN_ORDER)
		q->new_since_retx = true;
done:
	q->ipid_known = flow_ipv4_id(p, &q->last_ipid);
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

/* The flow a CNP is about: what the reaction point (the CNP's receiver)
 * sends to the notification point's QP. The CNP travels in the opposite
 * direction of that flow's connection; without a pairing, the only flow
 * between the two hosts, or the only one with CE marks since its last CNP. */
static struct direction *cnp_flow(const struct roce_flow_env *env, struct direction *c,
				  const struct roce_flow_input *in)
{
	if (c->peer)
		return c->peer;
	struct pair *pr = flow_pair_of(env, flow_in_net(in), in->dst, in->src);
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
		flow_add(out, ROCE_F_SPORT_CHANGED, off, roce_pkt_has(p, ROCE_H_UDP) ? 2 : 0, in->sport, d->sport);
	}
	d->sport_known = true;
	d->sport = in->sport;

	if (p->op->flags & ROCE_OPF_REQUEST) {
		if (!d->in_pair) {
			struct pair *pr = flow_pair_of(env, flow_in_net(in), in->src, in->dst);
			if (pr && pr->n < ROCE_FLOW_PAIR_QPS) {
				pr->dir[pr->n++] = d;
				d->in_pair = true;
			}
		}
		request(env, d, in, out);
		if (d->peer)
			out->src_qpn = d->peer->dest_qpn;
	} else if (p->op->flags & ROCE_OPF_RESPONSE) {
		flow_response(env, d, in, out);
	}
	flow_publish(out);
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
	if (c->pmtu && flow_is_pmtu(c->pmtu))
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
			k->after && d->last_ts > k->ts_ns ? d->last_ts - k->ts_ns : 0, flow_clean(d), d->rocev1,
		};
		report(arg, &o);
	}
}
