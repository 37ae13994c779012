/*
 * Neighbour resolution for the DUT's address: the kernel's neighbour table
 * (rtnetlink) first, then an ARP request or an IPv6 Neighbour Solicitation
 * sent by the tester itself through libpcap. ARP and ND are link-layer
 * housekeeping, not RoCEv2, so their few fields are written here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rawio.h"
#include "roce/packet.h"
#include "roce/hdr.h"
#include "text.h"

static int kernel_lookup(const char *ifname, int family, const uint8_t *ip, uint8_t mac[6])
{
	unsigned ifindex = if_nametoindex(ifname);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 || !ifindex) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct {
		struct nlmsghdr nh;
		struct ndmsg nd;
	} req = { { NLMSG_LENGTH(sizeof(struct ndmsg)), RTM_GETNEIGH, NLM_F_REQUEST | NLM_F_DUMP, 1, 0 },
		  { .ndm_family = (uint8_t)family } };
	struct timeval tv = { 1, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		close(fd);
		return -1;
	}
	int found = -1;
	char buf[16384];
	size_t alen = family == AF_INET ? 4 : 16;
	for (bool done = false; !done;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0)
			break;
		for (struct nlmsghdr *nh = (void *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			struct ndmsg *nd = NLMSG_DATA(nh);
			if ((unsigned)nd->ndm_ifindex != ifindex ||
			    !(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_PERMANENT | NUD_DELAY | NUD_PROBE)))
				continue;
			const uint8_t *dst = NULL, *ll = NULL;
			int len = (int)NLMSG_PAYLOAD(nh, sizeof *nd);
			for (struct rtattr *a = (void *)((char *)nd + NLMSG_ALIGN(sizeof *nd)); RTA_OK(a, len);
			     a = RTA_NEXT(a, len)) {
				if (a->rta_type == NDA_DST && RTA_PAYLOAD(a) == alen)
					dst = RTA_DATA(a);
				else if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6)
					ll = RTA_DATA(a);
			}
			if (dst && ll && !memcmp(dst, ip, alen)) {
				memcpy(mac, ll, 6);
				found = 0;
			}
		}
	}
	close(fd);
	return found;
}

static size_t l2(const struct rawio *io, uint8_t *f, const uint8_t *dst, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + ROCE_ETH_SRC_OFF, io->mac, 6);
	size_t off = ROCE_ETH_TYPE_OFF;
	if (io->vlan >= 0) {
		roce_be_store(f + off, 2, ROCE_ETHERTYPE_VLAN);
		roce_be_store(f + off + 2, 2, (uint64_t)io->vlan & 0xFFF);
		off += 4;
	}
	roce_be_store(f + off, 2, type);
	return off + 2;
}

static size_t arp_request(const struct rawio *io, const uint8_t *ip, uint8_t *f)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t o = l2(io, f, bcast, ROCE_ETHERTYPE_ARP);
	static const uint8_t fixed[8] = { 0, 1, 8, 0, 6, 4, 0, 1 }; /* Ethernet, IPv4, request */
	memcpy(f + o, fixed, 8);
	memcpy(f + o + 8, io->mac, 6);
	memcpy(f + o + 14, io->ip4, 4);
	memset(f + o + 18, 0, 6);
	memcpy(f + o + 24, ip, 4);
	o += 28;
	while (o < 60)
		f[o++] = 0;
	return o;
}

static uint16_t csum_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

static size_t neighbour_solicitation(const struct rawio *io, const uint8_t *ip, uint8_t *f)
{
	/* To the solicited-node multicast address ff02::1:ffXX:XXXX. */
	uint8_t group[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff, [13] = ip[13], [14] = ip[14], [15] = ip[15] };
	uint8_t mmac[6] = { 0x33, 0x33, 0xff, ip[13], ip[14], ip[15] };
	size_t o = l2(io, f, mmac, ROCE_ETHERTYPE_IPV6);
	uint8_t *ip6 = f + o, *icmp = ip6 + ROCE_IPV6_LEN;
	memset(ip6, 0, ROCE_IPV6_LEN);
	roce_ipv6_set_version(ip6, 6);
	roce_ipv6_set_paylen(ip6, 32);
	roce_ipv6_set_nexthdr(ip6, IPPROTO_ICMPV6);
	roce_ipv6_set_hoplimit(ip6, 255);
	memcpy(roce_ipv6_src_ptr(ip6), io->ip6, 16);
	memcpy(roce_ipv6_dst_ptr(ip6), group, 16);
	memset(icmp, 0, 32);
	icmp[0] = 135; /* Neighbor Solicitation */
	memcpy(icmp + 8, ip, 16);
	icmp[24] = 1; /* source link-layer address option */
	icmp[25] = 1;
	memcpy(icmp + 26, io->mac, 6);
	uint32_t s = 0;
	const uint8_t *addrs = roce_ipv6_src(ip6); /* the source, then the destination */
	for (int i = 0; i < 32; i += 2)
		s += (uint32_t)(addrs[i] << 8 | addrs[i + 1]);
	s += 32 + IPPROTO_ICMPV6;
	for (int i = 0; i < 32; i += 2)
		s += (uint32_t)(icmp[i] << 8 | icmp[i + 1]);
	roce_be_store(icmp + 2, 2, csum_fold(s));
	return o + 72;
}

struct answer {
	int ip_version;
	const uint8_t *ip;
	uint8_t mac[6];
	bool found;
};

static void on_frame(void *ctx, const uint8_t *d, size_t caplen, size_t len, uint64_t ts)
{
	(void)len;
	(void)ts;
	struct answer *a = ctx;
	size_t o = 12;
	if (caplen < 14)
		return;
	uint16_t type = (uint16_t)roce_be_load(d + o, 2);
	if (type == ROCE_ETHERTYPE_VLAN && caplen >= 18) {
		o += 4;
		type = (uint16_t)roce_be_load(d + o, 2);
	}
	o += 2;
	if (a->ip_version == 4 && type == ROCE_ETHERTYPE_ARP && caplen >= o + 28) {
		/* ARP reply (or request) from the address we look for. */
		if (roce_be_load(d + o + 6, 2) <= 2 && !memcmp(d + o + 14, a->ip, 4)) {
			memcpy(a->mac, d + o + 8, 6);
			a->found = true;
		}
	} else if (a->ip_version == 6 && type == ROCE_ETHERTYPE_IPV6 && caplen >= o + ROCE_IPV6_LEN + 24) {
		const uint8_t *ip6 = d + o, *icmp = ip6 + ROCE_IPV6_LEN;
		if (roce_ipv6_nexthdr(ip6) != IPPROTO_ICMPV6 || icmp[0] != 136 || memcmp(icmp + 8, a->ip, 16))
			return;
		/* The target link-layer address option, else the source MAC. */
		size_t opt = 24;
		while (o + 40 + opt + 8 <= caplen) {
			if (icmp[opt] == 2 && icmp[opt + 1] == 1) {
				memcpy(a->mac, icmp + opt + 2, 6);
				a->found = true;
				return;
			}
			if (!icmp[opt + 1])
				break;
			opt += (size_t)icmp[opt + 1] * 8;
		}
		memcpy(a->mac, d + 6, 6);
		a->found = true;
	}
}

int rawio_resolve(struct rawio *io, int ip_version, const uint8_t *ip, bool kernel_first, uint8_t mac[6],
		  uint64_t timeout_ns, char *how, size_t howlen, char *err, size_t errlen)
{
	char text[INET6_ADDRSTRLEN];
	inet_ntop(ip_version == 6 ? AF_INET6 : AF_INET, ip, text, sizeof text);
	if (kernel_first && kernel_lookup(io->ifname, ip_version == 6 ? AF_INET6 : AF_INET, ip, mac) == 0) {
		snprintf(how, howlen, "kernel neighbour table");
		return 0;
	}
	if ((ip_version == 4 && !io->has_ip4) || (ip_version == 6 && !io->has_ip6)) {
		text_printf(err, errlen, "%s has no IPv%d address to resolve %s from", io->ifname, ip_version, text);
		return -1;
	}
	uint64_t end = rawio_now() + timeout_ns;
	struct answer a = { ip_version, ip, { 0 }, false };
	for (int attempt = 0; rawio_now() < end && !a.found; attempt++) {
		uint8_t f[128];
		size_t n = ip_version == 6 ? neighbour_solicitation(io, ip, f) : arp_request(io, ip, f);
		if (rawio_send(io, f, n, err, errlen) != 0)
			return -1;
		uint64_t until = rawio_now() + 300000000ull;
		if (until > end)
			until = end;
		while (!a.found && rawio_now() < until)
			if (rawio_wait(io, until, on_frame, &a, err, errlen) < 0)
				return -1;
	}
	if (!a.found) {
		text_printf(err, errlen, "%s: no %s answer from %s within %llu ms", io->ifname,
			 ip_version == 6 ? "Neighbour Advertisement" : "ARP", text,
			 (unsigned long long)(timeout_ns / 1000000));
		return -1;
	}
	memcpy(mac, a.mac, 6);
	snprintf(how, howlen, "%s by the tester", ip_version == 6 ? "IPv6 Neighbour Solicitation" : "ARP request");
	return 0;
}
