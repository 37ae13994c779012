/*
 * roce-agent's protocol side: the TCP server (server.c), sessions and
 * their handles (session.c), and the methods of docs/agent-protocol.md
 * (dispatch.c, request.c and methods_*.c: see methods.h).
 */
#ifndef ROCE_AGENT_AGENT_H
#define ROCE_AGENT_AGENT_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent_auth.h"
#include "backend.h"
#include "hostile.h"

#define AGENT_PROTOCOL_VERSION AP_VERSION
#define AGENT_MAX_MESSAGE (1u << 20)
#define AGENT_MAX_SESSIONS 16
#define AGENT_MAX_HANDLES 4096
#define AGENT_MAX_SESSION_MR (256ull << 20)
#define AGENT_MAX_MR (64ull << 20)
#define AGENT_MAX_POLL_MS 60000
#define AGENT_MAX_JSON_DEPTH 32
#define AGENT_MAX_AUTH_FAILURES 3
#define AGENT_HELLO_TIMEOUT_S 10 /* default --hello-timeout */
#define AGENT_MAX_EVENTS 1024 /* queued per session */

struct agent {
	struct backend *be;
	const struct backend_factory *factory;
	char *token;
	size_t token_len;
	GMainLoop *loop;
	int listen_fd;
	guint listen_watch;
	GList *sessions; /* struct session */
	unsigned n_sessions;
	/* A connection that has not authenticated within this many ms is
	 * closed, so that idle or trickling connections cannot hold the
	 * session slots; 0: no deadline. */
	unsigned hello_timeout_ms;
	bool verbose;
	/* --hostile: the mode (device modes are the backend's business) and,
	 * for the agent modes, the method they strike at. */
	enum agent_hostile hostile;
	const char *hostile_at;
	/* Where each connection's nonce comes from: NULL, the kernel's
	 * generator (ap_auth_random). Only the protocol fuzzer sets one, a
	 * fixed nonce, so that its seeds can authenticate. */
	bool (*nonce_source)(uint8_t *out, size_t n, char *err, size_t errlen);
};

/* Protocol error codes (docs/agent-protocol.md). */
enum agent_err {
	AE_NONE = AP_E_NONE,
#define AP_ERROR(SYM, code) AE_##SYM = AP_E_##SYM,
#include "agent_protocol.def"
#undef AP_ERROR
};

const char *agent_err_name(enum agent_err e);

enum htype { H_PD, H_CQ, H_MR, H_QP, H_AH, H_SRQ, H_MW, H_XRCD };

/* A multicast group a QP is attached to (attach_mcast) or joined through
 * the connection manager (cm_join): undone before the QP is destroyed,
 * since a device refuses to destroy an attached QP. */
struct mcast_member {
	uint8_t gid[16];
	uint16_t lid;
	bool cm;        /* cm_join: left with cm_leave */
	int ip_version; /* cm: the group's IP version */
};

struct handle {
	unsigned id;
	enum htype type;
	void *obj;           /* struct be_pd / be_cq / be_mr / be_qp / be_ah / be_srq / be_mw / be_xrcd */
	unsigned pd;         /* MR, QP, AH, SRQ, MW: their PD's handle */
	unsigned xrcd;       /* XRC SRQ, XRC QP: their XRC domain's handle, 0 for none */
	int mw_type;         /* MW: 1 or 2 */
	unsigned cq[2];      /* QP: send and receive CQ handles */
	unsigned srq;        /* QP: the SRQ its receives come from, 0 for none */
	unsigned users;      /* PD: MRs, QPs, AHs, SRQs, MWs; CQ: QPs, XRC SRQs; SRQ: QPs; XRCD: SRQs, QPs */
	uint64_t length;     /* MR */
	uint32_t qpn;        /* QP */
	enum be_qp_type qp_type; /* QP */
	GArray *mcast;       /* QP: struct mcast_member, NULL when none */
};

/* A bounded wait in progress (poll_cq, get_async_event). */
enum wait_kind { WAIT_CQ, WAIT_EVENTS };

/* An asynchronous event as a session sees it: its own handle or a port. */
struct session_event {
	int type;       /* enum ap_event */
	int about;      /* enum ap_event_about */
	unsigned handle; /* QP, SRQ, CQ */
	unsigned port;
};

/* A request being answered. */
struct req {
	struct session *s;
	JsonNode *id;       /* the request's id (may be NULL) */
	JsonObject *params; /* never NULL once dispatched (empty object) */
	enum agent_err err;
	/* The agent's own sentence: names from its tables, numbers, and at
	 * most 60 characters quoted from the request (%.60s); cut visibly
	 * were it ever longer. */
	char msg[512];
	JsonBuilder *result; /* an object being built, for methods that succeed */
	bool close_after;    /* bye: close once the reply is out */
	bool deferred;       /* poll_cq waiting: the reply comes later */
};

struct session {
	struct agent *agent;
	int fd;
	char peer[80]; /* "ADDRESS:PORT", numeric (NI_NUMERICHOST: 46 + IF_NAMESIZE bytes at most) */
	guint in_watch, out_watch, poll_timer, close_queued, hello_timer;
	GString *in, *out;
	/* Authentication (methods_session.c): the nonce drawn when the
	 * connection opened, whether hello gave it out, and the outcome. */
	uint8_t nonce[AP_AUTH_NONCE_BYTES];
	bool nonce_drawn; /* false: the generator failed, no one authenticates */
	bool greeted;
	bool authenticated;
	unsigned auth_failures;
	bool closing;
	bool hung; /* --hostile agent-hang struck: nothing more is read or answered */
	GHashTable *handles; /* id -> struct handle */
	GHashTable *qpns;    /* qpn -> handle id */
	unsigned next_handle;
	uint64_t mr_bytes;
	/* poll_cq or get_async_event waiting */
	struct {
		bool active;
		enum wait_kind kind;
		JsonNode *id;
		unsigned cq;
		unsigned max;
		int64_t deadline_us;
	} poll;
	/* Asynchronous events routed to this session, oldest first (at most
	 * AGENT_MAX_EVENTS; the oldest go first, counted in events_lost). */
	GQueue *events;
	uint64_t events_lost;
};

/* server.c */
int agent_listen(struct agent *a, const char *hostport, char *err, size_t errlen);
void agent_shutdown(struct agent *a);
/* A session on a connected, non-blocking socket (accepted, or one end of a
 * socketpair for the protocol fuzzer); it owns fd from now on. */
struct session *session_open(struct agent *a, int fd, const char *peer);
/* Bytes received from the peer: framed into requests and answered. */
void session_feed(struct session *s, const char *data, size_t len);
/* Destroys the session's objects and closes its socket. */
void session_close(struct session *s);
void session_send_reply(struct session *s, struct req *r);
void session_start_poll_timer(struct session *s);

/* hostile.c: true when an agent-layer hostile mode takes the request (no
 * reply: the session hangs, or is to be closed). */
bool agent_hostile_intercept(struct session *s, const char *method);
/* agent-refuse: whether the method is refused as unknown. */
bool agent_hostile_refuses(const struct session *s, const char *method);

/* session.c */
void session_init_handles(struct session *s);
struct handle *session_add(struct session *s, enum htype t, void *obj);
/* The handle named by params.<member>, of type t; sets a no_such_handle
 * error on r and returns NULL otherwise. */
struct handle *session_get(struct req *r, const char *member, enum htype t, bool required);
void session_remove(struct session *s, struct handle *h);
/* methods_mcast.c: detaches the QP from its groups and leaves the ones it
 * joined, before it is destroyed; false (err set) when one failed (the
 * others are still undone). */
bool session_qp_leave_groups(struct session *s, struct handle *qp, struct be_error *err);
/* Destroys everything the session created (QPs, AHs, MWs, SRQs, XRCDs,
 * MRs, CQs, PDs); a second call does nothing. */
void session_cleanup(struct session *s);

/* dispatch.c */
void agent_dispatch(struct session *s, const char *line, size_t len);
/* methods_datapath.c: re-polls a waiting poll_cq (or get_async_event);
 * true when it replied. */
bool agent_poll_retry(struct session *s, bool final);

/* methods_events.c: moves the backend's pending asynchronous events to
 * the sessions that own their objects (port and device events to every
 * session). Called before an object goes, so that no event is mapped
 * through a stale pointer, and before a session begins. */
void agent_events_drain(struct agent *a);
/* get_async_event waiting: true when it replied. */
bool agent_events_retry(struct session *s, bool final);
void session_events_free(struct session *s);

/* request.c: sets r's error (the first one stays); returns false. */
bool req_fail(struct req *r, enum agent_err e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
