/*
 * Blocks for the packets' records. Every packet gets a record on the first
 * pass, ~50 bytes written to memory never touched before: from wmem's file
 * scope that is a page fault per 4 KiB, which in this project's VMs (a
 * paravirtual MMU) perf counted as 42% of dissect_parsed. Blocks of 2 MiB
 * in huge pages take one fault each (lib/src/flow_table.c does the same
 * for lint's flow records): 2-3% of tshark's CPU against 512 KiB blocks
 * mapped with MAP_POPULATE, for up to a huge page (~1 MiB measured) more
 * of peak memory.
 */
#include "record_pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_BYTES (2u << 20)
#define FIRST_BYTES (64u << 10)

/* Each block starts with its link; the list of a file's blocks (reset
 * when the file closes, as the plugin's other file-scope state). */
struct block {
	struct block *next;
	size_t mapped; /* 0: from malloc */
};
static struct block *blocks;

static struct block *huge_block(void)
{
	size_t len = HUGE_BYTES;
	void *p = mmap(NULL, len + HUGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	uintptr_t at = ((uintptr_t)p + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
	if (at > (uintptr_t)p)
		munmap(p, at - (uintptr_t)p);
	munmap((void *)(at + len), (uintptr_t)p + len + HUGE_BYTES - (at + len));
	madvise((void *)at, len, MADV_HUGEPAGE);
	struct block *b = (struct block *)at;
	b->mapped = len;
	return b;
}

void *rocev2_record_block(size_t *bytes)
{
	struct block *b;
	if (!blocks) {
		b = malloc(FIRST_BYTES);
		if (!b)
			return NULL;
		b->mapped = 0;
		*bytes = FIRST_BYTES - sizeof *b;
	} else {
		b = huge_block();
		if (!b)
			return NULL;
		*bytes = b->mapped - sizeof *b;
	}
	b->next = blocks;
	blocks = b;
	return b + 1;
}

void rocev2_record_blocks_free(void)
{
	while (blocks) {
		struct block *b = blocks;
		blocks = b->next;
		if (b->mapped)
			munmap(b, b->mapped);
		else
			free(b);
	}
}
