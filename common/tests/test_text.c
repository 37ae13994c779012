/* common/text.c: bounded text whose cut is visible and never splits a
 * UTF-8 character. */
#include <stdbool.h>
#include <string.h>

#include "testutil.h"
#include "text.h"

#define ELL TEXT_ELLIPSIS

/* Whether s is valid UTF-8 (no character cut in two). */
static bool utf8_whole(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
		if (!len)
			return false;
		for (int i = 1; i < len; i++)
			if ((p[i] & 0xC0) != 0x80)
				return false;
		p += len;
	}
	return true;
}

static void fits(void)
{
	char b[16];
	CHECK(text_printf(b, sizeof b, "%s %d", "abc", 42) && !strcmp(b, "abc 42"), "'%s'", b);
	/* Exactly full: 15 characters and the terminator. */
	CHECK(text_printf(b, sizeof b, "%s", "123456789012345") && !strcmp(b, "123456789012345"), "'%s'", b);
	CHECK(text_copy(b, sizeof b, NULL) && !strcmp(b, ""), "NULL copies as empty: '%s'", b);
	b[0] = '\0';
	CHECK(text_appendf(b, sizeof b, "ab") && text_appendf(b, sizeof b, "cd%u", 7u) && !strcmp(b, "abcd7"), "'%s'", b);
}

static void cut(void)
{
	char b[16];
	/* 16 characters into 16 bytes: 12 kept, then the 3-byte ellipsis. */
	CHECK(!text_printf(b, sizeof b, "%s", "1234567890123456"), "reports the cut");
	CHECK(!strcmp(b, "123456789012" ELL), "ends with the ellipsis: '%s'", b);
	CHECK(strlen(b) == sizeof b - 1, "fills the buffer: %zu", strlen(b));

	/* An append that does not fit cuts the whole text the same way. */
	text_printf(b, sizeof b, "%s", "0123456789");
	CHECK(!text_appendf(b, sizeof b, "%s", "abcdefgh"), "append reports the cut");
	CHECK(!strcmp(b, "0123456789ab" ELL), "'%s'", b);
	/* A full buffer: an empty append fits, anything more is a cut. */
	text_printf(b, sizeof b, "%s", "123456789012345");
	CHECK(text_appendf(b, sizeof b, "%s", ""), "an empty append fits");
	CHECK(!text_appendf(b, sizeof b, "x") && !strcmp(b, "123456789012" ELL), "'%s'", b);

	/* A buffer with no room for the mark holds nothing rather than a
	 * cut that looks whole. */
	char small[3];
	CHECK(!text_printf(small, sizeof small, "abc") && !strcmp(small, ""), "'%s'", small);
	char four[4];
	CHECK(!text_printf(four, sizeof four, "abcd") && !strcmp(four, ELL), "'%s'", four);
	CHECK(text_printf(four, sizeof four, "abc") && !strcmp(four, "abc"), "'%s'", four);
}

/* Cuts at every length through two-, three- and four-byte characters. */
static void utf8(void)
{
	const char *text = "a\xC3\xA9" "b\xE2\x82\xAC" "c\xF0\x9F\x98\x80" "d\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80xyz";
	for (size_t n = 1; n <= strlen(text) + 1; n++) {
		char b[64];
		bool fit = text_printf(b, n, "%s", text);
		CHECK(fit == (n > strlen(text)), "n=%zu: fit %d", n, fit);
		CHECK(strlen(b) < n, "n=%zu: within the buffer", n);
		CHECK(utf8_whole(b), "n=%zu: no character split: '%s'", n, b);
		if (!fit && n > 3) {
			size_t l = strlen(b);
			CHECK(l >= 3 && !strcmp(b + l - 3, ELL), "n=%zu: ends with the ellipsis: '%s'", n, b);
			CHECK(!strncmp(b, text, l - 3), "n=%zu: keeps the head: '%s'", n, b);
			CHECK(l + 3 >= n - 1, "n=%zu: keeps as much as fits (%zu bytes)", n, l);
		}
	}
}

int main(void)
{
	fits();
	cut();
	utf8();
	return test_result("test_text");
}
