/*
 * MADs carried by UD SENDs to QP1: the common MAD header and the
 * Communication Manager messages (REQ, MRA, REJ, REP, RTU, DREQ, DREP,
 * SIDR REQ/REP), with the IP CM private data of rdma_cm connections. The
 * layouts come from libroce's mad.def. A REQ and the REP that answers it
 * name the QPs at both ends, the PSN each starts with and the path MTU:
 * the per-QP analysis learns them, and the REP links back to its REQ. The
 * consumer's private data goes to the ULP dissectors (NVMe-oF, iSER, ...)
 * with the connection state they look for.
 */
#include "mad.h"

#include <epan/conversation.h>
#include <epan/dissectors/packet-infiniband.h>
#include <epan/wmem_scopes.h>

static int hf_hdr[ROCE_MH_COUNT];
static int ett_hdr[ROCE_MH_COUNT];
static int hf_field[ROCE_MF_COUNT];
static int hf_cm_request_in = -1;
static int hf_cm_qp_a = -1;
static int hf_cm_qp_b = -1;
static int hf_cm_mtu = -1;

/* REQs awaiting their REP, by local communication ID and requester address. */
struct cm_req {
	uint32_t frame;
	uint8_t ipv;
	uint8_t a[16], b[16]; /* requester, responder */
	uint32_t qpn;
	uint64_t service_id;
	conversation_infiniband_data *ib_requester; /* the requester QP's, learns its peer at the REP */
};
static wmem_map_t *cm_reqs;
static heur_dissector_list_t cm_private_heur; /* "infiniband.mad.cm.private" */

static const value_string mgmt_classes[] = {
#define MGMT_CLASS_VALUE(SYM, value, name) { (value), (name) },
	ROCE_MAD_CLASSES(MGMT_CLASS_VALUE)
#undef MGMT_CLASS_VALUE
	{ 0, NULL },
};

static const value_string cm_attrs[] = {
	{ ROCE_CM_REQ, "ConnectRequest (REQ)" }, { ROCE_CM_MRA, "MsgRcptAck (MRA)" },
	{ ROCE_CM_REJ, "ConnectReject (REJ)" }, { ROCE_CM_REP, "ConnectReply (REP)" },
	{ ROCE_CM_RTU, "ReadyToUse (RTU)" }, { ROCE_CM_DREQ, "DisconnectRequest (DREQ)" },
	{ ROCE_CM_DREP, "DisconnectReply (DREP)" }, { ROCE_CM_SIDR_REQ, "ServiceIDResReq (SIDR REQ)" },
	{ ROCE_CM_SIDR_REP, "ServiceIDResReqResp (SIDR REP)" }, { ROCE_CM_LAP, "LoadAlternatePath (LAP)" },
	{ ROCE_CM_APR, "AlternatePathResponse (APR)" }, { 0, NULL },
};

static enum ftenum uint_type(unsigned width)
{
	switch (width) {
	case 1: return FT_UINT8;
	case 2: return FT_UINT16;
	case 3: return FT_UINT24;
	case 4: return FT_UINT32;
	default: return FT_UINT64;
	}
}

static const char *hdr_prefix(enum roce_mad_hdr h)
{
	return h == ROCE_MH_MAD || h == ROCE_MH_IPCM ? ROCEV2_FILTER : ROCEV2_FILTER ".cm";
}

/* Key of a pending REQ: its communication ID and the requester's address. */
struct req_key {
	uint32_t comm_id;
	uint8_t addr[16];
};

static guint req_key_hash(gconstpointer k)
{
	const struct req_key *r = k;
	guint h = r->comm_id * 2654435761u;
	for (int i = 0; i < 16; i++)
		h = (h ^ r->addr[i]) * 16777619u;
	return h;
}

static gboolean req_key_equal(gconstpointer a, gconstpointer b)
{
	return !memcmp(a, b, sizeof(struct req_key));
}

static void make_req_key(struct req_key *k, uint32_t comm_id, const address *requester)
{
	memset(k, 0, sizeof *k);
	k->comm_id = comm_id;
	memcpy(k->addr, requester->data, requester->len > 16 ? 16 : (size_t)requester->len);
}

void rocev2_register_mad(int proto)
{
	hf_register_info *hf = g_new0(hf_register_info, ROCE_MH_COUNT + ROCE_MF_COUNT);
	int **ett = g_new0(int *, ROCE_MH_COUNT);
	int k = 0;
	for (int h = 0; h < ROCE_MH_COUNT; h++) {
		const struct roce_mad_hdr_info *hi = roce_mad_hdr_info((enum roce_mad_hdr)h);
		const char *prefix = hdr_prefix((enum roce_mad_hdr)h);
		hf[k].p_id = &hf_hdr[h];
		hf[k].hfinfo = (header_field_info){ .name = hi->name,
						    .abbrev = g_strdup_printf("%s.%s", prefix, hi->abbrev),
						    .type = FT_NONE, .display = BASE_NONE };
		HFILL_INIT(hf[k]);
		k++;
		ett_hdr[h] = -1;
		ett[h] = &ett_hdr[h];
		enum roce_mad_field f0;
		unsigned n;
		roce_mad_hdr_fields((enum roce_mad_hdr)h, &f0, &n);
		for (unsigned i = 0; i < n; i++) {
			const struct roce_mad_field_info *fi = roce_mad_field_info((enum roce_mad_field)(f0 + i));
			uint64_t full = fi->width >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * fi->width)) - 1;
			header_field_info x = { .name = fi->label,
						.abbrev = g_strdup_printf("%s.%s.%s", prefix, hi->abbrev, fi->abbrev) };
			x.bitmask = fi->mask == full ? 0 : fi->mask;
			switch (fi->display) {
			case ROCE_DISP_FLAG: x.type = FT_BOOLEAN; x.display = 8 * fi->width; break;
			case ROCE_DISP_IPV6: x.type = FT_IPv6; x.display = BASE_NONE; x.bitmask = 0; break;
			case ROCE_DISP_BYTES:
			case ROCE_DISP_IPV4: x.type = FT_BYTES; x.display = BASE_NONE; x.bitmask = 0; break;
			default:
				x.type = uint_type(fi->width);
				x.display = fi->display == ROCE_DISP_HEX ? BASE_HEX : BASE_DEC;
			}
			if (h == ROCE_MH_MAD && !strcmp(fi->abbrev, "mgmt_class"))
				x.strings = VALS(mgmt_classes);
			if (h == ROCE_MH_MAD && !strcmp(fi->abbrev, "attr_id"))
				x.strings = VALS(cm_attrs);
			hf_field[f0 + i] = -1;
			hf[k].p_id = &hf_field[f0 + i];
			hf[k].hfinfo = x;
			HFILL_INIT(hf[k]);
			k++;
		}
	}
	proto_register_field_array(proto, hf, k);
	proto_register_subtree_array(ett, ROCE_MH_COUNT);

	static hf_register_info links[] = {
		{ &hf_cm_request_in, { "REQ in", ROCEV2_FILTER ".cm.req_in", FT_FRAMENUM, BASE_NONE,
				       FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The REQ this REP answers", HFILL } },
		{ &hf_cm_qp_a, { "Requester QP", ROCEV2_FILTER ".cm.requester_qpn", FT_UINT24, BASE_HEX, NULL, 0,
				 "The QP the REQ's sender set up", HFILL } },
		{ &hf_cm_qp_b, { "Responder QP", ROCEV2_FILTER ".cm.responder_qpn", FT_UINT24, BASE_HEX, NULL, 0,
				 "The QP the REP's sender set up", HFILL } },
		{ &hf_cm_mtu, { "Path MTU (bytes)", ROCEV2_FILTER ".cm.pmtu", FT_UINT16, BASE_DEC, NULL, 0,
				"The path MTU the REQ asked for", HFILL } },
	};
	proto_register_field_array(proto, links, array_length(links));
	cm_reqs = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), req_key_hash, req_key_equal);
}

static proto_tree *add_hdr(proto_tree *tree, tvbuff_t *tvb, int off, enum roce_mad_hdr h)
{
	const struct roce_mad_hdr_info *hi = roce_mad_hdr_info(h);
	proto_item *ti = proto_tree_add_item(tree, hf_hdr[h], tvb, off, hi->size, ENC_NA);
	proto_tree *sub = proto_item_add_subtree(ti, ett_hdr[h]);
	enum roce_mad_field f0;
	unsigned n;
	roce_mad_hdr_fields(h, &f0, &n);
	for (unsigned i = 0; i < n; i++) {
		const struct roce_mad_field_info *fi = roce_mad_field_info((enum roce_mad_field)(f0 + i));
		bool bytes = fi->mask == 0;
		proto_tree_add_item(sub, hf_field[f0 + i], tvb, off + fi->offset, fi->width,
				    bytes ? ENC_NA : ENC_BIG_ENDIAN);
	}
	return sub;
}

/* The connection as the built-in InfiniBand dissector records it, so that
 * the ULP dissectors that look it up (NVMe-oF finds its queues, its queue
 * ID and its Service ID there; iSER and SDP their Service ID) work on top
 * of this plugin. Conversations of type IBQP whose "ports" are QPNs, each
 * carrying the Service ID:
 * - at the REQ, the CM exchange (requester and responder addresses, the
 *   MAD's source and destination QPs) and the requester's QP alone (its
 *   address, the REQ's MAD data, and its peer QP once the REP names it);
 * - at the REP, the responder's QP alone (the REP's MAD data, the
 *   requester's QP as its peer) and the connected pair of QPs. */
static int proto_ib = -1;

static conversation_infiniband_data *ib_conversation(packet_info *pinfo, const address *a, const address *b,
						     uint32_t port_a, uint32_t port_b, unsigned options,
						     uint64_t service_id, bool client_to_server,
						     uint32_t peer_qpn, const uint8_t *mad_data)
{
	conversation_t *conv = conversation_new(pinfo->num, a, b, CONVERSATION_IBQP, port_a, port_b, options);
	conversation_infiniband_data *d = wmem_new0(wmem_file_scope(), conversation_infiniband_data);
	d->service_id = service_id;
	d->client_to_server = client_to_server;
	d->src_qp = peer_qpn;
	if (mad_data)
		memcpy(d->mad_private_data, mad_data, MAD_DATA_SIZE);
	conversation_add_proto_data(conv, proto_ib, d);
	return d;
}

static bool ib_known(void)
{
	if (proto_ib < 0)
		proto_ib = proto_get_id_by_filter_name("infiniband");
	return proto_ib >= 0;
}

uint32_t rocev2_ib_peer_qpn(packet_info *pinfo, uint32_t dst_qpn)
{
	if (!ib_known())
		return 0;
	conversation_t *conv = find_conversation(pinfo->num, &pinfo->dst, &pinfo->dst, CONVERSATION_IBQP, dst_qpn,
						 dst_qpn, NO_ADDR_B | NO_PORT_B);
	conversation_infiniband_data *d = conv ? conversation_get_proto_data(conv, proto_ib) : NULL;
	return d ? d->src_qp : 0;
}

/* The MAD's source QP (DETH) and destination QP (BTH): the CM's own QPs. */
static uint32_t mad_src_qpn(const struct roce_pkt *t)
{
	const uint8_t *deth = roce_pkt_hdr(t, ROCE_H_DETH);
	return deth ? (uint32_t)roce_deth_srcqp(deth) : 0;
}

static uint32_t mad_dst_qpn(const struct roce_pkt *t)
{
	return (uint32_t)roce_bth_destqp(roce_pkt_hdr(t, ROCE_H_BTH));
}

static void ib_request_conversations(packet_info *pinfo, const struct roce_pkt *t, const uint8_t *m,
				     struct cm_req *r)
{
	if (!ib_known())
		return;
	ib_conversation(pinfo, &pinfo->src, &pinfo->dst, mad_src_qpn(t), mad_dst_qpn(t), 0, r->service_id,
			true, 0, NULL);
	r->ib_requester = ib_conversation(pinfo, &pinfo->src, &pinfo->src, r->qpn, r->qpn,
					  NO_ADDR2 | NO_PORT2, r->service_id, false, 0, m);
}

/* The REP travels from the responder to the requester. */
static void ib_reply_conversations(packet_info *pinfo, const uint8_t *m, const struct cm_req *r,
				   uint32_t resp_qpn)
{
	if (!ib_known())
		return;
	if (r->ib_requester)
		r->ib_requester->src_qp = resp_qpn;
	ib_conversation(pinfo, &pinfo->src, &pinfo->src, resp_qpn, resp_qpn, NO_ADDR2 | NO_PORT2,
			r->service_id, true, r->qpn, m);
	ib_conversation(pinfo, &pinfo->src, &pinfo->dst, resp_qpn, r->qpn, 0, r->service_id, false, 0, NULL);
}

/* The consumer's part of a CM message's private data goes to the ULP
 * dissectors registered for it, for the messages the built-in dissector
 * offers them: REQ (after the IP CM header, when there is one), REP, RTU,
 * REJ, DREQ and DREP. */
static void cm_private_to_ulps(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, proto_tree *ct,
			       const struct roce_pkt *t, uint16_t attr, const uint8_t *m)
{
	enum roce_mad_field pf;
	switch (attr) {
	case ROCE_CM_REQ: pf = ROCE_MF_CM_REQ_private_data; break;
	case ROCE_CM_REP: pf = ROCE_MF_CM_REP_private_data; break;
	case ROCE_CM_RTU: pf = ROCE_MF_CM_RTU_private_data; break;
	case ROCE_CM_REJ: pf = ROCE_MF_CM_REJ_private_data; break;
	case ROCE_CM_DREQ: pf = ROCE_MF_CM_DREQ_private_data; break;
	case ROCE_CM_DREP: pf = ROCE_MF_CM_DREP_private_data; break;
	default: return;
	}
	if (!cm_private_heur || !rocev2_prefs.ulp_heuristics)
		return;
	const struct roce_mad_field_info *fi = roce_mad_field_info(pf);
	int off = ROCE_MAD_HDR_LEN + fi->offset, len = fi->width;
	if (attr == ROCE_CM_REQ && roce_cm_service_is_ip(roce_req_service_id(m))) {
		int ipcm = roce_mad_hdr_info(ROCE_MH_IPCM)->size;
		off += ipcm;
		len -= ipcm;
	}
	struct infinibandinfo info;
	memset(&info, 0, sizeof info);
	info.payload_tree = ct;
	info.cm_attribute_id = attr;
	rocev2_call_ulps(cm_private_heur, tvb_new_subset_length(tvb, off, len), pinfo, tree, mad_src_qpn(t),
			 mad_dst_qpn(t), &info);
}

static void learn(packet_info *pinfo, const struct roce_pkt *t, const uint8_t *mad, uint16_t attr,
		  struct rocev2_packet *rp)
{
	uint8_t ipv = pinfo->src.type == AT_IPv6 ? 6 : pinfo->src.type == AT_IPv4 ? 4 : 0;
	struct rocev2_packet_cm *cm = rocev2_packet_cm(rp);
	if (!ipv || !cm)
		return;
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	if (attr == ROCE_CM_REQ) {
		struct cm_req *r = wmem_new0(wmem_file_scope(), struct cm_req);
		r->frame = pinfo->num;
		r->ipv = ipv;
		memcpy(r->a, pinfo->src.data, (size_t)pinfo->src.len);
		memcpy(r->b, pinfo->dst.data, (size_t)pinfo->dst.len);
		r->qpn = (uint32_t)roce_req_local_qpn(m);
		r->service_id = roce_req_service_id(m);
		ib_request_conversations(pinfo, t, m, r);
		struct req_key *key = wmem_new(wmem_file_scope(), struct req_key);
		make_req_key(key, (uint32_t)roce_req_local_comm_id(m), &pinfo->src);
		wmem_map_insert(cm_reqs, key, r);
		cm->local_qpn = r->qpn;
	} else if (attr == ROCE_CM_REP) {
		struct req_key key;
		make_req_key(&key, (uint32_t)roce_rep_remote_comm_id(m), &pinfo->dst);
		struct cm_req *r = wmem_map_lookup(cm_reqs, &key);
		cm->local_qpn = (uint32_t)roce_rep_local_qpn(m);
		if (!r)
			return;
		cm->peer_frame = r->frame;
		cm->remote_qpn = r->qpn;
		/* The flow analysis learns the connection from the same REQ and
		 * REP itself (libroce), as lint does. */
		ib_reply_conversations(pinfo, m, r, cm->local_qpn);
	}
}

bool rocev2_dissect_mad(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const struct roce_pkt *t, struct rocev2_packet *rp)
{
	if (tvb_captured_length(tvb) < ROCE_MAD_HDR_LEN)
		return false;
	const uint8_t *mad = tvb_get_ptr(tvb, 0, ROCE_MAD_HDR_LEN);
	add_hdr(tree, tvb, 0, ROCE_MH_MAD);
	unsigned mclass = (unsigned)roce_mad_mgmt_class(mad);
	uint16_t attr = (uint16_t)roce_mad_attr_id(mad);
	if (mclass != ROCE_MAD_CLASS_CM) {
		col_append_fstr(pinfo->cinfo, COL_INFO, " MAD %s",
				val_to_str_const(mclass, mgmt_classes, "(unknown class)"));
		return true;
	}
	enum roce_mad_hdr h = roce_cm_msg(attr);
	col_append_fstr(pinfo->cinfo, COL_INFO, " CM %s",
			roce_cm_msg_name(attr) ? roce_cm_msg_name(attr) : "(unknown attribute)");
	if (h == ROCE_MH_COUNT || tvb_captured_length(tvb) < ROCE_MAD_LEN)
		return true;
	mad = tvb_get_ptr(tvb, 0, ROCE_MAD_LEN);
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	proto_tree *ct = add_hdr(tree, tvb, ROCE_MAD_HDR_LEN, h);

	if (!pinfo->fd->visited)
		learn(pinfo, t, mad, attr, rp);
	if (attr == ROCE_CM_REQ) {
		col_append_fstr(pinfo->cinfo, COL_INFO, " QPN=0x%06x PSN=%u", (unsigned)roce_req_local_qpn(m),
				(unsigned)roce_req_start_psn(m));
		unsigned mtu = roce_ib_mtu_bytes((unsigned)roce_req_path_mtu(m));
		if (mtu)
			proto_item_set_generated(proto_tree_add_uint(ct, hf_cm_mtu, tvb, 0, 0, mtu));
		if (roce_cm_service_is_ip(roce_req_service_id(m)))
			add_hdr(ct, tvb, ROCE_CM_REQ_PRIVATE_OFF, ROCE_MH_IPCM);
	} else if (attr == ROCE_CM_REP) {
		col_append_fstr(pinfo->cinfo, COL_INFO, " QPN=0x%06x PSN=%u", (unsigned)roce_rep_local_qpn(m),
				(unsigned)roce_rep_start_psn(m));
		const struct rocev2_packet_cm *cm = rocev2_packet_cm(rp);
		if (cm && cm->peer_frame) {
			proto_item_set_generated(proto_tree_add_uint(ct, hf_cm_request_in, tvb, 0, 0, cm->peer_frame));
			proto_item_set_generated(proto_tree_add_uint(ct, hf_cm_qp_a, tvb, 0, 0, cm->remote_qpn));
			proto_item_set_generated(proto_tree_add_uint(ct, hf_cm_qp_b, tvb, 0, 0, cm->local_qpn));
		}
	} else if (attr == ROCE_CM_SIDR_REQ) {
		if (roce_cm_service_is_ip(roce_sidr_req_service_id(m)))
			add_hdr(ct, tvb, ROCE_MAD_HDR_LEN + 16, ROCE_MH_IPCM);
	} else if (attr == ROCE_CM_SIDR_REP) {
		col_append_fstr(pinfo->cinfo, COL_INFO, " QPN=0x%06x", (unsigned)roce_sidr_rep_qpn(m));
	}
	cm_private_to_ulps(tvb, pinfo, tree, ct, t, attr, m);
	return true;
}

void rocev2_handoff_mad(void)
{
	cm_private_heur = find_heur_dissector_list("infiniband.mad.cm.private");
}
