/*
 * The conformance case language (docs/case-language.md): a case is a
 * readable script, in the spirit of packetdrill, that interleaves verbs on
 * the DUT (through the agent), packets the tester injects, packets it
 * expects from the DUT with field constraints and time windows, and
 * injection rules.
 *
 * The parser turns a file into a struct cl_case: a header (ID, title,
 * rules, required capabilities) and a list of steps. Every step keeps its
 * location for reports. Symbols ($qp.qpn, $mr.rkey, ?psn bindings) are
 * checked at parse time and evaluated by the runner.
 */
#ifndef ROCE_TESTER_CASELANG_H
#define ROCE_TESTER_CASELANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agent_protocol.h"
#include "roce/hdr.h"
#include "roce/mad.h"
#include "roce/opcode.h"

/* Where something is in a case file (1-based line and column). */
struct cl_loc {
	unsigned line, col;
};

/* Every kind of parse error, so that tests can prove each one is reached. */
enum cl_error {
	CL_OK = 0,
	CL_ERR_IO,            /* cannot read the file */
	CL_ERR_CHAR,          /* a character that starts no token */
	CL_ERR_STRING,        /* unterminated string or bad escape */
	CL_ERR_HEX,           /* malformed x"..." byte string */
	CL_ERR_NUMBER,        /* malformed or too large a number */
	CL_ERR_UNIT,          /* unknown duration unit */
	CL_ERR_EXPECTED,      /* a token other than the one the grammar needs */
	CL_ERR_STATEMENT,     /* unknown statement keyword */
	CL_ERR_HEADER_ORDER,  /* a header statement after the first step, or 'case' not first */
	CL_ERR_DUPLICATE,     /* a header given twice, or a name defined twice */
	CL_ERR_MISSING,       /* a required header or argument is missing */
	CL_ERR_ARGUMENT,      /* an argument the statement does not take */
	CL_ERR_VALUE,         /* an argument's value has the wrong form or range */
	CL_ERR_RULE_ID,       /* a rule ID the catalogue does not know */
	CL_ERR_CAPABILITY,    /* an unknown capability */
	CL_ERR_UNDEFINED,     /* a symbol, QP or MR used before it is defined */
	CL_ERR_MEMBER,        /* $name.member with a member the name does not have */
	CL_ERR_KIND,          /* a name of the wrong kind (an MR where a QP is needed) */
	CL_ERR_OPCODE,        /* not an opcode of the QP's transport */
	CL_ERR_FIELD,         /* not a header field (or pseudo-field) */
	CL_ERR_LENGTH,        /* a word or name longer than CL_MAX_WORD */
	CL_ERR_COUNT
};

/* Words, and the names of symbols, members and bindings, are at most this
 * many characters: messages that quote them stay one line. */
#define CL_MAX_WORD 64

const char *cl_error_name(enum cl_error e);

/* ---- Values ---- */

/* A sum of terms: numbers, durations (in ns) and symbol references ($a,
 * $a.member, a bound ?name), each optionally multiplied or divided by
 * constants ($r * 9 / 10). Evaluated modulo 2^64; fields take their
 * width's low bits. */
struct cl_term {
	int sign; /* +1 or -1 */
	bool is_sym;
	bool duration; /* num came from a duration (ns) */
	uint64_t num;
	char *sym, *member; /* member may be NULL */
	uint64_t mul, div;  /* the term times mul divided by div (constants; 0 means 1) */
	struct cl_loc loc;
};

struct cl_expr {
	struct cl_term *terms;
	unsigned n;
};

enum cl_value_kind {
	CL_V_NONE,
	CL_V_EXPR,   /* number or symbol arithmetic */
	CL_V_BYTES,  /* "text" or x"hex" */
	CL_V_WORD,   /* a named constant: SUCCESS, RTS, NAK_SEQ, on, bad ... */
	CL_V_LIST,   /* word, word, ... (access flags) */
	CL_V_BIND,   /* ?name: bind the observed value */
	CL_V_DURATION,
};

struct cl_value {
	enum cl_value_kind kind;
	struct cl_expr expr;
	uint8_t *bytes;
	size_t n_bytes;
	char *word;
	char **list;
	unsigned n_list;
	/* CL_V_WORD and CL_V_LIST of an argument whose table names its words:
	 * what they stand for, resolved by the parser so that nobody after it
	 * compares words. word_id: the (first) word's value, word_ids: every
	 * word's of a list (n_list). The values are the vocabulary's: enum
	 * ap_qp_type, ap_qp_state, ap_wc_status, ap_wc_opcode, ap_access (a
	 * bit), cl_switch, cl_proto, cl_icrc, cl_aeth_kind. */
	int word_id;
	int *word_ids;
	uint64_t ns; /* CL_V_DURATION */
	struct cl_loc loc;
};

/* The words of the language's own small vocabularies, as values. */
enum cl_switch { CL_ON, CL_OFF };            /* on, off */
enum cl_proto { CL_PROTO_V1, CL_PROTO_V2 };  /* proto=v1|v2: RoCE v1 or RoCEv2 */
/* icrc=good|bad; inject's icrc=MISTAKE is CL_ICRC_MISTAKE + the
 * libroce mistake (enum roce_icrc_mistake). */
enum cl_icrc { CL_ICRC_GOOD, CL_ICRC_BAD, CL_ICRC_MISTAKE = 16 };
enum cl_gid_of { CL_GID_DUT, CL_GID_PEER };  /* dut attach gid=dut|peer */
/* aeth=: the kinds of AETH an expected packet may carry. */
#define CL_AETH_KINDS(K) K(ACK) K(RNR) K(NAK) K(NAK_SEQ) K(NAK_INVALID) K(NAK_ACCESS) K(NAK_OPERATIONAL) K(NAK_INVALID_RD)
enum cl_aeth_kind {
#define CL_AETH_ENUM(name) CL_AETH_##name,
	CL_AETH_KINDS(CL_AETH_ENUM)
#undef CL_AETH_ENUM
	CL_AETH_KIND_COUNT
};

enum cl_cmp { CL_EQ, CL_NE, CL_LT, CL_LE, CL_GT, CL_GE };

/* Every argument name of the language, once. The parser gives each
 * argument its key, so that nobody after it compares names; a header
 * field given as an argument (psn, reth.rkey, rej.reason ...) has the
 * key CL_K_FIELD and its name in cl_arg.key. */
#define CL_ARG_KEYS(K)                                                                                              \
	K(access) K(achieved) K(ack) K(add) K(addr) K(aeth) K(auto) K(byte_len) K(bytes) K(client_reregistration)     \
	K(cnps) K(compare) K(completed) K(count) K(created) K(data) K(delay) K(dst_ip) K(duration) K(errors) K(every)    \
	K(fill) K(first) K(flags) K(flow_label) K(gid) K(gid_tbl_len) K(group) K(hop_limit) K(ib_gid) K(icrc) K(imm) K(invalidate) \
	K(invalidated) K(ip) K(ip_based_gids) K(ip_options) K(ipv4) K(ipv6) K(l3_header) K(key) K(last) K(len) K(level)     \
	K(lid) K(limit) K(link_layer) K(lmc) K(lost) K(max_dest_rd_atomic) K(max_gap) K(max_rd_atomic) K(max_vl_num)          \
	K(max_wr) K(min_gap) K(sm_lid) K(sm_sl) K(untyped)                                                                     \
	K(min_rnr_timer) K(naks) K(nth) K(offset) K(opcode) K(pcp) K(peer_psn) K(peer_retry_cnt) K(peer_srq)    \
	K(pd) K(peer_timeout) K(placement) K(pmtu) K(port) K(posted) K(pps) K(proto) K(psn) K(qkey) K(qp) K(rate) K(recv)          \
	K(refused) K(remote) K(remote_qkey) K(remote_srqn) K(repeat) K(retransmissions) K(retry_cnt) K(rkey) K(rnr) K(rnr_naks)           \
	K(rnr_retry) K(rnr_timer) K(round) K(rq_psn) K(signaled) K(size) K(sl) K(solicited) K(sq_psn) K(src_ip) \
	K(src_qp) K(srq) K(srqn) K(state) K(status) K(swap) K(timeout) K(traffic_class) K(truncate) K(type) K(udp_sport) K(value)   \
	K(vid) K(within) K(wr_id) K(xrc) K(xrcd) K(zero_based)

enum cl_key {
	CL_K_FIELD, /* a header field */
#define CL_KEY_ENUM(name) CL_K_##name,
	CL_ARG_KEYS(CL_KEY_ENUM)
#undef CL_KEY_ENUM
	CL_K_COUNT
};

/* An argument's name ("timeout"); "a header field" for CL_K_FIELD. */
const char *cl_key_name(enum cl_key k);

/* A header field named in a case (psn=, reth.rkey=, rej.reason=, set
 * bth.tver=), resolved by the parser: the libroce field, for a shorthand
 * whose header may be absent the other one it stands for there (rkey: the
 * RETH's or the AtomicETH's; ttl: IPv4's or IPv6's hop limit), and the CM
 * MAD field of that name. ROCE_F_COUNT, ROCE_MF_COUNT: none. */
struct cl_field {
	enum roce_field f, alt;
	enum roce_mad_field mad;
};

struct cl_arg {
	enum cl_key id;
	char *key; /* as written: the argument's name, or the header field's */
	bool result; /* after '->': a constraint on the verb's result */
	enum cl_cmp cmp; /* only constraints of expect use other than CL_EQ */
	struct cl_value v;
	struct cl_field field; /* CL_K_FIELD: the header field it names */
	struct cl_loc loc;
};

/* ---- Steps ---- */

/* An argument's default, from the step's argument table (caseparse.c):
 * a number, a word (or comma-separated words), or one the run supplies
 * (the DUT port's MTU, the MR's length ...), with the text that says
 * which (docs). CL_DEF_NONE: the argument counts only when given. */
enum cl_default_kind { CL_DEF_NONE, CL_DEF_NUM, CL_DEF_WORD, CL_DEF_RUN };

struct cl_default {
	enum cl_default_kind kind;
	uint64_t num;
	const char *word; /* CL_DEF_WORD: the words; CL_DEF_RUN: what the run takes */
};

/* One argument of a step, resolved by the parser: what the case wrote
 * (NULL: left out) and its default. A word argument's value too, from
 * what was written or else the default's words: word_id the (first)
 * word's value (-1: none, or the run supplies it), flags the values of
 * flag words (access) OR'd. */
struct cl_param {
	const struct cl_arg *arg;
	const struct cl_default *def;
	int word_id;
	unsigned flags;
};

/* The arguments of each step kind that the runner reads by name. Steps
 * whose arguments are constraints checked in written order (query,
 * expect, measure, load's results, peer set) are read through cl_step.args and
 * cl_arg.id. */
struct cl_dut_mr_args { struct cl_param size, access, fill, pd; };
struct cl_dut_qp_args {
	struct cl_param type, pmtu, psn, peer_psn, timeout, retry_cnt, rnr_retry, min_rnr_timer, max_rd_atomic,
		max_dest_rd_atomic, access, qkey, traffic_class, hop_limit, flow_label, udp_sport, peer_timeout,
		peer_retry_cnt, ip, state, sl, proto, srq, peer_srq, xrcd, pd;
};
struct cl_post_recv_args { struct cl_param offset, len, wr_id; };
struct cl_post_send_args {
	struct cl_param offset, len, wr_id, remote, rkey, imm, compare, swap, add, signaled, solicited, invalidate,
		remote_qkey, proto, group, value, placement, level, remote_srqn;
};
struct cl_dut_write_args { struct cl_param offset, data; };
struct cl_dut_read_args { struct cl_param offset, len, data, l3_header; };
struct cl_dut_modify_args { struct cl_param state, access; };
struct cl_peer_mr_args { struct cl_param size, fill, access; };
struct cl_peer_op_args {
	struct cl_param len, data, imm, invalidate, wr_id, remote, rkey, compare, swap, add, solicited, value, placement,
		level;
};
struct cl_inject_args {
	struct cl_param len, data, icrc, ip_options, src_ip, dst_ip, repeat, every, proto, group, value, placement,
		level, invalidate, truncate;
};
struct cl_expect_mem_args { struct cl_param offset, data; };
struct cl_rule_args { struct cl_param opcode, psn, round, nth, count; };
struct cl_dut_listen_args { struct cl_param port; };
/* within: the drain time after the last post, 'within T' or the table's
 * default (there is no within= to write). */
struct cl_load_args { struct cl_param len, remote, rkey, count, duration, rate, within; };
/* Multicast groups and shared receive queues (casesteps_mcast.c). */
struct cl_group_args { struct cl_param ip, addr; };
/* dut attach: its MLID (CA17-30: given, the attach is judged as the
 * device's), gid=dut|peer instead of a group, and '-> refused'. */
struct cl_dut_attach_args { struct cl_param lid, gid, refused; };
struct cl_dut_srq_args { struct cl_param max_wr, limit, xrcd, pd; };
struct cl_dut_arm_args { struct cl_param limit; };
struct cl_peer_srq_args { struct cl_param recv, xrc; };
/* Memory windows (casesteps_mw.c). */
struct cl_dut_mw_args { struct cl_param type, pd; };
struct cl_dut_bind_args { struct cl_param offset, len, access, key, status, wr_id, zero_based; };

enum cl_step_kind {
	CL_DUT_MR,        /* dut mr NAME args */
	CL_DUT_QP,        /* dut qp NAME args: DUT QP + tester peer QP, connected */
	CL_DUT_POST_RECV, /* dut post_recv QP MR args */
	CL_DUT_POST_SEND, /* dut post_send QP VERB [MR] args */
	CL_DUT_WRITE,     /* dut write MR args */
	CL_DUT_READ,      /* dut read MR args -> data=... */
	CL_DUT_QUERY,     /* dut query QP -> state=... */
	CL_DUT_MODIFY,    /* dut modify QP state=... */
	CL_PEER_MR,       /* peer mr NAME args */
	CL_PEER_OP,       /* peer QP send|write|read|cmp_swap|fetch_add args */
	CL_PEER_SET,      /* peer QP set key=value... */
	CL_INJECT,        /* inject QP OPCODE args */
	CL_EXPECT_PKT,    /* expect QP OPCODE|any constraints [within] */
	CL_EXPECT_NOTHING,/* expect nothing [QP] within T */
	CL_EXPECT_COMPLETION,    /* expect completion QP constraints [within] */
	CL_EXPECT_NO_COMPLETION, /* expect no completion QP within T */
	CL_EXPECT_PEER,   /* expect peer QP constraints [within] */
	CL_EXPECT_MEM,    /* expect mem PEER-MR offset=N data=... */
	CL_RULE,          /* on tx|rx QP|* match... do ACTION */
	CL_RULES_OFF,     /* off all */
	CL_WAIT,          /* wait T */
	CL_INFORM,        /* inform [RULE] "text" [$sym ...]: an informative finding */
	CL_CHECK,         /* check EXPR CMP EXPR [else inform [RULE] "text"] */
	CL_MEASURE,       /* measure QP OPCODE|any for T -> count=... rate=... */
	CL_DUT_LISTEN,    /* dut listen QP port=N: the DUT's CM accepts a connection on QP */
	CL_LOAD,          /* load QP send|write|read args (count=N | duration=T) [rate=N] -> completed=... */
	CL_GROUP,         /* group NAME [ip=4|6] [addr="A"]: a multicast group of the case */
	CL_DUT_ATTACH,    /* dut attach QP GROUP|gid=dut|peer [-> refused]: attach_mcast */
	CL_DUT_DETACH,    /* dut detach QP GROUP: detach_mcast */
	CL_DUT_JOIN,      /* dut join QP GROUP: the DUT's CM joins (cm_join) */
	CL_DUT_LEAVE,     /* dut leave QP GROUP: cm_leave */
	CL_EXPECT_JOIN,   /* expect join GROUP [within T]: an IGMP or MLD report from the DUT */
	CL_EXPECT_NO_JOIN,/* expect no join GROUP within T */
	CL_EXPECT_LEAVE,  /* expect leave GROUP [within T]: an IGMP or MLD report that the DUT's host left */
	CL_PEER_ATTACH,   /* peer attach QP GROUP: the tester's side of QP receives the group's datagrams */
	CL_DUT_SRQ,       /* dut srq NAME [max_wr=N] [limit=N]: create_srq */
	CL_DUT_ARM,       /* dut arm SRQ limit=N: modify_srq */
	CL_DUT_QUERY_SRQ, /* dut query SRQ -> limit=E: query_srq */
	CL_EXPECT_EVENT,  /* expect event TYPE [qp=Q | srq=S] [within T]: the next asynchronous event */
	CL_EXPECT_NO_EVENT, /* expect no event [TYPE] within T */
	CL_PEER_SRQ,      /* peer srq NAME [recv=N] [xrc]: a tester SRQ and its receive buffers */
	CL_DUT_MW,        /* dut mw NAME type=1|2: alloc_mw */
	CL_DUT_BIND,      /* dut bind MW QP MR args: bind_mw (type 1) or a BIND_MW work request (type 2) */
	CL_DUT_XRCD,      /* dut xrcd NAME: alloc_xrcd */
	CL_DUT_PORT,      /* dut port -> link_layer=... lid=...: query_port (casesteps_verbs.c) */
	CL_DUT_GIDS,      /* dut gids -> untyped=0 ipv4=?n ...: list_gids, each entry's type */
	CL_DUT_RAW_QP,    /* dut raw_datagram_qp RAW_IPV6|RAW_ETHERTYPE -> created=0: probe_raw_datagram_qp */
	CL_DUT_PD,        /* dut pd NAME: alloc_pd, a protection domain besides the case's own */
	CL_STEP_KIND_COUNT
};

const char *cl_step_kind_name(enum cl_step_kind k);

enum cl_rule_action {
	CL_ACT_DROP,
	CL_ACT_DUPLICATE,
	CL_ACT_DELAY,
	CL_ACT_REORDER,
	CL_ACT_CORRUPT_ICRC,
	CL_ACT_ECN_CE,
	CL_ACT_SET,
};

struct cl_step {
	enum cl_step_kind kind;
	struct cl_loc loc;
	char *text; /* the source line, for reports and capture comments */
	char *name; /* NAME defined (mr, qp) */
	char *qp;   /* QP name, or NULL for "any" */
	char *mr;   /* MR name where the step takes one */
	char *verb; /* post_send verb, peer or load operation, as written */
	/* The verb's value: enum ap_wr_opcode for post_send, enum
	 * ap_wc_opcode (enum peer_op) for peer and load operations. */
	int op;
	int opcode; /* packet opcode (inject, expect); -1 for "any" */
	/* inject/expect of a CM message (REQ, REP, LAP ...): its attribute ID;
	 * opcode is then the UD SEND Only that carries it to QP1. 0: none. */
	uint16_t cm_attr;
	struct cl_arg *args;
	unsigned n_args;
	/* The same arguments by name, per step kind (the member of the kind
	 * parsed, zero for the others). */
	union {
		struct cl_dut_mr_args dut_mr;
		struct cl_dut_qp_args dut_qp;
		struct cl_post_recv_args post_recv;
		struct cl_post_send_args post_send;
		struct cl_dut_write_args dut_write;
		struct cl_dut_read_args dut_read;
		struct cl_dut_modify_args dut_modify;
		struct cl_peer_mr_args peer_mr;
		struct cl_peer_op_args peer_op;
		struct cl_inject_args inject;
		struct cl_expect_mem_args expect_mem;
		struct cl_rule_args rule;
		struct cl_dut_listen_args dut_listen;
		struct cl_load_args load;
		struct cl_group_args group;
		struct cl_dut_attach_args dut_attach;
		struct cl_dut_srq_args dut_srq;
		struct cl_dut_arm_args dut_arm;
		struct cl_peer_srq_args peer_srq;
		struct cl_dut_mw_args dut_mw;
		struct cl_dut_bind_args dut_bind;
	} a;
	/* The multicast group (GROUP of attach, join, expect join, peer
	 * attach; group= of inject, post_send, expect), the DUT SRQ (dut srq,
	 * arm, query of an SRQ, post_recv to one, expect event srq=), and the
	 * asynchronous event expected (enum ap_event value; -1: any). */
	char *group;
	char *srq;
	int event;
	/* The memory window (dut mw, dut bind), the XRC domain (dut xrcd,
	 * xrcd= of dut srq and dut qp) and the protection domain (dut pd, pd=
	 * of dut mr, dut qp and dut mw; NULL: the case's own). */
	char *mw;
	char *xrcd;
	char *pd;
	/* within MIN..MAX (ns) for expectations; has_within false: the default. */
	bool has_within;
	uint64_t within_min, within_max;
	/* Injection rules. */
	bool rx; /* on rx (DUT's packets) or on tx (the tester's) */
	enum cl_rule_action action;
	uint64_t action_ns;     /* delay */
	unsigned action_n;      /* reorder: hold for N later packets */
	char *set_field;        /* set FIELD=EXPR */
	struct cl_field set_field_ref; /* FIELD, resolved */
	struct cl_expr set_value;
	/* inform: the finding's rule (NULL: the case's first), its text, and
	 * the symbols whose values it shows. */
	char *info_rule;
	char *info_text;
	struct cl_term *show;
	unsigned n_show;
	/* check: lhs CMP rhs; else_inform: an informative finding (info_rule,
	 * info_text) instead of a failure when it does not hold. An expected
	 * packet with else_inform: when nothing comes, the finding, and the
	 * case ends there. */
	struct cl_expr lhs, rhs;
	enum cl_cmp cmp;
	bool else_inform;
	/* expect ... else unreached [RULE] "text": a precondition of the
	 * case's rules (a correct request the DUT must answer before a
	 * refusal means anything). When it does not hold, silence or
	 * another packet, nothing is judged: the finding says the rules
	 * were not reached and why (info_rule, info_text), and the case
	 * ends there, informative. */
	bool unreached;
	/* check ... else inform ... if COND: informative only when COND
	 * holds as well. */
	bool has_cond;
	struct cl_expr cond_lhs, cond_rhs;
	enum cl_cmp cond_cmp;
	/* The roles the DUT plays in a step that checks something
	 * (ROCE_ROLE_*): written with 'as', or derived (caseroles.c). A
	 * failure there fails the case only under a "must" of the case's
	 * rules that binds one of them. */
	unsigned roles;
	bool roles_explicit;
};

/* What a name stands for. */
enum cl_sym_kind {
	CL_SYM_QP, CL_SYM_DUT_MR, CL_SYM_PEER_MR, CL_SYM_BOUND, CL_SYM_GROUP, CL_SYM_SRQ, CL_SYM_PEER_SRQ, CL_SYM_MW,
	CL_SYM_XRCD, CL_SYM_PD
};

struct cl_sym {
	char *name;
	enum cl_sym_kind kind;
	int qp_type; /* enum roce_transport for QPs */
	int ipv;     /* QPs (ip=) and groups: the IP version pinned, 0: the run's */
	bool joined; /* a group a 'dut join' joined above: $GROUP.qkey is bound */
	const char *srq, *peer_srq; /* QPs: the DUT SRQ and the tester SRQ their receives come from */
	/* XRC: the domain of an XRC SRQ or QP (NULL: none); an XRC QP's
	 * type (XRC_SEND or XRC_RECV, as enum ap_qp_type; -1 otherwise); a
	 * tester SRQ made with 'xrc' (it has $NAME.srqn); a window's type. */
	const char *xrcd;
	int xrc_type;
	bool xrc;
	int mw_type;
};

/* A multicast group of the case: 'group NAME [ip=4|6] [addr="A"]'. */
struct cl_group {
	char *name;
	int ipv;          /* 4 or 6; 0: the run's IP version */
	bool has_addr;    /* addr= given (then ipv is its version) */
	uint8_t addr[16]; /* as given: IPv4 in the first 4 bytes */
	unsigned index;   /* its place among the case's groups (the default address) */
};

struct cl_arena;

struct cl_case {
	struct cl_arena *arena; /* owns everything below */
	char *path;
	char *id, *title;
	struct cl_loc id_loc;
	char **rules; /* rule IDs as written (known to the catalogue) */
	unsigned *rule_ips; /* per rule: the IP versions it is judged on (bits 1<<4, 1<<6) */
	struct cl_loc *rule_locs;
	unsigned n_rules;
	unsigned caps; /* CL_CAP_* bits required */
	unsigned unless_caps; /* CL_CAP_* bits that make the case not applicable */
	char **mutants; /* soft-DUT fault profiles under which the case must fail */
	bool *mutant_informative; /* per mutant: the case must end informative instead */
	unsigned n_mutants;
	unsigned ip_versions; /* bit 4 and/or bit 6: (1u << 4) | (1u << 6) */
	unsigned pmtu;        /* default path MTU for QPs */
	uint64_t timeout_ns;  /* the whole case's time budget */
	struct cl_step *steps;
	unsigned n_steps;
	struct cl_sym *syms;
	unsigned n_syms;
	struct cl_group *groups;
	unsigned n_groups;
	/* Capabilities the steps need (dut srq: SRQ, dut attach: MCAST, dut
	 * join: CM_MCAST, expect event: ASYNC_EVENTS): the case is not
	 * applicable on a DUT without them, as with 'requires'. */
	unsigned uses_caps;
};

/* A group's address over IP version ipv (4: out[0..3]): addr= as given,
 * else 239.255.18.(index+1) or ff15::db8:(index+1). Returns the version
 * the address is of (the group's own when it pins one). */
int cl_group_address(const struct cl_group *g, int ipv, uint8_t out[16]);
const struct cl_group *cl_group_named(const struct cl_case *c, const char *name);

/* The asynchronous event types (get_async_event, AP_EVENT): a name to its
 * value, -1 if unknown; a value to its name; and what it is about:
 * CL_EVENT_QP, CL_EVENT_SRQ or another object (CQ, port, device). */
enum cl_event_about { CL_EVENT_QP, CL_EVENT_SRQ, CL_EVENT_CQ, CL_EVENT_PORT, CL_EVENT_DEVICE };
int cl_event_by_name(const char *name);
const char *cl_event_name(int value);
enum cl_event_about cl_event_about(int value);

/* The agent's capabilities (CL_CAP_RC, ... CL_CAP_ROCEV1), then the
 * tester's own. */
enum {
#define AP_CAPABILITY(SYM, bit) CL_CAP_##SYM = AP_CAP_##SYM,
#include "agent_protocol.def"
#undef AP_CAPABILITY
};
/* The tester's own bits sit at the top, clear of the protocol's. */
#define CL_CAP_CM 0x80000000u  /* the agent can make the DUT's connection manager listen and connect */
/* Not the DUT's: the run's. The run is over an 802.1Q VLAN (run --vlan). */
#define CL_CAP_VLAN 0x40000000u

/* Capability name (as in the agent protocol's query_device) to bit, 0 if
 * unknown; and the names of a set, comma separated (CL_CAPS_TEXT bytes
 * hold them all). */
unsigned cl_cap_bit(const char *name);
#define CL_CAPS_TEXT 256
void cl_caps_format(unsigned caps, char *buf, size_t n);

struct cl_diag {
	enum cl_error code;
	struct cl_loc loc;
	/* "file:line:col: what was found; expected what": one line for a
	 * person, location first. A longer one (a path of hundreds of
	 * characters, a huge word quoted from the file) is cut visibly. */
	char msg[1024];
};

/* Parses a case file (or text; path names it in messages). Returns NULL and
 * fills diag on error. */
struct cl_case *cl_parse_file(const char *path, struct cl_diag *diag);
struct cl_case *cl_parse_text(const char *path, const char *text, size_t len, struct cl_diag *diag);
void cl_case_free(struct cl_case *c);

/* docs/case-arguments.md: every statement's arguments, the forms their
 * values take, their words and defaults, from the parser's tables. */
void cl_arguments_markdown(FILE *out);

/* ---- Roles (caseroles.c) ---- */

/* Whether rule i of the case is judged on a run over IP version ipv (4
 * or 6): a rule written 'CA17-4 ipv4' only applies to IPv4 runs. */
bool cl_rule_applies(const struct cl_case *c, unsigned i, int ipv);

/* Whether a step checks something (expectations, queries, reads, checks,
 * measurements, an attach with lid= or '-> refused'): those have roles. */
bool cl_step_checks(const struct cl_step *s);
/* Fills in the roles of every checking step that has none written: from
 * the packet it expects (a DUT's request: sender and requester; its
 * response: sender, responder and receiver of the request), else from
 * the step's stimulus, the last one before it on its QP (an injected
 * request: receiver and responder; an injected response: receiver and
 * requester; a DUT's work request: sender and requester; a tester's
 * operation: receiver and responder; CM messages and listens: CM). */
void cl_derive_roles(struct cl_case *c);
/* The case's rules (indices, for runs over IP version ipv) that bind the
 * DUT playing `roles` with a "must": how many, up to max. */
unsigned cl_binding_rules(const struct cl_case *c, int ipv, unsigned roles, unsigned *idx, unsigned max);
/* Why a failed check with roles `roles` binds none of the case's rules,
 * one line: "CA17-7 binds the sender (must); the DUT is the receiver,
 * responder here". */
void cl_unbound_reason(const struct cl_case *c, int ipv, unsigned roles, char *buf, size_t n);

/* The value of a named argument of a step, or NULL. */
const struct cl_arg *cl_step_arg(const struct cl_step *s, const char *key);

/* Whether a word argument (status=, opcode=, aeth=: one word or a list of
 * the answers a rule allows, with = or !=) accepts the value observed (in
 * its vocabulary; -1 for a word outside it, CL_WORD_ABSENT for none), and
 * its words as text ("REM_INV_REQ_ERR or BAD_RESP_ERR", "not SUCCESS"). */
#define CL_WORD_ABSENT (-2)
bool cl_word_arg_accepts(const struct cl_arg *a, int got);
void cl_word_arg_text(const struct cl_arg *a, char *buf, size_t n);

/* A CM message by the name cases use (REQ, REP, RTU, REJ, MRA, DREQ,
 * DREP, LAP, APR, SIDR_REQ, SIDR_REP): its attribute ID, 0 if none. */
uint16_t cl_cm_msg_lookup(const char *word);

/* A QP type of the agent protocol (dut qp type=) as libroce's transport
 * (XRC_SEND and XRC_RECV: XRC). */
enum roce_transport cl_qp_transport(enum ap_qp_type t);
/* Whether a QP type is XRC's: CL_XRC_SEND (the DUT's initiator), CL_XRC_RECV
 * (its target), 0 for another type. */
enum { CL_XRC_SEND = 1, CL_XRC_RECV = 2 };
int cl_qp_type_xrc(int t);

/* Opcode lookup for a transport, by the short names cases use
 * (SEND_ONLY, RDMA_WRITE_FIRST, WRITE_ONLY, ACK, READ_RESPONSE_LAST, CNP)
 * or libroce's full names (rc-send-only, 0x04). -1 when nothing matches. */
int cl_opcode_lookup(int transport, const char *word);

/* The AETH kinds (ACK, RNR, NAK, NAK_SEQ, NAK_INVALID, NAK_ACCESS,
 * NAK_OPERATIONAL, NAK_INVALID_RD): their names (NULL-terminated), and
 * the syndrome pattern of each (the syndrome matches when syndrome & mask
 * == value). cl_aeth_word: the same by name, false when unknown. */
extern const char *const cl_aeth_kind_words[];
/* The completion flags a case names (flags=): GRH, WITH_IMM, WITH_INV,
 * valued as their position; NULL-terminated. */
extern const char *const cl_wc_flag_words[];
void cl_aeth_pattern(enum cl_aeth_kind kind, uint8_t *value, uint8_t *mask);
bool cl_aeth_word(const char *word, uint8_t *value, uint8_t *mask);

/* What a header-field name (psn, rkey, ttl ... or a full name, bth.tver,
 * rej.reason) stands for; and which libroce field it is in a packet over
 * IP version ipv with the extension headers xhdrs (ROCE_XHDR_BIT): rkey is
 * the RETH's, or the AtomicETH's in an atomic request. ROCE_F_COUNT when
 * none. */
struct cl_field cl_field_named(const char *name);
enum roce_field cl_field_in(const struct cl_field *fl, int ipv, uint16_t xhdrs);

#endif
