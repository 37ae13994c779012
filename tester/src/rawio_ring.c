/* The ring path of rawio: memory-mapped AF_PACKET rings (see rawio_ring.h). */
#define _GNU_SOURCE
#include "rawio_ring.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Receive ring: 32 MiB, ~20,000 slots of a 1500-byte link (20 ms at a
 * million frames per second), ~3,500 of a 9000-byte one. */
#define RX_RING_BYTES (32u << 20)
#define RX_BLOCK_BYTES (1u << 16)
/* Send ring: frames queued between two kicks at most. */
#define TX_SLOTS 1024u
/* Room in front of each received frame for an 802.1Q tag the kernel took
 * out of the data (it is put back, as libpcap does). */
#define VLAN_ROOM 4u
/* Sends refused with ENOBUFS (a full device queue, there being no qdisc
 * to wait in) are retried for this long. */
#define TX_BUSY_NS 20000000ull

struct rawio_ring {
	int rx_fd, tx_fd;
	uint8_t *rx_map, *tx_map;
	size_t rx_map_len, tx_map_len;
	unsigned rx_slots, rx_slot_size, rx_per_block, rx_cur;
	unsigned tx_slot_size, tx_cur, tx_queued;
	uint64_t drops;
	int64_t phc_offset_ns;
	bool hw_rx, hw_tx;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned align16(unsigned n)
{
	return (n + 15u) & ~15u;
}

/* The slot size for frames of the interface's MTU: header, Ethernet, two
 * VLAN tags and the room for a tag put back. A frame larger than its slot
 * is handed over cut, with its real length (caplen < len). */
static unsigned slot_size(unsigned mtu)
{
	unsigned need = (unsigned)TPACKET_ALIGN(TPACKET2_HDRLEN) + 16u + VLAN_ROOM + mtu + 14u + 8u;
	if (mtu + 22u > RAWIO_SNAPLEN)
		need = (unsigned)TPACKET_ALIGN(TPACKET2_HDRLEN) + 16u + VLAN_ROOM + RAWIO_SNAPLEN;
	return align16(need);
}

static int interface_mtu(const char *ifname, unsigned *mtu)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	int r = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	if (r != 0)
		return -1;
	*mtu = (unsigned)ifr.ifr_mtu;
	return 0;
}

static int fail(char *err, size_t errlen, const char *ifname, const char *what)
{
	snprintf(err, errlen, "%s: %s: %s", ifname, what, strerror(errno));
	return -1;
}

static int open_rx(struct rawio *io, struct rawio_ring *r, int ifindex, unsigned mtu, const struct sock_fprog *filter,
		   char *err, size_t errlen)
{
	/* Bound to no protocol until the filter is on, so that no frame the
	 * filter would refuse is queued before it. */
	r->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (r->rx_fd < 0)
		return fail(err, errlen, io->ifname, "AF_PACKET socket");
	int v = TPACKET_V2;
	if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) != 0)
		return fail(err, errlen, io->ifname, "TPACKET_V2");
	if (setsockopt(r->rx_fd, SOL_SOCKET, SO_ATTACH_FILTER, filter, sizeof *filter) != 0)
		return fail(err, errlen, io->ifname, "BPF filter");
	/* What the tester sends itself is not received (the engine records
	 * its own frames as it sends them). */
	int one = 1;
	if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) != 0)
		return fail(err, errlen, io->ifname, "PACKET_IGNORE_OUTGOING");
	unsigned reserve = VLAN_ROOM;
	if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_RESERVE, &reserve, sizeof reserve) != 0)
		return fail(err, errlen, io->ifname, "PACKET_RESERVE");
	if (r->hw_rx) {
		int ts = SOF_TIMESTAMPING_RAW_HARDWARE;
		if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_TIMESTAMP, &ts, sizeof ts) != 0)
			return fail(err, errlen, io->ifname, "PACKET_TIMESTAMP (hardware)");
	}
	r->rx_slot_size = slot_size(mtu);
	r->rx_per_block = RX_BLOCK_BYTES / r->rx_slot_size;
	unsigned blocks = RX_RING_BYTES / RX_BLOCK_BYTES;
	r->rx_slots = r->rx_per_block * blocks;
	struct tpacket_req req = { RX_BLOCK_BYTES, blocks, r->rx_slot_size, r->rx_slots };
	if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0)
		return fail(err, errlen, io->ifname, "PACKET_RX_RING");
	r->rx_map_len = (size_t)RX_BLOCK_BYTES * blocks;
	r->rx_map = mmap(NULL, r->rx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED, r->rx_fd, 0);
	if (r->rx_map == MAP_FAILED)
		r->rx_map = mmap(NULL, r->rx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->rx_fd, 0);
	if (r->rx_map == MAP_FAILED) {
		r->rx_map = NULL;
		return fail(err, errlen, io->ifname, "mmap of the receive ring");
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = ifindex };
	if (bind(r->rx_fd, (struct sockaddr *)&sll, sizeof sll) != 0)
		return fail(err, errlen, io->ifname, "bind");
	return 0;
}

static int open_tx(struct rawio *io, struct rawio_ring *r, int ifindex, unsigned mtu, char *err, size_t errlen)
{
	/* Protocol 0: this socket receives nothing. */
	r->tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (r->tx_fd < 0)
		return fail(err, errlen, io->ifname, "AF_PACKET socket");
	int v = TPACKET_V2, one = 1;
	if (setsockopt(r->tx_fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) != 0)
		return fail(err, errlen, io->ifname, "TPACKET_V2");
	/* Straight to the driver: no qdisc to queue in (and, as the kernel
	 * documents, not seen by other packet sockets such as tcpdump's). */
	if (setsockopt(r->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one) != 0)
		return fail(err, errlen, io->ifname, "PACKET_QDISC_BYPASS");
	if (r->hw_tx) {
		int ts = SOF_TIMESTAMPING_RAW_HARDWARE;
		int so = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_TSONLY;
		if (setsockopt(r->tx_fd, SOL_PACKET, PACKET_TIMESTAMP, &ts, sizeof ts) != 0 ||
		    setsockopt(r->tx_fd, SOL_SOCKET, SO_TIMESTAMPING, &so, sizeof so) != 0)
			return fail(err, errlen, io->ifname, "hardware send timestamps");
	}
	r->tx_slot_size = slot_size(mtu);
	unsigned per_block = RX_BLOCK_BYTES / r->tx_slot_size;
	unsigned blocks = (TX_SLOTS + per_block - 1) / per_block;
	struct tpacket_req req = { RX_BLOCK_BYTES, blocks, r->tx_slot_size, per_block * blocks };
	if (setsockopt(r->tx_fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof req) != 0)
		return fail(err, errlen, io->ifname, "PACKET_TX_RING");
	r->tx_map_len = (size_t)RX_BLOCK_BYTES * blocks;
	r->tx_map = mmap(NULL, r->tx_map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->tx_fd, 0);
	if (r->tx_map == MAP_FAILED) {
		r->tx_map = NULL;
		return fail(err, errlen, io->ifname, "mmap of the send ring");
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = 0, .sll_ifindex = ifindex };
	if (bind(r->tx_fd, (struct sockaddr *)&sll, sizeof sll) != 0)
		return fail(err, errlen, io->ifname, "bind");
	return 0;
}

static unsigned tx_slots(const struct rawio_ring *r)
{
	unsigned per_block = RX_BLOCK_BYTES / r->tx_slot_size;
	return per_block * (unsigned)(r->tx_map_len / RX_BLOCK_BYTES);
}

static struct tpacket2_hdr *tx_slot(const struct rawio_ring *r, unsigned i)
{
	unsigned per_block = RX_BLOCK_BYTES / r->tx_slot_size;
	return (struct tpacket2_hdr *)(void *)(r->tx_map + (size_t)(i / per_block) * RX_BLOCK_BYTES +
					      (size_t)(i % per_block) * r->tx_slot_size);
}

static struct tpacket2_hdr *rx_slot(const struct rawio_ring *r, unsigned i)
{
	return (struct tpacket2_hdr *)(void *)(r->rx_map + (size_t)(i / r->rx_per_block) * RX_BLOCK_BYTES +
					      (size_t)(i % r->rx_per_block) * r->rx_slot_size);
}

int ring_open(struct rawio *io, const struct sock_fprog *filter, int64_t phc_offset_ns, char *err, size_t errlen)
{
	int ifindex = (int)if_nametoindex(io->ifname);
	unsigned mtu;
	if (!ifindex || interface_mtu(io->ifname, &mtu) != 0)
		return fail(err, errlen, io->ifname, "interface");
	struct rawio_ring *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->rx_fd = r->tx_fd = -1;
	r->phc_offset_ns = phc_offset_ns;
	r->hw_rx = io->clocks.rx == RAWIO_CLOCK_ADAPTER;
	r->hw_tx = io->clocks.tx == RAWIO_CLOCK_ADAPTER;
	io->ring = r;
	if (open_rx(io, r, ifindex, mtu, filter, err, errlen) != 0 || open_tx(io, r, ifindex, mtu, err, errlen) != 0) {
		ring_close(io);
		return -1;
	}
	io->fd = r->rx_fd;
	return 0;
}

void ring_close(struct rawio *io)
{
	struct rawio_ring *r = io->ring;
	if (!r)
		return;
	if (r->rx_map)
		munmap(r->rx_map, r->rx_map_len);
	if (r->tx_map)
		munmap(r->tx_map, r->tx_map_len);
	if (r->rx_fd >= 0)
		close(r->rx_fd);
	if (r->tx_fd >= 0)
		close(r->tx_fd);
	free(r);
	io->ring = NULL;
	io->fd = -1;
}

/* Frames the kernel refused (malformed, larger than the link takes) are
 * marked in their slots: counted, and their slots given back. */
static unsigned reclaim_refused(struct rawio_ring *r)
{
	unsigned n = 0, slots = tx_slots(r);
	for (unsigned i = 0; i < slots; i++) {
		struct tpacket2_hdr *h = tx_slot(r, i);
		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) == TP_STATUS_WRONG_FORMAT) {
			__atomic_store_n(&h->tp_status, TP_STATUS_AVAILABLE, __ATOMIC_RELEASE);
			n++;
		}
	}
	return n;
}

int ring_flush(struct rawio *io, char *err, size_t errlen)
{
	struct rawio_ring *r = io->ring;
	if (!r->tx_queued)
		return 0;
	unsigned queued = r->tx_queued;
	uint64_t give_up = 0;
	int rc = 0;
	for (;;) {
		/* Blocking: returns when every queued frame has left the ring. */
		if (send(r->tx_fd, NULL, 0, 0) >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS || errno == EAGAIN) {
			/* The device queue is full and there is no qdisc to
			 * wait in: the frame stays queued, try again shortly. */
			uint64_t now = realtime_ns();
			if (!give_up)
				give_up = now + TX_BUSY_NS;
			if (now < give_up) {
				sched_yield();
				continue;
			}
		}
		int e = errno;
		unsigned refused = reclaim_refused(r);
		if (!refused) {
			snprintf(err, errlen, "%s: send: %s (the frames stay queued)", io->ifname, strerror(e));
			return -1;
		}
		/* Refused frames are counted and dropped; the rest of the
		 * batch goes on (each round gives back a slot at least). */
		io->tx_errors += refused;
		queued -= refused < queued ? refused : queued;
		snprintf(err, errlen, "%s: send: %s (%u frame%s refused)", io->ifname, strerror(e), refused,
			 refused == 1 ? "" : "s");
		rc = -1;
		give_up = 0;
	}
	io->tx_frames += queued;
	r->tx_queued = 0;
	return rc;
}

int ring_queue(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen)
{
	struct rawio_ring *r = io->ring;
	unsigned data_off = (unsigned)(TPACKET2_HDRLEN - sizeof(struct sockaddr_ll));
	if (len + data_off > r->tx_slot_size) {
		io->tx_errors++;
		snprintf(err, errlen, "%s: send: a %zu-byte frame is larger than the link takes", io->ifname, len);
		return -1;
	}
	struct tpacket2_hdr *h = tx_slot(r, r->tx_cur);
	if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE) {
		/* The ring is full of queued frames: send them first. */
		if (ring_flush(io, err, errlen) != 0 &&
		    __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) != TP_STATUS_AVAILABLE)
			return -1;
	}
	memcpy((uint8_t *)h + data_off, frame, len);
	h->tp_len = (uint32_t)len;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
	r->tx_cur = (r->tx_cur + 1) % tx_slots(r);
	r->tx_queued++;
	return 0;
}

/* The adapter's stamp of the frame just sent, from the socket's error
 * queue, waited for at most a millisecond (the driver reports it when
 * the NIC completes the send). */
static bool tx_hw_stamp(struct rawio_ring *r, uint64_t *ts)
{
	uint64_t until = realtime_ns() + 1000000ull;
	for (;;) {
		char control[256];
		uint8_t data[64];
		struct iovec iov = { data, sizeof data };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
				    .msg_controllen = sizeof control };
		if (recvmsg(r->tx_fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING) {
					const struct timespec *t = (const void *)CMSG_DATA(c);
					if (t[2].tv_sec || t[2].tv_nsec) {
						*ts = (uint64_t)t[2].tv_sec * 1000000000ull + (uint64_t)t[2].tv_nsec -
						      (uint64_t)r->phc_offset_ns;
						return true;
					}
				}
			}
			continue;
		}
		if (realtime_ns() >= until)
			return false;
		struct pollfd pf = { r->tx_fd, POLLERR, 0 };
		poll(&pf, 1, 1);
	}
}

int ring_send_ts(struct rawio *io, const uint8_t *frame, size_t len, uint64_t *ts_ns, enum rawio_clock *clock,
		 char *err, size_t errlen)
{
	struct rawio_ring *r = io->ring;
	/* Whatever was queued goes first, so that this frame's stamp is its own. */
	if (ring_flush(io, err, errlen) != 0)
		return -1;
	*ts_ns = realtime_ns();
	*clock = RAWIO_CLOCK_HOST;
	if (ring_queue(io, frame, len, err, errlen) != 0 || ring_flush(io, err, errlen) != 0)
		return -1;
	uint64_t hw;
	if (r->hw_tx && tx_hw_stamp(r, &hw)) {
		*ts_ns = hw;
		*clock = RAWIO_CLOCK_ADAPTER;
	}
	return 0;
}

int ring_dispatch(struct rawio *io, int max, rawio_frame_fn fn, void *ctx)
{
	struct rawio_ring *r = io->ring;
	int n = 0;
	while (n < max) {
		struct tpacket2_hdr *h = rx_slot(r, r->rx_cur);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(st & TP_STATUS_USER))
			break;
		uint8_t *data = (uint8_t *)h + h->tp_mac;
		size_t caplen = h->tp_snaplen, len = h->tp_len;
		if (st & TP_STATUS_VLAN_VALID) {
			/* The kernel took the tag out of the data: put it back
			 * in the room reserved in front of the frame. */
			uint16_t tpid = (st & TP_STATUS_VLAN_TPID_VALID) && h->tp_vlan_tpid ? h->tp_vlan_tpid : ETH_P_8021Q;
			memmove(data - VLAN_ROOM, data, 12);
			data -= VLAN_ROOM;
			data[12] = (uint8_t)(tpid >> 8);
			data[13] = (uint8_t)tpid;
			data[14] = (uint8_t)(h->tp_vlan_tci >> 8);
			data[15] = (uint8_t)h->tp_vlan_tci;
			caplen += VLAN_ROOM;
			len += VLAN_ROOM;
		}
		uint64_t ts = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
		if (st & TP_STATUS_TS_RAW_HARDWARE) {
			ts -= (uint64_t)r->phc_offset_ns;
			io->rx_timed[RAWIO_CLOCK_ADAPTER]++;
		} else {
			io->rx_timed[RAWIO_CLOCK_KERNEL]++;
		}
		if (st & TP_STATUS_LOSING) {
			struct tpacket_stats s;
			socklen_t sl = sizeof s;
			if (getsockopt(r->rx_fd, SOL_PACKET, PACKET_STATISTICS, &s, &sl) == 0)
				r->drops += s.tp_drops;
		}
		io->rx_frames++;
		n++;
		fn(ctx, data, caplen, len, ts);
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->rx_cur = (r->rx_cur + 1) % r->rx_slots;
	}
	return n;
}

uint64_t ring_drops(struct rawio *io)
{
	struct rawio_ring *r = io->ring;
	struct tpacket_stats s;
	socklen_t sl = sizeof s;
	/* Reading the statistics resets them: they are added up here. */
	if (getsockopt(r->rx_fd, SOL_PACKET, PACKET_STATISTICS, &s, &sl) == 0)
		r->drops += s.tp_drops;
	return r->drops;
}
