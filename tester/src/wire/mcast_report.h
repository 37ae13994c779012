/*
 * Membership reports a host sends when it joins or leaves an IP multicast
 * group: IGMPv1 and v2 reports and v2 leaves (RFC 1112, RFC 2236),
 * IGMPv3 reports (RFC 3376 §4.2), MLDv1 reports and dones (RFC 2710) and
 * MLDv2 reports (RFC 3810 §5.2), parsed from Ethernet frames so that the
 * runner can see the DUT's connection manager join a group (expect join).
 * Queries are not reports. Only the groups and whether each is joined or
 * left are read; checksums are the network's business.
 */
#ifndef ROCE_TESTER_MCAST_REPORT_H
#define ROCE_TESTER_MCAST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mcast_report_kind { MR_IGMPV1, MR_IGMPV2, MR_IGMPV3, MR_MLDV1, MR_MLDV2 };

#define MCAST_REPORT_MAX 16

struct mcast_report {
	enum mcast_report_kind kind;
	int ip_version;     /* 4 (IGMP) or 6 (MLD) */
	uint8_t src_mac[6];
	unsigned n;         /* group records read (at most MCAST_REPORT_MAX) */
	unsigned n_more;    /* records past those */
	struct {
		uint8_t group[16]; /* IPv4 in the first 4 bytes */
		bool join;         /* joined (or still a member); false: left */
	} rec[MCAST_REPORT_MAX];
};

/* Whether a frame is a membership report (or leave); fills r. */
bool mcast_report_parse(const uint8_t *frame, size_t len, struct mcast_report *r);
/* Whether r names the group (ip_version's address); *join says how. */
bool mcast_report_names(const struct mcast_report *r, int ip_version, const uint8_t *group, bool *join);
/* "IGMPv3", "MLDv2" ... */
const char *mcast_report_kind_name(enum mcast_report_kind k);
/* One line: "IGMPv3 report: join 239.255.18.5" (cut visibly if n is short). */
void mcast_report_summary(const struct mcast_report *r, char *buf, size_t n);

#endif
