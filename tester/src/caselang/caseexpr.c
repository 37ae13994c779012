/*
 * Names and values: the symbols a case defines ($qp, $mr, ?binding) and
 * their members, arithmetic expressions over them, and the statements
 * made of expressions (check, inform).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caseparse.h"
#include "roce/counters.h"
#include "roce/roce.h"
#include "text.h"

/* ---- Symbols ---- */

struct cl_sym *cl_find_sym(struct parser *ps, const char *name)
{
	for (unsigned i = 0; i < ps->c->n_syms; i++)
		if (!strcmp(ps->c->syms[i].name, name))
			return &ps->c->syms[i];
	return NULL;
}

void cl_define_sym(struct parser *ps, const char *name, enum cl_sym_kind kind, int qp_type,
		       struct cl_loc loc)
{
	if (cl_find_sym(ps, name))
		cl_fail_at(ps, CL_ERR_DUPLICATE, loc, "'%s' is already defined; expected a new name", name);
	cl_grow(ps, (void **)&ps->c->syms, ps->c->n_syms, sizeof *ps->c->syms);
	struct cl_sym *s = &ps->c->syms[ps->c->n_syms++];
	memset(s, 0, sizeof *s);
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
	case CL_SYM_GROUP: return "a multicast group";
	case CL_SYM_SRQ: return "a DUT SRQ";
	case CL_SYM_PEER_SRQ: return "a tester SRQ";
	case CL_SYM_MW: return "a memory window";
	case CL_SYM_XRCD: return "an XRC domain";
	case CL_SYM_PD: return "a protection domain";
	}
	return "?";
}

struct cl_sym *cl_use_name(struct parser *ps, const char *name, enum cl_sym_kind want,
			       struct cl_loc loc)
{
	struct cl_sym *s = cl_find_sym(ps, name);
	if (!s)
		cl_fail_at(ps, CL_ERR_UNDEFINED, loc, "'%s' is not defined above; expected %s defined by an earlier step",
			name, sym_kind_name(want));
	if (s->kind != want)
		cl_fail_at(ps, CL_ERR_KIND, loc, "'%s' is %s; expected %s", name, sym_kind_name(s->kind),
			sym_kind_name(want));
	return s;
}

struct cl_sym *cl_use_next_name(struct parser *ps, char **slot, enum cl_sym_kind want, const char *expected)
{
	struct cl_loc l = ps->tok.loc;
	*slot = (char *)take_name(ps, expected);
	return cl_use_name(ps, *slot, want, l);
}

/* "bad_icrc_dropped, duplicate_requests, ...": every counter meaning. */
static void counter_meanings_text(char *text, size_t n)
{
	text[0] = '\0';
	for (int m = ROCE_CNT_NONE + 1; m < ROCE_CNT_MEANING_COUNT; m++)
		text_appendf(text, n, "%s%s", m > ROCE_CNT_NONE + 1 ? ", " : "",
			     roce_counter_meaning_name((enum roce_counter_meaning)m));
}

void cl_check_member(struct parser *ps, const struct cl_token *t)
{
	struct cl_sym *s = cl_find_sym(ps, t->text);
	/* $port.mtu: the DUT port's active MTU, known to every case. */
	if (!s && !strcmp(t->text, "port")) {
		if (!t->member || strcmp(t->member, "mtu"))
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$port has the member mtu only; expected $port.mtu");
		return;
	}
	/* $counters.MEANING: the DUT's counters of that meaning, their delta
	 * since the case began, in check statements. */
	if (!s && !strcmp(t->text, "counters")) {
		if (!ps->in_check)
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$counters is for check statements only; expected "
				"'check $counters.MEANING OP VALUE'");
		if (!t->member || roce_counter_meaning_by_name(t->member) == ROCE_CNT_NONE) {
			char meanings[512];
			counter_meanings_text(meanings, sizeof meanings);
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$counters has the members %s; expected $counters.MEANING",
				meanings);
		}
		return;
	}
	if (!s)
		cl_fail_at(ps, CL_ERR_UNDEFINED, t->loc, "$%s is not defined above; expected a QP, MR or ?binding defined earlier",
			t->text);
	if (s->kind == CL_SYM_GROUP) {
		/* $GROUP.qkey: the Q_Key a 'dut join' of the group reported. */
		if (!t->member || strcmp(t->member, "qkey"))
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is a multicast group; expected $%s.qkey", t->text, t->text);
		if (!s->joined)
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s.qkey is bound by 'dut join QP %s'; expected it after one", t->text,
				t->text);
		return;
	}
	if (s->kind == CL_SYM_MW) {
		/* $MW.rkey: the window's current rkey (alloc_mw, then each bind
		 * that succeeded); $MW.bind_rkey: the one the last bind asked for,
		 * which a refused bind leaves unused. */
		if (!t->member || (strcmp(t->member, "rkey") && strcmp(t->member, "bind_rkey")))
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is a memory window; expected $%s.rkey or $%s.bind_rkey", t->text,
				t->text, t->text);
		return;
	}
	if (s->kind == CL_SYM_XRCD)
		cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is an XRC domain, which has no members; expected its SRQs' $SRQ.srqn", t->text);
	if (s->kind == CL_SYM_PD)
		cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is a protection domain, which has no members; expected it in pd=", t->text);
	if ((s->kind == CL_SYM_SRQ && s->xrcd) || (s->kind == CL_SYM_PEER_SRQ && s->xrc)) {
		/* $SRQ.srqn: the number an XRCETH names the XRC SRQ by. */
		if (!t->member || strcmp(t->member, "srqn"))
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is an XRC SRQ; expected $%s.srqn", t->text, t->text);
		return;
	}
	if (s->kind == CL_SYM_SRQ || s->kind == CL_SYM_PEER_SRQ)
		cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is %s, which has no members; expected a QP, MR, group or ?binding",
			t->text, sym_kind_name(s->kind));
	static const char *const qp_members[] = { "qpn", "psn", "peer_qpn", "peer_psn", "qkey", NULL };
	static const char *const mr_members[] = { "addr", "rkey", "lkey", "len", NULL };
	static const char *const pmr_members[] = { "addr", "rkey", "len", NULL };
	const char *const *members = s->kind == CL_SYM_QP ? qp_members
				   : s->kind == CL_SYM_DUT_MR ? mr_members
				   : s->kind == CL_SYM_PEER_MR ? pmr_members : NULL;
	if (!t->member) {
		if (s->kind != CL_SYM_BOUND)
			cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is %s; expected $%s.MEMBER (one of %s)", t->text,
				sym_kind_name(s->kind), t->text,
				s->kind == CL_SYM_QP ? "qpn, psn, peer_qpn, peer_psn, qkey"
				: s->kind == CL_SYM_DUT_MR ? "addr, rkey, lkey, len" : "addr, rkey, len");
		return;
	}
	if (!members)
		cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "$%s is a bound value with no members; expected $%s", t->text, t->text);
	for (const char *const *m = members; *m; m++)
		if (!strcmp(*m, t->member))
			return;
	cl_fail_at(ps, CL_ERR_MEMBER, t->loc, "%s has no member '%s'; expected one of %s", t->text, t->member,
		s->kind == CL_SYM_QP ? "qpn, psn, peer_qpn, peer_psn, qkey"
		: s->kind == CL_SYM_DUT_MR ? "addr, rkey, lkey, len" : "addr, rkey, len");
}

/* ---- Values ---- */

void cl_parse_expr(struct parser *ps, struct cl_expr *e)
{
	struct cl_term terms[32];
	unsigned n = 0;
	int sign = 1;
	for (;;) {
		if (n == 32)
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "expression too long; expected at most 32 terms");
		struct cl_term *t = &terms[n];
		memset(t, 0, sizeof *t);
		t->sign = sign;
		t->loc = ps->tok.loc;
		t->mul = t->div = 1;
		if (ps->tok.kind == CL_T_NUMBER || ps->tok.kind == CL_T_DURATION) {
			t->num = ps->tok.num;
			t->duration = ps->tok.kind == CL_T_DURATION;
		} else if (ps->tok.kind == CL_T_SYM) {
			cl_check_member(ps, &ps->tok);
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

/* [RULE-ID] "text": what an informative finding says, and which rule it
 * is about (NULL: the case's first rule). */
void cl_parse_info(struct parser *ps, struct cl_step *st)
{
	if (ps->tok.kind == CL_T_WORD) {
		if (roce_rule_by_id(ps->tok.text) == ROCE_RULE_NONE)
			cl_fail_at(ps, CL_ERR_RULE_ID, ps->tok.loc, "'%s' is not in the rule catalogue; expected a rule ID or the \"text\" to report",
				ps->tok.text);
		st->info_rule = ps->tok.text;
		next(ps);
	}
	if (ps->tok.kind != CL_T_STRING)
		fail_expected(ps, "the informative finding's \"text\"");
	st->info_text = cl_arena_strndup(ps->arena, (const char *)ps->tok.bytes, ps->tok.n_bytes);
	next(ps);
}

bool cl_parse_cmp(struct parser *ps, enum cl_cmp *cmp)
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
void cl_parse_check(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_CHECK, loc);
	ps->in_check = true;
	cl_parse_expr(ps, &st->lhs);
	if (!cl_parse_cmp(ps, &st->cmp))
		fail_expected(ps, "a comparison (=, !=, <, <=, >, >=)");
	next(ps);
	cl_parse_expr(ps, &st->rhs);
	if (is_word(ps, "else")) {
		next(ps);
		if (!is_word(ps, "inform"))
			fail_expected(ps, "'inform' after 'else' (an informative finding instead of a failure)");
		next(ps);
		st->else_inform = true;
		cl_parse_info(ps, st);
		/* ... if EXPR CMP EXPR: informative only when that holds too
		 * (another explanation of the miss), a failure otherwise. */
		if (is_word(ps, "if")) {
			next(ps);
			cl_parse_expr(ps, &st->cond_lhs);
			if (!cl_parse_cmp(ps, &st->cond_cmp))
				fail_expected(ps, "a comparison (=, !=, <, <=, >, >=) in the condition after 'if'");
			next(ps);
			cl_parse_expr(ps, &st->cond_rhs);
			st->has_cond = true;
		}
	}
	ps->in_check = false;
}

/* inform [RULE] "text" [$a, $b ...]: an informative finding that shows
 * the values of the symbols. */
void cl_parse_inform(struct parser *ps, struct cl_loc loc)
{
	struct cl_step *st = cl_new_step(ps, CL_INFORM, loc);
	cl_parse_info(ps, st);
	struct cl_term terms[16];
	unsigned n = 0;
	while (!at_end(ps)) {
		if (ps->tok.kind != CL_T_SYM)
			fail_expected(ps, "a $symbol whose value the finding shows, or end of line");
		if (n == 16)
			cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many symbols; expected at most 16");
		cl_check_member(ps, &ps->tok);
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
