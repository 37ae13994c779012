/*
 * Every finding code has a violating packet that raises it, and the
 * conforming packet it was made from raises nothing at warning level or
 * above. Also: every stateless (PKT-scope) rule is checked by some code, and
 * every code is exercised by some violation.
 */
#include <string.h>

#include "samples.h"
#include "testutil.h"

static size_t findings(const uint8_t *frame, size_t n, size_t wirelen, unsigned pflags,
		       unsigned cflags, unsigned pmtu, struct roce_finding *f, size_t max)
{
	struct roce_pkt p;
	roce_parse_frame(&p, frame, n, wirelen, pflags);
	struct roce_check_opts o = { cflags | ROCE_CHK_ICRC, pmtu };
	return roce_check(&p, &o, f, max);
}

/* Whether any finding of f[0..n) breaks rule r. */
static bool breaks(const struct roce_finding *f, size_t n, enum roce_rule r)
{
	for (size_t k = 0; k < n; k++)
		if (roce_code_info(f[k].code)->rule == r)
			return true;
	return false;
}

/* An XRC READ response First or Middle with an XRCETH after its BTH is
 * the path MTU plus 4 bytes long: one deviation, A14-XRC-RESP's, not a
 * length one (IBA9.7-LEN), with the path MTU known or guessed. A length
 * that is not the path MTU plus an XRCETH, or an RC READ response, is a
 * length deviation as before. */
static void xrc_read_resp_xrceth(void)
{
	static const struct {
		uint8_t opcode;
		size_t len;
		unsigned pmtu;
		bool xrceth; /* else a length deviation */
	} c[] = {
		{ ROCE_OP_XRC_READ_RESPONSE_FIRST, 1028, 1024, true },
		{ ROCE_OP_XRC_READ_RESPONSE_MIDDLE, 1028, 1024, true },
		{ ROCE_OP_XRC_READ_RESPONSE_FIRST, 260, 0, true },
		{ ROCE_OP_XRC_READ_RESPONSE_MIDDLE, 4100, 0, true },
		{ ROCE_OP_XRC_READ_RESPONSE_FIRST, 1020, 1024, false },
		{ ROCE_OP_XRC_READ_RESPONSE_MIDDLE, 516, 1024, false },
		{ ROCE_OP_XRC_READ_RESPONSE_FIRST, 300, 0, false },
		{ ROCE_OP_RC_READ_RESPONSE_FIRST, 1028, 1024, false },
		{ ROCE_OP_RC_READ_RESPONSE_MIDDLE, 260, 0, false },
	};
	uint8_t frame[SAMPLE_FRAME_MAX], payload[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct roce_desc d;
		sample_desc(&d, c[i].opcode, 4, payload, c[i].len);
		long n = roce_build_frame(&d, frame, sizeof frame);
		CHECK(n > 0, "case %zu: build failed", i);
		struct roce_finding f[32];
		size_t nf = findings(frame, (size_t)n, (size_t)n, 0, 0, c[i].pmtu, f, 32);
		if (nf > 32)
			nf = 32;
		bool xrc = breaks(f, nf, ROCE_RULE_XRC_RESP), len = breaks(f, nf, ROCE_RULE_IBA_LEN);
		CHECK(xrc == c[i].xrceth && len == !c[i].xrceth && nf == 1,
		      "case %zu: opcode 0x%02x, %zu bytes at PMTU %u: %zu findings, A14-XRC-RESP %d, IBA9.7-LEN %d", i,
		      c[i].opcode, c[i].len, c[i].pmtu, nf, xrc, len);
	}
}

static uint64_t plus_1000(void *ctx, uint64_t frame)
{
	(void)ctx;
	return frame + 1000;
}

/* A frame a message names ("frame %llu") is said in the caller's
 * numbering; no other number changes. */
static void frame_numbers(void)
{
	CHECK(roce_code_frame_args(ROCE_F_RKEY_INV_EXECUTED) == ROCE_ARG_EXPECTED, "RKEY_INV_EXECUTED names a frame");
	CHECK(roce_code_frame_args(ROCE_E_TRUNC_ETH) == 0, "'frame of %%llu bytes' is no frame number");
	CHECK(roce_code_frame_args(ROCE_C_PAYLOAD_NOT_PMTU) == 0, "PAYLOAD_NOT_PMTU names no frame");
	for (unsigned c = ROCE_OK + 1; c < ROCE_CODE_COUNT; c++) {
		if (c == ROCE_E_END_)
			continue;
		struct roce_finding f = { (enum roce_code)c, 0, 0, 7, 9 };
		char plain[400], said[400], want[400];
		roce_finding_message(&f, plain, sizeof plain);
		roce_finding_message_frames(&f, plus_1000, NULL, said, sizeof said);
		unsigned args = roce_code_frame_args(f.code);
		struct roce_finding g = { f.code, 0, 0, args & ROCE_ARG_OBSERVED ? 1007 : 7, args & ROCE_ARG_EXPECTED ? 1009 : 9 };
		roce_finding_message(&g, want, sizeof want);
		CHECK(!strcmp(said, want), "%s: '%s', not '%s'", roce_code_info(f.code)->name, said, want);
		CHECK(!args || (strstr(said, "frame 100") && strcmp(said, plain)), "%s: frame numbers not mapped: '%s'",
		      roce_code_info(f.code)->name, said);
		CHECK(args || !strcmp(said, plain), "%s: changed without a frame number", roce_code_info(f.code)->name);
	}
}

int main(void)
{
	xrc_read_resp_xrceth();
	frame_numbers();

	uint8_t frame[SAMPLE_FRAME_MAX], payload[SAMPLE_FRAME_MAX];
	sample_fill_pattern(payload, sizeof payload);
	bool exercised[ROCE_CODE_COUNT] = { false };

	for (size_t i = 0; i < sample_violation_count; i++) {
		const struct sample_violation *v = &sample_violations[i];
		const char *name = roce_code_info(v->code)->name;
		struct roce_finding f[32];

		/* The conforming original, checked the same way. */
		struct roce_desc d;
		sample_desc(&d, v->opcode, v->ip_version, payload,
			    sample_payload_len(v->opcode, v->pmtu, v->payload_len));
		long n = roce_build_frame(&d, frame, sizeof frame);
		CHECK(n > 0, "%s: conforming build failed", name);
		size_t nf = findings(frame, (size_t)n, (size_t)n, v->parse_flags, v->check_flags, v->pmtu, f, 32);
		for (size_t k = 0; k < nf && k < 32; k++) {
			char msg[256];
			roce_finding_format(&f[k], msg, sizeof msg);
			CHECK(roce_code_info(f[k].code)->severity < ROCE_SEV_WARN,
			      "%s: conforming packet raised %s", name, msg);
		}

		/* The violation. */
		size_t wirelen, len = sample_violation_frame(v, frame, &wirelen);
		CHECK(len > 0, "%s: violation build failed", name);
		nf = findings(frame, len, wirelen, v->parse_flags, v->check_flags, v->pmtu, f, 32);
		bool hit = false;
		for (size_t k = 0; k < nf && k < 32; k++)
			hit |= f[k].code == v->code;
		CHECK(hit, "%s (%s): not raised (%zu other findings)", name, v->what, nf);
		exercised[v->code] = true;

		/* And its message names the rule. */
		if (hit) {
			struct roce_finding one = { v->code, 0, 0, 1, 2 };
			char msg[256];
			roce_finding_format(&one, msg, sizeof msg);
			const struct roce_rule_info *r = roce_rule(roce_code_info(v->code)->rule);
			CHECK(!r || !strncmp(msg, r->id, strlen(r->id)), "%s: message '%s'", name, msg);
		}
	}

	/* Flow-analysis codes need a packet's context; test_flow covers them. */
	for (unsigned c = ROCE_OK + 1; c < ROCE_CODE_COUNT; c++) {
		if (c == ROCE_E_END_ || roce_code_is_flow((enum roce_code)c))
			continue;
		CHECK(exercised[c], "code %s has no violating sample", roce_code_info((enum roce_code)c)->name);
	}

	/* Every rule that a single packet can show is checked by some code. */
	for (unsigned r = ROCE_RULE_NONE + 1; r < ROCE_RULE_COUNT; r++) {
		const struct roce_rule_info *ri = roce_rule((enum roce_rule)r);
		if (!(ri->scope & ROCE_SCOPE_PKT))
			continue;
		bool covered = false;
		for (unsigned c = ROCE_OK + 1; c < ROCE_CODE_COUNT; c++)
			covered |= c != ROCE_E_END_ && roce_code_info((enum roce_code)c)->rule == (enum roce_rule)r;
		CHECK(covered, "PKT rule %s has no check", ri->id);
	}
	return test_result("test_checks");
}
