/*
 * RoCEv2 in Statistics > Flow Graph (flow type "RoCEv2 Flows") and in
 * `tshark -z flow,rocev2,standard|network`: every packet with a BTH is an
 * arrow from its sender to its receiver, labelled with its PSN and
 * operation (an ACK by its AETH's code), and commented with what the QP's
 * flow analysis says of it (retransmission, go-back-N, RNR retry, PSN gap,
 * READ response i/n, the request it answers) and the rules its warnings
 * and errors break, then libroce's summary line, as the tester's report
 * draws its ladders. The dissector hands each packet over through
 * a tap of its own, queued only while a Flow Graph listens.
 */
#include "flowgraph.h"

#include <epan/tap.h>

#include "roce/aeth.h"

/* ---- Wireshark's flow graph types, as each release lays them out ----
 *
 * epan/sequence_analysis.h is in no release's development package, so the
 * two structures the plugin touches are declared here, field for field
 * as libwireshark 4.0 to 4.6 lays them out (compat.h holds what changed),
 * with the two functions it calls. The flow graph tests check them in
 * every release: a wrong layout shows as wrong labels or a crash. */
struct rocev2_seq_item {
	uint32_t frame_number;
	address src_addr;
	uint16_t port_src;
	address dst_addr;
	uint16_t port_dst;
	char *frame_label; /* above the arrow; g_free'd by Wireshark */
	char *time_str;
	char *comment;     /* beside the arrow; g_free'd by Wireshark */
	uint16_t conv_num;
	unsigned fg_color, bg_color;
	rocev2_seq_bool has_color_filter;
	rocev2_seq_bool display;
	unsigned src_node, dst_node;
	uint16_t line_style;
	int info_type;
	void *info_ptr;
#if ROCEV2_SEQ_ITEM_HAS_FREE_CB
	void (*free_info_ptr)(void *);
#endif
};

/* Only its start: Wireshark allocates it. */
struct rocev2_seq_info {
	const char *name;
	rocev2_seq_bool any_addr;
	int nconv;
	GQueue *items; /* of struct rocev2_seq_item, in frame order */
};

void register_seq_analysis(const char *name, const char *ui_name, const int proto_id, const char *tap_listener,
			   guint tap_flags, tap_packet_cb tap_func);
struct rocev2_seq_item *sequence_analysis_create_sai_with_addresses(packet_info *pinfo,
								     struct rocev2_seq_info *sainfo);

/* ---- The arrows ---- */

#define FLOW_TAP ROCEV2_FILTER "_flow"
static int flow_tap = -1;

/* What the dissector hands the flow graph for one packet (packet scope). */
struct flow_arrow {
	const char *label;
	const char *comment;
	uint16_t conv; /* the QP pair's number, from 1; 0 when not tracked */
};

/* A duration in the unit that reads best: 8 us, 1.28 ms, 2.1 s. */
static void put_time(GString *s, uint64_t ns)
{
	if (ns < 1000000u)
		g_string_append_printf(s, "%.3g us", (double)ns / 1e3);
	else if (ns < 1000000000u)
		g_string_append_printf(s, "%.3g ms", (double)ns / 1e6);
	else
		g_string_append_printf(s, "%.3g s", (double)ns / 1e9);
}

/* The arrow's label: the PSN first, since the text ladder cuts a label at
 * its arrow's width (20 characters between two addresses), then the
 * operation without its transport (the comment has libroce's whole
 * summary line), an acknowledgement by its AETH's code: "PSN 1007 SEND
 * Only", "PSN 1014 NAK PSN Sequence Error", "CNP". */
static char *arrow_label(packet_info *pinfo, const struct roce_pkt *t)
{
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	const uint8_t *aeth = roce_pkt_hdr(t, ROCE_H_AETH);
	const char *name = t->op ? t->op->name : NULL;
	if (t->op && t->op->kind == ROCE_K_CNP && !aeth)
		return wmem_strdup(pinfo->pool, name ? name : "CNP");
	char what[80];
	if (!name) {
		snprintf(what, sizeof what, "opcode 0x%02x", t->opcode);
	} else if (aeth && t->op->kind == ROCE_K_ACK) {
		roce_aeth_describe((uint8_t)roce_aeth_syndrome(aeth), what, sizeof what);
		char *aside = strstr(what, " ("); /* "ACK (no credit information)" */
		if (aside)
			*aside = '\0';
	} else {
		const char *space = strchr(name, ' ');
		/* "RC SEND Only", "XRC ...": every name but the CNP's and the
		 * vendor range's starts with its transport */
		bool named_transport = t->op->transport != ROCE_T_CNP && t->op->transport != ROCE_T_RESERVED &&
				       t->op->transport != ROCE_T_VENDOR;
		snprintf(what, sizeof what, "%s", named_transport && space ? space + 1 : name);
	}
	return wmem_strdup_printf(pinfo->pool, "PSN %u %s", (unsigned)roce_bth_psn(bth), what);
}

static void sep(GString *s)
{
	if (s->len)
		g_string_append(s, ", ");
}

/* The analysis' notes on the packet, most telling first. */
static void notes(GString *s, const struct rocev2_packet *rp)
{
	uint64_t x, y;
	if (rp->icrc_status == ROCE_ICRC_BAD)
		g_string_append(s, "bad ICRC");
	if (!rp->analysed)
		return;
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++) {
		if (!(rp->flags & (1u << i)))
			continue;
		if (i == ROCE_FLOW_FLAG_NAK && (rp->flags & ROCE_FLOW_F(SEQ_NAK)))
			continue; /* the plain NAK flag says less than the sequence error's */
		sep(s);
		g_string_append(s, roce_flow_flag_info((enum roce_flow_flag)i)->label);
		if (i == ROCE_FLOW_FLAG_RETRANSMISSION && rocev2_flow_value(rp, ROCE_FLOW_V_RETRANSMIT_OF, &x))
			g_string_append_printf(s, " of #%u", (unsigned)x);
	}
	if (rp->cls == ROCE_FLOW_OUT_OF_ORDER && !(rp->flags & ROCE_FLOW_F(OUT_OF_ORDER))) {
		sep(s);
		g_string_append(s, "Out of order");
	}
	if (rocev2_flow_value(rp, ROCE_FLOW_V_READ_INDEX, &x) && rocev2_flow_value(rp, ROCE_FLOW_V_READ_COUNT, &y)) {
		sep(s);
		g_string_append_printf(s, "READ response %u/%u", (unsigned)x, (unsigned)y);
	}
	if (rocev2_flow_value(rp, ROCE_FLOW_V_REQUEST_FRAME, &x)) {
		sep(s);
		g_string_append_printf(s, "answers #%u", (unsigned)x);
		if (rocev2_flow_value(rp, ROCE_FLOW_V_RESPONSE_TIME, &y)) {
			g_string_append(s, " in ");
			put_time(s, y);
		}
	}
	if (rocev2_flow_value(rp, ROCE_FLOW_V_NAK_FRAME, &x)) {
		sep(s);
		g_string_append_printf(s, "resend for the NAK #%u", (unsigned)x);
	}
	if (rocev2_flow_value(rp, ROCE_FLOW_V_RNR_WAIT, &x)) {
		sep(s);
		g_string_append(s, "after ");
		put_time(s, x);
		if (rocev2_flow_value(rp, ROCE_FLOW_V_RNR_TIMER, &y)) {
			g_string_append(s, " of the RNR NAK's ");
			put_time(s, y);
		}
	}
	if (rocev2_flow_value(rp, ROCE_FLOW_V_CNP_CE_PACKETS, &x) && x) {
		sep(s);
		g_string_append_printf(s, "answers %u CE-marked packet%s", (unsigned)x, x == 1 ? "" : "s");
	}
}

/* The warnings and errors, one mark a rule ("error IBA9.7-GBN"), as the
 * tester's report marks its arrows. */
static void rule_marks(GString *s, const struct roce_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		const struct roce_rule_info *ri = roce_rule(ci->rule);
		if (!ri || ci->severity < ROCE_SEV_WARN)
			continue;
		char mark[64];
		snprintf(mark, sizeof mark, "%s %s", roce_severity_name(ci->severity), ri->id);
		if (strstr(s->str, mark))
			continue;
		sep(s);
		g_string_append(s, mark);
	}
}

/* The QP pair's number: the lower of its two directions' ids. */
static uint16_t conversation(const struct rocev2_packet *rp)
{
	if (!rp->analysed || !rp->dir)
		return 0;
	struct roce_flow_dir_info di;
	roce_flow_dir_info(rp->dir, &di);
	uint32_t id = di.peer_id && di.peer_id < di.id ? di.peer_id : di.id;
	return (uint16_t)(id > UINT16_MAX ? UINT16_MAX : id);
}

void rocev2_flow_graph_queue(packet_info *pinfo, const struct roce_pkt *t, const struct rocev2_packet *rp,
			     const char *summary, const struct roce_finding *f, size_t n)
{
	if (!have_tap_listener(flow_tap) || !roce_pkt_has(t, ROCE_H_BTH))
		return;
	struct flow_arrow *a = wmem_new0(pinfo->pool, struct flow_arrow);
	GString *s = g_string_new(NULL);
	notes(s, rp);
	rule_marks(s, f, n);
	if (rp->analysed)
		rule_marks(s, rocev2_flow_findings(rp), rp->n_findings);
	a->label = arrow_label(pinfo, t);
	/* The notes first: the Flow Graph dialog cuts a long comment short. */
	a->comment = s->len ? wmem_strdup_printf(pinfo->pool, "%s; %s", s->str, summary) : summary;
	g_string_free(s, TRUE);
	a->conv = conversation(rp);
	tap_queue_packet(flow_tap, pinfo, a);
}

static tap_packet_status flow_packet(void *tapdata, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
				     tap_flags_t flags _U_)
{
	struct rocev2_seq_info *info = tapdata;
	const struct flow_arrow *a = data;
	struct rocev2_seq_item *item = sequence_analysis_create_sai_with_addresses(pinfo, info);
	if (!item)
		return TAP_PACKET_DONT_REDRAW;
	item->frame_number = pinfo->num;
	item->port_src = (uint16_t)pinfo->srcport;
	item->port_dst = (uint16_t)pinfo->destport;
	item->frame_label = g_strdup(a->label);
	item->comment = g_strdup(a->comment);
	item->conv_num = a->conv;
	item->line_style = 1;
	item->display = true;
	g_queue_push_tail(info->items, item);
	return TAP_PACKET_REDRAW;
}

void rocev2_register_flow_graph(void)
{
	flow_tap = register_tap(FLOW_TAP);
	register_seq_analysis(ROCEV2_FILTER, "RoCEv2 Flows", proto_rocev2, FLOW_TAP, TL_REQUIRES_NOTHING, flow_packet);
}
