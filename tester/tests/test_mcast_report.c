/*
 * IGMP and MLD membership reports, from frames a Linux kernel sent when a
 * socket in a network namespace joined and left 239.255.18.5 and
 * ff15::db8:5 with each protocol version forced (net.ipv4.conf.*.
 * force_igmp_version, net.ipv6.conf.*.force_mld_version): every version's
 * join and leave is read as such; queries, other traffic and truncated
 * frames are not reports.
 */
#include <stdio.h>
#include <string.h>

#include "mcast_report.h"
#include "testutil.h"

struct sample {
	const char *what, *hex;
	enum mcast_report_kind kind;
	bool join;
};

static const struct sample samples[] = {
	{ "IGMPv1 report (IP Router Alert option)",
	  "01005e7f120502000000000a080046c000200000400001021c00c6120001efff1205940400001200ebfaefff1205", MR_IGMPV1, true },
	{ "IGMPv2 report",
	  "01005e7f120502000000000a080046c000200000400001021c00c6120001efff1205940400001600e7faefff1205", MR_IGMPV2, true },
	{ "IGMPv2 leave",
	  "01005e00000202000000000a080046c000200000400001023e02c6120001e0000002940400001700e6faefff1205", MR_IGMPV2, false },
	{ "IGMPv3 report, CHANGE_TO_EXCLUDE {}",
	  "01005e00001602000000000a080046c000280000400001023de6c6120001e0000016940400002200d7f90000000104000000efff1205",
	  MR_IGMPV3, true },
	{ "IGMPv3 report, CHANGE_TO_INCLUDE {}",
	  "01005e00001602000000000a080046c000280000400001023de6c6120001e0000016940400002200d8f90000000103000000efff1205",
	  MR_IGMPV3, false },
	{ "MLDv1 report (hop-by-hop Router Alert)",
	  "33330db8000502000000000a86dd6000000000200001fe80000000000000000000fffe00000aff15000000000000000000000db800053a00"
	  "0502000001008300657c00000000ff15000000000000000000000db80005", MR_MLDV1, true },
	{ "MLDv1 done",
	  "33330000000202000000000a86dd6000000000200001fe80000000000000000000fffe00000aff0200000000000000000000000000023a00"
	  "0502000001008400724a00000000ff15000000000000000000000db80005", MR_MLDV1, false },
	{ "MLDv2 report, CHANGE_TO_EXCLUDE {}",
	  "33330000001602000000000a86dd6000000000240001fe80000000000000000000fffe00000aff0200000000000000000000000000163a00"
	  "0502000001008f0063310000000104000000ff15000000000000000000000db80005", MR_MLDV2, true },
	{ "MLDv2 report, CHANGE_TO_INCLUDE {}",
	  "33330000001602000000000a86dd6000000000240001fe80000000000000000000fffe00000aff0200000000000000000000000000163a00"
	  "0502000001008f0064310000000103000000ff15000000000000000000000db80005", MR_MLDV2, false },
};

static size_t unhex(const char *h, uint8_t *out, size_t max)
{
	size_t n = 0;
	for (; h[0] && h[1] && n < max; h += 2) {
		unsigned b;
		sscanf(h, "%2x", &b);
		out[n++] = (uint8_t)b;
	}
	return n;
}

static const uint8_t g4[4] = { 239, 255, 18, 5 };
static const uint8_t g6[16] = { 0xff, 0x15, [12] = 0x0d, 0xb8, 0x00, 0x05 };

static void test_samples(void)
{
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		const struct sample *s = &samples[i];
		uint8_t f[256];
		size_t n = unhex(s->hex, f, sizeof f);
		struct mcast_report r;
		CHECK(mcast_report_parse(f, n, &r), "%s: a report", s->what);
		int ipv = s->kind >= MR_MLDV1 ? 6 : 4;
		bool join = !s->join;
		CHECK(r.kind == s->kind && r.ip_version == ipv && r.n == 1, "%s: %s, one group (%s, %u)", s->what,
		      mcast_report_kind_name(s->kind), mcast_report_kind_name(r.kind), r.n);
		CHECK(mcast_report_names(&r, ipv, ipv == 4 ? g4 : g6, &join) && join == s->join, "%s: %s the group", s->what,
		      s->join ? "joins" : "leaves");
		static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 0x0a };
		CHECK(!memcmp(r.src_mac, mac, 6), "%s: the sender's MAC", s->what);
		uint8_t other[16] = { 239, 255, 18, 6 };
		CHECK(!mcast_report_names(&r, ipv, other, &join) && !mcast_report_names(&r, ipv == 4 ? 6 : 4, g6, &join),
		      "%s: no other group", s->what);
		char sum[120];
		mcast_report_summary(&r, sum, sizeof sum);
		CHECK(strstr(sum, mcast_report_kind_name(s->kind)) && strstr(sum, s->join ? "join" : "leave") &&
		      strstr(sum, ipv == 4 ? "239.255.18.5" : "ff15::db8:5"), "summary: %s", sum);
		/* Cut short anywhere before its group, it is no report. */
		for (size_t cut = 0; cut + (ipv == 4 ? 4 : 16) < n && cut < n - 4; cut += 3) {
			struct mcast_report t;
			bool ok = mcast_report_parse(f, cut, &t);
			CHECK(!ok || t.n == 0 || !mcast_report_names(&t, ipv, ipv == 4 ? g4 : g6, &join) || cut >= n - (ipv == 4 ? 4 : 16),
			      "%s cut at %zu bytes names no group it does not hold", s->what, cut);
		}
	}
}

/* Behind an 802.1Q tag; an IGMPv3 report of several records. */
static void test_tagged_and_records(void)
{
	uint8_t f[256], t[260];
	size_t n = unhex(samples[3].hex, f, sizeof f);
	memcpy(t, f, 12);
	t[12] = 0x81, t[13] = 0x00, t[14] = 0x00, t[15] = 0x64;
	memcpy(t + 16, f + 12, n - 12);
	struct mcast_report r;
	bool join = false;
	CHECK(mcast_report_parse(t, n + 4, &r) && mcast_report_names(&r, 4, g4, &join) && join, "IGMPv3 behind a VLAN tag");
	/* Two records: IS_EXCLUDE of 239.255.18.7, then ALLOW of 239.255.18.8
	 * from one source (with one word of aux data); then BLOCK of .9. */
	static const uint8_t igmp[] = { 0x22, 0, 0, 0, 0, 0, 0, 3,
		2, 0, 0, 0, 239, 255, 18, 7,
		5, 1, 0, 1, 239, 255, 18, 8, 198, 18, 0, 9, 0xaa, 0xbb, 0xcc, 0xdd,
		6, 0, 0, 1, 239, 255, 18, 9, 198, 18, 0, 9 };
	uint8_t g[128];
	memcpy(g, f, 14 + 24); /* Ethernet and the IPv4 header with its option */
	memcpy(g + 38, igmp, sizeof igmp);
	unsigned total = 24 + sizeof igmp;
	g[14 + 2] = (uint8_t)(total >> 8), g[14 + 3] = (uint8_t)total;
	CHECK(mcast_report_parse(g, 38 + sizeof igmp, &r) && r.n == 3, "three records (%u)", r.n);
	uint8_t a7[4] = { 239, 255, 18, 7 }, a8[4] = { 239, 255, 18, 8 }, a9[4] = { 239, 255, 18, 9 };
	bool j7 = false, j8 = false, j9 = true;
	CHECK(mcast_report_names(&r, 4, a7, &j7) && j7 && mcast_report_names(&r, 4, a8, &j8) && j8 &&
	      mcast_report_names(&r, 4, a9, &j9) && !j9, "IS_EXCLUDE and ALLOW with a source join; BLOCK does not");
	/* A query is not a report. */
	g[38] = 0x11;
	CHECK(!mcast_report_parse(g, 38 + sizeof igmp, &r), "a query is no report");
	/* Nor is a UDP datagram. */
	g[38] = 0x22;
	g[14 + 9] = 17;
	CHECK(!mcast_report_parse(g, 38 + sizeof igmp, &r), "UDP is no report");
}

int main(void)
{
	test_samples();
	test_tagged_and_records();
	return test_result("test_mcast_report");
}
