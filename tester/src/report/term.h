/*
 * The terminal: colours only where they can be seen (a TTY, NO_COLOR
 * unset, TERM not "dumb", unless --color says otherwise), and the live
 * progress line of `roce-tester run`: case n of N, pass/fail counts and
 * elapsed time, redrawn in place on a TTY while a case runs.
 */
#ifndef ROCE_TESTER_TERM_H
#define ROCE_TESTER_TERM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum colour_mode { COLOUR_AUTO, COLOUR_ALWAYS, COLOUR_NEVER };

/* Parses "auto", "always", "never"; returns false otherwise. */
bool colour_mode_parse(const char *s, enum colour_mode *m);
/* Whether to colour what goes to out. */
bool colour_wanted(FILE *out, enum colour_mode m);

enum term_colour { TC_RESET, TC_BOLD, TC_DIM, TC_RED, TC_GREEN, TC_YELLOW, TC_CYAN };
/* The escape sequence, or "" when colour is off. */
const char *tc(bool colour, enum term_colour c);
/* The colour a verdict is shown in. */
enum term_colour verdict_colour(const char *verdict);

enum verbosity { VERB_QUIET, VERB_NORMAL, VERB_VERBOSE };

struct progress;

/* live: redraw a status line in place (out is a TTY and not quiet). */
struct progress *progress_new(FILE *out, bool colour, bool live, unsigned total);
void progress_case_start(struct progress *p, const char *id, int ip_version);
/* Prints lines above the live line (they stay); counts a verdict. */
void progress_print(struct progress *p, const char *text);
void progress_count(struct progress *p, const char *verdict);
/* Writes a message to stream (stderr) without tearing the live line. */
void progress_message(struct progress *p, FILE *stream, const char *text);
/* Stops redrawing and erases the live line. */
void progress_free(struct progress *p);

#endif
