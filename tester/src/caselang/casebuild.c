/*
 * What every statement's grammar shares while a case is built: failing at
 * a location (the first error ends the parse: cl_fail_at longjmps back to
 * cl_parse_text), growing the case's arrays in its arena, and a new step
 * with its source line. Below the parser and the step grammar, which both
 * call it, so that neither calls the other back.
 */
#include <stdarg.h>
#include <string.h>

#include "caseparse.h"
#include "text.h"

void cl_fail_at(struct parser *ps, enum cl_error code, struct cl_loc loc, const char *fmt, ...)
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

void cl_grow(struct parser *ps, void **arr, unsigned n, size_t elem)
{
	/* Arrays grow in powers of two; the old block stays in the arena. */
	if (n && (n & (n - 1)))
		return;
	void *bigger = cl_arena_alloc(ps->arena, elem * (n ? 2 * n : 4));
	if (n)
		memcpy(bigger, *arr, elem * n);
	*arr = bigger;
}

struct cl_step *cl_new_step(struct parser *ps, enum cl_step_kind kind, struct cl_loc loc)
{
	cl_grow(ps, (void **)&ps->c->steps, ps->c->n_steps, sizeof *ps->c->steps);
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
