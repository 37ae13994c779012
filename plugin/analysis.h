/*
 * Per-packet results the plugin computes on the first pass and reads back
 * on every later one (packet-tcp.c style), and the glue between the
 * dissector and libroce's flow analysis.
 */
#ifndef ROCEV2_ANALYSIS_H
#define ROCEV2_ANALYSIS_H

#include "reassembly.h"
#include "rocev2.h"

struct rocev2_send_msg;

/* What a SEND or RDMA WRITE packet of a message of several packets keeps. */
struct rocev2_packet_msg {
	/* The SEND message it belongs to, if the first pass followed it (see
	 * rocev2_ulp_track_send). */
	struct rocev2_send_msg *send_msg;
	/* Its place in the message (reassembly.c). */
	struct rocev2_msg_part part;
};

/* What a connection manager MAD keeps: the QPs it set up (0 when none). */
struct rocev2_packet_cm {
	uint32_t local_qpn, remote_qpn;
	uint32_t peer_frame; /* the REQ a REP answers, the REP an RTU confirms */
	uint32_t unused;     /* what follows stays 8-byte aligned */
};

/* The part of a record that depends on its packet's kind. */
enum rocev2_packet_part { ROCEV2_PART_NONE, ROCEV2_PART_MSG, ROCEV2_PART_CM };

/* What the first pass finds about a packet, kept for later passes; one is
 * kept per packet of the capture, so it is small and made in one piece
 * once the first pass knows what it holds: the fixed fields, then what
 * only some packet kinds need (their part), then the flow analysis'
 * findings and values. What the packet's own bytes say again (its ICRC
 * on the wire, the diagnosis of a bad one) is not kept. */
struct rocev2_packet {
	uint8_t icrc_status;   /* enum roce_icrc_status */
	uint8_t ulp_data;      /* enum rocev2_ulp_data */
	uint8_t layer;         /* the frame's layer it is kept for */
	bool analysed;
	/* The flow analysis (when analysed). */
	uint8_t cls;           /* enum roce_flow_class */
	uint8_t n_findings;
	bool late_pending;     /* the LATE value of slots is not known yet */
	uint8_t part;          /* enum rocev2_packet_part */
	uint32_t icrc_computed;
	uint32_t response_in;  /* requests: the first response covering it */
	uint32_t flags;        /* ROCE_FLOW_F() */
	uint64_t slots;        /* values stored, ROCE_FLOW_HAS(): present, or the LATE one awaited */
	const struct roce_flow_dir *dir; /* its direction, NULL: not tracked */
	/* Its part; then the findings (n_findings); then the values by
	 * ascending value number, each NOW value as an unsigned LEB128
	 * number, a LATE one as 8 bytes written when it is known. */
	uint64_t tail[];
};

/* ULP hand-off of a data transfer (not a SEND), decided on the first pass
 * so that every pass offers the same packets. */
enum rocev2_ulp_data { ROCEV2_ULP_UNDECIDED, ROCEV2_ULP_OFFER, ROCEV2_ULP_SKIP };

static inline size_t rocev2_part_size(unsigned part)
{
	return part == ROCEV2_PART_MSG ? sizeof(struct rocev2_packet_msg)
	       : part == ROCEV2_PART_CM ? sizeof(struct rocev2_packet_cm) : 0;
}

/* The packet's message part, or NULL when its kind has none. */
static inline struct rocev2_packet_msg *rocev2_packet_msg(const struct rocev2_packet *rp)
{
	return rp->part == ROCEV2_PART_MSG ? (struct rocev2_packet_msg *)(uintptr_t)rp->tail : NULL;
}

/* The packet's connection manager part, or NULL when it is no MAD. */
static inline struct rocev2_packet_cm *rocev2_packet_cm(const struct rocev2_packet *rp)
{
	return rp->part == ROCEV2_PART_CM ? (struct rocev2_packet_cm *)(uintptr_t)rp->tail : NULL;
}

/* The findings of the packet's flow analysis (n_findings of them). */
static inline const struct roce_finding *rocev2_flow_findings(const struct rocev2_packet *rp)
{
	return (const struct roce_finding *)(const void *)((const uint8_t *)rp->tail + rocev2_part_size(rp->part));
}

/* Preferences (packet-rocev2.c). */
struct rocev2_prefs {
	rocev2_pref_bool take_port;
	rocev2_pref_bool take_rocev1;
	rocev2_pref_bool check_icrc;
	int pmtu; /* 0: learn per QP */
	rocev2_pref_bool ulp_heuristics;
	rocev2_pref_bool sender;
	rocev2_pref_bool analysis;
	rocev2_pref_bool ipv6_zero_udp_csum_ok;
};
extern struct rocev2_prefs rocev2_prefs;

void rocev2_register_analysis(int proto);
/* The cached result of this packet, or NULL on its first pass. */
struct rocev2_packet *rocev2_packet_get(packet_info *pinfo);
/* First pass: where this packet's record will be kept, which its flow
 * analysis is fed with (results that later packets bring go there). */
struct rocev2_packet **rocev2_packet_place(packet_info *pinfo);
/* Runs the flow analysis on the first pass; false when the packet is not
 * analysed (no IP addresses). */
bool rocev2_analyse(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet **place,
		    struct roce_flow_result *r);
/* The record of the packet t, kept at place, with part `part` and the
 * analysis result r (NULL: not analysed). */
struct rocev2_packet *rocev2_packet_new(packet_info *pinfo, struct rocev2_packet **place,
					enum rocev2_packet_part part, const struct roce_pkt *t,
					const struct roce_flow_result *r);
/* Called on every packet of a later pass: the first one closes what
 * waited for the end of the capture. */
void rocev2_analysis_finish(void);
/* The analysis' environment: its records live in the file scope. */
const struct roce_flow_env *rocev2_flow_env(void);
/* A value of the packet's analysis: false when it has none. */
bool rocev2_flow_value(const struct rocev2_packet *rp, enum roce_flow_value v, uint64_t *out);
/* The analysis' Info column tags, appended to info (size bytes in all):
 * the caller sets the column once, whole, instead of appending to it
 * (each append copies the column's text). */
void rocev2_analysis_info(const struct rocev2_packet *rp, char *info, size_t size);
/* The analysis subtree with its findings. */
void rocev2_analysis_tree(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, tvbuff_t *ds,
			  int base, const struct rocev2_packet *rp);
#endif
