/*
 * The per-QP analysis' vocabulary (flowvals.def) and its statistics: what
 * each packet adds to its direction's, and the QP pairs the directions
 * make (flow_internal.h). The Wireshark plugin's tables and
 * `roce-tester lint`'s summary are both made of these.
 */
#include <string.h>

#include "flow_internal.h"

static const struct roce_flow_item_info flag_info[] = {
#define ROCE_FLOW_FLAG(sym, abbrev, label, desc) { abbrev, label, desc, ROCE_FLOW_KIND_COUNT, false },
#include "roce/flowvals.def"
#undef ROCE_FLOW_FLAG
};

static const struct roce_flow_item_info value_info[] = {
#define ROCE_FLOW_VALUE(sym, abbrev, kind, when, label, desc)                                     \
	{ abbrev, label, desc, ROCE_FLOW_KIND_##kind, ROCE_FLOW_##when },
#define ROCE_FLOW_NOW false
#define ROCE_FLOW_LATE true
#include "roce/flowvals.def"
#undef ROCE_FLOW_VALUE
};

const struct roce_flow_item_info *roce_flow_flag_info(enum roce_flow_flag f)
{
	return (unsigned)f < ROCE_FLOW_FLAG_COUNT ? &flag_info[f] : NULL;
}

const struct roce_flow_item_info *roce_flow_value_info(enum roce_flow_value v)
{
	return (unsigned)v < ROCE_FLOW_V_COUNT ? &value_info[v] : NULL;
}

bool roce_flow_value(const struct roce_flow_result *r, enum roce_flow_value v, uint64_t *out)
{
	if ((unsigned)v >= ROCE_FLOW_V_COUNT || !(r->has & (UINT64_C(1) << v)))
		return false;
	*out = r->value[v];
	return true;
}

void roce_flow_dir_info(const struct roce_flow_dir *dir, struct roce_flow_dir_info *out)
{
	const struct direction *d = (const struct direction *)dir;
	out->id = d->id;
	out->ip_version = d->ip_version;
	out->rocev1 = d->rocev1;
	out->src = d->src;
	out->dst = d->dst;
	out->dest_qpn = d->dest_qpn;
	out->src_qpn = d->peer ? d->peer->dest_qpn : ROCE_FLOW_QPN_UNKNOWN;
	out->peer_id = d->peer ? d->peer->id : 0;
	const struct direction *x = !d->n_xrc_srqs && d->peer ? d->peer : d;
	out->n_xrc_srqs = x->n_xrc_srqs;
	out->xrc_srqns = x->xrc_srqn;
	out->xrc_srqs_more = x->xrc_srqs_more;
}

void roce_flow_sample_of(struct roce_flow_sample *s, const struct roce_flow_input *in,
			 const struct roce_flow_result *r)
{
	memset(s, 0, sizeof *s);
	s->flags = r->flags;
	s->ts_ns = in->ts_ns;
	s->wire_len = in->wire_len;
	s->cnp = in->pkt->op && in->pkt->op->kind == ROCE_K_CNP;
	s->has_rtt = roce_flow_value(r, ROCE_FLOW_V_ACK_RTT, &s->ack_rtt_ns);
}

void roce_flow_stats_add(struct roce_flow_stats *s, const struct roce_flow_sample *x)
{
	if (!s->packets || x->ts_ns < s->first_ns)
		s->first_ns = x->ts_ns;
	if (!s->packets || x->ts_ns > s->last_ns)
		s->last_ns = x->ts_ns;
	s->packets++;
	s->bytes += x->wire_len;
	uint32_t f = x->flags;
	s->retransmissions += !!(f & ROCE_FLOW_F(RETRANSMISSION));
	s->spurious += !!(f & ROCE_FLOW_F(SPURIOUS));
	s->gaps += !!(f & ROCE_FLOW_F(PSN_GAP));
	s->out_of_order += !!(f & ROCE_FLOW_F(OUT_OF_ORDER));
	s->duplicates += !!(f & ROCE_FLOW_F(DUPLICATE));
	s->naks += !!(f & ROCE_FLOW_F(NAK));
	s->seq_naks += !!(f & ROCE_FLOW_F(SEQ_NAK));
	s->rnr_naks += !!(f & ROCE_FLOW_F(RNR_NAK));
	s->rnr_retries += !!(f & ROCE_FLOW_F(RNR_RETRY));
	s->ce_marked += !!(f & ROCE_FLOW_F(CE));
	s->cnps += x->cnp;
	if (x->has_rtt) {
		if (!s->rtt_count || x->ack_rtt_ns < s->rtt_min_ns)
			s->rtt_min_ns = x->ack_rtt_ns;
		if (!s->rtt_count || x->ack_rtt_ns > s->rtt_max_ns)
			s->rtt_max_ns = x->ack_rtt_ns;
		s->rtt_count++;
		s->rtt_sum_ns += x->ack_rtt_ns;
	}
}

void roce_flow_stats_merge(struct roce_flow_stats *into, const struct roce_flow_stats *from)
{
	if (!from->packets)
		return;
	if (!into->packets || from->first_ns < into->first_ns)
		into->first_ns = from->first_ns;
	if (!into->packets || from->last_ns > into->last_ns)
		into->last_ns = from->last_ns;
	if (from->rtt_count) {
		if (!into->rtt_count || from->rtt_min_ns < into->rtt_min_ns)
			into->rtt_min_ns = from->rtt_min_ns;
		if (!into->rtt_count || from->rtt_max_ns > into->rtt_max_ns)
			into->rtt_max_ns = from->rtt_max_ns;
	}
	into->packets += from->packets;
	into->bytes += from->bytes;
	into->retransmissions += from->retransmissions;
	into->spurious += from->spurious;
	into->gaps += from->gaps;
	into->out_of_order += from->out_of_order;
	into->duplicates += from->duplicates;
	into->naks += from->naks;
	into->seq_naks += from->seq_naks;
	into->rnr_naks += from->rnr_naks;
	into->rnr_retries += from->rnr_retries;
	into->cnps += from->cnps;
	into->ce_marked += from->ce_marked;
	into->rtt_count += from->rtt_count;
	into->rtt_sum_ns += from->rtt_sum_ns;
}

void roce_flow_qp_pairs(const struct roce_flow_env *env, void (*report)(void *arg, const struct roce_flow_qp_pair *p),
			void *arg)
{
	struct registry *reg = flow_registry(env);
	for (const struct direction *d = reg ? reg->first : NULL; d; d = d->next) {
		const struct direction *e = d->peer;
		if (e && e->id < d->id)
			continue; /* reported with its peer, seen first */
		struct roce_flow_qp_pair p = {
			d->ip_version, d->src, d->dst, e ? e->dest_qpn : ROCE_FLOW_QPN_UNKNOWN, d->dest_qpn,
			d->id, e ? e->id : 0, 0, NULL, false, 0, d->rocev1,
		};
		const struct direction *x = d->n_xrc_srqs || !e ? d : e;
		p.n_xrc_srqs = x->n_xrc_srqs;
		p.xrc_srqns = x->xrc_srqn;
		p.xrc_srqs_more = x->xrc_srqs_more;
		p.xrc_target_qpn = x->dest_qpn;
		report(arg, &p);
	}
}
