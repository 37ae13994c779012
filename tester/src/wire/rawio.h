/*
 * Raw I/O on a named interface: frames out, RoCEv2 (and ARP / ICMPv6 for
 * neighbour resolution) in through a kernel BPF filter, every frame with
 * its timestamp and the clock that took it; and a UDP socket on port 4791
 * so that the local kernel does not answer the DUT's packets with ICMP
 * port unreachable.
 *
 * Three paths, one interface:
 *   ring    the kernel's batched paths (rawio_ring.c): a TPACKET_V2 receive
 *           ring read without a system call per frame, and a packet socket
 *           with PACKET_QDISC_BYPASS that sends queued frames in batches
 *           (sendmmsg);
 *   blocks  the same, but a TPACKET_V3 receive ring read a block at a time:
 *           frames packed densely (the most per megabyte, the fewest page
 *           walks), handed over when the kernel retires a block, full or
 *           after one timer tick (up to 4 ms at HZ 250): for bulk traffic,
 *           not for a conversation whose deadlines are tighter than a tick;
 *   pcap    libpcap (pcap_inject, pcap_dispatch): the portable fallback.
 * RAWIO_PATH_AUTO takes the ring and falls back to libpcap, saying why.
 * On every path the port's RoCEv2 datagrams are kept out of the local IP
 * stack once captured where the kernel allows it (rawio_tcx.h).
 */
#ifndef ROCE_TESTER_RAWIO_H
#define ROCE_TESTER_RAWIO_H

#include <linux/net_tstamp.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAWIO_SNAPLEN 9300
/* Frames handed over per rawio_wait call at most, so that a flood cannot
 * keep the caller from its deadlines. */
#define RAWIO_BATCH 256

enum rawio_tstamp_pref {
	RAWIO_TS_HOST,    /* kernel timestamps: the clock the tester's send times use */
	RAWIO_TS_ADAPTER, /* the NIC's clock when it has one (falls back to host) */
};

enum rawio_path { RAWIO_PATH_AUTO, RAWIO_PATH_RING, RAWIO_PATH_BLOCKS, RAWIO_PATH_PCAP };
const char *rawio_path_name(enum rawio_path p);
/* "auto", "ring", "blocks", "pcap"; -1 when unknown. */
int rawio_path_by_name(const char *name);

/* The clock that timed a measurement (a frame's send or receive time). */
enum rawio_clock {
	RAWIO_CLOCK_HOST,    /* CLOCK_REALTIME, read by the tester around the call */
	RAWIO_CLOCK_KERNEL,  /* the kernel's software timestamp (CLOCK_REALTIME) */
	RAWIO_CLOCK_ADAPTER, /* the NIC's hardware clock (its PHC), mapped to CLOCK_REALTIME */
	RAWIO_CLOCK_COUNT
};
/* "host", "kernel", "adapter": the names reports use. */
const char *rawio_clock_name(enum rawio_clock c);

/* What the interface's driver says it can timestamp (ETHTOOL_GET_TS_INFO). */
struct rawio_ts_caps {
	bool known;             /* the query answered */
	unsigned so_timestamping; /* SOF_TIMESTAMPING_* the driver supports */
	int phc_index;          /* /dev/ptpN, -1 when none */
	unsigned tx_types;      /* 1 << HWTSTAMP_TX_* */
	unsigned rx_filters;    /* 1 << HWTSTAMP_FILTER_* */
};
/* Queries the driver; returns 0, or -1 with a reason (caps->known false). */
int rawio_ts_caps_query(const char *ifname, struct rawio_ts_caps *caps, char *err, size_t errlen);
/* True when the driver stamps both sent and received frames in hardware,
 * every received frame included, and has a clock to read. */
bool rawio_ts_caps_hardware(const struct rawio_ts_caps *caps);

/* The clocks chosen for one interface and why. */
struct rawio_clocks {
	enum rawio_clock rx, tx;
	char why[256];
};
/* The choice, from the driver's capabilities and the preference: the
 * adapter's clock for both directions when asked for and offered on the
 * ring path, else the kernel's receive stamps and the host's send times. */
void rawio_choose_clocks(const struct rawio_ts_caps *caps, enum rawio_tstamp_pref pref, enum rawio_path path,
			 const char *ifname, struct rawio_clocks *out);

struct rawio_ring;

struct rawio {
	enum rawio_path path; /* in use: RING, BLOCKS or PCAP */
	char path_note[200];  /* the path in use and, when it is the fallback, why */
	pcap_t *pc;           /* PCAP */
	struct rawio_ring *ring; /* RING */
	int fd;               /* readable when frames wait */
	char ifname[IF_NAMESIZE];
	uint8_t mac[6];
	bool has_ip4, has_ip6;
	uint8_t ip4[4], ip6[16];
	int vlan; /* -1: untagged; else the VLAN ID frames are sent with */
	char tstamp[64];    /* the timestamp source in use, in words */
	bool tstamp_nano;
	struct rawio_ts_caps ts_caps;
	bool hwts_set; /* the adapter's timestamping was turned on: hwts_old is put back at close */
	struct hwtstamp_config hwts_old;
	struct rawio_clocks clocks; /* the clocks that time received and sent frames */
	/* Frames timed per clock: a frame the adapter did not stamp falls
	 * back to the kernel's (receive) or the host's (send) clock. */
	uint64_t rx_timed[RAWIO_CLOCK_COUNT], tx_timed[RAWIO_CLOCK_COUNT];
	int guard4, guard6; /* UDP sockets on 4791; -1 when not held */
	char guard_note[256];
	/* The tc ingress program that keeps RoCEv2 frames out of the local
	 * IP stack (rawio_tcx.h): its link, -1 when not attached, and why. */
	int stack_bypass;
	char stack_bypass_note[160];
	uint64_t rx_frames, tx_frames, tx_errors;
};

/* Opens the interface on the best path (RAWIO_PATH_AUTO); fills io->mac
 * and the interface's addresses. */
int rawio_open(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, char *err,
	       size_t errlen);
int rawio_open_path(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, enum rawio_path path,
		    char *err, size_t errlen);
void rawio_close(struct rawio *io);

/* Sends one frame now. */
int rawio_send(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen);
/* Sends one frame now and says when it left: *ts_ns on the clock *clock
 * (the adapter's when it stamps sent frames, else the host's, read just
 * before the send: on a veth the frame can be answered before the call
 * returns). */
int rawio_send_ts(struct rawio *io, const uint8_t *frame, size_t len, uint64_t *ts_ns, enum rawio_clock *clock,
		  char *err, size_t errlen);
/* Queues a frame for the next rawio_flush (the ring path sends a whole
 * batch with one sendmmsg; libpcap sends at once). A full queue is
 * flushed first. */
int rawio_queue(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen);
/* Sends everything queued; returns 0, or -1 when any frame failed. */
int rawio_flush(struct rawio *io, char *err, size_t errlen);

/* Frames the kernel dropped because the receive buffer was full, since open. */
uint64_t rawio_drops(struct rawio *io);

typedef void (*rawio_frame_fn)(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t ts_ns);
/* Waits until deadline_ns (CLOCK_REALTIME) for frames and hands each to fn;
 * returns how many, or -1 on an interface error (err says which). Returns
 * early after the first batch (at most RAWIO_BATCH frames) when any arrived. */
int rawio_wait(struct rawio *io, uint64_t deadline_ns, rawio_frame_fn fn, void *ctx, char *err, size_t errlen);

/* Nanoseconds on the clock the kernel stamps packets with. */
uint64_t rawio_now(void);

/* Resolves an IP address of the DUT to its MAC: the kernel's neighbour
 * table first (unless kernel_first is false), then an ARP request or IPv6
 * Neighbour Solicitation of our own, bounded by timeout_ns. */
int rawio_resolve(struct rawio *io, int ip_version, const uint8_t *ip, bool kernel_first, uint8_t mac[6],
		  uint64_t timeout_ns, char *how, size_t howlen, char *err, size_t errlen);

#endif
