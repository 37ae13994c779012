/*
 * The per-QP flow analysis' records and the helpers its files share
 * (flow.c: a packet's way in, directions, requests and their PSN order,
 * the CM; flow_response.c: the responses that answer them;
 * flow_gobackn.c: go-back-N and the other resends; flow_retx.c:
 * retransmissions against their first transmission; flow_window.c: the
 * rings of recent PSNs and requests; flow_measure.c: in-flight work and
 * congestion; flow_rkey.c: the rkey life cycle; flow_records.c: the
 * records' keys, the registry, host pairs; flow_result.c: findings and
 * values in a result; flow_stats.c: the vocabulary and statistics).
 * Internal to libroce. The calls run one way: flow.c, flow_response.c,
 * flow_gobackn.c, then the others, with flow_records.c and flow_result.c
 * at the bottom.
 */
#ifndef ROCE_FLOW_INTERNAL_H
#define ROCE_FLOW_INTERNAL_H

#include "hints.h"
#include "roce/flow.h"

#define KIND_DIRECTION 1
#define KIND_PAIR 2
#define KIND_CM_REQ 3
#define KIND_REGISTRY 4
#define KIND_SENT 5     /* a direction's history of requests sent (as a requester) */
#define KIND_REQUESTS 6 /* its request ring (as a requester) */
#define KIND_RESP 7     /* its history of responses sent (as a responder) */
#define KIND_RKEY 8     /* an rkey of a node, for its life cycle (flow_rkey.c) */
#define KIND_RETX 9     /* a direction's first transmissions of its request PSNs (flow_retx.c) */

#define ICRC_KNOWN 0x80000000u /* in a slot's psn_plus1: the ICRC was captured */

struct request {
	uint32_t psn;
	uint32_t span;      /* PSNs it occupies: 1, or a READ's response count */
	uint32_t frame;
	union {
		uint32_t dmalen;   /* READ: bytes asked for */
		uint32_t inv_rkey; /* SEND with Invalidate (inv): the rkey its IETH names */
	};
	uint32_t responses; /* READ: response packets seen */
	/* A READ re-requested from inside an earlier READ's range (replay):
	 * that READ's first PSN and packet count (its responses may keep its
	 * opcodes). */
	uint32_t orig_psn, orig_span;
	uint8_t kind;       /* enum roce_op_kind */
	bool span_known : 1; /* false for a READ while the path MTU is unknown */
	bool answered : 1;
	bool completes : 1; /* ends an operation (roce_flow_answer.completes) */
	bool replay : 1;
	bool origin_unseen : 1; /* replay: asks again for PSNs sent before, its original no longer in view */
	bool inv : 1;        /* a SEND with Invalidate, which carries the rkey in inv_rkey */
	uint64_t ts_ns;
	uint64_t bytes_left; /* bytes of it still in flight */
	void *cookie;
};
/* Rings of them per requester: kept small (no padding holes). */
_Static_assert(sizeof(struct request) <= 56, "a request entry fits in 56 bytes");

/* A PSN sent (a request) or answered (a response), by psn % size. */
struct slot {
	uint32_t psn_plus1; /* 0 = empty; | ICRC_KNOWN */
	uint32_t frame;
	uint32_t icrc;      /* identifies a byte-identical copy */
	uint32_t ts_lo;     /* capture time, low and high 32 bits */
	uint32_t ts_hi;
};

/* The rings of one direction, replaced by larger ones when they fill with
 * what is still needed. Each is allocated when the direction first acts in
 * its role (most directions only send requests or only responses): until
 * then it is NULL and, to lookups, empty. */
struct window {
	unsigned hist;      /* slots in each history: a power of two, up to ROCE_FLOW_HISTORY */
	unsigned reqs;      /* request slots, up to ROCE_FLOW_OUTSTANDING */
	unsigned req_next, req_count;
	unsigned req_done;  /* the oldest req_done requests are answered and out of flight */
	struct slot *sent;  /* requests this host sent */
	struct slot *resp;  /* responses this host sent */
	struct request *req;
};

/* A NAK PSN Sequence Error and what the requester did about it. */
struct nak_episode {
	bool open;
	bool resent;         /* the NAKed PSN was seen resent */
	bool resend_unsure;  /* ... but maybe not by the requester: a byte-identical
			      * copy (a duplicate?) or its first copy (late?) */
	bool judged;         /* one going-back finding per NAK */
	uint32_t psn;        /* the NAKed PSN */
	uint32_t frame;
	uint64_t ts_ns;
	uint32_t new_before; /* new PSNs after the NAK, before the resend */
	uint32_t after;      /* requester packets after the NAK */
	uint32_t high;       /* the next new PSN when the resend began */
	uint32_t resend_next;/* the next PSN the go-back should resend */
	/* A resend past the NAKed PSN came first. Reordering before the
	 * capture point explains it when the go-back from the NAKed PSN later
	 * passes over its PSN; a requester that skipped the NAKed PSN resends
	 * on to the highest PSN and goes on with new ones. Judged then. */
	bool ahead;
	bool ahead_unsure;   /* a byte-identical copy, or a PSN never seen */
	uint32_t ahead_psn;
	uint32_t ahead_end;  /* the PSN after it */
	/* The IPv4 IDs of the requester's packet seen before the resend of the
	 * NAKed PSN and of that resend: a packet numbered between them left
	 * the requester before the resend. */
	bool ipid_known;
	uint16_t ipid_before, ipid_resend;
};

#define RATE_SLOTS 8
/* What this direction sends, for the rate around each CNP: bytes per slot
 * of an eighth of the window, and the window after the last CNP. */
struct rate {
	uint64_t slot_index[RATE_SLOTS]; /* ts / slot width, +1 (0: empty) */
	uint64_t slot_bytes[RATE_SLOTS];
	bool started;
	uint64_t first_ns, last_ns;
	bool after_open;
	void *after_cookie;
	uint64_t after_start_ns, after_bytes;
	bool cnp_seen;
	uint32_t cnp_frame;  /* the last CNP about this flow */
	uint64_t cnp_ns;
	uint32_t ce_pending; /* CE-marked packets since then */
	uint32_t ce_frame;   /* the newest of them */
};

/* A request through an rkey its node had invalidated (flow_rkey.c),
 * judged when the responder answers it. */
enum rkey_access_state {
	RKEY_ACCESS_NONE = 0,
	RKEY_ACCESS_AFTER,   /* it reached the node after the invalidation */
	RKEY_ACCESS_CROSSED, /* it may have crossed the invalidation in flight */
	RKEY_ACCESS_BEHIND,  /* behind the invalidating SEND on its QP, not yet acknowledged */
};
#define RKEY_ACCESSES 4 /* such requests remembered per direction */
struct rkey_access {
	uint8_t state;      /* enum rkey_access_state */
	uint32_t psn, rkey;
	uint32_t inv_frame; /* the SEND with Invalidate */
	uint64_t ts;        /* when the request passed the capture point */
};

#define XRC_SRQS ROCE_FLOW_XRC_SRQS /* XRC SRQ numbers remembered per direction */

struct registry;
struct retx_slot;

struct direction {
	uint32_t id;
	uint32_t dest_qpn;
	struct registry *reg;   /* the registry listing it (what the whole capture knows) */
	struct direction *peer; /* the opposite direction of the same connection */
	struct direction *next; /* the registry's list, in the order seen */
	uint8_t ip_version;
	bool rocev1; /* its packets are RoCE v1: src and dst are GIDs */
	uint8_t src[16], dst[16];
	unsigned pmtu;
	bool sport_known;
	uint16_t sport;
	struct window w;

	/* Requests this host sends. */
	bool started;
	bool start_known;   /* its first PSN came from the CM exchange */
	bool new_seen;      /* a new PSN in order after the first packet */
	uint32_t next_psn;  /* next new PSN */
	uint32_t slack;     /* extra PSNs a READ of unknown length in packets may have taken */
	enum { MSG_UNKNOWN, MSG_IN, MSG_OUT } msg;
	bool in_pair;
	uint32_t disorder;  /* gaps, late packets, unexplained retransmissions seen */
	bool retx_seen;     /* a retransmission was seen, the last ... */
	uint32_t last_retx_psn; /* ... of this PSN */
	bool new_since_retx;    /* the next new PSN in order since then: its run of resends ended */
	bool retx_overtaken;    /* a resend of that run came ahead of others (overtook them before
				 * the capture point, or they were lost there): the run ... */
	uint32_t retx_resume;   /* ... may go on from this PSN, where it was */
	bool retx_ahead;        /* the last resend came ahead of its run */
	uint64_t last_ts;
	bool ipid_known;    /* the IPv4 ID of the last request seen */
	uint16_t last_ipid;
	uint32_t una;       /* the oldest PSN not yet acknowledged */
	uint64_t bytes_in_flight;
	/* The first transmission of each request PSN in the window, for its
	 * retransmissions (flow_retx.c): retx_size slots, the history's size. */
	struct retx_slot *retx;
	unsigned retx_size;
	/* What the responder (the peer) told this requester. */
	struct nak_episode nak;
	bool rnr_pending;
	uint32_t rnr_psn, rnr_usec, rnr_frame;
	uint64_t rnr_ts;

	/* Responses this host sends. */
	bool ack_seen;
	uint32_t last_ack_psn;
	uint8_t last_syndrome;
	uint32_t last_ack_icrc;

	/* What this host sends, for congestion. */
	struct rate rate;

	/* The rkey life cycle: the last message (SEND First or Only) this host
	 * sent, and requests through invalidated rkeys awaiting their answer. */
	bool msg_sent;
	uint64_t last_msg_ts;
	struct rkey_access rkey_access[RKEY_ACCESSES];

	/* XRC: the SRQ numbers its requests named (XRCETH), in the order seen. */
	uint8_t n_xrc_srqs;
	bool xrc_srqs_more; /* more than XRC_SRQS were seen */
	uint32_t xrc_srqn[XRC_SRQS];
};

struct pair {
	struct direction *dir[ROCE_FLOW_PAIR_QPS];
	unsigned n;
};

struct registry {
	struct direction *first, *last;
	uint32_t count;
	uint32_t invalidations; /* SENDs with Invalidate seen: rkeys to follow */
};

/* The address space of a key: the IP version (4 or 6), or RoCE v1's, whose
 * GIDs may equal a RoCEv2 IPv6 address (a RoCE v1 QP and a RoCEv2 QP with
 * the same numbers are different QPs). */
#define FLOW_NET_ROCEV1 1
static inline uint8_t flow_net(uint8_t ip_version, bool rocev1)
{
	return rocev1 ? FLOW_NET_ROCEV1 : ip_version;
}

static inline uint8_t flow_dir_net(const struct direction *d)
{
	return flow_net(d->ip_version, d->rocev1);
}

static inline uint8_t flow_in_net(const struct roce_flow_input *in)
{
	return flow_net(in->ip_version, in->rocev1);
}

static inline size_t flow_net_addr_len(uint8_t net)
{
	return net == 4 ? 4 : 16;
}

struct key {
	uint8_t kind, net, pad[2]; /* net: flow_net() */
	uint32_t qpn;
	uint8_t src[16], dst[16];
};
_Static_assert(sizeof(struct key) <= ROCE_FLOW_KEY_MAX, "record keys fit in ROCE_FLOW_KEY_MAX bytes");

/* ---- flow_records.c ---- */
void flow_make_key(struct key *k, uint8_t kind, uint8_t net, const uint8_t *src, const uint8_t *dst,
		   uint32_t qpn);
struct registry *flow_registry(const struct roce_flow_env *env);
/* The pair of hosts src -> dst, for the directions carrying requests. */
struct pair *flow_pair_of(const struct roce_flow_env *env, uint8_t net, const uint8_t *src, const uint8_t *dst);

/* ---- flow_result.c ---- */
/* Raising a finding is the rare case: out of line (hints.h). */
ROCE_COLD void flow_add(struct roce_flow_result *r, enum roce_code c, uint32_t off, uint32_t len, uint64_t observed,
			uint64_t expected);
/* The values the result carries in named fields, and the flags its class
 * means, in the generic form too. */
void flow_publish(struct roce_flow_result *r);

static inline void flow_set(struct roce_flow_result *r, enum roce_flow_value v, uint64_t x)
{
	r->value[v] = x;
	r->has |= UINT64_C(1) << v;
}

static inline struct request *flow_req_at(const struct window *w, unsigned i) /* i = 0: the oldest */
{
	return &w->req[(w->req_next + w->reqs - w->req_count + i) % w->reqs];
}

static inline struct request *flow_req_newest(const struct window *w)
{
	return &w->req[(w->req_next + w->reqs - 1) % w->reqs];
}

static inline uint64_t flow_since(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : 0;
}

static inline bool flow_clean(const struct direction *q)
{
	return q->disorder == 0;
}

static inline bool flow_is_pmtu(uint32_t n)
{
	return n == 256 || n == 512 || n == 1024 || n == 2048 || n == 4096;
}

static inline uint32_t flow_read_packets(uint32_t dmalen, unsigned pmtu)
{
	return dmalen == 0 ? 1 : (uint32_t)((dmalen + (uint64_t)pmtu - 1) / pmtu);
}

static inline void flow_note_pmtu(struct direction *d, const struct roce_flow_input *in)
{
	const struct roce_pkt *p = in->pkt;
	if (in->pmtu) {
		d->pmtu = in->pmtu;
		return;
	}
	if (!d->pmtu && (p->op->position == ROCE_POS_FIRST || p->op->position == ROCE_POS_MIDDLE) &&
	    flow_is_pmtu(p->payload_len)) {
		d->pmtu = p->payload_len;
		if (d->peer && !d->peer->pmtu)
			d->peer->pmtu = p->payload_len;
	}
}

/* The packet's IPv4 ID, when it has one. */
static inline bool flow_ipv4_id(const struct roce_pkt *p, uint16_t *id)
{
	const uint8_t *ip = roce_pkt_hdr(p, ROCE_H_IPV4);
	if (ip)
		*id = (uint16_t)roce_ipv4_id(ip);
	return ip != NULL;
}

/* ---- flow_window.c ---- */
/* Gives d its first (smallest) window sizes; its rings come when used. */
void flow_window_init(struct direction *d);
/* A ring of d (kind KIND_*) of n entries of size bytes, zeroed: from
 * env->alloc, or a record of its own per kind and n; NULL when out of
 * memory. One a larger ring replaced goes back with flow_ring_release. */
void *flow_ring_new(const struct roce_flow_env *env, const struct direction *d, uint8_t kind, unsigned n,
		    size_t size);
void flow_ring_release(const struct roce_flow_env *env, void *ring, size_t size);
/* Both return false for a ring not allocated yet (h NULL): nothing seen. */
bool flow_seen(const struct slot *h, unsigned size, uint32_t psn, uint32_t *frame, uint64_t *ts);
bool flow_copy_of_last(const struct slot *h, unsigned size, uint32_t psn, const struct roce_pkt *p);
/* Remembers psn in d's request history (sent) or response history. */
void flow_remember(const struct roce_flow_env *env, struct direction *d, bool sent, uint32_t psn,
		   const struct roce_flow_input *in);
/* A new slot for a request, the oldest overwritten when the ring cannot
 * grow; NULL when out of memory. */
struct request *flow_new_request(const struct roce_flow_env *env, struct direction *d);
/* The newest request whose PSN range holds psn, optionally of one kind. */
struct request *flow_find_request(struct direction *q, uint32_t psn, enum roce_op_kind kind);

/* ---- flow_response.c ---- */
/* A response rd carries: the requests it answers, judged. */
void flow_response(const struct roce_flow_env *env, struct direction *rd, const struct roce_flow_input *in,
		   struct roce_flow_result *r);

/* ---- flow_gobackn.c ---- */
/* A NAK PSN Sequence Error for psn opens a go-back. */
void flow_nak_open(struct direction *q, uint32_t psn, uint32_t frame, uint64_t ts);
/* The responder acknowledged up to psn: what the go-back needed is there. */
void flow_nak_acked(struct direction *q, uint32_t psn);
/* A request of q while a go-back is open: retx, a resend (unsure: maybe
 * the network's copy); else a new PSN. */
ROCE_COLD void flow_go_back_n(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
			      bool retx, bool unsure, uint32_t bth_off, struct roce_flow_result *r);
/* A request behind the next new PSN: a retransmission or a late packet.
 * Returns whether the PSN is new to the capture. */
ROCE_COLD bool flow_behind(struct direction *q, const struct roce_flow_input *in, uint32_t psn, uint32_t span,
			   uint32_t bth_off, struct roce_flow_result *r);

/* ---- flow_rkey.c ---- */
/* A request: a SEND with Invalidate starts its rkey's invalidation; an
 * access (RETH or AtomicETH) through an invalidated rkey is noted. */
void flow_rkey_request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
		       uint32_t psn, struct roce_flow_result *r);
/* The responder acknowledged the SEND with Invalidate e: its rkey is invalid. */
void flow_rkey_invalidated(const struct roce_flow_env *env, const struct direction *q, const struct request *e,
			   const struct roce_flow_input *in);
/* A response to q's requests: positive (an ACK, READ response, atomic ACK)
 * acknowledges up to psn, a NAK (or RNR NAK) the PSNs before it; the
 * noted accesses it shows executed are judged. */
void flow_rkey_response(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
			uint32_t psn, bool positive, struct roce_flow_result *r);

/* ---- flow_retx.c ---- */
/* A request q sent: the first transmission of its PSN is remembered; a
 * retransmission (r->cls) is compared with it, and what changed raised. */
void flow_retx_request(const struct roce_flow_env *env, struct direction *q, const struct roce_flow_input *in,
		       uint32_t psn, struct roce_flow_result *r);

/* ---- flow_measure.c ---- */
/* The request's bytes while in flight: a SEND or WRITE's payload, the
 * length a READ asks for, an atomic's 8 bytes. */
uint64_t flow_request_bytes(const struct roce_pkt *p, uint32_t dmalen);
/* The responder acknowledged every PSN before `upto`. */
void flow_acknowledge(struct direction *q, uint32_t upto);
void flow_in_flight(const struct direction *q, struct roce_flow_result *r);
/* Every packet of a direction, for its rate; ce: marked CE. */
void flow_rate_packet(const struct roce_flow_env *env, struct direction *d, const struct roce_flow_input *in, bool ce);
/* The packet was marked CE (ECN 11) before the capture point. */
bool flow_ce_marked(const struct roce_pkt *p);
/* A CNP, fed on the direction cnp_dir (the notification point to the
 * reaction point's QP); flow: what the reaction point sends, if known. */
void flow_cnp(const struct roce_flow_env *env, struct direction *flow, const struct roce_flow_input *in,
	      struct roce_flow_result *r);

#endif
