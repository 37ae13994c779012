/*
 * The grammar of each step statement: dut, peer, inject, expect, on (the
 * injection rules), measure and load. Each checks its QP, MR and opcode
 * against what the case defined above it and its arguments against its
 * table (caseargs.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

static struct cl_sym *qp_arg(struct parser *ps, struct cl_step *st)
{
	return cl_use_next_name(ps, &st->qp, CL_SYM_QP, "a QP name defined by 'dut qp'");
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
		cl_fail_at(ps, CL_ERR_OPCODE, ps->tok.loc, "'%s' is not an opcode of %s; expected e.g. SEND_ONLY, ACK, RDMA_WRITE_FIRST, rc-send-only or 0x04",
			word, roce_transport_name((enum roce_transport)transport));
	st->opcode = op;
	next(ps);
}

/* The tester's operations (peer QP OP, load QP OP) by name: the engine's
 * operation (enum peer_op is enum ap_wc_opcode), -1 if none. */
static int tester_op(const char *word)
{
	static const char *const words[] = { "send", "write", "read", "cmp_swap", "fetch_add", "atomic_write", "flush", NULL };
	static const int ops[] = { AP_WC_SEND, AP_WC_RDMA_WRITE, AP_WC_RDMA_READ, AP_WC_COMP_SWAP, AP_WC_FETCH_ADD,
				   AP_WC_ATOMIC_WRITE, AP_WC_FLUSH };
	static const struct vocab tester_ops = { words, NULL, false };
	int i = cl_vocab_value(&tester_ops, word);
	return i < 0 ? -1 : ops[i];
}

void cl_parse_dut(struct parser *ps, struct cl_loc loc)
{
	struct cl_loc vl = ps->tok.loc;
	const char *verb = take_word(ps, "a DUT verb: mr, qp, listen, post_recv, post_send, write, read, query, modify, srq, arm, attach, detach, join, leave, mw, bind, xrcd, pd, port, gids or raw_datagram_qp");
	struct cl_step *st;
	if (cl_parse_dut_mcast_srq(ps, verb, loc) || cl_parse_dut_mw_xrc(ps, verb, loc) || cl_parse_dut_verbs(ps, verb, loc))
		return;
	if (!strcmp(verb, "mr") || !strcmp(verb, "qp")) {
		bool qp = verb[0] == 'q';
		st = cl_new_step(ps, qp ? CL_DUT_QP : CL_DUT_MR, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = (char *)take_name(ps, qp ? "a name for the new QP" : "a name for the new MR");
		cl_parse_args(ps, st, qp ? cl_args_dut_qp : cl_args_dut_mr, false, false);
		int type = qp ? (int)cl_qp_transport((enum ap_qp_type)st->a.dut_qp.type.word_id) : -1;
		const struct cl_arg *ip = qp ? st->a.dut_qp.ip.arg : NULL;
		if (ip && (ip->v.expr.n != 1 || ip->v.expr.terms[0].is_sym ||
			   (ip->v.expr.terms[0].num != 4 && ip->v.expr.terms[0].num != 6)))
			cl_fail_at(ps, CL_ERR_VALUE, ip->v.loc, "ip= takes the IP version of the QP; expected 4 or 6");
		cl_pd_arg(ps, st, qp ? &st->a.dut_qp.pd : &st->a.dut_mr.pd, type);
		cl_define_sym(ps, st->name, qp ? CL_SYM_QP : CL_SYM_DUT_MR, qp ? type : -1, nl);
		if (qp) {
			struct cl_sym *q = cl_find_sym(ps, st->name);
			q->ipv = ip ? (int)ip->v.expr.terms[0].num : 0;
			cl_qp_srq_args(ps, st, q);
			cl_qp_xrc_args(ps, st, q);
		}
		return;
	}
	if (!strcmp(verb, "listen")) {
		st = cl_new_step(ps, CL_DUT_LISTEN, loc);
		struct cl_sym *q = qp_arg(ps, st);
		if (q->qp_type != ROCE_T_RC)
			cl_fail_at(ps, CL_ERR_KIND, loc, "'%s' is not an RC QP; expected the RC QP (state=RESET) that accepts the connection",
				st->qp);
		cl_parse_args(ps, st, cl_args_dut_listen, false, false);
		if (!st->a.dut_listen.port.arg)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'dut listen' needs port=; expected e.g. port=18515");
		return;
	}
	if (!strcmp(verb, "post_recv")) {
		st = cl_new_step(ps, CL_DUT_POST_RECV, loc);
		struct cl_loc ql = ps->tok.loc;
		if (cl_names_srq(ps)) {
			st->srq = (char *)take_name(ps, "an SRQ name"); /* post_srq_recv */
		} else {
			struct cl_sym *q = qp_arg(ps, st);
			if (q->xrc_type)
				cl_fail_at(ps, CL_ERR_KIND, ql, "XRC QP '%s' has no receive queue; expected 'dut post_recv SRQ MR ...' to its XRC SRQ",
					q->name);
			if (q->srq)
				cl_fail_at(ps, CL_ERR_KIND, ql, "QP '%s' takes its receives from SRQ '%s'; expected 'dut post_recv %s MR ...'",
					q->name, q->srq, q->srq);
		}
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)take_name(ps, "a DUT MR name to receive into");
		cl_use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		cl_parse_args(ps, st, cl_args_post_recv, false, false);
		return;
	}
	if (!strcmp(verb, "post_send")) {
		st = cl_new_step(ps, CL_DUT_POST_SEND, loc);
		struct cl_sym *q = qp_arg(ps, st);
		const char *const *verbs = ap_wr_opcode_words;
		char allowed[300];
		cl_list_words(verbs, allowed, sizeof allowed);
		if (ps->tok.kind != CL_T_WORD)
			fail_expected(ps, "a send verb: SEND, RDMA_WRITE, RDMA_READ, ...");
		if (!cl_word_allowed(verbs, ps->tok.text))
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "'%s' is not a send verb; expected one of %s",
				ps->tok.text, allowed);
		static const struct vocab wr_verbs = { ap_wr_opcode_words, ap_wr_opcode_by_name, false };
		st->verb = ps->tok.text;
		st->op = cl_vocab_value(&wr_verbs, st->verb);
		struct cl_loc verb_loc = ps->tok.loc;
		next(ps);
		if (ps->tok.kind == CL_T_WORD && cl_find_sym(ps, ps->tok.text)) {
			struct cl_loc ml = ps->tok.loc;
			st->mr = (char *)take_name(ps, "a DUT MR");
			cl_use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		}
		cl_parse_args(ps, st, cl_args_post_send, false, false);
		const struct cl_arg *group = st->a.post_send.group.arg;
		if (group && q->qp_type != ROCE_T_UD)
			cl_fail_at(ps, CL_ERR_VALUE, group->loc, "group= on a work request is for a UD QP; '%s' is %s; expected a UD QP (only UD sends to a multicast group)",
				q->name, roce_transport_name((enum roce_transport)q->qp_type));
		cl_group_arg(ps, st, q, &st->a.post_send.group);
		cl_post_send_ext(ps, st, q, verb_loc);
		/* A connected QP's protocol is its GID's (dut qp ... proto=);
		 * only a UD QP picks it per work request (A17.8). */
		const struct cl_arg *proto = st->a.post_send.proto.arg;
		if (proto && q->qp_type != ROCE_T_UD)
			cl_fail_at(ps, CL_ERR_VALUE, proto->loc,
				"proto= on a work request is for a UD QP; expected it on 'dut qp %s' (a connected QP speaks its GID's protocol)",
				q->name);
		return;
	}
	if (!strcmp(verb, "write") || !strcmp(verb, "read")) {
		bool rd = verb[0] == 'r';
		st = cl_new_step(ps, rd ? CL_DUT_READ : CL_DUT_WRITE, loc);
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)take_name(ps, "a DUT MR name");
		cl_use_name(ps, st->mr, CL_SYM_DUT_MR, ml);
		cl_parse_args(ps, st, rd ? cl_args_dut_read : cl_args_dut_write, false, false);
		const struct cl_arg *l3 = rd ? st->a.dut_read.l3_header.arg : NULL;
		if (l3) {
			/* -> l3_header=QP: the L3 header of the last packet the
			 * tester sent to that UD QP. */
			struct cl_sym *q = cl_use_name(ps, l3->v.word, CL_SYM_QP, l3->v.loc);
			if (q->qp_type != ROCE_T_UD)
				cl_fail_at(ps, CL_ERR_KIND, l3->v.loc, "'%s' is not a UD QP; expected the UD QP whose receive holds the header",
					l3->v.word);
			if (st->a.dut_read.data.arg || st->a.dut_read.len.arg)
				cl_fail_at(ps, CL_ERR_ARGUMENT, l3->loc, "l3_header= reads 40 bytes itself; expected no data= or len= with it");
			return;
		}
		if (!(rd ? st->a.dut_read.data.arg : st->a.dut_write.data.arg))
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'%s' needs data=; expected %s", cl_step_kind_name(st->kind),
				rd ? "'-> data=\"...\"' or '-> l3_header=QP' with the contents to expect" : "data=\"...\" or data=x\"...\"");
		return;
	}
	if (!strcmp(verb, "query") && cl_names_srq(ps)) {
		cl_parse_dut_query_srq(ps, loc);
		return;
	}
	if (!strcmp(verb, "query") || !strcmp(verb, "modify")) {
		bool q = verb[0] == 'q';
		st = cl_new_step(ps, q ? CL_DUT_QUERY : CL_DUT_MODIFY, loc);
		qp_arg(ps, st);
		cl_parse_args(ps, st, q ? cl_args_dut_query : cl_args_dut_modify, false, false);
		if (!q && !st->a.dut_modify.state.arg)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'dut modify' needs state=; expected e.g. state=ERR");
		return;
	}
	cl_fail_at(ps, CL_ERR_STATEMENT, vl, "unknown DUT verb '%s'; expected mr, qp, listen, post_recv, post_send, write, read, query, modify, srq, arm, attach, detach, join, leave, mw, bind, xrcd, pd, port, gids or raw_datagram_qp",
		verb);
}

void cl_parse_peer(struct parser *ps, struct cl_loc loc)
{
	if (cl_parse_peer_mcast_srq(ps, loc))
		return;
	if (is_word(ps, "mr")) {
		next(ps);
		struct cl_step *st = cl_new_step(ps, CL_PEER_MR, loc);
		struct cl_loc nl = ps->tok.loc;
		st->name = (char *)take_name(ps, "a name for the tester's MR");
		cl_parse_args(ps, st, cl_args_peer_mr, false, false);
		cl_define_sym(ps, st->name, CL_SYM_PEER_MR, -1, nl);
		return;
	}
	struct cl_step *st = cl_new_step(ps, CL_PEER_OP, loc);
	struct cl_sym *q = qp_arg(ps, st);
	struct cl_loc vl = ps->tok.loc;
	const char *op = take_word(ps, "a tester operation: send, write, read, cmp_swap, fetch_add, atomic_write, flush or set");
	if (!strcmp(op, "set")) {
		st->kind = CL_PEER_SET;
		cl_parse_args(ps, st, cl_args_peer_set, false, false);
		if (!st->n_args)
			cl_fail_at(ps, CL_ERR_MISSING, vl, "'peer set' needs at least one setting; expected auto=, rnr=, ack=, rnr_timer=, psn= or recv=");
		const struct cl_arg *recv = cl_step_arg(st, "recv");
		if (recv && q->peer_srq)
			cl_fail_at(ps, CL_ERR_ARGUMENT, recv->loc, "the tester's side of QP '%s' takes its receives from SRQ '%s'; expected 'peer srq %s recv=N'",
				q->name, q->peer_srq, q->peer_srq);
		return;
	}
	int verb = tester_op(op);
	if (verb < 0)
		cl_fail_at(ps, CL_ERR_STATEMENT, vl, "unknown tester operation '%s'; expected send, write, read, cmp_swap, fetch_add, atomic_write, flush or set", op);
	if (q->qp_type == ROCE_T_UD && verb != AP_WC_SEND)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "a UD QP can only send; expected 'send'");
	if (q->qp_type == ROCE_T_UC && verb != AP_WC_SEND && verb != AP_WC_RDMA_WRITE)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "UC has no %s; expected send or write", op);
	st->verb = (char *)op;
	st->op = verb;
	cl_parse_args(ps, st, cl_args_peer_op, false, false);
	const struct cl_peer_op_args *pa = &st->a.peer_op;
	if (verb != AP_WC_SEND && (!pa->remote.arg || !pa->rkey.arg))
		cl_fail_at(ps, CL_ERR_MISSING, vl, "'peer %s' needs remote= and rkey=; expected e.g. remote=$m.addr rkey=$m.rkey", op);
	if (verb == AP_WC_COMP_SWAP && (!pa->compare.arg || !pa->swap.arg))
		cl_fail_at(ps, CL_ERR_MISSING, vl, "'peer cmp_swap' needs compare= and swap=");
	if (verb == AP_WC_FETCH_ADD && !pa->add.arg)
		cl_fail_at(ps, CL_ERR_MISSING, vl, "'peer fetch_add' needs add=");
	cl_peer_op_ext(ps, st, q, vl);
}

static void check_ip_options(struct parser *ps, struct cl_step *st)
{
	/* What the argument tables cannot say: how long IP options may be. */
	for (unsigned i = 0; i < st->n_args; i++) {
		struct cl_arg *a = &st->args[i];
		if (a->id == CL_K_ip_options && (a->v.n_bytes == 0 || a->v.n_bytes > 40))
			cl_fail_at(ps, CL_ERR_VALUE, a->v.loc, "ip_options= has %zu bytes; expected 1 to 40", a->v.n_bytes);
	}
}

/* inject QP OPCODE [args] [field=value ...] */
void cl_parse_inject(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_INJECT, loc);
	struct cl_sym *q = qp_arg(ps, st);
	opcode_arg(ps, st, q->qp_type, false);
	cl_parse_args(ps, st, cl_args_inject, false, false);
	check_ip_options(ps, st);
	/* Any transport: an RC or UC packet to a group is a receiver's test. */
	cl_group_arg(ps, st, q, &st->a.inject.group);
	cl_inject_ext(ps, st, q);
	if (st->a.inject.every.arg && !st->a.inject.repeat.arg)
		cl_fail_at(ps, CL_ERR_MISSING, loc, "'every' spaces repetitions; expected repeat=N with it");
}

void cl_parse_expect(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st;
	if (is_word(ps, "nothing")) {
		next(ps);
		st = cl_new_step(ps, CL_EXPECT_NOTHING, loc);
		if (ps->tok.kind == CL_T_WORD && !is_word(ps, "within"))
			qp_arg(ps, st);
		cl_parse_args(ps, st, cl_args_none, true, false);
		if (!st->has_within)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect nothing' needs a time window; expected 'within T'");
		if (is_word(ps, "else")) {
			next(ps);
			if (!is_word(ps, "unreached"))
				fail_expected(ps, "'unreached' after 'else' (a precondition of the case's rules)");
			next(ps);
			st->unreached = true;
			cl_parse_info(ps, st);
		}
		return;
	}
	if (cl_parse_expect_mcast_srq(ps, loc, false))
		return;
	if (is_word(ps, "no")) {
		next(ps);
		if (cl_parse_expect_mcast_srq(ps, loc, true))
			return;
		if (!is_word(ps, "completion"))
			fail_expected(ps, "'completion', 'join' or 'event' after 'expect no'");
		next(ps);
		st = cl_new_step(ps, CL_EXPECT_NO_COMPLETION, loc);
		qp_arg(ps, st);
		cl_parse_args(ps, st, cl_args_none, true, false);
		if (!st->has_within)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect no completion' needs a time window; expected 'within T'");
		return;
	}
	if (is_word(ps, "completion")) {
		next(ps);
		st = cl_new_step(ps, CL_EXPECT_COMPLETION, loc);
		qp_arg(ps, st);
		cl_parse_args(ps, st, cl_args_expect_completion, true, false);
		return;
	}
	if (is_word(ps, "peer")) {
		next(ps);
		st = cl_new_step(ps, CL_EXPECT_PEER, loc);
		qp_arg(ps, st);
		cl_parse_args(ps, st, cl_args_expect_peer, true, false);
		return;
	}
	if (is_word(ps, "mem")) {
		next(ps);
		st = cl_new_step(ps, CL_EXPECT_MEM, loc);
		struct cl_loc ml = ps->tok.loc;
		st->mr = (char *)take_name(ps, "a tester MR name defined by 'peer mr'");
		cl_use_name(ps, st->mr, CL_SYM_PEER_MR, ml);
		cl_parse_args(ps, st, cl_args_expect_mem, false, false);
		if (!st->a.expect_mem.data.arg)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect mem' needs data=; expected data=\"...\" or data=x\"...\"");
		return;
	}
	st = cl_new_step(ps, CL_EXPECT_PKT, loc);
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, "nothing, no completion, completion, peer, mem, join, no join, leave, event, no event, or a QP name");
	struct cl_sym *q = qp_arg(ps, st);
	opcode_arg(ps, st, q->qp_type, true);
	cl_parse_args(ps, st, cl_args_expect_pkt, true, false);
	check_ip_options(ps, st);
	cl_expect_group(ps, st, q);
	if (is_word(ps, "else")) {
		/* else inform: a DUT that may stay silent (an optional
		 * feature); the case ends informative there. else unreached:
		 * a precondition of the case's rules; silence or another
		 * packet ends the case informative, its rules not reached. */
		next(ps);
		if (!is_word(ps, "inform") && !is_word(ps, "unreached"))
			fail_expected(ps, "'inform' (an informative finding when nothing comes) or 'unreached' (a precondition of the case's rules) after 'else'");
		bool inform = is_word(ps, "inform");
		next(ps);
		if (!st->has_within)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "'expect ... else %s' needs a time window; expected 'within T' before 'else'",
				   inform ? "inform" : "unreached");
		st->else_inform = inform;
		st->unreached = !inform;
		cl_parse_info(ps, st);
	}
}

void cl_parse_rule(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_RULE, loc);
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
	cl_parse_args(ps, st, cl_args_rule, false, true);
	const struct cl_arg *opa = st->a.rule.opcode.arg;
	if (opa) {
		int op = cl_opcode_lookup(transport, opa->v.word);
		if (op < 0 || !roce_opcode_defined((uint8_t)op))
			cl_fail_at(ps, CL_ERR_OPCODE, opa->v.loc, "'%s' is not an opcode of %s; expected e.g. SEND_ONLY, ACK",
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
		st->set_field_ref = cl_field_named(st->set_field);
		if (!cl_is_pseudo_field(st->set_field) && roce_field_by_name(st->set_field) == ROCE_F_COUNT)
			cl_fail_at(ps, CL_ERR_FIELD, fl, "no header field '%s'; expected a libroce field name (bth.tver, ipv4.ttl, ...) or psn, pkey, ...",
				st->set_field);
		next(ps);
		if (!is_op(ps, "="))
			fail_expected(ps, "'=' after the field name");
		next(ps);
		cl_parse_expr(ps, &st->set_value);
	} else {
		cl_fail_at(ps, CL_ERR_VALUE, al, "unknown action '%s'; expected drop, duplicate, delay, reorder, corrupt_icrc, ecn_ce or set",
			act);
	}
	expect_end(ps);
}

/* measure QP OPCODE|any for T -> count=... rate=?r ... */
void cl_parse_measure(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_MEASURE, loc);
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
	cl_parse_args(ps, st, cl_args_measure, false, false);
}

/* load QP send|write|read [len= remote= rkey=] (count=N | duration=T)
 * [rate=N] [within T] -> completed=... : sustained traffic from the
 * tester's engine, bounded in count and time. */
void cl_parse_load(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_LOAD, loc);
	struct cl_sym *q = qp_arg(ps, st);
	struct cl_loc vl = ps->tok.loc;
	const char *op = take_word(ps, "an operation of the load: send, write or read");
	int verb = tester_op(op);
	if (verb != AP_WC_SEND && verb != AP_WC_RDMA_WRITE && verb != AP_WC_RDMA_READ)
		cl_fail_at(ps, CL_ERR_STATEMENT, vl, "unknown load operation '%s'; expected send, write or read", op);
	if (q->qp_type == ROCE_T_UD && verb != AP_WC_SEND)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "a UD QP can only send; expected 'send'");
	if (q->qp_type == ROCE_T_UC && verb == AP_WC_RDMA_READ)
		cl_fail_at(ps, CL_ERR_VALUE, vl, "UC has no read; expected send or write");
	st->verb = (char *)op;
	st->op = verb;
	cl_parse_args(ps, st, cl_args_load, true, false);
	const struct cl_load_args *la = &st->a.load;
	if (verb != AP_WC_SEND && (!la->remote.arg || !la->rkey.arg))
		cl_fail_at(ps, CL_ERR_MISSING, vl, "'load %s' needs remote= and rkey=; expected e.g. remote=$m.addr rkey=$m.rkey", op);
	const struct cl_arg *dur = la->duration.arg;
	if (!la->count.arg && !dur)
		cl_fail_at(ps, CL_ERR_MISSING, vl, "a load needs count= or duration= (or both); expected e.g. count=10000 rate=100000");
	if (dur && (dur->v.kind != CL_V_EXPR || dur->v.expr.n != 1 || !dur->v.expr.terms[0].duration))
		cl_fail_at(ps, CL_ERR_VALUE, dur->loc, "duration= takes a duration; expected e.g. duration=2s");
}

/* as ROLE, ...: the DUT's roles in a step that checks something, where
 * they cannot be derived from the step (caseroles.c). */
void cl_parse_roles(struct parser *ps, struct cl_step *st)
{
	struct cl_loc loc = ps->tok.loc;
	if (!cl_step_checks(st))
		cl_fail_at(ps, CL_ERR_ARGUMENT, loc, "'as' names the DUT's roles in a check; expected it on expect, check, dut query, dut read or measure, not on '%s'",
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
