/* Bounded text with a visible cut (see text.h). */
#include "text.h"

#include <stdio.h>
#include <string.h>

/* buf[0..n) holds a text that vsnprintf cut: end it with the ellipsis,
 * after the last whole UTF-8 character that leaves room for it. */
static void mark_cut(char *buf, size_t n)
{
	const size_t el = sizeof TEXT_ELLIPSIS - 1;
	if (n <= el) {
		/* No room for the mark: a buffer this small holds no text. */
		buf[0] = '\0';
		return;
	}
	size_t end = n - 1 - el;
	while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
		end--; /* do not split a character */
	memcpy(buf + end, TEXT_ELLIPSIS, el + 1);
}

bool text_vprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	if (n == 0)
		return false;
	int r = vsnprintf(buf, n, fmt, ap);
	if (r < 0) {
		buf[0] = '\0';
		return false;
	}
	if ((size_t)r < n)
		return true;
	mark_cut(buf, n);
	return false;
}

bool text_printf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool fit = text_vprintf(buf, n, fmt, ap);
	va_end(ap);
	return fit;
}

bool text_vappendf(char *buf, size_t n, const char *fmt, va_list ap)
{
	if (n == 0)
		return false;
	size_t w = strnlen(buf, n);
	if (w == n) { /* not terminated */
		mark_cut(buf, n);
		return false;
	}
	int r = vsnprintf(buf + w, n - w, fmt, ap);
	if (r < 0) {
		buf[w] = '\0';
		return false;
	}
	if ((size_t)r < n - w)
		return true;
	mark_cut(buf, n);
	return false;
}

bool text_appendf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool fit = text_vappendf(buf, n, fmt, ap);
	va_end(ap);
	return fit;
}

bool text_copy(char *buf, size_t n, const char *src)
{
	return text_printf(buf, n, "%s", src ? src : "");
}
