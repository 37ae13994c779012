/*
 * The rule catalogue (rules.def): stable IDs, titles, severities, whom
 * each rule binds and how strongly, and spec references for every rule the
 * plugin flags and the tester judges.
 */
#ifndef ROCE_RULES_H
#define ROCE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum roce_rule {
	ROCE_RULE_NONE = 0,
#define ROCE_RULE(SYM, id, sev, scope, binds, strength, title, ref, reason) ROCE_RULE_##SYM,
#include "roce/rules.def"
#undef ROCE_RULE
	ROCE_RULE_COUNT
};

enum roce_severity {
	ROCE_SEV_INFO,  /* informative: conforming devices may differ */
	ROCE_SEV_NOTE,  /* a recommendation ("should") */
	ROCE_SEV_WARN,  /* a "should", or a reserved field sent non-zero */
	ROCE_SEV_ERROR, /* a "must" */
};

/* Where a violation of the rule can be observed. */
#define ROCE_SCOPE_PKT 0x01u  /* one packet on its own */
#define ROCE_SCOPE_FLOW 0x02u /* a packet in its QP's context */
#define ROCE_SCOPE_DUT 0x04u  /* a provoked device behaviour */
#define ROCE_SCOPE_CM 0x08u   /* connection-manager MADs */
#define ROCE_SCOPE_NONE 0x00u /* not on the wire */

/* Whom a rule binds: the roles a device plays that make the rule its to
 * keep (rules.def says more). A device plays several at once: the
 * responder that answers a request is its receiver and its answer's
 * sender. */
#define ROCE_ROLE_SENDER 0x01u
#define ROCE_ROLE_RECEIVER 0x02u
#define ROCE_ROLE_REQUESTER 0x04u
#define ROCE_ROLE_RESPONDER 0x08u
#define ROCE_ROLE_CM 0x10u
#define ROCE_ROLE_DEVICE 0x20u
#define ROCE_ROLE_ALL 0x3Fu

/* The spec's word for the rule. */
enum roce_strength {
	ROCE_MUST,   /* shall, must */
	ROCE_SHOULD, /* should, is recommended */
	ROCE_MAY,    /* may: optional behaviour */
};

struct roce_rule_info {
	const char *id;    /* "CA17-7" */
	const char *title; /* one line */
	enum roce_severity severity;
	unsigned scope; /* ROCE_SCOPE_* */
	unsigned binds; /* ROCE_ROLE_* */
	enum roce_strength strength;
	const char *spec_ref;
	const char *not_wire_reason; /* NULL unless scope is ROCE_SCOPE_NONE */
};

/* NULL for ROCE_RULE_NONE or an out-of-range value. */
const struct roce_rule_info *roce_rule(enum roce_rule r);
/* Looks a rule up by its ID ("CA17-7"); ROCE_RULE_NONE if unknown. */
enum roce_rule roce_rule_by_id(const char *id);
const char *roce_severity_name(enum roce_severity s);
/* "must", "should", "may". */
const char *roce_strength_name(enum roce_strength s);
/* A role's name ("sender", "CM"), for one ROCE_ROLE_* bit; NULL otherwise. */
const char *roce_role_name(unsigned role);
/* The ROCE_ROLE_* bit of a role's name (any case), 0 if none. */
unsigned roce_role_by_name(const char *name);
/* "sender, receiver": the roles named, cut where buf ends (64 bytes hold
 * every role); "none" for no role. Returns buf. */
const char *roce_roles_format(unsigned roles, char *buf, size_t n);
/* Whether a device that breaks rule r while playing `roles` fails: the
 * rule is a "must" and binds one of those roles. Anything else (a
 * "should", a sender's rule broken by what a receiver accepts) is
 * reported, not judged. */
bool roce_rule_binds(const struct roce_rule_info *ri, unsigned roles);

/* Where a rule can be seen, in words ("packet, flow"; "not on the wire").
 * Returns what snprintf returns. */
int roce_rule_scope_text(unsigned scope, char *buf, size_t n);
/* The codes of codes.def that report rule r, comma-separated ("" when
 * none). Returns the length written. */
size_t roce_rule_codes_text(enum roce_rule r, char *buf, size_t n);
/* The catalogue as the Markdown of docs/rules.md. */
void roce_rules_markdown(FILE *out);

#ifdef __cplusplus
}
#endif

#endif
