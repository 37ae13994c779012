/*
 * Each statement's arguments: a table of the keys it takes, the forms of
 * their values, the words allowed and, for those the runner reads by
 * name, the default (docs/case-language.md). Parsing key=value checks an
 * argument against its table and files it in the step's typed struct.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

/* An argument the runner reads by name, with its default: ARG(step kind
 * member of cl_step.a, name, forms, vocabulary, default). CHK: one read in
 * written order (a constraint, a setting), without a default. */
#define ARG(kind, name, forms, vocab, def) { #name, CL_K_##name, forms, vocab, offsetof(struct cl_step, a.kind.name), def }
#define CHK(name, forms, vocab) { #name, CL_K_##name, forms, vocab, 0, NO_DEF }
/* The default of 'within T' where no window is written. */
#define WITHIN(kind, def) { "within", CL_K_within, F_WINDOW, NULL, offsetof(struct cl_step, a.kind.within), def }
#define FIELDS(forms) { "*", CL_K_FIELD, (forms) | F_FIELD, NULL, 0, NO_DEF }
#define END { NULL, CL_K_FIELD, 0, NULL, 0, NO_DEF }
#define NO_DEF { CL_DEF_NONE, 0, NULL }
#define NUM(n) { CL_DEF_NUM, (n), NULL }
#define WORD(w) { CL_DEF_WORD, 0, (w) }
#define RUN(what) { CL_DEF_RUN, 0, (what) }

/* The agent protocol's words (protocol/agent_protocol.def), valued as
 * its enums. */
static const struct vocab w_qp_type = { ap_qp_type_words, ap_qp_type_by_name, false };
static const struct vocab w_access = { ap_access_words, ap_access_by_name, true };
static const struct vocab w_state = { ap_qp_state_words, ap_qp_state_by_name, false };
static const struct vocab w_status = { ap_wc_status_words, ap_wc_status_by_name, false };
static const struct vocab w_wc_opcode = { ap_wc_opcode_words, ap_wc_opcode_by_name, false };
/* The states a new QP may be left in. */
static const char *const bringup_words[] = { "RESET", "INIT", "RTR", "RTS", NULL };
static const struct vocab w_bringup = { bringup_words, ap_qp_state_by_name, false };
/* The language's own, valued as their position (enum cl_switch, cl_icrc, cl_proto, cl_gid_of). */
static const char *const onoff_words[] = { "on", "off", NULL };
static const char *const icrc_words[] = { "good", "bad", NULL };
static const char *const proto_words[] = { "v1", "v2", NULL };
static const char *const other_words[] = { "other", NULL };
static const struct vocab w_onoff = { onoff_words, NULL, false };
static const struct vocab w_icrc = { icrc_words, NULL, false };
static const struct vocab w_proto = { proto_words, NULL, false };
static const struct vocab w_other = { other_words, NULL, false };
static const struct vocab w_aeth = { cl_aeth_kind_words, NULL, false }; /* enum cl_aeth_kind */
static const struct vocab w_wc_flags = { cl_wc_flag_words, NULL, false }; /* their position */
/* inject corrupts the ICRC it computes (icrc=bad), computes it as an
 * implementation making one of libroce's known mistakes would
 * (icrc=headers-twice: Linux rxe's FLUSH), or writes a number. The
 * mistakes are libroce's names (roce_icrc_mistake_by_name), valued
 * CL_ICRC_MISTAKE + the mistake. */
static const char *const icrc_inject_words[] = { "bad", "pad-omitted", "bth4-unmasked", "ipv4-tos-unmasked",
						 "ipv4-ttl-unmasked", "ipv4-csum-unmasked", "ipv6-tc-unmasked",
						 "ipv6-fl-unmasked", "ipv6-hl-unmasked", "udp-csum-unmasked",
						 "nothing-masked", "byte-order", "not-inverted", "no-prefix",
						 "headers-twice", NULL };
static int icrc_inject_value(const char *w)
{
	if (!strcasecmp(w, "bad"))
		return CL_ICRC_BAD;
	enum roce_icrc_mistake m = roce_icrc_mistake_by_name(w);
	return m > ROCE_ICRC_MISTAKE_NONE && m < ROCE_ICRC_MISTAKE_COUNT ? CL_ICRC_MISTAKE + (int)m : -1;
}
static const struct vocab w_icrc_bad = { icrc_inject_words, icrc_inject_value, false };

/* FLUSH's placement types (FETH bit 0 global visibility, bit 1
 * persistence) and selectivity levels (0 the RETH's range, 1 the whole
 * region), valued as the FETH carries them. */
static const char *const placement_words[] = { "GLOBAL", "PERSISTENT", NULL };
static int placement_value(const char *w)
{
	return !strcasecmp(w, "GLOBAL") ? 1 : !strcasecmp(w, "PERSISTENT") ? 2 : -1;
}
static const struct vocab w_placement = { placement_words, placement_value, true };
static const char *const level_words[] = { "RANGE", "REGION", NULL };
static const struct vocab w_level = { level_words, NULL, false };
#define STEP_INDEX RUN("the step's index")
#define QP_PROTO RUN("the QP's (its GID's protocol)")
#define ALL_REMOTE "REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC"

const struct argspec cl_args_dut_mr[] = {
	ARG(dut_mr, size, F_EXPR, NULL, NUM(4096)),
	ARG(dut_mr, access, F_WORD | F_LIST, &w_access, WORD("LOCAL_WRITE," ALL_REMOTE)),
	ARG(dut_mr, fill, F_EXPR, NULL, NUM(0)),
	/* The protection domain (dut pd); by default the case's own. */
	ARG(dut_mr, pd, F_WORD, NULL, RUN("the case's protection domain")), END
};
const struct argspec cl_args_dut_qp[] = {
	ARG(dut_qp, type, F_WORD, &w_qp_type, WORD("RC")),
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
	ARG(dut_qp, access, F_WORD | F_LIST, &w_access, WORD(ALL_REMOTE)),
	ARG(dut_qp, qkey, F_EXPR, NULL, NUM(0x11111111)),
	ARG(dut_qp, traffic_class, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, hop_limit, F_EXPR, NULL, NUM(64)),
	ARG(dut_qp, flow_label, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, udp_sport, F_EXPR, NULL, NUM(0)),
	ARG(dut_qp, peer_timeout, F_EXPR, NULL, NUM(50)),
	ARG(dut_qp, peer_retry_cnt, F_EXPR, NULL, NUM(7)),
	ARG(dut_qp, ip, F_EXPR, NULL, RUN("the run's IP version")),
	ARG(dut_qp, state, F_WORD, &w_bringup, WORD("RTS")),
	ARG(dut_qp, sl, F_EXPR, NULL, RUN("the run's VLAN priority (run --vlan-pcp), 0 without a VLAN")),
	ARG(dut_qp, proto, F_WORD, &w_proto, WORD("v2")),
	/* The DUT SRQ (dut srq) and the tester SRQ (peer srq) the QP's receives come from. */
	ARG(dut_qp, srq, F_WORD, NULL, NO_DEF), ARG(dut_qp, peer_srq, F_WORD, NULL, NO_DEF),
	/* XRC_RECV: the XRC domain (dut xrcd) of the target. */
	ARG(dut_qp, xrcd, F_WORD, NULL, NO_DEF),
	/* The protection domain (dut pd) of an RC or UC QP; by default the case's own. */
	ARG(dut_qp, pd, F_WORD, NULL, RUN("the case's protection domain")), END
};
const struct argspec cl_args_post_recv[] = {
	ARG(post_recv, offset, F_EXPR, NULL, NUM(0)),
	ARG(post_recv, len, F_EXPR, NULL, RUN("the MR's length")),
	ARG(post_recv, wr_id, F_EXPR, NULL, STEP_INDEX), END
};
const struct argspec cl_args_post_send[] = {
	ARG(post_send, offset, F_EXPR, NULL, NUM(0)),
	ARG(post_send, len, F_EXPR, NULL, RUN("the MR's length; 0 without an MR")),
	ARG(post_send, wr_id, F_EXPR, NULL, STEP_INDEX),
	ARG(post_send, remote, F_EXPR, NULL, NO_DEF), ARG(post_send, rkey, F_EXPR, NULL, NO_DEF),
	ARG(post_send, imm, F_EXPR, NULL, NO_DEF), ARG(post_send, compare, F_EXPR, NULL, NO_DEF),
	ARG(post_send, swap, F_EXPR, NULL, NO_DEF), ARG(post_send, add, F_EXPR, NULL, NO_DEF),
	ARG(post_send, signaled, F_WORD, &w_onoff, WORD("on")),
	ARG(post_send, solicited, F_WORD, &w_onoff, WORD("off")),
	ARG(post_send, invalidate, F_EXPR, NULL, NO_DEF),
	ARG(post_send, remote_qkey, F_EXPR, NULL, RUN("the tester QP's Q_Key")),
	ARG(post_send, proto, F_WORD, &w_proto, QP_PROTO),
	/* UD: to the group (its GID, remote QPN 0xFFFFFF) instead of the tester's QP. */
	ARG(post_send, group, F_WORD, NULL, NO_DEF),
	/* ATOMIC_WRITE's 8 bytes; FLUSH's placement types and level; an
	 * XRC_SEND QP's target SRQ. */
	ARG(post_send, value, F_EXPR, NULL, NO_DEF),
	ARG(post_send, placement, F_WORD | F_LIST, &w_placement, WORD("GLOBAL")),
	ARG(post_send, level, F_WORD, &w_level, WORD("RANGE")),
	ARG(post_send, remote_srqn, F_EXPR, NULL, RUN("the number of the tester's first XRC SRQ")), END
};
const struct argspec cl_args_dut_write[] = {
	ARG(dut_write, offset, F_EXPR, NULL, NUM(0)), ARG(dut_write, data, F_BYTES, NULL, NO_DEF), END
};
const struct argspec cl_args_dut_read[] = {
	ARG(dut_read, offset, F_EXPR, NULL, NUM(0)),
	ARG(dut_read, len, F_EXPR, NULL, RUN("the length of data=")),
	ARG(dut_read, data, F_BYTES | F_RESULT, NULL, NO_DEF),
	ARG(dut_read, l3_header, F_WORD | F_RESULT, NULL, NO_DEF), END
};
#define QUERIED (F_EXPR | F_BIND | F_RESULT | F_CMP)
const struct argspec cl_args_dut_query[] = {
	CHK(state, F_WORD | F_RESULT | F_CMP, &w_state), CHK(sq_psn, QUERIED, NULL), CHK(rq_psn, QUERIED, NULL),
	/* The address vector as the device holds it (RC, UC). */
	CHK(hop_limit, QUERIED, NULL), CHK(traffic_class, QUERIED, NULL), CHK(flow_label, QUERIED, NULL),
	CHK(sl, QUERIED, NULL), END
};
/* The attributes other than state go to modify_qp by their names. */
const struct argspec cl_args_dut_modify[] = {
	ARG(dut_modify, state, F_WORD, &w_state, WORD("RTS")), CHK(sq_psn, F_EXPR, NULL), CHK(rq_psn, F_EXPR, NULL),
	CHK(timeout, F_EXPR, NULL), CHK(retry_cnt, F_EXPR, NULL), CHK(rnr_retry, F_EXPR, NULL),
	CHK(min_rnr_timer, F_EXPR, NULL), ARG(dut_modify, access, F_WORD | F_LIST, &w_access, NO_DEF), END
};
const struct argspec cl_args_peer_mr[] = {
	ARG(peer_mr, size, F_EXPR, NULL, NUM(4096)), ARG(peer_mr, fill, F_EXPR, NULL, NUM(0)),
	ARG(peer_mr, access, F_WORD | F_LIST, &w_access, WORD(ALL_REMOTE)), END
};
const struct argspec cl_args_peer_op[] = {
	ARG(peer_op, len, F_EXPR, NULL, RUN("64; 0 for read")), ARG(peer_op, data, F_BYTES, NULL, NO_DEF),
	ARG(peer_op, imm, F_EXPR, NULL, NO_DEF), ARG(peer_op, invalidate, F_EXPR, NULL, NO_DEF),
	ARG(peer_op, wr_id, F_EXPR, NULL, STEP_INDEX), ARG(peer_op, remote, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, rkey, F_EXPR, NULL, NUM(0)), ARG(peer_op, compare, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, swap, F_EXPR, NULL, NUM(0)), ARG(peer_op, add, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, solicited, F_WORD, &w_onoff, WORD("off")), ARG(peer_op, value, F_EXPR, NULL, NUM(0)),
	ARG(peer_op, placement, F_WORD | F_LIST, &w_placement, WORD("GLOBAL")),
	ARG(peer_op, level, F_WORD, &w_level, WORD("RANGE")), END
};
const struct argspec cl_args_peer_set[] = {
	CHK(auto, F_WORD, &w_onoff), CHK(rnr, F_WORD, &w_onoff), CHK(ack, F_WORD, &w_onoff),
	CHK(rnr_timer, F_EXPR, NULL), CHK(psn, F_EXPR, NULL), CHK(recv, F_EXPR, NULL), END
};
const struct argspec cl_args_inject[] = {
	ARG(inject, len, F_EXPR, NULL, RUN("the PMTU for a First or Middle packet, 16 for other packets with a payload, else 0")),
	ARG(inject, data, F_BYTES, NULL, NO_DEF), ARG(inject, icrc, F_WORD | F_EXPR, &w_icrc_bad, NO_DEF),
	ARG(inject, ip_options, F_BYTES, NULL, NO_DEF), ARG(inject, src_ip, F_WORD, &w_other, NO_DEF),
	ARG(inject, dst_ip, F_WORD, &w_other, NO_DEF), ARG(inject, repeat, F_EXPR, NULL, NUM(1)),
	ARG(inject, every, F_EXPR, NULL, NUM(0)), ARG(inject, proto, F_WORD, &w_proto, QP_PROTO),
	/* The frame is cut to its first N bytes (a truncated frame, whose
	 * headers claim more than it holds: roce-tester fuzz writes them). */
	ARG(inject, truncate, F_EXPR, NULL, NO_DEF),
	/* To the group: its address and mapped MAC, DestQP 0xFFFFFF. */
	ARG(inject, group, F_WORD, NULL, NO_DEF),
	/* ATOMIC WRITE's payload, FLUSH's FETH (feth.plt and feth.sel set it
	 * by number), the IETH of a SEND with Invalidate. */
	ARG(inject, value, F_EXPR, NULL, NUM(0)),
	ARG(inject, placement, F_WORD | F_LIST, &w_placement, WORD("GLOBAL")),
	ARG(inject, level, F_WORD, &w_level, WORD("RANGE")),
	ARG(inject, invalidate, F_EXPR, NULL, NUM(0)), FIELDS(F_EXPR), END
};
#define OBSERVED (F_EXPR | F_BIND | F_CMP)
const struct argspec cl_args_expect_pkt[] = {
	CHK(len, OBSERVED, NULL), CHK(data, F_BYTES, NULL), CHK(icrc, F_WORD, &w_icrc), CHK(delay, OBSERVED, NULL),
	CHK(pcp, OBSERVED, NULL), CHK(vid, OBSERVED, NULL), CHK(aeth, F_WORD | F_LIST, &w_aeth), CHK(proto, F_WORD, &w_proto),
	CHK(group, F_WORD, NULL), FIELDS(OBSERVED), END
};
const struct argspec cl_args_expect_completion[] = {
	CHK(wr_id, F_EXPR | F_BIND, NULL), CHK(status, F_WORD | F_LIST | F_CMP, &w_status), CHK(opcode, F_WORD, &w_wc_opcode),
	CHK(byte_len, OBSERVED, NULL), CHK(imm, F_EXPR | F_BIND, NULL), CHK(src_qp, F_EXPR | F_BIND, NULL),
	/* The rkey a SEND with Invalidate invalidated (the completion's
	 * invalidated-rkey field), and flags the completion must carry. */
	CHK(invalidated, F_EXPR | F_BIND, NULL), CHK(flags, F_WORD | F_LIST, &w_wc_flags), END
};
const struct argspec cl_args_expect_peer[] = {
	CHK(wr_id, F_EXPR | F_BIND, NULL), CHK(status, F_WORD | F_LIST | F_CMP, &w_status), CHK(value, F_EXPR | F_BIND, NULL),
	CHK(data, F_BYTES, NULL), CHK(invalidated, F_EXPR | F_BIND, NULL), END
};
const struct argspec cl_args_expect_mem[] = {
	ARG(expect_mem, offset, F_EXPR, NULL, NUM(0)), ARG(expect_mem, data, F_BYTES, NULL, NO_DEF), END
};
const struct argspec cl_args_rule[] = {
	ARG(rule, opcode, F_WORD, NULL, NO_DEF), ARG(rule, psn, F_EXPR, NULL, NO_DEF),
	ARG(rule, round, F_EXPR, NULL, NO_DEF), ARG(rule, nth, F_EXPR, NULL, NUM(0)),
	ARG(rule, count, F_EXPR, NULL, NUM(0)), END
};
#define MEASURED (F_EXPR | F_BIND | F_CMP | F_RESULT)
/* count, duration and rate bound the load only when given (load_step.h:
 * 0 is no bound of that kind); within: how long the outstanding
 * operations may take after the last post. */
const struct argspec cl_args_load[] = {
	ARG(load, len, F_EXPR, NULL, NUM(64)), ARG(load, remote, F_EXPR, NULL, NO_DEF),
	ARG(load, rkey, F_EXPR, NULL, NO_DEF), ARG(load, count, F_EXPR, NULL, NO_DEF),
	ARG(load, duration, F_EXPR, NULL, NO_DEF), ARG(load, rate, F_EXPR, NULL, NO_DEF),
	WITHIN(load, NUM(2000000000)),
	CHK(posted, MEASURED, NULL), CHK(completed, MEASURED, NULL), CHK(errors, MEASURED, NULL),
	CHK(lost, MEASURED, NULL), CHK(achieved, MEASURED, NULL), CHK(retransmissions, MEASURED, NULL),
	CHK(naks, MEASURED, NULL), CHK(rnr_naks, MEASURED, NULL), CHK(cnps, MEASURED, NULL), END
};
const struct argspec cl_args_measure[] = {
	CHK(count, MEASURED, NULL), CHK(bytes, MEASURED, NULL), CHK(rate, MEASURED, NULL), CHK(pps, MEASURED, NULL),
	CHK(first, MEASURED, NULL), CHK(last, MEASURED, NULL), CHK(min_gap, MEASURED, NULL),
	CHK(max_gap, MEASURED, NULL), END
};
const struct argspec cl_args_none[] = { END };
const struct argspec cl_args_dut_listen[] = { ARG(dut_listen, port, F_EXPR, NULL, NO_DEF), END };
const struct argspec cl_args_group[] = {
	ARG(group, ip, F_EXPR, NULL, RUN("the run's IP version; that of addr= when given")),
	ARG(group, addr, F_BYTES, NULL, RUN("\"239.255.18.N\" or \"ff15::db8:N\", N the group's place among the case's groups")),
	END
};
/* gid=: the address whose GID a dut attach names in place of a group,
 * the DUT port's own or the tester's (enum cl_gid_of); '-> refused'. */
static const char *const gid_words[] = { "dut", "peer", NULL };
static const struct vocab w_gid = { gid_words, NULL, false };
const struct argspec cl_args_dut_srq[] = {
	ARG(dut_srq, max_wr, F_EXPR, NULL, NUM(64)), ARG(dut_srq, limit, F_EXPR, NULL, NUM(0)),
	/* An XRC SRQ of that domain (dut xrcd). */
	ARG(dut_srq, xrcd, F_WORD, NULL, NO_DEF),
	/* The SRQ's protection domain (dut pd); the case's own without. */
	ARG(dut_srq, pd, F_WORD, NULL, RUN("the case's protection domain")), END
};
const struct argspec cl_args_dut_arm[] = { ARG(dut_arm, limit, F_EXPR, NULL, NO_DEF), END };
const struct argspec cl_args_dut_query_srq[] = { CHK(limit, QUERIED, NULL), CHK(max_wr, QUERIED, NULL), END };
const struct argspec cl_args_expect_event[] = { CHK(qp, F_WORD, NULL), CHK(srq, F_WORD, NULL), END };
const struct argspec cl_args_peer_srq[] = {
	ARG(peer_srq, recv, F_EXPR, NULL, NUM(0)),
	/* An XRC SRQ: a DUT XRC_SEND QP's requests name it by $NAME.srqn. */
	ARG(peer_srq, xrc, F_FLAG, NULL, NO_DEF), END
};
const struct argspec cl_args_dut_mw[] = {
	ARG(dut_mw, type, F_EXPR, NULL, NO_DEF), ARG(dut_mw, pd, F_WORD, NULL, RUN("the case's protection domain")), END
};
const struct argspec cl_args_dut_bind[] = {
	ARG(dut_bind, offset, F_EXPR, NULL, NUM(0)), ARG(dut_bind, len, F_EXPR, NULL, RUN("the MR's length less offset")),
	ARG(dut_bind, access, F_WORD | F_LIST, &w_access, WORD("REMOTE_WRITE,REMOTE_READ")),
	ARG(dut_bind, key, F_EXPR, NULL, RUN("type 2: the window's key + 1")),
	ARG(dut_bind, status, F_WORD | F_LIST, &w_status, WORD("SUCCESS")), ARG(dut_bind, wr_id, F_EXPR, NULL, STEP_INDEX),
	ARG(dut_bind, zero_based, F_WORD, &w_onoff, WORD("off")), END
};

/* The port as the verbs describe it (casesteps_verbs.c): query_port's
 * attributes, the GID table's entries by the annex's types, and what an
 * attempt at a raw datagram QP gave; each a result to check or bind. */
static const struct vocab w_link_layer = { ap_link_layer_words, ap_link_layer_by_name, false };
const struct argspec cl_args_dut_port[] = {
	CHK(link_layer, F_WORD | F_RESULT | F_CMP, &w_link_layer), CHK(lid, QUERIED, NULL), CHK(lmc, QUERIED, NULL),
	CHK(sm_lid, QUERIED, NULL), CHK(sm_sl, QUERIED, NULL), CHK(max_vl_num, QUERIED, NULL),
	CHK(gid_tbl_len, QUERIED, NULL), CHK(client_reregistration, QUERIED, NULL), CHK(ip_based_gids, QUERIED, NULL), END
};
const struct argspec cl_args_dut_gids[] = {
	CHK(count, QUERIED, NULL), CHK(ipv4, QUERIED, NULL), CHK(ipv6, QUERIED, NULL), CHK(ib_gid, QUERIED, NULL),
	CHK(untyped, QUERIED, NULL), END
};
const struct argspec cl_args_dut_raw_qp[] = { CHK(created, QUERIED, NULL), END };
/* dut attach: the MLID (CA17-30), gid= in place of a group, '-> refused'. */
const struct argspec cl_args_dut_attach[] = {
	ARG(dut_attach, lid, F_EXPR, NULL, NUM(0)), ARG(dut_attach, gid, F_WORD, &w_gid, NO_DEF),
	ARG(dut_attach, refused, F_FLAG | F_RESULT, NULL, NO_DEF), END
};

int cl_vocab_value(const struct vocab *v, const char *w)
{
	for (int i = 0; v->words[i]; i++)
		if (!strcasecmp(v->words[i], w))
			return v->value_of ? v->value_of(v->words[i]) : i;
	return -1;
}

bool cl_word_allowed(const char *const *words, const char *w)
{
	if (!words)
		return true;
	for (; *words; words++)
		if (!strcasecmp(*words, w))
			return true;
	return false;
}

/* The words of a table, for a diagnostic (cut visibly if n is short). */
void cl_list_words(const char *const *words, char *buf, size_t n)
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
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found bytes; expected %s", key, forms_text(forms));
		v->kind = CL_V_BYTES;
		v->bytes = ps->tok.bytes;
		v->n_bytes = ps->tok.n_bytes;
		next(ps);
		return;
	case CL_T_BIND:
		if (!(forms & F_BIND))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s cannot bind a value here; expected %s", key,
				forms_text(forms & ~F_BIND));
		cl_define_sym(ps, ps->tok.text, CL_SYM_BOUND, -1, ps->tok.loc);
		v->kind = CL_V_BIND;
		v->word = ps->tok.text;
		next(ps);
		return;
	case CL_T_DURATION:
		if (!(forms & (F_DUR | F_EXPR)))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found a duration; expected %s", key, forms_text(forms));
		if (!(forms & F_DUR)) { /* a duration in an expression counts nanoseconds */
			v->kind = CL_V_EXPR;
			cl_parse_expr(ps, &v->expr);
			return;
		}
		v->kind = CL_V_DURATION;
		v->ns = ps->tok.num;
		next(ps);
		return;
	case CL_T_WORD: {
		if (!(forms & (F_WORD | F_LIST)))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found the word '%s'; expected %s", key,
				ps->tok.text, forms_text(forms));
		char allowed[400];
		const char *const *allowed_words = spec->vocab ? spec->vocab->words : NULL;
		cl_list_words(allowed_words, allowed, sizeof allowed);
		char *words[16];
		unsigned n = 0;
		for (;;) {
			if (ps->tok.kind != CL_T_WORD)
				fail_expected(ps, "a word after ','");
			if (!cl_word_allowed(allowed_words, ps->tok.text))
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' is not a value of %s; expected one of %s",
					ps->tok.text, key, allowed);
			if (n == 16)
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many words in the list; expected at most 16");
			words[n++] = ps->tok.text;
			next(ps);
			if (!is_op(ps, ","))
				break;
			if (!(forms & F_LIST))
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s takes one word, not a list; expected a single word", key);
			next(ps);
		}
		/* What the words stand for (-1 where the table takes any word). */
		int ids[16];
		for (unsigned i = 0; i < n; i++)
			ids[i] = spec->vocab ? cl_vocab_value(spec->vocab, words[i]) : -1;
		v->word = words[0];
		v->word_id = ids[0];
		if (n == 1 && !(forms & F_LIST)) {
			v->kind = CL_V_WORD;
		} else {
			v->kind = CL_V_LIST;
			v->n_list = n;
			v->list = cl_arena_alloc(ps->arena, n * sizeof *words);
			memcpy(v->list, words, n * sizeof *words);
			v->word_ids = cl_arena_alloc(ps->arena, n * sizeof *ids);
			memcpy(v->word_ids, ids, n * sizeof *ids);
		}
		return;
	}
	case CL_T_NUMBER:
	case CL_T_SYM:
		if (!(forms & F_EXPR))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s: found a number; expected %s", key, forms_text(forms));
		v->kind = CL_V_EXPR;
		cl_parse_expr(ps, &v->expr);
		return;
	default:
		fail_expected(ps, forms_text(forms));
	}
}

static const struct argspec *find_spec(const struct argspec *specs, const char *key)
{
	for (const struct argspec *s = specs; s->key; s++)
		if (!strcmp(s->key, key) && !(s->forms & F_WINDOW))
			return s;
	for (const struct argspec *s = specs; s->key; s++)
		if (!strcmp(s->key, "*") && (cl_is_pseudo_field(key) || roce_field_by_name(key) != ROCE_F_COUNT ||
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
		if (!(s->forms & F_WINDOW))
			text_appendf(buf, n, "%s%s", buf[0] ? ", " : "",
			     strcmp(s->key, "*") ? s->key : "a header field (psn, bth.tver, reth.rkey, ...)");
	if (!buf[0])
		text_copy(buf, n, "nothing more");
}

/* A word argument's value for the runner: the words written, else the
 * default's (comma-separated words). */
static void resolve_words(struct cl_param *prm, const struct vocab *vocab)
{
	prm->word_id = -1;
	prm->flags = 0;
	if (!vocab)
		return;
	const struct cl_value *v = prm->arg ? &prm->arg->v : NULL;
	if (v && (v->kind == CL_V_WORD || v->kind == CL_V_LIST)) {
		prm->word_id = v->word_id;
		for (unsigned i = 0; vocab->flags && i < (v->kind == CL_V_LIST ? v->n_list : 1); i++)
			prm->flags |= (unsigned)(v->kind == CL_V_LIST ? v->word_ids[i] : v->word_id);
		return;
	}
	if (v || prm->def->kind != CL_DEF_WORD)
		return;
	char word[CL_MAX_WORD + 1];
	for (const char *w = prm->def->word; *w;) {
		size_t len = strcspn(w, ",");
		text_printf(word, sizeof word, "%.*s", (int)len, w);
		int id = cl_vocab_value(vocab, word);
		if (prm->word_id < 0)
			prm->word_id = id;
		if (vocab->flags && id > 0)
			prm->flags |= (unsigned)id;
		w += len + (w[len] == ',');
	}
}

/* key=value ... up to the end of the line, 'within', 'do' or '->' (the
 * caller says which stop words apply). */
void cl_parse_args(struct parser *ps, struct cl_step *st, const struct argspec *specs,
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
					cl_fail_at(ps, CL_ERR_VALUE, wl, "window %llu..%llu ns ends before it starts; expected MIN..MAX",
						(unsigned long long)a, (unsigned long long)b);
			} else {
				a = 0;
			}
			if (st->has_within)
				cl_fail_at(ps, CL_ERR_DUPLICATE, wl, "a second 'within'; expected one time window per step");
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
			break; /* the DUT's roles in the step (cl_parse_roles) */
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
			cl_fail_at(ps, field_like ? CL_ERR_FIELD : CL_ERR_ARGUMENT, kl,
				"%s '%s' for '%s'; expected %s", field_like ? "no header field" : "unknown argument",
				key, cl_step_kind_name(st->kind), keys);
		}
		if ((spec->forms & F_RESULT) && !result)
			cl_fail_at(ps, CL_ERR_ARGUMENT, kl, "'%s' is a result; expected it after '->'", key);
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(args[i].key, key))
				cl_fail_at(ps, CL_ERR_DUPLICATE, kl, "'%s' given twice; expected each argument once", key);
		if (n == 64)
			cl_fail_at(ps, CL_ERR_ARGUMENT, kl, "too many arguments; expected at most 64");
		struct cl_arg *a = &args[n];
		memset(a, 0, sizeof *a);
		a->id = spec->id;
		a->key = key;
		/* Only a header field names one; a keyed argument names none. */
		a->field = cl_field_named(spec->id == CL_K_FIELD ? key : "");
		a->loc = kl;
		a->result = result;
		next(ps);
		if ((spec->forms & F_FLAG) && !is_op(ps, "=")) {
			/* A bare word: given, with no value. */
			a->v.kind = CL_V_NONE;
			a->v.loc = kl;
			n++;
			continue;
		}
		if (spec->forms & F_FLAG)
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' stands alone; expected it without '='", key);
		if (!cl_parse_cmp(ps, &a->cmp))
			fail_expected(ps, (spec->forms & F_CMP) ? "'=' or a comparison (!=, <, <=, >, >=) after the argument name"
								  : "'=' after the argument name");
		if (a->cmp != CL_EQ && !(spec->forms & F_CMP))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' takes only '='; expected '='", key);
		next(ps);
		parse_value(ps, spec, key, &a->v);
		if (a->v.kind == CL_V_BIND && a->cmp != CL_EQ)
			cl_fail_at(ps, CL_ERR_VALUE, a->v.loc, "a ?binding takes '='; expected '=' before it");
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
			if (st->args[i].id == sp->id && !(sp->forms & F_WINDOW))
				prm->arg = &st->args[i];
		resolve_words(prm, sp->vocab);
	}
}

const struct cl_arg *cl_step_arg(const struct cl_step *s, const char *key)
{
	for (unsigned i = 0; i < s->n_args; i++)
		if (!strcmp(s->args[i].key, key))
			return &s->args[i];
	return NULL;
}

bool cl_word_arg_accepts(const struct cl_arg *a, int got)
{
	if (got == CL_WORD_ABSENT)
		return false;
	bool in = false;
	for (unsigned i = 0; i < (a->v.kind == CL_V_LIST ? a->v.n_list : 1); i++)
		in |= (a->v.kind == CL_V_LIST ? a->v.word_ids[i] : a->v.word_id) == got;
	return a->cmp == CL_NE ? !in : in;
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
