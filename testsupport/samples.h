/*
 * Sample packets shared by the capture generator and the tests: a
 * conforming packet for every opcode, and one packet per finding code that
 * breaks exactly that rule.
 */
#ifndef ROCE_SAMPLES_H
#define ROCE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "roce/roce.h"

#define SAMPLE_FRAME_MAX 9216

/* Fills d with a conforming packet of the given opcode: documentation
 * addresses (198.18.0.0/15, 2001:db8::/32), plausible header values and a
 * deterministic payload of payload_len bytes from pattern (which must hold
 * at least that many bytes). */
void sample_desc(struct roce_desc *d, uint8_t opcode, int ip_version, const uint8_t *pattern,
		 size_t payload_len);

/* Turns an IPv6 sample into the RoCE v1 packet of the same GIDs: a GRH
 * (its traffic class, flow label and hop limit the IPv6 header's) in
 * place of IPv6 and UDP. */
void sample_to_rocev1(struct roce_desc *d);

/* The payload length a conforming packet of this opcode carries when its
 * path MTU is pmtu and the message is `want` bytes long. */
size_t sample_payload_len(uint8_t opcode, unsigned pmtu, size_t want);

/* Fills buf with n deterministic payload bytes. */
void sample_fill_pattern(uint8_t *buf, size_t n);

/* One packet that triggers exactly one finding code. */
struct sample_violation {
	enum roce_code code;
	const char *what;      /* short description for capture comments */
	uint8_t opcode;        /* the packet's opcode before mutation */
	int ip_version;
	size_t payload_len;
	unsigned pmtu;         /* path MTU the check needs, or 0 */
	unsigned check_flags;  /* ROCE_CHK_* the check needs */
	unsigned parse_flags;  /* ROCE_PARSE_* */
	/* Mutation of the description (may be NULL) ... */
	void (*mutate_desc)(struct roce_desc *d);
	/* ... then of the built frame (may be NULL): edits in place, may
	 * shorten *len (and *wirelen for captures cut short). */
	void (*mutate_frame)(uint8_t *frame, size_t *len, size_t *wirelen);
	/* Rewrites the payload before the build (may be NULL): for a MAD. */
	void (*mutate_payload)(uint8_t *payload, size_t len);
};

extern const struct sample_violation sample_violations[];
extern const size_t sample_violation_count;

/* Builds a violation's frame into out (SAMPLE_FRAME_MAX bytes); returns the
 * captured length and sets *wirelen, or returns 0 on a build error. */
size_t sample_violation_frame(const struct sample_violation *v, uint8_t *out, size_t *wirelen);

/* The ICRC test vectors of ../shared/spec/rocev2-rules.md §2.5 (V1-V4):
 * full frames without FCS. */
struct sample_vector {
	const char *name;
	const char *hex;
	uint32_t icrc_wire; /* the ICRC's four wire bytes read big-endian */
};

extern const struct sample_vector sample_vectors[];
extern const size_t sample_vector_count;

/* Decodes hex (whitespace allowed) into out; returns the byte count, or 0
 * on malformed input or overflow. */
size_t sample_unhex(const char *hex, uint8_t *out, size_t cap);

#endif
