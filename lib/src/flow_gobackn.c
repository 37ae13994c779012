/*
 * The flow analysis of resends (flow_internal.h): go-back-N after a NAK
 * PSN Sequence Error, the retry after an RNR NAK, and a request behind
 * the next new PSN (a retransmission or a late packet).
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
 * overtook the others.
 */
#include "flow_internal.h"
#include "roce/aeth.h"

/* Did this packet leave the requester before the resend of the NAKed
 * PSN, by its IPv4 ID? */
static bool sent_before_resend(const struct nak_episode *k, const struct roce_flow_input *in)
{
	uint16_t id;
	return k->ipid_known && flow_ipv4_id(in->pkt, &id) && (int16_t)(uint16_t)(id - k->ipid_before) > 0 &&
	       (int16_t)(uint16_t)(k->ipid_resend - id) > 0;
}

void flow_nak_open(struct direction *q, uint32_t psn, uint32_t frame, uint64_t ts)
{
	q->nak = (struct nak_episode){ .open = true, .psn = psn, .frame = frame, .ts_ns = ts };
}

/* The responder acknowledged up to psn: what the go-back needed is there. */
void flow_nak_acked(struct direction *q, uint32_t psn)
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
	flow_add(r, resends_done && flow_clean(q) && !k->ahead_unsure ? ROCE_F_GBN_SKIPPED : ROCE_F_GBN_SKIPPED_SEEN,
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
		flow_add(r, ROCE_F_GBN_SKIPPED_SEEN, bth_off + 9, 3, psn, k->psn);
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

ROCE_COLD void flow_go_back_n(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
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
			flow_add(r, flow_clean(q) && !k->resend_unsure ? ROCE_F_GBN_NEW_IN_RESEND : ROCE_F_GBN_NEW_IN_RESEND_SEEN,
				 bth_off + 9, 3, psn, k->resend_next);
		}
		k->open = false;
		return;
	}
	r->flags |= ROCE_FLOW_F(GBN_RESEND);
	flow_add(r, ROCE_F_GBN_RETRANSMISSION, bth_off + 9, 3, psn, k->psn);
	if (!k->resent && psn == k->psn) {
		k->resent = true;
		k->resend_unsure = unsure;
		k->high = q->next_psn;
		k->resend_next = (psn + span) & ROCE_PSN_MASK;
		r->nak_frame = k->frame;
		r->nak_to_resend_ns = flow_since(in->ts_ns, k->ts_ns);
		r->new_after_nak = k->new_before;
		k->ipid_known = q->ipid_known && flow_ipv4_id(in->pkt, &k->ipid_resend);
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
		flow_add(r, copy ? ROCE_F_RNR_EARLY_SEEN : ROCE_F_RNR_EARLY, bth_off + 9, 3, waited, q->rnr_usec);
	r->flags |= ROCE_FLOW_F(RNR_RETRY);
	flow_set(r, ROCE_FLOW_V_RNR_NAK_FRAME, q->rnr_frame);
	flow_set(r, ROCE_FLOW_V_RNR_WAIT, flow_since(in->ts_ns, q->rnr_ts));
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
ROCE_COLD bool flow_behind(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
			   uint32_t bth_off, struct roce_flow_result *r)
{
	uint32_t earlier = 0;
	uint64_t earlier_ts = 0;
	bool was_seen = flow_seen(q->w.sent, q->w.hist, psn, &earlier, &earlier_ts);
	bool copy = was_seen && flow_copy_of_last(q->w.sent, q->w.hist, psn, in->pkt);
	const struct request *read = flow_find_request(q, psn, ROCE_K_READ_REQ);
	bool after_nak = q->nak.open && (psn == q->nak.psn || (q->nak.resent && psn == q->nak.resend_next));
	bool in_run = q->retx_seen && psn == ((q->last_retx_psn + 1) & ROCE_PSN_MASK);
	if (!was_seen && !read && !after_nak && !in_run) {
		r->cls = ROCE_FLOW_OUT_OF_ORDER;
		flow_add(r, ROCE_F_OUT_OF_ORDER, bth_off + 9, 3, psn, q->next_psn);
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
		flow_go_back_n(q, in, psn, span, true, copy || !was_seen, bth_off, r);
	} else {
		flow_add(r, ROCE_F_RETRANSMISSION, bth_off + 9, 3, psn, q->next_psn);
		if (!rnr && !copy && (was_seen || read)) {
			/* No NAK asked for it: a timeout, timed from what it repeats
			 * (a byte-identical copy is the network's, not a resend). */
			uint32_t from = was_seen ? earlier : read->frame;
			uint64_t from_ts = was_seen ? earlier_ts : read->ts_ns;
			flow_set(r, ROCE_FLOW_V_RTO_FRAME, from);
			flow_set(r, ROCE_FLOW_V_RTO, flow_since(in->ts_ns, from_ts));
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
