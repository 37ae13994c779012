/*
 * Raw I/O on a named interface through libpcap: frames out with
 * pcap_inject, RoCEv2 (and ARP / ICMPv6 for neighbour resolution) in
 * through a kernel BPF filter, with the best timestamps the interface
 * offers; and a UDP socket on port 4791 so that the local kernel does not
 * answer the DUT's packets with ICMP port unreachable.
 */
#ifndef ROCE_TESTER_RAWIO_H
#define ROCE_TESTER_RAWIO_H

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

struct rawio {
	pcap_t *pc;
	int fd;
	char ifname[IF_NAMESIZE];
	uint8_t mac[6];
	bool has_ip4, has_ip6;
	uint8_t ip4[4], ip6[16];
	int vlan; /* -1: untagged; else the VLAN ID frames are sent with */
	char tstamp[64];    /* the timestamp source in use, in words */
	bool tstamp_nano;
	int guard4, guard6; /* UDP sockets on 4791; -1 when not held */
	char guard_note[256];
	uint64_t rx_frames, tx_frames, tx_errors;
};

/* Opens the interface; fills io->mac and the interface's addresses. */
int rawio_open(struct rawio *io, const char *ifname, int vlan, enum rawio_tstamp_pref pref, char *err,
	       size_t errlen);
void rawio_close(struct rawio *io);

int rawio_send(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen);

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
