/*
 * The run as results.json records it (docs/results-schema.md, "fuzz"):
 * the options, what was sent and how fast, the QPs and regions, and each
 * finding with its oracle, rule, evidence, request sequence and case
 * file; and the set-up as `roce-tester run` records its own.
 */
#include "fz.h"

#include <arpa/inet.h>
#include <string.h>

#include "text.h"

static void set_u64(JsonObject *o, const char *k, uint64_t v)
{
	agent_set_u64(o, k, v);
}

JsonObject *fz_setup_json(struct fz *z)
{
	JsonObject *s = json_object_new();
	JsonObject *i = json_object_new();
	char buf[64];
	json_object_set_string_member(i, "name", z->o->iface);
	if (z->io_open) {
		text_printf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", z->io.mac[0], z->io.mac[1], z->io.mac[2],
			    z->io.mac[3], z->io.mac[4], z->io.mac[5]);
		json_object_set_string_member(i, "mac", buf);
		if (z->io.has_ip4 && inet_ntop(AF_INET, z->io.ip4, buf, sizeof buf))
			json_object_set_string_member(i, "ipv4", buf);
		if (z->io.has_ip6 && inet_ntop(AF_INET6, z->io.ip6, buf, sizeof buf))
			json_object_set_string_member(i, "ipv6", buf);
		JsonObject *p = json_object_new();
		json_object_set_string_member(p, "name", rawio_path_name(z->io.path));
		json_object_set_string_member(p, "note", z->io.path_note);
		json_object_set_object_member(i, "io_path", p);
	}
	if (z->o->vlan >= 0)
		json_object_set_int_member(i, "vlan", z->o->vlan);
	else
		json_object_set_null_member(i, "vlan");
	json_object_set_object_member(s, "interface", i);
	JsonObject *a = json_object_new();
	json_object_set_string_member(a, "address", z->o->agent);
	if (z->hello)
		json_object_set_object_member(a, "hello", json_object_ref(z->hello));
	json_object_set_object_member(s, "agent", a);
	JsonObject *d = json_object_new();
	if (z->dut_device)
		json_object_set_object_member(d, "device", json_object_ref(z->dut_device));
	if (z->dut_port)
		json_object_set_object_member(d, "port", json_object_ref(z->dut_port));
	if (z->dut_gids)
		json_object_set_array_member(d, "gids", json_array_ref(z->dut_gids));
	JsonObject *fam = json_object_new();
	bool usable = z->dut_gid[0] && z->dut_mac[0] | z->dut_mac[1] | z->dut_mac[2] | z->dut_mac[3] | z->dut_mac[4] | z->dut_mac[5];
	json_object_set_boolean_member(fam, "usable", usable);
	if (z->dut_gid[0]) {
		json_object_set_string_member(fam, "gid", z->dut_gid);
		json_object_set_int_member(fam, "sgid_index", z->sgid_index);
	}
	if (usable) {
		text_printf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", z->dut_mac[0], z->dut_mac[1], z->dut_mac[2],
			    z->dut_mac[3], z->dut_mac[4], z->dut_mac[5]);
		json_object_set_string_member(fam, "mac", buf);
		json_object_set_string_member(fam, "resolved_by", z->resolved_by);
	} else {
		json_object_set_string_member(fam, "why_not", z->err);
	}
	json_object_set_object_member(d, z->o->ip_version == 6 ? "ipv6" : "ipv4", fam);
	json_object_set_object_member(s, "dut", d);
	return s;
}

static JsonArray *steps_json(struct fz *z, const struct fz_finding *f)
{
	JsonArray *a = json_array_new();
	GString *t = g_string_new(NULL);
	for (unsigned i = 0; i < f->n_seq; i++) {
		const struct fz_done *d = &f->seq[i];
		JsonObject *s = json_object_new();
		g_string_truncate(t, 0);
		fz_step_text(z, &d->step, t);
		json_object_set_int_member(s, "qp", f->seq_qp[i]);
		json_object_set_string_member(s, "request", t->str);
		JsonArray *ans = json_array_new();
		for (unsigned k = 0; k < d->n_resp; k++) {
			const struct roce_opcode_info *oi = roce_opcode(d->resp[k].opcode);
			g_string_truncate(t, 0);
			g_string_append_printf(t, "%s PSN %u", oi->name ? oi->name : "?", d->resp[k].psn);
			if (d->resp[k].syndrome != 0xFF)
				g_string_append_printf(t, " syndrome 0x%02x", d->resp[k].syndrome);
			if (d->resp[k].len)
				g_string_append_printf(t, ", %u bytes", d->resp[k].len);
			json_array_add_string_element(ans, t->str);
		}
		json_object_set_array_member(s, "answers", ans);
		json_array_add_object_element(a, s);
	}
	g_string_free(t, TRUE);
	return a;
}

void fz_finding_json(struct fz *z, const struct fz_finding *f, JsonObject *o)
{
	const struct roce_rule_info *ri = roce_rule(f->obs.rule);
	json_object_set_string_member(o, "id", f->id);
	json_object_set_string_member(o, "kind", fz_kind_name(f->obs.kind));
	if (ri)
		json_object_set_string_member(o, "rule", ri->id);
	else
		json_object_set_null_member(o, "rule");
	/* fail: the rule binds the DUT with a must; informative: no rule of
	 * the catalogue does (a kernel warning, an observation to judge). */
	json_object_set_string_member(o, "judged", f->fails ? "fail" : "informative");
	json_object_set_string_member(o, "summary", f->obs.text ? f->obs.text->str : "");
	json_object_set_string_member(o, "evidence", f->obs.detail ? f->obs.detail->str : "");
	json_object_set_string_member(o, "signature", f->obs.sig);
	json_object_set_int_member(o, "seen", GPOINTER_TO_UINT(g_hash_table_lookup(z->seen, f->obs.sig)));
	json_object_set_boolean_member(o, "device", f->obs.device);
	set_u64(o, "batch", f->batch);
	JsonArray *qps = json_array_new();
	for (unsigned i = 0; i < f->n_qp; i++) {
		JsonObject *q = json_object_new();
		json_object_set_string_member(q, "transport", fz_qkind_name(f->qps[i].kind));
		json_object_set_int_member(q, "pmtu", f->qps[i].pmtu);
		json_object_set_boolean_member(q, "srq", f->qps[i].srq);
		json_array_add_object_element(qps, q);
	}
	json_object_set_array_member(o, "qps", qps);
	json_object_set_int_member(o, "requests_before", f->n_orig);
	json_object_set_int_member(o, "requests_after", f->n_seq);
	json_object_set_boolean_member(o, "reduced", f->reduced);
	json_object_set_boolean_member(o, "replayable", f->replayable);
	json_object_set_int_member(o, "replays", f->replays);
	json_object_set_array_member(o, "sequence", steps_json(z, f));
	if (f->case_path)
		json_object_set_string_member(o, "case_file", f->case_path);
	else
		json_object_set_null_member(o, "case_file");
	json_object_set_null_member(o, "case_verdict");
}

JsonObject *fz_record(struct fz *z)
{
	const struct fuzz_opts *o = z->o;
	JsonObject *r = json_object_new();
	char seed[24];
	text_printf(seed, sizeof seed, "0x%llx", (unsigned long long)o->seed);
	json_object_set_string_member(r, "seed", seed);
	set_u64(r, "duration_ns", o->duration_ns);
	set_u64(r, "elapsed_ns", z->fuzz_ns);
	json_object_set_int_member(r, "rate_limit", o->rate);
	json_object_set_int_member(r, "ip_version", o->ip_version);
	set_u64(r, "requests", z->st.requests);
	set_u64(r, "requests_per_s", z->fuzz_ns ? z->st.requests * FZ_NS_PER_S / z->fuzz_ns : 0);
	set_u64(r, "batches", z->st.batches);
	set_u64(r, "steps", z->st.steps);
	set_u64(r, "frames_sent", z->st.frames_tx);
	set_u64(r, "frames_received", z->st.frames_rx);
	set_u64(r, "answered", z->st.answered);
	set_u64(r, "silent", z->st.silent);
	set_u64(r, "qp_resets", z->st.resets);
	set_u64(r, "probes", z->st.probes);
	set_u64(r, "replays", z->st.replays);
	set_u64(r, "agent_calls", z->st.agent_calls);
	set_u64(r, "window_ns", z->window_ns);
	set_u64(r, "mean_answer_ns", z->st.lat_n ? z->st.lat_sum_ns / z->st.lat_n : 0);
	/* Where the time went: sending and judging, the checks after each
	 * batch, the QPs reset or replaced. */
	JsonObject *tm = json_object_new();
	set_u64(tm, "requests_ns", z->st.exec_ns);
	set_u64(tm, "health_ns", z->st.health_ns);
	set_u64(tm, "recover_ns", z->st.recover_ns);
	set_u64(tm, "health_memory_ns", z->st.memory_ns);
	set_u64(tm, "health_completions_ns", z->st.completions_ns);
	set_u64(tm, "health_control_ns", z->st.control_ns);
	set_u64(tm, "health_probes_ns", z->st.probes_ns);
	json_object_set_object_member(r, "time", tm);
	json_object_set_boolean_member(r, "dut_wedged", z->wedged || z->agent_dead);
	JsonObject *obs = json_object_new();
	for (int k = 0; k < FZ_KIND_COUNT; k++)
		set_u64(obs, fz_kind_name((enum fz_kind)k), z->st.by_kind[k]);
	json_object_set_object_member(r, "observations", obs);
	JsonArray *qps = json_array_new();
	for (unsigned i = 0; i < z->n_qp; i++) {
		JsonObject *q = json_object_new();
		json_object_set_string_member(q, "transport", fz_qkind_name(z->qp[i].kind));
		json_object_set_int_member(q, "qpn", z->qp[i].dut_qpn);
		json_object_set_int_member(q, "pmtu", z->qp[i].pmtu);
		json_object_set_boolean_member(q, "srq", z->qp[i].srq);
		json_array_add_object_element(qps, q);
	}
	json_object_set_array_member(r, "qps", qps);
	JsonArray *regs = json_array_new();
	for (unsigned i = 0; i < z->n_reg; i++) {
		const struct fz_region *g = &z->reg[i];
		JsonObject *q = json_object_new();
		json_object_set_string_member(q, "name", g->name);
		json_object_set_string_member(q, "kind", g->kind == FZ_RK_MW ? (g->mw_type == 1 ? "window type 1" : "window type 2")
								     : g->guard ? "guard" : g->kind == FZ_RK_RECV ? "receive buffers" : "region");
		json_object_set_int_member(q, "pd", g->pd);
		set_u64(q, "length", g->len);
		json_object_set_boolean_member(q, "valid", g->valid);
		json_array_add_object_element(regs, q);
	}
	json_object_set_array_member(r, "regions", regs);
	JsonArray *fs = json_array_new();
	for (unsigned i = 0; i < z->n_find; i++) {
		JsonObject *f = json_object_new();
		fz_finding_json(z, &z->find[i], f);
		json_array_add_object_element(fs, f);
	}
	json_object_set_array_member(r, "findings", fs);
	JsonArray *un = json_array_new();
	for (guint i = 0; z->unconfirmed && i < z->unconfirmed->len; i++)
		json_array_add_string_element(un, g_ptr_array_index(z->unconfirmed, i));
	json_object_set_array_member(r, "unconfirmed", un);
	return r;
}

void fuzz_record_case_verdict(JsonObject *record, int finding, const char *verdict, const char *reason)
{
	JsonNode *n = json_object_get_member(record, "findings");
	if (!n || !JSON_NODE_HOLDS_ARRAY(n))
		return;
	JsonArray *a = json_node_get_array(n);
	if (finding < 0 || (guint)finding >= json_array_get_length(a))
		return;
	JsonObject *f = json_array_get_object_element(a, (guint)finding);
	json_object_set_string_member(f, "case_verdict", verdict);
	json_object_set_string_member(f, "case_reason", reason ? reason : "");
}
