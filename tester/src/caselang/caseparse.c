/*
 * The case language's parser: a file. One statement per line; the first
 * word says what it is. The header statements (case, title, rules,
 * requires ...) are parsed here, each step statement by its grammar
 * (casesteps.c), whose arguments are checked against their tables
 * (caseargs.c). The first error stops the parse with file:line:column and
 * what was expected (cl_fail_at).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "caseparse.h"
#include "roce/roce.h"
#include "text.h"

#define CL_MAX_FILE (4u << 20)

/* ---- Header ---- */

static void header_once(struct parser *ps, bool *seen, const char *what, struct cl_loc loc)
{
	if (ps->in_body)
		cl_fail_at(ps, CL_ERR_HEADER_ORDER, loc, "'%s' after the first step; expected header statements (case, title, rules, requires, unless, mutants, ip, pmtu, timeout) before any step",
			what);
	if (*seen)
		cl_fail_at(ps, CL_ERR_DUPLICATE, loc, "a second '%s'; expected it once", what);
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
				cl_fail_at(ps, CL_ERR_RULE_ID, ps->tok.loc, "'%s' is not in the rule catalogue; expected an ID that 'roce-tester rules' lists",
					ps->tok.text);
			if (n == 64)
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many rules; expected at most 64");
			for (unsigned k = 0; k < n; k++)
				if (!strcmp(ids[k], ps->tok.text))
					cl_fail_at(ps, CL_ERR_DUPLICATE, ps->tok.loc, "rule %s is named twice; expected each rule once",
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
				fail_expected(ps, "a capability (RC, UC, UD, ATOMIC, IPV4, IPV6, RCM, SEND_WITH_INV, ROCEV1, SRQ, MCAST, CM_MCAST, ASYNC_EVENTS, CM, VLAN)");
			unsigned bit = cl_cap_bit(ps->tok.text);
			if (!bit)
				cl_fail_at(ps, CL_ERR_CAPABILITY, ps->tok.loc, "unknown capability '%s'; expected RC, UC, UD, ATOMIC, IPV4, IPV6, RCM, SEND_WITH_INV, ROCEV1, SRQ, MCAST, CM_MCAST, ASYNC_EVENTS, CM or VLAN",
					ps->tok.text);
			if ((unless ? c->caps : c->unless_caps) & bit)
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "%s is both required and excluded; expected it in 'requires' or 'unless', not both",
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
				cl_fail_at(ps, CL_ERR_VALUE, ps->tok.loc, "too many mutants; expected at most 64");
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
		fail_expected(ps, "a statement (case, title, rules, dut, peer, group, inject, expect, measure, on, off, wait, check, inform)");
	const char *kw = ps->tok.text;
	bool first = ps->c->id == NULL;
	if (first && strcmp(kw, "case"))
		cl_fail_at(ps, CL_ERR_HEADER_ORDER, loc, "the file must start with 'case ID'; found '%s'", kw);
	next(ps);
	if (!strcmp(kw, "case")) {
		if (!first)
			cl_fail_at(ps, CL_ERR_DUPLICATE, loc, "a second 'case'; expected one case per file");
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
			cl_fail_at(ps, CL_ERR_MISSING, loc, "the case has no title; expected 'title \"...\"' before the first step");
		if (!ps->c->n_rules)
			cl_fail_at(ps, CL_ERR_MISSING, loc, "the case names no rules; expected 'rules ID, ...' before the first step");
		ps->in_body = true;
	}
	if (!strcmp(kw, "dut")) {
		cl_parse_dut(ps, loc);
	} else if (!strcmp(kw, "peer")) {
		cl_parse_peer(ps, loc);
	} else if (!strcmp(kw, "inject")) {
		cl_parse_inject(ps, loc);
	} else if (!strcmp(kw, "expect")) {
		cl_parse_expect(ps, loc);
	} else if (!strcmp(kw, "on")) {
		cl_parse_rule(ps, loc);
		return;
	} else if (!strcmp(kw, "off")) {
		cl_new_step(ps, CL_RULES_OFF, loc);
		if (!is_word(ps, "all"))
			fail_expected(ps, "'all' after 'off'");
		next(ps);
	} else if (!strcmp(kw, "inform")) {
		cl_parse_inform(ps, loc);
	} else if (!strcmp(kw, "check")) {
		cl_parse_check(ps, loc);
	} else if (!strcmp(kw, "measure")) {
		cl_parse_measure(ps, loc);
	} else if (!strcmp(kw, "load")) {
		cl_parse_load(ps, loc);
	} else if (!strcmp(kw, "group")) {
		cl_parse_group(ps, loc);
	} else if (!strcmp(kw, "wait")) {
		struct cl_step *st = cl_new_step(ps, CL_WAIT, loc);
		if (ps->tok.kind != CL_T_DURATION)
			fail_expected(ps, "a duration after 'wait', like 10ms");
		st->has_within = true;
		st->within_min = st->within_max = ps->tok.num;
		next(ps);
	} else {
		cl_fail_at(ps, CL_ERR_STATEMENT, loc, "unknown statement '%s'; expected dut, peer, group, inject, expect, measure, load, on, off, wait, check or inform", kw);
	}
	if (is_word(ps, "as"))
		cl_parse_roles(ps, &ps->c->steps[ps->c->n_steps - 1]);
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
		cl_fail_at(ps, CL_ERR_MISSING, l, "empty case file; expected 'case ID' and a title, rules and steps");
	}
	if (!c->title || !c->n_rules || !c->n_steps) {
		struct cl_loc l = { ps->lx.line, ps->lx.col };
		cl_fail_at(ps, CL_ERR_MISSING, l, "the case ends without %s; expected %s",
			!c->title ? "a title" : !c->n_rules ? "rules" : "steps",
			!c->title ? "'title \"...\"'" : !c->n_rules ? "'rules ID, ...'" : "at least one step");
	}
	/* A rule limited to an IP version the case never runs over would
	 * never be judged. */
	for (unsigned i = 0; i < c->n_rules; i++)
		if (!(c->rule_ips[i] & c->ip_versions))
			cl_fail_at(ps, CL_ERR_VALUE, c->rule_locs[i], "rule %s is limited to IPv%d, which the case's 'ip' header excludes; expected an IP version the case runs over",
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

