/*
 * Per-packet results the plugin computes on the first pass and reads back
 * on every later one (packet-tcp.c style), and the glue between the
 * dissector and libroce's flow analysis.
 */
#ifndef ROCEV2_ANALYSIS_H
#define ROCEV2_ANALYSIS_H

#include "reassembly.h"
#include "rocev2.h"

struct rocev2_packet {
	/* ICRC */
	enum roce_icrc_status icrc_status;
	uint32_t icrc_wire, icrc_computed;
	struct roce_icrc_diagnosis icrc_diagnosis; /* when bad */
	/* Flow analysis (its result is the last member) */
	bool analysed;
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
	/* Last, so that a packet's record ends after its findings: most
	 * packets have none, and 200,000 records of 6 empty findings each are
	 * 37 MiB (analysis.c, rocev2_packet_new). */
	struct roce_flow_result flow;
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
/* Info column tags and the analysis subtree with its findings. */
void rocev2_analysis_columns(packet_info *pinfo, const struct rocev2_packet *rp);
void rocev2_analysis_tree(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, tvbuff_t *ds,
			  int base, const struct rocev2_packet *rp);
#endif
