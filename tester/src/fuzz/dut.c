/*
 * The DUT through its agent: the session and what the DUT is, its
 * objects (protection domains, CQs, regions, windows, SRQs, QPs of every
 * transport it offers), QPs brought up, reset and replaced, and its
 * memory read, written and digested.
 */
#include "fz.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "text.h"

bool fz_call(struct fz *z, enum ap_method m, JsonObject *params, JsonObject **res)
{
	JsonObject *r = NULL;
	if (z->agent_dead) {
		if (params)
			json_object_unref(params);
		return false;
	}
	z->st.agent_calls++;
	enum agent_status st = agent_call(&z->agent, m, params, z->o->agent_timeout_ns, &r);
	/* The run makes many calls: keep no log of them. */
	if (z->agent.n_log > 64)
		agent_log_clear(&z->agent);
	if (st == AGENT_BROKEN) {
		z->agent_dead = true;
		text_printf(z->err, sizeof z->err, "%s: %s", ap_method_name(m), z->agent.fail_msg->str);
		return false;
	}
	if (st == AGENT_ERROR_REPLY) {
		text_printf(z->err, sizeof z->err, "%s: %s: %s", ap_method_name(m), z->agent.fail_code->str,
			    z->agent.fail_msg->str);
		return false;
	}
	if (res)
		*res = r;
	else
		json_object_unref(r);
	return true;
}

static bool call_handle(struct fz *z, enum ap_method m, JsonObject *p, const char *member, int64_t *out)
{
	JsonObject *res;
	if (!fz_call(z, m, p, &res))
		return false;
	uint64_t h;
	bool ok = agent_get_u64(res, member, &h);
	json_object_unref(res);
	if (!ok) {
		text_printf(z->err, sizeof z->err, "%s: the reply has no %s", ap_method_name(m), member);
		return false;
	}
	*out = (int64_t)h;
	return true;
}

#define FZ_PIPE_DEPTH 64 /* requests in flight at once: their replies fit the socket's buffers */

unsigned fz_call_many(struct fz *z, unsigned n, const enum ap_method *m, JsonObject **params, JsonObject **res, bool *ok)
{
	unsigned good = 0;
	for (unsigned base = 0; base < n; base += FZ_PIPE_DEPTH) {
		unsigned end = base + FZ_PIPE_DEPTH < n ? base + FZ_PIPE_DEPTH : n, sent = base;
		for (unsigned i = base; i < end; i++) {
			if (z->agent_dead || agent_send(&z->agent, m[i], params[i], z->o->agent_timeout_ns) != AGENT_OK) {
				if (!z->agent_dead)
					json_object_unref(params[i]);
				z->agent_dead = true;
				for (unsigned k = i + 1; k < end; k++)
					json_object_unref(params[k]);
				break;
			}
			z->st.agent_calls++;
			sent = i + 1;
		}
		for (unsigned i = base; i < end; i++) {
			JsonObject *r = NULL;
			enum agent_status st = i < sent ? agent_recv(&z->agent, z->o->agent_timeout_ns, &r) : AGENT_BROKEN;
			if (st == AGENT_BROKEN && !z->agent_dead) {
				z->agent_dead = true;
				text_printf(z->err, sizeof z->err, "%s: %s", ap_method_name(m[i]), z->agent.fail_msg->str);
			} else if (st == AGENT_ERROR_REPLY) {
				text_printf(z->err, sizeof z->err, "%s: %s: %s", ap_method_name(m[i]), z->agent.fail_code->str,
					    z->agent.fail_msg->str);
			}
			ok[i] = st == AGENT_OK;
			good += ok[i];
			if (res)
				res[i] = r;
			else if (r)
				json_object_unref(r);
		}
		if (z->agent_dead) {
			for (unsigned i = end; i < n; i++) {
				json_object_unref(params[i]);
				ok[i] = false;
				if (res)
					res[i] = NULL;
			}
			/* The agent may still hold our requests: nothing more is
			 * read from it. */
			z->agent.pending = 0;
			break;
		}
	}
	if (z->agent.n_log > 64 && !z->agent.pending)
		agent_log_clear(&z->agent);
	return good;
}

/* ---- The session and what the DUT is ---- */

static bool pick_gid(struct fz *z)
{
	struct agent_gid g;
	if (!agent_pick_rocev2_gid(z->dut_gids, z->o->ip_version, z->o->dut_ip, &g))
		return false;
	z->sgid_index = g.index;
	memcpy(z->dut_ip, g.ip, 16);
	text_copy(z->dut_gid, sizeof z->dut_gid, g.gid);
	return true;
}

int fz_dut_open(struct fz *z)
{
	const struct fuzz_opts *o = z->o;
	if (o->token_file) {
		gsize n = 0;
		GError *gerr = NULL;
		if (!g_file_get_contents(o->token_file, &z->token, &n, &gerr)) {
			text_printf(z->err, sizeof z->err, "--token-file %s: %s", o->token_file, gerr->message);
			g_error_free(gerr);
			return -1;
		}
		while (n && isspace((unsigned char)z->token[n - 1]))
			n--;
		z->token[n] = '\0';
	}
	if (rawio_open(&z->io, o->iface, o->vlan, RAWIO_TS_HOST, z->err, sizeof z->err) != 0)
		return -1;
	z->io_open = true;
	if (!(o->ip_version == 4 ? z->io.has_ip4 : z->io.has_ip6)) {
		text_printf(z->err, sizeof z->err, "the interface %s has no IPv%d address", o->iface, o->ip_version);
		return -1;
	}
	z->agent.fd = -1;
	z->agent.pump = fz_agent_pump;
	z->agent.pump_ctx = z;
	char cerr[512]; /* a host name, a port and a resolver's line */
	if (agent_connect(&z->agent, o->agent, o->agent_timeout_ns, cerr, sizeof cerr) != 0) {
		text_copy(z->err, sizeof z->err, cerr);
		return -1;
	}
	if (agent_authenticate(&z->agent, z->token, o->agent_timeout_ns, &z->hello) != AGENT_OK) {
		text_copy(z->err, sizeof z->err, z->agent.fail_msg->str);
		return -1;
	}
	JsonObject *res;
	if (!fz_call(z, AP_M_query_device, NULL, &res))
		return -1;
	z->dut_device = res;
	JsonNode *cn = json_object_get_member(res, "capabilities");
	if (cn && JSON_NODE_HOLDS_ARRAY(cn)) {
		JsonArray *a = json_node_get_array(cn);
		for (guint i = 0; i < json_array_get_length(a); i++) {
			int c = ap_capability_by_name(json_array_get_string_element(a, i));
			if (c > 0)
				z->caps |= (unsigned)c;
		}
	}
	text_copy(z->dut_name, sizeof z->dut_name,
		  json_object_has_member(res, "name") ? json_object_get_string_member(res, "name") : "DUT");
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	if (!fz_call(z, AP_M_query_port, p, &res))
		return -1;
	z->dut_port = res;
	uint64_t mtu = 1024;
	agent_get_u64(res, "active_mtu", &mtu);
	z->port_mtu = roce_mtu_enum((unsigned)mtu) ? (unsigned)mtu : 1024;
	p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	if (!fz_call(z, AP_M_list_gids, p, &res))
		return -1;
	JsonNode *gn = json_object_get_member(res, "gids");
	if (gn && JSON_NODE_HOLDS_ARRAY(gn))
		z->dut_gids = json_array_ref(json_node_get_array(gn));
	json_object_unref(res);
	if (!pick_gid(z)) {
		text_printf(z->err, sizeof z->err, "the DUT lists no RoCEv2 GID for IPv%d%s%s", o->ip_version,
			    o->dut_ip ? " matching " : "", o->dut_ip ? o->dut_ip : "");
		return -1;
	}
	if (rawio_resolve(&z->io, o->ip_version, z->dut_ip, !o->resolve_self, z->dut_mac, 3 * FZ_NS_PER_S,
			  z->resolved_by, sizeof z->resolved_by, z->err, sizeof z->err) != 0)
		return -1;
	return 0;
}

void fz_dut_close(struct fz *z)
{
	if (z->agent.fd >= 0 && !z->agent.broken && !z->agent_dead) {
		JsonObject *res = NULL;
		if (agent_call(&z->agent, AP_M_bye, NULL, z->o->agent_timeout_ns, &res) == AGENT_OK)
			json_object_unref(res);
	}
	agent_close(&z->agent);
	agent_log_clear(&z->agent);
	if (z->io_open)
		rawio_close(&z->io);
	z->io_open = false;
	g_free(z->token);
	z->token = NULL;
}

/* ---- QPs ---- */

void fz_endpoint(const struct fz *z, struct fz_qp *q)
{
	struct roce_endpoint *ep = &q->ep;
	memset(ep, 0, sizeof *ep);
	ep->ip_version = z->o->ip_version;
	memcpy(ep->src_mac, z->io.mac, 6);
	memcpy(ep->dst_mac, z->dut_mac, 6);
	if (z->o->vlan >= 0) {
		ep->n_vlan = 1;
		ep->vlan_tci[0] = roce_vlan_tci((unsigned)z->o->vlan_pcp, (unsigned)z->o->vlan);
	}
	if (ep->ip_version == 4) {
		memcpy(ep->src_ip, z->io.ip4, 4);
		memcpy(ep->dst_ip, z->dut_ip, 4);
	} else {
		memcpy(ep->src_ip, z->io.ip6, 16);
		memcpy(ep->dst_ip, z->dut_ip, 16);
	}
	ep->hop_limit = 64;
	/* The port a case's QP uses (runner_dut.c's make_endpoint), so that
	 * a finding's case sends what the fuzzer sent. */
	ep->udp_sport = (uint16_t)(0xC000 | (q->tqpn & 0x3FFF));
	ep->pkey = 0xFFFF;
	ep->dest_qpn = q->dut_qpn;
}

static void tester_gid(const struct fz *z, char *out, size_t n)
{
	uint8_t gid[ROCE_GID_LEN];
	roce_gid_from_ip(z->o->ip_version, z->o->ip_version == 4 ? z->io.ip4 : z->io.ip6, gid);
	roce_gid_format(gid, out, n);
}

static JsonArray *access_words(unsigned access)
{
	JsonArray *a = json_array_new();
	for (unsigned bit = 1; bit; bit <<= 1)
		if ((access & bit) && ap_access_name((enum ap_access)bit))
			json_array_add_string_element(a, ap_access_name((enum ap_access)bit));
	return a;
}

static unsigned qp_access(const struct fz *z, const struct fz_qp *q)
{
	if (q->kind == FZ_Q_UC)
		return AP_ACCESS_REMOTE_WRITE;
	unsigned a = AP_ACCESS_REMOTE_WRITE | AP_ACCESS_REMOTE_READ;
	if (z->caps & AP_CAP_ATOMIC)
		a |= AP_ACCESS_REMOTE_ATOMIC;
	if (z->caps & AP_CAP_FLUSH)
		a |= AP_ACCESS_FLUSH_GLOBAL;
	return a;
}


/* The attributes of RESET -> INIT -> RTR -> RTS towards the tester QP
 * q->tqpn, expecting q->psn0 first: three modify_qp requests. */
static void bringup_params(struct fz *z, struct fz_qp *q, JsonObject *out[3])
{
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "port", 1);
	json_object_set_int_member(p, "pkey_index", 0);
	if (q->kind == FZ_Q_UD)
		agent_set_u64(p, "qkey", q->qkey);
	else
		json_object_set_array_member(p, "access", access_words(qp_access(z, q)));
	out[0] = p;
	p = json_object_new();
	if (q->kind != FZ_Q_UD) {
		char gid[64];
		tester_gid(z, gid, sizeof gid);
		json_object_set_int_member(p, "path_mtu", q->pmtu);
		json_object_set_int_member(p, "dest_qpn", q->tqpn);
		json_object_set_int_member(p, "rq_psn", q->psn0);
		json_object_set_string_member(p, "dgid", gid);
		json_object_set_int_member(p, "sgid_index", z->sgid_index);
		json_object_set_int_member(p, "hop_limit", 64);
		if (z->o->vlan >= 0)
			json_object_set_int_member(p, "sl", z->o->vlan_pcp);
		if (q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC) {
			json_object_set_int_member(p, "max_dest_rd_atomic", 8);
			json_object_set_int_member(p, "min_rnr_timer", 1);
		}
	}
	out[1] = p;
	p = json_object_new();
	json_object_set_int_member(p, "sq_psn", 0);
	if (q->kind == FZ_Q_RC || q->kind == FZ_Q_XRC)
		json_object_set_int_member(p, "timeout", 14);
	if (q->kind == FZ_Q_RC) {
		json_object_set_int_member(p, "retry_cnt", 7);
		json_object_set_int_member(p, "rnr_retry", 7);
		json_object_set_int_member(p, "max_rd_atomic", 1);
	}
	out[2] = p;
	static const enum ap_qp_state states[3] = { AP_QPS_INIT, AP_QPS_RTR, AP_QPS_RTS };
	for (int i = 0; i < 3; i++) {
		json_object_set_int_member(out[i], "qp", q->handle);
		json_object_set_string_member(out[i], "state", ap_qp_state_name(states[i]));
	}
}

/* The model of a QP just brought up. */
static void fresh(struct fz *z, struct fz_qp *q)
{
	q->epsn = q->psn0;
	q->sure = true;
	q->dead = false;
	q->n_hist = 0;
	q->hist_dropped = 0;
	q->n_open = 0;
	memset(&q->fl, 0, sizeof q->fl);
	q->n_late[0] = q->n_late[1] = 0;
	fz_endpoint(z, q);
}

static bool bring_up(struct fz *z, struct fz_qp *q)
{
	JsonObject *p[3];
	bringup_params(z, q, p);
	enum ap_method m[3] = { AP_M_modify_qp, AP_M_modify_qp, AP_M_modify_qp };
	bool ok[3];
	if (fz_call_many(z, 3, m, p, NULL, ok) != 3)
		return false;
	fresh(z, q);
	return true;
}

static uint32_t new_psn(struct fz *z, struct fz_qp *q)
{
	struct fz_rng r;
	fz_rng_seed(&r, z->o->seed, 0x9500 + (uint64_t)q->index, q->incarnation);
	/* Sometimes near the wrap, where serial arithmetic matters. */
	uint32_t psn = (uint32_t)fz_rng_next(&r) & ROCE_PSN_MASK;
	if (fz_chance(&r, 1, 8))
		psn = (ROCE_PSN_MASK - fz_below(&r, 8)) & ROCE_PSN_MASK;
	return psn;
}

bool fz_qp_create(struct fz *z, struct fz_qp *q)
{
	JsonObject *p = json_object_new();
	static const char *const types[] = { [FZ_Q_RC] = "RC", [FZ_Q_UC] = "UC", [FZ_Q_UD] = "UD", [FZ_Q_XRC] = "XRC_RECV" };
	json_object_set_string_member(p, "type", types[q->kind]);
	json_object_set_int_member(p, "pd", z->pd[0]);
	if (q->kind == FZ_Q_XRC) {
		json_object_set_int_member(p, "xrcd", z->xrcd);
	} else {
		json_object_set_int_member(p, "send_cq", q->cq);
		json_object_set_int_member(p, "recv_cq", q->cq);
		json_object_set_int_member(p, "max_send_wr", 4);
		json_object_set_int_member(p, "max_recv_wr", 32);
		if (q->srq)
			json_object_set_int_member(p, "srq", z->srq);
	}
	JsonObject *res;
	if (!fz_call(z, AP_M_create_qp, p, &res))
		return false;
	uint64_t h = 0, qpn = 0;
	bool ok = agent_get_u64(res, "qp", &h) && agent_get_u64(res, "qpn", &qpn);
	json_object_unref(res);
	if (!ok) {
		text_copy(z->err, sizeof z->err, "create_qp: the reply lacks qp or qpn");
		return false;
	}
	q->handle = (int64_t)h;
	q->dut_qpn = (uint32_t)qpn;
	q->tqpn = z->next_tqpn++;
	q->recv_posted = 0;
	q->psn0 = new_psn(z, q);
	return bring_up(z, q);
}

bool fz_qps_reset(struct fz *z, struct fz_qp **qs, unsigned n)
{
	enum ap_method *m = g_new(enum ap_method, 4 * n);
	JsonObject **p = g_new(JsonObject *, 4 * n);
	bool *ok = g_new(bool, 4 * n);
	for (unsigned i = 0; i < n; i++) {
		struct fz_qp *q = qs[i];
		z->st.resets++;
		q->incarnation++;
		/* A new tester QPN: late answers to the old one are not its. */
		q->tqpn = z->next_tqpn++;
		q->psn0 = new_psn(z, q);
		q->recv_posted = 0;
		p[4 * i] = json_object_new();
		json_object_set_int_member(p[4 * i], "qp", q->handle);
		json_object_set_string_member(p[4 * i], "state", "RESET");
		bringup_params(z, q, p + 4 * i + 1);
		for (int k = 0; k < 4; k++)
			m[4 * i + k] = AP_M_modify_qp;
	}
	unsigned good = fz_call_many(z, 4 * n, m, p, NULL, ok);
	for (unsigned i = 0; i < n; i++)
		if (ok[4 * i] && ok[4 * i + 1] && ok[4 * i + 2] && ok[4 * i + 3])
			fresh(z, qs[i]);
	g_free(m);
	g_free(p);
	g_free(ok);
	return good == 4 * n;
}

bool fz_qp_reset(struct fz *z, struct fz_qp *q)
{
	return fz_qps_reset(z, &q, 1);
}

bool fz_qp_destroy(struct fz *z, struct fz_qp *q)
{
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "qp", q->handle);
	return fz_call(z, AP_M_destroy_qp, p, NULL);
}

const char *fz_qp_state(struct fz *z, struct fz_qp *q, char *buf, size_t n)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "qp", q->handle);
	if (!fz_call(z, AP_M_query_qp, p, &res))
		return NULL;
	const char *s = json_object_has_member(res, "state") ? json_object_get_string_member(res, "state") : "?";
	text_copy(buf, n, s);
	json_object_unref(res);
	return buf;
}

/* ---- Memory ---- */

bool fz_mr_read(struct fz *z, const struct fz_region *r, uint8_t *out)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "mr", r->handle);
	json_object_set_int_member(p, "offset", 0);
	agent_set_u64(p, "length", r->len);
	if (!fz_call(z, AP_M_read_mr, p, &res))
		return false;
	const char *b64 = json_object_has_member(res, "data") ? json_object_get_string_member(res, "data") : "";
	gsize n = 0;
	guchar *d = g_base64_decode(b64, &n);
	bool ok = n == r->len;
	if (ok)
		memcpy(out, d, n);
	else
		text_printf(z->err, sizeof z->err, "read_mr of %s: %zu bytes, not %llu", r->name, (size_t)n,
			    (unsigned long long)r->len);
	g_free(d);
	json_object_unref(res);
	return ok;
}

bool fz_mr_write(struct fz *z, const struct fz_region *r, uint64_t off, const uint8_t *data, size_t len)
{
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "mr", r->handle);
	agent_set_u64(p, "offset", off);
	gchar *b64 = g_base64_encode(data, len);
	json_object_set_string_member(p, "data", b64);
	g_free(b64);
	return fz_call(z, AP_M_write_mr, p, NULL);
}

bool fz_mr_digest(struct fz *z, const struct fz_region *r, char hex[65])
{
	if (!z->no_digest) {
		JsonObject *p = json_object_new(), *res;
		json_object_set_int_member(p, "mr", r->handle);
		if (fz_call(z, AP_M_digest_mr, p, &res)) {
			const char *d = json_object_has_member(res, "sha256") ? json_object_get_string_member(res, "sha256") : "";
			text_copy(hex, 65, d);
			json_object_unref(res);
			return strlen(hex) == 64;
		}
		if (z->agent_dead || strcmp(z->agent.fail_code->str, "unknown_method"))
			return false;
		z->no_digest = true; /* an agent without it: read instead */
	}
	uint8_t *buf = g_malloc(r->len);
	bool ok = fz_mr_read(z, r, buf);
	if (ok) {
		gchar *s = g_compute_checksum_for_data(G_CHECKSUM_SHA256, buf, r->len);
		text_copy(hex, 65, s);
		g_free(s);
	}
	g_free(buf);
	return ok;
}

/* ---- Receives ---- */

#define FZ_RECV_LEN (FZ_REGION_LEN + 64)


static JsonObject *recv_params(struct fz *z, const char *member, int64_t handle, uint64_t wr_id)
{
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, member, handle);
	agent_set_u64(p, "wr_id", wr_id);
	JsonArray *sge = json_array_new();
	JsonObject *e = json_object_new();
	json_object_set_int_member(e, "mr", z->reg[z->recv_region].handle);
	json_object_set_int_member(e, "offset", 0);
	json_object_set_int_member(e, "length", FZ_RECV_LEN);
	json_array_add_object_element(sge, e);
	json_object_set_array_member(p, "sge", sge);
	return p;
}

/* Posts receives to the handle of member (a QP's RQ or an SRQ) from *posted
 * up to want, pipelined. */
static bool fill(struct fz *z, enum ap_method method, const char *member, int64_t handle, uint64_t tag, unsigned *posted,
		 unsigned want)
{
	if (*posted >= want)
		return true;
	unsigned n = want - *posted;
	enum ap_method *m = g_new(enum ap_method, n);
	JsonObject **p = g_new(JsonObject *, n);
	bool *ok = g_new(bool, n);
	for (unsigned i = 0; i < n; i++) {
		m[i] = method;
		p[i] = recv_params(z, member, handle, tag << 32 | (*posted + i));
	}
	unsigned good = fz_call_many(z, n, m, p, NULL, ok);
	*posted += good;
	g_free(m);
	g_free(p);
	g_free(ok);
	return good == n;
}

bool fz_recv_fill(struct fz *z, struct fz_qp *q, unsigned want)
{
	return fill(z, AP_M_post_recv, "qp", q->handle, (uint64_t)q->index, &q->recv_posted, want);
}

bool fz_srq_fill(struct fz *z, unsigned want)
{
	bool ok = z->srq < 0 || fill(z, AP_M_post_srq_recv, "srq", z->srq, 0xFFFF, &z->srq_posted, want);
	return ok && (z->xsrq < 0 || fill(z, AP_M_post_srq_recv, "srq", z->xsrq, 0xFFFE, &z->xsrq_posted, want));
}

bool fz_poll(struct fz *z, int64_t cq, void (*fn)(struct fz *z, JsonObject *wc, void *ctx), void *ctx)
{
	for (int round = 0; round < 64; round++) {
		JsonObject *p = json_object_new(), *res;
		json_object_set_int_member(p, "cq", cq);
		json_object_set_int_member(p, "max", 64);
		if (!fz_call(z, AP_M_poll_cq, p, &res))
			return false;
		JsonNode *n = json_object_get_member(res, "completions");
		guint got = 0;
		if (n && JSON_NODE_HOLDS_ARRAY(n)) {
			JsonArray *a = json_node_get_array(n);
			got = json_array_get_length(a);
			for (guint i = 0; i < got; i++)
				fn(z, json_array_get_object_element(a, i), ctx);
		}
		json_object_unref(res);
		if (got < 64)
			return true;
	}
	return true;
}

/* ---- Set-up ---- */

static bool reg_mr(struct fz *z, int i)
{
	struct fz_region *r = &z->reg[i];
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", z->pd[r->pd]);
	agent_set_u64(p, "length", r->len);
	json_object_set_array_member(p, "access", access_words(r->access));
	if (!fz_call(z, AP_M_reg_mr, p, &res))
		return false;
	uint64_t h = 0, addr = 0, rkey = 0;
	bool ok = agent_get_u64(res, "mr", &h) && agent_get_u64(res, "addr", &addr) && agent_get_u64(res, "rkey", &rkey);
	json_object_unref(res);
	if (!ok) {
		text_copy(z->err, sizeof z->err, "reg_mr: the reply lacks mr, addr or rkey");
		return false;
	}
	r->handle = (int64_t)h;
	r->addr = addr;
	r->rkey = (uint32_t)rkey;
	if (r->kind == FZ_RK_RECV)
		return true;
	r->shadow = g_malloc(r->len);
	fz_layout_fill(z, i);
	return fz_mr_write(z, r, 0, r->shadow, r->len);
}

static bool make_cq(struct fz *z, int64_t *cq)
{
	JsonObject *p = json_object_new();
	json_object_set_int_member(p, "cqe", 1024);
	return call_handle(z, AP_M_create_cq, p, "cq", cq);
}

/* Waits for the completion of a work request of the control QP's. */
static bool ctl_completion(struct fz *z, uint64_t wr_id, const char *what)
{
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "cq", z->cq_ctl);
	json_object_set_int_member(p, "max", 1);
	json_object_set_int_member(p, "timeout_ms", 2000);
	if (!fz_call(z, AP_M_poll_cq, p, &res))
		return false;
	JsonNode *n = json_object_get_member(res, "completions");
	JsonArray *a = n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
	bool ok = false;
	if (a && json_array_get_length(a) == 1) {
		JsonObject *wc = json_array_get_object_element(a, 0);
		uint64_t id = 0;
		agent_get_u64(wc, "wr_id", &id);
		const char *st = json_object_has_member(wc, "status") ? json_object_get_string_member(wc, "status") : "";
		ok = id == wr_id && !strcmp(st, "SUCCESS");
		if (!ok)
			text_printf(z->err, sizeof z->err, "%s completed with %s", what, st);
	} else {
		text_printf(z->err, sizeof z->err, "%s did not complete within 2 s", what);
	}
	json_object_unref(res);
	return ok;
}

static bool bind_window(struct fz *z, int i)
{
	struct fz_region *w = &z->reg[i];
	const struct fz_region *mr = &z->reg[w->mw_mr];
	JsonObject *p = json_object_new(), *res;
	json_object_set_int_member(p, "pd", z->pd[0]);
	json_object_set_int_member(p, "type", w->mw_type);
	if (!fz_call(z, AP_M_alloc_mw, p, &res))
		return false;
	uint64_t h = 0, rkey = 0;
	agent_get_u64(res, "mw", &h);
	agent_get_u64(res, "rkey", &rkey);
	json_object_unref(res);
	w->handle = (int64_t)h;
	w->addr = mr->addr + w->mw_off;
	p = json_object_new();
	json_object_set_int_member(p, "mw", w->handle);
	json_object_set_int_member(p, "mr", mr->handle);
	json_object_set_int_member(p, "offset", (gint64)w->mw_off);
	json_object_set_int_member(p, "length", (gint64)w->len);
	json_object_set_array_member(p, "access", access_words(w->access));
	uint64_t wr_id = 0xB1D00 + (uint64_t)i;
	json_object_set_int_member(p, "qp", z->ctl.handle);
	agent_set_u64(p, "wr_id", wr_id);
	if (w->mw_type == 1) {
		if (!fz_call(z, AP_M_bind_mw, p, &res))
			return false;
		agent_get_u64(res, "rkey", &rkey);
		json_object_unref(res);
	} else {
		rkey = (rkey & ~0xFFull) | ((rkey + 1) & 0xFF);
		json_object_set_string_member(p, "opcode", "BIND_MW");
		agent_set_u64(p, "rkey", rkey);
		if (!fz_call(z, AP_M_post_send, p, NULL))
			return false;
	}
	w->rkey = (uint32_t)rkey;
	if (!ctl_completion(z, wr_id, "the window's bind"))
		return false;
	if (strcmp(w->name, "w3"))
		return true;
	/* w3: made stale, by a LOCAL_INV (type 2) or an unbind (type 1). */
	p = json_object_new();
	json_object_set_int_member(p, "qp", z->ctl.handle);
	agent_set_u64(p, "wr_id", wr_id + 0x100);
	if (w->mw_type == 2) {
		json_object_set_string_member(p, "opcode", "LOCAL_INV");
		agent_set_u64(p, "invalidate_rkey", w->rkey);
		if (!fz_call(z, AP_M_post_send, p, NULL))
			return false;
	} else {
		json_object_set_int_member(p, "mw", w->handle);
		json_object_set_int_member(p, "length", 0);
		if (!fz_call(z, AP_M_bind_mw, p, NULL))
			return false;
	}
	w->valid = false;
	return ctl_completion(z, wr_id + 0x100, "the window's invalidation");
}

static int ctl_send(void *ctx, const uint8_t *frame, size_t len, const struct peer_tx_info *info)
{
	(void)info;
	return fz_send_frame(ctx, frame, len) ? 0 : -1;
}

static bool control_peer(struct fz *z);

static bool setup_control(struct fz *z)
{
	struct fz_qp *q = &z->ctl;
	memset(q, 0, sizeof *q);
	q->kind = FZ_Q_RC;
	q->t = ROCE_T_RC;
	q->index = -1;
	q->control = true;
	q->pmtu = z->port_mtu < 1024 ? z->port_mtu : 1024;
	if (!make_cq(z, &z->cq_ctl))
		return false;
	q->cq = z->cq_ctl;
	if (!fz_qp_create(z, q))
		return false;
	struct peer_io pio = { z, ctl_send, NULL };
	z->peer = peer_new(&pio);
	return control_peer(z);
}

/* The tester's side of the control QP, in the peer engine. */
static bool control_peer(struct fz *z)
{
	struct fz_qp *q = &z->ctl;
	struct peer_qp_cfg cfg = { 0 };
	cfg.type = ROCE_T_RC;
	cfg.qpn = q->tqpn;
	cfg.remote_qpn = q->dut_qpn;
	cfg.sq_psn = q->psn0;
	cfg.rq_psn = 0; /* the DUT's sq_psn */
	cfg.pmtu = q->pmtu;
	cfg.ep = q->ep;
	cfg.ack_timeout_ns = 50 * FZ_NS_PER_MS;
	cfg.retry_cnt = 7;
	cfg.rnr_retry = 7;
	return peer_qp_add(z->peer, &cfg) == 0;
}

bool fz_control_renew(struct fz *z)
{
	struct fz_qp *q = &z->ctl;
	fz_qp_destroy(z, q);
	return fz_qp_create(z, q) && control_peer(z);
}

static bool setup_qps(struct fz *z)
{
	unsigned n_rc = 20, n_uc = (z->caps & AP_CAP_UC) ? 8 : 0, n_ud = (z->caps & AP_CAP_UD) ? 8 : 0;
	unsigned n_xrc = (z->caps & AP_CAP_XRC) && (z->caps & AP_CAP_SRQ) ? 4 : 0;
	if (!(z->caps & AP_CAP_RC))
		n_rc = 0;
	static const unsigned mtus[] = { 256, 512, 1024, 2048, 4096 };
	unsigned n_mtu = 0;
	while (n_mtu < 5 && mtus[n_mtu] <= z->port_mtu)
		n_mtu++;
	for (unsigned k = 0; k < n_rc + n_uc + n_ud + n_xrc && z->n_qp < FZ_MAX_QPS; k++) {
		struct fz_qp *q = &z->qp[z->n_qp];
		memset(q, 0, sizeof *q);
		q->index = (int)z->n_qp;
		q->kind = k < n_rc ? FZ_Q_RC : k < n_rc + n_uc ? FZ_Q_UC : k < n_rc + n_uc + n_ud ? FZ_Q_UD : FZ_Q_XRC;
		q->t = q->kind == FZ_Q_RC ? ROCE_T_RC : q->kind == FZ_Q_UC ? ROCE_T_UC : q->kind == FZ_Q_UD ? ROCE_T_UD : ROCE_T_XRC;
		/* Every path MTU the port takes; UD's is the port's. */
		q->pmtu = q->kind == FZ_Q_UD ? z->port_mtu : mtus[k % (n_mtu ? n_mtu : 1)];
		q->qkey = 0x11110000u | (uint32_t)k;
		q->cq = q->kind == FZ_Q_UD ? z->cq_ud : q->kind == FZ_Q_UC ? z->cq_uc : z->cq_rc;
		/* A third of the RC QPs take their receives from the SRQ. */
		q->srq = q->kind == FZ_Q_RC && z->srq >= 0 && k % 3 == 0;
		if (!fz_qp_create(z, q))
			return false;
		z->n_qp++;
		if ((q->kind == FZ_Q_UC || q->kind == FZ_Q_UD) && !fz_recv_fill(z, q, 8))
			return false;
	}
	return true;
}

int fz_dut_setup(struct fz *z)
{
	z->srq = z->xrcd = z->xsrq = -1;
	if (!call_handle(z, AP_M_alloc_pd, NULL, "pd", &z->pd[0]) || !call_handle(z, AP_M_alloc_pd, NULL, "pd", &z->pd[1]))
		return -1;
	if (!make_cq(z, &z->cq_rc) || !make_cq(z, &z->cq_uc) || !make_cq(z, &z->cq_ud))
		return -1;
	fz_layout_plan(z);
	int stale = -1;
	for (unsigned i = 0; i < z->n_reg; i++) {
		if (z->reg[i].kind == FZ_RK_MW)
			continue;
		if (!reg_mr(z, (int)i))
			return -1;
		if (!strcmp(z->reg[i].name, "stale"))
			stale = (int)i;
	}
	if (!setup_control(z))
		return -1;
	for (unsigned i = 0; i < z->n_reg; i++)
		if (z->reg[i].kind == FZ_RK_MW && !bind_window(z, (int)i))
			return -1;
	/* The stale region goes last, so that no later registration can be
	 * given its key. */
	if (stale >= 0) {
		JsonObject *p = json_object_new();
		json_object_set_int_member(p, "mr", z->reg[stale].handle);
		if (!fz_call(z, AP_M_dereg_mr, p, NULL))
			return -1;
		z->reg[stale].handle = -1;
		z->reg[stale].valid = false;
		g_free(z->reg[stale].shadow);
		z->reg[stale].shadow = NULL;
	}
	if (z->caps & AP_CAP_SRQ) {
		JsonObject *p = json_object_new();
		json_object_set_int_member(p, "pd", z->pd[0]);
		json_object_set_int_member(p, "max_wr", 256);
		if (!call_handle(z, AP_M_create_srq, p, "srq", &z->srq) || !fz_srq_fill(z, 64))
			return -1;
	}
	if ((z->caps & AP_CAP_XRC) && (z->caps & AP_CAP_SRQ)) {
		JsonObject *p = json_object_new(), *res;
		if (!make_cq(z, &z->cq_xrc) || !call_handle(z, AP_M_alloc_xrcd, NULL, "xrcd", &z->xrcd))
			return -1;
		json_object_set_int_member(p, "pd", z->pd[0]);
		json_object_set_int_member(p, "xrcd", z->xrcd);
		json_object_set_int_member(p, "cq", z->cq_xrc);
		json_object_set_int_member(p, "max_wr", 256);
		if (!fz_call(z, AP_M_create_srq, p, &res))
			return -1;
		uint64_t h = 0, n = 0;
		agent_get_u64(res, "srq", &h);
		agent_get_u64(res, "srqn", &n);
		json_object_unref(res);
		z->xsrq = (int64_t)h;
		z->xsrqn = (uint32_t)n;
		if (!fz_srq_fill(z, 64))
			return -1;
	}
	return setup_qps(z) ? 0 : -1;
}
