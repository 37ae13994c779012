/* Text appended to a fixed buffer inside libroce: names from its own tables,
 * whose callers size the buffer for them; what does not fit is cut. */
#ifndef ROCE_TEXTBUF_H
#define ROCE_TEXTBUF_H

#include <stddef.h>
#include <string.h>

/* Appends text to the string in buf[n] (n >= 1), cutting it where buf
 * ends; returns the new length. */
static inline size_t textbuf_append(char *buf, size_t n, const char *text)
{
	size_t w = strnlen(buf, n - 1), len = strlen(text);
	if (w + len >= n)
		len = n - 1 - w;
	memcpy(buf + w, text, len);
	buf[w + len] = '\0';
	return w + len;
}

#endif
