/*
 * RoCE v1 frames: Ethertype 0x8915, which Wireshark gives its built-in
 * InfiniBand dissector.
 *
 * The plugin registers itself for that one Ethertype in the built-in's
 * place (the entry's registered handle, to which a reset goes back), or
 * registers the built-in again when the preference says to give the
 * Ethertype back. Decode As then works as for any Ethertype: a user's
 * entry (to InfiniBand, to RoCEv2 or to anything else) is a change of the
 * registered handle, which Wireshark keeps over every file and saves, and
 * which this code leaves alone. No other Ethertype is touched.
 *
 * Two handles, so that a user's Decode As to RoCEv2 is a change even while
 * the plugin holds the Ethertype (tshark applies -d before it applies -o,
 * so "-o rocev2.take_rocev1:FALSE -d ethertype==0x8915,rocev2" would
 * otherwise find the entry unchanged and give it back): the registered one
 * belongs to a helper protocol ("rocev1", a protocol in name only, enabled
 * with rocev2) and hands the frame to the one Decode As offers (rocev2's),
 * which dissects it. Decode As lists one handle per protocol. The helper
 * also names the RoCE v1 tab of Conversations and Endpoints (qpstats.c).
 */
#include "rocev2.h"

static int proto_taken = -1;
static dissector_handle_t taken;      /* registered while the plugin holds 0x8915 */
static dissector_handle_t decode_as;  /* rocev2's, what Decode As offers */
static dissector_handle_t builtin;    /* what 0x8915 was registered to before us */

static int dissect_taken(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	return call_dissector_only(decode_as, tvb, pinfo, tree, data);
}

int rocev2_ethertype_register(int proto)
{
	proto_taken = proto_register_protocol_in_name_only("RoCE v1 (Ethertype 0x8915, taken by take_rocev1)",
							   ROCEV1_TABLE_NAME, ROCEV1_FILTER, proto, FT_PROTOCOL);
	taken = create_dissector_handle(dissect_taken, proto_taken);
	return proto_taken;
}

void rocev2_ethertype_apply(dissector_handle_t handle, bool take_rocev1)
{
	dissector_table_t table = find_dissector_table("ethertype");
	if (!table || !handle || !taken)
		return;
	dissector_handle_t registered = dissector_get_default_uint_handle("ethertype", ROCE_ETHERTYPE_ROCEV1);
	if (!builtin) {
		decode_as = handle;
		builtin = registered && registered != taken ? registered : find_dissector("infiniband");
		dissector_add_for_decode_as("ethertype", handle); /* offered for any Ethertype */
	}
	dissector_handle_t want = take_rocev1 ? taken : builtin;
	if (!want || registered == want)
		return;
	/* A Decode As entry of the user's stays what it is. */
	bool changed = dissector_is_uint_changed(table, ROCE_ETHERTYPE_ROCEV1);
	dissector_handle_t now = dissector_get_uint_handle(table, ROCE_ETHERTYPE_ROCEV1);
	dissector_add_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, want);
	if (changed && now)
		dissector_change_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, now);
}
