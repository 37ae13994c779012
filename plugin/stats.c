/*
 * Statistics: a tap queued by the dissector for every packet, and a
 * stats_tree that counts packets per RoCE version, per opcode and per QP
 * and findings per rule. Reached from Statistics > RoCEv2 and `tshark -z rocev2,tree`.
 */
#include "stats.h"

#include "mcast.h"

#include <epan/stats_tree.h>
#include <epan/tap.h>

static const char st_versions[] = "Packets by RoCE version";
static const char st_opcodes[] = "Packets by opcode";
static const char st_qps[] = "Packets by destination QP";
static const char st_rules[] = "Findings by rule (note, warning, error)";
static int st_node_versions = -1, st_node_opcodes = -1, st_node_qps = -1, st_node_rules = -1;

int rocev2_register_tap(void)
{
	return register_tap(ROCEV2_FILTER);
}

int rocev1_register_tap(void)
{
	return register_tap(ROCEV1_FILTER);
}

static void add_rule(struct rocev2_tap_record *r, const struct roce_finding *f)
{
	const struct roce_code_info *ci = roce_code_info(f->code);
	const struct roce_rule_info *ri = roce_rule(ci->rule);
	if (ri && ci->severity >= ROCE_SEV_NOTE && r->n_rules < ROCEV2_TAP_MAX_RULES)
		r->rules[r->n_rules++] = ri->id;
}

const struct rocev2_tap_record *rocev2_tap_record(packet_info *pinfo, const struct roce_pkt *t,
						  const struct roce_finding *f, size_t n,
						  const struct rocev2_packet *rp)
{
	struct rocev2_tap_record *r = wmem_new0(pinfo->pool, struct rocev2_tap_record);
	r->rocev1 = t->rocev1;
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	if (bth) {
		r->has_bth = true;
		r->opcode = t->opcode;
		r->destqp = roce_bth_destqp(bth);
	}
	for (size_t i = 0; i < n; i++)
		add_rule(r, &f[i]);
	r->mcast = rocev2_mcast_sender(t, &r->mcast_src_qpn);
	r->srt_proc = -1;
	if (!rp->analysed)
		return r;
	const struct roce_finding *findings = rocev2_flow_findings(rp);
	for (unsigned i = 0; i < rp->n_findings; i++)
		add_rule(r, &findings[i]);
	r->dir = rp->dir;
	if (!r->dir)
		return r;
	struct roce_flow_sample *x = &r->sample;
	x->flags = rp->flags;
	x->ts_ns = (uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs;
	x->wire_len = pinfo->fd->pkt_len;
	x->cnp = t->op && t->op->kind == ROCE_K_CNP;
	x->has_rtt = rocev2_flow_value(rp, ROCE_FLOW_V_ACK_RTT, &x->ack_rtt_ns);
	/* One service response time per response: from the newest request it
	 * is the first to answer. */
	if (rocev2_flow_value(rp, ROCE_FLOW_V_READ_RESPONSE_TIME, &r->srt_ns))
		r->srt_proc = ROCEV2_SRT_READ;
	else if (rocev2_flow_value(rp, ROCE_FLOW_V_ATOMIC_RESPONSE_TIME, &r->srt_ns))
		r->srt_proc = ROCEV2_SRT_ATOMIC;
	else if (rocev2_flow_value(rp, ROCE_FLOW_V_FLUSH_RESPONSE_TIME, &r->srt_ns))
		r->srt_proc = ROCEV2_SRT_FLUSH;
	else if (rocev2_flow_value(rp, ROCE_FLOW_V_ATOMIC_WRITE_RESPONSE_TIME, &r->srt_ns))
		r->srt_proc = ROCEV2_SRT_ATOMIC_WRITE;
	else if (t->op && t->op->kind == ROCE_K_ACK && !(rp->flags & ROCE_FLOW_F(RNR_NAK)) &&
		 !(rp->flags & ROCE_FLOW_F(NAK)) && rocev2_flow_value(rp, ROCE_FLOW_V_ACK_RTT, &r->srt_ns))
		r->srt_proc = ROCEV2_SRT_SEND_WRITE;
	return r;
}

static void st_init(stats_tree *st)
{
	st_node_versions = stats_tree_create_node(st, st_versions, 0, STAT_DT_INT, TRUE);
	st_node_opcodes = stats_tree_create_node(st, st_opcodes, 0, STAT_DT_INT, TRUE);
	st_node_qps = stats_tree_create_node(st, st_qps, 0, STAT_DT_INT, TRUE);
	st_node_rules = stats_tree_create_node(st, st_rules, 0, STAT_DT_INT, TRUE);
}

static tap_packet_status st_packet(stats_tree *st, packet_info *pinfo _U_, epan_dissect_t *edt _U_,
				   const void *data, tap_flags_t flags _U_)
{
	const struct rocev2_tap_record *r = data;
	char name[48];
	tick_stat_node(st, st_versions, 0, TRUE);
	tick_stat_node(st, r->rocev1 ? "version 1 (RoCE v1)" : "version 2 (RoCEv2)", st_node_versions, FALSE);
	if (r->has_bth) {
		const char *op = roce_opcode(r->opcode)->name;
		if (!op) {
			snprintf(name, sizeof name, "opcode 0x%02x", r->opcode);
			op = name;
		}
		tick_stat_node(st, st_opcodes, 0, TRUE);
		tick_stat_node(st, op, st_node_opcodes, FALSE);
		snprintf(name, sizeof name, "QP 0x%06x", r->destqp);
		tick_stat_node(st, st_qps, 0, TRUE);
		tick_stat_node(st, name, st_node_qps, FALSE);
	}
	for (unsigned i = 0; i < r->n_rules; i++) {
		tick_stat_node(st, st_rules, 0, TRUE);
		tick_stat_node(st, r->rules[i], st_node_rules, FALSE);
	}
	return TAP_PACKET_REDRAW;
}

void rocev2_register_stats(void)
{
	stats_tree_register_plugin(ROCEV2_FILTER, ROCEV2_FILTER, ROCEV2_PROTO_NAME, 0, st_packet, st_init,
				   NULL);
}
