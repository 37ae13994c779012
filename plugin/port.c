/*
 * UDP port 4791, whatever the source port.
 *
 * Wireshark's UDP dissector tries, in this order: a conversation's
 * dissector; a port whose dissector was changed from the one registered
 * for it (as Decode As changes it), lower port first; the heuristics, if
 * "try heuristic sub-dissectors first" is set; the registered port
 * dissectors, lower port first; the heuristics otherwise. A RoCEv2 packet
 * from source port 69 would go to TFTP, from 53 to DNS: some NICs send
 * from the QP number or another small port.
 *
 * So the plugin takes 4791 the way Decode As does (its entry changed from
 * the built-in InfiniBand dissector's), at the start of every file, after
 * Wireshark has loaded the user's own Decode As entries, and leaves alone
 * an entry the user changed to something else. No other dissector's entry
 * or preference is touched. Then, for a datagram whose other port is below
 * 4791 and has a dissector of its own, which the usual order would have
 * given it, the plugin takes it only when it is sent to 4791, its BTH
 * parses and its ICRC verifies; otherwise it declines, and UDP goes on as
 * it always would. A flow that has shown one such packet is a RoCEv2
 * conversation from then on (a later packet with a bad ICRC is still
 * RoCEv2, and judged as such).
 */
#include "rocev2.h"

#include <epan/conversation.h>

static dissector_handle_t handle;
static bool take;
static bool claimed; /* we changed the entry for 4791 (it may since have been reset) */

/* Takes 4791, or gives it back, as the preference says. */
static void claim(void)
{
	dissector_table_t udp = find_dissector_table("udp.port");
	if (!udp || !handle)
		return;
	dissector_handle_t now = dissector_get_uint_handle(udp, ROCE_UDP_PORT);
	bool changed = dissector_is_uint_changed(udp, ROCE_UDP_PORT);
	if (take) {
		if (now == handle && changed)
			return;
		/* A Decode As to another dissector is the user's: it stays. */
		if (now != handle && changed) {
			claimed = false;
			return;
		}
		dissector_change_uint("udp.port", ROCE_UDP_PORT, handle);
		claimed = true;
	} else if (claimed) {
		if (now == handle)
			dissector_reset_uint("udp.port", ROCE_UDP_PORT);
		claimed = false;
	}
}

void rocev2_port_apply(dissector_handle_t h, bool take_port)
{
	handle = h;
	take = take_port;
	claim();
}

void rocev2_port_register(void)
{
	/* Every file starts after Decode As entries were (re)loaded, which
	 * resets changed entries. */
	register_init_routine(claim);
}

bool rocev2_port_accepts(packet_info *pinfo, const struct roce_pkt *t, bool has_ip)
{
	if (pinfo->ptype != PT_UDP || (pinfo->srcport != ROCE_UDP_PORT && pinfo->destport != ROCE_UDP_PORT))
		return true; /* Decode As on another port, or not UDP at all */
	uint32_t other = pinfo->destport == ROCE_UDP_PORT ? pinfo->srcport : pinfo->destport;
	if (other >= ROCE_UDP_PORT || other == 0)
		return true; /* 4791 came first anyway */
	dissector_table_t udp = find_dissector_table("udp.port");
	if (!udp || !dissector_get_uint_handle(udp, other))
		return true; /* nothing else would have had it */
	conversation_t *conv = find_conversation_pinfo(pinfo, 0);
	if (conv && conversation_get_dissector(conv, pinfo->num) == handle)
		return true;
	bool roce = pinfo->destport == ROCE_UDP_PORT && has_ip && roce_pkt_has(t, ROCE_H_BTH) && t->op &&
		    t->op->name && roce_icrc_check(t, NULL, NULL) == ROCE_ICRC_GOOD;
	if (roce && !PINFO_FD_VISITED(pinfo))
		conversation_set_dissector(find_or_create_conversation(pinfo), handle);
	return roce;
}
