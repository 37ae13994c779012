/*
 * A pool of reusable byte buffers: the peer engine takes message and
 * completion buffers from it and gives them back, so that a steady flow of
 * messages of similar sizes allocates nothing once the pool is warm.
 */
#ifndef ROCE_TESTER_BUFPOOL_H
#define ROCE_TESTER_BUFPOOL_H

#include <stddef.h>

/* Buffers kept for reuse at most; more given back are freed. */
#define BUFPOOL_KEEP 512

struct bufpool {
	void *free[BUFPOOL_KEEP];
	unsigned n;
	unsigned long allocations; /* malloc/realloc calls made, for tests and statistics */
};

/* A buffer of at least len bytes (aborts when memory runs out). */
void *bufpool_get(struct bufpool *bp, size_t len);
/* Gives a buffer of bufpool_get back; NULL is ignored. */
void bufpool_put(struct bufpool *bp, void *buf);
/* Frees every kept buffer. */
void bufpool_clear(struct bufpool *bp);

#endif
