/*
 * Shared receive queues: two RC QPs take the WQEs of one SRQ in posting
 * order, whichever receives first, and an empty SRQ gets an RNR NAK; an
 * armed limit raises SRQ Limit Reached once and disarms; a QP of an SRQ
 * moved to ERR raises Last WQE Reached.
 */
#include "dutpeer.h"

#include <string.h>

/* A PD, an MR for the receive buffers and an SRQ in a new session. */
struct srq_setup {
	int pd, mr, srq;
};

static bool srq_setup(struct srq_setup *s, unsigned wqes, unsigned limit)
{
	JsonObject *r;
	REQUIRE(session_start(), "agent session: %.60s %.200s", P.err_code, P.err_msg);
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	s->pd = (int)jint(r, "pd");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":65536,\"access\":[\"LOCAL_WRITE\"]}", s->pd)), "reg_mr");
	s->mr = (int)jint(r, "mr");
	REQUIRE((r = call("create_srq", "{\"pd\":%d,\"max_wr\":16,\"max_sge\":2,\"limit\":%u}", s->pd, limit)),
		"create_srq: %s", P.err_msg);
	s->srq = (int)jint(r, "srq");
	for (unsigned i = 0; i < wqes; i++)
		REQUIRE(call("post_srq_recv", "{\"srq\":%d,\"wr_id\":%u,\"sge\":[{\"mr\":%d,\"offset\":%u,\"length\":1024}]}",
			     s->srq, 1 + i, s->mr, i * 1024),
			"post_srq_recv %u: %s", i, P.err_msg);
	return true;
}

/* A SEND Only to q, ACKed; its receive completes with wr_id want. */
static bool send_taken(struct dq *q, unsigned seed, uint64_t want)
{
	struct got g;
	struct wc w;
	tx_req(q, "RC SEND Only", q->epsn, pattern(seed), 100, true);
	if (!expect_ack(q, q->epsn, &g))
		return false;
	q->epsn++;
	REQUIRE(poll_cq(q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no receive completion on QP 0x%x", q->qpn);
	REQUIRE(w.wr_id == want, "QP 0x%x took the SRQ's WQE %llu; posting order gives %llu", q->qpn,
		(unsigned long long)w.wr_id, (unsigned long long)want);
	return true;
}

bool sc_srq_order(void)
{
	struct srq_setup s;
	struct dq a, b;
	if (!srq_setup(&s, 4, 0))
		return false;
	if (!dut_qp(&a, (struct dq_opts){ .same_session = true, .pd = s.pd, .srq = s.srq }) ||
	    !dut_qp(&b, (struct dq_opts){ .same_session = true, .pd = s.pd, .srq = s.srq }))
		return false;
	REQUIRE(!call("post_recv", "{\"qp\":%d,\"wr_id\":9,\"sge\":[]}", a.qp) && !strcmp(P.err_code, "invalid_state"),
		"post_recv on a QP with an SRQ: %s, expected invalid_state", P.err_code);
	REQUIRE(!call("destroy_srq", "{\"srq\":%d}", s.srq) && !strcmp(P.err_code, "invalid_state"),
		"destroy_srq while QPs use it: %s, expected invalid_state", P.err_code);
	/* Whichever QP receives takes the oldest WQE (IBA10-SRQ-ORDER). */
	if (!send_taken(&a, 1, 1) || !send_taken(&b, 2, 2) || !send_taken(&a, 3, 3) || !send_taken(&b, 4, 4))
		return false;
	/* The data went to the WQE taken: WQE 3's buffer, at 2048. */
	struct dq mrq = a;
	mrq.mr = s.mr;
	uint8_t buf[100];
	REQUIRE(mr_read(&mrq, 2048, 100, buf) && memcmp(buf, pattern(3), 100) == 0, "WQE 3's buffer does not hold the third SEND");
	/* Empty: the responder has no WQE, and says so (IBA9.7-RNR). */
	uint64_t empty = counter("srq_empty");
	tx_req(&a, "RC SEND Only", a.epsn, pattern(5), 100, true);
	struct got g;
	if (!expect_aeth(&a, 500, ROCE_SYN_RNR_NAK, 12, a.epsn, &g))
		return false;
	REQUIRE(counter("srq_empty") == empty + 1, "srq_empty did not count the empty SRQ");
	/* A WQE posted now serves the resend. */
	REQUIRE(call("post_srq_recv", "{\"srq\":%d,\"wr_id\":77,\"sge\":[{\"mr\":%d,\"offset\":8192,\"length\":1024}]}", s.srq,
		     s.mr), "post_srq_recv");
	return send_taken(&a, 5, 77);
}

/* The next events (at most 16) within ms; returns how many, the first's
 * type and handle member in *type, *handle. */
static int events(int ms, const char *member, char *type, size_t tn, int64_t *handle)
{
	JsonObject *r = call("get_async_event", "{\"max\":16,\"timeout_ms\":%d}", ms);
	if (!r)
		return -1;
	JsonArray *a = json_object_get_array_member(r, "events");
	int n = (int)json_array_get_length(a);
	g_strlcpy(type, n ? "" : "(none)", tn);
	*handle = -1;
	if (n) {
		JsonObject *e = json_array_get_object_element(a, 0);
		g_strlcpy(type, json_object_get_string_member(e, "type"), tn);
		*handle = jint(e, member);
	}
	return n;
}

bool sc_srq_events(void)
{
	struct srq_setup s;
	struct dq a;
	char type[64] = "";
	int64_t h = -1;
	if (!srq_setup(&s, 4, 0))
		return false;
	if (!dut_qp(&a, (struct dq_opts){ .same_session = true, .pd = s.pd, .srq = s.srq }))
		return false;
	REQUIRE(events(0, "srq", type, sizeof type, &h) == 0, "an event before anything happened: %s", type);
	REQUIRE(call("modify_srq", "{\"srq\":%d,\"limit\":2}", s.srq), "modify_srq: %s", P.err_msg);
	JsonObject *r = call("query_srq", "{\"srq\":%d}", s.srq);
	REQUIRE(r && jint(r, "limit") == 2 && jint(r, "max_wr") >= 16, "query_srq after arming: limit %lld",
		(long long)jint(r, "limit"));
	/* 4 -> 3 -> 2 WQEs: not below the limit yet. */
	if (!send_taken(&a, 1, 1) || !send_taken(&a, 2, 2))
		return false;
	REQUIRE(events(100, "srq", type, sizeof type, &h) == 0, "%s with 2 WQEs left and limit 2", type);
	/* 1 left: below the limit, one event (IBA11-SRQ-LIMIT). */
	if (!send_taken(&a, 3, 3))
		return false;
	REQUIRE(events(500, "srq", type, sizeof type, &h) == 1 && !strcmp(type, "SRQ_LIMIT_REACHED") && h == s.srq,
		"expected one SRQ_LIMIT_REACHED of SRQ %d, got '%s' of %lld", s.srq, type, (long long)h);
	r = call("query_srq", "{\"srq\":%d}", s.srq);
	REQUIRE(r && jint(r, "limit") == 0, "the limit did not disarm: %lld", (long long)jint(r, "limit"));
	/* Disarmed: the next take raises nothing. */
	if (!send_taken(&a, 4, 4))
		return false;
	REQUIRE(events(200, "srq", type, sizeof type, &h) == 0, "a second %s after the limit disarmed", type);
	/* The QP enters ERR: Last WQE Reached (IBA11-SRQ-LAST-WQE). */
	REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"ERR\"}", a.qp), "modify_qp ERR");
	REQUIRE(events(500, "qp", type, sizeof type, &h) == 1 && !strcmp(type, "QP_LAST_WQE_REACHED") && h == a.qp,
		"expected QP_LAST_WQE_REACHED of QP %d, got '%s' of %lld", a.qp, type, (long long)h);
	return true;
}
