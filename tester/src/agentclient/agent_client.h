/*
 * The tester's side of the agent protocol (docs/agent-protocol.md): JSON
 * lines over TCP, one request and its reply at a time. While a reply is
 * awaited the caller's pump keeps the wire moving, so the DUT's packets
 * are answered even while a verb is in flight. Every call is bounded. A
 * session begins with agent_authenticate: both sides prove they hold the
 * token, which never crosses the wire.
 */
#ifndef ROCE_TESTER_AGENT_CLIENT_H
#define ROCE_TESTER_AGENT_CLIENT_H

#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent_protocol.h"

#define AGENT_PROTOCOL_VERSION AP_VERSION

/* Waits until fd is readable or deadline_ns, doing the caller's work in
 * the meantime. */
typedef void (*agent_pump_fn)(void *ctx, int fd, uint64_t deadline_ns);

/* One request and its outcome, for the results file. */
struct agent_exchange {
	char *method;
	char *request;  /* the JSON line sent */
	char *reply;    /* the JSON line received, or NULL */
	uint64_t sent_ns, reply_ns;
};

struct agent {
	int fd;
	char *where; /* HOST:PORT as given, for messages */
	int64_t next_id;
	char *buf;
	size_t len, cap;
	agent_pump_fn pump;
	void *pump_ctx;
	bool broken; /* the connection cannot be used any more */
	struct agent_exchange *log;
	size_t n_log, cap_log;
	size_t pending; /* requests sent whose replies were not read (agent_send) */
	/* Why the last call failed, until the next call: the agent's error
	 * code ("" unless it answered with an error) and its message, or
	 * what went wrong. Either may be as long as the agent makes it. */
	GString *fail_code, *fail_msg;
};

enum agent_status {
	AGENT_OK = 0,
	AGENT_ERROR_REPLY = 1, /* the agent answered with an error */
	AGENT_BROKEN = -1,     /* no answer: connection lost, timeout, garbage */
};

/* Connects to HOST:PORT (IPv4, IPv6 in brackets, or a name); a is zeroed
 * or was connected before. */
int agent_connect(struct agent *a, const char *hostport, uint64_t timeout_ns, char *err, size_t errlen);
/* Closes the connection and frees what the agent holds but its log. */
void agent_close(struct agent *a);
/* Whether the connection is known to be gone, without waiting: broken
 * already, or the agent hung up (it is then broken, a->fail_msg says so). */
bool agent_hung_up(struct agent *a);
/* Frees the exchange log. */
void agent_log_clear(struct agent *a);

/* Opens the session on a connected agent: hello (the protocol version and
 * the agent's nonce), then authenticate (the tester's nonce and proof; the
 * agent's proof, checked before anything the agent says is believed).
 * token: the shared token (NULL or "" when none was given). On AGENT_OK
 * *info is who the agent is (authenticate's result without its proof;
 * caller unrefs). Otherwise a->fail_msg says why in full, naming the
 * agent (and both protocol versions when they differ), a->fail_code holds
 * the agent's error code when it refused, and the connection is broken: a
 * tester says nothing more to an agent that did not prove itself. */
enum agent_status agent_authenticate(struct agent *a, const char *token, uint64_t timeout_ns, JsonObject **info);

/* Sends method (from the protocol's vocabulary) with params (taken over; may be NULL) and waits for the
 * reply. On AGENT_OK *result is the result object (caller unrefs); on
 * AGENT_ERROR_REPLY a->fail_code and a->fail_msg hold the agent's error;
 * on AGENT_BROKEN a->fail_msg says what went wrong. */
enum agent_status agent_call(struct agent *a, enum ap_method method, JsonObject *params, uint64_t timeout_ns,
			     JsonObject **result);

/* Pipelined calls: agent_send sends a request without waiting, and
 * agent_recv reads the reply to the oldest one still unanswered (the
 * agent answers in order). A poll_cq that waits must not be pipelined:
 * the agent holds back what follows it. agent_call is the two at once,
 * with nothing else pending. */
enum agent_status agent_send(struct agent *a, enum ap_method method, JsonObject *params, uint64_t timeout_ns);
enum agent_status agent_recv(struct agent *a, uint64_t timeout_ns, JsonObject **result);

/* 64-bit values as the protocol writes them: a number below 2^53, else a
 * string. */
void agent_set_u64(JsonObject *o, const char *key, uint64_t v);
bool agent_get_u64(JsonObject *o, const char *key, uint64_t *v);

/* The DUT's RoCEv2 GID for IP version ipv (4 or 6) from query_gids' list:
 * the first global one, else a link-local one; with want_ip (an address
 * in text), only the GID of that address. */
struct agent_gid {
	int index;          /* its sgid_index */
	uint8_t ip[16];     /* the address: 4 bytes for IPv4, 16 for IPv6 */
	char gid[64];       /* the GID as the DUT gave it (< INET6_ADDRSTRLEN) */
};
bool agent_pick_rocev2_gid(JsonArray *gids, int ipv, const char *want_ip, struct agent_gid *out);

#endif
