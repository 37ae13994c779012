/* Finding case files (casefiles.h). */
#include "casefiles.h"
#include "caselang.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void add_path(struct case_files *l, const char *p)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		char **np = realloc(l->paths, l->cap * sizeof *np);
		if (!np)
			abort();
		l->paths = np;
	}
	l->paths[l->n] = strdup(p);
	if (!l->paths[l->n])
		abort();
	l->n++;
}

static int collect(struct case_files *l, const char *path, bool top, const char *who)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		size_t n = strlen(path);
		if (top || (n > 5 && !strcmp(path + n - 5, ".case")))
			add_path(l, path);
		return 0;
	}
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* PATH/NAME, whatever their lengths. */
		size_t pl = strlen(path), nl = strlen(e->d_name), w = pl;
		char *sub = malloc(pl + nl + 2);
		if (!sub)
			abort();
		memcpy(sub, path, pl);
		if (!pl || path[pl - 1] != '/')
			sub[w++] = '/';
		memcpy(sub + w, e->d_name, nl + 1);
		if (collect(l, sub, false, who) != 0)
			rc = -1;
		free(sub);
	}
	closedir(d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int case_files_collect(struct case_files *l, char *const *paths, int n, const char *who)
{
	int rc = 0;
	for (int i = 0; i < n; i++)
		if (collect(l, paths[i], true, who) != 0)
			rc = -1;
	if (l->n)
		qsort(l->paths, l->n, sizeof *l->paths, cmp_str);
	return rc;
}

void case_files_free(struct case_files *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	l->paths = NULL;
	l->n = l->cap = 0;
}

int case_files_parse(const struct case_files *l, struct cl_case ***cases, size_t *n)
{
	int rc = 0;
	*cases = calloc(l->n ? l->n : 1, sizeof **cases);
	if (!*cases)
		abort();
	*n = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct cl_diag d;
		struct cl_case *c = cl_parse_file(l->paths[i], &d);
		if (!c) {
			fprintf(stderr, "%s\n", d.msg);
			rc = -1;
			continue;
		}
		(*cases)[(*n)++] = c;
	}
	return rc;
}
