/* The tester's flow checks (flowcheck.h). */
#include "flowcheck.h"

#include <stdlib.h>

struct flowcheck {
	struct roce_flow_table *table;
	struct roce_flow_env env;
};

static void *record(void *table, const void *key, size_t klen, size_t size)
{
	return roce_flow_table_record(table, key, klen, size);
}

struct flowcheck *flowcheck_new(void)
{
	struct flowcheck *fc = calloc(1, sizeof *fc);
	if (!fc)
		return NULL;
	fc->table = roce_flow_table_new();
	if (!fc->table) {
		free(fc);
		return NULL;
	}
	fc->env = (struct roce_flow_env){ .ctx = fc->table, .record = record };
	return fc;
}

void flowcheck_free(struct flowcheck *fc)
{
	if (!fc)
		return;
	roce_flow_table_free(fc->table);
	free(fc);
}

bool flowcheck_frame(struct flowcheck *fc, const uint8_t *frame, size_t len, uint32_t number, uint64_t ts_ns,
		     unsigned pmtu, struct roce_flow_result *out)
{
	if (!fc)
		return false;
	struct roce_pkt p;
	roce_parse_frame(&p, frame, len, len, ROCE_PARSE_ROCEV1);
	struct roce_flow_input in = { .frame = number, .ts_ns = ts_ns, .pmtu = pmtu };
	if (!roce_flow_input_from(&in, &p))
		return false;
	roce_flow_packet(&fc->env, &in, out);
	return out->cls != ROCE_FLOW_UNTRACKED;
}
