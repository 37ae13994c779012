/* The ring path of rawio: a memory-mapped AF_PACKET receive ring and
 * batched sends (see rawio_ring.h). */
#define _GNU_SOURCE
#include "rawio_ring.h"
#include "roce/packet.h"
#include "text.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
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
/* The block-read receive ring (TPACKET_V3): 32 MiB in blocks of 256 KiB,
 * ~1,400 small frames each, retired by the kernel when full or after a
 * millisecond (one timer tick at least). */
#define V3_BLOCK_BYTES (1u << 18)
#define V3_RETIRE_MS 1u
/* Frames per sendmmsg call at most. */
#define MM_BATCH 256
/* Room in front of each received frame for an 802.1Q tag the kernel took
 * out of the data (it is put back, as libpcap does). */
#define VLAN_ROOM ROCE_VLAN_LEN
/* Sends refused with ENOBUFS (a full device queue, there being no qdisc
 * to wait in) are retried for this long. */
#define TX_BUSY_NS 20000000ull

/* After a send refused with errno: whether to try again. A full device
 * queue (and no qdisc to wait in) is waited out for up to TX_BUSY_NS from
 * the first refusal (*give_up, 0 until then). */
static uint64_t realtime_ns(void);
static bool tx_busy_retry(uint64_t *give_up)
{
	if (errno != ENOBUFS && errno != EAGAIN)
		return false;
	uint64_t now = realtime_ns();
	if (!*give_up)
		*give_up = now + TX_BUSY_NS;
	if (now >= *give_up)
		return false;
	sched_yield();
	return true;
}

struct rawio_ring {
	int rx_fd;
	uint8_t *rx_map;
	size_t rx_map_len;
	unsigned rx_slots, rx_slot_size, rx_per_block, rx_cur;
	/* TPACKET_V3: the block being read, and where in it. */
	unsigned rx_blocks, rx_block;
	struct tpacket3_hdr *v3_pkt;
	unsigned v3_left;
	/* Sending: one socket straight to the driver, and the batch queued
	 * for its next sendmmsg, frames packed one after another. */
	int tx_fd;
	uint8_t *mm_buf;
	size_t mm_cap, mm_used;
	unsigned mm_n;
	struct mmsghdr mm_msgs[MM_BATCH];
	struct iovec mm_iov[MM_BATCH];
	uint64_t drops;
	int64_t phc_offset_ns;
	bool hw_rx, hw_tx;
	bool v3;
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
	text_printf(err, errlen, "%s: %s: %s", ifname, what, strerror(errno));
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
	int v = r->v3 ? TPACKET_V3 : TPACKET_V2;
	if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) != 0)
		return fail(err, errlen, io->ifname, r->v3 ? "TPACKET_V3" : "TPACKET_V2");
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
	unsigned block_bytes = r->v3 ? V3_BLOCK_BYTES : RX_BLOCK_BYTES;
	r->rx_per_block = block_bytes / r->rx_slot_size;
	unsigned blocks = RX_RING_BYTES / block_bytes;
	r->rx_slots = r->rx_per_block * blocks;
	r->rx_blocks = blocks;
	if (r->v3) {
		/* The frame size only bounds the largest frame here. */
		struct tpacket_req3 req = { block_bytes, blocks, r->rx_slot_size, r->rx_slots, V3_RETIRE_MS, 0, 0 };
		if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0)
			return fail(err, errlen, io->ifname, "PACKET_RX_RING (TPACKET_V3)");
	} else {
		struct tpacket_req req = { block_bytes, blocks, r->rx_slot_size, r->rx_slots };
		if (setsockopt(r->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0)
			return fail(err, errlen, io->ifname, "PACKET_RX_RING");
	}
	r->rx_map_len = (size_t)block_bytes * blocks;
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
	/* Straight to the driver: no qdisc to queue in (and, as the kernel
	 * documents, not seen by other packet sockets such as tcpdump's). */
	int one = 1;
	if (setsockopt(r->tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one) != 0)
		return fail(err, errlen, io->ifname, "PACKET_QDISC_BYPASS");
	if (r->hw_tx) {
		int so = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_TSONLY;
		if (setsockopt(r->tx_fd, SOL_SOCKET, SO_TIMESTAMPING, &so, sizeof so) != 0)
			return fail(err, errlen, io->ifname, "hardware send timestamps (SO_TIMESTAMPING)");
	}
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = 0, .sll_ifindex = ifindex };
	if (bind(r->tx_fd, (struct sockaddr *)&sll, sizeof sll) != 0)
		return fail(err, errlen, io->ifname, "bind");
	for (unsigned i = 0; i < MM_BATCH; i++) {
		r->mm_msgs[i].msg_hdr.msg_iov = &r->mm_iov[i];
		r->mm_msgs[i].msg_hdr.msg_iovlen = 1;
	}
	r->mm_cap = (size_t)MM_BATCH * (mtu + 32u);
	r->mm_buf = malloc(r->mm_cap);
	if (!r->mm_buf) {
		text_printf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static struct tpacket2_hdr *rx_slot(const struct rawio_ring *r, unsigned i)
{
	return (struct tpacket2_hdr *)(void *)(r->rx_map + (size_t)(i / r->rx_per_block) * RX_BLOCK_BYTES +
					      (size_t)(i % r->rx_per_block) * r->rx_slot_size);
}

int ring_open(struct rawio *io, const struct sock_fprog *filter, int64_t phc_offset_ns, bool blocks, char *err,
	      size_t errlen)
{
	int ifindex = (int)if_nametoindex(io->ifname);
	unsigned mtu;
	if (!ifindex || interface_mtu(io->ifname, &mtu) != 0)
		return fail(err, errlen, io->ifname, "interface");
	struct rawio_ring *r = calloc(1, sizeof *r);
	if (!r) {
		text_printf(err, errlen, "out of memory");
		return -1;
	}
	r->rx_fd = r->tx_fd = -1;
	r->phc_offset_ns = phc_offset_ns;
	r->v3 = blocks;
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

int ring_flush(struct rawio *io, char *err, size_t errlen)
{
	struct rawio_ring *r = io->ring;
	unsigned done = 0;
	uint64_t give_up = 0;
	int rc = 0;
	while (done < r->mm_n) {
		int k = sendmmsg(r->tx_fd, r->mm_msgs + done, r->mm_n - done, 0);
		if (k > 0) {
			done += (unsigned)k;
			io->tx_frames += (unsigned)k;
			continue;
		}
		if (errno == EINTR || tx_busy_retry(&give_up))
			continue;
		/* This frame is refused: counted, and the batch goes on. */
		text_printf(err, errlen, "%s: send: %s", io->ifname, strerror(errno));
		io->tx_errors++;
		done++;
		rc = -1;
		give_up = 0;
	}
	r->mm_n = 0;
	r->mm_used = 0;
	return rc;
}

int ring_queue(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen)
{
	struct rawio_ring *r = io->ring;
	if (len > r->mm_cap / MM_BATCH) {
		io->tx_errors++;
		text_printf(err, errlen, "%s: send: a %zu-byte frame is larger than the link takes", io->ifname, len);
		return -1;
	}
	if ((r->mm_n == MM_BATCH || r->mm_used + len > r->mm_cap) && ring_flush(io, err, errlen) != 0)
		return -1;
	uint8_t *p = r->mm_buf + r->mm_used;
	memcpy(p, frame, len);
	r->mm_used += (len + 15) & ~(size_t)15;
	/* The messages point at their iovecs from the start (open_tx): the
	 * kernel only writes their msg_len. */
	r->mm_iov[r->mm_n] = (struct iovec){ p, len };
	r->mm_n++;
	return 0;
}

void ring_close(struct rawio *io)
{
	struct rawio_ring *r = io->ring;
	if (!r)
		return;
	if (r->rx_map)
		munmap(r->rx_map, r->rx_map_len);
	if (r->rx_fd >= 0)
		close(r->rx_fd);
	if (r->tx_fd >= 0)
		close(r->tx_fd);
	free(r->mm_buf);
	free(r);
	io->ring = NULL;
	io->fd = -1;
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
	uint64_t give_up = 0;
	while (send(r->tx_fd, frame, len, 0) != (ssize_t)len) {
		if (errno == EINTR || tx_busy_retry(&give_up))
			continue;
		io->tx_errors++;
		text_printf(err, errlen, "%s: send: %s", io->ifname, strerror(errno));
		return -1;
	}
	io->tx_frames++;
	uint64_t hw;
	if (r->hw_tx && tx_hw_stamp(r, &hw)) {
		*ts_ns = hw;
		*clock = RAWIO_CLOCK_ADAPTER;
	}
	return 0;
}

uint64_t ring_drops(struct rawio *io)
{
	struct rawio_ring *r = io->ring;
	struct tpacket_stats_v3 s;
	socklen_t sl = r->v3 ? sizeof s : sizeof(struct tpacket_stats);
	/* Reading the statistics resets them: they are added up here. */
	if (getsockopt(r->rx_fd, SOL_PACKET, PACKET_STATISTICS, &s, &sl) == 0)
		r->drops += s.tp_drops;
	return r->drops;
}

/* One received frame, wherever its ring put it: the VLAN tag the kernel
 * took out of the data put back (in the room reserved in front of the
 * frame, as libpcap does), its timestamp on the clock that took it. */
static void hand_over(struct rawio *io, uint8_t *data, size_t caplen, size_t len, uint32_t st, uint16_t tci,
		      uint16_t tpid, uint64_t ts, rawio_frame_fn fn, void *ctx)
{
	struct rawio_ring *r = io->ring;
	if (st & TP_STATUS_VLAN_VALID) {
		if (!(st & TP_STATUS_VLAN_TPID_VALID) || !tpid)
			tpid = ROCE_ETHERTYPE_VLAN;
		data = roce_frame_push_vlan_front(data, tpid, tci);
		caplen += VLAN_ROOM;
		len += VLAN_ROOM;
	}
	if (st & TP_STATUS_TS_RAW_HARDWARE) {
		ts -= (uint64_t)r->phc_offset_ns;
		io->rx_timed[RAWIO_CLOCK_ADAPTER]++;
	} else {
		io->rx_timed[RAWIO_CLOCK_KERNEL]++;
	}
	if (st & TP_STATUS_LOSING)
		ring_drops(io);
	io->rx_frames++;
	fn(ctx, data, caplen, len, ts);
}

static int dispatch_v2(struct rawio *io, int max, rawio_frame_fn fn, void *ctx)
{
	struct rawio_ring *r = io->ring;
	int n = 0;
	while (n < max) {
		struct tpacket2_hdr *h = rx_slot(r, r->rx_cur);
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
		if (!(st & TP_STATUS_USER))
			break;
		uint64_t ts = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
		hand_over(io, (uint8_t *)h + h->tp_mac, h->tp_snaplen, h->tp_len, st, h->tp_vlan_tci, h->tp_vlan_tpid, ts,
			  fn, ctx);
		n++;
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->rx_cur = (r->rx_cur + 1) % r->rx_slots;
	}
	return n;
}

static struct tpacket_block_desc *v3_block(const struct rawio_ring *r, unsigned i)
{
	return (struct tpacket_block_desc *)(void *)(r->rx_map + (size_t)i * V3_BLOCK_BYTES);
}

static int dispatch_v3(struct rawio *io, int max, rawio_frame_fn fn, void *ctx)
{
	struct rawio_ring *r = io->ring;
	int n = 0;
	while (n < max) {
		struct tpacket_block_desc *b = v3_block(r, r->rx_block);
		if (!r->v3_pkt) {
			if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
				break;
			r->v3_left = b->hdr.bh1.num_pkts;
			r->v3_pkt = (struct tpacket3_hdr *)(void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
		}
		/* A block is handed over a bounded number of frames at a
		 * time: where the reading stopped is kept. */
		while (r->v3_left && n < max) {
			struct tpacket3_hdr *h = r->v3_pkt;
			uint64_t ts = (uint64_t)h->tp_sec * 1000000000ull + h->tp_nsec;
			hand_over(io, (uint8_t *)h + h->tp_mac, h->tp_snaplen, h->tp_len, h->tp_status, h->hv1.tp_vlan_tci,
				  h->hv1.tp_vlan_tpid, ts, fn, ctx);
			n++;
			r->v3_left--;
			r->v3_pkt = (struct tpacket3_hdr *)(void *)((uint8_t *)h + h->tp_next_offset);
		}
		if (r->v3_left)
			break;
		r->v3_pkt = NULL;
		__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->rx_block = (r->rx_block + 1) % r->rx_blocks;
	}
	return n;
}

int ring_dispatch(struct rawio *io, int max, rawio_frame_fn fn, void *ctx)
{
	return io->ring->v3 ? dispatch_v3(io, max, fn, ctx) : dispatch_v2(io, max, fn, ctx);
}
