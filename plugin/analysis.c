/*
 * The plugin side of the per-QP analysis: libroce's flow module does the
 * judging; here its records live in file-scope wmem maps, each packet's
 * result is kept in the packet's record (made on the first pass, found by
 * frame number on later ones), and the results become generated tree
 * items, Info tags and expert infos.
 */
#include "analysis.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>

static int hf_analysis = -1;
static int hf_class = -1;
static int hf_qp = -1;
static int hf_xrc_srqs = -1;
static int hf_xrc_srqn = -1;
static int hf_flag[ROCE_FLOW_FLAG_COUNT];
static int hf_value[ROCE_FLOW_V_COUNT];
static int ett_analysis = -1;
/* The analysis fields' descriptors (registration data): whether a filter
 * names one is a look at each, cheaper than a registry lookup apiece. */
enum { ANALYSIS_FIXED_FIELDS = 5 }; /* hf_analysis, hf_class, hf_qp, hf_xrc_srqs, hf_xrc_srqn; then the flags, then the values */
static struct {
	header_field_info *info[ANALYSIS_FIXED_FIELDS + ROCE_FLOW_FLAG_COUNT + ROCE_FLOW_V_COUNT];
	unsigned n;
} analysis_fields;

/* What the analysis knows about the capture as a whole (file scope). */
struct capture_state {
	uint64_t last_ts_ns; /* the newest packet's time seen on the first pass */
	bool finished;       /* the windows still open at the end were closed */
};
static struct capture_state *capture;

/* The packets' records by frame number (file scope; see frame_slot). */
struct frame_table;
static struct frame_table *frames;

/* The packets' records are carved from blocks of this size (file scope):
 * one allocation header per block, not per packet. */
#define RECORD_BLOCK 65536u
static struct {
	uint8_t *next;
	size_t left;
} record_block;


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

/* The flow records, each stored after its key in one allocation, found by
 * an open-addressing table of (hash, record) slots probed linearly: a
 * lookup touches a slot and the key beside the record it returns. Every
 * packet looks its direction up, and with thousands of QPs most lookups
 * are of a direction not seen just before. File-scoped. */
struct rkey {
	uint32_t len;
	uint8_t bytes[ROCE_FLOW_KEY_MAX];
};
/* The record follows its key, 8-byte aligned. */
#define RKEY_SIZE ((sizeof(struct rkey) + 7u) & ~(size_t)7u)

struct record_slot {
	guint hash;
	struct rkey *key; /* NULL: empty */
};

static struct {
	struct record_slot *slot;
	size_t mask;  /* slots - 1, slots a power of two */
	size_t count; /* records stored; the table grows past half full */
} records;

#define FIRST_RECORD_SLOTS 1024u

static void records_grow(void)
{
	size_t n = records.slot ? (records.mask + 1) * 2 : FIRST_RECORD_SLOTS;
	struct record_slot *s = wmem_alloc0(wmem_file_scope(), n * sizeof *s);
	for (size_t i = 0; records.slot && i <= records.mask; i++) {
		if (!records.slot[i].key)
			continue;
		size_t j = records.slot[i].hash & (n - 1);
		while (s[j].key)
			j = (j + 1) & (n - 1);
		s[j] = records.slot[i];
	}
	if (records.slot)
		wmem_free(wmem_file_scope(), records.slot);
	records.slot = s;
	records.mask = n - 1;
}

static void *record(void *ctx, const void *key, size_t klen, size_t size)
{
	(void)ctx;
	if (klen > ROCE_FLOW_KEY_MAX)
		return NULL;
	if (!records.slot || (records.count + 1) * 2 > records.mask + 1)
		records_grow();
	guint h = rocev2_hash_bytes(key, klen);
	size_t i = h & records.mask;
	for (; records.slot[i].key; i = (i + 1) & records.mask) {
		struct rkey *k = records.slot[i].key;
		if (records.slot[i].hash == h && k->len == klen && !memcmp(k->bytes, key, klen))
			return (uint8_t *)k + RKEY_SIZE;
	}
	struct rkey *k = wmem_alloc0(wmem_file_scope(), RKEY_SIZE + size);
	k->len = (uint32_t)klen;
	memcpy(k->bytes, key, klen);
	records.slot[i].hash = h;
	records.slot[i].key = k;
	records.count++;
	return (uint8_t *)k + RKEY_SIZE;
}

/* The file scope is gone: so is the state that lived in it. */
static void forget_file_state(void)
{
	records.slot = NULL;
	records.mask = 0;
	records.count = 0;
	capture = NULL;
	frames = NULL;
	record_block.next = NULL;
	record_block.left = 0;
}

/* The analysis is fed each packet with the place of its record as the
 * cookie: the record is made after the analysis of its packet, and is
 * found there when later packets bring results for it. */
static struct rocev2_packet *cookie_record(void *cookie)
{
	struct rocev2_packet **place = cookie;
	return place ? *place : NULL;
}

static void answered(void *ctx, void *cookie, const struct roce_flow_answer *a)
{
	(void)ctx;
	struct rocev2_packet *rp = cookie_record(cookie);
	if (rp && !rp->response_in)
		rp->response_in = a->response_frame;
}

/* ---- A packet's values, packed ---- */

static size_t leb128_put(uint8_t *p, uint64_t x)
{
	size_t n = 0;
	do {
		uint8_t b = x & 0x7F;
		x >>= 7;
		p[n++] = b | (x ? 0x80 : 0);
	} while (x);
	return n;
}

static uint64_t leb128_get(const uint8_t **p)
{
	uint64_t x = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		x |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80))
			break;
	}
	return x;
}

/* slots are 64 bits wide in the packet's record, like has. */
_Static_assert(ROCE_FLOW_V_COUNT <= 64, "a packet's value slots fit in 64 bits");

static bool is_late(unsigned v)
{
	return ROCE_FLOW_LATE_VALUES >> v & 1;
}

/* The bytes of the LEB128 number at p. */
static size_t leb128_len(const uint8_t *p)
{
	size_t n = 1;
	while (n < 10 && (p[n - 1] & 0x80))
		n++;
	return n;
}

/* Where value v is in the packet's values (v must be in its slots). */
static uint8_t *values(const struct rocev2_packet *rp)
{
	return (uint8_t *)rp->tail + rocev2_part_size(rp->part) + rp->n_findings * sizeof(struct roce_finding);
}

static uint8_t *value_at(const struct rocev2_packet *rp, enum roce_flow_value v)
{
	uint8_t *p = values(rp);
	for (uint64_t below = rp->slots & ((UINT64_C(1) << v) - 1); below; below &= below - 1)
		p += is_late((unsigned)__builtin_ctzll(below)) ? 8 : leb128_len(p);
	return p;
}

/* A value of an earlier packet known only now (the rate after a CNP). */
static void late(void *ctx, void *cookie, enum roce_flow_value v, uint64_t value)
{
	(void)ctx;
	struct rocev2_packet *rp = cookie_record(cookie);
	if (!rp || !rp->analysed || (unsigned)v >= ROCE_FLOW_V_COUNT || !(rp->slots & (UINT64_C(1) << v)) || !is_late(v))
		return;
	memcpy(value_at(rp, v), &value, sizeof value);
	rp->late_pending = false;
}

/* A direction's rings: reached through their direction, so no key; the
 * ones larger rings replace go back to the file scope for reuse. */
static void *ring_alloc(void *ctx, size_t size)
{
	(void)ctx;
	return wmem_alloc0(wmem_file_scope(), size);
}

static void ring_release(void *ctx, void *mem, size_t size)
{
	(void)ctx;
	(void)size;
	wmem_free(wmem_file_scope(), mem);
}

static const struct roce_flow_env env = {
	.record = record, .answered = answered, .late = late, .alloc = ring_alloc, .release = ring_release,
};

const struct roce_flow_env *rocev2_flow_env(void)
{
	return &env;
}

bool rocev2_flow_value(const struct rocev2_packet *rp, enum roce_flow_value v, uint64_t *out)
{
	if (!rp->analysed || (unsigned)v >= ROCE_FLOW_V_COUNT || !(rp->slots & (UINT64_C(1) << v)))
		return false;
	const uint8_t *p = value_at(rp, v);
	if (is_late(v)) {
		if (rp->late_pending)
			return false;
		memcpy(out, p, sizeof *out);
	} else {
		*out = leb128_get(&p);
	}
	return true;
}

/* The values of a result as the record keeps them, with room for the
 * LATE value it awaits (the rate after a CNP); returns their bytes. */
static size_t pack(const struct roce_flow_result *r, uint64_t slots, uint8_t *out)
{
	size_t n = 0;
	for (; slots; slots &= slots - 1) { /* the values present, in order */
		unsigned v = (unsigned)__builtin_ctzll(slots);
		if (is_late(v)) {
			uint64_t x = r->has & (UINT64_C(1) << v) ? r->value[v] : 0;
			memcpy(out + n, &x, sizeof x);
			n += sizeof x;
		} else {
			n += leb128_put(out + n, r->value[v]);
		}
	}
	return n;
}

/* ---- The packets' records ----
 *
 * By frame number, in a table of chunks of pointers allocated as frames
 * with a record come: a pointer a frame, where p_add_proto_data costs a
 * list node and a record of its own. A frame with a second RoCEv2 layer
 * (a packet inside another's payload) keeps that one's record with
 * p_add_proto_data. */
#define FRAMES_PER_CHUNK 4096u

struct frame_table {
	struct rocev2_packet ***chunks; /* by frame number / FRAMES_PER_CHUNK */
	uint32_t n_chunks;
};

static struct rocev2_packet **frame_slot(uint32_t num, bool grow)
{
	uint32_t c = num / FRAMES_PER_CHUNK;
	if (!frames) {
		if (!grow)
			return NULL;
		frames = wmem_new0(wmem_file_scope(), struct frame_table);
	}
	if (c >= frames->n_chunks) {
		if (!grow)
			return NULL;
		uint32_t n = frames->n_chunks ? frames->n_chunks : 16;
		while (n <= c)
			n *= 2;
		struct rocev2_packet ***chunks = wmem_alloc0(wmem_file_scope(), n * sizeof *chunks);
		if (frames->n_chunks)
			memcpy(chunks, frames->chunks, frames->n_chunks * sizeof *chunks);
		wmem_free(wmem_file_scope(), frames->chunks);
		frames->chunks = chunks;
		frames->n_chunks = n;
	}
	if (!frames->chunks[c]) {
		if (!grow)
			return NULL;
		frames->chunks[c] = wmem_alloc0(wmem_file_scope(), FRAMES_PER_CHUNK * sizeof *frames->chunks[c]);
	}
	return &frames->chunks[c][num % FRAMES_PER_CHUNK];
}

/* A record's memory, 8-byte aligned; records live as long as the file. */
static struct rocev2_packet *record_alloc(size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (size > RECORD_BLOCK / 4)
		return wmem_alloc(wmem_file_scope(), size);
	if (record_block.left < size) {
		record_block.next = wmem_alloc(wmem_file_scope(), RECORD_BLOCK);
		record_block.left = RECORD_BLOCK;
	}
	void *p = record_block.next;
	record_block.next += size;
	record_block.left -= size;
	return p;
}

struct rocev2_packet *rocev2_packet_get(packet_info *pinfo)
{
	if (!pinfo->fd->visited)
		return NULL;
	struct rocev2_packet **slot = frame_slot(pinfo->num, false);
	if (slot && *slot && (*slot)->layer == (uint8_t)pinfo->curr_layer_num)
		return *slot;
	return p_get_proto_data(wmem_file_scope(), pinfo, proto_rocev2, pinfo->curr_layer_num);
}

struct rocev2_packet **rocev2_packet_place(packet_info *pinfo)
{
	struct rocev2_packet **slot = frame_slot(pinfo->num, true);
	if (!*slot || (*slot)->layer == (uint8_t)pinfo->curr_layer_num)
		return slot;
	/* A second RoCEv2 layer in the frame: a place of its own. */
	return wmem_new0(wmem_file_scope(), struct rocev2_packet *);
}

struct rocev2_packet *rocev2_packet_new(packet_info *pinfo, struct rocev2_packet **place,
					enum rocev2_packet_part part, const struct roce_pkt *t,
					const struct roce_flow_result *r)
{
	uint8_t packed[ROCE_FLOW_V_COUNT * 10];
	uint64_t slots = 0, late_slots = 0;
	size_t n = 0, fsize = 0;
	if (r) {
		late_slots = t->op && t->op->kind == ROCE_K_CNP && r->dir ? ROCE_FLOW_HAS(RATE_AFTER) : 0;
		slots = r->has | late_slots;
		n = pack(r, slots, packed);
		fsize = r->n_findings * sizeof *r->findings;
	}
	size_t psize = rocev2_part_size(part);
	struct rocev2_packet *rp = record_alloc(sizeof *rp + psize + fsize + n);
	memset(rp, 0, sizeof *rp + psize);
	rp->layer = (uint8_t)pinfo->curr_layer_num;
	rp->part = (uint8_t)part;
	if (r) {
		rp->analysed = true;
		rp->cls = (uint8_t)r->cls;
		rp->flags = r->flags;
		rp->dir = r->dir;
		rp->slots = slots;
		rp->late_pending = late_slots && !(r->has & late_slots);
		rp->n_findings = (uint8_t)r->n_findings;
		uint8_t *after = (uint8_t *)rp->tail + psize;
		if (fsize)
			memcpy(after, r->findings, fsize);
		memcpy(after + fsize, packed, n);
	}
	*place = rp;
	if (place != frame_slot(pinfo->num, false))
		p_add_proto_data(wmem_file_scope(), pinfo, proto_rocev2, pinfo->curr_layer_num, rp);
	return rp;
}

bool rocev2_analyse(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet **place,
		    struct roce_flow_result *r)
{
	uint8_t ipv;
	if (t->rocev1)
		ipv = 6; /* RoCE v1: the GIDs of its GRH (roce_flow_input_from) */
	else if (pinfo->src.type == AT_IPv4 && pinfo->dst.type == AT_IPv4)
		ipv = 4;
	else if (pinfo->src.type == AT_IPv6 && pinfo->dst.type == AT_IPv6)
		ipv = 6;
	else
		return false; /* the analysis keys QPs by IP address */
	struct roce_flow_input in = {
		t, ipv, pinfo->src.data, pinfo->dst.data, (uint16_t)pinfo->srcport, pinfo->num,
		(uint64_t)pinfo->abs_ts.secs * 1000000000u + (uint64_t)pinfo->abs_ts.nsecs,
		(unsigned)rocev2_prefs.pmtu, place, pinfo->fd->pkt_len, false,
	};
	if (t->rocev1 && !roce_flow_input_from(&in, t))
		return false;
	roce_flow_packet(&env, &in, r);
	if (!capture)
		capture = wmem_new0(wmem_file_scope(), struct capture_state);
	if (in.ts_ns > capture->last_ts_ns)
		capture->last_ts_ns = in.ts_ns;
	return true;
}

void rocev2_analysis_finish(void)
{
	/* The first pass is over: what waited for later packets ends with the
	 * capture (the windows after the last CNPs). */
	if (capture && !capture->finished) {
		capture->finished = true;
		roce_flow_finish(&env, capture->last_ts_ns);
	}
}

void rocev2_analysis_info(const struct rocev2_packet *rp, char *info, size_t size)
{
	if (!rp->analysed)
		return;
	size_t at = strlen(info);
	const char *cls = NULL;
	switch (rp->cls) {
	case ROCE_FLOW_GAP: cls = " [PSN gap]"; break;
	case ROCE_FLOW_RETRANSMISSION: cls = " [Retransmission]"; break;
	case ROCE_FLOW_OUT_OF_ORDER: cls = " [Out-of-order]"; break;
	default: break;
	}
	if (cls && at < size)
		at += (size_t)snprintf(info + at, size - at, "%s", cls);
	uint64_t index, count;
	if (at < size && rocev2_flow_value(rp, ROCE_FLOW_V_READ_COUNT, &count) &&
	    rocev2_flow_value(rp, ROCE_FLOW_V_READ_INDEX, &index))
		snprintf(info + at, size - at, " [READ response %u/%u]", (unsigned)index, (unsigned)count);
}

static proto_item *gen(proto_item *ti)
{
	proto_item_set_generated(ti);
	return ti;
}

static void add_value(proto_tree *at, tvbuff_t *tvb, enum roce_flow_value v, uint64_t x)
{
	switch (roce_flow_value_info(v)->kind) {
	case ROCE_FLOW_KIND_TIME: {
		nstime_t dt = { (time_t)(x / 1000000000u), (int)(x % 1000000000u) };
		gen(proto_tree_add_time(at, hf_value[v], tvb, 0, 0, &dt));
		break;
	}
	case ROCE_FLOW_KIND_BYTES:
	case ROCE_FLOW_KIND_RATE:
		gen(proto_tree_add_uint64(at, hf_value[v], tvb, 0, 0, x));
		break;
	default:
		gen(proto_tree_add_uint(at, hf_value[v], tvb, 0, 0, (uint32_t)x));
		break;
	}
}

/* Whether the analysis items are wanted: Wireshark would keep one of
 * those this packet has (rocev2_item_kept: a tree that is shown, or a
 * filter, column or tap that names it). A tree built only to filter on
 * other fields skips them all; only the packet's own items are looked at
 * (a look at each analysis field would touch some fifty descriptors a
 * packet). */
static bool analysis_wanted(proto_tree *tree, const struct rocev2_packet *rp)
{
	for (unsigned i = 0; i < ANALYSIS_FIXED_FIELDS; i++)
		if (rocev2_item_kept(tree, analysis_fields.info[i]))
			return true;
	for (uint32_t flags = rp->flags; flags; flags &= flags - 1)
		if (rocev2_item_kept(tree, analysis_fields.info[ANALYSIS_FIXED_FIELDS + __builtin_ctz(flags)]))
			return true;
	uint64_t slots = rp->slots | (rp->response_in ? ROCE_FLOW_HAS(RESPONSE_IN) : 0);
	for (; slots; slots &= slots - 1)
		if (rocev2_item_kept(tree, analysis_fields.info[ANALYSIS_FIXED_FIELDS + ROCE_FLOW_FLAG_COUNT +
								__builtin_ctzll(slots)]))
			return true;
	return false;
}

void rocev2_analysis_tree(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, tvbuff_t *ds,
			  int base, const struct rocev2_packet *rp)
{
	if (!rp->analysed)
		return;
	const struct rocev2_packet *f = rp;
	const struct roce_finding *findings = rocev2_flow_findings(rp);
	for (unsigned i = 0; i < f->n_findings; i++)
		rocev2_add_finding(tree, pinfo, ds, base, &findings[i], NULL);
	if (!tree || (f->cls == ROCE_FLOW_UNTRACKED && !f->dir) || !analysis_wanted(tree, rp))
		return;
	proto_item *ti = gen(proto_tree_add_item(tree, hf_analysis, tvb, 0, 0, ENC_NA));
	proto_tree *at = proto_item_add_subtree(ti, ett_analysis);
	if (f->cls != ROCE_FLOW_UNTRACKED)
		gen(proto_tree_add_uint(at, hf_class, tvb, 0, 0, f->cls));
	/* Both QPs of the connection, for filters on either ("port" of the
	 * Conversations table). */
	uint64_t src_qpn;
	if (f->dir) {
		struct roce_flow_dir_info di;
		roce_flow_dir_info(f->dir, &di);
		proto_item_set_hidden(gen(proto_tree_add_uint(at, hf_qp, tvb, 0, 0, di.dest_qpn)));
		if (rocev2_flow_value(rp, ROCE_FLOW_V_SRC_QPN, &src_qpn) || (src_qpn = di.src_qpn) != ROCE_FLOW_QPN_UNKNOWN)
			proto_item_set_hidden(gen(proto_tree_add_uint(at, hf_qp, tvb, 0, 0, (uint32_t)src_qpn)));
		/* XRC: the SRQs the connection's requests named, as the
		 * direction knows them now (on a second pass, all of them). */
		if (di.n_xrc_srqs) {
			gen(proto_tree_add_uint(at, hf_xrc_srqs, tvb, 0, 0, di.n_xrc_srqs));
			for (unsigned i = 0; i < di.n_xrc_srqs; i++)
				gen(proto_tree_add_uint(at, hf_xrc_srqn, tvb, 0, 0, di.xrc_srqns[i]));
		}
	}
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++)
		if (f->flags & (1u << i))
			gen(proto_tree_add_item(at, hf_flag[i], tvb, 0, 0, ENC_NA));
	/* The values in one walk, in value order; the response link is the
	 * request's own field. */
	uint64_t slots = rp->slots & ~ROCE_FLOW_HAS(RESPONSE_IN);
	if (rp->response_in)
		slots |= ROCE_FLOW_HAS(RESPONSE_IN);
	const uint8_t *p = values(rp);
	for (; slots; slots &= slots - 1) {
		unsigned v = (unsigned)__builtin_ctzll(slots);
		uint64_t x;
		if (v == ROCE_FLOW_V_RESPONSE_IN) {
			gen(proto_tree_add_uint(at, hf_value[v], tvb, 0, 0, rp->response_in));
			if (rp->slots & ROCE_FLOW_HAS(RESPONSE_IN))
				p += is_late(v) ? 8 : leb128_len(p);
			continue;
		}
		if (is_late(v)) {
			memcpy(&x, p, sizeof x);
			p += 8;
			if (rp->late_pending)
				continue;
		} else {
			x = leb128_get(&p);
		}
		add_value(at, tvb, (enum roce_flow_value)v, x);
	}
}

static void field_of(hf_register_info *h, int *id, const struct roce_flow_item_info *info, bool flag)
{
	static const enum ftenum types[] = {
		[ROCE_FLOW_KIND_FRAME] = FT_FRAMENUM, [ROCE_FLOW_KIND_TIME] = FT_RELATIVE_TIME,
		[ROCE_FLOW_KIND_COUNT] = FT_UINT32,   [ROCE_FLOW_KIND_BYTES] = FT_UINT64,
		[ROCE_FLOW_KIND_PSN] = FT_UINT24,     [ROCE_FLOW_KIND_QPN] = FT_UINT24,
		[ROCE_FLOW_KIND_RATE] = FT_UINT64,
	};
	enum ftenum type = flag ? FT_NONE : types[info->kind];
	int display = BASE_NONE;
	if (type == FT_UINT32 || type == FT_UINT64 || type == FT_UINT24)
		display = info->kind == ROCE_FLOW_KIND_QPN ? BASE_HEX : BASE_DEC;
	const void *strings = NULL;
	if (!strcmp(info->abbrev, "request_in"))
		strings = FRAMENUM_TYPE(FT_FRAMENUM_REQUEST);
	else if (!strcmp(info->abbrev, "response_in"))
		strings = FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE);
	else if (!strcmp(info->abbrev, "analysis.retransmission_of"))
		strings = FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV);
	hf_register_info r = { id, { info->label, g_strdup_printf(ROCEV2_FILTER ".%s", info->abbrev), type, display,
				     strings, 0, info->description, HFILL } };
	*h = r;
}

void rocev2_register_analysis(int proto)
{
	static hf_register_info fixed[] = {
		{ &hf_analysis, { "Flow analysis", ROCEV2_FILTER ".analysis", FT_NONE, BASE_NONE, NULL, 0,
				  "This packet in the context of its QP", HFILL } },
		{ &hf_class, { "Class", ROCEV2_FILTER ".analysis.class", FT_UINT8, BASE_DEC, VALS(class_names), 0,
			       "Where this packet stands in its QP's PSN order", HFILL } },
		{ &hf_qp, { "QP", ROCEV2_FILTER ".analysis.qp", FT_UINT24, BASE_HEX, NULL, 0,
			    "Either QP of the connection: the destination QP, and the source QP when known", HFILL } },
		{ &hf_xrc_srqs, { "XRC SRQs", ROCEV2_FILTER ".analysis.xrc.srqs", FT_UINT32, BASE_DEC, NULL, 0,
				  "How many XRC SRQs the requests of this XRC connection named (XRCETH)", HFILL } },
		{ &hf_xrc_srqn, { "XRC SRQ", ROCEV2_FILTER ".analysis.xrc.srqn", FT_UINT24, BASE_HEX, NULL, 0,
				  "An XRC SRQ the requests of this XRC connection named (XRCETH), in the order first seen: a target QP may serve several", HFILL } },
	};
	/* The flags and values from libroce's vocabulary (flowvals.def): the
	 * registration lives as long as the program. */
	hf_register_info *hf = g_new0(hf_register_info, ROCE_FLOW_FLAG_COUNT + ROCE_FLOW_V_COUNT);
	unsigned n = 0;
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++) {
		hf_flag[i] = -1;
		field_of(&hf[n++], &hf_flag[i], roce_flow_flag_info((enum roce_flow_flag)i), true);
	}
	for (unsigned v = 0; v < ROCE_FLOW_V_COUNT; v++) {
		hf_value[v] = -1;
		field_of(&hf[n++], &hf_value[v], roce_flow_value_info((enum roce_flow_value)v), false);
	}
	static int *ett[] = { &ett_analysis };
	proto_register_field_array(proto, fixed, array_length(fixed));
	proto_register_field_array(proto, hf, (int)n);
	proto_register_subtree_array(ett, array_length(ett));
	register_cleanup_routine(forget_file_state);
	int *ids[] = { &hf_analysis, &hf_class, &hf_qp, &hf_xrc_srqs, &hf_xrc_srqn };
	for (size_t i = 0; i < array_length(ids); i++)
		analysis_fields.info[analysis_fields.n++] = proto_registrar_get_nth((guint)*ids[i]);
	for (unsigned i = 0; i < ROCE_FLOW_FLAG_COUNT; i++)
		analysis_fields.info[analysis_fields.n++] = proto_registrar_get_nth((guint)hf_flag[i]);
	for (unsigned v = 0; v < ROCE_FLOW_V_COUNT; v++)
		analysis_fields.info[analysis_fields.n++] = proto_registrar_get_nth((guint)hf_value[v]);
}
