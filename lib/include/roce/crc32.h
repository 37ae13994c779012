#ifndef ROCE_CRC32_H
#define ROCE_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * CRC-32 as in zlib's crc32() and IEEE 802.3: reflected, polynomial
 * 0xEDB88320, initial value and final XOR 0xFFFFFFFF (both handled here).
 * Start with crc = 0; pass a result back in to continue over more data.
 * buf may be NULL when len is 0; crc is then returned unchanged (zlib would
 * return 0 for a NULL buf, which silently restarts a running CRC).
 * Uses PCLMULQDQ / VPCLMULQDQ when the CPU has them; thread-safe, no
 * allocation, no initialisation call needed.
 */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);

/*
 * roce_crc32() of buf as if each of its first 64 bytes (all len, if fewer)
 * were ORed with the same byte of or64: for the RoCEv2 ICRC, which sets
 * variant header fields to ones.  No copy is made, the mask is applied in
 * registers.  All 64 bytes of or64 must be readable; of buf only len, and
 * buf may be NULL when len is 0.
 */
uint32_t roce_crc32_or64(uint32_t crc, const void *buf, size_t len, const uint8_t or64[64]);

#ifdef __cplusplus
}
#endif

#endif /* ROCE_CRC32_H */
