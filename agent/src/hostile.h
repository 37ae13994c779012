/*
 * Hostile modes of roce-agent (hostile.def): a DUT or an agent that
 * misbehaves on purpose, for roce-tester's robustness tests. The device
 * modes live in the soft backend (soft/hostile.c); the agent modes act on
 * the protocol (hostile.c).
 */
#ifndef ROCE_AGENT_HOSTILE_H
#define ROCE_AGENT_HOSTILE_H

#include <stdbool.h>
#include <stdint.h>

enum agent_hostile {
	AGENT_HOSTILE_NONE = 0,
#define AGENT_HOSTILE(SYM, name, layer, text) AGENT_HOSTILE_##SYM,
#include "hostile.def"
#undef AGENT_HOSTILE
	AGENT_HOSTILE_COUNT
};

enum agent_hostile_layer { AGENT_HOSTILE_DEVICE, AGENT_HOSTILE_AGENT };

struct agent_hostile_info {
	const char *name;
	enum agent_hostile_layer layer;
	const char *text;
};

/* NULL for AGENT_HOSTILE_NONE or out of range. */
const struct agent_hostile_info *agent_hostile_info(enum agent_hostile h);
/* AGENT_HOSTILE_COUNT when unknown. */
enum agent_hostile agent_hostile_by_name(const char *name);
/* The table, for --list-hostile. */
void agent_hostile_list(bool markdown);

/* The default bound on hostile frames (--hostile-count). */
#define AGENT_HOSTILE_DEFAULT_COUNT 100000u

#endif
