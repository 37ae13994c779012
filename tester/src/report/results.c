/* The results file (see results.h and docs/results-schema.md). */
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rawio.h"
#include "text.h"

struct results {
	char *path;
	JsonArray *command;
	char *capture;
	uint64_t started_ns;
	JsonArray *cases;
	unsigned counts[V_COUNT];
	JsonObject *extra; /* members besides the cases */
};

static void iso_time(uint64_t ns, char *buf, size_t n)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	char base[32];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03uZ", base, (unsigned)(ns / 1000000ull % 1000));
}

struct results *results_new(const char *path, int argc, char **argv, const char *capture_name)
{
	struct results *r = calloc(1, sizeof *r);
	if (!r)
		abort();
	r->path = strdup(path);
	r->capture = strdup(capture_name);
	r->command = json_array_new();
	for (int i = 0; i < argc; i++)
		json_array_add_string_element(r->command, argv[i]);
	r->cases = json_array_new();
	r->started_ns = rawio_now();
	return r;
}

void results_add_case(struct results *res, JsonObject *rec, enum verdict v)
{
	json_array_add_object_element(res->cases, rec);
	if ((unsigned)v < V_COUNT)
		res->counts[v]++;
}

void results_set_extra(struct results *res, const char *member, JsonObject *o)
{
	if (!res->extra)
		res->extra = json_object_new();
	json_object_set_object_member(res->extra, member, json_object_ref(o));
}

void results_counts(const struct results *res, unsigned counts[V_COUNT])
{
	memcpy(counts, res->counts, sizeof res->counts);
}

static bool array_has(JsonArray *a, const char *s)
{
	for (guint i = 0; a && i < json_array_get_length(a); i++)
		if (!strcmp(json_array_get_string_element(a, i), s))
			return true;
	return false;
}

static JsonArray *member_array(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);
	return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* Why a rule has the verdict it has, where the verdict alone does not say
 * it for this DUT: the reasons its cases were not applicable or ended in
 * error (each once, a few at most), that no case of the run tests it, or
 * why it is not testable. "" when the verdict says enough. */
static void rule_reason(struct results *res, const struct roce_rule_info *rule, const char *verdict, GString *out)
{
	g_string_truncate(out, 0);
	if (!strcmp(verdict, "not_testable")) {
		g_string_append(out, rule->not_wire_reason ? rule->not_wire_reason : "");
		return;
	}
	if (!strcmp(verdict, "not_tested")) {
		g_string_append(out, "no case of this run tests it");
		return;
	}
	bool na = !strcmp(verdict, "not_applicable");
	if (!na && strcmp(verdict, "error"))
		return;
	const char *want = na ? "not_applicable" : "error";
	enum { SHOWN = 3 };
	const char *seen[SHOWN];
	unsigned n_seen = 0, more = 0;
	for (guint i = 0; i < json_array_get_length(res->cases); i++) {
		JsonObject *c = json_array_get_object_element(res->cases, i);
		if (!array_has(member_array(c, "rules"), rule->id) || strcmp(json_object_get_string_member(c, "verdict"), want))
			continue;
		const char *why = json_object_has_member(c, "reason") ? json_object_get_string_member(c, "reason") : NULL;
		if (!why || !why[0])
			why = "no reason recorded";
		bool dup = false;
		for (unsigned k = 0; k < n_seen && !dup; k++)
			dup = !strcmp(seen[k], why);
		if (dup)
			continue;
		if (n_seen == SHOWN) {
			more++;
			continue;
		}
		seen[n_seen++] = why;
		g_string_append_printf(out, "%s%s [IPv%lld]: %s", n_seen > 1 ? "; " : na ? "not applicable to this DUT: " : "its cases ended in error: ",
				       json_object_get_string_member(c, "id"), (long long)json_object_get_int_member(c, "ip_version"), why);
	}
	if (more)
		g_string_append_printf(out, " (and %u other reason%s)", more, more > 1 ? "s" : "");
}

/* One record per catalogue rule: what the cases that name it (or whose
 * packets broke it) say about it. */
static JsonArray *rule_records(struct results *res)
{
	GString *why = g_string_new("");
	JsonArray *out = json_array_new();
	for (int ri = 1; ri < ROCE_RULE_COUNT; ri++) {
		const struct roce_rule_info *rule = roce_rule((enum roce_rule)ri);
		unsigned n[V_COUNT] = { 0 };
		bool failed = false, informative = false;
		JsonArray *cases = json_array_new();
		for (guint i = 0; i < json_array_get_length(res->cases); i++) {
			JsonObject *c = json_array_get_object_element(res->cases, i);
			bool names = array_has(member_array(c, "rules"), rule->id);
			bool fails = array_has(member_array(c, "failed_rules"), rule->id);
			bool noted = false;
			JsonArray *f = member_array(c, "findings");
			for (guint k = 0; f && k < json_array_get_length(f); k++) {
				JsonObject *fo = json_array_get_object_element(f, k);
				if (!strcmp(json_object_get_string_member(fo, "rule"), rule->id))
					noted = true;
			}
			if (!names && !fails && !noted)
				continue;
			const char *v = json_object_get_string_member(c, "verdict");
			JsonObject *e = json_object_new();
			json_object_set_string_member(e, "id", json_object_get_string_member(c, "id"));
			json_object_set_int_member(e, "ip_version", json_object_get_int_member(c, "ip_version"));
			json_object_set_string_member(e, "case_verdict", v);
			json_object_set_string_member(e, "role", fails ? "violated" : names ? "tested" : "observed");
			json_array_add_object_element(cases, e);
			if (fails)
				failed = true;
			else if (noted && !names)
				informative = true;
			if (names) {
				for (int k = 0; k < V_COUNT; k++)
					if (!strcmp(v, verdict_name((enum verdict)k)))
						n[k]++;
			}
		}
		const char *verdict;
		if (rule->scope == ROCE_SCOPE_NONE)
			verdict = "not_testable";
		else if (failed)
			verdict = "fail";
		else if (n[V_PASS] || n[V_INFORMATIVE]) /* an informative case met its requirements */
			verdict = rule->severity == ROCE_SEV_INFO ? "informative" : "pass";
		else if (informative)
			verdict = "informative";
		else if (n[V_ERROR])
			verdict = "error";
		else if (n[V_NOT_APPLICABLE])
			verdict = "not_applicable";
		else
			verdict = "not_tested";
		JsonObject *o = json_object_new();
		json_object_set_string_member(o, "id", rule->id);
		json_object_set_string_member(o, "title", rule->title);
		json_object_set_string_member(o, "severity", roce_severity_name(rule->severity));
		json_object_set_string_member(o, "spec_ref", rule->spec_ref);
		if (rule->not_wire_reason)
			json_object_set_string_member(o, "not_testable_reason", rule->not_wire_reason);
		json_object_set_string_member(o, "verdict", verdict);
		rule_reason(res, rule, verdict, why);
		if (why->len)
			json_object_set_string_member(o, "reason", why->str);
		json_object_set_array_member(o, "cases", cases);
		json_array_add_object_element(out, o);
	}
	g_string_free(why, TRUE);
	return out;
}

int results_write(struct results *res, JsonObject *setup, bool finished, bool interrupted, char *err, size_t errlen)
{
	JsonObject *root = json_object_new();
	json_object_set_string_member(root, "schema", "roce-tester-results");
	json_object_set_int_member(root, "schema_version", RESULTS_SCHEMA_VERSION);
	JsonObject *tool = json_object_new();
	json_object_set_string_member(tool, "name", "roce-tester");
	json_object_set_string_member(tool, "version", ROCE_TESTER_VERSION);
	json_object_set_object_member(root, "tool", tool);
	JsonObject *run = json_object_new();
	char t[40];
	iso_time(res->started_ns, t, sizeof t);
	json_object_set_string_member(run, "started", t);
	uint64_t now = rawio_now();
	if (finished) {
		iso_time(now, t, sizeof t);
		json_object_set_string_member(run, "finished", t);
	} else {
		json_object_set_null_member(run, "finished");
	}
	json_object_set_int_member(run, "duration_ns", (gint64)(now - res->started_ns));
	json_object_set_boolean_member(run, "complete", finished && !interrupted);
	json_object_set_boolean_member(run, "interrupted", interrupted);
	json_object_set_array_member(run, "command", json_array_ref(res->command));
	json_object_set_string_member(run, "capture", res->capture);
	json_object_set_object_member(root, "run", run);
	if (setup)
		json_object_set_object_member(root, "setup", json_object_ref(setup));
	else
		json_object_set_null_member(root, "setup");
	JsonObject *sum = json_object_new();
	json_object_set_int_member(sum, "cases", json_array_get_length(res->cases));
	for (int v = 0; v < V_COUNT; v++)
		json_object_set_int_member(sum, verdict_name((enum verdict)v), res->counts[v]);
	JsonArray *rules = rule_records(res);
	JsonObject *rs = json_object_new();
	for (guint i = 0; i < json_array_get_length(rules); i++) {
		const char *v = json_object_get_string_member(json_array_get_object_element(rules, i), "verdict");
		json_object_set_int_member(rs, v, json_object_has_member(rs, v) ? json_object_get_int_member(rs, v) + 1 : 1);
	}
	json_object_set_object_member(sum, "rules", rs);
	json_object_set_object_member(root, "summary", sum);
	json_object_set_array_member(root, "cases", json_array_ref(res->cases));
	json_object_set_array_member(root, "rules", rules);
	GList *extra = res->extra ? json_object_get_members(res->extra) : NULL;
	for (GList *m = extra; m; m = m->next)
		json_object_set_member(root, m->data, json_object_dup_member(res->extra, m->data));
	g_list_free(extra);

	JsonNode *node = json_node_init_object(json_node_alloc(), root);
	JsonGenerator *g = json_generator_new();
	json_generator_set_pretty(g, TRUE);
	json_generator_set_indent(g, 1);
	json_generator_set_root(g, node);
	gchar *tmp = g_strconcat(res->path, ".tmp", NULL);
	GError *gerr = NULL;
	int rc = 0;
	if (!json_generator_to_file(g, tmp, &gerr)) {
		text_printf(err, errlen, "%s: %s", tmp, gerr->message);
		g_error_free(gerr);
		rc = -1;
	} else if (rename(tmp, res->path) != 0) {
		text_printf(err, errlen, "%s: %s", res->path, strerror(errno));
		rc = -1;
	}
	g_free(tmp);
	g_object_unref(g);
	json_node_unref(node);
	json_object_unref(root);
	return rc;
}

void results_free(struct results *res)
{
	if (!res)
		return;
	json_array_unref(res->cases);
	json_array_unref(res->command);
	if (res->extra)
		json_object_unref(res->extra);
	free(res->path);
	free(res->capture);
	free(res);
}
