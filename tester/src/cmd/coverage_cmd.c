/*
 * `roce-tester coverage`: the Markdown of docs/coverage.md, generated from
 * the case files through the case parser: every rule of the catalogue with
 * the cases that test it, their IP versions and the DUT's roles; the
 * wire-testable rules no case tests yet; the rules that are not
 * wire-testable and why; and every case with its mutants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casefiles.h"
#include "commands.h"
#include "coverage.h"

static const char *ips_text(unsigned ips)
{
	switch (ips & ((1u << 4) | (1u << 6))) {
	case 1u << 4: return "4";
	case 1u << 6: return "6";
	case (1u << 4) | (1u << 6): return "4, 6";
	default: return "-";
	}
}

/* The DUT's roles in words ("responder, requester, device"); "-" for none. */
static const char *dirs_text(unsigned dirs, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = { { COV_RESPONDER, "responder" }, { COV_REQUESTER, "requester" }, { COV_DEVICE, "device" } };
	/* Appended piece by piece with strncat: the three names always fit the
	 * callers' buffers, and a short buffer would cut the text, not overrun. */
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(dirs & names[i].bit))
			continue;
		if (buf[0])
			strncat(buf, ", ", n - 1 - strlen(buf));
		strncat(buf, names[i].name, n - 1 - strlen(buf));
	}
	return buf[0] ? buf : "-";
}

static void usage(FILE *out)
{
	fputs("usage: roce-tester coverage [--uncovered FILE] CASE-OR-DIR...\n"
	      "\n"
	      "Prints, as Markdown, which rules of the catalogue the cases test (over\n"
	      "which IP versions, with the DUT as responder, as requester, or as the\n"
	      "device its verbs describe), which testable rules no case tests, which\n"
	      "rules are not testable and why, and every case with its mutants:\n"
	      "docs/coverage.md is\n"
	      "'roce-tester coverage --uncovered conformance-cases/uncovered.txt conformance-cases'\n"
	      "run from the source tree. FILE says, one 'RULE-ID: reason' per line, why a\n"
	      "wire-testable rule has no case; a rule listed there that has a case is an error.\n"
	      "Exit status: 0, or 2 when a case file cannot be read or parsed.\n",
	      out);
}

/* Why a wire-testable rule has no case yet: "RULE-ID: reason" lines (and
 * '#' comments) of the --uncovered file. */
struct why_not {
	char *id, *reason;
};

static int read_uncovered(const char *path, struct why_not *w, unsigned *n, unsigned max)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "roce-tester coverage: --uncovered %s: cannot open it\n", path);
		return -1;
	}
	char *line = NULL; /* a reason may be of any length */
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		char *colon = strchr(line, ':');
		if (!colon || colon == line || !colon[1]) {
			fprintf(stderr, "%s:%u: expected 'RULE-ID: why no case tests it'\n", path, lineno);
			rc = -1;
			continue;
		}
		*colon = '\0';
		const char *reason = colon + 1;
		while (*reason == ' ')
			reason++;
		if (roce_rule_by_id(line) == ROCE_RULE_NONE) {
			fprintf(stderr, "%s:%u: '%s' is not in the rule catalogue; expected an ID that 'roce-tester rules' lists\n",
				path, lineno, line);
			rc = -1;
			continue;
		}
		if (*n == max) {
			fprintf(stderr, "%s:%u: more than %u rules\n", path, lineno, max);
			rc = -1;
			break;
		}
		w[*n].id = strdup(line);
		w[*n].reason = strdup(reason);
		(*n)++;
	}
	free(line);
	fclose(f);
	return rc;
}

static const char *why_not_for(const struct why_not *w, unsigned n, const char *id)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(w[i].id, id))
			return w[i].reason;
	return NULL;
}

static void print_link(const struct cl_case *c)
{
	/* docs/coverage.md links back to the case files. */
	printf("[%s](%s%s)", c->id, c->path[0] == '/' ? "" : "../", c->path);
}

int cmd_coverage(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	const char *uncovered = NULL;
	int first = 1;
	if (argc > 2 && !strcmp(argv[1], "--uncovered")) {
		uncovered = argv[2];
		first = 3;
	}
	if (argc <= first || argv[first][0] == '-') {
		if (argc > first)
			fprintf(stderr, "roce-tester coverage: unknown option '%s'\n", argv[first]);
		else
			fputs("roce-tester coverage: no cases given; expected case files or directories\n", stderr);
		usage(stderr);
		return 2;
	}
	struct why_not why[ROCE_RULE_COUNT];
	unsigned n_why = 0;
	struct case_files files = { 0 };
	int rc = case_files_collect(&files, argv + first, argc - first, "roce-tester coverage") ? 2 : 0;
	if (uncovered && read_uncovered(uncovered, why, &n_why, ROCE_RULE_COUNT) != 0)
		rc = 2;
	struct cl_case **cases;
	size_t n;
	if (case_files_parse(&files, &cases, &n))
		rc = 2;
	if (rc) {
		fputs("roce-tester coverage: case files with errors; nothing printed\n", stderr);
		goto out;
	}
	struct coverage cv;
	coverage_build(&cv, cases, n);
	/* A reason for a rule that has a case, or is off the wire, is stale. */
	for (unsigned i = 0; i < n_why; i++) {
		enum roce_rule r = roce_rule_by_id(why[i].id);
		if (cv.rules[r].n_uses || roce_rule(r)->scope == ROCE_SCOPE_NONE) {
			fprintf(stderr, "%s: %s %s; expected only wire-testable rules without a case\n", uncovered, why[i].id,
				cv.rules[r].n_uses ? "has a case now" : "is not testable");
			rc = 2;
		}
	}
	if (rc) {
		coverage_free(&cv);
		goto out;
	}

	unsigned total = 0, wire = 0, covered = 0, both_ips = 0, both_dirs = 0, device_only = 0, pairs = 0;
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		total++;
		if (ri->scope == ROCE_SCOPE_NONE)
			continue;
		wire++;
		if (cv.rules[r].n_uses) {
			covered++;
			both_ips += cv.rules[r].ips == ((1u << 4) | (1u << 6));
			both_dirs += (cv.rules[r].dirs & (COV_RESPONDER | COV_REQUESTER)) == (COV_RESPONDER | COV_REQUESTER);
			device_only += cv.rules[r].dirs == COV_DEVICE;
		}
	}
	for (size_t i = 0; i < n; i++)
		pairs += cases[i]->n_mutants;

	puts("# Conformance coverage\n\n"
	     "Generated by `roce-tester coverage --uncovered conformance-cases/uncovered.txt\n"
	     "conformance-cases` from the case files (their `rules`, `ip` and `mutants`\n"
	     "headers and their steps, read by the case parser) and, for the rules no case\n"
	     "tests, the reasons in `conformance-cases/uncovered.txt`; the test\n"
	     "`coverage_current` fails when this file differs from a fresh generation.\n"
	     "The catalogue is [rules.md](rules.md); the case language\n"
	     "[case-language.md](case-language.md).\n\n"
	     "*IP* lists the IP versions a rule is judged on (a case runs once per\n"
	     "version of its `ip` header; a rule written `ID ipv4` counts on IPv4 only).\n"
	     "*DUT as* says in which role the cases exercise the DUT: *responder* when the\n"
	     "tester sends it requests (injected or from the tester's engine),\n"
	     "*requester* when it posts sends itself, *device* when the agent's verbs\n"
	     "judge it (an asynchronous event, an SRQ's state, a window's bind, and the\n"
	     "annex's statements with no wire image: the port's attributes, its GID\n"
	     "table and QP types, a multicast attach's MLID).\n\n"
	     "## Summary\n\n"
	     "| | Rules |\n"
	     "|---|---|");
	printf("| In the catalogue | %u |\n", total);
	printf("| Testable on the wire or through the verbs (scope packet, flow, DUT or CM) | %u |\n", wire);
	printf("| ... tested by at least one case | %u |\n", covered);
	printf("| ... of which over IPv4 and IPv6 | %u |\n", both_ips);
	printf("| ... of which with the DUT as responder and as requester | %u |\n", both_dirs);
	printf("| ... of which judged through the verbs alone (DUT as device only) | %u |\n", device_only);
	printf("| ... without a case (flagged below) | %u |\n", wire - covered);
	printf("| Not testable | %u |\n\n", total - wire);
	printf("%zu cases; %u case × fault-profile pairs in their `mutants` headers, each of which the\n"
	       "mutation test (`tester_mutation`) runs against the soft DUT.\n\n",
	       n, pairs);

	puts("## Rules and the cases that test them\n\n"
	     "| Rule | Title | Cases | IP | DUT as |\n"
	     "|---|---|---|---|---|");
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		if (ri->scope == ROCE_SCOPE_NONE)
			continue;
		const struct cov_rule *cr = &cv.rules[r];
		printf("| %s | %s | ", ri->id, ri->title);
		if (!cr->n_uses) {
			puts("**no case** | - | - |");
			continue;
		}
		for (unsigned k = 0; k < cr->n_uses; k++) {
			if (k)
				printf(", ");
			print_link(cases[cr->uses[k].case_index]);
		}
		char dirs[64];
		printf(" | %s | %s |\n", ips_text(cr->ips), dirs_text(cr->dirs, dirs, sizeof dirs));
	}

	puts("\n## Testable rules without a case\n");
	unsigned n_uncovered = 0;
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		if (ri->scope == ROCE_SCOPE_NONE || cv.rules[r].n_uses)
			continue;
		const char *reason = why_not_for(why, n_why, ri->id);
		printf("- **%s** (%s): %s. *%s*\n", ri->id, ri->spec_ref, ri->title, reason ? reason : "No reason recorded.");
		n_uncovered++;
	}
	if (!n_uncovered)
		puts("None.");

	puts("\n## Rules that are not testable\n");
	if (total == wire) {
		puts("None.");
	} else {
		puts("| Rule | Title | Why |\n"
		     "|---|---|---|");
	}
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		if (ri->scope != ROCE_SCOPE_NONE)
			continue;
		printf("| %s | %s | %s |\n", ri->id, ri->title, ri->not_wire_reason ? ri->not_wire_reason : "-");
	}

	puts("\n## Cases\n\n"
	     "| Case | Rules | IP | DUT as | Mutants |\n"
	     "|---|---|---|---|---|");
	for (size_t i = 0; i < n; i++) {
		const struct cl_case *c = cases[i];
		printf("| ");
		print_link(c);
		printf(" | ");
		for (unsigned k = 0; k < c->n_rules; k++) {
			unsigned ri = c->rule_ips[k];
			printf("%s%s%s", k ? ", " : "", c->rules[k],
			       ri == 1u << 4 ? " (IPv4)" : ri == 1u << 6 ? " (IPv6)" : "");
		}
		char dirs[64];
		printf(" | %s | %s | ", ips_text(cv.cases[i].ips), dirs_text(cv.cases[i].dirs, dirs, sizeof dirs));
		for (unsigned k = 0; k < c->n_mutants; k++)
			printf("%s`%s`%s", k ? ", " : "", c->mutants[k], c->mutant_informative[k] ? " (informative)" : "");
		puts(c->n_mutants ? " |" : "**none** |");
	}
	coverage_free(&cv);
out:
	for (unsigned i = 0; i < n_why; i++) {
		free(why[i].id);
		free(why[i].reason);
	}
	for (size_t i = 0; i < n; i++)
		cl_case_free(cases[i]);
	free(cases);
	case_files_free(&files);
	return rc;
}
