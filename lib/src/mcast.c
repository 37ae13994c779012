/* UD multicast addressing: groups, their GIDs and mapped MACs (roce/mcast.h). */
#include "roce/mcast.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "roce/packet.h"

bool roce_ip_is_multicast(int ip_version, const uint8_t *ip)
{
	if (ip_version == 4)
		return (ip[0] & 0xF0) == 0xE0; /* 224.0.0.0/4 */
	return ip_version == 6 && ip[0] == 0xFF; /* ff00::/8 */
}

bool roce_gid_is_multicast(const uint8_t gid[ROCE_GID_LEN])
{
	if (roce_gid_is_ipv4(gid))
		return roce_ip_is_multicast(4, gid + 12);
	return roce_ip_is_multicast(6, gid);
}

void roce_mcast_mac(int ip_version, const uint8_t *group, uint8_t mac[6])
{
	if (ip_version == 4) {
		mac[0] = 0x01, mac[1] = 0x00, mac[2] = 0x5E;
		mac[3] = group[1] & 0x7F; /* the low 23 bits */
		mac[4] = group[2];
		mac[5] = group[3];
	} else {
		mac[0] = 0x33, mac[1] = 0x33; /* the low 32 bits */
		memcpy(mac + 2, group + 12, 4);
	}
}

bool roce_mcast_group_equal(const struct roce_mcast_group *a, const struct roce_mcast_group *b)
{
	return a->ip_version == b->ip_version && !memcmp(a->ip, b->ip, a->ip_version == 4 ? 4 : 16);
}

bool roce_mcast_group_from_ip(int ip_version, const uint8_t *ip, struct roce_mcast_group *g)
{
	if (!roce_ip_is_multicast(ip_version, ip))
		return false;
	memset(g, 0, sizeof *g);
	g->ip_version = ip_version;
	memcpy(g->ip, ip, ip_version == 4 ? 4 : 16);
	roce_gid_from_ip(ip_version, ip, g->gid);
	roce_mcast_mac(ip_version, ip, g->mac);
	return true;
}

bool roce_pkt_mcast_group(const struct roce_pkt *p, struct roce_mcast_group *g)
{
	const uint8_t *ip = roce_pkt_hdr(p, ROCE_H_IPV4);
	if (ip)
		return roce_mcast_group_from_ip(4, roce_ipv4_dst(ip), g);
	ip = roce_pkt_hdr(p, ROCE_H_IPV6);
	return ip && roce_mcast_group_from_ip(6, roce_ipv6_dst(ip), g);
}

const uint8_t *roce_pkt_eth_dst(const struct roce_pkt *p)
{
	return p->has_eth && p->caplen >= ROCE_ETH_LEN ? p->buf : NULL;
}

enum roce_mcast_mac_status roce_pkt_mcast_mac_status(const struct roce_pkt *p, const struct roce_mcast_group *g)
{
	const uint8_t *dst = roce_pkt_eth_dst(p);
	if (!dst)
		return ROCE_MCAST_MAC_UNKNOWN;
	return memcmp(dst, g->mac, 6) == 0 ? ROCE_MCAST_MAC_OK : ROCE_MCAST_MAC_WRONG;
}

uint64_t roce_mac_u64(const uint8_t mac[6])
{
	return roce_be_load(mac, 6);
}

int roce_mac_format(const uint8_t mac[6], char *buf, size_t n)
{
	return snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
			mac[5]);
}

int roce_mcast_group_format(const struct roce_mcast_group *g, char *buf, size_t n)
{
	char text[INET6_ADDRSTRLEN];
	if (!inet_ntop(g->ip_version == 4 ? AF_INET : AF_INET6, g->ip, text, sizeof text))
		text[0] = '\0';
	return snprintf(buf, n, "%s", text);
}
