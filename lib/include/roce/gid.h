/*
 * GIDs on a RoCE port (A17.4.1): a GID is an IPv6 address, and an IPv4
 * address stands as its IPv4-mapped form ::ffff:a.b.c.d.
 */
#ifndef ROCE_GID_H
#define ROCE_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_GID_LEN 16

/* The GID of an IP address: an IPv6 address as it is, an IPv4 address
 * (4 bytes) as ::ffff:a.b.c.d. */
void roce_gid_from_ip(int ip_version, const uint8_t *ip, uint8_t gid[ROCE_GID_LEN]);
/* Whether the GID is an IPv4-mapped address. */
bool roce_gid_is_ipv4(const uint8_t gid[ROCE_GID_LEN]);
/* The IP address a GID stands for: 4 bytes for an IPv4-mapped GID (the
 * version 4 is returned), else the 16 bytes of the IPv6 address (6). */
int roce_gid_to_ip(const uint8_t gid[ROCE_GID_LEN], uint8_t ip[ROCE_GID_LEN]);
/* Whether an IPv6 address (or a GID) is link-local, fe80::/10. */
bool roce_ipv6_is_link_local(const uint8_t ip[ROCE_GID_LEN]);
/* Parses a GID written as an IPv6 address, or an IPv4 address taken as
 * its mapped form. Returns false when it is neither. */
bool roce_gid_parse(const char *text, uint8_t gid[ROCE_GID_LEN]);
/* Writes the GID in IPv6 notation ("::ffff:198.18.0.2", "2001:db8::1").
 * Returns what snprintf returns. */
int roce_gid_format(const uint8_t gid[ROCE_GID_LEN], char *buf, size_t n);

/* The node GUID of a RoCE port with this MAC: the modified EUI-64, as
 * Linux derives it (the universal/local bit flipped, FF:FE in the middle). */
uint64_t roce_guid_from_mac(const uint8_t mac[6]);

#ifdef __cplusplus
}
#endif

#endif
