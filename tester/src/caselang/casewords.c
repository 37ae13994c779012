/*
 * The case language's vocabulary: the names of errors, step kinds and
 * argument keys, capabilities, CM messages, opcodes by the short names
 * cases use, AETH words, and the shorthands for header fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

static const char *const error_names[CL_ERR_COUNT] = {
	[CL_OK] = "ok",
	[CL_ERR_IO] = "io",
	[CL_ERR_CHAR] = "char",
	[CL_ERR_STRING] = "string",
	[CL_ERR_HEX] = "hex",
	[CL_ERR_NUMBER] = "number",
	[CL_ERR_UNIT] = "unit",
	[CL_ERR_EXPECTED] = "expected",
	[CL_ERR_STATEMENT] = "statement",
	[CL_ERR_HEADER_ORDER] = "header-order",
	[CL_ERR_DUPLICATE] = "duplicate",
	[CL_ERR_MISSING] = "missing",
	[CL_ERR_ARGUMENT] = "argument",
	[CL_ERR_VALUE] = "value",
	[CL_ERR_RULE_ID] = "rule-id",
	[CL_ERR_CAPABILITY] = "capability",
	[CL_ERR_UNDEFINED] = "undefined",
	[CL_ERR_MEMBER] = "member",
	[CL_ERR_KIND] = "kind",
	[CL_ERR_OPCODE] = "opcode",
	[CL_ERR_FIELD] = "field",
	[CL_ERR_LENGTH] = "length",
};

const char *cl_error_name(enum cl_error e)
{
	return (unsigned)e < CL_ERR_COUNT ? error_names[e] : "?";
}

static const char *const step_names[CL_STEP_KIND_COUNT] = {
	[CL_DUT_MR] = "dut mr",
	[CL_DUT_QP] = "dut qp",
	[CL_DUT_POST_RECV] = "dut post_recv",
	[CL_DUT_POST_SEND] = "dut post_send",
	[CL_DUT_WRITE] = "dut write",
	[CL_DUT_READ] = "dut read",
	[CL_DUT_QUERY] = "dut query",
	[CL_DUT_MODIFY] = "dut modify",
	[CL_PEER_MR] = "peer mr",
	[CL_PEER_OP] = "peer",
	[CL_PEER_SET] = "peer set",
	[CL_INJECT] = "inject",
	[CL_EXPECT_PKT] = "expect",
	[CL_EXPECT_NOTHING] = "expect nothing",
	[CL_EXPECT_COMPLETION] = "expect completion",
	[CL_EXPECT_NO_COMPLETION] = "expect no completion",
	[CL_EXPECT_PEER] = "expect peer",
	[CL_EXPECT_MEM] = "expect mem",
	[CL_RULE] = "on",
	[CL_RULES_OFF] = "off",
	[CL_WAIT] = "wait",
	[CL_INFORM] = "inform",
	[CL_CHECK] = "check",
	[CL_MEASURE] = "measure",
	[CL_DUT_LISTEN] = "dut listen",
	[CL_LOAD] = "load",
	[CL_GROUP] = "group",
	[CL_DUT_ATTACH] = "dut attach",
	[CL_DUT_DETACH] = "dut detach",
	[CL_DUT_JOIN] = "dut join",
	[CL_DUT_LEAVE] = "dut leave",
	[CL_EXPECT_JOIN] = "expect join",
	[CL_EXPECT_NO_JOIN] = "expect no join",
	[CL_EXPECT_LEAVE] = "expect leave",
	[CL_PEER_ATTACH] = "peer attach",
	[CL_DUT_SRQ] = "dut srq",
	[CL_DUT_ARM] = "dut arm",
	[CL_DUT_QUERY_SRQ] = "dut query (SRQ)",
	[CL_EXPECT_EVENT] = "expect event",
	[CL_EXPECT_NO_EVENT] = "expect no event",
	[CL_PEER_SRQ] = "peer srq",
	[CL_DUT_MW] = "dut mw",
	[CL_DUT_BIND] = "dut bind",
	[CL_DUT_XRCD] = "dut xrcd",
	[CL_DUT_PORT] = "dut port",
	[CL_DUT_GIDS] = "dut gids",
	[CL_DUT_RAW_QP] = "dut raw_datagram_qp",
	[CL_DUT_PD] = "dut pd",
};

static const char *const key_names[CL_K_COUNT] = {
	[CL_K_FIELD] = "a header field",
#define CL_KEY_NAME(name) [CL_K_##name] = #name,
	CL_ARG_KEYS(CL_KEY_NAME)
#undef CL_KEY_NAME
};

const char *cl_key_name(enum cl_key k)
{
	return (unsigned)k < CL_K_COUNT ? key_names[k] : "?";
}

const char *cl_step_kind_name(enum cl_step_kind k)
{
	return (unsigned)k < CL_STEP_KIND_COUNT ? step_names[k] : "?";
}

/* ---- Capabilities ---- */

/* The DUT's, as the agent reports them, and what the tester's set-up
 * offers. */
static const struct {
	const char *name;
	unsigned bit;
} caps[] = {
#define AP_CAPABILITY(SYM, bit) { #SYM, CL_CAP_##SYM },
#include "agent_protocol.def"
#undef AP_CAPABILITY
	{ "CM", CL_CAP_CM }, { "VLAN", CL_CAP_VLAN },
};

unsigned cl_cap_bit(const char *name)
{
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
		if (!strcasecmp(caps[i].name, name))
			return caps[i].bit;
	return 0;
}

void cl_caps_format(unsigned bits, char *buf, size_t n)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++)
		if (bits & caps[i].bit)
			text_appendf(buf, n, "%s%s", buf[0] ? "," : "", caps[i].name);
}

/* ---- Asynchronous events ---- */

static const struct {
	const char *name;
	int value;
	enum cl_event_about about;
} events[] = {
#define AP_EVENT(SYM, value, ABOUT) { #SYM, value, CL_EVENT_##ABOUT },
#include "agent_protocol.def"
#undef AP_EVENT
};

int cl_event_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
		if (!strcasecmp(events[i].name, name))
			return events[i].value;
	return -1;
}

const char *cl_event_name(int value)
{
	for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
		if (events[i].value == value)
			return events[i].name;
	return NULL;
}

enum cl_event_about cl_event_about(int value)
{
	for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
		if (events[i].value == value)
			return events[i].about;
	return CL_EVENT_DEVICE;
}

/* ---- Opcodes and AETH words ---- */

uint16_t cl_cm_msg_lookup(const char *word)
{
	for (uint16_t attr = ROCE_CM_REQ; attr <= ROCE_CM_APR; attr++) {
		const char *n = roce_cm_msg_name(attr);
		if (!n)
			continue;
		char w[16];
		snprintf(w, sizeof w, "%s", n);
		for (char *c = w; *c; c++)
			if (*c == ' ')
				*c = '_';
		if (!strcmp(w, word))
			return attr;
	}
	return 0;
}

int cl_qp_type_xrc(int t)
{
	/* By name: the protocol's QP types grow XRC_SEND and XRC_RECV with
	 * the agent's XRC support. */
	if (t < 0)
		return 0;
	int send = ap_qp_type_by_name("XRC_SEND"), recv = ap_qp_type_by_name("XRC_RECV");
	return send >= 0 && t == send ? CL_XRC_SEND : recv >= 0 && t == recv ? CL_XRC_RECV : 0;
}

enum roce_transport cl_qp_transport(enum ap_qp_type t)
{
	if (cl_qp_type_xrc((int)t))
		return ROCE_T_XRC;
	return t == AP_QPT_UC ? ROCE_T_UC : t == AP_QPT_UD ? ROCE_T_UD : ROCE_T_RC;
}

int cl_opcode_lookup(int transport, const char *word)
{
	int op = roce_opcode_by_name(word);
	if (op >= 0)
		return op;
	if (!strcasecmp(word, "CNP"))
		return ROCE_OP_CNP;
	static const struct {
		const char *alias, *name;
	} aliases[] = {
		{ "ACK", "Acknowledge" },
		{ "ATOMIC_ACK", "Atomic Acknowledge" },
		{ "CMP_SWAP", "CmpSwap" },
		{ "COMPARE_SWAP", "CmpSwap" },
		{ "FETCH_ADD", "FetchAdd" },
		{ "READ_REQUEST", "RDMA READ Request" },
		{ "READ_RESPONSE_FIRST", "RDMA READ Response First" },
		{ "READ_RESPONSE_MIDDLE", "RDMA READ Response Middle" },
		{ "READ_RESPONSE_LAST", "RDMA READ Response Last" },
		{ "READ_RESPONSE_ONLY", "RDMA READ Response Only" },
		{ "WRITE_FIRST", "RDMA WRITE First" },
		{ "WRITE_MIDDLE", "RDMA WRITE Middle" },
		{ "WRITE_LAST", "RDMA WRITE Last" },
		{ "WRITE_LAST_WITH_IMM", "RDMA WRITE Last with Immediate" },
		{ "WRITE_ONLY", "RDMA WRITE Only" },
		{ "WRITE_ONLY_WITH_IMM", "RDMA WRITE Only with Immediate" },
		{ "SEND_LAST_WITH_IMM", "SEND Last with Immediate" },
		{ "SEND_ONLY_WITH_IMM", "SEND Only with Immediate" },
		{ "SEND_LAST_WITH_INV", "SEND Last with Invalidate" },
		{ "SEND_ONLY_WITH_INV", "SEND Only with Invalidate" },
		{ "SEND_LAST_WITH_INVALIDATE", "SEND Last with Invalidate" },
		{ "SEND_ONLY_WITH_INVALIDATE", "SEND Only with Invalidate" },
		{ "ATOMIC_WRITE", "ATOMIC WRITE" },
	};
	if (transport < 0 || transport > 7)
		return -1;
	/* XRC_SEND_ONLY, RC_ACK: the transport's own name in front. */
	const char *tname = roce_transport_name((enum roce_transport)transport);
	size_t tl = strlen(tname);
	if (!strncasecmp(word, tname, tl) && word[tl] == '_' && word[tl + 1])
		word += tl + 1;
	const char *base = word;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcasecmp(word, aliases[i].alias))
			base = aliases[i].name;
	char full[96];
	snprintf(full, sizeof full, "%s %s", roce_transport_name((enum roce_transport)transport), base);
	op = roce_opcode_by_name(full);
	if (op < 0) {
		snprintf(full, sizeof full, "%s RDMA %s", roce_transport_name((enum roce_transport)transport), base);
		op = roce_opcode_by_name(full);
	}
	return op;
}

/* The agent protocol's completion flags (poll_cq's wc_flags). */
const char *const cl_wc_flag_words[] = { "GRH", "WITH_IMM", "WITH_INV", NULL };

const char *const cl_aeth_kind_words[] = {
#define CL_AETH_NAME(name) #name,
	CL_AETH_KINDS(CL_AETH_NAME)
#undef CL_AETH_NAME
	NULL
};

void cl_aeth_pattern(enum cl_aeth_kind kind, uint8_t *value, uint8_t *mask)
{
	static const struct {
		enum roce_syndrome_type type;
		int code; /* -1: any value of the type */
	} kinds[CL_AETH_KIND_COUNT] = {
		[CL_AETH_ACK] = { ROCE_SYN_ACK, -1 },
		[CL_AETH_RNR] = { ROCE_SYN_RNR_NAK, -1 },
		[CL_AETH_NAK] = { ROCE_SYN_NAK, -1 },
		[CL_AETH_NAK_SEQ] = { ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR },
		[CL_AETH_NAK_INVALID] = { ROCE_SYN_NAK, ROCE_NAK_INVALID_REQUEST },
		[CL_AETH_NAK_ACCESS] = { ROCE_SYN_NAK, ROCE_NAK_REMOTE_ACCESS },
		[CL_AETH_NAK_OPERATIONAL] = { ROCE_SYN_NAK, ROCE_NAK_REMOTE_OP },
		[CL_AETH_NAK_INVALID_RD] = { ROCE_SYN_NAK, ROCE_NAK_INVALID_RD_REQUEST },
	};
	*value = roce_syndrome(kinds[kind].type, kinds[kind].code < 0 ? 0 : (unsigned)kinds[kind].code);
	*mask = kinds[kind].code < 0 ? ROCE_SYNDROME_TYPE_MASK : 0xFF;
}

bool cl_aeth_word(const char *word, uint8_t *value, uint8_t *mask)
{
	for (int k = 0; k < CL_AETH_KIND_COUNT; k++) {
		if (!strcasecmp(word, cl_aeth_kind_words[k])) {
			cl_aeth_pattern((enum cl_aeth_kind)k, value, mask);
			return true;
		}
	}
	return false;
}

/* Shorthands for packet fields in inject, expect and injection rules. The
 * runner maps each to the libroce field of the packet's headers. */
static const struct {
	const char *name, *field, *alt; /* alt: where field's header is not in the packet */
} pseudo_fields[] = {
	{ "psn", "bth.psn", NULL },          { "ackreq", "bth.ackreq", NULL },
	{ "se", "bth.se", NULL },            { "destqp", "bth.destqp", NULL },
	{ "pkey", "bth.pkey", NULL },        { "tver", "bth.tver", NULL },
	{ "padcnt", "bth.padcnt", NULL },    { "fecn", "bth.fecn", NULL },
	{ "becn", "bth.becn", NULL },        { "migreq", "bth.m", NULL },
	{ "syndrome", "aeth.syndrome", NULL }, { "msn", "aeth.msn", NULL },
	{ "remote", "reth.va", "atomiceth.va" }, { "rkey", "reth.rkey", "atomiceth.rkey" },
	{ "dmalen", "reth.dmalen", NULL },   { "imm", "immdt.imm", NULL },
	{ "qkey", "deth.qkey", NULL },       { "srcqp", "deth.srcqp", NULL },
	{ "compare", "atomiceth.cmpdt", NULL }, { "swap", "atomiceth.swapdt", NULL },
	{ "orig", "atomicacketh.orig", NULL },
	{ "ecn", "ipv4.ecn", "ipv6.ecn" },   { "dscp", "ipv4.dscp", "ipv6.dscp" },
	{ "ttl", "ipv4.ttl", "ipv6.hoplimit" },
	{ "srqn", "xrceth.srqn", NULL },
};

bool cl_is_pseudo_field(const char *name)
{
	for (size_t i = 0; i < sizeof pseudo_fields / sizeof pseudo_fields[0]; i++)
		if (!strcmp(pseudo_fields[i].name, name))
			return true;
	return false;
}

struct cl_field cl_field_named(const char *name)
{
	struct cl_field fl = { roce_field_by_name(name), ROCE_F_COUNT, roce_mad_field_by_name(name) };
	for (size_t i = 0; i < sizeof pseudo_fields / sizeof pseudo_fields[0]; i++) {
		if (strcmp(pseudo_fields[i].name, name))
			continue;
		fl.f = roce_field_by_name(pseudo_fields[i].field);
		if (pseudo_fields[i].alt)
			fl.alt = roce_field_by_name(pseudo_fields[i].alt);
		break;
	}
	return fl;
}

enum roce_field cl_field_in(const struct cl_field *fl, int ipv, uint16_t xhdrs)
{
	if (fl->alt == ROCE_F_COUNT)
		return fl->f;
	const struct roce_field_info *fi = roce_field_info(fl->f);
	bool ip = fi->hdr == ROCE_H_IPV4;
	return (ip && ipv == 6) || (!ip && !(xhdrs & ROCE_XHDR_BIT(fi->hdr))) ? fl->alt : fl->f;
}
