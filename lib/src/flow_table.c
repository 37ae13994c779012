/*
 * A record store for the flow analysis: a chained hash table of byte keys.
 * Records are allocated once and never move, as roce_flow_env requires,
 * and live as long as the table: so they and the entries are cut from
 * chunks of CHUNK bytes, in order, and unmapped with the table. On a
 * capture of 4096 QPs (bench/bench_lint, many-qps) one calloc per record
 * and entry, its clearing and a page fault per 4 KiB of records took about
 * half of lint's time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "roce/flow.h"

struct entry {
	struct entry *next;
	uint64_t hash; /* of the key: compared before the key, reused to grow */
	size_t klen;
	void *record;
	unsigned char key[];
};

/* A piece of zeroed memory records are cut from. */
struct chunk {
	struct chunk *next;
	size_t used, size;
	size_t bytes; /* mapped (chunk_new); 0: from calloc, the first */
	_Alignas(16) unsigned char mem[];
};

/* One huge page (x86-64): fresh zero pages from the kernel, not cleared
 * again, and where it gives huge pages one fault for all of it. */
#define CHUNK (2048u * 1024)
/* The first chunk, from malloc: a table of a few flows (the fuzz target,
 * the tests, a short capture) maps and clears no huge page. */
#define FIRST_CHUNK (64u * 1024)
#define ALIGN 16u

struct roce_flow_table {
	struct entry **bucket;
	size_t nbuckets, count;
	struct chunk *chunks; /* the one being cut first */
};

/* Zeroed memory for a chunk of n bytes, aligned to 2 MiB and in huge pages
 * where the kernel gives them on request (transparent huge pages: madvise
 * or always); 4 KiB pages elsewhere. NULL if out of memory. */
static struct chunk *chunk_new(size_t n)
{
	const size_t huge = 2u << 20;
	size_t len = (n + huge - 1) & ~(huge - 1);
	void *p = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uintptr_t at = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
	if (at > (uintptr_t)p)
		munmap(p, at - (uintptr_t)p);
	munmap((void *)(at + len), (uintptr_t)p + len + huge - (at + len));
	madvise((void *)at, len, MADV_HUGEPAGE);
	struct chunk *c = (struct chunk *)at;
	c->bytes = len;
	return c;
}

/* n zeroed bytes that live until the table is freed; NULL if out of memory. */
static void *table_alloc(struct roce_flow_table *t, size_t n)
{
	n = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	struct chunk *c = t->chunks;
	if (c && c->size - c->used >= n) {
		void *p = c->mem + c->used;
		c->used += n;
		return p;
	}
	const size_t room = (c ? CHUNK : FIRST_CHUNK) - sizeof *c;
	/* A large record gets a chunk of its own, behind the one being cut. */
	size_t size = n > room / 4 ? n : room;
	struct chunk *fresh = c ? chunk_new(sizeof *fresh + size) : calloc(1, sizeof *fresh + size);
	if (!fresh)
		return NULL; /* calloc's has bytes 0: freed, not unmapped */
	fresh->size = size;
	fresh->used = n;
	if (size == n && c) {
		fresh->next = c->next;
		c->next = fresh;
	} else {
		fresh->next = c;
		t->chunks = fresh;
	}
	return fresh->mem;
}

/* One 64-bit word into the hash: a multiply and a shift (splitmix64's). */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 31);
}

/*
 * Eight key bytes a step, not one: the analysis looks up several records a
 * packet, and a bytewise hash (FNV-1a, one multiply in a chain per byte)
 * was its largest single cost (bench/bench_lint). Only this process sees
 * the values, so they need not be stable across builds.
 */
static uint64_t hash(const void *key, size_t n)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = mix(h, w);
	}
	h = (h ^ (h >> 29)) * 0x94d049bb133111ebull;
	return h ^ (h >> 32);
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
	for (struct chunk *c = t->chunks, *next; c; c = next) {
		next = c->next;
		if (c->bytes)
			munmap(c, c->bytes);
		else
			free(c);
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
			size_t j = e->hash & (n - 1);
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
	const uint64_t h = hash(key, klen);
	size_t i = h & (t->nbuckets - 1);
	for (struct entry *e = t->bucket[i]; e; e = e->next)
		if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
			return e->record;
	struct entry *e = table_alloc(t, sizeof *e + klen);
	void *rec = e ? table_alloc(t, size ? size : 1) : NULL;
	if (!rec)
		return NULL; /* what was cut stays with the table */
	e->hash = h;
	e->klen = klen;
	e->record = rec;
	memcpy(e->key, key, klen);
	e->next = t->bucket[i];
	t->bucket[i] = e;
	if (++t->count > t->nbuckets) /* chains of one record, on average */
		grow(t);
	return rec;
}
