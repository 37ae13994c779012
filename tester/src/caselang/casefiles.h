/* Finding case files: the files named, and every *.case under the
 * directories named, in path order (shared by `run` and `coverage`). */
#ifndef ROCE_TESTER_CASEFILES_H
#define ROCE_TESTER_CASEFILES_H

#include <stddef.h>

struct case_files {
	char **paths;
	size_t n, cap;
};

/* Adds paths[0..n) (files as given, directories searched recursively for
 * *.case) and sorts the result. Returns 0, or -1 after printing, prefixed
 * with who, each path that cannot be read (the others are still added). */
int case_files_collect(struct case_files *l, char *const *paths, int n, const char *who);
void case_files_free(struct case_files *l);

struct cl_case;
/* Parses every file of the list into *cases (allocated, n of them; free
 * each with cl_case_free, then the array). Returns 0, or -1 after printing
 * each file's parse error (the others are still parsed). */
int case_files_parse(const struct case_files *l, struct cl_case ***cases, size_t *n);

#endif
