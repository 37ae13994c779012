/*
 * The Wireshark API and ABI differences between the releases this plugin
 * builds against (4.0 to 4.6), in one place. Everything else in plugin/
 * uses the names defined here and never tests a version itself.
 */
#ifndef ROCEV2_COMPAT_H
#define ROCEV2_COMPAT_H

#include <ws_version.h>

#define ROCEV2_WS_AT_LEAST(maj, min)                                              \
	(WIRESHARK_VERSION_MAJOR > (maj) ||                                       \
	 (WIRESHARK_VERSION_MAJOR == (maj) && WIRESHARK_VERSION_MINOR >= (min)))

/* 4.4 installs wsutil/plugins.h and asks plugins to describe themselves
 * (plugin_describe); the 4.0 and 4.2 dev packages ship neither. */
#if ROCEV2_WS_AT_LEAST(4, 4)
#include <wsutil/plugins.h>
#endif

/* 4.4 moved preference and tap callbacks from gboolean (int) to C99 bool. */
#if ROCEV2_WS_AT_LEAST(4, 4)
#include <stdbool.h>
typedef bool rocev2_pref_bool;
#else
#include <glib.h>
typedef gboolean rocev2_pref_bool;
#endif

/* ... and address types' column filter callbacks (AddrColFilterString). */
typedef rocev2_pref_bool rocev2_addr_bool;

/* 4.6's -z handlers (stat_tap_init_cb) say whether they set up their tap;
 * earlier ones return nothing. */
#if ROCEV2_WS_AT_LEAST(4, 6)
typedef bool rocev2_tap_init_ret;
#define ROCEV2_TAP_INIT_RETURN(ok) return (ok)
#else
typedef void rocev2_tap_init_ret;
#define ROCEV2_TAP_INIT_RETURN(ok)                                                 \
	do {                                                                       \
		(void)(ok);                                                        \
		return;                                                            \
	} while (0)
#endif

/* 4.4 deprecates the glib-typed tvb getters; 4.0 has only those. */
#if ROCEV2_WS_AT_LEAST(4, 4)
#define rocev2_tvb_get_u8 tvb_get_uint8
#else
#define rocev2_tvb_get_u8 tvb_get_guint8
#endif

/* The Flow Graph's item and list (epan/sequence_analysis.h), which no
 * release's dev package installs: flowgraph.c declares their layout. 4.4
 * made their flags C99 bool (gboolean before, 4 bytes); 4.6 put a release
 * callback for the item's extra data at the item's end. */
#if ROCEV2_WS_AT_LEAST(4, 4)
typedef bool rocev2_seq_bool;
#else
typedef gboolean rocev2_seq_bool;
#endif
#define ROCEV2_SEQ_ITEM_HAS_FREE_CB ROCEV2_WS_AT_LEAST(4, 6)

#endif
