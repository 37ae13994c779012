/*
 * The runner's verbs-level steps (casesteps_verbs.c): the DUT's port as
 * query_port describes it, its GID table counted by the annex's types
 * (A17.4.1: IPv4, IPv6 or IB-GID), and the answer to an attempt at one of
 * IBA's raw datagram QPs. What the device said is the step's detail; the
 * results after '->' are checked or bound as 'dut query' does, each one
 * (every mismatch is shown), up to one the agent's reply lacks.
 */
#include "runner_ctx.h"

/* The run's port: the one the tester's QPs use. */
#define RUN_PORT 1

static const char *member_string(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);
	return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : NULL;
}

static JsonArray *member_array(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);
	return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static bool array_has(JsonArray *a, const char *word)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		JsonNode *n = json_array_get_element(a, i);
		if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING &&
		    !strcmp(json_node_get_string(n), word))
			return true;
	}
	return false;
}

/* A result the agent's reply lacks: the agent's, not the DUT's, doing. */
static void missing(struct step_out *o, const char *method, const char *key)
{
	o->st = S_ERROR;
	g_string_printf(o->detail, "%s: the agent's reply has no %s (an agent older than the tester?)", method, key);
}

void step_dut_port(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "port", RUN_PORT);
	if (!call(x, o, AP_M_query_port, p, &res))
		return;
	const char *ll = member_string(res, "link_layer");
	JsonArray *flags = member_array(res, "port_cap_flags");
	uint64_t lid = 0, lmc = 0, sm_lid = 0, sm_sl = 0, vls = 0;
	agent_get_u64(res, "lid", &lid);
	agent_get_u64(res, "lmc", &lmc);
	agent_get_u64(res, "sm_lid", &sm_lid);
	agent_get_u64(res, "sm_sl", &sm_sl);
	agent_get_u64(res, "max_vl_num", &vls);
	g_string_printf(o->detail, "port %d: link layer %s; LID 0x%04llx, LMC %llu, SM LID 0x%04llx, SM SL %llu, VL cap %llu "
			"(fields a RoCEv2 port ignores, A17.5); capability mask", RUN_PORT, ll ? ll : "?",
			(unsigned long long)lid, (unsigned long long)lmc, (unsigned long long)sm_lid, (unsigned long long)sm_sl,
			(unsigned long long)vls);
	for (guint i = 0; flags && i < json_array_get_length(flags); i++)
		g_string_append_printf(o->detail, "%s%s", i ? ", " : " ", json_array_get_string_element(flags, i));
	if (!flags || !json_array_get_length(flags))
		g_string_append(o->detail, " empty");
	for (unsigned i = 0; i < s->n_args && o->st != S_ERROR; i++) {
		const struct cl_arg *a = &s->args[i];
		if (a->id == CL_K_link_layer) {
			if (!ll) {
				missing(o, "query_port", "link_layer");
				break;
			}
			bool eq = ap_link_layer_by_name(ll) == a->v.word_id;
			if ((a->cmp == CL_EQ) != eq) {
				o->st = S_FAIL;
				g_string_append_printf(o->expected, "link layer %s %s; ", a->cmp == CL_EQ ? "=" : "!=", a->v.word);
				g_string_append_printf(o->observed, "link layer %s; ", ll);
			}
			continue;
		}
		uint64_t got;
		if (a->id == CL_K_client_reregistration || a->id == CL_K_ip_based_gids) {
			if (!flags) {
				missing(o, "query_port", "port_cap_flags");
				break;
			}
			got = array_has(flags, ap_port_cap_name(a->id == CL_K_client_reregistration ? AP_PORT_CLIENT_REG_SUP
												    : AP_PORT_IP_BASED_GIDS));
		} else if (!agent_get_u64(res, a->key, &got)) {
			missing(o, "query_port", a->key);
			break;
		}
		if (!check_number(x, a, got, o))
			break;
	}
	json_object_unref(res);
}

/* An entry's type as the annex names it (A17.4.1), derived as the Linux
 * RDMA core derives a GID's network type (rdma_gid_attr_network_type): a
 * RoCEv2 entry is IPv4 when its GID is IPv4-mapped, else IPv6; a RoCE v1
 * entry (libibverbs' IB on an InfiniBand port) is of the IB-GID type. */
enum annex_gid_type { GID_IPV4, GID_IPV6, GID_IB, GID_UNTYPED };

static enum annex_gid_type annex_type(const char *type, const uint8_t gid[16])
{
	switch (type ? ap_gid_type_by_name(type) : -1) {
	case AP_GID_RoCEv2: return roce_gid_is_ipv4(gid) ? GID_IPV4 : GID_IPV6;
	case AP_GID_RoCEv1:
	case AP_GID_IB: return GID_IB;
	default: return GID_UNTYPED;
	}
}

void step_dut_gids(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "port", RUN_PORT);
	if (!call(x, o, AP_M_list_gids, p, &res))
		return;
	JsonArray *gids = member_array(res, "gids");
	if (!gids) {
		missing(o, "list_gids", "gids");
		json_object_unref(res);
		return;
	}
	static const char *const names[] = { "IPv4", "IPv6", "IB-GID", "no type" };
	uint64_t n[4] = { 0 };
	GString *untyped = g_string_new("");
	g_string_printf(o->detail, "port %d's GID table:", RUN_PORT);
	guint total = json_array_get_length(gids);
	for (guint i = 0; i < total; i++) {
		JsonObject *g = json_array_get_object_element(gids, i);
		const char *text = g ? member_string(g, "gid") : NULL, *type = g ? member_string(g, "type") : NULL;
		uint8_t gid[16] = { 0 };
		uint64_t index = i;
		if (g)
			agent_get_u64(g, "index", &index);
		bool parsed = text && inet_pton(AF_INET6, text, gid) == 1;
		enum annex_gid_type t = parsed ? annex_type(type, gid) : GID_UNTYPED;
		n[t]++;
		/* Every entry is listed: a table of hundreds is cut by the
		 * report, not here. */
		g_string_append_printf(o->detail, "%s [%llu] %s %s (%s)", i ? "," : "", (unsigned long long)index,
				       text ? text : "?", type ? type : "without a type", names[t]);
		if (t == GID_UNTYPED)
			g_string_append_printf(untyped, "%sentry %llu (%s): %s", untyped->len ? "; " : "", (unsigned long long)index,
					       text ? text : "?", type ? type : "no type");
	}
	if (!total)
		g_string_append(o->detail, " empty");
	for (unsigned i = 0; i < s->n_args && o->st != S_ERROR; i++) {
		const struct cl_arg *a = &s->args[i];
		uint64_t got = a->id == CL_K_count    ? total
			       : a->id == CL_K_ipv4   ? n[GID_IPV4]
			       : a->id == CL_K_ipv6   ? n[GID_IPV6]
			       : a->id == CL_K_ib_gid ? n[GID_IB]
						      : n[GID_UNTYPED];
		if (!check_number(x, a, got, o))
			break;
	}
	if (o->st == S_FAIL && untyped->len)
		g_string_append_printf(o->observed, "%s", untyped->str);
	g_string_free(untyped, TRUE);
	json_object_unref(res);
}

void step_dut_raw_qp(struct run_ctx *x, const struct cl_step *s, struct step_out *o)
{
	if (!ensure_pd(x, o))
		return;
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", x->pd);
	json_object_set_string_member(p, "type", s->verb);
	if (!call(x, o, AP_M_probe_raw_datagram_qp, p, &res))
		return;
	JsonNode *cn = json_object_get_member(res, "created");
	if (!cn || !JSON_NODE_HOLDS_VALUE(cn) || json_node_get_value_type(cn) != G_TYPE_BOOLEAN) {
		missing(o, "probe_raw_datagram_qp", "created");
		json_object_unref(res);
		return;
	}
	bool created = json_node_get_boolean(cn);
	g_string_printf(o->detail, "an IBA %s datagram QP: %s", s->verb, created ? "created" : "not created");
	JsonArray *answers = member_array(res, "answers");
	for (guint i = 0; answers && i < json_array_get_length(answers); i++)
		g_string_append_printf(o->detail, "; %s", json_array_get_string_element(answers, i));
	/* What the device advertises, reported only: vendors count their
	 * Ethernet RAW_PACKET QPs as "raw Ethertype" ones (bnxt_re). */
	uint64_t v6, ethy;
	if (x->r->dut_device && agent_get_u64(x->r->dut_device, "max_raw_ipv6_qp", &v6) &&
	    agent_get_u64(x->r->dut_device, "max_raw_ethy_qp", &ethy))
		g_string_append_printf(o->detail, "; query_device says max_raw_ipv6_qp %llu, max_raw_ethy_qp %llu (not judged: "
				       "vendors count Ethernet RAW_PACKET QPs in the latter)",
				       (unsigned long long)v6, (unsigned long long)ethy);
	for (unsigned i = 0; i < s->n_args && o->st != S_ERROR; i++)
		if (!check_number(x, &s->args[i], created, o))
			break;
	json_object_unref(res);
}
