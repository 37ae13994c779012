/*
 * The methods of docs/agent-protocol.md, version 1: decoding and checking
 * the parameters (every error names the member and says why), the calls to
 * the backend, and the results.
 */
#include "agent.h"
#include "roce/gid.h"
#include "counters.h"
#include "roce/mad.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "text.h"

const char *agent_err_name(enum agent_err e)
{
	const char *n = ap_error_name((enum ap_error)e);
	return n ? n : ap_error_name(AP_E_DEVICE_ERROR);
}

bool req_fail(struct req *r, enum agent_err e, const char *fmt, ...)
{
	if (r->err)
		return false; /* keep the first error */
	va_list ap;
	va_start(ap, fmt);
	r->err = e;
	text_vprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
	return false;
}

static bool be_fail(struct req *r, const struct be_error *err)
{
	static const enum agent_err map[] = {
		[BE_OK] = AE_DEVICE_ERROR,
		[BE_BAD_REQUEST] = AE_BAD_REQUEST,
		[BE_INVALID_STATE] = AE_INVALID_STATE,
		[BE_RESOURCE_LIMIT] = AE_RESOURCE_LIMIT,
		[BE_UNSUPPORTED] = AE_UNSUPPORTED,
		[BE_DEVICE_ERROR] = AE_DEVICE_ERROR,
	};
	enum agent_err e = (unsigned)err->code < G_N_ELEMENTS(map) ? map[err->code] : AE_DEVICE_ERROR;
	return req_fail(r, e, "%s", err->message[0] ? err->message : "the device failed");
}

/* ---- Parameters ---- */

static JsonNode *member(struct req *r, const char *name)
{
	return json_object_has_member(r->params, name) ? json_object_get_member(r->params, name) : NULL;
}

/* An unsigned integer: a JSON integer, or a string of decimal or 0x hex
 * digits (for 64-bit values above 2^53). */
static bool node_u64(struct req *r, const char *where, JsonNode *n, uint64_t max, uint64_t *out)
{
	if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64) {
		gint64 v = json_node_get_int(n);
		if (v < 0 || (uint64_t)v > max)
			return req_fail(r, AE_BAD_REQUEST, "%s: %" G_GINT64_FORMAT " is out of range 0..%llu",
					where, v, (unsigned long long)max);
		*out = (uint64_t)v;
		return true;
	}
	if (JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING) {
		const char *s = json_node_get_string(n);
		int base = 10;
		const char *digits = s;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			digits = s + 2;
		}
		bool ok = *digits != '\0' && strlen(digits) <= (base == 16 ? 16u : 20u);
		for (const char *p = digits; ok && *p; p++)
			ok = base == 16 ? g_ascii_isxdigit(*p) : g_ascii_isdigit(*p);
		guint64 v = 0;
		if (ok) {
			gchar *end = NULL;
			v = g_ascii_strtoull(digits, &end, base);
			ok = end && *end == '\0' && !(base == 10 && v == G_MAXUINT64 && strcmp(digits, "18446744073709551615") != 0);
		}
		if (!ok)
			return req_fail(r, AE_BAD_REQUEST, "%s: '%.40s' is not a decimal or 0x-hex integer", where, s);
		if (v > max)
			return req_fail(r, AE_BAD_REQUEST, "%s: %llu is out of range 0..%llu", where,
					(unsigned long long)v, (unsigned long long)max);
		*out = v;
		return true;
	}
	return req_fail(r, AE_BAD_REQUEST, "%s: must be an unsigned integer", where);
}

static bool p_u64(struct req *r, const char *name, bool required, uint64_t def, uint64_t max, uint64_t *out)
{
	JsonNode *n = member(r, name);
	if (!n) {
		if (required)
			return req_fail(r, AE_BAD_REQUEST, "params.%s: missing", name);
		*out = def;
		return true;
	}
	char where[80];
	g_snprintf(where, sizeof where, "params.%s", name);
	return node_u64(r, where, n, max, out);
}

static bool p_u32(struct req *r, const char *name, bool required, uint32_t def, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (!p_u64(r, name, required, def, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool p_bool(struct req *r, const char *name, bool def, bool *out)
{
	JsonNode *n = member(r, name);
	if (!n) {
		*out = def;
		return true;
	}
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
		return req_fail(r, AE_BAD_REQUEST, "params.%s: must be true or false", name);
	*out = json_node_get_boolean(n);
	return true;
}

static const char *p_string(struct req *r, const char *name, bool required)
{
	JsonNode *n = member(r, name);
	if (!n) {
		if (required)
			req_fail(r, AE_BAD_REQUEST, "params.%s: missing", name);
		return NULL;
	}
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
		req_fail(r, AE_BAD_REQUEST, "params.%s: must be a string", name);
		return NULL;
	}
	return json_node_get_string(n);
}

/* One of the protocol's words (a NULL-terminated list of them); returns
 * its value (value_of), def when it is absent, or -1 (error set). */
static int p_word(struct req *r, const char *name, bool required, const char *const *words,
		  int (*value_of)(const char *), int def)
{
	const char *s = p_string(r, name, required);
	if (!s)
		return r->err ? -1 : def;
	int v = value_of(s);
	if (v >= 0)
		return v;
	gchar *list = g_strjoinv(", ", (gchar **)words);
	req_fail(r, AE_BAD_REQUEST, "params.%s: '%.40s' is not one of %s", name, s, list);
	g_free(list);
	return -1;
}

static bool p_gid(struct req *r, const char *name, bool required, uint8_t *gid, bool *given)
{
	const char *s = p_string(r, name, required);
	*given = s != NULL;
	if (!s)
		return !r->err;
	if (roce_gid_parse(s, gid))
		return true;
	return req_fail(r, AE_BAD_REQUEST, "params.%s: '%.60s' is not an IPv6 (or IPv4) address", name, s);
}

static bool p_access(struct req *r, const char *name, bool required, unsigned *out, bool *given)
{
	JsonNode *n = member(r, name);
	*given = n != NULL;
	*out = 0;
	if (!n)
		return required ? req_fail(r, AE_BAD_REQUEST, "params.%s: missing", name) : true;
	if (!JSON_NODE_HOLDS_ARRAY(n))
		return req_fail(r, AE_BAD_REQUEST, "params.%s: must be a list of access flags", name);
	JsonArray *a = json_node_get_array(n);
	for (guint i = 0; i < json_array_get_length(a); i++) {
		JsonNode *e = json_array_get_element(a, i);
		const char *s = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING
					? json_node_get_string(e) : NULL;
		int f = ap_access_by_name(s);
		if (f < 0) {
			gchar *list = g_strjoinv(", ", (gchar **)ap_access_words);
			req_fail(r, AE_BAD_REQUEST, "params.%s[%u]: not one of %s", name, i, list);
			g_free(list);
			return false;
		}
		*out |= (unsigned)f;
	}
	return true;
}

static void add_access(JsonBuilder *b, const char *name, unsigned access)
{
	json_builder_set_member_name(b, name);
	json_builder_begin_array(b);
	for (unsigned k = 0; ap_access_words[k]; k++)
		if (access & (unsigned)ap_access_by_name(ap_access_words[k]))
			json_builder_add_string_value(b, ap_access_words[k]);
	json_builder_end_array(b);
}

/* Scatter/gather list: [{mr, offset, length}], each inside its MR. */
static bool p_sges(struct req *r, struct be_sge *out, unsigned max, unsigned *n)
{
	JsonNode *node = member(r, "sge");
	*n = 0;
	if (!node)
		return true;
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return req_fail(r, AE_BAD_REQUEST, "params.sge: must be a list of {mr, offset, length}");
	JsonArray *a = json_node_get_array(node);
	if (json_array_get_length(a) > max)
		return req_fail(r, AE_BAD_REQUEST, "params.sge: %u elements exceed the limit of %u",
				json_array_get_length(a), max);
	for (guint i = 0; i < json_array_get_length(a); i++) {
		JsonNode *e = json_array_get_element(a, i);
		if (!JSON_NODE_HOLDS_OBJECT(e))
			return req_fail(r, AE_BAD_REQUEST, "params.sge[%u]: must be an object {mr, offset, length}", i);
		JsonObject *o = json_node_get_object(e);
		char where[64];
		uint64_t id, off, len;
		static const char *const f[] = { "mr", "offset", "length" };
		uint64_t *v[] = { &id, &off, &len };
		for (int k = 0; k < 3; k++) {
			g_snprintf(where, sizeof where, "params.sge[%u].%s", i, f[k]);
			if (!json_object_has_member(o, f[k]))
				return req_fail(r, AE_BAD_REQUEST, "%s: missing", where);
			if (!node_u64(r, where, json_object_get_member(o, f[k]), k == 2 ? 0xFFFFFFFFull : G_MAXUINT64, v[k]))
				return false;
		}
		struct handle *h = id <= G_MAXUINT ? g_hash_table_lookup(r->s->handles, GUINT_TO_POINTER((guint)id)) : NULL;
		if (!h || h->type != H_MR)
			return req_fail(r, AE_NO_SUCH_HANDLE, "params.sge[%u].mr: no MR %llu in this session", i,
					(unsigned long long)id);
		if (off > h->length || len > h->length - off)
			return req_fail(r, AE_BAD_REQUEST, "params.sge[%u]: offset %llu + length %llu is beyond the end of MR %u (%llu bytes)",
					i, (unsigned long long)off, (unsigned long long)len, h->id,
					(unsigned long long)h->length);
		out[i].mr = h->obj;
		out[i].offset = off;
		out[i].length = (uint32_t)len;
		(*n)++;
	}
	return true;
}

/* ---- Results ---- */

static JsonBuilder *result(struct req *r)
{
	if (!r->result) {
		r->result = json_builder_new();
		json_builder_begin_object(r->result);
	}
	return r->result;
}

static void res_int(struct req *r, const char *name, int64_t v)
{
	json_builder_set_member_name(result(r), name);
	json_builder_add_int_value(r->result, v);
}

/* 64-bit values: a number below 2^53, a decimal string above. */
static void add_u64(JsonBuilder *b, uint64_t v)
{
	if (v < (1ull << 53)) {
		json_builder_add_int_value(b, (gint64)v);
	} else {
		char s[24];
		g_snprintf(s, sizeof s, "%llu", (unsigned long long)v);
		json_builder_add_string_value(b, s);
	}
}

static void res_u64(struct req *r, const char *name, uint64_t v)
{
	json_builder_set_member_name(result(r), name);
	add_u64(r->result, v);
}

static void res_str(struct req *r, const char *name, const char *v)
{
	json_builder_set_member_name(result(r), name);
	if (v)
		json_builder_add_string_value(r->result, v);
	else
		json_builder_add_null_value(r->result);
}

/* ---- Methods ---- */

#define BE(a) ((a)->agent->be)
#define OPS(r) (BE(r->s)->ops)

static bool limit_handles(struct req *r)
{
	if (g_hash_table_size(r->s->handles) >= AGENT_MAX_HANDLES)
		return req_fail(r, AE_RESOURCE_LIMIT, "the session has %u handles, the limit", AGENT_MAX_HANDLES);
	return true;
}

static bool tokens_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	/* Constant time in the secret's length. */
	unsigned char d = (unsigned char)(alen != blen);
	for (size_t i = 0; i < alen; i++)
		d |= (unsigned char)(a[i] ^ (i < blen ? b[i] : 0));
	return d == 0;
}

static void m_hello(struct req *r)
{
	struct session *s = r->s;
	uint64_t version;
	const char *token;
	if (!p_u64(r, "version", true, 0, G_MAXUINT32, &version))
		return;
	if (version != AGENT_PROTOCOL_VERSION) {
		req_fail(r, AE_VERSION_MISMATCH, "params.version: the agent speaks version %d, not %llu",
			 AGENT_PROTOCOL_VERSION, (unsigned long long)version);
		return;
	}
	if (!(token = p_string(r, "token", true)))
		return;
	if (!tokens_equal(s->agent->token, s->agent->token_len, token, strlen(token))) {
		s->auth_failures++;
		req_fail(r, AE_UNAUTHENTICATED, "params.token: wrong token%s",
			 s->auth_failures >= AGENT_MAX_AUTH_FAILURES ? "; closing the connection" : "");
		if (s->auth_failures >= AGENT_MAX_AUTH_FAILURES)
			r->close_after = true;
		return;
	}
	s->authenticated = true;
	struct be_device_attr da;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(s), &da, &err))
		g_strlcpy(da.name, "?", sizeof da.name);
	res_int(r, "version", AGENT_PROTOCOL_VERSION);
	res_str(r, "agent", "roce-agent " ROCE_AGENT_VERSION);
	res_str(r, "backend", s->agent->factory->name);
	res_str(r, "device", da.name);
	res_str(r, "fault", s->agent->factory->fault_name ? s->agent->factory->fault_name(BE(s)) : NULL);
	const struct agent_hostile_info *hi = agent_hostile_info(s->agent->hostile);
	res_str(r, "hostile", hi ? hi->name : NULL);
	/* The DUT host's OS, whose RDMA stack sits between the verbs and the
	 * device (reports name it when it, not the device, did something). */
	struct utsname u;
	if (uname(&u) == 0) {
		char host[3 * sizeof u.release];
		snprintf(host, sizeof host, "%s %s %s", u.sysname, u.release, u.machine);
		res_str(r, "host", host);
	}
}

static void m_bye(struct req *r)
{
	/* Everything is gone before the reply: a tester that opens the next
	 * session at once finds the device free (an rdma_cm port released). */
	session_cleanup(r->s);
	r->close_after = true;
}

static void m_query_device(struct req *r)
{
	struct be_device_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(r->s), &a, &err)) {
		be_fail(r, &err);
		return;
	}
	res_str(r, "name", a.name);
	res_int(r, "vendor_id", a.vendor_id);
	res_int(r, "vendor_part_id", a.vendor_part_id);
	res_str(r, "fw_ver", a.fw_ver);
	res_int(r, "max_qp", a.max_qp);
	res_int(r, "max_qp_wr", a.max_qp_wr);
	res_int(r, "max_sge", a.max_sge);
	res_u64(r, "max_mr_size", a.max_mr_size);
	res_int(r, "max_qp_rd_atom", a.max_qp_rd_atom);
	res_int(r, "max_qp_init_rd_atom", a.max_qp_init_rd_atom);
	static const char *const atomic[] = { "NONE", "HCA", "GLOB" };
	res_str(r, "atomic_cap", atomic[a.atomic_cap <= BE_ATOMIC_GLOB ? a.atomic_cap : 0]);
	json_builder_set_member_name(result(r), "capabilities");
	json_builder_begin_array(r->result);
	for (unsigned i = 0; ap_capability_words[i]; i++)
		if (a.caps & (unsigned)ap_capability_by_name(ap_capability_words[i]))
			json_builder_add_string_value(r->result, ap_capability_words[i]);
	json_builder_end_array(r->result);
}

static void m_query_port(struct req *r)
{
	uint32_t port;
	if (!p_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_port_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_port(BE(r->s), port, &a, &err)) {
		be_fail(r, &err);
		return;
	}
	static const char *const st[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };
	res_str(r, "state", (unsigned)a.state < 5 ? st[a.state] : "DOWN");
	res_int(r, "active_mtu", a.active_mtu);
	res_int(r, "max_mtu", a.max_mtu);
	res_int(r, "gid_tbl_len", a.gid_tbl_len);
	res_str(r, "link_layer", "ETHERNET");
	res_str(r, "netdev", a.netdev[0] ? a.netdev : NULL);
}

static void m_list_gids(struct req *r)
{
	uint32_t port;
	if (!p_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_gid g[256];
	unsigned n = 0;
	struct be_error err = { 0 };
	if (OPS(r)->list_gids(BE(r->s), port, g, G_N_ELEMENTS(g), &n, &err)) {
		be_fail(r, &err);
		return;
	}
	static const char *const types[] = { "IB", "RoCEv1", "RoCEv2" };
	json_builder_set_member_name(result(r), "gids");
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
		json_builder_add_string_value(r->result, types[g[i].type <= BE_GID_ROCE_V2 ? g[i].type : 0]);
		json_builder_end_object(r->result);
	}
	json_builder_end_array(r->result);
}

static void m_alloc_pd(struct req *r)
{
	struct be_pd *pd;
	struct be_error err = { 0 };
	if (!limit_handles(r))
		return;
	if (OPS(r)->alloc_pd(BE(r->s), &pd, &err)) {
		be_fail(r, &err);
		return;
	}
	res_int(r, "pd", session_add(r->s, H_PD, pd)->id);
}

static void m_dealloc_pd(struct req *r)
{
	struct handle *h = session_get(r, "pd", H_PD, true);
	if (!h)
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.pd: PD %u still has %u MRs, QPs or AHs", h->id, h->users);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->dealloc_pd(h->obj, &err)) {
		be_fail(r, &err);
		return;
	}
	session_remove(r->s, h);
}

static void m_create_cq(struct req *r)
{
	uint32_t cqe;
	if (!p_u32(r, "cqe", true, 0, 1u << 20, &cqe) || !limit_handles(r))
		return;
	if (cqe == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.cqe: must be at least 1");
		return;
	}
	struct be_cq *cq;
	struct be_error err = { 0 };
	if (OPS(r)->create_cq(BE(r->s), cqe, &cq, &err)) {
		be_fail(r, &err);
		return;
	}
	res_int(r, "cq", session_add(r->s, H_CQ, cq)->id);
}

static void m_destroy_cq(struct req *r)
{
	struct handle *h = session_get(r, "cq", H_CQ, true);
	if (!h)
		return;
	if (h->users) {
		req_fail(r, AE_INVALID_STATE, "params.cq: CQ %u is still used by %u QP queues", h->id, h->users);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->destroy_cq(h->obj, &err)) {
		be_fail(r, &err);
		return;
	}
	session_remove(r->s, h);
}

static void m_reg_mr(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	uint64_t length;
	uint32_t fill;
	unsigned access;
	bool given;
	if (!pd || !p_u64(r, "length", true, 0, AGENT_MAX_MR, &length) ||
	    !p_access(r, "access", false, &access, &given) || !p_u32(r, "fill", false, 0, 255, &fill) ||
	    !limit_handles(r))
		return;
	if (length == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.length: must be at least 1");
		return;
	}
	if (r->s->mr_bytes + length > AGENT_MAX_SESSION_MR) {
		req_fail(r, AE_RESOURCE_LIMIT, "params.length: the session would register %llu bytes, over the limit of %llu",
			 (unsigned long long)(r->s->mr_bytes + length), (unsigned long long)AGENT_MAX_SESSION_MR);
		return;
	}
	struct be_mr *mr;
	struct be_error err = { 0 };
	if (OPS(r)->reg_mr(pd->obj, length, access, (uint8_t)fill, &mr, &err)) {
		be_fail(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_MR, mr);
	h->pd = pd->id;
	h->length = length;
	pd->users++;
	r->s->mr_bytes += length;
	struct be_mr_info info;
	OPS(r)->mr_info(mr, &info);
	res_int(r, "mr", h->id);
	res_u64(r, "addr", info.addr);
	res_u64(r, "length", info.length);
	res_u64(r, "lkey", info.lkey);
	res_u64(r, "rkey", info.rkey);
}

static void m_dereg_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	if (!h)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->dereg_mr(h->obj, &err)) {
		be_fail(r, &err);
		return;
	}
	session_remove(r->s, h);
}

/* Strict base64 (RFC 4648 with padding); g_base64_decode accepts junk. */
static guchar *b64_decode_strict(const char *s, gsize *out_len)
{
	size_t n = strlen(s);
	if (n % 4)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool pad_ok = c == '=' && i >= n - 2 && (i == n - 1 || s[n - 1] == '=');
		if (!(g_ascii_isalnum(c) || c == '+' || c == '/' || pad_ok))
			return NULL;
	}
	return g_base64_decode(n ? s : "", out_len);
}

static void m_write_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	uint64_t off;
	const char *data;
	if (!h || !p_u64(r, "offset", true, 0, G_MAXUINT64, &off) || !(data = p_string(r, "data", true)))
		return;
	gsize len = 0;
	guchar *bytes = b64_decode_strict(data, &len);
	if (!bytes && *data) {
		req_fail(r, AE_BAD_REQUEST, "params.data: not valid base64 (RFC 4648, with padding)");
		return;
	}
	if (off > h->length || len > h->length - off) {
		req_fail(r, AE_BAD_REQUEST, "params.offset: %llu + %zu bytes is beyond the end of MR %u (%llu bytes)",
			 (unsigned long long)off, (size_t)len, h->id, (unsigned long long)h->length);
		g_free(bytes);
		return;
	}
	struct be_mr_info info;
	OPS(r)->mr_info(h->obj, &info);
	if (len)
		memcpy(info.buf + off, bytes, len);
	g_free(bytes);
}

static void m_read_mr(struct req *r)
{
	struct handle *h = session_get(r, "mr", H_MR, true);
	uint64_t off, len;
	if (!h || !p_u64(r, "offset", true, 0, G_MAXUINT64, &off) || !p_u64(r, "length", true, 0, AGENT_MAX_MR, &len))
		return;
	if (off > h->length || len > h->length - off) {
		req_fail(r, AE_BAD_REQUEST, "params.length: offset %llu + length %llu is beyond the end of MR %u (%llu bytes)",
			 (unsigned long long)off, (unsigned long long)len, h->id, (unsigned long long)h->length);
		return;
	}
	struct be_mr_info info;
	OPS(r)->mr_info(h->obj, &info);
	gchar *b64 = g_base64_encode(info.buf + off, len);
	res_str(r, "data", b64);
	g_free(b64);
}

/* The protocol's QP types as the backends number them (libibverbs'). */
static int qp_type_value(const char *name)
{
	static const enum be_qp_type types[AP_QP_TYPE_COUNT] = {
		[AP_QPT_RC] = BE_QPT_RC, [AP_QPT_UC] = BE_QPT_UC, [AP_QPT_UD] = BE_QPT_UD
	};
	int t = ap_qp_type_by_name(name);
	return t < 0 ? -1 : (int)types[t];
}

static void m_create_qp(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	struct handle *scq = pd ? session_get(r, "send_cq", H_CQ, true) : NULL;
	struct handle *rcq = scq ? session_get(r, "recv_cq", H_CQ, true) : NULL;
	if (!rcq)
		return;
	int type = p_word(r, "type", true, ap_qp_type_words, qp_type_value, -1);
	struct be_qp_init init = { .type = (enum be_qp_type)type, .send_cq = scq->obj, .recv_cq = rcq->obj };
	if (type < 0 || !p_u32(r, "max_send_wr", false, 64, 1u << 20, &init.max_send_wr) ||
	    !p_u32(r, "max_recv_wr", false, 64, 1u << 20, &init.max_recv_wr) ||
	    !p_u32(r, "max_send_sge", false, 4, 1024, &init.max_send_sge) ||
	    !p_u32(r, "max_recv_sge", false, 4, 1024, &init.max_recv_sge) ||
	    !p_bool(r, "sq_sig_all", false, &init.sq_sig_all) || !limit_handles(r))
		return;
	struct be_qp *qp;
	uint32_t qpn;
	struct be_error err = { 0 };
	if (OPS(r)->create_qp(pd->obj, &init, &qp, &qpn, &err)) {
		be_fail(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_QP, qp);
	h->pd = pd->id;
	h->cq[0] = scq->id;
	h->cq[1] = rcq->id;
	h->qpn = qpn;
	pd->users++;
	scq->users++;
	rcq->users++;
	g_hash_table_insert(r->s->qpns, GUINT_TO_POINTER(qpn), GUINT_TO_POINTER(h->id));
	res_int(r, "qp", h->id);
	res_int(r, "qpn", qpn);
}

/* The AV members shared by modify_qp and create_ah. Defaults: sgid_index
 * 0, hop_limit 64, traffic_class 0, flow_label 0, sl 0, port 1. */
static bool p_av(struct req *r, struct be_av *av, bool *given)
{
	uint32_t sgid, hop, tc, fl, sl, port;
	if (!p_gid(r, "dgid", false, av->dgid, given) || !p_u32(r, "sgid_index", false, 0, 255, &sgid) ||
	    !p_u32(r, "hop_limit", false, 64, 255, &hop) || !p_u32(r, "traffic_class", false, 0, 255, &tc) ||
	    !p_u32(r, "flow_label", false, 0, 0xFFFFF, &fl) || !p_u32(r, "sl", false, 0, 15, &sl) ||
	    !p_u32(r, "port", false, 1, 255, &port))
		return false;
	av->sgid_index = (uint8_t)sgid;
	av->hop_limit = (uint8_t)hop;
	av->traffic_class = (uint8_t)tc;
	av->flow_label = fl;
	av->sl = (uint8_t)sl;
	av->port = (uint8_t)port;
	return true;
}

static void m_modify_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_qp_attr a;
	memset(&a, 0, sizeof a);
	int state = p_word(r, "state", false, ap_qp_state_words, ap_qp_state_by_name, -2);
	if (state == -1)
		return;
	if (state >= 0) {
		a.mask |= BE_QPA_STATE;
		a.state = (enum be_qp_state)state;
	}
	struct {
		const char *name;
		unsigned bit;
		uint32_t max;
		uint32_t *u32;
		uint8_t *u8;
		uint16_t *u16;
	} f[] = {
		{ "qkey", BE_QPA_QKEY, 0xFFFFFFFFu, &a.qkey, NULL, NULL },
		{ "path_mtu", BE_QPA_PATH_MTU, 4096, &a.path_mtu, NULL, NULL },
		{ "dest_qpn", BE_QPA_DEST_QPN, 0xFFFFFF, &a.dest_qpn, NULL, NULL },
		{ "rq_psn", BE_QPA_RQ_PSN, 0xFFFFFF, &a.rq_psn, NULL, NULL },
		{ "sq_psn", BE_QPA_SQ_PSN, 0xFFFFFF, &a.sq_psn, NULL, NULL },
		{ "pkey_index", BE_QPA_PKEY_INDEX, 0xFFFF, NULL, NULL, &a.pkey_index },
		{ "max_rd_atomic", BE_QPA_MAX_RD_ATOMIC, 255, NULL, &a.max_rd_atomic, NULL },
		{ "max_dest_rd_atomic", BE_QPA_MAX_DEST_RD_ATOMIC, 255, NULL, &a.max_dest_rd_atomic, NULL },
		{ "min_rnr_timer", BE_QPA_MIN_RNR_TIMER, 31, NULL, &a.min_rnr_timer, NULL },
		{ "timeout", BE_QPA_TIMEOUT, 31, NULL, &a.timeout, NULL },
		{ "retry_cnt", BE_QPA_RETRY_CNT, 7, NULL, &a.retry_cnt, NULL },
		{ "rnr_retry", BE_QPA_RNR_RETRY, 7, NULL, &a.rnr_retry, NULL },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(f); i++) {
		if (!member(r, f[i].name))
			continue;
		uint32_t v;
		if (!p_u32(r, f[i].name, true, 0, f[i].max, &v))
			return;
		a.mask |= f[i].bit;
		if (f[i].u32)
			*f[i].u32 = v;
		else if (f[i].u8)
			*f[i].u8 = (uint8_t)v;
		else
			*f[i].u16 = (uint16_t)v;
	}
	if (member(r, "port")) {
		uint32_t port;
		if (!p_u32(r, "port", true, 1, 255, &port))
			return;
		a.port = (uint8_t)port;
		a.mask |= BE_QPA_PORT;
	}
	bool given;
	if (!p_access(r, "access", false, &a.access, &given))
		return;
	if (given)
		a.mask |= BE_QPA_ACCESS;
	bool dgid;
	if (!p_av(r, &a.av, &dgid))
		return;
	if (dgid) {
		a.mask |= BE_QPA_AV;
	} else {
		static const char *const av_only[] = { "sgid_index", "hop_limit", "traffic_class", "flow_label", "sl" };
		for (size_t i = 0; i < G_N_ELEMENTS(av_only); i++)
			if (member(r, av_only[i])) {
				req_fail(r, AE_BAD_REQUEST, "params.%s: an address vector member needs params.dgid too",
					 av_only[i]);
				return;
			}
	}
	if (!a.mask) {
		req_fail(r, AE_BAD_REQUEST, "params: nothing to modify (no state or attribute given)");
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->modify_qp(h->obj, &a, &err))
		be_fail(r, &err);
}

static void m_query_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_qp_attr a;
	struct be_error err = { 0 };
	if (OPS(r)->query_qp(h->obj, &a, &err)) {
		be_fail(r, &err);
		return;
	}
	const char *state = ap_qp_state_name((enum ap_qp_state)a.state);
	res_str(r, "state", state ? state : ap_qp_state_name(AP_QPS_ERR));
	res_int(r, "qpn", h->qpn);
	if (a.mask & BE_QPA_PORT) res_int(r, "port", a.port);
	if (a.mask & BE_QPA_PKEY_INDEX) res_int(r, "pkey_index", a.pkey_index);
	if (a.mask & BE_QPA_QKEY) res_u64(r, "qkey", a.qkey);
	if (a.mask & BE_QPA_ACCESS) add_access(result(r), "access", a.access);
	if (a.mask & BE_QPA_PATH_MTU) res_int(r, "path_mtu", a.path_mtu);
	if (a.mask & BE_QPA_DEST_QPN) res_int(r, "dest_qpn", a.dest_qpn);
	if (a.mask & BE_QPA_RQ_PSN) res_int(r, "rq_psn", a.rq_psn);
	if (a.mask & BE_QPA_SQ_PSN) res_int(r, "sq_psn", a.sq_psn);
	if (a.mask & BE_QPA_AV) {
		char s[64];
		roce_gid_format(a.av.dgid, s, sizeof s);
		res_str(r, "dgid", s);
		res_int(r, "sgid_index", a.av.sgid_index);
		res_int(r, "hop_limit", a.av.hop_limit);
		res_int(r, "traffic_class", a.av.traffic_class);
		res_int(r, "flow_label", a.av.flow_label);
		res_int(r, "sl", a.av.sl);
	}
	if (a.mask & BE_QPA_MAX_RD_ATOMIC) res_int(r, "max_rd_atomic", a.max_rd_atomic);
	if (a.mask & BE_QPA_MAX_DEST_RD_ATOMIC) res_int(r, "max_dest_rd_atomic", a.max_dest_rd_atomic);
	if (a.mask & BE_QPA_MIN_RNR_TIMER) res_int(r, "min_rnr_timer", a.min_rnr_timer);
	if (a.mask & BE_QPA_TIMEOUT) res_int(r, "timeout", a.timeout);
	if (a.mask & BE_QPA_RETRY_CNT) res_int(r, "retry_cnt", a.retry_cnt);
	if (a.mask & BE_QPA_RNR_RETRY) res_int(r, "rnr_retry", a.rnr_retry);
}

static void m_destroy_qp(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->destroy_qp(h->obj, &err)) {
		be_fail(r, &err);
		return;
	}
	session_remove(r->s, h);
}

/* The passive side of the connection manager: the QP accepts the next
 * connection for the port's IP CM service ID. */
static void m_cm_listen(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	uint32_t port;
	if (!h || !p_u32(r, "port", true, 0, 65535, &port))
		return;
	if (port == 0) {
		req_fail(r, AE_BAD_REQUEST, "params.port: 0 is not a port to listen on; expected 1..65535");
		return;
	}
	if (!OPS(r)->cm_listen) {
		req_fail(r, AE_UNSUPPORTED, "the %s backend has no connection manager", OPS(r)->name);
		return;
	}
	struct be_error err = { 0 };
	if (OPS(r)->cm_listen(h->obj, (uint16_t)port, &err)) {
		be_fail(r, &err);
		return;
	}
	res_u64(r, "service_id", roce_cm_ip_service_id((uint16_t)port));
}

static void m_create_ah(struct req *r)
{
	struct handle *pd = session_get(r, "pd", H_PD, true);
	struct be_av av;
	bool given;
	memset(&av, 0, sizeof av);
	if (!pd || !p_av(r, &av, &given) || !limit_handles(r))
		return;
	if (!given) {
		req_fail(r, AE_BAD_REQUEST, "params.dgid: missing");
		return;
	}
	struct be_ah *ah;
	struct be_error err = { 0 };
	if (OPS(r)->create_ah(pd->obj, &av, &ah, &err)) {
		be_fail(r, &err);
		return;
	}
	struct handle *h = session_add(r->s, H_AH, ah);
	h->pd = pd->id;
	pd->users++;
	res_int(r, "ah", h->id);
}

static void m_destroy_ah(struct req *r)
{
	struct handle *h = session_get(r, "ah", H_AH, true);
	if (!h)
		return;
	struct be_error err = { 0 };
	if (OPS(r)->destroy_ah(h->obj, &err)) {
		be_fail(r, &err);
		return;
	}
	session_remove(r->s, h);
}

#define MAX_WR_SGE 64

static void m_post_recv(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	struct be_sge sge[MAX_WR_SGE];
	struct be_recv_wr wr = { .sge = sge };
	if (!h || !p_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr.wr_id) || !p_sges(r, sge, MAX_WR_SGE, &wr.num_sge))
		return;
	struct be_error err = { 0 };
	if (OPS(r)->post_recv(h->obj, &wr, &err))
		be_fail(r, &err);
}

static void m_post_send(struct req *r)
{
	struct handle *h = session_get(r, "qp", H_QP, true);
	if (!h)
		return;
	struct be_sge sge[MAX_WR_SGE];
	struct be_send_wr wr = { .sge = sge };
	int op = p_word(r, "opcode", true, ap_wr_opcode_words, ap_wr_opcode_by_name, -1);
	if (op < 0)
		return;
	wr.opcode = (enum be_wr_opcode)op;
	struct handle *ah = session_get(r, "ah", H_AH, false);
	if (r->err)
		return;
	if (!p_u64(r, "wr_id", true, 0, G_MAXUINT64, &wr.wr_id) || !p_sges(r, sge, MAX_WR_SGE, &wr.num_sge) ||
	    !p_bool(r, "signaled", true, &wr.signaled) || !p_bool(r, "solicited", false, &wr.solicited) ||
	    !p_u32(r, "imm_data", false, 0, 0xFFFFFFFFu, &wr.imm_data) ||
	    !p_u32(r, "invalidate_rkey", false, 0, 0xFFFFFFFFu, &wr.invalidate_rkey) ||
	    !p_u64(r, "remote_addr", false, 0, G_MAXUINT64, &wr.remote_addr) ||
	    !p_u32(r, "rkey", false, 0, 0xFFFFFFFFu, &wr.rkey) ||
	    !p_u64(r, "compare_add", false, 0, G_MAXUINT64, &wr.compare_add) ||
	    !p_u64(r, "swap", false, 0, G_MAXUINT64, &wr.swap) ||
	    !p_u32(r, "remote_qpn", false, 0, 0xFFFFFF, &wr.remote_qpn) ||
	    !p_u32(r, "remote_qkey", false, 0, 0xFFFFFFFFu, &wr.remote_qkey))
		return;
	wr.ah = ah ? ah->obj : NULL;
	struct be_error err = { 0 };
	if (OPS(r)->post_send(h->obj, &wr, &err))
		be_fail(r, &err);
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
			be_fail(r, &err);
			return -1;
		}
		for (unsigned i = 0; i < n; i++) {
			JsonBuilder *b = result(r);
			if (total == 0 && i == 0) {
				json_builder_set_member_name(b, "completions");
				json_builder_begin_array(b);
			}
			json_builder_begin_object(b);
			json_builder_set_member_name(b, "wr_id");
			add_u64(b, wc[i].wr_id);
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
	json_builder_set_member_name(result(r), "completions");
	json_builder_begin_array(r->result);
	json_builder_end_array(r->result);
}

static void m_poll_cq(struct req *r)
{
	struct handle *cq = session_get(r, "cq", H_CQ, true);
	uint32_t max, timeout;
	if (!cq || !p_u32(r, "max", false, 16, MAX_POLL, &max) ||
	    !p_u32(r, "timeout_ms", false, 0, AGENT_MAX_POLL_MS, &timeout))
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
	/* Wait, without blocking the loop (the soft DUT runs in it). */
	struct session *s = r->s;
	s->poll.active = true;
	s->poll.id = r->id ? json_node_copy(r->id) : NULL;
	s->poll.cq = cq->id;
	s->poll.max = max;
	s->poll.deadline_us = g_get_monotonic_time() + (int64_t)timeout * 1000;
	r->deferred = true;
	session_start_poll_timer(s);
}

bool agent_poll_retry(struct session *s, bool final)
{
	struct req r = { .s = s, .id = s->poll.id };
	struct handle *cq = g_hash_table_lookup(s->handles, GUINT_TO_POINTER(s->poll.cq));
	int n = cq ? poll_into(&r, cq, s->poll.max) : 0;
	if (n == 0 && !final)
		return false;
	if (n == 0 && !r.err)
		empty_completions(&r);
	s->poll.active = false;
	session_send_reply(s, &r);
	if (r.result)
		g_object_unref(r.result);
	if (s->poll.id)
		json_node_unref(s->poll.id);
	s->poll.id = NULL;
	return true;
}

struct counters_ctx {
	JsonBuilder *b;
};

static void emit_counter(void *ctx, const char *name, uint64_t value)
{
	struct counters_ctx *c = ctx;
	json_builder_set_member_name(c->b, name);
	add_u64(c->b, value);
}

static void m_read_counters(struct req *r)
{
	uint32_t port;
	if (!p_u32(r, "port", false, 1, 255, &port))
		return;
	JsonBuilder *b = result(r);
	json_builder_set_member_name(b, "counters");
	json_builder_begin_object(b);
	struct counters_ctx c = { b };
	struct be_error err = { 0 };
	int rc = OPS(r)->read_counters(BE(r->s), port, emit_counter, &c, &err);
	json_builder_end_object(b);
	if (rc)
		be_fail(r, &err);
}

/* Every counter of the port at one moment, with its meaning (counters.c). */
static void m_snapshot_counters(struct req *r)
{
	uint32_t port;
	if (!p_u32(r, "port", false, 1, 255, &port))
		return;
	struct be_device_attr da;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(r->s), &da, &err)) {
		be_fail(r, &err);
		return;
	}
	JsonBuilder *b = result(r);
	if (agent_counter_snapshot(b, OPS(r), BE(r->s), r->s->agent->factory->name, da.name, port, &err))
		be_fail(r, &err);
}

/* ---- Dispatch ---- */

struct method {
	const char *name;
	void (*fn)(struct req *r);
};

static const struct method methods[] = {
#define AP_METHOD(name) { #name, m_##name },
#include "agent_protocol.def"
#undef AP_METHOD
};

/* What the decoder must know before json-glib sees a text: its nesting
 * depth, counted outside strings (json-glib's parser recurses, so a
 * hostile "[[[[..." must not reach it), and whether a string holds an
 * escaped NUL (json-glib keeps it, but every string is then used as a C
 * string: "token\u0000junk" would compare as "token"). */
struct json_shape {
	unsigned depth;
	bool nul;
};

static struct json_shape json_shape(const char *s, size_t len)
{
	struct json_shape sh = { 0, false };
	unsigned depth = 0;
	bool in_str = false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\') {
				if (i + 5 < len && s[i + 1] == 'u' && !memcmp(s + i + 2, "0000", 4))
					sh.nul = true;
				i++;
			} else if (c == '"') {
				in_str = false;
			}
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			if (++depth > sh.depth)
				sh.depth = depth;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return sh;
}

void agent_dispatch(struct session *s, const char *line, size_t len)
{
	struct req r = { .s = s };
	JsonParser *parser = NULL;
	JsonNode *root;
	JsonObject *obj;
	const struct method *m = NULL;

	if (!g_utf8_validate(line, (gssize)len, NULL)) {
		req_fail(&r, AE_BAD_REQUEST, "the message is not valid UTF-8");
		goto reply;
	}
	struct json_shape shape = json_shape(line, len);
	if (shape.depth > AGENT_MAX_JSON_DEPTH) {
		req_fail(&r, AE_BAD_REQUEST, "the message nests deeper than %d levels", AGENT_MAX_JSON_DEPTH);
		goto reply;
	}
	if (shape.nul) {
		req_fail(&r, AE_BAD_REQUEST, "a string holds NUL (\\u0000), which no parameter allows");
		goto reply;
	}
	parser = json_parser_new_immutable();
	GError *gerr = NULL;
	if (!json_parser_load_from_data(parser, line, (gssize)len, &gerr)) {
		req_fail(&r, AE_BAD_REQUEST, "not JSON: %s", gerr ? gerr->message : "parse error");
		g_clear_error(&gerr);
		goto reply;
	}
	root = json_parser_get_root(parser);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
		req_fail(&r, AE_BAD_REQUEST, "the message must be a JSON object");
		goto reply;
	}
	obj = json_node_get_object(root);
	if (json_object_has_member(obj, "id")) {
		JsonNode *id = json_object_get_member(obj, "id");
		if (JSON_NODE_HOLDS_VALUE(id) && json_node_get_value_type(id) == G_TYPE_INT64)
			r.id = json_node_copy(id);
		else {
			req_fail(&r, AE_BAD_REQUEST, "id: must be an integer");
			goto reply;
		}
	} else {
		req_fail(&r, AE_BAD_REQUEST, "id: missing");
		goto reply;
	}
	JsonNode *mn = json_object_has_member(obj, "method") ? json_object_get_member(obj, "method") : NULL;
	if (!mn || !JSON_NODE_HOLDS_VALUE(mn) || json_node_get_value_type(mn) != G_TYPE_STRING) {
		req_fail(&r, AE_BAD_REQUEST, "method: missing or not a string");
		goto reply;
	}
	const char *name = json_node_get_string(mn);
	for (size_t i = 0; i < G_N_ELEMENTS(methods); i++)
		if (strcmp(methods[i].name, name) == 0)
			m = &methods[i];
	if (!m) {
		req_fail(&r, AE_UNKNOWN_METHOD, "method: no method '%.60s'", name);
		goto reply;
	}
	JsonObject *empty = NULL;
	if (json_object_has_member(obj, "params")) {
		JsonNode *p = json_object_get_member(obj, "params");
		if (!JSON_NODE_HOLDS_OBJECT(p)) {
			req_fail(&r, AE_BAD_REQUEST, "params: must be an object");
			goto reply;
		}
		r.params = json_node_get_object(p);
	} else {
		r.params = empty = json_object_new();
	}
	if (!s->authenticated && m->fn != m_hello)
		req_fail(&r, AE_UNAUTHENTICATED, "%s: say hello with the token first", m->name);
	else if (s->authenticated && agent_hostile_refuses(s, m->name))
		req_fail(&r, AE_UNKNOWN_METHOD, "method: no method '%.60s'", name);
	else if (s->authenticated && agent_hostile_intercept(s, m->name))
		r.deferred = true; /* no reply, ever */
	else
		m->fn(&r);
	if (empty)
		json_object_unref(empty);

reply:
	if (!r.deferred) {
		if (r.err && r.result) {
			g_object_unref(r.result);
			r.result = NULL;
		}
		session_send_reply(s, &r);
	}
	if (r.result)
		g_object_unref(r.result);
	if (r.id)
		json_node_unref(r.id);
	if (parser)
		g_object_unref(parser);
}
