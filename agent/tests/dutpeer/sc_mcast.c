/*
 * UD multicast: a datagram to a group (group IP, mapped MAC, DestQP
 * 0xFFFFFF) reaches each attached QP whose Q_Key matches, once, and no
 * other QP; an RC packet to DestQP 0xFFFFFF is dropped; the DUT's sends to
 * IPv4 and IPv6 groups go to the mapped MAC with DestQP 0xFFFFFF; a CM
 * join makes the DUT's host send an IGMP (IPv4) and an MLD (IPv6) report
 * naming the group.
 */
#include "dutpeer.h"
#include "roce/mcast.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

/* The groups of these tests (docs/development.md: 239.255.18.0/24 and
 * ff15::db8:0/112). */
static void group_of(int ipv, unsigned n, struct roce_mcast_group *g)
{
	char text[64];
	uint8_t ip[16] = { 0 };
	snprintf(text, sizeof text, ipv == 4 ? "239.255.18.%u" : "ff15::db8:%u", n);
	inet_pton(ipv == 4 ? AF_INET : AF_INET6, text, ip);
	roce_mcast_group_from_ip(ipv, ip, g);
}

static const char *gid_text(const struct roce_mcast_group *g)
{
	static char text[64];
	roce_gid_format(g->gid, text, sizeof text);
	return text;
}

/* A UD SEND Only from the peer's QP of q to the group, with this Q_Key. */
static void tx_group(struct dq *q, const struct roce_mcast_group *g, uint32_t qkey, unsigned seed)
{
	struct roce_endpoint ep = q->ep;
	memcpy(ep.dst_ip, g->ip, 16);
	memcpy(ep.dst_mac, g->mac, 6);
	ep.dest_qpn = ROCE_MCAST_QPN;
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)roce_opcode_by_name("UD SEND Only"), 7);
	uint8_t *deth = roce_desc_hdr(&d, ROCE_H_DETH);
	roce_deth_set_qkey(deth, qkey);
	roce_deth_set_srcqp(deth, q->my_qpn);
	d.payload = pattern(seed);
	d.payload_len = 64;
	tx(&d);
}

/* Whether q's receive completes (within ms) with the datagram's length. */
static int got_copy(struct dq *q, int ms)
{
	struct wc w;
	int n = poll_cq(q, ms, &w);
	if (n < 0)
		return -1;
	return n == 1 && strcmp(w.status, "SUCCESS") == 0 && w.byte_len == 40 + 64;
}

static bool attach(struct dq *q, const struct roce_mcast_group *g, const char *method)
{
	REQUIRE(call(method, "{\"qp\":%d,\"gid\":\"%s\"}", q->qp, gid_text(g)), "%s: %s", method, P.err_msg);
	return true;
}

bool sc_mcast_deliver(void)
{
	struct dq q[3], rc;
	struct roce_mcast_group g;
	group_of(P.ipv, 1, &g);
	for (int i = 0; i < 3; i++)
		if (!dut_qp(&q[i], (struct dq_opts){ .type = "UD", .same_session = i > 0 }))
			return false;
	/* The same Q_Key on all three: only the attachment tells them apart. */
	if (!attach(&q[0], &g, "attach_mcast") || !attach(&q[1], &g, "attach_mcast"))
		return false;
	/* Attached again: the device sees the verb, and the QP stays one
	 * member with one copy (ibv_attach_mcast(3)). */
	if (!attach(&q[0], &g, "attach_mcast"))
		return false;
	uint64_t copies = counter("rx_mcast_copies");
	tx_group(&q[0], &g, 0x11111111u, 1);
	REQUIRE(got_copy(&q[0], 500) == 1, "the first attached QP got no copy");
	REQUIRE(got_copy(&q[0], 100) == 0, "the QP attached twice got a second copy");
	REQUIRE(got_copy(&q[1], 500) == 1, "the second attached QP got no copy");
	REQUIRE(got_copy(&q[2], 200) == 0, "a QP not attached to the group got a copy");
	REQUIRE(counter("rx_mcast_copies") == copies + 2, "rx_mcast_copies did not count two copies");
	/* The data, behind the 40 bytes of L3 header. */
	uint8_t buf[64];
	REQUIRE(mr_read(&q[1], 32768 + 40, 64, buf) && memcmp(buf, pattern(1), 64) == 0, "the copy's data differs");
	/* Another Q_Key: no copy (IBA9.6-QKEY). */
	tx_group(&q[0], &g, 0x22222222u, 2);
	REQUIRE(got_copy(&q[0], 200) == 0 && got_copy(&q[1], 100) == 0, "a copy with a Q_Key no attached QP has");
	/* Detached: no more copies for it. */
	REQUIRE(call("detach_mcast", "{\"qp\":%d,\"gid\":\"%s\"}", q[1].qp, gid_text(&g)), "detach_mcast: %s", P.err_msg);
	tx_group(&q[0], &g, 0x11111111u, 3);
	REQUIRE(got_copy(&q[0], 500) == 1, "the attached QP got no copy after the other detached");
	REQUIRE(got_copy(&q[1], 200) == 0, "a detached QP got a copy");
	/* RC to DestQP 0xFFFFFF: dropped, unanswered (IBA9.6-MCAST-RCUC). */
	if (!dut_qp(&rc, (struct dq_opts){ .same_session = true }))
		return false;
	uint64_t rcuc = counter("rx_drop_mcast_rcuc");
	struct roce_endpoint ep = rc.ep;
	memcpy(ep.dst_ip, g.ip, 16);
	memcpy(ep.dst_mac, g.mac, 6);
	ep.dest_qpn = ROCE_MCAST_QPN;
	struct roce_desc d;
	roce_endpoint_desc(&ep, &d, (uint8_t)roce_opcode_by_name("RC SEND Only"), rc.epsn);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(4);
	d.payload_len = 32;
	tx(&d);
	REQUIRE(nothing_for(rc.my_qpn, 300), "an RC SEND to DestQP 0xFFFFFF was answered");
	REQUIRE(counter("rx_drop_mcast_rcuc") == rcuc + 1, "rx_drop_mcast_rcuc did not count the RC packet");
	/* The same at the port's own address: no group, dropped too. */
	roce_endpoint_desc(&rc.ep, &d, (uint8_t)roce_opcode_by_name("RC SEND Only"), rc.epsn);
	roce_bth_set_destqp(d.bth, ROCE_MCAST_QPN);
	roce_bth_set_ackreq(d.bth, 1);
	d.payload = pattern(5);
	d.payload_len = 32;
	tx(&d);
	REQUIRE(nothing_for(rc.my_qpn, 300), "an RC SEND to DestQP 0xFFFFFF at the port's address was answered");
	REQUIRE(counter("rx_drop_mcast_rcuc") == rcuc + 2, "rx_drop_mcast_rcuc did not count the RC packet to the port");
	/* A GID that is no group: the device refuses it (IBV-MCAST-GID). */
	REQUIRE(!call("attach_mcast", "{\"qp\":%d,\"gid\":\"198.18.0.77\"}", q[2].qp) && !strcmp(P.err_code, "bad_request"),
		"attach_mcast of a unicast GID: %s, expected bad_request from the device", P.err_code);
	return true;
}

/* The next frame from the DUT to this group within ms. */
static bool rx_group(const struct roce_mcast_group *g, int ms, struct got *out)
{
	int64_t end = now_ms() + ms;
	while (now_ms() < end) {
		struct pollfd pfd = { P.raw, POLLIN, 0 };
		if (poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			continue;
		ssize_t n = recv(P.raw, out->buf, sizeof out->buf, MSG_DONTWAIT);
		if (n <= 0 || roce_parse_frame(&out->p, out->buf, (size_t)n, (size_t)n, 0) != ROCE_OK)
			continue;
		struct roce_mcast_group to;
		if (!roce_pkt_mcast_group(&out->p, &to) || to.ip_version != g->ip_version ||
		    memcmp(to.ip, g->ip, 16) != 0)
			continue;
		out->len = (size_t)n;
		out->bth = roce_pkt_hdr(&out->p, ROCE_H_BTH);
		return true;
	}
	return false;
}

bool sc_mcast_send(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	REQUIRE(mr_write(&q, 0, pattern(9), 48), "write_mr");
	/* Both IP versions, whatever the run's: the port has a GID of each. */
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		struct roce_mcast_group g;
		group_of(ipv, 2, &g);
		JsonObject *r = call("create_ah", "{\"pd\":%d,\"dgid\":\"%s\",\"sgid_index\":%d}", q.pd, gid_text(&g),
				     ipv == 4 ? 0 : 1);
		REQUIRE(r, "create_ah to group %s: %s", gid_text(&g), P.err_msg);
		char extra[96];
		snprintf(extra, sizeof extra, "\"ah\":%lld,\"remote_qpn\":%u,\"remote_qkey\":%u", (long long)jint(r, "ah"),
			 ROCE_MCAST_QPN, 0x11111111u);
		REQUIRE(post_send(&q, "SEND", ipv, 0, 48, extra), "post_send to group %s: %s", gid_text(&g), P.err_msg);
		struct got f;
		REQUIRE(rx_group(&g, 1000, &f), "no frame from the DUT to group %s", gid_text(&g));
		char mac[24], want[24];
		roce_mac_format(roce_pkt_eth_dst(&f.p), mac, sizeof mac);
		roce_mac_format(g.mac, want, sizeof want);
		REQUIRE(roce_pkt_mcast_mac_status(&f.p, &g) == ROCE_MCAST_MAC_OK, "IPv%d group: Ethernet destination %s, the group maps to %s (%s)",
			ipv, mac, want, ipv == 4 ? "RFC1112-6.4-MCAST-MAC" : "RFC2464-7-MCAST-MAC");
		REQUIRE(roce_bth_destqp(f.bth) == ROCE_MCAST_QPN, "IPv%d group: DestQP 0x%x, not the work request's 0xFFFFFF (IBV-UD-REMOTE-QPN)",
			ipv, roce_bth_destqp(f.bth));
		REQUIRE(f.p.payload_len == 48 && memcmp(f.p.buf + f.p.payload_off, pattern(9), 48) == 0, "the datagram's data differs");
	}
	return true;
}

/* An IGMP (v1, v2, v3) or MLD (v1, v2) report from the DUT naming the
 * group, within ms. */
static bool report_seen(const struct roce_mcast_group *g, int ms)
{
	uint8_t b[2048];
	int64_t end = now_ms() + ms;
	while (now_ms() < end) {
		struct pollfd pfd = { P.raw, POLLIN, 0 };
		if (poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			continue;
		ssize_t n = recv(P.raw, b, sizeof b, MSG_DONTWAIT);
		if (n < ROCE_ETH_LEN + 20 || memcmp(b + ROCE_ETH_SRC_OFF, P.dut_mac, 6) != 0)
			continue;
		unsigned et = (unsigned)roce_be_load(b + ROCE_ETH_TYPE_OFF, 2);
		const uint8_t *ip = b + ROCE_ETH_LEN, *end_b = b + n;
		if (et == ROCE_ETHERTYPE_IPV4 && g->ip_version == 4 && roce_ipv4_proto(ip) == 2) {
			const uint8_t *igmp = ip + (ip[0] & 0xF) * 4;
			if (igmp + 8 > end_b)
				continue;
			if ((igmp[0] == 0x12 || igmp[0] == 0x16) && !memcmp(igmp + 4, g->ip, 4))
				return true;
			if (igmp[0] == 0x22) { /* v3: group records */
				unsigned nrec = (unsigned)roce_be_load(igmp + 6, 2);
				const uint8_t *rec = igmp + 8;
				for (unsigned i = 0; i < nrec && rec + 8 <= end_b; i++) {
					if (!memcmp(rec + 4, g->ip, 4))
						return true;
					rec += 8 + rec[1] * 4 + roce_be_load(rec + 2, 2) * 4;
				}
			}
		} else if (et == ROCE_ETHERTYPE_IPV6 && g->ip_version == 6) {
			unsigned nh = roce_ipv6_nexthdr(ip);
			const uint8_t *h = ip + ROCE_IPV6_LEN;
			if (nh == 0 && h + 8 <= end_b) { /* hop-by-hop (the router alert) */
				nh = h[0];
				h += (h[1] + 1) * 8;
			}
			if (nh != 58 || h + 24 > end_b)
				continue;
			if (h[0] == 131 && !memcmp(h + 8, g->ip, 16))
				return true;
			if (h[0] == 143) { /* MLDv2: address records */
				unsigned nrec = (unsigned)roce_be_load(h + 6, 2);
				const uint8_t *rec = h + 8;
				for (unsigned i = 0; i < nrec && rec + 20 <= end_b; i++) {
					if (!memcmp(rec + 4, g->ip, 16))
						return true;
					rec += 20 + rec[1] * 4 + roce_be_load(rec + 2, 2) * 16;
				}
			}
		}
	}
	return false;
}

bool sc_cm_join(void)
{
	struct dq q;
	if (!dut_qp(&q, (struct dq_opts){ .type = "UD" }))
		return false;
	for (int ipv = 4; ipv <= 6; ipv += 2) {
		struct roce_mcast_group g;
		group_of(ipv, 3, &g);
		char ip[64];
		roce_mcast_group_format(&g, ip, sizeof ip);
		JsonObject *r = call("cm_join", "{\"qp\":%d,\"group\":\"%s\"}", q.qp, ip);
		REQUIRE(r, "cm_join %s: %s", ip, P.err_msg);
		REQUIRE(jint(r, "qkey") == 0x11111111 && !strcmp(json_object_get_string_member(r, "mgid"), gid_text(&g)),
			"cm_join %s: mgid %s qkey 0x%llx", ip, json_object_get_string_member(r, "mgid"),
			(unsigned long long)jint(r, "qkey"));
		REQUIRE(report_seen(&g, 3000), "no %s report naming %s within 3 s of the join (RFC3376-5.1-JOIN)",
			ipv == 4 ? "IGMP" : "MLD", ip);
		/* Joined means attached: the group's datagrams reach the QP
		 * (from the peer's address of the run's version). */
		if (ipv == P.ipv) {
			tx_group(&q, &g, 0x11111111u, 5);
			REQUIRE(got_copy(&q, 500) == 1, "the joined QP got no copy of a datagram to %s", ip);
		}
		REQUIRE(!call("detach_mcast", "{\"qp\":%d,\"gid\":\"%s\"}", q.qp, ip) && !strcmp(P.err_code, "invalid_state"),
			"detach_mcast of a CM join: %s, expected invalid_state", P.err_code);
		REQUIRE(call("cm_leave", "{\"qp\":%d,\"group\":\"%s\"}", q.qp, ip), "cm_leave %s: %s", ip, P.err_msg);
	}
	return true;
}
