/*
 * Message reassembly (reassembly.h). On the first pass each packet of a
 * SEND or RDMA WRITE message of several packets is placed in its message:
 * per QP (addresses and destination QP), by PSN, among the few messages
 * the QP carried last, so that a resend (go-back-N, a timeout) fills the
 * hole it was sent for and a copy of a packet of a message already whole
 * is only linked to it. What the first pass learns about each message
 * (where it starts, the frame of each of its packets, where it became
 * whole) is kept in small file-scope records, so that every later pass
 * shows the same links. The bytes of a SEND message go to Wireshark's
 * reassembly table when a ULP dissector is to see the whole message: on a
 * QP where one has claimed a packet before (what a 4.6 ULP asks the
 * built-in dissector for, in its own way); elsewhere the packets go to the
 * ULPs one by one, and a ULP that claims one makes the QP such a QP. An RDMA WRITE's bytes are memory contents that the ULPs follow
 * packet by packet, and a capture's bulk: keeping them would cost as much
 * memory as the capture's payload, for no reader.
 *
 * A message that never became whole in the capture has a hole: packets
 * lost before the capture point (or a capture that starts or stops inside
 * it). That is what a capture point explains, so it is a warning on the
 * message's last packet, never an error.
 */
#include "reassembly.h"

#include <epan/reassemble.h>
#include <epan/wmem_scopes.h>

#define RECENT 8                  /* messages remembered per QP */
#define MAX_PACKETS (1u << 16)    /* packets of a message we follow (4 bytes each) */
#define INLINE_FRAMES 4           /* most messages: no array of their own */

static rocev2_pref_bool reassemble_pref = true;

static int proto;
static int hf_msg = -1;
static int hf_msg_first_in = -1;
static int hf_msg_index = -1;
static int hf_msg_packets = -1;
static int hf_msg_missing = -1;
static int hf_msg_resent = -1;
static int hf_fragments = -1;
static int hf_fragment = -1;
static int hf_fragment_overlap = -1;
static int hf_fragment_overlap_conflicts = -1;
static int hf_fragment_multiple_tails = -1;
static int hf_fragment_too_long = -1;
static int hf_fragment_error = -1;
static int hf_fragment_count = -1;
static int hf_reassembled_in = -1;
static int hf_reassembled_length = -1;
static int hf_reassembled_data = -1;
static int ett_msg = -1;
static int ett_fragment = -1;
static int ett_fragments = -1;
static expert_field ei_incomplete = EI_INIT;

static const fragment_items msg_items = {
	&ett_fragment, &ett_fragments,
	&hf_fragments, &hf_fragment, &hf_fragment_overlap, &hf_fragment_overlap_conflicts,
	&hf_fragment_multiple_tails, &hf_fragment_too_long, &hf_fragment_error, &hf_fragment_count,
	&hf_reassembled_in, &hf_reassembled_length, &hf_reassembled_data,
	"Message packets",
};

static reassembly_table msg_table;

/* A message as the first pass saw it. */
struct msg {
	uint32_t id;             /* its reassembly id, unique in the file */
	uint32_t first_psn;      /* of its First, else of its first packet seen */
	uint32_t span;           /* PSNs it may cover: its packets, or up to the next First */
	uint32_t first_frame;    /* its First's frame; 0: not captured */
	uint32_t last_frame;     /* the last frame that was one of its packets */
	uint32_t reassembled_in; /* the frame that made it whole; 0: never */
	uint32_t npackets;       /* from its Last; 0 until then */
	uint32_t distinct;       /* distinct PSNs captured */
	uint32_t *frames;        /* the frame of each packet by index; 0: not captured */
	uint32_t nframes;        /* entries in frames */
	uint32_t inline_frames[INLINE_FRAMES]; /* frames, while they fit */
	uint32_t length;         /* payload bytes of its distinct packets */
	bool bytes;              /* its bytes go to the reassembly table */
	enum roce_op_kind kind;
	uint8_t last_opcode;
	bool cut;                /* a packet cut by the snapshot length: never whole */
	/* The First's RETH (WRITE), for the ULPs. */
	bool has_reth;
	uint64_t va;
	uint32_t rkey, dmalen;
};

/* The messages a QP carried last (first pass). */
struct qp_msgs {
	struct msg *recent[RECENT];
	unsigned next;
};

struct qp_key {
	uint8_t src[16], dst[16];
	uint32_t qpn;
	uint8_t ipv;
};

/* Per-file state: the QPs' recent messages and the next message id. */
static struct {
	wmem_map_t *qps;
	uint32_t next_id;
} state;

/* Every packet of a message looks its QP up (the keys are zeroed before
 * they are filled, padding included). */
static guint qp_key_hash(gconstpointer k)
{
	return rocev2_hash_bytes(k, sizeof(struct qp_key));
}

static gboolean qp_key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(struct qp_key)) == 0;
}

static void reset(void)
{
	state.next_id = 1;
}

bool rocev2_msg_part(const struct roce_pkt *t)
{
	const struct roce_opcode_info *op = t->op;
	if (!reassemble_pref || !op || !op->name)
		return false;
	if (op->transport != ROCE_T_RC && op->transport != ROCE_T_UC && op->transport != ROCE_T_XRC)
		return false;
	if (op->kind != ROCE_K_SEND && op->kind != ROCE_K_WRITE)
		return false;
	return op->position == ROCE_POS_FIRST || op->position == ROCE_POS_MIDDLE || op->position == ROCE_POS_LAST;
}

static bool make_key(packet_info *pinfo, uint32_t qpn, struct qp_key *k)
{
	memset(k, 0, sizeof *k);
	/* RoCE v1's addresses are its GIDs (AT_IB), apart from RoCEv2's. */
	unsigned len = pinfo->src.type == AT_IPv4 ? 4 : pinfo->src.type == AT_IPv6 || pinfo->src.type == AT_IB ? 16 : 0;
	if (!len || pinfo->dst.type != pinfo->src.type || pinfo->src.len != (int)len || pinfo->dst.len != (int)len)
		return false;
	memcpy(k->src, pinfo->src.data, len);
	memcpy(k->dst, pinfo->dst.data, len);
	k->qpn = qpn;
	k->ipv = pinfo->src.type == AT_IB ? 1 : (uint8_t)len;
	return true;
}

static uint32_t psn_dist(uint32_t from, uint32_t to)
{
	return (to - from) & ROCE_PSN_MASK;
}

/* Records frame as packet i of the message; false when i was captured
 * before. */
static bool mark_seen(struct msg *m, uint32_t i, uint32_t frame)
{
	if (i >= m->nframes) {
		uint32_t n = m->nframes * 2;
		while (n <= i)
			n *= 2;
		uint32_t *frames = wmem_alloc0(wmem_file_scope(), n * sizeof *frames);
		memcpy(frames, m->frames, m->nframes * sizeof *frames);
		m->frames = frames;
		m->nframes = n;
	}
	if (m->frames[i])
		return false;
	m->frames[i] = frame;
	m->distinct++;
	return true;
}

static proto_item *gen(proto_item *ti)
{
	proto_item_set_generated(ti);
	return ti;
}

static struct msg *new_msg(struct qp_msgs *q, const struct roce_pkt *t, uint32_t psn, bool send_bytes)
{
	struct msg *m = wmem_new0(wmem_file_scope(), struct msg);
	m->id = state.next_id++;
	m->first_psn = psn;
	m->span = MAX_PACKETS;
	m->frames = m->inline_frames;
	m->nframes = INLINE_FRAMES;
	m->kind = t->op->kind;
	m->bytes = t->op->kind == ROCE_K_SEND && send_bytes;
	q->recent[q->next] = m;
	q->next = (q->next + 1) % RECENT;
	return m;
}

/* The recent message of this kind whose PSNs cover psn, newest first. */
static struct msg *find_msg(struct qp_msgs *q, enum roce_op_kind kind, uint32_t psn, bool first)
{
	for (unsigned k = 1; k <= RECENT; k++) {
		struct msg *m = q->recent[(q->next + RECENT - k) % RECENT];
		if (!m || m->kind != kind)
			continue;
		uint32_t d = psn_dist(m->first_psn, psn);
		if (first ? (d == 0 && m->first_frame) : d < m->span)
			return m;
	}
	return NULL;
}

/* First pass: which message the packet belongs to, and its index there. */
static bool place(packet_info *pinfo, const struct roce_pkt *t, uint32_t psn, bool send_bytes,
		  struct rocev2_msg_part *p)
{
	const uint8_t *bth = roce_pkt_hdr(t, ROCE_H_BTH);
	struct qp_key key;
	if (!make_key(pinfo, (uint32_t)roce_bth_destqp(bth), &key))
		return false;
	struct qp_msgs *q = wmem_map_lookup(state.qps, &key);
	if (!q) {
		struct qp_key *kk = wmem_new(wmem_file_scope(), struct qp_key);
		*kk = key;
		q = wmem_new0(wmem_file_scope(), struct qp_msgs);
		wmem_map_insert(state.qps, kk, q);
	}
	bool first = t->op->position == ROCE_POS_FIRST;
	struct msg *m = find_msg(q, t->op->kind, psn, first);
	if (!m && first) {
		/* A new message: the ones before it on this QP end before its PSN. */
		for (unsigned k = 0; k < RECENT; k++) {
			struct msg *o = q->recent[k];
			uint32_t d = o ? psn_dist(o->first_psn, psn) : 0;
			if (o && d < o->span && d < ROCE_PSN_MASK / 2)
				o->span = d;
		}
		m = new_msg(q, t, psn, send_bytes);
	} else if (!m) {
		/* Its First was not captured: a message that starts here for us. */
		m = new_msg(q, t, psn, send_bytes);
	}
	if (first && !m->first_frame) {
		m->first_frame = pinfo->num;
		const uint8_t *reth = roce_pkt_hdr(t, ROCE_H_RETH);
		if (reth) {
			m->has_reth = true;
			m->va = roce_reth_va(reth);
			m->rkey = roce_reth_rkey(reth);
			m->dmalen = roce_reth_dmalen(reth);
		}
	}
	p->m = m;
	p->index = psn_dist(m->first_psn, psn);
	if (t->op->position == ROCE_POS_LAST && !m->npackets) {
		m->npackets = p->index + 1;
		m->span = m->npackets;
		m->last_opcode = t->opcode;
	}
	m->last_frame = pinfo->num;
	return true;
}

/* First pass: the packet into its message, unless the message is whole
 * already (then the packet is a copy) or cannot be put together; its bytes
 * into the reassembly table if the message's are kept. */
static fragment_head *add(tvbuff_t *payload, packet_info *pinfo, const struct roce_pkt *t,
			  struct rocev2_msg_part *p)
{
	struct msg *m = p->m;
	fragment_head *head = NULL;
	if (m->reassembled_in || !m->first_frame || p->index >= MAX_PACKETS)
		return NULL;
	bool fresh = mark_seen(m, p->index, pinfo->num);
	if (!t->complete || tvb_captured_length(payload) < tvb_reported_length(payload))
		m->cut = true;
	if (m->cut)
		return NULL;
	if (fresh)
		m->length += tvb_reported_length(payload);
	bool whole = m->npackets && m->distinct == m->npackets;
	if (m->bytes) {
		/* A copy of a PSN still missing elsewhere: the table keeps the first. */
		p->added = true;
		head = fragment_add_seq_check(&msg_table, payload, 0, pinfo, m->id, NULL, p->index,
					      tvb_reported_length(payload), t->op->position != ROCE_POS_LAST);
		whole = head != NULL;
	}
	if (whole)
		m->reassembled_in = pinfo->num;
	return head;
}

/* At the frame that made a message whole without its bytes: its packets. */
static void add_packets(proto_tree *tree, tvbuff_t *tvb, const struct msg *m)
{
	proto_item *ti = gen(proto_tree_add_item(tree, hf_fragments, tvb, 0, 0, ENC_NA));
	proto_item_append_text(ti, " (%u packets, %u bytes)", m->npackets, m->length);
	proto_tree *ft = proto_item_add_subtree(ti, ett_fragments);
	for (uint32_t i = 0; i < m->npackets && i < m->nframes; i++)
		gen(proto_tree_add_uint(ft, hf_fragment, tvb, 0, 0, m->frames[i]));
	gen(proto_tree_add_uint(ft, hf_fragment_count, tvb, 0, 0, m->npackets));
	gen(proto_tree_add_uint(ft, hf_reassembled_length, tvb, 0, 0, m->length));
}

bool rocev2_reassemble(tvbuff_t *payload, packet_info *pinfo, proto_tree *tree, const struct roce_pkt *t,
		       bool ulps, struct rocev2_msg_part *p, struct rocev2_msg_view *whole)
{
	whole->held = false;
	fragment_head *head = NULL;
	if (!p->m && !PINFO_FD_VISITED(pinfo)) {
		if (!place(pinfo, t, roce_bth_psn(roce_pkt_hdr(t, ROCE_H_BTH)), ulps, p))
			return false;
		head = add(payload, pinfo, t, p);
	}
	if (!p->m)
		return false;
	const struct msg *m = p->m;
	whole->held = m->bytes;

	proto_item *ti = gen(proto_tree_add_item(tree, hf_msg, payload, 0, 0, ENC_NA));
	proto_tree *mt = proto_item_add_subtree(ti, ett_msg);
	if (m->first_frame) {
		gen(proto_tree_add_uint(mt, hf_msg_first_in, payload, 0, 0, m->first_frame));
		gen(proto_tree_add_uint(mt, hf_msg_index, payload, 0, 0, p->index + 1));
		if (m->npackets)
			gen(proto_tree_add_uint(mt, hf_msg_packets, payload, 0, 0, m->npackets));
	}

	if (p->added && PINFO_FD_VISITED(pinfo))
		head = fragment_add_seq_check(&msg_table, payload, 0, pinfo, m->id, NULL, p->index,
					      tvb_reported_length(payload), t->op->position != ROCE_POS_LAST);
	if (head) {
		rocev2_pref_bool update_col = false; /* the Info column stays ours */
		tvbuff_t *data = process_reassembled_data(payload, 0, pinfo, "Reassembled RoCEv2 message", head,
							  &msg_items, &update_col, mt);
		if (data && m->reassembled_in == pinfo->num) {
			col_append_fstr(pinfo->cinfo, COL_INFO, " [message of %u packets reassembled]", m->npackets);
			int op = roce_opcode_find(t->op->transport, m->kind, ROCE_POS_ONLY, ROCE_OPF_IMM | ROCE_OPF_INV,
						  t->op->flags & (ROCE_OPF_IMM | ROCE_OPF_INV));
			*whole = (struct rocev2_msg_view){ true, data, (uint8_t)(op < 0 ? t->opcode : op), m->first_psn,
							    m->has_reth, m->va, m->rkey, m->dmalen };
			return true;
		}
		return false;
	}
	if (m->reassembled_in == pinfo->num) {
		col_append_fstr(pinfo->cinfo, COL_INFO, " [message of %u packets reassembled]", m->npackets);
		add_packets(mt, payload, m);
		return false;
	}
	if (m->reassembled_in) {
		/* A copy of a packet of a message already whole (a resend). */
		proto_item *ri = gen(proto_tree_add_uint(mt, hf_reassembled_in, payload, 0, 0, m->reassembled_in));
		proto_item_append_text(ri, " (a copy: the message was whole before this packet)");
		gen(proto_tree_add_boolean(mt, hf_msg_resent, payload, 0, 0, true));
		return false;
	}
	if (!m->reassembled_in && PINFO_FD_VISITED(pinfo) && pinfo->num == m->last_frame) {
		char what[160];
		if (!m->first_frame)
			snprintf(what, sizeof what, "its First was not captured");
		else if (m->cut)
			snprintf(what, sizeof what, "a packet of it was cut by the snapshot length");
		else if (!m->npackets)
			snprintf(what, sizeof what, "its Last was not captured (%u packets seen)", m->distinct);
		else
			snprintf(what, sizeof what, "%u of its %u packets were not captured", m->npackets - m->distinct,
				 m->npackets);
		if (m->first_frame && m->npackets && !m->cut)
			gen(proto_tree_add_uint(mt, hf_msg_missing, payload, 0, 0, m->npackets - m->distinct));
		expert_add_info_format(pinfo, ti, &ei_incomplete,
				       "Message with a hole, not reassembled: %s (lost before the capture point, "
				       "or the capture starts or ends inside it)",
				       what);
	}
	return false;
}

void rocev2_register_reassembly(int proto_id, module_t *module)
{
	static hf_register_info hf[] = {
		{ &hf_msg, { "Message", ROCEV2_FILTER ".msg", FT_NONE, BASE_NONE, NULL, 0,
			     "The SEND or RDMA WRITE message of several packets this packet belongs to", HFILL } },
		{ &hf_msg_first_in, { "Message starts in", ROCEV2_FILTER ".msg.first_in", FT_FRAMENUM, BASE_NONE, NULL,
				      0, "The frame of the message's First packet", HFILL } },
		{ &hf_msg_index, { "Packet of the message", ROCEV2_FILTER ".msg.index", FT_UINT32, BASE_DEC, NULL, 0,
				   "This packet's place in its message, from 1 at the First (by PSN)", HFILL } },
		{ &hf_msg_packets, { "Packets in the message", ROCEV2_FILTER ".msg.packets", FT_UINT32, BASE_DEC, NULL,
				     0, "From the First's PSN to the Last's", HFILL } },
		{ &hf_msg_missing, { "Packets missing", ROCEV2_FILTER ".msg.missing", FT_UINT32, BASE_DEC, NULL, 0,
				     "Packets of the message that the capture does not hold", HFILL } },
		{ &hf_msg_resent, { "Copy of a packet of a whole message", ROCEV2_FILTER ".msg.copy", FT_BOOLEAN,
				    BASE_NONE, NULL, 0, "Sent again after the message was whole in the capture", HFILL } },
		{ &hf_fragments, { "Message packets", ROCEV2_FILTER ".msg.fragments", FT_NONE, BASE_NONE, NULL, 0,
				   NULL, HFILL } },
		{ &hf_fragment, { "Message packet", ROCEV2_FILTER ".msg.fragment", FT_FRAMENUM, BASE_NONE, NULL, 0,
				  NULL, HFILL } },
		{ &hf_fragment_overlap, { "Packet overlap", ROCEV2_FILTER ".msg.fragment.overlap", FT_BOOLEAN,
					  BASE_NONE, NULL, 0, "A PSN captured more than once", HFILL } },
		{ &hf_fragment_overlap_conflicts, { "Conflicting data in overlap",
						    ROCEV2_FILTER ".msg.fragment.overlap.conflicts", FT_BOOLEAN,
						    BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fragment_multiple_tails, { "Multiple Last packets", ROCEV2_FILTER ".msg.fragment.multiple_tails",
						 FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fragment_too_long, { "Packet beyond the Last", ROCEV2_FILTER ".msg.fragment.too_long_fragment",
					   FT_BOOLEAN, BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fragment_error, { "Reassembly error", ROCEV2_FILTER ".msg.fragment.error", FT_FRAMENUM,
					BASE_NONE, NULL, 0, NULL, HFILL } },
		{ &hf_fragment_count, { "Packet count", ROCEV2_FILTER ".msg.fragment.count", FT_UINT32, BASE_DEC,
					NULL, 0, NULL, HFILL } },
		{ &hf_reassembled_in, { "Reassembled in", ROCEV2_FILTER ".msg.reassembled_in", FT_FRAMENUM, BASE_NONE,
					NULL, 0, "The frame that completed the message", HFILL } },
		{ &hf_reassembled_length, { "Reassembled length", ROCEV2_FILTER ".msg.reassembled.length", FT_UINT32,
					    BASE_DEC, NULL, 0, "The message's payload in bytes", HFILL } },
		{ &hf_reassembled_data, { "Reassembled data", ROCEV2_FILTER ".msg.reassembled.data", FT_BYTES,
					  BASE_NONE, NULL, 0, NULL, HFILL } },
	};
	static int *ett[] = { &ett_msg, &ett_fragment, &ett_fragments };
	static ei_register_info ei[] = {
		{ &ei_incomplete, { ROCEV2_FILTER ".msg.incomplete", PI_SEQUENCE, PI_WARN,
				    "Message with a hole, not reassembled", EXPFILL } },
	};
	proto = proto_id;
	proto_register_field_array(proto_id, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto_id), ei, array_length(ei));
	reassembly_table_register(&msg_table, &addresses_reassembly_table_functions);
	state.qps = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), qp_key_hash, qp_key_equal);
	register_init_routine(reset);
	prefs_register_bool_preference(module, "reassemble", "Reassemble SEND and RDMA WRITE messages",
				       "Put the packets of a SEND or RDMA WRITE message of several packets together "
				       "per QP by PSN, link each to its message, and offer a whole SEND message to "
				       "the ULP dissectors",
				       &reassemble_pref);
}
