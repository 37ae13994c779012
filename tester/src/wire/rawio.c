/* Raw I/O: the path choice, the libpcap path and what both share (see rawio.h). */
#include "rawio.h"
#include "rawio_clock.h"
#include "rawio_ring.h"
#include "rawio_tcx.h"
#include "rdma_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "roce/gid.h"
#include "roce/packet.h"
#include "text.h"

uint64_t rawio_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int addresses(struct rawio *io, char *err, size_t errlen)
{
	struct ifaddrs *ifa, *a;
	if (getifaddrs(&ifa) != 0) {
		text_printf(err, errlen, "getifaddrs: %s", strerror(errno));
		return -1;
	}
	bool found = false, ip6_link_local = false;
	for (a = ifa; a; a = a->ifa_next) {
		if (!a->ifa_addr || strcmp(a->ifa_name, io->ifname))
			continue;
		found = true;
		if (a->ifa_addr->sa_family == AF_PACKET) {
			const struct sockaddr_ll *ll = (const void *)a->ifa_addr;
			if (ll->sll_halen == 6)
				memcpy(io->mac, ll->sll_addr, 6);
		} else if (a->ifa_addr->sa_family == AF_INET && !io->has_ip4) {
			memcpy(io->ip4, &((const struct sockaddr_in *)(const void *)a->ifa_addr)->sin_addr, 4);
			io->has_ip4 = true;
		} else if (a->ifa_addr->sa_family == AF_INET6) {
			const uint8_t *v6 = ((const struct sockaddr_in6 *)(const void *)a->ifa_addr)->sin6_addr.s6_addr;
			bool link_local = roce_ipv6_is_link_local(v6);
			/* A global address beats a link-local one. */
			if (!io->has_ip6 || (ip6_link_local && !link_local)) {
				memcpy(io->ip6, v6, 16);
				io->has_ip6 = true;
				ip6_link_local = link_local;
			}
		}
	}
	freeifaddrs(ifa);
	if (!found) {
		text_printf(err, errlen, "%s: no such interface", io->ifname);
		return -1;
	}
	return 0;
}

/* A bound UDP socket on 4791 makes the kernel deliver the DUT's packets
 * to it (where they are discarded) instead of answering them with ICMP
 * port unreachable, which a DUT could count as an error. */
static int guard(int family, const char *ifname, char *note, size_t n)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int one = 1, small = 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	int r;
	if (family == AF_INET) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(ROCE_UDP_PORT) };
		r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	} else {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(ROCE_UDP_PORT) };
		r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	}
	if (r != 0) {
		text_appendf(note, n,
			     "%sIPv%d UDP port %d is already bound (%s): something else on this host (the kernel's rdma_rxe?) "
			     "receives RoCEv2 on it",
			     note[0] ? "; " : "", family == AF_INET ? 4 : 6, ROCE_UDP_PORT, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void drain(int fd)
{
	char buf[64];
	if (fd >= 0)
		while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) >= 0)
			;
}

const char *rawio_path_name(enum rawio_path p)
{
	switch (p) {
	case RAWIO_PATH_AUTO: return "auto";
	case RAWIO_PATH_RING: return "ring";
	case RAWIO_PATH_BLOCKS: return "blocks";
	case RAWIO_PATH_PCAP: return "pcap";
	}
	return "?";
}

int rawio_path_by_name(const char *name)
{
	for (int p = RAWIO_PATH_AUTO; p <= RAWIO_PATH_PCAP; p++)
		if (!strcmp(name, rawio_path_name((enum rawio_path)p)))
			return p;
	return -1;
}

/* RoCEv2 (and RoCE v1, of dual-mode ports) for us, and what neighbour
 * resolution needs; IGMP, and IPv6 with a hop-by-hop header first (MLD
 * carries one), for the membership reports of the DUT's multicast joins.
 * A frame whose one VLAN tag the kernel took out of the data matches the
 * first half, one with a tag still in it the second. */
static void filter_expr(char *expr, size_t n)
{
	char base[160];
	snprintf(base, sizeof base, "udp dst port %d or ether proto 0x%04x or arp or icmp6 or igmp or (ip6 and ip6[6] = 0)",
		 ROCE_UDP_PORT, ROCE_ETHERTYPE_ROCEV1);
	snprintf(expr, n, "(%s) or (vlan and (%s))", base, base);
}

static int open_pcap(struct rawio *io, enum rawio_tstamp_pref pref, char *err, size_t errlen)
{
	const char *ifname = io->ifname;
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	io->pc = pcap_create(ifname, ebuf);
	if (!io->pc) {
		text_printf(err, errlen, "%s: %s", ifname, ebuf);
		return -1;
	}
	/* Immediate mode gives every frame a ring slot of the snapshot length:
	 * a jumbo frame (9216) with two tags fits, and 64 MiB holds ~7000. */
	pcap_set_snaplen(io->pc, RAWIO_SNAPLEN);
	pcap_set_promisc(io->pc, 0);
	pcap_set_immediate_mode(io->pc, 1);
	pcap_set_buffer_size(io->pc, 64 << 20);
	io->tstamp_nano = pcap_set_tstamp_precision(io->pc, PCAP_TSTAMP_PRECISION_NANO) == 0;
	/* Timestamps: the kernel's by default (same clock as the send
	 * times); the adapter's when asked for and offered. */
	int *types = NULL;
	int nt = pcap_list_tstamp_types(io->pc, &types);
	int chosen = -1;
	int want[3] = { PCAP_TSTAMP_HOST_HIPREC, PCAP_TSTAMP_HOST, -1 };
	if (pref == RAWIO_TS_ADAPTER) {
		want[0] = PCAP_TSTAMP_ADAPTER;
		want[1] = PCAP_TSTAMP_ADAPTER_UNSYNCED;
		want[2] = PCAP_TSTAMP_HOST_HIPREC;
	}
	for (int w = 0; w < 3 && chosen < 0; w++)
		for (int i = 0; i < nt; i++)
			if (types[i] == want[w])
				chosen = want[w];
	if (types)
		pcap_free_tstamp_types(types);
	if (chosen >= 0 && pcap_set_tstamp_type(io->pc, chosen) == 0)
		text_printf(io->tstamp, sizeof io->tstamp, "%s (%s)", pcap_tstamp_type_val_to_name(chosen),
			 pcap_tstamp_type_val_to_description(chosen));
	else
		text_printf(io->tstamp, sizeof io->tstamp, "host (kernel default)");
	if (chosen == PCAP_TSTAMP_ADAPTER || chosen == PCAP_TSTAMP_ADAPTER_UNSYNCED) {
		io->clocks.rx = RAWIO_CLOCK_ADAPTER;
		io->clocks.tx = RAWIO_CLOCK_HOST;
		text_printf(io->clocks.why, sizeof io->clocks.why,
			 "libpcap's %s timestamps on received frames, host send times: an interval from a send to a "
			 "receive spans two clocks",
			 pcap_tstamp_type_val_to_name(chosen));
	}
	int r = pcap_activate(io->pc);
	if (r == PCAP_ERROR_PERM_DENIED) {
		text_printf(err, errlen,
			 "%s: %s: sending and capturing raw frames needs CAP_NET_RAW: run as root, or grant it with "
			 "'setcap cap_net_raw+ep roce-tester' or systemd's AmbientCapabilities=CAP_NET_RAW "
			 "(docs/real-hardware.md)",
			 ifname, pcap_geterr(io->pc));
		pcap_close(io->pc);
		io->pc = NULL;
		return -1;
	}
	if (r < 0) {
		text_printf(err, errlen, "%s: %s", ifname, pcap_geterr(io->pc));
		pcap_close(io->pc);
		io->pc = NULL;
		return -1;
	}
	if (pcap_datalink(io->pc) != DLT_EN10MB) {
		text_printf(err, errlen, "%s: not an Ethernet interface (link type %s)", ifname,
			 pcap_datalink_val_to_name(pcap_datalink(io->pc)));
		return -1;
	}
	pcap_setdirection(io->pc, PCAP_D_IN);
	char expr[400];
	filter_expr(expr, sizeof expr);
	struct bpf_program prog;
	if (pcap_compile(io->pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0 || pcap_setfilter(io->pc, &prog) != 0) {
		text_printf(err, errlen, "%s: BPF filter: %s", ifname, pcap_geterr(io->pc));
		return -1;
	}
	pcap_freecode(&prog);
	if (pcap_setnonblock(io->pc, 1, ebuf) != 0) {
		text_printf(err, errlen, "%s: %s", ifname, ebuf);
		return -1;
	}
	io->fd = pcap_get_selectable_fd(io->pc);
	return 0;
}

/* The adapter's clock for the ring path: turned on, and its offset to
 * CLOCK_REALTIME measured; when either fails, the kernel's clock. */
static int64_t adapter_clock(struct rawio *io)
{
	char why[160];
	int64_t offset = 0;
	if (rawio_hwtstamp_enable(io->ifname, &io->hwts_old, why, sizeof why) == 0) {
		io->hwts_set = true;
		if (rawio_phc_offset(io->ts_caps.phc_index, &offset, why, sizeof why) == 0) {
			text_printf(io->clocks.why, sizeof io->clocks.why,
				 "the adapter's clock (/dev/ptp%d, %+.6f s from CLOCK_REALTIME at open) stamps sent and "
				 "received frames",
				 io->ts_caps.phc_index, (double)offset / 1e9);
			return offset;
		}
	}
	io->clocks.rx = RAWIO_CLOCK_KERNEL;
	io->clocks.tx = RAWIO_CLOCK_HOST;
	text_printf(io->clocks.why, sizeof io->clocks.why, "the adapter's clock could not be used (%s): kernel receive "
		 "timestamps, host send times", why);
	return 0;
}

static int open_ring(struct rawio *io, enum rawio_tstamp_pref pref, bool blocks, char *err, size_t errlen)
{
	rawio_choose_clocks(&io->ts_caps, pref, RAWIO_PATH_RING, io->ifname, &io->clocks);
	int64_t offset = io->clocks.rx == RAWIO_CLOCK_ADAPTER ? adapter_clock(io) : 0;
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, RAWIO_SNAPLEN);
	if (!dead) {
		text_printf(err, errlen, "out of memory");
		return -1;
	}
	char expr[400];
	filter_expr(expr, sizeof expr);
	struct bpf_program prog;
	if (pcap_compile(dead, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		text_printf(err, errlen, "%s: BPF filter: %s", io->ifname, pcap_geterr(dead));
		pcap_close(dead);
		return -1;
	}
	struct sock_fprog fprog = { (unsigned short)prog.bf_len, (struct sock_filter *)(void *)prog.bf_insns };
	int r = ring_open(io, &fprog, offset, blocks, err, errlen);
	pcap_freecode(&prog);
	pcap_close(dead);
	if (r != 0)
		return -1;
	io->tstamp_nano = true;
	text_printf(io->tstamp, sizeof io->tstamp, "%s",
		 io->clocks.rx == RAWIO_CLOCK_ADAPTER ? "adapter (hardware, PHC)" : "kernel (software, CLOCK_REALTIME)");
	return 0;
}

int rawio_open(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, char *err,
	       size_t errlen)
{
	return rawio_open_path(io, ifname, vlan, pref, RAWIO_PATH_AUTO, err, errlen);
}

int rawio_open_path(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, enum rawio_path path,
		    char *err, size_t errlen)
{
	memset(io, 0, sizeof *io);
	io->guard4 = io->guard6 = io->stack_bypass = -1;
	io->fd = -1;
	io->vlan = vlan;
	if (strlen(ifname) >= sizeof io->ifname) {
		text_printf(err, errlen, "%s: interface name too long", ifname);
		return -1;
	}
	snprintf(io->ifname, sizeof io->ifname, "%s", ifname);
	if (addresses(io, err, errlen) != 0)
		return -1;
	/* A RoCE engine on this port would answer (or drop) the DUT's
	 * packets before the tester sees them: stop, saying how to free it. */
	struct rdma_binding rb;
	if (rdma_port_find("/sys", ifname, &rb)) {
		rdma_port_advice(&rb, ifname, err, errlen);
		return -1;
	}
	char why[200] = "";
	if (rawio_ts_caps_query(ifname, &io->ts_caps, why, sizeof why) != 0)
		io->ts_caps.phc_index = -1;
	int rc = -1;
	if (path != RAWIO_PATH_PCAP) {
		bool blocks = path == RAWIO_PATH_BLOCKS;
		rc = open_ring(io, pref, blocks, err, errlen);
		if (rc == 0) {
			io->path = blocks ? RAWIO_PATH_BLOCKS : RAWIO_PATH_RING;
			text_printf(io->path_note, sizeof io->path_note, "%s: %s receive ring, sendmmsg batches with PACKET_QDISC_BYPASS",
				 rawio_path_name(io->path), blocks ? "TPACKET_V3 (read in blocks)" : "TPACKET_V2");
		} else if (path != RAWIO_PATH_AUTO) {
			rawio_close(io);
			return -1;
		} else {
			text_printf(why, sizeof why, "%s", err);
			rawio_close(io);
			memset(io, 0, sizeof *io);
			io->guard4 = io->guard6 = io->stack_bypass = -1;
			io->fd = -1;
			io->vlan = vlan;
			snprintf(io->ifname, sizeof io->ifname, "%s", ifname);
			if (addresses(io, err, errlen) != 0)
				return -1;
			rawio_ts_caps_query(ifname, &io->ts_caps, err, errlen);
		}
	}
	if (rc != 0) {
		rawio_choose_clocks(&io->ts_caps, RAWIO_TS_HOST, RAWIO_PATH_PCAP, ifname, &io->clocks);
		if (pref == RAWIO_TS_ADAPTER)
			rawio_choose_clocks(&io->ts_caps, pref, RAWIO_PATH_PCAP, ifname, &io->clocks);
		if (open_pcap(io, pref, err, errlen) != 0) {
			rawio_close(io);
			return -1;
		}
		io->path = RAWIO_PATH_PCAP;
		if (path == RAWIO_PATH_PCAP)
			text_printf(io->path_note, sizeof io->path_note, "pcap: libpcap (--io pcap)");
		else
			text_printf(io->path_note, sizeof io->path_note, "pcap: libpcap, the fallback (the ring path: %s)", why);
	}
	/* Frames to multicast MACs (a group's datagrams, IGMP and MLD reports)
	 * reach the socket only when the port takes them: all-multicast on the
	 * capture socket, dropped with it (a veth takes them anyway; best
	 * effort, as a port in promiscuous mode needs nothing). */
	struct packet_mreq mr = { .mr_ifindex = (int)if_nametoindex(ifname), .mr_type = PACKET_MR_ALLMULTI };
	if (io->fd >= 0)
		(void)setsockopt(io->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr);
	io->guard4 = guard(AF_INET, ifname, io->guard_note, sizeof io->guard_note);
	io->guard6 = guard(AF_INET6, ifname, io->guard_note, sizeof io->guard_note);
	/* Only with port 4791 ours: else something on this host receives
	 * those datagrams and must go on doing so. */
	if (io->guard4 >= 0 && io->guard6 >= 0)
		io->stack_bypass = rawio_tcx_drop_rocev2(ifname, io->stack_bypass_note, sizeof io->stack_bypass_note);
	else
		snprintf(io->stack_bypass_note, sizeof io->stack_bypass_note,
			 "not attached: UDP port 4791 is not the tester's alone");
	if (io->stack_bypass >= 0)
		snprintf(io->stack_bypass_note, sizeof io->stack_bypass_note,
			 "RoCEv2 frames dropped at tc ingress after capture (tcx), kept from the IP stack");
	return 0;
}

void rawio_close(struct rawio *io)
{
	if (io->pc)
		pcap_close(io->pc);
	io->pc = NULL;
	ring_close(io);
	if (io->hwts_set)
		rawio_hwtstamp_restore(io->ifname, &io->hwts_old);
	io->hwts_set = false;
	if (io->guard4 >= 0)
		close(io->guard4);
	if (io->guard6 >= 0)
		close(io->guard6);
	io->guard4 = io->guard6 = -1;
	if (io->stack_bypass >= 0)
		close(io->stack_bypass);
	io->stack_bypass = -1;
}

int rawio_send_ts(struct rawio *io, const uint8_t *frame, size_t len, uint64_t *ts_ns, enum rawio_clock *clock,
		  char *err, size_t errlen)
{
	if (io->ring) {
		if (ring_send_ts(io, frame, len, ts_ns, clock, err, errlen) != 0)
			return -1;
		io->tx_timed[*clock]++;
		return 0;
	}
	*ts_ns = rawio_now();
	*clock = RAWIO_CLOCK_HOST;
	if (pcap_inject(io->pc, frame, len) != (int)len) {
		io->tx_errors++;
		text_printf(err, errlen, "%s: send: %s", io->ifname, pcap_geterr(io->pc));
		return -1;
	}
	io->tx_frames++;
	io->tx_timed[RAWIO_CLOCK_HOST]++;
	return 0;
}

int rawio_send(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen)
{
	uint64_t ts;
	enum rawio_clock clock;
	return rawio_send_ts(io, frame, len, &ts, &clock, err, errlen);
}

int rawio_queue(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen)
{
	if (io->ring)
		return ring_queue(io, frame, len, err, errlen);
	return rawio_send(io, frame, len, err, errlen);
}

int rawio_flush(struct rawio *io, char *err, size_t errlen)
{
	return io->ring ? ring_flush(io, err, errlen) : 0;
}

uint64_t rawio_drops(struct rawio *io)
{
	if (io->ring)
		return ring_drops(io);
	struct pcap_stat st = { 0 };
	if (io->pc && pcap_stats(io->pc, &st) == 0)
		return st.ps_drop;
	return 0;
}

struct dispatch_ctx {
	struct rawio *io;
	rawio_frame_fn fn;
	void *ctx;
	int n;
};

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct dispatch_ctx *d = (struct dispatch_ctx *)user;
	uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull +
		      (uint64_t)h->ts.tv_usec * (d->io->tstamp_nano ? 1u : 1000u);
	d->io->rx_frames++;
	d->io->rx_timed[d->io->clocks.rx]++;
	d->n++;
	d->fn(d->ctx, data, h->caplen, h->len, ts);
}

int rawio_wait(struct rawio *io, uint64_t deadline_ns, rawio_frame_fn fn, void *ctx, char *err, size_t errlen)
{
	struct dispatch_ctx d = { io, fn, ctx, 0 };
	for (;;) {
		/* A bounded batch: with an unlimited count libpcap hands over
		 * frames for as long as the ring has any, which under a flood
		 * faster than the handler is for as long as the flood lasts,
		 * and no deadline of the caller's would be kept. */
		int r = io->ring ? ring_dispatch(io, RAWIO_BATCH, fn, ctx)
				 : pcap_dispatch(io->pc, RAWIO_BATCH, on_packet, (u_char *)&d);
		if (io->ring)
			d.n += r;
		if (r < 0) {
			text_printf(err, errlen, "%s: %s", io->ifname, pcap_geterr(io->pc));
			return -1;
		}
		drain(io->guard4);
		drain(io->guard6);
		if (d.n)
			return d.n;
		uint64_t now = rawio_now();
		if (now >= deadline_ns)
			return 0;
		uint64_t left = deadline_ns - now;
		int ms = left > 200000000ull ? 200 : (int)((left + 999999) / 1000000);
		struct pollfd pf = { io->fd, POLLIN, 0 };
		if (poll(&pf, 1, ms) < 0) {
			if (errno == EINTR)
				return d.n; /* a signal: let the caller look */
			text_printf(err, errlen, "poll: %s", strerror(errno));
			return -1;
		}
	}
}
