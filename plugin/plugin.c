/*
 * The plugin's entry points: the symbols every Wireshark release from 4.0
 * to 4.6 looks for in a dissector plugin.
 */
#include "rocev2.h"

#define ROCEV2_EXPORT __attribute__((visibility("default")))

void proto_register_rocev2(void);
void proto_reg_handoff_rocev2(void);

ROCEV2_EXPORT extern const char plugin_version[];
ROCEV2_EXPORT extern const int plugin_want_major;
ROCEV2_EXPORT extern const int plugin_want_minor;
ROCEV2_EXPORT void plugin_register(void);

const char plugin_version[] = ROCEV2_PLUGIN_VERSION;
const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

void plugin_register(void)
{
	static proto_plugin plug;
	plug.register_protoinfo = proto_register_rocev2;
	plug.register_handoff = proto_reg_handoff_rocev2;
	proto_register_plugin(&plug);
}

#ifdef WS_PLUGIN_DESC_DISSECTOR
ROCEV2_EXPORT uint32_t plugin_describe(void);
uint32_t plugin_describe(void)
{
	return WS_PLUGIN_DESC_DISSECTOR;
}
#endif
