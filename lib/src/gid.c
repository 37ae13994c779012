/* GIDs and the IP addresses they stand for (A17.4.1). */
#include "roce/gid.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const uint8_t ipv4_mapped_prefix[12] = { [10] = 0xFF, [11] = 0xFF };

void roce_gid_from_ip(int ip_version, const uint8_t *ip, uint8_t gid[ROCE_GID_LEN])
{
	if (ip_version == 6) {
		memcpy(gid, ip, ROCE_GID_LEN);
		return;
	}
	memcpy(gid, ipv4_mapped_prefix, sizeof ipv4_mapped_prefix);
	memcpy(gid + 12, ip, 4);
}

bool roce_gid_is_ipv4(const uint8_t gid[ROCE_GID_LEN])
{
	return memcmp(gid, ipv4_mapped_prefix, sizeof ipv4_mapped_prefix) == 0;
}

int roce_gid_to_ip(const uint8_t gid[ROCE_GID_LEN], uint8_t ip[ROCE_GID_LEN])
{
	if (roce_gid_is_ipv4(gid)) {
		memcpy(ip, gid + 12, 4);
		return 4;
	}
	memcpy(ip, gid, ROCE_GID_LEN);
	return 6;
}

bool roce_ipv6_is_link_local(const uint8_t ip[ROCE_GID_LEN])
{
	return ip[0] == 0xFE && (ip[1] & 0xC0) == 0x80;
}

bool roce_gid_parse(const char *text, uint8_t gid[ROCE_GID_LEN])
{
	uint8_t ip4[4];
	if (inet_pton(AF_INET6, text, gid) == 1)
		return true;
	if (inet_pton(AF_INET, text, ip4) != 1)
		return false;
	roce_gid_from_ip(4, ip4, gid);
	return true;
}

int roce_gid_format(const uint8_t gid[ROCE_GID_LEN], char *buf, size_t n)
{
	char text[INET6_ADDRSTRLEN];
	if (!inet_ntop(AF_INET6, gid, text, sizeof text))
		text[0] = '\0';
	return snprintf(buf, n, "%s", text);
}

uint64_t roce_guid_from_mac(const uint8_t mac[6])
{
	return (uint64_t)(mac[0] ^ 2) << 56 | (uint64_t)mac[1] << 48 | (uint64_t)mac[2] << 40 | 0xFFull << 32 |
	       0xFEull << 24 | (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
}
