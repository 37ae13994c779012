/* The case language's tokens (internal to the parser and its tests). */
#ifndef ROCE_TESTER_CASELEX_H
#define ROCE_TESTER_CASELEX_H

#include <stdint.h>
#include <stddef.h>

#include "caselang.h"

enum cl_tok_kind {
	CL_T_EOF,
	CL_T_NEWLINE,
	CL_T_WORD,     /* letters, digits, '_', '.', '-'; starts with a letter or '_' */
	CL_T_NUMBER,   /* decimal or 0x hex */
	CL_T_DURATION, /* a number with a unit: 10ms, 1.5s, 200us, 50ns */
	CL_T_STRING,   /* "text" */
	CL_T_HEX,      /* x"0a 0b ..." */
	CL_T_SYM,      /* $name or $name.member */
	CL_T_BIND,     /* ?name */
	CL_T_OP,       /* = != < <= > >= + - , .. -> * / */
};

struct cl_token {
	enum cl_tok_kind kind;
	struct cl_loc loc;
	const char *start; /* in the source text */
	size_t len;
	uint64_t num;   /* NUMBER; DURATION in ns */
	/* STRING and HEX: decoded bytes; SYM: name (and member after the dot);
	 * BIND: name; WORD and OP: the text. Owned by the lexer's arena. */
	char *text;
	uint8_t *bytes;
	size_t n_bytes;
	char *member;
};

struct cl_arena;
void *cl_arena_alloc(struct cl_arena **a, size_t n);
char *cl_arena_strndup(struct cl_arena **a, const char *s, size_t n);
void cl_arena_free(struct cl_arena *a);

struct cl_lexer {
	const char *path;
	const char *src, *end, *p;
	unsigned line, col;
	struct cl_arena **arena;
};

void cl_lex_init(struct cl_lexer *lx, const char *path, const char *src, size_t len,
		 struct cl_arena **arena);
/* Reads the next token; on a lexical error fills diag and returns false. */
bool cl_lex_next(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *diag);
/* Describes a token for messages: "end of line", "word 'foo'", "'='". */
void cl_tok_describe(const struct cl_token *t, char *buf, size_t n);

#endif
