/*
 * Statistics per QP from the rocev2 tap: the RoCEv2 and RoCE v1 tabs of
 * Conversations and Endpoints (one row per QP pair: the QPs are the
 * "ports"; the RoCE v1 tab from the rocev1 tap), Service
 * Response Time (READ, atomics, SEND/WRITE to ACK, FLUSH, ATOMIC WRITE) and
 * the per-QP summary
 * `-z rocev2,qp`, which libroce writes exactly as `roce-tester lint --qp`.
 */
#include "stats.h"

#include <epan/address_types.h>
#include <epan/conversation.h>
#include <epan/conversation_table.h>
#include <epan/srt_table.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>
#include <stdio.h>
#include <wsutil/inet_addr.h>

/* ---- Conversations and Endpoints ---- */

/* A RoCE v1 row's addresses are its GIDs, a RoCEv2 row's IP addresses.
 *
 * Wireshark builds a row's display filter ("Apply as Filter") as
 * NAME==TEXT, NAME from the callbacks below and TEXT the address as its
 * type writes it, and leaves out the ports of a row that is not TCP, UDP,
 * SCTP or NCP. The packet's own addresses are the built-in's AT_IB ("GID:
 * 2001:db8::1", no value a filter takes); the rows' are of a type of the
 * plugin's, written as a GID's IPv6 text (the value rocev2.grh.sgid
 * takes), whose column filter names rocev2.grh.sgid and dgid; shown,
 * as Wireshark shows an address it names (Conversations, Endpoints, tshark
 * -z conv), "GID: 2001:db8::1", as the packet's own. */
static int gid_type = -1;

static int gid_to_str(const address *addr, char *buf, int buf_len)
{
	if (addr->len == 16)
		ws_inet_ntop6(addr->data, buf, (size_t)buf_len); /* buf_len is gid_str_len() */
	else
		g_strlcpy(buf, "?", (gsize)buf_len);
	return (int)strlen(buf) + 1;
}

static int gid_str_len(const address *addr _U_)
{
	return WS_INET6_ADDRSTRLEN;
}

static const char *gid_col_filter(const address *addr _U_, rocev2_addr_bool src)
{
	return src ? ROCEV2_FILTER ".grh.sgid" : ROCEV2_FILTER ".grh.dgid";
}

static int gid_len(void)
{
	return 16;
}

/* Names live as long as the program (Wireshark keeps no copy): interned,
 * one per GID seen. */
static const char *gid_name(const address *addr)
{
	char s[8 + WS_INET6_ADDRSTRLEN] = "GID: ";
	gid_to_str(addr, s + 5, (int)sizeof s - 5);
	return g_intern_string(s);
}

static int gid_name_len(void)
{
	return 8 + WS_INET6_ADDRSTRLEN;
}

/* The row's address for a packet's address (a RoCE v1 GID: the plugin's type). */
static const address *row_address(const address *a, address *gid)
{
	if (a->type != AT_IB || a->len != 16 || gid_type < 0)
		return a;
	set_address(gid, gid_type, 16, a->data);
	return gid;
}

/* Ports are left out of the filter (see above): the QP pair goes before
 * each address name instead, so that the filter selects this pair's
 * packets alone, whichever QPs other rows between the same addresses
 * have. qp_field (rocev2.analysis.qp, or rocev2.mcast.qp to a group)
 * holds both QPs of a packet. The names live as long as the program
 * (interned: one per pair and name). */
static const char *with_qps(const conv_item_t *conv, const char *name, const char *qp_field)
{
	char s[200];
	snprintf(s, sizeof s, "%s==0x%06x && %s==0x%06x && %s", qp_field, conv->src_port, qp_field, conv->dst_port,
		 name);
	return g_intern_string(s);
}

static const char *gid_filter(conv_filter_type_e filter)
{
	switch (filter) {
	case CONV_FT_SRC_ADDRESS: return ROCEV2_FILTER ".grh.sgid";
	case CONV_FT_DST_ADDRESS: return ROCEV2_FILTER ".grh.dgid";
	case CONV_FT_ANY_ADDRESS: return ROCEV2_FILTER ".grh.gid";
	case CONV_FT_SRC_PORT: return ROCEV2_FILTER ".analysis.src_qpn";
	case CONV_FT_DST_PORT: return ROCEV2_FILTER ".bth.destqp";
	case CONV_FT_ANY_PORT: return ROCEV2_FILTER ".analysis.qp";
	default: return CONV_FILTER_INVALID;
	}
}

/* An IP multicast group (224.0.0.0/4, ff00::/8). */
static bool is_group(const address *a)
{
	const uint8_t *b = a->data;
	return (a->type == AT_IPv4 && a->len == 4 && (b[0] & 0xF0) == 0xE0) ||
	       (a->type == AT_IPv6 && a->len == 16 && b[0] == 0xFF);
}

static const char *conv_filter_name(conv_item_t *conv, conv_filter_type_e filter)
{
	if (conv->src_address.type == gid_type)
		return gid_filter(filter);
	bool v6 = conv->src_address.type == AT_IPv6;
	/* A sender to a multicast group: its QP is the DETH's, the BTH's
	 * DestQP the group's 0xFFFFFF (or another, which breaks
	 * IBA9.2-MCAST-DESTQP; the analysis follows connected QPs only). */
	if (conv->dst_port == ROCE_MCAST_QPN || is_group(&conv->src_address) || is_group(&conv->dst_address)) {
		switch (filter) {
		case CONV_FT_SRC_PORT: return ROCEV2_FILTER ".deth.srcqp";
		case CONV_FT_DST_PORT: return ROCEV2_FILTER ".bth.destqp";
		case CONV_FT_ANY_PORT: return ROCEV2_FILTER ".mcast.qp";
		default: break;
		}
	}
	switch (filter) {
	case CONV_FT_SRC_ADDRESS: return v6 ? "ipv6.src" : "ip.src";
	case CONV_FT_DST_ADDRESS: return v6 ? "ipv6.dst" : "ip.dst";
	case CONV_FT_ANY_ADDRESS: return v6 ? "ipv6.addr" : "ip.addr";
	case CONV_FT_SRC_PORT: return ROCEV2_FILTER ".analysis.src_qpn";
	case CONV_FT_DST_PORT: return ROCEV2_FILTER ".bth.destqp";
	case CONV_FT_ANY_PORT: return ROCEV2_FILTER ".analysis.qp";
	default: return CONV_FILTER_INVALID;
	}
}

static const char *conv_filter_type(conv_item_t *conv, conv_filter_type_e filter)
{
	const char *name = conv_filter_name(conv, filter);
	bool address = filter == CONV_FT_SRC_ADDRESS || filter == CONV_FT_DST_ADDRESS || filter == CONV_FT_ANY_ADDRESS;
	if (!address || !strcmp(name, CONV_FILTER_INVALID))
		return name;
	return with_qps(conv, name, conv_filter_name(conv, CONV_FT_ANY_PORT));
}

static ct_dissector_info_t conv_info = { &conv_filter_type };

static const char *endpoint_filter_type(endpoint_item_t *e, conv_filter_type_e filter)
{
	if (e->myaddress.type == gid_type)
		return gid_filter(filter);
	bool v6 = e->myaddress.type == AT_IPv6;
	switch (filter) {
	case CONV_FT_SRC_ADDRESS: return v6 ? "ipv6.src" : "ip.src";
	case CONV_FT_DST_ADDRESS: return v6 ? "ipv6.dst" : "ip.dst";
	case CONV_FT_ANY_ADDRESS: return v6 ? "ipv6.addr" : "ip.addr";
	case CONV_FT_SRC_PORT:
	case CONV_FT_DST_PORT:
	case CONV_FT_ANY_PORT: return ROCEV2_FILTER ".analysis.qp";
	default: return CONV_FILTER_INVALID;
	}
}

static et_dissector_info_t endpoint_info = { &endpoint_filter_type };

/* The packet's QPs: the sender's (its connection's peer of the destination
 * QP, once the analysis paired them, else ROCE_FLOW_QPN_UNKNOWN) and the
 * destination's; for a datagram to a multicast group, the sender's DETH
 * Source QP and the BTH DestQP (0xFFFFFF), so that each sender to a group
 * is a row (sender -> group). */
static bool qps_of(const struct rocev2_tap_record *r, uint32_t *src_qp, uint32_t *dst_qp)
{
	if (r->mcast) {
		*src_qp = r->mcast_src_qpn;
		*dst_qp = r->destqp;
		return true;
	}
	if (!r->dir)
		return false;
	struct roce_flow_dir_info di;
	roce_flow_dir_info(r->dir, &di);
	*src_qp = di.src_qpn;
	*dst_qp = di.dest_qpn;
	return true;
}

/* Each table takes the packets of its RoCE version: the RoCEv2 one's tap
 * (rocev2) carries both versions, the RoCE v1 one's (rocev1) only v1. */
static tap_packet_status conv_add(void *pct, packet_info *pinfo, const void *data, tap_flags_t flags, bool v1)
{
	conv_hash_t *hash = pct;
	const struct rocev2_tap_record *r = data;
	uint32_t sq, dq;
	hash->flags = flags;
	if (r->rocev1 != v1)
		return TAP_PACKET_DONT_REDRAW;
	/* A row is a QP pair, and Wireshark's port columns hold numbers: a
	 * packet whose sending QP is unknown (an RC packet the analysis never
	 * paired) is in no row rather than under a made-up QP. */
	if (!qps_of(r, &sq, &dq) || sq == ROCE_FLOW_QPN_UNKNOWN)
		return TAP_PACKET_DONT_REDRAW;
	address src, dst;
	add_conversation_table_data(hash, row_address(&pinfo->src, &src), row_address(&pinfo->dst, &dst), sq, dq, 1,
				    (int)pinfo->fd->pkt_len,
				    &pinfo->rel_ts, &pinfo->abs_ts, &conv_info, CONVERSATION_IBQP);
	return TAP_PACKET_REDRAW;
}

static tap_packet_status endpoint_add(void *pit, packet_info *pinfo, const void *data, tap_flags_t flags, bool v1)
{
	conv_hash_t *hash = pit;
	const struct rocev2_tap_record *r = data;
	uint32_t sq, dq;
	hash->flags = flags;
	if (r->rocev1 != v1 || !qps_of(r, &sq, &dq))
		return TAP_PACKET_DONT_REDRAW;
	address src, dst;
	/* An unknown sending QP is no endpoint (see conv_add); the
	 * destination's QP is known. */
	if (sq != ROCE_FLOW_QPN_UNKNOWN)
		add_endpoint_table_data(hash, row_address(&pinfo->src, &src), sq, TRUE, 1, (int)pinfo->fd->pkt_len,
					&endpoint_info, ENDPOINT_IBQP);
	add_endpoint_table_data(hash, row_address(&pinfo->dst, &dst), dq, FALSE, 1, (int)pinfo->fd->pkt_len,
				&endpoint_info, ENDPOINT_IBQP);
	return TAP_PACKET_REDRAW;
}

static tap_packet_status conv_packet_v2(void *pct, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
					tap_flags_t flags)
{
	return conv_add(pct, pinfo, data, flags, false);
}

static tap_packet_status conv_packet_v1(void *pct, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
					tap_flags_t flags)
{
	return conv_add(pct, pinfo, data, flags, true);
}

static tap_packet_status endpoint_packet_v2(void *pit, packet_info *pinfo, epan_dissect_t *edt _U_,
					    const void *data, tap_flags_t flags)
{
	return endpoint_add(pit, pinfo, data, flags, false);
}

static tap_packet_status endpoint_packet_v1(void *pit, packet_info *pinfo, epan_dissect_t *edt _U_,
					    const void *data, tap_flags_t flags)
{
	return endpoint_add(pit, pinfo, data, flags, true);
}

/* ---- Service Response Time ---- */

static const char *const srt_names[ROCEV2_SRT_COUNT] = {
	[ROCEV2_SRT_READ] = "RDMA READ (request to first response)",
	[ROCEV2_SRT_ATOMIC] = "Atomic (request to atomic ACK)",
	[ROCEV2_SRT_SEND_WRITE] = "SEND/WRITE (request to ACK)",
	[ROCEV2_SRT_FLUSH] = "FLUSH (request to its response)",
	[ROCEV2_SRT_ATOMIC_WRITE] = "ATOMIC WRITE (request to its response)",
};

/* A row per operation and RoCE version: RoCEv2's first, then RoCE v1's
 * (row ROCEV2_SRT_COUNT + the operation). */
static void srt_init(struct register_srt *srt _U_, GArray *srt_array)
{
	srt_stat_table *t = init_srt_table("RoCEv2 Service Response Time", NULL, srt_array, 2 * ROCEV2_SRT_COUNT,
					   "Operation", NULL, NULL);
	for (int v1 = 0; v1 < 2; v1++) {
		for (int i = 0; i < ROCEV2_SRT_COUNT; i++) {
			char name[96];
			snprintf(name, sizeof name, "%s %s", v1 ? "RoCE v1" : "RoCEv2", srt_names[i]);
			init_srt_table_row(t, v1 * ROCEV2_SRT_COUNT + i, name);
		}
	}
}

static tap_packet_status srt_packet(void *pss, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
				    tap_flags_t flags _U_)
{
	srt_data_t *d = pss;
	const struct rocev2_tap_record *r = data;
	if (r->srt_proc < 0)
		return TAP_PACKET_DONT_REDRAW;
	srt_stat_table *t = g_array_index(d->srt_array, srt_stat_table *, 0);
	/* The request's time: the response's less the service time. */
	nstime_t dt = { (time_t)(r->srt_ns / 1000000000u), (int)(r->srt_ns % 1000000000u) };
	nstime_t req;
	nstime_delta(&req, &pinfo->abs_ts, &dt);
	add_srt_table_data(t, r->srt_proc + (r->rocev1 ? ROCEV2_SRT_COUNT : 0), &req, pinfo);
	return TAP_PACKET_REDRAW;
}

/* ---- The per-QP summary: -z rocev2,qp[,filter] ---- */

struct qp_summary {
	struct roce_flow_summary *s;
};

static void qp_reset(void *arg)
{
	struct qp_summary *q = arg;
	roce_flow_summary_free(q->s);
	q->s = roce_flow_summary_new();
}

static tap_packet_status qp_packet(void *arg, packet_info *pinfo _U_, epan_dissect_t *edt _U_, const void *data,
				   tap_flags_t flags _U_)
{
	struct qp_summary *q = arg;
	const struct rocev2_tap_record *r = data;
	if (!r->dir || !q->s)
		return TAP_PACKET_DONT_REDRAW;
	struct roce_flow_dir_info di;
	roce_flow_dir_info(r->dir, &di);
	roce_flow_summary_add(q->s, di.id, &r->sample);
	return TAP_PACKET_REDRAW;
}

static void qp_draw(void *arg)
{
	struct qp_summary *q = arg;
	if (!q->s)
		return;
	printf("\n===================================================================\n");
	printf("RoCEv2 per-QP summary\n");
	roce_flow_summary_write(q->s, rocev2_flow_env(), stdout, false);
	printf("===================================================================\n");
}

static void qp_finish(void *arg)
{
	struct qp_summary *q = arg;
	roce_flow_summary_free(q->s);
	g_free(q);
}

static rocev2_tap_init_ret qp_init(const char *opt_arg, void *userdata _U_)
{
	const char *filter = NULL;
	if (!strncmp(opt_arg, "rocev2,qp,", 10))
		filter = opt_arg + 10;
	struct qp_summary *q = g_new0(struct qp_summary, 1);
	q->s = roce_flow_summary_new();
	GString *err = register_tap_listener(ROCEV2_FILTER, q, filter, TL_REQUIRES_NOTHING, qp_reset, qp_packet,
					     qp_draw, qp_finish);
	if (err) {
		fprintf(stderr, "rocev2,qp: %s\n", err->str);
		g_string_free(err, TRUE);
		qp_finish(q);
		ROCEV2_TAP_INIT_RETURN(false);
	}
	ROCEV2_TAP_INIT_RETURN(true);
}

static stat_tap_ui qp_ui = { REGISTER_STAT_GROUP_GENERIC, "RoCEv2 per-QP summary", "rocev2,qp", qp_init, 0, NULL };

void rocev2_register_qp_stats(int proto, int proto_v1)
{
	gid_type = address_type_dissector_register("AT_ROCEV2_GID", "RoCE v1 GID", gid_to_str, gid_str_len, NULL,
						   gid_col_filter, gid_len, gid_name, gid_name_len);
	/* A tab per RoCE version in Conversations and Endpoints (tshark -z
	 * conv,rocev2 and conv,rocev1), named by each protocol's short name
	 * ("RoCEv2", "RoCE v1"): a RoCE v1 row's GIDs read as IPv6 text, the
	 * same as a RoCEv2 row's addresses, so the tab tells the version. */
	register_conversation_table(proto, FALSE, conv_packet_v2, endpoint_packet_v2);
	register_conversation_table(proto_v1, FALSE, conv_packet_v1, endpoint_packet_v1);
	register_srt_table(proto, ROCEV2_FILTER, 1, srt_packet, srt_init, NULL);
	register_stat_tap_ui(&qp_ui, NULL);
}
