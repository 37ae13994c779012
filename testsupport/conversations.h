/*
 * Sample conversations: whole exchanges between two hosts, for the per-QP
 * analysis, the statistics and the benchmarks. Host A is 198.18.0.1 or
 * 2001:db8::1 with QP 0x000456, host B 198.18.0.2 or 2001:db8::2 with QP
 * 0x000123. Deterministic: the same call emits the same frames.
 */
#ifndef ROCE_CONVERSATIONS_H
#define ROCE_CONVERSATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "samples.h"

/* One frame: its bytes, its capture time in microseconds from the start,
 * the finding the analysis must raise (ROCE_OK for none) and what it is. */
typedef void (*sample_emit_fn)(void *ctx, const uint8_t *frame, size_t len, uint64_t t_us,
			       enum roce_code expect, const char *what);

#define SAMPLE_QP_A 0x000456
#define SAMPLE_QP_B 0x000123

/* An RC connection over IPv4 set up by rdma_cm (CM REQ with IP CM private
 * data, REP, RTU; path MTU 1024), then SENDs, WRITEs, a segmented READ,
 * atomics, an RPC-over-RDMA call, an RNR NAK and its retry, a loss with its
 * NAK and go-back-N, a timeout retransmission, and DREQ/DREP. */
void sample_conv_rc(sample_emit_fn emit, void *ctx);
/* An NVMe-oF host and target over RC (rdma_cm to TCP port 4420 with the
 * NVMe-oF RDMA private data): a Read command capsule, the data by RDMA
 * WRITE, the completion. */
void sample_conv_nvme(sample_emit_fn emit, void *ctx);
/* RC traffic over IPv6 without a CM exchange that breaks flow rules on
 * purpose, one per flow code. */
void sample_conv_errors(sample_emit_fn emit, void *ctx);
/* Conforming RC traffic over IPv4 (set up by rdma_cm) on a lossy network,
 * captured between the peers: a NAK crossed by new PSNs, duplicates,
 * reordering, a loss before the capture point hiding a resend, READs
 * asked again from inside their range (answered from a Middle and from a
 * First), an RNR NAK followed by a duplicate. Warnings only for what the
 * capture shows (gaps, late packets, a missing resend, an early copy). */
void sample_conv_lossy(sample_emit_fn emit, void *ctx);
/* SEND and RDMA WRITE messages of several packets over RC (IPv4, set up
 * by rdma_cm) for message reassembly: whole ones, one whose Middle was lost
 * before the capture point and filled by the go-back-N resend, one resent
 * whole after a lost ACK, RPC-over-RDMA calls in one and two packets; then over
 * UC a WRITE with a hole (UC never resends) and a whole SEND. */
void sample_conv_messages(sample_emit_fn emit, void *ctx);
/* SIDR REQ/REP and UD SENDs, UC messages, XRC with its SRQ number, and a
 * CNP, over IPv6. */
void sample_conv_uc_ud_xrc(sample_emit_fn emit, void *ctx);
/* Two RC QPs of host B sharing a receive queue (SRQ), over IPv4 without a
 * CM exchange: a SEND takes the SRQ's last WQE, a SEND to the other QP is
 * answered with an RNR NAK, retried after the wait and ACKed, then the
 * first QP receives again (srq.c). */
void sample_conv_srq_rnr(sample_emit_fn emit, void *ctx);
/* RoCE v1 (rocev1.c): an RC connection over RoCE v1 between the GIDs of
 * 2001:db8::1 and ::2 (a SEND, an RDMA WRITE, a READ in 3 responses, an
 * RNR NAK and its retry); and the same interleaved with a RoCEv2 one
 * between the same addresses and QPs, then a wrong ICRC per known mistake
 * over each version. */
void sample_conv_rocev1(sample_emit_fn emit, void *ctx);
void sample_conv_rocev1_mixed(sample_emit_fn emit, void *ctx);
/* The rkey life cycle over RC (IPv4, no CM exchange; memwin.c): WRITEs
 * through memory windows and a region of host B, SENDs with Invalidate
 * of their rkeys; a WRITE after an acknowledged invalidation NAKed Remote
 * Access Error (conforming) and one ACKed (the responder's error); one on
 * another QP that may have crossed the invalidation; and the key taken as
 * valid again once B sent a message. */
void sample_conv_mw(sample_emit_fn emit, void *ctx);
/* XRC over IPv4 (xrc.c): SEND, WRITE and READ from initiator QP 0x000201
 * to target QP 0x000200 naming two XRC SRQs (0x000077, 0x000078); the
 * responses without XRCETH. */
void sample_conv_xrc_srqs(sample_emit_fn emit, void *ctx);
/* FLUSH of each placement type and selectivity level, and ATOMIC WRITE,
 * over RC (IPv4), each answered by a zero-length RDMA READ Response Only
 * as rxe answers them (placement.c). */
void sample_conv_placement(sample_emit_fn emit, void *ctx);
/* An RC requester retrying from inside multi-packet SENDs over IPv4 (set
 * up by rdma_cm; retry.c): a go-back-N from a NAK that names a middle
 * PSN and a timeout after a partial ACK, each resend as first sent; then a
 * timeout's resend that changed from SEND First to SEND Only and shifted
 * the message one PSN on, and the responder's NAK Invalid Request for the
 * first new PSN. */
void sample_conv_retry(sample_emit_fn emit, void *ctx);
/* Conforming bulk RC traffic: `frames` frames (at least) over `qps`
 * connections between 198.18.0.1 and 198.18.0.2, with path MTU 1024: WRITE
 * and SEND messages of varying length with coalesced ACKs, and READs. */
void sample_conv_bulk(sample_emit_fn emit, void *ctx, unsigned long frames, unsigned qps);
/* A congested RC flow over IPv4 set up by rdma_cm: CE marks, CNPs, the
 * sender slowing down, a CNP after no mark seen (congestion.c). */
void sample_conv_congestion(sample_emit_fn emit, void *ctx);
/* The same in one of several shapes, for the benchmarks: */
enum sample_bulk_mix {
	SAMPLE_BULK_MIX,        /* WRITEs and SENDs of 1..4 packets, each ACKed; READs of 1..3 packets */
	SAMPLE_BULK_ACK_HEAVY,  /* one-packet SENDs and WRITEs, each ACKed: half the frames are ACKs */
	SAMPLE_BULK_READ_HEAVY, /* READs of 1..16 packets (and one WRITE in 8) */
};
struct sample_bulk_shape {
	unsigned qps; /* connections, 1..4096 */
	int ipv;      /* 4 or 6 */
	enum sample_bulk_mix mix;
	/* RoCE v1 (A16: the GRH of the IPv6 addresses' GIDs): 0 none, 1 every
	 * connection, 2 every other one (a v1/v2 mix over IPv6). */
	int rocev1;
};
void sample_conv_bulk_shape(sample_emit_fn emit, void *ctx, unsigned long frames,
			    const struct sample_bulk_shape *shape);

#endif
