/*
 * IGMP and MLD membership reports (mcast_report.h). The layouts: IGMPv1/v2
 * (RFC 2236 §2) type, max resp time, checksum, group; IGMPv3 reports (RFC
 * 3376 §4.2) type 0x22, reserved, checksum, reserved, record count, then
 * records of type, aux data length (32-bit words), source count, group,
 * sources, aux data. MLD (RFC 2710 §3, RFC 3810 §5.2) is the same over
 * ICMPv6 with 16-byte addresses, reached past the IPv6 extension headers
 * (the Router Alert hop-by-hop option every MLD message carries).
 */
#include "mcast_report.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

enum {
	ETH_IPV4 = 0x0800, ETH_IPV6 = 0x86DD, ETH_VLAN = 0x8100, ETH_QINQ = 0x88A8,
	IPPROTO_IGMP_ = 2, IPPROTO_ICMPV6_ = 58,
	IGMP_V1_REPORT = 0x12, IGMP_V2_REPORT = 0x16, IGMP_V2_LEAVE = 0x17, IGMP_V3_REPORT = 0x22,
	MLD_V1_REPORT = 131, MLD_V1_DONE = 132, MLD_V2_REPORT = 143,
	/* Group record types (RFC 3376 §4.2.12, RFC 3810 §5.2.12). */
	REC_IS_INCLUDE = 1, REC_IS_EXCLUDE = 2, REC_TO_INCLUDE = 3, REC_TO_EXCLUDE = 4, REC_ALLOW = 5,
};

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static void add(struct mcast_report *r, const uint8_t *group, bool join)
{
	if (r->n == MCAST_REPORT_MAX) {
		r->n_more++;
		return;
	}
	memset(r->rec[r->n].group, 0, 16);
	memcpy(r->rec[r->n].group, group, r->ip_version == 4 ? 4 : 16);
	r->rec[r->n++].join = join;
}

/* A v3 record's meaning: EXCLUDE mode (any-source) is membership; INCLUDE
 * with sources is membership of those; INCLUDE of nothing is leaving. */
static bool record_joins(unsigned type, unsigned nsrc)
{
	return type == REC_IS_EXCLUDE || type == REC_TO_EXCLUDE ||
	       ((type == REC_IS_INCLUDE || type == REC_TO_INCLUDE || type == REC_ALLOW) && nsrc > 0);
}

/* IGMPv3 and MLDv2 records, alen the address length. */
static bool parse_records(struct mcast_report *r, const uint8_t *m, size_t len, size_t alen)
{
	if (len < 8)
		return false;
	unsigned count = be16(m + 6);
	size_t off = 8;
	for (unsigned i = 0; i < count; i++) {
		if (off + 4 + alen > len)
			return r->n > 0; /* a truncated frame: what was read */
		unsigned type = m[off], aux = m[off + 1], nsrc = be16(m + off + 2);
		add(r, m + off + 4, record_joins(type, nsrc));
		off += 4 + alen + (size_t)nsrc * alen + (size_t)aux * 4;
	}
	return true;
}

static bool parse_igmp(struct mcast_report *r, const uint8_t *m, size_t len)
{
	if (len < 8)
		return false;
	switch (m[0]) {
	case IGMP_V1_REPORT:
	case IGMP_V2_REPORT:
	case IGMP_V2_LEAVE:
		r->kind = m[0] == IGMP_V1_REPORT ? MR_IGMPV1 : MR_IGMPV2;
		add(r, m + 4, m[0] != IGMP_V2_LEAVE);
		return true;
	case IGMP_V3_REPORT:
		r->kind = MR_IGMPV3;
		return parse_records(r, m, len, 4);
	default:
		return false; /* a query, or not IGMP's */
	}
}

static bool parse_mld(struct mcast_report *r, const uint8_t *m, size_t len)
{
	switch (len >= 8 ? m[0] : 0) {
	case MLD_V1_REPORT:
	case MLD_V1_DONE:
		if (len < 24)
			return false;
		r->kind = MR_MLDV1;
		add(r, m + 8, m[0] == MLD_V1_REPORT);
		return true;
	case MLD_V2_REPORT:
		r->kind = MR_MLDV2;
		return parse_records(r, m, len, 16);
	default:
		return false;
	}
}

bool mcast_report_parse(const uint8_t *frame, size_t len, struct mcast_report *r)
{
	memset(r, 0, sizeof *r);
	if (len < 14)
		return false;
	memcpy(r->src_mac, frame + 6, 6);
	size_t off = 12;
	unsigned type = be16(frame + off);
	for (int tags = 0; (type == ETH_VLAN || type == ETH_QINQ) && tags < 2; tags++) {
		off += 4;
		if (off + 2 > len)
			return false;
		type = be16(frame + off);
	}
	off += 2;
	const uint8_t *ip = frame + off;
	size_t left = len - off;
	if (type == ETH_IPV4) {
		if (left < 20 || ip[0] >> 4 != 4 || ip[9] != IPPROTO_IGMP_)
			return false;
		size_t ihl = (size_t)(ip[0] & 0xF) * 4, total = be16(ip + 2);
		if (ihl < 20 || total < ihl || total > left)
			return false;
		r->ip_version = 4;
		return parse_igmp(r, ip + ihl, total - ihl);
	}
	if (type != ETH_IPV6 || left < 40 || ip[0] >> 4 != 6)
		return false;
	size_t end = 40 + be16(ip + 4) < left ? 40 + be16(ip + 4) : left;
	unsigned next = ip[6];
	size_t h = 40;
	/* Hop-by-hop, routing and destination options (8-byte units), a few at most. */
	for (int n = 0; (next == 0 || next == 43 || next == 60) && n < 4; n++) {
		if (h + 8 > end)
			return false;
		next = ip[h];
		h += ((size_t)ip[h + 1] + 1) * 8;
	}
	if (next != IPPROTO_ICMPV6_ || h > end)
		return false;
	r->ip_version = 6;
	return parse_mld(r, ip + h, end - h);
}

bool mcast_report_names(const struct mcast_report *r, int ip_version, const uint8_t *group, bool *join)
{
	if (r->ip_version != ip_version)
		return false;
	for (unsigned i = 0; i < r->n; i++) {
		if (!memcmp(r->rec[i].group, group, ip_version == 4 ? 4 : 16)) {
			*join = r->rec[i].join;
			return true;
		}
	}
	return false;
}

const char *mcast_report_kind_name(enum mcast_report_kind k)
{
	static const char *const names[] = { "IGMPv1", "IGMPv2", "IGMPv3", "MLDv1", "MLDv2" };
	return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

void mcast_report_summary(const struct mcast_report *r, char *buf, size_t n)
{
	text_printf(buf, n, "%s report:", mcast_report_kind_name(r->kind));
	for (unsigned i = 0; i < r->n; i++) {
		char a[INET6_ADDRSTRLEN];
		inet_ntop(r->ip_version == 4 ? AF_INET : AF_INET6, r->rec[i].group, a, sizeof a);
		text_appendf(buf, n, "%s %s %s", i ? "," : "", r->rec[i].join ? "join" : "leave", a);
	}
	if (r->n_more)
		text_appendf(buf, n, " and %u more groups", r->n_more);
}
