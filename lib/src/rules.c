/* The rule catalogue table, generated from rules.def. */
#include "roce/rules.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "textbuf.h"

#define PKT ROCE_SCOPE_PKT
#define FLOW ROCE_SCOPE_FLOW
#define DUT ROCE_SCOPE_DUT
#define CM ROCE_SCOPE_CM
#define NONE ROCE_SCOPE_NONE
#define SENDER ROCE_ROLE_SENDER
#define RECEIVER ROCE_ROLE_RECEIVER
#define REQUESTER ROCE_ROLE_REQUESTER
#define RESPONDER ROCE_ROLE_RESPONDER
#define DEVICE ROCE_ROLE_DEVICE
/* CM is a scope; the role is CM_ROLE. */
#define CM_ROLE ROCE_ROLE_CM

static const struct roce_rule_info rule_table[ROCE_RULE_COUNT] = {
#define ROCE_RULE(SYM, id, sev, scope, binds, strength, title, ref, reason) \
	[ROCE_RULE_##SYM] = { id, title, ROCE_SEV_##sev, (scope), (binds), ROCE_##strength, ref, reason },
#include "roce/rules.def"
#undef ROCE_RULE
};

const struct roce_rule_info *roce_rule(enum roce_rule r)
{
	if (r <= ROCE_RULE_NONE || r >= ROCE_RULE_COUNT)
		return NULL;
	return &rule_table[r];
}

enum roce_rule roce_rule_by_id(const char *id)
{
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++)
		if (!strcmp(rule_table[r].id, id))
			return (enum roce_rule)r;
	return ROCE_RULE_NONE;
}

const char *roce_severity_name(enum roce_severity s)
{
	switch (s) {
	case ROCE_SEV_INFO: return "info";
	case ROCE_SEV_NOTE: return "note";
	case ROCE_SEV_WARN: return "warning";
	case ROCE_SEV_ERROR: return "error";
	}
	return "?";
}

const char *roce_strength_name(enum roce_strength s)
{
	switch (s) {
	case ROCE_MUST: return "must";
	case ROCE_SHOULD: return "should";
	case ROCE_MAY: return "may";
	}
	return "?";
}

static const struct {
	unsigned bit;
	const char *name;
} role_names[] = {
	{ ROCE_ROLE_SENDER, "sender" },       { ROCE_ROLE_RECEIVER, "receiver" },
	{ ROCE_ROLE_REQUESTER, "requester" }, { ROCE_ROLE_RESPONDER, "responder" },
	{ ROCE_ROLE_CM, "CM" },               { ROCE_ROLE_DEVICE, "device" },
};

const char *roce_role_name(unsigned role)
{
	for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
		if (role_names[i].bit == role)
			return role_names[i].name;
	return NULL;
}

unsigned roce_role_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
		if (!strcasecmp(role_names[i].name, name))
			return role_names[i].bit;
	return 0;
}

const char *roce_roles_format(unsigned roles, char *buf, size_t n)
{
	if (!n)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++) {
		if (!(roles & role_names[i].bit))
			continue;
		if (buf[0])
			textbuf_append(buf, n, ", ");
		textbuf_append(buf, n, role_names[i].name);
	}
	if (!buf[0])
		textbuf_append(buf, n, "none");
	return buf;
}

bool roce_rule_binds(const struct roce_rule_info *ri, unsigned roles)
{
	return ri && ri->strength == ROCE_MUST && (ri->binds & roles) != 0;
}
