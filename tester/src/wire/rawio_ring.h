/*
 * The ring path of rawio (see rawio.h): a memory-mapped AF_PACKET receive
 * ring (TPACKET_V2: every frame handed over as soon as it is in, no system
 * call while frames wait; or TPACKET_V3, a block at a time), and a packet
 * socket with PACKET_QDISC_BYPASS to send, queued frames going out in
 * batches through sendmmsg (on a veth cheaper than PACKET_TX_RING, whose
 * zero-copy frames the kernel copies again to cross namespaces).
 * Internal to rawio.c.
 */
#ifndef ROCE_TESTER_RAWIO_RING_H
#define ROCE_TESTER_RAWIO_RING_H

#include <linux/filter.h>
#include <stdbool.h>

#include "rawio.h"

/* Opens the receive ring and the send socket on io->ifname with the receive filter given; sets
 * io->ring and io->fd. phc_offset_ns maps adapter timestamps to
 * CLOCK_REALTIME (subtracted) when io->clocks use the adapter. */
int ring_open(struct rawio *io, const struct sock_fprog *filter, int64_t phc_offset_ns, bool blocks, char *err,
	      size_t errlen);
void ring_close(struct rawio *io);

int ring_queue(struct rawio *io, const uint8_t *frame, size_t len, char *err, size_t errlen);
int ring_flush(struct rawio *io, char *err, size_t errlen);
/* Sends one frame at once; *ts_ns and *clock say when and by which clock. */
int ring_send_ts(struct rawio *io, const uint8_t *frame, size_t len, uint64_t *ts_ns, enum rawio_clock *clock,
		 char *err, size_t errlen);

/* Hands up to max waiting frames to fn; returns how many. */
int ring_dispatch(struct rawio *io, int max, rawio_frame_fn fn, void *ctx);
uint64_t ring_drops(struct rawio *io);

#endif
