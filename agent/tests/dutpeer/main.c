/*
 * dutpeer: the soft DUT's smoke test, a scenario for each path of its own
 * that no conformance case judges: the responder's SEND with its
 * completion and data, SEND with Invalidate, the responder's QP state
 * after each kind of NAK, the requester's multi-packet SEND with its bytes
 * and immediate, every silent drop with the counter it raises,
 * UD receive and send (the completion's GRH flag, a Q_Key with the MSB
 * set), its connection manager end to end with the QP states it drives,
 * thousands of random packets, and CNP pacing. Whether the soft DUT
 * conforms rule by rule is what the conformance suite shows against it
 * (tester_e2e_soft_dut, and tester_mutation for its fault profiles).
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
#include "dutpeer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct peer P;

struct scenario {
	const char *name;
	bool (*fn)(void);
	const char *rule;
	bool rcm; /* only with --rcm */
};

static const struct scenario scenarios[] = {
	{ "send-only", sc_send_only, "CA17-25", false },
	{ "send-inv", sc_send_inv, "CA17-25", false },
	{ "resp-errors", sc_resp_errors, "IBA9.7-ACCESS", false },
	{ "req-send", sc_req_send, "CA17-25", false },
	{ "drops", sc_drops, "CA17-24", false },
	{ "ud-send", sc_ud_send, "A17.4.5-UD-L3HDR", false },
	{ "req-ud-send", sc_req_ud_send, "IBA9.8-UD-LEN", false },
	{ "cm-connect", sc_cm_connect, "CA17-34", false },
	{ "fuzz", sc_fuzz, "CA17-39", false },
	{ "cnp-pacing", sc_cnp_pacing, "A17.9.3-CNP-PACING", true },
	{ "srq-order", sc_srq_order, "IBA10-SRQ-ORDER", false },
	{ "srq-events", sc_srq_events, "IBA11-SRQ-LIMIT", false },
	{ "mcast-deliver", sc_mcast_deliver, "IBV-MCAST-DELIVER", false },
	{ "mcast-send", sc_mcast_send, "IBV-UD-REMOTE-QPN", false },
	{ "cm-join", sc_cm_join, "RFC3376-5.1-JOIN", false },
	{ "mw-bounds", sc_mw_bounds, "IBA10.6.7-MW-BOUNDS", false },
	{ "mw-type2-qp", sc_mw_type2_qp, "IBA10.6.7-MW-TYPE2-QP", false },
	{ "mw-local-inv", sc_mw_local_inv, "IBA10.6.7-MW-INVALID", false },
	{ "mw-rebind", sc_mw_rebind, "IBA10.6.7-MW-REBIND", false },
	{ "mw-send-inv", sc_mw_send_inv, "IBA10.6.7-SEND-INV", false },
	{ "mw-type1", sc_mw_type1, "IBA10.6.7-INV-REFUSE", false },
	{ "xrc-target", sc_xrc_target, "A14-XRC-SRQ", false },
	{ "xrc-initiator", sc_xrc_initiator, "A14-XRC-SRQ", false },
	{ "flush", sc_flush, "IBA1.5-FLUSH-RESP", false },
	{ "flush-order", sc_flush_order, "IBA1.5-FLUSH-ORDER", false },
	{ "atomic-write", sc_atomic_write, "IBA1.5-ATOMIC-WRITE", false },
	{ "placement-caps", sc_placement_caps, "IBA1.5-PLACEMENT-UNSUPPORTED", false },
	{ "req-placement", sc_req_placement, "IBA1.5-FLUSH-RESP", false },
	{ "console", sc_console, "CA17-23", false },
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
	/* packets enough per QP: an ACK and a NAK on one QP */
	{ "sport-varies", "tx-format", "send-only,send-inv,resp-errors", false },
	{ "cnp-no-pacing", "cnp-pacing", NULL, true },
	/* send-only waits for an ACK with MSN 1: a UD receive needs neither */
	{ "no-ack", NULL, "ud-send", false },
	{ "msn-frozen", NULL, "ud-send", false },
	/* Shared receive queues and multicast: the scenarios that show each
	 * profile until conformance cases name them. */
	{ "srq-lifo", "srq-order", NULL, false },
	{ "srq-empty-drop", "srq-order", NULL, false },
	{ "srq-limit-silent", "srq-events", NULL, false },
	{ "srq-limit-repeat", "srq-events", NULL, false },
	{ "srq-no-last-wqe", "srq-events", NULL, false },
	{ "mcast-deliver-unattached", "mcast-deliver", NULL, false },
	{ "mcast-single-copy", "mcast-deliver", NULL, false },
	{ "mcast-ignore-qkey", "mcast-deliver", NULL, false },
	{ "mcast-accept-rcuc", "mcast-deliver", NULL, false },
	{ "mcast-double-attach", "mcast-deliver", NULL, false },
	{ "mcast-attach-needs-join", "mcast-deliver", NULL, false },
	{ "mcast-attach-unicast", "mcast-deliver", NULL, false },
	{ "mcast-wrong-mac", "mcast-send", NULL, false },
	{ "mcast6-wrong-mac", "mcast-send", NULL, false },
	{ "mcast-unicast-destqp", "mcast-send", NULL, false },
	{ "cm-join-silent", "cm-join", NULL, false },
	/* Memory windows, XRC, FLUSH and ATOMIC WRITE (issue 25), until
	 * conformance cases name them. */
	{ "mw-unbound-accepted", "mw-type1", NULL, false },
	{ "mw-invalidated-accepted", "mw-local-inv,mw-send-inv", NULL, false },
	{ "mw-type2-any-qp", "mw-type2-qp", NULL, false },
	{ "mw-region-bounds", "mw-bounds", NULL, false },
	{ "send-inv-wrong-key", "mw-send-inv", NULL, false },
	{ "inv-type1-accepted", "mw-type1", NULL, false },
	{ "mw-rebind-allowed", "mw-rebind", NULL, false },
	{ "xrc-srqn-ignored", "xrc-target", NULL, false },
	{ "xrc-foreign-srq", "xrc-target", NULL, false },
	{ "xrc-resp-xrceth", "xrc-target,tx-format", NULL, false }, /* libroce flags it too */
	{ "flush-ignored-type", "flush", NULL, false },
	{ "flush-early", "flush-order", NULL, false },
	{ "flush-no-rights", "flush", NULL, false },
	{ "atomic-write-torn", "atomic-write", NULL, false },
	{ "atomic-write-unaligned", "atomic-write", NULL, false },
	{ "atomic-write-no-rights", "atomic-write", NULL, false },
	{ "placement-unsupported-acked", "placement-caps", NULL, false },
	/* What only the DUT's console shows. */
	{ "warn-write-zero-dmalen", "console", NULL, false },
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
	P.cm_gsi_psn = 77;
	P.scenario = "";
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
		P.scenario = s->name;
		P.fail_msg[0] = '\0';
		unsigned v0 = P.violations;
		bool ok = s->fn();
		agent_close();
		sleep_ms(5);
		ran++;
		bool want_fail = in_list(detected_by, s->name);
		printf("%-4s %-26s %s%s%s\n", ok ? "pass" : "FAIL", s->name, s->rule, ok ? "" : ": ", ok ? "" : P.fail_msg);
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

