/*
 * A malloc-backed record store for the flow analysis: a chained hash table
 * of byte keys. Records are allocated once and never move, as
 * roce_flow_env requires.
 */
#include <stdlib.h>
#include <string.h>

#include "roce/flow.h"

struct entry {
	struct entry *next;
	size_t klen;
	void *record;
	unsigned char key[];
};

struct roce_flow_table {
	struct entry **bucket;
	size_t nbuckets, count;
};

static uint64_t hash(const void *key, size_t n)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

struct roce_flow_table *roce_flow_table_new(void)
{
	struct roce_flow_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nbuckets = 64;
	t->bucket = calloc(t->nbuckets, sizeof *t->bucket);
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	return t;
}

void roce_flow_table_free(struct roce_flow_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nbuckets; i++) {
		for (struct entry *e = t->bucket[i], *next; e; e = next) {
			next = e->next;
			free(e->record);
			free(e);
		}
	}
	free(t->bucket);
	free(t);
}

static void grow(struct roce_flow_table *t)
{
	size_t n = t->nbuckets * 2;
	struct entry **b = calloc(n, sizeof *b);
	if (!b)
		return; /* keep the longer chains */
	for (size_t i = 0; i < t->nbuckets; i++) {
		for (struct entry *e = t->bucket[i], *next; e; e = next) {
			next = e->next;
			size_t j = hash(e->key, e->klen) & (n - 1);
			e->next = b[j];
			b[j] = e;
		}
	}
	free(t->bucket);
	t->bucket = b;
	t->nbuckets = n;
}

void *roce_flow_table_record(void *table, const void *key, size_t klen, size_t size)
{
	struct roce_flow_table *t = table;
	size_t i = hash(key, klen) & (t->nbuckets - 1);
	for (struct entry *e = t->bucket[i]; e; e = e->next)
		if (e->klen == klen && !memcmp(e->key, key, klen))
			return e->record;
	struct entry *e = malloc(sizeof *e + klen);
	void *rec = calloc(1, size);
	if (!e || !rec) {
		free(e);
		free(rec);
		return NULL;
	}
	e->klen = klen;
	e->record = rec;
	memcpy(e->key, key, klen);
	e->next = t->bucket[i];
	t->bucket[i] = e;
	if (++t->count > t->nbuckets * 2)
		grow(t);
	return rec;
}
