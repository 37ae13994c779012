/*
 * The case language's parser. One statement per line; the first word says
 * what it is. Each statement's arguments are checked against a table of
 * what it takes, symbols against what was defined above them, opcodes
 * against the QP's transport, and field names against libroce's layouts.
 * The first error stops the parse with file:line:column and what was
 * expected.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caselang.h"
#include "caselex.h"
#include "roce/counters.h"
#include "roce/roce.h"
#include "text.h"

#define CL_MAX_FILE (4u << 20)

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
	};
	const char *base = word;
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (!strcasecmp(word, aliases[i].alias))
			base = aliases[i].name;
	if (transport < 0 || transport > 7)
		return -1;
	char full[96];
	snprintf(full, sizeof full, "%s %s", roce_transport_name((enum roce_transport)transport), base);
	op = roce_opcode_by_name(full);
	if (op < 0) {
		snprintf(full, sizeof full, "%s RDMA %s", roce_transport_name((enum roce_transport)transport), base);
		op = roce_opcode_by_name(full);
	}
	return op;
}

bool cl_aeth_word(const char *word, uint8_t *value, uint8_t *mask)
{
	static const struct {
		const char *w;
		enum roce_syndrome_type type;
		int code; /* -1: any value of the type */
	} words[] = {
		{ "ACK", ROCE_SYN_ACK, -1 },
		{ "RNR", ROCE_SYN_RNR_NAK, -1 },
		{ "NAK", ROCE_SYN_NAK, -1 },
		{ "NAK_SEQ", ROCE_SYN_NAK, ROCE_NAK_PSN_SEQ_ERR },
		{ "NAK_INVALID", ROCE_SYN_NAK, ROCE_NAK_INVALID_REQUEST },
		{ "NAK_ACCESS", ROCE_SYN_NAK, ROCE_NAK_REMOTE_ACCESS },
		{ "NAK_OPERATIONAL", ROCE_SYN_NAK, ROCE_NAK_REMOTE_OP },
		{ "NAK_INVALID_RD", ROCE_SYN_NAK, ROCE_NAK_INVALID_RD_REQUEST },
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (!strcasecmp(word, words[i].w)) {
			*value = roce_syndrome(words[i].type, words[i].code < 0 ? 0 : (unsigned)words[i].code);
			*mask = words[i].code < 0 ? ROCE_SYNDROME_TYPE_MASK : 0xFF;
			return true;
		}
	}
	return false;
}

/* ---- Argument tables ---- */

#define F_EXPR 0x01u
#define F_BYTES 0x02u
#define F_WORD 0x04u
#define F_LIST 0x08u
#define F_BIND 0x10u
#define F_DUR 0x20u
#define F_CMP 0x40u    /* comparisons other than '=' */
#define F_RESULT 0x80u /* only after '->' */
#define F_FIELD 0x100u /* stands for a table of packet fields (inject, expect, on) */

struct argspec {
	const char *key; /* "*": any header field */
	enum cl_key id;
	unsigned forms;
	const char *const *words; /* allowed words for F_WORD / F_LIST, NULL: any */
	size_t slot;              /* where the step keeps it by name (cl_step.a), 0: nowhere */
	struct cl_default def;
};

/* An argument the runner reads by name, with its default: ARG(step kind
 * member of cl_step.a, name, forms, words, default). CHK: one read in
 * written order (a constraint, a setting), without a default. */
#define ARG(kind, name, forms, words, def) { #name, CL_K_##name, forms, words, offsetof(struct cl_step, a.kind.name), def }
#define CHK(name, forms, words) { #name, CL_K_##name, forms, words, 0, NO_DEF }
#define FIELDS(forms) { "*", CL_K_FIELD, (forms) | F_FIELD, NULL, 0, NO_DEF }
#define END { NULL, CL_K_FIELD, 0, NULL, 0, NO_DEF }
#define NO_DEF { CL_DEF_NONE, 0, NULL }
#define NUM(n) { CL_DEF_NUM, (n), NULL }
#define WORD(w) { CL_DEF_WORD, 0, (w) }
#define RUN(what) { CL_DEF_RUN, 0, (what) }

/* The agent protocol's words (protocol/agent_protocol.def). */
#define w_qp_type ap_qp_type_words
#define w_access ap_access_words
#define w_state ap_qp_state_words
#define w_status ap_wc_status_words
#define w_wc_opcode ap_wc_opcode_words
static const char *const w_onoff[] = { "on", "off", NULL };
static const char *const w_bringup[] = { "RESET", "INIT", "RTR", "RTS", NULL };
static const char *const w_icrc[] = { "good", "bad", NULL };
static const char *const w_proto[] = { "v1", "v2", NULL };

#define STEP_INDEX RUN("the step's index")
#define QP_PROTO RUN("the QP's (its GID's protocol)")
#define ALL_REMOTE "REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC"

static const struct argspec a_dut_mr[] = {
	ARG(dut_mr, size, F_EXPR, NULL, NUM(4096)),
	ARG(dut_mr, access, F_WORD | F_LIST, w_access, WORD("LOCAL_WRITE," ALL_REMOTE)),
	ARG(dut_mr, fill, F_EXPR, NULL, NUM(0)), END
};
static const struct argspec a_dut_qp[] = {
	ARG(dut_qp, type, F_WORD, w_qp_type, WORD("RC")),
	ARG(dut_qp, pmtu, F_EXPR, NULL, RUN("the case's pmtu; for UD the DUT port's active MTU")),
	ARG(dut_qp, psn, F_EXPR, NULL, RUN("random")),
	ARG(dut_qp, peer_psn, F_EXPR, NULL, RUN("random")),
	ARG(dut_qp, timeout, F_EXPR, NULL, NUM(14)),
	ARG(dut_qp, retry_cnt, F_EXPR, NULL, NUM(7)),
	ARG(dut_qp, rnr_retry, F_EXPR, NULL, NUM(7)),
	ARG(dut_qp, min_rnr_timer, F_EXPR, NULL, NUM(12)),
	ARG(dut_qp, max_rd_atomic, F_EXPR, NULL, NUM(4)),
	ARG(dut_qp, max_dest_rd_atomic, F_EXPR, NULL, NUM(4)),
	/* Of these, those the transport has (UC: REMOTE_WRITE). */
	ARG(dut_qp, access, F_WORD | F_LIST, w_access, WORD(ALL_REMOTE)),
	ARG(dut_qp, qkey, F_EXPR, NULL, NUM(0x11111111)),
	ARG(dut_qp, traffic_class, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, hop_limit, F_EXPR, NULL, NUM(64)),
	ARG(dut_qp, flow_label, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, udp_sport, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, peer_timeout, F_EXPR, NULL, NUM(50)),
	ARG(dut_qp, peer_retry_cnt, F_EXPR, NULL, NUM(7)),
	ARG(dut_qp, ip, F_EXPR, NULL, RUN("the run's IP version")),
	ARG(dut_qp, state, F_WORD, w_bringup, WORD("RTS")),
	ARG(dut_qp, sl, F_EXPR, NULL, RUN("the run's VLAN priority (run --vlan-pcp), 0 without a VLAN")),
	ARG(dut_qp, proto, F_WORD, w_proto, WORD("v2")), END
};
static const struct argspec a_post_recv[] = {
	ARG(post_recv, offset, F_EXPR, NULL, NUM(0)),
	ARG(post_recv, len, F_EXPR, NULL, RUN("the MR's length")),
	ARG(post_recv, wr_id, F_EXPR, NULL, STEP_INDEX), END
};
static const struct argspec a_post_send[] = {
	ARG(post_send, offset, F_EXPR, NULL, NUM(0)),
	ARG(post_send, len, F_EXPR, NULL, RUN("the MR's length; 0 without an MR")),
	ARG(post_send, wr_id, F_EXPR, NULL, STEP_INDEX),
	ARG(post_send, remote, F_EXPR, NULL, NO_DEF), ARG(post_send, rkey, F_EXPR, NULL, NO_DEF),
	ARG(post_send, imm, F_EXPR, NULL, NO_DEF), ARG(post_send, compare, F_EXPR, NULL, NO_DEF),
	ARG(post_send, swap, F_EXPR, NULL, NO_DEF), ARG(post_send, add, F_EXPR, NULL, NO_DEF),
	ARG(post_send, signaled, F_WORD, w_onoff, WORD("on")),
	ARG(post_send, solicited, F_WORD, w_onoff, WORD("off")),
	ARG(post_send, invalidate, F_EXPR, NULL, NO_DEF),
	ARG(post_send, remote_qkey, F_EXPR, NULL, RUN("the tester QP's Q_Key")),
	ARG(post_send, proto, F_WORD, w_proto, QP_PROTO), END
};
static const struct argspec a_dut_write[] = {
	ARG(dut_write, offset, F_EXPR, NULL, NUM(0)), ARG(dut_write, data, F_BYTES, NULL, NO_DEF), END
};
static const struct argspec a_dut_read[] = {
	ARG(dut_read, offset, F_EXPR, NULL, NUM(0)),
	ARG(dut_read, len, F_EXPR, NULL, RUN("the length of data=")),
	ARG(dut_read, data, F_BYTES | F_RESULT, NULL, NO_DEF),
	ARG(dut_read, l3_header, F_WORD | F_RESULT, NULL, NO_DEF), END
};
#define QUERIED (F_EXPR | F_BIND | F_RESULT | F_CMP)
static const struct argspec a_dut_query[] = {
	CHK(state, F_WORD | F_RESULT | F_CMP, w_state), CHK(sq_psn, QUERIED, NULL), CHK(rq_psn, QUERIED, NULL),
	/* The address vector as the device holds it (RC, UC). */
	CHK(hop_limit, QUERIED, NULL), CHK(traffic_class, QUERIED, NULL), CHK(flow_label, QUERIED, NULL),
	CHK(sl, QUERIED, NULL), END
};
/* The attributes other than state go to modify_qp by their names. */
static const struct argspec a_dut_modify[] = {
	ARG(dut_modify, state, F_WORD, w_state, WORD("RTS")), CHK(sq_psn, F_EXPR, NULL), CHK(rq_psn, F_EXPR, NULL),
	CHK(timeout, F_EXPR, NULL), CHK(retry_cnt, F_EXPR, NULL), CHK(rnr_retry, F_EXPR, NULL),
	CHK(min_rnr_timer, F_EXPR, NULL), ARG(dut_modify, access, F_WORD | F_LIST, w_access, NO_DEF), END
};
static const struct argspec a_peer_mr[] = {
	ARG(peer_mr, size, F_EXPR, NULL, NUM(4096)), ARG(peer_mr, fill, F_EXPR, NULL, NUM(0)),
	ARG(peer_mr, access, F_WORD | F_LIST, w_access, WORD(ALL_REMOTE)), END
};
static const struct argspec a_peer_op[] = {
	ARG(peer_op, len, F_EXPR, NULL, RUN("64; 0 for read")), ARG(peer_op, data, F_BYTES, NULL, NO_DEF),
	ARG(peer_op, imm, F_EXPR, NULL, NO_DEF), ARG(peer_op, invalidate, F_EXPR, NULL, NO_DEF),
	ARG(peer_op, wr_id, F_EXPR, NULL, STEP_INDEX), ARG(peer_op, remote, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, rkey, F_EXPR, NULL, NUM(0)), ARG(peer_op, compare, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, swap, F_EXPR, NULL, NUM(0)), ARG(peer_op, add, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, solicited, F_WORD, w_onoff, WORD("off")), END
};
static const struct argspec a_peer_set[] = {
	CHK(auto, F_WORD, w_onoff), CHK(rnr, F_WORD, w_onoff), CHK(ack, F_WORD, w_onoff),
	CHK(rnr_timer, F_EXPR, NULL), CHK(psn, F_EXPR, NULL), CHK(recv, F_EXPR, NULL), END
};
static const char *const w_other[] = { "other", NULL };
static const struct argspec a_inject[] = {
	ARG(inject, len, F_EXPR, NULL, RUN("the PMTU for a First or Middle packet, 16 for other packets with a payload, else 0")),
	ARG(inject, data, F_BYTES, NULL, NO_DEF), ARG(inject, icrc, F_WORD | F_EXPR, w_icrc, NO_DEF),
	ARG(inject, ip_options, F_BYTES, NULL, NO_DEF), ARG(inject, src_ip, F_WORD, w_other, NO_DEF),
	ARG(inject, dst_ip, F_WORD, w_other, NO_DEF), ARG(inject, repeat, F_EXPR, NULL, NUM(1)),
	ARG(inject, every, F_EXPR, NULL, NUM(0)), ARG(inject, proto, F_WORD, w_proto, QP_PROTO),
	FIELDS(F_EXPR), END
};
#define OBSERVED (F_EXPR | F_BIND | F_CMP)
static const struct argspec a_expect_pkt[] = {
	CHK(len, OBSERVED, NULL), CHK(data, F_BYTES, NULL), CHK(icrc, F_WORD, w_icrc), CHK(delay, OBSERVED, NULL),
	CHK(pcp, OBSERVED, NULL), CHK(vid, OBSERVED, NULL), CHK(aeth, F_WORD | F_LIST, NULL), CHK(proto, F_WORD, w_proto),
	FIELDS(OBSERVED), END
};
static const struct argspec a_expect_completion[] = {
	CHK(wr_id, F_EXPR | F_BIND, NULL), CHK(status, F_WORD | F_LIST | F_CMP, w_status), CHK(opcode, F_WORD, w_wc_opcode),
	CHK(byte_len, OBSERVED, NULL), CHK(imm, F_EXPR | F_BIND, NULL), CHK(src_qp, F_EXPR | F_BIND, NULL), END
};
static const struct argspec a_expect_peer[] = {
	CHK(wr_id, F_EXPR | F_BIND, NULL), CHK(status, F_WORD | F_LIST | F_CMP, w_status), CHK(value, F_EXPR | F_BIND, NULL),
	CHK(data, F_BYTES, NULL), END
};
static const struct argspec a_expect_mem[] = {
	ARG(expect_mem, offset, F_EXPR, NULL, NUM(0)), ARG(expect_mem, data, F_BYTES, NULL, NO_DEF), END
};
static const struct argspec a_rule[] = {
	ARG(rule, opcode, F_WORD, NULL, NO_DEF), ARG(rule, psn, F_EXPR, NULL, NO_DEF),
	ARG(rule, round, F_EXPR, NULL, NO_DEF), ARG(rule, nth, F_EXPR, NULL, NUM(0)),
	ARG(rule, count, F_EXPR, NULL, NUM(0)), END
};
#define MEASURED (F_EXPR | F_BIND | F_CMP | F_RESULT)
/* count, duration and rate bound the load only when given (load_step.h:
 * 0 is no bound of that kind). */
static const struct argspec a_load[] = {
	ARG(load, len, F_EXPR, NULL, NUM(64)), ARG(load, remote, F_EXPR, NULL, NO_DEF),
	ARG(load, rkey, F_EXPR, NULL, NO_DEF), ARG(load, count, F_EXPR, NULL, NO_DEF),
	ARG(load, duration, F_EXPR, NULL, NO_DEF), ARG(load, rate, F_EXPR, NULL, NO_DEF),
	CHK(posted, MEASURED, NULL), CHK(completed, MEASURED, NULL), CHK(errors, MEASURED, NULL),
	CHK(lost, MEASURED, NULL), CHK(achieved, MEASURED, NULL), CHK(retransmissions, MEASURED, NULL),
	CHK(naks, MEASURED, NULL), CHK(rnr_naks, MEASURED, NULL), CHK(cnps, MEASURED, NULL), END
};
static const struct argspec a_measure[] = {
	CHK(count, MEASURED, NULL), CHK(bytes, MEASURED, NULL), CHK(rate, MEASURED, NULL), CHK(pps, MEASURED, NULL),
	CHK(first, MEASURED, NULL), CHK(last, MEASURED, NULL), CHK(min_gap, MEASURED, NULL),
	CHK(max_gap, MEASURED, NULL), END
};
static const struct argspec a_none[] = { END };
static const struct argspec a_dut_listen[] = { ARG(dut_listen, port, F_EXPR, NULL, NO_DEF), END };

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
};

static bool is_pseudo_field(const char *name)
{
	for (size_t i = 0; i < sizeof pseudo_fields / sizeof pseudo_fields[0]; i++)
		if (!strcmp(pseudo_fields[i].name, name))
			return true;
	return false;
}

enum roce_field cl_field_for(const char *name, int ipv, uint16_t xhdrs)
{
	for (size_t i = 0; i < sizeof pseudo_fields / sizeof pseudo_fields[0]; i++) {
		if (strcmp(pseudo_fields[i].name, name))
			continue;
		enum roce_field f = roce_field_by_name(pseudo_fields[i].field);
		if (pseudo_fields[i].alt) {
			const struct roce_field_info *fi = roce_field_info(f);
			bool ip = fi->hdr == ROCE_H_IPV4;
			if ((ip && ipv == 6) || (!ip && !(xhdrs & ROCE_XHDR_BIT(fi->hdr))))
				f = roce_field_by_name(pseudo_fields[i].alt);
		}
		return f;
	}
	return roce_field_by_name(name);
}

/* ---- The parser ---- */

struct parser {
	struct cl_lexer lx;
	struct cl_token tok;  /* current token */
	struct cl_diag *diag;
	jmp_buf fail;
	struct cl_case *c;
	struct cl_arena **arena;
	bool in_body;
	bool in_check; /* parsing a check statement: $counters.MEANING may be used */
	bool seen_title, seen_rules, seen_requires, seen_unless, seen_ip, seen_pmtu, seen_timeout, seen_mutants;
	const char *line_start;
};

static void fail_at(struct parser *ps, enum cl_error code, struct cl_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

static void fail_at(struct parser *ps, enum cl_error code, struct cl_loc loc, const char *fmt, ...)
{
	char what[sizeof ps->diag->msg];
	va_list ap;
	va_start(ap, fmt);
	text_vprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	ps->diag->code = code;
	ps->diag->loc = loc;
	text_printf(ps->diag->msg, sizeof ps->diag->msg, "%s:%u:%u: %s", ps->c->path, loc.line, loc.col, what);
	longjmp(ps->fail, 1);
}

static void next(struct parser *ps)
{
	if (!cl_lex_next(&ps->lx, &ps->tok, ps->diag))
		longjmp(ps->fail, 1);
}

static void fail_expected(struct parser *ps, const char *expected) __attribute__((noreturn));

static void fail_expected(struct parser *ps, const char *expected)
{
	char found[96];
	cl_tok_describe(&ps->tok, found, sizeof found);
	fail_at(ps, CL_ERR_EXPECTED, ps->tok.loc, "found %s; expected %s", found, expected);
}

static bool at_end(const struct parser *ps)
{
	return ps->tok.kind == CL_T_NEWLINE || ps->tok.kind == CL_T_EOF;
}

static bool is_word(const struct parser *ps, const char *w)
{
	return ps->tok.kind == CL_T_WORD && !strcmp(ps->tok.text, w);
}

static bool is_op(const struct parser *ps, const char *op)
{
	return ps->tok.kind == CL_T_OP && !strcmp(ps->tok.text, op);
}

static char *take_word(struct parser *ps, const char *expected)
{
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, expected);
	char *w = ps->tok.text;
	next(ps);
	return w;
}

static void expect_end(struct parser *ps)
{
	if (!at_end(ps))
		fail_expected(ps, "end of line");
}

/* ---- Symbols ---- */

static struct cl_sym *find_sym(struct parser *ps, const char *name)
{
	for (unsigned i = 0; i < ps->c->n_syms; i++)
		if (!strcmp(ps->c->syms[i].name, name))
			return &ps->c->syms[i];
	return NULL;
}

static void grow(struct parser *ps, void **arr, unsigned n, size_t elem)
{
	/* Arrays grow in powers of two; the old block stays in the arena. */
	if (n && (n & (n - 1)))
		return;
	void *bigger = cl_arena_alloc(ps->arena, elem * (n ? 2 * n : 4));
	if (n)
		memcpy(bigger, *arr, elem * n);
	*arr = bigger;
}

static void define_sym(struct parser *ps, const char *name, enum cl_sym_kind kind, int qp_type,
		       struct cl_loc loc)
{
	if (find_sym(ps, name))
		fail_at(ps, CL_ERR_DUPLICATE, loc, "'%s' is already defined; expected a new name", name);
	grow(ps, (void **)&ps->c->syms, ps->c->n_syms, sizeof *ps->c->syms);
	struct cl_sym *s = &ps->c->syms[ps->c->n_syms++];
	s->name = cl_arena_strndup(ps->arena, name, strlen(name));
	s->kind = kind;
	s->qp_type = qp_type;
}

static const char *sym_kind_name(enum cl_sym_kind k)
{
	switch (k) {
	case CL_SYM_QP: return "a QP";
	case CL_SYM_DUT_MR: return "a DUT MR";
	case CL_SYM_PEER_MR: return "a tester MR";
	case CL_SYM_BOUND: return "a bound value";
	}
	return "?";
}

static struct cl_sym *use_name(struct parser *ps, const char *name, enum cl_sym_kind want,
			       struct cl_loc loc)
{
	struct cl_sym *s = find_sym(ps, name);
	if (!s)
		fail_at(ps, CL_ERR_UNDEFINED, loc, "'%s' is not defined above; expected %s defined by an earlier step",
			name, sym_kind_name(want));
	if (s->kind != want)
		fail_at(ps, CL_ERR_KIND, loc, "'%s' is %s; expected %s", name, sym_kind_name(s->kind),
			sym_kind_name(want));
	return s;
}

/* "bad_icrc_dropped, duplicate_requests, ...": every counter meaning. */
static void counter_meanings_text(char *text, size_t n)
{
	text[0] = '\0';
	for (int m = ROCE_CNT_NONE + 1; m < ROCE_CNT_MEANING_COUNT; m++)
		text_appendf(text, n, "%s%s", m > ROCE_CNT_NONE + 1 ? ", " : "",
			     roce_counter_meaning_name((enum roce_counter_meaning)m));
}

static void check_member(struct parser *ps, const struct cl_token *t)
{
	struct cl_sym *s = find_sym(ps, t->text);
	/* $port.mtu: the DUT port's active MTU, known to every case. */
	if (!s && !strcmp(t->text, "port")) {
		if (!t->member || strcmp(t->member, "mtu"))
			fail_at(ps, CL_ERR_MEMBER, t->loc, "$port has the member mtu only; expected $port.mtu");
		return;
	}
	/* $counters.MEANING: the DUT's counters of that meaning, their delta
	 * since the case began, in check statements. */
	if (!s && !strcmp(t->text, "counters")) {
		if (!ps->in_check)
			fail_at(ps, CL_ERR_MEMBER, t->loc, "$counters is for check statements only; expected "
				"'check $counters.MEANING OP VALUE'");
		if (!t->member || roce_counter_meaning_by_name(t->member) == ROCE_CNT_NONE) {
			char meanings[512];
			counter_meanings_text(meanings, sizeof meanings);
			fail_at(ps, CL_ERR_MEMBER, t->loc, "$counters has the members %s; expected $counters.MEANING",
				meanings);
		}
		return;
	}
	if (!s)
		fail_at(ps, CL_ERR_UNDEFINED, t->loc, "$%s is not defined above; expected a QP, MR or ?binding defined earlier",
			t->text);
	static const char *const qp_members[] = { "qpn", "psn", "peer_qpn", "peer_psn", "qkey", NULL };
	static const char *const mr_members[] = { "addr", "rkey", "lkey", "len", NULL };
	static const char *const pmr_members[] = { "addr", "rkey", "len", NULL };
	const char *const *members = s->kind == CL_SYM_QP ? qp_members
				   : s->kind == CL_SYM_DUT_MR ? mr_members
				   : s->kind == CL_SYM_PEER_MR ? pmr_members : NULL;
	if (!t->member) {
		if (s->kind != CL_SYM_BOUND)
			fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is %s; expected $%s.MEMBER (one of %s)", t->text,
				sym_kind_name(s->kind), t->text,
				s->kind == CL_SYM_QP ? "qpn, psn, peer_qpn, peer_psn, qkey"
				: s->kind == CL_SYM_DUT_MR ? "addr, rkey, lkey, len" : "addr, rkey, len");
		return;
	}
	if (!members)
		fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is a bound value with no members; expected $%s", t->text, t->text);
	for (const char *const *m = members; *m; m++)
		if (!strcmp(*m, t->member))
			return;
	fail_at(ps, CL_ERR_MEMBER, t->loc, "%s has no member '%s'; expected one of %s", t->text, t->member,
		s->kind == CL_SYM_QP ? "qpn, psn, peer_qpn, peer_psn, qkey"
		: s->kind == CL_SYM_DUT_MR ? "addr, rkey, lkey, len" : "addr, rkey, len");
}

/* ---- Values ---- */

static void parse_expr(struct parser *ps, struct cl_expr *e)
{
	struct cl_term terms[32];
	unsigned n = 0;
	int sign = 1;
	for (;;) {
		if (n == 32)
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "expression too long; expected at most 32 terms");
		struct cl_term *t = &terms[n];
		memset(t, 0, sizeof *t);
		t->sign = sign;
		t->loc = ps->tok.loc;
		t->mul = t->div = 1;
		if (ps->tok.kind == CL_T_NUMBER || ps->tok.kind == CL_T_DURATION) {
			t->num = ps->tok.num;
			t->duration = ps->tok.kind == CL_T_DURATION;
		} else if (ps->tok.kind == CL_T_SYM) {
			check_member(ps, &ps->tok);
			t->is_sym = true;
			t->sym = ps->tok.text;
			t->member = ps->tok.member;
		} else {
			fail_expected(ps, n ? "a number or $symbol after the operator" : "a number or $symbol");
		}
		n++;
		next(ps);
		while (is_op(ps, "*") || is_op(ps, "/")) {
			bool mul = ps->tok.text[0] == '*';
			next(ps);
			if (ps->tok.kind != CL_T_NUMBER || (!mul && ps->tok.num == 0))
				fail_expected(ps, mul ? "a number to multiply by" : "a number other than 0 to divide by");
			if (mul)
				t->mul *= ps->tok.num;
			else
				t->div *= ps->tok.num;
			next(ps);
		}
		if (is_op(ps, "+"))
			sign = 1;
		else if (is_op(ps, "-"))
			sign = -1;
		else
			break;
		next(ps);
	}
	e->n = n;
	e->terms = cl_arena_alloc(ps->arena, n * sizeof *terms);
	memcpy(e->terms, terms, n * sizeof *terms);
}

static bool word_allowed(const char *const *words, const char *w)
{
	if (!words)
		return true;
	for (; *words; words++)
		if (!strcasecmp(*words, w))
			return true;
	return false;
}

/* The words of a table, for a diagnostic (cut visibly if n is short). */
static void list_words(const char *const *words, char *buf, size_t n)
{
	buf[0] = '\0';
	for (; words && *words; words++)
		text_appendf(buf, n, "%s%s", buf[0] ? ", " : "", *words);
}

static const char *forms_text(unsigned forms)
{
	static const struct {
		unsigned f;
		const char *t;
	} names[] = {
		{ F_EXPR | F_BIND, "a number, $symbol expression or ?binding" },
		{ F_EXPR, "a number or $symbol expression" },
		{ F_BYTES, "a \"string\" or x\"hex bytes\"" },
		{ F_WORD, "a word" },
		{ F_DUR, "a duration like 10ms" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((forms & names[i].f) == names[i].f)
			return names[i].t;
	return "a value";
}

static void parse_value(struct parser *ps, const struct argspec *spec, const char *key, struct cl_value *v)
{
	v->loc = ps->tok.loc;
	unsigned forms = spec->forms;
	switch (ps->tok.kind) {
	case CL_T_STRING:
	case CL_T_HEX:
		if (!(forms & F_BYTES))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found bytes; expected %s", key, forms_text(forms));
		v->kind = CL_V_BYTES;
		v->bytes = ps->tok.bytes;
		v->n_bytes = ps->tok.n_bytes;
		next(ps);
		return;
	case CL_T_BIND:
		if (!(forms & F_BIND))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s cannot bind a value here; expected %s", key,
				forms_text(forms & ~F_BIND));
		define_sym(ps, ps->tok.text, CL_SYM_BOUND, -1, ps->tok.loc);
		v->kind = CL_V_BIND;
		v->word = ps->tok.text;
		next(ps);
		return;
	case CL_T_DURATION:
		if (!(forms & (F_DUR | F_EXPR)))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found a duration; expected %s", key, forms_text(forms));
		if (!(forms & F_DUR)) { /* a duration in an expression counts nanoseconds */
			v->kind = CL_V_EXPR;
			parse_expr(ps, &v->expr);
			return;
		}
		v->kind = CL_V_DURATION;
		v->ns = ps->tok.num;
		next(ps);
		return;
	case CL_T_WORD: {
		if (!(forms & (F_WORD | F_LIST)))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found the word '%s'; expected %s", key,
				ps->tok.text, forms_text(forms));
		char allowed[400];
		list_words(spec->words, allowed, sizeof allowed);
		char *words[16];
		unsigned n = 0;
		for (;;) {
			if (ps->tok.kind != CL_T_WORD)
				fail_expected(ps, "a word after ','");
			if (!word_allowed(spec->words, ps->tok.text))
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' is not a value of %s; expected one of %s",
					ps->tok.text, key, allowed);
			if (n == 16)
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many words in the list; expected at most 16");
			words[n++] = ps->tok.text;
			next(ps);
			if (!is_op(ps, ","))
				break;
			if (!(forms & F_LIST))
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s takes one word, not a list; expected a single word", key);
			next(ps);
		}
		if (n == 1 && !(forms & F_LIST)) {
			v->kind = CL_V_WORD;
			v->word = words[0];
		} else {
			v->kind = CL_V_LIST;
			v->n_list = n;
			v->list = cl_arena_alloc(ps->arena, n * sizeof *words);
			memcpy(v->list, words, n * sizeof *words);
			v->word = words[0];
		}
		return;
	}
	case CL_T_NUMBER:
	case CL_T_SYM:
		if (!(forms & F_EXPR))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found a number; expected %s", key, forms_text(forms));
		v->kind = CL_V_EXPR;
		parse_expr(ps, &v->expr);
		return;
	default:
		fail_expected(ps, forms_text(forms));
	}
}

static const struct argspec *find_spec(const struct argspec *specs, const char *key)
{
	for (const struct argspec *s = specs; s->key; s++)
		if (!strcmp(s->key, key))
			return s;
	for (const struct argspec *s = specs; s->key; s++)
		if (!strcmp(s->key, "*") && (is_pseudo_field(key) || roce_field_by_name(key) != ROCE_F_COUNT ||
					     roce_mad_field_by_name(key) != ROCE_MF_COUNT))
			return s;
	return NULL;
}

/* The argument names of a table, for a diagnostic (cut visibly if n is
 * short). */
static void spec_keys(const struct argspec *specs, char *buf, size_t n)
{
	buf[0] = '\0';
	for (const struct argspec *s = specs; s->key; s++)
		text_appendf(buf, n, "%s%s", buf[0] ? ", " : "",
			     strcmp(s->key, "*") ? s->key : "a header field (psn, bth.tver, reth.rkey, ...)");
	if (!buf[0])
		text_copy(buf, n, "nothing more");
}

/* key=value ... up to the end of the line, 'within', 'do' or '->' (the
 * caller says which stop words apply). */
static void parse_args(struct parser *ps, struct cl_step *st, const struct argspec *specs,
		       bool allow_within, bool allow_do)
{
	bool result = false;
	struct cl_arg args[64];
	unsigned n = 0;
	while (!at_end(ps)) {
		if (allow_within && is_word(ps, "within")) {
			struct cl_loc wl = ps->tok.loc;
			next(ps);
			if (ps->tok.kind != CL_T_DURATION)
				fail_expected(ps, "a duration after 'within', like 100ms or 5ms..50ms");
			uint64_t a = ps->tok.num, b = a;
			next(ps);
			if (is_op(ps, "..")) {
				next(ps);
				if (ps->tok.kind != CL_T_DURATION)
					fail_expected(ps, "a duration after '..'");
				b = ps->tok.num;
				next(ps);
				if (b < a)
					fail_at(ps, CL_ERR_VALUE, wl, "window %llu..%llu ns ends before it starts; expected MIN..MAX",
						(unsigned long long)a, (unsigned long long)b);
			} else {
				a = 0;
			}
			if (st->has_within)
				fail_at(ps, CL_ERR_DUPLICATE, wl, "a second 'within'; expected one time window per step");
			st->has_within = true;
			st->within_min = a;
			st->within_max = b;
			continue;
		}
		if (allow_do && is_word(ps, "do"))
			break;
		if (allow_within && is_word(ps, "else"))
			break;
		if (is_word(ps, "as"))
			break; /* the DUT's roles in the step (parse_roles) */
		if (is_op(ps, "->")) {
			bool any_result = false;
			for (const struct argspec *s = specs; s->key; s++)
				any_result |= (s->forms & F_RESULT) != 0;
			if (!any_result || result)
				fail_expected(ps, "an argument (this statement has no result to check)");
			result = true;
			next(ps);
			continue;
		}
		if (ps->tok.kind != CL_T_WORD) {
			char keys[400];
			spec_keys(specs, keys, sizeof keys);
			fail_expected(ps, keys[0] ? "an argument name" : "end of line");
		}
		struct cl_loc kl = ps->tok.loc;
		char *key = ps->tok.text;
		const struct argspec *spec = find_spec(specs, key);
		if (!spec) {
			char keys[400];
			spec_keys(specs, keys, sizeof keys);
			bool field_like = strchr(key, '.') != NULL;
			fail_at(ps, field_like ? CL_ERR_FIELD : CL_ERR_ARGUMENT, kl,
				"%s '%s' for '%s'; expected %s", field_like ? "no header field" : "unknown argument",
				key, cl_step_kind_name(st->kind), keys);
		}
		if ((spec->forms & F_RESULT) && !result)
			fail_at(ps, CL_ERR_ARGUMENT, kl, "'%s' is a result; expected it after '->'", key);
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(args[i].key, key))
				fail_at(ps, CL_ERR_DUPLICATE, kl, "'%s' given twice; expected each argument once", key);
		if (n == 64)
			fail_at(ps, CL_ERR_ARGUMENT, kl, "too many arguments; expected at most 64");
		struct cl_arg *a = &args[n];
		memset(a, 0, sizeof *a);
		a->id = spec->id;
		a->key = key;
		a->loc = kl;
		a->result = result;
		next(ps);
		static const struct {
			const char *op;
			enum cl_cmp cmp;
		} cmps[] = { { "=", CL_EQ }, { "!=", CL_NE }, { "<", CL_LT }, { "<=", CL_LE }, { ">", CL_GT }, { ">=", CL_GE } };
		bool found = false;
		for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++) {
			if (is_op(ps, cmps[i].op)) {
				a->cmp = cmps[i].cmp;
				found = true;
			}
		}
		if (!found)
			fail_expected(ps, (spec->forms & F_CMP) ? "'=' or a comparison (!=, <, <=, >, >=) after the argument name"
								  : "'=' after the argument name");
		if (a->cmp != CL_EQ && !(spec->forms & F_CMP))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' takes only '='; expected '='", key);
		next(ps);
		parse_value(ps, spec, key, &a->v);
		if (a->v.kind == CL_V_BIND && a->cmp != CL_EQ)
			fail_at(ps, CL_ERR_VALUE, a->v.loc, "a ?binding takes '='; expected '=' before it");
		n++;
	}
	st->n_args = n;
	st->args = cl_arena_alloc(ps->arena, (n ? n : 1) * sizeof *args);
	memcpy(st->args, args, n * sizeof *args);
	/* The arguments the runner reads by name, each with its default. */
	for (const struct argspec *sp = specs; sp->key; sp++) {
		if (!sp->slot)
			continue;
		struct cl_param *prm = (struct cl_param *)((char *)st + sp->slot);
		prm->def = &sp->def;
		prm->arg = NULL;
		for (unsigned i = 0; i < n; i++)
			if (st->args[i].id == sp->id)
				prm->arg = &st->args[i];
	}
}

/* ---- Statements ---- */

static struct cl_step *new_step(struct parser *ps, enum cl_step_kind kind, struct cl_loc loc)
{
	grow(ps, (void **)&ps->c->steps, ps->c->n_steps, sizeof *ps->c->steps);
	struct cl_step *st = &ps->c->steps[ps->c->n_steps++];
	memset(st, 0, sizeof *st);
	st->kind = kind;
	st->loc = loc;
	st->opcode = -1;
	const char *eol = ps->line_start;
	while (eol < ps->lx.end && *eol != '\n')
		eol++;
	const char *s = ps->line_start;
	while (s < eol && (*s == ' ' || *s == '\t'))
		s++;
	st->text = cl_arena_strndup(ps->arena, s, (size_t)(eol - s));
	return st;
}

static const char *name_token(struct parser *ps, const char *expected)
{
	if (ps->tok.kind != CL_T_WORD || strchr(ps->tok.text, '.') || strchr(ps->tok.text, '-'))
		fail_expected(ps, expected);
	const char *w = ps->tok.text;
	next(ps);
	return w;
}

static struct cl_sym *qp_arg(struct parser *ps, struct cl_step *st)
{
	struct cl_loc l = ps->tok.loc;
	st->qp = (char *)name_token(ps, "a QP name defined by 'dut qp'");
	return use_name(ps, st->qp, CL_SYM_QP, l);
}

static void opcode_arg(struct parser *ps, struct cl_step *st, int transport, bool allow_any)
{
	if (allow_any && is_word(ps, "any")) {
		st->opcode = -1;
		next(ps);
		return;
	}
	if (ps->tok.kind != CL_T_WORD && ps->tok.kind != CL_T_NUMBER)
		fail_expected(ps, allow_any ? "an opcode (SEND_ONLY, ACK, RDMA_WRITE_FIRST, ...) or 'any'"
					    : "an opcode (SEND_ONLY, ACK, RDMA_WRITE_FIRST, ...)");
	const char *word = cl_arena_strndup(ps->arena, ps->tok.start, ps->tok.len);
	uint16_t cm = cl_cm_msg_lookup(word);
	if (cm) {
		/* A CM message: a MAD in a UD SEND Only to QP1, whatever the
		 * QP's own transport. */
		st->cm_attr = cm;
		st->opcode = ROCE_MAD_OPCODE;
		next(ps);
		return;
	}
	int op = cl_opcode_lookup(transport, word);
	if (op < 0 || !roce_opcode_defined((uint8_t)op))
		fail_at(ps, CL_ERR_OPCODE, ps->tok.loc, "'%s' is not an opcode of %s; expected e.g. SEND_ONLY, ACK, RDMA_WRITE_FIRST, rc-send-only or 0x04",
			word, roce_transport_name((enum roce_transport)transport));
	st->opcode = op;
	next(ps);
}

static void parse_dut(struct parser *ps, struct cl_loc loc)
{
	struct cl_loc vl = ps->tok.loc;
	const char *verb = take_word(ps, "a DUT verb: mr, qp, listen, post_recv, post_send, write, read, query or modify");
	struct cl_step *st;
	if (!strcmp(verb, "mr") || !strcmp(verb, "qp")) {
		bool qp = verb[0] == 'q';
		st = new_step(ps, qp ? CL_DUT_QP : CL_DUT_MR, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = (char *)name_token(ps, qp ? "a name for the new QP" : "a name for the new MR");
		parse_args(ps, st, qp ? a_dut_qp : a_dut_mr, false, false);
		int type = ROCE_T_RC;
		const struct cl_arg *t = qp ? st->a.dut_qp.type.arg : NULL;
		if (t && !strcasecmp(t->v.word, "UC"))
			type = ROCE_T_UC;
		else if (t && !strcasecmp(t->v.word, "UD"))
			type = ROCE_T_UD;
		const struct cl_arg *ip = qp ? st->a.dut_qp.ip.arg : NULL;
		if (ip && (ip->v.expr.n != 1 || ip->v.expr.terms[0].is_sym ||
			   (ip->v.expr.terms[0].num != 4 && ip->v.expr.terms[0].num != 6)))
			fail_at(ps, CL_ERR_VALUE, ip->v.loc, "ip= takes the IP version of the QP; expected 4 or 6");
		define_sym(ps, st->name, qp ? CL_SYM_QP : CL_SYM_DUT_MR, qp ? type : -1, nl);
		return;
	}
	if (!strcmp(verb, "listen")) {
		st = new_step(ps, CL_DUT_LISTEN, loc);
		struct cl_sym *q = qp_arg(ps, st);
		if (q->qp_type != ROCE_T_RC)
			fail_at(ps, CL_ERR_KIND, loc, "'%s' is not an RC QP; expected the RC QP (state=RESET) that accepts the connection",
				st->qp);
		parse_args(ps, st, a_dut_listen, false, false);
		if (!st->a.dut_listen.port.arg)
			fail_at(ps, CL_ERR_MISSING, loc, "'dut listen' needs port=; expected e.g. port=18515");
		return;
	}
	if (!strcmp(verb, "post_recv")) {
		st = new_step(ps, CL_DUT_POST_RECV, loc);
		qp_arg(ps, st);
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)name_token(ps, "a DUT MR name to receive into");
		use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		parse_args(ps, st, a_post_recv, false, false);
		return;
	}
	if (!strcmp(verb, "post_send")) {
		st = new_step(ps, CL_DUT_POST_SEND, loc);
		struct cl_sym *q = qp_arg(ps, st);
		const char *const *verbs = ap_wr_opcode_words;
		char allowed[300];
		list_words(verbs, allowed, sizeof allowed);
		if (ps->tok.kind != CL_T_WORD)
			fail_expected(ps, "a send verb: SEND, RDMA_WRITE, RDMA_READ, ...");
		if (!word_allowed(verbs, ps->tok.text))
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' is not a send verb; expected one of %s",
				ps->tok.text, allowed);
		st->verb = ps->tok.text;
		next(ps);
		if (ps->tok.kind == CL_T_WORD && find_sym(ps, ps->tok.text)) {
			struct cl_loc ml = ps->tok.loc;
			st->mr = (char *)name_token(ps, "a DUT MR");
			use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		}
		parse_args(ps, st, a_post_send, false, false);
		/* A connected QP's protocol is its GID's (dut qp ... proto=);
		 * only a UD QP picks it per work request (A17.8). */
		const struct cl_arg *proto = st->a.post_send.proto.arg;
		if (proto && q->qp_type != ROCE_T_UD)
			fail_at(ps, CL_ERR_VALUE, proto->loc,
				"proto= on a work request is for a UD QP; expected it on 'dut qp %s' (a connected QP speaks its GID's protocol)",
				q->name);
		return;
	}
	if (!strcmp(verb, "write") || !strcmp(verb, "read")) {
		bool rd = verb[0] == 'r';
		st = new_step(ps, rd ? CL_DUT_READ : CL_DUT_WRITE, loc);
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)name_token(ps, "a DUT MR name");
		use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		parse_args(ps, st, rd ? a_dut_read : a_dut_write, false, false);
		const struct cl_arg *l3 = rd ? st->a.dut_read.l3_header.arg : NULL;
		if (l3) {
			/* -> l3_header=QP: the L3 header of the last packet the
			 * tester sent to that UD QP. */
			struct cl_sym *q = use_name(ps, l3->v.word, CL_SYM_QP, l3->v.loc);
			if (q->qp_type != ROCE_T_UD)
				fail_at(ps, CL_ERR_KIND, l3->v.loc, "'%s' is not a UD QP; expected the UD QP whose receive holds the header",
					l3->v.word);
			if (st->a.dut_read.data.arg || st->a.dut_read.len.arg)
				fail_at(ps, CL_ERR_ARGUMENT, l3->loc, "l3_header= reads 40 bytes itself; expected no data= or len= with it");
			return;
		}
		if (!(rd ? st->a.dut_read.data.arg : st->a.dut_write.data.arg))
			fail_at(ps, CL_ERR_MISSING, loc, "'%s' needs data=; expected %s", cl_step_kind_name(st->kind),
				rd ? "'-> data=\"...\"' or '-> l3_header=QP' with the contents to expect" : "data=\"...\" or data=x\"...\"");
		return;
	}
	if (!strcmp(verb, "query") || !strcmp(verb, "modify")) {
		bool q = verb[0] == 'q';
		st = new_step(ps, q ? CL_DUT_QUERY : CL_DUT_MODIFY, loc);
		qp_arg(ps, st);
		parse_args(ps, st, q ? a_dut_query : a_dut_modify, false, false);
		if (!q && !st->a.dut_modify.state.arg)
			fail_at(ps, CL_ERR_MISSING, loc, "'dut modify' needs state=; expected e.g. state=ERR");
		return;
	}
	fail_at(ps, CL_ERR_STATEMENT, vl, "unknown DUT verb '%s'; expected mr, qp, listen, post_recv, post_send, write, read, query or modify",
		verb);
}

static void parse_peer(struct parser *ps, struct cl_loc loc)
{
	if (is_word(ps, "mr")) {
		next(ps);
		struct cl_step *st = new_step(ps, CL_PEER_MR, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = (char *)name_token(ps, "a name for the tester's MR");
		parse_args(ps, st, a_peer_mr, false, false);
		define_sym(ps, st->name, CL_SYM_PEER_MR, -1, nl);
		return;
	}
	struct cl_step *st = new_step(ps, CL_PEER_OP, loc);
	struct cl_sym *q = qp_arg(ps, st);
	struct cl_loc vl = ps->tok.loc;
	const char *op = take_word(ps, "a tester operation: send, write, read, cmp_swap, fetch_add or set");
	if (!strcmp(op, "set")) {
		st->kind = CL_PEER_SET;
		parse_args(ps, st, a_peer_set, false, false);
		if (!st->n_args)
			fail_at(ps, CL_ERR_MISSING, vl, "'peer set' needs at least one setting; expected auto=, rnr=, ack=, rnr_timer=, psn= or recv=");
		return;
	}
	static const char *const ops[] = { "send", "write", "read", "cmp_swap", "fetch_add", NULL };
	if (!word_allowed(ops, op))
		fail_at(ps, CL_ERR_STATEMENT, vl, "unknown tester operation '%s'; expected send, write, read, cmp_swap, fetch_add or set", op);
	if (q->qp_type == ROCE_T_UD && strcmp(op, "send"))
		fail_at(ps, CL_ERR_VALUE, vl, "a UD QP can only send; expected 'send'");
	if (q->qp_type == ROCE_T_UC && (!strcmp(op, "read") || !strcmp(op, "cmp_swap") || !strcmp(op, "fetch_add")))
		fail_at(ps, CL_ERR_VALUE, vl, "UC has no %s; expected send or write", op);
	st->verb = (char *)op;
	parse_args(ps, st, a_peer_op, false, false);
	bool needs_remote = strcmp(op, "send") != 0;
	const struct cl_peer_op_args *pa = &st->a.peer_op;
	if (needs_remote && (!pa->remote.arg || !pa->rkey.arg))
		fail_at(ps, CL_ERR_MISSING, vl, "'peer %s' needs remote= and rkey=; expected e.g. remote=$m.addr rkey=$m.rkey", op);
	if (!strcmp(op, "cmp_swap") && (!pa->compare.arg || !pa->swap.arg))
		fail_at(ps, CL_ERR_MISSING, vl, "'peer cmp_swap' needs compare= and swap=");
	if (!strcmp(op, "fetch_add") && !pa->add.arg)
		fail_at(ps, CL_ERR_MISSING, vl, "'peer fetch_add' needs add=");
}

static void check_field_args(struct parser *ps, struct cl_step *st)
{
	/* Header fields given by dotted name must exist (unknown ones were
	 * rejected already); aeth= must be an AETH word. */
	for (unsigned i = 0; i < st->n_args; i++) {
		struct cl_arg *a = &st->args[i];
		if (a->id == CL_K_aeth) {
			uint8_t v, m;
			for (unsigned k = 0; k < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); k++) {
				const char *w = a->v.kind == CL_V_LIST ? a->v.list[k] : a->v.word;
				if (!cl_aeth_word(w, &v, &m))
					fail_at(ps, CL_ERR_VALUE, a->v.loc, "'%s' is not an AETH kind; expected ACK, RNR, NAK, NAK_SEQ, NAK_INVALID, NAK_ACCESS, NAK_OPERATIONAL or NAK_INVALID_RD",
						w);
			}
		}
		if (a->id == CL_K_ip_options && (a->v.n_bytes == 0 || a->v.n_bytes > 40))
			fail_at(ps, CL_ERR_VALUE, a->v.loc, "ip_options= has %zu bytes; expected 1 to 40", a->v.n_bytes);
		if (a->id == CL_K_icrc && st->kind == CL_INJECT && a->v.kind == CL_V_WORD &&
		    strcmp(a->v.word, "bad"))
			fail_at(ps, CL_ERR_VALUE, a->v.loc, "inject takes icrc=bad or a number; expected one of those");
	}
}

static void parse_info(struct parser *ps, struct cl_step *st);

static void parse_expect(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st;
	if (is_word(ps, "nothing")) {
		next(ps);
		st = new_step(ps, CL_EXPECT_NOTHING, loc);
		if (ps->tok.kind == CL_T_WORD && !is_word(ps, "within"))
			qp_arg(ps, st);
		parse_args(ps, st, a_none, true, false);
		if (!st->has_within)
			fail_at(ps, CL_ERR_MISSING, loc, "'expect nothing' needs a time window; expected 'within T'");
		return;
	}
	if (is_word(ps, "no")) {
		next(ps);
		if (!is_word(ps, "completion"))
			fail_expected(ps, "'completion' after 'expect no'");
		next(ps);
		st = new_step(ps, CL_EXPECT_NO_COMPLETION, loc);
		qp_arg(ps, st);
		parse_args(ps, st, a_none, true, false);
		if (!st->has_within)
			fail_at(ps, CL_ERR_MISSING, loc, "'expect no completion' needs a time window; expected 'within T'");
		return;
	}
	if (is_word(ps, "completion")) {
		next(ps);
		st = new_step(ps, CL_EXPECT_COMPLETION, loc);
		qp_arg(ps, st);
		parse_args(ps, st, a_expect_completion, true, false);
		return;
	}
	if (is_word(ps, "peer")) {
		next(ps);
		st = new_step(ps, CL_EXPECT_PEER, loc);
		qp_arg(ps, st);
		parse_args(ps, st, a_expect_peer, true, false);
		return;
	}
	if (is_word(ps, "mem")) {
		next(ps);
		st = new_step(ps, CL_EXPECT_MEM, loc);
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)name_token(ps, "a tester MR name defined by 'peer mr'");
		use_name(ps, st->mr, CL_SYM_PEER_MR, ml);
		parse_args(ps, st, a_expect_mem, false, false);
		if (!st->a.expect_mem.data.arg)
			fail_at(ps, CL_ERR_MISSING, loc, "'expect mem' needs data=; expected data=\"...\" or data=x\"...\"");
		return;
	}
	st = new_step(ps, CL_EXPECT_PKT, loc);
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, "nothing, no completion, completion, peer, mem, or a QP name");
	struct cl_sym *q = qp_arg(ps, st);
	opcode_arg(ps, st, q->qp_type, true);
	parse_args(ps, st, a_expect_pkt, true, false);
	check_field_args(ps, st);
	if (is_word(ps, "else")) {
		/* else inform: a DUT that may stay silent (an optional
		 * feature); the case ends informative there. */
		next(ps);
		if (!is_word(ps, "inform"))
			fail_expected(ps, "'inform' after 'else' (an informative finding when nothing comes)");
		next(ps);
		if (!st->has_within)
			fail_at(ps, CL_ERR_MISSING, loc, "'expect ... else inform' needs a time window; expected 'within T' before 'else'");
		st->else_inform = true;
		parse_info(ps, st);
	}
}

static void parse_rule(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = new_step(ps, CL_RULE, loc);
	if (is_word(ps, "tx") || is_word(ps, "rx")) {
		st->rx = ps->tok.text[0] == 'r';
		next(ps);
	} else {
		fail_expected(ps, "'tx' (the tester's packets) or 'rx' (the DUT's packets)");
	}
	int transport = ROCE_T_RC;
	if (is_op(ps, "*") || is_word(ps, "any")) {
		next(ps);
	} else {
		struct cl_sym *q = qp_arg(ps, st);
		transport = q->qp_type;
	}
	parse_args(ps, st, a_rule, false, true);
	const struct cl_arg *opa = st->a.rule.opcode.arg;
	if (opa) {
		int op = cl_opcode_lookup(transport, opa->v.word);
		if (op < 0 || !roce_opcode_defined((uint8_t)op))
			fail_at(ps, CL_ERR_OPCODE, opa->v.loc, "'%s' is not an opcode of %s; expected e.g. SEND_ONLY, ACK",
				opa->v.word, roce_transport_name((enum roce_transport)transport));
		st->opcode = op;
	}
	if (!is_word(ps, "do"))
		fail_expected(ps, "'do' and an action (drop, duplicate, delay T, reorder N, corrupt_icrc, ecn_ce, set FIELD=V)");
	next(ps);
	struct cl_loc al = ps->tok.loc;
	const char *act = take_word(ps, "an action: drop, duplicate, delay, reorder, corrupt_icrc, ecn_ce or set");
	if (!strcmp(act, "drop")) {
		st->action = CL_ACT_DROP;
	} else if (!strcmp(act, "duplicate")) {
		st->action = CL_ACT_DUPLICATE;
	} else if (!strcmp(act, "corrupt_icrc")) {
		st->action = CL_ACT_CORRUPT_ICRC;
	} else if (!strcmp(act, "ecn_ce")) {
		st->action = CL_ACT_ECN_CE;
	} else if (!strcmp(act, "delay")) {
		st->action = CL_ACT_DELAY;
		if (ps->tok.kind != CL_T_DURATION)
			fail_expected(ps, "a duration after 'delay', like 5ms");
		st->action_ns = ps->tok.num;
		next(ps);
	} else if (!strcmp(act, "reorder")) {
		st->action = CL_ACT_REORDER;
		if (ps->tok.kind != CL_T_NUMBER || ps->tok.num < 1 || ps->tok.num > 64)
			fail_expected(ps, "how many later packets overtake this one (1..64) after 'reorder'");
		st->action_n = (unsigned)ps->tok.num;
		next(ps);
	} else if (!strcmp(act, "set")) {
		st->action = CL_ACT_SET;
		if (ps->tok.kind != CL_T_WORD)
			fail_expected(ps, "a header field after 'set', like bth.tver");
		struct cl_loc fl = ps->tok.loc;
		st->set_field = ps->tok.text;
		if (!is_pseudo_field(st->set_field) && roce_field_by_name(st->set_field) == ROCE_F_COUNT)
			fail_at(ps, CL_ERR_FIELD, fl, "no header field '%s'; expected a libroce field name (bth.tver, ipv4.ttl, ...) or psn, pkey, ...",
				st->set_field);
		next(ps);
		if (!is_op(ps, "="))
			fail_expected(ps, "'=' after the field name");
		next(ps);
		parse_expr(ps, &st->set_value);
	} else {
		fail_at(ps, CL_ERR_VALUE, al, "unknown action '%s'; expected drop, duplicate, delay, reorder, corrupt_icrc, ecn_ce or set",
			act);
	}
	expect_end(ps);
}

/* [RULE-ID] "text": what an informative finding says, and which rule it
 * is about (NULL: the case's first rule). */
static void parse_info(struct parser *ps, struct cl_step *st)
{
	if (ps->tok.kind == CL_T_WORD) {
		if (roce_rule_by_id(ps->tok.text) == ROCE_RULE_NONE)
			fail_at(ps, CL_ERR_RULE_ID, ps->tok.loc, "'%s' is not in the rule catalogue; expected a rule ID or the \"text\" to report",
				ps->tok.text);
		st->info_rule = ps->tok.text;
		next(ps);
	}
	if (ps->tok.kind != CL_T_STRING)
		fail_expected(ps, "the informative finding's \"text\"");
	st->info_text = cl_arena_strndup(ps->arena, (const char *)ps->tok.bytes, ps->tok.n_bytes);
	next(ps);
}

static bool parse_cmp(struct parser *ps, enum cl_cmp *cmp)
{
	static const struct {
		const char *op;
		enum cl_cmp cmp;
	} cmps[] = { { "=", CL_EQ }, { "!=", CL_NE }, { "<", CL_LT }, { "<=", CL_LE }, { ">", CL_GT }, { ">=", CL_GE } };
	for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++) {
		if (is_op(ps, cmps[i].op)) {
			*cmp = cmps[i].cmp;
			return true;
		}
	}
	return false;
}

/* check EXPR CMP EXPR [else inform [RULE] "text" [if EXPR CMP EXPR]] */
static void parse_check(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = new_step(ps, CL_CHECK, loc);
	ps->in_check = true;
	parse_expr(ps, &st->lhs);
	if (!parse_cmp(ps, &st->cmp))
		fail_expected(ps, "a comparison (=, !=, <, <=, >, >=)");
	next(ps);
	parse_expr(ps, &st->rhs);
	if (is_word(ps, "else")) {
		next(ps);
		if (!is_word(ps, "inform"))
			fail_expected(ps, "'inform' after 'else' (an informative finding instead of a failure)");
		next(ps);
		st->else_inform = true;
		parse_info(ps, st);
		/* ... if EXPR CMP EXPR: informative only when that holds too
		 * (another explanation of the miss), a failure otherwise. */
		if (is_word(ps, "if")) {
			next(ps);
			parse_expr(ps, &st->cond_lhs);
			if (!parse_cmp(ps, &st->cond_cmp))
				fail_expected(ps, "a comparison (=, !=, <, <=, >, >=) in the condition after 'if'");
			next(ps);
			parse_expr(ps, &st->cond_rhs);
			st->has_cond = true;
		}
	}
	ps->in_check = false;
}

/* measure QP OPCODE|any for T -> count=... rate=?r ... */
static void parse_measure(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = new_step(ps, CL_MEASURE, loc);
	struct cl_sym *q = qp_arg(ps, st);
	opcode_arg(ps, st, q->qp_type, true);
	if (!is_word(ps, "for"))
		fail_expected(ps, "'for' and the length of the measurement, like 'for 20ms'");
	next(ps);
	if (ps->tok.kind != CL_T_DURATION || ps->tok.num == 0)
		fail_expected(ps, "a duration after 'for', like 20ms");
	st->has_within = true;
	st->within_max = ps->tok.num;
	next(ps);
	parse_args(ps, st, a_measure, false, false);
}

/* load QP send|write|read [len= remote= rkey=] (count=N | duration=T)
 * [rate=N] [within T] -> completed=... : sustained traffic from the
 * tester's engine, bounded in count and time. */
static void parse_load(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = new_step(ps, CL_LOAD, loc);
	struct cl_sym *q = qp_arg(ps, st);
	struct cl_loc vl = ps->tok.loc;
	const char *op = take_word(ps, "an operation of the load: send, write or read");
	static const char *const ops[] = { "send", "write", "read", NULL };
	if (!word_allowed(ops, op))
		fail_at(ps, CL_ERR_STATEMENT, vl, "unknown load operation '%s'; expected send, write or read", op);
	if (q->qp_type == ROCE_T_UD && strcmp(op, "send"))
		fail_at(ps, CL_ERR_VALUE, vl, "a UD QP can only send; expected 'send'");
	if (q->qp_type == ROCE_T_UC && !strcmp(op, "read"))
		fail_at(ps, CL_ERR_VALUE, vl, "UC has no read; expected send or write");
	st->verb = (char *)op;
	parse_args(ps, st, a_load, true, false);
	const struct cl_load_args *la = &st->a.load;
	if (strcmp(op, "send") && (!la->remote.arg || !la->rkey.arg))
		fail_at(ps, CL_ERR_MISSING, vl, "'load %s' needs remote= and rkey=; expected e.g. remote=$m.addr rkey=$m.rkey", op);
	const struct cl_arg *dur = la->duration.arg;
	if (!la->count.arg && !dur)
		fail_at(ps, CL_ERR_MISSING, vl, "a load needs count= or duration= (or both); expected e.g. count=10000 rate=100000");
	if (dur && (dur->v.kind != CL_V_EXPR || dur->v.expr.n != 1 || !dur->v.expr.terms[0].duration))
		fail_at(ps, CL_ERR_VALUE, dur->loc, "duration= takes a duration; expected e.g. duration=2s");
}

/* inform [RULE] "text" [$a, $b ...]: an informative finding that shows
 * the values of the symbols. */
static void parse_inform(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = new_step(ps, CL_INFORM, loc);
	parse_info(ps, st);
	struct cl_term terms[16];
	unsigned n = 0;
	while (!at_end(ps)) {
		if (ps->tok.kind != CL_T_SYM)
			fail_expected(ps, "a $symbol whose value the finding shows, or end of line");
		if (n == 16)
			fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many symbols; expected at most 16");
		check_member(ps, &ps->tok);
		memset(&terms[n], 0, sizeof terms[n]);
		terms[n].sign = 1;
		terms[n].is_sym = true;
		terms[n].sym = ps->tok.text;
		terms[n].member = ps->tok.member;
		terms[n].loc = ps->tok.loc;
		n++;
		next(ps);
		if (is_op(ps, ","))
			next(ps);
	}
	st->n_show = n;
	st->show = cl_arena_alloc(ps->arena, (n ? n : 1) * sizeof *terms);
	memcpy(st->show, terms, n * sizeof *terms);
}

/* as ROLE, ...: the DUT's roles in a step that checks something, where
 * they cannot be derived from the step (caseroles.c). */
static void parse_roles(struct parser *ps, struct cl_step *st)
{
	struct cl_loc loc = ps->tok.loc;
	if (!cl_step_checks(st->kind))
		fail_at(ps, CL_ERR_ARGUMENT, loc, "'as' names the DUT's roles in a check; expected it on expect, check, dut query, dut read or measure, not on '%s'",
			cl_step_kind_name(st->kind));
	next(ps);
	unsigned roles = 0;
	for (;;) {
		unsigned bit = ps->tok.kind == CL_T_WORD ? roce_role_by_name(ps->tok.text) : 0;
		if (!bit)
			fail_expected(ps, "a role after 'as': sender, receiver, requester, responder, CM or device");
		roles |= bit;
		next(ps);
		if (!is_op(ps, ","))
			break;
		next(ps);
	}
	st->roles = roles;
	st->roles_explicit = true;
}

/* ---- Header ---- */

static void header_once(struct parser *ps, bool *seen, const char *what, struct cl_loc loc)
{
	if (ps->in_body)
		fail_at(ps, CL_ERR_HEADER_ORDER, loc, "'%s' after the first step; expected header statements (case, title, rules, requires, unless, mutants, ip, pmtu, timeout) before any step",
			what);
	if (*seen)
		fail_at(ps, CL_ERR_DUPLICATE, loc, "a second '%s'; expected it once", what);
	*seen = true;
}

static void parse_header(struct parser *ps, const char *kw, struct cl_loc loc)
{
	struct cl_case *c = ps->c;
	if (!strcmp(kw, "title")) {
		header_once(ps, &ps->seen_title, kw, loc);
		if (ps->tok.kind != CL_T_STRING)
			fail_expected(ps, "the title as a \"string\"");
		c->title = cl_arena_strndup(ps->arena, (const char *)ps->tok.bytes, ps->tok.n_bytes);
		next(ps);
	} else if (!strcmp(kw, "rules")) {
		header_once(ps, &ps->seen_rules, kw, loc);
		char *ids[64];
		unsigned ips[64];
		struct cl_loc locs[64];
		unsigned n = 0;
		for (;;) {
			if (ps->tok.kind != CL_T_WORD)
				fail_expected(ps, "a rule ID from the catalogue (roce-tester rules), like CA17-24");
			if (roce_rule_by_id(ps->tok.text) == ROCE_RULE_NONE)
				fail_at(ps, CL_ERR_RULE_ID, ps->tok.loc, "'%s' is not in the rule catalogue; expected an ID that 'roce-tester rules' lists",
					ps->tok.text);
			if (n == 64)
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many rules; expected at most 64");
			for (unsigned k = 0; k < n; k++)
				if (!strcmp(ids[k], ps->tok.text))
					fail_at(ps, CL_ERR_DUPLICATE, ps->tok.loc, "rule %s is named twice; expected each rule once",
						ps->tok.text);
			locs[n] = ps->tok.loc;
			ips[n] = (1u << 4) | (1u << 6);
			ids[n++] = ps->tok.text;
			next(ps);
			/* 'CA17-4 ipv4': the rule is judged on IPv4 runs only. */
			if (is_word(ps, "ipv4") || is_word(ps, "ipv6")) {
				ips[n - 1] = 1u << (ps->tok.text[3] - '0');
				next(ps);
			}
			if (!is_op(ps, ","))
				break;
			next(ps);
		}
		c->rules = cl_arena_alloc(ps->arena, n * sizeof *ids);
		memcpy(c->rules, ids, n * sizeof *ids);
		c->rule_ips = cl_arena_alloc(ps->arena, n * sizeof *ips);
		memcpy(c->rule_ips, ips, n * sizeof *ips);
		c->rule_locs = cl_arena_alloc(ps->arena, n * sizeof *locs);
		memcpy(c->rule_locs, locs, n * sizeof *locs);
		c->n_rules = n;
	} else if (!strcmp(kw, "requires") || !strcmp(kw, "unless")) {
		bool unless = kw[0] == 'u';
		header_once(ps, unless ? &ps->seen_unless : &ps->seen_requires, kw, loc);
		for (;;) {
			if (ps->tok.kind != CL_T_WORD)
				fail_expected(ps, "a capability (RC, UC, UD, ATOMIC, IPV4, IPV6, RCM, SEND_WITH_INV, ROCEV1, CM, VLAN)");
			unsigned bit = cl_cap_bit(ps->tok.text);
			if (!bit)
				fail_at(ps, CL_ERR_CAPABILITY, ps->tok.loc, "unknown capability '%s'; expected RC, UC, UD, ATOMIC, IPV4, IPV6, RCM, SEND_WITH_INV, ROCEV1, CM or VLAN",
					ps->tok.text);
			if ((unless ? c->caps : c->unless_caps) & bit)
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s is both required and excluded; expected it in 'requires' or 'unless', not both",
					ps->tok.text);
			*(unless ? &c->unless_caps : &c->caps) |= bit;
			next(ps);
			if (!is_op(ps, ","))
				break;
			next(ps);
		}
	} else if (!strcmp(kw, "mutants")) {
		header_once(ps, &ps->seen_mutants, kw, loc);
		char *names[64];
		bool inform[64];
		unsigned n = 0;
		for (;;) {
			if (ps->tok.kind != CL_T_WORD)
				fail_expected(ps, "a soft-DUT fault profile name (roce-agent --list-faults), like no-seq-nak");
			if (n == 64)
				fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many mutants; expected at most 64");
			inform[n] = false;
			names[n++] = ps->tok.text;
			next(ps);
			/* 'NAME informative': the fault breaks a rule that does not
			 * bind the DUT in the role the case tests it in; the case
			 * reports it and ends informative rather than failing. */
			if (is_word(ps, "informative")) {
				inform[n - 1] = true;
				next(ps);
			}
			if (!is_op(ps, ","))
				break;
			next(ps);
		}
		c->mutants = cl_arena_alloc(ps->arena, n * sizeof *names);
		memcpy(c->mutants, names, n * sizeof *names);
		c->mutant_informative = cl_arena_alloc(ps->arena, n * sizeof *inform);
		memcpy(c->mutant_informative, inform, n * sizeof *inform);
		c->n_mutants = n;
	} else if (!strcmp(kw, "ip")) {
		header_once(ps, &ps->seen_ip, kw, loc);
		c->ip_versions = 0;
		for (;;) {
			if (ps->tok.kind != CL_T_NUMBER || (ps->tok.num != 4 && ps->tok.num != 6))
				fail_expected(ps, "4 or 6");
			c->ip_versions |= 1u << ps->tok.num;
			next(ps);
			if (!is_op(ps, ","))
				break;
			next(ps);
		}
	} else if (!strcmp(kw, "pmtu")) {
		header_once(ps, &ps->seen_pmtu, kw, loc);
		if (ps->tok.kind != CL_T_NUMBER || !roce_mtu_enum((unsigned)ps->tok.num) || ps->tok.num > 4096)
			fail_expected(ps, "a path MTU: 256, 512, 1024, 2048 or 4096");
		c->pmtu = (unsigned)ps->tok.num;
		next(ps);
	} else if (!strcmp(kw, "timeout")) {
		header_once(ps, &ps->seen_timeout, kw, loc);
		if (ps->tok.kind != CL_T_DURATION || ps->tok.num == 0)
			fail_expected(ps, "the case's time budget as a duration, like 30s");
		c->timeout_ns = ps->tok.num;
		next(ps);
	}
	expect_end(ps);
}

static bool is_header_kw(const char *w)
{
	static const char *const kws[] = { "title", "rules", "requires", "unless", "mutants", "ip", "pmtu", "timeout", NULL };
	for (const char *const *k = kws; *k; k++)
		if (!strcmp(*k, w))
			return true;
	return false;
}

static void parse_statement(struct parser *ps)
{
	struct cl_loc loc = ps->tok.loc;
	ps->line_start = ps->tok.start;
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, "a statement (case, title, rules, dut, peer, inject, expect, measure, on, off, wait, check, inform)");
	const char *kw = ps->tok.text;
	bool first = ps->c->id == NULL;
	if (first && strcmp(kw, "case"))
		fail_at(ps, CL_ERR_HEADER_ORDER, loc, "the file must start with 'case ID'; found '%s'", kw);
	next(ps);
	if (!strcmp(kw, "case")) {
		if (!first)
			fail_at(ps, CL_ERR_DUPLICATE, loc, "a second 'case'; expected one case per file");
		if (ps->tok.kind != CL_T_WORD)
			fail_expected(ps, "the case ID, like RC-RESP-PSN-001");
		ps->c->id = ps->tok.text;
		ps->c->id_loc = ps->tok.loc;
		next(ps);
		expect_end(ps);
		return;
	}
	if (is_header_kw(kw)) {
		parse_header(ps, kw, loc);
		return;
	}
	if (!ps->in_body) {
		if (!ps->c->title)
			fail_at(ps, CL_ERR_MISSING, loc, "the case has no title; expected 'title \"...\"' before the first step");
		if (!ps->c->n_rules)
			fail_at(ps, CL_ERR_MISSING, loc, "the case names no rules; expected 'rules ID, ...' before the first step");
		ps->in_body = true;
	}
	if (!strcmp(kw, "dut")) {
		parse_dut(ps, loc);
	} else if (!strcmp(kw, "peer")) {
		parse_peer(ps, loc);
	} else if (!strcmp(kw, "inject")) {
		struct cl_step *st = new_step(ps, CL_INJECT, loc);
		struct cl_sym *q = qp_arg(ps, st);
		opcode_arg(ps, st, q->qp_type, false);
		parse_args(ps, st, a_inject, false, false);
		check_field_args(ps, st);
		if (st->a.inject.every.arg && !st->a.inject.repeat.arg)
			fail_at(ps, CL_ERR_MISSING, loc, "'every' spaces repetitions; expected repeat=N with it");
	} else if (!strcmp(kw, "expect")) {
		parse_expect(ps, loc);
	} else if (!strcmp(kw, "on")) {
		parse_rule(ps, loc);
		return;
	} else if (!strcmp(kw, "off")) {
		new_step(ps, CL_RULES_OFF, loc);
		if (!is_word(ps, "all"))
			fail_expected(ps, "'all' after 'off'");
		next(ps);
	} else if (!strcmp(kw, "inform")) {
		parse_inform(ps, loc);
	} else if (!strcmp(kw, "check")) {
		parse_check(ps, loc);
	} else if (!strcmp(kw, "measure")) {
		parse_measure(ps, loc);
	} else if (!strcmp(kw, "load")) {
		parse_load(ps, loc);
	} else if (!strcmp(kw, "wait")) {
		struct cl_step *st = new_step(ps, CL_WAIT, loc);
		if (ps->tok.kind != CL_T_DURATION)
			fail_expected(ps, "a duration after 'wait', like 10ms");
		st->has_within = true;
		st->within_min = st->within_max = ps->tok.num;
		next(ps);
	} else {
		fail_at(ps, CL_ERR_STATEMENT, loc, "unknown statement '%s'; expected dut, peer, inject, expect, measure, load, on, off, wait, check or inform", kw);
	}
	if (is_word(ps, "as"))
		parse_roles(ps, &ps->c->steps[ps->c->n_steps - 1]);
	expect_end(ps);
}

struct cl_case *cl_parse_text(const char *path, const char *text, size_t len, struct cl_diag *diag)
{
	struct cl_arena *arena = NULL;
	struct parser *ps = calloc(1, sizeof *ps);
	if (!ps)
		abort();
	struct cl_case *c = cl_arena_alloc(&arena, sizeof *c);
	c->path = cl_arena_strndup(&arena, path, strlen(path));
	c->ip_versions = (1u << 4) | (1u << 6);
	c->pmtu = 1024;
	c->timeout_ns = 60ull * 1000000000ull;
	ps->c = c;
	ps->arena = &arena;
	ps->diag = diag;
	memset(diag, 0, sizeof *diag);
	cl_lex_init(&ps->lx, c->path, text, len, &arena);
	if (setjmp(ps->fail)) {
		cl_arena_free(arena);
		free(ps);
		return NULL;
	}
	for (next(ps);; next(ps)) {
		while (ps->tok.kind == CL_T_NEWLINE)
			next(ps);
		if (ps->tok.kind == CL_T_EOF)
			break;
		parse_statement(ps);
		if (ps->tok.kind == CL_T_EOF)
			break;
	}
	if (!c->id) {
		struct cl_loc l = { ps->lx.line, ps->lx.col };
		fail_at(ps, CL_ERR_MISSING, l, "empty case file; expected 'case ID' and a title, rules and steps");
	}
	if (!c->title || !c->n_rules || !c->n_steps) {
		struct cl_loc l = { ps->lx.line, ps->lx.col };
		fail_at(ps, CL_ERR_MISSING, l, "the case ends without %s; expected %s",
			!c->title ? "a title" : !c->n_rules ? "rules" : "steps",
			!c->title ? "'title \"...\"'" : !c->n_rules ? "'rules ID, ...'" : "at least one step");
	}
	/* A rule limited to an IP version the case never runs over would
	 * never be judged. */
	for (unsigned i = 0; i < c->n_rules; i++)
		if (!(c->rule_ips[i] & c->ip_versions))
			fail_at(ps, CL_ERR_VALUE, c->rule_locs[i], "rule %s is limited to IPv%d, which the case's 'ip' header excludes; expected an IP version the case runs over",
				c->rules[i], c->rule_ips[i] == 1u << 4 ? 4 : 6);
	cl_derive_roles(c);
	c->arena = arena;
	free(ps);
	return c;
}

struct cl_case *cl_parse_file(const char *path, struct cl_diag *diag)
{
	memset(diag, 0, sizeof *diag);
	FILE *f = fopen(path, "rb");
	if (!f) {
		diag->code = CL_ERR_IO;
		text_printf(diag->msg, sizeof diag->msg, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(CL_MAX_FILE + 1);
	if (!buf)
		abort();
	size_t n = fread(buf, 1, CL_MAX_FILE + 1, f);
	bool err = ferror(f);
	fclose(f);
	if (err || n > CL_MAX_FILE) {
		diag->code = CL_ERR_IO;
		text_printf(diag->msg, sizeof diag->msg, "%s: %s", path,
			 err ? "read error" : "larger than 4 MiB; expected a case script");
		free(buf);
		return NULL;
	}
	struct cl_case *c = cl_parse_text(path, buf, n, diag);
	free(buf);
	return c;
}

void cl_case_free(struct cl_case *c)
{
	if (c)
		cl_arena_free(c->arena);
}

bool cl_rule_applies(const struct cl_case *c, unsigned i, int ipv)
{
	return i < c->n_rules && (ipv == 4 || ipv == 6) && (c->rule_ips[i] & (1u << ipv));
}

const struct cl_arg *cl_step_arg(const struct cl_step *s, const char *key)
{
	for (unsigned i = 0; i < s->n_args; i++)
		if (!strcmp(s->args[i].key, key))
			return &s->args[i];
	return NULL;
}

bool cl_word_arg_accepts(const struct cl_arg *a, const char *got)
{
	bool in = false;
	for (unsigned i = 0; got && i < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); i++)
		in |= !strcasecmp(a->v.kind == CL_V_LIST ? a->v.list[i] : a->v.word, got);
	return a->cmp == CL_NE ? got && !in : in;
}

void cl_word_arg_text(const struct cl_arg *a, char *buf, size_t n)
{
	/* Words are at most CL_MAX_WORD characters and lists short: callers'
	 * buffers hold them; a longer list is cut visibly. */
	text_copy(buf, n, a->cmp == CL_NE ? "not " : "");
	unsigned k = a->v.kind == CL_V_LIST ? a->v.n_list : 1;
	for (unsigned i = 0; i < k; i++)
		text_appendf(buf, n, "%s%s", i == 0 ? "" : i + 1 == k ? (a->cmp == CL_NE ? " nor " : " or ") : ", ",
			     a->v.kind == CL_V_LIST ? a->v.list[i] : a->v.word);
}
