/* A pool of reusable byte buffers (see bufpool.h). */
#include "bufpool.h"

#include <stdio.h>
#include <stdlib.h>

/* Each buffer carries its capacity in front of the bytes handed out. */
struct bufhdr {
	size_t cap;
	size_t pad; /* keeps the data 16-byte aligned */
};

static struct bufhdr *hdr_of(void *buf)
{
	return (struct bufhdr *)buf - 1;
}

void *bufpool_get(struct bufpool *bp, size_t len)
{
	if (!len)
		len = 1;
	struct bufhdr *h = NULL;
	/* The most recently returned buffer first: it is warm in the cache
	 * and, in a steady flow, already large enough. */
	if (bp->n) {
		h = hdr_of(bp->free[--bp->n]);
		if (h->cap >= len)
			return h + 1;
	}
	struct bufhdr *g = realloc(h, sizeof *g + len);
	if (!g) {
		fputs("roce-tester: out of memory\n", stderr);
		abort();
	}
	bp->allocations++;
	g->cap = len;
	return g + 1;
}

void bufpool_put(struct bufpool *bp, void *buf)
{
	if (!buf)
		return;
	if (bp->n == BUFPOOL_KEEP) {
		free(hdr_of(buf));
		return;
	}
	bp->free[bp->n++] = buf;
}

void bufpool_clear(struct bufpool *bp)
{
	while (bp->n)
		free(hdr_of(bp->free[--bp->n]));
}
