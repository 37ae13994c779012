/*
 * What the per-QP analysis measures besides its judgements
 * (flow_internal.h): the work in flight per QP, and congestion: CE marks, the CNPs that answer them and the
 * sender's rate around each CNP.
 */
#include "flow_internal.h"

/* ---- Work in flight ---- */

uint64_t flow_request_bytes(const struct roce_pkt *p, uint32_t dmalen)
{
	switch (p->op->kind) {
	case ROCE_K_READ_REQ:
		return dmalen;
	case ROCE_K_CMP_SWAP:
	case ROCE_K_FETCH_ADD:
		return 8; /* the original value the atomic ACK returns */
	default:
		return p->payload_len;
	}
}

void flow_acknowledge(struct direction *q, uint32_t upto)
{
	if (!q->started)
		return;
	uint32_t end = (q->next_psn + q->slack) & ROCE_PSN_MASK;
	if (roce_psn_diff(upto, end) > 0)
		upto = end; /* a ghost ACK acknowledges no more than was sent */
	if (roce_psn_diff(upto, q->una) > 0)
		q->una = upto;
}

void flow_in_flight(const struct direction *q, struct roce_flow_result *r)
{
	if (!q->started)
		return;
	int32_t n = roce_psn_diff(q->next_psn, q->una);
	flow_set(r, ROCE_FLOW_V_PACKETS_IN_FLIGHT, n > 0 ? (uint64_t)n : 0);
	flow_set(r, ROCE_FLOW_V_BYTES_IN_FLIGHT, q->bytes_in_flight);
}

/* ---- Congestion ----
 *
 * Each direction counts what it sends in slots of an eighth of the rate
 * window, so that a CNP can tell the sender's rate in the window before
 * it; the window after it is summed as its packets come, up to the window's
 * length or the next CNP about the same flow. */

bool flow_ce_marked(const struct roce_pkt *p)
{
	const uint8_t *ip;
	if ((ip = roce_pkt_hdr(p, ROCE_H_IPV4)))
		return roce_ipv4_ecn(ip) == 3;
	if ((ip = roce_pkt_hdr(p, ROCE_H_IPV6)))
		return roce_ipv6_ecn(ip) == 3;
	return false;
}

static uint64_t window_ns(const struct roce_flow_env *env)
{
	return env->rate_window_ns ? env->rate_window_ns : ROCE_FLOW_RATE_WINDOW_NS;
}

static uint64_t slot_ns(const struct roce_flow_env *env)
{
	uint64_t s = window_ns(env) / RATE_SLOTS;
	return s ? s : 1;
}

static uint64_t bits_per_second(uint64_t bytes, uint64_t ns)
{
	if (!ns)
		return 0;
	/* bytes * 8e9 / ns without overflowing for any realistic count */
	return bytes < UINT64_MAX / 8000000000u ? bytes * 8000000000u / ns
						 : (uint64_t)((long double)bytes * 8e9L / (long double)ns);
}

static void close_after(const struct roce_flow_env *env, struct rate *rs, uint64_t duration_ns)
{
	rs->after_open = false;
	if (env->late)
		env->late(env->ctx, rs->after_cookie, ROCE_FLOW_V_RATE_AFTER,
			  bits_per_second(rs->after_bytes, duration_ns ? duration_ns : 1));
}

void flow_rate_packet(const struct roce_flow_env *env, struct direction *d, const struct roce_flow_input *in, bool ce)
{
	struct rate *rs = &d->rate;
	uint64_t ts = in->ts_ns;
	if (rs->after_open && ts >= rs->after_start_ns + window_ns(env))
		close_after(env, rs, window_ns(env));
	if (rs->after_open)
		rs->after_bytes += in->wire_len;
	uint64_t index = ts / slot_ns(env) + 1;
	unsigned i = (unsigned)(index % RATE_SLOTS);
	if (rs->slot_index[i] != index) {
		rs->slot_index[i] = index;
		rs->slot_bytes[i] = 0;
	}
	rs->slot_bytes[i] += in->wire_len;
	if (!rs->started) {
		rs->started = true;
		rs->first_ns = ts;
	}
	rs->last_ns = ts;
	if (ce) {
		rs->ce_pending++;
		rs->ce_frame = in->frame;
	}
}

/* The rate in the window ending at ts: its slots, the current one up to ts. */
static bool rate_before(const struct roce_flow_env *env, const struct rate *rs, uint64_t ts, uint64_t *bps)
{
	if (!rs->started)
		return false;
	uint64_t width = slot_ns(env), now = ts / width + 1, bytes = 0;
	for (unsigned i = 0; i < RATE_SLOTS; i++)
		if (rs->slot_index[i] && rs->slot_index[i] + RATE_SLOTS > now && rs->slot_index[i] <= now)
			bytes += rs->slot_bytes[i];
	uint64_t start = (now - 1) >= RATE_SLOTS - 1 ? (now - RATE_SLOTS) * width : 0;
	if (start < rs->first_ns)
		start = rs->first_ns;
	if (ts <= start)
		return false;
	*bps = bits_per_second(bytes, ts - start);
	return true;
}

void flow_cnp(const struct roce_flow_env *env, struct direction *flow, const struct roce_flow_input *in,
	      struct roce_flow_result *r)
{
	struct rate *rs = flow ? &flow->rate : NULL;
	uint32_t ce = rs ? rs->ce_pending : 0;
	flow_set(r, ROCE_FLOW_V_CNP_CE_PACKETS, ce);
	if (ce) {
		flow_set(r, ROCE_FLOW_V_CNP_CE_FRAME, rs->ce_frame);
	} else {
		const struct roce_pkt *p = in->pkt;
		r->flags |= ROCE_FLOW_F(CNP_NO_CE);
		if (r->n_findings < ROCE_FLOW_MAX_FINDINGS)
			r->findings[r->n_findings++] = (struct roce_finding){
				ROCE_F_CNP_NO_CE, p->hdr_off[ROCE_H_BTH] + 5, 3,
				roce_bth_destqp(roce_pkt_hdr(p, ROCE_H_BTH)), 0 };
	}
	if (!rs)
		return;
	if (rs->cnp_seen) {
		flow_set(r, ROCE_FLOW_V_CNP_PREV_FRAME, rs->cnp_frame);
		flow_set(r, ROCE_FLOW_V_CNP_INTERVAL, in->ts_ns >= rs->cnp_ns ? in->ts_ns - rs->cnp_ns : 0);
	}
	if (rs->after_open)
		close_after(env, rs, in->ts_ns - rs->after_start_ns);
	uint64_t bps;
	if (rate_before(env, rs, in->ts_ns, &bps))
		flow_set(r, ROCE_FLOW_V_RATE_BEFORE, bps);
	rs->after_open = true;
	rs->after_cookie = in->cookie;
	rs->after_start_ns = in->ts_ns;
	rs->after_bytes = 0;
	rs->cnp_seen = true;
	rs->cnp_frame = in->frame;
	rs->cnp_ns = in->ts_ns;
	rs->ce_pending = 0;
}

void roce_flow_finish(const struct roce_flow_env *env, uint64_t end_ns)
{
	struct registry *reg = flow_registry(env);
	for (struct direction *d = reg ? reg->first : NULL; d; d = d->next) {
		struct rate *rs = &d->rate;
		if (!rs->after_open)
			continue;
		uint64_t w = window_ns(env), left = end_ns > rs->after_start_ns ? end_ns - rs->after_start_ns : 0;
		close_after(env, rs, left < w ? left : w);
	}
}
