/*
 * The session methods: hello (the version and the agent's nonce),
 * authenticate (the proofs both ways, who answers) and bye.
 */
#include "methods.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* hello: the version, then the agent's nonce for this connection. Nothing
 * else: who the agent is and what it drives is for authenticated testers. */
void method_hello(struct req *r)
{
	struct session *s = r->s;
	uint64_t version;
	/* The version first, whatever else the request holds: a tester of
	 * another version learns both versions, and an older one that sends
	 * its token gets no further. */
	if (!param_u64(r, "version", true, 0, G_MAXUINT32, &version))
		return;
	if (version != AGENT_PROTOCOL_VERSION) {
		req_fail(r, AE_VERSION_MISMATCH,
			 "params.version: the agent speaks protocol version %d, not %llu; update the %s",
			 AGENT_PROTOCOL_VERSION, (unsigned long long)version,
			 version < AGENT_PROTOCOL_VERSION ? "tester" : "agent");
		return;
	}
	if (!s->nonce_drawn) {
		req_fail(r, AE_DEVICE_ERROR, "the agent could not draw a random nonce for this connection");
		return;
	}
	char nonce[AP_AUTH_B64_SIZE];
	ap_auth_encode(s->nonce, nonce);
	s->greeted = true;
	result_int(r, "version", AGENT_PROTOCOL_VERSION);
	result_str(r, "nonce", nonce);
}

static void describe_agent(struct req *r)
{
	struct session *s = r->s;
	struct be_device_attr da;
	struct be_error err = { 0 };
	if (OPS(r)->query_device(BE(s), &da, &err))
		g_strlcpy(da.name, "?", sizeof da.name);
	result_int(r, "version", AGENT_PROTOCOL_VERSION);
	result_str(r, "agent", "roce-agent " ROCE_AGENT_VERSION);
	result_str(r, "backend", s->agent->factory->name);
	result_str(r, "device", da.name);
	result_str(r, "fault", s->agent->factory->fault_name ? s->agent->factory->fault_name(BE(s)) : NULL);
	const struct agent_hostile_info *hi = agent_hostile_info(s->agent->hostile);
	result_str(r, "hostile", hi ? hi->name : NULL);
	/* The DUT host's OS, whose RDMA stack sits between the verbs and the
	 * device (reports name it when it, not the device, did something). */
	struct utsname u;
	if (uname(&u) == 0) {
		char host[3 * sizeof u.release];
		snprintf(host, sizeof host, "%s %s %s", u.sysname, u.release, u.machine);
		result_str(r, "host", host);
	}
}

/* authenticate: the tester's nonce and proof; the agent's proof back,
 * with who it is. A wrong proof learns the tester nothing: one message
 * for every mismatch, the same work before it, and no proof of the
 * agent's until the tester has proven itself. */
void method_authenticate(struct req *r)
{
	struct session *s = r->s;
	struct agent *a = s->agent;
	if (!s->greeted) {
		req_fail(r, AE_UNAUTHENTICATED, "authenticate: say hello first (its reply holds the agent's nonce)");
		return;
	}
	if (s->authenticated) {
		req_fail(r, AE_INVALID_STATE, "authenticate: the session is authenticated already");
		return;
	}
	const char *nonce_text, *proof_text;
	uint8_t tester_nonce[AP_AUTH_NONCE_BYTES], proof[AP_AUTH_PROOF_BYTES];
	if (!(nonce_text = param_string(r, "nonce", true)) || !(proof_text = param_string(r, "proof", true)))
		return;
	if (!ap_auth_decode(nonce_text, tester_nonce)) {
		req_fail(r, AE_BAD_REQUEST, "params.nonce: must be %d bytes in base64 (RFC 4648, with padding)",
			 AP_AUTH_NONCE_BYTES);
		return;
	}
	if (ap_auth_same(tester_nonce, s->nonce, sizeof tester_nonce)) {
		req_fail(r, AE_BAD_REQUEST, "params.nonce: the agent's own nonce; the tester draws its own");
		return;
	}
	if (!ap_auth_decode(proof_text, proof)) {
		req_fail(r, AE_BAD_REQUEST, "params.proof: must be %d bytes in base64 (RFC 4648, with padding)",
			 AP_AUTH_PROOF_BYTES);
		return;
	}
	uint8_t expected[AP_AUTH_PROOF_BYTES];
	ap_auth_proof(AP_AUTH_TESTER, a->token, a->token_len, AGENT_PROTOCOL_VERSION, s->nonce, tester_nonce, expected);
	bool match = ap_auth_same(expected, proof, sizeof proof);
	explicit_bzero(expected, sizeof expected);
	if (!match) {
		s->auth_failures++;
		req_fail(r, AE_UNAUTHENTICATED, "authenticate: the proof does not match the agent's token%s",
			 s->auth_failures >= AGENT_MAX_AUTH_FAILURES ? "; closing the connection" : "");
		if (s->auth_failures >= AGENT_MAX_AUTH_FAILURES)
			r->close_after = true;
		return;
	}
	s->authenticated = true;
	uint8_t mine[AP_AUTH_PROOF_BYTES];
	char mine_text[AP_AUTH_B64_SIZE];
	ap_auth_proof(AP_AUTH_AGENT, a->token, a->token_len, AGENT_PROTOCOL_VERSION, s->nonce, tester_nonce, mine);
	ap_auth_encode(mine, mine_text);
	result_str(r, "proof", mine_text);
	describe_agent(r);
}

void method_bye(struct req *r)
{
	/* Everything is gone before the reply: a tester that opens the next
	 * session at once finds the device free (an rdma_cm port released). */
	session_cleanup(r->s);
	r->close_after = true;
}
