/* snapshot_counters (see counters.h). */
#include "counters.h"

#include <string.h>
#include <time.h>

#include "roce/counters.h"

struct snap {
	GArray *names;  /* char * */
	GArray *values; /* uint64_t */
};

static void collect(void *ctx, const char *name, uint64_t value)
{
	struct snap *s = ctx;
	char *copy = g_strdup(name);
	g_array_append_val(s->names, copy);
	g_array_append_val(s->values, value);
}

static void add_u64(JsonBuilder *b, uint64_t v)
{
	/* JSON numbers past 2^53 lose digits in many readers: those go as
	 * strings, as everywhere in the protocol. */
	if (v < (1ull << 53)) {
		json_builder_add_int_value(b, (gint64)v);
	} else {
		char text[24];
		g_snprintf(text, sizeof text, "%llu", (unsigned long long)v);
		json_builder_add_string_value(b, text);
	}
}

int agent_counter_snapshot(JsonBuilder *b, const struct backend_ops *ops, struct backend *be, const char *backend_name,
			   const char *device, unsigned port, struct be_error *err)
{
	struct snap s = { g_array_new(FALSE, FALSE, sizeof(char *)), g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int rc = ops->read_counters(be, port, collect, &s, err);
	const char *driver = roce_counter_driver(backend_name, device);
	uint64_t sums[ROCE_CNT_MEANING_COUNT] = { 0 };
	bool seen[ROCE_CNT_MEANING_COUNT] = { false };
	json_builder_set_member_name(b, "taken_ns");
	add_u64(b, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
	json_builder_set_member_name(b, "driver");
	if (driver)
		json_builder_add_string_value(b, driver);
	else
		json_builder_add_null_value(b);
	json_builder_set_member_name(b, "device");
	json_builder_add_string_value(b, device);
	json_builder_set_member_name(b, "port");
	json_builder_add_int_value(b, port);
	json_builder_set_member_name(b, "counters");
	json_builder_begin_array(b);
	for (guint i = 0; i < s.names->len; i++) {
		const char *name = g_array_index(s.names, char *, i);
		uint64_t v = g_array_index(s.values, uint64_t, i);
		const struct roce_counter_info *ci = roce_counter_lookup(driver, name);
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "name");
		json_builder_add_string_value(b, name);
		json_builder_set_member_name(b, "value");
		add_u64(b, v);
		if (ci && ci->meaning != ROCE_CNT_NONE) {
			json_builder_set_member_name(b, "meaning");
			json_builder_add_string_value(b, roce_counter_meaning_name(ci->meaning));
			json_builder_set_member_name(b, "scale");
			json_builder_add_int_value(b, ci->scale);
			json_builder_set_member_name(b, "checked");
			json_builder_add_boolean_value(b, ci->checked);
			sums[ci->meaning] += v * ci->scale;
			seen[ci->meaning] = true;
		}
		json_builder_end_object(b);
		g_free(g_array_index(s.names, char *, i));
	}
	json_builder_end_array(b);
	json_builder_set_member_name(b, "meanings");
	json_builder_begin_object(b);
	for (int m = ROCE_CNT_NONE + 1; m < ROCE_CNT_MEANING_COUNT; m++) {
		if (!seen[m])
			continue;
		json_builder_set_member_name(b, roce_counter_meaning_name((enum roce_counter_meaning)m));
		add_u64(b, sums[m]);
	}
	json_builder_end_object(b);
	g_array_free(s.names, TRUE);
	g_array_free(s.values, TRUE);
	return rc;
}
