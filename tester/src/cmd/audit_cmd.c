/*
 * `roce-tester rules --audit CASE-OR-DIR...`: the Markdown of
 * docs/rule-audit.md, generated from the catalogue (whom each rule binds,
 * how strongly) and the cases (the DUT's role in each step that checks
 * something, caseroles.c): for every rule, the cases that cite it and
 * what breaking it yields there; for every case, which of its rules are
 * judged and which only reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefiles.h"
#include "caselang.h"
#include "commands.h"

/* Whether some rule of the case binds the DUT in a step with a "must", on
 * every IP version the case runs over: a failure there fails the case. */
static bool step_judged(const struct cl_case *c, const struct cl_step *s)
{
	unsigned idx[64];
	for (int ipv = 4; ipv <= 6; ipv += 2)
		if ((c->ip_versions & (1u << ipv)) && !cl_binding_rules(c, ipv, s->roles, idx, 64))
			return false;
	return true;
}

/* The roles of the case's checks in which rule r binds the DUT (judged),
 * and those of the checks no rule of the case binds it in (reported: a
 * failure there is informative). */
static void rule_roles(const struct cl_case *c, const struct roce_rule_info *ri, unsigned *judged, unsigned *reported)
{
	*judged = *reported = 0;
	for (unsigned i = 0; i < c->n_steps; i++) {
		const struct cl_step *s = &c->steps[i];
		if (!cl_step_checks(s) || s->unreached)
			continue; /* a precondition judges nothing */
		if (roce_rule_binds(ri, s->roles))
			*judged |= s->roles & ri->binds;
		else if (!step_judged(c, s))
			*reported |= s->roles;
	}
}

static bool cites(const struct cl_case *c, const char *id)
{
	for (unsigned k = 0; k < c->n_rules; k++)
		if (!strcmp(c->rules[k], id))
			return true;
	return false;
}

static const char *packet_check_verdict(const struct roce_rule_info *ri)
{
	if (!(ri->scope & ROCE_SCOPE_PKT))
		return NULL;
	switch (ri->severity) {
	case ROCE_SEV_ERROR: return "fail (packet check on every DUT packet)";
	case ROCE_SEV_WARN:
		return ri->strength == ROCE_MUST ? "warning, not failed (packet check: receivers ignore it)"
						 : "warning, not failed (packet check: a should)";
	case ROCE_SEV_NOTE: return "note (packet check)";
	case ROCE_SEV_INFO: return "informative (packet check)";
	}
	return NULL;
}

static void print_rules(struct cl_case *const *cases, size_t n)
{
	puts("## Rules\n\n"
	     "| Rule | Binds | Strength | Cases | Verdict on violation |\n"
	     "|---|---|---|---|---|");
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		char binds[96], roles[96];
		printf("| %s | %s | %s | ", ri->id, roce_roles_format(ri->binds, binds, sizeof binds),
		       roce_strength_name(ri->strength));
		unsigned n_cited = 0, n_judged = 0, n_reported = 0;
		for (size_t i = 0; i < n; i++) {
			if (!cites(cases[i], ri->id))
				continue;
			unsigned judged, reported;
			rule_roles(cases[i], ri, &judged, &reported);
			printf("%s`%s` (", n_cited ? ", " : "", cases[i]->id);
			if (judged)
				printf("judged as %s", roce_roles_format(judged, roles, sizeof roles));
			if (reported)
				printf("%sreported as %s", judged ? "; " : "", roce_roles_format(reported, roles, sizeof roles));
			if (!judged && !reported)
				printf("no check binds it");
			printf(")");
			n_judged += judged != 0;
			n_reported += !judged;
			n_cited++;
		}
		if (!n_cited)
			printf("%s", ri->scope == ROCE_SCOPE_NONE ? "not on the wire" : "none");
		printf(" | ");
		const char *pkt = packet_check_verdict(ri);
		if (ri->strength != ROCE_MUST) {
			printf("informative (a %s)", roce_strength_name(ri->strength));
		} else if (!n_cited) {
			printf("%s", ri->scope == ROCE_SCOPE_NONE ? "not judged (not on the wire)" : pkt ? "" : "no case yet");
		} else {
			if (n_judged)
				printf("fail");
			if (n_reported)
				printf("%sinformative in a case that sees the DUT in no role it binds", n_judged ? "; " : "");
		}
		if (pkt && ri->strength == ROCE_MUST)
			printf("%s%s", n_cited ? "; " : "", pkt);
		else if (pkt)
			printf("; %s", pkt);
		puts(" |");
	}
}

static void print_cases(struct cl_case *const *cases, size_t n)
{
	puts("\n## Cases\n\n"
	     "| Case | Rules judged, and the DUT's roles there | Checks no rule binds (a failure there is reported) |\n"
	     "|---|---|---|");
	for (size_t i = 0; i < n; i++) {
		const struct cl_case *c = cases[i];
		char roles[96];
		printf("| `%s` | ", c->id);
		unsigned nj = 0;
		for (unsigned k = 0; k < c->n_rules; k++) {
			const struct roce_rule_info *ri = roce_rule(roce_rule_by_id(c->rules[k]));
			unsigned judged, reported;
			rule_roles(c, ri, &judged, &reported);
			if (judged)
				printf("%s%s (%s)", nj++ ? ", " : "", ri->id, roce_roles_format(judged, roles, sizeof roles));
			else if (ri->strength != ROCE_MUST)
				printf("%s%s: not judged (a %s)", nj++ ? ", " : "", ri->id, roce_strength_name(ri->strength));
			else
				printf("%s%s: not judged (binds the %s)", nj++ ? ", " : "", ri->id,
				       roce_roles_format(ri->binds, roles, sizeof roles));
		}
		printf(" | ");
		unsigned nr = 0;
		for (unsigned k = 0; k < c->n_steps; k++) {
			const struct cl_step *s = &c->steps[k];
			if (!cl_step_checks(s) || (step_judged(c, s) && !s->unreached))
				continue;
			if (s->unreached)
				printf("%sline %u (precondition)", nr++ ? ", " : "", s->loc.line);
			else
				printf("%sline %u (%s)", nr++ ? ", " : "", s->loc.line, roce_roles_format(s->roles, roles, sizeof roles));
		}
		puts(nr ? " |" : "- |");
	}
}

int cmd_rules_audit(int argc, char **argv)
{
	if (argc < 1) {
		fputs("roce-tester rules --audit: no cases given; expected case files or directories\n", stderr);
		return 2;
	}
	struct case_files files = { 0 };
	int rc = case_files_collect(&files, argv, argc, "roce-tester rules --audit") ? 2 : 0;
	struct cl_case **cases;
	size_t n;
	if (case_files_parse(&files, &cases, &n))
		rc = 2;
	if (rc) {
		fputs("roce-tester rules --audit: case files with errors; nothing printed\n", stderr);
	} else {
		puts("# Rule audit: whom each rule binds, and what breaking it yields\n\n"
		     "Generated by `roce-tester rules --audit conformance-cases` from the rule\n"
		     "catalogue (`lib/include/roce/rules.def`: whom each rule binds, how strongly)\n"
		     "and the case files (the DUT's role in each step that checks something); the\n"
		     "test `docs_rule_audit_current` fails when this file differs from a fresh\n"
		     "generation. How a step's role is found, and how a case says it, is in\n"
		     "[case-language.md](case-language.md#roles-and-verdicts); why each rule binds\n"
		     "whom it binds, and the verdicts this changed, are in [verdicts.md](verdicts.md).\n\n"
		     "A case fails only when the DUT, in the role it plays in the failing step,\n"
		     "breaks a *must* that binds that role. Anything else that does not hold, a\n"
		     "*should*, or a sender's rule broken by what the DUT accepts as a receiver,\n"
		     "is reported with the observation and ends the case *informative*. A\n"
		     "*precondition* (`expect ... else unreached`: a correct request the DUT must\n"
		     "answer before a refusal means anything) judges nothing: when it does not\n"
		     "hold, the case says that its rules were not reached and why, and ends\n"
		     "*informative*, so that a deviation elsewhere is counted once.\n\n"
		     "*Cases* lists each case that cites the rule with the roles it judges the\n"
		     "rule in (*as ...*), or, where the rule binds none of the DUT's roles in the\n"
		     "case's checks, *reported*. Rules with scope *packet* are also checked on\n"
		     "every packet the DUT sends, in every case (libroce's stateless checks).\n");
		print_rules(cases, n);
		print_cases(cases, n);
	}
	for (size_t i = 0; i < n; i++)
		cl_case_free(cases[i]);
	free(cases);
	case_files_free(&files);
	return rc;
}
