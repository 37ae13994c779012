/*
 * The case parser's internals, shared by its files and by nothing else
 * (the runner sees struct cl_case only):
 *   caseparse.c  a file: header statements, the statement dispatch, the entry points
 *   casesteps.c  each step statement's grammar (dut, peer, inject, expect, on, load ...)
 *   caseargs.c   the argument tables (forms, allowed words, defaults) and key=value parsing
 *   caseexpr.c   names ($qp.qpn, ?bindings), expressions, check and inform
 *   casewords.c  the language's vocabulary: names of errors, steps and keys,
 *                capabilities, opcodes, CM messages, AETH words, field shorthands
 *   casebuild.c  what they all share while a case is built: cl_fail_at, the
 *                arena's growing arrays, a new step
 * A parse error longjmps out of any of them through cl_fail_at. The calls
 * run one way: caseparse.c, casesteps*.c, caseargs.c, caseexpr.c, then
 * casebuild.c and caselex.c; casewords.c and caseroles.c call none of them.
 */
#ifndef ROCE_TESTER_CASEPARSE_H
#define ROCE_TESTER_CASEPARSE_H

#include <setjmp.h>
#include <stdbool.h>
#include <string.h>

#include "caselang.h"
#include "caselex.h"

/* One parse: the lexer, the current token, where a failure jumps to, the
 * case being built, and which header statements were seen. */
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
	/* peer attach QP GROUP seen above: expect QP ... group=GROUP takes
	 * what the tester's side of QP receives from the group. */
	struct { const char *qp, *group; } peer_attached[64];
	unsigned n_peer_attached;
};

/* ---- Building a case (casebuild.c) ---- */

/* Fills diag with "path:line:col: what" and abandons the parse. */
void cl_fail_at(struct parser *ps, enum cl_error code, struct cl_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
/* Makes room for element n of an arena array that grows in powers of two. */
void cl_grow(struct parser *ps, void **arr, unsigned n, size_t elem);
/* A new step of the case, with its source line for reports. */
struct cl_step *cl_new_step(struct parser *ps, enum cl_step_kind kind, struct cl_loc loc);

/* ---- Tokens ---- */

static inline void next(struct parser *ps)
{
	if (!cl_lex_next(&ps->lx, &ps->tok, ps->diag))
		longjmp(ps->fail, 1);
}

__attribute__((noreturn)) static inline void fail_expected(struct parser *ps, const char *expected)
{
	char found[96];
	cl_tok_describe(&ps->tok, found, sizeof found);
	cl_fail_at(ps, CL_ERR_EXPECTED, ps->tok.loc, "found %s; expected %s", found, expected);
}

static inline bool at_end(const struct parser *ps)
{
	return ps->tok.kind == CL_T_NEWLINE || ps->tok.kind == CL_T_EOF;
}

static inline bool is_word(const struct parser *ps, const char *w)
{
	return ps->tok.kind == CL_T_WORD && !strcmp(ps->tok.text, w);
}

static inline bool is_op(const struct parser *ps, const char *op)
{
	return ps->tok.kind == CL_T_OP && !strcmp(ps->tok.text, op);
}

static inline char *take_word(struct parser *ps, const char *expected)
{
	if (ps->tok.kind != CL_T_WORD)
		fail_expected(ps, expected);
	char *w = ps->tok.text;
	next(ps);
	return w;
}

/* A name as the statements take theirs: a word without '.' or '-'. */
static inline const char *take_name(struct parser *ps, const char *expected)
{
	if (ps->tok.kind != CL_T_WORD || strchr(ps->tok.text, '.') || strchr(ps->tok.text, '-'))
		fail_expected(ps, expected);
	const char *w = ps->tok.text;
	next(ps);
	return w;
}

static inline void expect_end(struct parser *ps)
{
	if (!at_end(ps))
		fail_expected(ps, "end of line");
}

/* ---- Arguments (caseargs.c) ---- */

/* The forms an argument's value may take. */
#define F_EXPR 0x01u
#define F_BYTES 0x02u
#define F_WORD 0x04u
#define F_LIST 0x08u
#define F_BIND 0x10u
#define F_DUR 0x20u
#define F_CMP 0x40u    /* comparisons other than '=' */
#define F_RESULT 0x80u /* only after '->' */
#define F_FIELD 0x100u /* stands for a table of packet fields (inject, expect, on) */
#define F_WINDOW 0x200u /* 'within T', not key=value: the row holds its default */
#define F_FLAG 0x400u   /* a bare word that stands alone, without '=' (peer srq ... xrc) */

/* The words an argument takes and what each stands for (the values in
 * cl_value.word_id and cl_param). */
struct vocab {
	const char *const *words;       /* NULL-terminated; matched ignoring case */
	int (*value_of)(const char *w); /* the protocol's lookup, given the word as words spells it; NULL: its position */
	bool flags;                     /* values are bits, OR'd in cl_param.flags (access) */
};

struct argspec {
	const char *key; /* "*": any header field */
	enum cl_key id;
	unsigned forms;
	const struct vocab *vocab; /* allowed words for F_WORD / F_LIST, NULL: any */
	size_t slot;               /* where the step keeps it by name (cl_step.a), 0: nowhere */
	struct cl_default def;
};

/* What word w stands for in vocab v (-1: not one of its words). */
int cl_vocab_value(const struct vocab *v, const char *w);

extern const struct argspec cl_args_dut_mr[], cl_args_dut_qp[], cl_args_post_recv[], cl_args_post_send[],
	cl_args_dut_write[], cl_args_dut_read[], cl_args_dut_query[], cl_args_dut_modify[], cl_args_peer_mr[],
	cl_args_peer_op[], cl_args_peer_set[], cl_args_inject[], cl_args_expect_pkt[], cl_args_expect_completion[],
	cl_args_expect_peer[], cl_args_expect_mem[], cl_args_rule[], cl_args_load[], cl_args_measure[], cl_args_none[],
	cl_args_dut_listen[], cl_args_group[], cl_args_dut_srq[], cl_args_dut_arm[], cl_args_dut_query_srq[],
	cl_args_expect_event[], cl_args_peer_srq[], cl_args_dut_mw[], cl_args_dut_bind[], cl_args_dut_port[],
	cl_args_dut_gids[], cl_args_dut_raw_qp[], cl_args_dut_attach[];

/* key=value ... up to the end of the line, 'within' (allow_within), 'do'
 * (allow_do), 'else' or 'as'; fills st->args and st->a. */
void cl_parse_args(struct parser *ps, struct cl_step *st, const struct argspec *specs, bool allow_within, bool allow_do);
/* Whether w is one of words (case-insensitive; NULL words: any), and the
 * words as a list for a diagnostic. */
bool cl_word_allowed(const char *const *words, const char *w);
void cl_list_words(const char *const *words, char *buf, size_t n);

/* ---- Names and expressions (caseexpr.c) ---- */

struct cl_sym *cl_find_sym(struct parser *ps, const char *name);
void cl_define_sym(struct parser *ps, const char *name, enum cl_sym_kind kind, int qp_type, struct cl_loc loc);
/* A name defined above, of the kind wanted. */
struct cl_sym *cl_use_name(struct parser *ps, const char *name, enum cl_sym_kind want, struct cl_loc loc);
/* The next token: a name defined above, of the kind wanted, kept in *slot. */
struct cl_sym *cl_use_next_name(struct parser *ps, char **slot, enum cl_sym_kind want, const char *expected);
/* $name.member: the name is defined and has that member. */
void cl_check_member(struct parser *ps, const struct cl_token *t);
void cl_parse_expr(struct parser *ps, struct cl_expr *e);
/* =, !=, <, <=, >, >= at the current token (not consumed); false if none. */
bool cl_parse_cmp(struct parser *ps, enum cl_cmp *cmp);
/* [RULE-ID] "text" of an informative finding. */
void cl_parse_info(struct parser *ps, struct cl_step *st);
void cl_parse_check(struct parser *ps, struct cl_loc loc);
void cl_parse_inform(struct parser *ps, struct cl_loc loc);

/* ---- Steps (casesteps.c) ---- */

void cl_parse_dut(struct parser *ps, struct cl_loc loc);
void cl_parse_peer(struct parser *ps, struct cl_loc loc);
void cl_parse_inject(struct parser *ps, struct cl_loc loc);
void cl_parse_expect(struct parser *ps, struct cl_loc loc);
void cl_parse_rule(struct parser *ps, struct cl_loc loc);
void cl_parse_measure(struct parser *ps, struct cl_loc loc);
void cl_parse_load(struct parser *ps, struct cl_loc loc);
void cl_parse_roles(struct parser *ps, struct cl_step *st);
/* Multicast groups, SRQs and asynchronous events (casesteps_mcast.c). */
void cl_parse_group(struct parser *ps, struct cl_loc loc);
/* dut attach|detach|join|leave|srq|arm: false when verb is none of them. */
bool cl_parse_dut_mcast_srq(struct parser *ps, const char *verb, struct cl_loc loc);
/* peer attach|srq: false when the next word is neither. */
bool cl_parse_peer_mcast_srq(struct parser *ps, struct cl_loc loc);
/* expect join|no join|event|no event: false when it is none of them
 * ('no' already taken when no is true). */
bool cl_parse_expect_mcast_srq(struct parser *ps, struct cl_loc loc, bool no);
/* group= of a step on QP q: GROUP is a group of the IP version q speaks;
 * sets st->group. */
void cl_group_arg(struct parser *ps, struct cl_step *st, const struct cl_sym *q, const struct cl_param *prm);
/* dut qp ... srq= peer_srq=: the SRQs are defined above. */
void cl_qp_srq_args(struct parser *ps, struct cl_step *st, struct cl_sym *q);
/* expect QP ... group=: also the tester's side of QP attached to it above. */
void cl_expect_group(struct parser *ps, struct cl_step *st, const struct cl_sym *q);
/* Whether the current token names a DUT SRQ; dut query SRQ -> ... */
bool cl_names_srq(struct parser *ps);
void cl_parse_dut_query_srq(struct parser *ps, struct cl_loc loc);

/* The device judged at the verbs level (casesteps_verbs.c): dut port|gids|
 * raw_datagram_qp; false when verb is none of them. */
bool cl_parse_dut_verbs(struct parser *ps, const char *verb, struct cl_loc loc);

/* Memory windows, XRC and the placement operations (casesteps_mw.c). */
/* dut mw|bind|xrcd|pd: false when verb is none of them. */
bool cl_parse_dut_mw_xrc(struct parser *ps, const char *verb, struct cl_loc loc);
/* pd= of dut mr, dut qp (qp_type: its transport; -1 for an MR or SRQ),
 * dut srq and dut mw: a protection domain 'dut pd' defined above. */
void cl_pd_arg(struct parser *ps, struct cl_step *st, const struct cl_param *pd, int qp_type);
/* What dut qp, dut srq, post_send, inject and peer operations take of
 * them: the XRC domain and type of a QP, an XRC SRQ's domain, the verbs'
 * own arguments (value=, placement=, level=, invalidate=, remote_srqn=,
 * srqn=) and the capabilities they imply. */
void cl_qp_xrc_args(struct parser *ps, struct cl_step *st, struct cl_sym *q);
void cl_srq_xrc_args(struct parser *ps, struct cl_step *st, struct cl_sym *srq);
void cl_post_send_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q, struct cl_loc vl);
void cl_inject_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q);
void cl_peer_op_ext(struct parser *ps, struct cl_step *st, const struct cl_sym *q, struct cl_loc vl);

/* ---- Vocabulary (casewords.c) ---- */

/* psn, rkey, ttl ...: a shorthand cl_field_named maps to a header field. */
bool cl_is_pseudo_field(const char *name);

#endif
