/*
 * The soft device: its raw socket on a named interface, the UDP 4791 sink
 * that keeps the kernel from answering with ICMP port unreachable, the GID
 * table (the interface's addresses), next-hop MAC resolution through the
 * kernel's neighbour table, the timers, and transmission.
 */
#include "soft.h"
#include "roce/mcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib-unix.h>

#include "text.h"

int64_t soft_now_us(void)
{
	return g_get_monotonic_time();
}

/* Linux's rule (iboe_get_mtu): the interface MTU less the largest RoCE
 * headers (GRH 40, UDP 8, BTH 12, XRCETH 4, AtomicETH 28, ICRC 4), rounded
 * down to an IB MTU. */
unsigned soft_port_mtu(const struct soft_dev *dev)
{
	unsigned room = dev->if_mtu > 96 ? dev->if_mtu - 96 : 0;
	for (unsigned e = 5; e >= 1; e--)
		if (roce_mtu_bytes(e) <= room)
			return roce_mtu_bytes(e);
	return 256;
}

/* ---- GIDs ---- */

static int gid_rank(const struct soft_gid *g)
{
	if (g->ip_version == 4)
		return 0;
	return roce_ipv6_is_link_local(g->gid) ? 2 : 1; /* link-local last */
}

static gint gid_cmp(gconstpointer a, gconstpointer b)
{
	const struct soft_gid *x = a, *y = b;
	int r = gid_rank(x) - gid_rank(y);
	return r ? r : memcmp(x->gid, y->gid, 16);
}

/* The GID table: IPv4 addresses (as ::ffff:a.b.c.d) first, then global
 * IPv6 addresses, then link-local ones, each group in address order, all
 * of type RoCEv2; with --rocev1 the same again as RoCE v1 GIDs. */
void soft_refresh_gids(struct soft_dev *dev)
{
	struct ifaddrs *ifa_list = NULL;
	if (!dev->ifindex)
		return; /* a detached device keeps the table it was given */
	if (getifaddrs(&ifa_list) != 0)
		return;
	dev->n_gids = 0;
	for (struct ifaddrs *ifa = ifa_list; ifa && dev->n_gids < SOFT_MAX_GIDS; ifa = ifa->ifa_next) {
		if (!ifa->ifa_addr || strcmp(ifa->ifa_name, dev->ifname) != 0)
			continue;
		struct soft_gid *g = &dev->gids[dev->n_gids];
		memset(g, 0, sizeof *g);
		if (ifa->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *sin = (const struct sockaddr_in *)ifa->ifa_addr;
			roce_gid_from_ip(4, (const uint8_t *)&sin->sin_addr, g->gid);
			g->ip_version = 4;
			dev->n_gids++;
		} else if (ifa->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ifa->ifa_addr;
			memcpy(g->gid, &sin6->sin6_addr, 16);
			g->ip_version = 6;
			dev->n_gids++;
		}
	}
	freeifaddrs(ifa_list);
	qsort(dev->gids, dev->n_gids, sizeof dev->gids[0], (int (*)(const void *, const void *))gid_cmp);
	/* A dual-mode port: each address once more, as a RoCE v1 GID, after
	 * all the RoCEv2 ones (their indices stay what they were). */
	unsigned n2 = dev->n_gids;
	for (unsigned i = 0; dev->opts.rocev1 && i < n2 && dev->n_gids < SOFT_MAX_GIDS; i++) {
		dev->gids[dev->n_gids] = dev->gids[i];
		dev->gids[dev->n_gids++].rocev1 = true;
	}
}

bool soft_gid_at(struct soft_dev *dev, unsigned i, struct soft_gid *out)
{
	soft_refresh_gids(dev);
	if (i >= dev->n_gids)
		return false;
	*out = dev->gids[i];
	return true;
}

bool soft_is_our_ip(struct soft_dev *dev, int ip_version, const uint8_t *ip, bool rocev1)
{
	for (unsigned i = 0; i < dev->n_gids; i++) {
		const struct soft_gid *g = &dev->gids[i];
		if (g->ip_version != ip_version || g->rocev1 != rocev1)
			continue;
		uint8_t gid[ROCE_GID_LEN];
		roce_gid_from_ip(ip_version, ip, gid);
		if (memcmp(g->gid, gid, ROCE_GID_LEN) == 0)
			return true;
	}
	return false;
}

/* ---- Neighbours ---- */

static size_t ip_len(int v)
{
	return v == 4 ? 4 : 16;
}

void soft_neigh_learn(struct soft_dev *dev, int ip_version, const uint8_t *ip, const uint8_t *mac)
{
	size_t n = ip_len(ip_version);
	for (unsigned i = 0; i < SOFT_NEIGH_CACHE; i++) {
		struct soft_neigh *e = &dev->neigh[i];
		if (e->valid && memcmp(e->ip, ip, n) == 0 && (n == 16 || e->ip[15] == 4)) {
			memcpy(e->mac, mac, 6);
			return;
		}
	}
	struct soft_neigh *e = &dev->neigh[dev->neigh_next++ % SOFT_NEIGH_CACHE];
	memset(e, 0, sizeof *e);
	memcpy(e->ip, ip, n);
	if (n == 4)
		e->ip[15] = 4; /* tag: an IPv4 entry (never a valid IPv6 tail here) */
	memcpy(e->mac, mac, 6);
	e->valid = true;
}

static bool neigh_cached(struct soft_dev *dev, int ip_version, const uint8_t *ip, uint8_t *mac)
{
	size_t n = ip_len(ip_version);
	for (unsigned i = 0; i < SOFT_NEIGH_CACHE; i++) {
		const struct soft_neigh *e = &dev->neigh[i];
		if (e->valid && memcmp(e->ip, ip, n) == 0 && (n == 16 || e->ip[15] == 4)) {
			memcpy(mac, e->mac, 6);
			return true;
		}
	}
	return false;
}

struct nl_req {
	struct nlmsghdr nh;
	struct ndmsg nd;
	char attrs[64];
};

static void nl_add_attr(struct nlmsghdr *nh, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* Sends a neighbour request and reads its answer. For RTM_GETNEIGH returns
 * true and the MAC when the kernel has a usable entry. */
static bool nl_neigh(struct soft_dev *dev, int type, int ip_version, const uint8_t *ip, uint8_t *mac)
{
	if (dev->nl_fd < 0)
		return false;
	struct nl_req req;
	memset(&req, 0, sizeof req);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg));
	req.nh.nlmsg_type = (unsigned short)type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (type == RTM_NEWNEIGH)
		req.nh.nlmsg_flags |= NLM_F_CREATE;
	req.nh.nlmsg_seq = ++dev->nl_seq;
	req.nd.ndm_family = ip_version == 4 ? AF_INET : AF_INET6;
	req.nd.ndm_ifindex = dev->ifindex;
	if (type == RTM_NEWNEIGH) {
		req.nd.ndm_state = NUD_NONE;
		req.nd.ndm_flags = NTF_USE; /* resolve it, as if a packet were waiting */
	}
	nl_add_attr(&req.nh, NDA_DST, ip, ip_len(ip_version));
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	if (sendto(dev->nl_fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0)
		return false;

	char buf[4096];
	bool found = false;
	for (int tries = 0; tries < 4; tries++) {
		ssize_t n = recv(dev->nl_fd, buf, sizeof buf, 0);
		if (n <= 0)
			return found;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != dev->nl_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_DONE)
				return found;
			if (nh->nlmsg_type != RTM_NEWNEIGH || !mac)
				continue;
			struct ndmsg *nd = NLMSG_DATA(nh);
			if (!(nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE |
					       NUD_PERMANENT | NUD_NOARP)))
				continue;
			int alen = (int)(nh->nlmsg_len - NLMSG_LENGTH(sizeof *nd));
			for (struct rtattr *a = (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof *nd));
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				if (a->rta_type == NDA_LLADDR && RTA_PAYLOAD(a) == 6) {
					memcpy(mac, RTA_DATA(a), 6);
					found = true;
				}
			}
		}
	}
	return found;
}

bool soft_neigh_resolve(struct soft_dev *dev, int ip_version, const uint8_t *ip, uint8_t *mac)
{
	if (neigh_cached(dev, ip_version, ip, mac))
		return true;
	if (nl_neigh(dev, RTM_GETNEIGH, ip_version, ip, mac)) {
		soft_neigh_learn(dev, ip_version, ip, mac);
		return true;
	}
	if (dev->nl_fd < 0)
		return false; /* nobody to ask: waiting would only stall the loop */
	/* Ask the kernel to resolve it (ARP or ND) and wait a bounded time:
	 * this happens once per peer, before its first packet. */
	nl_neigh(dev, RTM_NEWNEIGH, ip_version, ip, NULL);
	for (int i = 0; i < 100; i++) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (nl_neigh(dev, RTM_GETNEIGH, ip_version, ip, mac)) {
			soft_neigh_learn(dev, ip_version, ip, mac);
			return true;
		}
	}
	return false;
}

bool soft_av_endpoint(struct soft_dev *dev, const struct be_av *av, struct roce_endpoint *ep,
		      bool resolve_mac, char *err, size_t errlen)
{
	struct soft_gid sg;
	if (!soft_gid_at(dev, av->sgid_index, &sg)) {
		text_printf(err, errlen, "sgid_index %u: the GID table has %u entries", av->sgid_index,
			 dev->n_gids);
		return false;
	}
	int dv = roce_gid_is_ipv4(av->dgid) ? 4 : 6;
	if (dv != sg.ip_version) {
		text_printf(err, errlen, "dgid is IPv%d but GID %u is IPv%d", dv, av->sgid_index,
			 sg.ip_version);
		return false;
	}
	if (av->sl > 7) {
		text_printf(err, errlen, "sl %u: SL 8-15 are reserved on a RoCE port (A17.4: SL 0-7 select PCP 0-7)",
			 av->sl);
		return false;
	}
	memset(ep, 0, sizeof *ep);
	ep->ip_version = dv;
	/* A17.8: the protocol is the source GID's type. */
	ep->rocev1 = sg.rocev1;
	roce_gid_to_ip(sg.gid, ep->src_ip);
	roce_gid_to_ip(av->dgid, ep->dst_ip);
	memcpy(ep->src_mac, dev->mac, 6);
	/* DSCP from the AV; ECN is ours: ECT(0) with congestion management,
	 * Not-ECT without (CA17-5, CA17-14). A RoCE v1 GRH's traffic class is
	 * the AV's whole: ECN is RoCEv2's (A17.9.3). */
	ep->traffic_class = sg.rocev1 ? av->traffic_class
				      : (uint8_t)((av->traffic_class & 0xFC) | (dev->opts.rcm ? 2 : 0));
	ep->flow_label = av->flow_label & 0xFFFFF;
	ep->hop_limit = av->hop_limit;
	ep->pkey = 0xFFFF;
	soft_vlan_tag(dev, av->sl, ep);
	/* A group's frames go to the MAC it maps to (RFC 1112 §6.4, RFC
	 * 2464 §7), not to a neighbour. */
	if (roce_gid_is_multicast(av->dgid)) {
		roce_mcast_mac(dv, ep->dst_ip, ep->dst_mac);
		return true;
	}
	if (resolve_mac && !soft_neigh_resolve(dev, dv, ep->dst_ip, ep->dst_mac)) {
		text_printf(err, errlen, "no MAC address for the destination GID (neighbour unresolved)");
		return false;
	}
	return true;
}

/* ---- VLAN ---- */

void soft_vlan_tag(const struct soft_dev *dev, unsigned sl, struct roce_endpoint *ep)
{
	ep->n_vlan = 0;
	if (dev->vlan_id < 0)
		return;
	/* A17.4: the SL selects the Ethernet priority, SL 0-7 -> PCP 0-7. */
	ep->n_vlan = 1;
	ep->vlan_tci[0] = roce_vlan_tci(sl, (unsigned)dev->vlan_id);
}

/* The kernel takes a received frame's 802.1Q tag out of the data (into
 * the packet's metadata): put it back, so that the frame is parsed as it
 * was on the wire. Returns the frame's new length. */
static size_t restore_vlan_tag(uint8_t *buf, size_t n, size_t cap, const struct tpacket_auxdata *aux)
{
	if (!aux || !(aux->tp_status & TP_STATUS_VLAN_VALID))
		return n;
	uint16_t tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID) && aux->tp_vlan_tpid ? aux->tp_vlan_tpid
											  : ROCE_ETHERTYPE_VLAN;
	size_t tagged = roce_frame_push_vlan(buf, n, cap, tpid, aux->tp_vlan_tci);
	return tagged ? tagged : n;
}

/* Whether a frame is on the device's own VLAN (or untagged, without one). */
static bool own_vlan(const struct soft_dev *dev, const uint8_t *f, size_t n)
{
	bool long_enough = n >= ROCE_ETH_LEN + ROCE_VLAN_LEN;
	uint16_t type = long_enough ? (uint16_t)roce_be_load(f + ROCE_ETH_TYPE_OFF, 2) : 0;
	if (dev->vlan_id < 0)
		return type != ROCE_ETHERTYPE_VLAN && type != ROCE_ETHERTYPE_QINQ;
	return type == ROCE_ETHERTYPE_VLAN &&
	       roce_vlan_vid((uint16_t)roce_be_load(f + ROCE_ETH_TYPE_OFF + 2, 2)) == (unsigned)dev->vlan_id;
}

/* ---- Transmit ---- */

bool soft_send_frame(struct soft_dev *dev, const uint8_t *frame, size_t len, const uint8_t *dst_mac)
{
	if (dev->tx_tap)
		dev->tx_tap(dev->tx_tap_ctx, frame, len);
	if (dev->raw_fd < 0)
		return false;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = dev->ifindex,
				  .sll_halen = 6 };
	memcpy(to.sll_addr, dst_mac, 6);
	return sendto(dev->raw_fd, frame, len, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)len;
}

/* What the device sent, counted by kind once it is on the wire: what a
 * transmit fault rewrote counts as what it became, and what it withheld
 * (or a send that failed) does not count. */
static void count_tx(struct soft_dev *dev, struct roce_desc *d)
{
	const struct roce_opcode_info *op = roce_opcode(d->bth[0]);
	struct soft_counters *c = &dev->cnt;
	c->tx_packets++;
	if (!op)
		return;
	switch (op->kind) {
	case ROCE_K_CNP: c->tx_cnp++; return;
	case ROCE_K_READ_RESP: c->tx_read_responses++; return;
	case ROCE_K_ATOMIC_ACK: c->tx_atomic_acks++; return;
	case ROCE_K_ACK: break;
	default: return;
	}
	const uint8_t *aeth = roce_desc_hdr(d, ROCE_H_AETH);
	switch (roce_aeth_type(aeth)) {
	case ROCE_SYN_ACK: c->tx_acks++; return;
	case ROCE_SYN_RNR_NAK: c->tx_rnr_nak++; return;
	case ROCE_SYN_NAK: break;
	default: return;
	}
	switch (roce_aeth_value(aeth)) {
	case ROCE_NAK_PSN_SEQ_ERR: c->tx_nak_psn_seq++; break;
	case ROCE_NAK_INVALID_REQUEST: c->tx_nak_inv_req++; break;
	case ROCE_NAK_REMOTE_ACCESS: c->tx_nak_rem_access++; break;
	case ROCE_NAK_REMOTE_OP: c->tx_nak_rem_op++; break;
	default: break;
	}
}

void soft_xmit(struct soft_dev *dev, struct roce_desc *d)
{
	if (dev->fs.halted || !soft_fault_tx(dev, d) || !soft_hostile_may_send(dev))
		return;
	long n = roce_build_frame(d, dev->txbuf, sizeof dev->txbuf);
	if (n <= 0)
		return;
	if (soft_send_frame(dev, dev->txbuf, (size_t)n, d->eth_dst))
		count_tx(dev, d);
	soft_mcast_loopback(dev, dev->txbuf, (size_t)n);
	if (dev->hostile.mode)
		soft_hostile_after_tx(dev, d);
}

struct be_qp *soft_qp_lookup(struct soft_dev *dev, uint32_t qpn)
{
	return g_hash_table_lookup(dev->qps, GUINT_TO_POINTER(qpn));
}

/* ---- Timers: one GSource, ready at the earliest QP deadline ---- */

static gboolean timer_dispatch(GSource *src, GSourceFunc cb, gpointer data)
{
	(void)src;
	(void)cb;
	struct soft_dev *dev = data;
	int64_t now = soft_now_us();
	GList *qps = g_hash_table_get_values(dev->qps);
	for (GList *l = qps; l; l = l->next) {
		struct be_qp *qp = l->data;
		soft_req_timers(qp, now);
		soft_cc_timers(qp, now);
	}
	g_list_free(qps);
	soft_timer_update(dev);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs timer_funcs = { .dispatch = timer_dispatch };

void soft_timer_update(struct soft_dev *dev)
{
	int64_t next = -1;
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, dev->qps);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		int64_t a = soft_req_next_deadline(v), b = soft_cc_next_deadline(v);
		if (a > 0 && (next < 0 || a < next))
			next = a;
		if (b > 0 && (next < 0 || b < next))
			next = b;
	}
	g_source_set_ready_time(dev->timer, next);
}

/* ---- Sockets ---- */

static gboolean on_raw(gint fd, GIOCondition cond, gpointer data)
{
	(void)cond;
	struct soft_dev *dev = data;
	/* Bounded per wake-up so that timers and the protocol keep running. */
	for (int i = 0; i < 256; i++) {
		struct sockaddr_ll from;
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		} ctl;
		/* Room for the tag put back: read at most 4 bytes less. */
		struct iovec iov = { dev->rxbuf, sizeof dev->rxbuf - 4 };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
				     .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof ctl };
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			break;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		const struct tpacket_auxdata *aux = NULL;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
			    c->cmsg_len >= CMSG_LEN(sizeof *aux))
				aux = (const struct tpacket_auxdata *)(const void *)CMSG_DATA(c);
		size_t len = restore_vlan_tag(dev->rxbuf, (size_t)n, sizeof dev->rxbuf, aux);
		if (!own_vlan(dev, dev->rxbuf, len))
			continue;
		soft_rx_frame(dev, dev->rxbuf, len);
	}
	soft_timer_update(dev);
	return G_SOURCE_CONTINUE;
}

static gboolean on_sink(gint fd, GIOCondition cond, gpointer data)
{
	(void)cond;
	(void)data;
	char buf[2048];
	for (int i = 0; i < 256; i++)
		if (recv(fd, buf, sizeof buf, MSG_DONTWAIT) < 0)
			break;
	return G_SOURCE_CONTINUE;
}

/* A UDP socket on port 4791 so that the kernel delivers RoCEv2 datagrams to
 * it (and we discard them) instead of answering ICMP port unreachable.
 * Bound to the interface; if the port is taken (a kernel rxe device, say),
 * someone already answers for it and nothing is needed. */
static int open_sink(struct soft_dev *dev, int family, char *err, size_t errlen)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		text_printf(err, errlen, "UDP socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev->ifname, (socklen_t)strlen(dev->ifname));
	int rc;
	if (family == AF_INET) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(ROCE_UDP_PORT) };
		rc = bind(fd, (struct sockaddr *)&a, sizeof a);
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(ROCE_UDP_PORT) };
		rc = bind(fd, (struct sockaddr *)&a, sizeof a);
	}
	if (rc != 0) {
		if (errno == EADDRINUSE) {
			g_message("soft: UDP port %d (%s) is already bound; leaving it to its owner", ROCE_UDP_PORT,
				  family == AF_INET ? "IPv4" : "IPv6");
			close(fd);
			return -2;
		}
		text_printf(err, errlen, "binding UDP port %d: %s", ROCE_UDP_PORT, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static bool read_if_info(struct soft_dev *dev, char *err, size_t errlen)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		text_printf(err, errlen, "socket: %s", strerror(errno));
		return false;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	g_strlcpy(ifr.ifr_name, dev->ifname, sizeof ifr.ifr_name);
	bool ok = false;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) != 0) {
		text_printf(err, errlen, "interface %s: %s", dev->ifname, strerror(errno));
	} else if (ifr.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */) {
		text_printf(err, errlen, "interface %s is not Ethernet", dev->ifname);
	} else {
		memcpy(dev->mac, ifr.ifr_hwaddr.sa_data, 6);
		if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
			dev->if_mtu = (unsigned)ifr.ifr_mtu;
		else
			dev->if_mtu = 1500;
		ok = true;
	}
	close(fd);
	return ok;
}

struct soft_dev *soft_dev_new(const struct backend_options *opts, char *err, size_t errlen)
{
	enum soft_fault fault = SOFT_FAULT_NONE;
	if (opts->fault && *opts->fault && strcmp(opts->fault, "none") != 0) {
		fault = soft_fault_by_name(opts->fault);
		if (fault == SOFT_FAULT_COUNT) {
			text_printf(err, errlen, "unknown fault profile '%s' (roce-agent --list-faults)",
				 opts->fault);
			return NULL;
		}
	}
	struct soft_dev *dev = g_new0(struct soft_dev, 1);
	dev->base.ops = &soft_ops;
	dev->opts = *opts;
	dev->opts.fault = NULL;
	dev->opts.device = NULL;
	dev->opts.iface = NULL;
	if (!dev->opts.cnp_interval_us)
		dev->opts.cnp_interval_us = 50;
	if (!dev->opts.rcm_line_rate_mbps)
		dev->opts.rcm_line_rate_mbps = 1000;
	if (!dev->opts.rcm_recovery_us)
		dev->opts.rcm_recovery_us = 2000;
	dev->fault = fault;
	if (opts->iface)
		g_strlcpy(dev->ifname, opts->iface, sizeof dev->ifname);
	dev->if_mtu = 1500;
	dev->raw_fd = dev->sink4_fd = dev->sink6_fd = dev->nl_fd = -1;
	dev->vlan_id = opts->vlan ? (int)opts->vlan : -1;
	dev->qps = g_hash_table_new(g_direct_hash, g_direct_equal);
	dev->mrs = g_hash_table_new(g_direct_hash, g_direct_equal);
	dev->mws = g_hash_table_new(g_direct_hash, g_direct_equal);
	dev->xrc_srqs = g_hash_table_new(g_direct_hash, g_direct_equal);
	dev->next_qpn = 0x11;
	dev->next_key = 0x1000;
	dev->next_comm_id = g_random_int() | 1u;
	dev->gsi_psn = g_random_int() & ROCE_PSN_MASK;
	dev->next_va = 0x10000000ull;
	dev->timer = g_source_new(&timer_funcs, sizeof(GSource));
	g_source_set_callback(dev->timer, NULL, dev, NULL);
	g_source_attach(dev->timer, NULL);
	return dev;
}

static void soft_close(struct backend *be);

static struct backend *soft_open(const struct backend_options *opts, char *err, size_t errlen)
{
	if (!opts->iface || !*opts->iface) {
		text_printf(err, errlen, "the soft backend needs --iface IF");
		return NULL;
	}
	if (strlen(opts->iface) >= IF_NAMESIZE) {
		text_printf(err, errlen, "interface name '%s' is too long", opts->iface);
		return NULL;
	}
	struct soft_dev *dev = soft_dev_new(opts, err, errlen);
	if (!dev)
		return NULL;

	if (!soft_hostile_open(dev, err, errlen))
		goto fail;
	dev->opts.hostile = NULL;

	dev->ifindex = (int)if_nametoindex(dev->ifname);
	if (!dev->ifindex) {
		text_printf(err, errlen, "no interface named '%s'", dev->ifname);
		goto fail;
	}
	if (!read_if_info(dev, err, errlen))
		goto fail;
	if (dev->vlan_id >= 0)
		g_message("soft: VLAN %d on %s: the DUT's frames carry its tag, PCP from the SL; other frames are not its own",
			  dev->vlan_id, dev->ifname);

	dev->raw_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_ALL));
	if (dev->raw_fd < 0) {
		text_printf(err, errlen, "raw socket: %s (the soft backend needs CAP_NET_RAW)",
			 strerror(errno));
		goto fail;
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
				   .sll_ifindex = dev->ifindex };
	if (bind(dev->raw_fd, (struct sockaddr *)&sll, sizeof sll) != 0) {
		text_printf(err, errlen, "binding the raw socket to %s: %s", dev->ifname, strerror(errno));
		goto fail;
	}
	int one = 1, rcvbuf = 4 << 20;
#ifdef PACKET_IGNORE_OUTGOING
	setsockopt(dev->raw_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
#endif
	setsockopt(dev->raw_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	/* The VLAN tags the kernel takes out of received frames. */
	setsockopt(dev->raw_fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof one);
	(void)one;

	dev->sink4_fd = open_sink(dev, AF_INET, err, errlen);
	if (dev->sink4_fd == -1)
		goto fail;
	dev->sink6_fd = open_sink(dev, AF_INET6, err, errlen);
	if (dev->sink6_fd == -1)
		goto fail;

	dev->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (dev->nl_fd >= 0) {
		struct timeval tv = { 0, 200 * 1000 };
		setsockopt(dev->nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	}

	soft_refresh_gids(dev);
	dev->raw_watch = g_unix_fd_add(dev->raw_fd, G_IO_IN, on_raw, dev);
	if (dev->sink4_fd >= 0)
		dev->sink4_watch = g_unix_fd_add(dev->sink4_fd, G_IO_IN, on_sink, dev);
	if (dev->sink6_fd >= 0)
		dev->sink6_watch = g_unix_fd_add(dev->sink6_fd, G_IO_IN, on_sink, dev);
	return &dev->base;

fail:
	soft_close(&dev->base);
	return NULL;
}

static void soft_close(struct backend *be)
{
	struct soft_dev *dev = (struct soft_dev *)be;
	soft_hostile_close(dev);
	soft_mcast_close(dev);
	soft_mw_close(dev);
	soft_xrc_close(dev);
	if (dev->raw_watch)
		g_source_remove(dev->raw_watch);
	if (dev->sink4_watch)
		g_source_remove(dev->sink4_watch);
	if (dev->sink6_watch)
		g_source_remove(dev->sink6_watch);
	if (dev->timer) {
		g_source_destroy(dev->timer);
		g_source_unref(dev->timer);
	}
	int fds[] = { dev->raw_fd, dev->sink4_fd, dev->sink6_fd, dev->nl_fd };
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* The protocol layer destroys every session's objects first. */
	g_hash_table_destroy(dev->qps);
	g_hash_table_destroy(dev->mrs);
	g_free(dev);
}

void soft_backend_close(struct backend *be)
{
	soft_close(be);
}

static const char *soft_fault_name(struct backend *be)
{
	struct soft_dev *dev = (struct soft_dev *)be;
	return dev->fault ? soft_fault_info(dev->fault)->name : NULL;
}

const struct backend_factory backend_soft_factory = {
	.name = "soft",
	.open = soft_open,
	.fault_name = soft_fault_name,
};
