/*
 * The RoCEv2 dissector: registration, preferences and the per-packet walk.
 *
 * Everything about the wire goes through libroce: the packet is parsed
 * from its IP header when the frame holds one (so that the IP and UDP
 * rules and the ICRC can be checked), the headers are shown from libroce's
 * descriptors, and every libroce finding becomes an expert info.
 *
 * RoCE v1 frames (Ethertype 0x8915, ethertype.c) take the same walk from
 * their GRH: libroce parses them from the Ethernet header with
 * ROCE_PARSE_ROCEV1, as `roce-tester lint` does.
 */
#include "rocev2.h"

#include <epan/dissectors/packet-infiniband.h>
#include <epan/tap.h>

#include "analysis.h"
#include "dc.h"
#include "flowgraph.h"
#include "mad.h"
#include "mcast.h"
#include "reassembly.h"
#include "stats.h"

int proto_rocev2 = -1;

static dissector_handle_t rocev2_handle;
static dissector_handle_t rocev1_handle;
static heur_dissector_list_t ib_payload_heur;
static int rocev2_tap = -1;
static int rocev1_tap = -1; /* RoCE v1 frames alone */

static int hf_version = -1;
static int hf_gid = -1;
static int hf_payload = -1;
static int hf_pad = -1;
static int hf_icrc = -1;
static int hf_icrc_status = -1;
static int hf_icrc_computed = -1;
static int hf_icrc_diagnosis = -1;
static int hf_icrc_unverified = -1;
static int ett_rocev2 = -1;
static int ett_icrc = -1;
/* The fields above, to ask whether a tree keeps them (rocev2_item_kept). */
static header_field_info *hfi_payload, *hfi_pad;
static header_field_info *hfi_icrc_items[5];

/* MTU choices for the path-MTU preference; 0 learns it per QP. */
static const enum_val_t pmtu_vals[] = {
	{ "learn", "Learn per QP (CM REQ/REP, First/Middle packets)", 0 },
	{ "256", "256", 256 },
	{ "512", "512", 512 },
	{ "1024", "1024", 1024 },
	{ "2048", "2048", 2048 },
	{ "4096", "4096", 4096 },
	{ NULL, NULL, 0 },
};

struct rocev2_prefs rocev2_prefs = {
	.take_port = 1,
	.take_rocev1 = 1,
	.check_icrc = 1,
	.pmtu = 0,
	.ulp_heuristics = 1,
	.sender = 0,
	.analysis = 1,
	.ipv6_zero_udp_csum_ok = 1,
};

/* ---- Locating the IP header behind the UDP payload ---- */

/* The frame's IP header for the UDP datagram whose payload is tvb, as an
 * offset into the data source *ds, or -1 when it is not there (a reassembled
 * datagram, IPv6 extension headers, a non-IP encapsulation). */
static int locate_ip(tvbuff_t *tvb, packet_info *pinfo, tvbuff_t **ds)
{
	*ds = tvb_get_ds_tvb(tvb);
	int udp = tvb_raw_offset(tvb) - ROCE_UDP_LEN;
	int have = (int)tvb_captured_length(*ds);
	if (udp < ROCE_IPV4_LEN || udp + ROCE_UDP_LEN > have)
		return -1;
	if (pinfo->src.type == AT_IPv6 && pinfo->src.len == 16) {
		/* Right behind UDP, or behind extension headers (which break
		 * CA17-16 and which libroce then reports). */
		for (int ext = 0; ext <= 64; ext += 8) {
			int ip = udp - ROCE_IPV6_LEN - ext;
			if (ip < 0)
				break;
			const uint8_t *h = tvb_get_ptr(*ds, ip, ROCE_IPV6_LEN);
			if (roce_ipv6_version(h) == 6 && memcmp(roce_ipv6_src(h), pinfo->src.data, 16) == 0 &&
			    memcmp(roce_ipv6_dst(h), pinfo->dst.data, 16) == 0 &&
			    (ext > 0 || roce_ipv6_nexthdr(h) == ROCE_IP_PROTO_UDP))
				return ip;
		}
		return -1;
	}
	if (pinfo->src.type == AT_IPv4 && pinfo->src.len == 4) {
		for (int ihl = 5; ihl <= 15; ihl++) {
			int ip = udp - 4 * ihl;
			if (ip < 0)
				break;
			const uint8_t *h = tvb_get_ptr(*ds, ip, ROCE_IPV4_LEN);
			if (roce_ipv4_version(h) == 4 && roce_ipv4_ihl(h) == (unsigned)ihl &&
			    roce_ipv4_proto(h) == ROCE_IP_PROTO_UDP && memcmp(roce_ipv4_src(h), pinfo->src.data, 4) == 0 &&
			    memcmp(roce_ipv4_dst(h), pinfo->dst.data, 4) == 0)
				return ip;
		}
	}
	return -1;
}

/* ---- Parse, check ---- */

struct rocev2_parse {
	struct roce_pkt p;      /* from the IP header, or from the BTH */
	struct roce_pkt tp;     /* transport only, when p stopped before the BTH */
	const struct roce_pkt *t; /* whichever holds the BTH */
	tvbuff_t *ds;
	int p_base;  /* data-source offset of p.buf[0] */
	int t_shift; /* tvb offset = t offset - t_shift */
};

/* The frame from its Ethernet header, when the IP header sits behind
 * Ethernet and VLAN tags in the same buffer: libroce then also checks the
 * link layer (the VLAN depth of CA17-2). */
static int proto_eth = -1;

static bool parse_frame(tvbuff_t *ds, packet_info *pinfo, int ip, struct rocev2_parse *r)
{
	if (ip < ROCE_ETH_LEN || proto_eth < 0 ||
	    !wmem_list_find(pinfo->layers, GINT_TO_POINTER(proto_eth)))
		return false;
	unsigned cap = tvb_captured_length(ds), rep = tvb_reported_length(ds);
	roce_parse_frame(&r->p, tvb_get_ptr(ds, 0, cap), cap, rep, ROCE_PARSE_ANY_PORT | rocev2_dc_parse_flags());
	enum roce_hdr iph = r->p.ip_version == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4;
	if (r->p.err == ROCE_E_VLAN_DEPTH || (roce_pkt_has(&r->p, iph) && (int)r->p.hdr_off[iph] == ip)) {
		r->p_base = 0;
		return true;
	}
	return false;
}

/* A RoCE v1 frame: tvb starts at the GRH. libroce walks it from the
 * frame's Ethernet header (tags included), as lint does, which checks the
 * GRH and the ICRC over the masked GRH. Without an Ethernet header in the
 * same buffer, the transport behind the GRH is decoded on its own (its ICRC
 * then cannot be checked). */
static void parse_v1(tvbuff_t *tvb, packet_info *pinfo, struct rocev2_parse *r)
{
	r->ds = tvb_get_ds_tvb(tvb);
	int grh = tvb_raw_offset(tvb);
	unsigned flags = ROCE_PARSE_ANY_PORT | ROCE_PARSE_ROCEV1 | rocev2_dc_parse_flags();
	if (grh >= ROCE_ETH_LEN && proto_eth >= 0 && wmem_list_find(pinfo->layers, GINT_TO_POINTER(proto_eth))) {
		unsigned cap = tvb_captured_length(r->ds), rep = tvb_reported_length(r->ds);
		roce_parse_frame(&r->p, tvb_get_ptr(r->ds, 0, cap), cap, rep, flags);
		if ((roce_pkt_has(&r->p, ROCE_H_GRH) && (int)r->p.hdr_off[ROCE_H_GRH] == grh) ||
		    (r->p.err == ROCE_E_TRUNC_GRH && (int)r->p.err_off == grh)) {
			r->p_base = 0;
			r->t = &r->p;
			r->t_shift = grh;
			return;
		}
	}
	int have = (int)tvb_captured_length(tvb);
	int bth = have < ROCE_GRH_LEN ? have : ROCE_GRH_LEN;
	unsigned cap = (unsigned)(have - bth);
	roce_parse_bth(&r->p, tvb_get_ptr(tvb, bth, (gint)cap), cap, (unsigned)tvb_reported_length_remaining(tvb, bth),
		       flags);
	r->p_base = grh + bth;
	r->t = &r->p;
	r->t_shift = -bth;
}

static void parse(tvbuff_t *tvb, packet_info *pinfo, struct rocev2_parse *r)
{
	int ip = locate_ip(tvb, pinfo, &r->ds);
	/* The port rule is a finding (Decode As); the RD range is RD or DC (dc.c). */
	unsigned flags = ROCE_PARSE_ANY_PORT | rocev2_dc_parse_flags();
	if (ip >= 0) {
		if (!parse_frame(r->ds, pinfo, ip, r)) {
			unsigned cap = tvb_captured_length(r->ds) - (unsigned)ip;
			unsigned rep = tvb_reported_length(r->ds) - (unsigned)ip;
			roce_parse_ip(&r->p, tvb_get_ptr(r->ds, ip, cap), cap, rep, flags);
			r->p_base = ip;
		}
		if (roce_pkt_has(&r->p, ROCE_H_BTH)) {
			r->t = &r->p;
			r->t_shift = (int)r->p.hdr_off[ROCE_H_BTH];
			return;
		}
	}
	/* No IP header, or the IP/UDP walk stopped before the BTH: decode the
	 * transport on its own (its ICRC then cannot be checked). */
	unsigned cap = tvb_captured_length(tvb);
	roce_parse_bth(&r->tp, tvb_get_ptr(tvb, 0, cap), cap, tvb_reported_length(tvb), flags);
	if (ip < 0) {
		r->p = r->tp;
		r->p_base = tvb_raw_offset(tvb);
		r->t = &r->p;
	} else {
		r->t = &r->tp;
	}
	r->t_shift = 0;
}

/* ---- Tree ---- */

/* The ICRC wherever the packet holds one, even when a header after the BTH
 * could not be parsed: checked (good or bad, with the diagnosis of a bad
 * one), or its bytes shown as not verified (not captured, no IP header,
 * or the preference off). Tree only, and only when the tree keeps one of
 * its fields: a bad ICRC's expert info comes from its finding. */
static void add_icrc(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb,
		     const struct rocev2_parse *r, struct rocev2_packet *rp)
{
	const struct roce_pkt *t = r->t;
	int off = (int)t->icrc_off - r->t_shift;
	bool wanted = false;
	for (size_t i = 0; i < array_length(hfi_icrc_items); i++)
		wanted |= rocev2_item_kept(tree, hfi_icrc_items[i]);
	if (!wanted)
		return;
	if (rp->icrc_status == ROCE_ICRC_UNVERIFIED) {
		if (off >= 0 && (t->err == ROCE_OK || t->icrc_found)) {
			int have = (int)tvb_captured_length(tvb);
			int len = have > off ? have - off : 0;
			proto_item *ti = proto_tree_add_item(tree, hf_icrc_unverified, tvb,
							     off < have ? off : have, len > 4 ? 4 : len,
							     ENC_NA);
			proto_item_append_text(ti, t->icrc_found ? " (not verified)" : " (not captured)");
		}
		proto_item *st = proto_tree_add_uint(tree, hf_icrc_status, tvb, 0, 0,
						     PROTO_CHECKSUM_E_UNVERIFIED);
		proto_item_set_generated(st);
		return;
	}
	uint32_t computed = __builtin_bswap32(rp->icrc_computed);
	/* The bad-ICRC expert comes from the C_ICRC finding, with its diagnosis. */
	proto_item *ti = proto_tree_add_checksum(tree, tvb, off, hf_icrc, hf_icrc_status, NULL, pinfo,
						 computed, ENC_BIG_ENDIAN, PROTO_CHECKSUM_VERIFY);
	proto_tree *sub = proto_item_add_subtree(ti, ett_icrc);
	proto_item *c = proto_tree_add_uint(sub, hf_icrc_computed, tvb, off, 4, computed);
	proto_item_set_generated(c);
	if (rp->icrc_status == ROCE_ICRC_BAD) {
		char text[400];
		struct roce_icrc_diagnosis diagnosis = roce_icrc_diagnose(t);
		roce_icrc_diagnosis_format(&diagnosis, text, sizeof text);
		proto_item *d = proto_tree_add_string(sub, hf_icrc_diagnosis, tvb, off, 4, text);
		proto_item_set_generated(d);
	}
}

/* The packets whose payload the built-in InfiniBand dissector offers its
 * ULP heuristics, and so the ones we offer: every SEND, RDMA WRITE and RDMA
 * READ response packet, First to Last (NVMe-oF and RPC-over-RDMA follow
 * their data transfers through a whole message), and the RDMA READ request,
 * which has no payload but whose RETH NVMe-oF matches to a command. RC, UC,
 * UD and XRC alike; not RD, which the built-in decodes as a vendor DCT
 * extension (no ULP runs over RD). */
static bool offered_to_ulps(const struct roce_opcode_info *op)
{
	if (op->transport == ROCE_T_RD)
		return false;
	switch (op->kind) {
	case ROCE_K_SEND:
	case ROCE_K_WRITE:
	case ROCE_K_READ_RESP:
	case ROCE_K_READ_REQ:
		return true;
	default:
		return false;
	}
}

/* The source QP a ULP sees as the source "port", as under the built-in:
 * the DETH's for datagrams, else the connection's peer (from our analysis,
 * else from the CM exchange's conversations), else "unknown" (all ones). */
static uint32_t ulp_src_qpn(packet_info *pinfo, const struct roce_pkt *t, const struct rocev2_packet *rp)
{
	const uint8_t *deth = roce_pkt_hdr(t, ROCE_H_DETH);
	if (deth)
		return (uint32_t)roce_deth_srcqp(deth);
	uint64_t src_qpn;
	if (rocev2_flow_value(rp, ROCE_FLOW_V_SRC_QPN, &src_qpn))
		return (uint32_t)src_qpn;
	uint32_t peer = rocev2_ib_peer_qpn(pinfo, (uint32_t)roce_bth_destqp(roce_pkt_hdr(t, ROCE_H_BTH)));
	return peer ? peer : 0xFFFFFFFFu;
}

/* The payload goes to the ULP heuristics of the built-in InfiniBand
 * dissector, with the record they expect; a heuristic that claims the
 * payload and then fails on it leaves the payload shown as data. */
static bool try_ulp(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, proto_tree *rt,
		    const struct roce_pkt *t, struct rocev2_packet *rp, const struct rocev2_msg_view *msg)
{
	if (!msg)
		rocev2_ulp_track_send(pinfo, t, rp);
	if (!ib_payload_heur || !rocev2_prefs.ulp_heuristics || !t->complete || !offered_to_ulps(t->op) ||
	    (!msg && !rocev2_ulp_send_offered(pinfo, t, rp)))
		return false;
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	uint32_t dst_qpn = (uint32_t)roce_bth_destqp(bth);
	/* A data transfer (RDMA WRITE, READ request or response) or the rest
	 * of a SEND message means something only to a ULP that knows the
	 * connection: one that has claimed a message start (a command, an RPC
	 * call) on it before. Offering the others would only cost time: the
	 * heuristics are much of what a packet costs. */
	bool starts = t->op->kind == ROCE_K_SEND &&
		      (msg || t->op->position == ROCE_POS_FIRST || t->op->position == ROCE_POS_ONLY);
	if (!starts) {
		if (rp->ulp_data == ROCEV2_ULP_UNDECIDED)
			rp->ulp_data = rocev2_ulp_on_qp(pinfo, dst_qpn) ? ROCEV2_ULP_OFFER : ROCEV2_ULP_SKIP;
		if (rp->ulp_data != ROCEV2_ULP_OFFER)
			return false;
	}
	struct infinibandinfo info;
	memset(&info, 0, sizeof info);
	const uint8_t *reth = roce_pkt_hdr(t, ROCE_H_RETH);
	info.payload_tree = rt;
	info.opCode = t->opcode;
	info.pad_count = t->pad_len;
	info.packet_seq_num = roce_bth_psn(bth);
	if (reth) {
		info.reth_remote_key = roce_reth_rkey(reth);
		info.reth_remote_address = roce_reth_va(reth);
		info.reth_dma_length = roce_reth_dmalen(reth);
	}
	if (msg) { /* a whole message, as its one-packet form would carry it */
		info.opCode = msg->only_opcode;
		info.pad_count = 0;
		info.packet_seq_num = msg->first_psn;
		info.reth_remote_key = msg->rkey;
		info.reth_remote_address = msg->va;
		info.reth_dma_length = msg->dmalen;
	}
	uint32_t src_qpn = ulp_src_qpn(pinfo, t, rp);
	bool claimed = rocev2_call_ulps(ib_payload_heur, payload, pinfo, tree, src_qpn, dst_qpn, &info);
	if (claimed && !PINFO_FD_VISITED(pinfo)) {
		rocev2_ulp_claimed(pinfo, src_qpn, dst_qpn);
		if (!msg)
			rocev2_ulp_send_claimed(pinfo, t, rp);
	}
	return claimed;
}

/* Whether a ULP reads this QP's SEND messages: one has claimed a packet to
 * or from it before (first pass; reassembly.c keeps the answer). */
static bool ulp_reads_qp(packet_info *pinfo, const struct roce_pkt *t)
{
	return ib_payload_heur && rocev2_prefs.ulp_heuristics && !PINFO_FD_VISITED(pinfo) &&
	       t->op->kind == ROCE_K_SEND &&
	       rocev2_ulp_on_qp(pinfo, (uint32_t)roce_bth_destqp(roce_pkt_hdr(t, ROCE_H_BTH)));
}

static void add_payload(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, proto_tree *rt,
			const struct roce_pkt *t, int shift, struct rocev2_packet *rp)
{
	int have = (int)tvb_captured_length(tvb);
	int off = (int)t->payload_off - shift;
	int len = (int)t->payload_len;
	if (len > 0 && off < have) {
		int cap = len < have - off ? len : have - off;
		tvbuff_t *payload = tvb_new_subset_length_caplen(tvb, off, cap, len);
		struct rocev2_msg_view whole;
		struct rocev2_packet_msg *pm = rocev2_packet_msg(rp);
		if (rocev2_is_mad(t))
			rocev2_dissect_mad(payload, pinfo, rt, t, rp);
		else if (!rocev2_msg_part(t) || !pm)
			try_ulp(payload, pinfo, tree, rt, t, rp, NULL);
		else if (rocev2_reassemble(payload, pinfo, rt, t, ulp_reads_qp(pinfo, t), &pm->part, &whole))
			try_ulp(whole.data, pinfo, tree, rt, t, rp, &whole); /* a whole SEND message */
		else if (!whole.held) /* a data transfer, or a SEND on a QP no ULP claimed yet */
			try_ulp(payload, pinfo, tree, rt, t, rp, NULL);
		/* The payload's bytes, whether a ULP took them or not. */
		if (rocev2_item_kept(rt, hfi_payload))
			proto_tree_add_item(rt, hf_payload, tvb, off, cap, ENC_NA);
	} else if (len == 0 && t->op->kind == ROCE_K_READ_REQ && off <= have) {
		try_ulp(tvb_new_subset_length_caplen(tvb, off, 0, 0), pinfo, tree, rt, t, rp, NULL);
	}
	off += len;
	if (t->pad_len && off < have && rocev2_item_kept(rt, hfi_pad)) {
		int cap = t->pad_len < have - off ? t->pad_len : have - off;
		proto_tree_add_item(rt, hf_pad, tvb, off, cap, ENC_NA);
	}
}

/* A finding, its packet and the data-source offset its offsets start from. */
struct located {
	struct roce_finding f;
	const struct roce_pkt *p;
	int base;
};

static size_t collect(struct located *out, size_t n, size_t max, const struct roce_pkt *q,
		      const struct roce_check_opts *o, int base)
{
	struct roce_finding f[40];
	size_t m = roce_check(q, o, f, array_length(f));
	for (size_t i = 0; i < m && i < array_length(f) && n < max; i++)
		out[n++] = (struct located){ f[i], q, base };
	return n;
}

/* The part of its record a packet needs: a MAD's connection, or the
 * place of a SEND or RDMA WRITE packet in a message of several packets
 * (whatever the transport and the reassembly preference). */
static enum rocev2_packet_part packet_part(const struct roce_pkt *t, bool decoded)
{
	if (!decoded)
		return ROCEV2_PART_NONE;
	if (rocev2_is_mad(t))
		return ROCEV2_PART_CM;
	enum roce_position pos = t->op->position;
	if ((t->op->kind == ROCE_K_SEND || t->op->kind == ROCE_K_WRITE) &&
	    (pos == ROCE_POS_FIRST || pos == ROCE_POS_MIDDLE || pos == ROCE_POS_LAST))
		return ROCEV2_PART_MSG;
	return ROCEV2_PART_NONE;
}

/* The walk from the parse on: the same for both versions (v1: the frame
 * came through the Ethertype, tvb starts at the GRH). */
static int dissect_parsed(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, struct rocev2_parse *r, bool v1)
{
	const struct roce_pkt *t = r->t;
	/* Another protocol's port below 4791 declines what is not RoCEv2 (port.c). */
	if (!rocev2_port_accepts(pinfo, t, t == &r->p))
		return 0;
	bool decoded = roce_pkt_has(t, ROCE_H_BTH) && t->op && t->op->name;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, v1 ? ROCEV1_PROTO_NAME : ROCEV2_PROTO_NAME);

	/* First pass: ICRC and flow analysis, cached for later passes. */
	struct rocev2_packet *rp = rocev2_packet_get(pinfo);
	if (!rp) {
		enum roce_icrc_status icrc = ROCE_ICRC_UNVERIFIED;
		uint32_t computed = 0;
		if (rocev2_prefs.check_icrc && t == &r->p)
			icrc = roce_icrc_check(t, NULL, &computed);
		/* A datagram whose IP or UDP layer broke is not judged in its
		 * QP's flow: where its transport starts is a guess (lint, which
		 * walks the frame with libroce alone, cannot make it). */
		struct rocev2_packet **place = rocev2_packet_place(pinfo);
		struct roce_flow_result flow;
		bool analysed = rocev2_prefs.analysis && decoded && t == &r->p && rocev2_analyse(pinfo, t, place, &flow);
		rp = rocev2_packet_new(pinfo, place, packet_part(t, decoded), t, analysed ? &flow : NULL);
		rp->icrc_status = (uint8_t)icrc;
		rp->icrc_computed = computed;
	} else {
		rocev2_analysis_finish();
	}

	/* Stateless checks, with the path MTU the analysis knows for this QP. */
	uint64_t learnt = 0;
	unsigned pmtu = rocev2_prefs.pmtu ? (unsigned)rocev2_prefs.pmtu
			: rocev2_flow_value(rp, ROCE_FLOW_V_PMTU, &learnt) ? (unsigned)learnt : 0;
	struct roce_check_opts o = { ROCE_CHK_NOTES | (rocev2_prefs.sender ? ROCE_CHK_SENDER : 0), pmtu };
	struct located f[64];
	/* The datagram's findings. When its IP or UDP layer broke, the
	 * transport decoded from the UDP payload Wireshark hands us is shown
	 * but not judged: the first error of the walk is the finding, as
	 * libroce (and lint) find it. */
	size_t n = collect(f, 0, array_length(f), &r->p, &o, r->p_base);
	int t_base = t == &r->p ? r->p_base : tvb_raw_offset(tvb);
	if (rp->icrc_status == ROCE_ICRC_BAD && n < array_length(f))
		f[n++] = (struct located){ { t->rocev1 ? ROCE_C_ICRC_V1 : ROCE_C_ICRC, t->icrc_off, ROCE_ICRC_LEN,
					     __builtin_bswap32(roce_le32_load(t->buf + t->icrc_off)),
					     __builtin_bswap32(rp->icrc_computed) },
					   t, t_base };

	/* Columns. The summary lives as long as the packet, so the Info
	 * column takes it as it is instead of copying it (every packet). */
	enum { SUMMARY_LEN = 200 }; /* the summary, then the analysis tags */
	char *summary = wmem_alloc(pinfo->pool, SUMMARY_LEN);
	if (roce_pkt_has(t, ROCE_H_BTH))
		roce_pkt_summary(t, summary, SUMMARY_LEN);
	else
		roce_pkt_strerror(t, summary, SUMMARY_LEN);
	rocev2_analysis_info(rp, summary, SUMMARY_LEN);
	col_set_str(pinfo->cinfo, COL_INFO, summary); /* a ULP's text goes after all of ours (ulp.c fences) */

	/* The tree, when one is wanted: without one (tshark's packet list),
	 * what follows only runs what has effects beyond it (ULPs, expert
	 * infos), which keeps the per-packet code short. */
	proto_tree *rt = NULL;
	if (tree) {
		proto_item *ti = proto_tree_add_item(tree, proto_rocev2, tvb, 0, -1, ENC_NA);
		proto_item_append_text(ti, ", %s", summary);
		rt = proto_item_add_subtree(ti, ett_rocev2);
		proto_item_set_generated(proto_tree_add_uint(rt, hf_version, tvb, 0, 0, v1 ? 1 : 2));
		/* Headers, from the GRH (RoCE v1) or the BTH on, as libroce found them. */
		for (unsigned h = ROCE_H_GRH; h < ROCE_H_COUNT; h++)
			if (roce_pkt_has(t, (enum roce_hdr)h))
				rocev2_add_header(rt, tvb, (int)t->hdr_off[h] - r->t_shift, (enum roce_hdr)h);
		/* Either GID, as ip.addr is either address: the filter of a
		 * RoCE v1 Conversations row (qpstats.c). */
		int grh = (int)t->hdr_off[ROCE_H_GRH] - r->t_shift;
		if (roce_pkt_has(t, ROCE_H_GRH) && tvb_bytes_exist(tvb, grh + 8, 32)) {
			proto_item_set_hidden(proto_tree_add_item(rt, hf_gid, tvb, grh + 8, 16, ENC_NA));
			proto_item_set_hidden(proto_tree_add_item(rt, hf_gid, tvb, grh + 24, 16, ENC_NA));
		}
	}

	if (t == &r->p)
		rocev2_mcast_tree(rt, tvb, t); /* the group, from the IP (and Ethernet) header */
	rocev2_dc_tree(rt, pinfo, tvb, t, r->t_shift);

	if (decoded && t->err == ROCE_OK) {
		const char *proto_name = pinfo->current_proto;
		add_payload(tree, pinfo, tvb, rt, t, r->t_shift, rp);
		pinfo->current_proto = proto_name; /* our expert infos are ours, not the ULP's */
	}
	if (tree && roce_pkt_has(t, ROCE_H_BTH))
		add_icrc(rt, pinfo, tvb, r, rp);

	/* Findings: one expert info each, naming its rule, with what libroce
	 * adds about this packet (an ICRC diagnosis, what a good or bad ICRC
	 * says about a malformed packet). */
	for (size_t i = 0; i < n; i++) {
		char extra[512];
		roce_finding_context(f[i].p, &f[i].f, extra, sizeof extra);
		rocev2_add_finding(rt, pinfo, r->ds, f[i].base, &f[i].f, extra[0] ? extra : NULL);
	}
	rocev2_analysis_tree(rt, pinfo, tvb, r->ds, t_base, rp);

	/* The findings without their places, for the taps. */
	struct roce_finding plain[64];
	for (size_t i = 0; i < n; i++)
		plain[i] = f[i].f;
	bool to_v1 = t->rocev1 && have_tap_listener(rocev1_tap);
	if (have_tap_listener(rocev2_tap) || to_v1) {
		const struct rocev2_tap_record *rec = rocev2_tap_record(pinfo, t, plain, n, rp);
		if (have_tap_listener(rocev2_tap))
			tap_queue_packet(rocev2_tap, pinfo, rec);
		if (to_v1)
			tap_queue_packet(rocev1_tap, pinfo, rec);
	}
	rocev2_flow_graph_queue(pinfo, t, rp, summary, plain, n); /* Statistics > Flow Graph */
	return (int)tvb_captured_length(tvb);
}

static int dissect_rocev2(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	struct rocev2_parse r;
	memset(&r, 0, sizeof r);
	parse(tvb, pinfo, &r);
	return dissect_parsed(tvb, pinfo, tree, &r, false);
}

/* RoCE v1 (ethertype.c hands it the frames of Ethertype 0x8915): the GIDs
 * are the addresses, as under the built-in InfiniBand dissector. */
static int dissect_rocev1(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	struct rocev2_parse r;
	memset(&r, 0, sizeof r);
	parse_v1(tvb, pinfo, &r);
	if (tvb_captured_length(tvb) >= ROCE_GRH_LEN) {
		set_address_tvb(&pinfo->net_src, AT_IB, 16, tvb, 8);
		set_address_tvb(&pinfo->net_dst, AT_IB, 16, tvb, 24);
		copy_address_shallow(&pinfo->src, &pinfo->net_src);
		copy_address_shallow(&pinfo->dst, &pinfo->net_dst);
	}
	return dissect_parsed(tvb, pinfo, tree, &r, true);
}

/* ---- Registration ---- */

/* RoCEv2 senders should send a zero UDP checksum over IPv6 too (A17.3.2);
 * Wireshark's UDP dissector calls that illegal unless told otherwise. */
static void apply_udp_zero_checksum(void)
{
	if (!rocev2_prefs.ipv6_zero_udp_csum_ok)
		return;
	char arg[] = "udp.ignore_ipv6_zero_checksum:TRUE";
	char *err = NULL;
	prefs_set_pref(arg, &err);
	g_free(err);
}

void proto_reg_handoff_rocev2(void);

void proto_reg_handoff_rocev2(void)
{
	static bool initialized = false;
	if (!initialized) {
		ib_payload_heur = find_heur_dissector_list("infiniband.payload");
		rocev2_handoff_mad();
		proto_eth = proto_get_id_by_filter_name("eth");
		dissector_add_for_decode_as("udp.port", rocev2_handle);
		initialized = true;
	}
	rocev2_port_apply(rocev2_handle, rocev2_prefs.take_port);
	rocev2_ethertype_apply(rocev1_handle, rocev2_prefs.take_rocev1);
	apply_udp_zero_checksum();
}

void proto_register_rocev2(void);

void proto_register_rocev2(void)
{
	static hf_register_info hf[] = {
		{ &hf_version, { "RoCE version", ROCEV2_FILTER ".version", FT_UINT8, BASE_DEC, NULL, 0,
				 "1: RoCE v1 (Ethertype 0x8915, a GRH); 2: RoCEv2 (UDP)", HFILL } },
		{ &hf_gid, { "Source or Destination GID", ROCEV2_FILTER ".grh.gid", FT_IPv6, BASE_NONE, NULL, 0,
			     "Either GID of a RoCE v1 frame's GRH", HFILL } },
		{ &hf_payload, { "Payload", ROCEV2_FILTER ".payload", FT_BYTES, BASE_NONE, NULL, 0,
				 "Message payload (without pad)", HFILL } },
		{ &hf_pad, { "Pad", ROCEV2_FILTER ".pad", FT_BYTES, BASE_NONE, NULL, 0,
			     "Pad bytes (BTH Pad Count)", HFILL } },
		{ &hf_icrc, { "ICRC", ROCEV2_FILTER ".icrc", FT_UINT32, BASE_HEX, NULL, 0,
			      "Invariant CRC, its four wire bytes read in order", HFILL } },
		{ &hf_icrc_status, { "ICRC Status", ROCEV2_FILTER ".icrc.status", FT_UINT8, BASE_NONE,
				     VALS(proto_checksum_vals), 0, NULL, HFILL } },
		{ &hf_icrc_computed, { "Calculated ICRC", ROCEV2_FILTER ".icrc.computed", FT_UINT32, BASE_HEX,
				       NULL, 0, "The ICRC the packet should carry", HFILL } },
		{ &hf_icrc_diagnosis, { "Diagnosis", ROCEV2_FILTER ".icrc.diagnosis", FT_STRING, BASE_NONE, NULL,
					0, "The implementation mistake that explains the wrong ICRC", HFILL } },
		{ &hf_icrc_unverified, { "ICRC", ROCEV2_FILTER ".icrc.bytes", FT_BYTES, BASE_NONE, NULL, 0,
					 "ICRC bytes the capture holds", HFILL } },
	};
	static int *ett[] = { &ett_rocev2, &ett_icrc };

	proto_rocev2 = proto_register_protocol("RDMA over Converged Ethernet v2", ROCEV2_PROTO_NAME,
					       ROCEV2_FILTER);
	proto_register_field_array(proto_rocev2, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	hfi_payload = proto_registrar_get_nth((guint)hf_payload);
	hfi_pad = proto_registrar_get_nth((guint)hf_pad);
	int *icrc_items[] = { &hf_icrc, &hf_icrc_status, &hf_icrc_computed, &hf_icrc_diagnosis, &hf_icrc_unverified };
	_Static_assert(array_length(icrc_items) == array_length(hfi_icrc_items), "one entry per ICRC field");
	for (size_t i = 0; i < array_length(icrc_items); i++)
		hfi_icrc_items[i] = proto_registrar_get_nth((guint)*icrc_items[i]);
	rocev2_register_header_fields(proto_rocev2);
	rocev2_register_findings(proto_rocev2);
	rocev2_register_analysis(proto_rocev2);
	rocev2_register_mad(proto_rocev2);
	rocev2_register_mcast(proto_rocev2);
	rocev2_register_ulp();
	rocev2_tap = rocev2_register_tap();
	rocev1_tap = rocev1_register_tap();
	rocev2_register_stats();
	int proto_v1 = rocev2_ethertype_register(proto_rocev2);
	rocev2_register_qp_stats(proto_rocev2, proto_v1);
	rocev2_register_flow_graph();

	rocev2_handle = register_dissector(ROCEV2_FILTER, dissect_rocev2, proto_rocev2);
	rocev2_port_register();
	rocev1_handle = register_dissector("rocev1", dissect_rocev1, proto_rocev2);

	module_t *m = prefs_register_protocol(proto_rocev2, proto_reg_handoff_rocev2);
	prefs_register_bool_preference(m, "take_port", "Decode UDP 4791 as RoCEv2",
				       "Take UDP port 4791 over from the built-in InfiniBand (RRoCE) dissector, as "
				       "Decode As would, so that a RoCEv2 packet from a low source port (53, 69, ...) "
				       "is RoCEv2 too when its BTH parses and its ICRC verifies; turn off to give the "
				       "port back. Decode As works on any port either way.",
				       &rocev2_prefs.take_port);
	prefs_register_bool_preference(m, "take_rocev1", "Decode RoCE v1 (Ethertype 0x8915)",
				       "Register for Ethertype 0x8915 in the built-in InfiniBand dissector's place, so "
				       "that RoCE v1 frames get the GRH and ICRC checks, the rules and the QP "
				       "analysis; turn off to give it back to the built-in. Decode As of the "
				       "Ethertype (to InfiniBand or to RoCEv2) works either way.",
				       &rocev2_prefs.take_rocev1);
	prefs_register_bool_preference(m, "check_icrc", "Verify the ICRC",
				       "Recompute the Invariant CRC of every packet and diagnose wrong ones",
				       &rocev2_prefs.check_icrc);
	prefs_register_enum_preference(m, "pmtu", "Path MTU",
				       "The path MTU payload sizes are checked against; 'learn' takes it per QP "
				       "from CM REQs and from First/Middle packets",
				       &rocev2_prefs.pmtu, pmtu_vals, false);
	prefs_register_bool_preference(m, "ulp_heuristics", "Try ULP dissectors on payloads",
				       "Offer payloads to the InfiniBand ULP heuristics (NVMe-oF, iSER, SMB Direct, "
				       "RPC-over-RDMA, ...); a heuristic that claims a payload and fails on it no "
				       "longer makes the packet malformed",
				       &rocev2_prefs.ulp_heuristics);
	prefs_register_bool_preference(m, "analysis", "Analyse each QP's traffic",
				       "PSN order, request/response matching, NAK explanations, READ segmentation",
				       &rocev2_prefs.analysis);
	prefs_register_bool_preference(m, "sender", "Captured at the sender",
				       "The capture was taken where the packets were sent: an ECN CE mark is then "
				       "the sender's fault, not the network's",
				       &rocev2_prefs.sender);
	prefs_register_bool_preference(m, "ipv6_zero_udp_checksum", "Zero UDP checksum over IPv6 is legal",
				       "Set the UDP dissector's 'ignore zero checksum over IPv6' preference, since "
				       "RoCEv2 senders send 0 (A17.3.2)",
				       &rocev2_prefs.ipv6_zero_udp_csum_ok);
	rocev2_register_reassembly(proto_rocev2, m);
	rocev2_register_dc(proto_rocev2, m);
}
