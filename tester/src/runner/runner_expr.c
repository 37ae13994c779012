/*
 * The runner's symbols and values: $qp.qpn, ?bindings and measured values,
 * the case's expressions evaluated against them, and step arguments
 * with their defaults.
 */
#include "runner_ctx.h"

/* ---- Symbols and values ---- */

/* NAME.MEMBER: two names of the case language. */
#define SYM_KEY_MAX (2 * CL_MAX_WORD + 2)

void sym_set_unit(struct run_ctx *x, const char *name, const char *member, uint64_t v, enum sym_unit u)
{
	char key[SYM_KEY_MAX];
	outf(key, sizeof key, "%s%s%s", name, member ? "." : "", member ? member : "");
	for (size_t i = 0; i < x->n_syms; i++) {
		if (!strcmp(x->syms[i].name, key)) {
			x->syms[i].value = v;
			x->syms[i].unit = u;
			return;
		}
	}
	if (x->n_syms == x->cap_syms) {
		x->cap_syms = x->cap_syms ? 2 * x->cap_syms : 32;
		struct sym_val *s = realloc(x->syms, x->cap_syms * sizeof *s);
		if (!s)
			abort();
		x->syms = s;
	}
	x->syms[x->n_syms].name = strdup(key);
	x->syms[x->n_syms].value = v;
	x->syms[x->n_syms].unit = u;
	x->n_syms++;
}

void sym_set(struct run_ctx *x, const char *name, const char *member, uint64_t v)
{
	sym_set_unit(x, name, member, v, SYM_PLAIN);
}

const struct sym_val *sym_find(struct run_ctx *x, const char *name, const char *member)
{
	char key[SYM_KEY_MAX];
	outf(key, sizeof key, "%s%s%s", name, member ? "." : "", member ? member : "");
	for (size_t i = 0; i < x->n_syms; i++)
		if (!strcmp(x->syms[i].name, key))
			return &x->syms[i];
	return NULL;
}

static bool sym_get(struct run_ctx *x, const char *name, const char *member, uint64_t *v)
{
	const struct sym_val *sv = sym_find(x, name, member);
	if (sv)
		*v = sv->value;
	return sv != NULL;
}

/* A value as a report shows it: 67.109 ms, 4.00 Mb/s, 1200 pkt/s. */
void format_value(uint64_t v, enum sym_unit u, char *buf, size_t n)
{
	switch (u) {
	case SYM_NS:
		if (v < 1000)
			outf(buf, n, "%llu ns", (unsigned long long)v);
		else if (v < 1000000)
			outf(buf, n, "%.3f us", (double)v / 1e3);
		else if (v < 1000000000)
			outf(buf, n, "%.3f ms", (double)v / 1e6);
		else
			outf(buf, n, "%.3f s", (double)v / 1e9);
		return;
	case SYM_BYTES: outf(buf, n, "%llu bytes", (unsigned long long)v); return;
	case SYM_BYTES_PER_S: outf(buf, n, "%.3f Mb/s", (double)v * 8 / 1e6); return;
	case SYM_PER_S: outf(buf, n, "%llu pkt/s", (unsigned long long)v); return;
	case SYM_PLAIN: break;
	}
	outf(buf, n, "%llu", (unsigned long long)v);
}

bool eval(struct run_ctx *x, const struct cl_expr *e, uint64_t *out, struct step_out *o)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		uint64_t tv = t->num;
		if (t->is_sym && !sym_get(x, t->sym, t->member, &tv)) {
			o->st = S_ERROR;
			g_string_printf(o->detail, "%s:%u:%u: $%s%s%s has no value (the step that binds it did not run or did not match)",
			     x->c->path, t->loc.line, t->loc.col, t->sym, t->member ? "." : "", t->member ? t->member : "");
			return false;
		}
		if (t->mul)
			tv *= t->mul;
		if (t->div)
			tv /= t->div;
		v = t->sign > 0 ? v + tv : v - tv;
	}
	*out = v;
	return true;
}

/* The unit an expression's value is in: time if a term is a duration or
 * a time-valued symbol, else the first symbol's. */
enum sym_unit expr_unit(struct run_ctx *x, const struct cl_expr *e)
{
	enum sym_unit u = SYM_PLAIN;
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		if (t->duration)
			return SYM_NS;
		const struct sym_val *sv = t->is_sym ? sym_find(x, t->sym, t->member) : NULL;
		if (sv && sv->unit == SYM_NS)
			return SYM_NS;
		if (sv && u == SYM_PLAIN)
			u = sv->unit;
	}
	return u;
}

/* An expression as written ($r0 * 9 / 10, 60 ms). */
gchar *expr_text(const struct cl_expr *e)
{
	GString *buf = g_string_new(NULL);
	for (unsigned i = 0; i < e->n; i++) {
		const struct cl_term *t = &e->terms[i];
		if (i)
			g_string_append_printf(buf, " %c ", t->sign > 0 ? '+' : '-');
		else if (t->sign < 0)
			g_string_append(buf, "-");
		if (t->is_sym) {
			g_string_append_printf(buf, "$%s%s%s", t->sym, t->member ? "." : "", t->member ? t->member : "");
		} else if (t->duration) {
			char d[64];
			format_value(t->num, SYM_NS, d, sizeof d);
			g_string_append(buf, d);
		} else {
			g_string_append_printf(buf, "%llu", (unsigned long long)t->num);
		}
		if (t->mul && t->mul != 1)
			g_string_append_printf(buf, " * %llu", (unsigned long long)t->mul);
		if (t->div && t->div != 1)
			g_string_append_printf(buf, " / %llu", (unsigned long long)t->div);
	}
	return g_string_free(buf, FALSE);
}

/* A default from the step's argument table: its number, or run_value
 * where the table says the run supplies it. */
static uint64_t default_u64(const struct cl_param *p, uint64_t run_value)
{
	if (!p->def)
		return 0;
	return p->def->kind == CL_DEF_NUM ? p->def->num : p->def->kind == CL_DEF_RUN ? run_value : 0;
}

bool param_u64(struct run_ctx *x, const struct cl_param *p, uint64_t *v, struct step_out *o)
{
	return param_u64_run(x, p, 0, v, o);
}

bool param_u64_run(struct run_ctx *x, const struct cl_param *p, uint64_t run_value, uint64_t *v, struct step_out *o)
{
	if (!p->arg || p->arg->v.kind != CL_V_EXPR) {
		*v = default_u64(p, run_value);
		return true;
	}
	return eval(x, &p->arg->v.expr, v, o);
}

int param_choice(const struct cl_param *p, int run_value)
{
	return p->word_id >= 0 ? p->word_id : run_value;
}

uint64_t param_window(const struct cl_step *s, const struct cl_param *p)
{
	return s->has_within ? s->within_max : p->def->num;
}

struct case_qp *find_qp(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; i < x->n_qps; i++)
		if (!strcmp(x->qps[i].name, name))
			return &x->qps[i];
	return NULL;
}

struct case_mr *find_mr(struct run_ctx *x, const char *name)
{
	for (unsigned i = 0; i < x->n_mrs; i++)
		if (!strcmp(x->mrs[i].name, name))
			return &x->mrs[i];
	return NULL;
}
