/*
 * Codes, findings and the stateless per-packet checks.
 *
 * A code (codes.def) is either a parse error, returned by the parser when
 * the walk cannot go on, or a check finding. Both name a rule of the
 * catalogue. roce_check() turns a parsed packet into findings, without
 * allocating: the caller provides the array.
 */
#ifndef ROCE_CHECK_H
#define ROCE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "roce/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

enum roce_code {
	ROCE_OK = 0,
#define ROCE_ERR(SYM, rule, msg) ROCE_E_##SYM,
#define ROCE_CHK(SYM, rule, sev, msg)
#define ROCE_FLOW(SYM, rule, sev, msg)
#include "roce/codes.def"
#undef ROCE_ERR
#undef ROCE_CHK
#undef ROCE_FLOW
	ROCE_E_END_, /* not a code: parse errors are below it, check findings above */
#define ROCE_ERR(SYM, rule, msg)
#define ROCE_CHK(SYM, rule, sev, msg) ROCE_C_##SYM,
#define ROCE_FLOW(SYM, rule, sev, msg) ROCE_F_##SYM,
#include "roce/codes.def"
#undef ROCE_ERR
#undef ROCE_CHK
#undef ROCE_FLOW
	ROCE_CODE_COUNT
};

/* The flow-analysis findings are the last ROCE_FLOW_CODE_COUNT codes. */
enum {
	ROCE_FLOW_CODE_COUNT = 0
#define ROCE_ERR(SYM, rule, msg)
#define ROCE_CHK(SYM, rule, sev, msg)
#define ROCE_FLOW(SYM, rule, sev, msg) +1
#include "roce/codes.def"
#undef ROCE_ERR
#undef ROCE_CHK
#undef ROCE_FLOW
};

/* A finding of the per-QP flow analysis (roce/flow.h), not of roce_check(). */
static inline int roce_code_is_flow(enum roce_code c)
{
	return c >= ROCE_CODE_COUNT - ROCE_FLOW_CODE_COUNT && c < ROCE_CODE_COUNT;
}

static inline int roce_code_is_parse_error(enum roce_code c)
{
	return c > ROCE_OK && c < ROCE_E_END_;
}

struct roce_code_info {
	const char *name; /* "E_TRUNC_ETH", "C_IPV4_DF" */
	enum roce_rule rule;
	enum roce_severity severity;
	const char *fmt; /* printf format taking (observed, expected) */
};

const struct roce_code_info *roce_code_info(enum roce_code c);

/* One thing wrong with a packet. off/len locate the bytes concerned in the
 * parsed buffer, for highlighting. */
struct roce_finding {
	enum roce_code code;
	uint32_t off;
	uint32_t len;
	uint64_t observed;
	uint64_t expected;
};

/* Writes "<rule ID>: <message>" (or just the message for a code with no
 * rule) into buf; returns what snprintf returns. */
int roce_finding_format(const struct roce_finding *f, char *buf, size_t n);
/* Only the message, without the rule ID. */
int roce_finding_message(const struct roce_finding *f, char *buf, size_t n);

/* Which of a code's arguments are frame numbers: those its message names
 * as "frame %llu", another packet as the caller numbered it for the flow
 * analysis (struct roce_flow_input.frame). Bit ROCE_ARG_OBSERVED and bit
 * ROCE_ARG_EXPECTED; 0 for most codes. */
#define ROCE_ARG_OBSERVED 0x1u
#define ROCE_ARG_EXPECTED 0x2u
unsigned roce_code_frame_args(enum roce_code c);

/* The message with its frame numbers said in the reader's numbering: map
 * turns each frame number the analysis was given into the one the reader
 * sees (a capture written later, in another order, by another count). A
 * caller that gives the analysis its readers' frame numbers needs only
 * roce_finding_message. */
typedef uint64_t (*roce_frame_map)(void *ctx, uint64_t frame);
int roce_finding_message_frames(const struct roce_finding *f, roce_frame_map map, void *ctx, char *buf, size_t n);

#define ROCE_CHK_ICRC 0x1u   /* verify the ICRC (needs the IP layer) */
#define ROCE_CHK_SENDER 0x2u /* packet seen as its source sent it: CE marks are a violation */
#define ROCE_CHK_NOTES 0x4u  /* also report NOTE-severity findings */

struct roce_check_opts {
	unsigned flags; /* ROCE_CHK_* */
	unsigned pmtu;  /* path MTU in bytes, or 0 when unknown */
};

struct roce_pkt;

/* Runs every stateless check that applies to the layers the parser reached.
 * A parse error, if any, comes first. Writes at most max findings and
 * returns how many there were in all (which may exceed max). */
size_t roce_check(const struct roce_pkt *p, const struct roce_check_opts *opts,
		  struct roce_finding *out, size_t max);

/* What the packet itself adds to a finding's message, for every front end
 * alike: for a bad ICRC, the combination of implementation mistakes that
 * explains it; for the parse error of a packet whose ICRC could still be
 * checked, what the ICRC says (good: the sender built it this way; bad as
 * a known mistake makes it: the same; bad otherwise: damaged on the way).
 * Writes " (...)" or "". Returns what snprintf returns. */
int roce_finding_context(const struct roce_pkt *p, const struct roce_finding *f, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
