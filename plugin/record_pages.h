/* Memory for the packets' records (analysis.c): blocks carved in order,
 * living until the capture file closes. */
#ifndef ROCEV2_RECORD_PAGES_H
#define ROCEV2_RECORD_PAGES_H

#include <stddef.h>

/* A block of at least `bytes` bytes (not zeroed); NULL if out of memory.
 * The first of a file comes from malloc (a short capture maps no huge
 * page); later ones are 2 MiB-aligned mappings in transparent huge pages
 * where the kernel gives them on request. */
void *rocev2_record_block(size_t *bytes);
/* Every block handed out since the last call is returned. */
void rocev2_record_blocks_free(void);

#endif
