/*
 * The results file of a run (docs/results-schema.md): one record per case
 * (per IP version) and one per rule of the catalogue, with the set-up, the
 * steps, the packets and their frame numbers in the capture, and the
 * evidence. Rewritten atomically after every case, so an interrupted run
 * leaves a valid file.
 */
#ifndef ROCE_TESTER_RESULTS_H
#define ROCE_TESTER_RESULTS_H

#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "runner.h"

#define RESULTS_SCHEMA_VERSION 1

struct results;

struct results *results_new(const char *path, int argc, char **argv, const char *capture_name);
void results_add_case(struct results *res, JsonObject *rec, enum verdict v);
/* A member of the file besides the run's cases (roce-tester fuzz: "fuzz"),
 * written as it stands (a reference is taken). */
void results_set_extra(struct results *res, const char *member, JsonObject *o);
/* Writes the file (setup may be NULL). Returns 0, or -1 with err. */
int results_write(struct results *res, JsonObject *setup, bool finished, bool interrupted, char *err, size_t errlen);
void results_counts(const struct results *res, unsigned counts[V_COUNT]);
void results_free(struct results *res);

#endif
