#ifndef ROCE_CRC32_IMPL_H
#define ROCE_CRC32_IMPL_H

/*
 * Internal: direct access to each CRC-32 implementation, so that tests and
 * benchmarks can check and time every path the CPU supports.  Impl 0 is the
 * portable table path and is always supported.
 */

#include <stddef.h>
#include <stdint.h>

int roce_crc32_impl_count(void);
/* Short name such as "pclmul"; NULL for an out-of-range impl. */
const char *roce_crc32_impl_name(int impl);
/* Nonzero if this CPU can run impl; 0 for an out-of-range impl. */
int roce_crc32_impl_supported(int impl);
/* Same contract as roce_crc32(); impl must be supported. */
uint32_t roce_crc32_impl(int impl, uint32_t crc, const void *buf, size_t len);
/* Same contract as roce_crc32_or64(); impl must be supported. */
uint32_t roce_crc32_or64_impl(int impl, uint32_t crc, const void *buf, size_t len,
			      const uint8_t or64[64]);

#endif /* ROCE_CRC32_IMPL_H */
