/*
 * Per-QP flow analysis: judges each packet in the context of its QP's
 * traffic, the way packet-tcp.c judges a TCP segment. PSN gaps,
 * retransmissions and out-of-order packets; every ACK, NAK, READ response
 * and atomic ACK matched to the request it answers, with the response
 * time; NAK PSN Sequence Errors and RNR NAKs explained; READ response
 * segmentation checked against the request's length; the UDP source port
 * held constant per QP. Findings are codes of codes.def (ROCE_FLOW) naming
 * the rules they concern.
 *
 * The capture is assumed taken somewhere between the peers: packets cross
 * in flight, and some are lost, reordered or duplicated before the capture
 * point. A finding is an error only when no position of the capture point
 * explains what is seen; otherwise the analysis measures (the time from a
 * NAK to the resend it asks for, the new PSNs that crossed it) and warns
 * with both readings. A CM REQ/REP pair in the traffic (UD SENDs to QP1)
 * connects the two directions by itself.
 *
 * Plain C with caller-provided storage: libroce never allocates. The caller
 * supplies a find-or-create function for records keyed by bytes (Wireshark
 * keeps them in file-scope wmem maps; roce_flow_table below is a malloc
 * implementation for programs and tests). Packets must be fed in capture
 * order, each once; the result of a packet is final when the call returns,
 * except for the "response in" link of a request, which arrives later
 * through the answered() callback.
 */
#ifndef ROCE_FLOW_H
#define ROCE_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/check.h"
#include "roce/packet.h"
#include "roce/transport.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_FLOW_HISTORY 256     /* PSNs remembered per direction, for retransmissions */
#define ROCE_FLOW_OUTSTANDING 128 /* requests remembered per QP, for matching responses */
#define ROCE_FLOW_PAIR_QPS 16     /* QPs per pair of hosts searched to pair responses */
#define ROCE_FLOW_MAX_FINDINGS 6

/* What the analysis says about each packet besides its findings: flags
 * (ROCE_FLOW_F_*) and values (ROCE_FLOW_V_*), from flowvals.def. */
enum roce_flow_flag {
#define ROCE_FLOW_FLAG(sym, abbrev, label, desc) ROCE_FLOW_FLAG_##sym,
#include "roce/flowvals.def"
#undef ROCE_FLOW_FLAG
	ROCE_FLOW_FLAG_COUNT
};
#define ROCE_FLOW_F(sym) (1u << ROCE_FLOW_FLAG_##sym)

enum roce_flow_value {
#define ROCE_FLOW_VALUE(sym, abbrev, kind, when, label, desc) ROCE_FLOW_V_##sym,
#include "roce/flowvals.def"
#undef ROCE_FLOW_VALUE
	ROCE_FLOW_V_COUNT
};
#define ROCE_FLOW_HAS(sym) (UINT64_C(1) << ROCE_FLOW_V_##sym)
/* The values known only after later packets (WHEN LATE), as HAS bits. */
#define ROCE_FLOW_WHEN_BIT_NOW(sym) 0
#define ROCE_FLOW_WHEN_BIT_LATE(sym) ROCE_FLOW_HAS(sym)
static const uint64_t ROCE_FLOW_LATE_VALUES = 0
#define ROCE_FLOW_VALUE(sym, abbrev, kind, when, label, desc) | ROCE_FLOW_WHEN_BIT_##when(sym)
#include "roce/flowvals.def"
#undef ROCE_FLOW_VALUE
	;

enum roce_flow_value_kind {
	ROCE_FLOW_KIND_FRAME, ROCE_FLOW_KIND_TIME, ROCE_FLOW_KIND_COUNT, ROCE_FLOW_KIND_BYTES,
	ROCE_FLOW_KIND_PSN, ROCE_FLOW_KIND_QPN, ROCE_FLOW_KIND_RATE,
};
struct roce_flow_item_info {
	const char *abbrev; /* "analysis.ack_rtt": the plugin's field is "rocev2." this */
	const char *label;
	const char *description;
	enum roce_flow_value_kind kind; /* values only */
	bool late;                      /* values only: reported through a callback */
};
const struct roce_flow_item_info *roce_flow_flag_info(enum roce_flow_flag f);
const struct roce_flow_item_info *roce_flow_value_info(enum roce_flow_value v);

/* A request answered: the first response (ACK, NAK, READ response or atomic
 * ACK) that covers it. */
struct roce_flow_answer {
	uint32_t request_frame, response_frame;
	uint64_t delta_ns;
	enum roce_op_kind kind; /* the request's */
	/* The request ends an operation: a SEND or WRITE Last or Only, a READ,
	 * an atomic, a FLUSH (what service response times count). */
	bool completes;
};

struct roce_flow_env {
	void *ctx;
	/* Returns the record stored under key (klen bytes), creating it with
	 * size zeroed bytes if it does not exist; NULL when out of memory.
	 * Records never move or disappear while the analysis runs. */
	void *(*record)(void *ctx, const void *key, size_t klen, size_t size);
	/* Optional: the request fed with `cookie` (its roce_flow_input.cookie)
	 * was answered. Called once per request, for the first response that
	 * covers it, while that response is fed. */
	void (*answered)(void *ctx, void *cookie, const struct roce_flow_answer *a);
	/* Optional: a LATE value of the earlier packet fed with `cookie`
	 * (ROCE_FLOW_V_RATE_AFTER of a CNP), known only now. */
	void (*late)(void *ctx, void *cookie, enum roce_flow_value v, uint64_t value);
	/* The windows the sender's rate is measured in around each CNP; 0 is
	 * ROCE_FLOW_RATE_WINDOW_NS. */
	uint64_t rate_window_ns;
	/* Optional: size zeroed bytes for a direction's rings of recent PSNs
	 * and requests, which are reached through their direction and need no
	 * key; kept like records; NULL when out of memory. Without it each
	 * ring is a record of its own (a key per ring and size). */
	void *(*alloc)(void *ctx, size_t size);
	/* Optional, with alloc: a ring of size bytes from alloc, replaced by a
	 * larger one, is no longer used. */
	void (*release)(void *ctx, void *mem, size_t size);
};
#define ROCE_FLOW_RATE_WINDOW_NS 1000000u
/* The longest key roce_flow_env.record is given, in bytes. */
#define ROCE_FLOW_KEY_MAX 40

/* One packet as the analysis sees it. */
struct roce_flow_input {
	const struct roce_pkt *pkt; /* parsed at least to the extended headers */
	uint8_t ip_version;         /* 4 or 6 */
	const uint8_t *src, *dst;   /* IP addresses, 4 or 16 bytes */
	uint16_t sport;             /* UDP source port */
	uint32_t frame;             /* capture order, from 1 (findings name frames by it:
				     * roce_finding_message_frames says them otherwise) */
	uint64_t ts_ns;             /* capture time */
	unsigned pmtu;              /* path MTU if known, 0 to learn it per QP */
	void *cookie;               /* the caller's, handed back by answered() and late() */
	uint32_t wire_len;          /* the frame's length on the wire (statistics, rates) */
	/* A RoCE v1 packet: src and dst are its GIDs (ip_version 6). A RoCE v1
	 * QP is another QP than a RoCEv2 one with the same numbers. */
	bool rocev1;
};

enum roce_flow_class {
	ROCE_FLOW_UNTRACKED = 0, /* not analysed: UD, CNP, a packet without a PSN order */
	ROCE_FLOW_FIRST,         /* first packet seen in this direction of the QP */
	ROCE_FLOW_IN_ORDER,      /* the PSN expected next */
	ROCE_FLOW_GAP,           /* ahead of the expected PSN */
	ROCE_FLOW_RETRANSMISSION,/* a PSN seen before */
	ROCE_FLOW_OUT_OF_ORDER,  /* behind the expected PSN, not seen before */
	ROCE_FLOW_RESPONSE,      /* a response (ACK, NAK, READ response, atomic ACK) */
};

struct roce_flow_dir; /* a direction of a QP: what one host sends to another's QP */

struct roce_flow_result {
	enum roce_flow_class cls;
	uint32_t flags;          /* ROCE_FLOW_F() */
	uint64_t has;            /* the values present, ROCE_FLOW_HAS(); read them with roce_flow_value() */
	const struct roce_flow_dir *dir; /* the direction it travels in (NULL: not tracked) */
	uint32_t dir_id;         /* its number, from 1 in the order directions were first seen */
	uint32_t expected_psn;   /* the next new PSN before this packet (requests) */
	uint32_t request_frame;  /* responses: the request answered, 0 if not found */
	uint64_t response_ns;    /* responses: time since that request */
	uint32_t src_qpn;        /* the QP that sent this packet, when known (CM or pairing) */
	unsigned pmtu;           /* path MTU in force for this QP, 0 if unknown */
	uint32_t read_index;     /* READ responses: 1-based packet number ... */
	uint32_t read_count;     /* ... of this many (0 when unknown) */
	uint32_t retransmit_of;  /* retransmissions: frame of the earlier copy */
	/* The first resend of the PSN a NAK PSN Sequence Error asked for; all
	 * zero on other packets. */
	uint32_t nak_frame;        /* the NAK */
	uint64_t nak_to_resend_ns; /* time from the NAK to this resend */
	uint32_t new_after_nak;    /* new PSNs the requester sent in between: they crossed the NAK */
	/* Every other value, by ROCE_FLOW_V_*, when `has` says so. */
	uint64_t value[ROCE_FLOW_V_COUNT];
	unsigned n_findings;
	struct roce_finding findings[ROCE_FLOW_MAX_FINDINGS]; /* off/len relative to pkt->buf */
};

/* A value of the result: false when the packet has none. */
bool roce_flow_value(const struct roce_flow_result *r, enum roce_flow_value v, uint64_t *out);

/* Analyses one packet; writes its result. */
void roce_flow_packet(const struct roce_flow_env *env, const struct roce_flow_input *in,
		      struct roce_flow_result *out);

/* Sets in->pkt, and the IP version, addresses and UDP source port from the
 * packet's own headers (a RoCE v1 packet's GIDs, as IPv6 addresses), for
 * programs that read whole frames; returns false when the packet has no
 * IP header or GRH, or no BTH with a known opcode: nothing to analyse. */
bool roce_flow_input_from(struct roce_flow_input *in, const struct roce_pkt *p);

/* What a connection manager exchange (CM REQ and REP, or their IP CM
 * private data) says about a connection: the QPs at both ends, the PSN each
 * side starts sending with, and the path MTU. Lets the analysis pair the
 * two directions and judge the very first packets. */
struct roce_flow_connection {
	uint8_t ip_version;
	const uint8_t *a, *b;       /* IP addresses of the two ends */
	uint32_t a_qpn, b_qpn;      /* local QPN at each end */
	uint32_t a_start_psn, b_start_psn;
	bool a_psn_known, b_psn_known;
	unsigned pmtu;              /* 0 when not known */
	bool rocev1;                /* a RoCE v1 connection: a and b are GIDs */
};
void roce_flow_connect(const struct roce_flow_env *env, const struct roce_flow_connection *c);

/* What is still open at the end of a capture: a NAK PSN Sequence Error
 * whose PSN the requester was never seen to resend. Not a finding of any
 * packet (the capture may simply have ended, or the resends been lost
 * before the capture point); `roce-tester lint` lists them after the
 * packets. */
struct roce_flow_open_nak {
	uint8_t ip_version;
	const uint8_t *src, *dst;  /* the requester and the responder */
	uint32_t dest_qpn;         /* the responder's QP */
	uint32_t nak_frame, nak_psn;
	uint32_t packets_after;    /* requester packets seen after the NAK */
	uint64_t after_ns;         /* from the NAK to the last of them */
	bool clean;                /* the path showed no loss, reordering or duplication */
	bool rocev1;               /* a RoCE v1 QP (src, dst: GIDs) */
};
/* Calls report once per open NAK, in the order their QPs were first seen. */
void roce_flow_end(const struct roce_flow_env *env,
		   void (*report)(void *arg, const struct roce_flow_open_nak *o), void *arg);

/* The end of the capture at end_ns: closes what waits for later packets
 * (the rate windows after the last CNPs), reporting their LATE values.
 * Idempotent; packets fed afterwards start new windows. */
void roce_flow_finish(const struct roce_flow_env *env, uint64_t end_ns);

/* ---- Directions, connections and their statistics ---- */

struct roce_flow_dir_info {
	uint32_t id;
	uint8_t ip_version;
	const uint8_t *src, *dst;  /* the sending and the receiving host */
	uint32_t dest_qpn;         /* the receiving QP */
	uint32_t src_qpn;          /* the sending QP, ROCE_FLOW_QPN_UNKNOWN until paired */
	uint32_t peer_id;          /* the opposite direction, 0 until paired */
	/* XRC: the SRQ numbers (XRCETH) the requests to the target QP named so
	 * far, in the order first seen (a target QP may serve several SRQs);
	 * for the responses' direction, those of its requests. */
	unsigned n_xrc_srqs;
	const uint32_t *xrc_srqns;
	bool xrc_srqs_more;        /* more were seen than ROCE_FLOW_XRC_SRQS */
	bool rocev1;               /* a RoCE v1 QP (src, dst: GIDs) */
};
#define ROCE_FLOW_XRC_SRQS 8
#define ROCE_FLOW_QPN_UNKNOWN 0xFFFFFFFFu
void roce_flow_dir_info(const struct roce_flow_dir *d, struct roce_flow_dir_info *out);

/* What one packet adds to its direction's statistics. */
struct roce_flow_sample {
	uint32_t flags;
	uint64_t ts_ns;
	uint32_t wire_len;
	bool cnp;
	bool has_rtt;
	uint64_t ack_rtt_ns;
};
void roce_flow_sample_of(struct roce_flow_sample *s, const struct roce_flow_input *in,
			 const struct roce_flow_result *r);

/* A direction's (or, merged, a QP pair's) statistics. */
struct roce_flow_stats {
	uint64_t packets, bytes;
	uint64_t first_ns, last_ns;
	uint32_t retransmissions, spurious, gaps, out_of_order, duplicates;
	uint32_t naks, seq_naks, rnr_naks, rnr_retries, cnps, ce_marked;
	uint32_t rtt_count;
	uint64_t rtt_sum_ns, rtt_min_ns, rtt_max_ns;
};
void roce_flow_stats_add(struct roce_flow_stats *s, const struct roce_flow_sample *x);
void roce_flow_stats_merge(struct roce_flow_stats *into, const struct roce_flow_stats *from);

/* A QP pair: the two directions between QP a at host a and QP b at host b
 * (ab: a sends to b's QP), or one direction whose peer is unknown (qp_a
 * ROCE_FLOW_QPN_UNKNOWN, ba_id 0). */
struct roce_flow_qp_pair {
	uint8_t ip_version;
	const uint8_t *a, *b;
	uint32_t qp_a, qp_b;
	uint32_t ab_id, ba_id; /* direction ids, 0 when there is none */
	/* XRC: the SRQ numbers the requests to the target QP named
	 * (roce_flow_dir_info); 0 for other transports. */
	unsigned n_xrc_srqs;
	const uint32_t *xrc_srqns;
	bool xrc_srqs_more;
	uint32_t xrc_target_qpn; /* the QP they were sent to */
	bool rocev1;             /* RoCE v1 QPs (a, b: GIDs) */
};
/* Calls report once per QP pair, in the order their first direction was
 * seen. */
void roce_flow_qp_pairs(const struct roce_flow_env *env, void (*report)(void *arg, const struct roce_flow_qp_pair *p),
			void *arg);

/* The per-QP summary: statistics per direction, written per QP pair (in
 * the order of roce_flow_qp_pairs) as a text table or a JSON array; an
 * XRC pair's SRQ numbers on a line of their own under its row (text) or
 * as "xrc_srqs" (JSON). */
struct roce_flow_summary;
struct roce_flow_summary *roce_flow_summary_new(void);
void roce_flow_summary_free(struct roce_flow_summary *s);
/* Adds a packet's sample to direction dir_id (0: not tracked, ignored);
 * false when out of memory. */
bool roce_flow_summary_add(struct roce_flow_summary *s, uint32_t dir_id, const struct roce_flow_sample *x);
/* A QP pair's statistics, both directions merged; false when it has no packet. */
bool roce_flow_summary_pair(const struct roce_flow_summary *s, const struct roce_flow_qp_pair *p,
			    struct roce_flow_stats *out);
void roce_flow_summary_write(const struct roce_flow_summary *s, const struct roce_flow_env *env, FILE *out,
			     bool json);

/* ---- A malloc-backed record store for programs and tests ---- */
struct roce_flow_table;
struct roce_flow_table *roce_flow_table_new(void);
void roce_flow_table_free(struct roce_flow_table *t);
/* The record() callback for struct roce_flow_env, with the table as ctx. */
void *roce_flow_table_record(void *table, const void *key, size_t klen, size_t size);

#ifdef __cplusplus
}
#endif

#endif
