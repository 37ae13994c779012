/*
 * dutpeer: the soft DUT's smoke test, one scenario per path of its own:
 * the responder's SEND, WRITE, READ, atomics, SEND with Invalidate and UD
 * receive, its states after a NAK and its silent drops (with their
 * counters), the requester's RC, UC and UD sends, READs and atomics, the
 * connection manager, random frames, and the CNPs of congestion
 * management. Whether the soft DUT conforms rule by rule is what the
 * conformance suite shows against it (tester_e2e_soft_dut, and
 * tester_mutation for its fault profiles); dutpeer checks what no case
 * can: the device's own paths, counters and robustness.
 *
 * It sets QPs up on the DUT through the agent protocol, injects packets
 * built with libroce on a raw socket, and checks what the DUT sends back
 * (and what it does not), packetdrill-style.
 *
 * Every packet the DUT sends is also checked on its own (libroce's
 * stateless checks, ICRC, the address vector's DSCP and hop limit, ECN,
 * source address, constant UDP source port); a violation fails the
 * pseudo-scenario "tx-format".
 *
 *   dutpeer [--ip 4|6] [--rcm] [--only S1,S2] [--fault NAME [--tolerate-format]] [--list]
 *   dutpeer --agent-args-for NAME | --rcm-agent-args | --faults
 *
 * With --fault NAME it runs the scenarios that detect that fault profile
 * (the two profiles no case can show failing: sport-varies breaks a
 * "should", cnp-no-pacing an informative rule) plus a sanity scenario, and
 * succeeds only if exactly the detecting ones fail; for any other profile
 * it runs the sanity scenario alone (the cases that name the profile show
 * it failing, in tester_mutation). Environment: what scripts/netns-pair
 * exports.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <json-glib/json-glib.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "roce/roce.h"
#include "text.h"

/* ---- The peer ---- */

struct peer {
	int ipv;
	bool rcm;
	int raw, udp4, udp6;
	uint8_t my_mac[6], dut_mac[6];
	uint8_t my_ip[16], dut_ip[16];
	char dut_gid[64];
	char agent_host[NI_MAXHOST], agent_port[NI_MAXSERV];
	char *token;
	/* agent connection */
	int afd;
	FILE *ain;
	unsigned next_id;
	JsonParser *reply;
	char err_code[64], err_msg[512];
	uint32_t next_qpn;
	/* tx-format tracking */
	unsigned violations;
	uint32_t sport_qpn[64];
	uint16_t sport[64];
	unsigned n_sport;
	uint8_t frame[16384];
};

static struct peer P;

#define AV_TC (26 << 2) /* DSCP 26, ECN left to the DUT */
#define AV_HOP 33
#define PMTU 1024

static const char *cur_scenario = "";
static char fail_msg[512];

#define REQUIRE(cond, ...)                                                              \
	do {                                                                            \
		if (!(cond)) {                                                          \
			text_printf(fail_msg, sizeof fail_msg, __VA_ARGS__);            \
			fprintf(stderr, "  %s: %s:%d: %s\n", cur_scenario, __FILE__, __LINE__, fail_msg); \
			return false;                                                   \
		}                                                                       \
	} while (0)

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* ---- Agent protocol ---- */

static bool agent_connect(void)
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

static void agent_close(void)
{
	if (P.ain)
		fclose(P.ain);
	P.ain = NULL;
	P.afd = -1;
}

/* Sends {"id", "method", "params": <fmt>} and returns the result object, or
 * NULL with P.err_code/err_msg set. The object lives until the next call. */
static JsonObject *call(const char *method, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static JsonObject *call(const char *method, const char *fmt, ...)
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

static int64_t jint(JsonObject *o, const char *m)
{
	return o && json_object_has_member(o, m) ? json_object_get_int_member(o, m) : -1;
}

static bool session_start(void)
{
	agent_close();
	if (!agent_connect())
		return false;
	return call("hello", "{\"version\":1,\"token\":\"%s\"}", P.token) != NULL;
}

static uint64_t counter(const char *name)
{
	JsonObject *r = call("read_counters", "{}");
	if (!r)
		return 0;
	JsonObject *c = json_object_get_object_member(r, "counters");
	return (uint64_t)jint(c, name);
}

/* ---- A QP on the DUT and the peer's side of it ---- */

struct dq {
	int pd, cq, mr, qp;
	uint32_t qpn;      /* DUT QP */
	uint32_t my_qpn;   /* the peer's QP */
	uint64_t addr;     /* MR */
	uint32_t rkey, lkey;
	uint64_t mr_len;
	uint32_t epsn;     /* what the DUT expects from us */
	uint32_t dut_psn;  /* what the DUT sends from */
	unsigned msn;
	struct roce_endpoint ep; /* peer -> DUT */
	const char *type;
};

struct dq_opts {
	const char *type;         /* "RC" (default), "UC", "UD" */
	const char *access;       /* JSON list */
	int max_dest_rd_atomic;   /* default 4 */
	int max_rd_atomic;        /* default 4 */
	int min_rnr_timer;        /* default 12 */
	int timeout;              /* default 16 (268 ms): far above scheduling delays on a loaded host */
	int retry_cnt, rnr_retry; /* default 3, 3 */
	const char *state;        /* target state, default RTS */
	uint64_t mr_len;          /* default 65536 */
	int recv_wqes;            /* receive WQEs to post (default 4, 4096 bytes each) */
	bool same_session;        /* in the session of the QP made before (default: a new one) */
	uint32_t epsn;            /* the DUT's expected PSN; 0: a default well away from the wrap */
};

/* The peer's GID, as the DUT's address vectors name it. */
static const char *peer_gid(void)
{
	static char text[64];
	uint8_t gid[ROCE_GID_LEN];
	roce_gid_from_ip(P.ipv, P.my_ip, gid);
	roce_gid_format(gid, text, sizeof text);
	return text;
}

static bool dut_qp(struct dq *q, struct dq_opts o)
{
	memset(q, 0, sizeof *q);
	q->type = o.type ? o.type : "RC";
	const char *access = o.access ? o.access : "[\"LOCAL_WRITE\",\"REMOTE_WRITE\",\"REMOTE_READ\",\"REMOTE_ATOMIC\"]";
	const char *state = o.state ? o.state : "RTS";
	int mdra = o.max_dest_rd_atomic >= 0 ? (o.max_dest_rd_atomic ? o.max_dest_rd_atomic : 4) : 0;
	q->mr_len = o.mr_len ? o.mr_len : 65536;
	JsonObject *r;
	REQUIRE(o.same_session || session_start(), "agent session: %.60s %.200s", P.err_code, P.err_msg);
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	q->pd = (int)jint(r, "pd");
	REQUIRE((r = call("create_cq", "{\"cqe\":256}")), "create_cq");
	q->cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":%llu,\"access\":%s}", q->pd,
			  (unsigned long long)q->mr_len, access)), "reg_mr");
	q->mr = (int)jint(r, "mr");
	q->addr = (uint64_t)jint(r, "addr");
	q->rkey = (uint32_t)jint(r, "rkey");
	q->lkey = (uint32_t)jint(r, "lkey");
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"%s\",\"send_cq\":%d,\"recv_cq\":%d}", q->pd,
			  q->type, q->cq, q->cq)), "create_qp");
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
	int wqes = o.recv_wqes ? (o.recv_wqes < 0 ? 0 : o.recv_wqes) : 4;
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
	/* netns-pair --vlan: the soft DUT takes only its VLAN's frames (it
	 * gets them back untagged: the kernel keeps the tag aside). */
	const char *vlan = getenv("ROCE_VLAN");
	if (vlan && *vlan) {
		ep->n_vlan = 1;
		ep->vlan_tci[0] = (uint16_t)(atoi(vlan) & 0xFFF);
	}
	return true;
}

/* ---- Packets ---- */

static void desc(struct dq *q, struct roce_desc *d, const char *opname, uint32_t psn)
{
	int op = roce_opcode_by_name(opname);
	if (op < 0) {
		fprintf(stderr, "dutpeer: no opcode '%s'\n", opname);
		exit(2);
	}
	roce_endpoint_desc(&q->ep, d, (uint8_t)op, psn & ROCE_PSN_MASK);
}

static void tx(struct roce_desc *d)
{
	uint8_t buf[9216];
	long n = roce_build_frame(d, buf, sizeof buf);
	if (n <= 0) {
		fprintf(stderr, "dutpeer: cannot build a frame (%ld)\n", n);
		exit(2);
	}
	if (send(P.raw, buf, (size_t)n, 0) != n)
		fprintf(stderr, "dutpeer: send: %s\n", strerror(errno));
}

/* A raw frame as built, for tests that then break it by hand. */
static long build(struct roce_desc *d, uint8_t *buf, size_t cap)
{
	return roce_build_frame(d, buf, cap);
}

static void tx_raw(const uint8_t *buf, size_t n)
{
	if (send(P.raw, buf, n, 0) != (ssize_t)n)
		fprintf(stderr, "dutpeer: send: %s\n", strerror(errno));
}

static uint8_t pattern_buf[8192];

static const uint8_t *pattern(unsigned seed)
{
	for (unsigned i = 0; i < sizeof pattern_buf; i++)
		pattern_buf[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
	return pattern_buf;
}

/* A SEND/WRITE request with payload and AckReq. */
static void tx_req(struct dq *q, const char *opname, uint32_t psn, const void *data, size_t len, bool ackreq)
{
	struct roce_desc d;
	desc(q, &d, opname, psn);
	d.payload = data;
	d.payload_len = len;
	roce_bth_set_ackreq(d.bth, ackreq);
	tx(&d);
}

struct got {
	uint8_t buf[16384];
	size_t len;
	struct roce_pkt p;
	const uint8_t *bth;
	uint32_t psn;
	const struct roce_opcode_info *op;
	double t_us;
};

static void violation(const char *rule, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void violation(const char *rule, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	P.violations++;
	if (P.violations <= 20)
		fprintf(stderr, "    VIOLATION %s (%s): %s\n", rule, cur_scenario, msg);
}

/* Checks a packet the DUT sent, on its own. */
static void check_format(struct got *g)
{
	struct roce_finding f[32];
	struct roce_check_opts co = { ROCE_CHK_ICRC | ROCE_CHK_SENDER, 0 };
	size_t n = roce_check(&g->p, &co, f, 32);
	for (size_t i = 0; i < n && i < 32; i++) {
		const struct roce_code_info *ci = roce_code_info(f[i].code);
		if (ci->severity < ROCE_SEV_WARN)
			continue;
		char msg[256];
		roce_finding_message(&f[i], msg, sizeof msg);
		const struct roce_rule_info *ri = roce_rule(ci->rule);
		violation(ri ? ri->id : "?", "%s", msg);
	}
	const uint8_t *l3 = g->p.buf + g->p.hdr_off[P.ipv == 6 ? ROCE_H_IPV6 : ROCE_H_IPV4];
	/* CNPs and the CM's MADs from QP1 follow no AV of ours. */
	bool cnp = (g->op && g->op->kind == ROCE_K_CNP) || roce_bth_destqp(g->bth) == ROCE_QP1;
	unsigned dscp = P.ipv == 6 ? roce_ipv6_dscp(l3) : roce_ipv4_dscp(l3);
	unsigned ecn = P.ipv == 6 ? roce_ipv6_ecn(l3) : roce_ipv4_ecn(l3);
	unsigned hop = P.ipv == 6 ? roce_ipv6_hoplimit(l3) : roce_ipv4_ttl(l3);
	const uint8_t *src = P.ipv == 6 ? roce_ipv6_src(l3) : roce_ipv4_src(l3);
	if (!cnp && dscp != AV_TC >> 2)
		violation(P.ipv == 6 ? "CA17-13" : "CA17-4", "DSCP %u, the AV says %u", dscp, AV_TC >> 2);
	if (!cnp && hop != AV_HOP)
		violation(P.ipv == 6 ? "CA17-17" : "CA17-9", "hop limit %u, the AV says %u", hop, AV_HOP);
	if (!cnp && ecn != (P.rcm ? 2u : 0u))
		violation(P.rcm ? "A17.3.1-ECN" : (P.ipv == 6 ? "CA17-14" : "CA17-5"), "ECN %u with RCM %s", ecn,
			  P.rcm ? "on" : "off");
	if (memcmp(src, P.dut_ip, P.ipv == 6 ? 16 : 4) != 0)
		violation(P.ipv == 6 ? "CA17-18" : "CA17-11", "source address is not the DUT's GID");
	const uint8_t *dst = P.ipv == 6 ? roce_ipv6_dst(l3) : roce_ipv4_dst(l3);
	if (memcmp(dst, P.my_ip, P.ipv == 6 ? 16 : 4) != 0)
		violation(P.ipv == 6 ? "CA17-19" : "CA17-12", "destination address is not the AV's DGID");
	if (!cnp && g->op && g->op->transport != ROCE_T_UD) {
		uint32_t qpn = roce_bth_destqp(g->bth);
		uint16_t sport = (uint16_t)roce_udp_sport(roce_pkt_hdr(&g->p, ROCE_H_UDP));
		unsigned i;
		for (i = 0; i < P.n_sport; i++)
			if (P.sport_qpn[i] == qpn)
				break;
		if (i == P.n_sport && P.n_sport < 64) {
			P.sport_qpn[P.n_sport] = qpn;
			P.sport[P.n_sport++] = sport;
		} else if (i < P.n_sport && P.sport[i] != sport) {
			violation("A17.3.2-SPORT", "UDP source port 0x%04x, earlier 0x%04x for QP 0x%x", sport, P.sport[i], qpn);
			P.sport[i] = sport;
		}
	}
}

/* The next RoCEv2 packet from the DUT to QP my_qpn (0: any), within ms. */
static bool rx(uint32_t my_qpn, int ms, struct got *g)
{
	int64_t end = now_ms() + ms;
	for (;;) {
		int64_t left = end - now_ms();
		if (left < 0)
			return false;
		struct pollfd pfd = { P.raw, POLLIN, 0 };
		if (poll(&pfd, 1, (int)left) <= 0)
			continue;
		ssize_t n = recv(P.raw, g->buf, sizeof g->buf, MSG_DONTWAIT);
		if (n <= 0 || memcmp(g->buf, P.my_mac, 6) != 0)
			continue;
		g->len = (size_t)n;
		g->t_us = now_us();
		enum roce_code e = roce_parse_frame(&g->p, g->buf, g->len, g->len, 0);
		if (e == ROCE_E_IPV4_PROTO || e == ROCE_E_IPV6_NEXTHDR) {
			/* The DUT's kernel must not answer RoCEv2 with ICMP port
			 * unreachable (ICMP type 3 / ICMPv6 type 1). */
			const uint8_t *ip = g->p.buf + g->p.hdr_off[e == ROCE_E_IPV4_PROTO ? ROCE_H_IPV4 : ROCE_H_IPV6];
			bool v4 = e == ROCE_E_IPV4_PROTO;
			unsigned proto = v4 ? roce_ipv4_proto(ip) : roce_ipv6_nexthdr(ip);
			size_t hl = v4 ? g->p.ip_hdr_len : ROCE_IPV6_LEN;
			const uint8_t *icmp_type = ip + hl;
			if ((size_t)(icmp_type - g->buf) < g->len &&
			    ((v4 && proto == IPPROTO_ICMP && *icmp_type == ICMP_DEST_UNREACH) ||
			     (!v4 && proto == IPPROTO_ICMPV6 && *icmp_type == ICMP6_DST_UNREACH)))
				violation("CA17-20", "the DUT host answered with ICMP destination unreachable");
			continue;
		}
		if (e == ROCE_E_ETHERTYPE || e == ROCE_E_UDP_DPORT)
			continue;
		/* Not UDP at all: the agent's TCP traffic, which GRO may merge
		 * past this buffer (so it fails the length checks first). */
		const uint8_t *l3 = g->buf + ROCE_ETH_LEN;
		unsigned ethertype = g->len >= ROCE_ETH_LEN ? (unsigned)roce_be_load(g->buf + ROCE_ETH_TYPE_OFF, 2) : 0;
		if ((ethertype == ROCE_ETHERTYPE_IPV4 && g->len >= ROCE_ETH_LEN + ROCE_IPV4_LEN &&
		     roce_ipv4_proto(l3) != ROCE_IP_PROTO_UDP) ||
		    (ethertype == ROCE_ETHERTYPE_IPV6 && g->len >= ROCE_ETH_LEN + ROCE_IPV6_LEN &&
		     roce_ipv6_nexthdr(l3) != ROCE_IP_PROTO_UDP))
			continue;
		if (e != ROCE_OK) {
			char m[200];
			roce_pkt_strerror(&g->p, m, sizeof m);
			violation("CA17-2", "unparseable packet from the DUT: %s", m);
			continue;
		}
		g->bth = roce_pkt_hdr(&g->p, ROCE_H_BTH);
		g->psn = roce_bth_psn(g->bth);
		g->op = g->p.op;
		check_format(g);
		if (my_qpn && roce_bth_destqp(g->bth) != my_qpn)
			continue;
		return true;
	}
}

static bool nothing_for(uint32_t my_qpn, int ms)
{
	struct got g;
	return !rx(my_qpn, ms, &g);
}

static const uint8_t *aeth_of(struct got *g)
{
	return roce_pkt_hdr(&g->p, ROCE_H_AETH);
}

static bool is_op(struct got *g, const char *name)
{
	return g->p.opcode == roce_opcode_by_name(name);
}

/* Expects an ACK-type AETH of the given syndrome type/value and PSN. */
static bool expect_aeth(struct dq *q, int ms, unsigned type, int value, uint32_t psn, struct got *g)
{
	REQUIRE(rx(q->my_qpn, ms, g), "no response within %d ms (expected syndrome type %u value %d PSN %u)", ms, type,
		value, psn);
	REQUIRE(is_op(g, "RC Acknowledge"), "got %s, expected an Acknowledge", g->op->name);
	const uint8_t *a = aeth_of(g);
	REQUIRE(roce_aeth_type(a) == type && (value < 0 || (int)roce_aeth_value(a) == value),
		"syndrome 0x%02x, expected type %u value %d", roce_aeth_syndrome(a), type, value);
	REQUIRE(g->psn == (psn & ROCE_PSN_MASK), "PSN %u, expected %u", g->psn, psn & ROCE_PSN_MASK);
	return true;
}

static bool expect_ack(struct dq *q, uint32_t psn, struct got *g)
{
	return expect_aeth(q, 300, ROCE_SYN_ACK, -1, psn, g);
}

static bool expect_nak(struct dq *q, unsigned code, uint32_t psn)
{
	struct got g;
	return expect_aeth(q, 300, ROCE_SYN_NAK, (int)code, psn, &g);
}

struct wc {
	char status[32], opcode[32];
	uint64_t wr_id;
	uint32_t byte_len, imm, src_qp;
	bool grh;
};

/* Polls the DUT's CQ; returns how many completions (first in *w), -1 on error. */
static int poll_cq(struct dq *q, int timeout_ms, struct wc *w)
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

static bool mr_read(struct dq *q, uint64_t off, size_t len, uint8_t *out)
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

static bool mr_write(struct dq *q, uint64_t off, const uint8_t *data, size_t len)
{
	gchar *b = g_base64_encode(data, len);
	JsonObject *r = call("write_mr", "{\"mr\":%d,\"offset\":%llu,\"data\":\"%s\"}", q->mr, (unsigned long long)off, b);
	g_free(b);
	return r != NULL;
}

static const char *qp_state(struct dq *q)
{
	static char s[16];
	JsonObject *r = call("query_qp", "{\"qp\":%d}", q->qp);
	g_strlcpy(s, r ? json_object_get_string_member(r, "state") : "?", sizeof s);
	return s;
}

/* ---- RC responder scenarios ---- */

static bool sc_send_only(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(1), 100, true);
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	REQUIRE(roce_aeth_msn(aeth_of(&g)) == 1, "MSN %u after one message, expected 1", roce_aeth_msn(aeth_of(&g)));
	REQUIRE(poll_cq(&q, 1000, &w) == 1, "no receive completion");
	REQUIRE(strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "RECV") == 0, "completion %s %s", w.status, w.opcode);
	REQUIRE(w.byte_len == 100 && w.wr_id == 100, "byte_len %u wr_id %llu", w.byte_len, (unsigned long long)w.wr_id);
	REQUIRE(w.src_qp == q.my_qpn, "src_qp 0x%x", w.src_qp);
	uint8_t buf[100];
	REQUIRE(mr_read(&q, 32768, 100, buf) && memcmp(buf, pattern(1), 100) == 0, "received data differs");
	return true;
}

static bool write_only(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, const uint8_t *data, size_t len)
{
	struct roce_desc d;
	desc(q, &d, "RC RDMA WRITE Only", psn);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, va);
	roce_reth_set_rkey(reth, rkey);
	roce_reth_set_dmalen(reth, len);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = data;
	d.payload_len = len;
	tx(&d);
	return true;
}

static bool sc_write(void)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	write_only(&q, q.epsn, q.addr + 100, q.rkey, pattern(6), 500);
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	/* A three-packet WRITE. */
	const uint8_t *d = pattern(7);
	struct roce_desc x;
	desc(&q, &x, "RC RDMA WRITE First", q.epsn + 1);
	uint8_t *reth = roce_desc_hdr(&x, ROCE_H_RETH);
	roce_reth_set_va(reth, q.addr + 4096);
	roce_reth_set_rkey(reth, q.rkey);
	roce_reth_set_dmalen(reth, 2 * PMTU + 10);
	x.payload = d;
	x.payload_len = PMTU;
	tx(&x);
	tx_req(&q, "RC RDMA WRITE Middle", q.epsn + 2, d + PMTU, PMTU, false);
	tx_req(&q, "RC RDMA WRITE Last", q.epsn + 3, d + 2 * PMTU, 10, true);
	if (!expect_ack(&q, q.epsn + 3, &g))
		return false;
	uint8_t buf[2 * PMTU + 10];
	REQUIRE(mr_read(&q, 100, 500, buf) && memcmp(buf, pattern(6), 500) == 0, "WRITE Only data differs");
	REQUIRE(mr_read(&q, 4096, sizeof buf, buf) && memcmp(buf, pattern(7), sizeof buf) == 0, "WRITE data differs");
	return true;
}

static void tx_read(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len)
{
	struct roce_desc d;
	desc(q, &d, "RC RDMA READ Request", psn);
	uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
	roce_reth_set_va(reth, va);
	roce_reth_set_rkey(reth, rkey);
	roce_reth_set_dmalen(reth, len);
	roce_bth_set_ackreq(d.bth, 1);
	tx(&d);
}

/* Receives a READ response of len bytes starting at psn and checks it. */
static bool expect_read_response(struct dq *q, uint32_t psn, uint32_t len, const uint8_t *want)
{
	uint32_t n = roce_packets_for(len, PMTU);
	for (uint32_t i = 0; i < n; i++) {
		struct got g;
		REQUIRE(rx(q->my_qpn, 300, &g), "READ response %u of %u missing", i + 1, n);
		enum roce_position pos = roce_position_of(i, n);
		int op = roce_opcode_find(ROCE_T_RC, ROCE_K_READ_RESP, pos, 0, 0);
		REQUIRE(g.p.opcode == op, "response %u is %s, expected %s", i, g.op->name, roce_opcode((uint8_t)op)->name);
		REQUIRE(g.psn == roce_psn_add(psn, (int32_t)i), "response %u PSN %u, expected %u", i, g.psn,
			roce_psn_add(psn, (int32_t)i));
		uint32_t want_len = i + 1 < n ? PMTU : len - i * PMTU;
		REQUIRE(g.p.payload_len == want_len, "response %u carries %u bytes, expected %u", i, g.p.payload_len, want_len);
		REQUIRE(memcmp(g.p.buf + g.p.payload_off, want + (size_t)i * PMTU, want_len) == 0, "response %u data differs", i);
		if (pos != ROCE_POS_MIDDLE)
			REQUIRE(aeth_of(&g) && roce_aeth_type(aeth_of(&g)) == ROCE_SYN_ACK, "AETH missing or not an ACK");
	}
	return true;
}

static bool sc_read(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	REQUIRE(mr_write(&q, 0, pattern(9), 3000), "write_mr");
	tx_read(&q, q.epsn, q.addr, q.rkey, 2600);
	if (!expect_read_response(&q, q.epsn, 2600, pattern(9)))
		return false;
	/* The READ took three PSNs: the next request is epsn + 3. */
	struct got g;
	tx_req(&q, "RC SEND Only", q.epsn + 3, pattern(9), 4, true);
	return expect_ack(&q, q.epsn + 3, &g);
}

static void tx_atomic(struct dq *q, const char *opname, uint32_t psn, uint64_t va, uint64_t swap_add, uint64_t cmp)
{
	struct roce_desc d;
	desc(q, &d, opname, psn);
	uint8_t *a = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
	roce_atomiceth_set_va(a, va);
	roce_atomiceth_set_rkey(a, q->rkey);
	roce_atomiceth_set_swapdt(a, swap_add);
	roce_atomiceth_set_cmpdt(a, cmp);
	roce_bth_set_ackreq(d.bth, 1);
	tx(&d);
}

static bool expect_atomic_ack(struct dq *q, uint32_t psn, uint64_t orig)
{
	struct got g;
	REQUIRE(rx(q->my_qpn, 300, &g), "no Atomic Acknowledge");
	REQUIRE(is_op(&g, "RC Atomic Acknowledge"), "got %s", g.op->name);
	REQUIRE(g.psn == psn, "PSN %u, expected %u", g.psn, psn);
	uint64_t v = roce_atomicacketh_orig(roce_pkt_hdr(&g.p, ROCE_H_ATOMICACKETH));
	REQUIRE(v == orig, "original value 0x%llx, expected 0x%llx", (unsigned long long)v, (unsigned long long)orig);
	return true;
}

static uint64_t mr_u64(struct dq *q, uint64_t off)
{
	uint8_t b[8];
	uint64_t v = 0;
	if (mr_read(q, off, 8, b))
		memcpy(&v, b, 8);
	return v;
}

static bool sc_atomic(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	uint64_t v = 1000;
	uint8_t b[8];
	memcpy(b, &v, 8);
	REQUIRE(mr_write(&q, 64, b, 8), "write_mr");
	tx_atomic(&q, "RC FetchAdd", q.epsn, q.addr + 64, 5, 0);
	if (!expect_atomic_ack(&q, q.epsn, 1000))
		return false;
	tx_atomic(&q, "RC CmpSwap", q.epsn + 1, q.addr + 64, 77, 1005);
	if (!expect_atomic_ack(&q, q.epsn + 1, 1005))
		return false;
	REQUIRE(mr_u64(&q, 64) == 77, "memory holds %llu after CmpSwap", (unsigned long long)mr_u64(&q, 64));
	return true;
}

/* The responder's QP after its NAKs: a PSN Sequence Error and an RNR NAK
 * leave it in RTS, ready for the retry; a Remote Access Error and an
 * Invalid Request are fatal and leave it in ERR. */
static bool sc_resp_errors(void)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn + 2, pattern(4), 8, true);
	if (!expect_nak(&q, ROCE_NAK_PSN_SEQ_ERR, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "RTS") == 0, "the QP is %s after a sequence error, not RTS", qp_state(&q));
	tx_req(&q, "RC SEND Only", q.epsn, pattern(4), 8, true);
	if (!expect_ack(&q, q.epsn, &g))
		return false;

	if (!dut_qp(&q, (struct dq_opts){ .recv_wqes = -1, .min_rnr_timer = 14 }))
		return false;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(11), 32, true);
	if (!expect_aeth(&q, 300, ROCE_SYN_RNR_NAK, 14, q.epsn, &g))
		return false;
	REQUIRE(strcmp(qp_state(&q), "RTS") == 0, "the QP is %s after an RNR NAK, not RTS", qp_state(&q));

	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	write_only(&q, q.epsn, q.addr, q.rkey ^ 0x5500, pattern(8), 64);
	if (!expect_nak(&q, ROCE_NAK_REMOTE_ACCESS, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "the QP is %s after a Remote Access Error, not ERR", qp_state(&q));

	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_req(&q, "RC SEND Middle", q.epsn, pattern(12), PMTU, true);
	if (!expect_nak(&q, ROCE_NAK_INVALID_REQUEST, q.epsn))
		return false;
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "the QP is %s after an Invalid Request, not ERR", qp_state(&q));
	return true;
}

/* ---- Silent drops: the bad packet gets nothing, a good one still works ---- */

typedef void (*breaker)(struct roce_desc *d, uint8_t *frame, long *len);

static bool drop_case(breaker br, const char *counter_name, struct dq_opts o)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, o))
		return false;
	uint64_t before = counter_name ? counter(counter_name) : 0;
	struct roce_desc d;
	desc(&q, &d, "RC SEND Only", q.epsn);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(14);
	d.payload_len = 20;
	uint8_t frame[2048];
	long n = 0;
	br(&d, frame, &n);
	if (!n)
		n = build(&d, frame, sizeof frame);
	tx_raw(frame, (size_t)n);
	REQUIRE(nothing_for(q.my_qpn, 80), "the DUT answered a packet it must drop (%s)", g.op ? "" : "");
	REQUIRE(poll_cq(&q, 0, NULL) == 0, "the dropped packet completed a receive");
	if (counter_name)
		REQUIRE(counter(counter_name) > before, "counter %s did not rise", counter_name);
	if (o.state && strcmp(o.state, "RTS") != 0)
		return true;
	tx_req(&q, "RC SEND Only", q.epsn, pattern(14), 20, true);
	return expect_ack(&q, q.epsn, &g);
}

static void br_csum(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	roce_ipv4_set_csum(ip, roce_ipv4_csum(ip) ^ 0x0101);
}
static void br_dstip(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	uint8_t *dst = d->ip_version == 6 ? roce_ipv6_dst_ptr(d->ip) : roce_ipv4_dst_ptr(d->ip);
	dst[d->ip_version == 6 ? 15 : 3] = 9;
}

static void br_icrc(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	f[*n - 1] ^= 0x40; /* the ICRC's last byte */
}
static void br_ihl(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	memset(d->ip_opts, 1, 4); /* four NOP options */
	d->ip_opts_len = 4;
}
static void br_df(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_ipv4_set_df(d->ip, 0);
}
static void br_frag(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_ipv4_set_mf(d->ip, 1);
}
static void br_udplen(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	/* 4 bytes short of the UDP header, BTH, 20 bytes of payload and ICRC */
	roce_desc_set(d, ROCE_F_UDP_len, ROCE_UDP_LEN + ROCE_BTH_LEN + 20 + ROCE_ICRC_LEN - 4);
}
static void br_version(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	roce_ipv4_set_version(ip, d->ip_version == 4 ? 6 : 4); /* the nibble both headers start with */
	if (d->ip_version == 4) /* only the version is wrong */
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
}
static void br_noqp(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_destqp(d->bth, 0xABCDE);
}
static void br_qp0(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_destqp(d->bth, 0);
}
static void br_tver(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_tver(d->bth, 1);
}
static void br_pkey(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_pkey(d->bth, 0x8001);
}
static void br_qptype(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	roce_bth_set_opcode(d->bth, (uint8_t)roce_opcode_by_name("UC SEND Only"));
}
static void br_none(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)d;
	(void)f;
	(void)n;
}
static void br_srcip(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	uint8_t *src = d->ip_version == 6 ? roce_ipv6_src_ptr(d->ip) : roce_ipv4_src_ptr(d->ip);
	src[d->ip_version == 6 ? 15 : 3] = 9;
}

static void br_iplen(struct roce_desc *d, uint8_t *f, long *n)
{
	*n = build(d, f, 2048);
	uint8_t *ip = f + ROCE_ETH_LEN;
	if (d->ip_version == 4) {
		roce_ipv4_set_totlen(ip, roce_ipv4_totlen(ip) + 4);
		roce_ipv4_set_csum(ip, roce_ipv4_checksum(ip, ROCE_IPV4_LEN));
	} else {
		roce_ipv6_set_paylen(ip, roce_ipv6_paylen(ip) + 4);
	}
	/* The ICRC as the sender computed it, over the bytes as sent. */
	roce_le32_store(f + *n - 4, roce_icrc(ip, (size_t)*n - ROCE_ETH_LEN - 4));
}
static void br_exthdr(struct roce_desc *d, uint8_t *f, long *n)
{
	(void)f;
	(void)n;
	/* A Destination Options header (8 bytes: next 17, length 0, PadN). */
	static const uint8_t dopt[8] = { ROCE_IP_PROTO_UDP, 0, 1, 4, 0, 0, 0, 0 };
	memcpy(d->ip_opts, dopt, 8);
	d->ip_opts_len = 8;
	roce_ipv6_set_nexthdr(d->ip, IPPROTO_DSTOPTS);
}

/* Every silent drop of rocev2-rules.md §5.1 the soft DUT makes, each on
 * its own QP: the bad packet gets no answer and completes nothing, the
 * device counts it under its reason, and a good packet still works. */
static bool sc_drops(void)
{
	static const struct {
		const char *what;
		breaker br;
		const char *counter; /* NULL: none of its own */
		int ipv;             /* 0: both */
		const char *state;   /* the QP's state, NULL: RTS */
	} drops[] = {
		{ "bad ICRC", br_icrc, "rx_drop_icrc", 0, NULL },
		{ "IPv4 options", br_ihl, "rx_drop_ip", 4, NULL },
		{ "IPv4 Don't Fragment clear", br_df, "rx_drop_ip", 4, NULL },
		{ "IPv4 fragment", br_frag, "rx_drop_ip", 4, NULL },
		{ "IPv4 header checksum", br_csum, "rx_drop_ip", 4, NULL },
		{ "IP length past the frame", br_iplen, "rx_drop_ip", 0, NULL },
		{ "IPv6 extension header", br_exthdr, NULL, 6, NULL },
		{ "UDP length", br_udplen, "rx_drop_ip", 0, NULL },
		{ "IP version against the Ethertype", br_version, "rx_drop_ip_version", 0, NULL },
		{ "DestQP 0", br_qp0, "rx_drop_qp0", 0, NULL },
		{ "DestQP of no QP", br_noqp, "rx_drop_no_qp", 0, NULL },
		{ "TVer 1", br_tver, "rx_drop_tver", 0, NULL },
		{ "P_Key", br_pkey, "pkey_violations", 0, NULL },
		{ "opcode of another transport", br_qptype, "rx_drop_qp_type", 0, NULL },
		{ "QP in INIT", br_none, "rx_drop_qp_state", 0, "INIT" },
		{ "source address", br_srcip, "rx_drop_addr", 0, NULL },
		{ "destination address", br_dstip, "rx_drop_gid", 0, NULL },
	};
	for (size_t i = 0; i < sizeof drops / sizeof drops[0]; i++) {
		if (drops[i].ipv && drops[i].ipv != P.ipv)
			continue;
		if (!drop_case(drops[i].br, drops[i].counter, (struct dq_opts){ .state = drops[i].state })) {
			fprintf(stderr, "    (drop: %s)\n", drops[i].what);
			return false;
		}
	}
	return true;
}

/* ---- UC, UD ---- */

static void ud_send(struct dq *q, uint32_t psn, uint32_t qkey, size_t len)
{
	struct roce_desc d;
	desc(q, &d, "UD SEND Only", psn);
	uint8_t *deth = roce_desc_hdr(&d, ROCE_H_DETH);
	roce_deth_set_qkey(deth, qkey);
	roce_deth_set_srcqp(deth, q->my_qpn);
	d.payload = pattern(16);
	d.payload_len = len;
	tx(&d);
}

static bool sc_ud_send(void)
{
	struct dq q;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	ud_send(&q, 5, 0x11111111u, 200);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no UD completion");
	REQUIRE(w.byte_len == 240 && w.grh && w.src_qp == q.my_qpn, "byte_len %u grh %d src_qp 0x%x", w.byte_len, w.grh, w.src_qp);
	uint8_t buf[240];
	REQUIRE(mr_read(&q, 32768, 240, buf), "read_mr");
	/* A17.4.5: IPv6 fills the 40 bytes; IPv4 sits in bytes 20..39. */
	const uint8_t *ip = P.ipv == 6 ? buf : buf + 20;
	REQUIRE((ip[0] >> 4) == P.ipv, "the L3 header is not where A17.4.5 puts it");
	REQUIRE(memcmp(P.ipv == 6 ? roce_ipv6_src(ip) : roce_ipv4_src(ip), P.my_ip, P.ipv == 6 ? 16 : 4) == 0,
		"the L3 header's source is not the sender");
	REQUIRE(memcmp(buf + 40, pattern(16), 200) == 0, "UD payload differs");
	return true;
}

/* ---- RC requester scenarios: the DUT sends, the peer answers ---- */

static bool post_send(struct dq *q, const char *op, int wr_id, uint64_t off, uint32_t len, const char *extra)
{
	return call("post_send", "{\"qp\":%d,\"wr_id\":%d,\"opcode\":\"%s\",\"sge\":[{\"mr\":%d,\"offset\":%llu,\"length\":%u}]%s%s}",
		    q->qp, wr_id, op, q->mr, (unsigned long long)off, len, extra ? "," : "", extra ? extra : "") != NULL;
}

static void tx_ack(struct dq *q, uint32_t psn, unsigned type, unsigned value, unsigned msn)
{
	struct roce_desc d;
	desc(q, &d, "RC Acknowledge", psn);
	uint8_t *a = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(a, type);
	roce_aeth_set_value(a, value);
	roce_aeth_set_msn(a, msn);
	tx(&d);
}

/* Expects a request from the DUT with this opcode and PSN. */
static bool expect_req(struct dq *q, const char *opname, uint32_t psn, int ms, struct got *g)
{
	REQUIRE(rx(q->my_qpn, ms, g), "no %s PSN %u from the DUT within %d ms", opname, psn & ROCE_PSN_MASK, ms);
	REQUIRE(is_op(g, opname), "got %s PSN %u, expected %s PSN %u", g->op->name, g->psn, opname, psn & ROCE_PSN_MASK);
	REQUIRE(g->psn == (psn & ROCE_PSN_MASK), "%s PSN %u, expected %u", opname, g->psn, psn & ROCE_PSN_MASK);
	return true;
}

static bool sc_req_send(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	REQUIRE(mr_write(&q, 0, pattern(17), 101), "write_mr");
	REQUIRE(post_send(&q, "SEND", 1, 0, 101, NULL), "post_send");
	if (!expect_req(&q, "RC SEND Only", q.dut_psn, 300, &g))
		return false;
	REQUIRE(roce_bth_ackreq(g.bth), "AckReq clear on the last packet of a message");
	if (roce_bth_se(g.bth))
		violation("IBA9.2-SE", "SE set on a SEND that was not solicited");
	REQUIRE(g.p.payload_len == 101 && memcmp(g.p.buf + g.p.payload_off, pattern(17), 101) == 0, "SEND data differs");
	tx_ack(&q, q.dut_psn, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 1);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "SEND") == 0,
		"no successful SEND completion (%s)", w.status);
	return true;
}

static bool sc_req_multi(void)
{
	/* A three-packet SEND with the PSNs wrapping through 2^24. */
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	q.dut_psn = 0xFFFFF0;
	REQUIRE(mr_write(&q, 0, pattern(18), 2 * PMTU + 5), "write_mr");
	REQUIRE(post_send(&q, "SEND_WITH_IMM", 1, 0, 2 * PMTU + 5, "\"imm_data\":305419896"), "post_send");
	const char *ops[] = { "RC SEND First", "RC SEND Middle", "RC SEND Last with Immediate" };
	for (int i = 0; i < 3; i++) {
		if (!expect_req(&q, ops[i], q.dut_psn + (uint32_t)i, 300, &g))
			return false;
		REQUIRE(g.p.payload_len == (i < 2 ? PMTU : 5), "packet %d carries %u bytes", i, g.p.payload_len);
	}
	REQUIRE(roce_immdt_imm(roce_pkt_hdr(&g.p, ROCE_H_IMMDT)) == 305419896u, "immediate data differs");
	tx_ack(&q, q.dut_psn + 2, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 1);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no successful completion");
	return true;
}

static void tx_read_resp(struct dq *q, const char *opname, uint32_t psn, const uint8_t *data, size_t len, unsigned msn)
{
	struct roce_desc d;
	desc(q, &d, opname, psn);
	uint8_t *a = roce_desc_hdr(&d, ROCE_H_AETH);
	if (roce_opcode(roce_bth_opcode(d.bth))->xhdrs & ROCE_XHDR_BIT(ROCE_H_AETH)) {
		roce_aeth_set_type(a, ROCE_SYN_ACK);
		roce_aeth_set_value(a, ROCE_AETH_ACK_UNLIMITED);
		roce_aeth_set_msn(a, msn);
	}
	d.payload = data;
	d.payload_len = len;
	tx(&d);
}

static bool sc_req_read(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .timeout = 18 }))
		return false;
	REQUIRE(post_send(&q, "RDMA_READ", 1, 1000, 2600, "\"remote_addr\":65536,\"rkey\":42"), "post_send");
	REQUIRE(post_send(&q, "SEND", 2, 0, 10, NULL), "post_send");
	if (!expect_req(&q, "RC RDMA READ Request", q.dut_psn, 300, &g))
		return false;
	const uint8_t *reth = roce_pkt_hdr(&g.p, ROCE_H_RETH);
	REQUIRE(roce_reth_va(reth) == 65536 && roce_reth_rkey(reth) == 42 && roce_reth_dmalen(reth) == 2600, "RETH differs");
	/* A READ of 3 packets reserves 3 PSNs. */
	if (!expect_req(&q, "RC SEND Only", q.dut_psn + 3, 300, &g))
		return false;
	const uint8_t *d = pattern(19);
	tx_read_resp(&q, "RC RDMA READ Response First", q.dut_psn, d, PMTU, 1);
	tx_read_resp(&q, "RC RDMA READ Response Middle", q.dut_psn + 1, d + PMTU, PMTU, 1);
	tx_read_resp(&q, "RC RDMA READ Response Last", q.dut_psn + 2, d + 2 * PMTU, 2600 - 2 * PMTU, 1);
	tx_ack(&q, q.dut_psn + 3, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 2);
	REQUIRE(poll_cq(&q, 500, &w) >= 1 && strcmp(w.status, "SUCCESS") == 0 && strcmp(w.opcode, "RDMA_READ") == 0,
		"READ completion %s %s", w.status, w.opcode);
	uint8_t buf[2600];
	REQUIRE(mr_read(&q, 1000, 2600, buf) && memcmp(buf, d, 2600) == 0, "READ data differs");
	return true;
}

static bool sc_req_atomic(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .timeout = 18 }))
		return false;
	REQUIRE(post_send(&q, "ATOMIC_FETCH_AND_ADD", 1, 8, 8, "\"remote_addr\":65536,\"rkey\":42,\"compare_add\":5"),
		"post_send");
	if (!expect_req(&q, "RC FetchAdd", q.dut_psn, 300, &g))
		return false;
	REQUIRE(roce_atomiceth_swapdt(roce_pkt_hdr(&g.p, ROCE_H_ATOMICETH)) == 5, "add operand differs");
	struct roce_desc d;
	desc(&q, &d, "RC Atomic Acknowledge", q.dut_psn);
	roce_aeth_set_value(roce_desc_hdr(&d, ROCE_H_AETH), ROCE_AETH_ACK_UNLIMITED);
	roce_atomicacketh_set_orig(roce_desc_hdr(&d, ROCE_H_ATOMICACKETH), 0x1122334455667788ull);
	tx(&d);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no atomic completion");
	REQUIRE(mr_u64(&q, 8) == 0x1122334455667788ull, "the original value did not land in the local buffer");
	return true;
}

/* ---- Congestion management (the agent runs with --rcm) ---- */

static void tx_ce_send(struct dq *q, uint32_t psn)
{
	struct roce_desc d;
	desc(q, &d, "RC SEND Only", psn);
	roce_bth_set_ackreq(d.bth, 1);
	roce_bth_set_pkey(d.bth, 0xFFFF);
	if (d.ip_version == 6)
		roce_ipv6_set_ecn(d.ip, 3);
	else
		roce_ipv4_set_ecn(d.ip, 3);
	d.payload = pattern(22);
	d.payload_len = 16;
	tx(&d);
}

static bool sc_cnp(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	tx_ce_send(&q, q.epsn);
	bool cnp = false, ack = false;
	struct got g;
	while ((!cnp || !ack) && rx(q.my_qpn, 300, &g)) {
		if (g.op->kind == ROCE_K_CNP) {
			cnp = true;
			REQUIRE(g.psn == 0 && !roce_bth_se(g.bth) && !roce_bth_m(g.bth), "CNP PSN/SE/M not zero");
			REQUIRE(roce_bth_pkey(g.bth) == 0xFFFF, "CNP P_Key not copied");
			const uint8_t *pad = roce_pkt_hdr(&g.p, ROCE_H_CNPPAD);
			static const uint8_t zero[16];
			REQUIRE(pad && memcmp(pad, zero, 16) == 0, "CNP reserved bytes not zero");
		} else {
			ack = true;
		}
	}
	REQUIRE(cnp, "no CNP for a CE-marked packet (CA17-44), or not to the sender's QP");
	REQUIRE(ack, "the CE-marked SEND was not acknowledged");
	return true;
}

static bool sc_cnp_pacing(void)
{
	/* The agent runs with --cnp-interval-us 200000: one CNP per 200 ms. */
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	int cnps = 0;
	struct got g;
	for (int i = 0; i < 3; i++)
		tx_ce_send(&q, q.epsn + (uint32_t)i);
	while (rx(q.my_qpn, 100, &g))
		cnps += g.op->kind == ROCE_K_CNP;
	REQUIRE(cnps == 1, "%d CNPs for three CE packets within the interval, expected 1", cnps);
	return true;
}

static bool sc_send_inv(void)
{
	struct dq q;
	struct got g;
	if (!dut_qp(&q, (struct dq_opts){ 0 }))
		return false;
	struct roce_desc d;
	desc(&q, &d, "RC SEND Only with Invalidate", q.epsn);
	roce_ieth_set_rkey(roce_desc_hdr(&d, ROCE_H_IETH), q.rkey);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(23);
	d.payload_len = 12;
	tx(&d);
	if (!expect_ack(&q, q.epsn, &g))
		return false;
	JsonObject *r = call("poll_cq", "{\"cq\":%d,\"timeout_ms\":500}", q.cq);
	REQUIRE(r && json_array_get_length(json_object_get_array_member(r, "completions")) == 1, "no completion");
	JsonObject *c = json_array_get_object_element(json_object_get_array_member(r, "completions"), 0);
	REQUIRE((uint32_t)jint(c, "invalidate_rkey") == q.rkey, "invalidate_rkey %lld", (long long)jint(c, "invalidate_rkey"));
	bool inv = false;
	JsonArray *fl = json_object_get_array_member(c, "wc_flags");
	for (guint i = 0; i < json_array_get_length(fl); i++)
		inv |= strcmp(json_array_get_string_element(fl, i), "WITH_INV") == 0;
	REQUIRE(inv, "WITH_INV missing from wc_flags");
	/* The rkey is invalid now. */
	write_only(&q, q.epsn + 1, q.addr, q.rkey, pattern(23), 8);
	return expect_nak(&q, ROCE_NAK_REMOTE_ACCESS, q.epsn + 1);
}

static bool sc_req_ud_send(void)
{
	struct dq q;
	struct got g;
	struct wc w;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	JsonObject *r = call("create_ah", "{\"pd\":%d,\"dgid\":\"%s\",\"sgid_index\":%d,\"hop_limit\":%d,\"traffic_class\":%d}",
			     q.pd, peer_gid(), P.ipv == 4 ? 0 : 1, AV_HOP, AV_TC);
	REQUIRE(r, "create_ah");
	int ah = (int)jint(r, "ah");
	REQUIRE(mr_write(&q, 0, pattern(24), 300), "write_mr");
	char extra[128];
	snprintf(extra, sizeof extra, "\"ah\":%d,\"remote_qpn\":%u,\"remote_qkey\":%u", ah, q.my_qpn, 0x33333333u);
	REQUIRE(post_send(&q, "SEND_WITH_IMM", 1, 0, 300, extra), "post_send");
	REQUIRE(call("post_send", "{\"qp\":%d,\"wr_id\":2,\"opcode\":\"SEND\",\"sge\":[{\"mr\":%d,\"offset\":0,\"length\":4}],"
		     "\"ah\":%d,\"remote_qpn\":%u,\"remote_qkey\":%u}", q.qp, q.mr, ah, q.my_qpn, 0x80000000u), "post_send");
	if (!expect_req(&q, "UD SEND Only with Immediate", q.dut_psn, 500, &g))
		return false;
	const uint8_t *deth = roce_pkt_hdr(&g.p, ROCE_H_DETH);
	REQUIRE(roce_deth_qkey(deth) == 0x33333333u && roce_deth_srcqp(deth) == q.qpn, "DETH Q_Key 0x%x SrcQP 0x%x",
		roce_deth_qkey(deth), roce_deth_srcqp(deth));
	REQUIRE(g.p.payload_len == 300 && memcmp(g.p.buf + g.p.payload_off, pattern(24), 300) == 0, "UD data differs");
	if (!expect_req(&q, "UD SEND Only", q.dut_psn + 1, 500, &g))
		return false;
	REQUIRE(roce_deth_qkey(roce_pkt_hdr(&g.p, ROCE_H_DETH)) == 0x11111111u,
		"a Q_Key with the MSB set must send the QP's own Q_Key");
	REQUIRE(poll_cq(&q, 500, &w) >= 1 && strcmp(w.status, "SUCCESS") == 0, "no UD send completion");
	return true;
}

/* Thousands of random requests and responses that pass the ICRC and reach
 * the transport: the DUT must stay up, and a fresh QP must still work. */
static bool sc_fuzz(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ .timeout = 8, .retry_cnt = 7, .rnr_retry = 7 }))
		return false;
	/* Something outstanding, so that responses meet requester state. */
	REQUIRE(post_send(&q, "RDMA_READ", 1, 0, 3000, "\"remote_addr\":65536,\"rkey\":42"), "post_send");
	REQUIRE(post_send(&q, "SEND", 2, 0, 2000, NULL), "post_send");
	unsigned long long seed = 0x5EED0F00ull + P.ipv;
	uint8_t payload[PMTU + 64];
	for (int i = 0; i < 4000; i++) {
		unsigned long long r = seed ^= seed << 13, r2;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		r2 = seed;
		uint8_t op = (uint8_t)(r % 3 == 0 ? (r >> 8) & 0xFF : (r >> 8) % (ROCE_OP_RC_SEND_ONLY_WITH_INV + 1)); /* mostly RC */
		if (!roce_opcode(op)->name)
			continue;
		struct roce_desc d;
		desc(&q, &d, "RC SEND Only", q.epsn);
		roce_bth_set_opcode(d.bth, op);
		uint32_t psn = (r2 & 1) ? q.epsn + (uint32_t)((r2 >> 1) % 8) - 3 : q.dut_psn + (uint32_t)((r2 >> 1) % 8);
		roce_bth_set_psn(d.bth, psn & ROCE_PSN_MASK);
		roce_bth_set_ackreq(d.bth, (r2 >> 5) & 1);
		if (((r2 >> 9) & 31) == 0)
			roce_bth_set_destqp(d.bth, (uint32_t)(r2 >> 20) & 0xFFFFFF);
		for (unsigned h = 0; h < ROCE_XHDR_COUNT; h++)
			for (unsigned b = 0; b < ROCE_XHDR_MAX; b++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				d.xhdr[h][b] = (uint8_t)seed;
			}
		/* Keep some VAs and keys real, so execution paths run. */
		if ((r2 >> 14) & 1) {
			uint8_t *reth = roce_desc_hdr(&d, ROCE_H_RETH);
			roce_reth_set_va(reth, q.addr + ((r2 >> 16) % 70000));
			roce_reth_set_rkey(reth, q.rkey);
			roce_reth_set_dmalen(reth, (r2 >> 32) % 5000);
			uint8_t *a = roce_desc_hdr(&d, ROCE_H_ATOMICETH);
			roce_atomiceth_set_va(a, q.addr + ((r2 >> 16) % 70000));
			roce_atomiceth_set_rkey(a, q.rkey);
			uint8_t *aeth = roce_desc_hdr(&d, ROCE_H_AETH);
			roce_aeth_set_syndrome(aeth, (r2 >> 40) & 1 ? roce_syndrome_ack(ROCE_AETH_ACK_UNLIMITED) : (uint8_t)(r2 >> 41));
		}
		size_t len = (size_t)((r2 >> 48) % (PMTU + 40));
		for (size_t k = 0; k < len; k++)
			payload[k] = (uint8_t)(k ^ r2);
		d.payload = payload;
		d.payload_len = len;
		tx(&d);
		if (i % 64 == 0) {
			struct got g;
			while (rx(0, 0, &g))
				;
		}
	}
	sleep_ms(100);
	REQUIRE(session_start() && call("query_device", "{}"), "the agent stopped answering after the fuzzing");
	return sc_send_only();
}

/* ---- The table ---- */

/* ---- Connection manager (QP1) ---- */

#define CM_PORT 18515

static uint32_t cm_gsi_psn = 77;

/* A CM MAD from the peer's QP1 to the DUT's. */
static void cm_tx(struct dq *q, const uint8_t *mad)
{
	struct roce_endpoint ep = q->ep;
	ep.dest_qpn = ROCE_QP1;
	struct roce_desc d;
	roce_gsi_desc(&ep, &d, cm_gsi_psn++, mad);
	tx(&d);
}

/* The next CM MAD from the DUT's QP1 within ms: its attribute and a copy. */
static bool cm_rx(int ms, uint8_t *mad, uint16_t *attr)
{
	struct got g;
	while (rx(ROCE_QP1, ms, &g)) {
		if (!roce_pkt_is_mad(&g.p) || g.p.payload_len < ROCE_MAD_LEN)
			continue;
		memcpy(mad, g.p.buf + g.p.payload_off, ROCE_MAD_LEN);
		*attr = (uint16_t)roce_mad_attr_id(mad);
		return true;
	}
	return false;
}

/* An RC QP in RESET, listening on CM_PORT (service): the DUT's CM brings it up. */
static bool cm_qp(struct dq *q, bool listen)
{
	memset(q, 0, sizeof *q);
	q->type = "RC";
	q->mr_len = 65536;
	JsonObject *r;
	REQUIRE(session_start(), "agent session: %.60s %.200s", P.err_code, P.err_msg);
	REQUIRE((r = call("alloc_pd", "{}")), "alloc_pd");
	q->pd = (int)jint(r, "pd");
	REQUIRE((r = call("create_cq", "{\"cqe\":256}")), "create_cq");
	q->cq = (int)jint(r, "cq");
	REQUIRE((r = call("reg_mr", "{\"pd\":%d,\"length\":65536,\"access\":[\"LOCAL_WRITE\"]}", q->pd)), "reg_mr");
	q->mr = (int)jint(r, "mr");
	REQUIRE((r = call("create_qp", "{\"pd\":%d,\"type\":\"RC\",\"send_cq\":%d,\"recv_cq\":%d}", q->pd, q->cq, q->cq)),
		"create_qp");
	q->qp = (int)jint(r, "qp");
	q->qpn = (uint32_t)jint(r, "qpn");
	q->my_qpn = P.next_qpn++;
	q->dut_psn = 0xFFFF00 + (q->my_qpn & 0x3F); /* wraps soon */
	if (listen) {
		REQUIRE((r = call("cm_listen", "{\"qp\":%d,\"port\":%d}", q->qp, CM_PORT)), "cm_listen");
		REQUIRE((uint64_t)jint(r, "service_id") == roce_cm_ip_service_id(CM_PORT), "cm_listen: service_id %lld",
			(long long)jint(r, "service_id"));
	}
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
	return true;
}

/* A REQ as rdma_cm sends one, with these primary port LIDs. */
static void cm_req(struct dq *q, uint64_t service_id, uint16_t lid)
{
	uint8_t mad[ROCE_MAD_LEN], *m = mad + ROCE_MAD_HDR_LEN;
	roce_cm_mad_init(mad, ROCE_CM_REQ, 0x1000 + q->my_qpn);
	roce_req_set_local_comm_id(m, 0xC0000000u | q->my_qpn);
	roce_req_set_service_id(m, service_id);
	roce_req_set_local_qpn(m, q->my_qpn);
	roce_req_set_resp_resources(m, 4);
	roce_req_set_initiator_depth(m, 4);
	roce_req_set_start_psn(m, q->dut_psn); /* the PSN we expect the DUT to send from */
	roce_req_set_retry_count(m, 3);
	roce_req_set_pkey(m, 0xFFFF);
	roce_req_set_path_mtu(m, roce_mtu_enum(PMTU));
	roce_req_set_rnr_retry(m, 3);
	roce_req_set_primary_local_lid(m, lid);
	roce_req_set_primary_remote_lid(m, lid);
	roce_gid_from_ip(P.ipv, P.my_ip, roce_req_primary_local_gid(m));
	roce_gid_from_ip(P.ipv, P.dut_ip, roce_req_primary_remote_gid(m));
	roce_req_set_primary_hop_limit(m, AV_HOP);
	roce_req_set_primary_tclass(m, AV_TC);
	roce_req_set_primary_ack_timeout(m, 16);
	uint8_t *ip = mad + ROCE_CM_REQ_PRIVATE_OFF;
	roce_ipcm_set_sport(ip, 40000);
	roce_ipcm_set_addrs(ip, P.ipv, P.my_ip, P.dut_ip);
	cm_tx(q, mad);
}

/* REQ (junk primary LIDs: reserved, A17.7) -> REP -> RTU; the DUT's comm ID in *dut_id. */
static bool cm_connect(struct dq *q, uint16_t lid, uint32_t *dut_id)
{
	uint8_t mad[ROCE_MAD_LEN];
	uint16_t attr;
	cm_req(q, roce_cm_ip_service_id(CM_PORT), lid);
	REQUIRE(cm_rx(1000, mad, &attr), "no answer to the REQ");
	const uint8_t *m = mad + ROCE_MAD_HDR_LEN;
	REQUIRE(attr == ROCE_CM_REP, "a REQ with port LIDs 0x%04x got attribute 0x%04x (REJ reason %u), not a REP", lid,
		attr, attr == ROCE_CM_REJ ? (unsigned)roce_rej_reason(m) : 0);
	REQUIRE(roce_rep_remote_comm_id(m) == (0xC0000000u | q->my_qpn) && roce_rep_local_qpn(m) == q->qpn,
		"REP: remote comm ID 0x%llx, QPN 0x%llx", (unsigned long long)roce_rep_remote_comm_id(m),
		(unsigned long long)roce_rep_local_qpn(m));
	REQUIRE(roce_mad_tid(mad) == 0x1000 + q->my_qpn, "REP: the REQ's transaction ID");
	*dut_id = (uint32_t)roce_rep_local_comm_id(m);
	q->epsn = (uint32_t)roce_rep_start_psn(m); /* what the DUT expects from us */
	roce_cm_mad_init(mad, ROCE_CM_RTU, 0x1000 + q->my_qpn);
	roce_rtu_set_local_comm_id(mad + ROCE_MAD_HDR_LEN, 0xC0000000u | q->my_qpn);
	roce_rtu_set_remote_comm_id(mad + ROCE_MAD_HDR_LEN, *dut_id);
	cm_tx(q, mad);
	sleep_ms(20);
	REQUIRE(strcmp(qp_state(q), "RTS") == 0, "after the RTU the QP is %s, not RTS", qp_state(q));
	return true;
}

static bool sc_cm_connect(void)
{
	struct dq q;
	struct got g;
	uint32_t id;
	if (!cm_qp(&q, true) || !cm_connect(&q, 0xBEEF, &id))
		return false;
	REQUIRE(call("post_recv", "{\"qp\":%d,\"wr_id\":1,\"sge\":[{\"mr\":%d,\"offset\":0,\"length\":4096}]}", q.qp, q.mr),
		"post_recv");
	tx_req(&q, "RC SEND Only", q.epsn, pattern(3), 64, true);
	REQUIRE(expect_ack(&q, q.epsn, &g), "the connection made by the CM does not ACK at the REP's PSN");
	struct wc w;
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no receive completion (%s)", w.status);
	/* The DUT sends from the PSN the REQ asked for. */
	REQUIRE(post_send(&q, "SEND", 2, 0, 32, NULL), "post_send");
	if (!expect_req(&q, "RC SEND Only", q.dut_psn, 300, &g))
		return false;
	tx_ack(&q, q.dut_psn, ROCE_SYN_ACK, ROCE_AETH_ACK_UNLIMITED, 1);
	REQUIRE(poll_cq(&q, 500, &w) == 1 && strcmp(w.status, "SUCCESS") == 0, "no send completion (%s)", w.status);
	/* DREQ -> DREP, the QP leaves RTS. */
	uint8_t mad[ROCE_MAD_LEN];
	uint16_t attr;
	roce_cm_mad_init(mad, ROCE_CM_DREQ, 0x2000 + q.my_qpn);
	roce_dreq_set_local_comm_id(mad + ROCE_MAD_HDR_LEN, 0xC0000000u | q.my_qpn);
	roce_dreq_set_remote_comm_id(mad + ROCE_MAD_HDR_LEN, id);
	roce_dreq_set_remote_qpn(mad + ROCE_MAD_HDR_LEN, q.qpn);
	cm_tx(&q, mad);
	REQUIRE(cm_rx(1000, mad, &attr) && attr == ROCE_CM_DREP, "no DREP to the DREQ");
	REQUIRE(strcmp(qp_state(&q), "ERR") == 0, "after the DREQ the QP is %s, not ERR", qp_state(&q));
	return true;
}

struct scenario {
	const char *name;
	bool (*fn)(void);
	const char *rule;
	bool rcm; /* only with --rcm */
};

static const struct scenario scenarios[] = {
	{ "send-only", sc_send_only, "CA17-25", false },
	{ "write", sc_write, "CA17-25", false },
	{ "read", sc_read, "IBA9.7-READ-RESP", false },
	{ "atomic", sc_atomic, "CA17-25", false },
	{ "send-inv", sc_send_inv, "CA17-25", false },
	{ "ud-send", sc_ud_send, "A17.4.5-UD-L3HDR", false },
	{ "resp-errors", sc_resp_errors, "IBA9.7-ACCESS", false },
	{ "drops", sc_drops, "CA17-24", false },
	{ "req-send", sc_req_send, "IBA9.7-REQ-ACKREQ", false },
	{ "req-multi", sc_req_multi, "IBA9.7-REQ-PSN", false },
	{ "req-read", sc_req_read, "IBA9.7-REQ-PSN", false },
	{ "req-atomic", sc_req_atomic, "CA17-25", false },
	{ "req-ud-send", sc_req_ud_send, "IBA9.8-UD-LEN", false },
	{ "cm-connect", sc_cm_connect, "CA17-34", false },
	{ "fuzz", sc_fuzz, "CA17-39", false },
	{ "cnp", sc_cnp, "CA17-44", true },
	{ "cnp-pacing", sc_cnp_pacing, "A17.9.3-CNP-PACING", true },
};

/* The fault profiles only dutpeer detects ("tx-format" is its check of
 * every packet the DUT sends), and those whose sanity scenario is not
 * send-only because they break it. Any other profile is caught by the
 * conformance cases that name it (tester_mutation). */
struct fault_map {
	const char *fault;
	const char *detected_by; /* NULL: by the cases */
	const char *sanity;      /* NULL: send-only */
	bool rcm;                /* the agent runs with RCM_ARGS */
};

#define RCM_ARGS "--rcm --cnp-interval-us 200000 --rcm-line-rate 8 --rcm-recovery-us 20000"

static const struct fault_map fault_maps[] = {
	{ "sport-varies", "tx-format", "send-only,read,req-multi", false }, /* packets enough per QP */
	{ "cnp-no-pacing", "cnp-pacing", "cnp", true },
	{ "no-ack", NULL, "atomic", false },
	{ "msn-frozen", NULL, "atomic", false },
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static const struct fault_map *fault_map(const char *f)
{
	for (size_t i = 0; i < sizeof fault_maps / sizeof fault_maps[0]; i++)
		if (strcmp(fault_maps[i].fault, f) == 0)
			return &fault_maps[i];
	return NULL;
}

/* ---- Set-up ---- */

static bool parse_mac(const char *s, uint8_t *mac)
{
	unsigned v[6];
	if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return false;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return true;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	if (!v) {
		fprintf(stderr, "dutpeer: %s is not set (run under scripts/netns-pair --agent ...)\n", name);
		exit(2);
	}
	return v;
}

static void set_ip_version(int v)
{
	P.ipv = v;
	memset(P.my_ip, 0, 16);
	memset(P.dut_ip, 0, 16);
	if (P.ipv == 4) {
		inet_pton(AF_INET, env("ROCE_TESTER_IP4"), P.my_ip);
		inet_pton(AF_INET, env("ROCE_DUT_IP4"), P.dut_ip);
	} else {
		inet_pton(AF_INET6, env("ROCE_TESTER_IP6"), P.my_ip);
		inet_pton(AF_INET6, env("ROCE_DUT_IP6"), P.dut_ip);
	}
}

static void setup(void)
{
	set_ip_version(P.ipv);
	if (!parse_mac(env("ROCE_TESTER_MAC"), P.my_mac) || !parse_mac(env("ROCE_DUT_MAC"), P.dut_mac)) {
		fprintf(stderr, "dutpeer: bad MAC addresses in the environment\n");
		exit(2);
	}
	const char *agent = env("ROCE_AGENT");
	const char *colon = strrchr(agent, ':');
	if (!colon || (size_t)(colon - agent) >= sizeof P.agent_host || strlen(colon + 1) >= sizeof P.agent_port) {
		fprintf(stderr, "dutpeer: ROCE_AGENT is not HOST:PORT\n");
		exit(2);
	}
	memcpy(P.agent_host, agent, (size_t)(colon - agent));
	P.agent_host[colon - agent] = '\0';
	strcpy(P.agent_port, colon + 1);
	gchar *tok = NULL;
	if (!g_file_get_contents(env("ROCE_TOKEN_FILE"), &tok, NULL, NULL)) {
		fprintf(stderr, "dutpeer: cannot read the token file\n");
		exit(2);
	}
	g_strstrip(tok);
	P.token = tok;

	P.raw = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (P.raw < 0) {
		fprintf(stderr, "dutpeer: raw socket: %s\n", strerror(errno));
		exit(2);
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = (int)if_nametoindex(env("ROCE_IF_TESTER")) };
	if (bind(P.raw, (struct sockaddr *)&sll, sizeof sll) != 0) {
		fprintf(stderr, "dutpeer: bind: %s\n", strerror(errno));
		exit(2);
	}
	int one = 1;
	setsockopt(P.raw, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
	/* Keep our kernel from answering the DUT's packets with ICMP. */
	P.udp4 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(ROCE_UDP_PORT) };
	bind(P.udp4, (struct sockaddr *)&a4, sizeof a4);
	P.udp6 = socket(AF_INET6, SOCK_DGRAM, 0);
	setsockopt(P.udp6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(ROCE_UDP_PORT) };
	bind(P.udp6, (struct sockaddr *)&a6, sizeof a6);
	P.next_qpn = 0x100 + (unsigned)(getpid() % 64) * 0x40;
	P.afd = -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dutpeer [--ip 4|6] [--rcm] [--only S1,S2] [--fault NAME [--tolerate-format]] [--list]\n"
			"       dutpeer --agent-args-for NAME | --rcm-agent-args | --faults\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only = NULL, *fault = NULL;
	bool tolerate_format = false;
	P.ipv = 4;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ip") && i + 1 < argc) {
			P.ipv = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--rcm")) {
			P.rcm = true;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--fault") && i + 1 < argc) {
			fault = argv[++i];
		} else if (!strcmp(argv[i], "--tolerate-format")) {
			tolerate_format = true;
		} else if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++)
				printf("%-26s %s%s\n", scenarios[k].name, scenarios[k].rule, scenarios[k].rcm ? " (--rcm)" : "");
			return 0;
		} else if (!strcmp(argv[i], "--faults")) {
			for (size_t k = 0; k < sizeof fault_maps / sizeof fault_maps[0]; k++)
				if (fault_maps[k].detected_by)
					printf("%s\n", fault_maps[k].fault);
			return 0;
		} else if (!strcmp(argv[i], "--agent-args-for") && i + 1 < argc) {
			const struct fault_map *m = fault_map(argv[++i]);
			printf("%s\n", m && m->rcm ? RCM_ARGS : "");
			return 0;
		} else if (!strcmp(argv[i], "--rcm-agent-args")) {
			printf("%s\n", RCM_ARGS);
			return 0;
		} else {
			usage();
		}
	}
	if (P.ipv != 4 && P.ipv != 6)
		usage();
	/* Under a fault profile: the scenarios that detect it (if dutpeer is
	 * what detects it) must fail, and its sanity scenario must pass. */
	const struct fault_map *fm = fault ? fault_map(fault) : NULL;
	const char *detected_by = fm && fm->detected_by ? fm->detected_by : "";
	char sel[256] = "";
	if (fault) {
		if (fm && fm->rcm)
			P.rcm = true;
		snprintf(sel, sizeof sel, "%s%s%s", detected_by, *detected_by ? "," : "",
			 fm && fm->sanity ? fm->sanity : "send-only");
		only = sel;
	}
	setup();

	int failed = 0, unexpected = 0, ran = 0;
	for (size_t k = 0; k < sizeof scenarios / sizeof scenarios[0]; k++) {
		const struct scenario *s = &scenarios[k];
		if (only ? !in_list(only, s->name) : s->rcm != P.rcm)
			continue;
		cur_scenario = s->name;
		fail_msg[0] = '\0';
		unsigned v0 = P.violations;
		bool ok = s->fn();
		agent_close();
		sleep_ms(5);
		ran++;
		bool want_fail = in_list(detected_by, s->name);
		printf("%-4s %-26s %s%s%s\n", ok ? "pass" : "FAIL", s->name, s->rule, ok ? "" : ": ", ok ? "" : fail_msg);
		if (P.violations > v0)
			printf("     (%u packet format violations during it)\n", P.violations - v0);
		failed += !ok;
		unexpected += ok == want_fail;
		if (want_fail && ok)
			printf("     ^ expected to fail under fault %s\n", fault);
		if (!want_fail && !ok && fault)
			printf("     ^ fault %s should not break this scenario\n", fault);
	}
	bool fmt_ok = P.violations == 0;
	bool fmt_want_fail = in_list(detected_by, "tx-format");
	printf("%-4s %-26s every packet the DUT sent (%u violations%s)\n", fmt_ok ? "pass" : "FAIL", "tx-format",
	       P.violations, tolerate_format && !fmt_want_fail ? ", tolerated: the profile changes what the DUT sends" : "");
	if (fmt_want_fail ? fmt_ok : !fmt_ok && !tolerate_format)
		unexpected++;
	if (fmt_want_fail && fmt_ok)
		printf("     ^ expected to fail under fault %s\n", fault);
	if (!ran) {
		fprintf(stderr, "dutpeer: no scenario selected\n");
		return 1;
	}
	if (fault) {
		printf("fault %s: %s\n", fault, unexpected ? "NOT as claimed"
					       : *detected_by ? "breaks exactly what it claims"
							      : "the sanity scenario passes");
		return unexpected ? 1 : 0;
	}
	printf("%d scenarios, %d failed, tx-format %s\n", ran, failed, fmt_ok ? "clean" : "violated");
	return failed || !fmt_ok ? 1 : 0;
}
