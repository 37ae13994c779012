/*
 * The agent protocol's vocabulary (agent_protocol.def) as C: an enum per
 * list, its names as the protocol spells them, and the lookups back.
 * roce-agent and roce-tester both use it; it depends on nothing.
 */
#ifndef ROCE_AGENT_PROTOCOL_H
#define ROCE_AGENT_PROTOCOL_H

#include <stddef.h>

/* Version 2: the token never crosses the wire; hello gives the agent's
 * nonce and authenticate exchanges proofs (agent_auth.h). */
#define AP_VERSION 2

enum ap_method {
#define AP_METHOD(name) AP_M_##name,
#include "agent_protocol.def"
#undef AP_METHOD
	AP_METHOD_COUNT
};

enum ap_error {
	AP_E_NONE = 0,
#define AP_ERROR(SYM, code) AP_E_##SYM,
#include "agent_protocol.def"
#undef AP_ERROR
	AP_ERROR_COUNT
};

enum ap_wc_status {
#define AP_WC_STATUS(SYM) AP_WC_##SYM,
#include "agent_protocol.def"
#undef AP_WC_STATUS
	AP_WC_STATUS_COUNT
};

enum ap_wc_opcode {
#define AP_WC_OPCODE(SYM, value) AP_WC_##SYM = (value),
#include "agent_protocol.def"
#undef AP_WC_OPCODE
};

enum ap_wr_opcode {
#define AP_WR_OPCODE(SYM, value) AP_WR_##SYM = (value),
#include "agent_protocol.def"
#undef AP_WR_OPCODE
};

enum ap_access {
#define AP_ACCESS(SYM, bit) AP_ACCESS_##SYM = (bit),
#include "agent_protocol.def"
#undef AP_ACCESS
};

enum ap_capability {
#define AP_CAPABILITY(SYM, bit) AP_CAP_##SYM = (bit),
#include "agent_protocol.def"
#undef AP_CAPABILITY
};

enum ap_gid_type {
#define AP_GID_TYPE(SYM) AP_GID_##SYM,
#include "agent_protocol.def"
#undef AP_GID_TYPE
	AP_GID_TYPE_COUNT
};

enum ap_port_cap {
#define AP_PORT_CAP(SYM, bit) AP_PORT_##SYM = (int)(bit),
#include "agent_protocol.def"
#undef AP_PORT_CAP
};

enum ap_link_layer {
#define AP_LINK_LAYER(SYM) AP_LINK_##SYM,
#include "agent_protocol.def"
#undef AP_LINK_LAYER
	AP_LINK_LAYER_COUNT
};

enum ap_raw_qp_type {
#define AP_RAW_QP_TYPE(SYM, value) AP_RAW_##SYM = (value),
#include "agent_protocol.def"
#undef AP_RAW_QP_TYPE
};

enum ap_qp_type {
#define AP_QP_TYPE(SYM) AP_QPT_##SYM,
#include "agent_protocol.def"
#undef AP_QP_TYPE
	AP_QP_TYPE_COUNT
};

enum ap_qp_state {
#define AP_QP_STATE(SYM) AP_QPS_##SYM,
#include "agent_protocol.def"
#undef AP_QP_STATE
	AP_QP_STATE_COUNT
};

enum ap_event {
#define AP_EVENT(SYM, value, about) AP_EV_##SYM = (value),
#include "agent_protocol.def"
#undef AP_EVENT
};

/* What an asynchronous event is about (AP_EVENT's third column). */
enum ap_event_about { AP_ABOUT_QP, AP_ABOUT_SRQ, AP_ABOUT_CQ, AP_ABOUT_PORT, AP_ABOUT_DEVICE };

/* The name of a value; NULL when it has none. */
const char *ap_method_name(enum ap_method m);
const char *ap_error_name(enum ap_error e);
const char *ap_wc_status_name(enum ap_wc_status s);
const char *ap_wc_opcode_name(enum ap_wc_opcode o);
const char *ap_wr_opcode_name(enum ap_wr_opcode o);
const char *ap_access_name(enum ap_access a);
const char *ap_capability_name(enum ap_capability c);
const char *ap_gid_type_name(enum ap_gid_type t);
const char *ap_port_cap_name(enum ap_port_cap c);
const char *ap_link_layer_name(enum ap_link_layer l);
const char *ap_raw_qp_type_name(enum ap_raw_qp_type t);
const char *ap_qp_type_name(enum ap_qp_type t);
const char *ap_qp_state_name(enum ap_qp_state s);
const char *ap_event_name(enum ap_event e);
/* What the event is about; -1 for a value that is no event. */
int ap_event_about(enum ap_event e);

/* Back from a name: -1 when it is none of them. */
int ap_method_by_name(const char *name);
int ap_error_by_name(const char *name);
int ap_wc_status_by_name(const char *name);
int ap_wc_opcode_by_name(const char *name);
int ap_wr_opcode_by_name(const char *name);
int ap_access_by_name(const char *name);
int ap_capability_by_name(const char *name);
int ap_gid_type_by_name(const char *name); /* any case: "ROCEV2" too */
int ap_port_cap_by_name(const char *name);
int ap_link_layer_by_name(const char *name);
int ap_raw_qp_type_by_name(const char *name);
int ap_qp_type_by_name(const char *name);
int ap_qp_state_by_name(const char *name);
int ap_event_by_name(const char *name);

/* Each list's names in order, NULL-terminated. */
extern const char *const ap_wc_status_words[];
extern const char *const ap_wc_opcode_words[];
extern const char *const ap_wr_opcode_words[];
extern const char *const ap_access_words[];
extern const char *const ap_capability_words[];
extern const char *const ap_gid_type_words[];
extern const char *const ap_port_cap_words[];
extern const char *const ap_link_layer_words[];
extern const char *const ap_raw_qp_type_words[];
extern const char *const ap_qp_type_words[];
extern const char *const ap_qp_state_words[];
extern const char *const ap_event_words[];

#endif
