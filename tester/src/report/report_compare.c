/*
 * Comparing two runs (roce-tester report --compare OLD NEW): case records
 * are matched by case ID and IP version. A regression is a case that
 * passed (or was not applicable) and now fails or ends in error, or that
 * ended in error and now fails; a fix is a case that failed or erred and
 * now passes; new and removed cases ran in only one of the two runs;
 * other changes (pass <-> not applicable, fail -> error, a failure that
 * now names other rules) are listed apart. Rules are compared too.
 */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "term.h"

static JsonObject *find_case(const struct report_run *run, const char *id, gint64 ipv)
{
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		JsonObject *c = json_array_get_object_element(run->cases, i);
		if (!strcmp(jstr(c, "id", ""), id) && jint(c, "ip_version", 0) == ipv)
			return c;
	}
	return NULL;
}

static JsonObject *find_rule(const struct report_run *run, const char *id)
{
	for (guint i = 0; i < json_array_get_length(run->rules); i++) {
		JsonObject *r = json_array_get_object_element(run->rules, i);
		if (!strcmp(jstr(r, "id", ""), id))
			return r;
	}
	return NULL;
}

/* Informative: every requirement held, with behaviour worth reporting. */
static bool met(const char *v)
{
	return !strcmp(v, "pass") || !strcmp(v, "informative");
}

static bool good(const char *v)
{
	return met(v) || !strcmp(v, "not_applicable");
}

static bool bad(const char *v)
{
	return !strcmp(v, "fail") || !strcmp(v, "error");
}

static void join(GString *t, JsonArray *a)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++) {
		if (i)
			g_string_append_c(t, ' ');
		g_string_append(t, json_array_get_string_element(a, i));
	}
}

enum kind { K_REGRESSION, K_FIX, K_NEW, K_REMOVED, K_CHANGED, K_COUNT };

static const char *const kind_title[K_COUNT] = { "regressions", "fixes", "new cases", "removed cases", "other changes" };

/* One line of the comparison. The label and the detail come from the
 * results files (case IDs, reasons): any length. The verdicts point into
 * the loaded runs. */
struct entry {
	gchar *label;
	const char *from, *to;
	gchar *detail;
};

static void entry_clear(gpointer p)
{
	struct entry *e = p;
	g_free(e->label);
	g_free(e->detail);
}

static void add(GArray *a, JsonObject *c, const char *from, const char *to, const char *detail)
{
	struct entry e = { case_label(c), from, to, g_strdup(detail ? detail : "") };
	g_array_append_val(a, e);
}

/* The broken rules and the reason of a case (caller frees). */
static gchar *describe(JsonObject *c)
{
	GString *t = g_string_new(NULL);
	const char *v = jstr(c, "verdict", "");
	if (!strcmp(v, "fail")) {
		join(t, jarr(c, "failed_rules"));
		if (t->len)
			g_string_append(t, ": ");
	}
	g_string_append(t, jstr(c, "reason", ""));
	return g_string_free(t, FALSE);
}

static void run_line(FILE *out, const char *what, const struct report_run *r)
{
	JsonObject *run = jobj(r->root, "run");
	JsonObject *hello = jobj(jobj(jobj(r->root, "setup"), "agent"), "hello");
	const char *host = jstr(hello, "host", NULL);
	fprintf(out, "%s %s: %s, %u case run(s), DUT %s%s%s%s%s%s\n", what, r->path, jstr(run, "started", "?"),
		json_array_get_length(r->cases), jstr(hello, "device", "?"), host ? " on " : "", host ? host : "",
		jstr(hello, "fault", NULL) ? " (fault " : "", jstr(hello, "fault", ""), jstr(hello, "fault", NULL) ? ")" : "");
}

void report_compare(const struct report_run *old_run, const struct report_run *new_run, FILE *out, bool colour,
		    enum verbosity verb, struct report_diff_counts *counts)
{
	/* Quiet: the summary line alone. */
	FILE *full = verb == VERB_QUIET ? fopen("/dev/null", "w") : out;
	if (!full)
		full = out;
	memset(counts, 0, sizeof *counts);
	GArray *lists[K_COUNT];
	for (int k = 0; k < K_COUNT; k++) {
		lists[k] = g_array_new(FALSE, TRUE, sizeof(struct entry));
		g_array_set_clear_func(lists[k], entry_clear);
	}
	GArray *unchanged = g_array_new(FALSE, TRUE, sizeof(struct entry));
	g_array_set_clear_func(unchanged, entry_clear);

	for (guint i = 0; i < json_array_get_length(new_run->cases); i++) {
		JsonObject *n = json_array_get_object_element(new_run->cases, i);
		const char *nv = jstr(n, "verdict", "");
		JsonObject *o = find_case(old_run, jstr(n, "id", ""), jint(n, "ip_version", 0));
		gchar *detail = describe(n);
		if (!o) {
			add(lists[K_NEW], n, "", nv, detail);
			g_free(detail);
			continue;
		}
		const char *ov = jstr(o, "verdict", "");
		if ((good(ov) && bad(nv)) || (!strcmp(ov, "error") && !strcmp(nv, "fail")))
			add(lists[K_REGRESSION], n, ov, nv, detail);
		else if (bad(ov) && met(nv))
			add(lists[K_FIX], n, ov, nv, "");
		else if (strcmp(ov, nv))
			add(lists[K_CHANGED], n, ov, nv, detail);
		else if (!strcmp(nv, "fail")) {
			GString *a = g_string_new(NULL), *b = g_string_new(NULL);
			join(a, jarr(o, "failed_rules"));
			join(b, jarr(n, "failed_rules"));
			if (strcmp(a->str, b->str)) {
				gchar *d2 = g_strdup_printf("broken rules were %s, now %s", a->str, b->str);
				add(lists[K_CHANGED], n, ov, nv, d2);
				g_free(d2);
			} else {
				add(unchanged, n, ov, nv, "");
			}
			g_string_free(a, TRUE);
			g_string_free(b, TRUE);
		} else {
			add(unchanged, n, ov, nv, "");
		}
		g_free(detail);
	}
	for (guint i = 0; i < json_array_get_length(old_run->cases); i++) {
		JsonObject *o = json_array_get_object_element(old_run->cases, i);
		if (!find_case(new_run, jstr(o, "id", ""), jint(o, "ip_version", 0)))
			add(lists[K_REMOVED], o, jstr(o, "verdict", ""), "", "not run this time");
	}

	run_line(full, "old", old_run);
	run_line(full, "new", new_run);
	for (int k = 0; k < K_COUNT; k++) {
		GArray *a = lists[k];
		enum term_colour col = k == K_REGRESSION ? TC_RED : k == K_FIX ? TC_GREEN : TC_BOLD;
		fprintf(full, "\n%s%s (%u)%s\n", tc(colour, col), kind_title[k], a->len, tc(colour, TC_RESET));
		for (guint i = 0; i < a->len; i++) {
			struct entry *e = &g_array_index(a, struct entry, i);
			fprintf(full, "  %-40s ", e->label);
			if (*e->from && *e->to)
				fprintf(full, "%s%s%s -> %s%s%s", tc(colour, verdict_colour(e->from)), e->from, tc(colour, TC_RESET),
					tc(colour, verdict_colour(e->to)), e->to, tc(colour, TC_RESET));
			else
				fprintf(full, "%s%s%s", tc(colour, verdict_colour(*e->to ? e->to : e->from)), *e->to ? e->to : e->from,
					tc(colour, TC_RESET));
			if (*e->detail)
				fprintf(full, "\n  %-40s %s", "", e->detail);
			fputc('\n', full);
		}
	}
	if (verb == VERB_VERBOSE) {
		fprintf(full, "\nunchanged (%u)\n", unchanged->len);
		for (guint i = 0; i < unchanged->len; i++) {
			struct entry *e = &g_array_index(unchanged, struct entry, i);
			fprintf(full, "  %-40s %s\n", e->label, e->to);
		}
	}

	/* Rules whose verdict moved between pass and fail. */
	GString *broke = g_string_new(NULL), *fixed = g_string_new(NULL);
	for (guint i = 0; i < json_array_get_length(new_run->rules); i++) {
		JsonObject *nr = json_array_get_object_element(new_run->rules, i);
		JsonObject *orr = find_rule(old_run, jstr(nr, "id", ""));
		const char *nv = jstr(nr, "verdict", ""), *ov = orr ? jstr(orr, "verdict", "") : "not_tested";
		if (!strcmp(nv, "fail") && strcmp(ov, "fail")) {
			counts->rule_regressions++;
			g_string_append_printf(broke, " %s", jstr(nr, "id", ""));
		} else if (!strcmp(ov, "fail") && !strcmp(nv, "pass")) {
			counts->rule_fixes++;
			g_string_append_printf(fixed, " %s", jstr(nr, "id", ""));
		}
	}
	fprintf(full, "\nrules newly broken (%u):%s\nrules fixed (%u):%s\n", counts->rule_regressions,
		broke->len ? broke->str : " none", counts->rule_fixes, fixed->len ? fixed->str : " none");
	g_string_free(broke, TRUE);
	g_string_free(fixed, TRUE);

	counts->regressions = lists[K_REGRESSION]->len;
	counts->fixes = lists[K_FIX]->len;
	counts->new_cases = lists[K_NEW]->len;
	counts->removed = lists[K_REMOVED]->len;
	counts->changed = lists[K_CHANGED]->len;
	counts->unchanged = unchanged->len;
	fprintf(out, "%s%s%u regression(s)%s, %u fix(es), %u new, %u removed, %u other change(s), %u unchanged\n",
		verb == VERB_QUIET ? "" : "\n", tc(colour, counts->regressions ? TC_RED : TC_GREEN), counts->regressions, tc(colour, TC_RESET), counts->fixes,
		counts->new_cases, counts->removed, counts->changed, counts->unchanged);
	for (int k = 0; k < K_COUNT; k++)
		g_array_free(lists[k], TRUE);
	g_array_free(unchanged, TRUE);
	if (full != out)
		fclose(full);
}
