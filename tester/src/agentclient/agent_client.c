/* The agent protocol client (see agent_client.h). */
#include "agent_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_auth.h"
#include "roce/roce.h"
#include "rawio.h"
#include "text.h"

#define AGENT_MAX_LINE (1u << 20)

/* HOST and PORT of "HOST:PORT" or "[ADDR]:PORT"; -1 if malformed or if
 * either is longer than any host name or port can be. */
static int split_hostport(const char *hp, char *host, size_t hl, char *port, size_t pl)
{
	const char *colon, *h;
	size_t n;
	if (hp[0] == '[') {
		const char *close = strchr(hp, ']');
		if (!close || close[1] != ':')
			return -1;
		h = hp + 1;
		n = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(hp, ':');
		if (!colon)
			return -1;
		h = hp;
		n = (size_t)(colon - hp);
	}
	if (n == 0 || n >= hl || strlen(colon + 1) >= pl || !colon[1])
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

static void free_text(struct agent *a)
{
	g_free(a->where);
	a->where = NULL;
	if (a->fail_code)
		g_string_free(a->fail_code, TRUE);
	if (a->fail_msg)
		g_string_free(a->fail_msg, TRUE);
	a->fail_code = a->fail_msg = NULL;
}

/* Where the agent is, for messages. */
static const char *where(const struct agent *a)
{
	return a->where ? a->where : "(closed)";
}

int agent_connect(struct agent *a, const char *hostport, uint64_t timeout_ns, char *err, size_t errlen)
{
	agent_pump_fn pump = a->pump;
	void *pump_ctx = a->pump_ctx;
	free_text(a);
	memset(a, 0, sizeof *a);
	a->pump = pump;
	a->pump_ctx = pump_ctx;
	a->fd = -1;
	a->next_id = 1;
	a->where = g_strdup(hostport);
	char host[NI_MAXHOST], port[NI_MAXSERV];
	if (split_hostport(hostport, host, sizeof host, port, sizeof port) != 0) {
		text_printf(err, errlen, "--agent %s: expected HOST:PORT ([ADDR]:PORT for IPv6)", hostport);
		return -1;
	}
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	int r = getaddrinfo(host, port, &hints, &res);
	if (r != 0) {
		text_printf(err, errlen, "agent %s: %s", hostport, gai_strerror(r));
		return -1;
	}
	int fd = -1;
	char why[160] = "no address"; /* strerror's text: one short line */
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
			text_copy(why, sizeof why, strerror(errno));
			close(fd);
			fd = -1;
			continue;
		}
		struct pollfd pf = { fd, POLLOUT, 0 };
		int ms = (int)(timeout_ns / 1000000);
		int soerr = 0;
		socklen_t sl = sizeof soerr;
		if (poll(&pf, 1, ms > 0 ? ms : 1) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr) {
			text_copy(why, sizeof why, soerr ? strerror(soerr) : "connection timed out");
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		text_printf(err, errlen, "agent %s: %s", hostport, why);
		return -1;
	}
	a->fd = fd;
	return 0;
}

void agent_close(struct agent *a)
{
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
	free(a->buf);
	a->buf = NULL;
	a->len = a->cap = 0;
	free_text(a);
}

bool agent_hung_up(struct agent *a)
{
	if (a->broken)
		return true;
	if (a->fd < 0)
		return false;
	char c;
	ssize_t r = recv(a->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		g_string_printf(a->fail_msg, "agent %s closed the connection", where(a));
		a->broken = true;
		return true;
	}
	return false;
}

void agent_log_clear(struct agent *a)
{
	/* Requests still awaiting their replies keep their entries. */
	size_t keep = a->pending < a->n_log ? a->pending : a->n_log;
	for (size_t i = 0; i < a->n_log - keep; i++) {
		free(a->log[i].method);
		free(a->log[i].request);
		free(a->log[i].reply);
	}
	if (keep) {
		memmove(a->log, a->log + a->n_log - keep, keep * sizeof *a->log);
		a->n_log = keep;
		return;
	}
	free(a->log);
	a->log = NULL;
	a->n_log = a->cap_log = 0;
}

static struct agent_exchange *log_new(struct agent *a, const char *method, const char *req)
{
	if (a->n_log == a->cap_log) {
		a->cap_log = a->cap_log ? 2 * a->cap_log : 32;
		struct agent_exchange *l = realloc(a->log, a->cap_log * sizeof *l);
		if (!l)
			abort();
		a->log = l;
	}
	struct agent_exchange *e = &a->log[a->n_log++];
	e->method = strdup(method);
	e->request = strdup(req);
	e->reply = NULL;
	e->sent_ns = rawio_now();
	e->reply_ns = 0;
	return e;
}

static int write_all(int fd, const char *s, size_t n, uint64_t deadline)
{
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w > 0) {
			s += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (rawio_now() >= deadline)
			return -1;
		struct pollfd pf = { fd, POLLOUT, 0 };
		poll(&pf, 1, 10);
	}
	return 0;
}

/* Reads until a whole line is buffered; returns its length (without the
 * newline), 0 on timeout, -1 on a closed or failed connection. */
static long read_line(struct agent *a, uint64_t deadline)
{
	for (;;) {
		char *nl = a->len ? memchr(a->buf, '\n', a->len) : NULL;
		if (nl)
			return nl - a->buf;
		if (a->len >= AGENT_MAX_LINE) {
			g_string_printf(a->fail_msg, "agent %s sent a line longer than 1 MiB", where(a));
			return -1;
		}
		uint64_t now = rawio_now();
		if (now >= deadline)
			return 0;
		if (a->pump) {
			a->pump(a->pump_ctx, a->fd, deadline);
		} else {
			struct pollfd pf = { a->fd, POLLIN, 0 };
			uint64_t left = (deadline - now) / 1000000 + 1;
			poll(&pf, 1, left > 1000 ? 1000 : (int)left);
		}
		if (a->cap - a->len < 65536) {
			a->cap = a->cap ? 2 * a->cap : 65536 * 2;
			char *b = realloc(a->buf, a->cap);
			if (!b)
				abort();
			a->buf = b;
		}
		ssize_t r = recv(a->fd, a->buf + a->len, a->cap - a->len, MSG_DONTWAIT);
		if (r == 0) {
			g_string_printf(a->fail_msg, "agent %s closed the connection", where(a));
			return -1;
		}
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			g_string_printf(a->fail_msg, "agent %s: %s", where(a), strerror(errno));
			return -1;
		}
		a->len += (size_t)r;
	}
}

/* A call begins with no failure recorded. */
static void clear_failure(struct agent *a)
{
	if (!a->fail_code)
		a->fail_code = g_string_new(NULL);
	if (!a->fail_msg)
		a->fail_msg = g_string_new(NULL);
	g_string_truncate(a->fail_code, 0);
	g_string_truncate(a->fail_msg, 0);
}

enum agent_status agent_send(struct agent *a, enum ap_method which, JsonObject *params, uint64_t timeout_ns)
{
	const char *method = ap_method_name(which);
	clear_failure(a);
	if (a->fd < 0 || a->broken) {
		if (params)
			json_object_unref(params);
		g_string_printf(a->fail_msg, "agent %s: not connected", where(a));
		return AGENT_BROKEN;
	}
	int64_t id = a->next_id++;
	JsonObject *req = json_object_new();
	json_object_set_int_member(req, "id", id);
	json_object_set_string_member(req, "method", method);
	if (params)
		json_object_set_object_member(req, "params", params);
	JsonNode *node = json_node_init_object(json_node_alloc(), req);
	char *line = json_to_string(node, FALSE);
	json_node_unref(node);
	json_object_unref(req);
	log_new(a, method, line);
	a->pending++;
	uint64_t deadline = rawio_now() + timeout_ns;
	size_t n = strlen(line);
	line = g_realloc(line, n + 2);
	line[n] = '\n';
	line[n + 1] = '\0';
	int w = write_all(a->fd, line, n + 1, deadline);
	g_free(line);
	if (w != 0) {
		g_string_printf(a->fail_msg, "agent %s: sending %s failed: %s", where(a), method, strerror(errno));
		a->broken = true;
		return AGENT_BROKEN;
	}
	return AGENT_OK;
}

enum agent_status agent_recv(struct agent *a, uint64_t timeout_ns, JsonObject **result)
{
	*result = NULL;
	clear_failure(a);
	if (!a->pending || a->fd < 0 || a->broken) {
		g_string_printf(a->fail_msg, "agent %s: %s", where(a), a->pending ? "not connected" : "no request to answer");
		return AGENT_BROKEN;
	}
	/* The oldest request without its reply: replies come in order. */
	struct agent_exchange *e = &a->log[a->n_log - a->pending];
	a->pending--;
	const char *method = e->method;
	int64_t id = a->next_id - 1 - (int64_t)a->pending;
	uint64_t deadline = rawio_now() + timeout_ns;
	long len = read_line(a, deadline);
	if (len <= 0) {
		if (len == 0)
			g_string_printf(a->fail_msg, "agent %s did not answer %s within %llu ms", where(a), method,
				 (unsigned long long)(timeout_ns / 1000000));
		a->broken = true;
		return AGENT_BROKEN;
	}
	e->reply = strndup(a->buf, (size_t)len);
	e->reply_ns = rawio_now();
	memmove(a->buf, a->buf + len + 1, a->len - (size_t)len - 1);
	a->len -= (size_t)len + 1;

	JsonParser *parser = json_parser_new();
	GError *gerr = NULL;
	enum agent_status st = AGENT_BROKEN;
	if (!json_parser_load_from_data(parser, e->reply, len, &gerr)) {
		g_string_printf(a->fail_msg, "agent %s answered %s with invalid JSON: %s", where(a), method, gerr->message);
		g_error_free(gerr);
		goto out;
	}
	JsonNode *root = json_parser_get_root(parser);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_string_printf(a->fail_msg, "agent %s answered %s with something that is not a JSON object", where(a),
				method);
		goto out;
	}
	JsonObject *reply = json_node_get_object(root);
	JsonNode *idn = json_object_get_member(reply, "id");
	if (!idn || json_node_get_value_type(idn) != G_TYPE_INT64 || json_node_get_int(idn) != id) {
		g_string_printf(a->fail_msg, "agent %s answered %s with the wrong id", where(a), method);
		goto out;
	}
	JsonNode *res = json_object_get_member(reply, "result");
	JsonNode *er = json_object_get_member(reply, "error");
	if (res && JSON_NODE_HOLDS_OBJECT(res) && !er) {
		*result = json_object_ref(json_node_get_object(res));
		st = AGENT_OK;
	} else if (er && JSON_NODE_HOLDS_OBJECT(er) && !res) {
		JsonObject *eo = json_node_get_object(er);
		const char *c = json_object_has_member(eo, "code") ? json_object_get_string_member(eo, "code") : NULL;
		const char *m = json_object_has_member(eo, "message") ? json_object_get_string_member(eo, "message") : NULL;
		g_string_assign(a->fail_code, c ? c : "?");
		g_string_assign(a->fail_msg, m ? m : "");
		st = AGENT_ERROR_REPLY;
	} else {
		g_string_printf(a->fail_msg, "agent %s answered %s with neither one result object nor one error object",
				where(a), method);
	}
out:
	if (st == AGENT_BROKEN)
		a->broken = true;
	g_object_unref(parser);
	return st;
}

enum agent_status agent_call(struct agent *a, enum ap_method which, JsonObject *params, uint64_t timeout_ns,
			     JsonObject **result)
{
	*result = NULL;
	/* A call waits for its own reply: nothing else may be pending. */
	if (a->pending) {
		clear_failure(a);
		g_string_printf(a->fail_msg, "agent %s: %zu pipelined request(s) still unanswered", where(a), a->pending);
		if (params)
			json_object_unref(params);
		return AGENT_BROKEN;
	}
	enum agent_status st = agent_send(a, which, params, timeout_ns);
	if (st != AGENT_OK)
		return st;
	return agent_recv(a, timeout_ns, result);
}

void agent_set_u64(JsonObject *o, const char *key, uint64_t v)
{
	if (v < (1ull << 53)) {
		json_object_set_int_member(o, key, (gint64)v);
	} else {
		char s[24];
		snprintf(s, sizeof s, "0x%llx", (unsigned long long)v);
		json_object_set_string_member(o, key, s);
	}
}

bool agent_get_u64(JsonObject *o, const char *key, uint64_t *v)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return false;
	if (json_node_get_value_type(n) == G_TYPE_INT64) {
		gint64 x = json_node_get_int(n);
		if (x < 0)
			return false;
		*v = (uint64_t)x;
		return true;
	}
	if (json_node_get_value_type(n) == G_TYPE_STRING) {
		const char *s = json_node_get_string(n);
		char *end;
		errno = 0;
		unsigned long long x = strtoull(s, &end, 0);
		if (errno || end == s || *end || s[0] == '-')
			return false;
		*v = x;
		return true;
	}
	return false;
}

/* ---- Authentication (docs/agent-protocol.md, "Authentication") ---- */

/* The handshake failed: no more calls on this connection. */
static enum agent_status auth_failed(struct agent *a, enum agent_status st)
{
	a->broken = true;
	return st;
}

/* An agent's refusal, with what this tester speaks. */
static enum agent_status auth_refused(struct agent *a, const char *method)
{
	GString *m = g_string_new(NULL);
	g_string_printf(m, "agent %s refused %s: %s: %s", where(a), method, a->fail_code->str, a->fail_msg->str);
	if (!strcmp(a->fail_code->str, "version_mismatch"))
		g_string_append_printf(m, " (this tester speaks protocol version %d)", AGENT_PROTOCOL_VERSION);
	else if (!strcmp(a->fail_code->str, "unauthenticated"))
		g_string_append(m, " (the tester's --token-file and the agent's differ)");
	g_string_assign(a->fail_msg, m->str);
	g_string_free(m, TRUE);
	return auth_failed(a, AGENT_ERROR_REPLY);
}

/* hello: the agent's version must be this tester's; its nonce into
 * agent_nonce. */
static enum agent_status say_hello(struct agent *a, uint64_t timeout_ns, uint8_t agent_nonce[AP_AUTH_NONCE_BYTES])
{
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_int_member(p, "version", AGENT_PROTOCOL_VERSION);
	enum agent_status st = agent_call(a, AP_M_hello, p, timeout_ns, &res);
	if (st == AGENT_ERROR_REPLY)
		return auth_refused(a, "hello");
	if (st != AGENT_OK)
		return auth_failed(a, st);
	JsonNode *v = json_object_get_member(res, "version");
	JsonNode *n = json_object_get_member(res, "nonce");
	st = AGENT_BROKEN;
	if (!v || !JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_INT64)
		g_string_printf(a->fail_msg, "agent %s answered hello without its protocol version (this tester speaks %d)",
				where(a), AGENT_PROTOCOL_VERSION);
	else if (json_node_get_int(v) != AGENT_PROTOCOL_VERSION)
		g_string_printf(a->fail_msg, "agent %s answered hello with protocol version %" G_GINT64_FORMAT
				"; this tester speaks version %d", where(a), json_node_get_int(v), AGENT_PROTOCOL_VERSION);
	else if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING ||
		 !ap_auth_decode(json_node_get_string(n), agent_nonce))
		g_string_printf(a->fail_msg, "agent %s answered hello without a nonce (%d bytes in base64)", where(a),
				AP_AUTH_NONCE_BYTES);
	else
		st = AGENT_OK;
	json_object_unref(res);
	return st == AGENT_OK ? st : auth_failed(a, st);
}

enum agent_status agent_authenticate(struct agent *a, const char *token, uint64_t timeout_ns, JsonObject **info)
{
	*info = NULL;
	clear_failure(a);
	size_t token_len = token ? strlen(token) : 0;
	/* A weak token is refused before anything is sent: a fake agent
	 * would get a proof to search offline. */
	char why[256];
	if (!token_len) {
		g_string_printf(a->fail_msg, "agent %s: no token (--token-file FILE, the agent's token)", where(a));
		return auth_failed(a, AGENT_BROKEN);
	}
	if (!ap_auth_token_check(token, token_len, why, sizeof why)) {
		g_string_printf(a->fail_msg, "agent %s: --token-file: %s", where(a), why);
		return auth_failed(a, AGENT_BROKEN);
	}
	uint8_t agent_nonce[AP_AUTH_NONCE_BYTES], tester_nonce[AP_AUTH_NONCE_BYTES];
	enum agent_status st = say_hello(a, timeout_ns, agent_nonce);
	if (st != AGENT_OK)
		return st;
	/* A nonce of the tester's own: the agent's proof answers this
	 * session and no recorded one. */
	if (!ap_auth_random(tester_nonce, sizeof tester_nonce, why, sizeof why)) {
		g_string_printf(a->fail_msg, "agent %s: no nonce for the tester: %s", where(a), why);
		return auth_failed(a, AGENT_BROKEN);
	}
	uint8_t proof[AP_AUTH_PROOF_BYTES];
	char nonce_text[AP_AUTH_B64_SIZE], proof_text[AP_AUTH_B64_SIZE];
	ap_auth_proof(AP_AUTH_TESTER, token, token_len, AGENT_PROTOCOL_VERSION, agent_nonce, tester_nonce, proof);
	ap_auth_encode(tester_nonce, nonce_text);
	ap_auth_encode(proof, proof_text);
	JsonObject *p = json_object_new(), *res = NULL;
	json_object_set_string_member(p, "nonce", nonce_text);
	json_object_set_string_member(p, "proof", proof_text);
	st = agent_call(a, AP_M_authenticate, p, timeout_ns, &res);
	if (st == AGENT_ERROR_REPLY)
		return auth_refused(a, "authenticate");
	if (st != AGENT_OK)
		return auth_failed(a, st);
	/* The agent's proof, before anything it says is believed. */
	uint8_t expected[AP_AUTH_PROOF_BYTES], got[AP_AUTH_PROOF_BYTES];
	ap_auth_proof(AP_AUTH_AGENT, token, token_len, AGENT_PROTOCOL_VERSION, agent_nonce, tester_nonce, expected);
	JsonNode *n = json_object_get_member(res, "proof");
	bool given = n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING &&
		     ap_auth_decode(json_node_get_string(n), got);
	bool proven = given && ap_auth_same(expected, got, sizeof got);
	explicit_bzero(expected, sizeof expected);
	if (!proven) {
		json_object_unref(res);
		g_string_printf(a->fail_msg,
				"agent %s did not prove that it holds the token (%s): its token differs, or it is not "
				"the agent it claims to be; the tester says nothing more to it",
				where(a), given ? "its proof does not match" : "no proof in its answer");
		return auth_failed(a, AGENT_BROKEN);
	}
	json_object_remove_member(res, "proof");
	*info = res;
	return AGENT_OK;
}

bool agent_pick_rocev2_gid(JsonArray *gids, int ipv, const char *want_ip, struct agent_gid *out)
{
	bool have = false;
	size_t iplen = ipv == 4 ? 4 : ROCE_GID_LEN;
	for (guint i = 0; gids && i < json_array_get_length(gids); i++) {
		JsonObject *g = json_array_get_object_element(gids, i);
		const char *gid = json_object_has_member(g, "gid") ? json_object_get_string_member(g, "gid") : NULL;
		const char *type = json_object_has_member(g, "type") ? json_object_get_string_member(g, "type") : NULL;
		uint8_t a[ROCE_GID_LEN], ip[ROCE_GID_LEN];
		if (!gid || !type || ap_gid_type_by_name(type) != AP_GID_RoCEv2 || inet_pton(AF_INET6, gid, a) != 1)
			continue;
		bool link_local = roce_ipv6_is_link_local(a);
		if (roce_gid_to_ip(a, ip) != ipv || (have && link_local))
			continue;
		if (want_ip) {
			uint8_t want[ROCE_GID_LEN];
			if (inet_pton(ipv == 6 ? AF_INET6 : AF_INET, want_ip, want) != 1 || memcmp(ip, want, iplen))
				continue;
		}
		uint64_t idx = 0;
		agent_get_u64(g, "index", &idx);
		out->index = (int)idx;
		memcpy(out->ip, ip, iplen);
		text_copy(out->gid, sizeof out->gid, gid);
		have = true;
		if (!link_local)
			break; /* a global GID wins over a link-local one */
	}
	return have;
}
