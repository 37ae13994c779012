/* The hostile modes' table (hostile.h) and the agent-layer modes. */
#include "hostile.h"

#include <stdio.h>
#include <string.h>

#include "agent.h"

static const struct agent_hostile_info table[AGENT_HOSTILE_COUNT] = {
	[AGENT_HOSTILE_NONE] = { "none", AGENT_HOSTILE_DEVICE, "a well-behaved device and agent" },
#define AGENT_HOSTILE(SYM, name, layer, text) [AGENT_HOSTILE_##SYM] = { name, AGENT_HOSTILE_##layer, text },
#include "hostile.def"
#undef AGENT_HOSTILE
};

const struct agent_hostile_info *agent_hostile_info(enum agent_hostile h)
{
	return h > AGENT_HOSTILE_NONE && h < AGENT_HOSTILE_COUNT ? &table[h] : NULL;
}

enum agent_hostile agent_hostile_by_name(const char *name)
{
	for (unsigned h = 1; h < AGENT_HOSTILE_COUNT; h++)
		if (!strcmp(table[h].name, name))
			return (enum agent_hostile)h;
	return AGENT_HOSTILE_COUNT;
}

void agent_hostile_list(bool markdown)
{
	if (markdown)
		printf("| Mode | Acts on | What happens |\n|---|---|---|\n");
	for (unsigned h = 1; h < AGENT_HOSTILE_COUNT; h++) {
		const char *layer = table[h].layer == AGENT_HOSTILE_AGENT ? "agent" : "soft DUT";
		if (markdown)
			printf("| `%s` | %s | %s |\n", table[h].name, layer, table[h].text);
		else
			printf("%-18s %-9s %s\n", table[h].name, layer, table[h].text);
	}
}

bool agent_hostile_intercept(struct session *s, const char *method)
{
	struct agent *a = s->agent;
	if (s->hung)
		return true;
	if (!a->hostile_at || strcmp(method, a->hostile_at) != 0)
		return false;
	if (a->hostile == AGENT_HOSTILE_AGENT_HANG) {
		g_message("%s: hostile agent-hang: %s gets no answer, nor anything after it", s->peer, method);
		s->hung = true;
		return true;
	}
	if (a->hostile == AGENT_HOSTILE_AGENT_DISCONNECT) {
		g_message("%s: hostile agent-disconnect: closing the connection at %s", s->peer, method);
		s->closing = true;
		return true;
	}
	return false;
}

bool agent_hostile_refuses(const struct session *s, const char *method)
{
	const struct agent *a = s->agent;
	return a->hostile == AGENT_HOSTILE_AGENT_REFUSE && a->hostile_at && !strcmp(method, a->hostile_at);
}
