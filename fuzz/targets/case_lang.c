/*
 * The tester's case-language parser (tester/src/caselang/caselang.h) on arbitrary
 * text: the lexer, the grammar, the header rules, symbol resolution and
 * every value check. The text is not NUL-terminated (only its bytes are
 * allocated), so the parser must respect the length it is given.
 *
 * Checked beyond "no crash, no leak":
 * - the same text parses the same way twice (same error and place, or the
 *   same number of steps and symbols);
 * - a failure names a known error code and a place inside the text, and its
 *   message starts with the file name and that place ("fuzz.case:L:C: ");
 * - a success has an ID, and every step's location lies inside the text.
 */
#include "../fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "caselang.h"
#include "text.h"

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = 1;
	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	unsigned lines = count_lines(data, size);

	struct cl_diag d1, d2;
	memset(&d1, 0, sizeof d1);
	memset(&d2, 0, sizeof d2);
	struct cl_case *a = cl_parse_text("fuzz.case", text, size, &d1);
	struct cl_case *b = cl_parse_text("fuzz.case", text, size, &d2);
	FUZZ_CHECK(!a == !b, "two parses of the same text disagree");
	if (!a) {
		FUZZ_CHECK(d1.code > CL_OK && d1.code < CL_ERR_COUNT && d1.code != CL_ERR_IO, "error code %d",
			   d1.code);
		FUZZ_CHECK(d1.code == d2.code && d1.loc.line == d2.loc.line && d1.loc.col == d2.loc.col &&
				   !strcmp(d1.msg, d2.msg),
			   "two parses fail differently: %s / %s", d1.msg, d2.msg);
		FUZZ_CHECK(d1.loc.line >= 1 && d1.loc.line <= lines && d1.loc.col >= 1,
			   "error at %u:%u, the text has %u lines", d1.loc.line, d1.loc.col, lines);
		char head[64];
		snprintf(head, sizeof head, "fuzz.case:%u:%u: ", d1.loc.line, d1.loc.col);
		FUZZ_CHECK(strncmp(d1.msg, head, strlen(head)) == 0 && strlen(d1.msg) > strlen(head),
			   "message does not say where: %s", d1.msg);
		FUZZ_CHECK(cl_error_name(d1.code) && *cl_error_name(d1.code), "unnamed error");
	} else {
		FUZZ_CHECK(a->id && *a->id, "a case without an ID");
		FUZZ_CHECK(a->n_steps == b->n_steps && a->n_syms == b->n_syms && !strcmp(a->id, b->id),
			   "two parses of the same text differ");
		for (unsigned i = 0; i < a->n_steps; i++) {
			const struct cl_step *s = &a->steps[i];
			FUZZ_CHECK(s->kind < CL_STEP_KIND_COUNT && cl_step_kind_name(s->kind), "step kind %d", s->kind);
			FUZZ_CHECK(s->loc.line >= 1 && s->loc.line <= lines, "step %u at line %u of %u", i, s->loc.line,
				   lines);
			for (unsigned k = 0; k < s->n_args; k++)
				FUZZ_CHECK(s->args[k].key && cl_step_arg(s, s->args[k].key), "argument %u of step %u", k, i);
		}
		char caps[256];
		cl_caps_format(a->caps, caps, sizeof caps);
	}
	cl_case_free(a);
	cl_case_free(b);
	free(text);
	return 0;
}

/* ---- Seeds: the conformance cases and the tester's test cases ---- */

int fuzz_make_seeds(const char *dir, int argc, char **argv)
{
	int n = 0;
	for (int i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "%s: cannot open\n", argv[i]);
			return -1;
		}
		static char buf[1 << 20];
		size_t len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		/* dir-name.case from .../dir/name.case */
		const char *slash = strrchr(argv[i], '/');
		const char *prev = slash;
		while (prev && prev > argv[i] && prev[-1] != '/')
			prev--;
		char name[NAME_MAX + 1];
		if (!text_printf(name, sizeof name, "%.*s-%s", prev && slash ? (int)(slash - prev) : 0, prev ? prev : "",
				 slash ? slash + 1 : argv[i])) {
			fprintf(stderr, "%s: too long a name for a seed file\n", argv[i]);
			return -1;
		}
		if (fuzz_write_seed(dir, name, buf, len) != 0)
			return -1;
		n++;
	}
	return n;
}
