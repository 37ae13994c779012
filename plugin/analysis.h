/*
 * Per-packet results the plugin computes on the first pass and reads back
 * on every later one (packet-tcp.c style), and the glue between the
 * dissector and libroce's flow analysis.
 */
#ifndef ROCEV2_ANALYSIS_H
#define ROCEV2_ANALYSIS_H

#include "reassembly.h"
#include "rocev2.h"

/* A packet's flow analysis, kept small: only the findings and values it
 * has are stored (most packets have a few values and no finding). */
struct rocev2_flow {
	uint8_t cls;           /* enum roce_flow_class */
	uint8_t n_findings;
	uint32_t flags;        /* ROCE_FLOW_F() */
	const struct roce_flow_dir *dir; /* its direction, NULL: not tracked */
	uint64_t has;          /* values present, ROCE_FLOW_HAS() */
	uint64_t slots;        /* values stored: present, or a LATE one awaited */
	uint64_t *values;      /* by ascending value number, one per bit of slots */
	struct roce_finding *findings;
};

struct rocev2_packet {
	/* ICRC */
	enum roce_icrc_status icrc_status;
	uint32_t icrc_wire, icrc_computed;
	struct roce_icrc_diagnosis icrc_diagnosis; /* when bad */
	/* Flow analysis */
	bool analysed;
	struct rocev2_flow flow;
	uint32_t response_in;    /* requests: the first response covering it */
	uint64_t response_in_ns;
	/* Connection manager: the QPs this MAD set up (0 when none). */
	uint32_t cm_local_qpn, cm_remote_qpn;
	uint32_t cm_peer_frame;  /* the REQ a REP answers, the REP an RTU confirms */
	/* ULP hand-off of a data transfer (not a SEND), decided on the first
	 * pass so that every pass offers the same packets. */
	enum { ROCEV2_ULP_UNDECIDED, ROCEV2_ULP_OFFER, ROCEV2_ULP_SKIP } ulp_data;
	/* The SEND message of several packets this one belongs to, if the
	 * first pass followed it (see rocev2_ulp_track_send). */
	struct rocev2_send_msg *send_msg;
	/* Its place in a SEND or WRITE message of several packets (reassembly.c). */
	struct rocev2_msg_part msg_part;
};

/* Preferences (packet-rocev2.c). */
struct rocev2_prefs {
	rocev2_pref_bool take_port;
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
struct rocev2_packet *rocev2_packet_new(packet_info *pinfo);
/* Runs the flow analysis on the first pass. */
void rocev2_analyse(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp);
/* Called on every packet of a later pass: the first one closes what
 * waited for the end of the capture. */
void rocev2_analysis_finish(void);
/* The analysis' environment: its records live in the file scope. */
const struct roce_flow_env *rocev2_flow_env(void);
/* A value of the packet's analysis: false when it has none. */
bool rocev2_flow_value(const struct rocev2_packet *rp, enum roce_flow_value v, uint64_t *out);
/* Info column tags and the analysis subtree with its findings. */
void rocev2_analysis_columns(packet_info *pinfo, const struct rocev2_packet *rp);
void rocev2_analysis_tree(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, tvbuff_t *ds,
			  int base, const struct rocev2_packet *rp);
#endif
