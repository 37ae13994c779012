/*
 * The tester's side of the agent protocol (docs/agent-protocol.md): JSON
 * lines over TCP, one request and its reply at a time. While a reply is
 * awaited the caller's pump keeps the wire moving, so the DUT's packets
 * are answered even while a verb is in flight. Every call is bounded.
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
	char where[160];
	int64_t next_id;
	char *buf;
	size_t len, cap;
	agent_pump_fn pump;
	void *pump_ctx;
	bool broken; /* the connection cannot be used any more */
	struct agent_exchange *log;
	size_t n_log, cap_log;
};

enum agent_status {
	AGENT_OK = 0,
	AGENT_ERROR_REPLY = 1, /* the agent answered with an error */
	AGENT_BROKEN = -1,     /* no answer: connection lost, timeout, garbage */
};

/* Connects to HOST:PORT (IPv4, IPv6 in brackets, or a name). */
int agent_connect(struct agent *a, const char *hostport, uint64_t timeout_ns, char *err, size_t errlen);
void agent_close(struct agent *a);
/* Frees the exchange log. */
void agent_log_clear(struct agent *a);

/* Sends method with params (taken over; may be NULL) and waits for the
 * reply. On AGENT_OK *result is the result object (caller unrefs); on
 * AGENT_ERROR_REPLY code and msg hold the agent's error; on AGENT_BROKEN
 * msg says what went wrong. */
enum agent_status agent_call(struct agent *a, const char *method, JsonObject *params, uint64_t timeout_ns,
			     JsonObject **result, char *code, size_t codelen, char *msg, size_t msglen);

/* 64-bit values as the protocol writes them: a number below 2^53, else a
 * string. */
void agent_set_u64(JsonObject *o, const char *key, uint64_t v);
bool agent_get_u64(JsonObject *o, const char *key, uint64_t *v);

#endif
