/*
 * roce-agent's protocol decoder on arbitrary client bytes: one input is
 * everything one client sends in one session. The bytes go through the
 * real server path (line framing, size limit, UTF-8 and depth checks, JSON,
 * authentication, parameter validation, handles) into the soft backend's
 * object layer (PDs, CQs, MRs, QPs, AHs, SRQs, multicast groups, events,
 * posting, polling), with no network:
 * the session's socket is one end of a socketpair, and the soft device is
 * detached (no interface; what it would transmit is dropped).
 *
 * Checked beyond "no crash, no leak":
 * - every reply is one JSON object with an integer or null id and exactly
 *   one of result / error, the error code one of the protocol's;
 * - when the session ends, every object it created is destroyed (the soft
 *   device's object gauges are back to zero).
 *
 * The bytes are fed in chunks of varying size, so that requests split
 * across reads (slowloris-style) take the same path as whole ones, and a
 * waiting poll_cq reaches its deadline at once. The token is "fuzz-token"
 * and every session's agent nonce the bytes 0, 1, ... 31 (fixed_nonce), so
 * that a seed can authenticate: its authenticate line carries the tester
 * nonce 32, 33, ... 63 and the proof those give (docs/robustness.md says
 * how to compute it), which the dictionary holds too.
 */
#include "../fuzz.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "soft/soft.h"

static struct agent agent;

/* The agent's nonce of every fuzzed session (roce-agent draws it). */
static bool fixed_nonce(uint8_t *out, size_t n, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)i;
	return true;
}
static struct soft_dev *dev;
static char token[] = "fuzz-token";

static const char *const codes[] = {
	"bad_request",   "too_large",   "unauthenticated", "version_mismatch", "unknown_method", "no_such_handle",
	"invalid_state", "resource_limit", "unsupported",  "device_error",     "timeout",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	struct backend_options o = { 0 };
	char err[256];
	dev = soft_dev_new(&o, err, sizeof err);
	if (!dev) {
		fprintf(stderr, "agent_proto: %s\n", err);
		abort();
	}
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 }, peer_mac[6] = { 0x02, 0, 0, 0, 0, 2 };
	memcpy(dev->mac, mac, 6);
	/* GID 0: ::ffff:198.18.0.1, GID 1: 2001:db8::1; the peers' MACs known. */
	static const uint8_t v4[4] = { 198, 18, 0, 1 }, v4peer[16] = { 198, 18, 0, 2 };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t v6peer[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	dev->gids[0].gid[10] = dev->gids[0].gid[11] = 0xff;
	memcpy(dev->gids[0].gid + 12, v4, 4);
	dev->gids[0].ip_version = 4;
	memcpy(dev->gids[1].gid, v6, 16);
	dev->gids[1].ip_version = 6;
	dev->n_gids = 2;
	soft_neigh_learn(dev, 4, v4peer, peer_mac);
	soft_neigh_learn(dev, 6, v6peer, peer_mac);

	agent.be = &dev->base;
	agent.factory = &backend_soft_factory;
	agent.token = token;
	agent.token_len = strlen(token);
	agent.nonce_source = fixed_nonce;
	agent.listen_fd = -1;
	return 0;
}

static bool alive(struct session *s)
{
	return g_list_find(agent.sessions, s) != NULL;
}

static unsigned n_replies, n_errors;

static void check_reply(const char *line, size_t len)
{
	n_replies++;
	JsonParser *parser = json_parser_new_immutable();
	GError *gerr = NULL;
	FUZZ_CHECK(json_parser_load_from_data(parser, line, (gssize)len, &gerr), "reply is not JSON: %.*s",
		   (int)len, line);
	JsonNode *root = json_parser_get_root(parser);
	FUZZ_CHECK(root && JSON_NODE_HOLDS_OBJECT(root), "reply is not an object");
	JsonObject *o = json_node_get_object(root);
	FUZZ_CHECK(json_object_has_member(o, "id"), "reply without id");
	JsonNode *id = json_object_get_member(o, "id");
	FUZZ_CHECK(JSON_NODE_HOLDS_NULL(id) ||
			   (JSON_NODE_HOLDS_VALUE(id) && json_node_get_value_type(id) == G_TYPE_INT64),
		   "reply id is neither an integer nor null");
	bool res = json_object_has_member(o, "result"), err = json_object_has_member(o, "error");
	FUZZ_CHECK(res != err, "a reply needs exactly one of result and error: %.*s", (int)len, line);
	if (err) {
		n_errors++;
		JsonObject *e = json_object_get_object_member(o, "error");
		FUZZ_CHECK(e && json_object_has_member(e, "code") && json_object_has_member(e, "message"),
			   "error without code or message");
		const char *code = json_object_get_string_member(e, "code");
		bool known = false;
		for (size_t i = 0; i < G_N_ELEMENTS(codes); i++)
			known |= code && strcmp(code, codes[i]) == 0;
		FUZZ_CHECK(known, "unknown error code %s", code ? code : "(null)");
	} else {
		FUZZ_CHECK(JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, "result")), "result is not an object");
	}
	g_object_unref(parser);
}

/* Reads what the agent sent and checks each complete line. */
static void drain(int fd, GString *acc)
{
	char buf[65536];
	ssize_t n;
	while ((n = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
		g_string_append_len(acc, buf, n);
	char *nl;
	while ((nl = memchr(acc->str, '\n', acc->len))) {
		size_t len = (size_t)(nl - acc->str);
		check_reply(acc->str, len);
		g_string_erase(acc, 0, (gssize)len + 1);
	}
}

/* Runs the session until it has nothing left to do with what it has: the
 * replies are out and no poll_cq is waiting (a waiting poll_cq is brought
 * to its deadline at once). */
static void pump(struct session *s, int peer, GString *acc)
{
	for (int rounds = 0; rounds < 100000; rounds++) {
		drain(peer, acc);
		if (!alive(s))
			return;
		if (s->poll.active) {
			/* What the poll timer does at the deadline, without the wait. */
			g_source_remove(s->poll_timer);
			s->poll_timer = 0;
			FUZZ_CHECK(agent_poll_retry(s, true), "a poll_cq at its deadline did not reply");
			session_feed(s, "", 0);
			continue;
		}
		if (s->out->len || s->close_queued) {
			g_main_context_iteration(NULL, FALSE);
			continue;
		}
		while (g_main_context_iteration(NULL, FALSE))
			;
		drain(peer, acc);
		return;
	}
	FUZZ_CHECK(false, "the session never settles");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	int big = 4 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	struct session *s = session_open(&agent, sv[0], "fuzz");
	GString *acc = g_string_new(NULL);
	n_replies = n_errors = 0;

	static const size_t chunks[] = { 4096, 1, 7, 300, 65536, 2, 33 };
	size_t off = 0;
	for (unsigned i = 0; off < size && alive(s); i++) {
		size_t n = chunks[i % G_N_ELEMENTS(chunks)];
		if (n > size - off)
			n = size - off;
		session_feed(s, (const char *)data + off, n);
		off += n;
		pump(s, sv[1], acc);
	}
	if (alive(s))
		session_close(s);
	while (g_main_context_iteration(NULL, FALSE))
		;
	drain(sv[1], acc);
	close(sv[1]);
	g_string_free(acc, TRUE);
	if (getenv("ROCE_FUZZ_VERBOSE"))
		fprintf(stderr, "agent_proto: %u replies, %u errors\n", n_replies, n_errors);

	FUZZ_CHECK(agent.n_sessions == 0 && !agent.sessions, "a session outlived its connection");
	const struct soft_counters *c = &dev->cnt;
	FUZZ_CHECK(!c->objects_pd && !c->objects_cq && !c->objects_mr && !c->objects_qp && !c->objects_ah &&
			   !c->objects_srq && !c->mcast_attached,
		   "objects left after the session: pd %llu cq %llu mr %llu qp %llu ah %llu srq %llu attached %llu",
		   (unsigned long long)c->objects_pd, (unsigned long long)c->objects_cq,
		   (unsigned long long)c->objects_mr, (unsigned long long)c->objects_qp,
		   (unsigned long long)c->objects_ah, (unsigned long long)c->objects_srq,
		   (unsigned long long)c->mcast_attached);
	FUZZ_CHECK(g_hash_table_size(dev->qps) == 0 && g_hash_table_size(dev->mrs) == 0,
		   "the device still lists QPs or MRs");
	return 0;
}
