/*
 * docs/case-arguments.md, written from the argument tables (caseargs.c):
 * every statement's arguments with the forms their values take, the words
 * allowed and the default, so that the reference cannot drift from what
 * the parser accepts and the runner applies (CTest case_arguments_current).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caseparse.h"

/* The statements with arguments, in the order docs/case-language.md
 * introduces them. */
static const struct {
	const char *syntax;
	const struct argspec *args;
} statements[] = {
	{ "dut mr NAME", cl_args_dut_mr },
	{ "dut qp NAME", cl_args_dut_qp },
	{ "dut listen QP", cl_args_dut_listen },
	{ "dut post_recv QP MR", cl_args_post_recv },
	{ "dut post_send QP VERB [MR]", cl_args_post_send },
	{ "dut write MR", cl_args_dut_write },
	{ "dut read MR", cl_args_dut_read },
	{ "dut query QP", cl_args_dut_query },
	{ "dut modify QP", cl_args_dut_modify },
	{ "peer mr NAME", cl_args_peer_mr },
	{ "peer QP send|write|read|cmp_swap|fetch_add", cl_args_peer_op },
	{ "peer QP set", cl_args_peer_set },
	{ "inject QP OPCODE", cl_args_inject },
	{ "expect QP OPCODE|any", cl_args_expect_pkt },
	{ "expect completion QP", cl_args_expect_completion },
	{ "expect peer QP", cl_args_expect_peer },
	{ "expect mem MR", cl_args_expect_mem },
	{ "on tx|rx QP|*", cl_args_rule },
	{ "measure QP OPCODE|any for T", cl_args_measure },
	{ "load QP send|write|read", cl_args_load },
	{ "group NAME", cl_args_group },
	{ "dut attach QP [GROUP]", cl_args_dut_attach },
	{ "dut srq NAME", cl_args_dut_srq },
	{ "dut arm SRQ", cl_args_dut_arm },
	{ "dut query SRQ", cl_args_dut_query_srq },
	{ "expect event TYPE", cl_args_expect_event },
	{ "peer srq NAME", cl_args_peer_srq },
	{ "dut mw NAME", cl_args_dut_mw },
	{ "dut bind MW QP MR", cl_args_dut_bind },
	{ "dut port", cl_args_dut_port },
	{ "dut gids", cl_args_dut_gids },
	{ "dut raw_datagram_qp TYPE", cl_args_dut_raw_qp },
};

static void forms(FILE *out, const struct argspec *a)
{
	static const struct {
		unsigned flag;
		const char *text;
	} names[] = {
		{ F_EXPR, "number" }, { F_DUR, "duration" }, { F_BYTES, "bytes" }, { F_WORD, "word" },
		{ F_LIST, "list of words" }, { F_BIND, "?binding" },
	};
	if (a->forms & F_WINDOW) {
		fputs("`within T`", out);
		return;
	}
	if (a->forms & F_FLAG) {
		fputs("the word alone", out);
		return;
	}
	const char *sep = "";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (a->forms & names[i].flag) {
			fprintf(out, "%s%s", sep, names[i].text);
			sep = ", ";
		}
	}
	if (a->forms & F_CMP)
		fputs(", compared (`!=`, `<` ...)", out);
	if (a->forms & F_RESULT)
		fputs(", after `->`", out);
}

/* A default in nanoseconds as the language writes durations. */
static void duration(FILE *out, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		fprintf(out, "%" PRIu64 "s", ns / 1000000000u);
	else if (ns % 1000000u == 0)
		fprintf(out, "%" PRIu64 "ms", ns / 1000000u);
	else
		fprintf(out, "%" PRIu64 "ns", ns);
}

static void default_text(FILE *out, const struct argspec *a)
{
	if (!a->slot) { /* a constraint or a setting, read in written order */
		fputs("none: only when given", out);
		return;
	}
	switch (a->def.kind) {
	case CL_DEF_NONE: fputs("none: only when given", out); break;
	case CL_DEF_NUM:
		if (a->forms & F_WINDOW)
			duration(out, a->def.num);
		else if (a->def.num >= 0x10000)
			fprintf(out, "0x%" PRIx64, a->def.num);
		else
			fprintf(out, "%" PRIu64, a->def.num);
		break;
	case CL_DEF_WORD: fprintf(out, "`%s`", a->def.word); break;
	case CL_DEF_RUN: fputs(a->def.word, out); break;
	}
}

void cl_arguments_markdown(FILE *out)
{
	fputs("# Case-language arguments\n"
	      "\n"
	      "Generated from the parser's argument tables (`tester/src/caselang/caseargs.c`) by\n"
	      "`roce-case-arguments > docs/case-arguments.md`; the test\n"
	      "`case_arguments_current` fails when this file and the tables disagree.\n"
	      "What each statement does is in [case-language.md](case-language.md).\n"
	      "\n"
	      "A *default* applies when the argument is left out; the runner has no\n"
	      "other. An argument without one (a constraint, a result, a setting)\n"
	      "counts only when the case writes it. Words are matched ignoring case. Every\n"
	      "statement that takes packet fields (inject, expect, the injection\n"
	      "rules' `set`) also takes header fields by name (`psn`, `bth.tver`,\n"
	      "`reth.rkey`, `rej.reason` ...), which are not listed here.\n",
	      out);
	for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
		fprintf(out, "\n## `%s`\n\n", statements[i].syntax);
		fputs("| Argument | Takes | Words | Default |\n|---|---|---|---|\n", out);
		for (const struct argspec *a = statements[i].args; a->key; a++) {
			if (a->forms & F_FIELD)
				continue;
			fprintf(out, "| `%s` | ", a->key);
			forms(out, a);
			fputs(" | ", out);
			for (const char *const *w = a->vocab ? a->vocab->words : NULL; w && *w; w++)
				fprintf(out, "%s`%s`", w == a->vocab->words ? "" : ", ", *w);
			if (!a->vocab)
				fputs(a->forms & (F_WORD | F_LIST) ? "any" : "-", out);
			fputs(" | ", out);
			default_text(out, a);
			fputs(" |\n", out);
		}
	}
}
