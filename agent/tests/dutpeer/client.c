/*
 * dutpeer's agent client: the protocol over TCP (one session per
 * scenario step that asks for one), and the DUT's objects a scenario
 * needs: a connected QP with its CQ and MR, completions, MR contents, the
 * QP's state, counters.
 */
#include "dutpeer.h"
#include "agent_auth.h"
#include "agent_protocol.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

bool agent_connect(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	if (getaddrinfo(P.agent_host, P.agent_port, &hints, &res) != 0)
		return false;
	P.afd = socket(res->ai_family, SOCK_STREAM, 0);
	struct timeval tv = { 70, 0 };
	setsockopt(P.afd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	bool ok = connect(P.afd, res->ai_addr, res->ai_addrlen) == 0;
	freeaddrinfo(res);
	if (!ok)
		return false;
	P.ain = fdopen(P.afd, "r+");
	return P.ain != NULL;
}

void agent_close(void)
{
	if (P.ain)
		fclose(P.ain);
	P.ain = NULL;
	P.afd = -1;
}

/* Sends {"id", "method", "params": <fmt>} and returns the result object, or
 * NULL with P.err_code/err_msg set. The object lives until the next call. */
JsonObject *call(const char *method, const char *fmt, ...)
{
	char params[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(params, sizeof params, fmt, ap);
	va_end(ap);
	fprintf(P.ain, "{\"id\":%u,\"method\":\"%s\",\"params\":%s}\n", ++P.next_id, method, params);
	fflush(P.ain);
	char *line = NULL;
	size_t cap = 0;
	P.err_code[0] = P.err_msg[0] = '\0';
	if (getline(&line, &cap, P.ain) <= 0) {
		snprintf(P.err_code, sizeof P.err_code, "closed");
		free(line);
		return NULL;
	}
	if (P.reply)
		g_object_unref(P.reply);
	P.reply = json_parser_new();
	if (!json_parser_load_from_data(P.reply, line, -1, NULL)) {
		snprintf(P.err_code, sizeof P.err_code, "garbled");
		free(line);
		return NULL;
	}
	free(line);
	JsonObject *o = json_node_get_object(json_parser_get_root(P.reply));
	if (json_object_has_member(o, "error")) {
		JsonObject *e = json_object_get_object_member(o, "error");
		g_strlcpy(P.err_code, json_object_get_string_member(e, "code"), sizeof P.err_code);
		g_strlcpy(P.err_msg, json_object_get_string_member(e, "message"), sizeof P.err_msg);
		fprintf(stderr, "    agent: %s -> %s: %s\n", method, P.err_code, P.err_msg);
		return NULL;
	}
	return json_object_get_object_member(o, "result");
}

int64_t jint(JsonObject *o, const char *m)
{
	return o && json_object_has_member(o, m) ? json_object_get_int_member(o, m) : -1;
}

/* hello and authenticate (docs/agent-protocol.md), the agent's proof
 * checked: dutpeer is a client like the tester. */
bool session_start(void)
{
	agent_close();
	if (!agent_connect())
		return false;
	JsonObject *r = call("hello", "{\"version\":%d}", AP_VERSION);
	uint8_t agent_nonce[AP_AUTH_NONCE_BYTES], my_nonce[AP_AUTH_NONCE_BYTES];
	uint8_t proof[AP_AUTH_PROOF_BYTES], theirs[AP_AUTH_PROOF_BYTES];
	char nonce_text[AP_AUTH_B64_SIZE], proof_text[AP_AUTH_B64_SIZE], why[160];
	if (!r || !json_object_has_member(r, "nonce") ||
	    !ap_auth_decode(json_object_get_string_member(r, "nonce"), agent_nonce)) {
		fprintf(stderr, "    agent: hello gave no nonce\n");
		return false;
	}
	if (!ap_auth_random(my_nonce, sizeof my_nonce, why, sizeof why)) {
		fprintf(stderr, "    dutpeer: %s\n", why);
		return false;
	}
	size_t len = strlen(P.token);
	ap_auth_proof(AP_AUTH_TESTER, P.token, len, AP_VERSION, agent_nonce, my_nonce, proof);
	ap_auth_encode(my_nonce, nonce_text);
	ap_auth_encode(proof, proof_text);
	r = call("authenticate", "{\"nonce\":\"%s\",\"proof\":\"%s\"}", nonce_text, proof_text);
	if (!r)
		return false;
	ap_auth_proof(AP_AUTH_AGENT, P.token, len, AP_VERSION, agent_nonce, my_nonce, proof);
	if (!json_object_has_member(r, "proof") || !ap_auth_decode(json_object_get_string_member(r, "proof"), theirs) ||
	    !ap_auth_same(proof, theirs, sizeof proof)) {
		fprintf(stderr, "    agent: its proof does not match: not the agent with this token\n");
		return false;
	}
	return true;
}

uint64_t counter(const char *name)
{
	JsonObject *r = call("read_counters", "{}");
	if (!r)
		return 0;
	JsonObject *c = json_object_get_object_member(r, "counters");
	return (uint64_t)jint(c, name);
}

/* The peer's GID, as the DUT's address vectors name it. */
const char *peer_gid(void)
{
	static char text[64];
	uint8_t gid[ROCE_GID_LEN];
	roce_gid_from_ip(P.ipv, P.my_ip, gid);
	roce_gid_format(gid, text, sizeof text);
	return text;
}

/* The peer's side of q: addresses, UDP source port, P_Key, DestQP (and,
 * under netns-pair --vlan, the tag: the soft DUT takes only its VLAN's
 * frames and gets them back untagged, the kernel keeping the tag aside). */
void peer_endpoint(struct dq *q)
{
	struct roce_endpoint *ep = &q->ep;
	memset(ep, 0, sizeof *ep);
	ep->ip_version = P.ipv;
	memcpy(ep->src_mac, P.my_mac, 6);
	memcpy(ep->dst_mac, P.dut_mac, 6);
	memcpy(ep->src_ip, P.my_ip, 16);
	memcpy(ep->dst_ip, P.dut_ip, 16);
	ep->hop_limit = 64;
	ep->udp_sport = 0xC123;
	ep->pkey = 0xFFFF;
	ep->dest_qpn = q->qpn;
	const char *vlan = getenv("ROCE_VLAN");
	if (vlan && *vlan) {
		ep->n_vlan = 1;
		ep->vlan_tci[0] = (uint16_t)(atoi(vlan) & 0xFFF);
	}
}

bool dut_qp(struct dq *q, struct dq_opts o)
{
	memset(q, 0, sizeof *q);
	q->type = o.type ? o.type : "RC";
	const char *access = o.access ? o.access : "[\"LOCAL_WRITE\",\"REMOTE_WRITE\",\"REMOTE_READ\",\"REMOTE_ATOMIC\"]";
	const char *state = o.state ? o.state : "RTS";
	int mdra = o.max_dest_rd_atomic >= 0 ? (o.max_dest_rd_atomic ? o.max_dest_rd_atomic : 4) : 0;
	q->mr_len = o.mr_len ? o.mr_len : 65536;
	JsonObject *r;
	REQUIRE(o.same_session || session_start(), "agent session: %.60s %.200s", P.err_code, P.err_msg);
	if (o.pd) {
		q->pd = o.pd;
	} else {
		REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
		q->pd = (int)jint(r, "pd");
	}
	REQUIRE((r = call("create_cq", "{\"cqe\":256}")), "create_cq");
	q->cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":%llu,\"access\":%s}", q->pd,
			  (unsigned long long)q->mr_len, access)), "reg_mr");
	q->mr = (int)jint(r, "mr");
	q->addr = (uint64_t)jint(r, "addr");
	q->rkey = (uint32_t)jint(r, "rkey");
	q->lkey = (uint32_t)jint(r, "lkey");
	char srq[32] = "";
	if (o.srq)
		snprintf(srq, sizeof srq, ",\"srq\":%d", o.srq);
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"%s\",\"send_cq\":%d,\"recv_cq\":%d%s}", q->pd,
			  q->type, q->cq, q->cq, srq)), "create_qp");
	q->qp = (int)jint(r, "qp");
	q->qpn = (uint32_t)jint(r, "qpn");
	q->my_qpn = P.next_qpn++;
	q->epsn = o.epsn ? o.epsn & ROCE_PSN_MASK : 1000 + (q->my_qpn & 0xFF) * 16;
	q->dut_psn = 0xFFFFF0; /* wraps soon: exercises 24-bit arithmetic */
	bool ud = strcmp(q->type, "UD") == 0;
	if (ud)
		REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"INIT\",\"port\":1,\"pkey_index\":0,\"qkey\":%u}",
			     q->qp, 0x11111111u), "INIT");
	else
		REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"INIT\",\"port\":1,\"pkey_index\":0,\"access\":%s}",
			     q->qp, access), "INIT");
	int wqes = o.srq ? 0 : o.recv_wqes ? (o.recv_wqes < 0 ? 0 : o.recv_wqes) : 4;
	for (int i = 0; i < wqes; i++)
		REQUIRE(call("post_recv", "{\"qp\":%d,\"wr_id\":%d,\"sge\":[{\"mr\":%d,\"offset\":%d,\"length\":4096}]}",
			     q->qp, 100 + i, q->mr, 32768 + i * 4096), "post_recv");
	if (strcmp(state, "INIT") != 0) {
		if (ud)
			REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"RTR\"}", q->qp), "RTR");
		else if (strcmp(q->type, "RC") == 0)
			REQUIRE(call("modify_qp",
				     "{\"qp\":%d,\"state\":\"RTR\",\"path_mtu\":%d,\"dest_qpn\":%u,\"rq_psn\":%u,"
				     "\"dgid\":\"%s\",\"sgid_index\":%d,\"hop_limit\":%d,\"traffic_class\":%d,"
				     "\"max_dest_rd_atomic\":%d,\"min_rnr_timer\":%d}",
				     q->qp, PMTU, q->my_qpn, q->epsn, peer_gid(),
				     P.ipv == 4 ? 0 : 1, AV_HOP, AV_TC, mdra, o.min_rnr_timer ? o.min_rnr_timer : 12),
				"RTR");
		else /* UC: no responder resources or RNR timer (verbs refuse them) */
			REQUIRE(call("modify_qp",
				     "{\"qp\":%d,\"state\":\"RTR\",\"path_mtu\":%d,\"dest_qpn\":%u,\"rq_psn\":%u,"
				     "\"dgid\":\"%s\",\"sgid_index\":%d,\"hop_limit\":%d,\"traffic_class\":%d}",
				     q->qp, PMTU, q->my_qpn, q->epsn, peer_gid(),
				     P.ipv == 4 ? 0 : 1, AV_HOP, AV_TC),
				"RTR");
	}
	if (strcmp(state, "RTS") == 0) {
		if (strcmp(q->type, "RC") == 0)
			REQUIRE(call("modify_qp",
				     "{\"qp\":%d,\"state\":\"RTS\",\"sq_psn\":%u,\"timeout\":%d,\"retry_cnt\":%d,"
				     "\"rnr_retry\":%d,\"max_rd_atomic\":%d}",
				     q->qp, q->dut_psn, o.timeout ? o.timeout : 16, o.retry_cnt ? o.retry_cnt : 3,
				     o.rnr_retry ? o.rnr_retry : 3, o.max_rd_atomic ? o.max_rd_atomic : 4),
				"RTS");
		else
			REQUIRE(call("modify_qp", "{\"qp\":%d,\"state\":\"RTS\",\"sq_psn\":%u}", q->qp, q->dut_psn), "RTS");
	}
	peer_endpoint(q);
	return true;
}

/* Polls the DUT's CQ; returns how many completions (first in *w), -1 on error. */
int poll_cq(struct dq *q, int timeout_ms, struct wc *w)
{
	JsonObject *r = call("poll_cq", "{\"cq\":%d,\"max\":16,\"timeout_ms\":%d}", q->cq, timeout_ms);
	if (!r)
		return -1;
	JsonArray *a = json_object_get_array_member(r, "completions");
	int n = (int)json_array_get_length(a);
	if (n && w) {
		JsonObject *c = json_array_get_object_element(a, 0);
		g_strlcpy(w->status, json_object_get_string_member(c, "status"), sizeof w->status);
		g_strlcpy(w->opcode, json_object_get_string_member(c, "opcode"), sizeof w->opcode);
		w->wr_id = (uint64_t)jint(c, "wr_id");
		w->byte_len = (uint32_t)jint(c, "byte_len");
		w->imm = (uint32_t)jint(c, "imm_data");
		w->src_qp = (uint32_t)jint(c, "src_qp");
		w->grh = false;
		JsonArray *fl = json_object_get_array_member(c, "wc_flags");
		for (guint i = 0; i < json_array_get_length(fl); i++)
			if (strcmp(json_array_get_string_element(fl, i), "GRH") == 0)
				w->grh = true;
	}
	return n;
}

bool mr_read(struct dq *q, uint64_t off, size_t len, uint8_t *out)
{
	JsonObject *r = call("read_mr", "{\"mr\":%d,\"offset\":%llu,\"length\":%zu}", q->mr, (unsigned long long)off, len);
	if (!r)
		return false;
	gsize n = 0;
	guchar *b = g_base64_decode(json_object_get_string_member(r, "data"), &n);
	bool ok = n == len;
	if (ok)
		memcpy(out, b, len);
	g_free(b);
	return ok;
}

bool mr_write(struct dq *q, uint64_t off, const uint8_t *data, size_t len)
{
	gchar *b = g_base64_encode(data, len);
	JsonObject *r = call("write_mr", "{\"mr\":%d,\"offset\":%llu,\"data\":\"%s\"}", q->mr, (unsigned long long)off, b);
	g_free(b);
	return r != NULL;
}

const char *qp_state(struct dq *q)
{
	static char s[16];
	JsonObject *r = call("query_qp", "{\"qp\":%d}", q->qp);
	g_strlcpy(s, r ? json_object_get_string_member(r, "state") : "?", sizeof s);
	return s;
}

bool post_send(struct dq *q, const char *op, int wr_id, uint64_t off, uint32_t len, const char *extra)
{
	return call("post_send", "{\"qp\":%d,\"wr_id\":%d,\"opcode\":\"%s\",\"sge\":[{\"mr\":%d,\"offset\":%llu,\"length\":%u}]%s%s}",
		    q->qp, wr_id, op, q->mr, (unsigned long long)off, len, extra ? "," : "", extra ? extra : "") != NULL;
}
