/* The case language's lexer: line-oriented tokens with exact locations. */
#include "caselex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* All of a parsed case's memory lives in one arena, so that a parse error
 * anywhere frees everything at once. */
struct cl_arena {
	struct cl_arena *next;
	max_align_t data[];
};

void *cl_arena_alloc(struct cl_arena **a, size_t n)
{
	struct cl_arena *b = calloc(1, sizeof *b + n + 1);
	if (!b) {
		fputs("roce-tester: out of memory\n", stderr);
		abort();
	}
	b->next = *a;
	*a = b;
	return b->data;
}

char *cl_arena_strndup(struct cl_arena **a, const char *s, size_t n)
{
	char *d = cl_arena_alloc(a, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void cl_arena_free(struct cl_arena *a)
{
	while (a) {
		struct cl_arena *next = a->next;
		free(a);
		a = next;
	}
}

void cl_lex_init(struct cl_lexer *lx, const char *path, const char *src, size_t len,
		 struct cl_arena **arena)
{
	lx->path = path;
	lx->src = lx->p = src;
	lx->end = src + len;
	lx->line = lx->col = 1;
	lx->arena = arena;
}

static int peek(const struct cl_lexer *lx, size_t k)
{
	return lx->p + k < lx->end ? (unsigned char)lx->p[k] : -1;
}

static void advance(struct cl_lexer *lx)
{
	if (lx->p >= lx->end)
		return;
	if (*lx->p == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->p++;
}

static bool lex_error(const struct cl_lexer *lx, struct cl_diag *d, enum cl_error code,
		      struct cl_loc loc, const char *what)
{
	d->code = code;
	d->loc = loc;
	text_printf(d->msg, sizeof d->msg, "%s:%u:%u: %s", lx->path, loc.line, loc.col, what);
	return false;
}

/* A word or name that ends at lx->p and started at s must not be longer
 * than CL_MAX_WORD. */
static bool length_ok(const struct cl_lexer *lx, struct cl_diag *d, struct cl_loc loc, const char *s,
		      const char *what)
{
	size_t n = (size_t)(lx->p - s);
	if (n <= CL_MAX_WORD)
		return true;
	char msg[128];
	text_printf(msg, sizeof msg, "%s of %zu characters; expected at most %d", what, n, CL_MAX_WORD);
	return lex_error(lx, d, CL_ERR_LENGTH, loc, msg);
}

static bool is_word_start(int c)
{
	return c >= 0 && (isalpha(c) || c == '_');
}

static bool is_word_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == '.' || c == '-');
}

static bool is_ident_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_');
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool lex_string(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *d)
{
	advance(lx); /* the opening quote */
	size_t cap = (size_t)(lx->end - lx->p) + 1, n = 0;
	uint8_t *out = cl_arena_alloc(lx->arena, cap);
	for (;;) {
		int c = peek(lx, 0);
		struct cl_loc here = { lx->line, lx->col };
		if (c < 0 || c == '\n')
			return lex_error(lx, d, CL_ERR_STRING, t->loc,
					 "unterminated string; expected a closing '\"' on the same line");
		advance(lx);
		if (c == '"')
			break;
		if (c == '\\') {
			int e = peek(lx, 0);
			advance(lx);
			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '\\': c = '\\'; break;
			case '"': c = '"'; break;
			case '0': c = 0; break;
			default:
				return lex_error(lx, d, CL_ERR_STRING, here,
						 "unknown escape in string; expected one of \\n \\t \\\\ \\\" \\0");
			}
		}
		out[n++] = (uint8_t)c;
	}
	t->kind = CL_T_STRING;
	t->bytes = out;
	t->n_bytes = n;
	return true;
}

static bool lex_hex(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *d)
{
	advance(lx); /* x */
	advance(lx); /* " */
	size_t cap = (size_t)(lx->end - lx->p) / 2 + 1, n = 0;
	uint8_t *out = cl_arena_alloc(lx->arena, cap);
	int hi = -1;
	for (;;) {
		int c = peek(lx, 0);
		struct cl_loc here = { lx->line, lx->col };
		if (c < 0 || c == '\n')
			return lex_error(lx, d, CL_ERR_HEX, t->loc,
					 "unterminated byte string; expected a closing '\"'");
		advance(lx);
		if (c == '"')
			break;
		if (c == ' ' || c == ':' || c == '\t')
			continue;
		int v = hexval(c);
		if (v < 0)
			return lex_error(lx, d, CL_ERR_HEX, here,
					 "not a hex digit in byte string; expected 0-9, a-f, spaces or ':'");
		if (hi < 0) {
			hi = v;
		} else {
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0)
		return lex_error(lx, d, CL_ERR_HEX, t->loc,
				 "odd number of hex digits in byte string; expected whole bytes");
	t->kind = CL_T_HEX;
	t->bytes = out;
	t->n_bytes = n;
	return true;
}

static bool lex_number(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *d)
{
	const char *s = lx->p;
	uint64_t v = 0;
	bool overflow = false;
	if (peek(lx, 0) == '0' && (peek(lx, 1) == 'x' || peek(lx, 1) == 'X')) {
		advance(lx);
		advance(lx);
		if (hexval(peek(lx, 0)) < 0)
			return lex_error(lx, d, CL_ERR_NUMBER, t->loc,
					 "'0x' without hex digits; expected a number like 0x1f");
		while (hexval(peek(lx, 0)) >= 0) {
			if (v >> 60)
				overflow = true;
			v = v << 4 | (uint64_t)hexval(peek(lx, 0));
			advance(lx);
		}
		if (is_word_char(peek(lx, 0)) && peek(lx, 0) != '-' && peek(lx, 0) != '.')
			return lex_error(lx, d, CL_ERR_NUMBER, t->loc,
					 "malformed hex number; expected only hex digits after 0x");
	} else {
		while (peek(lx, 0) >= '0' && peek(lx, 0) <= '9') {
			uint64_t digit = (uint64_t)(peek(lx, 0) - '0');
			if (v > (UINT64_MAX - digit) / 10)
				overflow = true;
			v = v * 10 + digit;
			advance(lx);
		}
	}
	if (overflow)
		return lex_error(lx, d, CL_ERR_NUMBER, t->loc, "number does not fit in 64 bits");
	/* An optional fraction and unit make a duration. */
	double frac = 0, scale = 1;
	bool has_frac = false;
	if (peek(lx, 0) == '.' && peek(lx, 1) >= '0' && peek(lx, 1) <= '9') {
		has_frac = true;
		advance(lx);
		while (peek(lx, 0) >= '0' && peek(lx, 0) <= '9') {
			scale /= 10;
			frac += scale * (peek(lx, 0) - '0');
			advance(lx);
		}
	}
	if (isalpha(peek(lx, 0))) {
		const char *u = lx->p;
		while (isalpha(peek(lx, 0)))
			advance(lx);
		size_t ul = (size_t)(lx->p - u);
		double mult;
		if (ul == 2 && !strncmp(u, "ns", 2))
			mult = 1;
		else if (ul == 2 && !strncmp(u, "us", 2))
			mult = 1e3;
		else if (ul == 2 && !strncmp(u, "ms", 2))
			mult = 1e6;
		else if (ul == 1 && u[0] == 's')
			mult = 1e9;
		else
			return lex_error(lx, d, CL_ERR_UNIT, t->loc,
					 "unknown unit after number; expected ns, us, ms or s");
		/* Converting a double past 2^64 to an integer is undefined. */
		double ns = ((double)v + frac) * mult + 0.5;
		if (!(ns < 18446744073709551616.0))
			return lex_error(lx, d, CL_ERR_NUMBER, t->loc,
					 "duration too long; it must fit in 64 bits of nanoseconds (about 584 years)");
		t->kind = CL_T_DURATION;
		t->num = (uint64_t)ns;
	} else if (has_frac) {
		return lex_error(lx, d, CL_ERR_UNIT, t->loc,
				 "a fraction needs a unit; expected ns, us, ms or s after the number");
	} else {
		t->kind = CL_T_NUMBER;
		t->num = v;
	}
	(void)s;
	return true;
}

static bool lex_sym(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *d, bool bind)
{
	advance(lx); /* $ or ? */
	if (!is_word_start(peek(lx, 0)))
		return lex_error(lx, d, CL_ERR_CHAR, t->loc,
				 bind ? "'?' must be followed by a name to bind, like ?psn"
				      : "'$' must be followed by a name, like $qp or $qp.qpn");
	const char *s = lx->p;
	while (is_ident_char(peek(lx, 0)))
		advance(lx);
	if (!length_ok(lx, d, t->loc, s, "a name"))
		return false;
	t->text = cl_arena_strndup(lx->arena, s, (size_t)(lx->p - s));
	if (!bind && peek(lx, 0) == '.' && is_word_start(peek(lx, 1))) {
		advance(lx);
		const char *m = lx->p;
		while (is_ident_char(peek(lx, 0)))
			advance(lx);
		if (!length_ok(lx, d, t->loc, m, "a member name"))
			return false;
		t->member = cl_arena_strndup(lx->arena, m, (size_t)(lx->p - m));
	}
	t->kind = bind ? CL_T_BIND : CL_T_SYM;
	return true;
}

bool cl_lex_next(struct cl_lexer *lx, struct cl_token *t, struct cl_diag *d)
{
	memset(t, 0, sizeof *t);
	for (;;) {
		int c = peek(lx, 0);
		if (c == ' ' || c == '\t' || c == '\r') {
			advance(lx);
		} else if (c == '#') {
			while (peek(lx, 0) >= 0 && peek(lx, 0) != '\n')
				advance(lx);
		} else if (c == '\\' && (peek(lx, 1) == '\n' || (peek(lx, 1) == '\r' && peek(lx, 2) == '\n'))) {
			advance(lx); /* a continuation line */
			if (peek(lx, 0) == '\r')
				advance(lx);
			advance(lx);
		} else {
			break;
		}
	}
	t->loc.line = lx->line;
	t->loc.col = lx->col;
	t->start = lx->p;
	int c = peek(lx, 0);
	bool ok = true;
	if (c < 0) {
		t->kind = CL_T_EOF;
	} else if (c == '\n') {
		advance(lx);
		t->kind = CL_T_NEWLINE;
	} else if (c == '"') {
		ok = lex_string(lx, t, d);
	} else if (c == 'x' && peek(lx, 1) == '"') {
		ok = lex_hex(lx, t, d);
	} else if (c >= '0' && c <= '9') {
		ok = lex_number(lx, t, d);
	} else if (c == '$' || c == '?') {
		ok = lex_sym(lx, t, d, c == '?');
	} else if (is_word_start(c)) {
		while (is_word_char(peek(lx, 0)))
			advance(lx);
		/* A word never ends in '.' or '-' (they belong to what follows). */
		while (lx->p[-1] == '.' || lx->p[-1] == '-') {
			lx->p--;
			lx->col--;
		}
		if (!length_ok(lx, d, t->loc, t->start, "a word"))
			return false;
		t->kind = CL_T_WORD;
	} else {
		static const char *const ops[] = { "!=", "<=", ">=", "..", "->", "=", "<", ">", "+", "-", ",", "*", "/" };
		for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
			size_t n = strlen(ops[i]);
			if ((size_t)(lx->end - lx->p) >= n && !strncmp(lx->p, ops[i], n)) {
				for (size_t k = 0; k < n; k++)
					advance(lx);
				t->kind = CL_T_OP;
				break;
			}
		}
		if (t->kind != CL_T_OP) {
			char what[96];
			if (isprint(c))
				snprintf(what, sizeof what, "unexpected character '%c'; expected a word, number, string, $symbol or operator", c);
			else
				snprintf(what, sizeof what, "unexpected byte 0x%02x; expected printable text", (unsigned)c);
			return lex_error(lx, d, CL_ERR_CHAR, t->loc, what);
		}
	}
	if (!ok)
		return false;
	t->len = (size_t)(lx->p - t->start);
	if (t->kind == CL_T_WORD || t->kind == CL_T_OP)
		t->text = cl_arena_strndup(lx->arena, t->start, t->len);
	return true;
}

void cl_tok_describe(const struct cl_token *t, char *buf, size_t n)
{
	switch (t->kind) {
	/* Tokens are quoted in diagnostics: a long one is cut visibly. */
	case CL_T_EOF: text_printf(buf, n, "end of file"); break;
	case CL_T_NEWLINE: text_printf(buf, n, "end of line"); break;
	case CL_T_WORD: text_printf(buf, n, "word '%s'", t->text); break;
	case CL_T_NUMBER: text_printf(buf, n, "number %.*s", (int)t->len, t->start); break;
	case CL_T_DURATION: text_printf(buf, n, "duration %.*s", (int)t->len, t->start); break;
	case CL_T_STRING: text_printf(buf, n, "a string"); break;
	case CL_T_HEX: text_printf(buf, n, "a byte string"); break;
	case CL_T_SYM: text_printf(buf, n, "symbol %.*s", (int)t->len, t->start); break;
	case CL_T_BIND: text_printf(buf, n, "binding %.*s", (int)t->len, t->start); break;
	case CL_T_OP: text_printf(buf, n, "'%s'", t->text); break;
	}
}
