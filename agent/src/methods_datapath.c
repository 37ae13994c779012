/*
 * The data path: posting send and receive work requests, and polling a CQ
 * (a poll with a timeout waits without blocking the main loop, where the
 * soft DUT runs).
 */
#include "methods.h"

#include <string.h>

#define MAX_WR_SGE AGENT_MAX_WR_SGE

void method_post_recv(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	struct be_sge sge[MAX_WR_SGE];
	struct be_recv_wr wr = { .sge = sge };
	if (!h || !param_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr.wr_id) || !param_sges(r, sge, MAX_WR_SGE, &wr.num_sge))
		return;
	if (h->srq) {
		req_fail(r, AE_INVALID_STATE, "params.qp: QP %u takes its receives from SRQ %u; post them with post_srq_recv",
			 h->id, h->srq);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->post_recv(h->obj, &wr, &err))
		req_fail_backend(r, &err);
}

static const char *const flush_level_words[] = { "RANGE", "REGION", NULL };

static int flush_level_value(const char *name)
{
	for (int i = 0; flush_level_words[i]; i++)
		if (strcmp(flush_level_words[i], name) == 0)
			return i == 0 ? BE_FLUSH_RANGE : BE_FLUSH_REGION;
	return -1;
}

/* params.placement: a list of GLOBAL and PERSISTENT (FETH placement type). */
static bool param_placement(struct req *r, unsigned *out)
{
	JsonNode *n = req_param(r, "placement");
	*out = 0;
	if (!n)
		return req_fail(r, AE_BAD_REQUEST, "params.placement: missing (a list of GLOBAL, PERSISTENT)");
	JsonArray *a = JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
	if (!a || json_array_get_length(a) == 0)
		return req_fail(r, AE_BAD_REQUEST, "params.placement: must be a non-empty list of GLOBAL, PERSISTENT");
	for (guint i = 0; i < json_array_get_length(a); i++) {
		JsonNode *e = json_array_get_element(a, i);
		const char *w = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING ? json_node_get_string(e) : NULL;
		if (w && strcmp(w, "GLOBAL") == 0)
			*out |= BE_FLUSH_GLOBAL;
		else if (w && strcmp(w, "PERSISTENT") == 0)
			*out |= BE_FLUSH_PERSISTENT;
		else
			return req_fail(r, AE_BAD_REQUEST, "params.placement[%u]: %.60s is no placement type; expected GLOBAL or PERSISTENT",
					i, w ? w : "(not a string)");
	}
	return true;
}

/* What BIND_MW, ATOMIC_WRITE and FLUSH take besides the common members;
 * each is refused on the other opcodes, so that a slip is named. */
static bool placement_params(struct req *r, struct handle *qp, struct be_send_wr *wr)
{
	static const char *const own[][6] = {
		[BE_WR_BIND_MW] = { "mw", "mr", "offset", "access", "zero_based", NULL },
		[BE_WR_ATOMIC_WRITE] = { "value", NULL },
		[BE_WR_FLUSH] = { "placement", "level", NULL },
	};
	static const char *const all[] = { "mw", "mr", "offset", "access", "zero_based", "value", "placement", "level", "length", NULL };
	for (int i = 0; all[i]; i++) {
		if (!req_param(r, all[i]))
			continue;
		bool mine = false;
		if ((unsigned)wr->opcode < G_N_ELEMENTS(own))
			for (int j = 0; own[wr->opcode][j]; j++)
				mine |= strcmp(own[wr->opcode][j], all[i]) == 0;
		if (strcmp(all[i], "length") == 0)
			mine = wr->opcode == BE_WR_BIND_MW || wr->opcode == BE_WR_FLUSH;
		if (!mine)
			return req_fail(r, AE_BAD_REQUEST, "params.%s: not a member of a %s work request", all[i],
					ap_wr_opcode_name((enum ap_wr_opcode)wr->opcode));
	}
	if (req_param(r, "remote_srqn") && qp->qp_type != BE_QPT_XRC_SEND)
		return req_fail(r, AE_BAD_REQUEST, "params.remote_srqn: only an XRC_SEND QP's requests name an XRC SRQ");
	switch (wr->opcode) {
	case BE_WR_BIND_MW: {
		struct handle *mw = session_get(r, "mw", H_MW, true);
		bool unbind;
		if (!mw || !param_mw_bind(r, &wr->bind, &unbind))
			return false;
		if (mw->mw_type != 2)
			return req_fail(r, AE_BAD_REQUEST, "params.mw: MW %u is of type 1; bind it with bind_mw", mw->id);
		if (unbind)
			return req_fail(r, AE_BAD_REQUEST, "params.length: a type 2 window is unbound with LOCAL_INV, not a zero-length bind");
		if (!req_param(r, "rkey"))
			return req_fail(r, AE_BAD_REQUEST, "params.rkey: missing (the window's new rkey)");
		wr->mw = mw->obj;
		return true;
	}
	case BE_WR_ATOMIC_WRITE:
		return param_u64(r, "value", true, 0, G_MAXUINT64, &wr->atomic_value);
	case BE_WR_FLUSH: {
		int level = param_word(r, "level", true, flush_level_words, flush_level_value, -1);
		return level >= 0 && param_placement(r, &wr->flush_type) &&
		       param_u32(r, "length", false, 0, 0xFFFFFFFFu, &wr->flush_length) &&
		       ((wr->flush_level = (enum be_flush_level)level), true);
	}
	default:
		return true;
	}
}

void method_post_send(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_sge sge[MAX_WR_SGE];
	struct be_send_wr wr = { .sge = sge };
	int op = param_word(r, "opcode", true, ap_wr_opcode_words, ap_wr_opcode_by_name, -1);
	if (op < 0)
		return;
	wr.opcode = (enum be_wr_opcode)op;
	struct handle *ah = session_get(r, "ah", H_AH, false);
	if (r->err)
		return;
	if (!param_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr.wr_id) || !param_sges(r, sge, MAX_WR_SGE, &wr.num_sge) ||
	    !param_bool(r, "signaled", true, &wr.signaled) || !param_bool(r, "solicited", false, &wr.solicited) ||
	    !param_u32(r, "imm_data", false, 0, 0xFFFFFFFFu, &wr.imm_data) ||
	    !param_u32(r, "invalidate_rkey", false, 0, 0xFFFFFFFFu, &wr.invalidate_rkey) ||
	    !param_u64(r, "remote_addr", false, 0, G_MAXUINT64, &wr.remote_addr) ||
	    !param_u32(r, "rkey", false, 0, 0xFFFFFFFFu, &wr.rkey) ||
	    !param_u64(r, "compare_add", false, 0, G_MAXUINT64, &wr.compare_add) ||
	    !param_u64(r, "swap", false, 0, G_MAXUINT64, &wr.swap) ||
	    !param_u32(r, "remote_qpn", false, 0, 0xFFFFFF, &wr.remote_qpn) ||
	    !param_u32(r, "remote_qkey", false, 0, 0xFFFFFFFFu, &wr.remote_qkey) ||
	    !param_u32(r, "remote_srqn", false, 0, 0xFFFFFF, &wr.remote_srqn) || !placement_params(r, h, &wr))
		return;
	wr.ah = ah ? ah->obj : NULL;
	struct be_error err = { 0 };
	if (OPS(r)->post_send(h->obj, &wr, &err))
		req_fail_backend(r, &err);
}

static const char *wc_status_name(enum be_wc_status s)
{
	const char *n = ap_wc_status_name((enum ap_wc_status)s);
	return n ? n : ap_wc_status_name(AP_WC_GENERAL_ERR);
}

static const char *wc_opcode_name(enum be_wc_opcode o)
{
	const char *n = ap_wc_opcode_name((enum ap_wc_opcode)o);
	return n ? n : "UNKNOWN";
}

#define MAX_POLL 1024

/* Polls the CQ; returns the number of completions added to the result, or
 * -1 on a device error (r->err set). */
static int poll_into(struct req *r, struct handle *cq, unsigned max)
{
	struct be_wc wc[64];
	unsigned total = 0;
	while (total < max) {
		unsigned want = max - total < 64 ? max - total : 64, n = 0;
		struct be_error err = { 0 };
		if (OPS(r)->poll_cq(cq->obj, wc, want, &n, &err)) {
			req_fail_backend(r, &err);
			return -1;
		}
		for (unsigned i = 0; i < n; i++) {
			JsonBuilder *b = req_result(r);
			if (total == 0 && i == 0) {
				json_builder_set_member_name(b, "completions");
				json_builder_begin_array(b);
			}
			json_builder_begin_object(b);
			json_builder_set_member_name(b, "wr_id");
			json_add_u64(b, wc[i].wr_id);
			json_builder_set_member_name(b, "status");
			json_builder_add_string_value(b, wc_status_name(wc[i].status));
			json_builder_set_member_name(b, "opcode");
			json_builder_add_string_value(b, wc_opcode_name(wc[i].opcode));
			json_builder_set_member_name(b, "byte_len");
			json_builder_add_int_value(b, wc[i].byte_len);
			json_builder_set_member_name(b, "imm_data");
			json_builder_add_int_value(b, wc[i].imm_data);
			json_builder_set_member_name(b, "invalidate_rkey");
			json_builder_add_int_value(b, wc[i].invalidate_rkey);
			json_builder_set_member_name(b, "src_qp");
			json_builder_add_int_value(b, wc[i].src_qp);
			json_builder_set_member_name(b, "qp");
			gpointer hid = g_hash_table_lookup(r->s->qpns, GUINT_TO_POINTER(wc[i].qp_num));
			if (hid)
				json_builder_add_int_value(b, GPOINTER_TO_UINT(hid));
			else
				json_builder_add_null_value(b);
			json_builder_set_member_name(b, "wc_flags_raw");
			json_builder_add_int_value(b, wc[i].wc_flags_raw);
			json_builder_set_member_name(b, "wc_flags");
			json_builder_begin_array(b);
			if (wc[i].wc_flags & BE_WC_GRH)
				json_builder_add_string_value(b, "GRH");
			if (wc[i].wc_flags & BE_WC_WITH_IMM)
				json_builder_add_string_value(b, "WITH_IMM");
			if (wc[i].wc_flags & BE_WC_WITH_INV)
				json_builder_add_string_value(b, "WITH_INV");
			json_builder_end_array(b);
			json_builder_end_object(b);
		}
		total += n;
		if (n < want)
			break;
	}
	if (total)
		json_builder_end_array(r->result);
	return (int)total;
}

static void empty_completions(struct req *r)
{
	json_builder_set_member_name(req_result(r), "completions");
	json_builder_begin_array(r->result);
	json_builder_end_array(r->result);
}

void poll_wait_begin(struct req *r, enum wait_kind kind, unsigned max, uint32_t timeout_ms)
{
	/* Wait, without blocking the loop (the soft DUT runs in it). */
	struct session *s = r->s;
	s->poll.active = true;
	s->poll.kind = kind;
	s->poll.id = r->id ? json_node_copy(r->id) : NULL;
	s->poll.max = max;
	s->poll.deadline_us = g_get_monotonic_time() + (int64_t)timeout_ms * 1000;
	r->deferred = true;
	session_start_poll_timer(s);
}

void poll_wait_end(struct session *s, struct req *r)
{
	s->poll.active = false;
	session_send_reply(s, r);
	if (r->result)
		g_object_unref(r->result);
	if (s->poll.id)
		json_node_unref(s->poll.id);
	s->poll.id = NULL;
}

void method_poll_cq(struct req *r)
{
	struct handle *cq = session_get(r, "cq", H_CQ, true);
	uint32_t max, timeout;
	if (!cq || !param_u32(r, "max", false, 16, MAX_POLL, &max) ||
	    !param_u32(r, "timeout_ms", false, 0, AGENT_MAX_POLL_MS, &timeout))
		return;
	if (max == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.max: must be 1..%u", MAX_POLL);
		return;
	}
	int n = poll_into(r, cq, max);
	if (n != 0)
		return;
	if (timeout == 0) {
		empty_completions(r);
		return;
	}
	r->s->poll.cq = cq->id;
	poll_wait_begin(r, WAIT_CQ, max, timeout);
}

bool agent_poll_retry(struct session *s, bool final)
{
	if (s->poll.kind == WAIT_EVENTS)
		return agent_events_retry(s, final);
	struct req r = { .s = s, .id = s->poll.id };
	struct handle *cq = g_hash_table_lookup(s->handles, GUINT_TO_POINTER(s->poll.cq));
	int n = cq ? poll_into(&r, cq, s->poll.max) : 0;
	if (n == 0 && !final)
		return false;
	if (n == 0 && !r.err)
		empty_completions(&r);
	poll_wait_end(s, &r);
	return true;
}
