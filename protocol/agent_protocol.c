/* The agent protocol's words (agent_protocol.def) and their lookups. */
#include "agent_protocol.h"

#include <string.h>
#include <strings.h>

static const char *const method_words[] = {
#define AP_METHOD(name) #name,
#include "agent_protocol.def"
#undef AP_METHOD
	NULL
};

static const char *const error_words[] = {
	"none",
#define AP_ERROR(SYM, code) code,
#include "agent_protocol.def"
#undef AP_ERROR
	NULL
};

const char *const ap_wc_status_words[] = {
#define AP_WC_STATUS(SYM) #SYM,
#include "agent_protocol.def"
#undef AP_WC_STATUS
	NULL
};

const char *const ap_wc_opcode_words[] = {
#define AP_WC_OPCODE(SYM, value) #SYM,
#include "agent_protocol.def"
#undef AP_WC_OPCODE
	NULL
};

static const int wc_opcode_values[] = {
#define AP_WC_OPCODE(SYM, value) value,
#include "agent_protocol.def"
#undef AP_WC_OPCODE
};

const char *const ap_wr_opcode_words[] = {
#define AP_WR_OPCODE(SYM, value) #SYM,
#include "agent_protocol.def"
#undef AP_WR_OPCODE
	NULL
};

static const int wr_opcode_values[] = {
#define AP_WR_OPCODE(SYM, value) value,
#include "agent_protocol.def"
#undef AP_WR_OPCODE
};

const char *const ap_access_words[] = {
#define AP_ACCESS(SYM, bit) #SYM,
#include "agent_protocol.def"
#undef AP_ACCESS
	NULL
};

static const int access_values[] = {
#define AP_ACCESS(SYM, bit) bit,
#include "agent_protocol.def"
#undef AP_ACCESS
};

const char *const ap_capability_words[] = {
#define AP_CAPABILITY(SYM, bit) #SYM,
#include "agent_protocol.def"
#undef AP_CAPABILITY
	NULL
};

static const int capability_values[] = {
#define AP_CAPABILITY(SYM, bit) bit,
#include "agent_protocol.def"
#undef AP_CAPABILITY
};

const char *const ap_gid_type_words[] = {
#define AP_GID_TYPE(SYM) #SYM,
#include "agent_protocol.def"
#undef AP_GID_TYPE
	NULL
};

const char *const ap_port_cap_words[] = {
#define AP_PORT_CAP(SYM, bit) #SYM,
#include "agent_protocol.def"
#undef AP_PORT_CAP
	NULL
};

static const int port_cap_values[] = {
#define AP_PORT_CAP(SYM, bit) (int)(bit),
#include "agent_protocol.def"
#undef AP_PORT_CAP
};

const char *const ap_link_layer_words[] = {
#define AP_LINK_LAYER(SYM) #SYM,
#include "agent_protocol.def"
#undef AP_LINK_LAYER
	NULL
};

const char *const ap_raw_qp_type_words[] = {
#define AP_RAW_QP_TYPE(SYM, value) #SYM,
#include "agent_protocol.def"
#undef AP_RAW_QP_TYPE
	NULL
};

static const int raw_qp_type_values[] = {
#define AP_RAW_QP_TYPE(SYM, value) value,
#include "agent_protocol.def"
#undef AP_RAW_QP_TYPE
};

const char *const ap_qp_type_words[] = {
#define AP_QP_TYPE(SYM) #SYM,
#include "agent_protocol.def"
#undef AP_QP_TYPE
	NULL
};

const char *const ap_qp_state_words[] = {
#define AP_QP_STATE(SYM) #SYM,
#include "agent_protocol.def"
#undef AP_QP_STATE
	NULL
};

const char *const ap_event_words[] = {
#define AP_EVENT(SYM, value, about) #SYM,
#include "agent_protocol.def"
#undef AP_EVENT
	NULL
};

static const int event_values[] = {
#define AP_EVENT(SYM, value, about) value,
#include "agent_protocol.def"
#undef AP_EVENT
};

static const int event_abouts[] = {
#define AP_EVENT(SYM, value, about) AP_ABOUT_##about,
#include "agent_protocol.def"
#undef AP_EVENT
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Lists whose values are their positions. */
static const char *name_at(const char *const *words, size_t n, int i)
{
	return i >= 0 && (size_t)i < n ? words[i] : NULL;
}

static int position_of(const char *const *words, const char *name)
{
	for (int i = 0; name && words[i]; i++)
		if (strcmp(words[i], name) == 0)
			return i;
	return -1;
}

/* Lists with values of their own. */
static const char *name_of_value(const char *const *words, const int *values, size_t n, int v)
{
	for (size_t i = 0; i < n; i++)
		if (values[i] == v)
			return words[i];
	return NULL;
}

static int value_of(const char *const *words, const int *values, const char *name)
{
	int i = position_of(words, name);
	return i < 0 ? -1 : values[i];
}

const char *ap_method_name(enum ap_method m) { return name_at(method_words, N(method_words) - 1, (int)m); }
const char *ap_error_name(enum ap_error e) { return name_at(error_words, N(error_words) - 1, (int)e); }
const char *ap_wc_status_name(enum ap_wc_status s) { return name_at(ap_wc_status_words, AP_WC_STATUS_COUNT, (int)s); }
const char *ap_gid_type_name(enum ap_gid_type t) { return name_at(ap_gid_type_words, AP_GID_TYPE_COUNT, (int)t); }
const char *ap_link_layer_name(enum ap_link_layer l) { return name_at(ap_link_layer_words, AP_LINK_LAYER_COUNT, (int)l); }
const char *ap_qp_type_name(enum ap_qp_type t) { return name_at(ap_qp_type_words, AP_QP_TYPE_COUNT, (int)t); }
const char *ap_qp_state_name(enum ap_qp_state s) { return name_at(ap_qp_state_words, AP_QP_STATE_COUNT, (int)s); }

const char *ap_wc_opcode_name(enum ap_wc_opcode o)
{
	return name_of_value(ap_wc_opcode_words, wc_opcode_values, N(wc_opcode_values), (int)o);
}

const char *ap_wr_opcode_name(enum ap_wr_opcode o)
{
	return name_of_value(ap_wr_opcode_words, wr_opcode_values, N(wr_opcode_values), (int)o);
}

const char *ap_access_name(enum ap_access a)
{
	return name_of_value(ap_access_words, access_values, N(access_values), (int)a);
}

const char *ap_port_cap_name(enum ap_port_cap c)
{
	return name_of_value(ap_port_cap_words, port_cap_values, N(port_cap_values), (int)c);
}

const char *ap_raw_qp_type_name(enum ap_raw_qp_type t)
{
	return name_of_value(ap_raw_qp_type_words, raw_qp_type_values, N(raw_qp_type_values), (int)t);
}

const char *ap_capability_name(enum ap_capability c)
{
	return name_of_value(ap_capability_words, capability_values, N(capability_values), (int)c);
}

int ap_method_by_name(const char *name) { return position_of(method_words, name); }
int ap_error_by_name(const char *name) { return position_of(error_words, name); }
int ap_wc_status_by_name(const char *name) { return position_of(ap_wc_status_words, name); }
int ap_gid_type_by_name(const char *name)
{
	for (int i = 0; name && ap_gid_type_words[i]; i++)
		if (strcasecmp(ap_gid_type_words[i], name) == 0)
			return i;
	return -1;
}
int ap_qp_type_by_name(const char *name) { return position_of(ap_qp_type_words, name); }
int ap_link_layer_by_name(const char *name) { return position_of(ap_link_layer_words, name); }
int ap_port_cap_by_name(const char *name) { return value_of(ap_port_cap_words, port_cap_values, name); }
int ap_raw_qp_type_by_name(const char *name) { return value_of(ap_raw_qp_type_words, raw_qp_type_values, name); }
int ap_qp_state_by_name(const char *name) { return position_of(ap_qp_state_words, name); }
int ap_wc_opcode_by_name(const char *name) { return value_of(ap_wc_opcode_words, wc_opcode_values, name); }
int ap_wr_opcode_by_name(const char *name) { return value_of(ap_wr_opcode_words, wr_opcode_values, name); }
int ap_access_by_name(const char *name) { return value_of(ap_access_words, access_values, name); }
int ap_capability_by_name(const char *name) { return value_of(ap_capability_words, capability_values, name); }

const char *ap_event_name(enum ap_event e)
{
	return name_of_value(ap_event_words, event_values, N(event_values), (int)e);
}

int ap_event_by_name(const char *name) { return value_of(ap_event_words, event_values, name); }

int ap_event_about(enum ap_event e)
{
	for (size_t i = 0; i < N(event_values); i++)
		if (event_values[i] == (int)e)
			return event_abouts[i];
	return -1;
}
