/*
 * Text in fixed buffers, for text whose length is bounded by design (a
 * one-line message built from names in tables and numbers, an interface
 * name): what does not fit is cut at a UTF-8 character boundary and ends
 * with "…", so a reader sees that it was cut and nothing else is lost
 * silently. Text whose length nobody bounds (what a DUT or an agent says,
 * a case's text, file paths, details, expected and observed values) is
 * kept in GLib strings instead; docs/development.md says which is which.
 */
#ifndef ROCE_COMMON_TEXT_H
#define ROCE_COMMON_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define TEXT_ELLIPSIS "\xE2\x80\xA6" /* U+2026, 3 bytes in UTF-8 */

/* Like snprintf into buf[n] (n >= 1), with a visible cut. Returns true
 * when the whole text fit. */
bool text_printf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool text_vprintf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* Appends to the text already in buf[n], with a visible cut. */
bool text_appendf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool text_vappendf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/* Copies src (may be NULL: "") into buf[n], with a visible cut. */
bool text_copy(char *buf, size_t n, const char *src);

#endif
