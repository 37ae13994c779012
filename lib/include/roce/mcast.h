/*
 * UD multicast over RoCEv2 (notes §7.1): a group is an IP multicast
 * address (IPv4 224.0.0.0/4, IPv6 ff00::/8), named as a GID by its
 * IPv4-mapped form or by the IPv6 address itself. Its datagrams are UD
 * SENDs to DestQP 0xFFFFFF, framed to the MAC the group maps to: 01:00:5e
 * and the low 23 bits of an IPv4 group (RFC 1112 §6.4), 33:33 and the low
 * 32 bits of an IPv6 group (RFC 2464 §7). The checks, the plugin, lint and
 * the tester all take the group and its MAC from here.
 */
#ifndef ROCE_MCAST_H
#define ROCE_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/gid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The DestQP of every datagram sent to a group. */
#define ROCE_MCAST_QPN 0xFFFFFFu

/* Whether an IP address (4 bytes for version 4, 16 for 6) is multicast. */
bool roce_ip_is_multicast(int ip_version, const uint8_t *ip);
/* Whether a GID names a multicast group: ff00::/8, or the IPv4-mapped form
 * of an IPv4 multicast address. */
bool roce_gid_is_multicast(const uint8_t gid[ROCE_GID_LEN]);
/* The Ethernet destination a multicast group maps to. */
void roce_mcast_mac(int ip_version, const uint8_t *group, uint8_t mac[6]);

struct roce_mcast_group {
	int ip_version;          /* 4 or 6 */
	uint8_t ip[16];          /* the group: the first 4 bytes for IPv4 */
	uint8_t gid[ROCE_GID_LEN]; /* as a GID: ::ffff:a.b.c.d, or the IPv6 address */
	uint8_t mac[6];          /* the Ethernet destination it maps to */
};

/* Fills g from a multicast IP address; false (g untouched) when the
 * address is not multicast. */
bool roce_mcast_group_from_ip(int ip_version, const uint8_t *ip, struct roce_mcast_group *g);
/* Whether two groups are the same (IP version and address). */
bool roce_mcast_group_equal(const struct roce_mcast_group *a, const struct roce_mcast_group *b);

struct roce_pkt;

/* The group a parsed RoCEv2 packet is sent to: true when its IP header
 * was found and its destination is multicast. */
bool roce_pkt_mcast_group(const struct roce_pkt *p, struct roce_mcast_group *g);
/* The frame's Ethernet destination, or NULL when the packet was not
 * parsed from its Ethernet header. */
const uint8_t *roce_pkt_eth_dst(const struct roce_pkt *p);

/* How a multicast frame's Ethernet destination compares with the MAC its
 * group maps to. */
enum roce_mcast_mac_status {
	ROCE_MCAST_MAC_UNKNOWN, /* the frame's Ethernet header is not in view */
	ROCE_MCAST_MAC_OK,
	ROCE_MCAST_MAC_WRONG,
};
enum roce_mcast_mac_status roce_pkt_mcast_mac_status(const struct roce_pkt *p, const struct roce_mcast_group *g);

/* A MAC as a 48-bit number (the findings' observed and expected values). */
uint64_t roce_mac_u64(const uint8_t mac[6]);
/* "01:00:5e:7f:12:01"; returns what snprintf returns. */
int roce_mac_format(const uint8_t mac[6], char *buf, size_t n);
/* The group as an IP address: "239.255.18.1", "ff15::db8:1". */
int roce_mcast_group_format(const struct roce_mcast_group *g, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
