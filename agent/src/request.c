/*
 * A request's parameters and result: each member decoded and checked (an
 * error names the member and says why; the first error is kept), the
 * result object built, a backend's refusal turned into the protocol's
 * error.
 */
#include "methods.h"
#include "roce/gid.h"

#include <stdarg.h>
#include <string.h>

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

bool req_fail_backend(struct req *r, const struct be_error *err)
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

JsonNode *req_param(struct req *r, const char *name)
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

bool param_u64(struct req *r, const char *name, bool required, uint64_t def, uint64_t max, uint64_t *out)
{
	JsonNode *n = req_param(r, name);
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

bool param_u32(struct req *r, const char *name, bool required, uint32_t def, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (!param_u64(r, name, required, def, max, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

bool param_bool(struct req *r, const char *name, bool def, bool *out)
{
	JsonNode *n = req_param(r, name);
	if (!n) {
		*out = def;
		return true;
	}
	if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
		return req_fail(r, AE_BAD_REQUEST, "params.%s: must be true or false", name);
	*out = json_node_get_boolean(n);
	return true;
}

const char *param_string(struct req *r, const char *name, bool required)
{
	JsonNode *n = req_param(r, name);
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
int param_word(struct req *r, const char *name, bool required, const char *const *words,
	       int (*value_of)(const char *), int def)
{
	const char *s = param_string(r, name, required);
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

static bool param_gid(struct req *r, const char *name, bool required, uint8_t *gid, bool *given)
{
	const char *s = param_string(r, name, required);
	*given = s != NULL;
	if (!s)
		return !r->err;
	if (roce_gid_parse(s, gid))
		return true;
	return req_fail(r, AE_BAD_REQUEST, "params.%s: '%.60s' is not an IPv6 (or IPv4) address", name, s);
}

bool param_access(struct req *r, const char *name, bool required, unsigned *out, bool *given)
{
	JsonNode *n = req_param(r, name);
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

void json_add_access(JsonBuilder *b, const char *name, unsigned access)
{
	json_builder_set_member_name(b, name);
	json_builder_begin_array(b);
	for (unsigned k = 0; ap_access_words[k]; k++)
		if (access & (unsigned)ap_access_by_name(ap_access_words[k]))
			json_builder_add_string_value(b, ap_access_words[k]);
	json_builder_end_array(b);
}

/* Scatter/gather list: [{mr, offset, length}], each inside its MR. */
bool param_sges(struct req *r, struct be_sge *out, unsigned max, unsigned *n)
{
	JsonNode *node = req_param(r, "sge");
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

JsonBuilder *req_result(struct req *r)
{
	if (!r->result) {
		r->result = json_builder_new();
		json_builder_begin_object(r->result);
	}
	return r->result;
}

void result_int(struct req *r, const char *name, int64_t v)
{
	json_builder_set_member_name(req_result(r), name);
	json_builder_add_int_value(r->result, v);
}

/* 64-bit values: a number below 2^53, a decimal string above. */
void json_add_u64(JsonBuilder *b, uint64_t v)
{
	if (v < (1ull << 53)) {
		json_builder_add_int_value(b, (gint64)v);
	} else {
		char s[24];
		g_snprintf(s, sizeof s, "%llu", (unsigned long long)v);
		json_builder_add_string_value(b, s);
	}
}

void result_u64(struct req *r, const char *name, uint64_t v)
{
	json_builder_set_member_name(req_result(r), name);
	json_add_u64(r->result, v);
}

void result_str(struct req *r, const char *name, const char *v)
{
	json_builder_set_member_name(req_result(r), name);
	if (v)
		json_builder_add_string_value(r->result, v);
	else
		json_builder_add_null_value(r->result);
}

bool req_limit_handles(struct req *r)
{
	if (g_hash_table_size(r->s->handles) >= AGENT_MAX_HANDLES)
		return req_fail(r, AE_RESOURCE_LIMIT, "the session has %u handles, the limit", AGENT_MAX_HANDLES);
	return true;
}

/* The AV members shared by modify_qp and create_ah. Defaults: sgid_index
 * 0, hop_limit 64, traffic_class 0, flow_label 0, sl 0, port 1. */
bool param_av(struct req *r, struct be_av *av, bool *given)
{
	uint32_t sgid, hop, tc, fl, sl, port;
	if (!param_gid(r, "dgid", false, av->dgid, given) || !param_u32(r, "sgid_index", false, 0, 255, &sgid) ||
	    !param_u32(r, "hop_limit", false, 64, 255, &hop) || !param_u32(r, "traffic_class", false, 0, 255, &tc) ||
	    !param_u32(r, "flow_label", false, 0, 0xFFFFF, &fl) || !param_u32(r, "sl", false, 0, 15, &sl) ||
	    !param_u32(r, "port", false, 1, 255, &port))
		return false;
	av->sgid_index = (uint8_t)sgid;
	av->hop_limit = (uint8_t)hop;
	av->traffic_class = (uint8_t)tc;
	av->flow_label = fl;
	av->sl = (uint8_t)sl;
	av->port = (uint8_t)port;
	return true;
}
