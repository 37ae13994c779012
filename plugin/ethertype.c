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
 */
#include "rocev2.h"

static dissector_handle_t builtin; /* what 0x8915 was registered to before us */

void rocev2_ethertype_apply(dissector_handle_t handle, bool take_rocev1)
{
	dissector_table_t table = find_dissector_table("ethertype");
	if (!table || !handle)
		return;
	dissector_handle_t registered = dissector_get_default_uint_handle("ethertype", ROCE_ETHERTYPE_ROCEV1);
	if (!builtin) {
		builtin = registered && registered != handle ? registered : find_dissector("infiniband");
		dissector_add_for_decode_as("ethertype", handle); /* offered for any Ethertype */
	}
	dissector_handle_t want = take_rocev1 ? handle : builtin;
	if (!want || registered == want)
		return;
	/* A Decode As entry of the user's stays what it is. */
	bool changed = dissector_is_uint_changed(table, ROCE_ETHERTYPE_ROCEV1);
	dissector_handle_t now = dissector_get_uint_handle(table, ROCE_ETHERTYPE_ROCEV1);
	dissector_add_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, want);
	if (changed && now)
		dissector_change_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, now);
}
