/*
 * Handing bytes to the upper-layer protocol dissectors that hang off the
 * built-in InfiniBand dissector's heuristic lists (SEND payloads on
 * "infiniband.payload", CM private data on "infiniband.mad.cm.private"),
 * the way that dissector does, so that they see what they see under it.
 */
#include "analysis.h"

#include <epan/exceptions.h>

/* The QPs (with their host's address) that a ULP has claimed a packet to
 * or from: only their data transfers are worth offering (see
 * rocev2_ulp_on_qp). */
static wmem_map_t *ulp_qps;

/* The multi-packet SEND message in progress to each QP (first pass). */
static wmem_map_t *send_in_progress;

void rocev2_register_ulp(void)
{
	ulp_qps = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
	send_in_progress = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
}

/* One key per (address, QPN); a collision only offers a packet in vain. */
static void *qp_key(const address *a, uint32_t qpn)
{
	return GUINT_TO_POINTER((add_address_to_hash(0, a) * 0x9E3779B1u) ^ (qpn & 0xFFFFFFu));
}

/* A SEND message of several packets, as the first pass saw it. */
struct rocev2_send_msg {
	uint32_t next_psn; /* the PSN its next packet must have */
	bool intact;       /* every packet so far, in PSN order */
	bool whole;        /* intact up to its Last */
	bool claimed;      /* a ULP claimed its First */
};

void rocev2_ulp_track_send(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp)
{
	struct rocev2_packet_msg *pm = rocev2_packet_msg(rp);
	if (PINFO_FD_VISITED(pinfo) || !t->op || t->op->kind != ROCE_K_SEND || t->op->position == ROCE_POS_ONLY ||
	    !pm)
		return;
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	uint32_t psn = roce_bth_psn(bth);
	void *key = qp_key(&pinfo->dst, (uint32_t)roce_bth_destqp(bth));
	struct rocev2_send_msg *m = wmem_map_lookup(send_in_progress, key);
	if (t->op->position == ROCE_POS_FIRST) {
		if (m)
			m->intact = false; /* its Last never came */
		m = wmem_new0(wmem_file_scope(), struct rocev2_send_msg);
		m->intact = t->complete;
		m->next_psn = (psn + 1) & ROCE_PSN_MASK;
		wmem_map_insert(send_in_progress, key, m);
		pm->send_msg = m;
		return;
	}
	if (!m)
		return; /* its First was not seen */
	if (!m->intact || !t->complete || psn != m->next_psn) {
		m->intact = false;
		wmem_map_remove(send_in_progress, key);
		return;
	}
	pm->send_msg = m;
	m->next_psn = (psn + 1) & ROCE_PSN_MASK;
	if (t->op->position == ROCE_POS_LAST) {
		m->whole = true;
		wmem_map_remove(send_in_progress, key);
	}
}

bool rocev2_ulp_send_offered(packet_info *pinfo, const struct roce_pkt *t, const struct rocev2_packet *rp)
{
	if (!t->op || t->op->kind != ROCE_K_SEND || t->op->position == ROCE_POS_ONLY)
		return true;
	const struct rocev2_packet_msg *pm = rocev2_packet_msg(rp);
	const struct rocev2_send_msg *m = pm ? pm->send_msg : NULL;
	if (!m || !(PINFO_FD_VISITED(pinfo) ? m->whole : m->intact))
		return false;
	/* The rest of a message is only for the ULP that claimed its start. */
	return t->op->position == ROCE_POS_FIRST || m->claimed;
}

void rocev2_ulp_send_claimed(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp)
{
	struct rocev2_packet_msg *pm = rocev2_packet_msg(rp);
	if (!PINFO_FD_VISITED(pinfo) && pm && pm->send_msg && t->op->position == ROCE_POS_FIRST)
		pm->send_msg->claimed = true;
}

bool rocev2_ulp_on_qp(packet_info *pinfo, uint32_t dst_qpn)
{
	return wmem_map_size(ulp_qps) > 0 && wmem_map_contains(ulp_qps, qp_key(&pinfo->dst, dst_qpn));
}

void rocev2_ulp_claimed(packet_info *pinfo, uint32_t src_qpn, uint32_t dst_qpn)
{
	wmem_map_insert(ulp_qps, qp_key(&pinfo->dst, dst_qpn), GUINT_TO_POINTER(1));
	if (src_qpn <= 0xFFFFFFu)
		wmem_map_insert(ulp_qps, qp_key(&pinfo->src, src_qpn), GUINT_TO_POINTER(1));
}

/* After a ULP claimed the bytes and wrote after our Info text: a space
 * between the two. Only then, so that a packet no ULP claims (most) costs
 * no column rewrite. */
static void separate_ulp_text(packet_info *pinfo, const char *ours, size_t ours_len)
{
	const char *now = col_get_text(pinfo->cinfo, COL_INFO);
	char *ulp = wmem_strdup(pinfo->pool, now + ours_len);
	col_clear_fence(pinfo->cinfo, COL_INFO);
	col_add_str(pinfo->cinfo, COL_INFO, ours);
	col_append_str(pinfo->cinfo, COL_INFO, " ");
	col_set_fence(pinfo->cinfo, COL_INFO);
	col_append_str(pinfo->cinfo, COL_INFO, ulp);
}

bool rocev2_call_ulps(heur_dissector_list_t list, tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      uint32_t src_qpn, uint32_t dst_qpn, void *ib_info)
{
	heur_dtbl_entry_t *hde = NULL;
	volatile bool claimed = false;
	/* Our Info text (with what reassembly added), fenced: what a ULP
	 * adds goes after it; a copy puts it back if one that does not claim
	 * the bytes has written anyway. */
	col_set_fence(pinfo->cinfo, COL_INFO);
	const char *now = col_get_text(pinfo->cinfo, COL_INFO);
	char ours[COL_MAX_INFO_LEN]; /* a column holds no more */
	size_t ours_len = now ? strnlen(now, sizeof ours - 1) : 0;
	memcpy(ours, now ? now : "", ours_len);
	ours[ours_len] = '\0';
	/* Our Protocol text (RoCEv2 or RoCEv1), to put back likewise. */
	const char *proto = col_get_text(pinfo->cinfo, COL_PROTOCOL);
	const char *ours_proto = proto && !strcmp(proto, ROCEV1_PROTO_NAME) ? ROCEV1_PROTO_NAME : ROCEV2_PROTO_NAME;
	/* While a ULP looks, the "ports" are the QPs, as under the built-in
	 * dissector: the ULPs find their InfiniBand conversations by them, and
	 * RPC and others cannot bind the UDP conversation to themselves and
	 * swallow the ACKs that follow. */
	port_type ptype = pinfo->ptype;
	uint32_t sport = pinfo->srcport, dport = pinfo->destport;
	pinfo->ptype = PT_IBQP;
	pinfo->srcport = src_qpn;
	pinfo->destport = dst_qpn;
	/* A heuristic that claims the bytes and then fails on them is a false
	 * positive, not a malformed packet: its exception stops here. */
	TRY {
		claimed = dissector_try_heuristic(list, tvb, pinfo, proto_tree_get_root(tree), &hde, ib_info);
	}
	CATCH_NONFATAL_ERRORS {
		claimed = false;
	}
	ENDTRY;
	pinfo->ptype = ptype;
	pinfo->srcport = sport;
	pinfo->destport = dport;
	now = col_get_text(pinfo->cinfo, COL_INFO);
	size_t now_len = now ? strlen(now) : 0;
	bool ours_intact = now && now_len >= ours_len && memcmp(now, ours, ours_len) == 0;
	/* Claimed with text of its own: kept, after a space when it follows
	 * ours. Anything else (not claimed, or claimed and nothing written):
	 * our text as it was, when it changed at all. */
	bool ulp_text = claimed && now_len > ours_len;
	if (ulp_text && ours_intact)
		separate_ulp_text(pinfo, ours, ours_len);
	else if (now && !ulp_text && (now_len != ours_len || !ours_intact)) {
		col_clear_fence(pinfo->cinfo, COL_INFO);
		col_add_str(pinfo->cinfo, COL_INFO, ours);
		col_set_fence(pinfo->cinfo, COL_INFO);
	}
	if (!claimed)
		col_set_str(pinfo->cinfo, COL_PROTOCOL, ours_proto);
	return claimed;
}
