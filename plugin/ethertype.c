/*
 * RoCE v1 frames: Ethertype 0x8915, which Wireshark gives its built-in
 * InfiniBand dissector.
 *
 * The plugin takes that one Ethertype the way Decode As does (the entry
 * changed from the built-in's), at the start of every file, after Wireshark
 * has loaded the user's own Decode As entries, and leaves alone an entry
 * the user changed to something else. With the preference off it gives the
 * entry back: reset, which restores the built-in's handle. No other
 * Ethertype is touched.
 */
#include "rocev2.h"

static dissector_handle_t handle;
static bool take;
static bool claimed; /* we changed the entry for 0x8915 (it may since have been reset) */

static void claim(void)
{
	dissector_table_t table = find_dissector_table("ethertype");
	if (!table || !handle)
		return;
	dissector_handle_t now = dissector_get_uint_handle(table, ROCE_ETHERTYPE_ROCEV1);
	bool changed = dissector_is_uint_changed(table, ROCE_ETHERTYPE_ROCEV1);
	if (take) {
		if (now == handle && changed)
			return;
		/* A Decode As to another dissector is the user's: it stays. */
		if (now != handle && changed) {
			claimed = false;
			return;
		}
		dissector_change_uint("ethertype", ROCE_ETHERTYPE_ROCEV1, handle);
		claimed = true;
	} else if (claimed) {
		if (now == handle)
			dissector_reset_uint("ethertype", ROCE_ETHERTYPE_ROCEV1);
		claimed = false;
	}
}

void rocev2_ethertype_apply(dissector_handle_t h, bool take_rocev1)
{
	handle = h;
	take = take_rocev1;
	claim();
}

void rocev2_ethertype_register(dissector_handle_t h)
{
	handle = h;
	/* Decode As offers it for any Ethertype; every file starts after the
	 * Decode As entries were (re)loaded, which resets changed entries. */
	dissector_add_for_decode_as("ethertype", h);
	register_init_routine(claim);
}
