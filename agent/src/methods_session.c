/*
 * The session methods: hello (version, token, who answers) and bye.
 */
#include "methods.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static bool tokens_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	/* Constant time in the secret's length. */
	unsigned char d = (unsigned char)(alen != blen);
	for (size_t i = 0; i < alen; i++)
		d |= (unsigned char)(a[i] ^ (i < blen ? b[i] : 0));
	return d == 0;
}

void method_hello(struct req *r)
{
	struct session *s = r->s;
	uint64_t version;
	const char *token;
	if (!param_u64(r, "version", true, 0, G_MAXUINT32, &version))
		return;
	if (version != AGENT_PROTOCOL_VERSION) {
		req_fail(r, AE_VERSION_MISMATCH, "params.version: the agent speaks version %d, not %llu",
			 AGENT_PROTOCOL_VERSION, (unsigned long long)version);
		return;
	}
	if (!(token = param_string(r, "token", true)))
		return;
	if (!tokens_equal(s->agent->token, s->agent->token_len, token, strlen(token))) {
		s->auth_failures++;
		req_fail(r, AE_UNAUTHENTICATED, "params.token: wrong token%s",
			 s->auth_failures >= AGENT_MAX_AUTH_FAILURES ? "; closing the connection" : "");
		if (s->auth_failures >= AGENT_MAX_AUTH_FAILURES)
			r->close_after = true;
		return;
	}
	s->authenticated = true;
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

void method_bye(struct req *r)
{
	/* Everything is gone before the reply: a tester that opens the next
	 * session at once finds the device free (an rdma_cm port released). */
	session_cleanup(r->s);
	r->close_after = true;
}
