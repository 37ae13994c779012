/*
 * Internal interfaces of the RoCEv2 Wireshark plugin. The dissector
 * (packet-rocev2.c) owns registration and the per-packet walk; the other
 * files each hold one idea and register their own parts.
 */
#ifndef ROCEV2_PLUGIN_H
#define ROCEV2_PLUGIN_H

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>

#include "compat.h"
#include "roce/roce.h"

#define ROCEV2_PROTO_NAME "RoCEv2"
#define ROCEV1_PROTO_NAME "RoCEv1" /* the Protocol column of a RoCE v1 frame */
#define ROCEV2_FILTER "rocev2"
/* The helper protocol of RoCE v1 frames (ethertype.c): its filter name,
 * also its tap's, and its short name, the title of its Conversations and
 * Endpoints tab (tshark -z conv,rocev1). */
#define ROCEV1_FILTER "rocev1"
#define ROCEV1_TABLE_NAME "RoCE v1"

extern int proto_rocev2;

/* A hash of n bytes for the file-scope maps that every packet looks up
 * (flow records, messages), a word at a time. */
static inline guint rocev2_hash_bytes(const void *bytes, size_t n)
{
	const uint8_t *b = bytes;
	uint64_t h = n * UINT64_C(0x9E3779B97F4A7C15);
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, sizeof w);
		h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
		h ^= h >> 31;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x94D049BB133111EB);
	h ^= h >> 29;
	return (guint)h;
}

/* Whether Wireshark keeps an item of field hfi added under tree, rather
 * than faking it (proto.c's TRY_TO_FAKE_THIS_ITEM: a tree that only serves
 * a filter or a tap keeps the fields they refer to). Asking first spares
 * the call for each field nobody looks at. Not for FT_PROTOCOL fields. */
static inline bool rocev2_item_kept(proto_tree *tree, const header_field_info *hfi)
{
	return tree && (PTREE_DATA(tree)->visible || !PTREE_FINFO(tree) || hfi->ref_type != HF_REF_TYPE_NONE);
}

/* ---- fields.c: header fields derived from libroce's descriptors ---- */

/* Registers one Wireshark field per libroce field from the GRH (RoCE v1)
 * on (the IP and UDP layers belong to their own dissectors), a subtree per header,
 * and the opcode names from the opcode table. */
void rocev2_register_header_fields(int proto);
/* Adds header h (found at off in tvb) with every field it carries. */
proto_item *rocev2_add_header(proto_tree *tree, tvbuff_t *tvb, int off, enum roce_hdr h);
/* The field id of a libroce field (for filters and taps), or -1. */
int rocev2_hf(enum roce_field f);

/* ---- findings.c: one expert info per libroce code ---- */
void rocev2_register_findings(int proto);
/* Adds a finding: a rocev2.rule item (on the bytes concerned when they are
 * in tvb) carrying an expert info that names the rule and the fault. */
void rocev2_add_finding(proto_tree *tree, packet_info *pinfo, tvbuff_t *tvb, int tvb_base,
			const struct roce_finding *f, const char *extra);

/* ---- port.c: UDP port 4791, whatever the source port ---- */

/* Takes UDP 4791 (as a changed entry, the way Decode As does) or gives it
 * back to the built-in dissector; again at the start of every file. */
void rocev2_port_apply(dissector_handle_t handle, bool take_port);
void rocev2_port_register(void);
/* Whether the dissector keeps this datagram: false only for one whose
 * other port is below 4791 and has a dissector of its own, unless it is
 * sent to 4791 with a BTH and a good ICRC (has_ip: t was parsed from the
 * IP header, so its ICRC can be checked) or belongs to a flow that had one. */
bool rocev2_port_accepts(packet_info *pinfo, const struct roce_pkt *t, bool has_ip);

/* ---- ethertype.c: RoCE v1 frames (Ethertype 0x8915) ---- */

/* The helper protocol whose handle holds 0x8915 for the plugin (at
 * registration, under proto); returns its id (its conversation table
 * holds the RoCE v1 rows, qpstats.c). */
int rocev2_ethertype_register(int proto);
/* Registers 0x8915 in the built-in InfiniBand dissector's place (to hand
 * its frames to handle, the one Decode As offers), or the built-in again
 * (take_rocev1 false); a user's Decode As entry for it stays. */
void rocev2_ethertype_apply(dissector_handle_t handle, bool take_rocev1);

/* ---- ulp.c: the InfiniBand ULP dissectors ---- */

/* Offers tvb to the heuristic dissectors of list (one of the built-in
 * InfiniBand dissector's) as that dissector does: the QPs as the ports,
 * ib_info (a struct infinibandinfo) as the data, the ULP's tree items
 * beside ours. A heuristic that throws is caught and counts as not
 * claiming the bytes; then our Info and Protocol columns are put back.
 * Returns whether a ULP claimed them. */
bool rocev2_call_ulps(heur_dissector_list_t list, tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      uint32_t src_qpn, uint32_t dst_qpn, void *ib_info);
void rocev2_register_ulp(void);
/* Records, on the first pass, that a ULP claimed a packet from src_qpn
 * (all ones when unknown) to dst_qpn. */
void rocev2_ulp_claimed(packet_info *pinfo, uint32_t src_qpn, uint32_t dst_qpn);
/* Whether a ULP has claimed a packet to or from QP dst_qpn at this
 * packet's destination so far. */
bool rocev2_ulp_on_qp(packet_info *pinfo, uint32_t dst_qpn);
/* The packets of a SEND message of several packets: on the first pass,
 * follows each message to its QP (in the message part of each packet's
 * record); a ULP that reassembles SENDs (RPC-over-RDMA) fails on a message
 * with a hole, without its Last
 * or that it did not claim the start of when it is dissected again
 * (Wireshark 4.0's asserts on the NULL its reassembly returns). So such a
 * packet is offered to the ULPs on the first pass while every packet of its
 * message so far came in PSN order, and on later passes only if the whole
 * message did, First to Last; a Middle or Last only if a ULP claimed the
 * First (rocev2_ulp_send_claimed). */
struct rocev2_packet;
void rocev2_ulp_track_send(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp);
bool rocev2_ulp_send_offered(packet_info *pinfo, const struct roce_pkt *t, const struct rocev2_packet *rp);
void rocev2_ulp_send_claimed(packet_info *pinfo, const struct roce_pkt *t, struct rocev2_packet *rp);
#endif
