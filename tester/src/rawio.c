/* Raw I/O through libpcap (see rawio.h). */
#include "rawio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
			bool link_local = v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80;
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
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(4791) };
		r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	} else {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(4791) };
		r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	}
	if (r != 0) {
		size_t w = strlen(note);
		snprintf(note + w, n - w, "%sIPv%d UDP port 4791 is already bound (%s): something else on this host (the kernel's rdma_rxe?) receives RoCEv2 on it",
			 w ? "; " : "", family == AF_INET ? 4 : 6, strerror(errno));
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

int rawio_open(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, char *err,
	       size_t errlen)
{
	memset(io, 0, sizeof *io);
	io->guard4 = io->guard6 = -1;
	io->fd = -1;
	io->vlan = vlan;
	if (strlen(ifname) >= sizeof io->ifname) {
		text_printf(err, errlen, "%s: interface name too long", ifname);
		return -1;
	}
	snprintf(io->ifname, sizeof io->ifname, "%s", ifname);
	if (addresses(io, err, errlen) != 0)
		return -1;
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
		snprintf(io->tstamp, sizeof io->tstamp, "%s (%s)", pcap_tstamp_type_val_to_name(chosen),
			 pcap_tstamp_type_val_to_description(chosen));
	else
		snprintf(io->tstamp, sizeof io->tstamp, "host (kernel default)");
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
		rawio_close(io);
		return -1;
	}
	pcap_setdirection(io->pc, PCAP_D_IN);
	/* RoCEv2 (and RoCE v1, of dual-mode ports) for us, and what neighbour
	 * resolution needs. */
	const char *base = "udp dst port 4791 or ether proto 0x8915 or arp or icmp6";
	char expr[256];
	snprintf(expr, sizeof expr, "(%s) or (vlan and (%s))", base, base);
	struct bpf_program prog;
	if (pcap_compile(io->pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0 || pcap_setfilter(io->pc, &prog) != 0) {
		text_printf(err, errlen, "%s: BPF filter: %s", ifname, pcap_geterr(io->pc));
		rawio_close(io);
		return -1;
	}
	pcap_freecode(&prog);
	if (pcap_setnonblock(io->pc, 1, ebuf) != 0) {
		text_printf(err, errlen, "%s: %s", ifname, ebuf);
		rawio_close(io);
		return -1;
	}
	io->fd = pcap_get_selectable_fd(io->pc);
	io->guard4 = guard(AF_INET, ifname, io->guard_note, sizeof io->guard_note);
	io->guard6 = guard(AF_INET6, ifname, io->guard_note, sizeof io->guard_note);
	return 0;
}

void rawio_close(struct rawio *io)
{
	if (io->pc)
		pcap_close(io->pc);
	io->pc = NULL;
	if (io->guard4 >= 0)
		close(io->guard4);
	if (io->guard6 >= 0)
		close(io->guard6);
	io->guard4 = io->guard6 = -1;
}

int rawio_send(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen)
{
	if (pcap_inject(io->pc, frame, len) != (int)len) {
		io->tx_errors++;
		text_printf(err, errlen, "%s: send: %s", io->ifname, pcap_geterr(io->pc));
		return -1;
	}
	io->tx_frames++;
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
		int r = pcap_dispatch(io->pc, RAWIO_BATCH, on_packet, (u_char *)&d);
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
