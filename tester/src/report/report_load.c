/* Loading and checking results.json, and helpers the writers share (see
 * report.h). */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"
#include "text.h"

const char *jstr(JsonObject *o, const char *key, const char *def)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
		return def;
	return json_node_get_string(n);
}

gint64 jint(JsonObject *o, const char *key, gint64 def)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return def;
	GType t = json_node_get_value_type(n);
	if (t == G_TYPE_INT64)
		return json_node_get_int(n);
	if (t == G_TYPE_DOUBLE)
		return (gint64)json_node_get_double(n);
	return def;
}

bool jbool(JsonObject *o, const char *key, bool def)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
		return def;
	return json_node_get_boolean(n);
}

JsonObject *jobj(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

JsonArray *jarr(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

bool jnull_or_absent(JsonObject *o, const char *key)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	return !n || JSON_NODE_HOLDS_NULL(n);
}

bool jnum(JsonObject *o, const char *key, uint64_t *v)
{
	JsonNode *n = o ? json_object_get_member(o, key) : NULL;
	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return false;
	if (json_node_get_value_type(n) == G_TYPE_INT64) {
		*v = (uint64_t)json_node_get_int(n);
		return true;
	}
	if (json_node_get_value_type(n) == G_TYPE_STRING) {
		const char *s = json_node_get_string(n);
		char *end;
		errno = 0;
		unsigned long long x = g_ascii_strtoull(s, &end, 0);
		if (!*s || *end || errno)
			return false;
		*v = x;
		return true;
	}
	return false;
}

/* ---- Escaping ---- */

static bool xml_char_ok(gunichar c)
{
	return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
	       (c >= 0x10000 && c <= 0x10FFFF);
}

void xml_escape_len(GString *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		gunichar c = g_utf8_get_char_validated(p, end - p);
		if (c == (gunichar)-1 || c == (gunichar)-2) {
			g_string_append(out, "\xEF\xBF\xBD"); /* U+FFFD for a byte that is not UTF-8 */
			p++;
			continue;
		}
		const char *next = g_utf8_next_char(p);
		if (!xml_char_ok(c))
			g_string_append(out, "\xEF\xBF\xBD");
		else if (c == '&')
			g_string_append(out, "&amp;");
		else if (c == '<')
			g_string_append(out, "&lt;");
		else if (c == '>')
			g_string_append(out, "&gt;");
		else if (c == '"')
			g_string_append(out, "&quot;");
		else if (c == '\'')
			g_string_append(out, "&#39;");
		else
			g_string_append_len(out, p, next - p);
		p = next;
	}
}

void xml_escape(GString *out, const char *text)
{
	if (text)
		xml_escape_len(out, text, strlen(text));
}

gchar *case_group(JsonObject *c)
{
	const char *file = jstr(c, "file", "");
	gchar *dir = g_path_get_dirname(file);
	/* Trailing and doubled slashes (conformance-cases//rc-responder) do
	 * not matter: the last component names the group. */
	gchar *base = g_path_get_basename(dir);
	g_free(dir);
	if (!strcmp(base, ".") || !strcmp(base, "/") || !*base) {
		g_free(base);
		return g_strdup("cases");
	}
	return base;
}

gchar *case_label(JsonObject *c)
{
	return g_strdup_printf("%s [IPv%d]", jstr(c, "id", "?"), (int)jint(c, "ip_version", 0));
}

const char *finding_text(JsonObject *f)
{
	const char *rule = jstr(f, "rule", ""), *msg = jstr(f, "message", "");
	size_t n = strlen(rule);
	if (n && !strncmp(msg, rule, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

bool finding_provoked(JsonObject *f)
{
	return *jstr(f, "provoked", "") != 0;
}

int write_file_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	GError *gerr = NULL;
	if (!g_file_set_contents(path, data, (gssize)len, &gerr)) {
		text_printf(err, errlen, "%s", gerr->message);
		g_error_free(gerr);
		return -1;
	}
	/* g_file_set_contents creates 0666 & ~umask files; reports are for reading. */
	return 0;
}

/* ---- Loading ---- */

static const char *const case_verdicts[] = { "pass", "informative", "fail", "not_applicable", "error", NULL };

static bool in_set(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

static int check_case(JsonObject *c, guint i, char *err, size_t errlen)
{
	static const char *const strings[] = { "id", "verdict", NULL };
	for (const char *const *k = strings; *k; k++) {
		if (!jstr(c, *k, NULL)) {
			text_printf(err, errlen, "cases[%u]: member '%s' is missing or not a string", i, *k);
			return -1;
		}
	}
	gint64 ipv = jint(c, "ip_version", 0);
	if (ipv != 4 && ipv != 6) {
		text_printf(err, errlen, "cases[%u] (%s): ip_version is %lld; expected 4 or 6", i, jstr(c, "id", ""),
			 (long long)ipv);
		return -1;
	}
	if (!in_set(jstr(c, "verdict", ""), case_verdicts)) {
		text_printf(err, errlen, "cases[%u] (%s): verdict '%s'; expected pass, informative, fail, not_applicable or error", i,
			 jstr(c, "id", ""), jstr(c, "verdict", ""));
		return -1;
	}
	static const char *const arrays[] = { "rules", "steps", "packets", "evidence", "findings", NULL };
	for (const char *const *k = arrays; *k; k++) {
		JsonNode *n = json_object_get_member(c, *k);
		if (n && !JSON_NODE_HOLDS_ARRAY(n)) {
			text_printf(err, errlen, "cases[%u] (%s): member '%s' is not an array", i, jstr(c, "id", ""), *k);
			return -1;
		}
		for (guint k2 = 0; n && k2 < json_array_get_length(json_node_get_array(n)); k2++) {
			JsonNode *e = json_array_get_element(json_node_get_array(n), k2);
			bool want_string = !strcmp(*k, "rules");
			if (want_string ? !(JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING)
					: !JSON_NODE_HOLDS_OBJECT(e)) {
				text_printf(err, errlen, "cases[%u] (%s): %s[%u] is not %s", i, jstr(c, "id", ""), *k, k2,
					 want_string ? "a string" : "an object");
				return -1;
			}
		}
	}
	return 0;
}

int report_load(const char *path, struct report_run *run, char *err, size_t errlen)
{
	memset(run, 0, sizeof *run);
	struct stat st;
	if (stat(path, &st) != 0) {
		text_printf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	run->path = S_ISDIR(st.st_mode) ? g_build_filename(path, REPORT_RESULTS, NULL) : g_strdup(path);
	run->parser = json_parser_new();
	GError *gerr = NULL;
	if (!json_parser_load_from_file(run->parser, run->path, &gerr)) {
		/* json-glib's message carries the line and column. */
		text_printf(err, errlen, "%s: %s", run->path, gerr->message);
		g_error_free(gerr);
		goto bad;
	}
	JsonNode *root = json_parser_get_root(run->parser);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
		text_printf(err, errlen, "%s: not a JSON object; expected a roce-tester results file", run->path);
		goto bad;
	}
	run->root = json_node_get_object(root);
	const char *schema = jstr(run->root, "schema", NULL);
	if (!schema || strcmp(schema, "roce-tester-results")) {
		text_printf(err, errlen, "%s: schema is '%s'; expected a roce-tester results file (\"roce-tester-results\")",
			 run->path, schema ? schema : "(none)");
		goto bad;
	}
	gint64 version = jint(run->root, "schema_version", -1);
	if (version < 1) {
		text_printf(err, errlen, "%s: member 'schema_version' is missing or not a positive integer", run->path);
		goto bad;
	}
	if (version > RESULTS_SCHEMA_VERSION) {
		text_printf(err, errlen,
			 "%s: schema_version %lld was written by a newer roce-tester; this one reads version %d",
			 run->path, (long long)version, RESULTS_SCHEMA_VERSION);
		goto bad;
	}
	run->cases = jarr(run->root, "cases");
	run->rules = jarr(run->root, "rules");
	if (!run->cases || !run->rules || !jobj(run->root, "run")) {
		text_printf(err, errlen, "%s: member '%s' is missing or of the wrong type", run->path,
			 !run->cases ? "cases" : !run->rules ? "rules" : "run");
		goto bad;
	}
	for (guint i = 0; i < json_array_get_length(run->cases); i++) {
		JsonNode *n = json_array_get_element(run->cases, i);
		char e[400];
		if (!JSON_NODE_HOLDS_OBJECT(n)) {
			text_printf(err, errlen, "%s: cases[%u] is not an object", run->path, i);
			goto bad;
		}
		if (check_case(json_node_get_object(n), i, e, sizeof e) != 0) {
			text_printf(err, errlen, "%s: %s", run->path, e);
			goto bad;
		}
	}
	for (guint i = 0; i < json_array_get_length(run->rules); i++) {
		JsonNode *n = json_array_get_element(run->rules, i);
		if (!JSON_NODE_HOLDS_OBJECT(n) || !jstr(json_node_get_object(n), "id", NULL) ||
		    !jstr(json_node_get_object(n), "verdict", NULL)) {
			text_printf(err, errlen, "%s: rules[%u] is not an object with string members 'id' and 'verdict'",
				 run->path, i);
			goto bad;
		}
	}
	return 0;
bad:
	report_run_free(run);
	return -1;
}

void report_run_free(struct report_run *run)
{
	if (run->parser)
		g_object_unref(run->parser);
	g_free(run->path);
	memset(run, 0, sizeof *run);
}

int report_write_all(const char *results_path, const char *dir, char *err, size_t errlen)
{
	struct report_run run;
	if (report_load(results_path, &run, err, errlen) != 0)
		return -1;
	gchar *junit = g_build_filename(dir, REPORT_JUNIT, NULL);
	gchar *html = g_build_filename(dir, REPORT_HTML, NULL);
	int rc = report_write_junit(&run, junit, err, errlen);
	if (rc == 0)
		rc = report_write_html(&run, html, err, errlen);
	g_free(junit);
	g_free(html);
	report_run_free(&run);
	return rc;
}
