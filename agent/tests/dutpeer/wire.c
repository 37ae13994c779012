/*
 * dutpeer's wire: packets to the DUT (built by libroce on a raw socket),
 * packets from it, and the checks every one of them gets on its own
 * (libroce's stateless checks, ICRC, the address vector's DSCP and hop
 * limit, ECN, addresses, a constant UDP source port per QP, no ICMP port
 * unreachable): a violation fails the pseudo-scenario "tx-format".
 */
#include "dutpeer.h"

#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

int64_t now_ms(void)
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

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

void desc(struct dq *q, struct roce_desc *d, const char *opname, uint32_t psn)
{
	int op = roce_opcode_by_name(opname);
	if (op < 0) {
		fprintf(stderr, "dutpeer: no opcode '%s'\n", opname);
		exit(2);
	}
	roce_endpoint_desc(&q->ep, d, (uint8_t)op, psn & ROCE_PSN_MASK);
}

void tx(struct roce_desc *d)
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
long build(struct roce_desc *d, uint8_t *buf, size_t cap)
{
	return roce_build_frame(d, buf, cap);
}

void tx_raw(const uint8_t *buf, size_t n)
{
	if (send(P.raw, buf, n, 0) != (ssize_t)n)
		fprintf(stderr, "dutpeer: send: %s\n", strerror(errno));
}

static uint8_t pattern_buf[8192];

const uint8_t *pattern(unsigned seed)
{
	for (unsigned i = 0; i < sizeof pattern_buf; i++)
		pattern_buf[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
	return pattern_buf;
}

/* A SEND/WRITE request with payload and AckReq. */
void tx_req(struct dq *q, const char *opname, uint32_t psn, const void *data, size_t len, bool ackreq)
{
	struct roce_desc d;
	desc(q, &d, opname, psn);
	d.payload = data;
	d.payload_len = len;
	roce_bth_set_ackreq(d.bth, ackreq);
	tx(&d);
}

bool write_only(struct dq *q, uint32_t psn, uint64_t va, uint32_t rkey, const uint8_t *data, size_t len)
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

void tx_ack(struct dq *q, uint32_t psn, unsigned type, unsigned value, unsigned msn)
{
	struct roce_desc d;
	desc(q, &d, "RC Acknowledge", psn);
	uint8_t *a = roce_desc_hdr(&d, ROCE_H_AETH);
	roce_aeth_set_type(a, type);
	roce_aeth_set_value(a, value);
	roce_aeth_set_msn(a, msn);
	tx(&d);
}

void violation(const char *rule, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	P.violations++;
	if (P.violations <= 20)
		fprintf(stderr, "    VIOLATION %s (%s): %s\n", rule, P.scenario, msg);
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
bool rx(uint32_t my_qpn, int ms, struct got *g)
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

bool nothing_for(uint32_t my_qpn, int ms)
{
	struct got g;
	return !rx(my_qpn, ms, &g);
}

const uint8_t *aeth_of(struct got *g)
{
	return roce_pkt_hdr(&g->p, ROCE_H_AETH);
}

bool is_op(struct got *g, const char *name)
{
	return g->p.opcode == roce_opcode_by_name(name);
}

/* Expects an ACK-type AETH of the given syndrome type/value and PSN. */
bool expect_aeth(struct dq *q, int ms, unsigned type, int value, uint32_t psn, struct got *g)
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

bool expect_ack(struct dq *q, uint32_t psn, struct got *g)
{
	return expect_aeth(q, 300, ROCE_SYN_ACK, -1, psn, g);
}

bool expect_nak(struct dq *q, unsigned code, uint32_t psn)
{
	struct got g;
	return expect_aeth(q, 300, ROCE_SYN_NAK, (int)code, psn, &g);
}

/* Expects a request from the DUT with this opcode and PSN. */
bool expect_req(struct dq *q, const char *opname, uint32_t psn, int ms, struct got *g)
{
	REQUIRE(rx(q->my_qpn, ms, g), "no %s PSN %u from the DUT within %d ms", opname, psn & ROCE_PSN_MASK, ms);
	REQUIRE(is_op(g, opname), "got %s PSN %u, expected %s PSN %u", g->op->name, g->psn, opname, psn & ROCE_PSN_MASK);
	REQUIRE(g->psn == (psn & ROCE_PSN_MASK), "%s PSN %u, expected %u", opname, g->psn, psn & ROCE_PSN_MASK);
	return true;
}
