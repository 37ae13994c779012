/* The load step (see load_step.h). */
#include "load_step.h"

#include <string.h>

#include "rawio.h"
#include "roce/aeth.h"
#include "roce/packet.h"
#include "agent_protocol.h"
#include "text.h"

/* The load's work request IDs: apart from the case's own. */
#define LOAD_WR_BASE 0x4c4f414400000000ull

/* Takes the load's completions; the others (the DUT's SENDs received) stay
 * for the case's own expectations only if they come first. */
static void reap(struct peer *p, uint32_t qpn, struct load_result *r)
{
	struct peer_wc wc;
	while (peer_poll(p, qpn, &wc)) {
		if (wc.wr_id < LOAD_WR_BASE || wc.wr_id >= LOAD_WR_BASE + LOAD_MAX_COUNT)
			continue;
		if (wc.status == AP_WC_SUCCESS) {
			r->completed++;
		} else {
			if (!r->errors++)
				r->first_error = (int)wc.status;
		}
	}
}

int load_run(struct peer *p, uint32_t qpn, const struct load_spec *s, const struct load_wire *w, struct load_result *r,
	     char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->first_error = -1;
	if (s->count > LOAD_MAX_COUNT || s->duration_ns > LOAD_MAX_DURATION_NS || s->rate > LOAD_MAX_RATE) {
		text_printf(err, errlen, "a load is bounded: count at most %u, duration at most %llu s, rate at most %u/s",
			    LOAD_MAX_COUNT, LOAD_MAX_DURATION_NS / 1000000000ull, LOAD_MAX_RATE);
		return -1;
	}
	const struct peer_stats *st = peer_stats(p);
	uint64_t tx0 = st->tx, re0 = st->retransmissions;
	uint64_t count = s->count ? s->count : LOAD_MAX_COUNT;
	uint64_t start = rawio_now();
	r->started_ns = start;
	uint64_t stop_posting = s->duration_ns ? start + s->duration_ns : UINT64_MAX;
	if (stop_posting > s->deadline_ns)
		stop_posting = s->deadline_ns;
	struct peer_wr wr = { 0 };
	wr.op = s->op;
	wr.data = s->data;
	wr.len = s->len;
	wr.remote = s->remote;
	wr.rkey = s->rkey;
	while (r->posted < count) {
		uint64_t now = rawio_now();
		if (now >= stop_posting || w->interrupted(w->ctx))
			break;
		reap(p, qpn, r);
		uint64_t due = s->rate ? start + (uint64_t)((double)r->posted * 1e9 / (double)s->rate) : now;
		if (due > now) {
			w->pump(w->ctx, due < stop_posting ? due : stop_posting);
			continue;
		}
		/* A full send queue: the wire moves until answers free it. */
		if (r->posted - r->completed - r->errors >= PEER_SQ_DEPTH) {
			uint64_t until = now + 1000000;
			w->pump(w->ctx, until < stop_posting ? until : stop_posting);
			continue;
		}
		/* A retry count run out takes the tester's QP to the error
		 * state (its outstanding requests complete in error): the
		 * load ends there, as a requester's would. */
		if (peer_qp_in_error(p, qpn)) {
			r->qp_error = true;
			break;
		}
		wr.wr_id = LOAD_WR_BASE + r->posted;
		if (peer_post(p, qpn, &wr, now, err, errlen) != 0)
			return -1;
		r->posted++;
		r->posted_ns = now;
	}
	/* The outstanding ones: until they complete or the drain ends. */
	uint64_t end = rawio_now() + s->drain_ns;
	if (end > s->deadline_ns)
		end = s->deadline_ns;
	for (;;) {
		reap(p, qpn, r);
		uint64_t now = rawio_now();
		if (r->completed + r->errors >= r->posted || now >= end || w->interrupted(w->ctx))
			break;
		w->pump(w->ctx, end);
	}
	r->ended_ns = rawio_now();
	r->cut_short = ((r->posted < count && !s->duration_ns) && !r->qp_error) || w->interrupted(w->ctx) ||
		       r->ended_ns >= s->deadline_ns;
	r->lost = r->posted - r->completed - r->errors;
	r->tx_packets = st->tx - tx0;
	r->retransmissions = st->retransmissions - re0;
	uint64_t span = r->posted_ns - r->started_ns;
	r->achieved = r->posted > 1 && span ? (uint64_t)((double)(r->posted - 1) * 1e9 / (double)span) : 0;
	return 0;
}

JsonObject *load_record(const struct load_spec *s, const struct load_result *r, const struct load_answers *a,
			GString *detail)
{
	static const char *const names[] = { [PEER_OP_SEND] = "send", [PEER_OP_WRITE] = "write", [PEER_OP_READ] = "read" };
	const char *op = (unsigned)s->op < sizeof names / sizeof names[0] && names[s->op] ? names[s->op] : "?";
	JsonObject *o = json_object_new();
	json_object_set_string_member(o, "operation", op);
	json_object_set_int_member(o, "len", s->len);
	json_object_set_int_member(o, "count", (gint64)s->count);
	json_object_set_int_member(o, "duration_ns", (gint64)s->duration_ns);
	json_object_set_int_member(o, "rate", (gint64)s->rate);
	json_object_set_int_member(o, "posted", (gint64)r->posted);
	json_object_set_int_member(o, "completed", (gint64)r->completed);
	json_object_set_int_member(o, "errors", (gint64)r->errors);
	json_object_set_int_member(o, "lost", (gint64)r->lost);
	json_object_set_int_member(o, "achieved", (gint64)r->achieved);
	json_object_set_int_member(o, "posting_ns", (gint64)(r->posted_ns - r->started_ns));
	json_object_set_int_member(o, "elapsed_ns", (gint64)(r->ended_ns - r->started_ns));
	json_object_set_int_member(o, "request_packets", (gint64)r->tx_packets);
	json_object_set_int_member(o, "retransmissions", (gint64)r->retransmissions);
	json_object_set_int_member(o, "naks", (gint64)a->naks);
	json_object_set_int_member(o, "rnr_naks", (gint64)a->rnr_naks);
	json_object_set_int_member(o, "cnps", (gint64)a->cnps);
	if (r->first_error >= 0)
		json_object_set_string_member(o, "first_error", ap_wc_status_name((enum ap_wc_status)r->first_error));
	json_object_set_boolean_member(o, "cut_short", r->cut_short);
	json_object_set_boolean_member(o, "qp_error", r->qp_error);
	g_string_printf(detail, "%llu %s%s of %u bytes posted in %.3f ms (%llu/s achieved",
			(unsigned long long)r->posted, op, r->posted == 1 ? "" : "s", s->len,
			(double)(r->posted_ns - r->started_ns) / 1e6, (unsigned long long)r->achieved);
	if (s->rate)
		g_string_append_printf(detail, " of %llu/s asked", (unsigned long long)s->rate);
	g_string_append_printf(detail, "); %llu completed, %llu in error%s%s, %llu lost (not completed within %.3f ms); "
			       "%llu packets sent by the tester, %llu retransmitted; the DUT sent %llu NAK PSN Sequence "
			       "Error, %llu RNR NAKs, %llu CNPs",
			       (unsigned long long)r->completed, (unsigned long long)r->errors,
			       r->first_error >= 0 ? ", the first " : "",
			       r->first_error >= 0 ? ap_wc_status_name((enum ap_wc_status)r->first_error) : "",
			       (unsigned long long)r->lost, (double)(r->ended_ns - r->started_ns) / 1e6,
			       (unsigned long long)r->tx_packets, (unsigned long long)r->retransmissions,
			       (unsigned long long)a->naks, (unsigned long long)a->rnr_naks, (unsigned long long)a->cnps);
	if (r->qp_error)
		g_string_append(detail, "; the tester's QP went to the error state (a retry count ran out), ending the load");
	if (r->cut_short)
		g_string_append(detail, "; cut short by the case's time budget or an interruption");
	return o;
}

void load_count_answers(const struct case_pkt *pkts, size_t n, uint32_t tester_qpn, uint64_t from_ns, uint64_t to_ns,
			struct load_answers *a)
{
	memset(a, 0, sizeof *a);
	for (size_t i = 0; i < n; i++) {
		const struct case_pkt *c = &pkts[i];
		if (c->tx || c->qpn != tester_qpn || c->ts_ns < from_ns || c->ts_ns > to_ns)
			continue;
		struct roce_pkt pk;
		roce_parse_frame(&pk, c->data, c->len, c->len, ROCE_PARSE_ROCEV1);
		if (!pk.op)
			continue;
		if (pk.op->kind == ROCE_K_CNP) {
			a->cnps++;
		} else if (pk.op->kind == ROCE_K_ACK && roce_pkt_has(&pk, ROCE_H_AETH)) {
			const uint8_t *aeth = roce_pkt_hdr(&pk, ROCE_H_AETH);
			if (roce_aeth_type(aeth) == ROCE_SYN_RNR_NAK)
				a->rnr_naks++;
			else if (roce_aeth_type(aeth) == ROCE_SYN_NAK && roce_aeth_value(aeth) == ROCE_NAK_PSN_SEQ_ERR)
				a->naks++;
		}
	}
}
