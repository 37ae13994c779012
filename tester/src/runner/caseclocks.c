/* Which clock timed each measured interval of a case (see caseclocks.h). */
#include "caseclocks.h"

#include <stdio.h>

void case_clocks_begin(struct case_clocks *cc, const struct rawio *io)
{
	for (int k = 0; k < RAWIO_CLOCK_COUNT; k++) {
		cc->rx0[k] = io->rx_timed[k];
		cc->tx0[k] = io->tx_timed[k];
	}
}

static JsonObject *per_clock(const uint64_t *now, const uint64_t *then)
{
	JsonObject *o = json_object_new();
	for (int k = 0; k < RAWIO_CLOCK_COUNT; k++)
		if (now[k] != then[k])
			json_object_set_int_member(o, rawio_clock_name((enum rawio_clock)k), (gint64)(now[k] - then[k]));
	return o;
}

JsonObject *case_clocks_json(const struct case_clocks *cc, const struct rawio *io)
{
	JsonObject *o = json_object_new();
	json_object_set_string_member(o, "rx", rawio_clock_name(io->clocks.rx));
	json_object_set_string_member(o, "tx", rawio_clock_name(io->clocks.tx));
	json_object_set_string_member(o, "why", io->clocks.why);
	json_object_set_object_member(o, "rx_frames", per_clock(io->rx_timed, cc->rx0));
	json_object_set_object_member(o, "tx_frames", per_clock(io->tx_timed, cc->tx0));
	return o;
}

/* The clock of the event a step's interval starts from: the previous
 * step's (case-language.md, time windows): a send's for an injected
 * packet, an arrival's for an expected one, the tester's own reading for
 * verbs answered, completions and waits; a window's end keeps its start's
 * clock, and steps that set no event leave the one before. */
static enum rawio_clock start_clock(const struct cl_case *c, int idx, const struct rawio *io)
{
	for (int i = idx - 1; i >= 0; i--) {
		switch (c->steps[i].kind) {
		case CL_INJECT: return io->clocks.tx;
		case CL_EXPECT_PKT:
		case CL_EXPECT_JOIN:
		case CL_EXPECT_LEAVE: return io->clocks.rx;
		case CL_EXPECT_NO_JOIN:
		case CL_EXPECT_EVENT:
		case CL_EXPECT_NO_EVENT:
		case CL_PEER_OP:
		case CL_EXPECT_COMPLETION:
		case CL_EXPECT_NO_COMPLETION:
		case CL_EXPECT_PEER:
		case CL_LOAD:
		case CL_WAIT: return RAWIO_CLOCK_HOST;
		default: break;
		}
	}
	return RAWIO_CLOCK_HOST; /* the case's start */
}

void case_clocks_step(JsonObject *j, const struct cl_case *c, int idx, const struct rawio *io)
{
	enum cl_step_kind k = c->steps[idx].kind;
	if (k != CL_EXPECT_PKT && k != CL_MEASURE && k != CL_EXPECT_NOTHING)
		return;
	JsonObject *o = json_object_new();
	json_object_set_string_member(o, "start", rawio_clock_name(start_clock(c, idx, io)));
	/* A window with nothing in it ends on the tester's own reading. */
	json_object_set_string_member(o, "end", rawio_clock_name(k == CL_EXPECT_NOTHING ? RAWIO_CLOCK_HOST : io->clocks.rx));
	json_object_set_object_member(j, "clocks", o);
}

const char *case_clocks_timing(const struct rawio *io, char *buf, size_t n)
{
	/* The engine's send times are its own reading of the host clock. */
	snprintf(buf, n, "%s to %s", rawio_clock_name(RAWIO_CLOCK_HOST), rawio_clock_name(io->clocks.rx));
	return buf;
}
