/*
 * The plugin side of the per-QP analysis: libroce's flow module does the
 * judging; here its records live in file-scope wmem maps, each packet's
 * result is cached with p_add_proto_data on the first pass, and the
 * results become generated tree items, Info tags and expert infos.
 */
#include "analysis.h"

#include <stddef.h>

#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>

static int hf_analysis = -1;
static int hf_class = -1;
static int hf_expected_psn = -1;
static int hf_request_in = -1;
static int hf_response_in = -1;
static int hf_response_time = -1;
static int hf_src_qpn = -1;
static int hf_pmtu = -1;
static int hf_read_index = -1;
static int hf_read_count = -1;
static int hf_retransmit_of = -1;
static int hf_nak_frame = -1;
static int hf_nak_to_resend = -1;
static int hf_new_after_nak = -1;
static int ett_analysis = -1;

static wmem_map_t *records; /* flow records by key */


static const value_string class_names[] = {
	{ ROCE_FLOW_UNTRACKED, "not tracked" },
	{ ROCE_FLOW_FIRST, "first packet seen in this direction" },
	{ ROCE_FLOW_IN_ORDER, "in order" },
	{ ROCE_FLOW_GAP, "PSN gap" },
	{ ROCE_FLOW_RETRANSMISSION, "retransmission" },
	{ ROCE_FLOW_OUT_OF_ORDER, "out of order" },
	{ ROCE_FLOW_RESPONSE, "response" },
	{ 0, NULL },
};

/* A key of the flow records: its length, then its bytes. */
struct rkey {
	size_t len;
	uint8_t bytes[64];
};

/* Most packets belong to one of the few directions seen just before: a
 * small direct-mapped cache in front of the map. File-scoped, like the map. */
#define CACHE_SLOTS 256
struct cache_slot {
	struct rkey key;
	void *record;
};
static struct cache_slot *cache;

/* The packets' records, file-scoped: allocated one after the other from
 * large blocks, each first with room for every finding, then cut after the
 * findings the analysis wrote (rocev2_analyse), so that the next record
 * starts there. Records never move: the flow analysis keeps pointers to
 * requests' records (answered()). */
#define RECORD_BLOCK (256 * 1024)
static struct {
	uint8_t *top, *end;
} records_arena;

/* The record's size with n findings, rounded up so that the next record is
 * aligned. */
static size_t record_size(unsigned n)
{
	size_t size = offsetof(struct rocev2_packet, flow.findings) + n * sizeof(struct roce_finding);
	return (size + 7) & ~(size_t)7;
}

_Static_assert(offsetof(struct rocev2_packet, flow.findings) +
			       sizeof(((struct rocev2_packet *)0)->flow.findings) ==
		       sizeof(struct rocev2_packet),
	       "the findings must end struct rocev2_packet: rocev2_packet_new cuts records after them");

static guint rkey_hash(gconstpointer k)
{
	const struct rkey *r = k;
	guint h = 2166136261u;
	for (size_t i = 0; i < r->len; i++)
		h = (h ^ r->bytes[i]) * 16777619u;
	return h;
}

static gboolean rkey_equal(gconstpointer a, gconstpointer b)
{
	const struct rkey *x = a, *y = b;
	return x->len == y->len && !memcmp(x->bytes, y->bytes, x->len);
}

static void *record(void *ctx, const void *key, size_t klen, size_t size)
{
	(void)ctx;
	struct rkey k;
	if (klen > sizeof k.bytes)
		return NULL;
	k.len = klen;
	memcpy(k.bytes, key, klen);
	guint h = rkey_hash(&k);
	if (!cache)
		cache = wmem_alloc0(wmem_file_scope(), CACHE_SLOTS * sizeof *cache);
	struct cache_slot *slot = &cache[h % CACHE_SLOTS];
	if (slot->record && rkey_equal(&slot->key, &k))
		return slot->record;
	void *r = wmem_map_lookup(records, &k);
	if (!r) {
		struct rkey *kk = wmem_new(wmem_file_scope(), struct rkey);
		*kk = k;
		r = wmem_alloc0(wmem_file_scope(), size);
		wmem_map_insert(records, kk, r);
	}
	slot->key = k;
	slot->record = r;
	return r;
}

/* The file scope is gone: so are the cache and the records' blocks. */
static void forget_cache(void)
{
	cache = NULL;
	records_arena.top = records_arena.end = NULL;
}

static void answered(void *ctx, void *cookie, uint32_t request_frame, uint32_t response_frame,
		     uint64_t delta_ns)
{
	(void)ctx;
	(void)request_frame;
	struct rocev2_packet *rp = cookie;
	if (rp && !rp->response_in) {
		rp->response_in = response_frame;
		rp->response_in_ns = delta_ns;
	}
}

static const struct roce_flow_env env = { NULL, record, answered };

struct rocev2_packet *rocev2_packet_get(packet_info *pinfo)
{
	if (!pinfo->fd->visited)
		return NULL;
	return p_get_proto_data(wmem_file_scope(), pinfo, proto_rocev2, pinfo->curr_layer_num);
}

struct rocev2_packet *rocev2_packet_new(packet_info *pinfo)
{
	size_t full = sizeof(struct rocev2_packet);
	if (!records_arena.top || (size_t)(records_arena.end - records_arena.top) < full) {
		records_arena.top = wmem_alloc(wmem_file_scope(), RECORD_BLOCK);
		records_arena.end = records_arena.top + RECORD_BLOCK;
	}
	struct rocev2_packet *rp = (struct rocev2_packet *)(void *)records_arena.top;
	memset(rp, 0, record_size(0)); /* the findings are written with their count */
	records_arena.top += record_size(0); /* until the analysis writes findings */
	p_add_proto_data(wmem_file_scope(), pinfo, proto_rocev2, pinfo->curr_layer_num, rp);
	return rp;
}

void rocev2_analyse(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp)
{
	uint8_t ipv;
	if (pinfo->src.type == AT_IPv4 && pinfo->dst.type == AT_IPv4)
		ipv = 4;
	else if (pinfo->src.type == AT_IPv6 && pinfo->dst.type == AT_IPv6)
		ipv = 6;
	else
		return; /* the analysis keys QPs by IP address */
	struct roce_flow_input in = {
		t, ipv, pinfo->src.data, pinfo->dst.data, (uint16_t)pinfo->srcport, pinfo->num,
		(uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs,
		(unsigned)rocev2_prefs.pmtu, rp,
	};
	/* rp is the last record and has room for every finding (rocev2_packet_new). */
	roce_flow_packet(&env, &in, &rp->flow);
	rp->analysed = true;
	if (records_arena.top == (uint8_t *)rp + record_size(0))
		records_arena.top = (uint8_t *)rp + record_size(rp->flow.n_findings);
}

void rocev2_analysis_columns(packet_info *pinfo, const struct rocev2_packet *rp)
{
	if (!rp->analysed)
		return;
	switch (rp->flow.cls) {
	case ROCE_FLOW_GAP: col_append_str(pinfo->cinfo, COL_INFO, " [PSN gap]"); break;
	case ROCE_FLOW_RETRANSMISSION: col_append_str(pinfo->cinfo, COL_INFO, " [Retransmission]"); break;
	case ROCE_FLOW_OUT_OF_ORDER: col_append_str(pinfo->cinfo, COL_INFO, " [Out-of-order]"); break;
	default: break;
	}
	if (rp->flow.read_count)
		col_append_fstr(pinfo->cinfo, COL_INFO, " [READ response %u/%u]", rp->flow.read_index,
				rp->flow.read_count);
}

static proto_item *gen(proto_item *ti)
{
	proto_item_set_generated(ti);
	return ti;
}

void rocev2_analysis_tree(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, tvbuff_t *ds,
			  int base, const struct rocev2_packet *rp)
{
	if (!rp->analysed)
		return;
	const struct roce_flow_result *f = &rp->flow;
	for (unsigned i = 0; i < f->n_findings; i++)
		rocev2_add_finding(tree, pinfo, ds, base, &f->findings[i], NULL);
	if (!tree || f->cls == ROCE_FLOW_UNTRACKED)
		return;
	proto_item *ti = gen(proto_tree_add_item(tree, hf_analysis, tvb, 0, 0, ENC_NA));
	proto_tree *at = proto_item_add_subtree(ti, ett_analysis);
	gen(proto_tree_add_uint(at, hf_class, tvb, 0, 0, f->cls));
	if (f->cls != ROCE_FLOW_RESPONSE && f->cls != ROCE_FLOW_FIRST)
		gen(proto_tree_add_uint(at, hf_expected_psn, tvb, 0, 0, f->expected_psn));
	if (f->retransmit_of)
		gen(proto_tree_add_uint(at, hf_retransmit_of, tvb, 0, 0, f->retransmit_of));
	if (f->nak_frame) {
		gen(proto_tree_add_uint(at, hf_nak_frame, tvb, 0, 0, f->nak_frame));
		nstime_t dt = { (time_t)(f->nak_to_resend_ns / 1000000000u), (int)(f->nak_to_resend_ns % 1000000000u) };
		gen(proto_tree_add_time(at, hf_nak_to_resend, tvb, 0, 0, &dt));
		gen(proto_tree_add_uint(at, hf_new_after_nak, tvb, 0, 0, f->new_after_nak));
	}
	if (f->request_frame) {
		gen(proto_tree_add_uint(at, hf_request_in, tvb, 0, 0, f->request_frame));
		nstime_t dt = { (time_t)(f->response_ns / 1000000000u), (int)(f->response_ns % 1000000000u) };
		gen(proto_tree_add_time(at, hf_response_time, tvb, 0, 0, &dt));
	}
	if (rp->response_in)
		gen(proto_tree_add_uint(at, hf_response_in, tvb, 0, 0, rp->response_in));
	if (f->src_qpn)
		gen(proto_tree_add_uint(at, hf_src_qpn, tvb, 0, 0, f->src_qpn));
	if (f->pmtu)
		gen(proto_tree_add_uint(at, hf_pmtu, tvb, 0, 0, f->pmtu));
	if (f->read_index) {
		gen(proto_tree_add_uint(at, hf_read_index, tvb, 0, 0, f->read_index));
		if (f->read_count)
			gen(proto_tree_add_uint(at, hf_read_count, tvb, 0, 0, f->read_count));
	}
}

void rocev2_register_analysis(int proto)
{
	static hf_register_info hf[] = {
		{ &hf_analysis, { "Flow analysis", ROCEV2_FILTER ".analysis", FT_NONE, BASE_NONE, NULL, 0,
				  "This packet in the context of its QP", HFILL } },
		{ &hf_class, { "Class", ROCEV2_FILTER ".analysis.class", FT_UINT8, BASE_DEC, VALS(class_names), 0,
			       "Where this packet stands in its QP's PSN order", HFILL } },
		{ &hf_expected_psn, { "Expected PSN", ROCEV2_FILTER ".analysis.expected_psn", FT_UINT24, BASE_DEC,
				      NULL, 0, "The next new PSN before this packet", HFILL } },
		{ &hf_request_in, { "Request in", ROCEV2_FILTER ".request_in", FT_FRAMENUM, BASE_NONE,
				    FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The request this packet answers", HFILL } },
		{ &hf_response_in, { "Response in", ROCEV2_FILTER ".response_in", FT_FRAMENUM, BASE_NONE,
				     FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0,
				     "The first ACK, NAK or response that covers this request", HFILL } },
		{ &hf_response_time, { "Response time", ROCEV2_FILTER ".response_time", FT_RELATIVE_TIME,
				       BASE_NONE, NULL, 0, "Time since the request", HFILL } },
		{ &hf_src_qpn, { "Source QP", ROCEV2_FILTER ".analysis.src_qpn", FT_UINT24, BASE_HEX, NULL, 0,
				 "The QP that sent this packet (from the CM exchange or the matched responses)", HFILL } },
		{ &hf_pmtu, { "Path MTU", ROCEV2_FILTER ".analysis.pmtu", FT_UINT16, BASE_DEC, NULL, 0,
			      "The path MTU in force for this QP (preference, CM, or learnt)", HFILL } },
		{ &hf_read_index, { "READ response packet", ROCEV2_FILTER ".analysis.read_index", FT_UINT32, BASE_DEC,
				    NULL, 0, NULL, HFILL } },
		{ &hf_read_count, { "READ response packets", ROCEV2_FILTER ".analysis.read_count", FT_UINT32,
				    BASE_DEC, NULL, 0, "How many packets the READ's length needs", HFILL } },
		{ &hf_retransmit_of, { "Retransmission of", ROCEV2_FILTER ".analysis.retransmission_of", FT_FRAMENUM,
				       BASE_NONE, NULL, 0, "The earlier copy of this PSN", HFILL } },
		{ &hf_nak_frame, { "Resend for the NAK in", ROCEV2_FILTER ".analysis.nak_frame", FT_FRAMENUM, BASE_NONE,
				   NULL, 0, "The NAK PSN Sequence Error this first resend of its PSN answers", HFILL } },
		{ &hf_nak_to_resend, { "Time from the NAK to the resend", ROCEV2_FILTER ".analysis.nak_to_resend",
				       FT_RELATIVE_TIME, BASE_NONE, NULL, 0,
				       "Seconds from the NAK PSN Sequence Error to the first resend of the PSN it asks for, "
				       "both as the capture point saw them",
				       HFILL } },
		{ &hf_new_after_nak, { "New PSNs after the NAK", ROCEV2_FILTER ".analysis.new_after_nak", FT_UINT32,
				       BASE_DEC, NULL, 0,
				       "Packets with new PSNs the requester sent between the NAK and the resend: they "
				       "crossed the NAK in flight",
				       HFILL } },
	};
	static int *ett[] = { &ett_analysis };
	proto_register_field_array(proto, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	records = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), rkey_hash, rkey_equal);
	register_cleanup_routine(forget_cache);
}
