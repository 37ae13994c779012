/*
 * What the method files share: decoding and checking a request's
 * parameters (every error names the member and says why), building its
 * result, and the methods of docs/agent-protocol.md themselves, one
 * function per method of protocol/agent_protocol.def (method_<name>).
 *
 *   request.c            parameters, results, errors
 *   methods_session.c    hello, bye
 *   methods_device.c     the device, its ports, GIDs and counters
 *   methods_resources.c  PDs, CQs, MRs (and their memory), AHs
 *   methods_qp.c         QPs: create, modify, query, destroy, cm_listen
 *   methods_rawqp.c      the raw datagram QP a RoCEv2 port must not create
 *   methods_datapath.c   post_send, post_recv, poll_cq
 *   methods_srq.c        shared receive queues
 *   methods_mcast.c      multicast attach and detach, the CM's join and leave
 *   methods_mw.c         memory windows: alloc, dealloc, the type 1 bind
 *   methods_xrc.c        XRC domains
 *   methods_events.c     asynchronous events, routed to their sessions
 *   dispatch.c           a message to its method, the reply
 */
#ifndef ROCE_AGENT_METHODS_H
#define ROCE_AGENT_METHODS_H

#include "agent.h"

/* The session's backend and its operations. */
#define BE(a) ((a)->agent->be)
#define OPS(r) (BE(r->s)->ops)

/* A backend's refusal as the protocol's error (r->err, r->msg); false. */
bool req_fail_backend(struct req *r, const struct be_error *err);
/* A resource limit: the session holds AGENT_MAX_HANDLES handles already. */
bool req_limit_handles(struct req *r);

/* params.<name>, or NULL when absent. */
JsonNode *req_param(struct req *r, const char *name);
/* The param_* decoders: true with *out set (def when absent and not
 * required), or false with r's error set, naming params.<name>. */
bool param_u64(struct req *r, const char *name, bool required, uint64_t def, uint64_t max, uint64_t *out);
bool param_u32(struct req *r, const char *name, bool required, uint32_t def, uint32_t max, uint32_t *out);
bool param_bool(struct req *r, const char *name, bool def, bool *out);
/* NULL when absent (error set if required) or not a string (error set). */
const char *param_string(struct req *r, const char *name, bool required);
/* One of the protocol's words (a NULL-terminated list of them); returns
 * its value (value_of), def when it is absent, or -1 (error set). */
int param_word(struct req *r, const char *name, bool required, const char *const *words,
	       int (*value_of)(const char *), int def);
/* A list of access flags, OR-ed into *out; *given says whether present. */
bool param_access(struct req *r, const char *name, bool required, unsigned *out, bool *given);
/* params.sge: [{mr, offset, length}], each inside its MR of this session. */
bool param_sges(struct req *r, struct be_sge *out, unsigned max, unsigned *n);
/* The address vector members shared by modify_qp and create_ah; *given
 * says whether params.dgid is there. */
bool param_av(struct req *r, struct be_av *av, bool *given);

/* methods_mw.c: a window's binding from params mr, offset, length (0:
 * unbind, mr optional then) and access, inside the MR. */
bool param_mw_bind(struct req *r, struct be_mw_bind *b, bool *unbind);
/* methods_xrc.c: params.xrcd, an XRC domain of the session (NULL when
 * absent, or with r's error set). */
struct handle *param_xrcd(struct req *r, bool required);

/* methods_datapath.c: poll_cq or get_async_event waits (kind; the caller
 * sets s->poll.cq for a CQ) up to timeout_ms, re-polled by a timer; its
 * reply comes later (r->deferred). */
void poll_wait_begin(struct req *r, enum wait_kind kind, unsigned max, uint32_t timeout_ms);
/* The wait is over: r goes as its reply, and what the wait held is freed. */
void poll_wait_end(struct session *s, struct req *r);

/* The most SGEs a work request takes. */
#define AGENT_MAX_WR_SGE 64

/* The result object, begun on first use. */
JsonBuilder *req_result(struct req *r);
void result_int(struct req *r, const char *name, int64_t v);
void result_u64(struct req *r, const char *name, uint64_t v);
void result_str(struct req *r, const char *name, const char *v); /* NULL: null */
/* 64-bit values: a number below 2^53, a decimal string above. */
void json_add_u64(JsonBuilder *b, uint64_t v);
/* name: [the access flags' words]. */
void json_add_access(JsonBuilder *b, const char *name, unsigned access);

#define AP_METHOD(name) void method_##name(struct req *r);
#include "agent_protocol.def"
#undef AP_METHOD

#endif
