/*
 * What the device says about itself: its attributes and capabilities, its
 * ports, their GIDs, and their counters (raw, and as a snapshot with their
 * meanings, counters.c).
 */
#include "methods.h"
#include "roce/gid.h"
#include "counters.h"

void method_query_device(struct req *r)
{
	struct be_device_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(r->s), &a, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	result_str(r, "name", a.name);
	result_int(r, "vendor_id", a.vendor_id);
	result_int(r, "vendor_part_id", a.vendor_part_id);
	result_str(r, "fw_ver", a.fw_ver);
	result_int(r, "max_qp", a.max_qp);
	result_int(r, "max_qp_wr", a.max_qp_wr);
	result_int(r, "max_sge", a.max_sge);
	result_u64(r, "max_mr_size", a.max_mr_size);
	result_int(r, "max_qp_rd_atom", a.max_qp_rd_atom);
	result_int(r, "max_qp_init_rd_atom", a.max_qp_init_rd_atom);
	static const char *const atomic[] = { "NONE", "HCA", "GLOB" };
	result_str(r, "atomic_cap", atomic[a.atomic_cap <= BE_ATOMIC_GLOB ? a.atomic_cap : 0]);
	result_int(r, "max_raw_ipv6_qp", a.max_raw_ipv6_qp);
	result_int(r, "max_raw_ethy_qp", a.max_raw_ethy_qp);
	/* A capability that needs backend operations is listed only when the
	 * backend has them, and says the device has it. */
	const struct backend_ops *ops = OPS(r);
	if (!(ops->create_srq && ops->modify_srq && ops->query_srq && ops->destroy_srq && ops->post_srq_recv))
		a.caps &= ~(unsigned)BE_CAP_SRQ;
	if (!(ops->attach_mcast && ops->detach_mcast))
		a.caps &= ~(unsigned)BE_CAP_MCAST;
	if (!(ops->cm_join && ops->cm_leave))
		a.caps &= ~(unsigned)BE_CAP_CM_MCAST;
	if (!ops->get_async_events)
		a.caps &= ~(unsigned)BE_CAP_ASYNC_EVENTS;
	if (!(ops->alloc_mw && ops->dealloc_mw && ops->bind_mw))
		a.caps &= ~(unsigned)BE_CAP_MW1;
	if (!(ops->alloc_mw && ops->dealloc_mw))
		a.caps &= ~(unsigned)BE_CAP_MW2;
	/* XRC SRQs are SRQs: without them there is no XRC. */
	if (!(ops->alloc_xrcd && ops->dealloc_xrcd) || !(a.caps & BE_CAP_SRQ))
		a.caps &= ~(unsigned)BE_CAP_XRC;
	json_builder_set_member_name(req_result(r), "capabilities");
	json_builder_begin_array(r->result);
	for (unsigned i = 0; ap_capability_words[i]; i++)
		if (a.caps & (unsigned)ap_capability_by_name(ap_capability_words[i]))
			json_builder_add_string_value(r->result, ap_capability_words[i]);
	json_builder_end_array(r->result);
}

void method_query_port(struct req *r)
{
	uint32_t port;
	if (!param_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_port_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_port(BE(r->s), port, &a, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	static const char *const st[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };
	result_str(r, "state", (unsigned)a.state < 5 ? st[a.state] : "DOWN");
	result_int(r, "active_mtu", a.active_mtu);
	result_int(r, "max_mtu", a.max_mtu);
	result_int(r, "gid_tbl_len", a.gid_tbl_len);
	result_str(r, "link_layer", ap_link_layer_name(a.link_layer == BE_LINK_ETHERNET	    ? AP_LINK_ETHERNET
							: a.link_layer == BE_LINK_INFINIBAND ? AP_LINK_INFINIBAND
											     : AP_LINK_UNSPECIFIED));
	result_str(r, "netdev", a.netdev[0] ? a.netdev : NULL);
	result_int(r, "lid", a.lid);
	result_int(r, "lmc", a.lmc);
	result_int(r, "sm_lid", a.sm_lid);
	result_int(r, "sm_sl", a.sm_sl);
	result_int(r, "max_vl_num", a.max_vl_num);
	/* The capability mask by its bits' names; a bit the protocol does
	 * not name is BIT_n, so that nothing the device says is lost. */
	json_builder_set_member_name(r->result, "port_cap_flags");
	json_builder_begin_array(r->result);
	for (unsigned bit = 0; bit < 32; bit++) {
		if (!(a.cap_flags & (1u << bit)))
			continue;
		const char *name = ap_port_cap_name((enum ap_port_cap)(1u << bit));
		char other[16];
		if (!name) {
			g_snprintf(other, sizeof other, "BIT_%u", bit);
			name = other;
		}
		json_builder_add_string_value(r->result, name);
	}
	json_builder_end_array(r->result);
}

/* A GID type as the protocol names it. */
static const char *gid_type_word(enum be_gid_type t)
{
	switch (t) {
	case BE_GID_ROCE_V2: return ap_gid_type_name(AP_GID_RoCEv2);
	case BE_GID_ROCE_V1: return ap_gid_type_name(AP_GID_RoCEv1);
	case BE_GID_IB: return ap_gid_type_name(AP_GID_IB);
	default: return ap_gid_type_name(AP_GID_UNKNOWN);
	}
}

void method_list_gids(struct req *r)
{
	uint32_t port;
	if (!param_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_gid g[256];
	unsigned n = 0;
	struct be_error err = { 0 };
	if (OPS(r)->list_gids(BE(r->s), port, g, G_N_ELEMENTS(g), &n, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	json_builder_set_member_name(req_result(r), "gids");
	json_builder_begin_array(r->result);
	for (unsigned i = 0; i < n; i++) {
		char s[64];
		roce_gid_format(g[i].gid, s, sizeof s);
		json_builder_begin_object(r->result);
		json_builder_set_member_name(r->result, "index");
		json_builder_add_int_value(r->result, g[i].index);
		json_builder_set_member_name(r->result, "gid");
		json_builder_add_string_value(r->result, s);
		json_builder_set_member_name(r->result, "type");
		json_builder_add_string_value(r->result, gid_type_word(g[i].type));
		json_builder_end_object(r->result);
	}
	json_builder_end_array(r->result);
}

struct counters_ctx {
	JsonBuilder *b;
};

static void emit_counter(void *ctx, const char *name, uint64_t value)
{
	struct counters_ctx *c = ctx;
	json_builder_set_member_name(c->b, name);
	json_add_u64(c->b, value);
}

void method_read_counters(struct req *r)
{
	uint32_t port;
	if (!param_u32(r, "port", false, 1, 255, &port))
		return;
	JsonBuilder *b = req_result(r);
	json_builder_set_member_name(b, "counters");
	json_builder_begin_object(b);
	struct counters_ctx c = { b };
	struct be_error err = { 0 };
	int rc = OPS(r)->read_counters(BE(r->s), port, emit_counter, &c, &err);
	json_builder_end_object(b);
	if (rc)
		req_fail_backend(r, &err);
}

/* Every counter of the port at one moment, with its meaning (counters.c). */
void method_snapshot_counters(struct req *r)
{
	uint32_t port;
	if (!param_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_device_attr da;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(r->s), &da, &err)) {
		req_fail_backend(r, &err);
		return;
	}
	JsonBuilder *b = req_result(r);
	if (agent_counter_snapshot(b, OPS(r), BE(r->s), r->s->agent->factory->name, da.name, port, &err))
		req_fail_backend(r, &err);
}
