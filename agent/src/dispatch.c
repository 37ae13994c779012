/*
 * A message of docs/agent-protocol.md to its method: the
 * decoder's own checks (UTF-8, nesting, NUL), the envelope (id, method,
 * params), authentication, and the reply.
 */
#include "methods.h"

#include <string.h>

struct method {
	const char *name;
	void (*fn)(struct req *r);
};

static const struct method methods[] = {
#define AP_METHOD(name) { #name, method_##name },
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
	if (!s->authenticated && m->fn != method_hello && m->fn != method_authenticate)
		req_fail(&r, AE_UNAUTHENTICATED, "%s: say hello and authenticate first", m->name);
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

