/*
 * Coverage of the rule catalogue by a set of parsed cases: for every rule,
 * the cases that test it, over which IP versions and in which role of the
 * DUT (responder: the tester sends it requests; requester: it posts sends
 * itself; device: the verbs alone judge it, its port, GID table and QP
 * types). Read from the cases alone, through the case parser.
 */
#ifndef ROCE_TESTER_COVERAGE_H
#define ROCE_TESTER_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "caselang.h"
#include "roce/roce.h"

#define COV_RESPONDER 0x1u
#define COV_REQUESTER 0x2u
#define COV_DEVICE 0x4u

/* What one case covers, whatever the rule. */
struct cov_case {
	const struct cl_case *c;
	unsigned ips;  /* IP versions its QPs run over (bits 1<<4, 1<<6) */
	unsigned dirs; /* COV_* roles of the DUT it exercises */
};

/* One case's part in one rule. */
struct cov_use {
	unsigned case_index;
	unsigned ips; /* the case's IP versions the rule is judged on */
};

struct cov_rule {
	struct cov_use *uses;
	unsigned n_uses;
	unsigned ips, dirs; /* unions over the uses */
};

struct coverage {
	struct cov_case *cases;
	size_t n_cases;
	struct cov_rule rules[ROCE_RULE_COUNT];
};

void coverage_build(struct coverage *cv, struct cl_case *const *cases, size_t n);
void coverage_free(struct coverage *cv);
/* The roles a case exercises, from its steps. */
unsigned coverage_case_dirs(const struct cl_case *c);
/* The IP versions a case's QPs run over: its 'ip' header and the
 * versions its QPs pin with ip=. */
unsigned coverage_case_ips(const struct cl_case *c);

#endif
